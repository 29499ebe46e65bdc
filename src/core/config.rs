//! The validated configuration of a circuit.

use super::counts::DurationBands;
use super::duration::{Millis, SECOND, THIRTY_DAYS, checked_millis};
use super::error::ConfigError;
use super::half_open::HalfOpenPolicy;
use super::machine::{CircuitState, Phase};
use super::rules::OpeningRule;
use super::throttle::Throttling;
use super::window::WindowGeometry;

/// The most calls a bulkhead lets in flight at once (`maxConcurrentCalls`).
pub const MAX_CONCURRENT_CALLS: u16 = 256;

/// How long a state that time has ended (an open or half-open circuit) is
/// kept past the moment it ended, so that the first call after a long
/// silence finds it and emits `CircuitClosed`: a day. After longer, the
/// circuit is simply forgotten (closed, no event).
pub const KEEP_DUE_STATE_MS: Millis = 24 * 3_600 * SECOND;

/// The highest backoff level: 1 s doubled 22 times passes 30 days, the
/// largest open duration, so 31 (5 bits in a stored state) is never reached.
pub const MAX_BACKOFF_LEVEL: u8 = 31;

#[derive(Debug, Clone)]
pub struct Config {
    pub window: WindowGeometry,
    pub rules: Vec<OpeningRule>,
    pub open_duration_ms: Millis,
    /// The cap of the backoff: each reopening from half-open doubles the
    /// open duration up to it. `None`: no backoff, every opening lasts
    /// `open_duration_ms`.
    pub max_open_duration_ms: Option<Millis>,
    pub half_open: HalfOpenPolicy,
    pub bands: DurationBands,
    /// The bulkhead: at most this many calls in flight at once, across the
    /// processes sharing its table. `None`: no bound.
    pub max_concurrent_calls: Option<u16>,
    /// The first adaptive throttling rule's, when the rules have one.
    pub throttling: Option<Throttling>,
    /// [`Self::state_ttl_ms`] of a closed state, computed once: every
    /// registered outcome asks for it.
    closed_state_ttl_ms: Millis,
    /// [`Self::counts_runs`], computed once.
    counts_runs: bool,
}

impl Config {
    pub fn new(
        time_window: f64,
        rules: Vec<OpeningRule>,
        open_duration: f64,
        half_open: HalfOpenPolicy,
    ) -> Result<Self, ConfigError> {
        let window_ms = checked_millis(
            "timeWindow",
            time_window,
            10 * SECOND,
            3_600 * SECOND,
            "10 to 3600 seconds",
        )?;
        if rules.is_empty() {
            return Err(ConfigError::new("openingRules", "[]", "at least one opening rule"));
        }
        let open_duration_ms = checked_millis(
            "openDuration",
            open_duration,
            SECOND,
            THIRTY_DAYS,
            "1 to 2592000 seconds (30 days)",
        )?;
        let bands = DurationBands::new(rules.iter().filter_map(OpeningRule::slow_call_ms).collect());
        let window = WindowGeometry::new(window_ms);
        let mut throttlings = rules.iter().filter_map(|rule| match rule {
            OpeningRule::AdaptiveThrottling(throttling) => Some(*throttling),
            _ => None,
        });
        let throttling = throttlings.next();
        if throttlings.next().is_some() {
            return Err(ConfigError::new(
                "openingRules",
                "two AdaptiveThrottlingRule",
                "at most one AdaptiveThrottlingRule",
            ));
        }
        let counts_runs = rules
            .iter()
            .any(|rule| matches!(rule, OpeningRule::ConsecutiveFailures { .. }));
        let mut config = Self {
            window,
            rules,
            open_duration_ms,
            max_open_duration_ms: None,
            half_open,
            bands,
            max_concurrent_calls: None,
            throttling,
            closed_state_ttl_ms: 0,
            counts_runs,
        };
        config.closed_state_ttl_ms = config.compute_closed_state_ttl_ms();
        Ok(config)
    }

    /// The time to live of a closed state: through the longest time a
    /// reopening could take, and as long as its counters.
    fn compute_closed_state_ttl_ms(&self) -> Millis {
        let longest_open = self.max_open_duration_ms.unwrap_or(self.open_duration_ms);
        longest_open + self.half_open.max_duration_ms() + self.window.counter_ttl_ms()
    }

