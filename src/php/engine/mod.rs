//! Beneath ext-php-rs: what the extension needs of the engine that
//! ext-php-rs does not cover: PHP's error log and startup warnings, the
//! fiber running now, and for the HTTP guard the arguments of an internal call.
//! `unconstructed` guards the objects of our classes made without their constructor. `curl` wraps the handlers of ext/curl's
//! functions, `streams` the opener of the `http://` and `https://` stream
//! wrappers; both ask `php::http` what to do with a transfer.

pub mod curl;
pub mod streams;
pub mod unconstructed;

unsafe extern "C" {
    fn php_log_err_with_severity(message: *const std::ffi::c_char, severity: std::ffi::c_int);
    fn php_error_docref(docref: *const std::ffi::c_char, level: std::ffi::c_int, format: *const std::ffi::c_char, ...);
}

/// The syslog severity of a line of the error log.
#[derive(Debug, Clone, Copy)]
pub enum Severity {
    Warning = 4,
    Notice = 5,
}

/// One line in PHP's error log (`error_log`, or the SAPI's: stderr for
/// the CLI, the pool's log for PHP-FPM).
pub fn error_log(line: &str, severity: Severity) {
    let line = std::ffi::CString::new(line.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated line, which the function copies.
    unsafe { php_log_err_with_severity(line.as_ptr(), severity as std::ffi::c_int) };
}

/// A notice in PHP's error log.
pub fn log_notice(line: &str) {
    error_log(line, Severity::Notice);
}

/// A warning at module startup, shown as PHP shows its own ("PHP Warning:
/// PHP Startup: ..." on the CLI's stderr, in the error log of PHP-FPM).
pub fn startup_warning(message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated message passed through "%s".
    unsafe {
        php_error_docref(
            std::ptr::null(),
            ext_php_rs::ffi::E_WARNING as std::ffi::c_int,
            c"%s".as_ptr(),
            message.as_ptr(),
        );
    }
}

/// The fiber running now, as a number no other live fiber has: the address
/// of its context (`EG(current_fiber_context)`, the main context outside
/// any fiber). Never 0 while a request runs.
#[inline]
pub fn current_fiber() -> usize {
    // SAFETY: the executor globals live as long as the process, and PHP runs
    // one request per thread: nothing writes them while our code runs. The
    // pointer is only compared, never followed.
    unsafe { (*ext_php_rs::ffi::ext_php_rs_executor_globals()).current_fiber_context as usize }
}

/// The arguments of the internal function running in `frame`.
///
/// # Safety
///
/// `frame` is the live frame of an internal function call.
#[inline]
pub unsafe fn arguments<'a>(frame: *mut ext_php_rs::ffi::zend_execute_data) -> &'a [ext_php_rs::types::Zval] {
    // SAFETY: the caller's frame; `u2.num_args` is the member set for a
    // call, and the arguments of an internal function lie one after another
    // from `ZEND_CALL_FRAME_SLOT`, alive for the call.
    unsafe {
        let passed = (*frame).This.u2.num_args as usize;
        std::slice::from_raw_parts(
            frame
                .cast::<ext_php_rs::types::Zval>()
                .add(super::args::CALL_FRAME_SLOT),
            passed,
        )
    }
}
