//! Our reader of RESP2 replies, in place of redis-rs's parser: the storage
//! reads a few small replies per call (integers, short bulks, an array of
//! them), and redis-rs's parser zeroes a buffer of 8 KiB for each reply
//! and goes through a generic parser combinator. This one reads from one
//! buffer per connection, zeroed once, and builds the same `Value`s.
//!
//! Every read from the stream is bounded by the room the caller gives (the
//! bound of a request's replies, `connection::REPLY_LIMIT`): a bulk
//! announcing more than is left fails before anything is allocated for it,
//! an array allocates as its items come, nesting is bounded, and anything
//! that is not RESP2 is a parse error, never a panic.

use std::io::{self, Read};

use redis::{ErrorKind, RedisError, RedisResult, Value};

use super::connection::REPLY_TOO_LARGE;

/// The deepest nesting of arrays read (a breaker's replies nest at most
/// four deep: `CLUSTER SLOTS`).
const MAX_DEPTH: usize = 32;

/// The buffer of a connection; a longer line makes it grow (through the
/// room: at most about twice the bound of a request).
const BUFFER: usize = 4096;

/// The most items allocated ahead for an array: a longer one grows as its
/// items are read, so an announced length costs nothing by itself.
const PREALLOCATED: usize = 64;

fn parse_error(what: &'static str) -> RedisError {
    RedisError::from((ErrorKind::Parse, "invalid RESP reply", what.to_owned()))
}

fn too_large() -> RedisError {
    RedisError::from((ErrorKind::Client, REPLY_TOO_LARGE))
}

/// A stream and the bytes read from it not yet parsed.
pub struct Reader<S> {
    stream: S,
    buffer: Vec<u8>,
    start: usize,
    end: usize,
}

impl<S: Read> Reader<S> {
    pub fn new(stream: S) -> Self {
        Self {
            stream,
            buffer: vec![0; BUFFER],
            start: 0,
            end: 0,
        }
    }

    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// Whether bytes were read that no reply took.
    pub fn has_buffered(&self) -> bool {
        self.start < self.end
    }

    /// The next reply, reading at most `*room` more bytes from the stream
    /// (and taking them off it). An error reply is a `Value::ServerError`.
    pub fn read_value(&mut self, room: &mut usize) -> RedisResult<Value> {
        self.value(room, 0)
    }

