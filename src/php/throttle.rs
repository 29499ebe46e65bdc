//! What this process knows of the windows of its throttled circuits, kept
//! across its requests: a breaker made per request (the seed's usage) finds
//! the window the previous requests' registers read back.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::core::throttle::ThrottleMemo;

/// More circuits than any application throttles: past it the memory
/// starts over (breakers holding theirs keep it).
const MAX_CIRCUITS: usize = 4096;

thread_local! {
    static MEMOS: RefCell<HashMap<Vec<u8>, Rc<Cell<ThrottleMemo>>>> = RefCell::new(HashMap::new());
}

/// The memory of `service`'s window in this process.
pub fn memo_of(service: &[u8]) -> Rc<Cell<ThrottleMemo>> {
    MEMOS.with(|memos| {
        let mut memos = memos.borrow_mut();
        if let Some(memo) = memos.get(service) {
            return memo.clone();
        }
        if memos.len() >= MAX_CIRCUITS {
            memos.clear();
        }
        let memo = Rc::new(Cell::new(ThrottleMemo::default()));
        memos.insert(service.to_vec(), memo.clone());
        memo
    })
}
