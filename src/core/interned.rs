//! The configurations a process built, by the arguments they were built
//! from: an application that builds its configuration in every request (the
//! seed's usage) finds the one an earlier request built, and neither builds
//! nor frees one.
//!
//! A configuration is found only by arguments equal to those it was built
//! from, bit for bit, so what a request gets is what it would have built. A
//! configuration whose ramp curve is the host's (written in PHP) is never
//! kept: it is the same only as itself, and holds a value of its request.

use std::rc::Rc;

use super::config::Config;
use super::error::ConfigError;
use super::half_open::{Curve, HalfOpenPolicy};
use super::rules::OpeningRule;

/// The arguments of a configuration but its rules and policy, as bits: the
/// same number is the same argument.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Scalars {
    time_window: u64,
    open_duration: u64,
    max_open_duration: Option<u64>,
    max_concurrent_calls: Option<i64>,
}

impl Scalars {
    pub fn new(
        time_window: f64,
        open_duration: f64,
        max_open_duration: Option<f64>,
        max_concurrent_calls: Option<i64>,
    ) -> Self {
        Self {
            time_window: time_window.to_bits(),
            open_duration: open_duration.to_bits(),
            max_open_duration: max_open_duration.map(f64::to_bits),
            max_concurrent_calls,
        }
    }

    fn build(&self, rules: Vec<OpeningRule>, half_open: HalfOpenPolicy) -> Result<Config, ConfigError> {
        Config::new(
            f64::from_bits(self.time_window),
            rules,
            f64::from_bits(self.open_duration),
            half_open,
        )?
        .with_max_open_duration(self.max_open_duration.map(f64::from_bits))?
        .with_max_concurrent_calls(self.max_concurrent_calls)
    }
}

/// How many configurations a process keeps: past them, the oldest goes.
pub const INTERNED_CONFIGS: usize = 64;

/// The configurations built, up to [`INTERNED_CONFIGS`].
#[derive(Default)]
pub struct InternedConfigs {
    built: Vec<(Scalars, Rc<Config>)>,
    /// The entry the next one replaces, once full.
    next: usize,
}

impl InternedConfigs {
    /// The configuration built from `scalars`, `half_open` and the rules
    /// that `rules_are` recognizes, when one was kept.
    pub fn find(
        &self,
        scalars: &Scalars,
        half_open: &HalfOpenPolicy,
        mut rules_are: impl FnMut(&[OpeningRule]) -> bool,
    ) -> Option<Rc<Config>> {
        self.built
            .iter()
            .find(|(built, config)| built == scalars && config.half_open == *half_open && rules_are(&config.rules))
            .map(|(_, config)| Rc::clone(config))
    }

    /// Builds the configuration of these arguments, kept for those to come
    /// unless its curve is the host's. An invalid one is not kept.
    pub fn build(
        &mut self,
        scalars: Scalars,
        rules: Vec<OpeningRule>,
        half_open: HalfOpenPolicy,
    ) -> Result<Rc<Config>, ConfigError> {
        let config = Rc::new(scalars.build(rules, half_open)?);
        if matches!(
            config.half_open,
            HalfOpenPolicy::Ramp {
                curve: Curve::Custom(_),
                ..
            }
        ) {
            return Ok(config);
        }
        let entry = (scalars, Rc::clone(&config));
        if self.built.len() < INTERNED_CONFIGS {
            self.built.push(entry);
        } else {
            self.built[self.next] = entry;
            self.next = (self.next + 1) % INTERNED_CONFIGS;
        }
        Ok(config)
    }

    pub fn clear(&mut self) {
        self.built.clear();
        self.next = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::half_open::{ExponentialCurve, PowerCurve, RampCurve};

    fn rules() -> Vec<OpeningRule> {
        vec![OpeningRule::failure_rate(50.0, 10).unwrap()]
    }

    fn ramp() -> HalfOpenPolicy {
        HalfOpenPolicy::ramp(60.0, ExponentialCurve::new(0.01).unwrap()).unwrap()
    }

    fn scalars() -> Scalars {
        Scalars::new(60.0, 10.0, None, None)
    }

    fn same_rules(expected: Vec<OpeningRule>) -> impl FnMut(&[OpeningRule]) -> bool {
        move |rules| rules == expected.as_slice()
    }

    #[test]
    fn the_same_arguments_find_the_configuration_they_built() {
        let mut interned = InternedConfigs::default();
        let built = interned.build(scalars(), rules(), ramp()).unwrap();
        let found = interned.find(&scalars(), &ramp(), same_rules(rules())).unwrap();
        assert!(Rc::ptr_eq(&built, &found));
    }

    #[test]
    fn any_other_argument_finds_nothing() {
        let mut interned = InternedConfigs::default();
        interned.build(scalars(), rules(), ramp()).unwrap();
        let others = [
            Scalars::new(61.0, 10.0, None, None),
            Scalars::new(60.0, 11.0, None, None),
            Scalars::new(60.0, 10.0, Some(100.0), None),
            Scalars::new(60.0, 10.0, None, Some(5)),
        ];
        for other in &others {
            assert!(interned.find(other, &ramp(), same_rules(rules())).is_none());
        }
        let power = HalfOpenPolicy::ramp(60.0, PowerCurve::new(0.01, 1.0).unwrap()).unwrap();
        let longer = HalfOpenPolicy::ramp(61.0, ExponentialCurve::new(0.01).unwrap()).unwrap();
        let steeper = HalfOpenPolicy::ramp(60.0, ExponentialCurve::new(0.02).unwrap()).unwrap();
        let calls = HalfOpenPolicy::permitted_calls(60.0, 1).unwrap();
        for policy in [power, longer, steeper, calls] {
            assert!(interned.find(&scalars(), &policy, same_rules(rules())).is_none());
        }
        let stricter = vec![OpeningRule::failure_rate(40.0, 10).unwrap()];
        let more = [rules(), rules()].concat();
        for other in [stricter, more] {
            assert!(interned.find(&scalars(), &ramp(), same_rules(other)).is_none());
        }
    }

    #[test]
    fn invalid_arguments_are_refused_and_not_kept() {
        let mut interned = InternedConfigs::default();
        let invalid = Scalars::new(1.0, 10.0, None, None);
        assert_eq!(
            interned.build(invalid, rules(), ramp()).unwrap_err().parameter,
            "timeWindow"
        );
        assert!(interned.find(&invalid, &ramp(), |_| true).is_none());
    }

    struct Custom;

    impl RampCurve for Custom {
        fn admission_ratio(&self, progress: f64) -> f64 {
            progress
        }
    }

    #[test]
    fn a_configuration_over_a_custom_curve_is_not_kept() {
        let mut interned = InternedConfigs::default();
        let custom = HalfOpenPolicy::ramp(60.0, Curve::Custom(Rc::new(Custom))).unwrap();
        interned.build(scalars(), rules(), custom.clone()).unwrap();
        assert!(interned.find(&scalars(), &custom, |_| true).is_none());
    }

    #[test]
    fn past_the_bound_the_oldest_goes() {
        let mut interned = InternedConfigs::default();
        let window = |n: usize| Scalars::new(10.0 + n as f64, 10.0, None, None);
        for n in 0..=INTERNED_CONFIGS {
            interned.build(window(n), rules(), ramp()).unwrap();
        }
        assert!(interned.find(&window(0), &ramp(), |_| true).is_none());
        assert!(interned.find(&window(1), &ramp(), |_| true).is_some());
        assert!(interned.find(&window(INTERNED_CONFIGS), &ramp(), |_| true).is_some());
    }
}
