//! Circuits kept in the memory of the current process: for tests and for
//! long-running processes.
//!
//! Like the other storages, it forgets a circuit once its time to live has
//! passed, on its own clock: every call also looks at a few other circuits
//! and drops those that expired, so memory follows the circuits in use, not
//! every name ever seen.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::named::Named;
use super::{CallCounters, CircuitStore, ListedCircuit, ListedCircuitCounters, OutcomeRecord, Storage, StorageError};
use crate::core::config::Config;
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::WindowGeometry;

/// The time a storage expires its entries by. The PHP layer passes the
/// user's clock, so that a mock clock moves expiry too.
pub type ExpiryClock = Box<dyn Fn() -> Millis>;

/// Live circuits a call looks at, past the one it uses, for expiry. Expired
/// ones it finds on the way are dropped too, up to [`MAX_DROPS_PER_CALL`]:
/// each circuit is dropped once, so that work is paid by its creation, and
/// a sweep visits every circuit once per `len / LIVE_CHECKS_PER_CALL` calls.
const LIVE_CHECKS_PER_CALL: usize = 2;

/// Expired circuits one call drops at most: after a long pause of a process
/// holding many circuits, no single call pays for all of them.
const MAX_DROPS_PER_CALL: usize = 64;

#[derive(Default)]
struct Circuit {
    state: CircuitState,
    /// When the circuit is forgotten, in ms of the storage's clock.
    expires_at: Millis,
    generation: u64,
    buckets: BTreeMap<i64, Vec<u64>>,
    generation_outcomes: u64,
    consecutive_failures: u64,
    admissions: u64,
    /// Kept across generations, forgotten with the circuit.
    counters: CallCounters,
}

impl Default for CircuitState {
    fn default() -> Self {
        Self::INITIAL
    }
}

impl Circuit {
    fn is_expired(&self, now: Millis) -> bool {
        self.expires_at <= now
    }

    /// Keeps the circuit at least `ttl_ms` from `now`.
    fn keep_for(&mut self, now: Millis, ttl_ms: Millis) {
        self.expires_at = self.expires_at.max(now + ttl_ms);
    }

    /// Moves the counters to `generation`, forgetting those of older ones,
    /// which are never read again. False when `generation` is older than the
    /// counters: a stale caller, whose count must not wipe the newer ones.
    fn enter_generation(&mut self, generation: u64) -> bool {
        if generation > self.generation {
            *self = Circuit {
                state: self.state,
                expires_at: self.expires_at,
                counters: self.counters,
                generation,
                ..Circuit::default()
            };
        }
        generation == self.generation
    }
}

/// The circuits, in a vector so that expiry can walk them with a cursor,
/// and an index from name to position.
#[derive(Default)]
struct Circuits {
    positions: HashMap<Vec<u8>, usize>,
    entries: Vec<(Vec<u8>, Circuit)>,
    /// Where the expiry walk goes on at the next call.
    cursor: usize,
}

impl Circuits {
    fn get(&self, service: &[u8], now: Millis) -> Option<&Circuit> {
        let circuit = &self.entries[*self.positions.get(service)?].1;
        (!circuit.is_expired(now)).then_some(circuit)
    }

    /// The live circuit of `service`, made afresh when absent or expired.
    fn get_or_create(&mut self, service: &[u8], now: Millis) -> &mut Circuit {
        let position = match self.positions.get(service) {
            Some(&position) => position,
            None => {
                self.positions.insert(service.to_vec(), self.entries.len());
                self.entries.push((service.to_vec(), Circuit::default()));
                self.entries.len() - 1
            }
        };
        let circuit = &mut self.entries[position].1;
        if circuit.is_expired(now) {
            *circuit = Circuit::default();
        }
        circuit
    }

    fn remove(&mut self, position: usize) {
        let (name, _) = self.entries.swap_remove(position);
        self.positions.remove(&name);
        if let Some((moved, _)) = self.entries.get(position) {
            *self.positions.get_mut(moved).expect("every entry is indexed") = position;
        }
    }

