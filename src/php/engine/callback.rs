//! Every call from Rust into PHP code goes through here: the executor's
//! callable, a breaker written in PHP, classifiers, listeners, clocks, ramp
//! curves, userland storages, and the few PHP functions we use.
//!
//! PHP ends a script in two ways that are not exceptions, and both must go
//! through us untouched:
//!
//! - `exit()` is an "unwind exit": `EG(exception)` holds an object that is not
//!   a `Throwable`. We return at once and leave it where it is; the engine
//!   finishes the exit when our method returns.
//! - A fatal error (memory limit, `E_ERROR`) is a `zend_bailout()`, a
//!   `longjmp` that would skip our frames with their borrows and guards held.
//!   We catch it around the call, let every Rust frame return normally, and
//!   the method that PHP called re-raises it from [`finish`].
//!
//! Once either has happened, no more PHP code runs from here: every further
//! call is refused, and the caller returns without registering anything.

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};

use ext_php_rs::convert::IntoZvalDyn;
use ext_php_rs::types::{ZendCallable, ZendObject, Zval};
use ext_php_rs::zend::{CatchError, ExecutorGlobals, bailout, try_catch};
use thiserror::Error;

use super::ffi::{zend_is_graceful_exit, zend_is_unwind_exit};

thread_local! {
    /// A bailout caught around a call into PHP, not re-raised yet.
    static BAILOUT: Cell<bool> = const { Cell::new(false) };
}

/// How many threads hold a caught bailout in `BAILOUT`: zero but while one
/// is on its way up, so that the checks every protected call makes read one
/// word, not the thread-local (in a shared library each read of that is a
/// call into the dynamic linker).
static BAILOUTS_HELD: AtomicUsize = AtomicUsize::new(0);

/// Whether this thread holds a caught bailout, not re-raised yet.
#[inline]
pub fn bailout_held() -> bool {
    // Out of line, or the compiler computes the thread-local's address
    // before the test, on every call.
    #[cold]
    #[inline(never)]
    fn held_here() -> bool {
        BAILOUT.get()
    }
    BAILOUTS_HELD.load(Ordering::Relaxed) != 0 && held_here()
}

/// How PHP is ending the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `exit()` (or a fiber or generator destroyed while running).
    Exit,
    /// A fatal error.
    Fatal,
}

#[derive(Debug, Error)]
pub enum CallError {
    /// The script is ending: return at once, register nothing.
    #[error("the script is ending")]
    Ending(Ending),
    /// The PHP code threw: the exception is pending in `EG(exception)`.
    #[error("threw {0}")]
    Threw(String),
    /// An exception thrown earlier is still pending: the engine runs no PHP
    /// code until it is caught, so the call was not made.
    #[error("not called: an exception thrown earlier is pending")]
    Pending,
    #[error("could not be called: {0}")]
    NotCallable(String),
}

/// Whether the script is ending, by `exit()` or by a fatal error.
#[inline]
pub fn ending() -> Option<Ending> {
    if bailout_held() {
        return Some(Ending::Fatal);
    }
    let exception = super::globals::pending_exception();
    if exception.is_null() {
        return None;
    }
    // SAFETY: `exception` is the live pending exception, only read by these.
    let exiting = unsafe { zend_is_unwind_exit(exception) || zend_is_graceful_exit(exception) };
    exiting.then_some(Ending::Exit)
}

