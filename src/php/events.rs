//! Events, and their delivery to the listener.

use ext_php_rs::convert::IntoZval;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, Zval};
use ext_php_rs::zend::ExecutorGlobals;

use super::engine::args::{Float, Int, ServiceName, object_arg, value_error};
use super::engine::callback::{CallError, call_method};
use super::engine::classes::event_interface;
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::handlers::native;
use super::engine::readonly::{ReadOnlyProperties, Type, read_only};
use super::engine::reentry::refuse_reconstruction;
use super::engine::typed::Bytes;
use super::enums::{RejectionReason, State};
use super::params::{OpeningRuleArg, RejectionReasonArg, StateArg, StorageExceptionArg};
use crate::breaker::Rejection;
use crate::core::duration::format_float;

macro_rules! event_class {
    ($rust:ident, $php:literal $(, $field:ident : $ty:ty)*) => {
        #[php_class]
        #[php(name = $php)]
        #[php(implements(ce = event_interface, stub = "\\Zeusi\\CircuitBreaker\\Event\\EventInterface"))]
        pub struct $rust {
            /// The breaker's name, byte for byte (a name need not be UTF-8).
            service: Vec<u8>,
            time: f64,
            $(pub(super) $field: $ty,)*
        }
    };
}

event_class!(CircuitOpened, "Zeusi\\CircuitBreaker\\Event\\CircuitOpened", previous_state: State, opening_cause: Zval, open_duration: f64);
event_class!(CircuitHalfOpened, "Zeusi\\CircuitBreaker\\Event\\CircuitHalfOpened");
event_class!(CircuitClosed, "Zeusi\\CircuitBreaker\\Event\\CircuitClosed");
event_class!(CallRejected, "Zeusi\\CircuitBreaker\\Event\\CallRejected", state: State, reason: RejectionReason);
event_class!(StorageFailed, "Zeusi\\CircuitBreaker\\Event\\StorageFailed", exception: Zval);
event_class!(CircuitForced, "Zeusi\\CircuitBreaker\\Event\\CircuitForced", state: State, duration: f64);
event_class!(CircuitReset, "Zeusi\\CircuitBreaker\\Event\\CircuitReset");
event_class!(StorageRecovered, "Zeusi\\CircuitBreaker\\Event\\StorageRecovered");

#[php_impl]
impl CircuitOpened {
    pub fn __construct(
        service: ServiceName,
        time: Float,
        previousState: StateArg,
        openingCause: OpeningCauseArg<'_>,
        openDuration: Float,
    ) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
            previous_state: one_of(
                "previousState",
                previousState,
                [State::Closed, State::HalfOpen],
                "the state it opened from",
            )?,
            opening_cause: openingCause.0.shallow_clone(),
            open_duration: checked_seconds("openDuration", openDuration)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
    #[php(getter)]
    pub fn get_previous_state(&self) -> State {
        self.previous_state
    }
    /// An `OpeningCause`.
    #[php(getter)]
    pub fn get_opening_cause(&self) -> Zval {
        self.opening_cause.shallow_clone()
    }
    /// The seconds it opened for, backoff included.
    #[php(getter)]
    pub fn get_open_duration(&self) -> f64 {
        self.open_duration
    }
}

#[php_impl]
impl CircuitForced {
    pub fn __construct(service: ServiceName, time: Float, state: StateArg, duration: Float) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
            state: one_of("state", state, [State::Open, State::Closed], "the state forced")?,
            duration: checked_seconds("duration", duration)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
    /// `State::Open` or `State::Closed`.
    #[php(getter)]
    pub fn get_state(&self) -> State {
        self.state
    }
    /// The seconds the state is forced for.
    #[php(getter)]
    pub fn get_duration(&self) -> f64 {
        self.duration
    }
}

#[php_impl]
impl CircuitReset {
    pub fn __construct(service: ServiceName, time: Float) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
}

/// A storage that had failed works again: a `FleetStorage` host back on
/// its fleet store (once per host, as its `StorageFailed`).
#[php_impl]
impl StorageRecovered {
    pub fn __construct(service: ServiceName, time: Float) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
}

#[php_impl]
impl CircuitHalfOpened {
    pub fn __construct(service: ServiceName, time: Float) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
}

#[php_impl]
impl CircuitClosed {
    pub fn __construct(service: ServiceName, time: Float) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
}

