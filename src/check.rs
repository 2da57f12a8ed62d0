//! Differential checking: several ?AR engines answer the same night and their whole
//! analyses are compared. Used by `gordian check`, `gordian fuzz` and `gordian batch`.
//!
//! The engines are pluggable ([`DynEngine`] trait objects, see [`Differential`]) so that
//! tests can plant a deliberately broken one.
//!
//! Invariants: an answer counts as agreed only when every engine that ran returned an
//! analysis and all of them are `==` (they are canonical, see `Analysis::canonicalize`);
//! an engine that panics is caught and reported as a failure of that engine, never as an
//! answer; every engine runs with the caller's [`Budget`].

use crate::systems::ar::parse::{self, LoadError};
use crate::systems::ar::{brute, direct, encode, Analysis, Universe};
use crate::systems::spec::{race, Budget, Engine, Interrupted, Job};
use rayon::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;
use std::time::Instant;

/// An ?AR engine as a trait object: any [`Engine`] from universes to analyses.
pub type DynEngine = dyn Engine<Universe, Analysis> + Sync;

/// The direct search engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Direct;

impl Engine<Universe, Analysis> for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
        direct::analyse(u, budget)
    }
}

/// The SAT engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sat;

impl Engine<Universe, Analysis> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
        encode::analyse(u, budget)
    }
}

/// Brute force. Only run on universes of at most [`brute::MAX_UNIVERSE`] effects (see
/// [`Differential::brute_up_to`]); on a larger one it answers `Interrupted`, as it gives up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Brute;

impl Engine<Universe, Analysis> for Brute {
    fn name(&self) -> &'static str {
        "brute"
    }
    fn solve(&self, u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
        budget.check()?;
        brute::analyse(u).ok_or(Interrupted)
    }
}

/// Why one engine gave no analysis.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Its budget was cancelled.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// It panicked (a bug); the panic message.
    #[error("panicked: {0}")]
    Panicked(String),
}

/// One engine's answer to one night.
#[derive(Clone, Debug)]
pub struct Run {
    /// The engine's name.
    pub engine: &'static str,
    /// Its analysis, or why there is none.
    pub result: Result<Analysis, RunError>,
    /// Wall-clock time it took, in milliseconds.
    pub ms: f64,
}

/// What comparing the engines' answers says.
#[derive(Clone, Copy, Debug)]
pub enum Verdict<'a> {
    /// Every engine answered, and all answers are equal.
    Agree(&'a Analysis),
    /// An engine panicked, or two answers differ.
    Disagree,
    /// No engine panicked, but one was interrupted, so there is nothing to compare.
    Interrupted,
    /// Some engines answered (and agree), the others were stopped after their grace
    /// period: an answer, but not cross-checked.
    Alone(&'a Analysis),
}

/// Every engine's answer to one night, in the order of [`Differential::engines`] (brute
/// force last when it ran).
#[derive(Clone, Debug)]
pub struct Comparison {
    /// One run per engine.
    pub runs: Vec<Run>,
}

impl Comparison {
    /// Compares the runs.
    pub fn verdict(&self) -> Verdict<'_> {
        let panicked = |r: &Run| matches!(r.result, Err(RunError::Panicked(_)));
        if self.runs.iter().any(panicked) {
            return Verdict::Disagree;
        }
        let answers: Vec<&Analysis> = self
            .runs
            .iter()
            .filter_map(|r| r.result.as_ref().ok())
            .collect();
        match answers.split_first() {
            Some((first, rest)) if rest.iter().all(|a| a == first) => {
                if answers.len() == self.runs.len() {
                    Verdict::Agree(first)
                } else {
                    Verdict::Alone(first)
                }
            }
            Some(_) => Verdict::Disagree,
            None => Verdict::Interrupted,
        }
    }

    /// Whether the engines disagree (or one panicked).
    pub fn disagrees(&self) -> bool {
        matches!(self.verdict(), Verdict::Disagree)
    }

    /// One line per run: `name: summary` (see [`describe`]).
    pub fn describe(&self, u: &Universe) -> Vec<String> {
        self.runs
            .iter()
            .map(|r| match &r.result {
                Ok(a) => format!("{}: {}", r.engine, describe(u, a)),
                Err(e) => format!("{}: {e}", r.engine),
            })
            .collect()
    }
}

/// The engines to compare, plus brute force on small universes.
#[derive(Clone)]
pub struct Differential<'a> {
    /// The engines that always run (at least one).
    pub engines: Vec<&'a DynEngine>,
    /// Brute force also runs when the universe has at most this many effects (0: never).
    pub brute_up_to: usize,
    /// Once one engine has answered, how long the others may go on (`None`: no bound).
    pub grace: Option<Duration>,
}

/// Brute force runs up to this universe size in [`Differential::with_brute`]: it stays
/// fast there.
pub const BRUTE_UP_TO: usize = 12;

impl Differential<'static> {
    /// The direct and SAT engines, without brute force.
    pub fn standard() -> Differential<'static> {
        Differential {
            engines: vec![&Direct, &Sat],
            brute_up_to: 0,
            grace: None,
        }
    }
}

