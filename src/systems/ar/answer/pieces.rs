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
    cut_cost, restrict, Analysis, Cut, CutAnalysis, Partial, Resolution, SparseWay, TableRows,
    TargetMap, Under, UnitRows,
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
/// them, as the product of the labellings of its factors.
#[derive(Clone, Debug)]
pub struct Group {
    /// The effects whose labels vary in this group.
    pub effects: Vec<Ix>,
    /// Factors over disjoint variables (at least one, none empty): every labelling of the
    /// group's effects (both variables of each effect) is one labelling of each factor,
    /// united. A group joined only for its answer (an action with the deflections that
    /// decide where it ends) holds several factors that no nogood joins.
    pub factors: Vec<Factor>,
}

impl Group {
    /// Number of labellings (saturating).
    pub fn len(&self) -> usize {
        self.factors
            .iter()
            .fold(1usize, |n, f| n.saturating_mul(f.len()))
    }

    /// Whether the labellings are held as more than one flat list (several factors, or a
    /// factor of several cubes or sub-factors): [`piece_by_cut`] then applies.
    fn is_structured(&self) -> bool {
        match self.factors.as_slice() {
            [only] => !matches!(only.cubes.as_slice(), [c] if c.factors.len() < 2),
            _ => true,
        }
    }

    /// Every labelling, in product order (the first factor varies slowest).
    pub fn options(&self, budget: &Budget) -> Result<Vec<Labelling>, Interrupted> {
        let lists: Vec<Vec<Labelling>> = self
            .factors
            .iter()
            .map(|f| f.labellings(budget))
            .collect::<Result<_, _>>()?;
        if let [only] = lists.as_slice() {
            return Ok(only.clone());
        }
        let mut out = Vec::new();
        each_concatenation(&[], &lists, |o| {
            budget.charge("group labellings", 48 + 16 * o.len() as u64)?;
            out.push(o);
            Ok(())
        })?;
        Ok(out)
    }
}

/// Calls `f` with `prefix` followed by one labelling of each of `lists`, for every
/// choice, in product order (the first list varies slowest).
fn each_concatenation<L: List>(
    prefix: &[(usize, bool)],
    lists: &[L],
    mut f: impl FnMut(Labelling) -> Result<(), Interrupted>,
) -> Result<(), Interrupted> {
    let sizes: Vec<usize> = lists.iter().map(List::len).collect();
    for pick in crate::odometer::Product::new(sizes) {
        let mut o: Labelling = prefix.to_vec();
        for (l, &i) in lists.iter().zip(&pick) {
            l.extend_with(i, &mut o);
        }
        f(o)?;
    }
    Ok(())
}

/// A list of labellings, however held.
trait List {
    fn len(&self) -> usize;
    /// Appends the labels of labelling `i` to `out`.
    fn extend_with(&self, i: usize, out: &mut Labelling);
}

impl List for Vec<Labelling> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn extend_with(&self, i: usize, out: &mut Labelling) {
        out.extend_from_slice(&self[i]);
    }
}

/// A list of labellings held as bits: the variables any of them labels, in order of
/// first appearance, and for each labelling two bits a variable (whether it labels it,
/// and the value). A labelling of 165 variables takes 48 bytes, not the 2,640 of a
/// [`Labelling`]: a factor of 35,328 of them takes 1.7 MB.
///
/// Invariants: `has` and `val` hold `words` words a labelling; no labelling labels a
/// variable twice; a labelling comes back ([`Rows::get`]) with its labels in the order of
/// `vars` (the order of a labelling's labels means nothing).
#[derive(Clone, Debug, Default)]
pub struct Rows {
    vars: Vec<usize>,
    at: rustc_hash::FxHashMap<usize, usize>,
    words: usize,
    has: Vec<u64>,
    val: Vec<u64>,
    len: usize,
}

impl Rows {
    /// Number of labellings.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Adds one labelling.
    pub fn push(&mut self, o: &[(usize, bool)]) {
        for &(v, _) in o {
            if !self.at.contains_key(&v) {
                self.at.insert(v, self.vars.len());
                self.vars.push(v);
            }
        }
        let words = self.vars.len().div_ceil(64);
        if words > self.words {
            // More variables than the rows have room for: every row widened.
            let widen = |bits: &[u64]| -> Vec<u64> {
                let mut out = vec![0u64; words * self.len];
                for (r, row) in bits.chunks(self.words.max(1)).enumerate().take(self.len) {
                    out[r * words..r * words + row.len()].copy_from_slice(row);
                }
                out
            };
            self.has = widen(&self.has);
            self.val = widen(&self.val);
            self.words = words;
        }
        let start = self.has.len();
        self.has.resize(start + self.words, 0);
        self.val.resize(start + self.words, 0);
        for &(v, b) in o {
            let k = self.at[&v];
            self.has[start + k / 64] |= 1 << (k % 64);
            if b {
                self.val[start + k / 64] |= 1 << (k % 64);
            }
        }
        self.len += 1;
    }

    /// Labelling `i`.
    pub fn get(&self, i: usize) -> Labelling {
        let mut o = Labelling::new();
        self.extend_with(i, &mut o);
        o
    }

    /// Every labelling, in order.
    pub fn iter(&self) -> impl Iterator<Item = Labelling> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Every variable some labelling labels.
    pub fn vars(&self) -> &[usize] {
        &self.vars
    }

    /// Bytes held (an estimate, for the memory bound).
    pub fn bytes(&self) -> u64 {
        (48 + 24 * self.vars.len() + 16 * self.has.len()) as u64
    }
}

impl List for Rows {
    fn len(&self) -> usize {
        self.len
    }

    fn extend_with(&self, i: usize, out: &mut Labelling) {
        let row = i * self.words;
        for (k, &v) in self.vars.iter().enumerate() {
            let (w, bit) = (row + k / 64, 1u64 << (k % 64));
            if self.has[w] & bit != 0 {
                out.push((v, self.val[w] & bit != 0));
            }
        }
    }
}

impl FromIterator<Labelling> for Rows {
    fn from_iter<I: IntoIterator<Item = Labelling>>(it: I) -> Rows {
        let mut rows = Rows::default();
        for o in it {
            rows.push(&o);
        }
        rows
    }
}

