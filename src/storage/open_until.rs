//! What a worker remembers, between requests, of the circuits it found
//! open in a network storage: an open circuit ends only by time, so until
//! then a rejection needs no round trip.

use std::cell::RefCell;
use std::collections::HashMap;

use super::RememberedOpen;

thread_local! {
    /// Until when each circuit is open, by storage (its servers) and name.
    static OPEN_UNTIL: RefCell<HashMap<(String, Vec<u8>), RememberedOpen>> = RefCell::default();
}

pub fn remembered(scope: &str, name: Vec<u8>) -> Option<RememberedOpen> {
    OPEN_UNTIL.with_borrow(|open| open.get(&(scope.to_owned(), name)).copied())
}

pub fn remember(scope: &str, name: Vec<u8>, until: Option<RememberedOpen>) {
    let key = (scope.to_owned(), name);
    OPEN_UNTIL.with_borrow_mut(|open| match until {
        Some(until) => open.insert(key, until),
        None => open.remove(&key),
    });
}
