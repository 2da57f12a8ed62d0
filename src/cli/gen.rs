//! `gordian gen`: reproducible random instances of any system, from the generators `fuzz`
//! uses, written as files in the system's own format (or one after another on standard
//! output). Instance `i` of `--seed K` is case `i` of `gordian fuzz --seed K` with the
//! same generator flags, so a fuzz case can be regenerated and handed to another tool.
//!
//! Exit codes: 0 written; 1 a write failed; 2 bad arguments, an unusable `--out`, or a
//! file that exists already (without `--force`).

use super::generators::{foreign_flag, ForSystem, Generators};
use super::registry::SystemName;
use super::EXIT_INPUT;
use crate::harness::fuzz::case_seed;
use crate::systems::spec::System;
use clap::ArgMatches;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gordian gen`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The system whose instances to generate.
    #[arg(long, value_enum, default_value = "ar")]
    system: SystemName,
    /// How many instances.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    count: u64,
    /// The run's seed: instance i is a pure function of the generator flags, the seed and
    /// i (the same as case i of `gordian fuzz --seed`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A directory to write one file per instance into (created if missing; files are
    /// named SYSTEM-sSEED-NNNNNN.EXT, N the instance's index), or `-` for standard output (instances one after
    /// another, each after a `#` header line).
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// Overwrite files that exist already in --out.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    generators: Generators,
}

/// Runs the subcommand (`m`: its matches, to tell given flags from defaults).
pub fn run(args: &Args, m: &ArgMatches) -> ExitCode {
    if let Some(msg) = foreign_flag(args.system, m) {
        eprintln!("{msg}");
        return ExitCode::from(EXIT_INPUT);
    }
    args.generators.dispatch(args.system, Gen(args))
}

struct Gen<'a>(&'a Args);

impl ForSystem for Gen<'_> {
    type Out = ExitCode;
    fn run<S: System>(self, gen: &S::GenArgs) -> ExitCode {
        let a = self.0;
        let to_stdout = a.out.as_os_str() == "-";
        if !to_stdout {
            if let Err(e) = std::fs::create_dir_all(&a.out) {
                eprintln!("error: --out {}: {e}", a.out.display());
                return ExitCode::from(EXIT_INPUT);
            }
        }
        for i in 0..a.count {
            let text = instance_text::<S>(gen, a.seed, i);
            if to_stdout {
                let sep = if i + 1 < a.count { "\n" } else { "" };
                if let Err(code) = super::out(&format!("{text}{sep}")) {
                    return code;
                }
                continue;
            }
            let path = a.out.join(format!(
                "{}-s{}-{i:06}.{}",
                S::NAME,
                a.seed,
                S::EXTENSIONS[0]
            ));
            if let Err(code) = write_new(&path, &text, a.force) {
                return code;
            }
        }
        if !to_stdout {
            eprintln!(
                "wrote {} {} file(s) to {}",
                a.count,
                S::NAME,
                a.out.display()
            );
        }
        ExitCode::SUCCESS
    }
}

/// The instances `gordian gen FLAGS --out -` writes, as texts (each with its `#` header),
/// without printing: for the playground's `generate` requests (the Python package's
/// `gordian.generate`). `flags` are gen's flags (`--system ar --seed 3 --players 8`);
/// an error is clap's message, or the message of a flag of another system.
pub(crate) fn texts(flags: &[String]) -> Result<Vec<String>, String> {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = Args::augment_args(clap::Command::new("gordian gen").no_binary_name(true));
    let m = cmd.try_get_matches_from(flags).map_err(|e| e.to_string())?;
    let args = Args::from_arg_matches(&m).map_err(|e| e.to_string())?;
    if let Some(msg) = foreign_flag(args.system, &m) {
        return Err(msg);
    }
    Ok(args.generators.dispatch(args.system, Texts(&args)))
}

struct Texts<'a>(&'a Args);

impl ForSystem for Texts<'_> {
    type Out = Vec<String>;
    fn run<S: System>(self, gen: &S::GenArgs) -> Vec<String> {
        let a = self.0;
        (0..a.count)
            .map(|i| instance_text::<S>(gen, a.seed, i))
            .collect()
    }
}

/// Instance `i` of run `seed`, with its `#` header line, ending with a line end.
fn instance_text<S: System>(gen: &S::GenArgs, seed: u64, i: u64) -> String {
    let own = case_seed(seed, i);
    let mut text = format!(
        "# gordian gen --system {} --seed {seed}: instance {i} (generator seed {own})\n{}",
        S::NAME,
        S::to_text(&S::generate(gen, own))
    );
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Writes `text` to `path`, refusing to replace an existing file unless `force`.
fn write_new(path: &Path, text: &str, force: bool) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let written = opts
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            eprintln!(
                "error: {} exists already (use --force to overwrite, or another --out or --seed)",
                path.display()
            );
            Err(ExitCode::from(EXIT_INPUT))
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            Err(ExitCode::FAILURE)
        }
    }
}
