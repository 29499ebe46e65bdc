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
//!
//! Any other client may write over these keys. A state that does not parse
//! is replaced by a closed state of a new generation, with a time to live,
//! by the call that finds it, whose `StorageFailed` names the key and what
//! it held; a counter that holds no number is read as 0 and replaced when
//! next incremented. Either way the circuit counts again at once.

use std::cell::RefCell;
use std::rc::Rc;

use finished::{Counted, Finished};
use keys::ServiceKeys;

use super::codec::{MAX_STATE_NUMBER, decode_state, encode_state};
use super::named::Named;
use super::open_until::RemembersOpen;
use super::{CircuitStore, FleetView, HostWindow, KeptCircuit, MAX_COUNT, OutcomeRecord, Storage, StorageError};
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::{FRESH_BUCKETS, WindowGeometry};
use crate::http::target::FastMap;

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

    /// A PHP-level call starts: a backend with a timeout bounds all the
    /// round trips of the call from here.
    fn begin_call(&self) {}

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

    /// Stores `writes` without condition, then reads `keys`, in one round
    /// trip: a fleet tier's sync (`fleet/`). Not one of the three
    /// primitives, so a backend may not have it.
    fn write_and_get(&self, _shard: u64, _writes: &[Write<'_>], _keys: &[Vec<u8>]) -> Result<Values, StorageError> {
        Err(StorageError::Unsupported(
            "this key-value store cannot hold the windows of a fleet's hosts".into(),
        ))
    }
}

/// A write without condition, for [`KeyValue::write_and_get`].
pub enum Write<'a> {
    /// Stores `value` at `key`.
    Set {
        key: &'a [u8],
        value: &'a [u8],
        ttl_ms: Millis,
    },
    /// Appends `value` to the list at `key`, made empty first when absent.
    Append {
        key: &'a [u8],
        value: &'a [u8],
        ttl_ms: Millis,
    },
    /// Sets the time to live of `key`, when present.
    Touch { key: &'a [u8], ttl_ms: Millis },
}

/// How long a state replacing garbage is kept when the call that found it
/// does not say: as a closed state it may expire at any time (an absent
/// state is the initial, closed one), and a day outlives any window.
const REPLACED_STATE_TTL_MS: Millis = 24 * 3_600 * 1_000;

/// The generation of a state replacing garbage: the milliseconds of the
/// system clock, above any generation the circuit reached by transitions,
/// so that no counter left from an earlier generation counts in it.
fn fresh_generation() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |elapsed| elapsed.as_millis() as u64)
        .clamp(1, MAX_STATE_NUMBER)
}

/// A stored value as text for a message: escaped, and cut when long.
fn shown(value: &[u8]) -> String {
    const SHOWN: usize = 64;
    let escaped = value[..value.len().min(SHOWN)].escape_ascii().to_string();
    if value.len() > SHOWN {
        format!("{escaped}... ({} bytes)", value.len())
    } else {
        escaped
    }
}

/// The start of every key of a service: the prefix and the service, bytes
/// outside `[A-Za-z0-9_.-]` percent-encoded, so keys are printable ASCII
/// without spaces and two services never share one.
pub fn key_name(prefix: &[u8], service: &[u8]) -> Vec<u8> {
    fn encode(name: &mut Vec<u8>, mut bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let kept = |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-');
        // Runs of bytes kept as they are, each byte between them encoded.
        while let Some(encoded) = bytes.iter().position(|byte| !kept(byte)) {
            let byte = bytes[encoded];
            name.extend_from_slice(&bytes[..encoded]);
            name.extend_from_slice(&[b'%', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]]);
            bytes = &bytes[encoded + 1..];
        }
        name.extend_from_slice(bytes);
    }
    let mut name = Vec::with_capacity(prefix.len() + service.len() + 16);
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

/// A count a breaker could have written (see `MAX_COUNT`).
fn parse_number(bytes: &[u8]) -> Option<u64> {
    let count: u64 = std::str::from_utf8(bytes).ok()?.trim().parse().ok()?;
    (count <= MAX_COUNT).then_some(count)
}

