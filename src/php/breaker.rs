//! `CircuitBreaker`: one service's circuit, over a configuration, a storage,
//! an optional listener and a clock.

use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use ext_php_rs::convert::IntoZval;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::bulkhead::{HeldByFiber, Scope, counts, gate_of, scoped};
use super::clock::{Clock, report_clock, system_now_ms};
use super::configuration::{Configuration, ConfigurationArg, take_curve_exception, userland_curve_object};
use super::engine::args::{Float, TextRef, describe, list_values};
use super::engine::callback::{contain_panic, ending, finish};
use super::engine::classes::{circuit_breaker_interface, manual_control_interface};
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::handlers::{Arguments, FastConstruct, HotMethod, Refused, native, replace_method};
use super::engine::reentry::AtWork;
use super::engine::typed::Bytes;
use super::enums::{RejectionReason, State};
use super::error::{internal_error, invalid_configuration, logic_exception, rethrow, storage_error, storage_exception};
use super::events::{PhpEvent, deliver};
use super::params::{ClockArg, ListenerArg, StorageArg};
use super::status::CircuitStatus;
use super::storage::fleet::FleetStorage;
use super::storage::memcached::MemcachedStorage;
use super::storage::memory::InMemoryStorage;
use super::storage::redis::RedisStorage;
use super::storage::shared_memory::{ApcuStorage, SharedMemoryStorage};
use super::storage::userland::{UserlandKeyValue, missing_primitives, userland_storage};
use super::throttle::memo_of;
use crate::breaker::{Admission, Breaker, Event, Gate, Limits, Permission, Quiet};
use crate::core::config::Config;
use crate::core::counts::Outcome;
use crate::core::duration::{Millis, checked_millis, format_float, seconds_to_millis};
use crate::core::error::ConfigError;
use crate::core::machine::Command;
use crate::core::throttle::ThrottleMemo;
use crate::storage::bulkhead::held::Permit;
use crate::storage::kv::KvStorage;
use crate::storage::{KeptCircuit, Storage, StorageError};

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\CircuitBreaker")]
#[php(implements(ce = circuit_breaker_interface, stub = "\\Zeusi\\CircuitBreaker\\CircuitBreakerInterface"))]
#[php(implements(ce = manual_control_interface, stub = "\\Zeusi\\CircuitBreaker\\ManualControlInterface"))]
#[repr(C)]
pub struct CircuitBreaker {
    // What a call does not read first, then what every call reads, last:
    // PHP allocates the object 64-byte aligned, with its `zend_object`
    // (which the engine reads on each method call) right after this
    // struct, so the words of a call share that line and the one before
    // rather than lie on four (a process calling thousands of breakers
    // misses each line it touches).
    /// Keeps the configured rule objects alive for `OpeningCause`.
    pub(super) configuration: Zval,
    pub(super) storage: Zval,
    /// The composition over a storage written in PHP, when it is one.
    pub(super) userland: Option<Rc<KvStorage<UserlandKeyValue>>>,
    /// That Rust storage (the composition over `userland`, for a storage
    /// written in PHP).
    native: Rc<dyn Storage>,
    /// The permits of its calls in flight.
    permits: HeldByFiber,
    /// Where its bulkhead counts, found at its first call, when its
    /// configuration has one.
    gate: OnceCell<Option<Gate>>,
    /// This process's memory of its window, when its rules throttle.
    throttle: OnceCell<Rc<Cell<ThrottleMemo>>>,
    /// The fibers in which this breaker reads its clock and works on its
    /// storage: PHP code called then (a storage, clock or curve written in
    /// PHP) that calls back into this breaker from the same fiber is refused.
    at_work: AtWork,
    /// Whether its last call without limits was permitted: the next one
    /// tries [`Self::acquire_closed`] first, which would only lengthen the
    /// calls of a circuit that rejects them.
    permitted_last: Cell<bool>,
    pub(super) listener: Option<Zval>,
    kind: StorageKind,
    pub(super) clock: Clock,
    /// The circuit of its service, asked of the Rust storage behind
    /// `storage` once, when the breaker is made: it keeps what its calls
    /// learn (where its record lies in the shared memory, the places of a
    /// fleet's host records), so that a call neither hashes nor compares
    /// the name.
    circuit: KeptCircuit,
    config: Rc<Config>,
}

