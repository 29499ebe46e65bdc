//! The shared-memory storage over a segment of this process: records found,
//! claimed, reused when idle and shared between prefixes within their share.

use std::cell::Cell;
use std::rc::Rc;

use super::words::{EMPTY, ready_key};
use super::*;
use crate::breaker::{Breaker, Event};
use crate::core::config::Config;
use crate::core::half_open::HalfOpenPolicy;
use crate::core::machine::Phase;
use crate::core::rules::OpeningRule;

const T0: Millis = 1_764_000_000_000;

/// A segment where one prefix may take every record.
fn segment(size: usize) -> &'static Segment {
    segment_with_share(size, 1.0)
}

fn segment_with_share(size: usize, share: f64) -> &'static Segment {
    Box::leak(Box::new(Segment::create(size, share).unwrap()))
}

fn prefixed(segment: &'static Segment, prefix: &[u8], clock: &Rc<Cell<Millis>>) -> Rc<SharedMemoryStorage> {
    let clock = clock.clone();
    Rc::new(SharedMemoryStorage::new(
        segment,
        prefix.to_vec(),
        Box::new(move || clock.get()),
    ))
}

/// The events of one success registered for `service`, at the time of
/// `clock` (which the storage reads too).
fn register_success(storage: &Rc<SharedMemoryStorage>, service: &[u8], clock: &Rc<Cell<Millis>>) -> Vec<Event> {
    let now = clock.get();
    let config = config();
    let mut events = Vec::new();
    Breaker {
        config: &config,
        circuit: &Rc::clone(storage).circuit(service),
        storage_clock: false,
    }
    .register(Outcome::Success, None, now, &mut |event| events.push(event));
    events
}

fn refusal_message(events: &[Event]) -> &str {
    match events {
        [Event::StorageFailed(StorageError::Full(message))] => message,
        other => panic!("expected one refusal, got {other:?}"),
    }
}

fn storage(segment: &'static Segment, clock: &Rc<Cell<Millis>>) -> Rc<SharedMemoryStorage> {
    let clock = clock.clone();
    Rc::new(SharedMemoryStorage::new(
        segment,
        b"test:".to_vec(),
        Box::new(move || clock.get()),
    ))
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
            config: &config,
            circuit: &Rc::clone(&storage).circuit(service),
            storage_clock: false,
        }
        .register(Outcome::Success, None, T0, &mut |_| {});
    }
    let mut events = Vec::new();
    Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"d"),
        storage_clock: false,
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
    segment::size_for(count)
}

#[test]
fn idle_records_are_reused_and_start_afresh() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(1));
    let storage = storage(segment, &clock);
    let config = config();
    for _ in 0..4 {
        Breaker {
            config: &config,
            circuit: &Rc::clone(&storage).circuit(b"old"),
            storage_clock: false,
        }
        .register(Outcome::Failure, None, clock.get(), &mut |_| {});
    }
    assert_eq!(storage.load_state(b"old").unwrap().phase, Phase::Open);
    let old_counters = CallCounters {
        failures: 4,
        openings: 1,
        ..CallCounters::default()
    };
    assert_eq!(storage.counters(b"old").unwrap(), Some(old_counters));
    // Still within its time to live: the table is full.
    clock.set(T0 + config.state_ttl_ms(Phase::Open));
    let mut failed = false;
    Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"new"),
        storage_clock: false,
    }
    .register(Outcome::Success, None, clock.get(), &mut |_| failed = true);
    assert!(failed);
    // Idle now, and the full segment is looked at again once the retry
    // interval of the refusal has passed.
    clock.set(T0 + config.state_ttl_ms(Phase::Open) + CLAIM_RETRY_MS as Millis);
    let mut events = Vec::new();
    Breaker {
        config: &config,
        circuit: &Rc::clone(&storage).circuit(b"new"),
        storage_clock: false,
    }
    .register(Outcome::Failure, None, clock.get(), &mut |event| events.push(event));
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(storage.load_state(b"new").unwrap(), CircuitState::INITIAL);
    assert_eq!(
        storage.load_state(b"old").unwrap(),
        CircuitState::INITIAL,
        "the old circuit is forgotten"
    );
    let new_counters = CallCounters {
        failures: 1,
        ..CallCounters::default()
    };
    assert_eq!(
        storage.counters(b"new").unwrap(),
        Some(new_counters),
        "the counters belong to the claim"
    );
    assert_eq!(storage.counters(b"old").unwrap(), Some(CallCounters::default()));
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 1);
}

