//! The SAT engine's answer for a large component as a product of pieces, found on the
//! SAT encoding alone (never through the direct engine's search): the same steps as
//! [`crate::systems::ar::direct::split`], on [`Encoding`]'s clauses.
//!
//! 1. The least cost vector, core-guided ([`crate::sat::lexmin_cores`]) over the cut
//!    variables, one priority level at a time: a component that resolves costs one
//!    satisfiable call.
//! 2. The backbone at that cost ([`crate::sat::backbone`]) over the success and
//!    liveness variables of every effect, then propagated through the encoding's clauses
//!    to its auxiliary variables (a value forced by the backbone holds in every optimal
//!    model too).
//! 3. Groups: every clause of the encoding that the fixed values do not satisfy joins its
//!    free variables; a group is a class holding some effect's free variable. The
//!    encoding's clauses are the whole contract (grounded creation included), so the
//!    optimal models are exactly the backbone with one optimal model of each group's
//!    clauses: each group's share of the cost is the least it can have, since costs
//!    add and the lexicographic order is compatible with addition.
//! 4. Each group's labellings, by projected enumeration on its effects' variables, under
//!    the pins and with every other group held at one optimal model (independence: the
//!    group's labellings do not depend on the others').
//!
//! The product goes to [`crate::systems::ar::answer::pieces`], like the direct engine's. The two engines may
//! group differently (their clauses differ); their answers are compared on the common
//! coarsening of the two groupings (`factor::Factored`'s `==`).
//!
//! Invariant: [`analyse_part`] answers the component's optimal labellings exactly (tested
//! against the flat SAT answer, the direct engine and brute force).

use super::encode::{self, Encoding};
use crate::sat::{backbone, enumerate_projected, lexmin_cores, EnumerationEnd, Lit};
use crate::systems::ar::answer::pieces::PartAnswer;
use crate::systems::ar::answer::pieces::{self, Group, Labelling, Product};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use petgraph::unionfind::UnionFind;
use std::ops::ControlFlow;

/// Components of at least this many effects (and no deflection) are answered as pieces.
/// Tests lower it so that the property tests cover this path.
#[cfg(not(test))]
pub const SPLIT_FROM: usize = 64;
#[cfg(test)]
pub const SPLIT_FROM: usize = 4;

/// A split answer whose product has at most this many entries is flattened (as the direct
/// engine does). Tests keep every split.
#[cfg(not(test))]
const FLAT_UP_TO: f64 = 256.0;
#[cfg(test)]
const FLAT_UP_TO: f64 = 1.0;

/// One component's answer by the SAT engine: flat for small components and components
/// with deflections, else as pieces (flattened when the product is small).
pub fn analyse_part(u: &Universe, budget: &Budget) -> Result<PartAnswer, Interrupted> {
    if u.len() < SPLIT_FROM || u.has_deflections() {
        return encode::analyse(u, budget).map(PartAnswer::Flat);
    }
    let mut enc = Encoding::new(u, budget);
    budget.check()?;
    let p = product(u, &mut enc, budget)?;
    drop(enc);
    let s = pieces::pieces(
        u,
        &[p],
        &crate::systems::ar::night::resolution::declared_map(u),
        budget,
    )?;
    Ok(if s.flat_size() <= FLAT_UP_TO {
        PartAnswer::Flat(s.flatten())
    } else {
        PartAnswer::Split(s)
    })
}

