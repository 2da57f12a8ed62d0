//! Merging batch reports: the reports of a batch's shards (JSON lines, read by
//! [`batch::report_lines`], the one parser of reports) joined into one report sorted by
//! path, checked on the way: every path has exactly one record (the same path twice is a
//! problem unless the records are identical: then one is kept), every line is a record
//! (a located problem otherwise; a partially written last line is named as such) and,
//! when the inputs are known ([`Merge::expect`]), every input has a record and every
//! record is for an input; when they are not, the records' `shard` tags (`K/N`, written by
//! `batch --shard`) tell which shards of the split have no record ([`Merge::shard_gaps`]).
//!
//! Invariants: reading holds one line at a time plus, per record, its path and where it
//! is (file, line, byte range), never the records themselves, so memory grows with the
//! number of records, not with their size; the merged report is the records' lines as
//! written by `batch`, byte for byte, in the order `batch` plans its inputs (sorted by
//! path); nothing is written here unless asked ([`Merge::write`]), and the caller writes
//! only a merge without problems.

use super::batch::{self, LineContent};
use super::shard::Shard;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Where a record is: its report (an index into [`Merge::reports`]), its 1-based line
/// and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The report, an index into [`Merge::reports`].
    pub report: usize,
    /// The 1-based line.
    pub line: usize,
    /// The byte offset of the line.
    pub offset: u64,
    /// The line's length in bytes, its line end included.
    pub len: u64,
}

/// What a record counts as in the summary.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tally {
    /// An answer, by its `label` (`None`: a record without one, from an older gordian).
    Answer(Option<String>),
    /// An error record, by its `error_kind`.
    Error(String),
}

/// One record of the merge.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its `path`.
    pub path: String,
    /// Where it is.
    pub place: Place,
    /// What it counts as.
    pub tally: Tally,
}

/// Why reports do not merge.
#[derive(Debug)]
pub enum Problem {
    /// A report could not be opened or read.
    Unreadable {
        /// The report.
        file: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// A complete line that is not a record.
    NotARecord {
        /// The report.
        file: PathBuf,
        /// The 1-based line.
        line: usize,
        /// Why.
        why: String,
    },
    /// A last line without a line end that is not a record: a run stopped while writing it.
    Partial {
        /// The report.
        file: PathBuf,
        /// The 1-based line.
        line: usize,
    },
    /// A path with two different records.
    Conflict {
        /// The path.
        path: String,
        /// The first record's report and line.
        first: (PathBuf, usize),
        /// The other's.
        second: (PathBuf, usize),
    },
    /// Inputs without a record (sorted as `batch` plans them).
    Missing(Vec<String>),
    /// Records whose path is not among the inputs (sorted).
    Unexpected(Vec<String>),
}

/// How many paths a [`Problem::Missing`] or [`Problem::Unexpected`] message names.
pub const LIST_AT_MOST: usize = 10;

/// The first [`LIST_AT_MOST`] of `paths`, joined, and how many more there are.
pub fn first_few(paths: &[String]) -> String {
    let mut s = paths
        .iter()
        .take(LIST_AT_MOST)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > LIST_AT_MOST {
        s.push_str(&format!(", ... ({} more)", paths.len() - LIST_AT_MOST));
    }
    s
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Unreadable { file, error } => {
                write!(f, "cannot read the report {}: {error}", file.display())
            }
            Problem::NotARecord { file, line, why } => {
                write!(
                    f,
                    "{}:{line}: not a gordian batch report: {why}",
                    file.display()
                )
            }
            Problem::Partial { file, line } => write!(
                f,
                "{}:{line}: the last line is partially written (its batch was stopped while \
                 writing it): run that shard again with --resume and the same --out to \
                 finish it",
                file.display()
            ),
            Problem::Conflict {
                path,
                first,
                second,
            } => write!(
                f,
                "{path} has two different records: {}:{} and {}:{} (one input, one record: \
                 was a shard run twice, or with different --shard values?)",
                first.0.display(),
                first.1,
                second.0.display(),
                second.1
            ),
            Problem::Missing(paths) => write!(
                f,
                "{} input(s) have no record: {} (a shard not run or not finished, or its \
                 report not given?)",
                paths.len(),
                first_few(paths)
            ),
            Problem::Unexpected(paths) => write!(
                f,
                "{} record(s) are for paths that are not inputs under --expect: {} (give \
                 --expect the same paths as batch, written the same way)",
                paths.len(),
                first_few(paths)
            ),
        }
    }
}

