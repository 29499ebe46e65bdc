//! Beneath ext-php-rs: everything the extension needs of the Zend engine
//! that ext-php-rs does not cover, and the only module of `src/php` allowed
//! `unsafe`. Nothing here imports a class family; each file's header names
//! the gap it fills.
//!
//! - `ffi`: the engine's C functions and structures, declared once;
//! - `globals`: the executor's globals, read field by field;
//! - `error_log`: PHP's error log and startup warnings;
//! - `args`: parameters coerced and refused in PHP's own words;
//! - `typed`: return types PHP must see exactly;
//! - `throwable`: PHP's throwables built, and their chain of previous ones;
//! - `classes`: our interfaces and SPL-derived exceptions, registered by hand;
//! - `callback`: calls into PHP code, with `exit()` and fatal errors contained;
//! - `handlers`: our `new` and our hot methods, in place of ext-php-rs' handlers;
//! - `gc`: what our objects hold, told to the cycle collector;
//! - `readonly`: read-only properties, typed for reflection;
//! - `reentry`: a constructor called twice, refused;
//! - `late_load`: the map_ptr slots of an extension loaded after startup;
//! - `unconstructed`: objects of our classes made without their constructor;
//! - `module_info`: phpinfo()'s rows;
//! - `module_global`: what lives from module startup to module shutdown;
//! - `time`: the system's clocks, read in one vDSO call;
//! - `curl` and `streams`: ext/curl's functions and the `http://` wrapper,
//!   wrapped for the HTTP guard;
//! - `transfer`: what those ask of the guard (`php::http`), which hands
//!   them its answers at startup.
#![allow(unsafe_code)]

pub mod args;
pub mod callback;
pub mod classes;
pub mod curl;
pub mod error_log;
pub mod ffi;
pub mod gc;
pub mod globals;
pub mod handlers;
pub mod late_load;
pub mod module_global;
pub mod module_info;
pub mod readonly;
pub mod reentry;
pub mod streams;
pub mod throwable;
pub mod time;
pub mod transfer;
pub mod typed;
pub mod unconstructed;

pub use error_log::{Severity, error_log, log_notice, startup_warning};
pub use globals::current_fiber;
