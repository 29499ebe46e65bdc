//! A circuit breaker for PHP: the semantics in `core`, where circuits live in
//! `storage`, one orchestration of both in `breaker`, and the PHP classes in
//! `php`.
#![deny(unsafe_op_in_unsafe_fn)]
#![cfg_attr(feature = "php", allow(non_snake_case))]

pub mod breaker;
pub mod core;
pub mod http;
pub mod metrics;
pub mod storage;

#[cfg(feature = "php")]
mod php;
