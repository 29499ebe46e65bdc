//! A host tier in front of a fleet store (Redis, Memcached): calls are
//! decided on the host's shared-memory segment, and the host's window
//! reaches the fleet store at most once per sync interval, in one round
//! trip that brings back the other hosts' windows and the fleet state.
//!
//! Per service, two records of the host segment, under a prefix of their
//! own (so the host's listings never show them):
//!
//! - `L` (local): the circuit as this host runs it. Its state mirrors the
//!   fleet state; its window counts this host's outcomes. While the fleet
//!   store is down it is a whole breaker of its own, over the host's counts.
//! - `F` (fleet view): plain words (see [`Word`]): when the next sync is
//!   due, the host's identity, the degraded mode and its backoff, the other
//!   hosts' window totals and longest run at the last sync.
//!
//! A sync sends the host's absolute window of the current generation (not
//! deltas): sending it again is idempotent, so a sync whose answer is lost
//! neither loses nor counts anything twice, with no script.
//!
//! This file is the storage; the `F` record's words are read and written
//! in `control.rs`, the sync and the degraded mode live in `sync.rs`.

pub mod blob;
mod control;
#[cfg(any(test, feature = "testing"))]
pub mod memory_store;
mod sync;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use control::Control;

use super::memory::ExpiryClock;
use super::shm::{
    BoundCircuit, CircuitMemo, GENERATION_MASK, PlainWords, RecordKind, SLOTS, SharedMemoryStorage, TierWord as Word,
};
use super::{
    CallCounters, CircuitStore, ListedCircuit, ListedCircuitCounters, Notice, OutcomeRecord, Storage, StorageError,
};
use crate::core::config::Config;
use crate::core::counts::{SlotCounts, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::WindowGeometry;

/// The marker after the host prefix of the tier's own records. The records
/// are of the tier's kind (`shm::RecordKind::Tier`): no prefix given in PHP
/// reaches them, this marker included; it only names them for a reader of
/// the segment.
const HOST_PREFIX_MARKER: &[u8] = b"\0fleet\0";

/// How many services a storage object keeps what it learnt of (then it
/// starts over): far more than a process calls.
const MAX_KEPT_CIRCUITS: usize = 4_096;

/// How long a process uses the words of an `F` record it looked up: the
/// lookup keeps the record in use (refreshed once a second), so that it is
/// never given to another name meanwhile.
const TOUCH_EVERY_MS: Millis = 1_000;

/// The sync intervals accepted, in ms.
pub const MIN_SYNC_INTERVAL_MS: Millis = 10;
pub const MAX_SYNC_INTERVAL_MS: Millis = 60_000;

/// How many hosts' windows a host reads at a sync from a store that keeps
/// the list of hosts apart (Memcached), itself included: the hosts it
/// remembers from the last sync, in the order they joined the list. Past
/// that, the others' outcomes are not counted by this host, which says so
/// once (`StorageFailed`).
pub use super::shm::TIER_KNOWN_HOSTS as MAX_KNOWN_HOSTS;

/// How many hosts the list of a circuit's hosts holds at most (Memcached):
/// a sync that finds it longer cuts it to this (a host cut off joins again
/// at its next sync).
pub const MAX_LISTED_HOSTS: usize = 1_024;

pub struct FleetStorage {
    fleet: Rc<dyn CircuitStore>,
    /// The host segment, under the host prefix followed by the marker.
    host: SharedMemoryStorage,
    sync_interval_ms: Millis,
    clock: Rc<dyn Fn() -> Millis>,
    notices: RefCell<Vec<Notice>>,
    /// What this object keeps of each service it was asked about, so that
    /// a call neither builds nor hashes the names of its records.
    circuits: RefCell<HashMap<Vec<u8>, Rc<Circuit>>>,
    last_circuit: RefCell<Option<(Vec<u8>, Rc<Circuit>)>>,
    /// Set by `begin_call`: the fleet store's deadline starts at the call's
    /// first round trip, so a call that makes none costs it nothing.
    call_begun: Cell<bool>,
}

/// What a storage object keeps of one service between calls.
struct Circuit {
    local_name: Vec<u8>,
    /// Where the `L` record lies, and the sums of its past buckets.
    memo: CircuitMemo,
    /// The `F` record's words, and when they were looked up: looked up
    /// again (which keeps the record in use) once a second.
    control: Cell<Option<(PlainWords, Millis)>>,
    /// What this process summed of the buckets the host counted in while
    /// degraded (`sync.rs`).
    excluded_sums: Cell<Option<sync::ExcludedSums>>,
}

impl FleetStorage {
    /// `host` is the host's storage (its segment and prefix), `fleet` the
    /// fleet store; `sync_interval_ms` is already checked.
    pub fn new(
        fleet: Rc<dyn CircuitStore>,
        host: &SharedMemoryStorage,
        sync_interval_ms: Millis,
        clock: ExpiryClock,
    ) -> Self {
        let clock: Rc<dyn Fn() -> Millis> = Rc::from(clock);
        let host_clock = Rc::clone(&clock);
        Self {
            fleet,
            host: SharedMemoryStorage::of_kind(
                host.segment(),
                RecordKind::Tier,
                [host.prefix(), HOST_PREFIX_MARKER].concat(),
                Box::new(move || host_clock()),
            ),
            sync_interval_ms,
            clock,
            notices: RefCell::default(),
            circuits: RefCell::default(),
            last_circuit: RefCell::default(),
            call_begun: Cell::new(false),
        }
    }

    /// What this object keeps of `service`.
    fn kept(&self, service: &[u8]) -> Rc<Circuit> {
        // A breaker's calls come in a row: its service, compared, costs
        // less than hashed.
        if let Some((last, circuit)) = &*self.last_circuit.borrow()
            && last.as_slice() == service
        {
            return Rc::clone(circuit);
        }
        let circuit = self.circuit_by_name(service);
        *self.last_circuit.borrow_mut() = Some((service.to_vec(), Rc::clone(&circuit)));
        circuit
    }

    fn circuit_by_name(&self, service: &[u8]) -> Rc<Circuit> {
        if let Some(circuit) = self.circuits.borrow().get(service) {
            return Rc::clone(circuit);
        }
        let mut circuits = self.circuits.borrow_mut();
        if circuits.len() >= MAX_KEPT_CIRCUITS {
            circuits.clear();
        }
        let circuit = Rc::new(Circuit {
            local_name: Self::local(service),
            memo: CircuitMemo::default(),
            control: Cell::new(None),
            excluded_sums: Cell::new(None),
        });
        circuits.insert(service.to_vec(), Rc::clone(&circuit));
        circuit
    }

    /// The `L` record's storage for one call at `now` (the host's clock).
    fn on_host<'a>(&'a self, circuit: &'a Circuit, now: Millis) -> BoundCircuit<'a> {
        self.host.within_call(&circuit.memo, Some(now))
    }

    #[inline]
    fn control_of(&self, service: &[u8], circuit: &Circuit, now: Millis) -> Result<Control, StorageError> {
        if let Some((words, at)) = circuit.control.get()
            && (0..TOUCH_EVERY_MS).contains(&(now - at))
        {
            return Ok(Control(words));
        }
        self.look_up_control(service, circuit, now)
    }

    /// Looks the `F` record up again, which keeps it in use.
    #[cold]
    fn look_up_control(&self, service: &[u8], circuit: &Circuit, now: Millis) -> Result<Control, StorageError> {
        let words = self.host.plain_words(&[b"F", service].concat())?;
        circuit.control.set(Some((words, now)));
        Ok(Control(words))
    }

    /// Starts the fleet store's deadline at the first round trip of a call.
    fn begin_fleet_call(&self) {
        if self.call_begun.replace(false) {
            self.fleet.begin_call();
        }
    }

    /// Makes the next call on this host for `service` sync, whenever the
    /// last one was: what a test uses to see a command of another host at
    /// once, rather than one interval later.
    pub fn make_sync_due(&self, service: &[u8]) -> Result<(), StorageError> {
        self.control(service)?.set(Word::NextSyncAt, 0);
        Ok(())
    }

    fn local(service: &[u8]) -> Vec<u8> {
        [b"L", service].concat()
    }

    fn control(&self, service: &[u8]) -> Result<Control, StorageError> {
        self.control_of(service, &self.kept(service), (self.clock)())
    }
}

impl FleetStorage {
    fn bound<'a>(&'a self, circuit: &'a Circuit, now: Millis) -> BoundFleet<'a> {
        BoundFleet {
            tier: self,
            circuit,
            now,
            local: self.on_host(circuit, now),
        }
    }
}

/// The tier as one call of one breaker uses it (see [`FleetCircuit`]).
pub struct BoundFleet<'a> {
    tier: &'a FleetStorage,
    circuit: &'a Circuit,
    now: Millis,
    /// The `L` record's storage for this call.
    local: BoundCircuit<'a>,
}

