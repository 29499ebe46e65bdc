//! The pool of persistent connections, one per worker process and server:
//! opened at the first call (after fork, never in the PHP-FPM master),
//! reused across requests, opened again at once when the server closed them
//! while idle, and opened again after a failure only once the backoff has
//! passed, so that a dead server does not cost a connection attempt per
//! call.
//!
//! The key of a connection is everything that makes it distinct (address,
//! credentials, database, TLS, timeout): two storages share a connection,
//! and its backoff, only when either could have opened it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::thread::LocalKey;
use std::time::{Duration, Instant};

use super::backoff::{CONNECTION, backoff};
use crate::http::target::FxHasher;

/// At most this many connections (with their backoffs) per process: storages
/// made with ever new settings (a timeout computed per request) must not
/// pile up sockets. The least recently used one is closed first.
const MAX_SLOTS: usize = 64;

pub struct Slot<C> {
    connection: Option<C>,
    /// The process that opened it: a forked child must not share a socket.
    pid: u32,
    last_used: Instant,
    failures: u32,
    retry_at: Option<Instant>,
}

/// Keyed by our own strings (addresses and settings of the configuration,
/// never a request's input): a fast hash, looked up at every round trip.
pub type Slots<C> = RefCell<HashMap<String, Slot<C>, BuildHasherDefault<FxHasher>>>;

/// Why a connection could not be used.
pub enum Failure<E> {
    /// Waiting out the backoff after failures: no attempt was made.
    BackingOff(Duration),
    Server(E),
}

/// What a kind of connection must tell the pool.
pub trait Reconnect<C, E> {
    fn connect(&self) -> Result<C, E>;
    /// Whether the server closed this idle connection (restart, idle
    /// timeout), found without a round trip, before anything is sent on it:
    /// a command is then sent once, on a new connection.
    fn closed_by_peer(&self, connection: &C) -> bool;
    /// Whether `error` leaves the connection unusable (rather than being an
    /// answer of the server, after which the connection is fine).
    fn breaks_connection(&self, error: &E) -> bool;
}

/// Runs `run` on the connection of `key`, opening it when needed.
pub fn with_connection<C: 'static, E, T>(
    slots: &'static LocalKey<Slots<C>>,
    key: &str,
    kind: &impl Reconnect<C, E>,
    run: impl FnOnce(&mut C) -> Result<T, E>,
) -> Result<T, Failure<E>> {
    slots.with_borrow_mut(|slots| {
        let pid = std::process::id();
        let now = Instant::now();
        let fresh = || Slot {
            connection: None,
            pid,
            last_used: now,
            failures: 0,
            retry_at: None,
        };
        if !slots.contains_key(key) && slots.len() >= MAX_SLOTS {
            let oldest = slots
                .iter()
                .min_by_key(|(_, slot)| slot.last_used)
                .map(|(key, _)| key.clone());
            if let Some(mut evicted) = oldest.and_then(|oldest| slots.remove(&oldest))
                && evicted.pid != pid
            {
                std::mem::forget(evicted.connection.take());
            }
        }
        if !slots.contains_key(key) {
            slots.insert(key.to_owned(), fresh());
        }
        let slot = slots.get_mut(key).expect("inserted above");
        slot.last_used = now;
        if slot.pid != pid {
            // Inherited through fork: the parent keeps using that socket.
            std::mem::forget(slot.connection.take());
            *slot = fresh();
        }
        if let Some(retry_at) = slot.retry_at.filter(|&retry_at| now < retry_at) {
            return Err(Failure::BackingOff(retry_at - now));
        }
        if let Some(connection) = &slot.connection
            && kind.closed_by_peer(connection)
        {
            slot.connection = None;
        }
        let result = match &mut slot.connection {
            Some(connection) => run(connection),
            None => kind.connect().and_then(|mut connection| {
                let result = run(&mut connection);
                slot.connection = Some(connection);
                result
            }),
        };
        match result {
            Ok(value) => {
                slot.failures = 0;
                slot.retry_at = None;
                Ok(value)
            }
            Err(error) => {
                if kind.breaks_connection(&error) || slot.connection.is_none() {
                    slot.connection = None;
                    slot.failures += 1;
                    slot.retry_at = Some(Instant::now() + backoff(CONNECTION, u64::from(slot.failures)));
                }
                Err(Failure::Server(error))
            }
        }
    })
}

/// Whether the connection of `key` is waiting out a backoff.
pub fn backing_off<C: 'static>(slots: &'static LocalKey<Slots<C>>, key: &str) -> bool {
    let now = Instant::now();
    slots.with_borrow(|slots| {
        slots
            .get(key)
            .is_some_and(|slot| slot.pid == std::process::id() && slot.retry_at.is_some_and(|retry_at| now < retry_at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter;

    impl Reconnect<u32, ()> for Counter {
        fn connect(&self) -> Result<u32, ()> {
            Ok(0)
        }

        fn closed_by_peer(&self, _connection: &u32) -> bool {
            false
        }

        fn breaks_connection(&self, _error: &()) -> bool {
            true
        }
    }

    thread_local! {
        static COUNTERS: Slots<u32> = Slots::default();
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_connections_the_most_recent() {
        for key in 0..MAX_SLOTS + 10 {
            let used = |counter: &mut u32| {
                *counter += 1;
                Ok::<_, ()>(*counter)
            };
            with_connection(&COUNTERS, &key.to_string(), &Counter, used).ok();
            if key == 0 {
                // The first one stays in use, so it is never the oldest.
                continue;
            }
            with_connection(&COUNTERS, "0", &Counter, used).ok();
        }
        COUNTERS.with_borrow(|slots| {
            assert_eq!(slots.len(), MAX_SLOTS);
            assert!(slots.contains_key("0"), "in use");
            assert!(slots.contains_key(&(MAX_SLOTS + 9).to_string()), "the newest");
            assert!(!slots.contains_key("1"), "the oldest went first");
        });
    }
}
