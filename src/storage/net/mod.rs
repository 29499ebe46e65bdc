//! What the network storages (Redis, Memcached) share: the deadline socket,
//! the pool of persistent connections, name resolution within a deadline,
//! the backoff, and the system calls beneath them (the only `unsafe` here).

pub mod backoff;
pub mod deadline;
pub mod pool;
pub mod resolve;
#[allow(unsafe_code)]
mod sys;

pub use sys::connect_unix;
