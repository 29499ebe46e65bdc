//! What a guarded host's circuit runs on: its configuration, the statuses
//! that are failures, how long a trial may last, its mode and its storage.
//! The defaults are the HTTP middleware's (window 10 s; open at 50 % of at
//! least 10 calls failing, or after 10 failures in a row; open 30 s,
//! doubling at each failed trial up to 300 s; one trial of at most 10 s;
//! 500, 502, 503 and 504 are failures).

use crate::core::config::Config;
use crate::core::duration::Millis;
use crate::core::error::ConfigError;
use crate::core::half_open::{Curve, ExponentialCurve, HalfOpenPolicy, PowerCurve};
use crate::core::rules::OpeningRule;

/// What the hooks do with a guarded transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Decide, count, and refuse what the circuit refuses.
    Enforce,
    /// Decide, count, log and emit as `Enforce` would, never refuse: a dry run.
    Observe,
    /// Leave the transfers alone.
    Off,
}

impl Mode {
    pub const LIMITS: &'static str = "enforce, observe or off";

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "enforce" => Some(Self::Enforce),
            "observe" => Some(Self::Observe),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

/// Where a guarded circuit lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageSetting {
    /// The shared-memory segment of the pool (the default).
    SharedMemory,
    /// `redis://...` or `rediss://...`.
    Redis(String),
    /// `memcached://host:port[,host:port...]`.
    Memcached(Vec<String>),
}

impl StorageSetting {
    pub const LIMITS: &'static str = "shm, redis://host:port, rediss://host:port or memcached://host:port[,host:port]";

    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        if lower == "shm" || lower == "shared_memory" {
            return Some(Self::SharedMemory);
        }
        if lower.starts_with("redis://") || lower.starts_with("rediss://") {
            return Some(Self::Redis(text.to_owned()));
        }
        let servers = lower.strip_prefix("memcached://")?;
        let servers: Vec<String> = servers
            .split(',')
            .map(str::trim)
            .filter(|server| !server.is_empty())
            .map(|server| {
                if server.contains(':') {
                    server.to_owned()
                } else {
                    format!("{server}:11211")
                }
            })
            .collect();
        (!servers.is_empty()).then_some(Self::Memcached(servers))
    }
}

/// The cap of the backoff as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxOpenDuration {
    /// Ten times the open duration (30 s doubling up to 300 s by default),
    /// so that a longer open duration alone stays valid.
    TenTimesOpen,
    Seconds(f64),
    /// No backoff.
    Off,
}

/// The half-open policy as written.
#[derive(Debug, Clone, PartialEq)]
pub enum HalfOpenSetting {
    PermittedCalls { calls: i64, max_duration: f64 },
    Ramp { duration: f64, curve: CurveSetting },
}

impl HalfOpenSetting {
    /// One trial; the half-open state lasts long enough for a trial that
    /// takes the whole probe timeout to report.
    pub const PERMITTED_CALLS: Self = Self::PermittedCalls {
        calls: 1,
        max_duration: 30.0,
    };
    /// What `half_open = ramp` starts from.
    pub const RAMP: Self = Self::Ramp {
        duration: 30.0,
        curve: CurveSetting::Exponential { initial_ratio: 0.1 },
    };
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CurveSetting {
    Exponential { initial_ratio: f64 },
    Power { initial_ratio: f64, exponent: f64 },
}

/// The settings of guarded circuits as an operator writes them: the
/// defaults, with a named breaker's overrides on top.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub time_window: f64,
    /// The failure rate rule's threshold in percent; `None`: no such rule.
    pub failure_rate: Option<f64>,
    pub minimum_requests: i64,
    /// The failures in a row that open; `None`: no such rule.
    pub consecutive_failures: Option<i64>,
    /// The slow call rule: `None` without one.
    pub slow_call_duration: Option<f64>,
    pub slow_call_rate: f64,
    pub open_duration: f64,
    pub max_open_duration: MaxOpenDuration,
    pub half_open: HalfOpenSetting,
    pub failure_statuses: Vec<u16>,
    pub probe_timeout: f64,
    /// The bulkhead: at most this many requests in flight at once across
    /// the pool; `None`: no bound.
    pub max_concurrent_calls: Option<i64>,
    /// Adaptive throttling's K; `None`: no throttling.
    pub throttling_k: Option<f64>,
    /// `None`: the mode of `circuit_breaker.http_mode`.
    pub mode: Option<Mode>,
    pub storage: StorageSetting,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            time_window: 10.0,
            failure_rate: Some(50.0),
            minimum_requests: 10,
            consecutive_failures: Some(10),
            slow_call_duration: None,
            slow_call_rate: 50.0,
            open_duration: 30.0,
            max_open_duration: MaxOpenDuration::TenTimesOpen,
            half_open: HalfOpenSetting::PERMITTED_CALLS,
            failure_statuses: vec![500, 502, 503, 504],
            probe_timeout: 10.0,
            max_concurrent_calls: None,
            throttling_k: None,
            mode: None,
            storage: StorageSetting::SharedMemory,
        }
    }
}

