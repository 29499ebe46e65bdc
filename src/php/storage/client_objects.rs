//! Storages built from the clients an application already has: a connected
//! phpredis `\Redis` or `\RedisCluster`, a php-memcached `\Memcached`, as the
//! `zeusi/circuit-breaker` library takes them.
//!
//! Only the object's settings are read (through its own getters, called via
//! [`callback`](crate::php::engine::callback)); the storage then opens its own native
//! connection, so a call costs our round trips, not phpredis' or
//! libmemcached's. The classes are recognised by name at run time: neither
//! extension is linked, and a storage built from a DSN needs neither.
//!
//! What the storage cannot honour is refused at construction, the message
//! naming the parameter, the setting and why:
//!
//! - `\Redis` not connected: there is no address to read;
//! - a phpredis serializer or compression: the library's README forbids them
//!   (its values are plain integers), so code that sets them was never valid;
//! - a key prefix (`Redis::OPT_PREFIX`) with braces, which would break the
//!   hash tag Redis Cluster needs;
//! - a Memcached server on a unix socket or UDP: our client speaks TCP.
//!
//! The client's key prefix (`Redis::OPT_PREFIX`, `Memcached::OPT_PREFIX_KEY`)
//! is honoured: it comes before the storage's `$prefix`, as it came before
//! every key the library wrote through that client. The client's timeouts are
//! not taken: they bound the application's own commands (phpredis' default
//! read timeout is a minute); the storage's `$timeout` bounds each call.

use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::IntoZvalDyn;
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::ExecutorGlobals;
use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisConnectionInfo};

use crate::php::engine::callback::{CallError, call_function, call_method};
use crate::php::engine::classes::class_of;
use crate::storage::redis::Target;

/// Why a client object cannot be used: shown after its class name, with the
/// exception its getter threw, if that was why (`into_exception`, in
/// `error.rs`, makes it the exception).
pub struct Refusal {
    pub reason: String,
    pub thrown: Option<ZBox<ZendObject>>,
}

impl Refusal {
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            thrown: None,
        }
    }
}

/// `ZEND_INTERNAL_CLASS`: a class an extension declares, as opposed to one
/// written in PHP.
const INTERNAL_CLASS: std::ffi::c_char = 1;

/// Whether `object` is an instance of the internal class `name` (or of a
/// class extending it). Walks the object's own class chain: no class lookup,
/// so no autoloader runs, and a PHP class of the same name (a polyfill
/// without the extension) is not mistaken for it.
pub fn is_client(object: &ZendObject, name: &str) -> bool {
    let mut class = class_of(object);
    while let Some(entry) = class {
        if entry.type_ == INTERNAL_CLASS && entry.name().is_some_and(|own| own.eq_ignore_ascii_case(name)) {
            return true;
        }
        class = entry.parent();
    }
    false
}

/// `$object->$method(...$arguments)`, or why it could not be read.
fn read(object: &ZendObject, method: &str, arguments: Vec<&dyn IntoZvalDyn>) -> Result<Zval, Refusal> {
    call_method(object, method, arguments).map_err(|error| match error {
        // Taken, to be the previous of the InvalidConfigurationException.
        CallError::Threw(class) => Refusal {
            reason: format!("{method}() threw {class}"),
            thrown: ExecutorGlobals::take_exception(),
        },
        other => Refusal::new(format!("{method}() {other}")),
    })
}

/// The value of the class constant `Class::NAME`, when the extension defines it.
fn class_constant(name: &str) -> Result<Option<i64>, Refusal> {
    let defined = call_function("defined", vec![&name]).map_err(|error| Refusal::new(format!("{name}: {error}")))?;
    if !defined.bool().unwrap_or(false) {
        return Ok(None);
    }
    let value = call_function("constant", vec![&name]).map_err(|error| Refusal::new(format!("{name}: {error}")))?;
    Ok(value.long())
}

/// The client's option `Class::OPTION`, when the extension defines it.
fn option(object: &ZendObject, class: &str, option: &str) -> Result<Option<Zval>, Refusal> {
    let Some(code) = class_constant(&format!("{class}::{option}"))? else {
        return Ok(None);
    };
    read(object, "getOption", vec![&code]).map(Some)
}

/// A phpredis option that must be `Class::{none}`; `known` are the names of
/// the other values, to say which one is set.
fn require_none(
    object: &ZendObject,
    class: &str,
    option_name: &str,
    none: &str,
    known: &[&str],
    why: &str,
) -> Result<(), Refusal> {
    let Some(value) = option(object, class, option_name)? else {
        return Ok(());
    };
    let none_value = class_constant(&format!("{class}::{none}"))?.unwrap_or(0);
    let Some(set) = value.long().filter(|&set| set != none_value) else {
        return Ok(());
    };
    let mut shown = set.to_string();
    for name in known {
        if class_constant(&format!("{class}::{name}"))? == Some(set) {
            shown = format!("{class}::{name}");
        }
    }
    Err(Refusal::new(format!(
        "{class}::{option_name} is {shown}, not {class}::{none}: {why}"
    )))
}

