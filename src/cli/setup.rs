//! `gordian setup analyse FILE`: every night a role setup allows (or a uniform sample of
//! them), each distinct night solved by both engines and compared, summed into a
//! designer's report: text, `--json`, `--csv DIR`.
//!
//! Exit codes: 0 every night answered; 2 bad input; 3 the engines disagreed on some
//! night (a bug, reported with the night); 5 some night was stopped at `--timeout` or
//! `--max-memory` (it is listed, and left out of the rates).

use super::limits::MemoryArgs;
use super::system_cmd::Engines;
use super::{parse_seconds, print_json, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::shard::{Shard, ShardArg};
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::ar::answer::factor::{Factored, Night};
use crate::systems::ar::setup::html;
use crate::systems::ar::setup::model::Setup;
use crate::systems::ar::setup::nights::{self, Canon, Key};
use crate::systems::ar::setup::parse::parse_setup_bytes;
use crate::systems::ar::setup::report::{self, Mode, Run};
use crate::systems::ar::setup::tally::{self, Tally};
use crate::systems::ar::Ar;
use crate::systems::spec::Budget;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand, Debug)]
enum Cmd {
    /// Every night a setup allows (or a uniform sample past --exact-limit): how often it
    /// is a paradox or a quasi-paradox, which roles cause the paradoxes (with the
    /// smallest example night), who dies how often, which actions fail.
    #[command(visible_alias = "analyze", after_help = EXAMPLE)]
    Analyse(AnalyseArgs),
}

const EXAMPLE: &str = "Example:\n  gordian setup analyse instances/setup/roleblocker-doctor.setup\n\nThe .setup format: docs/setup.md.";

#[derive(clap::Args, Debug)]
struct AnalyseArgs {
    /// The setup (`.setup`; `-` reads standard input).
    file: PathBuf,
    /// Enumerate every night when the setup allows at most this many; past it, sample.
    #[arg(long, default_value = "1000000", value_name = "N")]
    exact_limit: u64,
    /// Nights drawn uniformly when sampling (each rate then has a 95% interval).
    #[arg(long, default_value = "20000", value_name = "N")]
    samples: u64,
    /// The sample's seed (the same seed, setup and sample size draw the same nights).
    #[arg(long, default_value = "0")]
    seed: u64,
    /// Sample even when the nights are few enough to enumerate.
    #[arg(long)]
    sample: bool,
    /// Solve every night on its own, not symmetric nights once (slower; the same counts).
    #[arg(long)]
    no_symmetry: bool,
    /// Only the K-th of N parts of the nights (1 <= K <= N), or `auto` (from a Slurm job
    /// array or a Kubernetes Indexed Job); `gordian merge` joins the parts' `--json`.
    #[arg(long, value_name = "K/N|auto")]
    shard: Option<ShardArg>,
    /// Print the report as JSON (with the sums `gordian merge` adds up).
    #[arg(long)]
    json: bool,
    /// Also write the report as CSV tables into this folder (classes, players, roles,
    /// actions, causes).
    #[arg(long, value_name = "DIR")]
    csv: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page (charts, and each paradox's
    /// example night with a link that opens it in the playground).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The playground's address the HTML page's links open (its `index.html`; by default
    /// `index.html` beside the page: put the page in the playground's folder, web/dist/).
    #[arg(
        long,
        value_name = "URL",
        default_value = "index.html",
        requires = "html"
    )]
    playground: String,
    /// Which engine(s) solve each night; `both` runs direct and SAT in parallel and
    /// compares them (a night they disagree on is reported as a bug, exit 3).
    #[arg(long, value_enum, default_value = "both")]
    engine: Engines,
    /// Time limit in seconds for each distinct night; a night over it is listed as not
    /// solved (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match &args.cmd {
        Cmd::Analyse(a) => analyse(a),
    }
}

fn load(file: &std::path::Path) -> Result<Setup, ExitCode> {
    let bytes = inputs::read_bytes(file, "setup files").map_err(|e| {
        super::report_error(&e);
        ExitCode::from(EXIT_INPUT)
    })?;
    parse_setup_bytes(&bytes, file).map_err(|e| {
        eprint!("{}", e.rendered());
        ExitCode::from(EXIT_INPUT)
    })
}

