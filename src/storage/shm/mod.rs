//! Circuits in a shared memory segment: every process forked from the one
//! that made it (the workers of a PHP-FPM pool) shares them.
//!
//! The hot path takes no lock and makes no system call: finding a known
//! record is a few loads, an outcome is one compare-and-set of one counter
//! word, reading a state is one load, and a transition is one
//! compare-and-set of the state word, whose winner alone emits the event.
//! Only claiming a record for a new service takes the insert lock, a robust
//! mutex that a killed holder does not leave held.
//!
//! A call never costs more than a bounded look, however full the segment:
//! a name's record lies among `PROBE_WINDOW` places (double hashing), a full
//! segment or a prefix at its share is looked at again at most once per
//! `CLAIM_RETRY_MS` (everyone else is refused at once), and a process
//! remembers for as long a name it was refused a record for.

mod segment;
mod words;

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::Ordering;

use segment::{InsertGuard, Metrics, NAME_BYTES, PrefixUsage, Record};
pub use segment::{SLOTS, Segment, SegmentError};
use words::{
    CounterTag, EMPTY, claiming_key, decode_state, encode_info, encode_state, increment_counter, is_claiming, is_ready,
    read_counter, read_tally, ready_key, update_tally,
};

use super::memory::ExpiryClock;
use super::{CallCounters, ListedCircuit, ListedCircuitCounters, OutcomeRecord, Storage, StorageError};
use crate::core::config::Config;
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

/// How many places a name's record may take: a lookup reads at most this
/// many keys. With double hashing a window is all taken with a probability
/// of about load^64, under 0.2% at 90% load.
const PROBE_WINDOW: usize = 64;

/// How long a refused claim stands: a full segment (or a prefix at its
/// share) is looked at again at most once per interval, and a process
/// treats a name it was refused a record for as absent for as long.
pub const CLAIM_RETRY_MS: u64 = 1_000;

/// The default of `circuit_breaker.shm_max_share`.
pub const DEFAULT_MAX_SHARE: f64 = 0.5;

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

/// What a process remembers of a name: its hashes, where its record was
/// last found, or until when it is refused one.
#[derive(Clone, Copy)]
struct Identity {
    hash: u64,
    check: u64,
    index: Option<usize>,
    refused: Option<(u64, Refusal)>,
}

impl Identity {
    fn of(name: &[u8]) -> Self {
        let (hash, check) = hashes(name);
        Self {
            hash,
            check,
            index: None,
            refused: None,
        }
    }

    fn refusal(&self, now: u64) -> Option<Refusal> {
        self.refused
            .filter(|&(until, _)| now < until)
            .map(|(_, refusal)| refusal)
    }
}

/// Why no record could be claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// Every record is in use and none is idle.
    Full,
    /// The places of this name are all taken, though others are free.
    Crowded,
    /// The prefix holds its share of the records.
    Share,
}

enum ClaimError {
    Refused(Refusal),
    Lock(String),
}

/// The places of a name's record, in order: its home, then steps of a
/// stride from the second hash, coprime with the capacity so that a small
/// table's window covers all of it.
fn probe_sequence(identity: &Identity, capacity: usize) -> impl Iterator<Item = usize> {
    let start = (identity.hash % capacity as u64) as usize;
    let mut stride = if capacity > 1 {
        1 + (identity.check % (capacity as u64 - 1)) as usize
    } else {
        1
    };
    while greatest_common_divisor(stride, capacity) != 1 {
        stride = stride % (capacity - 1) + 1;
    }
    (0..capacity.min(PROBE_WINDOW)).map(move |step| (start + step * stride) % capacity)
}

fn greatest_common_divisor(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
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
    /// The hash of the prefix, which the share of records is counted by.
    owner: u64,
    clock: ExpiryClock,
}

impl SharedMemoryStorage {
    pub fn new(segment: &'static Segment, prefix: Vec<u8>, clock: ExpiryClock) -> Self {
        let owner = hashes(&prefix).1;
        Self {
            segment,
            prefix,
            owner,
            clock,
        }
    }

    fn now(&self) -> u64 {
        (self.clock)().max(0) as u64
    }

    fn owns(record: &Record, identity: &Identity) -> bool {
        record.key.load(Ordering::Acquire) == ready_key(identity.hash)
            && record.check.load(Ordering::Acquire) == identity.check
    }

