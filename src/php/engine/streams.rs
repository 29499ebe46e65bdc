//! The `http://` and `https://` stream wrappers, wrapped (`fopen`,
//! `file_get_contents`, Symfony's `NativeHttpClient`, Guzzle's
//! `StreamHandler`): a copy of PHP's http wrapper whose opener admits a
//! guarded request first, takes the place of the original in the global
//! table of URL wrappers at module startup, and calls the original opener.
//!
//! A refused open returns no stream with a warning that names the circuit
//! and when to retry ("Failed to open stream: the circuit breaker of ...").
//! A request let through counts as its status says: the final status line
//! of the stream's headers, or, when the wrapper returned no stream, the
//! "HTTP request failed! HTTP/1.1 503 ..." it logged (a 404 without
//! `ignore_errors` is an answer, a success); no status at all is a
//! transport failure, unless the wrapper gave up by itself (a writing
//! mode, its redirect limit, a URL it cannot parse): what the client
//! refused to do counts nothing. The opener returns once the headers are
//! read: a slow body is not in the duration.

use std::ffi::{CStr, c_char, c_int};
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::time::Instant;

use ext_php_rs::ffi::{
    php_stream, php_stream_context, php_stream_wrapper, php_stream_wrapper_ops, zend_llist, zend_string, zval,
};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{CatchError, bailout, try_catch};

use super::ffi::{php_stream_get_url_stream_wrappers_hash_global, php_stream_wrapper_log_error};
use super::transfer::{self, Admission};
use crate::http::outcome::status_of_line;

type Opener = unsafe extern "C" fn(
    *mut php_stream_wrapper,
    *const c_char,
    *const c_char,
    c_int,
    *mut *mut zend_string,
    *mut php_stream_context,
) -> *mut php_stream;

const IS_PTR: u32 = 13;

/// The opener of the wrapper we copied.
static ORIGINAL_OPEN: OnceLock<Opener> = OnceLock::new();
/// The wrapper copied and our copy of it, as addresses.
static WRAPPER: OnceLock<(usize, usize)> = OnceLock::new();

/// Puts our copy of the http wrapper in place for `http` and `https`.
pub fn install() {
    // SAFETY: the global table of URL wrappers, filled by ext/standard's
    // module startup before ours; nothing else runs during startup.
    let table = unsafe { php_stream_get_url_stream_wrappers_hash_global() };
    if table.is_null() {
        return;
    }
    for scheme in ["http", "https"] {
        // SAFETY: a lookup in the live table.
        let entry = unsafe { ext_php_rs::ffi::zend_hash_str_find(table, scheme.as_ptr().cast(), scheme.len()) };
        // SAFETY: an entry of the table, which holds pointers to wrappers.
        let Some(entry) = (unsafe { entry.as_mut() }) else {
            continue;
        };
        // SAFETY: the type of a live zval.
        if unsafe { entry.u1.v.type_ } as u32 != IS_PTR {
            continue;
        }
        // SAFETY: an IS_PTR entry of this table holds a `php_stream_wrapper *`.
        let original = unsafe { entry.value.ptr }.cast::<php_stream_wrapper>();
        let Some(ours) = copy_of(original) else {
            continue;
        };
        // Our copy lives as long as the process.
        entry.value.ptr = ours.cast();
    }
}

/// Our copy of `original` (made once, from the first wrapper seen: PHP
/// registers one http wrapper for both schemes); `None` when `original`
/// is another wrapper than the one copied.
fn copy_of(original: *mut php_stream_wrapper) -> Option<*mut php_stream_wrapper> {
    if let Some((copied, ours)) = WRAPPER.get() {
        return (*copied == original as usize).then_some(*ours as *mut php_stream_wrapper);
    }
    // SAFETY: a registered wrapper and its operations, static in PHP.
    let (wrapper, operations) = unsafe {
        let wrapper = original.as_ref()?;
        (*wrapper, *wrapper.wops.as_ref()?)
    };
    let opener = operations.stream_opener?;
    let _ = ORIGINAL_OPEN.set(opener);
    let operations: &'static mut php_stream_wrapper_ops = Box::leak(Box::new(php_stream_wrapper_ops {
        stream_opener: Some(open),
        ..operations
    }));
    let ours: &'static mut php_stream_wrapper = Box::leak(Box::new(php_stream_wrapper {
        wops: operations,
        ..wrapper
    }));
    let ours = std::ptr::from_mut(ours);
    let _ = WRAPPER.set((original as usize, ours as usize));
    Some(ours)
}

