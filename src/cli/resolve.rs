//! `gordian resolve FILE`: one night, every engine asked, a human or JSON report.

use super::{EngineChoice, EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::ar::{self, parse, report, Universe};
use crate::systems::spec::Budget;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian resolve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The night file (`.night` line format, or `.json`).
    file: PathBuf,
    /// Print the stable JSON object instead of the human report.
    #[arg(long)]
    json: bool,
    /// Also make one reproducible random pick with this seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Which engine answers; `both` runs direct and SAT in parallel and compares them.
    #[arg(long, value_enum, default_value = "both")]
    engine: EngineChoice,
    /// Re-validate every answer with the reference semantics before reporting.
    #[arg(long)]
    self_check: bool,
    /// With `--engine both`: seconds the slower engine may go on after the faster one
    /// answered; then the answer is the faster engine's alone, and says so.
    #[arg(long, default_value_t = 10.0)]
    grace: f64,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let ens = match parse::load(&args.file) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let u = Universe::new(&ens);
    let budget = Budget::new();
    let grace = match Duration::try_from_secs_f64(args.grace) {
        Ok(g) => g,
        Err(_) => {
            eprintln!("--grace: `{}` is not a number of seconds", args.grace);
            return ExitCode::from(EXIT_INPUT);
        }
    };
    let answer = match ar::solve_with(&u, args.engine.into(), &budget, Some(grace)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{}: {e}", args.file.display());
            return ExitCode::FAILURE;
        }
    };
    if let Some((a, b)) = &answer.disagreement {
        eprintln!(
            "{}: the engines disagree; this is a bug in gordian.",
            args.file.display()
        );
        let both = serde_json::json!({
            "direct": report::to_json(&u, a, None),
            "sat": report::to_json(&u, b, None),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&both).expect("JSON values serialise")
        );
        return ExitCode::from(EXIT_DISAGREE);
    }
    if args.self_check {
        if let Err(v) = ar::self_check(&u, &answer.analysis) {
            eprintln!("{}: self-check failed: {v}", args.file.display());
            return ExitCode::FAILURE;
        }
    }
    if args.json {
        let mut v = report::to_json(&u, &answer.analysis, args.seed);
        v["engine"] = serde_json::json!(answer.engine);
        v["cross_checked"] = serde_json::json!(answer.cross_checked);
        v["unfinished"] = serde_json::json!(answer.unfinished);
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("JSON values serialise")
        );
    } else {
        print!("{}", report::to_human(&u, &answer.analysis, args.seed));
        let how = match (answer.cross_checked, answer.unfinished) {
            (true, _) => "cross-checked: direct and SAT engines agree".to_string(),
            (false, Some(other)) => format!(
                "answered by the {} engine alone: NOT cross-checked, the {other} engine did \
                 not finish within {}s after it",
                answer.engine, args.grace
            ),
            (false, None) => format!("answered by the {} engine alone", answer.engine),
        };
        println!("({how})");
    }
    ExitCode::SUCCESS
}
