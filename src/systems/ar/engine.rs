//! The ?AR engines as [`Engine`]s of the system — direct search, SAT, brute force — and
//! the self-check that re-validates any engine's answer with the reference semantics.
//!
//! Each engine solves a [`Night`] component by component (in parallel, rayon) and
//! answers the [`Factored`] analysis.
//!
//! Invariant: each engine answers the whole analysis or `Interrupted`; which engines run
//! and how their answers are compared is the harness's business, not this module's.

use super::answer::expand;
use super::answer::factor::{Factored, Night};
use super::answer::pieces::PartAnswer;
use super::direct;
use super::judge::{brute, semantics};
use super::night::resolution::{Analysis, Cut};
use super::night::universe::Universe;
use super::sat::satsplit;
use crate::systems::spec::{Budget, Engine, Interrupted};
use rayon::prelude::*;

/// Nights of at most this many universe effects solve their components in turn.
const PARALLEL_FROM: usize = 64;

/// Nights of at most this many universe effects are solved whole and their answer
/// projected onto the components ([`expand::project`]): one search instead of one per
/// component, which on small nights costs less than it saves.
pub const WHOLE_UP_TO: usize = 16;

/// Solves a night with `solve`: small nights whole (projected onto their components),
/// others component by component, in parallel when there are several and the night is
/// not small.
fn per_part(
    night: &Night,
    budget: &Budget,
    solve: impl Fn(&Universe, &Budget) -> Result<Analysis, Interrupted> + Sync,
) -> Result<Factored, Interrupted> {
    per_part_split(night, budget, |u, b| solve(u, b).map(PartAnswer::Flat))
}

/// As [`per_part`], for a solver that may answer a component as a product of pieces.
fn per_part_split(
    night: &Night,
    budget: &Budget,
    solve: impl Fn(&Universe, &Budget) -> Result<PartAnswer, Interrupted> + Sync,
) -> Result<Factored, Interrupted> {
    if night.parts.len() > 1 && night.whole.len() <= WHOLE_UP_TO {
        let flat = match solve(&night.whole, budget)? {
            PartAnswer::Flat(a) => a,
            PartAnswer::Split(s) => s.flatten(),
        };
        return Ok(expand::project(night, &flat));
    }
    solve_parts(night, budget, solve)
}

/// Solves every part with `solve` on its own (whatever the night's size).
pub fn solve_parts(
    night: &Night,
    budget: &Budget,
    solve: impl Fn(&Universe, &Budget) -> Result<PartAnswer, Interrupted> + Sync,
) -> Result<Factored, Interrupted> {
    // Components of small nights are solved in turn: splitting work that takes
    // microseconds across threads costs more than it saves.
    let parts = if night.parts.len() > 1 && night.whole.len() > PARALLEL_FROM {
        night
            .parts
            .par_iter()
            .map(|p| solve(&p.universe, budget))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        night
            .parts
            .iter()
            .map(|p| solve(&p.universe, budget))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(Factored::assemble(night, parts))
}

/// Brute force runs in differential checks up to this universe size: it stays fast there.
pub const BRUTE_UP_TO: usize = 12;

/// The direct search engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Direct;

impl Engine<Night, Factored> for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, n: &Night, budget: &Budget) -> Result<Factored, Interrupted> {
        per_part_split(n, budget, direct::analyse_part)
    }
}

/// The SAT engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sat;

impl Engine<Night, Factored> for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, n: &Night, budget: &Budget) -> Result<Factored, Interrupted> {
        per_part_split(n, budget, satsplit::analyse_part)
    }
}

/// Brute force: every subset and redirection, judged by the reference semantics. On a
/// component larger than [`brute::MAX_UNIVERSE`] it answers `Interrupted`, as it gives up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Brute;

impl Engine<Night, Factored> for Brute {
    fn name(&self) -> &'static str {
        "brute"
    }
    fn solve(&self, n: &Night, budget: &Budget) -> Result<Factored, Interrupted> {
        per_part(n, budget, |u, b| {
            b.check()?;
            brute::analyse(u).ok_or(Interrupted)
        })
    }
}

/// Re-validates every component's answer with the reference semantics.
/// A component answered as pieces is checked piece by piece: every entry of one piece
/// with the first entry of each other piece, as a resolution of the whole component (the
/// product's other combinations are valid by its independence, see `direct/split.rs`).
pub fn self_check(n: &Night, f: &Factored) -> Result<(), String> {
    let Some(r) = &f.refined else {
        for (p, a) in n.parts.iter().zip(&f.parts) {
            self_check_part(&p.universe, a)?;
        }
        return Ok(());
    };
    for (k, range) in r.ranges.iter().enumerate() {
        let pieces = &f.parts[range.clone()];
        let Some(mini) = r.splits.get(&k) else {
            self_check_part(&n.parts[k].universe, &pieces[0])?;
            continue;
        };
        for j in 0..pieces.len() {
            let few: Vec<Analysis> = pieces
                .iter()
                .enumerate()
                .map(|(i, a)| if i == j { a.clone() } else { first_entry(a) })
                .collect();
            let flat = expand::flatten(mini, &Factored::of(few));
            self_check_part(&mini.whole, &flat)?;
        }
    }
    Ok(())
}

/// An analysis cut down to its first entry: its first resolution, or its first optimal
/// cut with that cut's first resolution.
fn first_entry(a: &Analysis) -> Analysis {
    Analysis {
        resolutions: a.resolutions.iter().take(1).cloned().collect(),
        cuts: a
            .cuts
            .as_ref()
            .map(|c| super::night::resolution::CutAnalysis {
                cost: c.cost.clone(),
                optimal: c
                    .optimal
                    .iter()
                    .take(1)
                    .map(|(cut, rs)| (cut.clone(), rs.iter().take(1).cloned().collect()))
                    .collect(),
            }),
    }
}

/// Re-validates every resolution (and every way) of an analysis with the reference
/// semantics; names the first one that is not acceptable.
pub fn self_check_part(u: &Universe, a: &Analysis) -> Result<(), String> {
    let none = Cut::with_capacity(u.n_declared);
    let mut lists = vec![(&none, a.resolutions.as_slice())];
    if let Some(c) = &a.cuts {
        lists.extend(c.optimal.iter().map(|(f, rs)| (f, rs.as_slice())));
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
