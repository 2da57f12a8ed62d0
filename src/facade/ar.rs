//! ?AR ("??? Action Resolution") mafia nights: every resolution of a night's
//! simultaneous actions, whether it is a paradox, its optimal Gordian cuts and each
//! player's exact chance of dying. The rules: `docs/ar.md`; the `.night` and JSON formats:
//! docs/formats.md.
//!
//! ```
//! use gordian::ar::{self, Classification};
//! use gordian::Limits;
//!
//! // Three roleblockers in a circle (instances/ar/odd-block-cycle.night): R1 succeeds
//! // iff R3 fails, R2 iff R1 fails, R3 iff R2 fails, so R1 succeeds iff it fails: a
//! // paradox. Cutting any one block resolves it, and all three blocks share priority 2,
//! // so there are three optimal cuts, each of one effect.
//! let night = ar::Night::parse("R1 block R2\nR2 block R3\nR3 block R1\n")?;
//! let answer = ar::solve(&night, &Limits::default())?;
//! assert_eq!(answer.classification(), Classification::Paradox);
//! assert!(answer.cross_checked());
//! let cuts: Vec<Vec<String>> = answer.optimal_cuts().collect();
//! assert_eq!(cuts, [["e1"], ["e2"], ["e3"]]);
//! assert_eq!(answer.cut_cost(), Some(vec![(2, 1)]));
//! assert!(answer.death_probabilities().is_empty()); // nobody has a kill
//! # Ok::<(), gordian::Error>(())
//! ```

use super::{Error, Limits, Solved};
use crate::odometer;
use crate::systems::ar::answer::expand::{optimal_cuts, Merger};
use crate::systems::ar::night::resolution::sorted_ids;
use crate::systems::ar::{self as sys, answer, Ar, Factored, Part, Resolution};
use crate::systems::spec::System;
use num_bigint::BigUint;
use num_rational::BigRational;
use std::sync::Arc;

pub use crate::systems::ar::night::model::ActionKind;
pub use crate::systems::ar::system::ArGen as Knobs;
pub use crate::systems::ar::Classification;

instance! {
    /// A night: its effects, with every effect reflexive passives could create, split into
    /// independent components.
    pub struct Night(Ar, sys::Night);
    parse: "Parses a night in the `.night` line format, or JSON (text starting with \
        `{`). Errors are located in `<text>`.",
    from_file: "Reads and parses a night file (`.json`: JSON; otherwise the line format, \
        or JSON when it starts with `{`); errors name the file.",
    to_text: "The night in the `.night` format, with explicit ids and priorities \
        ([`Night::parse`] reads it back).",
    generate: "A random night: `gordian gen --system ar` with the flags that set `knobs` \
        writes `generate(&knobs, case_seed(SEED, i))` as its instance `i` \
        ([`crate::case_seed`]).",
}

/// Solves a night with the engines of `limits` (by default the direct and the SAT engine
/// in parallel, compared), component by component.
pub fn solve(night: &Night, limits: &Limits) -> Result<Answer, Error> {
    Ok(Answer {
        night: night.inner.clone(),
        solved: super::solve::<Ar>(&night.inner, limits)?,
    })
}

/// A night's answer, factorised: the night is the product of its independent
/// components, so counts are exact however large and lists are produced lazily.
#[derive(Clone, Debug)]
pub struct Answer {
    night: Arc<sys::Night>,
    solved: Solved<Factored>,
}

impl Answer {
    fn factored(&self) -> &Factored {
        &self.solved.answer
    }

    /// The night the components' answers refer to (the pieces of split components).
    fn parts(&self) -> &sys::Night {
        self.factored().night(&self.night)
    }

    /// Paradox (no resolution), non-paradox (exactly one, with one way) or
    /// quasi-paradox.
    pub fn classification(&self) -> Classification {
        self.factored().classification()
    }

    /// The number of acceptable resolutions of the uncut night (0 for a paradox).
    pub fn resolution_count(&self) -> BigUint {
        self.factored().totals(&self.night).resolutions
    }

    /// The succeeded effects of each acceptable resolution of the uncut night, by id
    /// (sorted; created effects as `PASSIVE>VISITOR`), in product order (the first
    /// component varies slowest), one at a time. None for a paradox.
    pub fn resolutions(&self) -> impl Iterator<Item = Vec<String>> + '_ {
        let n = self.parts();
        let f = self.factored();
        let paradox = self.classification() == Classification::Paradox;
        let lists: Vec<(&Part, &[Resolution])> = n
            .parts
            .iter()
            .zip(&f.parts)
            .filter(|_| !paradox)
            .map(|(p, a)| (p, a.resolutions.as_slice()))
            .collect();
        let sizes = if lists.is_empty() {
            vec![0]
        } else {
            lists.iter().map(|(_, rs)| rs.len()).collect()
        };
        odometer::Product::new(sizes).map(move |pick| {
            let chosen: Vec<(&Part, &Resolution)> = lists
                .iter()
                .zip(&pick)
                .map(|((p, rs), &k)| (*p, &rs[k]))
                .collect();
            Merger::new(n).resolution(&chosen).succeeded_ids(&n.whole)
        })
    }

    /// The number of optimal Gordian cuts (0 unless a paradox).
    pub fn optimal_cut_count(&self) -> BigUint {
        self.factored().totals(&self.night).optimal_cuts
    }

    /// The cut effects of each optimal Gordian cut, by id (sorted), in product order,
    /// one at a time. None unless a paradox.
    pub fn optimal_cuts(&self) -> impl Iterator<Item = Vec<String>> + '_ {
        let paradox = self.classification() == Classification::Paradox;
        let whole = &self.night.whole;
        optimal_cuts(&self.night, self.factored())
            .take_while(move |_| paradox)
            .map(move |(cut, _)| sorted_ids(whole, cut.ones()))
    }

    /// For a paradox, the optimal cuts' cost: `(priority, number of cut effects)` for
    /// every priority level of the night, most important (lowest) first; cuts are
    /// compared by these counts lexicographically. `None` unless a paradox.
    pub fn cut_cost(&self) -> Option<Vec<(u32, usize)>> {
        let cost = self.factored().cost(&self.night)?;
        Some(
            self.night
                .whole
                .levels()
                .iter()
                .copied()
                .zip(cost)
                .collect(),
        )
    }

    /// Each player's exact chance of dying under the contract's uniform pick (optimal
    /// cut, then optimal resolution, then way), for the players who can die, by name.
    pub fn death_probabilities(&self) -> Vec<(String, BigRational)> {
        answer::death_chances(&self.night, self.factored())
    }

    /// Whether two engines answered and their answers are equal.
    pub fn cross_checked(&self) -> bool {
        self.solved.cross_checked
    }

    /// The engines that answered (`direct`, `sat`).
    pub fn engines(&self) -> &[&'static str] {
        &self.solved.engines
    }

    /// The answer as JSON: the object `gordian resolve --json` prints, without its
    /// `engine`, `cross_checked` and `unfinished` fields (docs/json.md). The flat
    /// lists are included while they hold at most 256 entries.
    pub fn to_json(&self) -> serde_json::Value {
        Ar::to_json(&self.night, self.factored())
    }

    /// Writes [`Answer::to_json`]'s JSON, streamed: one list item in memory at a time.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let opts = answer::Options::default();
        answer::write_json(w, &self.night, self.factored(), &opts, &[]).map(|_| ())
    }
}

/// One line: the classification, the resolutions (or their count) and, for a paradox,
/// the optimal cuts and their cost.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&Ar::summary(&self.night, self.factored()))
    }
}
