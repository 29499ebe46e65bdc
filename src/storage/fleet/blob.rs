//! A host's window as the fleet store keeps it: one short text per host and
//! generation, `<run>;<bucket>:<count>,<count>...;<bucket>:...` (buckets
//! with a count only, every slot of them). Text, so that an operator
//! reading the store sees what it is; a few dozen bytes for a busy window.

/// A host's window of one generation: its counts bucket by bucket and its
/// run of failures when it sent it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostCounts {
    pub run: u64,
    pub buckets: Vec<(i64, Vec<u64>)>,
}

pub fn encode(counts: &HostCounts) -> Vec<u8> {
    use std::fmt::Write;
    let mut text = counts.run.to_string();
    for (bucket, slots) in &counts.buckets {
        let _ = write!(text, ";{bucket}:");
        for (index, count) in slots.iter().enumerate() {
            if index > 0 {
                text.push(',');
            }
            let _ = write!(text, "{count}");
        }
    }
    text.into_bytes()
}

/// `None` for a text this module did not write (another client's).
pub fn decode(bytes: &[u8]) -> Option<HostCounts> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut parts = text.split(';');
    let run = parts.next()?.parse().ok()?;
    let buckets = parts
        .map(|part| {
            let (bucket, slots) = part.split_once(':')?;
            let slots = slots
                .split(',')
                .map(|count| count.parse().ok())
                .collect::<Option<Vec<u64>>>()?;
            Some((bucket.parse().ok()?, slots))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(HostCounts { run, buckets })
}

/// The sums by slot of the windows of `hosts` over the buckets `covering`,
/// and their longest run of failures. A window that does not decode counts
/// nothing: one host's garbage must not stop the others' counts.
pub fn sum<'a>(
    hosts: impl IntoIterator<Item = &'a [u8]>,
    covering: std::ops::RangeInclusive<i64>,
    slot_count: usize,
) -> (Vec<u64>, u64) {
    let mut sums = vec![0; slot_count];
    let mut run = 0;
    for counts in hosts.into_iter().filter_map(decode) {
        run = run.max(counts.run);
        for (_, slots) in counts.buckets.iter().filter(|(bucket, _)| covering.contains(bucket)) {
            for (sum, count) in sums.iter_mut().zip(slots) {
                *sum += count;
            }
        }
    }
    (sums, run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_round_trip_as_text() {
        for counts in [
            HostCounts::default(),
            HostCounts {
                run: 7,
                buckets: vec![(29_400_001, vec![3, 0, 1, 2]), (29_400_003, vec![0, 9, 0, 0])],
            },
        ] {
            assert_eq!(decode(&encode(&counts)), Some(counts));
        }
        assert_eq!(encode(&HostCounts::default()), b"0");
        assert_eq!(decode(b"garbage"), None);
        assert_eq!(decode(b"1;2:x"), None);
        assert_eq!(decode(b"1;2"), None);
    }

    #[test]
    fn sums_cover_the_window_only_and_take_the_longest_run() {
        let first = encode(&HostCounts {
            run: 2,
            buckets: vec![(10, vec![1, 1]), (20, vec![5, 0])],
        });
        let second = encode(&HostCounts {
            run: 5,
            buckets: vec![(20, vec![0, 3]), (31, vec![100, 100])],
        });
        let (sums, run) = sum([first.as_slice(), second.as_slice(), b"junk"], 11..=30, 2);
        assert_eq!(sums, vec![5, 3], "bucket 10 and 31 are outside");
        assert_eq!(run, 5);
    }
}
