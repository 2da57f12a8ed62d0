//! `gordian dimacs FILE`: the SAT encoding of one night as DIMACS CNF, for inspection or
//! for running another solver on it.

use super::EXIT_INPUT;
use crate::systems::ar::{encode, parse, Universe};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gordian dimacs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The night file (`.night` or `.json`).
    file: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match parse::load(&args.file) {
        Ok(ens) => {
            print!("{}", encode::dimacs(&Universe::new(&ens)));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}
