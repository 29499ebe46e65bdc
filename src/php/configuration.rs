//! Configuration, opening rules, half-open policies and ramp curves.

use std::cell::RefCell;
use std::rc::Rc;

use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::flags::DataType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ExecutorGlobals;

use super::engine::args::{ArrayArg, Float, Int, describe, list_values, reject};
use super::engine::callback::{CallError, call_method, overrides};
use super::engine::classes::{half_open_policy_interface, opening_rule_interface, ramp_curve_interface};
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::handlers::{Arguments, FastConstruct, HotStatic, Refused, native, replace_static};
use super::engine::readonly::{ReadOnlyProperties, Type, read_only};
use super::engine::reentry::{PerFiber, refuse_reconstruction};
use super::engine::typed::Array;
use super::error::{invalid_configuration, unexpected_value};
use super::params::{CurveArg, PolicyArg};
use crate::core::config::Config;
use crate::core::duration::format_float;
use crate::core::error::ConfigError;
use crate::core::half_open::{Curve, ExponentialCurve, HalfOpenPolicy, PowerCurve, RampCurve};
use crate::core::interned::{InternedConfigs, Scalars};
use crate::core::rules::OpeningRule;

type Checked<T> = Result<T, PhpException>;

fn checked<T>(result: Result<T, ConfigError>) -> Checked<T> {
    result.map_err(invalid_configuration)
}

macro_rules! rule_class {
    ($rust:ident, $php:literal) => {
        #[php_class]
        #[php(name = $php)]
        #[php(implements(ce = opening_rule_interface, stub = "\\Zeusi\\CircuitBreaker\\Opening\\OpeningRuleInterface"))]
        pub struct $rust {
            pub rule: OpeningRule,
        }
    };
}

rule_class!(FailureRateRule, "Zeusi\\CircuitBreaker\\Opening\\FailureRateRule");
rule_class!(SlowCallRateRule, "Zeusi\\CircuitBreaker\\Opening\\SlowCallRateRule");
rule_class!(
    FailureOrSlowCallRateRule,
    "Zeusi\\CircuitBreaker\\Opening\\FailureOrSlowCallRateRule"
);
rule_class!(
    ConsecutiveFailuresRule,
    "Zeusi\\CircuitBreaker\\Opening\\ConsecutiveFailuresRule"
);
rule_class!(
    AdaptiveThrottlingRule,
    "Zeusi\\CircuitBreaker\\Opening\\AdaptiveThrottlingRule"
);

fn threshold_of(rule: &OpeningRule) -> f64 {
    match *rule {
        OpeningRule::FailureRate { threshold, .. }
        | OpeningRule::SlowCallRate { threshold, .. }
        | OpeningRule::FailureOrSlowCallRate { threshold, .. } => threshold,
        OpeningRule::ConsecutiveFailures { .. } | OpeningRule::AdaptiveThrottling(_) => 100.0,
    }
}

fn minimum_of(rule: &OpeningRule) -> i64 {
    match *rule {
        OpeningRule::FailureRate { minimum_requests, .. }
        | OpeningRule::SlowCallRate { minimum_requests, .. }
        | OpeningRule::FailureOrSlowCallRate { minimum_requests, .. } => minimum_requests as i64,
        OpeningRule::ConsecutiveFailures { failures } => failures as i64,
        OpeningRule::AdaptiveThrottling(throttling) => throttling.minimum_requests as i64,
    }
}

fn slow_of(rule: &OpeningRule) -> f64 {
    rule.slow_call_ms().unwrap_or(0) as f64 / 1_000.0
}

#[php_impl]
impl FailureRateRule {
    pub fn __construct(threshold: Float, minimumRequests: Int) -> Checked<Self> {
        Ok(Self {
            rule: checked(OpeningRule::failure_rate(threshold.0, minimumRequests.0))?,
        })
    }
    #[php(getter)]
    pub fn get_threshold(&self) -> f64 {
        threshold_of(&self.rule)
    }
    #[php(getter)]
    pub fn get_minimum_requests(&self) -> i64 {
        minimum_of(&self.rule)
    }
}

