//! The system's clocks read with one vDSO call (`clock_gettime`):
//! `SystemTime` costs several times more in arithmetic than the read
//! itself, on every protected call.

/// The time of `clock` (`CLOCK_REALTIME`, `CLOCK_REALTIME_COARSE`...).
#[inline]
pub fn clock_time(clock: libc::clockid_t) -> libc::timespec {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(clock, &mut now) };
    now
}
