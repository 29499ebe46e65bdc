//! The semantics every storage must hold, written once: each behaviour is a
//! function over an [`Env`] (a storage backend and a manual clock), driven
//! through the one orchestration (`breaker.rs`), as PHP drives it.
//!
//! `tests/conformance_local.rs` runs it over the storages of this process (in
//! memory, shared memory, key-value over a map); `tests/conformance_servers.rs`
//! over real Redis (standalone and cluster) and Memcached.
//!
//! Time is the manual clock, passed to the core as `now`. In-process
//! storages also expire their entries by it, so a day of silence is a day
//! for them. Servers expire keys in real time, which the suite cannot move:
//! there a test never waits for an expiry, and what an expiry would decide
//! (how long a state is kept) is read from the server instead
//! ([`Backend::state_ttl_ms`]).

pub mod fleet;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use circuit_breaker::breaker::{Breaker, Event, Permission, Rejection, TRUST_REMEMBERED_OPEN_MS};
use circuit_breaker::core::config::{Config, KEEP_DUE_STATE_MS};
use circuit_breaker::core::counts::Outcome;
use circuit_breaker::core::duration::Millis;
use circuit_breaker::core::half_open::{HalfOpenPolicy, PowerCurve};
use circuit_breaker::core::machine::{Command, Phase, Status, status_without_config};
use circuit_breaker::core::rules::OpeningRule;
use circuit_breaker::storage::{CallCounters, CircuitStore, KeptCircuit, Storage, StorageError};

/// The time of the test, in ms, shared by the suite and in-process storages.
pub type Clock = Rc<Cell<Millis>>;

/// A place circuits live, as seen by the suite.
pub trait Backend {
    /// A new storage object, keeping its circuits by name. Objects with the
    /// same prefix share their circuits (as two PHP objects, or two workers,
    /// on one server do); different prefixes are different applications.
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore>;

    /// A new storage object, as breakers are made over it: by default, `store`.
    fn storage(&self, prefix: &[u8]) -> Rc<dyn Storage> {
        self.store(prefix)
    }

    /// For a server, which expires keys in real time: how long the stored
    /// state of `service` has left to live, in ms. In-process storages
    /// expire by the suite's clock, so time travel proves it instead.
    fn state_ttl_ms(&self, _prefix: &[u8], _service: &[u8]) -> Option<Millis> {
        None
    }

    /// A storage object as another server of the fleet has it: what it
    /// remembers of open circuits is its own. By default, `storage`.
    fn storage_of_another_server(&self, prefix: &[u8]) -> Rc<dyn Storage> {
        self.storage(prefix)
    }

    /// After an operator's command: a storage whose hosts follow the
    /// fleet at their next sync (`FleetStorage`) makes that sync due, so
    /// that the suite's clock need not move for it.
    fn command_stored(&self, _service: &[u8]) {}

    /// Whether its storages list their circuits (Memcached and the
    /// key-value composition cannot).
    fn lists_circuits(&self) -> bool {
        true
    }

    /// Whether its breakers try the quiet ways first, as `CircuitBreaker`
    /// does (`Breaker::acquire_closed`, `Breaker::record_quietly`): every
    /// behaviour must come out the same.
    fn quiet_calls(&self) -> bool {
        false
    }
}

/// One behaviour's world: a backend and its clock.
pub struct Env {
    pub clock: Clock,
    backend: Box<dyn Backend>,
}

impl Env {
    /// The clock starts at the real time: servers see plausible instants.
    pub fn new(make: impl FnOnce(&Clock) -> Box<dyn Backend>) -> Self {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as Millis;
        let clock = Rc::new(Cell::new(now));
        let backend = make(&clock);
        Self { clock, backend }
    }

    fn sleep(&self, ms: Millis) {
        self.clock.set(self.clock.get() + ms);
    }

    /// Moves the clock to `offset` ms into the next bucket of `bucket_ms`.
    fn align(&self, bucket_ms: Millis, offset: Millis) {
        let now = self.clock.get();
        self.clock.set(now - now.rem_euclid(bucket_ms) + bucket_ms + offset);
    }

    fn circuit<'a>(&'a self, prefix: &[u8], service: &[u8], config: &'a Config) -> Circuit<'a> {
        self.circuit_on(self.backend.storage(prefix), service, config)
    }

    /// A breaker of another server of the fleet, where operators run commands.
    fn operator<'a>(&'a self, prefix: &[u8], service: &[u8], config: &'a Config) -> Circuit<'a> {
        self.circuit_on(self.backend.storage_of_another_server(prefix), service, config)
    }

    /// A breaker of `service` over `storage`, made as `CircuitBreaker` makes
    /// one: its circuit asked for once.
    fn circuit_on<'a>(&'a self, storage: Rc<dyn Storage>, service: &[u8], config: &'a Config) -> Circuit<'a> {
        Circuit {
            env: self,
            circuit: Rc::clone(&storage).circuit(service),
            storage,
            service: service.to_vec(),
            config,
            events: RefCell::default(),
        }
    }
}

/// One breaker: a service on a storage object, with the events it emitted.
struct Circuit<'a> {
    env: &'a Env,
    circuit: KeptCircuit,
    storage: Rc<dyn Storage>,
    service: Vec<u8>,
    config: &'a Config,
    events: RefCell<Vec<Event>>,
}

