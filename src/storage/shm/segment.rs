//! The shared segment: one anonymous `MAP_SHARED` mapping, made before the
//! PHP-FPM master forks its workers, so that they all see it.
//!
//! ```text
//! +--------+----------+-----+--------------+---------------------+
//! | Header | Record 0 | ... | Record N - 1 | PrefixUsage 0..N-1  |
//! +--------+----------+-----+--------------+---------------------+
//! ```
//!
//! Each record may belong to a different prefix, so N prefix entries are
//! always enough.
//!
//! Everything inside is an atomic word or the insert lock: no pointer is
//! stored, a record is found by its index. This module holds every `unsafe`
//! of the shared-memory storage.

use std::cell::UnsafeCell;
use std::mem::{MaybeUninit, size_of};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::core::window::MAX_RING;

/// Counters per bucket: two outcomes times up to six duration bands, that is
/// up to four distinct slow call durations.
pub const SLOTS: usize = 12;

const MAGIC: u64 = u64::from_le_bytes(*b"cbreaker");

/// One circuit. 64-byte aligned so that two records never share a cache line.
#[repr(C, align(64))]
pub struct Record {
    /// [hash:62][status:2]: empty, being claimed, or ready.
    pub key: AtomicU64,
    /// A second, independent hash of the name, against collisions of the first.
    pub check: AtomicU64,
    /// The circuit state, see `words::encode_state`.
    pub state: AtomicU64,
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
    /// Bucket-major: the counters of one bucket are contiguous, so a call,
    /// which reads only the current bucket (a process keeps the sums of the
    /// past ones), touches one or two cache lines of them.
    pub counters: [[AtomicU64; SLOTS]; MAX_RING],
}

#[repr(C, align(64))]
pub struct Header {
    magic: AtomicU64,
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
}

pub struct Segment {
    base: NonNull<u8>,
    len: usize,
    capacity: usize,
    /// `circuit_breaker.shm_max_share` of the capacity, at least one record.
    max_per_prefix: usize,
    max_share: f64,
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
        if !(max_share > 0.0 && max_share <= 1.0) {
            return Err(SegmentError::Share(max_share));
        }
        let minimum = size_of::<Header>() + size_of::<Record>() + size_of::<PrefixUsage>();
        if size < minimum {
            return Err(SegmentError::TooSmall { size, minimum });
        }
        // SAFETY: an anonymous mapping with no address hint has no
        // precondition; the result is checked against MAP_FAILED.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(SegmentError::Map {
                size,
                reason: std::io::Error::last_os_error().to_string(),
            });
        }
        let base = NonNull::new(address.cast::<u8>()).expect("mmap never maps at address zero");
        let capacity = (size - size_of::<Header>()) / (size_of::<Record>() + size_of::<PrefixUsage>());
        let segment = Self {
            base,
            len: size,
            capacity,
            max_per_prefix: ((capacity as f64 * max_share) as usize).max(1),
            max_share,
        };
        segment.initialize_header()?;
        Ok(segment)
    }

    fn initialize_header(&self) -> Result<(), SegmentError> {
        let header = self.header();
        header.magic.store(MAGIC, Ordering::Relaxed);
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
        Ok(())
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
        // SAFETY: the prefix table follows the last record (8-byte aligned
        // as records are 64-byte aligned), `create` sized the mapping for
        // `capacity` entries, and zeroed memory is a valid entry.
        unsafe {
            let table = self
                .base
                .as_ptr()
                .add(size_of::<Header>() + self.capacity * size_of::<Record>())
                .cast::<PrefixUsage>();
            &*table.add(index)
        }
    }

    pub fn record(&self, index: usize) -> &Record {
        assert!(
            index < self.capacity,
            "record {index} outside a table of {}",
            self.capacity
        );
        // SAFETY: records follow the header, each 64-byte aligned, and
        // `index < capacity` keeps this one inside the mapping; zeroed memory
        // is a valid record (every field is an atomic word).
        unsafe {
            let first = self.base.as_ptr().add(size_of::<Header>()).cast::<Record>();
            &*first.add(index)
        }
    }

    /// Takes the insert lock. `recovered` tells that its last holder died
    /// holding it: the caller must repair what it may have left half done.
    pub fn lock(&self) -> Result<InsertGuard<'_>, SegmentError> {
        let mutex = self.header().insert_lock.get();
        // SAFETY: the mutex was initialised in `create` and stays mapped as
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
        // SAFETY: the mapping was made by `create` with this length, and
        // no reference into it outlives `self`.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_a_few_kib_and_aligned() {
        assert_eq!(size_of::<Record>() % 64, 0);
        assert!(size_of::<Record>() <= 8 * 1024, "{} bytes", size_of::<Record>());
    }

    #[test]
    fn capacity_follows_the_size() {
        let segment = Segment::create(1 << 20, 0.5).unwrap();
        assert_eq!(
            segment.capacity(),
            ((1 << 20) - size_of::<Header>()) / (size_of::<Record>() + size_of::<PrefixUsage>())
        );
        assert_eq!(segment.max_per_prefix(), segment.capacity() / 2);
        assert!(matches!(Segment::create(100, 0.5), Err(SegmentError::TooSmall { .. })));
        for share in [0.0, -0.1, 1.01, f64::NAN] {
            assert!(matches!(Segment::create(1 << 20, share), Err(SegmentError::Share(_))));
        }
    }

    #[test]
    fn the_lock_can_be_taken_again_once_released() {
        let segment = Segment::create(1 << 16, 0.5).unwrap();
        drop(segment.lock().unwrap());
        let guard = segment.lock().unwrap();
        assert!(!guard.recovered);
    }
}
