//! The one mapping of the extension's errors to PHP: every exception and
//! error the extension throws or hands to a listener is built through here.
//! Each Rust error maps to its class once: a `ConfigError` is an
//! `InvalidConfigurationException`, a `StorageError` a `StorageException`
//! whose code is the error's kind, with what a storage written in PHP threw
//! as its previous wherever it is thrown or delivered. PHP's own throwables
//! (`TypeError`, `ValueError`, SPL's) are built by `engine::throwable`, and
//! named here for the class families.

use ext_php_rs::exception::PhpException;
use ext_php_rs::types::Zval;

use super::engine::classes::{CALL_NOT_PERMITTED, INVALID_CONFIGURATION, STORAGE_EXCEPTION, in_scope_of};
use super::engine::throwable::{exception_with_code, set_previous, throwable};
use super::enums::{RejectionReason, State};
use super::storage::client_objects::Refusal;
use crate::breaker::Rejection;
use crate::core::duration::{Millis, format_float};
use crate::core::error::ConfigError;
use crate::core::throttle::percent_of_ppm;
use crate::storage::StorageError;

pub use super::engine::throwable::{
    add_previous, exception, exception_of, logic_exception, new_exception, rethrow, type_error, unexpected_value,
    value_error,
};

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
                set_previous(object, thrown);
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
