//! Two or three "hosts" (each a segment of its own) over one fleet store in
//! memory, on a manual clock.

use std::cell::Cell;

use super::memory_store::MemoryFleetStore;
use super::sync::RETRY;
use super::*;
use crate::breaker::{Breaker, Event, Permission};
use crate::core::counts::Outcome;
use crate::core::half_open::HalfOpenPolicy;
use crate::core::rules::OpeningRule;
use crate::storage::memory::InMemoryStorage;
use crate::storage::net::backoff::backoff;
use crate::storage::shm::Segment;

const T0: Millis = 1_764_000_000_000;
const SYNC_MS: Millis = 200;

struct Fleet {
    clock: Rc<Cell<Millis>>,
    store: MemoryFleetStore,
}

impl Fleet {
    fn new() -> Self {
        let clock = Rc::new(Cell::new(T0));
        let store_clock = Rc::clone(&clock);
        Self {
            store: MemoryFleetStore::new(InMemoryStorage::new(Box::new(move || store_clock.get()))),
            clock,
        }
    }

    /// A host: a segment of its own, as a PHP-FPM master has.
    fn host(&self) -> Rc<FleetStorage> {
        let segment: &'static Segment = Box::leak(Box::new(Segment::create(1 << 20, 1.0).unwrap()));
        let clock = Rc::clone(&self.clock);
        let host = SharedMemoryStorage::new(segment, b"app:".to_vec(), Box::new(move || clock.get()));
        let clock = Rc::clone(&self.clock);
        Rc::new(FleetStorage::new(
            Rc::new(self.store.clone()),
            &host,
            SYNC_MS,
            Box::new(move || clock.get()),
        ))
    }

    fn advance(&self, ms: Millis) {
        self.clock.set(self.clock.get() + ms);
    }

    fn now(&self) -> Millis {
        self.clock.get()
    }
}

