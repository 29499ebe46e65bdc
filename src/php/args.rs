//! Parameter types that PHP sees exactly as documented (an interface, a
//! class, `callable`, `int`, `float`, `string`), each taking the value it is
//! given as PHP takes it for a parameter of an internal function: scalars
//! coerced by the engine's own rules unless the caller declared
//! `strict_types`, and a `TypeError` worded by the engine otherwise
//! ("C::m(): Argument #2 ($configuration) must be of type Configuration,
//! string given").
//!
//! ext-php-rs extracts every argument with `FromZval` and throws its own
//! "Invalid value given" when that fails, unless an exception is already
//! pending: so each type here throws PHP's error itself, then fails.

use std::ffi::{CStr, c_char};

use ext_php_rs::convert::FromZval;
use ext_php_rs::ffi::{zend_execute_data, zend_internal_arg_info, zend_long, zend_string, zend_type, zval};
use ext_php_rs::flags::DataType;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecutorGlobals};

use super::classes::{
    CIRCUIT_BREAKER_INTERFACE, EVENT_LISTENER_INTERFACE, OUTCOME_CLASSIFIER_INTERFACE, STORAGE_EXCEPTION,
    clock_interface, half_open_policy_interface, opening_rule_interface, ramp_curve_interface, storage_interface,
};
use super::configuration::Configuration;
use super::enums::{RejectionReason, State};
use super::events::OpeningCause;

// The engine's argument parsing, exported by every PHP 8.1+ binary. The
// `_slow` variants are what `Z_PARAM_LONG` & co. call for a value that is
// not already of the declared type: they honour the caller's
// `strict_types` (`ZEND_ARG_USES_STRICT_TYPES()`) and, in coercive mode,
// coerce as PHP does, with its deprecations ("Implicit conversion from
// float", "Passing null to parameter"). `ZEND_FASTCALL` is empty on 64-bit
// targets, so these are plain C functions.
unsafe extern "C" {
    fn zend_parse_arg_long_slow(arg: *mut zval, dest: *mut zend_long, arg_num: u32) -> bool;
    fn zend_parse_arg_double_slow(arg: *mut zval, dest: *mut f64, arg_num: u32) -> bool;
    fn zend_parse_arg_str_slow(arg: *mut zval, dest: *mut *mut zend_string, arg_num: u32) -> bool;
    fn zend_argument_type_error(arg_num: u32, format: *const c_char, ...);
    fn zend_argument_error(error_ce: *mut ext_php_rs::ffi::zend_class_entry, arg_num: u32, format: *const c_char, ...);
    fn zend_zval_type_name(arg: *const zval) -> *const c_char;
    fn zend_type_to_string(ty: zend_type) -> *mut zend_string;
    fn zend_is_callable_ex(
        callable: *mut zval,
        object: *mut ext_php_rs::ffi::zend_object,
        check_flags: u32,
        callable_name: *mut *mut zend_string,
        cache: *mut std::ffi::c_void,
        error: *mut *mut c_char,
    ) -> bool;
    fn zend_wrong_callback_error(arg_num: u32, error: *mut c_char);
    fn zend_wrong_callback_or_null_error(arg_num: u32, error: *mut c_char);
    fn get_active_function_or_method_name() -> *mut zend_string;
}

/// `ZEND_FETCH_CLASS_NO_AUTOLOAD`: an interface that is not loaded cannot be
/// implemented by the object at hand, so it is never worth autoloading.
const FETCH_CLASS_NO_AUTOLOAD: u32 = 0x80;

/// `ZEND_CALL_FRAME_SLOT`: where the arguments start in a call frame, in
/// zvals (the frame header rounded up to whole zvals).
pub(crate) const CALL_FRAME_SLOT: usize =
    std::mem::size_of::<zend_execute_data>().div_ceil(std::mem::size_of::<zval>());

/// An argument of the internal function that is running: its number (from
/// 1) and its declared type.
struct Argument {
    number: u32,
    info: &'static zend_internal_arg_info,
}

