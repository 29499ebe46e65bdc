//! Redis Sentinel: the storage talks to the master that the sentinels name.
//!
//! ```text
//! redis-sentinel://[[user:]password@]host[:port][,host[:port]...]/<master name>[/<db>]
//!     [?sentinel_password=...[&sentinel_username=...]]
//! ```
//!
//! The user and password before `@` are the master's (and its replicas'),
//! the query's are the sentinels' own (`requirepass` of a sentinel); both are
//! percent-encoded as in a `redis://` DSN. A sentinel's port is 26379 unless
//! given.
//!
//! Each process asks the sentinels for the master's address
//! (`SENTINEL get-master-addr-by-name`) at its first call, one sentinel
//! after another within the call's deadline, starting with the one that
//! answered last, and remembers it. Every new connection to a master checks
//! its `ROLE`. When the master fails (refused, closed, in backoff) or
//! answers as a replica (`READONLY`, or `ROLE` on reconnection: Sentinel
//! closes the clients of a node it demotes), the sentinels are asked again:
//! an answer naming the node that just failed is taken as stale while
//! another sentinel names a different one. A command that did not reach
//! the old master, or that it refused as a replica (so it wrote nothing),
//! is sent once to the new master within the same deadline. Asking again
//! and finding nothing new waits `ASK_INTERVAL` before asking again, so
//! that a dead master before the failover costs no sentinel round trip per
//! call.
//!
//! A forced failover (`SENTINEL FAILOVER`) leaves the old master a master,
//! taking writes that its demotion will drop, until the sentinels next read
//! it (their `INFO` period of replicas: 10 s). So a process also asks the
//! sentinels again once the last answer is `CONFIRM_INTERVAL` old: one
//! sentinel round trip per second per process at most, which bounds the
//! writes lost to about a second of them.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use redis::{ConnectionAddr, ConnectionInfo, ErrorKind, RedisError, RedisResult, ServerErrorKind};

use super::connection::{CONNECTIONS, Connection, Endpoint};
use super::error::CallError;
use super::target::{RedisConfigError, describe, parse_dsn, pool_key};
use super::{on_endpoint, on_node};
use crate::storage::net::pool::backing_off;

const SCHEME: &str = "redis-sentinel://";
const DEFAULT_SENTINEL_PORT: u16 = 26379;
/// The shortest time between two fruitless rounds of questions.
const ASK_INTERVAL: Duration = Duration::from_millis(100);
/// The age at which a master's address is asked again, with no failure.
const CONFIRM_INTERVAL: Duration = Duration::from_secs(1);

type Node = (String, u16);

/// A master known by name to a set of sentinels.
#[derive(Clone)]
pub struct SentinelTarget {
    pub master_name: String,
    pub sentinels: Vec<ConnectionInfo>,
    /// The master's settings (user, password, database); its address is
    /// the sentinels' answer.
    pub master: ConnectionInfo,
}

pub fn is_sentinel_dsn(dsn: &str) -> bool {
    let scheme = dsn.split_once("://").map_or("", |(scheme, _)| scheme);
    scheme.eq_ignore_ascii_case("redis-sentinel") || scheme.eq_ignore_ascii_case("rediss-sentinel")
}

