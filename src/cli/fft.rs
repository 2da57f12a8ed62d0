//! `gordian fft ...`: FFT turn flow — replay a log against the model, compare rule
//! variants, enumerate every outcome (simulator and SAT, compared), query for a property.
//!
//! Exit codes: 0 success; 2 bad input; 3 the engines disagree (a bug); 4 `replay` only:
//! the log is not explained (it diverges, or the next CR order differs); 5 a limit was
//! hit (`--timeout`, `--max-memory`, `enumerate --limit`).

use super::limits::{self, TimeoutArg};
use super::print_json;
use super::system_cmd::{note_stopped, on_file, watched, DimacsLimits, Engines, Exit, SolveLimits};
use super::table::print_table;
use super::{EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::fft::engine::{self, EngineKind};
use crate::systems::fft::model::{Scenario, Variant, MAX_BOUND};
use crate::systems::fft::search::Property;
use crate::systems::fft::{parse, replay, report, variants};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit code of `fft replay` when the log is not explained.
pub const EXIT_UNEXPLAINED: u8 = 4;

/// Arguments of `gordian fft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Feed a scenario's log through the model: confirm it line by line, or name the first
    /// line where the model differs and what it expected; predict the next CR order.
    Replay(ReplayArgs),
    /// Replay each scenario's log under every rule variant: which theory explains which log.
    Variants(VariantsArgs),
    /// Every distinct outcome (log, flags left, next CR order) the scenario's menus allow,
    /// by the simulator's exhaustive search and by SAT bounded model checking, compared.
    Enumerate(EnumerateArgs),
    /// Find a run with a property (a witness log), or say there is none within the bound.
    Query(QueryArgs),
    /// Print the SAT encoding (the step machine unrolled to the bound) as DIMACS CNF, with
    /// `c` lines naming the choice variables.
    Dimacs(DimacsArgs),
}

#[derive(clap::Args, Debug)]
struct DimacsArgs {
    /// The scenario (`.fft`).
    file: PathBuf,
    /// The rule variant.
    #[arg(long, default_value = "final", value_parser = parse_variant)]
    variant: Variant,
    /// Most quick turns in the phase, 0 to 64 (overrides the scenario's `bound`).
    #[arg(long, value_parser = bound_flag())]
    bound: Option<usize>,
    #[command(flatten)]
    limits: DimacsLimits,
}

/// `--bound`: a number of quick turns, at most [`MAX_BOUND`] (as in a scenario's `bound`
/// line).
fn bound_flag() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(0..=MAX_BOUND as u64)
}

fn parse_variant(s: &str) -> Result<Variant, String> {
    Variant::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        format!("unknown variant `{s}` (one of: {})", names.join(", "))
    })
}

fn parse_property(s: &str) -> Result<Property, String> {
    Property::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Property::ALL.iter().map(|p| p.name()).collect();
        format!("unknown property `{s}` (one of: {})", names.join(", "))
    })
}

impl From<Engines> for EngineKind {
    fn from(e: Engines) -> Self {
        match e {
            Engines::Both => EngineKind::Both,
            Engines::Direct => EngineKind::Direct,
            Engines::Sat => EngineKind::Sat,
        }
    }
}

#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// The scenario (`.fft`), with a `log` section.
    file: PathBuf,
    /// Print every line with the step that produced it and the quick-safety, and the
    /// transitions between lines, like the seed's `{...}` commentary.
    #[arg(long)]
    annotate: bool,
    /// The rule variant: final (the seed's final theory), naive (no quick-safety), earlier
    /// (the quick caster goes before the mime cycle).
    #[arg(long, default_value = "final", value_parser = parse_variant)]
    variant: Variant,
    /// Print a JSON object instead.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
    /// Write Graphviz DOT of the phase's step flow (a confirmed log only) to this file;
    /// `-` writes it to standard output instead of the replay.
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct VariantsArgs {
    /// Scenarios (`.fft`) with logs.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per file (JSON lines) instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

#[derive(clap::Args, Debug)]
struct Explore {
    /// The scenario (`.fft`); its log, if any, is ignored: choices are left open.
    file: PathBuf,
    /// The rule variant.
    #[arg(long, default_value = "final", value_parser = parse_variant)]
    variant: Variant,
    /// Which engine(s) run.
    #[arg(long, value_enum, default_value = "both")]
    engine: Engines,
    /// Most quick turns in the phase, 0 to 64 (overrides the scenario's `bound`).
    #[arg(long, value_parser = bound_flag())]
    bound: Option<usize>,
    #[command(flatten)]
    limits: SolveLimits,
    /// Print JSON instead.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct EnumerateArgs {
    #[command(flatten)]
    explore: Explore,
    /// Also print every outcome (JSON always has them).
    #[arg(long)]
    list: bool,
    /// With `--list` or `--json`: print nothing but an error (exit 5) when there are
    /// more outcomes than this.
    #[arg(long, default_value_t = super::limits::DEFAULT_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    limit: u64,
}

#[derive(clap::Args, Debug)]
struct QueryArgs {
    #[command(flatten)]
    explore: Explore,
    /// The property: flag-survives (a quick flag is still held when the SR phase ends),
    /// two-quick-turns (a character takes two quick turns in the phase),
    /// mime-cycle-ends-off (a mime cycle in which a mime acted ends with the safety OFF).
    #[arg(long, value_parser = parse_property)]
    property: Property,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        Command::Replay(a) => on_file(&a.file, a.deadline.timeout, None, || run_replay(a)),
        Command::Variants(a) => {
            watched("fft variants", a.deadline.timeout, None, || run_variants(a))
        }
        Command::Enumerate(a) => on_file(
            &a.explore.file,
            a.explore.limits.timeout,
            Some(a.explore.limits.memory.bytes()),
            || run_enumerate(a),
        ),
        Command::Query(a) => on_file(
            &a.explore.file,
            a.explore.limits.timeout,
            Some(a.explore.limits.memory.bytes()),
            || run_query(a),
        ),
        Command::Dimacs(a) => on_file(&a.file, a.limits.timeout(), a.limits.memory(), || {
            run_dimacs(a)
        }),
    }
}

