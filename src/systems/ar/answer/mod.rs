//! The factorised answer as a user sees it: exact totals, each player's chance of dying,
//! one section per independent component, and — when short enough or asked for — the
//! flat lists of the whole night, written as a stream (one item in memory at a time).
//!
//! Invariants: totals are exact integers (decimal strings in JSON) computed without
//! expanding any product; death chances combine per player (1 - Π(1 - p_k) over the
//! components); flat lists are in product order (the first component varies slowest;
//! for a night of one component that is the component's canonical order); `--limit N`
//! stops each flat list after N items and says so. This module writes to a writer it is
//! given; only `cli` picks exit codes.
//!
//! The answer layer: what both engines return and how it is read. A night split into
//! components and the factorised answer ([`factor`]), a component as a product of pieces
//! ([`pieces`]), identical passives solved as one and expanded back ([`collapse`]), products back to flat lists ([`expand`]), when two answers say the same
//! ([`agree`]), outcomes with exact probabilities and their renderings ([`report`]), and
//! this module on top of them. Imports only the night (tests/layers.rs).

pub mod agree;
pub mod collapse;
pub mod expand;
pub mod factor;
pub mod pieces;
pub mod report;

use self::expand::{optimal_cuts, Merger};
use self::factor::{Factored, Night, Part};
use self::report::Outcome;
use crate::odometer;
use crate::systems::ar::night::resolution::{
    canonicalize_resolutions, sorted_ids, Analysis, Classification, Cut, Resolution, TargetMap,
    Under,
};
use crate::systems::ar::night::universe::Universe;
use num_bigint::BigUint;
use num_rational::BigRational;
use num_traits::{One, Zero};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Flat lists are written without `--expand` while they hold at most this many entries
/// (ways listed plus outcomes).
pub const EXPAND_UP_TO: u64 = 256;

/// Whether to write the flat lists of the whole night.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expand {
    /// While they hold at most 256 entries (ways listed plus outcomes).
    #[default]
    Auto,
    /// Always (streamed; `--limit` bounds each list).
    Always,
    /// Never: the factorised answer only.
    Never,
}

/// What to write.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Make one reproducible random pick with this seed.
    pub seed: Option<u64>,
    /// Whether to write the flat lists.
    pub expand: Expand,
    /// Stop each flat list after this many items (and each component's own lists when
    /// the flat ones are not written).
    pub limit: Option<u64>,
}

/// A component's lists in the human report are written up to this many entries of each
/// kind (optimal cuts, resolutions, ways of one resolution, outcomes) unless `--limit`
/// says otherwise: a large piece of a deflection-heavy night has 10^5 resolutions of
/// several hundred effects each. The counts stay exact and `--json` lists every one.
pub const HUMAN_LISTS_UP_TO: u64 = 32;

impl Options {
    /// How much of one component's lists the human report writes: `--limit` of each
    /// kind, else [`HUMAN_LISTS_UP_TO`] (each component has an allowance of its own).
    fn shown(&self) -> report::Shown {
        report::Shown::up_to(self.limit.unwrap_or(HUMAN_LISTS_UP_TO))
    }

    /// Ends a human report, `short` when some component's list was shortened: with
    /// `--limit`, a list cut short is [`Written::truncated`] (the command's exit says
    /// so); by default, a last line says how to see more.
    fn shortened(&self, w: &mut dyn Write, short: bool, expanded: bool) -> io::Result<Written> {
        if short && self.limit.is_none() {
            writeln!(
                w,
                "(lists of more than {HUMAN_LISTS_UP_TO} entries are shortened above; \
                 --limit N writes N of each, --json writes every one)"
            )?;
        }
        Ok(Written {
            expanded,
            truncated: short && self.limit.is_some(),
        })
    }
}

/// What writing reported besides the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Whether the flat lists were written.
    pub expanded: bool,
    /// Whether some flat list stopped at `--limit`.
    pub truncated: bool,
}

/// Number of flat entries an expansion would write: the ways of every listed resolution
/// (the night's, or under every optimal cut) plus the outcomes.
pub fn flat_entries(n: &Night, f: &Factored) -> BigUint {
    let n = f.night(n);
    let mut ways = BigUint::one();
    for a in &f.parts {
        let here: usize = match (&a.cuts, f.classification()) {
            (Some(c), Classification::Paradox) => c.optimal.iter().map(|(_, rs)| rs.n_ways()).sum(),
            _ => a.resolutions.iter().map(|r| r.ways.len()).sum(),
        };
        ways *= here;
    }
    ways + f.totals(n).outcomes
}

