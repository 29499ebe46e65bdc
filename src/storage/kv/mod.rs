//! The semantics over three primitives every key-value store has: an atomic
//! increment with a time to live, a multi-get, and a compare-and-set with a
//! time to live. Memcached and userland storages provide them; this module
//! composes them into the `Storage` operations, so the rules exist once.
//!
//! Keys of a service (`<name>` is the prefix and service, encoded by the
//! backend):
//!
//! ```text
//! <name>:s                          state, "<phase>:<generation>:<since>"
//! <name>:b:<bucket>:<generation>:<slot>   one counter per bucket, generation and slot
//! <name>:o:<generation>             outcomes of a half-open generation
//! <name>:f:<generation>, :m:<generation>   failures, and failures at the last success
//! <name>:a:<generation>             half-open admissions
//! ```

use std::cell::RefCell;
use std::collections::HashMap;

use super::{OutcomeRecord, RememberedOpen, Storage, StorageError, open_until};
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::WindowGeometry;

/// The primitives a key-value store provides. Keys are printable ASCII;
/// values are the decimal text of integers, or a state's text. `shard`
/// is the same for every key of a service, so a store spread over several
/// servers keeps a service on one of them.
pub trait KeyValue {
    /// Adds 1 to the integer at `key`, creating it at 1 with `ttl_ms` when
    /// absent, and returns the new value. Concurrent callers never lose one.
    fn increment(&self, shard: u64, key: &[u8], ttl_ms: Millis) -> Result<u64, StorageError>;

    /// The values of `keys`, in order, `None` for an absent key.
    fn get_multiple(&self, shard: u64, keys: &[Vec<u8>]) -> Result<Values, StorageError>;

    /// Stores `value` with `ttl_ms` if the value at `key` is still
    /// `expected` (`None`: absent); tells whether it did.
    fn compare_and_set(
        &self,
        shard: u64,
        key: &[u8],
        expected: Option<&[u8]>,
        value: &[u8],
        ttl_ms: Millis,
    ) -> Result<bool, StorageError>;

    /// Names the store across the objects of a process, when a worker may
    /// remember, between requests, until when a circuit is open there.
    fn identity(&self) -> Option<String> {
        None
    }

    /// An increment, then a multi-get, in one round trip where the backend
    /// can pipeline them; the default makes two calls.
    fn increment_and_get(
        &self,
        shard: u64,
        key: &[u8],
        ttl_ms: Millis,
        keys: &[Vec<u8>],
    ) -> Result<(u64, Values), StorageError> {
        let incremented = self.increment(shard, key, ttl_ms)?;
        Ok((incremented, self.get_multiple(shard, keys)?))
    }
}

/// The text of a state: `<phase>:<generation>:<since>`, followed by
/// `:<until>:<backoff>:<forced>` when any of them is set (so a plain state
/// reads as before, and as the Redis scripts' default `0:0:0`).
pub fn encode_state(state: CircuitState) -> String {
    let phase = match state.phase {
        Phase::Closed => 0,
        Phase::Open => 1,
        Phase::HalfOpen => 2,
    };
    let plain = format!("{phase}:{}:{}", state.generation, state.since);
    if state.until == 0 && state.backoff == 0 && !state.forced {
        return plain;
    }
    format!("{plain}:{}:{}:{}", state.until, state.backoff, u8::from(state.forced))
}

pub fn decode_state(encoded: &[u8]) -> Option<CircuitState> {
    let encoded = std::str::from_utf8(encoded).ok()?;
    let mut parts = encoded.split(':');
    let phase = match parts.next()? {
        "0" => Phase::Closed,
        "1" => Phase::Open,
        "2" => Phase::HalfOpen,
        _ => return None,
    };
    let mut state = CircuitState {
        phase,
        generation: parts.next()?.parse().ok()?,
        since: parts.next()?.parse().ok()?,
        ..CircuitState::INITIAL
    };
    if let Some(until) = parts.next() {
        state.until = until.parse().ok()?;
        state.backoff = parts.next()?.parse().ok()?;
        state.forced = match parts.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
    }
    parts.next().is_none().then_some(state)
}