unsafe extern "C" fn open(
    wrapper: *mut php_stream_wrapper,
    path: *const c_char,
    mode: *const c_char,
    options: c_int,
    opened_path: *mut *mut zend_string,
    context: *mut php_stream_context,
) -> *mut php_stream {
    let Some(original) = ORIGINAL_OPEN.get().copied() else {
        return std::ptr::null_mut();
    };
    // SAFETY: the URL being opened, NUL-terminated.
    let url = unsafe { CStr::from_ptr(path) }.to_bytes();
    // SAFETY: the mode of this open, NUL-terminated.
    let writes = !mode.is_null()
        && unsafe { CStr::from_ptr(mode) }
            .to_bytes()
            .iter()
            .any(|byte| b"awx+".contains(byte));
    // The http wrapper refuses a writing open before it sends anything.
    let admission = if writes {
        Admission::Unguarded
    } else {
        transfer::admit(url)
    };
    let ticket = match admission {
        // SAFETY: the original opener, with the arguments it was called for.
        Admission::Unguarded => return unsafe { original(wrapper, path, mode, options, opened_path, context) },
        Admission::Refused(refusal) => {
            let message = std::ffi::CString::new(refusal.to_string()).unwrap_or_default();
            // SAFETY: the wrapper of this open; a message through "%s".
            unsafe { php_stream_wrapper_log_error(wrapper, options, c"%s".as_ptr(), message.as_ptr()) };
            return std::ptr::null_mut();
        }
        Admission::Permitted(ticket) => ticket,
    };
    let restore_timeout = ticket.trial().then(|| cap_socket_timeout(ticket.probe_timeout_ms()));
    let started = Instant::now();
    // SAFETY: the original opener, with the arguments it was called for.
    let opened = try_catch(AssertUnwindSafe(|| unsafe {
        original(wrapper, path, mode, options, opened_path, context)
    }));
    if let Some(previous) = restore_timeout {
        set_socket_timeout(previous);
    }
    let stream = match opened {
        Ok(stream) => stream,
        Err(CatchError::Bailout) => {
            drop(ticket);
            // SAFETY: nothing of ours is held; the jump caught goes on.
            unsafe { bailout() }
        }
        Err(_) => return std::ptr::null_mut(),
    };
    let duration_ms = started.elapsed().as_millis() as i64;
    // SAFETY: a stream the opener returned, alive, or null.
    let ending = match unsafe { stream.as_ref() } {
        // A stream without a status line never got an answer.
        Some(stream) => match final_status(&stream.wrapperdata) {
            0 => Ending::NoAnswer,
            status => Ending::Answered(status),
        },
        None => logged_ending(wrapper),
    };
    match ending {
        Ending::Answered(status) => ticket.finish(0, status, Some(duration_ms)),
        Ending::NoAnswer => ticket.finish(7, 0, Some(duration_ms)),
        Ending::RefusedByTheClient => drop(ticket),
    }
    stream
}

/// How an open ended, for its circuit.
enum Ending {
    /// With the status of the last response.
    Answered(u16),
    /// The server or the network failed: refused, timed out, reset, no
    /// name, TLS.
    NoAnswer,
    /// The wrapper gave up by itself: it tells nothing about the service.
    RefusedByTheClient,
}

