//! Turns an [`Analysis`] into what a user sees: classification, resolutions, cuts, the exact
//! probability of every final outcome, a reproducible random pick, and their human and
//! JSON renderings.
//!
//! Invariants: probabilities are exact reduced fractions that sum to 1; every list in the
//! JSON is in a deterministic order (ids sorted as strings); rendering never changes the
//! analysis. This module returns strings and values; only `cli` prints.

use super::resolution::{min_created, sorted_ids, Analysis, Cut, Resolution, TargetMap};
use super::universe::Universe;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One final outcome the pick can reach: a cut, one of its optimal resolutions, one way.
#[derive(Clone, Debug)]
pub struct Outcome<'a> {
    /// Its exact probability.
    pub probability: BigRational,
    /// The cut applied (empty unless E is a paradox).
    pub cut: &'a Cut,
    /// The chosen resolution.
    pub resolution: &'a Resolution,
    /// The chosen way of the resolution.
    pub way: &'a TargetMap,
}

fn ratio(n: usize, d: usize) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// The resolution lists the pick chooses from: `(cut, resolutions of E[cut])`, with the
/// empty cut alone unless E is a paradox.
fn branches<'a>(a: &'a Analysis, empty: &'a Cut) -> Vec<(&'a Cut, &'a [Resolution])> {
    match &a.cuts {
        Some(c) => c.optimal.iter().map(|(f, rs)| (f, rs.as_slice())).collect(),
        None => vec![(empty, a.resolutions.as_slice())],
    }
}

/// The optimal resolutions (least |R|) of a list.
pub fn optimal<'a>(u: &Universe, rs: &'a [Resolution]) -> Vec<&'a Resolution> {
    let best = min_created(u, rs);
    rs.iter().filter(|r| Some(r.n_created(u)) == best).collect()
}

/// Every final outcome with its exact probability: uniform over optimal cuts, then over
/// that cut's optimal resolutions, then over that resolution's ways.
pub fn outcomes<'a>(u: &Universe, a: &'a Analysis, empty: &'a Cut) -> Vec<Outcome<'a>> {
    let br = branches(a, empty);
    let mut out = Vec::new();
    for (cut, rs) in &br {
        let opt = optimal(u, rs);
        for r in &opt {
            for w in &r.ways {
                out.push(Outcome {
                    probability: ratio(1, br.len() * opt.len() * r.ways.len()),
                    cut,
                    resolution: r,
                    way: w,
                });
            }
        }
    }
    out
}

/// One reproducible random pick for `seed`, following the contract's uniform choices.
pub fn pick<'a>(u: &Universe, a: &'a Analysis, empty: &'a Cut, seed: u64) -> Option<Outcome<'a>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let br = branches(a, empty);
    let (cut, rs) = br[rng.gen_range(0..br.len())];
    let opt = optimal(u, rs);
    if opt.is_empty() {
        return None;
    }
    let r = opt[rng.gen_range(0..opt.len())];
    let way = &r.ways[rng.gen_range(0..r.ways.len())];
    let probability = ratio(1, br.len() * opt.len() * r.ways.len());
    Some(Outcome {
        probability,
        cut,
        resolution: r,
        way,
    })
}

/// The probability of each distinct set of deaths, sorted by the dead players' names.
pub fn death_distribution(u: &Universe, outs: &[Outcome]) -> Vec<(Vec<String>, BigRational)> {
    let mut m: BTreeMap<Vec<String>, BigRational> = BTreeMap::new();
    for o in outs {
        let d = o.resolution.deaths(u, o.way);
        *m.entry(d).or_insert_with(BigRational::zero) += o.probability.clone();
    }
    m.into_iter().collect()
}

fn final_targets_json(u: &Universe, way: &TargetMap) -> Value {
    let mut entries: Vec<(&str, Value)> = way
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(i, t)| {
            let names: Vec<&str> = t.iter().map(|&p| u.player_name(p)).collect();
            (u.effects[i].id.as_str(), json!(names))
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<_, _>>(),
    )
}

/// One resolution as JSON (`optimal` when its number of created effects is `best`).
pub fn resolution_json(u: &Universe, r: &Resolution, best: Option<usize>) -> Value {
    let failed = sorted_ids(u, r.present.ones().filter(|&i| !r.succeeded.contains(i)));
    let created = sorted_ids(u, r.present.ones().filter(|&i| i >= u.n_declared));
    let ways: Vec<Value> = r
        .ways
        .iter()
        .map(|w| json!({"final_targets": final_targets_json(u, w), "deaths": r.deaths(u, w)}))
        .collect();
    json!({
        "succeeded": r.succeeded_ids(u),
        "failed": failed,
        "created": created,
        "optimal": Some(r.n_created(u)) == best,
        "size": r.present.count_ones(..),
        "ways": ways,
    })
}