/// The key prefix a client puts before every key (empty when none).
fn key_prefix(object: &ZendObject, class: &str, option_name: &str) -> Result<Vec<u8>, Refusal> {
    let Some(value) = option(object, class, option_name)? else {
        return Ok(Vec::new());
    };
    Ok(value
        .zend_str()
        .map(|text| text.as_bytes().to_vec())
        .unwrap_or_default())
}

/// What phpredis settings every client object of it must satisfy; returns its key prefix.
fn phpredis_options(object: &ZendObject, class: &str) -> Result<Vec<u8>, Refusal> {
    require_none(
        object,
        class,
        "OPT_SERIALIZER",
        "SERIALIZER_NONE",
        &[
            "SERIALIZER_PHP",
            "SERIALIZER_IGBINARY",
            "SERIALIZER_MSGPACK",
            "SERIALIZER_JSON",
        ],
        "the storage keeps plain integers, and the circuit breaker library forbids a serializer; \
         remove it or pass a DSN",
    )?;
    require_none(
        object,
        class,
        "OPT_COMPRESSION",
        "COMPRESSION_NONE",
        &["COMPRESSION_LZF", "COMPRESSION_ZSTD", "COMPRESSION_LZ4"],
        "the storage keeps plain integers, and the circuit breaker library forbids compression; \
         remove it or pass a DSN",
    )?;
    let prefix = key_prefix(object, class, "OPT_PREFIX")?;
    if prefix.iter().any(|&byte| byte == b'{' || byte == b'}') {
        return Err(Refusal::new(format!(
            "{class}::OPT_PREFIX '{}' has braces, which would break the hash tag of Redis Cluster",
            String::from_utf8_lossy(&prefix)
        )));
    }
    Ok(prefix)
}

/// The address phpredis connected to: `host` as given to `connect()`
/// (`tls://` or `ssl://` for TLS, a path for a unix socket).
fn redis_address(host: &str, port: i64) -> Result<ConnectionAddr, Refusal> {
    if let Some(path) = host.strip_prefix("unix://") {
        return Ok(ConnectionAddr::Unix(path.into()));
    }
    if host.starts_with('/') {
        return Ok(ConnectionAddr::Unix(host.into()));
    }
    let (tls, name) = match host.split_once("://") {
        None => (false, host),
        Some(("tcp", name)) => (false, name),
        Some(("tls" | "ssl", name)) => (true, name),
        Some((scheme, _)) => {
            return Err(Refusal::new(format!(
                "getHost() is '{host}': scheme {scheme}:// is not supported"
            )));
        }
    };
    let port = u16::try_from(port)
        .ok()
        .filter(|&port| port != 0)
        .ok_or_else(|| Refusal::new(format!("getPort() is {port}, not a TCP port")))?;
    if name.is_empty() {
        return Err(Refusal::new("getHost() is empty"));
    }
    // phpredis takes an IPv6 address in brackets; the connection wants it bare.
    let name = name.trim_start_matches('[').trim_end_matches(']').to_owned();
    Ok(if tls {
        ConnectionAddr::TcpTls {
            host: name,
            port,
            insecure: false,
            tls_params: None,
        }
    } else {
        ConnectionAddr::Tcp(name, port)
    })
}

/// `getAuth()`: null or false without auth, the password, or `[user, password]`.
fn redis_credentials(auth: &Zval, settings: RedisConnectionInfo) -> Result<RedisConnectionInfo, Refusal> {
    if auth.is_null() || auth.is_false() {
        return Ok(settings);
    }
    if let Some(password) = auth.str() {
        return Ok(settings.set_password(password));
    }
    let unreadable = || Refusal::new("getAuth() is not a password nor [user, password]");
    let parts = auth.array().ok_or_else(unreadable)?;
    let parts: Vec<Option<&str>> = parts
        .values()
        .map(|part| if part.is_null() { None } else { part.str() })
        .collect();
    match parts.as_slice() {
        [Some(password)] | [None, Some(password)] => Ok(settings.set_password(password)),
        [Some(user), Some(password)] => Ok(settings.set_username(user).set_password(password)),
        _ => Err(unreadable()),
    }
}

fn connection_info(addr: ConnectionAddr, settings: RedisConnectionInfo) -> Result<ConnectionInfo, Refusal> {
    addr.into_connection_info()
        .map(|info| info.set_redis_settings(settings))
        .map_err(|error| Refusal::new(error.to_string()))
}

