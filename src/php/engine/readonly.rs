//! Read-only properties as PHP's own: the values of rules, configurations,
//! events, opening causes and statuses are getters of the Rust object, which
//! ext-php-rs declares as untyped public properties and refuses to write
//! with a bare `\Exception` ("No setter available"). Here they throw the
//! `Error` PHP throws for a `readonly` property, and reflection shows them
//! typed and readonly, as the stubs declare them.

use std::sync::atomic::{AtomicBool, Ordering};

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::ffi::{zend_object, zend_property_info, zend_string, zend_type, zval};
use ext_php_rs::types::ZendStr;
use ext_php_rs::zend::ZendObjectHandlers;

use super::ffi::{zend_hash_str_find, zend_std_unset_property, zend_std_write_property};

/// `ZEND_ACC_READONLY` (Zend/zend_compile.h), a property flag since PHP 8.1.
const ACC_READONLY: u32 = 1 << 7;

/// The declared type of a read-only property.
#[derive(Clone, Copy)]
pub enum Type {
    Bool,
    Int,
    NullableInt,
    Float,
    NullableFloat,
    String,
    Array,
    NullableArray,
    Object(&'static str),
    NullableObject(&'static str),
}

impl Type {
    /// The `State` enum.
    pub const STATE: Self = Self::Object("Zeusi\\CircuitBreaker\\State");
    /// A date, or none.
    pub const DATE: Self = Self::NullableObject("DateTimeImmutable");

    fn zend_type(self) -> zend_type {
        let mask = |codes: &[u32]| zend_type {
            ptr: std::ptr::null_mut(),
            type_mask: codes.iter().fold(0, |mask, code| mask | 1 << code),
        };
        // A class type holds its name as a zend_string that lives as long
        // as the class: an interned, persistent one.
        let class = |name: &str, extra: u32| zend_type {
            ptr: ZendStr::new_interned(name, true).into_raw().cast(),
            type_mask: ext_php_rs::ffi::_ZEND_TYPE_NAME_BIT | extra,
        };
        use ext_php_rs::ffi::{IS_ARRAY, IS_DOUBLE, IS_FALSE, IS_LONG, IS_NULL, IS_STRING, IS_TRUE};
        match self {
            Self::Bool => mask(&[IS_FALSE, IS_TRUE]),
            Self::Int => mask(&[IS_LONG]),
            Self::NullableInt => mask(&[IS_LONG, IS_NULL]),
            Self::Float => mask(&[IS_DOUBLE]),
            Self::NullableFloat => mask(&[IS_DOUBLE, IS_NULL]),
            Self::String => mask(&[IS_STRING]),
            Self::Array => mask(&[IS_ARRAY]),
            Self::NullableArray => mask(&[IS_ARRAY, IS_NULL]),
            Self::Object(name) => class(name, 0),
            Self::NullableObject(name) => class(name, ext_php_rs::ffi::_ZEND_TYPE_NULLABLE_BIT),
        }
    }
}

/// A class whose getter properties are read-only, with their types.
pub trait ReadOnlyProperties: RegisteredClass {
    const PROPERTIES: &'static [(&'static str, Type)];
}

/// `read_only!(Class, [("property", Type::Int), ...])`, beside the class.
macro_rules! read_only {
    ($class:ty, [$(($name:literal, $type:expr)),* $(,)?]) => {
        impl ReadOnlyProperties for $class {
            const PROPERTIES: &'static [(&'static str, Type)] = &[$(($name, $type)),*];
        }
    };
}
pub(crate) use read_only;

fn is_read_only<T: ReadOnlyProperties>(member: *mut zend_string) -> Option<&'static str> {
    // SAFETY: the engine passes the property name as a live zend_string.
    let name = unsafe { member.cast::<ZendStr>().as_ref() }?.as_str().ok()?;
    T::PROPERTIES
        .iter()
        .find(|(property, _)| *property == name)
        .map(|(property, _)| *property)
}

fn throw_error(message: String) {
    super::throwable::readonly_error(message).throw();
}

unsafe extern "C" fn write_property<T: ReadOnlyProperties>(
    object: *mut zend_object,
    member: *mut zend_string,
    value: *mut zval,
    _cache_slot: *mut *mut std::ffi::c_void,
) -> *mut zval {
    if let Some(name) = is_read_only::<T>(member) {
        throw_error(format!("Cannot modify readonly property {}::${name}", T::CLASS_NAME));
        return value;
    }
    // Any other property is an ordinary one (a dynamic property, or one a
    // subclass declares); without a cache slot, the engine looks it up.
    // SAFETY: the arguments are the engine's own, passed through.
    unsafe { zend_std_write_property(object, member, value, std::ptr::null_mut()) }
}

unsafe extern "C" fn unset_property<T: ReadOnlyProperties>(
    object: *mut zend_object,
    member: *mut zend_string,
    _cache_slot: *mut *mut std::ffi::c_void,
) {
    if let Some(name) = is_read_only::<T>(member) {
        throw_error(format!("Cannot unset readonly property {}::${name}", T::CLASS_NAME));
        return;
    }
    // SAFETY: as in `write_property`.
    unsafe { zend_std_unset_property(object, member, std::ptr::null_mut()) }
}

/// Points the class's write and unset handlers at ours. Runs at module
/// startup, before any object exists (as `gc::install`).
pub fn install<T: ReadOnlyProperties>() {
    let handlers: *mut ZendObjectHandlers = std::ptr::from_ref(T::get_metadata().handlers()).cast_mut();
    // SAFETY: as in `gc::install`: static handlers, no object yet.
    unsafe {
        (*handlers).write_property = Some(write_property::<T>);
        (*handlers).unset_property = Some(unset_property::<T>);
    }
}

/// Gives the declared properties of the class their type and the readonly
/// flag, for reflection. The engine never reads or writes them itself (the
/// handlers of ext-php-rs and ours come first), so this changes nothing else.
pub fn declare<T: ReadOnlyProperties>() {
    let class = T::get_metadata().ce();
    for (name, ty) in T::PROPERTIES {
        // SAFETY: `properties_info` of a registered class maps names to
        // `zend_property_info` pointers, alive as long as the class.
        unsafe {
            let found = zend_hash_str_find(&raw const class.properties_info, name.as_ptr().cast(), name.len());
            let Some(info) = found
                .as_ref()
                .and_then(|found| found.value.ptr.cast::<zend_property_info>().as_mut())
            else {
                continue;
            };
            if info.flags & ACC_READONLY == 0 {
                info.type_ = ty.zend_type();
                info.flags |= ACC_READONLY;
            }
        }
    }
}

static DECLARED: AtomicBool = AtomicBool::new(false);

/// At module shutdown: a restart registers the classes anew.
pub fn shutdown() {
    DECLARED.store(false, Ordering::Release);
}

/// Runs `declare` once per process, at the first request start, when every
/// class is registered (module startup runs before the classes of the
/// macros are).
pub fn declare_types(declare: impl FnOnce()) {
    if DECLARED.swap(true, Ordering::AcqRel) {
        return;
    }
    declare();
}