/// Parses a `redis-sentinel://` DSN (syntax at the top of this file). The
/// errors name the part at fault, never a password.
pub fn parse_sentinel_dsn(dsn: &str) -> Result<SentinelTarget, RedisConfigError> {
    let invalid = |reason: &str| RedisConfigError::Dsn(format!("a Sentinel DSN {reason}"));
    if dsn.len() < SCHEME.len() || !dsn[..SCHEME.len()].eq_ignore_ascii_case(SCHEME) {
        return Err(invalid(
            "starts with redis-sentinel://: TLS to sentinels is not supported",
        ));
    }
    let rest = &dsn[SCHEME.len()..];
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (master_user, hosts) = match authority.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), authority),
    };

    let mut path = path.split('/');
    let master_name = path.next().unwrap_or_default();
    if master_name.is_empty() {
        return Err(invalid("names its master after the hosts: /<master name>[/<db>]"));
    }
    let db = match path.next() {
        None | Some("") => 0,
        Some(db) => db
            .parse::<u32>()
            .map_err(|_| invalid(&format!("has a database that is not a number from 0: '{db}'")))?,
    };
    if path.next().is_some() {
        return Err(invalid("has nothing after the database: /<master name>[/<db>]"));
    }

    let (mut sentinel_user, mut sentinel_password) = (None, None);
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        match pair.split_once('=') {
            Some(("sentinel_password", value)) => sentinel_password = Some(value),
            Some(("sentinel_username", value)) => sentinel_user = Some(value),
            _ => {
                let name = pair.split_once('=').map_or(pair, |(name, _)| name);
                return Err(invalid(&format!(
                    "takes only sentinel_password and sentinel_username as parameters, not '{name}'"
                )));
            }
        }
    }
    let sentinel_auth = match (sentinel_user, sentinel_password) {
        (None, None) => String::new(),
        (user, password) => format!("{}:{}@", user.unwrap_or_default(), password.unwrap_or_default()),
    };

    let master = parse_dsn(&format!("redis://{master_user}127.0.0.1/{db}"))
        .map_err(|_| invalid("has a master user or password that does not parse"))?;
    let sentinels = hosts
        .split(',')
        .map(|host| {
            if host.is_empty() {
                return Err(invalid(
                    "lists its sentinels as host[:port],host[:port],... with no empty one",
                ));
            }
            let bracketed_v6 = host.starts_with('[') && host.ends_with(']');
            let with_port = if bracketed_v6 || !host.contains(':') {
                format!("{host}:{DEFAULT_SENTINEL_PORT}")
            } else {
                host.to_owned()
            };
            let info = parse_dsn(&format!("redis://{sentinel_auth}{with_port}"))
                .map_err(|_| invalid(&format!("has a sentinel that is not host[:port]: '{host}'")))?;
            match info.addr() {
                ConnectionAddr::Tcp(..) => Ok(info),
                _ => Err(invalid(&format!("has a sentinel that is not host[:port]: '{host}'"))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SentinelTarget {
        master_name: master_name.to_owned(),
        sentinels,
        master,
    })
}

impl SentinelTarget {
    /// Identifies the target in the per-process caches.
    pub fn key(&self, timeout: Duration) -> String {
        format!(
            "sentinel '{}' at {} for {}",
            self.master_name,
            self.sentinels
                .iter()
                .map(|sentinel| pool_key(sentinel, timeout))
                .collect::<Vec<_>>()
                .join(", "),
            pool_key(&self.master, timeout)
        )
    }

    fn master_at(&self, (host, port): &Node) -> ConnectionInfo {
        self.master.clone().set_addr(ConnectionAddr::Tcp(host.clone(), *port))
    }
}

/// What a process knows of the master of one target.
#[derive(Default)]
struct Known {
    master: Option<Node>,
    /// When the sentinels were last asked, and whether it was for nothing
    /// new (no answer, or only the node that had failed).
    asked: Option<(Instant, bool)>,
    /// The sentinel that answered last, asked first.
    first_sentinel: usize,
}

thread_local! {
    static KNOWN: RefCell<HashMap<String, Known>> = RefCell::default();
}

/// Asks the sentinels for the master's address, one after another by
/// `deadline`, skipping those in backoff. An answer naming `failed` (the
/// master that just failed) is returned only if no sentinel names another.
fn ask_sentinels(
    target: &SentinelTarget,
    first: usize,
    timeout: Duration,
    deadline: Instant,
    failed: Option<&Node>,
) -> Result<(Node, usize), CallError> {
    let count = target.sentinels.len();
    let mut stale = None;
    let mut last_error = None;
    for index in (0..count).map(|offset| (first + offset) % count) {
        let sentinel = &target.sentinels[index];
        if Instant::now() >= deadline {
            break;
        }
        if backing_off(&CONNECTIONS, &pool_key(sentinel, timeout)) {
            continue;
        }
        let answer = on_node(sentinel, timeout, deadline, &|connection: &mut Connection| {
            redis::cmd("SENTINEL")
                .arg("get-master-addr-by-name")
                .arg(&target.master_name)
                .query::<Option<(String, u16)>>(connection)
        });
        match answer {
            Ok(Some(node)) if Some(&node) == failed => stale = stale.or(Some((node, index))),
            Ok(Some(node)) => return Ok((node, index)),
            Ok(None) => {
                last_error = Some(CallError::Sentinel(format!(
                    "the sentinel at {} knows no master named '{}'",
                    describe(sentinel),
                    target.master_name
                )))
            }
            Err(error) => last_error = Some(error),
        }
    }
    stale.ok_or_else(|| {
        last_error.unwrap_or_else(|| {
            CallError::Sentinel(format!(
                "no sentinel of '{}' could be asked: all failed just before, or the deadline passed",
                target.master_name
            ))
        })
    })
}

/// Asks the sentinels and remembers the answer. After a fruitless round,
/// a failure waits `ASK_INTERVAL` before asking again.
fn find_master(
    target_key: &str,
    target: &SentinelTarget,
    timeout: Duration,
    deadline: Instant,
    failed: Option<&Node>,
) -> Result<Node, CallError> {
    let (first, asked) = KNOWN.with_borrow(|known| {
        known
            .get(target_key)
            .map_or((0, None), |known| (known.first_sentinel, known.asked))
    });
    if failed.is_some() && asked.is_some_and(|(at, fruitless)| fruitless && at.elapsed() < ASK_INTERVAL) {
        return Err(CallError::Sentinel("asked the sentinels just before".into()));
    }
    let answer = ask_sentinels(target, first, timeout, deadline, failed);
    KNOWN.with_borrow_mut(|known| {
        let known = known.entry(target_key.to_owned()).or_default();
        match &answer {
            Ok((node, index)) => {
                known.first_sentinel = *index;
                known.asked = Some((Instant::now(), Some(node) == failed));
                known.master = Some(node.clone());
            }
            Err(_) => known.asked = Some((Instant::now(), true)),
        }
    });
    answer.map(|(node, _)| node)
}

/// Whether the master refused because it is a replica now (a `READONLY`
/// answer, or `ROLE` on connecting): it wrote nothing.
fn demoted(error: &RedisError) -> bool {
    error.kind() == ErrorKind::Server(ServerErrorKind::ReadOnly) || error.to_string().contains("READONLY")
}

fn on_master<T>(
    target: &SentinelTarget,
    master: &Node,
    timeout: Duration,
    deadline: Instant,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let info = target.master_at(master);
    let endpoint = Endpoint {
        info: &info,
        deadline,
        must_be_master: true,
    };
    // Distinct from a plain connection to the same address: this one was
    // checked to be a master.
    on_endpoint(&endpoint, &format!("{} master", pool_key(&info, timeout)), command)
}

/// The master's connection settings: the one known, or the sentinels' answer.
pub fn master(
    target_key: &str,
    target: &SentinelTarget,
    timeout: Duration,
    deadline: Instant,
) -> Result<ConnectionInfo, CallError> {
    let known = KNOWN.with_borrow(|known| known.get(target_key).and_then(|known| known.master.clone()));
    let master = match known {
        Some(master) => master,
        None => find_master(target_key, target, timeout, deadline, None)?,
    };
    Ok(target.master_at(&master))
}

/// Runs `command` on the master, following a failover (see the top).
pub fn run<T>(
    target_key: &str,
    target: &SentinelTarget,
    timeout: Duration,
    deadline: Instant,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let known = KNOWN.with_borrow(|known| {
        known
            .get(target_key)
            .and_then(|known| Some((known.master.clone()?, known.asked?.0)))
    });
    let master = match known {
        Some((master, asked_at)) if asked_at.elapsed() < CONFIRM_INTERVAL => master,
        // Sentinels that cannot answer leave the master known in place.
        Some((master, _)) => find_master(target_key, target, timeout, deadline, None).unwrap_or(master),
        None => find_master(target_key, target, timeout, deadline, None)?,
    };
    let sent = Cell::new(false);
    let result = on_master(target, &master, timeout, deadline, &|connection: &mut Connection| {
        sent.set(true);
        command(connection)
    });
    let resend = match &result {
        Err(CallError::BackingOff { .. }) => true,
        Err(CallError::Redis(error)) if demoted(error) => true,
        Err(CallError::Redis(error)) if error.is_io_error() => !sent.get(),
        _ => return result,
    };
    match find_master(target_key, target, timeout, deadline, Some(&master)) {
        Ok(new_master) if resend && new_master != master => on_master(target, &new_master, timeout, deadline, command),
        _ => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(info: &ConnectionInfo) -> (String, u16) {
        match info.addr() {
            ConnectionAddr::Tcp(host, port) => (host.clone(), *port),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_sentinel_dsn_names_sentinels_a_master_and_both_passwords() {
        let target = parse_sentinel_dsn(
            "redis-sentinel://app:s%40cret@10.0.0.1:26380,10.0.0.2,[::1]/mymaster/3?sentinel_password=p%26w",
        )
        .unwrap();
        assert_eq!(target.master_name, "mymaster");
        let sentinels: Vec<_> = target.sentinels.iter().map(address).collect();
        assert_eq!(
            sentinels,
            [
                ("10.0.0.1".to_owned(), 26380),
                ("10.0.0.2".to_owned(), 26379),
                ("::1".to_owned(), 26379)
            ]
        );
        let master = target.master.redis_settings();
        assert_eq!(
            (master.username(), master.password(), master.db()),
            (Some("app"), Some("s@cret"), 3)
        );
        let sentinel = target.sentinels[0].redis_settings();
        assert_eq!((sentinel.password(), sentinel.db()), (Some("p&w"), 0));

        let plain = parse_sentinel_dsn("redis-sentinel://127.0.0.1:26379/mymaster").unwrap();
        assert_eq!(plain.master.redis_settings().password(), None);
        assert_eq!(plain.sentinels[0].redis_settings().password(), None);
        assert!(is_sentinel_dsn("REDIS-SENTINEL://h/m"));
        assert!(!is_sentinel_dsn("redis://h"));
    }

    #[test]
    fn bad_sentinel_dsns_are_refused_naming_the_part_at_fault() {
        for (dsn, part) in [
            ("redis-sentinel://127.0.0.1:26379", "master name"),
            ("redis-sentinel://127.0.0.1:26379/", "master name"),
            ("redis-sentinel://127.0.0.1:26379/m/x", "database"),
            ("redis-sentinel://127.0.0.1:26379/m/-1", "database"),
            ("redis-sentinel://127.0.0.1:26379/m/1/2", "after the database"),
            ("redis-sentinel:///m", "no empty one"),
            ("redis-sentinel://a:1,,b:2/m", "no empty one"),
            ("redis-sentinel://a:port/m", "'a:port'"),
            ("redis-sentinel://a:1/m?timeout=3", "'timeout'"),
            ("rediss-sentinel://a:1/m", "TLS"),
        ] {
            match parse_sentinel_dsn(dsn) {
                Err(RedisConfigError::Dsn(reason)) => assert!(reason.contains(part), "{dsn}: {reason}"),
                other => panic!("{dsn}: {:?}", other.map(|target| target.master_name)),
            }
        }
        let Err(RedisConfigError::Dsn(reason)) = parse_sentinel_dsn("redis-sentinel://:secret@a:port/m") else {
            panic!("a bad port is refused");
        };
        assert!(!reason.contains("secret"), "{reason}");
    }
}
