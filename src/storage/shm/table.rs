//! The table of records in the segment: where a name's record lies (its
//! probe sequence), claiming one for a new name under the insert lock, and
//! repairing what a killed lock holder left. Every function here is shared
//! by all processes of the segment; nothing is remembered per process.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::Ordering;

use super::segment::{InsertGuard, NAME_BYTES, PrefixUsage, Record, Segment};
use super::words::{EMPTY, claiming_key, encode_state, is_claiming, is_ready, ready_key};
use super::{CLAIM_RETRY_MS, DEFAULT_TTL_MS, PROBE_WINDOW, SharedMemoryStorage, TOUCH_EVERY_MS};
use crate::core::machine::CircuitState;
use crate::storage::StorageError;

/// The name under which a circuit is stored: the prefix and the service,
/// length-delimited so that no two pairs make the same name.
#[cfg(test)]
pub(super) fn stored_name(prefix: &[u8], service: &[u8]) -> Vec<u8> {
    let mut name = Vec::with_capacity(8 + prefix.len() + service.len());
    write_stored_name(&mut name, RecordKind::Circuit, prefix, service);
    name
}

/// The top bit of the length word of a stored name (and of a record's
/// `name_lengths`): set for a tier's records, which no prefix reaches (no
/// prefix is 2^31 bytes long).
pub(super) const TIER_BIT: u64 = 1 << 63;

/// The bits of a prefix's length in the length word.
pub(super) const PREFIX_LENGTH_MASK: u64 = 0x7FFF_FFFF;

pub(super) fn write_stored_name(name: &mut Vec<u8>, kind: RecordKind, prefix: &[u8], service: &[u8]) {
    name.clear();
    name.extend_from_slice(&((prefix.len() as u64 & PREFIX_LENGTH_MASK) | kind.bit()).to_le_bytes());
    name.extend_from_slice(prefix);
    name.extend_from_slice(service);
}

/// Whose records a storage reaches. A prefix given in PHP names circuits;
/// a tier built over the segment (`fleet/`) keeps its own records apart,
/// where no prefix, however chosen, names them: in the hash that places
/// them, in their stored name's lengths that listings read, and in the
/// prefix table's share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    Circuit,
    Tier,
}

impl RecordKind {
    pub(super) fn bit(self) -> u64 {
        match self {
            Self::Circuit => 0,
            Self::Tier => TIER_BIT,
        }
    }
}

/// Two independent 64-bit hashes of a name: the first places the record,
/// the second tells two names apart when the first collides.
pub(super) fn hashes(name: &[u8]) -> (u64, u64) {
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
pub(super) struct Identity {
    pub(super) hash: u64,
    pub(super) check: u64,
    pub(super) index: Option<usize>,
    pub(super) refused: Option<(u64, Refusal)>,
}

impl Identity {
    pub(super) fn of(name: &[u8]) -> Self {
        let (hash, check) = hashes(name);
        Self {
            hash,
            check,
            index: None,
            refused: None,
        }
    }

    pub(super) fn refusal(&self, now: u64) -> Option<Refusal> {
        self.refused
            .filter(|&(until, _)| now < until)
            .map(|(_, refusal)| refusal)
    }
}

/// Why no record could be claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Every record is in use and none is idle.
    Full,
    /// The places of this name are all taken, though others are free.
    Crowded,
    /// The prefix holds its share of the records.
    Share,
}

pub(super) enum ClaimError {
    Refused(Refusal),
    Lock(String),
}