fn load(path: &Path) -> Result<Scenario, ExitCode> {
    super::load_or_exit::<crate::systems::fft::Fft>(path)
}

fn run_replay(a: &ReplayArgs) -> Exit {
    let dot_out = a.dot.as_deref().is_some_and(super::is_stdout);
    for (other, set) in [("--json", a.json), ("--annotate", a.annotate)] {
        if dot_out && set {
            let e = super::stdout_taken("--dot", "the step flow's DOT", other);
            eprintln!("error: {e}");
            return Err(ExitCode::from(EXIT_INPUT));
        }
    }
    let sc = load(&a.file)?;
    let Some(log) = &sc.log else {
        super::whole_file_error(
            &a.file,
            "the scenario has no `log` section to replay (add one, or use `gordian fft \
             enumerate`)",
        );
        return Err(ExitCode::from(EXIT_INPUT));
    };
    let name = a.file.display().to_string();
    let r = replay::replay(&sc, log, a.variant);
    if let Some(f) = &a.dot {
        let replay::Replay::Confirmed { run, .. } = &r else {
            eprintln!("error: {name}: the log is not confirmed, so there is no step flow to draw");
            return Err(ExitCode::from(EXIT_UNEXPLAINED));
        };
        let title = format!("{name}: SR phase step flow ({} variant)", a.variant.name());
        let text = crate::systems::fft::dot::step_flow(&sc, run, &title);
        if dot_out {
            // The picture in place of the replay; the exit code is the replay's.
            say_raw!("{text}");
            return Ok(if r.explains() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_UNEXPLAINED)
            });
        }
        if let Err(e) = std::fs::write(f, text) {
            // An output file that cannot be written is bad input (exit 2), as in every
            // command.
            eprintln!("error: cannot write {}: {e}", f.display());
            return Err(ExitCode::from(EXIT_INPUT));
        }
    }
    if a.json {
        print_json(&report::replay_json(&sc, &name, a.variant, &r));
    } else {
        say_raw!(
            "{}",
            report::replay_text(&sc, &name, a.variant, &r, a.annotate)
        );
    }
    Ok(if r.explains() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_UNEXPLAINED)
    })
}

