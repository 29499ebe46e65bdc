//! Circuits in Memcached, composed by `storage::kv` from increments,
//! multi-gets and compare-and-sets. All keys of a service live on one
//! server, chosen from the service.

mod protocol;

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use protocol::{Connection, Incremented, ProtocolError, expiry, with_deadline};

use super::StorageError;
use super::kv::{KeyValue, KvStorage, Values, Write};
use super::persistent::{Failure, Reconnect, Slots, with_connection};
use crate::core::duration::Millis;

thread_local! {
    static CONNECTIONS: Slots<Connection> = Slots::default();
}

/// One server, `host:port`.
struct Server {
    address: String,
    timeout: Duration,
    /// Its connection's key in the pool: everything a connection carries,
    /// so that a storage with another timeout (too short for a slow
    /// server, say) never shares a connection, or its backoff, with this
    /// one.
    connection_key: String,
}

impl Reconnect<Connection, ProtocolError> for Server {
    fn connect(&self) -> Result<Connection, ProtocolError> {
        Connection::connect(&self.address, self.timeout)
    }

    fn closed_by_peer(&self, connection: &Connection) -> bool {
        connection.closed_by_peer()
    }

    fn breaks_connection(&self, error: &ProtocolError) -> bool {
        // A refusal concerns one key: only transport errors, and answers
        // outside the protocol, make the server's other circuits wait.
        error.breaks_connection()
    }
}

pub struct MemcachedKeyValue {
    servers: Vec<Server>,
    timeout: Duration,
    /// When the PHP-level call in progress must be over: all its round
    /// trips, connecting included, share it.
    call_deadline: Cell<Option<Instant>>,
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

fn seconds(ttl_ms: Millis) -> u64 {
    expiry(((ttl_ms.max(1) + 999) / 1_000) as u64, now_seconds())
}

impl MemcachedKeyValue {
    /// `servers` are `host:port`, already checked.
    pub fn new(servers: Vec<String>, timeout: Duration) -> Self {
        Self {
            servers: servers
                .into_iter()
                .map(|address| Server {
                    connection_key: format!("{address} timeout {}us", timeout.as_micros()),
                    address,
                    timeout,
                })
                .collect(),
            timeout,
            call_deadline: Cell::default(),
        }
    }

    /// The servers, in order: a service lives on the one its shard picks,
    /// so two storages see the same data only with the same list.
    pub fn identity(&self) -> String {
        let addresses: Vec<&str> = self.servers.iter().map(|server| server.address.as_str()).collect();
        format!("memcached {}", addresses.join(","))
    }

    fn run<T>(
        &self,
        shard: u64,
        run: impl FnOnce(&mut Connection) -> Result<T, ProtocolError>,
    ) -> Result<T, StorageError> {
        let server = &self.servers[(shard % self.servers.len() as u64) as usize];
        let now = Instant::now();
        // A deadline long past belongs to an earlier call: a path that did
        // not call `begin_call` gets a deadline of its own, not a timeout.
        let deadline = match self.call_deadline.get() {
            Some(deadline) if now < deadline + self.timeout => deadline,
            _ => now + self.timeout,
        };
        with_deadline(deadline, || {
            with_connection(&CONNECTIONS, &server.connection_key, server, run)
        })
        .map_err(|failure| match failure {
            Failure::BackingOff(wait) => StorageError::Unavailable(format!(
                "memcached at {} failed just before: next attempt in {} ms",
                server.address,
                wait.as_millis()
            )),
            Failure::Server(error) if error.is_timeout() => StorageError::Timeout(server.timeout.as_millis() as u64),
            Failure::Server(ProtocolError::Refused { command, answer }) => {
                StorageError::Unavailable(format!("memcached at {} refused {command}: {answer}", server.address))
            }
            Failure::Server(error) => {
                StorageError::Unavailable(format!("memcached at {} failed: {error}", server.address))
            }
        })
    }

    /// After `incr` found no key: creates it at 1, or, when another process
    /// created it meanwhile, increments that one. No first increment is lost.
    fn create(connection: &mut Connection, key: &[u8], ttl_ms: Millis) -> Result<u64, ProtocolError> {
        if connection.add(key, b"1", seconds(ttl_ms))? {
            return Ok(1);
        }
        match connection.increment(key)? {
            Incremented::Value(value) => Ok(value),
            // Evicted or deleted between the two commands: this key's problem.
            Incremented::NotFound => Err(ProtocolError::Refused {
                command: "incr",
                answer: "NOT_FOUND right after add found the key".into(),
            }),
        }
    }
}

impl KeyValue for MemcachedKeyValue {
    fn begin_call(&self) {
        self.call_deadline.set(Some(Instant::now() + self.timeout));
    }

