//! `impl System for Ff8`: the harness's view of the FF8 system. An instance is a
//! scenario; the answer is the set of states reachable within the scenario's horizon and
//! whether its goal can hold there. The direct engine explores the exact distributions'
//! supports; the SAT engine enumerates the unrolled circuit's projected models and asks
//! the goal query separately (so the goal answer is a second, independent comparison).
//!
//! Invariant: a SAT goal witness is replayed through the simulator before it is believed
//! (a witness the simulator rejects is reported as a `false` goal, so it disagrees).

use super::encode::Encoding;
use super::gen::{self, GenArgs};
use super::model::*;
use super::parse;
use super::reach::Reach;
use super::search;
use super::simulate::{challenge, PerSite};
use crate::systems::spec::Shape;
use crate::systems::spec::{Budget, Charged, Engine, Interrupted, System};
use crate::text::ParseErrors;
use serde::Serialize;

/// The FF8 rule-spreading system.
pub struct Ff8;

/// The comparable answer of both engines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// Every state reachable within the horizon (the start included), as a union of
    /// products in canonical form (so `==` compares the sets without listing them); as
    /// JSON, the states sorted.
    pub states: Reach,
    /// Whether the goal can hold within the horizon (None without a goal).
    pub goal: Option<bool>,
}

/// The direct engine (exact distributions' supports).
pub struct Direct;
/// The SAT engine (bounded unrolling, projected enumeration).
pub struct Sat;

impl Engine<Scenario, Answer> for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        let states = search::reachable(sc, budget)?;
        let goal = sc.goal.as_ref().map(|g| states.any(|s| g.holds(s)));
        Ok(Answer { states, goal })
    }
}

/// Replays a SAT witness through the simulator: the final state, if every challenge was
/// valid where it was taken.
pub fn replay_witness(sc: &Scenario, w: &super::encode::Witness) -> Option<State> {
    let mut s = sc.state;
    for (c, bytes) in w.challenges.iter().zip(&w.site_bytes) {
        if !c.valid_in(&s) {
            return None;
        }
        let mut d = PerSite {
            bytes: *bytes,
            used: Vec::new(),
        };
        challenge(&mut s, c, &mut d);
    }
    Some(s)
}

impl Engine<Scenario, Answer> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
        let mut clauses = Charged::new(budget, "SAT clauses");
        let mut enc = Encoding::within(sc, &mut clauses)?;
        let states = enc.reachable(budget)?;
        let goal = match &sc.goal {
            None => None,
            Some(g) => Some(match enc.query(budget)? {
                None => false,
                Some(w) => replay_witness(sc, &w).is_some_and(|s| g.holds(&s)),
            }),
        };
        Ok(Answer { states, goal })
    }
}

impl System for Ff8 {
    const NAME: &'static str = "ff8";
    const EXTENSIONS: &'static [&'static str] = &["ff8"];
    const NOUN: &'static str = "scenario";
    type Instance = Scenario;
    type Answer = Answer;
    type GenArgs = GenArgs;

    fn parse(file: &std::path::Path, text: &str) -> Result<Scenario, ParseErrors> {
        let has_content = crate::text::lex::lines(crate::text::lex::strip_bom(text))
            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        if !has_content {
            // Every field has a default, but an empty file is far more likely a mistake
            // than a request for the default state: say so instead of answering.
            return Err(crate::text::Sink::one(
                text,
                file,
                1,
                1,
                "the scenario is empty: write at least one line (for the default state, \
                 e.g. `current: Balamb`; see instances/ff8/README.md)",
            ));
        }
        parse::parse_ff8(text, file)
    }
    fn to_text(instance: &Scenario) -> String {
        parse::to_text(instance)
    }
    fn engines() -> Vec<Box<dyn Engine<Scenario, Answer> + Send + Sync>> {
        vec![Box::new(Direct), Box::new(Sat)]
    }
    fn generate(args: &GenArgs, seed: u64) -> Scenario {
        gen::generate(args, seed)
    }
    fn simplifications(sc: &Scenario) -> Vec<Scenario> {
        let mut out = Vec::new();
        if sc.challenges.is_empty() && sc.bound > 0 {
            let mut s = sc.clone();
            s.bound -= 1;
            out.push(s);
        }
        if !sc.challenges.is_empty() {
            let mut s = sc.clone();
            s.challenges.pop();
            s.bound = s.challenges.len().max(1).min(sc.bound);
            if s.challenges.is_empty() {
                s.bound = 0;
            }
            out.push(s);
        }
        if sc.allowed.len() > 1 {
            for i in 0..sc.allowed.len() {
                let mut s = sc.clone();
                let r = s.allowed.remove(i);
                if s.challenges.iter().all(|c| c.region != r) {
                    out.push(s);
                }
            }
        }
        if let Some(g) = &sc.goal {
            let mut s = sc.clone();
            s.goal = None;
            out.push(s);
            if g.0.len() > 1 {
                for i in 0..g.0.len() {
                    let mut s = sc.clone();
                    if let Some(g2) = s.goal.as_mut() {
                        g2.0.remove(i);
                    }
                    out.push(s);
                }
            }
        }
        if sc.state.amount > 0 {
            let mut s = sc.clone();
            s.state.amount = 0;
            out.push(s);
        }
        if sc.state.points > 0 {
            let mut s = sc.clone();
            s.state.points = 0;
            out.push(s);
        }
        out.retain(|s| Self::size(s) < Self::size(sc));
        out
    }
    fn size(sc: &Scenario) -> usize {
        sc.horizon() * 1000
            + sc.challenges.len() * 100
            + sc.allowed.len() * 20
            + sc.goal.as_ref().map_or(0, |g| 1 + g.0.len())
            + usize::from(sc.state.amount)
            + usize::from(sc.state.points > 0)
    }
    fn label(answer: &Answer) -> String {
        match answer.goal {
            None => "no goal".into(),
            Some(true) => "goal reachable".into(),
            Some(false) => "goal unreachable".into(),
        }
    }
    fn summary(_: &Scenario, answer: &Answer) -> String {
        let g = match answer.goal {
            None => String::new(),
            Some(b) => format!(", goal {}", if b { "reachable" } else { "unreachable" }),
        };
        format!("{} reachable state(s){g}", answer.states.len())
    }
    fn columns() -> Vec<&'static str> {
        vec!["reachable states", "goal"]
    }
    fn row(_: &Scenario, answer: &Answer) -> Vec<String> {
        let goal = match answer.goal {
            None => "-",
            Some(true) => "reachable",
            Some(false) => "unreachable",
        };
        vec![answer.states.len().to_string(), goal.to_string()]
    }
    const SHAPE: Shape = Shape {
        sequences: &["rules", "trade", "carried"],
        maps: &[],
        partial: &[],
    };
    fn to_json(sc: &Scenario, answer: &Answer) -> serde_json::Value {
        let mut v = serde_json::to_value(answer).expect("answers serialise");
        let rows = guessed_rows_in_play(sc, sc.horizon());
        if !rows.is_empty() {
            v["guessed_chart_rows"] = serde_json::json!(rows);
        }
        v
    }
    fn record(_: &Scenario, answer: &Answer) -> serde_json::Value {
        serde_json::json!({ "reachable": answer.states.len(), "goal": answer.goal })
    }
}
