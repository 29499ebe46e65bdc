//! The bulkhead: at most so many calls of a circuit in flight at once,
//! counted across every process that shares a table (the workers of a
//! PHP-FPM pool inherit the anonymous mapping made at module startup), or
//! within one process (`InMemoryStorage`).
//!
//! A permit is a slot of the circuit's entry holding its owner's token (the
//! process id and its start time): taking one is a compare-and-set of an
//! empty slot among the first `limit`, so no more than `limit` are ever
//! held, and no counter exists that a process killed between two writes
//! could leave wrong. When every slot is taken, the slots of processes that
//! died (SIGKILL, `request_terminate_timeout`, a crash) or whose id now
//! belongs to another process are emptied, then the call tries once more.
//! Nothing is ever locked, so a dead process cannot leave a lock held.
//!
//! ```text
//! entry: | key | refusals | (6 words) | slot 0 | ... | slot MAX_CONCURRENT_CALLS - 1 |
//! ```

pub mod held;

use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use super::shm::SharedWords;
use super::sys;

/// The slots of an entry: the most calls a bulkhead lets in flight.
const MAX_CONCURRENT_CALLS: usize = crate::core::config::MAX_CONCURRENT_CALLS as usize;

/// The entries of the table shared by a pool: one per circuit that has a
/// bulkhead. Its pages are touched only as entries are used (an anonymous
/// mapping of 2.1 MB, of which a pool with a few bulkheads maps a few pages).
pub const SHARED_ENTRIES: usize = 1024;

/// The entries of a process's own table (`InMemoryStorage`).
pub const LOCAL_ENTRIES: usize = 64;

const KEY: usize = 0;
const REFUSALS: usize = 1;
/// The slots start on the entry's second cache line: taking a permit does
/// not write the line that every call reads to find the entry.
const FIRST_SLOT: usize = 8;
const ENTRY_WORDS: usize = FIRST_SLOT + MAX_CONCURRENT_CALLS;

#[derive(Debug, Error)]
pub enum TableError {
    #[error("cannot map {bytes} bytes of shared memory for the bulkheads: {source}")]
    Map { bytes: usize, source: std::io::Error },
}

/// Every slot of the first `limit` is held by a live process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full {
    pub limit: u16,
}

/// The place of a circuit's entry in its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryIndex(u32);

/// Where the words of a table live.
enum Memory {
    /// A `MAP_SHARED | MAP_ANONYMOUS` mapping: shared with the processes
    /// forked after it was made.
    Shared(SharedWords),
    /// This process's heap.
    Local(Box<[AtomicU64]>),
}

pub struct Table {
    entries: usize,
    memory: Memory,
    /// Where a name's search starts, by a hash keyed at random when the
    /// table is made (the processes forked after share it): no one can
    /// choose names that crowd out another's entry.
    keys: std::hash::RandomState,
}

impl Table {
    /// A table shared with every process forked after this call (the
    /// PHP-FPM master makes it at module startup). Its words start at zero,
    /// which is an empty key or slot.
    pub fn shared(entries: usize) -> Result<Self, TableError> {
        let words = SharedWords::new(entries * ENTRY_WORDS).map_err(|source| TableError::Map {
            bytes: entries * ENTRY_WORDS * size_of::<AtomicU64>(),
            source,
        })?;
        Ok(Self {
            entries,
            memory: Memory::Shared(words),
            keys: std::hash::RandomState::new(),
        })
    }

    /// A table of this process alone.
    pub fn local(entries: usize) -> Self {
        let words: Box<[AtomicU64]> = (0..entries * ENTRY_WORDS).map(|_| AtomicU64::new(0)).collect();
        Self {
            entries,
            memory: Memory::Local(words),
            keys: std::hash::RandomState::new(),
        }
    }

    /// Every word of the table, `entries * ENTRY_WORDS` of them.
    fn words(&self) -> &[AtomicU64] {
        match &self.memory {
            Memory::Shared(words) => words.words(),
            Memory::Local(words) => words,
        }
    }

