//! The shared-memory storage under real processes: forked workers counting
//! at once, racing to make transitions, and killed with SIGKILL at any
//! instruction. A plain `main` (no test harness) so that no other thread
//! exists when the test forks.

#![allow(unsafe_code)]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use circuit_breaker::breaker::{Breaker, Event, Permission};
use circuit_breaker::core::config::Config;
use circuit_breaker::core::counts::Outcome;
use circuit_breaker::core::duration::Millis;
use circuit_breaker::core::half_open::HalfOpenPolicy;
use circuit_breaker::core::machine::{CircuitState, Command, Phase};
use circuit_breaker::core::rules::OpeningRule;
use circuit_breaker::core::window::MAX_RING;
use circuit_breaker::storage::bulkhead::held;
use circuit_breaker::storage::bulkhead::{Owner, Table};
use circuit_breaker::storage::shm::{CircuitMemo, SUCCESS_STRIPES, Segment, SharedMemoryStorage};
use circuit_breaker::storage::{CircuitStore, KeptCircuit, OutcomeRecord, Storage};

const T0: Millis = 1_764_000_000_000;

fn storage(segment: &'static Segment, now: Millis) -> Rc<SharedMemoryStorage> {
    Rc::new(SharedMemoryStorage::new(segment, Vec::new(), Box::new(move || now)))
}

/// The circuit of `service` a breaker over `storage` keeps.
fn circuit_of(storage: &Rc<SharedMemoryStorage>, service: &[u8]) -> KeptCircuit {
    Rc::clone(storage).circuit(service)
}

fn on<'a>(circuit: &'a KeptCircuit, config: &'a Config) -> Breaker<'a> {
    Breaker {
        config,
        circuit,
        storage_clock: false,
    }
}

fn config(window: f64) -> Config {
    Config::new(
        window,
        vec![OpeningRule::failure_rate(50.0, 20).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap()
}

/// Forks a child running `work`, which must not return.
fn fork(work: impl FnOnce()) -> libc::pid_t {
    // SAFETY: this process has a single thread (no test harness), so the
    // child starts with a consistent heap; it leaves through `_exit`.
    match unsafe { libc::fork() } {
        -1 => panic!("fork failed: {}", std::io::Error::last_os_error()),
        0 => {
            work();
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(0) }
        }
        pid => pid,
    }
}

fn wait_for(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: `pid` is a child of this process.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    status
}

fn pipe() -> (std::fs::File, std::fs::File) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened and are owned here only.
    unsafe { (OwnedFd::from_raw_fd(fds[0]).into(), OwnedFd::from_raw_fd(fds[1]).into()) }
}

/// Words shared with the children, for their progress.
fn shared_words(count: usize) -> &'static [AtomicU64] {
    let size = count * std::mem::size_of::<AtomicU64>();
    // SAFETY: an anonymous shared mapping, checked, zeroed by the kernel;
    // zeroed memory is valid `AtomicU64`s, and it is never unmapped.
    unsafe {
        let address = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(address, libc::MAP_FAILED);
        std::slice::from_raw_parts(address.cast::<AtomicU64>(), count)
    }
}

fn segment() -> &'static Segment {
    Box::leak(Box::new(Segment::create(8 << 20, 1.0).unwrap()))
}

/// Reads the counts of `service` by counting one more success.
fn successes_counted(storage: &SharedMemoryStorage, config: &Config, service: &[u8], now: Millis) -> u64 {
    let record = OutcomeRecord::new(config, Outcome::Success, None, now);
    let (_, tally) = storage.record_outcome(service, &record).unwrap();
    tally.window[record.slot] - 1
}

fn no_increment_is_lost() {
    const WORKERS: usize = 4;
    const OUTCOMES: usize = 100_000;
    let segment = segment();
    let config = config(3_600.0);
    let children: Vec<_> = (0..WORKERS)
        .map(|_| {
            fork(|| {
                let storage = storage(segment, T0);
                let breaker_circuit = circuit_of(&storage, b"counted");
                let breaker = on(&breaker_circuit, &config);
                for _ in 0..OUTCOMES {
                    breaker.register(Outcome::Success, None, T0, &mut |event| panic!("unexpected {event:?}"));
                }
            })
        })
        .collect();
    for child in children {
        assert_eq!(wait_for(child), 0);
    }
    let counted = successes_counted(&storage(segment, T0), &config, b"counted", T0);
    assert_eq!(counted, (WORKERS * OUTCOMES) as u64);
    // The metrics' counter, one fetch_add each: none lost either (the read
    // above counted one more).
    let metrics = storage(segment, T0).counters(b"counted").unwrap().unwrap();
    assert_eq!(metrics.successes, (WORKERS * OUTCOMES) as u64 + 1);
}

