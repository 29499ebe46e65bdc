//! Where the bulkheads of this process's breakers count their calls in
//! flight: a table shared by the pool, mapped at module startup before the
//! PHP-FPM master forks its workers; a table of the process's own for the
//! breakers over an `InMemoryStorage`, whose circuits are the process's own
//! too. Permits still held when a request ends are given back then.

use std::cell::RefCell;
use std::sync::OnceLock;

use super::engine::{current_fiber, log_notice, startup_warning};
use crate::breaker::Gate;
use crate::storage::bulkhead::held::{self, Permit};
use crate::storage::bulkhead::{Owner, SHARED_ENTRIES, Table, local_table};

static SHARED: OnceLock<Table> = OnceLock::new();

/// Maps the pool's table: at module startup, in the process that forks.
pub fn startup() {
    match Table::shared(SHARED_ENTRIES) {
        Ok(table) => {
            let _ = SHARED.set(table);
        }
        Err(error) => startup_warning(&format!(
            "circuit_breaker: {error}: each process bounds its own calls in flight instead"
        )),
    }
}

/// The request is over: what its calls still hold goes back.
pub fn request_shutdown() {
    held::release_all();
}

/// Which table a breaker's bulkhead counts in.
#[derive(Clone, Copy)]
pub enum Scope {
    /// Every process of the pool.
    Pool,
    /// This process (`InMemoryStorage`).
    Process,
}

fn table(scope: Scope) -> &'static Table {
    match (scope, SHARED.get()) {
        (Scope::Pool, Some(shared)) => shared,
        _ => local_table(),
    }
}

/// A circuit's name in the bulkhead's table and throttling's memory: its
/// storage's scope (`Storage::scope`), a NUL, its service.
pub fn scoped(scope: &[u8], service: &[u8]) -> Vec<u8> {
    [scope, b"\0", service].concat()
}

/// Where the calls of `service` (its name made by `scoped`) take their
/// permits; `None` when the table has no room for it, said once per
/// process: its calls then go unbounded.
pub fn gate_of(service: &[u8], scope: Scope) -> Option<Gate> {
    let table = table(scope);
    let gate = table.entry_of(service).map(|entry| {
        held::note_entry(table, entry);
        Gate { table, entry }
    });
    if gate.is_none() {
        thread_local!(static SAID: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        if !SAID.replace(true) {
            log_notice(&format!(
                "circuit_breaker: the bulkhead of '{}' has no room in the table of bulkheads (at most {} circuits): its calls are not bounded",
                // The service, after its storage's scope (`scoped`).
                String::from_utf8_lossy(service.rsplit(|&byte| byte == 0).next().unwrap_or(service)),
                SHARED_ENTRIES
            ));
        }
    }
    gate
}

/// How many calls of `service` are in flight and how many its bulkhead
/// refused, when it has one in the table.
pub fn in_flight(service: &[u8], scope: Scope) -> Option<(u32, u64)> {
    let table = table(scope);
    table.find(service).map(|entry| counts(Gate { table, entry }))
}

/// How many calls are in flight behind `gate`, and how many it refused.
pub fn counts(gate: Gate) -> (u32, u64) {
    (
        gate.table.in_flight(gate.entry, Owner::this_process()),
        gate.table.refusals(gate.entry),
    )
}

/// The permits a breaker object holds: one per call it permitted that has
/// not registered yet, with the fiber that acquired it.
#[derive(Default)]
pub struct HeldByFiber(RefCell<Vec<(usize, Permit)>>);

impl HeldByFiber {
    /// Keeps the permit of a call the current fiber acquired.
    pub fn keep(&self, permit: Permit) {
        self.0.borrow_mut().push((current_fiber(), permit));
    }

    /// Takes back the permit of the current fiber's last call (a
    /// `CallGate`'s attempt carries it until its register).
    pub fn take_last(&self) -> Option<Permit> {
        let fiber = current_fiber();
        let mut held = self.0.borrow_mut();
        let place = held.iter().rposition(|(of, _)| *of == fiber)?;
        Some(held.remove(place).1)
    }

    /// A call registered: one permit goes back, the current fiber's last,
    /// or, when this fiber holds none (a call acquired in another fiber and
    /// registered here, as an event loop does), the last of any fiber.
    #[inline]
    pub fn give_back(&self) {
        let mut held = self.0.borrow_mut();
        if held.is_empty() {
            return;
        }
        let fiber = current_fiber();
        let place = held.iter().rposition(|(of, _)| *of == fiber).unwrap_or(held.len() - 1);
        let (_, permit) = held.remove(place);
        drop(held);
        drop(permit);
    }
}
