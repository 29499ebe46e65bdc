//! `CircuitBreaker`: one service's circuit, over a configuration, a storage,
//! an optional listener and a clock.

use std::rc::Rc;

use super::args::{ClockArg, ConfigurationArg, ListenerArg, ServiceName, StorageArg};
use ext_php_rs::convert::IntoZval;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, Zval};

use super::classes::{
    CALL_NOT_PERMITTED, STORAGE_EXCEPTION, circuit_breaker_interface, in_scope_of, invalid_configuration,
    manual_control_interface, new_exception, storage_exception,
};
use super::clock::Clock;
use super::configuration::{Configuration, describe};
use super::enums::State;
use super::events::{PhpEvent, deliver};
use super::memcached::MemcachedStorage;
use super::redis::RedisStorage;
use super::shared_memory::{ApcuStorage, SharedMemoryStorage};
use super::status::CircuitStatus;
use super::storage::InMemoryStorage;
use super::typed::Bytes;
use super::userland_storage::{UserlandKeyValue, missing_primitives, userland_storage};
use crate::breaker::{Breaker, Event, Permission};
use crate::core::config::Config;
use crate::core::counts::Outcome;
use crate::core::duration::{Millis, checked_millis, format_float, seconds_to_millis};
use crate::core::error::ConfigError;
use crate::core::machine::Command;
use crate::storage::kv::KvStorage;
use crate::storage::{Storage, StorageError};

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\CircuitBreaker")]
#[php(implements(ce = circuit_breaker_interface, stub = "\\Zeusi\\CircuitBreaker\\CircuitBreakerInterface"))]
#[php(implements(ce = manual_control_interface, stub = "\\Zeusi\\CircuitBreaker\\ManualControlInterface"))]
pub struct CircuitBreaker {
    service: Vec<u8>,
    config: Rc<Config>,
    /// Keeps the configured rule objects alive for `OpeningCause`.
    configuration: Zval,
    storage: Zval,
    /// The composition over a storage written in PHP, when it is one.
    userland: Option<KvStorage<UserlandKeyValue>>,
    listener: Option<Zval>,
    clock: Clock,
}

fn duration_ms(duration: Option<f64>) -> Result<Option<Millis>, PhpException> {
    match duration {
        None => Ok(None),
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Some(seconds_to_millis(seconds))),
        Some(seconds) => Err(invalid_configuration(ConfigError::new(
            "duration",
            format_float(seconds),
            "null or a finite number of seconds, at least 0",
        ))),
    }
}

#[php_impl]
impl CircuitBreaker {
    #[php(optional = eventListener)]
    pub fn __construct(
        service: ServiceName,
        configuration: ConfigurationArg<'_>,
        storage: StorageArg<'_>,
        eventListener: Option<ListenerArg<'_>>,
        clock: Option<ClockArg<'_>>,
    ) -> Result<Self, PhpException> {
        let native = native_storage(storage.0);
        let userland = match native {
            Some(_) => None,
            None => {
                let missing = missing_primitives(storage.0);
                if !missing.is_empty() {
                    return Err(invalid_configuration(ConfigError::new(
                        "storage",
                        format!("{} without {}()", describe(storage.0), missing.join("(), ")),
                        "a storage of this extension, or a StorageInterface with increment(), getMultiple() and compareAndSet()",
                    )));
                }
                Some(userland_storage(storage.0))
            }
        };
        let slots = configuration.1.config.bands.slot_count();
        if let Some(max_slots) = native.and_then(|native| native.max_slots()).filter(|&max| slots > max) {
            return Err(invalid_configuration(ConfigError::new(
                "openingRules",
                format!("{} distinct slow call durations", slots / 2 - 2),
                if max_slots / 2 - 2 == 4 {
                    "at most 4 with this storage"
                } else {
                    "fewer with this storage"
                },
            )));
        }
        Ok(Self {
            service: service.0,
            config: configuration.1.config.clone(),
            configuration: configuration.0.shallow_clone(),
            storage: storage.0.shallow_clone(),
            listener: eventListener.map(|listener| listener.0.shallow_clone()),
            userland,
            clock: Clock::from_arg(clock.map(|clock| clock.0)),
        })
    }

    pub fn acquire_permission(&self) -> bool {
        self.acquire() == Permission::Permitted
    }

    #[php(optional = duration)]
    pub fn register_success(&self, duration: Option<f64>) -> Result<(), PhpException> {
        self.register(Outcome::Success, duration_ms(duration)?);
        Ok(())
    }

