//! What engines answer: resolutions (R, S and their ways), cuts and the whole analysis of
//! an ensemble, in a canonical order so that answers of different engines compare with `==`.
//!
//! Invariants: bitsets over the universe have `Universe::len()` bits, cuts have
//! `n_declared` bits; a [`TargetMap`] has one entry per universe effect, non-empty exactly
//! for the actions of R that are not cut; after [`Analysis::canonicalize`] every list is
//! sorted and free of duplicates. The resolutions under a cut ([`Under`]) may be a product
//! of factors over disjoint effects, kept canonical (what every resolution of a factor
//! shares moved to one fixed resolution, the rest held with ways over the factor's own
//! effects only, each as its difference from the factor's first way, laid over the fixed
//! one, and each list of targets a number in one table), or units and tables
//! ([`super::scoped`]) where an action's final targets depend on several units, and read
//! as the list it stands for.

use super::model::{ActionKind, Player};
use super::scoped::{created, Scoped};
pub use super::scoped::{TableRows, UnitRows};
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
        created(&self.present, u.n_declared)
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
    pub optimal: Vec<(Cut, Under)>,
}

/// The acceptable resolutions under one optimal cut: listed, or a product of independent
/// factors (every choice of one resolution per factor, united, is one resolution: R and S
/// are unions and the ways the products of the factors' ways, each factor's maps empty
/// outside its own effects). A product is how a large piece of a deflection-heavy night
/// holds 10^5 resolutions as a few hundred: once the cut is fixed, the deflections it
/// decides no longer join the piece's groups.
///
/// Reading it as a slice (`Deref`) lists every resolution in canonical order, expanded
/// once and kept; [`Under::len`], [`Under::n_ways`] and [`Under::for_each`] read a
/// product without expanding it.
#[derive(Clone, Debug)]
pub struct Under {
    form: Form,
    expanded: std::sync::OnceLock<Vec<Resolution>>,
}

#[derive(Clone, Debug)]
enum Form {
    Listed(Vec<Resolution>),
    Product(Box<Factors>),
    Scoped(Box<Scoped>),
}

/// A product's factors and what its canonical order needs without the universe.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Factors {
    /// What every resolution shares (one way, a whole map).
    fixed: Resolution,
    /// The factors that vary (each at least two resolutions or ways, canonical), over
    /// disjoint effects, their ways sparse, each target list a number in `targets`.
    varying: Vec<Vec<Stored>>,
    /// Every target list the ways hold, once each, ascending (so the numbers compare as
    /// the lists do, and two products built alike hold the same numbers).
    targets: Vec<Vec<Player>>,
    /// Effects below this index are declared (|R| - |E| counts the others).
    n_declared: usize,
    /// Each effect's rank when the ids are sorted as strings.
    rank: std::sync::Arc<[u32]>,
}

/// A way of a product's factor: the final targets of the factor's own effects that have
/// any (ascending by effect); every other effect's are another factor's.
pub type SparseWay = Vec<(u32, Vec<Player>)>;

/// One resolution of a product's factor: the bits of R and S it sets and its ways, each
/// over the factor's own effects only (a whole map would hold every effect of the piece
/// for each of 10^5 ways).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partial {
    pub present: FixedBitSet,
    pub succeeded: FixedBitSet,
    /// Distinct (sorted once the product is built).
    pub ways: Vec<SparseWay>,
}

/// A [`Partial`] as a product holds it: each way's entries an effect and the number of
/// its target list in [`Factors`]' table (8 bytes an entry, where a list of its own
/// takes about 50: a factor of 10^5 ways over 100 varying actions).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stored {
    present: FixedBitSet,
    succeeded: FixedBitSet,
    /// Distinct, sorted.
    ways: Vec<Vec<(u32, u32)>>,
}

/// The entries of `w` that `unite` must lay over a fixed way holding `base`'s targets
/// (both sorted by effect): those that differ from `base`'s, and an empty list for each
/// effect `base` has targets for and `w` has none.
fn difference(w: &SparseWay, base: &SparseWay) -> SparseWay {
    let mut out = Vec::new();
    let (mut a, mut b) = (w.iter().peekable(), base.iter().peekable());
    loop {
        let from_w = match (a.peek(), b.peek()) {
            (None, None) => return out,
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.1 != y.1 {
                    out.push((*x).clone());
                }
                a.next();
                b.next();
                continue;
            }
            (Some(x), Some(y)) => x.0 < y.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if from_w {
            out.extend(a.next().cloned());
        } else {
            out.extend(b.next().map(|y| (y.0, Vec::new())));
        }
    }
}

