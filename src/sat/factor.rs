//! Projected enumeration as a union of products: the projected models under each cube of
//! some "split" literals, factorised by the formula's independent parts.
//!
//! Owns: [`enumerate_factored`], [`Product`] and [`Factor`].
//!
//! Why it is exact: fix a cube of the split literals and let ρ be the values unit
//! propagation derives from it (every model extending the cube agrees with ρ). The clauses
//! left open under ρ, with their false literals dropped, fall into groups over pairwise
//! disjoint unassigned variables (the connected components of "occur in one open clause").
//! A conjunction of formulas over disjoint variables has as models exactly the combinations
//! of each one's models, so the projected models under the cube are the product of each
//! group's projected models, times the values ρ fixes, times both values of a projection
//! variable no open clause mentions. A large group is split again the same way after its
//! unprojected variables are eliminated ([`split_group`]: the same projected models, and
//! variables that only chain projected ones together no longer join them). Each group is
//! enumerated on its own projection literals
//! by a solver holding only the group's open clauses, their false literals dropped and the
//! variables it does not project eliminated where that does not grow them
//! ([`crate::eliminate`]: the same projected models over fewer variables), by
//! [`enumerate_in_cubes`] (the cube has a model, so every other group has one too). A state
//! of `n` independent parts with `m` values each costs `n · m` models instead of `m^n`, and
//! each model costs a search over the group's variables, not the whole formula's. A group
//! that another cube left too (the same open clauses over the same variables, the same
//! projection positions) is the same formula with the same projected models: it is
//! enumerated once. Cubes are taken in batches ([`BATCH`]): the groups new in a batch are
//! enumerated in parallel (rayon), each by its solver, numbered in the order they are
//! first met (the order a one-at-a-time walk would give), and the batch's products are
//! then reported in cube order. A group's solver has no in-search cancellation hook
//! when it is small ([`Solver::for_short_solves`]): its solves take microseconds, and the
//! flag is polled before each.
//!
//! Invariants: the union over the products reported is exactly the set of projected models
//! (under the caller's assumptions); products of different cubes may overlap (the caller
//! merges), one product never repeats a row; blocking clauses are retired as in
//! [`enumerate_in_cubes`], so later queries see the same models.

use std::ops::ControlFlow;

use super::enumerate::{enumerate_in_cubes, EnumerationEnd};
use super::solver::{Lit, Solver};
use crate::eliminate::eliminate;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// A factor's rows, shared by the factors of one group.
pub type Rows = Arc<[Vec<bool>]>;

/// Some projection positions and every combination of values they take together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factor {
    /// Positions in the projection, ascending.
    pub positions: Vec<usize>,
    /// Each projected model of this part: one value per position (shared by every
    /// factor of the same group).
    pub rows: Rows,
    /// The group the rows were enumerated for, numbered in the order groups are first
    /// met in one enumeration: two factors with the same group have the same positions
    /// and rows. `None`: not numbered, the rows its own (here: positions no open clause
    /// mentions, both values; factors built elsewhere, such as the AR split's labellings).
    pub group: Option<usize>,
}

/// The projected models under one cube of the split literals: the fixed positions times
/// the product of the factors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Product {
    /// One entry per projection position: its value if every model under the cube fixes it
    /// by propagation (then no factor holds the position), else `None`.
    pub fixed: Vec<Option<bool>>,
    /// The independent parts, over disjoint positions.
    pub factors: Vec<Factor>,
}

impl Product {
    /// How many projected models the product holds.
    pub fn len(&self) -> u128 {
        self.factors
            .iter()
            .map(|f| f.rows.len() as u128)
            .fold(1u128, u128::saturating_mul)
    }

    /// Whether the product holds no model (never, as reported: cubes come from models).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `each` with every projected model of the product (one value per position).
    #[cfg(test)]
    pub fn for_each(&self, mut each: impl FnMut(&[bool]) -> ControlFlow<()>) -> ControlFlow<()> {
        let mut values: Vec<bool> = self.fixed.iter().map(|v| v.unwrap_or(false)).collect();
        let sizes = self.factors.iter().map(|f| f.rows.len()).collect();
        for pick in crate::odometer::Product::new(sizes) {
            for (f, &i) in self.factors.iter().zip(&pick) {
                for (&p, &v) in f.positions.iter().zip(&f.rows[i]) {
                    values[p] = v;
                }
            }
            each(&values)?;
        }
        ControlFlow::Continue(())
    }
}

