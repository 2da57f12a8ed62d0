//! The cancellation flag engines and the SAT layer poll, the clock they are timed by, and
//! the deadline a flag may carry.
//!
//! A flag is an atomic boolean that a grace period, a signal or a memory limit raises, or
//! `cancel` on its budget. A flag may also carry a *deadline* (the time limit of its
//! budget, `Budget::with_timeout`, or a race's grace): polling it then reads the clock
//! (natively on every poll; in WebAssembly every `POLLS_PER_CLOCK_READ` polls on the
//! polling thread, so that a poll stays cheap; [`Flag::is_raised_now`] reads it every time) and raises the flag once the deadline has
//! passed. No thread waits for a deadline: natively and in WebAssembly (`wasm32`, the
//! browser page and the npm package, where there are no threads) alike, the deadline is
//! seen by whoever polls. A flag without a deadline never reads the clock when polled.
//!
//! Invariant: once raised, a flag stays raised (outside tests); a deadline only moves
//! earlier.

#[cfg(target_arch = "wasm32")]
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// A clock that works natively and in WebAssembly (where `std::time::Instant` panics):
/// `web_time::Instant` is the standard one on native targets and `performance.now()` in
/// WebAssembly.
pub use web_time::Instant;

/// In WebAssembly, a flag with a deadline reads the clock once every this many polls on a
/// thread (`performance.now()` is dear there); natively every poll reads it (a clock read
/// is a few tens of nanoseconds, and an engine that polls seldom must still stop on time).
#[cfg(target_arch = "wasm32")]
pub const POLLS_PER_CLOCK_READ: u32 = 64;

/// No deadline (the value of [`Flag::deadline`]'s cell).
const NONE: u64 = u64::MAX;

/// The instant deadlines are counted from (in nanoseconds): the first use of a deadline.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// `at` in nanoseconds since [`epoch`] (`at` before the epoch counts as the epoch).
fn nanos(at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(epoch()).as_nanos()).unwrap_or(NONE - 1)
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// Polls of flags with a deadline on this thread (the clock is read on every
    /// `POLLS_PER_CLOCK_READ`th).
    static POLLS: Cell<u32> = const { Cell::new(0) };
}

/// A cancellation flag (see the module doc).
#[derive(Debug)]
pub struct Flag {
    raised: AtomicBool,
    /// The deadline in nanoseconds since [`epoch`], or [`NONE`].
    deadline: AtomicU64,
}

impl Default for Flag {
    fn default() -> Flag {
        Flag {
            raised: AtomicBool::new(false),
            deadline: AtomicU64::new(NONE),
        }
    }
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

    /// Whether the flag is raised, or its deadline has passed (which raises it): the clock
    /// is read on every poll natively, on one in `POLLS_PER_CLOCK_READ` in WebAssembly.
    pub fn is_raised(&self) -> bool {
        if self.raised.load(Ordering::Relaxed) {
            return true;
        }
        if self.deadline.load(Ordering::Relaxed) == NONE {
            return false;
        }
        #[cfg(target_arch = "wasm32")]
        if !POLLS.with(|p| {
            let n = p.get();
            p.set(n.wrapping_add(1));
            n % POLLS_PER_CLOCK_READ == 0
        }) {
            return false;
        }
        self.is_raised_now()
    }

    /// [`Flag::is_raised`], reading the clock on every call (polls far apart: a SAT
    /// solve's start, the end of a timed run).
    pub fn is_raised_now(&self) -> bool {
        if self.raised.load(Ordering::Relaxed) {
            return true;
        }
        let d = self.deadline.load(Ordering::Relaxed);
        if d != NONE && nanos(Instant::now()) >= d {
            self.raise();
            return true;
        }
        false
    }

    /// The flag's deadline, if one was set.
    pub fn deadline(&self) -> Option<Instant> {
        match self.deadline.load(Ordering::Relaxed) {
            NONE => None,
            d => Some(epoch() + Duration::from_nanos(d)),
        }
    }

    /// Raises the flag at `at` (the earlier of `at` and a deadline set before), seen when
    /// it is polled.
    pub fn set_deadline(&self, at: Instant) {
        self.deadline.fetch_min(nanos(at), Ordering::Relaxed);
        // The next poll on this thread reads the clock.
        #[cfg(target_arch = "wasm32")]
        POLLS.with(|p| p.set(0));
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

    #[test]
    fn a_deadline_raises_the_flag_when_polled_and_only_moves_earlier() {
        let f = Flag::default();
        assert_eq!(f.deadline(), None);
        let later = Instant::now() + Duration::from_secs(3600);
        f.set_deadline(later);
        assert!(!f.is_raised() && !f.is_raised_now());
        f.set_deadline(later + Duration::from_secs(1));
        let d = f.deadline().unwrap();
        // The earlier deadline stays (to the nanosecond the cell keeps).
        assert!(d <= later && later.duration_since(d) < Duration::from_micros(1));
        f.set_deadline(Instant::now());
        assert!(f.is_raised_now(), "a deadline passed raises the flag");
        assert!(f.is_raised() && f.is_raised(), "and it stays raised");
        let g = Flag::default();
        g.set_deadline(Instant::now());
        // Some poll within one round of the counter (in WebAssembly) reads the clock.
        assert!((0..64).any(|_| g.is_raised()));
    }
}