/// A reused record's new circuit starts at generation 0 while the words of
/// its last circuit may carry a later one, which a counter takes for a
/// writer ahead of it: they are cleared at the claim, or the new circuit's
/// outcomes would be dropped until it opens, which they could not make it.
#[test]
fn a_reused_record_counts_whatever_generation_its_last_circuit_reached() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(1));
    let storage = storage(segment, &clock);
    let config = config();
    let later = CircuitState {
        generation: 3,
        ..CircuitState::INITIAL
    };
    let ttl = config.state_ttl_ms(Phase::Closed);
    assert!(
        storage
            .compare_and_set_state(b"old", CircuitState::INITIAL, later, ttl)
            .unwrap()
    );
    // Counted in every bucket of its ring, in generation 3.
    let bucket_ms = config.window.bucket_length_ms() as Millis;
    for bucket in 0..config.window.ring_len() as Millis {
        clock.set(T0 + bucket * bucket_ms);
        for outcome in [Outcome::Success, Outcome::Failure] {
            let record = OutcomeRecord::new(&config, outcome, None, clock.get());
            assert_eq!(storage.record_outcome(b"old", &record).unwrap().0, later);
        }
    }
    // Idle past its time to live: the next name takes the record.
    clock.set(clock.get() + ttl + CLAIM_RETRY_MS as Millis);
    let mut events = Vec::new();
    for _ in 0..4 {
        Breaker {
            config: &config,
            circuit: &Rc::clone(&storage).circuit(b"new"),
            storage_clock: false,
        }
        .register(Outcome::Failure, None, clock.get(), &mut |event| events.push(event));
    }
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 1);
    let window = storage
        .read_window(b"new", 0, config.window, config.bands.slot_count(), clock.get())
        .unwrap();
    assert!(
        matches!(events.as_slice(), [Event::Opened { .. }]),
        "four failures open the new circuit: {events:?}, its window {window:?}"
    );
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
            config: &config,
            circuit: &Rc::clone(&storage).circuit(b"payments"),
            storage_clock: false,
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

#[test]
fn sizes_as_other_tools_write_them() {
    // The unit as MySQL, Redis and many tools write it (issue 24).
    for written in ["32MB", "32mb", "32Mb", "32 MB", "32M", "33554432", "32768K", "32768kb"] {
        assert_eq!(parse_size(written), Some(32 << 20), "{written}");
    }
    assert_eq!(parse_size("1GB"), Some(1 << 30));
    assert_eq!(parse_size("32K"), Some(32 << 10));
    assert_eq!(parse_size("1024B"), Some(1024));
    for wrong in ["MB", "B", "32MM", "32BM", "-1M", "3.5M", "32 bytes"] {
        assert_eq!(parse_size(wrong), None, "{wrong}");
    }
}

