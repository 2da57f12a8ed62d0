//! Batch resolution: many nights in parallel, one JSON line per instance, written to a
//! report as each finishes; resumable and shardable.
//!
//! Invariants: every planned instance yields exactly one record, a bad, oversized, timed
//! out or disagreeing instance an error record, never the end of the batch; each record
//! is one line written and flushed whole, so a crash loses at most the line being
//! written; a report is only ever appended to when resuming, and a partially written
//! last line is tolerated (it is not taken as done and is terminated before appending);
//! the shard `K/N` of the sorted inputs is those at index `i` with `i % N == K - 1`, so the
//! N shards partition the inputs exactly.

use crate::check::{Differential, Verdict};
use crate::inputs;
use crate::systems::ar::resolution::sorted_ids;
use crate::systems::ar::{parse, Classification, Universe};
use crate::systems::spec::Budget;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One of N deterministic partitions of the sorted inputs: `K/N`, `1 <= K <= N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, 1-based.
    pub k: usize,
    /// N.
    pub n: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("invalid shard `{s}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// The items of this shard: index `i` with `i % n == k - 1`.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k - 1)
            .map(|(_, x)| x)
            .collect()
    }
}

/// One instance to resolve.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Job {
    /// Its path as found.
    pub path: PathBuf,
    /// Set when the path could not even be read as a file or directory.
    pub unreadable: Option<String>,
}

impl Job {
    /// The path as written in records (lossy for non-UTF-8 paths).
    pub fn key(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }
}

/// The instances to run: files under `paths` (see [`inputs::collect`]) and unreadable
/// paths, sorted by path, restricted to `shard`, less those in `done`. Also returns how
/// many were skipped because they were in `done`.
pub fn plan(paths: &[PathBuf], shard: Option<Shard>, done: &HashSet<String>) -> (Vec<Job>, usize) {
    let found = inputs::collect(paths);
    let mut jobs: Vec<Job> = found
        .files
        .into_iter()
        .map(|path| Job {
            path,
            unreadable: None,
        })
        .chain(found.errors.into_iter().map(|(path, e)| Job {
            unreadable: Some(format!("cannot read {}: {e}", path.display())),
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

/// How each instance is resolved.
#[derive(Clone)]
pub struct Options<'a> {
    /// The engine(s); several are run in parallel and compared.
    pub diff: Differential<'a>,
    /// Cancel an instance's engines after this long.
    pub timeout: Option<Duration>,
}

/// Why an instance has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// Unreadable or invalid file (the message is located).
    Input,
    /// The timeout cancelled the engines.
    Timeout,
    /// The engines disagree, or one panicked: a bug in gordian.
    Disagreement,
}

impl ErrorKind {
    /// As written in records.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Disagreement => "disagreement",
        }
    }
}

/// One instance's answer: its JSON line and what it counts as.
#[derive(Clone, Debug)]
pub struct Record {
    /// The path, as in [`Job::key`].
    pub path: String,
    /// The classification, or the kind of error.
    pub status: Result<Classification, ErrorKind>,
    /// The JSON object written as one line.
    pub json: Value,
}

fn error_record(path: String, kind: ErrorKind, message: String) -> Record {
    let json = json!({"path": path, "error": message, "error_kind": kind.name()});
    Record {
        path,
        status: Err(kind),
        json,
    }
}

/// Runs `f`, cancelling `budget` from a timer thread if it takes longer than `timeout`.
pub(crate) fn with_timeout<T>(
    timeout: Option<Duration>,
    budget: &Budget,
    f: impl FnOnce() -> T,
) -> T {
    let Some(t) = timeout else { return f() };
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let b = budget.clone();
    let timer = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(t) {
            b.cancel();
        }
    });
    let r = f();
    drop(done);
    let _ = timer.join();
    r
}

