//! A storage written in PHP: a `KeyValueStoreInterface` (or, as before that
//! interface existed, a `StorageInterface` with the same methods), whose
//! three primitives below the core composes as it composes Memcached's
//! (`storage::kv`).
//!
//! ```php
//! public function increment(string $key, int $ttl): int;            // +1, creating at 1 with $ttl seconds
//! public function getMultiple(array $keys): array;                    // [key => value] of the keys that exist
//! public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool;
//! ```

use ext_php_rs::convert::IntoZval;
use ext_php_rs::types::{ArrayKey, ZendHashTable, Zval};
use ext_php_rs::zend::ExecutorGlobals;

use crate::core::duration::Millis;
use crate::php::engine::args::describe;
use crate::php::engine::callback::{CallError, call_method, has_method};
use crate::php::engine::gc::GcBuffer;
use crate::php::engine::reentry::PerFiber;
use crate::php::engine::typed::Bytes;
use crate::storage::StorageError;
use crate::storage::kv::{KeyValue, KvStorage, Values, key_name};

pub const PRIMITIVES: [&str; 3] = ["increment", "getMultiple", "compareAndSet"];

/// The primitives `object` lacks.
pub fn missing_primitives(object: &Zval) -> Vec<&'static str> {
    let Some(object) = object.object() else {
        return PRIMITIVES.to_vec();
    };
    PRIMITIVES
        .into_iter()
        .filter(|method| !has_method(object, method))
        .collect()
}

pub struct UserlandKeyValue {
    pub(super) object: Zval,
    /// What the primitive that failed in the current call of each fiber
    /// threw: the previous of the `StorageException` that reports the
    /// failure. By fiber, for breakers shared by fibers that await inside
    /// the primitives.
    pub(super) thrown: PerFiber<Zval>,
}

impl UserlandKeyValue {
    /// The PHP values it holds: the storage object and what it threw.
    pub fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.object);
        self.thrown.for_each(|thrown| buffer.add(thrown));
    }
}

fn seconds(ttl_ms: Millis) -> i64 {
    (ttl_ms.max(1) + 999) / 1_000
}

impl UserlandKeyValue {
    /// Calls a primitive; an exception it throws becomes a storage failure.
    /// An `exit()` or a fatal error in it ends the call here; the script ends
    /// once the breaker's method returns.
    fn call(&self, method: &str, arguments: Vec<&dyn ext_php_rs::convert::IntoZvalDyn>) -> Result<Zval, StorageError> {
        let object = self
            .object
            .object()
            .ok_or_else(|| StorageError::Userland("the storage is not an object".into()))?;
        match call_method(object, method, arguments) {
            Ok(result) => Ok(result),
            Err(CallError::Threw(_)) => {
                let exception = ExecutorGlobals::take_exception().and_then(|exception| exception.into_zval(false).ok());
                let class = exception
                    .as_ref()
                    .and_then(Zval::object)
                    .and_then(|exception| exception.get_class_name().ok())
                    .unwrap_or_default();
                let message = exception
                    .as_ref()
                    .and_then(Zval::object)
                    .and_then(|exception| call_method(exception, "getMessage", vec![]).ok())
                    .and_then(|message| message.string())
                    .unwrap_or_default();
                if let Some(exception) = exception {
                    self.thrown.set(exception);
                }
                Err(StorageError::Userland(format!("{method}() threw {class}: {message}")))
            }
            Err(error) => Err(StorageError::Userland(format!("{method}(): {error}"))),
        }
    }
}

impl UserlandKeyValue {
    /// What the failing primitive of this call threw, once.
    pub fn take_thrown(&self) -> Option<Zval> {
        self.thrown.take()
    }
}

impl KeyValue for UserlandKeyValue {
    fn begin_call(&self) {
        self.take_thrown();
    }

    fn increment(&self, _shard: u64, key: &[u8], ttl_ms: Millis) -> Result<u64, StorageError> {
        let value = self.call("increment", vec![&Bytes(key), &seconds(ttl_ms)])?;
        value
            .long()
            .and_then(|long| u64::try_from(long).ok())
            .ok_or_else(|| StorageError::Userland("increment() must return a positive int".into()))
    }

    fn get_multiple(&self, _shard: u64, keys: &[Vec<u8>]) -> Result<Values, StorageError> {
        let requested: Vec<Bytes<'_>> = keys.iter().map(|key| Bytes(key)).collect();
        let requested = requested
            .into_zval(false)
            .map_err(|error| StorageError::Userland(error.to_string()))?;
        let found = self.call("getMultiple", vec![&requested])?;
        let found: &ZendHashTable = found.array().ok_or_else(|| {
            StorageError::Userland(format!(
                "getMultiple() must return an array keyed by the keys found, it returned {}",
                describe(&found)
            ))
        })?;
        check_keys(found)?;
        keys.iter()
            .map(|key| {
                let Some(value) = found.get(std::str::from_utf8(key).unwrap_or_default()) else {
                    return Ok(None);
                };
                stored_value(key, value).map(Some)
            })
            .collect()
    }

    fn compare_and_set(
        &self,
        _shard: u64,
        key: &[u8],
        expected: Option<&[u8]>,
        value: &[u8],
        ttl_ms: Millis,
    ) -> Result<bool, StorageError> {
        let expected = expected.map(Bytes);
        let stored = self.call(
            "compareAndSet",
            vec![&Bytes(key), &expected, &Bytes(value), &seconds(ttl_ms)],
        )?;
        Ok(stored.is_true())
    }
}

/// A multi-get answers with the keys found as its keys: a list (as Redis'
/// MGET returns) would otherwise read as "all absent". Keys not asked for
/// are ignored.
fn check_keys(found: &ZendHashTable) -> Result<(), StorageError> {
    match found.iter().find_map(|(key, _)| match key {
        ArrayKey::Long(index) => Some(index),
        ArrayKey::String(_) | ArrayKey::Str(_) | ArrayKey::ZendString(_) => None,
    }) {
        Some(index) => Err(StorageError::Userland(format!(
            "getMultiple() returned an array with the integer key {index} (a list?): it must return the values found keyed by their keys"
        ))),
        None => Ok(()),
    }
}

/// A value read back: an int of at least 0, or a string. What a string
/// holds is for the composition to judge (`storage::kv`: a state that does
/// not parse, or a counter that holds no number, is replaced and reported);
/// any other value is a bug of the storage, never read as 0.
fn stored_value(key: &[u8], value: &Zval) -> Result<Vec<u8>, StorageError> {
    let text = match (value.long(), value.zend_str()) {
        (Some(long), _) if long >= 0 => Some(long.to_string().into_bytes()),
        (_, Some(text)) => Some(text.as_bytes().to_vec()),
        _ => None,
    };
    text.ok_or_else(|| {
        StorageError::Userland(format!(
            "getMultiple() returned {} for the key '{}': a value is a string, or an int of at least 0",
            describe(value),
            String::from_utf8_lossy(key),
        ))
    })
}

pub fn userland_storage(object: &Zval) -> KvStorage<UserlandKeyValue> {
    KvStorage::new(
        UserlandKeyValue {
            object: object.shallow_clone(),
            thrown: PerFiber::new(),
        },
        Box::new(|service| key_name(b"", service)),
    )
}
