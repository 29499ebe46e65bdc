//! Our handlers in place of those ext-php-rs generates, for what a request
//! runs most.
//!
//! `new` without ext-php-rs' argument parser, for the objects an
//! application builds in every request (a rule, a configuration, a storage,
//! a breaker): the handler ext-php-rs generates for `__construct` builds, on
//! every call, a `String` per parameter name, the stub text of each default
//! and two `Vec`s: most of the cost of `new` for these classes. The handlers
//! here read the arguments where the engine left them, in the call frame,
//! and convert them with the same `FromZval` types (which throw PHP's own
//! `TypeError`s), then call the same constructors. What PHP sees is
//! unchanged: the declared signature (`arg_info`) is the one ext-php-rs
//! registered, the argument count is checked with the engine's own error,
//! and every failure throws what ext-php-rs' handler throws.
//!
//! These constructors and the hot methods (a [`HotMethod`]: the calls a
//! protected call makes) run without the `zend_try` (a `setjmp`) and the
//! thread-local bookkeeping that ext-php-rs puts around every method: about
//! a third of what each call cost on a reused breaker, a sixth of `new`.
//! That `zend_try` is there to stop a fatal error (a `longjmp`) from
//! skipping Rust frames. These handlers need none of their own: every call
//! they make into PHP code goes through `callback::guarded`, and every
//! conversion of an argument that may run some (a user error handler given
//! a notice) through `callback::contain_bailout`, which catch it there and
//! let the frames return;
//! the handler then re-raises it once nothing of ours is left to drop, as
//! `callback::finish` does under the `zend_try` of ext-php-rs. What PHP
//! sees is unchanged: the same argument checks, return values, exceptions
//! (a panic too: an `Error` whose message starts with "Rust panic: ").

use std::panic::AssertUnwindSafe;

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{
    ZEND_ACC_USE_GUARDS, object_properties_init, zend_class_entry, zend_execute_data, zend_function, zend_object,
    zend_object_std_dtor, zend_object_std_init, zval,
};
use ext_php_rs::types::{ZendClassObject, Zval};
use ext_php_rs::zend::{ExecuteData, ZendObjectHandlers, bailout};

use super::callback::{bailout_held, panic_text, take_bailout};
use super::ffi::Handler;
use super::reentry::reconstruction_refused;
use super::throwable::{exception, panic_error};

/// The arguments given to the running constructor.
pub struct Arguments<'a> {
    values: &'a [Zval],
}

/// Why a constructor did not return an object: an exception to throw, or
/// one already thrown (by an argument's conversion).
pub type Refused = Option<PhpException>;

impl<'a> Arguments<'a> {
    /// The arguments of the internal function running in `frame`, when
    /// their count is within `required..=max`; otherwise the engine's
    /// `ArgumentCountError` is thrown.
    pub fn of(frame: &'a ExecuteData, required: u32, max: u32) -> Option<Self> {
        // SAFETY: `u2.num_args` is the member set for a call frame.
        let passed = unsafe { frame.This.u2.num_args };
        if passed < required || passed > max {
            // SAFETY: an exported engine function, throwing the engine's
            // ArgumentCountError for the running function.
            unsafe { ext_php_rs::ffi::zend_wrong_parameters_count_error(required, max) };
            return None;
        }
        // SAFETY: the live frame of this internal function's call.
        let values = unsafe { super::args::arguments(std::ptr::from_ref(frame).cast_mut().cast()) };
        Some(Self { values })
    }

