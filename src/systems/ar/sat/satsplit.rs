//! The SAT engine's answer for a large component as a product of pieces, found on the
//! SAT encoding alone (never through the direct engine's search): the same steps as
//! [`crate::systems::ar::direct::split`], on [`Encoding`]'s clauses.
//!
//! 1. The least cost vector, core-guided ([`crate::sat::lexmin_cores`]) over the cut
//!    variables, one priority level at a time: a component that resolves costs one
//!    satisfiable call.
//! 2. The backbone at that cost ([`crate::sat::backbone`]) over the success and
//!    liveness variables of every effect and the `last` literals of the cycles of
//!    deflections (which member is processed last: the ways), then propagated through the encoding's clauses
//!    to its auxiliary variables (a value forced by the backbone holds in every optimal
//!    model too).
//! 3. Groups: every clause of the encoding that the fixed values do not satisfy joins its
//!    free variables; an effect's two variables are joined; and every action that may be
//!    live joins what decides where its slots end when the backbone does not (the success
//!    of each deflection on its path before a fixed stop; for a cycle it runs into, the
//!    members' deflections and the cycle's `last` literals), since the answer shows each
//!    action's final targets. A group is a class holding a free candidate. The
//!    encoding's clauses are the whole contract (grounded creation included), so the
//!    optimal models are exactly the backbone with one optimal model of each group's
//!    clauses: each group's share of the cost is the least it can have, since costs
//!    add and the lexicographic order is compatible with addition.
//! 4. Each group's labellings, by projected enumeration on its effects' variables, apart
//!    from the rest of the encoding ([`GroupClauses`]): the group's open clauses fall
//!    into parts over disjoint variables (a group is joined for its answer, an action with
//!    what decides where it ends, not only by clauses), and each part is enumerated by a
//!    solver holding only its clauses and, at each level, at most its cost in the first
//!    optimal model (the least it can cost: parts are independent and costs add), split
//!    on its cut variables ([`crate::sat::enumerate_factored`]: once the cut is chosen,
//!    what the cost bound joined may fall apart again); the group's labellings are the
//!    product of its parts', each part's held as one product per choice of what is cut
//!    ([`pieces::Factor`]'s cubes), as the direct engine holds them.
//!
//! The product goes to [`crate::systems::ar::answer::pieces`], like the direct engine's. The two engines may
//! group differently (their clauses differ); their answers are compared on the common
//! coarsening of the two groupings (`factor::Factored`'s `==`).
//!
//! Invariant: [`analyse_part`] answers the component's optimal labellings exactly (tested
//! against the flat SAT answer, the direct engine and brute force).

use super::encode::{self, Encoding};
use crate::sat::{
    backbone, enumerate_factored, lexmin_cores, EnumerationEnd, FactorProduct, Lit, Solver,
    Totalizer,
};
use crate::systems::ar::answer::collapse::{self, Found};
use crate::systems::ar::answer::pieces::PartAnswer;
use crate::systems::ar::answer::pieces::{self, Group, Labelling, Product};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use crate::units;
use petgraph::unionfind::UnionFind;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// Components of at least this many effects are answered as pieces.
/// Tests lower it so that the property tests cover this path.
#[cfg(not(test))]
pub const SPLIT_FROM: usize = 64;
#[cfg(test)]
pub const SPLIT_FROM: usize = 4;

/// Models a cube of a part's enumeration holds before it is split (the `chunk` of
/// [`crate::sat::enumerate_factored`]).
const GROUP_CHUNK: usize = 4;

/// One component's answer by the SAT engine: flat for small components, else as pieces
/// (flattened when the product is small: [`pieces::answer`]). Identical passives are
/// solved as one ([`collapse`]).
pub fn analyse_part(u: &Universe, budget: &Budget) -> Result<PartAnswer, Interrupted> {
    collapse::answer(u, budget, find)
}

/// What [`analyse_part`] finds on a (collapsed) component.
fn find(u: &Universe, budget: &Budget) -> Result<Found, Interrupted> {
    if u.len() < SPLIT_FROM || u.general.is_some() || u.links_deaths() {
        return encode::analyse(u, budget).map(Found::Flat);
    }
    let mut enc = Encoding::new(u, budget);
    budget.check()?;
    let p = product(u, &mut enc, budget)?;
    drop(enc);
    Ok(Found::Products(vec![p]))
}