    /// One step of the expiry walk: O(1) per call, amortised.
    fn expire(&mut self, now: Millis) {
        let (mut live, mut dropped) = (0, 0);
        while live < LIVE_CHECKS_PER_CALL && dropped < MAX_DROPS_PER_CALL && !self.entries.is_empty() {
            if self.cursor >= self.entries.len() {
                self.cursor = 0;
            }
            if self.entries[self.cursor].1.is_expired(now) {
                self.remove(self.cursor);
                dropped += 1;
            } else {
                self.cursor += 1;
                live += 1;
            }
        }
        // Give memory back once most circuits are gone; the rehash costs
        // O(len), paid by the 3 * len circuits dropped since the last one.
        if dropped > 0 && self.entries.len() < self.entries.capacity() / 4 {
            self.entries.shrink_to(self.entries.len() * 2);
            self.positions.shrink_to(self.entries.len() * 2);
            give_back_freed_memory();
        }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Returns the pages freed by dropped circuits to the system. glibc keeps
/// freed small blocks in its heap, so without this a process that once held
/// many circuits would keep their memory; called only after a shrink, which
/// the dropping of most circuits pays for.
///
/// Measured (release build, glibc 2.36): a process whose resident memory
/// grew from 3.6 MB to 72.9 MB with 100 000 circuits is back at 3.8 MB once
/// they expired, and stays at 52.4 MB with `shrink_to` alone (10 000
/// circuits: 10.9 MB, back to 3.9 MB, or 8.6 MB without). The price is paid
/// by the calls that shrink: the trim after the largest shrink of those
/// 100 000 took 45 ms, the others at most about 1 ms.
fn give_back_freed_memory() {
    super::sys::trim_heap();
}

pub struct InMemoryStorage {
    circuits: RefCell<Circuits>,
    clock: ExpiryClock,
}

impl InMemoryStorage {
    pub fn new(clock: ExpiryClock) -> Self {
        Self {
            circuits: RefCell::default(),
            clock,
        }
    }

    /// Runs `f` on the live circuit of `service`, created when absent or
    /// expired, at `now` of the storage's clock. The clock is read before
    /// borrowing: a userland clock may run any code.
    fn with_circuit<T>(&self, service: &[u8], f: impl FnOnce(&mut Circuit, Millis) -> T) -> T {
        let now = (self.clock)();
        let mut circuits = self.circuits.borrow_mut();
        circuits.expire(now);
        f(circuits.get_or_create(service, now), now)
    }

    /// How many circuits the storage holds, expired ones not yet dropped included.
    pub fn circuit_count(&self) -> usize {
        self.circuits.borrow().len()
    }
}

impl Storage for InMemoryStorage {
    fn circuit(self: Rc<Self>, service: &[u8]) -> super::KeptCircuit {
        super::KeptCircuit::boxed(Named::new(self, service))
    }

    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        Ok(self
            .list_circuits_with_counters(prefix)?
            .into_iter()
            .map(|(service, state, _)| (service, state))
            .collect())
    }

    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        let now = (self.clock)();
        let circuits = self.circuits.borrow();
        Ok(circuits
            .entries
            .iter()
            .filter(|(name, circuit)| name.starts_with(prefix) && !circuit.is_expired(now))
            .map(|(name, circuit)| (name.clone(), circuit.state, Some(circuit.counters)))
            .collect())
    }
}

