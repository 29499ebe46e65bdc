//! The shared-memory segment of the process (made at module startup, so an
//! FPM master hands it to every worker it forks; or, named by
//! `circuit_breaker.shm_name`, attached by every process of the user) and
//! the storage classes over it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{ExecutorGlobals, IniEntryDef, IniEntryDefs};

use crate::php::engine::args::{Text, TextRef, object_arg};
use crate::php::engine::classes::storage_interface;
use crate::php::engine::handlers::{Arguments, FastConstruct, Refused};
use crate::php::engine::module_global::ModuleGlobal;
use crate::php::engine::reentry::refuse_reconstruction;
use crate::php::engine::startup_warning;
use crate::php::status::list_circuits;
use crate::storage::available::Available;
use crate::storage::shm::{
    CIRCUIT_BYTES, DEFAULT_MAX_SHARE, Segment, SharedMemoryStorage as ShmStorage, idle_records, parse_size,
};

pub const SIZE_SETTING: &str = "circuit_breaker.shm_size";
const DEFAULT_SIZE: &str = "32M";
const SHARE_SETTING: &str = "circuit_breaker.shm_max_share";
const NAME_SETTING: &str = "circuit_breaker.shm_name";

static INI_ENTRIES: IniEntryDefs<4> = IniEntryDefs::new([
    IniEntryDef::new(c"circuit_breaker.shm_size", c"32M", IniEntryPermission::System),
    IniEntryDef::new(c"circuit_breaker.shm_max_share", c"0.5", IniEntryPermission::System),
    IniEntryDef::new(c"circuit_breaker.shm_name", c"", IniEntryPermission::System),
    IniEntryDef::end(),
]);

/// The segment of this process, or null when none could be made.
static SEGMENT: ModuleGlobal<Segment> = ModuleGlobal::new();
/// Why there is no segment, for the errors of the storages.
static SEGMENT_ERROR: Mutex<String> = Mutex::new(String::new());

/// The sizes `circuit_breaker.shm_size` may take: below, a segment holds
/// at most a circuit or two; above, the value is surely a typo (4G hold
/// hundreds of thousands of circuits).
const SIZE_RANGE: std::ops::RangeInclusive<usize> = (16 << 10)..=(4 << 30);
const SIZE_RANGE_TEXT: &str = "from 16K to 4G";

/// The segment size configured, when it is a size in `SIZE_RANGE`.
fn configured_size(configured: Option<&str>) -> Result<usize, String> {
    let configured = configured.unwrap_or(DEFAULT_SIZE);
    parse_size(configured)
        .filter(|size| SIZE_RANGE.contains(size))
        .ok_or_else(|| {
            format!("{SIZE_SETTING} = '{configured}' is not a size {SIZE_RANGE_TEXT} (such as 32M, 32MB or 33554432)")
        })
}

/// The share configured, when it is a number above 0 and at most 1.
fn configured_share(configured: Option<&str>) -> Result<f64, String> {
    let Some(configured) = configured else {
        return Ok(DEFAULT_MAX_SHARE);
    };
    configured
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|share| *share > 0.0 && *share <= 1.0)
        .ok_or_else(|| {
            format!(
                "{SHARE_SETTING} = '{configured}' is not a share of the records above 0 and at most 1 (such as 0.5)"
            )
        })
}

