//! What a breaker that is not protecting says where operators look: PHP's
//! error log (`php_log_err`: the CLI's stderr or `error_log`, PHP-FPM's
//! error log). A storage that starts failing (its calls fail open) and
//! recovers, and a listener that throws (the exception is still swallowed),
//! are logged once per worker per storage (its class) per
//! `circuit_breaker.log_interval` seconds; 0 turns it off.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::zend::{ExecutorGlobals, IniEntryDef, IniEntryDefs};

use super::engine::{Severity, error_log, startup_warning};
use crate::core::duration::Millis;

const INTERVAL_SETTING: &str = "circuit_breaker.log_interval";
const DEFAULT_INTERVAL_S: u64 = 60;

static INI_ENTRIES: IniEntryDefs<2> = IniEntryDefs::new([
    IniEntryDef::new(c"circuit_breaker.log_interval", c"60", IniEntryPermission::System),
    IniEntryDef::end(),
]);

/// The interval in milliseconds; 0: nothing is logged.
static INTERVAL_MS: AtomicU64 = AtomicU64::new(DEFAULT_INTERVAL_S * 1_000);

/// Registers the setting and reads it. A value that is not a whole number
/// of seconds is warned about at startup, and the default used.
pub fn startup(module_number: i32) {
    IniEntryDef::register(INI_ENTRIES.as_slice(), module_number);
    let ini = ExecutorGlobals::get().ini_values();
    let configured = ini.get(INTERVAL_SETTING).cloned().flatten();
    let seconds = match configured.as_deref().map(str::trim) {
        None | Some("") => DEFAULT_INTERVAL_S,
        Some(text) => text.parse::<u64>().unwrap_or_else(|_| {
            startup_warning(&format!(
                "{INTERVAL_SETTING} = '{text}' is not a whole number of seconds (0 turns the log off): the default {DEFAULT_INTERVAL_S} is used"
            ));
            DEFAULT_INTERVAL_S
        }),
    };
    INTERVAL_MS.store(seconds.saturating_mul(1_000), Ordering::Relaxed);
}

/// Writes one line: a message may carry a server's reply, a stored value
/// or an exception's text, whose line breaks and other control characters
/// are escaped (`\n`, `\x07`), so that one failure is one line of the log
/// and no text can forge another.
fn write(line: &str) {
    error_log(&format!("circuit_breaker: {}", one_line(line)), Severity::Warning);
}

fn one_line(text: &str) -> String {
    use std::fmt::Write;
    let mut line = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            '\t' => line.push_str("\\t"),
            character if character.is_control() => {
                let _ = write!(line, "\\x{:02x}", u32::from(character));
            }
            character => line.push(character),
        }
    }
    line
}

#[derive(Default)]
struct Failing {
    /// Whether the storage failed at its last call.
    failing: bool,
    /// Whether the start of the current failure was logged (its recovery then is).
    start_logged: bool,
    /// When a line about it was last written.
    logged_at: Option<Millis>,
    /// Failures since that line.
    unsaid: u64,
}

/// Whether some storage of the worker failed at its last call: the calls
/// of a worker whose storages all work look no further. One word, not a
/// thread-local (whose every read is a call into the dynamic linker on a
/// protected call's path): PHP runs one request per process (ZTS is not built).
static ANY_FAILING: AtomicBool = AtomicBool::new(false);

/// Whether the end of a call is news for [`storage_call`]: it failed, or
/// some storage of the worker is failing (its recovery would be news).
#[inline]
pub fn call_is_news(failed: bool) -> bool {
    failed || ANY_FAILING.load(Ordering::Relaxed)
}

thread_local! {
    static STORAGES: RefCell<HashMap<String, Failing>> = RefCell::new(HashMap::new());
    static LISTENER_LOGGED_AT: Cell<Option<Millis>> = const { Cell::new(None) };
}

fn due(logged_at: Option<Millis>, now: Millis, interval: u64) -> bool {
    logged_at.is_none_or(|at| u64::try_from(now.saturating_sub(at)).unwrap_or(0) >= interval)
}

/// The end of a call on a storage: `failure` is what it said when it failed.
/// `storage` names it (its class), computed only when something is logged.
pub fn storage_call(storage: impl FnOnce() -> String, failure: Option<&str>, now: impl FnOnce() -> Millis) {
    let interval = INTERVAL_MS.load(Ordering::Relaxed);
    if interval == 0 || !call_is_news(failure.is_some()) {
        return;
    }
    let now = now();
    let name = storage();
    STORAGES.with_borrow_mut(|storages| {
        match failure {
            Some(error) => {
                let state = storages.entry(name.clone()).or_default();
                let due = due(state.logged_at, now, interval);
                if !state.failing {
                    state.failing = true;
                    state.start_logged = due;
                    state.unsaid = 0;
                    if due {
                        write(&format!(
                            "{name} failed, its calls fail open (the breaker does not protect): {error}"
                        ));
                    }
                } else if due {
                    state.start_logged = true;
                    write(&format!(
                        "{name} still failing, {} calls failed open in the last {} s: {error}",
                        state.unsaid + 1,
                        interval / 1_000
                    ));
                    state.unsaid = 0;
                } else {
                    state.unsaid += 1;
                }
                if due {
                    state.logged_at = Some(now);
                }
            }
            None => {
                if let Some(state) = storages.get_mut(&name)
                    && state.failing
                {
                    state.failing = false;
                    if state.start_logged {
                        write(&format!("{name} works again"));
                        state.logged_at = Some(now);
                    }
                }
            }
        }
        ANY_FAILING.store(storages.values().any(|state| state.failing), Ordering::Relaxed);
    });
}

/// A state written by a clock ahead of this one was clamped to it (said
/// by the one process that stored the clamp, unless logging is off).
pub fn clock_ahead(circuit: &str, ahead_ms: Millis) {
    if INTERVAL_MS.load(Ordering::Relaxed) == 0 {
        return;
    }
    write(&format!(
        "the state of circuit '{circuit}' was written by a clock {} s ahead of this server's: it now ends at most its duration from this server's time (check the clocks of the servers sharing the storage)",
        crate::core::duration::format_float(ahead_ms as f64 / 1_000.0)
    ));
}

/// A listener threw: the exception is swallowed, and said here.
pub fn listener_threw(service: &str, thrown: impl FnOnce() -> String) {
    let interval = INTERVAL_MS.load(Ordering::Relaxed);
    let now = super::clock::system_now_ms();
    if interval == 0 || !due(LISTENER_LOGGED_AT.get(), now, interval) {
        return;
    }
    LISTENER_LOGGED_AT.set(Some(now));
    write(&format!(
        "the event listener of '{service}' threw {} (ignored: events never fail a call)",
        thrown()
    ));
}
