//! What one outcome increments and what a window read returns.
//!
//! Each outcome increments one counter, chosen by its outcome and its duration
//! band. The bands are delimited by the slow call durations of the configured
//! rules: band 0 holds outcomes registered without a duration, band `i + 1`
//! holds durations in `[d_i, d_{i+1})` with `d_0 = 0`. Without slow rules there
//! is a single band and durations are not looked at.

use super::duration::Millis;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Success,
    Failure,
}

impl Outcome {
    fn index(self) -> usize {
        match self {
            Outcome::Success => 0,
            Outcome::Failure => 1,
        }
    }
}

/// The slow call durations of a configuration, sorted and distinct.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DurationBands {
    thresholds: Vec<Millis>,
}

impl DurationBands {
    pub fn new(mut thresholds: Vec<Millis>) -> Self {
        thresholds.sort_unstable();
        thresholds.dedup();
        Self { thresholds }
    }

    /// The slow call durations, shortest first.
    pub fn thresholds(&self) -> &[Millis] {
        &self.thresholds
    }

    pub fn band_count(&self) -> usize {
        if self.thresholds.is_empty() {
            1
        } else {
            self.thresholds.len() + 2
        }
    }

    /// The number of counters an outcome can land in.
    pub fn slot_count(&self) -> usize {
        2 * self.band_count()
    }

    fn band_of(&self, duration: Option<Millis>) -> usize {
        match duration {
            _ if self.thresholds.is_empty() => 0,
            None => 0,
            // A duration equal to a threshold is slow for it: it falls in the band above.
            Some(duration) => 1 + self.thresholds.partition_point(|&threshold| threshold <= duration),
        }
    }

    /// The counter one outcome increments.
    pub fn slot_of(&self, outcome: Outcome, duration: Option<Millis>) -> usize {
        self.slot_and_slowness(outcome, duration).0
    }

    /// The counter one outcome increments, and whether the call was slow
    /// for at least one rule (at least the shortest slow call duration),
    /// from one look at the thresholds.
    pub fn slot_and_slowness(&self, outcome: Outcome, duration: Option<Millis>) -> (usize, bool) {
        let band = self.band_of(duration);
        (outcome.index() * self.band_count() + band, band >= 2)
    }

    /// The first band whose durations are all at least `slow`.
    fn first_slow_band(&self, slow: Millis) -> usize {
        1 + self
            .thresholds
            .iter()
            .position(|&threshold| threshold == slow)
            .map(|index| index + 1)
            .expect("slow call durations are registered in the bands")
    }
}

/// The counter of the successes of band 0: every success of a
/// configuration without slow rules, the untimed ones of one with them.
/// The same slot whatever the configuration, so that breakers of one
/// service with different rules read each other's successes alike. No rule
/// counts it against the service: a storage may count it apart per process
/// and read back only its own part while [`only_fast_successes`] holds.
pub const SUCCESS_SLOT: usize = 0;

/// Whether a window holds successes only, none of them slow: every rule is
/// then below its threshold (each counts failures or slow calls, at least
/// 1 % of them), and throttling refuses nothing, however many they are.
pub fn only_fast_successes(slots: &[u64]) -> bool {
    // Successes lie first, a slot per band (`slot_and_slowness`); no rule
    // matches band 0, nor band 1 (timed, below every slow call duration)
    // when there are slow rules.
    let fast = (slots.len() / 2).min(2);
    slots.iter().skip(fast).all(|&count| count == 0)
}

/// Counter values summed over the buckets of the window, indexed by slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowCounts<'a> {
    pub bands: &'a DurationBands,
    pub slots: &'a [u64],
}

