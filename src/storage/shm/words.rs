//! How values are packed into the 64-bit words of a record, so that every
//! change is one compare-and-set of one word.
//!
//! Counters and tallies carry a tag (the generation, and for counters the
//! bucket) beside their value: a word whose tag is older than the one a
//! writer wants is simply replaced, which rotates buckets and generations
//! without a separate reset that a killed process could leave half done.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};

// State word: [phase:2][forced:1][backoff:5][generation:14][time:42].
// `time` is the instant the state's semantics need: when it began, or for
// a forced state when it ends. 2^42 ms after 1970 is the year 2109.
//
// Info word: [generation:14][check:8][time:42], the other instant (when an
// open state ends as its opener computed it; when a forced state began),
// which only the status view reads. The winner of the compare-and-set of
// the state word writes it right after; a reader takes it only when its
// tag matches the state word, so a writer killed in between leaves an
// instant unknown, never a wrong one, and no decision depends on it.
const TIME_BITS: u32 = 42;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
const GENERATION_BITS: u32 = 14;
pub const GENERATION_MASK: u64 = (1 << GENERATION_BITS) - 1;
const BACKOFF_SHIFT: u32 = TIME_BITS + GENERATION_BITS;
const FORCED_BIT: u64 = 1 << 61;

fn instant(millis: Millis) -> u64 {
    (millis.max(0) as u64) & TIME_MASK
}

/// The state word of `state`. Equal states give equal words, which is all
/// a compare-and-set needs; the generation wraps.
pub fn encode_state(state: CircuitState) -> u64 {
    let phase = match state.phase {
        Phase::Closed => 0,
        Phase::Open => 1,
        Phase::HalfOpen => 2,
    };
    let time = if state.forced { state.until } else { state.since };
    (phase << 62)
        | if state.forced { FORCED_BIT } else { 0 }
        | ((u64::from(state.backoff) & 0x1F) << BACKOFF_SHIFT)
        | ((state.generation & GENERATION_MASK) << TIME_BITS)
        | instant(time)
}

/// The tag an info word carries for the state word `word`: its generation
/// and 8 bits of a hash of the whole word. An info word of another state
/// passes for this one only 2^14 transitions later and then once in 256.
fn info_tag(word: u64) -> u64 {
    (((word >> TIME_BITS) & GENERATION_MASK) << 8) | (word.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56)
}

/// The info word of `state`, to store once its state word is stored.
pub fn encode_info(state: CircuitState) -> u64 {
    let time = if state.forced { state.since } else { state.until };
    (info_tag(encode_state(state)) << TIME_BITS) | instant(time)
}

/// The state in `word`, with the instant of `info` when it belongs to it.
pub fn decode_state(word: u64, info: u64) -> CircuitState {
    let phase = match word >> 62 {
        1 => Phase::Open,
        2 => Phase::HalfOpen,
        _ => Phase::Closed,
    };
    let forced = word & FORCED_BIT != 0;
    let time = (word & TIME_MASK) as Millis;
    let other = if info >> TIME_BITS == info_tag(word) {
        (info & TIME_MASK) as Millis
    } else {
        0
    };
    let (since, until) = if forced { (other, time) } else { (time, other) };
    CircuitState {
        phase,
        generation: (word >> TIME_BITS) & GENERATION_MASK,
        since,
        until,
        backoff: ((word >> BACKOFF_SHIFT) & 0x1F) as u8,
        forced,
    }
}

/// Whether tag `stored` is a little ahead of `wanted` in a ring of
/// `2^bits` values: the writer is late and its value belongs to the past.
/// Far ahead means far behind after wrapping: an old tag, to replace.
fn is_ahead(stored: u64, wanted: u64, bits: u32, close: u64) -> bool {
    let distance = stored.wrapping_sub(wanted) & ((1 << bits) - 1);
    distance != 0 && distance < close
}

// Tally word: [generation:16][value:48], the generation of the state word (14 bits).
const TALLY_VALUE_BITS: u32 = 48;
const TALLY_VALUE_MASK: u64 = (1 << TALLY_VALUE_BITS) - 1;

fn tally_tag(word: u64) -> u64 {
    word >> TALLY_VALUE_BITS
}

fn tally(generation: u64, value: u64) -> u64 {
    ((generation & GENERATION_MASK) << TALLY_VALUE_BITS) | (value & TALLY_VALUE_MASK)
}

/// The value of a tally for `generation`, zero when the word holds another.
pub fn read_tally(word: &AtomicU64, generation: u64) -> u64 {
    let current = word.load(Ordering::Relaxed);
    if tally_tag(current) == generation & GENERATION_MASK {
        current & TALLY_VALUE_MASK
    } else {
        0
    }
}