/// The optimal labellings of `u` as a product, from its encoding.
fn product(u: &Universe, enc: &mut Encoding, budget: &Budget) -> Result<Product, Interrupted> {
    let n = u.len();
    let base = enc.solver.num_clauses();
    let x = enc.cut_lits().to_vec();
    let levels: Vec<Vec<Lit>> = u
        .levels()
        .iter()
        .map(|&p| {
            (0..u.n_declared)
                .filter(|&i| u.effects[i].priority == p)
                .map(|i| x[i])
                .collect()
        })
        .collect();
    let opt = lexmin_cores(&mut enc.solver, &levels, &[])
        .map_err(|_| Interrupted)?
        .expect("cutting every effect always leaves an acceptable resolution");
    // A solve is not interrupted while it runs: stop between the phases.
    budget.check()?;
    // Frame numbering: s[i] is candidate i, live[i] candidate n + i.
    let candidates: Vec<Lit> = (0..n)
        .map(|i| enc.success_lit(i))
        .chain((0..n).map(|i| enc.live_lit(i)))
        .collect();
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
    propagate(&clauses, &mut val, budget)?;
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
    // Groups in order of their first effect.
    let mut fixed: Labelling = Vec::new();
    let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
    let mut effects: Vec<Vec<Ix>> = Vec::new();
    for i in 0..n {
        let (s, live) = (b[i], b[n + i]);
        if let (Some(s), Some(live)) = (s, live) {
            fixed.push((i, s));
            fixed.push((n + i, live));
            continue;
        }
        let k = if s.is_none() { i } else { n + i };
        let root = uf.find(candidates[k].index());
        let g = *group_of.entry(root).or_insert_with(|| {
            effects.push(Vec::new());
            effects.len() - 1
        });
        effects[g].push(i);
    }
    let group_index: Vec<Option<usize>> = (0..n)
        .map(|i| {
            let k = if b[i].is_none() { i } else { n + i };
            b[k].is_none()
                .then(|| group_of[&uf.find(candidates[k].index())])
        })
        .collect();
    let mut groups = Vec::with_capacity(effects.len());
    for (g, es) in effects.into_iter().enumerate() {
        budget.check()?;
        // The pins, and every other group's free variables at the first optimal model.
        let mut assumptions = opt.pins.clone();
        for (i, _) in group_index
            .iter()
            .enumerate()
            .filter(|&(_, &h)| h != Some(g))
        {
            for k in [i, n + i] {
                let l = candidates[k];
                assumptions.push(if model[k] { l } else { !l });
            }
        }
        let projection: Vec<Lit> = es
            .iter()
            .flat_map(|&i| [candidates[i], candidates[n + i]])
            .collect();
        let bytes = 48 + 16 * es.len() as u64;
        let mut options: Vec<Labelling> = Vec::new();
        let mut over = false;
        let e = enumerate_projected(&mut enc.solver, &projection, &assumptions, None, |v| {
            if budget.charge("group labellings", bytes).is_err() {
                over = true;
                return ControlFlow::Break(());
            }
            options.push(
                es.iter()
                    .enumerate()
                    .flat_map(|(k, &i)| [(i, v[2 * k]), (n + i, v[2 * k + 1])])
                    .collect(),
            );
            ControlFlow::Continue(())
        });
        if over || e.end != EnumerationEnd::Complete || !enc.meter() {
            return Err(Interrupted);
        }
        groups.push(Group {
            effects: es,
            options,
        });
    }
    Ok(Product { fixed, groups })
}

/// Unit propagation of the fixed values `val` through `clauses`, to a fixpoint.
fn propagate(
    clauses: &[Vec<Lit>],
    val: &mut [Option<bool>],
    budget: &Budget,
) -> Result<(), Interrupted> {
    let mut occurs: Vec<Vec<usize>> = vec![Vec::new(); val.len()];
    for (c, lits) in clauses.iter().enumerate() {
        for l in lits {
            occurs[l.index()].push(c);
        }
    }
    let mut queue: Vec<usize> = (0..val.len()).filter(|&v| val[v].is_some()).collect();
    let mut seen_clause = vec![false; clauses.len()];
    // Every clause is looked at when one of its variables gets a value; a clause already
    // satisfied is never looked at again.
    let mut steps = 0usize;
    while let Some(v) = queue.pop() {
        for &c in &occurs[v] {
            if seen_clause[c] {
                continue;
            }
            steps += 1;
            if steps.is_multiple_of(4096) {
                budget.check()?;
            }
            let mut unassigned = None;
            let mut open = 0;
            let mut sat = false;
            for &l in &clauses[c] {
                match val[l.index()] {
                    Some(x) if x == l.is_positive() => {
                        sat = true;
                        break;
                    }
                    Some(_) => {}
                    None => {
                        open += 1;
                        unassigned = Some(l);
                    }
                }
            }
            if sat {
                seen_clause[c] = true;
            } else if open == 1 {
                let l = unassigned.expect("one open literal");
                val[l.index()] = Some(l.is_positive());
                seen_clause[c] = true;
                queue.push(l.index());
            }
        }
    }
    Ok(())
}
