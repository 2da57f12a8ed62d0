//! Test-only helpers: tiny random CNFs and brute-force model lists.
//!
//! Invariant: brute force iterates over all `2^num_vars` assignments, so `num_vars` stays
//! small (at most 6 in the strategies here).

use proptest::prelude::*;

use super::solver::{Lit, Solver};

/// A CNF over variables `0..num_vars`; literals are `(variable, polarity)`.
#[derive(Debug, Clone)]
pub(crate) struct Cnf {
    pub(crate) num_vars: usize,
    pub(crate) clauses: Vec<Vec<(usize, bool)>>,
}

impl Cnf {
    /// Allocates one solver variable per CNF variable, adds the clauses and returns the
    /// positive literals.
    pub(crate) fn load(&self, solver: &mut Solver) -> Vec<Lit> {
        let vars: Vec<Lit> = (0..self.num_vars).map(|_| solver.new_lit()).collect();
        for clause in &self.clauses {
            let lits: Vec<Lit> = clause
                .iter()
                .map(|&(v, pos)| if pos { vars[v] } else { !vars[v] })
                .collect();
            solver.add_clause(&lits);
        }
        vars
    }
}

/// Every satisfying assignment, as a vector indexed by variable.
pub(crate) fn brute_force_models(cnf: &Cnf) -> Vec<Vec<bool>> {
    (0..1u32 << cnf.num_vars)
        .map(|mask| (0..cnf.num_vars).map(|v| mask >> v & 1 == 1).collect())
        .filter(|m: &Vec<bool>| {
            cnf.clauses
                .iter()
                .all(|c| c.iter().any(|&(v, pos)| m[v] == pos))
        })
        .collect()
}

/// A literal over variables `0..max_vars`.
pub(crate) fn lit_strategy(max_vars: usize) -> impl Strategy<Value = (usize, bool)> {
    (0..max_vars, any::<bool>())
}

/// A CNF with 1..=`max_vars` variables and up to `max_clauses` clauses of 1..=3 literals.
pub(crate) fn cnf_strategy(max_vars: usize, max_clauses: usize) -> impl Strategy<Value = Cnf> {
    (1..=max_vars).prop_flat_map(move |n| {
        prop::collection::vec(
            prop::collection::vec((0..n, any::<bool>()), 1..=3),
            0..=max_clauses,
        )
        .prop_map(move |clauses| Cnf {
            num_vars: n,
            clauses,
        })
    })
}

/// A formula, its priority levels (lists of literals) and base assumptions.
pub(crate) type LexProblem = (Cnf, Vec<Vec<(usize, bool)>>, Vec<(usize, bool)>);

/// A formula with priority levels and base assumptions, for the lexicographic optimisers'
/// property tests: `levels` lists of literals (each of length `level_len`) and a base of
/// length `base_len` (`None`: no base, and no draw for it), drawn over `0..max_vars` and
/// then kept to the formula's own variables.
pub(crate) fn lex_problem(
    max_vars: usize,
    max_clauses: usize,
    level_len: std::ops::Range<usize>,
    levels: std::ops::Range<usize>,
    base_len: Option<std::ops::Range<usize>>,
) -> impl Strategy<Value = LexProblem> {
    let base = match base_len {
        Some(len) => prop::collection::vec(lit_strategy(max_vars), len).boxed(),
        None => Just(Vec::new()).boxed(),
    };
    (
        cnf_strategy(max_vars, max_clauses),
        prop::collection::vec(
            prop::collection::vec(lit_strategy(max_vars), level_len),
            levels,
        ),
        base,
    )
        .prop_map(|(cnf, levels, base)| {
            let n = cnf.num_vars;
            let levels = levels
                .into_iter()
                .map(|lv| lv.into_iter().filter(|&(v, _)| v < n).collect())
                .collect();
            let base = base.into_iter().filter(|&(v, _)| v < n).collect();
            (cnf, levels, base)
        })
}
