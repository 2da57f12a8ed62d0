//! The cancellation flag engines and the SAT layer poll, and the clock they are timed by.
//!
//! Natively a flag is an atomic boolean that a timer thread, a grace period, a signal or
//! a memory limit sets. In WebAssembly (`wasm32`, the browser page and the npm package)
//! there are no threads to set it: a flag there also carries a *deadline*, and polling it
//! reads the clock (every [`POLLS_PER_CLOCK_READ`] polls, so that a poll stays cheap) and
//! raises the flag once the deadline has passed. The native build never sets a deadline
//! and never reads the clock when polling.
//!
//! Invariant: once raised, a flag stays raised (outside tests).

#[cfg(target_arch = "wasm32")]
use std::sync::atomic::AtomicU32;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(target_arch = "wasm32")]
use std::sync::Mutex;

/// A clock that works natively and in WebAssembly (where `std::time::Instant` panics):
/// `web_time::Instant` is the standard one on native targets and `performance.now()` in
/// WebAssembly.
pub use web_time::Instant;

/// In WebAssembly, a flag with a deadline reads the clock once every this many polls.
#[cfg(target_arch = "wasm32")]
pub const POLLS_PER_CLOCK_READ: u32 = 64;

/// A cancellation flag (see the module doc).
#[derive(Debug, Default)]
pub struct Flag {
    raised: AtomicBool,
    #[cfg(target_arch = "wasm32")]
    deadline: Mutex<Option<Instant>>,
    #[cfg(target_arch = "wasm32")]
    polls: AtomicU32,
}

impl Flag {
    /// A flag already raised (tests).
    #[cfg(test)]
    pub fn raised() -> Flag {
        let f = Flag::default();
        f.raise();
        f
    }

    /// Lowers a raised flag again (tests of layers that poll it between calls).
    #[cfg(test)]
    pub fn lower(&self) {
        self.raised.store(false, Ordering::Relaxed);
    }

    /// Raises the flag.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is raised (in WebAssembly: or its deadline has passed, which
    /// raises it).
    pub fn is_raised(&self) -> bool {
        if self.raised.load(Ordering::Relaxed) {
            return true;
        }
        #[cfg(target_arch = "wasm32")]
        if self.polls.fetch_add(1, Ordering::Relaxed) % POLLS_PER_CLOCK_READ == 0 {
            let due = self
                .deadline
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|d| Instant::now() >= d);
            if due {
                self.raise();
                return true;
            }
        }
        false
    }

    /// The flag's deadline, if one was set.
    #[cfg(target_arch = "wasm32")]
    pub fn deadline(&self) -> Option<Instant> {
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Raises the flag at `at` (the earlier of `at` and a deadline set before), checked
    /// when it is polled. Only in WebAssembly, where no thread can raise it on time.
    #[cfg(target_arch = "wasm32")]
    pub fn set_deadline(&self, at: Instant) {
        let mut d = self.deadline.lock().unwrap_or_else(|e| e.into_inner());
        *d = Some(d.map_or(at, |old| old.min(at)));
        // The next poll reads the clock.
        self.polls.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_flag_stays_raised() {
        let f = Flag::default();
        assert!(!f.is_raised());
        f.raise();
        assert!(f.is_raised() && f.is_raised());
        assert!(Flag::raised().is_raised());
    }
}