/// The two rules on slow calls share their parameters and getters.
macro_rules! slow_rule_impl {
    ($rust:ident, $constructor:path) => {
        #[php_impl]
        impl $rust {
            pub fn __construct(slowCallDuration: Float, threshold: Float, minimumRequests: Int) -> Checked<Self> {
                refuse_reconstruction::<Self>()?;
                Ok(Self {
                    rule: checked($constructor(slowCallDuration.0, threshold.0, minimumRequests.0))?,
                })
            }
            #[php(getter)]
            pub fn get_slow_call_duration(&self) -> f64 {
                slow_of(&self.rule)
            }
            #[php(getter)]
            pub fn get_threshold(&self) -> f64 {
                threshold_of(&self.rule)
            }
            #[php(getter)]
            pub fn get_minimum_requests(&self) -> i64 {
                minimum_of(&self.rule)
            }
        }
    };
}

slow_rule_impl!(SlowCallRateRule, OpeningRule::slow_call_rate);
slow_rule_impl!(FailureOrSlowCallRateRule, OpeningRule::failure_or_slow_call_rate);

#[php_impl]
impl ConsecutiveFailuresRule {
    pub fn __construct(failures: Int) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            rule: checked(OpeningRule::consecutive_failures(failures.0))?,
        })
    }
    #[php(getter)]
    pub fn get_failures(&self) -> i64 {
        minimum_of(&self.rule)
    }
}

/// Refuses nothing and opens nothing below its minimum; beyond it, while
/// closed, refuses a share of the calls that grows with the window's failure
/// rate (`core/throttle.rs`); it never opens the circuit.
#[php_impl]
impl AdaptiveThrottlingRule {
    #[php(defaults(k = 2.0, maxRejectionRate = 0.9, minimumRequests = 10))]
    pub fn __construct(k: Float, maxRejectionRate: Float, minimumRequests: Int) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            rule: checked(OpeningRule::adaptive_throttling(
                k.0,
                maxRejectionRate.0,
                minimumRequests.0,
            ))?,
        })
    }
    #[php(getter)]
    pub fn get_k(&self) -> f64 {
        self.throttling().k
    }
    #[php(getter)]
    pub fn get_max_rejection_rate(&self) -> f64 {
        self.throttling().max_rejection_rate
    }
    #[php(getter)]
    pub fn get_minimum_requests(&self) -> i64 {
        minimum_of(&self.rule)
    }
}

impl AdaptiveThrottlingRule {
    fn throttling(&self) -> crate::core::throttle::Throttling {
        match self.rule {
            OpeningRule::AdaptiveThrottling(throttling) => throttling,
            _ => unreachable!("made by its constructor"),
        }
    }
}

/// The core rule of a native rule object.
fn rule_ref(object: &ZendObject) -> Option<&OpeningRule> {
    native::<FailureRateRule>(object)
        .map(|r| &r.rule)
        .or_else(|| native::<SlowCallRateRule>(object).map(|r| &r.rule))
        .or_else(|| native::<FailureOrSlowCallRateRule>(object).map(|r| &r.rule))
        .or_else(|| native::<ConsecutiveFailuresRule>(object).map(|r| &r.rule))
        .or_else(|| native::<AdaptiveThrottlingRule>(object).map(|r| &r.rule))
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\HalfOpen\\ExponentialRampCurve")]
#[php(implements(ce = ramp_curve_interface, stub = "\\Zeusi\\CircuitBreaker\\HalfOpen\\RampCurveInterface"))]
pub struct ExponentialRampCurve {
    curve: ExponentialCurve,
}

#[php_impl]
impl ExponentialRampCurve {
    pub fn __construct(initialRatio: Float) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            curve: checked(ExponentialCurve::new(initialRatio.0))?,
        })
    }
    pub fn compute_admission_ratio(&self, progress: Float) -> f64 {
        self.curve.admission_ratio(progress.0)
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\HalfOpen\\PowerRampCurve")]
#[php(implements(ce = ramp_curve_interface, stub = "\\Zeusi\\CircuitBreaker\\HalfOpen\\RampCurveInterface"))]
pub struct PowerRampCurve {
    curve: PowerCurve,
}

#[php_impl]
impl PowerRampCurve {
    #[php(defaults(exponent = 1.0))]
    pub fn __construct(initialRatio: Float, exponent: Float) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            curve: checked(PowerCurve::new(initialRatio.0, exponent.0))?,
        })
    }
    pub fn compute_admission_ratio(&self, progress: Float) -> f64 {
        self.curve.admission_ratio(progress.0)
    }
}

