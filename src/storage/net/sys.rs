//! The system calls of the network storages that std does not offer: a
//! wait on one socket to the nanosecond (`ppoll`), a non-blocking peek
//! (`recv(MSG_PEEK)`) and a Unix-socket connect that never blocks. Every
//! `unsafe` of the network storages is here, each with the invariant it
//! relies on; the rest of `net/` and the storages above it are safe code.

use std::io;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// Waits at most `timeout` for `fd` to be ready for `events` (`POLLIN`,
/// `POLLOUT`): whether it is. `ppoll` sleeps to the microsecond, where a
/// socket timeout or `poll`'s milliseconds would be rounded up to the
/// kernel's tick (up to 10 ms late). A signal ends the wait early with
/// `Interrupted`.
pub fn wait_ready(fd: RawFd, events: libc::c_short, timeout: Duration) -> io::Result<bool> {
    let mut poll = libc::pollfd { fd, events, revents: 0 };
    let timeout = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `poll` and `timeout` live on this stack frame for the whole
    // call, and the count (1) is the number of `pollfd`s; no signal mask.
    match unsafe { libc::ppoll(&raw mut poll, 1, &raw const timeout, std::ptr::null()) } {
        0 => Ok(false),
        1.. => Ok(true),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Peeks at one byte of `fd` without waiting and without taking it:
/// `Ok(0)` at end of stream, `Ok(1)` when a byte waits, `WouldBlock` when
/// there is none yet.
pub fn peek(fd: RawFd) -> io::Result<usize> {
    let mut byte = 0u8;
    // SAFETY: `fd` is an open socket owned by the caller for the duration of
    // the call; `recv` writes at most one byte into `byte`, which lives on
    // this stack frame.
    let received = unsafe { libc::recv(fd, (&raw mut byte).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
    if received < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(received as usize)
}

/// Connects to a Unix socket without blocking: `UnixStream::connect` would
/// wait, with no timeout, while the listen queue of a paused server is full.
pub fn connect_unix(path: &Path) -> io::Result<UnixStream> {
    // SAFETY: `socket` takes no pointer; a negative result is checked below.
    let fd = unsafe {
        libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a socket just opened and owned by nothing else: the
    // stream owns it from here on, and closes it on every path out.
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    // SAFETY: `sockaddr_un` is plain data, for which all zeroes are valid.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() >= address.sun_path.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the socket path is too long",
        ));
    }
    for (slot, &byte) in address.sun_path.iter_mut().zip(bytes) {
        *slot = byte as libc::c_char;
    }
    let length = (std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1) as libc::socklen_t;
    // SAFETY: `address` is a valid `sockaddr_un` on this stack frame, and
    // `length` covers its family, path and terminating zero.
    if unsafe { libc::connect(fd, (&raw const address).cast(), length) } < 0 {
        let error = io::Error::last_os_error();
        return Err(if error.kind() == io::ErrorKind::WouldBlock {
            io::Error::new(
                io::ErrorKind::WouldBlock,
                "the server's listen queue is full (is it paused?)",
            )
        } else {
            error
        });
    }
    stream.set_nonblocking(false)?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use std::os::unix::net::UnixListener;

    use super::*;

    #[test]
    fn a_unix_socket_whose_queue_is_full_is_refused_at_once() {
        let path = std::env::temp_dir().join(format!("cb-full-queue-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).unwrap();
        let mut queued = Vec::new();
        let refused = (0..100_000).find_map(|_| match connect_unix(&path) {
            Ok(stream) => {
                queued.push(stream);
                None
            }
            Err(error) => Some(error),
        });
        drop(listener);
        let _ = std::fs::remove_file(&path);
        assert_eq!(refused.map(|error| error.kind()), Some(io::ErrorKind::WouldBlock));
        assert!(!queued.is_empty(), "a socket with room in its queue connects");
    }
}
