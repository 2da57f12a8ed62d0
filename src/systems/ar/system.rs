//! ?AR as a [`System`]: nights (`.night`, `.json`) in, whole analyses out, compared between
//! the direct, SAT and (on small universes) brute-force engines; random nights from
//! [`gen`](super::night::gen) and the shrinker's simplifications from [`shrink`](super::night::shrink).
//!
//! Invariant: the instance is the night split into independent components ([`Night`],
//! built once, shared by every engine) and the answer is factorised ([`Factored`], one
//! analysis per component); `to_text` writes the night with explicit ids and priorities,
//! so a shrunk failure reads back to the same universe.

use super::answer::expand::flatten;
use super::answer::factor::{Factored, Night};
use super::engine::{Brute, Direct, Sat, BRUTE_UP_TO};
use super::night::gen::{night, NightParams};
use super::night::model::ActionKind;
use super::night::resolution::{sorted_ids, Analysis};
use super::night::universe::Universe;
use super::night::{parse, shrink};
use crate::systems::spec::Shape;
use crate::systems::spec::{Budget, Engine, Interrupted, System};
use crate::text::{ParseErrors, Sink};
use serde_json::{json, Value};
use std::path::Path;

/// The ?AR system.
pub struct Ar;

/// The night generator's knobs (`gordian fuzz|gen --system ar` sets them with its flags,
/// `cli/generators.rs`; `Default` is their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct ArGen {
    /// Players per night (the CLI allows 1..=1000).
    pub players: usize,
    /// Each night has between 1 and this many effects, drawn from the seed (the CLI
    /// allows 1..=10,000).
    pub max_effects: usize,
    /// Exactly this many effects instead of a number drawn from the seed (`None`, the
    /// default and what the CLI uses: between 1 and `max_effects`).
    pub effects: Option<usize>,
    /// Action kinds to draw from.
    pub kinds: Vec<ActionKind>,
    /// Probability that an effect is a passive.
    pub passive_rate: f64,
    /// Number of distinct priority levels drawn at random (0: the kinds' defaults).
    pub priority_levels: u32,
    /// Probability that an effect carries a modifier (a filter, `strongkill`, an
    /// information kind) and that a passive is `immune` (0: none, the default).
    pub modifier_rate: f64,
}

impl Default for ArGen {
    fn default() -> ArGen {
        ArGen {
            players: 6,
            max_effects: 10,
            effects: None,
            // The kinds before jail and commute: every seed draws the night it always drew.
            kinds: ActionKind::ALL[..6].to_vec(),
            passive_rate: 0.15,
            priority_levels: 0,
            modifier_rate: 0.0,
        }
    }
}

impl ArGen {
    /// The generator parameters for a night of `effects` effects.
    pub(crate) fn params(&self, effects: usize) -> NightParams {
        NightParams {
            players: self.players,
            effects,
            kinds: self.kinds.clone(),
            passive_rate: self.passive_rate,
            priority_levels: self.priority_levels,
            modifier_rate: self.modifier_rate,
            ..NightParams::default()
        }
    }
}

