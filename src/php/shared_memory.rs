//! The shared-memory segment of the process (made at module startup, so an
//! FPM master hands it to every worker it forks) and the storage classes
//! over it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::prelude::*;
use ext_php_rs::zend::{ExecutorGlobals, IniEntryDef, IniEntryDefs};

use super::classes::storage_interface;
use super::reentry::refuse_reconstruction;
use crate::core::counts::Tally;
use crate::core::duration::Millis;
use crate::core::machine::CircuitState;
use crate::storage::shm::{DEFAULT_MAX_SHARE, Segment, SharedMemoryStorage as ShmStorage, parse_size};
use crate::storage::{OutcomeRecord, Storage, StorageError};

pub const SIZE_SETTING: &str = "circuit_breaker.shm_size";
const DEFAULT_SIZE: &str = "32M";
const SHARE_SETTING: &str = "circuit_breaker.shm_max_share";

static INI_ENTRIES: IniEntryDefs<3> = IniEntryDefs::new([
    IniEntryDef::new(c"circuit_breaker.shm_size", c"32M", IniEntryPermission::System),
    IniEntryDef::new(c"circuit_breaker.shm_max_share", c"0.5", IniEntryPermission::System),
    IniEntryDef::end(),
]);

/// The segment of this process, or null when none could be made.
static SEGMENT: AtomicPtr<Segment> = AtomicPtr::new(std::ptr::null_mut());
/// Why there is no segment, for the errors of the storages.
static SEGMENT_ERROR: Mutex<String> = Mutex::new(String::new());

/// Registers the ini settings and maps the segment.
pub fn startup(module_number: i32) {
    IniEntryDef::register(INI_ENTRIES.as_slice(), module_number);
    let ini = ExecutorGlobals::get().ini_values();
    let setting = |name: &str| ini.get(name).cloned().flatten();
    let configured = setting(SIZE_SETTING).unwrap_or_else(|| DEFAULT_SIZE.to_owned());
    let share = setting(SHARE_SETTING);
    let result = parse_size(&configured)
        .ok_or_else(|| format!("{SIZE_SETTING} = '{configured}' is not a size (such as 32M)"))
        .and_then(|size| match &share {
            None => Ok((size, DEFAULT_MAX_SHARE)),
            Some(share) => share
                .trim()
                .parse::<f64>()
                .map(|parsed| (size, parsed))
                .map_err(|_| format!("{SHARE_SETTING} = '{share}' is not a number (such as 0.5)")),
        })
        .and_then(|(size, share)| Segment::create(size, share).map_err(|error| error.to_string()));
    match result {
        Ok(segment) => {
            let previous = SEGMENT.swap(Box::into_raw(Box::new(segment)), Ordering::AcqRel);
            drop_segment(previous);
        }
        Err(error) => *SEGMENT_ERROR.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = error,
    }
}

/// Unmaps the segment at module shutdown.
pub fn shutdown() {
    drop_segment(SEGMENT.swap(std::ptr::null_mut(), Ordering::AcqRel));
}

fn drop_segment(segment: *mut Segment) {
    if !segment.is_null() {
        // SAFETY: the pointer came from `Box::into_raw` in `startup` and was
        // swapped out of SEGMENT, so nothing else will free it; no storage
        // outlives module shutdown.
        drop(unsafe { Box::from_raw(segment) });
    }
}

pub fn segment() -> Result<&'static Segment, String> {
    // SAFETY: a non-null pointer is a live segment until module shutdown,
    // after which no PHP code runs.
    unsafe { SEGMENT.load(Ordering::Acquire).as_ref() }.ok_or_else(|| {
        let error = SEGMENT_ERROR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        format!("no shared memory segment: {error}")
    })
}

