//! The PHP binding: classes, interfaces, enums and exceptions over the core,
//! in three wings: `engine/` (everything beneath ext-php-rs, the only module
//! exempt from the crate's ban on unchecked code), the class families here, and `storage/` (the storage
//! classes). The module's startup and shutdown, and the one table of our
//! classes with the engine features each takes, are below.

mod breaker;
mod bulkhead;
mod clock;
mod configuration;
mod control;
mod engine;
mod enums;
mod error;
mod events;
mod execution;
mod exporter;
mod http;
mod log;
mod params;
mod status;
mod storage;
#[cfg(feature = "testing")]
mod testing;
mod throttle;

use ext_php_rs::prelude::*;
use ext_php_rs::zend::ModuleEntry;

use engine::unconstructed::Guards;
use storage::shared_memory;

/// The engine features a class of the table takes, besides its registration
/// and the guard of objects made without their constructor:
/// - `gc`: its Rust fields hold PHP values ([`engine::gc::HoldsPhpValues`]),
///   reported to the cycle collector;
/// - `read_only`: its getter properties are read-only and typed
///   ([`engine::readonly::ReadOnlyProperties`]);
/// - `new`: its `__construct` runs through our handler
///   ([`engine::handlers::FastConstruct`]);
/// - `hot`: some of its methods (or named constructors) run through our
///   handlers (its `replace_hot_methods()`).
macro_rules! feature {
    (module_startup, gc, $class:ty) => {
        engine::gc::install::<$class>()
    };
    (module_startup, read_only, $class:ty) => {
        engine::readonly::install::<$class>()
    };
    (first_request, read_only, $class:ty) => {
        engine::readonly::declare::<$class>()
    };
    (handlers, new, $class:ty) => {
        engine::handlers::replace_constructor::<$class>()
    };
    (handlers, hot, $class:ty) => {
        <$class>::replace_hot_methods()
    };
    // Each feature is named in every phase, so that a word the table does
    // not know fails to build instead of enrolling the class in nothing.
    (module_startup, new, $class:ty) => {};
    (module_startup, hot, $class:ty) => {};
    (first_request, gc, $class:ty) => {};
    (first_request, new, $class:ty) => {};
    (first_request, hot, $class:ty) => {};
    (handlers, gc, $class:ty) => {};
    (handlers, read_only, $class:ty) => {};
}

/// The one table of the classes: registered in this order, each given the
/// engine features it names.
macro_rules! classes {
    ($($class:path $(: $($feature:ident),+)?;)*) => {
        fn register_classes(module: ModuleBuilder) -> ModuleBuilder {
            module $(.class::<$class>())*
        }

        fn guard_unconstructed(guards: &mut Guards) {
            $(guards.guard::<$class>();)*
        }

        /// At module startup, before any object exists.
        fn install_object_handlers() {
            $(engine::handlers::replace_free::<$class>();)*
            $($($(feature!(module_startup, $feature, $class);)+)?)*
        }

        /// At the first request start, once every class is registered.
        fn declare_property_types() {
            $($($(feature!(first_request, $feature, $class);)+)?)*
        }

        /// At the first request start: the methods' handlers.
        fn replace_handlers() {
            $($($(feature!(handlers, $feature, $class);)+)?)*
        }
    };
}

classes! {
    configuration::FailureRateRule: read_only, new;
    configuration::SlowCallRateRule: read_only;
    configuration::FailureOrSlowCallRateRule: read_only;
    configuration::ConsecutiveFailuresRule: read_only;
    configuration::AdaptiveThrottlingRule: read_only;
    configuration::ExponentialRampCurve;
    configuration::PowerRampCurve;
    configuration::RampPolicy: gc, hot;
    configuration::PermittedCallsPolicy: read_only;
    configuration::Configuration: gc, read_only, new;
    clock::SystemClock;
    clock::MockClock;
    storage::memory::InMemoryStorage: gc;
    storage::shared_memory::SharedMemoryStorage: new;
    storage::shared_memory::ApcuStorage;
    storage::redis::RedisStorage;
    storage::memcached::MemcachedStorage;
    storage::fleet::FleetStorage;
    events::OpeningCause: gc, read_only;
    events::CircuitOpened: gc, read_only;
    events::CircuitHalfOpened;
    events::CircuitClosed;
    events::CallRejected: read_only;
    events::StorageFailed: gc, read_only;
    events::CircuitForced: read_only;
    events::CircuitReset;
    events::StorageRecovered;
    status::CircuitStatus: gc, read_only;
    exporter::PrometheusExporter;
    control::CircuitControl: gc;
    breaker::CircuitBreaker: gc, new, hot;
    execution::CallExecutor: gc;
    execution::CallGate: gc;
    execution::Attempt: gc;
    execution::CallbackOutcomeClassifier: gc;
    http::HttpGuard;
    http::HttpBreaker;
}

/// Runs in MINIT before the classes of the macros are registered: those
/// implement our interfaces, which must exist first.
fn startup(_ty: i32, module_number: i32) -> i32 {
    engine::callback::install_panic_hook();
    shared_memory::startup(module_number);
    bulkhead::startup();
    // Whatever module startup reads: a PHP-FPM pool may guard hosts that
    // the master's php.ini does not (http::request_startup).
    http::startup(module_number);
    engine::transfer::register(engine::transfer::Guard {
        admit: http::admit,
        standing_aside: http::standing_aside,
    });
    engine::streams::install();
    log::startup(module_number);
    install_object_handlers();
    match engine::classes::register_interfaces().and_then(|()| engine::classes::register_exceptions()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

extern "C" fn shutdown(_ty: i32, _module_number: i32) -> i32 {
    shared_memory::shutdown();
    configuration::forget_interned();
    engine::late_load::shutdown();
    engine::readonly::shutdown();
    engine::unconstructed::shutdown();
    0
}

extern "C" fn request_startup(_ty: i32, _module_number: i32) -> i32 {
    // A named segment is shared whenever the module starts: no notice of
    // a late load.
    engine::late_load::request_startup(shared_memory::is_named());
    shared_memory::request_startup();
    engine::readonly::declare_types(declare_property_types);
    engine::unconstructed::install(guard_unconstructed);
    static HANDLERS: std::sync::Once = std::sync::Once::new();
    HANDLERS.call_once(replace_handlers);
    http::request_startup();
    if http::enabled() {
        engine::curl::install();
    }
    0
}

extern "C" fn request_shutdown(_ty: i32, _module_number: i32) -> i32 {
    engine::curl::request_shutdown();
    bulkhead::request_shutdown();
    0
}

/// phpinfo() and `php --ri`.
extern "C" fn info(module: *mut ModuleEntry) {
    let mut rows = vec![
        ("circuit_breaker support", "enabled".to_owned()),
        ("version", env!("CARGO_PKG_VERSION").to_owned()),
    ];
    rows.extend(shared_memory::info_rows());
    rows.extend(http::info_rows());
    engine::module_info::print(module, rows);
}

#[php_module]
#[php(startup = "startup")]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    // Only in a `testing` build (src/php/testing.rs).
    #[cfg(feature = "testing")]
    let module = module.function(testing::test_panic_function());
    let module = module
        .info_function(info)
        .shutdown_function(shutdown)
        .request_startup_function(request_startup)
        .request_shutdown_function(request_shutdown)
        .enumeration::<enums::State>()
        .enumeration::<enums::Outcome>()
        .enumeration::<enums::RejectionReason>();
    register_classes(module)
}
