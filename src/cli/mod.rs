//! The command line: clap definitions, one file per subcommand, one per system's own
//! commands (`fft.rs`, ...) and what those share (`system_cmd.rs`), the system registry
//! (`registry.rs`), one table printer and one progress module. The only place that
//! prints or chooses an exit code.
//!
//! Exit codes: 0 success (a paradox is a result, not an error), 1 internal failure (or a
//! fuzz failure found), 2 bad input (with a located message), 3 the engines disagree,
//! 4 (`fft replay`) the log is not explained, 5 a limit was hit (`--timeout`), 130/143
//! interrupted by SIGINT/SIGTERM (the summary so far is printed).

/// `println!` for standard output that never panics: a write error (a full disk; a closed
/// pipe when SIGPIPE is ignored) prints a message on standard error and exits 1.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        if let Err(e) = writeln!(o, $($arg)*) {
            $crate::cli::write_failed(e)
        }
    }};
}

/// `print!` for standard output that never panics (see `say!`).
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        if let Err(e) = write!(o, $($arg)*) {
            $crate::cli::write_failed(e)
        }
    }};
}

mod batch;
mod check;
mod dimacs;
mod ff8;
mod fft;
mod foeman;
mod fuzz;
mod gen;
mod generators;
mod lancer;
mod limits;
mod man;
mod merge;
pub(crate) mod page;
mod progress;
mod registry;
mod resolve;
mod schema;
mod setup;
mod signals;
mod system_cmd;
mod table;
mod why;
mod worker;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Exit code for bad input.
pub const EXIT_INPUT: u8 = 2;
/// Exit code for an engine disagreement.
pub const EXIT_DISAGREE: u8 = 3;
/// Exit code when a time or size limit was hit.
pub const EXIT_LIMIT: u8 = 5;

#[derive(Parser, Debug)]
#[command(
    name = "gordian",
    version,
    about = "Finds every outcome of simultaneous and nested game actions: paradoxes, \
             quasi-paradoxes and optimal Gordian cuts, solved by SAT and by a direct \
             engine and cross-checked.",
    after_help = "Exit codes: 0 answered (a paradox is an answer), 2 bad input, 3 the engines \
                  disagree, 5 a limit was hit; every code: `gordian man formats`. Each \
                  subcommand has --help and a manual page (`gordian man resolve`); the guide \
                  is README.md and docs/ in the source tree."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Resolve one ?AR night (`.night` or `.json`, `-` for standard input), component by
    /// independent component: classification, every acceptable resolution, optimal cuts
    /// of a paradox, exact outcome probabilities.
    ///
    /// A large component whose answer is itself a product is reported as independent
    /// pieces: one with what every optimal answer shares, one per group of effects that
    /// vary together. Totals, chances, picks and the flat lists (`--expand`) are those of
    /// the flat answer.
    Resolve(resolve::Args),
    /// Print the SAT encoding of one night as DIMACS CNF (cut variables left free).
    Dimacs(dimacs::Args),
    /// Check instances of any system (files, or directories walked recursively) with
    /// every engine and compare their answers in full, or compare an outside resolver's
    /// answers with gordian's (`--against CMD`); a table at the end.
    Check(check::Args),
    /// Fuzz a system's engines against each other on random instances, or an outside
    /// resolver against gordian (`--against CMD`); shrink and save the first
    /// disagreement.
    Fuzz(fuzz::Args),
    /// Write reproducible random instances of any system (the generators `fuzz` uses),
    /// as files in the system's own format or one after another on standard output.
    Gen(gen::Args),
    /// Answer many instances of any system in parallel, one JSON line each; resumable
    /// and shardable.
    Batch(batch::Args),
    /// Join the reports of a batch's shards into one, sorted by path, checking that every
    /// input has exactly one record.
    ///
    /// A path recorded twice (in one report or across reports) is an error unless the
    /// records are identical; a line that is not a record is an error located at
    /// FILE:LINE (a partially written last line, which an interrupted batch leaves, is
    /// named as such); with --expect, an input without a record is an error. On any
    /// error nothing is written (exit 2); the merged report is written to a temporary
    /// file and renamed. A summary goes to standard error; without --expect, it names the
    /// shards of a `batch --shard K/N` split that have no record (from each record's
    /// `shard`).
    #[command(after_help = merge::EXAMPLE)]
    Merge(merge::Args),
    /// The worker process of `check` and `batch` (internal: one job per line in, one
    /// answer per line out).
    #[command(hide = true)]
    Worker(worker::Args),
    /// FFT turn flow: replay a log, compare rule variants, enumerate every outcome
    /// (simulator and SAT, compared), query for a property.
    Fft(fft::Args),
    /// FF8 card rules: exact step distributions, RNG replay, reachability (SAT and
    /// direct, compared), the planner.
    Ff8(ff8::Args),
    /// Foeman initiative and Action segments: round, enumerate, query, fairness, dimacs.
    Foeman(foeman::Args),
    /// Lancer event system: resolve, enumerate, query, policies, dimacs.
    Lancer(lancer::Args),
    /// ?AR role setups: every night a setup allows, counted, with the roles behind each
    /// paradox (`setup analyse`).
    Setup(setup::Args),
    /// Print the JSON Schema (draft 2020-12) of a system's JSON instance format, of its
    /// JSON answer, or of the report of `setup analyse --json`, with every field described.
    ///
    /// `answer` is what the system's engines answer (for ?AR also what `resolve --json`
    /// prints, run fields included), and the reference an external resolver's JSON is
    /// compared with: the same field names and shapes, only the fields it gives compared.
    /// `instance` is the JSON form of the system's input; only ?AR has one (its `.json`
    /// nights); for the other systems it is an error (exit 2). `setup` is the report of
    /// `setup analyse --json` (role setups are ?AR's: `--system ar`). Validate files
    /// against it with any JSON Schema validator.
    Schema(schema::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff): gordian(1), one per subcommand (`gordian man resolve`,
    /// `gordian man fft replay`), or `gordian man formats`: the input formats and the
    /// exit codes. Read one with `gordian man resolve | man -l -`.
    Man(man::Args),
}

