//! Parameter types that PHP sees exactly as documented (`int`, `float`,
//! `string`, `array`, `callable`, and through `object_arg!` a class or an
//! interface), each taking the value it is
//! given as PHP takes it for a parameter of an internal function: scalars
//! coerced by the engine's own rules unless the caller declared
//! `strict_types`, and a `TypeError` worded by the engine otherwise
//! ("C::m(): Argument #2 ($configuration) must be of type Configuration,
//! string given").
//!
//! ext-php-rs extracts every argument with `FromZval` and throws its own
//! "Invalid value given" when that fails, unless an exception is already
//! pending: so each type here throws PHP's error itself, then fails.

use std::borrow::Cow;
use std::ffi::{CStr, c_char};

use ext_php_rs::convert::{FromZval, FromZvalMut};
use ext_php_rs::ffi::{zend_execute_data, zend_internal_arg_info, zend_long, zend_string, zval};
use ext_php_rs::flags::DataType;
use ext_php_rs::types::{Iterable, ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecutorGlobals};

use super::ffi::{
    get_active_function_or_method_name, zend_argument_error, zend_argument_type_error, zend_is_callable_ex,
    zend_parse_arg_double_slow, zend_parse_arg_long_slow, zend_parse_arg_str_slow, zend_type_to_string,
    zend_wrong_callback_error, zend_wrong_callback_or_null_error, zend_zval_type_name,
};

/// `ZEND_FETCH_CLASS_NO_AUTOLOAD`: an interface that is not loaded cannot be
/// implemented by the object at hand, so it is never worth autoloading.
const FETCH_CLASS_NO_AUTOLOAD: u32 = 0x80;

/// `ZEND_CALL_FRAME_SLOT`: where the arguments start in a call frame, in
/// zvals (the frame header rounded up to whole zvals).
pub(crate) const CALL_FRAME_SLOT: usize =
    std::mem::size_of::<zend_execute_data>().div_ceil(std::mem::size_of::<zval>());

/// The arguments of the internal function running in `frame`.
///
/// # Safety
///
/// `frame` is the live frame of an internal function call.
#[inline]
pub unsafe fn arguments<'a>(frame: *mut ext_php_rs::ffi::zend_execute_data) -> &'a [ext_php_rs::types::Zval] {
    // SAFETY: the caller's frame; `u2.num_args` is the member set for a
    // call, and the arguments of an internal function lie one after another
    // from `ZEND_CALL_FRAME_SLOT`, alive for the call.
    unsafe {
        let passed = (*frame).This.u2.num_args as usize;
        std::slice::from_raw_parts(frame.cast::<ext_php_rs::types::Zval>().add(CALL_FRAME_SLOT), passed)
    }
}

/// An argument of the internal function that is running: its number (from
/// 1) and its declared type.
struct Argument {
    number: u32,
    info: &'static zend_internal_arg_info,
}

/// The internal function that is running, with its call frame.
fn running_internal_function() -> Option<(&'static zend_execute_data, &'static ext_php_rs::ffi::zend_function)> {
    let frame = super::globals::current_frame()?;
    // SAFETY: a running frame has its function set.
    let function = unsafe { frame.func.as_ref() }?;
    // SAFETY: every member of the `zend_function` union starts with
    // `common`.
    let common = unsafe { &function.common };
    if u32::from(common.type_) != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION || common.arg_info.is_null() {
        return None;
    }
    Some((frame, function))
}

/// The `common` member of a function, which every member of the union starts with.
fn common_of(function: &ext_php_rs::ffi::zend_function) -> (u32, *mut ext_php_rs::ffi::zend_arg_info) {
    // SAFETY: every member of the `zend_function` union starts with `common`.
    let common = unsafe { &function.common };
    (common.num_args, common.arg_info)
}

impl Argument {
    /// The argument `value` is, when it is one of the running internal
    /// function's arguments (ext-php-rs hands `FromZval` the zval in the call
    /// frame itself); `None` for any other value.
    fn of(value: &Zval) -> Option<Self> {
        let (frame, function) = running_internal_function()?;
        let (num_args, _) = common_of(function);
        // SAFETY: `u2.num_args` is the member set for a call frame.
        let passed = unsafe { frame.This.u2.num_args } as usize;
        let first = std::ptr::from_ref(frame).cast::<zval>().wrapping_add(CALL_FRAME_SLOT);
        let offset = (std::ptr::from_ref(value).cast::<zval>() as isize).wrapping_sub(first as isize);
        let size = std::mem::size_of::<zval>() as isize;
        if offset < 0 || offset % size != 0 {
            return None;
        }
        let index = (offset / size) as usize;
        if index >= passed || index >= num_args as usize {
            return None;
        }
        Self::at(function, index)
    }