/// Each child reports its events through a pipe, one letter each.
fn race(
    segment: &'static Segment,
    config: &Config,
    workers: usize,
    work: impl Fn(&Breaker<'_>, &mut dyn FnMut(Event)) + Copy,
) -> String {
    let (mut reader, writer) = pipe();
    let children: Vec<_> = (0..workers)
        .map(|_| {
            let mut writer = writer.try_clone().unwrap();
            fork(move || {
                let storage = storage(segment, T0);
                let breaker_circuit = circuit_of(&storage, b"raced");
                let breaker = on(&breaker_circuit, config);
                let mut letters = String::new();
                work(&breaker, &mut |event| {
                    letters.push(match event {
                        Event::Opened { .. } => 'O',
                        Event::HalfOpened => 'H',
                        Event::Closed => 'C',
                        Event::Rejected { .. } => 'r',
                        Event::StorageFailed(_) => 'F',
                        Event::StorageRecovered => 'R',
                        Event::Forced { .. } | Event::Reset => 'M',
                        Event::ClockAhead { .. } => 'A',
                    })
                });
                writer.write_all(letters.as_bytes()).unwrap();
            })
        })
        .collect();
    drop(writer);
    for child in children {
        assert_eq!(wait_for(child), 0);
    }
    let mut letters = String::new();
    reader.read_to_string(&mut letters).unwrap();
    letters
}

fn each_transition_is_emitted_once() {
    let segment = segment();
    let config = config(60.0);
    // Eight workers fail at once: the circuit opens once.
    let letters = race(segment, &config, 8, |breaker, emit| {
        for _ in 0..200 {
            breaker.register(Outcome::Failure, None, T0, emit);
        }
    });
    assert_eq!(letters.matches('O').count(), 1, "{letters}");
    assert!(!letters.contains('F'), "{letters}");
    // At the end of the open time they all ask: one half-opens it, and the
    // single trial lets exactly one call through.
    let letters = race(segment, &config, 8, |breaker, emit| {
        for _ in 0..50 {
            if breaker.acquire(T0 + 10_000, emit) == Permission::Permitted {
                emit(Event::Closed); // marks the permitted call
            }
        }
    });
    assert_eq!(letters.matches('H').count(), 1, "{letters}");
    assert_eq!(letters.matches('C').count(), 1, "one permitted call: {letters}");
    assert_eq!(letters.matches('r').count(), 8 * 50 - 1, "{letters}");
    // A server whose clock runs an hour ahead opens it again, from an hour
    // ahead. The eight bound it to their own clock: one of them stores that, once.
    let ahead = T0 + 10_000 + 3_600_000;
    let storage = storage(segment, ahead);
    let breaker_circuit = circuit_of(&storage, b"raced");
    let breaker = on(&breaker_circuit, &config);
    for _ in 0..20 {
        breaker.register(Outcome::Failure, None, ahead, &mut |_| {});
    }
    assert_eq!(breaker.state(ahead).unwrap(), Phase::Open);
    let letters = race(segment, &config, 8, |breaker, emit| {
        for _ in 0..50 {
            assert!(matches!(
                breaker.acquire(T0 + 10_001, emit),
                Permission::Rejected {
                    retry_after_ms: Some(10_000),
                    ..
                }
            ));
        }
    });
    assert_eq!(letters.matches('A').count(), 1, "{letters}");
    assert_eq!(letters.matches('r').count(), 8 * 50, "{letters}");
}

/// A segment with room for a single record, so that two names must share it.
fn one_record_segment() -> &'static Segment {
    let mut size = 1 << 12;
    loop {
        if let Ok(segment) = Segment::create(size, 1.0) {
            assert_eq!(segment.capacity(), 1, "a segment of {size} bytes");
            return Box::leak(Box::new(segment));
        }
        size += 1 << 12;
    }
}