/// Registers the ini settings and maps the segment. An invalid size or
/// share is warned about at startup, once, and its default is used: a typo
/// must not leave every breaker of the pool without protection (APCu, given
/// the same typo, warns and keeps working). A segment that cannot be made
/// leaves the process without one: warned about at startup, and every call
/// of a shared-memory storage then fails open with a `StorageFailed` event
/// that says why.
pub fn startup(module_number: i32) {
    IniEntryDef::register(INI_ENTRIES.as_slice(), module_number);
    let ini = ExecutorGlobals::get().ini_values();
    let setting = |name: &str| ini.get(name).cloned().flatten();
    let name = setting(NAME_SETTING).filter(|name| !name.is_empty());
    let size = configured_size(setting(SIZE_SETTING).as_deref()).unwrap_or_else(|error| {
        startup_warning(&format!("{error}: the default size {DEFAULT_SIZE} is used"));
        parse_size(DEFAULT_SIZE).unwrap_or(32 << 20)
    });
    let share = configured_share(setting(SHARE_SETTING).as_deref()).unwrap_or_else(|error| {
        startup_warning(&format!("{error}: the default share {DEFAULT_MAX_SHARE} is used"));
        DEFAULT_MAX_SHARE
    });
    let anonymous = || Segment::create(size, share).map_err(|error| format!("{SIZE_SETTING} = {size} bytes: {error}"));
    let result = match &name {
        // Anyone may take the name first (`touch /dev/shm/<name>`):
        // circuits of this process and its children still protect.
        Some(name) => match Segment::open_named(name, size, share) {
            Err(error) if error.is_squatted() => {
                startup_warning(&format!(
                    "{error}: an anonymous segment is used instead, shared only by this process and \
                     the processes it forks (the name is first come, first served: remove the object \
                     and restart, or use another {NAME_SETTING})"
                ));
                anonymous()
            }
            result => result.map_err(|error| error.to_string()),
        },
        None => anonymous(),
    };
    match result {
        Ok(segment) => {
            SEGMENT.set(segment);
        }
        Err(error) => {
            startup_warning(&format!(
                "{error}: the shared memory storage is disabled (its calls fail open)"
            ));
            *SEGMENT_ERROR.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = error;
        }
    }
}

/// Whether `circuit_breaker.shm_name` names the segment of this process
/// (shared with every process of the user that names it).
pub fn is_named() -> bool {
    segment().is_ok_and(|segment| segment.name().is_some())
}

/// At each request start: a named segment's object still holds the whole
/// mapping and its header (one `fstat`), or this process stops using it
/// before any access could fault (see `Segment::verify`).
pub fn request_startup() {
    if let Ok(segment) = segment() {
        segment.verify();
    }
}

/// Unmaps the segment at module shutdown.
pub fn shutdown() {
    INTERNED.with(|interned| interned.borrow_mut().clear());
    SEGMENT.clear();
}

