//! What our objects hold, told to PHP's cycle collector.
//!
//! A PHP value kept in a Rust field (a listener, a classifier, a clock, a
//! userland storage) is a reference the collector cannot see unless the
//! object's `get_gc` handler reports it: a listener that holds its breaker
//! would otherwise make a cycle that is freed only at the end of the request.
//! Each class says which values it holds (`HoldsPhpValues`), and one generic
//! handler reports them with the object's properties.
//!
//! Every value must be reported exactly as many times as the object holds a
//! reference to it: the collector subtracts one per report, and reporting a
//! value twice could make it look unreachable while it is still in use.

use std::os::raw::c_int;

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::ffi::{zend_array, zend_object, zval};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ZendObjectHandlers;

use super::ffi::{GcBuffer as RawGcBuffer, zend_get_gc_buffer_create, zend_get_gc_buffer_grow};

/// `IS_TYPE_REFCOUNTED << Z_TYPE_FLAGS_SHIFT` (Zend/zend_types.h).
const TYPE_REFCOUNTED: u32 = 1 << 8;

/// The values an object reports, gathered into the engine's buffer.
pub struct GcBuffer(*mut RawGcBuffer);

impl GcBuffer {
    /// `zend_get_gc_buffer_add_zval`: only counted values matter to the
    /// collector.
    pub fn add(&mut self, value: &Zval) {
        // SAFETY: `self.0` is the buffer `zend_get_gc_buffer_create` returned
        // for this handler call; `grow` makes room when `cur` reaches `end`,
        // and the zval is copied bitwise, as the engine's inline helper does
        // (the buffer borrows the reference, it does not own one).
        unsafe {
            if value.u1.type_info & TYPE_REFCOUNTED == 0 {
                return;
            }
            let buffer = &mut *self.0;
            if buffer.cur == buffer.end {
                zend_get_gc_buffer_grow(self.0);
            }
            let buffer = &mut *self.0;
            std::ptr::copy_nonoverlapping(std::ptr::from_ref::<zval>(value), buffer.cur, 1);
            buffer.cur = buffer.cur.add(1);
        }
    }

    pub fn add_all<'a>(&mut self, values: impl IntoIterator<Item = &'a Zval>) {
        for value in values {
            self.add(value);
        }
    }
}

/// The PHP values an object of this class holds in its Rust fields, each
/// once per reference it owns.
pub trait HoldsPhpValues: RegisteredClass {
    fn report(&self, buffer: &mut GcBuffer);
}

/// The `get_gc` handler: the declared properties (or the property table once
/// PHP made one) and the values of the Rust object.
unsafe extern "C" fn get_gc<T: HoldsPhpValues>(
    object: *mut zend_object,
    table: *mut *mut zval,
    count: *mut c_int,
) -> *mut zend_array {
    // SAFETY: the collector calls this with a live object of a class whose
    // handlers are ours (`install`), and valid out-pointers; the buffer comes
    // from the engine and is consumed by the caller before the next call.
    unsafe {
        let buffer = zend_get_gc_buffer_create();
        let mut gc = GcBuffer(buffer);
        let std = &mut *object;
        // Once PHP built the property table it holds every property (declared
        // ones through indirections): the collector walks it, as for
        // `zend_std_get_gc`.
        let properties = std.properties;
        if properties.is_null() {
            let declared = (*std.ce).default_properties_count.max(0) as usize;
            let first = std.properties_table.as_mut_ptr();
            for index in 0..declared {
                gc.add(&*first.add(index));
            }
        }
        let native = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(native) = super::handlers::native::<T>(&*object) {
                native.report(&mut gc);
            }
        }));
        // A panic while reporting leaves some values unreported: a cycle
        // through them leaks, which is safe; unwinding into C is not.
        drop(native);
        let buffer = &*buffer;
        *table = buffer.start;
        *count = buffer.cur.offset_from(buffer.start) as c_int;
        properties
    }
}

/// Points the class's `get_gc` at ours. Runs at module startup, before any
/// object of the class exists; running it again (a restart in the same
/// process) writes the same pointer.
pub fn install<T: HoldsPhpValues>() {
    let handlers: *mut ZendObjectHandlers = std::ptr::from_ref(T::get_metadata().handlers()).cast_mut();
    // SAFETY: the handlers live in a static `OnceCell` (an `UnsafeCell`, so
    // writable memory) initialised just above; only the engine reads them,
    // through the raw pointer each object carries, and no object exists yet
    // during module startup, so nothing reads this field while it is written.
    unsafe { (*handlers).get_gc = Some(get_gc::<T>) };
}