/// Whether the flat lists are written under these options.
pub fn expands(n: &Night, f: &Factored, opts: &Options) -> bool {
    let n = f.night(n);
    match opts.expand {
        Expand::Always => true,
        Expand::Never => false,
        Expand::Auto => flat_entries(n, f) <= BigUint::from(EXPAND_UP_TO),
    }
}

/// A part's outcomes with their exact probabilities.
fn part_outcomes<'a>(p: &'a Part, a: &'a Analysis, empty: &'a Cut) -> Vec<Outcome<'a>> {
    report::outcomes(&p.universe, a, empty)
}

/// Each player's exact chance of dying (players who may die only), sorted by name.
pub fn death_chances(n: &Night, f: &Factored) -> Vec<(String, BigRational)> {
    let n = f.night(n);
    let mut survive: BTreeMap<String, BigRational> = BTreeMap::new();
    for (p, a) in n.parts.iter().zip(&f.parts) {
        let mut dies: BTreeMap<String, BigRational> = BTreeMap::new();
        let _ = report::for_each_outcome(&p.universe, a, false, |o| {
            for d in o.resolution.deaths(&p.universe, o.way) {
                *dies.entry(d).or_insert_with(BigRational::zero) += o.probability.clone();
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        for (who, pk) in dies {
            let s = survive.entry(who).or_insert_with(BigRational::one);
            *s = s.clone() * (BigRational::one() - pk);
        }
    }
    survive
        .into_iter()
        .map(|(who, s)| (who, BigRational::one() - s))
        .filter(|(_, p)| !p.is_zero())
        .collect()
}

/// Each declared effect's exact chance of succeeding under the same uniform pick as
/// [`death_chances`] (a cut effect fails), by id; effects that never succeed are absent.
/// An effect in several parts (a passive a piece needs beside the shared piece) has the
/// same chance in each; the first part's is taken.
pub fn success_chances(n: &Night, f: &Factored) -> BTreeMap<String, BigRational> {
    let n = f.night(n);
    let mut out: BTreeMap<String, BigRational> = BTreeMap::new();
    for (p, a) in n.parts.iter().zip(&f.parts) {
        let mut here: BTreeMap<String, BigRational> = BTreeMap::new();
        let _ = report::for_each_outcome(&p.universe, a, false, |o| {
            for i in o.resolution.succeeded.ones() {
                if i < p.universe.n_declared {
                    let id = p.universe.effects[i].id.clone();
                    *here.entry(id).or_insert_with(BigRational::zero) += o.probability.clone();
                }
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        for (id, c) in here {
            out.entry(id).or_insert(c);
        }
    }
    out
}

/// A whole-night outcome picked component by component.
#[derive(Clone, Debug)]
pub struct Picked {
    /// Its exact probability.
    pub probability: BigRational,
    /// The cut (whole-night declared bits).
    pub cut: Cut,
    /// The resolution, with the picked way only.
    pub resolution: Resolution,
}

/// Seed of component `k`'s pick: the seed itself for the first, so a night of one
/// component picks exactly as the flat pick does.
fn part_seed(seed: u64, k: usize) -> u64 {
    if k == 0 {
        seed
    } else {
        crate::harness::fuzz::splitmix64(seed ^ k as u64)
    }
}

/// One reproducible pick for `seed`: in each component, the contract's uniform choice
/// (optimal cut, optimal resolution, way) with its own seed.
pub fn pick(n: &Night, f: &Factored, seed: u64) -> Option<Picked> {
    let n = f.night(n);
    let m = Merger::new(n);
    let mut probability = BigRational::one();
    let mut cuts = Vec::new();
    let mut rs = Vec::new();
    let empties: Vec<Cut> = n
        .parts
        .iter()
        .map(|p| Cut::with_capacity(p.universe.n_declared))
        .collect();
    let mut chosen = Vec::new();
    for (k, ((p, a), empty)) in n.parts.iter().zip(&f.parts).zip(&empties).enumerate() {
        let o = report::pick(&p.universe, a, empty, part_seed(seed, k))?;
        probability *= o.probability.clone();
        chosen.push((p, o));
    }
    for (p, o) in &chosen {
        cuts.push((*p, o.cut));
        rs.push((
            *p,
            Resolution {
                present: o.resolution.present.clone(),
                succeeded: o.resolution.succeeded.clone(),
                ways: vec![o.way.clone()],
            },
        ));
    }
    let refs: Vec<(&Part, &Resolution)> = rs.iter().map(|(p, r)| (*p, r)).collect();
    Some(Picked {
        probability,
        cut: m.cut(&cuts),
        resolution: m.resolution(&refs),
    })
}

fn as_outcome(p: &Picked) -> Outcome<'_> {
    Outcome {
        probability: p.probability.clone(),
        cut: &p.cut,
        resolution: &p.resolution,
        way: &p.resolution.ways[0],
    }
}

fn picked_words(u: &Universe, p: &Picked) -> String {
    report::outcome_words(u, &as_outcome(p))
}

/// One optimal cut with its resolutions, as written in the flat `cuts.optimal` list.
#[derive(Serialize)]
struct CutJson<'a> {
    cut: Vec<String>,
    resolutions: Vec<report::ResolutionJson<'a>>,
}

fn picked_view<'a>(u: &'a Universe, p: &'a Picked) -> report::OutcomeJson<'a> {
    report::outcome_view(
        u,
        &Outcome {
            probability: p.probability.clone(),
            cut: &p.cut,
            resolution: &p.resolution,
            way: &p.resolution.ways[0],
        },
    )
}

fn picked_json(u: &Universe, p: &Picked) -> Value {
    report::outcome_json(
        u,
        &Outcome {
            probability: p.probability.clone(),
            cut: &p.cut,
            resolution: &p.resolution,
            way: &p.resolution.ways[0],
        },
    )
}

fn level_cost(levels: &[u32], cost: &[usize]) -> Value {
    Value::Array(
        levels
            .iter()
            .zip(cost)
            .map(|(p, k)| json!({"priority": p, "count": k}))
            .collect(),
    )
}

/// For a refined answer, the instance component (from 1) of each piece.
fn owners(f: &Factored) -> Option<Vec<usize>> {
    f.refined.as_ref().map(|r| {
        r.ranges
            .iter()
            .enumerate()
            .flat_map(|(k, range)| range.clone().map(move |_| k + 1))
            .collect()
    })
}

/// How many components are paradoxes, quasi-paradoxes and non-paradoxes. A component
/// answered as pieces is classified as a whole (a paradox when some piece is, one answer
/// when every piece has one), so the counts do not depend on how an engine split it.
fn class_counts(f: &Factored) -> [usize; 3] {
    let classes: Vec<Classification> = f.parts.iter().map(Analysis::classification).collect();
    let components: Vec<Classification> = match &f.refined {
        Some(r) => r
            .ranges
            .iter()
            .map(|range| Classification::of_parts(classes[range.clone()].iter().copied()))
            .collect(),
        None => classes,
    };
    let mut c = [0; 3];
    for class in components {
        c[match class {
            Classification::Paradox => 0,
            Classification::QuasiParadox => 1,
            Classification::NonParadox => 2,
        }] += 1;
    }
    c
}

/// The factorised part of the JSON answer, every key but the flat lists.
/// A summary entry: a value, or the effect list serialised straight from the night.
enum Entry<'a> {
    Value(Value),
    Effects(Vec<report::EffectJson<'a>>),
}

impl Serialize for Entry<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Entry::Value(v) => v.serialize(s),
            Entry::Effects(e) => e.serialize(s),
        }
    }
}

fn summary_json<'a>(n: &'a Night, f: &'a Factored) -> Vec<(&'static str, Entry<'a>)> {
    let n = f.night(n);
    let u = &n.whole;
    let t = f.totals(n);
    let levels = u.levels();
    let [px, qx, nx] = class_counts(f);
    let v = |v: Value| Entry::Value(v);
    let mut totals = json!({
        "components": f.refined.as_ref().map_or(n.parts.len(), |r| r.ranges.len()),
        "paradox_components": px,
        "quasi_paradox_components": qx,
        "non_paradox_components": nx,
        "resolutions": t.resolutions.to_string(),
        "ways": t.ways.to_string(),
        "optimal_cuts": t.optimal_cuts.to_string(),
        "outcomes": t.outcomes.to_string(),
    });
    if f.refined.is_some() {
        totals["pieces"] = json!(n.parts.len());
    }
    let mut head = vec![
        ("classification", v(json!(f.classification().name()))),
        ("players", v(json!(u.ensemble.players))),
    ];
    // Only a night with `alignment:` lines has the field (the JSON reads back as the
    // night; nights without alignments print as before).
    if !u.ensemble.alignments.is_empty() {
        let map: serde_json::Map<String, Value> = u
            .ensemble
            .alignments
            .iter()
            .map(|(p, a)| (u.player_name(*p).to_string(), json!(a)))
            .collect();
        head.push(("alignment", v(Value::Object(map))));
    }
    head.into_iter()
        .chain([
            ("effects", Entry::Effects(report::effects_view(u))),
            ("totals", v(totals)),
            (
                "cut_cost",
                v(f.cost(n).map_or(Value::Null, |c| level_cost(levels, &c))),
            ),
            (
                "death_chances",
                v(Value::Array(
                    death_chances(n, f)
                        .into_iter()
                        .map(|(who, p)| json!({"player": who, "probability": p.to_string()}))
                        .collect(),
                )),
            ),
        ])
        .collect()
}

