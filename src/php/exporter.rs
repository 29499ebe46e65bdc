//! `Status\PrometheusExporter`: statuses in the Prometheus text exposition
//! format 0.0.4, for a `/metrics` endpoint. It reads statuses already taken
//! (`listCircuits()`, `getStatus()`): rendering touches no storage.

use std::fmt::Write;

use ext_php_rs::flags::DataType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{Iterable, ZendClassObject, ZendHashTable, Zval};

use super::engine::args::Text;
use super::enums::State;
use super::error::value_error;
use super::status::CircuitStatus;
use crate::storage::CallCounters;

/// Names are `[a-zA-Z_:][a-zA-Z0-9_:]*` (colons are for recording rules:
/// refused here).
fn is_metric_name(name: &str) -> bool {
    is_label_name(name)
}

/// `[a-zA-Z_][a-zA-Z0-9_]*`.
fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A label value as the format writes it: backslash, double quote and line
/// feed escaped. Bytes that are not UTF-8 become U+FFFD: the format is UTF-8.
fn escape_label_value(value: &[u8], out: &mut String) {
    for c in String::from_utf8_lossy(value).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// What the exporter takes from one status.
struct Sample {
    /// Escaped for a label value.
    service: String,
    state: State,
    forced: bool,
    remaining: Option<f64>,
    open_duration: Option<f64>,
    counters: Option<CallCounters>,
    /// Calls in flight and bulkhead refusals.
    bulkhead: Option<(i64, i64)>,
    rejection_rate: Option<f64>,
}

impl Sample {
    fn of(status: &CircuitStatus) -> Self {
        let mut service = String::new();
        escape_label_value(status.service_bytes().unwrap_or_default(), &mut service);
        Self {
            service,
            state: status.state(),
            forced: status.forced(),
            remaining: status.remaining_seconds(),
            open_duration: status.open_duration(),
            counters: status.counters(),
            bulkhead: status.bulkhead(),
            rejection_rate: status.rejection_rate(),
        }
    }
}

/// One family: its name after the namespace, type, help, and the value of
/// each sample (none: the status has no sample in this family).
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    value: fn(&Sample) -> Option<f64>,
}

fn counter(sample: &Sample, read: fn(&CallCounters) -> u64) -> Option<f64> {
    sample.counters.as_ref().map(|counters| read(counters) as f64)
}

const FAMILIES: [Family; 12] = [
    Family {
        name: "forced",
        kind: "gauge",
        help: "Whether an operator forced the state of the circuit (1) or not (0).",
        value: |sample| Some(f64::from(u8::from(sample.forced))),
    },
    Family {
        name: "state_remaining_seconds",
        kind: "gauge",
        help: "Seconds until the state of the circuit may change by time (end of an open or forced state).",
        value: |sample| sample.remaining,
    },
    Family {
        name: "open_duration_seconds",
        kind: "gauge",
        help: "Seconds the circuit is open for, or would open for next, at its backoff level.",
        value: |sample| sample.open_duration,
    },
    Family {
        name: "calls_permitted_total",
        kind: "counter",
        help: "Calls the circuit permitted.",
        value: |sample| counter(sample, |counters| counters.calls_permitted),
    },
    Family {
        name: "calls_rejected_total",
        kind: "counter",
        help: "Calls the circuit rejected.",
        value: |sample| counter(sample, |counters| counters.calls_rejected),
    },
    Family {
        name: "successes_total",
        kind: "counter",
        help: "Successful outcomes registered.",
        value: |sample| counter(sample, |counters| counters.successes),
    },
    Family {
        name: "failures_total",
        kind: "counter",
        help: "Failed outcomes registered.",
        value: |sample| counter(sample, |counters| counters.failures),
    },
    Family {
        name: "slow_calls_total",
        kind: "counter",
        help: "Outcomes at least as slow as the shortest slow call duration of the rules.",
        value: |sample| counter(sample, |counters| counters.slow_calls),
    },
    Family {
        name: "openings_total",
        kind: "counter",
        help: "Times the rules opened the circuit (forced openings excluded).",
        value: |sample| counter(sample, |counters| counters.openings),
    },
    Family {
        name: "calls_in_flight",
        kind: "gauge",
        help: "Calls of the circuit in flight now, across the workers of the pool (circuits with a bulkhead).",
        value: |sample| sample.bulkhead.map(|(in_flight, _)| in_flight as f64),
    },
    Family {
        name: "bulkhead_rejections_total",
        kind: "counter",
        help: "Calls the bulkhead of the circuit rejected, maxConcurrentCalls being in flight.",
        value: |sample| sample.bulkhead.map(|(_, refusals)| refusals as f64),
    },
    Family {
        name: "throttling_rejection_rate",
        kind: "gauge",
        help: "The share of calls adaptive throttling refuses, from 0 to 1, by the window read (closed circuits with an AdaptiveThrottlingRule).",
        value: |sample| sample.rejection_rate,
    },
];

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Status\\PrometheusExporter")]
pub struct PrometheusExporter {
    namespace: String,
    /// `name="escaped value",` for each constant label, in order.
    labels: String,
}

#[php_impl]
impl PrometheusExporter {
    /// The `Content-Type` of what `render()` returns.
    pub const CONTENT_TYPE: &'static str = "text/plain; version=0.0.4; charset=utf-8";

