//! The storage classes PHP code constructs.

use super::args::ClockArg;
use ext_php_rs::prelude::*;

use super::classes::storage_interface;
use std::rc::Rc;

use ext_php_rs::types::Zval;

use super::clock::Clock;
use super::status::list_circuits;
use crate::storage::memory::InMemoryStorage as MemoryStorage;

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\InMemoryStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct InMemoryStorage {
    pub storage: MemoryStorage,
    clock: Rc<Clock>,
}

#[php_impl]
impl InMemoryStorage {
    /// `$clock` expires idle circuits; pass the breaker's clock in tests.
    #[php(optional = clock)]
    pub fn __construct(clock: Option<ClockArg<'_>>) -> Self {
        let clock = Rc::new(Clock::from_arg(clock.map(|clock| clock.0)));
        let expiry = clock.clone();
        Self {
            storage: MemoryStorage::new(Box::new(move || expiry.now_ms())),
            clock,
        }
    }

    /// The status of every circuit whose service starts with `$prefix`, at
    /// the storage's clock; window counts are left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: String) -> Result<Vec<Zval>, PhpException> {
        list_circuits(&self.storage, &prefix, self.clock.now_ms())
    }
}