    /// The parameter of the running internal function called `name`.
    fn named(name: &str) -> Option<Self> {
        let (_, function) = running_internal_function()?;
        let (num_args, _) = common_of(function);
        (0..num_args as usize).find_map(|index| {
            let argument = Self::at(function, index)?;
            // SAFETY: an internal function's argument names are static,
            // NUL-terminated C strings (or null).
            let found = !argument.info.name.is_null()
                && unsafe { CStr::from_ptr(argument.info.name) }.to_bytes() == name.as_bytes();
            found.then_some(argument)
        })
    }

    fn at(function: &'static ext_php_rs::ffi::zend_function, index: usize) -> Option<Self> {
        let (_, arg_info) = common_of(function);
        // SAFETY: an internal function's `arg_info` is an array of
        // `num_args` `zend_internal_arg_info` (the same layout as
        // `zend_arg_info`), living as long as the function; the callers
        // keep `index` below `num_args`.
        let info = unsafe { &*arg_info.cast::<zend_internal_arg_info>().add(index) };
        Some(Self {
            number: index as u32 + 1,
            info,
        })
    }

    fn nullable(&self) -> bool {
        self.info.type_.type_mask & ext_php_rs::ffi::_ZEND_TYPE_NULLABLE_BIT != 0
    }

    /// Throws PHP's `TypeError` for `value`, unless an exception (a
    /// deprecation turned into one, a throwing `__toString()`) is already on
    /// its way, as `zend_wrong_parameter_error` does.
    fn type_error(&self, value: &Zval) {
        if ExecutorGlobals::has_exception() {
            return;
        }
        if let Some(class) = super::unconstructed::unconstructed_class(value) {
            let message = std::ffi::CString::new(super::unconstructed::not_constructed(&class).replace('\0', ""))
                .unwrap_or_default();
            // SAFETY: PHP's `Error` class, and a NUL-terminated message passed through "%s".
            unsafe {
                zend_argument_error(
                    std::ptr::from_ref(ext_php_rs::zend::ce::error()).cast_mut(),
                    self.number,
                    c"%s".as_ptr(),
                    message.as_ptr(),
                );
            }
            return;
        }
        // SAFETY: the type of an argument of a registered function; the
        // string returned is ours to release.
        let expected = unsafe { zend_type_to_string(self.info.type_) };
        let given = given_name(value);
        // SAFETY: `given` is a static or class-name string that outlives
        // this call; `expected`, when not null, is a live zend_string,
        // NUL-terminated as every zend_string.
        unsafe {
            let expected_text = expected
                .as_ref()
                .map_or(c"mixed".as_ptr(), |expected| expected.val.as_ptr());
            zend_argument_type_error(
                self.number,
                c"must be of type %s, %s given".as_ptr(),
                expected_text,
                given,
            );
            if !expected.is_null() {
                ext_php_rs::ffi::ext_php_rs_zend_string_release(expected);
            }
        }
    }
}

/// Whether PHP names a bool "true" or "false" in its type errors, as
/// `zend_zval_value_name()` does since PHP 8.3 ("must be of type int, true
/// given"), instead of "bool". Known when the extension is built: ext-php-rs
/// gives this crate no version cfg, but its bindings carry the module API
/// number of the PHP they were made from (8.3's is 20230831), and PHP 8.2
/// has no `zend_zval_value_name` to link against.
const BOOLS_BY_VALUE: bool = ext_php_rs::ffi::ZEND_MODULE_API_NO >= 20_230_831;

/// The type of `value` as the engine's type errors name it ("string",
/// "int", a class name; "true" or "false" from PHP 8.3 on), static or
/// alive as long as the value.
fn given_name(value: &Zval) -> *const c_char {
    if BOOLS_BY_VALUE && let Some(flag) = value.bool() {
        return if flag { c"true" } else { c"false" }.as_ptr();
    }
    // SAFETY: `zend_zval_type_name` returns a static string, or the name of
    // the value's class, alive as long as the value.
    unsafe { zend_zval_type_name(std::ptr::from_ref(value).cast()) }
}

/// The type of `value` as PHP's messages name it ("string", "int",
/// a class name; "true" or "false" from PHP 8.3 on).
pub fn type_name(value: &Zval) -> String {
    // SAFETY: `given_name` returns a NUL-terminated string alive as long as
    // the value.
    unsafe { CStr::from_ptr(given_name(value)) }
        .to_string_lossy()
        .into_owned()
}

