//! The counts of the buckets that are over, as a process read them, so that
//! recording an outcome reads only the buckets writers may still count in.
//!
//! A writer counts in the bucket of its own clock, so once a bucket is two
//! buckets old (two seconds at least) no writer counts in it unless its
//! clock is that late. A record reads the last [`FRESH_BUCKETS`] buckets,
//! and of the older ones those it does not know yet (all of them at its
//! first record, in a new generation, or when the window or the slots
//! change; those it missed after a pause): each is read once, when it is
//! over, and its counts kept until it leaves the window.
//!
//! Where the counts live is the storage's choice: in the worker, for a
//! storage that names what it reaches (Memcached: its servers), so that a
//! storage made per request reads each bucket once per worker; else in the
//! storage object (a userland storage, which nothing names).

use std::cell::RefCell;

use crate::core::window::WindowGeometry;
use crate::http::target::FastMap;

use crate::core::window::FRESH_BUCKETS;

/// How many circuits a memory holds at most (then it starts over):
/// forgetting one costs its next record a read of the whole window.
pub const MAX_CIRCUITS: usize = 4_096;

/// A position of the ring that holds no bucket: no instant is in it (a
/// bucket is at least a second, so `i64::MIN` is 292 billion years away).
const NO_BUCKET: i64 = i64::MIN;

/// A circuit's window in one generation: what counts are learned for.
#[derive(Clone, Copy)]
pub struct Counted<'a> {
    /// The circuit's name in the memory (the storage's choice).
    pub circuit: &'a [u8],
    pub window: WindowGeometry,
    pub slot_count: usize,
    pub generation: u64,
}

impl Counted<'_> {
    fn of(&self) -> (WindowGeometry, usize, u64) {
        (self.window, self.slot_count, self.generation)
    }
}

/// The finished buckets of one circuit.
struct Window {
    /// The window, slot count and generation the counts belong to.
    of: (WindowGeometry, usize, u64),
    /// By position in the ring of buckets (`WindowGeometry::ring_slot`):
    /// the bucket whose counts are held there, [`NO_BUCKET`] for none.
    buckets: Vec<i64>,
    /// `slot_count` counts per position.
    counts: Vec<u64>,
    /// The last plan made, and the bucket it was made in: the same until
    /// the next bucket, or until a bucket is learned.
    planned: Option<(i64, Plan)>,
}

/// Finished buckets by circuit, each circuit named by its storage's choice.
#[derive(Default)]
pub struct Finished {
    circuits: FastMap<Vec<u8>, Window>,
}

thread_local! {
    /// The worker's memory, for storages that name what they reach.
    static WORKER: RefCell<Finished> = RefCell::default();
}

/// Runs `use_it` on the worker's memory.
pub fn in_worker<T>(use_it: impl FnOnce(&mut Finished) -> T) -> T {
    WORKER.with_borrow_mut(use_it)
}

/// What a record reads: the buckets to read, oldest first, and the sums by
/// slot of the buckets known already.
#[derive(Clone)]
pub struct Plan {
    pub read: Vec<i64>,
    pub known: Vec<u64>,
}

impl Finished {
    /// What a record must read at `now`.
    pub fn plan(&mut self, counted: Counted<'_>, now: i64) -> Plan {
        let Counted { window, slot_count, .. } = counted;
        let covered = window.buckets_covering(now);
        let fresh_from = covered.end() - FRESH_BUCKETS + 1;
        let mut known = vec![0; slot_count];
        let Some(learned) = self
            .circuits
            .get_mut(counted.circuit)
            .filter(|learned| learned.of == counted.of())
        else {
            return Plan {
                read: covered.collect(),
                known,
            };
        };
        if let Some((bucket, plan)) = &learned.planned
            && bucket == covered.end()
        {
            return plan.clone();
        }
        let current = *covered.end();
        let mut read = Vec::with_capacity(FRESH_BUCKETS as usize);
        // The ring's positions follow the buckets, wrapping at its end.
        let mut position = window.ring_slot(*covered.start());
        for bucket in covered {
            if bucket >= fresh_from || learned.buckets[position] != bucket {
                read.push(bucket);
            } else {
                let counts = &learned.counts[position * slot_count..][..slot_count];
                for (sum, count) in known.iter_mut().zip(counts) {
                    *sum = sum.saturating_add(*count);
                }
            }
            position += 1;
            if position == learned.buckets.len() {
                position = 0;
            }
        }
        let plan = Plan { read, known };
        learned.planned = Some((current, plan.clone()));
        plan
    }

