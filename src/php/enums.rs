//! The enums PHP sees (`State`, `Outcome`, `RejectionReason`), each a
//! backed enum mapped to and from the core's own.

use ext_php_rs::prelude::*;

use crate::core::counts::Outcome as CoreOutcome;
use crate::core::machine::Phase;

#[php_enum]
#[php(name = "Zeusi\\CircuitBreaker\\State")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    #[php(value = "closed")]
    Closed,
    #[php(value = "open")]
    Open,
    #[php(value = "half_open")]
    HalfOpen,
}

impl From<Phase> for State {
    fn from(phase: Phase) -> Self {
        match phase {
            Phase::Closed => Self::Closed,
            Phase::Open => Self::Open,
            Phase::HalfOpen => Self::HalfOpen,
        }
    }
}

impl State {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Open => "open",
            Self::HalfOpen => "half-open",
        }
    }
}

#[php_enum]
#[php(name = "Zeusi\\CircuitBreaker\\Outcome")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    #[php(value = "success")]
    Success,
    #[php(value = "failure")]
    Failure,
}

impl From<Outcome> for CoreOutcome {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Success => Self::Success,
            Outcome::Failure => Self::Failure,
        }
    }
}

/// Why a call was not permitted (`CallNotPermittedException::$reason`,
/// `CallRejected::$reason`).
#[php_enum]
#[php(name = "Zeusi\\CircuitBreaker\\RejectionReason")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionReason {
    /// The circuit is open.
    #[php(value = "circuit_open")]
    CircuitOpen,
    /// The circuit is half-open and its trial calls are taken.
    #[php(value = "half_open_trials_taken")]
    HalfOpenTrialsTaken,
    /// The circuit's bulkhead has `maxConcurrentCalls` calls in flight.
    #[php(value = "bulkhead_full")]
    BulkheadFull,
    /// Adaptive throttling refuses a share of the calls while the service
    /// fails too often.
    #[php(value = "throttled")]
    Throttled,
}

impl RejectionReason {
    pub fn of(phase: Phase, rejection: crate::breaker::Rejection) -> Self {
        match (rejection, phase) {
            (crate::breaker::Rejection::Bulkhead { .. }, _) => Self::BulkheadFull,
            (crate::breaker::Rejection::Throttled { .. }, _) => Self::Throttled,
            (crate::breaker::Rejection::Circuit, Phase::HalfOpen) => Self::HalfOpenTrialsTaken,
            (crate::breaker::Rejection::Circuit, _) => Self::CircuitOpen,
        }
    }

    /// The state a rejection for this reason can be made in.
    pub fn allows(self, state: State) -> bool {
        match self {
            Self::CircuitOpen => state == State::Open,
            Self::HalfOpenTrialsTaken => state == State::HalfOpen,
            Self::BulkheadFull => state != State::Open,
            Self::Throttled => state == State::Closed,
        }
    }
}

impl From<State> for Phase {
    fn from(state: State) -> Self {
        match state {
            State::Closed => Self::Closed,
            State::Open => Self::Open,
            State::HalfOpen => Self::HalfOpen,
        }
    }
}
