//! The validated configuration of a circuit.

use super::counts::DurationBands;
use super::duration::{Millis, SECOND, THIRTY_DAYS, checked_millis};
use super::error::ConfigError;
use super::half_open::HalfOpenPolicy;
use super::machine::Phase;
use super::rules::OpeningRule;
use super::window::WindowGeometry;

/// How long a state that time has ended (an open or half-open circuit) is
/// kept past the moment it ended, so that the first call after a long
/// silence finds it and emits `CircuitClosed`: a day. After longer, the
/// circuit is simply forgotten (closed, no event).
pub const KEEP_DUE_STATE_MS: Millis = 24 * 3_600 * SECOND;

#[derive(Debug, Clone)]
pub struct Config {
    pub window: WindowGeometry,
    pub rules: Vec<OpeningRule>,
    pub open_duration_ms: Millis,
    pub half_open: HalfOpenPolicy,
    pub bands: DurationBands,
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
        let closed_state_ttl_ms = open_duration_ms + half_open.max_duration_ms() + window.counter_ttl_ms();
        let counts_runs = rules
            .iter()
            .any(|rule| matches!(rule, OpeningRule::ConsecutiveFailures { .. }));
        Ok(Self {
            window,
            rules,
            open_duration_ms,
            half_open,
            bands,
            closed_state_ttl_ms,
            counts_runs,
        })
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
