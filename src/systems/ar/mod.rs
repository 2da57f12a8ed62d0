//! ?AR ("??? Action Resolution") night resolution, as stated in `docs/ar.md`.

pub mod answer;
pub mod brute;
pub mod certify;
pub mod core;
pub mod cuts;
pub mod direct;
pub mod dot;
pub mod encode;
pub mod engine;
pub mod expand;
pub mod explain;
pub mod factor;
pub mod gen;
pub mod learn;
pub mod model;
pub mod parse;
pub mod pieces;
pub mod report;
pub mod resolution;
pub mod semantics;
pub mod shrink;
pub mod split;
pub mod system;
pub mod universe;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_why;

pub use engine::{self_check, self_check_part, Brute, Direct, Sat, BRUTE_UP_TO, DEFAULT_GRACE};
pub use factor::{Factored, Night, Part};
pub use model::{ActionKind, Effect, Ensemble, Kind, PassiveKind, Player};
pub use resolution::{Analysis, Classification, Cut, CutAnalysis, Resolution, TargetMap};
pub use system::Ar;
pub use universe::Universe;
