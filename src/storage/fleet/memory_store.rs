//! A fleet store in this process's memory: the hosts of a test share it
//! (clones of one store), and it can be taken down and brought back, as a
//! server can. The tests of the tier and the conformance suite run over it
//! without a server; the servers' own tests run over Redis and Memcached.
//! A test double: built for tests only (the `testing` feature).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;
use crate::storage::memory::InMemoryStorage;
use crate::storage::named::Named;
use crate::storage::{
    CircuitStore, FleetView, HostWindow, KeptCircuit, ListedCircuit, OutcomeRecord, Storage, StorageError,
};

/// The windows of every host, by service and generation.
type Windows = HashMap<(Vec<u8>, u64), HashMap<u64, Vec<u8>>>;

#[derive(Clone)]
pub struct MemoryFleetStore {
    storage: Rc<InMemoryStorage>,
    windows: Rc<RefCell<Windows>>,
    down: Rc<Cell<bool>>,
    /// How many syncs reached the store: the round trips a test counts.
    syncs: Rc<Cell<u64>>,
}

impl MemoryFleetStore {
    pub fn new(storage: InMemoryStorage) -> Self {
        Self {
            storage: Rc::new(storage),
            windows: Rc::default(),
            down: Rc::default(),
            syncs: Rc::default(),
        }
    }

    /// Every operation fails while down, as with a stopped server.
    pub fn set_down(&self, down: bool) {
        self.down.set(down);
    }

    pub fn syncs(&self) -> u64 {
        self.syncs.get()
    }

    fn up(&self) -> Result<&InMemoryStorage, StorageError> {
        if self.down.get() {
            return Err(StorageError::Unavailable("the fleet store is down".into()));
        }
        Ok(&self.storage)
    }
}

impl Storage for MemoryFleetStore {
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit {
        KeptCircuit::boxed(Named::new(self, service))
    }

    /// As Redis lists them: circuits with a state, and those with only
    /// hosts' windows (closed, never changed).
    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        let mut circuits = self.up()?.list_circuits(prefix)?;
        let mut windowed: Vec<Vec<u8>> = self
            .windows
            .borrow()
            .keys()
            .map(|(service, _)| service.clone())
            .filter(|service| service.starts_with(prefix))
            .collect();
        windowed.sort_unstable();
        windowed.dedup();
        for service in windowed {
            if !circuits.iter().any(|(listed, _)| *listed == service) {
                circuits.push((service, CircuitState::INITIAL));
            }
        }
        Ok(circuits)
    }
}

impl CircuitStore for MemoryFleetStore {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.up()?.load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.up()?.compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.up()?.record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.up()?.admit_half_open(service, state, ttl_ms)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.up()?.read_window(service, generation, window, slot_count, now)
    }

    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        let state = self.up()?.load_state(service)?;
        self.syncs.set(self.syncs.get() + 1);
        let mut windows = self.windows.borrow_mut();
        let hosts = windows.entry((service.to_vec(), window.generation)).or_default();
        hosts.insert(window.host, window.blob.to_vec());
        Ok(FleetView {
            state,
            hosts: hosts.iter().map(|(host, blob)| (*host, blob.clone())).collect(),
            listed_hosts: None,
        })
    }
}
