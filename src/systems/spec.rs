//! What every system shares: the engine trait, the cancellation budget engines poll, and
//! [`race`], which runs engines side by side and bounds how long the slower ones may take
//! once one has answered.
//!
//! A budget carries two of the resource limits every command shares (docs/limits.md):
//! the cancel flag a signal raises, with the one *deadline* the budget keeps (its time
//! limit, [`Budget::with_timeout`], or a race's grace: seen when the flag is polled, no
//! timer thread, natively and in WebAssembly alike), and a *memory bound* on
//! what an engine holds: engines [`Budget::charge`] the bytes of the answers and search
//! state they keep (resolutions, ways, cuts, frames, models), and the charge that goes
//! past the bound cancels that engine's budget and records which limit was hit
//! ([`Budget::limit_hit`]), so the caller reports a `limit` instead of a timeout.
//!
//! Invariants: an engine either answers completely or returns [`Interrupted`]; it never
//! returns a partial answer as if it were whole. Cancelling a budget cancels every budget
//! derived from it with [`Budget::child`], now and later. A child shares its parent's
//! memory meter; [`Budget::child_metered`] (one per engine of a [`race`]) starts a meter
//! of its own with the same bound, so what one engine holds is never charged to another.

use crate::cancel::Flag;
use crate::cancel::Instant;
#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An engine stopped because its budget was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted: the engine's budget was cancelled")]
pub struct Interrupted;

/// The default memory bound on one engine's state: 1 GiB (estimated; `--max-memory`).
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;

/// A memory limit that stopped an engine: what it was storing when the bound was passed,
/// and the bound in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitHit {
    /// What the engine was storing (`ways`, `cuts`, `SAT models`, ...).
    pub what: &'static str,
    /// The bound, in bytes.
    pub max_bytes: u64,
}

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the memory bound of {} MiB on engine state was reached while storing {} \
             (raise it with --max-memory)",
            self.max_bytes.div_ceil(1 << 20),
            self.what
        )
    }
}

/// Bytes charged against one bound, and the first limit hit.
#[derive(Debug)]
struct Meter {
    used: AtomicU64,
    max: u64,
    hit: Mutex<Option<LimitHit>>,
}

impl Meter {
    fn new(max: u64) -> Arc<Meter> {
        Arc::new(Meter {
            used: AtomicU64::new(0),
            max,
            hit: Mutex::new(None),
        })
    }
}

#[derive(Debug)]
struct Inner {
    flag: Arc<Flag>,
    children: Mutex<Vec<Budget>>,
    meter: Arc<Meter>,
}

impl Default for Inner {
    fn default() -> Inner {
        Inner {
            flag: Arc::default(),
            children: Mutex::default(),
            meter: Meter::new(u64::MAX),
        }
    }
}

/// A cancellation flag shared between an engine and whoever may stop it, with a memory
/// meter engines charge what they store to.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    inner: Arc<Inner>,
}

impl Budget {
    /// A budget that is never cancelled unless [`Budget::cancel`] is called, with no
    /// memory bound.
    pub fn new() -> Budget {
        Budget::default()
    }

    /// A budget whose engines may hold at most `max_bytes` of state each (estimated by
    /// what they [`charge`](Budget::charge)).
    pub fn with_max_memory(max_bytes: u64) -> Budget {
        Budget {
            inner: Arc::new(Inner {
                meter: Meter::new(max_bytes),
                ..Inner::default()
            }),
        }
    }

    /// A budget cancelled with this one (and on its own by its own `cancel`), charging
    /// the same memory meter.
    pub fn child(&self) -> Budget {
        self.adopt(Budget {
            inner: Arc::new(Inner {
                meter: self.inner.meter.clone(),
                ..Inner::default()
            }),
        })
    }

    /// A child with a memory meter of its own (the same bound): one per engine, so
    /// engines running side by side are each held to the bound.
    pub fn child_metered(&self) -> Budget {
        self.adopt(Budget::with_max_memory(self.inner.meter.max))
    }