/// PHP's `ValueError` for the argument `parameter` of the running internal
/// function, worded as the engine's `zend_argument_value_error()`:
/// "C::m(): Argument #1 ($duration) must be ...".
pub fn value_error(parameter: &str, must: &str) -> ext_php_rs::exception::PhpException {
    let message = match (Argument::named(parameter), running_function_name()) {
        (Some(argument), Some(function)) => {
            format!(
                "{function}(): Argument #{} (${parameter}) must be {must}",
                argument.number
            )
        }
        _ => format!("${parameter} must be {must}"),
    };
    super::throwable::value_error(message)
}

/// `Class::method` (or `function`) of the running function, as the
/// engine's messages name it.
fn running_function_name() -> Option<String> {
    // SAFETY: called while a function runs; the string returned is ours to
    // release.
    let name = unsafe { get_active_function_or_method_name() };
    // SAFETY: a live zend_string, released right after it is copied.
    unsafe {
        let text = name.cast::<ZendStr>().as_ref()?.as_str().ok().map(str::to_owned);
        ext_php_rs::ffi::ext_php_rs_zend_string_release(name);
        text
    }
}

/// A value of another type than the one declared: PHP's `TypeError`, unless
/// it is the null of a nullable parameter (taken by `Option<T>`).
pub fn reject(value: &Zval) {
    if let Some(argument) = Argument::of(value)
        && !(value.is_null() && argument.nullable())
    {
        argument.type_error(value);
    }
}

/// Converts a scalar argument as the engine does (`parse` is one of the
/// `zend_parse_arg_*_slow`), on a copy of the value so the caller's frame is
/// left as given.
fn coerce<T>(value: &Zval, parse: impl FnOnce(*mut zval, u32) -> Option<T>) -> Option<T> {
    let argument = Argument::of(value)?;
    if (value.is_null() && argument.nullable()) || ExecutorGlobals::has_exception() {
        return None;
    }
    let mut copy = value.shallow_clone();
    // A notice of the conversion (a deprecated null, a truncated float) may
    // run a user error handler, whose fatal error must not jump over our
    // frames: the handler raises it again once they returned.
    let parsed = super::callback::contain_bailout(|| parse(std::ptr::from_mut(&mut copy).cast(), argument.number))?;
    if parsed.is_none() {
        argument.type_error(value);
    }
    parsed
}

/// An `int` parameter.
#[derive(Clone, Copy)]
pub struct Int(pub i64);

impl From<i64> for Int {
    fn from(value: i64) -> Self {
        Self(value)
    }
}

impl ext_php_rs::convert::StubLiteral for Int {
    fn stub_literal(&self) -> String {
        self.0.stub_literal()
    }
}

impl<'a> FromZval<'a> for Int {
    const TYPE: DataType = DataType::Long;
    #[inline]
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if zval.is_long() {
            // SAFETY: the member an `IS_LONG` zval sets.
            return Some(Self(unsafe { zval.value.lval }));
        }
        Self::coerced(zval)
    }
}

impl Int {
    /// Any other value, out of line: the constructors of every request read
    /// ints, and this path would make each save registers it seldom needs.
    #[cold]
    #[inline(never)]
    fn coerced(zval: &Zval) -> Option<Self> {
        if let Some(long) = zval.long() {
            return Some(Self(long));
        }
        coerce(zval, |arg, number| {
            let mut long: zend_long = 0;
            // SAFETY: `arg` is a live zval we own a reference to, `long` a
            // valid destination.
            unsafe { zend_parse_arg_long_slow(arg, &mut long, number) }.then_some(Self(long))
        })
    }
}

/// A `float` parameter.
#[derive(Clone, Copy)]
pub struct Float(pub f64);

impl From<f64> for Float {
    fn from(value: f64) -> Self {
        Self(value)
    }
}

impl ext_php_rs::convert::StubLiteral for Float {
    fn stub_literal(&self) -> String {
        self.0.stub_literal()
    }
}

impl<'a> FromZval<'a> for Float {
    const TYPE: DataType = DataType::Double;
    #[inline]
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        // SAFETY: the member each type sets.
        unsafe {
            if zval.is_double() {
                return Some(Self(zval.value.dval));
            }
            // An int is taken as PHP takes it, under `strict_types` too.
            if zval.is_long() {
                return Some(Self(zval.value.lval as f64));
            }
        }
        Self::coerced(zval)
    }
}