impl<'a> FromIterator<&'a Labelling> for Rows {
    fn from_iter<I: IntoIterator<Item = &'a Labelling>>(it: I) -> Rows {
        let mut rows = Rows::default();
        for o in it {
            rows.push(o);
        }
        rows
    }
}

/// One factor's labellings as a union of products, one per *cube*: the engines split a
/// part's enumeration on its cut variables, and under one choice of what is cut the
/// rest may fall apart again. Cubes hold disjoint sets of labellings.
#[derive(Clone, Debug)]
pub struct Factor {
    /// At least one.
    pub cubes: Vec<Cube>,
}

/// Labellings as a product: `fixed`, with one labelling of each of `factors` (lists over
/// disjoint variables, none empty, none of `fixed`'s variables among them).
#[derive(Clone, Debug)]
pub struct Cube {
    pub fixed: Labelling,
    pub factors: Vec<Rows>,
}

impl Cube {
    /// Number of labellings (saturating).
    pub fn len(&self) -> usize {
        self.factors
            .iter()
            .fold(1usize, |n, f| n.saturating_mul(f.len()))
    }

    /// Calls `f` with every labelling (`fixed` first, then one of each factor's).
    fn for_each(
        &self,
        f: impl FnMut(Labelling) -> Result<(), Interrupted>,
    ) -> Result<(), Interrupted> {
        each_concatenation(&self.fixed, &self.factors, f)
    }
}

impl Factor {
    /// A factor given as one list of labellings (not empty).
    pub fn flat(rows: Rows) -> Factor {
        Factor {
            cubes: vec![Cube {
                fixed: Vec::new(),
                factors: vec![rows],
            }],
        }
    }

    /// Number of labellings (saturating).
    pub fn len(&self) -> usize {
        self.cubes
            .iter()
            .fold(0usize, |n, c| n.saturating_add(c.len()))
    }

