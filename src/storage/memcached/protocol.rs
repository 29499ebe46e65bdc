//! Memcached's text protocol, the few commands the storage needs, over one
//! connection whose reads and writes end by the call's deadline
//! (`net::deadline::DeadlineSocket`). Written here rather than
//! taken from the `memcache` crate: that crate cannot pipeline two commands
//! (a permitted call must cost two round trips) and runs a connection pool
//! with threads of its own in every PHP worker.

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::storage::net::deadline::{DeadlineSocket, Transport, connect_tcp};

#[derive(Debug, Error)]
pub enum ProtocolError {
    /// The connection failed, or a read or write outlived the deadline.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// An answer outside the protocol: where the next one starts is unknown.
    #[error("unexpected answer from memcached: {0}")]
    Unexpected(String),
    /// The server refused one command (`CLIENT_ERROR`, `SERVER_ERROR`,
    /// `ERROR`) and read it whole: the connection is still in step, and the
    /// refusal concerns that command's key only.
    #[error("memcached refused {command}: {answer}")]
    Refused { command: &'static str, answer: String },
    /// The deadline passed before a request was sent: nothing is pending on
    /// the connection.
    #[error("no time left before the deadline")]
    NoTimeLeft,
    /// A value larger than any a breaker writes (see [`MAX_VALUE_BYTES`]),
    /// left unread: the rest of the answer is still on the connection. `key`
    /// is the one asked for, `cas` its token, to remove that value and no
    /// later one.
    #[error("key {} holds {length} bytes, more than the {MAX_VALUE_BYTES} a breaker reads", key.escape_ascii())]
    Oversized { key: Vec<u8>, length: u64, cas: u64 },
    /// What became of an oversized value, once the connection was replaced
    /// by one in step: the value is no longer read, the call fails.
    #[error("{0}")]
    OversizedRemoved(String),
}

/// The longest line of an answer this client reads: a `VALUE` line is at
/// most about 320 bytes (a key of 250, its flags, length and CAS token), the
/// others shorter. A longer one is no memcached's: the connection is given
/// up, without buffering the rest or quoting it.
pub const MAX_LINE_BYTES: usize = 1_024;

/// The largest value this client reads. A breaker's values are small: a
/// state is under 100 bytes, a counter 20 digits, a fleet host's window at
/// most about 16 KB (61 buckets of 12 counts), the list of a fleet's hosts at
/// most 21 bytes per host (`fleet::MAX_LISTED_HOSTS`); 64 KiB holds each of
/// them with room to spare. A larger value was written by another client:
/// it is removed unread, and its call fails open.
pub const MAX_VALUE_BYTES: u64 = 64 * 1_024;

/// A line of an answer as an error message shows it: escaped, and cut.
fn quoted(line: &[u8]) -> String {
    const SHOWN: usize = 64;
    let escaped = line[..line.len().min(SHOWN)].escape_ascii().to_string();
    if line.len() > SHOWN {
        format!("{escaped}... ({} bytes)", line.len())
    } else {
        escaped
    }
}

impl ProtocolError {
    pub fn is_timeout(&self) -> bool {
        match self {
            Self::Io(error) => matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            Self::NoTimeLeft => true,
            Self::Unexpected(_) | Self::Refused { .. } | Self::Oversized { .. } | Self::OversizedRemoved(_) => false,
        }
    }

