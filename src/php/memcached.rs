//! `Storage\MemcachedStorage`: circuits shared by every server through
//! Memcached, all keys of a service on one server.

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::args::{Float, Text};
use super::callback::finish;
use super::classes::{invalid_configuration, storage_interface};
use super::client_objects::{Refusal, memcached_client};
use super::configuration::describe;
use super::redis::checked_timeout;
use super::reentry::refuse_reconstruction;
use crate::core::error::ConfigError;
use crate::storage::memcached::{MemcachedStorage as Memcached, memcached_storage};

const SERVER_LIMITS: &str = "'host:port', a non-empty array of them, or a \\Memcached with TCP servers";

fn server(value: &Zval, all: &Zval) -> Result<String, PhpException> {
    let invalid = || invalid_configuration(ConfigError::new("servers", describe(all), SERVER_LIMITS));
    let text = value.str().ok_or_else(invalid)?;
    let (host, port) = text.rsplit_once(':').ok_or_else(invalid)?;
    let port: u16 = port.parse().map_err(|_| invalid())?;
    if host.is_empty() || port == 0 {
        return Err(invalid());
    }
    Ok(text.to_owned())
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\MemcachedStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct MemcachedStorage {
    pub storage: Memcached,
}

#[php_impl]
impl MemcachedStorage {
    /// `$servers`: `host:port`, or several; each service lives on one of them.
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
        Err(super::classes::storage_exception(
            "MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers".into(),
        ))
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
            storage: memcached_storage(servers, [client_prefix, prefix].concat(), timeout),
        })
    }
}
