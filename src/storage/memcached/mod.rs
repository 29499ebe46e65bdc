//! Circuits in Memcached, composed by `storage::kv` from increments,
//! multi-gets and compare-and-sets. All keys of a service live on one
//! server, chosen from the service.

mod protocol;

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use protocol::{Connection, Incremented, ProtocolError, expiry};

use super::StorageError;
use super::kv::{KeyValue, KvStorage, Values, Write};
use super::net::pool::{Failure, Reconnect, Slots, with_connection};
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
    /// The hash of the address that places services (see [`placement_weight`]).
    placement: u64,
}

/// Rendezvous hashing: a service lives on the server of the highest weight
/// for its shard, each weight from the shard and the server's address
/// alone. The order of the list changes nothing (two web servers listing
/// the same servers in another order, as during a rolling deploy, share
/// every circuit), and a server added takes about its share of the
/// services from the others, moving no other one.
fn placement_weight(shard: u64, placement: u64) -> u64 {
    // SplitMix64's finalizer: every bit of both inputs reaches every bit.
    let mut mixed = shard ^ placement.rotate_left(32);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    mixed ^ (mixed >> 31)
}

/// A server, and the deadline of the call that needs its connection.
struct Dial<'a> {
    server: &'a Server,
    deadline: Instant,
}

impl Reconnect<Connection, ProtocolError> for Dial<'_> {
    fn connect(&self) -> Result<Connection, ProtocolError> {
        Connection::connect(&self.server.address, self.server.timeout, self.deadline)
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
                    placement: super::kv::shard_of(address.as_bytes()),
                    address,
                    timeout,
                })
                .collect(),
            timeout,
            call_deadline: Cell::default(),
        }
    }

    /// The servers, in any order: a service lives on the one its shard
    /// picks among their addresses, so two storages see the same data with
    /// the same servers, however listed.
    pub fn identity(&self) -> String {
        let mut addresses: Vec<&str> = self.servers.iter().map(|server| server.address.as_str()).collect();
        addresses.sort_unstable();
        addresses.dedup();
        format!("memcached {}", addresses.join(","))
    }

    /// The address of the server that holds the keys of `service`.
    pub fn address_of(&self, service: &[u8]) -> &str {
        &self.server(super::kv::shard_of(service)).address
    }

    /// The server of `shard`.
    fn server(&self, shard: u64) -> &Server {
        let placed = self
            .servers
            .iter()
            .enumerate()
            .max_by_key(|(_, server)| placement_weight(shard, server.placement));
        &self.servers[placed.map_or(0, |(index, _)| index)]
    }

    fn run<T>(
        &self,
        shard: u64,
        run: impl FnOnce(&mut Connection) -> Result<T, ProtocolError>,
    ) -> Result<T, StorageError> {
        let server = self.server(shard);
        let now = Instant::now();
        // A deadline long past belongs to an earlier call: a path that did
        // not call `begin_call` gets a deadline of its own, not a timeout.
        let deadline = match self.call_deadline.get() {
            Some(deadline) if now < deadline + self.timeout => deadline,
            _ => now + self.timeout,
        };
        let dial = Dial { server, deadline };
        with_connection(&CONNECTIONS, &server.connection_key, &dial, |connection| {
            connection.set_deadline(deadline);
            match run(connection) {
                Err(ProtocolError::Oversized { key, length, cas }) => {
                    Err(Self::remove_oversized(server, connection, &key, length, cas))
                }
                done => done,
            }
        })
        .map_err(|failure| match failure {
            Failure::BackingOff(wait) => StorageError::Unavailable(format!(
                "memcached at {} failed just before: next attempt in {} ms",
                server.address,
                wait.as_millis()
            )),
            Failure::Server(error) if error.is_timeout() => StorageError::Timeout(server.timeout.as_millis() as u64),
            Failure::Server(ProtocolError::OversizedRemoved(what)) => {
                StorageError::Unavailable(format!("memcached at {}: {what}", server.address))
            }
            Failure::Server(ProtocolError::Refused { command, answer }) => {
                StorageError::Refused(format!("memcached at {} refused {command}: {answer}", server.address))
            }
            Failure::Server(error) => {
                StorageError::Unavailable(format!("memcached at {} failed: {error}", server.address))
            }
        })
    }

    /// `connection` stopped at a value over the limit, the rest of the answer
    /// unread: a new connection, in step, takes its place, and removes the
    /// value unless it changed meanwhile (within the call's deadline, as
    /// every round trip). No byte of the value is read, nor quoted.
    #[cold]
    fn remove_oversized(
        server: &Server,
        connection: &mut Connection,
        key: &[u8],
        length: u64,
        cas: u64,
    ) -> ProtocolError {
        let mut fresh = match Connection::connect(&server.address, server.timeout, connection.deadline()) {
            Ok(fresh) => fresh,
            Err(error) => return error,
        };
        let outcome = match fresh.remove_if_unchanged(key, cas) {
            Ok(true) => "removed".to_owned(),
            Ok(false) => "changed meanwhile, left as it is".to_owned(),
            Err(error) if error.breaks_connection() => return error,
            Err(error) => format!("could not be removed: {error}"),
        };
        *connection = fresh;
        ProtocolError::OversizedRemoved(format!(
            "key {} held {length} bytes, more than the {} a breaker reads: {outcome}",
            key.escape_ascii(),
            protocol::MAX_VALUE_BYTES
        ))
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

    /// Where each of 30 000 services lives among `servers`.
    fn placements(servers: &[&str]) -> Vec<String> {
        let storage = MemcachedKeyValue::new(
            servers.iter().map(|&server| server.to_owned()).collect(),
            Duration::from_millis(50),
        );
        (0..30_000)
            .map(|index| {
                let shard = crate::storage::kv::shard_of(format!("service-{index}").as_bytes());
                storage.server(shard).address.clone()
            })
            .collect()
    }

    #[test]
    fn the_order_of_the_servers_places_no_service() {
        let listed = placements(&["10.0.0.1:11211", "10.0.0.2:11211"]);
        let reversed = placements(&["10.0.0.2:11211", "10.0.0.1:11211"]);
        let elsewhere = listed.iter().zip(&reversed).filter(|(one, other)| one != other).count();
        assert_eq!(elsewhere, 0, "services placed elsewhere in the other order");
        let first = listed.iter().filter(|&server| server == "10.0.0.1:11211").count();
        assert!(
            (14_100..=15_900).contains(&first),
            "{first} of 30 000 services on the first of two servers"
        );
    }

    #[test]
    fn a_server_added_takes_its_share_and_moves_no_other_service() {
        let two = placements(&["10.0.0.1:11211", "10.0.0.2:11211"]);
        let three = placements(&["10.0.0.1:11211", "10.0.0.3:11211", "10.0.0.2:11211"]);
        let moved = two.iter().zip(&three).filter(|(before, after)| before != after).count();
        assert!(
            (9_400..=10_600).contains(&moved),
            "{moved} of 30 000 services moved, a third is 10 000"
        );
        assert!(
            two.iter()
                .zip(&three)
                .all(|(before, after)| before == after || after == "10.0.0.3:11211"),
            "a service moved only to the new server"
        );
    }

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
