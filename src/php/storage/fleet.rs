//! `Storage\FleetStorage`: the host tier in front of a Redis or Memcached
//! fleet store (`storage/fleet/`).

use std::rc::Rc;

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::memcached::MemcachedStorage;
use super::redis::RedisStorage;
use super::shared_memory::{ApcuStorage, SharedMemoryArg, SharedMemoryStorage, SharedStorage, segment};
use crate::core::duration::checked_millis;
use crate::core::error::ConfigError;
use crate::php::clock::system_now_ms;
use crate::php::engine::args::{Float, Text, describe};
use crate::php::engine::classes::storage_interface;
use crate::php::engine::handlers::native;
use crate::php::engine::reentry::refuse_reconstruction;
use crate::php::error::invalid_configuration;
use crate::php::params::StorageArg;
use crate::storage::CircuitStore;
use crate::storage::available::Available;
use crate::storage::fleet::{FleetStorage as Fleet, MAX_SYNC_INTERVAL_MS, MIN_SYNC_INTERVAL_MS};
use crate::storage::shm::SharedMemoryStorage as ShmStorage;

/// The Rust storage inside a `RedisStorage` or `MemcachedStorage` object,
/// and the prefix of its keys.
fn fleet_store(object: &Zval) -> Option<(Rc<dyn CircuitStore>, Vec<u8>)> {
    let found = object.object()?;
    if let Some(redis) = native::<RedisStorage>(found) {
        let prefix = redis.storage.prefix().to_vec();
        return Some((Rc::clone(&redis.storage) as Rc<dyn CircuitStore>, prefix));
    }
    let memcached = &native::<MemcachedStorage>(found)?.storage;
    let prefix = memcached.prefix().unwrap_or_default().to_vec();
    Some((Rc::clone(memcached) as Rc<dyn CircuitStore>, prefix))
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
        let (store, fleet_prefix) = fleet_store(fleet.0)
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
                let shared = native::<SharedMemoryStorage>(object)
                    .map(|o| &o.storage)
                    .or_else(|| native::<ApcuStorage>(object).map(|o| &o.storage))?;
                Some(match shared {
                    SharedStorage::Ready(storage) => Ok(storage.prefix().to_vec()),
                    SharedStorage::Unavailable(none) => Err(none.why().to_owned()),
                })
            })
            .unwrap_or(Ok(fleet_prefix));
        let storage = match prefix.and_then(|prefix| segment().map(|segment| (segment, prefix))) {
            Ok((segment, prefix)) => {
                let host = ShmStorage::new(segment, prefix, Box::new(system_now_ms));
                FleetTier::ready(Fleet::new(store, &host, sync_interval_ms, Box::new(system_now_ms)))
            }
            Err(error) => FleetTier::unavailable(error),
        };
        Ok(Self { storage })
    }

    /// The status of every circuit of the fleet store whose service starts
    /// with `$prefix` (Redis; Memcached cannot list). Window counts are
    /// left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        crate::php::status::list_circuits(self.storage.as_storage(), &prefix.0, system_now_ms())
    }
}
