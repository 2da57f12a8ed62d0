//! `gordian dimacs FILE`: the SAT encoding of one night as DIMACS CNF, for inspection or
//! for running another solver on it; `c` lines name the cut, success, creation and
//! final-position variables, so another solver's model can be read back.

use super::EXIT_INPUT;
use crate::harness::inputs;
use crate::systems::ar::{certify, Ar};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gordian dimacs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The night file (`.night` or `.json`; `-` reads standard input).
    file: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match inputs::load::<Ar>(&args.file) {
        Ok(u) => match super::out(&certify::named_dimacs(&u)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(e) => {
            super::report_error(&e);
            ExitCode::from(EXIT_INPUT)
        }
    }
}
