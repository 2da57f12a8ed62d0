//! gordian: checks how simultaneous and nested game actions resolve.
//!
//! Every system (?AR night resolution, FFT turn flow, ...) is solved twice, by a SAT encoding
//! (varisat) and by a direct engine, and the answers are cross-checked.
#![warn(missing_docs)]

mod cli;
mod facade;
mod harness;
mod sat;
mod systems;
mod text;

#[doc(hidden)]
pub use facade::bench_only;
pub use facade::{ar, ff8, fft, foeman, lancer};
pub use facade::{case_seed, Engines, Error, Limits};
#[doc(no_inline)]
pub use num_bigint::BigUint;
#[doc(no_inline)]
pub use num_rational::BigRational;
pub use text::{ParseError, ParseErrors};

/// The `gordian` command line (`src/main.rs`): parses the arguments, runs the command,
/// returns its exit code. Not part of the library's API.
#[doc(hidden)]
pub fn run_cli() -> std::process::ExitCode {
    cli::run()
}
