//! The Lancer Tactics event system: nested triggers, interrupts and aborts. Every distinct
//! outcome (event tree and final unit states) of a scenario's initiating action under its
//! policy, and the properties they show: which units can be destroyed, whether the
//! action can be cancelled, whether an event can be aborted after an effect was applied.
//! The rules and decisions: `docs/lancer.md`; the `.lancer` format:
//! `instances/lancer/README.md`.
//!
//! ```
//! use gordian::lancer;
//! use gordian::Limits;
//!
//! // The seed's first example (instances/lancer/seed-1-aggression.lancer): the Tokugawa
//! // attacks the Berserker, whose Aggression hits back on a hit. Worked by hand: three
//! // outcomes (a miss; a hit and a miss back; two hits), nobody destroyed, never
//! // cancelled, and Aggression fires in two of them.
//! let scenario = lancer::Scenario::parse(
//!     "unit Tokugawa side player hp 6 structure 2 at 0 0\n\
//!      unit Berserker side enemy hp 8 structure 1 at 1 0 npc\n\
//!      weapon ChargedBlade damage 3\n\
//!      weapon Claws damage 2\n\
//!      reaction Aggression of Berserker on attack target hit followup attack Claws at source once\n\
//!      action Tokugawa activate ChargedBlade at Berserker\n",
//! )?;
//! let answer = lancer::solve(&scenario, &Limits::default())?;
//! assert_eq!(answer.outcome_count(), 3);
//! assert!(answer.destroyable().is_empty());
//! assert!(!answer.action_cancellable() && !answer.aborted_after_effect());
//! assert_eq!(answer.fired(), ["Aggression"]);
//! assert_eq!(answer.policy(), "seed");
//! # Ok::<(), gordian::Error>(())
//! ```

use super::{Error, Limits, Solved};
use crate::systems::lancer::model;
use crate::systems::lancer::search::Property;
use crate::systems::lancer::system::{self as sys, Lancer};
use crate::systems::spec::System;
use std::sync::Arc;

pub use crate::systems::lancer::gen::GenArgs as Knobs;

instance! {
    /// A scenario: units, weapons, reactions, the initiating action and the policy.
    pub struct Scenario(Lancer, model::Scenario);
    parse: "Parses a scenario in the `.lancer` format; errors are located in `<text>`.",
    from_file: "Reads and parses a `.lancer` file; errors name the file.",
    to_text: "The scenario in the `.lancer` format ([`Scenario::parse`] reads it back).",
    generate: "A random scenario: `gordian gen --system lancer` with the flags that set \
        `knobs` writes `generate(&knobs, case_seed(SEED, i))` as its instance `i` \
        ([`crate::case_seed`]).",
}

/// Enumerates every distinct outcome under the scenario's policy with the engines of
/// `limits` (by default the simulator's search and SAT projected enumeration in
/// parallel, compared).
pub fn solve(scenario: &Scenario, limits: &Limits) -> Result<Answer, Error> {
    Ok(Answer {
        scenario: scenario.inner.clone(),
        solved: super::solve::<Lancer>(&scenario.inner, limits)?,
    })
}

/// A scenario's answer: every distinct outcome under its policy.
#[derive(Clone, Debug)]
pub struct Answer {
    scenario: Arc<model::Scenario>,
    solved: Solved<sys::Answer>,
}

impl Answer {
    /// The number of distinct outcomes.
    pub fn outcome_count(&self) -> usize {
        self.solved.answer.outcomes.len()
    }

    /// The policy the outcomes are under (`seed`, `seed-any-brace`, `naive`,
    /// `naive-any-brace`).
    pub fn policy(&self) -> &'static str {
        self.solved.answer.policy.name()
    }

    /// The units that end destroyed in some outcome, in unit order.
    pub fn destroyable(&self) -> Vec<String> {
        self.solved.answer.destroyable()
    }

    /// Whether an event of the initiating action is aborted in some outcome.
    pub fn action_cancellable(&self) -> bool {
        self.solved.answer.any(Property::ActionCancelled)
    }

    /// Whether in some outcome an event is aborted after an effect of the same origin
    /// was applied.
    pub fn aborted_after_effect(&self) -> bool {
        self.solved.answer.any(Property::AbortedAfterEffect)
    }

    /// The reactions that fire in some outcome, in reaction order.
    pub fn fired(&self) -> Vec<String> {
        let a = &self.solved.answer;
        (0..a.reactions.len())
            .filter(|&r| a.any(Property::Fires(r)))
            .map(|r| a.reactions[r].clone())
            .collect()
    }

    /// Whether two engines answered and their answers are equal.
    pub fn cross_checked(&self) -> bool {
        self.solved.cross_checked
    }

    /// The engines that answered (`direct`, `sat`).
    pub fn engines(&self) -> &[&'static str] {
        &self.solved.engines
    }

    /// The answer as JSON: `policy` and `outcomes`, each outcome its events in
    /// resolution order (with parents) and the final unit states.
    pub fn to_json(&self) -> serde_json::Value {
        Lancer::to_json(&self.scenario, &self.solved.answer)
    }
}

/// One line: the number of outcomes and the properties they show.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&Lancer::summary(&self.scenario, &self.solved.answer))
    }
}
