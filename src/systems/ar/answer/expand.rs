//! From the factorised answer back to flat lists over the whole night: the products of
//! the components' resolutions, cuts and ways.
//!
//! Invariants: a flat item is built from one choice per component, translated to the
//! whole universe through [`Part::to_whole`] and [`Part::players`]; [`flatten`] gives the
//! same [`Analysis`] (after canonicalisation) an engine would give on the unsplit night,
//! which the tests check against brute force. Products are iterated lazily
//! ([`Product`](crate::odometer::Product)), so streaming writers hold one item at a time.

use super::factor::{Factored, Night, Part};
use crate::odometer;
use crate::systems::ar::night::resolution::{
    Analysis, Classification, Cut, CutAnalysis, Resolution, TargetMap, Under,
};
use fixedbitset::FixedBitSet;

/// Translates part bitsets / maps into the whole universe's indices.
pub struct Merger<'a> {
    night: &'a Night,
}

impl<'a> Merger<'a> {
    /// A merger for a night.
    pub fn new(night: &'a Night) -> Merger<'a> {
        Merger { night }
    }

    /// The night it merges into.
    pub fn night(&self) -> &'a Night {
        self.night
    }

    fn bits(&self, parts: &[(&Part, &FixedBitSet)], len: usize) -> FixedBitSet {
        let mut out = FixedBitSet::with_capacity(len);
        for (p, b) in parts {
            for i in b.ones() {
                out.insert(p.to_whole[i]);
            }
        }
        out
    }

    /// The cut of the whole night made of one cut per part.
    pub fn cut(&self, parts: &[(&Part, &Cut)]) -> Cut {
        self.bits(parts, self.night.whole.n_declared)
    }

    /// One way of the whole night from one way per part.
    pub fn way(&self, parts: &[(&Part, &TargetMap)]) -> TargetMap {
        let mut out: TargetMap = vec![Vec::new(); self.night.whole.len()];
        for (p, w) in parts {
            for (i, t) in w.iter().enumerate() {
                if !t.is_empty() {
                    out[p.to_whole[i]] = t.iter().map(|&q| p.players[q as usize]).collect();
                }
            }
        }
        out
    }

    /// The resolution of the whole night made of one resolution per part: R and S are
    /// unions, the ways are the product of the parts' ways.
    pub fn resolution(&self, parts: &[(&Part, &Resolution)]) -> Resolution {
        let len = self.night.whole.len();
        let present: Vec<_> = parts.iter().map(|(p, r)| (*p, &r.present)).collect();
        let succeeded: Vec<_> = parts.iter().map(|(p, r)| (*p, &r.succeeded)).collect();
        let sizes = parts.iter().map(|(_, r)| r.ways.len()).collect();
        let ways = odometer::Product::new(sizes)
            .map(|pick| {
                let ws: Vec<_> = parts
                    .iter()
                    .zip(&pick)
                    .map(|((p, r), &k)| (*p, &r.ways[k]))
                    .collect();
                self.way(&ws)
            })
            .collect();
        Resolution {
            present: self.bits(&present, len),
            succeeded: self.bits(&succeeded, len),
            ways,
        }
    }

    /// Every product of one resolution per list, lazily.
    pub fn products<'b>(
        &'b self,
        lists: Vec<(&'b Part, &'b [Resolution])>,
    ) -> impl Iterator<Item = Resolution> + 'b {
        let sizes = lists.iter().map(|(_, rs)| rs.len()).collect();
        odometer::Product::new(sizes).map(move |pick| {
            let chosen: Vec<_> = lists
                .iter()
                .zip(&pick)
                .map(|((p, rs), &k)| (*p, &rs[k]))
                .collect();
            self.resolution(&chosen)
        })
    }
}

/// A component's share of an optimal cut: its cut (`None`: nothing cut) and the
/// resolutions of the component under it.
pub type CutChoice<'a> = (Option<&'a Cut>, &'a [Resolution]);

/// The per-part choices of an optimal cut of the whole night: for a paradox component one
/// of its optimal cuts with E_k[F_k]'s resolutions, for any other nothing cut and its own
/// resolutions.
pub fn cut_choices(f: &Factored) -> Vec<Vec<CutChoice<'_>>> {
    f.parts
        .iter()
        .map(|a| match &a.cuts {
            Some(c) => c
                .optimal
                .iter()
                .map(|(k, rs)| (Some(k), rs.as_slice()))
                .collect(),
            None => vec![(None, a.resolutions.as_slice())],
        })
        .collect()
}

