//! Circuits in Redis, Valkey or Redis Cluster, shared by every server.
//!
//! Keys of a service: its state hash and its window hash (see `keys.rs`).
//! Budget of a call: a permitted call costs two round trips (the state
//! before, one script after); a rejected call while open costs none, since
//! each worker remembers until when the circuit is open. All the round
//! trips of one PHP-level call share one deadline (`begin_call`).

mod cluster;
mod connection;
mod keys;
mod scripts;

use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisError, RedisResult, Value};
use thiserror::Error;

use connection::{CONNECTIONS, Connection, Endpoint};
use keys::ServiceKeys;

use super::kv::{decode_state, encode_state};
use super::persistent::{Failure, with_connection};
use super::{OutcomeRecord, Storage, StorageError, open_until};
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RedisConfigError {
    #[error("{0}")]
    Dsn(String),
    #[error("a prefix must contain no braces: they would break the hash tag of Redis Cluster")]
    PrefixWithBraces,
}

/// Parses one DSN: `redis://[user:password@]host:port[/db]`, `rediss://` for
/// TLS, `unix:///path/to.sock` or `redis+unix:///path`.
pub fn parse_dsn(dsn: &str) -> Result<ConnectionInfo, RedisConfigError> {
    let info = dsn
        .into_connection_info()
        .map_err(|error| RedisConfigError::Dsn(format!("'{dsn}': {error}")))?;
    if let ConnectionAddr::TcpTls { insecure: true, .. } = info.addr() {
        return Err(RedisConfigError::Dsn(format!(
            "'{dsn}': certificate verification cannot be turned off (#insecure)"
        )));
    }
    Ok(info)
}

/// Where the storage connects.
#[derive(Clone)]
pub enum Target {
    Standalone(Box<ConnectionInfo>),
    Cluster(Vec<ConnectionInfo>),
}

/// The key of a connection in the pool: everything that makes two
/// connections distinct. The password is hashed with a key drawn once per
/// process, so the pool key never holds it in clear.
fn pool_key(info: &ConnectionInfo, timeout: Duration) -> String {
    static PASSWORD_HASHER: LazyLock<RandomState> = LazyLock::new(RandomState::new);
    let address = match info.addr() {
        ConnectionAddr::Tcp(host, port) => format!("redis://{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("rediss://{host}:{port}"),
        ConnectionAddr::Unix(path) => format!("unix://{}", path.display()),
        other => format!("{other:?}"),
    };
    let settings = info.redis_settings();
    format!(
        "{address} db={} user={:?} password={:016x} timeout={}us",
        settings.db(),
        settings.username(),
        PASSWORD_HASHER.hash_one(settings.password()),
        timeout.as_micros()
    )
}

fn describe(info: &ConnectionInfo) -> String {
    match info.addr() {
        ConnectionAddr::Tcp(host, port) | ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port}"),
        ConnectionAddr::Unix(path) => path.display().to_string(),
        other => format!("{other:?}"),
    }
}

/// Why one call to Redis failed.
enum CallError {
    /// The node failed just before: no attempt was made.
    BackingOff {
        node: String,
        wait: Duration,
    },
    Redis(RedisError),
    Cluster(String),
}

/// Runs `command` on the connection of one node, opening it when needed,
/// every round trip by `deadline`.
fn on_node<T>(
    info: &ConnectionInfo,
    timeout: Duration,
    deadline: Instant,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let endpoint = Endpoint { info, deadline };
    with_connection(&CONNECTIONS, &pool_key(info, timeout), &endpoint, |connection| {
        connection.set_deadline(deadline);
        command(connection)
    })
    .map_err(|failure| match failure {
        Failure::BackingOff(wait) => CallError::BackingOff {
            node: describe(info),
            wait,
        },
        Failure::Server(error) => CallError::Redis(error),
    })
}

pub struct RedisStorage {
    target: Target,
    /// Identifies the target in the per-process connection and open caches.
    target_key: String,
    prefix: Vec<u8>,
    timeout: Duration,
    /// The deadline of the current PHP-level call, set by `begin_call`.
    deadline: Cell<Option<Instant>>,
}