    /// Every labelling, cube by cube.
    pub fn labellings(&self, budget: &Budget) -> Result<Vec<Labelling>, Interrupted> {
        if let [c] = self.cubes.as_slice() {
            if let ([], [only]) = (c.fixed.as_slice(), c.factors.as_slice()) {
                return Ok(only.iter().collect());
            }
        }
        let mut out = Vec::new();
        for c in &self.cubes {
            c.for_each(|o| {
                budget.charge("group labellings", 48 + 16 * o.len() as u64)?;
                out.push(o);
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Every label mapped by `f` (one labelling to one labelling).
    pub fn map(&self, f: impl Fn(&Labelling) -> Labelling) -> Factor {
        Factor {
            cubes: self
                .cubes
                .iter()
                .map(|c| Cube {
                    fixed: f(&c.fixed),
                    factors: c
                        .factors
                        .iter()
                        .map(|rows| rows.iter().map(|o| f(&o)).collect())
                        .collect(),
                })
                .collect(),
        }
    }
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
        let by_cut = if g.is_structured() && g.len() as f64 > BY_CUT_FROM {
            piece_by_cut(u, &keep, &g.factors, &extra, &ends, budget)?
        } else {
            None
        };
        let (part, a) = match by_cut {
            Some(done) => done,
            None => {
                let options: Vec<Labelling> = g
                    .options(budget)?
                    .into_iter()
                    .map(|o| o.into_iter().chain(extra.iter().copied()).collect())
                    .collect();
                piece(u, &keep, &options, &ends, budget)?
            }
        };
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

/// A group of several factors with more labellings than this is answered cut by cut
/// ([`piece_by_cut`]). Tests take every group of several factors that way.
#[cfg(not(test))]
const BY_CUT_FROM: f64 = 4096.0;
#[cfg(test)]
const BY_CUT_FROM: f64 = 1.0;

/// One piece answered cut by cut, its resolutions under each optimal cut a product
/// ([`Under::product`]); `None` when that does not apply (nothing is cut, or a final
/// target depends on a label outside the group: the flat [`piece`] says so).
///
/// Why it is exact: every choice of one labelling per factor is an optimal labelling,
/// so the optimal cuts are every choice of one cut share per factor, and under a cut
/// the labellings are the product of each factor's labellings with that share (a cube
/// whose labellings all cut the same is that share's labellings when no other cube has
/// it, its product kept). Those
/// are split further where they are a product ([`Units::of`]: labels they all share are
/// fixed under the cut, and the rest fall into *units* over disjoint labels whose
/// labellings combine freely). A unit holding an action is joined with every unit whose
/// labels decide where the action ends (a deflection on its path whose success varies,
/// the labels of a cycle it runs into), so each joined unit's labellings give
/// resolutions whose final targets are its own actions'. (R, S) and the ways of the
/// piece under the cut are then unions and products of the joined units', since they
/// hold disjoint labels.
fn piece_by_cut(
    u: &Universe,
    keep: &[Ix],
    factors: &[Factor],
    extra: &Labelling,
    ends: &Ends,
    budget: &Budget,
) -> Result<Option<(Part, Analysis)>, Interrupted> {
    let n = u.len();
    // The declared effects a labelling cuts, ascending.
    let cuts = |o: &Labelling| -> Vec<Ix> {
        let mut c: Vec<Ix> = o
            .iter()
            .filter(|&&(v, b)| !b && v >= n && v < 2 * n && v - n < u.n_declared)
            .map(|&(v, _)| v - n)
            .collect();
        c.sort_unstable();
        c
    };
    // Each factor's labellings by their cut share (the declared effects they cut): a
    // cube all of whose labellings cut the same keeps its product, any other is listed
    // labelling by labelling.
    let mut shares: Vec<Vec<(Vec<Ix>, Vec<Source>)>> = Vec::with_capacity(factors.len());
    for f in factors {
        let mut by: BTreeMap<Vec<Ix>, Vec<Source>> = BTreeMap::new();
        for (ci, c) in f.cubes.iter().enumerate() {
            budget.check()?;
            let mut cut = cuts(&c.fixed);
            let mut one = true;
            for rows in &c.factors {
                let first = cuts(&rows.get(0));
                if rows.iter().all(|r| cuts(&r) == first) {
                    cut.extend(first);
                } else {
                    one = false;
                    break;
                }
            }
            if one {
                cut.sort_unstable();
                by.entry(cut).or_default().push(Source::Cube(ci));
            } else {
                c.for_each(|o| {
                    budget.charge("group labellings", 48 + 16 * o.len() as u64)?;
                    by.entry(cuts(&o)).or_default().push(Source::Row(o));
                    Ok(())
                })?;
            }
        }
        shares.push(by.into_iter().collect());
    }
    if shares.iter().all(|s| s.len() == 1 && s[0].0.is_empty()) {
        return Ok(None);
    }
    // Each factor's effects.
    let factor_effects: Vec<Vec<Ix>> = factors
        .iter()
        .map(|f| {
            let mut es = FixedBitSet::with_capacity(n);
            for c in &f.cubes {
                let labelled = c.fixed.iter().map(|&(v, _)| v);
                for v in labelled.chain(c.factors.iter().flat_map(|r| r.vars().iter().copied())) {
                    if v < 2 * n {
                        es.insert(v % n);
                    }
                }
            }
            es.ones().collect()
        })
        .collect();
    // Each factor's units under each of its shares.
    let mut units_of: BTreeMap<(usize, usize), Units> = BTreeMap::new();
    for (k, share) in shares.iter().enumerate() {
        for (x, (_, sources)) in share.iter().enumerate() {
            budget.check()?;
            let units = match sources.as_slice() {
                [Source::Cube(ci)] => Units::of_cube(n, &factors[k].cubes[*ci], budget)?,
                sources => {
                    let mut rows = Rows::default();
                    for src in sources {
                        match src {
                            Source::Cube(ci) => factors[k].cubes[*ci].for_each(|o| {
                                rows.push(&o);
                                Ok(())
                            })?,
                            Source::Row(o) => rows.push(o),
                        }
                    }
                    budget.charge("group labellings", rows.bytes())?;
                    Units::of(n, &rows, budget)?
                }
            };
            units_of.insert((k, x), units);
        }
    }
    clear_rows(&mut shares);
    let plans = |pick: &[usize]| plan(u, ends, &factor_effects, &units_of, pick);
    let sizes: Vec<usize> = shares.iter().map(Vec::len).collect();
    // The piece's effects are `keep` in order, its declared ones first.
    let n_declared = keep
        .iter()
        .filter(|&&i| matches!(u.effects[i].origin, Origin::Declared(_)))
        .count();
    let local: BTreeMap<Ix, usize> = keep.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    // A labelling's bits of R (created effects) and S in the piece's effects.
    let bits = |o: &Labelling, present: &mut FixedBitSet, succeeded: &mut FixedBitSet| {
        for &(v, b) in o {
            if v >= 2 * n || !b {
                continue;
            }
            let Some(&k) = local.get(&(v % n)) else {
                continue;
            };
            if v < n {
                succeeded.insert(k);
            } else if k >= n_declared {
                present.insert(k);
            }
        }
    };
    // Under each optimal cut, each joined unit group's resolutions, their ways sparse
    // and in universe players; and the players the actions end at, which the piece
    // names (its players are known only once every cut is walked).
    let mut reached = FixedBitSet::with_capacity(u.n_players());
    let mut walked: Vec<(Cut, Walked)> = Vec::new();
    for pick in crate::odometer::Product::new(sizes) {
        budget.check()?;
        let Some(plan) = plans(&pick)? else {
            return Ok(None);
        };
        let mut cut = Cut::with_capacity(n_declared);
        for (k, &x) in pick.iter().enumerate() {
            for i in &shares[k][x].0 {
                cut.insert(local[i]);
            }
        }
        if plan.is_large() {
            walked.push((
                cut,
                Walked::Scoped(plan.scoped(extra, &mut reached, budget)?),
            ));
            continue;
        }
        let mut by: Vec<ByResolution> = vec![BTreeMap::new(); plan.joined.len() + 1];
        // Each group's first targets (one list per action of the group).
        let mut first: Vec<Option<Vec<Vec<Player>>>> = vec![None; by.len()];
        plan.walk(extra, budget, |g, o, t| {
            let mut present = FixedBitSet::with_capacity(keep.len());
            let mut succeeded = FixedBitSet::with_capacity(keep.len());
            for k in 0..n_declared {
                present.insert(k);
            }
            bits(o, &mut present, &mut succeeded);
            // `targets` left every action that is not live (cut, or created and absent)
            // empty, wherever its liveness label is.
            t.iter().flatten().for_each(|&q| reached.insert(q as usize));
            // Only what differs from the group's first targets is kept here (by position
            // in `es`, an empty list where this way has none): most of a large group's
            // actions end alike in all its ways.
            let reference = first[g].get_or_insert_with(|| t.clone());
            let way: SparseWay = t
                .into_iter()
                .enumerate()
                .filter(|(j, ps)| *ps != reference[*j])
                .map(|(j, ps)| (j as u32, ps))
                .collect();
            by[g].entry((present, succeeded)).or_default().push(way);
        })?;
        // In the piece's effects: each group's first targets become its base, and a way
        // holds only where it differs from them ([`Under::product`]).
        let mut bases: Vec<SparseWay> = Vec::with_capacity(by.len());
        for (g, rs) in by.iter_mut().enumerate() {
            let es = plan.joined.get(g).map_or(&plan.constant, |j| &j.0);
            let at = |j: u32| local[&es[j as usize]] as u32;
            for w in rs.values_mut().flatten() {
                w.iter_mut().for_each(|e| e.0 = at(e.0));
            }
            bases.push(match first[g].take() {
                Some(reference) => reference
                    .into_iter()
                    .enumerate()
                    .filter(|(_, ps)| !ps.is_empty())
                    .map(|(j, ps)| (at(j as u32), ps))
                    .collect(),
                None => Vec::new(),
            });
        }
        walked.push((cut, Walked::Product(by, bases)));
    }
    let also: Vec<Player> = reached.ones().map(|q| q as Player).collect();
    let (pu, players) = u.piece(keep, &also);
    assert_eq!((pu.len(), pu.n_declared), (keep.len(), n_declared));
    // The ways in the piece's players (numbered in the same order: sorted stays sorted).
    let mut optimal: Vec<(Cut, Under)> = Vec::with_capacity(walked.len());
    let local_players = |ps: &mut Vec<Player>| {
        for q in ps.iter_mut() {
            *q = players.binary_search(q).expect("named in the piece") as Player;
        }
    };
    for (cut, walked) in walked {
        budget.check()?;
        let (by, bases) = match walked {
            Walked::Product(by, bases) => (by, bases),
            Walked::Scoped(sc) => {
                let mut present = FixedBitSet::with_capacity(keep.len());
                let mut succeeded = FixedBitSet::with_capacity(keep.len());
                (0..n_declared).for_each(|k| present.insert(k));
                for o in sc.single.iter().copied().chain([extra]) {
                    bits(o, &mut present, &mut succeeded);
                }
                let mut way: TargetMap = vec![Vec::new(); keep.len()];
                for (i, mut ps) in sc.constant {
                    local_players(&mut ps);
                    way[local[&i]] = ps;
                }
                let units = sc
                    .units
                    .iter()
                    .map(|&(labels, rows)| UnitRows {
                        labels: labels.to_vec(),
                        rows: rows
                            .iter()
                            .map(|o| {
                                let mut p = FixedBitSet::with_capacity(keep.len());
                                let mut s = FixedBitSet::with_capacity(keep.len());
                                bits(o, &mut p, &mut s);
                                (p, s)
                            })
                            .collect(),
                    })
                    .collect();
                let tables = sc
                    .tables
                    .into_iter()
                    .map(|mut t| {
                        t.targets.iter_mut().for_each(local_players);
                        t.effects
                            .iter_mut()
                            .for_each(|i| *i = local[&(*i as usize)] as u32);
                        t
                    })
                    .collect();
                let fixed = Resolution {
                    present,
                    succeeded,
                    ways: vec![way],
                };
                optimal.push((cut, Under::scoped(&pu, fixed, units, tables)));
                continue;
            }
        };
        let factors_here: Vec<(SparseWay, Vec<Partial>)> = by
            .into_iter()
            .zip(bases)
            .map(|(rs, mut base)| {
                base.iter_mut().for_each(|(_, ps)| local_players(ps));
                let rs = rs
                    .into_iter()
                    .map(|((present, succeeded), mut ways)| {
                        for (_, ps) in ways.iter_mut().flatten() {
                            local_players(ps);
                        }
                        Partial {
                            present,
                            succeeded,
                            ways,
                        }
                    })
                    .collect();
                (base, rs)
            })
            .collect();
        optimal.push((cut, Under::product(&pu, factors_here)));
    }
    let cost = cut_cost(&pu, pu.levels(), &optimal[0].0);
    let mut a = Analysis {
        resolutions: Vec::new(),
        cuts: Some(CutAnalysis { cost, optimal }),
    };
    a.canonicalize(&pu);
    Ok(Some((
        Part {
            universe: pu,
            to_whole: keep.to_vec(),
            players,
        },
        a,
    )))
}

/// A joined group of units whose product has more labellings than this makes its cut
/// answered as scoped tables ([`Plan::scoped`], [`Under::scoped`]) instead of walked
/// labelling by labelling. Tests take every joined group of more than two that way.
#[cfg(not(test))]
const SCOPED_FROM: f64 = 4096.0;
#[cfg(test)]
const SCOPED_FROM: f64 = 2.0;

/// One optimal cut's resolutions as units and tables ([`Plan::scoped`]), in universe
/// effects and players.
struct ScopedCut<'a> {
    /// The units of several labellings, sorted by their labels.
    units: Vec<(&'a [usize], &'a [Labelling])>,
    /// The one labelling of every other unit (its labels hold in every labelling).
    single: Vec<&'a Labelling>,
    /// Each table, its units numbers in `units`, its effects and targets the universe's.
    tables: Vec<TableRows>,
    /// The actions whose final targets no unit of several labellings decides, with them.
    constant: Vec<(Ix, Vec<Player>)>,
}

/// A joined group's resolutions under one cut, by (R, S), with their ways.
type ByResolution = BTreeMap<(FixedBitSet, FixedBitSet), Vec<SparseWay>>;

/// One optimal cut of [`piece_by_cut`] walked: each joined group's resolutions with their
/// ways as differences from its base, or the cut as scoped tables.
enum Walked<'a> {
    Product(Vec<ByResolution>, Vec<SparseWay>),
    Scoped(ScopedCut<'a>),
}

/// Drops the labellings listed one by one in `shares` (their units are found): only the
/// cuts are read after.
fn clear_rows(shares: &mut [Vec<(Vec<Ix>, Vec<Source>)>]) {
    for share in shares.iter_mut() {
        for (_, sources) in share.iter_mut() {
            sources.clear();
        }
    }
}

/// What one optimal cut of [`piece_by_cut`] walks: the labels its units fix, and the
/// units joined where one decides where another's actions end, each group with its
/// actions.
struct Plan<'a> {
    s: Vec<Option<bool>>,
    live: Vec<Option<bool>>,
    last: FixedBitSet,
    u: &'a Universe,
    /// Each joined group: its actions (ascending) and its units' labellings.
    joined: Vec<(Vec<Ix>, Vec<&'a [Labelling]>)>,
    /// The live actions whose final targets nothing varying decides (ascending).
    constant: Vec<Ix>,
    /// Every unit of the cut: its labels and its labellings.
    units: Vec<(&'a [usize], &'a [Labelling])>,
    /// Every other action with the units that decide its final targets (ascending).
    scopes: Vec<(Ix, Vec<usize>)>,
}

/// Calls `f` with every choice of one labelling of each of `options` (the last varying
/// fastest), united, with `extra` put in.
fn each_choice(
    options: &[&[Labelling]],
    extra: &[(usize, bool)],
    budget: &Budget,
    mut f: impl FnMut(&Labelling),
) -> Result<(), Interrupted> {
    let sizes: Vec<usize> = options.iter().map(|o| o.len()).collect();
    for (k, pick) in crate::odometer::Product::new(sizes).enumerate() {
        if k % 4096 == 0 {
            budget.check()?;
        }
        let mut o: Labelling = options
            .iter()
            .zip(&pick)
            .flat_map(|(o, &x)| o[x].iter().copied())
            .collect();
        o.extend(extra.iter().copied());
        f(&o);
    }
    Ok(())
}

impl<'a> Plan<'a> {
    /// Calls `f` with every labelling of every joined group (the group's number and the
    /// labelling, `extra` put into the first group's) and the final targets (universe
    /// players) of the group's actions under it, in the order of its actions; then once
    /// more, as group number `joined.len()`, with no labels and the constant actions'
    /// targets.
    fn walk(
        &self,
        extra: &Labelling,
        budget: &Budget,
        mut f: impl FnMut(usize, &Labelling, Vec<Vec<Player>>),
    ) -> Result<(), Interrupted> {
        let ends = self.ends();
        let mut scratch = ends.scratch();
        for (g, (es, options)) in self.joined.iter().enumerate() {
            let extra: &[(usize, bool)] = if g == 0 { extra } else { &[] };
            each_choice(options, extra, budget, |o| {
                let t = ends.targets_in(es, o, &mut scratch);
                f(g, o, t);
            })?;
        }
        let none = Labelling::new();
        let t = ends.targets_in(&self.constant, &none, &mut scratch);
        f(self.joined.len(), &none, t);
        Ok(())
    }

    /// What decides final targets under this cut outside the labels walked.
    fn ends(&self) -> Ends<'_> {
        Ends {
            u: self.u,
            fixed_s: &self.s,
            fixed_live: &self.live,
            fixed_last: &self.last,
        }
    }

    /// Whether some joined group has more than [`SCOPED_FROM`] labellings.
    fn is_large(&self) -> bool {
        self.joined
            .iter()
            .any(|(_, options)| options.iter().fold(1f64, |n, o| n * o.len() as f64) > SCOPED_FROM)
    }

    /// The cut's resolutions as units and tables: each action's final targets under every
    /// choice of one labelling per unit of its scope (the units that decide them), with
    /// `extra` put in; the players they end at marked in `reached`. Exact for the reason
    /// [`Plan::walk`] is: an action's final targets read no label outside its scope.
    fn scoped(
        &self,
        extra: &Labelling,
        reached: &mut FixedBitSet,
        budget: &Budget,
    ) -> Result<ScopedCut<'a>, Interrupted> {
        let ends = self.ends();
        let mut scratch = ends.scratch();
        let mut multi: Vec<usize> = (0..self.units.len())
            .filter(|&j| self.units[j].1.len() > 1)
            .collect();
        multi.sort_by_key(|&j| self.units[j].0);
        let number: BTreeMap<usize, usize> =
            multi.iter().enumerate().map(|(k, &j)| (j, k)).collect();
        let single: Vec<&Labelling> = self
            .units
            .iter()
            .filter(|(_, o)| o.len() == 1)
            .map(|(_, o)| &o[0])
            .collect();
        let mut by_scope: BTreeMap<Vec<usize>, Vec<Ix>> = BTreeMap::new();
        let mut constant = self.constant.clone();
        for (i, scope) in &self.scopes {
            let sc: Vec<usize> = scope
                .iter()
                .filter_map(|j| number.get(j).copied())
                .collect();
            if sc.is_empty() {
                constant.push(*i);
            } else {
                by_scope.entry(sc).or_default().push(*i);
            }
        }
        constant.sort_unstable();
        let mut mark = |ts: &[Vec<Player>]| {
            ts.iter()
                .flatten()
                .for_each(|&q| reached.insert(q as usize));
        };
        let fixed = ends.targets_in(&constant, extra, &mut scratch);
        mark(&fixed);
        let units: Vec<(&[usize], &[Labelling])> = multi.iter().map(|&j| self.units[j]).collect();
        let mut tables = Vec::with_capacity(by_scope.len());
        for (sc, mut actions) in by_scope {
            actions.sort_unstable();
            let cells = sc
                .iter()
                .fold(actions.len() as u64, |n, &k| n * units[k].1.len() as u64);
            budget.charge("scoped final targets", 32 * cells)?;
            let mut targets = Vec::with_capacity(cells as usize);
            let options: Vec<&[Labelling]> = sc.iter().map(|&k| units[k].1).collect();
            each_choice(&options, extra, budget, |o| {
                let t = ends.targets_in(&actions, o, &mut scratch);
                mark(&t);
                targets.extend(t);
            })?;
            tables.push(TableRows {
                units: sc,
                effects: actions.iter().map(|&i| i as u32).collect(),
                targets,
            });
        }
        Ok(ScopedCut {
            units,
            single,
            tables,
            constant: constant.into_iter().zip(fixed).collect(),
        })
    }
}

/// The [`Plan`] of one optimal cut (`pick`: one share per factor); `None` when a final
/// target there depends on a deflection outside the group.
fn plan<'a>(
    u: &'a Universe,
    ends: &Ends,
    factor_effects: &[Vec<Ix>],
    units_of: &'a BTreeMap<(usize, usize), Units>,
    pick: &[usize],
) -> Result<Option<Plan<'a>>, Interrupted> {
    let n = u.len();
    let d = &*u.deflections;
    let here: Vec<&Units> = pick
        .iter()
        .enumerate()
        .map(|(k, &x)| &units_of[&(k, x)])
        .collect();
    let mut s = ends.fixed_s.to_vec();
    let mut live = ends.fixed_live.to_vec();
    let mut last = ends.fixed_last.clone();
    // Every unit of the cut, numbered; which unit holds each varying label.
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    let mut options: Vec<&'a [Labelling]> = Vec::new();
    let mut unit_labels: Vec<&'a [usize]> = Vec::new();
    let mut scopes: Vec<(Ix, Vec<usize>)> = Vec::new();
    let mut first_of: Vec<usize> = Vec::with_capacity(here.len());
    for us in &here {
        for &(v, b) in &us.fixed {
            match v {
                v if v < n => s[v] = Some(b),
                v if v < 2 * n => live[v - n] = Some(b),
                v => last.set(v - 2 * n, b),
            }
        }
        first_of.push(options.len());
        for (j, o) in us.units.iter().enumerate() {
            for &v in &us.labels[j] {
                owner.insert(v, options.len());
            }
            options.push(o);
            unit_labels.push(&us.labels[j]);
        }
    }
    // Each action's unit (its liveness label's, else its success label's, else its
    // factor's first), joined with the units that decide where it ends.
    let mut uf = petgraph::unionfind::UnionFind::<usize>::new(options.len());
    let mut home: Vec<(Ix, usize)> = Vec::new();
    let mut constant: Vec<Ix> = Vec::new();
    // An effect may have labels in two factors (one fixed, one varying): homed once.
    let mut homed = FixedBitSet::with_capacity(n);
    for (k, effects) in factor_effects.iter().enumerate() {
        for &i in effects {
            let e = &u.effects[i];
            if e.action().is_none() || live[i] == Some(false) || homed.put(i) {
                continue;
            }
            // The units deciding where the action's slots end.
            let mut deciders: Vec<usize> = Vec::new();
            for &t in &e.targets {
                let mut p = t;
                for _ in 0..=u.n_players() {
                    let Some(g) = u.deflector[p as usize] else {
                        break;
                    };
                    if d.next(p) == Some(p) {
                        break;
                    }
                    if let Some(c) = d.cycle_of(p) {
                        for &q in &d.cycles()[c] {
                            let g = u.deflector[q as usize].expect("a cycle member deflects");
                            if let Some(&j) = owner.get(&g) {
                                deciders.push(j);
                            } else if s[g].is_none() {
                                return Ok(None);
                            }
                            if let Some(&j) = owner.get(&(2 * n + q as usize)) {
                                deciders.push(j);
                            }
                        }
                        break;
                    }
                    match (s[g], owner.get(&g)) {
                        (Some(false), _) => break,
                        (Some(true), _) => {}
                        (None, Some(&j)) => deciders.push(j),
                        (None, None) => return Ok(None),
                    }
                    match d.next(p) {
                        Some(q) => p = q,
                        None => break,
                    }
                }
            }
            // A live action nothing varying decides ends where it ends in every
            // labelling of the cut: its targets are walked once.
            if deciders.is_empty() && live[i] == Some(true) {
                constant.push(i);
                continue;
            }
            // The action's own unit (its liveness label's, else its success label's);
            // an action whose labels are fixed goes with what decides its end, or with
            // its factor's first unit when nothing varying does.
            let h = owner
                .get(&(n + i))
                .or_else(|| owner.get(&i))
                .or(deciders.first())
                .copied()
                .unwrap_or(first_of[k]);
            for &j in &deciders {
                uf.union(h, j);
            }
            let mut scope = deciders;
            scope.push(h);
            scope.sort_unstable();
            scope.dedup();
            scopes.push((i, scope));
            home.push((i, h));
        }
    }
    let mut joined: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..options.len() {
        joined.entry(uf.find(k)).or_default().push(k);
    }
    let mut actions: BTreeMap<usize, Vec<Ix>> = BTreeMap::new();
    for &(i, h) in &home {
        actions.entry(uf.find(h)).or_default().push(i);
    }
    let joined = joined
        .into_iter()
        .map(|(root, ks)| {
            let mut es = actions.remove(&root).unwrap_or_default();
            es.sort_unstable();
            (es, ks.iter().map(|&k| options[k]).collect())
        })
        .collect();
    constant.sort_unstable();
    scopes.sort_unstable();
    Ok(Some(Plan {
        s,
        live,
        last,
        u,
        joined,
        constant,
        units: unit_labels.into_iter().zip(options).collect(),
        scopes,
    }))
}

