//! Execution helpers: `CallExecutor` for synchronous calls, `CallGate` and
//! `Attempt` for asynchronous ones, and the classifiers of outcomes.

use std::cell::{Cell, RefCell};
use std::time::Instant;

use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecutorGlobals;

use super::breaker::{CircuitBreaker, duration_ms, native_breaker};
use super::engine::args::{CallableArg, Float, ThrowableArg, type_name};
use super::engine::callback::{CallError, call_callable, call_method, ending, finish, overrides};
use super::engine::classes::outcome_classifier_interface;
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::reentry::refuse_reconstruction;
use super::enums::{Outcome, State};
use super::error::{add_previous, call_not_permitted, exception, rethrow, type_error};
use super::params::{BreakerArg, ClassifierArg};
use crate::breaker::Permission;
use crate::storage::bulkhead::held::Permit;

/// The methods of `CircuitBreakerInterface`: a subclass of `CircuitBreaker`
/// that overrides any of them is called through PHP, so its overrides run.
const BREAKER_METHODS: [&str; 5] = [
    "acquirePermission",
    "registerSuccess",
    "registerFailure",
    "getState",
    "getService",
];

/// The breaker of an executor or a gate, resolved once at construction.
pub(super) enum ProtectingBreaker {
    /// A `CircuitBreaker` of ours, called directly.
    Native(Zval),
    /// Any other `CircuitBreakerInterface`, called through PHP.
    Userland(Zval),
}

/// What a breaker and a classifier do for a call, shared by the executor
/// and the gate.
pub(super) struct Protection {
    pub(super) breaker: ProtectingBreaker,
    pub(super) classifier: Option<Zval>,
}

/// Each attempt holds its own references, so that each object reports to
/// the cycle collector exactly the references it owns.
impl Clone for Protection {
    fn clone(&self) -> Self {
        Self {
            breaker: match &self.breaker {
                ProtectingBreaker::Native(zval) => ProtectingBreaker::Native(zval.shallow_clone()),
                ProtectingBreaker::Userland(zval) => ProtectingBreaker::Userland(zval.shallow_clone()),
            },
            classifier: self.classifier.as_ref().map(Zval::shallow_clone),
        }
    }
}

/// Why a call may not run.
enum Refusal {
    /// The circuit did not permit it: the exception to throw.
    NotPermitted(Zval),
    /// An exception to throw.
    Raised(PhpException),
    /// An exception, `exit()` or a fatal error is already under way in the
    /// engine (the breaker threw or ended the script): return at once and
    /// let it go on.
    Pending,
}

fn thrown(exception: Zval) -> PhpException {
    rethrow(exception)
}

