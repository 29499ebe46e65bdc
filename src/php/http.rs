//! HTTP guarding in a PHP process: the ini settings, the breakers they
//! declare (read and checked once, at module startup), one circuit per
//! guarded host (its breaker built once per worker), and the two things
//! the engine hooks (`engine::curl`, `engine::streams`) ask: may this
//! transfer go, and what its end counts as.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ExecutorGlobals, IniEntryDef, IniEntryDefs};

use super::bulkhead::{HeldByFiber, Scope, counts, gate_of, scoped};
use super::engine::args::{CallableArg, Float, Text};
use super::engine::callback::{CallError, call_callable};
use super::engine::transfer::{self, Admission};
use super::engine::typed::Bytes;
use super::engine::{Severity, current_fiber, error_log, log_notice, startup_warning};
use super::enums::State;
use super::throttle::memo_of;
use crate::breaker::{Breaker, Event, Gate, Limits, Permission, Rejection};
use crate::core::counts::Outcome;
use crate::core::duration::{Millis, format_float};
use crate::core::machine::{Command, Phase};
use crate::core::throttle::{ThrottleMemo, percent_of_ppm};
use crate::http::file::{self, NamedBreaker};
use crate::http::outcome;
use crate::http::policy::{Mode, Policy, Settings, StorageSetting};
use crate::http::target::{FastMap, HostPattern, Target, authority_of};
use crate::storage::bulkhead::held::Permit;
use crate::storage::{KeptCircuit, Storage, StorageError};

const HOSTS_SETTING: &str = "circuit_breaker.http_hosts";
const CONFIG_SETTING: &str = "circuit_breaker.http_config";
const MODE_SETTING: &str = "circuit_breaker.http_mode";

static INI_ENTRIES: IniEntryDefs<4> = IniEntryDefs::new([
    IniEntryDef::new(c"circuit_breaker.http_hosts", c"", IniEntryPermission::System),
    IniEntryDef::new(c"circuit_breaker.http_config", c"", IniEntryPermission::System),
    IniEntryDef::new(c"circuit_breaker.http_mode", c"enforce", IniEntryPermission::System),
    IniEntryDef::end(),
]);

/// How many hosts a worker remembers the guard of (guarded or not) before
/// it starts over: a bound on what a crawler of many hosts costs.
const MAX_REMEMBERED_HOSTS: usize = 10_000;

/// The timeout of the network storages of HTTP circuits, per call.
const NETWORK_STORAGE_TIMEOUT: Duration = Duration::from_millis(50);

/// One guarded circuit: every transfer to its hosts.
pub struct Circuit {
    pub service: Vec<u8>,
    pub policy: Rc<Policy>,
    /// Its circuit in its storage.
    stored: KeptCircuit,
    /// Where its bulkhead counts, when its policy has one.
    gate: Option<Gate>,
    /// This process's memory of its window, when its policy throttles.
    throttle: Option<Rc<Cell<ThrottleMemo>>>,
}

/// The circuit of each URL authority seen (`None`: not guarded).
type AuthorityMemo = FastMap<Box<[u8]>, Option<Rc<Circuit>>>;

impl Circuit {
    fn new(service: Vec<u8>, storage: Rc<dyn Storage>, policy: Rc<Policy>) -> Self {
        let scoped = scoped(&storage.scope(), &service);
        let gate = policy
            .config
            .max_concurrent_calls
            .and_then(|_| gate_of(&scoped, Scope::Pool));
        let throttle = policy.config.throttling.map(|_| memo_of(&scoped));
        Self {
            stored: storage.circuit(&service),
            service,
            policy,
            gate,
            throttle,
        }
    }

    /// What bounds its calls beside its state.
    fn limits(&self) -> Limits<'_> {
        Limits {
            gate: self.gate,
            throttle: self.throttle.as_deref(),
        }
    }

    /// The orchestration of the core over this circuit.
    fn breaker(&self) -> Breaker<'_> {
        Breaker {
            config: &self.policy.config,
            circuit: &self.stored,
            // Every call reads the system clock, the storages' own.
            storage_clock: true,
        }
    }
}

