//! Circuits in Redis, Valkey or Redis Cluster, shared by every server.
//!
//! Keys of a service: its state hash and its window hash (see `keys.rs`).
//! Budget of a call: a permitted call costs two round trips (the state
//! before, one script after); a rejected call while open costs none, since
//! each worker remembers until when the circuit is open. All the round
//! trips of one PHP-level call share one deadline (`begin_call`).
//!
//! This file is the storage; where it connects is `target.rs`, the record
//! of an outcome `count.rs`, and what a failure means `error.rs`.

mod batch;
mod circuit;
mod cluster;
mod connection;
mod count;
mod dsn;
mod error;
mod keys;
mod listing;
mod memory;
mod resp;
mod scripts;
mod sentinel;
mod target;

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use redis::{ConnectionInfo, ConnectionLike, RedisError, RedisResult, Value};

use batch::Batch;
use circuit::RedisCircuit;
use connection::{CONNECTIONS, Connection, Endpoint};
use count::counts;
use error::{CallError, oversized, printable, shown, unexpected, wrong_type};
use keys::ServiceKeys;
pub use sentinel::{SentinelTarget, parse_sentinel_dsn};
pub use target::{RedisConfigError, Target, parse_dsn, parse_target};
use target::{describe, pool_key};

use super::codec::{decode_state, encode_state};
use super::net::pool::{Failure, with_connection};
use super::open_until::RemembersOpen;
use super::{
    CircuitStore, FleetView, HostWindow, KeptCircuit, ListedCircuit, MAX_COUNT, OutcomeRecord, Storage, StorageError,
};
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

/// Runs `command` on the connection of one node, opening it when needed,
/// every round trip by `deadline`.
fn on_node<T>(
    info: &ConnectionInfo,
    timeout: Duration,
    deadline: Instant,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    on_pooled_node(info, &pool_key(info, timeout), deadline, command)
}

/// [`on_node`], with the node's pool key already known (a standalone
/// target's: the storage computes it once, not at every round trip).
fn on_pooled_node<T>(
    info: &ConnectionInfo,
    key: &str,
    deadline: Instant,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let endpoint = Endpoint {
        info,
        deadline,
        must_be_master: false,
    };
    on_endpoint(&endpoint, key, command)
}

