//! Parameter types that PHP sees exactly as documented (an interface, a
//! class, `callable`, `string`), each checking the value it is given.

use ext_php_rs::convert::FromZval;
use ext_php_rs::flags::DataType;
use ext_php_rs::types::{ZendClassObject, Zval};

use super::classes::{
    CIRCUIT_BREAKER_INTERFACE, EVENT_LISTENER_INTERFACE, OUTCOME_CLASSIFIER_INTERFACE, clock_interface,
    half_open_policy_interface, ramp_curve_interface, storage_interface,
};
use super::configuration::Configuration;

/// An object argument typed with a class or interface, kept as the zval so
/// that it can be held or called later.
macro_rules! object_arg {
    ($(#[$doc:meta])* $name:ident, $class:literal, $class_entry:expr) => {
        $(#[$doc])*
        pub struct $name<'a>(pub &'a Zval);

        impl<'a> FromZval<'a> for $name<'a> {
            const TYPE: DataType = DataType::object($class);
            fn from_zval(zval: &'a Zval) -> Option<Self> {
                zval.object().filter(|object| object.instance_of($class_entry)).map(|_| Self(zval))
            }
        }
    };
}

object_arg!(
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
    ClockArg,
    "Zeusi\\CircuitBreaker\\Clock\\ClockInterface",
    clock_interface()
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
object_arg!(ThrowableArg, "Throwable", ext_php_rs::zend::ce::throwable());

/// A `Configuration`, with the PHP object kept for its rule objects.
pub struct ConfigurationArg<'a>(pub &'a Zval, pub &'a Configuration);

impl<'a> FromZval<'a> for ConfigurationArg<'a> {
    const TYPE: DataType = DataType::object("Zeusi\\CircuitBreaker\\Configuration");
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        let configuration = ZendClassObject::<Configuration>::from_zend_obj(zval.object()?)?
            .obj
            .as_ref()?;
        Some(Self(zval, configuration))
    }
}

/// A `callable`, kept to be called later.
pub struct CallableArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for CallableArg<'a> {
    const TYPE: DataType = DataType::Callable;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        zval.is_callable().then_some(Self(zval))
    }
}

/// A service name: any PHP string, its bytes as they are.
pub struct ServiceName(pub Vec<u8>);

impl<'a> FromZval<'a> for ServiceName {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        zval.zend_str().map(|name| Self(name.as_bytes().to_vec()))
    }
}