/// The optimal labellings of `u` as a product, from its encoding.
fn product(u: &Universe, enc: &mut Encoding, budget: &Budget) -> Result<Product, Interrupted> {
    let n = u.len();
    let base = enc.solver.num_clauses();
    let levels = enc.cost_levels();
    let opt = lexmin_cores(&mut enc.solver, &levels, &[])
        .map_err(|_| Interrupted)?
        .expect("cutting every effect always leaves an acceptable resolution");
    // A solve is not interrupted while it runs: stop between the phases.
    budget.check()?;
    // Frame numbering: s[i] is candidate i, live[i] candidate n + i; then the `last`
    // literal of each member of a cycle with a choice, labelled 2n + player.
    let mut candidates: Vec<Lit> = (0..n)
        .map(|i| enc.success_lit(i))
        .chain((0..n).map(|i| enc.live_lit(i)))
        .collect();
    let mut label: Vec<usize> = (0..2 * n).collect();
    let mut last_of: Vec<Option<usize>> = vec![None; u.n_players()];
    for (members, lits) in enc.last_positions() {
        for (&p, &l) in members.iter().zip(lits) {
            last_of[p as usize] = Some(candidates.len());
            candidates.push(l);
            label.push(2 * n + p as usize);
        }
    }
    let (b, model) = backbone(&mut enc.solver, &candidates, &opt.pins)
        .map_err(|_| Interrupted)?
        .expect("the pins admit the optimal models");
    if !enc.meter() {
        return Err(Interrupted);
    }
    budget.check()?;
    let clauses: Vec<Vec<Lit>> = enc
        .solver
        .clauses()
        .take(base)
        .map(<[Lit]>::to_vec)
        .collect();
    let vars = enc
        .solver
        .clauses()
        .take(base)
        .flatten()
        .map(|l| l.index() + 1)
        .max();
    let vars = vars
        .unwrap_or(0)
        .max(candidates.iter().map(|l| l.index() + 1).max().unwrap_or(0));
    let mut val: Vec<Option<bool>> = vec![None; vars];
    for (k, &l) in candidates.iter().enumerate() {
        if let Some(v) = b[k] {
            val[l.index()] = Some(v == l.is_positive());
        }
    }
    units::propagate(&clauses, &mut val, |l| (l.index(), l.is_positive()), budget)?;
    let holds = |val: &[Option<bool>], l: Lit| val[l.index()].map(|v| v == l.is_positive());
    let mut uf = UnionFind::<usize>::new(vars);
    for c in &clauses {
        if c.iter().any(|&l| holds(&val, l) == Some(true)) {
            continue;
        }
        let mut free = c.iter().map(|l| l.index()).filter(|&v| val[v].is_none());
        let Some(first) = free.next() else {
            unreachable!("the backbone satisfies every clause")
        };
        free.for_each(|v| {
            uf.union(first, v);
        });
    }
    // An effect's two variables are in one piece.
    for i in 0..n {
        uf.union(candidates[i].index(), candidates[n + i].index());
    }
    // Labels to candidates: s and live are candidates 0..2n, a `last` label its own.
    let idx = |k: usize| {
        if k < 2 * n {
            k
        } else {
            last_of[k - 2 * n].expect("a cycle with `last` labels")
        }
    };
    pieces::join_redirected(
        u,
        |k| b[idx(k)],
        |p| last_of[p as usize].is_some(),
        0..n,
        budget,
        |x, y| {
            uf.union(candidates[idx(x)].index(), candidates[idx(y)].index());
        },
    )?;
    // A class is a group when it holds a free candidate; groups in order of first effect.
    let mut free_class = vec![false; vars];
    for (k, &l) in candidates.iter().enumerate() {
        if b[k].is_none() {
            free_class[uf.find(l.index())] = true;
        }
    }
    let class = |k: usize| {
        let root = uf.find(candidates[k].index());
        free_class[root].then_some(root)
    };
    let mut fixed: Labelling = Vec::new();
    let mut group_of: HashMap<usize, usize> = Default::default();
    let mut effects: Vec<Vec<Ix>> = Vec::new();
    for k in 0..candidates.len() {
        if k >= 2 * n && b[k] == Some(true) {
            fixed.push((label[k], true));
        }
    }
    for i in 0..n {
        // Every fixed value is given (a grouped effect's fixed success may decide where
        // another group's slots end); an effect with both fixed and no free class is
        // in the shared piece.
        for k in [i, n + i] {
            if let Some(v) = b[k] {
                fixed.push((k, v));
            }
        }
        let Some(root) = class(i) else {
            continue;
        };
        let g = *group_of.entry(root).or_insert_with(|| {
            effects.push(Vec::new());
            effects.len() - 1
        });
        effects[g].push(i);
    }
    let mut lasts: Vec<Vec<usize>> = vec![Vec::new(); effects.len()];
    for k in (2 * n..candidates.len()).filter(|&k| b[k].is_none()) {
        let root = class(k).expect("a free candidate's class is free");
        let g = *group_of
            .get(&root)
            .expect("a cycle's free choice is grouped with its deflections");
        lasts[g].push(k);
    }
    // Each group's open clauses: those the fixed values leave open, by the class of
    // their free variables (one class each: they were joined above).
    let mut open: Vec<Vec<usize>> = vec![Vec::new(); effects.len()];
    for (c, lits) in clauses.iter().enumerate() {
        if lits.iter().any(|&l| holds(&val, l) == Some(true)) {
            continue;
        }
        let first = lits
            .iter()
            .find(|l| val[l.index()].is_none())
            .expect("an open clause has a free variable");
        if let Some(&g) = group_of.get(&uf.find(first.index())) {
            open[g].push(c);
        }
    }
    let levels_of = u.levels();
    let mut groups = Vec::with_capacity(effects.len());
    for (g, es) in effects.into_iter().enumerate() {
        budget.check()?;
        let mut projected: Vec<usize> = es.iter().flat_map(|&i| [i, n + i]).collect();
        projected.extend(&lasts[g]);
        // The group's cut variables, each with its level, weight and whether the first
        // optimal model cuts it (what it costs there is the least it can: the groups
        // are independent and costs add).
        let mut cost: Vec<Cost> = Vec::new();
        for &i in es
            .iter()
            .filter(|&&i| i < u.n_declared && b[n + i].is_none())
        {
            cost.push(Cost {
                level: levels_of
                    .binary_search(&u.effects[i].priority)
                    .expect("every declared priority is a level"),
                cut: !candidates[n + i],
                weight: u.weight(i),
                cut_first: !model[n + i],
            });
        }
        let group = GroupClauses {
            clauses: open[g].iter().map(|&c| clauses[c].as_slice()).collect(),
            val: &val,
            projection: projected.iter().map(|&k| candidates[k]).collect(),
            cost,
            levels: levels_of.len(),
        };
        // The labels at some positions: a `last` label only when true.
        let labels = |positions: &mut dyn Iterator<Item = (usize, bool)>| -> Labelling {
            positions
                .filter(|&(p, x)| projected[p] < 2 * n || x)
                .map(|(p, x)| (label[projected[p]], x))
                .collect()
        };
        let (fixed, parts) = group.factors(budget)?;
        let mut factors: Vec<pieces::Factor> = Vec::with_capacity(parts.len() + 1);
        let fixed = labels(
            &mut fixed
                .iter()
                .enumerate()
                .filter_map(|(p, x)| x.map(|x| (p, x))),
        );
        if !fixed.is_empty() || parts.is_empty() {
            factors.push(pieces::Factor::flat(std::iter::once(fixed).collect()));
        }
        for (positions, products) in parts {
            // Each cube's product, its positions (the part's) made the group's.
            let mut cubes = Vec::with_capacity(products.len());
            for product in products {
                budget.check()?;
                let fixed = labels(
                    &mut product
                        .fixed
                        .iter()
                        .enumerate()
                        .filter_map(|(p, x)| x.map(|x| (positions[p], x))),
                );
                let mut sub = Vec::with_capacity(product.factors.len());
                for f in &product.factors {
                    // Two bits a label ([`pieces::Rows`]).
                    let bytes = 16 * f.positions.len().div_ceil(64) as u64;
                    budget.charge("group labellings", bytes * f.rows.len() as u64)?;
                    sub.push(
                        f.rows
                            .iter()
                            .map(|row| {
                                labels(
                                    &mut f
                                        .positions
                                        .iter()
                                        .map(|&p| positions[p])
                                        .zip(row.iter().copied()),
                                )
                            })
                            .collect::<pieces::Rows>(),
                    );
                }
                cubes.push(pieces::Cube {
                    fixed,
                    factors: sub,
                });
            }
            factors.push(pieces::Factor { cubes });
        }
        groups.push(Group {
            effects: es,
            factors,
        });
    }
    Ok(Product { fixed, groups })
}