/// A one-line summary of an analysis: classification, resolutions with their succeeded
/// sets and ways; for a paradox the optimal cuts and their cost.
pub fn describe(u: &Universe, a: &Analysis) -> String {
    let sets = |v: Vec<Vec<String>>| {
        v.iter()
            .map(|s| format!("{{{}}}", s.join(" ")))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let ways: usize = a.resolutions.iter().map(|r| r.ways.len()).sum();
    let mut out = format!(
        "{}, {} resolution(s), {} way(s)",
        a.classification().name(),
        a.resolutions.len(),
        ways
    );
    if !a.resolutions.is_empty() {
        let s = a.resolutions.iter().map(|r| r.succeeded_ids(u)).collect();
        out.push_str(&format!(", S = {}", sets(s)));
    }
    if let Some(c) = &a.cuts {
        let cuts = c
            .optimal
            .iter()
            .map(|(f, _)| sorted_ids(u, f.ones()))
            .collect();
        out.push_str(&format!(
            ", {} optimal cut(s) {} of cost {:?}",
            c.optimal.len(),
            sets(cuts),
            c.cost
        ));
    }
    out
}

/// Flat lists stay short enough for a one-line summary up to this many resolutions and
/// cuts.
const SUMMARY_FLAT: u32 = 16;

/// A one-line summary of a factorised answer: as [`describe`] when the flat answer is
/// short, else the exact totals and the number of components.
pub fn describe_factored(n: &Night, f: &Factored) -> String {
    let n = f.night(n);
    let t = f.totals(n);
    if t.resolutions <= SUMMARY_FLAT.into() && t.optimal_cuts <= SUMMARY_FLAT.into() {
        return describe(&n.whole, &flatten(n, f));
    }
    let mut out = format!(
        "{}, {} resolution(s), {} way(s), {} components",
        f.classification().name(),
        t.resolutions,
        t.ways,
        n.parts.len()
    );
    if let Some(cost) = f.cost(n) {
        out.push_str(&format!(
            ", {} optimal cut(s) of cost {cost:?}",
            t.optimal_cuts
        ));
    }
    out
}

/// Rejects a night without effects: there is nothing to resolve, and an empty answer
/// would look like a verdict.
fn non_empty(file: &Path, text: &str, u: Universe) -> Result<Universe, ParseErrors> {
    if !u.ensemble.effects.is_empty() {
        return Ok(u);
    }
    let line = crate::text::lex::lines(crate::text::lex::strip_bom(text))
        .position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map_or(1, |i| i + 1);
    Err(Sink::one(
        text,
        file,
        line,
        1,
        "the night has no effects: nothing to resolve (write one effect a line, e.g. \
         `R1 block R2`)",
    ))
}

/// The most flat entries (ways and outcomes) an answer compared with an outside resolver
/// writes out.
pub const PROTOCOL_FLAT: u64 = 100_000;

impl System for Ar {
    const NAME: &'static str = "ar";
    const EXTENSIONS: &'static [&'static str] = &["night", "json"];
    const NOUN: &'static str = "night";
    type Instance = Night;
    type Answer = Factored;
    type GenArgs = ArGen;

    fn parse(file: &Path, text: &str) -> Result<Night, ParseErrors> {
        let u = Universe::new(&parse::parse_str(text, file)?);
        Ok(Night::new(non_empty(file, text, u)?))
    }
    fn parse_within(
        file: &Path,
        text: &str,
        budget: &Budget,
    ) -> Result<Result<Night, ParseErrors>, Interrupted> {
        let ens = match parse::parse_str(text, file) {
            Ok(e) => e,
            Err(e) => return Ok(Err(e)),
        };
        budget.check()?;
        let u = match non_empty(file, text, Universe::new_within(&ens, budget)?) {
            Ok(u) => u,
            Err(e) => return Ok(Err(e)),
        };
        Ok(Ok(Night::new_within(u, budget)?))
    }
    fn to_text(n: &Night) -> String {
        parse::to_night(&n.whole.ensemble)
    }
    fn engines() -> Vec<Box<dyn Engine<Night, Factored> + Send + Sync>> {
        vec![Box::new(Direct), Box::new(Sat), Box::new(Brute)]
    }
    fn runs_on(engine: &str, n: &Night) -> bool {
        engine != "brute" || n.largest_part() <= BRUTE_UP_TO
    }
    /// `effects` effects, or between 1 and `max_effects`, chosen from the seed (as every
    /// case of a fuzz run is a pure function of its seed).
    fn generate(args: &ArGen, seed: u64) -> Night {
        let effects = args.effects.unwrap_or_else(|| {
            1 + (crate::harness::fuzz::splitmix64(seed) % args.max_effects.max(1) as u64) as usize
        });
        Night::of(&night(&args.params(effects), seed))
    }
    fn simplifications(n: &Night) -> Vec<Night> {
        shrink::candidates(&n.whole.ensemble)
            .iter()
            .filter(|e| !e.effects.is_empty())
            .map(Night::of)
            .collect()
    }
    fn size(n: &Night) -> usize {
        shrink::size(&n.whole.ensemble)
    }
    const SIZE_MEANS: &'static str = "effects + targets + players + modifiers + alignments \
                                      + the sum of the priorities";
    fn label(f: &Factored) -> String {
        f.classification().name().to_string()
    }
    fn summary(n: &Night, f: &Factored) -> String {
        describe_factored(n, f)
    }
    fn columns() -> Vec<&'static str> {
        vec![
            "classification",
            "resolutions",
            "optimal cuts",
            "components",
        ]
    }
    fn row(n: &Night, f: &Factored) -> Vec<String> {
        let t = f.totals(n);
        vec![
            f.classification().name().to_string(),
            t.resolutions.to_string(),
            t.optimal_cuts.to_string(),
            n.parts.len().to_string(),
        ]
    }
    fn to_json(n: &Night, f: &Factored) -> Value {
        super::answer::to_json(n, f, &super::answer::Options::default())
    }
    const SHAPE: Shape = Shape {
        sequences: &["final_targets", "targets"],
        maps: &["final_targets"],
        partial: &[],
    };
    /// Every flat list written out, up to [`PROTOCOL_FLAT`] entries (beyond, the
    /// factorised answer only: the resolver's lists are then not compared), without the
    /// presentation fields `expanded` and `truncated`.
    fn protocol_json(n: &Night, f: &Factored) -> Value {
        use super::answer::{flat_entries, Expand, Options};
        let expand = if flat_entries(n, f) <= PROTOCOL_FLAT.into() {
            Expand::Always
        } else {
            Expand::Never
        };
        let mut v = super::answer::to_json(
            n,
            f,
            &Options {
                expand,
                ..Options::default()
            },
        );
        if let Some(m) = v.as_object_mut() {
            m.remove("expanded");
            m.remove("truncated");
        }
        v
    }
    fn explain(n: &Night, f: &Factored) -> Option<String> {
        match super::why::explain::why_night(n, f, 256)? {
            Ok(text) => Some(text),
            Err(e) => Some(format!("(no explanation: {e})\n")),
        }
    }
    fn record(n: &Night, f: &Factored) -> Value {
        let t = f.totals(n);
        let cost = f.cost(n).map(|cost| {
            n.whole
                .levels()
                .iter()
                .zip(&cost)
                .map(|(p, k)| json!({"priority": p, "count": k}))
                .collect::<Vec<_>>()
        });
        // The cut lists themselves only while short; the count is always exact.
        let cuts = (cost.is_some() && t.optimal_cuts <= SUMMARY_FLAT.into()).then(|| {
            let flat = flatten(n, f);
            flat.cuts
                .map(|c| {
                    c.optimal
                        .iter()
                        .map(|(k, _)| sorted_ids(&n.whole, k.ones()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        });
        json!({
            "classification": f.classification().name(),
            "resolutions": t.resolutions.to_string(),
            "ways": t.ways.to_string(),
            "components": n.parts.len(),
            "optimal_cut_count": t.optimal_cuts.to_string(),
            "optimal_cuts": cuts,
            "cut_cost": cost,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Differential, Verdict};
    use crate::systems::spec::Budget;

    #[test]
    fn every_engine_agrees_on_the_mutual_roleblock() {
        let u = Ar::parse(Path::new("m.night"), "R1 block R2\nR2 block R1\n").unwrap();
        let c = Differential::<Ar>::all().compare(&u, &Budget::new());
        let names: Vec<_> = c.runs.iter().map(|r| r.engine).collect();
        assert_eq!(names, ["direct", "sat", "brute"]);
        let Verdict::Agree(a) = c.verdict() else {
            panic!("expected agreement")
        };
        assert_eq!(
            Ar::summary(&u, a),
            "quasi-paradox, 2 resolution(s), 2 way(s), S = {e1} | {e2}"
        );
        assert_eq!(Ar::record(&u, a)["classification"], "quasi-paradox");
    }

    #[test]
    fn an_empty_night_is_a_located_error() {
        let e = Ar::parse(Path::new("e.night"), "# nothing\n\nplayers: A B\n").unwrap_err();
        assert_eq!((e.0[0].line, e.0[0].col), (3, 1));
        assert!(e.0[0].message.contains("no effects"), "{}", e.0[0].message);
    }

    #[test]
    fn generated_nights_round_trip_through_the_text_format() {
        let args = ArGen {
            players: 5,
            max_effects: 9,
            passive_rate: 0.3,
            priority_levels: 3,
            ..ArGen::default()
        };
        for seed in 0..200 {
            let u = Ar::generate(&args, seed);
            assert!((1..=9).contains(&u.whole.ensemble.effects.len()));
            let back = Ar::parse(Path::new("g.night"), &Ar::to_text(&u)).unwrap();
            assert_eq!(Ar::to_text(&back), Ar::to_text(&u));
            for s in Ar::simplifications(&u) {
                assert!(Ar::size(&s) < Ar::size(&u));
            }
        }
    }
}
