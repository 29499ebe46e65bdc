//! The tier's side of the sync protocol: when a host syncs, what it sends
//! and keeps of the fleet's answer, the state it follows or restores, and
//! the degraded mode in which it decides alone while the store fails.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::blob::{self, HostCounts};
use super::control::{Control, Excluded};
use super::{Circuit, FleetStorage, MAX_KNOWN_HOSTS};
use crate::core::duration::Millis;
use crate::core::fleet::{Reconciled, forgot, reconcile};
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;
use crate::storage::net::backoff::{Backoff, backoff};
use crate::storage::shm::{GENERATION_MASK, SLOTS, TierWord as Word};
use crate::storage::{CircuitStore, HostWindow, Notice, StorageError};

/// The backoff of a host whose fleet store failed: the first retry after
/// a second, then doubling up to eight (the wait before the `streak`-th
/// attempt in a row is `backoff(RETRY, streak)`).
pub(super) const RETRY: Backoff = Backoff {
    first: Duration::from_secs(1),
    max: Duration::from_secs(8),
};

/// How long the host keeps a state it follows: the fleet store keeps it,
/// the host record only has to outlive the calls (it is reused only idle).
const FOLLOWED_STATE_TTL_MS: Millis = 2 * 86_400_000;

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

/// What a process summed of a circuit's excluded buckets, and for which
/// window: kept while the current bucket stays the same and is not one of
/// them, when no count of theirs changes.
#[derive(Debug, Clone, Copy)]
pub(super) struct ExcludedSums {
    key: ExcludedKey,
    sums: [u64; SLOTS],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ExcludedKey {
    generation: u64,
    now_bucket: i64,
    window: WindowGeometry,
    slot_count: usize,
    excluded: Excluded,
}

impl FleetStorage {
    /// Syncs when one is due and this process wins the election for it
    /// (the retry of a degraded host is the same election on its own word).
    #[inline]
    pub(super) fn sync_if_due(&self, service: &[u8], control: &Control, now: Millis) -> Result<(), StorageError> {
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
        let generation = control.widen(local.generation);
        let (buckets, run) = self
            .host
            .window_by_bucket(&local_name, local.generation, window, slot_count, now)?;
        let excluded = control.excluded();
        let counts = HostCounts {
            buckets: buckets
                .into_iter()
                .filter(|(bucket, _)| !excluded.is_some_and(|excluded| excluded.holds(*bucket)))
                .collect(),
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
        let recovered = self.recovered(control, now);
        if let Some(listed) = &view.listed_hosts {
            // A list that lost this host (expired) gets it again next sync.
            control.set_known_hosts(listed, host);
            self.count_listed(service, control, listed.len(), view.hosts.len());
        }
        let Some(fleet_state) = self.restore_if_forgotten(service, control, view.state, now)? else {
            return Ok(());
        };
        self.follow(service, control, fleet_state)?;
        if recovered {
            // A run of failures the host counted alone is not the fleet's
            // (the window's are excluded): it starts again.
            self.host.forget_run(&local_name, fleet_state.generation)?;
        }
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
    pub(super) fn follow(&self, service: &[u8], control: &Control, fleet: CircuitState) -> Result<(), StorageError> {
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
            if let Some((window, _)) = control.geometry() {
                control.exclude_from(window, now);
            }
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
    /// fleet counts again; the process that switches it back says so, once,
    /// and is told so (`true`).
    fn recovered(&self, control: &Control, now: Millis) -> bool {
        let switched = control.swap(Word::Degraded, 1, 0);
        if switched {
            if let Some((window, _)) = control.geometry() {
                control.exclude_until(window, now);
            }
            control.set(Word::FailureStreak, 0);
            control.set(Word::NextSyncAt, now.max(0) as u64);
            self.notices.borrow_mut().push(Notice::StorageRecovered);
        }
        switched
    }

    /// Takes from `counts`, the host's window of `generation` at `now` by
    /// slot, what it counted in the buckets `excluded` (see [`Excluded`]);
    /// once the window holds none of them, the exclusion ends. Only for one
    /// window's time after the fleet store failed; summed once per bucket
    /// by a process, but at every call while the current bucket is one of
    /// them (it still counts).
    #[cold]
    pub(super) fn uncount_excluded(
        &self,
        circuit: &Circuit,
        control: &Control,
        excluded: Excluded,
        (generation, window, now): (u64, WindowGeometry, Millis),
        counts: &mut [u64],
    ) -> Result<(), StorageError> {
        let covering = window.buckets_covering(now);
        if excluded.ends_before(*covering.start()) {
            control.end_exclusion(excluded);
            return Ok(());
        }
        let now_bucket = *covering.end();
        let key = ExcludedKey {
            generation,
            now_bucket,
            window,
            slot_count: counts.len(),
            excluded,
        };
        let sums = match circuit.excluded_sums.get() {
            Some(kept) if kept.key == key => kept.sums,
            _ => {
                let (buckets, _) =
                    self.host
                        .window_by_bucket(&circuit.local_name, generation, window, counts.len(), now)?;
                let mut sums = [0; SLOTS];
                for (_, bucket_counts) in buckets.iter().filter(|(bucket, _)| excluded.holds(*bucket)) {
                    for (sum, count) in sums.iter_mut().zip(bucket_counts) {
                        *sum += count;
                    }
                }
                if !excluded.holds(now_bucket) {
                    circuit.excluded_sums.set(Some(ExcludedSums { key, sums }));
                }
                sums
            }
        };
        for (count, excluded_count) in counts.iter_mut().zip(sums) {
            *count = count.saturating_sub(excluded_count);
        }
        Ok(())
    }

    /// Runs `at_fleet` on the fleet store unless the host is degraded; a
    /// failure degrades it. `None`: decide on the host.
    pub(super) fn at_fleet<T>(
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
