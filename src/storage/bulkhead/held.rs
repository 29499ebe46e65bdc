//! The permits this process holds. Each is given back by its holder when
//! it is done (a register, the end of a transfer, a breaker destroyed: the
//! `Permit` dropped). The end of a request frees every object, and so every
//! holder; `release_all` then gives back whatever this process still holds
//! in the entries it used, so that no mistake of a holder's can leak a
//! permit for the life of the worker.
//!
//! Giving back is a compare-and-set from this process's token to empty: a
//! permit given back twice (by `release_all`, then by its holder freed
//! later in the same shutdown) empties nothing the second time, since no
//! call of this process can take a slot in between.

use std::cell::RefCell;

use super::{EntryIndex, Full, Owner, Table};

/// A permit of a bulkhead: given back when dropped.
#[derive(Debug)]
pub struct Permit {
    table: &'static Table,
    entry: EntryIndex,
    slot: u16,
    owner: Owner,
}

impl Drop for Permit {
    fn drop(&mut self) {
        // A child forked with its parent's permits holds none of them: the
        // parent's call is still in flight, and the parent gives it back.
        if Owner::this_process() == self.owner {
            self.table.leave(self.entry, self.slot, self.owner);
        }
    }
}

/// Takes a permit of `entry` in `table`, one of `limit`.
#[inline]
pub fn enter(table: &'static Table, entry: EntryIndex, limit: u16) -> Result<Permit, Full> {
    let owner = Owner::this_process();
    let slot = table.try_enter(entry, limit, owner)?;
    Ok(Permit {
        table,
        entry,
        slot,
        owner,
    })
}

thread_local! {
    /// The entries this process found for its breakers: where `release_all`
    /// looks. A few per application, each noted once per breaker made.
    static USED: RefCell<Vec<(&'static Table, EntryIndex)>> = const { RefCell::new(Vec::new()) };
}

/// Remembers that this process takes permits in `entry` of `table`.
pub fn note_entry(table: &'static Table, entry: EntryIndex) {
    let _ = USED.try_with(|used| {
        let mut used = used.borrow_mut();
        if !used
            .iter()
            .any(|&(known, at)| std::ptr::eq(known, table) && at == entry)
        {
            used.push((table, entry));
        }
    });
}

/// Gives back every permit this process still holds in the entries it
/// used: the request is over.
pub fn release_all() {
    let owner = Owner::this_process();
    let _ = USED.try_with(|used| {
        for &(table, entry) in used.borrow().iter() {
            table.release_owned(entry, owner);
        }
    });
}
