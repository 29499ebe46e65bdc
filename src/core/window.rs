//! The sliding window: a ring of buckets of equal length.
//!
//! Buckets are numbered from the Unix epoch, so every process and every
//! server computes the same bucket for the same instant without agreeing on
//! anything. Bucket `b` spans `[ceil(b * window / count), ceil((b + 1) * window / count))`
//! milliseconds; a window with a length that does not divide evenly still has
//! buckets that tile time exactly.

use super::duration::Millis;

/// The most buckets a window is split into.
pub const MAX_BUCKETS: u32 = 60;

/// The most positions a ring of buckets needs: a count covers one bucket
/// more than the window is split into.
pub const MAX_RING: usize = MAX_BUCKETS as usize + 1;

/// The buckets a record must read from the store at every call: the
/// current one and the two before. A writer counts in the bucket of its own
/// clock, so once a bucket is two buckets old (two seconds at least) no
/// writer counts in it unless its clock is that late; a process may keep
/// the counts of older buckets as it read them once they were over.
pub const FRESH_BUCKETS: i64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowGeometry {
    window_ms: Millis,
    bucket_count: u32,
}

impl WindowGeometry {
    /// `window_ms` is already validated (10 s to 3600 s).
    pub fn new(window_ms: Millis) -> Self {
        let whole_seconds = (window_ms / 1_000) as u32;
        Self {
            window_ms,
            bucket_count: whole_seconds.clamp(1, MAX_BUCKETS),
        }
    }

    pub fn window_ms(&self) -> Millis {
        self.window_ms
    }

    pub fn bucket_count(&self) -> u32 {
        self.bucket_count
    }

    /// The length of a bucket, in milliseconds (fractional when the window
    /// does not divide evenly).
    pub fn bucket_length_ms(&self) -> f64 {
        self.window_ms as f64 / self.bucket_count as f64
    }

    /// The absolute number of the bucket holding `now`.
    pub fn bucket_at(&self, now: Millis) -> i64 {
        // At most 60 buckets: the product fits i64 for any instant within
        // 4.8 million years of the epoch. Every instant after the epoch
        // divides unsigned, without the sign's corrections.
        let scaled = now * self.bucket_count as i64;
        match u64::try_from(scaled) {
            Ok(scaled) => (scaled / self.window_ms as u64) as i64,
            Err(_) => scaled.div_euclid(self.window_ms),
        }
    }

    /// The buckets a count covers at `now`: every bucket that spans
    /// `[now - window, now]`, that is the current one and the `count`
    /// before it (`now - window` falls in bucket `current - count`, since
    /// buckets tile the window exactly). Nothing younger than the window is
    /// left out; an outcome lingers at most one bucket past it.
    pub fn buckets_covering(&self, now: Millis) -> std::ops::RangeInclusive<i64> {
        let current = self.bucket_at(now);
        current - self.bucket_count as i64..=current
    }

    /// How many positions a ring of buckets needs so that every covered
    /// bucket has its own: `bucket_count + 1`.
    pub fn ring_len(&self) -> usize {
        self.bucket_count as usize + 1
    }

    /// The position of a bucket in a ring of `ring_len()` positions.
    pub fn ring_slot(&self, bucket: i64) -> usize {
        match u64::try_from(bucket) {
            Ok(bucket) => (bucket % self.ring_len() as u64) as usize,
            Err(_) => bucket.rem_euclid(self.ring_len() as i64) as usize,
        }
    }