    /// The record of a name, looking through its places up to the first
    /// free one: records are never freed, so a probe sequence is never cut.
    fn probe(&self, identity: &Identity) -> Option<(usize, &'static Record)> {
        for index in probe_sequence(identity, self.segment.capacity()) {
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
            let mut identity = remembered.unwrap_or_else(|| Identity::of(&known.name));
            // Refused a record a moment ago: absent, and refused again,
            // without looking.
            if identity.index.is_none()
                && let Some(refusal) = identity.refusal(now)
            {
                return if create {
                    Err(self.refusal_error(refusal))
                } else {
                    Ok(None)
                };
            }
            // A reuse racing this call makes `touch` fail; the next lookup
            // sees the reused record as another service's and looks further.
            for _ in 0..3 {
                let remembered = identity
                    .index
                    .map(|index| (index, self.segment.record(index)))
                    .filter(|(_, record)| Self::owns(record, &identity));
                // Read before looking: while a full segment refuses every
                // claim, a name found absent stays absent until then.
                let full_until = match remembered {
                    Some(_) => 0,
                    None => self.segment.header().claim_retry_at.load(Ordering::Acquire),
                };
                let found = match remembered.or_else(|| self.probe(&identity)) {
                    Some(found) => Some(found),
                    None if now < full_until => {
                        identity.index = None;
                        identity.refused = Some((full_until, Refusal::Full));
                        known.remember(identity);
                        return if create {
                            Err(self.refusal_error(Refusal::Full))
                        } else {
                            Ok(None)
                        };
                    }
                    None if create => match self.insert(&identity, service, now) {
                        Ok(found) => Some(found),
                        Err(ClaimError::Refused(refusal)) => {
                            identity.index = None;
                            identity.refused = Some((now + CLAIM_RETRY_MS, refusal));
                            known.remember(identity);
                            return Err(self.refusal_error(refusal));
                        }
                        Err(ClaimError::Lock(error)) => return Err(StorageError::Unavailable(error)),
                    },
                    None => None,
                };
                let changed = identity.index != found.map(|(index, _)| index) || identity.refused.is_some();
                identity.index = found.map(|(index, _)| index);
                identity.refused = None;
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
    /// idle one among the name's places; at its prefix's share, only an
    /// idle record of the same prefix.
    fn insert(&self, identity: &Identity, service: &[u8], now: u64) -> Result<(usize, &'static Record), ClaimError> {
        let Identity { hash, check, .. } = *identity;
        let header = self.segment.header();
        if now < header.claim_retry_at.load(Ordering::Relaxed) {
            return Err(ClaimError::Refused(Refusal::Full));
        }
        let guard = self
            .segment
            .lock()
            .map_err(|error| ClaimError::Lock(error.to_string()))?;
        if guard.recovered {
            self.repair(&guard);
        }
        // Another process may have claimed it while this one waited.
        if let Some(found) = self.probe(identity) {
            return Ok(found);
        }
        let Some(usage) = self.prefix_usage(self.owner, true, &guard) else {
            return Err(ClaimError::Refused(Refusal::Full));
        };
        // A share of the whole segment is no limit: full is full.
        let max_per_prefix = self.segment.max_per_prefix();
        let at_share =
            max_per_prefix < self.segment.capacity() && usage.records.load(Ordering::Relaxed) >= max_per_prefix as u64;
        if at_share && now < usage.retry_at.load(Ordering::Relaxed) {
            header.share_refusals.fetch_add(1, Ordering::Relaxed);
            return Err(ClaimError::Refused(Refusal::Share));
        }
        let places: Vec<usize> = probe_sequence(identity, self.segment.capacity()).collect();
        for (position, &index) in places.iter().enumerate() {
            let record = self.segment.record(index);
            let current = record.key.load(Ordering::SeqCst);
            if current == EMPTY {
                // At its share, a prefix takes a free place only by giving
                // up an idle record of its own further on (a record past
                // the first free place would never be found).
                if at_share && !self.retire_idle_own(&places[position + 1..], hash, usage, now) {
                    break;
                }
                record.key.store(claiming_key(hash), Ordering::SeqCst);
                header.records_in_use.fetch_add(1, Ordering::Relaxed);
            } else if !(is_ready(current) && self.is_idle(record, now))
                || (at_share && record.owner.load(Ordering::Relaxed) != self.owner)
            {
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
                header.records_reused.fetch_add(1, Ordering::Relaxed);
            }
            self.change_owner(record, usage, &guard);
            Self::initialize(record, hash, check, now, [&self.prefix, service]);
            return Ok((index, record));
        }
        if at_share {
            usage.retry_at.store(now + CLAIM_RETRY_MS, Ordering::Relaxed);
            header.share_refusals.fetch_add(1, Ordering::Relaxed);
            return Err(ClaimError::Refused(Refusal::Share));
        }
        header.allocation_failures.fetch_add(1, Ordering::Relaxed);
        if header.records_in_use.load(Ordering::Relaxed) >= self.segment.capacity() as u64 {
            header.claim_retry_at.store(now + CLAIM_RETRY_MS, Ordering::Relaxed);
            Err(ClaimError::Refused(Refusal::Full))
        } else {
            Err(ClaimError::Refused(Refusal::Crowded))
        }
    }

    /// Leaves to nobody the first idle record of this prefix among `places`
    /// (as `repair` does: still in its probe sequences, free to be reused),
    /// so that the prefix may claim a free place in its stead.
    fn retire_idle_own(&self, places: &[usize], hash: u64, usage: &PrefixUsage, now: u64) -> bool {
        for &index in places {
            let record = self.segment.record(index);
            let current = record.key.load(Ordering::SeqCst);
            if !is_ready(current) || record.owner.load(Ordering::Relaxed) != self.owner || !self.is_idle(record, now) {
                continue;
            }
            if record
                .key
                .compare_exchange(current, claiming_key(hash), Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                continue;
            }
            if !self.is_idle(record, now) {
                let _ = record
                    .key
                    .compare_exchange(claiming_key(hash), current, Ordering::SeqCst, Ordering::SeqCst);
                continue;
            }
            record.check.store(0, Ordering::Relaxed);
            record.last_used.store(0, Ordering::Relaxed);
            record.owner.store(0, Ordering::Relaxed);
            let _ = usage
                .records
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |count| count.checked_sub(1));
            record.key.store(current, Ordering::SeqCst);
            return true;
        }
        false
    }

    /// The entry counting the records of `owner`, made when `create` and
    /// absent (in a free entry, or one whose prefix holds no record).
    fn prefix_usage(&self, owner: u64, create: bool, _guard: &InsertGuard<'_>) -> Option<&'static PrefixUsage> {
        let capacity = self.segment.capacity();
        let start = (owner % capacity as u64) as usize;
        let mut unused = None;
        for offset in 0..capacity {
            let entry = self.segment.prefix_usage((start + offset) % capacity);
            match entry.owner.load(Ordering::Relaxed) {
                current if current == owner => return Some(entry),
                0 => {
                    unused.get_or_insert(entry);
                    break;
                }
                _ if entry.records.load(Ordering::Relaxed) == 0 => {
                    unused.get_or_insert(entry);
                }
                _ => {}
            }
        }
        let entry = unused.filter(|_| create)?;
        entry.owner.store(owner, Ordering::Relaxed);
        entry.records.store(0, Ordering::Relaxed);
        entry.retry_at.store(0, Ordering::Relaxed);
        Some(entry)
    }

    /// Counts a claimed record for this storage's prefix, and no longer for
    /// the prefix that held it.
    fn change_owner(&self, record: &Record, usage: &PrefixUsage, guard: &InsertGuard<'_>) {
        let previous = record.owner.swap(self.owner, Ordering::Relaxed);
        if previous != 0
            && let Some(previous) = self.prefix_usage(previous, false, guard)
        {
            let _ = previous
                .records
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |count| count.checked_sub(1));
        }
        usage.records.fetch_add(1, Ordering::Relaxed);
    }

    fn refusal_error(&self, refusal: Refusal) -> StorageError {
        let capacity = self.segment.capacity();
        let size = self.segment.size();
        StorageError::Full(match refusal {
            Refusal::Full => format!(
                "the shared memory holds {capacity} circuits, all in use: raise circuit_breaker.shm_size (now {size} bytes)"
            ),
            Refusal::Crowded => format!(
                "no free record among the {} places of this circuit ({} of {capacity} circuits in use): raise circuit_breaker.shm_size (now {size} bytes)",
                capacity.min(PROBE_WINDOW),
                self.segment.header().records_in_use.load(Ordering::Relaxed),
            ),
            Refusal::Share => format!(
                "the prefix '{}' holds {} of the {capacity} circuits of the shared memory, its share: raise circuit_breaker.shm_max_share (now {}) or circuit_breaker.shm_size (now {size} bytes), or use fewer service names",
                String::from_utf8_lossy(&self.prefix),
                self.segment.max_per_prefix(),
                self.segment.max_share(),
            ),
        })
    }

    fn is_idle(&self, record: &Record, now: u64) -> bool {
        is_idle(record, now)
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
        // any window, and their tags say so. The metrics belong to the
        // name: zeroed before the key publishes the record, a claimer
        // killed before that leaves a record nobody owns.
        Self::clear_metrics(&record.metrics);
        record.last_used.store(now, Ordering::Relaxed);
        record.key.store(ready_key(hash), Ordering::Release);
    }

    /// The record of a service when it is the name this process looked up
    /// last and still owns its record: the permission of a call is counted
    /// right after the call loaded the state, without a second lookup.
    fn last_record(&self, service: &[u8]) -> Option<&'static Record> {
        KNOWN.with_borrow(|known| {
            let (name, identity) = known.last.as_ref()?;
            let (length, rest) = name.split_first_chunk::<8>()?;
            let (prefix, stored_service) = rest.split_at_checked(u64::from_le_bytes(*length) as usize)?;
            if prefix != self.prefix.as_slice() || stored_service != service {
                return None;
            }
            let record = self.segment.record(identity.index?);
            Self::owns(record, identity).then_some(record)
        })
    }

    fn clear_metrics(metrics: &Metrics) {
        for word in [
            &metrics.calls_permitted,
            &metrics.calls_rejected,
            &metrics.successes,
            &metrics.failures,
            &metrics.slow_calls,
            &metrics.openings,
        ] {
            word.store(0, Ordering::Relaxed);
        }
    }

    fn read_metrics(metrics: &Metrics) -> CallCounters {
        CallCounters {
            calls_permitted: metrics.calls_permitted.load(Ordering::Relaxed),
            calls_rejected: metrics.calls_rejected.load(Ordering::Relaxed),
            successes: metrics.successes.load(Ordering::Relaxed),
            failures: metrics.failures.load(Ordering::Relaxed),
            slow_calls: metrics.slow_calls.load(Ordering::Relaxed),
            openings: metrics.openings.load(Ordering::Relaxed),
        }
    }

    /// The circuits of this prefix whose service starts with `prefix`, each
    /// with what `read` takes from its record.
    fn walk<T>(&self, prefix: &[u8], read: impl Fn(&Record) -> T) -> Vec<(Vec<u8>, T)> {
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
            let value = read(record);
            if record.key.load(Ordering::SeqCst) == key && record.check.load(Ordering::SeqCst) == check {
                circuits.push((service, value));
            }
        }
        circuits
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

/// Whether a record's circuit has not been used for its time to live: its
/// record may be given to another circuit.
fn is_idle(record: &Record, now: u64) -> bool {
    let ttl = match record.ttl.load(Ordering::Relaxed) {
        0 => DEFAULT_TTL_MS,
        ttl => ttl,
    };
    now.saturating_sub(record.last_used.load(Ordering::SeqCst)) > ttl
}

/// How many records hold a circuit that is idle at `now` (ms): a scan of
/// the segment, for statistics.
pub fn idle_records(segment: &Segment, now: u64) -> u64 {
    (0..segment.capacity())
        .map(|index| segment.record(index))
        .filter(|record| is_ready(record.key.load(Ordering::Acquire)) && is_idle(record, now))
        .count() as u64
}

/// The bytes one circuit takes in the segment: its record and its entry in
/// the prefix table.
pub fn record_size() -> usize {
    size_of::<Record>() + size_of::<PrefixUsage>()
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
            if new.phase == Phase::Open && !new.forced {
                record.metrics.openings.fetch_add(1, Ordering::Relaxed);
            }
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
        let metrics = &circuit.metrics;
        match record.outcome {
            Outcome::Success => metrics.successes.fetch_add(1, Ordering::Relaxed),
            Outcome::Failure => metrics.failures.fetch_add(1, Ordering::Relaxed),
        };
        if record.slow {
            metrics.slow_calls.fetch_add(1, Ordering::Relaxed);
        }
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
        Ok(self.walk(prefix, Self::state_of))
    }

    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        Ok(self
            .walk(prefix, |record| {
                (Self::state_of(record), Self::read_metrics(&record.metrics))
            })
            .into_iter()
            .map(|(service, (state, counters))| (service, state, Some(counters)))
            .collect())
    }

    fn count_permission(&self, service: &[u8], permitted: bool, _config: &Config) {
        // Claims the record of a new circuit, as its first outcome would:
        // its first call is counted too, and the record is kept the default
        // time until a transition or an outcome says how long. Refused one,
        // the call is not counted; the outcome reports the refusal.
        let record = match self.last_record(service) {
            Some(record) => record,
            None => match self.record_for(service, true) {
                Ok(Some(record)) => record,
                _ => return,
            },
        };
        let word = if permitted {
            &record.metrics.calls_permitted
        } else {
            &record.metrics.calls_rejected
        };
        word.fetch_add(1, Ordering::Relaxed);
    }

    fn counters(&self, service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        Ok(Some(
            self.record_for(service, false)?
                .map_or_else(CallCounters::default, |record| Self::read_metrics(&record.metrics)),
        ))
    }

    fn max_slots(&self) -> Option<usize> {
        Some(SLOTS)
    }
}

#[cfg(test)]
mod tests;
