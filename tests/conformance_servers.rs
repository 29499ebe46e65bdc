//! The conformance suite (`conformance/mod.rs`) over real servers, started
//! by `tests/integration/redis.sh` and `memcached.sh`, which pass their
//! addresses:
//!
//! - `REDIS_URL`: a standalone Redis, `redis://[:password@]host:port`;
//! - `REDIS_CLUSTER_NODES`: the seed nodes of a Redis Cluster, `redis://host:port,...`;
//! - `MEMCACHED_SERVERS`: Memcached servers, `host:port,...`.
//!
//! A storage whose variable is unset is skipped, and says so. A plain
//! `main` (no test harness): the behaviours run one after the other on one
//! thread, each under a prefix of its own, so that runs never share keys.

#[macro_use]
mod conformance;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::time::Duration;

use circuit_breaker::core::duration::Millis;
use circuit_breaker::storage::CircuitStore;
use circuit_breaker::storage::memcached::{key_base, memcached_storage};
use circuit_breaker::storage::redis::{RedisStorage, Target, parse_dsn};
use conformance::fleet::Fleet;
use conformance::{Backend, Clock, Env};
use redis::ConnectionLike;

/// Generous: the machine running the suite may be loaded, and no test here
/// measures time.
const TIMEOUT: Duration = Duration::from_secs(2);

/// A prefix no other run or behaviour uses.
fn unique_prefix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "conformance-{}-{}:",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

struct Redis {
    target: Target,
    /// Where to read a key's time to live: the server, or the cluster.
    probe: Box<dyn Fn() -> Box<dyn ConnectionLike>>,
    prefix: String,
}

impl Backend for Redis {
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        let prefix = [self.prefix.as_bytes(), prefix].concat();
        Rc::new(RedisStorage::new(self.target.clone(), prefix, TIMEOUT).expect("a valid storage"))
    }

    /// The state hash is `<prefix>cb:{<service>}:s` (redis/keys.rs); the
    /// suite asks only for plain service names.
    fn state_ttl_ms(&self, prefix: &[u8], service: &[u8]) -> Option<Millis> {
        let key = [self.prefix.as_bytes(), prefix, b"cb:{", service, b"}:s"].concat();
        let ttl: i64 = redis::cmd("PTTL")
            .arg(key)
            .query(&mut *(self.probe)())
            .expect("PTTL answers");
        Some(ttl)
    }
}

struct Memcached {
    servers: Vec<String>,
    prefix: String,
}

impl Backend for Memcached {
    fn store(&self, prefix: &[u8]) -> Rc<dyn CircuitStore> {
        let prefix = [self.prefix.as_bytes(), prefix].concat();
        Rc::new(memcached_storage(self.servers.clone(), prefix, TIMEOUT))
    }

    fn lists_circuits(&self) -> bool {
        false
    }

    /// The state is `<name>:s` (kv/mod.rs) on the server of the service;
    /// the meta command `mg <key> t` tells the seconds it has left.
    fn state_ttl_ms(&self, prefix: &[u8], service: &[u8]) -> Option<Millis> {
        let key = [
            key_base(&[self.prefix.as_bytes(), prefix].concat(), service),
            b":s".to_vec(),
        ]
        .concat();
        let storage = memcached_storage(self.servers.clone(), Vec::new(), TIMEOUT);
        let server = storage.backend.address_of(service);
        let mut stream = TcpStream::connect(server).expect("memcached answers");
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream.write_all(&[b"mg ", key.as_slice(), b" t\r\n"].concat()).unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        let seconds = line
            .split_whitespace()
            .find_map(|flag| flag.strip_prefix('t'))
            .unwrap_or_else(|| panic!("no time to live in {line:?}"));
        Some(seconds.parse::<Millis>().expect("a number of seconds") * 1_000)
    }
}

type MakeBackend = Box<dyn Fn(&Clock) -> Box<dyn Backend>>;

fn list(variable: &str) -> Option<Vec<String>> {
    let value = std::env::var(variable).ok().filter(|value| !value.trim().is_empty())?;
    Some(value.split(',').map(|part| part.trim().to_string()).collect())
}

/// The storages whose servers are given, by name.
fn backends() -> Vec<(&'static str, MakeBackend)> {
    let mut backends: Vec<(&'static str, MakeBackend)> = Vec::new();
    match std::env::var("REDIS_URL") {
        Ok(url) => {
            let info = parse_dsn(&url).expect("REDIS_URL is a Redis DSN");
            backends.push((
                "Redis",
                Box::new(move |_| {
                    let client = redis::Client::open(info.clone()).unwrap();
                    Box::new(Redis {
                        target: Target::Standalone(Box::new(info.clone())),
                        probe: Box::new(move || Box::new(client.get_connection().expect("Redis answers"))),
                        prefix: unique_prefix(),
                    })
                }),
            ));
        }
        Err(_) => println!("SKIPPED Redis: REDIS_URL is not set"),
    }
    match list("REDIS_CLUSTER_NODES") {
        Some(nodes) => {
            let nodes: Vec<_> = nodes
                .iter()
                .map(|node| parse_dsn(node).expect("REDIS_CLUSTER_NODES are Redis DSNs"))
                .collect();
            backends.push((
                "Redis Cluster",
                Box::new(move |_| {
                    let client = redis::cluster::ClusterClient::new(nodes.clone()).unwrap();
                    Box::new(Redis {
                        target: Target::Cluster(nodes.clone()),
                        probe: Box::new(move || Box::new(client.get_connection().expect("the cluster answers"))),
                        prefix: unique_prefix(),
                    })
                }),
            ));
        }
        None => println!("SKIPPED Redis Cluster: REDIS_CLUSTER_NODES is not set"),
    }
    match list("MEMCACHED_SERVERS") {
        Some(servers) => backends.push((
            "Memcached",
            Box::new(move |_| {
                Box::new(Memcached {
                    servers: servers.clone(),
                    prefix: unique_prefix(),
                })
            }),
        )),
        None => println!("SKIPPED Memcached: MEMCACHED_SERVERS is not set"),
    }
    backends
}

macro_rules! listed {
    ([$($behaviour:ident),*]) => {
        [$((stringify!($behaviour), conformance::$behaviour as fn(&Env))),*]
    };
}

/// Every server's storage, then `FleetStorage` in front of each.
fn with_fleets(backends: Vec<(&'static str, MakeBackend)>) -> Vec<(String, MakeBackend)> {
    let mut all = Vec::new();
    for (name, make) in backends {
        let make = Rc::new(make);
        let server = make.clone();
        all.push((
            name.to_string(),
            Box::new(move |clock: &Clock| server(clock)) as MakeBackend,
        ));
        all.push((
            format!("FleetStorage over {name}"),
            Box::new(move |clock: &Clock| Fleet::over(make(clock), clock)) as MakeBackend,
        ));
    }
    all
}

fn main() {
    let behaviours = behaviours!(listed! {});
    let mut failed = Vec::new();
    for (storage, make) in with_fleets(backends()) {
        for (name, behaviour) in behaviours {
            let env = Env::new(|clock| make(clock));
            match catch_unwind(AssertUnwindSafe(|| behaviour(&env))) {
                Ok(()) => println!("conformance over {storage}: {name} ... ok"),
                Err(_) => {
                    println!("conformance over {storage}: {name} ... FAILED");
                    failed.push(format!("{storage}: {name}"));
                }
            }
        }
    }
    if !failed.is_empty() {
        println!("\n{} failed:\n  {}", failed.len(), failed.join("\n  "));
        std::process::exit(1);
    }
}