/// What a breaker must know of its storage's class.
enum StorageKind {
    /// A storage written in PHP.
    Userland,
    /// An `InMemoryStorage`, with the flag that marks it at work while its
    /// operations call into PHP (its clock).
    Memory(Rc<AtWork>),
    /// Any other storage of this extension.
    Native,
}

/// The Rust storage inside a storage object of this extension.
fn native_storage(storage: &Zval) -> Option<(Rc<dyn Storage>, StorageKind)> {
    let object = storage.object()?;
    if let Some(memory) = native::<InMemoryStorage>(object) {
        let storage: Rc<dyn Storage> = memory.storage.clone();
        return Some((storage, StorageKind::Memory(Rc::clone(&memory.at_work))));
    }
    let storage: Rc<dyn Storage> = if let Some(shared) = native::<SharedMemoryStorage>(object) {
        shared.storage.storage()
    } else if let Some(redis) = native::<RedisStorage>(object) {
        redis.storage.clone()
    } else if let Some(memcached) = native::<MemcachedStorage>(object) {
        memcached.storage.clone()
    } else if let Some(fleet) = native::<FleetStorage>(object) {
        fleet.storage.storage()
    } else {
        native::<ApcuStorage>(object)?.storage.storage()
    };
    Some((storage, StorageKind::Native))
}

/// Why the core did not run, or did not finish, for a call.
enum Interrupted {
    /// A call back into a breaker (or an in-memory storage) already at work.
    Reentered(PhpException),
    /// The script is ending (`exit()`, a fatal error): nothing is stored.
    Ending,
    /// A bug in the extension, with what the panic said.
    Panicked(String),
}

/// The `$duration` of a call given from PHP: null, or finite seconds, at
/// least 0. A wrong one is a `ValueError`, as PHP's own functions throw for
/// an argument out of its limits: it is a call's argument, not configuration.
pub fn duration_ms(duration: Option<f64>) -> Result<Option<Millis>, PhpException> {
    match duration {
        None => Ok(None),
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Some(seconds_to_millis(seconds))),
        Some(seconds) => Err(super::engine::args::value_error(
            "duration",
            &format!(
                "null or a finite number of seconds, at least 0, {} given",
                format_float(seconds)
            ),
        )),
    }
}

#[php_impl]
impl CircuitBreaker {
    #[php(optional = eventListener)]
    pub fn __construct(
        service: TextRef<'_>,
        configuration: ConfigurationArg<'_>,
        storage: StorageArg<'_>,
        eventListener: Option<ListenerArg<'_>>,
        clock: Option<ClockArg<'_>>,
    ) -> Result<Self, PhpException> {
        Self::new(
            &service.0,
            configuration.1.config.clone(),
            configuration.0,
            storage.0,
            eventListener.map(|listener| listener.0),
            clock.map(|clock| clock.0),
        )
    }

    pub fn acquire_permission(&self) -> Result<bool, PhpException> {
        finish(self.acquire().map(|permission| permission == Permission::Permitted))
    }

    #[php(optional = duration)]
    pub fn register_success(&self, duration: Option<Float>) -> Result<(), PhpException> {
        finish(
            duration_ms(duration.map(|duration| duration.0))
                .and_then(|duration| self.register(Outcome::Success, duration)),
        )
    }

    #[php(optional = duration)]
    pub fn register_failure(&self, duration: Option<Float>) -> Result<(), PhpException> {
        finish(
            duration_ms(duration.map(|duration| duration.0))
                .and_then(|duration| self.register(Outcome::Failure, duration)),
        )
    }