fn integer(value: &Value) -> Option<u64> {
    match value {
        Value::Int(integer) => u64::try_from(*integer).ok(),
        Value::BulkString(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok(),
        _ => None,
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        Value::SimpleString(text) => Some(text.clone()),
        _ => None,
    }
}

/// Sums the counters of the window hash (field, value pairs) whose bucket is
/// covered by the window at `record.now` and whose generation is current.
fn sum_window(pairs: &[Value], generation: u64, record: &OutcomeRecord) -> Option<Vec<u64>> {
    let covered = record.window.buckets_covering(record.now);
    let mut sums = vec![0; record.slot_count];
    for value in pairs.iter().skip(1).step_by(2) {
        let text = text(value)?;
        let mut parts = text.split(':');
        let bucket: i64 = parts.next()?.parse().ok()?;
        let stored_generation: u64 = parts.next()?.parse().ok()?;
        if stored_generation != generation || !covered.contains(&bucket) {
            continue;
        }
        for (sum, count) in sums.iter_mut().zip(parts) {
            *sum += count.parse::<u64>().ok()?;
        }
    }
    Some(sums)
}

fn unexpected(what: &str) -> StorageError {
    StorageError::Unavailable(format!("unexpected Redis answer to {what}"))
}

/// Whether Redis refused a command because a key is not of the type the
/// storage writes: another client wrote it.
fn wrong_type(error: &CallError) -> bool {
    matches!(error, CallError::Redis(error) if error.to_string().contains("WRONGTYPE"))
}

/// The window fields another client wrote: values that are not
/// `<bucket>:<generation>:<counts...>`, at fields that are not positions.
fn foreign_fields(pairs: &[Value]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let bytes = |value: &Value| match value {
        Value::BulkString(bytes) => bytes.clone(),
        Value::SimpleString(text) => text.clone().into_bytes(),
        other => format!("{other:?}").into_bytes(),
    };
    let ours = |field: &[u8], value: &[u8]| {
        let numbers = |text: &[u8]| {
            std::str::from_utf8(text).is_ok_and(|text| text.split(':').all(|part| part.parse::<u64>().is_ok()))
        };
        numbers(field) && numbers(value) && value.iter().filter(|&&byte| byte == b':').count() >= 2
    };
    pairs
        .chunks(2)
        .map(|pair| (bytes(&pair[0]), pair.get(1).map(bytes).unwrap_or_default()))
        .filter(|(field, value)| !ours(field, value))
        .collect()
}

fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).into_owned();
    if bytes.len() > 64 { format!("{text}...") } else { text }
}

