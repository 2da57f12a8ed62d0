//! `gordian batch PATH...`: many instances (any system: by extension, or `--system`)
//! answered in parallel, one JSON line each, to a report file or standard output;
//! resumable (`--resume`) and shardable (`--shard K/N`, or `--shard auto`: from a Slurm job
//! array or a Kubernetes Indexed Job, `harness::shard`); `gordian merge` joins the
//! shards' reports.
//!
//! Each instance is solved in a worker process (`cli/worker.rs`): past `--timeout` (plus
//! a margin) or `--max-memory` (plus headroom) the worker is killed and the instance gets
//! a `timeout` or `limit` record; a worker that dies gets a `crash` record; a signal
//! stops the workers at once, and the records written stay.
//!
//! Exit codes: 0 every instance has its record (error records included); 3 the engines
//! disagreed on some instance; 1 some worker crashed (a `crash` record); 5 some instance
//! hit a limit (a `timeout` or `limit` record); 2 bad arguments (a path that does not
//! exist, an existing report without `--resume` or `--force`) or a report that cannot be used (missing
//! directory, locked by another run, not a report); 1 the report could not be written;
//! 130/143 interrupted (the records written so far stay; `--resume` continues).

use super::registry::{self, EngineChoice, RunOptions, SystemName};
use super::signals::Signals;
use super::worker;
use super::{parse_seconds, progress, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT, STDOUT};
use crate::harness::batch::{self, ErrorKind, Job};
use crate::harness::shard::{Shard, ShardArg};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian batch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Instance files (any name) and directories (walked recursively for the extensions of
    /// every system, or of `--system`).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The system of every file (default: from each file's extension).
    #[arg(long, value_enum)]
    system: Option<SystemName>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// Write the JSON lines to this file instead of standard output (`-`: standard
    /// output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Append to the report, skipping the paths it already has.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Start an existing, non-empty report again from nothing (without --resume or
    /// --force, such a report is refused).
    #[arg(long, requires = "out", conflicts_with = "resume")]
    force: bool,
    /// Only the K-th of N deterministic partitions of the sorted inputs (1 <= K <= N), or
    /// `auto`: K and N from a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT) or a
    /// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with GORDIAN_SHARD_COUNT set to the
    /// Job's completions).
    #[arg(long, value_name = "K/N|auto")]
    shard: Option<ShardArg>,
    /// Per-instance time limit in seconds; an instance over it is a timeout error record.
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Which engine(s) answer; `both` runs direct and SAT in parallel and compares them.
    #[arg(long, value_enum, default_value = "both")]
    engine: EngineChoice,
    /// With several engines: once the first answered, the slower ones may go on for the
    /// longer of this many seconds and 3 times the first answer's time (within
    /// --timeout); then the record is the first engine's alone (`cross_checked: false`).
    #[arg(long, value_parser = parse_seconds, default_value = "10")]
    grace: Duration,
    #[command(flatten)]
    memory: super::limits::MemoryArgs,
}

