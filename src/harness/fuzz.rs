//! Differential fuzzing of any system: random instances from the system's generator, each
//! answered by every engine of a [`Differential`]; the first failing instance is shrunk
//! ([`shrink`]) and written in the system's format with a `#` header saying what
//! disagreed.
//!
//! Invariants: case `i` of seed `S` is a pure function of the generator arguments, `S`
//! and `i` ([`case_seed`]), so any case can be regenerated; cases run in parallel (rayon),
//! handed out in index order, and stop at the first failure, the limit, or a stop request;
//! when several cases fail before the others notice, the one with the lowest index is
//! kept; a case over the per-case timeout or memory bound is counted as skipped (each
//! reason on its own), never as a failure. A case over the timeout while other cases ran
//! beside it is run once more after them, alone ([`run_with`]): it is skipped only if it
//! is over the timeout with the machine to itself.
//!
//! A case is solved by a function the caller gives ([`run_with`]): in this process
//! ([`solve_case`], [`run`]), or in a worker process (`gordian fuzz` does that, so a case
//! that crashes its process, or outgrows the limits without noticing, costs that case:
//! a crash is a failure, found and shrunk like a disagreement). What a case gave travels
//! as a [`Case`], which serialises.

use super::differential::{Differential, RunError, Verdict};
use crate::cancel::Instant;
use crate::systems::spec::{Budget, System};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// When to stop fuzzing (besides a failure).
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// After this many cases.
    Cases(u64),
    /// After this much time.
    Time(Duration),
}

/// How to fuzz (the generator's knobs are the system's own `GenArgs`).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The run's seed.
    pub seed: u64,
    /// When to stop.
    pub limit: Limit,
    /// A case over this is cancelled and counted as skipped.
    pub case_timeout: Option<Duration>,
    /// Memory bound in bytes on each engine's state in one case (`None`: unbounded); a
    /// case past it is stopped and counted in [`Summary::over_memory`].
    pub max_memory: Option<u64>,
}

impl Config {
    /// A fresh budget for one case.
    pub fn budget(&self) -> Budget {
        self.max_memory
            .map_or_else(Budget::new, Budget::with_max_memory)
    }
}

/// One step of SplitMix64: a bijective 64-bit mix.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator seed of case `index` of the run with seed `seed`.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ index)
}

/// The first failing case, as generated.
#[derive(Clone, Debug)]
pub struct Failure<I> {
    /// Its index in the run.
    pub index: u64,
    /// Its generator seed.
    pub seed: u64,
    /// The instance.
    pub instance: I,
    /// What it gave: a disagreement, or a crash of its worker process.
    pub case: Case,
}

impl<I> Failure<I> {
    /// Whether its worker process crashed (else the engines disagree).
    pub fn crashed(&self) -> bool {
        matches!(self.case.outcome, Outcome::Crashed(_))
    }
}

/// What one case gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Every engine that ran agrees; the answer's label (`System::label`).
    Agree(String),
    /// No answer within the per-case timeout.
    TimedOut,
    /// An engine stopped at the memory bound, so nothing was compared.
    OverMemory,
    /// The engines disagree (or one panicked): one line per engine.
    Disagree(Vec<String>),
    /// The process solving the case died (a worker process): how, in words (`the worker
    /// process crashed: killed by signal ...`).
    Crashed(String),
    /// The instance given as text could not be read (shrinking through a worker).
    Unreadable(String),
}

/// One case: which engines ran on it and what it gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    /// The engines that ran.
    pub engines: Vec<String>,
    /// What the case gave.
    pub outcome: Outcome,
}

impl Case {
    /// A case with no engine run (a worker killed or dead).
    pub fn bare(outcome: Outcome) -> Case {
        Case {
            engines: Vec::new(),
            outcome,
        }
    }

    /// Whether it fails as `first` did: a crash for a crash, a disagreement for a
    /// disagreement (the shrinker's predicate).
    pub fn fails_like(&self, first: &Case) -> bool {
        matches!(
            (&self.outcome, &first.outcome),
            (Outcome::Disagree(_), Outcome::Disagree(_))
                | (Outcome::Crashed(_), Outcome::Crashed(_))
        )
    }