#[test]
fn a_prefix_is_refused_past_its_share_while_another_gets_records() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment_with_share(size_of_records(10), 0.5);
    assert_eq!((segment.capacity(), segment.max_per_prefix()), (10, 5));
    let churner = prefixed(segment, b"churn:", &clock);
    let shop = prefixed(segment, b"shop:", &clock);
    // The share binds while another prefix holds records.
    assert!(register_success(&shop, b"name-0", &clock).is_empty());
    for service in 0..5 {
        let events = register_success(&churner, format!("name-{service}").as_bytes(), &clock);
        assert!(events.is_empty(), "{events:?}");
    }
    let events = register_success(&churner, b"name-5", &clock);
    let message = refusal_message(&events);
    assert!(
        message.contains("'churn:'") && message.contains("circuit_breaker.shm_max_share (now 0.5)"),
        "{message}"
    );
    assert_eq!(segment.header().share_refusals.load(Ordering::Relaxed), 1);
    assert_eq!(segment.header().records_in_use.load(Ordering::Relaxed), 6);
    for service in 0..5 {
        let events = register_success(&shop, format!("name-{service}").as_bytes(), &clock);
        assert!(events.is_empty(), "the other prefix gets its records: {events:?}");
    }
    // The refused prefix keeps the circuits it has.
    assert!(register_success(&churner, b"name-0", &clock).is_empty());
}

#[test]
fn a_prefix_alone_in_the_segment_is_not_held_to_its_share() {
    // One application on the default segment, the common case (issue 24):
    // the share protects co-tenants, and there is none.
    let clock = Rc::new(Cell::new(T0));
    let segment = segment_with_share(size_of_records(10), 0.5);
    assert_eq!((segment.capacity(), segment.max_per_prefix()), (10, 5));
    let alone = prefixed(segment, b"alone:", &clock);
    let mut stored = 0;
    for service in 0..10 {
        if register_success(&alone, format!("name-{service}").as_bytes(), &clock).is_empty() {
            stored += 1;
        }
    }
    assert!(stored >= 8, "a lone prefix got only {stored} of the 10 records");
    assert_eq!(segment.header().share_refusals.load(Ordering::Relaxed), 0);
}

#[test]
fn a_prefix_past_its_share_stops_growing_once_another_holds_records() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment_with_share(size_of_records(10), 0.5);
    let first = prefixed(segment, b"first:", &clock);
    let second = prefixed(segment, b"second:", &clock);
    for service in 0..6 {
        assert!(register_success(&first, format!("name-{service}").as_bytes(), &clock).is_empty());
    }
    // The other prefix arrives: it gets the free records, the first none more.
    assert!(register_success(&second, b"name-0", &clock).is_empty());
    let message = refusal_message(&register_success(&first, b"name-6", &clock)).to_owned();
    assert!(message.contains("circuit_breaker.shm_max_share"), "{message}");
    for service in 1..4 {
        assert!(register_success(&second, format!("name-{service}").as_bytes(), &clock).is_empty());
    }
    // Each keeps the circuits it has.
    assert!(register_success(&first, b"name-5", &clock).is_empty());
}

#[test]
fn a_prefix_at_its_share_reuses_its_own_idle_records_only() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment_with_share(size_of_records(4), 0.5);
    let churner = prefixed(segment, b"churn:", &clock);
    let shop = prefixed(segment, b"shop:", &clock);
    assert!(register_success(&churner, b"a", &clock).is_empty());
    assert!(register_success(&churner, b"b", &clock).is_empty());
    assert!(register_success(&shop, b"kept", &clock).is_empty());
    clock.set(T0 + config().longest_state_ttl_ms() + 1);
    // Idle by now, as are the churner's: only theirs may be taken.
    assert!(register_success(&churner, b"c", &clock).is_empty());
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 1);
    assert_eq!(segment.header().records_in_use.load(Ordering::Relaxed), 3);
    assert!(register_success(&shop, b"kept", &clock).is_empty());
    let mut known = 0;
    for index in 0..segment.capacity() {
        if segment.record(index).owner.load(Ordering::Relaxed) == hashes(b"shop:").1 {
            known += 1;
        }
    }
    assert_eq!(known, 1, "the other prefix's record stays its own");
}

