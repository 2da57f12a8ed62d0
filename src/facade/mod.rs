//! The library's API: one module per system ([`ar`], [`fft`], [`lancer`], [`foeman`],
//! [`ff8`]), all of the same shape, and what they share: [`Limits`] (timeout, memory
//! bound, engines), [`Error`], [`case_seed`].
//!
//! Every module has an instance type with `parse(text)`, `from_file(path)` and
//! `to_text()`; `solve(&instance, &Limits)`, which runs the direct and the SAT engine in
//! parallel and compares their answers (by default); an `Answer` with typed accessors,
//! `cross_checked()`, `engines()` and `to_json()`; `Knobs` and `generate(&knobs, seed)`,
//! the random instances `gordian fuzz` and `gordian gen` use.
//!
//! Invariant: no logic of its own. Solving is `harness::Differential` under a
//! `spec::Budget` and `Budget::with_timeout`, exactly as the CLI runs it;
//! the answers, their JSON and the generators are the systems' own (`System`).

/// The instance type of one system's facade module, the same for every system: an
/// immutable, cheaply cloned instance with `parse`, `from_file` and `to_text`, made from
/// the system's model with `From`; and the module's `generate`. The docs name the system's
/// format.
macro_rules! instance {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($sys:ty, $model:ty);
        parse: $parse:literal,
        from_file: $file:literal,
        to_text: $text:literal,
        generate: $gen:literal $(,)?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $name {
            pub(super) inner: std::sync::Arc<$model>,
        }

        impl $name {
            #[doc = $parse]
            pub fn parse(text: &str) -> Result<$name, Error> {
                Ok($name::from(super::parse::<$sys>(text)?))
            }

            #[doc = $file]
            pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<$name, Error> {
                Ok($name::from(super::load::<$sys>(path.as_ref())?))
            }

            #[doc = $text]
            pub fn to_text(&self) -> String {
                <$sys as crate::systems::spec::System>::to_text(&self.inner)
            }
        }

        impl From<$model> for $name {
            fn from(m: $model) -> $name {
                $name {
                    inner: std::sync::Arc::new(m),
                }
            }
        }

        #[doc = $gen]
        pub fn generate(knobs: &Knobs, seed: u64) -> $name {
            $name::from(<$sys as crate::systems::spec::System>::generate(knobs, seed))
        }
    };
}

pub mod ar;
#[doc(hidden)]
pub mod bench_only;
pub mod ff8;
pub mod fft;
pub mod foeman;
pub mod lancer;

use crate::harness::differential::run_one;
use crate::harness::{inputs, Comparison, Differential, Verdict};
use crate::systems::spec::{Budget, LimitHit, System, DEFAULT_MAX_MEMORY};
use crate::text::{read_limited, LoadError, ParseErrors};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which engines answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engines {
    /// The direct engine and the SAT engine in parallel; their answers are compared, and a
    /// difference is [`Error::Disagree`] (the default).
    #[default]
    Both,
    /// The direct engine (search or simulation, no SAT) alone.
    Direct,
    /// The SAT engine alone.
    Sat,
}

impl Engines {
    /// The engines' names, as the systems name them.
    fn names(self) -> &'static [&'static str] {
        match self {
            Engines::Both => &["direct", "sat"],
            Engines::Direct => &["direct"],
            Engines::Sat => &["sat"],
        }
    }
}

/// How one `solve` runs: its time and memory limits and the engines that answer.
///
/// The default: both engines, compared, each run to its end (no timeout, no grace); at
/// most 1 GiB of state per engine (the CLI's `--max-memory` default).
///
/// ```
/// use gordian::{Engines, Limits};
/// use std::time::Duration;
///
/// let limits = Limits::default()
///     .timeout(Duration::from_secs(10))
///     .max_memory(256 << 20)
///     .engines(Engines::Direct);
/// # let _ = limits;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    timeout: Option<Duration>,
    max_memory: u64,
    engines: Engines,
    grace: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: None,
            max_memory: DEFAULT_MAX_MEMORY,
            engines: Engines::Both,
            grace: None,
        }
    }
}

impl Limits {
    /// The defaults (see [`Limits`]).
    pub fn new() -> Limits {
        Limits::default()
    }

    /// Gives up after `timeout` ([`Error::Timeout`]): the engines are cancelled and
    /// return within a moment. An engine that answered before is not enough (the answer
    /// would not be cross-checked); [`Limits::grace`] accepts a first answer alone.
    pub fn timeout(mut self, timeout: Duration) -> Limits {
        self.timeout = Some(timeout);
        self
    }

