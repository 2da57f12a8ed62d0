//! `gordian resolve FILE`: one night, every engine asked, a human or JSON report.

use super::{EngineChoice, EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::ar::{self, parse, report, Universe};
use crate::systems::spec::Budget;
use std::path::PathBuf;
use std::process::ExitCode;

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
    let answer = match ar::solve(&u, args.engine.into(), &budget) {
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
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("JSON values serialise")
        );
    } else {
        print!("{}", report::to_human(&u, &answer.analysis, args.seed));
        let how = if answer.cross_checked {
            "cross-checked: direct and SAT engines agree".to_string()
        } else {
            format!("answered by the {} engine alone", answer.engine)
        };
        println!("({how})");
    }
    ExitCode::SUCCESS
}