/// The final targets of effect `i` in a way that holds `w`'s entries over `base`'s.
fn over<'a>(w: &'a SparseWay, base: &'a SparseWay, i: u32) -> &'a [Player] {
    match w.binary_search_by_key(&i, |e| e.0) {
        Ok(k) => &w[k].1,
        Err(_) => sparse_get(base, i),
    }
}

/// A sparse way's final targets of effect `i` (empty when it has none).
fn sparse_get(w: &SparseWay, i: u32) -> &[Player] {
    match w.binary_search_by_key(&i, |e| e.0) {
        Ok(k) => &w[k].1,
        Err(_) => &[],
    }
}

/// The least number of created effects of a factor's resolutions.
fn min_created_partial(n_declared: usize, rs: &[Stored]) -> Option<usize> {
    rs.iter().map(|r| created(&r.present, n_declared)).min()
}

impl From<Vec<Resolution>> for Under {
    fn from(rs: Vec<Resolution>) -> Under {
        Under {
            form: Form::Listed(rs),
            expanded: std::sync::OnceLock::new(),
        }
    }
}

impl FromIterator<Resolution> for Under {
    fn from_iter<I: IntoIterator<Item = Resolution>>(it: I) -> Under {
        Under::from(it.into_iter().collect::<Vec<_>>())
    }
}

impl Default for Under {
    fn default() -> Under {
        Under::from(Vec::new())
    }
}

/// The most resolutions a product of one factor is listed with ([`Under::product`]).
/// Tests keep every product of one factor held as a product, so that they cover it.
#[cfg(not(test))]
const LIST_UP_TO: usize = 256;
#[cfg(test)]
const LIST_UP_TO: usize = 1;

