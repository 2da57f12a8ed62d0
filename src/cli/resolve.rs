//! `gordian resolve FILE`: one night, split into independent components, the chosen
//! engines asked (direct and SAT in parallel by default, component by component,
//! compared), a factorised human or JSON report streamed to standard output. Reading,
//! the universe, the split and the engines run under the time budget and memory bound;
//! the flat lists under `--limit`.

use super::limits::{self, MemoryArgs};
use super::registry::{self, EngineChoice, SystemName};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::differential::RunError;
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::answer::{self, Expand, Options};
use crate::systems::ar::{self, Ar, Factored, Night};
use crate::systems::spec::Budget;
use std::io::Write;
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
    /// With several engines: once the first answered, the slower ones may go on for the
    /// longer of this many seconds and 3 times the first answer's time (within
    /// --timeout); then the answer is the first engine's alone, and says so.
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
    /// Stop each list after N items: the flat lists; each component's own lists in the
    /// JSON when the flat ones are not written (resolutions, optimal cuts, each cut's
    /// resolutions, outcomes); and in the human report each component's optimal cuts,
    /// resolutions, ways and outcomes, which are otherwise shortened at 32 (exit 5 when
    /// a list was cut short; the totals stay exact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    #[command(flatten)]
    why: super::why::Args,
}

/// `--expand`'s values: [`Expand`] as a command-line choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ExpandArg {
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
pub(super) struct Solved {
    night: Night,
    analysis: Factored,
    engine: String,
    cross_checked: bool,
    unfinished: Vec<&'static str>,
    /// Why each unfinished engine did not finish, in words (as in the report's last line).
    unfinished_why: Vec<String>,
    answered: Vec<&'static str>,
    /// How long the first engine that answered took, in milliseconds.
    answered_ms: f64,
    extras: super::why::Extras,
}

impl Solved {
    /// The Graphviz picture the why flags asked for, if any.
    pub(super) fn dot(&self) -> Option<&str> {
        self.extras.dot.as_deref()
    }
    /// Whether the engines were compared and agreed.
    pub(super) fn cross_checked(&self) -> bool {
        self.cross_checked
    }
}

/// How a loaded night is solved and what its report adds: `resolve`'s flags, or the
/// playground's choices.
pub(super) struct How<'a> {
    /// The engines.
    pub engine: EngineChoice,
    /// The slower engines' time after the first answered.
    pub grace: Duration,
    /// Re-validate the answer with the reference semantics.
    pub self_check: bool,
    /// Explanations and pictures.
    pub why: &'a super::why::Args,
    /// The seed of the reproducible pick.
    pub seed: Option<u64>,
    /// The time limit (for its message).
    pub timeout: Option<Duration>,
}

/// Why a night has no report: the message (for standard error), and the exit code.
pub(super) struct Failed {
    /// The exit code.
    pub code: u8,
    /// What went wrong, as the CLI writes it on standard error.
    pub message: String,
    /// For a disagreement: every engine's answer, as JSON (the CLI writes it on
    /// standard output).
    pub answers: Option<String>,
}

impl Failed {
    fn new(code: u8, message: String) -> Failed {
        Failed {
            code,
            message,
            answers: None,
        }
    }

