//! The least number of true literals in a set, found core-guided (the OLL scheme of
//! MaxSAT solvers and clingo's `usc`) with the [`Learner`]: each literal is first assumed
//! false; a core (assumptions that cannot all hold) raises the lower bound by one and is
//! replaced by a counter over it: "at most one of the core's violations", a new variable
//! that guards a counted set, assumed in its place (and "at most two" once that one is in
//! a core, and so on). The first search that lets every assumption hold finds a labelling
//! whose count is the lower bound: the least.
//!
//! Why it is exact: a core's violations number at least one in every labelling, so their
//! number is one plus the number of its counters that a *tight* labelling (each guard true
//! exactly when its counted set is within bound) makes false. Summed over the cores, the
//! count is the lower bound plus the number of assumptions a tight labelling violates.
//! Hence the least count is the lower bound exactly when some labelling lets every
//! assumption hold, and then every labelling with the least count lets every assumption
//! hold (with its tight guards): [`Least::holds`] may be made to hold for good while that
//! count is pinned.
//!
//! Invariant: the learner is left with its guards and counted sets added (definitions,
//! true whatever the bounds) and the labelling found last readable.

use super::learn::{neg, Learner, Lit};
use crate::systems::spec::{Budget, Interrupted};
use std::collections::{HashMap, HashSet};

/// The least count and the assumptions that every labelling with that count satisfies.
pub(super) struct Least {
    pub cost: usize,
    pub holds: Vec<Lit>,
}

/// A counter: the violations it counts and its bound.
struct Counter {
    lits: Vec<Lit>,
    bound: usize,
}

/// The least number of true literals of `lits` over the learner's labellings (within
/// its bounds and accepted by `check`); `None` when there is no labelling at all. The
/// learner's labelling is one with that count.
pub(super) fn least(
    l: &mut Learner,
    lits: &[Lit],
    check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
    budget: &Budget,
) -> Result<Option<Least>, Interrupted> {
    let mut assume: Vec<Lit> = lits.iter().map(|&c| neg(c)).collect();
    // By guard (an assumed literal): its counter.
    let mut counters: HashMap<Lit, Counter> = HashMap::new();
    let mut lower = 0;
    loop {
        budget.check()?;
        let Some(core) = l.solve_assuming(budget, check, &assume)? else {
            return Ok(Some(Least {
                cost: lower,
                holds: assume,
            }));
        };
        if core.is_empty() {
            return Ok(None);
        }
        lower += 1;
        let core: HashSet<Lit> = core.into_iter().collect();
        assume.retain(|a| !core.contains(a));
        let mut core: Vec<Lit> = core.into_iter().collect();
        core.sort_unstable();
        for &a in &core {
            // A counter in the core: its next bound is assumed instead.
            if let Some(c) = counters.remove(&a) {
                if c.bound + 1 < c.lits.len() {
                    let g = guard(l, c.lits.clone(), c.bound + 1);
                    assume.push(g);
                    counters.insert(
                        g,
                        Counter {
                            lits: c.lits,
                            bound: c.bound + 1,
                        },
                    );
                }
            }
        }
        if core.len() > 1 {
            let violations: Vec<Lit> = core.iter().map(|&a| neg(a)).collect();
            let g = guard(l, violations.clone(), 1);
            assume.push(g);
            counters.insert(
                g,
                Counter {
                    lits: violations,
                    bound: 1,
                },
            );
        }
    }
}

/// A new guard (a variable) for "at most `bound` of `lits` are true"; its literal.
fn guard(l: &mut Learner, lits: Vec<Lit>, bound: usize) -> Lit {
    let g = super::learn::lit(l.add_var(true), true);
    l.add_counted(lits, bound, g);
    g
}

#[cfg(test)]
mod tests {
    use super::super::learn::lit;
    use super::super::learn::tests::{learner, models, random_clauses};
    use super::*;

    /// Worked by hand: the cut literals are x0..x4 true; x0, x1, x2 pairwise cannot all
    /// be false two at a time (each pair has a true one: at least two true) and one of
    /// x3, x4 is true. The least is 2 + 1 = 3.
    #[test]
    fn a_triangle_and_a_pair_cost_three() {
        let x = |v| lit(v, true);
        let clauses = vec![
            vec![x(0), x(1)],
            vec![x(1), x(2)],
            vec![x(0), x(2)],
            vec![x(3), x(4)],
        ];
        let budget = Budget::new();
        let mut l = learner(5, clauses, Vec::new(), vec![true; 5], &budget);
        let lits: Vec<Lit> = (0..5).map(x).collect();
        let found = least(&mut l, &lits, &mut |_| None, &budget)
            .unwrap()
            .expect("satisfiable");
        assert_eq!(found.cost, 3);
        assert_eq!((0..5).filter(|&v| l.is_true(v)).count(), 3);
    }

