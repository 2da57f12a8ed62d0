//! A component's answer as a product of *pieces*, built from the products of
//! [`crate::systems::ar::direct::split`]: one piece holding what every optimal labelling shares, and one per
//! independent group. Each piece is a [`Part`] (a view of some of the component's effects,
//! see [`Universe::piece`]) with an [`Analysis`] of its own, so a split component is a
//! [`Night`] of pieces whose [`Factored`] answer is the component's, exactly as a night is
//! the product of its components: R, S and the ways are unions, cut costs add, the
//! optimal cuts are the products of the pieces' cuts and the resolutions under a cut the
//! products of the pieces' resolutions under its share.
//!
//! Invariants: the pieces' effects are disjoint but for the reflexive passives a group's
//! created effects come from (shared, always present, succeeding and uncut, so unions are
//! unaffected); a created effect absent from every optimal labelling is in no piece; each
//! piece's analysis is canonical; [`Split::flatten`] is the component's flat analysis.
//! Both engines build their pieces here from a [`Product`] they found on their own (the
//! direct engine by [`crate::systems::ar::direct::split`], the SAT engine by [`crate::systems::ar::sat::satsplit`]); nothing here
//! searches.

use super::expand;
use super::factor::{Factored, Night, Part, Refined};
use crate::systems::ar::night::model::Player;
use crate::systems::ar::night::resolution::{
    cut_cost, restrict, Analysis, Cut, CutAnalysis, Resolution, TargetMap,
};
use crate::systems::ar::night::universe::{Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Labels of some variables of a component, in frame numbering: `(u, b)` says effect u
/// succeeds (b) for `u < n`, that effect `u - n` is live (in R and uncut) for
/// `n <= u < 2n`, n the component's universe size, and for `u >= 2n` that player `u - 2n`,
/// a member of a cycle of two deflections or more, is (b) the one processed last (a way;
/// a cycle none of whose members is labelled last has its first member last).
pub type Labelling = Vec<(usize, bool)>;

/// One independent group: its effects (universe indices, ascending) and every labelling of
/// them, in the order found.
#[derive(Clone, Debug)]
pub struct Group {
    /// The effects whose labels vary in this group.
    pub effects: Vec<Ix>,
    /// Every labelling of the group's effects (both variables of each effect).
    pub options: Vec<Labelling>,
}

/// A component's optimal labellings as a product: every choice of one option per group,
/// with `fixed`, is an optimal labelling, and every optimal labelling is one.
#[derive(Clone, Debug)]
pub struct Product {
    /// The labels the backbone fixes: every fixed variable (a grouped effect may have
    /// one; its options repeat it); the effects both of whose variables are fixed and
    /// which are in no group make the shared piece.
    pub fixed: Labelling,
    /// The independent groups.
    pub groups: Vec<Group>,
}

/// A component answered as a product of pieces.
#[derive(Clone, Debug)]
pub struct Split {
    /// The pieces as a night whose whole is the component.
    pub night: Night,
    /// Each piece's analysis, in the order of `night.parts`.
    pub parts: Vec<Analysis>,
}

impl Split {
    /// Number of (cut, resolution) entries of the flat answer: the product of the pieces'.
    pub fn flat_size(&self) -> f64 {
        self.parts
            .iter()
            .map(|a| match &a.cuts {
                Some(c) => c.optimal.iter().map(|(_, rs)| rs.len()).sum::<usize>() as f64,
                None => a.resolutions.len() as f64,
            })
            .product()
    }

    /// The component's flat analysis (every product expanded; canonical).
    pub fn flatten(&self) -> Analysis {
        expand::flatten(&self.night, &self.factored())
    }

    /// The pieces' answer as a factorised answer of `self.night`.
    pub fn factored(&self) -> Factored {
        Factored::of(self.parts.clone())
    }
}

/// A product form is kept as pieces when its flat answer would have more than this many
/// (cut, resolution) entries; a smaller one is flattened, so that small answers read as
/// they always have. Tests keep every product with more than one entry as pieces.
#[cfg(not(test))]
const FLAT_UP_TO: f64 = 256.0;
#[cfg(test)]
const FLAT_UP_TO: f64 = 1.0;

/// A component's answer from its optimal labellings as products: as pieces
/// ([`pieces`]), flattened when the flat answer is small ([`FLAT_UP_TO`]).
pub fn answer(
    u: &Universe,
    products: &[Product],
    budget: &Budget,
) -> Result<PartAnswer, Interrupted> {
    let s = pieces(u, products, budget)?;
    Ok(if s.flat_size() <= FLAT_UP_TO {
        PartAnswer::Flat(s.flatten())
    } else {
        PartAnswer::Split(Box::new(s))
    })
}

/// One component's answer: flat, or a product of pieces.
#[derive(Clone, Debug)]
pub enum PartAnswer {
    /// The component's analysis.
    Flat(Analysis),
    /// The component's pieces and their analyses.
    Split(Box<Split>),
}

/// Assembling a night's answer from its components' answers lives beside [`PartAnswer`],
/// which the engines return.
impl Factored {
    /// The answer from one answer per component of `night`: split components are
    /// replaced by their pieces in a refined night (see [`Factored::night`]).
    pub fn assemble(night: &Night, answers: Vec<PartAnswer>) -> Factored {
        if answers.iter().all(|a| matches!(a, PartAnswer::Flat(_))) {
            return Factored::of(
                answers
                    .into_iter()
                    .map(|a| match a {
                        PartAnswer::Flat(a) => a,
                        PartAnswer::Split(_) => unreachable!("all flat"),
                    })
                    .collect(),
            );
        }
        let mut parts = Vec::new();
        let mut pieces = Vec::new();
        let mut ranges = Vec::new();
        let mut splits = BTreeMap::new();
        for (k, (part, a)) in night.parts.iter().zip(answers).enumerate() {
            let start = parts.len();
            match a {
                PartAnswer::Flat(a) => {
                    parts.push(a);
                    pieces.push(part.clone());
                }
                PartAnswer::Split(s) => {
                    for p in &s.night.parts {
                        pieces.push(Part {
                            universe: p.universe.clone(),
                            to_whole: p.to_whole.iter().map(|&i| part.to_whole[i]).collect(),
                            players: p
                                .players
                                .iter()
                                .map(|&q| part.players[q as usize])
                                .collect(),
                        });
                    }
                    let s = *s;
                    parts.extend(s.parts);
                    splits.insert(k, s.night);
                }
            }
            ranges.push(start..parts.len());
        }
        Factored {
            parts,
            refined: Some(Arc::new(Refined {
                night: Night {
                    whole: night.whole.clone(),
                    parts: pieces,
                },
                ranges,
                splits,
            })),
        }
    }
}

/// What an engine must put in one group with each action so that its pieces can show
/// where the action ends: joins (through `union`, over [`Labelling`] labels) every action
/// that may be in R and uncut (its liveness label not fixed false by `fixed`) with what
/// decides where its slots end when `fixed` does not: the success of each deflection its
/// path passes before a fixed stop, and for a cycle it runs into, every member's
/// deflection and the cycle's `last` labels (`has_last(p)`: player p's cycle has them).
/// Both engines call it with their own fixed values (their backbones), over the effects
/// `of` they group.
pub fn join_redirected(
    u: &Universe,
    fixed: impl Fn(usize) -> Option<bool>,
    has_last: impl Fn(Player) -> bool,
    of: impl IntoIterator<Item = Ix>,
    budget: &Budget,
    mut union: impl FnMut(usize, usize),
) -> Result<(), Interrupted> {
    /// Where a slot's walk from a player first meets something undecided.
    #[derive(Clone, Copy)]
    enum Meets {
        /// A fixed stop first: nothing.
        Nothing,
        /// A deflection (label of its success) whose success is not fixed.
        Free(usize),
        /// A cycle (index): its members' deflections and `last` labels.
        Cycle(usize),
    }
    let n = u.len();
    let d = &*u.deflections;
    if !u.has_deflections() {
        return Ok(());
    }
    // Each player's answer is walked once: a slot passing a deflection fixed to succeed
    // meets what the deflection's own slot meets from its target. Joining an action with
    // the first free deflection on its way suffices, since that deflection, an action
    // too, is joined with the next one.
    let mut memo: Vec<Option<Meets>> = vec![None; u.n_players()];
    // Each cycle's undecided labels, joined once: a representative, if any.
    let mut cycle_rep: Vec<Option<Option<usize>>> = vec![None; d.cycles().len()];
    let mut walk = Vec::new();
    for (k, i) in of.into_iter().enumerate() {
        if k % 4096 == 0 {
            budget.check()?;
        }
        let e = &u.effects[i];
        if e.action().is_none() || fixed(n + i) == Some(false) {
            continue;
        }
        for &t in &e.targets {
            let mut p = t;
            let meets = loop {
                if let Some(m) = memo[p as usize] {
                    break m;
                }
                let Some(g) = u.deflector[p as usize] else {
                    break Meets::Nothing;
                };
                if d.next(p) == Some(p) || fixed(g) == Some(false) {
                    break Meets::Nothing;
                }
                if let Some(c) = d.cycle_of(p) {
                    break Meets::Cycle(c);
                }
                if fixed(g).is_none() {
                    break Meets::Free(g);
                }
                walk.push(p);
                p = d.next(p).expect("an active deflection has a target");
            };
            memo[p as usize] = Some(meets);
            for q in walk.drain(..) {
                memo[q as usize] = Some(meets);
            }
            match meets {
                Meets::Nothing => {}
                Meets::Free(g) => union(i, g),
                Meets::Cycle(c) => {
                    let rep = *cycle_rep[c].get_or_insert_with(|| {
                        let mut rep = None;
                        for &q in &d.cycles()[c] {
                            let h = u.deflector[q as usize].expect("a cycle member deflects");
                            let mut free = vec![];
                            if fixed(h).is_none() {
                                free.push(h);
                            }
                            if has_last(q) {
                                let k = 2 * n + q as usize;
                                // The cycle's choice goes with its deflections in any case.
                                union(h, k);
                                if fixed(k).is_none() {
                                    free.push(k);
                                }
                            }
                            for x in free {
                                match rep {
                                    None => rep = Some(x),
                                    Some(r) => union(r, x),
                                }
                            }
                        }
                        rep
                    });
                    if let Some(r) = rep {
                        union(i, r);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The pieces of component universe `u` from the products of every component of its
/// cut-search frame (over `u`'s whole index range). Final targets are walked from the
/// labels: every deflection a piece's slots can pass before they stop is decided by the
/// piece's own labels or by the fixed ones (the engines group an action with the
/// deflections and cycles that decide where it ends).
pub fn pieces(u: &Universe, products: &[Product], budget: &Budget) -> Result<Split, Interrupted> {
    let n = u.len();
    let mut fixed_s = vec![None; n];
    let mut fixed_live = vec![None; n];
    let mut fixed_last = FixedBitSet::with_capacity(u.n_players());
    for p in products {
        for &(v, b) in &p.fixed {
            if v < n {
                fixed_s[v] = Some(b);
            } else if v < 2 * n {
                fixed_live[v - n] = Some(b);
            } else {
                fixed_last.set(v - 2 * n, b);
            }
        }
    }
    let ends = Ends {
        u,
        fixed_s: &fixed_s,
        fixed_live: &fixed_live,
        fixed_last: &fixed_last,
    };
    let shown = |i: Ix| i < u.n_declared || fixed_live[i] == Some(true);
    let mut parts = Vec::new();
    let mut analyses = Vec::new();
    let mut grouped = FixedBitSet::with_capacity(n);
    for g in products.iter().flat_map(|p| &p.groups) {
        g.effects.iter().for_each(|&i| grouped.insert(i));
    }
    let shared: Vec<Ix> = (0..n)
        .filter(|&i| {
            fixed_s[i].is_some() && fixed_live[i].is_some() && !grouped.contains(i) && shown(i)
        })
        .collect();
    if !shared.is_empty() {
        budget.check()?;
        let labels: Labelling = shared
            .iter()
            .flat_map(|&i| {
                [
                    (i, fixed_s[i] == Some(true)),
                    (n + i, fixed_live[i] == Some(true)),
                ]
            })
            .collect();
        let (part, a) = piece(u, &shared, &[labels], &ends, budget)?;
        parts.push(part);
        analyses.push(a);
    }
    let mut groups: Vec<_> = products.iter().flat_map(|p| &p.groups).collect();
    groups.sort_by_key(|g| g.effects.first().copied());
    for g in groups {
        budget.check()?;
        // The group's effects and the (fixed, uncut, succeeding) passives of its created
        // effects, which the piece needs to name them.
        let mut keep = g.effects.clone();
        let mut context: Vec<Ix> = Vec::new();
        for &i in &g.effects {
            if let Origin::Created { passive, .. } = u.effects[i].origin {
                if keep.binary_search(&passive).is_err() && !context.contains(&passive) {
                    context.push(passive);
                }
            }
        }
        let extra: Labelling = context
            .iter()
            .flat_map(|&p| [(p, true), (n + p, true)])
            .collect();
        keep.extend(&context);
        keep.sort_unstable();
        let options: Vec<Labelling> = g
            .options
            .iter()
            .map(|o| o.iter().chain(&extra).copied().collect())
            .collect();
        let (part, a) = piece(u, &keep, &options, &ends, budget)?;
        parts.push(part);
        analyses.push(a);
    }
    Ok(Split {
        night: Night {
            whole: u.clone(),
            parts,
        },
        parts: analyses,
    })
}

/// What decides final targets outside one option's labels: the fixed success of every
/// effect and the fixed members processed last.
struct Ends<'a> {
    u: &'a Universe,
    fixed_s: &'a [Option<bool>],
    fixed_live: &'a [Option<bool>],
    fixed_last: &'a FixedBitSet,
}

impl Ends<'_> {
    /// The final targets of each effect of `keep` under the fixed labels with `labels`
    /// put in: empty for passives and for effects not live (cut, or created and absent),
    /// whose final targets no answer shows.
    fn targets(&self, keep: &[Ix], labels: &Labelling) -> Vec<Vec<Player>> {
        let u = self.u;
        let n = u.len();
        let d = &*u.deflections;
        let mut s_of: BTreeMap<Ix, bool> = BTreeMap::new();
        let mut live_of: BTreeMap<Ix, bool> = BTreeMap::new();
        let mut last = self.fixed_last.clone();
        for &(v, b) in labels {
            if v < n {
                s_of.insert(v, b);
            } else if v < 2 * n {
                live_of.insert(v - n, b);
            } else {
                last.set(v - 2 * n, b);
            }
        }
        let on = |p: Player| {
            u.deflector[p as usize].is_some_and(|g| {
                s_of.get(&g).copied().or(self.fixed_s[g]).unwrap_or_else(|| {
                    panic!("bug in gordian: a final target depends on a deflection outside its piece")
                })
            })
        };
        // A wholly active cycle none of whose members is labelled last has its first.
        let is_last = |p: Player| {
            last.contains(p as usize)
                || d.cycle_of(p).is_some_and(|c| {
                    let members = &d.cycles()[c];
                    members[0] == p && members.iter().all(|&q| !last.contains(q as usize))
                })
        };
        let mut memo: std::collections::HashMap<Player, Player> = Default::default();
        keep.iter()
            .map(|&i| {
                let e = &u.effects[i];
                let live = live_of.get(&i).copied().or(self.fixed_live[i]) == Some(true);
                if e.action().is_none() || !live {
                    return Vec::new();
                }
                e.targets
                    .iter()
                    .map(|&t| d.end_of_memo(t, |p| d.stops_at(p, on, is_last), &mut memo))
                    .collect()
            })
            .collect()
    }
}

/// One piece: the view of `keep` and its analysis from its labellings (frame numbering
/// over `u`: `s[i]` is `i`, `live[i]` is `u.len() + i`, lasts from `2 * u.len()`).
fn piece(
    u: &Universe,
    keep: &[Ix],
    options: &[Labelling],
    ends: &Ends,
    budget: &Budget,
) -> Result<(Part, Analysis), Interrupted> {
    let n = u.len();
    let mut targets = Vec::with_capacity(options.len());
    let mut also: Vec<Player> = Vec::new();
    for o in options {
        budget.check()?;
        let t = ends.targets(keep, o);
        also.extend(t.iter().flatten().copied());
        targets.push(t);
    }
    also.sort_unstable();
    also.dedup();
    let (pu, players) = u.piece(keep, &also);
    let local: BTreeMap<Ix, usize> = keep.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    type Key = (Vec<usize>, FixedBitSet, FixedBitSet);
    let mut found: BTreeMap<Key, Vec<TargetMap>> = BTreeMap::new();
    for (o, t) in options.iter().zip(targets) {
        budget.charge("pieces", pu.map_bytes() + 3 * pu.set_bytes())?;
        // The option's final targets, renumbered.
        let rho: TargetMap = t
            .into_iter()
            .map(|ps| {
                ps.into_iter()
                    .map(|q| players.binary_search(&q).expect("named in the piece") as Player)
                    .collect()
            })
            .collect();
        let mut present = FixedBitSet::with_capacity(pu.len());
        let mut succeeded = FixedBitSet::with_capacity(pu.len());
        let mut cut = Cut::with_capacity(pu.n_declared);
        for k in 0..pu.n_declared {
            present.insert(k);
        }
        for &(v, b) in o {
            let (i, is_live) = match v {
                v if v < n => (v, false),
                v if v < 2 * n => (v - n, true),
                _ => continue,
            };
            let Some(&k) = local.get(&i) else { continue };
            match (is_live, b) {
                (false, true) => succeeded.insert(k),
                (true, true) if k >= pu.n_declared => present.insert(k),
                (true, false) if k < pu.n_declared => cut.insert(k),
                _ => {}
            }
        }
        let way = restrict(&pu, &rho, &present, &cut);
        found
            .entry((cut.ones().collect(), present, succeeded))
            .or_default()
            .push(way);
    }
    // Options that differ only in the members processed last are one resolution's ways.
    let mut by_cut: BTreeMap<Vec<usize>, Vec<Resolution>> = BTreeMap::new();
    for ((cut, present, succeeded), mut ways) in found {
        ways.sort();
        ways.dedup();
        by_cut.entry(cut).or_default().push(Resolution {
            present,
            succeeded,
            ways,
        });
    }
    let resolved = by_cut.len() == 1 && by_cut.keys().next().is_some_and(Vec::is_empty);
    let mut a = if resolved {
        Analysis {
            resolutions: by_cut.into_values().next().unwrap_or_default(),
            cuts: None,
        }
    } else {
        let optimal: Vec<(Cut, Vec<Resolution>)> = by_cut
            .into_iter()
            .map(|(ones, rs)| {
                let mut c = Cut::with_capacity(pu.n_declared);
                ones.into_iter().for_each(|k| c.insert(k));
                (c, rs)
            })
            .collect();
        let cost = optimal
            .first()
            .map(|(c, _)| cut_cost(&pu, pu.levels(), c))
            .unwrap_or_else(|| vec![0; pu.levels().len()]);
        Analysis {
            resolutions: Vec::new(),
            cuts: Some(CutAnalysis { cost, optimal }),
        }
    };
    a.canonicalize(&pu);
    let part = Part {
        universe: pu,
        to_whole: keep.to_vec(),
        players,
    };
    Ok((part, a))
}
