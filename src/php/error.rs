//! The one mapping of the extension's errors to PHP: every exception and
//! error the extension throws or hands to a listener is built here (the
//! engine's own, which `engine/` raises through the engine's functions,
//! apart). Each Rust error maps to its class once: a `ConfigError` is an
//! `InvalidConfigurationException`, a `StorageError` a `StorageException`
//! whose code is the error's kind, with what a storage written in PHP threw
//! as its previous wherever it is thrown or delivered.

use ext_php_rs::convert::IntoZval;
use ext_php_rs::exception::PhpException;
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecutorGlobals, ce};

use super::classes::{CALL_NOT_PERMITTED, ClassSlot, INVALID_CONFIGURATION, STORAGE_EXCEPTION, in_scope_of, spl_class};
use super::client_objects::Refusal;
use super::enums::{RejectionReason, State};
use crate::breaker::Rejection;
use crate::core::duration::{Millis, format_float};
use crate::core::error::ConfigError;
use crate::core::throttle::percent_of_ppm;
use crate::storage::StorageError;

/// An exception of `class` with `message` and `code`. A message holding a
/// NUL byte (a service name, a stored value, a driver's message may) is
/// given as a built object: ext-php-rs builds the others from a C string,
/// and would throw "string contains a NUL byte" instead.
fn exception_with_code(class: &'static ClassEntry, message: String, code: i32) -> PhpException {
    if message.contains('\0') {
        let object = throwable(class, &message, code, None);
        return PhpException::new(message.replace('\0', "\\0"), code, class).with_object(object);
    }
    PhpException::new(message, code, class)
}

/// An exception of `class` with `message`.
pub fn exception_of(class: &'static ClassEntry, message: String) -> PhpException {
    exception_with_code(class, message, 0)
}

/// An exception already built (what PHP code threw, one of ours made as
/// an object), thrown as it is.
pub fn rethrow(exception: Zval) -> PhpException {
    PhpException::new(String::new(), 0, ce::exception()).with_object(exception)
}

/// `new $class($message, $code, $previous)`, ready to throw or to hand to a
/// listener, with its file, line and trace.
fn throwable(class: &ClassEntry, message: &str, code: i32, previous: Option<&Zval>) -> Zval {
    let zval = ZendObject::new(class).into_zval(false).unwrap_or_default();
    if let Some(object) = zval.object() {
        let code = i64::from(code);
        let _ = match previous {
            Some(previous) => super::callback::call_method(object, "__construct", vec![&message, &code, previous]),
            None if code != 0 => super::callback::call_method(object, "__construct", vec![&message, &code]),
            None => super::callback::call_method(object, "__construct", vec![&message]),
        };
    }
    zval
}

/// `new $class($message, 0, $previous)`.
pub fn new_throwable(class: &ClassEntry, message: &str, previous: Option<&Zval>) -> Zval {
    throwable(class, message, 0, previous)
}

/// An exception of one of our classes, built as `new $class($message)`.
pub fn new_exception(class: &ClassSlot, message: &str) -> Zval {
    new_throwable(class.get(), message, None)
}

/// A plain `Exception`: what ext-php-rs' own handlers throw for what they
/// cannot do, and what a call given something it cannot call throws.
pub fn exception(message: String) -> PhpException {
    exception_of(ce::exception(), message)
}

/// A `LogicException`: a misuse of the API by the code that calls it.
pub fn logic_exception(message: String) -> PhpException {
    exception_of(spl_class("spl_ce_LogicException"), message)
}

/// An `UnexpectedValueException`: PHP code called by the extension returned
/// what it must not (a ramp curve's NAN), ready to throw.
pub fn unexpected_value(message: &str) -> Zval {
    new_throwable(spl_class("spl_ce_UnexpectedValueException"), message, None)
}

/// A `TypeError`, with the exception it stands in for as its previous.
pub fn type_error(message: &str, previous: Option<&Zval>) -> PhpException {
    match previous {
        Some(previous) => PhpException::new(message.to_owned(), 0, ce::type_error()).with_object(new_throwable(
            ce::type_error(),
            message,
            Some(previous),
        )),
        None => exception_of(ce::type_error(), message.to_owned()),
    }
}

/// A `ValueError`: an argument of the right type outside its limits.
pub fn value_error(message: String) -> PhpException {
    exception_of(ce::value_error(), message)
}

/// The `Error` of a write to (or an unset of) a read-only property, as
/// PHP's own readonly properties throw it.
pub fn readonly_error(message: String) -> PhpException {
    exception_of(ce::error(), message)
}

/// The `Error` a method throws in place of a panic of the extension.
pub fn panic_error(message: &str) -> PhpException {
    exception_of(ce::error(), format!("Rust panic: {message}"))
}

unsafe extern "C" {
    fn zend_exception_set_previous(
        exception: *mut ext_php_rs::ffi::zend_object,
        add_previous: *mut ext_php_rs::ffi::zend_object,
    );
}

/// Hangs `previous` at the end of the chain of `exception`'s previous
/// exceptions, as PHP does for an exception thrown in a `finally`, unless it
/// is already in that chain (or is `exception` itself).
pub fn add_previous(exception: &mut ZendObject, previous: &Zval) {
    let Some(previous_object) = previous.object() else {
        return;
    };
    let mut link = Some(std::ptr::from_ref::<ZendObject>(exception));
    while let Some(current) = link {
        if std::ptr::eq(current, previous_object) {
            return;
        }
        // SAFETY: each link is a live Throwable held by the chain.
        let current = unsafe { &*current };
        link = previous_of(current).map(std::ptr::from_ref);
    }
    // SAFETY: both are live Throwables; the engine takes over one reference
    // to `previous`, which we add first.
    unsafe {
        let previous_object = std::ptr::from_ref(previous_object).cast_mut();
        (*previous_object).gc.refcount += 1;
        zend_exception_set_previous(std::ptr::from_mut(exception), previous_object);
    }
}

