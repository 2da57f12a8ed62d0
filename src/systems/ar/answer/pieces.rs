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
/// succeeds (b) for `u < n`, and that effect `u - n` is live (in R and uncut) for
/// `u >= n`, n the component's universe size.
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
    /// The labels of every effect both of whose variables are fixed by the backbone.
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

/// One component's answer: flat, or a product of pieces.
#[derive(Clone, Debug)]
pub enum PartAnswer {
    /// The component's analysis.
    Flat(Analysis),
    /// The component's pieces and their analyses.
    Split(Split),
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

/// The pieces of component universe `u` from the products of every component of its
/// cut-search frame (over `u`'s whole index range).
pub fn pieces(
    u: &Universe,
    products: &[Product],
    rho: &TargetMap,
    budget: &Budget,
) -> Result<Split, Interrupted> {
    let n = u.len();
    let mut fixed_s = vec![None; n];
    let mut fixed_live = vec![None; n];
    for p in products {
        for &(v, b) in &p.fixed {
            if v < n {
                fixed_s[v] = Some(b);
            } else {
                fixed_live[v - n] = Some(b);
            }
        }
    }
    let shown = |i: Ix| i < u.n_declared || fixed_live[i] == Some(true);
    let mut parts = Vec::new();
    let mut analyses = Vec::new();
    let shared: Vec<Ix> = (0..n)
        .filter(|&i| fixed_s[i].is_some() && fixed_live[i].is_some() && shown(i))
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
        let (part, a) = piece(u, &shared, &[labels], rho, budget)?;
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
        let (part, a) = piece(u, &keep, &options, rho, budget)?;
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

/// One piece: the view of `keep` and its analysis from its labellings (frame numbering
/// over `u`: `s[i]` is `i`, `live[i]` is `u.len() + i`).
fn piece(
    u: &Universe,
    keep: &[Ix],
    options: &[Labelling],
    rho: &TargetMap,
    budget: &Budget,
) -> Result<(Part, Analysis), Interrupted> {
    let n = u.len();
    let also: Vec<Player> = keep.iter().flat_map(|&i| rho[i].iter().copied()).collect();
    let (pu, players) = u.piece(keep, &also);
    let local: BTreeMap<Ix, usize> = keep.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    // The component's final targets (one way: its deflections are settled), renumbered.
    let rho: TargetMap = keep
        .iter()
        .map(|&i| {
            rho[i]
                .iter()
                .map(|q| players.binary_search(q).expect("named in the piece") as Player)
                .collect()
        })
        .collect();
    let mut by_cut: BTreeMap<Vec<usize>, Vec<Resolution>> = BTreeMap::new();
    for o in options {
        budget.charge("pieces", pu.map_bytes() + 3 * pu.set_bytes())?;
        let mut present = FixedBitSet::with_capacity(pu.len());
        let mut succeeded = FixedBitSet::with_capacity(pu.len());
        let mut cut = Cut::with_capacity(pu.n_declared);
        for k in 0..pu.n_declared {
            present.insert(k);
        }
        for &(v, b) in o {
            let (i, is_live) = if v < n { (v, false) } else { (v - n, true) };
            let Some(&k) = local.get(&i) else { continue };
            match (is_live, b) {
                (false, true) => succeeded.insert(k),
                (true, true) if k >= pu.n_declared => present.insert(k),
                (true, false) if k < pu.n_declared => cut.insert(k),
                _ => {}
            }
        }
        let way = restrict(&pu, &rho, &present, &cut);
        by_cut
            .entry(cut.ones().collect())
            .or_default()
            .push(Resolution {
                present,
                succeeded,
                ways: vec![way],
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
