//! Unit propagation to a fixpoint over clauses of any literal type: the values that hold
//! in every labelling with some values given. Both ?AR engines read what every optimal
//! labelling shares, and how a part falls apart, from it (each with its own literals:
//! the learner's and the SAT solver's).
//!
//! Invariant: a value is only ever added, never changed: a clause whose literals are all
//! false is left as it is (the caller's values are assumed consistent). Polls the budget.
//! Knows nothing about games.

use crate::systems::spec::{Budget, Interrupted};

/// Propagates the values in `val` (by variable) through `clauses`, where `lit` reads a
/// literal as (variable, the value that makes it true), until no clause has a single
/// open literal left with the others false.
pub fn propagate<L: Copy>(
    clauses: &[Vec<L>],
    val: &mut [Option<bool>],
    lit: impl Fn(L) -> (usize, bool),
    budget: &Budget,
) -> Result<(), Interrupted> {
    let mut occurs: Vec<Vec<u32>> = vec![Vec::new(); val.len()];
    for (c, lits) in clauses.iter().enumerate() {
        for &l in lits {
            occurs[lit(l).0].push(c as u32);
        }
    }
    let mut queue: Vec<usize> = (0..val.len()).filter(|&v| val[v].is_some()).collect();
    // A clause is looked at when one of its variables gets a value; once satisfied (or
    // propagated) it is never looked at again.
    let mut done = vec![false; clauses.len()];
    let mut steps = 0usize;
    while let Some(v) = queue.pop() {
        for &c in &occurs[v] {
            let c = c as usize;
            if done[c] {
                continue;
            }
            steps += 1;
            if steps.is_multiple_of(4096) {
                budget.check()?;
            }
            let mut unassigned = None;
            let mut open = 0;
            let mut sat = false;
            for &l in &clauses[c] {
                let (x, positive) = lit(l);
                match val[x] {
                    Some(value) if value == positive => {
                        sat = true;
                        break;
                    }
                    Some(_) => {}
                    None => {
                        open += 1;
                        unassigned = Some((x, positive));
                    }
                }
            }
            if sat {
                done[c] = true;
            } else if open == 1 {
                let (x, positive) = unassigned.expect("one open literal");
                val[x] = Some(positive);
                done[c] = true;
                queue.push(x);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand, literals as (variable, value): a -> b, b -> c, (not c or d or e),
    /// (not a or not f). Given a: b, c, not f follow; d and e stay open (two of them).
    /// Given nothing: nothing follows.
    #[test]
    fn a_chain_follows_and_a_choice_does_not() {
        let (a, b, c, d, e, f) = (0, 1, 2, 3, 4, 5);
        let clauses = vec![
            vec![(a, false), (b, true)],
            vec![(b, false), (c, true)],
            vec![(c, false), (d, true), (e, true)],
            vec![(a, false), (f, false)],
        ];
        let budget = Budget::new();
        let mut val = vec![None; 6];
        val[a] = Some(true);
        propagate(&clauses, &mut val, |l| l, &budget).unwrap();
        assert_eq!(
            val,
            [Some(true), Some(true), Some(true), None, None, Some(false)]
        );
        let mut none = vec![None; 6];
        propagate(&clauses, &mut none, |l| l, &budget).unwrap();
        assert_eq!(none, [None; 6]);
    }
}
