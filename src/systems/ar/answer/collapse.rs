//! Identical passives collapsed before solving: a component's declared passives that
//! agree in everything but their id (owner, kind, modifiers, priority) are solved as one
//! effect whose weight is their number, and the answer is expanded back, so that it is
//! exactly the answer of the component as written.
//!
//! Why this is exact: every rule of the semantics reads an effect through its owner, its
//! kind, its modifiers, its targets (none for a passive) and its priority, never its id.
//! So identical passives that are present succeed or fail together (an attack on one is
//! an attack on each), and so do the effects they create for one visitor; and a cut that
//! drops some of a group but not all leaves a night that resolves exactly as the same
//! cut keeping all of them, at a higher cost, so no optimal cut does. The resolutions
//! and optimal cuts of the collapsed universe, with each group's cost counted
//! [`Universe::weight`] times by both engines, are therefore those of the original, one
//! for one. (The degenerate night of one player with a thousand identical reflexive
//! passives is solved as a night of one: its encoding, quadratic in a cycle of created
//! effects, was the whole cost.)
//!
//! Invariants: a collapsed universe is built only when some group has two members or
//! more; every effect of the original maps to one of the collapsed universe (a created
//! effect to the one its group's representative creates for the same visitor); the
//! expanded answer is canonical for the original universe. Brute force and the
//! reference semantics never see a collapsed universe, so the property tests compare
//! the expansion against answers computed without it.

