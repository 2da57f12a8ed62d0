//! `gordian worker` (hidden): the worker process `check`, `batch` and `fuzz` solve each
//! instance in, and the parent's side of it. A worker reads one job per line on standard
//! input (`harness::batch::Job` as JSON, or for `fuzz` a case: see `cli/fuzz.rs`), answers
//! it as the command would in-process (`registry::Entry::check` / `batch`, or
//! `harness::fuzz::solve_case`, under the run's cooperative limits) and writes one line:
//! the `FileCheck`, the `Record` or the `Case` as JSON. The parent (`harness::isolate::Pool`)
//! adds the hard limits: it kills a worker past `--timeout` plus [`hard_margin`], or whose
//! resident memory passes `--max-memory` plus [`RESIDENT_HEADROOM`], and turns a worker
//! that died into a `crash` record; each becomes the instance's one record.
//!
//! Invariant: one line out per line in, in order; the worker prints nothing else on
//! standard output.

use super::registry::{self, FileCheck, RunOptions, SystemName};
use crate::harness::batch::{self, ErrorKind, Job, Record};
use crate::harness::inputs;
use crate::harness::isolate::{HardLimits, Pool, Reply, Spawn};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a worker is for: which answers, which system (or by extension), which limits.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Config {
    /// `check`'s or `batch`'s answers.
    pub mode: Mode,
    /// Every file's system, or `None` for its extension.
    pub system: Option<SystemName>,
    /// The run's options (engines, grace, cooperative timeout, memory bound).
    pub opts: RunOptions,
    /// `fuzz`: the parent's whole command line, which the worker reads again for the
    /// generator's knobs and the case limits (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv: Vec<String>,
}

/// Which command's answer a worker gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// A `FileCheck`.
    Check,
    /// A batch `Record`.
    Batch,
    /// A fuzz `Case`.
    Fuzz,
}

/// Arguments of `gordian worker`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The worker's [`Config`], as JSON.
    #[arg(long)]
    config: String,
    /// The parent's process id: the worker ends as soon as it is no longer its parent's
    /// child (the parent died, whatever killed it).
    #[arg(long)]
    parent: Option<u32>,
}

/// How often a worker looks whether its parent is still there.
#[cfg(unix)]
const PARENT_POLL: Duration = Duration::from_millis(50);

/// Ends this process as soon as its parent is no longer `parent` (it died and the process
/// was adopted; also when it died before this started). Workers must not outlive the
/// command that started them: they hold memory and CPU nobody reads the answer of.
fn die_with_parent(parent: u32) {
    #[cfg(unix)]
    {
        let orphaned = move || {
            // SAFETY: getppid has no preconditions and cannot fail.
            let now = unsafe { libc::getppid() };
            u32::try_from(now).ok() != Some(parent)
        };
        let quit = || -> ! {
            // SAFETY: _exit ends the process at once, without running anything of ours.
            unsafe { libc::_exit(1) }
        };
        if orphaned() {
            quit();
        }
        std::thread::spawn(move || loop {
            std::thread::sleep(PARENT_POLL);
            if orphaned() {
                quit();
            }
        });
    }
    #[cfg(not(unix))]
    let _ = parent;
}

/// Resident memory a worker may hold beyond `--max-memory` before its parent kills it:
/// the program, its threads and the answer being written (as for single-instance
/// commands).
pub const RESIDENT_HEADROOM: u64 = super::limits::RESIDENT_HEADROOM;

/// How long past `--timeout` a worker may run before its parent kills it: a twentieth of
/// the timeout, at least 100 ms (the engines stop cooperatively at the timeout itself).
pub fn hard_margin(timeout: Duration) -> Duration {
    (timeout / 20).max(Duration::from_millis(100))
}

/// Runs the worker loop.
pub fn run(args: &Args) -> ExitCode {
    if let Some(parent) = args.parent {
        die_with_parent(parent);
    }
    let cfg: Config = match serde_json::from_str(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: gordian worker: bad --config: {e}");
            return ExitCode::from(super::EXIT_INPUT);
        }
    };
    // The loop runs on a thread of the worker's rayon pool, so that the engines' race
    // (`spec::race`, rayon) starts on the calling thread instead of waking the pool from
    // outside for every instance.
    let serve = |cfg: &Config| match cfg.mode {
        Mode::Fuzz => super::fuzz::serve(&cfg.argv),
        Mode::Check | Mode::Batch => serve(cfg),
    };
    match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool.install(|| serve(&cfg)),
        Err(_) => serve(&cfg),
    }
}

