//! The command line: clap definitions, one file per subcommand. The only place that
//! prints or chooses an exit code.
//!
//! Exit codes: 0 success (a paradox is a result, not an error), 1 internal failure,
//! 2 bad input (with a located message), 3 the engines disagree.

mod batch;
mod check;
mod dimacs;
mod ff8;
mod fft;
mod fuzz;
mod progress;
mod resolve;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// Exit code for bad input.
pub const EXIT_INPUT: u8 = 2;
/// Exit code for an engine disagreement.
pub const EXIT_DISAGREE: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "gordian",
    version,
    about = "Finds every outcome of simultaneous and nested game actions: paradoxes, \
             quasi-paradoxes and optimal Gordian cuts, solved by SAT and by a direct \
             engine and cross-checked."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Resolve one ?AR night (`.night` or `.json`): classification, every acceptable
    /// resolution, optimal cuts of a paradox, exact outcome probabilities.
    Resolve(resolve::Args),
    /// Print the SAT encoding of one night as DIMACS CNF (cut variables left free).
    Dimacs(dimacs::Args),
    /// Check nights (files, or directories walked recursively) with both engines and
    /// compare their answers in full; a table at the end.
    Check(check::Args),
    /// Fuzz the engines against each other on random nights; shrink and save the first
    /// disagreement.
    Fuzz(fuzz::Args),
    /// Resolve many nights in parallel, one JSON line each; resumable and shardable.
    Batch(batch::Args),
    /// FFT turn flow: replay a log, compare rule variants, enumerate every outcome
    /// (simulator and SAT, compared), query for a property.
    Fft(fft::Args),
    /// FF8 card rules: exact step distributions, RNG replay, reachability (SAT and
    /// direct, compared), the planner.
    Ff8(ff8::Args),
}

/// Which engine(s) answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// The direct engine and the SAT engine in parallel, compared.
    Both,
    /// The SAT engine alone.
    Sat,
    /// The direct engine alone.
    Direct,
    /// Brute force (tiny nights only; for checking).
    Brute,
}

/// Which game system a command works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum System {
    /// ?AR night resolution.
    Ar,
    /// FFT turn flow.
    Fft,
}

/// Parses a positive number of seconds (a clap value parser).
pub(crate) fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    s.parse::<f64>()
        .ok()
        .and_then(|t| std::time::Duration::try_from_secs_f64(t).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{s}` is not a positive number of seconds"))
}

/// Prints the closing count line of a `check` run and chooses its exit code: 3 if the
/// engines disagreed on some file, else 2 if some input could not be read, else 0.
pub(crate) fn check_summary(
    files: usize,
    agree: usize,
    disagree: usize,
    errors: usize,
) -> ExitCode {
    println!("{files} file(s): {agree} agree, {disagree} disagree, {errors} error(s)");
    if disagree > 0 {
        ExitCode::from(EXIT_DISAGREE)
    } else if errors > 0 {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs the command line and returns the process exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Resolve(args) => resolve::run(&args),
        Command::Dimacs(args) => dimacs::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Batch(args) => batch::run(&args),
        Command::Fft(args) => fft::run(&args),
        Command::Ff8(args) => ff8::run(&args),
    }
}

impl From<EngineChoice> for crate::systems::ar::EngineKind {
    fn from(c: EngineChoice) -> Self {
        use crate::systems::ar::EngineKind;
        match c {
            EngineChoice::Both => EngineKind::Both,
            EngineChoice::Sat => EngineKind::Sat,
            EngineChoice::Direct => EngineKind::Direct,
            EngineChoice::Brute => EngineKind::Brute,
        }
    }
}
