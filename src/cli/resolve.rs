//! `gordian resolve FILE`: one night, the chosen engines asked (direct and SAT in parallel
//! by default, compared), a human or JSON report.

use super::registry::{self, EngineChoice, SystemName};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::differential::with_timeout;
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::{self, report, Ar};
use crate::systems::spec::Budget;
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
    /// Give up after this many seconds (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    why: super::why::Args,
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
    let u = match inputs::load::<Ar>(&args.file) {
        Ok(u) => u,
        Err(e) => {
            super::report_error(&e);
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let diff = match args.engine.names() {
        None => Differential::<Ar>::all(),
        Some(names) => match Differential::<Ar>::only(names) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INPUT);
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
        return ExitCode::from(EXIT_INPUT);
    }
    let budget = Budget::new();
    let c = with_timeout(args.timeout, &budget, || diff.compare(&u, &budget));
    let analysis = match c.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => a,
        Verdict::Interrupted => {
            eprintln!(
                "error: {}: no engine finished within the time limit",
                args.file.display()
            );
            return ExitCode::from(EXIT_LIMIT);
        }
        Verdict::Disagree => {
            eprintln!(
                "error: {}: the engines disagree; this is a bug in gordian.",
                args.file.display()
            );
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
            return match super::out(&format!("{text}\n")) {
                Ok(()) => ExitCode::from(EXIT_DISAGREE),
                Err(code) => code,
            };
        }
    };
    if args.self_check {
        if let Err(v) = ar::self_check(&u, analysis) {
            eprintln!("error: {}: self-check failed: {v}", args.file.display());
            return ExitCode::FAILURE;
        }
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
    let extras = match super::why::run(&args.why, &u, analysis, args.seed) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {}: {e}", args.file.display());
            return ExitCode::from(if e.contains("bug in gordian") {
                EXIT_DISAGREE
            } else {
                EXIT_INPUT
            });
        }
    };
    let text = if args.json {
        let mut v = report::to_json(&u, analysis, args.seed);
        for (k, x) in extras.json {
            v[k] = x;
        }
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
        format!(
            "{}{}({how})\n",
            report::to_human(&u, analysis, args.seed),
            extras.text
        )
    };
    match super::out(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
