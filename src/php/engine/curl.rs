//! ext/curl's functions, wrapped: the handlers of `curl_exec` and of the
//! multi interface admit a guarded transfer before anything leaves the
//! machine and count its end; those of `curl_init`, `curl_setopt(_array)`,
//! `curl_copy_handle` and `curl_reset` keep what ext/curl cannot be asked
//! back (the URL, the user's own values of the options we borrow).
//!
//! The observer API cannot refuse an internal call, so the handlers in the
//! function table are replaced, once per process at the first request start
//! (after ext/curl is started, whatever the order of the ini files), and
//! every wrapper calls the handler it replaced: an APM or a profiler that
//! hooked them first keeps working.
//!
//! A refused transfer fails inside libcurl as a refused connection: for
//! that one transfer the handle connects to a Unix socket path where none
//! can be, so libcurl makes no DNS lookup and no TCP connection and ends
//! with `CURLE_COULDNT_CONNECT` (7), which Guzzle turns into its
//! `ConnectException`, Symfony into its `TransportException`. The option
//! is put back (to the user's own value, or none) when the transfer ends.
//! A half-open trial gets `CURLOPT_TIMEOUT_MS` capped at the probe timeout
//! the same way. libcurl's functions are called on the handle's `CURL *`,
//! the first member of ext/curl's handle structure, and looked up in the
//! libcurl that ext/curl itself was linked with.

use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int, c_long, c_void};
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;

use ext_php_rs::ffi::{zend_execute_data, zend_function, zend_object, zval};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{CatchError, ClassEntry, ExecutorGlobals, bailout, try_catch};

use super::args::arguments;
use super::ffi::zval_get_long_func;
use super::transfer::{self, Admission, Ticket};
use crate::core::duration::Millis;
use crate::http::target::FastMap;

type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);
type FreeObject = unsafe extern "C" fn(*mut zend_object);
type SetOption = unsafe extern "C" fn(*mut c_void, c_int, ...) -> c_int;
type GetInfo = unsafe extern "C" fn(*mut c_void, c_int, ...) -> c_int;

const CURLOPT_URL: i64 = 10_002;
const CURLOPT_TIMEOUT: i64 = 13;
const CURLOPT_TIMEOUT_MS: i64 = 155;
const CURLOPT_UNIX_SOCKET_PATH: i64 = 10_231;
const CURLINFO_RESPONSE_CODE: c_int = 0x20_0002;
const CURLINFO_TOTAL_TIME_T: c_int = 0x60_0032;
const CURLMSG_DONE: i64 = 1;

/// Where a refused transfer connects: a path below a file, so that no
/// socket can ever be there (connect fails at once, nothing is sent).
const NOWHERE: &std::ffi::CStr = c"/dev/null/circuit-breaker-open";

/// How many handles a request tracks at most: past it, new handles are
/// not guarded (a bound on memory, freed at the end of each request and
/// as handles are freed).
const MAX_TRACKED_HANDLES: usize = 100_000;

/// The functions of the libcurl ext/curl runs on.
struct Libcurl {
    set_option: SetOption,
    get_info: GetInfo,
}

static LIBCURL: OnceLock<Libcurl> = OnceLock::new();
/// The class entry of `CurlHandle`, as an address.
static CURL_CLASS: OnceLock<usize> = OnceLock::new();
static FREE_OBJECT: OnceLock<FreeObject> = OnceLock::new();

static CURL_INIT: OnceLock<Handler> = OnceLock::new();
static CURL_COPY_HANDLE: OnceLock<Handler> = OnceLock::new();
static CURL_RESET: OnceLock<Handler> = OnceLock::new();
static CURL_SETOPT: OnceLock<Handler> = OnceLock::new();
static CURL_SETOPT_ARRAY: OnceLock<Handler> = OnceLock::new();
static CURL_EXEC: OnceLock<Handler> = OnceLock::new();
static CURL_MULTI_ADD_HANDLE: OnceLock<Handler> = OnceLock::new();
static CURL_MULTI_REMOVE_HANDLE: OnceLock<Handler> = OnceLock::new();
static CURL_MULTI_INFO_READ: OnceLock<Handler> = OnceLock::new();

