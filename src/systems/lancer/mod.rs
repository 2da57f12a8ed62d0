//! Lancer Tactics event system (the Lancer Tactics dev-log essay "Event system", docs/lancer.md): nested
//! interrupts and follow-ups, validity checks that abort events, depth- and breadth-first
//! queues, the brace prompt; every outcome by the simulator's exhaustive search and by SAT
//! projected enumeration, compared; queries with shortest witnesses; policies compared.

pub mod encode;
pub mod gen;
pub mod model;
pub mod parse;
pub mod report;
pub mod search;
pub mod simulate;
pub mod system;
#[cfg(test)]
mod tests;
