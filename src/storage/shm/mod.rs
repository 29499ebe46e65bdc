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

mod known;
#[allow(unsafe_code)]
mod segment;
mod table;
mod words;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use known::{KNOWN, PastKey, PastSums};
use segment::{BUCKET_WORDS, Bucket, Metrics, NAME_BYTES, Record};
pub use segment::{
    CIRCUIT_BYTES, SLOTS, SUCCESS_STRIPES, Segment, SegmentError, SharedWords, TIER_KNOWN_HOSTS, TierWord,
};
pub use table::RecordKind;
use table::{ClaimError, Identity, PREFIX_LENGTH_MASK, Refusal, TIER_BIT, hashes, is_idle, write_stored_name};
#[cfg(test)]
use table::{probe_sequence, stored_name};
/// How many bits of a generation a state word keeps: it wraps beyond.
pub use words::GENERATION_MASK;
use words::{
    CounterTag, decode_state, encode_info, encode_state, increment_counter, is_ready, read_counter, read_tally,
    update_tally,
};

use super::memory::ExpiryClock;
use super::{
    CallCounters, Circuit, CircuitStore, KeptCircuit, ListedCircuit, ListedCircuitCounters, Notice, OutcomeRecord,
    Storage, StorageError,
};
use crate::core::config::Config;
use crate::core::counts::{Outcome, SUCCESS_SLOT, SlotCounts, Tally, only_fast_successes};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::WindowGeometry;
use crate::http::target::FastMap;

/// How stale `last_used` may get before a process refreshes it: records are
/// reused only after far longer, so a fresher stamp buys nothing and would
/// make every call write a shared cache line.
pub(super) const TOUCH_EVERY_MS: u64 = 1_000;

/// A record's time to live before a process first says how long.
pub(super) const DEFAULT_TTL_MS: u64 = 3_600_000;

/// How many places a name's record may take: a lookup reads at most this
/// many keys. With double hashing a window is all taken with a probability
/// of about load^64, under 0.2% at 90% load.
pub(super) const PROBE_WINDOW: usize = 64;

/// How long a refused claim stands: a full segment (or a prefix at its
/// share) is looked at again at most once per interval, and a process
/// treats a name it was refused a record for as absent for as long.
pub const CLAIM_RETRY_MS: u64 = 1_000;

/// The default of `circuit_breaker.shm_max_share`.
pub const DEFAULT_MAX_SHARE: f64 = 0.5;

/// How many times a lookup starts again when a record it found was reused
/// for another service meanwhile: each reuse needs a whole claim by another
/// process, so three in a row mean the segment churns, and the call fails.
const LOOKUPS_RACING_REUSE: usize = 3;

/// A segment size as PHP writes sizes (`32M`, `512K`, `1G`, or bytes), or
/// with a `B` after the unit (`32MB`, `32mb`); spaces around are ignored.
pub fn parse_size(value: &str) -> Option<usize> {
    let value = value.trim();
    // "32MB", "32mb", "1024B": the unit as MySQL, Redis and many tools write it.
    let value = value.strip_suffix(['B', 'b']).map_or(value, str::trim_end);
    let (digits, multiplier) = match value.chars().last()?.to_ascii_uppercase() {
        'K' => (&value[..value.len() - 1], 1 << 10),
        'M' => (&value[..value.len() - 1], 1 << 20),
        'G' => (&value[..value.len() - 1], 1 << 30),
        _ => (value, 1),
    };
    let digits = digits.trim();
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse::<usize>().ok()?.checked_mul(multiplier)
}

pub struct SharedMemoryStorage {
    segment: &'static Segment,
    prefix: Vec<u8>,
    /// Circuits, or a tier's own records.
    kind: RecordKind,
    /// The hash of the prefix, which the share of records is counted by:
    /// computed when first claiming a record, so that making a storage (in
    /// every request) costs no hashing.
    owner: std::cell::OnceCell<u64>,
    clock: ExpiryClock,
    /// The circuits its breakers were made over, by name.
    circuits: RefCell<FastMap<Vec<u8>, Rc<KnownCircuit>>>,
}

