//! Foeman initiative and Action-phase segments (the Foeman programming notes;
//! rules as implemented and decisions: `docs/foeman.md`).
//!
//! ```text
//! .foeman ──parse──▶ Scenario ─┬─ simulate (one round, a Driver gives rolls and choices) ──▶ trace
//!                              ├─ search (every roll and choice, exact probabilities) ──┐
//!                              └─ encode (SAT, bounded: steps and segments unrolled) ───┴─▶ Answer, compared
//! fairness: the sequential-die tie-break and its naive variants, exactly enumerated.
//! ```

pub mod encode;
pub mod fairness;
pub mod gen;
pub mod model;
pub mod parse;
pub mod report;
pub mod search;
pub mod simulate;
pub mod system;
#[cfg(test)]
mod tests;

pub use model::{Answer, Scenario};
