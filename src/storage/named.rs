//! The circuit of a [`CircuitStore`]: the store and the service, each
//! operation the store's own with the service given. Forwarding written once.

use std::rc::Rc;

use super::{CallCounters, Circuit, CircuitStore, Notice, OutcomeRecord, StorageError};
use crate::core::config::Config;
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

pub struct Named<S: ?Sized> {
    store: Rc<S>,
    service: Vec<u8>,
}

impl<S: CircuitStore + ?Sized> Named<S> {
    pub fn new(store: Rc<S>, service: &[u8]) -> Self {
        Self {
            store,
            service: service.to_vec(),
        }
    }

    pub fn store(&self) -> &S {
        &self.store
    }
}

impl<S: CircuitStore + ?Sized> Circuit for Named<S> {
    fn service(&self) -> &[u8] {
        &self.service
    }

    #[inline]
    fn begin_call(&self, _now: Option<Millis>) {
        self.store.begin_call();
    }

    fn load_state(&self) -> Result<CircuitState, StorageError> {
        self.store.load_state(&self.service)
    }

    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.store.compare_and_set_state(&self.service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.store.record_outcome(&self.service, record)
    }

    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.store.admit_half_open(&self.service, state, ttl_ms)
    }

    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.store
            .read_window(&self.service, generation, window, slot_count, now)
    }

    fn count_permission(&self, permitted: bool, config: &Config) {
        self.store.count_permission(&self.service, permitted, config);
    }

    fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.store.counters(&self.service)
    }

    fn take_notices(&self, _notice: &mut dyn FnMut(Notice)) {}
}
