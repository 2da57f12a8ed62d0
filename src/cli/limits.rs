//! The resource policy every command shares (docs/limits.md): a time budget
//! (`--timeout`), a memory bound on engine state (`--max-memory`), and, where a listing
//! can be huge, an output bound (`--limit`). Hitting any of them is an answer: a message
//! naming the limit and exit 5 (a `timeout` or `limit` record in `batch`).
//!
//! Invariants: the budget of a single-instance command is created before its input is
//! read, so every phase (reading, parsing, building the instance, encoding, solving,
//! building the report) runs under it and polls it; a watchdog ends the process with the
//! timeout message and exit 5 at [`margin`] past the timeout (a twentieth of it, between
//! 50 ms and 1 s) should some step not poll in time (standard input may not end; a SAT
//! search polls only every few hundred conflicts), and with the limit message when the
//! process's resident memory passes the memory bound plus [`RESIDENT_HEADROOM`]. `check`
//! and `batch` get the same hard stops from their worker processes' parent
//! (`cli/worker.rs`). Output is written after the watchdog is disarmed, and is bounded by
//! `--limit` instead.

use super::EXIT_LIMIT;
use crate::systems::spec::{Budget, LimitHit, DEFAULT_MAX_MEMORY};
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How long past `--timeout` a single-instance command may run before the watchdog ends
/// it (exit 5): a twentieth of the timeout, at least 50 ms (engines that poll stop well
/// within that) and at most 1 s. So a command ends within 5% of its budget plus the
/// moment the process takes to exit (freeing its memory), however long the solver call
/// it is in would take.
pub fn margin(timeout: Duration) -> Duration {
    (timeout / 20).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

/// The default output bound of listings (`--limit`): outcomes, resolutions, cuts.
pub const DEFAULT_LIMIT: u64 = 10_000;

/// The memory-bound flag, shared by every command that solves.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct MemoryArgs {
    /// Memory bound on each engine's state in MiB (the answers and search state it holds:
    /// outcomes, ways, cuts, frames, states, SAT clauses and models, estimated); an engine
    /// past it stops and the command reports a `limit` (exit 5).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_MEMORY >> 20,
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    pub max_memory: u64,
}

impl MemoryArgs {
    /// The bound in bytes.
    pub fn bytes(&self) -> u64 {
        self.max_memory << 20
    }

    /// A fresh budget with this bound.
    pub fn budget(&self) -> Budget {
        Budget::with_max_memory(self.bytes())
    }
}

/// The message (after `error: WHAT: `) for a command stopped by its budget: the memory
/// limit it hit, else the timeout.
pub fn stop_reason(budget: &Budget, limit: Option<LimitHit>, timeout: Option<Duration>) -> String {
    match limit.or_else(|| budget.limit_hit()) {
        Some(l) => format!("limit: {l}"),
        None => match timeout {
            Some(t) => format!(
                "timeout: no answer within the time limit of {} s (--timeout)",
                t.as_secs_f64()
            ),
            None => "interrupted".to_string(),
        },
    }
}

/// Prints `error: WHAT: <reason>` and returns exit code 5.
pub fn stopped(
    what: &str,
    budget: &Budget,
    limit: Option<LimitHit>,
    timeout: Option<Duration>,
) -> ExitCode {
    eprintln!("error: {what}: {}", stop_reason(budget, limit, timeout));
    ExitCode::from(EXIT_LIMIT)
}

/// Resident memory a single-instance command may hold beyond its `--max-memory` before
/// its watchdog ends it (the program, its threads, the report being built).
pub const RESIDENT_HEADROOM: u64 = 100 << 20;

