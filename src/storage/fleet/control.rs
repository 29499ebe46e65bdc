//! The `F` record of a service as the tier reads and writes it: its plain
//! words (laid out by `shm::TierWord`, beside the segment's other records)
//! and what they say, kept apart from the sync that moves them.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use super::MAX_KNOWN_HOSTS;
use crate::core::duration::Millis;
use crate::core::window::WindowGeometry;
use crate::storage::shm::{GENERATION_MASK, PlainWords, SLOTS, TierWord as Word};

/// The buckets a host counted in while its fleet store failed, the bucket
/// of its recovery included (it holds counts of both times): the host
/// decided on them alone, so they are neither sent to the fleet nor counted
/// by the host once it decides with the fleet again. Two ranges: the last
/// outage's, and the earlier ones' still in the window (merged into one).
/// Buckets are kept plus one, so that 0 says none: from `from` on, up to
/// `until` excluded (0 while still degraded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Excluded {
    last: Buckets,
    earlier: Buckets,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Buckets {
    from: u64,
    until: u64,
}

impl Buckets {
    const NONE: Self = Self { from: 0, until: 0 };

    /// How a word keeps `bucket`.
    fn word(bucket: i64) -> u64 {
        bucket.max(0) as u64 + 1
    }

    fn holds(self, bucket: i64) -> bool {
        let bucket = Self::word(bucket);
        self.from != 0 && bucket >= self.from && (self.until == 0 || bucket < self.until)
    }

    fn ends_before(self, first: i64) -> bool {
        self.from == 0 || (self.until != 0 && Self::word(first) >= self.until)
    }
}

impl Excluded {
    pub(super) fn holds(self, bucket: i64) -> bool {
        self.last.holds(bucket) || self.earlier.holds(bucket)
    }

    /// Whether no bucket from `first` on is excluded: the window starting
    /// there no longer holds any.
    pub(super) fn ends_before(self, first: i64) -> bool {
        self.last.ends_before(first) && self.earlier.ends_before(first)
    }
}

/// The plain words of an `F` record.
pub(super) struct Control(pub(super) PlainWords);

impl Control {
    pub(super) fn get(&self, word: Word) -> u64 {
        self.0.word(word as usize).load(Ordering::Acquire)
    }

    pub(super) fn at(&self, word: Word, index: usize) -> &AtomicU64 {
        self.0.word(word as usize + index)
    }

    pub(super) fn set(&self, word: Word, value: u64) {
        self.0.word(word as usize).store(value, Ordering::Release);
    }

