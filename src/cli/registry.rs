//! The systems the CLI knows, as a table of generic entry points: the only place where the
//! harness's generic functions meet concrete systems. Adding a system adds one line to
//! [`entries`] and one variant to [`SystemName`].

use crate::harness::against::{self, Judged};
use crate::harness::batch::{self, Job, Record};
use crate::harness::external::Resolver;
use crate::harness::fuzz::{Config, Limit};
use crate::harness::{inputs, Differential, Verdict};
use crate::systems::spec::{Budget, System};
use crate::systems::{
    ar::Ar, ff8::system::Ff8, fft::Fft, foeman::system::Foeman, lancer::system::Lancer,
};
use crate::text::LoadError;
use clap::ValueEnum;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A system's name on the command line.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum SystemName {
    /// ?AR night resolution (`.night`, `.json`).
    Ar,
    /// FFT turn flow (`.fft`).
    Fft,
    /// Lancer event system (`.lancer`).
    Lancer,
    /// Foeman initiative and Action segments (`.foeman`).
    Foeman,
    /// FF8 Triple Triad rule spreading (`.ff8`).
    Ff8,
}

/// Which engines answer: every engine of the system, or a named one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Serialize, serde::Deserialize)]
pub enum EngineChoice {
    /// Every engine of the system (brute force too, where the system has one and the
    /// instance is small), compared.
    All,
    /// The direct and the SAT engine in parallel, compared.
    Both,
    /// The direct engine alone.
    Direct,
    /// The SAT engine alone.
    Sat,
    /// Brute force alone (only ?AR has one; tiny instances).
    Brute,
}

impl EngineChoice {
    /// The engine names, or `None` for every engine.
    pub fn names(self) -> Option<&'static [&'static str]> {
        match self {
            EngineChoice::All => None,
            EngineChoice::Both => Some(&["direct", "sat"]),
            EngineChoice::Direct => Some(&["direct"]),
            EngineChoice::Sat => Some(&["sat"]),
            EngineChoice::Brute => Some(&["brute"]),
        }
    }
}

/// How `check` and `batch` run each instance.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    /// The engines.
    pub engine: EngineChoice,
    /// Grace for the slower engines once one answered.
    pub grace: Option<Duration>,
    /// Per-instance time limit (reading and parsing included).
    pub timeout: Option<Duration>,
    /// Memory bound on each engine's state, in bytes.
    pub max_memory: u64,
    /// Whether `check` keeps each answer as JSON (`System::to_json`, for `--json`).
    pub answers: bool,
}

/// What checking one file gave.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum FileCheck {
    /// Every engine answered the same.
    Agree {
        /// The system's table cells.
        row: Vec<String>,
        /// The answer's label.
        label: String,
        /// The answer (`System::to_json`), when [`RunOptions::answers`] asks for it, as
        /// JSON text: `check --json` holds every file's answer until it prints, and text
        /// is a fraction of a `Value` tree's memory.
        answer: Option<Box<RawValue>>,
    },
    /// Some engine answered, the others were stopped: not cross-checked.
    Alone {
        /// The system's table cells.
        row: Vec<String>,
        /// The engines that did not finish.
        unfinished: Vec<String>,
        /// The answer (`System::to_json`), when [`RunOptions::answers`] asks for it (as
        /// JSON text).
        answer: Option<Box<RawValue>>,
    },
    /// The engines disagree (or one panicked): every answer, as JSON by engine.
    Disagree {
        /// The answers (or errors), by engine.
        answers: Value,
    },
    /// No engine answered within the time limit.
    Timeout,
    /// An engine stopped at the memory bound (the message names it) and no engine
    /// answered.
    Limit(String),
    /// The file could not be read or parsed.
    Input(String),
    /// The engine choice does not exist for this system.
    BadEngine(String),
    /// The worker process solving it died (how, in words).
    Crash(String),
}

