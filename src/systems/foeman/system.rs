//! `impl System for Foeman`: how the generic harness (`check`, `fuzz`, `batch`) sees this
//! system — parse/print, the two engines (direct search first, then SAT), the generator,
//! the shrinker's simplifications and the summaries.
//!
//! Invariants: both engines answer the whole [`Answer`] (every reachable side order and
//! Action-phase outcome); every simplification is valid and strictly smaller by [`size`].

use super::model::{Answer, Postpone, Scenario};
use super::{encode, gen, parse, search};
use crate::systems::spec::Shape;
use crate::systems::spec::{Budget, Engine, Interrupted, System};
use crate::text::ParseErrors;
use std::path::Path;

/// The Foeman initiative and Action-segment system.
#[derive(Clone, Copy, Debug, Default)]
pub struct Foeman;

/// The direct engine: exhaustive simulation ([`search::enumerate`]).
pub struct Direct;
/// The SAT engine: bounded encoding and projected enumeration ([`encode::enumerate`]).
pub struct Sat;

impl Engine<Scenario, Answer> for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        search::enumerate(sc, budget).map(|e| e.answer())
    }
}

impl Engine<Scenario, Answer> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        encode::enumerate(sc, budget)
    }
}

/// The shrinker's measure: sides + figures + choice entries + roll/postpone flags.
pub fn size(sc: &Scenario) -> usize {
    sc.sides.len()
        + sc.sides
            .iter()
            .filter(|s| !matches!(s.ini, super::model::Ini::Fixed(_)))
            .count()
        + sc.sides
            .iter()
            .filter(|s| s.postpone != Postpone::No)
            .count()
        + sc.figures
            .iter()
            .map(|f| 1 + f.plan.iter().map(|set| set.len()).sum::<usize>())
            .sum::<usize>()
}

impl System for Foeman {
    const NAME: &'static str = "foeman";
    const EXTENSIONS: &'static [&'static str] = &["foeman"];
    const NOUN: &'static str = "round";
    type Instance = Scenario;
    type Answer = Answer;
    type GenArgs = gen::GenArgs;

    fn parse(file: &Path, text: &str) -> Result<Scenario, ParseErrors> {
        parse::parse(file, text)
    }

    fn to_text(sc: &Scenario) -> String {
        parse::to_text(sc)
    }

    fn engines() -> Vec<Box<dyn Engine<Scenario, Answer> + Send + Sync>> {
        vec![Box::new(Direct), Box::new(Sat)]
    }

    fn generate(args: &gen::GenArgs, seed: u64) -> Scenario {
        gen::generate(args, seed)
    }

    fn simplifications(sc: &Scenario) -> Vec<Scenario> {
        let mut out = Vec::new();
        // Drop a figure.
        for i in 0..sc.figures.len() {
            let mut s = sc.clone();
            s.figures.remove(i);
            out.push(s);
        }
        // Drop a side without figures (re-indexing the rest).
        for i in 0..sc.sides.len() {
            if sc.sides.len() > 1 && sc.figures.iter().all(|f| f.side != i) {
                let mut s = sc.clone();
                s.sides.remove(i);
                for f in &mut s.figures {
                    if f.side > i {
                        f.side -= 1;
                    }
                }
                out.push(s);
            }
        }
        // Fix a rolled initiative; drop a postponement.
        for i in 0..sc.sides.len() {
            if let super::model::Ini::Roll(m) = sc.sides[i].ini {
                let mut s = sc.clone();
                s.sides[i].ini = super::model::Ini::Fixed(m + 3);
                out.push(s);
            }
            if sc.sides[i].postpone != Postpone::No {
                let mut s = sc.clone();
                s.sides[i].postpone = Postpone::No;
                out.push(s);
            }
        }
        // Drop a choice set or a choice.
        for (fi, f) in sc.figures.iter().enumerate() {
            for k in 0..f.plan.len() {
                if f.plan.len() > 1 {
                    let mut s = sc.clone();
                    s.figures[fi].plan.remove(k);
                    out.push(s);
                }
                for c in 0..f.plan[k].len() {
                    if f.plan[k].len() > 1 {
                        let mut s = sc.clone();
                        s.figures[fi].plan[k].remove(c);
                        out.push(s);
                    }
                }
            }
        }
        out
    }

    fn size(sc: &Scenario) -> usize {
        size(sc)
    }

    fn label(a: &Answer) -> String {
        if a.actions.iter().any(|o| !o.watching.is_empty()) {
            "watchers-remain".into()
        } else if a.side_orders.len() > 1 || a.actions.len() > 1 {
            "branching".into()
        } else {
            "determined".into()
        }
    }

    fn summary(_: &Scenario, a: &Answer) -> String {
        format!(
            "{} side order(s), {} action outcome(s)",
            a.side_orders.len(),
            a.actions.len()
        )
    }

    fn columns() -> Vec<&'static str> {
        vec!["side orders", "action outcomes", "shape"]
    }

    fn row(_: &Scenario, a: &Answer) -> Vec<String> {
        vec![
            a.side_orders.len().to_string(),
            a.actions.len().to_string(),
            Self::label(a),
        ]
    }

    const SHAPE: Shape = Shape {
        sequences: &["side_orders[]", "order"],
        maps: &[],
        partial: &[],
    };
    fn to_json(_: &Scenario, a: &Answer) -> serde_json::Value {
        serde_json::to_value(a).expect("answers serialise")
    }

    fn record(_: &Scenario, a: &Answer) -> serde_json::Value {
        serde_json::json!({
            "side_orders": a.side_orders.len(),
            "action_outcomes": a.actions.len(),
            "watchers_remain": a.actions.iter().any(|o| !o.watching.is_empty()),
        })
    }
}
