//! PHP's throwables, built and chained: an exception of any class with a
//! message that may hold NUL bytes (ext-php-rs builds them from a C string),
//! `new $class($message, $code, $previous)` with its file, line and trace,
//! PHP's own errors (`TypeError`, `ValueError`, SPL's `LogicException`), and
//! the chain of previous exceptions, which ext-php-rs does not reach.

use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::IntoZval;
use ext_php_rs::exception::PhpException;
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ce};

use super::classes::{ClassSlot, in_scope_of_class, spl_class};

/// An exception of `class` with `message` and `code`. A message holding a
/// NUL byte (a service name, a stored value, a driver's message may) is
/// given as a built object: ext-php-rs builds the others from a C string,
/// and would throw "string contains a NUL byte" instead.
pub fn exception_with_code(class: &'static ClassEntry, message: String, code: i32) -> PhpException {
    if message.contains('\0') {
        let object = throwable(class, &message, code, None);
        return PhpException::new(message.replace('\0', "\\0"), code, class).with_object(object);
    }
    PhpException::new(message, code, class)
}

/// An exception of `class` with `message`.
pub fn exception_of(class: &'static ClassEntry, message: String) -> PhpException {
    exception_with_code(class, message, 0)
}

/// An exception already built (what PHP code threw, one of ours made as
/// an object), thrown as it is.
pub fn rethrow(exception: Zval) -> PhpException {
    PhpException::new(String::new(), 0, ce::exception()).with_object(exception)
}

/// `new $class($message, $code, $previous)`, ready to throw or to hand to a
/// listener, with its file, line and trace.
pub fn throwable(class: &ClassEntry, message: &str, code: i32, previous: Option<&Zval>) -> Zval {
    let zval = ZendObject::new(class).into_zval(false).unwrap_or_default();
    if let Some(object) = zval.object() {
        let code = i64::from(code);
        let _ = match previous {
            Some(previous) => super::callback::call_method(object, "__construct", vec![&message, &code, previous]),
            None if code != 0 => super::callback::call_method(object, "__construct", vec![&message, &code]),
            None => super::callback::call_method(object, "__construct", vec![&message]),
        };
    }
    zval
}

/// `new $class($message, 0, $previous)`.
pub fn new_throwable(class: &ClassEntry, message: &str, previous: Option<&Zval>) -> Zval {
    throwable(class, message, 0, previous)
}

/// An exception of one of our classes, built as `new $class($message)`.
pub fn new_exception(class: &ClassSlot, message: &str) -> Zval {
    new_throwable(class.get(), message, None)
}

/// A plain `Exception`: what ext-php-rs' own handlers throw for what they
/// cannot do, and what a call given something it cannot call throws.
pub fn exception(message: String) -> PhpException {
    exception_of(ce::exception(), message)
}

/// A `LogicException`: a misuse of the API by the code that calls it.
pub fn logic_exception(message: String) -> PhpException {
    exception_of(spl_class("spl_ce_LogicException"), message)
}

/// An `UnexpectedValueException`: PHP code called by the extension returned
/// what it must not (a ramp curve's NAN), ready to throw.
pub fn unexpected_value(message: &str) -> Zval {
    new_throwable(spl_class("spl_ce_UnexpectedValueException"), message, None)
}

/// A `TypeError`, with the exception it stands in for as its previous.
pub fn type_error(message: &str, previous: Option<&Zval>) -> PhpException {
    match previous {
        Some(previous) => PhpException::new(message.to_owned(), 0, ce::type_error()).with_object(new_throwable(
            ce::type_error(),
            message,
            Some(previous),
        )),
        None => exception_of(ce::type_error(), message.to_owned()),
    }
}

/// A `ValueError`: an argument of the right type outside its limits.
pub fn value_error(message: String) -> PhpException {
    exception_of(ce::value_error(), message)
}

/// The `Error` of a write to (or an unset of) a read-only property, as
/// PHP's own readonly properties throw it.
pub fn readonly_error(message: String) -> PhpException {
    exception_of(ce::error(), message)
}

/// The `Error` a method throws in place of a panic of the extension.
pub fn panic_error(message: &str) -> PhpException {
    exception_of(ce::error(), format!("Rust panic: {message}"))
}

/// Hangs `previous` at the end of the chain of `exception`'s previous
/// exceptions, as PHP does for an exception thrown in a `finally`, unless it
/// is already in that chain (or is `exception` itself).
pub fn add_previous(exception: &mut ZendObject, previous: &Zval) {
    let Some(previous_object) = previous.object() else {
        return;
    };
    let mut link = Some(std::ptr::from_ref::<ZendObject>(exception));
    while let Some(current) = link {
        if std::ptr::eq(current, previous_object) {
            return;
        }
        // SAFETY: each link is a live Throwable held by the chain.
        let current = unsafe { &*current };
        link = previous_of(current).map(std::ptr::from_ref);
    }
    // SAFETY: both are live Throwables; the engine takes over one reference
    // to `previous`, which we add first.
    unsafe {
        let previous_object = std::ptr::from_ref(previous_object).cast_mut();
        (*previous_object).gc.refcount += 1;
        super::ffi::zend_exception_set_previous(std::ptr::from_mut(exception), previous_object);
    }
}

/// The `$previous` of a Throwable: a private property of `Exception` or
/// `Error`, read in the scope of the one it extends.
fn previous_of(throwable: &ZendObject) -> Option<&ZendObject> {
    let base = if throwable.instance_of(ce::exception()) {
        ce::exception()
    } else {
        ce::error()
    };
    let previous = in_scope_of_class(base, || {
        throwable.get_property::<&Zval>("previous").ok().and_then(Zval::object)
    });
    // SAFETY: the object is held by `throwable`'s property table, which
    // outlives this borrow.
    previous.map(|previous| unsafe { &*std::ptr::from_ref(previous) })
}

/// Makes `previous` the previous exception of `exception`, handing it our
/// reference.
pub fn set_previous(exception: &ZendObject, previous: ZBox<ZendObject>) {
    // SAFETY: both are live exception objects; the call takes over our
    // reference to `previous` (stored as `previous`, then released).
    unsafe { super::ffi::zend_exception_set_previous(std::ptr::from_ref(exception).cast_mut(), previous.into_raw()) };
}