/// One component without its lists (they are flat at the top of an expanded answer): its
/// classification, effects, exact counts and cost over the whole night's priority levels.
/// [`ComponentLists`] is the same with the component's own lists.
fn component_json(n: &Night, part: &Part, a: &Analysis) -> Value {
    let u = &part.universe;
    json!({
        "classification": a.classification().name(),
        "effects": effect_ids(u),
        "totals": component_totals(a, report::count_outcomes(u, a)),
        "cut_cost": a.cuts.as_ref().map_or(Value::Null, |c| component_cost(n, u, &c.cost)),
    })
}

/// A component's effect ids, in its universe's order.
fn effect_ids(u: &Universe) -> Vec<&str> {
    u.ensemble.effects.iter().map(|e| e.id.as_str()).collect()
}

/// A component's exact counts (as strings: they can be large elsewhere).
fn component_totals(a: &Analysis, outcomes: usize) -> Value {
    let ways: usize = a.resolutions.iter().map(|r| r.ways.len()).sum();
    json!({
        "resolutions": a.resolutions.len().to_string(),
        "ways": ways.to_string(),
        "optimal_cuts": a.cuts.as_ref().map_or(0, |c| c.optimal.len()).to_string(),
        "outcomes": outcomes.to_string(),
    })
}

/// A component with its own lists: [`component_json`]'s keys and the component's
/// resolutions, optimal cuts, outcomes and death probabilities, serialised without
/// building them as one tree: each item is built and written in turn, so a component
/// with thousands of optimal cuts is written in little memory; a cut's
/// resolutions held as a product are expanded for the writing and dropped after. With a
/// `limit`, each list (resolutions, optimal cuts, each cut's resolutions, outcomes) holds
/// its first `limit` items in canonical order and `truncated` is set when one was cut
/// short; the totals and the death probabilities stay exact.
struct ComponentLists<'a> {
    n: &'a Night,
    part: &'a Part,
    a: &'a Analysis,
    /// The component's `component` key, when the answer names owners.
    owner: Option<usize>,
    limit: Option<u64>,
    truncated: &'a std::cell::Cell<bool>,
}