impl SharedMemoryStorage {
    pub fn new(segment: &'static Segment, prefix: Vec<u8>, clock: ExpiryClock) -> Self {
        Self::of_kind(segment, RecordKind::Circuit, prefix, clock)
    }

    /// A storage of `kind` records: a tier's (`fleet/`) are out of reach of
    /// every storage of circuits, whatever its prefix.
    pub fn of_kind(segment: &'static Segment, kind: RecordKind, prefix: Vec<u8>, clock: ExpiryClock) -> Self {
        Self {
            segment,
            prefix,
            kind,
            owner: std::cell::OnceCell::new(),
            clock,
            circuits: RefCell::default(),
        }
    }

    /// Fails once the segment's mapping is no longer trusted (a named
    /// object shortened or overwritten under this process).
    #[inline]
    fn check_intact(&self) -> Result<(), StorageError> {
        if self.segment.is_intact() {
            Ok(())
        } else {
            Err(StorageError::Unavailable(self.segment.broken_reason()))
        }
    }

    fn owner(&self) -> u64 {
        *self.owner.get_or_init(|| match self.kind {
            RecordKind::Circuit => hashes(&self.prefix).1,
            // A tier's records count apart from those of any prefix:
            // finding a prefix whose hash is another's with these bits
            // flipped takes a preimage of SipHash; an even mask keeps the
            // hash odd, never 0.
            RecordKind::Tier => hashes(&self.prefix).1 ^ 0x7469_6572_0000_0000,
        })
    }

    fn now(&self) -> u64 {
        (self.clock)().max(0) as u64
    }

    /// This storage as the breaker of one service uses it for one call:
    /// `memo` is what that breaker keeps between its calls, `now` the
    /// instant of the call when it is read from the same clock as this
    /// storage's (the system clock), so the call reads it once.
    pub fn for_circuit<'a>(&'a self, memo: &'a CircuitMemo, now: Option<Millis>) -> BoundCircuit<'a> {
        memo.begin_call();
        self.within_call(memo, now)
    }

