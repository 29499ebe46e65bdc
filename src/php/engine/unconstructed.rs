//! Objects of our classes made without their constructor
//! (`ReflectionClass::newInstanceWithoutConstructor()`, as hydrators and
//! mocking libraries make them) hold no Rust value. ext-php-rs answers
//! their methods with "Failed to retrieve reference to `$this`" and their
//! properties with null; here both throw an `Error` that names the class
//! and says it was not constructed. Every non-static method of our classes
//! but the constructors gets a handler that checks, then runs the one it
//! replaced (the hot methods of `CircuitBreaker`, installed after, check
//! for themselves); the property reads of each class are checked the same way.

use std::ffi::{c_int, c_void};

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{zend_execute_data, zend_function, zend_object, zend_string, zval};
use ext_php_rs::types::{ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ExecuteData, ZendObjectHandlers};

use super::ffi::zend_std_read_property;
use super::module_global::ModuleGlobal;
use crate::http::target::FastMap;

type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);
type ReadProperty =
    unsafe extern "C" fn(*mut zend_object, *mut zend_string, c_int, *mut *mut c_void, *mut zval) -> *mut zval;

#[derive(Clone, Copy)]
struct GuardedReads {
    original: ReadProperty,
    constructed: fn(&ZendObject) -> bool,
}

/// What is guarded: the handler each method had, by its declaring class
/// and name (the engine copies the `zend_function` of an inherited method,
/// into a subclass declared later too), and for each class, by its
/// handlers (those of every object it makes, a subclass's included), its
/// read handler and how to tell its objects constructed.
#[derive(Default)]
pub struct Guards {
    methods: FastMap<(usize, usize), Handler>,
    reads: FastMap<usize, GuardedReads>,
}

/// Set once per module startup, before any object exists, and left as it
/// is until module shutdown; read by every guarded call (one load).
static GUARDS: ModuleGlobal<Guards> = ModuleGlobal::new();

/// What is guarded, once installed.
fn guards() -> Option<&'static Guards> {
    GUARDS.get()
}

fn constructed<T: RegisteredClass>(object: &ZendObject) -> bool {
    super::handlers::native::<T>(object).is_some()
}

/// The class of `value` when it is an object of ours made without its
/// constructor, for the messages of argument checks.
pub fn unconstructed_class(value: &Zval) -> Option<String> {
    let object = value.object()?;
    let reads = guards()?.reads.get(&(object.handlers as usize))?;
    (!(reads.constructed)(object)).then(|| object.get_class_name().unwrap_or_default())
}

pub fn not_constructed(class: &str) -> String {
    format!(
        "the {class} object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor"
    )
}

fn throw_error(message: String) {
    PhpException::new(message, 0, ext_php_rs::zend::ce::error()).throw();
}

/// Throws the `Error` of a method called on an object of ours that was not
/// constructed, naming the object's class and the method.
pub fn throw_not_constructed(frame: &mut ExecuteData) {
    // SAFETY: `func` is the live `zend_function` of this call; its name is
    // a zend_string of the class's function table.
    let method = unsafe {
        frame
            .func
            .as_ref()
            .and_then(|func| func.common.function_name.cast::<ZendStr>().as_ref())
    }
    .and_then(|name| name.as_str().ok())
    .unwrap_or("a method")
    .to_owned();
    let class = frame
        .get_self()
        .map(|this| this.get_class_name().unwrap_or_default())
        .unwrap_or_default();
    throw_error(format!("{class}::{method}(): {}", not_constructed(&class)));
}

/// The handler of every guarded method.
unsafe extern "C" fn checked(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's live frame of this call; `func` is the function it runs.
    let Some(frame) = (unsafe { execute_data.cast::<ExecuteData>().as_mut() }) else {
        return;
    };
    // SAFETY: `func` is the live `zend_function` of this call.
    let Some(common) = (unsafe { frame.func.as_ref() }).map(|func| unsafe { func.common }) else {
        return;
    };
    let guards = guards();
    let original = guards.and_then(|guards| {
        guards
            .methods
            .get(&(common.scope as usize, common.function_name as usize))
            .copied()
    });
    let Some(original) = original else {
        return throw_error("internal error of circuit_breaker: a method lost its handler".to_owned());
    };
    // The object's class is told by its handlers: those of the class of
    // ours that made it, a subclass's object included.
    let unconstructed = frame.get_self().is_some_and(|this| {
        guards
            .and_then(|guards| guards.reads.get(&(this.handlers as usize)))
            .is_some_and(|reads| !(reads.constructed)(this))
    });
    if unconstructed {
        return throw_not_constructed(frame);
    }
    // SAFETY: the handler this one replaced, given the engine's own arguments.
    unsafe { original(execute_data, return_value) }
}