impl Under {
    /// The product of `factors` (each a non-empty list of resolutions of `u` over effects
    /// no other factor touches, their ways sparse), canonical: what all of a factor's
    /// resolutions share (bits of R and S, final targets of every way) goes to one fixed
    /// resolution, and the other factors, only what varies left in them, are sorted by
    /// the first effect they touch. So two engines that split a product alike, wherever
    /// each put what is fixed, hold the same factors. A product of one factor of at most
    /// [`LIST_UP_TO`] resolutions is that list; a longer one stays a product, so that
    /// each resolution holds only the final targets that vary (a whole map per
    /// resolution holds every effect of the piece: 35,328 of them under one cut of a
    /// 700-effect piece take 600 MB).
    ///
    /// Each factor comes with a *base* (sorted by effect): the final targets a way has
    /// for the effects it holds no entry for, so that a way may hold only where it
    /// differs from the base (an empty list where it has no targets and the base has
    /// some). An empty base: a way's entries are all its targets.
    pub fn product(u: &Universe, factors: Vec<(SparseWay, Vec<Partial>)>) -> Under {
        if factors.is_empty() || factors.len() == 1 && factors[0].1.len() <= LIST_UP_TO {
            let mut rs: Vec<Resolution> = Vec::new();
            for (base, f) in factors {
                let mut m: TargetMap = vec![Vec::new(); u.len()];
                for (i, t) in &base {
                    m[*i as usize].clone_from(t);
                }
                rs.extend(f.into_iter().map(|r| {
                    Resolution {
                        ways: r
                            .ways
                            .iter()
                            .map(|w| {
                                let mut m = m.clone();
                                for (i, t) in w {
                                    m[*i as usize].clone_from(t);
                                }
                                m
                            })
                            .collect(),
                        present: r.present,
                        succeeded: r.succeeded,
                    }
                }));
            }
            canonicalize_resolutions(u, &mut rs);
            return Under::from(rs);
        }
        let mut fixed = Resolution {
            present: FixedBitSet::with_capacity(u.len()),
            succeeded: FixedBitSet::with_capacity(u.len()),
            ways: vec![vec![Vec::new(); u.len()]],
        };
        let mut varying: Vec<(usize, Vec<Stored>)> = Vec::new();
        // Target lists numbered as met, renumbered in ascending order at the end.
        let mut numbers: rustc_hash::FxHashMap<Vec<Player>, u32> = Default::default();
        let mut number = |t: Vec<Player>| -> u32 {
            let next = numbers.len() as u32;
            *numbers.entry(t).or_insert(next)
        };
        for (base, mut f) in factors {
            // A way's targets of effect i: its own entry, else the base's.
            let targets = |w: &SparseWay, i: u32| -> Vec<Player> { over(w, &base, i).to_vec() };
            let mut present = f[0].present.clone();
            let mut succeeded = f[0].succeeded.clone();
            for r in &f[1..] {
                present.intersect_with(&r.present);
                succeeded.intersect_with(&r.succeeded);
            }
            // The effects whose final targets are the same in every way, and the others.
            let mut mentioned: Vec<u32> = f
                .iter()
                .flat_map(|r| r.ways.iter().flat_map(|w| w.iter().map(|e| e.0)))
                .chain(base.iter().map(|e| e.0))
                .collect();
            mentioned.sort_unstable();
            mentioned.dedup();
            let way0 = &f[0].ways[0];
            let mut varies = vec![false; mentioned.len()];
            for w in f.iter().flat_map(|r| &r.ways) {
                for (k, &i) in mentioned.iter().enumerate() {
                    if !varies[k] && over(w, &base, i) != over(way0, &base, i) {
                        varies[k] = true;
                    }
                }
            }
            for (k, &i) in mentioned.iter().enumerate() {
                if !varies[k] {
                    fixed.ways[0][i as usize] = targets(way0, i);
                }
            }
            let varying_effects: Vec<u32> = mentioned
                .iter()
                .zip(&varies)
                .filter(|(_, &v)| v)
                .map(|(&i, _)| i)
                .collect();
            // A way's targets of the effects whose targets vary (those it has).
            let whole = |w: &SparseWay| -> SparseWay {
                varying_effects
                    .iter()
                    .map(|&i| (i, targets(w, i)))
                    .filter(|e| !e.1.is_empty())
                    .collect()
            };
            fixed.present.union_with(&present);
            fixed.succeeded.union_with(&succeeded);
            let mut touched: Option<usize> = None;
            for r in f.iter_mut() {
                r.present.difference_with(&present);
                r.succeeded.difference_with(&succeeded);
                let here = r
                    .present
                    .ones()
                    .chain(r.succeeded.ones())
                    .chain(r.ways.iter().filter_map(|w| {
                        let mut has = varying_effects
                            .iter()
                            .filter(|&&i| !over(w, &base, i).is_empty());
                        has.next().map(|&i| i as usize)
                    }))
                    .min();
                touched = match (touched, here) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            f.sort_by_cached_key(|r| {
                (
                    created(&r.present, u.n_declared),
                    sorted_ids(u, r.succeeded.ones()),
                    r.present.clone(),
                )
            });
            // Each way kept as its difference from the factor's first (the least way of
            // its first resolution: canonical), whose targets go to the fixed way:
            // `unite` lays a way over the fixed one. A large factor's ways differ from
            // one another in a few actions out of the many whose targets vary.
            let first = f[0].ways.iter().map(whole).min().expect("a way");
            for (i, t) in &first {
                fixed.ways[0][*i as usize].clone_from(t);
            }
            let mut stored: Vec<Stored> = f
                .into_iter()
                .map(|r| {
                    let mut ways: Vec<Vec<(u32, u32)>> = r
                        .ways
                        .iter()
                        .map(|w| {
                            difference(&whole(w), &first)
                                .into_iter()
                                .map(|(i, t)| (i, number(t)))
                                .collect()
                        })
                        .collect();
                    ways.sort();
                    ways.dedup();
                    Stored {
                        present: r.present,
                        succeeded: r.succeeded,
                        ways,
                    }
                })
                .collect();
            stored.dedup();
            if stored.len() > 1 || stored[0].ways.len() > 1 {
                varying.push((touched.unwrap_or(usize::MAX), stored));
            }
        }
        varying.sort_by_key(|(k, _)| *k);
        let mut targets: Vec<(Vec<Player>, u32)> = numbers.into_iter().collect();
        targets.sort_unstable();
        let mut renumber = vec![0u32; targets.len()];
        for (k, (_, was)) in targets.iter().enumerate() {
            renumber[*was as usize] = k as u32;
        }
        for r in varying.iter_mut().flat_map(|(_, f)| f) {
            for e in r.ways.iter_mut().flatten() {
                e.1 = renumber[e.1 as usize];
            }
            r.ways.sort();
        }
        Under {
            form: Form::Product(Box::new(Factors {
                fixed,
                varying: varying.into_iter().map(|(_, f)| f).collect(),
                targets: targets.into_iter().map(|(t, _)| t).collect(),
                n_declared: u.n_declared,
                rank: ranks(u),
            })),
            expanded: std::sync::OnceLock::new(),
        }
    }

    /// The resolutions of `units` and `tables` over the fixed resolution `fixed` (its R,
    /// S and one whole way, the tables' effects empty in it): see
    /// [`super::scoped`]. `units` are sorted by their labels, each unit's labellings in
    /// an order both engines share, so that two engines with the same units hold equal
    /// answers.
    pub fn scoped(
        u: &Universe,
        fixed: Resolution,
        units: Vec<UnitRows>,
        tables: Vec<TableRows>,
    ) -> Under {
        let Resolution {
            present,
            succeeded,
            mut ways,
        } = fixed;
        let way = ways.pop().expect("one way");
        Under {
            form: Form::Scoped(Box::new(Scoped::new(
                u.n_declared,
                ranks(u),
                present,
                succeeded,
                way,
                units,
                tables,
            ))),
            expanded: std::sync::OnceLock::new(),
        }
    }

    /// Whether both are held alike: the same list, or the same fixed part and factors
    /// (what `==` compares without expanding).
    #[cfg(test)]
    pub fn same_form(&self, other: &Under) -> bool {
        match (&self.form, &other.form) {
            (Form::Listed(a), Form::Listed(b)) => a == b,
            (Form::Product(a), Form::Product(b)) => a == b,
            (Form::Scoped(a), Form::Scoped(b)) => a == b,
            _ => false,
        }
    }

    /// Whether the resolutions are held as units and tables ([`Under::scoped`]).
    #[cfg(test)]
    pub fn is_scoped(&self) -> bool {
        matches!(self.form, Form::Scoped(_))
    }

    /// Whether the resolutions are held as a product of several factors.
    pub fn is_product(&self) -> bool {
        match &self.form {
            Form::Listed(_) => false,
            Form::Product(p) => !p.varying.is_empty(),
            Form::Scoped(s) => s.len() > 1,
        }
    }

    /// Every resolution, canonical (a product is expanded once and kept).
    pub fn as_slice(&self) -> &[Resolution] {
        self
    }

    /// Number of resolutions (saturating).
    pub fn len(&self) -> usize {
        match &self.form {
            Form::Listed(rs) => rs.len(),
            Form::Product(p) => p
                .varying
                .iter()
                .fold(1usize, |n, f| n.saturating_mul(f.len())),
            Form::Scoped(s) => s.len(),
        }
    }

    /// Whether there is no resolution.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of ways of all resolutions together (saturating).
    pub fn n_ways(&self) -> usize {
        match &self.form {
            Form::Listed(rs) => rs.iter().map(|r| r.ways.len()).sum(),
            Form::Product(p) => p.varying.iter().fold(1usize, |n, f| {
                n.saturating_mul(f.iter().map(|r| r.ways.len()).sum())
            }),
            Form::Scoped(s) => s.n_ways(false),
        }
    }

    /// Calls `f` on every resolution in product order (a list: its order), each built
    /// when reached and dropped after, so that a product is read in little memory.
    pub fn for_each<B>(
        &self,
        mut f: impl FnMut(&Resolution) -> std::ops::ControlFlow<B>,
    ) -> std::ops::ControlFlow<B> {
        match &self.form {
            Form::Listed(rs) => {
                for r in rs {
                    f(r)?;
                }
                std::ops::ControlFlow::Continue(())
            }
            Form::Product(p) => {
                let sizes = p.varying.iter().map(Vec::len).collect();
                for pick in crate::odometer::Product::new(sizes) {
                    let parts: Vec<&Stored> =
                        p.varying.iter().zip(&pick).map(|(fs, &k)| &fs[k]).collect();
                    f(&unite(&p.fixed, &parts, &p.targets))?;
                }
                std::ops::ControlFlow::Continue(())
            }
            Form::Scoped(s) => s.for_each(false, |present, succeeded, ways, _| {
                f(&Resolution {
                    present,
                    succeeded,
                    ways,
                })
            }),
        }
    }

    /// Calls `f` with every optimal resolution (least |R|) and how many there are: in
    /// canonical order when `ordered` (a product expanded for the call, not kept), else
    /// in product order, each built when reached (a product's optimal resolutions are the
    /// products of its factors' own, since the factors' created effects add up).
    pub fn for_each_optimal<B>(
        &self,
        u: &Universe,
        ordered: bool,
        mut f: impl FnMut(&Resolution, usize) -> std::ops::ControlFlow<B>,
    ) -> std::ops::ControlFlow<B> {
        let listed =
            |rs: &[Resolution],
             f: &mut dyn FnMut(&Resolution, usize) -> std::ops::ControlFlow<B>| {
                let best = min_created(u, rs);
                let opt: Vec<&Resolution> =
                    rs.iter().filter(|r| Some(r.n_created(u)) == best).collect();
                for r in &opt {
                    f(r, opt.len())?;
                }
                std::ops::ControlFlow::Continue(())
            };
        match &self.form {
            Form::Listed(rs) => listed(rs, &mut f),
            Form::Product(_) | Form::Scoped(_) if ordered => match self.expanded.get() {
                Some(all) => listed(all, &mut f),
                None => listed(&self.expand(), &mut f),
            },
            Form::Product(p) => {
                let best: Vec<Vec<&Stored>> = p
                    .varying
                    .iter()
                    .map(|rs| {
                        let b = min_created_partial(p.n_declared, rs);
                        rs.iter()
                            .filter(|r| Some(created(&r.present, p.n_declared)) == b)
                            .collect()
                    })
                    .collect();
                let count = best.iter().fold(1usize, |n, b| n.saturating_mul(b.len()));
                let sizes = best.iter().map(Vec::len).collect();
                for pick in crate::odometer::Product::new(sizes) {
                    let parts: Vec<&Stored> = best.iter().zip(&pick).map(|(b, &k)| b[k]).collect();
                    f(&unite(&p.fixed, &parts, &p.targets), count)?;
                }
                std::ops::ControlFlow::Continue(())
            }
            Form::Scoped(s) => s.for_each(true, |present, succeeded, ways, count| {
                let r = Resolution {
                    present,
                    succeeded,
                    ways,
                };
                f(&r, count)
            }),
        }
    }

    /// Number of ways of the optimal resolutions (least |R|) together (saturating).
    pub fn optimal_ways(&self, u: &Universe) -> usize {
        let of = |rs: &[Resolution]| -> usize {
            let best = min_created(u, rs);
            rs.iter()
                .filter(|r| Some(r.n_created(u)) == best)
                .map(|r| r.ways.len())
                .sum()
        };
        match &self.form {
            Form::Listed(rs) => of(rs),
            Form::Product(p) => p.varying.iter().fold(1usize, |n, rs| {
                let best = min_created_partial(p.n_declared, rs);
                n.saturating_mul(
                    rs.iter()
                        .filter(|r| Some(created(&r.present, p.n_declared)) == best)
                        .map(|r| r.ways.len())
                        .sum(),
                )
            }),
            Form::Scoped(s) => s.n_ways(true),
        }
    }

    /// The first `k` resolutions in canonical order (a product expanded for the call).
    pub fn first(&self, k: usize) -> std::borrow::Cow<'_, [Resolution]> {
        match &self.form {
            Form::Listed(rs) => std::borrow::Cow::Borrowed(&rs[..k.min(rs.len())]),
            _ if k == 0 => std::borrow::Cow::Owned(Vec::new()),
            _ => match self.expanded.get() {
                Some(all) => std::borrow::Cow::Borrowed(&all[..k.min(all.len())]),
                None => std::borrow::Cow::Owned(self.least(k)),
            },
        }
    }

