//! Clocks: the system clock by default, a mock clock for tests, or any PHP
//! object with a `now()` method (a PSR-20 clock).

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::engine::args::{Float, shown_float};
use super::engine::callback::{call_function, call_method, finish, overrides};
use super::engine::classes::clock_interface;
use super::engine::gc::GcBuffer;
use super::engine::handlers::native;
use super::engine::reentry::refuse_reconstruction;
use super::engine::time::clock_time as system_time;
use super::engine::typed::DateTime;
use super::error::invalid_configuration;
use crate::core::duration::{Millis, format_float};
use crate::core::error::ConfigError;

/// The precise wall clock, for what a user reads: `SystemClock::now()` and
/// the default time of a `MockClock`.
fn system_seconds() -> f64 {
    let now = system_time(libc::CLOCK_REALTIME);
    now.tv_sec as f64 + now.tv_nsec as f64 / 1e9
}

/// The time of a breaker on the system clock, in ms: the coarse clock (the
/// last timer tick, 1 to 4 ms old), read in a few nanoseconds instead of
/// tens. Every use of it is far coarser: buckets of at least a second, open
/// durations of at least a second, ramps, times to live, an event's time.
/// Every process reads the same clock, so their buckets agree as before.
pub fn system_now_ms() -> Millis {
    let now = system_time(libc::CLOCK_REALTIME_COARSE);
    now.tv_sec * 1_000 + now.tv_nsec / 1_000_000
}

/// The times a `MockClock` can show: from the epoch to the last second of
/// year 9999, where `DateTimeImmutable` and the millisecond counts of the
/// core are both exact.
const MOCK_RANGE: std::ops::RangeInclusive<f64> = 0.0..=253_402_300_799.0;
macro_rules! mock_range_text {
    () => {
        "from 0 to 253402300799 (9999-12-31 23:59:59 UTC)"
    };
}

/// A `DateTimeImmutable` at `seconds` since the epoch, in UTC.
pub fn date_time(seconds: f64) -> Zval {
    let formatted = format!("{seconds:.6}");
    call_function("date_create_immutable_from_format", vec![&"U.u", &formatted]).unwrap_or_default()
}

/// Seconds since the epoch of a `DateTimeInterface`, a float or an int.
fn seconds_of(value: &Zval) -> Option<f64> {
    if let Some(double) = value.double() {
        return Some(double);
    }
    if let Some(long) = value.long() {
        return Some(long as f64);
    }
    let formatted = call_method(value.object()?, "format", vec![&"U.u"]).ok()?;
    formatted.str()?.parse().ok()
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Clock\\SystemClock")]
#[php(implements(ce = clock_interface, stub = "\\Zeusi\\CircuitBreaker\\Clock\\ClockInterface"))]
pub struct SystemClock;

#[php_impl]
impl SystemClock {
    pub fn __construct() -> Self {
        Self
    }

    pub fn now(&self) -> DateTime {
        finish(DateTime(date_time(system_seconds())))
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Clock\\MockClock")]
#[php(implements(ce = clock_interface, stub = "\\Zeusi\\CircuitBreaker\\Clock\\ClockInterface"))]
pub struct MockClock {
    seconds: std::cell::Cell<f64>,
}

#[php_impl]
impl MockClock {
    /// `$now` is a Unix timestamp in seconds, a date string, or a date.
    #[php(optional = now)]
    pub fn __construct(now: Option<&Zval>) -> Result<Self, PhpException> {
        finish(Self::new(now))
    }

    pub fn now(&self) -> DateTime {
        finish(DateTime(date_time(self.seconds.get())))
    }

    pub fn sleep(&self, seconds: Float) -> Result<(), PhpException> {
        let seconds = seconds.0;
        let now = self.seconds.get();
        let latest = MOCK_RANGE.end() - now;
        if !(0.0..=latest).contains(&seconds) {
            return Err(invalid_configuration(ConfigError::new(
                "seconds",
                format!("{} (the clock is at {})", shown_float(seconds), format_float(now)),
                concat!(
                    "a number of seconds, at least 0, that keeps the clock at a time ",
                    mock_range_text!()
                ),
            )));
        }
        self.seconds.set(now + seconds);
        Ok(())
    }
}

impl MockClock {
    fn new(now: Option<&Zval>) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        let default = Zval::new();
        let now = now.unwrap_or(&default);
        let seconds = if now.is_null() {
            Some(system_seconds())
        } else if now.is_string() {
            call_function("date_create_immutable", vec![&now.str().unwrap_or_default()])
                .ok()
                .filter(Zval::is_object)
                .and_then(|date| seconds_of(&date))
        } else {
            seconds_of(now)
        };
        let invalid = || {
            invalid_configuration(ConfigError::new(
                "now",
                super::engine::args::describe(now),
                concat!(
                    "a Unix timestamp ",
                    mock_range_text!(),
                    ", a date string or a DateTimeImmutable in that range"
                ),
            ))
        };
        let seconds = seconds
            .filter(|seconds| MOCK_RANGE.contains(seconds))
            .ok_or_else(invalid)?;
        Ok(Self {
            seconds: std::cell::Cell::new(seconds),
        })
    }
}

/// The clock a breaker or a storage reads, resolved once at construction.
pub enum Clock {
    System,
    Mock(Zval),
    Userland(Zval),
}

impl Clock {
    /// From an optional `ClockInterface` argument. A subclass of ours that
    /// overrides `now()` is read through PHP, as any clock written in PHP.
    pub fn from_arg(clock: Option<&Zval>) -> Self {
        match clock.and_then(|zval| zval.object().map(|object| (zval, object))) {
            None => Self::System,
            Some((zval, object))
                if native::<MockClock>(object).is_some() && !overrides::<MockClock>(object, &["now"]) =>
            {
                Self::Mock(zval.shallow_clone())
            }
            Some((_, object))
                if native::<SystemClock>(object).is_some() && !overrides::<SystemClock>(object, &["now"]) =>
            {
                Self::System
            }
            Some((zval, _)) => Self::Userland(zval.shallow_clone()),
        }
    }

    pub fn now_seconds(&self) -> f64 {
        match self {
            Self::System => system_seconds(),
            Self::Mock(zval) => zval
                .object()
                .and_then(native::<MockClock>)
                .map_or_else(system_seconds, |mock| mock.seconds.get()),
            Self::Userland(zval) => zval
                .object()
                .and_then(|object| call_method(object, "now", vec![]).ok())
                .and_then(|now| seconds_of(&now))
                .unwrap_or_else(system_seconds),
        }
    }

    /// Whether reading it runs no PHP code.
    pub fn is_native(&self) -> bool {
        !matches!(self, Self::Userland(_))
    }

    pub fn now_ms(&self) -> Millis {
        match self {
            Self::System => system_now_ms(),
            _ => (self.now_seconds() * 1_000.0).floor() as Millis,
        }
    }
}

pub fn report_clock(clock: &Clock, buffer: &mut GcBuffer) {
    match clock {
        Clock::System => {}
        Clock::Mock(object) | Clock::Userland(object) => buffer.add(object),
    }
}