impl RedisStorage {
    pub fn new(target: Target, prefix: Vec<u8>, timeout: Duration) -> Result<Self, RedisConfigError> {
        if prefix.iter().any(|&byte| byte == b'{' || byte == b'}') {
            return Err(RedisConfigError::PrefixWithBraces);
        }
        // rediss:// needs a crypto provider; installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let target_key = match &target {
            Target::Standalone(info) => pool_key(info, timeout),
            Target::Cluster(nodes) => format!(
                "cluster {}",
                nodes
                    .iter()
                    .map(|node| pool_key(node, timeout))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Ok(Self {
            target,
            target_key,
            prefix,
            timeout,
            deadline: Cell::new(None),
        })
    }

    fn timed_out(&self) -> StorageError {
        StorageError::Timeout(self.timeout.as_millis() as u64)
    }

    /// Runs `command` on the node of `keys` by the deadline of the call.
    fn try_run<T>(
        &self,
        keys: &ServiceKeys,
        command: impl Fn(&mut Connection) -> RedisResult<T>,
    ) -> Result<T, CallError> {
        let now = Instant::now();
        // A deadline long past belongs to an earlier call: a path that did
        // not call `begin_call` gets a deadline of its own, not a timeout.
        let deadline = match self.deadline.get() {
            Some(deadline) if now < deadline + self.timeout => deadline,
            _ => now + self.timeout,
        };
        if now >= deadline {
            return Err(CallError::Redis(RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the call's deadline passed",
            ))));
        }
        match &self.target {
            Target::Standalone(info) => on_node(info, self.timeout, deadline, &command),
            Target::Cluster(seeds) => {
                cluster::run(&self.target_key, seeds, self.timeout, deadline, keys.slot(), &command)
            }
        }
    }

    fn storage_error(&self, what: &str, error: CallError) -> StorageError {
        match error {
            CallError::BackingOff { node, wait } => StorageError::Unavailable(format!(
                "Redis at {node} failed just before: next attempt in {} ms",
                wait.as_millis()
            )),
            CallError::Redis(error) if error.is_timeout() => self.timed_out(),
            CallError::Redis(error) => StorageError::Unavailable(format!("Redis {what} failed: {error}")),
            CallError::Cluster(reason) => StorageError::Unavailable(format!("Redis Cluster: {reason}")),
        }
    }

    /// Runs `command`; a key of the wrong type (another client's write) is
    /// removed, and the error names it.
    fn run<T>(
        &self,
        keys: &ServiceKeys,
        what: &str,
        command: impl Fn(&mut Connection) -> RedisResult<T>,
    ) -> Result<T, StorageError> {
        self.try_run(keys, command).map_err(|error| {
            if wrong_type(&error) {
                self.heal(keys, None, &[])
            } else {
                self.storage_error(what, error)
            }
        })
    }

    /// Removes what another client left at the keys of a service (a key
    /// that is not a hash, the state `state` that does not parse, window
    /// `fields` that are not ours), so that the circuit works again at the
    /// next call, and returns the error that names it.
    fn heal(&self, keys: &ServiceKeys, state: Option<&[u8]>, fields: &[(Vec<u8>, Vec<u8>)]) -> StorageError {
        let repaired = self.try_run(keys, |connection| {
            let mut invocation = scripts::REPAIR.key(keys.state());
            invocation.key(keys.window()).arg(state.unwrap_or_default());
            for (field, value) in fields {
                invocation.arg(field.as_slice()).arg(value.as_slice());
            }
            invocation.invoke::<Vec<Vec<u8>>>(connection)
        });
        let found = || {
            let mut found = Vec::new();
            if let Some(state) = state {
                found.push(format!("{} held the state '{}'", shown(&keys.state()), shown(state)));
            }
            for (field, value) in fields {
                found.push(format!(
                    "{} held field '{}' = '{}'",
                    shown(&keys.window()),
                    shown(field),
                    shown(value)
                ));
            }
            found
        };
        StorageError::Unavailable(match repaired {
            Ok(removed) if !removed.is_empty() => format!(
                "Redis held data that is not a circuit's, removed so that the circuit heals: {}",
                removed
                    .iter()
                    .map(|line| String::from_utf8_lossy(line))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Ok(_) if state.is_none() && fields.is_empty() => {
                "Redis answered WRONGTYPE for a key of this circuit, which another client has changed since".to_owned()
            }
            Ok(_) => format!(
                "Redis held data that is not a circuit's, changed since by another client: {}",
                found().join("; ")
            ),
            Err(error) => format!(
                "Redis holds data that is not a circuit's ({}), which could not be removed: {}",
                if found().is_empty() {
                    "a key of the wrong type".to_owned()
                } else {
                    found().join("; ")
                },
                self.storage_error("repair", error)
            ),
        })
    }

    fn keys(&self, service: &[u8]) -> ServiceKeys {
        ServiceKeys::new(&self.prefix, service)
    }
}

impl Storage for RedisStorage {
    fn begin_call(&self) {
        self.deadline.set(Some(Instant::now() + self.timeout));
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let keys = self.keys(service);
        let value: Option<Vec<u8>> = self.run(&keys, "HGET", |connection| {
            redis::cmd("HGET").arg(keys.state()).arg("s").query(connection)
        })?;
        match value {
            None => Ok(CircuitState::INITIAL),
            Some(encoded) => decode_state(&encoded).ok_or_else(|| self.heal(&keys, Some(&encoded), &[])),
        }
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let keys = self.keys(service);
        let stored: i64 = self.run(&keys, "compare-and-set", |connection| {
            scripts::COMPARE_AND_SET
                .key(keys.state())
                .arg(encode_state(expected))
                .arg(encode_state(new))
                .arg(ttl_ms.max(1))
                .invoke(connection)
        })?;
        Ok(stored == 1)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        let keys = self.keys(service);
        let mut invocation = scripts::RECORD.key(keys.state());
        invocation
            .key(keys.window())
            .arg(record.slot)
            .arg(record.slot_count)
            .arg(u8::from(record.outcome == crate::core::counts::Outcome::Failure))
            .arg(u8::from(record.counts_runs))
            .arg(record.window.counter_ttl_ms())
            .arg(record.state_ttl_ms.max(1))
            .arg(record.window.bucket_at(record.now))
            .arg(record.window.ring_len())
            .arg(record.closed_state_ttl_ms.max(1));
        let answer: Vec<Value> = self.run(&keys, "record script", |connection| invocation.invoke(connection))?;
        let invalid = || unexpected("the record script");
        let [state, outcomes, runs, window] = answer.as_slice() else {
            return Err(invalid());
        };
        let Value::BulkString(state) = state else {
            return Err(invalid());
        };
        let state = decode_state(state).ok_or_else(|| self.heal(&keys, Some(state), &[]))?;
        let Value::Array(window) = window else {
            return Err(invalid());
        };
        let counts = match sum_window(window, state.generation, record) {
            Some(counts) => counts,
            None => {
                let foreign = foreign_fields(window);
                return Err(if foreign.is_empty() {
                    invalid()
                } else {
                    self.heal(&keys, None, &foreign)
                });
            }
        };
        let tally = Tally {
            generation_outcomes: integer(outcomes).ok_or_else(invalid)?,
            consecutive_failures: integer(runs).ok_or_else(invalid)?,
            window: counts.into(),
        };
        Ok((state, tally))
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let keys = self.keys(service);
        self.run(&keys, "admission script", |connection| {
            scripts::ADMIT
                .key(keys.state())
                .arg(state.generation)
                .arg(ttl_ms.max(1))
                .invoke(connection)
        })
    }