    /// Reads more bytes after those buffered.
    fn fill(&mut self, room: &mut usize) -> RedisResult<()> {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if *room == 0 {
            return Err(too_large());
        }
        if self.end == self.buffer.len() {
            // A line longer than the buffer: bounded by the room.
            let grown = self.buffer.len() * 2;
            self.buffer.resize(grown, 0);
        }
        let wanted = (self.buffer.len() - self.end).min(*room);
        loop {
            match self.stream.read(&mut self.buffer[self.end..self.end + wanted]) {
                Ok(0) => {
                    return Err(RedisError::from(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection in a reply",
                    )));
                }
                Ok(read) => {
                    *room -= read;
                    self.end += read;
                    return Ok(());
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// The next line, its CRLF taken off: its place in the buffer, valid
    /// until the next read.
    fn line(&mut self, room: &mut usize) -> RedisResult<(usize, usize)> {
        // How far from `start` no CRLF was found.
        let mut scanned = 0;
        loop {
            let bytes = &self.buffer[self.start + scanned..self.end];
            if let Some(at) = bytes.windows(2).position(|pair| pair == b"\r\n") {
                let line = (self.start, self.start + scanned + at);
                self.start = line.1 + 2;
                return Ok(line);
            }
            scanned = (self.end - self.start).saturating_sub(1);
            self.fill(room)?;
        }
    }

    fn number(&self, (start, end): (usize, usize)) -> RedisResult<i64> {
        let text = &self.buffer[start..end];
        // The usual case first: digits, maybe after a minus (at most 18
        // of them cannot overflow).
        let (negative, digits) = match text {
            [b'-', digits @ ..] => (true, digits),
            digits => (false, digits),
        };
        if !digits.is_empty() && digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit) {
            let value = digits
                .iter()
                .fold(0_i64, |value, digit| value * 10 + i64::from(digit - b'0'));
            return Ok(if negative { -value } else { value });
        }
        // As redis-rs reads it.
        std::str::from_utf8(text)
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .ok_or_else(|| parse_error("expected an integer"))
    }

    fn value(&mut self, room: &mut usize, depth: usize) -> RedisResult<Value> {
        let (start, end) = self.line(room)?;
        if start == end {
            return Err(parse_error("an empty line"));
        }
        let body = (start + 1, end);
        match self.buffer[start] {
            b'+' => match std::str::from_utf8(&self.buffer[body.0..body.1]) {
                Ok("OK") => Ok(Value::Okay),
                Ok(text) => Ok(Value::SimpleString(text.to_owned())),
                Err(_) => Err(parse_error("a simple string that is not UTF-8")),
            },
            b':' => self.number(body).map(Value::Int),
            b'-' => {
                // Rare: redis-rs reads the error reply into its own type.
                let mut line = self.buffer[start..end].to_vec();
                line.extend_from_slice(b"\r\n");
                redis::parse_redis_value(&line)
            }
            b'$' => match usize::try_from(self.number(body)?) {
                Err(_) => Ok(Value::Nil),
                Ok(length) => self.bulk(length, room),
            },
            b'*' => match usize::try_from(self.number(body)?) {
                Err(_) => Ok(Value::Nil),
                Ok(_) if depth >= MAX_DEPTH => Err(parse_error("arrays nested too deep")),
                Ok(length) => {
                    let mut items = Vec::with_capacity(length.min(PREALLOCATED));
                    for _ in 0..length {
                        items.push(self.value(room, depth + 1)?);
                    }
                    Ok(Value::Array(items))
                }
            },
            _ => Err(parse_error("not a RESP2 reply")),
        }
    }

    /// A bulk of `length` bytes, then CRLF; one longer than the room left
    /// fails unread, before anything is allocated for it.
    fn bulk(&mut self, length: usize, room: &mut usize) -> RedisResult<Value> {
        let buffered = self.end - self.start;
        if length.saturating_add(2) > buffered.saturating_add(*room) {
            *room = 0;
            return Err(too_large());
        }
        let mut bytes = Vec::with_capacity(length);
        while bytes.len() < length {
            if self.start == self.end {
                self.fill(room)?;
            }
            let taken = (length - bytes.len()).min(self.end - self.start);
            bytes.extend_from_slice(&self.buffer[self.start..self.start + taken]);
            self.start += taken;
        }
        while self.end - self.start < 2 {
            self.fill(room)?;
        }
        if &self.buffer[self.start..self.start + 2] != b"\r\n" {
            return Err(parse_error("a bulk string longer than announced"));
        }
        self.start += 2;
        Ok(Value::BulkString(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream handing out `chunk` bytes per read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        chunk: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            let length = self.chunk.min(buffer.len()).min(self.bytes.len());
            buffer[..length].copy_from_slice(&self.bytes[..length]);
            self.bytes = &self.bytes[length..];
            Ok(length)
        }
    }

    fn read_all(bytes: &[u8], chunk: usize, room: usize) -> Vec<RedisResult<Value>> {
        let mut reader = Reader::new(Trickle { bytes, chunk });
        let mut room = room;
        let mut values = Vec::new();
        loop {
            let value = reader.read_value(&mut room);
            let failed = value.is_err();
            values.push(value);
            if failed {
                return values;
            }
        }
    }

    #[test]
    fn replies_read_as_redis_rs_reads_them_whatever_the_chunks() {
        let replies: &[u8] = b"+OK\r\n+PONG\r\n:42\r\n: -7 \r\n:-9223372036854775808\r\n:123456789012345678\r\n:+5\r\n$-1\r\n$0\r\n\r\n$5\r\nab\r\nc\r\n*-1\r\n*0\r\n\
            *3\r\n$1\r\n1\r\n$-1\r\n*1\r\n:3\r\n-ERR unknown command\r\n-WRONGTYPE Operation\r\n";
        // What redis-rs's parser makes of them, one by one.
        let expected: Vec<Value> = [
            &b"+OK\r\n"[..],
            b"+PONG\r\n",
            b":42\r\n",
            b": -7 \r\n",
            b":-9223372036854775808\r\n",
            b":123456789012345678\r\n",
            b":+5\r\n",
            b"$-1\r\n",
            b"$0\r\n\r\n",
            b"$5\r\nab\r\nc\r\n",
            b"*-1\r\n",
            b"*0\r\n",
            b"*3\r\n$1\r\n1\r\n$-1\r\n*1\r\n:3\r\n",
            b"-ERR unknown command\r\n",
            b"-WRONGTYPE Operation\r\n",
        ]
        .iter()
        .map(|reply| redis::parse_redis_value(reply).unwrap())
        .collect();
        for chunk in [1, 2, 3, 7, 4096] {
            let values = read_all(replies, chunk, 1 << 20);
            let (last, values) = values.split_last().unwrap();
            assert!(
                last.as_ref().is_err_and(|error| error.is_io_error()),
                "the end of the stream"
            );
            let values: Vec<Value> = values.iter().map(|value| value.as_ref().unwrap().clone()).collect();
            assert_eq!(values, expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn malformed_replies_are_parse_errors() {
        for malformed in [
            &b"?what\r\n"[..],
            b"\r\n",
            b":12x\r\n",
            b":-\r\n",
            b":9223372036854775808\r\n",
            b"$3\r\nabcd\r\n",
            b"$x\r\n",
            b"*1x\r\n",
            b"+\xff\xfe\r\n",
            b"%1\r\n:1\r\n:2\r\n",
        ] {
            let values = read_all(malformed, 3, 1 << 20);
            let error = values.last().unwrap().as_ref().unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Parse, "{malformed:?}: {error}");
        }
        let deep = "*1\r\n".repeat(10_000);
        let error = read_all(deep.as_bytes(), 4096, 1 << 20).pop().unwrap().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Parse, "{error}");
    }

    #[test]
    fn nothing_beyond_the_room_is_read_or_allocated() {
        // A bulk of 4 GiB announced: refused before it is read.
        let error = read_all(b"$4294967296\r\nxxxx", 4096, 1 << 20)
            .pop()
            .unwrap()
            .unwrap_err();
        assert!(error.to_string().contains(REPLY_TOO_LARGE), "{error}");
        // An array of 2^62 items announced: each item must come.
        let error = read_all(b"*4611686018427387904\r\n:1\r\n", 4096, 1 << 20)
            .pop()
            .unwrap()
            .unwrap_err();
        assert!(error.is_io_error(), "{error}");
        // An endless line, and endless items.
        let endless = vec![b'x'; 1 << 16];
        let line = [&b"+"[..], &endless].concat();
        let error = read_all(&line, 4096, 10_000).pop().unwrap().unwrap_err();
        assert!(error.to_string().contains(REPLY_TOO_LARGE), "{error}");
        let items = [&b"*1000000\r\n"[..], &b":1\r\n".repeat(1 << 16)].concat();
        let error = read_all(&items, 4096, 10_000).pop().unwrap().unwrap_err();
        assert!(error.to_string().contains(REPLY_TOO_LARGE), "{error}");
        // Exactly the room is enough.
        let values = read_all(b"$3\r\nabc\r\n", 2, 9);
        assert_eq!(values[0].as_ref().unwrap(), &Value::BulkString(b"abc".to_vec()));
    }
}