/// The start of every key of a service: the prefix and the service, bytes
/// outside `[A-Za-z0-9_.-]` percent-encoded, so keys are printable ASCII
/// without spaces and two services never share one.
pub fn key_name(prefix: &[u8], service: &[u8]) -> Vec<u8> {
    fn encode(name: &mut Vec<u8>, bytes: &[u8]) {
        for &byte in bytes {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-') {
                name.push(byte);
            } else {
                name.extend_from_slice(format!("%{byte:02X}").as_bytes());
            }
        }
    }
    let mut name = Vec::with_capacity(prefix.len() + service.len() + 3);
    encode(&mut name, prefix);
    name.extend_from_slice(b"cb:");
    encode(&mut name, service);
    name
}

/// The shard of a service: FNV-1a of its name, the same in every process.
pub fn shard_of(service: &[u8]) -> u64 {
    service.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
    })
}

fn number(value: &Option<Vec<u8>>) -> u64 {
    value
        .as_deref()
        .and_then(|bytes| std::str::from_utf8(bytes).ok()?.trim().parse().ok())
        .unwrap_or(0)
}

fn key(name: &[u8], parts: std::fmt::Arguments<'_>) -> Vec<u8> {
    let mut key = name.to_vec();
    key.extend_from_slice(parts.to_string().as_bytes());
    key
}

/// The values of a multi-get, in the order of its keys (`None`: absent).
pub type Values = Vec<Option<Vec<u8>>>;

/// Turns a service into the name its keys start with.
pub type NameOf = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// The `Storage` operations composed from the primitives of `K`.
pub struct KvStorage<K> {
    pub backend: K,
    /// Turns a service into the name its keys start with.
    name: NameOf,
    /// The state each service was last seen in by this object: recording an
    /// outcome right after `acquirePermission()` needs no read of its own.
    seen: RefCell<HashMap<Vec<u8>, CircuitState>>,
}

impl<K: KeyValue> KvStorage<K> {
    pub fn new(backend: K, name: NameOf) -> Self {
        Self {
            backend,
            name,
            seen: RefCell::default(),
        }
    }

    fn saw(&self, service: &[u8], state: CircuitState) -> CircuitState {
        self.seen.borrow_mut().insert(service.to_vec(), state);
        state
    }

    fn state_key(&self, service: &[u8]) -> Vec<u8> {
        key(&(self.name)(service), format_args!(":s"))
    }
}

impl<K: KeyValue> KvStorage<K> {
    /// Counts one outcome in the generation of `state`, and reads back the
    /// stored state, the tallies and the window of that generation.
    fn count(
        &self,
        service: &[u8],
        state: CircuitState,
        record: &OutcomeRecord,
    ) -> Result<(Tally, CircuitState), StorageError> {
        let name = (self.name)(service);
        let shard = shard_of(service);
        let generation = state.generation;
        let now_bucket = record.window.bucket_at(record.now);
        let counter = key(&name, format_args!(":b:{now_bucket}:{generation}:{}", record.slot));
        if state.phase == Phase::HalfOpen {
            self.backend
                .increment(shard, &key(&name, format_args!(":o:{generation}")), record.state_ttl_ms)?;
        }
        if record.counts_runs && record.outcome == Outcome::Failure {
            self.backend
                .increment(shard, &key(&name, format_args!(":f:{generation}")), record.state_ttl_ms)?;
        }
        let mut keys = vec![
            key(&name, format_args!(":s")),
            key(&name, format_args!(":o:{generation}")),
            key(&name, format_args!(":f:{generation}")),
            key(&name, format_args!(":m:{generation}")),
        ];
        for bucket in record.window.buckets_covering(record.now) {
            for slot in 0..record.slot_count {
                keys.push(key(&name, format_args!(":b:{bucket}:{generation}:{slot}")));
            }
        }
        let (_, values) = self
            .backend
            .increment_and_get(shard, &counter, record.window.counter_ttl_ms(), &keys)?;
        let current = match &values[0] {
            Some(encoded) => decode_state(encoded)
                .ok_or_else(|| StorageError::Unavailable("a stored state does not parse".into()))?,
            None => CircuitState::INITIAL,
        };
        let (failures, at_last_success) = (number(&values[2]), number(&values[3]));
        if record.counts_runs && record.outcome == Outcome::Success && failures > at_last_success {
            // The run of failures ends here; a failure counted meanwhile
            // starts the next run.
            let marker = key(&name, format_args!(":m:{generation}"));
            self.backend.compare_and_set(
                shard,
                &marker,
                values[3].as_deref(),
                failures.to_string().as_bytes(),
                record.state_ttl_ms,
            )?;
        }
        let consecutive_failures = match record.outcome {
            Outcome::Success => 0,
            Outcome::Failure => failures.saturating_sub(at_last_success),
        };
        let mut window = vec![0; record.slot_count];
        for (index, value) in values[4..].iter().enumerate() {
            window[index % record.slot_count] += number(value);
        }
        Ok((
            Tally {
                window,
                generation_outcomes: number(&values[1]),
                consecutive_failures,
            },
            current,
        ))
    }
}