/// Applies `change` to the tally of `generation` (zero when the word holds
/// an older one) and returns the new value; `None` when the word already
/// holds a newer generation.
pub fn update_tally(word: &AtomicU64, generation: u64, change: impl Fn(u64) -> u64) -> Option<u64> {
    let wanted = generation & GENERATION_MASK;
    let mut current = word.load(Ordering::Relaxed);
    loop {
        let tag = tally_tag(current);
        let value = if tag == wanted {
            current & TALLY_VALUE_MASK
        } else if is_ahead(tag, wanted, GENERATION_BITS, 256) {
            return None;
        } else {
            0
        };
        let next = change(value).min(TALLY_VALUE_MASK);
        match word.compare_exchange_weak(current, tally(wanted, next), Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return Some(next),
            Err(actual) => current = actual,
        }
    }
}

// Counter word: [generation:12][bucket:28][count:24]. Buckets wrap after
// 2^28 of them: 8.5 years of one-second buckets.
const COUNT_BITS: u32 = 24;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
const BUCKET_BITS: u32 = 28;
const BUCKET_MASK: u64 = (1 << BUCKET_BITS) - 1;
const COUNTER_GENERATION_MASK: u64 = 0xFFF;

/// The tag of the counters of one bucket in one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterTag(u64);

impl CounterTag {
    pub fn new(generation: u64, bucket: i64) -> Self {
        Self(((generation & COUNTER_GENERATION_MASK) << BUCKET_BITS) | (bucket as u64 & BUCKET_MASK))
    }
}

/// Whether a counter tagged `stored` was written by a writer ahead of one
/// that wants `wanted`: a newer generation, or a later bucket of the same
/// generation that evicted the wanted one from the ring.
fn counter_is_ahead(stored: u64, wanted: u64) -> bool {
    let (stored_generation, wanted_generation) = (stored >> BUCKET_BITS, wanted >> BUCKET_BITS);
    if stored_generation != wanted_generation {
        return is_ahead(stored_generation, wanted_generation, 12, 64);
    }
    is_ahead(stored & BUCKET_MASK, wanted & BUCKET_MASK, BUCKET_BITS, 1 << 20)
}