    fn remembered_open_until(&self, service: &[u8]) -> Option<Millis> {
        open_until::remembered(&self.target_key, &self.prefix, service)
    }

    fn remember_open_until(&self, service: &[u8], until: Option<Millis>) {
        open_until::remember(&self.target_key, &self.prefix, service, until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::machine::Phase;

    #[test]
    fn states_round_trip_as_text() {
        for state in [
            CircuitState::INITIAL,
            CircuitState {
                phase: Phase::HalfOpen,
                generation: 123_456,
                since: 1_764_000_000_123,
            },
        ] {
            assert_eq!(decode_state(encode_state(state).as_bytes()), Some(state));
        }
        assert_eq!(encode_state(CircuitState::INITIAL), "0:0:0", "the scripts' default");
        assert_eq!(decode_state(b"garbage"), None);
    }

    #[test]
    fn dsns_are_checked_when_the_storage_is_made() {
        assert!(parse_dsn("redis://127.0.0.1:6379").is_ok());
        assert!(parse_dsn("redis://user:secret@127.0.0.1:6380/2").is_ok());
        assert!(parse_dsn("rediss://127.0.0.1:6380").is_ok());
        assert!(parse_dsn("unix:///run/redis.sock").is_ok());
        assert!(matches!(parse_dsn("http://127.0.0.1"), Err(RedisConfigError::Dsn(_))));
        assert!(matches!(
            parse_dsn("redis://127.0.0.1:notaport"),
            Err(RedisConfigError::Dsn(_))
        ));
    }

    #[test]
    fn window_fields_another_client_wrote_are_told_from_buckets() {
        let bulk = |text: &str| Value::BulkString(text.as_bytes().to_vec());
        let pairs = [
            bulk("3"),
            bulk("1203:7:1:0"),
            bulk("junk"),
            bulk("1203:7:1"),
            bulk("4"),
            bulk("not:a:bucket"),
        ];
        assert_eq!(
            foreign_fields(&pairs),
            vec![
                (b"junk".to_vec(), b"1203:7:1".to_vec()),
                (b"4".to_vec(), b"not:a:bucket".to_vec())
            ]
        );
    }

    #[test]
    fn connections_are_pooled_by_every_setting_and_never_by_a_clear_password() {
        let key = |dsn: &str, timeout_ms| pool_key(&parse_dsn(dsn).unwrap(), Duration::from_millis(timeout_ms));
        let base = key("redis://:secret@127.0.0.1:6379/1", 50);
        assert_eq!(base, key("redis://:secret@127.0.0.1:6379/1", 50));
        for other in [
            key("redis://:secret@127.0.0.1:6379/2", 50),
            key("redis://:wrong@127.0.0.1:6379/1", 50),
            key("redis://127.0.0.1:6379/1", 50),
            key("redis://user:secret@127.0.0.1:6379/1", 50),
            key("rediss://:secret@127.0.0.1:6379/1", 50),
            key("redis://:secret@127.0.0.1:6380/1", 50),
            key("redis://:secret@127.0.0.1:6379/1", 51),
        ] {
            assert_ne!(base, other);
        }
        assert!(!base.contains("secret"), "{base}");
        assert!(parse_dsn("rediss://127.0.0.1:6380/#insecure").is_err());
    }

    #[test]
    fn prefixes_with_braces_are_refused() {
        let target = Target::Standalone(Box::new(parse_dsn("redis://127.0.0.1").unwrap()));
        assert!(matches!(
            RedisStorage::new(target.clone(), b"shop{1}:".to_vec(), Duration::from_millis(50)),
            Err(RedisConfigError::PrefixWithBraces)
        ));
        assert!(RedisStorage::new(target, b"shop:".to_vec(), Duration::from_millis(50)).is_ok());
    }
}
