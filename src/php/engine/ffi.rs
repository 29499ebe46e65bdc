//! The engine's C functions that ext-php-rs' bindings do not export, each
//! declared once, under the header that declares it in php-src (8.2 to
//! 8.4 declare them alike). Every one is exported by the PHP binary an
//! extension is loaded into; `ZEND_FASTCALL` is empty on 64-bit targets, so
//! those are plain C functions. The engine's structures bindgen leaves out
//! are declared here too.

use std::ffi::{c_char, c_int, c_void};

use ext_php_rs::ffi::{
    HashTable, php_stream_wrapper, zend_class_entry, zend_execute_data, zend_long, zend_object, zend_string, zend_type,
    zval,
};
use ext_php_rs::zend::ModuleEntry;

/// The handler of an internal function or method.
pub type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

/// `zend_get_gc_buffer` (Zend/zend_gc.h): the per-request buffer a `get_gc`
/// handler fills.
#[repr(C)]
pub struct GcBuffer {
    pub cur: *mut zval,
    pub end: *mut zval,
    pub start: *mut zval,
}

// Zend/zend_API.h: argument parsing and its errors.
// The engine's argument parsing, exported by every PHP 8.1+ binary. The
// `_slow` variants are what `Z_PARAM_LONG` & co. call for a value that is
// not already of the declared type: they honour the caller's
// `strict_types` (`ZEND_ARG_USES_STRICT_TYPES()`) and, in coercive mode,
// coerce as PHP does, with its deprecations ("Implicit conversion from
// float", "Passing null to parameter").
unsafe extern "C" {
    pub fn zend_parse_arg_long_slow(arg: *mut zval, dest: *mut zend_long, arg_num: u32) -> bool;
    pub fn zend_parse_arg_double_slow(arg: *mut zval, dest: *mut f64, arg_num: u32) -> bool;
    pub fn zend_parse_arg_str_slow(arg: *mut zval, dest: *mut *mut zend_string, arg_num: u32) -> bool;
    pub fn zend_argument_type_error(arg_num: u32, format: *const c_char, ...);
    pub fn zend_argument_error(error_ce: *mut zend_class_entry, arg_num: u32, format: *const c_char, ...);
    pub fn zend_zval_type_name(arg: *const zval) -> *const c_char;
    pub fn zend_type_to_string(ty: zend_type) -> *mut zend_string;
    pub fn zend_is_callable_ex(
        callable: *mut zval,
        object: *mut zend_object,
        check_flags: u32,
        callable_name: *mut *mut zend_string,
        cache: *mut c_void,
        error: *mut *mut c_char,
    ) -> bool;
    pub fn zend_wrong_callback_error(arg_num: u32, error: *mut c_char);
    pub fn zend_wrong_callback_or_null_error(arg_num: u32, error: *mut c_char);
    pub fn get_active_function_or_method_name() -> *mut zend_string;
}

// Zend/zend_operators.h: `zval_get_long()` for a value that is not an
// int, as every extension reads an integer option (ext/curl among them).
// `is_strict` false: PHP's casting rules, never an error.
unsafe extern "C" {
    pub fn zval_get_long_func(op: *const zval, is_strict: bool) -> zend_long;
}

// Zend/zend_object_handlers.h.
unsafe extern "C" {
    pub fn zend_std_read_property(
        object: *mut zend_object,
        member: *mut zend_string,
        type_: c_int,
        cache_slot: *mut *mut c_void,
        rv: *mut zval,
    ) -> *mut zval;
}

// Zend/zend_object_handlers.h and Zend/zend_hash.h.
unsafe extern "C" {
    pub fn zend_std_write_property(
        object: *mut zend_object,
        member: *mut zend_string,
        value: *mut zval,
        cache_slot: *mut *mut c_void,
    ) -> *mut zval;
    pub fn zend_std_unset_property(object: *mut zend_object, member: *mut zend_string, cache_slot: *mut *mut c_void);
    pub fn zend_hash_str_find(table: *const HashTable, key: *const c_char, len: usize) -> *mut zval;
}

// Zend/zend_map_ptr.h.
unsafe extern "C" {
    pub fn zend_map_ptr_extend(last: usize);
}

// Zend/zend_exceptions.h: the unwind of `exit()` and the chain of previous exceptions.
unsafe extern "C" {
    pub fn zend_exception_set_previous(exception: *mut zend_object, add_previous: *mut zend_object);
    pub fn zend_is_unwind_exit(exception: *const zend_object) -> bool;
    pub fn zend_is_graceful_exit(exception: *const zend_object) -> bool;
}

// main/php.h: the error log and startup warnings.
unsafe extern "C" {
    pub fn php_log_err_with_severity(message: *const c_char, severity: c_int);
    pub fn php_error_docref(docref: *const c_char, level: c_int, format: *const c_char, ...);
}

// main/php_streams.h: the URL wrappers.
unsafe extern "C" {
    pub fn php_stream_get_url_stream_wrappers_hash_global() -> *mut HashTable;
    pub fn php_stream_wrapper_log_error(wrapper: *const php_stream_wrapper, options: c_int, format: *const c_char, ...);
}

// Zend/zend_gc.h.
unsafe extern "C" {
    pub fn zend_get_gc_buffer_create() -> *mut GcBuffer;
    pub fn zend_get_gc_buffer_grow(buffer: *mut GcBuffer);
}

// main/php_ini.h: phpinfo()'s table of ini settings.
unsafe extern "C" {
    pub fn display_ini_entries(module: *mut ModuleEntry);
}