#[test]
fn a_full_segment_refuses_without_looking_until_the_interval_passes() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(2));
    let storage = storage(segment, &clock);
    assert!(register_success(&storage, b"a", &clock).is_empty());
    assert!(register_success(&storage, b"b", &clock).is_empty());
    let message = refusal_message(&register_success(&storage, b"c", &clock)).to_owned();
    assert!(message.contains("circuit_breaker.shm_size"), "{message}");
    assert_eq!(
        segment.header().claim_retry_at.load(Ordering::Relaxed),
        T0 as u64 + CLAIM_RETRY_MS
    );
    // Record "a" becomes idle, but nobody looks within the interval: not
    // the refused name, nor a new one.
    for index in 0..segment.capacity() {
        segment.record(index).last_used.store(0, Ordering::SeqCst);
    }
    let failures = segment.header().allocation_failures.load(Ordering::Relaxed);
    clock.set(T0 + 1);
    refusal_message(&register_success(&storage, b"c", &clock));
    refusal_message(&register_success(&storage, b"d", &clock));
    assert_eq!(segment.header().allocation_failures.load(Ordering::Relaxed), failures);
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 0);
    clock.set(T0 + CLAIM_RETRY_MS as Millis);
    let events = register_success(&storage, b"c", &clock);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(segment.header().records_reused.load(Ordering::Relaxed), 1);
}

#[test]
fn a_refused_name_reads_as_absent_for_the_interval() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment(size_of_records(1));
    let storage = storage(segment, &clock);
    assert!(register_success(&storage, b"a", &clock).is_empty());
    refusal_message(&register_success(&storage, b"b", &clock));
    // Another process claims "b" meanwhile (forged here in the only record).
    let (hash, check) = hashes(&stored_name(b"test:", b"b"));
    let record = segment.record(0);
    record.check.store(check, Ordering::Relaxed);
    let opened = CircuitState {
        phase: Phase::Open,
        generation: 1,
        since: T0,
        ..CircuitState::INITIAL
    };
    record.state.store(encode_state(opened), Ordering::Relaxed);
    record.key.store(ready_key(hash), Ordering::Release);
    assert_eq!(
        storage.load_state(b"b").unwrap(),
        CircuitState::INITIAL,
        "not looked up"
    );
    clock.set(T0 + CLAIM_RETRY_MS as Millis);
    assert_eq!(storage.load_state(b"b").unwrap().phase, Phase::Open, "looked up again");
}

#[test]
fn probe_sequences_are_distinct_places_and_cover_small_tables() {
    for capacity in 1..=200 {
        for seed in 0..20_u64 {
            let (hash, check) = hashes(&seed.to_le_bytes());
            let identity = Identity {
                hash,
                check,
                index: None,
                refused: None,
            };
            let places: Vec<usize> = probe_sequence(&identity, capacity).collect();
            assert_eq!(places.len(), capacity.min(PROBE_WINDOW));
            let distinct: std::collections::HashSet<_> = places.iter().collect();
            assert_eq!(distinct.len(), places.len(), "capacity {capacity}");
            assert!(places.iter().all(|&place| place < capacity));
        }
    }
}