/// Runs `work` in a child process and says whether it succeeded.
fn in_child(work: impl FnOnce() -> bool) -> bool {
    let pid = fork(|| {
        if !work() {
            // SAFETY: ends the child at once, with a failure status.
            unsafe { libc::_exit(1) }
        }
    });
    wait_for(pid) == 0
}

/// A breaker keeps where its record lies (`for_circuit`): once another
/// process has reused that record for another name, the place is not
/// trusted, and the name's own state is read, not the other's.
fn a_remembered_place_is_not_trusted_after_a_reuse() {
    let segment = one_record_segment();
    let config = config(60.0);
    let storage = storage(segment, T0);
    let memo = CircuitMemo::default();
    let record = OutcomeRecord::new(&config, Outcome::Failure, None, T0);
    storage
        .for_circuit(&memo, Some(T0))
        .record_outcome(b"a", &record)
        .unwrap();
    assert!(memo.place().is_some(), "the place of 'a' is remembered");
    // Once 'a' is idle, another process claims the only record for 'b'
    // and opens its circuit.
    let later = T0 + config.longest_state_ttl_ms() + 1;
    let open = CircuitState {
        phase: Phase::Open,
        generation: 1,
        since: later,
        ..CircuitState::INITIAL
    };
    assert!(in_child(|| {
        let storage = self::storage(segment, later);
        storage
            .compare_and_set_state(b"b", CircuitState::INITIAL, open, config.state_ttl_ms(Phase::Open))
            .unwrap_or(false)
    }));
    let bound = storage.for_circuit(&memo, Some(later));
    assert_eq!(
        bound.load_state(b"a").unwrap(),
        CircuitState::INITIAL,
        "not the state of 'b'"
    );
    // The only record is taken by a live circuit: 'a' gets none, and
    // counts nothing into the circuit of 'b'.
    let record = OutcomeRecord::new(&config, Outcome::Failure, None, later);
    assert!(bound.record_outcome(b"a", &record).is_err());
    assert_eq!(storage.load_state(b"b").unwrap(), open);
}

/// The sums of past buckets a process keeps are those of one generation:
/// after another process makes a transition, the window starts over.
fn past_sums_are_kept_per_generation() {
    let segment = segment();
    let config = config(60.0);
    let storage = storage(segment, T0);
    let memo = CircuitMemo::default();
    let bucket_ms = config.window.bucket_length_ms() as Millis;
    let count = |at: Millis| {
        let record = OutcomeRecord::new(&config, Outcome::Failure, None, at);
        let (state, tally) = storage
            .for_circuit(&memo, Some(at))
            .record_outcome(b"generations", &record)
            .unwrap();
        (state, tally.window[record.slot])
    };
    for _ in 0..5 {
        count(T0);
    }
    // The next bucket: five failures in the past, one now.
    assert_eq!(count(T0 + bucket_ms).1, 6);
    // Another process opens the circuit (a new generation) in that bucket.
    let open = CircuitState {
        phase: Phase::Open,
        generation: 1,
        since: T0 + bucket_ms,
        ..CircuitState::INITIAL
    };
    assert!(in_child(|| {
        storage
            .compare_and_set_state(
                b"generations",
                CircuitState::INITIAL,
                open,
                config.state_ttl_ms(Phase::Open),
            )
            .unwrap_or(false)
    }));
    let (state, failures) = count(T0 + bucket_ms + 1);
    assert_eq!(state, open);
    assert_eq!(failures, 1, "only the outcome of the new generation");
}

