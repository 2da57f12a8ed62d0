//! `gordian fuzz`: random instances of one system (`--system`, default ?AR) through every
//! engine of that system, in parallel; the first disagreement is shrunk and written in the
//! system's format. Each system's generator flags are its own: a flag of another system
//! is an error naming the system it belongs to.
//!
//! With `--against CMD` the cases are answered by an outside resolver too (the protocol of
//! `docs/protocol.md`) and compared with gordian's answer; the first difference or fault
//! of the resolver is shrunk (re-running it) and saved.
//!
//! Each case is solved in a worker process (`cli/worker.rs`, mode `Fuzz`: the worker reads
//! this command line again for the generator's knobs), killed past `--case-timeout` or
//! `--max-memory` plus their margins (the case counts as skipped) and replaced when it
//! dies: a crash is a failure (a bug in gordian), shrunk through the workers like a
//! disagreement. With `--against`, gordian's side of each case runs in this process.
//!
//! Exit codes: 0 no disagreement; 1 a disagreement (the shrunk instance's path is
//! printed), a fault of the outside resolver, or a failure to write the instance; 2 bad arguments or an unusable `--out`; 130/143
//! interrupted (the summary of the cases run is printed).

use super::generators::{foreign_flag, ForSystem, Generators};
use super::registry::SystemName;
use super::signals::Signals;
use super::worker;
use super::{parse_seconds, progress, EXIT_INPUT};
use crate::harness::against;
use crate::harness::external::Resolver;
use crate::harness::fuzz::{self, Case, Config, Limit, Outcome};
use crate::harness::isolate::{Pool, Reply};
use crate::harness::Differential;
use crate::systems::spec::{System, DEFAULT_MAX_MEMORY};
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The system to fuzz.
    #[arg(long, value_enum, default_value = "ar")]
    system: SystemName,
    /// Number of cases (default 1000 unless --seconds is given).
    #[arg(long, conflicts_with = "seconds", value_parser = clap::value_parser!(u64).range(1..))]
    cases: Option<u64>,
    /// Fuzz for this many seconds instead of a number of cases.
    #[arg(long, value_parser = parse_seconds)]
    seconds: Option<Duration>,
    /// The run's seed; case i is a pure function of the options, the seed and i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where a shrunk failing instance is written (created if missing).
    #[arg(long, default_value = "fuzz-failures")]
    out: PathBuf,
    /// Seconds one case may take; slower cases (some random scenarios have millions of
    /// runs) are cancelled, run once more alone after the others (cases run in
    /// parallel), and counted as skipped if over it again, never as failures.
    #[arg(long, default_value = "2", value_parser = parse_seconds)]
    case_timeout: Duration,
    /// Memory bound on each engine's state in one case, in MiB (as `resolve --max-memory`);
    /// a case past it is stopped and counted as skipped (over --max-memory), never as a
    /// failure.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_MEMORY >> 20,
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    max_memory: u64,
    /// An outside resolver to test instead of gordian's own engines against each other:
    /// a command line run through the shell for every case, with the instance in the
    /// system's text format on standard input and GORDIAN_SYSTEM set; it prints one JSON
    /// object, compared with gordian's answer on the fields it gives (docs/protocol.md).
    /// --case-timeout bounds each run of it.
    #[arg(long, value_name = "CMD")]
    against: Option<String>,
    #[command(flatten)]
    generators: Generators,
}

/// Runs the subcommand (`m`: its matches, to tell given flags from defaults).
pub fn run(args: &Args, m: &ArgMatches) -> ExitCode {
    if let Some(msg) = foreign_flag(args.system, m) {
        eprintln!("{msg}");
        return ExitCode::from(EXIT_INPUT);
    }
    if args.against.as_deref().is_some_and(|c| c.trim().is_empty()) {
        eprintln!("error: --against needs a command line (for example --against 'python3 my_resolver.py')");
        return ExitCode::from(EXIT_INPUT);
    }
    if let Err(e) = super::writable_dir(&args.out) {
        eprintln!("error: --out: {e}");
        return ExitCode::from(EXIT_INPUT);
    }
    let cfg = Config {
        seed: args.seed,
        limit: match (args.cases, args.seconds) {
            (_, Some(t)) => Limit::Time(t),
            (n, None) => Limit::Cases(n.unwrap_or(1000)),
        },
        case_timeout: Some(args.case_timeout),
        max_memory: Some(args.max_memory << 20),
    };
    let against = args.against.as_ref().map(|c| Resolver {
        command: c.clone(),
        timeout: Some(args.case_timeout),
    });
    let workers = match against {
        Some(_) => None,
        None => {
            let wcfg = worker::Config {
                mode: worker::Mode::Fuzz,
                system: Some(args.system),
                opts: super::registry::RunOptions {
                    engine: super::registry::EngineChoice::All,
                    grace: None,
                    timeout: Some(args.case_timeout),
                    max_memory: args.max_memory << 20,
                    answers: false,
                },
                argv: std::env::args().collect(),
            };
            match worker::pool_or_exit(&wcfg, rayon::current_num_threads()) {
                Ok(p) => Some(p),
                Err(code) => return code,
            }
        }
    };
    args.generators.dispatch(
        args.system,
        Fuzz {
            cfg: &cfg,
            out: &args.out,
            against,
            workers,
        },
    )
}

