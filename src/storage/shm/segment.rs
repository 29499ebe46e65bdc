//! The shared segment: an anonymous `MAP_SHARED` mapping made before the
//! PHP-FPM master forks its workers, so that they all see it; or, when
//! `circuit_breaker.shm_name` names it, a POSIX shared-memory object that
//! any process of the same user attaches to by name.
//!
//! ```text
//! +--------+------------+-------------+----------------+------------------+----------------+
//! | Header | Record     | PrefixUsage | Bucket of ring | Successes        | Metrics of     |
//! |        | 0..N       | 0..N        | slot s, 0..N,  | of ring slot s,  | stripe t, 0..N,|
//! |        |            |             | for each s     | stripe t, 0..N,  | for each t     |
//! |        |            |             |                | for each s, t    |                |
//! +--------+------------+-------------+----------------+------------------+----------------+
//! ```
//!
//! Each record may belong to a different prefix, so N prefix entries are
//! always enough. A circuit's counters lie outside its record, slot by
//! slot of the ring: at any instant the calls of every circuit count in
//! the same ring slot, so the buckets they touch lie side by side, one or
//! two cache lines each, and a process calling thousands of circuits keeps
//! them in its caches (and their pages in its TLB) rather than touching a
//! line on another page of a 6 KiB record per call. Metrics are kept in
//! [`METRIC_STRIPES`] copies, and a process counts in its own: the
//! processes calling one circuit do not write the same line for them. So
//! are the successes of each bucket, the one counter a healthy call writes
//! ([`SUCCESS_STRIPES`] copies): the other counters of a bucket are then
//! only read while the service answers, and stay in the caches of every
//! core calling it.
//!
//! Everything inside is an atomic word or the insert lock: no pointer is
//! stored, a record is found by its index. This module holds every `unsafe`
//! of the shared-memory storage.
//!
//! A named segment outlives the processes that use it, so a process of
//! another build or another `circuit_breaker.shm_size` may find it: the
//! header starts with words that say what made it (magic, layout version,
//! a fingerprint of the layout, size, record size, capacity), and a process
//! refuses a segment whose words differ from its own. Attaching happens
//! under an `flock` of the object, which the kernel releases when its holder
//! dies: a segment whose magic is still zero under the lock was left by a
//! creator that died before publishing it, and is initialised again.
//!
//! A named object can also be shortened while processes map it (`truncate`,
//! `cp` over it): touching a page past its new end raises SIGBUS. A
//! process-wide SIGBUS handler (`guard`) catches the faults inside a named
//! mapping, puts private zeroed memory in its place so that the faulting
//! access completes, and marks the segment broken: from then on every
//! operation of the storage fails open. Each request start also compares
//! the object's size (one `fstat` of the descriptor the segment keeps) and
//! the header's first words with the mapping's, so that a process finds a
//! shortened or overwritten object before touching it.

use std::cell::UnsafeCell;
use std::mem::{MaybeUninit, size_of};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::core::window::MAX_RING;

/// Counters per bucket: two outcomes times up to six duration bands, that is
/// up to four distinct slow call durations.
pub const SLOTS: usize = 12;

const MAGIC: u64 = u64::from_le_bytes(*b"cbreaker");

/// Bump when the meaning of a stored word changes while the sizes and
/// offsets stay (the state word's encoding, how a name picks its places):
/// a named segment made by the other meaning is then refused, not misread.
/// 2: counters bucket-major (`[[_; SLOTS]; MAX_RING]`), the same size as
/// the slot-major ring of 1.
/// 3: bucket-major counters and the metrics line after the name, the
/// layout of neither 2 nor of the metrics build that kept 1.
/// 4: a tier's records (`fleet/`) are a kind of their own: the top bit of
/// the length word of their stored name, hashed, and of `name_lengths`.
/// (The words of a tier's control record, `TierWord`, are hashed into
/// `layout_id` from their declaration: changing them needs no new version.)
/// 5: counters and metrics out of the records, in areas by ring slot and
/// by stripe; a tier's control words are the counters' words taken in the
/// same order (bucket by bucket), now in the ring slots' areas.
/// 6: the successes of a bucket's first slot counted in stripes of their
/// own, out of the bucket, whose words are one fewer.
pub const LAYOUT_VERSION: u64 = 6;

/// The copies of each circuit's metrics: a process counts in one of them
/// (drawn in turn, [`Segment::own_stripe`]), a reader sums them all.
/// Eight keeps the line of two to eight processes calling one circuit
/// their own, for 384 bytes a circuit; on more cores, processes share a
/// stripe by eight or more, each stripe still written by a fraction of
/// them.
pub const METRIC_STRIPES: usize = 8;

/// The copies of each bucket's successes (of `core::counts::SUCCESS_SLOT`):
/// a process counts in stripe `own_stripe() % SUCCESS_STRIPES`, a reader
/// sums them. Four, not the metrics' eight: they are 8 bytes a ring slot
/// each, 1 952 bytes a circuit less the 488 of the bucket's word they
/// replace (a circuit stays within 8 KiB); two to four processes calling
/// one circuit write lines of their own, more share a line by a quarter.
pub const SUCCESS_STRIPES: usize = 4;

const _: () = assert!(
    METRIC_STRIPES.is_multiple_of(SUCCESS_STRIPES),
    "stripes drawn in turn stay even"
);

/// How many hosts a tier's control record lists (`TierWord::KnownHosts`):
/// part of the layout, as the words are.
pub const TIER_KNOWN_HOSTS: usize = 256;