/// Two processes calling one service, healthy, write no counter word in
/// common: each success lands in its process's stripe, none in a bucket's
/// words, and the two stripes differ.
fn processes_count_their_successes_on_words_of_their_own() {
    let segment = segment();
    let config = config(60.0);
    for _ in 0..2 {
        let child = fork(|| {
            let storage = storage(segment, T0);
            let circuit = circuit_of(&storage, b"apart");
            let breaker = on(&circuit, &config);
            for _ in 0..3 {
                assert!(matches!(breaker.acquire(T0, &mut |_| {}), Permission::Permitted));
                breaker.register(Outcome::Success, None, T0, &mut |event| panic!("unexpected {event:?}"));
            }
        });
        assert_eq!(wait_for(child), 0);
    }
    let mut written = Vec::new();
    for index in 0..segment.capacity() {
        for ring_slot in 0..MAX_RING {
            let bucket = segment.bucket(index, ring_slot);
            assert!(
                bucket.iter().all(|word| word.load(Ordering::Relaxed) == 0),
                "a success wrote the bucket's words"
            );
            for stripe in 0..SUCCESS_STRIPES {
                let word = segment
                    .striped_successes(index, ring_slot, stripe)
                    .load(Ordering::Relaxed);
                if word != 0 {
                    written.push((index, ring_slot, stripe, word & 0xff_ffff));
                }
            }
        }
    }
    assert_eq!(written.len(), 2, "{written:?}");
    assert_ne!(written[0].2, written[1].2, "one stripe each: {written:?}");
    assert!(written.iter().all(|&(.., count)| count == 3), "{written:?}");
}

/// A process counts its successes in a stripe of its own and reads back
/// only its stripe of the current bucket while the window holds nothing
/// else; once it sees a failure, it counts every process's. One child
/// counts 10 successes, another then 10 failures: the failure rule (50 %,
/// at least 20 calls) opens at the 10th failure exactly, in the same bucket
/// or the next; with slow-call rules too, whose untimed successes are
/// striped as well, and whose timed ones count in a slot of the bucket.
fn every_process_successes_count_once_a_failure_is_seen() {
    let segment = segment();
    let plain = config(60.0);
    let timed = Config::new(
        60.0,
        vec![
            OpeningRule::failure_rate(50.0, 20).unwrap(),
            OpeningRule::slow_call_rate(1.0, 50.0, 20).unwrap(),
        ],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 1).unwrap(),
    )
    .unwrap();
    let bucket_ms = plain.window.bucket_length_ms() as Millis;
    // (service, configuration, the successes' duration, the failures', how
    // much later the failures come)
    type Case<'a> = (&'a [u8], &'a Config, Option<Millis>, Option<Millis>, Millis);
    let cases: [Case<'_>; 6] = [
        (b"same-bucket", &plain, None, None, 0),
        (b"next-bucket", &plain, None, None, bucket_ms),
        (b"slow-rules-same-bucket", &timed, None, Some(5), 0),
        (b"slow-rules-next-bucket", &timed, None, Some(5), bucket_ms),
        (b"timed-same-bucket", &timed, Some(5), Some(5), 0),
        (b"timed-next-bucket", &timed, Some(5), None, bucket_ms),
    ];
    for (service, config, success_duration, failure_duration, later) in cases {
        let successes = fork(|| {
            let storage = storage(segment, T0);
            let circuit = circuit_of(&storage, service);
            let breaker = on(&circuit, config);
            for _ in 0..10 {
                breaker.register(Outcome::Success, success_duration, T0, &mut |event| {
                    panic!("unexpected {event:?}")
                });
            }
        });
        assert_eq!(wait_for(successes), 0);
        let (mut reader, mut writer) = pipe();
        let failures = fork(move || {
            let now = T0 + later;
            let storage = storage(segment, now);
            let circuit = circuit_of(&storage, service);
            let breaker = on(&circuit, config);
            let mut opened_at = 0u8;
            for failure in 1..=20 {
                breaker.register(Outcome::Failure, failure_duration, now, &mut |event| {
                    if matches!(event, Event::Opened { .. }) {
                        opened_at = failure;
                    }
                });
                if opened_at > 0 {
                    break;
                }
            }
            writer.write_all(&[opened_at]).unwrap();
        });
        assert_eq!(wait_for(failures), 0);
        let mut opened_at = [0u8];
        reader.read_exact(&mut opened_at).unwrap();
        assert_eq!(
            opened_at[0],
            10,
            "{}: opened at the failure that makes 50 % of 20 calls",
            String::from_utf8_lossy(service)
        );
    }
}

fn a_killed_lock_holder_leaves_no_lock() {
    let segment = segment();
    let holder = fork(|| {
        std::mem::forget(segment.lock().unwrap());
        // Dies holding the lock.
    });
    wait_for(holder);
    let guard = segment.lock().unwrap();
    assert!(guard.recovered, "the next holder is told and repairs");
}