/// One cut variable of a group, for its share of the cost.
struct Cost {
    /// The priority level (index into the universe's levels).
    level: usize,
    /// The literal "cut".
    cut: Lit,
    /// How many effects it stands for ([`Universe::weight`]).
    weight: usize,
    /// Whether the first optimal model cuts it.
    cut_first: bool,
}

/// One group's part of the encoding, enumerated apart from the rest of it: the clauses
/// the fixed values leave open among the group's variables (every other clause is
/// satisfied or lies in another group) and the group's cut variables.
///
/// A group is joined for its answer (an action with what decides where it ends), so its
/// open clauses may still fall into parts over disjoint variables. Each such part is
/// enumerated by a solver of its own: its clauses, and at each priority level at most
/// the part's cost in the first optimal model. That cost is the least the part can have
/// (parts are independent, costs add and the first model is optimal), and a labelling
/// within it at every level costs exactly it (a cost at most the least at every level
/// and different from it would be lexicographically smaller), so the part's models are
/// its optimal labellings and the group's are their product: the same labellings as
/// enumerating the whole encoding under the pins with every other group held at one
/// optimal model, at the size of a part instead of the component, and as a sum over
/// parts instead of a product.
struct GroupClauses<'a> {
    /// The open clauses, in the whole encoding's literals (fixed literals dropped below).
    clauses: Vec<&'a [Lit]>,
    /// The fixed values (the backbone, propagated).
    val: &'a [Option<bool>],
    /// The literals enumerated (the group's labels).
    projection: Vec<Lit>,
    /// The group's free cut variables.
    cost: Vec<Cost>,
    /// The number of priority levels.
    levels: usize,
}