fn config() -> Config {
    Config::new(
        60.0,
        vec![OpeningRule::failure_rate(50.0, 10).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap()
}

/// Runs `run` on a breaker of `api` on `host`, made for the call, as PHP
/// code that makes one per request does.
fn with_breaker<T>(host: &Rc<FleetStorage>, config: &Config, run: impl FnOnce(&Breaker<'_>) -> T) -> T {
    let circuit = Rc::clone(host).circuit(b"api");
    run(&Breaker {
        config,
        circuit: &circuit,
        storage_clock: true,
    })
}

fn register(host: &Rc<FleetStorage>, config: &Config, outcome: Outcome, now: Millis) -> Vec<Event> {
    let mut events = Vec::new();
    with_breaker(host, config, |breaker| {
        breaker.register(outcome, None, now, &mut |event| events.push(event));
    });
    events
}

fn acquire(host: &Rc<FleetStorage>, config: &Config, now: Millis) -> (Permission, Vec<Event>) {
    let mut events = Vec::new();
    let permission = with_breaker(host, config, |breaker| {
        breaker.acquire(now, &mut |event| events.push(event))
    });
    (permission, events)
}

/// The window of generation 0 as `host`'s rules see it now.
fn window(host: &Rc<FleetStorage>, config: &Config, now: Millis) -> Vec<u64> {
    let circuit = Rc::clone(host).circuit(b"api");
    circuit.begin_call(Some(now));
    circuit
        .read_window(0, config.window, config.bands.slot_count(), now)
        .unwrap()
}

fn openings(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, Event::Opened { .. }))
        .count()
}

#[test]
fn failures_split_across_hosts_open_the_fleet_once_and_every_host_follows() {
    let fleet = Fleet::new();
    let config = config();
    let (first, second) = (fleet.host(), fleet.host());
    let mut events = Vec::new();
    // 4 failures + 2 successes on each host: neither reaches 10 requests
    // alone; together 12 requests, 8 failures.
    for host in [&first, &second] {
        for outcome in [Outcome::Failure, Outcome::Success, Outcome::Failure, Outcome::Failure] {
            events.extend(register(host, &config, outcome, fleet.now()));
        }
    }
    assert_eq!(openings(&events), 0, "no host knows the other's counts yet");
    fleet.advance(SYNC_MS);
    // Each host syncs at its next call; the second to sync sees both.
    for host in [&first, &second, &first] {
        events.extend(register(host, &config, Outcome::Failure, fleet.now()));
        fleet.advance(SYNC_MS);
    }
    assert_eq!(openings(&events), 1, "{events:?}");
    assert_eq!(fleet.store.load_state(b"api").unwrap().phase, Phase::Open);
    // Both hosts reject, the loser after its next sync at most.
    fleet.advance(SYNC_MS);
    for host in [&first, &second] {
        let (permission, events) = acquire(host, &config, fleet.now());
        assert!(
            matches!(permission, Permission::Rejected { phase: Phase::Open, .. }),
            "{permission:?}"
        );
        assert_eq!(openings(&events), 0);
    }
}

#[test]
fn calls_between_syncs_cost_no_round_trip() {
    let fleet = Fleet::new();
    let config = config();
    let host = fleet.host();
    for _ in 0..1_000 {
        acquire(&host, &config, fleet.now());
        register(&host, &config, Outcome::Success, fleet.now());
        fleet.advance(1);
    }
    // 1 000 ms at one sync per 200 ms, and the first call's.
    assert!(fleet.store.syncs() <= 6, "{} syncs", fleet.store.syncs());
    assert!(fleet.store.syncs() >= 5, "{} syncs", fleet.store.syncs());
}

#[test]
fn a_sync_sent_twice_counts_once() {
    let fleet = Fleet::new();
    let config = config();
    let (first, second) = (fleet.host(), fleet.host());
    for _ in 0..3 {
        register(&first, &config, Outcome::Failure, fleet.now());
    }
    // Three syncs of the same window: it stays three failures for the others.
    for _ in 0..3 {
        fleet.advance(SYNC_MS);
        acquire(&first, &config, fleet.now());
    }
    fleet.advance(SYNC_MS);
    register(&second, &config, Outcome::Success, fleet.now());
    let window = window(&second, &config, fleet.now());
    assert_eq!(window, vec![1, 3]);
}

#[test]
fn a_dead_store_degrades_each_host_once_and_recovery_is_said_once() {
    let fleet = Fleet::new();
    let config = config();
    let host = fleet.host();
    register(&host, &config, Outcome::Success, fleet.now());
    // The failure begins in a later bucket (of 1 s).
    fleet.advance(1_000);
    fleet.store.set_down(true);
    let mut events = Vec::new();
    // The host opens on its own failures while the store is down.
    for _ in 0..20 {
        events.extend(register(&host, &config, Outcome::Failure, fleet.now()));
        fleet.advance(50);
    }
    let failed = events
        .iter()
        .filter(|event| matches!(event, Event::StorageFailed(_)))
        .count();
    assert_eq!(failed, 1, "{events:?}");
    assert_eq!(openings(&events), 1, "the host alone opens: {events:?}");
    let (permission, _) = acquire(&host, &config, fleet.now());
    assert!(matches!(permission, Permission::Rejected { .. }));
    fleet.store.set_down(false);
    let mut events = Vec::new();
    for _ in 0..20 {
        events.extend(acquire(&host, &config, fleet.now()).1);
        fleet.advance(500);
    }
    let recovered = events
        .iter()
        .filter(|event| matches!(event, Event::StorageRecovered))
        .count();
    assert_eq!(recovered, 1, "{events:?}");
    assert!(!events.iter().any(|event| matches!(event, Event::StorageFailed(_))));
    // The host follows the fleet again (closed: no host made it open), and
    // the failures counted while degraded were not sent.
    assert_eq!(acquire(&host, &config, fleet.now()).0, Permission::Permitted);
    let other = fleet.host();
    fleet.advance(SYNC_MS);
    acquire(&host, &config, fleet.now());
    fleet.advance(SYNC_MS);
    register(&other, &config, Outcome::Success, fleet.now());
    let window = window(&other, &config, fleet.now());
    assert_eq!(
        window,
        vec![2, 0],
        "the other's success, and only the success before the failure"
    );
}

#[test]
fn the_backoff_of_a_degraded_host_doubles_up_to_eight_seconds() {
    assert_eq!(
        (1..=6)
            .map(|streak| backoff(RETRY, streak).as_millis() as Millis)
            .collect::<Vec<_>>(),
        vec![1_000, 2_000, 4_000, 8_000, 8_000, 8_000]
    );
}

#[test]
fn half_open_admissions_are_counted_fleet_wide() {
    let fleet = Fleet::new();
    let config = config();
    let (first, second) = (fleet.host(), fleet.host());
    for _ in 0..10 {
        register(&first, &config, Outcome::Failure, fleet.now());
    }
    assert_eq!(fleet.store.load_state(b"api").unwrap().phase, Phase::Open);
    fleet.advance(10_000);
    let mut permitted = 0;
    for host in [&first, &second, &first, &second] {
        if acquire(host, &config, fleet.now()).0 == Permission::Permitted {
            permitted += 1;
        }
    }
    assert_eq!(permitted, 1, "a single trial in the whole fleet");
}

#[test]
fn states_follow_the_fleet_beyond_the_generations_a_host_word_keeps() {
    let fleet = Fleet::new();
    let config = config();
    let host = fleet.host();
    let wide = CircuitState {
        generation: GENERATION_MASK + 5,
        since: fleet.now(),
        ..CircuitState::INITIAL
    };
    assert!(
        fleet
            .store
            .compare_and_set_state(b"api", CircuitState::INITIAL, wide, 60_000)
            .unwrap()
    );
    acquire(&host, &config, fleet.now());
    let mut events = Vec::new();
    for _ in 0..10 {
        events.extend(register(&host, &config, Outcome::Failure, fleet.now()));
    }
    assert_eq!(openings(&events), 1, "{events:?}");
    let stored = fleet.store.load_state(b"api").unwrap();
    assert_eq!((stored.phase, stored.generation), (Phase::Open, GENERATION_MASK + 6));
}

#[test]
fn a_store_that_forgot_the_circuit_gets_back_the_open_state_hosts_decided_alone() {
    let fleet = Fleet::new();
    let config = config();
    let (first, second) = (fleet.host(), fleet.host());
    for _ in 0..10 {
        register(&first, &config, Outcome::Failure, fleet.now());
    }
    fleet.advance(SYNC_MS);
    assert!(matches!(
        acquire(&second, &config, fleet.now()).0,
        Permission::Rejected { .. }
    ));
    let opened = fleet.store.load_state(b"api").unwrap();
    assert_eq!(opened.phase, Phase::Open);
    // The store goes down; both hosts keep deciding alone: at the end of
    // the open state each lets a trial through, which fails and reopens.
    fleet.store.set_down(true);
    fleet.advance(10_000);
    for host in [&first, &second] {
        assert_eq!(acquire(host, &config, fleet.now()).0, Permission::Permitted);
        register(host, &config, Outcome::Failure, fleet.now());
        assert!(matches!(
            acquire(host, &config, fleet.now()).0,
            Permission::Rejected { .. }
        ));
    }
    // It comes back empty, as a restarted server without persistence.
    fleet.store.set_down(false);
    assert!(
        fleet
            .store
            .compare_and_set_state(b"api", opened, CircuitState::INITIAL, 60_000)
            .unwrap()
    );
    // Each host finds the store at its next retry: the first writes back
    // its open state, the second follows it; neither takes the closed state
    // of the forgotten circuit, and both keep rejecting.
    let mut events = Vec::new();
    for _ in 0..10 {
        fleet.advance(1_000);
        for host in [&first, &second] {
            let (permission, emitted) = acquire(host, &config, fleet.now());
            assert!(matches!(permission, Permission::Rejected { .. }), "{permission:?}");
            events.extend(emitted);
        }
        if events
            .iter()
            .filter(|event| matches!(event, Event::StorageRecovered))
            .count()
            == 2
        {
            break;
        }
    }
    let recovered = events
        .iter()
        .filter(|event| matches!(event, Event::StorageRecovered))
        .count();
    assert_eq!(recovered, 2, "{events:?}");
    let restored = fleet.store.load_state(b"api").unwrap();
    assert_eq!(
        (restored.phase, restored.generation),
        (Phase::Open, opened.generation + 1)
    );
}

#[test]
fn a_host_cut_off_from_a_store_that_kept_the_circuit_follows_it() {
    let fleet = Fleet::new();
    let config = config();
    let (cut_off, other) = (fleet.host(), fleet.host());
    register(&other, &config, Outcome::Success, fleet.now());
    fleet.store.set_down(true);
    // Only the cut-off host calls while the store is unreachable: it opens alone.
    for _ in 0..10 {
        register(&cut_off, &config, Outcome::Failure, fleet.now());
    }
    assert!(matches!(
        acquire(&cut_off, &config, fleet.now()).0,
        Permission::Rejected { .. }
    ));
    fleet.store.set_down(false);
    // The store forgot nothing: its closed state is followed, not overwritten.
    fleet.advance(1_000);
    assert_eq!(acquire(&cut_off, &config, fleet.now()).0, Permission::Permitted);
    assert_eq!(fleet.store.load_state(b"api").unwrap().phase, Phase::Closed);
}

/// A host opens alone while the store is unreachable; the store kept the
/// circuit closed, and the host follows it when it answers again (at the
/// generation the host last followed). The last of the `failures` opens.
fn open_alone_then_follow_the_store(fleet: &Fleet, host: &Rc<FleetStorage>, config: &Config, failures: usize) {
    fleet.store.set_down(true);
    let mut events = Vec::new();
    for _ in 0..failures {
        events.extend(register(host, config, Outcome::Failure, fleet.now()));
    }
    assert_eq!(openings(&events), 1, "the host alone opens: {events:?}");
    fleet.store.set_down(false);
    fleet.advance(backoff(RETRY, 1).as_millis() as Millis);
    let (permission, events) = acquire(host, config, fleet.now());
    assert_eq!(
        permission,
        Permission::Permitted,
        "the store's closed state is followed"
    );
    assert!(
        events.iter().any(|event| matches!(event, Event::StorageRecovered)),
        "{events:?}"
    );
}

#[test]
fn a_host_back_from_deciding_alone_does_not_count_again_the_outcomes_it_opened_on() {
    let fleet = Fleet::new();
    let config = config();
    let host = fleet.host();
    register(&host, &config, Outcome::Success, fleet.now());
    fleet.advance(1_000);
    // 10 requests, 9 failures: the last one opens.
    open_alone_then_follow_the_store(&fleet, &host, &config, 9);
    // The service answers again: the host's window holds the success
    // before the outage and these, not the failures of the outage.
    fleet.advance(1_000);
    let mut events = Vec::new();
    for _ in 0..5 {
        events.extend(register(&host, &config, Outcome::Success, fleet.now()));
    }
    assert_eq!(openings(&events), 0, "{events:?}");
    assert_eq!(window(&host, &config, fleet.now()), vec![6, 0]);
}

#[test]
fn a_host_back_from_deciding_alone_starts_its_run_of_failures_again() {
    let fleet = Fleet::new();
    let config = Config::new(
        60.0,
        vec![OpeningRule::consecutive_failures(5).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let host = fleet.host();
    open_alone_then_follow_the_store(&fleet, &host, &config, 5);
    fleet.advance(1_000);
    let mut events = register(&host, &config, Outcome::Failure, fleet.now());
    assert_eq!(openings(&events), 0, "one failure after the outage: {events:?}");
    for _ in 0..4 {
        events.extend(register(&host, &config, Outcome::Failure, fleet.now()));
    }
    assert_eq!(openings(&events), 1, "five in a row after it: {events:?}");
}

#[test]
fn a_second_outage_within_the_window_keeps_the_first_one_excluded() {
    let fleet = Fleet::new();
    let config = config();
    let host = fleet.host();
    let other = fleet.host();
    for _ in 0..4 {
        register(&host, &config, Outcome::Success, fleet.now());
    }
    // The first outage: 3 failures, too few to open (7 requests).
    let outage = |failures: usize| {
        fleet.advance(1_000);
        fleet.store.set_down(true);
        for _ in 0..failures {
            register(&host, &config, Outcome::Failure, fleet.now());
        }
        fleet.store.set_down(false);
        fleet.advance(backoff(RETRY, 1).as_millis() as Millis);
        let (_, events) = acquire(&host, &config, fleet.now());
        assert!(
            events.iter().any(|event| matches!(event, Event::StorageRecovered)),
            "{events:?}"
        );
    };
    outage(3);
    fleet.advance(1_000);
    for _ in 0..3 {
        register(&host, &config, Outcome::Success, fleet.now());
    }
    // The second, seconds later: its failures and the first's are the host's alone.
    outage(1);
    fleet.advance(1_000);
    register(&host, &config, Outcome::Success, fleet.now());
    assert_eq!(window(&host, &config, fleet.now()), vec![8, 0], "the host's own view");
    fleet.advance(SYNC_MS);
    acquire(&host, &config, fleet.now());
    fleet.advance(SYNC_MS);
    register(&other, &config, Outcome::Success, fleet.now());
    assert_eq!(
        window(&other, &config, fleet.now()),
        vec![9, 0],
        "what the fleet was sent"
    );
}
