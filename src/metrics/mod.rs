//! Metrics without PHP: the Prometheus text format of circuits' statuses.

pub mod prometheus;