    /// Keeps the counts just read (`counts`: `slot_count` per bucket of
    /// `read`) of the buckets that are over at `now`.
    pub fn learn(&mut self, counted: Counted<'_>, now: i64, read: &[i64], counts: &[u64]) {
        let Counted { window, slot_count, .. } = counted;
        // Over: two buckets old at least.
        let over_before = window.bucket_at(now) - FRESH_BUCKETS + 2;
        if !read.iter().any(|&bucket| bucket < over_before) {
            return;
        }
        let of = counted.of();
        let ring_len = window.ring_len();
        let fresh = || Window {
            of,
            buckets: vec![NO_BUCKET; ring_len],
            counts: vec![0; ring_len * slot_count],
            planned: None,
        };
        let learned = match self.circuits.get_mut(counted.circuit) {
            Some(learned) => learned,
            None => {
                if self.circuits.len() >= MAX_CIRCUITS {
                    self.circuits.clear();
                }
                self.circuits.entry(counted.circuit.to_vec()).or_insert_with(fresh)
            }
        };
        if learned.of != of {
            *learned = fresh();
        }
        for (&bucket, bucket_counts) in read.iter().zip(counts.chunks(slot_count)) {
            if bucket < over_before {
                let position = window.ring_slot(bucket);
                if learned.buckets[position] != bucket {
                    // Known from now on: the next plan reads it no more.
                    learned.planned = None;
                }
                learned.buckets[position] = bucket;
                learned.counts[position * slot_count..][..slot_count].copy_from_slice(bucket_counts);
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.circuits.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(circuit: &[u8], slot_count: usize, generation: u64) -> Counted<'_> {
        Counted {
            circuit,
            window: WindowGeometry::new(10_000),
            slot_count,
            generation,
        }
    }

    #[test]
    fn a_record_reads_the_whole_window_once_then_the_last_buckets() {
        let mut memory = Finished::default();
        let now = 1_000_000; // bucket 1000; the window covers 990..=1000
        let plan = memory.plan(counted(b"c", 2, 7), now);
        assert_eq!(
            (plan.read, plan.known),
            ((990..=1000).collect(), vec![0, 0]),
            "nothing known yet"
        );
        let read: Vec<i64> = (990..=1000).collect();
        let counts: Vec<u64> = read.iter().flat_map(|&bucket| [bucket as u64 - 989, 1]).collect();
        memory.learn(counted(b"c", 2, 7), now, &read, &counts);
        let plan = memory.plan(counted(b"c", 2, 7), now);
        // 990..=997 are known: 1 + 2 + ... + 8 = 36 successes, 8 failures.
        assert_eq!((plan.read, plan.known), (vec![998, 999, 1000], vec![36, 8]));
        // At the next bucket, 998 is known (it was over when read), 990 left the window.
        let plan = memory.plan(counted(b"c", 2, 7), now + 1_000);
        assert_eq!(
            (plan.read, plan.known),
            (vec![999, 1000, 1001], vec![2 + 3 + 4 + 5 + 6 + 7 + 8 + 9, 8])
        );
        // Three buckets on, only 999 and 1000 are missing (read before they were over).
        let plan = memory.plan(counted(b"c", 2, 7), now + 3_000);
        assert_eq!(plan.read, vec![999, 1000, 1001, 1002, 1003]);
        assert_eq!(plan.known, vec![4 + 5 + 6 + 7 + 8 + 9, 6]);
        // Once read, they are known: the plan of that bucket reads them no more.
        memory.learn(counted(b"c", 2, 7), now + 3_000, &plan.read, &[1; 10]);
        let plan = memory.plan(counted(b"c", 2, 7), now + 3_000);
        assert_eq!(plan.read, vec![1001, 1002, 1003]);
        assert_eq!(plan.known, vec![4 + 5 + 6 + 7 + 8 + 9 + 1 + 1, 6 + 1 + 1]);
        assert_eq!(
            memory.plan(counted(b"c", 2, 8), now).read.len(),
            11,
            "another generation"
        );
        assert_eq!(memory.plan(counted(b"c", 3, 7), now).read.len(), 11, "other slots");
        assert_eq!(memory.plan(counted(b"d", 2, 7), now).read.len(), 11, "another circuit");
        // Much later, the positions of the ring hold older buckets, not
        // counted: only 1001, still in the window, is known.
        let plan = memory.plan(counted(b"c", 2, 7), now + 11_000);
        assert_eq!((plan.read.len(), plan.known), (10, vec![1, 1]));
        assert!(!plan.read.contains(&1001));
    }

    #[test]
    fn a_generation_learned_replaces_the_one_before() {
        let mut memory = Finished::default();
        let now = 1_000_000;
        let read: Vec<i64> = (990..=1000).collect();
        memory.learn(counted(b"c", 1, 7), now, &read, &[1; 11]);
        memory.learn(counted(b"c", 1, 8), now, &read, &[2; 11]);
        assert_eq!(memory.plan(counted(b"c", 1, 8), now).known, vec![16]);
        assert_eq!(memory.plan(counted(b"c", 1, 7), now).known, vec![0]);
    }

    #[test]
    fn a_memory_holds_a_bounded_number_of_circuits() {
        let mut memory = Finished::default();
        for index in 0..3 * MAX_CIRCUITS {
            memory.learn(counted(format!("c{index}").as_bytes(), 1, 0), 1_000_000, &[990], &[1]);
            assert!(memory.len() <= MAX_CIRCUITS);
        }
        // Only buckets writers may still count in read: nothing kept.
        let mut memory = Finished::default();
        memory.learn(counted(b"c", 1, 0), 1_000_000, &[999, 1000], &[1, 1]);
        assert_eq!(memory.len(), 0);
    }
}