/// Parses a positive number of seconds (a clap value parser): at most one year, so no
/// deadline computed from it can overflow.
pub(crate) fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    const YEAR: f64 = 365.0 * 24.0 * 3600.0;
    s.parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0 && *t <= YEAR)
        .and_then(|t| std::time::Duration::try_from_secs_f64(t).ok())
        // A value so small that it is 0 ns is 0.
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            format!(
                "`{s}` is not a number of seconds between 0 (excluded; 1e-9, a nanosecond, \
                 at least) and one year"
            )
        })
}

/// Prints an error about a whole file (a section or line it lacks), in the shared shape:
/// `error: MESSAGE`, located at the file's line 1.
pub(crate) fn whole_file_error(file: &std::path::Path, msg: &str) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    eprintln!(
        "{}",
        crate::text::Sink::one(&text, file, 1, 1, msg).rendered()
    );
}

/// This process's command line as a shell would read it back (`gordian` for the program,
/// each argument quoted where it needs to be; bytes that are not UTF-8 shown as U+FFFD):
/// what a report names as the way to run it again.
pub(crate) fn command_line() -> String {
    let words = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    std::iter::once("gordian".to_string())
        .chain(
            words.map(|w| {
                shlex::try_quote(&w).map_or_else(|_| format!("{w:?}"), |q| q.into_owned())
            }),
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// Prints a load error (`error: ...`, or a located error).
pub(crate) fn report_error(e: &crate::text::LoadError) {
    eprintln!("{}", registry::render_load_error(e));
}

/// Loads an instance of `S`, or reports why not (exit code 2).
pub(crate) fn load_or_exit<S: crate::systems::spec::System>(
    path: &std::path::Path,
) -> Result<S::Instance, ExitCode> {
    crate::harness::inputs::load::<S>(path).map_err(|e| {
        report_error(&e);
        ExitCode::from(EXIT_INPUT)
    })
}

/// Prints a JSON value, pretty, on standard output.
pub(crate) fn print_json(v: &serde_json::Value) {
    say!(
        "{}",
        serde_json::to_string_pretty(v).expect("JSON values serialise")
    );
}

/// The value of a flag that takes an output file and means standard output instead.
pub(crate) const STDOUT: &str = "-";

/// Checks a flag that names an output *folder* (`fuzz --out`, `check --out`, `man
/// --out`): not `-` (standard output holds no files), not an existing file, a device or
/// a FIFO; creates it if missing and makes sure a file can be written in it.
pub(crate) fn writable_dir(dir: &std::path::Path) -> Result<(), String> {
    if is_stdout(dir) {
        return Err(
            "this --out names a folder for files; `-` (standard output) cannot hold \
                    them"
                .into(),
        );
    }
    if let Ok(m) = std::fs::metadata(dir) {
        if !m.is_dir() {
            return Err(format!(
                "{} exists and is not a folder (--out names a folder)",
                dir.display()
            ));
        }
    }
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    let probe = dir.join(format!(".gordian-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(io)?;
    std::fs::remove_file(&probe).map_err(io)
}

/// Whether an output flag's value is `-`: standard output, not a file named `-`.
pub(crate) fn is_stdout(path: &std::path::Path) -> bool {
    path.as_os_str() == STDOUT
}

/// What one output flag that writes to standard output with `-` says when another flag
/// would shape the report it replaces: `error: <this>`.
pub(crate) fn stdout_taken(flag: &str, what: &str, other: &str) -> String {
    format!(
        "{flag} - writes {what} to standard output in place of the report, so it does not \
         go with {other} (write {what} to a file, or leave {other} out)"
    )
}

/// Ends the process after a failed write to standard output (exit 1, never a panic).
pub(crate) fn write_failed(e: std::io::Error) -> ! {
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1)
}

/// Writes `text` to standard output; a write error (a full disk, a closed pipe with
/// SIGPIPE ignored) is reported with exit code 1, never a panic.
pub(crate) fn out(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(|e| {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        })
}

/// Runs the command line and returns the process exit code.
pub fn run() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match cli.command {
        Command::Resolve(args) => resolve::run(&args),
        Command::Dimacs(args) => dimacs::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Fuzz(args) => {
            let sub = matches
                .subcommand_matches("fuzz")
                .expect("the fuzz subcommand was parsed");
            fuzz::run(&args, sub)
        }
        Command::Gen(args) => {
            let sub = matches
                .subcommand_matches("gen")
                .expect("the gen subcommand was parsed");
            gen::run(&args, sub)
        }
        Command::Batch(args) => batch::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Worker(args) => worker::run(&args),
        Command::Fft(args) => fft::run(&args),
        Command::Lancer(args) => lancer::run(&args),
        Command::Foeman(args) => foeman::run(&args),
        Command::Ff8(args) => ff8::run(&args),
        Command::Setup(args) => setup::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "gordian", &mut buf);
            match out(&String::from_utf8_lossy(&buf)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
        Command::Man(args) => man::run(&args, Cli::command()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    proptest::proptest! {
        /// Random words and values in every flag position never make argument parsing
        /// panic (overflowing durations and counts are range-checked by clap).
        #[test]
        fn random_arguments_never_panic(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "resolve", "check", "fuzz", "batch", "fft", "dimacs", "replay",
                    "enumerate", "query", "--timeout", "--grace", "--seconds", "--cases",
                    "--jobs", "--case-timeout", "--players", "--max-effects", "--bound",
                    "--characters", "--shard", "--system", "--engine", "--seed", "--json",
                    "1e19", "-1", "0", "NaN", "inf", "18446744073709551616", "3/2", "0/0",
                    "ar", "fft", "x.night", "-", "", "1", "2.5", "all", "brute",
                    "lancer", "foeman", "ff8", "reach", "plan", "policies", "round",
                    "step", "--max-memory", "--limit", "--list", "--table",
                    "--closure-limit", "--property", "16777216", "16777217",
                    "99999999999999999999", "x.lancer", "x.foeman", "x.ff8", "x.fft",
                    "schema", "instance", "answer", "merge", "--expect", "--force", "auto",
                ]),
                0..8,
            )
        ) {
            let mut argv = vec!["gordian"];
            argv.extend(words);
            // A value clap accepted is within the documented ranges: --max-memory in
            // 1..=2^24 MiB, every --limit at least 1.
            if let Ok(cli) = Cli::try_parse_from(argv) {
                let dbg = format!("{cli:?}");
                for (key, max) in [("max_memory: ", 1 << 24), ("limit: ", u64::MAX),
                                   ("limit: Some(", u64::MAX)] {
                    for (at, _) in dbg.match_indices(key).filter(|(at, _)| !dbg[..*at].ends_with('_')) {
                        let digits: String = dbg[at + key.len()..]
                            .chars()
                            .take_while(char::is_ascii_digit)
                            .collect();
                        if let Ok(v) = digits.parse::<u64>() {
                            proptest::prop_assert!((1..=max).contains(&v), "{dbg}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn durations_are_range_checked() {
        assert!(parse_seconds("1.5").is_ok());
        for bad in ["0", "-1", "1e19", "inf", "NaN", "x", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