/// Runs `command` on the pooled connection `key` to `endpoint`.
fn on_endpoint<T>(
    endpoint: &Endpoint,
    key: &str,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let (info, deadline) = (endpoint.info, endpoint.deadline);
    with_connection(&CONNECTIONS, key, endpoint, |connection| {
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

/// The longest state a breaker writes (`codec::encode_state`: six numbers,
/// well under 100 bytes). A longer one is removed without being read back.
const MAX_STATE_LENGTH: usize = 128;

/// The most hosts a fleet sync reads and keeps per circuit and generation:
/// the most recent ones. A fleet of more hosts than that counts the
/// outcomes of these only (their windows are a few dozen bytes: the sync's
/// reply stays far below `connection::REPLY_LIMIT`).
const FLEET_HOSTS: usize = 512;

/// A host of a fleet sync: its field in the hash of windows.
fn host_id(value: &Value) -> Option<u64> {
    match value {
        Value::BulkString(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok(),
        _ => None,
    }
}

impl RedisStorage {
    pub fn new(target: Target, prefix: Vec<u8>, timeout: Duration) -> Result<Self, RedisConfigError> {
        if prefix.iter().any(|&byte| byte == b'{' || byte == b'}') {
            return Err(RedisConfigError::PrefixWithBraces);
        }
        // rediss:// needs a crypto provider; installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let target_key = target.key(timeout);
        Ok(Self {
            target,
            target_key,
            prefix,
            timeout,
            deadline: Cell::new(None),
        })
    }

    /// The prefix of its keys (a client object's included).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The deadline of the current call's next round trip.
    fn round_trip_deadline(&self) -> Result<Instant, CallError> {
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
        Ok(deadline)
    }

    /// Runs `command` on the node of `keys` by the deadline of the call.
    fn try_run<T>(
        &self,
        keys: &ServiceKeys,
        command: impl Fn(&mut Connection) -> RedisResult<T>,
    ) -> Result<T, CallError> {
        let deadline = self.round_trip_deadline()?;
        match &self.target {
            // A standalone target's key is its connection's pool key.
            Target::Standalone(info) => on_pooled_node(info, &self.target_key, deadline, &command),
            Target::Cluster(seeds) => {
                cluster::run(&self.target_key, seeds, self.timeout, deadline, keys.slot(), &command)
            }
            Target::Sentinel(target) => sentinel::run(&self.target_key, target, self.timeout, deadline, &command),
        }
    }

    /// Runs the commands of `batch` in one round trip on the node of
    /// `keys` by the deadline of the call (on a cluster, each command
    /// follows its key while the slot migrates): the replies of those not
    /// ignored, or the first error reply.
    fn try_batch(&self, keys: &ServiceKeys, batch: &Batch) -> Result<Vec<Value>, CallError> {
        let deadline = self.round_trip_deadline()?;
        let exchange = |connection: &mut Connection| connection.exchange(&batch.packed(), batch.len());
        let replies = match &self.target {
            Target::Standalone(info) => on_pooled_node(info, &self.target_key, deadline, &exchange),
            Target::Cluster(seeds) => cluster::batch(
                &self.target_key,
                seeds,
                self.timeout,
                deadline,
                keys.slot(),
                &batch.commands(),
            ),
            Target::Sentinel(target) => sentinel::run(&self.target_key, target, self.timeout, deadline, &exchange),
        }?;
        batch.replies(replies).map_err(CallError::Redis)
    }

    /// Runs `command`; a key of the wrong type or a reply longer than any a
    /// breaker reads (another client's write: at the state or at one of
    /// `read`) is removed, and the error names it.
    fn run<T>(
        &self,
        keys: &ServiceKeys,
        what: &str,
        read: &[Vec<u8>],
        command: impl Fn(&mut Connection) -> RedisResult<T>,
    ) -> Result<T, StorageError> {
        self.try_run(keys, command).map_err(|error| {
            if wrong_type(&error) || oversized(&error) {
                self.heal(keys, None, read)
            } else {
                self.storage_error(what, error)
            }
        })
    }

    /// Removes what another client left at the keys of a service (a key
    /// that is not of the type the storage writes, the state `state` that
    /// does not parse, a state longer than any, any of `counters` that
    /// holds no count a breaker writes), so that the circuit works again
    /// at the next call, and returns the error that names it (a long
    /// value by its length only).
    fn heal(&self, keys: &ServiceKeys, state: Option<&[u8]>, counters: &[Vec<u8>]) -> StorageError {
        // A state longer than any is removed whatever it holds: it is not
        // sent back.
        let compared = state.filter(|state| state.len() <= MAX_STATE_LENGTH);
        let repaired = self.try_run(keys, |connection| {
            let mut invocation = scripts::REPAIR.key(keys.state());
            for counter in counters {
                invocation.key(counter.as_slice());
            }
            invocation
                .arg(u8::from(compared.is_some()))
                .arg(compared.unwrap_or_default())
                .arg(MAX_STATE_LENGTH)
                .arg(MAX_COUNT);
            invocation.invoke::<Vec<Vec<u8>>>(connection)
        });
        let found = || match state {
            Some(state) => format!("{} held the state '{}'", shown(keys.state()), shown(state)),
            None => "a key of the wrong type, or a counter that holds no number".to_owned(),
        };
        StorageError::Unavailable(match repaired {
            Ok(removed) if !removed.is_empty() => format!(
                "Redis held data that is not a circuit's, removed so that the circuit heals: {}",
                removed
                    .iter()
                    .map(|line| printable(line))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Ok(_) => format!(
                "Redis held data that is not a circuit's ({}), changed since by another client",
                found()
            ),
            Err(error) => format!(
                "Redis holds data that is not a circuit's ({}), which could not be removed: {}",
                found(),
                self.storage_error("repair", error)
            ),
        })
    }

    fn keys(&self, service: &[u8]) -> ServiceKeys {
        ServiceKeys::new(&self.prefix, service)
    }

    /// The nodes a listing scans: the server, or every master of the cluster.
    fn masters(&self) -> Result<Vec<ConnectionInfo>, StorageError> {
        match &self.target {
            Target::Standalone(info) => Ok(vec![(**info).clone()]),
            Target::Cluster(seeds) => {
                let deadline = Instant::now() + self.timeout;
                cluster::masters(&self.target_key, seeds, self.timeout, deadline)
                    .map_err(|error| self.storage_error("CLUSTER SLOTS", error))
            }
            Target::Sentinel(target) => {
                let deadline = Instant::now() + self.timeout;
                sentinel::master(&self.target_key, target, self.timeout, deadline)
                    .map(|master| vec![master])
                    .map_err(|error| self.storage_error("SENTINEL", error))
            }
        }
    }
}

impl RedisStorage {
    /// The name of the circuit of `keys` in this process's memory (`memory.rs`).
    fn memory_name(&self, keys: &ServiceKeys) -> Vec<u8> {
        memory::circuit(&self.target_key, keys.state())
    }

    /// [`CircuitStore::load_state`] of the circuit of `keys`, named
    /// `circuit` in the memory: a circuit handle builds both once.
    fn load_state_at(&self, keys: &ServiceKeys, circuit: &[u8]) -> Result<CircuitState, StorageError> {
        // Read at every call: packed without a `Cmd`.
        let request = batch::pack(&[b"HGET", keys.state(), b"s"]);
        let value: Option<Vec<u8>> = self.run(keys, "HGET", &[], |connection| {
            Ok(redis::from_redis_value(connection.req_packed_command(&request)?)?)
        })?;
        let state = match value {
            None => CircuitState::INITIAL,
            Some(encoded) => decode_state(&encoded).ok_or_else(|| self.heal(keys, Some(&encoded), &[]))?,
        };
        memory::saw(circuit, state);
        Ok(state)
    }

    fn compare_and_set_at(
        &self,
        keys: &ServiceKeys,
        circuit: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let stored: i64 = self.run(keys, "compare-and-set", &[], |connection| {
            scripts::COMPARE_AND_SET
                .key(keys.state())
                .arg(encode_state(expected))
                .arg(encode_state(new))
                .arg(ttl_ms.max(1))
                .invoke(connection)
        })?;
        if stored == 1 {
            memory::saw(circuit, new);
        }
        Ok(stored == 1)
    }

    fn record_outcome_at(
        &self,
        keys: &ServiceKeys,
        circuit: &[u8],
        record: &OutcomeRecord,
    ) -> Result<(CircuitState, Tally), StorageError> {
        let mut seen = match memory::seen(circuit) {
            Some(state) => state,
            None => self.load_state_at(keys, circuit)?,
        };
        // Counted in the generation last seen; when the state read with it
        // shows the state moved on, counted again in the current one.
        for _ in 0..3 {
            let (current, tally) = self.count(keys, circuit, seen, record)?;
            memory::saw(circuit, current);
            if current.generation == seen.generation {
                return Ok((current, tally));
            }
            seen = current;
        }
        Err(StorageError::Unavailable(
            "the state kept changing while an outcome was recorded".into(),
        ))
    }

    fn admit_half_open_at(&self, keys: &ServiceKeys, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.run(keys, "admission script", &[], |connection| {
            scripts::ADMIT
                .key(keys.state())
                .arg(state.generation)
                .arg(ttl_ms.max(1))
                .invoke(connection)
        })
    }
}

impl Storage for RedisStorage {
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit {
        let circuit = RedisCircuit::new(Rc::clone(&self), service);
        KeptCircuit::boxed(RemembersOpen::new(circuit, &self.target_key, &self.prefix))
    }

    fn scope(&self) -> Vec<u8> {
        [self.target_key.as_bytes(), b"\0", &self.prefix].concat()
    }

    /// SCAN, never KEYS, on every master; then the state of each circuit
    /// found, one round trip each (a cluster has no pipeline across slots),
    /// each round trip with the storage's timeout. A circuit without a
    /// stored state (it never changed state) is closed.
    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        let pattern = listing::key_pattern(&self.prefix, prefix);
        let mut services = Vec::new();
        for node in self.masters()? {
            let mut cursor = 0_u64;
            loop {
                let deadline = Instant::now() + self.timeout;
                let (next, keys): (u64, Vec<Vec<u8>>) = on_node(&node, self.timeout, deadline, &|connection| {
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(listing::SCAN_COUNT)
                        .query(connection)
                })
                .map_err(|error| self.storage_error("SCAN", error))?;
                services.extend(keys.iter().filter_map(|key| listing::service_of(key, &self.prefix)));
                if next == 0 {
                    break;
                }
                cursor = next;
            }
        }
        // SCAN may return a key twice, and a circuit has two keys.
        services.sort_unstable();
        services.dedup();
        let mut circuits = Vec::with_capacity(services.len());
        for service in services {
            self.begin_call();
            let state = self.load_state(&service)?;
            circuits.push((service, state));
        }
        Ok(circuits)
    }
}

impl CircuitStore for RedisStorage {
    fn begin_call(&self) {
        self.deadline.set(Some(Instant::now() + self.timeout));
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let keys = self.keys(service);
        self.load_state_at(&keys, &self.memory_name(&keys))
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let keys = self.keys(service);
        self.compare_and_set_at(&keys, &self.memory_name(&keys), expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        let keys = self.keys(service);
        self.record_outcome_at(&keys, &self.memory_name(&keys), record)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let keys = self.keys(service);
        let read_keys: Vec<Vec<u8>> = window
            .buckets_covering(now)
            .flat_map(|bucket| (0..slot_count).map(move |slot| (bucket, slot)))
            .map(|(bucket, slot)| keys.counter(bucket, generation, slot))
            .collect();
        let values: Vec<Value> = self.run(&keys, "MGET", &read_keys, |connection| {
            redis::cmd("MGET").arg(&read_keys).query(connection)
        })?;
        let values = counts(&values).ok_or_else(|| self.heal(&keys, None, &read_keys))?;
        let mut sums = vec![0_u64; slot_count];
        for bucket in values.chunks(slot_count) {
            for (sum, count) in sums.iter_mut().zip(bucket) {
                *sum = sum.saturating_add(*count);
            }
        }
        Ok(sums)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.admit_half_open_at(&self.keys(service), state, ttl_ms)
    }

    /// One round trip on the service's slot (`scripts::SYNC`): the host's
    /// window into the hash of its generation, the hosts gone pruned, the
    /// windows of the most recent hosts and the state read back.
    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        let keys = self.keys(service);
        let (windows, index) = (keys.host_windows(window.generation), keys.host_index(window.generation));
        let replies: Vec<Value> = self.run(&keys, "sync", &[], |connection| {
            scripts::SYNC
                .key(&windows)
                .key(&index)
                .key(keys.state())
                .arg(window.host)
                .arg(window.blob)
                .arg(window.ttl_ms.max(1))
                .arg(FLEET_HOSTS)
                .invoke(connection)
        })?;
        let invalid = || unexpected("the sync script");
        let [hosts, state] = replies.as_slice() else {
            return Err(invalid());
        };
        let state = match state {
            Value::Nil => CircuitState::INITIAL,
            Value::BulkString(state) => decode_state(state).ok_or_else(|| self.heal(&keys, Some(state), &[]))?,
            _ => return Err(invalid()),
        };
        let pairs: Vec<(&Value, &Value)> = match hosts {
            Value::Map(pairs) => pairs.iter().map(|(host, blob)| (host, blob)).collect(),
            Value::Array(flat) => flat.chunks_exact(2).map(|pair| (&pair[0], &pair[1])).collect(),
            _ => return Err(invalid()),
        };
        // A field that is no host's (another client's) is left out.
        let hosts = pairs
            .into_iter()
            .filter_map(|(host, blob)| match blob {
                Value::BulkString(blob) => Some((host_id(host)?, blob.clone())),
                _ => None,
            })
            .collect();
        Ok(FleetView {
            state,
            hosts,
            listed_hosts: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