impl CircuitStore for InMemoryStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let now = (self.clock)();
        let mut circuits = self.circuits.borrow_mut();
        circuits.expire(now);
        Ok(circuits
            .get(service, now)
            .map_or(CircuitState::INITIAL, |circuit| circuit.state))
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        Ok(self.with_circuit(service, |circuit, now| {
            if circuit.state != expected {
                return false;
            }
            circuit.state = new;
            if new.phase == Phase::Open && !new.forced {
                circuit.counters.openings += 1;
            }
            // The time to live of the new state, which may be shorter.
            circuit.expires_at = now + ttl_ms;
            true
        }))
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        Ok(self.with_circuit(service, |circuit, now| {
            let generation = circuit.state.generation;
            circuit.enter_generation(generation);
            circuit.keep_for(now, record.state_ttl_ms_in(circuit.state.phase));
            let covered = record.window.buckets_covering(record.now);
            let oldest = *covered.start();
            circuit.buckets.retain(|&bucket, _| bucket >= oldest);
            let counters = circuit.buckets.entry(*covered.end()).or_default();
            // Breakers of one service may have different rules, and so a
            // different number of counters: each reads the ones it knows.
            if counters.len() < record.slot_count {
                counters.resize(record.slot_count, 0);
            }
            counters[record.slot] += 1;
            let metrics = &mut circuit.counters;
            match record.outcome {
                Outcome::Success => metrics.successes += 1,
                Outcome::Failure => metrics.failures += 1,
            }
            metrics.slow_calls += u64::from(record.slow);
            circuit.generation_outcomes += 1;
            circuit.consecutive_failures = match record.outcome {
                Outcome::Failure => circuit.consecutive_failures + 1,
                Outcome::Success => 0,
            };
            let mut window = vec![0; record.slot_count];
            for counters in circuit.buckets.range(covered).map(|(_, counters)| counters) {
                for (sum, value) in window.iter_mut().zip(counters) {
                    *sum += value;
                }
            }
            let tally = Tally {
                window: window.into(),
                generation_outcomes: circuit.generation_outcomes,
                consecutive_failures: circuit.consecutive_failures,
            };
            (circuit.state, tally)
        }))
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let clock_now = (self.clock)();
        let circuits = self.circuits.borrow();
        let mut sums = vec![0; slot_count];
        if let Some(circuit) = circuits
            .get(service, clock_now)
            .filter(|circuit| circuit.generation == generation)
        {
            for counters in circuit.buckets.range(window.buckets_covering(now)).map(|(_, c)| c) {
                for (sum, value) in sums.iter_mut().zip(counters) {
                    *sum += value;
                }
            }
        }
        Ok(sums)
    }

    fn count_permission(&self, service: &[u8], permitted: bool, config: &Config) {
        self.with_circuit(service, |circuit, now| {
            circuit.keep_for(now, config.state_ttl_ms(Phase::Closed));
            let counters = &mut circuit.counters;
            if permitted {
                counters.calls_permitted += 1;
            } else {
                counters.calls_rejected += 1;
            }
        });
    }

    fn counters(&self, service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        let now = (self.clock)();
        let circuits = self.circuits.borrow();
        Ok(Some(
            circuits
                .get(service, now)
                .map_or_else(CallCounters::default, |circuit| circuit.counters),
        ))
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        Ok(self.with_circuit(service, |circuit, now| {
            if !circuit.enter_generation(state.generation) {
                return circuit.admissions + 1;
            }
            circuit.keep_for(now, ttl_ms);
            circuit.admissions += 1;
            circuit.admissions
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;
    use crate::core::config::Config;
    use crate::core::half_open::HalfOpenPolicy;
    use crate::core::rules::OpeningRule;

    const T0: Millis = 1_764_000_000_000;

    fn storage() -> (InMemoryStorage, Rc<Cell<Millis>>) {
        let clock = Rc::new(Cell::new(T0));
        let storage_clock = clock.clone();
        (InMemoryStorage::new(Box::new(move || storage_clock.get())), clock)
    }

    fn config(rules: Vec<OpeningRule>) -> Config {
        Config::new(10.0, rules, 10.0, HalfOpenPolicy::permitted_calls(30.0, 1).unwrap()).unwrap()
    }

    #[test]
    fn idle_circuits_are_forgotten_as_calls_go_on() {
        let (storage, clock) = storage();
        let config = config(vec![OpeningRule::failure_rate(50.0, 10).unwrap()]);
        for index in 0..10_000 {
            let record = OutcomeRecord::new(&config, Outcome::Success, None, T0);
            storage.record_outcome(format!("s{index}").as_bytes(), &record).unwrap();
        }
        assert_eq!(storage.circuit_count(), 10_000);
        clock.set(T0 + config.state_ttl_ms(crate::core::machine::Phase::Closed) + 1);
        let now = clock.get();
        for _ in 0..10_000 / MAX_DROPS_PER_CALL + 1 {
            storage
                .record_outcome(b"busy", &OutcomeRecord::new(&config, Outcome::Success, None, now))
                .unwrap();
        }
        assert_eq!(storage.circuit_count(), 1, "only the circuit in use is left");
        assert!(storage.circuits.borrow().entries.capacity() < 100);
    }

    #[test]
    fn a_circuit_in_use_is_kept() {
        let (storage, clock) = storage();
        let config = config(vec![OpeningRule::failure_rate(50.0, 10).unwrap()]);
        let ttl = config.state_ttl_ms(crate::core::machine::Phase::Closed);
        for step in 0..5 {
            let now = T0 + step * (ttl - 1);
            clock.set(now);
            let record = OutcomeRecord::new(&config, Outcome::Failure, None, now);
            storage.record_outcome(b"kept", &record).unwrap();
            storage.record_outcome(b"other", &record).unwrap();
        }
        let record = OutcomeRecord::new(&config, Outcome::Failure, None, clock.get());
        let (_, tally) = storage.record_outcome(b"kept", &record).unwrap();
        assert_eq!(tally.consecutive_failures, 6, "never forgotten while used");
    }

    #[test]
    fn breakers_with_different_slot_counts_share_a_circuit() {
        let (storage, _) = storage();
        let plain = config(vec![OpeningRule::failure_rate(50.0, 10).unwrap()]);
        let slow = config(vec![
            OpeningRule::slow_call_rate(1.0, 50.0, 10).unwrap(),
            OpeningRule::slow_call_rate(2.0, 50.0, 10).unwrap(),
        ]);
        assert!(plain.bands.slot_count() < slow.bands.slot_count());
        storage
            .record_outcome(b"s", &OutcomeRecord::new(&plain, Outcome::Failure, None, T0))
            .unwrap();
        let record = OutcomeRecord::new(&slow, Outcome::Failure, Some(3_000), T0);
        let (_, tally) = storage.record_outcome(b"s", &record).unwrap();
        assert_eq!(tally.window.len(), slow.bands.slot_count());
        assert_eq!(tally.window[record.slot], 1);
        assert_eq!(tally.window.iter().sum::<u64>(), 2);
        let (_, tally) = storage
            .record_outcome(b"s", &OutcomeRecord::new(&plain, Outcome::Success, None, T0))
            .unwrap();
        assert_eq!(tally.window, vec![1, 1]);
    }
}