impl WindowCounts<'_> {
    fn sum(&self, outcome: Outcome, bands: std::ops::Range<usize>) -> u64 {
        let base = outcome.index() * self.bands.band_count();
        // Saturating: a storage's counter another client wrote must not
        // wrap a sum round.
        bands
            .map(|band| self.slots.get(base + band).copied().unwrap_or(0))
            .fold(0, u64::saturating_add)
    }

    fn all_bands(&self) -> std::ops::Range<usize> {
        0..self.bands.band_count()
    }

    fn timed_bands(&self) -> std::ops::Range<usize> {
        1.min(self.bands.band_count())..self.bands.band_count()
    }

    pub fn total(&self) -> u64 {
        self.sum(Outcome::Success, self.all_bands()) + self.sum(Outcome::Failure, self.all_bands())
    }

    pub fn failures(&self) -> u64 {
        self.sum(Outcome::Failure, self.all_bands())
    }

    /// Outcomes registered with a duration.
    pub fn timed(&self) -> u64 {
        self.sum(Outcome::Success, self.timed_bands()) + self.sum(Outcome::Failure, self.timed_bands())
    }

    /// Outcomes of `outcome` that took at least `slow`.
    pub fn slow(&self, outcome: Outcome, slow: Millis) -> u64 {
        let first = self.bands.first_slow_band(slow);
        self.sum(outcome, first..self.bands.band_count())
    }
}

/// Slots held without allocating: as many as the shared memory keeps per
/// bucket (four distinct slow call durations). More spill to the heap.
const INLINE_SLOTS: usize = 12;

/// Counter values summed over the window, indexed by slot: built on every
/// registered outcome, so it lives on the stack unless a configuration has
/// more slots than most.
#[derive(Clone)]
pub enum SlotCounts {
    Inline { len: usize, counts: [u64; INLINE_SLOTS] },
    Heap(Vec<u64>),
}

impl Default for SlotCounts {
    fn default() -> Self {
        Self::Inline {
            len: 0,
            counts: [0; INLINE_SLOTS],
        }
    }
}

impl std::ops::Deref for SlotCounts {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        match self {
            Self::Inline { len, counts } => &counts[..*len],
            Self::Heap(counts) => counts,
        }
    }
}

impl std::ops::DerefMut for SlotCounts {
    fn deref_mut(&mut self) -> &mut [u64] {
        match self {
            Self::Inline { len, counts } => &mut counts[..*len],
            Self::Heap(counts) => counts,
        }
    }
}

impl SlotCounts {
    /// `len` counts, the count of slot `i` being `count(i)`.
    pub fn from_fn(len: usize, mut count: impl FnMut(usize) -> u64) -> Self {
        if len > INLINE_SLOTS {
            return Self::Heap((0..len).map(count).collect());
        }
        let mut counts = [0; INLINE_SLOTS];
        for (slot, value) in counts[..len].iter_mut().enumerate() {
            *value = count(slot);
        }
        Self::Inline { len, counts }
    }
}

impl FromIterator<u64> for SlotCounts {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let mut counts = [0; INLINE_SLOTS];
        for len in 0..=INLINE_SLOTS {
            let Some(count) = iter.next() else {
                return Self::Inline { len, counts };
            };
            if len == INLINE_SLOTS {
                let mut heap = counts.to_vec();
                heap.push(count);
                heap.extend(iter);
                return Self::Heap(heap);
            }
            counts[len] = count;
        }
        unreachable!("the loop returns once the slots are all taken")
    }
}

impl From<Vec<u64>> for SlotCounts {
    fn from(counts: Vec<u64>) -> Self {
        counts.into_iter().collect()
    }
}

impl std::fmt::Debug for SlotCounts {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(formatter)
    }
}

