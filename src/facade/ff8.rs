//! FF8 card rules (Final Fantasy VIII's Triple Triad): carried, mixed, spread and
//! abolished rules, trade rules and the Queen of Cards. Every state reachable within a
//! scenario's bound of challenges, and whether its goal can hold there. The rules and
//! decisions: `docs/ff8.md`; the `.ff8` format: `instances/ff8/README.md`.
//!
//! ```
//! use gordian::ff8;
//! use gordian::Limits;
//!
//! // instances/ff8/queen_moves.ff8: playing the Queen in Balamb and changing her Lv8+
//! // count moves her to Dollet (getRandom / 32 in 0..2) or Galbadia (3..7): worked by
//! // hand from the published chart figures (docs/ff8.md), "the Queen in Dollet" is
//! // reachable.
//! let moves = ff8::Scenario::parse(
//!     "allow: Balamb\nchallenge: Balamb queen play-lv8\ngoal: queen in Dollet\n",
//! )?;
//! assert_eq!(ff8::solve(&moves, &Limits::default())?.goal_reachable(), Some(true));
//!
//! // instances/ff8/unreachable.ff8: nothing Squall carries has Same, and Balamb only
//! // gains carried rules, so within two challenges Balamb cannot have Same.
//! let same = ff8::Scenario::parse("allow: Balamb\nbound: 2\ngoal: Balamb has Same\n")?;
//! assert_eq!(ff8::solve(&same, &Limits::default())?.goal_reachable(), Some(false));
//! # Ok::<(), gordian::Error>(())
//! ```

use super::{Error, Limits, Solved};
use crate::systems::ff8::model;
use crate::systems::ff8::system::{self as sys, Ff8};
use crate::systems::spec::System;
use std::sync::Arc;

pub use crate::systems::ff8::gen::GenArgs as Knobs;

instance! {
    /// A scenario: the state (regions' rules and trade rules, carried rules, trading,
    /// points, the Queen, Squall), the regions Squall may challenge in, the bound or a fixed
    /// sequence of challenges, and optionally a goal.
    pub struct Scenario(Ff8, model::Scenario);
    parse: "Parses a scenario in the `.ff8` format; errors are located in `<text>`.",
    from_file: "Reads and parses a `.ff8` file; errors name the file.",
    to_text: "The scenario in the `.ff8` format ([`Scenario::parse`] reads it back).",
    generate: "A random scenario: `gordian gen --system ff8` with the flags that set \
        `knobs` writes `generate(&knobs, case_seed(SEED, i))` as its instance `i` \
        ([`crate::case_seed`]).",
}

/// Finds every state reachable within the scenario's challenges and whether its goal can
/// hold, with the engines of `limits` (by default the exact distributions' supports and
/// the SAT unrolling in parallel, compared; a SAT goal witness is replayed by the
/// simulator before it counts).
pub fn solve(scenario: &Scenario, limits: &Limits) -> Result<Answer, Error> {
    Ok(Answer {
        scenario: scenario.inner.clone(),
        solved: super::solve::<Ff8>(&scenario.inner, limits)?,
    })
}

/// A scenario's answer: the reachable states and whether the goal can hold.
#[derive(Clone, Debug)]
pub struct Answer {
    scenario: Arc<model::Scenario>,
    solved: Solved<sys::Answer>,
}

impl Answer {
    /// The number of states reachable within the scenario's challenges, the start
    /// included.
    pub fn reachable_state_count(&self) -> u64 {
        self.solved.answer.states.len()
    }

    /// Whether the goal holds in some reachable state (`None`: the scenario has no
    /// goal).
    pub fn goal_reachable(&self) -> Option<bool> {
        self.solved.answer.goal
    }

    /// Whether two engines answered and their answers are equal.
    pub fn cross_checked(&self) -> bool {
        self.solved.cross_checked
    }

    /// The engines that answered (`direct`, `sat`).
    pub fn engines(&self) -> &[&'static str] {
        &self.solved.engines
    }

    /// The answer as JSON: `states` (every reachable state, sorted) and `goal`.
    pub fn to_json(&self) -> serde_json::Value {
        Ff8::to_json(&self.scenario, &self.solved.answer)
    }
}

/// One line: the number of reachable states and the goal.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&Ff8::summary(&self.scenario, &self.solved.answer))
    }
}
