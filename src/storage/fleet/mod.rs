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

pub mod blob;
#[cfg(any(test, feature = "testing"))]
pub mod memory_store;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use blob::HostCounts;

use super::memory::ExpiryClock;
use super::net::backoff::{Backoff, backoff};
use super::shm::{
    BoundCircuit, CircuitMemo, GENERATION_MASK, RecordKind, SLOTS, SharedMemoryStorage, TierWord as Word,
};
use super::{
    CallCounters, CircuitStore, HostWindow, ListedCircuit, ListedCircuitCounters, Notice, OutcomeRecord, Storage,
    StorageError,
};
use crate::core::config::Config;
use crate::core::counts::{SlotCounts, Tally};
use crate::core::duration::Millis;
use crate::core::fleet::{Reconciled, forgot, reconcile};
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

/// The backoff of a host whose fleet store failed: the first retry after
/// a second, then doubling up to eight (the wait before the `streak`-th
/// attempt in a row is `backoff(RETRY, streak)`).
const RETRY: Backoff = Backoff {
    first: Duration::from_secs(1),
    max: Duration::from_secs(8),
};

/// How long the host keeps a state it follows: the fleet store keeps it,
/// the host record only has to outlive the calls (it is reused only idle).
const FOLLOWED_STATE_TTL_MS: Millis = 2 * 86_400_000;

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

