//! ?AR ("??? Action Resolution") night resolution, as fixed by `shared/design/ar-semantics.md`.

pub mod brute;
pub mod direct;
pub mod encode;
pub mod engine;
pub mod model;
pub mod parse;
pub mod report;
pub mod resolution;
pub mod semantics;
pub mod universe;

#[cfg(test)]
mod tests;

pub use engine::{self_check, solve, solve_with, Answer, EngineKind, SolveError, DEFAULT_GRACE};
pub use model::{ActionKind, Effect, Ensemble, Kind, PassiveKind, Player};
pub use resolution::{Analysis, Classification, Cut, CutAnalysis, Resolution, TargetMap};
pub use universe::Universe;
