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
mod segment;
mod table;
mod words;

use std::sync::atomic::Ordering;

use known::{KNOWN, WindowTags};
use segment::Record;
pub use segment::{SLOTS, Segment, SegmentError};
use table::{ClaimError, Identity, Refusal, hashes, write_stored_name};
#[cfg(test)]
use table::{probe_sequence, stored_name};
use words::{CounterTag, decode_state, encode_state, increment_counter, read_counter, read_tally, update_tally};

use super::memory::ExpiryClock;
use super::{OutcomeRecord, Storage, StorageError};
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};

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
                    None if create => match self.insert(&identity, now) {
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
            Some(record) => decode_state(record.state.load(Ordering::Acquire)),
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
        Ok(record
            .state
            .compare_exchange(
                encode_state(expected),
                encode_state(new),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok())
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        if record.slot_count > SLOTS {
            return Err(StorageError::Unavailable(format!(
                "shared memory keeps {SLOTS} counters per bucket, the configuration needs {}",
                record.slot_count
            )));
        }
        let circuit = self.record_for(service, true)?.expect("created");
        let state = decode_state(circuit.state.load(Ordering::Acquire));
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

    fn max_slots(&self) -> Option<usize> {
        Some(SLOTS)
    }
}

#[cfg(test)]
mod tests;
