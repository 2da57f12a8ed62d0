//! gordian: checks how simultaneous and nested game actions resolve.
//!
//! Every system (so far: ?AR night resolution) is solved twice, by a SAT encoding
//! ([`sat`]) and by a direct engine, and the answers are cross-checked.
#![warn(missing_docs)]

pub mod batch;
pub mod check;
pub mod cli;
pub mod fuzz;
pub mod gen;
pub mod inputs;
pub mod sat;
pub mod shrink;
pub mod source;
pub mod systems;