fn analyse(a: &AnalyseArgs) -> ExitCode {
    let shard = match super::batch::shard_of(a.shard) {
        Ok(s) => s,
        Err(c) => return c,
    };
    if let Some(dir) = &a.csv {
        if let Err(e) = super::writable_dir(dir) {
            eprintln!("error: --csv {}: {e}", dir.display());
            return ExitCode::from(EXIT_INPUT);
        }
    }
    let setup = match load(&a.file) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let plan = Plan {
        file: a.file.display().to_string(),
        exact_limit: a.exact_limit,
        samples: a.samples,
        seed: a.seed,
        sample: a.sample,
        symmetry: !a.no_symmetry,
        shard,
        engine: a.engine,
        timeout: a.timeout,
        max_memory: a.memory.bytes(),
        progress: true,
    };
    let Analysed {
        run,
        tally: t,
        disagreed,
    } = analyse_setup(&setup, &plan);
    if let Some(dir) = &a.csv {
        for (name, text) in report::to_csv(&run, &setup, &t) {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(EXIT_INPUT);
            }
        }
    }
    let json = report::to_json(&run, &setup, &t);
    if let Some(path) = &a.html {
        if let Err(e) = std::fs::write(path, html::page(&json, &a.playground)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(EXIT_INPUT);
        }
    }
    if a.json {
        print_json(&json);
    } else {
        say_raw!("{}", report::to_text(&run, &setup, &t));
    }
    if !t.failed.is_empty() {
        let n: u64 = t.failed.iter().map(|f| f.nights).sum();
        eprintln!(
            "error: {}: {} distinct night(s) ({n} night(s) in all) not solved, left out of \
             every rate; the first: {}",
            a.file.display(),
            t.failed.len(),
            t.failed[0].error
        );
    }
    if disagreed {
        ExitCode::from(EXIT_DISAGREE)
    } else if !t.failed.is_empty() {
        ExitCode::from(EXIT_LIMIT)
    } else {
        ExitCode::SUCCESS
    }
}

/// `gordian merge` on the JSON reports of `setup analyse --shard K/N --json`: when every
/// report is one (an object with a `tally`), checks that they are the shards of one run
/// (same setup file, mode, sample, seed and symmetry; each shard of N exactly once), adds
/// their tallies and writes the whole run's JSON report to `out` (standard output when
/// `None`), reading the setup file again for its players and roles. `None` when the
/// reports are not setup reports (they are then merged as batch reports).
pub(super) fn merge(paths: &[PathBuf], out: Option<&std::path::Path>) -> Option<ExitCode> {
    let mut docs = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        if !v.get("tally").is_some_and(serde_json::Value::is_object) || v.get("setup").is_none() {
            return None;
        }
        docs.push((p, v));
    }
    let fail = |m: String| {
        eprintln!("error: {m}; nothing written");
        Some(ExitCode::from(EXIT_INPUT))
    };
    let (first_path, first) = &docs[0];
    for key in [
        "setup",
        "mode",
        "samples",
        "seed",
        "symmetry",
        "nights_in_setup",
    ] {
        for (p, d) in &docs {
            if d[key] != first[key] {
                return fail(format!(
                    "{} and {} are not shards of one run: their `{key}` differ ({} and {})",
                    first_path.display(),
                    p.display(),
                    first[key],
                    d[key]
                ));
            }
        }
    }
    let mut seen: std::collections::BTreeMap<usize, &PathBuf> = Default::default();
    let mut of = None;
    for (p, d) in &docs {
        let Some(s) = d["shard"].as_str().and_then(|s| s.parse::<Shard>().ok()) else {
            return fail(format!(
                "{} is the report of a whole run, not of a shard (--shard K/N)",
                p.display()
            ));
        };
        if *of.get_or_insert(s.n) != s.n {
            return fail(format!(
                "{} is shard {s}, the others are shards of {}",
                p.display(),
                of.unwrap_or_default()
            ));
        }
        if let Some(before) = seen.insert(s.k, p) {
            return fail(format!(
                "shard {s} twice: {} and {}",
                before.display(),
                p.display()
            ));
        }
    }
    let n = of.unwrap_or(1);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return fail(format!("no report of shard(s) {}", missing.join(", ")));
    }
    let file = PathBuf::from(first["setup"].as_str().unwrap_or_default());
    let setup = match load(&file) {
        Ok(s) => s,
        Err(c) => {
            eprintln!(
                "error: the reports name the setup {}, read again for its players and roles",
                file.display()
            );
            return Some(c);
        }
    };
    let mut total = Tally::new(&setup);
    for (p, d) in &docs {
        match serde_json::from_value::<Tally>(d["tally"].clone()) {
            Ok(t) => total.merge(&t),
            Err(e) => return fail(format!("{}: its `tally` does not read: {e}", p.display())),
        }
    }
    let mode = match first["mode"].as_str() {
        Some("sampled") => Mode::Sampled {
            samples: first["samples"].as_u64().unwrap_or_default(),
            seed: first["seed"].as_u64().unwrap_or_default(),
        },
        _ => Mode::Exact,
    };
    let run = Run {
        file: file.display().to_string(),
        mode,
        shard: None,
        symmetry: first["symmetry"].as_bool().unwrap_or(true),
    };
    let text = serde_json::to_string_pretty(&report::to_json(&run, &setup, &total))
        .expect("JSON values serialise");
    let written = match out {
        Some(path) => std::fs::write(path, format!("{text}\n"))
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            say_raw!("{text}\n");
            Ok(())
        }
    };
    if let Err(e) = written {
        eprintln!("error: {e}");
        return Some(ExitCode::from(EXIT_INPUT));
    }
    eprintln!(
        "merged {n} shard(s) of {}: {} nights",
        file.display(),
        total.nights
    );
    Some(ExitCode::SUCCESS)
}

