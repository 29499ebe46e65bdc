//! `Status\CircuitStatus`: what an operator sees of a circuit, from a
//! breaker (`getStatus()`) or from a storage's listing (`listCircuits()`).

use ext_php_rs::convert::IntoZval;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, Zval};

use super::bulkhead::{Scope, in_flight, scoped};
use super::clock::date_time;
use super::engine::args::{DateArg, Float, Int, ServiceName, value_error};
use super::engine::callback::call_method;
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::readonly::{ReadOnlyProperties, Type, read_only};
use super::engine::reentry::refuse_reconstruction;
use super::enums::State;
use super::params::StateArg;
use crate::core::config::Config;
use crate::core::counts::{Outcome, WindowCounts};
use crate::core::duration::{Millis, format_float};
use crate::core::machine::{Status, status_without_config};
use crate::storage::{CallCounters, ListedCircuitCounters, Storage};

/// The outcomes in the window, as the rules of one configuration count them.
struct WindowOutcomes {
    calls: i64,
    failures: i64,
    /// (slow call duration in seconds, calls at least that slow).
    slow_calls: Vec<(f64, i64)>,
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Status\\CircuitStatus")]
pub struct CircuitStatus {
    service: Zval,
    state: State,
    forced: bool,
    since: Zval,
    until: Zval,
    open_duration: Option<f64>,
    backoff_level: i64,
    outcomes: Option<WindowOutcomes>,
    counters: Option<CallCounters>,
    /// Seconds from when the status was read until `until`, never negative.
    remaining: Option<f64>,
    /// The bulkhead: calls in flight, and calls it refused since its entry
    /// was made; `None` for a circuit without one in this pool.
    bulkhead: Option<(i64, i64)>,
    /// The share of calls adaptive throttling refuses at the window read;
    /// `None` without a throttling rule, or outside the closed state.
    rejection_rate: Option<f64>,
}

fn instant(ms: Option<Millis>) -> Zval {
    ms.map(|ms| date_time(ms as f64 / 1_000.0)).unwrap_or_default()
}

impl CircuitStatus {
    fn new(
        service: &[u8],
        status: Status,
        outcomes: Option<WindowOutcomes>,
        counters: Option<CallCounters>,
        read_at_ms: Millis,
    ) -> Self {
        Self {
            service: super::engine::typed::Bytes(service)
                .into_zval(false)
                .unwrap_or_default(),
            state: status.phase.into(),
            forced: status.forced,
            since: instant(status.since),
            until: instant(status.until),
            open_duration: status.open_duration_ms.map(|ms| ms as f64 / 1_000.0),
            backoff_level: i64::from(status.backoff),
            outcomes,
            counters,
            remaining: status.until.map(|until| (until - read_at_ms).max(0) as f64 / 1_000.0),
            bulkhead: None,
            rejection_rate: None,
        }
    }

    /// The status of a breaker: `window` holds its counters by slot.
    pub fn of_breaker(
        service: &[u8],
        status: Status,
        window: &[u64],
        counters: Option<CallCounters>,
        bulkhead: Option<(u32, u64)>,
        config: &Config,
        now: Millis,
    ) -> Zval {
        let counts = WindowCounts {
            bands: &config.bands,
            slots: window,
        };
        let outcomes = WindowOutcomes {
            calls: shown_count(counts.total()),
            failures: shown_count(counts.failures()),
            slow_calls: config
                .bands
                .thresholds()
                .iter()
                .map(|&slow| {
                    let calls = counts.slow(Outcome::Success, slow) + counts.slow(Outcome::Failure, slow);
                    (slow as f64 / 1_000.0, shown_count(calls))
                })
                .collect(),
        };
        let rejection_rate = config
            .throttling
            .filter(|_| status.phase == crate::core::machine::Phase::Closed && !status.forced)
            .map(|throttling| throttling.rate_of(&counts));
        let mut made = Self::new(service, status, Some(outcomes), counters, now);
        made.bulkhead = bulkhead.map(shown_bulkhead);
        made.rejection_rate = rejection_rate;
        object(made)
    }