#[php_impl]
impl CallRejected {
    /// Without a `reason`, the one of the state: an open circuit, or a
    /// half-open one whose trial calls are taken.
    #[php(optional = reason)]
    pub fn __construct(
        service: ServiceName,
        time: Float,
        state: StateArg,
        reason: Option<RejectionReasonArg>,
    ) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        let (state, reason) = match reason {
            None => {
                let state = one_of(
                    "state",
                    state,
                    [State::Open, State::HalfOpen],
                    "the state that rejected the call",
                )?;
                (state, RejectionReason::of(state.into(), Rejection::Circuit))
            }
            Some(RejectionReasonArg(reason)) if reason.allows(state.0) => (state.0, reason),
            Some(RejectionReasonArg(reason)) => {
                return Err(value_error(
                    "state",
                    &format!(
                        "a state in which a call is rejected for {}, {} given",
                        reason_name(reason),
                        case_name(state.0)
                    ),
                ));
            }
        };
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
            state,
            reason,
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
    #[php(getter)]
    pub fn get_state(&self) -> State {
        self.state
    }
    #[php(getter)]
    pub fn get_reason(&self) -> RejectionReason {
        self.reason
    }
}

/// A `RejectionReason` case as PHP code names it.
fn reason_name(reason: RejectionReason) -> &'static str {
    match reason {
        RejectionReason::CircuitOpen => "RejectionReason::CircuitOpen",
        RejectionReason::HalfOpenTrialsTaken => "RejectionReason::HalfOpenTrialsTaken",
        RejectionReason::BulkheadFull => "RejectionReason::BulkheadFull",
        RejectionReason::Throttled => "RejectionReason::Throttled",
    }
}

#[php_impl]
impl StorageFailed {
    pub fn __construct(service: ServiceName, time: Float, exception: StorageExceptionArg<'_>) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            service: service_of(service),
            time: checked_time(time)?,
            exception: exception.0.shallow_clone(),
        })
    }
    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }
    pub fn get_time(&self) -> f64 {
        self.time
    }
    /// A `StorageException`.
    #[php(getter)]
    pub fn get_exception(&self) -> Zval {
        self.exception.shallow_clone()
    }
}

/// Why a circuit opened: the rule as configured and the counts that reached
/// its threshold.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Opening\\OpeningCause")]
pub struct OpeningCause {
    pub(super) opening_rule: Zval,
    matching_outcomes: i64,
    evaluated_outcomes: i64,
}

#[php_impl]
impl OpeningCause {
    pub fn __construct(
        openingRule: OpeningRuleArg<'_>,
        matchingOutcomes: Int,
        evaluatedOutcomes: Int,
    ) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        if matchingOutcomes.0 < 0 {
            return Err(value_error(
                "matchingOutcomes",
                &format!("at least 0, {} given", matchingOutcomes.0),
            ));
        }
        if evaluatedOutcomes.0 < matchingOutcomes.0 {
            return Err(value_error(
                "evaluatedOutcomes",
                &format!(
                    "at least $matchingOutcomes ({}), {} given",
                    matchingOutcomes.0, evaluatedOutcomes.0
                ),
            ));
        }
        Ok(Self {
            opening_rule: openingRule.0.shallow_clone(),
            matching_outcomes: matchingOutcomes.0,
            evaluated_outcomes: evaluatedOutcomes.0,
        })
    }
    /// An `OpeningRuleInterface`.
    #[php(getter)]
    pub fn get_opening_rule(&self) -> Zval {
        self.opening_rule.shallow_clone()
    }
    #[php(getter)]
    pub fn get_matching_outcomes(&self) -> i64 {
        self.matching_outcomes
    }
    #[php(getter)]
    pub fn get_evaluated_outcomes(&self) -> i64 {
        self.evaluated_outcomes
    }
}

// The constructors let a user build an event from its properties, to test
// a listener of their own; the breaker builds its events without them
// (`PhpEvent::into_object`).

fn service_of(service: ServiceName) -> Vec<u8> {
    service.0
}

/// The `$time` of an event: the breaker's clock, in seconds.
fn checked_time(time: Float) -> PhpResult<f64> {
    if time.0.is_finite() {
        return Ok(time.0);
    }
    Err(value_error(
        "time",
        &format!(
            "a finite number of seconds since the epoch, {} given",
            format_float(time.0)
        ),
    ))
}

/// A duration of an event, in seconds: finite and above 0.
fn checked_seconds(parameter: &str, seconds: Float) -> PhpResult<f64> {
    if seconds.0.is_finite() && seconds.0 > 0.0 {
        return Ok(seconds.0);
    }
    Err(value_error(
        parameter,
        &format!("a finite number of seconds above 0, {} given", format_float(seconds.0)),
    ))
}

fn case_name(state: State) -> &'static str {
    match state {
        State::Closed => "State::Closed",
        State::Open => "State::Open",
        State::HalfOpen => "State::HalfOpen",
    }
}

/// A state among the two an event can carry.
fn one_of(parameter: &str, state: StateArg, allowed: [State; 2], meaning: &str) -> PhpResult<State> {
    if allowed.contains(&state.0) {
        return Ok(state.0);
    }
    Err(value_error(
        parameter,
        &format!(
            "{} or {} ({meaning}), {} given",
            case_name(allowed[0]),
            case_name(allowed[1]),
            case_name(state.0)
        ),
    ))
}