    #[php(optional = duration)]
    pub fn register_failure(&self, duration: Option<f64>) -> Result<(), PhpException> {
        self.register(Outcome::Failure, duration_ms(duration)?);
        Ok(())
    }

    pub fn get_state(&self) -> Result<State, PhpException> {
        let now = self.clock.now_ms();
        self.with_storage(|breaker| breaker.state(now))
            .map(State::from)
            .map_err(|error| storage_exception(error.to_string()))
    }

    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.service)
    }

    /// No call is permitted for `$duration` seconds, whatever the outcomes,
    /// on every worker and server sharing the storage; then the circuit is
    /// closed with a fresh window.
    pub fn force_open(&self, duration: f64) -> Result<(), PhpException> {
        self.command(Command::ForceOpen(forced_duration_ms(duration)?))
    }

    /// Every call is permitted for `$duration` seconds; outcomes are still
    /// counted but open nothing. Then the circuit is closed with a fresh window.
    pub fn force_closed(&self, duration: f64) -> Result<(), PhpException> {
        self.command(Command::ForceClosed(forced_duration_ms(duration)?))
    }

    /// Closed now, with a fresh window, ending any forced state and backoff.
    pub fn reset(&self) -> Result<(), PhpException> {
        self.command(Command::Reset)
    }

    /// A `Status\CircuitStatus`: the state the next call finds (changing
    /// nothing), since and until when, the open duration and the window.
    #[php(name = "getStatus")]
    pub fn get_status(&self) -> Result<StatusObject, PhpException> {
        let now = self.clock.now_ms();
        let (status, window) = self
            .with_storage(|breaker| breaker.status(now))
            .map_err(|error| storage_exception(error.to_string()))?;
        Ok(StatusObject(CircuitStatus::of_breaker(
            &self.service,
            status,
            &window,
            &self.config,
        )))
    }
}

/// A duration of a forced state, checked: 1 s to 30 days.
fn forced_duration_ms(duration: f64) -> Result<Millis, PhpException> {
    checked_millis(
        "duration",
        duration,
        crate::core::duration::SECOND,
        crate::core::duration::THIRTY_DAYS,
        "1 to 2592000 seconds (30 days)",
    )
    .map_err(invalid_configuration)
}

/// A `CircuitStatus` object, typed for the method's signature.
pub struct StatusObject(pub Zval);

impl IntoZval for StatusObject {
    const TYPE: ext_php_rs::flags::DataType =
        ext_php_rs::flags::DataType::object("Zeusi\\CircuitBreaker\\Status\\CircuitStatus");
    const NULLABLE: bool = false;
    fn set_zval(self, zval: &mut Zval, _persistent: bool) -> ext_php_rs::error::Result<()> {
        *zval = self.0;
        Ok(())
    }
}

impl CircuitBreaker {
    /// Stores an operator's command and delivers its event. A storage that
    /// fails throws: the operator must know the command did not land.
    fn command(&self, command: Command) -> Result<(), PhpException> {
        let now = self.clock.now_ms();
        self.with_events(now, |breaker, emit| breaker.command(command, now, emit))
            .map_err(|error| storage_exception(error.to_string()))
    }

    fn with_storage<T>(&self, run: impl for<'b> FnOnce(&Breaker<'b, dyn Storage + 'b>) -> T) -> T {
        let storage: &dyn Storage = match &self.userland {
            Some(userland) => userland,
            None => native_storage(&self.storage).expect("checked at construction"),
        };
        run(&Breaker {
            service: &self.service,
            config: &self.config,
            storage,
        })
    }

    /// Acquires a permission and delivers the events it caused.
    pub fn acquire(&self) -> Permission {
        let now = self.clock.now_ms();
        self.with_events(now, |breaker, emit| breaker.acquire(now, emit))
    }

    pub fn register(&self, outcome: Outcome, duration_ms: Option<Millis>) {
        let now = self.clock.now_ms();
        self.with_events(now, |breaker, emit| breaker.register(outcome, duration_ms, now, emit));
    }

    /// Runs `run` on the storage, then delivers the events it emitted. Without
    /// a listener, events are not even collected.
    fn with_events<T>(
        &self,
        now: Millis,
        run: impl for<'b> FnOnce(&Breaker<'b, dyn Storage + 'b>, &mut dyn FnMut(Event)) -> T,
    ) -> T {
        if self.listener.is_none() {
            return self.with_storage(|breaker| run(breaker, &mut |_| {}));
        }
        let mut events = Vec::new();
        let result = self.with_storage(|breaker| run(breaker, &mut |event| events.push(event)));
        self.emit(events, now);
        result
    }

