//! SIGINT and SIGTERM as flags (signal-hook): long commands (`fuzz`, `batch`, `check`)
//! poll them, stop starting new work, print their summary so far and exit 130 or 143.

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
            for (sig, flag) in [(SIGINT, &s.int), (SIGTERM, &s.term)] {
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
