//! Circuits in a shared memory segment: every process forked from the one
//! that made it (the workers of a PHP-FPM pool) shares them.
//!
//! The hot path takes no lock and makes no system call: finding a known
//! record is a few loads, an outcome is one compare-and-set of one counter
//! word, reading a state is one load, and a transition is one
//! compare-and-set of the state word, whose winner alone emits the event.
//! Only claiming a record for a new service takes the insert lock, a robust
//! mutex that a killed holder does not leave held.

mod segment;
mod words;

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::Ordering;

use segment::{InsertGuard, NAME_BYTES, Record};
pub use segment::{SLOTS, Segment, SegmentError};
use words::{
    CounterTag, EMPTY, claiming_key, decode_state, encode_info, encode_state, increment_counter, is_claiming, is_ready,
    read_counter, read_tally, ready_key, update_tally,
};

use super::memory::ExpiryClock;
use super::{ListedCircuit, OutcomeRecord, Storage, StorageError};
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::{MAX_RING, WindowGeometry};

/// How stale `last_used` may get before a process refreshes it: records are
/// reused only after far longer, so a fresher stamp buys nothing and would
/// make every call write a shared cache line.
const TOUCH_EVERY_MS: u64 = 1_000;

/// A record's time to live before a process first says how long.
const DEFAULT_TTL_MS: u64 = 3_600_000;