#[test]
fn a_prefix_at_its_share_gives_up_an_idle_record_for_a_free_place_before_it() {
    let clock = Rc::new(Cell::new(T0));
    let segment = segment_with_share(size_of_records(4), 0.5);
    let churner = prefixed(segment, b"churn:", &clock);
    let shop = prefixed(segment, b"shop:", &clock);
    assert!(register_success(&churner, b"a", &clock).is_empty());
    assert!(register_success(&churner, b"b", &clock).is_empty());
    assert!(register_success(&shop, b"kept", &clock).is_empty());
    // A name whose first free place comes before both of the churner's records.
    let free_first = (0..1_000)
        .map(|candidate| format!("name-{candidate}"))
        .find(|service| {
            let identity = Identity::of(&stored_name(b"churn:", service.as_bytes()));
            let places: Vec<usize> = probe_sequence(&identity, segment.capacity()).collect();
            let owner_of = |index: usize| segment.record(index).owner.load(Ordering::Relaxed);
            let free = places
                .iter()
                .position(|&index| segment.record(index).key.load(Ordering::Relaxed) == EMPTY);
            let own = places.iter().position(|&index| owner_of(index) == hashes(b"churn:").1);
            matches!((free, own), (Some(free), Some(own)) if free < own)
        })
        .expect("some name sees the free place first");
    clock.set(T0 + config().longest_state_ttl_ms() + 1);
    let events = register_success(&churner, free_first.as_bytes(), &clock);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(segment.header().records_in_use.load(Ordering::Relaxed), 4);
    let retired = (0..segment.capacity())
        .filter(|&index| segment.record(index).check.load(Ordering::Relaxed) == 0)
        .count();
    assert_eq!(retired, 1, "one idle record of the churner was left to nobody");
    // Still at its share: a further name takes its last idle record, and
    // then no more.
    assert!(register_success(&churner, b"another", &clock).is_empty());
    let owned_by = |prefix: &[u8]| {
        (0..segment.capacity())
            .filter(|&index| segment.record(index).owner.load(Ordering::Relaxed) == hashes(prefix).1)
            .count()
    };
    assert_eq!((owned_by(b"churn:"), owned_by(b"shop:")), (2, 1));
    let events = register_success(&churner, b"one more", &clock);
    assert!(refusal_message(&events).contains("circuit_breaker.shm_max_share"));
}

#[test]
fn a_tiers_records_are_out_of_reach_of_the_same_prefix_and_counted_apart() {
    let segment = segment(1 << 20);
    let clock = Rc::new(Cell::new(T0));
    let tier_clock = clock.clone();
    let tier = Rc::new(SharedMemoryStorage::of_kind(
        segment,
        RecordKind::Tier,
        b"shop:\0fleet\0".to_vec(),
        Box::new(move || tier_clock.get()),
    ));
    let circuits = prefixed(segment, b"shop:\0fleet\0", &clock);
    register_success(&tier, b"Lpayments", &clock);
    let opened = CircuitState {
        phase: Phase::Open,
        generation: 1,
        since: T0,
        ..CircuitState::INITIAL
    };
    assert!(
        tier.compare_and_set_state(b"Lpayments", CircuitState::INITIAL, opened, 60_000)
            .unwrap()
    );
    assert_eq!(circuits.load_state(b"Lpayments").unwrap(), CircuitState::INITIAL);
    assert!(circuits.list_circuits(b"").unwrap().is_empty());
    assert_eq!(tier.list_circuits(b"").unwrap().len(), 1);
    assert_ne!(tier.owner(), circuits.owner());
    assert_eq!(tier.load_state(b"Lpayments").unwrap(), opened);
}

#[test]
fn circuits_of_one_name_share_what_they_learn_and_many_names_start_afresh() {
    let clock = Rc::new(Cell::new(T0));
    let storage = storage(segment(size_of_records(64)), &clock);
    register_success(&storage, b"svc", &clock);
    let first = Rc::clone(&storage).circuit(b"svc");
    let place = storage.known_circuit(b"svc").memo.place();
    assert!(place.is_some(), "the first circuit found its record");
    // A second breaker of the name (a request later) starts from there.
    let second = Rc::clone(&storage).circuit(b"svc");
    assert_eq!(second.service(), b"svc");
    assert!(Rc::ptr_eq(
        &storage.known_circuit(b"svc"),
        &storage.known_circuit(b"svc")
    ));
    // Past the bound, the storage forgets the names it knew; breakers keep
    // theirs and go on counting.
    for n in 0..KNOWN_CIRCUITS + 1 {
        storage.known_circuit(format!("other {n}").as_bytes());
    }
    assert!(storage.circuits.borrow().len() <= KNOWN_CIRCUITS);
    register_success(&storage, b"svc", &clock);
    second.begin_call(None);
    assert_eq!(second.load_state().unwrap().phase, Phase::Closed);
    first.begin_call(None);
    assert_eq!(first.counters().unwrap().unwrap().successes, 2);
}