    /// Whether the connection can no longer be used: an I/O error, or an
    /// answer that leaves the protocol at an unknown point of a reply.
    pub fn breaks_connection(&self) -> bool {
        matches!(self, Self::Io(_) | Self::Unexpected(_) | Self::Oversized { .. })
    }
}

pub struct Connection {
    reader: BufReader<DeadlineSocket>,
}

/// The command a refusal answered, when `line` is one.
fn refusal(command: &'static str, line: &[u8]) -> Option<ProtocolError> {
    (line == b"ERROR" || line.starts_with(b"CLIENT_ERROR") || line.starts_with(b"SERVER_ERROR")).then(|| {
        ProtocolError::Refused {
            command,
            answer: quoted(line),
        }
    })
}

/// A line without the `\r` before its `\n`.
fn without_return(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The decimal number `digits` spell, if they spell one that fits.
fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    digits.iter().try_fold(0u64, |number, &digit| {
        digit.is_ascii_digit().then_some(())?;
        number.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    })
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
    /// Connects within `timeout` and the time left before `deadline`; every
    /// read and write of the connection ends by `deadline` (then by the one
    /// of [`Connection::set_deadline`]).
    pub fn connect(address: &str, timeout: Duration, deadline: Instant) -> Result<Self, ProtocolError> {
        let (host, port) = address
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)))
            .ok_or_else(|| ProtocolError::Unexpected(format!("{address} is not host:port")))?;
        let stream = connect_tcp(host, port, deadline.min(Instant::now() + timeout))?;
        Ok(Self {
            reader: BufReader::new(DeadlineSocket::new(Transport::Tcp(stream), deadline)),
        })
    }

    /// Every later read and write ends by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.reader.get_mut().set_deadline(deadline);
    }

    /// The deadline of the reads and writes.
    pub fn deadline(&self) -> Instant {
        self.reader.get_ref().deadline()
    }

    fn send(&mut self, request: &[u8]) -> Result<(), ProtocolError> {
        let socket = self.reader.get_mut();
        socket.time_left().map_err(|_| ProtocolError::NoTimeLeft)?;
        socket.write_all(request)?;
        Ok(())
    }

    /// Runs `parse` on the next line of the answer, without its `\r\n`, at
    /// most [`MAX_LINE_BYTES`] long: in the read buffer when it holds the
    /// line whole, as it nearly always does, else copied out first.
    fn with_line<T>(&mut self, parse: impl FnOnce(&[u8]) -> T) -> Result<T, ProtocolError> {
        let available = self.reader.fill_buf()?;
        if let Some(end) = available.iter().position(|&byte| byte == b'\n')
            && end <= MAX_LINE_BYTES + 1
        {
            let parsed = parse(without_return(&available[..end]));
            self.reader.consume(end + 1);
            return Ok(parsed);
        }
        let line = self.long_line()?;
        Ok(parse(without_return(&line)))
    }

    /// The next line, read in pieces, with its `\n` cut.
    #[cold]
    fn long_line(&mut self) -> Result<Vec<u8>, ProtocolError> {
        let mut line = Vec::new();
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Err(ProtocolError::Io(std::io::ErrorKind::UnexpectedEof.into()));
            }
            let (taken, ended) = match available.iter().position(|&byte| byte == b'\n') {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            if line.len() + taken > MAX_LINE_BYTES + 2 {
                return Err(ProtocolError::Unexpected(format!(
                    "a line longer than {MAX_LINE_BYTES} bytes"
                )));
            }
            line.extend_from_slice(&available[..taken]);
            self.reader.consume(taken);
            if ended {
                line.pop();
                return Ok(line);
            }
        }
    }

    /// Appends `incr <key> 1\r\n` to `request`.
    fn incr_request(request: &mut Vec<u8>, key: &[u8]) {
        request.extend_from_slice(b"incr ");
        request.extend_from_slice(key);
        request.extend_from_slice(b" 1\r\n");
    }

    fn read_incr(&mut self) -> Result<Incremented, ProtocolError> {
        self.with_line(|line| {
            if line == b"NOT_FOUND" {
                return Ok(Incremented::NotFound);
            }
            if let Some(refused) = refusal("incr", line) {
                return Err(refused);
            }
            number(line.trim_ascii())
                .map(Incremented::Value)
                .ok_or_else(|| ProtocolError::Unexpected(format!("\"{}\" to incr", quoted(line))))
        })?
    }

    /// Appends `gets <key>...\r\n` to `request`.
    fn gets_request(request: &mut Vec<u8>, keys: &[Vec<u8>]) {
        request.extend_from_slice(b"gets");
        for key in keys {
            request.push(b' ');
            request.extend_from_slice(key);
        }
        request.extend_from_slice(b"\r\n");
    }

    /// The length of a request for `keys` (and `more` bytes besides).
    fn request_length(keys: &[Vec<u8>], more: usize) -> usize {
        keys.iter().map(|key| key.len() + 1).sum::<usize>() + 6 + more
    }

    /// Reads a `gets` answer, as items in the order of `keys`.
    fn read_gets(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Item>>, ProtocolError> {
        let mut items: Vec<Option<Item>> = keys.iter().map(|_| None).collect();
        loop {
            // The key's position, its value's length and CAS token; None at END.
            let header = self.with_line(|line| {
                if line == b"END" {
                    return Ok(None);
                }
                // Ends the answer, in place of END.
                if let Some(refused) = refusal("gets", line) {
                    return Err(refused);
                }
                let unexpected = || ProtocolError::Unexpected(format!("\"{}\" to gets", quoted(line)));
                let mut parts = line.split(|&byte| byte == b' ');
                let (Some(b"VALUE"), Some(key), Some(_), Some(length), Some(cas), None) = (
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                ) else {
                    return Err(unexpected());
                };
                let length = number(length).ok_or_else(unexpected)?;
                let cas = number(cas).ok_or_else(unexpected)?;
                // Only the keys asked for: a value for another is no answer.
                let position = keys
                    .iter()
                    .position(|wanted| wanted.as_slice() == key)
                    .ok_or_else(unexpected)?;
                Ok(Some((position, length, cas)))
            })??;
            let Some((position, length, cas)) = header else {
                return Ok(items);
            };
            if length > MAX_VALUE_BYTES {
                return Err(ProtocolError::Oversized {
                    key: keys[position].clone(),
                    length,
                    cas,
                });
            }
            let mut value = vec![0; length as usize + 2];
            std::io::Read::read_exact(&mut self.reader, &mut value)?;
            if !value.ends_with(b"\r\n") {
                return Err(ProtocolError::Unexpected(format!(
                    "a value of {} not followed by \\r\\n",
                    keys[position].escape_ascii()
                )));
            }
            value.truncate(length as usize);
            items[position] = Some(Item { value, cas });
        }
    }

    pub fn increment(&mut self, key: &[u8]) -> Result<Incremented, ProtocolError> {
        let mut request = Vec::with_capacity(key.len() + 9);
        Self::incr_request(&mut request, key);
        self.send(&request)?;
        self.read_incr()
    }

    pub fn gets(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Item>>, ProtocolError> {
        let mut request = Vec::with_capacity(Self::request_length(keys, 0));
        Self::gets_request(&mut request, keys);
        self.send(&request)?;
        self.read_gets(keys)
    }

    /// `incr` and `gets` sent together: one round trip. A refused `incr`
    /// is returned once the answer to `gets` is read too, so that the
    /// connection stays in step.
    pub fn increment_and_gets(
        &mut self,
        key: &[u8],
        keys: &[Vec<u8>],
    ) -> Result<(Incremented, Vec<Option<Item>>), ProtocolError> {
        let mut request = Vec::with_capacity(Self::request_length(keys, key.len() + 9));
        Self::incr_request(&mut request, key);
        Self::gets_request(&mut request, keys);
        self.send(&request)?;
        let incremented = match self.read_incr() {
            Err(error) if error.breaks_connection() => return Err(error),
            incremented => incremented,
        };
        let items = self.read_gets(keys)?;
        Ok((incremented?, items))
    }

    fn store_request(command: &str, key: &[u8], value: &[u8], expiry: u64, cas: Option<u64>) -> Vec<u8> {
        let mut request = format!("{command} ").into_bytes();
        request.extend_from_slice(key);
        request.extend_from_slice(format!(" 0 {expiry} {}", value.len()).as_bytes());
        if let Some(cas) = cas {
            request.extend_from_slice(format!(" {cas}").as_bytes());
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
        request
    }

    fn read_store(&mut self, command: &'static str) -> Result<bool, ProtocolError> {
        self.with_line(|line| match line {
            b"STORED" | b"TOUCHED" => Ok(true),
            b"NOT_STORED" | b"EXISTS" | b"NOT_FOUND" => Ok(false),
            // Memcached reads the whole value before it refuses one.
            other => Err(refusal(command, other)
                .unwrap_or_else(|| ProtocolError::Unexpected(format!("\"{}\" to {command}", quoted(line))))),
        })?
    }

    fn store(
        &mut self,
        command: &'static str,
        key: &[u8],
        value: &[u8],
        expiry: u64,
        cas: Option<u64>,
    ) -> Result<bool, ProtocolError> {
        self.send(&Self::store_request(command, key, value, expiry, cas))?;
        self.read_store(command)
    }

    /// Storage commands (`set`, `add`, `append`, `touch` whose value is
    /// ignored...: command, key, value, expiry) then a `gets`, sent together: one round trip. A refused
    /// store is returned once every answer is read, so that the connection
    /// stays in step.
    pub fn stores_and_gets(
        &mut self,
        stores: &[(&'static str, &[u8], &[u8], u64)],
        keys: &[Vec<u8>],
    ) -> Result<Vec<Option<Item>>, ProtocolError> {
        let mut request = Vec::new();
        for (command, key, value, expiry) in stores {
            if *command == "touch" {
                request.extend_from_slice(&[b"touch ", *key, format!(" {expiry}\r\n").as_bytes()].concat());
            } else {
                request.extend_from_slice(&Self::store_request(command, key, value, *expiry, None));
            }
        }
        Self::gets_request(&mut request, keys);
        self.send(&request)?;
        let mut refused = None;
        for (command, ..) in stores {
            match self.read_store(command) {
                Err(error) if error.breaks_connection() => return Err(error),
                Err(error) => refused = refused.or(Some(error)),
                Ok(_) => {}
            }
        }
        let items = self.read_gets(keys)?;
        match refused {
            Some(error) => Err(error),
            None => Ok(items),
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

    /// Removes the value at `key` if it still has CAS token `cas`: a `cas`
    /// of an empty value with a negative expiry, which memcached takes as
    /// expired at once (it has no conditional delete before 1.6's meta
    /// commands). Tells whether it did.
    pub fn remove_if_unchanged(&mut self, key: &[u8], cas: u64) -> Result<bool, ProtocolError> {
        let mut request = b"cas ".to_vec();
        request.extend_from_slice(key);
        request.extend_from_slice(format!(" 0 -1 0 {cas}\r\n\r\n").as_bytes());
        self.send(&request)?;
        self.read_store("cas")
    }

    /// Whether the server closed this idle connection (see
    /// `DeadlineSocket::closed_by_peer`), or left bytes nobody asked for.
    pub fn closed_by_peer(&self) -> bool {
        !self.reader.buffer().is_empty() || self.reader.get_ref().closed_by_peer()
    }
}

#[cfg(test)]
mod tests {
    use super::{expiry, number};

    #[test]
    fn numbers_are_plain_decimal_digits_that_fit() {
        assert_eq!(number(b"0"), Some(0));
        assert_eq!(number(b"1764000000"), Some(1_764_000_000));
        assert_eq!(number(b"18446744073709551615"), Some(u64::MAX));
        for not_one in [
            &b""[..],
            b"18446744073709551616",
            b"+1",
            b"-1",
            b"1 ",
            b"0x1",
            b"123456789012345678901",
        ] {
            assert_eq!(number(not_one), None, "{}", not_one.escape_ascii());
        }
    }

    #[test]
    fn expiries_over_thirty_days_become_unix_times() {
        assert_eq!(expiry(60, 1_764_000_000), 60);
        assert_eq!(expiry(0, 1_764_000_000), 1);
        assert_eq!(expiry(31 * 86_400, 1_764_000_000), 1_764_000_000 + 31 * 86_400);
    }
}