fn sigkill_stress() {
    const WORKERS: usize = 6;
    let segment = segment();
    let config = &config(3_600.0);
    let progress = shared_words(4_096);
    let mut kills = 0u64;
    let mut spawned = 0usize;
    let spawn = |slot: usize| {
        fork(move || {
            let storage = storage(segment, T0);
            let counted_circuit = circuit_of(&storage, b"stressed");
            let counted = on(&counted_circuit, config);
            let mut round = 0u64;
            loop {
                counted.register(Outcome::Success, None, T0, &mut |_| {});
                progress[slot].fetch_add(1, Ordering::SeqCst);
                // New services and the insert lock itself, so that kills
                // land inside it too.
                round += 1;
                if round.is_multiple_of(16) {
                    drop(segment.lock().unwrap());
                }
                if round.is_multiple_of(64) {
                    let name = format!("fresh-{}-{}", slot % 16, (round / 64) % 32);
                    on(&circuit_of(&storage, name.as_bytes()), config).register(
                        Outcome::Failure,
                        None,
                        T0,
                        &mut |_| {},
                    );
                }
            }
        })
    };
    let mut children: Vec<(usize, libc::pid_t)> = (0..WORKERS).map(|slot| (slot, spawn(slot))).collect();
    spawned += WORKERS;
    let started = Instant::now();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    while started.elapsed() < Duration::from_secs(2) && spawned < progress.len() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_micros(200 + seed % 3_000));
        let victim = (seed % WORKERS as u64) as usize;
        let (_, pid) = children[victim];
        // SAFETY: `pid` is a live child of this process.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        wait_for(pid);
        kills += 1;
        let slot = spawned;
        spawned += 1;
        children[victim] = (slot, spawn(slot));
    }
    for &(_, pid) in &children {
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        wait_for(pid);
        kills += 1;
    }
    // Nothing hangs: the parent still claims records and counts.
    let storage = storage(segment, T0);
    let began = Instant::now();
    on(&circuit_of(&storage, b"after"), config).register(Outcome::Success, None, T0, &mut |e| panic!("{e:?}"));
    assert!(began.elapsed() < Duration::from_secs(1));
    // Every acknowledged outcome is counted; a killed worker may have
    // counted one more than it could acknowledge, never one less.
    let acknowledged: u64 = progress.iter().map(|p| p.load(Ordering::SeqCst)).sum();
    // The same bound for the metrics' counter of successes.
    let metrics = storage.counters(b"stressed").unwrap().unwrap().successes;
    assert!(
        metrics >= acknowledged && metrics <= acknowledged + kills,
        "metrics counted {metrics}, acknowledged {acknowledged}, {kills} kills"
    );
    let counted = successes_counted(&storage, config, b"stressed", T0);
    assert!(
        counted >= acknowledged && counted <= acknowledged + kills,
        "counted {counted}, acknowledged {acknowledged}, {kills} kills"
    );
    println!("    {kills} workers killed, {acknowledged} outcomes acknowledged, {counted} counted");
}

