//! phpinfo() and `php --ri`: the extension's rows, then the table of its
//! ini settings ("Directive => Local Value => Master Value"), as every
//! extension shows; ext-php-rs has no safe way to print either.

use std::ffi::CString;

use ext_php_rs::zend::ModuleEntry;

use super::ffi::display_ini_entries;

/// Prints `rows` (name, value), then the ini settings of `module`.
pub fn print(module: *mut ModuleEntry, rows: Vec<(&str, String)>) {
    // SAFETY: phpinfo() calls the module's info function, which calls this,
    // with its output ready; every string is a NUL-terminated CString that
    // outlives the call that reads it, and `module` is the engine's entry.
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