impl Circuit<'_> {
    /// The storages of the suite expire by its clock, which is the breakers'
    /// clock too: as a `CircuitBreaker` on the system clock, one read serves both.
    fn breaker(&self) -> Breaker<'_> {
        Breaker {
            config: self.config,
            circuit: &self.circuit,
            storage_clock: true,
        }
    }

    fn acquire(&self) -> Permission {
        let now = self.env.clock.get();
        let unlimited = self.config.max_concurrent_calls.is_none() && self.config.throttling.is_none();
        if self.env.backend.quiet_calls() && unlimited && self.breaker().acquire_closed(now) {
            return Permission::Permitted;
        }
        let mut events = Vec::new();
        let permission = self.breaker().acquire(now, &mut |event| events.push(event));
        self.events.borrow_mut().extend(events);
        permission
    }

    fn register(&self, outcome: Outcome, duration_ms: Option<Millis>) {
        let now = self.env.clock.get();
        let mut events = Vec::new();
        let breaker = self.breaker();
        if self.env.backend.quiet_calls() && self.config.throttling.is_none() && self.circuit.is_shared_memory() {
            let left = breaker.record_quietly(outcome, duration_ms, now);
            breaker.register_recorded(left, now, &mut |event| events.push(event));
        } else {
            breaker.register(outcome, duration_ms, now, &mut |event| events.push(event));
        }
        self.events.borrow_mut().extend(events);
    }

    fn fail(&self, times: usize) {
        (0..times).for_each(|_| self.register(Outcome::Failure, None));
    }

    fn succeed(&self, times: usize) {
        (0..times).for_each(|_| self.register(Outcome::Success, None));
    }

    fn state(&self) -> Phase {
        self.breaker().state(self.env.clock.get()).expect("the state reads")
    }

    fn command(&self, command: Command) {
        let mut events = Vec::new();
        self.breaker()
            .command(command, self.env.clock.get(), &mut |event| events.push(event))
            .expect("the command is stored");
        self.events.borrow_mut().extend(events);
        self.env.backend.command_stored(&self.service);
    }

    fn status(&self) -> (Status, Vec<u64>) {
        self.breaker().status(self.env.clock.get()).expect("the status reads")
    }

    /// The open durations of the openings this breaker emitted, in ms.
    fn open_durations(&self) -> Vec<Millis> {
        self.events
            .borrow()
            .iter()
            .filter_map(|event| match event {
                Event::Opened { open_duration_ms, .. } => Some(*open_duration_ms),
                _ => None,
            })
            .collect()
    }

    /// The transitions this breaker emitted, in order. Any storage failure
    /// fails the test: the suite runs on healthy storages.
    fn transitions(&self) -> Vec<&'static str> {
        self.events
            .borrow()
            .iter()
            .filter_map(|event| match event {
                Event::Opened { .. } => Some("opened"),
                Event::HalfOpened => Some("half_opened"),
                Event::Closed => Some("closed"),
                Event::Forced { phase: Phase::Open, .. } => Some("forced_open"),
                Event::Forced { .. } => Some("forced_closed"),
                Event::Reset => Some("reset"),
                Event::ClockAhead { .. } => Some("clock_ahead"),
                Event::Rejected { .. } => None,
                Event::StorageFailed(error) => panic!("storage failed: {error}"),
                Event::StorageRecovered => panic!("storage recovered: it never failed"),
            })
            .collect()
    }

    fn rejections(&self) -> usize {
        let events = self.events.borrow();
        events
            .iter()
            .filter(|event| matches!(event, Event::Rejected { .. }))
            .count()
    }
}

const OPEN_MS: Millis = 10_000;
const HALF_OPEN_MS: Millis = 30_000;

/// Window `window` s, opens at 50% failures with at least 4 outcomes,
/// open 10 s, then `permitted` trial calls within 30 s.
fn failure_rate(window: f64, permitted: i64) -> Config {
    Config::new(
        window,
        vec![OpeningRule::failure_rate(50.0, 4).unwrap()],
        OPEN_MS as f64 / 1_000.0,
        HalfOpenPolicy::permitted_calls(HALF_OPEN_MS as f64 / 1_000.0, permitted).unwrap(),
    )
    .unwrap()
}

fn rejected_open(retry_after_ms: Millis) -> Permission {
    Permission::Rejected {
        phase: Phase::Open,
        retry_after_ms: Some(retry_after_ms),
        reason: Rejection::Circuit,
    }
}

const REJECTED_HALF_OPEN: Permission = Permission::Rejected {
    phase: Phase::HalfOpen,
    retry_after_ms: None,
    reason: Rejection::Circuit,
};

