// The crate documentation is docs/library.md, the user page on the library (the README
// links to it); rustdoc includes it and runs its example as a doctest.
#![doc = include_str!("../docs/library.md")]
#![warn(missing_docs)]
// Without the command line (`default-features = false`), the renderings and harness parts
// only it uses (reports, explanations, fuzz summaries) are compiled but not reached.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

mod cancel;
#[cfg(feature = "cli")]
mod cli;
mod eliminate;
mod facade;
mod graph;
mod harness;
mod odometer;
mod sat;
mod systems;
mod text;
mod units;

#[doc(hidden)]
pub use facade::bench_only;
pub use facade::{ar, ff8, fft, foeman, lancer};
pub use facade::{case_seed, Engines, Error, Limits};
#[doc(no_inline)]
pub use num_bigint::BigUint;
#[doc(no_inline)]
pub use num_rational::BigRational;
pub use text::{ParseError, ParseErrors};

/// The playground's requests (the browser page and the npm package): an instance as
/// text in, the CLI's report and `--json` answer out, as JSON (`docs/playground.md`). Not
/// part of the library's API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod playground {
    pub use crate::cli::page::{
        detect, files, generate, interrupt, record, setup_analyse, solve, systems,
    };
}

// The playground's requests are the command line's renderings: the WebAssembly module
// needs the `cli` feature (web/build.sh builds with the default features).
#[cfg(all(target_arch = "wasm32", feature = "cli"))]
mod wasm;

/// The `gordian` command line (`src/main.rs`): parses the arguments, runs the command,
/// returns its exit code. Not part of the library's API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn run_cli() -> std::process::ExitCode {
    cli::run()
}
