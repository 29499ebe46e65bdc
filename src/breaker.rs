//! One orchestration of the core over any storage: what a call does, step by
//! step, with the events it emits. Every storage, native or userland, runs
//! through here, so the semantics exist once.

use crate::core::config::Config;
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{
    CircuitState, Command, Phase, Status, Transition, clamped_to_clock, commanded_transition, due_transition,
    effective_state, open_remaining_ms, status, time_can_end, transition_after_outcome,
};
use std::cell::Cell;

use crate::core::rules::OpeningCause;
use crate::core::throttle::ThrottleMemo;
use crate::storage::bulkhead::held::{self, Permit};
use crate::storage::bulkhead::{EntryIndex, Full, Table};
use crate::storage::{CallCounters, KeptCircuit, Notice, OutcomeRecord, RememberedOpen, StorageError};

/// How many times a call retries after losing a race to another process.
/// Each lost race means another process stored a newer state; a few are
/// enough for any real contention, and the bound keeps a call finite.
const MAX_RACES: usize = 4;

/// How long a process trusts what it remembers of an open circuit without
/// asking the storage (see `Storage::remembered_open_until`): time alone
/// ends an open state, but an operator's `reset()` or `forceClosed()` does
/// too, and must reach every worker of the fleet soon. One read per second
/// per worker and open circuit is the price.
pub const TRUST_REMEMBERED_OPEN_MS: Millis = 2_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Opened {
        previous: Phase,
        cause: OpeningCause,
        /// How long it opened for, backoff included.
        open_duration_ms: Millis,
    },
    HalfOpened,
    Closed,
    /// An operator forced the circuit into `phase` for `duration_ms`.
    Forced {
        phase: Phase,
        duration_ms: Millis,
    },
    /// An operator reset the circuit.
    Reset,
    Rejected {
        phase: Phase,
        reason: Rejection,
    },
    StorageFailed(StorageError),
    /// A storage that had failed works again (said once, by a host tier).
    StorageRecovered,
    /// The stored state was written by a clock `ahead_ms` ahead of this
    /// one's, and this call brought it within bounds (said once, by the
    /// process whose compare-and-set won; see `clamped_to_clock`).
    ClockAhead {
        ahead_ms: Millis,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Permission {
    Permitted,
    /// `retry_after_ms` is known while open, not while half-open.
    Rejected {
        phase: Phase,
        retry_after_ms: Option<Millis>,
        reason: Rejection,
    },
}

/// Why a call was not permitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// The circuit's state: open, or half-open with its trial calls taken.
    Circuit,
    /// The circuit's bulkhead: `limit` calls in flight already. Counts as no
    /// outcome of the service.
    Bulkhead { limit: u16 },
    /// Adaptive throttling, refusing this share of the calls (in millionths)
    /// while the service fails too often. Counts as no outcome either.
    Throttled { rate_ppm: u32 },
}

/// What bounds the calls of a circuit beside its state, as its caller keeps
/// them: where its bulkhead counts, and this process's memory of its window
/// for adaptive throttling.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits<'a> {
    pub gate: Option<Gate>,
    pub throttle: Option<&'a Cell<ThrottleMemo>>,
}

/// Where the calls of a circuit take the permits of its bulkhead.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    pub table: &'static Table,
    pub entry: EntryIndex,
}

/// What [`Breaker::record_quietly`] did.
pub enum Quiet {
    /// Counted, and nothing else is due.
    Done,
    /// Counted, with a transition to make: [`Breaker::register_recorded`]
    /// makes it.
    Recorded(Box<Recorded>),
    /// The storage failed: the outcome is dropped, and
    /// [`Event::StorageFailed`] is due.
    Failed(StorageError),
}

/// An outcome counted, and what the storage read back.
pub struct Recorded {
    record: OutcomeRecord,
    state: CircuitState,
    tally: Tally,
}

/// A permission, whether it admits a half-open trial, and the permit of
/// the bulkhead the call holds until it is done (dropping it gives it back).
#[derive(Debug)]
pub struct Admission {
    pub permission: Permission,
    pub trial: bool,
    pub permit: Option<Permit>,
}

/// One circuit under one configuration, as a breaker runs it: every call
/// begins on its circuit (one deadline for all its round trips), then runs
/// the core over it.
pub struct Breaker<'a> {
    pub config: &'a Config,
    pub circuit: &'a KeptCircuit,
    /// Whether the `now` given to each call is read from the storage's own
    /// clock (the system's), which the storage then need not read again.
    pub storage_clock: bool,
}