/// Reports read for merging: their records, sorted by path, and the problems found.
#[derive(Debug, Default)]
pub struct Merge {
    /// The reports, as given.
    pub reports: Vec<PathBuf>,
    /// One record per path, sorted as `batch` sorts its inputs.
    pub entries: Vec<Entry>,
    /// Records left out because an identical record of the same path was kept.
    pub identical: usize,
    /// Why the reports do not merge; empty when they do.
    pub problems: Vec<Problem>,
    /// The shards the records say they came from (`batch --shard` tags each record with
    /// its `shard`, `K/N`): the Ks seen for each N.
    pub shards: BTreeMap<usize, BTreeSet<usize>>,
    /// Records without a (valid) `shard` tag: from an unsharded run or an older gordian.
    pub untagged: usize,
}

/// What the shard tags say about shards that have no record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardGaps {
    /// No record carries a shard tag: nothing can be said.
    Unknown,
    /// Every shard of the one split (`N`) has records.
    Complete(usize),
    /// These shards of the split of `N` have no record (never run, a report left out, or
    /// a shard that was given no inputs).
    Missing(usize, Vec<usize>),
    /// The records come from runs split in different ways (these `N`s), or some records
    /// are tagged and some not: the reports are not the shards of one run.
    Mixed(Vec<usize>),
}

/// Orders paths as `batch::plan` orders its inputs (by path components), then as strings.
fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    Path::new(a).cmp(Path::new(b)).then_with(|| a.cmp(b))
}

fn tally(value: &Value) -> Tally {
    match value.get("error_kind").and_then(Value::as_str) {
        Some(kind) => Tally::Error(kind.to_string()),
        None => Tally::Answer(value.get("label").and_then(Value::as_str).map(String::from)),
    }
}

/// Open reports, at most [`Files::OPEN_AT_MOST`] at once (a merge of thousands of shards
/// stays under the limit on open files).
struct Files<'a> {
    paths: &'a [PathBuf],
    open: Vec<Option<File>>,
    count: usize,
}

impl<'a> Files<'a> {
    const OPEN_AT_MOST: usize = 256;

    fn new(paths: &'a [PathBuf]) -> Files<'a> {
        Files {
            paths,
            open: paths.iter().map(|_| None).collect(),
            count: 0,
        }
    }

    /// The bytes of the line at `place`.
    fn line(&mut self, place: Place) -> io::Result<Vec<u8>> {
        if self.open[place.report].is_none() {
            if self.count >= Self::OPEN_AT_MOST {
                self.open.iter_mut().for_each(|f| *f = None);
                self.count = 0;
            }
            self.open[place.report] = Some(File::open(&self.paths[place.report])?);
            self.count += 1;
        }
        let f = self.open[place.report].as_mut().expect("opened above");
        f.seek(SeekFrom::Start(place.offset))?;
        let mut buf = vec![0; place.len as usize];
        f.read_exact(&mut buf)?;
        Ok(buf)
    }
}

impl Merge {
    /// Reads `reports` line by line: every record's path and place, identical repeats
    /// dropped, every problem noted.
    pub fn scan(reports: &[PathBuf]) -> Merge {
        let mut m = Merge {
            reports: reports.to_vec(),
            ..Merge::default()
        };
        let mut files = Files::new(reports);
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (report, file) in reports.iter().enumerate() {
            let f = match File::open(file) {
                Ok(f) => f,
                Err(error) => {
                    m.problems.push(Problem::Unreadable {
                        file: file.clone(),
                        error,
                    });
                    continue;
                }
            };
            for line in batch::report_lines(io::BufReader::new(f)) {
                let line = match line {
                    Ok(l) => l,
                    Err(error) => {
                        m.problems.push(Problem::Unreadable {
                            file: file.clone(),
                            error,
                        });
                        break;
                    }
                };
                let place = Place {
                    report,
                    line: line.number,
                    offset: line.offset,
                    len: line.len,
                };
                match line.content {
                    LineContent::Blank => {}
                    LineContent::NotARecord(_) if !line.terminated => {
                        m.problems.push(Problem::Partial {
                            file: file.clone(),
                            line: line.number,
                        });
                    }
                    LineContent::NotARecord(why) => m.problems.push(Problem::NotARecord {
                        file: file.clone(),
                        line: line.number,
                        why,
                    }),
                    LineContent::Record { path, value } => match seen.get(&path) {
                        None => {
                            match value
                                .get("shard")
                                .and_then(Value::as_str)
                                .and_then(|s| s.parse::<Shard>().ok())
                            {
                                Some(s) => {
                                    m.shards.entry(s.n).or_default().insert(s.k);
                                }
                                None => m.untagged += 1,
                            }
                            seen.insert(path.clone(), m.entries.len());
                            m.entries.push(Entry {
                                path,
                                place,
                                tally: tally(&value),
                            });
                        }
                        Some(&i) => {
                            let first = m.entries[i].place;
                            let same = match files.line(first) {
                                Ok(bytes) => match batch::parse_line(&bytes) {
                                    LineContent::Record { value: v, .. } => v == value,
                                    _ => false,
                                },
                                Err(error) => {
                                    m.problems.push(Problem::Unreadable {
                                        file: reports[first.report].clone(),
                                        error,
                                    });
                                    continue;
                                }
                            };
                            if same {
                                m.identical += 1;
                            } else {
                                m.problems.push(Problem::Conflict {
                                    path,
                                    first: (reports[first.report].clone(), first.line),
                                    second: (file.clone(), line.number),
                                });
                            }
                        }
                    },
                }
            }
        }
        m.entries.sort_by(|a, b| path_order(&a.path, &b.path));
        m
    }