/// Declares the words of a tier's control record and the list of their
/// names and places that `layout_id` hashes, from one list.
macro_rules! tier_words {
    ($($(#[$doc:meta])* $word:ident = $place:literal,)*) => {
        /// The meaning of the plain words of a tier's control record (the
        /// `F` record of `fleet/`, whose counters are these words): declared
        /// here, with the rest of the layout, and hashed into `layout_id`, so
        /// that a build whose words differ refuses a named segment rather
        /// than misreads it.
        #[derive(Clone, Copy)]
        pub enum TierWord {
            $($(#[$doc])* $word = $place,)*
        }

        const TIER_WORDS: &[(&str, u64)] = &[$((stringify!($word), $place),)*];
    };
}

tier_words! {
    /// When the next sync is due (ms); the election is a compare-and-set of it.
    NextSyncAt = 0,
    /// The host's identity (never 0), drawn once by compare-and-set from 0.
    HostId = 1,
    /// 1 while the fleet store is failing: the host decides alone.
    Degraded = 2,
    /// When the next attempt at the fleet store is due while degraded.
    RetryAt = 3,
    /// How many attempts failed in a row (the backoff's exponent).
    FailureStreak = 4,
    /// The buckets, plus one, whose counts are never sent: from the first
    /// bucket of the last failure (0: none) ...
    ExcludedFrom = 5,
    /// ... to the bucket of the recovery, plus one (0: still degraded).
    ExcludedUntil = 6,
    /// The generation (masked, plus one) the other hosts' totals belong to;
    /// 0 when they are unknown, or count nothing.
    OthersGeneration = 7,
    /// The others' longest run of failures at the last sync.
    OthersRun = 8,
    /// The window (ms) and slot count of the breakers' configuration, seen
    /// with their outcomes: a sync made by `load_state` sends that window.
    WindowMs = 9,
    SlotCount = 10,
    /// The fleet's generation, whole: the host's state word keeps 14 bits.
    FleetGeneration = 11,
    /// How many hosts are in `KnownHosts`.
    KnownHostCount = 12,
    /// 1 while the store lists more hosts than `TIER_KNOWN_HOSTS`: said once.
    TooManyHosts = 13,
    /// The buckets of the outages before the last, while the window still
    /// holds some of them (`ExcludedFrom`, `ExcludedUntil` of an earlier
    /// failure; 0: none).
    EarlierExcludedFrom = 14,
    EarlierExcludedUntil = 15,
    /// The other hosts' totals by slot, `SLOTS` words.
    Others = 16,
    /// The hosts the store listed at the last sync, `TIER_KNOWN_HOSTS` words.
    KnownHosts = 64,
}

const _: () = assert!(
    TierWord::Others as usize + SLOTS <= TierWord::KnownHosts as usize
        && TierWord::KnownHosts as usize + TIER_KNOWN_HOSTS <= BUCKET_WORDS * MAX_RING,
    "a tier's control words fit in a record's counters"
);

/// The longest `circuit_breaker.shm_name`: glibc refuses a name that, with
/// its terminating NUL, reaches `NAME_MAX` (255).
pub const MAX_NAME_LENGTH: usize = 253;

/// The setting that names the segment, for the messages.
const NAME_SETTING: &str = "circuit_breaker.shm_name";

/// How long a process waits for another one initialising a named segment.
const ATTACH_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The words of a bucket: a counter for each slot after the first, whose
/// successes count in stripes of their own ([`SUCCESS_STRIPES`]).
pub const BUCKET_WORDS: usize = SLOTS - 1;

/// The counters of one bucket of one circuit, by slot from the second (see
/// `shm::Counted`).
pub type Bucket = [AtomicU64; BUCKET_WORDS];

/// One circuit. 64-byte aligned so that two records never share a cache
/// line; a call reads only the first line (and writes it only when the
/// state changes or, once a second, `last_used`).
#[repr(C, align(64))]
pub struct Record {
    /// [hash:62][status:2]: empty, being claimed, or ready.
    pub key: AtomicU64,
    /// A second, independent hash of the name, against collisions of the first.
    pub check: AtomicU64,
    /// The circuit state, see `words::encode_state`.
    pub state: AtomicU64,
    /// The instant of the state only the status view reads, see `words::encode_info`.
    pub info: AtomicU64,
    /// When a process last used the record, in ms: idle records are reused.
    pub last_used: AtomicU64,
    /// How long the circuit must be kept after its last use, in ms.
    pub ttl: AtomicU64,
    pub consecutive_failures: AtomicU64,
    pub generation_outcomes: AtomicU64,
    pub admissions: AtomicU64,
    /// The hash of the prefix whose circuit this is (0 for none): its count
    /// in the prefix table drops when the record is given to another.
    pub owner: AtomicU64,
    /// [prefix length:32][name length:32] of the stored name, for listings.
    pub name_lengths: AtomicU64,
    /// The prefix then the service, the first [`NAME_BYTES`] bytes of them.
    pub name: [AtomicU64; NAME_BYTES / 8],
}

/// The counters of a circuit for metrics (see `storage::CallCounters`), one
/// stripe of them: each a word that one relaxed `fetch_add` changes, so a
/// process killed at any instruction leaves each either counted or not.
/// Every call writes one of them: out of the record, whose first line
/// every other process reads, and in the stripe of the process counting.
#[repr(C)]
pub struct Metrics {
    pub calls_permitted: AtomicU64,
    pub calls_rejected: AtomicU64,
    pub successes: AtomicU64,
    pub failures: AtomicU64,
    pub slow_calls: AtomicU64,
    pub openings: AtomicU64,
}

/// How much of a circuit's name a record keeps for listings.
pub const NAME_BYTES: usize = 256;

/// The first six words say what made the segment; they keep their places
/// in every build so that any build can tell a segment is not its own.
#[repr(C, align(64))]
pub struct Header {
    /// Stored last, once everything else is initialised: the ready flag.
    magic: AtomicU64,
    layout_version: AtomicU64,
    /// `layout_id()` of the build that made the segment.
    layout_id: AtomicU64,
    size: AtomicU64,
    record_size: AtomicU64,
    capacity: AtomicU64,
    /// Records that were claimed: grows until the table is full.
    pub records_in_use: AtomicU64,
    /// Inserts that found neither a free nor an idle record.
    pub allocation_failures: AtomicU64,
    /// Idle records given to another service.
    pub records_reused: AtomicU64,
    /// Until when (ms) a claim is refused without looking: the last look
    /// found neither a free nor an idle record.
    pub claim_retry_at: AtomicU64,
    /// Claims refused because a prefix held its share of the records.
    pub share_refusals: AtomicU64,
    /// How many processes drew a stripe of the metrics: the next one takes
    /// this number modulo [`METRIC_STRIPES`].
    stripes_drawn: AtomicU64,
    insert_lock: UnsafeCell<libc::pthread_mutex_t>,
}

/// How many records one prefix holds, in an open-addressing table keyed by
/// the prefix's hash; changed under the insert lock only.
#[repr(C)]
pub struct PrefixUsage {
    /// The prefix's hash, 0 while the entry was never used.
    pub owner: AtomicU64,
    pub records: AtomicU64,
    /// Until when (ms) a claim of this prefix at its share is refused
    /// without looking for an idle record of its own.
    pub retry_at: AtomicU64,
}

#[derive(Debug, Clone, Error, PartialEq)]
pub enum SegmentError {
    #[error("circuit_breaker.shm_size is {size} bytes: at least {minimum} are needed for one circuit")]
    TooSmall { size: usize, minimum: usize },
    #[error("mapping {size} bytes of shared memory failed: {reason}")]
    Map { size: usize, reason: String },
    #[error("the insert lock of the shared memory failed: {0}")]
    Lock(String),
    #[error(
        "circuit_breaker.shm_max_share is {0}: a share of the records above 0 and at most 1 is needed, such as 0.5"
    )]
    Share(f64),
    #[error("{NAME_SETTING} = '{name}' {problem}")]
    Name { name: String, problem: String },
    #[error("the shared memory object /dev/shm/{name} ({NAME_SETTING}) cannot be used: {reason}")]
    Open {
        name: String,
        reason: String,
        /// The object is not this user's alone (another user's, or open to
        /// others): a name any local user can take first, not a segment a
        /// process of ours made.
        not_ours: bool,
    },
    #[error(
        "the shared memory object /dev/shm/{name} ({NAME_SETTING}) was made by another build or size of the extension: \
         {differences}; give every process the same build and circuit_breaker.shm_size, or remove the object \
         (rm /dev/shm/{name}) while no process uses it, or use another {NAME_SETTING}"
    )]
    Mismatch { name: String, differences: String },
}

