//! Batch runs: many instances (of any system) in parallel, one JSON line per instance,
//! written to a report as each finishes; resumable and shardable.
//!
//! Invariants: every planned instance yields exactly one record, a bad, oversized, timed
//! out or disagreeing instance an error record, never the end of the batch; each record
//! is one line written and flushed whole, so a crash loses at most the line being
//! written; a report is only ever appended to when resuming, and a partially written
//! last line is removed (it is not taken as done), so the report stays JSON lines; a
//! report is locked while a run writes it; a shard ([`Shard`], `harness::shard`) plans
//! the inputs at index `i` of the sorted list with `i % N == K - 1`, so N shards partition
//! the inputs exactly.
//!
//! Reports are read by one parser, [`report_lines`] (line by line: number, byte range,
//! record or not): `--resume` here and `gordian merge` (`harness::merge`) both use it.

use super::differential::{Comparison, Differential, Verdict};
use super::inputs;
pub use super::shard::Shard;
use crate::systems::spec::{Budget, LimitHit, System};
use crate::text::LoadError;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufRead, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One instance to resolve.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// Its path as found (sent to workers as the name's bytes, so that a name that is not
    /// UTF-8 reaches them unchanged).
    #[serde(with = "path_bytes")]
    pub path: PathBuf,
    /// Set when the path could not even be read as a file or directory.
    pub unreadable: Option<String>,
    /// For `-`: standard input as the parent read it (a worker's own standard input
    /// carries its requests, so the parent reads the instance and sends it along).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<Vec<u8>>,
}

impl Job {
    /// The path as written in records (lossy for non-UTF-8 paths).
    pub fn key(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }
}

/// A path in the worker protocol: on Unix the raw bytes of the name (a file name need
/// not be UTF-8), elsewhere its text.
mod path_bytes {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::path::{Path, PathBuf};

    pub fn serialize<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            p.as_os_str().as_bytes().serialize(s)
        }
        #[cfg(not(unix))]
        {
            p.to_string_lossy().serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let bytes = Vec::<u8>::deserialize(d)?;
            Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
        }
        #[cfg(not(unix))]
        {
            Ok(PathBuf::from(String::deserialize(d)?))
        }
    }
}

/// The instances to run: files under `paths` (directories walked for `extensions`, see
/// [`inputs::collect`]) and unreadable paths, sorted by path, restricted to `shard`, less
/// those in `done`. Also returns how many were skipped because they were in `done`.
pub fn plan(
    paths: &[PathBuf],
    extensions: &[&str],
    shard: Option<Shard>,
    done: &HashSet<String>,
) -> (Vec<Job>, usize) {
    let found = inputs::collect(paths, extensions);
    let mut jobs: Vec<Job> = found
        .files
        .into_iter()
        .map(|path| Job {
            path,
            unreadable: None,
            stdin: None,
        })
        .chain(found.errors.into_iter().map(|(path, e)| Job {
            unreadable: Some(format!("cannot read {}: {e}", path.display())),
            stdin: None,
            path,
        }))
        .collect();
    jobs.sort();
    jobs.dedup_by(|a, b| a.path == b.path);
    if let Some(s) = shard {
        jobs = s.select(jobs);
    }
    let before = jobs.len();
    jobs.retain(|j| !done.contains(&j.key()));
    let skipped = before - jobs.len();
    (jobs, skipped)
}

/// Why an instance has no answer.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum ErrorKind {
    /// Unreadable or invalid file (the message is located).
    Input,
    /// The timeout cancelled the engines (or the reading of the instance).
    Timeout,
    /// An engine stopped at the memory bound on its state, and no engine answered.
    Limit,
    /// The engines disagree, or one panicked: a bug in gordian.
    Disagreement,
    /// The process solving it died (a stack overflow, an abort): a bug in gordian, or
    /// a kill from outside.
    Crash,
}

impl ErrorKind {
    /// As written in records.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Limit => "limit",
            ErrorKind::Disagreement => "disagreement",
            ErrorKind::Crash => "crash",
        }
    }
}

/// One instance's answer: its JSON line and what it counts as.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// The answer's label (see `System::label`), or the kind of error.
    pub status: Result<String, ErrorKind>,
    /// The JSON object written as one line.
    pub json: Value,
}