/// A curve written in PHP, called on every half-open admission but the first.
struct UserlandCurve {
    object: Zval,
}

thread_local! {
    /// What a curve written in PHP threw, or the error of the NAN it
    /// returned, in the current call of each fiber: thrown to the caller
    /// of `acquirePermission()` once the call is over, not left pending
    /// while the breaker still calls its storage (a storage written in PHP
    /// would not run then).
    static CURVE_THREW: PerFiber<Zval> = const { PerFiber::new() };
}

/// What a ramp curve written in PHP threw in the current call, once.
pub(super) fn take_curve_exception() -> Option<Zval> {
    CURVE_THREW.with(PerFiber::take)
}

impl RampCurve for UserlandCurve {
    fn admission_ratio(&self, progress: f64) -> f64 {
        let Some(object) = self.object.object() else {
            return f64::NAN;
        };
        let thrown = match call_method(object, "computeAdmissionRatio", vec![&progress]) {
            Ok(ratio) => match ratio.double().or_else(|| ratio.long().map(|long| long as f64)) {
                Some(ratio) if !ratio.is_nan() => return ratio,
                _ => unexpected_value(&format!(
                    "{}::computeAdmissionRatio({}) returned NAN: a ratio is a number, 0 to 1 (others are clamped)",
                    object.get_class_name().unwrap_or_default(),
                    format_float(progress),
                )),
            },
            Err(CallError::Threw(_)) => match ExecutorGlobals::take_exception().and_then(|e| e.into_zval(false).ok()) {
                Some(exception) => exception,
                None => return f64::NAN,
            },
            // The script is ending, or nothing could be called: nothing to throw.
            Err(_) => return f64::NAN,
        };
        CURVE_THREW.with(|threw| threw.set(thrown));
        f64::NAN
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// The PHP object of a policy's curve when it is written in PHP.
pub(super) fn userland_curve_object(policy: &HalfOpenPolicy) -> Option<&Zval> {
    match policy {
        HalfOpenPolicy::Ramp { curve, .. } => curve
            .as_any()?
            .downcast_ref::<UserlandCurve>()
            .map(|curve| &curve.object),
        _ => None,
    }
}

/// A curve of ours is computed natively, unless a subclass overrides its
/// computation: then it is called through PHP, as a curve written in PHP.
fn curve_of(curve: &Zval) -> Curve {
    const COMPUTE: [&str; 1] = ["computeAdmissionRatio"];
    let object = curve.object().expect("typed as RampCurveInterface");
    if let Some(native) =
        native::<ExponentialRampCurve>(object).filter(|_| !overrides::<ExponentialRampCurve>(object, &COMPUTE))
    {
        return native.curve.into();
    }
    if let Some(native) = native::<PowerRampCurve>(object).filter(|_| !overrides::<PowerRampCurve>(object, &COMPUTE)) {
        return native.curve.into();
    }
    Curve::Custom(Rc::new(UserlandCurve {
        object: curve.shallow_clone(),
    }))
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\HalfOpen\\RampPolicy")]
#[php(implements(ce = half_open_policy_interface, stub = "\\Zeusi\\CircuitBreaker\\HalfOpen\\HalfOpenPolicyInterface"))]
pub struct RampPolicy {
    pub policy: HalfOpenPolicy,
}

#[php_impl]
impl RampPolicy {
    pub fn __construct(duration: Float, curve: CurveArg<'_>) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            policy: checked(HalfOpenPolicy::ramp(duration.0, curve_of(curve.0)))?,
        })
    }

    pub fn create_exponential(duration: Float, initialRatio: Float) -> Checked<Self> {
        let curve = checked(ExponentialCurve::new(initialRatio.0))?;
        Ok(Self {
            policy: checked(HalfOpenPolicy::ramp(duration.0, curve))?,
        })
    }

    pub fn create_linear(duration: Float, initialRatio: Float) -> Checked<Self> {
        let curve = checked(PowerCurve::new(initialRatio.0, 1.0))?;
        Ok(Self {
            policy: checked(HalfOpenPolicy::ramp(duration.0, curve))?,
        })
    }

    pub fn create_power(duration: Float, initialRatio: Float, exponent: Float) -> Checked<Self> {
        let curve = checked(PowerCurve::new(initialRatio.0, exponent.0))?;
        Ok(Self {
            policy: checked(HalfOpenPolicy::ramp(duration.0, curve))?,
        })
    }

    pub fn get_max_duration(&self) -> f64 {
        self.policy.max_duration_ms() as f64 / 1_000.0
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\HalfOpen\\PermittedCallsPolicy")]
#[php(implements(ce = half_open_policy_interface, stub = "\\Zeusi\\CircuitBreaker\\HalfOpen\\HalfOpenPolicyInterface"))]
pub struct PermittedCallsPolicy {
    pub policy: HalfOpenPolicy,
}

#[php_impl]
impl PermittedCallsPolicy {
    #[php(defaults(permittedCalls = 1_i64))]
    pub fn __construct(maxDuration: Float, permittedCalls: Int) -> Checked<Self> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            policy: checked(HalfOpenPolicy::permitted_calls(maxDuration.0, permittedCalls.0))?,
        })
    }