    fn adopt(&self, child: Budget) -> Budget {
        let mut kids = self
            .inner
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        kids.push(child.clone());
        if self.is_cancelled() {
            child.cancel();
        }
        if let Some(at) = self.inner.flag.deadline() {
            child.inner.flag.set_deadline(at);
        }
        child
    }

    /// Cancels this budget and its children (now and later) at `at` (or at a deadline set
    /// before, if earlier), seen when they are polled (see `crate::cancel`): the one
    /// deadline a budget keeps, natively and in WebAssembly alike.
    pub fn set_deadline(&self, at: Instant) {
        self.inner.flag.set_deadline(at);
        let kids = self
            .inner
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for k in kids.iter() {
            k.set_deadline(at);
        }
    }

    /// The deadline set on this budget (or inherited from its parent), if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.flag.deadline()
    }

    /// Runs `f` with this budget (and its children) cancelled once `timeout` has passed:
    /// a deadline its engines see when they poll it. A run that ends past the deadline
    /// leaves the budget cancelled, as if it had been stopped on time.
    pub fn with_timeout<T>(&self, timeout: Option<Duration>, f: impl FnOnce() -> T) -> T {
        let Some(t) = timeout else { return f() };
        self.set_deadline(Instant::now() + t);
        let r = f();
        if self.is_cancelled_now() {
            self.cancel();
        }
        r
    }

    /// Whether `other` is this very budget (a clone of it), not only an equal one.
    pub fn same(&self, other: &Budget) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Asks every engine polling this budget (or a child of it) to stop.
    pub fn cancel(&self) {
        self.inner.flag.raise();
        let kids = self
            .inner
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for k in kids.iter() {
            k.cancel();
        }
    }

    /// Whether the budget was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.flag.is_raised()
    }

    /// [`Budget::is_cancelled`], reading the clock on every call if the budget has a
    /// deadline (for checks far apart; engines poll [`Budget::is_cancelled`]).
    pub fn is_cancelled_now(&self) -> bool {
        self.inner.flag.is_raised_now()
    }

    /// `Err(Interrupted)` once cancelled.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.is_cancelled() {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// The shared flag (for layers such as the SAT solver wrapper that poll it directly).
    pub fn flag(&self) -> Arc<Flag> {
        self.inner.flag.clone()
    }

    /// Charges `bytes` of stored `what` to the memory meter, then polls the flag. Past
    /// the bound, the first such charge records the [`LimitHit`] and cancels this budget
    /// (and its children): `Err(Interrupted)`, now and at every later poll.
    pub fn charge(&self, what: &'static str, bytes: u64) -> Result<(), Interrupted> {
        let m = &self.inner.meter;
        let before = m.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > m.max {
            m.hit
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(LimitHit {
                    what,
                    max_bytes: m.max,
                });
            self.cancel();
        }
        self.check()
    }

    /// Gives back `bytes` charged earlier (state an engine dropped).
    pub fn release(&self, bytes: u64) {
        let m = &self.inner.meter;
        let _ = m
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }

    /// Charges the growth of state measured as a whole (`now` bytes, of which `charged`
    /// were charged already), as [`Budget::charge`] does; `charged` becomes `now`. For
    /// state whose size is cheap to read but costly to track item by item (a SAT
    /// solver's clauses), measured at coarse steps.
    pub fn charge_growth(
        &self,
        what: &'static str,
        charged: &mut u64,
        now: u64,
    ) -> Result<(), Interrupted> {
        let grown = now.saturating_sub(*charged);
        *charged = (*charged).max(now);
        if grown == 0 {
            return self.check();
        }
        self.charge(what, grown)
    }

    /// Stops this budget at a memory limit hit elsewhere (by a [`Budget::child_metered`]
    /// engine of a race that no engine answered: [`settle`]): records it as this meter's limit (unless one is
    /// recorded already) and cancels.
    fn stop_at(&self, hit: LimitHit) {
        self.inner
            .meter
            .hit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(hit);
        self.cancel();
    }

    /// The memory limit this budget's meter hit, if one did.
    pub fn limit_hit(&self) -> Option<LimitHit> {
        *self
            .inner
            .meter
            .hit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The memory bound of this budget's meter, in bytes.
    pub fn max_memory(&self) -> u64 {
        self.inner.meter.max
    }
}

