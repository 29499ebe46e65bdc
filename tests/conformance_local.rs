//! The conformance suite (`conformance/mod.rs`) over the storages of this
//! process: in memory, shared memory, and the key-value composition over a
//! map that keeps the primitives' contract (what Memcached and userland
//! storages provide). Each expires its entries by the suite's clock.

#[macro_use]
mod conformance;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use circuit_breaker::storage::fleet::memory_store::MemoryFleetStore;
use circuit_breaker::storage::kv::map_store::{Entries, MapStore};
use circuit_breaker::storage::kv::{KvStorage, key_name};
use circuit_breaker::storage::memory::InMemoryStorage;
use circuit_breaker::storage::shm::{Segment, SharedMemoryStorage};
use circuit_breaker::storage::{CircuitStore, Storage};
use conformance::fleet::Fleet;
use conformance::{Backend, Clock};

/// One `InMemoryStorage` per prefix: the objects of one application share it.
struct Memory {
    clock: Clock,
    storages: RefCell<HashMap<Vec<u8>, Rc<InMemoryStorage>>>,
}

impl Backend for Memory {
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        let clock = self.clock.clone();
        self.storages
            .borrow_mut()
            .entry(prefix.to_vec())
            .or_insert_with(|| Rc::new(InMemoryStorage::new(Box::new(move || clock.get()))))
            .clone()
    }
}

/// A segment of its own for each test, as a PHP-FPM pool has one; its
/// breakers go the quiet ways first when `quiet`, as `CircuitBreaker`'s do.
struct SharedMemory {
    clock: Clock,
    segment: &'static Segment,
    quiet: bool,
}

impl Backend for SharedMemory {
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        let clock = self.clock.clone();
        Rc::new(SharedMemoryStorage::new(
            self.segment,
            prefix.to_vec(),
            Box::new(move || clock.get()),
        ))
    }

    fn quiet_calls(&self) -> bool {
        self.quiet
    }
}

/// A fleet store in memory per prefix (as one Redis holds every
/// application's keys apart), for the hosts of `FleetStorage`.
struct MemoryFleetStores {
    clock: Clock,
    stores: RefCell<HashMap<Vec<u8>, MemoryFleetStore>>,
}

impl Backend for MemoryFleetStores {
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        let clock = self.clock.clone();
        Rc::new(
            self.stores
                .borrow_mut()
                .entry(prefix.to_vec())
                .or_insert_with(|| MemoryFleetStore::new(InMemoryStorage::new(Box::new(move || clock.get()))))
                .clone(),
        )
    }
}

/// Storage objects over one shared map.
struct KeyValueMap {
    clock: Clock,
    entries: Entries,
}

impl KeyValueMap {
    /// A storage object over the map whose workers remember open circuits
    /// under `memory`, as a process does.
    fn storage_remembering_as(&self, prefix: &[u8], memory: &str) -> Rc<dyn CircuitStore> {
        let store = MapStore::sharing(self.clock.clone(), self.entries.clone());
        let name_prefix = prefix.to_vec();
        Rc::new(
            KvStorage::new(store, Box::new(move |service| key_name(&name_prefix, service))).remembering_open_circuits(
                format!("{memory}: map at {:p}", Rc::as_ptr(&self.entries)),
                prefix.to_vec(),
            ),
        )
    }
}

impl Backend for KeyValueMap {
    /// Workers remember open circuits, as with Memcached.
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        self.storage_remembering_as(prefix, "this server")
    }

    fn storage_of_another_server(&self, prefix: &[u8]) -> Rc<dyn Storage> {
        self.storage_remembering_as(prefix, "another server")
    }

    fn lists_circuits(&self) -> bool {
        false
    }
}

/// One `#[test]` per behaviour, over the backend `make` builds.
macro_rules! tests_over {
    ($make:expr; [$($behaviour:ident),*]) => {
        $(
            #[test]
            fn $behaviour() {
                conformance::$behaviour(&conformance::Env::new($make));
            }
        )*
    };
}

mod memory {
    use super::*;

    behaviours!(tests_over! {
        |clock: &Clock| Box::new(Memory { clock: clock.clone(), storages: RefCell::default() }) as Box<dyn Backend>;
    });
}

mod shared_memory {
    use super::*;

    behaviours!(tests_over! {
        |clock: &Clock| Box::new(SharedMemory {
            clock: clock.clone(),
            segment: Box::leak(Box::new(Segment::create(1 << 20, 1.0).unwrap())),
            quiet: false,
        }) as Box<dyn Backend>;
    });
}

/// The same, its breakers' calls going the quiet ways first.
mod shared_memory_quiet {
    use super::*;

    behaviours!(tests_over! {
        |clock: &Clock| Box::new(SharedMemory {
            clock: clock.clone(),
            segment: Box::leak(Box::new(Segment::create(1 << 20, 1.0).unwrap())),
            quiet: true,
        }) as Box<dyn Backend>;
    });
}

mod key_value_map {
    use super::*;

    behaviours!(tests_over! {
        |clock: &Clock| Box::new(KeyValueMap { clock: clock.clone(), entries: Entries::default() }) as Box<dyn Backend>;
    });
}

mod fleet_over_memory {
    use super::*;

    behaviours!(tests_over! {
        |clock: &Clock| Fleet::over(Box::new(MemoryFleetStores { clock: clock.clone(), stores: RefCell::default() }), clock);
    });
}