/// The window of `record` in `generation`, as the memory of finished
/// buckets names it.
fn counted<'a>(circuit: &'a [u8], record: &OutcomeRecord, generation: u64) -> Counted<'a> {
    Counted {
        circuit,
        window: record.window,
        slot_count: record.slot_count,
        generation,
    }
}

/// The values of a multi-get, in the order of its keys (`None`: absent).
pub type Values = Vec<Option<Vec<u8>>>;

/// Turns a service into the name its keys start with.
pub type NameOf = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// Where a storage's open circuits are remembered (see `open_until`).
struct OpenCircuits {
    /// What makes two storage objects see the same data.
    storage: String,
    prefix: Vec<u8>,
}

/// How many services an object remembers the state of at most (then it
/// starts over): forgetting one costs its next record a read of the state,
/// as in the Redis storage (`redis::memory`). A long-lived worker calling
/// ever new names (one per tenant, say) must not grow without end, and
/// the bound is what lets the map use a fast hash: no set of names makes
/// it slow for long.
const MAX_SEEN: usize = 4_096;

/// Where the counts of finished buckets are kept (see `finished`).
enum FinishedIn {
    /// In the storage object.
    Object(RefCell<Finished>),
    /// In the worker, under what the backend reaches (two objects with the
    /// same name see the same data).
    Worker(Vec<u8>),
}

/// The `Storage` operations composed from the primitives of `K`.
pub struct KvStorage<K> {
    pub backend: K,
    /// Turns a service into the name its keys start with.
    name: NameOf,
    /// The state each service was last seen in by this object: recording an
    /// outcome right after `acquirePermission()` needs no read of its own.
    seen: RefCell<FastMap<Vec<u8>, CircuitState>>,
    /// Set when a worker remembers, between requests, until when a circuit
    /// is open in this store.
    open_circuits: Option<OpenCircuits>,
    finished: FinishedIn,
}

impl<K: KeyValue> KvStorage<K> {
    pub fn new(backend: K, name: NameOf) -> Self {
        Self {
            backend,
            name,
            seen: RefCell::default(),
            open_circuits: None,
            finished: FinishedIn::Object(RefCell::default()),
        }
    }

    /// Remembers open circuits, and the counts of finished buckets, in the
    /// worker: `storage` names what the backend reaches (two objects with
    /// the same name see the same data), `prefix` the application within it.
    pub fn remembering_open_circuits(mut self, storage: String, prefix: Vec<u8>) -> Self {
        let mut worker = storage.clone().into_bytes();
        // A storage's name is text with no NUL: it and a key stay apart.
        worker.push(0);
        self.finished = FinishedIn::Worker(worker);
        self.open_circuits = Some(OpenCircuits { storage, prefix });
        self
    }

    /// Runs `use_it` on the memory of finished buckets, with the name of
    /// the circuit of `keys` in it.
    fn with_finished<T>(&self, keys: &ServiceKeys, use_it: impl FnOnce(&mut Finished, &[u8]) -> T) -> T {
        match &self.finished {
            FinishedIn::Object(finished) => use_it(&mut finished.borrow_mut(), keys.name()),
            FinishedIn::Worker(storage) => {
                let circuit = [storage.as_slice(), keys.name()].concat();
                finished::in_worker(|finished| use_it(finished, &circuit))
            }
        }
    }

    fn keys(&self, service: &[u8]) -> ServiceKeys {
        ServiceKeys::new((self.name)(service))
    }

    /// The prefix of the application, when the storage was given one to
    /// remember open circuits under.
    pub fn prefix(&self) -> Option<&[u8]> {
        self.open_circuits.as_ref().map(|circuits| circuits.prefix.as_slice())
    }

    fn saw(&self, service: &[u8], state: CircuitState) -> CircuitState {
        let mut seen = self.seen.borrow_mut();
        match seen.get_mut(service) {
            Some(known) => *known = state,
            None => {
                if seen.len() >= MAX_SEEN {
                    seen.clear();
                }
                seen.insert(service.to_vec(), state);
            }
        }
        state
    }

    fn state_key(&self, service: &[u8]) -> Vec<u8> {
        self.keys(service).state()
    }