    /// [`Self::for_circuit`] within a call already begun by
    /// [`CircuitMemo::begin_call`], keeping what it found.
    pub(in crate::storage) fn within_call<'a>(
        &'a self,
        memo: &'a CircuitMemo,
        now: Option<Millis>,
    ) -> BoundCircuit<'a> {
        BoundCircuit {
            storage: self,
            place: Some(&memo.place),
            past: Some(&memo.past),
            now: now.map(|now| now.max(0) as u64),
            found: Some(&memo.found),
            own_successes_enough: false,
        }
    }

    fn unbound(&self) -> BoundCircuit<'_> {
        BoundCircuit {
            storage: self,
            place: None,
            past: None,
            now: None,
            found: None,
            own_successes_enough: false,
        }
    }

    /// The record of a service, claimed for it when `create` and absent.
    /// The place a breaker remembers is used when the record there still
    /// carries the name's tags, and kept up to date otherwise.
    fn record_for(
        &self,
        service: &[u8],
        create: bool,
        place: Option<&Cell<Option<Place>>>,
        now: u64,
    ) -> Result<Option<Place>, StorageError> {
        if let Some(remembered) = place.and_then(Cell::get)
            && Self::owns(remembered.record, remembered.hash, remembered.check)
            && self.touch(remembered.record, remembered.hash, remembered.check, now)
        {
            return Ok(Some(remembered));
        }
        let found = self.look_up(service, create, now)?;
        if let Some(place) = place {
            place.set(found);
        }
        Ok(found)
    }

    /// The record of a service by its name, through what this process
    /// remembers of names; with the hash that places it. Out of line: a
    /// call that knows its place should not pay for this one's frame.
    #[inline(never)]
    fn look_up(&self, service: &[u8], create: bool, now: u64) -> Result<Option<Place>, StorageError> {
        KNOWN.with_borrow_mut(|known| {
            write_stored_name(&mut known.name, self.kind, &self.prefix, service);
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
            for _ in 0..LOOKUPS_RACING_REUSE {
                let remembered = identity
                    .index
                    .map(|index| (index, self.segment.record(index)))
                    .filter(|(_, record)| Self::owns(record, identity.hash, identity.check));
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
                        return Ok(found.map(|(index, record)| Place {
                            index,
                            hash: identity.hash,
                            check: identity.check,
                            record,
                        }));
                    }
                }
            }
            Err(StorageError::Unavailable(
                "the shared memory record of this circuit kept being reused".into(),
            ))
        })
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

    /// The words of a service's record as plain storage, claimed for the
    /// name when absent: a tier built over this storage (`fleet/`) keeps
    /// its own words there, under names of its own. Its counters' words
    /// only: the record's key, state and metrics keep their meaning.
    pub fn plain_words(&self, service: &[u8]) -> Result<PlainWords, StorageError> {
        let index = self.unbound().created(service)?.index;
        Ok(PlainWords {
            segment: self.segment,
            index,
        })
    }

    /// A circuit's counts of `generation` over the window at `now`, bucket
    /// by bucket (those with a count), and its run of failures: what a host
    /// tier sends on to its fleet store.
    pub fn window_by_bucket(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<(Vec<BucketCounts>, u64), StorageError> {
        let Some(located) = self.unbound().record_for(service, false)? else {
            return Ok((Vec::new(), 0));
        };
        let record = located.record;
        let buckets = window
            .buckets_covering(now)
            .filter_map(|bucket| {
                let counted = Counted::new(self.segment, located.index, window.ring_slot(bucket));
                let tag = CounterTag::new(generation, bucket);
                let counts: Vec<u64> = (0..slot_count.min(SLOTS))
                    .map(|slot| counted.count(slot, tag))
                    .collect();
                counts.iter().any(|&count| count > 0).then_some((bucket, counts))
            })
            .collect();
        Ok((buckets, read_tally(&record.consecutive_failures, generation)))
    }

    /// Starts a circuit's run of failures of `generation` again: a host
    /// tier's, counted while it decided alone.
    pub fn forget_run(&self, service: &[u8], generation: u64) -> Result<(), StorageError> {
        if let Some(located) = self.unbound().record_for(service, false)? {
            update_tally(&located.record.consecutive_failures, generation, |_| 0);
        }
        Ok(())
    }

    /// The prefix of this storage's names.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The segment this storage works in.
    pub fn segment(&self) -> &'static Segment {
        self.segment
    }

    /// How many circuits the segment holds, and how many it can.
    pub fn usage(&self) -> (u64, usize) {
        (
            self.segment.header().records_in_use.load(Ordering::Relaxed),
            self.segment.capacity(),
        )
    }

    /// The service of a record of this storage's prefix, when its whole
    /// name is kept.
    fn read_service(&self, record: &Record) -> Option<Vec<u8>> {
        let lengths = record.name_lengths.load(Ordering::Relaxed);
        let (prefix_len, len) = (
            ((lengths >> 32) & PREFIX_LENGTH_MASK) as usize,
            (lengths & 0xFFFF_FFFF) as usize,
        );
        if lengths & TIER_BIT != self.kind.bit()
            || prefix_len != self.prefix.len()
            || len > NAME_BYTES
            || prefix_len > len
        {
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

    fn clear_metrics(segment: &Segment, index: usize) {
        for metrics in segment.all_metrics(index) {
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
    }

    /// The metrics of a circuit: the sums of its stripes.
    fn read_metrics(segment: &Segment, index: usize) -> CallCounters {
        let mut sums = CallCounters::default();
        for metrics in segment.all_metrics(index) {
            sums.calls_permitted += metrics.calls_permitted.load(Ordering::Relaxed);
            sums.calls_rejected += metrics.calls_rejected.load(Ordering::Relaxed);
            sums.successes += metrics.successes.load(Ordering::Relaxed);
            sums.failures += metrics.failures.load(Ordering::Relaxed);
            sums.slow_calls += metrics.slow_calls.load(Ordering::Relaxed);
            sums.openings += metrics.openings.load(Ordering::Relaxed);
        }
        sums
    }

    /// The stripe of a circuit's metrics this process counts in.
    #[inline]
    fn own_metrics(&self, index: usize) -> &'static Metrics {
        self.segment.metrics(index, self.segment.own_stripe())
    }

    /// The circuits of this prefix whose service starts with `prefix`, each
    /// with what `read` takes from its record.
    fn walk<T>(&self, prefix: &[u8], read: impl Fn(usize, &Record) -> T) -> Vec<(Vec<u8>, T)> {
        let now = self.now();
        let mut circuits = Vec::new();
        for index in 0..self.segment.capacity() {
            let record = self.segment.record(index);
            let key = record.key.load(Ordering::Acquire);
            let check = record.check.load(Ordering::Acquire);
            // A check of 0: a record a killed claimer left to nobody.
            if !is_ready(key) || check == 0 || is_idle(record, now) {
                continue;
            }
            let Some(service) = self.read_service(record).filter(|service| service.starts_with(prefix)) else {
                continue;
            };
            let value = read(index, record);
            if record.key.load(Ordering::SeqCst) == key && record.check.load(Ordering::SeqCst) == check {
                circuits.push((service, value));
            }
        }
        circuits
    }
}

/// How many records hold a circuit that is idle at `now` (ms): a scan of
/// the segment, for statistics.
pub fn idle_records(segment: &Segment, now: u64) -> u64 {
    (0..segment.capacity())
        .map(|index| segment.record(index))
        .filter(|record| is_ready(record.key.load(Ordering::Acquire)) && is_idle(record, now))
        .count() as u64
}

/// The words of a record kept as plain storage (see
/// [`SharedMemoryStorage::plain_words`]): its counters' words, bucket by
/// bucket, `BUCKET_WORDS * MAX_RING` of them.
#[derive(Clone, Copy)]
pub struct PlainWords {
    segment: &'static Segment,
    index: usize,
}

impl PlainWords {
    /// Word `place`; panics past the last.
    pub fn word(&self, place: usize) -> &'static AtomicU64 {
        &self.segment.bucket(self.index, place / BUCKET_WORDS)[place % BUCKET_WORDS]
    }
}