impl SegmentError {
    /// Whether the named object is not one this user made alone: anyone
    /// may create `/dev/shm/<name>` first, so a process falls back to an
    /// anonymous segment rather than leave its circuits unprotected.
    pub fn is_squatted(&self) -> bool {
        matches!(self, Self::Open { not_ours: true, .. })
    }
}

pub struct Segment {
    /// `circuit_breaker.shm_name`, None for an anonymous segment.
    name: Option<String>,
    base: NonNull<u8>,
    len: usize,
    /// A named segment's object (its size is checked at each request
    /// start) and its entry in the SIGBUS guard: None for an anonymous
    /// segment, which nothing can shorten.
    object: Option<OwnedFd>,
    guard: Option<&'static guard::Guarded>,
    capacity: usize,
    areas: Areas,
    /// `circuit_breaker.shm_max_share` of the capacity, at least one record.
    max_per_prefix: usize,
    max_share: f64,
}

/// Where the areas of a segment of `capacity` circuits begin, in bytes
/// from its start, and where the last ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Areas {
    prefixes: usize,
    buckets: usize,
    successes: usize,
    metrics: usize,
    end: usize,
}

impl Areas {
    const fn of(capacity: usize) -> Self {
        let prefixes = size_of::<Header>() + capacity * size_of::<Record>();
        // On a line of its own, so that the ring's slots start on one.
        let buckets = (prefixes + capacity * size_of::<PrefixUsage>()).next_multiple_of(64);
        // On a line too: a stripe of few circuits shares none with another.
        let successes = (buckets + MAX_RING * capacity * size_of::<Bucket>()).next_multiple_of(64);
        let metrics = successes + MAX_RING * SUCCESS_STRIPES * capacity * size_of::<AtomicU64>();
        Self {
            prefixes,
            buckets,
            successes,
            metrics,
            end: metrics + METRIC_STRIPES * capacity * size_of::<Metrics>(),
        }
    }
}

/// The bytes one circuit takes in the segment: its record, its entry in the
/// prefix table, its ring of buckets, their stripes of successes and
/// its stripes of metrics.
pub const CIRCUIT_BYTES: usize = size_of::<Record>()
    + size_of::<PrefixUsage>()
    + MAX_RING * size_of::<Bucket>()
    + MAX_RING * SUCCESS_STRIPES * size_of::<AtomicU64>()
    + METRIC_STRIPES * size_of::<Metrics>();

/// Room for the padding that puts areas on lines: less than a line before
/// each of the two that start on one, counted whole.
const AREA_PADDING: usize = 2 * 64;

/// The size of a segment that holds `capacity` circuits: the areas, and
/// their padding.
pub const fn size_for(capacity: usize) -> usize {
    size_of::<Header>() + AREA_PADDING + capacity * CIRCUIT_BYTES
}

/// This process's stripe of the metrics, `METRIC_STRIPES` while it drew
/// none: forgotten in every child forked, which draws its own.
static OWN_STRIPE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(METRIC_STRIPES);

extern "C" fn forget_stripe() {
    OWN_STRIPE.store(METRIC_STRIPES, Ordering::Relaxed);
}

// SAFETY: the segment is only ever accessed through atomics and the
// process-shared mutex, which are safe to use from any thread or process.
unsafe impl Send for Segment {}
// SAFETY: as above.
unsafe impl Sync for Segment {}

impl Segment {
    /// Maps `size` bytes shared with every process forked afterwards, in
    /// which no prefix may hold more than `max_share` of the records.
    pub fn create(size: usize, max_share: f64) -> Result<Self, SegmentError> {
        check_request(size, max_share)?;
        let base = map(size, None).map_err(|reason| SegmentError::Map { size, reason })?;
        let segment = Self::over(None, base, size, max_share);
        segment.initialize(&|| {})?;
        Ok(segment)
    }

    /// Attaches to the POSIX shared-memory object `/<name>` (mode 0600, of
    /// this process's user), creating and initialising it when no process
    /// published it yet. A segment made by another build or with another
    /// size is refused, never reshaped: processes may be using it.
    pub fn open_named(name: &str, size: usize, max_share: f64) -> Result<Self, SegmentError> {
        Self::open_named_with(name, size, max_share, ATTACH_WAIT, &|| {})
    }

    /// `open_named`, waiting at most `wait` for another process attaching,
    /// and running `before_publish` between initialising a new segment and
    /// publishing it (tests kill the creator there).
    fn open_named_with(
        name: &str,
        size: usize,
        max_share: f64,
        wait: std::time::Duration,
        before_publish: &dyn Fn(),
    ) -> Result<Self, SegmentError> {
        check_request(size, max_share)?;
        let path = object_path(name)?;
        let refuse_as = |not_ours: bool| {
            move |reason: String| SegmentError::Open {
                name: name.to_owned(),
                reason,
                not_ours,
            }
        };
        let refuse = refuse_as(false);
        let object = SharedObject::open(&path).map_err(|(reason, denied)| refuse_as(denied)(reason))?;
        // Held until `object` is dropped, when this function returns.
        object.lock(wait).map_err(refuse)?;
        let found = object.length_if_private().map_err(refuse_as(true))?;
        if found > 0 {
            if found < size_of::<Header>() {
                return Err(refuse(format!(
                    "it holds {found} bytes, too few for a circuit_breaker segment: remove it (rm /dev/shm/{name}) \
                     or use another {NAME_SETTING}"
                )));
            }
            let base = map(found, Some(&object)).map_err(refuse)?;
            let mut existing = Self::over(Some(name.to_owned()), base, found, max_share);
            match existing.header().magic.load(Ordering::Acquire) {
                MAGIC => {
                    let differences = existing.differences_from(size);
                    if differences.is_empty() {
                        existing.keep_watch(&object).map_err(refuse)?;
                        return Ok(existing);
                    }
                    return Err(SegmentError::Mismatch {
                        name: name.to_owned(),
                        differences: differences.join(", "),
                    });
                }
                // Never published, and we hold the lock its creator held:
                // that creator died while initialising it.
                0 => drop(existing),
                other => {
                    return Err(refuse(format!(
                        "it is not a circuit_breaker segment (its first word is {other:#018x}): remove it \
                         (rm /dev/shm/{name}) or use another {NAME_SETTING}"
                    )));
                }
            }
        }
        object.reset(size).map_err(refuse)?;
        let base = map(size, Some(&object)).map_err(refuse)?;
        let mut segment = Self::over(Some(name.to_owned()), base, size, max_share);
        segment.initialize(before_publish)?;
        segment.keep_watch(&object).map_err(refuse)?;
        Ok(segment)
    }

