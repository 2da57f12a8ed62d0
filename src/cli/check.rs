//! `gordian check PATH...`: every instance under the paths (any system: by extension, or
//! `--system`) through the system's engines in parallel across files, answers compared in
//! full; a table per system at the end (or one JSON document with `--json`).
//!
//! With `--against CMD`, each file is answered by an outside resolver as well (the
//! protocol of `docs/protocol.md`) and its answer compared with gordian's on the fields
//! it gives; each difference or fault of the resolver is shrunk and saved in `--out`.
//! Exit codes then: 3 gordian's own engines disagree; else 1 some difference or fault of
//! the resolver; else 2 some input error; else 5 some file gordian did not answer within
//! its limits; else 0.
//!
//! Each file is solved in a worker process (`cli/worker.rs`): killed past `--timeout`
//! (plus a margin) or `--max-memory` (plus headroom), a `timeout` or `limit` row; a
//! worker that dies is a `crash` row (exit 1 unless a disagreement ranks first).
//!
//! Exit codes: 3 some disagreement (every answer printed as JSON); else 2 when some input
//! could not be read or parsed (or nothing was found); else 5 when some instance hit
//! `--timeout`; else 0. SIGINT/SIGTERM: files not started are skipped, the table so far is
//! printed, exit 130/143.