/// The plain words of an `F` record.
struct Control(&'static [AtomicU64]);

impl Control {
    fn get(&self, word: Word) -> u64 {
        self.0[word as usize].load(Ordering::Acquire)
    }

    fn at(&self, word: Word, index: usize) -> &AtomicU64 {
        &self.0[word as usize + index]
    }

    fn set(&self, word: Word, value: u64) {
        self.0[word as usize].store(value, Ordering::Release);
    }

    fn swap(&self, word: Word, from: u64, to: u64) -> bool {
        self.0[word as usize]
            .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn degraded(&self) -> bool {
        self.get(Word::Degraded) != 0
    }

    /// The host's identity, drawn by the first process that needs it.
    fn host_id(&self) -> u64 {
        let id = self.get(Word::HostId);
        if id != 0 {
            return id;
        }
        let drawn = RandomState::new().hash_one((std::process::id(), std::time::SystemTime::now())) | 1;
        if self.swap(Word::HostId, 0, drawn) {
            drawn
        } else {
            self.get(Word::HostId)
        }
    }

    fn geometry(&self) -> Option<(WindowGeometry, usize)> {
        let (window_ms, slot_count) = (self.get(Word::WindowMs), self.get(Word::SlotCount) as usize);
        (window_ms > 0 && (1..=SLOTS).contains(&slot_count))
            .then(|| (WindowGeometry::new(window_ms as Millis), slot_count))
    }

    fn known_hosts(&self) -> Vec<u64> {
        let count = (self.get(Word::KnownHostCount) as usize).min(MAX_KNOWN_HOSTS);
        (0..count)
            .map(|index| self.at(Word::KnownHosts, index).load(Ordering::Relaxed))
            .collect()
    }

    /// Keeps the hosts `listed` whose windows the next sync reads: this host
    /// `own` first when listed (so that it does not append itself again),
    /// then the others in the list's order, `MAX_KNOWN_HOSTS` in all.
    fn set_known_hosts(&self, listed: &[u64], own: u64) {
        let mut hosts: Vec<u64> = listed.iter().copied().filter(|&host| host == own).take(1).collect();
        hosts.extend(listed.iter().copied().filter(|&host| host != own));
        hosts.truncate(MAX_KNOWN_HOSTS);
        for (index, host) in hosts.iter().enumerate() {
            self.at(Word::KnownHosts, index).store(*host, Ordering::Relaxed);
        }
        self.set(Word::KnownHostCount, hosts.len() as u64);
    }
}

/// Whether a host's stored state is the fleet's `state`, as far as the
/// host's state word keeps it (14 bits of generation; `until` only when
/// forced, where the word holds it).
fn same_state(local: CircuitState, fleet: CircuitState) -> bool {
    local.phase == fleet.phase
        && local.generation == fleet.generation & GENERATION_MASK
        && local.forced == fleet.forced
        && local.backoff == fleet.backoff
        && if fleet.forced {
            local.until == fleet.until
        } else {
            local.since == fleet.since
        }
}

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
    control: Cell<Option<(&'static [AtomicU64], Millis)>>,
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

    /// The whole generation of the host's `generation` (14 bits), as the
    /// fleet stores it.
    fn widen(control: &Control, generation: u64) -> u64 {
        let fleet = control.get(Word::FleetGeneration);
        if generation & GENERATION_MASK == fleet & GENERATION_MASK {
            fleet
        } else {
            generation
        }
    }

    /// Syncs when one is due and this process wins the election for it
    /// (the retry of a degraded host is the same election on its own word).
    #[inline]
    fn sync_if_due(&self, service: &[u8], control: &Control, now: Millis) -> Result<(), StorageError> {
        let word = if control.degraded() {
            Word::RetryAt
        } else {
            Word::NextSyncAt
        };
        let due_at = control.get(word);
        // Most calls: not due, one load more.
        if (now.max(0) as u64) < due_at {
            return Ok(());
        }
        self.sync_if_elected(service, control, word, due_at, now)
    }

    /// A sync is due at `due_at` on `word`: the process that moves `word`
    /// on to the next one does it.
    #[cold]
    fn sync_if_elected(
        &self,
        service: &[u8],
        control: &Control,
        word: Word,
        due_at: u64,
        now: Millis,
    ) -> Result<(), StorageError> {
        let next = match word {
            Word::RetryAt => now + backoff(RETRY, control.get(Word::FailureStreak) + 1).as_millis() as Millis,
            _ => now + self.sync_interval_ms,
        };
        if !control.swap(word, due_at, next.max(0) as u64) {
            return Ok(());
        }
        self.sync(service, control, now)
    }

    /// Sends the host's window, reads the fleet's, follows the fleet state.
    fn sync(&self, service: &[u8], control: &Control, now: Millis) -> Result<(), StorageError> {
        let Some((window, slot_count)) = control.geometry() else {
            // No outcome yet on this host: nothing to send, the state to follow.
            self.begin_fleet_call();
            return match self.fleet.load_state(service) {
                Ok(state) => {
                    self.recovered(control, now);
                    match self.restore_if_forgotten(service, control, state, now)? {
                        Some(state) => self.follow(service, control, state),
                        None => Ok(()),
                    }
                }
                Err(error) => {
                    self.fleet_failed(control, error, now);
                    Ok(())
                }
            };
        };
        let local_name = Self::local(service);
        let local = self.host.load_state(&local_name)?;
        let generation = Self::widen(control, local.generation);
        let (buckets, run) = self
            .host
            .window_by_bucket(&local_name, local.generation, window, slot_count, now)?;
        let (from, until) = (control.get(Word::ExcludedFrom), control.get(Word::ExcludedUntil));
        let sent = |bucket: i64| {
            let bucket = bucket.max(0) as u64 + 1;
            from == 0 || bucket < from || (until != 0 && bucket >= until)
        };
        let counts = HostCounts {
            buckets: buckets.into_iter().filter(|(bucket, _)| sent(*bucket)).collect(),
            run: if control.degraded() { 0 } else { run },
        };
        let blob = blob::encode(&counts);
        let host = control.host_id();
        let known_hosts = control.known_hosts();
        let ttl_ms = window.counter_ttl_ms() + 2 * self.sync_interval_ms;
        let request = HostWindow {
            host,
            generation,
            blob: &blob,
            ttl_ms,
            known_hosts: &known_hosts,
        };
        self.begin_fleet_call();
        let view = match self.fleet.sync_host(service, &request) {
            Ok(view) => view,
            Err(error) => {
                self.fleet_failed(control, error, now);
                return Ok(());
            }
        };
        self.recovered(control, now);
        if let Some(listed) = &view.listed_hosts {
            // A list that lost this host (expired) gets it again next sync.
            control.set_known_hosts(listed, host);
            self.count_listed(service, control, listed.len(), view.hosts.len());
        }
        let Some(fleet_state) = self.restore_if_forgotten(service, control, view.state, now)? else {
            return Ok(());
        };
        self.follow(service, control, fleet_state)?;
        if fleet_state.generation == generation {
            let others = view
                .hosts
                .iter()
                .filter(|(id, _)| *id != host)
                .map(|(_, blob)| blob.as_slice());
            let (sums, run) = blob::sum(others, window.buckets_covering(now), slot_count);
            for (slot, sum) in sums.iter().enumerate() {
                control.at(Word::Others, slot).store(*sum, Ordering::Relaxed);
            }
            control.set(Word::OthersRun, run);
            // 0 when the others count nothing: a call then adds nothing.
            let counted = run > 0 || sums.iter().any(|&sum| sum > 0);
            control.set(
                Word::OthersGeneration,
                if counted { (generation & GENERATION_MASK) + 1 } else { 0 },
            );
        } else {
            // The fleet moved to another generation: its windows are read
            // at the next call.
            control.set(Word::OthersGeneration, 0);
            control.set(Word::NextSyncAt, now.max(0) as u64);
        }
        Ok(())
    }

    /// Says once, while the store lists more hosts than a host reads the
    /// windows of, that the others' outcomes are left out here. Only once
    /// this host read as many windows as it can, all there (`read`, itself
    /// included): a list that still holds hosts gone, which syncs prune from
    /// its start, is no larger fleet.
    fn count_listed(&self, service: &[u8], control: &Control, listed: usize, read: usize) {
        if listed <= MAX_KNOWN_HOSTS {
            if control.get(Word::TooManyHosts) != 0 {
                control.set(Word::TooManyHosts, 0);
            }
            return;
        }
        if read >= MAX_KNOWN_HOSTS && control.swap(Word::TooManyHosts, 0, 1) {
            self.notices.borrow_mut().push(Notice::StorageFailed(StorageError::Full(format!(
                "the fleet store lists {listed} hosts for circuit '{}', more than the {MAX_KNOWN_HOSTS} a host reads the windows of: this host counts the outcomes of {MAX_KNOWN_HOSTS} of them, itself included",
                service.escape_ascii()
            ))));
        }
    }

    /// The state to follow when the fleet store answers `fleet`, as
    /// `core::fleet::reconcile` decides it; a state restored is written by
    /// compare-and-set, so that one host does. `None`: the store failed
    /// meanwhile, the host is degraded again.
    fn restore_if_forgotten(
        &self,
        service: &[u8],
        control: &Control,
        fleet: CircuitState,
        now: Millis,
    ) -> Result<Option<CircuitState>, StorageError> {
        let followed = control.get(Word::FleetGeneration);
        // Nearly every sync finds the store where the host left it: the
        // host's own state is read only for one that went back.
        if !forgot(fleet, followed) {
            return Ok(Some(fleet));
        }
        let local = self.host.load_state(&Self::local(service))?;
        let Reconciled::Restore(restored) = reconcile(local, fleet, followed) else {
            return Ok(Some(fleet));
        };
        let written = self
            .fleet
            .compare_and_set_state(service, fleet, restored, FOLLOWED_STATE_TTL_MS)
            .and_then(|won| {
                if won {
                    Ok(restored)
                } else {
                    self.fleet.load_state(service)
                }
            });
        match written {
            Ok(state) => Ok(Some(state)),
            Err(error) => {
                self.fleet_failed(control, error, now);
                Ok(None)
            }
        }
    }

    /// The host takes the fleet's state, when it has another.
    fn follow(&self, service: &[u8], control: &Control, fleet: CircuitState) -> Result<(), StorageError> {
        control.set(Word::FleetGeneration, fleet.generation);
        let local_name = Self::local(service);
        for _ in 0..4 {
            let local = self.host.load_state(&local_name)?;
            if same_state(local, fleet) {
                return Ok(());
            }
            if self
                .host
                .compare_and_set_state(&local_name, local, fleet, FOLLOWED_STATE_TTL_MS)?
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The fleet store failed: the host decides alone from now on; the
    /// process that switches it says so, once.
    fn fleet_failed(&self, control: &Control, error: StorageError, now: Millis) {
        let now_word = now.max(0) as u64;
        if control.swap(Word::Degraded, 0, 1) {
            let bucket = control
                .geometry()
                .map_or(0, |(window, _)| window.bucket_at(now).max(0) as u64 + 1);
            control.set(Word::ExcludedUntil, 0);
            control.set(Word::ExcludedFrom, bucket);
            control.set(Word::FailureStreak, 1);
            control.set(Word::RetryAt, now_word + backoff(RETRY, 1).as_millis() as u64);
            self.notices.borrow_mut().push(Notice::StorageFailed(error));
        } else {
            let streak = control.get(Word::FailureStreak) + 1;
            control.set(Word::FailureStreak, streak);
            control.set(Word::RetryAt, now_word + backoff(RETRY, streak).as_millis() as u64);
        }
    }

    /// A round trip to the fleet store worked: a degraded host decides on
    /// fleet counts again; the process that switches it back says so, once.
    fn recovered(&self, control: &Control, now: Millis) {
        if control.swap(Word::Degraded, 1, 0) {
            let bucket = control
                .geometry()
                .map_or(0, |(window, _)| window.bucket_at(now).max(0) as u64 + 1);
            // The bucket of the recovery holds counts of the degraded time too.
            control.set(Word::ExcludedUntil, bucket + 1);
            control.set(Word::FailureStreak, 0);
            control.set(Word::NextSyncAt, now.max(0) as u64);
            self.notices.borrow_mut().push(Notice::StorageRecovered);
        }
    }

    /// The others' totals to add to the host's window of `generation`, when
    /// the last sync saw that generation.
    #[inline]
    fn others(control: &Control, generation: u64, slot_count: usize) -> Option<([u64; SLOTS], u64)> {
        if control.get(Word::OthersGeneration) != (generation & GENERATION_MASK) + 1 {
            return None;
        }
        let mut sums = [0; SLOTS];
        for (slot, sum) in sums.iter_mut().enumerate().take(slot_count) {
            *sum = control.at(Word::Others, slot).load(Ordering::Relaxed);
        }
        Some((sums, control.get(Word::OthersRun)))
    }

    /// Runs `at_fleet` on the fleet store unless the host is degraded; a
    /// failure degrades it. `None`: decide on the host.
    fn at_fleet<T>(
        &self,
        control: &Control,
        at_fleet: impl FnOnce(&dyn CircuitStore) -> Result<T, StorageError>,
    ) -> Option<T> {
        if control.degraded() {
            return None;
        }
        self.begin_fleet_call();
        match at_fleet(self.fleet.as_ref()) {
            Ok(value) => Some(value),
            Err(error) => {
                self.fleet_failed(control, error, (self.clock)());
                None
            }
        }
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
        let generation = FleetStorage::widen(&control, expected.generation);
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
        if let Some((sums, run)) = FleetStorage::others(&control, state.generation, record.slot_count) {
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
            generation: FleetStorage::widen(&control, state.generation),
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
            let generation = FleetStorage::widen(&control, generation);
            if let Some(counts) = tier.at_fleet(&control, |fleet| {
                fleet.read_window(service, generation, window, slot_count, now)
            }) {
                return Ok(counts);
            }
        }
        let mut counts = tier
            .host
            .read_window(local_name, generation & GENERATION_MASK, window, slot_count, now)?;
        if !control.degraded()
            && let Some((sums, _)) = FleetStorage::others(&control, generation, slot_count)
        {
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
    fn circuit(self: Rc<Self>, service: &[u8]) -> Box<dyn super::Circuit> {
        Box::new(FleetCircuit {
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