impl ComponentLists<'_> {
    /// The first `limit` of `len` items (all without a limit), noting a cut.
    fn first(&self, len: usize) -> usize {
        let k = self
            .limit
            .map_or(len, |l| len.min(l.try_into().unwrap_or(usize::MAX)));
        if k < len {
            self.truncated.set(true);
        }
        k
    }
}

/// The first `k` outcomes of a component, in [`report::outcomes`]' order, read as a
/// stream ([`report::for_each_outcome`]).
struct OutcomesList<'a> {
    u: &'a Universe,
    a: &'a Analysis,
    k: usize,
}

impl Serialize for OutcomesList<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.k))?;
        let mut written = 0;
        if self.k > 0 {
            let end = report::for_each_outcome(self.u, self.a, true, |o| {
                if let Err(e) = seq.serialize_element(&report::outcome_view(self.u, o)) {
                    return std::ops::ControlFlow::Break(Err(e));
                }
                written += 1;
                if written == self.k {
                    return std::ops::ControlFlow::Break(Ok(()));
                }
                std::ops::ControlFlow::Continue(())
            });
            if let std::ops::ControlFlow::Break(Err(e)) = end {
                return Err(e);
            }
        }
        seq.end()
    }
}

/// Optimal cuts, each with its resolutions, up to a limit (see [`ComponentLists`]).
struct CutsLists<'c, 'a> {
    lists: &'c ComponentLists<'a>,
    optimal: &'a [(Cut, Under)],
}

impl Serialize for CutsLists<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let u = &self.lists.part.universe;
        let optimal = &self.optimal[..self.lists.first(self.optimal.len())];
        let mut seq = s.serialize_seq(Some(optimal.len()))?;
        for (cut, under) in optimal {
            // In canonical order; a product is expanded here, not kept.
            let rs = under.first(self.lists.first(under.len()));
            seq.serialize_element(&report::optimal_cut_view(u, cut, &rs))?;
        }
        seq.end()
    }
}

