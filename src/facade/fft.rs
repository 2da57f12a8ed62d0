//! FFT turn flow (Final Fantasy Tactics: quick turns, mime cycles and the quick-safety):
//! every outcome of one SR phase under each rule [`Variant`], whether some run needs more
//! quick turns than the bound, and which query [`Property`] has a witness run. The
//! machine and its decisions: `docs/fft.md`; the `.fft` format: `instances/fft/README.md`.
//!
//! ```
//! use gordian::fft::{self, Property, Variant};
//! use gordian::Limits;
//!
//! // instances/fft/naive-refuter-mini.fft without its log: A's quick spell misses, and
//! // the mime M repeats it at B, at A, or misses. Worked by hand (the file's header):
//! // under the final theory the safety stays ON, so a flag M hands out survives the
//! // phase; the naive model (no quick-safety) gives the flagged character a quick turn,
//! // which uses the flag up.
//! let scenario = fft::Scenario::parse(
//!     "char A team a ct 100\nchar B team b\nchar M team a mime\n\
//!      slow A - qs - miss\nmime-targets B | A\nbound 8\n",
//! )?;
//! let answer = fft::solve(&scenario, &Limits::default())?;
//! assert_eq!(answer.outcome_count(Variant::Final), 3); // M: miss, B or A
//! assert!(answer.witnessed(Variant::Final).contains(&Property::FlagSurvives));
//! assert!(!answer.witnessed(Variant::Naive).contains(&Property::FlagSurvives));
//! assert!(!answer.exceeds_bound(Variant::Final));
//! # Ok::<(), gordian::Error>(())
//! ```

use super::{Error, Limits, Solved};
use crate::systems::fft::system::FftAnswer;
use crate::systems::fft::{model, Fft};
use crate::systems::spec::System;
use std::sync::Arc;

pub use crate::systems::fft::gen::ScenarioParams as Knobs;
pub use crate::systems::fft::model::Variant;
pub use crate::systems::fft::search::Property;

instance! {
    /// One SR phase: the characters, the slow actions that resolve in it, the menus that
    /// bound the choices, optionally an observed log.
    pub struct Scenario(Fft, model::Scenario);
    parse: "Parses a scenario in the `.fft` format; errors are located in `<text>`.",
    from_file: "Reads and parses a `.fft` file; errors name the file.",
    to_text: "The scenario in the `.fft` format ([`Scenario::parse`] reads it back).",
    generate: "A random scenario: `gordian gen --system fft` with the flags that set \
        `knobs` writes `generate(&knobs, case_seed(SEED, i))` as its instance `i` \
        ([`crate::case_seed`]).",
}

/// Enumerates every outcome under every variant and looks for a witness of every
/// property, with the engines of `limits` (by default the simulator's search and SAT
/// bounded model checking in parallel, compared).
pub fn solve(scenario: &Scenario, limits: &Limits) -> Result<Answer, Error> {
    Ok(Answer {
        scenario: scenario.inner.clone(),
        solved: super::solve::<Fft>(&scenario.inner, limits)?,
    })
}

/// A scenario's answer: per variant, the distinct outcomes (log, flags left, next CR
/// order) within the bound, whether the bound cut some run short, and the properties
/// with a witness run.
#[derive(Clone, Debug)]
pub struct Answer {
    scenario: Arc<model::Scenario>,
    solved: Solved<FftAnswer>,
}

impl Answer {
    /// The number of distinct outcomes under `variant`, within the bound.
    pub fn outcome_count(&self, variant: Variant) -> usize {
        self.solved.answer.of(variant).outcomes.len()
    }

    /// Whether some choice sequence needs more quick turns than the bound under
    /// `variant` (its outcomes are then not among the counted ones).
    pub fn exceeds_bound(&self, variant: Variant) -> bool {
        self.solved.answer.of(variant).exceeds_bound
    }

    /// The properties with a witness run under `variant`, in [`Property::ALL`] order.
    pub fn witnessed(&self, variant: Variant) -> &[Property] {
        &self.solved.answer.of(variant).witnessed
    }

    /// Whether two engines answered and their answers are equal.
    pub fn cross_checked(&self) -> bool {
        self.solved.cross_checked
    }

    /// The engines that answered (`direct`, `sat`).
    pub fn engines(&self) -> &[&'static str] {
        &self.solved.engines
    }

    /// The answer as JSON: `variants`, each with its `variant`, `outcomes`,
    /// `exceeds_bound` and `witnessed`.
    pub fn to_json(&self) -> serde_json::Value {
        Fft::to_json(&self.scenario, &self.solved.answer)
    }
}

/// One line: per variant, the number of outcomes and the witnessed properties.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&Fft::summary(&self.scenario, &self.solved.answer))
    }
}
