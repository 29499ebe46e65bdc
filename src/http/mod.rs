//! HTTP guarding without PHP: which requests are guarded (host patterns,
//! the breakers file), what their circuits run on, and what a finished
//! transfer counts as. The engine hooks (`php::engine::curl`,
//! `php::engine::streams`) and the registry (`php::http`) sit on top.

pub mod file;
pub mod outcome;
pub mod policy;
pub mod target;