/// The internal function that is running, with its call frame.
fn running_internal_function() -> Option<(&'static zend_execute_data, &'static ext_php_rs::ffi::zend_function)> {
    // SAFETY: the executor's current frame is valid while PHP code or an
    // internal function runs; a null pointer (no frame) reads as None.
    // Read without `ExecutorGlobals::get()`, whose lock costs more than
    // the rest of this, made for every argument.
    // SAFETY: as above; the executor globals live as long as the
    // process, and nothing writes them while our function runs.
    let frame = unsafe {
        (*ext_php_rs::ffi::ext_php_rs_executor_globals())
            .current_execute_data
            .as_ref()
    }?;
    // SAFETY: a running frame has its function set.
    let function = unsafe { frame.func.as_ref() }?;
    // SAFETY: every member of the `zend_function` union starts with
    // `common`.
    let common = unsafe { &function.common };
    if u32::from(common.type_) != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION || common.arg_info.is_null() {
        return None;
    }
    Some((frame, function))
}

/// The `common` member of a function, which every member of the union starts with.
fn common_of(function: &ext_php_rs::ffi::zend_function) -> (u32, *mut ext_php_rs::ffi::zend_arg_info) {
    // SAFETY: every member of the `zend_function` union starts with `common`.
    let common = unsafe { &function.common };
    (common.num_args, common.arg_info)
}

impl Argument {
    /// The argument `value` is, when it is one of the running internal
    /// function's arguments (ext-php-rs hands `FromZval` the zval in the call
    /// frame itself); `None` for any other value.
    fn of(value: &Zval) -> Option<Self> {
        let (frame, function) = running_internal_function()?;
        let (num_args, _) = common_of(function);
        // SAFETY: `u2.num_args` is the member set for a call frame.
        let passed = unsafe { frame.This.u2.num_args } as usize;
        let first = std::ptr::from_ref(frame).cast::<zval>().wrapping_add(CALL_FRAME_SLOT);
        let offset = (std::ptr::from_ref(value).cast::<zval>() as isize).wrapping_sub(first as isize);
        let size = std::mem::size_of::<zval>() as isize;
        if offset < 0 || offset % size != 0 {
            return None;
        }
        let index = (offset / size) as usize;
        if index >= passed || index >= num_args as usize {
            return None;
        }
        Self::at(function, index)
    }

    /// The parameter of the running internal function called `name`.
    fn named(name: &str) -> Option<Self> {
        let (_, function) = running_internal_function()?;
        let (num_args, _) = common_of(function);
        (0..num_args as usize).find_map(|index| {
            let argument = Self::at(function, index)?;
            // SAFETY: an internal function's argument names are static,
            // NUL-terminated C strings (or null).
            let found = !argument.info.name.is_null()
                && unsafe { CStr::from_ptr(argument.info.name) }.to_bytes() == name.as_bytes();
            found.then_some(argument)
        })
    }

    fn at(function: &'static ext_php_rs::ffi::zend_function, index: usize) -> Option<Self> {
        let (_, arg_info) = common_of(function);
        // SAFETY: an internal function's `arg_info` is an array of
        // `num_args` `zend_internal_arg_info` (the same layout as
        // `zend_arg_info`), living as long as the function; the callers
        // keep `index` below `num_args`.
        let info = unsafe { &*arg_info.cast::<zend_internal_arg_info>().add(index) };
        Some(Self {
            number: index as u32 + 1,
            info,
        })
    }

    fn nullable(&self) -> bool {
        self.info.type_.type_mask & ext_php_rs::ffi::_ZEND_TYPE_NULLABLE_BIT != 0
    }

