//! Backoff: how long to wait before trying again after failures in a row,
//! as one pure function (phpredis keeps its own in `backoff.c`).

use std::time::Duration;

/// A wait that starts at `first` and doubles with each failure in a row,
/// up to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

/// A connection that failed: 100 ms, doubling, at most 5 s, so that a dead
/// server does not cost a connection attempt on every call.
pub const CONNECTION: Backoff = Backoff {
    first: Duration::from_millis(100),
    max: Duration::from_secs(5),
};

/// The wait of `policy` after `failures` failures in a row: none after
/// none, `first` after one, then doubling, at most `max`.
pub fn backoff(policy: Backoff, failures: u64) -> Duration {
    match failures {
        0 => Duration::ZERO,
        // The shift stops at 16: far past any `max`, and no overflow.
        n => policy.first.saturating_mul(1 << (n - 1).min(16)).min(policy.max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_five_seconds() {
        assert_eq!(backoff(CONNECTION, 0), Duration::ZERO);
        assert_eq!(backoff(CONNECTION, 1), Duration::from_millis(100));
        assert_eq!(backoff(CONNECTION, 2), Duration::from_millis(200));
        assert_eq!(backoff(CONNECTION, 6), Duration::from_millis(3_200));
        assert_eq!(backoff(CONNECTION, 7), Duration::from_secs(5));
        assert_eq!(backoff(CONNECTION, 1_000), Duration::from_secs(5));
    }
}