    pub fn create_single_trial(maxDuration: Float) -> Checked<Self> {
        Ok(Self {
            policy: checked(HalfOpenPolicy::permitted_calls(maxDuration.0, 1))?,
        })
    }

    pub fn get_max_duration(&self) -> f64 {
        self.policy.max_duration_ms() as f64 / 1_000.0
    }

    #[php(getter)]
    pub fn get_permitted_calls(&self) -> i64 {
        match self.policy {
            HalfOpenPolicy::PermittedCalls { permitted_calls, .. } => permitted_calls as i64,
            HalfOpenPolicy::Ramp { .. } => 0,
        }
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Configuration")]
pub struct Configuration {
    pub config: Rc<Config>,
    /// The rules as given (a list), for `OpeningCause::$openingRule`.
    pub rules: Zval,
    pub(super) policy: Zval,
}

/// Why a rule or a policy of one's own is refused: the core evaluates the
/// rules and policies it knows natively, on every call and in every
/// storage, without calling into PHP; the two interfaces only name that
/// family, and are closed to userland classes.
const CLOSED_RULES: &str = " (a class of your own: OpeningRuleInterface is closed, implemented only by the \
     extension's rules, which every storage runs natively)";
const CLOSED_POLICIES: &str = " (a class of your own: HalfOpenPolicyInterface is closed, implemented only by the \
     extension's policies, which every storage runs natively)";

thread_local! {
    /// The configurations this process built (`core/interned.rs`).
    static INTERNED: RefCell<InternedConfigs> = RefCell::new(InternedConfigs::default());
}

/// Forgets the configurations built, at module shutdown.
pub fn forget_interned() {
    INTERNED.with_borrow_mut(InternedConfigs::clear);
}

/// The rules of `openingRules`, each a rule of ours.
fn rules_of(array: &ZendHashTable) -> Checked<Vec<OpeningRule>> {
    let mut rules = Vec::with_capacity(array.len());
    for (position, (_, value)) in array.iter().enumerate() {
        let rule = value.object().and_then(rule_ref).ok_or_else(|| {
            let mut given = format!("{} at position {position}", describe(value));
            if value.object().is_some_and(|object| object.instance_of(opening_rule_interface())) {
                given.push_str(CLOSED_RULES);
            }
            invalid_configuration(ConfigError::new(
                "openingRules",
                given,
                "instances of FailureRateRule, SlowCallRateRule, FailureOrSlowCallRateRule, ConsecutiveFailuresRule or AdaptiveThrottlingRule",
            ))
        })?;
        rules.push(rule.clone());
    }
    Ok(rules)
}

/// The values of `array` in a list of their own.
fn list_of(array: &ZendHashTable) -> Zval {
    let mut list = ZendHashTable::with_capacity(u32::try_from(array.len()).unwrap_or(u32::MAX));
    for value in array.values() {
        // A table of our own, of a size PHP arrays may have: a push fails
        // only past `nNextFreeElement`'s limit.
        let _ = list.push(value.shallow_clone());
    }
    let mut zval = Zval::new();
    zval.set_hashtable(list);
    zval
}

/// The policy of `halfOpenPolicy`, one of ours.
fn policy_of(policy: &Zval) -> Checked<&HalfOpenPolicy> {
    let object = policy.object().expect("typed as HalfOpenPolicyInterface");
    native::<RampPolicy>(object)
        .map(|p| &p.policy)
        .or_else(|| native::<PermittedCallsPolicy>(object).map(|p| &p.policy))
        .ok_or_else(|| {
            invalid_configuration(ConfigError::new(
                "halfOpenPolicy",
                format!("{}{CLOSED_POLICIES}", describe(policy)),
                "a RampPolicy (on any RampCurveInterface, yours included) or a PermittedCallsPolicy",
            ))
        })
}

#[php_impl]
impl Configuration {
    #[php(optional = maxOpenDuration)]
    pub fn __construct(
        timeWindow: Float,
        openingRules: ArrayArg<'_>,
        openDuration: Float,
        halfOpenPolicy: PolicyArg<'_>,
        maxOpenDuration: Option<Float>,
        maxConcurrentCalls: Option<Int>,
    ) -> Checked<Self> {
        let scalars = Scalars::new(
            timeWindow.0,
            openDuration.0,
            maxOpenDuration.map(|duration| duration.0),
            maxConcurrentCalls.map(|max| max.0),
        );
        let policy = policy_of(halfOpenPolicy.0);
        let list = list_values(openingRules.1);
        let found = match (&policy, list) {
            (Ok(policy), Some(list)) => INTERNED.with_borrow(|interned| {
                interned.find(&scalars, policy, |rules| {
                    rules.len() == list.len()
                        && list
                            .iter()
                            .zip(rules)
                            .all(|(given, rule)| given.object().and_then(rule_ref) == Some(rule))
                })
            }),
            _ => None,
        };
        let config = match found {
            Some(config) => config,
            None => {
                let rules = rules_of(openingRules.1)?;
                let policy = policy?.clone();
                checked(INTERNED.with_borrow_mut(|interned| interned.build(scalars, rules, policy)))?
            }
        };
        let rules = match list {
            Some(_) => openingRules.0.shallow_clone(),
            None => list_of(openingRules.1),
        };
        Ok(Self {
            config,
            rules,
            policy: halfOpenPolicy.0.shallow_clone(),
        })
    }

    #[php(getter)]
    pub fn get_time_window(&self) -> f64 {
        self.config.window.window_ms() as f64 / 1_000.0
    }

    #[php(getter)]
    pub fn get_opening_rules(&self) -> Array {
        Array(self.rules.shallow_clone())
    }

    #[php(getter)]
    pub fn get_open_duration(&self) -> f64 {
        self.config.open_duration_ms as f64 / 1_000.0
    }

    /// The cap of the backoff of the open duration; null: no backoff.
    #[php(getter)]
    pub fn get_max_open_duration(&self) -> Option<f64> {
        self.config.max_open_duration_ms.map(|ms| ms as f64 / 1_000.0)
    }

    /// The bulkhead's bound of calls in flight at once; null: none.
    #[php(getter)]
    pub fn get_max_concurrent_calls(&self) -> Option<i64> {
        self.config.max_concurrent_calls.map(i64::from)
    }

    #[php(getter)]
    pub fn get_half_open_policy(&self) -> Zval {
        self.policy.shallow_clone()
    }
}

impl HoldsPhpValues for Configuration {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.rules);
        buffer.add(&self.policy);
    }
}

