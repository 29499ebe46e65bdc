//! One persistent connection per worker process and server: opened lazily
//! (after fork, never in the PHP-FPM master), reused across requests,
//! checked when it was idle, and reopened after a failure only once its
//! backoff has passed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Client, Connection, ConnectionInfo, ConnectionLike, RedisError, RedisResult};

use crate::storage::backoff::backoff;

/// Where the storage connects.
#[derive(Clone)]
pub enum Target {
    Standalone(ConnectionInfo),
    Cluster(Vec<ConnectionInfo>),
}

/// A connection idle for longer is checked with a PING before use: the
/// server may have closed it meanwhile (timeout, restart).
const CHECK_AFTER_IDLE: Duration = Duration::from_secs(30);

enum Open {
    Standalone(Connection),
    Cluster(ClusterConnection),
}

impl Open {
    fn as_connection_like(&mut self) -> &mut dyn ConnectionLike {
        match self {
            Self::Standalone(connection) => connection,
            Self::Cluster(connection) => connection,
        }
    }
}

struct Slot {
    connection: Option<Open>,
    /// The process that opened it: a forked child must not share a socket.
    pid: u32,
    last_used: Instant,
    failures: u32,
    retry_at: Option<Instant>,
}

thread_local! {
    static CONNECTIONS: RefCell<HashMap<String, Slot>> = RefCell::new(HashMap::new());
}

fn connect(target: &Target, timeout: Duration) -> RedisResult<Open> {
    match target {
        Target::Standalone(info) => {
            let connection = Client::open(info.clone())?.get_connection_with_timeout(timeout)?;
            connection.set_read_timeout(Some(timeout))?;
            connection.set_write_timeout(Some(timeout))?;
            Ok(Open::Standalone(connection))
        }
        Target::Cluster(nodes) => {
            let client = ClusterClient::builder(nodes.clone())
                .connection_timeout(timeout)
                .response_timeout(timeout)
                .retries(0)
                .build()?;
            Ok(Open::Cluster(client.get_connection()?))
        }
    }
}

/// Why a connection could not be used.
pub enum ConnectionError {
    /// Waiting out the backoff after failures: no attempt was made.
    BackingOff(Duration),
    Redis(RedisError),
}

/// Runs `run` on the connection of `key`, opening it when needed. A failure
/// drops the connection and delays the next attempt.
pub fn with_connection<T>(
    key: &str,
    target: &Target,
    timeout: Duration,
    run: impl FnOnce(&mut dyn ConnectionLike) -> RedisResult<T>,
) -> Result<T, ConnectionError> {
    CONNECTIONS.with_borrow_mut(|connections| {
        let pid = std::process::id();
        let now = Instant::now();
        let slot = connections.entry(key.to_owned()).or_insert_with(|| Slot {
            connection: None,
            pid,
            last_used: now,
            failures: 0,
            retry_at: None,
        });
        if slot.pid != pid {
            // Inherited through fork: the parent keeps using that socket.
            std::mem::forget(slot.connection.take());
            *slot = Slot {
                connection: None,
                pid,
                last_used: now,
                failures: 0,
                retry_at: None,
            };
        }
        if let Some(retry_at) = slot.retry_at.filter(|&retry_at| now < retry_at) {
            return Err(ConnectionError::BackingOff(retry_at - now));
        }
        if let Some(connection) = &mut slot.connection
            && now.duration_since(slot.last_used) > CHECK_AFTER_IDLE
            && !connection.as_connection_like().check_connection()
        {
            slot.connection = None;
        }
        let result = match &mut slot.connection {
            Some(connection) => run(connection.as_connection_like()),
            None => connect(target, timeout).and_then(|mut connection| {
                let result = run(connection.as_connection_like());
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
                // A script error is the server answering: the connection is fine.
                if error.is_io_error()
                    || error.is_timeout()
                    || error.is_connection_dropped()
                    || error.is_connection_refusal()
                    || slot.connection.is_none()
                {
                    slot.connection = None;
                    slot.failures += 1;
                    slot.retry_at = Some(Instant::now() + backoff(slot.failures));
                }
                Err(ConnectionError::Redis(error))
            }
        }
    })
}