/// Where a factor's labellings with one cut share come from: a whole cube, or one
/// labelling of a cube whose labellings cut differently.
enum Source {
    Cube(usize),
    Row(Labelling),
}

/// Some labellings (of one factor under one cut share) as a product: the labels they
/// all share, and *units* over disjoint labels whose labellings combine freely (every
/// choice of one labelling per unit, with the shared labels, is one of them, and each
/// is such a choice). A `last` label missing from a labelling is false there.
struct Units {
    /// Labels every labelling has (success and liveness always; `last` labels too).
    fixed: Labelling,
    /// Each unit's labels (ascending), and its labellings (distinct; the first unit's
    /// carry the shared success and liveness labels as well).
    labels: Vec<Vec<usize>>,
    units: Vec<Vec<Labelling>>,
}

impl Units {
    /// The labellings of `cube` split: each of its factors by [`Units::of`], its fixed
    /// labels shared (its success and liveness labels carried by the first unit).
    fn of_cube(n: usize, cube: &Cube, budget: &Budget) -> Result<Units, Interrupted> {
        let mut all = Units {
            fixed: Vec::new(),
            labels: Vec::new(),
            units: Vec::new(),
        };
        for rows in &cube.factors {
            let us = Units::of(n, rows, budget)?;
            all.fixed.extend(us.fixed);
            all.labels.extend(us.labels);
            all.units.extend(us.units);
        }
        all.fixed.extend(cube.fixed.iter().copied());
        let carried: Labelling = cube
            .fixed
            .iter()
            .copied()
            .filter(|&(v, _)| v < 2 * n)
            .collect();
        match all.units.first_mut() {
            None => {
                all.units.push(vec![carried]);
                all.labels.push(Vec::new());
            }
            Some(first) => first
                .iter_mut()
                .for_each(|o| o.extend(carried.iter().copied())),
        }
        Ok(all)
    }

