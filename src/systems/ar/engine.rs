//! Choosing and running engines: direct, SAT, brute force, or direct and SAT in parallel
//! (rayon) with a full comparison of their answers.
//!
//! Invariant: an answer reported as cross-checked was produced by both engines and the
//! two analyses were equal after canonicalisation; a disagreement is returned as data,
//! never hidden.

use super::resolution::{Analysis, Cut};
use super::universe::Universe;
use super::{brute, direct, encode, semantics};
use crate::systems::spec::{race, Budget, Interrupted, Job};
use std::time::Duration;

/// How long the slower engine may go on after the faster one answered, by default.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// Which engine(s) answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// Direct and SAT in parallel, compared.
    Both,
    /// SAT alone.
    Sat,
    /// Direct alone.
    Direct,
    /// Brute force alone (tiny nights).
    Brute,
}

/// What running the chosen engine(s) gave.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The analysis (the direct engine's when two engines ran).
    pub analysis: Analysis,
    /// Which engine produced it (`both` when cross-checked).
    pub engine: &'static str,
    /// Whether a second engine produced the same analysis.
    pub cross_checked: bool,
    /// When the engines disagree: (direct, SAT).
    pub disagreement: Option<(Analysis, Analysis)>,
    /// An engine that was asked but stopped after its grace period ran out.
    pub unfinished: Option<&'static str>,
}

/// Why no answer came back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The budget was cancelled.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// Brute force refuses universes this large.
    #[error("too large for brute force ({0} effects in the universe, at most {max})", max = brute::MAX_UNIVERSE)]
    TooLarge(usize),
}

/// Runs the chosen engine(s) on `u`, with [`DEFAULT_GRACE`] for the slower of two.
pub fn solve(u: &Universe, kind: EngineKind, budget: &Budget) -> Result<Answer, SolveError> {
    solve_with(u, kind, budget, Some(DEFAULT_GRACE))
}

/// Runs the chosen engine(s) on `u`. With [`EngineKind::Both`], once one engine has
/// answered the other gets `grace` more time (`None`: unbounded); if it runs out, the
/// answer is the first engine's alone, and says so.
pub fn solve_with(
    u: &Universe,
    kind: EngineKind,
    budget: &Budget,
    grace: Option<Duration>,
) -> Result<Answer, SolveError> {
    let single = |analysis, engine| Answer {
        analysis,
        engine,
        cross_checked: false,
        disagreement: None,
        unfinished: None,
    };
    match kind {
        EngineKind::Direct => Ok(single(direct::analyse(u, budget)?, "direct")),
        EngineKind::Sat => Ok(single(encode::analyse(u, budget)?, "sat")),
        EngineKind::Brute => {
            let a = brute::analyse(u).ok_or(SolveError::TooLarge(u.len()))?;
            Ok(single(a, "brute"))
        }
        EngineKind::Both => {
            let jobs: Vec<Job<Result<Analysis, Interrupted>>> = vec![
                Box::new(|b: &Budget| direct::analyse(u, b)),
                Box::new(|b: &Budget| encode::analyse(u, b)),
            ];
            let mut out = race(budget, grace, jobs).into_iter();
            let (d, s) = (out.next().expect("two jobs"), out.next().expect("two jobs"));
            budget.check()?;
            match (d, s) {
                (Ok(d), Ok(s)) if d == s => Ok(Answer {
                    analysis: d,
                    engine: "both",
                    cross_checked: true,
                    disagreement: None,
                    unfinished: None,
                }),
                (Ok(d), Ok(s)) => Ok(Answer {
                    analysis: d.clone(),
                    engine: "both",
                    cross_checked: false,
                    disagreement: Some((d, s)),
                    unfinished: None,
                }),
                (Ok(d), Err(_)) => Ok(Answer {
                    unfinished: Some("sat"),
                    ..single(d, "direct")
                }),
                (Err(_), Ok(s)) => Ok(Answer {
                    unfinished: Some("direct"),
                    ..single(s, "sat")
                }),
                (Err(e), Err(_)) => Err(e.into()),
            }
        }
    }
}

/// Re-validates every resolution (and every way) of an analysis with the reference
/// semantics; names the first one that is not acceptable.
pub fn self_check(u: &Universe, a: &Analysis) -> Result<(), String> {
    let none = Cut::with_capacity(u.n_declared);
    let mut lists = vec![(&none, &a.resolutions)];
    if let Some(c) = &a.cuts {
        lists.extend(c.optimal.iter().map(|(f, rs)| (f, rs)));
        if c.optimal.iter().any(|(_, rs)| rs.is_empty()) {
            return Err("a reported Gordian cut leaves no acceptable resolution".into());
        }
    }
    for (cut, rs) in lists {
        for r in rs {
            for w in &r.ways {
                semantics::check(u, cut, &r.present, &r.succeeded, w).map_err(|v| {
                    format!(
                        "resolution with S = {{{}}} is not acceptable: {v:?}",
                        r.succeeded_ids(u).join(", ")
                    )
                })?;
            }
        }
    }
    Ok(())
}
