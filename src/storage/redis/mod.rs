//! Circuits in Redis, Valkey or Redis Cluster, shared by every server.
//!
//! Keys of a service: its state hash and its window hash (see `keys.rs`).
//! Budget of a call: a permitted call costs two round trips (the state
//! before, one script after); a rejected call while open costs none, since
//! each worker remembers until when the circuit is open.

mod connection;
mod keys;
mod listing;
mod scripts;

use std::time::Duration;

use redis::{ConnectionInfo, ConnectionLike, IntoConnectionInfo, RedisResult, Value};
use thiserror::Error;

pub use connection::Target;
use connection::{CONNECTIONS, Endpoint, Open};
use keys::ServiceKeys;

use super::kv::{decode_state, encode_state};
use super::persistent::{Failure, with_connection};
use super::{ListedCircuit, OutcomeRecord, RememberedOpen, Storage, StorageError, open_until};
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

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
    dsn.into_connection_info()
        .map_err(|error| RedisConfigError::Dsn(format!("'{dsn}': {error}")))
}

pub struct RedisStorage {
    target: Target,
    /// Identifies the target in the per-process connection and open caches.
    target_key: String,
    prefix: Vec<u8>,
    timeout: Duration,
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
/// covered by `window` at `now` and whose generation is current.
fn sum_window(
    pairs: &[Value],
    generation: u64,
    window: WindowGeometry,
    slot_count: usize,
    now: Millis,
) -> Option<Vec<u64>> {
    let covered = window.buckets_covering(now);
    let mut sums = vec![0; slot_count];
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

impl RedisStorage {
    pub fn new(target: Target, prefix: Vec<u8>, timeout: Duration) -> Result<Self, RedisConfigError> {
        if prefix.iter().any(|&byte| byte == b'{' || byte == b'}') {
            return Err(RedisConfigError::PrefixWithBraces);
        }
        // rediss:// needs a crypto provider; installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let target_key = match &target {
            Target::Standalone(info) => format!("{:?}", info.addr()),
            Target::Cluster(nodes) => format!(
                "cluster {:?}",
                nodes.iter().map(ConnectionInfo::addr).collect::<Vec<_>>()
            ),
        };
        Ok(Self {
            target,
            target_key,
            prefix,
            timeout,
        })
    }

    fn run<T>(
        &self,
        what: &str,
        command: impl FnOnce(&mut dyn ConnectionLike) -> RedisResult<T>,
    ) -> Result<T, StorageError> {
        self.run_on(what, |open| command(open.as_connection_like()))
    }

    /// As `run`, with the connection as it is: a cluster's routes nodes.
    fn run_on<T>(&self, what: &str, command: impl FnOnce(&mut Open) -> RedisResult<T>) -> Result<T, StorageError> {
        let endpoint = Endpoint {
            target: &self.target,
            timeout: self.timeout,
        };
        with_connection(&CONNECTIONS, &self.target_key, &endpoint, command).map_err(|failure| match failure {
            Failure::BackingOff(wait) => StorageError::Unavailable(format!(
                "Redis failed just before: next attempt in {} ms",
                wait.as_millis()
            )),
            Failure::Server(error) if error.is_timeout() => StorageError::Timeout(self.timeout.as_millis() as u64),
            Failure::Server(error) => StorageError::Unavailable(format!("Redis {what} failed: {error}")),
        })
    }

    fn keys(&self, service: &[u8]) -> ServiceKeys {
        ServiceKeys::new(&self.prefix, service)
    }

    /// The keys matching `pattern`: SCAN to the end on a standalone
    /// server, on every master of a cluster.
    fn scan_keys(&self, pattern: &[u8]) -> Result<Vec<Vec<u8>>, StorageError> {
        use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
        self.run_on("SCAN", |open| {
            let scan = |cursor: u64| {
                let mut command = redis::cmd("SCAN");
                command
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(pattern)
                    .arg("COUNT")
                    .arg(listing::SCAN_COUNT);
                command
            };
            let mut keys = Vec::new();
            let mut scan_all = |step: &mut dyn FnMut(&redis::Cmd) -> RedisResult<Value>| -> RedisResult<()> {
                let mut cursor = 0;
                loop {
                    let (next, batch): (u64, Vec<Vec<u8>>) = redis::from_redis_value(step(&scan(cursor))?)?;
                    keys.extend(batch);
                    if next == 0 {
                        return Ok(());
                    }
                    cursor = next;
                }
            };
            match open {
                Open::Standalone(connection) => scan_all(&mut |command| command.query(connection))?,
                Open::Cluster(cluster) => {
                    let nodes: String = redis::cmd("CLUSTER").arg("NODES").query(cluster.as_mut())?;
                    for (host, port) in listing::masters(&nodes) {
                        let node = RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host, port });
                        scan_all(&mut |command| cluster.route_command(command, node.clone()))?;
                    }
                }
            }
            Ok(keys)
        })
    }
}