/// How a system's answer JSON is read when an outside resolver's answer is compared with
/// it (`harness::protocol`, `docs/protocol.md`): which keys hold sequences (every other
/// array is a set) and which hold maps from names (every other object is a record, compared
/// on the keys the resolver gives).
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    /// Keys whose arrays are ordered (`key[]`: a set of sequences).
    pub sequences: &'static [&'static str],
    /// Keys whose objects are maps from names to values.
    pub maps: &'static [&'static str],
    /// `(key, id)`: the set under `key` holds one entry per value of its field `id` (a rule
    /// variant, say), and a resolver may answer for some of them: only gordian's entries
    /// with an `id` the resolver gives are compared.
    pub partial: &'static [(&'static str, &'static str)],
}

impl Shape {
    pub(crate) fn is_sequence(&self, key: &str) -> bool {
        self.sequences.contains(&key)
    }
    pub(crate) fn elements_ordered(&self, key: Option<&str>) -> bool {
        key.is_some_and(|k| {
            self.sequences
                .iter()
                .any(|s| s.strip_suffix("[]") == Some(k))
        })
    }
    pub(crate) fn is_map(&self, key: Option<&str>) -> bool {
        key.is_some_and(|k| self.maps.contains(&k))
    }
    pub(crate) fn partial_id(&self, key: Option<&str>) -> Option<&'static str> {
        let k = key?;
        self.partial
            .iter()
            .find(|(a, _)| *a == k)
            .map(|(_, id)| *id)
    }
}

/// A solver for one system: takes an instance, returns the full answer.
pub trait Engine<I: ?Sized, A> {
    /// Short name used in reports (`direct`, `sat`, `brute`).
    fn name(&self) -> &'static str;
    /// Solves the instance completely, or stops with [`Interrupted`].
    fn solve(&self, instance: &I, budget: &Budget) -> Result<A, Interrupted>;
}

