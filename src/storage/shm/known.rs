//! What a process remembers between calls, in its own memory: the names it
//! used and where their records are, and the sums of the past buckets of the
//! window it read last.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::table::Identity;
use super::words::CounterTag;
use crate::core::window::MAX_RING;

/// FxHash (as in rustc): the hash of this process's own cache only, where
/// SipHash would cost more than the rest of the call.
#[derive(Default)]
pub(super) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Names a process remembers at most; past that it starts over, so that a
/// process seeing endless new names keeps a bounded cache.
pub(super) const MAX_KNOWN: usize = 10_000;

/// What a process remembers of the names it used.
#[derive(Default)]
pub(super) struct Known {
    /// The stored name of the current call, built without allocating.
    pub(super) name: Vec<u8>,
    /// The last name used and its identity: most calls repeat it.
    pub(super) last: Option<(Vec<u8>, Identity)>,
    pub(super) names: HashMap<Vec<u8>, Identity, BuildHasherDefault<FxHasher>>,
    /// The tags of the last window read, which change once per bucket.
    pub(super) window_tags: Option<WindowTags>,
}

/// The tag each position of the ring holds when it is in the window:
/// position p holds the covered bucket congruent to p.
pub(super) struct WindowTags {
    pub(super) generation: u64,
    pub(super) now_bucket: i64,
    pub(super) ring: usize,
    pub(super) tags: [CounterTag; MAX_RING],
}

impl WindowTags {
    pub(super) fn new(generation: u64, now_bucket: i64, ring: usize, now_slot: usize) -> Self {
        let mut tags = [CounterTag::new(0, 0); MAX_RING];
        for (position, tag) in tags[..ring].iter_mut().enumerate() {
            // The age of the bucket at `position`, counted back from the
            // current one and wrapping once.
            let age = if position <= now_slot {
                now_slot - position
            } else {
                now_slot + ring - position
            };
            *tag = CounterTag::new(generation, now_bucket - age as i64);
        }
        Self {
            generation,
            now_bucket,
            ring,
            tags,
        }
    }
}

impl Known {
    /// The identity of `self.name`, and whether it was the last name used.
    pub(super) fn get(&self) -> (Option<Identity>, bool) {
        match &self.last {
            Some((name, identity)) if *name == self.name => (Some(*identity), true),
            _ => (self.names.get(self.name.as_slice()).copied(), false),
        }
    }

    pub(super) fn remember(&mut self, identity: Identity) {
        match &mut self.last {
            Some((name, last)) if *name == self.name => *last = identity,
            last => *last = Some((self.name.clone(), identity)),
        }
        match self.names.get_mut(self.name.as_slice()) {
            Some(remembered) => *remembered = identity,
            None => {
                if self.names.len() >= MAX_KNOWN {
                    self.names.clear();
                }
                self.names.insert(self.name.clone(), identity);
            }
        }
    }
}

thread_local! {
    pub(super) static KNOWN: RefCell<Known> = RefCell::default();
}
