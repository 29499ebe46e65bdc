//! Opening rules: when a window of outcomes opens the circuit.

use super::counts::{Outcome, WindowCounts};
use super::duration::{Millis, SECOND, checked_float, checked_millis};
use super::error::ConfigError;
use super::throttle::Throttling;

const THRESHOLD_LIMITS: &str = "a percentage from 1 to 100";
const MINIMUM_LIMITS: &str = "at least 1";
const SLOW_LIMITS: &str = "at least 0.001 seconds";
/// A slow call duration above a day is no rule a user means; it also keeps
/// the band arithmetic far from overflow.
const MAX_SLOW: Millis = 86_400 * SECOND;

#[derive(Debug, Clone, PartialEq)]
pub enum OpeningRule {
    FailureRate {
        threshold: f64,
        minimum_requests: u64,
    },
    SlowCallRate {
        slow_call_ms: Millis,
        threshold: f64,
        minimum_requests: u64,
    },
    FailureOrSlowCallRate {
        slow_call_ms: Millis,
        threshold: f64,
        minimum_requests: u64,
    },
    ConsecutiveFailures {
        failures: u64,
    },
    /// Opens nothing: while closed, refuses a share of the calls that grows
    /// with the failure rate of the window (`throttle.rs`).
    AdaptiveThrottling(Throttling),
}

fn checked_threshold(threshold: f64) -> Result<f64, ConfigError> {
    checked_float("threshold", threshold, 1.0, 100.0, THRESHOLD_LIMITS)
}

fn checked_minimum(minimum_requests: i64) -> Result<u64, ConfigError> {
    if minimum_requests < 1 {
        return Err(ConfigError::new("minimumRequests", minimum_requests, MINIMUM_LIMITS));
    }
    Ok(minimum_requests as u64)
}

fn checked_slow(seconds: f64) -> Result<Millis, ConfigError> {
    checked_millis("slowCallDuration", seconds, 1, MAX_SLOW, SLOW_LIMITS)
}

impl OpeningRule {
    pub fn failure_rate(threshold: f64, minimum_requests: i64) -> Result<Self, ConfigError> {
        Ok(Self::FailureRate {
            threshold: checked_threshold(threshold)?,
            minimum_requests: checked_minimum(minimum_requests)?,
        })
    }

    pub fn slow_call_rate(slow_call_duration: f64, threshold: f64, minimum_requests: i64) -> Result<Self, ConfigError> {
        Ok(Self::SlowCallRate {
            slow_call_ms: checked_slow(slow_call_duration)?,
            threshold: checked_threshold(threshold)?,
            minimum_requests: checked_minimum(minimum_requests)?,
        })
    }

    pub fn failure_or_slow_call_rate(
        slow_call_duration: f64,
        threshold: f64,
        minimum_requests: i64,
    ) -> Result<Self, ConfigError> {
        Ok(Self::FailureOrSlowCallRate {
            slow_call_ms: checked_slow(slow_call_duration)?,
            threshold: checked_threshold(threshold)?,
            minimum_requests: checked_minimum(minimum_requests)?,
        })
    }

    pub fn consecutive_failures(failures: i64) -> Result<Self, ConfigError> {
        if failures < 1 {
            return Err(ConfigError::new("failures", failures, MINIMUM_LIMITS));
        }
        Ok(Self::ConsecutiveFailures {
            failures: failures as u64,
        })
    }

    pub fn adaptive_throttling(k: f64, max_rejection_rate: f64, minimum_requests: i64) -> Result<Self, ConfigError> {
        Throttling::new(k, max_rejection_rate, minimum_requests).map(Self::AdaptiveThrottling)
    }

    pub fn slow_call_ms(&self) -> Option<Millis> {
        match self {
            Self::SlowCallRate { slow_call_ms, .. } | Self::FailureOrSlowCallRate { slow_call_ms, .. } => {
                Some(*slow_call_ms)
            }
            _ => None,
        }
    }

