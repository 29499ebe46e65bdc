//! Refusing calls that come back into an object while Rust code up the stack
//! still uses it: a storage, clock or ramp curve written in PHP that calls its
//! own breaker, or `__construct()` called again on a live object. Calls from
//! other fibers are not refused.

use std::cell::{Cell, RefCell};

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::exception::PhpException;

use super::current_fiber;
use super::throwable::logic_exception;

/// The fibers at work on an object, each in a call that may call into PHP.
///
/// Only the fiber already at work is refused: a call back into the object
/// from PHP code it called (a storage, clock or ramp curve) is on the same
/// stack, and would find the object's state half-changed. Another fiber is
/// not re-entrancy: the first suspended while waiting for its storage, as
/// fibers over an asynchronous client do, and each call keeps its state on
/// its own fiber's stack.
///
/// The words every call reads come last, beside what follows them in a
/// `#[repr(C)]` owner (see `CircuitBreaker`).
#[derive(Default)]
#[repr(C)]
pub struct AtWork {
    /// Those that came while the first was at work.
    others: RefCell<Vec<usize>>,
    /// The first fiber at work, 0 for none: the only one outside an event loop.
    first: Cell<usize>,
    /// Whether `others` holds any: read on every call instead of borrowing it.
    crowded: Cell<bool>,
}

impl AtWork {
    /// Marks the running fiber at work; `None` when it already is, further up its stack.
    #[inline]
    pub fn enter(&self) -> Option<Working<'_>> {
        let fiber = current_fiber();
        if self.first.get() == 0 && !self.crowded.get() {
            self.first.set(fiber);
            return Some(Working { at: self, fiber });
        }
        self.enter_among_others(fiber)
    }

    /// Whether no fiber is at work: a call that runs no PHP code and
    /// leaves no fiber's turn may then go without entering.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.first.get() == 0 && !self.crowded.get()
    }

    #[cold]
    fn enter_among_others(&self, fiber: usize) -> Option<Working<'_>> {
        if self.is_at_work(fiber) {
            return None;
        }
        if self.first.get() == 0 {
            self.first.set(fiber);
        } else {
            self.others.borrow_mut().push(fiber);
            self.crowded.set(true);
        }
        Some(Working { at: self, fiber })
    }

    /// Whether the running fiber is at work on the object, further up its stack.
    pub fn is_running_fiber_at_work(&self) -> bool {
        self.is_at_work(current_fiber())
    }

    fn is_at_work(&self, fiber: usize) -> bool {
        self.first.get() == fiber || (self.crowded.get() && self.others.borrow().contains(&fiber))
    }

    #[cold]
    fn leave_among_others(&self, fiber: usize) {
        let mut others = self.others.borrow_mut();
        others.retain(|&other| other != fiber);
        self.crowded.set(!others.is_empty());
    }
}

/// A fiber at work on an object, until dropped (also when a destroyed fiber's frames unwind).
pub struct Working<'a> {
    at: &'a AtWork,
    fiber: usize,
}

impl Drop for Working<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.at.first.get() == self.fiber {
            self.at.first.set(0);
        } else {
            self.at.leave_among_others(self.fiber);
        }
    }
}

/// A value for each fiber, set and taken within one call that may suspend
/// (what a storage or a curve written in PHP threw), so that a fiber never
/// takes another's. Past `KEPT` values (of fibers that never took theirs),
/// the oldest is dropped.
pub struct PerFiber<T> {
    values: RefCell<Vec<(usize, T)>>,
}

impl<T> PerFiber<T> {
    const KEPT: usize = 64;

    pub const fn new() -> Self {
        Self {
            values: RefCell::new(Vec::new()),
        }
    }

    /// Sets the running fiber's value, replacing the one it had.
    pub fn set(&self, value: T) {
        let fiber = current_fiber();
        let mut values = self.values.borrow_mut();
        values.retain(|(other, _)| *other != fiber);
        if values.len() >= Self::KEPT {
            values.remove(0);
        }
        values.push((fiber, value));
    }

    /// Takes the running fiber's value.
    pub fn take(&self) -> Option<T> {
        let mut values = self.values.borrow_mut();
        if values.is_empty() {
            return None;
        }
        let fiber = current_fiber();
        let index = values.iter().position(|(other, _)| *other == fiber)?;
        Some(values.swap_remove(index).1)
    }

    /// Runs `f` on every value held, of every fiber.
    pub fn for_each(&self, mut f: impl FnMut(&T)) {
        self.values.borrow().iter().for_each(|(_, value)| f(value));
    }
}

impl<T> Default for PerFiber<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Refuses `__construct()` on an object of `T` that is already constructed:
/// replacing its Rust value would free what a call up the stack still reads
/// (and a breaker is immutable anyway). Called first in the constructors.
pub fn refuse_reconstruction<T: RegisteredClass>() -> Result<(), PhpException> {
    // While a method of ours runs, the current frame is its own, and
    // `This` its object.
    let constructed = super::globals::current_frame()
        .and_then(|frame| frame.This.object())
        .is_some_and(|this| super::handlers::native::<T>(this).is_some());
    if constructed {
        return Err(reconstruction_refused::<T>());
    }
    Ok(())
}

/// What a second `__construct()` on an object of `T` throws.
pub fn reconstruction_refused<T: RegisteredClass>() -> PhpException {
    logic_exception(format!(
        "{}::__construct() cannot be called on an object already constructed",
        T::CLASS_NAME
    ))
}
