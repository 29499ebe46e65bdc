//! Host names of the network storages, resolved within the deadline of the
//! call that needs them.
//!
//! `getaddrinfo` has no timeout of its own: with a DNS server that does not
//! answer it waits for the resolver's (5 s, times its attempts, by default),
//! and a storage whose calls are bounded to 50 ms would hold every worker
//! that long. A name is therefore resolved by a thread of its own while the
//! call waits at most until its deadline; a late answer is kept for the
//! next call. Answers are kept for a while, and a stale answer serves while
//! a fresh one is asked for, so a DNS outage costs no call its time.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

/// How long an answer is used before it is asked for again.
const FRESH_FOR: Duration = Duration::from_secs(30);

/// How long a failed resolution is remembered: calls meanwhile fail at once.
const FAILURE_KEPT_FOR: Duration = Duration::from_secs(1);

/// How long a stale answer may still serve while the resolver does not
/// answer: a name that changed address is then found at the next answer.
const STALE_SERVES_FOR: Duration = Duration::from_secs(3_600);

#[derive(Default)]
struct Entry {
    /// The last answer: the addresses, or why there are none.
    answer: Option<(Result<Vec<SocketAddr>, String>, Instant)>,
    /// The process whose thread is resolving the name now: a forked child
    /// inherits the flag, not the thread.
    resolving_in: Option<u32>,
}

#[derive(Default)]
struct Names {
    entries: Mutex<HashMap<(String, u16), Entry>>,
    answered: Condvar,
}

fn names() -> &'static Arc<Names> {
    static NAMES: std::sync::OnceLock<Arc<Names>> = std::sync::OnceLock::new();
    NAMES.get_or_init(Arc::default)
}

fn timed_out(host: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("resolving {host} took longer than the call may: the answer is awaited in the background"),
    )
}

/// Takes the lock without blocking past `deadline`: a process forked while
/// another thread held it inherits it locked, with no owner to release it.
fn lock_until<'a>(
    names: &'a Names,
    host: &str,
    deadline: Instant,
) -> io::Result<MutexGuard<'a, HashMap<(String, u16), Entry>>> {
    loop {
        match names.entries.try_lock() {
            Ok(guard) => return Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => return Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_micros(200));
            }
            Err(TryLockError::WouldBlock) => return Err(timed_out(host)),
        }
    }
}

/// The addresses of `host`:`port`, within `deadline`. An address literal
/// (`127.0.0.1`, `::1`, `[::1]`) is taken as it is.
pub fn resolve(host: &str, port: u16, deadline: Instant) -> io::Result<Vec<SocketAddr>> {
    resolve_in(names(), host, port, deadline)
}

/// [`resolve`] with the answers kept in `names`: the process's cache, or a
/// test's own (tests run in parallel, and one test's resolver thread holding
/// the shared lock made another's call with a passed deadline time out).
fn resolve_in(names: &Arc<Names>, host: &str, port: u16, deadline: Instant) -> io::Result<Vec<SocketAddr>> {
    let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if let Ok(ip) = literal.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let key = (host.to_owned(), port);
    let pid = std::process::id();
    let mut entries = lock_until(names, host, deadline)?;
    let entry = entries.entry(key.clone()).or_default();
    let kept_for = |answer: &Result<Vec<SocketAddr>, String>| {
        if answer.is_ok() { FRESH_FOR } else { FAILURE_KEPT_FOR }
    };
    if let Some((answer, at)) = &entry.answer
        && at.elapsed() < kept_for(answer)
    {
        return answer.clone().map_err(io::Error::other);
    }
    let stale = match &entry.answer {
        Some((Ok(addresses), at)) if at.elapsed() < STALE_SERVES_FOR => Some(addresses.clone()),
        _ => None,
    };
    if entry.resolving_in != Some(pid) {
        entry.resolving_in = Some(pid);
        let (names, key) = (Arc::clone(names), key.clone());
        let spawned = std::thread::Builder::new().name("cb-resolve".into()).spawn(move || {
            let answer = (key.0.as_str(), key.1)
                .to_socket_addrs()
                .map(Iterator::collect::<Vec<_>>)
                .map_err(|error| format!("{} does not resolve: {error}", key.0));
            let mut entries = names.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let entry = entries.entry(key).or_default();
            entry.answer = Some((answer, Instant::now()));
            entry.resolving_in = None;
            names.answered.notify_all();
        });
        if let Err(error) = spawned {
            entry.resolving_in = None;
            return Err(error);
        }
    }
    if let Some(addresses) = stale {
        return Ok(addresses);
    }
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out(host));
        }
        entries = names
            .answered
            .wait_timeout(entries, left)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
        if let Some(entry) = entries.get(&key)
            && entry.resolving_in.is_none()
            && let Some((answer, _)) = &entry.answer
        {
            return answer.clone().map_err(io::Error::other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every test has a cache of its own: none shares a lock or an answer
    /// with another running beside it.
    fn resolve(host: &str, port: u16, deadline: Instant) -> io::Result<Vec<SocketAddr>> {
        thread_local! {
            static NAMES: Arc<Names> = Arc::default();
        }
        NAMES.with(|names| resolve_in(names, host, port, deadline))
    }

    #[test]
    fn address_literals_are_not_resolved() {
        let deadline = Instant::now();
        assert_eq!(
            resolve("127.0.0.1", 6379, deadline).unwrap(),
            vec!["127.0.0.1:6379".parse().unwrap()]
        );
        assert_eq!(
            resolve("[::1]", 11211, deadline).unwrap(),
            vec!["[::1]:11211".parse().unwrap()]
        );
        assert_eq!(resolve("::1", 1, deadline).unwrap(), vec!["[::1]:1".parse().unwrap()]);
    }

    /// The race of parallel tests on the process's cache, reproduced: while
    /// another name's resolution holds that lock, a call with a passed
    /// deadline still gets an answer kept in its own cache.
    #[test]
    fn a_kept_answer_does_not_wait_for_the_process_cache() {
        let mine = Arc::default();
        let first = resolve_in(&mine, "localhost", 6380, Instant::now() + Duration::from_secs(10)).unwrap();
        let busy = names()
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert_eq!(resolve_in(&mine, "localhost", 6380, Instant::now()).unwrap(), first);
        drop(busy);
    }

    #[test]
    fn names_resolve_and_the_answer_is_kept() {
        let deadline = Instant::now() + Duration::from_secs(10);
        let first = resolve("localhost", 6379, deadline).unwrap();
        assert!(
            first
                .iter()
                .all(|address| address.ip().is_loopback() && address.port() == 6379)
        );
        // Kept: a deadline already passed still gets it.
        assert_eq!(resolve("localhost", 6379, Instant::now()).unwrap(), first);
    }

    #[test]
    fn a_name_that_does_not_resolve_fails_and_the_failure_is_kept_briefly() {
        let deadline = Instant::now() + Duration::from_secs(10);
        let name = "no-such-host.invalid";
        let error = resolve(name, 1, deadline).unwrap_err();
        assert!(error.to_string().contains("does not resolve"), "{error}");
        assert!(resolve(name, 1, Instant::now()).is_err());
    }
}