    /// Turns on the backoff of the open duration, up to `max_open_duration`
    /// seconds (`None`: no backoff).
    pub fn with_max_open_duration(mut self, max_open_duration: Option<f64>) -> Result<Self, ConfigError> {
        self.max_open_duration_ms = match max_open_duration {
            None => None,
            Some(seconds) => {
                let max = checked_millis(
                    "maxOpenDuration",
                    seconds,
                    SECOND,
                    THIRTY_DAYS,
                    "null, or openDuration to 2592000 seconds (30 days)",
                )?;
                if max < self.open_duration_ms {
                    return Err(ConfigError::new(
                        "maxOpenDuration",
                        crate::core::duration::format_float(seconds),
                        "null, or openDuration to 2592000 seconds (30 days)",
                    ));
                }
                Some(max)
            }
        };
        self.closed_state_ttl_ms = self.compute_closed_state_ttl_ms();
        Ok(self)
    }

    /// Bounds the calls in flight at once to `max_concurrent_calls`
    /// (`None`: no bound).
    pub fn with_max_concurrent_calls(mut self, max_concurrent_calls: Option<i64>) -> Result<Self, ConfigError> {
        self.max_concurrent_calls = match max_concurrent_calls {
            None => None,
            Some(max) => Some(
                u16::try_from(max)
                    .ok()
                    .filter(|max| (1..=MAX_CONCURRENT_CALLS).contains(max))
                    .ok_or_else(|| ConfigError::new("maxConcurrentCalls", max, "null, or 1 to 256"))?,
            ),
        };
        Ok(self)
    }

    /// How long an opening at backoff `level` lasts: the open duration
    /// doubled `level` times, capped at the maximum.
    pub fn open_duration_at(&self, level: u8) -> Millis {
        match self.max_open_duration_ms {
            None => self.open_duration_ms,
            Some(max) => self
                .open_duration_ms
                .checked_mul(1 << level.min(40))
                .map_or(max, |doubled| doubled.min(max)),
        }
    }

    /// The level of a reopening from half-open after an opening at `level`:
    /// one more, until the cap is reached.
    pub fn next_backoff(&self, level: u8) -> u8 {
        match self.max_open_duration_ms {
            Some(max) if self.open_duration_at(level) < max => (level + 1).min(MAX_BACKOFF_LEVEL),
            _ => level,
        }
    }

    /// Whether a rule looks at runs of failures, which then must be counted.
    pub fn counts_runs(&self) -> bool {
        self.counts_runs
    }

    /// How long a circuit's state must be kept after it was last written or
    /// used, in `phase`.
    ///
    /// A state that is not closed ends by time, and the first call that
    /// finds it ended emits the transition: so it is kept through its open
    /// and half-open time and then [`KEEP_DUE_STATE_MS`] more, and a circuit
    /// first called again within that day still emits `CircuitClosed`. A
    /// closed state is kept as long as before issue 9: through the time a
    /// reopening could take, and as long as its counters.
    pub fn state_ttl_ms(&self, phase: Phase) -> Millis {
        let closed = self.closed_state_ttl_ms;
        match phase {
            Phase::Closed => closed,
            Phase::Open | Phase::HalfOpen => closed + KEEP_DUE_STATE_MS,
        }
    }

    /// How long `state`, stored at `now`, must be kept: a forced state
    /// through its end and a day more, as any state that time ends.
    pub fn state_ttl_ms_of(&self, state: &CircuitState, now: Millis) -> Millis {
        if state.forced {
            (state.until - now).max(0) + KEEP_DUE_STATE_MS + self.window.counter_ttl_ms()
        } else {
            self.state_ttl_ms(state.phase)
        }
    }

