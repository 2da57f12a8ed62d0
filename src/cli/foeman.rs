//! `gordian foeman ...`: Foeman initiative and Action-phase segments — simulate one round
//! with its trace, enumerate every outcome with exact probabilities (direct search and
//! SAT, compared), answer queries with witnesses, check the tie-break's fairness, dump
//! the SAT encoding.
//!
//! Exit codes: 0 success; 1 internal; 2 bad input; 3 the engines disagree (a bug);
//! 5 a limit was hit (`--timeout`, `--max-memory`, `enumerate --limit`).

use super::limits::{self, LimitArg, TimeoutArg};
use super::print_json;
use super::system_cmd::{on_file, run_engines, watched, DimacsLimits, Engines, Exit, SolveLimits};
use super::{EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::foeman::fairness::{self, Variant};
use crate::systems::foeman::search::{self, Query};
use crate::systems::foeman::simulate::{self, Scripted};
use crate::systems::foeman::{encode, report, Answer, Scenario};
use crate::systems::spec::{Budget, Interrupted};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gordian foeman`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Simulate one round under given dice and choices (then seeded random ones), printing
    /// each scan and segment: who was polled, what each declared, who supervened, who
    /// acted, the dice shown.
    Round(RoundArgs),
    /// Every side order and Action-phase outcome with exact probabilities (direct search),
    /// cross-checked against the SAT encoding's reachable sets.
    Enumerate(EnumerateArgs),
    /// Answer a query with a witness: `before F G`, `watcher-first`, `watcher-acts`,
    /// `on-watch F`, `side-first S`, `side-last S`.
    Query(QueryArgs),
    /// Exact fairness of the tie-break (sequential dice) and its naive variants: a file's
    /// initiative and modDX lists, given values, or every list up to a length.
    Fairness(FairnessArgs),
    /// Print the SAT encoding as DIMACS CNF (Movement phase, then Action phase), with `c`
    /// lines naming the variables.
    Dimacs(DimacsArgs),
}

#[derive(clap::Args, Debug)]
struct RoundArgs {
    /// The scenario (`.foeman`).
    file: PathBuf,
    /// Dice in the order asked (initiative d6s, tie-break dice), comma-separated.
    #[arg(long, value_delimiter = ',')]
    rolls: Vec<u32>,
    /// Choices in the order asked (0-based index into the choice set; for `postpone
    /// maybe`, 1 = postpone), comma-separated.
    #[arg(long, value_delimiter = ',')]
    choices: Vec<usize>,
    /// Seed of the dice and choices once the lists run out.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print a JSON object instead.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

/// The engine, time and memory bounds and JSON flags of `enumerate` and `query`.
#[derive(clap::Args, Debug)]
struct Solve {
    /// Which engine(s).
    #[arg(long, value_enum, default_value = "both")]
    engine: Engines,
    #[command(flatten)]
    limits: SolveLimits,
    /// Print a JSON object instead.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct EnumerateArgs {
    /// The scenario (`.foeman`).
    file: PathBuf,
    #[command(flatten)]
    solve: Solve,
    /// At most this many side orders and this many action outcomes are listed.
    #[command(flatten)]
    limit: LimitArg,
}

#[derive(clap::Args, Debug)]
struct QueryArgs {
    /// The scenario (`.foeman`).
    file: PathBuf,
    /// The query, e.g. "before Ann Bob" (quote it).
    query: String,
    #[command(flatten)]
    solve: Solve,
}

#[derive(clap::Args, Debug)]
struct FairnessArgs {
    /// A scenario: analyse its fixed initiative values and its modDX values.
    file: Option<PathBuf>,
    /// Values to analyse, in scan order (comma-separated, e.g. 5,7,5,7,7; at most 1,000).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    values: Vec<i32>,
    /// Prove over every list of length 1..N with values 1..N (N from 1 to 7).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=7))]
    prove: Option<usize>,
    /// Print a JSON object instead.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

#[derive(clap::Args, Debug)]
struct DimacsArgs {
    /// The scenario (`.foeman`).
    file: PathBuf,
    #[command(flatten)]
    limits: DimacsLimits,
}

/// Runs `gordian foeman`.
pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        Command::Round(a) => on_file(&a.file, a.deadline.timeout, None, || run_round(a)),
        Command::Enumerate(a) => on_file(
            &a.file,
            a.solve.limits.timeout,
            Some(a.solve.limits.memory.bytes()),
            || run_enumerate(a),
        ),
        Command::Query(a) => on_file(
            &a.file,
            a.solve.limits.timeout,
            Some(a.solve.limits.memory.bytes()),
            || run_query(a),
        ),
        Command::Fairness(a) => watched("foeman fairness", a.deadline.timeout, None, || {
            run_fairness(a)
        }),
        Command::Dimacs(a) => on_file(&a.file, a.limits.timeout(), a.limits.memory(), || {
            run_dimacs(a)
        }),
    }
}