impl Serialize for ComponentLists<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (u, a) = (&self.part.universe, self.a);
        // The outcomes are read as a stream (twice: their deaths, then the first ones
        // listed), never held: a product of resolutions is not expanded for them.
        let n_outcomes = report::count_outcomes(u, a);
        let cost = a.cuts.as_ref().map(|c| component_cost(self.n, u, &c.cost));
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("classification", a.classification().name())?;
        m.serialize_entry("death_probabilities", &report::streamed_deaths_json(u, a))?;
        m.serialize_entry("effects", &effect_ids(u))?;
        // Canonical order puts the fewest created effects first: a prefix marks the
        // same resolutions optimal as the whole list.
        let resolutions = report::ResolutionsView {
            u,
            rs: &a.resolutions[..self.first(a.resolutions.len())],
        };
        m.serialize_entry("resolutions", &resolutions)?;
        match (&a.cuts, &cost) {
            (Some(c), Some(cost)) => {
                #[derive(Serialize)]
                struct Cuts<'c, 'l, 'a> {
                    cost: &'c Value,
                    optimal: CutsLists<'l, 'a>,
                }
                let optimal = CutsLists {
                    lists: self,
                    optimal: &c.optimal,
                };
                m.serialize_entry("cuts", &Cuts { cost, optimal })?;
            }
            _ => m.serialize_entry("cuts", &Value::Null)?,
        }
        let outcomes = OutcomesList {
            u,
            a,
            k: self.first(n_outcomes),
        };
        m.serialize_entry("outcomes", &outcomes)?;
        m.serialize_entry("totals", &component_totals(a, n_outcomes))?;
        m.serialize_entry("cut_cost", cost.as_ref().unwrap_or(&Value::Null))?;
        if let Some(o) = self.owner {
            m.serialize_entry("component", &o)?;
        }
        m.end()
    }
}

/// A component's cut cost over the whole night's priority levels.
fn component_cost(n: &Night, u: &Universe, cost: &[usize]) -> Value {
    let levels = n.whole.levels();
    let mut total = vec![0; levels.len()];
    for (lv, k) in u.levels().iter().zip(cost) {
        total[levels.binary_search(lv).expect("a level")] += k;
    }
    level_cost(levels, &total)
}

/// Writes `value` pretty-printed, its lines after the first indented by `indent`.
fn put<T: Serialize + ?Sized>(w: &mut dyn Write, value: &T, indent: &str) -> io::Result<()> {
    let mut out = Indented { w, indent };
    serde_json::to_writer_pretty(&mut out, value).map_err(io::Error::other)
}

/// A writer that indents every line after the first: pretty JSON has a raw newline only
/// between tokens (newlines inside strings are escaped), so this re-indents a whole
/// document without parsing it.
struct Indented<'w> {
    w: &'w mut dyn Write,
    indent: &'w str,
}

impl Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }
    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while let Some(k) = buf.iter().position(|&b| b == b'\n') {
            self.w.write_all(&buf[..=k])?;
            self.w.write_all(self.indent.as_bytes())?;
            buf = &buf[k + 1..];
        }
        self.w.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// A JSON array written one item at a time, stopping at the limit.
struct Stream<'w> {
    w: &'w mut dyn Write,
    indent: &'static str,
    count: u64,
    limit: Option<u64>,
    truncated: bool,
}

impl<'w> Stream<'w> {
    fn open(w: &'w mut dyn Write, indent: &'static str, limit: Option<u64>) -> io::Result<Self> {
        w.write_all(b"[")?;
        Ok(Stream {
            w,
            indent,
            count: 0,
            limit,
            truncated: false,
        })
    }
    /// Writes an item; false once the limit is reached (the item is dropped).
    fn item<T: Serialize + ?Sized>(&mut self, v: &T) -> io::Result<bool> {
        if self.limit.is_some_and(|l| self.count >= l) {
            self.truncated = true;
            return Ok(false);
        }
        let sep = if self.count == 0 { "" } else { "," };
        write!(self.w, "{sep}\n{}  ", self.indent)?;
        serde_json::to_writer(&mut *self.w, v).map_err(io::Error::other)?;
        self.count += 1;
        Ok(true)
    }
    fn close(self) -> io::Result<bool> {
        if self.count > 0 {
            write!(self.w, "\n{}", self.indent)?;
        }
        self.w.write_all(b"]")?;
        Ok(self.truncated)
    }
}