impl Float {
    /// Any other value, out of line (as [`Int::coerced`]).
    #[cold]
    #[inline(never)]
    fn coerced(zval: &Zval) -> Option<Self> {
        if let Some(double) = zval.double() {
            return Some(Self(double));
        }
        if let Some(long) = zval.long() {
            return Some(Self(long as f64));
        }
        coerce(zval, |arg, number| {
            let mut double = 0.0;
            // SAFETY: as for `Int`.
            unsafe { zend_parse_arg_double_slow(arg, &mut double, number) }.then_some(Self(double))
        })
    }
}

/// A `string` parameter: its bytes as they are.
pub struct Text(pub Vec<u8>);

impl From<String> for Text {
    fn from(value: String) -> Self {
        Self(value.into_bytes())
    }
}

impl ext_php_rs::convert::StubLiteral for Text {
    fn stub_literal(&self) -> String {
        String::from_utf8_lossy(&self.0).stub_literal()
    }
}

impl<'a> FromZval<'a> for Text {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if let Some(text) = zval.zend_str() {
            return Some(Self(text.as_bytes().to_vec()));
        }
        coerce(zval, |arg, number| {
            let mut text: *mut zend_string = std::ptr::null_mut();
            // SAFETY: `arg` is our own copy, which the engine may convert in
            // place; `text` then points into it, alive until `copy` drops,
            // after this closure has copied the bytes out.
            unsafe {
                zend_parse_arg_str_slow(arg, &mut text, number)
                    .then(|| text.cast::<ZendStr>().as_ref())
                    .flatten()
                    .map(|text| Self(text.as_bytes().to_vec()))
            }
        })
    }
}

/// A service name.
pub type ServiceName = Text;

/// A `string` parameter read where it lies: its bytes borrowed from the
/// engine's string, copied only when PHP converted another scalar to one.
/// For what a request passes to every `new` (a service name, a prefix),
/// which is looked up rather than kept.
pub struct TextRef<'a>(pub Cow<'a, [u8]>);

impl From<String> for TextRef<'_> {
    fn from(value: String) -> Self {
        Self(Cow::Owned(value.into_bytes()))
    }
}

impl ext_php_rs::convert::StubLiteral for TextRef<'_> {
    fn stub_literal(&self) -> String {
        String::from_utf8_lossy(&self.0).stub_literal()
    }
}

impl<'a> FromZval<'a> for TextRef<'a> {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        match zval.zend_str() {
            Some(text) => Some(Self(Cow::Borrowed(text.as_bytes()))),
            None => Text::from_zval(zval).map(|text| Self(Cow::Owned(text.0))),
        }
    }
}

/// An `iterable` parameter: an array or a `Traversable`.
pub struct IterableArg<'a>(pub Iterable<'a>);

impl<'a> FromZvalMut<'a> for IterableArg<'a> {
    const TYPE: DataType = DataType::Iterable;
    fn from_zval_mut(zval: &'a mut Zval) -> Option<Self> {
        if !zval.is_traversable() && zval.array().is_none() {
            reject(zval);
            return None;
        }
        Iterable::from_zval_mut(zval).map(Self)
    }
}

/// An `array` parameter: the value given, and its table.
pub struct ArrayArg<'a>(pub &'a Zval, pub &'a ZendHashTable);

impl<'a> FromZval<'a> for ArrayArg<'a> {
    const TYPE: DataType = DataType::Array;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        let array = zval.array().map(|table| Self(zval, table));
        if array.is_none() {
            reject(zval);
        }
        array
    }
}

/// `HASH_FLAG_PACKED` of `Zend/zend_hash.h` (the same from PHP 7 to 8.4):
/// the table is a vector of values, its keys their positions.
const HASH_FLAG_PACKED: u32 = 1 << 2;

/// The values of a list (a packed array without holes: keys 0 to n-1, in
/// order), read where they lie; none for any other array.
pub fn list_values(array: &ZendHashTable) -> Option<&[Zval]> {
    // SAFETY: the flags of a live table; `flags` is the member the engine
    // writes (`v` is its bytes).
    let packed = unsafe { array.u.flags } & HASH_FLAG_PACKED != 0;
    if !packed || array.nNumUsed != array.nNumOfElements {
        return None;
    }
    if array.nNumUsed == 0 {
        return Some(&[]);
    }
    // SAFETY: a packed table (PHP 8.2 on) keeps its values in `arPacked`,
    // `nNumUsed` of them; with as many elements as slots used, none is a
    // hole (IS_UNDEF). They live as long as the table is not changed,
    // which the borrow of `array` ensures.
    Some(unsafe { std::slice::from_raw_parts(array.__bindgen_anon_1.arPacked.cast::<Zval>(), array.nNumUsed as usize) })
}