/// How to analyse a setup: `setup analyse`'s flags but its outputs.
pub(crate) struct Plan {
    /// The setup's name in the report.
    pub file: String,
    /// Enumerate up to this many nights, else sample.
    pub exact_limit: u64,
    /// Nights drawn when sampling.
    pub samples: u64,
    /// The sample's seed.
    pub seed: u64,
    /// Sample even below `exact_limit`.
    pub sample: bool,
    /// Solve symmetric nights once.
    pub symmetry: bool,
    /// Only this part of the nights.
    pub shard: Option<Shard>,
    /// The engines.
    pub engine: Engines,
    /// Each night's time limit.
    pub timeout: Option<Duration>,
    /// Each engine's memory bound, in bytes.
    pub max_memory: u64,
    /// Progress bars on a terminal.
    pub progress: bool,
}

/// What an analysis found: the run, its tally, and whether the engines disagreed on some
/// night (a bug).
pub(crate) struct Analysed {
    /// How the nights were chosen.
    pub run: Run,
    /// The sums.
    pub tally: Tally,
    /// Whether the engines disagreed on some night.
    pub disagreed: bool,
}

/// Every night of `setup` (or a sample), each distinct one solved as `plan` says, summed.
pub(crate) fn analyse_setup(setup: &Setup, plan: &Plan) -> Analysed {
    let (setup, a, shard) = (setup, plan, plan.shard);
    let bar_of = |len: Option<u64>, what: &str| {
        if a.progress {
            super::progress::bar(len, what)
        } else {
            indicatif::ProgressBar::hidden()
        }
    };
    let total = setup.night_count();
    let mode = if a.sample || total > u128::from(a.exact_limit) {
        Mode::Sampled {
            samples: a.samples,
            seed: a.seed,
        }
    } else {
        Mode::Exact
    };
    let canon = Canon::new(setup, a.symmetry);
    let (part, of) = shard.map_or((0, 1), |s| ((s.k - 1) as u64, s.n as u64));
    let keys = match mode {
        Mode::Exact => {
            let bar = bar_of(u64::try_from(total).ok(), "nights counted");
            let keys = nights::enumerate(setup, &canon, part, of, |i| {
                bar.set_position(i);
                true
            });
            bar.finish_and_clear();
            keys.expect("the enumeration is never stopped")
        }
        Mode::Sampled { samples, seed } => {
            // Each shard draws its share of the sample with a seed of its own.
            let share = samples / of + u64::from(part < samples % of);
            let seed = if of == 1 {
                seed
            } else {
                crate::harness::fuzz::splitmix64(seed ^ (part + 1))
            };
            nights::sample(setup, &canon, share, seed)
        }
    };
    let mut keys: Vec<(Key, u64)> = keys.into_iter().collect();
    keys.sort();
    let names: &[&str] = match a.engine {
        Engines::Both => &["direct", "sat"],
        Engines::Direct => &["direct"],
        Engines::Sat => &["sat"],
    };
    let diff = Differential::<Ar>::only(names)
        .expect("?AR has a direct and a SAT engine")
        .with_grace(Some(Duration::from_secs(10)));
    let disagreed = AtomicBool::new(false);
    let max_memory = a.max_memory;
    let solve = |n: &Night| -> Result<(Factored, bool), String> {
        let budget = Budget::with_max_memory(max_memory);
        let c = budget.with_timeout(a.timeout, || diff.compare(n, &budget));
        let late = || {
            format!(
                "timeout: no answer within {} s (--timeout)",
                a.timeout.unwrap_or_default().as_secs_f64()
            )
        };
        match c.verdict() {
            // An answer that came after the night's time limit is over it all the same.
            Verdict::Agree(_) | Verdict::Alone(_) if budget.is_cancelled() => {
                Err(match budget.limit_hit() {
                    Some(l) => format!("limit: {l}"),
                    None => late(),
                })
            }
            Verdict::Agree(f) => Ok((f.clone(), c.cross_checked())),
            Verdict::Alone(f) => Ok((f.clone(), false)),
            Verdict::Disagree => {
                disagreed.store(true, Ordering::Relaxed);
                Err("THE ENGINES DISAGREE on this night (a bug in gordian)".into())
            }
            Verdict::Interrupted => Err(match c.limit_hit().or_else(|| budget.limit_hit()) {
                Some(l) => format!("limit: {l}"),
                None => late(),
            }),
        }
    };
    let bar = bar_of(Some(keys.len() as u64), "distinct nights solved");
    let core_budget = Budget::with_max_memory(max_memory);
    let t: Tally = tally::tally(setup, keys, &solve, &core_budget, &|| bar.inc(1));
    bar.finish_and_clear();
    let run = Run {
        file: a.file.clone(),
        mode,
        shard: shard.map(|s| (s.k as u64, s.n as u64)),
        symmetry: a.symmetry,
    };
    Analysed {
        run,
        tally: t,
        disagreed: disagreed.load(Ordering::Relaxed),
    }
}