/// The clauses as (variable, positive) lists, with occurrence lists: built once, read for
/// every cube.
struct Clauses {
    lits: Vec<Vec<(usize, bool)>>,
    occurs: Vec<Vec<u32>>,
}

impl Clauses {
    fn of(solver: &Solver) -> Clauses {
        let n = solver.num_vars();
        let lits: Vec<Vec<(usize, bool)>> = solver
            .clauses()
            .map(|c| c.iter().map(|l| (l.index(), l.is_positive())).collect())
            .collect();
        let mut occurs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (c, ls) in lits.iter().enumerate() {
            for &(v, _) in ls {
                if v >= occurs.len() {
                    occurs.resize(v + 1, Vec::new());
                }
                occurs[v].push(c as u32);
            }
        }
        Clauses { lits, occurs }
    }

    /// Unit propagation from `val` (units of the clauses included) to a fixpoint. `false`
    /// on a conflict.
    fn propagate(&self, val: &mut [Option<bool>]) -> bool {
        let mut queue: Vec<usize> = (0..val.len()).filter(|&v| val[v].is_some()).collect();
        for c in &self.lits {
            if let [(v, pos)] = c[..] {
                match val[v] {
                    Some(x) if x != pos => return false,
                    Some(_) => {}
                    None => {
                        val[v] = Some(pos);
                        queue.push(v);
                    }
                }
            }
        }
        while let Some(v) = queue.pop() {
            for &c in &self.occurs[v] {
                let mut open = None;
                let mut n_open = 0;
                let mut sat = false;
                for &(x, pos) in &self.lits[c as usize] {
                    match val[x] {
                        Some(value) if value == pos => {
                            sat = true;
                            break;
                        }
                        Some(_) => {}
                        None => {
                            n_open += 1;
                            open = Some((x, pos));
                        }
                    }
                }
                if sat {
                    continue;
                }
                match (n_open, open) {
                    (0, _) => return false,
                    (1, Some((x, pos))) => {
                        val[x] = Some(pos);
                        queue.push(x);
                    }
                    _ => {}
                }
            }
        }
        true
    }

    /// The component (a representative variable) of every unassigned variable that occurs
    /// in a clause still open under `val`; `usize::MAX` for the others.
    fn components(&self, val: &[Option<bool>]) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..val.len()).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let mut touched = vec![false; val.len()];
        for c in &self.lits {
            if c.iter().any(|&(x, pos)| val[x] == Some(pos)) {
                continue;
            }
            let mut first = None;
            for &(x, _) in c {
                if val[x].is_some() {
                    continue;
                }
                touched[x] = true;
                match first {
                    None => first = Some(x),
                    Some(f) => {
                        let (a, b) = (find(&mut parent, f), find(&mut parent, x));
                        if a != b {
                            parent[a] = b;
                        }
                    }
                }
            }
        }
        (0..val.len())
            .map(|x| {
                if touched[x] {
                    find(&mut parent, x)
                } else {
                    usize::MAX
                }
            })
            .collect()
    }
}

/// One group's open clauses under a cube, in a solver of their own: the group's variables
/// renumbered from 1, the cube's false literals dropped.
struct Group {
    solver: Solver,
    /// The group's solver variable of each variable of the whole formula (0: not in it).
    var_of: rustc_hash::FxHashMap<usize, Lit>,
}

impl Group {
    /// `lit` of the whole formula in the group's solver (a variable of the group).
    fn lit(&mut self, lit: Lit) -> Lit {
        let solver = &mut self.solver;
        let v = *self
            .var_of
            .entry(lit.index())
            .or_insert_with(|| solver.new_lit());
        if lit.is_positive() {
            v
        } else {
            !v
        }
    }
}

