//! Bounded variable elimination: a formula's variables that no caller reads are quantified
//! away by resolution (Davis-Putnam), while that keeps the formula from growing.
//!
//! Owns: [`eliminate`].
//!
//! Why it is exact: for a variable v, the clauses with v and those with ¬v are replaced by
//! every non-tautological resolvent of one with the other. An assignment of the other
//! variables satisfies the resolvents exactly when it extends, by some value of v, to one
//! that satisfies the replaced clauses (∃v F). So the formula left has, projected on the
//! variables kept, exactly the models of the formula given; a variable with one polarity
//! only (pure) is the case with no resolvents.
//!
//! A clause that another one subsumes is dropped before each round (the same models):
//! the variables it held may then be eliminated.
//!
//! Invariants: a kept variable is never eliminated; a variable is eliminated only when its
//! resolvents are no more than the clauses they replace and none is longer than
//! [`MAX_RESOLVENT`]; the output's clauses are sorted, free of repeated literals and of
//! tautologies; an empty resolvent is kept (the formula has no model).
//!
//! Literals are codes `2 · variable + positive`, as the SAT layer's factored enumeration
//! writes them. Shared by both ?AR engines' enumerations (each on its own clauses: the
//! SAT layer's groups, the direct engine's parts under a choice of what is cut), like
//! [`crate::units`]. Knows nothing about games.

use rustc_hash::{FxHashMap, FxHashSet};

/// A resolvent longer than this stops its variable's elimination (long clauses propagate
/// late, so they cost more than they save).
const MAX_RESOLVENT: usize = 16;

/// Rounds over the candidates; a round after one that eliminated nothing would not either.
const ROUNDS: usize = 3;

/// The clauses with every variable not in `keep` that can be eliminated without growth
/// eliminated (see the module doc): the same models projected on `keep`.
pub fn eliminate(clauses: Vec<Vec<u32>>, keep: &FxHashSet<u32>) -> Vec<Vec<u32>> {
    let mut store: Vec<Option<Vec<u32>>> = Vec::with_capacity(clauses.len());
    let mut occurs: FxHashMap<u32, Vec<usize>> = Default::default();
    let mut seen: FxHashSet<Vec<u32>> = Default::default();
    let add = |c: Vec<u32>,
               store: &mut Vec<Option<Vec<u32>>>,
               occurs: &mut FxHashMap<u32, Vec<usize>>,
               seen: &mut FxHashSet<Vec<u32>>| {
        if !seen.insert(c.clone()) {
            return;
        }
        for &l in &c {
            occurs.entry(l).or_default().push(store.len());
        }
        store.push(Some(c));
    };
    for mut c in clauses {
        c.sort_unstable();
        c.dedup();
        if c.windows(2).any(|w| w[0] ^ 1 == w[1]) {
            continue;
        }
        add(c, &mut store, &mut occurs, &mut seen);
    }
    let live = |store: &[Option<Vec<u32>>], occurs: &FxHashMap<u32, Vec<usize>>, l: u32| {
        occurs
            .get(&l)
            .map_or(0, |cs| cs.iter().filter(|&&c| store[c].is_some()).count())
    };
    let mut gone: FxHashSet<u32> = Default::default();
    for _ in 0..ROUNDS {
        // Clauses another one subsumes say nothing more: dropped, their variables may go.
        subsume(&mut store, &occurs, &mut seen);
        let mut vars: Vec<u32> = occurs
            .keys()
            .map(|&l| l / 2)
            .filter(|v| !keep.contains(v) && !gone.contains(v))
            .collect::<FxHashSet<u32>>()
            .into_iter()
            .collect();
        let score = |v: u32| live(&store, &occurs, 2 * v) * live(&store, &occurs, 2 * v + 1);
        let mut scored: Vec<(usize, u32)> = vars.drain(..).map(|v| (score(v), v)).collect();
        scored.sort_unstable();
        let mut any = false;
        for (_, v) in scored {
            let side = |l: u32| -> Vec<usize> {
                occurs
                    .get(&l)
                    .map(|cs| cs.iter().copied().filter(|&c| store[c].is_some()).collect())
                    .unwrap_or_default()
            };
            let (pos, neg) = (side(2 * v + 1), side(2 * v));
            let Some(resolvents) = resolve_all(&store, &pos, &neg, 2 * v) else {
                continue;
            };
            for &c in pos.iter().chain(&neg) {
                store[c] = None;
            }
            for r in resolvents {
                add(r, &mut store, &mut occurs, &mut seen);
            }
            gone.insert(v);
            any = true;
        }
        if !any {
            break;
        }
    }
    store.into_iter().flatten().collect()
}

/// Drops every clause of `store` that another one subsumes (holds all of its literals):
/// the same models. A clause dropped is forgotten by `seen`, so that a resolvent equal to
/// it later is kept.
fn subsume(
    store: &mut [Option<Vec<u32>>],
    occurs: &FxHashMap<u32, Vec<usize>>,
    seen: &mut FxHashSet<Vec<u32>>,
) {
    let mut order: Vec<usize> = (0..store.len()).filter(|&i| store[i].is_some()).collect();
    order.sort_by_key(|&i| store[i].as_ref().map_or(0, Vec::len));
    for i in order {
        let Some(c) = store[i].clone() else {
            continue;
        };
        // Every clause c subsumes holds c's literal that occurs least.
        let Some(rarest) = c
            .iter()
            .min_by_key(|&&l| occurs.get(&l).map_or(0, Vec::len))
        else {
            continue;
        };
        for &j in occurs.get(rarest).into_iter().flatten() {
            let Some(d) = &store[j] else {
                continue;
            };
            if j == i || d.len() < c.len() || !sorted_subset(&c, d) {
                continue;
            }
            seen.remove(d);
            store[j] = None;
        }
    }
}

