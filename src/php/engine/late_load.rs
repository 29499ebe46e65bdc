//! Loaded after PHP started: `php_admin_value[extension]` in a PHP-FPM pool.
//!
//! php-fpm applies a pool's `php_admin_value`s in each worker after the
//! fork, so the module starts there, after the engine finished its own
//! startup. The engine keeps per-request pointers of internal classes and
//! functions in "map_ptr" slots (an enum's case objects, a method's runtime
//! cache); slots made after startup lie past the mark that `zend_deactivate`
//! resets the table to when it holds request interned strings (no OPcache),
//! so the next request neither clears them nor keeps them for us: a case
//! object freed with the last request was read again (a crash on every
//! second request), and the engine could hand the slots to the request's
//! class-name caches. At each request start we take our slots back, cleared,
//! with `zend_map_ptr_extend`, as OPcache does for its own.

use std::sync::atomic::{AtomicUsize, Ordering};

use ext_php_rs::ffi::{ZEND_INTERNAL_FUNCTION, ext_php_rs_compiler_globals, zend_class_entry, zend_function};
use ext_php_rs::types::ZendHashTable;

use super::ffi::zend_map_ptr_extend;

/// How many map_ptr slots our classes and functions need: one past the last
/// of them. Zero until computed by the first request start of this module
/// start, once every class is registered.
static SLOTS_NEEDED: AtomicUsize = AtomicUsize::new(0);

const NAMESPACE: &str = "Zeusi\\CircuitBreaker\\";

/// `ZEND_INTERNAL_CLASS` (Zend/zend_compile.h): a class of an extension,
/// not one a script declared in our namespace (the integrations package).
const INTERNAL_CLASS: std::ffi::c_char = 1;

/// The slot index of a map_ptr field holding an offset (PHP 8.2's
/// `ZEND_MAP_PTR_KIND_PTR_OR_OFFSET`: offsets are odd, biased by one byte),
/// or None when it holds a direct pointer or nothing. PHP 8.4 keeps the
/// kind and the bias, and adds static slots before the base: negative
/// offsets (ZTS, and OPcache's preloaded enums), never slots of the table
/// `zend_map_ptr_extend` grows.
fn slot_of(map_ptr: *mut std::ffi::c_void) -> Option<usize> {
    let offset = map_ptr as isize;
    (offset > 0 && offset & 1 == 1).then(|| (offset as usize - 1) / size_of::<*mut std::ffi::c_void>())
}

/// One past the last map_ptr slot of our classes and their methods.
fn slots_needed() -> usize {
    // SAFETY: runs on the request thread while the engine is between
    // requests' phases (RINIT); the class table and its entries are alive
    // and not being modified.
    unsafe {
        let globals = &*ext_php_rs_compiler_globals();
        let Some(classes) = globals.class_table.as_ref() else {
            return 0;
        };
        let mut needed = 0;
        let mut note = |map_ptr: *mut std::ffi::c_void| {
            if let Some(slot) = slot_of(map_ptr) {
                needed = needed.max(slot + 1);
            }
        };
        for class in ZendHashTable::values(classes) {
            let Some(class) = class.ptr::<zend_class_entry>().and_then(|class| class.as_ref()) else {
                continue;
            };
            if class.type_ != INTERNAL_CLASS || !class.name().is_some_and(|name| name.starts_with(NAMESPACE)) {
                continue;
            }
            note(class.mutable_data__ptr.cast());
            note(class.static_members_table__ptr.cast());
            for method in ZendHashTable::values(&class.function_table) {
                if let Some(method) = method.ptr::<zend_function>().and_then(|method| method.as_ref())
                    && u32::from(method.type_) == ZEND_INTERNAL_FUNCTION
                {
                    note(method.internal_function.run_time_cache__ptr.cast());
                }
            }
        }
        needed
    }
}

/// At each request start: when our slots lie past the engine's current
/// table, takes them back, cleared. `quiet`: loaded late on purpose, no
/// notice.
pub fn request_startup(quiet: bool) {
    // `php_dl()` with `start_now`, as php-fpm loads a pool's extension,
    // calls this right after module startup, outside any request: the
    // executor is not active then, as it is in every request.
    // A named segment is shared whenever the module starts: no notice.
    if !super::globals::executor_active() && !quiet {
        note_loaded_late();
    }
    let needed = match SLOTS_NEEDED.load(Ordering::Relaxed) {
        0 => {
            let needed = slots_needed().max(1);
            SLOTS_NEEDED.store(needed, Ordering::Relaxed);
            needed
        }
        needed => needed,
    };
    // SAFETY: reading the compiler globals of this thread at request start.
    let last = unsafe { (*ext_php_rs_compiler_globals()).map_ptr_last };
    if needed > last {
        // SAFETY: extends this thread's map_ptr table, zeroing the new
        // slots; nothing of this request holds a slot past `last` yet.
        unsafe { zend_map_ptr_extend(needed) };
    }
}

/// Forgets the slots at module shutdown: a later start registers anew.
pub fn shutdown() {
    SLOTS_NEEDED.store(0, Ordering::Relaxed);
}

/// Says once per process that this process has circuits of its own.
/// A worker is a process of its own (the master never loaded the module),
/// so each worker says it once.
fn note_loaded_late() {
    static NOTED: std::sync::Once = std::sync::Once::new();
    NOTED.call_once(|| {
        super::log_notice(
            "circuit_breaker: loaded after PHP started (php_admin_value[extension] in a PHP-FPM pool?): \
            this worker has its own shared memory segment, so circuits are not shared with other workers; \
            load the extension in php.ini to share them",
        );
    });
}