    /// The least number of created effects of a resolution, if any.
    pub fn min_created(&self, u: &Universe) -> Option<usize> {
        match &self.form {
            Form::Listed(rs) => min_created(u, rs),
            Form::Product(p) => p
                .varying
                .iter()
                .map(|rs| min_created_partial(p.n_declared, rs))
                .sum::<Option<usize>>()
                .map(|m| m + p.fixed.n_created(u)),
            Form::Scoped(s) => (s.len() > 0).then(|| s.min_created()),
        }
    }

    /// Puts the list in canonical order (a product is kept canonical when built).
    pub fn canonicalize(&mut self, u: &Universe) {
        if let Form::Listed(rs) = &mut self.form {
            canonicalize_resolutions(u, rs);
            self.expanded = std::sync::OnceLock::new();
        }
    }
}

/// One resolution of a product: R and S united, the ways the product of the parts' ways
/// (each map the fixed one with the part's entries put in).
fn unite(fixed: &Resolution, parts: &[&Stored], targets: &[Vec<Player>]) -> Resolution {
    let mut present = fixed.present.clone();
    let mut succeeded = fixed.succeeded.clone();
    for r in parts {
        present.union_with(&r.present);
        succeeded.union_with(&r.succeeded);
    }
    let sizes = parts.iter().map(|r| r.ways.len()).collect();
    let mut ways: Vec<TargetMap> = crate::odometer::Product::new(sizes)
        .map(|pick| {
            let mut w = fixed.ways[0].clone();
            for (r, &k) in parts.iter().zip(&pick) {
                for &(i, t) in &r.ways[k] {
                    w[i as usize].clone_from(&targets[t as usize]);
                }
            }
            w
        })
        .collect();
    ways.sort();
    ways.dedup();
    Resolution {
        present,
        succeeded,
        ways,
    }
}

