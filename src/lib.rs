//! gordian: checks how simultaneous and nested game actions resolve.
//!
//! Every system (?AR night resolution, FFT turn flow, ...) is solved twice, by a SAT encoding
//! ([`sat`]) and by a direct engine, and the answers are cross-checked.
#![warn(missing_docs)]

pub mod cli;
pub mod harness;
pub mod sat;
pub mod systems;
pub mod text;
