//! The backbone of a formula under assumptions: the candidate literals whose value is the
//! same in every model.
//!
//! Owns: the search that starts from one model and asks, again and again, for a model
//! that flips at least one remaining candidate (one activation-guarded clause per ask,
//! retired after it), dropping every candidate a found model flips, until no model flips
//! any.
//!
//! Invariants: the solver's models of the caller's variables are unchanged afterwards
//! (each ask's clause is guarded by a fresh activation literal and retired); a candidate
//! reported fixed has that value in every model of the assumptions, and one reported free
//! takes both values in some models.

use super::solver::{Interrupted, Lit, SatResult, Solver};

/// The backbone over `candidates` of the models of `assumptions`: for each candidate its
/// value in every model, or `None` when it varies; with one model (the first found, its
/// values of the candidates). `Ok(None)` when there is no model.
#[allow(clippy::type_complexity)]
pub fn backbone(
    solver: &mut Solver,
    candidates: &[Lit],
    assumptions: &[Lit],
) -> Result<Option<(Vec<Option<bool>>, Vec<bool>)>, Interrupted> {
    match solver.solve(assumptions) {
        SatResult::Sat => {}
        SatResult::Unsat => return Ok(None),
        SatResult::Unknown => return Err(Interrupted),
    }
    let model: Vec<bool> = candidates.iter().map(|&l| solver.value(l)).collect();
    let mut b: Vec<Option<bool>> = model.iter().map(|&v| Some(v)).collect();
    let mut active = assumptions.to_vec();
    loop {
        let act = solver.new_lit();
        let mut clause = vec![!act];
        clause.extend(
            candidates
                .iter()
                .zip(&b)
                .filter_map(|(&l, v)| v.map(|v| if v { !l } else { l })),
        );
        if clause.len() == 1 {
            solver.add_clause(&[!act]);
            break;
        }
        solver.add_clause(&clause);
        active.push(act);
        let result = solver.solve(&active);
        active.pop();
        solver.add_clause(&[!act]);
        match result {
            SatResult::Sat => {
                for (v, &l) in b.iter_mut().zip(candidates) {
                    if v.is_some_and(|x| x != solver.value(l)) {
                        *v = None;
                    }
                }
            }
            SatResult::Unsat => break,
            SatResult::Unknown => return Err(Interrupted),
        }
    }
    Ok(Some((b, model)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::test_util::{brute_force_models, cnf_strategy, lit_strategy};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_brute_force(
            cnf in cnf_strategy(6, 10),
            base in prop::collection::vec(lit_strategy(6), 0..2),
        ) {
            let mut s = Solver::new();
            let vars = cnf.load(&mut s);
            let base: Vec<(usize, bool)> =
                base.into_iter().filter(|&(v, _)| v < cnf.num_vars).collect();
            let models: Vec<Vec<bool>> = brute_force_models(&cnf)
                .into_iter()
                .filter(|m| base.iter().all(|&(v, pos)| m[v] == pos))
                .collect();
            let assumptions: Vec<Lit> =
                base.iter().map(|&(v, pos)| if pos { vars[v] } else { !vars[v] }).collect();
            let got = backbone(&mut s, &vars, &assumptions).unwrap();
            match got {
                None => prop_assert!(models.is_empty()),
                Some((b, model)) => {
                    prop_assert!(models.contains(&model));
                    let want: Vec<Option<bool>> = (0..cnf.num_vars)
                        .map(|v| {
                            let x = models[0][v];
                            models.iter().all(|m| m[v] == x).then_some(x)
                        })
                        .collect();
                    prop_assert_eq!(b, want);
                    // Still the same models afterwards.
                    prop_assert_eq!(
                        s.solve(&assumptions) == SatResult::Sat,
                        !models.is_empty()
                    );
                }
            }
        }
    }
}