impl HoldsPhpValues for RampPolicy {
    fn report(&self, buffer: &mut GcBuffer) {
        // A userland curve is held once, by the policy made with it; the
        // configurations sharing it hold the policy's object.
        if let Some(curve) = userland_curve_object(&self.policy) {
            buffer.add(curve);
        }
    }
}

read_only!(
    FailureRateRule,
    [("threshold", Type::Float), ("minimumRequests", Type::Int)]
);

read_only!(
    SlowCallRateRule,
    [
        ("slowCallDuration", Type::Float),
        ("threshold", Type::Float),
        ("minimumRequests", Type::Int)
    ]
);

read_only!(
    FailureOrSlowCallRateRule,
    [
        ("slowCallDuration", Type::Float),
        ("threshold", Type::Float),
        ("minimumRequests", Type::Int)
    ]
);

read_only!(ConsecutiveFailuresRule, [("failures", Type::Int)]);

read_only!(
    AdaptiveThrottlingRule,
    [
        ("k", Type::Float),
        ("maxRejectionRate", Type::Float),
        ("minimumRequests", Type::Int)
    ]
);

read_only!(PermittedCallsPolicy, [("permittedCalls", Type::Int)]);

read_only!(
    Configuration,
    [
        ("timeWindow", Type::Float),
        ("openingRules", Type::Array),
        ("openDuration", Type::Float),
        ("maxOpenDuration", Type::NullableFloat),
        ("maxConcurrentCalls", Type::NullableInt),
        (
            "halfOpenPolicy",
            Type::Object("Zeusi\\CircuitBreaker\\HalfOpen\\HalfOpenPolicyInterface")
        ),
    ]
);