fn load(path: &Path) -> Result<Scenario, ExitCode> {
    super::load_or_exit::<crate::systems::foeman::system::Foeman>(path)
}

fn run_dimacs(a: &DimacsArgs) -> Exit {
    let sc = load(&a.file)?;
    a.limits
        .print(&a.file, |budget| encode::dimacs(&sc, budget))
}

fn run_round(a: &RoundArgs) -> Exit {
    let sc = load(&a.file)?;
    let mut d = Scripted::new(a.rolls.clone(), a.choices.clone(), a.seed);
    let r = simulate::round(&sc, &mut d);
    if a.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "side_order": r.side_order.iter().map(|&i| &sc.sides[i].name).collect::<Vec<_>>(),
            "action_order": r.actions.order.iter().map(|x| json!({"figure": sc.figures[x.figure].name, "waited": x.waited})).collect::<Vec<_>>(),
            "watching": r.actions.watching.iter().map(|&f| &sc.figures[f].name).collect::<Vec<_>>(),
            "movement_events": r.side_events,
            "action_events": r.action_events,
        }));
    } else {
        say!("{}: one round", a.file.display());
        say!("Movement phase (sidMov):");
        say_raw!("{}", report::trace(&sc, &r.side_events));
        say!("side order: {}", report::side_order(&sc, &r.side_order));
        say!("Action phase:");
        say_raw!("{}", report::trace(&sc, &r.action_events));
        say!("action order: {}", report::action_outcome(&sc, &r.actions));
    }
    Ok(ExitCode::SUCCESS)
}

type Both = (
    Option<Result<search::Enumerated, Interrupted>>,
    Option<Result<Answer, Interrupted>>,
);

fn solve_both(name: &str, sc: &Scenario, engine: Engines, budget: &Budget) -> Both {
    run_engines(
        name,
        engine,
        budget,
        |b| search::enumerate(sc, b),
        |b| encode::enumerate(sc, b),
    )
}

