//! Adaptive throttling, for brown-outs: while closed, a share of the calls
//! is refused that grows with the failure rate of the window, as the SRE
//! book's client-side throttling (`max(0, (requests - K * accepts) /
//! (requests + 1))`), capped. A circuit that flaps between open and closed
//! under a partial outage sends all its traffic, then none; a throttled one
//! sends what the service still answers.
//!
//! Requests are the outcomes of the window (the calls that reached the
//! service) and accepts its successes. Each process decides from the window
//! its last register read back (no round trip of its own), and refuses its
//! calls evenly rather than at random: with a rate of 0.3, 3 calls in 10, so
//! that the same calls give the same decisions.

use super::counts::WindowCounts;
use super::duration::{Millis, checked_float, format_float};
use super::error::ConfigError;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throttling {
    /// Calls are let through up to `k` times the successes.
    pub k: f64,
    pub max_rejection_rate: f64,
    /// Outcomes in the window before anything is refused.
    pub minimum_requests: u64,
}

impl Throttling {
    pub fn new(k: f64, max_rejection_rate: f64, minimum_requests: i64) -> Result<Self, ConfigError> {
        let k = checked_float("k", k, 1.0, 10.0, "1 to 10")?;
        if !(max_rejection_rate.is_finite() && max_rejection_rate > 0.0 && max_rejection_rate <= 1.0) {
            return Err(ConfigError::new(
                "maxRejectionRate",
                format_float(max_rejection_rate),
                "a rate above 0, at most 1",
            ));
        }
        if minimum_requests < 1 {
            return Err(ConfigError::new("minimumRequests", minimum_requests, "at least 1"));
        }
        Ok(Self {
            k,
            max_rejection_rate,
            minimum_requests: minimum_requests as u64,
        })
    }

    /// The share of calls to refuse after `requests` outcomes of which
    /// `accepts` succeeded.
    pub fn rejection_rate(&self, requests: u64, accepts: u64) -> f64 {
        if requests < self.minimum_requests {
            return 0.0;
        }
        let (requests, accepts) = (requests as f64, accepts as f64);
        ((requests - self.k * accepts) / (requests + 1.0)).clamp(0.0, self.max_rejection_rate)
    }

    /// The rate of the counts of a window.
    pub fn rate_of(&self, counts: &WindowCounts<'_>) -> f64 {
        let total = counts.total();
        self.rejection_rate(total, total - counts.failures())
    }
}

/// A rate in millionths as a percentage to one decimal, as messages show it.
pub fn percent_of_ppm(rate_ppm: u32) -> f64 {
    (f64::from(rate_ppm) / 1e3).round() / 10.0
}

/// What one process knows of a throttled circuit: the window its last
/// register read back, and how much refusal it owes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ThrottleMemo {
    requests: u64,
    accepts: u64,
    /// When the window was read; `None`: never.
    seen_at: Option<Millis>,
    /// The generation of the closed state it belongs to: a circuit that
    /// opened and closed again since starts a fresh window, and refuses
    /// nothing from the old one.
    generation: u64,
    /// The refusals owed, in millionths of a call: each call adds the rate,
    /// and one whole call owed is refused. Whole numbers: the same calls
    /// always give the same decisions.
    owed: u64,
}

impl ThrottleMemo {
    /// Remembers the window of the closed state of `generation` that a
    /// register read back at `now`.
    pub fn remember(&mut self, counts: &WindowCounts<'_>, now: Millis, generation: u64) {
        let total = counts.total();
        self.requests = total;
        self.accepts = total - counts.failures();
        self.seen_at = Some(now);
        self.generation = generation;
    }

    /// The rate to refuse at `now` in the closed state of `generation`: 0
    /// for another generation's window, and for one read more than a window
    /// ago (its outcomes have all left it since) or in the future of this
    /// clock (a clock set back: it would never age).
    pub fn rate(&self, throttling: &Throttling, now: Millis, window_ms: Millis, generation: u64) -> f64 {
        match self.seen_at {
            Some(seen_at) if generation == self.generation && (seen_at..seen_at + window_ms).contains(&now) => {
                throttling.rejection_rate(self.requests, self.accepts)
            }
            _ => 0.0,
        }
    }

    /// Whether this call is one to refuse at `rate`.
    pub fn refuses(&mut self, rate: f64) -> bool {
        const CALL: u64 = 1_000_000;
        if rate <= 0.0 {
            self.owed = 0;
            return false;
        }
        self.owed += (rate * CALL as f64).round() as u64;
        if self.owed >= CALL {
            self.owed -= CALL;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_the_sre_formula_capped() {
        let throttling = Throttling::new(2.0, 0.9, 10).unwrap();
        assert_eq!(throttling.rejection_rate(9, 0), 0.0, "below the minimum");
        assert_eq!(
            throttling.rejection_rate(100, 50),
            0.0,
            "K = 2: nothing below 50 % failures"
        );
        assert!((throttling.rejection_rate(100, 25) - 50.0 / 101.0).abs() < 1e-12);
        assert_eq!(throttling.rejection_rate(100, 0), 0.9, "capped");
        let gentle = Throttling::new(1.5, 1.0, 1).unwrap();
        assert!((gentle.rejection_rate(20, 10) - 5.0 / 21.0).abs() < 1e-12);
    }

    #[test]
    fn refusals_are_spread_evenly() {
        let mut memo = ThrottleMemo::default();
        let refused: Vec<bool> = (0..10).map(|_| memo.refuses(0.3)).collect();
        assert_eq!(refused.iter().filter(|&&refused| refused).count(), 3);
        assert_eq!(
            refused,
            [false, false, false, true, false, false, true, false, false, true]
        );
        assert!(!memo.refuses(0.0));
    }

    #[test]
    fn limits_are_checked() {
        assert_eq!(Throttling::new(0.5, 0.9, 10).unwrap_err().parameter, "k");
        assert_eq!(Throttling::new(2.0, 0.0, 10).unwrap_err().parameter, "maxRejectionRate");
        assert_eq!(Throttling::new(2.0, 1.5, 10).unwrap_err().parameter, "maxRejectionRate");
        assert_eq!(Throttling::new(2.0, 0.9, 0).unwrap_err().parameter, "minimumRequests");
    }

    #[test]
    fn an_old_window_refuses_nothing() {
        let throttling = Throttling::new(2.0, 0.9, 1).unwrap();
        let mut memo = ThrottleMemo {
            requests: 10,
            accepts: 0,
            seen_at: Some(1_000),
            generation: 4,
            owed: 0,
        };
        assert_eq!(memo.rate(&throttling, 60_999, 60_000, 4), 0.9);
        assert_eq!(memo.rate(&throttling, 61_000, 60_000, 4), 0.0);
        assert_eq!(memo.rate(&throttling, 999, 60_000, 4), 0.0, "a clock set back");
        assert_eq!(memo.rate(&throttling, 2_000, 60_000, 6), 0.0, "another closed state");
        memo.seen_at = None;
        assert_eq!(memo.rate(&throttling, 1_000, 60_000, 4), 0.0);
    }
}