/// One game system as the harness sees it: how to read an instance, its engines (every
/// engine answers the whole question; answers are compared with `==`), a seeded generator
/// and the simplifications the shrinker tries, and how an answer shows in a table, a batch
/// record and JSON. The harness (`check`, `fuzz`, `batch`) is generic over this trait and
/// names no system; a new system implements it once, in its own `system.rs`.
///
/// Invariants an implementation keeps: `parse(to_text(i))` gives back an instance with
/// the same answer; `generate` is a pure function of its arguments; every instance of
/// `simplifications(i)` is valid and strictly smaller by `size`; the text format treats
/// lines starting with `#` as comments (the fuzzer writes its header that way).
pub trait System: Sized + 'static {
    /// Short name, the `--system` value and the CLI subcommand (`ar`, `fft`, `lancer`, ...).
    const NAME: &'static str;
    /// File extensions (without the dot, lower case) that select this system.
    const EXTENSIONS: &'static [&'static str];
    /// What an instance is called in messages ("night", "scenario", ...).
    const NOUN: &'static str;
    /// A validated instance.
    type Instance: Clone + Send + Sync + std::fmt::Debug;
    /// An engine's whole answer. Two engines agree iff their answers are `==`.
    type Answer: Clone + PartialEq + Send + Sync + std::fmt::Debug;
    /// The generator's knobs: a plain struct whose `Default` is what `fuzz` and `gen` use
    /// without flags (their flags live in `cli/generators.rs` and convert into it).
    type GenArgs: Clone + Send + Sync + std::fmt::Debug;

    /// Parses and validates `text`, read from `file`; every error is located.
    fn parse(
        file: &std::path::Path,
        text: &str,
    ) -> Result<Self::Instance, crate::text::ParseErrors>;
    /// [`System::parse`] under a budget: the whole time and memory policy applies from
    /// the first phase. Systems whose instance building is costly (the ?AR universe) poll
    /// `budget` and charge it; the default parses, then polls.
    fn parse_within(
        file: &std::path::Path,
        text: &str,
        budget: &Budget,
    ) -> Result<Result<Self::Instance, crate::text::ParseErrors>, Interrupted> {
        let parsed = Self::parse(file, text);
        budget.check()?;
        Ok(parsed)
    }
    /// The instance in the system's file format (`parse` reads it back).
    fn to_text(instance: &Self::Instance) -> String;
    /// Every engine of the system: direct first, then SAT, then any reference engine
    /// (brute force) that only runs where [`System::runs_on`] allows.
    fn engines() -> Vec<Box<dyn Engine<Self::Instance, Self::Answer> + Send + Sync>>;
    /// Whether `engine` (by name) runs on this instance in a differential check (brute
    /// force only on small instances, for example). Default: every engine.
    fn runs_on(_engine: &str, _instance: &Self::Instance) -> bool {
        true
    }
    /// A random instance: a pure function of the knobs and the seed.
    fn generate(args: &Self::GenArgs, seed: u64) -> Self::Instance;
    /// Candidate simplifications for the shrinker, each valid and strictly smaller.
    fn simplifications(instance: &Self::Instance) -> Vec<Self::Instance>;
    /// The size the shrinker minimises (effects, characters, units, ...).
    fn size(instance: &Self::Instance) -> usize;
    /// What [`System::size`] counts, in words, for reports ("shrunk from size 56 to 6
    /// (size: ...)").
    const SIZE_MEANS: &'static str = "the shrinker's measure of an instance, which every \
                                      simplification lowers";
    /// A short label counted in summaries (a classification, "reachable", ...).
    fn label(answer: &Self::Answer) -> String;
    /// A one-line description of the answer (fuzz reports, disagreements).
    fn summary(instance: &Self::Instance, answer: &Self::Answer) -> String;
    /// The column names of `check`'s table, after the file name.
    fn columns() -> Vec<&'static str>;
    /// One row of `check`'s table (as many cells as [`System::columns`]).
    fn row(instance: &Self::Instance, answer: &Self::Answer) -> Vec<String>;
    /// The whole answer as JSON (printed when engines disagree).
    fn to_json(instance: &Self::Instance, answer: &Self::Answer) -> serde_json::Value;
    /// The answer's fields for a batch record (one JSON object; small, not the whole
    /// answer).
    fn record(instance: &Self::Instance, answer: &Self::Answer) -> serde_json::Value;
    /// How an outside resolver's answer is compared with [`System::to_json`]: the keys
    /// whose arrays are sequences (every other array is a set) and the keys whose objects
    /// are maps from names (`docs/protocol.md`). Default: only sets and records.
    const SHAPE: Shape = Shape {
        sequences: &[],
        maps: &[],
        partial: &[],
    };
    /// The reference an outside resolver's answer is compared with (`docs/protocol.md`):
    /// [`System::to_json`] unless the system writes its answer for people differently from
    /// what it compares (lists it leaves out of large answers, presentation fields).
    fn protocol_json(instance: &Self::Instance, answer: &Self::Answer) -> serde_json::Value {
        Self::to_json(instance, answer)
    }
    /// The answer in words for a person asking why gordian answers as it does (an
    /// `--explain`), or `None` where the system has no such explanation or the answer is
    /// too large to explain. Default: `None`.
    fn explain(_instance: &Self::Instance, _answer: &Self::Answer) -> Option<String> {
        None
    }
}

/// One job of a [`race`]: it gets its own budget, a child of the race's.
pub type Job<'a, T> = Box<dyn FnOnce(&Budget) -> T + Send + 'a>;

/// How long the other jobs of a [`race`] may go on once one answered after `took`: the
/// longer of `grace` and [`GRACE_FACTOR`] times `took`, so that an engine a few times
/// slower than the first still answers on a large instance. (A budget's own deadline, a
/// timeout, still stops them first.)
pub fn grace_after(grace: Duration, took: Duration) -> Duration {
    grace.max(took.saturating_mul(GRACE_FACTOR))
}

/// See [`grace_after`].
pub const GRACE_FACTOR: u32 = 3;

