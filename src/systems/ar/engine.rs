//! The ?AR engines as [`Engine`]s of the system — direct search, SAT, brute force — and
//! the self-check that re-validates any engine's answer with the reference semantics.
//!
//! Invariant: each engine answers the whole analysis or `Interrupted`; which engines run
//! and how their answers are compared is the harness's business, not this module's.

use super::resolution::{Analysis, Cut};
use super::universe::Universe;
use super::{brute, direct, encode, semantics};
use crate::systems::spec::{Budget, Engine, Interrupted};
use std::time::Duration;

/// How long the slower engine may go on after the faster one answered, by default.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// Brute force runs in differential checks up to this universe size: it stays fast there.
pub const BRUTE_UP_TO: usize = 12;

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

/// Brute force: every subset and redirection, judged by the reference semantics. On a
/// universe larger than [`brute::MAX_UNIVERSE`] it answers `Interrupted`, as it gives up.
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