impl Clauses {
    /// The open clauses under `val` of each group `reps` names (their representatives in
    /// `comp`), their false literals dropped: each clause's literals as `2 · variable +
    /// positive`, every clause ended by `u32::MAX`. Equal lists are equal formulas over
    /// the same variables.
    fn groups(
        &self,
        val: &[Option<bool>],
        comp: &[usize],
        reps: impl Iterator<Item = usize>,
    ) -> Vec<Vec<u32>> {
        let mut index: rustc_hash::FxHashMap<usize, usize> = Default::default();
        let mut out: Vec<Vec<u32>> = Vec::new();
        for (i, rep) in reps.enumerate() {
            index.insert(rep, i);
            out.push(Vec::new());
        }
        for c in &self.lits {
            if c.iter().any(|&(x, pos)| val[x] == Some(pos)) {
                continue;
            }
            let Some(&(first, _)) = c.iter().find(|&&(x, _)| val[x].is_none()) else {
                continue;
            };
            let Some(&g) = index.get(&comp[first]) else {
                continue;
            };
            let group = &mut out[g];
            for &(x, pos) in c {
                if val[x].is_none() {
                    group.push(2 * x as u32 + u32::from(pos));
                }
            }
            group.push(u32::MAX);
        }
        out
    }
}

impl Group {
    /// A solver holding the clauses of `open` (as [`Clauses::groups`] lists them) with the
    /// variables not in `keep` eliminated where that does not grow them
    /// ([`eliminate`]): the same models projected on `keep`, over fewer variables, so each
    /// model costs the search less.
    fn of(open: &[u32], keep: &FxHashSet<u32>) -> Group {
        let clauses: Vec<Vec<u32>> = open
            .split(|&c| c == u32::MAX)
            .filter(|c| !c.is_empty())
            .map(<[u32]>::to_vec)
            .collect();
        // `groups` ends every clause with the separator, so an empty piece is only the
        // one after the last; an empty clause cannot occur (a cube's open clauses have an
        // unassigned literal each).
        let clauses = eliminate(clauses, keep);
        let vars: FxHashSet<u32> = clauses.iter().flatten().map(|&code| code / 2).collect();
        let mut group = Group {
            solver: if vars.len() <= SHORT_SOLVES_UP_TO {
                Solver::for_short_solves()
            } else {
                Solver::new()
            },
            var_of: Default::default(),
        };
        // Enumerated and dropped: its clauses are never read back.
        group.solver.hide_retired();
        for clause in clauses {
            let lits: Vec<Lit> = clause
                .iter()
                .map(|&code| {
                    let l = group.lit(Lit::from_index((code / 2) as usize, true));
                    if code % 2 == 1 {
                        l
                    } else {
                        !l
                    }
                })
                .collect();
            group.solver.add_clause(&lits);
        }
        group
    }
}

/// The most variables a group may have for its solver to go without the in-search
/// cancellation hook ([`Solver::for_short_solves`]): a group's solves are then short
/// (FF8's groups have about 100 variables and take tens of microseconds a solve), and the
/// flag is polled between them. A larger group keeps the hook.
const SHORT_SOLVES_UP_TO: usize = 1_000;

/// A group under a cube: its open clauses (as [`Clauses::groups`] lists them) and its
/// projection positions.
type GroupKey = (Vec<u32>, Vec<usize>);