    /// Keeps a descriptor of the object, whose size `verify` checks, and
    /// puts the mapping under the SIGBUS guard.
    fn keep_watch(&mut self, object: &SharedObject) -> Result<(), String> {
        let kept = object
            .fd
            .try_clone()
            .map_err(|error| format!("keeping a descriptor of it failed: {error}"))?;
        self.object = Some(kept);
        self.guard = guard::watch(self.base.as_ptr() as usize, self.len);
        Ok(())
    }

    /// Whether this process still trusts the mapping: false once the
    /// named object was found shortened or overwritten (every operation
    /// then fails open). A load and a branch: the hot path asks it once
    /// per call.
    #[inline]
    pub fn is_intact(&self) -> bool {
        // One load of a static while nothing tripped, as almost always.
        !guard::ANY_TRIPPED.load(Ordering::Relaxed) || self.guard.is_none_or(|guard| !guard.is_tripped())
    }

    /// Why the mapping is no longer trusted, once `is_intact` says so.
    #[cold]
    pub fn broken_reason(&self) -> String {
        let name = self.name.as_deref().unwrap_or_default();
        let now = match self.object.as_ref().map(|fd| object_size(fd.as_raw_fd())) {
            Some(Ok(size)) => format!("it now holds {size} bytes, the segment {}", self.len),
            _ => format!("the segment holds {} bytes", self.len),
        };
        format!(
            "the shared memory object /dev/shm/{name} ({NAME_SETTING}) was shortened or overwritten while this \
             process used it ({now}): this process no longer uses it, and its circuits fail open; remove the \
             object (rm /dev/shm/{name}) and restart the processes that name it (php-fpm reload)"
        )
    }

    /// The check of each request start, before any access: the object
    /// still holds the whole mapping (one `fstat`), and the header still
    /// carries this build's words. A shortened or overwritten object
    /// breaks the segment for this process, so that no later access
    /// faults. Nothing to do for an anonymous segment.
    pub fn verify(&self) {
        let (Some(object), Some(guard)) = (self.object.as_ref(), self.guard) else {
            return;
        };
        if guard.is_tripped() {
            return;
        }
        let shortened = object_size(object.as_raw_fd()).is_ok_and(|size| size < self.len);
        // Read only once the size is known to cover the header.
        if shortened || !self.header_is_ours() {
            guard.trip();
        }
    }

    /// Whether the header still says this build made the segment.
    fn header_is_ours(&self) -> bool {
        let header = self.header();
        header.magic.load(Ordering::Acquire) == MAGIC
            && header.layout_version.load(Ordering::Relaxed) == LAYOUT_VERSION
            && header.layout_id.load(Ordering::Relaxed) == layout_id()
            && header.size.load(Ordering::Relaxed) == self.len as u64
    }

    fn over(name: Option<String>, base: NonNull<u8>, len: usize, max_share: f64) -> Self {
        let capacity = capacity_of(len);
        Self {
            name,
            base,
            len,
            object: None,
            guard: None,
            capacity,
            areas: Areas::of(capacity),
            max_per_prefix: ((capacity as f64 * max_share) as usize).max(1),
            max_share,
        }
    }

    /// What tells this segment's header from the one this build would
    /// write for `size` bytes, in words for the message.
    fn differences_from(&self, size: usize) -> Vec<String> {
        let header = self.header();
        let mut differences = Vec::new();
        let mut compare = |what: &str, found: u64, ours: u64, unit: &str| {
            if found != ours {
                differences.push(format!("its {what} is {found}{unit}, this build's is {ours}{unit}"));
            }
        };
        compare(
            "layout version",
            header.layout_version.load(Ordering::Relaxed),
            LAYOUT_VERSION,
            "",
        );
        compare(
            "record size",
            header.record_size.load(Ordering::Relaxed),
            CIRCUIT_BYTES as u64,
            " bytes",
        );
        let fingerprint = header.layout_id.load(Ordering::Relaxed);
        if fingerprint != layout_id() {
            differences.push(format!(
                "its layout fingerprint is {fingerprint:#018x}, this build's is {:#018x}",
                layout_id()
            ));
        }
        let stored_size = header.size.load(Ordering::Relaxed);
        if stored_size != size as u64 || self.len != size {
            differences.push(format!(
                "it holds {} bytes, circuit_breaker.shm_size here is {size} bytes",
                self.len
            ));
        }
        let stored_capacity = header.capacity.load(Ordering::Relaxed);
        if stored_capacity != capacity_of(size) as u64 && differences.is_empty() {
            differences.push(format!(
                "its capacity is {stored_capacity} circuits, this build's is {} for this size",
                capacity_of(size)
            ));
        }
        differences
    }

    /// Writes the header of a zeroed mapping that no other process uses
    /// yet, and publishes it last.
    fn initialize(&self, before_publish: &dyn Fn()) -> Result<(), SegmentError> {
        let header = self.header();
        header.layout_version.store(LAYOUT_VERSION, Ordering::Relaxed);
        header.layout_id.store(layout_id(), Ordering::Relaxed);
        header.size.store(self.len as u64, Ordering::Relaxed);
        header.record_size.store(CIRCUIT_BYTES as u64, Ordering::Relaxed);
        header.capacity.store(self.capacity as u64, Ordering::Relaxed);
        // SAFETY: the attribute is initialised by pthread_mutexattr_init
        // before use and destroyed after; the mutex lives in the mapping,
        // which nothing else uses yet, and is initialised exactly once.
        unsafe {
            let mut attributes = MaybeUninit::<libc::pthread_mutexattr_t>::uninit();
            check(libc::pthread_mutexattr_init(attributes.as_mut_ptr()))?;
            let attributes = attributes.assume_init_mut();
            check(libc::pthread_mutexattr_setpshared(
                attributes,
                libc::PTHREAD_PROCESS_SHARED,
            ))?;
            // Robust: a worker killed while holding it does not leave it held.
            check(libc::pthread_mutexattr_setrobust(
                attributes,
                libc::PTHREAD_MUTEX_ROBUST,
            ))?;
            check(libc::pthread_mutex_init(header.insert_lock.get(), attributes))?;
            libc::pthread_mutexattr_destroy(attributes);
        }
        before_publish();
        header.magic.store(MAGIC, Ordering::Release);
        Ok(())
    }

