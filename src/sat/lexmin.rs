//! Lexicographic minimisation of cost counts.
//!
//! Owns: the level-by-level search for the lexicographically least vector of counts.
//!
//! Invariants:
//! * levels are processed in order (level 0 most important); a level's optimum is searched
//!   only under the pins fixing all earlier optima, so the result is the lexicographic
//!   minimum over all models of the clauses and base assumptions;
//! * nothing is added that removes models permanently: the totalizers only constrain through
//!   the returned pin literals, which the caller passes as assumptions;
//! * every model visited satisfies base assumptions and the pins found so far, so its counts
//!   on the remaining levels are valid upper bounds.

use super::card::Totalizer;
use super::solver::{Interrupted, Lit, SatResult, Solver};

/// The result of [`lexmin`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lexmin {
    /// The lexicographically least counts, one per level.
    pub counts: Vec<usize>,
    /// Assumption literals that, together with the base assumptions, admit exactly the
    /// models whose counts equal [`Lexmin::counts`]. The base assumptions are not included.
    pub pins: Vec<Lit>,
}

/// Finds the lexicographically least vector of counts of true literals per level over all
/// models satisfying `assumptions`.
///
/// Each literal in a level costs one unit when true (repeats count repeatedly). Returns
/// `Ok(None)` when there is no model under `assumptions`, and otherwise the optimal counts
/// (one per level) and the *pin* literals: passed as assumptions together with
/// `assumptions`, they admit exactly the models whose counts equal the optimum. The base
/// assumptions are not repeated in the pins. The solver's stored model after return is
/// unspecified; solve under `assumptions` plus pins to obtain an optimal model.
///
/// Cost: per level one totalizer (cap = count in the first model + 1), then descending
/// solves that jump to each better model's count, ending with one unsatisfiable call.
pub fn lexmin(
    solver: &mut Solver,
    levels: &[Vec<Lit>],
    assumptions: &[Lit],
) -> Result<Option<Lexmin>, Interrupted> {
    let mut active = assumptions.to_vec();
    match solver.solve(&active) {
        SatResult::Sat => {}
        SatResult::Unsat => return Ok(None),
        SatResult::Unknown => return Err(Interrupted),
    }
    let count = |solver: &Solver, level: &[Lit]| level.iter().filter(|&&l| solver.value(l)).count();
    // Counts of every level in the last model found (always a model of `active`).
    let mut model_counts: Vec<usize> = levels.iter().map(|lv| count(solver, lv)).collect();
    let mut optimum = Vec::with_capacity(levels.len());
    let mut pins = Vec::new();

    for (i, level) in levels.iter().enumerate() {
        let mut best = model_counts[i];
        let new_pins: Vec<Lit> = if best == 0 {
            // At most zero: every cost literal false, no totalizer needed.
            level.iter().map(|&l| !l).collect()
        } else {
            let tot = Totalizer::new(solver, level, best + 1);
            while best > 0 {
                // Invariant: best - 1 < best < cap and best <= n, so the bound is expressible
                // and constraining; the match arms below cannot be reached otherwise.
                let Ok(Some(bound)) = tot.at_most(best - 1) else {
                    unreachable!("bound below the first model's count fits the cap")
                };
                active.push(bound);
                let result = solver.solve(&active);
                active.pop();
                match result {
                    SatResult::Sat => {
                        model_counts = levels.iter().map(|lv| count(solver, lv)).collect();
                        // The totalizer guarantees progress; a violation would loop forever.
                        assert!(model_counts[i] < best, "totalizer bound not enforced");
                        best = model_counts[i];
                    }
                    SatResult::Unsat => break,
                    SatResult::Unknown => return Err(Interrupted),
                }
            }
            // `best` was the first model's count or lower, so it fits the cap of best + 1;
            // `None` only means the bound is trivial (best = n).
            tot.at_most(best).ok().flatten().into_iter().collect()
        };
        optimum.push(best);
        active.extend_from_slice(&new_pins);
        pins.extend(new_pins);
    }
    Ok(Some(Lexmin {
        counts: optimum,
        pins,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::test_util::{brute_force_models, lex_problem, Cnf};
    use crate::sat::{enumerate_projected, EnumerationEnd};
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::ops::ControlFlow;

    fn check(cnf: &Cnf, levels: &[Vec<(usize, bool)>], base: &[(usize, bool)]) {
        let mut s = Solver::new();
        let vars = cnf.load(&mut s);
        let to_lit = |&(v, pos): &(usize, bool)| if pos { vars[v] } else { !vars[v] };
        let lit_levels: Vec<Vec<Lit>> = levels
            .iter()
            .map(|lv| lv.iter().map(to_lit).collect())
            .collect();
        let base_lits: Vec<Lit> = base.iter().map(to_lit).collect();

        // Brute force: lexicographic minimum of count vectors (Vec's Ord is lexicographic).
        let holds = |m: &[bool], &(v, pos): &(usize, bool)| m[v] == pos;
        let counts = |m: &[bool]| -> Vec<usize> {
            levels
                .iter()
                .map(|lv| lv.iter().filter(|l| holds(m, l)).count())
                .collect()
        };
        let models: Vec<Vec<bool>> = brute_force_models(cnf)
            .into_iter()
            .filter(|m| base.iter().all(|l| holds(m, l)))
            .collect();
        let want = models.iter().map(|m| counts(m)).min();

        let got = lexmin(&mut s, &lit_levels, &base_lits).expect("no interrupt flag is set");
        let Some(Lexmin {
            counts: got_counts,
            pins,
        }) = got
        else {
            assert_eq!(want, None);
            return;
        };
        assert_eq!(Some(&got_counts), want.as_ref());

        // The pins admit exactly the optimal assignments of the problem variables.
        let optimal: BTreeSet<Vec<bool>> = models
            .into_iter()
            .filter(|m| counts(m) == got_counts)
            .collect();
        let mut assumptions = base_lits.clone();
        assumptions.extend(&pins);
        let mut found = BTreeSet::new();
        let end = enumerate_projected(&mut s, &vars, &assumptions, None, |m| {
            found.insert(m.to_vec());
            ControlFlow::Continue(())
        });
        assert_eq!(end.end, EnumerationEnd::Complete);
        assert_eq!(found, optimal);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_brute_force(
            (cnf, levels, base) in lex_problem(6, 8, 0..6, 0..4, Some(0..2)),
        ) {
            check(&cnf, &levels, &base);
        }
    }

    #[test]
    fn fixed_example() {
        // x0 ∨ x1, x1 ∨ x2. Level 0 costs {x1}, level 1 costs {x0, x2}.
        // x1 = false forces x0 = x2 = true: counts (0, 2), the only optimum.
        let cnf = Cnf {
            num_vars: 3,
            clauses: vec![vec![(0, true), (1, true)], vec![(1, true), (2, true)]],
        };
        check(&cnf, &[vec![(1, true)], vec![(0, true), (2, true)]], &[]);
        let mut s = Solver::new();
        let v = cnf.load(&mut s);
        let got = lexmin(&mut s, &[vec![v[1]], vec![v[0], v[2]]], &[]);
        assert_eq!(got.map(|r| r.map(|l| l.counts)), Ok(Some(vec![0, 2])));
        // Reversed priorities: x0 = x2 = false forces x1: counts (0, 1).
        let got = lexmin(&mut s, &[vec![v[0], v[2]], vec![v[1]]], &[]);
        assert_eq!(got.map(|r| r.map(|l| l.counts)), Ok(Some(vec![0, 1])));
        // Unsatisfiable base assumptions.
        let got = lexmin(&mut s, &[vec![v[1]]], &[!v[0], !v[1]]);
        assert_eq!(got, Ok(None));
    }

    #[test]
    fn interrupted() {
        let mut s = Solver::new();
        let x = s.new_lit();
        s.set_interrupt(std::sync::Arc::new(crate::cancel::Flag::raised()));
        assert_eq!(lexmin(&mut s, &[vec![x]], &[]), Err(Interrupted));
    }
}