impl GroupClauses<'_> {
    /// Every optimal labelling of the group, as values of `projection`: the values every
    /// one fixes (`None`: a position of a factor) and the factors, over disjoint
    /// positions, whose rows combine freely.
    #[allow(clippy::type_complexity)]
    fn factors(
        &self,
        budget: &Budget,
    ) -> Result<(Vec<Option<bool>>, Vec<(Vec<usize>, Vec<FactorProduct>)>), Interrupted> {
        let val = self.val;
        let free = |l: &Lit| val[l.index()].is_none();
        // The group's free variables, numbered locally, and their parts.
        let mut local: HashMap<usize, usize> = HashMap::new();
        let mut id = |v: usize| {
            let next = local.len();
            *local.entry(v).or_insert(next)
        };
        let proj_ids: Vec<Option<usize>> = self
            .projection
            .iter()
            .map(|l| free(l).then(|| id(l.index())))
            .collect();
        let cost_ids: Vec<usize> = self.cost.iter().map(|c| id(c.cut.index())).collect();
        let clause_ids: Vec<Vec<usize>> = self
            .clauses
            .iter()
            .map(|c| {
                c.iter()
                    .filter(|l| free(l))
                    .map(|l| id(l.index()))
                    .collect()
            })
            .collect();
        let mut uf = UnionFind::<usize>::new(local.len());
        for ids in &clause_ids {
            for w in ids.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
        let mut part_of_root: HashMap<usize, usize> = HashMap::new();
        let mut parts: Vec<PartClauses> = Vec::new();
        let mut part = |x: usize, parts: &mut Vec<PartClauses>| {
            let next = parts.len();
            let k = *part_of_root.entry(uf.find(x)).or_insert(next);
            if k == parts.len() {
                parts.push(PartClauses::default());
            }
            k
        };
        let mut fixed: Vec<Option<bool>> = vec![None; self.projection.len()];
        for (p, (l, x)) in self.projection.iter().zip(&proj_ids).enumerate() {
            match x {
                None => fixed[p] = val[l.index()].map(|v| v == l.is_positive()),
                Some(x) => {
                    let k = part(*x, &mut parts);
                    parts[k].positions.push(p);
                }
            }
        }
        for (c, x) in self.cost.iter().zip(&cost_ids) {
            let k = part(*x, &mut parts);
            parts[k].cost.push(c);
        }
        for (c, ids) in self.clauses.iter().zip(&clause_ids) {
            let k = part(ids[0], &mut parts);
            parts[k].clauses.push(c);
        }
        let mut factors = Vec::with_capacity(parts.len());
        for part in parts.iter().filter(|p| !p.positions.is_empty()) {
            budget.check()?;
            let projection: Vec<Lit> = part.positions.iter().map(|&p| self.projection[p]).collect();
            let products = part.enumerate(val, &projection, self.levels, budget)?;
            factors.push((part.positions.clone(), products));
        }
        Ok((fixed, factors))
    }
}

