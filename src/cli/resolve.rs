//! `gordian resolve FILE`: one night, split into independent components, the chosen
//! engines asked (direct and SAT in parallel by default, component by component,
//! compared), a factorised human or JSON report streamed to standard output. Reading,
//! the universe, the split and the engines run under the time budget and memory bound;
//! the flat lists under `--limit`.

use super::limits::{self, MemoryArgs};
use super::registry::{self, EngineChoice, SystemName};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::answer::{self, Expand, Options};
use crate::systems::ar::{self, Ar, Factored, Night};
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
    /// Give up after this many seconds, counted from the start: reading, solving and the
    /// report (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Write the flat lists of the whole night (every resolution, cut and outcome, the
    /// products of the components'): `auto` while they hold at most 256 entries,
    /// `always` (`--expand` alone), or `never` (the factorised answer only). The value
    /// needs `=` (`--expand=never`), so that `--expand FILE` reads FILE as the night.
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, require_equals = true,
          default_missing_value = "always", value_name = "WHEN")]
    expand: ExpandArg,
    /// Stop each flat list after N items (exit 5 when a list was cut short; the totals
    /// stay exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    #[command(flatten)]
    why: super::why::Args,
}

/// `--expand`'s values: [`Expand`] as a command-line choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExpandArg {
    /// While they hold at most 256 entries (ways listed plus outcomes).
    Auto,
    /// Always (streamed; `--limit` bounds each list).
    Always,
    /// Never: the factorised answer only.
    Never,
}

impl From<ExpandArg> for Expand {
    fn from(e: ExpandArg) -> Expand {
        match e {
            ExpandArg::Auto => Expand::Auto,
            ExpandArg::Always => Expand::Always,
            ExpandArg::Never => Expand::Never,
        }
    }
}

/// A solved night, ready to be written.
struct Solved {
    night: Night,
    analysis: Factored,
    engine: String,
    cross_checked: bool,
    unfinished: Vec<&'static str>,
    answered: Vec<&'static str>,
    extras: super::why::Extras,
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
    let solved = match limits::within(&what, args.timeout, &budget, || answer(args, &budget)) {
        Ok(s) => s,
        Err(code) => return code,
    };
    write(args, &solved)
}

/// Streams the report to standard output (after the watchdog: output is bounded by
/// `--limit`, not by the time budget).
fn write(args: &Args, s: &Solved) -> ExitCode {
    let opts = Options {
        seed: args.seed,
        expand: args.expand.into(),
        limit: args.limit,
    };
    let mut o = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        let mut extra = vec![
            ("engine", serde_json::json!(s.engine)),
            ("cross_checked", serde_json::json!(s.cross_checked)),
            ("unfinished", serde_json::json!(s.unfinished.first())),
        ];
        extra.extend(s.extras.json.iter().map(|(k, v)| (*k, v.clone())));
        answer::write_json(&mut o, &s.night, &s.analysis, &opts, &extra)
    } else {
        let how = if s.cross_checked {
            format!("cross-checked: {} engines agree", s.answered.join(" and "))
        } else if !s.unfinished.is_empty() {
            format!(
                "answered by the {} engine alone: NOT cross-checked, the {} engine did \
                 not finish within {}s after it",
                s.engine,
                s.unfinished.join(", "),
                args.grace.as_secs_f64()
            )
        } else {
            format!("answered by the {} engine alone", s.engine)
        };
        answer::write_human(&mut o, &s.night, &s.analysis, &opts).and_then(|w| {
            o.write_all(s.extras.text.as_bytes())?;
            writeln!(o, "({how})").map(|()| w)
        })
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

/// Explanations, cores, certificates and pictures work on the flat answer of the whole
/// night: up to this many flat entries (see `answer::flat_entries`).
const WHY_UP_TO: u64 = 4096;

/// What `--explain`, `--certify`, `--dot`, `--svg` add: computed on the component itself
/// for a night of one component, else on the flat answer of the whole night.
fn why(args: &Args, n: &Night, f: &Factored) -> Result<super::why::Extras, ExitCode> {
    let w = &args.why;
    if !(w.explain || w.certify.is_some() || w.dot.is_some() || w.svg.is_some()) {
        return Ok(super::why::Extras::default());
    }
    let fail = |e: String| {
        eprintln!("error: {}: {e}", args.file.display());
        ExitCode::from(if e.contains("bug in gordian") {
            EXIT_DISAGREE
        } else {
            EXIT_INPUT
        })
    };
    // A component answered as pieces is explained through the flat answer: a piece is
    // a view of some effects, not a night of its own.
    if let (None, [p], [a]) = (&f.refined, n.parts.as_slice(), f.parts.as_slice()) {
        return super::why::run(w, &p.universe, a, args.seed).map_err(fail);
    }
    let entries = answer::flat_entries(n, f);
    if entries > WHY_UP_TO.into() {
        let pieces = match &f.refined {
            Some(r) => format!(" ({} pieces)", r.night.parts.len()),
            None => String::new(),
        };
        return Err(fail(format!(
            "--explain, --certify, --dot and --svg need the whole night's flat answer, and \
             this one has {entries} entries over {} independent components{pieces} (at \
             most {WHY_UP_TO}); split the night into its components (see the report) and \
             ask about each",
            n.parts.len()
        )));
    }
    super::why::run(w, &n.whole, &ar::expand::flatten(n, f), args.seed).map_err(fail)
}

/// Loads and solves the night under `budget`, or the exit code after the error was
/// reported.
fn answer(args: &Args, budget: &crate::systems::spec::Budget) -> Result<Solved, ExitCode> {
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
    if args.engine == EngineChoice::Brute && u.largest_part() > ar::brute::MAX_UNIVERSE {
        eprintln!(
            "error: too large for brute force (a component of {} effects, at most {})",
            u.largest_part(),
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
                        Ok(a) => answer::to_json(&u, a, &Options::default()),
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
    let extras = why(args, &u, analysis)?;
    Ok(Solved {
        analysis: analysis.clone(),
        night: u,
        engine,
        cross_checked,
        unfinished,
        answered,
        extras,
    })
}
