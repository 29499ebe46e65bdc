//! What a process remembers of each circuit it counts in Redis, so that
//! recording an outcome is a few plain commands in one round trip:
//!
//! - the state it last saw: it counts in that generation, and reads the
//!   state in the same round trip (counting again in the current one when
//!   it moved on);
//! - the counts of the buckets that are over. A writer counts in the bucket
//!   of its own clock, so once a bucket is two buckets old (two seconds at
//!   least) no writer counts in it unless its clock is that late: a record
//!   reads only the last `FRESH_BUCKETS` buckets, and takes the older ones
//!   from what it read when they were over. A process that has not read
//!   them (its first call, a new generation, a pause) reads the whole
//!   window once;
//! - which keys it gave their time to live in the current bucket: a counter
//!   gets it at the first write of each process (a bucket's counter lives
//!   only through its window), the state at the first record of each
//!   bucket (its time to live is far longer than a bucket).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::http::target::FastMap;
use std::ops::RangeInclusive;

use crate::core::machine::CircuitState;
use crate::core::window::WindowGeometry;

use crate::core::window::FRESH_BUCKETS;

/// How many circuits a process remembers at most: forgetting one costs its
/// next record a read of the whole window.
const MAX_CIRCUITS: usize = 4_096;

#[derive(Default)]
struct Circuit {
    seen: Option<CircuitState>,
    /// The window and generation the finished counts belong to.
    counted: Option<(WindowGeometry, usize, u64)>,
    /// Counts of buckets that were over when read, by bucket: in order, so
    /// that a record sums the older buckets of its window in one pass.
    finished: BTreeMap<i64, Vec<u64>>,
    /// The sums of `finished` over the buckets `start..end`, the last
    /// ones planned (`start`, `end`, sums): a record in the same bucket as
    /// the one before sums nothing. Dropped whenever `finished` changes.
    summed: Option<(i64, i64, Vec<u64>)>,
    /// The bucket and generation of the counters given a time to live, the
    /// slots of those counters, and whether the state was given one.
    ttl_given: Option<(i64, u64, Vec<usize>, bool)>,
}

/// Which keys of a record must be given their time to live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlsDue {
    pub counter: bool,
    pub state: bool,
}

pub fn ttls_due(name: &[u8], bucket: i64, generation: u64, slot: usize) -> TtlsDue {
    CIRCUITS.with_borrow(
        |circuits| match circuits.get(name).and_then(|circuit| circuit.ttl_given.as_ref()) {
            Some((given_bucket, given_generation, slots, state)) if *given_bucket == bucket => TtlsDue {
                counter: *given_generation != generation || !slots.contains(&slot),
                state: !state,
            },
            _ => TtlsDue {
                counter: true,
                state: true,
            },
        },
    )
}

/// The keys of `due` got their time to live, in a round trip that succeeded.
pub fn ttls_given(name: &[u8], bucket: i64, generation: u64, slot: usize, due: TtlsDue) {
    with_circuit(name, |circuit| {
        let given = match circuit.ttl_given.take() {
            Some((given_bucket, given_generation, slots, state))
                if given_bucket == bucket && given_generation == generation =>
            {
                (given_bucket, given_generation, slots, state)
            }
            _ => (bucket, generation, Vec::new(), false),
        };
        let (bucket, generation, mut slots, mut state) = given;
        if due.counter && !slots.contains(&slot) {
            slots.push(slot);
        }
        state |= due.state;
        circuit.ttl_given = Some((bucket, generation, slots, state));
    });
}

thread_local! {
    /// Looked up at every call: a fast hash (the map is bounded by
    /// `MAX_CIRCUITS`, so no name can make it slow for long).
    static CIRCUITS: RefCell<FastMap<Vec<u8>, Circuit>> = RefCell::default();
}

/// The name of a circuit in this memory: its storage (whatever makes two
/// storage objects see the same data) and its state key (prefix and
/// service).
pub fn circuit(target_key: &str, state_key: &[u8]) -> Vec<u8> {
    let mut name = Vec::with_capacity(target_key.len() + 1 + state_key.len());
    name.extend_from_slice(target_key.as_bytes());
    // A target key is text with no NUL: the two parts stay apart.
    name.push(0);
    name.extend_from_slice(state_key);
    name
}

fn with_circuit<T>(name: &[u8], use_it: impl FnOnce(&mut Circuit) -> T) -> T {
    CIRCUITS.with_borrow_mut(|circuits| {
        if let Some(circuit) = circuits.get_mut(name) {
            return use_it(circuit);
        }
        if circuits.len() >= MAX_CIRCUITS {
            circuits.clear();
        }
        use_it(circuits.entry(name.to_vec()).or_default())
    })
}

pub fn seen(name: &[u8]) -> Option<CircuitState> {
    CIRCUITS.with_borrow(|circuits| circuits.get(name).and_then(|circuit| circuit.seen))
}

pub fn saw(name: &[u8], state: CircuitState) {
    with_circuit(name, |circuit| circuit.seen = Some(state));
}