/// One part of a group: its clauses, the projection positions and cut variables over its
/// variables.
#[derive(Default)]
struct PartClauses<'c, 'a> {
    clauses: Vec<&'c &'a [Lit]>,
    positions: Vec<usize>,
    cost: Vec<&'c Cost>,
}

impl PartClauses<'_, '_> {
    /// The part's optimal labellings as values of `projection`, by a solver of its own.
    fn enumerate(
        &self,
        val: &[Option<bool>],
        projection: &[Lit],
        levels: usize,
        budget: &Budget,
    ) -> Result<Vec<FactorProduct>, Interrupted> {
        let mut sub = Solver::new();
        sub.set_interrupt(budget.flag());
        let mut var_of: HashMap<usize, Lit> = HashMap::new();
        let mut map = |sub: &mut Solver, l: Lit| -> Lit {
            let x = *var_of.entry(l.index()).or_insert_with(|| sub.new_lit());
            if l.is_positive() {
                x
            } else {
                !x
            }
        };
        let mut lits = Vec::new();
        for c in &self.clauses {
            lits.clear();
            for &l in c.iter() {
                if val[l.index()].is_none() {
                    lits.push(map(&mut sub, l));
                }
            }
            sub.add_clause(&lits);
        }
        for level in 0..levels {
            let mut cut = Vec::new();
            let mut share = 0;
            for c in self.cost.iter().filter(|c| c.level == level) {
                let l = map(&mut sub, c.cut);
                cut.extend(std::iter::repeat_n(l, c.weight));
                share += if c.cut_first { c.weight } else { 0 };
            }
            if cut.len() <= share {
                continue;
            }
            let tot = Totalizer::new(&mut sub, &cut, share + 1);
            if let Some(bound) = tot.at_most(share).expect("the cap is above the bound") {
                sub.add_clause(&[bound]);
            }
        }
        let projection: Vec<Lit> = projection.iter().map(|&l| map(&mut sub, l)).collect();
        let mut charged = 0;
        budget.charge_growth("SAT clauses", &mut charged, sub.approx_bytes())?;
        // Under each choice of what is cut, the part may fall apart further (the cost
        // bound is what joins the rest of the part through its cut variables).
        let split: Vec<Lit> = self.cost.iter().map(|c| map(&mut sub, c.cut)).collect();
        let mut products = Vec::new();
        let e = enumerate_factored(&mut sub, &split, &projection, GROUP_CHUNK, |product| {
            products.push(product);
            ControlFlow::Continue(())
        });
        budget.release(charged);
        match e {
            EnumerationEnd::Complete => Ok(products),
            _ => Err(Interrupted),
        }
    }
}