/// The counts of one bucket, by slot.
pub type BucketCounts = (i64, Vec<u64>);

/// Where a circuit's record was found: trusted only while the record there
/// still carries the name's tags, which a record reused for another name
/// does not (within one call it cannot be: finding it refreshed its
/// `last_used`, and only idle records are reused).
#[derive(Clone, Copy)]
pub struct Place {
    index: usize,
    hash: u64,
    check: u64,
    /// The record at `index`, as `Segment::record` finds it: kept, so that
    /// a call does not compute it again for each operation.
    record: &'static Record,
}

/// What a breaker keeps between its calls so that they touch little memory:
/// where its record lies, and a copy of the sums of the past buckets of its
/// window (the process keeps them too, for the next breaker of the name).
/// In this order, so that a call reads two lines of it (see `KnownCircuit`):
/// the flag and the place, then the past sums' key and first slots.
#[derive(Default)]
#[repr(C)]
pub struct CircuitMemo {
    /// Whether the current call found the record at `place` already: a call
    /// that loads the state then counts its permission looks once. Within
    /// one call the record cannot be reused for another name: finding it
    /// refreshed its `last_used`, and only idle records are reused.
    /// Forgotten when the next call begins ([`Self::begin_call`]).
    found: Cell<bool>,
    place: Cell<Option<Place>>,
    past: RefCell<PastSums>,
}

impl CircuitMemo {
    /// Where the record was last found.
    pub fn place(&self) -> Option<Place> {
        self.place.get()
    }

    /// A call begins: what the last one found may have been reused since.
    #[inline]
    pub fn begin_call(&self) {
        self.found.set(false);
    }
}