/// The breakers of the process, as the ini settings declare them.
struct Guard {
    patterns: Vec<HostPattern>,
    defaults: Rc<Policy>,
    named: Vec<NamedBreaker>,
    /// The breakers of the file left out, each as its warning says why.
    refused: Vec<String>,
    /// The circuit of each host seen (`None`: not guarded).
    circuits: RefCell<HashMap<Target, Option<Rc<Circuit>>>>,
    /// The same by the scheme and authority of the URLs seen, as written:
    /// what a request looks up first, without parsing its URL.
    by_authority: RefCell<AuthorityMemo>,
    /// The fiber of each `CallExecutor` call running: a transfer of that
    /// fiber is the executor's to count, one of another fiber (an event loop
    /// runs others while one awaits) is not.
    inside_breakers: RefCell<Vec<usize>>,
    /// The fiber of each `HttpGuard::standAside()` call running (one of
    /// `inside_breakers` too): a curl handle that fiber sets up now is the
    /// caller's ([`standing_aside`]).
    standing_aside: RefCell<Vec<usize>>,
    /// The circuit of each named breaker, once built.
    named_circuits: RefCell<HashMap<String, Rc<Circuit>>>,
    /// The storages, made in the worker at their first use (a connection
    /// must not cross a fork), by what they were declared as.
    storages: RefCell<HashMap<String, Rc<dyn Storage>>>,
}

thread_local! {
    static GUARD: OnceCell<Guard> = const { OnceCell::new() };
    /// The refusal of the last transfer refused in this request.
    static LAST_REFUSAL: RefCell<Option<Refusal>> = const { RefCell::new(None) };
}

/// Runs a call that a breaker of the application's code guards: the
/// transfers it makes are that breaker's to count, and the hooks leave
/// them alone (one transfer, one outcome).
pub fn inside_breaker<T>(run: impl FnOnce() -> T) -> T {
    entered(|guard| &guard.inside_breakers, run)
}

/// Runs a call of a client middleware that counts its transfers itself
/// (`HttpGuard::standAside()`): as [`inside_breaker`], and the curl handles
/// it sets up are the caller's until they are reset ([`standing_aside`]),
/// for transfers that start later, outside the call (a delayed Guzzle
/// request, a handle that curl_multi adds again).
pub fn stand_aside<T>(run: impl FnOnce() -> T) -> T {
    entered(|guard| &guard.standing_aside, || inside_breaker(run))
}

/// Whether the running fiber is in a `HttpGuard::standAside()` call.
pub fn standing_aside() -> bool {
    GUARD.with(|guard| {
        guard.get().is_some_and(|guard| {
            let inside = guard.standing_aside.borrow();
            !inside.is_empty() && inside.contains(&current_fiber())
        })
    })
}

/// Runs `run` with the running fiber in the list `of` meanwhile.
fn entered<T>(of: impl Fn(&Guard) -> &RefCell<Vec<usize>>, run: impl FnOnce() -> T) -> T {
    let fiber = current_fiber();
    let step = |enter: bool| {
        GUARD.with(|guard| {
            if let Some(guard) = guard.get() {
                let mut inside = of(guard).borrow_mut();
                if enter {
                    inside.push(fiber);
                } else if let Some(index) = inside.iter().rposition(|&other| other == fiber) {
                    inside.swap_remove(index);
                }
            }
        })
    };
    step(true);
    let result = run();
    step(false);
    result
}

/// A transfer let through: its circuit and whether it is a half-open trial.
pub struct Ticket {
    circuit: Rc<Circuit>,
    trial: bool,
    /// The permit of the circuit's bulkhead, given back when the ticket is
    /// dropped: the transfer finished, or its handle went.
    _permit: Option<Permit>,
}

impl transfer::Ticket for Ticket {
    fn trial(&self) -> bool {
        self.trial
    }

    fn probe_timeout_ms(&self) -> Millis {
        self.circuit.policy.probe_timeout_ms
    }

