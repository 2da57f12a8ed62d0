//! gordian against an outside resolver (the protocol of `docs/protocol.md`): each instance
//! is answered by gordian's own engines (cross-checked as everywhere) and by the resolver
//! ([`external`](super::external)), and the resolver's JSON object is compared with
//! gordian's answer on the fields it gives ([`protocol`](super::protocol)). Random
//! instances ([`fuzz`]) or given ones ([`judge`]); the first failure is shrunk ([`shrink`])
//! while it fails the same way, re-running the resolver on every candidate.
//!
//! Invariants: gordian's answer is the reference only when its engines agree (a
//! disagreement among them is gordian's bug, reported as such); a resolver that crashes,
//! exits non-zero, times out or prints something other than one JSON object is reported
//! as that fault, never as a disagreement; case `i` of seed `S` is the instance of
//! `fuzz::case_seed(S, i)`, the same as case `i` of a plain `fuzz` run and instance `i`
//! of `gordian gen`.

use super::differential::{Differential, Verdict};
use super::external::{self, Fault, Resolver};
use super::fuzz::Config;
use super::protocol::{self, Difference};
use crate::systems::spec::System;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// How the resolver's answer differs from gordian's.
#[derive(Clone, Debug)]
pub struct Differing {
    /// The first differing field, both values.
    pub difference: Difference,
    /// gordian's answer (its whole JSON).
    pub gordian: Value,
    /// The resolver's answer.
    pub theirs: Map<String, Value>,
    /// gordian's explanation of its answer, where the system has one (set by [`shrink`]
    /// on the instance it keeps).
    pub explanation: Option<String>,
}

/// What one instance gave.
#[derive(Clone, Debug)]
pub enum Judged {
    /// The resolver's answer matches gordian's on every field it gives.
    Agree {
        /// gordian's label of the answer.
        label: String,
        /// The fields compared.
        fields: Vec<String>,
        /// The resolver's fields gordian does not know (not compared).
        unknown: Vec<String>,
    },
    /// The answers differ.
    Differ(Box<Differing>),
    /// The resolver gave no answer.
    Fault(Fault),
    /// gordian's own engines disagree: a bug in gordian (one line per engine).
    GordianDisagrees(Vec<String>),
    /// gordian gave no answer within the time or memory limit: nothing to compare.
    Skipped(String),
}

impl Judged {
    /// Whether this is a failure of the resolver (a difference or a fault) or of gordian.
    pub fn failed(&self) -> bool {
        !matches!(self, Judged::Agree { .. } | Judged::Skipped(_))
    }

    /// A short word for tables: `agree`, `DIFFERS`, `crash`, ...
    pub fn verdict(&self) -> &'static str {
        match self {
            Judged::Agree { .. } => "agree",
            Judged::Differ(_) => "DIFFERS",
            Judged::Fault(f) => f.kind(),
            Judged::GordianDisagrees(_) => "gordian's engines disagree",
            Judged::Skipped(_) => "skipped",
        }
    }

    /// Whether `other` fails the same way (the shrinker's predicate): any difference for a
    /// difference, the same fault for a fault (see `Fault::same_as`).
    fn same_failure(&self, other: &Judged) -> bool {
        match (self, other) {
            (Judged::Differ(_), Judged::Differ(_)) => true,
            (Judged::Fault(a), Judged::Fault(b)) => a.same_as(b),
            (Judged::GordianDisagrees(_), Judged::GordianDisagrees(_)) => true,
            _ => false,
        }
    }
}

/// Answers `instance` with gordian's engines (under `cfg`'s per-case time and memory
/// bound) and with the resolver (under its own timeout), at the same time, and compares.
pub fn judge<S: System>(
    instance: &S::Instance,
    diff: &Differential<S>,
    cfg: &Config,
    resolver: &Resolver,
    stop: &AtomicBool,
) -> Judged {
    let mut text = S::to_text(instance);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let (ours, theirs) = std::thread::scope(|scope| {
        let theirs = scope.spawn(|| external::ask(resolver, S::NAME, &text, stop));
        let budget = cfg.budget();
        let ours = budget.with_timeout(cfg.case_timeout, || diff.compare(instance, &budget));
        let theirs = theirs
            .join()
            .unwrap_or_else(|_| Err(Fault::Spawn("the resolver's runner panicked".into())));
        (ours, theirs)
    });
    let answer = match ours.verdict() {
        Verdict::Agree(a) | Verdict::Alone(a) => a,
        Verdict::Disagree => {
            return Judged::GordianDisagrees(ours.describe(|a| S::summary(instance, a)))
        }
        Verdict::Interrupted => {
            let why = match ours.limit_hit() {
                Some(l) => l.to_string(),
                None => "gordian ran past the time limit".to_string(),
            };
            return Judged::Skipped(why);
        }
    };
    let theirs = match theirs {
        Ok(t) => t,
        Err(f) => return Judged::Fault(f),
    };
    let reference = S::protocol_json(instance, answer);
    let c = protocol::compare(&reference, &theirs, &S::SHAPE);
    match c.difference {
        None => Judged::Agree {
            label: S::label(answer),
            fields: c.fields,
            unknown: c.unknown,
        },
        Some(difference) => Judged::Differ(Box::new(Differing {
            difference,
            gordian: reference,
            theirs,
            explanation: None,
        })),
    }
}