    /// Prints the failure as the CLI does and returns its exit code.
    fn report(self) -> ExitCode {
        eprintln!("{}", self.message);
        if let Some(a) = self.answers {
            if let Err(code) = super::out(&a) {
                return code;
            }
        }
        ExitCode::from(self.code)
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
    if let Err(e) = args.why.check_outputs(args.json) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_INPUT);
    }
    let what = args.file.display().to_string();
    let budget = args.memory.budget();
    let how = How {
        engine: args.engine,
        grace: args.grace,
        self_check: args.self_check,
        why: &args.why,
        seed: args.seed,
        timeout: args.timeout,
    };
    let solved = limits::within(&what, args.timeout, &budget, || {
        let u = match inputs::load_within::<Ar>(&args.file, &budget) {
            Ok(Ok(u)) => u,
            Ok(Err(e)) => {
                return Err(Failed::new(EXIT_INPUT, registry::render_load_error(&e)));
            }
            Err(_) => return Err(stopped(&what, &budget, None, args.timeout)),
        };
        solve(&what, u, &how, &budget)
    });
    let solved = match solved {
        Ok(s) => s,
        Err(f) => return f.report(),
    };
    // `--dot -` / `--svg -`: the picture is the standard output, in place of the report.
    if let Some(picture) = &solved.extras.stdout {
        let mut o = std::io::stdout().lock();
        return match o.write_all(picture).and_then(|()| o.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::write_failed(e),
        };
    }
    let opts = Options {
        seed: args.seed,
        expand: args.expand.into(),
        limit: args.limit,
    };
    let mut o = std::io::BufWriter::new(std::io::stdout().lock());
    match render(&solved, &opts, args.json, &mut o).and_then(|w| o.flush().map(|()| w)) {
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

/// `error: WHAT: <reason>` for a night stopped by its budget (exit 5).
fn stopped(
    what: &str,
    budget: &Budget,
    limit: Option<crate::systems::spec::LimitHit>,
    timeout: Option<Duration>,
) -> Failed {
    Failed::new(
        EXIT_LIMIT,
        format!(
            "error: {what}: {}",
            limits::stop_reason(budget, limit, timeout)
        ),
    )
}

/// Writes the report of `s`: the human report, or with `json` the JSON object (after the
/// watchdog: output is bounded by `--limit`, not by the time budget).
/// Milliseconds as the report says them: `4.12 s`, `0.031 s`.
fn seconds(ms: f64) -> String {
    let s = ms / 1e3;
    if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{s:.3} s")
    }
}

pub(super) fn render(
    s: &Solved,
    opts: &Options,
    json: bool,
    o: &mut dyn Write,
) -> std::io::Result<answer::Written> {
    if json {
        let mut extra = vec![
            ("engine", serde_json::json!(s.engine)),
            ("cross_checked", serde_json::json!(s.cross_checked)),
            ("unfinished", serde_json::json!(s.unfinished.first())),
        ];
        extra.extend(s.extras.json.iter().map(|(k, v)| (*k, v.clone())));
        return answer::write_json(o, &s.night, &s.analysis, opts, &extra);
    }
    let how = if s.cross_checked {
        format!("cross-checked: {} engines agree", s.answered.join(" and "))
    } else if !s.unfinished.is_empty() {
        format!(
            "answered by the {} engine alone, in {}: NOT cross-checked, {}",
            s.engine,
            seconds(s.answered_ms),
            s.unfinished_why.join("; ")
        )
    } else {
        format!("answered by the {} engine alone", s.engine)
    };
    let w = answer::write_human(o, &s.night, &s.analysis, opts)?;
    o.write_all(s.extras.text.as_bytes())?;
    writeln!(o, "({how})")?;
    Ok(w)
}

/// Explanations, cores, certificates and pictures work on the flat answer of the whole
/// night: up to this many flat entries (see `answer::flat_entries`).
const WHY_UP_TO: u64 = 4096;

/// What `--explain`, `--results`, `--certify`, `--dot`, `--svg` add: computed on the component itself
/// for a night of one component, else on the flat answer of the whole night.
fn why(how: &How, what: &str, n: &Night, f: &Factored) -> Result<super::why::Extras, Failed> {
    let w = how.why;
    if !w.wanted() {
        return Ok(super::why::Extras::default());
    }
    let fail = |e: String| {
        let code = if e.contains("bug in gordian") {
            EXIT_DISAGREE
        } else {
            EXIT_INPUT
        };
        Failed::new(code, format!("error: {what}: {e}"))
    };
    // A component answered as pieces is explained through the flat answer: a piece is
    // a view of some effects, not a night of its own.
    if let (None, [p], [a]) = (&f.refined, n.parts.as_slice(), f.parts.as_slice()) {
        return super::why::run(w, &p.universe, a, how.seed).map_err(fail);
    }
    let entries = answer::flat_entries(n, f);
    if entries > WHY_UP_TO.into() {
        let pieces = match &f.refined {
            Some(r) => format!(" ({} pieces)", r.night.parts.len()),
            None => String::new(),
        };
        return Err(fail(format!(
            "--explain, --results, --certify, --dot and --svg need the whole night's flat \
             answer, and \
             this one has {entries} entries over {} independent components{pieces} (at \
             most {WHY_UP_TO}); split the night into its components (see the report) and \
             ask about each",
            n.parts.len()
        )));
    }
    super::why::run(w, &n.whole, &ar::answer::expand::flatten(n, f), how.seed).map_err(fail)
}

