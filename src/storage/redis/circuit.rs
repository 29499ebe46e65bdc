//! The circuit handle of a [`RedisStorage`], made once per breaker: its
//! keys and its name in the process's memory (`memory.rs`) are built with
//! it, not at every call (a store's caller, `FleetStorage`, goes through
//! `CircuitStore`, which builds them per call).

use std::rc::Rc;

use super::RedisStorage;
use super::keys::ServiceKeys;
use crate::core::config::Config;
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;
use crate::storage::{CallCounters, Circuit, CircuitStore, Notice, OutcomeRecord, StorageError};

pub struct RedisCircuit {
    storage: Rc<RedisStorage>,
    service: Vec<u8>,
    keys: ServiceKeys,
    /// Its name in the memory.
    memory: Vec<u8>,
}

impl RedisCircuit {
    pub fn new(storage: Rc<RedisStorage>, service: &[u8]) -> Self {
        let keys = storage.keys(service);
        let memory = storage.memory_name(&keys);
        Self {
            storage,
            service: service.to_vec(),
            keys,
            memory,
        }
    }
}

impl Circuit for RedisCircuit {
    fn service(&self) -> &[u8] {
        &self.service
    }

    #[inline]
    fn begin_call(&self, _now: Option<Millis>) {
        self.storage.begin_call();
    }

    fn load_state(&self) -> Result<CircuitState, StorageError> {
        self.storage.load_state_at(&self.keys, &self.memory)
    }

    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.storage
            .compare_and_set_at(&self.keys, &self.memory, expected, new, ttl_ms)
    }

    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.storage.record_outcome_at(&self.keys, &self.memory, record)
    }

    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.storage.admit_half_open_at(&self.keys, state, ttl_ms)
    }

    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.storage
            .read_window(&self.service, generation, window, slot_count, now)
    }

    fn count_permission(&self, permitted: bool, config: &Config) {
        self.storage.count_permission(&self.service, permitted, config);
    }

    fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.storage.counters(&self.service)
    }

    fn take_notices(&self, _notice: &mut dyn FnMut(Notice)) {}
}