    /// A required parameter, `index` from 0.
    pub fn required<T: FromZval<'a>>(&self, index: usize, name: &str) -> Result<T, Refused> {
        match self.values.get(index) {
            Some(value) => T::from_zval(value).ok_or_else(|| invalid(name)),
            // The count was checked against the required ones.
            None => Err(invalid(name)),
        }
    }

    /// A parameter of type `?T` that may be left out (null then).
    #[inline]
    pub fn optional<T: FromZval<'a>>(&self, index: usize, name: &str) -> Result<Option<T>, Refused> {
        match self.values.get(index) {
            Some(value) => Option::<T>::from_zval(value).ok_or_else(|| invalid(name)),
            None => Ok(None),
        }
    }

    /// A parameter with a default: a null given for it is refused, as the
    /// handlers of ext-php-rs refuse it.
    pub fn defaulted<T: FromZval<'a>>(
        &self,
        index: usize,
        name: &str,
        default: impl FnOnce() -> T,
    ) -> Result<T, Refused> {
        match self.values.get(index) {
            Some(value) if value.is_null() && !T::NULLABLE => {
                Err(Some(type_error(format!("Argument `${name}` must not be null"))))
            }
            Some(value) => T::from_zval(value).ok_or_else(|| invalid(name)),
            None => Ok(default()),
        }
    }
}

fn type_error(message: String) -> PhpException {
    super::throwable::type_error(&message, None)
}

/// What ext-php-rs throws when a conversion fails without throwing (ours
/// all throw PHP's own error first, which this then leaves alone).
fn invalid(name: &str) -> Refused {
    Some(type_error(format!("Invalid value given for argument `{name}`.")))
}