/// Workers race operator commands on one circuit, each with its own
/// duration and instants, and are killed with SIGKILL at random; a reader
/// loads the state all along. The state and the info word that completes it
/// are written by two stores: a reader must never pair a state with the
/// instant of another (it may find it unknown), and the circuit must stay
/// usable and listed.
fn commands_raced_and_killed_leave_consistent_states() {
    const WORKERS: usize = 6;
    let segment = segment();
    let config = &config(60.0);
    // [stop, states read, forced states with a known start, mismatches, commands won]
    let shared = shared_words(5);
    let spawn = |worker: u64| {
        fork(move || {
            let storage = storage(segment, T0);
            let breaker_circuit = circuit_of(&storage, b"commanded");
            let breaker = on(&breaker_circuit, config);
            // Worker w forces for (w + 1) minutes, at instants congruent to w mod 10.
            let duration = (worker as Millis % 10 + 1) * 60_000;
            let mut step: Millis = 0;
            loop {
                step += 1;
                let now = T0 + step * 10 + worker as Millis % 10;
                let command = match step % 3 {
                    0 => Command::ForceOpen(duration),
                    1 => Command::ForceClosed(duration),
                    _ => Command::Reset,
                };
                let mut won = 0;
                let _ = breaker.command(command, now, &mut |_| won += 1);
                shared[4].fetch_add(won, Ordering::SeqCst);
                breaker.register(Outcome::Failure, None, now, &mut |_| {});
            }
        })
    };
    let reader = fork(move || {
        let storage = storage(segment, T0);
        while shared[0].load(Ordering::SeqCst) == 0 {
            let state = storage.load_state(b"commanded").unwrap();
            shared[1].fetch_add(1, Ordering::Relaxed);
            if state.forced && state.since != 0 {
                shared[2].fetch_add(1, Ordering::Relaxed);
                let worker_of_since = (state.since - T0) % 10;
                let worker_of_duration = (state.until - state.since) / 60_000 - 1;
                if worker_of_since != worker_of_duration {
                    shared[3].fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    });
    let mut children: Vec<libc::pid_t> = (0..WORKERS as u64).map(spawn).collect();
    let mut next_worker = WORKERS as u64;
    let started = Instant::now();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut kills = 0;
    while started.elapsed() < Duration::from_secs(1) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_micros(200 + seed % 2_000));
        let victim = (seed % WORKERS as u64) as usize;
        // SAFETY: a live child of this process.
        unsafe { libc::kill(children[victim], libc::SIGKILL) };
        wait_for(children[victim]);
        kills += 1;
        children[victim] = spawn(next_worker);
        next_worker += 1;
    }
    for &pid in &children {
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        wait_for(pid);
    }
    shared[0].store(1, Ordering::SeqCst);
    assert_eq!(wait_for(reader), 0);
    let (read, known, mismatched, won) = (
        shared[1].load(Ordering::SeqCst),
        shared[2].load(Ordering::SeqCst),
        shared[3].load(Ordering::SeqCst),
        shared[4].load(Ordering::SeqCst),
    );
    assert_eq!(
        mismatched, 0,
        "{mismatched} of {known} forced states paired with another's start"
    );
    assert!(
        known > 0 && won > 0,
        "the race ran: {known} forced states seen, {won} commands won"
    );
    // Still one usable, listed circuit.
    let storage = storage(segment, T0);
    let listed = storage.list_circuits(b"").unwrap();
    assert_eq!(listed.iter().filter(|(name, _)| name == b"commanded").count(), 1);
    let breaker_circuit = circuit_of(&storage, b"commanded");
    let breaker = on(&breaker_circuit, config);
    breaker.command(Command::Reset, T0 + 1_000_000, &mut |_| {}).unwrap();
    assert_eq!(breaker.acquire(T0 + 1_000_000, &mut |_| {}), Permission::Permitted);
    println!("    {kills} workers killed, {won} commands won, {read} states read, {known} forced with a known start");
}

/// Forked processes racing for the permits of one bulkhead never hold more
/// than its limit at once: each counts itself in while it holds one, in a
/// word shared with the parent, and records the most it saw.
fn a_bulkhead_never_lets_more_than_its_limit_through() {
    const LIMIT: u16 = 3;
    const PROCESSES: usize = 8;
    const ROUNDS: usize = 5_000;
    let table: &'static Table = Box::leak(Box::new(Table::shared(4).unwrap()));
    let entry = table.entry_of(b"raced").unwrap();
    // [inside now, most seen inside, permits taken, refusals]
    let words = shared_words(4);
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            fork(|| {
                for _ in 0..ROUNDS {
                    match held::enter(table, entry, LIMIT) {
                        Ok(permit) => {
                            let inside = words[0].fetch_add(1, Ordering::SeqCst) + 1;
                            words[1].fetch_max(inside, Ordering::SeqCst);
                            words[2].fetch_add(1, Ordering::Relaxed);
                            // Held long enough for the others to want it.
                            std::thread::sleep(Duration::from_micros(20));
                            words[0].fetch_sub(1, Ordering::SeqCst);
                            drop(permit);
                        }
                        Err(_) => {
                            words[3].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    for child in children {
        assert_eq!(wait_for(child), 0);
    }
    let (most, taken, refused) = (
        words[1].load(Ordering::SeqCst),
        words[2].load(Ordering::SeqCst),
        words[3].load(Ordering::SeqCst),
    );
    println!("  {PROCESSES} processes x {ROUNDS}: {taken} permits, {refused} refusals, at most {most} at once");
    assert!(
        most <= u64::from(LIMIT),
        "{most} calls in flight with a limit of {LIMIT}"
    );
    assert!(refused > 0, "the processes raced for the permits");
    assert_eq!(taken + refused, (PROCESSES * ROUNDS) as u64);
    assert_eq!(table.refusals(entry), refused);
    assert_eq!(
        table.in_flight(entry, Owner::this_process()),
        0,
        "every permit given back"
    );
}

/// 100 processes SIGKILLed while holding permits (and the limit's worth of
/// them holding it full) leave the bulkhead whole: the next process takes
/// every permit of the limit.
fn killed_holders_leave_the_bulkhead_whole() {
    const LIMIT: u16 = 10;
    const PROCESSES: usize = 100;
    let table: &'static Table = Box::leak(Box::new(Table::shared(4).unwrap()));
    let entry = table.entry_of(b"killed").unwrap();
    let (reader, writer) = pipe();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            let mut writer = writer.try_clone().unwrap();
            fork(move || {
                let permit = held::enter(table, entry, LIMIT);
                writer.write_all(if permit.is_ok() { b"p" } else { b"r" }).unwrap();
                // Held until killed.
                loop {
                    std::thread::sleep(Duration::from_secs(60));
                }
            })
        })
        .collect();
    drop(writer);
    let mut answers = vec![0; PROCESSES];
    (&reader).read_exact(&mut answers).unwrap();
    let permitted = answers.iter().filter(|&&answer| answer == b'p').count();
    assert_eq!(permitted, usize::from(LIMIT), "the limit's worth permitted");
    for &child in &children {
        // SAFETY: kills a child of this process.
        unsafe { libc::kill(child, libc::SIGKILL) };
    }
    // Wait until each is dead, without reaping it: a zombie holds nothing,
    // and must be seen so.
    for &child in &children {
        // SAFETY: zeros are a valid `siginfo_t`, which waitid fills for a
        // child of this process.
        let waited = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                child as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        assert_eq!(waited, 0);
    }
    let me = Owner::this_process();
    let permits: Vec<_> = (0..LIMIT)
        .map(|_| held::enter(table, entry, LIMIT).expect("the permits of the killed are reclaimed"))
        .collect();
    assert_eq!(table.in_flight(entry, me), u32::from(LIMIT));
    assert!(held::enter(table, entry, LIMIT).is_err(), "and the limit still holds");
    drop(permits);
    for child in children {
        wait_for(child);
    }
    assert_eq!(table.in_flight(entry, me), 0);
}

fn main() {
    let tests: [(&str, fn()); 11] = [
        (
            "a_bulkhead_never_lets_more_than_its_limit_through",
            a_bulkhead_never_lets_more_than_its_limit_through,
        ),
        (
            "killed_holders_leave_the_bulkhead_whole",
            killed_holders_leave_the_bulkhead_whole,
        ),
        (
            "a_remembered_place_is_not_trusted_after_a_reuse",
            a_remembered_place_is_not_trusted_after_a_reuse,
        ),
        ("past_sums_are_kept_per_generation", past_sums_are_kept_per_generation),
        ("no_increment_is_lost", no_increment_is_lost),
        (
            "processes_count_their_successes_on_words_of_their_own",
            processes_count_their_successes_on_words_of_their_own,
        ),
        (
            "every_process_successes_count_once_a_failure_is_seen",
            every_process_successes_count_once_a_failure_is_seen,
        ),
        ("each_transition_is_emitted_once", each_transition_is_emitted_once),
        (
            "a_killed_lock_holder_leaves_no_lock",
            a_killed_lock_holder_leaves_no_lock,
        ),
        ("sigkill_stress", sigkill_stress),
        (
            "commands_raced_and_killed_leave_consistent_states",
            commands_raced_and_killed_leave_consistent_states,
        ),
    ];
    let mut failed = 0;
    for (name, test) in tests {
        match std::panic::catch_unwind(test) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("shm processes: {} passed, {failed} failed", tests.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
