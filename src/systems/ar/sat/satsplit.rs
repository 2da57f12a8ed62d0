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
use crate::systems::ar::answer::collapse::{self, Found};
use crate::systems::ar::answer::pieces::PartAnswer;
use crate::systems::ar::answer::pieces::{self, Group, Labelling, Product};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use crate::units;
use petgraph::unionfind::UnionFind;
use std::ops::ControlFlow;

/// Components of at least this many effects are answered as pieces.
/// Tests lower it so that the property tests cover this path.
#[cfg(not(test))]
pub const SPLIT_FROM: usize = 64;
#[cfg(test)]
pub const SPLIT_FROM: usize = 4;

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
    let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
    let mut effects: Vec<Vec<Ix>> = Vec::new();
    let mut group_index: Vec<Option<usize>> = vec![None; candidates.len()];
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
        group_index[i] = Some(g);
        group_index[n + i] = Some(g);
    }
    let mut lasts: Vec<Vec<usize>> = vec![Vec::new(); effects.len()];
    for k in 2 * n..candidates.len() {
        if b[k].is_none() {
            let root = class(k).expect("a free candidate's class is free");
            let g = *group_of
                .get(&root)
                .expect("a cycle's free choice is grouped with its deflections");
            group_index[k] = Some(g);
            lasts[g].push(k);
        }
    }
    let mut groups = Vec::with_capacity(effects.len());
    for (g, es) in effects.into_iter().enumerate() {
        budget.check()?;
        // The pins, and every other group's candidates at the first optimal model.
        let mut assumptions = opt.pins.clone();
        for (k, &h) in group_index.iter().enumerate() {
            if h.is_some() && h != Some(g) {
                let l = candidates[k];
                assumptions.push(if model[k] { l } else { !l });
            }
        }
        let mut projected: Vec<usize> = es.iter().flat_map(|&i| [i, n + i]).collect();
        projected.extend(&lasts[g]);
        let projection: Vec<Lit> = projected.iter().map(|&k| candidates[k]).collect();
        let bytes = 48 + 16 * projected.len() as u64;
        let mut options: Vec<Labelling> = Vec::new();
        let mut over = false;
        let e = enumerate_projected(&mut enc.solver, &projection, &assumptions, None, |v| {
            if budget.charge("group labellings", bytes).is_err() {
                over = true;
                return ControlFlow::Break(());
            }
            options.push(
                projected
                    .iter()
                    .zip(v)
                    .filter(|&(&k, &x)| k < 2 * n || x)
                    .map(|(&k, &x)| (label[k], x))
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
