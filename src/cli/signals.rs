//! SIGINT and SIGTERM as flags (signal-hook): long commands (`fuzz`, `batch`, `check`)
//! poll them, stop starting new work (and `check`/`batch` kill the worker processes
//! solving instances), print their summary so far and exit 130 or 143. A second signal
//! ends the process at once, with the same code.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The two flags, set by the signal handlers.
pub struct Signals {
    /// SIGINT was received.
    pub int: Arc<AtomicBool>,
    /// SIGTERM was received.
    pub term: Arc<AtomicBool>,
    /// Either was received (what the workers poll).
    pub any: Arc<AtomicBool>,
}

impl Signals {
    /// Installs the handlers (on failure the flags simply stay false).
    pub fn install() -> Signals {
        let s = Signals {
            int: Arc::new(AtomicBool::new(false)),
            term: Arc::new(AtomicBool::new(false)),
            any: Arc::new(AtomicBool::new(false)),
        };
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            for (sig, flag, code) in [(SIGINT, &s.int, 130), (SIGTERM, &s.term, 143)] {
                // A second signal ends the process at once (registered first, so that it
                // sees the flag the first signal set).
                let _ = signal_hook::flag::register_conditional_shutdown(sig, code, s.any.clone());
                let _ = signal_hook::flag::register(sig, flag.clone());
                let _ = signal_hook::flag::register(sig, s.any.clone());
            }
        }
        s
    }

    /// The exit code a received signal asks for (130 SIGINT, 143 SIGTERM), if any.
    pub fn exit_code(&self) -> Option<ExitCode> {
        if self.int.load(Ordering::Relaxed) {
            Some(ExitCode::from(130))
        } else if self.term.load(Ordering::Relaxed) {
            Some(ExitCode::from(143))
        } else {
            None
        }
    }
}