impl PartialEq for SlotCounts {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for SlotCounts {}

impl PartialEq<Vec<u64>> for SlotCounts {
    fn eq(&self, other: &Vec<u64>) -> bool {
        **self == **other
    }
}

/// What a storage returns after recording an outcome: the window of the
/// current generation, and the tallies of the whole generation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tally {
    /// Counter values summed over the window, indexed by slot, for the
    /// rules and throttling alone: while it holds fast successes only
    /// ([`only_fast_successes`]), a storage may return a lower bound of
    /// [`SUCCESS_SLOT`] (shared memory: its process's part of the current
    /// bucket), which changes none of their decisions and is no count to
    /// show or add to.
    pub window: SlotCounts,
    /// Outcomes registered in this generation, whatever their age. Only the
    /// half-open state reads it, so a storage may leave it at 0 elsewhere.
    pub generation_outcomes: u64,
    /// Failures registered since the last success of this generation. Only
    /// a `ConsecutiveFailures` rule reads it: see `OutcomeRecord::counts_runs`.
    pub consecutive_failures: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_slow_rules_durations_are_not_split() {
        let bands = DurationBands::new(vec![]);
        assert_eq!(bands.slot_count(), 2);
        assert_eq!(bands.slot_of(Outcome::Success, Some(5_000)), 0);
        assert_eq!(bands.slot_of(Outcome::Success, None), 0);
        assert_eq!(bands.slot_of(Outcome::Failure, Some(1)), 1);
    }

    #[test]
    fn a_duration_equal_to_the_threshold_is_slow() {
        let bands = DurationBands::new(vec![2_000]);
        assert_eq!(bands.slot_of(Outcome::Success, None), 0);
        assert_eq!(bands.slot_of(Outcome::Success, Some(1_999)), 1);
        assert_eq!(bands.slot_of(Outcome::Success, Some(2_000)), 2);
        assert_eq!(bands.slot_of(Outcome::Failure, Some(2_000)), 5);
    }

    #[test]
    fn several_thresholds_give_sorted_distinct_bands() {
        let bands = DurationBands::new(vec![3_000, 1_000, 3_000]);
        assert_eq!(bands.band_count(), 4);
        assert_eq!(bands.slot_of(Outcome::Success, Some(500)), 1);
        assert_eq!(bands.slot_of(Outcome::Success, Some(1_000)), 2);
        assert_eq!(bands.slot_of(Outcome::Success, Some(2_999)), 2);
        assert_eq!(bands.slot_of(Outcome::Success, Some(3_000)), 3);
        assert_eq!(bands.slot_and_slowness(Outcome::Failure, Some(999)), (5, false));
        assert_eq!(bands.slot_and_slowness(Outcome::Failure, Some(1_000)), (6, true));
        assert_eq!(bands.slot_and_slowness(Outcome::Success, None), (0, false));
    }

    #[test]
    fn slot_counts_keep_every_value_inline_or_not() {
        for len in [0, 1, INLINE_SLOTS, INLINE_SLOTS + 1, 40] {
            let values: Vec<u64> = (0..len as u64).map(|value| value * 7 + 1).collect();
            let counts: SlotCounts = values.iter().copied().collect();
            assert_eq!(counts, values);
            assert_eq!(matches!(counts, SlotCounts::Inline { .. }), len <= INLINE_SLOTS);
            assert_eq!(SlotCounts::from_fn(len, |slot| values[slot]), values);
        }
    }

    #[test]
    fn untimed_outcomes_count_in_totals_but_not_in_timed() {
        let bands = DurationBands::new(vec![1_000]);
        let mut slots = vec![0; bands.slot_count()];
        slots[bands.slot_of(Outcome::Success, None)] += 1;
        slots[bands.slot_of(Outcome::Failure, Some(1_500))] += 1;
        slots[bands.slot_of(Outcome::Success, Some(200))] += 1;
        let counts = WindowCounts {
            bands: &bands,
            slots: &slots,
        };
        assert_eq!(counts.total(), 3);
        assert_eq!(counts.timed(), 2);
        assert_eq!(counts.failures(), 1);
        assert_eq!(counts.slow(Outcome::Failure, 1_000), 1);
        assert_eq!(counts.slow(Outcome::Success, 1_000), 0);
    }
}