    /// `circuit_breaker.shm_name`, None for an anonymous segment.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    pub fn header(&self) -> &Header {
        // SAFETY: the mapping is at least as large as the header, page
        // aligned (so 64-byte aligned), and zeroed memory is a valid header.
        unsafe { self.base.cast::<Header>().as_ref() }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn size(&self) -> usize {
        self.len
    }

    /// The most records one prefix may hold.
    pub fn max_per_prefix(&self) -> usize {
        self.max_per_prefix
    }

    pub fn max_share(&self) -> f64 {
        self.max_share
    }

    /// Entry `index` of the prefix table, which has `capacity` entries.
    pub fn prefix_usage(&self, index: usize) -> &PrefixUsage {
        assert!(
            index < self.capacity,
            "prefix entry {index} outside a table of {}",
            self.capacity
        );
        self.entry(self.areas.prefixes, index)
    }

    /// The counters of circuit `index` in slot `ring_slot` of its ring.
    #[inline]
    pub fn bucket(&self, index: usize, ring_slot: usize) -> &Bucket {
        assert!(
            index < self.capacity && ring_slot < MAX_RING,
            "bucket {ring_slot} of record {index} outside a table of {}",
            self.capacity
        );
        self.entry(self.areas.buckets, ring_slot * self.capacity + index)
    }

    /// Stripe `stripe` of the successes of circuit `index` in slot
    /// `ring_slot` of its ring: a counter word as the bucket's, and of the
    /// circuits side by side, so that a process calling many circuits
    /// writes its stripe of them on few lines.
    #[inline]
    pub fn striped_successes(&self, index: usize, ring_slot: usize, stripe: usize) -> &AtomicU64 {
        assert!(
            index < self.capacity && ring_slot < MAX_RING && stripe < SUCCESS_STRIPES,
            "successes {ring_slot}/{stripe} of record {index} outside a table of {}",
            self.capacity
        );
        self.entry(
            self.areas.successes,
            (ring_slot * SUCCESS_STRIPES + stripe) * self.capacity + index,
        )
    }

    /// Zeroes every counter of circuit `index`, its buckets' and its
    /// stripes of successes, writing only those that hold a count: a
    /// record claimed for the first time touches no page it does not use.
    pub fn clear_counters(&self, index: usize) {
        for ring_slot in 0..MAX_RING {
            let stripes = (0..SUCCESS_STRIPES).map(|stripe| self.striped_successes(index, ring_slot, stripe));
            for word in self.bucket(index, ring_slot).iter().chain(stripes) {
                if word.load(Ordering::Relaxed) != 0 {
                    word.store(0, Ordering::Relaxed);
                }
            }
        }
    }

    /// Stripe `stripe` of the metrics of circuit `index`.
    #[inline]
    pub fn metrics(&self, index: usize, stripe: usize) -> &Metrics {
        assert!(
            index < self.capacity && stripe < METRIC_STRIPES,
            "metrics {stripe} of record {index} outside a table of {}",
            self.capacity
        );
        self.entry(self.areas.metrics, stripe * self.capacity + index)
    }

    /// Entry `position` of the area starting `offset` bytes into the
    /// mapping: every area is an array of one type of atomic words, whose
    /// bounds its accessor checked.
    #[inline]
    fn entry<T>(&self, offset: usize, position: usize) -> &T {
        debug_assert!(offset + (position + 1) * size_of::<T>() <= self.areas.end);
        // SAFETY: `Areas::of` lays the areas out inside the mapping
        // (`capacity_of` keeps their end within `len`), each aligned for
        // its type (records and buckets on lines, prefixes and metrics on
        // words); the accessors check `position` within the area. Zeroed
        // memory is a valid entry: every field is an atomic word.
        unsafe { &*self.base.as_ptr().add(offset).cast::<T>().add(position) }
    }

    /// Every stripe of the metrics of circuit `index`.
    pub fn all_metrics(&self, index: usize) -> impl Iterator<Item = &Metrics> {
        (0..METRIC_STRIPES).map(move |stripe| self.metrics(index, stripe))
    }

    /// The stripe of the metrics this process counts in: drawn in turn
    /// from the segment by its first call, so that the processes calling
    /// one circuit write lines of their own (up to `METRIC_STRIPES`).
    #[inline]
    pub fn own_stripe(&self) -> usize {
        let stripe = OWN_STRIPE.load(Ordering::Relaxed);
        if stripe < METRIC_STRIPES {
            stripe
        } else {
            self.draw_stripe()
        }
    }

    #[cold]
    fn draw_stripe(&self) -> usize {
        static WATCH_FORKS: std::sync::Once = std::sync::Once::new();
        WATCH_FORKS.call_once(|| crate::storage::sys::in_every_child(forget_stripe));
        let drawn = self.header().stripes_drawn.fetch_add(1, Ordering::Relaxed);
        let stripe = (drawn % METRIC_STRIPES as u64) as usize;
        OWN_STRIPE.store(stripe, Ordering::Relaxed);
        stripe
    }

    pub fn record(&self, index: usize) -> &Record {
        assert!(
            index < self.capacity,
            "record {index} outside a table of {}",
            self.capacity
        );
        self.entry(size_of::<Header>(), index)
    }

    /// Takes the insert lock. `recovered` tells that its last holder died
    /// holding it: the caller must repair what it may have left half done.
    pub fn lock(&self) -> Result<InsertGuard<'_>, SegmentError> {
        let mutex = self.header().insert_lock.get();
        // SAFETY: the mutex was initialised in `initialize` and stays mapped as
        // long as `self`.
        let status = unsafe { libc::pthread_mutex_lock(mutex) };
        let recovered = match status {
            0 => false,
            libc::EOWNERDEAD => {
                // SAFETY: we own the mutex after EOWNERDEAD; marking it
                // consistent lets later lockers use it normally.
                check(unsafe { libc::pthread_mutex_consistent(mutex) })?;
                true
            }
            error => {
                return Err(SegmentError::Lock(std::io::Error::from_raw_os_error(error).to_string()));
            }
        };
        Ok(InsertGuard {
            segment: self,
            recovered,
        })
    }
}

fn check_request(size: usize, max_share: f64) -> Result<(), SegmentError> {
    if !(max_share > 0.0 && max_share <= 1.0) {
        return Err(SegmentError::Share(max_share));
    }
    let minimum = size_for(1);
    if size < minimum {
        return Err(SegmentError::TooSmall { size, minimum });
    }
    Ok(())
}

/// The most circuits `size` bytes hold: the areas' padding is at most
/// [`AREA_PADDING`].
fn capacity_of(size: usize) -> usize {
    let capacity = size.saturating_sub(size_of::<Header>() + AREA_PADDING) / CIRCUIT_BYTES;
    debug_assert!(Areas::of(capacity).end <= size);
    capacity
}