/// An error record for `path`.
pub fn error_record(path: String, kind: ErrorKind, message: String) -> Record {
    let json = json!({"path": path, "error": message, "error_kind": kind.name()});
    Record {
        status: Err(kind),
        json,
    }
}

/// Loads and answers one instance of `S`; never fails, an error is a record. The record
/// has `path`, `system`, `label` (`System::label`), the system's own fields
/// (`System::record`), `engines`,
/// `times_ms`, `cross_checked` and, when an engine was stopped, `unfinished`. The
/// timeout covers reading, parsing, solving and the record; each engine's state is held
/// to `max_memory` bytes (past it: a `limit` record naming what it was storing).
pub fn resolve_one<S: System>(
    job: &Job,
    diff: &Differential<S>,
    timeout: Option<Duration>,
    max_memory: u64,
) -> Record {
    let path = job.key();
    if let Some(msg) = &job.unreadable {
        return error_record(path, ErrorKind::Input, msg.clone());
    }
    let budget = Budget::with_max_memory(max_memory);
    budget.with_timeout(timeout, || {
        let instance = match inputs::load_within::<S>(&job.path, &budget) {
            Ok(Ok(i)) => i,
            Ok(Err(e)) => {
                // A parse error as the command line shows it (with the line and a caret).
                let msg = match &e {
                    LoadError::Parse(p) => p.rendered(),
                    LoadError::Io { .. } => e.to_string(),
                };
                return error_record(path, ErrorKind::Input, msg);
            }
            Err(_) => return stopped_record(path, budget.limit_hit(), timeout),
        };
        let c = diff.compare(&instance, &budget);
        answer_record::<S>(path, &instance, &c, timeout)
    })
}

fn stopped_record(path: String, limit: Option<LimitHit>, timeout: Option<Duration>) -> Record {
    match limit {
        Some(l) => error_record(path, ErrorKind::Limit, l.to_string()),
        None => {
            let msg = match timeout {
                Some(t) => format!("timed out after {} s", t.as_secs_f64()),
                None => "interrupted".to_string(),
            };
            error_record(path, ErrorKind::Timeout, msg)
        }
    }
}

fn answer_record<S: System>(
    path: String,
    instance: &S::Instance,
    c: &Comparison<S::Answer>,
    timeout: Option<Duration>,
) -> Record {
    let engines: Vec<&str> = c.runs.iter().map(|r| r.engine).collect();
    let times: serde_json::Map<String, Value> = c
        .runs
        .iter()
        .map(|r| (r.engine.to_string(), json!((r.ms * 1e3).round() / 1e3)))
        .collect();
    let mut rec = match c.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => {
            let mut json = json!({"path": path, "system": S::NAME, "label": S::label(a)});
            if let Value::Object(fields) = S::record(instance, a) {
                json.as_object_mut().expect("a JSON object").extend(fields);
            }
            Record {
                json,
                status: Ok(S::label(a)),
            }
        }
        Verdict::Disagree => {
            let msg = format!(
                "the engines disagree (a bug in gordian): {}",
                c.describe(|a| S::summary(instance, a)).join("; ")
            );
            error_record(path, ErrorKind::Disagreement, msg)
        }
        Verdict::Interrupted => stopped_record(path, c.limit_hit(), timeout),
    };
    rec.json["engines"] = json!(engines);
    rec.json["times_ms"] = Value::Object(times);
    rec.json["cross_checked"] = json!(c.cross_checked());
    let unfinished = c.unfinished();
    if rec.status.is_ok() && !unfinished.is_empty() {
        rec.json["unfinished"] = json!(unfinished);
    }
    rec
}

/// Counts of what a batch produced.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Records written.
    pub written: u64,
    /// Answers per label (see `System::label`).
    pub classes: BTreeMap<String, u64>,
    /// Error records per kind.
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, r: &Record) {
        self.written += 1;
        match &r.status {
            Ok(c) => *self.classes.entry(c.clone()).or_default() += 1,
            Err(k) => *self.errors.entry(*k).or_default() += 1,
        }
    }
}

