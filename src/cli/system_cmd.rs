//! What the systems' own commands (`gordian fft|lancer|ff8|foeman ...`) share: running
//! one command under the watchdog of its `--timeout`, the engine choice and running it,
//! the `--timeout`/`--max-memory` groups of solving commands and of `dimacs`, and
//! printing a DIMACS encoding or the limit message.
//!
//! Invariants: names no system (each system's file passes its own loading, engines and
//! encoder in); prints only through `say_raw!` and the limit messages of `limits.rs`, so
//! the bytes and exit codes are those the per-system files printed before they shared
//! this.

use super::limits::{self, MemoryArgs, TimeoutArg};
use super::parse_seconds;
use crate::systems::spec::DEFAULT_MAX_MEMORY;
use crate::systems::spec::{race_to_end, settle, Budget, Interrupted, Job, Stopped};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// How a system's command ends: `Ok` with its exit code, or `Err` with the exit code of
/// an error it has already reported (so `?` ends a command at its first error).
pub(crate) type Exit = Result<ExitCode, ExitCode>;

/// Runs one command under the watchdog of its `--timeout` and of its memory bound in
/// bytes (its `--max-memory`, or the default bound for commands without one) plus the
/// headroom ([`limits::within`]); `what` names it in the messages.
pub(crate) fn watched(
    what: &str,
    timeout: Option<Duration>,
    memory: Option<u64>,
    work: impl FnOnce() -> Exit,
) -> ExitCode {
    let bound = Budget::with_max_memory(memory.unwrap_or(DEFAULT_MAX_MEMORY));
    limits::within(what, timeout, &bound, work).unwrap_or_else(|code| code)
}

/// [`watched`] for a command on one file, named by its path.
pub(crate) fn on_file(
    file: &Path,
    timeout: Option<Duration>,
    memory: Option<u64>,
    work: impl FnOnce() -> Exit,
) -> ExitCode {
    watched(&file.display().to_string(), timeout, memory, work)
}

/// Which engine(s) a system's own commands run (`fft`, `lancer`, `foeman`, `ff8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Engines {
    /// The direct engine and the SAT encoding in parallel, compared.
    Both,
    /// The direct engine (simulator / exhaustive search) alone.
    Direct,
    /// The SAT encoding alone.
    Sat,
}

/// What [`run_engines`] gives back: the direct engine's and the SAT engine's results,
/// `None` for an engine not run (or stopped while the other answered).
pub(crate) type Ran<D, S> = (
    Option<Result<D, Interrupted>>,
    Option<Result<S, Interrupted>>,
);

/// Runs the direct job, the SAT job or both as `engine` says, in parallel under `budget`
/// ([`race_to_end`]: each with its own memory meter, every job to its end or to the
/// budget's deadline); their results, `None` for an engine not run. When one engine
/// answered and the other was stopped (at its memory bound or at the time limit), the
/// stopped one gives `None` too and [`note_stopped`] says so on standard error: the
/// command answers with what it has, not cross-checked. When no engine answered, both
/// are `Err(Interrupted)` (or the one run) and `budget` names the memory limit hit, if
/// any, for the limit message.
pub(crate) fn run_engines<D: Send, S: Send>(
    what: &str,
    engine: Engines,
    budget: &Budget,
    direct: impl FnOnce(&Budget) -> Result<D, Interrupted> + Send,
    sat: impl FnOnce(&Budget) -> Result<S, Interrupted> + Send,
) -> Ran<D, S> {
    let (mut d, mut s) = (None, None);
    let mut names = Vec::new();
    let ends = {
        let (d, s) = (&mut d, &mut s);
        let mut jobs: Vec<Job<'_, Result<(), Interrupted>>> = Vec::new();
        if engine != Engines::Sat {
            jobs.push(Box::new(move |b: &Budget| direct(b).map(|x| *d = Some(x))));
            names.push("direct");
        }
        if engine != Engines::Direct {
            jobs.push(Box::new(move |b: &Budget| sat(b).map(|x| *s = Some(x))));
            names.push("sat");
        }
        race_to_end(budget, jobs)
    };
    match settle(budget, &names, ends) {
        Ok((_, stopped)) => {
            note_stopped(what, &stopped);
            (d.map(Ok), s.map(Ok))
        }
        Err(Interrupted) => (
            (engine != Engines::Sat).then_some(Err(Interrupted)),
            (engine != Engines::Direct).then_some(Err(Interrupted)),
        ),
    }
}

/// Says on standard error that the answer for `what` is not cross-checked because the
/// `stopped` engines were stopped while another answered (nothing when none was).
pub(crate) fn note_stopped(what: &str, stopped: &[Stopped]) {
    for s in stopped {
        eprintln!("note: {what}: NOT cross-checked: {s}; the answer is the other engine's alone");
    }
}

/// `--timeout` and `--max-memory` of the systems' solving commands (`enumerate`,
/// `query`): the engines' budget is cancelled at the timeout.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(crate) struct SolveLimits {
    /// Give up after this many seconds (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

impl SolveLimits {
    /// A fresh budget with the memory bound.
    pub fn budget(&self) -> Budget {
        self.memory.budget()
    }

    /// Runs `work` with `budget` cancelled at the timeout.
    pub fn within<T>(&self, budget: &Budget, work: impl FnOnce() -> T) -> T {
        budget.with_timeout(self.timeout, work)
    }

    /// The memory-limit or timeout message for `file` (from `budget`) and exit 5.
    pub fn stopped(&self, file: &Path, budget: &Budget) -> ExitCode {
        limits::stopped(&file.display().to_string(), budget, None, self.timeout)
    }
}

/// `--timeout` and `--max-memory` of the systems' `dimacs`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(crate) struct DimacsLimits {
    #[command(flatten)]
    deadline: TimeoutArg,
    #[command(flatten)]
    memory: MemoryArgs,
}

impl DimacsLimits {
    /// The timeout of the whole command.
    pub fn timeout(&self) -> Option<Duration> {
        self.deadline.timeout
    }

    /// The memory bound in bytes.
    pub fn memory(&self) -> Option<u64> {
        Some(self.memory.bytes())
    }

    /// Prints the DIMACS text `encode` builds under a budget with the memory bound, or,
    /// when it is interrupted, the memory-limit or timeout message for `file` (exit 5).
    pub fn print(
        &self,
        file: &Path,
        encode: impl FnOnce(&Budget) -> Result<String, Interrupted>,
    ) -> Exit {
        let budget = self.memory.budget();
        match encode(&budget) {
            Ok(text) => {
                say_raw!("{text}");
                Ok(ExitCode::SUCCESS)
            }
            Err(Interrupted) => Err(limits::stopped(
                &file.display().to_string(),
                &budget,
                None,
                self.deadline.timeout,
            )),
        }
    }
}