/// Counts one outcome in the counter of `bucket` and `generation`. An
/// outcome for a bucket already evicted by a later one is outside every
/// window that can still be read, and is dropped.
pub fn increment_counter(word: &AtomicU64, tag: CounterTag) {
    let wanted = tag.0;
    let mut current = word.load(Ordering::Relaxed);
    loop {
        let tag = current >> COUNT_BITS;
        let next = if tag == wanted {
            let count = current & COUNT_MASK;
            if count == COUNT_MASK {
                return; // saturated: 16 million outcomes in one bucket
            }
            current + 1
        } else if current != 0 && counter_is_ahead(tag, wanted) {
            return;
        } else {
            (wanted << COUNT_BITS) | 1
        };
        match word.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// The count of a counter for `tag`, zero when it holds another.
pub fn read_counter(word: &AtomicU64, tag: CounterTag) -> u64 {
    let current = word.load(Ordering::Relaxed);
    if current >> COUNT_BITS == tag.0 {
        current & COUNT_MASK
    } else {
        0
    }
}

// Key word: [hash:62][status:2].
pub const EMPTY: u64 = 0;
const CLAIMING: u64 = 1;
const READY: u64 = 2;

pub fn ready_key(hash: u64) -> u64 {
    (hash << 2) | READY
}

pub fn claiming_key(hash: u64) -> u64 {
    (hash << 2) | CLAIMING
}

pub fn is_claiming(key: u64) -> bool {
    key & 3 == CLAIMING
}

pub fn is_ready(key: u64) -> bool {
    key & 3 == READY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        let open = CircuitState {
            phase: Phase::Open,
            generation: 7,
            since: 1_764_000_000_123,
            until: 1_764_000_040_123,
            backoff: 2,
            forced: false,
        };
        for state in [
            CircuitState::INITIAL,
            open,
            CircuitState {
                phase: Phase::HalfOpen,
                generation: 16_383,
                since: 1,
                backoff: 31,
                ..CircuitState::INITIAL
            },
            CircuitState {
                phase: Phase::Closed,
                generation: 9,
                since: 1_764_000_000_000,
                until: 1_764_086_400_000,
                backoff: 0,
                forced: true,
            },
            CircuitState {
                phase: Phase::Open,
                forced: true,
                ..open
            },
        ] {
            assert_eq!(decode_state(encode_state(state), encode_info(state)), state);
        }
        // Generations wrap: equality is all a compare-and-set needs.
        let wrapped = CircuitState {
            phase: Phase::Closed,
            generation: 16_384,
            since: 5,
            ..CircuitState::INITIAL
        };
        assert_eq!(decode_state(encode_state(wrapped), 0).generation, 0);
        // The year 2100 still fits.
        let late = CircuitState {
            since: 4_102_444_800_000,
            ..open
        };
        assert_eq!(decode_state(encode_state(late), encode_info(late)), late);
    }

    #[test]
    fn an_info_word_of_another_state_is_not_read() {
        let open = CircuitState {
            phase: Phase::Open,
            generation: 7,
            since: 1_764_000_000_123,
            until: 1_764_000_040_123,
            ..CircuitState::INITIAL
        };
        let forced = CircuitState {
            generation: 8,
            forced: true,
            ..open
        };
        // The winner of the compare-and-set was killed before writing its
        // info word: the instant is unknown (0), everything else holds.
        let stale = encode_info(open);
        assert_eq!(
            decode_state(encode_state(forced), stale),
            CircuitState { since: 0, ..forced }
        );
        let reopened = CircuitState {
            generation: 7 + 16_384,
            since: open.since + 1,
            ..open
        };
        assert_eq!(decode_state(encode_state(reopened), stale).until, 0);
        assert_eq!(decode_state(encode_state(open), 0).until, 0);
    }

    #[test]
    fn tallies_reset_for_a_newer_generation_and_ignore_late_writers() {
        let word = AtomicU64::new(0);
        assert_eq!(update_tally(&word, 3, |v| v + 1), Some(1));
        assert_eq!(update_tally(&word, 3, |v| v + 1), Some(2));
        assert_eq!(read_tally(&word, 3), 2);
        assert_eq!(read_tally(&word, 4), 0);
        assert_eq!(update_tally(&word, 4, |v| v + 1), Some(1));
        assert_eq!(update_tally(&word, 3, |v| v + 1), None, "a late writer of generation 3");
        assert_eq!(read_tally(&word, 4), 1);
        assert_eq!(update_tally(&word, 4, |_| 0), Some(0));
        // A generation far behind after wrapping is old: replaced.
        let word = AtomicU64::new(tally(16_000, 9));
        assert_eq!(update_tally(&word, 2, |v| v + 1), Some(1));
    }

    #[test]
    fn counters_rotate_with_buckets_and_generations() {
        let word = AtomicU64::new(0);
        increment_counter(&word, CounterTag::new(0, 1_000));
        increment_counter(&word, CounterTag::new(0, 1_000));
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_000)), 2);
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_060)), 0);
        increment_counter(&word, CounterTag::new(0, 1_060)); // the ring came round: a new bucket
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_060)), 1);
        increment_counter(&word, CounterTag::new(0, 1_000)); // late: evicted already
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_060)), 1);
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_000)), 0);
        increment_counter(&word, CounterTag::new(1, 1_060)); // a new generation
        assert_eq!(read_counter(&word, CounterTag::new(1, 1_060)), 1);
        assert_eq!(read_counter(&word, CounterTag::new(0, 1_060)), 0);
        increment_counter(&word, CounterTag::new(0, 1_061)); // late generation
        assert_eq!(read_counter(&word, CounterTag::new(1, 1_060)), 1);
    }

    #[test]
    fn a_counter_idle_for_years_is_replaced_not_mistaken_for_a_later_one() {
        let word = AtomicU64::new(0);
        let now = 1_764_000_000;
        increment_counter(&word, CounterTag::new(0, now));
        // Half a wrap later (4 years of 1 s buckets): old, replaced.
        let later = now + (1 << 27);
        increment_counter(&word, CounterTag::new(0, later));
        assert_eq!(read_counter(&word, CounterTag::new(0, later)), 1);
    }

    #[test]
    fn counters_saturate() {
        let word = AtomicU64::new((CounterTag::new(0, 5).0 << COUNT_BITS) | COUNT_MASK);
        increment_counter(&word, CounterTag::new(0, 5));
        assert_eq!(read_counter(&word, CounterTag::new(0, 5)), COUNT_MASK);
    }

    #[test]
    fn keys_carry_their_status() {
        let hash = 0x1234_5678_9abc_def0 >> 2;
        assert!(is_ready(ready_key(hash)) && !is_claiming(ready_key(hash)));
        assert!(is_claiming(claiming_key(hash)));
        assert_ne!(ready_key(hash), EMPTY);
    }
}