    fn increment(&self, shard: u64, key: &[u8], ttl_ms: Millis) -> Result<u64, StorageError> {
        self.run(shard, |connection| match connection.increment(key)? {
            Incremented::Value(value) => Ok(value),
            Incremented::NotFound => Self::create(connection, key, ttl_ms),
        })
    }

    fn get_multiple(&self, shard: u64, keys: &[Vec<u8>]) -> Result<Values, StorageError> {
        let items = self.run(shard, |connection| connection.gets(keys))?;
        Ok(items.into_iter().map(|item| item.map(|item| item.value)).collect())
    }

    fn compare_and_set(
        &self,
        shard: u64,
        key: &[u8],
        expected: Option<&[u8]>,
        value: &[u8],
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.run(shard, |connection| match expected {
            None => connection.add(key, value, seconds(ttl_ms)),
            Some(expected) => match connection.gets(&[key.to_vec()])?.pop().flatten() {
                Some(item) if item.value == expected => connection.cas(key, value, seconds(ttl_ms), item.cas),
                _ => Ok(false),
            },
        })
    }

    /// `set`, `add` of an empty list then `append`, `touch`, and `gets`: one
    /// pipelined batch.
    fn write_and_get(&self, shard: u64, writes: &[Write<'_>], keys: &[Vec<u8>]) -> Result<Values, StorageError> {
        let mut stores: Vec<(&'static str, &[u8], &[u8], u64)> = Vec::new();
        for write in writes {
            match *write {
                Write::Set { key, value, ttl_ms } => stores.push(("set", key, value, seconds(ttl_ms))),
                Write::Append { key, value, ttl_ms } => {
                    stores.push(("add", key, b"", seconds(ttl_ms)));
                    stores.push(("append", key, value, 0));
                }
                Write::Touch { key, ttl_ms } => stores.push(("touch", key, b"", seconds(ttl_ms))),
            }
        }
        let items = self.run(shard, |connection| connection.stores_and_gets(&stores, keys))?;
        Ok(items.into_iter().map(|item| item.map(|item| item.value)).collect())
    }

    fn increment_and_get(
        &self,
        shard: u64,
        key: &[u8],
        ttl_ms: Millis,
        keys: &[Vec<u8>],
    ) -> Result<(u64, Values), StorageError> {
        self.run(shard, |connection| {
            let (incremented, items) = connection.increment_and_gets(key, keys)?;
            let values = |items: Vec<Option<protocol::Item>>| {
                items.into_iter().map(|item| item.map(|item| item.value)).collect()
            };
            match incremented {
                Incremented::Value(value) => Ok((value, values(items))),
                // A new bucket: created now, then read again (once a bucket).
                Incremented::NotFound => {
                    let value = Self::create(connection, key, ttl_ms)?;
                    Ok((value, values(connection.gets(keys)?)))
                }
            }
        })
    }
}

/// A Memcached key: printable ASCII without spaces, at most 250 bytes.
pub fn key_base(prefix: &[u8], service: &[u8]) -> Vec<u8> {
    let name = super::kv::key_name(prefix, service);
    if name.len() <= 200 {
        return name;
    }
    // Long names: their hash, which leaves room for the key suffixes.
    let hash = super::kv::shard_of(&name);
    let check = name.iter().rev().fold(0x811c_9dc5_u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
    });
    format!("cb:#{hash:016x}{check:016x}").into_bytes()
}

pub type MemcachedStorage = KvStorage<MemcachedKeyValue>;

pub fn memcached_storage(servers: Vec<String>, prefix: Vec<u8>, timeout: Duration) -> MemcachedStorage {
    let backend = MemcachedKeyValue::new(servers, timeout);
    let identity = backend.identity();
    KvStorage::new(
        backend,
        Box::new({
            let prefix = prefix.clone();
            move |service| key_base(&prefix, service)
        }),
    )
    .remembering_open_circuits(identity, prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_printable_and_short() {
        let short = key_base(b"shop:", b"payments api");
        assert_eq!(short, b"shop%3Acb:payments%20api");
        let long = key_base(b"", &[0xff; 300]);
        assert!(long.len() < 60);
        assert!(long.iter().all(|byte| byte.is_ascii_graphic()));
        assert_ne!(key_base(b"", &[0xff; 300]), key_base(b"", &[0xfe; 300]));
    }
}