/// Whether `object` is an instance of the interface named `name`, when that
/// interface is loaded at all (an interface that is not loaded is
/// implemented by nothing): for interfaces of other packages (PSR-20), which
/// this extension does not depend on.
pub fn instance_of_named(object: &ZendObject, name: &str) -> bool {
    let mut name = ZendStr::new(name, false);
    // SAFETY: a lookup in the class table, without autoloading; the entry
    // returned lives as long as the class table.
    let class = unsafe {
        ext_php_rs::ffi::zend_lookup_class_ex(&raw mut *name, std::ptr::null_mut(), FETCH_CLASS_NO_AUTOLOAD)
            .cast::<ClassEntry>()
            .as_ref()
    };
    class.is_some_and(|class| object.instance_of(class))
}

/// An object argument typed with a class or interface, kept as the zval so
/// that it can be held or called later. `$accepts` says which objects fit.
macro_rules! object_arg {
    ($(#[$doc:meta])* $name:ident, $class:literal, |$object:ident| $accepts:expr) => {
        $(#[$doc])*
        pub struct $name<'a>(pub &'a ::ext_php_rs::types::Zval);

        impl<'a> ::ext_php_rs::convert::FromZval<'a> for $name<'a> {
            const TYPE: ::ext_php_rs::flags::DataType = ::ext_php_rs::flags::DataType::object($class);
            fn from_zval(zval: &'a ::ext_php_rs::types::Zval) -> Option<Self> {
                match zval.object() {
                    Some($object) if $accepts => Some(Self(zval)),
                    _ => {
                        $crate::php::engine::args::reject(zval);
                        None
                    }
                }
            }
        }
    };
    ($(#[$doc:meta])* $name:ident, $class:literal, $class_entry:expr) => {
        object_arg!($(#[$doc])* $name, $class, |object| object.instance_of($class_entry));
    };
}
pub(crate) use object_arg;

object_arg!(ThrowableArg, "Throwable", ext_php_rs::zend::ce::throwable());

object_arg!(
    /// A `DateTimeImmutable`.
    DateArg,
    "DateTimeImmutable",
    |object| instance_of_named(object, "DateTimeImmutable")
);

/// A `callable`, kept to be called later.
pub struct CallableArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for CallableArg<'a> {
    const TYPE: DataType = DataType::Callable;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        if zval.is_callable() {
            return Some(Self(zval));
        }
        reject_callable(zval);
        None
    }
}

/// Not a callable: PHP's own words for a callback parameter of an internal
/// function ("must be a valid callback [or null], function \"f\" not found
/// or invalid function name").
fn reject_callable(value: &Zval) {
    let Some(argument) = Argument::of(value) else {
        return;
    };
    if (value.is_null() && argument.nullable()) || ExecutorGlobals::has_exception() {
        return;
    }
    let mut copy = value.shallow_clone();
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: `copy` is a live zval we hold a reference to; the engine
    // allocates `error` (or leaves it null), and `zend_wrong_callback_error`
    // frees it.
    unsafe {
        zend_is_callable_ex(
            std::ptr::from_mut(&mut copy).cast(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut error,
        );
        if error.is_null() {
            argument.type_error(value);
        } else if argument.nullable() {
            zend_wrong_callback_or_null_error(argument.number, error);
        } else {
            zend_wrong_callback_error(argument.number, error);
        }
    }
}

/// A float as an error message shows it: huge values in exponent form,
/// not their hundreds of digits.
pub fn shown_float(value: f64) -> String {
    if value.is_finite() && value.abs() >= 1e15 {
        format!("{value:e}")
    } else {
        crate::core::duration::format_float(value)
    }
}

/// A value as an error message shows it.
pub fn describe(value: &Zval) -> String {
    if let Some(object) = value.object() {
        // An anonymous class's name goes on after a NUL with where it was
        // declared: PHP's own messages stop at the NUL, and so does this.
        let mut name = object.get_class_name().unwrap_or_else(|_| "object".into());
        name.truncate(name.find('\0').unwrap_or(name.len()));
        return name;
    }
    if let Some(double) = value.double() {
        return shown_float(double);
    }
    if let Some(long) = value.long() {
        return long.to_string();
    }
    if let Some(string) = value.str() {
        return format!("'{string}'");
    }
    if value.is_null() {
        "null".into()
    } else if value.is_array() {
        "array".into()
    } else {
        "a value".into()
    }
}