    /// The lines describing a failure: the engines' answers, or how the process died.
    pub fn lines(&self) -> Vec<String> {
        match &self.outcome {
            Outcome::Disagree(lines) => lines.clone(),
            Outcome::Crashed(how) => vec![how.clone()],
            _ => Vec::new(),
        }
    }
}

/// Solves one case in this process: every engine of `diff` on `instance`, under `cfg`'s
/// per-case timeout and memory bound.
pub fn solve_case<S: System>(instance: &S::Instance, diff: &Differential<S>, cfg: &Config) -> Case {
    let budget = cfg.budget();
    let c = budget.with_timeout(cfg.case_timeout, || diff.compare(instance, &budget));
    let engines = c.runs.iter().map(|r| r.engine.to_string()).collect();
    let outcome = match c.verdict() {
        Verdict::Agree(a) => Outcome::Agree(S::label(a)),
        Verdict::Interrupted | Verdict::Alone(_) => {
            if c.runs
                .iter()
                .any(|r| matches!(r.result, Err(RunError::Limit(_))))
            {
                Outcome::OverMemory
            } else {
                Outcome::TimedOut
            }
        }
        Verdict::Disagree => Outcome::Disagree(c.describe(|a| S::summary(instance, a))),
    };
    Case { engines, outcome }
}