/// Writes the JSON answer: the factorised summary, `extra` keys (e.g. which engines
/// answered), the pick, and the flat lists when [`expands`]. Returns what was written.
pub fn write_json(
    w: &mut dyn Write,
    n: &Night,
    f: &Factored,
    opts: &Options,
    extra: &[(&str, Value)],
) -> io::Result<Written> {
    let n = f.night(n);
    let expanded = expands(n, f, opts);
    let mut truncated = false;
    w.write_all(b"{")?;
    let mut first = true;
    let mut key = |w: &mut dyn Write, k: &str| -> io::Result<()> {
        let sep = if first { "" } else { "," };
        first = false;
        write!(w, "{sep}\n  {}: ", Value::String(k.to_string()))
    };
    for (k, v) in summary_json(n, f) {
        key(w, k)?;
        put(w, &v, "  ")?;
    }
    for (k, v) in extra {
        key(w, k)?;
        put(w, v, "  ")?;
    }
    key(w, "components")?;
    let mut s = Stream::open(w, "  ", None)?;
    let owner = owners(f);
    let cut_short = std::cell::Cell::new(false);
    for (k, (p, a)) in n.parts.iter().zip(&f.parts).enumerate() {
        if !expanded {
            s.item(&ComponentLists {
                n,
                part: p,
                a,
                owner: owner.as_ref().map(|o| o[k]),
                limit: opts.limit,
                truncated: &cut_short,
            })?;
            continue;
        }
        let mut v = component_json(n, p, a);
        if let Some(o) = &owner {
            v["component"] = json!(o[k]);
        }
        s.item(&v)?;
    }
    s.close()?;
    truncated |= cut_short.get();
    key(w, "expanded")?;
    w.write_all(if expanded { b"true" } else { b"false" })?;
    if let Some(seed) = opts.seed {
        key(w, "pick")?;
        let v = match pick(n, f, seed) {
            Some(p) => {
                let mut v = picked_json(&n.whole, &p);
                v["seed"] = json!(seed);
                v
            }
            None => Value::Null,
        };
        put(w, &v, "  ")?;
    }
    if expanded {
        let u = &n.whole;
        let m = Merger::new(n);
        let paradox = f.classification() == Classification::Paradox;
        key(w, "resolutions")?;
        let mut s = Stream::open(w, "  ", opts.limit)?;
        if !paradox {
            let best = Some(min_created_total(n, f));
            let lists = n
                .parts
                .iter()
                .zip(&f.parts)
                .map(|(p, a)| (p, a.resolutions.as_slice()))
                .collect();
            for r in m.products(lists) {
                if !s.item(&report::resolution_view(u, &r, best))? {
                    break;
                }
            }
        }
        truncated |= s.close()?;
        key(w, "cuts")?;
        match f.cost(n) {
            None => w.write_all(b"null")?,
            Some(cost) => {
                write!(w, "{{\n    \"cost\": ")?;
                put(w, &level_cost(u.levels(), &cost), "    ")?;
                write!(w, ",\n    \"optimal\": ")?;
                let mut s = Stream::open(w, "    ", opts.limit)?;
                for (cut, lists) in optimal_cuts(n, f) {
                    let best = Some(min_created_of(&lists));
                    // Each cut's resolution list is bounded by the limit too, and in
                    // canonical order, as a flat answer's.
                    let mut found = Vec::new();
                    for r in m.products(lists) {
                        if opts.limit.is_some_and(|l| found.len() as u64 >= l) {
                            truncated = true;
                            break;
                        }
                        found.push(r);
                    }
                    canonicalize_resolutions(u, &mut found);
                    let v = CutJson {
                        cut: sorted_ids(u, cut.ones()),
                        resolutions: found
                            .iter()
                            .map(|r| report::resolution_view(u, r, best))
                            .collect(),
                    };
                    if !s.item(&v)? {
                        break;
                    }
                }
                truncated |= s.close()?;
                write!(w, "\n  }}")?;
            }
        }
        key(w, "outcomes")?;
        let mut deaths: BTreeMap<Vec<String>, BigRational> = BTreeMap::new();
        let mut s = Stream::open(w, "  ", opts.limit)?;
        let mut complete = true;
        for o in outcome_products(n, f) {
            let d = o.resolution.deaths(u, &o.resolution.ways[0]);
            if !s.item(&picked_view(u, &o))? {
                complete = false;
                break;
            }
            *deaths.entry(d).or_insert_with(BigRational::zero) += o.probability;
        }
        truncated |= s.close()?;
        key(w, "death_probabilities")?;
        if complete {
            let v: Vec<Value> = deaths
                .into_iter()
                .map(|(d, p)| json!({"deaths": d, "probability": p.to_string()}))
                .collect();
            put(w, &Value::Array(v), "  ")?;
        } else {
            w.write_all(b"null")?;
        }
    }
    key(w, "truncated")?;
    w.write_all(if truncated { b"true" } else { b"false" })?;
    w.write_all(b"\n}\n")?;
    Ok(Written {
        expanded,
        truncated,
    })
}

/// The JSON answer as a value (for batch records and tests; `resolve` streams it).
pub fn to_json(n: &Night, f: &Factored, opts: &Options) -> Value {
    let n = f.night(n);
    let mut buf = Vec::new();
    write_json(&mut buf, n, f, opts, &[]).expect("writing to memory");
    serde_json::from_slice(&buf).expect("the writer writes JSON")
}

