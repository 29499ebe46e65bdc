//! One orchestration of the core over any storage: what a call does, step by
//! step, with the events it emits. Every storage, native or userland, runs
//! through here, so the semantics exist once.

use crate::core::config::Config;
use crate::core::counts::Outcome;
use crate::core::duration::Millis;
use crate::core::machine::{
    CircuitState, Phase, Transition, due_transition, effective_state, open_remaining_ms, transition_after_outcome,
};
use crate::core::rules::OpeningCause;
use crate::storage::{OutcomeRecord, Storage, StorageError};

/// How many times a call retries after losing a race to another process.
/// Each lost race means another process stored a newer state; a few are
/// enough for any real contention, and the bound keeps a call finite.
const MAX_RACES: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Opened { previous: Phase, cause: OpeningCause },
    HalfOpened,
    Closed,
    Rejected { phase: Phase },
    StorageFailed(StorageError),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Permission {
    Permitted,
    /// `retry_after_ms` is known while open, not while half-open.
    Rejected {
        phase: Phase,
        retry_after_ms: Option<Millis>,
    },
}

pub struct Breaker<'a, S: Storage + ?Sized> {
    pub service: &'a [u8],
    pub config: &'a Config,
    pub storage: &'a S,
}

impl<S: Storage + ?Sized> Breaker<'_, S> {
    /// Whether a call may go to the service now. A storage failure permits it.
    pub fn acquire(&self, now: Millis, emit: &mut dyn FnMut(Event)) -> Permission {
        match self.try_acquire(now, emit) {
            Ok(Permission::Permitted) => Permission::Permitted,
            Ok(rejected @ Permission::Rejected { phase, .. }) => {
                emit(Event::Rejected { phase });
                rejected
            }
            Err(error) => {
                emit(Event::StorageFailed(error));
                Permission::Permitted
            }
        }
    }

    fn try_acquire(&self, now: Millis, emit: &mut dyn FnMut(Event)) -> Result<Permission, StorageError> {
        if let Some(until) = self
            .storage
            .remembered_open_until(self.service)
            .filter(|&until| now < until)
        {
            return Ok(Permission::Rejected {
                phase: Phase::Open,
                retry_after_ms: Some(until - now),
            });
        }
        let stored = self.storage.load_state(self.service)?;
        let state = self.settle(stored, now, emit)?;
        Ok(match state.phase {
            Phase::Closed => Permission::Permitted,
            Phase::Open => {
                let remaining = open_remaining_ms(state, now, self.config);
                self.storage.remember_open_until(self.service, Some(now + remaining));
                Permission::Rejected {
                    phase: Phase::Open,
                    retry_after_ms: Some(remaining),
                }
            }
            Phase::HalfOpen => {
                let admission =
                    self.storage
                        .admit_half_open(self.service, state, self.config.state_ttl_ms(Phase::HalfOpen))?;
                if self.config.half_open.admits(admission, state.since, now) {
                    Permission::Permitted
                } else {
                    Permission::Rejected {
                        phase: Phase::HalfOpen,
                        retry_after_ms: None,
                    }
                }
            }
        })
    }

    /// Counts an outcome for the state current now, and makes the transition
    /// it calls for. A storage failure drops the outcome and says so.
    pub fn register(&self, outcome: Outcome, duration_ms: Option<Millis>, now: Millis, emit: &mut dyn FnMut(Event)) {
        if let Err(error) = self.try_register(outcome, duration_ms, now, emit) {
            emit(Event::StorageFailed(error));
        }
    }

    fn try_register(
        &self,
        outcome: Outcome,
        duration_ms: Option<Millis>,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), StorageError> {
        let record = OutcomeRecord::new(self.config, outcome, duration_ms, now);
        for _ in 0..MAX_RACES {
            let (state, tally) = self.storage.record_outcome(self.service, &record)?;
            if due_transition(state, now, self.config).is_some() {
                // Counted in a state that time has ended: make the transition,
                // then count again in the state that is current.
                self.settle(state, now, emit)?;
                continue;
            }
            if let Some(transition) = transition_after_outcome(state, &tally, now, self.config) {
                self.store(transition, emit)?;
            }
            return Ok(());
        }
        Ok(())
    }

    /// The state the next call would find, changing nothing.
    pub fn state(&self, now: Millis) -> Result<Phase, StorageError> {
        let stored = self.storage.load_state(self.service)?;
        Ok(effective_state(stored, now, self.config).phase)
    }

    /// Stores the transitions time made due, and returns the current state.
    fn settle(
        &self,
        mut stored: CircuitState,
        now: Millis,
        emit: &mut dyn FnMut(Event),
    ) -> Result<CircuitState, StorageError> {
        for _ in 0..MAX_RACES {
            let Some(transition) = due_transition(stored, now, self.config) else {
                return Ok(stored);
            };
            if self.store(transition, emit)? {
                return Ok(transition.to);
            }
            stored = self.storage.load_state(self.service)?;
        }
        Ok(effective_state(stored, now, self.config))
    }

    /// Compare-and-set of a transition: the process that wins emits its event.
    fn store(&self, transition: Transition, emit: &mut dyn FnMut(Event)) -> Result<bool, StorageError> {
        let won = self.storage.compare_and_set_state(
            self.service,
            transition.from,
            transition.to,
            self.config.state_ttl_ms(transition.to.phase),
        )?;
        if won {
            emit(match (transition.to.phase, transition.cause) {
                (Phase::Open, Some(cause)) => Event::Opened {
                    previous: transition.from.phase,
                    cause,
                },
                (Phase::HalfOpen, _) => Event::HalfOpened,
                _ => Event::Closed,
            });
        }
        Ok(won)
    }
}