/// Runs the jobs in parallel (rayon), each with a child budget of `budget` that has its
/// own memory meter ([`Budget::child_metered`]). Once the first job has *answered*
/// (`answered` says which results are answers: a job that failed, at a memory limit say,
/// does not start the clock), the others get [`grace_after`] more time: a deadline on
/// their budgets (engines past it answer `Interrupted`). With `grace = None` every job runs
/// to the end. Results come back in the order of `jobs`.
#[cfg(not(target_arch = "wasm32"))]
pub fn race<T: Send>(
    budget: &Budget,
    grace: Option<Duration>,
    jobs: Vec<Job<'_, T>>,
    answered: fn(&T) -> bool,
) -> Vec<T> {
    let budgets: Vec<Budget> = jobs.iter().map(|_| budget.child_metered()).collect();
    let start = Instant::now();
    jobs.into_par_iter()
        .enumerate()
        .map(|(i, job)| {
            let out = job(&budgets[i]);
            if let (Some(grace), true) = (grace, answered(&out)) {
                // The others' deadline: the first answer's time plus the grace. (A later
                // answer sets a later deadline on the others, which the first one set
                // earlier stays: a deadline only moves earlier.)
                let now = Instant::now();
                let at = now + grace_after(grace, now.duration_since(start));
                for (j, b) in budgets.iter().enumerate() {
                    if j != i {
                        b.set_deadline(at);
                    }
                }
            }
            out
        })
        .collect()
}

/// [`race`] in WebAssembly, where there are no threads: the jobs run one after the
/// other on this thread, in order; once one has answered, each later one gets
/// [`grace_after`] the first answer's time from its start (a deadline on its budget),
/// then its budget is cancelled.
#[cfg(target_arch = "wasm32")]
pub fn race<T: Send>(
    budget: &Budget,
    grace: Option<Duration>,
    jobs: Vec<Job<'_, T>>,
    answered: fn(&T) -> bool,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(jobs.len());
    let mut first_took: Option<Duration> = None;
    for job in jobs {
        let b = budget.child_metered();
        if let (Some(grace), Some(took)) = (grace, first_took) {
            b.set_deadline(Instant::now() + grace_after(grace, took));
        }
        let start = Instant::now();
        let result = job(&b);
        if first_took.is_none() && answered(&result) {
            first_took = Some(start.elapsed());
        }
        out.push(result);
    }
    out
}

/// Bytes charged for state that lives only as long as this guard (an encoding dropped at
/// the end of a query): given back to the meter when it is dropped.
#[derive(Debug)]
pub struct Charged<'a> {
    budget: &'a Budget,
    what: &'static str,
    bytes: u64,
}

impl<'a> Charged<'a> {
    /// Nothing charged yet; later charges name `what`.
    pub fn new(budget: &'a Budget, what: &'static str) -> Charged<'a> {
        Charged {
            budget,
            what,
            bytes: 0,
        }
    }

    /// Charges the growth to `now` bytes in all (see [`Budget::charge_growth`]).
    pub fn grow_to(&mut self, now: u64) -> Result<(), Interrupted> {
        self.budget.charge_growth(self.what, &mut self.bytes, now)
    }

    /// Charges `bytes` more.
    pub fn add(&mut self, bytes: u64) -> Result<(), Interrupted> {
        self.grow_to(self.bytes.saturating_add(bytes))
    }
}

impl Drop for Charged<'_> {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

/// How one job of [`race_to_end`] ended: what it returned, how long it ran, and the
/// memory limit of its own meter it stopped at, if it did.
#[derive(Debug)]
pub struct Ended<T> {
    /// What the job returned.
    pub out: T,
    /// How long it ran.
    pub took: Duration,
    /// The limit its own meter hit, if any.
    pub limit: Option<LimitHit>,
}

/// [`race`] without a grace period, for a command that compares its engines: every job
/// runs to its end or to `budget`'s deadline, each under its own memory meter, and a job
/// that stops at its memory bound stops alone (the others go on). See [`settle`] for
/// what the command answers.
pub fn race_to_end<'a, T: Send + 'a>(budget: &'a Budget, jobs: Vec<Job<'a, T>>) -> Vec<Ended<T>> {
    let jobs: Vec<Job<'a, Ended<T>>> = jobs
        .into_iter()
        .map(|job| -> Job<'a, Ended<T>> {
            Box::new(move |b: &Budget| {
                let start = Instant::now();
                let out = job(b);
                Ended {
                    out,
                    took: start.elapsed(),
                    limit: b.limit_hit(),
                }
            })
        })
        .collect();
    race(budget, None, jobs, |_| true)
}

