//! The storage classes PHP code constructs.

use std::cell::Cell;
use std::rc::Rc;

use super::args::ClockArg;
use ext_php_rs::prelude::*;

use super::classes::storage_interface;
use super::clock::Clock;
use super::reentry::refuse_reconstruction;
use crate::storage::memory::InMemoryStorage as MemoryStorage;

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Storage\\InMemoryStorage")]
#[php(implements(ce = storage_interface, stub = "\\Zeusi\\CircuitBreaker\\Storage\\StorageInterface"))]
pub struct InMemoryStorage {
    pub storage: MemoryStorage,
    /// Also held by the storage's expiry clock; reported to the collector once.
    pub(super) clock: Rc<Clock>,
    /// Set while a breaker works on this storage: its clock may be PHP code,
    /// called with the circuits borrowed, which must not come back here.
    pub busy: Cell<bool>,
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
            storage: MemoryStorage::new(Box::new(move || expiry_clock.now_ms())),
            clock,
            busy: Cell::new(false),
        })
    }
}
