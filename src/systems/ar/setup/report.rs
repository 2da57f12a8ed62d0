//! A setup's tally as a designer reads it: shares of paradox, quasi-paradox and
//! non-paradox nights, expected deaths, each player's and role's chance of dying, each
//! action's chance of failing, and the role combinations behind the paradoxes with an
//! example night each; as text, JSON (the tally included, so shards can be merged) and
//! CSV tables. With sampling every rate has a 95% confidence interval.
//!
//! Invariant: nothing here solves or counts; every number is read off the [`Tally`].

use super::model::Setup;
use super::tally::{wilson, Acc, Tally};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// How the nights were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every night.
    Exact,
    /// A uniform sample of this many nights drawn with this seed.
    Sampled {
        /// Nights drawn.
        samples: u64,
        /// The seed.
        seed: u64,
    },
}

/// What the run was.
#[derive(Clone, Debug)]
pub struct Run {
    /// The setup file, as named.
    pub file: String,
    /// Enumerated or sampled.
    pub mode: Mode,
    /// The shard (`K`, `N`), if one.
    pub shard: Option<(u64, u64)>,
    /// Whether symmetric nights were solved once.
    pub symmetry: bool,
}

impl Run {
    fn sampled(&self) -> bool {
        matches!(self.mode, Mode::Sampled { .. })
    }
}

/// A share with its interval (when sampled).
fn share(run: &Run, k: u64, n: u64) -> Value {
    let s = if n == 0 {
        None
    } else {
        Some(k as f64 / n as f64)
    };
    json!({
        "nights": k,
        "share": s,
        "ci95": if run.sampled() { wilson(k, n).map(|(a, b)| json!([a, b])) } else { None },
    })
}

fn mean_ci(run: &Run, a: &Acc, lo: f64, hi: f64) -> (Option<f64>, Option<Value>) {
    (
        a.mean(),
        if run.sampled() {
            a.ci95(lo, hi).map(|(x, y)| json!([x, y]))
        } else {
            None
        },
    )
}

/// Each player's chance of dying: its class's mean (members of a class have the same).
fn player_chances(setup: &Setup, t: &Tally) -> Vec<(String, String, Acc)> {
    (0..setup.n_players())
        .map(|p| {
            (
                setup.fixed.players[p].clone(),
                setup.role[p].clone(),
                t.class_deaths
                    .get(setup.class[p])
                    .copied()
                    .unwrap_or_default(),
            )
        })
        .collect()
}

/// Paradox causes, most frequent first (then by their roles).
fn causes(t: &Tally) -> Vec<(&String, &super::tally::Cause)> {
    let mut v: Vec<_> = t.causes.iter().collect();
    v.sort_by(|a, b| b.1.nights.cmp(&a.1.nights).then(a.0.cmp(b.0)));
    v
}

/// The whole report as JSON (`--json`; `merge` reads back its `tally`).
pub fn to_json(run: &Run, setup: &Setup, t: &Tally) -> Value {
    let answered = t.answered();
    let deaths = t.deaths.mean();
    let deaths_ci = if run.sampled() {
        t.deaths
            .ci95_mean(0.0, setup.n_players() as f64)
            .map(|(x, y)| json!([x, y]))
    } else {
        None
    };
    json!({
        "setup": run.file,
        "mode": match run.mode { Mode::Exact => "exact", Mode::Sampled { .. } => "sampled" },
        "nights_in_setup": setup.night_count().to_string(),
        "samples": match run.mode { Mode::Sampled { samples, .. } => Some(samples), Mode::Exact => None },
        "seed": match run.mode { Mode::Sampled { seed, .. } => Some(seed), Mode::Exact => None },
        "shard": run.shard.map(|(k, n)| format!("{k}/{n}")),
        "symmetry": run.symmetry,
        "nights": t.nights,
        "answered": answered,
        "distinct_nights_solved": t.solved,
        "cross_checked": t.cross_checked,
        "classes": {
            "paradox": share(run, t.paradox, answered),
            "quasi_paradox": share(run, t.quasi, answered),
            "non_paradox": share(run, t.non, answered),
        },
        "expected_deaths": { "mean": deaths, "ci95": deaths_ci },
        "players": player_chances(setup, t).iter().map(|(name, role, a)| {
            let (m, ci) = mean_ci(run, a, 0.0, 1.0);
            json!({ "player": name, "role": role, "death_chance": m, "ci95": ci })
        }).collect::<Vec<_>>(),
        "roles": t.role_deaths.iter().map(|(role, a)| {
            let (m, ci) = mean_ci(run, a, 0.0, 1.0);
            let players = setup.role.iter().filter(|r| *r == role).count();
            json!({ "role": role, "players": players, "death_chance": m, "ci95": ci })
        }).collect::<Vec<_>>(),
        "actions": t.action_fails.iter().map(|(action, a)| {
            let (m, ci) = mean_ci(run, a, 0.0, 1.0);
            json!({ "action": action, "taken_in": a.weight, "fail_chance": m, "ci95": ci })
        }).collect::<Vec<_>>(),
        "paradox_causes": causes(t).iter().map(|(roles, c)| json!({
            "roles": roles,
            "nights": c.nights,
            "share_of_paradoxes": if t.paradox == 0 { None } else { Some(c.nights as f64 / t.paradox as f64) },
            "example": c.example.night,
            "example_effects": c.example.effects,
        })).collect::<Vec<_>>(),
        "failed": t.failed,
        "tally": t,
    })
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.2}%", 100.0 * x))
}

