//! The bulkhead table: permits bounded by the limit, entries per name, dead
//! and reused owners reclaimed, permits given back, the shared table zeroed.

use super::*;

/// A token whose process does not exist: ids stop far below 2^30.
fn dead_owner(n: u64) -> Owner {
    Owner(((0x3FFF_0000 + n) << 32) | 7)
}

#[test]
fn no_more_than_the_limit_are_held() {
    let table = Table::local(4);
    let entry = table.entry_of(b"payments").unwrap();
    let me = Owner::this_process();
    let slots: Vec<u16> = (0..3).map(|_| table.try_enter(entry, 3, me).unwrap()).collect();
    let mut sorted = slots.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2]);
    assert_eq!(table.try_enter(entry, 3, me), Err(Full { limit: 3 }));
    assert_eq!(table.refusals(entry), 1);
    assert_eq!(table.in_flight(entry, me), 3);
    table.leave(entry, slots[1], me);
    assert_eq!(table.in_flight(entry, me), 2);
    assert_eq!(table.try_enter(entry, 3, me), Ok(slots[1]));
}

#[test]
fn names_have_entries_of_their_own() {
    let table = Table::local(8);
    let a = table.entry_of(b"a").unwrap();
    let b = table.entry_of(b"b").unwrap();
    assert_ne!(a, b);
    assert_eq!(table.entry_of(b"a"), Some(a));
    assert_eq!(table.find(b"b"), Some(b));
    assert_eq!(table.find(b"c"), None);
    let me = Owner::this_process();
    table.try_enter(a, 1, me).unwrap();
    assert!(
        table.try_enter(b, 1, me).is_ok(),
        "a full bulkhead does not fill another"
    );
}

#[test]
fn a_full_table_gives_no_entry() {
    let table = Table::local(2);
    assert!(table.entry_of(b"a").is_some());
    assert!(table.entry_of(b"b").is_some());
    let third = (0..100)
        .map(|n| format!("name-{n}"))
        .find(|name| table.find(name.as_bytes()).is_none());
    assert_eq!(table.entry_of(third.unwrap().as_bytes()), None);
}

#[test]
fn the_permits_of_dead_processes_are_reclaimed_when_full() {
    let table = Table::local(4);
    let entry = table.entry_of(b"s").unwrap();
    for n in 0..3 {
        table.try_enter(entry, 3, dead_owner(n)).unwrap();
    }
    let me = Owner::this_process();
    assert_eq!(table.try_enter(entry, 3, me).map(|_| ()), Ok(()), "reclaimed");
    assert_eq!(table.refusals(entry), 0);
    // Every dead permit went, not only the one needed.
    assert_eq!(table.in_flight(entry, me), 1);
}

#[test]
fn a_reused_process_id_is_not_its_old_owner() {
    let me = Owner::this_process();
    assert!(me.is_alive());
    let same_pid_other_start = Owner(me.0 ^ 1);
    assert!(!same_pid_other_start.is_alive());
}

#[test]
fn leaving_a_slot_taken_by_another_leaves_it_theirs() {
    let table = Table::local(1);
    let entry = table.entry_of(b"s").unwrap();
    let dead = dead_owner(1);
    let slot = table.try_enter(entry, 1, dead).unwrap();
    let me = Owner::this_process();
    assert_eq!(table.try_enter(entry, 1, me), Ok(slot));
    table.leave(entry, slot, dead);
    assert_eq!(table.in_flight(entry, me), 1);
}

#[test]
fn a_lower_limit_counts_the_slots_above_it() {
    let table = Table::local(1);
    let entry = table.entry_of(b"s").unwrap();
    let me = Owner::this_process();
    for _ in 0..5 {
        table.try_enter(entry, 5, me).unwrap();
    }
    assert_eq!(table.try_enter(entry, 2, me), Err(Full { limit: 2 }));
    assert_eq!(table.in_flight(entry, me), 5);
}

#[test]
fn permits_are_given_back_when_dropped_or_at_the_end_of_the_request() {
    let table: &'static Table = Box::leak(Box::new(Table::local(1)));
    let entry = table.entry_of(b"s").unwrap();
    let me = Owner::this_process();
    let first = held::enter(table, entry, 2).unwrap();
    drop(first);
    assert_eq!(table.in_flight(entry, me), 0);
    // Held past the end of the request: given back by release_all, and
    // its drop afterwards empties nothing another process took.
    held::note_entry(table, entry);
    let kept = held::enter(table, entry, 1).unwrap();
    held::release_all();
    assert_eq!(table.in_flight(entry, me), 0);
    let other = table.try_enter(entry, 1, dead_owner(9)).unwrap();
    drop(kept);
    // Counted as the other owner sees it: its slot is still taken.
    assert_eq!(table.in_flight(entry, dead_owner(9)), 1);
    table.leave(entry, other, dead_owner(9));
    assert_eq!(table.in_flight(entry, me), 0);
}

#[test]
fn the_shared_table_is_zeroed_and_usable() {
    let table = Table::shared(SHARED_ENTRIES).unwrap();
    let entry = table.entry_of(b"payments").unwrap();
    let me = Owner::this_process();
    assert_eq!(table.in_flight(entry, me), 0);
    let slot = table.try_enter(entry, MAX_CONCURRENT_CALLS as u16, me).unwrap();
    assert_eq!(table.in_flight(entry, me), 1);
    table.leave(entry, slot, me);
    assert_eq!(table.in_flight(entry, me), 0);
}