/// The places of a name's record, in order: its home, then steps of a
/// stride from the second hash, coprime with the capacity so that a small
/// table's window covers all of it.
pub(super) fn probe_sequence(identity: &Identity, capacity: usize) -> impl Iterator<Item = usize> {
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

pub(super) fn greatest_common_divisor(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl SharedMemoryStorage {
    pub(super) fn owns(record: &Record, hash: u64, check: u64) -> bool {
        record.key.load(Ordering::Acquire) == ready_key(hash) && record.check.load(Ordering::Acquire) == check
    }

    /// The record of a name, looking through its places up to the first
    /// free one: records are never freed, so a probe sequence is never cut.
    pub(super) fn probe(&self, identity: &Identity) -> Option<(usize, &'static Record)> {
        for index in probe_sequence(identity, self.segment.capacity()) {
            let record = self.segment.record(index);
            if record.key.load(Ordering::Acquire) == EMPTY {
                return None;
            }
            if Self::owns(record, identity.hash, identity.check) {
                return Some((index, record));
            }
        }
        None
    }

    /// Refreshes `last_used` when stale, then checks the record is still
    /// ours: with both sides sequentially consistent, either this process
    /// sees a reuse that raced it, or the reusing one sees the fresh stamp.
    pub(super) fn touch(&self, record: &Record, hash: u64, check: u64, now: u64) -> bool {
        if now.saturating_sub(record.last_used.load(Ordering::Relaxed)) < TOUCH_EVERY_MS {
            return true;
        }
        record.last_used.store(now, Ordering::SeqCst);
        record.key.load(Ordering::SeqCst) == ready_key(hash) && record.check.load(Ordering::SeqCst) == check
    }

    /// Claims a record under the insert lock: a free one, else the first
    /// idle one among the name's places; at its prefix's share while another
    /// prefix holds records, only an idle record of the same prefix.
    pub(super) fn insert(
        &self,
        identity: &Identity,
        service: &[u8],
        now: u64,
    ) -> Result<(usize, &'static Record), ClaimError> {
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
        let Some(usage) = self.prefix_usage(self.owner(), true, &guard) else {
            return Err(ClaimError::Refused(Refusal::Full));
        };
        // A share of the whole segment is no limit: full is full. The share
        // binds only while another prefix holds records: it keeps co-tenant
        // applications apart, and a lone one may use the whole segment.
        let max_per_prefix = self.segment.max_per_prefix();
        let at_share = max_per_prefix < self.segment.capacity()
            && usage.records.load(Ordering::Relaxed) >= max_per_prefix as u64
            && self.another_prefix_holds_records(&guard);
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
                || (at_share && record.owner.load(Ordering::Relaxed) != self.owner())
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
            Self::initialize(
                self.segment,
                index,
                hash,
                check,
                now,
                self.kind,
                [&self.prefix, service],
            );
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
    pub(super) fn retire_idle_own(&self, places: &[usize], hash: u64, usage: &PrefixUsage, now: u64) -> bool {
        for &index in places {
            let record = self.segment.record(index);
            let current = record.key.load(Ordering::SeqCst);
            if !is_ready(current) || record.owner.load(Ordering::Relaxed) != self.owner() || !self.is_idle(record, now)
            {
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

    /// Whether a prefix other than this storage's holds a record: the share
    /// of the records binds only then.
    pub(super) fn another_prefix_holds_records(&self, _guard: &InsertGuard<'_>) -> bool {
        let owner = self.owner();
        (0..self.segment.capacity()).any(|index| {
            let entry = self.segment.prefix_usage(index);
            let current = entry.owner.load(Ordering::Relaxed);
            current != 0 && current != owner && entry.records.load(Ordering::Relaxed) > 0
        })
    }

    /// The entry counting the records of `owner`, made when `create` and
    /// absent (in a free entry, or one whose prefix holds no record).
    pub(super) fn prefix_usage(
        &self,
        owner: u64,
        create: bool,
        _guard: &InsertGuard<'_>,
    ) -> Option<&'static PrefixUsage> {
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
    pub(super) fn change_owner(&self, record: &Record, usage: &PrefixUsage, guard: &InsertGuard<'_>) {
        let previous = record.owner.swap(self.owner(), Ordering::Relaxed);
        if previous != 0
            && let Some(previous) = self.prefix_usage(previous, false, guard)
        {
            let _ = previous
                .records
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |count| count.checked_sub(1));
        }
        usage.records.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn refusal_error(&self, refusal: Refusal) -> StorageError {
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

    pub(super) fn is_idle(&self, record: &Record, now: u64) -> bool {
        is_idle(record, now)
    }

    /// Makes a claimed record a fresh circuit, then publishes it.
    pub(super) fn initialize(
        segment: &Segment,
        index: usize,
        hash: u64,
        check: u64,
        now: u64,
        kind: RecordKind,
        [prefix, service]: [&[u8]; 2],
    ) {
        let record = segment.record(index);
        record.check.store(check, Ordering::Relaxed);
        record
            .state
            .store(encode_state(CircuitState::INITIAL), Ordering::Relaxed);
        record.info.store(0, Ordering::Relaxed);
        Self::write_name(record, kind, prefix, service);
        record.ttl.store(0, Ordering::Relaxed);
        for tally in [
            &record.consecutive_failures,
            &record.generation_outcomes,
            &record.admissions,
        ] {
            tally.store(0, Ordering::Relaxed);
        }
        // The counters' tags are older than any window, but may carry a
        // later generation than the new circuit's 0, which a counter takes
        // for a writer ahead of it and never overwrites: they are zeroed,
        // as the metrics, which belong to the name. Before the key
        // publishes the record: a claimer killed before that leaves a
        // record nobody owns, cleared again by its next claim.
        segment.clear_counters(index);
        Self::clear_metrics(segment, index);
        record.last_used.store(now, Ordering::Relaxed);
        record.key.store(ready_key(hash), Ordering::Release);
    }

    /// Keeps the name of a claimed record for listings: the first
    /// [`NAME_BYTES`] bytes, and the lengths, so a longer name is known cut.
    fn write_name(record: &Record, kind: RecordKind, prefix: &[u8], service: &[u8]) {
        record.name_lengths.store(
            kind.bit()
                | ((prefix.len() as u64 & PREFIX_LENGTH_MASK) << 32)
                | ((prefix.len() + service.len()) as u64 & 0xFFFF_FFFF),
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

    /// After a holder of the insert lock died: a record it was claiming is
    /// left to nobody, free to be reused. It is not emptied, which would
    /// cut the probe sequence of records claimed after it.
    pub(super) fn repair(&self, _guard: &InsertGuard<'_>) {
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
}

/// Whether a record's circuit has not been used for its time to live: its
/// record may be given to another circuit.
pub(super) fn is_idle(record: &Record, now: u64) -> bool {
    let ttl = match record.ttl.load(Ordering::Relaxed) {
        0 => DEFAULT_TTL_MS,
        ttl => ttl,
    };
    now.saturating_sub(record.last_used.load(Ordering::SeqCst)) > ttl
}