/// A class whose `__construct` runs through [`construct`], which refuses
/// it on an object already constructed before its arguments are read (as
/// `reentry::refuse_reconstruction` does in the other constructors).
pub trait FastConstruct: RegisteredClass {
    /// How many parameters must be given, and how many may.
    const REQUIRED: u32;
    const MAX: u32;
    /// Makes the value into `made` (none before), or says why not.
    fn construct(arguments: &Arguments<'_>, made: &mut Option<Self>) -> Result<(), Refused>;
}

/// The `__construct` handler of `T`.
///
/// # Safety
///
/// Called by the engine only, as the handler of `T::__construct`, with the
/// frame of that call.
unsafe extern "C" fn construct<T: FastConstruct>(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    let run = |frame: &mut ExecuteData, _: &mut Zval| {
        let value: *mut Option<T> = match object_being_made::<T>(frame) {
            Some(this) if this.obj.is_some() => return reconstruction_refused::<T>().throw(),
            Some(this) => &raw mut this.obj,
            None => return exception("Failed to retrieve reference to `this` object.".into()).throw(),
        };
        let Some(arguments) = Arguments::of(frame, T::REQUIRED, T::MAX) else {
            return;
        };
        // SAFETY: the Rust value of `$this`, which the frame keeps alive
        // for the call; nothing else reads or writes it while `new` runs.
        // Written in place: a breaker is a few hundred bytes, each move of
        // it a `memcpy`.
        let refused = T::construct(&arguments, unsafe { &mut *value });
        // A fatal error on the way: the object is left unmade.
        if bailout_held() {
            // SAFETY: as above.
            unsafe { *value = None };
            return;
        }
        if let Err(Some(exception)) = refused {
            exception.throw();
        }
    };
    // SAFETY: the engine's frame and return value of this call.
    unsafe { contained(execute_data, return_value, run) }
}

/// The object `new` is making, whose Rust value is not set yet (or, when
/// `__construct()` is called again, is).
fn object_being_made<T: RegisteredClass>(frame: &mut ExecuteData) -> Option<&mut ZendClassObject<T>> {
    class_object::<T>(frame.get_self()?)
}

/// The `ZendClassObject<T>` around `object`, when `T`'s handlers made it.
/// Only `T`'s `create_object` (ours, or ext-php-rs' where ours is not set)
/// gives an object `T`'s handlers, for `T` or a subclass, and both lay it
/// out in a `ZendClassObject<T>`: the handlers alone say what ext-php-rs'
/// `from_zend_obj` also asks of the class chain (`instanceof`, a walk of it
/// for a subclass), on every call and every free.
fn class_object<T: RegisteredClass>(object: &mut zend_object) -> Option<&mut ZendClassObject<T>> {
    if !std::ptr::eq(object.handlers, T::get_metadata().handlers()) {
        return None;
    }
    let offset = std::mem::offset_of!(ZendClassObject<T>, std);
    // SAFETY: an object with `T`'s handlers lies at `offset` in a
    // `ZendClassObject<T>` (above), alive while the engine holds it.
    unsafe {
        std::ptr::from_mut(object)
            .cast::<u8>()
            .sub(offset)
            .cast::<ZendClassObject<T>>()
            .as_mut()
    }
}

/// The Rust value of `object` when it is a constructed object of `T` or of
/// a subclass: what ext-php-rs' `from_zend_obj` answers, without the
/// `instanceof` that the handlers already answer (see [`class_object`]).
/// Every argument of ours is read through it, on every call.
#[inline]
pub fn native<T: RegisteredClass>(object: &zend_object) -> Option<&T> {
    if !std::ptr::eq(object.handlers, T::get_metadata().handlers()) {
        return None;
    }
    let offset = std::mem::offset_of!(ZendClassObject<T>, std);
    // SAFETY: as in `class_object`; read only.
    let this = unsafe {
        std::ptr::from_ref(object)
            .cast::<u8>()
            .sub(offset)
            .cast::<ZendClassObject<T>>()
            .as_ref()
    };
    this?.obj.as_ref()
}

/// Makes [`free_object`] the handler that frees the objects of `T`.
pub fn replace_free<T: RegisteredClass>() {
    let handlers: *mut ZendObjectHandlers = std::ptr::from_ref(T::get_metadata().handlers()).cast_mut();
    // SAFETY: `T`'s handlers, static for the process; set at module
    // startup, before any object exists.
    unsafe { (*handlers).free_obj = Some(free_object::<T>) };
}

/// Frees an object of `T` as ext-php-rs' handler does (its Rust value
/// dropped, a panic on the way a warning, then the engine's part), without
/// its class checks (see [`class_object`]).
///
/// # Safety
///
/// Called by the engine only, as the `free_obj` handler of `T`'s objects.
unsafe extern "C" fn free_object<T: RegisteredClass>(object: *mut zend_object) {
    // SAFETY: the engine frees a live object of these handlers, once.
    let Some(object) = (unsafe { object.as_mut() }) else {
        return;
    };
    if let Some(this) = class_object::<T>(object) {
        let dropped = std::panic::catch_unwind(AssertUnwindSafe(|| this.obj = None));
        if let Err(payload) = dropped {
            let message = panic_text(payload.as_ref()).unwrap_or_else(|| "non-string panic payload".to_owned());
            ext_php_rs::error::php_error(
                &ext_php_rs::flags::ErrorType::Warning,
                &format!("Rust panic in Drop for {}: {message}", T::CLASS_NAME),
            );
        }
    }
    // SAFETY: the engine's part of the object, freed last, as the engine's
    // own handler does.
    unsafe { zend_object_std_dtor(object) };
}

/// Makes [`construct`] the `__construct` of `T`, and [`create_object`] the
/// handler that makes its objects (its subclasses inherit it when they are
/// declared, in requests).
pub fn replace_constructor<T: FastConstruct>() {
    replace_handler::<T>("__construct", construct::<T>);
    let class = std::ptr::from_ref(T::get_metadata().ce()).cast_mut();
    // SAFETY: a class entry registered by this module, living as long as
    // the process; nothing makes objects while a request starts.
    unsafe { (*class).__bindgen_anon_2.create_object = Some(create_object::<T>) };
}

/// The object `new` makes for `T` or a subclass, as ext-php-rs' handler
/// makes it (a `ZendClassObject<T>` without its value, the engine's
/// `zend_object` after it), without clearing the whole allocation first
/// (`zend_object_alloc()`'s `memset`, a tenth of what `new` costs here):
/// the engine initializes the `zend_object` and its properties, and the
/// value is marked absent, all that is read before `__construct` sets it.
///
/// # Safety
///
/// Called by the engine only, as the `create_object` of `ce`, `T`'s class
/// or a subclass of it.
unsafe extern "C" fn create_object<T: FastConstruct>(ce: *mut zend_class_entry) -> *mut zend_object {
    // The engine's allocator aligns to 8 bytes, and `emalloc` answers null
    // to a stricter layout: a value that needs more does not build.
    const {
        assert!(align_of::<ZendClassObject<T>>() <= 8);
    }
    // SAFETY: `ce` is a live class entry; the size is that of
    // `zend_object_alloc()`: the Rust value and the `zend_object` with its
    // declared properties (one slot of which is inside the `zend_object`,
    // unless the class has property guards, which take it).
    unsafe {
        let slots = (*ce).default_properties_count as isize
            - if (*ce).ce_flags & ZEND_ACC_USE_GUARDS != 0 {
                0
            } else {
                1
            };
        let size = size_of::<ZendClassObject<T>>() as isize + slots * size_of::<zval>() as isize;
        let layout = std::alloc::Layout::from_size_align_unchecked(size as usize, align_of::<ZendClassObject<T>>());
        let object = ext_php_rs::alloc::emalloc(layout).cast::<ZendClassObject<T>>();
        std::ptr::write(&raw mut (*object).obj, None);
        zend_object_std_init(&raw mut (*object).std, ce);
        object_properties_init(&raw mut (*object).std, ce);
        (*object).std.handlers = T::get_metadata().handlers();
        &raw mut (*object).std
    }
}

/// Makes `handler` the one PHP runs for `T::method` (lowercase).
pub fn replace_handler<T: RegisteredClass>(method: &str, handler: Handler) {
    let class = T::get_metadata().ce();
    // SAFETY: a registered class's function table lives as long as the
    // process; the lookup only reads it.
    let function = unsafe {
        ext_php_rs::ffi::zend_hash_str_find_ptr_lc(
            &raw const class.function_table,
            method.as_ptr().cast(),
            method.len(),
        )
    }
    .cast::<zend_function>();
    // SAFETY: the `zend_function` of an internal method, allocated by the
    // engine for the process; every member of the union starts with
    // `common`, and an internal one is an `internal_function`. Nothing runs
    // it while a request starts.
    unsafe {
        if let Some(function) = function.as_mut()
            && u32::from(function.common.type_) == ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION
        {
            function.internal_function.handler = Some(handler);
        }
    }
}

/// A method of `Class` whose handler is [`method`].
pub trait HotMethod {
    type Class: RegisteredClass;
    /// Its name, lowercase.
    const NAME: &'static str;
    /// How many arguments it takes at most (none is required).
    const MAX: u32;
    type Arguments;
    /// Its arguments, converted before `$this` is looked at.
    fn arguments(arguments: &Arguments<'_>) -> Result<Self::Arguments, Refused>;
    /// Runs it on a constructed `$this`: a bool to return, or null.
    fn call(this: &Self::Class, arguments: Self::Arguments) -> Result<Option<bool>, PhpException>;
}

/// Makes [`method`] the handler of `M`.
pub fn replace_method<M: HotMethod>() {
    replace_handler::<M::Class>(M::NAME, method::<M>);
}

/// Runs `M` as ext-php-rs' handlers do: the argument count checked against
/// `0..=MAX`, the arguments converted, then `$this` found and the method
/// run; what it returns is left in `return_value`.
///
/// # Safety
///
/// Called by the engine only, as the handler of `M`, with the frame and
/// return value of that call.
unsafe extern "C" fn method<M: HotMethod>(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's frame and return value of this call.
    unsafe {
        contained(execute_data, return_value, |frame, returned| {
            let converted = match Arguments::of(frame, 0, M::MAX).map(|arguments| M::arguments(&arguments)) {
                Some(Ok(converted)) => converted,
                Some(Err(Some(exception))) => return exception.throw(),
                // Thrown already.
                Some(Err(None)) | None => return,
            };
            let Some(this) = constructed::<M::Class>(frame) else {
                return super::unconstructed::throw_not_constructed(frame);
            };
            let result = M::call(this, converted);
            // A fatal error on the way: the engine reads nothing of this call.
            if bailout_held() {
                return;
            }
            match result {
                Ok(Some(value)) => returned.set_bool(value),
                Ok(None) => returned.set_null(),
                Err(exception) => exception.throw(),
            }
        });
    }
}

/// A static method of `Class` that makes an object of `Made` from its
/// arguments, run by [`static_method`]: a named constructor a request calls
/// as often as `new` (`RampPolicy::createExponential()`).
pub trait HotStatic {
    type Class: RegisteredClass;
    /// Its name, lowercase.
    const NAME: &'static str;
    /// How many arguments it requires, and takes at most.
    const REQUIRED: u32;
    const MAX: u32;
    type Made: RegisteredClass + IntoZval;
    fn call(arguments: &Arguments<'_>) -> Result<Self::Made, Refused>;
}

/// Makes [`static_method`] the handler of `M`.
pub fn replace_static<M: HotStatic>() {
    replace_handler::<M::Class>(M::NAME, static_method::<M>);
}

/// Runs `M` as ext-php-rs' handlers do: the argument count checked, the
/// object made, or what refused it thrown.
///
/// # Safety
///
/// Called by the engine only, as the handler of `M`, with the frame and
/// return value of that call.
unsafe extern "C" fn static_method<M: HotStatic>(execute_data: *mut zend_execute_data, return_value: *mut zval) {
    // SAFETY: the engine's frame and return value of this call.
    unsafe {
        contained(execute_data, return_value, |frame, returned| {
            let Some(arguments) = Arguments::of(frame, M::REQUIRED, M::MAX) else {
                return;
            };
            let made = M::call(&arguments);
            if bailout_held() {
                return;
            }
            match made {
                Ok(made) => {
                    if let Err(error) = made.set_zval(returned, false) {
                        exception(error.to_string()).throw();
                    }
                }
                Err(Some(exception)) => exception.throw(),
                Err(None) => {}
            }
        });
    }
}

/// Runs `run` on the frame and return value of a call without ext-php-rs'
/// `zend_try`: a panic becomes the `Error` ext-php-rs throws for one, and a
/// fatal error caught on the way (`callback::guarded`) is raised again once
/// `run`'s frames have returned.
///
/// # Safety
///
/// `execute_data` and `return_value` are those the engine gives the handler
/// of an internal function.
unsafe fn contained(
    execute_data: *mut zend_execute_data,
    return_value: *mut zval,
    run: impl FnOnce(&mut ExecuteData, &mut Zval),
) {
    let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the engine's live frame and return value of this call.
        let (Some(frame), Some(returned)) = (unsafe { execute_data.cast::<ExecuteData>().as_mut() }, unsafe {
            return_value.cast::<Zval>().as_mut()
        }) else {
            return;
        };
        run(frame, returned);
    }));
    if let Err(payload) = ran {
        let message = panic_text(payload.as_ref()).unwrap_or_else(|| "non-string panic payload".to_owned());
        panic_error(&message).throw();
    }
    if take_bailout() {
        // SAFETY: every Rust frame of this call has returned; this one
        // holds nothing to drop. The jump goes to the engine's `zend_try`.
        unsafe { bailout() }
    }
}

/// The Rust value behind `$this`, once constructed.
fn constructed<T: RegisteredClass>(frame: &mut ExecuteData) -> Option<&T> {
    class_object::<T>(frame.get_self()?)?.obj.as_ref()
}
