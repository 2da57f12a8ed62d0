//! `gordian resolve FILE`: one night, the chosen engines asked (direct and SAT in parallel
//! by default, compared), a human or JSON report. Reading, the universe, the engines and
//! the report run under the time budget and memory bound; the listing under `--limit`.

use super::limits::{self, MemoryArgs};
use super::registry::{self, EngineChoice, SystemName};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT};
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::{self, report, Analysis, Ar};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian resolve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The night file (`.night` line format, or `.json`; `-` reads standard input).
    file: PathBuf,
    /// Print the stable JSON object instead of the human report.
    #[arg(long)]
    json: bool,
    /// Also make one reproducible random pick with this seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Which engine answers; `both` runs direct and SAT in parallel and compares them,
    /// `all` adds brute force on tiny nights.
    #[arg(long, value_enum, default_value = "both")]
    engine: EngineChoice,
    /// Re-validate every answer with the reference semantics before reporting.
    #[arg(long)]
    self_check: bool,
    /// With several engines: seconds the slower ones may go on after the first answered;
    /// then the answer is the first engine's alone, and says so.
    #[arg(long, default_value = "10", value_parser = parse_seconds)]
    grace: Duration,
    /// Give up after this many seconds, counted from the start: reading, solving and the
    /// report (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Print nothing but an error (exit 5) when the answer has more outcomes than this
    /// (each is a line of the report, with its resolution and cut).
    #[arg(long, default_value_t = limits::DEFAULT_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    limit: u64,
}

/// The outcomes an analysis lists: every (optimal cut, resolution, way).
fn outcomes(a: &Analysis) -> u128 {
    let ways = |rs: &[ar::Resolution]| rs.iter().map(|r| r.ways.len() as u128).sum::<u128>();
    match &a.cuts {
        Some(c) => c.optimal.iter().map(|(_, rs)| ways(rs)).sum(),
        None => ways(&a.resolutions),
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    if let Ok(sys) = registry::system_of(&args.file, None) {
        if sys != SystemName::Ar {
            let e = registry::get(sys);
            eprintln!(
                "error: {} is {} {} (system `{}`), and `resolve` reads ?AR nights; see \
                 `gordian {} --help` for its commands, or run `gordian check {}`",
                args.file.display(),
                if e.noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                },
                e.noun,
                e.id,
                e.id,
                args.file.display()
            );
            return ExitCode::from(EXIT_INPUT);
        }
    }
    let what = args.file.display().to_string();
    let budget = args.memory.budget();
    let text = limits::within(&what, args.timeout, &budget, || answer(args, &budget));
    match text {
        Ok(text) => match super::out(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(code) => code,
    }
}

/// Loads, solves and renders the night under `budget`: the text to print, or the exit
/// code after the error was reported.
fn answer(args: &Args, budget: &crate::systems::spec::Budget) -> Result<String, ExitCode> {
    let what = args.file.display().to_string();
    let u = match inputs::load_within::<Ar>(&args.file, budget) {
        Ok(Ok(u)) => u,
        Ok(Err(e)) => {
            super::report_error(&e);
            return Err(ExitCode::from(EXIT_INPUT));
        }
        Err(_) => return Err(limits::stopped(&what, budget, None, args.timeout)),
    };
    let diff = match args.engine.names() {
        None => Differential::<Ar>::all(),
        Some(names) => match Differential::<Ar>::only(names) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return Err(ExitCode::from(EXIT_INPUT));
            }
        },
    }
    .with_grace(Some(args.grace));
    if args.engine == EngineChoice::Brute && u.len() > ar::brute::MAX_UNIVERSE {
        eprintln!(
            "error: too large for brute force ({} effects in the universe, at most {})",
            u.len(),
            ar::brute::MAX_UNIVERSE
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    let c = diff.compare(&u, budget);
    let analysis = match c.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => a,
        Verdict::Interrupted => {
            return Err(limits::stopped(&what, budget, c.limit_hit(), args.timeout));
        }
        Verdict::Disagree => {
            eprintln!("error: {what}: the engines disagree; this is a bug in gordian.");
            let answers: serde_json::Map<String, serde_json::Value> = c
                .runs
                .iter()
                .map(|r| {
                    let v = match &r.result {
                        Ok(a) => report::to_json(&u, a, None),
                        Err(e) => serde_json::json!({"error": e.to_string()}),
                    };
                    (r.engine.to_string(), v)
                })
                .collect();
            let text = serde_json::to_string_pretty(&answers).expect("JSON values serialise");
            return Err(match super::out(&format!("{text}\n")) {
                Ok(()) => ExitCode::from(EXIT_DISAGREE),
                Err(code) => code,
            });
        }
    };
    let listed = outcomes(analysis);
    if listed > u128::from(args.limit) {
        let summary = ar::system::describe_counts(analysis);
        return Err(limits::over_limit(
            &what, listed, "outcomes", args.limit, &summary,
        ));
    }
    if args.self_check {
        if let Err(v) = ar::self_check(&u, analysis) {
            eprintln!("error: {what}: self-check failed: {v}");
            return Err(ExitCode::FAILURE);
        }
    }
    if budget.is_cancelled() {
        return Err(limits::stopped(&what, budget, None, args.timeout));
    }
    let cross_checked = c.cross_checked();
    let unfinished = c.unfinished();
    let answered: Vec<&str> = c
        .runs
        .iter()
        .filter(|r| r.result.is_ok())
        .map(|r| r.engine)
        .collect();
    let engine = if cross_checked && answered.len() == 2 {
        "both".to_string()
    } else {
        answered.join("+")
    };
    Ok(if args.json {
        let mut v = report::to_json(&u, analysis, args.seed);
        v["engine"] = serde_json::json!(engine);
        v["cross_checked"] = serde_json::json!(cross_checked);
        v["unfinished"] = serde_json::json!(unfinished.first());
        format!(
            "{}\n",
            serde_json::to_string_pretty(&v).expect("JSON values serialise")
        )
    } else {
        let how = if cross_checked {
            format!("cross-checked: {} engines agree", answered.join(" and "))
        } else if !unfinished.is_empty() {
            format!(
                "answered by the {engine} engine alone: NOT cross-checked, the {} engine did \
                 not finish within {}s after it",
                unfinished.join(", "),
                args.grace.as_secs_f64()
            )
        } else {
            format!("answered by the {engine} engine alone")
        };
        format!("{}({how})\n", report::to_human(&u, analysis, args.seed))
    })
}