fn run_enumerate(a: &EnumerateArgs) -> Exit {
    let sc = load(&a.file)?;
    let budget = a.solve.limits.budget();
    let name = a.file.display().to_string();
    let (d, s) = a
        .solve
        .limits
        .within(&budget, || solve_both(&name, &sc, a.solve.engine, &budget));
    let limit = a.limit.take(usize::MAX);
    // The output bound: each list is cut at `--limit` (the counts stay whole).
    let cut = |sides: usize, actions: usize, engines: &str| -> ExitCode {
        if !a.limit.exceeded(sides.max(actions)) {
            return ExitCode::SUCCESS;
        }
        let summary = format!("{sides} side order(s) and {actions} action outcome(s) ({engines})");
        let (count, noun) = if actions >= sides {
            (actions, "action outcomes")
        } else {
            (sides, "side orders")
        };
        limits::cut_short(&name, count as u128, noun, a.limit.limit, &summary)
    };
    match (d, s) {
        (Some(Ok(e)), s) => {
            let agree = match &s {
                Some(Ok(sat)) => Some(*sat == e.answer()),
                _ => None,
            };
            if agree == Some(false) {
                if let Some(Ok(sat)) = &s {
                    disagreement(&sc, &name, &e.answer(), sat);
                }
                return Err(ExitCode::from(EXIT_DISAGREE));
            }
            if a.solve.json {
                let sides: Vec<_> = e
                    .sides
                    .iter()
                    .take(limit)
                    .map(|(o, f)| json!({"order": o.iter().map(|&i| &sc.sides[i].name).collect::<Vec<_>>(), "probability": f.probability.to_string()}))
                    .collect();
                let actions: Vec<_> = e
                    .actions
                    .iter()
                    .take(limit)
                    .map(|(o, f)| json!({
                        "order": o.order.iter().map(|x| json!({"figure": sc.figures[x.figure].name, "waited": x.waited})).collect::<Vec<_>>(),
                        "watching": o.watching.iter().map(|&f| &sc.figures[f].name).collect::<Vec<_>>(),
                        "probability": f.probability.to_string()}))
                    .collect();
                print_json(&json!({
                    "file": name,
                    "side_orders": sides,
                    "action_outcomes": actions,
                    "side_order_count": e.sides.len(),
                    "action_outcome_count": e.actions.len(),
                    "truncated": a.limit.exceeded(e.sides.len().max(e.actions.len())),
                    "runs": e.runs,
                    "probabilities_assume": e.assumptions,
                    "cross_checked": agree == Some(true),
                }));
            } else {
                say!("{name}:");
                say_raw!("{}", report::enumeration(&sc, &e, agree, limit));
            }
            let engines = if agree == Some(true) {
                "direct search and SAT agree"
            } else {
                "direct search only, not cross-checked"
            };
            Ok(cut(e.sides.len(), e.actions.len(), engines))
        }
        (_, Some(Ok(sat))) => {
            if a.solve.json {
                let sides: Vec<_> = sat
                    .side_orders
                    .iter()
                    .take(limit)
                    .map(|o| json!({"order": o.iter().map(|&i| &sc.sides[i].name).collect::<Vec<_>>()}))
                    .collect();
                let actions: Vec<_> = sat
                    .actions
                    .iter()
                    .take(limit)
                    .map(|o| json!({
                        "order": o.order.iter().map(|x| json!({"figure": sc.figures[x.figure].name, "waited": x.waited})).collect::<Vec<_>>(),
                        "watching": o.watching.iter().map(|&f| &sc.figures[f].name).collect::<Vec<_>>()}))
                    .collect();
                print_json(&json!({
                    "file": name,
                    "side_orders": sides,
                    "action_outcomes": actions,
                    "side_order_count": sat.side_orders.len(),
                    "action_outcome_count": sat.actions.len(),
                    "truncated": a.limit.exceeded(sat.side_orders.len().max(sat.actions.len())),
                    "cross_checked": false,
                    "probabilities": false,
                }));
            } else {
                let more = |n: usize| {
                    if n > limit {
                        say!("  ... {} more not listed (--limit {limit})", n - limit);
                    }
                };
                say!("{name}: SAT only (no probabilities, not cross-checked)");
                say!("side orders ({}):", sat.side_orders.len());
                for o in sat.side_orders.iter().take(limit) {
                    say!("  {}", report::side_order(&sc, o));
                }
                more(sat.side_orders.len());
                say!("action outcomes ({}):", sat.actions.len());
                for o in sat.actions.iter().take(limit) {
                    say!("  {}", report::action_outcome(&sc, o));
                }
                more(sat.actions.len());
            }
            Ok(cut(
                sat.side_orders.len(),
                sat.actions.len(),
                "SAT only, not cross-checked",
            ))
        }
        _ => Err(a.solve.limits.stopped(&a.file, &budget)),
    }
}

fn disagreement(sc: &Scenario, name: &str, direct: &Answer, sat: &Answer) {
    eprintln!("{name}: THE ENGINES DISAGREE (a bug in gordian)");
    for o in direct.side_orders.difference(&sat.side_orders) {
        eprintln!(
            "  side order only the direct search finds: {}",
            report::side_order(sc, o)
        );
    }
    for o in sat.side_orders.difference(&direct.side_orders) {
        eprintln!("  side order only SAT finds: {}", report::side_order(sc, o));
    }
    for o in direct.actions.difference(&sat.actions) {
        eprintln!(
            "  action outcome only the direct search finds: {}",
            report::action_outcome(sc, o)
        );
    }
    for o in sat.actions.difference(&direct.actions) {
        eprintln!(
            "  action outcome only SAT finds: {}",
            report::action_outcome(sc, o)
        );
    }
}