    /// The state stored at `key` (`None`: absent, the initial state). One
    /// that does not parse is replaced, and the call fails naming it.
    fn parse_state(
        &self,
        service: &[u8],
        key: &[u8],
        stored: Option<&[u8]>,
        ttl_ms: Millis,
    ) -> Result<CircuitState, StorageError> {
        let Some(encoded) = stored else {
            return Ok(CircuitState::INITIAL);
        };
        if let Some(state) = decode_state(encoded) {
            return Ok(state);
        }
        self.seen.borrow_mut().remove(service);
        let replacement = CircuitState {
            phase: Phase::Closed,
            generation: fresh_generation(),
            since: 0,
            ..CircuitState::INITIAL
        };
        let replaced = self.backend.compare_and_set(
            shard_of(service),
            key,
            Some(encoded),
            encode_state(replacement).as_bytes(),
            ttl_ms,
        );
        let outcome = match replaced {
            // Not stored: another process replaced it first.
            Ok(_) => "replaced by a closed state".to_owned(),
            Err(error) => format!("could not be replaced: {error}"),
        };
        Err(StorageError::Unavailable(format!(
            "key {} held \"{}\", which is not a circuit state: {outcome}",
            key.escape_ascii(),
            shown(encoded)
        )))
    }

    /// Adds 1 to the counter at `key`; when it holds something other than a
    /// number (written by another client), replaces it by 1.
    fn increment(&self, shard: u64, key: &[u8], ttl_ms: Millis) -> Result<u64, StorageError> {
        match self.backend.increment(shard, key, ttl_ms) {
            // Past any count a breaker writes (Memcached wraps at 2^64): another client's.
            Ok(count) if count > MAX_COUNT => self
                .replace_garbage_counter(shard, key, ttl_ms)
                .unwrap_or(Ok(count.min(MAX_COUNT))),
            Ok(count) => Ok(count),
            Err(error) => self.replace_garbage_counter(shard, key, ttl_ms).unwrap_or(Err(error)),
        }
    }

    /// When the counter at `key` holds no number: replaces it by 1, counting
    /// the increment that failed on it. `None` when it holds a number, or
    /// cannot be read: the increment failed for another reason.
    fn replace_garbage_counter(&self, shard: u64, key: &[u8], ttl_ms: Millis) -> Option<Result<u64, StorageError>> {
        let garbage = self.backend.get_multiple(shard, &[key.to_vec()]).ok()?.pop()??;
        if parse_number(&garbage).is_some() {
            return None;
        }
        Some(
            match self.backend.compare_and_set(shard, key, Some(&garbage), b"1", ttl_ms) {
                Ok(true) => Ok(1),
                // Replaced by another process meanwhile: counted on top of it.
                Ok(false) => self.backend.increment(shard, key, ttl_ms),
                Err(error) => Err(error),
            },
        )
    }
}

impl<K: KeyValue> KvStorage<K> {
    /// The counters read back by [`Self::count`] (`values[0]`, the state,
    /// reads as 0; those before `counters_from` are tallies of the
    /// generation, the others counters of buckets). One that holds no
    /// number (written by another client, or handed back by a storage
    /// written in PHP) is never read as 0 silently: it is replaced by 0,
    /// and the call fails naming it.
    fn numbers(
        &self,
        shard: u64,
        keys: &[Vec<u8>],
        values: &Values,
        counters_from: usize,
        record: &OutcomeRecord,
    ) -> Result<Vec<u64>, StorageError> {
        let mut numbers = vec![0; values.len()];
        for (index, value) in values.iter().enumerate().skip(1) {
            let Some(value) = value else { continue };
            if let Some(number) = parse_number(value) {
                numbers[index] = number;
                continue;
            }
            let ttl_ms = if index < counters_from {
                record.state_ttl_ms
            } else {
                record.window.counter_ttl_ms()
            };
            let outcome = match self
                .backend
                .compare_and_set(shard, &keys[index], Some(value), b"0", ttl_ms)
            {
                Ok(_) => "replaced by 0".to_owned(),
                Err(error) => format!("could not be replaced: {error}"),
            };
            return Err(StorageError::Unavailable(format!(
                "key {} held \"{}\", which is not a counter: {outcome}",
                keys[index].escape_ascii(),
                shown(value)
            )));
        }
        Ok(numbers)
    }