/// The storage as one call of one breaker uses it (see
/// [`SharedMemoryStorage::for_circuit`]); the storage itself is the same
/// without a remembered place, reading its own clock.
pub struct BoundCircuit<'a> {
    storage: &'a SharedMemoryStorage,
    place: Option<&'a Cell<Option<Place>>>,
    past: Option<&'a RefCell<PastSums>>,
    now: Option<u64>,
    /// Whether this call found the record at `place` already (see
    /// [`CircuitMemo`]), kept only for a breaker's call.
    found: Option<&'a Cell<bool>>,
    /// Whether a window of successes only, none slow (see
    /// `core::counts::only_fast_successes`) may be read back with this
    /// process's part of the current bucket's: when the rules alone read
    /// it, not when others' counts are added to it (a fleet host's).
    own_successes_enough: bool,
}

impl BoundCircuit<'_> {
    /// The record of this call: the one it found already, a load and a
    /// branch, else a lookup, kept out of line so that the found path
    /// saves no registers for it.
    #[inline(always)]
    fn record_for(&self, service: &[u8], create: bool) -> Result<Option<Place>, StorageError> {
        if let (Some(found), Some(place)) = (self.found, self.place)
            && found.get()
            && let Some(found) = place.get()
        {
            return Ok(Some(found));
        }
        self.find(service, create)
    }

    #[inline(never)]
    fn find(&self, service: &[u8], create: bool) -> Result<Option<Place>, StorageError> {
        let now = self.now.unwrap_or_else(|| self.storage.now());
        let found = self.storage.record_for(service, create, self.place, now)?;
        // After the lookup: its loads are what faults on a shortened
        // object, and the guard then breaks the segment.
        self.storage.check_intact()?;
        // The lookup left `place` at the record it found.
        if let Some(kept) = self.found {
            kept.set(found.is_some() && self.place.is_some());
        }
        Ok(found)
    }

    fn created(&self, service: &[u8]) -> Result<Place, StorageError> {
        Ok(self.record_for(service, true)?.expect("created"))
    }
}

