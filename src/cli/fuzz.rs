//! `gordian fuzz`: random nights through the direct and SAT engines (and brute force on
//! small ones), in parallel; the first disagreement is shrunk and written as a `.night`
//! file.
//!
//! Exit codes: 0 no disagreement; 1 a disagreement (the shrunk night's path is printed)
//! or a failure to write it; 2 bad arguments.

use super::parse_seconds;
use super::progress;
use crate::check::{Differential, Direct, Sat};
use crate::fuzz::{self, Config, Limit};
use crate::gen::ar::NightParams;
use crate::systems::ar::ActionKind;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian fuzz`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Number of cases (default 1000 unless --seconds is given).
    #[arg(long, conflicts_with = "seconds")]
    cases: Option<u64>,
    /// Fuzz for this many seconds instead of a number of cases.
    #[arg(long, value_parser = parse_seconds)]
    seconds: Option<Duration>,
    /// The run's seed; case i's night is a pure function of the options, the seed and i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Players per night.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..))]
    players: u64,
    /// Each night has between 1 and this many effects.
    #[arg(long, default_value_t = 10)]
    max_effects: usize,
    /// Action kinds to draw from, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_kind,
          default_value = "visit,block,stop,protect,kill,deflect")]
    kinds: Vec<ActionKind>,
    /// Probability that an effect is a passive.
    #[arg(long, default_value_t = 0.15, value_parser = parse_rate)]
    passive_rate: f64,
    /// Number of distinct priority levels drawn at random (0: the kinds' defaults).
    #[arg(long, default_value_t = 0)]
    priority_levels: u32,
    /// Where a shrunk failing night (or scenario) is written.
    #[arg(long, default_value = "fuzz-failures")]
    out: PathBuf,
    /// Which game system: `ar` (nights) or `fft` (turn-flow scenarios: every variant's
    /// enumeration and property queries compared between simulator and SAT).
    #[arg(long, value_enum, default_value = "ar")]
    system: super::System,
    /// With `--system fft`: characters per scenario.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=26))]
    characters: u64,
    /// With `--system fft`: slow actions per scenario.
    #[arg(long, default_value_t = 2)]
    slow_actions: usize,
    /// With `--system fft`: most quick turns per phase.
    #[arg(long, default_value_t = 3)]
    bound: usize,
    /// With `--system fft`: seconds a case may take; slower cases (some random scenarios
    /// have millions of runs) are cancelled and counted as skipped.
    #[arg(long, default_value = "2", value_parser = parse_seconds)]
    case_timeout: Duration,
}

fn parse_kind(s: &str) -> Result<ActionKind, String> {
    ActionKind::from_name(s.trim()).ok_or_else(|| {
        let all: Vec<&str> = ActionKind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown action kind `{s}` (one of {})", all.join(", "))
    })
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("`{s}` is not a probability between 0 and 1")),
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let limit = match (args.cases, args.seconds) {
        (_, Some(t)) => Limit::Time(t),
        (n, None) => Limit::Cases(n.unwrap_or(1000)),
    };
    if args.system == super::System::Fft {
        let cfg = crate::systems::fft::check::FuzzConfig {
            params: crate::gen::fft::ScenarioParams {
                characters: args.characters as usize,
                slow: args.slow_actions,
                bound: args.bound,
                ..Default::default()
            },
            seed: args.seed,
            limit,
            case_timeout: Some(args.case_timeout),
        };
        return super::fft::fuzz(&cfg, &args.out);
    }
    let cfg = Config {
        params: NightParams {
            players: args.players as usize,
            effects: args.max_effects,
            kinds: args.kinds.clone(),
            passive_rate: args.passive_rate,
            priority_levels: args.priority_levels,
            ..NightParams::default()
        },
        max_effects: args.max_effects,
        seed: args.seed,
        limit,
    };
    let diff = Differential::with_brute(vec![&Direct, &Sat]);
    let bar = match limit {
        Limit::Cases(n) => progress::bar(Some(n), "cases"),
        Limit::Time(t) => progress::bar(None, &format!("cases in {} s", t.as_secs_f64())),
    };
    let summary = fuzz::run(&cfg, &diff, &|| bar.inc(1));
    bar.finish_and_clear();
    let secs = summary.elapsed.as_secs_f64();
    let classes: Vec<String> = summary
        .classes
        .iter()
        .map(|(c, n)| format!("{n} {}", c.name()))
        .collect();
    println!(
        "{} case(s) in {secs:.2} s ({:.1} cases/s): {}; brute force also ran on {}",
        summary.cases,
        summary.cases as f64 / secs.max(1e-9),
        if classes.is_empty() {
            "nothing".to_string()
        } else {
            classes.join(", ")
        },
        summary.brute
    );
    let Some(failure) = summary.failure else {
        println!("no disagreement (seed {})", args.seed);
        return ExitCode::SUCCESS;
    };
    eprintln!(
        "case {} (night seed {}): the engines disagree; shrinking ...",
        failure.index, failure.seed
    );
    for line in &failure.answers {
        eprintln!("  {line}");
    }
    let shrunk = fuzz::shrink_failure(&failure.night, &diff);
    let text = fuzz::failure_file(&cfg, &failure, &shrunk);
    let path = args.out.join(format!(
        "fuzz-seed{}-case{}.night",
        args.seed, failure.index
    ));
    if let Err(e) = std::fs::create_dir_all(&args.out).and_then(|()| std::fs::write(&path, &text)) {
        eprintln!("cannot write {}: {e}", path.display());
        eprint!("{text}");
        return ExitCode::FAILURE;
    }
    for line in shrunk.comparison.describe(&shrunk.universe) {
        eprintln!("  {line}");
    }
    println!("{}", path.display());
    ExitCode::FAILURE
}