    /// The statuses of a listing, at `now`, without a configuration: the
    /// window is left out (null), as its geometry and rules are unknown.
    /// A circuit with a bulkhead in this pool shows its calls in flight:
    /// `scope` is the storage's (`Storage::scope`).
    pub fn of_listing(circuits: Vec<ListedCircuitCounters>, scope: &[u8], now: Millis) -> Vec<Zval> {
        circuits
            .into_iter()
            .map(|(service, state, counters)| {
                let mut made = Self::new(&service, status_without_config(state, now), None, counters, now);
                made.bulkhead = in_flight(&scoped(scope, &service), Scope::Pool).map(shown_bulkhead);
                object(made)
            })
            .collect()
    }
}

/// `listCircuits()` of a storage object: the status at `now` of each of
/// its circuits whose service starts with `prefix`.
pub fn list_circuits(storage: &dyn Storage, prefix: &[u8], now: Millis) -> Result<Vec<Zval>, PhpException> {
    let circuits = storage.list_circuits_with_counters(prefix)?;
    Ok(CircuitStatus::of_listing(circuits, &storage.scope(), now))
}

impl CircuitStatus {
    /// The objects it holds, for the cycle collector (`gc.rs`).
    pub(super) fn report_values(&self, buffer: &mut super::engine::gc::GcBuffer) {
        buffer.add(&self.since);
        buffer.add(&self.until);
    }

    pub fn service_bytes(&self) -> Option<&[u8]> {
        self.service.zend_str().map(|service| service.as_bytes())
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn forced(&self) -> bool {
        self.forced
    }

    pub fn open_duration(&self) -> Option<f64> {
        self.open_duration
    }

    pub fn counters(&self) -> Option<CallCounters> {
        self.counters
    }

    pub fn bulkhead(&self) -> Option<(i64, i64)> {
        self.bulkhead
    }

    pub fn rejection_rate(&self) -> Option<f64> {
        self.rejection_rate
    }

    /// Seconds from when the status was read until the state may change by
    /// time (the end of an open or forced state), never negative.
    pub fn remaining_seconds(&self) -> Option<f64> {
        self.remaining
    }
}

fn object(status: CircuitStatus) -> Zval {
    ZendClassObject::new(status).into_zval(false).unwrap_or_default()
}

/// What the constructor checks: a value of `parameter` that is wrong.
fn refused(parameter: &str, must: &str) -> PhpException {
    value_error(parameter, must)
}

fn count(parameter: &str, value: Option<Int>) -> PhpResult<Option<i64>> {
    match value {
        Some(Int(count)) if count < 0 => Err(refused(parameter, &format!("null or at least 0, {count} given"))),
        other => Ok(other.map(|count| count.0)),
    }
}

/// `['slowCallDuration' => float, 'calls' => int]` entries.
fn slow_calls_of(list: &ZendHashTable) -> PhpResult<Vec<(f64, i64)>> {
    const MUST: &str = "null or a list of ['slowCallDuration' => seconds above 0, 'calls' => at least 0]";
    list.values()
        .map(|entry| {
            let entry = entry.array().ok_or_else(|| refused("slowCalls", MUST))?;
            let slow = entry
                .get("slowCallDuration")
                .and_then(|value| value.double().or_else(|| value.long().map(|long| long as f64)))
                .filter(|slow| slow.is_finite() && *slow > 0.0);
            let calls = entry.get("calls").and_then(Zval::long).filter(|calls| *calls >= 0);
            match (slow, calls, entry.len()) {
                (Some(slow), Some(calls), 2) => Ok((slow, calls)),
                _ => Err(refused("slowCalls", MUST)),
            }
        })
        .collect()
}

/// The six counters, each an int at least 0.
fn counters_of(array: &ZendHashTable) -> PhpResult<CallCounters> {
    const MUST: &str = "null or an array of exactly 'callsPermitted', 'callsRejected', 'successes', 'failures', \
         'slowCalls' and 'openings', each an int at least 0";
    let read = |name: &str| {
        array
            .get(name)
            .and_then(Zval::long)
            .and_then(|value| u64::try_from(value).ok())
            .ok_or_else(|| refused("counters", MUST))
    };
    if array.len() != 6 {
        return Err(refused("counters", MUST));
    }
    Ok(CallCounters {
        calls_permitted: read("callsPermitted")?,
        calls_rejected: read("callsRejected")?,
        successes: read("successes")?,
        failures: read("failures")?,
        slow_calls: read("slowCalls")?,
        openings: read("openings")?,
    })
}

#[php_impl]
impl CircuitStatus {
    /// A status built from its properties, for the tests of code that
    /// reads statuses (a FailFast middleware, a metrics page): breakers and
    /// storages build theirs without it. `$remaining` left null with an
    /// `$until` is counted from now, on the system clock.
    // One parameter per property, as PHP callers name them.
    #[allow(clippy::too_many_arguments)]
    #[php(optional = forced)]
    #[php(defaults(forced = false, backoffLevel = 0))]
    pub fn __construct(
        service: ServiceName,
        state: StateArg,
        forced: bool,
        since: Option<DateArg<'_>>,
        until: Option<DateArg<'_>>,
        remaining: Option<Float>,
        openDuration: Option<Float>,
        backoffLevel: Int,
        calls: Option<Int>,
        failures: Option<Int>,
        slowCalls: Option<&ZendHashTable>,
        counters: Option<&ZendHashTable>,
        callsInFlight: Option<Int>,
        bulkheadRejections: Option<Int>,
        rejectionRate: Option<Float>,
    ) -> PhpResult<Self> {
        refuse_reconstruction::<Self>()?;
        let remaining = match (remaining.map(|remaining| remaining.0), &until) {
            (Some(seconds), Some(_)) if seconds.is_finite() && seconds >= 0.0 => Some(seconds),
            (Some(seconds), Some(_)) => {
                return Err(refused(
                    "remaining",
                    &format!(
                        "null or a finite number of seconds, at least 0, {} given",
                        format_float(seconds)
                    ),
                ));
            }
            (Some(_), None) => return Err(refused("remaining", "null when $until is null")),
            (None, Some(until)) => {
                // 'Uv': milliseconds since the epoch.
                let until_ms = until
                    .0
                    .object()
                    .and_then(|until| call_method(until, "format", vec![&"Uv"]).ok())
                    .and_then(|formatted| formatted.str().and_then(|text| text.parse::<i64>().ok()))
                    .unwrap_or_default();
                Some((until_ms - super::clock::system_now_ms()).max(0) as f64 / 1_000.0)
            }
            (None, None) => None,
        };
        let open_duration = match openDuration.map(|duration| duration.0) {
            Some(seconds) if !(seconds.is_finite() && seconds > 0.0) => {
                return Err(refused(
                    "openDuration",
                    &format!(
                        "null or a finite number of seconds above 0, {} given",
                        format_float(seconds)
                    ),
                ));
            }
            other => other,
        };
        if backoffLevel.0 < 0 {
            return Err(refused(
                "backoffLevel",
                &format!("at least 0, {} given", backoffLevel.0),
            ));
        }
        let outcomes = match (count("calls", calls)?, count("failures", failures)?) {
            (None, None) if slowCalls.is_none() => None,
            (Some(calls), Some(failures)) if failures <= calls => Some(WindowOutcomes {
                calls,
                failures,
                slow_calls: slowCalls.map(slow_calls_of).transpose()?.unwrap_or_default(),
            }),
            (Some(calls), Some(failures)) => {
                return Err(refused(
                    "failures",
                    &format!("at most $calls ({calls}), {failures} given"),
                ));
            }
            _ => {
                return Err(refused(
                    "calls",
                    "given with $failures (and $slowCalls, when given): the window's counts go together",
                ));
            }
        };
        Ok(Self {
            service: super::engine::typed::Bytes(&service.0)
                .into_zval(false)
                .unwrap_or_default(),
            state: state.0,
            forced,
            since: since.map(|since| since.0.shallow_clone()).unwrap_or_default(),
            until: until.map(|until| until.0.shallow_clone()).unwrap_or_default(),
            open_duration,
            backoff_level: backoffLevel.0,
            outcomes,
            counters: counters.map(counters_of).transpose()?,
            remaining,
            rejection_rate: match rejectionRate.map(|rate| rate.0) {
                Some(rate) if !(0.0..=1.0).contains(&rate) => {
                    return Err(refused(
                        "rejectionRate",
                        &format!("null or a rate from 0 to 1, {} given", format_float(rate)),
                    ));
                }
                rate => rate,
            },
            bulkhead: match (
                count("callsInFlight", callsInFlight)?,
                count("bulkheadRejections", bulkheadRejections)?,
            ) {
                (None, None) => None,
                (Some(in_flight), Some(refusals)) => Some((in_flight, refusals)),
                _ => {
                    return Err(refused(
                        "callsInFlight",
                        "given with $bulkheadRejections: the bulkhead's counts go together",
                    ));
                }
            },
        })
    }

