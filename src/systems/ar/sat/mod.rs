//! The SAT engine: the night as clauses and its decoding ([`encode`]), the split of a
//! large component found on those clauses ([`satsplit`]), and checked proofs and DIMACS
//! ([`certify`]). Imports the night and the answer, never the direct engine nor the judge
//! (tests/layers.rs).

pub mod certify;
pub mod encode;
pub mod satsplit;
