//! Differential checking: several engines of one system answer the same instance and their
//! whole answers are compared. Used by `check`, `fuzz` and `batch` for every system.
//!
//! The engines are trait objects ([`DynEngine`]), so tests can plant a broken one.
//!
//! Invariants: an answer counts as agreed only when every engine that ran returned an
//! answer and all of them are `==`; an engine that panics is caught and reported as a
//! failure of that engine, never as an answer; every engine runs with a child of the
//! caller's [`Budget`], so cancelling it stops them all.

use crate::cancel::Instant;
use crate::systems::spec::{race, Budget, Engine, Interrupted, Job, LimitHit, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

/// An engine of system `S` as a trait object.
pub type DynEngine<S> = dyn Engine<<S as System>::Instance, <S as System>::Answer> + Send + Sync;

/// Why one engine gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Its budget was cancelled.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// It stopped at the memory bound on its state.
    #[error("stopped: {0}")]
    Limit(LimitHit),
    /// It panicked (a bug); the panic message.
    #[error("panicked: {0}")]
    Panicked(String),
}

/// One engine's answer to one instance.
#[derive(Clone, Debug)]
pub struct Run<A> {
    /// The engine's name.
    pub engine: &'static str,
    /// Its answer, or why there is none.
    pub result: Result<A, RunError>,
    /// Wall-clock time it took, in milliseconds.
    pub ms: f64,
}

/// What comparing the engines' answers says.
#[derive(Clone, Copy, Debug)]
pub enum Verdict<'a, A> {
    /// Every engine answered, and all answers are equal.
    Agree(&'a A),
    /// An engine panicked, or two answers differ.
    Disagree,
    /// No engine panicked, but none answered (cancelled): nothing to compare.
    Interrupted,
    /// Some engines answered (and agree), the others were stopped (grace period or
    /// timeout): an answer, but not cross-checked by them.
    Alone(&'a A),
}

/// Every engine's answer to one instance, in the order of [`Differential::engines`].
#[derive(Clone, Debug)]
pub struct Comparison<A> {
    /// One run per engine that ran.
    pub runs: Vec<Run<A>>,
}

impl<A: PartialEq> Comparison<A> {
    /// Compares the runs.
    pub fn verdict(&self) -> Verdict<'_, A> {
        let panicked = |r: &Run<A>| matches!(r.result, Err(RunError::Panicked(_)));
        if self.runs.iter().any(panicked) {
            return Verdict::Disagree;
        }
        let answers: Vec<&A> = self
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
    #[cfg(test)]
    pub fn disagrees(&self) -> bool {
        matches!(self.verdict(), Verdict::Disagree)
    }

    /// Whether more than one engine answered and all answers agree.
    pub fn cross_checked(&self) -> bool {
        matches!(self.verdict(), Verdict::Agree(_)) && self.runs.len() > 1
    }

    /// The memory limit the engines stopped at, when every engine without an answer
    /// stopped at one (with [`Verdict::Interrupted`]: the reason there is no answer);
    /// `None` if some engine was cancelled otherwise (a timeout is the reason then).
    pub fn limit_hit(&self) -> Option<LimitHit> {
        let mut hit = None;
        for r in &self.runs {
            match r.result {
                Err(RunError::Limit(l)) => hit = hit.or(Some(l)),
                Err(_) => return None,
                Ok(_) => {}
            }
        }
        hit
    }

    /// The engines that gave no answer.
    pub fn unfinished(&self) -> Vec<&'static str> {
        self.runs
            .iter()
            .filter(|r| r.result.is_err())
            .map(|r| r.engine)
            .collect()
    }
}

impl<A> Comparison<A> {
    /// One line per run: `name: summary`, with `summary` describing an answer.
    pub fn describe(&self, summary: impl Fn(&A) -> String) -> Vec<String> {
        self.runs
            .iter()
            .map(|r| match &r.result {
                Ok(a) => format!("{}: {}", r.engine, summary(a)),
                Err(e) => format!("{}: {e}", r.engine),
            })
            .collect()
    }
}

/// The engines of one system to compare on each instance.
pub struct Differential<S: System> {
    /// The engines, in report order. Each runs on an instance where
    /// [`System::runs_on`] allows it.
    pub engines: Vec<Box<DynEngine<S>>>,
    /// Once one engine has answered, how long the others may go on (`None`: no bound).
    pub grace: Option<Duration>,
    /// Whether [`System::runs_on`] decides which engines run on an instance (`false`:
    /// every engine runs, as when the user named them).
    pub filtered: bool,
}

impl<S: System> Differential<S> {
    /// Every engine of the system (reference engines where `runs_on` allows), no grace.
    pub fn all() -> Differential<S> {
        Differential {
            engines: S::engines(),
            grace: None,
            filtered: true,
        }
    }

