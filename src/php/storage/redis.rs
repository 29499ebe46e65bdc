//! `Storage\RedisStorage`: circuits shared by every server through Redis,
//! Valkey or Redis Cluster.

use std::rc::Rc;
use std::time::Duration;

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::client_objects::redis_client;
use crate::core::duration::format_float;
use crate::core::error::ConfigError;
use crate::php::engine::args::{Float, Text, describe};
use crate::php::engine::callback::finish;
use crate::php::engine::classes::storage_interface;
use crate::php::engine::reentry::refuse_reconstruction;
use crate::php::error::invalid_configuration;
use crate::storage::redis::{RedisStorage as Redis, Target, parse_dsn, parse_target};

const DSN_LIMITS: &str = "a redis://, rediss:// or unix:// DSN, \
     a redis-sentinel://[[user:]password@]host[:port][,host[:port]...]/<master name>[/<db>][?sentinel_password=...] DSN, \
     a non-empty array of redis:// or rediss:// DSNs for Redis Cluster, \
     or a connected phpredis \\Redis or \\RedisCluster without serializer nor compression";

fn invalid_dsn(value: &Zval, reason: String) -> PhpException {
    invalid_configuration(dsn_error(value, &reason))
}

fn dsn_error(value: &Zval, reason: &str) -> ConfigError {
    let mut error = ConfigError::new("dsn", describe(value), DSN_LIMITS);
    error.value = format!("{} ({reason})", error.value);
    error
}

/// Where to connect, and the key prefix a phpredis client object adds
/// before the storage's own.
fn target(dsn: &Zval) -> Result<(Target, Vec<u8>), PhpException> {
    if let Some(object) = dsn.object() {
        return match redis_client(object) {
            Some(read) => read.map_err(|refusal| {
                let error = dsn_error(dsn, &refusal.reason);
                refusal.into_exception(error)
            }),
            None => Err(invalid_dsn(
                dsn,
                "not a \\Redis or \\RedisCluster of the redis extension (phpredis)".into(),
            )),
        };
    }
    Ok((dsn_target(dsn)?, Vec::new()))
}

fn dsn_target(dsn: &Zval) -> Result<Target, PhpException> {
    if let Some(single) = dsn.str() {
        return parse_target(single).map_err(|error| invalid_dsn(dsn, error.to_string()));
    }
    let Some(nodes) = dsn.array() else {
        return Err(invalid_dsn(dsn, "neither a string nor an array".into()));
    };
    let nodes = nodes
        .values()
        .map(|node| {
            let text = node
                .str()
                .ok_or_else(|| invalid_dsn(dsn, format!("{} is not a DSN", describe(node))))?;
            parse_dsn(text).map_err(|error| invalid_dsn(dsn, error.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if nodes.is_empty() {
        return Err(invalid_dsn(dsn, "no seed node".into()));
    }
    Ok(Target::Cluster(nodes))
}

/// The `$timeout` of a network storage: every call waits at most that long.
pub fn checked_timeout(timeout: f64) -> Result<Duration, PhpException> {
    if !timeout.is_finite() || !(0.001..=60.0).contains(&timeout) {
        return Err(invalid_configuration(ConfigError::new(
            "timeout",
            format_float(timeout),
            "0.001 to 60 seconds",
        )));
    }
    Ok(Duration::from_secs_f64(timeout))
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\RedisStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct RedisStorage {
    pub storage: Rc<Redis>,
}

#[php_impl]
impl RedisStorage {
    /// `$dsn`: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS,
    /// `unix:///path.sock`, `redis-sentinel://host:port,.../<master name>`
    /// (a master found through Redis Sentinel), an array of seed nodes of a
    /// Redis Cluster, or a connected phpredis `\Redis` / `\RedisCluster`
    /// whose settings are read (see `client_objects.rs`).
    /// `$timeout`: seconds each call (`acquirePermission()`, a register,
    /// `getState()`) may take in all, connecting and every round trip
    /// included.
    #[php(optional = dsn)]
    #[php(defaults(prefix = String::new(), timeout = 0.05))]
    pub fn __construct(dsn: Option<&Zval>, prefix: Text, timeout: Float) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        // The getters of a client object are PHP calls: a fatal error among
        // them is re-raised once we are out.
        finish(Self::build(dsn, prefix.0, timeout.0))
    }

    /// The status of every circuit of this prefix whose service starts with
    /// `$prefix`: SCAN on every master (never KEYS), then one read per
    /// circuit. Window counts are left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        crate::php::status::list_circuits(&*self.storage, &prefix.0, crate::php::clock::system_now_ms())
    }
}

impl RedisStorage {
    fn build(dsn: Option<&Zval>, prefix: Vec<u8>, timeout: f64) -> Result<Self, PhpException> {
        let (target, client_prefix) = match dsn {
            Some(dsn) if !dsn.is_null() => target(dsn)?,
            _ => (
                Target::Standalone(Box::new(parse_dsn("redis://127.0.0.1:6379").expect("a valid default"))),
                Vec::new(),
            ),
        };
        let timeout = checked_timeout(timeout)?;
        let key_prefix = [client_prefix, prefix.clone()].concat();
        let storage = Redis::new(target, key_prefix, timeout).map_err(|_| {
            invalid_configuration(ConfigError::new(
                "prefix",
                format!("'{}'", String::from_utf8_lossy(&prefix)),
                "no braces: they would break the hash tag of Redis Cluster",
            ))
        })?;
        Ok(Self {
            storage: Rc::new(storage),
        })
    }
}
