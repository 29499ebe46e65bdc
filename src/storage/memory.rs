//! Circuits kept in the memory of the current process: for tests and for
//! long-running processes.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use super::{OutcomeRecord, Storage, StorageError};
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;

/// The time a storage expires its entries by. The PHP layer passes the
/// user's clock, so that a mock clock moves expiry too.
pub type ExpiryClock = Box<dyn Fn() -> Millis>;

#[derive(Default)]
struct Circuit {
    state: CircuitState,
    expires_at: Millis,
    generation: u64,
    buckets: BTreeMap<i64, Vec<u64>>,
    generation_outcomes: u64,
    consecutive_failures: u64,
    admissions: u64,
}

impl Default for CircuitState {
    fn default() -> Self {
        Self::INITIAL
    }
}

impl Circuit {
    /// Moves the counters to `generation`, forgetting those of older ones,
    /// which are never read again. False when `generation` is older than the
    /// counters: a stale caller, whose count must not wipe the newer ones.
    fn enter_generation(&mut self, generation: u64) -> bool {
        if generation > self.generation {
            *self = Circuit {
                state: self.state,
                expires_at: self.expires_at,
                generation,
                ..Circuit::default()
            };
        }
        generation == self.generation
    }
}

pub struct InMemoryStorage {
    circuits: RefCell<HashMap<Vec<u8>, Circuit>>,
    clock: ExpiryClock,
}

impl InMemoryStorage {
    pub fn new(clock: ExpiryClock) -> Self {
        Self {
            circuits: RefCell::new(HashMap::new()),
            clock,
        }
    }

    /// Runs `f` on the live circuit of `service`, created when absent or expired.
    fn with_circuit<T>(&self, service: &[u8], f: impl FnOnce(&mut Circuit) -> T) -> T {
        let now = (self.clock)();
        let mut circuits = self.circuits.borrow_mut();
        let circuit = circuits.entry(service.to_vec()).or_default();
        if circuit.expires_at != 0 && circuit.expires_at <= now {
            *circuit = Circuit::default();
        }
        f(circuit)
    }

    fn refresh(&self, circuit: &mut Circuit, ttl_ms: Millis) {
        circuit.expires_at = circuit.expires_at.max((self.clock)() + ttl_ms);
    }
}

impl Storage for InMemoryStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let now = (self.clock)();
        Ok(match self.circuits.borrow().get(service) {
            Some(circuit) if circuit.expires_at == 0 || circuit.expires_at > now => circuit.state,
            _ => CircuitState::INITIAL,
        })
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        Ok(self.with_circuit(service, |circuit| {
            if circuit.state != expected {
                return false;
            }
            circuit.state = new;
            circuit.expires_at = 0;
            self.refresh(circuit, ttl_ms);
            true
        }))
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        Ok(self.with_circuit(service, |circuit| {
            let generation = circuit.state.generation;
            circuit.enter_generation(generation);
            self.refresh(circuit, record.state_ttl_ms);
            let covered = record.window.buckets_covering(record.now);
            let oldest = *covered.start();
            circuit.buckets.retain(|&bucket, _| bucket >= oldest);
            let counters = circuit
                .buckets
                .entry(*covered.end())
                .or_insert_with(|| vec![0; record.slot_count]);
            counters[record.slot] += 1;
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
                window,
                generation_outcomes: circuit.generation_outcomes,
                consecutive_failures: circuit.consecutive_failures,
            };
            (circuit.state, tally)
        }))
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        Ok(self.with_circuit(service, |circuit| {
            if !circuit.enter_generation(state.generation) {
                return circuit.admissions + 1;
            }
            self.refresh(circuit, ttl_ms);
            circuit.admissions += 1;
            circuit.admissions
        }))
    }
}