    /// Evaluates the rule on the counts of the current state. `with_minimum`
    /// is true in the closed state; the half-open state has no minimum, and
    /// for a run of failures its minimum run is then one failure.
    pub fn evaluate(&self, counts: &WindowCounts<'_>, consecutive_failures: u64, with_minimum: bool) -> Verdict {
        let (threshold, minimum, matching, evaluated) = match *self {
            Self::FailureRate {
                threshold,
                minimum_requests,
            } => (threshold, minimum_requests, counts.failures(), counts.total()),
            Self::SlowCallRate {
                slow_call_ms,
                threshold,
                minimum_requests,
            } => {
                let slow = counts.slow(Outcome::Success, slow_call_ms) + counts.slow(Outcome::Failure, slow_call_ms);
                (threshold, minimum_requests, slow, counts.timed())
            }
            Self::FailureOrSlowCallRate {
                slow_call_ms,
                threshold,
                minimum_requests,
            } => {
                let matching = counts.failures() + counts.slow(Outcome::Success, slow_call_ms);
                (threshold, minimum_requests, matching, counts.total())
            }
            // It refuses calls; it never opens the circuit.
            Self::AdaptiveThrottling(throttling) => {
                let counted = Counted {
                    matching: counts.failures(),
                    evaluated: counts.total(),
                };
                return if counted.evaluated < throttling.minimum_requests {
                    Verdict::BelowMinimum(counted)
                } else {
                    Verdict::Below(counted)
                };
            }
            Self::ConsecutiveFailures { failures } => {
                let needed = if with_minimum { failures } else { 1 };
                let counts = Counted {
                    matching: consecutive_failures,
                    evaluated: consecutive_failures,
                };
                return if consecutive_failures >= needed {
                    Verdict::Reached(counts)
                } else {
                    Verdict::Below(counts)
                };
            }
        };
        let counted = Counted { matching, evaluated };
        if evaluated == 0 || (with_minimum && evaluated < minimum) {
            return Verdict::BelowMinimum(counted);
        }
        // Whole numbers of calls times 100 are exact in f64 far beyond any count.
        if matching as f64 * 100.0 >= threshold * evaluated as f64 {
            Verdict::Reached(counted)
        } else {
            Verdict::Below(counted)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    pub matching: u64,
    pub evaluated: u64,
}

/// Why a rule does or does not open the circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    BelowMinimum(Counted),
    Below(Counted),
    Reached(Counted),
}

/// The rule that opened the circuit, by its position in the configuration,
/// with the counts that reached its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpeningCause {
    pub rule_index: usize,
    pub matching: u64,
    pub evaluated: u64,
}