    /// The finest split of `rows` this finds: a unit grows from one varying label by
    /// every label whose values with the unit's are not every combination of both,
    /// until the rows are the product of the unit's values and the others' (a unit
    /// that stops growing before that takes every label left: a product still, only
    /// coarser).
    fn of(n: usize, rows: &Rows, budget: &Budget) -> Result<Units, Interrupted> {
        let mut count: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
        for o in rows.iter() {
            for &(v, b) in o.iter() {
                let e = count.entry(v).or_insert((0, 0));
                if b {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
            }
        }
        let mut fixed = Labelling::new();
        let mut vary: Vec<usize> = Vec::new();
        for (&v, &(yes, no)) in &count {
            if yes == rows.len() {
                fixed.push((v, true));
            } else if no == rows.len() || (v >= 2 * n && yes == 0) {
                fixed.push((v, false));
            } else {
                vary.push(v);
            }
        }
        let at: BTreeMap<usize, usize> = vary.iter().enumerate().map(|(k, &v)| (v, k)).collect();
        let words = vary.len().div_ceil(64).max(1);
        let mut table: Vec<Vec<u64>> = rows
            .iter()
            .map(|o| {
                let mut r = vec![0u64; words];
                for &(v, b) in o.iter() {
                    if let (Some(&k), true) = (at.get(&v), b) {
                        r[k / 64] |= 1 << (k % 64);
                    }
                }
                r
            })
            .collect();
        table.sort_unstable();
        table.dedup();
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        let mut units: Vec<Vec<Labelling>> = Vec::new();
        let mut left: Vec<usize> = (0..vary.len()).collect();
        while !left.is_empty() {
            budget.check()?;
            let mut unit = vec![left[0]];
            let mut member = vec![false; vary.len()];
            member[left[0]] = true;
            loop {
                let rest: Vec<usize> = left.iter().copied().filter(|&k| !member[k]).collect();
                if rest.is_empty() {
                    break;
                }
                let (class, here) = classes(&table, &member, words);
                let mut outside = member.clone();
                outside.iter_mut().for_each(|m| *m = !*m);
                let (_, there) = classes(&table, &outside, words);
                if here * there == table.len() {
                    break;
                }
                // A label y joins unless every class of the unit's values meets both of
                // y's values (y takes both in the table: it varies, and the table is the
                // projection of rows where it does): bit y of `free` stays set exactly then.
                let mut one = vec![0u64; here * words];
                let mut zero = vec![0u64; here * words];
                for (r, &c) in table.iter().zip(&class) {
                    let at = c * words;
                    for w in 0..words {
                        one[at + w] |= r[w];
                        zero[at + w] |= !r[w];
                    }
                }
                let mut free = vec![!0u64; words];
                for c in 0..here {
                    for w in 0..words {
                        free[w] &= one[c * words + w] & zero[c * words + w];
                    }
                }
                let grow: Vec<usize> = rest
                    .iter()
                    .copied()
                    .filter(|&y| free[y / 64] & (1 << (y % 64)) == 0)
                    .collect();
                if grow.is_empty() {
                    unit = left.clone();
                    unit.iter().for_each(|&k| member[k] = true);
                    break;
                }
                for &y in &grow {
                    member[y] = true;
                }
                unit.extend(grow);
            }
            unit.sort_unstable();
            left.retain(|&k| !member[k]);
            // The rows of what is left: the product's other side.
            let mut next: Vec<Vec<u64>> = table
                .iter()
                .map(|r| {
                    let mut key = r.clone();
                    for &k in &unit {
                        key[k / 64] &= !(1 << (k % 64));
                    }
                    key
                })
                .collect();
            next.sort_unstable();
            next.dedup();
            let mine: Vec<Vec<u64>> = {
                let mut m: Vec<Vec<u64>> = table
                    .iter()
                    .map(|r| {
                        let mut key = vec![0u64; words];
                        for &k in &unit {
                            key[k / 64] |= r[k / 64] & (1 << (k % 64));
                        }
                        key
                    })
                    .collect();
                m.sort_unstable();
                m.dedup();
                m
            };
            // In the order of their labels' values (labels ascending): the same order
            // whatever other labels the rows held, so that two engines that factor the
            // same labellings differently list each unit alike.
            let mut options: Vec<Labelling> = mine
                .iter()
                .map(|key| {
                    unit.iter()
                        .map(|&k| (vary[k], key[k / 64] & (1 << (k % 64)) != 0))
                        .collect()
                })
                .collect();
            options.sort_unstable();
            units.push(options);
            blocks.push(unit.iter().map(|&k| vary[k]).collect());
            table = next;
        }
        // The shared success and liveness labels ride with the first unit (a factor
        // with no varying label is one unit of one labelling).
        let carried: Labelling = fixed.iter().copied().filter(|&(v, _)| v < 2 * n).collect();
        if units.is_empty() {
            units.push(vec![carried]);
            blocks.push(Vec::new());
        } else {
            for o in units[0].iter_mut() {
                o.extend(carried.iter().copied());
            }
        }
        Ok(Units {
            fixed,
            labels: blocks,
            units,
        })
    }
}

/// Each row's class by its values on the labels `member` marks (rows alike there share a
/// class; classes numbered from 0 in order of first appearance), and how many classes.
fn classes(table: &[Vec<u64>], member: &[bool], words: usize) -> (Vec<usize>, usize) {
    let mut mask = vec![0u64; words];
    for (k, _) in member.iter().enumerate().filter(|(_, &m)| m) {
        mask[k / 64] |= 1 << (k % 64);
    }
    let mut ids: rustc_hash::FxHashMap<Vec<u64>, usize> = Default::default();
    let class = table
        .iter()
        .map(|r| {
            let key: Vec<u64> = r.iter().zip(&mask).map(|(x, m)| x & m).collect();
            let next = ids.len();
            *ids.entry(key).or_insert(next)
        })
        .collect();
    (class, ids.len())
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
    /// The fixed labels as [`Ends::targets_in`] reads them, for many calls.
    fn scratch(&self) -> Scratch {
        Scratch {
            s: self.fixed_s.to_vec(),
            live: self.fixed_live.to_vec(),
            last: self.fixed_last.clone(),
            touched: Vec::new(),
            memo: Default::default(),
        }
    }

    /// The final targets of each effect of `keep` under the fixed labels with `labels`
    /// put in: empty for passives and for effects not live (cut, or created and absent),
    /// whose final targets no answer shows. `scratch` (from [`Ends::scratch`]) holds the
    /// fixed labels; `labels` are written over them and undone before this returns, so
    /// one scratch serves every call.
    fn targets_in(
        &self,
        keep: &[Ix],
        labels: &Labelling,
        scratch: &mut Scratch,
    ) -> Vec<Vec<Player>> {
        let u = self.u;
        let n = u.len();
        let d = &*u.deflections;
        for &(v, b) in labels {
            if v < n {
                scratch.s[v] = Some(b);
            } else if v < 2 * n {
                scratch.live[v - n] = Some(b);
            } else {
                scratch.last.set(v - 2 * n, b);
            }
            scratch.touched.push(v);
        }
        scratch.memo.clear();
        let Scratch {
            s,
            live,
            last,
            memo,
            ..
        } = scratch;
        let on = |p: Player| {
            u.deflector[p as usize].is_some_and(|g| {
                s[g].unwrap_or_else(|| {
                    panic!(
                        "bug in gordian: a final target depends on a deflection outside its piece"
                    )
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
        let out = keep
            .iter()
            .map(|&i| {
                let e = &u.effects[i];
                if e.action().is_none() || live[i] != Some(true) {
                    return Vec::new();
                }
                e.targets
                    .iter()
                    .map(|&t| d.end_of_memo(t, |p| d.stops_at(p, on, is_last), memo))
                    .collect()
            })
            .collect();
        for v in scratch.touched.drain(..) {
            if v < n {
                scratch.s[v] = self.fixed_s[v];
            } else if v < 2 * n {
                scratch.live[v - n] = self.fixed_live[v - n];
            } else {
                scratch
                    .last
                    .set(v - 2 * n, self.fixed_last.contains(v - 2 * n));
            }
        }
        out
    }
}

/// [`Ends::targets_in`]'s working copy of the fixed labels, and the labels it wrote over
/// them.
struct Scratch {
    s: Vec<Option<bool>>,
    live: Vec<Option<bool>>,
    last: FixedBitSet,
    touched: Vec<usize>,
    memo: std::collections::HashMap<Player, Player>,
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
    let mut scratch = ends.scratch();
    for o in options {
        budget.check()?;
        let t = ends.targets_in(keep, o, &mut scratch);
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
        let optimal: Vec<(Cut, Under)> = by_cut
            .into_iter()
            .map(|(ones, rs)| {
                let mut c = Cut::with_capacity(pu.n_declared);
                ones.into_iter().for_each(|k| c.insert(k));
                (c, rs.into())
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Every labelling `units` stands for: its fixed labels with one labelling of each
    /// unit, as sorted sets.
    fn expand(units: &Units) -> BTreeSet<Vec<(usize, bool)>> {
        let mut all: Vec<Labelling> = vec![units.fixed.clone()];
        for options in &units.units {
            all = times(&all, options);
        }
        all.into_iter()
            .map(|mut x| {
                x.sort_unstable();
                x.dedup();
                x
            })
            .collect()
    }

    /// Every row of `rows` joined with every one of `options`.
    fn times(rows: &[Labelling], options: &[Labelling]) -> Vec<Labelling> {
        rows.iter()
            .flat_map(|r| {
                options.iter().map(move |o| {
                    let mut x = r.clone();
                    x.extend(o.iter().copied());
                    x
                })
            })
            .collect()
    }

    /// Rows over `labels` from bit patterns (label k of the row is bit k of its pattern).
    fn rows_of(labels: &[usize], patterns: &[u32]) -> Vec<Labelling> {
        patterns
            .iter()
            .map(|p| {
                labels
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (v, p >> k & 1 == 1))
                    .collect()
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Rows give back every labelling pushed, in order, each with the same labels
        /// (its labels in the order the variables first appeared): over more than 64
        /// variables, and with labels some labellings lack (as a cycle's `last` label,
        /// present only when true).
        #[test]
        fn rows_give_back_what_was_pushed(
            labellings in prop::collection::vec(
                prop::collection::btree_map(0usize..150, any::<bool>(), 0..90),
                0..12,
            ),
        ) {
            let labellings: Vec<Labelling> = labellings
                .into_iter()
                .map(|m| m.into_iter().rev().collect())
                .collect();
            let rows: Rows = labellings.iter().collect();
            prop_assert_eq!(rows.len(), labellings.len());
            let sorted = |mut o: Labelling| {
                o.sort_unstable();
                o
            };
            for (k, o) in labellings.iter().enumerate() {
                prop_assert_eq!(sorted(rows.get(k)), sorted(o.clone()));
            }
            let firsts: Vec<usize> = {
                let mut seen = BTreeSet::new();
                labellings.iter().flatten().map(|&(v, _)| v).filter(|&v| seen.insert(v)).collect()
            };
            prop_assert_eq!(rows.vars(), firsts.as_slice());
            let again: Vec<Labelling> = rows.iter().collect();
            prop_assert_eq!(again.len(), labellings.len());
            for (k, o) in again.into_iter().enumerate() {
                let order: Vec<usize> = o.iter().map(|&(v, _)| v).collect();
                let mut want: Vec<usize> = labellings[k].iter().map(|&(v, _)| v).collect();
                want.sort_by_key(|v| firsts.iter().position(|f| f == v));
                prop_assert_eq!(order, want);
            }
        }

        /// Whatever the rows, the units and fixed labels stand for exactly those rows.
        #[test]
        fn units_stand_for_exactly_their_rows(
            width in 1usize..9,
            patterns in prop::collection::vec(0u32..256, 1..40),
        ) {
            let n = 8;
            let labels: Vec<usize> = (0..width).map(|k| if k % 2 == 0 { k / 2 } else { n + k / 2 }).collect();
            let rows = rows_of(&labels, &patterns);
            let units = Units::of(n, &rows.iter().collect::<Rows>(), &Budget::new()).unwrap();
            let want: BTreeSet<Vec<(usize, bool)>> = rows
                .into_iter()
                .map(|mut r| {
                    r.sort_unstable();
                    r
                })
                .collect();
            prop_assert_eq!(expand(&units), want);
        }

        /// Rows built as a product of blocks over disjoint labels, one or two labels each:
        /// the units stand for exactly them, and no unit mixes two blocks. (Over three or
        /// more labels a block can defeat the pairwise test, as a parity does: its labels
        /// are pairwise free but not free together, and the unit then takes every label
        /// left, coarser but still exact.)
        #[test]
        fn a_product_of_blocks_is_split_no_coarser_than_its_blocks(
            blocks in prop::collection::vec(
                (1usize..3, prop::collection::vec(0u32..4, 1..5)),
                1..5,
            ),
        ) {
            let n = 16;
            let mut next = 0;
            let mut rows: Vec<Labelling> = vec![Vec::new()];
            let mut home: BTreeMap<usize, usize> = BTreeMap::new();
            for (b, (width, patterns)) in blocks.iter().enumerate() {
                let labels: Vec<usize> = (next..next + width).collect();
                next += width;
                labels.iter().for_each(|&v| {
                    home.insert(v, b);
                });
                rows = times(&rows, &rows_of(&labels, patterns));
            }
            let units = Units::of(n, &rows.iter().collect::<Rows>(), &Budget::new()).unwrap();
            let want: BTreeSet<Vec<(usize, bool)>> = rows
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.sort_unstable();
                    r.dedup();
                    r
                })
                .collect();
            prop_assert_eq!(expand(&units), want);
            for labels in &units.labels {
                let homes: BTreeSet<usize> = labels.iter().map(|v| home[v]).collect();
                prop_assert!(homes.len() <= 1, "a unit over labels {:?} mixes blocks {:?}", labels, homes);
            }
        }
    }
}