fn resolutions_json(u: &Universe, rs: &[Resolution]) -> Value {
    let best = min_created(u, rs);
    Value::Array(rs.iter().map(|r| resolution_json(u, r, best)).collect())
}

/// One outcome as JSON.
pub fn outcome_json(u: &Universe, o: &Outcome) -> Value {
    json!({
        "probability": o.probability.to_string(),
        "cut": sorted_ids(u, o.cut.ones()),
        "succeeded": o.resolution.succeeded_ids(u),
        "final_targets": final_targets_json(u, o.way),
        "deaths": o.resolution.deaths(u, o.way),
    })
}

/// The stable JSON object of the contract's last section, plus `players`,
/// `death_probabilities` and, with a seed, `pick`.
pub fn to_json(u: &Universe, a: &Analysis, seed: Option<u64>) -> Value {
    let empty = Cut::with_capacity(u.n_declared);
    let effects: Vec<Value> = u
        .ensemble
        .effects
        .iter()
        .map(|e| {
            let targets: Vec<&str> = e.targets.iter().map(|&p| u.player_name(p)).collect();
            json!({"id": e.id, "actor": u.player_name(e.actor), "kind": e.kind.to_string(),
                   "targets": targets, "priority": e.priority})
        })
        .collect();
    let levels = u.ensemble.priority_levels();
    let cuts = a.cuts.as_ref().map(|c| {
        let cost: Vec<Value> = levels
            .iter()
            .zip(&c.cost)
            .map(|(p, n)| json!({"priority": p, "count": n}))
            .collect();
        let optimal: Vec<Value> = c
            .optimal
            .iter()
            .map(|(f, rs)| json!({"cut": sorted_ids(u, f.ones()), "resolutions": resolutions_json(u, rs)}))
            .collect();
        json!({"cost": cost, "optimal": optimal})
    });
    let outs = outcomes(u, a, &empty);
    let deaths: Vec<Value> = death_distribution(u, &outs)
        .into_iter()
        .map(|(d, p)| json!({"deaths": d, "probability": p.to_string()}))
        .collect();
    let mut obj = json!({
        "classification": a.classification().name(),
        "players": u.ensemble.players,
        "effects": effects,
        "resolutions": resolutions_json(u, &a.resolutions),
        "cuts": cuts,
        "outcomes": outs.iter().map(|o| outcome_json(u, o)).collect::<Vec<_>>(),
        "death_probabilities": deaths,
    });
    if let Some(seed) = seed {
        obj["pick"] = match pick(u, a, &empty, seed) {
            Some(o) => {
                let mut v = outcome_json(u, &o);
                v["seed"] = json!(seed);
                v
            }
            None => Value::Null,
        };
    }
    obj
}

/// One declared effect as a line: id, actor, kind, targets, priority.
pub fn effect_line(u: &Universe, i: usize) -> String {
    let e = &u.effects[i];
    let targets: Vec<&str> = e.targets.iter().map(|&p| u.player_name(p)).collect();
    if targets.is_empty() {
        format!(
            "{} {} passive {} @{}",
            e.id,
            u.player_name(e.actor),
            e.kind,
            e.priority
        )
    } else {
        format!(
            "{} {} {} {} @{}",
            e.id,
            u.player_name(e.actor),
            e.kind,
            targets.join(" "),
            e.priority
        )
    }
}

/// One resolution as indented lines: what succeeds, fails, is created; each way's final
/// targets and deaths.
pub fn describe_resolution(
    u: &Universe,
    r: &Resolution,
    cut: &Cut,
    optimal: bool,
    indent: &str,
    out: &mut String,
) {
    let ids = |v: Vec<String>| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join(", ")
        }
    };
    let failed = sorted_ids(
        u,
        r.present
            .ones()
            .filter(|&i| !(r.succeeded.contains(i) || i < u.n_declared && cut.contains(i))),
    );
    let created = sorted_ids(u, r.present.ones().filter(|&i| i >= u.n_declared));
    let _ = writeln!(
        out,
        "{indent}succeed: {}{}",
        ids(r.succeeded_ids(u)),
        if optimal { "   (optimal)" } else { "" }
    );
    let _ = writeln!(out, "{indent}fail:    {}", ids(failed));
    if !created.is_empty() {
        let _ = writeln!(out, "{indent}created: {}", created.join(", "));
    }
    let wi = if r.ways.len() > 1 {
        format!("{indent}  ")
    } else {
        indent.to_string()
    };
    for (k, w) in r.ways.iter().enumerate() {
        if r.ways.len() > 1 {
            let _ = writeln!(out, "{indent}way {}:", k + 1);
        }
        if u.has_deflections() {
            let mut t: Vec<String> = w
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.is_empty())
                .map(|(i, t)| {
                    let names: Vec<&str> = t.iter().map(|&p| u.player_name(p)).collect();
                    format!("{}->{}", u.effects[i].id, names.join(","))
                })
                .collect();
            t.sort();
            let _ = writeln!(out, "{wi}targets: {}", t.join(", "));
        }
        let _ = writeln!(out, "{wi}dies:    {}", ids(r.deaths(u, w)));
    }
}

