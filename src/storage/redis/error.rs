//! Why a call to Redis failed, told apart: what the storage reports as a
//! timeout, a refusal or an outage, and the replies that show another
//! client wrote the keys (which the storage repairs rather than reports).

use std::time::Duration;

use redis::RedisError;

use super::{RedisStorage, connection};
use crate::storage::StorageError;

/// Why one call to Redis failed.
pub(super) enum CallError {
    /// The node failed just before: no attempt was made.
    BackingOff {
        node: String,
        wait: Duration,
    },
    Redis(RedisError),
    Cluster(String),
    Sentinel(String),
}

pub(super) fn unexpected(what: &str) -> StorageError {
    StorageError::Unavailable(format!("unexpected Redis answer to {what}"))
}

/// Whether Redis refused a command because a key is not of the type the
/// storage writes: another client wrote it.
pub(super) fn wrong_type(error: &CallError) -> bool {
    matches!(error, CallError::Redis(error) if error.to_string().contains("WRONGTYPE"))
}

/// Whether Redis refused to count: a counter holds no number or one too
/// large to increment, or a key is not of the type the storage writes
/// (another client wrote them).
pub(super) fn refused_data(error: &CallError) -> bool {
    matches!(error, CallError::Redis(error)
        if ["WRONGTYPE", "not an integer", "would overflow"].iter().any(|refusal| error.to_string().contains(refusal)))
}

/// Whether Redis answered and refused: an error reply that asking again
/// gets again (`ERR`, `NOPERM`, `NOSCRIPT`...), an authentication turned
/// down. Not the replies of a node that is loading, failing over or
/// redirecting (`LOADING`, `TRYAGAIN`, `CLUSTERDOWN`, `MASTERDOWN`,
/// `READONLY`, `MOVED`, `ASK`): those pass, as redis-rs retries them.
fn refused(error: &RedisError) -> bool {
    match error.kind() {
        redis::ErrorKind::AuthenticationFailed | redis::ErrorKind::Extension => true,
        redis::ErrorKind::Server(kind) => matches!(
            kind,
            redis::ServerErrorKind::ResponseError
                | redis::ServerErrorKind::ExecAbort
                | redis::ServerErrorKind::NoScript
                | redis::ServerErrorKind::CrossSlot
                | redis::ServerErrorKind::NotBusy
                | redis::ServerErrorKind::NoSub
                | redis::ServerErrorKind::NoPerm
        ),
        _ => false,
    }
}

/// Whether a reply was longer than any a breaker reads
/// (`connection::REPLY_LIMIT`): a value no breaker writes.
pub(super) fn oversized(error: &CallError) -> bool {
    matches!(error, CallError::Redis(error) if error.kind() == redis::ErrorKind::Client
        && error.to_string().contains(connection::REPLY_TOO_LARGE))
}

/// Bytes another client wrote, for a message: control characters and
/// bytes that are not UTF-8 escaped, cut when long.
pub(super) fn shown(bytes: &[u8]) -> String {
    const SHOWN: usize = 64;
    let text = printable(&bytes[..bytes.len().min(SHOWN)]);
    if bytes.len() > SHOWN {
        format!("{text}...")
    } else {
        text
    }
}

pub(super) fn printable(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for character in chunk.valid().chars() {
            match character.is_control() {
                true => text.extend(character.escape_default()),
                false => text.push(character),
            }
        }
        text.extend(
            chunk
                .invalid()
                .iter()
                .flat_map(|byte| byte.escape_ascii().map(char::from)),
        );
    }
    text
}

impl RedisStorage {
    fn timed_out(&self) -> StorageError {
        StorageError::Timeout(self.timeout.as_millis() as u64)
    }

    /// What a breaker is told of a failed call, `what` naming the command.
    pub(super) fn storage_error(&self, what: &str, error: CallError) -> StorageError {
        match error {
            CallError::BackingOff { node, wait } => StorageError::Unavailable(format!(
                "Redis at {node} failed just before: next attempt in {} ms",
                wait.as_millis()
            )),
            CallError::Redis(error) if error.is_timeout() => self.timed_out(),
            CallError::Redis(error) if refused(&error) => {
                StorageError::Refused(format!("Redis {what} failed: {error}"))
            }
            CallError::Redis(error) => StorageError::Unavailable(format!("Redis {what} failed: {error}")),
            CallError::Cluster(reason) => StorageError::Unavailable(format!("Redis Cluster: {reason}")),
            CallError::Sentinel(reason) => StorageError::Unavailable(format!("Redis Sentinel: {reason}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_another_client_wrote_is_shown_on_one_line() {
        assert_eq!(shown("a\nb\r\x07é".as_bytes()), "a\\nb\\r\\u{7}é");
        assert_eq!(shown(b"\xff"), "\\xff");
        assert_eq!(shown(&[b'x'; 100]), format!("{}...", "x".repeat(64)));
    }
}