    /// Worked by hand: "every pair of n literals has a true one" means at most one is
    /// false, so the least count is n - 1. Beside it, the same over 3 literals (least 2):
    /// n + 1 in all. The counters must grow past their first bound (n - 1 cores meet).
    #[test]
    fn cliques_of_pairs_need_counters_to_grow() {
        for n in 2..=7 {
            let x = |v| lit(v, true);
            let mut clauses = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    clauses.push(vec![x(a), x(b)]);
                }
            }
            for (a, b) in [(n, n + 1), (n + 1, n + 2), (n, n + 2)] {
                clauses.push(vec![x(a), x(b)]);
            }
            let vars = n + 3;
            let budget = Budget::new();
            let mut l = learner(vars, clauses, Vec::new(), vec![false; vars], &budget);
            let lits: Vec<Lit> = (0..vars).map(x).collect();
            let found = least(&mut l, &lits, &mut |_| None, &budget)
                .unwrap()
                .expect("satisfiable");
            assert_eq!(found.cost, n + 1, "n = {n}");
            assert_eq!(
                (0..vars).filter(|&v| l.is_true(v)).count(),
                n + 1,
                "n = {n}"
            );
        }
    }

    /// Worked by hand: x0 or x1 or x2, and x3 or each of them. Assumed in order (x0, x1,
    /// x2, x3 false), the first core is the three-clause: "at most one of x0..x2" is
    /// assumed. Then x3 false forces all three: the second core is that counter with x3,
    /// and the counter grows to "at most two". The least is 2 (x3 and one of the three),
    /// whatever values are tried first; without the grown counter a labelling with x3
    /// false and all three true (count 3) would let every assumption left hold.
    #[test]
    fn a_counter_grows_past_its_first_bound() {
        let x = |v| lit(v, true);
        let clauses = vec![
            vec![x(0), x(1), x(2)],
            vec![x(0), x(3)],
            vec![x(1), x(3)],
            vec![x(2), x(3)],
        ];
        for phases in 0..16u32 {
            let budget = Budget::new();
            let mut l = learner(
                4,
                clauses.clone(),
                Vec::new(),
                (0..4).map(|v| phases >> v & 1 == 1).collect(),
                &budget,
            );
            let lits: Vec<Lit> = (0..4).map(x).collect();
            let found = least(&mut l, &lits, &mut |_| None, &budget)
                .unwrap()
                .expect("satisfiable");
            assert_eq!(found.cost, 2, "phases {phases:04b}");
            assert!(l.is_true(3), "phases {phases:04b}");
            assert_eq!(
                (0..3).filter(|&v| l.is_true(v)).count(),
                1,
                "phases {phases:04b}"
            );
        }
    }

    /// Against enumeration on random problems: the least count, and with the count pinned
    /// and [`Least::holds`] held, exactly the labellings with the least count remain
    /// (projected on the problem's variables).
    #[test]
    fn agrees_with_enumeration() {
        let vars = 10;
        for seed in 0..400 {
            let clauses = random_clauses(
                seed ^ 0x9e37_79b9_7f4a_7c15,
                vars,
                4 + (seed % 24) as usize,
                4,
            );
            let all = models(vars, &clauses);
            let lits: Vec<Lit> = (0..vars).map(|v| lit(v, seed % 2 == 0)).collect();
            let cost = |m: u32| {
                lits.iter()
                    .filter(|&&c| (m >> (c >> 1) & 1 == 1) == (c & 1 == 0))
                    .count()
            };
            let budget = Budget::new();
            let phase = (0..vars)
                .map(|v| (seed + v as u64).is_multiple_of(3))
                .collect();
            let mut l = learner(vars, clauses.clone(), vec![lits.clone()], phase, &budget);
            let found = least(&mut l, &lits, &mut |_| None, &budget).unwrap();
            let Some(found) = found else {
                assert!(all.is_empty(), "seed {seed}");
                continue;
            };
            let best = all.iter().map(|&m| cost(m)).min().expect("some labelling");
            assert_eq!(found.cost, best, "seed {seed}");
            assert_eq!(l.count(0), best, "seed {seed}");
            l.set_bounds(&[Some(best)]);
            l.hold(&found.holds);
            let mut seen = Vec::new();
            while l.solve(&budget, &mut |_| None).unwrap() {
                let m: u32 = (0..vars).filter(|&v| l.is_true(v)).map(|v| 1 << v).sum();
                seen.push(m);
                l.block((0..vars).map(|v| lit(v, !l.is_true(v))).collect(), &budget)
                    .unwrap();
            }
            seen.sort_unstable();
            seen.dedup();
            let want: Vec<u32> = all.into_iter().filter(|&m| cost(m) == best).collect();
            assert_eq!(seen, want, "seed {seed}");
        }
    }
}
