//! FF8 Triple Triad rule spreading (decisions in `docs/ff8.md`): the state of
//! the card-rule mechanics, one challenge's eleven steps, exact next-state distributions,
//! RNG replay, reachability within k challenges by SAT, and a planner.

pub mod encode;
pub mod gen;
pub mod model;
pub mod parse;
pub mod reach;
pub mod report;
pub mod search;
pub mod simulate;
pub mod system;

#[cfg(test)]
mod tests;
