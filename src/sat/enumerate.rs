//! Projected model enumeration.
//!
//! Owns: the enumeration loop and its blocking clauses.
//!
//! Invariants:
//! * every distinct assignment of the projection literals that extends to a model (under the
//!   given assumptions) is reported exactly once, until the enumeration ends;
//! * blocking clauses never leak into later queries: each one carries `!a` for a fresh
//!   activation literal `a` that is assumed only while its cube is enumerated, and the unit
//!   clause `!a` is added once the cube is done and on every exit path, retiring them;
//! * with [`enumerate_in_cubes`], at most `chunk` blocking clauses are active per cube: a
//!   cube that reaches that many models is split on the next projection literal and its
//!   remaining models are found in the two halves (its own blocking clauses still active),
//!   so the solver's clause database stays small over many thousands of models (varisat
//!   rescans every clause whenever it learns a top-level unit, which makes one long list of
//!   blocking clauses quadratic). [`enumerate_projected`] is one cube that never splits.

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

/// A chunk that never splits: [`enumerate_projected`]'s one cube with every blocking clause.
const CHUNK: usize = usize::MAX;

/// What is left to do in [`enumerate_projected`].
enum Task {
    /// Enumerate the models under these assumptions (the caller's, the cube's literals and
    /// the activation literals of the cubes it lies in), splitting on `projection[split]`
    /// once it has found a chunk of them.
    Cube { assumed: Vec<Lit>, split: usize },
    /// Retire a cube's blocking clauses: its halves are done.
    Retire(Lit),
}

/// Enumerates the distinct assignments of `projection` over all models satisfying
/// `assumptions`, passing each to `on_model` as the values of the projection literals (same
/// order, literal polarity respected).
///
/// Stops after `limit` models if given (`Some(0)` reports none), or when `on_model` breaks.
/// The solver's clauses are unchanged in effect afterwards (see the module invariants); a
/// fresh variable per cube and the retired clauses remain.
pub fn enumerate_projected(
    solver: &mut Solver,
    projection: &[Lit],
    assumptions: &[Lit],
    limit: Option<usize>,
    on_model: impl FnMut(&[bool]) -> ControlFlow<()>,
) -> Enumeration {
    enumerate_in_cubes(solver, projection, assumptions, limit, CHUNK, on_model)
}

/// [`enumerate_projected`], splitting a cube once it has `chunk` models. For an
/// enumeration of many thousands of models over a small formula, where varisat's rescans of
/// a long list of blocking clauses dominate: FF8's reachable states, 29.6 s for 22,853 of
/// them as one cube, 4.1 s in cubes of 4 (5.9 s with 2, 6.8 s with 32, 17.6 s with 256).
pub fn enumerate_in_cubes(
    solver: &mut Solver,
    projection: &[Lit],
    assumptions: &[Lit],
    limit: Option<usize>,
    chunk: usize,
    mut on_model: impl FnMut(&[bool]) -> ControlFlow<()>,
) -> Enumeration {
    let mut values = vec![false; projection.len()];
    let mut blocking = Vec::with_capacity(projection.len() + 1);
    let mut models = 0;
    let mut tasks = vec![Task::Cube {
        assumed: assumptions.to_vec(),
        split: 0,
    }];
    let end = 'all: loop {
        let (mut active, split) = match tasks.pop() {
            None => break EnumerationEnd::Complete,
            Some(Task::Retire(act)) => {
                solver.retire(act);
                continue;
            }
            Some(Task::Cube { assumed, split }) => (assumed, split),
        };
        let activation = solver.new_lit();
        active.push(activation);
        let mut found = 0;
        let end = loop {
            if limit.is_some_and(|limit| models >= limit) {
                break Some(EnumerationEnd::LimitReached);
            }
            match solver.solve(&active) {
                SatResult::Sat => {}
                SatResult::Unsat => break None,
                SatResult::Unknown => break Some(EnumerationEnd::Interrupted),
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
                break Some(EnumerationEnd::Stopped);
            }
            solver.add_clause(&blocking);
            found += 1;
            if found >= chunk && split < projection.len() {
                // The rest of this cube, in two halves on the next projection literal, with
                // this cube's blocking clauses active until both are done.
                let lit = projection[split];
                tasks.push(Task::Retire(activation));
                for half in [!lit, lit] {
                    let mut assumed = active.clone();
                    assumed.push(half);
                    tasks.push(Task::Cube {
                        assumed,
                        split: split + 1,
                    });
                }
                continue 'all;
            }
        };
        solver.retire(activation);
        if let Some(end) = end {
            // Retire every cube still waiting for its halves.
            for t in tasks.drain(..) {
                if let Task::Retire(act) = t {
                    solver.retire(act);
                }
            }
            break end;
        }
    };
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
        collect_in(s, projection, assumptions, limit, CHUNK)
    }

    fn collect_in(
        s: &mut Solver,
        projection: &[Lit],
        assumptions: &[Lit],
        limit: Option<usize>,
        chunk: usize,
    ) -> (Enumeration, Vec<Vec<bool>>) {
        let mut found = Vec::new();
        let e = enumerate_in_cubes(s, projection, assumptions, limit, chunk, |m| {
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
            for chunk in [CHUNK, 1, 2, 4] {
                // Again and again: a run's blocking clauses must not affect the next; with
                // chunks of 1 and 2 models, cubes are split down to single assignments.
                let (e, found) = collect_in(&mut s, &lits, &[], None, chunk);
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
    fn a_split_enumeration_stopped_early_leaves_nothing_behind() {
        // Chunks of one model: every cube is split, and the limit stops the run with cubes
        // still waiting for their halves; their blocking clauses must all be retired.
        let (mut s, v) = small();
        let (e, found) = collect_in(&mut s, &v, &[], Some(3), 1);
        assert_eq!((e.end, found.len()), (EnumerationEnd::LimitReached, 3));
        let (e, found) = collect_in(&mut s, &v, &[], None, 2);
        assert_eq!((e.end, e.models), (EnumerationEnd::Complete, 6));
        let distinct: BTreeSet<Vec<bool>> = found.into_iter().collect();
        assert_eq!(distinct.len(), 6);
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