/// The first rule, in configuration order, whose threshold is reached.
pub fn first_reached(
    rules: &[OpeningRule],
    counts: &WindowCounts<'_>,
    consecutive_failures: u64,
    with_minimum: bool,
) -> Option<OpeningCause> {
    rules.iter().enumerate().find_map(|(rule_index, rule)| {
        match rule.evaluate(counts, consecutive_failures, with_minimum) {
            Verdict::Reached(Counted { matching, evaluated }) => Some(OpeningCause {
                rule_index,
                matching,
                evaluated,
            }),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::counts::DurationBands;

    fn counts_with(bands: &DurationBands, outcomes: &[(Outcome, Option<Millis>)]) -> Vec<u64> {
        let mut slots = vec![0; bands.slot_count()];
        for &(outcome, duration) in outcomes {
            slots[bands.slot_of(outcome, duration)] += 1;
        }
        slots
    }

    fn repeat(outcome: Outcome, duration: Option<Millis>, times: usize) -> Vec<(Outcome, Option<Millis>)> {
        vec![(outcome, duration); times]
    }

    #[test]
    fn failure_rate_reaches_its_threshold_exactly() {
        let bands = DurationBands::default();
        let rule = OpeningRule::failure_rate(50.0, 10).unwrap();
        let mut outcomes = repeat(Outcome::Success, None, 5);
        outcomes.extend(repeat(Outcome::Failure, None, 4));
        let slots = counts_with(&bands, &outcomes);
        let counts = WindowCounts {
            bands: &bands,
            slots: &slots,
        };
        assert_eq!(
            rule.evaluate(&counts, 0, true),
            Verdict::BelowMinimum(Counted {
                matching: 4,
                evaluated: 9
            })
        );
        outcomes.push((Outcome::Failure, None));
        let slots = counts_with(&bands, &outcomes);
        let counts = WindowCounts {
            bands: &bands,
            slots: &slots,
        };
        assert_eq!(
            rule.evaluate(&counts, 0, true),
            Verdict::Reached(Counted {
                matching: 5,
                evaluated: 10
            })
        );
    }

    #[test]
    fn the_minimum_can_be_reached_by_a_success() {
        let bands = DurationBands::default();
        let rule = OpeningRule::failure_rate(50.0, 10).unwrap();
        let mut outcomes = repeat(Outcome::Failure, None, 9);
        let slots = counts_with(&bands, &outcomes);
        assert!(matches!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                0,
                true
            ),
            Verdict::BelowMinimum(_)
        ));
        outcomes.push((Outcome::Success, None));
        let slots = counts_with(&bands, &outcomes);
        assert_eq!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                0,
                true
            ),
            Verdict::Reached(Counted {
                matching: 9,
                evaluated: 10
            })
        );
    }

    #[test]
    fn just_below_the_threshold_does_not_open() {
        let bands = DurationBands::default();
        let rule = OpeningRule::failure_rate(50.0, 1).unwrap();
        let mut outcomes = repeat(Outcome::Failure, None, 49);
        outcomes.extend(repeat(Outcome::Success, None, 51));
        let slots = counts_with(&bands, &outcomes);
        assert!(matches!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                0,
                true
            ),
            Verdict::Below(_)
        ));
    }

    #[test]
    fn without_minimum_one_failure_is_enough() {
        let bands = DurationBands::default();
        let rule = OpeningRule::failure_rate(50.0, 10).unwrap();
        let slots = counts_with(&bands, &[(Outcome::Failure, None)]);
        assert!(matches!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                1,
                false
            ),
            Verdict::Reached(_)
        ));
    }

    #[test]
    fn slow_rate_ignores_untimed_outcomes() {
        let bands = DurationBands::new(vec![2_000]);
        let rule = OpeningRule::slow_call_rate(2.0, 80.0, 5).unwrap();
        // 4 slow out of 5 timed: 80%; 100 untimed outcomes neither dilute nor count for the minimum.
        let mut outcomes = repeat(Outcome::Success, Some(2_000), 3);
        outcomes.push((Outcome::Failure, Some(5_000)));
        outcomes.push((Outcome::Success, Some(100)));
        outcomes.extend(repeat(Outcome::Success, None, 100));
        let slots = counts_with(&bands, &outcomes);
        assert_eq!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                0,
                true
            ),
            Verdict::Reached(Counted {
                matching: 4,
                evaluated: 5
            })
        );
        let untimed_only = counts_with(&bands, &repeat(Outcome::Failure, None, 50));
        assert_eq!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &untimed_only
                },
                0,
                true
            ),
            Verdict::BelowMinimum(Counted {
                matching: 0,
                evaluated: 0
            })
        );
    }

    #[test]
    fn failure_or_slow_counts_a_slow_failure_once() {
        let bands = DurationBands::new(vec![2_000]);
        let rule = OpeningRule::failure_or_slow_call_rate(2.0, 70.0, 1).unwrap();
        let outcomes = vec![
            (Outcome::Failure, Some(3_000)), // slow failure: once
            (Outcome::Success, Some(2_500)), // slow success
            (Outcome::Failure, None),        // failure without duration
            (Outcome::Success, Some(10)),
        ];
        let slots = counts_with(&bands, &outcomes);
        assert_eq!(
            rule.evaluate(
                &WindowCounts {
                    bands: &bands,
                    slots: &slots
                },
                0,
                true
            ),
            Verdict::Reached(Counted {
                matching: 3,
                evaluated: 4
            })
        );
    }

    #[test]
    fn consecutive_failures_need_the_full_run_when_closed_and_one_when_half_open() {
        let bands = DurationBands::default();
        let slots = vec![0; 2];
        let counts = WindowCounts {
            bands: &bands,
            slots: &slots,
        };
        let rule = OpeningRule::consecutive_failures(3).unwrap();
        assert!(matches!(rule.evaluate(&counts, 2, true), Verdict::Below(_)));
        assert_eq!(
            rule.evaluate(&counts, 3, true),
            Verdict::Reached(Counted {
                matching: 3,
                evaluated: 3
            })
        );
        assert!(matches!(rule.evaluate(&counts, 1, false), Verdict::Reached(_)));
        assert!(matches!(rule.evaluate(&counts, 0, false), Verdict::Below(_)));
    }

    #[test]
    fn limits_are_enforced_with_named_parameters() {
        assert_eq!(OpeningRule::failure_rate(0.5, 1).unwrap_err().parameter, "threshold");
        assert_eq!(OpeningRule::failure_rate(101.0, 1).unwrap_err().parameter, "threshold");
        assert_eq!(
            OpeningRule::failure_rate(f64::NAN, 1).unwrap_err().parameter,
            "threshold"
        );
        assert_eq!(
            OpeningRule::failure_rate(50.0, 0).unwrap_err().parameter,
            "minimumRequests"
        );
        assert_eq!(
            OpeningRule::slow_call_rate(0.0004, 50.0, 1).unwrap_err().parameter,
            "slowCallDuration"
        );
        assert_eq!(
            OpeningRule::slow_call_rate(f64::INFINITY, 50.0, 1)
                .unwrap_err()
                .parameter,
            "slowCallDuration"
        );
        assert_eq!(OpeningRule::consecutive_failures(0).unwrap_err().parameter, "failures");
        assert!(OpeningRule::slow_call_rate(0.001, 1.0, 1).is_ok());
        assert!(OpeningRule::failure_rate(100.0, 1).is_ok());
    }

    #[test]
    fn the_first_reached_rule_in_order_is_the_cause() {
        let bands = DurationBands::new(vec![1_000]);
        let rules = vec![
            OpeningRule::failure_rate(90.0, 1).unwrap(),
            OpeningRule::slow_call_rate(1.0, 50.0, 1).unwrap(),
            OpeningRule::failure_rate(10.0, 1).unwrap(),
        ];
        let slots = counts_with(&bands, &[(Outcome::Failure, Some(1_000)), (Outcome::Success, Some(5))]);
        let counts = WindowCounts {
            bands: &bands,
            slots: &slots,
        };
        assert_eq!(
            first_reached(&rules, &counts, 0, true),
            Some(OpeningCause {
                rule_index: 1,
                matching: 1,
                evaluated: 2
            })
        );
    }

    /// What lets a storage read back only its own part of the fast
    /// successes: on a window of successes none slow, no rule opens and
    /// throttling refuses nothing, whatever their counts; a failure or a
    /// slow call anywhere else is seen by a rule.
    #[test]
    fn fast_successes_alone_open_nothing_whatever_their_count() {
        use crate::core::counts::{SUCCESS_SLOT, only_fast_successes};
        let throttling = Throttling::new(1.0, 1.0, 1).unwrap();
        let eager = vec![
            OpeningRule::failure_rate(1.0, 1).unwrap(),
            OpeningRule::slow_call_rate(0.001, 1.0, 1).unwrap(),
            OpeningRule::failure_or_slow_call_rate(2.0, 1.0, 1).unwrap(),
            OpeningRule::consecutive_failures(1).unwrap(),
            OpeningRule::AdaptiveThrottling(throttling),
        ];
        for (bands, rules) in [
            (
                DurationBands::default(),
                vec![eager[0].clone(), eager[3].clone(), eager[4].clone()],
            ),
            (DurationBands::new(vec![1, 2_000]), eager),
        ] {
            let fast = bands.slot_of(Outcome::Success, Some(0));
            for (untimed, timed) in (0..40).flat_map(|a| (0..40).map(move |b| (a * 7, b * 13))) {
                let mut slots = vec![0; bands.slot_count()];
                slots[SUCCESS_SLOT] += untimed;
                slots[fast] += timed;
                assert!(only_fast_successes(&slots));
                let counts = WindowCounts {
                    bands: &bands,
                    slots: &slots,
                };
                for with_minimum in [true, false] {
                    assert_eq!(first_reached(&rules, &counts, 0, with_minimum), None, "{slots:?}");
                }
                assert_eq!(throttling.rate_of(&counts), 0.0, "{slots:?}");
            }
            for other in (fast + 1)..bands.slot_count() {
                let mut slots = vec![0; bands.slot_count()];
                slots[other] = 1;
                slots[fast] = 1;
                assert!(!only_fast_successes(&slots), "{other}");
                let counts = WindowCounts {
                    bands: &bands,
                    slots: &slots,
                };
                assert!(first_reached(&rules, &counts, 0, true).is_some(), "slot {other} opens");
            }
        }
    }
}