fn serve(cfg: &Config) -> ExitCode {
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let job: Job = match serde_json::from_str(&line) {
            Ok(j) => j,
            Err(e) => {
                eprintln!("error: gordian worker: bad job line: {e}");
                return ExitCode::from(super::EXIT_INPUT);
            }
        };
        inputs::give_stdin(job.stdin.clone());
        let answer = match cfg.mode {
            Mode::Batch => serde_json::to_string(&batch_record(&job, cfg)),
            Mode::Check | Mode::Fuzz => serde_json::to_string(&check_file(&job, cfg)),
        }
        .expect("answers serialise");
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            // The parent is gone.
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// A batch record for `job`, in this process.
pub fn batch_record(job: &Job, cfg: &Config) -> Record {
    match registry::system_of(&job.path, cfg.system) {
        Ok(name) => (registry::get(name).batch)(job, &cfg.opts),
        Err(msg) => batch::error_record(job.key(), ErrorKind::Input, format!("error: {msg}")),
    }
}

/// `check`'s answer for `job`, in this process.
pub fn check_file(job: &Job, cfg: &Config) -> FileCheck {
    if let Some(msg) = &job.unreadable {
        return FileCheck::Input(format!("error: {msg}"));
    }
    match registry::system_of(&job.path, cfg.system) {
        Ok(name) => (registry::get(name).check)(&job.path, &cfg.opts),
        Err(msg) => FileCheck::Input(format!("error: {msg}")),
    }
}

/// A pool of `size` workers for `cfg`, with the hard limits of its options, or the exit
/// code after saying why there is none.
pub fn pool_or_exit(cfg: &Config, size: usize) -> Result<Pool, ExitCode> {
    pool(cfg, size).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

/// A pool of `size` workers for `cfg`, with the hard limits of its options.
pub fn pool(cfg: &Config, size: usize) -> Result<Pool, String> {
    let program = std::env::current_exe()
        .map_err(|e| format!("cannot find gordian's own executable to start workers: {e}"))?;
    let config = serde_json::to_string(cfg).expect("configs serialise");
    let limits = HardLimits {
        wall: cfg.opts.timeout.map(|t| t + hard_margin(t)),
        resident: Some(cfg.opts.max_memory.saturating_add(RESIDENT_HEADROOM)),
    };
    Ok(Pool::new(
        Spawn {
            program,
            args: vec![
                "worker".into(),
                "--config".into(),
                config,
                "--parent".into(),
                std::process::id().to_string(),
            ],
        },
        limits,
        size,
    ))
}

/// `job` (a `-`) with this process's standard input, read once (a worker cannot read it:
/// its own standard input carries its requests); a read error makes the job unreadable.
fn parent_stdin(job: &Job) -> Job {
    static READ: std::sync::OnceLock<Result<Vec<u8>, String>> = std::sync::OnceLock::new();
    let read = READ.get_or_init(|| {
        inputs::read_bytes(Path::new(inputs::STDIN), "instances").map_err(|e| e.to_string())
    });
    let mut job = job.clone();
    match read {
        Ok(bytes) => job.stdin = Some(bytes.clone()),
        Err(e) => job.unreadable = Some(e.clone()),
    }
    job
}

/// `job` answered by a worker of `pool`: `Ok` the worker's answer line, else the hard
/// stop's error kind and message; `None` when `stop` ended it (no answer).
fn ask(
    pool: &Pool,
    job: &Job,
    cfg: &Config,
    stop: &AtomicBool,
) -> Option<Result<String, (ErrorKind, String)>> {
    let slot = rayon::current_thread_index().unwrap_or(0);
    let with_stdin;
    let job = if job.path.as_os_str() == inputs::STDIN && job.stdin.is_none() {
        with_stdin = parent_stdin(job);
        &with_stdin
    } else {
        job
    };
    let request = serde_json::to_string(job).expect("jobs serialise");
    Some(match pool.ask(slot, &request, stop) {
        Reply::Answer(line) => Ok(line),
        Reply::Stopped => return None,
        Reply::Timeout(after) => Err((
            ErrorKind::Timeout,
            format!(
                "timed out after {} s (the worker process did not stop at the time limit \
                 and was killed after {:.2} s)",
                cfg.opts.timeout.unwrap_or_default().as_secs_f64(),
                after.as_secs_f64()
            ),
        )),
        Reply::Memory { resident, limit } => Err((
            ErrorKind::Limit,
            format!(
                "the worker process held {} MiB of memory, past its hard limit of {} MiB \
                 (--max-memory plus {} MiB), and was killed (raise it with --max-memory)",
                resident >> 20,
                limit >> 20,
                RESIDENT_HEADROOM >> 20
            ),
        )),
        Reply::Crashed(how) => Err((ErrorKind::Crash, how)),
    })
}

/// A batch record for `job` from a worker of `pool` (see [`ask`]).
pub fn batch_in_worker(pool: &Pool, job: &Job, cfg: &Config, stop: &AtomicBool) -> Option<Record> {
    Some(match ask(pool, job, cfg, stop)? {
        Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
            batch::error_record(
                job.key(),
                ErrorKind::Crash,
                format!("the worker's answer is not a record ({e}): a bug in gordian"),
            )
        }),
        Err((kind, msg)) => batch::error_record(job.key(), kind, msg),
    })
}

/// `check`'s answer for `job` from a worker of `pool` (see [`ask`]).
pub fn check_in_worker(
    pool: &Pool,
    job: &Job,
    cfg: &Config,
    stop: &AtomicBool,
) -> Option<FileCheck> {
    Some(match ask(pool, job, cfg, stop)? {
        Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
            FileCheck::Crash(format!(
                "the worker's answer cannot be read ({e}): a bug in gordian"
            ))
        }),
        Err((ErrorKind::Timeout, _)) => FileCheck::Timeout,
        Err((ErrorKind::Limit, msg)) => FileCheck::Limit(msg),
        Err((_, msg)) => FileCheck::Crash(msg),
    })
}