/// Runs `work` for one instance named `what` with `budget` cancelled at `timeout`, under
/// a watchdog that ends the process with exit 5 and the limit's message when `work` has
/// not returned [`margin`] after the timeout, or at once when the process's resident
/// memory passes the budget's memory bound plus [`RESIDENT_HEADROOM`] (the hard stops
/// for steps that do not poll or charge in time).
pub fn within<T>(
    what: &str,
    timeout: Option<Duration>,
    budget: &Budget,
    work: impl FnOnce() -> T,
) -> T {
    let resident = (budget.max_memory() != u64::MAX)
        .then(|| budget.max_memory().saturating_add(RESIDENT_HEADROOM));
    if timeout.is_none() && resident.is_none() {
        return work();
    }
    // The budget keeps the deadline (its engines see it when they poll); the watchdog only
    // ends the process when the work has not returned `margin` past it.
    budget.with_timeout(timeout, || {
        // A time limit already past (a tiny --timeout) ends the command before it starts,
        // whether or not its work would poll the budget.
        if let (Some(t), Some(at)) = (timeout, budget.deadline()) {
            if crate::cancel::Instant::now() >= at {
                eprintln!("error: {what}: {}", stop_reason(budget, None, Some(t)));
                exit_now(EXIT_LIMIT);
            }
        }
        let hard = timeout
            .zip(budget.deadline())
            .map(|(t, at)| (t, at + margin(t)));
        let (done, wait) = mpsc::channel::<()>();
        let b = budget.clone();
        let what = what.to_string();
        let dog = std::thread::spawn(move || loop {
            match wait.recv_timeout(crate::harness::isolate::TICK) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            if let Some((t, at)) = hard {
                if crate::cancel::Instant::now() >= at {
                    eprintln!("error: {what}: {}", stop_reason(&b, None, Some(t)));
                    exit_now(EXIT_LIMIT);
                }
            }
            if let Some(limit) = resident {
                let held = crate::harness::isolate::resident_bytes(std::process::id());
                if held.is_some_and(|h| h > limit) {
                    eprintln!(
                        "error: {what}: limit: the process held {} MiB of memory, past its \
                         bound of {} MiB (--max-memory plus {} MiB), and was stopped \
                         (raise it with --max-memory)",
                        held.unwrap_or_default() >> 20,
                        limit >> 20,
                        RESIDENT_HEADROOM >> 20
                    );
                    exit_now(EXIT_LIMIT);
                }
            }
        });
        let r = work();
        drop(done);
        let _ = dog.join();
        r
    })
}

/// Ends the process with `code` at once: no destructors and, on Unix, no exit handlers
/// (`_exit`): the engines are still running on other threads, and the allocator's
/// clean-up at exit would walk (and race with) the gigabytes they may hold. Nothing is
/// left to flush: the watchdog's message is on unbuffered standard error, and standard
/// output is only written after the watchdog is disarmed. (The kernel still takes its
/// time to reclaim the memory: about 0.1 s a gigabyte resident.)
fn exit_now(code: u8) -> ! {
    #[cfg(unix)]
    // SAFETY: `_exit` has no preconditions; it ends the process without running Rust or
    // C clean-up, which is what is wanted here (see above).
    unsafe {
        libc::_exit(i32::from(code))
    }
    #[cfg(not(unix))]
    std::process::exit(i32::from(code))
}

/// The message when a listing of `count` items (`noun`) exceeds `--limit`.
pub fn over_limit(what: &str, count: u128, noun: &str, limit: u64, summary: &str) -> ExitCode {
    eprintln!(
        "error: {what}: limit: {summary}; listing its {count} {noun} exceeds --limit {limit} \
         (raise --limit to print them)"
    );
    ExitCode::from(EXIT_LIMIT)
}

/// The message when a listing of `count` items (`noun`) was cut short at `--limit` (the
/// first `limit` items and the summary were printed); exit 5.
pub fn cut_short(what: &str, count: u128, noun: &str, limit: u64, summary: &str) -> ExitCode {
    eprintln!(
        "error: {what}: limit: {summary}; listing its {count} {noun} exceeds --limit {limit}: \
         only the first {limit} were printed (raise --limit to print them all)"
    );
    ExitCode::from(EXIT_LIMIT)
}

/// `--limit` for the systems' listings that cut short (`lancer enumerate`, `foeman
/// enumerate`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LimitArg {
    /// List at most this many items; past it the listing is cut short (JSON:
    /// `"truncated": true`), the counts stay exact, and the exit code is 5.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
}

impl LimitArg {
    /// How many of `count` items to list.
    pub fn take(&self, count: usize) -> usize {
        usize::try_from(self.limit).map_or(count, |l| l.min(count))
    }

    /// Whether `count` items exceed the limit.
    pub fn exceeded(&self, count: usize) -> bool {
        count as u64 > self.limit
    }
}

/// `--timeout` for the systems' commands that had none (replays, steps, `dimacs`): the
/// watchdog of [`within`] ends them at the timeout plus its [`margin`] with exit 5.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct TimeoutArg {
    /// Give up after this many seconds, counted from the start (exit 5).
    #[arg(long, value_parser = super::parse_seconds)]
    pub timeout: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_margin_is_a_twentieth_of_the_timeout_within_bounds() {
        let ms = Duration::from_millis;
        assert_eq!(margin(ms(200)), ms(50));
        assert_eq!(margin(ms(5000)), ms(250));
        assert_eq!(margin(ms(60_000)), ms(1000));
    }
}