/// The read handler of `T`: a property of `T` (a getter of its Rust value)
/// read on an object not constructed throws; any other goes on.
unsafe extern "C" fn read_property<T: RegisteredClass>(
    object: *mut zend_object,
    member: *mut zend_string,
    type_: c_int,
    cache_slot: *mut *mut c_void,
    rv: *mut zval,
) -> *mut zval {
    // SAFETY: the engine passes a live object, whose handlers are static,
    // and the property name as a live zend_string.
    let (this, name) = unsafe {
        (
            object.as_ref(),
            member.cast::<ZendStr>().as_ref().and_then(|name| name.as_str().ok()),
        )
    };
    // SAFETY: the engine passes a live object, whose handlers are static.
    let handlers = unsafe { (*object).handlers } as usize;
    let Some(reads) = guards().and_then(|guards| guards.reads.get(&handlers).copied()) else {
        // SAFETY: as above: the engine's own arguments.
        return unsafe { zend_std_read_property(object, member, type_, cache_slot, rv) };
    };
    if let (Some(this), Some(name)) = (this, name)
        && !(reads.constructed)(this)
        && T::get_metadata().find_property(name).is_some()
    {
        let class = this.get_class_name().unwrap_or_default();
        throw_error(format!("Cannot read {class}::${name}: {}", not_constructed(&class)));
        // SAFETY: `rv` is the engine's slot for the value read: null, with
        // the exception pending, as the engine's own handlers leave it.
        if let Some(value) = unsafe { rv.cast::<Zval>().as_mut() } {
            value.set_null();
        }
        return rv;
    }
    // SAFETY: the handler this one replaced, given the engine's own arguments.
    unsafe { (reads.original)(object, member, type_, cache_slot, rv) }
}

impl Guards {
    /// Guards the methods and property reads of `T`.
    pub fn guard<T: RegisteredClass>(&mut self) {
        let metadata = T::get_metadata();
        let class = metadata.ce();
        // SAFETY: a registered class's function table lives as long as the
        // module; its values are `zend_function` pointers, internal ones for
        // the methods of ours. Nothing runs them while a request starts.
        unsafe {
            for function in class.function_table.values() {
                let Some(function) = function.ptr::<zend_function>().and_then(|function| function.as_mut()) else {
                    continue;
                };
                let common = &function.common;
                let is_static = common.fn_flags & ext_php_rs::ffi::ZEND_ACC_STATIC != 0;
                let is_constructor = common
                    .function_name
                    .cast::<ZendStr>()
                    .as_ref()
                    .and_then(|name| name.as_str().ok())
                    .is_some_and(|name| name.eq_ignore_ascii_case("__construct"));
                let is_abstract = common.fn_flags & ext_php_rs::ffi::ZEND_ACC_ABSTRACT != 0;
                if is_static
                    || is_abstract
                    || is_constructor
                    || u32::from(common.type_) != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION
                {
                    continue;
                }
                // An inherited method is the engine's copy of the parent's,
                // made before it was guarded, or the parent's own, guarded already.
                if let Some(original) = function.internal_function.handler
                    && !std::ptr::eq(original as *const (), checked as *const ())
                {
                    self.methods
                        .insert((common.scope as usize, common.function_name as usize), original);
                    function.internal_function.handler = Some(checked);
                }
            }
            let handlers: *mut ZendObjectHandlers = std::ptr::from_ref(metadata.handlers()).cast_mut();
            if let Some(original) = (*handlers).read_property {
                self.reads.insert(
                    handlers as usize,
                    GuardedReads {
                        original,
                        constructed: constructed::<T>,
                    },
                );
                (*handlers).read_property = Some(read_property::<T>);
            }
        }
    }
}

/// Guards the classes `guard` names, once per module startup, after they
/// are registered and before the hot methods get their own handlers.
pub fn install(guard: impl FnOnce(&mut Guards)) {
    if guards().is_some() {
        return;
    }
    let mut new = Guards::default();
    guard(&mut new);
    GUARDS.set(new);
}

/// At module shutdown: a restart registers the classes, their functions
/// and handlers anew.
pub fn shutdown() {
    GUARDS.clear();
}
