//! A value made at module startup (or at the first request start) and
//! dropped at module shutdown, read by every request in between without a
//! lock: the shared-memory segment, the guards of unconstructed objects.
//! PHP runs no request while a module starts or shuts down, which is what
//! makes the `&'static` reads sound; this type holds that argument once.

use std::sync::atomic::{AtomicPtr, Ordering};

pub struct ModuleGlobal<T> {
    value: AtomicPtr<T>,
}

impl<T> ModuleGlobal<T> {
    pub const fn new() -> Self {
        Self {
            value: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Sets the value, dropping the one before (a module restarted in the
    /// same process). Only at module startup or request start, before
    /// anything of the request reads it.
    pub fn set(&self, value: T) {
        drop_boxed(self.value.swap(Box::into_raw(Box::new(value)), Ordering::AcqRel));
    }

    /// The value, until module shutdown.
    #[inline]
    pub fn get(&self) -> Option<&'static T> {
        // SAFETY: a non-null pointer is a box `set` leaked, freed only by
        // `set` (at module startup) or `clear` (at module shutdown), when
        // no request runs and so nothing holds a reference read here.
        unsafe { self.value.load(Ordering::Acquire).as_ref() }
    }

    /// Drops the value: at module shutdown only, once no request runs.
    pub fn clear(&self) {
        drop_boxed(self.value.swap(std::ptr::null_mut(), Ordering::AcqRel));
    }
}

fn drop_boxed<T>(value: *mut T) {
    if !value.is_null() {
        // SAFETY: the pointer came from `Box::into_raw` in `set` and was
        // swapped out of the global, so nothing else will free it.
        drop(unsafe { Box::from_raw(value) });
    }
}
