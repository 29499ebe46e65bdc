//! Execution helpers: `CallExecutor` for synchronous calls, `CallGate` and
//! `Attempt` for asynchronous ones, and the classifiers of outcomes.

use std::cell::Cell;
use std::time::Instant;

use super::args::{BreakerArg, CallableArg, ClassifierArg, ThrowableArg};
use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendCallable, Zval};
use ext_php_rs::zend::ExecutorGlobals;

use super::breaker::{call_not_permitted, native_breaker};
use super::classes::{CALL_NOT_PERMITTED, outcome_classifier_interface};
use super::enums::{Outcome, State};
use crate::breaker::Permission;
use crate::core::duration::seconds_to_millis;

/// What a breaker and a classifier do for a call, shared by the executor
/// and the gate.
pub(super) struct Protection {
    pub(super) breaker: Zval,
    pub(super) classifier: Option<Zval>,
}

/// Each attempt holds its own references, so that each object reports to
/// the cycle collector exactly the references it owns.
impl Clone for Protection {
    fn clone(&self) -> Self {
        Self {
            breaker: self.breaker.shallow_clone(),
            classifier: self.classifier.as_ref().map(Zval::shallow_clone),
        }
    }
}

fn thrown(exception: Zval) -> PhpException {
    PhpException::new(String::new(), 0, CALL_NOT_PERMITTED.get()).with_object(exception)
}

