//! What a process remembers between calls, in its own memory: the names it
//! used and where their records are, and the sums of the past buckets of the
//! window it read last.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::SLOTS;
use super::table::Identity;

/// FxHash (as in rustc) with a final mixing: the hash of this process's own
/// cache only, where SipHash would cost more than the rest of the call.
/// Without the mixing, the low bits a hash table indexes by depend only on
/// the last words of a name, and names differing only after their first
/// bytes share them.
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
        // MurmurHash3's fmix64: every bit of the state reaches every bit.
        let mut hash = self.0;
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        hash ^ (hash >> 33)
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
    /// The last name used and its identity: most calls repeat it. The name's
    /// buffer is reused, so switching names does not allocate.
    pub(super) last_name: Vec<u8>,
    pub(super) last: Option<Identity>,
    pub(super) names: HashMap<Vec<u8>, Identity, BuildHasherDefault<FxHasher>>,
    /// The past sums of each record this process counted in, by record
    /// index: at most one entry per record of the segment.
    past: Vec<PastSums>,
}

/// What the sums of the past buckets of a window were computed for: a
/// record (of one segment, with the tags of one name), one generation of its
/// state, the current bucket, and the shape of the window.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub(super) struct PastKey {
    pub(super) segment: usize,
    pub(super) check: u64,
    pub(super) generation: u64,
    pub(super) now_bucket: i64,
    pub(super) ring: u32,
    pub(super) slot_count: u32,
}

/// The sums of the buckets of a window before the current one, per slot.
/// Not aligned to a cache line: it lives inside PHP objects too, which PHP
/// allocates 8-byte aligned. The key first, then the sums: a call reads
/// the key and the first slots, 40 + 16 bytes with two slots.
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub struct PastSums {
    pub(super) key: PastKey,
    pub(super) sums: [u64; SLOTS],
}

impl Known {
    /// The past sums of the record at `index` for `key`, computed by
    /// `compute` when this process has none for it: once per bucket, per
    /// generation and per record. An outcome counted in a past bucket after
    /// that (by a process whose call began in it a moment earlier) is seen
    /// from the next bucket on.
    pub(super) fn past_sums(&mut self, index: usize, key: PastKey, compute: impl FnOnce(&mut [u64])) -> &PastSums {
        if index >= self.past.len() {
            self.past.resize(index + 1, PastSums::default());
        }
        let entry = &mut self.past[index];
        if entry.key != key {
            entry.key = key;
            compute(&mut entry.sums[..key.slot_count as usize]);
        }
        entry
    }

    /// The identity of `self.name`, and whether it was the last name used.
    pub(super) fn get(&self) -> (Option<Identity>, bool) {
        match self.last {
            Some(identity) if self.last_name == self.name => (Some(identity), true),
            _ => (self.names.get(self.name.as_slice()).copied(), false),
        }
    }

    pub(super) fn remember(&mut self, identity: Identity) {
        if self.last.is_none() || self.last_name != self.name {
            self.last_name.clear();
            self.last_name.extend_from_slice(&self.name);
        }
        self.last = Some(identity);
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