    /// Which shards have no record, as far as the records' shard tags tell.
    pub fn shard_gaps(&self) -> ShardGaps {
        let splits: Vec<usize> = self.shards.keys().copied().collect();
        match splits.as_slice() {
            [] => ShardGaps::Unknown,
            &[n] if self.untagged == 0 => {
                let seen = &self.shards[&n];
                let missing: Vec<usize> = (1..=n).filter(|k| !seen.contains(k)).collect();
                if missing.is_empty() {
                    ShardGaps::Complete(n)
                } else {
                    ShardGaps::Missing(n, missing)
                }
            }
            _ => ShardGaps::Mixed(splits),
        }
    }

    /// Checks the records against the inputs `batch` was given (`expected`: the inputs'
    /// paths as `batch` writes them): an input without a record, or a record for a path
    /// that is not an input, is a problem.
    pub fn expect(&mut self, expected: &[String]) {
        let have: HashSet<&str> = self.entries.iter().map(|e| e.path.as_str()).collect();
        let missing: Vec<String> = expected
            .iter()
            .filter(|p| !have.contains(p.as_str()))
            .cloned()
            .collect();
        let wanted: HashSet<&str> = expected.iter().map(String::as_str).collect();
        let unexpected: Vec<String> = self
            .entries
            .iter()
            .filter(|e| !wanted.contains(e.path.as_str()))
            .map(|e| e.path.clone())
            .collect();
        if !missing.is_empty() {
            self.problems.push(Problem::Missing(missing));
        }
        if !unexpected.is_empty() {
            self.problems.push(Problem::Unexpected(unexpected));
        }
    }

    /// The records per [`Tally`].
    pub fn tallies(&self) -> BTreeMap<&Tally, u64> {
        let mut t = BTreeMap::new();
        for e in &self.entries {
            *t.entry(&e.tally).or_default() += 1;
        }
        t
    }