use super::pieces::{self, Group, Labelling, PartAnswer, Product};
use crate::systems::ar::night::model::{Ensemble, Kind, Mods, Player};
use crate::systems::ar::night::resolution::{Analysis, Cut, CutAnalysis, Resolution, TargetMap};
use crate::systems::ar::night::universe::{Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::collections::HashMap;

/// What an engine found on one component: its flat analysis, or its optimal labellings
/// as products (made into pieces by [`pieces::pieces`]).
pub enum Found {
    /// The component's analysis.
    Flat(Analysis),
    /// The component's optimal labellings (a paradox's, or a non-paradox's resolutions).
    Products(Vec<Product>),
}

/// A component's universe with its identical passives collapsed.
pub struct Collapsed {
    /// The collapsed universe (one passive per group, weighted by the group's size).
    pub universe: Universe,
    /// For each effect of the original universe, its index in `universe`.
    to_collapsed: Vec<Ix>,
}

/// The collapsed universe of `u`, or `None` when no two of its passives are identical
/// (or `u` is a view that is not solved on its own).
pub fn collapse(u: &Universe, budget: &Budget) -> Result<Option<Collapsed>, Interrupted> {
    let nd = u.n_declared;
    let mut first: HashMap<(Player, Kind, Mods, u32), Ix> = HashMap::new();
    // The representative of each declared effect (itself unless a later identical
    // passive).
    let mut rep: Vec<Ix> = (0..nd).collect();
    let mut any = false;
    for (i, e) in u.effects[..nd].iter().enumerate() {
        if matches!(e.kind, Kind::Passive(_)) {
            let r = *first
                .entry((e.actor, e.kind, e.mods, e.priority))
                .or_insert(i);
            any |= r != i;
            rep[i] = r;
        }
    }
    if !any {
        return Ok(None);
    }
    budget.check()?;
    let mut weight = vec![0usize; nd];
    for &r in &rep {
        weight[r] += 1;
    }
    // The collapsed index of each representative: its rank among them.
    let mut index = vec![usize::MAX; nd];
    let mut kept = Vec::new();
    for i in 0..nd {
        if rep[i] == i {
            index[i] = kept.len();
            kept.push(i);
        }
    }
    let declared = |i: Ix| match u.effects[i].origin {
        Origin::Declared(k) => k,
        Origin::Created { .. } => unreachable!("the first effects are the declared ones"),
    };
    let ensemble = Ensemble {
        players: u.ensemble.players.clone(),
        effects: kept
            .iter()
            .map(|&i| u.ensemble.effects[declared(i)].clone())
            .collect(),
        alignments: u.ensemble.alignments.clone(),
    };
    let mut universe = Universe::new_within(&ensemble, budget)?;
    universe.set_weights(kept.iter().map(|&i| weight[i]).collect());
    let mut to_collapsed = Vec::with_capacity(u.len());
    for (i, e) in u.effects.iter().enumerate() {
        let c = match e.origin {
            Origin::Declared(_) => Some(index[rep[i]]),
            Origin::Created { passive, visitor } => universe.created(index[rep[passive]], visitor),
        };
        let Some(c) = c else {
            // The closure of creation is the same for identical passives, so this does
            // not happen; should it, the component is solved as written.
            debug_assert!(false, "a created effect of {} has no collapsed image", e.id);
            return Ok(None);
        };
        to_collapsed.push(c);
    }
    Ok(Some(Collapsed {
        universe,
        to_collapsed,
    }))
}

impl Collapsed {
    /// An effect set of the collapsed universe as one of the original (`len` effects).
    fn set(&self, s: &FixedBitSet, len: usize) -> FixedBitSet {
        let mut out = FixedBitSet::with_capacity(len);
        for (i, &c) in self.to_collapsed[..len].iter().enumerate() {
            if s.contains(c) {
                out.insert(i);
            }
        }
        out
    }

    fn way(&self, w: &TargetMap) -> TargetMap {
        self.to_collapsed.iter().map(|&c| w[c].clone()).collect()
    }

    fn resolution(&self, u: &Universe, r: &Resolution) -> Resolution {
        Resolution {
            present: self.set(&r.present, u.len()),
            succeeded: self.set(&r.succeeded, u.len()),
            ways: r.ways.iter().map(|w| self.way(w)).collect(),
        }
    }

    /// The collapsed universe's analysis as the analysis of `u` (canonical).
    pub fn analysis(&self, u: &Universe, a: &Analysis) -> Analysis {
        let resolutions = a
            .resolutions
            .iter()
            .map(|r| self.resolution(u, r))
            .collect();
        let cuts = a.cuts.as_ref().map(|c| CutAnalysis {
            cost: c.cost.clone(),
            optimal: c
                .optimal
                .iter()
                .map(|(f, rs)| {
                    let cut: Cut = self.set(f, u.n_declared);
                    (cut, rs.iter().map(|r| self.resolution(u, r)).collect())
                })
                .collect(),
        });
        let mut out = Analysis { resolutions, cuts };
        out.canonicalize(u);
        out
    }

    /// Products over the collapsed universe as products over `u`: each label of a
    /// collapsed effect becomes the same label of every effect it stands for.
    pub fn products(&self, u: &Universe, ps: &[Product]) -> Vec<Product> {
        let (n, nc) = (u.len(), self.universe.len());
        let mut of: Vec<Vec<Ix>> = vec![Vec::new(); nc];
        for (i, &c) in self.to_collapsed.iter().enumerate() {
            of[c].push(i);
        }
        let labelling = |l: &Labelling| -> Labelling {
            let mut out = Vec::with_capacity(l.len());
            for &(v, b) in l {
                if v < 2 * nc {
                    let (base, c) = if v < nc { (0, v) } else { (n, v - nc) };
                    out.extend(of[c].iter().map(|&i| (base + i, b)));
                } else {
                    // "Player v - 2nc is processed last": the players are the same.
                    out.push((v - 2 * nc + 2 * n, b));
                }
            }
            out
        };
        ps.iter()
            .map(|p| Product {
                fixed: labelling(&p.fixed),
                groups: p
                    .groups
                    .iter()
                    .map(|g| {
                        let mut effects: Vec<Ix> = g
                            .effects
                            .iter()
                            .flat_map(|&c| of[c].iter().copied())
                            .collect();
                        effects.sort_unstable();
                        Group {
                            effects,
                            factors: g.factors.iter().map(|f| f.map(|o| labelling(o))).collect(),
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

/// One component's answer by `find`, on the collapsed universe when `u` has identical
/// passives (the answer expanded back), then as pieces when `find` gave products
/// ([`pieces::answer`]).
pub fn answer(
    u: &Universe,
    budget: &Budget,
    find: impl Fn(&Universe, &Budget) -> Result<Found, Interrupted>,
) -> Result<PartAnswer, Interrupted> {
    let found = match collapse(u, budget)? {
        None => find(u, budget)?,
        Some(c) => match find(&c.universe, budget)? {
            Found::Flat(a) => Found::Flat(c.analysis(u, &a)),
            Found::Products(ps) => Found::Products(c.products(u, &ps)),
        },
    };
    match found {
        Found::Flat(a) => Ok(PartAnswer::Flat(a)),
        Found::Products(ps) => pieces::answer(u, &ps, budget),
    }
}
