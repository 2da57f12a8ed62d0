//! `gordian resolve FILE`: one night, split into independent components, the chosen
//! engines asked (direct and SAT in parallel by default, component by component,
//! compared), a factorised human or JSON report streamed to standard output.

use super::registry::{self, EngineChoice, SystemName};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::differential::with_timeout;
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::answer::{self, Expand, Options};
use crate::systems::ar::{self, Ar};
use crate::systems::spec::Budget;
use std::io::Write as _;
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
    /// Write the flat lists of the whole night (every resolution, cut and outcome, the
    /// products of the components'): `auto` while they hold at most 256 entries,
    /// `always` (`--expand` alone), or `never` (the factorised answer only).
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1,
          default_missing_value = "always", value_name = "WHEN")]
    expand: Expand,
    /// Stop each flat list after N items (exit 5 when a list was cut short; the totals
    /// stay exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
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
    if args.engine == EngineChoice::Brute && u.largest_part() > ar::brute::MAX_UNIVERSE {
        eprintln!(
            "error: too large for brute force (a component of {} effects, at most {})",
            u.largest_part(),
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
                        Ok(a) => answer::to_json(&u, a, &Options::default()),
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
    let opts = Options {
        seed: args.seed,
        expand: args.expand,
        limit: args.limit,
    };
    let mut o = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        let extra = [
            ("engine", serde_json::json!(engine)),
            ("cross_checked", serde_json::json!(cross_checked)),
            ("unfinished", serde_json::json!(unfinished.first())),
        ];
        answer::write_json(&mut o, &u, analysis, &opts, &extra)
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
        answer::write_human(&mut o, &u, analysis, &opts)
            .and_then(|w| writeln!(o, "({how})").map(|()| w))
    };
    match written.and_then(|w| o.flush().map(|()| w)) {
        Err(e) => super::write_failed(e),
        Ok(w) if w.truncated => {
            eprintln!(
                "note: {}: output stopped after {} item(s) per list (--limit); the totals \
                 are exact",
                args.file.display(),
                args.limit.unwrap_or_default()
            );
            ExitCode::from(EXIT_LIMIT)
        }
        Ok(_) => ExitCode::SUCCESS,
    }
}
