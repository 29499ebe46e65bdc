//! The text of a circuit's state, as the key-value storages (Memcached,
//! userland) and Redis store it: `<phase>:<generation>:<since>`, and
//! `:<until>:<backoff>:<forced>` when any of them is set.

use crate::core::config::MAX_BACKOFF_LEVEL;
use crate::core::duration::Millis;
use crate::core::machine::{CircuitState, Phase};

/// The text of a state: `<phase>:<generation>:<since>`, followed by
/// `:<until>:<backoff>:<forced>` when any of them is set (so a plain state
/// reads as before, and as the Redis scripts' default `0:0:0`).
pub fn encode_state(state: CircuitState) -> String {
    let phase = match state.phase {
        Phase::Closed => 0,
        Phase::Open => 1,
        Phase::HalfOpen => 2,
    };
    let plain = format!("{phase}:{}:{}", state.generation, state.since);
    if state.until == 0 && state.backoff == 0 && !state.forced {
        return plain;
    }
    format!("{plain}:{}:{}:{}", state.until, state.backoff, u8::from(state.forced))
}

/// Larger generations and instants are no state this storage wrote: taken
/// as garbage, so that the core's arithmetic on them cannot overflow.
pub const MAX_STATE_NUMBER: u64 = 1 << 53;

pub fn decode_state(encoded: &[u8]) -> Option<CircuitState> {
    let encoded = std::str::from_utf8(encoded).ok()?;
    let mut parts = encoded.split(':');
    let phase = match parts.next()? {
        "0" => Phase::Closed,
        "1" => Phase::Open,
        "2" => Phase::HalfOpen,
        _ => return None,
    };
    let generation: u64 = parts.next()?.parse().ok()?;
    let since: Millis = parts.next()?.parse().ok()?;
    let mut state = CircuitState {
        phase,
        generation,
        since,
        ..CircuitState::INITIAL
    };
    if let Some(until) = parts.next() {
        state.until = until.parse().ok()?;
        state.backoff = parts.next()?.parse().ok()?;
        state.forced = match parts.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
    }
    let sane = |number: i64| number.unsigned_abs() <= MAX_STATE_NUMBER;
    (parts.next().is_none()
        && generation <= MAX_STATE_NUMBER
        && sane(since)
        && sane(state.until)
        && state.backoff <= MAX_BACKOFF_LEVEL)
        .then_some(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_as_text() {
        for state in [
            CircuitState::INITIAL,
            CircuitState {
                phase: Phase::HalfOpen,
                generation: 123_456,
                since: 1_764_000_000_123,
                ..CircuitState::INITIAL
            },
            CircuitState {
                phase: Phase::Open,
                generation: 7,
                since: 1_764_000_000_123,
                until: 1_764_000_040_123,
                backoff: 2,
                forced: false,
            },
            CircuitState {
                phase: Phase::Closed,
                generation: 8,
                since: 1_764_000_000_123,
                until: 1_764_003_600_123,
                backoff: 0,
                forced: true,
            },
        ] {
            assert_eq!(decode_state(encode_state(state).as_bytes()), Some(state));
        }
        assert_eq!(encode_state(CircuitState::INITIAL), "0:0:0", "the scripts' default");
        assert_eq!(decode_state(b"garbage"), None);
        assert_eq!(decode_state(b"1:2:3:4"), None, "until without backoff and forced");
        assert_eq!(decode_state(b"1:2:3:4:0:2"), None);
        assert_eq!(decode_state(b"1:2:3:4:0:0:9"), None);
        assert_eq!(decode_state(b"1:2:3:4:32:0"), None, "a backoff level beyond any");
    }

    #[test]
    fn states_beyond_what_this_storage_writes_are_garbage() {
        assert_eq!(
            decode_state(b"1:9007199254740992:-9007199254740992"),
            Some(CircuitState {
                phase: Phase::Open,
                generation: MAX_STATE_NUMBER,
                since: -(MAX_STATE_NUMBER as Millis),
                ..CircuitState::INITIAL
            })
        );
        assert_eq!(decode_state(b"1:9007199254740993:0"), None);
        assert_eq!(decode_state(b"1:18446744073709551615:0"), None);
        assert_eq!(decode_state(b"2:7:9223372036854775807"), None);
        assert_eq!(decode_state(b"3:1:0"), None);
    }
}