pub fn segment() -> Result<&'static Segment, String> {
    SEGMENT.get().ok_or_else(|| {
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
                ("shared memory name", segment_name_row(segment)),
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

fn segment_name_row(segment: &Segment) -> String {
    match segment.name() {
        Some(name) => format!("{name} (/dev/shm/{name}, shared by every process of its user that names it)"),
        None => format!("none ({NAME_SETTING} is empty): anonymous, shared by this process and its children"),
    }
}

/// The storage object of a PHP `SharedMemoryStorage`: the segment, or why
/// there is none (every call then fails, and the breaker fails open).
pub type SharedStorage = Available<ShmStorage>;

///
/// The storages of one prefix are one in a process (up to
/// [`INTERNED_PREFIXES`] prefixes): a storage made in every request then
/// finds the circuits its breakers knew, where the last request left them.
pub fn shared_storage(prefix: &[u8]) -> SharedStorage {
    let segment = match segment() {
        Ok(segment) => segment,
        Err(error) => return SharedStorage::unavailable(error),
    };
    INTERNED.with(|interned| {
        let mut interned = interned.borrow_mut();
        if let Some((_, storage)) = interned.iter().find(|(interned, _)| interned.as_slice() == prefix) {
            return SharedStorage::Ready(Rc::clone(storage));
        }
        let storage = Rc::new(ShmStorage::new(
            segment,
            prefix.to_vec(),
            Box::new(crate::php::clock::system_now_ms),
        ));
        if interned.len() < INTERNED_PREFIXES {
            interned.push((prefix.to_vec(), Rc::clone(&storage)));
        }
        SharedStorage::Ready(storage)
    })
}

/// How many prefixes a process keeps one storage of.
const INTERNED_PREFIXES: usize = 64;

thread_local! {
    /// The storage of each prefix, made once per module start: its segment
    /// goes at module shutdown.
    static INTERNED: RefCell<Vec<(Vec<u8>, Rc<ShmStorage>)>> = const { RefCell::new(Vec::new()) };
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
    /// A second `__construct()` is refused (by `handlers::construct`):
    /// breakers over this storage remember where their circuits lie under
    /// its prefix.
    #[php(defaults(prefix = String::new()))]
    pub fn __construct(prefix: TextRef<'_>) -> Result<Self, PhpException> {
        Ok(Self {
            storage: shared_storage(&prefix.0),
        })
    }

    /// The status of every circuit of this prefix in the segment whose
    /// service starts with `$prefix`: one pass over the table, no lock.
    /// Window counts are left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        list_circuits(self.storage.as_storage(), &prefix.0, crate::php::clock::system_now_ms())
    }

    /// The segment of this PHP master, as `apcu_sma_info()` tells APCu's:
    /// sizes in bytes, records (one per circuit), and the claims of a
    /// record that failed. Without a segment, `available` is false and
    /// `error` says why.
    pub fn info() -> Vec<(&'static str, Zval)> {
        statistics()
    }
}

fn value(value: impl ext_php_rs::convert::IntoZval) -> Zval {
    value.into_zval(false).unwrap_or_default()
}

/// The statistics of `SharedMemoryStorage::info()`, in the order shown.
fn statistics() -> Vec<(&'static str, Zval)> {
    let segment = match segment() {
        Ok(segment) => segment,
        Err(error) => return vec![("available", value(false)), ("error", value(error))],
    };
    let header = segment.header();
    let used = header.records_in_use.load(Ordering::Relaxed);
    let capacity = segment.capacity() as u64;
    let now = crate::php::clock::system_now_ms().max(0) as u64;
    let count = |counter: &std::sync::atomic::AtomicU64| value(counter.load(Ordering::Relaxed) as i64);
    vec![
        ("available", value(true)),
        ("segment_size", value(segment.size() as i64)),
        ("record_size", value(CIRCUIT_BYTES as i64)),
        ("records", value(capacity as i64)),
        ("records_used", value(used as i64)),
        ("records_free", value(capacity.saturating_sub(used) as i64)),
        ("records_idle", value(idle_records(segment, now) as i64)),
        ("max_share", value(segment.max_share())),
        ("max_records_per_prefix", value(segment.max_per_prefix() as i64)),
        ("idle_records_reused", count(&header.records_reused)),
        ("claims_failed_full", count(&header.allocation_failures)),
        ("claims_refused_by_share", count(&header.share_refusals)),
    ]
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
    pub fn __construct(prefix: TextRef<'_>) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        Ok(Self {
            storage: shared_storage(&prefix.0),
        })
    }
}

impl FastConstruct for SharedMemoryStorage {
    const REQUIRED: u32 = 0;
    const MAX: u32 = 1;
    fn construct(arguments: &Arguments<'_>, made: &mut Option<Self>) -> Result<(), Refused> {
        *made = Some(
            Self::__construct(arguments.defaulted::<TextRef<'_>>(0, "prefix", || TextRef(Vec::new().into()))?)
                .map_err(Some)?,
        );
        Ok(())
    }
}

object_arg!(
    /// The host segment of a `FleetStorage`: a `SharedMemoryStorage` (or
    /// its `ApcuStorage` alias).
    SharedMemoryArg,
    "Zeusi\\CircuitBreaker\\Storage\\SharedMemoryStorage",
    |object| {
        use ext_php_rs::class::RegisteredClass;
        object.instance_of(SharedMemoryStorage::get_metadata().ce())
    }
);