    /// Counts one outcome in the generation of `state`, and reads back the
    /// stored state, the tallies and the window of that generation: of the
    /// window, the buckets writers may still count in and those not known
    /// yet (`finished`), and of those, every counter but the one
    /// incremented, whose count the increment answers.
    fn count(
        &self,
        service: &[u8],
        state: CircuitState,
        record: &OutcomeRecord,
    ) -> Result<(Tally, CircuitState), StorageError> {
        let keys = self.keys(service);
        let shard = shard_of(service);
        let generation = state.generation;
        let (window, slot_count) = (record.window, record.slot_count);
        let now_bucket = window.bucket_at(record.now);
        let counter = keys.counter(now_bucket, generation, record.slot);
        // Only the half-open state reads the generation's outcomes, and
        // only a rule of consecutive failures its runs (see `Tally`).
        let counts_outcomes = state.phase == Phase::HalfOpen;
        let mut read = Vec::with_capacity(4 + FRESH_BUCKETS as usize * slot_count);
        read.push(keys.state());
        if counts_outcomes {
            let outcomes = keys.of_generation(b'o', generation);
            self.increment(shard, &outcomes, record.state_ttl_ms)?;
            read.push(outcomes);
        }
        if record.counts_runs {
            let failures = keys.of_generation(b'f', generation);
            if record.outcome == Outcome::Failure {
                self.increment(shard, &failures, record.state_ttl_ms)?;
            }
            read.push(failures);
            read.push(keys.of_generation(b'm', generation));
        }
        let counters_from = read.len();
        let plan = self.with_finished(&keys, |finished, circuit| {
            finished.plan(counted(circuit, record, generation), record.now)
        });
        let incremented_here = |bucket: i64, slot: usize| bucket == now_bucket && slot == record.slot;
        for &bucket in &plan.read {
            let counters = keys.counters(bucket, generation);
            for slot in 0..slot_count {
                if !incremented_here(bucket, slot) {
                    read.push(counters.slot(slot));
                }
            }
        }
        let counter_ttl_ms = window.counter_ttl_ms();
        let (incremented, values) = match self.backend.increment_and_get(shard, &counter, counter_ttl_ms, &read) {
            // Past any count a breaker writes: another client's.
            Ok((count, values)) if count > MAX_COUNT => {
                let repaired = self.replace_garbage_counter(shard, &counter, counter_ttl_ms);
                (repaired.unwrap_or(Ok(MAX_COUNT))?, values)
            }
            Ok(done) => done,
            Err(error) => match self.replace_garbage_counter(shard, &counter, counter_ttl_ms) {
                Some(replaced) => (replaced?, self.backend.get_multiple(shard, &read)?),
                None => return Err(error),
            },
        };
        let current = self.parse_state(service, &read[0], values[0].as_deref(), record.state_ttl_ms)?;
        let numbers = self.numbers(shard, &read, &values, counters_from, record)?;
        let mut tallies = numbers[1..counters_from].iter().copied();
        let generation_outcomes = if counts_outcomes {
            tallies.next().unwrap_or(0)
        } else {
            0
        };
        let (failures, at_last_success) = match record.counts_runs {
            true => (tallies.next().unwrap_or(0), tallies.next().unwrap_or(0)),
            false => (0, 0),
        };
        if record.counts_runs && record.outcome == Outcome::Success && failures > at_last_success {
            // The run of failures ends here; a failure counted meanwhile
            // starts the next run.
            let marker = counters_from - 1;
            self.backend.compare_and_set(
                shard,
                &read[marker],
                values[marker].as_deref(),
                failures.to_string().as_bytes(),
                record.state_ttl_ms,
            )?;
        }
        let consecutive_failures = match record.outcome {
            Outcome::Success => 0,
            Outcome::Failure => failures.saturating_sub(at_last_success),
        };
        // The counts of the buckets read, `slot_count` each.
        let mut read_counts = numbers[counters_from..].iter();
        let mut counts = Vec::with_capacity(plan.read.len() * slot_count);
        for &bucket in &plan.read {
            for slot in 0..slot_count {
                counts.push(match incremented_here(bucket, slot) {
                    true => incremented,
                    false => read_counts.next().copied().unwrap_or(0),
                });
            }
        }
        if current.generation == generation {
            self.with_finished(&keys, |finished, circuit| {
                finished.learn(counted(circuit, record, generation), record.now, &plan.read, &counts);
            });
        }
        let mut window = plan.known;
        for bucket_counts in counts.chunks(slot_count) {
            for (sum, count) in window.iter_mut().zip(bucket_counts) {
                *sum = sum.saturating_add(*count);
            }
        }
        Ok((
            Tally {
                window: window.into(),
                generation_outcomes,
                consecutive_failures,
            },
            current,
        ))
    }
}