use super::registry::{self, AgainstCheck, EngineChoice, FileCheck, RunOptions, SystemName};
use super::signals::Signals;
use super::table::print_table;
use super::worker;
use super::{parse_seconds, progress, EXIT_DISAGREE, EXIT_INPUT, EXIT_LIMIT};
use crate::harness::against::Judged;
use crate::harness::batch::Job;
use crate::harness::external::Resolver;
use crate::harness::inputs;
use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Arguments of `gordian check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Instance files (any name; `-` reads standard input) and directories (walked
    /// recursively for the extensions of every system, or of `--system`).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The system of every file (default: from each file's extension: `.night`/`.json`
    /// ?AR, `.fft` FFT).
    #[arg(long, value_enum)]
    system: Option<SystemName>,
    /// Which engines answer and are compared.
    #[arg(long, value_enum, default_value = "all")]
    engine: EngineChoice,
    /// Print one JSON document (every file's verdict, row and whole answer, and the counts)
    /// instead of the tables.
    #[arg(long)]
    json: bool,
    /// Files checked in parallel (default: the available parallelism).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// Per-file time limit in seconds (reading included); a file over it counts as a
    /// timeout.
    #[arg(long, value_parser = parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    memory: super::limits::MemoryArgs,
    /// An outside resolver to compare with gordian: a command line run through the shell
    /// for every file, with the instance in its system's text format on standard input
    /// and GORDIAN_SYSTEM set; it prints one JSON object, compared with gordian's answer
    /// on the fields it gives (docs/protocol.md). Each run may take --timeout seconds
    /// (default 10).
    #[arg(long, value_name = "CMD")]
    against: Option<String>,
    /// With --against: where the shrunk instance of each difference or fault is written
    /// (created if missing).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "against-failures",
        requires = "against"
    )]
    out: PathBuf,
}

/// The resolver's time per file when `--timeout` is not given.
const AGAINST_TIMEOUT: Duration = Duration::from_secs(10);

struct Checked {
    path: String,
    system: Option<SystemName>,
    result: FileCheck,
}

fn verdict(c: &FileCheck) -> &'static str {
    match c {
        FileCheck::Agree { .. } => "agree",
        FileCheck::Alone { .. } => "alone",
        FileCheck::Disagree { .. } => "DISAGREE",
        FileCheck::Timeout => "timeout",
        FileCheck::Limit(_) => "limit",
        FileCheck::Input(_) | FileCheck::BadEngine(_) => "error",
        FileCheck::Crash(_) => "crash",
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let signals = Signals::install();
    let found = inputs::collect(&args.paths, &registry::extensions(args.system));
    let mut checked: Vec<Checked> = found
        .errors
        .iter()
        .map(|(path, e)| Checked {
            path: path.display().to_string(),
            system: None,
            result: FileCheck::Input(format!("error: cannot read {}: {e}", path.display())),
        })
        .collect();
    if found.files.is_empty() && found.errors.is_empty() {
        let exts: Vec<String> = registry::extensions(args.system)
            .iter()
            .map(|x| format!(".{x}"))
            .collect();
        eprintln!("error: no instance files ({}) found", exts.join(" "));
        return ExitCode::from(EXIT_INPUT);
    }
    let opts = RunOptions {
        engine: args.engine,
        grace: None,
        timeout: args.timeout,
        max_memory: args.memory.bytes(),
        answers: args.json,
    };
    let threads = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start {threads} threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(cmd) = &args.against {
        return pool.install(|| against(args, cmd, &found.files, &found.errors, &opts, &signals));
    }
    // Each file is solved in a worker process under hard limits (cli/worker.rs).
    let cfg = worker::Config {
        mode: worker::Mode::Check,
        system: args.system,
        opts,
        argv: Vec::new(),
    };
    let workers = match worker::pool_or_exit(&cfg, threads) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let bar = progress::bar(Some(found.files.len() as u64), "files");
    let results: Vec<Option<Checked>> = pool.install(|| {
        found
            .files
            .par_iter()
            .map(|f| {
                if signals.any.load(Ordering::Relaxed) {
                    return None;
                }
                let path = f.display().to_string();
                let c = match registry::system_of(f, args.system) {
                    Err(msg) => Checked {
                        path,
                        system: None,
                        result: FileCheck::Input(format!("error: {msg}")),
                    },
                    Ok(name) => {
                        let job = Job {
                            path: f.clone(),
                            unreadable: None,
                            stdin: None,
                        };
                        Checked {
                            path,
                            system: Some(name),
                            result: worker::check_in_worker(&workers, &job, &cfg, &signals.any)?,
                        }
                    }
                };
                bar.inc(1);
                Some(c)
            })
            .collect()
    });
    bar.finish_and_clear();
    let skipped = results.iter().filter(|r| r.is_none()).count();
    checked.extend(results.into_iter().flatten());
    checked.sort_by(|a, b| a.path.cmp(&b.path));
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &checked {
        *counts.entry(verdict(&c.result)).or_default() += 1;
    }
    let n = |k: &str| counts.get(k).copied().unwrap_or(0);
    let printed = if args.json {
        print_json(&checked, &counts, skipped)
    } else {
        print_human(&checked, skipped)
    };
    if let Err(code) = printed {
        return code;
    }
    if let Some(code) = signals.exit_code() {
        return code;
    }
    if n("DISAGREE") > 0 {
        ExitCode::from(EXIT_DISAGREE)
    } else if n("crash") > 0 {
        ExitCode::FAILURE
    } else if n("error") > 0 {
        ExitCode::from(EXIT_INPUT)
    } else if n("timeout") + n("limit") > 0 {
        ExitCode::from(EXIT_LIMIT)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_human(checked: &[Checked], skipped: usize) -> Result<(), ExitCode> {
    let mut out = String::new();
    for c in checked {
        match &c.result {
            FileCheck::Input(msg) | FileCheck::BadEngine(msg) => eprintln!("{msg}\n"),
            FileCheck::Disagree { answers } => {
                eprintln!(
                    "error: {}: the engines disagree; this is a bug in gordian.",
                    c.path
                );
                let v = json!({"file": c.path, "answers": answers});
                out.push_str(&serde_json::to_string_pretty(&v).expect("JSON values serialise"));
                out.push('\n');
            }
            FileCheck::Alone { unfinished, .. } => eprintln!(
                "{}: NOT cross-checked: {} did not finish",
                c.path,
                unfinished.join(", ")
            ),
            FileCheck::Timeout => eprintln!("{}: timed out", c.path),
            FileCheck::Crash(how) => eprintln!("error: {}: {how}", c.path),
            FileCheck::Limit(m) => eprintln!("{}: limit: {m}", c.path),
            FileCheck::Agree { .. } => {}
        }
    }
    super::out(&out)?;
    let systems: Vec<Option<SystemName>> = {
        let mut v: Vec<_> = checked.iter().map(|c| c.system).collect();
        v.sort();
        v.dedup();
        v
    };
    for sys in systems {
        let columns: Vec<&str> = match sys {
            Some(s) => (registry::get(s).columns)(),
            None => Vec::new(),
        };
        let mut header = vec![match sys {
            Some(s) => format!("file ({})", registry::get(s).id),
            None => "file".to_string(),
        }];
        header.extend(columns.iter().map(|c| c.to_string()));
        header.push("engines".to_string());
        let rows: Vec<Vec<String>> = checked
            .iter()
            .filter(|c| c.system == sys)
            .map(|c| {
                let mut row = vec![c.path.clone()];
                let cells = match &c.result {
                    FileCheck::Agree { row, .. } | FileCheck::Alone { row, .. } => row.clone(),
                    _ => vec!["-".to_string(); columns.len()],
                };
                row.extend(cells);
                row.push(verdict(&c.result).to_string());
                row
            })
            .collect();
        print_table(&header, &rows);
        super::out("\n")?;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in checked {
        *counts.entry(verdict(&c.result)).or_default() += 1;
    }
    let n = |k: &str| counts.get(k).copied().unwrap_or(0);
    let mut line = format!(
        "{} file(s): {} agree, {} disagree, {} error(s)",
        checked.len(),
        n("agree"),
        n("DISAGREE"),
        n("error")
    );
    if n("timeout") > 0 {
        line.push_str(&format!(", {} timed out", n("timeout")));
    }
    if n("limit") > 0 {
        line.push_str(&format!(", {} at a memory limit", n("limit")));
    }
    if n("alone") > 0 {
        line.push_str(&format!(", {} not cross-checked", n("alone")));
    }
    if skipped > 0 {
        line.push_str(&format!(", {skipped} not checked (interrupted)"));
    }
    super::out(&format!("{line}\n"))
}

fn print_json(
    checked: &[Checked],
    counts: &BTreeMap<&str, usize>,
    skipped: usize,
) -> Result<(), ExitCode> {
    let files: Vec<FileEntry> = checked
        .iter()
        .map(|c| {
            let mut answer = None;
            let mut v = json!({
                "path": c.path,
                "system": c.system.map(|s| registry::get(s).id),
                "verdict": verdict(&c.result).to_lowercase(),
            });
            match &c.result {
                FileCheck::Agree {
                    row,
                    label,
                    answer: a,
                } => {
                    let cols = (registry::get(c.system.expect("checked")).columns)();
                    let cells: serde_json::Map<String, Value> = cols
                        .iter()
                        .zip(row)
                        .map(|(k, x)| (k.to_string(), json!(x)))
                        .collect();
                    v["row"] = Value::Object(cells);
                    v["label"] = json!(label);
                    answer = Some(a.as_deref().map(Streamed));
                }
                FileCheck::Alone {
                    row,
                    unfinished,
                    answer: a,
                } => {
                    v["row"] = json!(row);
                    v["unfinished"] = json!(unfinished);
                    answer = Some(a.as_deref().map(Streamed));
                }
                FileCheck::Disagree { answers } => v["answers"] = answers.clone(),
                FileCheck::Input(m) | FileCheck::BadEngine(m) => v["error"] = json!(m),
                FileCheck::Timeout => v["error"] = json!("timed out"),
                FileCheck::Limit(m) => v["error"] = json!(format!("limit: {m}")),
                FileCheck::Crash(m) => v["error"] = json!(format!("crash: {m}")),
            }
            FileEntry { base: v, answer }
        })
        .collect();
    // Written straight to standard output: the answers are spliced in as the text the
    // workers sent, never rebuilt into one document in memory.
    let doc = Doc {
        files,
        counts,
        not_checked: skipped,
    };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    serde_json::to_writer_pretty(&mut w, &doc)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(w))
        .and_then(|()| w.flush())
        .map_err(|e| {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        })
}

/// One file of `check --json`: its fields, then its answer (when it has one; `null` for
/// an agreeing or lone answer not asked for).
#[derive(serde::Serialize)]
struct FileEntry<'a> {
    #[serde(flatten)]
    base: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<Option<Streamed<'a>>>,
}

/// An answer's JSON text written through the document's serializer token by token (so
/// it is indented like the rest), never parsed into a tree.
struct Streamed<'a>(&'a RawValue);

impl serde::Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut de = serde_json::Deserializer::from_str(self.0.get());
        serde_transcode::transcode(&mut de, s)
    }
}

/// The document of `check --json`.
#[derive(serde::Serialize)]
struct Doc<'a, 'b> {
    files: Vec<FileEntry<'a>>,
    counts: &'b BTreeMap<&'b str, usize>,
    not_checked: usize,
}

/// One file checked against the resolver.
struct AgainstChecked {
    path: PathBuf,
    system: Option<SystemName>,
    result: AgainstCheck,
    saved: Option<PathBuf>,
}

fn against_verdict(c: &AgainstCheck) -> &'static str {
    match c {
        AgainstCheck::Input(_) => "error",
        AgainstCheck::Judged { judged, .. } => judged.verdict(),
    }
}

fn against_detail(c: &AgainstCheck) -> String {
    match c {
        AgainstCheck::Input(_) => "-".to_string(),
        AgainstCheck::Judged { judged, .. } => match judged {
            Judged::Agree { fields, .. } => format!("compared: {}", fields.join(" ")),
            Judged::Differ(d) => format!("first differs at {}", d.difference.field),
            Judged::Fault(f) => f.short(),
            Judged::GordianDisagrees(_) => "a bug in gordian".to_string(),
            Judged::Skipped(why) => why.clone(),
        },
    }
}

fn against(
    args: &Args,
    cmd: &str,
    files: &[PathBuf],
    errors: &[(PathBuf, std::io::Error)],
    opts: &RunOptions,
    signals: &Signals,
) -> ExitCode {
    if cmd.trim().is_empty() {
        eprintln!("error: --against needs a command line (for example --against 'python3 my_resolver.py')");
        return ExitCode::from(EXIT_INPUT);
    }
    // The folder is made when a shrunk instance is saved; a wrong one is refused now.
    if super::is_stdout(&args.out) || std::fs::metadata(&args.out).is_ok_and(|m| !m.is_dir()) {
        eprintln!(
            "error: --out {}: --out names a folder for the shrunk instances (not `-`, not a file)",
            args.out.display()
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let resolver = Resolver {
        command: cmd.to_string(),
        timeout: Some(args.timeout.unwrap_or(AGAINST_TIMEOUT)),
    };
    let mut checked: Vec<AgainstChecked> = errors
        .iter()
        .map(|(path, e)| AgainstChecked {
            path: path.clone(),
            system: None,
            result: AgainstCheck::Input(format!("error: cannot read {}: {e}", path.display())),
            saved: None,
        })
        .collect();
    let bar = progress::bar(Some(files.len() as u64), "files");
    let results: Vec<Option<AgainstChecked>> = files
        .par_iter()
        .map(|f| {
            if signals.any.load(Ordering::Relaxed) {
                return None;
            }
            let (system, result) = match registry::system_of(f, args.system) {
                Err(msg) => (None, AgainstCheck::Input(format!("error: {msg}"))),
                Ok(name) => (
                    Some(name),
                    (registry::get(name).against)(f, opts, &resolver, &signals.any),
                ),
            };
            bar.inc(1);
            Some(AgainstChecked {
                path: f.clone(),
                system,
                result,
                saved: None,
            })
        })
        .collect();
    bar.finish_and_clear();
    let skipped = results.iter().filter(|r| r.is_none()).count();
    checked.extend(results.into_iter().flatten());
    checked.sort_by(|a, b| a.path.cmp(&b.path));
    // Save each shrunk failure, then report.
    let mut write_failed = false;
    for c in &mut checked {
        let AgainstCheck::Judged {
            shrunk: Some(s), ..
        } = &c.result
        else {
            continue;
        };
        let stem = c
            .path
            .file_stem()
            .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned());
        let path = args.out.join(format!("{stem}.shrunk.{}", s.extension));
        match std::fs::create_dir_all(&args.out).and_then(|()| std::fs::write(&path, &s.text)) {
            Ok(()) => c.saved = Some(path),
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                write_failed = true;
            }
        }
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &checked {
        *counts.entry(against_verdict(&c.result)).or_default() += 1;
    }
    let printed = if args.json {
        against_json(&checked, &counts, skipped)
    } else {
        against_human(&checked, &resolver, skipped)
    };
    if let Err(code) = printed {
        return code;
    }
    if let Some(code) = signals.exit_code() {
        return code;
    }
    let has = |f: &dyn Fn(&Judged) -> bool| {
        checked
            .iter()
            .any(|c| matches!(&c.result, AgainstCheck::Judged { judged, .. } if f(judged)))
    };
    if has(&|j| matches!(j, Judged::GordianDisagrees(_))) {
        ExitCode::from(EXIT_DISAGREE)
    } else if has(&|j| j.failed()) || write_failed {
        ExitCode::FAILURE
    } else if counts.get("error").is_some_and(|&n| n > 0) {
        ExitCode::from(EXIT_INPUT)
    } else if has(&|j| matches!(j, Judged::Skipped(_))) {
        ExitCode::from(EXIT_LIMIT)
    } else {
        ExitCode::SUCCESS
    }
}

fn against_human(
    checked: &[AgainstChecked],
    resolver: &Resolver,
    skipped: usize,
) -> Result<(), ExitCode> {
    for c in checked {
        match &c.result {
            AgainstCheck::Input(msg) => eprintln!("{msg}\n"),
            AgainstCheck::Judged {
                shrunk: Some(s), ..
            } => {
                eprintln!("{}: {}", c.path.display(), against_detail(&c.result));
                if let Some(p) = &c.saved {
                    eprintln!("shrunk and saved as {}", p.display());
                }
                eprintln!("{}", s.report);
            }
            AgainstCheck::Judged { .. } => {}
        }
    }
    let header: Vec<String> = ["file", "system", "verdict", "detail"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rows: Vec<Vec<String>> = checked
        .iter()
        .map(|c| {
            vec![
                c.path.display().to_string(),
                c.system.map_or("-", |s| registry::get(s).id).to_string(),
                against_verdict(&c.result).to_string(),
                against_detail(&c.result),
            ]
        })
        .collect();
    print_table(&header, &rows);
    let failed = checked
        .iter()
        .filter(|c| matches!(&c.result, AgainstCheck::Judged { judged, .. } if judged.failed()))
        .count();
    let agree = checked
        .iter()
        .filter(|c| against_verdict(&c.result) == "agree")
        .count();
    let mut line = format!(
        "\n{} file(s) against `{}`: {agree} agree, {failed} differ or fail",
        checked.len(),
        resolver.command
    );
    let errors = checked
        .iter()
        .filter(|c| matches!(c.result, AgainstCheck::Input(_)))
        .count();
    if errors > 0 {
        line.push_str(&format!(", {errors} error(s)"));
    }
    if skipped > 0 {
        line.push_str(&format!(", {skipped} not checked (interrupted)"));
    }
    super::out(&format!("{line}\n"))
}

fn against_json(
    checked: &[AgainstChecked],
    counts: &BTreeMap<&str, usize>,
    skipped: usize,
) -> Result<(), ExitCode> {
    let files: Vec<Value> = checked
        .iter()
        .map(|c| {
            let mut v = json!({
                "path": c.path.display().to_string(),
                "system": c.system.map(|s| registry::get(s).id),
                "verdict": against_verdict(&c.result).to_lowercase(),
            });
            match &c.result {
                AgainstCheck::Input(m) => v["error"] = json!(m),
                AgainstCheck::Judged { judged, .. } => match judged {
                    Judged::Agree {
                        fields, unknown, ..
                    } => {
                        v["compared"] = json!(fields);
                        v["ignored"] = json!(unknown);
                    }
                    Judged::Differ(d) => {
                        let crate::harness::against::Differing {
                            difference,
                            theirs,
                            gordian,
                            ..
                        } = d.as_ref();
                        v["field"] = json!(difference.field);
                        v["gordian"] = difference.gordian.clone();
                        v["resolver"] = difference.theirs.clone();
                        v["gordian_answer"] =
                            crate::harness::against::shown_fields(gordian, theirs);
                        v["resolver_answer"] = Value::Object(theirs.clone());
                    }
                    Judged::Fault(f) => v["fault"] = json!(f.to_string()),
                    Judged::GordianDisagrees(lines) => v["answers"] = json!(lines),
                    Judged::Skipped(why) => v["skipped"] = json!(why),
                },
            }
            if let Some(p) = &c.saved {
                v["saved"] = json!(p.display().to_string());
            }
            v
        })
        .collect();
    json_doc(files, counts, skipped)
}

/// `check --json`'s document: every file's object, the counts by verdict, and how many
/// files were not checked.
fn json_doc(
    files: Vec<Value>,
    counts: &BTreeMap<&str, usize>,
    skipped: usize,
) -> Result<(), ExitCode> {
    let doc = json!({"files": files, "counts": counts, "not_checked": skipped});
    super::out(&format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("JSON values serialise")
    ))
}
