//! What only a `testing` build has (`make build-testing`, never the
//! extension that ships): `circuit_breaker_test_panic()`, which makes the
//! next call of a breaker in this thread panic inside the extension, where
//! no bug is known to panic. tests/testing/panic-contained.phpt proves with
//! it that [`contain_panic`](super::engine::callback::contain_panic) keeps a panic
//! from reaching PHP and reports it as a storage failure.

use std::cell::Cell;

use ext_php_rs::prelude::*;

thread_local! {
    static PANIC_ARMED: Cell<bool> = const { Cell::new(false) };
}

/// Makes the next call of a breaker panic inside the extension.
#[php_function]
pub fn circuit_breaker_test_panic() {
    PANIC_ARMED.set(true);
}

/// The function for the module builder (the macro's struct is this module's).
pub fn test_panic_function() -> ext_php_rs::builders::FunctionBuilder<'static> {
    wrap_function!(circuit_breaker_test_panic)
}

/// Whether the next call of a breaker is to panic: a call that would not
/// reach [`panic_if_armed`] takes the way that does.
pub fn panic_armed() -> bool {
    PANIC_ARMED.get()
}

/// Panics once after `circuit_breaker_test_panic()`; called where a
/// breaker's call runs, inside `contain_panic`.
pub fn panic_if_armed() {
    if PANIC_ARMED.take() {
        panic!("circuit_breaker_test_panic() asked for it");
    }
}
