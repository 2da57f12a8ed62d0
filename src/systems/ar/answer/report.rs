//! Turns an [`Analysis`] into what a user sees: classification, resolutions, cuts, the exact
//! probability of every final outcome, a reproducible random pick, and their human and
//! JSON renderings. The human rendering writes each list (optimal cuts, resolutions, ways
//! of a resolution, outcomes) as far as a [`Shown`] allows and says how many entries it
//! left out; the counts and the JSON are always whole.
//!
//! Invariants: probabilities are exact reduced fractions that sum to 1; every list in the
//! JSON is in a deterministic order (ids sorted as strings), every effect list of the human
//! report in file order ([`names`]); rendering never changes the
//! analysis. This module returns strings and values; only `cli` prints.

use crate::systems::ar::night::model::Player;
#[cfg(test)]
use crate::systems::ar::night::resolution::sorted_ids;
use crate::systems::ar::night::resolution::{
    min_created, sorted_id_refs, Analysis, Cut, Resolution, TargetMap,
};
use crate::systems::ar::night::universe::{effect_name, Universe};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;

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

/// Calls `f` with every outcome [`outcomes`] lists, with the same probability: in that
/// order when `ordered`, else in any order, a product of resolutions under a cut read one
/// resolution at a time (so a piece with 10^5 resolutions is read in little memory).
pub fn for_each_outcome<B>(
    u: &Universe,
    a: &Analysis,
    ordered: bool,
    mut f: impl FnMut(&Outcome) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let empty = Cut::with_capacity(u.n_declared);
    let mut each = |cut: &Cut, n_cuts: usize, r: &Resolution, n_opt: usize| {
        for w in &r.ways {
            f(&Outcome {
                probability: ratio(1, n_cuts * n_opt * r.ways.len()),
                cut,
                resolution: r,
                way: w,
            })?;
        }
        ControlFlow::Continue(())
    };
    match &a.cuts {
        Some(c) => {
            for (cut, rs) in &c.optimal {
                rs.for_each_optimal(u, ordered, |r, n_opt| each(cut, c.optimal.len(), r, n_opt))?;
            }
            ControlFlow::Continue(())
        }
        None => {
            let opt = optimal(u, &a.resolutions);
            for r in &opt {
                each(&empty, 1, r, opt.len())?;
            }
            ControlFlow::Continue(())
        }
    }
}

/// How many outcomes [`outcomes`] lists, counted without listing them.
pub fn count_outcomes(u: &Universe, a: &Analysis) -> usize {
    match &a.cuts {
        Some(c) => c.optimal.iter().map(|(_, rs)| rs.optimal_ways(u)).sum(),
        None => optimal(u, &a.resolutions)
            .iter()
            .map(|r| r.ways.len())
            .sum(),
    }
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
#[cfg(test)]
pub fn death_distribution(u: &Universe, outs: &[Outcome]) -> Vec<(Vec<String>, BigRational)> {
    let mut m = Deaths::new();
    outs.iter().for_each(|o| tally_deaths(&mut m, u, o));
    m.into_iter().collect()
}

/// Probability by set of dead players (sorted names).
type Deaths = BTreeMap<Vec<String>, BigRational>;

/// Adds `o`'s probability to its set of deaths.
fn tally_deaths(m: &mut Deaths, u: &Universe, o: &Outcome) {
    *m.entry(o.resolution.deaths(u, o.way))
        .or_insert_with(BigRational::zero) += o.probability.clone();
}

/// A death distribution as the JSON lists it.
fn deaths_values(d: impl IntoIterator<Item = (Vec<String>, BigRational)>) -> Vec<Value> {
    d.into_iter()
        .map(|(d, p)| json!({"deaths": d, "probability": p.to_string()}))
        .collect()
}

/// [`deaths_json`] of every outcome of `a`, read as a stream ([`for_each_outcome`]): a
/// product of resolutions is not expanded.
pub fn streamed_deaths_json(u: &Universe, a: &Analysis) -> Vec<Value> {
    let mut m = Deaths::new();
    let _ = for_each_outcome(u, a, false, |o| {
        tally_deaths(&mut m, u, o);
        ControlFlow::<()>::Continue(())
    });
    deaths_values(m)
}

/// A way's final targets as a JSON object keyed by effect id (sorted), written straight
/// from the map.
struct FinalTargets<'a> {
    u: &'a Universe,
    way: &'a TargetMap,
}

