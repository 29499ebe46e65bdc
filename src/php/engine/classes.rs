//! The interfaces and exception classes, registered by hand at module
//! startup: interfaces need exact parameter types so userland classes can
//! implement them as the documentation shows, and exceptions must extend the
//! SPL classes, which the class macros cannot reach at startup.

use std::ffi::CString;
use std::sync::atomic::{AtomicPtr, Ordering};

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, ClassProperty, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags, PropertyFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData, ExecutorGlobals};

use crate::storage::StorageErrorKind;

/// A class entry known once registered at startup.
pub struct ClassSlot(AtomicPtr<ClassEntry>);

impl ClassSlot {
    const fn empty() -> Self {
        Self(AtomicPtr::new(std::ptr::null_mut()))
    }

    fn set(&self, ce: &'static mut ClassEntry) {
        self.0.store(ce, Ordering::Release);
    }

    pub fn get(&self) -> &'static ClassEntry {
        let ce = self.0.load(Ordering::Acquire);
        // SAFETY: every slot is filled during module startup, before any
        // code can run, and class entries live until module shutdown.
        unsafe { ce.as_ref() }.expect("class registered at module startup")
    }
}

pub const NS: &str = "Zeusi\\CircuitBreaker\\";

macro_rules! class_slots {
    ($($slot:ident),* $(,)?) => {
        $(pub static $slot: ClassSlot = ClassSlot::empty();)*
    };
}

class_slots!(
    CIRCUIT_BREAKER_INTERFACE,
    MANUAL_CONTROL_INTERFACE,
    CLOCK_INTERFACE,
    STORAGE_INTERFACE,
    KEY_VALUE_STORE_INTERFACE,
    OPENING_RULE_INTERFACE,
    HALF_OPEN_POLICY_INTERFACE,
    RAMP_CURVE_INTERFACE,
    EVENT_INTERFACE,
    EVENT_LISTENER_INTERFACE,
    OUTCOME_CLASSIFIER_INTERFACE,
    EXCEPTION_INTERFACE,
    CALL_NOT_PERMITTED,
    STORAGE_EXCEPTION,
    INVALID_CONFIGURATION,
);

/// `fn() -> &ClassEntry` getters for `#[php(implements(ce = ...))]`.
pub fn circuit_breaker_interface() -> &'static ClassEntry {
    CIRCUIT_BREAKER_INTERFACE.get()
}
pub fn manual_control_interface() -> &'static ClassEntry {
    MANUAL_CONTROL_INTERFACE.get()
}
pub fn clock_interface() -> &'static ClassEntry {
    CLOCK_INTERFACE.get()
}
pub fn storage_interface() -> &'static ClassEntry {
    STORAGE_INTERFACE.get()
}
pub fn opening_rule_interface() -> &'static ClassEntry {
    OPENING_RULE_INTERFACE.get()
}
pub fn half_open_policy_interface() -> &'static ClassEntry {
    HALF_OPEN_POLICY_INTERFACE.get()
}
pub fn ramp_curve_interface() -> &'static ClassEntry {
    RAMP_CURVE_INTERFACE.get()
}
pub fn event_interface() -> &'static ClassEntry {
    EVENT_INTERFACE.get()
}
pub fn outcome_classifier_interface() -> &'static ClassEntry {
    OUTCOME_CLASSIFIER_INTERFACE.get()
}

const STATE: &str = "Zeusi\\CircuitBreaker\\State";
const REJECTION_REASON: &str = "Zeusi\\CircuitBreaker\\RejectionReason";
const OUTCOME: &str = "Zeusi\\CircuitBreaker\\Outcome";
const CIRCUIT_STATUS: &str = "Zeusi\\CircuitBreaker\\Status\\CircuitStatus";

fn abstract_method(name: &str) -> FunctionBuilder<'static> {
    FunctionBuilder::new_abstract(name)
}

fn arg(name: &str, ty: DataType) -> Arg<'static> {
    Arg::new(name, ty)
}

