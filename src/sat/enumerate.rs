//! Projected model enumeration.
//!
//! Owns: the enumeration loop and its blocking clauses.
//!
//! Invariants:
//! * every distinct assignment of the projection literals that extends to a model (under the
//!   given assumptions) is reported exactly once, until the enumeration ends;
//! * blocking clauses never leak into later queries: each one carries `!a` for a fresh
//!   activation literal `a` that is assumed only during this enumeration, and the unit clause
//!   `!a` is added on every exit path, retiring them all.

use std::ops::ControlFlow;

use super::solver::{Lit, SatResult, Solver};

/// Why an enumeration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnumerationEnd {
    /// Every projected model was reported.
    Complete,
    /// The callback returned [`ControlFlow::Break`].
    Stopped,
    /// The model limit was reached (more projected models may or may not exist).
    LimitReached,
    /// A solve returned [`SatResult::Unknown`] (cancelled); the report may be partial.
    Interrupted,
}

/// Summary of one [`enumerate_projected`] run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Enumeration {
    /// Why the enumeration ended.
    pub end: EnumerationEnd,
    /// Number of projected models passed to the callback.
    pub models: usize,
}

/// Enumerates the distinct assignments of `projection` over all models satisfying
/// `assumptions`, passing each to `on_model` as the values of the projection literals (same
/// order, literal polarity respected).
///
/// Stops after `limit` models if given (`Some(0)` reports none), or when `on_model` breaks.
/// The solver's clauses are unchanged in effect afterwards (see the module invariants); one
/// fresh variable and a few retired clauses remain.
pub fn enumerate_projected(
    solver: &mut Solver,
    projection: &[Lit],
    assumptions: &[Lit],
    limit: Option<usize>,
    mut on_model: impl FnMut(&[bool]) -> ControlFlow<()>,
) -> Enumeration {
    let activation = solver.new_lit();
    let mut active = assumptions.to_vec();
    active.push(activation);
    let mut values = vec![false; projection.len()];
    let mut blocking = Vec::with_capacity(projection.len() + 1);
    let mut models = 0;

    let end = loop {
        if limit.is_some_and(|limit| models >= limit) {
            break EnumerationEnd::LimitReached;
        }
        match solver.solve(&active) {
            SatResult::Sat => {}
            SatResult::Unsat => break EnumerationEnd::Complete,
            SatResult::Unknown => break EnumerationEnd::Interrupted,
        }
        blocking.clear();
        blocking.push(!activation);
        for (value, &lit) in values.iter_mut().zip(projection) {
            *value = solver.value(lit);
            // The literal that is false in this model; all of them false cannot be a
            // tautology, even if the projection holds a literal and its negation.
            blocking.push(if *value { !lit } else { lit });
        }
        models += 1;
        if on_model(&values).is_break() {
            break EnumerationEnd::Stopped;
        }
        solver.add_clause(&blocking);
    };
    solver.add_clause(&[!activation]);
    Enumeration { end, models }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::test_util::{brute_force_models, cnf_strategy, Cnf};
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::sync::Arc;

    fn collect(
        s: &mut Solver,
        projection: &[Lit],
        assumptions: &[Lit],
        limit: Option<usize>,
    ) -> (Enumeration, Vec<Vec<bool>>) {
        let mut found = Vec::new();
        let e = enumerate_projected(s, projection, assumptions, limit, |m| {
            found.push(m.to_vec());
            ControlFlow::Continue(())
        });
        (e, found)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_brute_force(
            cnf in cnf_strategy(6, 10),
            proj in prop::collection::vec((0..6usize, any::<bool>()), 0..5),
        ) {
            let proj: Vec<(usize, bool)> =
                proj.into_iter().filter(|&(v, _)| v < cnf.num_vars).collect();
            let want: BTreeSet<Vec<bool>> = brute_force_models(&cnf)
                .iter()
                .map(|m| proj.iter().map(|&(v, pos)| m[v] == pos).collect())
                .collect();
            let mut s = Solver::new();
            let vars = cnf.load(&mut s);
            let lits: Vec<Lit> =
                proj.iter().map(|&(v, pos)| if pos { vars[v] } else { !vars[v] }).collect();
            for _ in 0..2 {
                // Twice: the first run's blocking clauses must not affect the second.
                let (e, found) = collect(&mut s, &lits, &[], None);
                prop_assert_eq!(e.end, EnumerationEnd::Complete);
                prop_assert_eq!(e.models, found.len());
                let set: BTreeSet<Vec<bool>> = found.iter().cloned().collect();
                prop_assert_eq!(set.len(), found.len(), "duplicate projection");
                prop_assert_eq!(&set, &want);
            }
        }
    }

    /// (x0 ∨ x1) with x2 free: 3 × 2 = 6 models.
    fn small() -> (Solver, Vec<Lit>) {
        let cnf = Cnf {
            num_vars: 3,
            clauses: vec![vec![(0, true), (1, true)]],
        };
        let mut s = Solver::new();
        let vars = cnf.load(&mut s);
        (s, vars)
    }

    #[test]
    fn limit_stop_and_assumptions() {
        let (mut s, v) = small();
        let (e, found) = collect(&mut s, &v, &[], Some(4));
        assert_eq!(
            (e.end, e.models, found.len()),
            (EnumerationEnd::LimitReached, 4, 4)
        );
        let (e, _) = collect(&mut s, &v, &[], Some(0));
        assert_eq!((e.end, e.models), (EnumerationEnd::LimitReached, 0));
        let (e, _) = collect(&mut s, &v, &[], Some(6));
        assert_eq!((e.end, e.models), (EnumerationEnd::LimitReached, 6));
        let (e, _) = collect(&mut s, &v, &[], None);
        assert_eq!((e.end, e.models), (EnumerationEnd::Complete, 6));

        let mut seen = 0;
        let e = enumerate_projected(&mut s, &v, &[], None, |_| {
            seen += 1;
            if seen == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!((e.end, e.models), (EnumerationEnd::Stopped, 2));

        // Under !x0: x1 forced, x2 free → 2 models; projecting on x0, x1 only → 1.
        let (e, found) = collect(&mut s, &v, &[!v[0]], None);
        assert_eq!((e.end, e.models), (EnumerationEnd::Complete, 2));
        assert!(found.iter().all(|m| !m[0] && m[1]));
        let (e, found) = collect(&mut s, &v[..2], &[!v[0]], None);
        assert_eq!(
            (e.end, found),
            (EnumerationEnd::Complete, vec![vec![false, true]])
        );
        // Empty projection of a satisfiable formula: one (empty) projected model.
        let (e, found) = collect(&mut s, &[], &[], None);
        assert_eq!((e.end, found), (EnumerationEnd::Complete, vec![vec![]]));
        // A literal and its negation in the projection: still terminates, 2 values of x2.
        let (e, found) = collect(&mut s, &[v[2], !v[2]], &[], None);
        assert_eq!(e.end, EnumerationEnd::Complete);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|m| m[0] != m[1]));
        // Unsatisfiable assumptions: nothing.
        let (e, found) = collect(&mut s, &v, &[!v[0], !v[1]], None);
        assert_eq!((e.end, found.len()), (EnumerationEnd::Complete, 0));
    }

    #[test]
    fn interrupted() {
        let (mut s, v) = small();
        let flag = Arc::new(crate::cancel::Flag::raised());
        s.set_interrupt(flag.clone());
        let (e, found) = collect(&mut s, &v, &[], None);
        assert_eq!((e.end, found.len()), (EnumerationEnd::Interrupted, 0));
        flag.lower();
        let (e, _) = collect(&mut s, &v, &[], None);
        assert_eq!((e.end, e.models), (EnumerationEnd::Complete, 6));
    }
}