/// A connected `\Redis`: its server, database and credentials, and its key prefix.
fn standalone(object: &ZendObject) -> Result<(Target, Vec<u8>), Refusal> {
    if !read(object, "isConnected", vec![])?.bool().unwrap_or(false) {
        return Err(Refusal::new(
            "not connected: call connect() or pconnect() before, or pass a DSN",
        ));
    }
    let prefix = phpredis_options(object, "Redis")?;
    let host = read(object, "getHost", vec![])?;
    let host = host.str().ok_or_else(|| Refusal::new("getHost() is not a string"))?;
    let port = read(object, "getPort", vec![])?.long().unwrap_or(0);
    let addr = redis_address(host, port)?;
    let db = read(object, "getDbNum", vec![])?.long().unwrap_or(0);
    let settings = redis_credentials(
        &read(object, "getAuth", vec![])?,
        RedisConnectionInfo::default().set_db(db),
    )?;
    Ok((Target::Standalone(Box::new(connection_info(addr, settings)?)), prefix))
}

/// A `\RedisCluster`: its masters as seed nodes. Neither its password nor its
/// TLS context can be read from it (README: pass DSNs then).
fn cluster(object: &ZendObject) -> Result<(Target, Vec<u8>), Refusal> {
    let prefix = phpredis_options(object, "RedisCluster")?;
    let masters = read(object, "_masters", vec![])?;
    let unreadable = || Refusal::new("_masters() is not a list of [host, port]");
    let masters = masters.array().ok_or_else(unreadable)?;
    let nodes = masters
        .values()
        .map(|master| {
            let pair = master.array().ok_or_else(unreadable)?;
            let host = pair.get_index(0).and_then(Zval::str).ok_or_else(unreadable)?;
            let port = pair.get_index(1).and_then(Zval::long).ok_or_else(unreadable)?;
            connection_info(redis_address(host, port)?, RedisConnectionInfo::default())
        })
        .collect::<Result<Vec<_>, _>>()?;
    if nodes.is_empty() {
        return Err(Refusal::new("_masters() lists no master"));
    }
    Ok((Target::Cluster(nodes), prefix))
}

/// The target and client key prefix of a phpredis object, or None when
/// `object` is not one.
pub fn redis_client(object: &ZendObject) -> Option<Result<(Target, Vec<u8>), Refusal>> {
    if is_client(object, "RedisCluster") {
        Some(cluster(object))
    } else if is_client(object, "Redis") {
        Some(standalone(object))
    } else {
        None
    }
}

/// The `host:port` servers of a `\Memcached`, and its key prefix.
pub type MemcachedSettings = (Vec<String>, Vec<u8>);

/// One entry of `Memcached::getServerList()` as `host:port`.
fn memcached_server(entry: &Zval) -> Result<String, Refusal> {
    let unreadable = || Refusal::new("getServerList() is not a list of servers");
    let entry = entry.array().ok_or_else(unreadable)?;
    let host = entry.get("host").and_then(Zval::str).ok_or_else(unreadable)?;
    let port = entry.get("port").and_then(Zval::long).ok_or_else(unreadable)?;
    let kind = entry.get("type").and_then(Zval::str).unwrap_or("TCP");
    if kind != "TCP" || host.starts_with('/') || port == 0 {
        return Err(Refusal::new(format!(
            "server {host} ({kind}): the storage speaks TCP only, add a host and port"
        )));
    }
    let port =
        u16::try_from(port).map_err(|_| Refusal::new(format!("server {host}: port {port} is not a TCP port")))?;
    Ok(if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    })
}

/// The servers and key prefix (`Memcached::OPT_PREFIX_KEY`) of a
/// `\Memcached`, or None when `object` is not one. The servers keep their
/// order: a storage built from the same list as DSNs puts each service on
/// the same server.
pub fn memcached_client(object: &ZendObject) -> Option<Result<MemcachedSettings, Refusal>> {
    is_client(object, "Memcached").then(|| memcached_settings(object))
}

fn memcached_settings(object: &ZendObject) -> Result<MemcachedSettings, Refusal> {
    let list = read(object, "getServerList", vec![])?;
    let list = list
        .array()
        .ok_or_else(|| Refusal::new("getServerList() is not an array"))?;
    let servers = list.values().map(memcached_server).collect::<Result<Vec<_>, _>>()?;
    if servers.is_empty() {
        return Err(Refusal::new("no server: call addServer() before, or pass 'host:port'"));
    }
    Ok((servers, key_prefix(object, "Memcached", "OPT_PREFIX_KEY")?))
}
