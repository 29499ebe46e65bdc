//! `FleetStorage` in front of the storages of any backend: this server is
//! one host (a segment), another server another host (a segment of its
//! own), both with the backend's store of the prefix as their fleet store.

use std::rc::Rc;

use circuit_breaker::core::duration::Millis;
use circuit_breaker::storage::fleet::FleetStorage;
use circuit_breaker::storage::shm::{Segment, SharedMemoryStorage};
use circuit_breaker::storage::{CircuitStore, Storage};

use super::{Backend, Clock};

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
        let storage = Rc::new(FleetStorage::new(
            self.server.store(prefix),
            &host,
            200,
            Box::new(move || clock.get()),
        ));
        self.made.borrow_mut().push(storage.clone());
        storage
    }
}

impl Backend for Fleet {
    fn store(&self, _prefix: &[u8]) -> Rc<dyn CircuitStore> {
        unreachable!("a host tier keeps no circuits by name")
    }

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