/// The operations of [`CircuitStore`], on this call's view of the segment.
impl BoundCircuit<'_> {
    #[inline]
    pub fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        Ok(match self.record_for(service, false)? {
            Some(located) => SharedMemoryStorage::state_of(located.record),
            None => CircuitState::INITIAL,
        })
    }

    pub fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let located = self.created(service)?;
        let record = located.record;
        SharedMemoryStorage::keep_for(record, ttl_ms);
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
                self.storage
                    .own_metrics(located.index)
                    .openings
                    .fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(won)
    }

    #[inline]
    pub fn record_outcome(
        &self,
        service: &[u8],
        record: &OutcomeRecord,
    ) -> Result<(CircuitState, Tally), StorageError> {
        if record.slot_count > SLOTS {
            return Err(StorageError::Unavailable(format!(
                "shared memory keeps {SLOTS} counters per bucket, the configuration needs {}",
                record.slot_count
            )));
        }
        let located = self.created(service)?;
        let circuit = located.record;
        let state = SharedMemoryStorage::state_of(circuit);
        SharedMemoryStorage::keep_at_least(circuit, record.state_ttl_ms_in(state.phase));
        let generation = state.generation;
        let window = record.window;
        let now_bucket = window.bucket_at(record.now);
        let ring = window.ring_len();
        let now_slot = window.ring_slot(now_bucket);
        let now_tag = CounterTag::new(generation, now_bucket);
        let segment = self.storage.segment;
        let slot_count = record.slot_count;
        let current = Counted::new(segment, located.index, now_slot);
        let stripe = segment.own_stripe() % SUCCESS_STRIPES;
        let own_successes = segment.striped_successes(located.index, now_slot, stripe);
        // A success, the healthy call's outcome, counts in this process's
        // stripe: the processes calling one service write no line in
        // common, and the bucket's line stays in every cache.
        increment_counter(current.word(record.slot).unwrap_or(own_successes), now_tag);
        let metrics = self.storage.own_metrics(located.index);
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
        let window_key = PastKey {
            segment: std::ptr::from_ref(self.storage.segment) as usize,
            check: located.check,
            generation,
            now_bucket,
            ring: ring as u32,
            slot_count: record.slot_count as u32,
        };
        let read = |past: &PastSums| {
            SlotCounts::from_fn(slot_count, |slot| {
                past.sums[slot] + current.word(slot).map_or(0, |word| read_counter(word, now_tag))
            })
        };
        let mut counts = match self.past {
            // The breaker's own copy first: it lies in memory the call
            // touches anyway, where the process's table is one more miss
            // when a process calls many services.
            Some(kept) => {
                let mut kept = kept.borrow_mut();
                if kept.key != window_key {
                    *kept = process_past_sums(segment, located.index, window_key, now_slot);
                }
                read(&kept)
            }
            None => read(&process_past_sums(segment, located.index, window_key, now_slot)),
        };
        counts[SUCCESS_SLOT] += read_counter(own_successes, now_tag);
        // The other processes' successes of the current bucket change
        // no decision of the rules while the window holds nothing else: the
        // lines they write are read only when a failure or a slow call
        // makes the count matter.
        if !(self.own_successes_enough && only_fast_successes(&counts)) {
            counts[SUCCESS_SLOT] += current.stripes(now_tag, Some(stripe));
        }
        let tally = Tally {
            window: counts,
            generation_outcomes: generation_outcomes
                .unwrap_or_else(|| read_tally(&circuit.generation_outcomes, generation)),
            consecutive_failures: consecutive_failures
                .unwrap_or_else(|| read_tally(&circuit.consecutive_failures, generation)),
        };
        Ok((state, tally))
    }

    pub fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let record = self.created(service)?.record;
        SharedMemoryStorage::keep_at_least(record, ttl_ms);
        // A late caller of an older generation is past its turn.
        Ok(update_tally(&record.admissions, state.generation, |count| count + 1).unwrap_or(u64::MAX))
    }

    pub fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let Some(located) = self.record_for(service, false)? else {
            return Ok(vec![0; slot_count]);
        };
        let segment = self.storage.segment;
        Ok((0..slot_count.min(SLOTS))
            .map(|slot| {
                window
                    .buckets_covering(now)
                    .map(|bucket| {
                        Counted::new(segment, located.index, window.ring_slot(bucket))
                            .count(slot, CounterTag::new(generation, bucket))
                    })
                    .sum()
            })
            .collect())
    }

    #[inline]
    pub fn count_permission(&self, service: &[u8], permitted: bool, _config: &Config) {
        // Claims the record of a new circuit, as its first outcome would:
        // its first call is counted too, and the record is kept the default
        // time until a transition or an outcome says how long. Refused one,
        // the call is not counted; the outcome reports the refusal. The
        // breaker's remembered place makes it no second lookup.
        let Ok(located) = self.created(service) else {
            return;
        };
        self.count_decided(located.index, permitted);
    }

    /// Counts a call decided at record `index`, permitted or rejected, in
    /// this process's stripe of its metrics.
    #[inline]
    fn count_decided(&self, index: usize, permitted: bool) {
        let metrics = self.storage.own_metrics(index);
        let word = if permitted {
            &metrics.calls_permitted
        } else {
            &metrics.calls_rejected
        };
        word.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a permitted call when the stored state passes `permits`, read
    /// at the record this call finds without claiming one: false when
    /// there is none, the storage fails, or the state does not pass, and
    /// nothing is counted then.
    #[inline]
    pub fn count_permission_when(&self, service: &[u8], permits: impl FnOnce(CircuitState) -> bool) -> bool {
        let Ok(Some(located)) = self.record_for(service, false) else {
            return false;
        };
        if !permits(SharedMemoryStorage::state_of(located.record)) {
            return false;
        }
        self.count_decided(located.index, true);
        true
    }

    pub fn counters(&self, service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        Ok(Some(
            self.record_for(service, false)?
                .map_or_else(CallCounters::default, |located| {
                    SharedMemoryStorage::read_metrics(self.storage.segment, located.index)
                }),
        ))
    }
}

