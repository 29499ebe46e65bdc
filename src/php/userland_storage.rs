//! A storage written in PHP: any object implementing `StorageInterface` with
//! the three primitives below, which the core composes as it composes
//! Memcached's (`storage::kv`).
//!
//! ```php
//! public function increment(string $key, int $ttl): int;            // +1, creating at 1 with $ttl seconds
//! public function getMultiple(array $keys): array;                    // [key => value] of the keys that exist
//! public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool;
//! ```

use ext_php_rs::convert::IntoZval;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ExecutorGlobals, Function};

use super::typed::Bytes;
use crate::core::duration::Millis;
use crate::storage::StorageError;
use crate::storage::kv::{KeyValue, KvStorage, Values, key_name};

pub const PRIMITIVES: [&str; 3] = ["increment", "getMultiple", "compareAndSet"];

/// The primitives `object` lacks.
pub fn missing_primitives(object: &Zval) -> Vec<&'static str> {
    let Some(method_exists) = Function::try_from_function("method_exists") else {
        return vec![];
    };
    PRIMITIVES
        .into_iter()
        .filter(|method| {
            !method_exists
                .try_call(vec![object, method])
                .is_ok_and(|exists| exists.is_true())
        })
        .collect()
}

pub struct UserlandKeyValue {
    pub(super) object: Zval,
}

fn seconds(ttl_ms: Millis) -> i64 {
    (ttl_ms.max(1) + 999) / 1_000
}

impl UserlandKeyValue {
    /// Calls a primitive; an exception it throws becomes a storage failure.
    fn call(&self, method: &str, arguments: Vec<&dyn ext_php_rs::convert::IntoZvalDyn>) -> Result<Zval, StorageError> {
        let object = self.object.object().expect("a storage object");
        let result = object.try_call_method(method, arguments);
        if let Some(exception) = ExecutorGlobals::take_exception() {
            let class = exception.get_class_name().unwrap_or_default();
            let message = exception
                .try_call_method("getMessage", vec![])
                .ok()
                .and_then(|message| message.string())
                .unwrap_or_default();
            return Err(StorageError::Userland(format!("{method}() threw {class}: {message}")));
        }
        result.map_err(|error| StorageError::Userland(format!("{method}() could not be called: {error}")))
    }
}

impl KeyValue for UserlandKeyValue {
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
        let found: &ZendHashTable = found
            .array()
            .ok_or_else(|| StorageError::Userland("getMultiple() must return an array".into()))?;
        Ok(keys
            .iter()
            .map(|key| {
                let value = found.get(std::str::from_utf8(key).ok()?)?;
                match value.long() {
                    Some(long) => Some(long.to_string().into_bytes()),
                    None => value.zend_str().map(|text| text.as_bytes().to_vec()),
                }
            })
            .collect())
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

pub fn userland_storage(object: &Zval) -> KvStorage<UserlandKeyValue> {
    KvStorage::new(
        UserlandKeyValue {
            object: object.shallow_clone(),
        },
        Box::new(|service| key_name(b"", service)),
    )
}
