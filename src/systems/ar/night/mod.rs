//! The night: what a `.night` file says and what can come of it. The validated
//! ensemble ([`model`]) and its reader ([`parse`]), the universe of declared and potential
//! created effects ([`universe`]) over the deflection graph ([`deflections`]), what a
//! resolution, a cut and an analysis are ([`resolution`]), random nights ([`gen`]), the
//! shrinker's simplifications ([`shrink`]) and the role names the reader expands
//! ([`roles`]).
//!
//! The lowest layer: nothing here imports another folder of `ar` (tests/layers.rs).

pub mod deflections;
pub mod gen;
pub mod model;
pub mod parse;
pub mod resolution;
pub mod roles;
pub mod scoped;
pub mod shrink;
pub mod universe;