fn min_created_of(lists: &[(&Part, &[Resolution])]) -> usize {
    lists
        .iter()
        .map(|(p, rs)| {
            crate::systems::ar::night::resolution::min_created(&p.universe, rs).unwrap_or(0)
        })
        .sum()
}

/// The least number of created effects among the night's resolutions.
fn min_created_total(n: &Night, f: &Factored) -> usize {
    let n = f.night(n);
    let lists: Vec<(&Part, &[Resolution])> = n
        .parts
        .iter()
        .zip(&f.parts)
        .map(|(p, a)| (p, a.resolutions.as_slice()))
        .collect();
    min_created_of(&lists)
}

/// A component's outcome, owned: probability, cut (if any), resolution, way.
type OwnedOutcome = (BigRational, Option<Cut>, Resolution, TargetMap);

/// Every whole-night outcome, lazily, in product order.
pub fn outcome_products<'a>(n: &'a Night, f: &'a Factored) -> impl Iterator<Item = Picked> + 'a {
    let n = f.night(n);
    let empties: Vec<Cut> = n
        .parts
        .iter()
        .map(|p| Cut::with_capacity(p.universe.n_declared))
        .collect();
    // Outcomes hold references into `empties`; collect them as owned triples first.
    let per_part: Vec<Vec<OwnedOutcome>> = n
        .parts
        .iter()
        .zip(&f.parts)
        .zip(&empties)
        .map(|((p, a), e)| {
            part_outcomes(p, a, e)
                .into_iter()
                .map(|o| {
                    let cut = (o.cut.count_ones(..) > 0).then(|| o.cut.clone());
                    (o.probability, cut, o.resolution.clone(), o.way.clone())
                })
                .collect()
        })
        .collect();
    let sizes = per_part.iter().map(Vec::len).collect();
    let m = Merger::new(n);
    odometer::Product::new(sizes).map(move |pick| {
        let mut probability = BigRational::one();
        let mut cuts = Vec::new();
        let mut rs = Vec::new();
        for ((p, list), &k) in n.parts.iter().zip(&per_part).zip(&pick) {
            let (pr, cut, r, way) = &list[k];
            probability *= pr.clone();
            if let Some(c) = cut {
                cuts.push((p, c));
            }
            rs.push((
                p,
                Resolution {
                    present: r.present.clone(),
                    succeeded: r.succeeded.clone(),
                    ways: vec![way.clone()],
                },
            ));
        }
        let refs: Vec<(&Part, &Resolution)> = rs.iter().map(|(p, r)| (*p, r)).collect();
        Picked {
            probability,
            cut: m.cut(&cuts),
            resolution: m.resolution(&refs),
        }
    })
}

fn ids_or_dash(v: &[String]) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        v.join(", ")
    }
}

fn plural(k: impl std::fmt::Display, one: &str, many: &str) -> String {
    let text = k.to_string();
    format!("{text} {}", if text == "1" { one } else { many })
}

fn indented(text: &str, indent: &str) -> String {
    text.lines().map(|l| format!("{indent}{l}\n")).collect()
}

/// Writes the products of one resolution per list (at most `limit`), each as the flat
/// report writes a resolution, under `cut`; true when the limit cut the list short.
fn write_products(
    w: &mut dyn Write,
    m: &Merger,
    lists: Vec<(&Part, &[Resolution])>,
    cut: &Cut,
    indent: &str,
    limit: u64,
) -> io::Result<bool> {
    let u = &m.night().whole;
    let best = min_created_of(&lists);
    let inner = format!("{indent}  ");
    let mut ways = report::Allowance::each(limit);
    for (k, r) in m.products(lists).enumerate() {
        if k as u64 >= limit {
            return Ok(true);
        }
        let created = r.n_created(u);
        writeln!(w, "{indent}{}", report::resolution_heading(k + 1, created))?;
        let mut out = String::new();
        report::describe_resolution(u, &r, cut, created == best, &inner, &mut out, &mut ways);
        w.write_all(out.as_bytes())?;
    }
    Ok(ways.short())
}

