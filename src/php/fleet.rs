//! `Storage\FleetStorage`: the host tier in front of a Redis or Memcached
//! fleet store (`storage/fleet/`).

use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, Zval};

use super::args::{Float, SharedMemoryArg, StorageArg, Text};
use super::classes::storage_interface;
use super::clock::system_now_ms;
use super::configuration::describe;
use super::error::invalid_configuration;
use super::memcached::MemcachedStorage;
use super::redis::RedisStorage;
use super::reentry::refuse_reconstruction;
use super::shared_memory::{ApcuStorage, SharedMemoryStorage, SharedStorage, segment};
use crate::core::counts::Tally;
use crate::core::duration::{Millis, checked_millis};
use crate::core::error::ConfigError;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;
use crate::storage::available::Available;
use crate::storage::fleet::{FleetStorage as Fleet, MAX_SYNC_INTERVAL_MS, MIN_SYNC_INTERVAL_MS};
use crate::storage::shm::SharedMemoryStorage as ShmStorage;
use crate::storage::{FleetView, HostWindow, ListedCircuit, OutcomeRecord, Storage, StorageError};

/// The Rust storage inside a `RedisStorage` or `MemcachedStorage` object,
/// which the `FleetStorage` owning this holds (`FleetStorage::store`).
struct HeldStore {
    storage: *const (dyn Storage + 'static),
}

impl HeldStore {
    /// The store inside `object`, and the prefix of its keys.
    fn of(object: &Zval) -> Option<(Self, Vec<u8>)> {
        let found = object.object()?;
        let (storage, prefix): (*const (dyn Storage + 'static), Vec<u8>) =
            if let Some(redis) = ZendClassObject::<RedisStorage>::from_zend_obj(found).and_then(|o| o.obj.as_ref()) {
                (&redis.storage, redis.storage.prefix().to_vec())
            } else {
                let memcached = &ZendClassObject::<MemcachedStorage>::from_zend_obj(found)?
                    .obj
                    .as_ref()?
                    .storage;
                (memcached, memcached.prefix().unwrap_or_default().to_vec())
            };
        Some((Self { storage }, prefix))
    }

    fn storage(&self) -> &dyn Storage {
        // SAFETY: the `FleetStorage` that owns `self` holds a reference to
        // the PHP object the storage lives in, dropped after `self`
        // (`FleetStorage::store` comes after its `storage`); PHP never moves an
        // object, and these classes' values are only replaced by a second
        // `__construct()`, a single-threaded call never running inside ours.
        unsafe { &*self.storage }
    }
}

impl Storage for HeldStore {
    fn begin_call(&self) {
        self.storage().begin_call();
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.storage().load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.storage().compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.storage().record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.storage().admit_half_open(service, state, ttl_ms)
    }

    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.storage().read_window(service, generation, window, slot_count, now)
    }

    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        self.storage().list_circuits(prefix)
    }

    fn max_slots(&self) -> Option<usize> {
        self.storage().max_slots()
    }

    fn sync_host(&self, service: &[u8], window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        self.storage().sync_host(service, window)
    }
}

/// The tier, or why it has no host segment (every call then fails open).
pub type FleetTier = Available<Fleet>;

const FLEET_LIMITS: &str = "a RedisStorage (standalone, cluster or Sentinel) or a MemcachedStorage of this extension";

/// Circuits of a fleet decided on each host's shared memory, their counts
/// and state shared through Redis or Memcached once per `$syncInterval`.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\FleetStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct FleetStorage {
    pub storage: FleetTier,
    /// The fleet store's object, whose Rust storage `storage` reads: declared
    /// after it, so dropped after it; reported to the cycle collector.
    pub(super) store: Zval,
}

#[php_impl]
impl FleetStorage {
    /// `$fleet`: the fleet store, a `RedisStorage` or `MemcachedStorage`.
    /// `$host`: the host's segment (default: a `SharedMemoryStorage` with
    /// the fleet store's prefix). `$syncInterval`: seconds between two syncs of a circuit
    /// on a host, 0.01 to 60.
    #[php(optional = host)]
    #[php(defaults(syncInterval = 0.2))]
    pub fn __construct(
        fleet: StorageArg<'_>,
        host: Option<SharedMemoryArg<'_>>,
        syncInterval: Float,
    ) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        let (store, fleet_prefix) = HeldStore::of(fleet.0)
            .ok_or_else(|| invalid_configuration(ConfigError::new("fleet", describe(fleet.0), FLEET_LIMITS)))?;
        let sync_interval_ms = checked_millis(
            "syncInterval",
            syncInterval.0,
            MIN_SYNC_INTERVAL_MS,
            MAX_SYNC_INTERVAL_MS,
            "0.01 to 60 seconds",
        )
        .map_err(invalid_configuration)?;
        let prefix = host
            .and_then(|host| host.0.object())
            .and_then(|object| {
                let shared = ZendClassObject::<SharedMemoryStorage>::from_zend_obj(object)
                    .and_then(|o| o.obj.as_ref())
                    .map(|o| &o.storage)
                    .or_else(|| {
                        ZendClassObject::<ApcuStorage>::from_zend_obj(object)
                            .and_then(|o| o.obj.as_ref())
                            .map(|o| &o.storage)
                    })?;
                Some(match shared {
                    SharedStorage::Ready(storage) => Ok(storage.prefix().to_vec()),
                    SharedStorage::Unavailable(error) => Err(error.clone()),
                })
            })
            .unwrap_or(Ok(fleet_prefix));
        let storage = match prefix.and_then(|prefix| segment().map(|segment| (segment, prefix))) {
            Ok((segment, prefix)) => {
                let host = ShmStorage::new(segment, prefix, Box::new(system_now_ms));
                FleetTier::Ready(Fleet::new(
                    Box::new(store),
                    &host,
                    sync_interval_ms,
                    Box::new(system_now_ms),
                ))
            }
            Err(error) => FleetTier::Unavailable(error),
        };
        Ok(Self {
            storage,
            store: fleet.0.shallow_clone(),
        })
    }

    /// The status of every circuit of the fleet store whose service starts
    /// with `$prefix` (Redis; Memcached cannot list). Window counts are
    /// left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        super::status::list_circuits(&self.storage, &prefix.0, system_now_ms())
    }
}