/// The past sums of `key` of the record at `index`, from the process's
/// table, summed there when it has none for them (once per bucket): out of
/// line, so that the calls that find them kept pay nothing for it.
#[inline(never)]
fn process_past_sums(segment: &Segment, index: usize, key: PastKey, now_slot: usize) -> PastSums {
    KNOWN.with_borrow_mut(|known| {
        *known.past_sums(index, key, |sums| {
            let ring = |slot| Counted::new(segment, index, slot);
            sum_past_buckets(ring, key.ring as usize, key.generation, key.now_bucket, now_slot, sums);
        })
    })
}

/// The sums of the counters over the buckets of the window before the
/// current one: position p of the ring holds the covered bucket congruent to
/// p, and a word still tagged with an older bucket (or generation) counts 0.
fn sum_past_buckets<'a>(
    ring: impl Fn(usize) -> Counted<'a>,
    ring_len: usize,
    generation: u64,
    now_bucket: i64,
    now_slot: usize,
    sums: &mut [u64],
) {
    sums.fill(0);
    let mut position = now_slot;
    for age in 1..ring_len as i64 {
        position = if position == 0 { ring_len - 1 } else { position - 1 };
        let tag = CounterTag::new(generation, now_bucket - age);
        let bucket = ring(position);
        for (slot, sum) in sums.iter_mut().enumerate() {
            *sum += bucket.count(slot, tag);
        }
    }
}

/// One bucket of one circuit as its readers count it: the bucket's words,
/// and for the successes of [`SUCCESS_SLOT`] the stripes every process
/// counts them in.
struct Counted<'a> {
    bucket: &'a Bucket,
    segment: &'a Segment,
    index: usize,
    ring_slot: usize,
}

impl<'a> Counted<'a> {
    fn new(segment: &'a Segment, index: usize, ring_slot: usize) -> Self {
        Self {
            bucket: segment.bucket(index, ring_slot),
            segment,
            index,
            ring_slot,
        }
    }

    /// The count of `slot` tagged `tag`, every process's.
    fn count(&self, slot: usize, tag: CounterTag) -> u64 {
        match self.word(slot) {
            Some(word) => read_counter(word, tag),
            None => self.stripes(tag, None),
        }
    }

    /// The bucket's word of `slot`; none for [`SUCCESS_SLOT`]'s.
    #[inline]
    fn word(&self, slot: usize) -> Option<&'a AtomicU64> {
        const { assert!(SUCCESS_SLOT == 0, "the bucket's words are the slots after it") };
        slot.checked_sub(1).map(|word| &self.bucket[word])
    }

    /// The successes tagged `tag` in every stripe but `except`.
    fn stripes(&self, tag: CounterTag, except: Option<usize>) -> u64 {
        (0..SUCCESS_STRIPES)
            .filter(|&stripe| Some(stripe) != except)
            .map(|stripe| read_counter(self.segment.striped_successes(self.index, self.ring_slot, stripe), tag))
            .sum()
    }
}

impl Storage for SharedMemoryStorage {
    /// The circuits of one name share, in this process, what they learn of
    /// their record ([`CircuitMemo`]): a breaker made in every request then
    /// finds its record where the last one left it, as a reused one does.
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit {
        let known = self.known_circuit(service);
        KeptCircuit::SharedMemory(ShmCircuit {
            storage: self,
            known,
            now: Cell::new(None),
        })
    }

    fn scope(&self) -> Vec<u8> {
        [b"shm\0".as_slice(), &self.prefix].concat()
    }

    fn max_slots(&self) -> Option<usize> {
        Some(SLOTS)
    }

    /// Walks the whole table: one pass of loads, no lock. A record is
    /// listed when it is ready, owned, in use and of this prefix, and still
    /// owned by the same name once read.
    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        let circuits = self.walk(prefix, |_, record| Self::state_of(record));
        self.check_intact()?;
        Ok(circuits)
    }

    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        let circuits = self.walk(prefix, |index, record| {
            (Self::state_of(record), Self::read_metrics(self.segment, index))
        });
        self.check_intact()?;
        Ok(circuits
            .into_iter()
            .map(|(service, (state, counters))| (service, state, Some(counters)))
            .collect())
    }
}

