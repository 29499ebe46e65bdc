//! The semantics through the orchestration and the in-memory storage, on a
//! manual clock.

use std::cell::Cell;
use std::rc::Rc;

use circuit_breaker::breaker::{Breaker, Event, Permission};
use circuit_breaker::core::config::Config;
use circuit_breaker::core::counts::Outcome;
use circuit_breaker::core::duration::Millis;
use circuit_breaker::core::half_open::{HalfOpenPolicy, PowerCurve};
use circuit_breaker::core::machine::Phase;
use circuit_breaker::core::rules::OpeningRule;
use circuit_breaker::storage::memory::InMemoryStorage;

const T0: Millis = 1_764_000_000_000;

struct Harness {
    clock: Rc<Cell<Millis>>,
    storage: InMemoryStorage,
    config: Config,
    events: Vec<Event>,
}

impl Harness {
    fn new(config: Config) -> Self {
        let clock = Rc::new(Cell::new(T0));
        let storage_clock = clock.clone();
        let storage = InMemoryStorage::new(Box::new(move || storage_clock.get()));
        Self {
            clock,
            storage,
            config,
            events: Vec::new(),
        }
    }

    fn breaker(&self) -> Breaker<'_, InMemoryStorage> {
        Breaker {
            service: b"payments",
            config: &self.config,
            storage: &self.storage,
        }
    }

    fn sleep(&self, ms: Millis) {
        self.clock.set(self.clock.get() + ms);
    }

    fn acquire(&mut self) -> Permission {
        let now = self.clock.get();
        let mut events = Vec::new();
        let permission = self.breaker().acquire(now, &mut |event| events.push(event));
        self.events.extend(events);
        permission
    }

    fn register(&mut self, outcome: Outcome, duration: Option<Millis>) {
        let now = self.clock.get();
        let mut events = Vec::new();
        self.breaker()
            .register(outcome, duration, now, &mut |event| events.push(event));
        self.events.extend(events);
    }

    fn fail(&mut self, times: usize) {
        for _ in 0..times {
            self.register(Outcome::Failure, None);
        }
    }

    fn succeed(&mut self, times: usize) {
        for _ in 0..times {
            self.register(Outcome::Success, None);
        }
    }

    fn state(&self) -> Phase {
        self.breaker().state(self.clock.get()).unwrap()
    }

    fn transitions(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .filter_map(|event| match event {
                Event::Opened { .. } => Some("opened"),
                Event::HalfOpened => Some("half_opened"),
                Event::Closed => Some("closed"),
                _ => None,
            })
            .collect()
    }
}

fn failure_rate_config(window: f64, policy: HalfOpenPolicy) -> Config {
    Config::new(window, vec![OpeningRule::failure_rate(50.0, 4).unwrap()], 10.0, policy).unwrap()
}

fn single_trial() -> HalfOpenPolicy {
    HalfOpenPolicy::permitted_calls(30.0, 1).unwrap()
}

#[test]
fn opens_rejects_and_recovers_through_a_single_trial() {
    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.succeed(2);
    h.fail(2);
    assert_eq!(h.state(), Phase::Open);
    assert_eq!(
        h.acquire(),
        Permission::Rejected {
            phase: Phase::Open,
            retry_after_ms: Some(10_000)
        }
    );
    h.sleep(9_999);
    assert_eq!(
        h.acquire(),
        Permission::Rejected {
            phase: Phase::Open,
            retry_after_ms: Some(1)
        }
    );
    h.sleep(1);
    assert_eq!(h.state(), Phase::HalfOpen);
    assert_eq!(h.acquire(), Permission::Permitted);
    assert_eq!(
        h.acquire(),
        Permission::Rejected {
            phase: Phase::HalfOpen,
            retry_after_ms: None
        }
    );
    h.succeed(1);
    assert_eq!(h.state(), Phase::Closed);
    assert_eq!(h.transitions(), vec!["opened", "half_opened", "closed"]);
}

#[test]
fn the_window_slides() {
    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.fail(3);
    h.sleep(9_999);
    h.succeed(2); // 3 failures of 5: still counted
    assert_eq!(h.state(), Phase::Open);

    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.fail(3);
    h.sleep(10_000); // the first bucket has left the window
    h.succeed(1);
    h.fail(1);
    assert_eq!(h.state(), Phase::Closed);
}

#[test]
fn half_open_never_sees_the_failures_that_opened_and_closed_starts_afresh() {
    let config = Config::new(
        60.0,
        vec![OpeningRule::failure_rate(50.0, 4).unwrap()],
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 2).unwrap(),
    )
    .unwrap();
    let mut h = Harness::new(config);
    h.fail(4);
    h.sleep(10_000);
    assert_eq!(h.acquire(), Permission::Permitted);
    h.succeed(1); // 1 of 2 permitted calls reported, the 4 failures are not seen
    assert_eq!(h.state(), Phase::HalfOpen);
    assert_eq!(h.acquire(), Permission::Permitted);
    h.succeed(1);
    assert_eq!(h.state(), Phase::Closed);
    // Closed starts afresh: three more failures are below the minimum.
    h.fail(3);
    assert_eq!(h.state(), Phase::Closed);
    h.fail(1);
    assert_eq!(h.state(), Phase::Open);
}

