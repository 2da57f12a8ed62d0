//! Cardinality constraints: a totalizer with outputs truncated at a cap.
//!
//! Owns: the totalizer tree clauses and the mapping from "at most k" bounds to assumption
//! literals.
//!
//! Invariants:
//! * outputs are `o_1..o_m` with `m = min(cap, n)`; in every model with at least `k` true
//!   inputs (`k <= m`), `o_k` is true. Only this upward direction is encoded, so an output may
//!   be true spuriously; that is harmless for upper bounds, which assume outputs *false*;
//! * no clause is permanent in the sense of restricting the inputs: a totalizer alone never
//!   removes a model of the inputs, only [`Totalizer::at_most`] assumptions do;
//! * clause count is O(n * cap): every node's outputs are truncated at the cap and only
//!   pairs of child counts summing to at most the cap get a clause.

use super::solver::{Lit, Solver};

/// Error for a bound the totalizer cannot express because its cap is too small.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("bound at most {bound} needs a totalizer cap above {bound}, but the cap is {cap}")]
pub struct CapTooSmall {
    /// The requested upper bound.
    pub bound: usize,
    /// The cap the totalizer was built with.
    pub cap: usize,
}

/// A totalizer over a list of literals ("unary counter"), truncated at a cap.
#[derive(Debug, Clone)]
pub struct Totalizer {
    outputs: Vec<Lit>,
    num_inputs: usize,
    cap: usize,
}

impl Totalizer {
    /// Encodes a totalizer over `lits` whose outputs `o_1..o_min(cap, n)` satisfy: at least
    /// `k` inputs true ⇒ `o_k` true. Duplicate literals count once per occurrence.
    pub fn new(solver: &mut Solver, lits: &[Lit], cap: usize) -> Self {
        let outputs = if cap == 0 {
            Vec::new()
        } else {
            build(solver, lits, cap)
        };
        Totalizer {
            outputs,
            num_inputs: lits.len(),
            cap,
        }
    }

    /// The outputs `o_1..o_min(cap, n)` (index `k - 1` holds `o_k`).
    #[cfg(test)]
    pub fn outputs(&self) -> &[Lit] {
        &self.outputs
    }

    /// An assumption literal (`!o_{k+1}`) enforcing that at most `k` inputs are true.
    ///
    /// `Ok(None)` when `k >= n` (no constraint needed); `Err` when `cap <= k < n`, i.e. the
    /// totalizer was built with too small a cap to express the bound.
    pub fn at_most(&self, k: usize) -> Result<Option<Lit>, CapTooSmall> {
        if k >= self.num_inputs {
            Ok(None)
        } else {
            self.outputs.get(k).map(|&o| Some(!o)).ok_or(CapTooSmall {
                bound: k,
                cap: self.cap,
            })
        }
    }
}

/// Builds the (sub)tree over `lits` (non-empty unless at the root) and returns its outputs,
/// truncated at `cap >= 1`.
fn build(solver: &mut Solver, lits: &[Lit], cap: usize) -> Vec<Lit> {
    match lits {
        [] => Vec::new(),
        [single] => vec![*single],
        _ => {
            let (left, right) = lits.split_at(lits.len() / 2);
            let a = build(solver, left, cap);
            let b = build(solver, right, cap);
            let width = cap.min(lits.len());
            let out: Vec<Lit> = (0..width).map(|_| solver.new_lit()).collect();
            // a_i ∧ b_j ⇒ o_{i+j}, with a_0 = b_0 = true omitted. Sums above the cap need no
            // clause: the child outputs below them are forced too and already reach o_cap.
            for i in 0..=a.len() {
                for j in 0..=b.len() {
                    let sum = i + j;
                    if sum == 0 || sum > width {
                        continue;
                    }
                    let premises: Vec<Lit> = i
                        .checked_sub(1)
                        .map(|i| a[i])
                        .into_iter()
                        .chain(j.checked_sub(1).map(|j| b[j]))
                        .collect();
                    solver.implies_clause(&premises, &[out[sum - 1]]);
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::SatResult;

    /// For every input assignment (given directly as assumptions) and every bound `k`,
    /// `at_most(k)` must be satisfiable iff the number of true inputs is at most `k`.
    #[test]
    fn at_most_exhaustive() {
        for n in 0..=6usize {
            for cap in 0..=n + 1 {
                let mut s = Solver::new();
                // Inputs alternate polarity so negated inputs are exercised.
                let vars: Vec<Lit> = (0..n).map(|_| s.new_lit()).collect();
                let inputs: Vec<Lit> = vars
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| if i % 3 == 1 { !v } else { v })
                    .collect();
                let tot = Totalizer::new(&mut s, &inputs, cap);
                assert_eq!(tot.outputs().len(), cap.min(n));
                for k in 0..=n + 1 {
                    let bound = match tot.at_most(k) {
                        Ok(None) => {
                            assert!(k >= n);
                            continue;
                        }
                        Err(e) => {
                            assert!(k < n && k >= cap, "n={n} cap={cap} k={k}");
                            assert_eq!(e, CapTooSmall { bound: k, cap });
                            continue;
                        }
                        Ok(Some(lit)) => {
                            assert!(k < n && k < cap);
                            lit
                        }
                    };
                    for mask in 0..(1u32 << n) {
                        let m = mask.count_ones() as usize;
                        let mut assumptions: Vec<Lit> = inputs
                            .iter()
                            .enumerate()
                            .map(|(i, &l)| if mask >> i & 1 == 1 { l } else { !l })
                            .collect();
                        assumptions.push(bound);
                        let want = if m <= k {
                            SatResult::Sat
                        } else {
                            SatResult::Unsat
                        };
                        assert_eq!(
                            s.solve(&assumptions),
                            want,
                            "n={n} cap={cap} k={k} mask={mask:b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn duplicates_count_per_occurrence() {
        let mut s = Solver::new();
        let x = s.new_lit();
        let tot = Totalizer::new(&mut s, &[x, x, x], 3);
        let at_most_two = tot.at_most(2).ok().flatten();
        assert!(at_most_two.is_some());
        let mut assumptions: Vec<Lit> = at_most_two.into_iter().collect();
        assert_eq!(s.solve(&assumptions), SatResult::Sat);
        assert!(!s.value(x));
        assumptions.push(x);
        assert_eq!(s.solve(&assumptions), SatResult::Unsat);
    }

    /// Size bound from the O(n * cap) analysis: for n = 1024 and cap = 8 the clause count
    /// by level is 1536 + 2048 + 3072 + 2816 + 2772 = 12244 (counted by hand), far below
    /// 2 * n * cap = 16384, while an untruncated totalizer would need ~n²/4 at the root alone.
    #[test]
    fn clause_count_is_linear_in_n_times_cap() {
        let mut s = Solver::new();
        let n = 1024;
        let cap = 8;
        let inputs: Vec<Lit> = (0..n).map(|_| s.new_lit()).collect();
        let before = s.num_clauses();
        let _tot = Totalizer::new(&mut s, &inputs, cap);
        assert_eq!(s.num_clauses() - before, 12244);
    }
}
