//! The state machine, as pure functions of the stored state, the counts and
//! the time. Nothing here reads a clock or touches a storage.

use super::config::Config;
use super::counts::{Tally, WindowCounts, only_fast_successes};
use super::duration::{Millis, THIRTY_DAYS};
use super::rules::{OpeningCause, first_reached};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    Closed,
    Open,
    HalfOpen,
}

/// What a storage keeps for a circuit: one value, changed as a whole by
/// one compare-and-set, carrying all a reader without the configuration
/// needs (the listing of a storage).
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
    /// When time ends the state, for a reader without the configuration:
    /// the end of a forced state (which it decides), or of an open one as
    /// its opener computed it (the breakers compute it again from their
    /// configuration). 0 when no time ends the state, or when a storage
    /// could not keep it.
    pub until: Millis,
    /// How many times the open duration doubled (see
    /// [`Config::open_duration_at`]): set by an opening, carried through
    /// half-open, 0 once closed.
    pub backoff: u8,
    /// Set by `forceOpen()` / `forceClosed()`: the phase holds, whatever the
    /// outcomes, until `until`.
    pub forced: bool,
}

impl CircuitState {
    /// A circuit never seen before, or forgotten after its time to live.
    pub const INITIAL: Self = Self {
        phase: Phase::Closed,
        generation: 0,
        since: 0,
        until: 0,
        backoff: 0,
        forced: false,
    };

    /// The next state, in `phase` from `since`, with nothing held by time.
    fn next(&self, phase: Phase, since: Millis) -> Self {
        Self {
            phase,
            generation: self.generation + 1,
            since,
            until: 0,
            backoff: 0,
            forced: false,
        }
    }