#[test]
fn late_failures_count_for_half_open_and_reopen_it() {
    let mut h = Harness::new(failure_rate_config(
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 5).unwrap(),
    ));
    h.fail(4);
    h.sleep(10_000);
    // A call started before the circuit opened fails only now, without any acquire.
    h.fail(1);
    assert_eq!(h.state(), Phase::Open);
    assert_eq!(h.transitions(), vec!["opened", "half_opened", "opened"]);
    let reopened = h.events.iter().rev().find_map(|event| match event {
        Event::Opened { previous, .. } => Some(*previous),
        _ => None,
    });
    assert_eq!(reopened, Some(Phase::HalfOpen));
}

#[test]
fn late_outcomes_while_open_change_nothing() {
    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.fail(4);
    h.succeed(50);
    h.fail(50);
    assert_eq!(h.transitions(), vec!["opened"]);
}

#[test]
fn long_silence_goes_straight_to_closed() {
    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.fail(4);
    h.sleep(10_000 + 30_000);
    assert_eq!(h.state(), Phase::Closed);
    assert_eq!(h.acquire(), Permission::Permitted);
    assert_eq!(h.transitions(), vec!["opened", "closed"]);
}

#[test]
fn get_state_changes_nothing() {
    let mut h = Harness::new(failure_rate_config(10.0, single_trial()));
    h.fail(4);
    h.sleep(10_000);
    assert_eq!(h.state(), Phase::HalfOpen);
    assert_eq!(h.state(), Phase::HalfOpen);
    assert_eq!(h.transitions(), vec!["opened"]);
}

#[test]
fn ramp_permits_a_growing_share_and_closes_after_its_duration() {
    let policy = HalfOpenPolicy::ramp(60.0, Rc::new(PowerCurve::new(0.1, 1.0).unwrap())).unwrap();
    let mut h = Harness::new(failure_rate_config(60.0, policy));
    h.fail(4);
    h.sleep(10_000);
    let permitted = (0..100).filter(|_| h.acquire() == Permission::Permitted).count();
    assert_eq!(permitted, 10);
    h.sleep(30_000); // half way: 10% + 90% * 0.5 = 55%
    let permitted = (0..100).filter(|_| h.acquire() == Permission::Permitted).count();
    assert_eq!(permitted, 55);
    h.succeed(20);
    assert_eq!(h.state(), Phase::HalfOpen);
    h.sleep(30_000);
    assert_eq!(h.state(), Phase::Closed);
    assert_eq!(h.acquire(), Permission::Permitted);
    assert_eq!(h.transitions(), vec!["opened", "half_opened", "closed"]);
}

#[test]
fn permitted_calls_close_at_the_maximum_duration_when_some_never_report() {
    let mut h = Harness::new(failure_rate_config(
        10.0,
        HalfOpenPolicy::permitted_calls(30.0, 3).unwrap(),
    ));
    h.fail(4);
    h.sleep(10_000);
    for _ in 0..3 {
        assert_eq!(h.acquire(), Permission::Permitted);
    }
    h.succeed(2);
    h.sleep(29_999);
    assert_eq!(h.state(), Phase::HalfOpen);
    h.sleep(1);
    assert_eq!(h.acquire(), Permission::Permitted);
    assert_eq!(h.transitions(), vec!["opened", "half_opened", "closed"]);
}

#[test]
fn slow_calls_open_the_circuit() {
    let config = Config::new(
        30.0,
        vec![
            OpeningRule::failure_rate(50.0, 10).unwrap(),
            OpeningRule::slow_call_rate(2.0, 80.0, 5).unwrap(),
        ],
        10.0,
        single_trial(),
    )
    .unwrap();
    let mut h = Harness::new(config);
    for _ in 0..4 {
        h.register(Outcome::Success, Some(2_000));
    }
    h.succeed(30); // without duration: does not dilute
    assert_eq!(h.state(), Phase::Closed);
    h.register(Outcome::Success, Some(100));
    assert_eq!(h.state(), Phase::Open);
    match &h.events[0] {
        Event::Opened { cause, .. } => assert_eq!((cause.rule_index, cause.matching, cause.evaluated), (1, 4, 5)),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn consecutive_failures_open_whatever_the_window_holds() {
    let config = Config::new(
        60.0,
        vec![
            OpeningRule::failure_rate(50.0, 10).unwrap(),
            OpeningRule::consecutive_failures(3).unwrap(),
        ],
        10.0,
        single_trial(),
    )
    .unwrap();
    let mut h = Harness::new(config);
    h.succeed(1_000);
    h.fail(2);
    h.succeed(1);
    h.fail(2);
    assert_eq!(h.state(), Phase::Closed);
    h.fail(1);
    assert_eq!(h.state(), Phase::Open);
}

#[test]
fn each_window_size_counts_the_right_span() {
    // Fails 3 times at the start of a bucket, waits `later` ms, fails once more.
    let state_after = |window: f64, bucket: Millis, later: Millis| {
        let mut h = Harness::new(failure_rate_config(window, single_trial()));
        let now = h.clock.get();
        h.sleep(bucket - now.rem_euclid(bucket));
        h.fail(3);
        h.sleep(later);
        h.fail(1);
        h.state()
    };
    for (window, bucket) in [
        (10.0, 1_000),
        (30.0, 1_000),
        (90.0, 1_500),
        (600.0, 10_000),
        (3_600.0, 60_000),
    ] {
        let window_ms = (window * 1000.0) as Millis;
        assert_eq!(
            state_after(window, bucket, window_ms - 1),
            Phase::Open,
            "window {window}: the first failures are in"
        );
        assert_eq!(
            state_after(window, bucket, window_ms),
            Phase::Closed,
            "window {window}: the first failures left"
        );
    }
}