impl<K: KeyValue + 'static> Storage for KvStorage<K> {
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit {
        let named = Named::new(Rc::clone(&self), service);
        match &self.open_circuits {
            Some(open) => KeptCircuit::boxed(RemembersOpen::new(named, &open.storage, &open.prefix)),
            None => KeptCircuit::boxed(named),
        }
    }

    /// The start of every key: its prefix.
    fn scope(&self) -> Vec<u8> {
        [b"kv\0".as_slice(), &(self.name)(b"")].concat()
    }
}

impl<K: KeyValue + 'static> CircuitStore for KvStorage<K> {
    fn begin_call(&self) {
        self.backend.begin_call();
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let key = self.state_key(service);
        let values = self
            .backend
            .get_multiple(shard_of(service), std::slice::from_ref(&key))?;
        let stored = values.into_iter().next().flatten();
        let state = self.parse_state(service, &key, stored.as_deref(), REPLACED_STATE_TTL_MS)?;
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
        let service_keys = self.keys(service);
        let keys: Vec<Vec<u8>> = window
            .buckets_covering(now)
            .flat_map(|bucket| (0..slot_count).map(move |slot| (bucket, slot)))
            .map(|(bucket, slot)| service_keys.counter(bucket, generation, slot))
            .collect();
        let values = self.backend.get_multiple(shard_of(service), &keys)?;
        let mut sums = vec![0; slot_count];
        for (index, value) in values.iter().enumerate() {
            // A status only reads: a counter that holds no number, which the
            // next outcome replaces, counts as nothing here.
            sums[index % slot_count] += value.as_deref().and_then(parse_number).unwrap_or(0);
        }
        Ok(sums)
    }

    /// One batch: this host's window (`<name>:h:<generation>:<host>`), its
    /// id appended to the list of the generation's hosts
    /// (`<name>:l:<generation>`) when the last sync did not list it (else
    /// the list's time to live refreshed), then
    /// the state, the list and the windows of the hosts the last sync
    /// listed: a host is read one sync after it first appears.
    ///
    /// A listed host whose window is gone (expired: the host died, or was
    /// silent for as long) is pruned from the list, as are repeated ids,
    /// and the list is kept to `fleet::MAX_LISTED_HOSTS`: rewritten by
    /// compare-and-set (two round trips more, on the syncs that find
    /// something to prune; one that lost the race to an append tries again
    /// at the next sync). Hosts come back by appending again.
    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        let service_keys = self.keys(service);
        let generation = window.generation;
        let window_key = |host: u64| service_keys.host_window(generation, host);
        let list_key = service_keys.of_generation(b'l', generation);
        let own_key = window_key(window.host);
        let entry = format!(",{}", window.host);
        let mut writes = vec![Write::Set {
            key: &own_key,
            value: window.blob,
            ttl_ms: window.ttl_ms,
        }];
        if window.known_hosts.contains(&window.host) {
            // The list lives as long as the windows it names.
            writes.push(Write::Touch {
                key: &list_key,
                ttl_ms: window.ttl_ms,
            });
        } else {
            writes.push(Write::Append {
                key: &list_key,
                value: entry.as_bytes(),
                ttl_ms: window.ttl_ms,
            });
        }
        let others: Vec<u64> = window
            .known_hosts
            .iter()
            .copied()
            .filter(|&host| host != window.host)
            .collect();
        let state_key = service_keys.state();
        let mut keys = vec![state_key.clone(), list_key.clone()];
        keys.extend(others.iter().map(|&host| window_key(host)));
        let mut values = self
            .backend
            .write_and_get(shard_of(service), &writes, &keys)?
            .into_iter();
        let state = values.next().flatten();
        let state = self.parse_state(service, &state_key, state.as_deref(), REPLACED_STATE_TTL_MS)?;
        let list = values.next().flatten();
        let read: Vec<(u64, Option<Vec<u8>>)> = others.into_iter().zip(values).collect();
        let gone: Vec<u64> = read
            .iter()
            .filter(|(_, blob)| blob.is_none())
            .map(|&(host, _)| host)
            .collect();
        let (listed, prune) = list
            .as_deref()
            .map_or((Vec::new(), false), |list| prune_host_list(list, &gone, window.host));
        if prune && let Some(list) = &list {
            let pruned: String = listed.iter().map(|host| format!(",{host}")).collect();
            // Lost to an append, or failed: tried again at the next sync.
            let _ = self.backend.compare_and_set(
                shard_of(service),
                &list_key,
                Some(list),
                pruned.as_bytes(),
                window.ttl_ms,
            );
        }
        let mut hosts: Vec<(u64, Vec<u8>)> = read
            .into_iter()
            .filter_map(|(host, blob)| Some((host, blob?)))
            .collect();
        hosts.push((window.host, window.blob.to_vec()));
        Ok(FleetView {
            state: self.saw(service, state),
            hosts,
            listed_hosts: Some(listed),
        })
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.increment(
            shard_of(service),
            &self.keys(service).of_generation(b'a', state.generation),
            ttl_ms,
        )
    }
}