impl<'a> Differential<'a> {
    /// The given engines, with brute force on universes of at most [`BRUTE_UP_TO`] effects.
    pub fn with_brute(engines: Vec<&'a DynEngine>) -> Differential<'a> {
        Differential {
            engines,
            brute_up_to: BRUTE_UP_TO,
            grace: None,
        }
    }

    /// Runs every engine on `u` in parallel (rayon, see [`race`]: after the first answer
    /// the others get [`Differential::grace`]) and collects their answers.
    pub fn compare(&self, u: &Universe, budget: &Budget) -> Comparison {
        let mut engines = self.engines.clone();
        if self.brute_up_to > 0 && u.len() <= self.brute_up_to.min(brute::MAX_UNIVERSE) {
            engines.push(&Brute);
        }
        let jobs: Vec<Job<Run>> = engines
            .into_iter()
            .map(|e| -> Job<Run> { Box::new(move |b: &Budget| run_one(e, u, b)) })
            .collect();
        Comparison {
            runs: race(budget, self.grace, jobs),
        }
    }

    /// Whether the engines disagree on `ens` (the predicate the fuzzer shrinks with).
    pub fn fails(&self, ens: &crate::systems::ar::Ensemble) -> bool {
        self.compare(&Universe::new(ens), &Budget::new())
            .disagrees()
    }
}

/// Runs one engine, timing it and catching a panic.
pub fn run_one(engine: &DynEngine, u: &Universe, budget: &Budget) -> Run {
    let start = Instant::now();
    let result = match catch_unwind(AssertUnwindSafe(|| engine.solve(u, budget))) {
        Ok(r) => r.map_err(RunError::from),
        Err(payload) => Err(RunError::Panicked(panic_message(payload.as_ref()))),
    };
    Run {
        engine: engine.name(),
        result,
        ms: start.elapsed().as_secs_f64() * 1e3,
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// A one-line summary of an analysis: classification, resolutions with their succeeded
/// sets and ways; for a paradox the optimal cuts and their cost.
pub fn describe(u: &Universe, a: &Analysis) -> String {
    let sets = |v: Vec<Vec<String>>| {
        v.iter()
            .map(|s| format!("{{{}}}", s.join(" ")))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let ways: usize = a.resolutions.iter().map(|r| r.ways.len()).sum();
    let mut out = format!(
        "{}, {} resolution(s), {} way(s)",
        a.classification().name(),
        a.resolutions.len(),
        ways
    );
    if !a.resolutions.is_empty() {
        let s = a.resolutions.iter().map(|r| r.succeeded_ids(u)).collect();
        out.push_str(&format!(", S = {}", sets(s)));
    }
    if let Some(c) = &a.cuts {
        let cuts = c
            .optimal
            .iter()
            .map(|(f, _)| crate::systems::ar::resolution::sorted_ids(u, f.ones()))
            .collect();
        out.push_str(&format!(
            ", {} optimal cut(s) {} of cost {:?}",
            c.optimal.len(),
            sets(cuts),
            c.cost
        ));
    }
    out
}

/// The result of checking one file.
pub struct FileCheck {
    /// The file.
    pub path: PathBuf,
    /// Its universe and the engines' answers, or why it could not be loaded.
    pub result: Result<(Universe, Comparison), LoadError>,
}

/// Loads one night file and compares the engines on it.
pub fn check_file(path: &Path, diff: &Differential) -> FileCheck {
    let result = parse::load(path).map(|ens| {
        let u = Universe::new(&ens);
        let c = diff.compare(&u, &Budget::new());
        (u, c)
    });
    FileCheck {
        path: path.to_path_buf(),
        result,
    }
}

/// Checks many files in parallel (rayon), in the given order.
pub fn check_files(paths: &[PathBuf], diff: &Differential) -> Vec<FileCheck> {
    paths.par_iter().map(|p| check_file(p, diff)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::Ensemble;

    /// Drops the last resolution of the direct engine's answer.
    struct DropsLast;

    impl Engine<Universe, Analysis> for DropsLast {
        fn name(&self) -> &'static str {
            "drops-last"
        }
        fn solve(&self, u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
            let mut a = direct::analyse(u, budget)?;
            a.resolutions.pop();
            Ok(a)
        }
    }

    struct Panics;

    impl Engine<Universe, Analysis> for Panics {
        fn name(&self) -> &'static str {
            "panics"
        }
        fn solve(&self, _: &Universe, _: &Budget) -> Result<Analysis, Interrupted> {
            panic!("planted")
        }
    }

    fn mutual_block() -> Universe {
        Universe::new(&Ensemble::from_triples(&[
            ("R1", "block", &["R2"]),
            ("R2", "block", &["R1"]),
        ]))
    }

    #[test]
    fn direct_sat_and_brute_agree() {
        let u = mutual_block();
        let c = Differential::with_brute(vec![&Direct, &Sat]).compare(&u, &Budget::new());
        let names: Vec<_> = c.runs.iter().map(|r| r.engine).collect();
        assert_eq!(names, ["direct", "sat", "brute"]);
        let Verdict::Agree(a) = c.verdict() else {
            panic!("expected agreement: {:?}", c.describe(&u))
        };
        assert_eq!(
            describe(&u, a),
            "quasi-paradox, 2 resolution(s), 2 way(s), S = {e1} | {e2}"
        );
    }

    #[test]
    fn a_broken_engine_disagrees() {
        let u = mutual_block();
        let c = Differential::standard();
        let broken = Differential {
            engines: vec![&Direct, &DropsLast],
            ..c
        };
        assert!(broken.compare(&u, &Budget::new()).disagrees());
    }

    #[test]
    fn a_panic_is_a_failure_not_the_end() {
        let u = mutual_block();
        let d = Differential {
            engines: vec![&Direct, &Panics],
            brute_up_to: 0,
            grace: None,
        };
        let c = d.compare(&u, &Budget::new());
        assert!(c.disagrees());
        assert_eq!(c.describe(&u)[1], "panics: panicked: planted");
    }

    #[test]
    fn a_cancelled_budget_is_interrupted() {
        let u = mutual_block();
        let b = Budget::new();
        b.cancel();
        let c = Differential::standard().compare(&u, &b);
        assert!(matches!(c.verdict(), Verdict::Interrupted));
    }
}