/// One system's entry points.
pub struct Entry {
    /// Its name.
    pub name: SystemName,
    /// Its `NAME`.
    pub id: &'static str,
    /// Its file extensions.
    pub extensions: &'static [&'static str],
    /// What an instance is called.
    pub noun: &'static str,
    /// Its `check` table columns (after the file).
    pub columns: fn() -> Vec<&'static str>,
    /// Loads and checks one file.
    pub check: fn(&Path, &RunOptions) -> FileCheck,
    /// Loads and answers one batch job.
    pub batch: fn(&Job, &RunOptions) -> Record,
    /// Loads one file and compares an outside resolver's answer with gordian's; a
    /// failure is shrunk.
    pub against: fn(&Path, &RunOptions, &Resolver, &AtomicBool) -> AgainstCheck,
    /// Whether a text reads as an instance (recognising the system of a text).
    pub reads: fn(&Path, &str) -> bool,
    /// Where a text's reading first fails, (line, column) (see `page::first_error`).
    pub first_error: fn(&Path, &str) -> (usize, usize),
    /// Answers a playground request (`cli/page.rs`).
    pub page: fn(&super::page::Input) -> Result<Value, Value>,
}

/// What checking one file against an outside resolver gave.
#[derive(Clone, Debug)]
pub enum AgainstCheck {
    /// The file could not be read or parsed, or the engine choice does not exist.
    Input(String),
    /// Compared (or not, with the reason in `judged`).
    Judged {
        /// What the file gave.
        judged: Judged,
        /// For a failure: the shrunk instance's file and report.
        shrunk: Option<ShrunkFailure>,
    },
}

/// A failure shrunk to a small instance.
#[derive(Clone, Debug)]
pub struct ShrunkFailure {
    /// The instance file (a `#` header, then the instance).
    pub text: String,
    /// The report for a person.
    pub report: String,
    /// The file extension of the system.
    pub extension: &'static str,
}

fn entry<S: System>(name: SystemName) -> Entry {
    Entry {
        name,
        id: S::NAME,
        extensions: S::EXTENSIONS,
        noun: S::NOUN,
        columns: S::columns,
        check: check_file::<S>,
        batch: batch_job::<S>,
        against: against_file::<S>,
        reads: super::page::reads::<S>,
        first_error: super::page::first_error::<S>,
        page: super::page::generic::<S>,
    }
}

/// Every system, in `SystemName` order.
pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            // A night's page answer is `resolve`'s, not `check`'s.
            page: super::page::night,
            ..entry::<Ar>(SystemName::Ar)
        },
        entry::<Fft>(SystemName::Fft),
        entry::<Lancer>(SystemName::Lancer),
        entry::<Foeman>(SystemName::Foeman),
        entry::<Ff8>(SystemName::Ff8),
    ]
}

/// The entry of a system.
pub fn get(name: SystemName) -> Entry {
    entries()
        .into_iter()
        .find(|e| e.name == name)
        .expect("every SystemName has an entry")
}

/// The extensions of the given system, or of every system.
pub fn extensions(only: Option<SystemName>) -> Vec<&'static str> {
    entries()
        .into_iter()
        .filter(|e| only.is_none_or(|n| e.name == n))
        .flat_map(|e| e.extensions.iter().copied())
        .collect()
}

/// The system of a file: `forced` if given, else by extension (`-` is ?AR unless forced).
pub fn system_of(path: &Path, forced: Option<SystemName>) -> Result<SystemName, String> {
    if let Some(n) = forced {
        return Ok(n);
    }
    if path.as_os_str() == inputs::STDIN {
        return Ok(SystemName::Ar);
    }
    entries()
        .into_iter()
        .find(|e| inputs::has_extension(path, e.extensions))
        .map(|e| e.name)
        .ok_or_else(|| {
            let exts: Vec<String> = extensions(None).iter().map(|x| format!(".{x}")).collect();
            format!(
                "{}: cannot tell which system this file is for: its extension is none of {} \
                 (name the system with --system)",
                path.display(),
                exts.join(" ")
            )
        })
}

/// The differential for an engine choice.
pub fn differential<S: System>(opts: &RunOptions) -> Result<Differential<S>, String> {
    let d = match opts.engine.names() {
        None => Differential::all(),
        Some(names) => Differential::only(names)?,
    };
    Ok(d.with_grace(opts.grace))
}