/// Solves a loaded night under `budget` (`what` names it in messages), or says why not.
pub(super) fn solve(what: &str, u: Night, how: &How, budget: &Budget) -> Result<Solved, Failed> {
    let diff = match how.engine.names() {
        None => Differential::<Ar>::all(),
        Some(names) => Differential::<Ar>::only(names)
            .map_err(|e| Failed::new(EXIT_INPUT, format!("error: {e}")))?,
    }
    .with_grace(Some(how.grace));
    if how.engine == EngineChoice::Brute && u.largest_part() > ar::judge::brute::MAX_UNIVERSE {
        return Err(Failed::new(
            EXIT_INPUT,
            format!(
                "error: too large for brute force (a component of {} effects, at most {})",
                u.largest_part(),
                ar::judge::brute::MAX_UNIVERSE
            ),
        ));
    }
    let mut c = diff.compare(&u, budget);
    let analysis = match c.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => a,
        Verdict::Interrupted => return Err(stopped(what, budget, c.limit_hit(), how.timeout)),
        Verdict::Disagree => {
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
            return Err(Failed {
                code: EXIT_DISAGREE,
                message: format!("error: {what}: the engines disagree; this is a bug in gordian."),
                answers: Some(format!("{text}\n")),
            });
        }
    };
    if how.self_check {
        if let Err(v) = ar::self_check(&u, analysis) {
            return Err(Failed::new(
                1,
                format!("error: {what}: self-check failed: {v}"),
            ));
        }
    }
    if budget.is_cancelled() {
        return Err(stopped(what, budget, None, how.timeout));
    }
    let cross_checked = c.cross_checked();
    let unfinished = c.unfinished();
    let unfinished_why = c
        .runs
        .iter()
        .filter_map(|r| match &r.result {
            Ok(_) => None,
            Err(RunError::Limit(l)) => Some(format!(
                "the {} engine stopped at the memory bound of {} MiB on its state (storing {}; \
                 --max-memory)",
                r.engine,
                l.max_bytes.div_ceil(1 << 20),
                l.what
            )),
            Err(RunError::Panicked(m)) => Some(format!(
                "the {} engine failed (a bug in gordian): {m}",
                r.engine
            )),
            Err(RunError::Interrupted(_)) => Some(format!(
                "the {} engine was stopped after {} (the others may go on for the longer \
                 of --grace and {} times the first answer's time, within --timeout)",
                r.engine,
                seconds(r.ms),
                crate::systems::spec::GRACE_FACTOR
            )),
        })
        .collect();
    let answered: Vec<&str> = c
        .runs
        .iter()
        .filter(|r| r.result.is_ok())
        .map(|r| r.engine)
        .collect();
    let answered_ms = c
        .runs
        .iter()
        .filter(|r| r.result.is_ok())
        .map(|r| r.ms)
        .fold(f64::INFINITY, f64::min);
    let engine = if cross_checked && answered.len() == 2 {
        "both".to_string()
    } else {
        answered.join("+")
    };
    let extras = why(how, what, &u, analysis)?;
    // The answer moved out of the comparison, not copied: the verdict's answer is the
    // first one given (the others equal it), and it may be large.
    let given = c.runs.iter().position(|r| r.result.is_ok());
    let Some(Ok(analysis)) = given.map(|k| c.runs.swap_remove(k).result) else {
        unreachable!("the verdict named an answer")
    };
    Ok(Solved {
        analysis,
        night: u,
        engine,
        cross_checked,
        unfinished,
        unfinished_why,
        answered,
        answered_ms,
        extras,
    })
}