impl Serialize for FinalTargets<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.u;
        let mut entries: Vec<(&str, &[Player])> = self
            .way
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_empty())
            .map(|(i, t)| (u.effects[i].id.as_str(), t.as_slice()))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut m = s.serialize_map(Some(entries.len()))?;
        for (id, t) in entries {
            m.serialize_entry(id, &Names { u, players: t })?;
        }
        m.end()
    }
}

/// Player names as a JSON array.
struct Names<'a> {
    u: &'a Universe,
    players: &'a [Player],
}

impl Serialize for Names<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.players.iter().map(|&p| self.u.player_name(p)))
    }
}

/// One way of a resolution.
#[derive(Serialize)]
struct WayJson<'a> {
    final_targets: FinalTargets<'a>,
    deaths: Vec<String>,
}

/// One resolution as JSON, serialised without building a [`Value`].
#[derive(Serialize)]
pub struct ResolutionJson<'a> {
    succeeded: Vec<&'a str>,
    failed: Vec<&'a str>,
    created: Vec<&'a str>,
    optimal: bool,
    size: usize,
    ways: Vec<WayJson<'a>>,
}

/// One resolution as JSON (`optimal` when its number of created effects is `best`).
pub fn resolution_view<'a>(
    u: &'a Universe,
    r: &'a Resolution,
    best: Option<usize>,
) -> ResolutionJson<'a> {
    ResolutionJson {
        succeeded: sorted_id_refs(u, r.succeeded.ones()),
        failed: sorted_id_refs(u, r.present.ones().filter(|&i| !r.succeeded.contains(i))),
        created: sorted_id_refs(u, r.present.ones().filter(|&i| i >= u.n_declared)),
        optimal: Some(r.n_created(u)) == best,
        size: r.present.count_ones(..),
        ways: r
            .ways
            .iter()
            .map(|w| WayJson {
                final_targets: FinalTargets { u, way: w },
                deaths: r.deaths(u, w),
            })
            .collect(),
    }
}

/// One resolution as a JSON value (see [`resolution_view`]).
#[cfg(test)]
pub fn resolution_json(u: &Universe, r: &Resolution, best: Option<usize>) -> Value {
    serde_json::to_value(resolution_view(u, r, best)).expect("JSON views serialise")
}

#[cfg(test)]
pub fn resolutions_json(u: &Universe, rs: &[Resolution]) -> Value {
    let best = min_created(u, rs);
    Value::Array(rs.iter().map(|r| resolution_json(u, r, best)).collect())
}

/// A list of resolutions as JSON, each serialised in turn without building a [`Value`]
/// (the same JSON as the test-only `resolutions_json`, which builds it as a value).
pub struct ResolutionsView<'a> {
    /// The universe the resolutions belong to.
    pub u: &'a Universe,
    /// The resolutions.
    pub rs: &'a [Resolution],
}

impl Serialize for ResolutionsView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let best = min_created(self.u, self.rs);
        s.collect_seq(self.rs.iter().map(|r| resolution_view(self.u, r, best)))
    }
}

/// One outcome as JSON, serialised without building a [`Value`].
#[derive(Serialize)]
pub struct OutcomeJson<'a> {
    probability: String,
    cut: Vec<&'a str>,
    succeeded: Vec<&'a str>,
    final_targets: FinalTargets<'a>,
    deaths: Vec<String>,
}

