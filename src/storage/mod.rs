//! Where circuits live. A storage makes the core's few operations atomic; it
//! never decides anything about a circuit.

pub mod backoff;
pub mod kv;
pub mod memcached;
pub mod memory;
pub mod open_until;
pub mod persistent;
pub mod redis;
pub mod shm;

use thiserror::Error;

use crate::core::counts::{Outcome, Tally};
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StorageError {
    #[error("{0}")]
    Unavailable(String),
    #[error("storage timed out after {0} ms")]
    Timeout(u64),
    #[error("{0}")]
    Full(String),
    #[error("{0}")]
    Userland(String),
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
    /// How long the state of the circuit must be kept from now on.
    pub state_ttl_ms: Millis,
    /// Whether runs of failures must be counted (a rule reads them); when
    /// not, a storage may skip that write.
    pub counts_runs: bool,
}

/// The atomic operations the core composes. Each takes the service name as
/// raw bytes: any name is valid.
pub trait Storage {
    /// A PHP-level call (`acquirePermission()`, `registerSuccess()`,
    /// `registerFailure()`, `getState()`) starts: a network storage bounds
    /// all the round trips of the call by one deadline, from here.
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

    /// Counts one outcome in the generation of the stored state, then returns
    /// that state and the tallies of its generation.
    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError>;

    /// Counts one call asking to pass in the half-open `state`; returns how
    /// many asked in that generation, this one included.
    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError>;

    /// How many counters a bucket can hold, when the storage has a limit:
    /// a configuration needing more is refused when the breaker is made.
    fn max_slots(&self) -> Option<usize> {
        None
    }

    /// Until when this process knows the circuit is open, for storages where
    /// asking costs a round trip. An open circuit ends only by time, so the
    /// answer stays exact until then.
    fn remembered_open_until(&self, _service: &[u8]) -> Option<Millis> {
        None
    }

    /// Remembers until when the circuit is open (`None`: forget it).
    fn remember_open_until(&self, _service: &[u8], _until: Option<Millis>) {}
}