    pub(super) fn swap(&self, word: Word, from: u64, to: u64) -> bool {
        self.0
            .word(word as usize)
            .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    pub(super) fn degraded(&self) -> bool {
        self.get(Word::Degraded) != 0
    }

    /// The host's identity, drawn by the first process that needs it.
    pub(super) fn host_id(&self) -> u64 {
        let id = self.get(Word::HostId);
        if id != 0 {
            return id;
        }
        let drawn = RandomState::new().hash_one((std::process::id(), std::time::SystemTime::now())) | 1;
        if self.swap(Word::HostId, 0, drawn) {
            drawn
        } else {
            self.get(Word::HostId)
        }
    }

    /// The buckets the host counted in while degraded, when any.
    pub(super) fn excluded(&self) -> Option<Excluded> {
        let last = self.buckets(Word::ExcludedFrom, Word::ExcludedUntil);
        let earlier = self.buckets(Word::EarlierExcludedFrom, Word::EarlierExcludedUntil);
        (last.from != 0 || earlier.from != 0).then_some(Excluded { last, earlier })
    }

    fn buckets(&self, from: Word, until: Word) -> Buckets {
        match self.get(from) {
            0 => Buckets::NONE,
            start => Buckets {
                from: start,
                until: self.get(until),
            },
        }
    }

    /// Ends the exclusion `excluded` (a later one stays).
    pub(super) fn end_exclusion(&self, excluded: Excluded) {
        self.swap(Word::EarlierExcludedFrom, excluded.earlier.from, 0);
        self.swap(Word::ExcludedFrom, excluded.last.from, 0);
    }

    /// Starts excluding from the bucket of `now` on, the fleet store failing
    /// then: the last outage's buckets become the earlier ones (merged with
    /// those) while the window still holds any.
    pub(super) fn exclude_from(&self, window: WindowGeometry, now: Millis) {
        let bucket = Buckets::word(window.bucket_at(now));
        let first = *window.buckets_covering(now).start();
        let mut last = self.buckets(Word::ExcludedFrom, Word::ExcludedUntil);
        if last.until == 0 {
            // A recovery not yet written whole (another process's): its
            // range ends now at the latest.
            last.until = bucket + 1;
        }
        let earlier = self.buckets(Word::EarlierExcludedFrom, Word::EarlierExcludedUntil);
        let kept = match (last.ends_before(first), earlier.ends_before(first)) {
            (true, true) => Buckets::NONE,
            (false, true) => last,
            (true, false) => earlier,
            (false, false) => Buckets {
                from: earlier.from,
                until: last.until,
            },
        };
        // The earlier words first: a reader meanwhile sees a range twice,
        // never none.
        self.set(Word::EarlierExcludedUntil, kept.until);
        self.set(Word::EarlierExcludedFrom, kept.from);
        self.set(Word::ExcludedUntil, 0);
        self.set(Word::ExcludedFrom, bucket);
    }

    /// Ends the last outage's buckets after the bucket of `now`, the fleet
    /// store answering again then: that bucket holds counts of the
    /// degraded time too.
    pub(super) fn exclude_until(&self, window: WindowGeometry, now: Millis) {
        self.set(Word::ExcludedUntil, Buckets::word(window.bucket_at(now)) + 1);
    }

    pub(super) fn geometry(&self) -> Option<(WindowGeometry, usize)> {
        let (window_ms, slot_count) = (self.get(Word::WindowMs), self.get(Word::SlotCount) as usize);
        (window_ms > 0 && (1..=SLOTS).contains(&slot_count))
            .then(|| (WindowGeometry::new(window_ms as Millis), slot_count))
    }

    pub(super) fn known_hosts(&self) -> Vec<u64> {
        let count = (self.get(Word::KnownHostCount) as usize).min(MAX_KNOWN_HOSTS);
        (0..count)
            .map(|index| self.at(Word::KnownHosts, index).load(Ordering::Relaxed))
            .collect()
    }

    /// Keeps the hosts `listed` whose windows the next sync reads: this host
    /// `own` first when listed (so that it does not append itself again),
    /// then the others in the list's order, `MAX_KNOWN_HOSTS` in all.
    pub(super) fn set_known_hosts(&self, listed: &[u64], own: u64) {
        let mut hosts: Vec<u64> = listed.iter().copied().filter(|&host| host == own).take(1).collect();
        hosts.extend(listed.iter().copied().filter(|&host| host != own));
        hosts.truncate(MAX_KNOWN_HOSTS);
        for (index, host) in hosts.iter().enumerate() {
            self.at(Word::KnownHosts, index).store(*host, Ordering::Relaxed);
        }
        self.set(Word::KnownHostCount, hosts.len() as u64);
    }

    /// The whole generation of the host's `generation` (14 bits), as the
    /// fleet stores it.
    pub(super) fn widen(&self, generation: u64) -> u64 {
        let fleet = self.get(Word::FleetGeneration);
        if generation & GENERATION_MASK == fleet & GENERATION_MASK {
            fleet
        } else {
            generation
        }
    }

    /// The others' totals to add to the host's window of `generation`, when
    /// the last sync saw that generation.
    #[inline]
    pub(super) fn others(&self, generation: u64, slot_count: usize) -> Option<([u64; SLOTS], u64)> {
        if self.get(Word::OthersGeneration) != (generation & GENERATION_MASK) + 1 {
            return None;
        }
        let mut sums = [0; SLOTS];
        for (slot, sum) in sums.iter_mut().enumerate().take(slot_count) {
            *sum = self.at(Word::Others, slot).load(Ordering::Relaxed);
        }
        Some((sums, self.get(Word::OthersRun)))
    }
}