/// Closed opens when a rule reaches its threshold with at least its
/// minimum of outcomes, and names the cause.
pub fn opens_at_threshold_with_minimum(env: &Env) {
    let config = failure_rate(10.0, 1);
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.succeed(2);
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Closed, "3 outcomes: below the minimum of 4");
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open, "2 failures of 4 reach 50%");
    assert_eq!(circuit.transitions(), ["opened"]);
    match &circuit.events.borrow()[0] {
        Event::Opened { previous, cause, .. } => {
            assert_eq!(*previous, Phase::Closed);
            assert_eq!((cause.rule_index, cause.matching, cause.evaluated), (0, 2, 4));
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// An open circuit rejects every call with the time left, then tests the
/// service at `openedAt + openDuration`.
pub fn rejects_with_retry_after(env: &Env) {
    let config = failure_rate(10.0, 1);
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.fail(4);
    assert_eq!(circuit.acquire(), rejected_open(OPEN_MS));
    env.sleep(OPEN_MS - 1);
    assert_eq!(circuit.acquire(), rejected_open(1));
    assert_eq!(circuit.rejections(), 2);
    env.sleep(1);
    assert_eq!(circuit.state(), Phase::HalfOpen);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    assert_eq!(circuit.transitions(), ["opened", "half_opened"]);
}

/// Half-open admits its permitted calls and rejects the others; it closes
/// once they all succeeded, and reopens at the first failure.
pub fn half_open_admits_then_closes_or_reopens(env: &Env) {
    let config = failure_rate(10.0, 2);
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.fail(4);
    env.sleep(OPEN_MS);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    assert_eq!(circuit.acquire(), REJECTED_HALF_OPEN);
    circuit.succeed(1);
    assert_eq!(circuit.state(), Phase::HalfOpen, "1 of 2 trial calls reported");
    circuit.succeed(1);
    assert_eq!(circuit.state(), Phase::Closed);
    assert_eq!(circuit.transitions(), ["opened", "half_opened", "closed"]);

    circuit.fail(4);
    env.sleep(OPEN_MS);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open);
    let events = circuit.events.borrow();
    let Some(Event::Opened { previous, .. }) = events.iter().rev().find(|event| matches!(event, Event::Opened { .. }))
    else {
        panic!("reopened");
    };
    assert_eq!(*previous, Phase::HalfOpen);
    drop(events);
    assert_eq!(
        circuit.transitions(),
        ["opened", "half_opened", "closed", "opened", "half_opened", "opened"]
    );
}

/// Each state counts only its own outcomes: late outcomes while open
/// change nothing, a late failure counts for the half-open state, which
/// never sees the failures that opened the circuit, and closed starts afresh.
pub fn generations_count_late_outcomes_for_the_current_state(env: &Env) {
    let config = failure_rate(10.0, 2);
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.fail(4);
    circuit.succeed(3);
    circuit.fail(3);
    assert_eq!(circuit.transitions(), ["opened"], "late outcomes while open");
    env.sleep(OPEN_MS);
    // A call started before the circuit opened fails only now.
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open);
    assert_eq!(circuit.transitions(), ["opened", "half_opened", "opened"]);
    env.sleep(OPEN_MS);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    circuit.succeed(1);
    assert_eq!(
        circuit.state(),
        Phase::HalfOpen,
        "the failures that opened are not seen"
    );
    assert_eq!(circuit.acquire(), Permission::Permitted);
    circuit.succeed(1);
    assert_eq!(circuit.state(), Phase::Closed);
    circuit.fail(3);
    assert_eq!(
        circuit.state(),
        Phase::Closed,
        "closed starts afresh: 3 below the minimum"
    );
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open);
}