    pub fn get_state(&self) -> Result<State, PhpException> {
        let state = match self.with_core(&mut |_| {}, |breaker, now, _| breaker.state(now)) {
            Ok((state, _)) => state
                .map(State::from)
                .map_err(|error| storage_exception(error, self.thrown_by_storage())),
            Err(interrupted) => interrupted.answer(State::Closed),
        };
        finish(state)
    }

    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(self.service())
    }

    /// No call is permitted for `$duration` seconds, whatever the outcomes,
    /// on every worker and server sharing the storage; then the circuit is
    /// closed with a fresh window.
    pub fn force_open(&self, duration: Float) -> Result<(), PhpException> {
        finish(forced_duration_ms(duration.0).and_then(|duration| self.command(Command::ForceOpen(duration))))
    }

    /// Every call is permitted for `$duration` seconds; outcomes are still
    /// counted but open nothing. Then the circuit is closed with a fresh window.
    pub fn force_closed(&self, duration: Float) -> Result<(), PhpException> {
        finish(forced_duration_ms(duration.0).and_then(|duration| self.command(Command::ForceClosed(duration))))
    }

    /// Closed now, with a fresh window, ending any forced state and backoff.
    pub fn reset(&self) -> Result<(), PhpException> {
        finish(self.command(Command::Reset))
    }

    /// A `Status\CircuitStatus`: the state the next call finds (changing
    /// nothing), since and until when, the open duration and the window.
    pub fn get_status(&self) -> Result<StatusObject, PhpException> {
        let status = match self.with_core(&mut |_| {}, |breaker, now, _| {
            let (status, window) = breaker.status(now)?;
            Ok::<_, StorageError>((status, window, breaker.counters()?))
        }) {
            Ok((status, now)) => status
                .map(|(status, window, counters)| {
                    let bulkhead = self.config.max_concurrent_calls.and_then(|_| self.gate()).map(counts);
                    StatusObject(CircuitStatus::of_breaker(
                        self.service(),
                        status,
                        &window,
                        counters,
                        bulkhead,
                        &self.config,
                        now,
                    ))
                })
                .map_err(|error| storage_exception(error, self.thrown_by_storage())),
            Err(interrupted) => interrupted.answer(StatusObject(Zval::new())),
        };
        finish(status)
    }
}

impl CircuitBreaker {
    /// A breaker of `service` over `storage`: what `__construct()` makes,
    /// and what `Operations\CircuitControl` makes for one command.
    pub(super) fn new(
        service: &[u8],
        config: Rc<Config>,
        configuration: &Zval,
        storage: &Zval,
        listener: Option<&Zval>,
        clock: Option<&Zval>,
    ) -> Result<Self, PhpException> {
        let mut made = None;
        Self::make(&mut made, service, config, configuration, storage, listener, clock)?;
        Ok(made.expect("made"))
    }

