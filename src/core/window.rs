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
        // 4.8 million years of the epoch.
        (now * self.bucket_count as i64).div_euclid(self.window_ms)
    }

    /// The buckets a count covers at `now`: the current one and the
    /// `count - 1` before it.
    pub fn buckets_covering(&self, now: Millis) -> std::ops::RangeInclusive<i64> {
        let current = self.bucket_at(now);
        current - (self.bucket_count as i64 - 1)..=current
    }

    /// The slot of a bucket in a ring of `bucket_count` slots.
    pub fn ring_slot(&self, bucket: i64) -> usize {
        bucket.rem_euclid(self.bucket_count as i64) as usize
    }

    /// How long a counter must be kept: until its bucket has left the window.
    pub fn counter_ttl_ms(&self) -> Millis {
        self.window_ms + self.bucket_length_ms().ceil() as Millis
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
    fn a_count_covers_exactly_bucket_count_buckets() {
        for window in [10_000, 30_000, 90_000, 600_000, 3_600_000] {
            let geometry = WindowGeometry::new(window);
            let now = 1_764_000_000_123;
            let covered = geometry.buckets_covering(now);
            assert_eq!(covered.clone().count() as u32, geometry.bucket_count());
            assert_eq!(*covered.end(), geometry.bucket_at(now));
        }
    }

    #[test]
    fn ring_slots_wrap_and_stay_distinct_within_a_window() {
        let geometry = WindowGeometry::new(30_000);
        let now = 1_764_000_000_000;
        let mut slots: Vec<usize> = geometry.buckets_covering(now).map(|b| geometry.ring_slot(b)).collect();
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), 30);
    }

    #[test]
    fn negative_instants_round_down() {
        let geometry = WindowGeometry::new(10_000);
        assert_eq!(geometry.bucket_at(-1), -1);
    }
}