/// The first failing case of a run.
#[derive(Clone, Debug)]
pub struct Failure<I> {
    /// Its index in the run.
    pub index: u64,
    /// Its generator seed.
    pub seed: u64,
    /// The instance, as generated.
    pub instance: I,
    /// What it gave.
    pub judged: Judged,
}

/// What a run against the resolver saw.
#[derive(Clone, Debug)]
pub struct Summary<I> {
    /// Cases run.
    pub cases: u64,
    /// Agreed cases by gordian's label.
    pub labels: BTreeMap<String, u64>,
    /// The fields compared, with the number of cases each was compared in.
    pub fields: BTreeMap<String, u64>,
    /// The resolver's fields gordian does not know (ignored), with their counts.
    pub unknown: BTreeMap<String, u64>,
    /// Cases gordian did not answer within its limits (not compared).
    pub skipped: u64,
    /// The failing case with the lowest index.
    pub failure: Option<Failure<I>>,
    /// Whether a stop request ended the run.
    pub stopped: bool,
    /// Wall-clock time.
    pub elapsed: std::time::Duration,
}

impl<I> Default for Summary<I> {
    fn default() -> Self {
        Summary {
            cases: 0,
            labels: BTreeMap::new(),
            fields: BTreeMap::new(),
            unknown: BTreeMap::new(),
            skipped: 0,
            failure: None,
            stopped: false,
            elapsed: std::time::Duration::ZERO,
        }
    }
}

fn add(into: &mut BTreeMap<String, u64>, from: BTreeMap<String, u64>) {
    for (k, n) in from {
        *into.entry(k).or_default() += n;
    }
}