struct Fuzz<'a> {
    cfg: &'a Config,
    out: &'a Path,
    against: Option<Resolver>,
    workers: Option<Pool>,
}

impl ForSystem for Fuzz<'_> {
    type Out = ExitCode;
    fn run<S: System>(self, gen: &S::GenArgs) -> ExitCode {
        match (&self.against, &self.workers) {
            (Some(r), _) => fuzz_against::<S>(gen, self.cfg, self.out, r),
            (None, Some(w)) => fuzz_system::<S>(gen, self.cfg, self.out, w),
            (None, None) => unreachable!("a pool is made whenever there is no --against"),
        }
    }
}

/// One request to a fuzz worker.
#[derive(Debug, Serialize, Deserialize)]
enum Request {
    /// The case of this generator seed.
    Seed(u64),
    /// An instance in the system's text format (a candidate of the shrinker).
    Text(String),
}

/// The worker's side (`gordian worker`, mode `Fuzz`): reads the parent's command line
/// `argv` again, then answers each request line with a [`Case`] line.
pub fn serve(argv: &[String]) -> ExitCode {
    let parsed = super::Cli::command()
        .try_get_matches_from(argv)
        .map_err(|e| e.to_string())
        .and_then(|m| {
            let sub = m
                .subcommand_matches("fuzz")
                .ok_or("not a fuzz command line")?
                .clone();
            let args = Args::from_arg_matches(&sub).map_err(|e| e.to_string())?;
            Ok((args, sub))
        });
    let (args, _) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: gordian worker: bad fuzz command line: {e}");
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let cfg = Config {
        seed: args.seed,
        limit: Limit::Cases(0),
        case_timeout: Some(args.case_timeout),
        max_memory: Some(args.max_memory << 20),
    };
    args.generators.dispatch(args.system, Serve { cfg: &cfg })
}

struct Serve<'a> {
    cfg: &'a Config,
}

impl ForSystem for Serve<'_> {
    type Out = ExitCode;
    fn run<S: System>(self, gen: &S::GenArgs) -> ExitCode {
        let diff = Differential::<S>::all();
        let mut out = std::io::stdout().lock();
        let name = PathBuf::from(format!("case.{}", S::EXTENSIONS[0]));
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let case = match serde_json::from_str::<Request>(&line) {
                Ok(Request::Seed(seed)) => {
                    fuzz::solve_case(&S::generate(gen, seed), &diff, self.cfg)
                }
                Ok(Request::Text(text)) => match S::parse(&name, &text) {
                    Ok(i) => fuzz::solve_case(&i, &diff, self.cfg),
                    Err(e) => Case::bare(Outcome::Unreadable(format!("{e:?}"))),
                },
                Err(e) => {
                    eprintln!("error: gordian worker: bad fuzz request: {e}");
                    return ExitCode::from(EXIT_INPUT);
                }
            };
            let answer = serde_json::to_string(&case).expect("cases serialise");
            if writeln!(out, "{answer}")
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE; // the parent is gone
            }
        }
        ExitCode::SUCCESS
    }
}

/// `request` answered by a worker of `pool`: the worker's [`Case`], or what the hard
/// stop made of it (killed at the time or memory limit: skipped; died: a crash); `None`
/// when `stop` ended it.
fn ask(pool: &Pool, request: &Request, stop: &std::sync::atomic::AtomicBool) -> Option<Case> {
    let slot = rayon::current_thread_index().unwrap_or(0);
    let line = serde_json::to_string(request).expect("requests serialise");
    Some(match pool.ask(slot, &line, stop) {
        Reply::Answer(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
            Case::bare(Outcome::Crashed(format!(
                "its answer cannot be read ({e}): {line}"
            )))
        }),
        Reply::Stopped => return None,
        Reply::Timeout(_) => Case::bare(Outcome::TimedOut),
        Reply::Memory { .. } => Case::bare(Outcome::OverMemory),
        Reply::Crashed(how) => Case::bare(Outcome::Crashed(how)),
    })
}

