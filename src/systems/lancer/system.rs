//! `impl System for Lancer`: how the generic harness (check, fuzz, batch) sees the Lancer
//! event system. The answer is the full sorted outcome set under the scenario's policy.
//!
//! Invariants: both engines answer the same question (every distinct outcome under
//! `scenario.policy`), so their answers are compared with `==`.

use super::model::{Outcome, Policy, Scenario};
use super::search::Property;
use super::{encode, gen, parse, search};
use crate::systems::spec::Shape;
use crate::systems::spec::{Budget, Engine, Interrupted, System};
use serde::Serialize;
use serde_json::{json, Value};

/// The Lancer event system.
#[derive(Clone, Copy, Debug)]
pub struct Lancer;

/// Every distinct outcome of a scenario under its policy, with the names needed to read
/// them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The policy used.
    pub policy: Policy,
    /// Unit names, in unit order.
    pub units: Vec<String>,
    /// Reaction names, in reaction order.
    pub reactions: Vec<String>,
    /// Every distinct outcome, sorted.
    pub outcomes: Vec<Outcome>,
    /// The scenario (properties read its reactions: which events start an instance).
    #[serde(skip_serializing)]
    scenario: std::sync::Arc<Scenario>,
}

impl Answer {
    fn new(sc: &Scenario, outcomes: Vec<Outcome>) -> Answer {
        Answer {
            policy: sc.policy,
            units: sc.units.iter().map(|u| u.name.clone()).collect(),
            reactions: sc.reactions.iter().map(|r| r.name.clone()).collect(),
            outcomes,
            scenario: std::sync::Arc::new(sc.clone()),
        }
    }
    /// Whether some outcome has the property.
    pub(crate) fn any(&self, p: Property) -> bool {
        self.outcomes.iter().any(|o| p.holds(&self.scenario, o))
    }
    /// The units that can end destroyed.
    pub(crate) fn destroyable(&self) -> Vec<String> {
        (0..self.units.len())
            .filter(|&u| self.any(Property::Destroyed(u)))
            .map(|u| self.units[u].clone())
            .collect()
    }
}

/// The simulator's exhaustive search.
pub struct Direct;
/// SAT projected enumeration.
pub struct Sat;

impl Engine<Scenario, Answer> for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        Ok(Answer::new(sc, search::outcomes(sc, sc.policy, budget)?))
    }
}

impl Engine<Scenario, Answer> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        Ok(Answer::new(sc, encode::outcomes(sc, sc.policy, budget)?))
    }
}

impl System for Lancer {
    const NAME: &'static str = "lancer";
    const EXTENSIONS: &'static [&'static str] = &["lancer"];
    const NOUN: &'static str = "scenario";
    type Instance = Scenario;
    type Answer = Answer;
    type GenArgs = gen::GenArgs;

    fn parse(file: &std::path::Path, text: &str) -> Result<Scenario, crate::text::ParseErrors> {
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
        gen::simplifications(sc)
    }
    fn size(sc: &Scenario) -> usize {
        gen::size(sc)
    }
    fn label(a: &Answer) -> String {
        if a.any(Property::AbortedAfterEffect) {
            "applied-then-aborted".into()
        } else if a.any(Property::ActionCancelled) {
            "cancellable".into()
        } else {
            "never-cancelled".into()
        }
    }
    fn summary(_: &Scenario, a: &Answer) -> String {
        let d = a.destroyable();
        format!(
            "{} outcome(s) under {}; can be destroyed: {}; action cancellable: {}; aborted after an effect: {}",
            a.outcomes.len(),
            a.policy.name(),
            if d.is_empty() { "none".into() } else { d.join(", ") },
            if a.any(Property::ActionCancelled) { "yes" } else { "no" },
            if a.any(Property::AbortedAfterEffect) { "yes" } else { "no" },
        )
    }
    fn columns() -> Vec<&'static str> {
        vec![
            "policy",
            "outcomes",
            "destroyable",
            "cancelled",
            "aborted-after-effect",
        ]
    }
    fn row(_: &Scenario, a: &Answer) -> Vec<String> {
        let d = a.destroyable();
        let yn = |b: bool| if b { "yes" } else { "no" }.to_string();
        vec![
            a.policy.name().to_string(),
            a.outcomes.len().to_string(),
            if d.is_empty() {
                "-".into()
            } else {
                d.join(",")
            },
            yn(a.any(Property::ActionCancelled)),
            yn(a.any(Property::AbortedAfterEffect)),
        ]
    }
    const SHAPE: Shape = Shape {
        sequences: &["events", "units", "at", "to", "target", "targets"],
        maps: &[],
        partial: &[],
    };
    fn to_json(sc: &Scenario, a: &Answer) -> Value {
        json!({
            "policy": a.policy.name(),
            "outcomes": a.outcomes.iter().map(|o| super::report::outcome_json(sc, o)).collect::<Vec<_>>(),
        })
    }
    fn record(_: &Scenario, a: &Answer) -> Value {
        let fired: Vec<&String> = (0..a.reactions.len())
            .filter(|&r| a.any(Property::Fires(r)))
            .map(|r| &a.reactions[r])
            .collect();
        json!({
            "policy": a.policy.name(),
            "outcomes": a.outcomes.len(),
            "destroyable": a.destroyable(),
            "action_cancelled": a.any(Property::ActionCancelled),
            "aborted_after_effect": a.any(Property::AbortedAfterEffect),
            "fired": fired,
            "truncated": a.outcomes.iter().any(|o| o.truncated),
        })
    }
}