fn interface(name: &str, methods: Vec<FunctionBuilder<'static>>) -> ClassBuilder {
    methods.into_iter().fold(
        ClassBuilder::new(format!("{NS}{name}")).flags(ClassFlags::Interface),
        |builder, method| builder.method(method, MethodFlags::Public | MethodFlags::Abstract),
    )
}

/// Registers the interfaces. Runs first in module startup, so the classes
/// registered by the macros afterwards can implement them.
pub fn register_interfaces() -> ext_php_rs::error::Result<()> {
    interface(
        "CircuitBreakerInterface",
        vec![
            abstract_method("acquirePermission").returns(DataType::Bool, false, false),
            abstract_method("registerSuccess")
                .not_required()
                .arg(arg("duration", DataType::Double).allow_null().default("null"))
                .returns(DataType::Void, false, false),
            abstract_method("registerFailure")
                .not_required()
                .arg(arg("duration", DataType::Double).allow_null().default("null"))
                .returns(DataType::Void, false, false),
            abstract_method("getState").returns(DataType::object(STATE), false, false),
            abstract_method("getService").returns(DataType::String, false, false),
        ],
    )
    .registration(|ce, _| CIRCUIT_BREAKER_INTERFACE.set(ce))
    .register()?;
    // Apart from CircuitBreakerInterface, so that breakers written in PHP
    // against it keep working: adding methods to an interface breaks every
    // class that implements it.
    interface(
        "ManualControlInterface",
        vec![
            abstract_method("forceOpen")
                .arg(arg("duration", DataType::Double))
                .returns(DataType::Void, false, false),
            abstract_method("forceClosed")
                .arg(arg("duration", DataType::Double))
                .returns(DataType::Void, false, false),
            abstract_method("reset").returns(DataType::Void, false, false),
            abstract_method("getStatus").returns(DataType::object(CIRCUIT_STATUS), false, false),
        ],
    )
    .implements((
        circuit_breaker_interface,
        "Zeusi\\CircuitBreaker\\CircuitBreakerInterface",
    ))
    .registration(|ce, _| MANUAL_CONTROL_INTERFACE.set(ce))
    .register()?;
    interface(
        "Clock\\ClockInterface",
        vec![abstract_method("now").returns(DataType::object("DateTimeImmutable"), false, false)],
    )
    .registration(|ce, _| CLOCK_INTERFACE.set(ce))
    .register()?;
    interface("Storage\\StorageInterface", vec![])
        .registration(|ce, _| STORAGE_INTERFACE.set(ce))
        .register()?;
    // A storage written in PHP: the three primitives the core composes
    // (php/storage/userland.rs), declared so that PHP checks their signatures.
    // It extends StorageInterface, so that it fits every parameter typed
    // with a storage.
    interface(
        "Storage\\KeyValueStoreInterface",
        vec![
            abstract_method("increment")
                .arg(arg("key", DataType::String))
                .arg(arg("ttl", DataType::Long))
                .returns(DataType::Long, false, false),
            abstract_method("getMultiple")
                .arg(arg("keys", DataType::Array))
                .returns(DataType::Array, false, false),
            abstract_method("compareAndSet")
                .arg(arg("key", DataType::String))
                .arg(arg("expected", DataType::String).allow_null())
                .arg(arg("value", DataType::String))
                .arg(arg("ttl", DataType::Long))
                .returns(DataType::Bool, false, false),
        ],
    )
    .implements((storage_interface, "Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))
    .registration(|ce, _| KEY_VALUE_STORE_INTERFACE.set(ce))
    .register()?;
    interface("Opening\\OpeningRuleInterface", vec![])
        .registration(|ce, _| OPENING_RULE_INTERFACE.set(ce))
        .register()?;
    interface(
        "HalfOpen\\HalfOpenPolicyInterface",
        vec![abstract_method("getMaxDuration").returns(DataType::Double, false, false)],
    )
    .registration(|ce, _| HALF_OPEN_POLICY_INTERFACE.set(ce))
    .register()?;
    interface(
        "HalfOpen\\RampCurveInterface",
        vec![
            abstract_method("computeAdmissionRatio")
                .arg(arg("progress", DataType::Double))
                .returns(DataType::Double, false, false),
        ],
    )
    .registration(|ce, _| RAMP_CURVE_INTERFACE.set(ce))
    .register()?;
    interface(
        "Event\\EventInterface",
        vec![
            abstract_method("getService").returns(DataType::String, false, false),
            abstract_method("getTime").returns(DataType::Double, false, false),
        ],
    )
    .registration(|ce, _| EVENT_INTERFACE.set(ce))
    .register()?;
    interface(
        "Event\\EventListenerInterface",
        vec![
            abstract_method("handleEvent")
                .arg(arg(
                    "event",
                    DataType::object("Zeusi\\CircuitBreaker\\Event\\EventInterface"),
                ))
                .returns(DataType::Void, false, false),
        ],
    )
    .registration(|ce, _| EVENT_LISTENER_INTERFACE.set(ce))
    .register()?;
    interface(
        "Execution\\OutcomeClassifierInterface",
        vec![
            abstract_method("classifyException")
                .arg(arg("exception", DataType::object("Throwable")))
                .returns(DataType::object(OUTCOME), false, true),
            abstract_method("classifyResult")
                .arg(arg("result", DataType::Mixed))
                .returns(DataType::object(OUTCOME), false, true),
        ],
    )
    .registration(|ce, _| OUTCOME_CLASSIFIER_INTERFACE.set(ce))
    .register()?;
    Ok(())
}

/// Finds an SPL class entry. `ClassEntry::try_find` cannot see SPL classes
/// during startup, but their exported globals are already set.
pub(super) fn spl_class(symbol: &str) -> &'static ClassEntry {
    let name = CString::new(symbol).expect("symbol names have no NUL");
    // SAFETY: dlsym with RTLD_DEFAULT only reads the loaded symbol tables.
    let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as *const *const ClassEntry;
    // SAFETY: the symbol is a `zend_class_entry *` global of the PHP binary,
    // set by the SPL module, which starts before any extension.
    unsafe { address.as_ref().and_then(|entry| entry.as_ref()) }.expect("SPL is part of every PHP build")
}

fn runtime_exception() -> &'static ClassEntry {
    spl_class("spl_ce_RuntimeException")
}