/// What a record must read at `now`: the buckets to read, and the sums of
/// the older ones known already (counts of `slot_count` slots).
pub fn plan(
    name: &[u8],
    window: WindowGeometry,
    slot_count: usize,
    generation: u64,
    now: i64,
) -> (RangeInclusive<i64>, Vec<u64>) {
    let covered = window.buckets_covering(now);
    let fresh_from = (covered.end() - FRESH_BUCKETS + 1).max(*covered.start());
    let known = CIRCUITS.with_borrow_mut(|circuits| {
        let circuit = circuits.get_mut(name)?;
        if circuit.counted != Some((window, slot_count, generation)) {
            return None;
        }
        if let Some((start, end, sums)) = &circuit.summed
            && (*start, *end) == (*covered.start(), fresh_from)
        {
            return Some(sums.clone());
        }
        let mut sums = vec![0; slot_count];
        let mut found = 0;
        for counts in circuit
            .finished
            .range(*covered.start()..fresh_from)
            .map(|(_, counts)| counts)
        {
            for (sum, count) in sums.iter_mut().zip(counts) {
                *sum += count;
            }
            found += 1;
        }
        // Every older bucket must be known.
        if found != fresh_from - covered.start() {
            return None;
        }
        circuit.summed = Some((*covered.start(), fresh_from, sums.clone()));
        Some(sums)
    });
    match known {
        Some(sums) => (fresh_from..=*covered.end(), sums),
        None => (covered, vec![0; slot_count]),
    }
}

/// Keeps the counts just read (`counts`: `slot_count` of bucket `first`, then
/// of each bucket after it) of the
/// buckets that are over at `now`, and forgets those out of the window.
pub fn learn(
    name: &[u8],
    window: WindowGeometry,
    slot_count: usize,
    generation: u64,
    now: i64,
    first: i64,
    counts: &[u64],
) {
    let covered = window.buckets_covering(now);
    let over_before = covered.end() - FRESH_BUCKETS + 2;
    with_circuit(name, |circuit| {
        let counted = Some((window, slot_count, generation));
        if circuit.counted != counted {
            circuit.counted = counted;
            circuit.finished.clear();
            circuit.summed = None;
        }
        // The buckets out of the window go first (the map is in order), and
        // a bucket known already with the same counts is left as it is.
        while circuit
            .finished
            .first_key_value()
            .is_some_and(|(bucket, _)| bucket < covered.start())
        {
            circuit.finished.pop_first();
            circuit.summed = None;
        }
        while circuit
            .finished
            .last_key_value()
            .is_some_and(|(bucket, _)| bucket > covered.end())
        {
            circuit.finished.pop_last();
            circuit.summed = None;
        }
        for (bucket, bucket_counts) in (first..).zip(counts.chunks(slot_count.max(1))) {
            if bucket < over_before && circuit.finished.get(&bucket).map(Vec::as_slice) != Some(bucket_counts) {
                circuit.finished.insert(bucket, bucket_counts.to_vec());
                circuit.summed = None;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_the_whole_window_once_then_the_last_buckets() {
        let window = WindowGeometry::new(10_000);
        let name = circuit("test", b"cb:{memory}:s");
        let now = 1_000_000; // bucket 1000; the window covers 990..=1000
        let (read, known) = plan(&name, window, 2, 7, now);
        assert_eq!((read, known), (990..=1000, vec![0, 0]), "nothing known yet");
        let counts: Vec<u64> = (990..=1000).flat_map(|bucket| [bucket as u64 - 989, 1]).collect();
        learn(&name, window, 2, 7, now, 990, &counts);
        let (read, known) = plan(&name, window, 2, 7, now);
        // 990..=997 are known: 1 + 2 + ... + 8 = 36 successes, 8 failures.
        assert_eq!((read, known), (998..=1000, vec![36, 8]));
        // At the next bucket, 998 is known (it was over when read): 2 + ... + 9.
        assert_eq!(plan(&name, window, 2, 7, now + 1_000), (999..=1001, vec![44, 8]));
        // Two buckets on, 999 and 1000 were read before they were over.
        assert_eq!(plan(&name, window, 2, 7, now + 3_000), (993..=1003, vec![0, 0]));
        assert_eq!(plan(&name, window, 2, 8, now).0, 990..=1000, "another generation");
        assert_eq!(plan(&name, window, 3, 7, now).0, 990..=1000, "other slots");
    }

    #[test]
    fn times_to_live_are_given_once_per_bucket() {
        let name = circuit("test", b"cb:{ttl}:s");
        let all = TtlsDue {
            counter: true,
            state: true,
        };
        assert_eq!(ttls_due(&name, 100, 1, 0), all);
        ttls_given(&name, 100, 1, 0, all);
        let none = TtlsDue {
            counter: false,
            state: false,
        };
        assert_eq!(ttls_due(&name, 100, 1, 0), none);
        let counter_only = TtlsDue {
            counter: true,
            state: false,
        };
        assert_eq!(ttls_due(&name, 100, 1, 1), counter_only, "another slot");
        assert_eq!(ttls_due(&name, 100, 2, 0), counter_only, "another generation");
        assert_eq!(ttls_due(&name, 101, 1, 0), all, "the next bucket");
        ttls_given(&name, 100, 2, 0, counter_only);
        assert_eq!(
            ttls_due(&name, 100, 2, 0),
            TtlsDue {
                counter: false,
                state: true
            },
            "the state again in a new generation"
        );
    }

    #[test]
    fn the_seen_state_is_kept_per_circuit() {
        let (one, other) = (circuit("a", b"s"), circuit("a\0s", b""));
        assert_ne!(one, other);
        saw(&one, CircuitState::INITIAL);
        assert_eq!(seen(&one), Some(CircuitState::INITIAL));
        assert_eq!(seen(&circuit("b", b"s")), None);
    }
}