/// What a call reads of its circuit's memo lies on two cache lines: the
/// name's slice, the flag and the place on the first, the past sums' key
/// and first two slots on the second (a process calling thousands of
/// circuits misses each line it touches).
#[test]
fn a_call_reads_two_lines_of_its_memo() {
    use std::mem::{align_of, offset_of, size_of};
    assert_eq!(align_of::<KnownCircuit>(), 64);
    let memo = offset_of!(KnownCircuit, memo);
    let place_end = memo + offset_of!(CircuitMemo, place) + size_of::<Option<Place>>();
    assert!(offset_of!(KnownCircuit, service) + size_of::<Vec<u8>>() <= 64);
    assert!(
        memo + offset_of!(CircuitMemo, found) < 64 && place_end <= 64,
        "{place_end}"
    );
    let known = KnownCircuit {
        service: Vec::new(),
        memo: CircuitMemo::default(),
    };
    let start = std::ptr::from_ref(&known) as usize;
    let past = std::ptr::from_ref(&known.memo.past) as usize - start;
    let sums = known.memo.past.borrow();
    let key = std::ptr::from_ref(&sums.key) as usize - start;
    let first_sums_end = std::ptr::from_ref(&sums.sums[1]) as usize + size_of::<u64>() - start;
    assert!(past >= 64 && key >= 64, "{past} {key}");
    assert!(
        key + size_of_val(&sums.key) <= 128 && first_sums_end <= 128,
        "{key} {first_sums_end}"
    );
}

/// The closed call's way (`Breaker::acquire_closed`): a permission counted
/// at once at a record found, in a closed state that time cannot end; any
/// other call is left as it was, for the whole decision.
#[test]
fn a_closed_call_is_counted_at_once_and_any_other_left_to_the_decision() {
    use crate::breaker::Permission;
    use crate::core::machine::Command;
    let clock = Rc::new(Cell::new(T0));
    let storage = storage(segment(1 << 20), &clock);
    let config = config();
    let circuit = Rc::clone(&storage).circuit(b"svc");
    let breaker = Breaker {
        config: &config,
        circuit: &circuit,
        storage_clock: false,
    };
    let permitted = || {
        circuit.begin_call(None);
        circuit.counters().unwrap().unwrap().calls_permitted
    };
    // No record yet: the decision claims it.
    assert!(!breaker.acquire_closed(clock.get()));
    assert_eq!(storage.usage().0, 0);
    assert_eq!(breaker.acquire(clock.get(), &mut |_| {}), Permission::Permitted);
    assert_eq!(permitted(), 1);
    assert!(breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 2);
    // Forced closed: time ends the state.
    breaker
        .command(Command::ForceClosed(60_000), clock.get(), &mut |_| {})
        .unwrap();
    assert!(!breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 2);
    breaker.command(Command::Reset, clock.get(), &mut |_| {}).unwrap();
    assert!(breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 3);
    // Open: rejected by the decision, not counted here.
    for _ in 0..4 {
        breaker.register(Outcome::Failure, None, clock.get(), &mut |_| {});
    }
    assert_eq!(breaker.state(clock.get()).unwrap(), Phase::Open);
    assert!(!breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 3);
    // Half-open, once the decision stored it: its trials are its own.
    clock.set(clock.get() + 10_000);
    assert_eq!(breaker.acquire(clock.get(), &mut |_| {}), Permission::Permitted);
    assert_eq!(breaker.state(clock.get()).unwrap(), Phase::HalfOpen);
    assert!(!breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 4);
    // Forced open.
    breaker
        .command(Command::ForceOpen(60_000), clock.get(), &mut |_| {})
        .unwrap();
    assert!(!breaker.acquire_closed(clock.get()));
    assert_eq!(permitted(), 4);
}
