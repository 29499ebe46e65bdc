//! Persistent connections, one per worker process and server: opened at
//! the first call (after fork, never in the PHP-FPM master), reused across
//! requests, checked when idle for a while, and opened again after a
//! failure only once the backoff has passed, so that a dead server does not
//! cost a connection attempt per call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::thread::LocalKey;
use std::time::{Duration, Instant};

use super::backoff::backoff;

/// A connection idle for longer is checked before use: the server may have
/// closed it meanwhile (timeout, restart).
const CHECK_AFTER_IDLE: Duration = Duration::from_secs(30);

pub struct Slot<C> {
    connection: Option<C>,
    /// The process that opened it: a forked child must not share a socket.
    pid: u32,
    last_used: Instant,
    failures: u32,
    retry_at: Option<Instant>,
}

pub type Slots<C> = RefCell<HashMap<String, Slot<C>>>;

/// Why a connection could not be used.
pub enum Failure<E> {
    /// Waiting out the backoff after failures: no attempt was made.
    BackingOff(Duration),
    Server(E),
}

/// What a kind of connection must tell the pool.
pub trait Reconnect<C, E> {
    fn connect(&self) -> Result<C, E>;
    /// Whether an idle connection still answers.
    fn check(&self, connection: &mut C) -> bool;
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
        let slot = slots.entry(key.to_owned()).or_insert_with(fresh);
        if slot.pid != pid {
            // Inherited through fork: the parent keeps using that socket.
            std::mem::forget(slot.connection.take());
            *slot = fresh();
        }
        if let Some(retry_at) = slot.retry_at.filter(|&retry_at| now < retry_at) {
            return Err(Failure::BackingOff(retry_at - now));
        }
        if let Some(connection) = &mut slot.connection
            && now.duration_since(slot.last_used) > CHECK_AFTER_IDLE
            && !kind.check(connection)
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
        slot.last_used = now;
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
                    slot.retry_at = Some(Instant::now() + backoff(slot.failures));
                }
                Err(Failure::Server(error))
            }
        }
    })
}
