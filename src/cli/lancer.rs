//! `gordian lancer ...`: the Lancer event system — resolve one run under given choices,
//! enumerate every outcome (simulator and SAT, compared), query a property with its
//! shortest witness, compare resolution policies, print the SAT encoding.
//!
//! Exit codes: 0 success; 2 bad input; 3 the engines disagree (a bug); 5 a limit was hit
//! (`--timeout`, `--max-memory`, `enumerate --limit`).

use super::limits::{self, LimitArg, MemoryArgs, TimeoutArg};
use super::print_json;
use super::system_cmd::{on_file, run_engines, watched, DimacsLimits, Engines, Exit, SolveLimits};
use super::{parse_seconds, EXIT_DISAGREE, EXIT_INPUT};
use crate::systems::lancer::model::{Outcome, Policy, Scenario};
use crate::systems::lancer::search::Property;
use crate::systems::lancer::simulate::{self, Prefix};
use crate::systems::lancer::{encode, report, search};
use crate::systems::spec::{Budget, Interrupted};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian lancer`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Resolve one run under given choices: the event tree, the final state and its abort
    /// flags.
    Resolve(ResolveArgs),
    /// Every distinct outcome (event tree, final state, and whether the action was
    /// cancelled or an event aborted after its activation changed the state), by the
    /// simulator's exhaustive search and by SAT projected enumeration, compared.
    Enumerate(EnumerateArgs),
    /// Whether a property can happen, with the shortest witness (fewest events) from both
    /// engines, compared.
    Query(QueryArgs),
    /// Which properties each resolution policy allows, per scenario (both engines).
    Policies(PoliciesArgs),
    /// Print the SAT encoding as DIMACS CNF, with `c` lines naming choices and properties.
    Dimacs(DimacsArgs),
}

fn parse_policy(s: &str) -> Result<Policy, String> {
    Policy::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
        format!("unknown policy `{s}` (one of: {})", names.join(", "))
    })
}

#[derive(clap::Args, Debug)]
struct ResolveArgs {
    /// The scenario (`.lancer`).
    file: PathBuf,
    /// The choices in the order they are asked, comma-separated: 1 = hit / use / brace,
    /// 0 = miss / decline; a damage roll is the index of the value (0 = lowest). Missing
    /// choices are 0.
    #[arg(long, default_value = "")]
    choices: String,
    /// Override the scenario's policy.
    #[arg(long, value_parser = parse_policy)]
    policy: Option<Policy>,
    /// Print JSON instead.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    deadline: TimeoutArg,
}

#[derive(clap::Args, Debug)]
struct ExploreArgs {
    /// The scenario (`.lancer`).
    file: PathBuf,
    /// Override the scenario's policy.
    #[arg(long, value_parser = parse_policy)]
    policy: Option<Policy>,
    /// Which engine(s) run.
    #[arg(long, value_enum, default_value = "both")]
    engine: Engines,
    #[command(flatten)]
    limits: SolveLimits,
    /// Print JSON instead.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct EnumerateArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    limit: LimitArg,
}

#[derive(clap::Args, Debug)]
struct QueryArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    /// The property: destroyed:UNIT, aborted-after-effect, action-cancelled,
    /// fires:REACTION.
    #[arg(long)]
    property: String,
}

#[derive(clap::Args, Debug)]
struct PoliciesArgs {
    /// Scenarios (`.lancer`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Give up on a scenario after this many seconds (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
    /// One JSON object per file (JSON lines) instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct DimacsArgs {
    /// The scenario (`.lancer`).
    file: PathBuf,
    /// Override the scenario's policy.
    #[arg(long, value_parser = parse_policy)]
    policy: Option<Policy>,
    #[command(flatten)]
    limits: DimacsLimits,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        Command::Resolve(a) => on_file(&a.file, a.deadline.timeout, None, || run_resolve(a)),
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
        Command::Policies(a) => {
            watched("lancer policies", a.timeout, Some(a.memory.bytes()), || {
                run_policies(a)
            })
        }
        Command::Dimacs(a) => on_file(&a.file, a.limits.timeout(), a.limits.memory(), || {
            run_dimacs(a)
        }),
    }
}

fn load(path: &Path) -> Result<Scenario, ExitCode> {
    super::load_or_exit::<crate::systems::lancer::system::Lancer>(path)
}

fn run_dimacs(a: &DimacsArgs) -> Exit {
    let sc = load(&a.file)?;
    a.limits.print(&a.file, |budget| {
        encode::dimacs(&sc, a.policy.unwrap_or(sc.policy), budget)
    })
}

fn run_resolve(a: &ResolveArgs) -> Exit {
    let sc = load(&a.file)?;
    let mut prefix = Vec::new();
    for (i, t) in a.choices.split(',').map(str::trim).enumerate() {
        if t.is_empty() && a.choices.trim().is_empty() {
            break;
        }
        match t.parse::<usize>() {
            Ok(v) => prefix.push(v),
            Err(_) => {
                eprintln!("error: --choices: choice {} (`{t}`) is not a number", i + 1);
                return Err(ExitCode::from(EXIT_INPUT));
            }
        }
    }
    let policy = a.policy.unwrap_or(sc.policy);
    let mut ch = Prefix {
        prefix,
        taken: vec![],
    };
    let o = simulate::run(&sc, policy, &mut ch);
    for (i, (&given, &(_, arity))) in ch.prefix.iter().zip(&ch.taken).enumerate() {
        if given >= arity {
            eprintln!(
                "error: --choices: choice {} is {given}, but that choice has only {arity} values (0 to {})",
                i + 1,
                arity - 1
            );
            return Err(ExitCode::from(EXIT_INPUT));
        }
    }
    if ch.prefix.len() > ch.taken.len() {
        eprintln!(
            "error: --choices: {} choices given, but this run asks only {}",
            ch.prefix.len(),
            ch.taken.len()
        );
        return Err(ExitCode::from(EXIT_INPUT));
    }
    if a.json {
        let mut v = report::outcome_json(&sc, &o);
        v["policy"] = json!(policy.name());
        v["choices"] = json!(ch.taken.iter().map(|c| c.0).collect::<Vec<_>>());
        v["arities"] = json!(ch.taken.iter().map(|c| c.1).collect::<Vec<_>>());
        print_json(&v);
    } else {
        let c: Vec<String> = ch
            .taken
            .iter()
            .map(|c| format!("{}/{}", c.0, c.1))
            .collect();
        say!(
            "{} under {}; choices asked (value/arity): {}",
            a.file.display(),
            policy.name(),
            if c.is_empty() {
                "none".into()
            } else {
                c.join(", ")
            }
        );
        say_raw!("{}", report::outcome_text(&sc, &o));
    }
    Ok(ExitCode::SUCCESS)
}

type Both = (
    Option<Result<Vec<Outcome>, Interrupted>>,
    Option<Result<Vec<Outcome>, Interrupted>>,
);

/// Runs the chosen engines (in parallel when both) on one policy.
fn explore(name: &str, sc: &Scenario, policy: Policy, engine: Engines, budget: &Budget) -> Both {
    run_engines(
        name,
        engine,
        budget,
        |b| search::outcomes(sc, policy, b),
        |b| encode::outcomes(sc, policy, b),
    )
}

/// The agreed outcome set, or the exit code to end with (a timeout or memory limit:
/// the message from `budget`, exit 5).
fn agreed(
    name: &str,
    sc: &Scenario,
    r: Both,
    budget: &Budget,
    timeout: Option<Duration>,
) -> Result<(Vec<Outcome>, bool), ExitCode> {
    let (d, s) = r;
    if matches!(d, Some(Err(_))) || matches!(s, Some(Err(_))) {
        return Err(limits::stopped(name, budget, None, timeout));
    }
    match (d.and_then(Result::ok), s.and_then(Result::ok)) {
        (Some(d), Some(s)) => {
            if d != s {
                eprintln!(
                    "error: {name}: THE ENGINES DISAGREE (a bug in gordian): simulator {} outcomes, SAT {}",
                    d.len(),
                    s.len()
                );
                for o in d.iter().filter(|o| !s.contains(o)).take(2) {
                    eprintln!("only the simulator:\n{}", report::tree(sc, o));
                }
                for o in s.iter().filter(|o| !d.contains(o)).take(2) {
                    eprintln!("only SAT:\n{}", report::tree(sc, o));
                }
                return Err(ExitCode::from(EXIT_DISAGREE));
            }
            Ok((d, true))
        }
        (Some(x), None) | (None, Some(x)) => Ok((x, false)),
        (None, None) => Err(ExitCode::from(1)),
    }
}

fn run_enumerate(args: &EnumerateArgs) -> Exit {
    let a = &args.explore;
    let sc = load(&a.file)?;
    let policy = a.policy.unwrap_or(sc.policy);
    let budget = a.limits.budget();
    let spin = super::progress::spinner("enumerating every outcome ...");
    let name = a.file.display().to_string();
    let r = a
        .limits
        .within(&budget, || explore(&name, &sc, policy, a.engine, &budget));
    spin.finish_and_clear();
    let (outs, checked) = agreed(&name, &sc, r, &budget, a.limits.timeout)?;
    let props = report::properties(&sc, &outs);
    let engines = if checked {
        "simulator and SAT agree"
    } else {
        "one engine, not cross-checked"
    };
    let shown = args.limit.take(outs.len());
    let truncated = args.limit.exceeded(outs.len());
    if a.json {
        let p: serde_json::Map<String, serde_json::Value> =
            props.iter().map(|(p, b)| (p.name(&sc), json!(b))).collect();
        print_json(&json!({
            "file": name,
            "policy": policy.name(),
            "cross_checked": checked,
            "count": outs.len(),
            "truncated": truncated,
            "outcomes": outs[..shown].iter().map(|o| report::outcome_json(&sc, o)).collect::<Vec<_>>(),
            "properties": p,
        }));
    } else {
        say!(
            "{name} (policy {}): {} distinct outcome(s) ({engines})",
            policy.name(),
            outs.len(),
        );
        for (i, o) in outs[..shown].iter().enumerate() {
            say!("\noutcome {}:", i + 1);
            say_raw!("{}", report::outcome_text(&sc, o));
        }
        if truncated {
            say!(
                "\n... {} more outcome(s) not listed (--limit {})",
                outs.len() - shown,
                args.limit.limit
            );
        }
        say!();
        for (p, b) in props {
            say!("{}: {}", p.name(&sc), if b { "possible" } else { "never" });
        }
    }
    if truncated {
        let summary = format!(
            "{} distinct outcome(s) under policy {} ({engines})",
            outs.len(),
            policy.name()
        );
        return Err(limits::cut_short(
            &name,
            outs.len() as u128,
            "outcomes",
            args.limit.limit,
            &summary,
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_query(a: &QueryArgs) -> Exit {
    let e = &a.explore;
    let sc = load(&e.file)?;
    let prop = match Property::parse(&a.property, &sc) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("error: --property: {m}");
            return Err(ExitCode::from(EXIT_INPUT));
        }
    };
    let policy = e.policy.unwrap_or(sc.policy);
    let budget = e.limits.budget();
    let (d, s) = e.limits.within(&budget, || {
        run_engines(
            &e.file.display().to_string(),
            e.engine,
            &budget,
            |b| {
                let outs = search::outcomes(&sc, policy, b)?;
                Ok(search::shortest(&sc, &outs, prop).cloned())
            },
            |b| encode::shortest(&sc, policy, prop, b),
        )
    });
    // The engines' answers in order, direct first.
    let r: Vec<Result<Option<Outcome>, Interrupted>> = d.into_iter().chain(s).collect();
    if r.iter().any(Result::is_err) {
        return Err(e.limits.stopped(&e.file, &budget));
    }
    let r: Vec<Option<Outcome>> = r.into_iter().map(|x| x.ok().flatten()).collect();
    let name = e.file.display().to_string();
    if r.len() == 2 {
        let len = |o: &Option<Outcome>| o.as_ref().map(|o| o.events.len());
        if len(&r[0]) != len(&r[1]) {
            eprintln!(
                "error: {name}: THE ENGINES DISAGREE (a bug in gordian): shortest witness simulator {:?} events, SAT {:?}",
                len(&r[0]),
                len(&r[1])
            );
            return Err(ExitCode::from(EXIT_DISAGREE));
        }
    }
    let w = &r[0];
    let pname = prop.name(&sc);
    let choices = match w {
        Some(o) => search::choices_for(&sc, policy, o, &Budget::new())
            .ok()
            .flatten(),
        None => None,
    };
    let choice_text = choices.as_ref().map(|c| {
        c.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    });
    if e.json {
        print_json(&json!({
            "file": name,
            "policy": policy.name(),
            "property": pname,
            "possible": w.is_some(),
            "cross_checked": r.len() == 2,
            "witness": w.as_ref().map(|o| report::outcome_json(&sc, o)),
            "choices": choices,
        }));
    } else {
        match w {
            None => say!("{name} (policy {}): {pname}: never", policy.name()),
            Some(o) => {
                say!(
                    "{name} (policy {}): {pname}: possible; shortest witness ({} events; \
                     choices {}, replay with `lancer resolve --choices`):",
                    policy.name(),
                    o.events.len(),
                    match &choice_text {
                        Some(c) if c.is_empty() => "none",
                        Some(c) => c.as_str(),
                        None => "?",
                    }
                );
                say_raw!("{}", report::outcome_text(&sc, o));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_policies(a: &PoliciesArgs) -> Exit {
    let mut rows = Vec::new();
    let mut code = ExitCode::SUCCESS;
    for f in &a.files {
        let sc = match load(f) {
            Ok(sc) => sc,
            Err(c) => {
                code = c;
                continue;
            }
        };
        let name = f.display().to_string();
        for p in Policy::ALL {
            let budget = a.memory.budget();
            let r = budget.with_timeout(a.timeout, || {
                explore(
                    &format!("{name} ({})", p.name()),
                    &sc,
                    p,
                    Engines::Both,
                    &budget,
                )
            });
            let (outs, _) = agreed(&name, &sc, r, &budget, a.timeout)?;
            let props = report::properties(&sc, &outs);
            let yes = |pred: &dyn Fn(&Property) -> bool| -> Vec<String> {
                props
                    .iter()
                    .filter(|(q, b)| *b && pred(q))
                    .map(|(q, _)| match q {
                        Property::Destroyed(u) => sc.units[*u].name.clone(),
                        Property::Fires(r) => sc.reactions[*r].name.clone(),
                        _ => String::new(),
                    })
                    .collect()
            };
            let has = |q: Property| props.iter().any(|&(x, b)| x == q && b);
            let destroyed = yes(&|q| matches!(q, Property::Destroyed(_)));
            let fired = yes(&|q| matches!(q, Property::Fires(_)));
            if a.json {
                say!(
                    "{}",
                    json!({"file": name, "policy": p.name(), "outcomes": outs.len(),
                           "destroyable": destroyed, "action_cancelled": has(Property::ActionCancelled),
                           "aborted_after_effect": has(Property::AbortedAfterEffect), "fired": fired})
                );
            } else {
                let yn = |b: bool| if b { "yes" } else { "no" }.to_string();
                let list = |v: Vec<String>| {
                    if v.is_empty() {
                        "-".into()
                    } else {
                        v.join(",")
                    }
                };
                rows.push(vec![
                    name.clone(),
                    p.name().to_string(),
                    outs.len().to_string(),
                    list(destroyed),
                    yn(has(Property::ActionCancelled)),
                    yn(has(Property::AbortedAfterEffect)),
                    list(fired),
                ]);
            }
        }
    }
    if !a.json {
        let header: Vec<String> = [
            "file",
            "policy",
            "outcomes",
            "destroyable",
            "cancelled",
            "aborted-after-effect",
            "fires",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        say_raw!("{}", report::table(&header, &rows));
    }
    Ok(code)
}
