//! gordian: checks how simultaneous and nested game actions resolve.
//!
//! Every system (?AR night resolution, FFT turn flow, ...) is solved twice, by a SAT encoding
//! ([`sat`]) and by a direct engine, and the answers are cross-checked.
#![warn(missing_docs)]

pub mod cli;
mod facade;
pub mod harness;
pub mod sat;
pub mod systems;
pub mod text;

#[doc(hidden)]
pub use facade::bench_only;
pub use facade::{ar, ff8, fft, foeman, lancer};
pub use facade::{case_seed, Engines, Error, Limits};
#[doc(no_inline)]
pub use num_bigint::BigUint;
#[doc(no_inline)]
pub use num_rational::BigRational;
pub use text::{ParseError, ParseErrors};
