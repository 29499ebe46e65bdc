//! The socket of the network storages: every read and write of it ends by
//! one deadline, that of the PHP-level call, so that all the round trips of
//! one call (connecting included) share one timeout. The deadline is a
//! field of the socket, set at each use of a pooled connection; a wait is
//! one `ppoll` of the socket for the time left.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use super::resolve::resolve;
use super::sys;

/// What a [`DeadlineSocket`] carries.
pub enum Transport {
    Tcp(TcpStream),
    Unix(UnixStream),
}

/// A socket whose every read and write ends by `deadline`.
pub struct DeadlineSocket {
    transport: Transport,
    deadline: Instant,
}

/// The error of a read, write or connection that reached the deadline.
pub fn deadline_passed() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the call's deadline passed")
}

impl DeadlineSocket {
    pub fn new(transport: Transport, deadline: Instant) -> Self {
        Self { transport, deadline }
    }

    /// Every later read and write ends by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The time left before the deadline; an error once there is none.
    pub fn time_left(&self) -> io::Result<Duration> {
        Some(self.deadline.saturating_duration_since(Instant::now()))
            .filter(|left| !left.is_zero())
            .ok_or_else(deadline_passed)
    }

    fn fd(&self) -> RawFd {
        match &self.transport {
            Transport::Tcp(stream) => stream.as_raw_fd(),
            Transport::Unix(stream) => stream.as_raw_fd(),
        }
    }

    /// Waits until the socket is ready for `events`, at most until the
    /// deadline (`sys::wait_ready`: to the microsecond).
    fn wait_for(&self, events: libc::c_short) -> io::Result<()> {
        loop {
            match sys::wait_ready(self.fd(), events, self.time_left()?) {
                Ok(true) => return Ok(()),
                Ok(false) => return Err(deadline_passed()),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Whether the peer of this idle socket closed it or left bytes on it:
    /// one non-blocking peek, no round trip. A live idle connection has
    /// nothing to read (`EAGAIN`); end of stream, an error (reset) or
    /// unsolicited bytes all mean it must not be used.
    pub fn closed_by_peer(&self) -> bool {
        match sys::peek(self.fd()) {
            Ok(_) => true,
            Err(error) => !matches!(error.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted),
        }
    }
}

impl Read for DeadlineSocket {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.wait_for(libc::POLLIN)?;
        match &mut self.transport {
            Transport::Tcp(stream) => stream.read(buffer),
            Transport::Unix(stream) => stream.read(buffer),
        }
    }
}

impl Write for DeadlineSocket {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.wait_for(libc::POLLOUT)?;
        // Ready to write means room for some bytes, not all: the socket
        // timeout keeps a partial write from blocking past the deadline.
        let left = Some(self.time_left()?);
        match &mut self.transport {
            Transport::Tcp(stream) => {
                stream.set_write_timeout(left)?;
                stream.write(bytes)
            }
            Transport::Unix(stream) => {
                stream.set_write_timeout(left)?;
                stream.write(bytes)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Connects to the first address of `host`:`port` that answers, resolving
/// and connecting by `deadline`; the stream sends small writes at once
/// (`TCP_NODELAY`).
pub fn connect_tcp(host: &str, port: u16, deadline: Instant) -> io::Result<TcpStream> {
    let mut last_error = io::Error::new(io::ErrorKind::NotFound, format!("{host} resolves to no address"));
    for address in resolve(host, port, deadline)? {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(deadline_passed());
        }
        match TcpStream::connect_timeout(&address, left) {
            Ok(stream) => {
                stream.set_nodelay(true)?;
                return Ok(stream);
            }
            Err(error) => last_error = error,
        }
    }
    Err(last_error)
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    use super::*;

    fn socket(stream: TcpStream) -> DeadlineSocket {
        DeadlineSocket::new(Transport::Tcp(stream), Instant::now() + Duration::from_secs(1))
    }

    #[test]
    fn a_peek_tells_an_idle_socket_from_a_closed_one() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = socket(TcpStream::connect(listener.local_addr().unwrap()).unwrap());
        let (mut server, _) = listener.accept().unwrap();
        assert!(!client.closed_by_peer(), "idle and open");
        server.write_all(b"+unsolicited\r\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(client.closed_by_peer(), "bytes nobody asked for");
        let client = socket(TcpStream::connect(listener.local_addr().unwrap()).unwrap());
        let (server, _) = listener.accept().unwrap();
        drop(server);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(client.closed_by_peer(), "closed by the server");
    }

    #[test]
    fn a_read_ends_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let _server = listener.accept().unwrap();
        let started = Instant::now();
        let mut client = DeadlineSocket::new(Transport::Tcp(stream), started + Duration::from_millis(30));
        let error = client.read(&mut [0; 16]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "took {:?}",
            started.elapsed()
        );
    }
}
