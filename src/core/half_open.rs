//! Half-open policies: which calls test the service, and when testing ends.

use std::fmt;
use std::rc::Rc;

use super::duration::{Millis, SECOND, THIRTY_DAYS, checked_float, checked_millis};
use super::error::ConfigError;

const DURATION_LIMITS: &str = "1 to 2592000 seconds (30 days)";
const RATIO_LIMITS: &str = "greater than 0 and at most 1";
const EXPONENT_LIMITS: &str = "greater than 0 and at most 100";

/// Maps the progress of a ramp (0 to 1) to the ratio of calls permitted.
/// Implemented natively for the built-in curves and by the PHP layer for
/// userland curves.
pub trait RampCurve {
    fn admission_ratio(&self, progress: f64) -> f64;

    /// The curve as its concrete type, for a host that must find what a
    /// curve of its own holds (the PHP binding reports a userland curve's
    /// object to PHP's cycle collector).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// `ratio = initial^(1 - progress)`: equal time on each doubling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialCurve {
    pub initial_ratio: f64,
}

/// `ratio = initial + (1 - initial) * progress^exponent`; linear is exponent 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerCurve {
    pub initial_ratio: f64,
    pub exponent: f64,
}

pub fn checked_initial_ratio(initial_ratio: f64) -> Result<f64, ConfigError> {
    checked_float("initialRatio", initial_ratio, f64::MIN_POSITIVE, 1.0, RATIO_LIMITS)
}

impl ExponentialCurve {
    pub fn new(initial_ratio: f64) -> Result<Self, ConfigError> {
        Ok(Self {
            initial_ratio: checked_initial_ratio(initial_ratio)?,
        })
    }
}

impl PowerCurve {
    pub fn new(initial_ratio: f64, exponent: f64) -> Result<Self, ConfigError> {
        let initial_ratio = checked_initial_ratio(initial_ratio)?;
        let exponent = checked_float("exponent", exponent, f64::MIN_POSITIVE, 100.0, EXPONENT_LIMITS)?;
        Ok(Self {
            initial_ratio,
            exponent,
        })
    }
}

impl RampCurve for ExponentialCurve {
    fn admission_ratio(&self, progress: f64) -> f64 {
        self.initial_ratio.powf(1.0 - progress)
    }
}

impl RampCurve for PowerCurve {
    fn admission_ratio(&self, progress: f64) -> f64 {
        self.initial_ratio + (1.0 - self.initial_ratio) * progress.powf(self.exponent)
    }
}

/// The curve of a ramp: one of ours, held by value (a policy made in every
/// request allocates nothing for it, and two are the same when their
/// parameters are), or one of a host's (a curve written in PHP), the same
/// only as itself.
#[derive(Clone)]
pub enum Curve {
    Exponential(ExponentialCurve),
    Power(PowerCurve),
    Custom(Rc<dyn RampCurve>),
}

impl Curve {
    pub fn admission_ratio(&self, progress: f64) -> f64 {
        match self {
            Self::Exponential(curve) => curve.admission_ratio(progress),
            Self::Power(curve) => curve.admission_ratio(progress),
            Self::Custom(curve) => curve.admission_ratio(progress),
        }
    }

    /// A host's curve, as its concrete type.
    pub fn as_any(&self) -> Option<&dyn std::any::Any> {
        match self {
            Self::Custom(curve) => curve.as_any(),
            Self::Exponential(_) | Self::Power(_) => None,
        }
    }
}

impl PartialEq for Curve {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Exponential(a), Self::Exponential(b)) => a == b,
            (Self::Power(a), Self::Power(b)) => a == b,
            (Self::Custom(a), Self::Custom(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<ExponentialCurve> for Curve {
    fn from(curve: ExponentialCurve) -> Self {
        Self::Exponential(curve)
    }
}

impl From<PowerCurve> for Curve {
    fn from(curve: PowerCurve) -> Self {
        Self::Power(curve)
    }
}

#[derive(Clone, PartialEq)]
pub enum HalfOpenPolicy {
    /// Permits a growing ratio of calls during `duration_ms`, then closes.
    Ramp { duration_ms: Millis, curve: Curve },
    /// Permits the first `permitted_calls` calls and closes once they all
    /// reported, or at `max_duration_ms`.
    PermittedCalls {
        max_duration_ms: Millis,
        permitted_calls: u64,
    },
}

impl fmt::Debug for HalfOpenPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ramp { duration_ms, .. } => f.debug_struct("Ramp").field("duration_ms", duration_ms).finish(),
            Self::PermittedCalls {
                max_duration_ms,
                permitted_calls,
            } => f
                .debug_struct("PermittedCalls")
                .field("max_duration_ms", max_duration_ms)
                .field("permitted_calls", permitted_calls)
                .finish(),
        }
    }
}

