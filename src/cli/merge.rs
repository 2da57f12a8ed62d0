//! `gordian merge REPORT...`: joins the reports of a batch's shards (`batch --shard ...
//! --out`) into one report sorted by path, and checks that every input has exactly one
//! record (`harness::merge`; the reports are read by `harness::batch`'s report reader, as
//! `--resume` reads them). The JSON reports of `setup analyse --shard K/N --json` are
//! added up instead (`setup::merge`).
//!
//! A path recorded twice (in one report or across reports) is an error unless the records
//! are identical; a line that is not a record is a located error (`FILE:LINE`), a
//! partially written last line (an interrupted shard) is named as such; with `--expect
//! PATH...` (the paths given to `batch`, walked the same way) an input without a record,
//! or a record that is not for an input, is an error. On any of these, nothing is written.
//! The merged report is written to a temporary file beside `--out` and renamed, so an
//! `--out` is never left half written; an existing `--out` is refused without `--force`.
//!
//! Exit codes: 0 merged (every input has exactly one record); 2 bad arguments, an `--out`
//! that exists (without `--force`), or reports that do not merge (nothing written); 1 the
//! merged report could not be written.

use super::registry::{self, SystemName};
use super::EXIT_INPUT;
use crate::harness::batch;
use crate::harness::merge::{first_few, Merge, Problem, ShardGaps, Tally};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The example at the end of `gordian merge --help`.
pub const EXAMPLE: &str = "\
Example: four shards of one batch, on four machines (or as a Slurm job array or a Kubernetes
Indexed Job, with --shard auto), then one report:

  gordian batch nights/ --shard 1/4 --out reports/shard-1.jsonl   # ... and 2/4, 3/4, 4/4
  gordian merge reports/shard-*.jsonl --out report.jsonl --expect nights/

Give --expect the same paths (and --system) as batch: every instance under them must have
exactly one record. Recipes for Slurm and Kubernetes: deploy/README.md.";

/// Arguments of `gordian merge`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Reports to join: JSON lines written by `gordian batch --out`, one per shard.
    #[arg(required = true, value_name = "REPORT")]
    reports: Vec<PathBuf>,
    /// Write the merged report to this file (`-`: standard output, the default). It is
    /// written to a temporary file beside it, then renamed.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
    /// The paths given to `batch` (files and folders, walked as `batch` walks them): every
    /// input under them must have a record, and every record must be for one of them.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    expect: Vec<PathBuf>,
    /// With --expect: the `--system` given to `batch` (default: every system's
    /// extensions).
    #[arg(long, value_enum, requires = "expect")]
    system: Option<SystemName>,
}

