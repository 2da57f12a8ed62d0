//! The one constant-folding circuit builder the encoders build their gates with: AND, OR
//! and if-then-else over a [`Solver`], folding the constant literals
//! ([`Solver::true_lit`], its negation), repeated inputs and complementary inputs, so that
//! no variable is made for a gate whose value is a constant or one of its inputs; and
//! clauses with constants dropped.
//!
//! The inputs a gate keeps are passed on to [`Solver::and`] in an [`Inputs`]: the order of
//! a gate's clauses' literals, hence of the DIMACS printed and of the solver's search, is
//! each encoder's choice (and part of its output).
//!
//! Invariants: a folded gate is equivalent to the unfolded one in every model; a gate
//! creates at most one variable; knows nothing about games.

use super::solver::{Lit, Solver};

/// The order of the inputs an AND gate keeps (after folding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// As given (first occurrences).
    Given,
    /// By the literal's code (a variable's two literals side by side).
    Code,
    /// By the literal's DIMACS number (negative literals first).
    Dimacs,
    /// As given, and complementary inputs not folded (a gate is made for `x ∧ ¬x`):
    /// ?AR's encoding, whose DIMACS `gordian dimacs` prints, was written so.
    GivenComplementsKept,
}

impl Solver {
    /// A literal equivalent to the conjunction of `lits`: true for none left, the literal
    /// itself for one left, false for a false input or two complementary ones (unless
    /// [`Inputs::GivenComplementsKept`]), else a
    /// [`Solver::and`] gate over the inputs left (each once, in `order`).
    pub fn fold_and(&mut self, lits: &[Lit], order: Inputs) -> Lit {
        let t = self.true_lit();
        let mut v: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            if l == t || v.contains(&l) {
                continue;
            }
            if l == !t || (order != Inputs::GivenComplementsKept && v.contains(&!l)) {
                return !t;
            }
            v.push(l);
        }
        match order {
            Inputs::Given | Inputs::GivenComplementsKept => {}
            Inputs::Code => v.sort_unstable(),
            Inputs::Dimacs => v.sort_unstable_by_key(|l| l.to_dimacs()),
        }
        self.and(&v)
    }

    /// A literal equivalent to the disjunction of `lits` (the negation of
    /// [`Solver::fold_and`] of the negations).
    pub fn fold_or(&mut self, lits: &[Lit], order: Inputs) -> Lit {
        let negated: Vec<Lit> = lits.iter().map(|&l| !l).collect();
        !self.fold_and(&negated, order)
    }

    /// A literal equivalent to `if c then a else b`: folded to an input, an AND or an OR
    /// (inputs as given) when the condition or a branch is constant or the branches are
    /// equal; else a fresh variable with the six clauses of the multiplexer (the last two
    /// redundant, for propagation).
    pub fn fold_ite(&mut self, c: Lit, a: Lit, b: Lit) -> Lit {
        let t = self.true_lit();
        if c == t || a == b {
            return a;
        }
        if c == !t {
            return b;
        }
        if a == t {
            return self.fold_or(&[c, b], Inputs::Given);
        }
        if a == !t {
            return self.fold_and(&[!c, b], Inputs::Given);
        }
        if b == t {
            return self.fold_or(&[!c, a], Inputs::Given);
        }
        if b == !t {
            return self.fold_and(&[c, a], Inputs::Given);
        }
        let x = self.new_lit();
        self.add_clause(&[!c, !a, x]);
        self.add_clause(&[!c, a, !x]);
        self.add_clause(&[c, !b, x]);
        self.add_clause(&[c, b, !x]);
        self.add_clause(&[!a, !b, x]);
        self.add_clause(&[a, b, !x]);
        x
    }

    /// Adds the clause `lits` with its false literals dropped; a clause holding the true
    /// literal is satisfied and not added.
    pub fn fold_clause(&mut self, lits: &[Lit]) {
        let t = self.true_lit();
        if lits.contains(&t) {
            return;
        }
        let v: Vec<Lit> = lits.iter().copied().filter(|&l| l != !t).collect();
        self.add_clause(&v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sat::SatResult;

    /// Whether `out` equals `f` of the inputs in every assignment of them (each assignment
    /// forced by assumptions, `out` read from the model).
    fn agrees(s: &mut Solver, ins: &[Lit], out: Lit, f: impl Fn(&[bool]) -> bool) -> bool {
        (0..1u32 << ins.len()).all(|m| {
            let bits: Vec<bool> = (0..ins.len()).map(|i| m >> i & 1 == 1).collect();
            let assume: Vec<Lit> = ins
                .iter()
                .zip(&bits)
                .map(|(&l, &b)| if b { l } else { !l })
                .collect();
            let want = f(&bits);
            let forced = [if want { !out } else { out }];
            // The inputs fixed, the opposite value of `out` is impossible.
            matches!(
                s.solve(&[assume.as_slice(), &forced].concat()),
                SatResult::Unsat
            )
        })
    }

    #[test]
    fn constants_repeats_and_complements_fold_without_a_variable() {
        let mut s = Solver::new();
        let (t, x, y) = (s.true_lit(), s.new_lit(), s.new_lit());
        let vars = s.num_vars();
        assert_eq!(s.fold_and(&[], Inputs::Given), t);
        assert_eq!(s.fold_and(&[t, x, x], Inputs::Given), x);
        assert_eq!(s.fold_and(&[x, y, !x], Inputs::Dimacs), !t);
        assert_eq!(s.fold_and(&[x, !t], Inputs::Code), !t);
        assert_eq!(s.fold_or(&[x, !t], Inputs::Given), x);
        assert_eq!(s.fold_or(&[y, !y], Inputs::Given), t);
        assert_eq!(s.fold_and(&[x, !t], Inputs::GivenComplementsKept), !t);
        assert_eq!(s.fold_ite(t, x, y), x);
        assert_eq!(s.fold_ite(!t, x, y), y);
        assert_eq!(s.fold_ite(x, y, y), y);
        assert_eq!(s.fold_ite(x, t, !t), x);
        assert_eq!(s.fold_ite(x, !t, t), !x);
        assert_eq!(s.num_vars(), vars, "no variable for a folded gate");
    }

    #[test]
    fn gates_have_their_truth_tables() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_lit(), s.new_lit(), s.new_lit());
        let t = s.true_lit();
        for order in [
            Inputs::Given,
            Inputs::Code,
            Inputs::Dimacs,
            Inputs::GivenComplementsKept,
        ] {
            let g = s.fold_and(&[c, !a, t, b], order);
            assert!(agrees(&mut s, &[a, b, c], g, |v| !v[0] && v[1] && v[2]));
            let g = s.fold_or(&[a, !b, !t], order);
            assert!(agrees(&mut s, &[a, b], g, |v| v[0] || !v[1]));
        }
        let g = s.fold_ite(a, b, c);
        assert!(agrees(&mut s, &[a, b, c], g, |v| if v[0] {
            v[1]
        } else {
            v[2]
        }));
        let g = s.fold_ite(a, t, c);
        assert!(agrees(&mut s, &[a, c], g, |v| v[0] || v[1]));
        let g = s.fold_ite(a, b, !t);
        assert!(agrees(&mut s, &[a, b], g, |v| v[0] && v[1]));
    }

    #[test]
    fn a_clause_drops_false_literals_and_a_satisfied_one_is_not_added() {
        let mut s = Solver::new();
        let (t, x) = (s.true_lit(), s.new_lit());
        s.fold_clause(&[x, !t]);
        assert!(
            matches!(s.solve(&[!x]), SatResult::Unsat),
            "the clause is (x)"
        );
        let mut s = Solver::new();
        let (t, x) = (s.true_lit(), s.new_lit());
        s.fold_clause(&[!x, t]);
        assert!(matches!(s.solve(&[x]), SatResult::Sat), "nothing was added");
    }
}
