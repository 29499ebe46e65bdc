//! Beneath ext-php-rs: what the HTTP guard needs of the engine that
//! ext-php-rs does not cover. `curl` wraps the handlers of ext/curl's
//! functions, `streams` the opener of the `http://` and `https://` stream
//! wrappers; both ask `php::http` what to do with a transfer.

pub mod curl;
pub mod streams;

unsafe extern "C" {
    fn php_log_err_with_severity(message: *const std::ffi::c_char, severity: std::ffi::c_int);
}

/// syslog's `LOG_NOTICE`, the severity PHP logs its own notices with.
const LOG_NOTICE: std::ffi::c_int = 5;

/// One line in PHP's error log (`error_log`, or the SAPI's: stderr for
/// the CLI, the pool's log for PHP-FPM).
pub fn log_notice(line: &str) {
    let line = std::ffi::CString::new(line.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated line, which the function copies.
    unsafe { php_log_err_with_severity(line.as_ptr(), LOG_NOTICE) };
}

/// The arguments of the internal function running in `frame`.
///
/// # Safety
///
/// `frame` is the live frame of an internal function call.
unsafe fn arguments<'a>(frame: *mut ext_php_rs::ffi::zend_execute_data) -> &'a [ext_php_rs::types::Zval] {
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
