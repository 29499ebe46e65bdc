//! How long a worker waits before connecting again after failures, so that a
//! dead server does not cost a connection attempt on every call.

use std::time::Duration;

const FIRST: Duration = Duration::from_millis(100);
const MAX: Duration = Duration::from_secs(5);

/// The wait after `failures` failures in a row: 100 ms, doubling, at most 5 s.
pub fn backoff(failures: u32) -> Duration {
    match failures {
        0 => Duration::ZERO,
        n => FIRST.saturating_mul(1 << (n - 1).min(16)).min(MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_five_seconds() {
        assert_eq!(backoff(0), Duration::ZERO);
        assert_eq!(backoff(1), Duration::from_millis(100));
        assert_eq!(backoff(2), Duration::from_millis(200));
        assert_eq!(backoff(6), Duration::from_millis(3_200));
        assert_eq!(backoff(7), Duration::from_secs(5));
        assert_eq!(backoff(1_000), Duration::from_secs(5));
    }
}