impl BoundFleet<'_> {
    fn control(&self, service: &[u8]) -> Result<Control, StorageError> {
        self.tier.control_of(service, self.circuit, self.now)
    }

    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        let (tier, now) = (self.tier, self.now);
        let control = self.control(service)?;
        tier.sync_if_due(service, &control, now)?;
        let local = self.local.load_state(&self.circuit.local_name)?;
        if local.phase != Phase::HalfOpen {
            return Ok(local);
        }
        // Half-open is decided at the fleet store: one trial fleet-wide.
        match tier.at_fleet(&control, |fleet| fleet.load_state(service)) {
            Some(state) => {
                tier.follow(service, &control, state)?;
                Ok(state)
            }
            None => Ok(local),
        }
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let tier = self.tier;
        let control = self.control(service)?;
        let generation = control.widen(expected.generation);
        let step = new.generation.wrapping_sub(expected.generation) & GENERATION_MASK;
        let expected_at_fleet = CircuitState { generation, ..expected };
        let new_at_fleet = CircuitState {
            generation: generation + step,
            ..new
        };
        let stored = tier.at_fleet(&control, |fleet| {
            let won = fleet.compare_and_set_state(service, expected_at_fleet, new_at_fleet, ttl_ms)?;
            let current = if won { new_at_fleet } else { fleet.load_state(service)? };
            Ok((won, current))
        });
        match stored {
            Some((won, current)) => {
                tier.follow(service, &control, current)?;
                Ok(won)
            }
            None => tier
                .host
                .compare_and_set_state(&self.circuit.local_name, expected, new, ttl_ms),
        }
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        let tier = self.tier;
        let control = self.control(service)?;
        let window_ms = record.window.window_ms().max(0) as u64;
        if control.get(Word::WindowMs) != window_ms || control.get(Word::SlotCount) != record.slot_count as u64 {
            control.set(Word::WindowMs, window_ms);
            control.set(Word::SlotCount, record.slot_count as u64);
            // A sync without the window read no one's: this host counts
            // with the fleet from this call on.
            control.set(Word::NextSyncAt, 0);
        }
        tier.sync_if_due(service, &control, record.now)?;
        // Counted on the host in every phase: while degraded, the host's
        // half-open state decides on these.
        let (state, mut tally) = self.local.record_outcome(&self.circuit.local_name, record)?;
        if state.phase == Phase::HalfOpen {
            if let Some((state, tally)) = tier.at_fleet(&control, |fleet| fleet.record_outcome(service, record)) {
                tier.follow(service, &control, state)?;
                return Ok((state, tally));
            }
            return Ok((state, tally));
        }
        if control.degraded() {
            return Ok((state, tally));
        }
        if let Some(excluded) = control.excluded() {
            tier.uncount_excluded(
                self.circuit,
                &control,
                excluded,
                (state.generation, record.window, record.now),
                &mut tally.window,
            )?;
        }
        if let Some((sums, run)) = control.others(state.generation, record.slot_count) {
            let own = &tally.window;
            tally.window = SlotCounts::from_fn(own.len(), |slot| own[slot] + sums.get(slot).copied().unwrap_or(0));
            tally.consecutive_failures = tally.consecutive_failures.max(run);
        }
        Ok((state, tally))
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        let tier = self.tier;
        let control = self.control(service)?;
        let at_fleet = CircuitState {
            generation: control.widen(state.generation),
            ..state
        };
        match tier.at_fleet(&control, |fleet| fleet.admit_half_open(service, at_fleet, ttl_ms)) {
            Some(admissions) => Ok(admissions),
            None => tier.host.admit_half_open(&self.circuit.local_name, state, ttl_ms),
        }
    }

    /// The window as the rules see it: the host's own, live, plus the
    /// others' at the last sync; in half-open, the fleet store's.
    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        let tier = self.tier;
        let control = self.control(service)?;
        let local_name = &self.circuit.local_name;
        let local = tier.host.load_state(local_name)?;
        if local.phase == Phase::HalfOpen {
            let generation = control.widen(generation);
            if let Some(counts) = tier.at_fleet(&control, |fleet| {
                fleet.read_window(service, generation, window, slot_count, now)
            }) {
                return Ok(counts);
            }
        }
        let mut counts = tier
            .host
            .read_window(local_name, generation & GENERATION_MASK, window, slot_count, now)?;
        if control.degraded() {
            return Ok(counts);
        }
        if let Some(excluded) = control.excluded() {
            tier.uncount_excluded(
                self.circuit,
                &control,
                excluded,
                (generation & GENERATION_MASK, window, now),
                &mut counts,
            )?;
        }
        if let Some((sums, _)) = control.others(generation, slot_count) {
            for (count, other) in counts.iter_mut().zip(sums) {
                *count += other;
            }
        }
        Ok(counts)
    }

    /// Metrics are the host's: each host counts its own calls.
    fn count_permission(&self, permitted: bool, config: &Config) {
        self.local.count_permission(&self.circuit.local_name, permitted, config);
    }
}