    /// Bounds the state each engine holds (answers, search state, SAT clauses; estimated)
    /// to `bytes`; past it that engine stops ([`Error::Limit`] when no engine answered).
    pub fn max_memory(mut self, bytes: u64) -> Limits {
        self.max_memory = bytes;
        self
    }

    /// Which engines answer.
    pub fn engines(mut self, engines: Engines) -> Limits {
        self.engines = engines;
        self
    }

    /// With both engines: once one has answered, the other may go on for the longer of
    /// `grace` and 3 times the first answer's time, then is cancelled and the answer is the first engine's alone (its
    /// `cross_checked()` is `false`). Without it (the default) both run to their end.
    pub fn grace(mut self, grace: Duration) -> Limits {
        self.grace = Some(grace);
        self
    }
}

/// Why `parse`, `from_file` or `solve` gave no instance or no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not a valid instance. Every error is located (file, line, column, the
    /// line itself). Displayed, each error is one line `FILE:LINE:COL: MESSAGE`, like every
    /// variant's message without an `error:` in front (add your own words:
    /// `eprintln!("parse error: {e}")`); [`ParseErrors::rendered`] gives the command
    /// line's form instead (`error: MESSAGE`, `--> FILE:LINE:COL`, the line and a caret).
    /// Text given to `parse` is named `<text>`.
    #[error(transparent)]
    Parse(#[from] ParseErrors),
    /// The file could not be read (missing, unreadable, or larger than 16 MiB).
    #[error("cannot read {}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Every engine that did not answer stopped at the memory bound
    /// ([`Limits::max_memory`]), and none answered.
    #[error(
        "the memory bound of {} MiB on engine state was reached while storing {what} \
         (raise it with Limits::max_memory)",
        max_bytes.div_ceil(1 << 20)
    )]
    Limit {
        /// What the engine was storing (`ways`, `cuts`, `SAT models`, ...).
        what: &'static str,
        /// The bound, in bytes.
        max_bytes: u64,
    },
    /// No answer within [`Limits::timeout`].
    #[error("no answer within the timeout of {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The engines' answers differ, or one panicked: a bug in gordian. Please report it
    /// with the instance.
    #[error("the engines disagree, which is a bug in gordian: {summary}")]
    Disagree {
        /// One line per engine: its name and a summary of its answer (or its error).
        summary: String,
        /// Each engine's whole answer as JSON (what `to_json` gives), or
        /// `{"error": MESSAGE}`, by engine name.
        answers: serde_json::Value,
    },
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Error {
        match e {
            LoadError::Io { file, source } => Error::Io { file, source },
            LoadError::Parse(e) => Error::Parse(e),
        }
    }
}

/// The seed of case `i` of a run with seed `run_seed`: instance `i` of `gordian gen
/// --seed RUN_SEED` (and case `i` of `gordian fuzz --seed RUN_SEED`) is the system's
/// `generate(&knobs, case_seed(RUN_SEED, i))`, with the knobs its flags set.
pub fn case_seed(run_seed: u64, i: u64) -> u64 {
    crate::harness::fuzz::case_seed(run_seed, i)
}

/// The name `parse` gives its text in located errors.
const TEXT: &str = "<text>";

/// [`System::parse`] of text given directly.
fn parse<S: System>(text: &str) -> Result<S::Instance, Error> {
    Ok(S::parse(Path::new(TEXT), text)?)
}

/// Reads (at most 16 MiB) and parses a file; errors name it.
fn load<S: System>(path: &Path) -> Result<S::Instance, Error> {
    let bytes = read_limited(path, &format!("{} files", S::NOUN))?;
    Ok(inputs::parse_bytes::<S>(&bytes, path)?)
}

/// What the engines answered, and how: the part every system's `Answer` shares.
#[derive(Clone, Debug)]
struct Solved<A> {
    /// The answer (the first engine's; with both, they are equal).
    answer: A,
    /// The engines that answered.
    engines: Vec<&'static str>,
    /// Whether two engines answered and agree.
    cross_checked: bool,
}

