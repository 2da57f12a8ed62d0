//! `gordian batch PATH...`: many nights resolved in parallel, one JSON line each, to a
//! report file or standard output; resumable (`--resume`) and shardable (`--shard K/N`).
//!
//! Exit codes: 0 every instance has its record (error records included); 3 the engines
//! disagreed on some instance; 2 bad arguments or a report that cannot be opened; 1 the
//! report could not be written.

use super::parse_seconds;
use super::{progress, EXIT_DISAGREE, EXIT_INPUT};
use crate::batch::{self, ErrorKind, Options, Shard};
use crate::check::{Differential, Direct, DynEngine, Sat};
use clap::ValueEnum;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Which engine(s) answer each instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BatchEngine {
    /// Direct and SAT in parallel, compared.
    Both,
    /// The SAT engine alone.
    Sat,
    /// The direct engine alone.
    Direct,
}

/// Arguments of `gordian batch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Night files (any name) and directories (walked recursively for `.night` and
    /// `.json` files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Worker threads (default: the available parallelism).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
    /// Write the JSON lines to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Append to the report, skipping the paths it already has.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Only the K-th of N deterministic partitions of the sorted inputs (1 <= K <= N).
    #[arg(long)]
    shard: Option<Shard>,
    /// Per-instance time limit in seconds; an instance over it is a timeout error record.
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Which engine(s) answer; `both` runs direct and SAT in parallel and compares them.
    #[arg(long, value_enum, default_value = "both")]
    engine: BatchEngine,
    /// With `both`: seconds the slower engine may go on after the faster one answered;
    /// then the record is the faster engine's alone (`cross_checked: false`).
    #[arg(long, value_parser = parse_seconds, default_value = "10")]
    grace: Duration,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let (mut out, done): (Box<dyn Write + Send>, HashSet<String>) = match &args.out {
        Some(path) => match batch::open_report(path, args.resume) {
            Ok((f, done)) => (Box::new(f), done),
            Err(e) => {
                eprintln!("cannot open the report {}: {e}", path.display());
                return ExitCode::from(EXIT_INPUT);
            }
        },
        None => (Box::new(std::io::stdout()), HashSet::new()),
    };
    let (jobs, skipped) = batch::plan(&args.paths, args.shard, &done);
    let engines: Vec<&DynEngine> = match args.engine {
        BatchEngine::Both => vec![&Direct, &Sat],
        BatchEngine::Sat => vec![&Sat],
        BatchEngine::Direct => vec![&Direct],
    };
    let opts = Options {
        diff: Differential {
            engines,
            brute_up_to: 0,
            grace: Some(args.grace),
        },
        timeout: args.timeout,
    };
    let threads = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let bar = progress::bar(Some(jobs.len() as u64), "instances");
    let result = batch::run(&jobs, &opts, threads, &mut *out, &|_| bar.inc(1));
    bar.finish_and_clear();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot write the report: {e}");
            return ExitCode::FAILURE;
        }
    };
    let secs = summary.elapsed.as_secs_f64();
    let mut parts: Vec<String> = summary
        .classes
        .iter()
        .map(|(c, n)| format!("{n} {}", c.name()))
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
    if summary.errors.contains_key(&ErrorKind::Disagreement) {
        eprintln!("the engines disagree on some instance; this is a bug in gordian.");
        ExitCode::from(EXIT_DISAGREE)
    } else {
        ExitCode::SUCCESS
    }
}