    /// [`Self::new`] into `made`: the breaker is written where it is kept,
    /// not moved there (it is a few hundred bytes, each move a `memcpy`).
    fn make(
        made: &mut Option<Self>,
        service: &[u8],
        config: Rc<Config>,
        configuration: &Zval,
        storage: &Zval,
        listener: Option<&Zval>,
        clock: Option<&Zval>,
    ) -> Result<(), PhpException> {
        let (native, kind, userland) = match native_storage(storage) {
            Some((native, kind)) => (native, kind, None),
            None => {
                let missing = missing_primitives(storage);
                if !missing.is_empty() {
                    return Err(invalid_configuration(ConfigError::new(
                        "storage",
                        format!("{} without {}()", describe(storage), missing.join("(), ")),
                        "a storage of this extension, or a KeyValueStoreInterface (increment(), getMultiple(), compareAndSet())",
                    )));
                }
                let userland = Rc::new(userland_storage(storage));
                (
                    Rc::clone(&userland) as Rc<dyn Storage>,
                    StorageKind::Userland,
                    Some(userland),
                )
            }
        };
        let slots = config.bands.slot_count();
        if let Some(max_slots) = native.max_slots().filter(|&max| slots > max) {
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
        *made = Some(Self {
            circuit: Rc::clone(&native).circuit(service),
            native,
            kind,
            config,
            configuration: configuration.shallow_clone(),
            storage: storage.shallow_clone(),
            listener: listener.map(Zval::shallow_clone),
            userland,
            clock: Clock::from_arg(clock),
            at_work: AtWork::default(),
            permitted_last: Cell::new(true),
            gate: OnceCell::new(),
            permits: HeldByFiber::default(),
            throttle: OnceCell::new(),
        });
        Ok(())
    }
}

/// A duration of a forced state, checked: 1 s to 30 days.
pub(super) fn forced_duration_ms(duration: f64) -> Result<Millis, PhpException> {
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
    /// Runs the core for one call: reads the clock, then `run` on the
    /// storage, `emit` collecting its events. Refuses to run when this
    /// breaker or its in-memory storage is already at work up the stack, or
    /// when the script is ending; contains a panic.
    fn with_core<T>(
        &self,
        emit: &mut dyn FnMut(Event),
        run: impl for<'b> FnOnce(&Breaker<'b>, Millis, &mut dyn FnMut(Event)) -> T,
    ) -> Result<(T, Millis), Interrupted> {
        let reentered = || Interrupted::Reentered(self.reentered());
        let _working = self.at_work.enter().ok_or_else(reentered)?;
        let _storage_working = match &self.kind {
            StorageKind::Memory(at_work) => Some(at_work.enter().ok_or_else(reentered)?),
            StorageKind::Userland | StorageKind::Native => None,
        };
        contain_panic(|| {
            #[cfg(feature = "testing")]
            super::testing::panic_if_armed();
            let now = self.clock.now_ms();
            if ending().is_some() {
                return Err(Interrupted::Ending);
            }
            Ok((run(&self.core(), now, emit), now))
        })
        .map_err(Interrupted::Panicked)?
    }

    /// The permit of the current fiber's last permitted call, for the
    /// attempt that will register it.
    pub(super) fn take_permit(&self) -> Option<Permit> {
        self.permits.take_last()
    }

    /// This process's memory of the circuit's window, when its rules throttle.
    fn throttle_memo(&self) -> Option<&Cell<ThrottleMemo>> {
        self.config.throttling.as_ref()?;
        Some(&**self.throttle.get_or_init(|| memo_of(&self.scoped_name())))
    }

    /// The circuit's name in the bulkhead's table and throttling's memory:
    /// its storage's scope (an `InMemoryStorage` object is a store of its
    /// own; a class written in PHP, its class), then its service.
    fn scoped_name(&self) -> Vec<u8> {
        let scope = match &self.kind {
            StorageKind::Memory(_) => format!("memory {:p}", Rc::as_ptr(&self.native).cast::<()>()).into_bytes(),
            StorageKind::Userland => self.storage_name().into_bytes(),
            StorageKind::Native => self.native.scope(),
        };
        scoped(&scope, self.service())
    }

    /// Where this breaker's bulkhead counts: the pool's table, or the
    /// process's own over an `InMemoryStorage`.
    fn gate(&self) -> Option<Gate> {
        *self.gate.get_or_init(|| {
            let scope = match self.kind {
                StorageKind::Memory(_) => Scope::Process,
                StorageKind::Userland | StorageKind::Native => Scope::Pool,
            };
            gate_of(&self.scoped_name(), scope)
        })
    }

    fn reentered(&self) -> PhpException {
        logic_exception(format!(
            "The circuit breaker of '{}' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused",
            self.service_name()
        ))
    }

