//! Why an answer is what it is: the explanation of a resolution ([`explain`]), the minimal
//! core of a paradox and the derivation of why it has none ([`core`], checked by both
//! engines), the Graphviz picture of a night ([`dot`]), and what each player learns from
//! an outcome ([`results`]). Above both engines; only
//! `engine.rs` and `system.rs` import it (tests/layers.rs).

pub mod core;
pub mod dot;
pub mod explain;
pub mod results;
