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

use super::{CallCounters, Circuit, Notice, OutcomeRecord, RememberedOpen, StorageError};
use crate::core::config::Config;
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

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
    for part in [storage.as_bytes(), prefix] {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend_from_slice(part);
    }
    key.extend_from_slice(service);
    key
}

/// What this process remembers of `key`'s circuit.
fn remembered_by_key(key: &[u8]) -> Option<RememberedOpen> {
    OPEN_UNTIL.with_borrow(|open| open.get(key).copied())
}

fn remember_by_key(key: &[u8], until: Option<RememberedOpen>) {
    OPEN_UNTIL.with_borrow_mut(|open| match until {
        Some(until) => {
            if let Some(known) = open.get_mut(key) {
                *known = until;
                return;
            }
            if open.len() >= MAX_CIRCUITS {
                make_room(open, system_now());
            }
            open.insert(key.to_vec(), until);
        }
        None => {
            open.remove(key);
        }
    });
}

/// A circuit of a network storage, remembering in this process until when
/// it is open: the key of its memory is built once, with the circuit.
pub struct RemembersOpen<C> {
    inner: C,
    key: Vec<u8>,
}

impl<C: Circuit> RemembersOpen<C> {
    /// `inner`, remembered under its `storage` (what makes two storage
    /// objects see the same data) and `prefix`.
    pub fn new(inner: C, storage: &str, prefix: &[u8]) -> Self {
        let key = circuit_key(storage, prefix, inner.service());
        Self { inner, key }
    }
}

impl<C: Circuit> Circuit for RemembersOpen<C> {
    fn service(&self) -> &[u8] {
        self.inner.service()
    }

    #[inline]
    fn begin_call(&self, now: Option<Millis>) {
        self.inner.begin_call(now);
    }

    fn load_state(&self) -> Result<CircuitState, StorageError> {
        self.inner.load_state()
    }

    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.inner.compare_and_set_state(expected, new, ttl_ms)
    }

    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.inner.record_outcome(record)
    }

    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.inner.admit_half_open(state, ttl_ms)
    }

    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.inner.read_window(generation, window, slot_count, now)
    }

    fn count_permission(&self, permitted: bool, config: &Config) {
        self.inner.count_permission(permitted, config);
    }

    fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.inner.counters()
    }

    #[inline]
    fn remembered_open_until(&self) -> Option<RememberedOpen> {
        remembered_by_key(&self.key)
    }

    fn remember_open_until(&self, until: Option<RememberedOpen>) {
        remember_by_key(&self.key, until);
    }

    fn take_notices(&self, notice: &mut dyn FnMut(Notice)) {
        self.inner.take_notices(notice);
    }
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

    fn remembered(storage: &str, prefix: &[u8], service: &[u8]) -> Option<RememberedOpen> {
        remembered_by_key(&circuit_key(storage, prefix, service))
    }

    fn remember(storage: &str, prefix: &[u8], service: &[u8], until: Option<RememberedOpen>) {
        remember_by_key(&circuit_key(storage, prefix, service), until);
    }

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