/// Whether every element of `a` is in `b` (both ascending).
fn sorted_subset(a: &[u32], b: &[u32]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.by_ref().any(|y| y == x))
}

/// The non-tautological resolvents on variable `neg / 2` of the clauses `pos` (with it)
/// and `neg` (with its negation, the code `neg`), each sorted; `None` when they would
/// outnumber the clauses replaced or one is too long.
fn resolve_all(
    store: &[Option<Vec<u32>>],
    pos: &[usize],
    neg: &[usize],
    neg_lit: u32,
) -> Option<Vec<Vec<u32>>> {
    let bound = pos.len() + neg.len();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for &p in pos {
        let a = store[p].as_ref()?;
        for &n in neg {
            let b = store[n].as_ref()?;
            let mut r: Vec<u32> = a
                .iter()
                .chain(b)
                .copied()
                .filter(|&l| l / 2 != neg_lit / 2)
                .collect();
            r.sort_unstable();
            r.dedup();
            if r.windows(2).any(|w| w[0] ^ 1 == w[1]) {
                continue;
            }
            if r.len() > MAX_RESOLVENT {
                return None;
            }
            out.push(r);
            if out.len() > bound {
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::test_util::{brute_force_models, cnf_strategy, Cnf};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn codes(cnf: &Cnf) -> Vec<Vec<u32>> {
        cnf.clauses
            .iter()
            .map(|c| {
                c.iter()
                    .map(|&(v, p)| 2 * v as u32 + u32::from(p))
                    .collect()
            })
            .collect()
    }

    fn projected(num_vars: usize, clauses: &[Vec<u32>], keep: &[usize]) -> BTreeSet<Vec<bool>> {
        let cnf = Cnf {
            num_vars,
            clauses: clauses
                .iter()
                .map(|c| c.iter().map(|&l| ((l / 2) as usize, l % 2 == 1)).collect())
                .collect(),
        };
        brute_force_models(&cnf)
            .iter()
            .map(|m| keep.iter().map(|&v| m[v]).collect())
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// The formula left has the given formula's models, projected on the kept variables.
        #[test]
        fn elimination_keeps_the_projected_models(
            cnf in cnf_strategy(6, 9),
            keep in prop::collection::btree_set(0..6usize, 0..4),
        ) {
            let keep: Vec<usize> = keep.into_iter().filter(|&v| v < cnf.num_vars).collect();
            let set: FxHashSet<u32> = keep.iter().map(|&v| v as u32).collect();
            let before = codes(&cnf);
            let after = eliminate(before.clone(), &set);
            prop_assert_eq!(
                projected(cnf.num_vars, &after, &keep),
                projected(cnf.num_vars, &before, &keep)
            );
            for c in &after {
                prop_assert!(c.len() <= MAX_RESOLVENT.max(3));
            }
        }
    }

    #[test]
    fn a_chain_of_definitions_is_quantified_away() {
        // x0 ↔ x1, x1 ↔ x2, x2 ↔ x3, keeping x0 and x3: x0 ↔ x3 is what is left, over no
        // other variable.
        let eq = |a: u32, b: u32| vec![vec![2 * a, 2 * b + 1], vec![2 * a + 1, 2 * b]];
        let clauses: Vec<Vec<u32>> = eq(0, 1)
            .into_iter()
            .chain(eq(1, 2))
            .chain(eq(2, 3))
            .collect();
        let keep: FxHashSet<u32> = [0, 3].into_iter().collect();
        let mut after = eliminate(clauses, &keep);
        after.sort();
        assert_eq!(after, vec![vec![0, 7], vec![1, 6]]);
    }

    #[test]
    fn a_subsumed_clause_is_dropped() {
        // (x0 ∨ x1) subsumes (x0 ∨ x1 ∨ x2), everything kept: only the first is left.
        let clauses = vec![vec![1, 3, 5], vec![1, 3]];
        let all: FxHashSet<u32> = [0, 1, 2].into_iter().collect();
        assert_eq!(eliminate(clauses, &all), vec![vec![1, 3]]);
    }

    #[test]
    fn a_kept_variable_stays_and_a_pure_one_goes() {
        // (x0 ∨ x1) ∧ (x0 ∨ ¬x2) with x0 kept: x1 is pure, then x2 is pure: nothing is left,
        // and x0 is free.
        let clauses = vec![vec![1, 3], vec![1, 4]];
        let keep: FxHashSet<u32> = [0].into_iter().collect();
        assert!(eliminate(clauses.clone(), &keep).is_empty());
        // Keeping all three, nothing changes.
        let all: FxHashSet<u32> = [0, 1, 2].into_iter().collect();
        assert_eq!(eliminate(clauses.clone(), &all), clauses);
    }
}