impl<I> Summary<I> {
    fn merge(mut self, other: Summary<I>) -> Summary<I> {
        self.cases += other.cases;
        self.skipped += other.skipped;
        add(&mut self.labels, other.labels);
        add(&mut self.fields, other.fields);
        add(&mut self.unknown, other.unknown);
        self.failure = match (self.failure, other.failure) {
            (Some(a), Some(b)) => Some(if a.index <= b.index { a } else { b }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Runs random cases against the resolver in parallel until the first failure, the limit
/// or a stop request; calls `on_case` after each case.
pub fn fuzz<S: System>(
    gen: &S::GenArgs,
    diff: &Differential<S>,
    cfg: &Config,
    resolver: &Resolver,
    stop: &AtomicBool,
    on_case: &(dyn Fn() + Sync),
) -> Summary<S::Instance> {
    let one = |i: u64, seed: u64| {
        let instance = S::generate(gen, seed);
        let judged = judge::<S>(&instance, diff, cfg, resolver, stop);
        let mut s = Summary {
            cases: 1,
            ..Summary::default()
        };
        match &judged {
            Judged::Agree {
                label,
                fields,
                unknown,
            } => {
                s.labels.insert(label.clone(), 1);
                s.fields = fields.iter().map(|f| (f.clone(), 1)).collect();
                s.unknown = unknown.iter().map(|f| (f.clone(), 1)).collect();
            }
            Judged::Skipped(_) => s.skipped = 1,
            // A resolver killed because the run was asked to stop did not time out.
            Judged::Fault(Fault::Timeout(_)) if stop.load(Ordering::Relaxed) => return None,
            _ => {
                s.failure = Some(Failure {
                    index: i,
                    seed,
                    instance,
                    judged,
                });
            }
        }
        let failed = s.failure.is_some();
        Some((s, failed))
    };
    let (mut summary, elapsed) =
        super::fuzz::cases(cfg, stop, on_case, one, Summary::default, Summary::merge);
    summary.stopped = stop.load(Ordering::Relaxed);
    summary.elapsed = elapsed;
    summary
}

/// Shrinks a failing instance while it fails the same way (see [`Judged`]); a timeout of
/// the resolver is not shrunk (each try would wait for the whole timeout). Returns the
/// smallest instance found and what it gave.
pub fn shrink<S: System>(
    instance: &S::Instance,
    judged: &Judged,
    diff: &Differential<S>,
    cfg: &Config,
    resolver: &Resolver,
    stop: &AtomicBool,
) -> (S::Instance, Judged) {
    if matches!(judged, Judged::Fault(Fault::Timeout(_))) {
        return (instance.clone(), judged.clone());
    }
    let mut last = judged.clone();
    let small = super::fuzz::shrink::<S>(instance, |cand| {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let j = judge::<S>(cand, diff, cfg, resolver, stop);
        let same = judged.same_failure(&j);
        if same {
            last = j;
        }
        same
    });
    // gordian's explanation, of the shrunk instance only (for ?AR it searches a minimal
    // core, which no candidate of the shrinker needs).
    if let Judged::Differ(d) = &mut last {
        let budget = cfg.budget();
        let c = budget.with_timeout(cfg.case_timeout, || diff.compare(&small, &budget));
        if let Verdict::Agree(a) | Verdict::Alone(a) = c.verdict() {
            d.explanation = S::explain(&small, a);
        }
    }
    (small, last)
}

/// The file for a failing instance: a `#` header saying where it came from and what each
/// side answered, then the instance in the system's format.
pub fn failure_file<S: System>(
    origin: &str,
    resolver: &Resolver,
    instance: &S::Instance,
    judged: &Judged,
) -> String {
    let mut out = String::new();
    let mut line = |s: &str| {
        for l in s.lines() {
            out.push_str("# ");
            out.push_str(l);
            out.push('\n');
        }
    };
    match judged {
        Judged::Differ(d) => {
            let Differing {
                difference,
                gordian,
                theirs,
                ..
            } = d.as_ref();
            line(&format!(
                "gordian and the resolver `{}` answer this {} differently.",
                resolver.command,
                S::NOUN
            ));
            line(origin);
            line(&difference.to_string());
            let shown = shown_fields(gordian, theirs);
            line(&format!(
                "gordian's answer (the resolver's fields): {shown}"
            ));
            line(&format!(
                "the resolver's answer: {}",
                Value::Object(theirs.clone())
            ));
        }
        Judged::Fault(f) => {
            line(&format!(
                "the resolver `{}` gave no answer on this {}: {}.",
                resolver.command,
                S::NOUN,
                f.kind()
            ));
            line(origin);
            line(&f.to_string());
        }
        Judged::GordianDisagrees(lines) => {
            line(&format!(
                "gordian's own engines disagree on this {}; this is a bug in gordian.",
                S::NOUN
            ));
            line(origin);
            for l in lines {
                line(l);
            }
        }
        Judged::Agree { .. } | Judged::Skipped(_) => {
            line(origin);
        }
    }
    out.push_str(&S::to_text(instance));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The report of a (shrunk) failure for a person: the instance, what differs (or the
/// fault), and gordian's explanation of its answer where the system has one.
pub fn report<S: System>(instance: &S::Instance, judged: &Judged) -> String {
    use std::fmt::Write as _;
    let mut out = format!("the {} (size {}):\n", S::NOUN, S::size(instance));
    for l in S::to_text(instance).lines() {
        let _ = writeln!(out, "  {l}");
    }
    match judged {
        Judged::Differ(d) => {
            let Differing {
                difference,
                gordian,
                theirs,
                explanation,
            } = d.as_ref();
            let _ = writeln!(out, "{difference}");
            let _ = writeln!(
                out,
                "gordian's answer (the resolver's fields): {}",
                shown_fields(gordian, theirs)
            );
            let _ = writeln!(
                out,
                "the resolver's answer: {}",
                Value::Object(theirs.clone())
            );
            if let Some(why) = explanation {
                let _ = writeln!(out, "why gordian answers so:");
                for l in why.lines() {
                    let _ = writeln!(out, "  {l}");
                }
            }
        }
        Judged::Fault(f) => {
            let _ = writeln!(out, "{f}");
        }
        Judged::GordianDisagrees(lines) => {
            let _ = writeln!(out, "gordian's own engines disagree (a bug in gordian):");
            for l in lines {
                let _ = writeln!(out, "  {l}");
            }
        }
        Judged::Agree { .. } | Judged::Skipped(_) => {}
    }
    out
}

/// gordian's answer cut down to the top-level fields the resolver gave, as one JSON line.
pub fn shown_fields(gordian: &Value, theirs: &Map<String, Value>) -> Value {
    Value::Object(
        gordian
            .as_object()
            .map(|g| {
                g.iter()
                    .filter(|(k, _)| theirs.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default(),
    )
}
