//! Whose state wins when a fleet store answers a host's sync: a rule of the
//! fleet tier (`storage/fleet/`), kept here since a storage never decides.

use super::machine::{CircuitState, Phase};

/// What a host does with the state a fleet store answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconciled {
    /// The host takes the fleet's state.
    Follow,
    /// The store forgot what the host holds: the host writes this back.
    Restore(CircuitState),
}

/// Whether the fleet store went back: it answered an older generation than
/// the host last followed (`followed_generation`), which it does only when
/// it forgot the circuit (restarted empty, flushed, evicted).
pub fn forgot(fleet: CircuitState, followed_generation: u64) -> bool {
    fleet.generation < followed_generation
}

/// The state a host keeps after its fleet store answered `fleet`, the host
/// holding `local` and having last followed `followed_generation`.
///
/// A store that forgot the circuit answers closed, which no one decided: a
/// host holding something else (open, half-open, forced, typically decided
/// alone while the store was down) restores it, in a generation past any
/// the fleet had, rather than every host calling a service it has just
/// seen fail. A store that merely answered again (after a partition of this
/// host) has not gone back: the fleet's state wins, and a host that was cut
/// off does not impose what it decided alone on the fleet.
pub fn reconcile(local: CircuitState, fleet: CircuitState, followed_generation: u64) -> Reconciled {
    if !forgot(fleet, followed_generation) || (local.phase == Phase::Closed && !local.forced) {
        return Reconciled::Follow;
    }
    Reconciled::Restore(CircuitState {
        generation: followed_generation + 1,
        ..local
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_764_000_000_000;

    fn state(phase: Phase, generation: u64) -> CircuitState {
        CircuitState {
            phase,
            generation,
            since: T0,
            ..CircuitState::INITIAL
        }
    }

    #[test]
    fn a_store_at_or_past_the_followed_generation_is_followed_whatever_the_host_holds() {
        for local in [
            state(Phase::Open, 3),
            state(Phase::HalfOpen, 3),
            CircuitState {
                forced: true,
                ..state(Phase::Closed, 3)
            },
        ] {
            for fleet in [state(Phase::Closed, 7), state(Phase::Closed, 8), state(Phase::Open, 9)] {
                assert!(!forgot(fleet, 7));
                assert_eq!(reconcile(local, fleet, 7), Reconciled::Follow, "{local:?} {fleet:?}");
            }
        }
    }

    #[test]
    fn a_store_that_forgot_is_followed_by_a_host_that_is_plainly_closed() {
        let fleet = CircuitState::INITIAL;
        assert!(forgot(fleet, 7));
        assert_eq!(reconcile(state(Phase::Closed, 7), fleet, 7), Reconciled::Follow);
    }

    #[test]
    fn a_store_that_forgot_gets_back_what_the_host_holds_in_a_later_generation() {
        let fleet = state(Phase::Closed, 2);
        let forced_closed = CircuitState {
            forced: true,
            until: T0 + 60_000,
            ..state(Phase::Closed, 7)
        };
        let open = CircuitState {
            until: T0 + 5_000,
            backoff: 2,
            ..state(Phase::Open, 7)
        };
        let forced_open = CircuitState {
            forced: true,
            ..state(Phase::Open, 7)
        };
        for local in [open, state(Phase::HalfOpen, 7), forced_open, forced_closed] {
            assert_eq!(
                reconcile(local, fleet, 7),
                Reconciled::Restore(CircuitState { generation: 8, ..local }),
                "{local:?}"
            );
        }
    }

    #[test]
    fn the_restored_generation_follows_the_followed_one_not_the_host_word() {
        // The host's state word keeps 14 bits of generation: the restored
        // one is past the whole generation the host followed.
        let local = state(Phase::Open, 5);
        let followed = (1 << 14) + 5;
        assert_eq!(
            reconcile(local, CircuitState::INITIAL, followed),
            Reconciled::Restore(CircuitState {
                generation: followed + 1,
                ..local
            })
        );
    }
}