/// The `$previous` of a Throwable: a private property of `Exception` or
/// `Error`, read in the scope of the one it extends.
fn previous_of(throwable: &ZendObject) -> Option<&ZendObject> {
    let base = if throwable.instance_of(ce::exception()) {
        ce::exception()
    } else {
        ce::error()
    };
    let saved = ExecutorGlobals::get().fake_scope;
    ExecutorGlobals::get_mut().fake_scope = std::ptr::from_ref(base).cast_mut();
    let previous = throwable.get_property::<&Zval>("previous").ok().and_then(Zval::object);
    ExecutorGlobals::get_mut().fake_scope = saved;
    // SAFETY: the object is held by `throwable`'s property table, which
    // outlives this borrow.
    previous.map(|previous| unsafe { &*std::ptr::from_ref(previous) })
}

/// A value outside its limits: an `InvalidConfigurationException` whose
/// message names the parameter, the value and the limits.
impl From<ConfigError> for PhpException {
    fn from(error: ConfigError) -> Self {
        exception_of(INVALID_CONFIGURATION.get(), error.to_string())
    }
}

/// `PhpException::from` of a `ConfigError`, by a name that reads in a `map_err`.
pub fn invalid_configuration(error: ConfigError) -> PhpException {
    error.into()
}

impl Refusal {
    /// The `InvalidConfigurationException` saying `error`, the exception a
    /// getter threw as its previous.
    pub fn into_exception(self, error: ConfigError) -> PhpException {
        let Some(thrown) = self.thrown else {
            return error.into();
        };
        let message = error.to_string();
        let exception = new_exception(&INVALID_CONFIGURATION, &message);
        match exception.object() {
            Some(object) => {
                // SAFETY: both are live exception objects; the call takes over
                // our reference to `thrown` (stored as `previous`, then released).
                unsafe { zend_exception_set_previous(std::ptr::from_ref(object).cast_mut(), thrown.into_raw()) };
                PhpException::new(message, 0, INVALID_CONFIGURATION.get()).with_object(exception)
            }
            None => error.into(),
        }
    }
}

/// A storage that failed, without a storage written in PHP behind it: a
/// `StorageException` whose code is the error's kind.
impl From<StorageError> for PhpException {
    fn from(error: StorageError) -> Self {
        storage_exception(error, None)
    }
}

/// The `StorageException` of `error`, its code the error's kind
/// (`StorageException::TIMEOUT`, `::FULL`...), with `thrown`, what a storage
/// written in PHP threw, as its previous.
pub fn storage_exception(error: StorageError, thrown: Option<Zval>) -> PhpException {
    let code = error.kind().code();
    let message = error.to_string();
    match thrown {
        Some(thrown) => PhpException::new(message.clone(), code, STORAGE_EXCEPTION.get()).with_object(throwable(
            STORAGE_EXCEPTION.get(),
            &message,
            code,
            Some(&thrown),
        )),
        None => exception_with_code(STORAGE_EXCEPTION.get(), message, code),
    }
}

/// The `StorageException` of a `StorageFailed` event: the one
/// [`storage_exception`] throws, as an object.
pub fn storage_error(error: &StorageError, thrown: Option<Zval>) -> Zval {
    throwable(
        STORAGE_EXCEPTION.get(),
        &error.to_string(),
        error.kind().code(),
        thrown.as_ref(),
    )
}

/// A panic, reported as the storage failure it caused.
pub fn internal_error(message: &str) -> StorageError {
    StorageError::Unavailable(format!(
        "internal error of the extension, the call is let through: {message}"
    ))
}

/// The exception for a call the circuit did not permit, in `state`, for
/// `rejection` (`None`: a breaker written in PHP, whose reason is its state's).
pub fn call_not_permitted(
    service: Zval,
    state: State,
    retry_after_ms: Option<Millis>,
    rejection: Option<Rejection>,
) -> Zval {
    let name = service
        .zend_str()
        .map(|name| String::from_utf8_lossy(name.as_bytes()).into_owned())
        .unwrap_or_default();
    let retry_after = retry_after_ms.map(|ms| ms as f64 / 1_000.0);
    let message = match (rejection, retry_after) {
        (Some(Rejection::Bulkhead { limit }), _) => format!(
            "Circuit '{name}' has {limit} calls in flight, as many as its bulkhead lets through: this call was not permitted"
        ),
        (Some(Rejection::Throttled { rate_ppm }), _) => format!(
            "Circuit '{name}' refuses {}% of its calls while its service fails too often (adaptive throttling): this call was not permitted",
            format_float(percent_of_ppm(rate_ppm))
        ),
        (_, Some(seconds)) => format!(
            "Circuit '{name}' is {}: no call permitted for {} s",
            state.describe(),
            format_float(seconds)
        ),
        (_, None) => format!("Circuit '{name}' is {}: this call was not permitted", state.describe()),
    };
    // A breaker of one's own rejects in its state: no reason while closed.
    let reason = rejection
        .or((state != State::Closed).then_some(Rejection::Circuit))
        .map(|rejection| RejectionReason::of(state.into(), rejection));
    let mut exception = new_exception(&CALL_NOT_PERMITTED, &message);
    if let Some(object) = exception.object_mut() {
        in_scope_of(&CALL_NOT_PERMITTED, || {
            let _ = object.set_property("service", service);
            let _ = object.set_property("state", state);
            let _ = object.set_property("retryAfter", retry_after);
            let _ = object.set_property("reason", reason);
        });
    }
    exception
}