impl std::ops::Deref for Under {
    type Target = [Resolution];

    fn deref(&self) -> &[Resolution] {
        match &self.form {
            Form::Listed(rs) => rs,
            Form::Product(_) | Form::Scoped(_) => self.expanded.get_or_init(|| self.expand()),
        }
    }
}

impl Under {
    /// Every resolution of a product in canonical order (a list: a copy).
    fn expand(&self) -> Vec<Resolution> {
        if let Form::Listed(rs) = &self.form {
            return rs.clone();
        }
        if let Some(all) = self.expanded.get() {
            return all.clone();
        }
        self.least(usize::MAX)
    }

    /// The first `k` resolutions of a product in canonical order, found in one pass that
    /// keeps no more than `k` of them (a cut of a large piece has 10^5).
    fn least(&self, k: usize) -> Vec<Resolution> {
        let (n_declared, rank) = match &self.form {
            Form::Listed(rs) => return rs[..k.min(rs.len())].to_vec(),
            Form::Product(p) => (p.n_declared, p.rank.clone()),
            Form::Scoped(s) => (s.n_declared(), s.rank()),
        };
        // Canonical order: created effects, then the succeeded ids as strings, then R
        // (distinct resolutions have distinct keys).
        let key = |r: &Resolution| {
            let n_created = created(&r.present, n_declared);
            let mut ids: Vec<u32> = r.succeeded.ones().map(|i| rank[i]).collect();
            ids.sort_unstable();
            (n_created, ids, r.present.clone())
        };
        type Key = (usize, Vec<u32>, FixedBitSet);
        let mut best: std::collections::BinaryHeap<(Key, ByKey)> = Default::default();
        let _ = self.for_each(|r| {
            let kr = key(r);
            if best.len() < k {
                best.push((kr, ByKey(r.clone())));
            } else if best.peek().is_some_and(|(top, _)| kr < *top) {
                best.pop();
                best.push((kr, ByKey(r.clone())));
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        let mut all: Vec<Resolution> = best
            .into_sorted_vec()
            .into_iter()
            .map(|(_, r)| r.0)
            .collect();
        all.dedup();
        all
    }
}

/// Each effect's rank when the ids are sorted as strings.
fn ranks(u: &Universe) -> std::sync::Arc<[u32]> {
    let mut order: Vec<usize> = (0..u.len()).collect();
    order.sort_by(|&a, &b| u.effects[a].id.cmp(&u.effects[b].id));
    let mut rank = vec![0u32; u.len()];
    for (k, &i) in order.iter().enumerate() {
        rank[i] = k as u32;
    }
    rank.into()
}

/// A resolution in a heap ordered by its key alone ([`Under::least`]: keys are distinct).
struct ByKey(Resolution);

impl PartialEq for ByKey {
    fn eq(&self, _: &ByKey) -> bool {
        true
    }
}

impl Eq for ByKey {}

impl PartialOrd for ByKey {
    fn partial_cmp(&self, other: &ByKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByKey {
    fn cmp(&self, _: &ByKey) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl<'a> IntoIterator for &'a Under {
    type Item = &'a Resolution;
    type IntoIter = std::slice::Iter<'a, Resolution>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for Under {
    fn eq(&self, other: &Under) -> bool {
        match (&self.form, &other.form) {
            (Form::Listed(a), Form::Listed(b)) => a == b,
            (Form::Product(a), Form::Product(b)) if a == b => true,
            (Form::Scoped(a), Form::Scoped(b)) if a == b => true,
            // Different factorings of one product: compared expanded, one cut at a time
            // (the expansions are not kept).
            _ => self.len() == other.len() && self.expand() == other.expand(),
        }
    }
}

impl Eq for Under {}

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
                rs.canonicalize(u);
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
            optimal.push((f, rs.into()));
        }
        Some(CutAnalysis { cost, optimal })
    } else {
        None
    };
    let mut a = Analysis { resolutions, cuts };
    a.canonicalize(u);
    Ok(a)
}