/// Enumerates the distinct assignments of `projection` over all models, as one [`Product`]
/// per model of the `split` literals (see the module doc): `on_product` gets each in turn.
/// Each factor's models are found by [`enumerate_in_cubes`] with `chunk`.
///
/// `split` should hold the literals whose values couple the rest (choices, activity): with
/// none, the whole formula is one cube. Ends as [`enumerate_in_cubes`] does
/// (`LimitReached` never: there is no limit).
pub fn enumerate_factored(
    solver: &mut Solver,
    split: &[Lit],
    projection: &[Lit],
    chunk: usize,
    mut on_product: impl FnMut(Product) -> ControlFlow<()>,
) -> EnumerationEnd {
    let mut cubes: Vec<Vec<Lit>> = Vec::new();
    let e = enumerate_in_cubes(solver, split, &[], None, chunk, |vals| {
        cubes.push(
            split
                .iter()
                .zip(vals)
                .map(|(&l, &v)| if v { l } else { !l })
                .collect(),
        );
        ControlFlow::Continue(())
    });
    if e.end != EnumerationEnd::Complete {
        return e.end;
    }
    // The clauses as they are now: the retired blocking clauses of the split enumeration
    // are satisfied by their activation units, and the factors' own come after.
    let clauses = Clauses::of(solver);
    let n = clauses.occurs.len().max(solver.num_vars());
    // The rows and number of every group met so far, by its open clauses and projection
    // positions.
    let mut known: rustc_hash::FxHashMap<GroupKey, (Rows, usize)> = Default::default();
    // The parts of every large group met so far ([`split_group`]).
    let mut splits: rustc_hash::FxHashMap<GroupKey, Vec<GroupKey>> = Default::default();
    let flag = solver.interrupt_flag();
    for batch in cubes.chunks(BATCH) {
        // Each cube's fixed values, free factors and groups; the groups not met before,
        // each once, numbered in the order they are first met.
        let mut prepared: Vec<Prepared> = Vec::new();
        let mut fresh: rustc_hash::FxHashMap<GroupKey, usize> = Default::default();
        for cube in batch {
            let mut val: Vec<Option<bool>> = vec![None; n];
            for &l in cube {
                val[l.index()] = Some(l.is_positive());
            }
            if !clauses.propagate(&mut val) {
                // Propagation found no model under a cube that has one: cannot happen.
                continue;
            }
            let comp = clauses.components(&val);
            let (fixed, free, groups) = split_positions(projection, &val, &comp);
            let open = clauses.groups(&val, &comp, groups.iter().map(|g| g.0));
            let mut slots = Vec::with_capacity(groups.len());
            let mut keys: Vec<GroupKey> = Vec::with_capacity(groups.len());
            for ((_, positions), open) in groups.into_iter().zip(open) {
                if open.iter().filter(|&&c| c == u32::MAX).count() < SPLIT_AGAIN_FROM {
                    keys.push((open, positions));
                    continue;
                }
                // A large group met before is split as it was then (without eliminating
                // again: many cubes leave the same large group).
                let key = (open, positions);
                match splits.get(&key) {
                    Some(parts) => keys.extend(parts.iter().cloned()),
                    None => {
                        let parts = split_group(key.0.clone(), key.1.clone(), projection);
                        keys.extend(parts.iter().cloned());
                        splits.insert(key, parts);
                    }
                }
            }
            for key in keys {
                // Another cube may have left this very group (the same open clauses over
                // the same variables): the same models.
                let slot = match known.get(&key) {
                    Some((rows, group)) => Slot::Known(Arc::clone(rows), *group),
                    None => match fresh.get(&key) {
                        Some(&i) => Slot::Fresh(i),
                        None => {
                            let i = fresh.len();
                            fresh.insert(key.clone(), i);
                            Slot::Fresh(i)
                        }
                    },
                };
                slots.push((key.1, slot));
            }
            prepared.push((fixed, free, slots));
        }
        let mut fresh: Vec<(GroupKey, usize)> = fresh.into_iter().collect();
        fresh.sort_unstable_by_key(|f| f.1);
        let enumerate =
            |(key, _): &(GroupKey, usize)| enumerate_group(key, projection, flag.clone(), chunk);
        // Each group has a solver of its own: they are enumerated in parallel.
        let found: Vec<Result<Vec<Vec<bool>>, EnumerationEnd>> = if fresh.len() > 1 {
            fresh.par_iter().map(enumerate).collect()
        } else {
            fresh.iter().map(enumerate).collect()
        };
        let mut numbered: Vec<(Rows, usize)> = Vec::with_capacity(fresh.len());
        for ((key, _), rows) in fresh.into_iter().zip(found) {
            let rows: Rows = match rows {
                Ok(rows) => rows.into(),
                Err(end) => return end,
            };
            let group = known.len();
            numbered.push((Arc::clone(&rows), group));
            known.insert(key, (rows, group));
        }
        for (fixed, mut factors, slots) in prepared {
            for (positions, slot) in slots {
                let (rows, group) = match slot {
                    Slot::Known(rows, group) => (rows, group),
                    Slot::Fresh(i) => (Arc::clone(&numbered[i].0), numbered[i].1),
                };
                factors.push(Factor {
                    positions,
                    rows,
                    group: Some(group),
                });
            }
            let product = Product { fixed, factors };
            if product.is_empty() {
                continue;
            }
            if on_product(product).is_break() {
                return EnumerationEnd::Stopped;
            }
        }
    }
    EnumerationEnd::Complete
}

/// Cubes whose groups are gathered before the new ones among them are enumerated, in
/// parallel (each group has a solver of its own): a batch bounds the open clauses held
/// at once.
const BATCH: usize = 64;