/// The starts of what PHP's http wrapper logs when it gives up by itself:
/// its redirect limit (`max_redirects`), a URL it will not send, a timeout
/// it cannot wait, a redirect to a URL it cannot follow (the server did
/// answer).
const GIVEN_UP_BY_THE_CLIENT: [&[u8]; 5] = [
    b"Redirection limit reached",
    b"HTTP wrapper does not support writeable connections",
    b"HTTP wrapper full URI path does not allow CR or LF characters",
    b"timeout must be lower than",
    b"Invalid redirect URL!",
];

/// The status of the last response among the header lines of a stream.
fn final_status(headers: &zval) -> u16 {
    // SAFETY: a `zval` and a `Zval` are the same type.
    let headers = unsafe { &*std::ptr::from_ref(headers).cast::<Zval>() };
    let Some(lines) = headers.array() else {
        return 0;
    };
    lines
        .values()
        .rev()
        .filter_map(|line| line.zend_str().map(|line| line.as_bytes().to_vec()))
        .find_map(|line| status_of_line(&line))
        .unwrap_or(0)
}

/// How an open that returned no stream ended, from what the http wrapper
/// logged for `wrapper`: the status of "HTTP request failed! HTTP/1.1 404
/// Not Found", or a message of its own giving up, or a transport error.
/// Nothing logged at all: PHP could not parse the URL, the client's doing.
fn logged_ending(wrapper: *mut php_stream_wrapper) -> Ending {
    let mut status = 0;
    let mut logged = false;
    let mut given_up = false;
    for_each_logged_error(wrapper, |message| {
        logged = true;
        given_up |= GIVEN_UP_BY_THE_CLIENT.iter().any(|start| message.starts_with(start));
        if let Some(line) = message.strip_prefix(b"HTTP request failed! ".as_slice())
            && let Some(found) = status_of_line(line)
        {
            status = found;
        }
    });
    if status != 0 {
        Ending::Answered(status)
    } else if given_up || !logged {
        Ending::RefusedByTheClient
    } else {
        Ending::NoAnswer
    }
}

/// Calls `each` with every message the http wrapper logged for `wrapper`
/// in this request, oldest first.
fn for_each_logged_error(wrapper: *mut php_stream_wrapper, mut each: impl FnMut(&[u8])) {
    // SAFETY: the file globals of the process; the request's table of
    // wrapper errors, keyed by the bytes of a wrapper's address, holds a
    // `zend_llist *` of `char *` messages per wrapper.
    unsafe {
        let errors = (*ext_php_rs::ffi::ext_php_rs_file_globals()).wrapper_errors;
        if errors.is_null() {
            return;
        }
        let key = std::ptr::from_ref(&wrapper).cast::<c_char>();
        let entry = ext_php_rs::ffi::zend_hash_str_find(errors, key, size_of::<*mut php_stream_wrapper>());
        let Some(entry) = entry.as_ref() else {
            return;
        };
        if entry.u1.v.type_ as u32 != IS_PTR {
            return;
        }
        let Some(list) = entry.value.ptr.cast::<zend_llist>().as_ref() else {
            return;
        };
        let mut element = list.head;
        while let Some(current) = element.as_ref() {
            let message = current.data.as_ptr().cast::<*const c_char>().read_unaligned();
            if !message.is_null() {
                each(CStr::from_ptr(message).to_bytes());
            }
            element = current.next;
        }
    }
}

/// Caps `default_socket_timeout` (what the http wrapper waits for without
/// a `timeout` context option) at the probe timeout; returns the old one.
fn cap_socket_timeout(probe_timeout_ms: i64) -> i64 {
    // SAFETY: the file globals of the process, read by this thread only.
    let previous = unsafe { (*ext_php_rs::ffi::ext_php_rs_file_globals()).default_socket_timeout };
    let probe = (probe_timeout_ms + 999) / 1_000;
    let probe = probe.max(1);
    if previous <= 0 || previous > probe {
        set_socket_timeout(probe);
    }
    previous
}

fn set_socket_timeout(seconds: i64) {
    // SAFETY: as in `cap_socket_timeout`.
    unsafe { (*ext_php_rs::ffi::ext_php_rs_file_globals()).default_socket_timeout = seconds };
}