/// Creates `dir` if needed and checks a file can be written in it, before any case runs.
fn fuzz_system<S: System>(gen: &S::GenArgs, cfg: &Config, out: &Path, pool: &Pool) -> ExitCode {
    let signals = Signals::install();
    let bar = progress_bar(cfg);
    let retry = |n: u64| {
        bar.println(format!(
            "{n} case(s) over --case-timeout beside other cases: running them again, one at a time"
        ));
        bar.reset();
        bar.set_length(n);
    };
    let summary = fuzz::run_with::<S>(gen, cfg, &signals.any, &|| bar.inc(1), &retry, |_, seed| {
        ask(pool, &Request::Seed(seed), &signals.any)
    });
    bar.finish_and_clear();
    let secs = summary.elapsed.as_secs_f64();
    let labels: Vec<String> = summary
        .labels
        .iter()
        .map(|(c, n)| format!("{n} {c}"))
        .collect();
    let engines: Vec<String> = summary
        .engine_runs
        .iter()
        .map(|(e, n)| format!("{e} {n}"))
        .collect();
    let mut line = format!(
        "{} {} case(s) in {secs:.2} s ({:.1} cases/s): {}; engine runs: {}",
        summary.cases,
        S::NAME,
        summary.cases as f64 / secs.max(1e-9),
        if labels.is_empty() {
            "nothing".to_string()
        } else {
            labels.join(", ")
        },
        engines.join(", ")
    );
    if summary.retried > 0 {
        line.push_str(&format!(
            "; {} over --case-timeout beside other cases answered when run again alone",
            summary.retried
        ));
    }
    if summary.skipped > 0 {
        line.push_str(&format!(
            "; {} skipped (over --case-timeout)",
            summary.skipped
        ));
    }
    if summary.over_memory > 0 {
        line.push_str(&format!(
            "; {} skipped (over --max-memory)",
            summary.over_memory
        ));
    }
    say!("{line}");
    for (list, why) in [
        (&summary.skipped_cases, "over --case-timeout"),
        (&summary.over_memory_cases, "over --max-memory"),
    ] {
        if !list.is_empty() {
            say!("{}", skipped_line::<S>(list, why, cfg.seed));
        }
    }
    let Some(failure) = summary.failure else {
        return no_failure(summary.stopped, cfg.seed, &signals);
    };
    eprintln!(
        "case {} (generator seed {}): {}; shrinking ...",
        failure.index,
        failure.seed,
        if failure.crashed() {
            "gordian's worker process crashed (a bug in gordian)"
        } else {
            "the engines disagree"
        }
    );
    for line in failure.case.lines() {
        eprintln!("  {line}");
    }
    // A crash is shrunk only if it happens again: a worker killed from outside (the
    // out-of-memory killer, a user) would otherwise send the shrinker through every
    // candidate at full cost for nothing.
    let again = failure
        .crashed()
        .then(|| ask(pool, &Request::Seed(failure.seed), &signals.any));
    let not_again = again.is_some_and(|c| !c.is_some_and(|c| c.fails_like(&failure.case)));
    let shrunk = if not_again {
        eprintln!("  it did not crash when run again (killed from outside?): not shrunk");
        fuzz::Shrunk {
            instance: failure.instance.clone(),
            case: failure.case.clone(),
        }
    } else {
        fuzz::shrink_failure::<S>(&failure.instance, &failure.case, |cand| {
            if signals.any.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            ask(pool, &Request::Text(S::to_text(cand)), &signals.any)
        })
    };
    let mut text = fuzz::failure_file::<S>(&super::command_line(), cfg, &failure, &shrunk);
    if not_again {
        let first = text.find('\n').map_or(text.len(), |i| i + 1);
        text.insert_str(
            first,
            "# it did not crash when run again, so it was not shrunk: the worker may have \
             been killed from outside\n",
        );
    }
    let path = match save::<S>(out, "fuzz", cfg.seed, failure.index, &text) {
        Ok(p) => p,
        Err(code) => return code,
    };
    for line in shrunk.case.lines() {
        eprintln!("  {line}");
    }
    say!("{}", path.display());
    ExitCode::FAILURE
}

