//! The executor's globals, read field by field. ext-php-rs reaches them
//! through `ExecutorGlobals::get()`, which takes a lock that costs more than
//! the checks a protected call makes with them; here each read is one load.
//! PHP runs one request per thread and nothing of the engine runs while our
//! code does, so a field read between two engine calls is the engine's own.

use ext_php_rs::ffi::{executor_globals, zend_execute_data, zend_executor_globals, zend_object};

// A thread-safe PHP keeps its globals per thread, behind ext-php-rs's
// `ext_php_rs_executor_globals()` (a call into C at every read); ours is
// built for the others only (`ext/config.m4` refuses ZTS), where they are
// one static of the engine.
const _: () = assert!(!ext_php_rs::PHP_ZTS, "ZTS builds of PHP are not supported");

/// The executor's globals: the engine's static, read without a call.
#[inline(always)]
fn globals() -> *mut zend_executor_globals {
    &raw mut executor_globals
}

/// The frame of the function running now, if any.
#[inline]
pub fn current_frame() -> Option<&'static zend_execute_data> {
    // SAFETY: the executor globals live as long as the process; the current
    // frame is valid while PHP code or an internal function runs, and a null
    // pointer (no frame) reads as None.
    unsafe { (*globals()).current_execute_data.as_ref() }
}

/// The exception pending now (thrown, not caught yet), as a pointer only
/// compared or handed back to the engine.
#[inline]
pub fn pending_exception() -> *mut zend_object {
    // SAFETY: as in `current_frame`; the pointer is not followed here.
    unsafe { (*globals()).exception }
}

/// Whether the executor runs a request (false while php-fpm loads a pool's
/// extension after module startup, outside any request).
#[inline]
pub fn executor_active() -> bool {
    // SAFETY: as in `current_frame`.
    unsafe { (*globals()).active }
}

/// The fiber running now, as a number no other live fiber has: the address
/// of its context (`EG(current_fiber_context)`, the main context outside
/// any fiber). Never 0 while a request runs.
#[inline]
pub fn current_fiber() -> usize {
    // SAFETY: as in `current_frame`; the pointer is only compared, never
    // followed.
    unsafe { (*globals()).current_fiber_context as usize }
}
