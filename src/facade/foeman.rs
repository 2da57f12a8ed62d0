//! Foeman rounds: side initiative (sequential tie-break dice, postponement) and the
//! Action phase's segments (figures polled by modDX, supervention, Watch). Every
//! reachable side order and every reachable Action-phase outcome of one round. The rules
//! and decisions: `docs/foeman.md`; the `.foeman` format: `instances/foeman/README.md`.
//!
//! ```
//! use gordian::foeman;
//! use gordian::Limits;
//!
//! // instances/foeman/initiative_tie.foeman: A, B and C tie at 5, D has 6. Worked by
//! // hand from sidMov(): D moves first, then a fair draw orders A, B and C: six side
//! // orders, all starting with D. No figures: one (empty) Action-phase outcome.
//! let round = foeman::Scenario::parse(
//!     "side A ini 5\nside B ini 5\nside C ini 5\nside D ini 6\n",
//! )?;
//! let answer = foeman::solve(&round, &Limits::default())?;
//! let orders = answer.side_orders();
//! assert_eq!(orders.len(), 6);
//! assert!(orders.iter().all(|o| o[0] == "D"));
//! assert_eq!(answer.action_outcome_count(), 1);
//! # Ok::<(), gordian::Error>(())
//! ```

use super::{Error, Limits, Solved};
use crate::systems::foeman::model;
use crate::systems::foeman::system::Foeman;
use crate::systems::spec::System;
use std::sync::Arc;

pub use crate::systems::foeman::gen::GenArgs as Knobs;

instance! {
    /// One round: the sides with their initiative, the figures with their modDX and plans.
    pub struct Scenario(Foeman, model::Scenario);
    parse: "Parses a round in the `.foeman` format; errors are located in `<text>`.",
    from_file: "Reads and parses a `.foeman` file; errors name the file.",
    to_text: "The round in the `.foeman` format ([`Scenario::parse`] reads it back).",
    generate: "A random round: `gordian gen --system foeman` with the flags that set \
        `knobs` writes `generate(&knobs, case_seed(SEED, i))` as its instance `i` \
        ([`crate::case_seed`]).",
}

/// Finds every reachable side order and Action-phase outcome with the engines of
/// `limits` (by default the exhaustive search and the SAT encoding in parallel,
/// compared).
pub fn solve(round: &Scenario, limits: &Limits) -> Result<Answer, Error> {
    Ok(Answer {
        round: round.inner.clone(),
        solved: super::solve::<Foeman>(&round.inner, limits)?,
    })
}

/// A round's answer: the reachable side orders and Action-phase outcomes (the two
/// phases are independent, so every pair of them is reachable).
#[derive(Clone, Debug)]
pub struct Answer {
    round: Arc<model::Scenario>,
    solved: Solved<model::Answer>,
}

impl Answer {
    /// Every reachable side order (side names in the order they move), sorted.
    pub fn side_orders(&self) -> Vec<Vec<String>> {
        let name = |&s: &usize| self.round.sides[s].name.clone();
        let orders = &self.solved.answer.side_orders;
        orders
            .iter()
            .map(|o| o.iter().map(name).collect())
            .collect()
    }

    /// The number of reachable Action-phase outcomes (the order figures act in, who
    /// waited, who is left on Watch).
    pub fn action_outcome_count(&self) -> usize {
        self.solved.answer.actions.len()
    }

    /// Whether some reachable Action phase ends with a figure still on Watch.
    pub fn watchers_remain(&self) -> bool {
        let actions = &self.solved.answer.actions;
        actions.iter().any(|o| !o.watching.is_empty())
    }

    /// Whether two engines answered and their answers are equal.
    pub fn cross_checked(&self) -> bool {
        self.solved.cross_checked
    }

    /// The engines that answered (`direct`, `sat`).
    pub fn engines(&self) -> &[&'static str] {
        &self.solved.engines
    }

    /// The answer as JSON: `side_orders` (side indices) and `actions`, each with its
    /// `order` of acting figures (index, whether it waited) and who is left `watching`
    /// (figure indices).
    pub fn to_json(&self) -> serde_json::Value {
        Foeman::to_json(&self.round, &self.solved.answer)
    }
}

/// One line: the numbers of side orders and Action-phase outcomes.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&Foeman::summary(&self.round, &self.solved.answer))
    }
}