    /// How long a counter must be kept: until its bucket has left every
    /// window that covers it, `count + 1` buckets after the bucket began
    /// (plus one millisecond: uneven buckets are rounded up to whole ones).
    pub fn counter_ttl_ms(&self) -> Millis {
        self.window_ms + self.bucket_length_ms().ceil() as Millis + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_counts_and_lengths_of_common_windows() {
        let cases = [
            (10_000, 10, 1_000.0),
            (30_000, 30, 1_000.0),
            (90_000, 60, 1_500.0),
            (600_000, 60, 10_000.0),
            (3_600_000, 60, 60_000.0),
        ];
        for (window, count, length) in cases {
            let geometry = WindowGeometry::new(window);
            assert_eq!(geometry.bucket_count(), count, "window {window}");
            assert_eq!(geometry.bucket_length_ms(), length, "window {window}");
        }
    }

    #[test]
    fn fractional_windows_use_whole_seconds_for_the_count() {
        let geometry = WindowGeometry::new(10_500);
        assert_eq!(geometry.bucket_count(), 10);
        assert_eq!(geometry.bucket_length_ms(), 1_050.0);
        // Buckets tile time: 1050 ms each.
        assert_eq!(geometry.bucket_at(1_049), 0);
        assert_eq!(geometry.bucket_at(1_050), 1);
        assert_eq!(geometry.bucket_at(2_099), 1);
        assert_eq!(geometry.bucket_at(2_100), 2);
    }

    #[test]
    fn bucket_boundaries_of_a_90_second_window() {
        let geometry = WindowGeometry::new(90_000);
        assert_eq!(geometry.bucket_at(1_499), 0);
        assert_eq!(geometry.bucket_at(1_500), 1);
        assert_eq!(geometry.bucket_at(90_000), 60);
    }

    #[test]
    fn a_count_covers_every_bucket_spanning_the_window() {
        for window in [10_000, 10_500, 30_000, 90_000, 600_000, 3_600_000] {
            let geometry = WindowGeometry::new(window);
            for now in [1_764_000_000_000, 1_764_000_000_123, 1_764_000_009_999] {
                let covered = geometry.buckets_covering(now);
                assert_eq!(covered.clone().count() as u32, geometry.bucket_count() + 1);
                assert_eq!(*covered.end(), geometry.bucket_at(now));
                // The instant one window ago is covered, and so is every
                // instant after it; the bucket before the first is not
                // needed: it ended before `now - window`.
                assert_eq!(*covered.start(), geometry.bucket_at(now - window));
            }
        }
    }

    #[test]
    fn an_outcome_counts_until_the_window_has_passed_and_at_most_one_bucket_longer() {
        let geometry = WindowGeometry::new(10_000);
        let recorded = 1_764_000_000_900;
        let bucket = geometry.bucket_at(recorded);
        let counted_at = |now| geometry.buckets_covering(now).contains(&bucket);
        assert!(counted_at(recorded + 9_900), "9.9 s old, within a 10 s window");
        assert!(counted_at(recorded + 10_000), "exactly one window old");
        assert!(!counted_at(recorded + 11_000), "a window and a bucket old");
        let geometry = WindowGeometry::new(600_000);
        let bucket = geometry.bucket_at(recorded);
        assert!(geometry.buckets_covering(recorded + 595_000).contains(&bucket));
        assert!(geometry.buckets_covering(recorded + 599_999).contains(&bucket));
    }

    #[test]
    fn counters_live_until_their_bucket_leaves_the_last_window() {
        for window in [10_000, 10_500, 90_000, 3_600_000] {
            let geometry = WindowGeometry::new(window);
            let start = 1_764_000_000_000;
            for written in [start, start + 7, start + 1_049] {
                let bucket = geometry.bucket_at(written);
                let mut last_read = written;
                while geometry.buckets_covering(last_read + 1).contains(&bucket) {
                    last_read += 1;
                }
                assert!(written + geometry.counter_ttl_ms() > last_read, "window {window}");
            }
        }
    }

    #[test]
    fn ring_slots_wrap_and_stay_distinct_within_a_window() {
        let geometry = WindowGeometry::new(30_000);
        let now = 1_764_000_000_000;
        let mut slots: Vec<usize> = geometry.buckets_covering(now).map(|b| geometry.ring_slot(b)).collect();
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), 31);
        assert!(WindowGeometry::new(3_600_000).ring_len() <= MAX_RING);
    }

    #[test]
    fn negative_instants_round_down() {
        let geometry = WindowGeometry::new(10_000);
        assert_eq!(geometry.bucket_at(-1), -1);
        assert_eq!(geometry.ring_slot(-1), geometry.ring_len() - 1);
        assert_eq!(geometry.ring_slot(-(geometry.ring_len() as i64)), 0);
    }
}