/// Keeps a bailout caught on its way up, for the handler to raise again.
fn hold_bailout() {
    if !BAILOUT.replace(true) {
        BAILOUTS_HELD.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs engine code that may run PHP code under `zend_try`: a conversion of
/// an argument, whose notice a user error handler may handle. A fatal error
/// on the way is held as one around a call is, and nothing is returned.
pub fn contain_bailout<R>(run: impl FnOnce() -> R) -> Option<R> {
    match try_catch(AssertUnwindSafe(run)) {
        Ok(result) => Some(result),
        Err(CatchError::Bailout) => {
            hold_bailout();
            None
        }
        // Engine code does not panic; nothing of ours ran.
        Err(_) => None,
    }
}

/// Runs one call into PHP under `zend_try`, and says how it ended.
fn guarded(call: impl FnOnce() -> Result<Zval, ext_php_rs::error::Error>) -> Result<Zval, CallError> {
    if let Some(ending) = ending() {
        return Err(CallError::Ending(ending));
    }
    if ExecutorGlobals::has_exception() {
        return Err(CallError::Pending);
    }
    let result = match try_catch(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(CatchError::Bailout) => {
            hold_bailout();
            return Err(CallError::Ending(Ending::Fatal));
        }
        Err(error) => return Err(CallError::NotCallable(error.to_string())),
    };
    if let Some(ending) = ending() {
        return Err(CallError::Ending(ending));
    }
    if let Some(class) = ExecutorGlobals::pending_exception_class() {
        return Err(CallError::Threw(class));
    }
    result.map_err(|error| CallError::NotCallable(error.to_string()))
}

/// Calls `$object->$method(...$arguments)`, through the object's own class,
/// so a subclass's override is the one that runs.
pub fn call_method(object: &ZendObject, method: &str, arguments: Vec<&dyn IntoZvalDyn>) -> Result<Zval, CallError> {
    guarded(|| object.try_call_method(method, arguments))
}

/// Calls a PHP callable.
pub fn call_callable(callable: &Zval, arguments: Vec<&dyn IntoZvalDyn>) -> Result<Zval, CallError> {
    guarded(|| ZendCallable::new(callable)?.try_call(arguments))
}

/// Calls a PHP function by name. Not `Function::try_from_function`, which
/// copies a whole `zend_function` out of a smaller internal function entry.
pub fn call_function(name: &str, arguments: Vec<&dyn IntoZvalDyn>) -> Result<Zval, CallError> {
    guarded(|| ZendCallable::try_from_name(name)?.try_call(arguments))
}

/// Ends a method that PHP called and that may have called into PHP: a fatal
/// error caught on the way is re-raised now that every Rust frame below has
/// returned, its borrows and guards released. `result` is dropped then: the
/// engine never reads it.
pub fn finish<T>(result: T) -> T {
    if take_bailout() {
        drop(result);
        // SAFETY: nothing of ours is held below this frame: the frames that
        // called into PHP have all returned. The jump lands in the `zend_try`
        // that ext-php-rs puts around every method, which re-raises it to the
        // engine.
        unsafe { bailout() }
    }
    result
}

/// Whether a fatal error was caught on the way and must be re-raised now
/// (see [`finish`]); it is no longer held once this says so.
pub fn take_bailout() -> bool {
    if !bailout_held() {
        return false;
    }
    BAILOUT.set(false);
    BAILOUTS_HELD.fetch_sub(1, Ordering::Relaxed);
    true
}

thread_local! {
    /// What the last panic said, and where: the hook keeps it for [`contain_panic`].
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// What a panic said, when it said it with a string.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|message| (*message).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

/// Panics are bugs, caught at the binding boundary by [`contain_panic`] and
/// reported through the call's own channel (a `StorageFailed` event, an
/// exception): printing them too would write into the page being served.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = panic_text(info.payload()).unwrap_or_else(|| "a panic".to_owned());
        let place = info
            .location()
            .map(|location| format!(" at {}:{}", location.file(), location.line()))
            .unwrap_or_default();
        LAST_PANIC.with_borrow_mut(|last| *last = format!("{message}{place}"));
    }));
}

/// Runs `run`, turning a panic into `Err` with what it said. The last resort
/// for bugs: no panic may cross into PHP.
#[inline]
pub fn contain_panic<T>(run: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(run)).map_err(|_| LAST_PANIC.with_borrow_mut(std::mem::take))
}

/// The class that declares the method `$object->$name()` would run, if any.
fn declaring_class(object: &ZendObject, name: &str) -> Option<*const ext_php_rs::zend::ClassEntry> {
    // SAFETY: a live object's class entry and its function table outlive the
    // object; the lookup only reads them, and `function` points into them.
    unsafe {
        let function = ext_php_rs::ffi::zend_hash_str_find_ptr_lc(
            &raw const (*object.ce).function_table,
            name.as_ptr().cast(),
            name.len(),
        )
        .cast::<ext_php_rs::ffi::zend_function>();
        function.as_ref().map(|function| function.common.scope.cast_const())
    }
}

/// Whether `$object` has a method `$name` (as `method_exists()` says, without
/// calling into PHP).
pub fn has_method(object: &ZendObject, name: &str) -> bool {
    declaring_class(object, name).is_some()
}

/// Whether the class of `object`, a `T`, declares its own version of any of
/// `methods`: then calls must go through PHP for its overrides to run. An
/// inherited internal method is a copy of ours, so the declaring class is
/// compared, not the function.
pub fn overrides<T: ext_php_rs::class::RegisteredClass>(object: &ZendObject, methods: &[&str]) -> bool {
    let ours = std::ptr::from_ref(T::get_metadata().ce());
    methods
        .iter()
        .any(|method| declaring_class(object, method).is_some_and(|declared| !std::ptr::eq(declared, ours)))
}