/// Rows for phpinfo().
pub fn info_rows() -> Vec<(&'static str, String)> {
    match segment() {
        Ok(segment) => {
            let header = segment.header();
            vec![
                ("shared memory size", format!("{} bytes", segment.size())),
                (
                    "circuits in use",
                    header.records_in_use.load(Ordering::Relaxed).to_string(),
                ),
                ("circuit capacity", segment.capacity().to_string()),
                (
                    "idle circuits reused",
                    header.records_reused.load(Ordering::Relaxed).to_string(),
                ),
                (
                    "failures to allocate",
                    header.allocation_failures.load(Ordering::Relaxed).to_string(),
                ),
                (
                    "circuits per prefix at most",
                    format!(
                        "{} ({SHARE_SETTING} = {})",
                        segment.max_per_prefix(),
                        segment.max_share()
                    ),
                ),
                (
                    "claims refused by the share",
                    header.share_refusals.load(Ordering::Relaxed).to_string(),
                ),
            ]
        }
        Err(error) => vec![("shared memory", error)],
    }
}

/// The storage object of a PHP `SharedMemoryStorage`: the segment, or why
/// there is none (every call then fails, and the breaker fails open).
pub enum SharedStorage {
    Ready(ShmStorage),
    Unavailable(String),
}

impl SharedStorage {
    /// The storage over the segment, when there is one.
    pub fn ready(&self) -> Option<&ShmStorage> {
        match self {
            Self::Ready(storage) => Some(storage),
            Self::Unavailable(_) => None,
        }
    }

    fn usable(&self) -> Result<&ShmStorage, StorageError> {
        match self {
            Self::Ready(storage) => Ok(storage),
            Self::Unavailable(error) => Err(StorageError::Unavailable(error.clone())),
        }
    }
}

impl Storage for SharedStorage {
    fn load_state(&self, service: &[u8]) -> Result<CircuitState, StorageError> {
        self.usable()?.load_state(service)
    }

    fn compare_and_set_state(
        &self,
        service: &[u8],
        expected: CircuitState,
        new: CircuitState,
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        self.usable()?.compare_and_set_state(service, expected, new, ttl_ms)
    }

    fn record_outcome(&self, service: &[u8], record: &OutcomeRecord) -> Result<(CircuitState, Tally), StorageError> {
        self.usable()?.record_outcome(service, record)
    }

    fn admit_half_open(&self, service: &[u8], state: CircuitState, ttl_ms: Millis) -> Result<u64, StorageError> {
        self.usable()?.admit_half_open(service, state, ttl_ms)
    }

    fn max_slots(&self) -> Option<usize> {
        Some(crate::storage::shm::SLOTS)
    }
}

fn shared_storage(prefix: String) -> SharedStorage {
    match segment() {
        Ok(segment) => SharedStorage::Ready(ShmStorage::new(
            segment,
            prefix.into_bytes(),
            Box::new(super::clock::system_now_ms),
        )),
        Err(error) => SharedStorage::Unavailable(error),
    }
}

/// Circuits shared by every process of one PHP master: the workers of a
/// PHP-FPM pool, or a CLI process and its forks.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\SharedMemoryStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct SharedMemoryStorage {
    pub storage: SharedStorage,
}

#[php_impl]
impl SharedMemoryStorage {
    /// A second `__construct()` is refused: breakers over this storage
    /// remember where their circuits lie under its prefix.
    #[php(defaults(prefix = String::new()))]
    pub fn __construct(prefix: String) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            storage: shared_storage(prefix),
        })
    }
}

/// The name the library gives the storage of one PHP master.
#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\ApcuStorage")]
#[php(extends(SharedMemoryStorage))]
pub struct ApcuStorage {
    pub storage: SharedStorage,
}

#[php_impl]
impl ApcuStorage {
    /// A second `__construct()` is refused: breakers over this storage
    /// remember where their circuits lie under its prefix.
    #[php(defaults(prefix = String::new()))]
    pub fn __construct(prefix: String) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            storage: shared_storage(prefix),
        })
    }
}