/// Every optimal cut of the whole night, lazily, in product order: the cut (whole-night
/// bits) and, per component, the resolutions under it (whose products are the
/// resolutions of the cut night).
pub fn optimal_cuts<'a>(
    night: &'a Night,
    f: &'a Factored,
) -> impl Iterator<Item = (Cut, Vec<(&'a Part, &'a [Resolution])>)> + 'a {
    let night = f.night(night);
    let choices = cut_choices(f);
    let sizes = choices.iter().map(Vec::len).collect();
    let m = Merger::new(night);
    odometer::Product::new(sizes).map(move |pick| {
        let chosen: Vec<(&Part, CutChoice)> = night
            .parts
            .iter()
            .zip(&choices)
            .zip(&pick)
            .map(|((p, c), &k)| (p, c[k]))
            .collect();
        let cuts: Vec<(&Part, &Cut)> = chosen
            .iter()
            .filter_map(|(p, (c, _))| c.map(|c| (*p, c)))
            .collect();
        let lists = chosen.iter().map(|(p, (_, rs))| (*p, *rs)).collect();
        (m.cut(&cuts), lists)
    })
}

/// The flat analysis of the whole night (every product expanded), canonical. Its size is
/// the product of the parts' sizes: call it only when [`Factored::totals`] is small.
pub fn flatten(night: &Night, f: &Factored) -> Analysis {
    let night = f.night(night);
    let m = Merger::new(night);
    let resolutions = if f.classification() == Classification::Paradox {
        Vec::new()
    } else {
        let lists = night
            .parts
            .iter()
            .zip(&f.parts)
            .map(|(p, a)| (p, a.resolutions.as_slice()))
            .collect();
        m.products(lists).collect()
    };
    let cuts = f.cost(night).map(|cost| {
        let optimal = optimal_cuts(night, f)
            .map(|(cut, lists)| (cut, m.products(lists).collect()))
            .collect();
        CutAnalysis { cost, optimal }
    });
    let mut a = Analysis { resolutions, cuts };
    a.canonicalize(&night.whole);
    a
}

/// The inverse of [`flatten`]: the factorised answer read off the flat analysis of the
/// whole night, by projecting every resolution, cut and way onto each component. Valid
/// because the flat answer is the product of the components' (so every projection of
/// it is a component's answer, and a component that is not a paradox has nothing cut in
/// any optimal cut).
pub fn project(night: &Night, flat: &Analysis) -> Factored {
    let whole = &night.whole;
    let parts = night
        .parts
        .iter()
        .map(|p| {
            let u = &p.universe;
            let mut local = vec![usize::MAX; whole.len()];
            for (i, &w) in p.to_whole.iter().enumerate() {
                local[w] = i;
            }
            let mut local_player = vec![u32::MAX; whole.n_players()];
            for (i, &w) in p.players.iter().enumerate() {
                local_player[w as usize] = i as u32;
            }
            let bits = |b: &FixedBitSet, len: usize| {
                let mut out = FixedBitSet::with_capacity(len);
                for i in b.ones() {
                    if local[i] != usize::MAX {
                        out.insert(local[i]);
                    }
                }
                out
            };
            let way = |w: &TargetMap| -> TargetMap {
                p.to_whole
                    .iter()
                    .map(|&wi| w[wi].iter().map(|&q| local_player[q as usize]).collect())
                    .collect()
            };
            let resolutions = |rs: &[Resolution]| {
                let mut found = crate::systems::ar::night::resolution::WaysByResolution::new();
                for r in rs {
                    let e = found
                        .entry((bits(&r.present, u.len()), bits(&r.succeeded, u.len())))
                        .or_default();
                    e.extend(r.ways.iter().map(way));
                }
                crate::systems::ar::night::resolution::group_ways(u, found)
            };
            let mut a = match &flat.cuts {
                None => Analysis {
                    resolutions: resolutions(&flat.resolutions),
                    cuts: None,
                },
                Some(c) => {
                    let cut_here = |f: &Cut| bits(f, u.n_declared);
                    if c.optimal.iter().all(|(f, _)| cut_here(f).is_clear()) {
                        // Not a paradox itself: every optimal cut leaves it alone.
                        Analysis {
                            resolutions: resolutions(&c.optimal[0].1),
                            cuts: None,
                        }
                    } else {
                        let mut optimal: Vec<(Cut, Under)> = Vec::new();
                        for (f, rs) in &c.optimal {
                            let fk = cut_here(f);
                            if !optimal.iter().any(|(g, _)| *g == fk) {
                                optimal.push((fk, resolutions(rs).into()));
                            }
                        }
                        let cost = crate::systems::ar::night::resolution::cut_cost(
                            u,
                            u.levels(),
                            &optimal[0].0,
                        );
                        Analysis {
                            resolutions: Vec::new(),
                            cuts: Some(CutAnalysis { cost, optimal }),
                        }
                    }
                }
            };
            a.canonicalize(u);
            a
        })
        .collect();
    Factored::of(parts)
}
