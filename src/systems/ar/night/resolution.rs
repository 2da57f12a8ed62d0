//! What engines answer: resolutions (R, S and their ways), cuts and the whole analysis of
//! an ensemble, in a canonical order so that answers of different engines compare with `==`.
//!
//! Invariants: bitsets over the universe have `Universe::len()` bits, cuts have
//! `n_declared` bits; a [`TargetMap`] has one entry per universe effect, non-empty exactly
//! for the actions of R that are not cut; after [`Analysis::canonicalize`] every list is
//! sorted and free of duplicates.

use super::model::{ActionKind, Player};
use super::universe::Universe;
use crate::systems::spec::Interrupted;
use fixedbitset::FixedBitSet;

/// A set of declared effects replaced by always-failing no-ops (bit i = declared effect i).
pub type Cut = FixedBitSet;

/// Final targets of every slot: entry i lists effect i's final targets (empty for passives,
/// cut effects and created effects not in R).
pub type TargetMap = Vec<Vec<Player>>;

/// The target map before redirection: every action's declared targets (passives: none).
pub fn declared_map(u: &Universe) -> TargetMap {
    u.effects
        .iter()
        .map(|e| {
            if e.action().is_some() {
                e.targets.clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// The final-target map of one way, restricted to R's uncut actions.
pub fn restrict(u: &Universe, rho: &TargetMap, present: &FixedBitSet, cut: &Cut) -> TargetMap {
    (0..u.len())
        .map(|i| {
            let is_cut = i < u.n_declared && cut.contains(i);
            if present.contains(i) && !is_cut {
                rho[i].clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// One acceptable resolution (R, S) with all its coherent ways of redirecting.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Resolution {
    /// R as universe bits: all declared effects plus the created ones present.
    pub present: FixedBitSet,
    /// S: the effects that succeed.
    pub succeeded: FixedBitSet,
    /// The distinct final-target maps (at least one), sorted.
    pub ways: Vec<TargetMap>,
}

impl Resolution {
    /// Number of created effects in R (|R| - |E|).
    pub fn n_created(&self, u: &Universe) -> usize {
        self.present.ones().filter(|&i| i >= u.n_declared).count()
    }

    /// Ids of the succeeded effects, sorted as strings.
    pub fn succeeded_ids(&self, u: &Universe) -> Vec<String> {
        sorted_ids(u, self.succeeded.ones())
    }

    /// Deaths of one way, sorted by name: the players a succeeding kill finally targets
    /// (killed), the actor of a succeeding `hide` whose final target is killed, and the
    /// final target of a succeeding `babysit` whose actor is killed. Links go one step:
    /// a death by a link does not carry on through another link.
    pub fn deaths(&self, u: &Universe, way: &TargetMap) -> Vec<String> {
        if !u.links_deaths() {
            let mut dead: Vec<String> = self
                .succeeded
                .ones()
                .filter(|&i| u.effects[i].action() == Some(ActionKind::Kill))
                .flat_map(|i| way[i].iter().map(|&p| u.player_name(p).to_string()))
                .collect();
            dead.sort();
            dead.dedup();
            return dead;
        }
        let of = |k: ActionKind| {
            self.succeeded
                .ones()
                .filter(move |&i| u.effects[i].action() == Some(k))
        };
        let mut killed: Vec<Player> = of(ActionKind::Kill)
            .flat_map(|i| way[i].iter().copied())
            .collect();
        killed.sort_unstable();
        killed.dedup();
        let is_killed = |p: &Player| killed.binary_search(p).is_ok();
        let mut dead: Vec<Player> = killed.clone();
        dead.extend(
            of(ActionKind::Hide)
                .filter(|&g| way[g].iter().any(is_killed))
                .map(|g| u.effects[g].actor),
        );
        dead.extend(
            of(ActionKind::Babysit)
                .filter(|&g| is_killed(&u.effects[g].actor))
                .flat_map(|g| way[g].iter().copied()),
        );
        let mut dead: Vec<String> = dead
            .into_iter()
            .map(|p| u.player_name(p).to_string())
            .collect();
        dead.sort();
        dead.dedup();
        dead
    }
}

/// Ids of the given universe effects, sorted as strings.
pub fn sorted_ids(u: &Universe, ix: impl Iterator<Item = usize>) -> Vec<String> {
    sorted_id_refs(u, ix)
        .into_iter()
        .map(String::from)
        .collect()
}

/// Ids of the given universe effects, sorted as strings, borrowed from the universe.
pub fn sorted_id_refs(u: &Universe, ix: impl Iterator<Item = usize>) -> Vec<&str> {
    let mut v: Vec<&str> = ix.map(|i| u.effects[i].id.as_str()).collect();
    v.sort_unstable();
    v
}

/// The optimal Gordian cuts of a paradox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutAnalysis {
    /// The optimal cost vector: one count per priority level of E, ascending by level.
    pub cost: Vec<usize>,
    /// Every optimal cut with the acceptable resolutions of E[F].
    pub optimal: Vec<(Cut, Vec<Resolution>)>,
}

/// Everything an engine says about one ensemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The acceptable resolutions of E itself (empty for a paradox).
    pub resolutions: Vec<Resolution>,
    /// For a paradox, its optimal cuts.
    pub cuts: Option<CutAnalysis>,
}

/// The contract's three classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Classification {
    /// No acceptable resolution.
    Paradox,
    /// Exactly one resolution with exactly one way.
    NonParadox,
    /// Several resolutions, or one with several ways.
    QuasiParadox,
}

impl Classification {
    /// Classifies a list of acceptable resolutions.
    pub(crate) fn of(resolutions: &[Resolution]) -> Classification {
        match resolutions {
            [] => Classification::Paradox,
            [r] if r.ways.len() == 1 => Classification::NonParadox,
            _ => Classification::QuasiParadox,
        }
    }

    /// The class of independent parts taken together (their answers multiply): a paradox
    /// when some part is one, a non-paradox when every part is one.
    pub(crate) fn of_parts(parts: impl IntoIterator<Item = Classification>) -> Classification {
        let mut all_one = true;
        for c in parts {
            match c {
                Classification::Paradox => return Classification::Paradox,
                Classification::QuasiParadox => all_one = false,
                Classification::NonParadox => {}
            }
        }
        if all_one {
            Classification::NonParadox
        } else {
            Classification::QuasiParadox
        }
    }

    /// As written in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Classification::Paradox => "paradox",
            Classification::NonParadox => "non-paradox",
            Classification::QuasiParadox => "quasi-paradox",
        }
    }
}

/// Sorts resolutions (by |R|, then by their succeeded ids) and their ways; drops duplicates.
pub fn canonicalize_resolutions(u: &Universe, rs: &mut Vec<Resolution>) {
    for r in rs.iter_mut() {
        r.ways.sort();
        r.ways.dedup();
    }
    rs.sort_by_cached_key(|r| (r.n_created(u), r.succeeded_ids(u), r.present.clone()));
    rs.dedup();
}

impl Analysis {
    /// The classification of E.
    pub fn classification(&self) -> Classification {
        Classification::of(&self.resolutions)
    }

    /// Puts every list in canonical order.
    pub fn canonicalize(&mut self, u: &Universe) {
        canonicalize_resolutions(u, &mut self.resolutions);
        if let Some(c) = &mut self.cuts {
            for (_, rs) in c.optimal.iter_mut() {
                canonicalize_resolutions(u, rs);
            }
            c.optimal
                .sort_by_cached_key(|(f, _)| sorted_ids(u, f.ones()));
            c.optimal.dedup_by(|a, b| a.0 == b.0);
        }
    }
}

/// Ways found per (R, S), keyed by (R, S) as universe bitsets.
pub type WaysByResolution = std::collections::BTreeMap<(FixedBitSet, FixedBitSet), Vec<TargetMap>>;

/// Turns ways grouped by (R, S) into canonical resolutions.
pub fn group_ways(u: &Universe, found: WaysByResolution) -> Vec<Resolution> {
    let mut rs: Vec<Resolution> = found
        .into_iter()
        .map(|((present, succeeded), ways)| Resolution {
            present,
            succeeded,
            ways,
        })
        .collect();
    canonicalize_resolutions(u, &mut rs);
    rs
}

/// The least |R| - |E| among resolutions, if any.
pub fn min_created(u: &Universe, rs: &[Resolution]) -> Option<usize> {
    rs.iter().map(|r| r.n_created(u)).min()
}

/// Cost vector of a cut: per priority level of E (ascending), the number of cut effects
/// (each with its [`Universe::weight`]).
pub fn cut_cost(u: &Universe, levels: &[u32], cut: &Cut) -> Vec<usize> {
    let mut cost = vec![0; levels.len()];
    for i in cut.ones() {
        let p = u.effects[i].priority;
        let l = levels
            .binary_search(&p)
            .expect("every declared priority is a level");
        cost[l] += u.weight(i);
    }
    cost
}

/// The two questions every complete engine answers; [`analyse_with`] builds the whole
/// analysis from them.
pub trait Resolver {
    /// Every acceptable resolution of E[cut].
    fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted>;
    /// The optimal cost vector and every optimal Gordian cut.
    fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted>;
}

/// The analysis every engine gives: the resolutions of E; for a paradox, every optimal
/// cut with the resolutions of E[F]; all in canonical order.
pub fn analyse_with(u: &Universe, r: &mut impl Resolver) -> Result<Analysis, Interrupted> {
    let resolutions = r.resolutions(&Cut::with_capacity(u.n_declared))?;
    let cuts = if resolutions.is_empty() {
        let (cost, cuts) = r.optimal_cuts()?;
        let mut optimal = Vec::with_capacity(cuts.len());
        for f in cuts {
            let rs = r.resolutions(&f)?;
            optimal.push((f, rs));
        }
        Some(CutAnalysis { cost, optimal })
    } else {
        None
    };
    let mut a = Analysis { resolutions, cuts };
    a.canonicalize(u);
    Ok(a)
}