/// The object name of `circuit_breaker.shm_name`: the leading `/` is ours.
fn object_path(name: &str) -> Result<std::ffi::CString, SegmentError> {
    let problem = if name.contains('/') {
        Some("contains '/': give a plain name such as circuit_breaker (the extension adds the leading /)".to_owned())
    } else if name.len() > MAX_NAME_LENGTH {
        Some(format!(
            "is {} bytes long: at most {MAX_NAME_LENGTH} are allowed",
            name.len()
        ))
    } else if name == "." || name == ".." {
        Some("is not a name: give a plain name such as circuit_breaker".to_owned())
    } else {
        None
    };
    let path = std::ffi::CString::new(format!("/{name}")).ok();
    match (problem, path) {
        (None, Some(path)) => Ok(path),
        (problem, _) => Err(SegmentError::Name {
            name: name.to_owned(),
            problem: problem.unwrap_or_else(|| "contains a NUL byte".to_owned()),
        }),
    }
}

/// A fingerprint of the layout this build reads and writes: the sizes and
/// offsets of every shared structure, the constants that shape a record,
/// `LAYOUT_VERSION`, and the hash that places names (std's
/// `DefaultHasher`, which may change between Rust releases).
pub fn layout_id() -> u64 {
    fingerprint(TIER_WORDS, TIER_KNOWN_HOSTS)
}

/// [`layout_id`] with the tier's control record laid out as `tier_words`
/// with `tier_known_hosts` hosts: what a build whose `F` record differs
/// would compute.
fn fingerprint(tier_words: &[(&str, u64)], tier_known_hosts: usize) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher};
    use std::mem::{align_of, offset_of};
    let mut name_hash = BuildHasherDefault::<DefaultHasher>::default().build_hasher();
    name_hash.write_u64(0x9e37_79b9);
    name_hash.write(b"circuit_breaker");
    let words = [
        LAYOUT_VERSION,
        MAGIC,
        size_of::<Header>() as u64,
        align_of::<Header>() as u64,
        offset_of!(Header, records_in_use) as u64,
        offset_of!(Header, insert_lock) as u64,
        size_of::<libc::pthread_mutex_t>() as u64,
        size_of::<Record>() as u64,
        align_of::<Record>() as u64,
        offset_of!(Record, state) as u64,
        offset_of!(Record, owner) as u64,
        offset_of!(Record, name) as u64,
        size_of::<Bucket>() as u64,
        size_of::<Metrics>() as u64,
        METRIC_STRIPES as u64,
        SUCCESS_STRIPES as u64,
        NAME_BYTES as u64,
        size_of::<PrefixUsage>() as u64,
        SLOTS as u64,
        MAX_RING as u64,
        tier_known_hosts as u64,
        name_hash.finish(),
    ];
    let tier_words = tier_words
        .iter()
        .flat_map(|(name, place)| name.bytes().map(u64::from).chain([*place]));
    // FNV-1a over the words' bytes: stable across builds, unlike std's hasher.
    words
        .iter()
        .copied()
        .chain(tier_words)
        .flat_map(u64::to_le_bytes)
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// Maps `size` bytes of `object`, or anonymous memory when None, shared
/// with every process that maps the same.
fn map(size: usize, object: Option<&SharedObject>) -> Result<NonNull<u8>, String> {
    map_shared(size, object.map(|object| object.fd.as_raw_fd()))
        .map_err(|error| format!("mapping {size} bytes failed: {error}"))
}

/// [`map`], of the descriptor `fd` or anonymous memory, with the system's
/// error.
fn map_shared(size: usize, fd: Option<std::os::fd::RawFd>) -> std::io::Result<NonNull<u8>> {
    let (flags, fd) = match fd {
        Some(fd) => (libc::MAP_SHARED, fd),
        None => (libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1),
    };
    // SAFETY: no address hint; `fd` is open (or -1 for an anonymous
    // mapping); the result is checked against MAP_FAILED.
    let address = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd,
            0,
        )
    };
    if address == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(NonNull::new(address.cast::<u8>()).expect("mmap never maps at address zero"))
}

/// Atomic words in an anonymous `MAP_SHARED` mapping of their own, zeroed,
/// shared with every process forked after it was made: the bulkhead's
/// table (`storage::bulkhead`), whose mapping is fenced here with the
/// segment's.
pub struct SharedWords {
    base: NonNull<AtomicU64>,
    len: usize,
}

// SAFETY: every word is an atomic, and the mapping lives as long as the value.
unsafe impl Send for SharedWords {}
// SAFETY: as above: all access goes through atomics.
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// `len` words, all zero; the system's error when they cannot be mapped.
    pub fn new(len: usize) -> std::io::Result<Self> {
        let base = map_shared(len * size_of::<AtomicU64>(), None)?;
        Ok(Self { base: base.cast(), len })
    }

    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `len` words, page-aligned, zeroed by the
        // kernel (a zero word is a valid atomic), and lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.len) }
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, of `len` words; no reference
        // into it outlives `self`, which `words` borrows.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len * size_of::<AtomicU64>()) };
    }
}

/// An open POSIX shared-memory object, unlocked when dropped.
struct SharedObject {
    fd: OwnedFd,
}

impl Drop for SharedObject {
    fn drop(&mut self) {
        // A mapping keeps the open file description, and with it an flock,
        // alive after the descriptor closes: unlock explicitly. A process
        // that dies holding it loses its mappings, and the lock with them.
        // SAFETY: flock on a descriptor we own.
        unsafe { libc::flock(self.fd.as_raw_fd(), libc::LOCK_UN) };
    }
}