    /// Runs the core for a call that acquires or registers, and delivers the
    /// events it emitted. Without a listener, events are not even collected.
    /// A panic is a storage failure: the call gets `failed_open` (permitted,
    /// the outcome dropped) and a `StorageFailed` event.
    fn with_events<T>(
        &self,
        failed_open: T,
        run: impl for<'b> FnOnce(&Breaker<'b>, Millis, &mut dyn FnMut(Event)) -> T,
    ) -> Result<T, PhpException> {
        let collect = self.listener.is_some();
        let mut events = Vec::new();
        // The first failure of the storage in this call, for the error log.
        let mut failure = None;
        let mut emit = |event: Event| {
            if let Event::ClockAhead { ahead_ms } = event {
                super::log::clock_ahead(&self.service_name(), ahead_ms);
                return;
            }
            if let Event::StorageFailed(error) = &event
                && failure.is_none()
            {
                failure = Some(error.to_string());
            }
            if collect {
                events.push(event);
            }
        };
        let (result, now) = match self.with_core(&mut emit, run) {
            Ok(done) => done,
            // A panic fails open, as a storage failure.
            Err(Interrupted::Panicked(message)) => {
                emit(Event::StorageFailed(internal_error(&message)));
                (failed_open, system_now_ms())
            }
            Err(interrupted) => return interrupted.answer(failed_open),
        };
        // The log's intervals are the system's time, whatever the breaker's clock.
        // A script that is ending fails its calls on purpose: not a storage failing.
        if super::log::call_is_news(failure.is_some()) && ending().is_none() {
            super::log::storage_call(|| self.storage_name(), failure.as_deref(), system_now_ms);
        }
        // Without a listener nothing was collected: no call at all.
        if !events.is_empty() {
            self.emit(events, now);
        }
        Ok(result)
    }

    /// Stores an operator's command and delivers its event. A storage that
    /// fails throws: the operator must know the command did not land.
    pub(super) fn command(&self, command: Command) -> Result<(), PhpException> {
        let not_stored = Err(StorageError::Unavailable("the command was not stored".into()));
        self.with_events(not_stored, |breaker, now, emit| breaker.command(command, now, emit))?
            .map_err(|error| storage_exception(error, self.thrown_by_storage()))
    }

    /// Acquires a permission and delivers the events it caused.
    /// A ramp curve written in PHP that threw (or returned NAN) admitted the
    /// call, and its exception goes on to the caller now that the call is
    /// over: not a `CallRejected`, not a storage failure.
    pub fn acquire(&self) -> Result<Permission, PhpException> {
        let permission = if self.config.max_concurrent_calls.is_none() && self.config.throttling.is_none() {
            if self.permitted_last.get() && self.acquire_closed() {
                Permission::Permitted
            } else {
                let permission =
                    self.with_events(Permission::Permitted, |breaker, now, emit| breaker.acquire(now, emit))?;
                self.permitted_last.set(permission == Permission::Permitted);
                permission
            }
        } else {
            self.acquire_within_limits()?
        };
        if userland_curve_object(&self.config.half_open).is_some()
            && let Some(exception) = take_curve_exception()
        {
            return Err(rethrow(exception));
        }
        Ok(permission)
    }

    /// Most calls: [`Breaker::acquire_closed`] without what
    /// [`Self::with_events`] puts around a call (see [`Self::quiet_now`]).
    /// False: nothing was done.
    #[inline]
    fn acquire_closed(&self) -> bool {
        // Another storage declines after a clock read and a call begun:
        // a few tens of instructions beside its own, cheaper than a test
        // on shared memory's every call.
        let Some(now) = self.quiet_now() else {
            return false;
        };
        let core = self.core();
        // It counts last: a panic leaves the call to the whole decision,
        // which contains a panic of its own as a storage failure.
        contain_panic(|| core.acquire_closed(now)).unwrap_or(false)
    }

    /// The instant of a call that may go without what [`Self::with_events`]
    /// puts around one that may run PHP code or emit events: one that runs
    /// none and emits none needs no turn among fibers. `None` unless no
    /// call is at work (one that is would refuse this one), the clock runs
    /// no PHP code, no storage is failing (its recovery is news to log) and
    /// the script is not ending.
    #[inline]
    fn quiet_now(&self) -> Option<Millis> {
        #[cfg(feature = "testing")]
        if super::testing::panic_armed() {
            return None;
        }
        if !self.at_work.is_idle() || !self.clock.is_native() || super::log::call_is_news(false) {
            return None;
        }
        let now = self.clock.now_ms();
        ending().is_none().then_some(now)
    }

    /// The core's breaker over this one's configuration and circuit.
    #[inline]
    fn core(&self) -> Breaker<'_> {
        Breaker {
            config: &self.config,
            circuit: &self.circuit,
            // The system clock is the storage's own: one read serves both.
            storage_clock: matches!(self.clock, Clock::System),
        }
    }

    /// [`Self::acquire`] of a breaker with a bulkhead or throttling: the
    /// permission's permit is kept until its call registers.
    fn acquire_within_limits(&self) -> Result<Permission, PhpException> {
        let limits = Limits {
            gate: self.config.max_concurrent_calls.and_then(|_| self.gate()),
            throttle: self.throttle_memo(),
        };
        let admitted = Admission {
            permission: Permission::Permitted,
            trial: false,
            permit: None,
        };
        let admission = self.with_events(admitted, |breaker, now, emit| breaker.admit(now, limits, emit))?;
        if let Some(permit) = admission.permit {
            self.permits.keep(permit);
        }
        Ok(admission.permission)
    }

    pub fn register(&self, outcome: Outcome, duration_ms: Option<Millis>) -> Result<(), PhpException> {
        if self.config.max_concurrent_calls.is_some() {
            self.permits.give_back();
        }
        self.register_unheld(outcome, duration_ms)
    }

    /// [`Self::register`] of a call whose permit its caller holds
    /// (`CallExecutor`, an `Attempt`): none of this breaker's goes back.
    pub fn register_unheld(&self, outcome: Outcome, duration_ms: Option<Millis>) -> Result<(), PhpException> {
        let throttle = self.throttle_memo();
        if throttle.is_none()
            && self.circuit.is_shared_memory()
            && let Some(now) = self.quiet_now()
        {
            let core = self.core();
            let left = contain_panic(|| core.record_quietly(outcome, duration_ms, now))
                .unwrap_or_else(|message| Quiet::Failed(internal_error(&message)));
            if matches!(left, Quiet::Done) {
                return Ok(());
            }
            // Nothing ran in between: the call is still this fiber's alone.
            return self.with_events((), |breaker, _, emit| breaker.register_recorded(left, now, emit));
        }
        self.with_events((), |breaker, now, emit| {
            breaker.register_noting(outcome, duration_ms, now, throttle, emit)
        })
    }

    /// What a storage written in PHP threw in this call.
    fn thrown_by_storage(&self) -> Option<Zval> {
        self.userland
            .as_ref()
            .and_then(|userland| userland.backend.take_thrown())
    }

    pub fn get_service_zval(&self) -> Zval {
        Bytes(self.service()).into_zval(false).unwrap_or_default()
    }

    /// The class of the storage, as the error log names it.
    fn storage_name(&self) -> String {
        self.storage
            .object()
            .and_then(|object| object.get_class_name().ok())
            .unwrap_or_else(|| "the storage".to_owned())
    }

    /// The service, as raw bytes.
    pub fn service(&self) -> &[u8] {
        self.circuit.service()
    }

    pub fn service_name(&self) -> String {
        String::from_utf8_lossy(self.service()).into_owned()
    }

    /// Events are delivered once the storage work is over, so a listener
    /// may call back into this breaker.
    fn emit(&self, events: Vec<Event>, now: Millis) {
        let Some(listener) = &self.listener else {
            return;
        };
        if events.is_empty() {
            return;
        }
        // A script that is ending runs no more PHP code, listeners included.
        if ending().is_some() {
            return;
        }
        let time = now as f64 / 1_000.0;
        for event in events.into_iter().filter_map(|event| self.php_event(event)) {
            deliver(listener, event, self.service(), time);
        }
    }

    fn php_event(&self, event: Event) -> Option<PhpEvent> {
        Some(match event {
            Event::Opened {
                previous,
                cause,
                open_duration_ms,
            } => {
                let rule = native::<Configuration>(self.configuration.object().expect("an object"))
                    .and_then(|configuration| list_values(configuration.rules.array()?)?.get(cause.rule_index))
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
            Event::Rejected { phase, reason } => PhpEvent::Rejected {
                state: phase.into(),
                reason: RejectionReason::of(phase, reason),
            },
            Event::StorageFailed(error) => PhpEvent::StorageFailed {
                exception: storage_error(&error, self.thrown_by_storage()),
            },
            Event::StorageRecovered => PhpEvent::StorageRecovered,
            // Logged where emitted, not an event of the listener's.
            Event::ClockAhead { .. } => return None,
        })
    }
}

