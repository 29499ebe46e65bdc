//! The parameter types of our classes and interfaces, each refused in
//! PHP's own words ("must be of type Configuration, string given") by the
//! engine's `object_arg!`.

use ext_php_rs::convert::FromZval;
use ext_php_rs::flags::DataType;
use ext_php_rs::types::Zval;

use super::engine::args::{instance_of_named, object_arg, reject};
use super::engine::classes::{
    CIRCUIT_BREAKER_INTERFACE, EVENT_LISTENER_INTERFACE, OUTCOME_CLASSIFIER_INTERFACE, STORAGE_EXCEPTION,
    clock_interface, half_open_policy_interface, opening_rule_interface, ramp_curve_interface, storage_interface,
};
use super::enums::{RejectionReason, State};

pub const PSR_CLOCK_INTERFACE: &str = "Psr\\Clock\\ClockInterface";

object_arg!(
    /// A storage: ours, or one written in PHP (a `KeyValueStoreInterface`,
    /// which extends `StorageInterface`; or, as before that interface, a
    /// `StorageInterface` with its three primitives, which the breaker
    /// checks).
    StorageArg,
    "Zeusi\\CircuitBreaker\\Storage\\StorageInterface",
    storage_interface()
);

object_arg!(
    ListenerArg,
    "Zeusi\\CircuitBreaker\\Event\\EventListenerInterface",
    EVENT_LISTENER_INTERFACE.get()
);

object_arg!(
    /// Our `ClockInterface`, or a PSR-20 `Psr\Clock\ClockInterface` when
    /// that interface is loaded: both have `now(): DateTimeImmutable`.
    ClockArg,
    "Zeusi\\CircuitBreaker\\Clock\\ClockInterface",
    |object| object.instance_of(clock_interface()) || instance_of_named(object, PSR_CLOCK_INTERFACE)
);

object_arg!(
    CurveArg,
    "Zeusi\\CircuitBreaker\\HalfOpen\\RampCurveInterface",
    ramp_curve_interface()
);

object_arg!(
    PolicyArg,
    "Zeusi\\CircuitBreaker\\HalfOpen\\HalfOpenPolicyInterface",
    half_open_policy_interface()
);

object_arg!(
    BreakerArg,
    "Zeusi\\CircuitBreaker\\CircuitBreakerInterface",
    CIRCUIT_BREAKER_INTERFACE.get()
);

object_arg!(
    ClassifierArg,
    "Zeusi\\CircuitBreaker\\Execution\\OutcomeClassifierInterface",
    OUTCOME_CLASSIFIER_INTERFACE.get()
);

object_arg!(
    OpeningRuleArg,
    "Zeusi\\CircuitBreaker\\Opening\\OpeningRuleInterface",
    opening_rule_interface()
);

object_arg!(
    StorageExceptionArg,
    "Zeusi\\CircuitBreaker\\Exception\\StorageException",
    STORAGE_EXCEPTION.get()
);

/// A case of `State`.
pub struct StateArg(pub State);

impl<'a> FromZval<'a> for StateArg {
    const TYPE: DataType = DataType::object("Zeusi\\CircuitBreaker\\State");
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        match zval.object().and(State::from_zval(zval)) {
            Some(state) => Some(Self(state)),
            None => {
                reject(zval);
                None
            }
        }
    }
}

/// A case of `RejectionReason`.
pub struct RejectionReasonArg(pub RejectionReason);

impl<'a> FromZval<'a> for RejectionReasonArg {
    const TYPE: DataType = DataType::object("Zeusi\\CircuitBreaker\\RejectionReason");
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        match zval.object().and(RejectionReason::from_zval(zval)) {
            Some(reason) => Some(Self(reason)),
            None => {
                reject(zval);
                None
            }
        }
    }
}
