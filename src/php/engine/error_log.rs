//! PHP's error log and startup warnings, which ext-php-rs does not reach:
//! the lines an operator reads of a storage that fails or recovers, of an
//! extension loaded too late, of a misconfigured HTTP guard.

use std::ffi::{CString, c_int};

use super::ffi::{php_error_docref, php_log_err_with_severity};

/// The syslog severity of a line of the error log.
#[derive(Debug, Clone, Copy)]
pub enum Severity {
    Warning = 4,
    Notice = 5,
}

/// One line in PHP's error log (`error_log`, or the SAPI's: stderr for
/// the CLI, the pool's log for PHP-FPM).
pub fn error_log(line: &str, severity: Severity) {
    let line = CString::new(line.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated line, which the function copies.
    unsafe { php_log_err_with_severity(line.as_ptr(), severity as c_int) };
}

/// A notice in PHP's error log.
pub fn log_notice(line: &str) {
    error_log(line, Severity::Notice);
}

/// A warning at module startup, shown as PHP shows its own ("PHP Warning:
/// PHP Startup: ..." on the CLI's stderr, in the error log of PHP-FPM).
pub fn startup_warning(message: &str) {
    let message = CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated message passed through "%s".
    unsafe {
        php_error_docref(
            std::ptr::null(),
            ext_php_rs::ffi::E_WARNING as c_int,
            c"%s".as_ptr(),
            message.as_ptr(),
        );
    }
}
