//! When two factorised answers say the same: the cross-check of the engines' answers
//! ([`Factored`]'s `==`). Flat answers compare part by part; a component one answer split
//! compares with the other's flat analysis through the pieces' flattened product; two
//! split answers of one component compare piece by piece, or else on the common
//! coarsening of their groupings ([`pieces_agree`]).
//!
//! Invariant: never expands a product larger than the blocks the two groupings force.

use super::expand;
use super::factor::{Factored, Night, Part, Refined};
use crate::systems::ar::night::resolution::Analysis;
use petgraph::unionfind::UnionFind;
use std::collections::BTreeMap;

/// Two answers agree when they say the same of every component: equal analyses; for a
/// component one answer split, the flattened pieces equal to the other's analysis (the
/// cross-check of a split answer against a flat one); for a component both split, the
/// same pieces with equal analyses, or else equal products on the common coarsening of
/// the two groupings (see [`pieces_agree`]).
impl PartialEq for Factored {
    fn eq(&self, other: &Factored) -> bool {
        match (&self.refined, &other.refined) {
            (None, None) => self.parts == other.parts,
            (Some(a), Some(b)) => {
                a.ranges.len() == b.ranges.len()
                    && (0..a.ranges.len()).all(|k| {
                        let (pa, pb) = (
                            &self.parts[a.ranges[k].clone()],
                            &other.parts[b.ranges[k].clone()],
                        );
                        match (a.splits.get(&k), b.splits.get(&k)) {
                            (None, None) => pa.len() == 1 && pb.len() == 1 && pa[0] == pb[0],
                            (Some(m), None) => {
                                pb.len() == 1
                                    && expand::flatten(m, &Factored::of(pa.to_vec())) == pb[0]
                            }
                            (None, Some(m)) => {
                                pa.len() == 1
                                    && expand::flatten(m, &Factored::of(pb.to_vec())) == pa[0]
                            }
                            (Some(ma), Some(mb)) => pieces_agree(ma, pa, mb, pb),
                        }
                    })
            }
            (Some(r), None) => r.agrees(&self.parts, &other.parts),
            (None, Some(r)) => r.agrees(&other.parts, &self.parts),
        }
    }
}

impl Eq for Factored {}

/// Whether two answers of one component as pieces (`ma` with analyses `pa`, `mb` with
/// `pb`; both nights' whole is the component) say the same. The engines find their groups
/// on their own clauses, so the groupings may differ, but each is a coarsening of the
/// finest product the optimal labellings have, and what every optimal labelling shares
/// (the shared piece) is the same. So: the pieces holding an effect are joined, across
/// both answers, unless it is in several pieces on both sides (a reflexive passive a
/// group names its created effects by sits in the shared piece and in that group, in
/// both answers); on each block of the join the two answers' products are flattened and
/// compared (a block of one piece on each side with the same effects and players compares
/// directly).
/// A block with pieces on one side only is a disagreement.
pub fn pieces_agree(ma: &Night, pa: &[Analysis], mb: &Night, pb: &[Analysis]) -> bool {
    let same = |x: &Part, y: &Part| x.to_whole == y.to_whole && x.players == y.players;
    if ma.parts.len() == mb.parts.len() && ma.parts.iter().zip(&mb.parts).all(|(x, y)| same(x, y)) {
        return pa == pb;
    }
    let n = ma.whole.len();
    if n != mb.whole.len() {
        return false;
    }
    let holders = |m: &Night| {
        let mut h: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, p) in m.parts.iter().enumerate() {
            for &i in &p.to_whole {
                h[i].push(k);
            }
        }
        h
    };
    let (ha, hb) = (holders(ma), holders(mb));
    let offset = ma.parts.len();
    let mut uf = UnionFind::<usize>::new(offset + mb.parts.len());
    for i in 0..n {
        let (x, y) = (&ha[i], &hb[i]);
        if x.len() > 1 && y.len() > 1 {
            // Shared context on both sides: the same passive, fixed, in the shared piece.
            continue;
        }
        // An effect in no piece of one side (a created effect absent from every optimal
        // labelling) joins only the other side's pieces that hold it.
        let all = x.iter().copied().chain(y.iter().map(|&k| offset + k));
        let first = x
            .first()
            .copied()
            .unwrap_or(offset + y.first().copied().unwrap_or(0));
        for k in all {
            uf.union(first, k);
        }
    }
    let mut blocks: BTreeMap<usize, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for k in 0..offset + mb.parts.len() {
        let e = blocks.entry(uf.find(k)).or_default();
        if k < offset {
            e.0.push(k);
        } else {
            e.1.push(k - offset);
        }
    }
    let flat = |m: &Night, a: &[Analysis], ks: &[usize]| {
        let sub = Night {
            whole: m.whole.clone(),
            parts: ks.iter().map(|&k| m.parts[k].clone()).collect(),
        };
        let f = Factored::of(ks.iter().map(|&k| a[k].clone()).collect());
        expand::flatten(&sub, &f)
    };
    blocks
        .values()
        .all(|(xa, xb)| match (xa.as_slice(), xb.as_slice()) {
            ([x], [y]) if same(&ma.parts[*x], &mb.parts[*y]) => pa[*x] == pb[*y],
            _ => !xa.is_empty() && !xb.is_empty() && flat(ma, pa, xa) == flat(mb, pb, xb),
        })
}

impl Refined {
    /// Whether pieces' analyses `split` say what flat per-component analyses `flat` say.
    fn agrees(&self, split: &[Analysis], flat: &[Analysis]) -> bool {
        self.ranges.len() == flat.len()
            && self
                .ranges
                .iter()
                .enumerate()
                .all(|(k, r)| match self.splits.get(&k) {
                    Some(mini) => {
                        let pieces = Factored::of(split[r.clone()].to_vec());
                        expand::flatten(mini, &pieces) == flat[k]
                    }
                    None => r.len() == 1 && split[r.start] == flat[k],
                })
    }
}
