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
