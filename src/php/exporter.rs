//! `Status\PrometheusExporter`: statuses in the Prometheus text exposition
//! format 0.0.4, for a `/metrics` endpoint. It reads statuses already taken
//! (`listCircuits()`, `getStatus()`): rendering touches no storage.

use std::fmt::Write;

use ext_php_rs::flags::DataType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::engine::args::{IterableArg, Text};
use super::engine::handlers::native;
use super::error::value_error;
use super::status::CircuitStatus;
use crate::metrics::prometheus::{Sample, escape_label_value, is_label_name, is_metric_name, render};

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
    pub fn render(&self, statuses: IterableArg<'_>) -> PhpResult<String> {
        let mut statuses = statuses.0;
        let mut samples = Vec::new();
        // A Traversable that cannot be rewound (a generator already run)
        // yields nothing.
        for (key, value) in statuses.iter().into_iter().flatten() {
            let Some(status) = value.object().and_then(native::<CircuitStatus>) else {
                return Err(type_error(format!(
                    "PrometheusExporter::render(): Argument #1 ($statuses) must hold only Zeusi\\CircuitBreaker\\Status\\CircuitStatus objects, {} given at key {}",
                    type_name(&value),
                    key.str()
                        .map_or_else(|| key.long().unwrap_or_default().to_string(), str::to_owned),
                )));
            };
            samples.push(sample_of(status));
        }
        Ok(render(&self.namespace, &self.labels, &samples))
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

/// What the exporter takes from a status.
fn sample_of(status: &CircuitStatus) -> Sample {
    let mut service = String::new();
    escape_label_value(status.service_bytes().unwrap_or_default(), &mut service);
    Sample {
        service,
        phase: status.state().into(),
        forced: status.forced(),
        remaining: status.remaining_seconds(),
        open_duration: status.open_duration(),
        counters: status.counters(),
        bulkhead: status.bulkhead(),
        rejection_rate: status.rejection_rate(),
    }
}