impl HalfOpenPolicy {
    pub fn ramp(duration: f64, curve: impl Into<Curve>) -> Result<Self, ConfigError> {
        let duration_ms = checked_millis("duration", duration, SECOND, THIRTY_DAYS, DURATION_LIMITS)?;
        Ok(Self::Ramp {
            duration_ms,
            curve: curve.into(),
        })
    }

    pub fn permitted_calls(max_duration: f64, permitted_calls: i64) -> Result<Self, ConfigError> {
        let max_duration_ms = checked_millis("maxDuration", max_duration, SECOND, THIRTY_DAYS, DURATION_LIMITS)?;
        if permitted_calls < 1 {
            return Err(ConfigError::new("permittedCalls", permitted_calls, "at least 1"));
        }
        Ok(Self::PermittedCalls {
            max_duration_ms,
            permitted_calls: permitted_calls as u64,
        })
    }

    /// The longest the half-open state lasts.
    pub fn max_duration_ms(&self) -> Millis {
        match self {
            Self::Ramp { duration_ms, .. } => *duration_ms,
            Self::PermittedCalls { max_duration_ms, .. } => *max_duration_ms,
        }
    }

    /// Whether the `admission`-th call (1-based) of the half-open state begun
    /// at `started_at` is permitted at `now`.
    ///
    /// A ramp spreads its admissions evenly: call `n` is permitted when
    /// `ceil(n * ratio)` grows, and the very first call always tests the
    /// service, whatever the curve says (it is not asked), then one in
    /// every `1 / ratio`.
    pub fn admits(&self, admission: u64, started_at: Millis, now: Millis) -> bool {
        match self {
            Self::Ramp { .. } if admission == 1 => true,
            Self::Ramp { duration_ms, curve } => {
                let progress = ((now - started_at) as f64 / *duration_ms as f64).clamp(0.0, 1.0);
                let ratio = curve.admission_ratio(progress);
                // A curve that could not answer (a userland one threw, or
                // returned NaN: its caller is told) admits the call, as a
                // storage that fails does; out of range is clamped.
                if ratio.is_nan() {
                    return admission >= 1;
                }
                let ratio = ratio.clamp(0.0, 1.0);
                admission >= 1 && (admission as f64 * ratio).ceil() > ((admission - 1) as f64 * ratio).ceil()
            }
            Self::PermittedCalls { permitted_calls, .. } => admission >= 1 && admission <= *permitted_calls,
        }
    }

