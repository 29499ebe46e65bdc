//! The core's one error: a configuration value outside its limits, named
//! with the parameter and the limits it must keep.

use thiserror::Error;

/// A configuration value outside its limits. The message names the parameter,
/// the value given and the limits, so the PHP exception built from it is enough
/// to fix the call.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("Invalid {parameter}: {value} given, expected {limits}")]
pub struct ConfigError {
    pub parameter: &'static str,
    pub value: String,
    pub limits: &'static str,
}

impl ConfigError {
    pub fn new(parameter: &'static str, value: impl std::fmt::Display, limits: &'static str) -> Self {
        Self {
            parameter,
            value: value.to_string(),
            limits,
        }
    }
}
