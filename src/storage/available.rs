//! A storage that a PHP object may lack: its shared-memory segment could
//! not be made or attached. Every operation then fails (the breaker fails
//! open, and says why), and everything that returns nothing does nothing.

use super::{
    CallCounters, FleetView, HostWindow, ListedCircuit, ListedCircuitCounters, Notice, OutcomeRecord, RememberedOpen,
    Storage, StorageError,
};
use crate::core::config::Config;
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

pub enum Available<S> {
    Ready(S),
    /// Why there is no storage.
    Unavailable(String),
}

impl<S> Available<S> {
    /// The storage, when there is one.
    pub fn ready(&self) -> Option<&S> {
        match self {
            Self::Ready(storage) => Some(storage),
            Self::Unavailable(_) => None,
        }
    }

    pub fn usable(&self) -> Result<&S, StorageError> {
        match self {
            Self::Ready(storage) => Ok(storage),
            Self::Unavailable(error) => Err(StorageError::Unavailable(error.clone())),
        }
    }
}

impl<S: Storage> Storage for Available<S> {
    fn scope(&self) -> Vec<u8> {
        match self {
            Self::Ready(storage) => storage.scope(),
            _ => Vec::new(),
        }
    }

    fn begin_call(&self) {
        if let Self::Ready(storage) = self {
            storage.begin_call();
        }
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.usable()?.load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.usable()?.compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.usable()?.record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.usable()?.admit_half_open(service, state, ttl_ms)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.usable()?.read_window(service, generation, window, slot_count, now)
    }

    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        self.usable()?.list_circuits(prefix)
    }

    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        self.usable()?.list_circuits_with_counters(prefix)
    }

    fn count_permission(&self, service: &[u8], permitted: bool, config: &Config) {
        if let Self::Ready(storage) = self {
            storage.count_permission(service, permitted, config);
        }
    }

    fn counters(&self, service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        self.usable()?.counters(service)
    }

    /// The segment's limit even without a segment: a configuration this
    /// storage could never hold is refused the same way either way.
    fn max_slots(&self) -> Option<usize> {
        match self {
            Self::Ready(storage) => storage.max_slots(),
            Self::Unavailable(_) => Some(super::shm::SLOTS),
        }
    }

    fn remembered_open_until(&self, service: &[u8]) -> Option<RememberedOpen> {
        self.ready()?.remembered_open_until(service)
    }

    fn remember_open_until(&self, service: &[u8], until: Option<RememberedOpen>) {
        if let Self::Ready(storage) = self {
            storage.remember_open_until(service, until);
        }
    }

    fn take_notices(&self, notice: &mut dyn FnMut(Notice)) {
        if let Self::Ready(storage) = self {
            storage.take_notices(notice);
        }
    }

    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        self.usable()?.sync_host(service, window)
    }
}
