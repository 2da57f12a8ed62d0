//! FFT turn flow as a [`System`]: `.fft` scenarios in; out, for every rule variant, the
//! enumerated outcomes, whether some run needs more quick turns than the bound, and which
//! query properties have a witness. The simulator's exhaustive search and the SAT bounded
//! model checker answer it independently and are compared in full.
//!
//! Invariants: both engines answer the same question for every variant in
//! [`Variant::ALL`] and every property in [`Property::ALL`]; a simplification drops one
//! thing (a slow action, a menu entry, a reaction, a mime job, a target) or lowers the
//! bound, so it is valid and strictly smaller by [`size`].

use super::gen::{scenario, ScenarioParams};
use super::model::{Scenario, Variant};
use super::search::{self, Property};
use super::simulate::Outcome;
use super::{encode, parse, variants};
use crate::systems::spec::Shape;
use crate::systems::spec::{Budget, Engine, Interrupted, System};
use crate::text::ParseErrors;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The FFT system.
pub struct Fft;

/// One variant's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VariantAnswer {
    /// The variant.
    pub variant: Variant,
    /// Every distinct outcome within the bound.
    pub outcomes: BTreeSet<Outcome>,
    /// Some choice sequence needs more quick turns than the bound.
    pub exceeds_bound: bool,
    /// The properties with a witness run within the bound.
    pub witnessed: Vec<Property>,
}

/// An engine's whole answer: one entry per variant, in [`Variant::ALL`] order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FftAnswer {
    /// Per variant.
    pub variants: Vec<VariantAnswer>,
}

impl FftAnswer {
    /// The answer of one variant.
    pub(crate) fn of(&self, v: Variant) -> &VariantAnswer {
        self.variants
            .iter()
            .find(|a| a.variant == v)
            .expect("every variant is answered")
    }
}

struct Simulator;
struct Sat;

fn answer(
    sc: &Scenario,
    budget: &Budget,
    enumerate: impl Fn(Variant) -> Result<search::Enumerated, Interrupted>,
    witness: impl Fn(Variant, Property) -> Result<bool, Interrupted>,
) -> Result<FftAnswer, Interrupted> {
    let _ = sc;
    let mut variants = Vec::new();
    for v in Variant::ALL {
        budget.check()?;
        let e = enumerate(v)?;
        let mut witnessed = Vec::new();
        for p in Property::ALL {
            if witness(v, p)? {
                witnessed.push(p);
            }
        }
        variants.push(VariantAnswer {
            variant: v,
            outcomes: e.outcomes,
            exceeds_bound: e.exceeds_bound,
            witnessed,
        });
    }
    Ok(FftAnswer { variants })
}

impl Engine<Scenario, FftAnswer> for Simulator {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<FftAnswer, Interrupted> {
        answer(
            sc,
            budget,
            |v| search::enumerate(sc, v, budget),
            |v, p| Ok(search::query(sc, v, p, budget)?.is_some()),
        )
    }
}

impl Engine<Scenario, FftAnswer> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<FftAnswer, Interrupted> {
        answer(
            sc,
            budget,
            |v| encode::enumerate(sc, v, budget),
            |v, p| Ok(encode::query(sc, v, p, budget)?.is_some()),
        )
    }
}

/// Every one-step simplification of a scenario (each still valid).
pub fn simplifications(sc: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut Scenario)| {
        let mut s = sc.clone();
        f(&mut s);
        out.push(s);
    };
    for i in 0..sc.slow.len() {
        push(&|s| {
            s.slow.remove(i);
        });
    }
    for i in 0..sc.menus.mime_targets.len() {
        push(&|s| {
            s.menus.mime_targets.remove(i);
        });
    }
    for i in 0..sc.menus.quick.len() {
        push(&|s| {
            s.menus.quick.remove(i);
        });
    }
    for &c in sc.menus.mime_targets_for.keys() {
        push(&|s| {
            s.menus.mime_targets_for.remove(&c);
        });
    }
    for &c in sc.menus.quick_for.keys() {
        push(&|s| {
            s.menus.quick_for.remove(&c);
        });
    }
    if sc.menus.bound > 0 {
        push(&|s| s.menus.bound -= 1);
    }
    for (c, ch) in sc.characters.iter().enumerate() {
        if ch.reaction.is_some() {
            push(&|s| s.characters[c].reaction = None);
        }
        if ch.mime {
            push(&|s| s.characters[c].mime = false);
        }
    }
    for i in 0..sc.slow.len() {
        for j in 0..sc.slow[i].targets.len() {
            push(&|s| {
                s.slow[i].targets.remove(j);
            });
        }
    }
    out
}

/// The measure every simplification decreases: slow actions, their targets, menu entries,
/// per-character menus, the bound, reactions and mime jobs.
pub fn size(sc: &Scenario) -> usize {
    sc.slow.len()
        + sc.slow.iter().map(|a| a.targets.len()).sum::<usize>()
        + sc.menus.mime_targets.len()
        + sc.menus.quick.len()
        + sc.menus.mime_targets_for.len()
        + sc.menus.quick_for.len()
        + sc.menus.bound
        + sc.characters
            .iter()
            .filter(|c| c.reaction.is_some())
            .count()
        + sc.characters.iter().filter(|c| c.mime).count()
}