fn run_variants(a: &VariantsArgs) -> Exit {
    let mut bad_input = false;
    let mut rows: Vec<Vec<String>> = Vec::new();
    for file in &a.files {
        let name = file.display().to_string();
        let sc = match parse::load(file) {
            Ok(sc) => sc,
            Err(e) => {
                super::report_error(&e);
                bad_input = true;
                rows.push(vec![name, "error".into()]);
                continue;
            }
        };
        let Some(log) = &sc.log else {
            super::whole_file_error(file, "the scenario has no `log` section to replay; skipped");
            bad_input = true;
            rows.push(vec![name, "no log".into()]);
            continue;
        };
        let table = variants::compare(&sc, log);
        if a.json {
            let per: serde_json::Map<String, serde_json::Value> = table
                .iter()
                .map(|(v, r)| (v.name().to_string(), report::replay_json(&sc, &name, *v, r)))
                .collect();
            say!(
                "{}",
                json!({ "file": name, "explains": table.iter().filter(|(_, r)| r.explains()).map(|(v, _)| v.name()).collect::<Vec<_>>(), "variants": per })
            );
        } else {
            let mut row = vec![name];
            row.extend(table.iter().map(|(_, r)| report::verdict_cell(r)));
            rows.push(row);
        }
    }
    if !a.json {
        let mut header = vec!["scenario".to_string()];
        header.extend(Variant::ALL.iter().map(|v| v.name().to_string()));
        print_table(&header, &rows);
    }
    Ok(if bad_input {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

fn prepare(e: &Explore) -> Result<Scenario, ExitCode> {
    let mut sc = load(&e.file)?;
    if let Some(b) = e.bound {
        sc.menus.bound = b;
    }
    Ok(sc)
}

fn run_dimacs(a: &DimacsArgs) -> Exit {
    let mut sc = load(&a.file)?;
    if let Some(b) = a.bound {
        sc.menus.bound = b;
    }
    a.limits.print(&a.file, |budget| {
        crate::systems::fft::encode::dimacs(&sc, a.variant, budget)
    })
}

fn run_enumerate(a: &EnumerateArgs) -> Exit {
    let e = &a.explore;
    let sc = prepare(e)?;
    let budget = e.limits.budget();
    let spin = super::progress::spinner("enumerating every outcome ...");
    let res = e.limits.within(&budget, || {
        engine::enumerate(&sc, e.variant, e.engine.into(), &budget)
    });
    spin.finish_and_clear();
    let Ok(en) = res else {
        return Err(e.limits.stopped(&e.file, &budget));
    };
    let name = e.file.display().to_string();
    note_stopped(&name, &en.stopped);
    if en.disagree() {
        let (only_direct, only_sat) = en.differences();
        eprintln!(
            "error: {name}: THE ENGINES DISAGREE (a bug in gordian): {} outcomes only the simulator \
             finds, {} only the SAT encoding finds; exceeds bound: simulator {:?}, SAT {:?}",
            only_direct.len(),
            only_sat.len(),
            en.direct.as_ref().map(|d| d.exceeds_bound),
            en.sat.as_ref().map(|s| s.exceeds_bound),
        );
        for (who, os) in [("simulator", only_direct), ("SAT", only_sat)] {
            for o in os.into_iter().take(3) {
                eprintln!("only the {who}:\n{}", report::outcome_text(&sc, o));
            }
        }
        return Err(ExitCode::from(EXIT_DISAGREE));
    }
    let ans = en.answer();
    let engines = match (&en.direct, &en.sat) {
        (Some(_), Some(_)) => "simulator and SAT agree",
        (Some(_), None) => "simulator only, not cross-checked",
        _ => "SAT only, not cross-checked",
    };
    let count = ans.outcomes.len() as u64;
    if (a.list || e.json) && count > a.limit {
        let summary = format!(
            "{count} distinct outcomes under the {} variant ({engines})",
            e.variant
        );
        return Err(limits::over_limit(
            &name,
            count.into(),
            "outcomes",
            a.limit,
            &summary,
        ));
    }
    if e.json {
        let mut v = report::enumerated_json(&sc, ans);
        v["file"] = json!(name);
        v["variant"] = json!(e.variant);
        v["cross_checked"] = json!(en.direct.is_some() && en.sat.is_some());
        print_json(&v);
    } else {
        say!(
            "{name} ({} variant, at most {} quick turns): {} distinct outcomes ({engines}).",
            e.variant,
            sc.menus.bound,
            ans.outcomes.len()
        );
        if ans.exceeds_bound {
            say!(
                "Some choices need more than {} quick turns; those runs are not counted \
                 (raise --bound).",
                sc.menus.bound
            );
        }
        if a.list {
            for (i, o) in ans.outcomes.iter().enumerate() {
                say!("outcome {}:\n{}", i + 1, report::outcome_text(&sc, o));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_query(a: &QueryArgs) -> Exit {
    let e = &a.explore;
    let sc = prepare(e)?;
    let budget = e.limits.budget();
    let spin = super::progress::spinner("searching for a witness ...");
    let res = e.limits.within(&budget, || {
        engine::query(&sc, e.variant, a.property, e.engine.into(), &budget)
    });
    spin.finish_and_clear();
    let Ok(ans) = res else {
        return Err(e.limits.stopped(&e.file, &budget));
    };
    let name = e.file.display().to_string();
    note_stopped(&name, &ans.stopped);
    if let Some(d) = &ans.disagreement {
        eprintln!("{name}: THE ENGINES DISAGREE (a bug in gordian): {d}");
        return Err(ExitCode::from(EXIT_DISAGREE));
    }
    let bound = sc.menus.bound;
    if e.json {
        print_json(&json!({
            "file": name,
            "variant": e.variant,
            "property": a.property,
            "bound": bound,
            "found": ans.witness.is_some(),
            "witness": ans.witness.as_ref().map(|r| report::outcome_json(&sc, &r.outcome())),
            "cross_checked": ans.cross_checked,
        }));
    } else {
        match &ans.witness {
            Some(run) => {
                say!(
                    "{name}: {} — witness ({} variant):",
                    a.property.name(),
                    e.variant
                );
                say_raw!("{}", report::run_text(&sc, run));
            }
            None => say!(
                "{name}: {} — none within bound {bound} ({} variant)",
                a.property.name(),
                e.variant
            ),
        }
        if ans.cross_checked {
            say!("(cross-checked: simulator and SAT agree)");
        }
    }
    Ok(ExitCode::SUCCESS)
}