/// Answers `jobs` with `resolve` on a pool of `threads` threads, writing and flushing one
/// line per instance to `out` as it finishes (in completion order), and calling
/// `on_record` after each. Stops at the first write error and returns it; once `stop` is
/// set, no further instance is started, and an instance `resolve` gives no record for
/// (`None`: it was stopped) is not written. `resolve` is called on the pool's threads;
/// `rayon::current_thread_index()` tells it which one.
pub fn run(
    jobs: &[Job],
    resolve: &(dyn Fn(&Job) -> Option<Record> + Sync),
    threads: usize,
    out: &mut (dyn Write + Send),
    stop: &AtomicBool,
    on_record: &(dyn Fn(&Record) + Sync),
) -> io::Result<Summary> {
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(io::Error::other)?;
    let state = Mutex::new((out, Summary::default(), None::<io::Error>));
    pool.install(|| {
        jobs.par_iter().for_each(|job| {
            if lock(&state).2.is_some() || stop.load(Ordering::Relaxed) {
                return;
            }
            let Some(rec) = resolve(job) else { return };
            let mut line = rec.json.to_string();
            line.push('\n');
            let mut st = lock(&state);
            if st.2.is_some() {
                return;
            }
            match st.0.write_all(line.as_bytes()).and_then(|()| st.0.flush()) {
                Ok(()) => {
                    st.1.add(&rec);
                    drop(st);
                    on_record(&rec);
                }
                Err(e) => st.2 = Some(e),
            }
        })
    });
    let (_, mut summary, err) = state.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = err {
        return Err(e);
    }
    summary.elapsed = start.elapsed();
    Ok(summary)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The paths recorded in a report's text; lines that are not complete JSON objects with a
/// `path` (such as a partially written last line) are ignored.
#[cfg(test)]
pub fn done_paths(report: &str) -> HashSet<String> {
    report
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("path")?.as_str().map(str::to_string))
        .collect()
}

/// One line of a report, as [`report_lines`] reads it.
#[derive(Debug)]
pub struct ReportLine {
    /// Its 1-based number.
    pub number: usize,
    /// The byte offset of its start in the report.
    pub offset: u64,
    /// Its length in bytes, the line end included.
    pub len: u64,
    /// Whether it ends with a line end; only a report's last line may not, and then it
    /// was (most likely) being written when the run was stopped.
    pub terminated: bool,
    /// What it holds.
    pub content: LineContent,
}

/// What a report's line holds.
#[derive(Debug, PartialEq)]
pub enum LineContent {
    /// Nothing but white space.
    Blank,
    /// A record: a JSON object with a string `path`.
    Record {
        /// Its `path`.
        path: String,
        /// The whole record.
        value: Value,
    },
    /// Anything else, and why it is not a record.
    NotARecord(String),
}

/// What the bytes of one report line hold (the line end, if any, included or not).
pub fn parse_line(bytes: &[u8]) -> LineContent {
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return LineContent::Blank;
    }
    match serde_json::from_str::<Value>(&text) {
        Err(e) => LineContent::NotARecord(format!("the line is not JSON ({e})")),
        Ok(value) => match value.get("path").and_then(Value::as_str) {
            Some(p) => LineContent::Record {
                path: p.to_string(),
                value,
            },
            None => {
                LineContent::NotARecord("the line is not a JSON record with a \"path\"".to_string())
            }
        },
    }
}

/// The lines of a report, read one at a time (memory holds one line, not the file), each
/// with its number, place and content. The one parser of reports: `--resume` and
/// `gordian merge` both read through it.
pub fn report_lines<R: BufRead>(reader: R) -> ReportLines<R> {
    ReportLines {
        reader,
        number: 0,
        offset: 0,
        buf: Vec::new(),
        done: false,
    }
}

/// The longest line a report may have (a record is a few KiB); a longer one means the
/// file is not a report, and reading stops there instead of holding it.
pub const MAX_REPORT_LINE: u64 = 64 << 20;