    #[php(getter)]
    pub fn get_service(&self) -> Zval {
        self.service.shallow_clone()
    }

    /// The state the next call finds; `Open` or `Closed` while forced.
    #[php(getter)]
    pub fn get_state(&self) -> State {
        self.state
    }

    /// Whether an operator forced the state (`forceOpen()`, `forceClosed()`).
    #[php(getter)]
    pub fn get_forced(&self) -> bool {
        self.forced
    }

    /// A `?DateTimeImmutable`: when the state began (null: unknown).
    #[php(getter)]
    pub fn get_since(&self) -> Zval {
        self.since.shallow_clone()
    }

    /// A `?DateTimeImmutable`: until when time holds the state, the end of
    /// an open or forced state; null otherwise.
    #[php(getter)]
    pub fn get_until(&self) -> Zval {
        self.until.shallow_clone()
    }

    /// Seconds left, when the status was read, until `until`: until the
    /// state may change by time; null when `until` is (closed, half-open).
    #[php(getter)]
    pub fn get_remaining(&self) -> Option<f64> {
        self.remaining_seconds()
    }

    /// Seconds the circuit is open for, or would open for next, at its
    /// backoff level. Listings know it only while open.
    #[php(getter)]
    pub fn get_open_duration(&self) -> Option<f64> {
        self.open_duration
    }