/// One outcome as JSON (see [`outcome_json`]).
pub fn outcome_view<'a>(u: &'a Universe, o: &Outcome<'a>) -> OutcomeJson<'a> {
    OutcomeJson {
        probability: o.probability.to_string(),
        cut: sorted_id_refs(u, o.cut.ones()),
        succeeded: sorted_id_refs(u, o.resolution.succeeded.ones()),
        final_targets: FinalTargets { u, way: o.way },
        deaths: o.resolution.deaths(u, o.way),
    }
}

/// One outcome as JSON.
pub fn outcome_json(u: &Universe, o: &Outcome) -> Value {
    serde_json::to_value(outcome_view(u, o)).expect("JSON views serialise")
}

/// One declared effect as JSON: id, actor, kind, targets, priority.
#[derive(Serialize)]
pub struct EffectJson<'a> {
    id: &'a str,
    actor: &'a str,
    kind: String,
    targets: Names<'a>,
    priority: u32,
}

/// The declared effects of `u`, in declaration order, as JSON views.
pub fn effects_view(u: &Universe) -> Vec<EffectJson<'_>> {
    u.ensemble
        .effects
        .iter()
        .map(|e| EffectJson {
            id: &e.id,
            actor: u.player_name(e.actor),
            kind: e.kind_word(),
            targets: Names {
                u,
                players: &e.targets,
            },
            priority: e.priority,
        })
        .collect()
}

/// The stable JSON object of the contract's last section, plus `players`,
/// `death_probabilities` and, with a seed, `pick`.
#[cfg(test)]
pub fn to_json(u: &Universe, a: &Analysis, seed: Option<u64>) -> Value {
    let empty = Cut::with_capacity(u.n_declared);
    let effects = effects_view(u);
    let levels = u.levels();
    let cuts = a.cuts.as_ref().map(|c| {
        let cost: Vec<Value> = levels
            .iter()
            .zip(&c.cost)
            .map(|(p, n)| json!({"priority": p, "count": n}))
            .collect();
        let optimal: Vec<Value> = c
            .optimal
            .iter()
            .map(|(f, rs)| optimal_cut_json(u, f, rs))
            .collect();
        json!({"cost": cost, "optimal": optimal})
    });
    let outs = outcomes(u, a, &empty);
    let deaths = deaths_json(u, &outs);
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

/// The death probabilities of `outs`, as `to_json` lists them.
#[cfg(test)]
pub fn deaths_json(u: &Universe, outs: &[Outcome]) -> Vec<Value> {
    deaths_values(death_distribution(u, outs))
}

/// An optimal cut with its resolutions, as `to_json` lists it.
#[cfg(test)]
pub fn optimal_cut_json(u: &Universe, f: &Cut, rs: &[Resolution]) -> Value {
    json!({"cut": sorted_ids(u, f.ones()), "resolutions": resolutions_json(u, rs)})
}

/// One optimal cut with its resolutions, serialised without building a [`Value`].
#[derive(Serialize)]
pub struct CutJson<'a> {
    cut: Vec<&'a str>,
    resolutions: ResolutionsView<'a>,
}

/// One optimal cut with its resolutions as JSON (the same JSON as the test-only
/// `optimal_cut_json`).
pub fn optimal_cut_view<'a>(u: &'a Universe, f: &Cut, rs: &'a [Resolution]) -> CutJson<'a> {
    CutJson {
        cut: sorted_id_refs(u, f.ones()),
        resolutions: ResolutionsView { u, rs },
    }
}

/// The moderator's one wording for a set of deaths.
pub fn deaths_words(dead: &[String]) -> String {
    match dead {
        [] => "nobody dies".to_string(),
        [one] => format!("{one} dies"),
        _ => format!("{} die", dead.join(", ")),
    }
}

