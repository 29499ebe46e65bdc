//! What a worker remembers, between requests, of the circuits it found
//! open in a network storage: an open circuit ends only by time, so until
//! then a rejection needs no round trip.
//!
//! A circuit is named by its storage (whatever makes two storage objects
//! see the same data: servers, database, user), its prefix and its service,
//! each kept apart by its length: prefix `shop` with service `api` is not
//! prefix `shopa` with service `pi`, so no application can block another's
//! calls by choosing a name. The memory is bounded: a worker serving many
//! applications keeps at most [`MAX_CIRCUITS`] open circuits in mind, and
//! forgetting one only costs its next rejection a round trip.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use super::RememberedOpen;
use crate::core::duration::Millis;

/// How many open circuits a worker remembers at most.
pub const MAX_CIRCUITS: usize = 4_096;

thread_local! {
    /// Until when each circuit is open, by [`circuit_key`].
    static OPEN_UNTIL: RefCell<HashMap<Vec<u8>, RememberedOpen>> = RefCell::default();
}

/// `storage`, `prefix` and `service`, each after its length: no two
/// triples share a key.
fn circuit_key(storage: &str, prefix: &[u8], service: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(16 + storage.len() + prefix.len() + service.len());
    write_circuit_key(&mut key, storage, prefix, service);
    key
}

fn write_circuit_key(key: &mut Vec<u8>, storage: &str, prefix: &[u8], service: &[u8]) {
    key.clear();
    for part in [storage.as_bytes(), prefix] {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend_from_slice(part);
    }
    key.extend_from_slice(service);
}

thread_local! {
    /// The key of the last lookup, rebuilt in place: a rejected call makes
    /// no allocation.
    static LOOKUP_KEY: RefCell<Vec<u8>> = RefCell::default();
}

pub fn remembered(storage: &str, prefix: &[u8], service: &[u8]) -> Option<RememberedOpen> {
    LOOKUP_KEY.with_borrow_mut(|key| {
        write_circuit_key(key, storage, prefix, service);
        OPEN_UNTIL.with_borrow(|open| open.get(key.as_slice()).copied())
    })
}

pub fn remember(storage: &str, prefix: &[u8], service: &[u8], until: Option<RememberedOpen>) {
    let key = circuit_key(storage, prefix, service);
    OPEN_UNTIL.with_borrow_mut(|open| match until {
        Some(until) => {
            if !open.contains_key(&key) && open.len() >= MAX_CIRCUITS {
                make_room(open, system_now());
            }
            open.insert(key, until);
        }
        None => {
            open.remove(&key);
        }
    });
}

/// The clock that ages entries: the breakers' clocks may differ (a mock
/// clock in tests), and an entry evicted too early only costs a round trip.
fn system_now() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as Millis)
}

/// Forgets the circuits whose open time is over; when none is, the one
/// that closes soonest.
fn make_room(open: &mut HashMap<Vec<u8>, RememberedOpen>, now: Millis) {
    open.retain(|_, remembered| remembered.until > now);
    if open.len() >= MAX_CIRCUITS
        && let Some(soonest) = open
            .iter()
            .min_by_key(|(_, remembered)| remembered.until)
            .map(|(key, _)| key.clone())
    {
        open.remove(&soonest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(until: Millis) -> RememberedOpen {
        RememberedOpen {
            until,
            recheck_at: until,
        }
    }

    fn clear() {
        OPEN_UNTIL.with_borrow_mut(HashMap::clear);
    }

    #[test]
    fn prefix_and_service_are_kept_apart() {
        clear();
        remember("memcached:a", b"shop", b"api", Some(open(1_000)));
        assert_eq!(remembered("memcached:a", b"shop", b"api"), Some(open(1_000)));
        assert_eq!(remembered("memcached:a", b"shopa", b"pi"), None);
        assert_eq!(remembered("memcached:a", b"", b"shopapi"), None);
        assert_eq!(remembered("memcached:b", b"shop", b"api"), None);
        remember("memcached:a", b"shop", b"api", None);
        assert_eq!(remembered("memcached:a", b"shop", b"api"), None);
    }

    #[test]
    fn bounded_forgetting_ended_circuits_first_then_the_soonest_to_end() {
        clear();
        let now = system_now();
        let far = now + 3_600_000;
        remember("s", b"", b"ended", Some(open(now - 1)));
        for index in 0..MAX_CIRCUITS - 2 {
            remember(
                "s",
                b"",
                index.to_string().as_bytes(),
                Some(open(far + index as Millis)),
            );
        }
        remember("s", b"", b"soonest", Some(open(now + 60_000)));
        remember("s", b"", b"new", Some(open(far)));
        OPEN_UNTIL.with_borrow(|open| assert_eq!(open.len(), MAX_CIRCUITS));
        assert_eq!(remembered("s", b"", b"ended"), None, "ended: forgotten first");
        assert_eq!(remembered("s", b"", b"soonest"), Some(open(now + 60_000)));
        remember("s", b"", b"newer", Some(open(far)));
        assert_eq!(remembered("s", b"", b"soonest"), None, "then the soonest to end");
        assert_eq!(remembered("s", b"", b"newer"), Some(open(far)));
        assert_eq!(remembered("s", b"", b"0"), Some(open(far)));
        OPEN_UNTIL.with_borrow(|open| assert_eq!(open.len(), MAX_CIRCUITS));
    }
}
