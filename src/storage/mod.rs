//! Where circuits live. A storage makes the core's few operations atomic; it
//! never decides anything about a circuit.
//!
//! `unsafe` is denied (crate-wide, in `Cargo.toml`) but in three fences,
//! each allowed by name below: the shared segment (`shm/segment.rs`), the
//! network's system calls (`net/sys.rs`) and the process-wide ones
//! (`sys.rs`).

pub mod available;
pub mod bulkhead;
pub mod codec;
mod error;
pub mod fleet;
pub mod kv;
pub mod memcached;
pub mod memory;
pub mod named;
pub mod net;
pub mod open_until;
pub mod redis;
pub mod shm;
#[allow(unsafe_code)]
mod sys;

use std::rc::Rc;

use crate::core::config::Config;
use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};
use crate::core::window::WindowGeometry;

pub use error::{StorageError, StorageErrorKind};

/// The largest count a breaker writes: a counter is incremented by one per
/// outcome, and 2^53 increments are more than any circuit gets. A larger
/// (or negative) value is another client's, repaired as one that holds no
/// number, so that sums of counts cannot overflow and no status shows them.
pub const MAX_COUNT: u64 = 1 << 53;

/// What a process remembers of a circuit it found open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RememberedOpen {
    /// When the open state ends.
    pub until: Millis,
    /// Until when the memory is trusted without asking the storage again:
    /// an operator's command may end the open state earlier.
    pub recheck_at: Millis,
}

/// A circuit found by a listing: its service and stored state.
pub type ListedCircuit = (Vec<u8>, CircuitState);

/// What a storage counts per circuit for metrics, since the circuit's
/// record was made: monotonic counters that only grow until the record is
/// forgotten (an idle circuit, a reused record) and start again from zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallCounters {
    pub calls_permitted: u64,
    pub calls_rejected: u64,
    pub successes: u64,
    pub failures: u64,
    /// Outcomes at least as slow as the shortest slow call duration of the
    /// breaker's rules: slow by at least one rule.
    pub slow_calls: u64,
    /// Transitions to open won by the rules (a forced open is not one).
    pub openings: u64,
}

/// A circuit found by a listing with its counters, when the storage keeps them.
pub type ListedCircuitCounters = (Vec<u8>, CircuitState, Option<CallCounters>);

/// What a storage tells the breaker beside the results of its operations:
/// a tier that goes on deciding while its store is down (`fleet/`) says
/// once when it switches, and once when it switches back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    StorageFailed(StorageError),
    StorageRecovered,
}

/// One host's window of a circuit, sent to the fleet store by a sync.
#[derive(Debug, Clone, Copy)]
pub struct HostWindow<'a> {
    /// The host's identity, drawn once per host segment.
    pub host: u64,
    /// The generation the window belongs to.
    pub generation: u64,
    /// The window, encoded by `fleet::blob`.
    pub blob: &'a [u8],
    /// How long the fleet store keeps the windows of this generation.
    pub ttl_ms: Millis,
    /// The hosts known from the previous sync: a store that cannot list
    /// them with the read (Memcached) reads their windows.
    pub known_hosts: &'a [u64],
}

/// What a sync brings back in the same round trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetView {
    pub state: CircuitState,
    /// Every host's window of the generation, this host's included.
    pub hosts: Vec<(u64, Vec<u8>)>,
    /// Every host the store knows of in the generation, when it keeps a
    /// list apart from the windows (Memcached).
    pub listed_hosts: Option<Vec<u64>>,
}

/// One outcome to count, with what is needed to read back its window.
#[derive(Debug, Clone, Copy)]
pub struct OutcomeRecord {
    pub outcome: Outcome,
    /// The counter it increments (outcome and duration band).
    pub slot: usize,
    /// How many counters each bucket holds.
    pub slot_count: usize,
    pub window: WindowGeometry,
    pub now: Millis,
    /// How long the state of the circuit must be kept from now on: enough
    /// for a state in any phase.
    pub state_ttl_ms: Millis,
    /// How long a closed state must be kept from now on, shorter: a storage
    /// that reads the phase as it counts may keep a closed circuit only this
    /// long (never an open or half-open one, which must outlive its end).
    pub closed_state_ttl_ms: Millis,
    /// Whether runs of failures must be counted (a rule reads them); when
    /// not, a storage may skip that write.
    pub counts_runs: bool,
    /// Whether the outcome is slow for at least one slow-call rule (the
    /// metrics' slow calls).
    pub slow: bool,
}

impl OutcomeRecord {
    /// The record of `outcome`, which took `duration_ms` when known, under `config`.
    pub fn new(config: &Config, outcome: Outcome, duration_ms: Option<Millis>, now: Millis) -> Self {
        let bands = &config.bands;
        let (slot, slow) = bands.slot_and_slowness(outcome, duration_ms);
        Self {
            outcome,
            slot,
            slot_count: bands.slot_count(),
            window: config.window,
            now,
            state_ttl_ms: config.longest_state_ttl_ms(),
            closed_state_ttl_ms: config.state_ttl_ms(Phase::Closed),
            counts_runs: config.counts_runs(),
            slow,
        }
    }