impl Interrupted {
    /// What a method answers when the core did not run: a call back into a
    /// breaker at work is refused with its exception; a panic throws the
    /// storage failure it caused; while the script ends, `ending` (the
    /// engine ignores what a method returns then).
    fn answer<T>(self, ending: T) -> Result<T, PhpException> {
        match self {
            Self::Reentered(exception) => Err(exception),
            Self::Ending => Ok(ending),
            Self::Panicked(message) => Err(internal_error(&message).into()),
        }
    }
}

/// The native breaker behind a `CircuitBreakerInterface` object, if it is ours.
pub fn native_breaker(breaker: &Zval) -> Option<&CircuitBreaker> {
    native::<CircuitBreaker>(breaker.object()?)
}

impl HoldsPhpValues for CircuitBreaker {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.configuration);
        buffer.add(&self.storage);
        buffer.add_all(&self.listener);
        if let Some(userland) = &self.userland {
            userland.backend.report(buffer);
        }
        report_clock(&self.clock, buffer);
    }
}

impl FastConstruct for CircuitBreaker {
    const REQUIRED: u32 = 3;
    const MAX: u32 = 5;
    fn construct(arguments: &Arguments<'_>, made: &mut Option<Self>) -> Result<(), Refused> {
        let service = arguments.required::<TextRef<'_>>(0, "service")?;
        let configuration = arguments.required::<ConfigurationArg<'_>>(1, "configuration")?;
        let storage = arguments.required::<StorageArg<'_>>(2, "storage")?;
        let listener = arguments.optional::<ListenerArg<'_>>(3, "eventListener")?;
        let clock = arguments.optional::<ClockArg<'_>>(4, "clock")?;
        Self::make(
            made,
            &service.0,
            configuration.1.config.clone(),
            configuration.0,
            storage.0,
            listener.map(|listener| listener.0),
            clock.map(|clock| clock.0),
        )
        .map_err(Some)
    }
}