/// The iterator of [`report_lines`].
pub struct ReportLines<R> {
    reader: R,
    number: usize,
    offset: u64,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> Iterator for ReportLines<R> {
    type Item = io::Result<ReportLine>;

    fn next(&mut self) -> Option<io::Result<ReportLine>> {
        use std::io::Read;
        if self.done {
            return None;
        }
        self.buf.clear();
        let n = match (&mut self.reader)
            .take(MAX_REPORT_LINE + 1)
            .read_until(b'\n', &mut self.buf)
        {
            Ok(0) => return None,
            Ok(n) => n as u64,
            Err(e) => return Some(Err(e)),
        };
        self.number += 1;
        let terminated = self.buf.last() == Some(&b'\n');
        let line = if n > MAX_REPORT_LINE && !terminated {
            // Not a report (a device that never ends a line, say): said, not held.
            self.done = true;
            ReportLine {
                number: self.number,
                offset: self.offset,
                len: n,
                terminated: true,
                content: LineContent::NotARecord(format!(
                    "the line is longer than {} MiB",
                    MAX_REPORT_LINE >> 20
                )),
            }
        } else {
            ReportLine {
                number: self.number,
                offset: self.offset,
                len: n,
                terminated,
                content: parse_line(&self.buf),
            }
        };
        self.offset += n;
        Some(Ok(line))
    }
}

/// Why a report cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// It could not be opened, read or repaired.
    #[error("cannot open the report {}: {source}", path.display())]
    Io {
        /// The report.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Another run holds its lock.
    #[error("the report {} is being written by another gordian run (it is locked)", path.display())]
    Locked {
        /// The report.
        path: PathBuf,
    },
    /// A complete line of it is not a record.
    #[error("{}:{line}: not a gordian batch report: {why}", path.display())]
    NotAReport {
        /// The report.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
}

/// How long [`open_report`] waits for a report's lock before refusing it.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Opens the report at `path` and locks it exclusively (a second run on the same report is
/// refused, once its lock has stayed held for [`LOCK_PATIENCE`]). Resuming: opens it for appending (creating it if missing), returns the paths
/// it already has (read line by line: memory grows with the number of records, not the
/// file), and removes a partially written last line. A complete line that is not a JSON
/// object with a `path` means the file is not a report: refused, nothing written.
/// Otherwise: creates or truncates it.
pub fn open_report(
    path: &Path,
    resume: bool,
) -> Result<(std::fs::File, HashSet<String>), ReportError> {
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io)?;
    // A run killed while it started a worker can leave the lock held for a moment by
    // the worker it was forking (until that worker's `exec` closes the report): the lock
    // is tried again for a while before the report is said to be another run's.
    let since = std::time::Instant::now();
    loop {
        match f.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if since.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(ReportError::Locked {
                    path: path.to_path_buf(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
    // A report is a regular file: it is truncated, resumed and repaired in place.
    let meta = f.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file (a report is written, resumed and repaired in place; \
             name a file)",
        )));
    }
    if !resume {
        f.set_len(0).map_err(io)?;
        return Ok((f, HashSet::new()));
    }
    let mut done = HashSet::new();
    let mut complete_len: u64 = 0;
    for line in report_lines(io::BufReader::new(&f)) {
        let line = line.map_err(io)?;
        if !line.terminated {
            break; // a partial last line: removed below
        }
        complete_len = line.offset + line.len;
        match line.content {
            LineContent::Blank => {}
            LineContent::Record { path, .. } => {
                done.insert(path);
            }
            LineContent::NotARecord(why) => {
                return Err(ReportError::NotAReport {
                    path: path.to_path_buf(),
                    line: line.number,
                    why,
                })
            }
        }
    }
    f.set_len(complete_len).map_err(io)?;
    f.seek(SeekFrom::End(0)).map_err(io)?;
    Ok((f, done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::toy::{Sleeper, Toy};

    #[test]
    fn report_lines_are_numbered_placed_and_parsed() {
        let text = "{\"path\":\"a\"}\n\n[1]\r\nnot json\n{\"path\":\"b\",\"x";
        let lines: Vec<ReportLine> = report_lines(text.as_bytes()).map(Result::unwrap).collect();
        let at: Vec<(usize, u64, u64, bool)> = lines
            .iter()
            .map(|l| (l.number, l.offset, l.len, l.terminated))
            .collect();
        assert_eq!(
            at,
            [
                (1, 0, 13, true),
                (2, 13, 1, true),
                (3, 14, 5, true),
                (4, 19, 9, true),
                (5, 28, 14, false)
            ]
        );
        assert!(matches!(&lines[0].content, LineContent::Record { path, .. } if path == "a"));
        assert_eq!(lines[1].content, LineContent::Blank);
        assert_eq!(
            lines[2].content,
            LineContent::NotARecord("the line is not a JSON record with a \"path\"".into())
        );
        assert!(
            matches!(&lines[3].content, LineContent::NotARecord(w) if w.starts_with("the line is not JSON (")),
            "{:?}",
            lines[3].content
        );
        assert!(matches!(lines[4].content, LineContent::NotARecord(_)));
    }

    #[test]
    fn done_paths_tolerate_a_partial_line() {
        let text = "{\"path\":\"a.night\",\"classification\":\"paradox\"}\n\
                    not json\n{\"path\":\"b.night\",\"error\":\"x\"}\n{\"path\":\"c.ni";
        let done = done_paths(text);
        let mut v: Vec<_> = done.into_iter().collect();
        v.sort();
        assert_eq!(v, ["a.night", "b.night"]);
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gordian-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_timeout_is_an_error_record() {
        let dir = temp_dir("batch-timeout");
        let file = dir.join("slow.toy");
        std::fs::write(&file, "1 2\n").unwrap();
        let diff: Differential<Toy> = Differential {
            engines: vec![Box::new(Sleeper)],
            grace: None,
            filtered: false,
        };
        let job = Job {
            path: file,
            unreadable: None,
            stdin: None,
        };
        let rec = resolve_one(&job, &diff, Some(Duration::from_millis(50)), u64::MAX);
        assert_eq!(rec.status, Err(ErrorKind::Timeout));
        assert_eq!(rec.json["error"], "timed out after 0.05 s");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_record_carries_the_systems_fields() {
        let dir = temp_dir("batch-record");
        let file = dir.join("a.toy");
        std::fs::write(&file, "# three numbers\n1 2 4\n").unwrap();
        let job = Job {
            path: file,
            unreadable: None,
            stdin: None,
        };
        let rec = resolve_one(&job, &Differential::<Toy>::all(), None, u64::MAX);
        assert_eq!(rec.status, Ok("odd".to_string()));
        assert_eq!(rec.json["sum"], 7);
        assert_eq!(rec.json["system"], "toy");
        assert_eq!(rec.json["label"], "odd");
        assert_eq!(rec.json["cross_checked"], true);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resuming_removes_a_partial_line_and_refuses_a_foreign_file() {
        let dir = temp_dir("batch-report");
        let report = dir.join("r.jsonl");
        std::fs::write(&report, "{\"path\":\"a.toy\"}\n{\"path\":\"b.t").unwrap();
        let (f, done) = open_report(&report, true).unwrap();
        drop(f);
        assert_eq!(done.into_iter().collect::<Vec<_>>(), ["a.toy"]);
        assert_eq!(
            std::fs::read_to_string(&report).unwrap(),
            "{\"path\":\"a.toy\"}\n"
        );
        let foreign = dir.join("notes.txt");
        std::fs::write(&foreign, "shopping list\nmilk\n").unwrap();
        let err = open_report(&foreign, true).unwrap_err();
        assert!(
            matches!(err, ReportError::NotAReport { line: 1, .. }),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&foreign).unwrap(),
            "shopping list\nmilk\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_locked_report_is_refused() {
        let dir = temp_dir("batch-lock");
        let report = dir.join("r.jsonl");
        let (first, _) = open_report(&report, false).unwrap();
        let err = open_report(&report, true).unwrap_err();
        assert!(matches!(err, ReportError::Locked { .. }), "{err}");
        drop(first);
        assert!(open_report(&report, true).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A lock released within the patience (as by a killed run's worker that was being
    /// forked, once it execs) is waited for, not refused.
    #[test]
    fn a_lock_released_soon_is_waited_for() {
        let dir = temp_dir("batch-lock-soon");
        let report = dir.join("r.jsonl");
        let (first, _) = open_report(&report, false).unwrap();
        let holder = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(first);
        });
        assert!(open_report(&report, true).is_ok());
        holder.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