/// The limits of the probe timeout, in seconds.
pub const PROBE_TIMEOUT_LIMITS: &str = "from 0.001 to 3600 seconds";

/// What a guarded circuit runs on, built and checked once.
#[derive(Debug)]
pub struct Policy {
    pub config: Config,
    pub failure_statuses: Vec<u16>,
    pub probe_timeout_ms: Millis,
    pub mode: Mode,
    pub storage: StorageSetting,
}

impl Policy {
    pub fn is_failure_status(&self, status: u16) -> bool {
        self.failure_statuses.contains(&status)
    }
}

impl Settings {
    /// The policy of these settings, under the mode of the ini setting
    /// when they name none.
    pub fn policy(&self, mode: Mode) -> Result<Policy, ConfigError> {
        let mut rules = Vec::new();
        if let Some(threshold) = self.failure_rate {
            rules.push(OpeningRule::failure_rate(threshold, self.minimum_requests)?);
        }
        if let Some(duration) = self.slow_call_duration {
            rules.push(OpeningRule::slow_call_rate(
                duration,
                self.slow_call_rate,
                self.minimum_requests,
            )?);
        }
        if let Some(failures) = self.consecutive_failures {
            rules.push(OpeningRule::consecutive_failures(failures)?);
        }
        if let Some(k) = self.throttling_k {
            rules.push(OpeningRule::adaptive_throttling(k, 0.9, self.minimum_requests)?);
        }
        let half_open = match &self.half_open {
            HalfOpenSetting::PermittedCalls { calls, max_duration } => {
                HalfOpenPolicy::permitted_calls(*max_duration, *calls)?
            }
            HalfOpenSetting::Ramp { duration, curve } => {
                let curve: Curve = match *curve {
                    CurveSetting::Exponential { initial_ratio } => ExponentialCurve::new(initial_ratio)?.into(),
                    CurveSetting::Power {
                        initial_ratio,
                        exponent,
                    } => PowerCurve::new(initial_ratio, exponent)?.into(),
                };
                HalfOpenPolicy::ramp(*duration, curve)?
            }
        };
        let config = Config::new(self.time_window, rules, self.open_duration, half_open)?
            .with_max_open_duration(match self.max_open_duration {
                MaxOpenDuration::TenTimesOpen => Some((self.open_duration * 10.0).min(2_592_000.0)),
                MaxOpenDuration::Seconds(seconds) => Some(seconds),
                MaxOpenDuration::Off => None,
            })?
            .with_max_concurrent_calls(self.max_concurrent_calls)?;
        if !(0.001..=3600.0).contains(&self.probe_timeout) {
            return Err(ConfigError::new(
                "probe_timeout",
                crate::core::duration::format_float(self.probe_timeout),
                PROBE_TIMEOUT_LIMITS,
            ));
        }
        Ok(Policy {
            config,
            failure_statuses: self.failure_statuses.clone(),
            probe_timeout_ms: (self.probe_timeout * 1000.0).round() as Millis,
            mode: self.mode.unwrap_or(mode),
            storage: self.storage.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_middlewares() {
        let policy = Settings::default().policy(Mode::Enforce).unwrap();
        assert_eq!(policy.config.window.window_ms(), 10_000);
        assert_eq!(policy.config.rules.len(), 2);
        assert_eq!(policy.config.open_duration_ms, 30_000);
        assert_eq!(policy.config.max_open_duration_ms, Some(300_000));
        assert_eq!(policy.probe_timeout_ms, 10_000);
        assert!(policy.is_failure_status(503) && !policy.is_failure_status(501) && !policy.is_failure_status(404));
        assert_eq!(policy.mode, Mode::Enforce);
    }

    #[test]
    fn storages_and_modes_are_read() {
        assert_eq!(StorageSetting::parse(" SHM "), Some(StorageSetting::SharedMemory));
        assert_eq!(
            StorageSetting::parse("memcached://a, b:1"),
            Some(StorageSetting::Memcached(vec!["a:11211".into(), "b:1".into()]))
        );
        assert_eq!(
            StorageSetting::parse("redis://h:1/2"),
            Some(StorageSetting::Redis("redis://h:1/2".into()))
        );
        assert_eq!(StorageSetting::parse("mysql://x"), None);
        assert_eq!(Mode::parse("Observe"), Some(Mode::Observe));
        assert_eq!(Mode::parse("on"), None);
    }

    #[test]
    fn a_policy_without_rules_is_refused() {
        let settings = Settings {
            failure_rate: None,
            consecutive_failures: None,
            ..Settings::default()
        };
        assert_eq!(settings.policy(Mode::Enforce).unwrap_err().parameter, "openingRules");
    }
}