/// What is known of one `CurlHandle`.
#[derive(Default)]
struct Handle {
    url: Option<Vec<u8>>,
    /// The user's own `CURLOPT_UNIX_SOCKET_PATH`: such transfers go to a
    /// local socket, and are not guarded.
    unix_socket: Option<CString>,
    /// The user's own total timeout, in ms (0: none).
    timeout_ms: c_long,
    /// Set up during `HttpGuard::standAside()`: its transfers are the
    /// caller's, whenever they start, until `curl_reset`.
    callers: bool,
    /// What this extension set up for a transfer not ended yet.
    pending: Option<Pending>,
}

impl Handle {
    /// A copy for `curl_copy_handle`: the options, not the transfer.
    fn options(&self) -> Self {
        Self {
            url: self.url.clone(),
            unix_socket: self.unix_socket.clone(),
            timeout_ms: self.timeout_ms,
            callers: self.callers || transfer::standing_aside(),
            pending: None,
        }
    }
}

struct Pending {
    /// `None` for a refused transfer.
    ticket: Option<Box<dyn Ticket>>,
    refused: bool,
    timeout_capped: bool,
}

thread_local! {
    static HANDLES: RefCell<FastMap<usize, Handle>> = RefCell::default();
}

/// Wraps ext/curl's functions, once per process; nothing without ext/curl.
pub fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let Some(exec) = function("curl_exec") else {
            return;
        };
        let Some(class) = ClassEntry::try_find("CurlHandle") else {
            return;
        };
        // SAFETY: the internal function's handler, the code of ext/curl.
        let Some(libcurl) =
            (unsafe { (*exec).internal_function.handler }).and_then(|handler| find_libcurl(handler as *const c_void))
        else {
            super::log_notice(
                "circuit_breaker: libcurl's functions were not found beside ext/curl: curl transfers are not guarded",
            );
            return;
        };
        let _ = LIBCURL.set(libcurl);
        let _ = CURL_CLASS.set(std::ptr::from_ref(class) as usize);
        wrap("curl_init", &CURL_INIT, curl_init);
        wrap("curl_copy_handle", &CURL_COPY_HANDLE, curl_copy_handle);
        wrap("curl_reset", &CURL_RESET, curl_reset);
        wrap("curl_setopt", &CURL_SETOPT, curl_setopt);
        wrap("curl_setopt_array", &CURL_SETOPT_ARRAY, curl_setopt_array);
        wrap("curl_exec", &CURL_EXEC, curl_exec);
        wrap("curl_multi_add_handle", &CURL_MULTI_ADD_HANDLE, curl_multi_add_handle);
        wrap(
            "curl_multi_remove_handle",
            &CURL_MULTI_REMOVE_HANDLE,
            curl_multi_remove_handle,
        );
        wrap("curl_multi_info_read", &CURL_MULTI_INFO_READ, curl_multi_info_read);
    });
}

/// At each request end: handles do not outlive their request.
pub fn request_shutdown() {
    let _ = HANDLES.try_with(|handles| handles.borrow_mut().clear());
}

/// The internal function `name` of the function table.
fn function(name: &str) -> Option<*mut zend_function> {
    let globals = ExecutorGlobals::get();
    let table = globals.function_table()?;
    // SAFETY: the function table lives as long as the process; the lookup
    // only reads it.
    let found = unsafe {
        ext_php_rs::ffi::zend_hash_str_find_ptr_lc(std::ptr::from_ref(table), name.as_ptr().cast(), name.len())
    }
    .cast::<zend_function>();
    // SAFETY: every member of the union starts with `common`.
    (!found.is_null() && u32::from(unsafe { (*found).common.type_ }) == ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION)
        .then_some(found)
}

/// Puts `ours` in place of the handler of `name`, kept in `original`.
fn wrap(name: &str, original: &OnceLock<Handler>, ours: Handler) {
    let Some(found) = function(name) else {
        return;
    };
    // SAFETY: an internal function of the process; nothing runs it while a
    // request starts, and its handler is replaced once.
    unsafe {
        if let Some(handler) = (*found).internal_function.handler
            && original.set(handler).is_ok()
        {
            (*found).internal_function.handler = Some(ours);
        }
    }
}