/// The hosts of a fleet's list (`,<id>,<id>...`) in the order they joined,
/// each once, without those `gone` (their windows expired), at most
/// `fleet::MAX_LISTED_HOSTS` of them (`own` kept when listed), and whether
/// the stored list must be rewritten so.
fn prune_host_list(list: &[u8], gone: &[u64], own: u64) -> (Vec<u64>, bool) {
    let mut entries = 0;
    let mut listed: Vec<u64> = Vec::new();
    for entry in list.split(|&byte| byte == b',').filter(|entry| !entry.is_empty()) {
        entries += 1;
        if let Some(host) = std::str::from_utf8(entry).ok().and_then(|host| host.parse().ok())
            && !listed.contains(&host)
            && !gone.contains(&host)
        {
            listed.push(host);
        }
    }
    let max = super::fleet::MAX_LISTED_HOSTS;
    if listed.len() > max {
        let own_position = listed.iter().position(|&host| host == own);
        listed.truncate(max);
        if let Some(position) = own_position
            && position >= max
        {
            listed[max - 1] = own;
        }
    }
    let prune = listed.len() != entries;
    (listed, prune)
}

mod finished;
mod keys;
#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "testing"))]
pub mod map_store;

#[cfg(test)]
mod stored_text_tests {
    use super::*;

    #[test]
    fn garbage_is_shown_escaped_and_cut() {
        assert_eq!(shown(b"\x00a\r\n\"b\""), "\\x00a\\r\\n\\\"b\\\"");
        let long = shown(&[b'x'; 1_000]);
        assert!(long.starts_with(&"x".repeat(64)));
        assert!(long.ends_with("... (1000 bytes)"));
    }

    #[test]
    fn a_host_list_loses_repeated_gone_and_surplus_hosts_and_keeps_its_order() {
        assert_eq!(prune_host_list(b",9,3,7", &[], 3), (vec![9, 3, 7], false));
        assert_eq!(prune_host_list(b",9,3,9,x,7,3", &[], 3), (vec![9, 3, 7], true));
        assert_eq!(prune_host_list(b",9,3,7", &[3, 8], 9), (vec![9, 7], true));
        assert_eq!(prune_host_list(b"", &[], 9), (vec![], false));
        let max = crate::storage::fleet::MAX_LISTED_HOSTS;
        let long: String = (1..=max as u64 + 5).map(|host| format!(",{host}")).collect();
        let (listed, prune) = prune_host_list(long.as_bytes(), &[], max as u64 + 5);
        assert!(prune);
        assert_eq!(listed.len(), max);
        assert_eq!(listed[..max - 1], (1..max as u64).collect::<Vec<_>>()[..]);
        assert_eq!(listed[max - 1], max as u64 + 5, "the host's own id kept");
    }

    #[test]
    fn a_replacing_generation_is_above_those_transitions_reach() {
        let generation = fresh_generation();
        assert!(generation > 1_700_000_000_000 && generation <= MAX_STATE_NUMBER);
    }
}
