//! Memcached's text protocol, the few commands the storage needs, over one
//! blocking connection with timeouts. Written here rather than taken from
//! the `memcache` crate: that crate cannot pipeline two commands (a
//! permitted call must cost two round trips) and runs a connection pool
//! with threads of its own in every PHP worker.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProtocolError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("unexpected answer from memcached: {0}")]
    Unexpected(String),
}

impl ProtocolError {
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Io(error) if matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut))
    }
}

pub struct Connection {
    reader: BufReader<TcpStream>,
}

/// What `incr` answered.
pub enum Incremented {
    Value(u64),
    NotFound,
}

/// A value with its CAS token.
pub struct Item {
    pub value: Vec<u8>,
    pub cas: u64,
}

/// Memcached reads an expiry over 30 days as a Unix time.
const MAX_RELATIVE_EXPIRY: u64 = 30 * 24 * 3_600;

pub fn expiry(ttl_seconds: u64, now_seconds: u64) -> u64 {
    if ttl_seconds > MAX_RELATIVE_EXPIRY {
        now_seconds + ttl_seconds
    } else {
        ttl_seconds.max(1)
    }
}

impl Connection {
    pub fn connect(address: &str, timeout: Duration) -> Result<Self, ProtocolError> {
        let mut last = None;
        for socket in address.to_socket_addrs()? {
            match TcpStream::connect_timeout(&socket, timeout) {
                Ok(stream) => {
                    stream.set_read_timeout(Some(timeout))?;
                    stream.set_write_timeout(Some(timeout))?;
                    stream.set_nodelay(true)?;
                    return Ok(Self {
                        reader: BufReader::new(stream),
                    });
                }
                Err(error) => last = Some(error),
            }
        }
        Err(last.map_or_else(
            || ProtocolError::Unexpected(format!("{address} resolves to nothing")),
            ProtocolError::Io,
        ))
    }

    fn send(&mut self, request: &[u8]) -> Result<(), ProtocolError> {
        self.reader.get_mut().write_all(request)?;
        Ok(())
    }

    fn line(&mut self) -> Result<String, ProtocolError> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(ProtocolError::Io(std::io::ErrorKind::UnexpectedEof.into()));
        }
        Ok(line.trim_end_matches("\r\n").to_owned())
    }

    fn incr_request(key: &[u8]) -> Vec<u8> {
        [b"incr ", key, b" 1\r\n"].concat()
    }

    fn read_incr(&mut self) -> Result<Incremented, ProtocolError> {
        let line = self.line()?;
        if line == "NOT_FOUND" {
            return Ok(Incremented::NotFound);
        }
        line.trim()
            .parse()
            .map(Incremented::Value)
            .map_err(|_| ProtocolError::Unexpected(line))
    }

    fn gets_request(keys: &[Vec<u8>]) -> Vec<u8> {
        let mut request = b"gets".to_vec();
        for key in keys {
            request.push(b' ');
            request.extend_from_slice(key);
        }
        request.extend_from_slice(b"\r\n");
        request
    }

    /// Reads a `gets` answer, as items in the order of `keys`.
    fn read_gets(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Item>>, ProtocolError> {
        let mut items: Vec<Option<Item>> = keys.iter().map(|_| None).collect();
        loop {
            let line = self.line()?;
            if line == "END" {
                return Ok(items);
            }
            let parts: Vec<&str> = line.split(' ').collect();
            let [_, key, _, length, cas] = parts[..] else {
                return Err(ProtocolError::Unexpected(line));
            };
            let length: usize = length.parse().map_err(|_| ProtocolError::Unexpected(line.clone()))?;
            let cas: u64 = cas.parse().map_err(|_| ProtocolError::Unexpected(line.clone()))?;
            let mut value = vec![0; length + 2];
            std::io::Read::read_exact(&mut self.reader, &mut value)?;
            value.truncate(length);
            if let Some(position) = keys.iter().position(|wanted| wanted.as_slice() == key.as_bytes()) {
                items[position] = Some(Item { value, cas });
            }
        }
    }

    pub fn increment(&mut self, key: &[u8]) -> Result<Incremented, ProtocolError> {
        self.send(&Self::incr_request(key))?;
        self.read_incr()
    }

    pub fn gets(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Item>>, ProtocolError> {
        self.send(&Self::gets_request(keys))?;
        self.read_gets(keys)
    }

    /// `incr` and `gets` sent together: one round trip.
    pub fn increment_and_gets(
        &mut self,
        key: &[u8],
        keys: &[Vec<u8>],
    ) -> Result<(Incremented, Vec<Option<Item>>), ProtocolError> {
        self.send(&[Self::incr_request(key), Self::gets_request(keys)].concat())?;
        let incremented = self.read_incr()?;
        Ok((incremented, self.read_gets(keys)?))
    }

    fn store(
        &mut self,
        command: &str,
        key: &[u8],
        value: &[u8],
        expiry: u64,
        cas: Option<u64>,
    ) -> Result<bool, ProtocolError> {
        let mut request = format!("{command} ").into_bytes();
        request.extend_from_slice(key);
        request.extend_from_slice(format!(" 0 {expiry} {}", value.len()).as_bytes());
        if let Some(cas) = cas {
            request.extend_from_slice(format!(" {cas}").as_bytes());
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
        self.send(&request)?;
        match self.line()?.as_str() {
            "STORED" => Ok(true),
            "NOT_STORED" | "EXISTS" | "NOT_FOUND" => Ok(false),
            other => Err(ProtocolError::Unexpected(other.to_owned())),
        }
    }

    /// Stores only when the key is absent.
    pub fn add(&mut self, key: &[u8], value: &[u8], expiry: u64) -> Result<bool, ProtocolError> {
        self.store("add", key, value, expiry, None)
    }

    /// Stores only when the key still has CAS token `cas`.
    pub fn cas(&mut self, key: &[u8], value: &[u8], expiry: u64, cas: u64) -> Result<bool, ProtocolError> {
        self.store("cas", key, value, expiry, Some(cas))
    }

    /// Whether the server closed this idle connection (see
    /// `persistent::closed_by_peer`), or left bytes nobody asked for.
    pub fn closed_by_peer(&self) -> bool {
        use std::os::fd::AsRawFd;
        !self.reader.buffer().is_empty() || super::super::persistent::closed_by_peer(self.reader.get_ref().as_raw_fd())
    }
}

#[cfg(test)]
mod tests {
    use super::expiry;

    #[test]
    fn expiries_over_thirty_days_become_unix_times() {
        assert_eq!(expiry(60, 1_764_000_000), 60);
        assert_eq!(expiry(0, 1_764_000_000), 1);
        assert_eq!(expiry(31 * 86_400, 1_764_000_000), 1_764_000_000 + 31 * 86_400);
    }
}