    fn entry(&self, index: EntryIndex) -> &[AtomicU64] {
        let start = index.0 as usize * ENTRY_WORDS;
        &self.words()[start..start + ENTRY_WORDS]
    }

    /// The entry of `service`, made when it has none; `None` when the
    /// entries its search looks at all belong to other names.
    pub fn entry_of(&self, service: &[u8]) -> Option<EntryIndex> {
        self.search(service, true)
    }

    /// The entry of `service` if it has one, making none: the status view.
    pub fn find(&self, service: &[u8]) -> Option<EntryIndex> {
        self.search(service, false)
    }

    /// Looks at every entry before it gives up (the table full): each
    /// circuit is then unbounded, said in the log.
    fn search(&self, service: &[u8], make: bool) -> Option<EntryIndex> {
        use std::hash::BuildHasher;
        // Never 0, an empty entry.
        let key = self.keys.hash_one(service).max(1);
        let first = (key % self.entries as u64) as usize;
        for probe in 0..self.entries {
            let index = EntryIndex(((first + probe) % self.entries) as u32);
            let word = &self.entry(index)[KEY];
            match word.load(Ordering::Acquire) {
                found if found == key => return Some(index),
                0 if make => match word.compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => return Some(index),
                    Err(found) if found == key => return Some(index),
                    Err(_) => {}
                },
                0 => return None,
                _ => {}
            }
        }
        None
    }

    /// Takes one of the first `limit` slots of the entry for `owner`, and
    /// tells which; when all are held by live processes, counts a refusal.
    pub fn try_enter(&self, index: EntryIndex, limit: u16, owner: Owner) -> Result<u16, Full> {
        let slots = &self.entry(index)[FIRST_SLOT..FIRST_SLOT + usize::from(limit)];
        // Each process starts its search at its own place, so that processes
        // do not all write the first slot's cache line.
        let start = (owner.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % slots.len();
        for attempt in 0..2 {
            for offset in 0..slots.len() {
                let place = (start + offset) % slots.len();
                let slot = &slots[place];
                if slot.load(Ordering::Relaxed) == 0
                    && slot
                        .compare_exchange(0, owner.0, Ordering::AcqRel, Ordering::Relaxed)
                        .is_ok()
                {
                    return Ok(place as u16);
                }
            }
            if attempt == 0 && self.reclaim(index, owner) == 0 {
                break;
            }
        }
        self.entry(index)[REFUSALS].fetch_add(1, Ordering::Relaxed);
        Err(Full { limit })
    }

    /// Gives back the permit in `slot`. Only its owner's token is emptied:
    /// a slot reclaimed meanwhile (its owner was thought dead) and taken by
    /// another process stays theirs.
    pub fn leave(&self, index: EntryIndex, slot: u16, owner: Owner) {
        let _ = self.entry(index)[FIRST_SLOT + usize::from(slot)].compare_exchange(
            owner.0,
            0,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }

    /// Empties the slots held by processes that are gone; tells how many.
    fn reclaim(&self, index: EntryIndex, owner: Owner) -> usize {
        let mut reclaimed = 0;
        // The slots of one process are often many: ask about each token once.
        let mut last: Option<(u64, bool)> = None;
        for slot in &self.entry(index)[FIRST_SLOT..] {
            let token = slot.load(Ordering::Relaxed);
            if token == 0 || token == owner.0 {
                continue;
            }
            let alive = match last {
                Some((known, alive)) if known == token => alive,
                _ => {
                    let alive = Owner(token).is_alive();
                    last = Some((token, alive));
                    alive
                }
            };
            if !alive
                && slot
                    .compare_exchange(token, 0, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                reclaimed += 1;
            }
        }
        reclaimed
    }

    /// Empties the slots of the entry that `owner` holds: what a process
    /// still holds when its request is over.
    pub fn release_owned(&self, index: EntryIndex, owner: Owner) {
        for slot in &self.entry(index)[FIRST_SLOT..] {
            if slot.load(Ordering::Relaxed) == owner.0 {
                let _ = slot.compare_exchange(owner.0, 0, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
    }

    /// How many calls of the entry are in flight, once the permits of dead
    /// processes are given back (`owner`: this process).
    pub fn in_flight(&self, index: EntryIndex, owner: Owner) -> u32 {
        self.reclaim(index, owner);
        self.entry(index)[FIRST_SLOT..]
            .iter()
            .filter(|slot| slot.load(Ordering::Relaxed) != 0)
            .count() as u32
    }

    /// How many calls the entry refused since it was made.
    pub fn refusals(&self, index: EntryIndex) -> u64 {
        self.entry(index)[REFUSALS].load(Ordering::Relaxed)
    }

    /// Empties every slot and refusal count: a process's own table in a
    /// child just forked, which holds none of its parent's calls.
    pub fn clear(&self) {
        for word in self.words() {
            word.store(0, Ordering::Relaxed);
        }
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Table")
            .field("entries", &self.entries)
            .field("shared", &matches!(self.memory, Memory::Shared(_)))
            .finish()
    }
}

/// Who holds a permit: a process id in the high half, the low half of the
/// process's start time (clock ticks since boot) in the low half, so that a
/// process that got the id of a dead one is not taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner(pub u64);

/// This process's token, computed once per process (a child forked
/// computes its own: see `held::forked`).
static THIS_PROCESS: AtomicU64 = AtomicU64::new(0);

impl Owner {
    pub fn this_process() -> Self {
        match THIS_PROCESS.load(Ordering::Relaxed) {
            0 => {
                static WATCH_FORKS: std::sync::Once = std::sync::Once::new();
                WATCH_FORKS.call_once(|| sys::in_every_child(forked));
                let pid = std::process::id() as libc::pid_t;
                let token = Self::token(pid, process_start(pid).map_or(0, |(start, _)| start));
                THIS_PROCESS.store(token.0, Ordering::Relaxed);
                token
            }
            token => Self(token),
        }
    }

    fn token(pid: libc::pid_t, start: u64) -> Self {
        Self(((pid as u64) << 32) | (start & 0xFFFF_FFFF))
    }

    fn pid(self) -> libc::pid_t {
        (self.0 >> 32) as libc::pid_t
    }

    /// Whether the process that took the permit still runs: its id answers
    /// a signal 0, is no zombie, and started when the token says.
    fn is_alive(self) -> bool {
        let pid = self.pid();
        if !sys::process_exists(pid) {
            return false;
        }
        match process_start(pid) {
            Some((_, zombie)) if zombie => false,
            Some((start, _)) => Self::token(pid, start) == self,
            // No /proc to tell: the id answered, so take it for alive.
            None => true,
        }
    }
}

/// In a child just forked (a PHP-FPM worker, `pcntl_fork()`): the permits
/// held are the parent's, and so is the content of its own table; the
/// child computes its own token at its first permit.
extern "C" fn forked() {
    if let Some(local) = LOCAL.get() {
        local.clear();
    }
    THIS_PROCESS.store(0, Ordering::Relaxed);
}

static LOCAL: std::sync::OnceLock<Table> = std::sync::OnceLock::new();

/// This process's own table, made at its first use.
pub fn local_table() -> &'static Table {
    LOCAL.get_or_init(|| Table::local(LOCAL_ENTRIES))
}

/// When process `pid` started (field 22 of `/proc/PID/stat`) and whether it
/// is a zombie (killed, not yet reaped: it holds nothing any more).
fn process_start(pid: libc::pid_t) -> Option<(u64, bool)> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    // The name in parentheses may hold spaces and parentheses: the fields
    // go on after the last ')'.
    let after_name = &stat[stat.iter().rposition(|&byte| byte == b')')? + 1..];
    let mut fields = after_name
        .split(|byte| byte.is_ascii_whitespace())
        .filter(|field| !field.is_empty());
    let state = fields.next()?;
    // Fields 4 to 21 lie between the state (3) and the start time (22).
    let start = std::str::from_utf8(fields.nth(18)?).ok()?.parse().ok()?;
    Some((start, matches!(state, b"Z" | b"X")))
}

#[cfg(test)]
mod tests;