/// What a run saw.
#[derive(Clone, Debug)]
pub struct Summary<I> {
    /// Cases run (skipped ones included).
    pub cases: u64,
    /// Agreed answers by label (see `System::label`), with their counts.
    pub labels: BTreeMap<String, u64>,
    /// How many cases each engine ran on.
    pub engine_runs: BTreeMap<String, u64>,
    /// Cases cancelled by the per-case timeout (when run alone, if they were retried).
    pub skipped: u64,
    /// Cases over the per-case timeout beside other cases that were answered when run
    /// again alone (and are counted as answered, not in `skipped`).
    pub retried: u64,
    /// Cases stopped at the memory bound (some engine hit it, so nothing was compared).
    pub over_memory: u64,
    /// The indices of the cases counted in `skipped`, ascending.
    pub skipped_cases: Vec<u64>,
    /// The indices of the cases counted in `over_memory`, ascending.
    pub over_memory_cases: Vec<u64>,
    /// The failing case with the lowest index, if any.
    pub failure: Option<Failure<I>>,
    /// Whether the run was stopped from outside (a signal) before its limit.
    pub stopped: bool,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl<I> Default for Summary<I> {
    fn default() -> Self {
        Summary {
            cases: 0,
            labels: BTreeMap::new(),
            engine_runs: BTreeMap::new(),
            skipped: 0,
            retried: 0,
            over_memory: 0,
            skipped_cases: Vec::new(),
            over_memory_cases: Vec::new(),
            failure: None,
            stopped: false,
            elapsed: Duration::ZERO,
        }
    }
}

impl<I> Summary<I> {
    fn merge(mut self, other: Summary<I>) -> Summary<I> {
        self.cases += other.cases;
        self.skipped += other.skipped;
        self.retried += other.retried;
        self.over_memory += other.over_memory;
        self.skipped_cases.extend(other.skipped_cases);
        self.over_memory_cases.extend(other.over_memory_cases);
        for (c, n) in other.labels {
            *self.labels.entry(c).or_default() += n;
        }
        for (e, n) in other.engine_runs {
            *self.engine_runs.entry(e).or_default() += n;
        }
        self.failure = match (self.failure, other.failure) {
            (Some(a), Some(b)) => Some(if a.index <= b.index { a } else { b }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// The parallel loop every fuzz run shares: `case(i, seed)` for case indices in order
/// (rayon), until a case reports a failure (`true`) or ends the run (`None`), the limit of
/// `cfg`, or `stop`; each
/// case's result is merged with `merge` (starting from `zero`); `on_case` after each case.
/// Returns the merged result and the elapsed time.
pub fn cases<T: Send>(
    cfg: &Config,
    stop: &AtomicBool,
    on_case: &(dyn Fn() + Sync),
    case: impl Fn(u64, u64) -> Option<(T, bool)> + Sync,
    zero: impl Fn() -> T + Sync + Send,
    merge: impl Fn(T, T) -> T + Sync + Send,
) -> (T, Duration) {
    let start = Instant::now();
    let failed = AtomicBool::new(false);
    // A time-limited run stops handing out cases at its budget's deadline.
    let run = Budget::new();
    let end = match cfg.limit {
        Limit::Cases(n) => n,
        Limit::Time(t) => {
            if let Some(at) = start.checked_add(t) {
                run.set_deadline(at);
            }
            u64::MAX
        }
    };
    // `par_bridge` hands out indices in order, so the cases run are (about) a prefix.
    let out = (0..end)
        .par_bridge()
        .map(|i| {
            if failed.load(Ordering::Relaxed)
                || stop.load(Ordering::Relaxed)
                || run.is_cancelled_now()
            {
                return None;
            }
            let (t, fail) = case(i, case_seed(cfg.seed, i))?;
            if fail {
                failed.store(true, Ordering::Relaxed);
            }
            on_case();
            Some(t)
        })
        .while_some()
        .reduce(&zero, &merge);
    (out, start.elapsed())
}

/// Runs the cases in parallel in this process ([`solve_case`]); calls `on_case` after
/// each one (for progress display). Setting `stop` ends the run early (cases already
/// started finish). (`gordian fuzz` solves them in worker processes instead.)
#[cfg(test)]
pub fn run<S: System>(
    gen: &S::GenArgs,
    diff: &Differential<S>,
    cfg: &Config,
    stop: &AtomicBool,
    on_case: &(dyn Fn() + Sync),
) -> Summary<S::Instance> {
    run_with::<S>(gen, cfg, stop, on_case, &|_| {}, |_, seed| {
        Some(solve_case(&S::generate(gen, seed), diff, cfg))
    })
}

/// Runs the cases in parallel, each solved by `solve(index, generator seed)` (`None`: the
/// run was stopped, the case has no answer); the instance of a failing case is
/// generated here, from its seed.
///
/// A case over the per-case timeout shared the machine with the cases beside it, so
/// when the parallel run ends (with no failure and no stop) the timed-out cases are
/// solved once more, one at a time, in index order: each is skipped only if it is over
/// the timeout again. `on_retry(n)` is called before the `n` of them are, and `on_case`
/// after each, as in the parallel run. A run limited
/// by time retries them for at most a tenth of its time past its end.
pub fn run_with<S: System>(
    gen: &S::GenArgs,
    cfg: &Config,
    stop: &AtomicBool,
    on_case: &(dyn Fn() + Sync),
    on_retry: &(dyn Fn(u64) + Sync),
    solve: impl Fn(u64, u64) -> Option<Case> + Sync,
) -> Summary<S::Instance> {
    let one = |i: u64, seed: u64| {
        let case = solve(i, seed)?;
        let mut s = Summary {
            cases: 1,
            ..Summary::default()
        };
        for e in &case.engines {
            s.engine_runs.insert(e.clone(), 1);
        }
        match case.outcome {
            Outcome::Agree(ref label) => {
                s.labels.insert(label.clone(), 1);
            }
            Outcome::OverMemory => {
                s.over_memory = 1;
                s.over_memory_cases.push(i);
            }
            Outcome::TimedOut | Outcome::Unreadable(_) => {
                // The engines of a cancelled case gave no answer: they are counted if
                // it is retried and answered, not here.
                s.engine_runs.clear();
                s.skipped = 1;
                s.skipped_cases.push(i);
            }
            Outcome::Disagree(_) | Outcome::Crashed(_) => {
                s.failure = Some(Failure {
                    index: i,
                    seed,
                    instance: S::generate(gen, seed),
                    case,
                });
            }
        }
        let failed = s.failure.is_some();
        Some((s, failed))
    };
    let start = Instant::now();
    let (mut summary, _) = cases(cfg, stop, on_case, one, Summary::default, Summary::merge);
    // Cases finish in any order: the indices are sorted once, here.
    summary.skipped_cases.sort_unstable();
    summary.over_memory_cases.sort_unstable();
    // Alone, the timed-out cases again (not with a single thread: they ran alone).
    let retry_until = match cfg.limit {
        Limit::Cases(_) => None,
        Limit::Time(t) => start.checked_add(t + t / 10),
    };
    if summary.failure.is_none()
        && !stop.load(Ordering::Relaxed)
        && !summary.skipped_cases.is_empty()
        && rayon::current_num_threads() > 1
    {
        let slow = std::mem::take(&mut summary.skipped_cases);
        on_retry(slow.len() as u64);
        for (k, &i) in slow.iter().enumerate() {
            let late = retry_until.is_some_and(|at| Instant::now() >= at);
            let again = if late || stop.load(Ordering::Relaxed) {
                None
            } else {
                one(i, case_seed(cfg.seed, i))
            };
            let Some((mut s, failed)) = again else {
                // Not run again: the rest stay skipped as they were.
                summary.skipped_cases.extend(&slow[k..]);
                break;
            };
            on_case();
            // Answered now, or not: over the timeout again (its index comes back in
            // `s`), over the memory bound, or a failure, each counted as such.
            if !s.labels.is_empty() {
                summary.retried += 1;
            }
            summary.skipped -= 1;
            s.cases = 0;
            summary = summary.merge(s);
            if failed {
                // The run ends at a failure: the cases not tried again stay skipped.
                summary.skipped_cases.extend(&slow[k + 1..]);
                break;
            }
        }
        summary.skipped_cases.sort_unstable();
        summary.over_memory_cases.sort_unstable();
    }
    summary.stopped = stop.load(Ordering::Relaxed);
    summary.elapsed = start.elapsed();
    summary
}

/// Shrinks `instance` while `still_fails` holds: takes the first simplification (see
/// `System::simplifications`) that still fails, until none does. The result is locally
/// minimal over the system's simplifications; only strictly smaller candidates are taken,
/// so it terminates.
pub fn shrink<S: System>(
    instance: &S::Instance,
    mut still_fails: impl FnMut(&S::Instance) -> bool,
) -> S::Instance {
    let mut cur = instance.clone();
    'outer: loop {
        let size = S::size(&cur);
        for cand in S::simplifications(&cur) {
            if S::size(&cand) < size && still_fails(&cand) {
                cur = cand;
                continue 'outer;
            }
        }
        return cur;
    }
}

/// A failing instance shrunk to a locally minimal one, with what it gave.
#[derive(Clone, Debug)]
pub struct Shrunk<S: System> {
    /// The minimal instance.
    pub instance: S::Instance,
    /// What it gave (it fails as the first instance did).
    pub case: Case,
}

/// Shrinks a failing instance while it fails as `first` did ([`Case::fails_like`]),
/// each candidate solved by `solve` (in this process, [`solve_case`], or in a worker).
pub fn shrink_failure<S: System>(
    instance: &S::Instance,
    first: &Case,
    mut solve: impl FnMut(&S::Instance) -> Option<Case>,
) -> Shrunk<S> {
    let mut last = first.clone();
    let small = shrink::<S>(instance, |cand| match solve(cand) {
        Some(c) if c.fails_like(first) => {
            last = c;
            true
        }
        _ => false,
    });
    Shrunk {
        instance: small,
        case: last,
    }
}

/// The file for a shrunk failure: a `#` header (what failed, where the instance came
/// from, `run`: the command line that reproduces the run, whose flags set the generator's
/// knobs) and the instance in the system's format.
pub fn failure_file<S: System>(
    run: &str,
    cfg: &Config,
    f: &Failure<S::Instance>,
    s: &Shrunk<S>,
) -> String {
    let what = if f.crashed() {
        "gordian's worker process crashed on this"
    } else {
        "the engines disagree on this"
    };
    let mut out = format!(
        "# gordian fuzz: {what} {}; this is a bug in gordian.\n",
        S::NOUN
    );
    out.push_str(&format!(
        "# case {} of seed {} (generator seed {}), shrunk from size {} to {} (size: {})\n",
        f.index,
        cfg.seed,
        f.seed,
        S::size(&f.instance),
        S::size(&s.instance),
        S::SIZE_MEANS
    ));
    out.push_str(&format!("# the run (its flags set the generator): {run}\n"));
    for line in s.case.lines() {
        out.push_str(&format!("# {}\n", line.replace('\n', " ")));
    }
    out.push_str(&S::to_text(&s.instance));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::toy::{Toy, ToyGen, WrongOnSeven};

    /// [`run_with`] never stopped, with no progress shown.
    fn quietly(
        gen: &ToyGen,
        cfg: &Config,
        solve: impl Fn(u64, u64) -> Option<Case> + Sync,
    ) -> Summary<Vec<u32>> {
        run_with::<Toy>(gen, cfg, &AtomicBool::new(false), &|| {}, &|_| {}, solve)
    }

    /// `f` in a pool of two threads, whatever the machine (a second try needs cases to
    /// have run beside each other).
    fn on_two_threads<T: Send>(f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool")
            .install(f)
    }

    /// A run's settings with no per-case timeout or memory bound.
    fn plain(seed: u64, limit: Limit) -> Config {
        Config {
            seed,
            limit,
            case_timeout: None,
            max_memory: None,
        }
    }

    fn planted() -> Differential<Toy> {
        let mut d = Differential::<Toy>::only(&["direct"]).expect("toy has direct");
        d.engines.push(Box::new(WrongOnSeven));
        d
    }

    #[test]
    fn honest_engines_agree_on_every_case() {
        let cfg = plain(3, Limit::Cases(200));
        let s = run::<Toy>(
            &ToyGen { len: 6 },
            &Differential::all(),
            &cfg,
            &AtomicBool::new(false),
            &|| {},
        );
        assert_eq!(s.cases, 200);
        assert!(s.failure.is_none());
        assert_eq!(s.labels.values().sum::<u64>(), 200);
        assert_eq!(s.engine_runs["direct"], 200);
    }

    #[test]
    fn a_planted_bug_is_found_and_shrunk_to_its_core() {
        let cfg = plain(1, Limit::Cases(10_000));
        let gen = ToyGen { len: 8 };
        let diff = planted();
        let s = run::<Toy>(&gen, &diff, &cfg, &AtomicBool::new(false), &|| {});
        let f = s.failure.expect("a list with a 7 turns up");
        assert!(f.instance.contains(&7));
        assert_eq!(f.instance, Toy::generate(&gen, case_seed(1, f.index)));
        assert!(!f.crashed());
        assert!(matches!(f.case.outcome, Outcome::Disagree(_)));
        let shrunk =
            shrink_failure::<Toy>(&f.instance, &f.case, |i| Some(solve_case(i, &diff, &cfg)));
        assert_eq!(shrunk.instance, vec![7]);
        let text = failure_file("gordian fuzz --seed 1", &cfg, &f, &shrunk);
        assert!(text.ends_with("\n7\n"), "{text}");
        assert!(text.contains("# direct: sum 7\n# wrong: sum 8\n"), "{text}");
        // The file reads back as the shrunk instance.
        let back = Toy::parse(std::path::Path::new("f.toy"), &text).expect("valid");
        assert_eq!(back, vec![7]);
    }

    #[test]
    fn a_crash_is_a_failure_shrunk_while_it_crashes() {
        // A solver standing in for worker processes: any list holding a 7 "crashes" its
        // worker; the rest agree. The first crash is kept (lowest index) and shrunk to
        // the 7 alone; a disagreement would not count as the same failure.
        let gen = ToyGen { len: 8 };
        let cfg = plain(1, Limit::Cases(10_000));
        let solve = |i: &Vec<u32>| {
            Case::bare(if i.contains(&7) {
                Outcome::Crashed("killed by signal 11".into())
            } else {
                Outcome::Agree("sum".into())
            })
        };
        let s = quietly(&gen, &cfg, |_, seed| {
            Some(solve(&Toy::generate(&gen, seed)))
        });
        let f = s.failure.expect("a list with a 7 turns up");
        assert!(f.crashed());
        assert_eq!(f.case.lines(), vec!["killed by signal 11".to_string()]);
        let shrunk = shrink_failure::<Toy>(&f.instance, &f.case, |i| Some(solve(i)));
        assert_eq!(shrunk.instance, vec![7]);
        let text = failure_file("gordian fuzz --seed 1", &cfg, &f, &shrunk);
        assert!(
            text.starts_with("# gordian fuzz: gordian's worker process crashed"),
            "{text}"
        );
        // A disagreement does not stand in for a crash while shrinking.
        let other = shrink_failure::<Toy>(&f.instance, &f.case, |_| {
            Some(Case::bare(Outcome::Disagree(vec!["a".into()])))
        });
        assert_eq!(other.instance, f.instance);
    }

    #[test]
    fn cases_over_the_memory_bound_are_counted_not_failed() {
        // The hoarder charges 1 MiB per number: lists of 6 numbers need 6 MiB, so under a
        // 4 MiB bound every case stops at the limit; under 64 MiB none does.
        let mut diff = Differential::<Toy>::only(&["direct"]).expect("toy has direct");
        diff.engines.push(Box::new(crate::harness::toy::Hoarder));
        let gen = ToyGen { len: 6 };
        let stop = AtomicBool::new(false);
        let cfg = |max_memory| Config {
            max_memory,
            ..plain(3, Limit::Cases(50))
        };
        let tight = run::<Toy>(&gen, &diff, &cfg(Some(4 << 20)), &stop, &|| {});
        assert_eq!((tight.cases, tight.over_memory, tight.skipped), (50, 50, 0));
        assert!(tight.failure.is_none() && tight.labels.is_empty());
        let roomy = run::<Toy>(&gen, &diff, &cfg(Some(64 << 20)), &stop, &|| {});
        assert_eq!(
            (roomy.over_memory, roomy.labels.values().sum::<u64>()),
            (0, 50)
        );
    }

    #[test]
    fn skipped_cases_are_listed_by_index() {
        // Lists holding a 3 run out of time, the others holding a 5 out of memory; the
        // indices expected are found from the generated cases themselves.
        let gen = ToyGen { len: 4 };
        let cfg = plain(5, Limit::Cases(300));
        let outcome = |l: &Vec<u32>| {
            if l.contains(&3) {
                Outcome::TimedOut
            } else if l.contains(&5) {
                Outcome::OverMemory
            } else {
                Outcome::Agree("sum".into())
            }
        };
        let s = quietly(&gen, &cfg, |_, seed| {
            Some(Case::bare(outcome(&Toy::generate(&gen, seed))))
        });
        let of = |want: fn(&Outcome) -> bool| -> Vec<u64> {
            (0..300)
                .filter(|&i| want(&outcome(&Toy::generate(&gen, case_seed(5, i)))))
                .collect()
        };
        let slow = of(|o| matches!(o, Outcome::TimedOut));
        let big = of(|o| matches!(o, Outcome::OverMemory));
        assert!(!slow.is_empty() && !big.is_empty(), "{slow:?} {big:?}");
        assert_eq!(s.skipped_cases, slow);
        assert_eq!(s.skipped, slow.len() as u64);
        assert_eq!(s.over_memory_cases, big);
        assert_eq!(s.over_memory, big.len() as u64);
    }

    #[test]
    fn cases_over_the_timeout_are_run_again_alone() {
        // Lists holding a 3 are over the timeout the first time they are solved and
        // answered the second; lists holding a 5 (and no 3) are over it every time. Run
        // again alone, the first kind is answered (and counted once), the second stays
        // skipped; nothing else is solved twice.
        let gen = ToyGen { len: 4 };
        let cfg = plain(8, Limit::Cases(300));
        let seen = std::sync::Mutex::new(std::collections::HashMap::<u64, u32>::new());
        let announced = std::sync::Mutex::new(Vec::new());
        let solve = |i: u64, seed: u64| {
            let l = Toy::generate(&gen, seed);
            let mut seen = seen.lock().expect("not poisoned");
            let n = seen.entry(i).or_default();
            *n += 1;
            Some(Case::bare(
                if l.contains(&3) && *n == 1 || l.contains(&5) && !l.contains(&3) {
                    Outcome::TimedOut
                } else {
                    Outcome::Agree("sum".into())
                },
            ))
        };
        let s = on_two_threads(|| {
            run_with::<Toy>(
                &gen,
                &cfg,
                &AtomicBool::new(false),
                &|| {},
                &|n| announced.lock().expect("not poisoned").push(n),
                solve,
            )
        });
        let lists: Vec<Vec<u32>> = (0..300)
            .map(|i| Toy::generate(&gen, case_seed(8, i)))
            .collect();
        let flaky = lists.iter().filter(|l| l.contains(&3)).count() as u64;
        let slow: Vec<u64> = (0..300u64)
            .filter(|&i| lists[i as usize].contains(&5) && !lists[i as usize].contains(&3))
            .collect();
        assert!(flaky > 0 && !slow.is_empty(), "{flaky} {slow:?}");
        assert_eq!(s.cases, 300);
        assert_eq!(s.retried, flaky);
        assert_eq!(s.skipped_cases, slow);
        assert_eq!(s.skipped, slow.len() as u64);
        assert_eq!(s.labels.get("sum"), Some(&(300 - slow.len() as u64)));
        assert_eq!(
            *announced.lock().expect("not poisoned"),
            vec![flaky + slow.len() as u64]
        );
        let seen = seen.into_inner().expect("not poisoned");
        for (i, l) in lists.iter().enumerate() {
            let twice = l.contains(&3) || l.contains(&5);
            assert_eq!(seen[&(i as u64)], 1 + u32::from(twice), "case {i}: {l:?}");
        }
    }

    #[test]
    fn a_case_run_again_is_counted_as_what_it_gives_then() {
        // Every case is over the timeout the first time. The second time, lists holding
        // a 3 disagree, lists holding a 6 (and no 3) are over the memory bound, the
        // others are answered. The first list with a 3, in index order, ends the run as
        // its failure; the cases after it are not run again and stay skipped.
        let gen = ToyGen { len: 3 };
        let cfg = plain(9, Limit::Cases(200));
        let seen = std::sync::Mutex::new(std::collections::HashSet::<u64>::new());
        let solve = |i: u64, seed: u64| {
            let l = Toy::generate(&gen, seed);
            if seen.lock().expect("not poisoned").insert(i) {
                return Some(Case::bare(Outcome::TimedOut));
            }
            Some(Case::bare(if l.contains(&3) {
                Outcome::Disagree(vec!["a".into(), "b".into()])
            } else if l.contains(&6) {
                Outcome::OverMemory
            } else {
                Outcome::Agree("sum".into())
            }))
        };
        let s = on_two_threads(|| quietly(&gen, &cfg, solve));
        let lists: Vec<Vec<u32>> = (0..200)
            .map(|i| Toy::generate(&gen, case_seed(9, i)))
            .collect();
        let bad = lists
            .iter()
            .position(|l| l.contains(&3))
            .expect("a 3 turns up") as u64;
        let before = |want: fn(&Vec<u32>) -> bool| {
            lists[..bad as usize].iter().filter(|l| want(l)).count() as u64
        };
        let big = before(|l| l.contains(&6));
        assert!(big > 0, "a 6 before the first 3");
        assert_eq!(s.failure.as_ref().map(|f| f.index), Some(bad));
        assert_eq!(s.retried, bad - big);
        assert_eq!(s.over_memory, big);
        assert_eq!(s.skipped_cases, (bad + 1..200).collect::<Vec<u64>>());
        assert_eq!(s.skipped, 199 - bad);
        assert_eq!(s.cases, 200);
    }

    #[test]
    fn a_stop_request_ends_the_run() {
        let cfg = plain(0, Limit::Cases(u64::MAX));
        let stop = AtomicBool::new(true);
        let s = run::<Toy>(
            &ToyGen { len: 3 },
            &Differential::all(),
            &cfg,
            &stop,
            &|| {},
        );
        assert!(s.stopped);
        assert_eq!(s.cases, 0);
    }
}
