//! `FleetStorage` in front of the storages of any backend: this server is
//! one host (a segment), another server another host (a segment of its
//! own), both with the backend's storage of the prefix as their fleet store.

use std::rc::Rc;

use circuit_breaker::core::counts::Tally;
use circuit_breaker::core::duration::Millis;
use circuit_breaker::core::machine::CircuitState;
use circuit_breaker::core::window::WindowGeometry;
use circuit_breaker::storage::fleet::FleetStorage;
use circuit_breaker::storage::shm::{Segment, SharedMemoryStorage};
use circuit_breaker::storage::{FleetView, HostWindow, ListedCircuit, OutcomeRecord, Storage, StorageError};

use super::{Backend, Clock};

/// A fleet store shared by the hosts of a test (an `Rc` of the server's
/// storage object).
struct Shared(Rc<dyn Storage>);

impl Storage for Shared {
    fn begin_call(&self) {
        self.0.begin_call();
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.0.load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.0.compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.0.record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.0.admit_half_open(service, state, ttl_ms)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.0.read_window(service, generation, window, slot_count, now)
    }

    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        self.0.list_circuits(prefix)
    }

    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        self.0.sync_host(service, window)
    }
}

pub struct Fleet {
    server: Box<dyn Backend>,
    clock: Clock,
    this_host: &'static Segment,
    other_host: &'static Segment,
    made: std::cell::RefCell<Vec<Rc<FleetStorage>>>,
}

impl Fleet {
    pub fn over(server: Box<dyn Backend>, clock: &Clock) -> Box<dyn Backend> {
        let segment = || -> &'static Segment { Box::leak(Box::new(Segment::create(1 << 20, 1.0).unwrap())) };
        Box::new(Self {
            server,
            clock: clock.clone(),
            this_host: segment(),
            other_host: segment(),
            made: Default::default(),
        })
    }

    fn storage_on(&self, host: &'static Segment, prefix: &[u8]) -> Rc<dyn Storage> {
        let clock = self.clock.clone();
        let host = SharedMemoryStorage::new(host, prefix.to_vec(), Box::new(move || clock.get()));
        let clock = self.clock.clone();
        let fleet = Shared(self.server.storage(prefix));
        let storage = Rc::new(FleetStorage::new(
            Box::new(fleet),
            &host,
            200,
            Box::new(move || clock.get()),
        ));
        self.made.borrow_mut().push(storage.clone());
        storage
    }
}

impl Backend for Fleet {
    fn storage(&self, prefix: &[u8]) -> Rc<dyn Storage> {
        self.storage_on(self.this_host, prefix)
    }

    fn storage_of_another_server(&self, prefix: &[u8]) -> Rc<dyn Storage> {
        self.storage_on(self.other_host, prefix)
    }

    fn state_ttl_ms(&self, prefix: &[u8], service: &[u8]) -> Option<Millis> {
        self.server.state_ttl_ms(prefix, service)
    }

    fn command_stored(&self, service: &[u8]) {
        for storage in self.made.borrow().iter() {
            storage.make_sync_due(service).unwrap();
        }
    }

    fn lists_circuits(&self) -> bool {
        self.server.lists_circuits()
    }
}
