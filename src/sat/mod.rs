//! The solver-facing layer shared by all systems. Knows nothing about games.
//!
//! Owns: a thin incremental SAT solver wrapper ([`Solver`]), the one constant-folding
//! circuit builder the encoders build gates with ([`Solver::fold_and`], [`Inputs`];
//! `fold.rs`), cardinality encodings
//! ([`Totalizer`]), lexicographic minimisation of cost counts level by level ([`lexmin`])
//! or core-guided ([`lexmin_cores`]), backbones ([`backbone`]) and projected model
//! enumeration ([`enumerate_projected`], [`enumerate_in_cubes`]; as a union of products of
//! independent parts, [`enumerate_factored`], whose parts have their unprojected variables
//! eliminated by resolution first, `crate::eliminate`).
//!
//! Invariants shared by every procedure here:
//! * all extra constraints a procedure needs only while it runs are passed as assumptions
//!   or guarded by activation literals, so later, unrelated queries on the same solver see
//!   the same set of models of the caller's variables;
//! * cancellation is cooperative: [`Solver::set_interrupt`] is checked before every solve
//!   and every few hundred conflicts inside one (inside one not for a solver made by
//!   [`Solver::for_short_solves`]: the small groups of a factored enumeration), and an unanswered solve surfaces as [`SatResult::Unknown`], [`Interrupted`] or
//!   [`EnumerationEnd::Interrupted`], never as a wrong Sat/Unsat answer.

mod backbone;
mod card;
mod coremin;
mod enumerate;
mod factor;
mod fold;
mod lexmin;
mod solver;
#[cfg(test)]
pub(crate) mod test_util;

pub use backbone::backbone;
pub use card::Totalizer;
pub use coremin::lexmin_cores;
pub use enumerate::{enumerate_projected, EnumerationEnd};
pub use factor::{enumerate_factored, Factor, Product as FactorProduct};
pub use fold::Inputs;
pub use lexmin::lexmin;
pub use solver::{CoreResult, Lit, SatResult, Solver};