fn pct_ci(run: &Run, a: &Acc) -> String {
    let m = pct(a.mean());
    match (run.sampled(), a.ci95(0.0, 1.0)) {
        (true, Some((lo, hi))) => format!("{m}  [{:.2}%, {:.2}%]", 100.0 * lo, 100.0 * hi),
        _ => m,
    }
}

/// Rows padded into columns.
fn table(out: &mut String, rows: &[Vec<String>]) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = String::from(" ");
        for (c, cell) in r.iter().enumerate() {
            line.push(' ');
            line.push_str(cell);
            if c + 1 < r.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 1));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// `n` and `noun`, plural unless `n` is 1.
fn count(n: u128, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The human report.
pub fn to_text(run: &Run, setup: &Setup, t: &Tally) -> String {
    let mut o = String::new();
    let total = setup.night_count();
    let how = match run.mode {
        Mode::Exact if t.nights == 1 => "enumerated".to_string(),
        Mode::Exact => format!("all {} enumerated", t.nights),
        Mode::Sampled { samples, seed } => {
            format!(
                "{samples} sampled uniformly (seed {seed}); rates with 95% confidence intervals"
            )
        }
    };
    let _ = writeln!(
        o,
        "{}: {}, {}; {}, {how}{}",
        run.file,
        count(setup.n_players() as u128, "player"),
        count(setup.choosers.len() as u128, "choice"),
        count(total, "night"),
        run.shard
            .map_or(String::new(), |(k, n)| format!(" (shard {k}/{n})")),
    );
    let _ = writeln!(
        o,
        "{} distinct night(s) solved{}: {} cross-checked by both engines",
        t.solved,
        if run.symmetry {
            " (symmetric nights once)"
        } else {
            ""
        },
        t.cross_checked
    );
    let answered = t.answered();
    let _ = writeln!(o, "nights:");
    let mut rows = Vec::new();
    for (name, k) in [
        ("paradox", t.paradox),
        ("quasi-paradox", t.quasi),
        ("non-paradox", t.non),
    ] {
        let s = if answered == 0 {
            None
        } else {
            Some(k as f64 / answered as f64)
        };
        let ci = match (run.sampled(), wilson(k, answered)) {
            (true, Some((lo, hi))) => format!("[{:.2}%, {:.2}%]", 100.0 * lo, 100.0 * hi),
            _ => String::new(),
        };
        rows.push(vec![name.to_string(), k.to_string(), pct(s), ci]);
    }
    table(&mut o, &rows);
    let d = t.deaths.mean().map_or("-".into(), |m| format!("{m:.4}"));
    let d = match (
        run.sampled(),
        t.deaths.ci95_mean(0.0, setup.n_players() as f64),
    ) {
        (true, Some((lo, hi))) => format!("{d}  [{lo:.4}, {hi:.4}]"),
        _ => d,
    };
    let _ = writeln!(o, "expected deaths per night: {d}");
    let _ = writeln!(o, "chance of dying, per player:");
    let mut rows = vec![vec!["player".into(), "role".into(), "chance".into()]];
    for (name, role, a) in player_chances(setup, t) {
        rows.push(vec![name, role, pct_ci(run, &a)]);
    }
    table(&mut o, &rows);
    let _ = writeln!(o, "chance of dying, per role:");
    let mut rows = vec![vec!["role".into(), "players".into(), "chance".into()]];
    for (role, a) in &t.role_deaths {
        let n = setup.role.iter().filter(|r| *r == role).count();
        rows.push(vec![role.clone(), n.to_string(), pct_ci(run, a)]);
    }
    table(&mut o, &rows);
    if !t.action_fails.is_empty() {
        let _ = writeln!(o, "chance that an action fails, when it is taken:");
        let mut rows = vec![vec!["action".into(), "taken in".into(), "fails".into()]];
        for (action, a) in &t.action_fails {
            rows.push(vec![
                action.clone(),
                format!("{} nights", a.weight),
                pct_ci(run, a),
            ]);
        }
        table(&mut o, &rows);
    }
    if t.paradox > 0 {
        let _ = writeln!(
            o,
            "why the paradoxes happen (the roles in a smallest paradox core):"
        );
        for (roles, c) in causes(t) {
            let _ = writeln!(
                o,
                "  {}  {roles}  ({} night(s)); the smallest:",
                pct(Some(c.nights as f64 / t.paradox as f64)),
                c.nights
            );
            for l in c.example.night.lines() {
                let _ = writeln!(o, "      {l}");
            }
        }
        let _ = writeln!(
            o,
            "  (save an example as a .night file; `gordian resolve --explain FILE` derives the paradox)"
        );
    }
    if !t.failed.is_empty() {
        let n: u64 = t.failed.iter().map(|f| f.nights).sum();
        let _ = writeln!(
            o,
            "NOT SOLVED: {} distinct night(s), {n} night(s) in all, left out of every rate above:",
            t.failed.len()
        );
        for f in t.failed.iter().take(5) {
            let _ = writeln!(o, "  {}", f.error);
            for l in f.night.lines() {
                let _ = writeln!(o, "      {l}");
            }
        }
    }
    o
}

/// Quotes a CSV field when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(rows: &[Vec<String>]) -> String {
    let mut o = String::new();
    for r in rows {
        let line: Vec<String> = r.iter().map(|c| csv_field(c)).collect();
        let _ = writeln!(o, "{}", line.join(","));
    }
    o
}

fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| format!("{x}"))
}

fn ci_cells(run: &Run, a: &Acc) -> [String; 2] {
    match (run.sampled(), a.ci95(0.0, 1.0)) {
        (true, Some((lo, hi))) => [format!("{lo}"), format!("{hi}")],
        _ => [String::new(), String::new()],
    }
}

/// The CSV tables (`--csv DIR`): file name and contents, one row per night class, per
/// player, per role, per action and per paradox cause.
pub fn to_csv(run: &Run, setup: &Setup, t: &Tally) -> Vec<(&'static str, String)> {
    let answered = t.answered();
    let mut classes = vec![vec!["class", "nights", "share", "ci95_low", "ci95_high"]
        .into_iter()
        .map(String::from)
        .collect()];
    for (name, k) in [
        ("paradox", t.paradox),
        ("quasi_paradox", t.quasi),
        ("non_paradox", t.non),
    ] {
        let s = (answered > 0).then(|| k as f64 / answered as f64);
        let ci = if run.sampled() {
            wilson(k, answered)
        } else {
            None
        };
        classes.push(vec![
            name.to_string(),
            k.to_string(),
            num(s),
            num(ci.map(|c| c.0)),
            num(ci.map(|c| c.1)),
        ]);
    }
    let mut players = vec![
        vec!["player", "role", "death_chance", "ci95_low", "ci95_high"]
            .into_iter()
            .map(String::from)
            .collect(),
    ];
    for (name, role, a) in player_chances(setup, t) {
        let [lo, hi] = ci_cells(run, &a);
        players.push(vec![name, role, num(a.mean()), lo, hi]);
    }
    let mut roles = vec![
        vec!["role", "players", "death_chance", "ci95_low", "ci95_high"]
            .into_iter()
            .map(String::from)
            .collect(),
    ];
    for (role, a) in &t.role_deaths {
        let [lo, hi] = ci_cells(run, a);
        let n = setup.role.iter().filter(|r| *r == role).count();
        roles.push(vec![role.clone(), n.to_string(), num(a.mean()), lo, hi]);
    }
    let mut actions = vec![
        vec!["action", "taken_in", "fail_chance", "ci95_low", "ci95_high"]
            .into_iter()
            .map(String::from)
            .collect(),
    ];
    for (action, a) in &t.action_fails {
        let [lo, hi] = ci_cells(run, a);
        actions.push(vec![
            action.clone(),
            a.weight.to_string(),
            num(a.mean()),
            lo,
            hi,
        ]);
    }
    let mut cs = vec![vec!["roles", "nights", "share_of_paradoxes", "example"]
        .into_iter()
        .map(String::from)
        .collect()];
    for (r, c) in causes(t) {
        cs.push(vec![
            r.clone(),
            c.nights.to_string(),
            num((t.paradox > 0).then(|| c.nights as f64 / t.paradox as f64)),
            c.example.night.clone(),
        ]);
    }
    vec![
        ("classes.csv", csv(&classes)),
        ("players.csv", csv(&players)),
        ("roles.csv", csv(&roles)),
        ("actions.csv", csv(&actions)),
        ("causes.csv", csv(&cs)),
    ]
}
