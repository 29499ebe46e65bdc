//! A storage that a PHP object may lack: its shared-memory segment could
//! not be made or attached. Every operation then fails (the breaker fails
//! open, and says why), and everything that returns nothing does nothing.

use std::rc::Rc;

use super::named::Named;
use super::{
    CallCounters, CircuitStore, FleetView, HostWindow, KeptCircuit, ListedCircuit, OutcomeRecord, Storage, StorageError,
};
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

/// The storage of a PHP object, or why it has none.
pub enum Available<S> {
    Ready(Rc<S>),
    Unavailable(Rc<Unavailable>),
}

impl<S: Storage + 'static> Available<S> {
    pub fn ready(storage: S) -> Self {
        Self::Ready(Rc::new(storage))
    }

    pub fn unavailable(why: String) -> Self {
        Self::Unavailable(Rc::new(Unavailable { why }))
    }

    /// The storage, when there is one.
    pub fn get(&self) -> Option<&Rc<S>> {
        match self {
            Self::Ready(storage) => Some(storage),
            Self::Unavailable(_) => None,
        }
    }

    /// What a breaker is made over: the storage, or one that fails.
    pub fn storage(&self) -> Rc<dyn Storage> {
        match self {
            Self::Ready(storage) => Rc::clone(storage) as Rc<dyn Storage>,
            Self::Unavailable(none) => Rc::clone(none) as Rc<dyn Storage>,
        }
    }

    pub fn as_storage(&self) -> &dyn Storage {
        match self {
            Self::Ready(storage) => &**storage,
            Self::Unavailable(none) => &**none,
        }
    }
}

/// A storage whose every operation fails, saying why.
pub struct Unavailable {
    why: String,
}

impl Unavailable {
    /// Why there is no storage.
    pub fn why(&self) -> &str {
        &self.why
    }

    fn error(&self) -> StorageError {
        StorageError::Unavailable(self.why.clone())
    }
}

impl Storage for Unavailable {
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit {
        KeptCircuit::boxed(Named::new(self, service))
    }

    /// The segment's limit even without a segment: a configuration this
    /// storage could never hold is refused the same way either way.
    fn max_slots(&self) -> Option<usize> {
        Some(super::shm::SLOTS)
    }

    fn list_circuits(&self, _prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        Err(self.error())
    }
}

impl CircuitStore for Unavailable {
    fn load_state(&self, _service: &[u8]) -> Result<CircuitState, StorageError> {
        Err(self.error())
    }

    fn compare_and_set_state(
        &self,
        _service: &[u8],
        _expected: CircuitState,
        _new: CircuitState,
        _ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        Err(self.error())
    }

    fn record_outcome(&self, _service: &[u8], _record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        Err(self.error())
    }

    fn admit_half_open(&self, _service: &[u8], _state: CircuitState, _ttl_ms: Millis) -> Result<u64, StorageError> {
        Err(self.error())
    }

    fn read_window(
        &self,
        _service: &[u8],
        _generation: u64,
        _window: WindowGeometry,
        _slot_count: usize,
        _now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        Err(self.error())
    }

    fn counters(&self, _service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        Err(self.error())
    }

    fn sync_host(&self, _service: &[u8], _window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        Err(self.error())
    }
}
