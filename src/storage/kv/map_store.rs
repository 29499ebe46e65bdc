//! A test double (the `testing` feature, and this crate's own tests): the
//! three [`KeyValue`] primitives over a map, as their contract says. An
//! increment creates its key with a time to live and keeps that time when
//! the key exists; a compare-and-set writes its own. Entries expire by the
//! test's manual clock. Storage objects over one map share its entries, as
//! the objects of several processes share one server.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::{KeyValue, Values};
use crate::core::duration::Millis;
use crate::storage::StorageError;

/// Keys with their value and the instant they expire, in ms of the clock.
pub type Entries = Rc<RefCell<HashMap<Vec<u8>, (Vec<u8>, Millis)>>>;

pub struct MapStore {
    pub clock: Rc<Cell<Millis>>,
    pub entries: Entries,
    /// Calls of the primitives, one round trip each (a test may reset it).
    pub calls: Cell<usize>,
}

impl MapStore {
    /// A store over a map of its own.
    pub fn new(clock: Rc<Cell<Millis>>) -> Self {
        Self::sharing(clock, Entries::default())
    }

    /// A store over `entries`, which other stores may share.
    pub fn sharing(clock: Rc<Cell<Millis>>, entries: Entries) -> Self {
        Self {
            clock,
            entries,
            calls: Cell::new(0),
        }
    }

    fn live(&self, key: &[u8]) -> Option<(Vec<u8>, Millis)> {
        let entries = self.entries.borrow();
        entries
            .get(key)
            .filter(|(_, expires)| *expires > self.clock.get())
            .cloned()
    }

    fn count_call(&self) {
        self.calls.set(self.calls.get() + 1);
    }
}

impl KeyValue for MapStore {
    fn increment(&self, _shard: u64, key: &[u8], ttl_ms: Millis) -> Result<u64, StorageError> {
        self.count_call();
        let (next, expires) = match self.live(key) {
            Some((value, expires)) => (String::from_utf8(value).unwrap().parse::<u64>().unwrap() + 1, expires),
            None => (1, self.clock.get() + ttl_ms),
        };
        self.entries
            .borrow_mut()
            .insert(key.to_vec(), (next.to_string().into_bytes(), expires));
        Ok(next)
    }

    fn get_multiple(&self, _shard: u64, keys: &[Vec<u8>]) -> Result<Values, StorageError> {
        self.count_call();
        Ok(keys.iter().map(|key| self.live(key).map(|(value, _)| value)).collect())
    }

    fn compare_and_set(
        &self,
        _shard: u64,
        key: &[u8],
        expected: Option<&[u8]>,
        value: &[u8],
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.count_call();
        if self.live(key).map(|(value, _)| value).as_deref() != expected {
            return Ok(false);
        }
        self.entries
            .borrow_mut()
            .insert(key.to_vec(), (value.to_vec(), self.clock.get() + ttl_ms));
        Ok(true)
    }
}
