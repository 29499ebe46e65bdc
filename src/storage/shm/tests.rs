use std::cell::Cell;
use std::rc::Rc;

use super::*;
use crate::breaker::{Breaker, Event};
use crate::core::config::Config;
use crate::core::half_open::HalfOpenPolicy;
use crate::core::machine::Phase;
use crate::core::rules::OpeningRule;

const T0: Millis = 1_764_000_000_000;

fn segment(size: usize) -> &'static Segment {
    Box::leak(Box::new(Segment::create(size).unwrap()))
}

fn storage(segment: &'static Segment, clock: &Rc<Cell<Millis>>) -> SharedMemoryStorage {
    let clock = clock.clone();
    SharedMemoryStorage::new(segment, b"test:".to_vec(), Box::new(move || clock.get()))
}

fn config() -> Config {
    Config::new(
        10.0,
        vec![OpeningRule::failure_rate(50.0, 4).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap()
}

#[test]
fn stored_names_are_length_delimited() {
    // "test:" + "x" differs from "test:x" + "": prefixes cannot be confused.
    assert_ne!(stored_name(b"test:", b"x"), stored_name(b"test:x", b""));
}

#[test]
fn an_unknown_circuit_takes_no_record() {
    let clock = Rc::new(Cell::new(T0));
    let storage = storage(segment(1 << 20), &clock);
    assert_eq!(storage.load_state(b"never seen").unwrap(), CircuitState::INITIAL);
    assert_eq!(storage.usage().0, 0);
}

#[test]
fn a_full_table_fails_and_names_the_setting_to_raise() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(3));
    let storage = storage(segment, &clock);
    let config = config();
    for service in [&b"a"[..], b"b", b"c"] {
        Breaker {
            service,
            config: &config,
            storage: &storage,
        }
        .register(Outcome::Success, None, T0, &mut |_| {});
    }
    let mut events = Vec::new();
    Breaker {
        service: b"d",
        config: &config,
        storage: &storage,
    }
    .register(Outcome::Success, None, T0, &mut |event| events.push(event));
    match events.as_slice() {
        [Event::StorageFailed(StorageError::Full(message))] => {
            assert!(message.contains("circuit_breaker.shm_size"), "{message}")
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(segment.header().allocation_failures.load(Ordering::Relaxed), 1);
}

fn size_of_records(count: usize) -> usize {
    std::mem::size_of::<segment::Header>() + count * std::mem::size_of::<Record>()
}

#[test]
fn idle_records_are_reused_and_start_afresh() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(1));
    let storage = storage(segment, &clock);
    let config = config();
    for _ in 0..4 {
        Breaker {
            service: b"old",
            config: &config,
            storage: &storage,
        }
        .register(Outcome::Failure, None, clock.get(), &mut |_| {});
    }
    assert_eq!(storage.load_state(b"old").unwrap().phase, Phase::Open);
    // Still within its time to live: the table is full.
    clock.set(T0 + config.state_ttl_ms(Phase::Open));
    let mut failed = false;
    Breaker {
        service: b"new",
        config: &config,
        storage: &storage,
    }
    .register(Outcome::Success, None, clock.get(), &mut |_| failed = true);
    assert!(failed);
    clock.set(T0 + config.state_ttl_ms(Phase::Open) + 1);
    let mut events = Vec::new();
    Breaker {
        service: b"new",
        config: &config,
        storage: &storage,
    }
    .register(Outcome::Failure, None, clock.get(), &mut |event| events.push(event));
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(storage.load_state(b"new").unwrap(), CircuitState::INITIAL);
    assert_eq!(
        storage.load_state(b"old").unwrap(),
        CircuitState::INITIAL,
        "the old circuit is forgotten"
    );
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 1);
}

#[test]
fn a_record_with_another_check_is_another_service() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(1 << 20);
    let storage = storage(segment, &clock);
    let name = stored_name(b"test:", b"payments");
    let (hash, check) = hashes(&name);
    // Forge a record with the same first hash and another check in the home slot.
    let home = (hash % segment.capacity() as u64) as usize;
    let forged = segment.record(home);
    forged.check.store(check ^ 2, Ordering::Relaxed);
    forged.last_used.store(T0 as u64, Ordering::Relaxed); // in use: not to be reused
    forged.key.store(ready_key(hash), Ordering::Release);
    let config = config();
    for _ in 0..4 {
        Breaker {
            service: b"payments",
            config: &config,
            storage: &storage,
        }
        .register(Outcome::Failure, None, T0, &mut |_| {});
    }
    assert_eq!(
        decode_state(forged.state.load(Ordering::Relaxed), 0),
        CircuitState::INITIAL,
        "the forged record is untouched"
    );
    assert_eq!(storage.load_state(b"payments").unwrap().phase, Phase::Open);
}

#[test]
fn configurations_beyond_the_record_are_refused() {
    let clock = Rc::new(Cell::new(T0));
    let storage = storage(segment(1 << 20), &clock);
    assert_eq!(storage.max_slots(), Some(SLOTS));
    let rules = (1..=5)
        .map(|seconds| OpeningRule::slow_call_rate(seconds as f64, 50.0, 1).unwrap())
        .collect();
    let config = Config::new(10.0, rules, 10.0, HalfOpenPolicy::permitted_calls(30.0, 1).unwrap()).unwrap();
    assert!(config.bands.slot_count() > SLOTS);
}

#[test]
fn sizes_as_php_writes_them() {
    assert_eq!(parse_size("32M"), Some(32 << 20));
    assert_eq!(parse_size("512k"), Some(512 << 10));
    assert_eq!(parse_size("1G"), Some(1 << 30));
    assert_eq!(parse_size("65536"), Some(65_536));
    assert_eq!(parse_size("lots"), None);
    assert_eq!(parse_size(""), None);
}