fn describe_list(u: &Universe, rs: &[Resolution], cut: &Cut, indent: &str, out: &mut String) {
    let best = min_created(u, rs);
    for (k, r) in rs.iter().enumerate() {
        let _ = writeln!(
            out,
            "{indent}resolution {} (|R| = {}):",
            k + 1,
            r.present.count_ones(..)
        );
        let inner = format!("{indent}  ");
        describe_resolution(u, r, cut, Some(r.n_created(u)) == best, &inner, out);
    }
}

/// A readable report: effects, classification, resolutions, cuts, outcome probabilities,
/// and the pick for `seed`.
pub fn to_human(u: &Universe, a: &Analysis, seed: Option<u64>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "effects:");
    for i in 0..u.n_declared {
        let _ = writeln!(out, "  {}", effect_line(u, i));
    }
    out.push_str(&body_human(u, a, seed));
    out
}

/// The report without its list of effects: classification, resolutions, cuts, outcome
/// probabilities, deaths and the pick for `seed`.
pub fn body_human(u: &Universe, a: &Analysis, seed: Option<u64>) -> String {
    let mut out = String::new();
    let empty = Cut::with_capacity(u.n_declared);
    let _ = writeln!(out, "classification: {}", a.classification().name());
    if !a.resolutions.is_empty() {
        let _ = writeln!(out, "acceptable resolutions: {}", a.resolutions.len());
        describe_list(u, &a.resolutions, &empty, "  ", &mut out);
    }
    if let Some(c) = &a.cuts {
        let levels = u.ensemble.priority_levels();
        let cost: Vec<String> = levels
            .iter()
            .zip(&c.cost)
            .map(|(p, n)| format!("{n} at @{p}"))
            .collect();
        let _ = writeln!(
            out,
            "no acceptable resolution; {} optimal Gordian cut(s), cost {}",
            c.optimal.len(),
            cost.join(", ")
        );
        for (f, rs) in &c.optimal {
            let _ = writeln!(out, "  cut {{{}}}:", sorted_ids(u, f.ones()).join(", "));
            describe_list(u, rs, f, "    ", &mut out);
        }
    }
    let outs = outcomes(u, a, &empty);
    let _ = writeln!(out, "outcomes:");
    for o in &outs {
        let cut = sorted_ids(u, o.cut.ones());
        let cut = if cut.is_empty() {
            String::new()
        } else {
            format!("cut {{{}}}, ", cut.join(", "))
        };
        let dead = o.resolution.deaths(u, o.way);
        let _ = writeln!(
            out,
            "  {:>7}  {}succeed {{{}}}, dies: {}",
            o.probability.to_string(),
            cut,
            o.resolution.succeeded_ids(u).join(", "),
            if dead.is_empty() {
                "nobody".to_string()
            } else {
                dead.join(", ")
            }
        );
    }
    let _ = writeln!(out, "deaths:");
    for (d, p) in death_distribution(u, &outs) {
        let who = if d.is_empty() {
            "nobody".to_string()
        } else {
            d.join(", ")
        };
        let _ = writeln!(out, "  {:>7}  {}", p.to_string(), who);
    }
    if let Some(seed) = seed {
        if let Some(o) = pick(u, a, &empty, seed) {
            let cut = sorted_ids(u, o.cut.ones());
            let dead = o.resolution.deaths(u, o.way);
            let _ = writeln!(
                out,
                "pick (seed {seed}): {}succeed {{{}}}, dies: {}",
                if cut.is_empty() {
                    String::new()
                } else {
                    format!("cut {{{}}}, ", cut.join(", "))
                },
                o.resolution.succeeded_ids(u).join(", "),
                if dead.is_empty() {
                    "nobody".to_string()
                } else {
                    dead.join(", ")
                }
            );
        }
    }
    out
}

/// Whether the probabilities of `outcomes` sum to exactly 1.
pub fn sums_to_one(outs: &[Outcome]) -> bool {
    outs.iter()
        .map(|o| o.probability.clone())
        .sum::<BigRational>()
        == BigRational::one()
}