/// A cube of a batch: its fixed values, its free factors, and each group's positions
/// with where its rows come from.
type Prepared = (Vec<Option<bool>>, Vec<Factor>, Vec<(Vec<usize>, Slot)>);

/// Where a cube's group gets its rows: a group met in an earlier batch (its rows and
/// number), or one new in this batch (its place among the batch's new groups).
enum Slot {
    Known(Rows, usize),
    Fresh(usize),
}

/// A cube's projection positions split by what propagation `val` and the components
/// `comp` say of them: the fixed values, the free factors (a position in no open clause:
/// both values; a repeated variable joins its first position's factor), and the
/// positions of each group (its component's representative first).
#[allow(clippy::type_complexity)]
fn split_positions(
    projection: &[Lit],
    val: &[Option<bool>],
    comp: &[usize],
) -> (Vec<Option<bool>>, Vec<Factor>, Vec<(usize, Vec<usize>)>) {
    let mut fixed: Vec<Option<bool>> = vec![None; projection.len()];
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut free: Vec<(Vec<usize>, Vec<Vec<bool>>)> = Vec::new();
    for (p, l) in projection.iter().enumerate() {
        let v = l.index();
        match val[v] {
            Some(x) => fixed[p] = Some(x == l.is_positive()),
            None if comp[v] == usize::MAX => {
                if let Some((positions, rows)) = free.iter_mut().find(|(positions, _)| {
                    positions
                        .first()
                        .is_some_and(|&q| projection[q].index() == v)
                }) {
                    positions.push(p);
                    let first = projection[positions[0]];
                    for r in rows.iter_mut() {
                        let var_value = r[0] == first.is_positive();
                        r.push(var_value == l.is_positive());
                    }
                } else {
                    free.push((vec![p], vec![vec![false], vec![true]]));
                }
            }
            None => match groups.iter_mut().find(|g| g.0 == comp[v]) {
                Some(g) => g.1.push(p),
                None => groups.push((comp[v], vec![p])),
            },
        }
    }
    let free = free
        .into_iter()
        .map(|(positions, rows)| Factor {
            positions,
            rows: rows.into(),
            group: None,
        })
        .collect();
    (fixed, free, groups)
}

/// A group's open clauses (as [`Clauses::groups`] lists them) from this many on are split
/// again after elimination ([`split_group`]); a smaller group is enumerated as it is.
/// Tests split every group.
#[cfg(not(test))]
const SPLIT_AGAIN_FROM: usize = 512;
#[cfg(test)]
const SPLIT_AGAIN_FROM: usize = 1;

/// A group (`open`, `positions`; the caller takes those of [`SPLIT_AGAIN_FROM`] open
/// clauses or more) split into the parts its open clauses fall into
/// once the variables it does not project are eliminated ([`eliminate`]: the same
/// projected models). Variables that only say how others are reached (a chain of gates
/// between two projected variables) join them in the open clauses, but not after
/// elimination, where only the constraints between projected variables are left. Each
/// part is a group of its own (its clauses as [`Clauses::groups`] lists them); a
/// projected variable left in no clause is a part with no clauses (both values, as the
/// group has a model); parts with no projected variable are dropped (they have a model
/// and decide nothing projected). A group that does not fall apart is returned as it is.
fn split_group(open: Vec<u32>, positions: Vec<usize>, projection: &[Lit]) -> Vec<GroupKey> {
    let clauses: Vec<Vec<u32>> = open
        .split(|&c| c == u32::MAX)
        .filter(|c| !c.is_empty())
        .map(<[u32]>::to_vec)
        .collect();
    let keep: FxHashSet<u32> = positions
        .iter()
        .map(|&p| projection[p].index() as u32)
        .collect();
    let clauses = eliminate(clauses, &keep);
    let vars = clauses
        .iter()
        .flatten()
        .map(|&c| c / 2)
        .chain(keep.iter().copied())
        .max()
        .map_or(0, |v| v as usize + 1);
    let mut uf: petgraph::unionfind::UnionFind<u32> = petgraph::unionfind::UnionFind::new(vars);
    for c in &clauses {
        for w in c.windows(2) {
            uf.union(w[0] / 2, w[1] / 2);
        }
    }
    // Parts in order of their first position.
    let mut part_of: rustc_hash::FxHashMap<u32, usize> = Default::default();
    let mut parts: Vec<GroupKey> = Vec::new();
    for &p in &positions {
        let root = uf.find(projection[p].index() as u32);
        let k = *part_of.entry(root).or_insert_with(|| {
            parts.push((Vec::new(), Vec::new()));
            parts.len() - 1
        });
        parts[k].1.push(p);
    }
    if parts.len() < 2 {
        return vec![(open, positions)];
    }
    for c in clauses {
        // An empty clause cannot occur: the group has a model.
        let Some(&first) = c.first() else { continue };
        if let Some(&k) = part_of.get(&uf.find(first / 2)) {
            parts[k].0.extend(c);
            parts[k].0.push(u32::MAX);
        }
    }
    parts
}

