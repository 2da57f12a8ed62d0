//! gordian: checks how simultaneous and nested game actions resolve.
//!
//! Every system (so far: ?AR night resolution) is solved twice, by a SAT encoding
//! ([`sat`]) and by a direct engine, and the answers are cross-checked.
#![warn(missing_docs)]

pub mod cli;
pub mod gen;
pub mod sat;
pub mod systems;