impl Protection {
    fn new(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Self {
        let zval = breaker.0.shallow_clone();
        let native = native_breaker(breaker.0).is_some()
            && breaker
                .0
                .object()
                .is_some_and(|object| !overrides::<CircuitBreaker>(object, &BREAKER_METHODS));
        Self {
            breaker: if native {
                ProtectingBreaker::Native(zval)
            } else {
                ProtectingBreaker::Userland(zval)
            },
            classifier: classifier.map(|classifier| classifier.0.shallow_clone()),
        }
    }

    /// Acquires a permission, or says why the call may not run. The permit
    /// of a native breaker's bulkhead is the caller's to hold until the call
    /// registers (or is dropped, abandoned): not left with the breaker,
    /// where another call's register would give it back.
    fn admit(&self) -> Result<Option<Permit>, Refusal> {
        let breaker = match &self.breaker {
            ProtectingBreaker::Native(zval) => {
                let native = native_breaker(zval).expect("checked at construction");
                return match native.acquire().map_err(Refusal::Raised)? {
                    _ if ending().is_some() => Err(Refusal::Pending),
                    Permission::Permitted => Ok(native.take_permit()),
                    Permission::Rejected {
                        phase,
                        retry_after_ms,
                        reason,
                    } => Err(Refusal::NotPermitted(call_not_permitted(
                        native.get_service_zval(),
                        phase.into(),
                        retry_after_ms,
                        Some(reason),
                    ))),
                };
            }
            ProtectingBreaker::Userland(zval) => zval.object().expect("typed as CircuitBreakerInterface"),
        };
        // A breaker that throws, or ends the script, permits nothing: its
        // exception (or the exit) goes on to the caller, and the call never
        // runs, so nothing is registered for it.
        let permitted = call_method(breaker, "acquirePermission", vec![]).map_err(|_| Refusal::Pending)?;
        if permitted.is_true() {
            return Ok(None);
        }
        let service = call_method(breaker, "getService", vec![]).map_err(|_| Refusal::Pending)?;
        let state = call_method(breaker, "getState", vec![]).map_err(|_| Refusal::Pending)?;
        let state = State::from_zval(&state).unwrap_or(State::Open);
        Err(Refusal::NotPermitted(call_not_permitted(service, state, None, None)))
    }

    /// The outcome the classifier gives `value`; `None` when it gives none,
    /// throws (its exception goes on, with the call's own exception at the
    /// end of its previous ones, so that neither is lost) or ends the script.
    fn classify(&self, method: &str, value: &Zval, default: Outcome) -> Option<Outcome> {
        let Some(classifier) = self.classifier.as_ref().and_then(Zval::object) else {
            return Some(default);
        };
        let outcome = match call_method(classifier, method, vec![value]) {
            Ok(outcome) => outcome,
            Err(CallError::Threw(_)) => {
                if value.is_object()
                    && method == "classifyException"
                    && let Some(mut thrown) = ExecutorGlobals::take_exception()
                {
                    add_previous(&mut thrown, value);
                    let _ = ext_php_rs::exception::throw_object(thrown.into_zval(false).unwrap_or_default());
                }
                return None;
            }
            Err(_) => return None,
        };
        Outcome::from_zval(&outcome)
    }

    /// `duration`: seconds, already checked by `duration_ms`.
    fn register(&self, outcome: Option<Outcome>, duration: Option<f64>) -> Result<(), PhpException> {
        let Some(outcome) = outcome else { return Ok(()) };
        if ending().is_some() {
            return Ok(());
        }
        let breaker = match &self.breaker {
            ProtectingBreaker::Native(zval) => {
                let native = native_breaker(zval).expect("checked at construction");
                // The call's permit is its caller's (see `admit`).
                return native.register_unheld(outcome.into(), duration_ms(duration)?);
            }
            ProtectingBreaker::Userland(zval) => zval,
        };
        let method = match outcome {
            Outcome::Success => "registerSuccess",
            Outcome::Failure => "registerFailure",
        };
        if let Some(breaker) = breaker.object() {
            // Its exception, if it throws, goes on to the caller.
            let _ = call_method(breaker, method, vec![&duration]);
        }
        Ok(())
    }

    fn register_result(&self, result: &Zval, duration: Option<f64>) -> Result<(), PhpException> {
        self.register(self.classify("classifyResult", result, Outcome::Success), duration)
    }

    fn register_exception(&self, exception: &Zval, duration: Option<f64>) -> Result<(), PhpException> {
        self.register(
            self.classify("classifyException", exception, Outcome::Failure),
            duration,
        )
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
    pub fn __construct(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            protection: Protection::new(breaker, classifier),
        })
    }

    /// Runs `$call` if the circuit permits it, registers its outcome with its
    /// duration, and returns its result or rethrows its exception unchanged.
    /// A call that ends the script (`exit()`, a fatal error) registers nothing.
    pub fn execute(&self, call: CallableArg<'_>) -> Result<Zval, PhpException> {
        finish(self.run(call.0))
    }
}

impl CallExecutor {
    fn run(&self, call: &Zval) -> Result<Zval, PhpException> {
        // Held until this call is over, whatever its end: then given back.
        let _permit = match self.protection.admit() {
            Ok(permit) => permit,
            Err(Refusal::NotPermitted(exception)) => return Err(thrown(exception)),
            Err(Refusal::Raised(exception)) => return Err(exception),
            // The engine goes on with what is pending; our result is ignored.
            Err(Refusal::Pending) => return Ok(Zval::new()),
        };
        let started = Instant::now();
        // This breaker guards the call: the HTTP hooks stand aside, so that
        // its transfers are counted once, here.
        let result = super::http::inside_breaker(|| call_callable(call, vec![]));
        let duration = Some(started.elapsed().as_secs_f64());
        match result {
            Ok(result) => {
                self.protection.register_result(&result, duration)?;
                Ok(result)
            }
            Err(CallError::Threw(_)) => {
                let Some(exception) = ExecutorGlobals::take_exception() else {
                    return Ok(Zval::new());
                };
                let exception = exception.into_zval(false)?;
                self.protection.register_exception(&exception, duration)?;
                if ending().is_some() {
                    return Ok(Zval::new());
                }
                Err(thrown(exception))
            }
            Err(CallError::Ending(_) | CallError::Pending) => Ok(Zval::new()),
            Err(error @ CallError::NotCallable(_)) => {
                Err(exception(format!("CallExecutor::execute(): the callable {error}")))
            }
        }
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
    pub fn __construct(breaker: BreakerArg<'_>, classifier: Option<ClassifierArg<'_>>) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            protection: Protection::new(breaker, classifier),
        })
    }

    /// Admits a call, or throws `CallNotPermittedException`.
    pub fn admit(&self) -> Result<Attempt, PhpException> {
        let (registered, permit) = match self.protection.admit() {
            Ok(permit) => (false, permit),
            Err(Refusal::NotPermitted(exception)) => return finish(Err(thrown(exception))),
            Err(Refusal::Raised(exception)) => return finish(Err(exception)),
            // The engine throws what is pending and drops this attempt,
            // which registers nothing.
            Err(Refusal::Pending) => (true, None),
        };
        finish(Ok(Attempt {
            protection: self.protection.clone(),
            registered: Cell::new(registered),
            permit: RefCell::new(permit),
        }))
    }
}