impl FastConstruct for FailureRateRule {
    const REQUIRED: u32 = 2;
    const MAX: u32 = 2;
    fn construct(arguments: &Arguments<'_>, made: &mut Option<Self>) -> Result<(), Refused> {
        *made = Some(
            Self::__construct(
                arguments.required::<Float>(0, "threshold")?,
                arguments.required::<Int>(1, "minimumRequests")?,
            )
            .map_err(Some)?,
        );
        Ok(())
    }
}

impl FastConstruct for Configuration {
    const REQUIRED: u32 = 4;
    const MAX: u32 = 6;
    fn construct(arguments: &Arguments<'_>, made: &mut Option<Self>) -> Result<(), Refused> {
        *made = Some(
            Self::__construct(
                arguments.required::<Float>(0, "timeWindow")?,
                arguments.required::<ArrayArg<'_>>(1, "openingRules")?,
                arguments.required::<Float>(2, "openDuration")?,
                arguments.required::<PolicyArg<'_>>(3, "halfOpenPolicy")?,
                arguments.optional::<Float>(4, "maxOpenDuration")?,
                arguments.optional::<Int>(5, "maxConcurrentCalls")?,
            )
            .map_err(Some)?,
        );
        Ok(())
    }
}

/// A `Configuration`, with the PHP object kept for its rule objects.
pub struct ConfigurationArg<'a>(pub &'a Zval, pub &'a Configuration);

impl<'a> FromZval<'a> for ConfigurationArg<'a> {
    const TYPE: DataType = DataType::object("Zeusi\\CircuitBreaker\\Configuration");
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        let configuration = zval.object().and_then(native::<Configuration>);
        match configuration {
            Some(configuration) => Some(Self(zval, configuration)),
            None => {
                reject(zval);
                None
            }
        }
    }
}

/// `RampPolicy::createExponential()`, run by the engine's handler of named
/// constructors: a request that builds its configuration calls it as often
/// as `new`.
struct CreateExponential;

impl HotStatic for CreateExponential {
    type Class = RampPolicy;
    const NAME: &'static str = "createexponential";
    const REQUIRED: u32 = 2;
    const MAX: u32 = 2;
    type Made = RampPolicy;
    fn call(arguments: &Arguments<'_>) -> Result<RampPolicy, Refused> {
        RampPolicy::create_exponential(
            arguments.required::<Float>(0, "duration")?,
            arguments.required::<Float>(1, "initialRatio")?,
        )
        .map_err(Some)
    }
}

impl RampPolicy {
    /// Puts the handlers of its named constructors in place.
    pub fn replace_hot_methods() {
        replace_static::<CreateExponential>();
    }
}
