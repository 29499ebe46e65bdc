//! Refusing calls that come back into an object while Rust code up the stack
//! still uses it: a storage, clock or ramp curve written in PHP that calls its
//! own breaker, or `__construct()` called again on a live object.

use std::cell::Cell;

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::exception::PhpException;
use ext_php_rs::types::ZendClassObject;

use super::classes::logic_exception;

/// Marks an object busy while Rust code works on it and calls into PHP.
pub struct Busy<'a>(&'a Cell<bool>);

impl<'a> Busy<'a> {
    /// `None` when the object is already busy further up the stack.
    pub fn enter(flag: &'a Cell<bool>) -> Option<Self> {
        (!flag.replace(true)).then_some(Self(flag))
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Refuses `__construct()` on an object of `T` that is already constructed:
/// replacing its Rust value would free what a call up the stack still reads
/// (and a breaker is immutable anyway). Called first in the constructors.
pub fn refuse_reconstruction<T: RegisteredClass>() -> Result<(), PhpException> {
    // SAFETY: the executor globals live as long as the process (read
    // without `ExecutorGlobals::get()`, whose lock costs more than the rest
    // of this); while a method of ours runs, `current_execute_data` is its
    // own live frame, and `This` its object.
    let frame = unsafe {
        (*ext_php_rs::ffi::ext_php_rs_executor_globals())
            .current_execute_data
            .as_ref()
    };
    let constructed = frame
        .and_then(|frame| frame.This.object())
        .is_some_and(|this| ZendClassObject::<T>::from_zend_obj(this).is_some());
    if constructed {
        return Err(logic_exception(format!(
            "{}::__construct() cannot be called on an object already constructed",
            T::CLASS_NAME
        )));
    }
    Ok(())
}
