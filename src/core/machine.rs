//! The state machine, as pure functions of the stored state, the counts and
//! the time. Nothing here reads a clock or touches a storage.

use super::config::Config;
use super::counts::{Tally, WindowCounts};
use super::duration::Millis;
use super::rules::{OpeningCause, first_reached};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    Closed,
    Open,
    HalfOpen,
}

/// What a storage keeps for a circuit.
///
/// Every transition takes the next generation, and every counter belongs to
/// one generation, so each state counts only the outcomes registered while
/// it was current. `since` is when the state began: for an open circuit,
/// when it opened; for a half-open one, when its open time ended (not when a
/// call first found it so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CircuitState {
    pub phase: Phase,
    pub generation: u64,
    pub since: Millis,
}

impl CircuitState {
    /// A circuit never seen before, or forgotten after its time to live.
    pub const INITIAL: Self = Self {
        phase: Phase::Closed,
        generation: 0,
        since: 0,
    };

    fn next(&self, phase: Phase, since: Millis) -> Self {
        Self {
            phase,
            generation: self.generation + 1,
            since,
        }
    }
}

/// A change of state to store with a compare-and-set; whoever wins it emits
/// the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub from: CircuitState,
    pub to: CircuitState,
    /// Set when `to` is open.
    pub cause: Option<OpeningCause>,
}

/// The state a call at `now` finds: the stored one, or the one that time
/// made due and that the call must store first.
pub fn due_transition(stored: CircuitState, now: Millis, config: &Config) -> Option<Transition> {
    let max_half_open = config.half_open.max_duration_ms();
    let to = match stored.phase {
        Phase::Closed => return None,
        Phase::Open => {
            let half_open_at = stored.since + config.open_duration_ms;
            if now < half_open_at {
                return None;
            }
            // No call came during the whole test period: nothing reached the
            // service, and its half-open time is over anyway.
            if now >= half_open_at + max_half_open {
                stored.next(Phase::Closed, half_open_at + max_half_open)
            } else {
                stored.next(Phase::HalfOpen, half_open_at)
            }
        }
        Phase::HalfOpen => {
            let closes_at = stored.since + max_half_open;
            if now < closes_at {
                return None;
            }
            stored.next(Phase::Closed, closes_at)
        }
    };
    Some(Transition {
        from: stored,
        to,
        cause: None,
    })
}

/// The state a call at `now` would find, without changing anything.
pub fn effective_state(stored: CircuitState, now: Millis, config: &Config) -> CircuitState {
    due_transition(stored, now, config).map_or(stored, |transition| transition.to)
}

/// The transition an outcome just recorded in `state` calls for, if any.
/// `state` must be current (no transition due at `now`).
pub fn transition_after_outcome(
    state: CircuitState,
    tally: &Tally,
    now: Millis,
    config: &Config,
) -> Option<Transition> {
    let counts = WindowCounts {
        bands: &config.bands,
        slots: &tally.window,
    };
    let reopen = |with_minimum| {
        first_reached(&config.rules, &counts, tally.consecutive_failures, with_minimum).map(|cause| Transition {
            from: state,
            to: state.next(Phase::Open, now),
            cause: Some(cause),
        })
    };
    match state.phase {
        Phase::Closed => reopen(true),
        Phase::HalfOpen => reopen(false).or_else(|| {
            config
                .half_open
                .is_complete(tally.generation_outcomes)
                .then(|| Transition {
                    from: state,
                    to: state.next(Phase::Closed, now),
                    cause: None,
                })
        }),
        // Late outcomes of calls started before the circuit opened: the open
        // state has nothing to decide.
        Phase::Open => None,
    }
}