    /// `$labels`: constant labels added to every sample (such as the host
    /// or the storage prefix), names as Prometheus allows them, other than
    /// `service` and `state`; `$namespace`: the start of every metric name
    /// (null: `circuit_breaker`).
    #[php(optional = labels)]
    pub fn __construct(labels: Option<&ZendHashTable>, namespace: Option<Text>) -> PhpResult<Self> {
        let namespace = namespace.map_or_else(
            || "circuit_breaker".to_owned(),
            |text| String::from_utf8_lossy(&text.0).into_owned(),
        );
        if !is_metric_name(&namespace) {
            return Err(value_error(format!(
                "PrometheusExporter::__construct(): Argument #2 ($namespace) must match [a-zA-Z_][a-zA-Z0-9_]*, '{namespace}' given"
            )));
        }
        let mut rendered = String::new();
        for (key, value) in labels.into_iter().flat_map(ZendHashTable::iter) {
            let name = key.to_string();
            if !is_label_name(&name) || name.starts_with("__") || name == "service" || name == "state" {
                return Err(value_error(format!(
                    "PrometheusExporter::__construct(): Argument #1 ($labels) must have label names matching [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ and other than 'service' and 'state': '{name}' given"
                )));
            }
            let Some(value) = value.zend_str() else {
                return Err(type_error(format!(
                    "PrometheusExporter::__construct(): Argument #1 ($labels) must have string values, {} given for '{name}'",
                    type_name(value)
                )));
            };
            let _ = write!(rendered, "{name}=\"");
            escape_label_value(value.as_bytes(), &mut rendered);
            rendered.push_str("\",");
        }
        Ok(Self {
            namespace,
            labels: rendered,
        })
    }

    /// The statuses (an iterable of `CircuitStatus`, such as
    /// `listCircuits()` or breakers' `getStatus()`) in the text format:
    /// the families one after the other, each with its `# HELP` and
    /// `# TYPE`. A value a status does not know (counters on Redis, the
    /// time left of a closed circuit) has no sample; a family without
    /// samples is left out.
    pub fn render(&self, statuses: Iterable<'_>) -> PhpResult<String> {
        let mut statuses = statuses;
        let mut samples = Vec::new();
        // A Traversable that cannot be rewound (a generator already run)
        // yields nothing.
        for (key, value) in statuses.iter().into_iter().flatten() {
            let Some(status) = value
                .object()
                .and_then(ZendClassObject::<CircuitStatus>::from_zend_obj)
                .and_then(|object| object.obj.as_ref())
            else {
                return Err(type_error(format!(
                    "PrometheusExporter::render(): Argument #1 ($statuses) must hold only Zeusi\\CircuitBreaker\\Status\\CircuitStatus objects, {} given at key {}",
                    type_name(&value),
                    key.str()
                        .map_or_else(|| key.long().unwrap_or_default().to_string(), str::to_owned),
                )));
            };
            samples.push(Sample::of(status));
        }
        Ok(self.render_samples(&samples))
    }
}

impl PrometheusExporter {
    fn render_samples(&self, samples: &[Sample]) -> String {
        let mut out = String::new();
        if samples.is_empty() {
            return out;
        }
        let (namespace, labels) = (&self.namespace, &self.labels);
        let _ = writeln!(
            out,
            "# HELP {namespace}_state The state of the circuit: 1 for the one it is in, 0 for the others."
        );
        let _ = writeln!(out, "# TYPE {namespace}_state gauge");
        for sample in samples {
            for (state, name) in [
                (State::Closed, "closed"),
                (State::Open, "open"),
                (State::HalfOpen, "half_open"),
            ] {
                let value = u8::from(sample.state == state);
                let service = &sample.service;
                let _ = writeln!(
                    out,
                    "{namespace}_state{{{labels}service=\"{service}\",state=\"{name}\"}} {value}"
                );
            }
        }
        for family in &FAMILIES {
            let values: Vec<(&str, f64)> = samples
                .iter()
                .filter_map(|sample| (family.value)(sample).map(|value| (sample.service.as_str(), value)))
                .collect();
            if values.is_empty() {
                continue;
            }
            let name = family.name;
            let _ = writeln!(out, "# HELP {namespace}_{name} {}", family.help);
            let _ = writeln!(out, "# TYPE {namespace}_{name} {}", family.kind);
            for (service, value) in values {
                let _ = writeln!(out, "{namespace}_{name}{{{labels}service=\"{service}\"}} {value}");
            }
        }
        out
    }
}

/// The type of a value as PHP's messages name it.
fn type_name(value: &Zval) -> String {
    if let Some(object) = value.object() {
        return object.get_class_name().unwrap_or_else(|_| "object".to_owned());
    }
    match value.get_type() {
        DataType::Long => "int",
        DataType::Double => "float",
        DataType::String => "string",
        DataType::True | DataType::False | DataType::Bool => "bool",
        DataType::Array => "array",
        DataType::Null | DataType::Undef => "null",
        _ => "value",
    }
    .to_owned()
}

fn type_error(message: String) -> PhpException {
    super::error::type_error(&message, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_escape_backslash_quote_and_line_feed() {
        let mut out = String::new();
        escape_label_value(b"a\\b\"c\nd\xff\xc3\xa9", &mut out);
        assert_eq!(out, "a\\\\b\\\"c\\nd\u{fffd}\u{e9}");
    }

    #[test]
    fn names_follow_the_format() {
        for good in ["circuit_breaker", "_x", "a1"] {
            assert!(is_label_name(good), "{good}");
        }
        for bad in ["", "1a", "a-b", "a:b", "é"] {
            assert!(!is_label_name(bad), "{bad}");
        }
    }
}