/// Runs the engines `limits` names on `instance` under its time and memory limits, as the
/// CLI does (`Differential`, `Budget::with_timeout`), and compares their answers.
fn solve<S: System>(instance: &S::Instance, limits: &Limits) -> Result<Solved<S::Answer>, Error> {
    let diff = Differential::<S>::only(limits.engines.names())
        .expect("every system has a direct and a SAT engine")
        .with_grace(limits.grace);
    let budget = Budget::with_max_memory(limits.max_memory);
    let c = budget.with_timeout(limits.timeout, || match diff.engines.as_slice() {
        // One engine needs no race: run it on this thread.
        [one] => Comparison {
            runs: vec![run_one::<S>(one.as_ref(), instance, &budget)],
        },
        _ => diff.compare(instance, &budget),
    });
    let stopped = |hit: Option<LimitHit>| match hit.or_else(|| budget.limit_hit()) {
        Some(h) => Error::Limit {
            what: h.what,
            max_bytes: h.max_bytes,
        },
        None => Error::Timeout(limits.timeout.unwrap_or_default()),
    };
    match c.verdict() {
        Verdict::Disagree => return Err(disagree::<S>(instance, &c)),
        Verdict::Interrupted => return Err(stopped(c.limit_hit())),
        Verdict::Agree(_) | Verdict::Alone(_) if budget.is_cancelled() => {
            return Err(stopped(None))
        }
        Verdict::Agree(_) | Verdict::Alone(_) => {}
    }
    let cross_checked = c.cross_checked();
    let engines = c
        .runs
        .iter()
        .filter(|r| r.result.is_ok())
        .map(|r| r.engine)
        .collect();
    let answer = c
        .runs
        .into_iter()
        .find_map(|r| r.result.ok())
        .expect("an engine answered");
    Ok(Solved {
        answer,
        engines,
        cross_checked,
    })
}

/// The error for engines that disagree: each one's summary and whole answer.
fn disagree<S: System>(instance: &S::Instance, c: &Comparison<S::Answer>) -> Error {
    let answers = c
        .runs
        .iter()
        .map(|r| {
            let v = match &r.result {
                Ok(a) => S::to_json(instance, a),
                Err(e) => serde_json::json!({"error": e.to_string()}),
            };
            (r.engine.to_string(), v)
        })
        .collect();
    Error::Disagree {
        summary: c.describe(|a| S::summary(instance, a)).join("; "),
        answers: serde_json::Value::Object(answers),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_keeps_its_location_and_a_file_error_names_the_file() {
        let e = ar::Night::parse("R1 block R2\nR2 frobnicate R1\n").unwrap_err();
        let Error::Parse(errs) = &e else {
            panic!("{e:?}")
        };
        assert_eq!((errs.0[0].line, errs.0[0].col), (2, 4));
        assert!(e.to_string().starts_with("<text>:2:4: "), "{e}");
        assert!(errs.rendered().contains("--> <text>:2:4"), "{e}");
        let e = fft::Scenario::from_file("no/such/file.fft").unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("cannot read no/such/file.fft: "),
            "{e}"
        );
    }

    #[test]
    fn limits_are_reported_as_such() {
        // A dense random night: one component of about 27,000 effects, more than 20 s of
        // work for the SAT engine (the 2,000-effect one is answered in milliseconds).
        let knobs = ar::Knobs {
            players: 15_000,
            effects: Some(30_000),
            kinds: ar::ActionKind::ALL[..5].to_vec(),
            priority_levels: 3,
            ..ar::Knobs::default()
        };
        let dense = ar::generate(&knobs, 1);
        let e = ar::solve(&dense, &Limits::new().max_memory(1024)).unwrap_err();
        assert!(matches!(e, Error::Limit { .. }), "{e}");
        assert!(e.to_string().contains("Limits::max_memory"), "{e}");
        let t = Duration::from_millis(50);
        let e = ar::solve(&dense, &Limits::new().timeout(t)).unwrap_err();
        assert!(matches!(e, Error::Timeout(d) if d == t), "{e}");
    }

    #[test]
    fn the_engines_asked_are_the_engines_that_answer() {
        // 14 disjoint mutual roleblocks: 2^14 resolutions.
        let text: String = (0..14)
            .map(|i| format!("A{i} block B{i}\nB{i} block A{i}\n"))
            .collect();
        let night = ar::Night::parse(&text).unwrap();
        let a = ar::solve(&night, &Limits::new()).unwrap();
        assert!(a.cross_checked() && a.engines() == ["direct", "sat"]);
        assert_eq!(a.resolution_count(), num_bigint::BigUint::from(1u32 << 14));
        assert_eq!(a.resolutions().count(), 1 << 14);
        assert_eq!(a.optimal_cuts().count(), 0);
        for (engines, name) in [(Engines::Direct, "direct"), (Engines::Sat, "sat")] {
            let a = ar::solve(&night, &Limits::new().engines(engines)).unwrap();
            assert!(!a.cross_checked() && a.engines() == [name]);
        }
    }
}
