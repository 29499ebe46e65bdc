//! The Prometheus text exposition format 0.0.4: the families of a
//! circuit's metrics, their names, help and types, and how statuses are
//! written in it. No PHP here: `php/exporter.rs` makes the samples from
//! statuses and hands them over.

use std::fmt::Write;

use crate::core::machine::Phase;
use crate::storage::CallCounters;

/// Names are `[a-zA-Z_:][a-zA-Z0-9_:]*` (colons are for recording rules:
/// refused here).
pub fn is_metric_name(name: &str) -> bool {
    is_label_name(name)
}

/// `[a-zA-Z_][a-zA-Z0-9_]*`.
pub fn is_label_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A label value as the format writes it: backslash, double quote and line
/// feed escaped. Bytes that are not UTF-8 become U+FFFD: the format is UTF-8.
pub fn escape_label_value(value: &[u8], out: &mut String) {
    for c in String::from_utf8_lossy(value).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// What the exporter takes from one circuit's status.
pub struct Sample {
    /// Escaped for a label value ([`escape_label_value`]).
    pub service: String,
    pub phase: Phase,
    pub forced: bool,
    pub remaining: Option<f64>,
    pub open_duration: Option<f64>,
    pub counters: Option<CallCounters>,
    /// Calls in flight and bulkhead refusals.
    pub bulkhead: Option<(i64, i64)>,
    pub rejection_rate: Option<f64>,
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

/// The samples in the text format: `namespace` starts every name, `labels`
/// (`name="escaped value",` each) go before `service` in every sample.
pub fn render(namespace: &str, labels: &str, samples: &[Sample]) -> String {
    let mut out = String::new();
    if samples.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "# HELP {namespace}_state The state of the circuit: 1 for the one it is in, 0 for the others."
    );
    let _ = writeln!(out, "# TYPE {namespace}_state gauge");
    for sample in samples {
        for (state, name) in [
            (Phase::Closed, "closed"),
            (Phase::Open, "open"),
            (Phase::HalfOpen, "half_open"),
        ] {
            let value = u8::from(sample.phase == state);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_escape_backslash_quote_and_line_feed() {
        let mut out = String::new();
        escape_label_value(b"a\\b\"c\nd\xff\xc3\xa9", &mut out);
        assert_eq!(out, "a\\\\b\\\"c\\nd\u{fffd}\u{e9}");
    }

    fn sample(service: &str, phase: Phase, counters: Option<CallCounters>) -> Sample {
        Sample {
            service: service.to_owned(),
            phase,
            forced: false,
            remaining: None,
            open_duration: Some(30.0),
            counters,
            bulkhead: None,
            rejection_rate: None,
        }
    }

    #[test]
    fn each_state_is_a_sample_and_a_family_without_values_is_left_out() {
        let counters = CallCounters {
            calls_permitted: 7,
            ..CallCounters::default()
        };
        let out = render(
            "cb",
            "host=\"a\",",
            &[
                sample("s", Phase::Open, Some(counters)),
                sample("t", Phase::Closed, None),
            ],
        );
        assert!(out.starts_with("# HELP cb_state "), "{out}");
        assert!(
            out.contains("cb_state{host=\"a\",service=\"s\",state=\"open\"} 1\n"),
            "{out}"
        );
        assert!(
            out.contains("cb_state{host=\"a\",service=\"s\",state=\"closed\"} 0\n"),
            "{out}"
        );
        assert!(
            out.contains("cb_state{host=\"a\",service=\"t\",state=\"closed\"} 1\n"),
            "{out}"
        );
        assert!(out.contains("# TYPE cb_calls_permitted_total counter\n"), "{out}");
        assert!(
            out.contains("cb_calls_permitted_total{host=\"a\",service=\"s\"} 7\n"),
            "{out}"
        );
        assert!(
            !out.contains("cb_calls_permitted_total{host=\"a\",service=\"t\"}"),
            "{out}"
        );
        assert!(!out.contains("state_remaining_seconds"), "{out}");
        assert!(render("cb", "", &[]).is_empty());
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