    /// Throws PHP's `TypeError` for `value`, unless an exception (a
    /// deprecation turned into one, a throwing `__toString()`) is already on
    /// its way, as `zend_wrong_parameter_error` does.
    fn type_error(&self, value: &Zval) {
        if ExecutorGlobals::has_exception() {
            return;
        }
        if let Some(class) = super::engine::unconstructed::unconstructed_class(value) {
            let message =
                std::ffi::CString::new(super::engine::unconstructed::not_constructed(&class).replace('\0', ""))
                    .unwrap_or_default();
            // SAFETY: PHP's `Error` class, and a NUL-terminated message passed through "%s".
            unsafe {
                zend_argument_error(
                    std::ptr::from_ref(ext_php_rs::zend::ce::error()).cast_mut(),
                    self.number,
                    c"%s".as_ptr(),
                    message.as_ptr(),
                );
            }
            return;
        }
        // SAFETY: the type of an argument of a registered function; the
        // string returned is ours to release.
        let expected = unsafe { zend_type_to_string(self.info.type_) };
        let given = given_name(value);
        // SAFETY: `given` is a static or class-name string that outlives
        // this call; `expected`, when not null, is a live zend_string,
        // NUL-terminated as every zend_string.
        unsafe {
            let expected_text = expected
                .as_ref()
                .map_or(c"mixed".as_ptr(), |expected| expected.val.as_ptr());
            zend_argument_type_error(
                self.number,
                c"must be of type %s, %s given".as_ptr(),
                expected_text,
                given,
            );
            if !expected.is_null() {
                ext_php_rs::ffi::ext_php_rs_zend_string_release(expected);
            }
        }
    }
}

/// Whether PHP names a bool "true" or "false" in its type errors, as
/// `zend_zval_value_name()` does since PHP 8.3 ("must be of type int, true
/// given"), instead of "bool". Known when the extension is built: ext-php-rs
/// gives this crate no version cfg, but its bindings carry the module API
/// number of the PHP they were made from (8.3's is 20230831), and PHP 8.2
/// has no `zend_zval_value_name` to link against.
const BOOLS_BY_VALUE: bool = ext_php_rs::ffi::ZEND_MODULE_API_NO >= 20_230_831;

/// The type of `value` as the engine's type errors name it ("string",
/// "int", a class name; "true" or "false" from PHP 8.3 on), static or
/// alive as long as the value.
fn given_name(value: &Zval) -> *const c_char {
    if BOOLS_BY_VALUE && let Some(flag) = value.bool() {
        return if flag { c"true" } else { c"false" }.as_ptr();
    }
    // SAFETY: `zend_zval_type_name` returns a static string, or the name of
    // the value's class, alive as long as the value.
    unsafe { zend_zval_type_name(std::ptr::from_ref(value).cast()) }
}

/// The type of `value` as PHP's messages name it ("string", "int",
/// a class name; "true" or "false" from PHP 8.3 on).
pub fn type_name(value: &Zval) -> String {
    // SAFETY: `given_name` returns a NUL-terminated string alive as long as
    // the value.
    unsafe { CStr::from_ptr(given_name(value)) }
        .to_string_lossy()
        .into_owned()
}

/// PHP's `ValueError` for the argument `parameter` of the running internal
/// function, worded as the engine's `zend_argument_value_error()`:
/// "C::m(): Argument #1 ($duration) must be ...".
pub fn value_error(parameter: &str, must: &str) -> ext_php_rs::exception::PhpException {
    let message = match (Argument::named(parameter), running_function_name()) {
        (Some(argument), Some(function)) => {
            format!(
                "{function}(): Argument #{} (${parameter}) must be {must}",
                argument.number
            )
        }
        _ => format!("${parameter} must be {must}"),
    };
    super::error::value_error(message)
}

/// `Class::method` (or `function`) of the running function, as the
/// engine's messages name it.
fn running_function_name() -> Option<String> {
    // SAFETY: called while a function runs; the string returned is ours to
    // release.
    let name = unsafe { get_active_function_or_method_name() };
    // SAFETY: a live zend_string, released right after it is copied.
    unsafe {
        let text = name.cast::<ZendStr>().as_ref()?.as_str().ok().map(str::to_owned);
        ext_php_rs::ffi::ext_php_rs_zend_string_release(name);
        text
    }
}

/// A value of another type than the one declared: PHP's `TypeError`, unless
/// it is the null of a nullable parameter (taken by `Option<T>`).
fn reject(value: &Zval) {
    if let Some(argument) = Argument::of(value)
        && !(value.is_null() && argument.nullable())
    {
        argument.type_error(value);
    }
}