    /// Writes the merged report to `out`: each record's line as read, in path order, each
    /// ending with one line end. A report that changed since [`Merge::scan`] read it (a
    /// line that is no longer the record of its path) is an error.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut files = Files::new(&self.reports);
        for e in &self.entries {
            let mut bytes = files.line(e.place)?;
            match batch::parse_line(&bytes) {
                LineContent::Record { path, .. } if path == e.path => {}
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}:{}: the report changed while it was being merged",
                            self.reports[e.place.report].display(),
                            e.place.line
                        ),
                    ))
                }
            }
            while matches!(bytes.last(), Some(b'\n' | b'\r')) {
                bytes.pop();
            }
            bytes.push(b'\n');
            out.write_all(&bytes)?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let d =
                std::env::temp_dir().join(format!("gordian-merge-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            Dir(d)
        }
        fn file(&self, name: &str, text: &str) -> PathBuf {
            let p = self.0.join(name);
            std::fs::write(&p, text).unwrap();
            p
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn merged(m: &Merge) -> String {
        let mut out = Vec::new();
        m.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn merges_sorted_by_path_keeping_the_lines() {
        let d = Dir::new("sorted");
        let a = d.file(
            "a.jsonl",
            "{\"path\":\"n/b.night\",\"label\":\"paradox\", \"x\": 1}\n\n{\"path\":\"n/d.night\",\"error\":\"e\",\"error_kind\":\"input\"}\n",
        );
        // CRLF line ends and a last line without one (complete: taken).
        let b = d.file(
            "b.jsonl",
            "{\"path\":\"n/a.night\",\"label\":\"paradox\"}\r\n{\"path\":\"n-z.night\"}",
        );
        let m = Merge::scan(&[a, b]);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(
            merged(&m),
            "{\"path\":\"n/a.night\",\"label\":\"paradox\"}\n\
             {\"path\":\"n/b.night\",\"label\":\"paradox\", \"x\": 1}\n\
             {\"path\":\"n/d.night\",\"error\":\"e\",\"error_kind\":\"input\"}\n\
             {\"path\":\"n-z.night\"}\n",
            "path order: the folder n/ before n-z.night, as batch plans"
        );
        let t = m.tallies();
        assert_eq!(t[&Tally::Answer(Some("paradox".into()))], 2);
        assert_eq!(t[&Tally::Error("input".into())], 1);
        assert_eq!(t[&Tally::Answer(None)], 1);
    }

    #[test]
    fn duplicates_identical_or_not() {
        let d = Dir::new("dup");
        let a = d.file(
            "a.jsonl",
            "{\"path\":\"x\",\"v\":1,\"w\":2}\n{\"path\":\"y\",\"v\":1}\n",
        );
        // x again, identical as JSON (other key order and spacing); y different.
        let b = d.file(
            "b.jsonl",
            "{\"w\": 2, \"path\":\"x\",\"v\":1}\n{\"path\":\"y\",\"v\":2}\n",
        );
        let m = Merge::scan(&[a.clone(), b.clone()]);
        assert_eq!(m.identical, 1);
        assert_eq!(m.problems.len(), 1, "{:?}", m.problems);
        let msg = m.problems[0].to_string();
        assert!(
            msg.starts_with(&format!(
                "y has two different records: {}:2 and {}:2",
                a.display(),
                b.display()
            )),
            "{msg}"
        );
        // Twice in one report.
        let c = d.file(
            "c.jsonl",
            "{\"path\":\"x\",\"v\":1}\n{\"path\":\"x\",\"v\":3}\n",
        );
        let m = Merge::scan(std::slice::from_ref(&c));
        assert!(
            m.problems[0]
                .to_string()
                .contains(&format!("{}:1 and {}:2", c.display(), c.display())),
            "{:?}",
            m.problems
        );
    }

    #[test]
    fn located_problems() {
        let d = Dir::new("bad");
        let a = d.file(
            "a.jsonl",
            "{\"path\":\"x\"}\nnot json\n[1, 2]\n{\"path\": 3}\n{\"path\":\"y\",\"cut",
        );
        let missing = d.0.join("missing.jsonl");
        let m = Merge::scan(&[a.clone(), missing.clone()]);
        let msgs: Vec<String> = m.problems.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 5, "{msgs:#?}");
        let a = a.display();
        assert!(
            msgs[0].starts_with(&format!(
                "{a}:2: not a gordian batch report: the line is not JSON"
            )),
            "{}",
            msgs[0]
        );
        assert!(
            msgs[1].starts_with(&format!(
                "{a}:3: not a gordian batch report: the line is not a JSON record with a \"path\""
            )),
            "{}",
            msgs[1]
        );
        assert!(msgs[2].starts_with(&format!("{a}:4: ")), "{}", msgs[2]);
        assert!(
            msgs[3].starts_with(&format!("{a}:5: the last line is partially written")),
            "{}",
            msgs[3]
        );
        assert!(
            msgs[4].starts_with(&format!("cannot read the report {}", missing.display())),
            "{}",
            msgs[4]
        );
    }

    #[test]
    fn expected_inputs() {
        let d = Dir::new("expect");
        let a = d.file("a.jsonl", "{\"path\":\"a\"}\n{\"path\":\"stray\"}\n");
        let mut m = Merge::scan(&[a]);
        let expected: Vec<String> = ["a", "b"]
            .iter()
            .map(|s| s.to_string())
            .chain((0..12).map(|i| format!("c{i:02}")))
            .collect();
        m.expect(&expected);
        let msgs: Vec<String> = m.problems.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 2, "{msgs:#?}");
        assert!(
            msgs[0].starts_with("13 input(s) have no record: b, c00, c01, c02, c03, c04, c05, c06, c07, c08, ... (3 more)"),
            "{}",
            msgs[0]
        );
        assert!(
            msgs[1]
                .starts_with("1 record(s) are for paths that are not inputs under --expect: stray"),
            "{}",
            msgs[1]
        );
    }

    #[test]
    fn a_report_changed_underneath_is_an_error() {
        let d = Dir::new("changed");
        let a = d.file("a.jsonl", "{\"path\":\"a\"}\n");
        let m = Merge::scan(std::slice::from_ref(&a));
        std::fs::write(&a, "{\"path\":\"b\"}\n").unwrap();
        let mut out = Vec::new();
        let e = m.write(&mut out).unwrap_err();
        assert!(e.to_string().contains("changed while"), "{e}");
    }
}
