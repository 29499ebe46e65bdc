//! What the hooks on ext/curl and on the `http://` wrapper ask of the HTTP
//! guard (`php::http`), as an interface the guard hands them when it
//! installs them: the engine's hooks then import nothing above the engine.
//! A transfer let through carries its ticket as a box: one allocation per
//! guarded transfer, nothing beside a network round trip.

use std::fmt::Display;
use std::sync::OnceLock;

use crate::core::duration::Millis;

/// A transfer let through, to be counted once it ends.
pub trait Ticket {
    /// Whether it is a half-open trial, whose time is capped.
    fn trial(&self) -> bool;
    /// How long a trial may last, in ms.
    fn probe_timeout_ms(&self) -> Millis;
    /// Counts its end: libcurl's `code` (0: done), the response `status`
    /// (0: none) and how long it took, when known.
    fn finish(self: Box<Self>, code: i64, status: u16, duration_ms: Option<Millis>);
}

/// What a hook may do with a transfer.
pub enum Admission {
    /// Not guarded: leave it alone.
    Unguarded,
    /// Let it go, and count its end with [`Ticket::finish`].
    Permitted(Box<dyn Ticket>),
    /// Refuse it: nothing may leave the machine. What a refused stream
    /// open warns.
    Refused(Box<dyn Display>),
}

/// The guard's answers.
pub struct Guard {
    /// Whether a transfer to the URL may go now.
    pub admit: fn(&[u8]) -> Admission,
    /// Whether the options a transfer sets up now are its caller's own
    /// (set while the caller's own breaker stands aside).
    pub standing_aside: fn() -> bool,
}

static GUARD: OnceLock<Guard> = OnceLock::new();

/// Hands the hooks the guard's answers, once per process.
pub fn register(guard: Guard) {
    let _ = GUARD.set(guard);
}

pub fn admit(url: &[u8]) -> Admission {
    match GUARD.get() {
        Some(guard) => (guard.admit)(url),
        None => Admission::Unguarded,
    }
}

pub fn standing_aside() -> bool {
    GUARD.get().is_some_and(|guard| (guard.standing_aside)())
}