    fn finish(self: Box<Self>, code: i64, status: u16, duration_ms: Option<Millis>) {
        let circuit = &self.circuit;
        let Some(outcome) = outcome::of_transfer(&circuit.policy, code, status) else {
            return;
        };
        register(circuit, outcome, duration_ms);
    }
}

/// A transfer refused: which circuit, in what state, and when to retry.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub service: Vec<u8>,
    pub phase: Phase,
    pub retry_after_ms: Option<Millis>,
    pub reason: Rejection,
}

/// What a refused stream open warns, and what a log line says.
impl std::fmt::Display for Refusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message())
    }
}

impl Refusal {
    pub fn message(&self) -> String {
        let name = String::from_utf8_lossy(&self.service);
        match self.reason {
            Rejection::Bulkhead { limit } => {
                return format!(
                    "the circuit breaker of '{name}' has {limit} requests in flight, as many as its bulkhead lets through"
                );
            }
            Rejection::Throttled { rate_ppm } => {
                return format!(
                    "the circuit breaker of '{name}' refuses {}% of its requests while they fail too often (adaptive throttling)",
                    format_float(percent_of_ppm(rate_ppm))
                );
            }
            Rejection::Circuit => {}
        }
        match self.retry_after_ms {
            Some(ms) => format!(
                "the circuit breaker of '{name}' is open: no request for {} s",
                format_float(ms as f64 / 1_000.0)
            ),
            None => format!("the circuit breaker of '{name}' is half-open: its trial requests are under way"),
        }
    }
}

/// The settings a guard is declared from, as read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Declaration {
    hosts: String,
    config: String,
    mode: String,
}

impl Declaration {
    /// The settings in force now: at module startup those of php.ini; at
    /// a PHP-FPM worker's first request, its pool's `php_admin_value`s too.
    fn current() -> Self {
        let ini = ExecutorGlobals::get().ini_values();
        let setting = |name: &str| ini.get(name).cloned().flatten().unwrap_or_default();
        Self {
            hosts: setting(HOSTS_SETTING),
            config: setting(CONFIG_SETTING),
            mode: setting(MODE_SETTING),
        }
    }
}

/// What module startup read: its settings, the guard they declare and
/// what was wrong in them.
struct AtStartup {
    declaration: Declaration,
    guard: Option<Guard>,
}

thread_local! {
    /// Set by module startup, taken at the process's first request: empty
    /// once the process's guard is chosen.
    static AT_STARTUP: RefCell<Option<AtStartup>> = const { RefCell::new(None) };
}

/// Registers the ini settings and reads them: each mistake is a startup
/// warning that names the setting (and for the breakers file its path,
/// line and key); what is wrong is left out, every valid breaker guards.
pub fn startup(module_number: i32) {
    IniEntryDef::register(INI_ENTRIES.as_slice(), module_number);
    let declaration = Declaration::current();
    let (guard, problems) = declared(&declaration);
    for problem in problems {
        startup_warning(&problem);
    }
    AT_STARTUP.with(|slot| *slot.borrow_mut() = Some(AtStartup { declaration, guard }));
}

/// At a process's first request: the guard of the settings in force then.
/// Those of module startup, unless the process has its own (a PHP-FPM
/// pool's `php_admin_value`, applied in the worker after the master's
/// startup): then they are read anew, and their mistakes are warnings in
/// the pool's log.
fn choose_guard() {
    let Some(startup) = AT_STARTUP.with(|slot| slot.borrow_mut().take()) else {
        return;
    };
    let declaration = Declaration::current();
    let guard = if declaration == startup.declaration {
        startup.guard
    } else {
        let (guard, problems) = declared(&declaration);
        for problem in problems {
            error_log(&format!("PHP Warning:  {problem}"), Severity::Warning);
        }
        guard
    };
    if let Some(guard) = guard {
        GUARD.with(|slot| {
            let _ = slot.set(guard);
        });
    }
}