    /// How long a state in `phase` must be kept from now on.
    pub fn state_ttl_ms_in(&self, phase: Phase) -> Millis {
        match phase {
            Phase::Closed => self.closed_state_ttl_ms,
            Phase::Open | Phase::HalfOpen => self.state_ttl_ms,
        }
    }
}

/// What a breaker is made over: it asks once, when it is made, for the
/// circuit of its service, and makes every call on that.
pub trait Storage {
    /// The circuit of `service` (any bytes are a valid name), as one
    /// breaker keeps it for all its calls.
    fn circuit(self: Rc<Self>, service: &[u8]) -> KeptCircuit;

    /// What, beside a service name, tells this storage's circuits from
    /// another's of the same name (its prefix, its server): the bulkhead and
    /// throttling's memory of a circuit are keyed by it and the name.
    fn scope(&self) -> Vec<u8> {
        Vec::new()
    }

    /// How many counters a bucket can hold, when the storage has a limit:
    /// a configuration needing more is refused when the breaker is made.
    fn max_slots(&self) -> Option<usize> {
        None
    }

    /// Every circuit of this storage object whose service starts with
    /// `prefix`, with its stored state, in no particular order.
    fn list_circuits(&self, _prefix: &[u8]) -> Result<Vec<ListedCircuit>, StorageError> {
        Err(StorageError::Unsupported(
            "this storage cannot list its circuits".into(),
        ))
    }

    /// Like [`Storage::list_circuits`], with each circuit's counters when
    /// the storage keeps them.
    fn list_circuits_with_counters(&self, prefix: &[u8]) -> Result<Vec<ListedCircuitCounters>, StorageError> {
        Ok(self
            .list_circuits(prefix)?
            .into_iter()
            .map(|(service, state)| (service, state, None))
            .collect())
    }
}

/// A circuit as a breaker keeps it: a shared-memory one in the breaker
/// itself, so that a breaker made in every request (the seed's usage, on
/// the default storage) allocates nothing for it, and a call on one of
/// thousands of breakers misses no line of a box of its own; any other
/// behind a box.
pub enum KeptCircuit {
    SharedMemory(shm::ShmCircuit),
    Boxed(Box<dyn Circuit>),
}

impl KeptCircuit {
    /// Whether it is a circuit in shared memory, whose operations run no
    /// PHP code and tell nothing beside their results.
    #[inline]
    pub fn is_shared_memory(&self) -> bool {
        matches!(self, KeptCircuit::SharedMemory(_))
    }

    pub fn boxed(circuit: impl Circuit + 'static) -> Self {
        Self::Boxed(Box::new(circuit))
    }
}

/// The operations of [`Circuit`], each called on the kept circuit's own
/// type: on shared memory, the default storage, a call of the breaker
/// makes no call through a vtable, and the compiler sees through the
/// operations it does nothing in (notices, a remembered open state).
macro_rules! on_kept {
    ($kept:expr, $circuit:ident => $call:expr) => {
        match $kept {
            KeptCircuit::SharedMemory($circuit) => $call,
            KeptCircuit::Boxed($circuit) => $call,
        }
    };
}

impl KeptCircuit {
    #[inline]
    pub fn begin_call(&self, now: Option<Millis>) {
        on_kept!(self, circuit => circuit.begin_call(now))
    }

    #[inline]
    pub fn load_state(&self) -> Result<CircuitState, StorageError> {
        on_kept!(self, circuit => circuit.load_state())
    }

    #[inline]
    pub fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        on_kept!(self, circuit => circuit.compare_and_set_state(expected, new, ttl_ms))
    }

    #[inline]
    pub fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        on_kept!(self, circuit => circuit.record_outcome(record))
    }

    #[inline]
    pub fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        on_kept!(self, circuit => circuit.admit_half_open(state, ttl_ms))
    }

    #[inline]
    pub fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError> {
        on_kept!(self, circuit => circuit.read_window(generation, window, slot_count, now))
    }

    #[inline]
    pub fn count_permission(&self, permitted: bool, config: &Config) {
        on_kept!(self, circuit => circuit.count_permission(permitted, config))
    }

    /// Counts a permitted call when the stored state passes `permits`, as
    /// shared memory tells at once from the record it finds; false when it
    /// cannot (any other storage, no record yet, a failure) or the state
    /// does not pass, and nothing is counted then.
    #[inline]
    pub fn count_permission_when(&self, permits: impl FnOnce(CircuitState) -> bool) -> bool {
        match self {
            KeptCircuit::SharedMemory(circuit) => circuit.count_permission_when(permits),
            KeptCircuit::Boxed(_) => false,
        }
    }

    #[inline]
    pub fn counters(&self) -> Result<Option<CallCounters>, StorageError> {
        on_kept!(self, circuit => circuit.counters())
    }

    #[inline]
    pub fn remembered_open_until(&self) -> Option<RememberedOpen> {
        on_kept!(self, circuit => circuit.remembered_open_until())
    }

    #[inline]
    pub fn remember_open_until(&self, until: Option<RememberedOpen>) {
        on_kept!(self, circuit => circuit.remember_open_until(until))
    }

    #[inline]
    pub fn take_notices(&self, notice: &mut dyn FnMut(Notice)) {
        on_kept!(self, circuit => circuit.take_notices(notice))
    }
}

