//! The handlers of `acquirePermission()`, `registerSuccess()` and
//! `registerFailure()`, the calls a protected call makes, without the
//! `zend_try` (a `setjmp`) and the thread-local bookkeeping that ext-php-rs
//! puts around every method: about a third of what each call cost on a
//! reused breaker.
//!
//! That `zend_try` is there to stop a fatal error (a `longjmp`) from
//! skipping Rust frames. These methods need none of their own: every call
//! they make into PHP code goes through `callback::guarded`, which catches
//! it there and lets the frames return; the handler then re-raises it once
//! nothing of ours is left to drop, as [`callback::finish`] does under the
//! `zend_try` of ext-php-rs. What PHP sees is unchanged: the same argument
//! checks, return values, exceptions (a panic too: an `Error` whose message
//! starts with "Rust panic: ").

use std::panic::AssertUnwindSafe;

use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{zend_execute_data, zval};
use ext_php_rs::types::{ZendClassObject, Zval};
use ext_php_rs::zend::{ExecuteData, bailout};

use super::args::Float;
use super::breaker::{CircuitBreaker, duration_ms};
use super::callback::{bailout_held, panic_text, take_bailout};
use super::fast_construct::{Arguments, Refused, replace_handler};
use crate::breaker::Permission;
use crate::core::counts::Outcome;

pub fn install() {
    replace_handler::<CircuitBreaker>("acquirepermission", acquire_permission);
    replace_handler::<CircuitBreaker>("registersuccess", register_success);
    replace_handler::<CircuitBreaker>("registerfailure", register_failure);
}

/// Runs a method of the breaker `$this` as ext-php-rs' handlers do: the
/// argument count checked against `0..=max`, the arguments converted by
/// `convert`, then `$this` found and `call` run; what it returns is left in
/// `return_value`.
///
/// # Safety
///
/// `execute_data` and `return_value` are those the engine gives the
/// handler of a method of `CircuitBreaker`.
unsafe fn run<A>(
    execute_data: *mut zend_execute_data,
    return_value: *mut zval,
    max: u32,
    convert: impl FnOnce(&Arguments<'_>) -> Result<A, Refused>,
    call: impl FnOnce(&CircuitBreaker, A) -> Result<Option<bool>, PhpException>,
) {
    let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the engine's live frame and return value of this call.
        let (Some(frame), Some(returned)) = (unsafe { execute_data.cast::<ExecuteData>().as_mut() }, unsafe {
            return_value.cast::<Zval>().as_mut()
        }) else {
            return;
        };
        let converted = match Arguments::of(frame, 0, max).map(|arguments| convert(&arguments)) {
            Some(Ok(converted)) => converted,
            Some(Err(Some(exception))) => return exception.throw(),
            // Thrown already.
            Some(Err(None)) | None => return,
        };
        let Some(breaker) = this_breaker(frame) else {
            return super::engine::unconstructed::throw_not_constructed(frame);
        };
        let result = call(breaker, converted);
        // A fatal error on the way: the engine reads nothing of this call.
        if bailout_held() {
            return;
        }
        match result {
            Ok(Some(value)) => returned.set_bool(value),
            Ok(None) => returned.set_null(),
            Err(exception) => exception.throw(),
        }
    }));
    if let Err(payload) = ran {
        let message = panic_text(payload.as_ref()).unwrap_or_else(|| "non-string panic payload".to_owned());
        super::error::panic_error(&message).throw();
    }
    if take_bailout() {
        // SAFETY: every Rust frame of this call has returned; this one
        // holds nothing to drop. The jump goes to the engine's `zend_try`.
        unsafe { bailout() }
    }
}

/// The breaker behind `$this`, once constructed.
fn this_breaker(frame: &mut ExecuteData) -> Option<&CircuitBreaker> {
    let this = ZendClassObject::<CircuitBreaker>::from_zend_obj_mut(frame.get_self()?)?;
    this.obj.as_ref()
}

unsafe extern "C" fn acquire_permission(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: called by the engine as this method's handler.
    unsafe {
        run(
            execute_data,
            return_value,
            0,
            |_| Ok(()),
            |breaker, ()| Ok(Some(breaker.acquire()? == Permission::Permitted)),
        );
    }
}

unsafe extern "C" fn register_success(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: called by the engine as this method's handler.
    unsafe {
        run(execute_data, return_value, 1, duration, |breaker, duration| {
            register(breaker, duration, Outcome::Success)
        })
    }
}

unsafe extern "C" fn register_failure(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: called by the engine as this method's handler.
    unsafe {
        run(execute_data, return_value, 1, duration, |breaker, duration| {
            register(breaker, duration, Outcome::Failure)
        })
    }
}

/// The optional `?float $duration` of `registerSuccess()` and `registerFailure()`.
fn duration(arguments: &Arguments<'_>) -> Result<Option<Float>, Refused> {
    arguments.optional::<Float>(0, "duration")
}

fn register(breaker: &CircuitBreaker, duration: Option<Float>, outcome: Outcome) -> Result<Option<bool>, PhpException> {
    breaker.register(outcome, duration_ms(duration.map(|duration| duration.0))?)?;
    Ok(None)
}
