//! The storage classes PHP code constructs.

use std::rc::Rc;

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use crate::php::clock::{Clock, report_clock};
use crate::php::engine::args::Text;
use crate::php::engine::classes::storage_interface;
use crate::php::engine::gc::{GcBuffer, HoldsPhpValues};
use crate::php::engine::reentry::{AtWork, refuse_reconstruction};
use crate::php::error::logic_exception;
use crate::php::params::ClockArg;
use crate::php::status::list_circuits;
use crate::storage::memory::InMemoryStorage as MemoryStorage;

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\InMemoryStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct InMemoryStorage {
    pub storage: Rc<MemoryStorage>,
    /// Also held by the storage's expiry clock; reported to the collector once.
    pub(super) clock: Rc<Clock>,
    /// The fibers in which a breaker works on this storage: its clock may be
    /// PHP code, which must not come back here from the same fiber.
    pub at_work: Rc<AtWork>,
}

#[php_impl]
impl InMemoryStorage {
    /// `$clock` expires idle circuits; pass the breaker's clock in tests.
    #[php(optional = clock)]
    pub fn __construct(clock: Option<ClockArg<'_>>) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        let clock = Rc::new(Clock::from_arg(clock.map(|clock| clock.0)));
        let expiry_clock = Rc::clone(&clock);
        Ok(Self {
            storage: Rc::new(MemoryStorage::new(Box::new(move || expiry_clock.now_ms()))),
            clock,
            at_work: Rc::default(),
        })
    }

    /// The status of every circuit whose service starts with `$prefix`, at
    /// the storage's clock; window counts are left out (null).
    #[php(defaults(prefix = String::new()))]
    pub fn list_circuits(&self, prefix: Text) -> Result<Vec<Zval>, PhpException> {
        if self.at_work.is_running_fiber_at_work() {
            return Err(logic_exception(
                "InMemoryStorage::listCircuits() was called while a breaker is at work on this storage, by its clock: such calls are refused".into(),
            ));
        }
        list_circuits(&*self.storage, &prefix.0, self.clock.now_ms())
    }
}

impl HoldsPhpValues for InMemoryStorage {
    fn report(&self, buffer: &mut GcBuffer) {
        report_clock(&self.clock, buffer);
    }
}