/// One admitted asynchronous call: registers its first outcome only.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Execution\\Attempt")]
pub struct Attempt {
    pub(super) protection: Protection,
    registered: Cell<bool>,
    /// The call's permit of the bulkhead: given back once it registered, or
    /// when the attempt is dropped unregistered (abandoned).
    permit: RefCell<Option<Permit>>,
}

/// `$duration` follows the rule of `CircuitBreaker::registerSuccess()`.
#[php_impl]
impl Attempt {
    #[php(optional = duration)]
    pub fn register_result(&self, result: &Zval, duration: Option<Float>) -> Result<(), PhpException> {
        let duration = duration.map(|duration| duration.0);
        duration_ms(duration)?;
        if self.registered.replace(true) {
            return Ok(());
        }
        let registered = self.protection.register_result(result, duration);
        drop(self.permit.take());
        finish(registered)
    }

    #[php(optional = duration)]
    pub fn register_exception(&self, exception: ThrowableArg<'_>, duration: Option<Float>) -> Result<(), PhpException> {
        let duration = duration.map(|duration| duration.0);
        duration_ms(duration)?;
        if self.registered.replace(true) {
            return Ok(());
        }
        let registered = self.protection.register_exception(exception.0, duration);
        drop(self.permit.take());
        finish(registered)
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

/// What `callback` says of `argument`. A value that is neither an `Outcome`
/// nor null is a `TypeError` naming `method`, with the exception classified
/// (if it is one) as its previous.
fn outcome_from(method: &str, callback: &Zval, argument: &Zval) -> Result<Option<Outcome>, PhpException> {
    // Its exception, or the end of the script, goes on to the caller.
    let Ok(returned) = call_callable(callback, vec![argument]) else {
        return Ok(None);
    };
    if returned.is_null() {
        return Ok(None);
    }
    Outcome::from_zval(&returned).map(Some).ok_or_else(|| {
        type_error(
            &format!(
                "Zeusi\\CircuitBreaker\\Execution\\CallbackOutcomeClassifier::{method}(): the callback must return Zeusi\\CircuitBreaker\\Outcome or null, {} returned",
                type_name(&returned)
            ),
            Some(argument).filter(|argument| argument.is_object()),
        )
    })
}

#[php_impl]
impl CallbackOutcomeClassifier {
    #[php(optional = resultClassifier)]
    pub fn __construct(
        exceptionClassifier: CallableArg<'_>,
        resultClassifier: Option<CallableArg<'_>>,
    ) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            on_exception: exceptionClassifier.0.shallow_clone(),
            on_result: resultClassifier.map(|callback| callback.0.shallow_clone()),
        })
    }

    pub fn classify_exception(&self, exception: ThrowableArg<'_>) -> Result<Option<Outcome>, PhpException> {
        finish(outcome_from("classifyException", &self.on_exception, exception.0))
    }

    pub fn classify_result(&self, result: &Zval) -> Result<Option<Outcome>, PhpException> {
        match &self.on_result {
            Some(callback) => finish(outcome_from("classifyResult", callback, result)),
            None => Ok(Some(Outcome::Success)),
        }
    }
}

impl HoldsPhpValues for CallExecutor {
    fn report(&self, buffer: &mut GcBuffer) {
        self.protection.report(buffer);
    }
}

impl HoldsPhpValues for CallGate {
    fn report(&self, buffer: &mut GcBuffer) {
        self.protection.report(buffer);
    }
}

impl HoldsPhpValues for Attempt {
    fn report(&self, buffer: &mut GcBuffer) {
        self.protection.report(buffer);
    }
}

impl Protection {
    fn report(&self, buffer: &mut GcBuffer) {
        match &self.breaker {
            ProtectingBreaker::Native(breaker) | ProtectingBreaker::Userland(breaker) => buffer.add(breaker),
        }
        buffer.add_all(&self.classifier);
    }
}

impl HoldsPhpValues for CallbackOutcomeClassifier {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.on_exception);
        buffer.add_all(&self.on_result);
    }
}