/// Converts a scalar argument as the engine does (`parse` is one of the
/// `zend_parse_arg_*_slow`), on a copy of the value so the caller's frame is
/// left as given.
fn coerce<T>(value: &Zval, parse: impl FnOnce(*mut zval, u32) -> Option<T>) -> Option<T> {
    let argument = Argument::of(value)?;
    if (value.is_null() && argument.nullable()) || ExecutorGlobals::has_exception() {
        return None;
    }
    let mut copy = value.shallow_clone();
    let parsed = parse(std::ptr::from_mut(&mut copy).cast(), argument.number);
    if parsed.is_none() {
        argument.type_error(value);
    }
    parsed
}

/// An `int` parameter.
#[derive(Clone, Copy)]
pub struct Int(pub i64);

impl From<i64> for Int {
    fn from(value: i64) -> Self {
        Self(value)
    }
}

impl ext_php_rs::convert::StubLiteral for Int {
    fn stub_literal(&self) -> String {
        self.0.stub_literal()
    }
}

impl<'a> FromZval<'a> for Int {
    const TYPE: DataType = DataType::Long;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if zval.is_long() {
            return zval.long().map(Self);
        }
        coerce(zval, |arg, number| {
            let mut long: zend_long = 0;
            // SAFETY: `arg` is a live zval we own a reference to, `long` a
            // valid destination.
            unsafe { zend_parse_arg_long_slow(arg, &mut long, number) }.then_some(Self(long))
        })
    }
}

/// A `float` parameter.
#[derive(Clone, Copy)]
pub struct Float(pub f64);

impl From<f64> for Float {
    fn from(value: f64) -> Self {
        Self(value)
    }
}

impl ext_php_rs::convert::StubLiteral for Float {
    fn stub_literal(&self) -> String {
        self.0.stub_literal()
    }
}

impl<'a> FromZval<'a> for Float {
    const TYPE: DataType = DataType::Double;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if zval.is_double() {
            return zval.double().map(Self);
        }
        // An int is taken as PHP takes it, under `strict_types` too.
        if let Some(long) = zval.long() {
            return Some(Self(long as f64));
        }
        coerce(zval, |arg, number| {
            let mut double = 0.0;
            // SAFETY: as for `Int`.
            unsafe { zend_parse_arg_double_slow(arg, &mut double, number) }.then_some(Self(double))
        })
    }
}

/// A `string` parameter: its bytes as they are.
pub struct Text(pub Vec<u8>);

impl From<String> for Text {
    fn from(value: String) -> Self {
        Self(value.into_bytes())
    }
}

impl ext_php_rs::convert::StubLiteral for Text {
    fn stub_literal(&self) -> String {
        String::from_utf8_lossy(&self.0).stub_literal()
    }
}

impl<'a> FromZval<'a> for Text {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if let Some(text) = zval.zend_str() {
            return Some(Self(text.as_bytes().to_vec()));
        }
        coerce(zval, |arg, number| {
            let mut text: *mut zend_string = std::ptr::null_mut();
            // SAFETY: `arg` is our own copy, which the engine may convert in
            // place; `text` then points into it, alive until `copy` drops,
            // after this closure has copied the bytes out.
            unsafe {
                zend_parse_arg_str_slow(arg, &mut text, number)
                    .then(|| text.cast::<ZendStr>().as_ref())
                    .flatten()
                    .map(|text| Self(text.as_bytes().to_vec()))
            }
        })
    }
}

/// A service name.
pub type ServiceName = Text;

/// An `array` parameter.
pub struct ArrayArg<'a>(pub &'a ZendHashTable);

impl<'a> FromZval<'a> for ArrayArg<'a> {
    const TYPE: DataType = DataType::Array;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        let array = zval.array().map(Self);
        if array.is_none() {
            reject(zval);
        }
        array
    }
}

/// Whether `object` is an instance of the interface named `name`, when that
/// interface is loaded at all (an interface that is not loaded is
/// implemented by nothing): for interfaces of other packages (PSR-20), which
/// this extension does not depend on.
pub fn instance_of_named(object: &ZendObject, name: &str) -> bool {
    let mut name = ZendStr::new(name, false);
    // SAFETY: a lookup in the class table, without autoloading; the entry
    // returned lives as long as the class table.
    let class = unsafe {
        ext_php_rs::ffi::zend_lookup_class_ex(&raw mut *name, std::ptr::null_mut(), FETCH_CLASS_NO_AUTOLOAD)
            .cast::<ClassEntry>()
            .as_ref()
    };
    class.is_some_and(|class| object.instance_of(class))
}

