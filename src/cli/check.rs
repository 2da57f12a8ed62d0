//! `gordian check PATH...`: every night under the paths through the direct and SAT
//! engines (in parallel across files), answers compared in full, a table at the end.
//!
//! Exit codes: 0 every file read and both engines agree on each; 3 some disagreement
//! (both answers printed as JSON); 2 otherwise, when some input could not be read or parsed.

use super::EXIT_INPUT;
use crate::check::{check_files, Differential, Verdict};
use crate::inputs;
use crate::systems::ar::report;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gordian check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Night files (any name) and directories (walked recursively for `.night` and
    /// `.json` files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Which game system: `ar` (nights, `.night`/`.json`) or `fft` (turn-flow scenarios,
    /// `.fft`: both engines on every variant, and each log replayed).
    #[arg(long, value_enum, default_value = "ar")]
    system: super::System,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    if args.system == super::System::Fft {
        return super::fft::check(&args.paths);
    }
    let found = inputs::collect(&args.paths);
    let mut rows: Vec<[String; 5]> = Vec::new();
    let (mut agree, mut disagree, mut errors) = (0, 0, 0);
    for (path, e) in &found.errors {
        eprintln!("cannot read {}: {e}\n", path.display());
        rows.push(row(path.display().to_string(), None, "error"));
        errors += 1;
    }
    if found.files.is_empty() && found.errors.is_empty() {
        eprintln!("no night files (.night or .json) found");
        return ExitCode::from(EXIT_INPUT);
    }
    for fc in check_files(&found.files, &Differential::standard()) {
        let name = fc.path.display().to_string();
        match &fc.result {
            Err(e) => {
                eprintln!("{e}\n");
                rows.push(row(name, None, "error"));
                errors += 1;
            }
            Ok((u, c)) => match c.verdict() {
                Verdict::Agree(a) => {
                    let cuts = a.cuts.as_ref().map_or(0, |c| c.optimal.len());
                    let stats = [
                        a.classification().name().to_string(),
                        a.resolutions.len().to_string(),
                        cuts.to_string(),
                    ];
                    rows.push(row(name, Some(stats), "agree"));
                    agree += 1;
                }
                Verdict::Disagree | Verdict::Interrupted | Verdict::Alone(_) => {
                    eprintln!("{name}: the engines disagree; this is a bug in gordian.");
                    let answers: serde_json::Map<String, Value> = c
                        .runs
                        .iter()
                        .map(|r| {
                            let v = match &r.result {
                                Ok(a) => report::to_json(u, a, None),
                                Err(e) => json!({"error": e.to_string()}),
                            };
                            (r.engine.to_string(), v)
                        })
                        .collect();
                    let v = json!({"file": name, "answers": answers});
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&v).expect("JSON values serialise")
                    );
                    rows.push(row(name, None, "DISAGREE"));
                    disagree += 1;
                }
            },
        }
    }
    rows.sort();
    print_table(&rows);
    super::check_summary(rows.len(), agree, disagree, errors)
}

fn row(file: String, stats: Option<[String; 3]>, verdict: &str) -> [String; 5] {
    let [c, r, k] = stats.unwrap_or_else(|| ["-".into(), "-".into(), "-".into()]);
    [file, c, r, k, verdict.to_string()]
}

fn print_table(rows: &[[String; 5]]) {
    let header = [
        "file",
        "classification",
        "resolutions",
        "optimal cuts",
        "engines",
    ]
    .map(String::from);
    let mut width = [0; 5];
    for r in std::iter::once(&header).chain(rows) {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for r in std::iter::once(&header).chain(rows) {
        let line = format!(
            "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            w0 = width[0],
            w1 = width[1],
            w2 = width[2],
            w3 = width[3],
        );
        println!("{}", line.trim_end());
    }
}
