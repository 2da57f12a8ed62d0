//! Brute force: every subset S of the universe, every redirection, judged by
//! [`semantics`](super::semantics). Exponential; for tests and tiny instances only.
//!
//! Invariant: it contains no search logic of its own beyond exhaustive enumeration, so it
//! is the contract by exhaustion, independent of the direct and SAT engines.

use super::semantics;
use crate::systems::ar::night::resolution::{
    cut_cost, group_ways, Analysis, Cut, CutAnalysis, Resolution, TargetMap, WaysByResolution,
};
use crate::systems::ar::night::universe::Universe;
use fixedbitset::FixedBitSet;
use itertools::Itertools;
use std::collections::BTreeMap;

/// Largest universe the brute-force engine accepts.
pub const MAX_UNIVERSE: usize = 22;

/// Every acceptable resolution of E[cut], or `None` if the universe is too large.
pub fn resolutions(u: &Universe, cut: &Cut) -> Option<Vec<Resolution>> {
    let n = u.len();
    if n > MAX_UNIVERSE {
        return None;
    }
    let free: Vec<usize> = (0..n).filter(|&i| !semantics::is_cut(u, cut, i)).collect();
    let mut all = FixedBitSet::with_capacity(n);
    all.insert_range(..);
    let mut found = WaysByResolution::new();
    for mask in 0u64..(1u64 << free.len()) {
        let mut s = FixedBitSet::with_capacity(n);
        for (b, &i) in free.iter().enumerate() {
            if mask >> b & 1 == 1 {
                s.insert(i);
            }
        }
        for full_rho in semantics::redirections(u, cut, &all, &s) {
            let Some(created) = semantics::created_set(u, cut, &s, &full_rho) else {
                continue;
            };
            let mut present = created;
            present.insert_range(..u.n_declared);
            if !s.is_subset(&present) {
                continue;
            }
            let rho: TargetMap = full_rho
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    if present.contains(i) {
                        t.clone()
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            if semantics::check(u, cut, &present, &s, &rho).is_ok() {
                found
                    .entry((present.clone(), s.clone()))
                    .or_default()
                    .push(rho);
            }
        }
    }
    let rs = group_ways(u, found);
    Some(rs)
}

/// The whole analysis (resolutions; for a paradox every optimal cut), or `None` if the
/// universe is too large.
pub fn analyse(u: &Universe) -> Option<Analysis> {
    let nd = u.n_declared;
    let resolutions = resolutions(u, &Cut::with_capacity(nd))?;
    let cuts = if resolutions.is_empty() {
        let levels = u.levels();
        let mut by_cost: BTreeMap<Vec<usize>, Vec<Cut>> = BTreeMap::new();
        for mask in 1u64..(1u64 << nd) {
            let mut f = Cut::with_capacity(nd);
            (0..nd)
                .filter(|b| mask >> b & 1 == 1)
                .for_each(|b| f.insert(b));
            by_cost.entry(cut_cost(u, levels, &f)).or_default().push(f);
        }
        let mut answer = None;
        for (cost, cuts) in by_cost {
            let optimal = cuts
                .into_iter()
                .filter_map(|f| {
                    let rs = self::resolutions(u, &f)?;
                    (!rs.is_empty()).then_some((f, rs.into()))
                })
                .collect_vec();
            if !optimal.is_empty() {
                answer = Some(CutAnalysis { cost, optimal });
                break;
            }
        }
        Some(answer.expect("cutting every effect always leaves an acceptable resolution"))
    } else {
        None
    };
    let mut a = Analysis { resolutions, cuts };
    a.canonicalize(u);
    Some(a)
}