    /// The longest [`Self::state_ttl_ms`]: enough for a state in any phase.
    pub fn longest_state_ttl_ms(&self) -> Millis {
        self.state_ttl_ms(Phase::Open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> HalfOpenPolicy {
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap()
    }

    fn rule() -> OpeningRule {
        OpeningRule::failure_rate(50.0, 10).unwrap()
    }

    #[test]
    fn limits_name_their_parameter() {
        let err = Config::new(9.999, vec![rule()], 10.0, policy()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid timeWindow: 9.999 given, expected 10 to 3600 seconds"
        );
        assert_eq!(
            Config::new(3_600.001, vec![rule()], 10.0, policy())
                .unwrap_err()
                .parameter,
            "timeWindow"
        );
        assert_eq!(
            Config::new(f64::INFINITY, vec![rule()], 10.0, policy())
                .unwrap_err()
                .parameter,
            "timeWindow"
        );
        assert_eq!(
            Config::new(60.0, vec![], 10.0, policy()).unwrap_err().parameter,
            "openingRules"
        );
        assert_eq!(
            Config::new(60.0, vec![rule()], 0.999, policy()).unwrap_err().parameter,
            "openDuration"
        );
        assert_eq!(
            Config::new(60.0, vec![rule()], f64::NAN, policy())
                .unwrap_err()
                .parameter,
            "openDuration"
        );
        assert!(Config::new(10.0, vec![rule()], 1.0, policy()).is_ok());
        assert!(Config::new(3_600.0, vec![rule()], 2_592_000.0, policy()).is_ok());
    }

    #[test]
    fn a_state_that_is_not_closed_outlives_its_end_by_a_day() {
        let config = Config::new(60.0, vec![rule()], 10.0, policy()).unwrap();
        // Open at t, due to close at t + 10 s + 30 s.
        let due = 40_000;
        for phase in [Phase::Open, Phase::HalfOpen] {
            assert!(config.state_ttl_ms(phase) >= due + KEEP_DUE_STATE_MS);
        }
        assert!(config.state_ttl_ms(Phase::Closed) >= config.window.counter_ttl_ms());
        assert!(config.state_ttl_ms(Phase::Closed) < KEEP_DUE_STATE_MS);
        assert_eq!(config.longest_state_ttl_ms(), config.state_ttl_ms(Phase::Open));
    }

    #[test]
    fn max_open_duration_is_checked_against_open_duration() {
        let config = || Config::new(60.0, vec![rule()], 10.0, policy()).unwrap();
        let err = config().with_max_open_duration(Some(9.0)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid maxOpenDuration: 9 given, expected null, or openDuration to 2592000 seconds (30 days)"
        );
        assert_eq!(
            config()
                .with_max_open_duration(Some(2_592_000.5))
                .unwrap_err()
                .parameter,
            "maxOpenDuration"
        );
        assert_eq!(
            config().with_max_open_duration(Some(f64::NAN)).unwrap_err().parameter,
            "maxOpenDuration"
        );
        assert!(config().with_max_open_duration(Some(10.0)).is_ok());
        assert!(
            config()
                .with_max_open_duration(None)
                .unwrap()
                .max_open_duration_ms
                .is_none()
        );
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let config = Config::new(60.0, vec![rule()], 10.0, policy())
            .unwrap()
            .with_max_open_duration(Some(40.0))
            .unwrap();
        let waits: Vec<Millis> = [0, 1, 2, 3, 30].map(|level| config.open_duration_at(level)).to_vec();
        assert_eq!(waits, [10_000, 20_000, 40_000, 40_000, 40_000]);
        assert_eq!(
            (config.next_backoff(0), config.next_backoff(1), config.next_backoff(2)),
            (1, 2, 2)
        );
        let longest = Config::new(60.0, vec![rule()], 1.0, policy())
            .unwrap()
            .with_max_open_duration(Some(2_592_000.0))
            .unwrap();
        let mut level = 0;
        while longest.next_backoff(level) != level {
            level = longest.next_backoff(level);
        }
        assert!(level < MAX_BACKOFF_LEVEL, "level {level}");
        assert_eq!(longest.open_duration_at(level), THIRTY_DAYS);
        let plain = Config::new(60.0, vec![rule()], 10.0, policy()).unwrap();
        assert_eq!((plain.open_duration_at(5), plain.next_backoff(0)), (10_000, 0));
    }

    #[test]
    fn bands_come_from_the_slow_rules() {
        let rules = vec![
            rule(),
            OpeningRule::slow_call_rate(2.0, 80.0, 10).unwrap(),
            OpeningRule::failure_or_slow_call_rate(2.0, 70.0, 10).unwrap(),
        ];
        let config = Config::new(60.0, rules, 10.0, policy()).unwrap();
        assert_eq!(config.bands.band_count(), 3);
    }
}