/// Writes the human report. A night of one component reads as one component's report
/// (its resolutions, cuts and outcomes); a night of several gives the totals and each
/// player's chance of dying first, then the flat lists when [`expands`], else one section
/// per component. A component's lists are shortened as [`Options::shown`] says.
pub fn write_human(
    w: &mut dyn Write,
    n: &Night,
    f: &Factored,
    opts: &Options,
) -> io::Result<Written> {
    let n = f.night(n);
    if let (None, [p], [a]) = (&f.refined, n.parts.as_slice(), f.parts.as_slice()) {
        let mut shown = opts.shown();
        let text = report::to_human_shown(&p.universe, a, opts.seed, &mut shown);
        w.write_all(text.as_bytes())?;
        return opts.shortened(w, shown.short(), true);
    }
    let u = &n.whole;
    let t = f.totals(n);
    let expanded = expands(n, f, opts);
    let mut truncated = false;
    let mut short = false;
    let [px, qx, nx] = class_counts(f);
    let levels = u.levels();
    match f.cost(n) {
        Some(cost) => writeln!(
            w,
            "{}: no resolution; the cheapest Gordian cut {} ({} such cut{})",
            f.classification().name(),
            report::cost_words(levels, &cost),
            t.optimal_cuts,
            if t.optimal_cuts == BigUint::one() {
                ""
            } else {
                "s"
            }
        )?,
        None => writeln!(
            w,
            "{}: {} with {}",
            f.classification().name(),
            plural(&t.resolutions, "resolution", "resolutions"),
            plural(&t.ways, "way", "ways")
        )?,
    }
    let owner = owners(f);
    let classes = format!(
        "({}, {}, {})",
        plural(px, "paradox", "paradoxes"),
        plural(qx, "quasi-paradox", "quasi-paradoxes"),
        plural(nx, "non-paradox", "non-paradoxes"),
    );
    let counted = match &owner {
        Some(o) => format!(
            "{} independent {} {classes}, answered as {} independent pieces",
            o.last().copied().unwrap_or(0),
            if o.last() == Some(&1) {
                "component"
            } else {
                "components"
            },
            n.parts.len()
        ),
        None => format!("{} independent components {classes}", n.parts.len()),
    };
    writeln!(
        w,
        "{counted}; {} in all",
        plural(&t.outcomes, "outcome", "outcomes")
    )?;
    writeln!(w, "chance of dying, each player:")?;
    let chances = death_chances(n, f);
    if chances.is_empty() {
        writeln!(w, "  nobody dies")?;
    }
    for (who, p) in chances {
        writeln!(w, "  {:>7}  {who}", p.to_string())?;
    }
    writeln!(w, "effects ({}):", u.n_declared)?;
    for i in 0..u.n_declared {
        writeln!(w, "  {}", report::effect_line(u, i))?;
    }
    if expanded {
        let m = Merger::new(n);
        let limit = opts.limit.unwrap_or(u64::MAX);
        let empty = Cut::with_capacity(u.n_declared);
        match f.cost(n) {
            None => {
                writeln!(w, "resolutions ({}):", t.resolutions)?;
                let lists = n
                    .parts
                    .iter()
                    .zip(&f.parts)
                    .map(|(p, a)| (p, a.resolutions.as_slice()))
                    .collect();
                truncated |= write_products(w, &m, lists, &empty, "  ", limit)?;
            }
            Some(_) => {
                writeln!(
                    w,
                    "optimal Gordian cuts ({}), each with its resolutions:",
                    t.optimal_cuts
                )?;
                for (c, (cut, lists)) in optimal_cuts(n, f).enumerate() {
                    if c as u64 >= limit {
                        truncated = true;
                        break;
                    }
                    writeln!(w, "  cutting {}:", report::names(u, cut.ones()))?;
                    truncated |= write_products(w, &m, lists, &cut, "    ", limit)?;
                }
            }
        }
        writeln!(w, "outcomes ({}):", t.outcomes)?;
        for (k, o) in outcome_products(n, f).enumerate() {
            if k as u64 >= limit {
                truncated = true;
                break;
            }
            writeln!(
                w,
                "  {:>7}  {}",
                o.probability.to_string(),
                picked_words(u, &o)
            )?;
        }
    } else {
        for (k, (p, a)) in n.parts.iter().zip(&f.parts).enumerate() {
            let ids: Vec<String> = p
                .universe
                .ensemble
                .effects
                .iter()
                .map(|e| e.id.clone())
                .collect();
            match &owner {
                Some(o) => writeln!(
                    w,
                    "piece {} of {} (component {}): {}",
                    k + 1,
                    n.parts.len(),
                    o[k],
                    ids_or_dash(&ids)
                )?,
                None => writeln!(
                    w,
                    "component {} of {}: {}",
                    k + 1,
                    n.parts.len(),
                    ids_or_dash(&ids)
                )?,
            }
            let mut shown = opts.shown();
            let body = report::body_human(&p.universe, a, None, &mut shown);
            short |= shown.short();
            w.write_all(indented(&body, "  ").as_bytes())?;
        }
    }
    if let Some(seed) = opts.seed {
        if let Some(o) = pick(n, f, seed) {
            writeln!(w, "pick (seed {seed}): {}", picked_words(u, &o))?;
        }
    }
    if !expanded {
        return opts.shortened(w, short, false);
    }
    Ok(Written {
        expanded,
        truncated,
    })
}