/// An engine that was stopped while another one answered: the answer is the other's
/// alone, not cross-checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The engine's name (`direct`, `sat`).
    pub engine: &'static str,
    /// How long it ran.
    pub took: Duration,
    /// The memory limit it stopped at; `None` when the time limit stopped it.
    pub limit: Option<LimitHit>,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.limit {
            Some(l) => write!(
                f,
                "the {} engine stopped at the memory bound of {} MiB on its state (storing {}; \
                 --max-memory)",
                self.engine,
                l.max_bytes.div_ceil(1 << 20),
                l.what
            ),
            None => write!(
                f,
                "the {} engine was stopped at the time limit, after {:.2} s (--timeout)",
                self.engine,
                self.took.as_secs_f64()
            ),
        }
    }
}

/// The engines' answers of a [`race_to_end`], in the order of `names`: when at least one
/// engine answered, the engines that were stopped give `None` and are listed as
/// [`Stopped`] (the command answers with what it has, marked not cross-checked); when
/// none answered, `Err(Interrupted)` with the first memory limit hit recorded on
/// `budget` (so [`Budget::limit_hit`] names what the limit message says).
pub fn settle<T>(
    budget: &Budget,
    names: &[&'static str],
    ends: Vec<Ended<Result<T, Interrupted>>>,
) -> Result<(Vec<Option<T>>, Vec<Stopped>), Interrupted> {
    if ends.iter().all(|e| e.out.is_err()) {
        if let Some(hit) = ends.iter().find_map(|e| e.limit) {
            budget.stop_at(hit);
        }
        return Err(Interrupted);
    }
    let mut stopped = Vec::new();
    let answers = ends
        .into_iter()
        .zip(names)
        .map(|(e, &engine)| match e.out {
            Ok(x) => Some(x),
            Err(Interrupted) => {
                stopped.push(Stopped {
                    engine,
                    took: e.took,
                    limit: e.limit,
                });
                None
            }
        })
        .collect();
    Ok((answers, stopped))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job that waits for its budget to be cancelled (or 5 s), saying whether it was.
    fn patient(b: &Budget) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if b.is_cancelled() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    #[test]
    fn cancelling_a_budget_cancels_its_children() {
        let b = Budget::new();
        let c = b.child();
        let g = c.child();
        assert!(!g.is_cancelled());
        b.cancel();
        assert!(c.is_cancelled() && g.is_cancelled());
        assert!(
            b.child().is_cancelled(),
            "a child of a cancelled budget starts cancelled"
        );
        let other = Budget::new();
        other.child().cancel();
        assert!(!other.is_cancelled(), "a child does not cancel its parent");
    }

    #[test]
    fn a_charge_past_the_bound_stops_that_engine_and_names_the_limit() {
        let root = Budget::with_max_memory(100);
        let (a, b) = (root.child_metered(), root.child_metered());
        assert_eq!(a.charge("ways", 60), Ok(()));
        assert_eq!(
            b.charge("cuts", 60),
            Ok(()),
            "each engine has its own meter"
        );
        let sub = a.child();
        assert_eq!(
            sub.charge("ways", 40),
            Ok(()),
            "60 + 40 = 100 is within the bound"
        );
        assert_eq!(sub.charge("frames", 1), Err(Interrupted), "101 > 100");
        let hit = LimitHit {
            what: "frames",
            max_bytes: 100,
        };
        assert_eq!(
            a.limit_hit(),
            Some(hit),
            "a child shares its parent's meter"
        );
        assert!(sub.is_cancelled() && !a.is_cancelled() && !b.is_cancelled());
        assert_eq!(
            a.charge("ways", 0),
            Err(Interrupted),
            "later charges on the meter fail too"
        );
        assert_eq!(b.limit_hit(), None);
        assert!(!root.is_cancelled() && root.limit_hit().is_none());
        b.release(60);
        assert_eq!(
            b.charge("cuts", 100),
            Ok(()),
            "released bytes can be charged again"
        );
        assert_eq!(
            Budget::new().charge("ways", u64::MAX),
            Ok(()),
            "no bound by default"
        );
    }

    #[test]
    fn growth_is_charged_once_and_a_guard_gives_it_back() {
        let b = Budget::with_max_memory(100);
        let mut charged = 0;
        assert_eq!(b.charge_growth("clauses", &mut charged, 60), Ok(()));
        assert_eq!(
            b.charge_growth("clauses", &mut charged, 50),
            Ok(()),
            "shrinking charges nothing"
        );
        assert_eq!(charged, 60);
        {
            let mut g = Charged::new(&b, "SAT clauses");
            assert_eq!(g.grow_to(30), Ok(()), "60 + 30 <= 100");
            assert_eq!(g.grow_to(35), Ok(()), "only the growth of 5 is charged");
            assert_eq!(g.add(5), Ok(()), "40 in all");
        }
        assert_eq!(b.charge("x", 40), Ok(()), "the guard gave its 40 back");
        assert_eq!(
            b.charge_growth("clauses", &mut charged, 61),
            Err(Interrupted)
        );
        assert_eq!(b.limit_hit().map(|h| h.what), Some("clauses"));
    }

    #[test]
    fn a_job_that_fails_does_not_start_the_grace_period() {
        // Job 0 fails at once (`false` is not an answer); job 1 answers after 150 ms. With a
        // 20 ms grace counted from the failure, job 1 would be cancelled; counted from the
        // first answer, nothing is cancelled.
        let jobs: Vec<Job<bool>> = vec![
            Box::new(|_| false),
            Box::new(|b: &Budget| {
                std::thread::sleep(Duration::from_millis(150));
                !b.is_cancelled()
            }),
        ];
        let out = race(
            &Budget::new(),
            Some(Duration::from_millis(20)),
            jobs,
            |&ok| ok,
        );
        assert_eq!(out, vec![false, true]);
    }

    /// A job that answers `x` after `ms` milliseconds unless its budget is cancelled first.
    fn answers_after(x: u32, ms: u64) -> Job<'static, Result<u32, Interrupted>> {
        Box::new(move |b: &Budget| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(ms) {
                if b.is_cancelled() {
                    return Err(Interrupted);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(x)
        })
    }

    #[test]
    fn a_job_at_its_memory_bound_stops_alone_and_the_other_answers() {
        let root = Budget::with_max_memory(100);
        let jobs: Vec<Job<Result<u32, Interrupted>>> = vec![
            Box::new(|b: &Budget| b.charge("outcomes", 101).map(|_| 0)),
            answers_after(7, 50),
        ];
        let ends = race_to_end(&root, jobs);
        let hit = LimitHit {
            what: "outcomes",
            max_bytes: 100,
        };
        assert_eq!(ends[0].limit, Some(hit));
        assert_eq!(ends[1].limit, None);
        let (answers, stopped) = settle(&root, &["direct", "sat"], ends).expect("sat answered");
        assert_eq!(answers, vec![None, Some(7)]);
        assert_eq!(stopped.len(), 1);
        assert_eq!((stopped[0].engine, stopped[0].limit), ("direct", Some(hit)));
        assert!(stopped[0].to_string().contains("storing outcomes"));
        // The caller's budget was neither stopped nor charged with the limit.
        assert!(!root.is_cancelled() && root.limit_hit().is_none());
    }

    #[test]
    fn past_the_deadline_the_answer_is_the_engine_that_finished() {
        let root = Budget::new();
        let ends = root.with_timeout(Some(Duration::from_millis(100)), || {
            race_to_end(&root, vec![answers_after(1, 0), answers_after(2, 5_000)])
        });
        let (answers, stopped) = settle(&root, &["direct", "sat"], ends).expect("one answered");
        assert_eq!(answers, vec![Some(1), None]);
        assert_eq!(stopped[0].engine, "sat");
        assert_eq!(stopped[0].limit, None);
        assert!(
            stopped[0].to_string().contains("time limit"),
            "{}",
            stopped[0]
        );
    }

    #[test]
    fn when_no_job_answers_the_first_limit_is_the_callers() {
        let root = Budget::with_max_memory(100);
        let jobs: Vec<Job<Result<u32, Interrupted>>> = vec![
            Box::new(|b: &Budget| b.charge("outcomes", 101).map(|_| 0)),
            Box::new(|b: &Budget| b.charge("models", 101).map(|_| 0)),
        ];
        let ends = race_to_end(&root, jobs);
        assert_eq!(settle(&root, &["direct", "sat"], ends), Err(Interrupted));
        assert!(root.is_cancelled());
        assert!(matches!(
            root.limit_hit(),
            Some(LimitHit {
                what: "outcomes" | "models",
                max_bytes: 100
            })
        ));
        let fine: Vec<Job<Result<u32, Interrupted>>> =
            vec![Box::new(|_| Ok(1)), Box::new(|_| Ok(2))];
        let root = Budget::with_max_memory(100);
        let ends = race_to_end(&root, fine);
        assert_eq!(
            settle(&root, &["direct", "sat"], ends),
            Ok((vec![Some(1), Some(2)], vec![]))
        );
        assert!(!root.is_cancelled() && root.limit_hit().is_none());
    }

    #[test]
    fn the_slower_job_is_cancelled_after_the_grace_period() {
        let jobs: Vec<Job<bool>> = vec![Box::new(|_| false), Box::new(patient)];
        let out = race(
            &Budget::new(),
            Some(Duration::from_millis(20)),
            jobs,
            |_| true,
        );
        assert_eq!(out, vec![false, true]);
    }

    /// Sleeps `ms` milliseconds in small steps, polling its budget: `Some(ms)` if it
    /// finished, `None` if it was cancelled first.
    fn sleeper(ms: u64) -> impl FnOnce(&Budget) -> Option<u64> {
        move |b: &Budget| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(ms) {
                if b.is_cancelled_now() {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Some(ms)
        }
    }

    /// The grace period scales with the first answer: a job 1.5 times as slow as the first
    /// one still answers under a 10 ms grace (it may go on for 3 times the first one's
    /// second), and one 5 times as slow is cancelled. (Sleeps, not work: a busy machine
    /// stretches neither.)
    #[test]
    fn the_grace_period_is_at_least_three_times_the_first_answers_time() {
        assert_eq!(
            grace_after(Duration::from_secs(10), Duration::from_secs(4)),
            Duration::from_secs(12)
        );
        assert_eq!(
            grace_after(Duration::from_secs(10), Duration::from_secs(1)),
            Duration::from_secs(10)
        );
        let grace = Some(Duration::from_millis(10));
        let jobs: Vec<Job<Option<u64>>> = vec![Box::new(sleeper(1000)), Box::new(sleeper(1500))];
        let out = race(&Budget::new(), grace, jobs, Option::is_some);
        assert_eq!(out, vec![Some(1000), Some(1500)]);
        let jobs: Vec<Job<Option<u64>>> = vec![Box::new(sleeper(1000)), Box::new(sleeper(5000))];
        let out = race(&Budget::new(), grace, jobs, Option::is_some);
        assert_eq!(out, vec![Some(1000), None]);
    }

    #[test]
    fn without_grace_every_job_runs_to_its_end() {
        let jobs: Vec<Job<u32>> = vec![Box::new(|_| 1), Box::new(|_| 2)];
        assert_eq!(race(&Budget::new(), None, jobs, |_| true), vec![1, 2]);
    }

    /// A job that returns without an answer (it stopped at its memory bound, say) does
    /// not start the grace period: the other runs to its end.
    #[test]
    fn the_grace_period_starts_at_the_first_answer() {
        // 100 ms of work, polling its budget; `None` if it was cancelled.
        let slow = |b: &Budget| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(100) {
                if b.is_cancelled() {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Some(2)
        };
        let jobs: Vec<Job<Option<u32>>> = vec![Box::new(|_| None), Box::new(slow)];
        let grace = Some(Duration::from_millis(20));
        let out = race(&Budget::new(), grace, jobs, Option::is_some);
        assert_eq!(out, vec![None, Some(2)]);
    }
}