    /// The next state: open from `now` at backoff `level`.
    fn opened(&self, now: Millis, level: u8, config: &Config) -> Self {
        Self {
            until: now + config.open_duration_at(level),
            backoff: level,
            ..self.next(Phase::Open, now)
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

/// When time ends an open state (forced or not): the configured duration
/// at its backoff level counts from its opening; a forced one ends when
/// it was told to.
pub fn open_ends_at(state: CircuitState, config: &Config) -> Millis {
    if state.forced {
        state.until
    } else {
        state.since + config.open_duration_at(state.backoff)
    }
}

/// Whether time alone may end `stored`: every state but a closed one that
/// is not forced, which only outcomes (or an operator) end.
#[inline]
pub fn time_can_end(stored: CircuitState) -> bool {
    stored.forced || stored.phase != Phase::Closed
}

/// How far ahead of a reader's clock a stored state may start before the
/// reader takes it for the work of a clock that runs ahead: more than
/// hosts kept by NTP ever drift apart, less than any open duration.
pub const CLOCK_AHEAD_TOLERANCE_MS: Millis = crate::core::duration::SECOND;

/// `stored` as a reader whose clock says `now` may accept it, when it was
/// written by a clock too far ahead: an open or half-open state starting
/// after `now` starts at `now` (so it lasts at most its duration, at its
/// backoff level, from the reader's now), and a forced state ends at most
/// 30 days from `now`. `None` when `stored` is within bounds. The clamped
/// state takes a new generation, so that every reader follows it as any
/// newer state. A clock behind the others cannot be told from a state that
/// is old: a host whose clock runs ahead ends the states of others early,
/// which shortens a protection but never lengthens it.
#[inline]
pub fn clamped_to_clock(stored: CircuitState, now: Millis, config: &Config) -> Option<CircuitState> {
    // Every state but one from a clock ahead: a forced state's start is
    // never after its end.
    let ahead = |time: Millis| time > now + CLOCK_AHEAD_TOLERANCE_MS;
    let from_a_clock_ahead = ahead(stored.since) || (stored.forced && ahead(stored.until - THIRTY_DAYS));
    if !from_a_clock_ahead {
        return None;
    }
    clamp(stored, now, config)
}

#[cold]
fn clamp(stored: CircuitState, now: Millis, config: &Config) -> Option<CircuitState> {
    let latest_start = now + CLOCK_AHEAD_TOLERANCE_MS;
    let longest_forced = now + THIRTY_DAYS + CLOCK_AHEAD_TOLERANCE_MS;
    if stored.forced {
        return (stored.until > longest_forced).then(|| CircuitState {
            generation: stored.generation + 1,
            since: stored.since.min(now),
            until: now + THIRTY_DAYS,
            ..stored
        });
    }
    match stored.phase {
        Phase::Closed => None,
        Phase::Open | Phase::HalfOpen if stored.since <= latest_start => None,
        Phase::Open => Some(CircuitState {
            generation: stored.generation + 1,
            since: now,
            until: now + config.open_duration_at(stored.backoff),
            ..stored
        }),
        Phase::HalfOpen => Some(CircuitState {
            generation: stored.generation + 1,
            since: now,
            ..stored
        }),
    }
}

/// The state a call at `now` finds: the stored one, or the one that time
/// made due and that the call must store first.
pub fn due_transition(stored: CircuitState, now: Millis, config: &Config) -> Option<Transition> {
    if !time_can_end(stored) {
        return None;
    }
    let max_half_open = config.half_open.max_duration_ms();
    let to = match stored.phase {
        // A forced state ends closed with a fresh window, whatever its phase.
        _ if stored.forced => {
            if now < stored.until {
                return None;
            }
            stored.next(Phase::Closed, stored.until)
        }
        // Not reached: `time_can_end` said so.
        Phase::Closed => return None,
        Phase::Open => {
            let half_open_at = open_ends_at(stored, config);
            if now < half_open_at {
                return None;
            }
            // No call came during the whole test period: nothing reached the
            // service, and its half-open time is over anyway.
            if now >= half_open_at + max_half_open {
                stored.next(Phase::Closed, half_open_at + max_half_open)
            } else {
                CircuitState {
                    backoff: stored.backoff,
                    ..stored.next(Phase::HalfOpen, half_open_at)
                }
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
    let stored = clamped_to_clock(stored, now, config).unwrap_or(stored);
    due_transition(stored, now, config).map_or(stored, |transition| transition.to)
}

/// The transition an outcome just recorded in `state` calls for, if any.
/// `state` must be current (no transition due at `now`).
#[inline]
pub fn transition_after_outcome(
    state: CircuitState,
    tally: &Tally,
    now: Millis,
    config: &Config,
) -> Option<Transition> {
    // The healthy circuit's every outcome: no rule can reach its threshold
    // (see `only_fast_successes`), decided without a call.
    if state.phase == Phase::Closed && tally.consecutive_failures == 0 && only_fast_successes(&tally.window) {
        return None;
    }
    transition_deciding(state, tally, now, config)
}

/// [`transition_after_outcome`] past the healthy case.
fn transition_deciding(state: CircuitState, tally: &Tally, now: Millis, config: &Config) -> Option<Transition> {
    if state.forced {
        // Forced closed counts its outcomes, but they open nothing; forced
        // open has nothing to decide.
        return None;
    }
    let counts = WindowCounts {
        bands: &config.bands,
        slots: &tally.window,
    };
    let reopen = |with_minimum, level| {
        first_reached(&config.rules, &counts, tally.consecutive_failures, with_minimum).map(|cause| Transition {
            from: state,
            to: state.opened(now, level, config),
            cause: Some(cause),
        })
    };
    match state.phase {
        Phase::Closed => reopen(true, 0),
        Phase::HalfOpen => reopen(false, config.next_backoff(state.backoff)).or_else(|| {
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

/// Milliseconds until an open circuit starts testing the service (or, when
/// forced open, closes).
pub fn open_remaining_ms(state: CircuitState, now: Millis, config: &Config) -> Millis {
    (open_ends_at(state, config) - now).max(0)
}

/// What an operator asks of a circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// No call permitted for this many ms, whatever the outcomes.
    ForceOpen(Millis),
    /// Every call permitted for this many ms; outcomes open nothing.
    ForceClosed(Millis),
    /// Closed with a fresh window, ending any forced state.
    Reset,
}

/// The transition a command makes from `stored` at `now`. It always takes
/// a new generation, so the window starts afresh.
pub fn commanded_transition(stored: CircuitState, command: Command, now: Millis) -> Transition {
    let forced = |phase, duration_ms: Millis| CircuitState {
        until: now + duration_ms,
        forced: true,
        ..stored.next(phase, now)
    };
    Transition {
        from: stored,
        to: match command {
            Command::ForceOpen(duration_ms) => forced(Phase::Open, duration_ms),
            Command::ForceClosed(duration_ms) => forced(Phase::Closed, duration_ms),
            Command::Reset => stored.next(Phase::Closed, now),
        },
        cause: None,
    }
}

/// What a status view says of a circuit at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub phase: Phase,
    pub forced: bool,
    /// When the state began, when known (an unknown circuit has no start).
    pub since: Option<Millis>,
    /// Until when time holds the state: the end of an open or forced state.
    pub until: Option<Millis>,
    /// How long the circuit is open for, or would open for next, at its
    /// backoff level, when known.
    pub open_duration_ms: Option<Millis>,
    pub backoff: u8,
}

fn known(instant: Millis) -> Option<Millis> {
    (instant > 0).then_some(instant)
}

/// The status of a circuit at `now` under `config`: the state the next
/// call would find, changing nothing.
pub fn status(stored: CircuitState, now: Millis, config: &Config) -> Status {
    let state = effective_state(stored, now, config);
    let open_duration_ms = match state.phase {
        Phase::Open if !state.forced => config.open_duration_at(state.backoff),
        Phase::HalfOpen => config.open_duration_at(config.next_backoff(state.backoff)),
        _ => config.open_duration_ms,
    };
    Status {
        phase: state.phase,
        forced: state.forced,
        since: known(state.since),
        until: (state.forced || state.phase == Phase::Open).then(|| open_ends_at(state, config)),
        open_duration_ms: Some(open_duration_ms),
        backoff: state.backoff,
    }
}

/// The status of a circuit at `now` for a reader without its configuration
/// (the listing of a storage): what the stored state says. An open state
/// past its end is half-open (whether its test period is over, only the
/// configuration knows).
pub fn status_without_config(stored: CircuitState, now: Millis) -> Status {
    // A state from a clock ahead, as a breaker would clamp it (see `clamped_to_clock`).
    let ahead = stored.since - (now + CLOCK_AHEAD_TOLERANCE_MS);
    let stored = match stored.phase {
        _ if stored.forced => CircuitState {
            until: stored.until.min(now + THIRTY_DAYS),
            ..stored
        },
        Phase::Open | Phase::HalfOpen if ahead > 0 => CircuitState {
            since: now,
            until: if stored.until > 0 {
                stored.until - (stored.since - now)
            } else {
                0
            },
            ..stored
        },
        _ => stored,
    };
    let state = match stored.phase {
        _ if stored.forced && now >= stored.until => stored.next(Phase::Closed, stored.until),
        Phase::Open if !stored.forced && stored.until > 0 && now >= stored.until => CircuitState {
            backoff: stored.backoff,
            ..stored.next(Phase::HalfOpen, stored.until)
        },
        _ => stored,
    };
    let held = state.forced || state.phase == Phase::Open;
    Status {
        phase: state.phase,
        forced: state.forced,
        since: known(state.since),
        until: held.then_some(state.until).and_then(known),
        open_duration_ms: (state.phase == Phase::Open && !state.forced && state.until > 0 && state.since > 0)
            .then(|| state.until - state.since),
        backoff: state.backoff,
    }
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
            until: since + 5_000,
            ..CircuitState::INITIAL
        }
    }

    #[test]
    fn forced_states_hold_until_their_end_then_close_afresh() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let forced = commanded_transition(open_at(0), Command::ForceOpen(60_000), 1_000).to;
        assert_eq!((forced.phase, forced.forced, forced.generation), (Phase::Open, true, 2));
        assert_eq!(due_transition(forced, 60_999, &config), None);
        assert_eq!(open_remaining_ms(forced, 31_000, &config), 30_000);
        let ended = due_transition(forced, 500_000, &config).unwrap().to;
        assert_eq!(
            ended,
            CircuitState {
                phase: Phase::Closed,
                generation: 3,
                since: 61_000,
                ..CircuitState::INITIAL
            }
        );
        let closed = commanded_transition(CircuitState::INITIAL, Command::ForceClosed(10_000), 5).to;
        let all_failures = Tally {
            window: vec![0, 50].into(),
            generation_outcomes: 50,
            consecutive_failures: 50,
        };
        assert_eq!(transition_after_outcome(closed, &all_failures, 6, &config), None);
        let reset = commanded_transition(forced, Command::Reset, 2_000).to;
        assert_eq!(
            (reset.phase, reset.forced, reset.generation, reset.since),
            (Phase::Closed, false, 3, 2_000)
        );
    }

    #[test]
    fn reopening_from_half_open_backs_off() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap())
            .with_max_open_duration(Some(15.0))
            .unwrap();
        let failure = Tally {
            window: vec![0, 1].into(),
            generation_outcomes: 1,
            consecutive_failures: 1,
        };
        let mut state = open_at(0);
        let mut waits = vec![];
        for _ in 0..4 {
            let half_open = due_transition(state, open_ends_at(state, &config), &config).unwrap().to;
            assert_eq!(half_open.backoff, state.backoff, "half-open carries the level");
            state = transition_after_outcome(half_open, &failure, half_open.since, &config)
                .unwrap()
                .to;
            waits.push(state.until - state.since);
        }
        assert_eq!(waits, [10_000, 15_000, 15_000, 15_000]);
        assert_eq!(status(state, state.since, &config).open_duration_ms, Some(15_000));
        let success = Tally {
            window: vec![1, 0].into(),
            generation_outcomes: 1,
            consecutive_failures: 0,
        };
        let half_open = due_transition(state, state.until, &config).unwrap().to;
        let closed = transition_after_outcome(half_open, &success, state.until, &config)
            .unwrap()
            .to;
        assert_eq!((closed.phase, closed.backoff), (Phase::Closed, 0));
    }

    #[test]
    fn a_reader_without_configuration_sees_the_stored_times() {
        let open = open_at(1_000);
        let status = status_without_config(open, 2_000);
        assert_eq!(
            (status.phase, status.since, status.until),
            (Phase::Open, Some(1_000), Some(6_000))
        );
        assert_eq!(status.open_duration_ms, Some(5_000));
        assert_eq!(status_without_config(open, 6_000).phase, Phase::HalfOpen);
        let forced = commanded_transition(open, Command::ForceClosed(1_000), 2_000).to;
        let status = status_without_config(forced, 2_500);
        assert_eq!(
            (status.phase, status.forced, status.until),
            (Phase::Closed, true, Some(3_000))
        );
        assert!(!status_without_config(forced, 3_000).forced);
        assert_eq!(status_without_config(CircuitState::INITIAL, 5).since, None);
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
                since: 6_000,
                ..CircuitState::INITIAL
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
                since: 25_000,
                ..CircuitState::INITIAL
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
            ..CircuitState::INITIAL
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
                since: 100,
                until: 5_100,
                ..CircuitState::INITIAL
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
            ..CircuitState::INITIAL
        };
        let one_failure = tally(&config, &[Outcome::Failure], 1);
        let transition = transition_after_outcome(half_open, &one_failure, 6_000, &config).unwrap();
        assert_eq!(
            transition.to,
            CircuitState {
                phase: Phase::Open,
                generation: 3,
                since: 6_000,
                until: 11_000,
                ..CircuitState::INITIAL
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
            ..CircuitState::INITIAL
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

    #[test]
    fn states_from_a_clock_ahead_are_bounded_by_the_readers_clock() {
        let config = config(HalfOpenPolicy::permitted_calls(20.0, 1).unwrap());
        let now = 1_000_000;
        // Within the tolerance: taken as it is.
        assert_eq!(
            clamped_to_clock(open_at(now + CLOCK_AHEAD_TOLERANCE_MS), now, &config),
            None
        );
        // An hour ahead: open for its duration from the reader's now, in a new generation.
        let clamped = clamped_to_clock(open_at(now + 3_600_000), now, &config).unwrap();
        assert_eq!(
            (clamped.phase, clamped.since, clamped.until, clamped.generation),
            (Phase::Open, now, now + 5_000, 2)
        );
        assert_eq!(open_remaining_ms(clamped, now, &config), 5_000);
        assert_eq!(effective_state(clamped, now + 5_000, &config).phase, Phase::HalfOpen);
        // At a backoff level, its duration at that level.
        let backed_off = CircuitState {
            backoff: 2,
            ..open_at(now + 3_600_000)
        };
        let clamped = clamped_to_clock(backed_off, now, &config).unwrap();
        assert_eq!(clamped.until - now, config.open_duration_at(2));
        let half_open = CircuitState {
            phase: Phase::HalfOpen,
            ..open_at(now + 60_000)
        };
        assert_eq!(clamped_to_clock(half_open, now, &config).unwrap().since, now);
        // A forced state: at most 30 days from now, whatever its phase.
        let forced = CircuitState {
            forced: true,
            until: now + 100 * THIRTY_DAYS,
            ..open_at(now)
        };
        assert_eq!(clamped_to_clock(forced, now, &config).unwrap().until, now + THIRTY_DAYS);
        let forced_closed = CircuitState {
            phase: Phase::Closed,
            ..forced
        };
        assert_eq!(
            clamped_to_clock(forced_closed, now, &config).unwrap().until,
            now + THIRTY_DAYS
        );
        assert_eq!(
            clamped_to_clock(
                CircuitState {
                    until: now + THIRTY_DAYS,
                    ..forced
                },
                now,
                &config
            ),
            None
        );
        // A closed state is ended by outcomes, not by time: nothing to bound.
        let closed = CircuitState {
            phase: Phase::Closed,
            ..open_at(now + 3_600_000)
        };
        assert_eq!(clamped_to_clock(closed, now, &config), None);
        // A listing shows the same bounds.
        let listed = status_without_config(open_at(now + 3_600_000), now);
        assert_eq!((listed.since, listed.until), (Some(now), Some(now + 5_000)));
        assert_eq!(status_without_config(forced, now).until, Some(now + THIRTY_DAYS));
    }
}
