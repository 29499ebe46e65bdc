//! The composition over a HashMap that keeps the primitives' contract,
//! driven through the breaker on a manual clock.

use std::cell::Cell;
use std::rc::Rc;

use super::map_store::MapStore;
use super::*;
use crate::breaker::Breaker;
use crate::core::config::Config;
use crate::core::half_open::HalfOpenPolicy;
use crate::core::rules::OpeningRule;

const T0: Millis = 1_764_000_000_000;

fn storage(clock: &Rc<Cell<Millis>>) -> KvStorage<MapStore> {
    let store = MapStore::new(clock.clone());
    KvStorage::new(store, Box::new(|service| [b"test:".as_slice(), service].concat()))
}

fn config(rules: Vec<OpeningRule>) -> Config {
    Config::new(10.0, rules, 10.0, HalfOpenPolicy::permitted_calls(30.0, 1).unwrap()).unwrap()
}

#[test]
fn a_permitted_call_costs_one_read_before_and_one_increment_and_read_after() {
    let clock = Rc::new(Cell::new(T0));
    let storage = Rc::new(storage(&clock));
    let config = config(vec![OpeningRule::failure_rate(50.0, 4).unwrap()]);
    let breaker = Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"payments"),
        storage_clock: false,
    };
    breaker.acquire(T0, &mut |_| {});
    breaker.register(Outcome::Success, None, T0, &mut |_| {});
    storage.backend.calls.set(0);
    breaker.acquire(T0, &mut |_| {});
    breaker.register(Outcome::Success, None, T0, &mut |_| {});
    // get_multiple, then increment + get_multiple (one round trip where pipelined).
    assert_eq!(storage.backend.calls.get(), 3);
}

#[test]
fn runs_of_failures_end_at_a_success() {
    let clock = Rc::new(Cell::new(T0));
    let storage = Rc::new(storage(&clock));
    let config = config(vec![
        OpeningRule::failure_rate(50.0, 1000).unwrap(),
        OpeningRule::consecutive_failures(3).unwrap(),
    ]);
    let breaker = Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"payments"),
        storage_clock: false,
    };
    for outcome in [
        Outcome::Failure,
        Outcome::Failure,
        Outcome::Success,
        Outcome::Failure,
        Outcome::Failure,
    ] {
        breaker.register(outcome, None, T0, &mut |_| {});
    }
    assert_eq!(breaker.state(T0).unwrap(), Phase::Closed);
    breaker.register(Outcome::Failure, None, T0, &mut |_| {});
    assert_eq!(breaker.state(T0).unwrap(), Phase::Open);
}

#[test]
fn a_state_read_by_another_object_is_seen_before_counting_again() {
    let clock = Rc::new(Cell::new(T0));
    let shared = Rc::new(storage(&clock));
    let config = config(vec![OpeningRule::failure_rate(50.0, 4).unwrap()]);
    let first = Breaker {
        config: &config,
        circuit: &Rc::clone(&shared).circuit(b"payments"),
        storage_clock: false,
    };
    first.acquire(T0, &mut |_| {}); // sees closed, generation 0
    // The circuit opens elsewhere meanwhile.
    assert!(
        shared
            .compare_and_set_state(
                b"payments",
                CircuitState::INITIAL,
                CircuitState {
                    phase: Phase::Open,
                    generation: 1,
                    since: T0,
                    ..CircuitState::INITIAL
                },
                60_000
            )
            .unwrap()
    );
    shared
        .seen
        .borrow_mut()
        .insert(b"payments".to_vec(), CircuitState::INITIAL); // a stale memory
    let (state, _) = shared
        .record_outcome(
            b"payments",
            &OutcomeRecord {
                outcome: Outcome::Failure,
                slot: 1,
                slot_count: 2,
                window: config.window,
                now: T0,
                state_ttl_ms: 60_000,
                closed_state_ttl_ms: 60_000,
                counts_runs: false,
                slow: false,
            },
        )
        .unwrap();
    assert_eq!(state.generation, 1, "counted again in the current generation");
}

#[test]
fn the_states_an_object_remembers_are_bounded_however_many_services_it_serves() {
    let clock = Rc::new(Cell::new(T0));
    let storage = Rc::new(storage(&clock));
    let config = config(vec![OpeningRule::failure_rate(50.0, 4).unwrap()]);
    for index in 0..3 * MAX_SEEN {
        let service = format!("service-{index}");
        let breaker = Breaker {
            config: &config,
            circuit: &Rc::clone(&storage).circuit(service.as_bytes()),
            storage_clock: false,
        };
        breaker.acquire(T0, &mut |_| {});
        breaker.register(Outcome::Success, None, T0, &mut |_| {});
        assert!(storage.seen.borrow().len() <= MAX_SEEN, "after {index} services");
    }
    // The service of the last call is still remembered: its next record
    // needs no read of the state.
    assert!(storage.seen.borrow().contains_key(b"service-12287".as_slice()));
}

/// A counter another client set past any count a breaker writes (a
/// Memcached counter at 2^64 - 1 wraps at the next increment) is repaired
/// as one that holds no number: counts and shown totals stay sane.
#[test]
fn counters_past_any_count_a_breaker_writes_are_repaired() {
    let clock = Rc::new(Cell::new(T0));
    let storage = Rc::new(storage(&clock));
    let config = config(vec![OpeningRule::consecutive_failures(3).unwrap()]);
    let breaker = Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"payments"),
        storage_clock: false,
    };
    breaker.register(Outcome::Failure, None, T0, &mut |_| {});
    let huge = (MAX_COUNT + 5).to_string().into_bytes();
    for (_, (value, _)) in storage.backend.entries.borrow_mut().iter_mut() {
        if value != b"0" && decode_state(value).is_none() {
            value.clone_from(&huge);
        }
    }
    // Without the repair, a run of failures past 2^53 opens at this one.
    let mut failed = Vec::new();
    breaker.register(Outcome::Failure, None, T0, &mut |event| failed.push(event));
    assert_eq!(breaker.state(T0).unwrap(), Phase::Closed, "{failed:?}");
    assert!(
        storage
            .backend
            .entries
            .borrow()
            .values()
            .all(|(value, _)| parse_number(value).is_some() || decode_state(value).is_some()),
        "every counter past the bound was replaced"
    );
    for _ in 0..3 {
        breaker.register(Outcome::Failure, None, T0, &mut |_| {});
    }
    assert_eq!(breaker.state(T0).unwrap(), Phase::Open);
}