impl Breaker<'_> {
    /// A call begins at `now` (`None`: one that reads no clock).
    #[inline]
    fn begin(&self, now: Option<Millis>) {
        self.circuit.begin_call(now.filter(|_| self.storage_clock));
    }

    /// Whether a call may go to the service now. A storage failure permits it.
    #[inline]
    pub fn acquire(&self, now: Millis, emit: &mut dyn FnMut(Event)) -> Permission {
        self.acquire_noting_trial(now, emit).0
    }

    /// [`Self::acquire`], telling also whether a permitted call is a trial
    /// of the half-open state (one whose timeout a caller may shorten).
    #[inline]
    pub fn acquire_noting_trial(&self, now: Millis, emit: &mut dyn FnMut(Event)) -> (Permission, bool) {
        self.begin(Some(now));
        let decided = self.decide(now, Limits::default(), &mut None, emit);
        self.pass_notices(emit);
        decided
    }

    /// [`Self::acquire`] of a breaker without bulkhead or throttling, when
    /// the stored state is closed and time cannot end it, as shared memory
    /// tells from the record it finds: the call is permitted and counted,
    /// and no event is due. False, nothing done, when the storage cannot
    /// tell so at once: `acquire` decides then.
    #[inline]
    pub fn acquire_closed(&self, now: Millis) -> bool {
        debug_assert!(self.config.max_concurrent_calls.is_none() && self.config.throttling.is_none());
        self.begin(Some(now));
        self.circuit
            .count_permission_when(|state| state.phase == Phase::Closed && !time_can_end(state))
    }

    /// Whether a call may go to the service now, with the permit of its
    /// bulkhead when the configuration bounds its calls in flight and `gate`
    /// says where. A storage failure permits the call; its bulkhead still
    /// bounds it (the gate is not the storage).
    #[inline]
    pub fn admit(&self, now: Millis, limits: Limits<'_>, emit: &mut dyn FnMut(Event)) -> Admission {
        self.begin(Some(now));
        let mut permit = None;
        let (permission, trial) = self.decide(now, limits, &mut permit, emit);
        self.pass_notices(emit);
        Admission {
            permission,
            trial,
            permit,
        }
    }

    /// What the storage told beside its results, as events.
    fn pass_notices(&self, emit: &mut dyn FnMut(Event)) {
        self.circuit.take_notices(&mut |notice| {
            emit(match notice {
                Notice::StorageFailed(error) => Event::StorageFailed(error),
                Notice::StorageRecovered => Event::StorageRecovered,
            })
        });
    }

    /// The permission and whether it admits a half-open trial; a permitted
    /// call's permit of the bulkhead, when `limits` has a gate, in `permit`.
    fn decide(
        &self,
        now: Millis,
        limits: Limits<'_>,
        permit: &mut Option<Permit>,
        emit: &mut dyn FnMut(Event),
    ) -> (Permission, bool) {
        let (decided, counted) = match self.try_acquire(now, limits, permit, emit) {
            Ok(decided) => (decided, true),
            // The storage failed: nothing to count in. The call is let
            // through, within its bulkhead, which is not the storage; one
            // that failed after the call took its permit (the half-open
            // admission) keeps that one.
            Err(error) => {
                emit(Event::StorageFailed(error));
                let entered = if permit.is_some() {
                    Ok(())
                } else {
                    self.enter(limits.gate, permit)
                };
                match entered {
                    Ok(()) => ((Permission::Permitted, false), false),
                    Err(full) => ((bulkhead_full(Phase::Closed, full), false), false),
                }
            }
        };
        match decided.0 {
            Permission::Permitted if counted => self.circuit.count_permission(true, self.config),
            Permission::Permitted => {}
            Permission::Rejected { phase, reason, .. } => {
                if counted {
                    self.circuit.count_permission(false, self.config);
                }
                emit(Event::Rejected { phase, reason });
            }
        }
        decided
    }

    /// The permission, and whether it admits a half-open trial.
    fn try_acquire(
        &self,
        now: Millis,
        limits: Limits<'_>,
        permit: &mut Option<Permit>,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(Permission, bool), StorageError> {
        if let Some(open) = self
            .circuit
            .remembered_open_until()
            .filter(|open| now < open.until && now < open.recheck_at)
        {
            return Ok((
                Permission::Rejected {
                    phase: Phase::Open,
                    retry_after_ms: Some(open.until - now),
                    reason: Rejection::Circuit,
                },
                false,
            ));
        }
        let stored = self.circuit.load_state()?;
        let state = self.settle(stored, now, emit)?;
        Ok(match state.phase {
            Phase::Closed => {
                // Throttled first: a call refused takes no permit.
                if let Some(rate_ppm) = self.throttled(state, limits.throttle, now) {
                    return Ok((
                        Permission::Rejected {
                            phase: Phase::Closed,
                            retry_after_ms: None,
                            reason: Rejection::Throttled { rate_ppm },
                        },
                        false,
                    ));
                }
                match self.enter(limits.gate, permit) {
                    Ok(()) => (Permission::Permitted, false),
                    Err(full) => (bulkhead_full(Phase::Closed, full), false),
                }
            }
            Phase::Open => {
                let remaining = open_remaining_ms(state, now, self.config);
                let open = RememberedOpen {
                    until: now + remaining,
                    recheck_at: now + TRUST_REMEMBERED_OPEN_MS,
                };
                self.circuit.remember_open_until(Some(open));
                (
                    Permission::Rejected {
                        phase: Phase::Open,
                        retry_after_ms: Some(remaining),
                        reason: Rejection::Circuit,
                    },
                    false,
                )
            }
            Phase::HalfOpen => {
                // The bulkhead first: a call it refuses takes no trial of
                // the half-open state.
                if let Err(full) = self.enter(limits.gate, permit) {
                    return Ok((bulkhead_full(Phase::HalfOpen, full), false));
                }
                let admission = self
                    .circuit
                    .admit_half_open(state, self.config.state_ttl_ms(Phase::HalfOpen))?;
                if self.config.half_open.admits(admission, state.since, now) {
                    (Permission::Permitted, true)
                } else {
                    // Not admitted: its permit goes back at once.
                    *permit = None;
                    (
                        Permission::Rejected {
                            phase: Phase::HalfOpen,
                            retry_after_ms: None,
                            reason: Rejection::Circuit,
                        },
                        false,
                    )
                }
            }
        })
    }

    /// Takes a permit of the bulkhead into `permit`, when the configuration
    /// bounds the calls in flight and `gate` says where.
    #[inline]
    fn enter(&self, gate: Option<Gate>, permit: &mut Option<Permit>) -> Result<(), Full> {
        let Some((gate, limit)) = gate.zip(self.config.max_concurrent_calls) else {
            return Ok(());
        };
        *permit = Some(held::enter(gate.table, gate.entry, limit)?);
        Ok(())
    }

    /// The share of calls adaptive throttling refuses now, in millionths,
    /// when it refuses this call: never while forced or without a memory of
    /// the window.
    fn throttled(&self, state: CircuitState, memo: Option<&Cell<ThrottleMemo>>, now: Millis) -> Option<u32> {
        let (throttling, memo) = (self.config.throttling.as_ref()?, memo?);
        if state.forced {
            return None;
        }
        let mut known = memo.get();
        let rate = known.rate(throttling, now, self.config.window.window_ms(), state.generation);
        let refused = known.refuses(rate);
        memo.set(known);
        refused.then(|| (rate * 1e6).round() as u32)
    }

    /// Counts an outcome for the state current now, and makes the transition
    /// it calls for. A storage failure drops the outcome and says so.
    pub fn register(&self, outcome: Outcome, duration_ms: Option<Millis>, now: Millis, emit: &mut dyn FnMut(Event)) {
        self.register_noting(outcome, duration_ms, now, None, emit);
    }

    /// [`Self::register`], keeping in `throttle` the closed window it read
    /// back: what adaptive throttling decides the next calls from.
    pub fn register_noting(
        &self,
        outcome: Outcome,
        duration_ms: Option<Millis>,
        now: Millis,
        throttle: Option<&Cell<ThrottleMemo>>,
        emit: &mut dyn FnMut(Event),
    ) {
        self.begin(Some(now));
        if let Err(error) = self.try_register(outcome, duration_ms, now, throttle, emit) {
            emit(Event::StorageFailed(error));
        }
        self.pass_notices(emit);
    }

    /// [`Self::register`] of a breaker without throttling, over a storage
    /// that tells nothing beside its results (shared memory), as far as it
    /// goes without an event: the outcome counted, and what is left to do
    /// when the outcome or time calls for a transition.
    #[inline]
    pub fn record_quietly(&self, outcome: Outcome, duration_ms: Option<Millis>, now: Millis) -> Quiet {
        debug_assert!(self.config.throttling.is_none());
        self.begin(Some(now));
        let record = OutcomeRecord::new(self.config, outcome, duration_ms, now);
        match self.circuit.record_outcome(&record) {
            Err(error) => Quiet::Failed(error),
            Ok((state, tally))
                if due_transition(state, now, self.config).is_none()
                    && transition_after_outcome(state, &tally, now, self.config).is_none() =>
            {
                Quiet::Done
            }
            Ok((state, tally)) => Quiet::Recorded(Box::new(Recorded { record, state, tally })),
        }
    }

    /// Goes on from what [`Self::record_quietly`] left, emitting as
    /// [`Self::register`] does.
    pub fn register_recorded(&self, left: Quiet, now: Millis, emit: &mut dyn FnMut(Event)) {
        self.begin(Some(now));
        let done = match left {
            Quiet::Done => Ok(()),
            Quiet::Failed(error) => Err(error),
            Quiet::Recorded(recorded) => self.decide_recorded(*recorded, now, None, emit),
        };
        if let Err(error) = done {
            emit(Event::StorageFailed(error));
        }
        self.pass_notices(emit);
    }

    fn try_register(
        &self,
        outcome: Outcome,
        duration_ms: Option<Millis>,
        now: Millis,
        throttle: Option<&Cell<ThrottleMemo>>,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), StorageError> {
        let record = OutcomeRecord::new(self.config, outcome, duration_ms, now);
        let (state, tally) = self.circuit.record_outcome(&record)?;
        self.decide_recorded(Recorded { record, state, tally }, now, throttle, emit)
    }

    /// The rest of [`Self::register`] once the outcome is counted: the
    /// transition time made due, throttling's memory of the window, the
    /// transition the outcome calls for.
    fn decide_recorded(
        &self,
        recorded: Recorded,
        now: Millis,
        throttle: Option<&Cell<ThrottleMemo>>,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), StorageError> {
        let Recorded {
            record,
            mut state,
            mut tally,
        } = recorded;
        for attempt in 1..=MAX_RACES {
            if due_transition(state, now, self.config).is_some() {
                // Counted in a state that time has ended: make the transition,
                // then count again in the state that is current.
                self.settle(state, now, emit)?;
                if attempt == MAX_RACES {
                    break;
                }
                (state, tally) = self.circuit.record_outcome(&record)?;
                continue;
            }
            if let Some(memo) = throttle.filter(|_| state.phase == Phase::Closed) {
                let mut known = memo.get();
                known.remember(
                    &crate::core::counts::WindowCounts {
                        bands: &self.config.bands,
                        slots: &tally.window,
                    },
                    now,
                    state.generation,
                );
                memo.set(known);
            }
            if let Some(transition) = transition_after_outcome(state, &tally, now, self.config) {
                self.transition_emitting(transition, now, emit)?;
            }
            return Ok(());
        }
        Err(races_lost("the outcome was not counted in a current state"))
    }

    /// The state the next call would find, changing nothing.
    pub fn state(&self, now: Millis) -> Result<Phase, StorageError> {
        self.begin(Some(now));
        let stored = self.circuit.load_state()?;
        Ok(effective_state(stored, now, self.config).phase)
    }

    /// What the next call would find, changing nothing, with the window of
    /// its state as the rules see it (counter values by slot).
    pub fn status(&self, now: Millis) -> Result<(Status, Vec<u64>), StorageError> {
        self.begin(Some(now));
        let stored = self.circuit.load_state()?;
        let state = effective_state(stored, now, self.config);
        let window = self.circuit.read_window(
            state.generation,
            self.config.window,
            self.config.bands.slot_count(),
            now,
        )?;
        Ok((status(stored, now, self.config), window))
    }

    /// The circuit's counters for metrics, when the storage keeps them.
    pub fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.begin(None);
        self.circuit.counters()
    }

    /// Carries out an operator's command: one compare-and-set from the
    /// stored state, whose winner emits the event; a lost race is retried
    /// from the state that won it, since a command overrides any state.
    pub fn command(&self, command: Command, now: Millis, emit: &mut dyn FnMut(Event)) -> Result<(), StorageError> {
        self.begin(Some(now));
        let done = self.try_command(command, now, emit);
        self.pass_notices(emit);
        done
    }

    fn try_command(&self, command: Command, now: Millis, emit: &mut dyn FnMut(Event)) -> Result<(), StorageError> {
        for _ in 0..MAX_RACES {
            let stored = self.circuit.load_state()?;
            let transition = commanded_transition(stored, command, now);
            if self.compare_and_set(&transition, now)? {
                // This process may remember the circuit open: forget it.
                self.circuit.remember_open_until(None);
                emit(match command {
                    Command::ForceOpen(duration_ms) => Event::Forced {
                        phase: Phase::Open,
                        duration_ms,
                    },
                    Command::ForceClosed(duration_ms) => Event::Forced {
                        phase: Phase::Closed,
                        duration_ms,
                    },
                    Command::Reset => Event::Reset,
                });
                return Ok(());
            }
        }
        Err(races_lost("the command was not stored"))
    }

    /// Stores the transitions time made due, and returns the current state.
    #[inline]
    fn settle(
        &self,
        stored: CircuitState,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<CircuitState, StorageError> {
        // Most calls find a state time alone does not change.
        if !time_can_end(stored) {
            return Ok(stored);
        }
        match clamped_to_clock(stored, now, self.config) {
            Some(clamped) => self.settle_clamped(stored, clamped, now, emit),
            None => self.settle_due(stored, now, emit),
        }
    }

    /// Stores `stored` bounded by this process's clock (`clamped`), then
    /// what time made due. The process whose compare-and-set wins says so;
    /// one that loses settles what the winner stored.
    #[cold]
    fn settle_clamped(
        &self,
        stored: CircuitState,
        clamped: CircuitState,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<CircuitState, StorageError> {
        let clamp = Transition {
            from: stored,
            to: clamped,
            cause: None,
        };
        if !self.compare_and_set(&clamp, now)? {
            let stored = self.circuit.load_state()?;
            return self.settle_due(clamped_to_clock(stored, now, self.config).unwrap_or(stored), now, emit);
        }
        emit(Event::ClockAhead {
            ahead_ms: (stored.since - now).max(stored.until - clamped.until),
        });
        self.settle_due(clamped, now, emit)
    }

    fn settle_due(
        &self,
        mut stored: CircuitState,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<CircuitState, StorageError> {
        for _ in 0..MAX_RACES {
            let Some(transition) = due_transition(stored, now, self.config) else {
                return Ok(stored);
            };
            if self.transition_emitting(transition, now, emit)? {
                return Ok(transition.to);
            }
            stored = self.circuit.load_state()?;
        }
        Ok(effective_state(stored, now, self.config))
    }

    /// Compare-and-set of a transition, keeping the new state as long as
    /// it must live; tells whether this process won. No event: see
    /// [`Self::transition_emitting`].
    fn compare_and_set(&self, transition: &Transition, now: Millis) -> Result<bool, StorageError> {
        self.circuit.compare_and_set_state(
            transition.from,
            transition.to,
            self.config.state_ttl_ms_of(&transition.to, now),
        )
    }

    /// Stores a transition made by time or by outcomes: the process that
    /// wins emits its event.
    fn transition_emitting(
        &self,
        transition: Transition,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<bool, StorageError> {
        let won = self.compare_and_set(&transition, now)?;
        let Transition { from, to, cause } = transition;
        if won {
            match (to.phase, cause) {
                (Phase::Open, Some(cause)) => emit(Event::Opened {
                    previous: from.phase,
                    cause,
                    open_duration_ms: self.config.open_duration_at(to.backoff),
                }),
                (Phase::HalfOpen, _) => emit(Event::HalfOpened),
                // The end of a forced closed state leaves the circuit
                // closed: its window starts afresh, nothing else changes.
                _ if from.forced && from.phase == Phase::Closed => {}
                _ => emit(Event::Closed),
            }
        }
        Ok(won)
    }
}

/// The failure of a call that lost [`MAX_RACES`] races in a row: another
/// process stored a newer state each time. `what` says what became of it.
#[cold]
fn races_lost(what: &str) -> StorageError {
    StorageError::Unavailable(format!("the state kept changing: {what} after {MAX_RACES} attempts"))
}

/// The rejection of a call its full bulkhead refused, in `phase`.
fn bulkhead_full(phase: Phase, full: Full) -> Permission {
    Permission::Rejected {
        phase,
        retry_after_ms: None,
        reason: Rejection::Bulkhead { limit: full.limit },
    }
}