/// The projected models of one group (its open clauses and projection positions), by a
/// solver of its own ([`Group::of`]) that stops with `flag`.
fn enumerate_group(
    key: &GroupKey,
    projection: &[Lit],
    flag: Option<Arc<crate::cancel::Flag>>,
    chunk: usize,
) -> Result<Vec<Vec<bool>>, EnumerationEnd> {
    let keep: FxHashSet<u32> = key
        .1
        .iter()
        .map(|&p| projection[p].index() as u32)
        .collect();
    let mut part = Group::of(&key.0, &keep);
    let lits: Vec<Lit> = key.1.iter().map(|&p| part.lit(projection[p])).collect();
    if let Some(flag) = flag {
        part.solver.set_interrupt(flag);
    }
    let mut rows = Vec::new();
    let e = enumerate_in_cubes(&mut part.solver, &lits, &[], None, chunk, |vals| {
        rows.push(vals.to_vec());
        ControlFlow::Continue(())
    });
    match e.end {
        EnumerationEnd::Complete => Ok(rows),
        end => Err(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::test_util::{brute_force_models, cnf_strategy};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The union of the products is the brute-force projection, whatever is split on.
        #[test]
        fn the_products_are_the_projected_models(
            cnf in cnf_strategy(6, 7),
            proj in prop::collection::vec((0..6usize, any::<bool>()), 0..6),
            split in prop::collection::vec((0..6usize, any::<bool>()), 0..3),
        ) {
            let keep = |v: Vec<(usize, bool)>| -> Vec<(usize, bool)> {
                v.into_iter().filter(|&(x, _)| x < cnf.num_vars).collect()
            };
            let (proj, split) = (keep(proj), keep(split));
            let want: BTreeSet<Vec<bool>> = brute_force_models(&cnf)
                .iter()
                .map(|m| proj.iter().map(|&(v, pos)| m[v] == pos).collect())
                .collect();
            let mut s = Solver::new();
            let vars = cnf.load(&mut s);
            let lit = |&(v, pos): &(usize, bool)| if pos { vars[v] } else { !vars[v] };
            let plits: Vec<Lit> = proj.iter().map(lit).collect();
            let slits: Vec<Lit> = split.iter().map(lit).collect();
            for chunk in [usize::MAX, 1] {
                let mut got: BTreeSet<Vec<bool>> = BTreeSet::new();
                let e = enumerate_factored(&mut s, &slits, &plits, chunk, |p| {
                    let n = p.len();
                    let mut rows = BTreeSet::new();
                    let _ = p.for_each(|m| {
                        rows.insert(m.to_vec());
                        ControlFlow::Continue(())
                    });
                    assert_eq!(rows.len() as u128, n, "a product repeats a row");
                    got.extend(rows);
                    ControlFlow::Continue(())
                });
                prop_assert_eq!(e, EnumerationEnd::Complete);
                prop_assert_eq!(&got, &want);
            }
        }
    }

    #[test]
    fn groups_met_again_in_a_later_batch_keep_their_rows_and_number() {
        // Seven split variables (128 cubes, two batches); under every cube the group
        // (a ∨ b) is the same formula, and x0 decides whether (c = d) or (c ∨ d) holds.
        let mut s = Solver::new();
        let x: Vec<Lit> = (0..7).map(|_| s.new_lit()).collect();
        let (a, b, c, d) = (s.new_lit(), s.new_lit(), s.new_lit(), s.new_lit());
        s.add_clause(&[a, b]);
        s.add_clause(&[!x[0], !c, d]);
        s.add_clause(&[!x[0], c, !d]);
        s.add_clause(&[x[0], c, d]);
        let mut ab_groups = BTreeSet::new();
        let (mut products, mut total) = (0, 0u128);
        let e = enumerate_factored(&mut s, &x, &[a, b, c, d], 1, |p| {
            products += 1;
            total += p.len();
            for f in &p.factors {
                if f.positions == [0, 1] {
                    assert_eq!(f.rows.len(), 3);
                    ab_groups.insert(f.group);
                }
            }
            ControlFlow::Continue(())
        });
        assert_eq!(e, EnumerationEnd::Complete);
        const { assert!(BATCH < 128) };
        assert_eq!(products, 128);
        // 64 cubes with c = d (3 · 2 rows), 64 with c ∨ d (3 · 3 rows).
        assert_eq!(total, 64 * 6 + 64 * 9);
        assert_eq!(ab_groups.len(), 1, "one group, one number: {ab_groups:?}");
    }

    #[test]
    fn parts_joined_only_through_unprojected_variables_are_enumerated_apart() {
        // (a ∨ c) and (b ∨ d), with x ↔ a and (¬x ∨ b ∨ y), x and y not projected: the
        // open clauses join all four, but y is pure and then x only restates a, so
        // eliminating them leaves a and b unrelated: 9 models as two factors of 3 rows.
        let mut s = Solver::new();
        let (a, b, c, d, x, y) = (
            s.new_lit(),
            s.new_lit(),
            s.new_lit(),
            s.new_lit(),
            s.new_lit(),
            s.new_lit(),
        );
        s.add_clause(&[a, c]);
        s.add_clause(&[b, d]);
        s.add_clause(&[!a, x]);
        s.add_clause(&[a, !x]);
        s.add_clause(&[!x, b, y]);
        let mut shapes = Vec::new();
        let e = enumerate_factored(&mut s, &[], &[a, b, c, d], 1, |p| {
            shapes.push(
                p.factors
                    .iter()
                    .map(|f| (f.positions.clone(), f.rows.len()))
                    .collect::<Vec<_>>(),
            );
            ControlFlow::Continue(())
        });
        assert_eq!(e, EnumerationEnd::Complete);
        assert_eq!(shapes, vec![vec![(vec![0, 2], 3), (vec![1, 3], 3)]]);
    }

    #[test]
    fn independent_parts_are_enumerated_apart() {
        // (a ∨ b) ∧ (c ∨ d) ∧ (e ∨ f): 27 projected models as one product of three
        // factors of 3 rows each.
        let mut s = Solver::new();
        let v: Vec<Lit> = (0..6).map(|_| s.new_lit()).collect();
        for k in 0..3 {
            s.add_clause(&[v[2 * k], v[2 * k + 1]]);
        }
        let mut products = Vec::new();
        let e = enumerate_factored(&mut s, &[], &v, usize::MAX, |p| {
            products.push(p);
            ControlFlow::Continue(())
        });
        assert_eq!(e, EnumerationEnd::Complete);
        assert_eq!(products.len(), 1);
        assert_eq!(products[0].len(), 27);
        let mut sizes: Vec<usize> = products[0].factors.iter().map(|f| f.rows.len()).collect();
        sizes.sort();
        assert_eq!(sizes, vec![3, 3, 3]);
    }

    #[test]
    fn a_split_literal_decouples_what_it_fixes() {
        // s → (a = b), ¬s → (a = c): coupled as a whole, but each value of s leaves two
        // parts, one of them free.
        let mut s = Solver::new();
        let v: Vec<Lit> = (0..4).map(|_| s.new_lit()).collect();
        let (sw, a, b, c) = (v[0], v[1], v[2], v[3]);
        s.add_clause(&[!sw, !a, b]);
        s.add_clause(&[!sw, a, !b]);
        s.add_clause(&[sw, !a, c]);
        s.add_clause(&[sw, a, !c]);
        let mut total = 0u128;
        let e = enumerate_factored(&mut s, &[sw], &[a, b, c], usize::MAX, |p| {
            // {a, b} or {a, c} equal (2 rows), the third free (2 rows).
            assert_eq!(p.factors.len(), 2);
            total += p.len();
            ControlFlow::Continue(())
        });
        assert_eq!(e, EnumerationEnd::Complete);
        assert_eq!(total, 8);
    }
}