impl Storage for RedisStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let key = self.keys(service).state();
        let value: Option<String> = self.run("HGET", |connection| {
            redis::cmd("HGET").arg(key).arg("s").query(connection)
        })?;
        match value {
            None => Ok(CircuitState::INITIAL),
            Some(encoded) => decode_state(encoded.as_bytes()).ok_or_else(|| unexpected("HGET")),
        }
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let key = self.keys(service).state();
        let stored: i64 = self.run("compare-and-set", |connection| {
            scripts::COMPARE_AND_SET
                .key(key)
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
        let answer: Vec<Value> = self.run("record script", |connection| invocation.invoke(connection))?;
        let invalid = || unexpected("the record script");
        let [state, outcomes, runs, window] = answer.as_slice() else {
            return Err(invalid());
        };
        let state = text(state)
            .as_deref()
            .map(str::as_bytes)
            .and_then(decode_state)
            .ok_or_else(invalid)?;
        let Value::Array(window) = window else {
            return Err(invalid());
        };
        let counts =
            sum_window(window, state.generation, record.window, record.slot_count, record.now).ok_or_else(invalid)?;
        let tally = Tally {
            generation_outcomes: integer(outcomes).ok_or_else(invalid)?,
            consecutive_failures: integer(runs).ok_or_else(invalid)?,
            window: counts,
        };
        Ok((state, tally))
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let key = self.keys(service).window();
        let pairs: Vec<Value> = self.run("HGETALL", |connection| redis::cmd("HGETALL").arg(key).query(connection))?;
        sum_window(&pairs, generation, window, slot_count, now).ok_or_else(|| unexpected("HGETALL"))
    }

    /// SCAN, never KEYS; then the state of each circuit found, read one
    /// key at a time (a cluster cannot pipeline across slots). A circuit
    /// without a stored state (it never changed state) is closed.
    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        let keys = self.scan_keys(&listing::key_pattern(&self.prefix, prefix))?;
        let mut services: Vec<Vec<u8>> = keys
            .iter()
            .filter_map(|key| listing::service_of(key, &self.prefix))
            .collect();
        // SCAN may return a key twice, and a circuit has two keys.
        services.sort_unstable();
        services.dedup();
        let mut circuits = Vec::with_capacity(services.len());
        for service in services {
            circuits.push((service.clone(), self.load_state(&service)?));
        }
        Ok(circuits)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let key = self.keys(service).state();
        self.run("admission script", |connection| {
            scripts::ADMIT
                .key(key)
                .arg(state.generation)
                .arg(ttl_ms.max(1))
                .invoke(connection)
        })
    }

    fn remembered_open_until(&self, service: &[u8]) -> Option<RememberedOpen> {
        // The state key names the circuit without ambiguity: prefix and
        // service glued together would confuse "shop" + "api" with "shopa" + "pi".
        open_until::remembered(&self.target_key, self.keys(service).state())
    }

    fn remember_open_until(&self, service: &[u8], until: Option<RememberedOpen>) {
        open_until::remember(&self.target_key, self.keys(service).state(), until);
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
                ..CircuitState::INITIAL
            },
            CircuitState {
                phase: Phase::Open,
                generation: 7,
                since: 1_764_000_000_123,
                until: 1_764_000_040_123,
                backoff: 2,
                forced: false,
            },
            CircuitState {
                phase: Phase::Closed,
                generation: 8,
                since: 1_764_000_000_123,
                until: 1_764_003_600_123,
                backoff: 0,
                forced: true,
            },
        ] {
            assert_eq!(decode_state(encode_state(state).as_bytes()), Some(state));
        }
        assert_eq!(encode_state(CircuitState::INITIAL), "0:0:0", "the scripts' default");
        assert_eq!(decode_state(b"garbage"), None);
        assert_eq!(decode_state(b"1:2:3:4"), None, "until without backoff and forced");
        assert_eq!(decode_state(b"1:2:3:4:0:2"), None);
        assert_eq!(decode_state(b"1:2:3:4:0:0:9"), None);
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
    fn prefixes_with_braces_are_refused() {
        let target = Target::Standalone(Box::new(parse_dsn("redis://127.0.0.1").unwrap()));
        assert!(matches!(
            RedisStorage::new(target.clone(), b"shop{1}:".to_vec(), Duration::from_millis(50)),
            Err(RedisConfigError::PrefixWithBraces)
        ));
        assert!(RedisStorage::new(target, b"shop:".to_vec(), Duration::from_millis(50)).is_ok());
    }
}
