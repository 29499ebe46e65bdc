//! The PHP binding: classes, interfaces, enums and exceptions over the core.

mod args;
mod breaker;
mod classes;
mod clock;
mod configuration;
mod enums;
mod events;
mod execution;
mod storage;
mod typed;

use ext_php_rs::prelude::*;
use ext_php_rs::zend::ModuleEntry;

/// Runs in MINIT before the classes of the macros are registered: those
/// implement our interfaces, which must exist first.
fn startup(_ty: i32, _module_number: i32) -> i32 {
    match classes::register_interfaces().and_then(|()| classes::register_exceptions()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

extern "C" fn info(_module: *mut ModuleEntry) {
    // SAFETY: phpinfo() calls this with the output functions ready.
    unsafe {
        ext_php_rs::ffi::php_info_print_table_start();
        ext_php_rs::ffi::php_info_print_table_row(
            2,
            c"circuit_breaker support".as_ptr(),
            c"enabled".as_ptr(),
        );
        ext_php_rs::ffi::php_info_print_table_row(
            2,
            c"version".as_ptr(),
            concat!(env!("CARGO_PKG_VERSION"), "\0")
                .as_ptr()
                .cast::<std::ffi::c_char>(),
        );
        ext_php_rs::ffi::php_info_print_table_end();
    }
}

#[php_module]
#[php(startup = "startup")]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    module
        .info_function(info)
        .enumeration::<enums::State>()
        .enumeration::<enums::Outcome>()
        .class::<configuration::FailureRateRule>()
        .class::<configuration::SlowCallRateRule>()
        .class::<configuration::FailureOrSlowCallRateRule>()
        .class::<configuration::ConsecutiveFailuresRule>()
        .class::<configuration::ExponentialRampCurve>()
        .class::<configuration::PowerRampCurve>()
        .class::<configuration::RampPolicy>()
        .class::<configuration::PermittedCallsPolicy>()
        .class::<configuration::Configuration>()
        .class::<clock::SystemClock>()
        .class::<clock::MockClock>()
        .class::<storage::InMemoryStorage>()
        .class::<events::OpeningCause>()
        .class::<events::CircuitOpened>()
        .class::<events::CircuitHalfOpened>()
        .class::<events::CircuitClosed>()
        .class::<events::CallRejected>()
        .class::<events::StorageFailed>()
        .class::<breaker::CircuitBreaker>()
        .class::<execution::CallExecutor>()
        .class::<execution::CallGate>()
        .class::<execution::Attempt>()
        .class::<execution::CallbackOutcomeClassifier>()
}
