//! ?AR ("??? Action Resolution") night resolution, as stated in `docs/ar.md`.

pub mod agree;
pub mod answer;
pub mod brute;
pub mod certify;
pub mod core;
pub mod cuts;
pub mod deflections;
pub mod direct;
pub mod dot;
pub mod encode;
pub mod engine;
pub mod expand;
pub mod explain;
pub mod factor;
pub mod frame;
pub mod gen;
pub mod learn;
pub mod model;
pub mod parse;
pub mod pieces;
pub mod redirect;
pub mod report;
pub mod resolution;
pub mod satsplit;
pub mod semantics;
pub mod shrink;
pub mod split;
pub mod system;
pub mod universe;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_why;

pub use engine::self_check;
pub use factor::{Factored, Night, Part};
pub use model::{ActionKind, Ensemble, Player};
pub use resolution::{Analysis, Classification, Cut, Resolution};
pub use system::Ar;
pub use universe::Universe;