impl Protection {
    fn new(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Self {
        Self {
            breaker: breaker.0.shallow_clone(),
            classifier: classifier.map(|classifier| classifier.0.shallow_clone()),
        }
    }

    /// Acquires a permission, or the `CallNotPermittedException` to throw.
    fn admit(&self) -> Result<(), PhpException> {
        if let Some(native) = native_breaker(&self.breaker) {
            return match native.acquire() {
                Permission::Permitted => Ok(()),
                Permission::Rejected { phase, retry_after_ms } => Err(thrown(call_not_permitted(
                    native.get_service_zval(),
                    phase.into(),
                    retry_after_ms,
                ))),
            };
        }
        let breaker = self.breaker.object().expect("typed as CircuitBreakerInterface");
        let permitted = breaker.try_call_method("acquirePermission", vec![])?;
        if permitted.is_true() || ExecutorGlobals::has_exception() {
            return Ok(());
        }
        let service = breaker.try_call_method("getService", vec![])?;
        let state = breaker.try_call_method("getState", vec![])?;
        let state = State::from_zval(&state).unwrap_or(State::Open);
        Err(thrown(call_not_permitted(service, state, None)))
    }

    fn classify(&self, method: &str, value: &Zval, default: Outcome) -> Option<Outcome> {
        let Some(classifier) = self.classifier.as_ref().and_then(Zval::object) else {
            return Some(default);
        };
        let outcome = classifier.try_call_method(method, vec![value]).ok()?;
        Outcome::from_zval(&outcome)
    }

    fn register(&self, outcome: Option<Outcome>, duration: Option<f64>) {
        let Some(outcome) = outcome else { return };
        if let Some(native) = native_breaker(&self.breaker) {
            let duration_ms = duration.filter(|d| d.is_finite() && *d >= 0.0).map(seconds_to_millis);
            native.register(outcome.into(), duration_ms);
            return;
        }
        let method = match outcome {
            Outcome::Success => "registerSuccess",
            Outcome::Failure => "registerFailure",
        };
        if let Some(breaker) = self.breaker.object() {
            let _ = breaker.try_call_method(method, vec![&duration]);
        }
    }

    fn register_result(&self, result: &Zval, duration: Option<f64>) {
        self.register(self.classify("classifyResult", result, Outcome::Success), duration);
    }

    fn register_exception(&self, exception: &Zval, duration: Option<f64>) {
        self.register(
            self.classify("classifyException", exception, Outcome::Failure),
            duration,
        );
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Execution\\CallExecutor")]
pub struct CallExecutor {
    pub(super) protection: Protection,
}

#[php_impl]
impl CallExecutor {
    /// Without a classifier, every exception is a failure and every result a success.
    #[php(optional = classifier)]
    pub fn __construct(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Self {
        Self {
            protection: Protection::new(breaker, classifier),
        }
    }

    /// Runs `$call` if the circuit permits it, registers its outcome with its
    /// duration, and returns its result or rethrows its exception unchanged.
    pub fn execute(&self, call: ZendCallable<'_>) -> Result<Zval, PhpException> {
        self.protection.admit()?;
        let started = Instant::now();
        let result = call.try_call(vec![]);
        let duration = Some(started.elapsed().as_secs_f64());
        if let Some(exception) = ExecutorGlobals::take_exception() {
            let exception = exception.into_zval(false)?;
            self.protection.register_exception(&exception, duration);
            return Err(thrown(exception));
        }
        let result = result?;
        self.protection.register_result(&result, duration);
        Ok(result)
    }
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Execution\\CallGate")]
pub struct CallGate {
    pub(super) protection: Protection,
}

#[php_impl]
impl CallGate {
    #[php(optional = classifier)]
    pub fn __construct(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Self {
        Self {
            protection: Protection::new(breaker, classifier),
        }
    }

    /// Admits a call, or throws `CallNotPermittedException`.
    pub fn admit(&self) -> Result<Attempt, PhpException> {
        self.protection.admit()?;
        Ok(Attempt {
            protection: self.protection.clone(),
            registered: Cell::new(false),
        })
    }
}

/// One admitted asynchronous call: registers its first outcome only.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Execution\\Attempt")]
pub struct Attempt {
    pub(super) protection: Protection,
    registered: Cell<bool>,
}

#[php_impl]
impl Attempt {
    #[php(optional = duration)]
    pub fn register_result(&self, result: &Zval, duration: Option<f64>) {
        if !self.registered.replace(true) {
            self.protection.register_result(result, duration);
        }
    }

    #[php(optional = duration)]
    pub fn register_exception(&self, exception: ThrowableArg<'_>, duration: Option<f64>) {
        if !self.registered.replace(true) {
            self.protection.register_exception(exception.0, duration);
        }
    }
}

/// A classifier made of closures: the one on exceptions, and optionally
/// the one on results (without it, every result is a success).
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Execution\\CallbackOutcomeClassifier")]
#[php(implements(ce = outcome_classifier_interface, stub = "\\Zeusi\\CircuitBreaker\\Execution\\OutcomeClassifierInterface"))]
pub struct CallbackOutcomeClassifier {
    pub(super) on_exception: Zval,
    pub(super) on_result: Option<Zval>,
}

fn outcome_from(callback: &Zval, argument: &Zval) -> Result<Option<Outcome>, PhpException> {
    let returned = ZendCallable::new(callback)?.try_call(vec![argument])?;
    if returned.is_null() || ExecutorGlobals::has_exception() {
        return Ok(None);
    }
    Outcome::from_zval(&returned)
        .map(Some)
        .ok_or_else(|| PhpException::from_message("The classifier callback must return an Outcome or null".into()))
}

#[php_impl]
impl CallbackOutcomeClassifier {
    #[php(optional = resultClassifier)]
    pub fn __construct(exceptionClassifier: CallableArg<'_>, resultClassifier: Option<CallableArg<'_>>) -> Self {
        Self {
            on_exception: exceptionClassifier.0.shallow_clone(),
            on_result: resultClassifier.map(|callback| callback.0.shallow_clone()),
        }
    }

    pub fn classify_exception(&self, exception: ThrowableArg<'_>) -> Result<Option<Outcome>, PhpException> {
        outcome_from(&self.on_exception, exception.0)
    }

    pub fn classify_result(&self, result: &Zval) -> Result<Option<Outcome>, PhpException> {
        match &self.on_result {
            Some(callback) => outcome_from(callback, result),
            None => Ok(Some(Outcome::Success)),
        }
    }
}