/// `acquirePermission()`, run by the engine's hot-method handler.
struct AcquirePermission;

impl HotMethod for AcquirePermission {
    type Class = CircuitBreaker;
    const NAME: &'static str = "acquirepermission";
    const MAX: u32 = 0;
    type Arguments = ();
    fn arguments(_: &Arguments<'_>) -> Result<(), Refused> {
        Ok(())
    }
    fn call(breaker: &CircuitBreaker, (): ()) -> Result<Option<bool>, PhpException> {
        Ok(Some(breaker.acquire()? == Permission::Permitted))
    }
}

/// `registerSuccess(?float $duration = null)` and `registerFailure(...)`.
struct Register<const FAILURE: bool>;

impl<const FAILURE: bool> HotMethod for Register<FAILURE> {
    type Class = CircuitBreaker;
    const NAME: &'static str = if FAILURE { "registerfailure" } else { "registersuccess" };
    const MAX: u32 = 1;
    type Arguments = Option<Float>;
    fn arguments(arguments: &Arguments<'_>) -> Result<Option<Float>, Refused> {
        arguments.optional::<Float>(0, "duration")
    }
    fn call(breaker: &CircuitBreaker, duration: Option<Float>) -> Result<Option<bool>, PhpException> {
        let outcome = if FAILURE { Outcome::Failure } else { Outcome::Success };
        breaker.register(outcome, duration_ms(duration.map(|duration| duration.0))?)?;
        Ok(None)
    }
}

impl CircuitBreaker {
    /// Puts the handlers of the calls a protected call makes in place.
    pub fn replace_hot_methods() {
        replace_method::<AcquirePermission>();
        replace_method::<Register<false>>();
        replace_method::<Register<true>>();
    }
}
