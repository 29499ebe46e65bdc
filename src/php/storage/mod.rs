//! The storage classes: `InMemoryStorage`, `SharedMemoryStorage` (and its
//! `ApcuStorage` alias), `RedisStorage`, `MemcachedStorage`, `FleetStorage`,
//! the storages written in PHP, and the client objects of phpredis and
//! php-memcached a storage is given. Each holds its Rust storage
//! (`crate::storage`) in an `Rc`.

pub mod client_objects;
pub mod fleet;
pub mod memcached;
pub mod memory;
pub mod redis;
pub mod shared_memory;
pub mod userland;