/// The shard of `--shard` (`auto` read from the environment), or the exit code.
pub(super) fn shard_of(arg: Option<ShardArg>) -> Result<Option<Shard>, ExitCode> {
    match arg {
        None => Ok(None),
        Some(ShardArg::Fixed(s)) => {
            eprintln!("shard {s} (from --shard)");
            Ok(Some(s))
        }
        Some(ShardArg::Auto) => {
            match crate::harness::shard::from_env(&|name| {
                std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
            }) {
                Ok(found) => {
                    eprintln!("shard {} (from {})", found.shard, found.source);
                    Ok(Some(found.shard))
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Err(ExitCode::from(EXIT_INPUT))
                }
            }
        }
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let signals = Signals::install();
    let shard = match shard_of(args.shard) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // A path that does not exist is a mistake in the command, not an instance to record.
    for p in &args.paths {
        if p.as_os_str() != "-" && std::fs::symlink_metadata(p).is_err() {
            eprintln!("error: {}: no such file or directory", p.display());
            return ExitCode::from(EXIT_INPUT);
        }
    }
    // `--out -` is standard output, as everywhere; a report to resume or restart is a file.
    let report = args.out.as_deref().filter(|p| p.as_os_str() != STDOUT);
    if report.is_none() && (args.resume || args.force) {
        eprintln!(
            "error: --{} needs a report file; `--out -` is standard output",
            if args.resume { "resume" } else { "force" }
        );
        return ExitCode::from(EXIT_INPUT);
    }
    if let (Some(out), false, false) = (report, args.resume, args.force) {
        if std::fs::metadata(out).is_ok_and(|m| m.len() > 0) {
            eprintln!(
                "error: the report {} already exists: pass --resume to continue it, or \
                 --force to start it again",
                out.display()
            );
            return ExitCode::from(EXIT_INPUT);
        }
    }
    let (mut out, done): (Box<dyn Write + Send>, HashSet<String>) = match report {
        Some(path) => match batch::open_report(path, args.resume) {
            Ok((f, done)) => (Box::new(f), done),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INPUT);
            }
        },
        None => (Box::new(std::io::stdout()), HashSet::new()),
    };
    let (jobs, skipped) = batch::plan(
        &args.paths,
        &registry::extensions(args.system),
        shard,
        &done,
    );
    let opts = RunOptions {
        engine: args.engine,
        grace: Some(args.grace),
        timeout: args.timeout,
        max_memory: args.memory.bytes(),
        answers: false,
    };
    let threads = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    // Each instance is solved in a worker process under hard limits (cli/worker.rs).
    let cfg = worker::Config {
        mode: worker::Mode::Batch,
        system: args.system,
        opts,
        argv: Vec::new(),
    };
    let pool = match worker::pool_or_exit(&cfg, threads) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Each record names its shard, so that `merge` can tell which shards have no record.
    let resolve = |job: &Job| {
        let mut rec = worker::batch_in_worker(&pool, job, &cfg, &signals.any)?;
        if let Some(s) = shard {
            rec.json["shard"] = serde_json::Value::String(s.to_string());
        }
        Some(rec)
    };
    let bar = progress::bar(Some(jobs.len() as u64), "instances");
    let result = batch::run(&jobs, &resolve, threads, &mut *out, &signals.any, &|_| {
        bar.inc(1)
    });
    bar.finish_and_clear();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot write the report: {e}");
            return ExitCode::FAILURE;
        }
    };
    let secs = summary.elapsed.as_secs_f64();
    let mut parts: Vec<String> = summary
        .classes
        .iter()
        .map(|(c, n)| format!("{n} {c}"))
        .collect();
    parts.extend(
        summary
            .errors
            .iter()
            .map(|(k, n)| format!("{n} {} error(s)", k.name())),
    );
    eprintln!(
        "{} instance(s) in {secs:.2} s ({:.1}/s): {}{}",
        summary.written,
        summary.written as f64 / secs.max(1e-9),
        if parts.is_empty() {
            "nothing to do".to_string()
        } else {
            parts.join(", ")
        },
        if skipped > 0 {
            format!("; {skipped} skipped (already in the report)")
        } else {
            String::new()
        }
    );
    if let Some(code) = signals.exit_code() {
        eprintln!(
            "interrupted: {} of {} instance(s) written; run again with --resume to continue",
            summary.written,
            jobs.len()
        );
        return code;
    }
    if summary.errors.contains_key(&ErrorKind::Disagreement) {
        eprintln!("error: the engines disagree on some instance; this is a bug in gordian.");
        ExitCode::from(EXIT_DISAGREE)
    } else if summary.errors.contains_key(&ErrorKind::Crash) {
        eprintln!(
            "error: the process solving some instance crashed (its `crash` record says how); \
             this is a bug in gordian unless it was killed from outside."
        );
        ExitCode::FAILURE
    } else if summary.errors.contains_key(&ErrorKind::Timeout)
        || summary.errors.contains_key(&ErrorKind::Limit)
    {
        ExitCode::from(EXIT_LIMIT)
    } else {
        ExitCode::SUCCESS
    }
}
