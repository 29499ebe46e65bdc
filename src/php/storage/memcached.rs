//! `Storage\MemcachedStorage`: circuits shared by every server through
//! Memcached, all keys of a service on one server.

use std::rc::Rc;

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::client_objects::{Refusal, memcached_client};
use super::redis::checked_timeout;
use crate::core::error::ConfigError;
use crate::php::engine::args::{Float, Text, describe};
use crate::php::engine::callback::finish;
use crate::php::engine::classes::storage_interface;
use crate::php::engine::reentry::refuse_reconstruction;
use crate::php::error::invalid_configuration;
use crate::storage::StorageError;
use crate::storage::memcached::{MemcachedStorage as Memcached, memcached_storage};

/// The port of a server given without one, as every Memcached client has it.
const DEFAULT_PORT: u16 = 11211;

const SERVER_LIMITS: &str = "'host[:port]' (port 1 to 65535, 11211 when left out; an IPv6 address in brackets, '[::1]:11211'), \
     a non-empty array of them, or a \\Memcached with TCP servers";

/// A server as the storage connects to it, `host:port`: the port is
/// 11211 when left out (`localhost`, `[::1]`).
fn server(value: &Zval, all: &Zval) -> Result<String, PhpException> {
    let invalid = |why: &str| {
        let mut error = ConfigError::new("servers", describe(all), SERVER_LIMITS);
        if all.array().is_some() {
            error.value = format!("{} ({} {why})", error.value, describe(value));
        } else {
            error.value = format!("{} ({why})", error.value);
        }
        invalid_configuration(error)
    };
    let text = value.str().ok_or_else(|| invalid("is not a string"))?;
    let (host, port) = split_host_port(text).map_err(invalid)?;
    Ok(format!("{host}:{port}"))
}

/// `host` and its port, 11211 when left out; why not, in the user's words.
fn split_host_port(text: &str) -> Result<(&str, u16), &'static str> {
    let (host, port) = match text.strip_prefix('[') {
        // [IPv6] or [IPv6]:port
        Some(bracketed) => {
            let (address, rest) = bracketed.split_once(']').ok_or("has no ']' closing its IPv6 address")?;
            let port = match rest {
                "" => None,
                _ => Some(
                    rest.strip_prefix(':')
                        .ok_or("has something other than ':port' after ']'")?,
                ),
            };
            (&text[..address.len() + 2], port)
        }
        None => match text.split_once(':') {
            Some((_, rest)) if rest.contains(':') => {
                return Err("is an IPv6 address without brackets: write '[::1]:11211'");
            }
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        },
    };
    if host.is_empty() || host == "[]" {
        return Err("has no host");
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|&port| port != 0)
            .ok_or("has a port that is not a number from 1 to 65535")?,
    };
    Ok((host, port))
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\MemcachedStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct MemcachedStorage {
    pub storage: Rc<Memcached>,
}

#[php_impl]
impl MemcachedStorage {
    /// `$servers`: `host[:port]` (11211 by default), or several; each
    /// service lives on one of them.
    /// Or a `\Memcached`: its servers (`getServerList()`, in that order) and
    /// its `OPT_PREFIX_KEY`, put before `$prefix` (see `client_objects.rs`).
    /// `$timeout`: seconds each call (`acquirePermission()`, a register,
    /// `getState()`) may take in all, connecting and every round trip
    /// included.
    #[php(optional = servers)]
    #[php(defaults(prefix = String::new(), timeout = 0.05))]
    pub fn __construct(servers: Option<&Zval>, prefix: Text, timeout: Float) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        // The getters of a `\Memcached` are PHP calls: a fatal error among
        // them is re-raised once we are out.
        finish(Self::build(servers, prefix.0, timeout.0))
    }

    /// Always throws a `StorageException`: Memcached cannot enumerate its
    /// keys. Keep the names of your services, and ask each breaker's
    /// `getStatus()`.
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        let _ = prefix;
        Err(StorageError::Unsupported(
            "MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers".into(),
        )
        .into())
    }
}

impl MemcachedStorage {
    fn build(servers: Option<&Zval>, prefix: Vec<u8>, timeout: f64) -> Result<Self, PhpException> {
        let mut client_prefix = Vec::new();
        let servers = match servers {
            None => vec!["127.0.0.1:11211".to_owned()],
            Some(value) if value.is_null() => vec!["127.0.0.1:11211".to_owned()],
            Some(value) if value.object().is_some() => {
                let client = value
                    .object()
                    .and_then(memcached_client)
                    .unwrap_or_else(|| Err(Refusal::new("not a \\Memcached of the memcached extension")));
                let (list, key_prefix) = client.map_err(|refusal| {
                    let mut error = ConfigError::new("servers", describe(value), SERVER_LIMITS);
                    error.value = format!("{} ({})", error.value, refusal.reason);
                    refusal.into_exception(error)
                })?;
                client_prefix = key_prefix;
                list
            }
            Some(value) => match value.array() {
                Some(list) if !list.is_empty() => list
                    .values()
                    .map(|node| server(node, value))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(invalid_configuration(ConfigError::new("servers", "[]", SERVER_LIMITS))),
                None => vec![server(value, value)?],
            },
        };
        let timeout = checked_timeout(timeout)?;
        Ok(Self {
            storage: Rc::new(memcached_storage(servers, [client_prefix, prefix].concat(), timeout)),
        })
    }
}
