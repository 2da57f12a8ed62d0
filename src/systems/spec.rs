//! What every system shares: the engine trait and the cancellation budget engines poll.
//!
//! Invariant: an engine either answers completely or returns [`Interrupted`]; it never
//! returns a partial answer as if it were whole.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// An engine stopped because its budget was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted: the engine's budget was cancelled")]
pub struct Interrupted;

/// A cancellation flag shared between an engine and whoever may stop it.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    cancel: Arc<AtomicBool>,
}

impl Budget {
    /// A budget that is never cancelled unless [`Budget::cancel`] is called.
    pub fn new() -> Budget {
        Budget::default()
    }

    /// Asks every engine polling this budget to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether the budget was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `Err(Interrupted)` once cancelled.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.is_cancelled() {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// The shared flag (for layers such as the SAT solver wrapper that poll it directly).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }
}

/// A solver for one system: takes an instance, returns the full answer.
pub trait Engine<I: ?Sized, A> {
    /// Short name used in reports (`direct`, `sat`, `brute`).
    fn name(&self) -> &'static str;
    /// Solves the instance completely, or stops with [`Interrupted`].
    fn solve(&self, instance: &I, budget: &Budget) -> Result<A, Interrupted>;
}