fn invalid_argument_exception() -> &'static ClassEntry {
    spl_class("spl_ce_InvalidArgumentException")
}

/// The class of `object`.
pub fn class_of(object: &ZendObject) -> Option<&ClassEntry> {
    // SAFETY: a live object's class entry outlives it.
    unsafe { object.ce.as_ref() }
}

/// Runs `f` with the engine's scope set to `class`, so that it can reach the
/// protected properties of our exceptions, as their own methods would.
pub fn in_scope_of<T>(class: &ClassSlot, f: impl FnOnce() -> T) -> T {
    in_scope_of_class(class.get(), f)
}

/// Runs `f` with the engine's scope set to `class`; the scope is put back
/// when `f` returns or unwinds.
pub fn in_scope_of_class<T>(class: &ClassEntry, f: impl FnOnce() -> T) -> T {
    struct Restore(*mut ext_php_rs::ffi::zend_class_entry);
    impl Drop for Restore {
        fn drop(&mut self) {
            ExecutorGlobals::get_mut().fake_scope = self.0;
        }
    }
    let _restore = Restore(ExecutorGlobals::get().fake_scope);
    ExecutorGlobals::get_mut().fake_scope = std::ptr::from_ref(class).cast_mut();
    f()
}

/// Reads a property of `$this` into the return value: the getters of
/// `CallNotPermittedException`.
fn return_property(execute_data: &mut ExecuteData, retval: &mut Zval, name: &str) {
    let Some(this) = execute_data.get_self() else {
        return;
    };
    match in_scope_of(&CALL_NOT_PERMITTED, || {
        this.get_property::<&Zval>(name).map(Zval::shallow_clone)
    }) {
        Ok(value) => *retval = value,
        Err(_) => retval.set_null(),
    }
}