fn run_query(a: &QueryArgs) -> Exit {
    let sc = load(&a.file)?;
    let q = match Query::parse(&sc, &a.query) {
        Ok(q) => q,
        Err(m) => {
            // The query is an argument, not a line of the file: named as such.
            eprintln!(
                "error: the query `{}`: {m} (in {})",
                a.query,
                a.file.display()
            );
            return Err(ExitCode::from(EXIT_INPUT));
        }
    };
    let budget = a.solve.limits.budget();
    let (d, s) = a.solve.limits.within(&budget, || {
        run_engines(
            &a.file.display().to_string(),
            a.solve.engine,
            &budget,
            |b| search::enumerate(&sc, b).map(|e| search::answer(&e, &q)),
            |b| encode::query(&sc, &q, b),
        )
    });
    let name = a.file.display().to_string();
    let stopped = |_| a.solve.limits.stopped(&a.file, &budget);
    let d = d.transpose().map_err(stopped)?;
    let s = s.transpose().map_err(stopped)?;
    if let (Some(d), Some(s)) = (&d, &s) {
        if d.holds != s.is_some() {
            eprintln!(
                "error: {name}: THE ENGINES DISAGREE on `{}`: direct search {}, SAT {}",
                a.query,
                d.holds,
                s.is_some()
            );
            return Err(ExitCode::from(EXIT_DISAGREE));
        }
    }
    let holds = d
        .as_ref()
        .map_or_else(|| s.as_ref().is_some_and(|x| x.is_some()), |d| d.holds);
    let witness_text = |w: &encode::Witness| match w {
        encode::Witness::Sides(o) => report::side_order(&sc, o),
        encode::Witness::Actions(o, _) => report::action_outcome(&sc, o),
    };
    if let Some(Some(encode::Witness::Actions(_, r))) = &s {
        if !r.confirmed {
            eprintln!(
                "error: {name}: the simulator does not confirm the SAT witness of `{}` (a bug in gordian)",
                a.query
            );
            return Err(ExitCode::from(EXIT_DISAGREE));
        }
    }
    if a.solve.json {
        print_json(&json!({
            "file": name,
            "query": a.query,
            "holds": holds,
            "probability": d.as_ref().map(|d| d.probability.to_string()),
            "probabilities_assume": d.as_ref().map(|_| search::assumptions(&sc)),
            "direct_witness": d.as_ref().and_then(|d| d.witness.clone()),
            "direct_trace": d.as_ref().map(|d| &d.trace),
            "sat_witness": s.as_ref().and_then(|s| s.as_ref().map(witness_text)),
            "sat_trace": s.as_ref().and_then(|s| match s {
                Some(encode::Witness::Actions(_, r)) => Some(&r.trace),
                _ => None,
            }),
            "cross_checked": d.is_some() && s.is_some(),
        }));
    } else {
        say!(
            "{name}: `{}`: {}",
            a.query,
            if holds { "yes" } else { "no" }
        );
        if let Some(d) = &d {
            say!("  probability {}", d.probability);
            for l in report::assumptions(&search::assumptions(&sc)).lines() {
                say!("  {l}");
            }
            if d.holds {
                say!("  most probable witness run:");
                say_raw!("{}", report::trace(&sc, &d.trace));
            }
        }
        if let Some(Some(w)) = &s {
            say!("  SAT witness: {}", witness_text(w));
            if let encode::Witness::Actions(_, r) = w {
                say!("  SAT witness replayed by the simulator (confirmed):");
                say_raw!("{}", report::trace(&sc, &r.trace));
            }
        }
        if d.is_some() && s.is_some() {
            say!("  direct search and SAT agree");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Most value lists a file's sides (or figures) are analysed as: one per combination of
/// the rolled initiatives' (the options' modDX) values; past it the lists are skipped
/// with the reason in the output.
const MAX_FILE_LISTS: usize = 36;

/// The value lists of one kind (`what`): every combination of each member's possible
/// values (`(name, values, own)`: a member whose value is not `own` is named in the
/// label with its value). More than [`MAX_FILE_LISTS`] combinations are skipped, saying
/// why.
fn value_lists(
    what: &str,
    how: &str,
    members: &[(String, Vec<i32>, Option<i32>)],
    lists: &mut Vec<(String, Vec<i32>)>,
    skipped: &mut Vec<(String, String)>,
) {
    let count = members
        .iter()
        .try_fold(1usize, |n, m| n.checked_mul(m.1.len()))
        .filter(|&n| n <= MAX_FILE_LISTS);
    let Some(count) = count else {
        let varying: Vec<&str> = members
            .iter()
            .filter(|m| m.1.len() > 1)
            .map(|m| m.0.as_str())
            .collect();
        skipped.push((
            what.to_string(),
            format!(
                "the values of {} ({how}) combine into more than {MAX_FILE_LISTS} lists; \
                 analyse chosen ones with --values (the sequential tie-break is fair for \
                 every list: --prove)",
                varying.join(", ")
            ),
        ));
        return;
    };
    for k in 0..count {
        let mut rest = k;
        let mut values = Vec::with_capacity(members.len());
        let mut named = Vec::new();
        for (name, vals, own) in members {
            let v = vals[rest % vals.len()];
            rest /= vals.len();
            values.push(v);
            if *own != Some(v) {
                named.push(format!("{name} {v}"));
            }
        }
        let label = if named.is_empty() {
            what.to_string()
        } else {
            format!("{what} ({how}: {})", named.join(", "))
        };
        lists.push((label, values));
    }
}

fn run_fairness(a: &FairnessArgs) -> Exit {
    let mut lists: Vec<(String, Vec<i32>)> = Vec::new();
    let mut skipped: Vec<(String, String)> = Vec::new();
    if let Some(f) = &a.file {
        let sc = load(f)?;
        // Sides: every combination of the rolled initiatives' values.
        let per_side: Vec<(String, Vec<i32>, Option<i32>)> = sc
            .sides
            .iter()
            .map(|s| {
                let fixed = match s.ini {
                    crate::systems::foeman::model::Ini::Fixed(v) => Some(v),
                    crate::systems::foeman::model::Ini::Roll(_) => None,
                };
                (s.name.clone(), s.ini.values(), fixed)
            })
            .collect();
        value_lists(
            "side initiative",
            "rolls",
            &per_side,
            &mut lists,
            &mut skipped,
        );
        // Figures: their own modDX, and every combination with the modDX of their options.
        if !sc.figures.is_empty() {
            let per_figure: Vec<(String, Vec<i32>, Option<i32>)> = sc
                .figures
                .iter()
                .map(|f| (f.name.clone(), f.dx_values(), Some(f.dx)))
                .collect();
            value_lists(
                "figure modDX",
                "after `@` adjustments",
                &per_figure,
                &mut lists,
                &mut skipped,
            );
        }
    }
    if a.values.len() > fairness::MAX_VALUES {
        eprintln!(
            "error: --values: {} values given; at most {} are analysed (the exact answer \
             grows with the square of the number of tied values)",
            a.values.len(),
            fairness::MAX_VALUES
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    if !a.values.is_empty() {
        lists.push(("values".into(), a.values.clone()));
    }
    let prove = a.prove.or(if lists.is_empty() { Some(5) } else { None });
    let analyses: Vec<(String, Vec<fairness::Analysis>)> = lists
        .iter()
        .map(|(what, v)| {
            (
                what.clone(),
                Variant::ALL
                    .iter()
                    .map(|&var| fairness::analyse(v, var))
                    .collect(),
            )
        })
        .collect();
    let proofs: Vec<fairness::Proof> = prove
        .map(|n| {
            Variant::ALL
                .iter()
                .map(|&v| fairness::prove(v, n))
                .collect()
        })
        .unwrap_or_default();
    if a.json {
        print_json(&json!({
            "lists": analyses.iter().map(|(w, an)| json!({"list": w, "analyses": an})).collect::<Vec<_>>(),
            "skipped": skipped.iter().map(|(w, why)| json!({"list": w, "reason": why})).collect::<Vec<_>>(),
            "proofs": proofs,
        }));
    } else {
        for (what, an) in &analyses {
            say!("{what}:");
            for x in an {
                say_raw!("  {}", report::analysis(x));
            }
        }
        for (what, why) in &skipped {
            say!("{what}: not analysed: {why}");
        }
        if !proofs.is_empty() {
            say!("exhaustive check (every list of values, ties and interleaved higher values):");
            for p in &proofs {
                say_raw!("  {}", report::proof(p));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