/// Durations fall in bands: slow calls open a slow-call rule, outcomes
/// without a duration do not dilute it, and failure-or-slow counts both.
pub fn slow_calls_fall_in_their_bands(env: &Env) {
    let config = Config::new(
        30.0,
        vec![
            OpeningRule::failure_rate(50.0, 10).unwrap(),
            OpeningRule::slow_call_rate(2.0, 80.0, 5).unwrap(),
        ],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let circuit = env.circuit(b"", b"slow", &config);
    for _ in 0..4 {
        circuit.register(Outcome::Success, Some(2_000));
    }
    circuit.succeed(30);
    assert_eq!(circuit.state(), Phase::Closed);
    circuit.register(Outcome::Success, Some(1_999));
    assert_eq!(circuit.state(), Phase::Open);
    match &circuit.events.borrow()[0] {
        Event::Opened { cause, .. } => assert_eq!((cause.rule_index, cause.matching, cause.evaluated), (1, 4, 5)),
        other => panic!("unexpected {other:?}"),
    }

    let config = Config::new(
        30.0,
        vec![OpeningRule::failure_or_slow_call_rate(1.0, 50.0, 4).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let circuit = env.circuit(b"", b"failure-or-slow", &config);
    circuit.register(Outcome::Success, Some(1_000));
    circuit.register(Outcome::Success, Some(999));
    circuit.register(Outcome::Success, None);
    assert_eq!(circuit.state(), Phase::Closed);
    circuit.register(Outcome::Failure, Some(10));
    assert_eq!(circuit.state(), Phase::Open, "1 slow success and 1 failure of 4");
}

/// A run of failures opens whatever the window holds; a success ends it.
pub fn consecutive_failures_open_whatever_the_window_holds(env: &Env) {
    let config = Config::new(
        60.0,
        vec![
            OpeningRule::failure_rate(50.0, 10).unwrap(),
            OpeningRule::consecutive_failures(3).unwrap(),
        ],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.succeed(200);
    circuit.fail(2);
    circuit.succeed(1);
    circuit.fail(2);
    assert_eq!(circuit.state(), Phase::Closed);
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open);
    match &circuit.events.borrow()[0] {
        Event::Opened { cause, .. } => assert_eq!(cause.rule_index, 1),
        other => panic!("unexpected {other:?}"),
    }
}

/// A count covers every bucket spanning the last `timeWindow` seconds:
/// an outcome 9.9 s old counts in a 10 s window, one a window and a bucket
/// old does not.
pub fn the_window_covers_the_last_time_window_seconds(env: &Env) {
    let config = failure_rate(10.0, 1);
    let cases: [(&[u8], Millis, Phase); 4] = [
        (b"9.9 s", 9_900, Phase::Open),
        (b"10 s", 10_000, Phase::Open),
        (b"10.4 s", 10_400, Phase::Open),
        (b"11 s", 11_000, Phase::Closed),
    ];
    for (service, age, expected) in cases {
        // Half way into a one-second bucket.
        env.align(1_000, 500);
        let circuit = env.circuit(b"", service, &config);
        circuit.fail(3);
        env.sleep(age);
        circuit.fail(1);
        assert_eq!(circuit.state(), expected, "3 failures {age} ms old in a 10 s window");
    }
    let config = failure_rate(600.0, 1);
    env.align(10_000, 5_000);
    let circuit = env.circuit(b"", b"600 s", &config);
    circuit.fail(3);
    env.sleep(595_000);
    circuit.fail(1);
    assert_eq!(circuit.state(), Phase::Open, "595 s old in a 600 s window");
}

/// After a long silence, the first call finds the circuit closed and emits
/// `CircuitClosed`, once: a state that is not closed is kept a day past the
/// moment time ends it.
pub fn a_long_silence_closes_with_one_event(env: &Env) {
    let config = failure_rate(10.0, 1);
    let open = env.circuit(b"", b"open", &config);
    open.fail(4);
    let half_open = env.circuit(b"", b"half-open", &config);
    half_open.fail(4);
    env.sleep(OPEN_MS);
    assert_eq!(half_open.state(), Phase::HalfOpen);
    assert_eq!(half_open.acquire(), Permission::Permitted);
    for (circuit, due_in) in [(&open, HALF_OPEN_MS), (&half_open, HALF_OPEN_MS)] {
        if let Some(ttl) = env.backend.state_ttl_ms(b"", &circuit.service) {
            // Real time passed since the state was stored: a minute of slack.
            assert!(
                ttl >= due_in + KEEP_DUE_STATE_MS - 60_000,
                "the state is kept {ttl} ms, due in {due_in} ms"
            );
        }
    }
    env.sleep(HALF_OPEN_MS + KEEP_DUE_STATE_MS - 60_000);
    for circuit in [&open, &half_open] {
        let before = circuit.transitions();
        assert_eq!(circuit.state(), Phase::Closed);
        assert_eq!(circuit.transitions(), before, "getState() changes nothing");
        assert_eq!(circuit.acquire(), Permission::Permitted);
        let after = [before.clone(), vec!["closed"]].concat();
        assert_eq!(circuit.transitions(), after);
        let other = env.circuit(b"", &circuit.service, &config);
        assert_eq!(other.acquire(), Permission::Permitted);
        assert_eq!(circuit.acquire(), Permission::Permitted);
        assert_eq!(other.transitions(), Vec::<&str>::new(), "emitted once");
        assert_eq!(circuit.transitions(), after);
    }
}

/// Any bytes are a service name, and names that an encoding could confuse
/// stay apart.
pub fn odd_names_are_circuits_of_their_own(env: &Env) {
    let config = failure_rate(10.0, 1);
    let names: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\0\xff\n \t:".to_vec(),
        b"{braces}".to_vec(),
        b"%7Bbraces%7D".to_vec(),
        b"a}b{c".to_vec(),
        "café".as_bytes().to_vec(),
        vec![b'x'; 1_000],
        [vec![b'x'; 999], b"y".to_vec()].concat(),
    ];
    let storage = env.backend.storage(b"");
    for (index, name) in names.iter().enumerate() {
        env.circuit_on(storage.clone(), name, &config).fail(4);
        for (other, other_name) in names.iter().enumerate() {
            let expected = if other <= index { Phase::Open } else { Phase::Closed };
            assert_eq!(
                env.circuit_on(storage.clone(), other_name, &config).state(),
                expected,
                "{:?} after opening {:?}",
                String::from_utf8_lossy(&other_name[..other_name.len().min(20)]),
                String::from_utf8_lossy(&name[..name.len().min(20)]),
            );
        }
    }
}

/// Prefixes separate applications, even when prefix and service glued
/// together read the same.
pub fn prefixes_isolate_applications(env: &Env) {
    let config = failure_rate(10.0, 1);
    let shop = env.circuit(b"shop", b"api", &config);
    let shopa = env.circuit(b"shopa", b"pi", &config);
    let bare = env.circuit(b"", b"shopapi", &config);
    let same_service = env.circuit(b"blog", b"api", &config);
    shop.fail(4);
    assert_eq!(shop.acquire(), rejected_open(OPEN_MS));
    for other in [&shopa, &bare, &same_service] {
        assert_eq!(other.acquire(), Permission::Permitted);
        assert_eq!(other.state(), Phase::Closed);
        other.succeed(1);
        assert_eq!(other.transitions(), Vec::<&str>::new());
    }
}

/// Each transition is emitted once, by the breaker that stored it, however
/// many storage objects (workers) share the circuit.
pub fn transitions_are_emitted_once_across_storage_objects(env: &Env) {
    let config = failure_rate(10.0, 2);
    let first = env.circuit(b"", b"payments", &config);
    let second = env.circuit(b"", b"payments", &config);
    assert_eq!(first.acquire(), Permission::Permitted);
    assert_eq!(second.acquire(), Permission::Permitted);
    first.fail(2);
    second.fail(2);
    assert_eq!(first.state(), Phase::Open);
    assert!(matches!(first.acquire(), Permission::Rejected { .. }));
    assert!(matches!(second.acquire(), Permission::Rejected { .. }));
    env.sleep(OPEN_MS);
    assert_eq!(second.acquire(), Permission::Permitted);
    assert_eq!(first.acquire(), Permission::Permitted);
    assert_eq!(first.acquire(), REJECTED_HALF_OPEN, "the two trial calls are taken");
    first.succeed(1);
    second.succeed(1);
    assert_eq!(first.state(), Phase::Closed);
    let all = [first.transitions(), second.transitions()].concat();
    let count = |name| all.iter().filter(|&&event| event == name).count();
    assert_eq!((count("opened"), count("half_opened"), count("closed")), (1, 1, 1));
}

/// Breakers of one service with different rules (and so a different
/// number of counters) share its circuit without failing or losing counts.
pub fn breakers_with_different_rules_share_a_circuit(env: &Env) {
    let plain = failure_rate(10.0, 1);
    let slow = Config::new(
        10.0,
        vec![
            OpeningRule::slow_call_rate(1.0, 50.0, 4).unwrap(),
            OpeningRule::slow_call_rate(2.0, 90.0, 4).unwrap(),
        ],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let storage = env.backend.storage(b"");
    let slow_breaker = env.circuit_on(storage.clone(), b"mixed", &slow);
    let plain_breaker = env.circuit_on(storage, b"mixed", &plain);
    // The breaker with fewer counters first makes the bucket.
    plain_breaker.succeed(1);
    slow_breaker.register(Outcome::Success, Some(1_500));
    plain_breaker.succeed(1);
    slow_breaker.register(Outcome::Success, Some(1_500));
    slow_breaker.register(Outcome::Success, Some(100));
    assert_eq!(
        slow_breaker.state(),
        Phase::Closed,
        "3 timed outcomes: below the minimum"
    );
    slow_breaker.register(Outcome::Success, Some(100));
    assert_eq!(slow_breaker.state(), Phase::Open, "2 slow of 4 timed ones");
    assert_eq!(slow_breaker.transitions(), ["opened"]);
    assert_eq!(plain_breaker.transitions(), Vec::<&str>::new());
}

/// A ramp permits a growing share of calls, evenly spread, and closes
/// after its duration.
pub fn a_ramp_permits_a_growing_share_then_closes(env: &Env) {
    let policy = HalfOpenPolicy::ramp(60.0, PowerCurve::new(0.1, 1.0).unwrap()).unwrap();
    let config = Config::new(60.0, vec![OpeningRule::failure_rate(50.0, 4).unwrap()], 10.0, policy).unwrap();
    let circuit = env.circuit(b"", b"ramp", &config);
    circuit.fail(4);
    env.sleep(OPEN_MS);
    let permitted = (0..100).filter(|_| circuit.acquire() == Permission::Permitted).count();
    assert_eq!(permitted, 10);
    env.sleep(30_000); // half way: 10% + 90% * 0.5 = 55%
    let permitted = (0..100).filter(|_| circuit.acquire() == Permission::Permitted).count();
    assert_eq!(permitted, 55);
    circuit.succeed(20);
    assert_eq!(circuit.state(), Phase::HalfOpen);
    env.sleep(30_000);
    assert_eq!(circuit.state(), Phase::Closed);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    assert_eq!(circuit.transitions(), ["opened", "half_opened", "closed"]);
}

/// Half-open closes at its maximum duration when some trial calls never
/// report; `getState()` shows what is due without storing it.
pub fn half_open_closes_at_its_maximum_duration(env: &Env) {
    let config = failure_rate(10.0, 3);
    let circuit = env.circuit(b"", b"payments", &config);
    circuit.fail(4);
    env.sleep(OPEN_MS);
    assert_eq!(circuit.state(), Phase::HalfOpen);
    assert_eq!(circuit.transitions(), ["opened"], "getState() changes nothing");
    for _ in 0..3 {
        assert_eq!(circuit.acquire(), Permission::Permitted);
    }
    circuit.succeed(2);
    env.sleep(HALF_OPEN_MS - 1);
    assert_eq!(circuit.state(), Phase::HalfOpen);
    env.sleep(1);
    assert_eq!(circuit.state(), Phase::Closed);
    assert_eq!(circuit.transitions(), ["opened", "half_opened"]);
    assert_eq!(circuit.acquire(), Permission::Permitted);
    assert_eq!(circuit.transitions(), ["opened", "half_opened", "closed"]);
}

/// Every window size (10 s to 3600 s, up to 60 buckets) counts an outcome
/// exactly one window old, and drops it a window and a bucket later.
pub fn every_window_size_covers_its_span(env: &Env) {
    for (window, bucket) in [
        (10.0, 1_000),
        (30.0, 1_000),
        (90.0, 1_500),
        (600.0, 10_000),
        (3_600.0, 60_000),
    ] {
        let config = failure_rate(window, 1);
        let window_ms = (window * 1_000.0) as Millis;
        for (later, expected) in [(window_ms, Phase::Open), (window_ms + bucket, Phase::Closed)] {
            // At the start of a bucket: the first failures are as old as can be.
            env.align(bucket, 0);
            let circuit = env.circuit(b"", format!("{window} s, {later} ms").as_bytes(), &config);
            circuit.fail(3);
            env.sleep(later);
            circuit.fail(1);
            assert_eq!(
                circuit.state(),
                expected,
                "window {window} s, 3 failures {later} ms old"
            );
        }
    }
}

/// Each reopening from half-open doubles the open duration up to the
/// maximum; closing starts again from the configured one. Every storage
/// object agrees, as the level lives in the stored state.
pub fn backoff_doubles_the_open_duration_up_to_its_maximum(env: &Env) {
    let config = failure_rate(10.0, 1).with_max_open_duration(Some(40.0)).unwrap();
    let circuit = env.circuit(b"", b"payments", &config);
    let other_worker = env.circuit(b"", b"payments", &config);
    circuit.fail(4);
    for wait in [10_000, 20_000, 40_000, 40_000] {
        assert_eq!(circuit.acquire(), rejected_open(wait));
        assert_eq!(other_worker.acquire(), rejected_open(wait), "every worker agrees");
        assert_eq!(circuit.status().0.open_duration_ms, Some(wait));
        env.sleep(wait - 1);
        assert_eq!(circuit.acquire(), rejected_open(1));
        env.sleep(1);
        assert_eq!(circuit.acquire(), Permission::Permitted, "the trial call");
        if wait == 40_000 && circuit.open_durations().len() == 4 {
            circuit.succeed(1);
        } else {
            circuit.fail(1);
        }
    }
    assert_eq!(circuit.state(), Phase::Closed, "a success closes");
    assert_eq!(circuit.open_durations(), [10_000, 20_000, 40_000, 40_000]);
    circuit.fail(4);
    assert_eq!(circuit.acquire(), rejected_open(10_000), "closing reset the backoff");
    assert_eq!(circuit.open_durations(), [10_000, 20_000, 40_000, 40_000, 10_000]);
    assert_eq!(
        circuit.transitions(),
        [
            "opened",
            "half_opened",
            "opened",
            "half_opened",
            "opened",
            "half_opened",
            "opened",
            "half_opened",
            "closed",
            "opened"
        ]
    );
}

/// `forceOpen`: no call passes for its duration whatever the outcomes,
/// on every storage object; then the circuit is closed with a fresh window.
pub fn forced_open_rejects_every_call_until_it_ends(env: &Env) {
    let config = failure_rate(10.0, 1);
    let operator = env.operator(b"", b"payments", &config);
    let worker = env.circuit(b"", b"payments", &config);
    worker.fail(3);
    operator.command(Command::ForceOpen(60_000));
    assert_eq!(operator.transitions(), ["forced_open"]);
    assert_eq!(worker.acquire(), rejected_open(60_000));
    assert_eq!(worker.state(), Phase::Open);
    worker.succeed(10);
    env.sleep(59_999);
    assert_eq!(worker.acquire(), rejected_open(1), "outcomes change nothing");
    env.sleep(1);
    assert_eq!(worker.state(), Phase::Closed);
    assert_eq!(worker.acquire(), Permission::Permitted);
    assert_eq!(worker.transitions(), ["closed"], "the end of the forced state, once");
    worker.fail(3);
    assert_eq!(
        worker.state(),
        Phase::Closed,
        "a fresh window: the 3 earlier failures are gone"
    );
    worker.fail(1);
    assert_eq!(worker.state(), Phase::Open);
}

/// A server whose clock runs ahead (a VM whose NTP died) writes states
/// that start, or end, in the others' future: each reader bounds them by
/// its own clock, an open state to its open duration from its now, a forced
/// one to 30 days; one reader stores the bound, once.
pub fn a_clock_ahead_holds_a_state_no_longer_than_its_duration(env: &Env) {
    const HOUR: Millis = 3_600_000;
    const THIRTY_DAYS: Millis = 30 * 24 * HOUR;
    let config = failure_rate(10.0, 1);
    let ahead = env.circuit(b"", b"payments", &config);
    let here = env.circuit(b"", b"payments", &config);
    let other = env.circuit(b"", b"payments", &config);
    let now = env.clock.get();
    env.clock.set(now + HOUR);
    ahead.fail(4);
    assert_eq!(ahead.state(), Phase::Open);
    env.clock.set(now);
    assert_eq!(
        here.acquire(),
        rejected_open(OPEN_MS),
        "open for its duration from now, not an hour more"
    );
    assert_eq!(other.acquire(), rejected_open(OPEN_MS));
    env.sleep(OPEN_MS);
    assert_eq!(other.acquire(), Permission::Permitted, "the trial call, on time");
    other.succeed(1);
    assert_eq!(here.state(), Phase::Closed);
    let clamps = [here.transitions(), other.transitions()].concat();
    assert_eq!(
        clamps.iter().filter(|&&event| event == "clock_ahead").count(),
        1,
        "{clamps:?}"
    );

    // A forced state ending ten years from now, by a clock ten years ahead.
    let now = env.clock.get();
    let far = env.operator(b"", b"payments", &config);
    env.clock.set(now + 87_600 * HOUR);
    far.command(Command::ForceOpen(THIRTY_DAYS));
    env.clock.set(now);
    assert_eq!(here.acquire(), rejected_open(THIRTY_DAYS));
    env.sleep(THIRTY_DAYS);
    assert_eq!(
        here.acquire(),
        Permission::Permitted,
        "ended 30 days after it was bounded"
    );
}

/// `forceClosed`: every call passes for its duration; outcomes are counted
/// but open nothing. Then a fresh window, without any event.
pub fn forced_closed_counts_but_opens_nothing(env: &Env) {
    let config = failure_rate(10.0, 1);
    let worker = env.circuit(b"", b"payments", &config);
    worker.fail(4);
    assert_eq!(worker.state(), Phase::Open);
    assert_eq!(worker.acquire(), rejected_open(OPEN_MS), "remembered open");
    let operator = env.operator(b"", b"payments", &config);
    operator.command(Command::ForceClosed(30_000));
    env.sleep(TRUST_REMEMBERED_OPEN_MS);
    assert_eq!(
        worker.acquire(),
        Permission::Permitted,
        "forced closed, even with the open state remembered"
    );
    worker.fail(20);
    assert_eq!(worker.state(), Phase::Closed);
    assert_eq!(worker.acquire(), Permission::Permitted);
    let (status, window) = worker.status();
    assert!(status.forced);
    assert_eq!(window.iter().sum::<u64>(), 20, "outcomes are counted");
    env.sleep(30_000);
    assert_eq!(worker.acquire(), Permission::Permitted);
    assert!(!worker.status().0.forced);
    assert_eq!(worker.status().1.iter().sum::<u64>(), 0, "a fresh window");
    assert_eq!(
        worker.transitions(),
        ["opened"],
        "the end of forced closed emits nothing"
    );
    worker.fail(4);
    assert_eq!(worker.state(), Phase::Open, "rules apply again");
}

/// `reset`: closed now with a fresh window, from any state, forced or not;
/// only the process that stored it emits `Reset`.
pub fn reset_closes_with_a_fresh_window(env: &Env) {
    let config = failure_rate(10.0, 1).with_max_open_duration(Some(40.0)).unwrap();
    let worker = env.circuit(b"", b"payments", &config);
    let operator = env.operator(b"", b"payments", &config);
    worker.fail(4);
    assert_eq!(worker.acquire(), rejected_open(OPEN_MS));
    env.sleep(OPEN_MS);
    assert_eq!(worker.acquire(), Permission::Permitted);
    worker.fail(1);
    assert_eq!(worker.acquire(), rejected_open(20_000), "backoff level 1");
    operator.command(Command::Reset);
    // A worker of another server may trust what it remembers a while.
    env.sleep(TRUST_REMEMBERED_OPEN_MS);
    assert_eq!(
        worker.acquire(),
        Permission::Permitted,
        "the reset reaches a worker that saw it open"
    );
    assert_eq!(worker.state(), Phase::Closed);
    worker.fail(3);
    assert_eq!(worker.state(), Phase::Closed, "a fresh window");
    worker.fail(1);
    assert_eq!(worker.acquire(), rejected_open(OPEN_MS), "the reset ended the backoff");
    operator.command(Command::ForceOpen(3_600_000));
    operator.command(Command::Reset);
    env.sleep(TRUST_REMEMBERED_OPEN_MS);
    assert_eq!(worker.acquire(), Permission::Permitted, "a reset ends a forced state");
    assert_eq!(operator.transitions(), ["reset", "forced_open", "reset"]);
    assert_eq!(
        worker.transitions(),
        ["opened", "half_opened", "opened", "opened"],
        "commands are emitted by the operator alone"
    );
}

/// The status of a breaker: the state the next call finds, since and until
/// when, its open duration, and the window as its rules count it.
pub fn status_tells_state_times_and_window(env: &Env) {
    let config = Config::new(
        30.0,
        vec![
            OpeningRule::failure_rate(50.0, 10).unwrap(),
            OpeningRule::slow_call_rate(2.0, 80.0, 10).unwrap(),
        ],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let circuit = env.circuit(b"", b"payments", &config);
    let (status, window) = circuit.status();
    assert_eq!(
        (status.phase, status.forced, status.since, status.until),
        (Phase::Closed, false, None, None)
    );
    assert_eq!(window.iter().sum::<u64>(), 0);
    circuit.register(Outcome::Success, Some(2_500));
    circuit.register(Outcome::Failure, Some(100));
    circuit.register(Outcome::Success, None);
    let (_, window) = circuit.status();
    let counts = circuit_breaker::core::counts::WindowCounts {
        bands: &config.bands,
        slots: &window,
    };
    assert_eq!(
        (counts.total(), counts.failures(), counts.slow(Outcome::Success, 2_000)),
        (3, 1, 1)
    );
    let opened_at = env.clock.get();
    circuit.fail(7);
    let (status, window) = circuit.status();
    assert_eq!(status.phase, Phase::Open);
    assert_eq!(
        (status.since, status.until),
        (Some(opened_at), Some(opened_at + 10_000))
    );
    assert_eq!(status.open_duration_ms, Some(10_000));
    assert_eq!(window.iter().sum::<u64>(), 0, "the open state counts nothing yet");
    env.sleep(10_000);
    let (status, _) = circuit.status();
    assert_eq!(
        (status.phase, status.since, status.until),
        (Phase::HalfOpen, Some(opened_at + 10_000), None)
    );
    assert_eq!(circuit.transitions(), ["opened"], "a status changes nothing");
    circuit.command(Command::ForceClosed(60_000));
    let (status, _) = circuit.status();
    let now = env.clock.get();
    assert_eq!(
        (status.phase, status.forced, status.since, status.until),
        (Phase::Closed, true, Some(now), Some(now + 60_000))
    );
}

/// A listing shows every circuit of its storage's prefix whose service
/// starts with the given one, with what its stored state says, no
/// configuration at hand.
pub fn listings_show_every_circuit_without_configuration(env: &Env) {
    let config = failure_rate(10.0, 1).with_max_open_duration(Some(40.0)).unwrap();
    let storage = env.backend.storage(b"app:");
    let listed = storage.list_circuits(b"");
    if !env.backend.lists_circuits() {
        assert!(matches!(listed, Err(StorageError::Unsupported(_))), "{listed:?}");
        return;
    }
    assert_eq!(listed.unwrap(), [], "nothing yet");
    let open = env.circuit_on(storage.clone(), b"svc-open", &config);
    let forced = env.circuit_on(storage.clone(), b"svc-forced", &config);
    let closed = env.circuit_on(storage.clone(), b"other closed", &config);
    env.circuit(b"other-app:", b"svc-elsewhere", &config).fail(4);
    open.fail(4);
    let opened_at = env.clock.get();
    forced.command(Command::ForceOpen(120_000));
    closed.succeed(1);
    let now = env.clock.get();
    let mut listed: Vec<(Vec<u8>, Status)> = storage
        .list_circuits(b"")
        .unwrap()
        .into_iter()
        .map(|(service, state)| (service, status_without_config(state, now)))
        .collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<&[u8]> = listed.iter().map(|(service, _)| service.as_slice()).collect();
    assert_eq!(names, [&b"other closed"[..], b"svc-forced", b"svc-open"]);
    let (closed, forced, open) = (listed[0].1, listed[1].1, listed[2].1);
    assert_eq!(
        (closed.phase, closed.forced, closed.until),
        (Phase::Closed, false, None)
    );
    assert_eq!(
        (forced.phase, forced.forced, forced.until),
        (Phase::Open, true, Some(now + 120_000))
    );
    assert_eq!(
        (open.phase, open.since, open.until, open.open_duration_ms),
        (Phase::Open, Some(opened_at), Some(opened_at + 10_000), Some(10_000))
    );
    let only: Vec<Vec<u8>> = storage
        .list_circuits(b"svc-")
        .unwrap()
        .into_iter()
        .map(|(service, _)| service)
        .collect();
    assert_eq!(only.len(), 2, "{only:?}");
    env.sleep(10_000);
    let open = storage
        .list_circuits(b"svc-open")
        .unwrap()
        .into_iter()
        .map(|(_, state)| status_without_config(state, env.clock.get()))
        .next()
        .unwrap();
    assert_eq!(open.phase, Phase::HalfOpen, "an open state past its end");
}

/// Where a storage keeps counters (shared memory, in memory), each call
/// counts once: permissions, outcomes, slow ones, and openings won by the
/// rules (not forced ones), across storage objects. Elsewhere they are
/// absent, never zero.
pub fn counters_count_calls_outcomes_and_openings(env: &Env) {
    let config = Config::new(
        10.0,
        vec![
            OpeningRule::failure_rate(50.0, 4).unwrap(),
            OpeningRule::slow_call_rate(2.0, 100.0, 1_000).unwrap(),
        ],
        OPEN_MS as f64 / 1_000.0,
        HalfOpenPolicy::permitted_calls(HALF_OPEN_MS as f64 / 1_000.0, 1).unwrap(),
    )
    .unwrap();
    let worker = env.circuit(b"app:", b"counted", &config);
    let other_worker = env.circuit(b"app:", b"counted", &config);
    let kept = worker.breaker().counters().expect("the counters read");
    if kept.is_none() {
        assert_eq!(other_worker.breaker().counters().unwrap(), None);
        if env.backend.lists_circuits() {
            worker.succeed(1);
            let listed = worker.storage.list_circuits_with_counters(b"").unwrap();
            assert!(listed.iter().all(|(_, _, counters)| counters.is_none()), "{listed:?}");
        }
        return;
    }
    assert_eq!(kept, Some(CallCounters::default()), "a circuit never used");
    let call = |circuit: &Circuit, outcome: Outcome, duration_ms: Millis| {
        if circuit.acquire() == Permission::Permitted {
            circuit.register(outcome, Some(duration_ms));
        }
    };
    call(&worker, Outcome::Success, 10);
    call(&other_worker, Outcome::Success, 2_000); // slow: at its duration
    call(&worker, Outcome::Failure, 2_500); // slow too
    call(&other_worker, Outcome::Success, 1_999);
    call(&worker, Outcome::Failure, 5);
    assert_eq!(worker.state(), Phase::Closed, "2 failures of 5");
    call(&worker, Outcome::Failure, 5);
    assert_eq!(worker.state(), Phase::Open, "3 failures of 6");
    call(&worker, Outcome::Success, 5); // rejected
    call(&other_worker, Outcome::Success, 5); // rejected
    let expected = CallCounters {
        calls_permitted: 6,
        calls_rejected: 2,
        successes: 3,
        failures: 3,
        slow_calls: 2,
        openings: 1,
    };
    assert_eq!(other_worker.breaker().counters().unwrap(), Some(expected));
    // Half-open, the trial fails: a second opening; then forced open: not one.
    env.sleep(OPEN_MS);
    call(&worker, Outcome::Failure, 5);
    assert_eq!(worker.state(), Phase::Open);
    worker.command(Command::ForceOpen(60_000));
    call(&worker, Outcome::Success, 5);
    let expected = CallCounters {
        calls_permitted: 7,
        calls_rejected: 3,
        failures: 4,
        openings: 2,
        ..expected
    };
    assert_eq!(worker.breaker().counters().unwrap(), Some(expected));
    if env.backend.lists_circuits() {
        env.circuit(b"app:", b"untouched", &config).state();
        let listed = worker.storage.list_circuits_with_counters(b"").unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!((&listed[0].0[..], listed[0].2), (&b"counted"[..], Some(expected)));
    }
}

/// Calls `then!` with the list of every behaviour, so that each runner
/// (a `#[test]` per behaviour, or one loop) runs them all.
macro_rules! behaviours {
    ($then:ident ! { $($arg:tt)* }) => {
        $then! { $($arg)* [
            opens_at_threshold_with_minimum,
            rejects_with_retry_after,
            half_open_admits_then_closes_or_reopens,
            generations_count_late_outcomes_for_the_current_state,
            slow_calls_fall_in_their_bands,
            consecutive_failures_open_whatever_the_window_holds,
            the_window_covers_the_last_time_window_seconds,
            every_window_size_covers_its_span,
            a_ramp_permits_a_growing_share_then_closes,
            half_open_closes_at_its_maximum_duration,
            a_long_silence_closes_with_one_event,
            odd_names_are_circuits_of_their_own,
            prefixes_isolate_applications,
            transitions_are_emitted_once_across_storage_objects,
            breakers_with_different_rules_share_a_circuit,
            backoff_doubles_the_open_duration_up_to_its_maximum,
            forced_open_rejects_every_call_until_it_ends,
            forced_closed_counts_but_opens_nothing,
            a_clock_ahead_holds_a_state_no_longer_than_its_duration,
            reset_closes_with_a_fresh_window,
            status_tells_state_times_and_window,
            listings_show_every_circuit_without_configuration,
            counters_count_calls_outcomes_and_openings
        ] }
    };
}