extern "C" fn get_service(execute_data: &mut ExecuteData, retval: &mut Zval) {
    return_property(execute_data, retval, "service");
}

extern "C" fn get_state(execute_data: &mut ExecuteData, retval: &mut Zval) {
    return_property(execute_data, retval, "state");
}

extern "C" fn get_retry_after(execute_data: &mut ExecuteData, retval: &mut Zval) {
    return_property(execute_data, retval, "retryAfter");
}

extern "C" fn get_reason(execute_data: &mut ExecuteData, retval: &mut Zval) {
    return_property(execute_data, retval, "reason");
}

fn property(name: &str, ty: DataType, nullable: bool) -> ClassProperty {
    ClassProperty {
        name: name.into(),
        flags: PropertyFlags::Protected,
        default: Some(Box::new(move || {
            let mut default = Zval::new();
            if nullable {
                default.set_null()
            } else {
                default.set_string("", false)?
            }
            Ok(default)
        })),
        docs: &[],
        ty: Some(ty),
        nullable,
        readonly: false,
        default_stub: None,
    }
}

fn exception_interface() -> &'static ClassEntry {
    EXCEPTION_INTERFACE.get()
}

const EXCEPTION_INTERFACE_NAME: &str = "Zeusi\\CircuitBreaker\\Exception\\CircuitBreakerExceptionInterface";

/// Registers the exception classes, each extending its SPL parent and
/// implementing one interface that catches them all (as Guzzle's
/// `GuzzleException`), so a caller need not list them.
pub fn register_exceptions() -> ext_php_rs::error::Result<()> {
    ClassBuilder::new(EXCEPTION_INTERFACE_NAME)
        .flags(ClassFlags::Interface)
        .implements((ext_php_rs::zend::ce::throwable, "Throwable"))
        .registration(|ce, _| EXCEPTION_INTERFACE.set(ce))
        .register()?;
    ClassBuilder::new(format!("{NS}Exception\\CallNotPermittedException"))
        .extends((runtime_exception, "RuntimeException"))
        .implements((exception_interface, EXCEPTION_INTERFACE_NAME))
        .property(property("service", DataType::String, false))
        .property(property("state", DataType::object(STATE), true))
        .property(property("retryAfter", DataType::Double, true))
        .property(property("reason", DataType::object(REJECTION_REASON), true))
        .method(
            FunctionBuilder::new("getService", get_service).returns(DataType::String, false, false),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("getState", get_state).returns(DataType::object(STATE), false, true),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("getRetryAfter", get_retry_after).returns(DataType::Double, false, true),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("getReason", get_reason).returns(DataType::object(REJECTION_REASON), false, true),
            MethodFlags::Public,
        )
        .registration(|ce, _| CALL_NOT_PERMITTED.set(ce))
        .register()?;
    // Its code is the kind of the storage's failure, one constant each.
    StorageErrorKind::ALL
        .into_iter()
        .try_fold(
            ClassBuilder::new(format!("{NS}Exception\\StorageException"))
                .extends((runtime_exception, "RuntimeException"))
                .implements((exception_interface, EXCEPTION_INTERFACE_NAME)),
            |builder, kind| builder.constant(kind.constant_name(), i64::from(kind.code()), &[], ConstantFlags::Public),
        )?
        .registration(|ce, _| STORAGE_EXCEPTION.set(ce))
        .register()?;
    ClassBuilder::new(format!("{NS}Exception\\InvalidConfigurationException"))
        .extends((invalid_argument_exception, "InvalidArgumentException"))
        .implements((exception_interface, EXCEPTION_INTERFACE_NAME))
        .registration(|ce, _| INVALID_CONFIGURATION.set(ce))
        .register()?;
    Ok(())
}