/// The guard the settings declare (`None` when they guard nothing), and
/// each mistake found, as a warning says it.
fn declared(declaration: &Declaration) -> (Option<Guard>, Vec<String>) {
    let Declaration { hosts, config, mode } = declaration;
    // PHP's ini parser reads an unquoted off (no, false, none) as ''.
    let Some(mode) = Mode::parse(if mode.trim().is_empty() { "off" } else { mode }) else {
        return (
            None,
            vec![format!(
                "{MODE_SETTING} = '{mode}' is not {}: HTTP guarding is off",
                Mode::LIMITS
            )],
        );
    };
    if mode == Mode::Off || (hosts.trim().is_empty() && config.trim().is_empty()) {
        return (None, Vec::new());
    }
    let mut problems = Vec::new();
    let mut patterns = Vec::new();
    for pattern in HostPattern::parse_each(hosts) {
        match pattern {
            Ok(pattern) => patterns.push(pattern),
            Err(error) => problems.push(format!("{HOSTS_SETTING}: {error}: it is left out")),
        }
    }
    let (defaults, named, refused) = if config.trim().is_empty() {
        (Settings::default(), Vec::new(), Vec::new())
    } else {
        let path = config.trim();
        match file::load(path, mode) {
            Ok(read) => (read.defaults, read.breakers, read.refused),
            Err(error) => {
                problems.push(format!("{CONFIG_SETTING}: {error}: its breakers are not guarded"));
                (Settings::default(), Vec::new(), Vec::new())
            }
        }
    };
    let refused: Vec<String> = refused.iter().map(ToString::to_string).collect();
    problems.extend(refused.iter().map(|refusal| format!("{CONFIG_SETTING}: {refusal}")));
    // Checked by the file's reading, or the built-in ones.
    let Ok(defaults) = defaults.policy(mode) else {
        return (None, problems);
    };
    if patterns.is_empty() && named.is_empty() {
        return (None, problems);
    }
    let guard = Guard {
        patterns,
        defaults: Rc::new(defaults),
        named,
        refused,
        circuits: RefCell::default(),
        by_authority: RefCell::default(),
        inside_breakers: RefCell::default(),
        standing_aside: RefCell::default(),
        named_circuits: RefCell::default(),
        storages: RefCell::default(),
    };
    (Some(guard), problems)
}

