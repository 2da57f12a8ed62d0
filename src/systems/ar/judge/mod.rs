//! The judge: the ?AR rules evaluated literally ([`semantics`]) and the brute force that
//! tries every candidate against them ([`brute`]). Imports only the night; no engine
//! imports the judge (tests/layers.rs), so an engine is never checked by its own logic.

pub mod brute;
pub mod semantics;
