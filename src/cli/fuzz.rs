//! `gordian fuzz`: random instances of one system (`--system`, default ?AR) through every
//! engine of that system, in parallel; the first disagreement is shrunk and written in the
//! system's format. Each system's generator flags are its own: a flag of another system
//! is an error naming the system it belongs to.
//!
//! With `--against CMD` the cases are answered by an outside resolver too (the protocol of
//! `docs/protocol.md`) and compared with gordian's answer; the first difference or fault
//! of the resolver is shrunk (re-running it) and saved.
//!
//! Exit codes: 0 no disagreement; 1 a disagreement (the shrunk instance's path is
//! printed), a fault of the outside resolver, or a failure to write the instance; 2 bad arguments or an unusable `--out`; 130/143
//! interrupted (the summary of the cases run is printed).

use super::generators::{foreign_flag, ForSystem, Generators};
use super::registry::SystemName;
use super::signals::Signals;
use super::{parse_seconds, progress, EXIT_INPUT};
use crate::harness::against;
use crate::harness::external::Resolver;
use crate::harness::fuzz::{self, Config, Limit};
use crate::harness::Differential;
use crate::systems::spec::{System, DEFAULT_MAX_MEMORY};
use clap::ArgMatches;
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
    /// runs) are cancelled and counted as skipped, never as failures.
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
    if let Err(e) = writable_dir(&args.out) {
        eprintln!("error: --out {}: {e}", args.out.display());
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
    args.generators.dispatch(
        args.system,
        Fuzz {
            cfg: &cfg,
            out: &args.out,
            against: args.against.as_ref().map(|c| Resolver {
                command: c.clone(),
                timeout: Some(args.case_timeout),
            }),
        },
    )
}

struct Fuzz<'a> {
    cfg: &'a Config,
    out: &'a Path,
    against: Option<Resolver>,
}

impl ForSystem for Fuzz<'_> {
    type Out = ExitCode;
    fn run<S: System>(self, gen: &S::GenArgs) -> ExitCode {
        match &self.against {
            None => fuzz_system::<S>(gen, self.cfg, self.out),
            Some(r) => fuzz_against::<S>(gen, self.cfg, self.out, r),
        }
    }
}

/// Creates `dir` if needed and checks a file can be written in it, before any case runs.
fn writable_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".gordian-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

fn fuzz_system<S: System>(gen: &S::GenArgs, cfg: &Config, out: &Path) -> ExitCode {
    let signals = Signals::install();
    let diff = Differential::<S>::all();
    let bar = progress_bar(cfg);
    let summary = fuzz::run::<S>(gen, &diff, cfg, &signals.any, &|| bar.inc(1));
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
    let Some(failure) = summary.failure else {
        return no_failure(summary.stopped, cfg.seed, &signals);
    };
    eprintln!(
        "case {} (generator seed {}): the engines disagree; shrinking ...",
        failure.index, failure.seed
    );
    for line in &failure.answers {
        eprintln!("  {line}");
    }
    let shrunk = fuzz::shrink_failure::<S>(&failure.instance, &diff, cfg);
    let text = fuzz::failure_file::<S>(gen, cfg, &failure, &shrunk);
    let path = match save::<S>(out, "fuzz", cfg.seed, failure.index, &text) {
        Ok(p) => p,
        Err(code) => return code,
    };
    for line in shrunk
        .comparison
        .describe(|a| S::summary(&shrunk.instance, a))
    {
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
        "case {} of `gordian fuzz --system {} --seed {}` (generator seed {}), shrunk from size {} to {}; generator: {gen:?}",
        failure.index,
        S::NAME,
        cfg.seed,
        failure.seed,
        S::size(&failure.instance),
        S::size(&small)
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