    /// The named engines of the system, in the order given; each runs on every instance.
    pub fn only(names: &[&str]) -> Result<Differential<S>, String> {
        let mut all = S::engines();
        let mut engines = Vec::new();
        for name in names {
            let Some(i) = all.iter().position(|e| e.name() == *name) else {
                let known: Vec<&str> = S::engines().iter().map(|e| e.name()).collect();
                return Err(format!(
                    "the {} system has no engine `{name}` (its engines: {})",
                    S::NAME,
                    known.join(", ")
                ));
            };
            engines.push(all.remove(i));
        }
        Ok(Differential {
            engines,
            grace: None,
            filtered: false,
        })
    }

    /// The same engines with a grace period.
    pub fn with_grace(mut self, grace: Option<Duration>) -> Differential<S> {
        self.grace = grace;
        self
    }

    /// Runs every engine (with [`Differential::filtered`]: every engine that
    /// [`System::runs_on`] the instance), in parallel (see
    /// [`race`]: after the first answer the others get [`Differential::grace`]), and
    /// collects their answers.
    pub fn compare(&self, instance: &S::Instance, budget: &Budget) -> Comparison<S::Answer> {
        let jobs: Vec<Job<Run<S::Answer>>> = self
            .engines
            .iter()
            .filter(|e| !self.filtered || S::runs_on(e.name(), instance))
            .map(|e| -> Job<Run<S::Answer>> {
                let e: &DynEngine<S> = e.as_ref();
                Box::new(move |b: &Budget| run_one::<S>(e, instance, b))
            })
            .collect();
        Comparison {
            runs: race(budget, self.grace, jobs, |r| r.result.is_ok()),
        }
    }

    /// Whether the engines disagree on `instance` (the predicate the fuzzer shrinks with).
    #[cfg(test)]
    pub fn fails(&self, instance: &S::Instance, timeout: Option<Duration>) -> bool {
        let budget = Budget::new();
        budget
            .with_timeout(timeout, || self.compare(instance, &budget))
            .disagrees()
    }
}

/// Runs one engine, timing it and catching a panic.
pub fn run_one<S: System>(
    engine: &DynEngine<S>,
    instance: &S::Instance,
    budget: &Budget,
) -> Run<S::Answer> {
    let start = Instant::now();
    let result = match catch_unwind(AssertUnwindSafe(|| engine.solve(instance, budget))) {
        Ok(r) => r.map_err(|i| match budget.limit_hit() {
            Some(l) => RunError::Limit(l),
            None => RunError::from(i),
        }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::toy::{Sleeper, Toy, WrongOnSeven};

    struct Panics;

    impl Engine<Vec<u32>, u64> for Panics {
        fn name(&self) -> &'static str {
            "panics"
        }
        fn solve(&self, _: &Vec<u32>, _: &Budget) -> Result<u64, Interrupted> {
            panic!("planted")
        }
    }

    #[test]
    fn honest_engines_agree() {
        let c = Differential::<Toy>::all().compare(&vec![1, 7, 3], &Budget::new());
        let names: Vec<_> = c.runs.iter().map(|r| r.engine).collect();
        assert_eq!(names, ["direct", "sat"]);
        assert!(matches!(c.verdict(), Verdict::Agree(&11)));
        assert!(c.cross_checked());
    }

    #[test]
    fn a_broken_engine_disagrees_and_a_panic_is_a_failure() {
        let mut d = Differential::<Toy>::only(&["direct"]).unwrap();
        d.engines.push(Box::new(WrongOnSeven));
        assert!(d.compare(&vec![7], &Budget::new()).disagrees());
        assert!(!d.compare(&vec![6], &Budget::new()).disagrees());
        let mut p = Differential::<Toy>::only(&["direct"]).unwrap();
        p.engines.push(Box::new(Panics));
        let c = p.compare(&vec![1], &Budget::new());
        assert!(c.disagrees());
        assert_eq!(
            c.describe(|a| a.to_string())[1],
            "panics: panicked: planted"
        );
    }

    #[test]
    fn an_unknown_engine_is_named() {
        let e = Differential::<Toy>::only(&["brute"]).err().unwrap();
        assert_eq!(
            e,
            "the toy system has no engine `brute` (its engines: direct, sat)"
        );
    }

    #[test]
    fn grace_and_cancellation() {
        let mut d = Differential::<Toy>::only(&["direct"]).unwrap();
        d.engines.push(Box::new(Sleeper));
        let d = d.with_grace(Some(Duration::from_millis(20)));
        let c = d.compare(&vec![2], &Budget::new());
        assert!(matches!(c.verdict(), Verdict::Alone(&2)));
        assert_eq!(c.unfinished(), ["sleeper"]);
        let b = Budget::new();
        b.cancel();
        let only_sleeper = Differential::<Toy> {
            engines: vec![Box::new(Sleeper)],
            grace: None,
            filtered: false,
        };
        assert!(matches!(
            only_sleeper.compare(&vec![2], &b).verdict(),
            Verdict::Interrupted
        ));
    }
}