impl Storage for FleetStorage {
    fn circuit(self: Rc<Self>, service: &[u8]) -> super::KeptCircuit {
        super::KeptCircuit::boxed(FleetCircuit {
            circuit: self.kept(service),
            tier: self,
            service: service.to_vec(),
            now: Cell::new(0),
        })
    }

    fn scope(&self) -> Vec<u8> {
        [b"fleet\0".as_slice(), &self.fleet.scope()].concat()
    }

    fn max_slots(&self) -> Option<usize> {
        Some(self.fleet.max_slots().map_or(SLOTS, |fleet| fleet.min(SLOTS)))
    }

    fn list_circuits(&self, prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        self.fleet.list_circuits(prefix)
    }

    /// The fleet's circuits, each with this host's counters.
    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        self.fleet
            .list_circuits(prefix)?
            .into_iter()
            .map(|(service, state)| {
                let counters = self.host.counters(&Self::local(&service))?;
                Ok((service, state, counters))
            })
            .collect()
    }
}

/// A breaker's circuit on this tier: the places of its host records and
/// the name of its `L` record, so that a call neither looks up nor builds a
/// name, and the instant of the current call, read once.
pub struct FleetCircuit {
    tier: Rc<FleetStorage>,
    circuit: Rc<Circuit>,
    service: Vec<u8>,
    now: Cell<Millis>,
}