impl<K: KeyValue> Storage for KvStorage<K> {
    fn remembered_open_until(&self, service: &[u8]) -> Option<RememberedOpen> {
        open_until::remembered(&self.backend.identity()?, (self.name)(service))
    }

    fn remember_open_until(&self, service: &[u8], until: Option<RememberedOpen>) {
        if let Some(identity) = self.backend.identity() {
            open_until::remember(&identity, (self.name)(service), until);
        }
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let values = self
            .backend
            .get_multiple(shard_of(service), &[self.state_key(service)])?;
        let state = match values.first() {
            Some(Some(encoded)) => decode_state(encoded)
                .ok_or_else(|| StorageError::Unavailable("a stored state does not parse".into()))?,
            _ => CircuitState::INITIAL,
        };
        Ok(self.saw(service, state))
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let key = self.state_key(service);
        // The initial state is stored as no key at all: absent means initial.
        let expected_text = (expected != CircuitState::INITIAL).then(|| encode_state(expected));
        let stored = self.backend.compare_and_set(
            shard_of(service),
            &key,
            expected_text.as_deref().map(str::as_bytes),
            encode_state(new).as_bytes(),
            ttl_ms,
        )?;
        if stored {
            self.saw(service, new);
        } else {
            self.seen.borrow_mut().remove(service);
        }
        Ok(stored)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        let seen = self.seen.borrow().get(service).copied();
        let mut state = match seen {
            Some(state) => state,
            None => self.load_state(service)?,
        };
        // Counted in the generation last seen; when the read that follows
        // shows the state moved on, counted again in the current one.
        for _ in 0..3 {
            let (tally, current) = self.count(service, state, record)?;
            if current.generation == state.generation {
                return Ok((self.saw(service, current), tally));
            }
            state = self.saw(service, current);
        }
        Err(StorageError::Unavailable(
            "the state kept changing while an outcome was recorded".into(),
        ))
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let name = (self.name)(service);
        let keys: Vec<Vec<u8>> = window
            .buckets_covering(now)
            .flat_map(|bucket| (0..slot_count).map(move |slot| (bucket, slot)))
            .map(|(bucket, slot)| key(&name, format_args!(":b:{bucket}:{generation}:{slot}")))
            .collect();
        let values = self.backend.get_multiple(shard_of(service), &keys)?;
        let mut sums = vec![0; slot_count];
        for (index, value) in values.iter().enumerate() {
            sums[index % slot_count] += number(value);
        }
        Ok(sums)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let name = (self.name)(service);
        self.backend.increment(
            shard_of(service),
            &key(&name, format_args!(":a:{}", state.generation)),
            ttl_ms,
        )
    }
}

#[cfg(test)]
mod tests;