/// An event ready for the listener.
pub enum PhpEvent {
    Opened {
        previous: State,
        rule: Zval,
        matching: u64,
        evaluated: u64,
        open_duration: f64,
    },
    HalfOpened,
    Forced {
        state: State,
        duration: f64,
    },
    Reset,
    Closed,
    Rejected {
        state: State,
        reason: RejectionReason,
    },
    StorageFailed {
        exception: Zval,
    },
    StorageRecovered,
}

fn object_of<T: ext_php_rs::class::RegisteredClass>(value: T) -> Zval {
    ZendClassObject::new(value).into_zval(false).unwrap_or_default()
}

impl PhpEvent {
    fn into_object(self, service: Vec<u8>, time: f64) -> Zval {
        match self {
            Self::Opened {
                previous,
                rule,
                matching,
                evaluated,
                open_duration,
            } => {
                let cause = object_of(OpeningCause {
                    opening_rule: rule,
                    matching_outcomes: matching as i64,
                    evaluated_outcomes: evaluated as i64,
                });
                object_of(CircuitOpened {
                    service,
                    time,
                    previous_state: previous,
                    opening_cause: cause,
                    open_duration,
                })
            }
            Self::HalfOpened => object_of(CircuitHalfOpened { service, time }),
            Self::Forced { state, duration } => object_of(CircuitForced {
                service,
                time,
                state,
                duration,
            }),
            Self::Reset => object_of(CircuitReset { service, time }),
            Self::Closed => object_of(CircuitClosed { service, time }),
            Self::Rejected { state, reason } => object_of(CallRejected {
                service,
                time,
                state,
                reason,
            }),
            Self::StorageFailed { exception } => object_of(StorageFailed {
                service,
                time,
                exception,
            }),
            Self::StorageRecovered => object_of(StorageRecovered { service, time }),
        }
    }
}

/// Hands an event to the listener. A listener that throws never breaks the
/// call it observes: its exception is dropped here. A listener that ends the
/// script (`exit()`, a fatal error) ends it: the caller's own exception goes
/// with it.
pub fn deliver(listener: &Zval, event: PhpEvent, service: &[u8], time: f64) {
    let Some(object) = listener.object() else {
        return;
    };
    // Calls into PHP are skipped while an exception is pending (the
    // caller's own, which CallExecutor rethrows): keep it aside meanwhile.
    let pending = ExecutorGlobals::take_exception();
    let event = event.into_object(service.to_vec(), time);
    match call_method(object, "handleEvent", vec![&event]) {
        Err(CallError::Ending(_)) => return,
        Err(CallError::Threw(_)) => {
            let thrown = ExecutorGlobals::take_exception();
            super::log::listener_threw(&String::from_utf8_lossy(service), || match &thrown {
                Some(exception) => {
                    let class = exception.get_class_name().unwrap_or_else(|_| "an exception".to_owned());
                    let message = call_method(exception, "getMessage", vec![])
                        .ok()
                        .and_then(|message| message.string())
                        .unwrap_or_default();
                    format!("{class}: {message}")
                }
                None => "an exception".to_owned(),
            });
            drop(thrown);
        }
        Ok(_) | Err(CallError::Pending | CallError::NotCallable(_)) => {}
    }
    if let Some(pending) = pending {
        let _ = ext_php_rs::exception::throw_object(pending.into_zval(false).unwrap_or_default());
    }
}

impl HoldsPhpValues for OpeningCause {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.opening_rule);
    }
}

impl HoldsPhpValues for CircuitOpened {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.opening_cause);
    }
}

impl HoldsPhpValues for StorageFailed {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.exception);
    }
}

read_only!(
    OpeningCause,
    [
        (
            "openingRule",
            Type::Object("Zeusi\\CircuitBreaker\\Opening\\OpeningRuleInterface")
        ),
        ("matchingOutcomes", Type::Int),
        ("evaluatedOutcomes", Type::Int),
    ]
);

read_only!(
    CircuitOpened,
    [
        ("previousState", Type::STATE),
        (
            "openingCause",
            Type::Object("Zeusi\\CircuitBreaker\\Opening\\OpeningCause")
        ),
        ("openDuration", Type::Float),
    ]
);

read_only!(
    CallRejected,
    [
        ("state", Type::STATE),
        ("reason", Type::Object("Zeusi\\CircuitBreaker\\RejectionReason"))
    ]
);

read_only!(CircuitForced, [("state", Type::STATE), ("duration", Type::Float)]);

read_only!(
    StorageFailed,
    [(
        "exception",
        Type::Object("Zeusi\\CircuitBreaker\\Exception\\StorageException")
    )]
);

object_arg!(
    OpeningCauseArg,
    "Zeusi\\CircuitBreaker\\Opening\\OpeningCause",
    |object| native::<OpeningCause>(object).is_some()
);