/// A segment size as PHP writes sizes: `32M`, `512K`, `1G`, or bytes.
pub fn parse_size(value: &str) -> Option<usize> {
    let value = value.trim();
    let (digits, multiplier) = match value.chars().last()?.to_ascii_uppercase() {
        'K' => (&value[..value.len() - 1], 1 << 10),
        'M' => (&value[..value.len() - 1], 1 << 20),
        'G' => (&value[..value.len() - 1], 1 << 30),
        _ => (value, 1),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(multiplier)
}

/// The name under which a circuit is stored: the prefix and the service,
/// length-delimited so that no two pairs make the same name.
#[cfg(test)]
fn stored_name(prefix: &[u8], service: &[u8]) -> Vec<u8> {
    let mut name = Vec::with_capacity(8 + prefix.len() + service.len());
    write_stored_name(&mut name, prefix, service);
    name
}

fn write_stored_name(name: &mut Vec<u8>, prefix: &[u8], service: &[u8]) {
    name.clear();
    name.extend_from_slice(&(prefix.len() as u64).to_le_bytes());
    name.extend_from_slice(prefix);
    name.extend_from_slice(service);
}

/// Two independent 64-bit hashes of a name: the first places the record,
/// the second tells two names apart when the first collides.
fn hashes(name: &[u8]) -> (u64, u64) {
    let hash_with = |seed: u64| {
        // SipHash with fixed keys: the same in every process of the binary.
        let mut hasher = std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().build_hasher();
        hasher.write_u64(seed);
        hasher.write(name);
        hasher.finish()
    };
    // 62 bits fit the key word; a check of 0 marks a record nobody owns.
    (hash_with(0x9e37_79b9) >> 2, hash_with(0x85eb_ca6b) | 1)
}

/// What a process remembers of a name: its hashes, and where its record
/// was last found.
#[derive(Clone, Copy)]
struct Identity {
    hash: u64,
    check: u64,
    index: Option<usize>,
}

/// FxHash (as in rustc): the hash of this process's own cache only, where
/// SipHash would cost more than the rest of the call.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Names a process remembers at most; past that it starts over, so that a
/// process seeing endless new names keeps a bounded cache.
const MAX_KNOWN: usize = 10_000;

/// What a process remembers of the names it used.
#[derive(Default)]
struct Known {
    /// The stored name of the current call, built without allocating.
    name: Vec<u8>,
    /// The last name used and its identity: most calls repeat it.
    last: Option<(Vec<u8>, Identity)>,
    names: HashMap<Vec<u8>, Identity, BuildHasherDefault<FxHasher>>,
    /// The tags of the last window read, which change once per bucket.
    window_tags: Option<WindowTags>,
}

/// The tag each position of the ring holds when it is in the window:
/// position p holds the covered bucket congruent to p.
struct WindowTags {
    generation: u64,
    now_bucket: i64,
    ring: usize,
    tags: [CounterTag; MAX_RING],
}

impl WindowTags {
    fn new(generation: u64, now_bucket: i64, ring: usize, now_slot: usize) -> Self {
        let mut tags = [CounterTag::new(0, 0); MAX_RING];
        for (position, tag) in tags[..ring].iter_mut().enumerate() {
            // The age of the bucket at `position`, counted back from the
            // current one and wrapping once.
            let age = if position <= now_slot {
                now_slot - position
            } else {
                now_slot + ring - position
            };
            *tag = CounterTag::new(generation, now_bucket - age as i64);
        }
        Self {
            generation,
            now_bucket,
            ring,
            tags,
        }
    }
}

impl Known {
    /// The identity of `self.name`, and whether it was the last name used.
    fn get(&self) -> (Option<Identity>, bool) {
        match &self.last {
            Some((name, identity)) if *name == self.name => (Some(*identity), true),
            _ => (self.names.get(self.name.as_slice()).copied(), false),
        }
    }

    fn remember(&mut self, identity: Identity) {
        match &mut self.last {
            Some((name, last)) if *name == self.name => *last = identity,
            last => *last = Some((self.name.clone(), identity)),
        }
        match self.names.get_mut(self.name.as_slice()) {
            Some(remembered) => *remembered = identity,
            None => {
                if self.names.len() >= MAX_KNOWN {
                    self.names.clear();
                }
                self.names.insert(self.name.clone(), identity);
            }
        }
    }
}

thread_local! {
    static KNOWN: RefCell<Known> = RefCell::default();
}

pub struct SharedMemoryStorage {
    segment: &'static Segment,
    prefix: Vec<u8>,
    clock: ExpiryClock,
}

impl SharedMemoryStorage {
    pub fn new(segment: &'static Segment, prefix: Vec<u8>, clock: ExpiryClock) -> Self {
        Self { segment, prefix, clock }
    }

    fn now(&self) -> u64 {
        (self.clock)().max(0) as u64
    }

    fn owns(record: &Record, identity: &Identity) -> bool {
        record.key.load(Ordering::Acquire) == ready_key(identity.hash)
            && record.check.load(Ordering::Acquire) == identity.check
    }

    /// The record of a name, probing from its home slot up to the first
    /// free one: records are never freed, so a probe sequence is never cut.
    fn probe(&self, identity: &Identity) -> Option<(usize, &'static Record)> {
        let capacity = self.segment.capacity();
        let start = (identity.hash % capacity as u64) as usize;
        for offset in 0..capacity {
            let index = (start + offset) % capacity;
            let record = self.segment.record(index);
            if record.key.load(Ordering::Acquire) == EMPTY {
                return None;
            }
            if Self::owns(record, identity) {
                return Some((index, record));
            }
        }
        None
    }

    /// Refreshes `last_used` when stale, then checks the record is still
    /// ours: with both sides sequentially consistent, either this process
    /// sees a reuse that raced it, or the reusing one sees the fresh stamp.
    fn touch(&self, record: &Record, hash: u64, check: u64, now: u64) -> bool {
        if now.saturating_sub(record.last_used.load(Ordering::Relaxed)) < TOUCH_EVERY_MS {
            return true;
        }
        record.last_used.store(now, Ordering::SeqCst);
        record.key.load(Ordering::SeqCst) == ready_key(hash) && record.check.load(Ordering::SeqCst) == check
    }

    /// The record of a service, claimed for it when `create` and absent.
    fn record_for(&self, service: &[u8], create: bool) -> Result<Option<&'static Record>, StorageError> {
        let now = self.now();
        KNOWN.with_borrow_mut(|known| {
            write_stored_name(&mut known.name, &self.prefix, service);
            let (remembered, was_last) = known.get();
            let mut identity = remembered.unwrap_or_else(|| {
                let (hash, check) = hashes(&known.name);
                Identity {
                    hash,
                    check,
                    index: None,
                }
            });
            // A reuse racing this call makes `touch` fail; the next lookup
            // sees the reused record as another service's and looks further.
            for _ in 0..3 {
                let remembered = identity.index.map(|index| (index, self.segment.record(index)));
                let found = match remembered
                    .filter(|(_, record)| Self::owns(record, &identity))
                    .or_else(|| self.probe(&identity))
                {
                    Some(found) => Some(found),
                    None if create => Some(self.insert(&identity, service, now)?),
                    None => None,
                };
                let changed = identity.index != found.map(|(index, _)| index);
                identity.index = found.map(|(index, _)| index);
                match found {
                    Some((_, record)) if !self.touch(record, identity.hash, identity.check, now) => {
                        identity.index = None
                    }
                    found => {
                        if changed || !was_last {
                            known.remember(identity);
                        }
                        return Ok(found.map(|(_, record)| record));
                    }
                }
            }
            Err(StorageError::Unavailable(
                "the shared memory record of this circuit kept being reused".into(),
            ))
        })
    }

    /// Claims a record under the insert lock: a free one, else the first
    /// idle one in the probe sequence.
    fn insert(&self, identity: &Identity, service: &[u8], now: u64) -> Result<(usize, &'static Record), StorageError> {
        let Identity { hash, check, .. } = *identity;
        let guard = self
            .segment
            .lock()
            .map_err(|error| StorageError::Unavailable(error.to_string()))?;
        if guard.recovered {
            self.repair(&guard);
        }
        // Another process may have claimed it while this one waited.
        if let Some(found) = self.probe(identity) {
            return Ok(found);
        }
        let capacity = self.segment.capacity();
        let start = (hash % capacity as u64) as usize;
        for offset in 0..capacity {
            let index = (start + offset) % capacity;
            let record = self.segment.record(index);
            let current = record.key.load(Ordering::SeqCst);
            if current == EMPTY {
                record.key.store(claiming_key(hash), Ordering::SeqCst);
                self.segment.header().records_in_use.fetch_add(1, Ordering::Relaxed);
            } else if !(is_ready(current) && self.is_idle(record, now)) {
                continue;
            } else if record
                .key
                .compare_exchange(current, claiming_key(hash), Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
                || !self.is_idle(record, now)
            {
                // Used again since: give it back to its service.
                let _ = record
                    .key
                    .compare_exchange(claiming_key(hash), current, Ordering::SeqCst, Ordering::SeqCst);
                continue;
            } else {
                self.segment.header().records_reused.fetch_add(1, Ordering::Relaxed);
            }
            Self::initialize(record, hash, check, now, [&self.prefix, service]);
            return Ok((index, record));
        }
        self.segment
            .header()
            .allocation_failures
            .fetch_add(1, Ordering::Relaxed);
        Err(StorageError::Full(format!(
            "the shared memory holds {} circuits, all in use: raise circuit_breaker.shm_size (now {} bytes)",
            capacity,
            self.segment.size()
        )))
    }

    fn is_idle(&self, record: &Record, now: u64) -> bool {
        let ttl = match record.ttl.load(Ordering::Relaxed) {
            0 => DEFAULT_TTL_MS,
            ttl => ttl,
        };
        now.saturating_sub(record.last_used.load(Ordering::SeqCst)) > ttl
    }

    /// Makes a claimed record a fresh circuit, then publishes it.
    fn initialize(record: &Record, hash: u64, check: u64, now: u64, [prefix, service]: [&[u8]; 2]) {
        record.check.store(check, Ordering::Relaxed);
        record
            .state
            .store(encode_state(CircuitState::INITIAL), Ordering::Relaxed);
        record.info.store(0, Ordering::Relaxed);
        Self::write_name(record, prefix, service);
        record.ttl.store(0, Ordering::Relaxed);
        for tally in [
            &record.consecutive_failures,
            &record.generation_outcomes,
            &record.admissions,
        ] {
            tally.store(0, Ordering::Relaxed);
        }
        // Counters need no reset: an idle record's buckets are older than
        // any window, and their tags say so.
        record.last_used.store(now, Ordering::Relaxed);
        record.key.store(ready_key(hash), Ordering::Release);
    }

    /// Keeps the name of a claimed record for listings: the first
    /// [`NAME_BYTES`] bytes, and the lengths, so a longer name is known cut.
    fn write_name(record: &Record, prefix: &[u8], service: &[u8]) {
        record.name_lengths.store(
            ((prefix.len() as u64) << 32) | (prefix.len() + service.len()) as u64,
            Ordering::Relaxed,
        );
        let mut bytes = [0u8; NAME_BYTES];
        for (byte, value) in bytes.iter_mut().zip(prefix.iter().chain(service)) {
            *byte = *value;
        }
        for (word, chunk) in record.name.iter().zip(bytes.chunks(8)) {
            word.store(
                u64::from_le_bytes(chunk.try_into().expect("8 bytes")),
                Ordering::Relaxed,
            );
        }
    }

    /// The service of a record of this storage's prefix, when its whole
    /// name is kept.
    fn read_service(&self, record: &Record) -> Option<Vec<u8>> {
        let lengths = record.name_lengths.load(Ordering::Relaxed);
        let (prefix_len, len) = ((lengths >> 32) as usize, (lengths & 0xFFFF_FFFF) as usize);
        if prefix_len != self.prefix.len() || len > NAME_BYTES || prefix_len > len {
            return None;
        }
        let mut bytes = Vec::with_capacity(NAME_BYTES);
        for word in &record.name {
            bytes.extend_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
        }
        bytes.truncate(len);
        bytes.starts_with(&self.prefix).then(|| bytes.split_off(prefix_len))
    }

    /// The stored state of a record: its state word and the info word that
    /// goes with it.
    fn state_of(record: &Record) -> CircuitState {
        let word = record.state.load(Ordering::Acquire);
        decode_state(word, record.info.load(Ordering::Acquire))
    }

    /// After a holder of the insert lock died: a record it was claiming is
    /// left to nobody, free to be reused. It is not emptied, which would
    /// cut the probe sequence of records claimed after it.
    fn repair(&self, _guard: &InsertGuard<'_>) {
        for index in 0..self.segment.capacity() {
            let record = self.segment.record(index);
            let key = record.key.load(Ordering::SeqCst);
            if is_claiming(key) {
                record.check.store(0, Ordering::Relaxed);
                record.last_used.store(0, Ordering::Relaxed);
                record.key.store((key & !3) | 2, Ordering::SeqCst);
            }
        }
    }

    /// Sets the time to live of a record, when a transition stores a new
    /// state (a closed one may be kept less long than an open one).
    fn keep_for(record: &Record, ttl_ms: Millis) {
        let ttl = ttl_ms.max(0) as u64;
        if record.ttl.load(Ordering::Relaxed) != ttl {
            record.ttl.store(ttl, Ordering::Relaxed);
        }
    }

    /// Raises the time to live of a record in use, never lowers it: only a
    /// transition does, so an outcome counted as closed racing the opening
    /// of the circuit cannot shorten the life of the open state.
    fn keep_at_least(record: &Record, ttl_ms: Millis) {
        let ttl = ttl_ms.max(0) as u64;
        if record.ttl.load(Ordering::Relaxed) < ttl {
            record.ttl.fetch_max(ttl, Ordering::Relaxed);
        }
    }

    /// How many circuits the segment holds, and how many it can.
    pub fn usage(&self) -> (u64, usize) {
        (
            self.segment.header().records_in_use.load(Ordering::Relaxed),
            self.segment.capacity(),
        )
    }
}

impl Storage for SharedMemoryStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        Ok(match self.record_for(service, false)? {
            Some(record) => Self::state_of(record),
            None => CircuitState::INITIAL,
        })
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let record = self.record_for(service, true)?.expect("created");
        Self::keep_for(record, ttl_ms);
        let won = record
            .state
            .compare_exchange(
                encode_state(expected),
                encode_state(new),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok();
        if won {
            // Only the status view reads it, and only when its tag matches
            // the state word: a winner killed before this line leaves an
            // instant unknown, nothing wrong.
            record.info.store(encode_info(new), Ordering::Release);
        }
        Ok(won)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        if record.slot_count > SLOTS {
            return Err(StorageError::Unavailable(format!(
                "shared memory keeps {SLOTS} counters per bucket, the configuration needs {}",
                record.slot_count
            )));
        }
        let circuit = self.record_for(service, true)?.expect("created");
        let state = Self::state_of(circuit);
        Self::keep_at_least(circuit, record.state_ttl_ms_in(state.phase));
        let generation = state.generation;
        let window = record.window;
        let covered = window.buckets_covering(record.now);
        let now_bucket = *covered.end();
        let ring = window.ring_len();
        let now_slot = window.ring_slot(now_bucket);
        increment_counter(
            &circuit.counters[record.slot][now_slot],
            CounterTag::new(generation, now_bucket),
        );
        // In the closed state, the counter is the only write: the tallies
        // are kept only where something reads them.
        let generation_outcomes = (state.phase == Phase::HalfOpen)
            .then(|| update_tally(&circuit.generation_outcomes, generation, |count| count + 1))
            .flatten();
        let consecutive_failures = match record.outcome {
            _ if !record.counts_runs => Some(0),
            Outcome::Failure => update_tally(&circuit.consecutive_failures, generation, |count| count + 1),
            Outcome::Success if read_tally(&circuit.consecutive_failures, generation) == 0 => Some(0),
            Outcome::Success => update_tally(&circuit.consecutive_failures, generation, |_| 0),
        };
        let counts = KNOWN.with_borrow_mut(|known| {
            let current =
                |tags: &WindowTags| tags.generation == generation && tags.now_bucket == now_bucket && tags.ring == ring;
            let tags = match &mut known.window_tags {
                Some(tags) if current(tags) => tags,
                slot => slot.insert(WindowTags::new(generation, now_bucket, ring, now_slot)),
            };
            let tags = &tags.tags[..ring];
            circuit.counters[..record.slot_count]
                .iter()
                .map(|counter_ring| {
                    let mut sum = 0;
                    for (word, &tag) in counter_ring[..ring].iter().zip(tags) {
                        sum += read_counter(word, tag);
                    }
                    sum
                })
                .collect()
        });
        let tally = Tally {
            window: counts,
            generation_outcomes: generation_outcomes
                .unwrap_or_else(|| read_tally(&circuit.generation_outcomes, generation)),
            consecutive_failures: consecutive_failures
                .unwrap_or_else(|| read_tally(&circuit.consecutive_failures, generation)),
        };
        Ok((state, tally))
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let record = self.record_for(service, true)?.expect("created");
        Self::keep_at_least(record, ttl_ms);
        // A late caller of an older generation is past its turn.
        Ok(update_tally(&record.admissions, state.generation, |count| count + 1).unwrap_or(u64::MAX))
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let Some(circuit) = self.record_for(service, false)? else {
            return Ok(vec![0; slot_count]);
        };
        Ok(circuit.counters[..slot_count.min(SLOTS)]
            .iter()
            .map(|counter_ring| {
                window
                    .buckets_covering(now)
                    .map(|bucket| {
                        read_counter(
                            &counter_ring[window.ring_slot(bucket)],
                            CounterTag::new(generation, bucket),
                        )
                    })
                    .sum()
            })
            .collect())
    }

    /// Walks the whole table: one pass of loads, no lock. A record is
    /// listed when it is ready, owned, in use and of this prefix, and still
    /// owned by the same name once read.
    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        let now = self.now();
        let mut circuits = Vec::new();
        for index in 0..self.segment.capacity() {
            let record = self.segment.record(index);
            let key = record.key.load(Ordering::Acquire);
            let check = record.check.load(Ordering::Acquire);
            // A check of 0: a record a killed claimer left to nobody.
            if !is_ready(key) || check == 0 || self.is_idle(record, now) {
                continue;
            }
            let Some(service) = self.read_service(record).filter(|service| service.starts_with(prefix)) else {
                continue;
            };
            let state = Self::state_of(record);
            if record.key.load(Ordering::SeqCst) == key && record.check.load(Ordering::SeqCst) == check {
                circuits.push((service, state));
            }
        }
        Ok(circuits)
    }

    fn max_slots(&self) -> Option<usize> {
        Some(SLOTS)
    }
}

#[cfg(test)]
mod tests;
