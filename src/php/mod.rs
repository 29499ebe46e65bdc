//! The PHP binding: classes, interfaces, enums and exceptions over the core.

mod args;
mod breaker;
mod bulkhead;
mod callback;
mod classes;
mod client_objects;
mod clock;
mod configuration;
mod control;
mod engine;
mod enums;
mod error;
mod events;
mod execution;
mod exporter;
mod fast_construct;
mod fleet;
mod gc;
mod hot_methods;
mod http;
mod late_load;
mod log;
mod memcached;
mod readonly;
mod redis;
mod reentry;
mod shared_memory;
mod status;
mod storage;
#[cfg(feature = "testing")]
mod testing;
mod throttle;
mod typed;
mod userland_storage;

use std::ffi::CString;

use ext_php_rs::prelude::*;
use ext_php_rs::zend::ModuleEntry;

/// Runs in MINIT before the classes of the macros are registered: those
/// implement our interfaces, which must exist first.
fn startup(_ty: i32, module_number: i32) -> i32 {
    callback::install_panic_hook();
    shared_memory::startup(module_number);
    bulkhead::startup();
    if http::startup(module_number) {
        engine::streams::install();
    }
    log::startup(module_number);
    gc::install_handlers();
    readonly::install_handlers();
    match classes::register_interfaces().and_then(|()| classes::register_exceptions()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

extern "C" fn shutdown(_ty: i32, _module_number: i32) -> i32 {
    shared_memory::shutdown();
    late_load::shutdown();
    readonly::shutdown();
    engine::unconstructed::shutdown();
    0
}

extern "C" fn request_startup(_ty: i32, _module_number: i32) -> i32 {
    late_load::request_startup();
    shared_memory::request_startup();
    readonly::declare_types();
    engine::unconstructed::install(|guards| {
        guards.guard::<configuration::FailureRateRule>();
        guards.guard::<configuration::SlowCallRateRule>();
        guards.guard::<configuration::FailureOrSlowCallRateRule>();
        guards.guard::<configuration::ConsecutiveFailuresRule>();
        guards.guard::<configuration::AdaptiveThrottlingRule>();
        guards.guard::<configuration::ExponentialRampCurve>();
        guards.guard::<configuration::PowerRampCurve>();
        guards.guard::<configuration::RampPolicy>();
        guards.guard::<configuration::PermittedCallsPolicy>();
        guards.guard::<configuration::Configuration>();
        guards.guard::<clock::SystemClock>();
        guards.guard::<clock::MockClock>();
        guards.guard::<storage::InMemoryStorage>();
        guards.guard::<shared_memory::SharedMemoryStorage>();
        guards.guard::<shared_memory::ApcuStorage>();
        guards.guard::<redis::RedisStorage>();
        guards.guard::<memcached::MemcachedStorage>();
        guards.guard::<fleet::FleetStorage>();
        guards.guard::<events::OpeningCause>();
        guards.guard::<events::CircuitOpened>();
        guards.guard::<events::CircuitHalfOpened>();
        guards.guard::<events::CircuitClosed>();
        guards.guard::<events::CallRejected>();
        guards.guard::<events::StorageFailed>();
        guards.guard::<events::CircuitForced>();
        guards.guard::<events::CircuitReset>();
        guards.guard::<events::StorageRecovered>();
        guards.guard::<status::CircuitStatus>();
        guards.guard::<exporter::PrometheusExporter>();
        guards.guard::<control::CircuitControl>();
        guards.guard::<breaker::CircuitBreaker>();
        guards.guard::<execution::CallExecutor>();
        guards.guard::<execution::CallGate>();
        guards.guard::<execution::Attempt>();
        guards.guard::<execution::CallbackOutcomeClassifier>();
        guards.guard::<http::HttpGuard>();
        guards.guard::<http::HttpBreaker>();
    });
    fast_construct::install();
    if http::enabled() {
        engine::curl::install();
        http::request_startup();
    }
    0
}

extern "C" fn request_shutdown(_ty: i32, _module_number: i32) -> i32 {
    engine::curl::request_shutdown();
    bulkhead::request_shutdown();
    0
}

unsafe extern "C" {
    fn display_ini_entries(module: *mut ModuleEntry);
}

/// phpinfo() and `php --ri`: our rows, then the table of our ini settings
/// ("Directive => Local Value => Master Value"), as every extension shows.
extern "C" fn info(module: *mut ModuleEntry) {
    let mut rows = vec![
        ("circuit_breaker support", "enabled".to_owned()),
        ("version", env!("CARGO_PKG_VERSION").to_owned()),
    ];
    rows.extend(shared_memory::info_rows());
    // SAFETY: phpinfo() calls this with its output ready; every string is
    // a NUL-terminated CString that outlives the call that reads it.
    unsafe {
        ext_php_rs::ffi::php_info_print_table_start();
        for (name, value) in rows {
            let name = CString::new(name).unwrap_or_default();
            let value = CString::new(value).unwrap_or_default();
            ext_php_rs::ffi::php_info_print_table_row(2, name.as_ptr(), value.as_ptr());
        }
        ext_php_rs::ffi::php_info_print_table_end();
        display_ini_entries(module);
    }
}

#[php_module]
#[php(startup = "startup")]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    // Only in a `testing` build (src/php/testing.rs).
    #[cfg(feature = "testing")]
    let module = module.function(testing::test_panic_function());
    module
        .info_function(info)
        .shutdown_function(shutdown)
        .request_startup_function(request_startup)
        .request_shutdown_function(request_shutdown)
        .enumeration::<enums::State>()
        .enumeration::<enums::Outcome>()
        .enumeration::<enums::RejectionReason>()
        .class::<configuration::FailureRateRule>()
        .class::<configuration::SlowCallRateRule>()
        .class::<configuration::FailureOrSlowCallRateRule>()
        .class::<configuration::ConsecutiveFailuresRule>()
        .class::<configuration::AdaptiveThrottlingRule>()
        .class::<configuration::ExponentialRampCurve>()
        .class::<configuration::PowerRampCurve>()
        .class::<configuration::RampPolicy>()
        .class::<configuration::PermittedCallsPolicy>()
        .class::<configuration::Configuration>()
        .class::<clock::SystemClock>()
        .class::<clock::MockClock>()
        .class::<storage::InMemoryStorage>()
        .class::<shared_memory::SharedMemoryStorage>()
        .class::<shared_memory::ApcuStorage>()
        .class::<redis::RedisStorage>()
        .class::<memcached::MemcachedStorage>()
        .class::<fleet::FleetStorage>()
        .class::<events::OpeningCause>()
        .class::<events::CircuitOpened>()
        .class::<events::CircuitHalfOpened>()
        .class::<events::CircuitClosed>()
        .class::<events::CallRejected>()
        .class::<events::StorageFailed>()
        .class::<events::CircuitForced>()
        .class::<events::CircuitReset>()
        .class::<events::StorageRecovered>()
        .class::<status::CircuitStatus>()
        .class::<exporter::PrometheusExporter>()
        .class::<control::CircuitControl>()
        .class::<breaker::CircuitBreaker>()
        .class::<execution::CallExecutor>()
        .class::<execution::CallGate>()
        .class::<execution::Attempt>()
        .class::<execution::CallbackOutcomeClassifier>()
        .class::<http::HttpGuard>()
        .class::<http::HttpBreaker>()
}