impl std::ops::Deref for KeptCircuit {
    type Target = dyn Circuit;
    #[inline]
    fn deref(&self) -> &Self::Target {
        match self {
            Self::SharedMemory(circuit) => circuit,
            Self::Boxed(circuit) => &**circuit,
        }
    }
}

/// One circuit of a storage: the atomic operations the core composes
/// (`breaker.rs`), none naming the service, which the circuit knows.
pub trait Circuit {
    /// The service, as raw bytes.
    fn service(&self) -> &[u8];

    /// A call of the breaker starts (a permission, an outcome, a status, a
    /// command): a network storage bounds all its round trips by one
    /// deadline from here; a circuit that keeps what it found of its record
    /// for one call forgets it. `now` is the instant of the call when the
    /// breaker read it from this storage's own clock, so the call reads it once.
    fn begin_call(&self, now: Option<Millis>);

    /// The stored state, or [`CircuitState::INITIAL`] for an unknown circuit.
    fn load_state(&self) -> Result<CircuitState, StorageError>;

    /// Stores `new` if the stored state is still `expected`; tells whether it did.
    fn compare_and_set_state(
        &self,
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError>;

    /// Counts one outcome in the generation of the stored state, then returns
    /// that state and the tallies of its generation (whose window may be a
    /// lower bound, see [`Tally::window`]: `read_window` is exact).
    fn record_outcome(&self, record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError>;

    /// Counts one call asking to pass in the half-open `state`; returns how
    /// many asked in that generation, this one included.
    fn admit_half_open(&self, state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError>;

    /// The window of `generation` at `now` (counter values summed over its
    /// buckets, `slot_count` of them), counting nothing: the status view.
    fn read_window(
        &self,
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError>;

    /// Counts a permission decided for a call (the metrics' permitted and
    /// rejected calls), on storages where that costs no round trip.
    fn count_permission(&self, permitted: bool, config: &Config);

    /// The circuit's counters, when the storage keeps them (`None`
    /// otherwise; all zero for a circuit it does not hold).
    fn counters(&self) -> Result<Option<CallCounters>, StorageError>;

    /// Until when this process knows the circuit is open, for storages where
    /// asking costs a round trip (see [`open_until::RemembersOpen`]).
    fn remembered_open_until(&self) -> Option<RememberedOpen> {
        None
    }

    /// Remembers until when the circuit is open (`None`: forget it).
    fn remember_open_until(&self, _until: Option<RememberedOpen>) {}

    /// Hands over what the storage has to tell since the last call (see
    /// [`Notice`]); the breaker drains it after every operation.
    fn take_notices(&self, notice: &mut dyn FnMut(Notice));
}

/// A storage that keeps its circuits by name: the operations of
/// [`Circuit`], each taking the service as raw bytes (any name is valid).
/// [`named::Named`] makes one of its circuits of them; a host tier
/// (`fleet/`) uses one as its fleet store.
pub trait CircuitStore: Storage {
    /// See [`Circuit::begin_call`]: a network storage's deadline starts.
    fn begin_call(&self) {}

    /// The stored state, or [`CircuitState::INITIAL`] for an unknown circuit.
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError>;

    /// Stores `new` if the stored state is still `expected`; tells whether it did.
    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError>;

    /// See [`Circuit::record_outcome`].
    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError>;

    /// See [`Circuit::admit_half_open`].
    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError>;

    /// See [`Circuit::read_window`].
    fn read_window(
        &self,
        service: &[u8],
        generation: u64,
        window: WindowGeometry,
        slot_count: usize,
        now: Millis,
    ) -> Result<Vec<u64>, StorageError>;

    /// See [`Circuit::count_permission`]. A circuit this makes is kept as
    /// long as a closed one under `config`.
    fn count_permission(&self, _service: &[u8], _permitted: bool, _config: &Config) {}

    /// See [`Circuit::counters`].
    fn counters(&self, _service: &[u8]) -> Result<Option<CallCounters>, StorageError> {
        Ok(None)
    }

    /// Stores one host's window of a circuit and reads back, in the same
    /// round trip, the state and every host's window of that generation: a
    /// fleet store behind a host tier (`fleet/`).
    fn sync_host(&self, _service: &[u8], _window: &HostWindow<'_>) -> Result<FleetView, StorageError> {
        Err(StorageError::Unsupported(
            "this storage cannot hold the windows of a fleet's hosts".into(),
        ))
    }
}
