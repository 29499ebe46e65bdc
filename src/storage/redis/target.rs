//! Where a Redis storage connects: a DSN read into a [`Target`] (why a
//! DSN is refused, in the user's words, is `dsn.rs`), and the keys that
//! tell targets and connections apart in the per-process caches.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::LazyLock;
use std::time::Duration;

use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo};
use thiserror::Error;

use super::dsn;
use super::sentinel::{self, SentinelTarget, parse_sentinel_dsn};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RedisConfigError {
    #[error("{0}")]
    Dsn(String),
    #[error("a prefix must contain no braces: they would break the hash tag of Redis Cluster")]
    PrefixWithBraces,
}

/// Parses one DSN: `redis://[user:password@]host:port[/db]`, `rediss://` for
/// TLS, `unix:///path/to.sock` or `redis+unix:///path`.
pub fn parse_dsn(dsn: &str) -> Result<ConnectionInfo, RedisConfigError> {
    let info = dsn
        .into_connection_info()
        .map_err(|error| RedisConfigError::Dsn(format!("'{dsn}' {}", dsn::why_refused(dsn, &error))))?;
    if let ConnectionAddr::TcpTls { insecure: true, .. } = info.addr() {
        return Err(RedisConfigError::Dsn(format!(
            "'{dsn}': certificate verification cannot be turned off (#insecure)"
        )));
    }
    Ok(info)
}

/// Where the storage connects.
#[derive(Clone)]
pub enum Target {
    Standalone(Box<ConnectionInfo>),
    Cluster(Vec<ConnectionInfo>),
    /// A master found through Redis Sentinel.
    Sentinel(Box<SentinelTarget>),
}

/// The target of one DSN: a `redis-sentinel://` DSN names a master through
/// its sentinels (`sentinel.rs`), any other one server.
pub fn parse_target(dsn: &str) -> Result<Target, RedisConfigError> {
    if sentinel::is_sentinel_dsn(dsn) {
        return parse_sentinel_dsn(dsn).map(|target| Target::Sentinel(Box::new(target)));
    }
    parse_dsn(dsn).map(|info| Target::Standalone(Box::new(info)))
}

impl Target {
    /// Identifies the target in the per-process connection and open caches.
    pub(super) fn key(&self, timeout: Duration) -> String {
        match self {
            Target::Standalone(info) => pool_key(info, timeout),
            Target::Cluster(nodes) => format!(
                "cluster {}",
                nodes
                    .iter()
                    .map(|node| pool_key(node, timeout))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Target::Sentinel(target) => target.key(timeout),
        }
    }
}

/// The key of a connection in the pool: everything that makes two
/// connections distinct. The password is hashed with a key drawn once per
/// process, so the pool key never holds it in clear.
pub(super) fn pool_key(info: &ConnectionInfo, timeout: Duration) -> String {
    static PASSWORD_HASHER: LazyLock<RandomState> = LazyLock::new(RandomState::new);
    let address = match info.addr() {
        ConnectionAddr::Tcp(host, port) => format!("redis://{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("rediss://{host}:{port}"),
        ConnectionAddr::Unix(path) => format!("unix://{}", path.display()),
        other => format!("{other:?}"),
    };
    let settings = info.redis_settings();
    format!(
        "{address} db={} user={:?} password={:016x} timeout={}us",
        settings.db(),
        settings.username(),
        PASSWORD_HASHER.hash_one(settings.password()),
        timeout.as_micros()
    )
}

/// A node as a message names it.
pub(super) fn describe(info: &ConnectionInfo) -> String {
    match info.addr() {
        ConnectionAddr::Tcp(host, port) | ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port}"),
        ConnectionAddr::Unix(path) => path.display().to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsns_are_checked_when_the_storage_is_made() {
        assert!(parse_dsn("redis://127.0.0.1:6379").is_ok());
        assert!(parse_dsn("redis://user:secret@127.0.0.1:6380/2").is_ok());
        assert!(parse_dsn("rediss://127.0.0.1:6380").is_ok());
        assert!(parse_dsn("unix:///run/redis.sock").is_ok());
        assert!(matches!(parse_dsn("http://127.0.0.1"), Err(RedisConfigError::Dsn(_))));
        assert!(matches!(
            parse_dsn("redis://127.0.0.1:notaport"),
            Err(RedisConfigError::Dsn(_))
        ));
    }

    #[test]
    fn connections_are_pooled_by_every_setting_and_never_by_a_clear_password() {
        let key = |dsn: &str, timeout_ms| pool_key(&parse_dsn(dsn).unwrap(), Duration::from_millis(timeout_ms));
        let base = key("redis://:secret@127.0.0.1:6379/1", 50);
        assert_eq!(base, key("redis://:secret@127.0.0.1:6379/1", 50));
        for other in [
            key("redis://:secret@127.0.0.1:6379/2", 50),
            key("redis://:wrong@127.0.0.1:6379/1", 50),
            key("redis://127.0.0.1:6379/1", 50),
            key("redis://user:secret@127.0.0.1:6379/1", 50),
            key("rediss://:secret@127.0.0.1:6379/1", 50),
            key("redis://:secret@127.0.0.1:6380/1", 50),
            key("redis://:secret@127.0.0.1:6379/1", 51),
        ] {
            assert_ne!(base, other);
        }
        assert!(!base.contains("secret"), "{base}");
        assert!(parse_dsn("rediss://127.0.0.1:6380/#insecure").is_err());
    }
}
