//! `Operations\CircuitControl`: an operator's commands on a circuit named
//! by its service, over a storage, without the configuration of the
//! breakers that use it (a command line has none).
//!
//! Each command is the breaker's own (`Breaker::command`: one
//! compare-and-set from the stored state, whose winner emits the one
//! event), run by a breaker made for it over a configuration of the
//! longest lifetimes: what a command stores must live as long as any
//! configuration could need. A forced state is kept through its end, a day
//! more and the longest window's counters (`Config::state_ttl_ms_of`); a
//! reset's closed state, at backoff 0, for a day more than the longest
//! window's counters.

use std::rc::Rc;

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::breaker::{CircuitBreaker, forced_duration_ms};
use super::engine::args::{Float, ServiceName};
use super::engine::callback::finish;
use super::engine::gc::{GcBuffer, HoldsPhpValues};
use super::engine::reentry::refuse_reconstruction;
use super::params::{ClockArg, ListenerArg, StorageArg};
use crate::core::config::{Config, KEEP_DUE_STATE_MS};
use crate::core::half_open::HalfOpenPolicy;
use crate::core::machine::Command;
use crate::core::rules::OpeningRule;

thread_local! {
    static CONTROL_CONFIG: Rc<Config> = Rc::new(control_config());
}

/// The longest window (3600 s), a day's open duration and a one-second
/// half-open state: only the lifetimes of stored states come from it.
fn control_config() -> Config {
    let rule = OpeningRule::consecutive_failures(1).expect("a valid rule");
    let half_open = HalfOpenPolicy::permitted_calls(1.0, 1).expect("a valid policy");
    Config::new(3_600.0, vec![rule], (KEEP_DUE_STATE_MS / 1_000) as f64, half_open).expect("a valid configuration")
}

#[php_class]
#[php(name = "Zeusi\\CircuitBreaker\\Operations\\CircuitControl")]
pub struct CircuitControl {
    pub(super) storage: Zval,
    pub(super) listener: Option<Zval>,
    pub(super) clock: Option<Zval>,
}

#[php_impl]
impl CircuitControl {
    /// Commands on the circuits of `$storage` (with its prefix); `$eventListener`
    /// gets the one `CircuitForced` or `CircuitReset` of each command.
    #[php(optional = eventListener)]
    pub fn __construct(
        storage: StorageArg<'_>,
        eventListener: Option<ListenerArg<'_>>,
        clock: Option<ClockArg<'_>>,
    ) -> Result<Self, PhpException> {
        refuse_reconstruction::<Self>()?;
        let control = Self {
            storage: storage.0.shallow_clone(),
            listener: eventListener.map(|listener| listener.0.shallow_clone()),
            clock: clock.map(|clock| clock.0.shallow_clone()),
        };
        // A storage written in PHP without its primitives is refused now.
        control.breaker(&[])?;
        Ok(control)
    }

    /// `CircuitBreaker::forceOpen()` of `$service`: no call permitted for
    /// `$duration` seconds (1 to 2592000), then closed with a fresh window.
    pub fn force_open(&self, service: ServiceName, duration: Float) -> Result<(), PhpException> {
        finish(forced_duration_ms(duration.0).and_then(|duration| self.run(service.0, Command::ForceOpen(duration))))
    }

    /// `CircuitBreaker::forceClosed()` of `$service`: every call permitted for
    /// `$duration` seconds (1 to 2592000), outcomes opening nothing.
    pub fn force_closed(&self, service: ServiceName, duration: Float) -> Result<(), PhpException> {
        finish(forced_duration_ms(duration.0).and_then(|duration| self.run(service.0, Command::ForceClosed(duration))))
    }

    /// `CircuitBreaker::reset()` of `$service`: closed now, with a fresh
    /// window, ending any forced state and backoff.
    pub fn reset(&self, service: ServiceName) -> Result<(), PhpException> {
        finish(self.run(service.0, Command::Reset))
    }
}

impl CircuitControl {
    fn breaker(&self, service: &[u8]) -> Result<CircuitBreaker, PhpException> {
        CircuitBreaker::new(
            service,
            CONTROL_CONFIG.with(Rc::clone),
            &Zval::new(),
            &self.storage,
            self.listener.as_ref(),
            self.clock.as_ref(),
        )
    }

    /// A storage that fails throws, as the breaker's command does.
    fn run(&self, service: Vec<u8>, command: Command) -> Result<(), PhpException> {
        self.breaker(&service)?.command(command)
    }
}

impl HoldsPhpValues for CircuitControl {
    fn report(&self, buffer: &mut GcBuffer) {
        buffer.add(&self.storage);
        buffer.add_all(&self.listener);
        buffer.add_all(&self.clock);
    }
}