    /// Whether enough has been observed to close, after `reported` outcomes
    /// of the half-open state.
    pub fn is_complete(&self, reported: u64) -> bool {
        match self {
            Self::Ramp { .. } => false,
            Self::PermittedCalls { permitted_calls, .. } => reported >= *permitted_calls,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn exponential_curve_spends_time_on_low_ratios() {
        let curve = ExponentialCurve::new(0.01).unwrap();
        assert!(close(curve.admission_ratio(0.0), 0.01));
        assert!(close(curve.admission_ratio(0.5), 0.1));
        assert!(close(curve.admission_ratio(1.0), 1.0));
    }

    #[test]
    fn linear_and_power_curves() {
        let linear = PowerCurve::new(0.01, 1.0).unwrap();
        assert!(close(linear.admission_ratio(0.5), 0.505));
        let square = PowerCurve::new(0.01, 2.0).unwrap();
        assert!(close(square.admission_ratio(0.5), 0.01 + 0.99 * 0.25));
        assert!(close(square.admission_ratio(1.0), 1.0));
    }

    #[test]
    fn curve_limits() {
        assert_eq!(ExponentialCurve::new(0.0).unwrap_err().parameter, "initialRatio");
        assert_eq!(ExponentialCurve::new(1.5).unwrap_err().parameter, "initialRatio");
        assert_eq!(ExponentialCurve::new(f64::NAN).unwrap_err().parameter, "initialRatio");
        assert_eq!(PowerCurve::new(0.1, 0.0).unwrap_err().parameter, "exponent");
        assert_eq!(PowerCurve::new(0.1, f64::INFINITY).unwrap_err().parameter, "exponent");
        assert!(ExponentialCurve::new(1.0).is_ok());
    }

    #[test]
    fn ramp_admits_the_first_call_then_one_in_every_inverse_ratio() {
        let policy = HalfOpenPolicy::ramp(60.0, PowerCurve::new(0.25, 1.0).unwrap()).unwrap();
        let admitted: Vec<u64> = (1..=12).filter(|&n| policy.admits(n, 0, 0)).collect();
        assert_eq!(admitted, vec![1, 5, 9]);
        // At the end of the ramp every call passes.
        assert!((1..=20).all(|n| policy.admits(n, 0, 60_000)));
    }

    #[test]
    fn ramp_ratio_grows_with_progress() {
        let policy = HalfOpenPolicy::ramp(100.0, ExponentialCurve::new(0.01).unwrap()).unwrap();
        let share = |now| (1..=10_000).filter(|&n| policy.admits(n, 0, now)).count();
        assert_eq!(share(0), 100);
        assert_eq!(share(50_000), 1_000);
        assert_eq!(share(100_000), 10_000);
    }

    struct Nonsense(f64);
    impl RampCurve for Nonsense {
        fn admission_ratio(&self, _: f64) -> f64 {
            self.0
        }
    }

    #[test]
    fn userland_curve_results_are_clamped() {
        let nan = HalfOpenPolicy::ramp(10.0, Curve::Custom(Rc::new(Nonsense(f64::NAN)))).unwrap();
        assert!(
            nan.admits(1, 0, 0) && nan.admits(2, 0, 0),
            "a curve that cannot answer admits"
        );
        let none = HalfOpenPolicy::ramp(10.0, Curve::Custom(Rc::new(Nonsense(0.0)))).unwrap();
        assert!(none.admits(1, 0, 0), "the first call always tests the service");
        assert!(!none.admits(2, 0, 0) && !none.admits(3, 0, 0));
        let negative = HalfOpenPolicy::ramp(10.0, Curve::Custom(Rc::new(Nonsense(-1.0)))).unwrap();
        assert!(negative.admits(1, 0, 0) && !negative.admits(2, 0, 0));
        let big = HalfOpenPolicy::ramp(10.0, Curve::Custom(Rc::new(Nonsense(7.0)))).unwrap();
        assert!((1..5).all(|n| big.admits(n, 0, 0)));
    }

    #[test]
    fn permitted_calls_admit_the_first_n_and_complete_when_all_reported() {
        let policy = HalfOpenPolicy::permitted_calls(30.0, 3).unwrap();
        assert!(policy.admits(1, 0, 0) && policy.admits(3, 0, 0) && !policy.admits(4, 0, 0));
        assert!(!policy.is_complete(2));
        assert!(policy.is_complete(3));
        assert_eq!(policy.max_duration_ms(), 30_000);
    }

    #[test]
    fn policy_limits() {
        let curve = PowerCurve::new(0.1, 1.0).unwrap();
        assert_eq!(HalfOpenPolicy::ramp(0.5, curve).unwrap_err().parameter, "duration");
        assert_eq!(HalfOpenPolicy::ramp(f64::NAN, curve).unwrap_err().parameter, "duration");
        assert_eq!(
            HalfOpenPolicy::permitted_calls(31.0 * 86_400.0, 1)
                .unwrap_err()
                .parameter,
            "maxDuration"
        );
        assert_eq!(
            HalfOpenPolicy::permitted_calls(30.0, 0).unwrap_err().parameter,
            "permittedCalls"
        );
    }
}