/// Milliseconds until an open circuit starts testing the service.
pub fn open_remaining_ms(state: CircuitState, now: Millis, config: &Config) -> Millis {
    (state.since + config.open_duration_ms - now).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::counts::Outcome;
    use crate::core::half_open::HalfOpenPolicy;
    use crate::core::rules::OpeningRule;

    fn config(policy: HalfOpenPolicy) -> Config {
        Config::new(10.0, vec![OpeningRule::failure_rate(50.0, 4).unwrap()], 5.0, policy).unwrap()
    }

    fn open_at(since: Millis) -> CircuitState {
        CircuitState {
            phase: Phase::Open,
            generation: 1,
            since,
        }
    }

    #[test]
    fn open_lasts_exactly_open_duration() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        assert_eq!(due_transition(open_at(1_000), 5_999, &config), None);
        let due = due_transition(open_at(1_000), 6_000, &config).unwrap();
        assert_eq!(
            due.to,
            CircuitState {
                phase: Phase::HalfOpen,
                generation: 2,
                since: 6_000
            }
        );
    }

    #[test]
    fn half_open_counts_from_the_end_of_open_not_from_the_first_call() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let due = due_transition(open_at(0), 15_000, &config).unwrap();
        assert_eq!(due.to.phase, Phase::HalfOpen);
        assert_eq!(due.to.since, 5_000);
    }

    #[test]
    fn long_silence_goes_straight_to_closed() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        assert_eq!(
            due_transition(open_at(0), 24_999, &config).unwrap().to.phase,
            Phase::HalfOpen
        );
        let due = due_transition(open_at(0), 25_000, &config).unwrap();
        assert_eq!(
            due.to,
            CircuitState {
                phase: Phase::Closed,
                generation: 2,
                since: 25_000
            }
        );
    }

    #[test]
    fn half_open_closes_at_its_maximum_duration() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let half_open = CircuitState {
            phase: Phase::HalfOpen,
            generation: 2,
            since: 5_000,
        };
        assert_eq!(due_transition(half_open, 24_999, &config), None);
        assert_eq!(
            due_transition(half_open, 25_000, &config).unwrap().to.phase,
            Phase::Closed
        );
    }

    #[test]
    fn effective_state_changes_nothing_it_is_given() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let stored = open_at(0);
        assert_eq!(effective_state(stored, 6_000, &config).phase, Phase::HalfOpen);
        assert_eq!(effective_state(stored, 1_000, &config), stored);
    }

    fn tally(config: &Config, outcomes: &[Outcome], consecutive: u64) -> Tally {
        let mut window = vec![0; config.bands.slot_count()];
        for &outcome in outcomes {
            window[config.bands.slot_of(outcome, None)] += 1;
        }
        Tally {
            window: window.into(),
            generation_outcomes: outcomes.len() as u64,
            consecutive_failures: consecutive,
        }
    }

    #[test]
    fn closed_opens_with_its_minimum_and_names_the_cause() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let closed = CircuitState::INITIAL;
        let below = tally(&config, &[Outcome::Failure; 3], 3);
        assert_eq!(transition_after_outcome(closed, &below, 100, &config), None);
        let reached = tally(
            &config,
            &[Outcome::Failure, Outcome::Success, Outcome::Failure, Outcome::Success],
            1,
        );
        let transition = transition_after_outcome(closed, &reached, 100, &config).unwrap();
        assert_eq!(
            transition.to,
            CircuitState {
                phase: Phase::Open,
                generation: 1,
                since: 100
            }
        );
        let cause = transition.cause.unwrap();
        assert_eq!((cause.rule_index, cause.matching, cause.evaluated), (0, 2, 4));
    }

    #[test]
    fn half_open_reopens_without_minimum() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 5).unwrap());
        let half_open = CircuitState {
            phase: Phase::HalfOpen,
            generation: 2,
            since: 5_000,
        };
        let one_failure = tally(&config, &[Outcome::Failure], 1);
        let transition = transition_after_outcome(half_open, &one_failure, 6_000, &config).unwrap();
        assert_eq!(
            transition.to,
            CircuitState {
                phase: Phase::Open,
                generation: 3,
                since: 6_000
            }
        );
    }

    #[test]
    fn permitted_calls_close_once_all_reported() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 3).unwrap());
        let half_open = CircuitState {
            phase: Phase::HalfOpen,
            generation: 2,
            since: 5_000,
        };
        assert_eq!(
            transition_after_outcome(half_open, &tally(&config, &[Outcome::Success; 2], 0), 6_000, &config),
            None
        );
        let closing = transition_after_outcome(half_open, &tally(&config, &[Outcome::Success; 3], 0), 6_000, &config);
        assert_eq!(closing.unwrap().to.phase, Phase::Closed);
    }

    #[test]
    fn open_ignores_late_outcomes() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        assert_eq!(
            transition_after_outcome(open_at(0), &tally(&config, &[Outcome::Failure; 9], 9), 10, &config),
            None
        );
    }

    #[test]
    fn retry_after_counts_down_to_half_open() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        assert_eq!(open_remaining_ms(open_at(1_000), 2_500, &config), 3_500);
    }
}