/// The rows of `php --ri circuit_breaker` and phpinfo() on HTTP guarding:
/// the hosts and breakers that guard, and those left out and why.
pub fn info_rows() -> Vec<(&'static str, String)> {
    let rows = |guard: Option<&Guard>| match guard {
        None => vec![("HTTP guarding", "off".to_owned())],
        Some(guard) => {
            let mut rows = vec![
                ("HTTP guarding", "on".to_owned()),
                (
                    "HTTP hosts (circuit_breaker.http_hosts)",
                    guard
                        .patterns
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                (
                    "HTTP breakers guarding",
                    guard
                        .named
                        .iter()
                        .map(|breaker| breaker.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            ];
            rows.extend(
                guard
                    .refused
                    .iter()
                    .map(|refusal| ("HTTP breaker left out", refusal.clone())),
            );
            rows
        }
    };
    // Before the first request, the guard module startup declared.
    GUARD.with(|guard| match guard.get() {
        Some(guard) => rows(Some(guard)),
        None => AT_STARTUP.with(|startup| rows(startup.borrow().as_ref().and_then(|startup| startup.guard.as_ref()))),
    })
}

/// Whether any transfer may be guarded in this process.
pub fn enabled() -> bool {
    GUARD.with(|guard| guard.get().is_some())
}

/// At each request start: the process's guard is chosen at its first; the
/// last refusal belongs to the previous request.
pub fn request_startup() {
    choose_guard();
    LAST_REFUSAL.with(|last| last.borrow_mut().take());
    GUARD.with(|guard| {
        if let Some(guard) = guard.get() {
            guard.inside_breakers.borrow_mut().clear();
            guard.standing_aside.borrow_mut().clear();
        }
    });
}

impl Guard {
    /// The circuit of a request to `url`: from the memo of the URL's
    /// authority, or found and remembered.
    fn circuit_of_url(&self, url: &[u8]) -> Option<Rc<Circuit>> {
        let authority = authority_of(url);
        remembered(
            &self.by_authority,
            authority,
            || authority.into(),
            || Target::of_url(url).and_then(|target| self.circuit_of(&target)),
        )
    }

    fn circuit_of(&self, target: &Target) -> Option<Rc<Circuit>> {
        remembered(
            &self.circuits,
            target,
            || target.clone(),
            || self.new_circuit_of(target),
        )
    }

    fn new_circuit_of(&self, target: &Target) -> Option<Rc<Circuit>> {
        if let Some(breaker) = self
            .named
            .iter()
            .find(|breaker| breaker.hosts.iter().any(|pattern| pattern.matches(target)))
        {
            return self.named_circuit(&breaker.name, &breaker.policy);
        }
        if !self.patterns.iter().any(|pattern| pattern.matches(target)) {
            return None;
        }
        let policy = self.defaults.clone();
        Some(Rc::new(Circuit::new(
            target.to_string().into_bytes(),
            self.storage(&policy.storage)?,
            policy,
        )))
    }

    fn named_circuit(&self, name: &str, policy: &Rc<Policy>) -> Option<Rc<Circuit>> {
        if let Some(circuit) = self.named_circuits.borrow().get(name) {
            return Some(circuit.clone());
        }
        let circuit = Rc::new(Circuit::new(
            name.as_bytes().to_vec(),
            self.storage(&policy.storage)?,
            policy.clone(),
        ));
        self.named_circuits
            .borrow_mut()
            .insert(name.to_owned(), circuit.clone());
        Some(circuit)
    }

    /// The storage declared as `setting`, made at its first use; `None`
    /// (not guarded) when it cannot be made, said once in the log.
    fn storage(&self, setting: &StorageSetting) -> Option<Rc<dyn Storage>> {
        let key = format!("{setting:?}");
        if let Some(storage) = self.storages.borrow().get(&key) {
            return Some(storage.clone());
        }
        let storage: Rc<dyn Storage> = match setting {
            StorageSetting::SharedMemory => super::storage::shared_memory::shared_storage(&[]).storage(),
            StorageSetting::Redis(dsn) => {
                let made = crate::storage::redis::parse_target(dsn).and_then(|target| {
                    crate::storage::redis::RedisStorage::new(target, Vec::new(), NETWORK_STORAGE_TIMEOUT)
                });
                match made {
                    Ok(storage) => Rc::new(storage),
                    Err(error) => {
                        log_notice(&format!(
                            "circuit_breaker: HTTP circuits on '{dsn}' are not guarded: {error}"
                        ));
                        return None;
                    }
                }
            }
            StorageSetting::Memcached(servers) => Rc::new(crate::storage::memcached::memcached_storage(
                servers.clone(),
                Vec::new(),
                NETWORK_STORAGE_TIMEOUT,
            )),
        };
        self.storages.borrow_mut().insert(key, storage.clone());
        Some(storage)
    }
}

/// The circuit `memo` holds for `key`, or the one `make` finds, then
/// remembered (under `owned()`); the memo starts over when full.
fn remembered<K, Q, S>(
    memo: &RefCell<HashMap<K, Option<Rc<Circuit>>, S>>,
    key: &Q,
    owned: impl FnOnce() -> K,
    make: impl FnOnce() -> Option<Rc<Circuit>>,
) -> Option<Rc<Circuit>>
where
    K: std::borrow::Borrow<Q> + Eq + std::hash::Hash,
    Q: Eq + std::hash::Hash + ?Sized,
    S: std::hash::BuildHasher,
{
    if let Some(known) = memo.borrow().get(key) {
        return known.clone();
    }
    let circuit = make();
    let mut memo = memo.borrow_mut();
    if memo.len() >= MAX_REMEMBERED_HOSTS {
        memo.clear();
    }
    memo.insert(owned(), circuit.clone());
    circuit
}

/// Whether a transfer to `url` may go now.
pub fn admit(url: &[u8]) -> Admission {
    let circuit = GUARD.with(|guard| {
        let guard = guard.get()?;
        let inside = guard.inside_breakers.borrow();
        if !inside.is_empty() && inside.contains(&current_fiber()) {
            return None;
        }
        drop(inside);
        guard.circuit_of_url(url)
    });
    let Some(circuit) = circuit else {
        return Admission::Unguarded;
    };
    let admission = with_events(&circuit, |breaker, now, emit| {
        breaker.admit(now, circuit.limits(), emit)
    });
    match admission.permission {
        Permission::Permitted => Admission::Permitted(Box::new(Ticket {
            circuit: circuit.clone(),
            // Observe mode refuses nothing: nor does it cut a trial short.
            trial: admission.trial && circuit.policy.mode != Mode::Observe,
            _permit: admission.permit,
        })),
        Permission::Rejected { .. } if circuit.policy.mode == Mode::Observe => Admission::Unguarded,
        Permission::Rejected {
            phase,
            retry_after_ms,
            reason,
        } => {
            let refusal = Refusal {
                service: circuit.service.clone(),
                phase,
                retry_after_ms,
                reason,
            };
            LAST_REFUSAL.with(|last| *last.borrow_mut() = Some(refusal.clone()));
            Admission::Refused(Box::new(refusal))
        }
    }
}

fn register(circuit: &Circuit, outcome: Outcome, duration_ms: Option<Millis>) {
    with_events(circuit, |breaker, now, emit| {
        breaker.register_noting(outcome, duration_ms, now, circuit.throttle.as_deref(), emit)
    });
}

/// Each transition once, in PHP's error log; refusals are only counted.
fn log_event(circuit: &Circuit, event: Event) {
    let name = String::from_utf8_lossy(&circuit.service);
    let observe = if circuit.policy.mode == Mode::Observe {
        " (observe mode: nothing is refused)"
    } else {
        ""
    };
    let line = match event {
        Event::Opened {
            cause,
            open_duration_ms,
            ..
        } => format!(
            "circuit_breaker: HTTP circuit '{name}' opened: {} of {} calls matched rule #{} of its breaker; open for {} s{observe}",
            cause.matching,
            cause.evaluated,
            cause.rule_index + 1,
            format_float(open_duration_ms as f64 / 1_000.0)
        ),
        Event::HalfOpened => {
            format!("circuit_breaker: HTTP circuit '{name}' is half-open: trial requests go through{observe}")
        }
        Event::Closed => format!("circuit_breaker: HTTP circuit '{name}' closed"),
        // Said by `log::storage_call`, at most once per interval.
        Event::StorageFailed(_) => return,
        Event::StorageRecovered => format!("circuit_breaker: the storage of HTTP circuit '{name}' works again"),
        Event::ClockAhead { ahead_ms } => return super::log::clock_ahead(&name, ahead_ms),
        Event::Rejected { .. } | Event::Forced { .. } | Event::Reset => return,
    };
    log_notice(&line);
}

/// Tells the log how a call on a circuit's storage ended (`failure`:
/// what it said when it failed), as every breaker's calls do.
fn note_storage(circuit: &Circuit, failure: Option<&StorageError>) {
    super::log::storage_call(
        || {
            format!(
                "the storage of the HTTP circuits ({})",
                storage_label(&circuit.policy.storage)
            )
        },
        failure.map(ToString::to_string).as_deref(),
        super::clock::system_now_ms,
    );
}

fn storage_label(setting: &StorageSetting) -> String {
    match setting {
        StorageSetting::SharedMemory => "shared memory".to_owned(),
        StorageSetting::Redis(dsn) => dsn.clone(),
        StorageSetting::Memcached(servers) => format!("memcached://{}", servers.join(",")),
    }
}

/// Runs one breaker operation on `circuit`: its events logged, and its
/// storage's failure (or success) told to the log.
fn with_events<T>(circuit: &Circuit, run: impl FnOnce(&Breaker<'_>, Millis, &mut dyn FnMut(Event)) -> T) -> T {
    let now = super::clock::system_now_ms();
    let mut failure = None;
    let result = run(&circuit.breaker(), now, &mut |event| {
        if let Event::StorageFailed(error) = &event {
            failure = Some(error.clone());
        }
        log_event(circuit, event);
    });
    note_storage(circuit, failure.as_ref());
    result
}

/// The HTTP guard of the process, seen from PHP.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Http\\HttpGuard")]
pub struct HttpGuard;

#[php_impl]
impl HttpGuard {
    /// The refusal of the last HTTP transfer refused in this request, as
    /// the exception a breaker throws (its service, state and retry-after),
    /// or null: no curl error code or stream warning can carry them.
    pub fn last_refusal() -> Option<Zval> {
        let refusal = LAST_REFUSAL.with(|last| last.borrow().clone())?;
        let mut service = Zval::new();
        service.set_binary(refusal.service.clone());
        let state = match refusal.phase {
            Phase::Open => State::Open,
            Phase::HalfOpen => State::HalfOpen,
            Phase::Closed => State::Closed,
        };
        Some(super::error::call_not_permitted(
            service,
            state,
            refusal.retry_after_ms,
            Some(refusal.reason),
        ))
    }

    /// The circuit that guards requests to `$url` (its service name, as
    /// `listCircuits()` shows it), or null when they are not guarded.
    pub fn circuit_of(url: Text) -> Option<String> {
        let target = Target::of_url(&url.0)?;
        let circuit = GUARD.with(|guard| guard.get().and_then(|guard| guard.circuit_of(&target)))?;
        Some(String::from_utf8_lossy(&circuit.service).into_owned())
    }

    /// Whether HTTP guarding is on in this process.
    pub fn is_enabled() -> bool {
        enabled()
    }

    /// Checks the breakers file at `$path` as module startup would read it:
    /// `['breakers' => the names of those that guard, 'problems' => each
    /// mistake, as its warning says it]`. For deploy pipelines
    /// (`circuit-breaker check-http-config`): `php-fpm -t` cannot see a
    /// pool's breakers.
    pub fn check_breakers_file(path: Text) -> Result<ZBox<ZendHashTable>, PhpException> {
        let path = String::from_utf8_lossy(&path.0).into_owned();
        let (breakers, problems) = match file::load(&path, Mode::Enforce) {
            Ok(read) => (
                read.breakers.into_iter().map(|breaker| breaker.name).collect(),
                read.refused.iter().map(ToString::to_string).collect(),
            ),
            Err(error) => (Vec::new(), vec![error.to_string()]),
        };
        let mut checked = ZendHashTable::new();
        checked.insert("breakers", breakers)?;
        checked.insert("problems", problems)?;
        Ok(checked)
    }

    /// Runs `$call` and returns its result, or lets its exception through,
    /// with the hooks standing aside: for a client middleware that counts
    /// its transfers on a breaker of its own. Every transfer the running
    /// fiber starts during the call, and every later transfer of a curl
    /// handle it sets up during it (until `curl_reset`), is neither refused
    /// nor counted by the hooks.
    pub fn stand_aside(call: CallableArg<'_>) -> Result<Zval, PhpException> {
        // An exception of the call, or the end of the script, stays pending:
        // the engine goes on with it when this returns.
        let result = stand_aside(|| call_callable(call.0, vec![]));
        super::engine::callback::finish(match result {
            Ok(result) => Ok(result),
            Err(error @ CallError::NotCallable(_)) => Err(super::error::exception(format!(
                "HttpGuard::standAside(): the callable {error}"
            ))),
            Err(_) => Ok(Zval::new()),
        })
    }

    /// The breaker named `$name` in the breakers file, or the one that
    /// guards the URL or `host:port` `$name`, built once per worker; null
    /// when there is none.
    pub fn breaker(name: Text) -> Option<HttpBreaker> {
        let circuit = GUARD.with(|guard| {
            let guard = guard.get()?;
            let name_text = std::str::from_utf8(&name.0).ok()?;
            if let Some(breaker) = guard.named.iter().find(|breaker| breaker.name == name_text) {
                return guard.named_circuit(&breaker.name, &breaker.policy);
            }
            let url = if name_text.contains("://") {
                name_text.to_owned()
            } else {
                format!("http://{name_text}")
            };
            Target::of_url(url.as_bytes()).and_then(|target| guard.circuit_of(&target))
        })?;
        Some(HttpBreaker {
            circuit,
            permits: HeldByFiber::default(),
        })
    }
}

/// A breaker of the HTTP guard, reached from code by its name: the same
/// circuit the hooks use, built once per worker, for a `CallExecutor`, a
/// FailFast middleware, `getStatus()` or an operator's command.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Http\\HttpBreaker")]
#[php(implements(ce = super::engine::classes::circuit_breaker_interface, stub = "\\Zeusi\\CircuitBreaker\\CircuitBreakerInterface"))]
#[php(implements(ce = super::engine::classes::manual_control_interface, stub = "\\Zeusi\\CircuitBreaker\\ManualControlInterface"))]
pub struct HttpBreaker {
    circuit: Rc<Circuit>,
    /// The permits of its calls in flight.
    permits: HeldByFiber,
}

impl HttpBreaker {
    fn register(&self, outcome: Outcome, duration: Option<Float>) -> Result<(), PhpException> {
        let duration_ms = super::breaker::duration_ms(duration.map(|duration| duration.0))?;
        self.permits.give_back();
        register(&self.circuit, outcome, duration_ms);
        Ok(())
    }

    fn command(&self, command: Command) -> Result<(), PhpException> {
        with_events(&self.circuit, |breaker, now, emit| breaker.command(command, now, emit)).map_err(PhpException::from)
    }
}

#[php_impl]
impl HttpBreaker {
    /// Whether a call may go now (a refusal is false, as for any breaker).
    pub fn acquire_permission(&self) -> bool {
        let admission = with_events(&self.circuit, |breaker, now, emit| {
            breaker.admit(now, self.circuit.limits(), emit)
        });
        if let Some(permit) = admission.permit {
            self.permits.keep(permit);
        }
        matches!(admission.permission, Permission::Permitted) || self.circuit.policy.mode == Mode::Observe
    }

    #[php(optional = duration)]
    pub fn register_success(&self, duration: Option<Float>) -> Result<(), PhpException> {
        self.register(Outcome::Success, duration)
    }

    #[php(optional = duration)]
    pub fn register_failure(&self, duration: Option<Float>) -> Result<(), PhpException> {
        self.register(Outcome::Failure, duration)
    }

    pub fn get_state(&self) -> Result<State, PhpException> {
        self.circuit
            .breaker()
            .state(super::clock::system_now_ms())
            .map(State::from)
            .map_err(PhpException::from)
    }

    pub fn get_service(&self) -> Bytes<'_> {
        Bytes(&self.circuit.service)
    }

    pub fn force_open(&self, duration: f64) -> Result<(), PhpException> {
        self.command(Command::ForceOpen(super::breaker::forced_duration_ms(duration)?))
    }

    pub fn force_closed(&self, duration: f64) -> Result<(), PhpException> {
        self.command(Command::ForceClosed(super::breaker::forced_duration_ms(duration)?))
    }

    pub fn reset(&self) -> Result<(), PhpException> {
        self.command(Command::Reset)
    }

    /// A `Status\CircuitStatus`, as `CircuitBreaker::getStatus()` gives it.
    pub fn get_status(&self) -> Result<super::breaker::StatusObject, PhpException> {
        let now = super::clock::system_now_ms();
        let breaker = self.circuit.breaker();
        let read = breaker
            .status(now)
            .and_then(|(status, window)| Ok((status, window, breaker.counters()?)));
        let (status, window, counters) = read.map_err(PhpException::from)?;
        Ok(super::breaker::StatusObject(super::status::CircuitStatus::of_breaker(
            &self.circuit.service,
            status,
            &window,
            counters,
            self.circuit.gate.map(counts),
            &self.circuit.policy.config,
            now,
        )))
    }
}
