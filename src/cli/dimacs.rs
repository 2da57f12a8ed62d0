//! `gordian dimacs FILE`: the SAT encoding of one night as DIMACS CNF, for inspection or
//! for running another solver on it; `c` lines name the cut, success, creation and
//! final-position variables, so another solver's model can be read back.

use super::limits::{self, MemoryArgs};
use super::{parse_seconds, EXIT_INPUT};
use crate::harness::inputs;
use crate::systems::ar::sat::certify;
use crate::systems::ar::Ar;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `gordian dimacs`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The night file (`.night` or `.json`; `-` reads standard input).
    file: PathBuf,
    /// Give up after this many seconds, counted from the start (exit 5).
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: MemoryArgs,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let what = args.file.display().to_string();
    let budget = args.memory.budget();
    let text = limits::within(&what, args.timeout, &budget, || {
        match inputs::load_within::<Ar>(&args.file, &budget) {
            Ok(Ok(n)) => certify::named_dimacs(&n.whole, &budget)
                .map_err(|_| limits::stopped(&what, &budget, None, args.timeout)),
            Ok(Err(e)) => {
                super::report_error(&e);
                Err(ExitCode::from(EXIT_INPUT))
            }
            Err(_) => Err(limits::stopped(&what, &budget, None, args.timeout)),
        }
    });
    match text.map(|t| super::out(&t)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(code)) | Err(code) => code,
    }
}
