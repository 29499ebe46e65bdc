//! The semantics of a circuit, in pure Rust: no PHP, no I/O, no clock.

pub mod config;
pub mod counts;
pub mod duration;
pub mod error;
pub mod fleet;
pub mod half_open;
pub mod interned;
pub mod machine;
pub mod rules;
pub mod throttle;
pub mod window;