impl SharedObject {
    /// The error says whether the object is another user's (permission denied).
    fn open(path: &std::ffi::CStr) -> Result<Self, (String, bool)> {
        // SAFETY: `path` is NUL-terminated; the result is checked.
        let fd = unsafe {
            libc::shm_open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_CLOEXEC,
                0o600 as libc::mode_t,
            )
        };
        if fd < 0 {
            let error = std::io::Error::last_os_error();
            let hint = if error.kind() == std::io::ErrorKind::PermissionDenied {
                " (it belongs to another user: run this process as its owner, see ls -l /dev/shm)"
            } else {
                ""
            };
            let denied = !hint.is_empty();
            return Err((format!("shm_open failed: {error}{hint}"), denied));
        }
        // SAFETY: `fd` was just opened and is owned here only.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Self { fd })
    }

    /// Waits at most `wait` for the exclusive lock of the object.
    fn lock(&self, wait: std::time::Duration) -> Result<(), String> {
        let deadline = std::time::Instant::now() + wait;
        let mut pause = std::time::Duration::from_millis(1);
        loop {
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(self.fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(());
            }
            let error = std::io::Error::last_os_error();
            if !matches!(error.raw_os_error(), Some(libc::EWOULDBLOCK | libc::EINTR)) {
                return Err(format!("locking it failed: {error}"));
            }
            if std::time::Instant::now() >= deadline {
                return Err(format!(
                    "another process has held its lock for {} s while attaching (stopped, or /dev/shm is stuck?)",
                    wait.as_secs()
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(50));
        }
    }

    /// The object's length, once it is known to belong to this process's
    /// user and to be closed to every other: circuits are not shared
    /// across users, nor readable or writable by them.
    fn length_if_private(&self) -> Result<usize, String> {
        let mut stat = MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fstat fills `stat` on success, which is checked first.
        let stat = unsafe {
            if libc::fstat(self.fd.as_raw_fd(), stat.as_mut_ptr()) != 0 {
                return Err(format!("fstat failed: {}", std::io::Error::last_os_error()));
            }
            stat.assume_init()
        };
        // SAFETY: geteuid has no precondition.
        let user = unsafe { libc::geteuid() };
        if stat.st_uid != user {
            return Err(format!(
                "it belongs to uid {}, not to this process's user (uid {user}): run this process as its owner",
                stat.st_uid
            ));
        }
        if stat.st_mode & 0o077 != 0 {
            return Err(format!(
                "its mode is {:04o}: other users could read or change the circuits; it must be 0600",
                stat.st_mode & 0o7777
            ));
        }
        Ok(stat.st_size as usize)
    }

    /// Empties the object (zeroes whatever a dead creator wrote) and gives
    /// it `size` bytes of memory now: a /dev/shm too small for it fails
    /// here rather than with SIGBUS at the first write to a page.
    fn reset(&self, size: usize) -> Result<(), String> {
        let fd = self.fd.as_raw_fd();
        // SAFETY: ftruncate on a descriptor we own, opened read-write.
        let sized = unsafe { libc::ftruncate(fd, 0) == 0 && libc::ftruncate(fd, size as libc::off_t) == 0 };
        if !sized {
            return Err(format!(
                "sizing it to {size} bytes failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: as above; posix_fallocate returns the error number.
        match unsafe { libc::posix_fallocate(fd, 0, size as libc::off_t) } {
            0 => Ok(()),
            error => Err(format!(
                "reserving {size} bytes failed: {} (is /dev/shm large enough? see df /dev/shm)",
                std::io::Error::from_raw_os_error(error)
            )),
        }
    }
}

fn check(status: libc::c_int) -> Result<(), SegmentError> {
    match status {
        0 => Ok(()),
        error => Err(SegmentError::Lock(std::io::Error::from_raw_os_error(error).to_string())),
    }
}

pub struct InsertGuard<'a> {
    segment: &'a Segment,
    pub recovered: bool,
}

impl Drop for InsertGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: the guard exists only while this process holds the lock.
        unsafe { libc::pthread_mutex_unlock(self.segment.header().insert_lock.get()) };
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        if let Some(guard) = self.guard {
            guard.release();
        }
        // SAFETY: the mapping was made by `create` with this length, and
        // no reference into it outlives `self`.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

/// The size of the object open on `fd`.
fn object_size(fd: libc::c_int) -> Result<usize, String> {
    let mut stat = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills `stat` on success, which is checked first.
    unsafe {
        if libc::fstat(fd, stat.as_mut_ptr()) != 0 {
            return Err(format!("fstat failed: {}", std::io::Error::last_os_error()));
        }
        Ok(stat.assume_init().st_size.max(0) as usize)
    }
}

/// The SIGBUS guard of named mappings: a table of the mapped ranges, and
/// the handler that turns a fault inside one into a broken segment.
mod guard {
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// One watched mapping; `start` 0 when the entry is free.
    pub struct Guarded {
        start: AtomicUsize,
        len: AtomicUsize,
        tripped: AtomicBool,
    }

    impl Guarded {
        #[inline]
        pub fn is_tripped(&self) -> bool {
            self.tripped.load(Ordering::Relaxed)
        }

        /// Puts private zeroed memory over the mapping, so that nothing
        /// this process does with it can fault any more, and marks it
        /// broken. Safe to call from the signal handler: a system call
        /// and atomic stores.
        pub fn trip(&self) -> bool {
            let (start, len) = (self.start.load(Ordering::Acquire), self.len.load(Ordering::Acquire));
            if start == 0 {
                return false;
            }
            // SAFETY: replaces, at the same address and length, a mapping
            // this process made and still holds (the entry is released
            // before it is unmapped); the new pages are readable, writable
            // and zeroed, which every word of the segment accepts.
            let replaced = unsafe {
                libc::mmap(
                    start as *mut libc::c_void,
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if replaced == libc::MAP_FAILED {
                return false;
            }
            self.tripped.store(true, Ordering::Release);
            ANY_TRIPPED.store(true, Ordering::Release);
            true
        }

        /// Frees the entry, before the mapping is unmapped.
        pub fn release(&self) {
            self.len.store(0, Ordering::Release);
            self.start.store(0, Ordering::Release);
            self.tripped.store(false, Ordering::Release);
        }
    }

    /// Set once any watched mapping tripped: what the hot path reads.
    pub static ANY_TRIPPED: AtomicBool = AtomicBool::new(false);

    /// A process maps one named segment; tests map several at once.
    const ENTRIES: usize = 64;

    static WATCHED: [Guarded; ENTRIES] = [const {
        Guarded {
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            tripped: AtomicBool::new(false),
        }
    }; ENTRIES];

    static INSTALL: Once = Once::new();
    /// The handler found in place, to which faults outside our mappings go.
    static PREVIOUS: std::sync::OnceLock<libc::sigaction> = std::sync::OnceLock::new();

    /// Watches the mapping `[start, start + len)`, installing the handler
    /// the first time; None when the table is full (the mapping is then
    /// as unguarded as before: only tests map that many).
    pub fn watch(start: usize, len: usize) -> Option<&'static Guarded> {
        INSTALL.call_once(install);
        let entry = WATCHED.iter().find(|entry| {
            entry
                .start
                .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        entry.tripped.store(false, Ordering::Relaxed);
        entry.len.store(len, Ordering::Release);
        entry.start.store(start, Ordering::Release);
        Some(entry)
    }

    fn install() {
        // SAFETY: sigaction reads a fully initialised action and fills
        // `previous`, both checked; the handler is async-signal-safe (it
        // only reads atomics, calls mmap and sigaction, or the previous
        // handler).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&raw mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &raw mut previous) != 0 {
                return;
            }
            let _ = PREVIOUS.set(previous);
            libc::sigaction(libc::SIGBUS, &raw const action, std::ptr::null_mut());
        }
    }

    extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let address = unsafe { (*info).si_addr() } as usize;
        let ours = WATCHED.iter().find(|entry| {
            let start = entry.start.load(Ordering::Acquire);
            let len = entry.len.load(Ordering::Acquire);
            start != 0 && start != usize::MAX && address >= start && address - start < len
        });
        // Returning retries the access, on the zeroed pages now.
        if ours.is_some_and(Guarded::trip) {
            return;
        }
        let previous = PREVIOUS.get();
        match previous.map(|previous| (previous.sa_sigaction, previous.sa_flags)) {
            Some((handler, flags)) if handler != libc::SIG_DFL && handler != libc::SIG_IGN => {
                // SAFETY: the handler that was installed before ours, called
                // as it asked to be (with or without the siginfo).
                unsafe {
                    if flags & libc::SA_SIGINFO != 0 {
                        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(handler);
                        handler(signal, info, context);
                    } else {
                        let handler: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                        handler(signal);
                    }
                }
            }
            // Not ours, and nobody else's: the default action, as if this
            // handler were not there (the access faults again and the
            // process dies of it, a signal sent by kill is raised again).
            _ => {
                // SAFETY: resets SIGBUS to its default and raises it; it
                // stays blocked until this handler returns.
                unsafe {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGBUS, &raw const default, std::ptr::null_mut());
                    libc::raise(signal);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "named_tests.rs"]
mod named_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuits_take_a_few_kib_and_records_are_aligned() {
        const { assert!(size_of::<Record>().is_multiple_of(64) && CIRCUIT_BYTES <= 8 * 1024) };
    }

    #[test]
    fn capacity_follows_the_size() {
        let segment = Segment::create(1 << 20, 0.5).unwrap();
        assert_eq!(
            segment.capacity(),
            ((1 << 20) - size_of::<Header>() - AREA_PADDING) / CIRCUIT_BYTES
        );
        for capacity in [1, 2, 3, 7, 1000] {
            assert!(Areas::of(capacity).end <= size_for(capacity));
            assert_eq!(capacity_of(size_for(capacity)), capacity, "{capacity}");
            assert_eq!(capacity_of(size_for(capacity) - 1), capacity - 1, "{capacity}");
        }
        assert_eq!(segment.max_per_prefix(), segment.capacity() / 2);
        assert!(matches!(Segment::create(100, 0.5), Err(SegmentError::TooSmall { .. })));
        for share in [0.0, -0.1, 1.01, f64::NAN] {
            assert!(matches!(Segment::create(1 << 20, share), Err(SegmentError::Share(_))));
        }
    }

    /// What a call touches of many circuits lies together: the buckets of
    /// one ring slot, a stripe of their successes, and the metrics of
    /// one stripe, circuit after circuit; the stripes of one circuit lie on
    /// lines apart (in a segment of 8 circuits or more: this one holds
    /// 129); the areas do not overlap and end inside the mapping.
    #[test]
    fn the_buckets_of_one_instant_and_the_metrics_of_one_process_lie_together() {
        let segment = Segment::create(1 << 20, 0.5).unwrap();
        let capacity = segment.capacity();
        let address = |item: &dyn std::any::Any| std::ptr::from_ref(item).cast::<u8>() as usize;
        for slot in [0, 7, MAX_RING - 1] {
            assert_eq!(
                address(segment.bucket(1, slot)) - address(segment.bucket(0, slot)),
                size_of::<Bucket>()
            );
        }
        assert_eq!(address(segment.bucket(0, 0)) % 64, 0);
        let word = size_of::<AtomicU64>();
        for slot in [0, 7, MAX_RING - 1] {
            let successes = |index, stripe| address(segment.striped_successes(index, slot, stripe));
            assert_eq!(successes(1, 2) - successes(0, 2), word);
            for stripe in 1..SUCCESS_STRIPES {
                let apart = successes(5, stripe) - successes(5, stripe - 1);
                assert!(apart == capacity * word && apart >= 64, "{apart}");
            }
        }
        assert_eq!(address(segment.striped_successes(0, 0, 0)) % 64, 0);
        assert_eq!(
            address(segment.metrics(1, 3)) - address(segment.metrics(0, 3)),
            size_of::<Metrics>()
        );
        let base = segment.base.as_ptr() as usize;
        let last_record_end = address(segment.record(capacity - 1)) + size_of::<Record>();
        let last_prefix_end = address(segment.prefix_usage(capacity - 1)) + size_of::<PrefixUsage>();
        assert!(last_record_end <= address(segment.prefix_usage(0)));
        assert!(last_prefix_end <= address(segment.bucket(0, 0)));
        assert!(
            address(segment.bucket(capacity - 1, MAX_RING - 1)) + size_of::<Bucket>()
                <= address(segment.striped_successes(0, 0, 0))
        );
        assert!(
            address(segment.striped_successes(capacity - 1, MAX_RING - 1, SUCCESS_STRIPES - 1)) + word
                <= address(segment.metrics(0, 0))
        );
        assert!(
            address(segment.metrics(capacity - 1, METRIC_STRIPES - 1)) + size_of::<Metrics>() <= base + segment.size()
        );
    }

    /// A process draws its stripe once; a child forked after draws anew,
    /// the next one in turn.
    #[test]
    fn a_forked_child_draws_a_stripe_of_its_own() {
        let segment = Segment::create(1 << 20, 0.5).unwrap();
        // This process may have drawn from another test's segment: only
        // this one's count says whose turn comes.
        let mine = segment.own_stripe();
        assert_eq!(segment.own_stripe(), mine);
        let before = segment.header().stripes_drawn.load(Ordering::Relaxed);
        let [read, write] = pipe();
        // SAFETY: the child only draws a stripe, writes one byte and exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let theirs = segment.own_stripe() as u8;
            // SAFETY: `write` is the pipe's open write end.
            unsafe {
                libc::write(write, (&raw const theirs).cast(), 1);
                libc::_exit(0);
            }
        }
        let mut theirs = 0u8;
        // SAFETY: `read` is the pipe's open read end; one byte into a u8.
        unsafe {
            assert_eq!(libc::read(read, (&raw mut theirs).cast(), 1), 1);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        assert_eq!(segment.header().stripes_drawn.load(Ordering::Relaxed), before + 1);
        assert_eq!(
            u64::from(theirs),
            before % METRIC_STRIPES as u64,
            "the child drew the next stripe"
        );
        assert_eq!(segment.own_stripe(), mine, "the parent keeps its own");
    }

    fn pipe() -> [libc::c_int; 2] {
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
        ends
    }

    #[test]
    fn the_lock_can_be_taken_again_once_released() {
        let segment = Segment::create(1 << 16, 0.5).unwrap();
        drop(segment.lock().unwrap());
        let guard = segment.lock().unwrap();
        assert!(!guard.recovered);
    }
}
