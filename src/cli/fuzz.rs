//! `gordian fuzz`: random instances of one system (`--system`, default ?AR) through every
//! engine of that system, in parallel; the first disagreement is shrunk and written in the
//! system's format. Each system's generator flags are its own: a flag of another system
//! is an error naming the system it belongs to.
//!
//! Exit codes: 0 no disagreement; 1 a disagreement (the shrunk instance's path is
//! printed) or a failure to write it; 2 bad arguments or an unusable `--out`; 130/143
//! interrupted (the summary of the cases run is printed).

use super::registry::SystemName;
use super::signals::Signals;
use super::{parse_seconds, progress, EXIT_INPUT};
use crate::harness::fuzz::{self, Config, Limit};
use crate::harness::Differential;
use crate::systems::ar::system::ArGen;
use crate::systems::ar::Ar;
use crate::systems::ff8::gen::GenArgs as Ff8Gen;
use crate::systems::ff8::system::Ff8;
use crate::systems::fft::system::FftGen;
use crate::systems::fft::Fft;
use crate::systems::foeman::gen::GenArgs as FoemanGen;
use crate::systems::foeman::system::Foeman;
use crate::systems::lancer::gen::GenArgs as LancerGen;
use crate::systems::lancer::system::Lancer;
use crate::systems::spec::{System, DEFAULT_MAX_MEMORY};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args as _};
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
    #[command(flatten, next_help_heading = "?AR generator (--system ar)")]
    ar: ArGen,
    #[command(flatten, next_help_heading = "FFT generator (--system fft)")]
    fft: FftGen,
    #[command(flatten, next_help_heading = "Lancer generator (--system lancer)")]
    lancer: LancerGen,
    #[command(flatten, next_help_heading = "Foeman generator (--system foeman)")]
    foeman: FoemanGen,
    #[command(flatten, next_help_heading = "FF8 generator (--system ff8)")]
    ff8: Ff8Gen,
}

/// The generator flags of each system: (system, its argument ids).
fn generator_flags() -> Vec<(SystemName, &'static str, Vec<String>)> {
    let ids = |c: clap::Command| -> Vec<String> {
        c.get_arguments().map(|a| a.get_id().to_string()).collect()
    };
    vec![
        (
            SystemName::Ar,
            Ar::NAME,
            ids(ArGen::augment_args(clap::Command::new("ar"))),
        ),
        (
            SystemName::Fft,
            Fft::NAME,
            ids(FftGen::augment_args(clap::Command::new("fft"))),
        ),
        (
            SystemName::Lancer,
            Lancer::NAME,
            ids(LancerGen::augment_args(clap::Command::new("lancer"))),
        ),
        (
            SystemName::Foeman,
            Foeman::NAME,
            ids(FoemanGen::augment_args(clap::Command::new("foeman"))),
        ),
        (
            SystemName::Ff8,
            Ff8::NAME,
            ids(Ff8Gen::augment_args(clap::Command::new("ff8"))),
        ),
    ]
}

/// A flag given on the command line that belongs to another system's generator.
fn foreign_flag(system: SystemName, m: &ArgMatches) -> Option<String> {
    for (owner, name, ids) in generator_flags() {
        if owner == system {
            continue;
        }
        for id in ids {
            if m.value_source(&id) == Some(ValueSource::CommandLine) {
                let flag = format!("--{}", id.replace('_', "-"));
                return Some(format!(
                    "error: {flag} is a flag of the {name} generator (--system {name}), not of \
                     --system {}",
                    match system {
                        SystemName::Ar => Ar::NAME,
                        SystemName::Fft => Fft::NAME,
                        SystemName::Lancer => Lancer::NAME,
                        SystemName::Foeman => Foeman::NAME,
                        SystemName::Ff8 => Ff8::NAME,
                    }
                ));
            }
        }
    }
    None
}

/// Runs the subcommand (`m`: its matches, to tell given flags from defaults).
pub fn run(args: &Args, m: &ArgMatches) -> ExitCode {
    if let Some(msg) = foreign_flag(args.system, m) {
        eprintln!("{msg}");
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
    match args.system {
        SystemName::Ar => fuzz_system::<Ar>(&args.ar, &cfg, &args.out),
        SystemName::Fft => fuzz_system::<Fft>(&args.fft, &cfg, &args.out),
        SystemName::Lancer => fuzz_system::<Lancer>(&args.lancer, &cfg, &args.out),
        SystemName::Foeman => fuzz_system::<Foeman>(&args.foeman, &cfg, &args.out),
        SystemName::Ff8 => fuzz_system::<Ff8>(&args.ff8, &cfg, &args.out),
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
    let bar = match cfg.limit {
        Limit::Cases(n) => progress::bar(Some(n), "cases"),
        Limit::Time(t) => progress::bar(None, &format!("cases in {} s", t.as_secs_f64())),
    };
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
        if summary.stopped {
            say!(
                "interrupted: no disagreement in the cases run (seed {})",
                cfg.seed
            );
            return signals.exit_code().unwrap_or(ExitCode::from(130));
        }
        say!("no disagreement (seed {})", cfg.seed);
        return ExitCode::SUCCESS;
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
    let path = out.join(format!(
        "fuzz-{}-seed{}-case{}.{}",
        S::NAME,
        cfg.seed,
        failure.index,
        S::EXTENSIONS[0]
    ));
    if let Err(e) = std::fs::create_dir_all(out).and_then(|()| std::fs::write(&path, &text)) {
        eprintln!("error: cannot write {}: {e}", path.display());
        eprint!("{text}");
        return ExitCode::FAILURE;
    }
    for line in shrunk
        .comparison
        .describe(|a| S::summary(&shrunk.instance, a))
    {
        eprintln!("  {line}");
    }
    say!("{}", path.display());
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_generators_share_a_flag() {
        let mut seen = std::collections::HashMap::new();
        for (_, name, ids) in generator_flags() {
            for id in ids {
                if let Some(other) = seen.insert(id.clone(), name) {
                    panic!("flag id `{id}` is used by the {other} and the {name} generators");
                }
            }
        }
        assert!(seen.len() >= 10, "{seen:?}");
    }
}
