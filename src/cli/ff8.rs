//! `gordian ff8 ...`: FF8 card-rule manipulation — the exact distribution of one
//! challenge, a replay on given `getRandom` bytes, the states reachable within k
//! challenges (direct engine and SAT, compared) with a goal witness, the planner, and the
//! SAT encoding as DIMACS.
//!
//! Exit codes: 0 success; 1 internal; 2 bad input; 3 the engines disagree; 5 a limit was
//! hit (`--timeout`, `--max-memory`).

use super::limits::{self, MemoryArgs, TimeoutArg};
use super::print_json;
use super::system_cmd::{on_file, run_engines, DimacsLimits, Engines, Exit};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::ff8::encode::{Encoding, Witness};
use crate::systems::ff8::model::*;
use crate::systems::ff8::report::{diff, replay};
use crate::systems::ff8::search::{self, ratio_f64};
use crate::systems::ff8::system::{replay_witness, Answer, Direct, Sat};
use crate::systems::ff8::{parse, simulate::PerSite};
use crate::systems::spec::{Budget, Charged, Engine, Interrupted};
use num_rational::BigRational;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian ff8`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// The exact next-state distribution of one challenge (the scenario's first
    /// `challenge:` or `--challenge`): every outcome with its probability as a fraction
    /// and a decimal, the message boxes shown and what changed.
    Step(StepArgs),
    /// Run one challenge on given getRandom values (`--bytes 12,200,...`) and print each
    /// step's branch.
    Replay(ReplayArgs),
    /// Every state reachable within k challenges (direct engine and SAT, compared), and
    /// whether the scenario's goal can hold there, with a witness (choices and bytes).
    Reach(ReachArgs),
    /// The maximum probability of reaching the goal within N challenges, an optimal
    /// decision table, and the minimum expected number of challenges.
    Plan(PlanArgs),
    /// Print the SAT encoding (k challenges unrolled) as DIMACS CNF.
    Dimacs(DimacsArgs),
}

#[derive(clap::Args, Debug)]
struct StepArgs {
    /// The scenario (`.ff8`).
    file: PathBuf,
    /// The challenge, e.g. `"Balamb queen play"` (default: the scenario's first).
    #[arg(long)]
    challenge: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// The scenario (`.ff8`).
    file: PathBuf,
    /// The getRandom values in call order, comma-separated (0..=255).
    #[arg(long, value_delimiter = ',', required = true)]
    bytes: Vec<u8>,
    /// The challenge (default: the scenario's first).
    #[arg(long)]
    challenge: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

#[derive(clap::Args, Debug)]
struct ReachArgs {
    /// The scenario (`.ff8`).
    file: PathBuf,
    /// Number of challenges k, 0 to 64 (overrides the scenario's `bound`; with a fixed
    /// challenge sequence, the first k of its challenges, at most their number).
    #[arg(long, value_parser = bound_flag())]
    bound: Option<usize>,
    /// Which engine(s).
    #[arg(long, value_enum, default_value = "both")]
    engine: Engines,
    /// Most states listed (0: none).
    #[arg(long, default_value_t = 20)]
    list: usize,
    #[command(flatten)]
    solve: Solve,
}

#[derive(clap::Args, Debug)]
struct PlanArgs {
    /// The scenario (`.ff8`, with a `goal:`).
    file: PathBuf,
    /// The horizon N, 0 to 64 (overrides the scenario's `bound`).
    #[arg(long, value_parser = bound_flag())]
    bound: Option<usize>,
    /// Most rows of the decision table.
    #[arg(long, default_value_t = 12)]
    table: usize,
    /// Most states explored for the expected number of challenges.
    #[arg(long, default_value_t = 20000)]
    closure_limit: usize,
    #[command(flatten)]
    solve: Solve,
}

/// The last flags of `reach` and `plan`: their time and memory bounds and JSON.
#[derive(clap::Args, Debug)]
struct Solve {
    /// Stop after this many seconds (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

impl Solve {
    /// The memory-limit or timeout message for `what` (from `budget`) and exit 5.
    fn stopped(&self, what: &str, budget: &Budget) -> ExitCode {
        limits::stopped(what, budget, None, self.timeout)
    }
}

#[derive(clap::Args, Debug)]
struct DimacsArgs {
    /// The scenario (`.ff8`).
    file: PathBuf,
    /// Number of challenges k, 0 to 64 (overrides the scenario's `bound`; with a fixed
    /// challenge sequence, the first k of its challenges, at most their number).
    #[arg(long, value_parser = bound_flag())]
    bound: Option<usize>,
    #[command(flatten)]
    limits: DimacsLimits,
}

/// `--bound`: a number of challenges, at most [`parse::MAX_BOUND`] (as in a scenario's
/// `bound:`).
fn bound_flag() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(0..=parse::MAX_BOUND as u64)
}

/// Runs `gordian ff8`.
pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        Command::Step(a) => on_file(&a.file, a.deadline.timeout, None, || run_step(a)),
        Command::Replay(a) => on_file(&a.file, a.deadline.timeout, None, || run_replay(a)),
        Command::Reach(a) => on_file(
            &a.file,
            a.solve.timeout,
            Some(a.solve.memory.bytes()),
            || run_reach(a),
        ),
        Command::Plan(a) => on_file(
            &a.file,
            a.solve.timeout,
            Some(a.solve.memory.bytes()),
            || run_plan(a),
        ),
        Command::Dimacs(a) => on_file(&a.file, a.limits.timeout(), a.limits.memory(), || {
            run_dimacs(a)
        }),
    }
}

/// `--bound` of `reach` and `dimacs`: with a fixed sequence, at most its length (as a
/// file's `bound:`).
fn set_bound(sc: &mut Scenario, file: &Path, bound: Option<usize>) -> Result<(), ExitCode> {
    let Some(b) = bound else { return Ok(()) };
    if !sc.challenges.is_empty() && b > sc.challenges.len() {
        eprintln!(
            "error: --bound {b}: {} fixes {} challenge(s) (`challenge:` lines); with a fixed sequence the bound counts its challenges, at most their number",
            file.display(),
            sc.challenges.len()
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    sc.bound = b;
    Ok(())
}

fn run_dimacs(a: &DimacsArgs) -> Exit {
    let mut sc = load(&a.file)?;
    set_bound(&mut sc, &a.file, a.bound)?;
    a.limits.print(&a.file, |budget| {
        let mut clauses = Charged::new(budget, "SAT clauses");
        Encoding::within(&sc, &mut clauses).map(|mut enc| {
            enc.goal();
            enc.solver.to_dimacs()
        })
    })
}

fn load(path: &Path) -> Result<Scenario, ExitCode> {
    super::load_or_exit::<crate::systems::ff8::system::Ff8>(path)
}

/// The challenge to run: `--challenge` (parsed as a `challenge:` line) or the first one;
/// an error if it challenges the Queen where she is not.
fn the_challenge(sc: &Scenario, file: &Path, given: &Option<String>) -> Result<Choice, ExitCode> {
    let c = match given {
        Some(text) => {
            let line = format!("challenge: {text}");
            match parse::parse_ff8(
                &format!(
                    "{}{line}\n",
                    parse::to_text(&Scenario {
                        challenges: vec![],
                        goal: None,
                        ..sc.clone()
                    })
                ),
                Path::new("--challenge"),
            ) {
                Ok(s) => s.challenges[0],
                Err(e) => {
                    let msg = e.0.first().map(|x| x.message.clone()).unwrap_or_default();
                    eprintln!("error: --challenge `{text}`: {msg}");
                    return Err(ExitCode::from(EXIT_INPUT));
                }
            }
        }
        None => match sc.challenges.first() {
            Some(c) => *c,
            None => {
                super::whole_file_error(
                    file,
                    "no `challenge:` line (add one, or pass --challenge)",
                );
                return Err(ExitCode::from(EXIT_INPUT));
            }
        },
    };
    if !c.valid_in(&sc.state) {
        eprintln!(
            "error: {}: the Queen is in {}, not {}",
            file.display(),
            sc.state.queen,
            c.region
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    Ok(c)
}

/// The scenario and its challenge (see [`the_challenge`]), or the exit code of the error.
fn load_challenge(file: &Path, given: &Option<String>) -> Result<(Scenario, Choice), ExitCode> {
    let sc = load(file)?;
    let c = the_challenge(&sc, file, given)?;
    Ok((sc, c))
}

fn frac(r: &BigRational) -> String {
    if r.denom() == &1.into() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

fn pct(r: &BigRational) -> String {
    format!("{:.4}%", ratio_f64(r) * 100.0)
}

fn state_lines(s: &State) -> Vec<String> {
    let mut v = Vec::new();
    for r in Region::ALL {
        v.push(format!(
            "  {:<9} {:<8} {}",
            r.name(),
            s.trade[r.id()].name(),
            s.rules_of(r)
        ));
    }
    v.push(format!(
        "  carried: {} from {}; second: {} from {}",
        s.carried[0].rules, s.carried[0].origin, s.carried[1].rules, s.carried[1].origin
    ));
    v.push(format!(
        "  spread from {}, amount of trading {} (\"{}\"), trade rule points {}{}",
        s.spread_from,
        s.amount,
        s.trading_band(),
        s.points,
        if s.points_speech_towards_one() {
            " (\"moving towards One\")"
        } else {
            ""
        }
    ));
    v.push(format!(
        "  Queen in {} with {}; Squall in {}",
        s.queen, s.queen_trade, s.current
    ));
    v
}

fn run_step(a: &StepArgs) -> Exit {
    let (sc, c) = load_challenge(&a.file, &a.challenge)?;
    let d = search::distribution(&sc.state, &c);
    if a.json {
        let rows: Vec<_> = d
            .iter()
            .map(|o| {
                json!({
                    "probability": frac(&o.prob),
                    "decimal": ratio_f64(&o.prob),
                    "messages": o.messages.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                    "changes": diff(&sc.state, &o.state),
                    "guessed": guessed_move(&sc.state, &o.state),
                    "state": o.state,
                })
            })
            .collect();
        print_json(
            &json!({ "file": a.file.display().to_string(), "challenge": c.to_string(), "can_mix": sc.state.can_mix_in(c.region), "outcomes": rows }),
        );
        return Ok(ExitCode::SUCCESS);
    }
    say!("{}: challenge {c}", a.file.display());
    for l in state_lines(&sc.state) {
        say!("{l}");
    }
    say!("{} outcome(s):", d.len());
    for (i, o) in d.iter().enumerate() {
        let msgs: Vec<String> = o.messages.iter().map(|m| m.to_string()).collect();
        let ch = diff(&sc.state, &o.state);
        say!(
            "{:>4}. {} = {}  {}",
            i + 1,
            frac(&o.prob),
            pct(&o.prob),
            if msgs.is_empty() {
                "(no message)".to_string()
            } else {
                format!("message: {}", msgs.join(" | "))
            }
        );
        say!(
            "      {}",
            if ch.is_empty() {
                "no change".to_string()
            } else {
                ch.join("; ")
            }
        );
        if let Some(g) = guessed_move(&sc.state, &o.state) {
            say!("      note: {g}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The note for a challenge from `a` to `b` whose Queen move used a guessed figure of her
/// chart (docs/ff8.md), if it did.
fn guessed_move(a: &State, b: &State) -> Option<String> {
    (a.queen != b.queen && queen_figure_guessed(a.queen, b.queen)).then(|| {
        format!(
            "the Queen's move {} -> {} uses a guessed figure of her chart ({}/8; docs/ff8.md)",
            a.queen,
            b.queen,
            QUEEN_COLUMNS[a.queen.id()]
                .iter()
                .filter(|&&d| d == b.queen)
                .count()
        )
    })
}

/// The note for answers that may depend on a guessed figure of the Queen's chart.
fn guessed_rows_note(rows: &[Region]) -> Option<String> {
    (!rows.is_empty()).then(|| {
        let names: Vec<&str> = rows.iter().map(|r| r.name()).collect();
        format!(
            "note: the Queen may move from {}, whose chart figures are partly guessed (docs/ff8.md): the answer may depend on them",
            names.join(", ")
        )
    })
}

fn run_replay(a: &ReplayArgs) -> Exit {
    let (sc, c) = load_challenge(&a.file, &a.challenge)?;
    let r = replay(&sc.state, &c, &a.bytes);
    if r.missing > 0 {
        eprintln!(
            "error: {}: challenge {c}: --bytes gives {} getRandom value(s) but the challenge reads more ({} on this path with the missing ones taken as 0): give one value per call, in call order",
            a.file.display(),
            a.bytes.len(),
            r.used + r.missing
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    let guessed = guessed_move(&sc.state, &r.state);
    if a.json {
        print_json(&json!({
            "challenge": c.to_string(),
            "trace": r.trace.iter().map(|(s, t)| json!({"step": s, "text": t})).collect::<Vec<_>>(),
            "messages": r.messages.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "changes": r.changes, "state": r.state,
            "bytes_used": r.used, "bytes_unused": r.unused,
            "guessed": guessed,
        }));
    } else {
        say!("{}: challenge {c} on bytes {:?}", a.file.display(), a.bytes);
        for (s, t) in &r.trace {
            say!("  step {s:>2}: {t}");
        }
        for m in &r.messages {
            say!("  message: {m}");
        }
        say!(
            "  changes: {}",
            if r.changes.is_empty() {
                "none".to_string()
            } else {
                r.changes.join("; ")
            }
        );
        say!("  bytes read: {}, unused: {}", r.used, r.unused);
        if let Some(g) = guessed {
            say!("  note: {g}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn witness_text(sc: &Scenario, w: &Witness) -> Vec<(String, Vec<u8>)> {
    let mut s = sc.state;
    let mut out = Vec::new();
    for (c, b) in w.challenges.iter().zip(&w.site_bytes) {
        let mut d = PerSite {
            bytes: *b,
            used: Vec::new(),
        };
        crate::systems::ff8::simulate::challenge(&mut s, c, &mut d);
        out.push((c.to_string(), d.used));
    }
    out
}

fn run_reach(a: &ReachArgs) -> Exit {
    let mut sc = load(&a.file)?;
    set_bound(&mut sc, &a.file, a.bound)?;
    let guessed_rows = guessed_rows_in_play(&sc, sc.horizon());
    let budget = a.solve.memory.budget();
    let sc2 = &sc;
    type R = Result<(Answer, f64), Interrupted>;
    let timed = |e: &dyn Engine<Scenario, Answer>, b: &Budget| -> R {
        let t = std::time::Instant::now();
        let r = e.solve(sc2, b)?;
        Ok((r, t.elapsed().as_secs_f64()))
    };
    let (direct, sat) = budget.with_timeout(a.solve.timeout, || {
        run_engines(
            &a.file.display().to_string(),
            a.engine,
            &budget,
            |b| timed(&Direct, b),
            |b| timed(&Sat, b),
        )
    });
    let mut answers: Vec<(&str, Answer, f64)> = Vec::new();
    for (name, r) in [("direct", direct), ("sat", sat)] {
        match r {
            Some(Ok((ans, t))) => answers.push((name, ans, t)),
            // Not naming the engine: one stopped at a limit stops the other too.
            Some(Err(Interrupted)) => {
                return Err(a.solve.stopped(&a.file.display().to_string(), &budget));
            }
            None => {}
        }
    }
    let agree = answers.windows(2).all(|w| w[0].1 == w[1].1);
    let ans = &answers[0].1;
    // A witness from SAT (validated by the simulator).
    let mut witness = None;
    if ans.goal == Some(true) {
        let mut clauses = Charged::new(&budget, "SAT clauses");
        let found = budget.with_timeout(a.solve.timeout, || {
            Encoding::within(&sc, &mut clauses).and_then(|mut enc| enc.query(&budget))
        });
        match found {
            Ok(Some(w)) => {
                let ok = replay_witness(&sc, &w)
                    .is_some_and(|s| sc.goal.as_ref().is_some_and(|g| g.holds(&s)));
                witness = Some((witness_text(&sc, &w), ok));
            }
            Ok(None) => {}
            Err(Interrupted) => {
                let what = format!("{} (the goal's witness)", a.file.display());
                return Err(a.solve.stopped(&what, &budget));
            }
        }
    }
    // The first states in order, found without listing the others.
    let listed = ans.states.first(a.list);
    let total = ans.states.len();
    let more = total.saturating_sub(listed.len() as u64);
    if a.solve.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "horizon": sc.horizon(),
            "engines": answers.iter().map(|(n, x, t)| json!({"engine": n, "reachable": x.states.len(), "goal": x.goal, "seconds": t})).collect::<Vec<_>>(),
            "agree": agree,
            "goal": sc.goal.as_ref().map(|g| g.to_string()),
            "goal_reachable": ans.goal,
            "witness": witness.as_ref().map(|(w, ok)| json!({"validated": ok, "challenges": w.iter().map(|(c, b)| json!({"challenge": c, "bytes": b})).collect::<Vec<_>>()})),
            "guessed_chart_rows": guessed_rows,
            "states": listed,
        }));
    } else {
        say!("{}: within {} challenge(s)", a.file.display(), sc.horizon());
        for (n, x, t) in &answers {
            say!(
                "  {n:<6} {} reachable state(s){} in {:.3} s",
                x.states.len(),
                match x.goal {
                    None => String::new(),
                    Some(g) => format!(", goal {}", if g { "reachable" } else { "unreachable" }),
                },
                t
            );
        }
        if answers.len() > 1 {
            say!(
                "  engines {}",
                if agree { "agree" } else { "DISAGREE (a bug)" }
            );
        }
        if let Some(g) = &sc.goal {
            say!(
                "goal {g}: {}",
                if ans.goal == Some(true) {
                    "can hold"
                } else {
                    "cannot hold"
                }
            );
        }
        if let Some((w, ok)) = &witness {
            say!(
                "witness{}:",
                if *ok {
                    " (replayed by the simulator)"
                } else {
                    " (REJECTED by the simulator: a bug)"
                }
            );
            for (i, (c, b)) in w.iter().enumerate() {
                let bytes: Vec<String> = b.iter().map(|x| x.to_string()).collect();
                say!("  {}. {c}  --bytes {}", i + 1, bytes.join(","));
            }
        }
        if let Some(n) = guessed_rows_note(&guessed_rows) {
            say!("{n}");
        }
        if a.list > 0 {
            say!(
                "reachable states{}:",
                if more > 0 {
                    format!(" (the first {} of {total})", a.list)
                } else {
                    String::new()
                }
            );
        }
        for (i, s) in listed.iter().enumerate() {
            let d = diff(&sc.state, s);
            say!(
                "  {:>4}. {}",
                i + 1,
                if d.is_empty() {
                    "the start".to_string()
                } else {
                    d.join("; ")
                }
            );
        }
        if more > 0 && a.list > 0 {
            say!("  ... {more} more (--list N)");
        }
    }
    if !agree {
        return Err(ExitCode::from(EXIT_DISAGREE));
    }
    if witness.as_ref().is_some_and(|(_, ok)| !ok) {
        return Err(ExitCode::from(EXIT_DISAGREE));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_plan(a: &PlanArgs) -> Exit {
    let sc = load(&a.file)?;
    let Some(goal) = sc.goal.clone() else {
        super::whole_file_error(
            &a.file,
            "no `goal:` line to plan for (add one: see docs/ff8.md)",
        );
        return Err(ExitCode::from(EXIT_INPUT));
    };
    let n = a.bound.unwrap_or(sc.bound);
    let budget = a.solve.memory.budget();
    let p = match budget.with_timeout(a.solve.timeout, || {
        search::plan(&sc, &goal, n, a.table, a.closure_limit, &budget)
    }) {
        Ok(p) => p,
        Err(Interrupted) => {
            return Err(a.solve.stopped(&a.file.display().to_string(), &budget));
        }
    };
    // A goal on rules only never reads where the Queen is. The expected number of
    // challenges has no horizon: eight challenges reach every region she can reach.
    let guessed_rows = if goal.rules_only() {
        Vec::new()
    } else {
        guessed_rows_in_play(
            &Scenario {
                challenges: Vec::new(),
                ..sc.clone()
            },
            n.max(8),
        )
    };
    if a.solve.json {
        let mut v = serde_json::to_value(&p).expect("plan serialises");
        v["probability_decimal"] = json!(ratio_f64(&p.probability));
        v["guessed_chart_rows"] = json!(guessed_rows);
        print_json(&v);
        return Ok(ExitCode::SUCCESS);
    }
    say!("{}: goal {goal}", a.file.display());
    say!(
        "max probability within {n} challenge(s): {} = {}",
        frac(&p.probability),
        pct(&p.probability)
    );
    for (k, v) in p.by_horizon.iter().enumerate() {
        say!("  within {k:>2}: {} = {}", frac(v), pct(v));
    }
    match p.expected {
        Some(e) => say!("min expected challenges: {e:.6} ({})", p.expected_note),
        None => say!("min expected challenges: {}", p.expected_note),
    }
    say!("optimal decisions ({} abstract states explored):", p.states);
    let start = search::abstract_state(&sc.state, &goal);
    for row in &p.table {
        let d = diff(&start, &row.state);
        say!(
            "  after {} (p = {}): {} -> {}  (goal {})",
            row.done,
            frac(&row.reach),
            if d.is_empty() {
                "the start".to_string()
            } else {
                d.join("; ")
            },
            row.choice.map_or("stop".to_string(), |c| c.to_string()),
            pct(&row.value)
        );
    }
    if p.table_left_out > 0 {
        say!("  ... {} more rows (--table N)", p.table_left_out);
    }
    if let Some(n) = guessed_rows_note(&guessed_rows) {
        say!("{n}");
    }
    Ok(ExitCode::SUCCESS)
}