    pub fn get_service_zval(&self) -> Zval {
        Bytes(&self.service).into_zval(false).unwrap_or_default()
    }

    pub fn service_name(&self) -> String {
        String::from_utf8_lossy(&self.service).into_owned()
    }

    /// Events are delivered once the storage work is over, so a listener
    /// may call back into this breaker.
    fn emit(&self, events: Vec<Event>, now: Millis) {
        let Some(listener) = &self.listener else {
            return;
        };
        let time = now as f64 / 1_000.0;
        let service = self.service_name();
        for event in events {
            deliver(listener, self.php_event(event), &service, time);
        }
    }

    fn php_event(&self, event: Event) -> PhpEvent {
        match event {
            Event::Opened {
                previous,
                cause,
                open_duration_ms,
            } => {
                let rule =
                    ZendClassObject::<Configuration>::from_zend_obj(self.configuration.object().expect("an object"))
                        .and_then(|configuration| configuration.obj.as_ref())
                        .and_then(|configuration| configuration.rules.get(cause.rule_index))
                        .map(Zval::shallow_clone)
                        .unwrap_or_default();
                PhpEvent::Opened {
                    previous: previous.into(),
                    rule,
                    matching: cause.matching,
                    evaluated: cause.evaluated,
                    open_duration: open_duration_ms as f64 / 1_000.0,
                }
            }
            Event::HalfOpened => PhpEvent::HalfOpened,
            Event::Forced { phase, duration_ms } => PhpEvent::Forced {
                state: phase.into(),
                duration: duration_ms as f64 / 1_000.0,
            },
            Event::Reset => PhpEvent::Reset,
            Event::Closed => PhpEvent::Closed,
            Event::Rejected { phase } => PhpEvent::Rejected { state: phase.into() },
            Event::StorageFailed(error) => PhpEvent::StorageFailed {
                exception: storage_error(&error),
            },
        }
    }
}

/// The Rust storage behind a storage object of this extension.
fn native_storage(storage: &Zval) -> Option<&(dyn Storage + '_)> {
    fn inner<T: ext_php_rs::class::RegisteredClass>(object: &ext_php_rs::types::ZendObject) -> Option<&T> {
        ZendClassObject::<T>::from_zend_obj(object)?.obj.as_ref()
    }
    let object = storage.object()?;
    if let Some(memory) = inner::<InMemoryStorage>(object) {
        return Some(&memory.storage);
    }
    if let Some(shared) = inner::<SharedMemoryStorage>(object) {
        return Some(&shared.storage);
    }
    if let Some(redis) = inner::<RedisStorage>(object) {
        return Some(&redis.storage);
    }
    if let Some(memcached) = inner::<MemcachedStorage>(object) {
        return Some(&memcached.storage);
    }
    inner::<ApcuStorage>(object).map(|shared| &shared.storage as &dyn Storage)
}

fn storage_error(error: &StorageError) -> Zval {
    new_exception(&STORAGE_EXCEPTION, &error.to_string())
}

/// The exception for a call the circuit did not permit.
pub fn call_not_permitted(service: Zval, state: State, retry_after_ms: Option<Millis>) -> Zval {
    let name = service
        .zend_str()
        .map(|name| String::from_utf8_lossy(name.as_bytes()).into_owned())
        .unwrap_or_default();
    let retry_after = retry_after_ms.map(|ms| ms as f64 / 1_000.0);
    let message = match retry_after {
        Some(seconds) => format!(
            "Circuit '{name}' is {}: no call permitted for {} s",
            state.describe(),
            format_float(seconds)
        ),
        None => format!("Circuit '{name}' is {}: this call was not permitted", state.describe()),
    };
    let mut exception = new_exception(&CALL_NOT_PERMITTED, &message);
    if let Some(object) = exception.object_mut() {
        in_scope_of(&CALL_NOT_PERMITTED, || {
            let _ = object.set_property("service", service);
            let _ = object.set_property("state", state);
            let _ = object.set_property("retryAfter", retry_after);
        });
    }
    exception
}

/// The native breaker behind a `CircuitBreakerInterface` object, if it is ours.
pub fn native_breaker(breaker: &Zval) -> Option<&CircuitBreaker> {
    ZendClassObject::<CircuitBreaker>::from_zend_obj(breaker.object()?)?
        .obj
        .as_ref()
}