fn counts(m: &std::collections::BTreeMap<String, u64>) -> String {
    m.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The end of a run without a failure: its last line and exit code.
fn no_failure(stopped: bool, seed: u64, signals: &Signals) -> ExitCode {
    if stopped {
        say!("interrupted: no disagreement in the cases run (seed {seed})");
        return signals.exit_code().unwrap_or(ExitCode::from(130));
    }
    say!("no disagreement (seed {seed})");
    ExitCode::SUCCESS
}

/// Writes a shrunk failure as `out/KIND-SYSTEM-seedS-caseI.EXT`; on a write error, prints
/// the file's text on standard error instead (exit 1).
fn save<S: System>(
    out: &Path,
    kind: &str,
    seed: u64,
    index: u64,
    text: &str,
) -> Result<PathBuf, ExitCode> {
    let path = out.join(format!(
        "{kind}-{}-seed{seed}-case{index}.{}",
        S::NAME,
        S::EXTENSIONS[0]
    ));
    match std::fs::create_dir_all(out).and_then(|()| std::fs::write(&path, text)) {
        Ok(()) => Ok(path),
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            eprint!("{text}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// Field names, each with the number of cases it was in when that is not every case.
fn fields(m: &std::collections::BTreeMap<String, u64>, cases: u64) -> String {
    m.iter()
        .map(|(k, &n)| {
            if n == cases {
                k.clone()
            } else {
                format!("{k} ({n})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn progress_bar(cfg: &Config) -> indicatif::ProgressBar {
    match cfg.limit {
        Limit::Cases(n) => progress::bar(Some(n), "cases"),
        Limit::Time(t) => progress::bar(None, &format!("cases in {} s", t.as_secs_f64())),
    }
}

fn fuzz_against<S: System>(
    gen: &S::GenArgs,
    cfg: &Config,
    out: &Path,
    resolver: &Resolver,
) -> ExitCode {
    let signals = Signals::install();
    let diff = Differential::<S>::all();
    let bar = progress_bar(cfg);
    let summary = against::fuzz::<S>(gen, &diff, cfg, resolver, &signals.any, &|| bar.inc(1));
    bar.finish_and_clear();
    let secs = summary.elapsed.as_secs_f64();
    let agreed = summary.labels.values().sum::<u64>();
    let mut line = format!(
        "{} {} case(s) in {secs:.2} s ({:.1} cases/s) against `{}`: {} agreed",
        summary.cases,
        S::NAME,
        summary.cases as f64 / secs.max(1e-9),
        resolver.command,
        agreed,
    );
    if !summary.labels.is_empty() {
        line.push_str(&format!(" ({})", counts(&summary.labels)));
    }
    if !summary.fields.is_empty() {
        line.push_str(&format!(
            "; fields compared: {}",
            fields(&summary.fields, agreed)
        ));
    }
    if !summary.unknown.is_empty() {
        line.push_str(&format!(
            "; fields gordian does not know (ignored): {}",
            fields(&summary.unknown, agreed)
        ));
    }
    if summary.skipped > 0 {
        line.push_str(&format!(
            "; {} skipped (gordian over --case-timeout or --max-memory)",
            summary.skipped
        ));
    }
    say!("{line}");
    if summary.fields.is_empty() && summary.failure.is_none() && summary.cases > 0 {
        eprintln!(
            "warning: the resolver's answers had no field gordian knows, so nothing was \
             compared (see `gordian schema answer --system {}`)",
            S::NAME
        );
    }
    let Some(failure) = summary.failure else {
        return no_failure(summary.stopped, cfg.seed, &signals);
    };
    eprintln!(
        "case {} (generator seed {}): {}; shrinking ...",
        failure.index,
        failure.seed,
        match &failure.judged {
            against::Judged::Differ(d) => format!(
                "the resolver's answer differs from gordian's at `{}`",
                d.difference.field
            ),
            against::Judged::Fault(f) => f.to_string(),
            against::Judged::GordianDisagrees(_) =>
                "gordian's own engines disagree (a bug in gordian)".to_string(),
            j => j.verdict().to_string(),
        }
    );
    let (small, judged) = against::shrink::<S>(
        &failure.instance,
        &failure.judged,
        &diff,
        cfg,
        resolver,
        &signals.any,
    );
    let origin = format!(
        "case {} of `{}` (generator seed {}), shrunk from size {} to {} (size: {})",
        failure.index,
        super::command_line(),
        failure.seed,
        S::size(&failure.instance),
        S::size(&small),
        S::SIZE_MEANS
    );
    let text = against::failure_file::<S>(&origin, resolver, &small, &judged);
    let path = match save::<S>(out, "against", cfg.seed, failure.index, &text) {
        Ok(p) => p,
        Err(code) => return code,
    };
    eprint!("{}", against::report::<S>(&small, &judged));
    say!("{}", path.display());
    ExitCode::FAILURE
}

/// Skipped cases listed at most this many to a line.
const SKIPPED_LISTED: usize = 20;

/// The line naming the cases skipped for `why`: their indices (the first
/// [`SKIPPED_LISTED`]) and how to get them back.
fn skipped_line<S: System>(list: &[u64], why: &str, seed: u64) -> String {
    let shown: Vec<String> = list
        .iter()
        .take(SKIPPED_LISTED)
        .map(u64::to_string)
        .collect();
    let more = match list.len().saturating_sub(SKIPPED_LISTED) {
        0 => String::new(),
        k => format!(" and {k} more"),
    };
    format!(
        "skipped ({why}): case{} {}{more}; case i is instance i of `gordian gen --system {} \
         --seed {seed}` with the same generator flags",
        if list.len() == 1 { "" } else { "s" },
        shown.join(", "),
        S::NAME
    )
}
