//! The record of one outcome on Redis: one pipelined round trip of plain
//! commands that counts it and reads back the state and the window, and
//! the counts of a reply told from what another client wrote.

use redis::Value;

use super::batch::Batch;
use super::error::{oversized, refused_data, unexpected};
use super::keys::{ServiceKeys, push_decimal};
use super::{RedisStorage, memory};
use crate::core::counts::{Outcome, Tally};
use crate::core::machine::{CircuitState, Phase};
use crate::storage::codec::decode_state;
use crate::storage::{MAX_COUNT, OutcomeRecord, StorageError};

/// A count a breaker could have written.
fn count(value: &Value) -> Option<u64> {
    let count = match value {
        Value::Int(integer) => u64::try_from(*integer).ok()?,
        Value::BulkString(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok()?,
        _ => return None,
    };
    (count <= MAX_COUNT).then_some(count)
}

/// The counts of a reply to MGET: an absent counter is 0; `None` when one
/// holds no count a breaker writes (another client wrote it).
pub(super) fn counts(values: &[Value]) -> Option<Vec<u64>> {
    values
        .iter()
        .map(|value| match value {
            Value::Nil => Some(0),
            value => count(value),
        })
        .collect()
}

impl RedisStorage {
    /// Counts one outcome in the generation of `seen`, refreshes the times
    /// to live, and reads the state and the window: one round trip of plain
    /// commands (`memory.rs` tells which buckets are read).
    pub(super) fn count(
        &self,
        keys: &ServiceKeys,
        circuit: &[u8],
        seen: CircuitState,
        record: &OutcomeRecord,
    ) -> Result<(CircuitState, Tally), StorageError> {
        let generation = seen.generation;
        let (window, slot_count) = (record.window, record.slot_count);
        let bucket = window.bucket_at(record.now);
        let counter = keys.counter(bucket, generation, record.slot);
        // The counted keys other than the counter, built only when sent
        // (`counted`: all three, to repair them).
        let counted = || [counter.clone(), keys.outcomes(generation), keys.runs(generation)];
        let state_ttl_ms = record.state_ttl_ms.max(1);
        let (read, known) = memory::plan(circuit, window, slot_count, generation, record.now);
        // The keys read, written in place into the request; built again
        // only when a repair must name them.
        let read_keys = || -> Vec<Vec<u8>> {
            read.clone()
                .flat_map(|bucket| (0..slot_count).map(move |slot| (bucket, slot)))
                .map(|(bucket, slot)| keys.counter(bucket, generation, slot))
                .collect()
        };
        let due = memory::ttls_due(circuit, bucket, generation, record.slot);

        // Only the tallies, the state and the window answer; the tallies
        // are read from their increments.
        let mut pipeline = Batch::default();
        pipeline.cmd("INCR").arg(&counter).ignore();
        if due.counter {
            pipeline
                .cmd("PEXPIRE")
                .arg(&counter)
                .arg(window.counter_ttl_ms())
                .ignore();
        }
        let counts_outcomes = seen.phase == Phase::HalfOpen;
        if counts_outcomes {
            let outcomes = keys.outcomes(generation);
            pipeline.cmd("INCR").arg(&outcomes);
            pipeline.cmd("PEXPIRE").arg(&outcomes).arg(state_ttl_ms).ignore();
        }
        let counts_failures = record.counts_runs && record.outcome == Outcome::Failure;
        if counts_failures {
            let runs = keys.runs(generation);
            pipeline.cmd("INCR").arg(&runs);
            pipeline.cmd("PEXPIRE").arg(&runs).arg(state_ttl_ms).ignore();
        } else if record.counts_runs {
            let runs = keys.runs(generation);
            pipeline
                .cmd("SET")
                .arg(&runs)
                .arg(0)
                .arg("PX")
                .arg(state_ttl_ms)
                .ignore();
        }
        pipeline.cmd("HGET").arg(keys.state()).arg("s");
        if due.state && !seen.forced {
            // Keeps a stored state as long as its circuit is used (no-op
            // without one). GT never shortens it: the seen phase may be
            // late, and a forced state keeps the time its command gave it.
            pipeline
                .cmd("PEXPIRE")
                .arg(keys.state())
                .arg(record.state_ttl_ms_in(seen.phase).max(1))
                .arg("GT")
                .ignore();
        }
        pipeline.cmd("MGET");
        let mut prefix = Vec::with_capacity(counter.len());
        for bucket in read.clone() {
            prefix.clear();
            keys.write_counter_prefix(&mut prefix, bucket, generation);
            for slot in 0..slot_count {
                pipeline.arg_with(|key| {
                    key.extend_from_slice(&prefix);
                    push_decimal(key, slot as u64);
                });
            }
        }
        let replies: Vec<Value> = self.try_batch(keys, &pipeline).map_err(|error| {
            if refused_data(&error) || oversized(&error) {
                let read: Vec<Vec<u8>> = counted().into_iter().chain(read_keys()).collect();
                self.heal(keys, None, &read)
            } else {
                self.storage_error("record", error)
            }
        })?;
        memory::ttls_given(circuit, bucket, generation, record.slot, due);
        let invalid = || unexpected("the record's commands");
        let mut replies = replies.iter();
        // A tally that is no count a breaker writes (negative, or beyond
        // any) is another client's: repaired like a counter without a number.
        let mut tally = |counted: bool| match counted {
            true => match replies.next() {
                Some(value @ Value::Int(_)) => Ok(count(value)),
                _ => Err(invalid()),
            },
            false => Ok(Some(0)),
        };
        let generation_outcomes = tally(counts_outcomes)?;
        let consecutive_failures = tally(counts_failures)?;
        let (Some(generation_outcomes), Some(consecutive_failures)) = (generation_outcomes, consecutive_failures)
        else {
            return Err(self.heal(keys, None, &counted()));
        };
        let (Some(state), Some(Value::Array(values)), None) = (replies.next(), replies.next(), replies.next()) else {
            return Err(invalid());
        };
        let state = match state {
            Value::Nil => CircuitState::INITIAL,
            Value::BulkString(state) => decode_state(state).ok_or_else(|| self.heal(keys, Some(state), &[]))?,
            _ => return Err(invalid()),
        };
        let Some(values) = counts(values) else {
            return Err(self.heal(keys, None, &read_keys()));
        };
        if state.generation == generation {
            memory::learn(
                circuit,
                window,
                slot_count,
                generation,
                record.now,
                *read.start(),
                &values,
            );
        }
        let mut sums = known;
        for bucket in values.chunks(slot_count) {
            for (sum, count) in sums.iter_mut().zip(bucket) {
                *sum = sum.saturating_add(*count);
            }
        }
        let tally = Tally {
            generation_outcomes,
            consecutive_failures,
            window: sums.into(),
        };
        Ok((state, tally))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_another_client_wrote_are_told_from_numbers() {
        let bulk = |text: &str| Value::BulkString(text.as_bytes().to_vec());
        assert_eq!(counts(&[bulk("3"), Value::Nil, Value::Int(4)]), Some(vec![3, 0, 4]));
        assert_eq!(counts(&[bulk("3"), bulk("junk")]), None);
        assert_eq!(counts(&[bulk("-1")]), None);
        assert_eq!(counts(&[Value::Int(-1)]), None);
        assert_eq!(counts(&[bulk("9007199254740992")]), Some(vec![MAX_COUNT]));
        assert_eq!(counts(&[bulk("9007199254740993")]), None, "beyond any count");
        assert_eq!(counts(&[Value::Int(i64::MAX)]), None);
    }
}