    /// How many times the open duration doubled since the circuit was last closed.
    #[php(getter)]
    pub fn get_backoff_level(&self) -> i64 {
        self.backoff_level
    }

    /// Outcomes in the window of the current state; null in listings.
    #[php(getter)]
    pub fn get_calls(&self) -> Option<i64> {
        self.outcomes.as_ref().map(|outcomes| outcomes.calls)
    }

    /// Failures in the window of the current state; null in listings.
    #[php(getter)]
    pub fn get_failures(&self) -> Option<i64> {
        self.outcomes.as_ref().map(|outcomes| outcomes.failures)
    }

    /// Per slow call duration of the rules, the calls at least that slow:
    /// a list of `['slowCallDuration' => float, 'calls' => int]`; null in listings.
    #[php(getter)]
    pub fn get_slow_calls(&self) -> Zval {
        let Some(outcomes) = &self.outcomes else {
            return Zval::new();
        };
        let mut list = ZendHashTable::new();
        for &(slow, calls) in &outcomes.slow_calls {
            let mut entry = ZendHashTable::new();
            let _ = entry.insert("slowCallDuration", slow);
            let _ = entry.insert("calls", calls);
            let _ = list.push(entry);
        }
        list.into_zval(false).unwrap_or_default()
    }

    /// Calls of the circuit in flight now, across the pool's workers (the
    /// process's own over an `InMemoryStorage`); null when it has no bulkhead.
    #[php(getter)]
    pub fn get_calls_in_flight(&self) -> Option<i64> {
        self.bulkhead.map(|(in_flight, _)| in_flight)
    }

    /// The share of calls adaptive throttling refuses, by the window read
    /// (0 to 1); null without an `AdaptiveThrottlingRule`, or unless closed.
    #[php(getter)]
    pub fn get_rejection_rate(&self) -> Option<f64> {
        self.rejection_rate
    }

    /// Calls its bulkhead rejected, since the pool started; null without one.
    #[php(getter)]
    pub fn get_bulkhead_rejections(&self) -> Option<i64> {
        self.bulkhead.map(|(_, refusals)| refusals)
    }

    /// The circuit's counters since the storage made its record, an array
    /// of `callsPermitted`, `callsRejected`, `successes`, `failures`,
    /// `slowCalls` and `openings` (ints); null on storages that do not
    /// keep them (Redis, Memcached, userland).
    #[php(getter)]
    pub fn get_counters(&self) -> Zval {
        let Some(counters) = self.counters else {
            return Zval::new();
        };
        let mut array = ZendHashTable::new();
        for (name, value) in [
            ("callsPermitted", counters.calls_permitted),
            ("callsRejected", counters.calls_rejected),
            ("successes", counters.successes),
            ("failures", counters.failures),
            ("slowCalls", counters.slow_calls),
            ("openings", counters.openings),
        ] {
            // PHP ints are signed: a count past 2^63 (never reached) saturates.
            let _ = array.insert(name, i64::try_from(value).unwrap_or(i64::MAX));
        }
        array.into_zval(false).unwrap_or_default()
    }
}

/// Calls in flight and refusals, as PHP integers.
fn shown_bulkhead((in_flight, refusals): (u32, u64)) -> (i64, i64) {
    (i64::from(in_flight), shown_count(refusals))
}

/// A count as a PHP integer: one beyond it (a storage's counter another
/// client wrote) is shown as the largest, never as a negative number.
fn shown_count(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Its dates may be a user's subclass, given to its constructor.
impl HoldsPhpValues for CircuitStatus {
    fn report(&self, buffer: &mut GcBuffer) {
        self.report_values(buffer);
    }
}

read_only!(
    CircuitStatus,
    [
        ("service", Type::String),
        ("state", Type::STATE),
        ("forced", Type::Bool),
        ("since", Type::DATE),
        ("until", Type::DATE),
        ("remaining", Type::NullableFloat),
        ("openDuration", Type::NullableFloat),
        ("backoffLevel", Type::Int),
        ("calls", Type::NullableInt),
        ("failures", Type::NullableInt),
        ("slowCalls", Type::NullableArray),
        ("counters", Type::NullableArray),
        ("callsInFlight", Type::NullableInt),
        ("bulkheadRejections", Type::NullableInt),
        ("rejectionRate", Type::NullableFloat),
    ]
);