/// Looks the record up on each operation, remembering nothing between them.
impl CircuitStore for SharedMemoryStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.unbound().load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.unbound().compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.unbound().record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.unbound().admit_half_open(service, state, ttl_ms)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.unbound().read_window(service, generation, window, slot_count, now)
    }

    fn count_permission(&self, service: &[u8], permitted: bool, config: &Config) {
        self.unbound().count_permission(service, permitted, config);
    }

    fn counters(&self, service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        self.unbound().counters(service)
    }
}

/// A breaker's circuit in the segment: where its record lies and the sums
/// of its window's past buckets are kept between calls, so that a call
/// neither hashes nor compares the name.
pub struct ShmCircuit {
    storage: Rc<SharedMemoryStorage>,
    known: Rc<KnownCircuit>,
    /// The instant of the call, when the breaker read it from the system
    /// clock, the storage's own.
    now: Cell<Option<Millis>>,
}

/// A name's circuit in this process: the name, and what its breakers
/// learned of its record. On lines of its own, the name and the memo's
/// first fields on the first: a process calling thousands of circuits
/// reads two lines of each per call (the name's slice, the flag and the
/// place; then the past sums' key and first slots).
#[repr(C, align(64))]
struct KnownCircuit {
    service: Vec<u8>,
    memo: CircuitMemo,
}

/// How many names a storage keeps a [`KnownCircuit`] of: past it, it
/// starts afresh (a breaker holds its own until it goes).
const KNOWN_CIRCUITS: usize = 4_096;

impl SharedMemoryStorage {
    fn known_circuit(&self, service: &[u8]) -> Rc<KnownCircuit> {
        let mut circuits = self.circuits.borrow_mut();
        if let Some(known) = circuits.get(service) {
            return Rc::clone(known);
        }
        if circuits.len() >= KNOWN_CIRCUITS {
            circuits.clear();
        }
        let known = Rc::new(KnownCircuit {
            service: service.to_vec(),
            memo: CircuitMemo::default(),
        });
        circuits.insert(service.to_vec(), Rc::clone(&known));
        known
    }
}

impl ShmCircuit {
    /// The call's view of the segment, whose windows only the rules read.
    #[inline]
    fn bound(&self) -> BoundCircuit<'_> {
        BoundCircuit {
            own_successes_enough: true,
            ..self.storage.within_call(&self.known.memo, self.now.get())
        }
    }

    /// See [`BoundCircuit::count_permission_when`].
    #[inline]
    pub fn count_permission_when(&self, permits: impl FnOnce(CircuitState) -> bool) -> bool {
        self.bound().count_permission_when(&self.known.service, permits)
    }
}

impl Circuit for ShmCircuit {
    fn service(&self) -> &[u8] {
        &self.known.service
    }

    #[inline]
    fn begin_call(&self, now: Option<Millis>) {
        self.known.memo.begin_call();
        self.now.set(now);
    }

    #[inline]
    fn load_state(&self) -> Result<CircuitState, StorageError> {
        self.bound().load_state(&self.known.service)
    }

    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.bound()
            .compare_and_set_state(&self.known.service, expected, new, ttl_ms)
    }

    #[inline]
    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.bound().record_outcome(&self.known.service, record)
    }

    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.bound().admit_half_open(&self.known.service, state, ttl_ms)
    }

    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.bound()
            .read_window(&self.known.service, generation, window, slot_count, now)
    }

    #[inline]
    fn count_permission(&self, permitted: bool, config: &Config) {
        self.bound().count_permission(&self.known.service, permitted, config);
    }

    fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.bound().counters(&self.known.service)
    }

    fn take_notices(&self, _notice: &mut dyn FnMut(Notice)) {}
}

#[cfg(test)]
mod tests;