/// Loads and resolves one instance; never fails, an error is a record.
pub fn resolve_one(job: &Job, opts: &Options) -> Record {
    let path = job.key();
    if let Some(msg) = &job.unreadable {
        return error_record(path, ErrorKind::Input, msg.clone());
    }
    let ens = match parse::load(&job.path) {
        Ok(e) => e,
        Err(e) => return error_record(path, ErrorKind::Input, e.to_string()),
    };
    let u = Universe::new(&ens);
    let budget = Budget::new();
    let c = with_timeout(opts.timeout, &budget, || opts.diff.compare(&u, &budget));
    let engines: Vec<&str> = c.runs.iter().map(|r| r.engine).collect();
    let times: serde_json::Map<String, Value> = c
        .runs
        .iter()
        .map(|r| (r.engine.to_string(), json!((r.ms * 1e3).round() / 1e3)))
        .collect();
    let mut rec = match c.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => {
            let ways: usize = a.resolutions.iter().map(|r| r.ways.len()).sum();
            let (cuts, cost) = match &a.cuts {
                Some(ca) => {
                    let cuts: Vec<Vec<String>> = ca
                        .optimal
                        .iter()
                        .map(|(f, _)| sorted_ids(&u, f.ones()))
                        .collect();
                    let cost: Vec<Value> = ens
                        .priority_levels()
                        .iter()
                        .zip(&ca.cost)
                        .map(|(p, n)| json!({"priority": p, "count": n}))
                        .collect();
                    (json!(cuts), json!(cost))
                }
                None => (Value::Null, Value::Null),
            };
            let class = a.classification();
            Record {
                json: json!({
                    "path": path,
                    "classification": class.name(),
                    "resolutions": a.resolutions.len(),
                    "ways": ways,
                    "optimal_cuts": cuts,
                    "cut_cost": cost,
                }),
                path,
                status: Ok(class),
            }
        }
        Verdict::Disagree => {
            let msg = format!(
                "the engines disagree (a bug in gordian): {}",
                c.describe(&u).join("; ")
            );
            error_record(path, ErrorKind::Disagreement, msg)
        }
        Verdict::Interrupted => {
            let msg = match opts.timeout {
                Some(t) => format!("timed out after {} s", t.as_secs_f64()),
                None => "interrupted".to_string(),
            };
            error_record(path, ErrorKind::Timeout, msg)
        }
    };
    rec.json["engines"] = json!(engines);
    rec.json["times_ms"] = Value::Object(times);
    rec.json["cross_checked"] = json!(matches!(c.verdict(), Verdict::Agree(_)) && c.runs.len() > 1);
    let unfinished: Vec<&str> = c
        .runs
        .iter()
        .filter(|r| r.result.is_err())
        .map(|r| r.engine)
        .collect();
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
    /// Answers per classification.
    pub classes: BTreeMap<Classification, u64>,
    /// Error records per kind.
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, r: &Record) {
        self.written += 1;
        match r.status {
            Ok(c) => *self.classes.entry(c).or_default() += 1,
            Err(k) => *self.errors.entry(k).or_default() += 1,
        }
    }
}

/// Resolves `jobs` on a pool of `threads` threads, writing and flushing one line per
/// instance to `out` as it finishes (in completion order), and calling `on_record` after
/// each. Stops at the first write error and returns it.
pub fn run(
    jobs: &[Job],
    opts: &Options,
    threads: usize,
    out: &mut (dyn Write + Send),
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
            if lock(&state).2.is_some() {
                return;
            }
            let rec = resolve_one(job, opts);
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
pub fn done_paths(report: &str) -> HashSet<String> {
    report
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("path")?.as_str().map(str::to_string))
        .collect()
}

/// Opens the report at `path`. Resuming: opens it for appending (creating it if missing),
/// returns the paths it already has, and terminates a partial last line. Otherwise: creates
/// or truncates it.
pub fn open_report(path: &Path, resume: bool) -> io::Result<(std::fs::File, HashSet<String>)> {
    if !resume {
        return Ok((std::fs::File::create(path)?, HashSet::new()));
    }
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    let done = done_paths(&String::from_utf8_lossy(&bytes));
    if bytes.last().is_some_and(|&b| b != b'\n') {
        f.seek(SeekFrom::End(0))?;
        f.write_all(b"\n")?;
        f.flush()?;
    }
    Ok((f, done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::DynEngine;
    use crate::systems::ar::Analysis;
    use crate::systems::spec::{Engine, Interrupted};

    #[test]
    fn shards_partition_exactly() {
        let items: Vec<usize> = (0..23).collect();
        for n in 1..6 {
            let mut all: Vec<usize> = (1..=n)
                .flat_map(|k| Shard { k, n }.select(items.clone()))
                .collect();
            all.sort();
            assert_eq!(all, items);
        }
        assert_eq!("2/3".parse(), Ok(Shard { k: 2, n: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
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

    /// Waits until its budget is cancelled.
    struct Sleeper;

    impl Engine<Universe, Analysis> for Sleeper {
        fn name(&self) -> &'static str {
            "sleeper"
        }
        fn solve(&self, _: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
            loop {
                budget.check()?;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    #[test]
    fn a_timeout_is_an_error_record() {
        let dir = std::env::temp_dir().join(format!("gordian-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("slow.night");
        std::fs::write(&file, "A block B\n").unwrap();
        let engines: Vec<&DynEngine> = vec![&Sleeper];
        let opts = Options {
            diff: Differential {
                engines,
                brute_up_to: 0,
                grace: None,
            },
            timeout: Some(Duration::from_millis(50)),
        };
        let job = Job {
            path: file,
            unreadable: None,
        };
        let rec = resolve_one(&job, &opts);
        assert_eq!(rec.status, Err(ErrorKind::Timeout));
        assert_eq!(rec.json["error"], "timed out after 0.05 s");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