impl FleetCircuit {
    #[inline]
    fn bound(&self) -> BoundFleet<'_> {
        self.tier.bound(&self.circuit, self.now.get())
    }
}

impl super::Circuit for FleetCircuit {
    fn service(&self) -> &[u8] {
        &self.service
    }

    fn begin_call(&self, now: Option<Millis>) {
        self.tier.call_begun.set(true);
        self.circuit.memo.begin_call();
        self.now.set(now.unwrap_or_else(|| (self.tier.clock)()));
    }

    fn load_state(&self) -> Result<CircuitState, StorageError> {
        self.bound().load_state(&self.service)
    }

    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.bound().compare_and_set_state(&self.service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.bound().record_outcome(&self.service, record)
    }

    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.bound().admit_half_open(&self.service, state, ttl_ms)
    }

    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        self.bound()
            .read_window(&self.service, generation, window, slot_count, now)
    }

    fn count_permission(&self, permitted: bool, config: &Config) {
        self.bound().count_permission(permitted, config);
    }

    fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        self.tier.host.counters(&self.circuit.local_name)
    }

    fn take_notices(&self, notice: &mut dyn FnMut(Notice)) {
        // Asked after every call; rarely anything to say.
        if !self.tier.notices.borrow().is_empty() {
            self.tier.pass_notices(notice);
        }
    }
}

impl FleetStorage {
    #[cold]
    fn pass_notices(&self, notice: &mut dyn FnMut(Notice)) {
        for pending in self.notices.take() {
            notice(pending);
        }
    }
}

#[cfg(test)]
mod tests;