pub const PSR_CLOCK_INTERFACE: &str = "Psr\\Clock\\ClockInterface";

/// An object argument typed with a class or interface, kept as the zval so
/// that it can be held or called later. `$accepts` says which objects fit.
macro_rules! object_arg {
    ($(#[$doc:meta])* $name:ident, $class:literal, |$object:ident| $accepts:expr) => {
        $(#[$doc])*
        pub struct $name<'a>(pub &'a Zval);

        impl<'a> FromZval<'a> for $name<'a> {
            const TYPE: DataType = DataType::object($class);
            fn from_zval(zval: &'a Zval) -> Option<Self> {
                match zval.object() {
                    Some($object) if $accepts => Some(Self(zval)),
                    _ => {
                        reject(zval);
                        None
                    }
                }
            }
        }
    };
    ($(#[$doc:meta])* $name:ident, $class:literal, $class_entry:expr) => {
        object_arg!($(#[$doc])* $name, $class, |object| object.instance_of($class_entry));
    };
}

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
object_arg!(ThrowableArg, "Throwable", ext_php_rs::zend::ce::throwable());
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
object_arg!(
    OpeningCauseArg,
    "Zeusi\\CircuitBreaker\\Opening\\OpeningCause",
    |object| ZendClassObject::<OpeningCause>::from_zend_obj(object).is_some()
);

object_arg!(
    /// A `DateTimeImmutable`.
    DateArg,
    "DateTimeImmutable",
    |object| instance_of_named(object, "DateTimeImmutable")
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

/// A `Configuration`, with the PHP object kept for its rule objects.
pub struct ConfigurationArg<'a>(pub &'a Zval, pub &'a Configuration);

impl<'a> FromZval<'a> for ConfigurationArg<'a> {
    const TYPE: DataType = DataType::object("Zeusi\\CircuitBreaker\\Configuration");
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        let configuration = zval
            .object()
            .and_then(ZendClassObject::<Configuration>::from_zend_obj)
            .and_then(|configuration| configuration.obj.as_ref());
        match configuration {
            Some(configuration) => Some(Self(zval, configuration)),
            None => {
                reject(zval);
                None
            }
        }
    }
}

/// A `callable`, kept to be called later.
pub struct CallableArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for CallableArg<'a> {
    const TYPE: DataType = DataType::Callable;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if zval.is_callable() {
            return Some(Self(zval));
        }
        reject_callable(zval);
        None
    }
}

/// Not a callable: PHP's own words for a callback parameter of an internal
/// function ("must be a valid callback [or null], function \"f\" not found
/// or invalid function name").
fn reject_callable(value: &Zval) {
    let Some(argument) = Argument::of(value) else {
        return;
    };
    if (value.is_null() && argument.nullable()) || ExecutorGlobals::has_exception() {
        return;
    }
    let mut copy = value.shallow_clone();
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: `copy` is a live zval we hold a reference to; the engine
    // allocates `error` (or leaves it null), and `zend_wrong_callback_error`
    // frees it.
    unsafe {
        zend_is_callable_ex(
            std::ptr::from_mut(&mut copy).cast(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut error,
        );
        if error.is_null() {
            argument.type_error(value);
        } else if argument.nullable() {
            zend_wrong_callback_or_null_error(argument.number, error);
        } else {
            zend_wrong_callback_error(argument.number, error);
        }
    }
}
object_arg!(
    /// The host segment of a `FleetStorage`: a `SharedMemoryStorage` (or
    /// its `ApcuStorage` alias).
    SharedMemoryArg,
    "Zeusi\\CircuitBreaker\\Storage\\SharedMemoryStorage",
    |object| {
        use ext_php_rs::class::RegisteredClass;
        object.instance_of(super::shared_memory::SharedMemoryStorage::get_metadata().ce())
    }
);