/// Effects by name (`Goon kill Cop [e1]`), comma-separated, or `none`. They are listed
/// in file order: declared effects in the order the night declares them (a universe keeps
/// that order, a component's or piece's too), then created effects in the universe's
/// order, as the effects list and the explanation list them.
pub fn names(u: &Universe, ix: impl Iterator<Item = usize>) -> String {
    let mut v: Vec<usize> = ix.collect();
    v.sort_unstable();
    if v.is_empty() {
        return "none".to_string();
    }
    v.iter()
        .map(|&i| effect_name(u, i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A cost vector in plain words: "cuts one priority-3 action and two priority-5 actions".
pub fn cost_words(levels: &[u32], cost: &[usize]) -> String {
    let number = |n: usize| match n {
        1 => "one".to_string(),
        2 => "two".to_string(),
        3 => "three".to_string(),
        n => n.to_string(),
    };
    let parts: Vec<String> = levels
        .iter()
        .zip(cost)
        .filter(|(_, &n)| n > 0)
        .map(|(p, &n)| {
            format!(
                "{} priority-{p} effect{}",
                number(n),
                if n == 1 { "" } else { "s" }
            )
        })
        .collect();
    match parts.len() {
        0 => "cuts nothing".to_string(),
        1 => format!("cuts {}", parts[0]),
        _ => format!(
            "cuts {} and {}",
            parts[..parts.len() - 1].join(", "),
            parts[parts.len() - 1]
        ),
    }
}

/// One resolution as indented lines: what succeeds, fails, is created; each way's moved
/// slots and deaths (the ways at most as `shown` allows).
pub fn describe_resolution(
    u: &Universe,
    r: &Resolution,
    cut: &Cut,
    optimal: bool,
    indent: &str,
    out: &mut String,
    ways: &mut Allowance,
) {
    let failed = r
        .present
        .ones()
        .filter(|&i| !(r.succeeded.contains(i) || i < u.n_declared && cut.contains(i)));
    let created = r.present.ones().filter(|&i| i >= u.n_declared);
    let _ = writeln!(
        out,
        "{indent}succeed: {}{}",
        names(u, r.succeeded.ones()),
        if optimal { "   (optimal)" } else { "" }
    );
    let _ = writeln!(out, "{indent}fail:    {}", names(u, failed));
    if r.n_created(u) > 0 {
        let _ = writeln!(out, "{indent}created: {}", names(u, created));
    }
    let listed = ways.take(r.ways.len());
    for (k, w) in r.ways.iter().take(listed).enumerate() {
        let lead = if r.ways.len() > 1 {
            format!("{indent}way {}: ", k + 1)
        } else {
            indent.to_string()
        };
        let moved = moved_words(u, w);
        let moved = if moved.is_empty() {
            String::new()
        } else {
            format!("{moved}; ")
        };
        let _ = writeln!(out, "{lead}{moved}{}", deaths_words(&r.deaths(u, w)));
    }
    left_out(out, indent, r.ways.len() - listed, "way", "ways");
}

/// The heading of the k-th resolution (from 1): `resolution 2 (creates one effect):`.
pub fn resolution_heading(k: usize, created: usize) -> String {
    format!(
        "resolution {k}{}:",
        match created {
            0 => String::new(),
            1 => " (creates one effect)".to_string(),
            n => format!(" (creates {n} effects)"),
        }
    )
}

fn describe_list(
    u: &Universe,
    rs: &[Resolution],
    cut: &Cut,
    indent: &str,
    out: &mut String,
    shown: &mut Shown,
) {
    let listed = shown.resolutions.take(rs.len());
    describe_first(
        u,
        &rs[..listed],
        rs.len(),
        min_created(u, rs),
        cut,
        indent,
        out,
        shown,
    );
}

/// The first resolutions of a list of `len` whose least |R| - |E| is `best`, and a line
/// for the rest.
#[allow(clippy::too_many_arguments)]
fn describe_first(
    u: &Universe,
    first: &[Resolution],
    len: usize,
    best: Option<usize>,
    cut: &Cut,
    indent: &str,
    out: &mut String,
    shown: &mut Shown,
) {
    for (k, r) in first.iter().enumerate() {
        let n = r.n_created(u);
        let _ = writeln!(out, "{indent}{}", resolution_heading(k + 1, n));
        let inner = format!("{indent}  ");
        describe_resolution(u, r, cut, Some(n) == best, &inner, out, &mut shown.ways);
    }
    left_out(out, indent, len - first.len(), "resolution", "resolutions");
}

/// How much of each list a report writes: at most `up_to` optimal cuts, resolutions (all
/// cuts' together), ways of each resolution and outcomes, each kind counted on its own.
/// What is left out is said in a line of its own; the counts stay exact.
#[derive(Clone, Debug)]
pub struct Shown {
    cuts: Allowance,
    resolutions: Allowance,
    ways: Allowance,
    outcomes: Allowance,
}

/// What is left of one kind's allowance, and whether any entry was left out.
#[derive(Clone, Debug)]
pub struct Allowance {
    left: u64,
    /// The ways' allowance is per resolution: it is restored before each one.
    per_list: Option<u64>,
    short: bool,
}

impl Allowance {
    /// At most `n` entries of each list of this kind (each list counted on its own).
    pub fn each(n: u64) -> Allowance {
        Allowance {
            left: n,
            per_list: Some(n),
            short: false,
        }
    }

    /// Whether some list was shortened.
    pub fn short(&self) -> bool {
        self.short
    }

    /// How many of `n` entries may be written now (taken from the allowance).
    fn take(&mut self, n: usize) -> usize {
        if let Some(each) = self.per_list {
            self.left = each;
        }
        let k = (n as u64).min(self.left);
        self.left -= k;
        if k < n as u64 {
            self.short = true;
        }
        k as usize
    }
}

/// The line saying `k` entries of a list are left out (nothing when none is).
fn left_out(out: &mut String, indent: &str, k: usize, one: &str, many: &str) {
    if k > 0 {
        let _ = writeln!(
            out,
            "{indent}({k} more {} not listed)",
            if k == 1 { one } else { many }
        );
    }
}

impl Shown {
    /// At most `n` entries of each kind.
    pub fn up_to(n: u64) -> Shown {
        let all = || Allowance {
            left: n,
            per_list: None,
            short: false,
        };
        Shown {
            cuts: all(),
            resolutions: all(),
            ways: Allowance::each(n),
            outcomes: all(),
        }
    }

    /// Whether some list was shortened.
    pub fn short(&self) -> bool {
        [&self.cuts, &self.resolutions, &self.ways, &self.outcomes]
            .iter()
            .any(|a| a.short)
    }
}

/// The slots a way moves, with their final targets: "K kill D1 [e3] goes to D2".
fn moved_words(u: &Universe, w: &TargetMap) -> String {
    w.iter()
        .enumerate()
        .filter(|(i, t)| !t.is_empty() && **t != u.effects[*i].targets)
        .map(|(i, t)| {
            let names: Vec<&str> = t.iter().map(|&p| u.player_name(p)).collect();
            format!("{} goes to {}", effect_name(u, i), names.join(" "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One outcome in words: the cut, what succeeds, the moved slots, who dies.
pub fn outcome_words(u: &Universe, o: &Outcome) -> String {
    let cut = if o.cut.is_clear() {
        String::new()
    } else {
        format!("cutting {}: ", names(u, o.cut.ones()))
    };
    let moved = moved_words(u, o.way);
    format!(
        "{cut}{} succeed; {}{}",
        names(u, o.resolution.succeeded.ones()),
        if moved.is_empty() {
            String::new()
        } else {
            format!("{moved}; ")
        },
        deaths_words(&o.resolution.deaths(u, o.way))
    )
}

/// A readable report, summary first: classification, who dies with what probability,
/// then the effects, resolutions, cuts, every outcome and the pick for `seed`, its lists
/// shortened as `shown` allows (which records what it left out). Effects are written
/// `Goon kill Cop [e1]`; "nobody dies" has one wording.
pub fn to_human_shown(u: &Universe, a: &Analysis, seed: Option<u64>, shown: &mut Shown) -> String {
    human(u, a, seed, true, shown)
}

/// The report without its list of effects (a component's section of a larger night), its
/// lists shortened as `shown` allows.
pub fn body_human(u: &Universe, a: &Analysis, seed: Option<u64>, shown: &mut Shown) -> String {
    human(u, a, seed, false, shown)
}

/// One declared effect as a line: `Goon kill Cop [e1]  priority 5`.
pub fn effect_line(u: &Universe, i: usize) -> String {
    format!("{}  priority {}", effect_name(u, i), u.effects[i].priority)
}

fn human(
    u: &Universe,
    a: &Analysis,
    seed: Option<u64>,
    with_effects: bool,
    shown: &mut Shown,
) -> String {
    let mut out = String::new();
    let empty = Cut::with_capacity(u.n_declared);
    let n_outcomes = count_outcomes(u, a);
    let class = a.classification();
    let _ = writeln!(
        out,
        "{}: {}",
        class.name(),
        match (&a.cuts, a.resolutions.len()) {
            (Some(c), _) => format!(
                "no resolution; the cheapest Gordian cut {} ({} such cut{})",
                cost_words(u.levels(), &c.cost),
                c.optimal.len(),
                if c.optimal.len() == 1 { "" } else { "s" }
            ),
            (None, 1) if a.resolutions[0].ways.len() == 1 => "exactly one resolution".to_string(),
            (None, 1) => format!(
                "one resolution with {} ways of redirecting",
                a.resolutions[0].ways.len()
            ),
            (None, n) => format!("{n} resolutions"),
        }
    );
    let _ = writeln!(out, "who dies:");
    let mut dist: BTreeMap<Vec<String>, BigRational> = BTreeMap::new();
    let _ = for_each_outcome(u, a, false, |o| {
        let d = o.resolution.deaths(u, o.way);
        *dist.entry(d).or_insert_with(BigRational::zero) += o.probability.clone();
        ControlFlow::<()>::Continue(())
    });
    for (d, p) in dist {
        let _ = writeln!(out, "  {:>7}  {}", p.to_string(), deaths_words(&d));
    }
    if with_effects {
        let _ = writeln!(out, "effects ({}):", u.n_declared);
        for i in 0..u.n_declared {
            let _ = writeln!(out, "  {}", effect_line(u, i));
        }
    }
    if !a.resolutions.is_empty() {
        describe_list(u, &a.resolutions, &empty, "  ", &mut out, shown);
    }
    if let Some(c) = &a.cuts {
        let listed = shown.cuts.take(c.optimal.len());
        for (f, rs) in c.optimal.iter().take(listed) {
            let _ = writeln!(out, "  cutting {}:", names(u, f.ones()));
            let k = shown.resolutions.take(rs.len());
            describe_first(
                u,
                &rs.first(k),
                rs.len(),
                rs.min_created(u),
                f,
                "    ",
                &mut out,
                shown,
            );
        }
        left_out(
            &mut out,
            "  ",
            c.optimal.len() - listed,
            "optimal cut",
            "optimal cuts",
        );
    }
    let _ = writeln!(out, "outcomes ({n_outcomes}):");
    let listed = shown.outcomes.take(n_outcomes);
    let mut written = 0;
    let _ = for_each_outcome(u, a, true, |o| {
        if written == listed {
            return ControlFlow::Break(());
        }
        written += 1;
        let _ = writeln!(
            out,
            "  {:>7}  {}",
            o.probability.to_string(),
            outcome_words(u, o)
        );
        ControlFlow::Continue(())
    });
    left_out(&mut out, "  ", n_outcomes - listed, "outcome", "outcomes");
    if let Some(seed) = seed {
        if let Some(o) = pick(u, a, &empty, seed) {
            let _ = writeln!(out, "pick (seed {seed}): {}", outcome_words(u, &o));
        }
    }
    out
}