/// libcurl's functions, found from the object that holds `code` (ext/curl,
/// built in PHP or loaded as curl.so): a lookup through it searches the
/// libraries it was linked with first, so this is the libcurl it runs on
/// even when another is loaded too.
fn find_libcurl(code: *const c_void) -> Option<Libcurl> {
    let mut info: libc::Dl_info = empty_dl_info();
    // SAFETY: `dladdr` fills `info` for an address of loaded code.
    if unsafe { libc::dladdr(code, &raw mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: the file of a loaded object: RTLD_NOLOAD gives a handle to
    // it without loading anything (the reference it takes is kept for the
    // life of the process, like the object).
    let object = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if object.is_null() {
        return None;
    }
    // SAFETY: symbol lookups in a loaded object.
    let (set_option, get_info) = unsafe {
        (
            libc::dlsym(object, c"curl_easy_setopt".as_ptr()),
            libc::dlsym(object, c"curl_easy_getinfo".as_ptr()),
        )
    };
    if set_option.is_null() || get_info.is_null() {
        return None;
    }
    // SAFETY: libcurl's `curl_easy_setopt` and `curl_easy_getinfo`, whose
    // C signatures these types are.
    Some(unsafe {
        Libcurl {
            set_option: std::mem::transmute::<*mut c_void, SetOption>(set_option),
            get_info: std::mem::transmute::<*mut c_void, GetInfo>(get_info),
        }
    })
}

fn empty_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

/// The `CurlHandle` object a value holds.
fn curl_object(value: Option<&Zval>) -> Option<*mut zend_object> {
    let object = value?.object()?;
    let class = *CURL_CLASS.get()?;
    (object.ce as usize == class).then(|| std::ptr::from_ref(object).cast_mut())
}

/// The `CURL *` of a `CurlHandle` object: the first member of ext/curl's
/// `php_curl`, which holds the object at the offset its handlers give.
fn easy(object: *mut zend_object) -> *mut c_void {
    // SAFETY: a live `CurlHandle` (checked by class): its handlers are
    // ext/curl's, whose `offset` is that of the object in its `php_curl`,
    // and `php_curl` starts with its `CURL *`.
    unsafe {
        let offset = (*(*object).handlers).offset as usize;
        *object.cast::<u8>().sub(offset).cast::<*mut c_void>()
    }
}

fn set_text_option(object: *mut zend_object, option: i64, value: Option<&CString>) {
    let Some(libcurl) = LIBCURL.get() else {
        return;
    };
    let value: *const c_char = value.map_or(std::ptr::null(), |value| value.as_ptr());
    // SAFETY: a string option of a live handle: libcurl copies the string
    // (null resets the option).
    unsafe { (libcurl.set_option)(easy(object), option as c_int, value) };
}

fn set_long_option(object: *mut zend_object, option: i64, value: c_long) {
    let Some(libcurl) = LIBCURL.get() else {
        return;
    };
    // SAFETY: a long option of a live handle.
    unsafe { (libcurl.set_option)(easy(object), option as c_int, value) };
}

/// The response status of the handle's last transfer (0: none) and its
/// total time.
fn transfer_info(object: *mut zend_object) -> (u16, Option<Millis>) {
    let Some(libcurl) = LIBCURL.get() else {
        return (0, None);
    };
    let mut status: c_long = 0;
    let mut total_us: i64 = -1;
    // SAFETY: a long and a curl_off_t (64 bits) read into their types.
    unsafe {
        (libcurl.get_info)(easy(object), CURLINFO_RESPONSE_CODE, &raw mut status);
        (libcurl.get_info)(easy(object), CURLINFO_TOTAL_TIME_T, &raw mut total_us);
    }
    let status = u16::try_from(status).unwrap_or(0);
    (status, (total_us >= 0).then_some((total_us / 1_000) as Millis))
}

/// Calls the handler `ours` replaced; `Err` when PHP bailed out of it
/// (a fatal error, or `exit()` in some paths), to re-raise once our state
/// is clean.
///
/// # Safety
///
/// `frame` and `return_value` are the live ones of the wrapped function.
unsafe fn call_original(
    original: &OnceLock<Handler>,
    frame: *mut zend_execute_data,
    return_value: *mut zval,
) -> Result<(), CatchError> {
    let Some(original) = original.get() else {
        return Ok(());
    };
    // SAFETY: the replaced handler, run with the frame it was called for.
    try_catch(AssertUnwindSafe(|| unsafe { original(frame, return_value) }))
}

/// Ends a wrapper whose original bailed out: every Rust value of ours is
/// released by then.
fn reraise(result: Result<(), CatchError>) {
    if let Err(CatchError::Bailout) = result {
        // SAFETY: the wrappers call this last, with nothing of theirs held;
        // the jump continues the one that was caught.
        unsafe { bailout() }
    }
}

fn with_handles<T>(run: impl FnOnce(&mut FastMap<usize, Handle>) -> T) -> Option<T> {
    HANDLES.try_with(|handles| run(&mut handles.borrow_mut())).ok()
}

/// Starts tracking a handle made by `curl_init` or `curl_copy_handle`.
fn track(object: *mut zend_object, handle: Handle) {
    watch_frees(object);
    with_handles(|handles| {
        if handles.len() < MAX_TRACKED_HANDLES || handles.contains_key(&(object as usize)) {
            handles.insert(object as usize, handle);
        }
    });
}

/// Makes the free handler of ext/curl's handles forget a freed handle
/// (its address may be reused by the next one).
fn watch_frees(object: *mut zend_object) {
    // SAFETY: the handlers of a live `CurlHandle`: ext/curl's table, static
    // and writable (filled at its module startup). Its free handler is
    // replaced once, by ours which calls it.
    unsafe {
        let handlers = (*object).handlers.cast_mut();
        if let Some(free) = (*handlers).free_obj
            && !std::ptr::eq(free as *const (), free_handle as *const ())
            && FREE_OBJECT.set(free).is_ok()
        {
            (*handlers).free_obj = Some(free_handle);
        }
    }
}

unsafe extern "C" fn free_handle(object: *mut zend_object) {
    with_handles(|handles| handles.remove(&(object as usize)));
    if let Some(free) = FREE_OBJECT.get() {
        // SAFETY: ext/curl's own free handler, for its object.
        unsafe { free(object) };
    }
}

/// Bytes of a value that ext/curl would read as a string.
fn text(value: &Zval) -> Option<Vec<u8>> {
    if let Some(text) = value.zend_str() {
        return Some(text.as_bytes().to_vec());
    }
    value.long().map(|number| number.to_string().into_bytes())
}

/// A value as ext/curl reads an integer option: `zval_get_long()`, the
/// engine's own casting (`"1.5"` and `true` are 1, `"1000ms"` is 1000).
fn long(value: &Zval) -> i64 {
    if let Some(number) = value.long() {
        return number;
    }
    // SAFETY: a live zval, only read; with `is_strict` false the engine
    // casts every type and raises nothing.
    unsafe { zval_get_long_func(std::ptr::from_ref(value).cast(), false) }
}

/// Notes an option the user set.
fn note_option(handle: &mut Handle, option: i64, value: &Zval) {
    match option {
        CURLOPT_URL => handle.url = if value.is_null() { None } else { text(value) },
        CURLOPT_UNIX_SOCKET_PATH => {
            handle.unix_socket = text(value)
                .filter(|path| !path.is_empty())
                .and_then(|path| CString::new(path).ok());
        }
        CURLOPT_TIMEOUT => handle.timeout_ms = long(value).saturating_mul(1_000) as c_long,
        CURLOPT_TIMEOUT_MS => handle.timeout_ms = long(value) as c_long,
        _ => {}
    }
}

/// Admits the next transfer of a handle and sets it up: refused, it will
/// fail as a refused connection; a trial gets its timeout capped. One
/// look-up of the handle: most transfers are not guarded.
fn begin_transfer(object: *mut zend_object) {
    with_handles(|handles| {
        let handle = handles.get_mut(&(object as usize))?;
        drop(settle(object, handle));
        if handle.unix_socket.is_some() || handle.callers {
            return None;
        }
        let url = handle.url.as_deref()?;
        // libcurl refuses a URL with a space or a control byte before it
        // sends anything (CURLE_URL_MALFORMAT): nothing to admit, no trial
        // to spend.
        if url.iter().any(|byte| *byte <= b' ' || *byte == 0x7f) {
            return None;
        }
        let pending = match transfer::admit(url) {
            Admission::Unguarded => return None,
            Admission::Refused(_) => {
                set_text_option(object, CURLOPT_UNIX_SOCKET_PATH, Some(&CString::from(NOWHERE)));
                Pending {
                    ticket: None,
                    refused: true,
                    timeout_capped: false,
                }
            }
            Admission::Permitted(ticket) => {
                let probe = ticket.probe_timeout_ms() as c_long;
                let timeout_capped = ticket.trial() && (handle.timeout_ms <= 0 || handle.timeout_ms > probe);
                if timeout_capped {
                    set_long_option(object, CURLOPT_TIMEOUT_MS, probe);
                }
                Pending {
                    ticket: Some(ticket),
                    refused: false,
                    timeout_capped,
                }
            }
        };
        handle.pending = Some(pending);
        Some(())
    });
}

/// Puts back what `begin_transfer` changed, and hands over the ticket of
/// a transfer let through.
fn finish_pending(object: *mut zend_object) -> Option<Box<dyn Ticket>> {
    with_handles(|handles| settle(object, handles.get_mut(&(object as usize))?))?
}

fn settle(object: *mut zend_object, handle: &mut Handle) -> Option<Box<dyn Ticket>> {
    let pending = handle.pending.take()?;
    if pending.refused {
        set_text_option(object, CURLOPT_UNIX_SOCKET_PATH, handle.unix_socket.as_ref());
    }
    if pending.timeout_capped {
        set_long_option(object, CURLOPT_TIMEOUT_MS, handle.timeout_ms);
    }
    pending.ticket
}

/// Counts the end of a handle's transfer let through, ended with `code`.
fn count_end(object: *mut zend_object, ticket: Box<dyn Ticket>, code: i64) {
    let (status, duration_ms) = transfer_info(object);
    ticket.finish(code, status, duration_ms);
}

unsafe extern "C" fn curl_init(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_init.
    let done = unsafe { call_original(&CURL_INIT, frame, return_value) };
    if done.is_ok() {
        // SAFETY: the live return value and frame of the call.
        let (made, url) = unsafe {
            (
                curl_object(return_value.cast::<Zval>().as_ref()),
                arguments(frame).first(),
            )
        };
        if let Some(object) = made {
            let url = url.filter(|url| !url.is_null()).and_then(text);
            track(
                object,
                Handle {
                    url,
                    callers: transfer::standing_aside(),
                    ..Handle::default()
                },
            );
        }
    }
    reraise(done);
}

unsafe extern "C" fn curl_copy_handle(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_copy_handle.
    let done = unsafe { call_original(&CURL_COPY_HANDLE, frame, return_value) };
    if done.is_ok() {
        // SAFETY: the live return value and frame of the call.
        let (copy, source) = unsafe {
            (
                curl_object(return_value.cast::<Zval>().as_ref()),
                curl_object(arguments(frame).first()),
            )
        };
        if let (Some(copy), Some(source)) = (copy, source) {
            let options = with_handles(|handles| handles.get(&(source as usize)).map(Handle::options)).flatten();
            track(copy, options.unwrap_or_default());
        }
    }
    reraise(done);
}

unsafe extern "C" fn curl_reset(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_reset.
    let done = unsafe { call_original(&CURL_RESET, frame, return_value) };
    // SAFETY: the live frame of the call.
    if let Some(object) = curl_object(unsafe { arguments(frame) }.first()) {
        // libcurl forgot every option, ours included: nothing to put back.
        with_handles(|handles| {
            if let Some(handle) = handles.get_mut(&(object as usize)) {
                // Nor is it the caller's any more, even when reset during
                // `HttpGuard::standAside()` (Guzzle resets a handle it is
                // done with, to pool it): set up again, it is marked again.
                *handle = Handle::default();
            }
        });
    }
    reraise(done);
}

unsafe extern "C" fn curl_setopt(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_setopt.
    let done = unsafe { call_original(&CURL_SETOPT, frame, return_value) };
    // SAFETY: the live frame and return value of the call.
    let (arguments, set) = unsafe {
        (
            arguments(frame),
            return_value.cast::<Zval>().as_ref().and_then(Zval::bool),
        )
    };
    if done.is_ok()
        && set == Some(true)
        && let (Some(object), Some(option), Some(value)) = (
            curl_object(arguments.first()),
            arguments.get(1).and_then(Zval::long),
            arguments.get(2),
        )
    {
        with_handles(|handles| {
            handles.get_mut(&(object as usize)).map(|handle| {
                handle.callers |= transfer::standing_aside();
                note_option(handle, option, value);
            })
        });
    }
    reraise(done);
}

unsafe extern "C" fn curl_setopt_array(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_setopt_array.
    let done = unsafe { call_original(&CURL_SETOPT_ARRAY, frame, return_value) };
    // SAFETY: the live frame of the call.
    let arguments = unsafe { arguments(frame) };
    if done.is_ok()
        && let (Some(object), Some(options)) = (curl_object(arguments.first()), arguments.get(1).and_then(Zval::array))
    {
        with_handles(|handles| {
            let handle = handles.get_mut(&(object as usize))?;
            handle.callers |= transfer::standing_aside();
            for (key, value) in options {
                if let ext_php_rs::types::ArrayKey::Long(option) = key {
                    note_option(handle, option, value);
                }
            }
            Some(())
        });
    }
    reraise(done);
}

unsafe extern "C" fn curl_exec(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the live frame of the call.
    let Some(object) = curl_object(unsafe { arguments(frame) }.first()) else {
        // Not a handle: ext/curl throws its TypeError.
        // SAFETY: the engine's call of curl_exec.
        return reraise(unsafe { call_original(&CURL_EXEC, frame, return_value) });
    };
    begin_transfer(object);
    // SAFETY: the engine's call of curl_exec.
    let done = unsafe { call_original(&CURL_EXEC, frame, return_value) };
    // A callback of the transfer that threw, or ended the script, made
    // the end of the transfer the application's: it tells nothing.
    if let Some(ticket) = finish_pending(object)
        && done.is_ok()
        && !exception_pending()
    {
        // SAFETY: the live return value of the call.
        let failed = unsafe { return_value.cast::<Zval>().as_ref() }.is_some_and(|value| value.bool() == Some(false));
        let code = if failed { error_code(object) } else { Some(0) };
        if let Some(code) = code {
            count_end(object, ticket, code);
        }
    }
    reraise(done);
}

/// Whether an exception (or `exit()`, or a fatal error on its way) is pending.
fn exception_pending() -> bool {
    !super::globals::pending_exception().is_null() || super::callback::ending().is_some()
}

/// `curl_errno()` of a handle: `None` when PHP cannot run it now (an
/// exception thrown by a callback of the transfer, or `exit()`): the
/// transfer then tells nothing about the service.
fn error_code(object: *mut zend_object) -> Option<i64> {
    let mut handle = Zval::new();
    // SAFETY: a live object, referenced by the zval for the call.
    unsafe {
        let object = object.as_mut()?;
        handle.set_object(object);
    }
    super::callback::call_function("curl_errno", vec![&handle]).ok()?.long()
}

unsafe extern "C" fn curl_multi_add_handle(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the live frame of the call.
    let object = curl_object(unsafe { arguments(frame) }.get(1));
    if let Some(object) = object {
        begin_transfer(object);
    }
    // SAFETY: the engine's call of curl_multi_add_handle.
    let done = unsafe { call_original(&CURL_MULTI_ADD_HANDLE, frame, return_value) };
    // SAFETY: the live return value of the call.
    let added = done.is_ok() && unsafe { return_value.cast::<Zval>().as_ref() }.and_then(Zval::long) == Some(0);
    if !added && let Some(object) = object {
        // Not added: no transfer to account for.
        drop(finish_pending(object));
    }
    reraise(done);
}

unsafe extern "C" fn curl_multi_remove_handle(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_multi_remove_handle.
    let done = unsafe { call_original(&CURL_MULTI_REMOVE_HANDLE, frame, return_value) };
    // SAFETY: the live frame of the call.
    if let Some(object) = curl_object(unsafe { arguments(frame) }.get(1)) {
        // Removed before the application read its end: nothing is counted.
        drop(finish_pending(object));
    }
    reraise(done);
}

unsafe extern "C" fn curl_multi_info_read(frame: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's call of curl_multi_info_read.
    let done = unsafe { call_original(&CURL_MULTI_INFO_READ, frame, return_value) };
    // SAFETY: the live return value of the call.
    let message = unsafe { return_value.cast::<Zval>().as_ref() }.and_then(Zval::array);
    if done.is_ok()
        && let Some(message) = message
        && message.get("msg").and_then(Zval::long) == Some(CURLMSG_DONE)
        && let (Some(object), Some(code)) = (
            curl_object(message.get("handle")),
            message.get("result").and_then(Zval::long),
        )
        && let Some(ticket) = finish_pending(object)
    {
        count_end(object, ticket, code);
    }
    reraise(done);
}