/// How many problems of one kind are printed before the rest are counted.
const PRINT_AT_MOST: usize = 10;

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let out = args.out.as_deref().filter(|p| p.as_os_str() != "-");
    if let Some(out) = out {
        if let Ok(m) = std::fs::metadata(out) {
            // --force replaces a file, never a device, a FIFO or a directory.
            if !m.is_file() {
                eprintln!(
                    "error: {} is not a regular file: --out writes a report file (use `-` for \
                     standard output)",
                    out.display()
                );
                return ExitCode::from(EXIT_INPUT);
            }
        }
        if !args.force && std::fs::symlink_metadata(out).is_ok() {
            eprintln!(
                "error: {} exists already: pass --force to overwrite it",
                out.display()
            );
            return ExitCode::from(EXIT_INPUT);
        }
    }
    // The JSON reports of `setup analyse --shard` merge into one setup report.
    if let Some(code) = super::setup::merge(&args.reports, out) {
        return code;
    }
    let mut merge = Merge::scan(&args.reports);
    let expected = if args.expect.is_empty() {
        None
    } else {
        let (jobs, _) = batch::plan(
            &args.expect,
            &registry::extensions(args.system),
            None,
            &HashSet::new(),
        );
        let keys: Vec<String> = jobs.iter().map(batch::Job::key).collect();
        merge.expect(&keys);
        Some(keys.len())
    };
    if !merge.problems.is_empty() {
        print_problems(&merge.problems);
        eprintln!(
            "error: the reports do not merge ({} problem(s) above); nothing written",
            merge.problems.len()
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let written = match out {
        Some(path) => write_file(&merge, path),
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            merge
                .write(&mut w)
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    };
    if let Err(e) = written {
        eprintln!("error: {e}");
        // A file that cannot be written is the caller's input (exit 2, as everywhere);
        // standard output that fails is 1.
        return if out.is_some() {
            ExitCode::from(EXIT_INPUT)
        } else {
            ExitCode::FAILURE
        };
    }
    eprintln!("{}", summary(&merge, out, expected));
    if expected.is_none() {
        let check = "pass the paths given to batch as --expect PATH... to check that every \
                     input has a record";
        match merge.shard_gaps() {
            ShardGaps::Unknown => eprintln!(
                "warning: without --expect, a shard that was not run (or whose report was \
                 left out) goes unnoticed: {check}"
            ),
            ShardGaps::Complete(n) => eprintln!(
                "every shard of {n} has records (without --expect, inputs a shard skipped go \
                 unnoticed: {check})"
            ),
            ShardGaps::Missing(n, missing) => {
                let ks: Vec<String> = missing.iter().map(usize::to_string).collect();
                eprintln!(
                    "warning: no record from shard(s) {} of {n}: not run, its report left out, \
                     or given no inputs; {check}",
                    first_few(&ks)
                );
            }
            ShardGaps::Mixed(splits) => {
                let ns: Vec<String> = splits.iter().map(usize::to_string).collect();
                eprintln!(
                    "warning: the records come from runs split in different ways (into {} \
                     shards{}), so missing shards cannot be told; {check}",
                    ns.join(" and "),
                    if merge.untagged > 0 {
                        "; some not split"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    ExitCode::SUCCESS
}

/// Prints the problems, at most [`PRINT_AT_MOST`] of each kind.
fn print_problems(problems: &[Problem]) {
    let kind = |p: &Problem| std::mem::discriminant(p);
    let mut shown: Vec<(std::mem::Discriminant<Problem>, usize)> = Vec::new();
    for p in problems {
        let k = kind(p);
        let n = match shown.iter_mut().find(|(d, _)| *d == k) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                shown.push((k, 1));
                1
            }
        };
        if n <= PRINT_AT_MOST {
            eprintln!("error: {p}");
        }
    }
    for (k, n) in shown {
        if n > PRINT_AT_MOST {
            let what = match problems.iter().find(|p| kind(p) == k) {
                Some(Problem::NotARecord { .. }) => "lines that are not records",
                Some(Problem::Conflict { .. }) => "paths with different records",
                Some(Problem::Partial { .. }) => "partially written reports",
                _ => "unreadable reports",
            };
            eprintln!("error: ... and {} more {what}", n - PRINT_AT_MOST);
        }
    }
}

/// Writes the merged report to a new file beside `path`, then renames it to `path`.
fn write_file(merge: &Merge, path: &Path) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let mut attempt = 0u32;
    let (tmp, file) = loop {
        let tmp = dir.join(format!(
            ".{name}.merge-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(e) => return Err(cannot(e)),
        }
    };
    let mut w = std::io::BufWriter::new(file);
    let result = merge
        .write(&mut w)
        .and_then(|()| w.flush())
        .and_then(|()| w.get_ref().sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(cannot(e));
    }
    Ok(())
}

/// The closing line: records, per label and per error kind, and what was checked.
fn summary(merge: &Merge, out: Option<&Path>, expected: Option<usize>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for (t, n) in merge.tallies() {
        match t {
            Tally::Answer(Some(label)) => parts.push(format!("{n} {label}")),
            Tally::Answer(None) => parts.push(format!("{n} without a label")),
            Tally::Error(kind) => errors.push(format!("{n} {kind} error(s)")),
        }
    }
    parts.extend(errors);
    let mut line = format!(
        "merged {} record(s) from {} report(s) into {}: {}",
        merge.entries.len(),
        merge.reports.len(),
        out.map_or_else(
            || "standard output".to_string(),
            |p| p.display().to_string()
        ),
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    );
    if merge.identical > 0 {
        line.push_str(&format!(
            "; {} identical duplicate record(s) left out",
            merge.identical
        ));
    }
    if let Some(n) = expected {
        line.push_str(&format!(
            "; every one of the {n} input(s) has exactly one record"
        ));
    }
    line
}