fn check_file<S: System>(path: &Path, opts: &RunOptions) -> FileCheck {
    let diff = match differential::<S>(opts) {
        Ok(d) => d,
        Err(e) => return FileCheck::BadEngine(e),
    };
    let budget = Budget::with_max_memory(opts.max_memory);
    budget.with_timeout(opts.timeout, || {
        let instance = match inputs::load_within::<S>(path, &budget) {
            Ok(Ok(i)) => i,
            Ok(Err(e)) => return FileCheck::Input(render_load_error(&e)),
            Err(_) => return stopped(budget.limit_hit()),
        };
        let c = diff.compare(&instance, &budget);
        compared::<S>(&instance, &c, opts.answers)
    })
}

fn stopped(limit: Option<crate::systems::spec::LimitHit>) -> FileCheck {
    match limit {
        Some(l) => FileCheck::Limit(l.to_string()),
        None => FileCheck::Timeout,
    }
}

fn compared<S: System>(
    instance: &S::Instance,
    c: &crate::harness::Comparison<S::Answer>,
    answers: bool,
) -> FileCheck {
    let json = |a| {
        answers.then(|| {
            serde_json::value::to_raw_value(&S::to_json(instance, a)).expect("answers serialise")
        })
    };
    match c.verdict() {
        Verdict::Agree(a) => FileCheck::Agree {
            row: S::row(instance, a),
            label: S::label(a),
            answer: json(a),
        },
        Verdict::Alone(a) => FileCheck::Alone {
            row: S::row(instance, a),
            unfinished: c.unfinished().into_iter().map(String::from).collect(),
            answer: json(a),
        },
        Verdict::Interrupted => stopped(c.limit_hit()),
        Verdict::Disagree => FileCheck::Disagree {
            answers: every_answer::<S>(instance, c),
        },
    }
}

/// Every engine's answer (`System::to_json`) or error, by engine: what a disagreement
/// shows.
pub fn every_answer<S: System>(
    instance: &S::Instance,
    c: &crate::harness::Comparison<S::Answer>,
) -> Value {
    c.runs
        .iter()
        .map(|r| {
            let v = match &r.result {
                Ok(a) => S::to_json(instance, a),
                Err(e) => json!({"error": e.to_string()}),
            };
            (r.engine.to_string(), v)
        })
        .collect::<serde_json::Map<String, Value>>()
        .into()
}

fn against_file<S: System>(
    path: &Path,
    opts: &RunOptions,
    resolver: &Resolver,
    stop: &AtomicBool,
) -> AgainstCheck {
    let diff = match differential::<S>(opts) {
        Ok(d) => d,
        Err(e) => return AgainstCheck::Input(format!("error: {e}")),
    };
    let instance = match inputs::load::<S>(path) {
        Ok(i) => i,
        Err(e) => return AgainstCheck::Input(render_load_error(&e)),
    };
    let cfg = Config {
        seed: 0,
        limit: Limit::Cases(1),
        case_timeout: opts.timeout,
        max_memory: Some(opts.max_memory),
    };
    let judged = against::judge::<S>(&instance, &diff, &cfg, resolver, stop);
    if !judged.failed() {
        return AgainstCheck::Judged {
            judged,
            shrunk: None,
        };
    }
    let (small, shrunk) = against::shrink::<S>(&instance, &judged, &diff, &cfg, resolver, stop);
    let origin = format!(
        "shrunk from {} (size {}) to size {}",
        path.display(),
        S::size(&instance),
        S::size(&small)
    );
    let failure = ShrunkFailure {
        text: against::failure_file::<S>(&origin, resolver, &small, &shrunk),
        report: against::report::<S>(&small, &shrunk),
        extension: S::EXTENSIONS[0],
    };
    AgainstCheck::Judged {
        judged,
        shrunk: Some(failure),
    }
}

fn batch_job<S: System>(job: &Job, opts: &RunOptions) -> Record {
    match differential::<S>(opts) {
        Ok(d) => batch::resolve_one::<S>(job, &d, opts.timeout, opts.max_memory),
        Err(e) => batch::error_record(job.key(), batch::ErrorKind::Input, e),
    }
}

/// A load error as the CLI shows it: every message starts with `error:` or a location.
pub fn render_load_error(e: &LoadError) -> String {
    match e {
        LoadError::Io { .. } => format!("error: {e}"),
        LoadError::Parse(p) => p.rendered(),
    }
}