/// Which variants explain the scenario's log (`none`, or `(no log)`).
pub fn explained_by(sc: &Scenario) -> String {
    let Some(log) = &sc.log else {
        return "(no log)".to_string();
    };
    let ok: Vec<&str> = variants::compare(sc, log)
        .iter()
        .filter(|(_, r)| r.explains())
        .map(|(v, _)| v.name())
        .collect();
    if ok.is_empty() {
        "none".to_string()
    } else {
        ok.join(",")
    }
}

impl System for Fft {
    const NAME: &'static str = "fft";
    const EXTENSIONS: &'static [&'static str] = &["fft"];
    const NOUN: &'static str = "scenario";
    type Instance = Scenario;
    type Answer = FftAnswer;
    type GenArgs = ScenarioParams;

    fn parse(file: &Path, text: &str) -> Result<Scenario, ParseErrors> {
        let sc = parse::parse_fft(text, file)?;
        if sc.characters.is_empty() {
            return Err(crate::text::Sink::one(
                text,
                file,
                1,
                1,
                "the scenario has no characters: nothing to run (declare them with `char \
                 NAME team TEAM` lines, see instances/fft/README.md)",
            ));
        }
        Ok(sc)
    }
    fn to_text(sc: &Scenario) -> String {
        parse::to_fft(sc)
    }
    fn engines() -> Vec<Box<dyn Engine<Scenario, FftAnswer> + Send + Sync>> {
        vec![Box::new(Simulator), Box::new(Sat)]
    }
    fn generate(args: &ScenarioParams, seed: u64) -> Scenario {
        scenario(args, seed)
    }
    fn simplifications(sc: &Scenario) -> Vec<Scenario> {
        simplifications(sc)
    }
    fn size(sc: &Scenario) -> usize {
        size(sc)
    }
    fn label(a: &FftAnswer) -> String {
        if a.of(Variant::Final).exceeds_bound {
            "exceeds bound".to_string()
        } else {
            "within bound".to_string()
        }
    }
    fn summary(_: &Scenario, a: &FftAnswer) -> String {
        a.variants
            .iter()
            .map(|v| {
                let w: Vec<&str> = v.witnessed.iter().map(|p| p.name()).collect();
                format!(
                    "{}: {} outcome(s){}, witnesses [{}]",
                    v.variant.name(),
                    v.outcomes.len(),
                    if v.exceeds_bound {
                        " (exceeds bound)"
                    } else {
                        ""
                    },
                    w.join(" ")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
    fn columns() -> Vec<&'static str> {
        vec!["outcomes (final)", "log explained by"]
    }
    fn row(sc: &Scenario, a: &FftAnswer) -> Vec<String> {
        vec![
            a.of(Variant::Final).outcomes.len().to_string(),
            explained_by(sc),
        ]
    }
    const SHAPE: Shape = Shape {
        sequences: &["log", "next_cr", "flags", "targets"],
        maps: &[],
        partial: &[("variants", "variant")],
    };
    fn to_json(_: &Scenario, a: &FftAnswer) -> Value {
        serde_json::to_value(a).expect("answers serialise")
    }
    fn record(sc: &Scenario, a: &FftAnswer) -> Value {
        let per: serde_json::Map<String, Value> = a
            .variants
            .iter()
            .map(|v| {
                (
                    v.variant.name().to_string(),
                    json!({
                        "outcomes": v.outcomes.len(),
                        "exceeds_bound": v.exceeds_bound,
                        "witnessed": v.witnessed,
                    }),
                )
            })
            .collect();
        json!({"variants": per, "log_explained_by": explained_by(sc)})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::fuzz::shrink;
    use crate::systems::fft::model::{Menus, SlowAction};

    #[test]
    fn shrinking_keeps_only_what_the_failure_needs() {
        // A planted "failure": the scenario has a slow action by C2 and a mime. The shrunk
        // scenario must keep exactly one slow action (C2's) and one mime, nothing else.
        let mut sc = scenario(&ScenarioParams::default(), 7);
        sc.characters[0].mime = true;
        sc.characters[1].reaction = Some(super::super::model::Reaction::CounterMagic);
        sc.slow = vec![
            SlowAction {
                actor: 1,
                action: 0,
                targets: vec![0, 2],
            },
            SlowAction {
                actor: 3,
                action: 2,
                targets: vec![],
            },
        ];
        sc.menus = Menus {
            mime_targets: vec![vec![1]],
            quick: vec![],
            bound: 3,
            ..Menus::default()
        };
        let fails = |s: &Scenario| {
            s.slow.iter().any(|a| a.actor == 1) && s.characters.iter().any(|c| c.mime)
        };
        let small = shrink::<Fft>(&sc, fails);
        assert!(fails(&small));
        assert_eq!(small.slow.len(), 1);
        assert!(small.slow[0].targets.is_empty());
        assert_eq!(small.characters.iter().filter(|c| c.mime).count(), 1);
        assert!(small.characters.iter().all(|c| c.reaction.is_none()));
        assert!(small.menus.mime_targets.is_empty() && small.menus.bound == 0);
    }

    #[test]
    fn simplifications_are_smaller() {
        for seed in 0..100 {
            let sc = Fft::generate(
                &ScenarioParams {
                    slow: 3,
                    ..ScenarioParams::default()
                },
                seed,
            );
            for s in simplifications(&sc) {
                assert!(size(&s) < size(&sc));
            }
        }
    }
}
