//! A thin incremental wrapper around `varisat::Solver`.
//!
//! Owns: variable allocation, clause addition (with a verbatim copy of every clause for
//! DIMACS export), solving under assumptions with a three-valued result, the last model, the
//! cooperative cancellation flag and small Tseitin helpers.
//!
//! Invariants:
//! * every variable is allocated through this wrapper, so `num_vars` is exactly the number of
//!   variables varisat knows about (literals of unknown variables are still accepted: they
//!   grow the count instead of desynchronising it);
//! * variable 0 is the constant-true variable, pinned by a unit clause at construction, so a
//!   fresh solver already has one variable and one clause;
//! * the stored model is the model of the *last* `solve` call if that call returned
//!   [`SatResult::Sat`], and is empty otherwise;
//! * assumptions only live for one `solve` call and never appear in the clause copy;
//! * a core of unsatisfiable assumptions ([`Solver::solve_core`]) is checked before it is
//!   returned (varisat's own can be wrong).

use crate::cancel::Flag;
use std::fmt;
use std::sync::{Arc, Mutex};

use varisat::ExtendFormula;

pub use varisat::{Lit, Var};

/// Outcome of one [`Solver::solve`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SatResult {
    /// The clauses together with the assumptions have a model.
    Sat,
    /// The clauses together with the assumptions have no model.
    Unsat,
    /// No answer: the solve was cancelled or the backend reported an error.
    Unknown,
}

/// Outcome of one [`Solver::solve_core`] call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreResult {
    /// The clauses together with the assumptions have a model (stored as after `solve`).
    Sat,
    /// No model: a subset of the assumptions already unsatisfiable with the clauses.
    Unsat(Vec<Lit>),
    /// No answer: the solve was cancelled or the backend reported an error.
    Unknown,
}

/// Error returned by multi-call procedures when a solve ended in [`SatResult::Unknown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("SAT solving was interrupted before an answer was found")]
pub struct Interrupted;

/// An incremental SAT solver that remembers its clauses and its last model.
pub struct Solver {
    inner: varisat::Solver<'static>,
    num_vars: usize,
    /// All clause literals, concatenated.
    clause_lits: Vec<Lit>,
    /// End offset in `clause_lits` of each clause.
    clause_ends: Vec<usize>,
    /// Model of the last successful solve, indexed by variable index.
    model: Vec<bool>,
    true_lit: Lit,
    interrupt: Option<Arc<Flag>>,
    /// The flag the running search polls (through [`Tripwire`]); the same flag as
    /// `interrupt` once one is installed.
    tripwire: Arc<Mutex<Option<Arc<Flag>>>>,
    /// Set once varisat reported an error (an interrupted search among them): varisat
    /// refuses every later solve then, so this wrapper answers [`SatResult::Unknown`].
    dead: bool,
    /// Whether [`Solver::retire`] hides variables ([`Solver::hide_retired`]).
    hide: bool,
    /// Variables [`Solver::retire`]d and not yet hidden from varisat (a variable among the
    /// last solve's assumptions cannot be hidden until the next solve replaces them).
    retired: Vec<Var>,
}

/// The write end of varisat's proof output, used as a cancellation hook: varisat 0.2 has
/// no interrupt, but it stops a running search at the first failed proof write. The proof
/// (varisat's own format, the one that allows assumptions; never stored) is buffered by varisat and handed here a few kilobytes at a
/// time, every few hundred conflicts at most; each hand-over polls the flag, and a raised
/// flag fails the write, which ends the search with an error (read as
/// [`SatResult::Unknown`]).
struct Tripwire(Arc<Mutex<Option<Arc<Flag>>>>);

impl std::io::Write for Tripwire {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let flag = self.0.lock().map(|slot| slot.clone()).ok().flatten();
        if flag.is_some_and(|flag| flag.is_raised_now()) {
            return Err(std::io::Error::other("cancelled"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Default for Solver {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("num_vars", &self.num_vars)
            .field("num_clauses", &self.num_clauses())
            .field("has_model", &!self.model.is_empty())
            .finish_non_exhaustive()
    }
}

impl Solver {
    /// Creates a solver holding only the constant-true variable.
    pub fn new() -> Self {
        Self::with_hook(true)
    }

    /// A solver for many short solves (each group of a factored enumeration: thousands of
    /// solves of microseconds each), without [`Tripwire`]: varisat then writes no proof,
    /// which costs about a twentieth of each such solve. A raised flag is seen before each
    /// solve ([`Solver::solve`] polls it), not inside one.
    pub fn for_short_solves() -> Self {
        Self::with_hook(false)
    }

    fn with_hook(hook: bool) -> Self {
        let mut inner = varisat::Solver::new();
        let tripwire = Arc::new(Mutex::new(None));
        if hook {
            inner.write_proof(
                Tripwire(Arc::clone(&tripwire)),
                varisat::ProofFormat::Varisat,
            );
        }
        let true_lit = Lit::positive(inner.new_var());
        let mut solver = Solver {
            inner,
            num_vars: 1,
            clause_lits: Vec::new(),
            clause_ends: Vec::new(),
            model: Vec::new(),
            true_lit,
            interrupt: None,
            tripwire,
            dead: false,
            hide: false,
            retired: Vec::new(),
        };
        solver.add_clause(&[true_lit]);
        solver
    }

    /// Allocates a fresh variable.
    pub fn new_var(&mut self) -> Var {
        let var = self.inner.new_var();
        self.num_vars = self.num_vars.max(var.index() + 1);
        var
    }

    /// Allocates a fresh variable and returns its positive literal.
    pub fn new_lit(&mut self) -> Lit {
        Lit::positive(self.new_var())
    }

    /// A literal that is true in every model.
    pub fn true_lit(&self) -> Lit {
        self.true_lit
    }

    /// A literal that is false in every model.
    pub fn false_lit(&self) -> Lit {
        !self.true_lit
    }

    /// Number of variables allocated so far (including the constant-true one).
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// Number of clauses added so far (including the unit clause of the constant).
    pub fn num_clauses(&self) -> usize {
        self.clause_ends.len()
    }

    /// An estimate of the memory the clauses and variables take, in bytes: this
    /// wrapper's verbatim copy (4 bytes a literal, 8 a clause end) and varisat's own
    /// (about as much again, plus a clause header and watches), and varisat's
    /// per-variable state, which is large: some 250 bytes a variable (watch and
    /// implication lists for both literals, assignment, reason, level, activity, the
    /// name maps), counted as 256. Measured on ?AR encodings through the binary (RSS
    /// against this estimate): binary clauses over few variables (one-hot positions)
    /// take 30-50 bytes a clause, Tseitin gates (a variable and four clauses) some 350
    /// bytes a variable; the estimate is within 10% of the second and above the first.
    /// Cheap (no traversal): callers charge it to a memory meter at coarse steps.
    pub fn approx_bytes(&self) -> u64 {
        // This wrapper's copy as allocated (a vector grows by doubling), varisat's as used.
        let copy = 4 * self.clause_lits.capacity() + 8 * self.clause_ends.capacity();
        let lits = self.clause_lits.len() as u64;
        let clauses = self.clause_ends.len() as u64;
        copy as u64 + 4 * lits + 24 * clauses + 288 * self.num_vars as u64
    }

    /// Adds the disjunction of `lits` as a permanent clause. The empty clause makes the
    /// formula unsatisfiable.
    pub fn add_clause(&mut self, lits: &[Lit]) {
        for lit in lits {
            self.num_vars = self.num_vars.max(lit.index() + 1);
        }
        self.inner.add_clause(lits);
        self.clause_lits.extend_from_slice(lits);
        self.clause_ends.push(self.clause_lits.len());
    }

    /// Adds the unit clause `!lit` for an activation literal that is done with (its
    /// clauses are satisfied from now on); with [`Solver::hide_retired`], also hides its
    /// variable from varisat's models from the next solve on.
    pub fn retire(&mut self, lit: Lit) {
        self.add_clause(&[!lit]);
        if self.hide {
            self.retired.push(lit.var());
        }
    }

    /// From now on [`Solver::retire`] hides the retired variable too. varisat builds each
    /// model over every variable it shows, so an enumeration that retires thousands of
    /// activation literals would otherwise pay for all of them in every model. varisat
    /// then hands a hidden variable's index out again as a new variable, while the
    /// clauses kept here ([`Solver::clauses`]) still say `!lit` of it: for a solver whose
    /// clauses are not read back, such as one that only enumerates and is dropped.
    pub fn hide_retired(&mut self) {
        self.hide = true;
    }

    /// Adds the clause `premises[0] ∧ … ⇒ conclusions[0] ∨ …`, i.e. the disjunction of the
    /// negated premises and the conclusions.
    pub fn implies_clause(&mut self, premises: &[Lit], conclusions: &[Lit]) {
        let clause: Vec<Lit> = premises
            .iter()
            .map(|&l| !l)
            .chain(conclusions.iter().copied())
            .collect();
        self.add_clause(&clause);
    }

    /// Returns a literal equivalent to the conjunction of `lits` (full Tseitin encoding).
    /// The empty conjunction is [`Solver::true_lit`]; a single literal is returned as is.
    pub fn and(&mut self, lits: &[Lit]) -> Lit {
        match lits {
            [] => self.true_lit,
            [single] => *single,
            _ => {
                let out = self.new_lit();
                for &l in lits {
                    self.add_clause(&[!out, l]);
                }
                self.implies_clause(lits, &[out]);
                out
            }
        }
    }

    /// Returns a literal equivalent to the disjunction of `lits` (full Tseitin encoding).
    /// The empty disjunction is [`Solver::false_lit`]; a single literal is returned as is.
    pub fn or(&mut self, lits: &[Lit]) -> Lit {
        let negated: Vec<Lit> = lits.iter().map(|&l| !l).collect();
        !self.and(&negated)
    }

    /// Installs a cancellation flag. While it is set, [`Solver::solve`] returns
    /// [`SatResult::Unknown`] without searching, and a search already running stops within
    /// a few hundred conflicts of it (varisat 0.2 has no interrupt of its own: see
    /// [`Tripwire`]). Multi-call procedures (enumeration, minimisation) then stop too,
    /// since every later solve answers `Unknown` (for good once a search was stopped:
    /// varisat does not resume one).
    pub fn set_interrupt(&mut self, flag: Arc<Flag>) {
        if let Ok(mut slot) = self.tripwire.lock() {
            *slot = Some(Arc::clone(&flag));
        }
        self.interrupt = Some(flag);
    }

    /// The cancellation flag installed by [`Solver::set_interrupt`], if any (so that a
    /// solver built for part of this one's work stops with it).
    pub fn interrupt_flag(&self) -> Option<Arc<Flag>> {
        self.interrupt.clone()
    }

    /// Whether the cancellation flag is installed and set (its deadline read on every call:
    /// solves are far apart).
    pub fn is_interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.is_raised_now())
    }

    /// Solves the clauses under `assumptions` (which hold for this call only).
    ///
    /// On [`SatResult::Sat`] the model is stored for [`Solver::value`]; any other result
    /// clears the stored model.
    pub fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        self.model.clear();
        if self.dead || self.is_interrupted() {
            return SatResult::Unknown;
        }
        for lit in assumptions {
            self.num_vars = self.num_vars.max(lit.index() + 1);
        }
        self.inner.assume(assumptions);
        for var in std::mem::take(&mut self.retired) {
            if assumptions.iter().any(|a| a.var() == var) {
                self.retired.push(var);
            } else {
                self.inner.hide_var(var);
            }
        }
        match self.inner.solve() {
            Ok(true) => {
                // After a Sat answer varisat always has a model; unassigned variables
                // (none in practice) default to false.
                self.model = vec![false; self.num_vars];
                for lit in self.inner.model().unwrap_or_default() {
                    if let Some(slot) = self.model.get_mut(lit.index()) {
                        *slot = lit.is_positive();
                    }
                }
                SatResult::Sat
            }
            Ok(false) => SatResult::Unsat,
            Err(_) => {
                self.dead = true;
                SatResult::Unknown
            }
        }
    }

    /// The stored model, indexed by variable index, if the last solve was
    /// [`SatResult::Sat`].
    #[cfg(test)]
    pub fn model(&self) -> Option<&[bool]> {
        (!self.model.is_empty()).then_some(self.model.as_slice())
    }

    /// Value of `lit` in the stored model, or `None` if there is no model or the literal's
    /// variable was created after the last solve.
    pub fn try_value(&self, lit: Lit) -> Option<bool> {
        self.model
            .get(lit.index())
            .map(|&value| value == lit.is_positive())
    }

    /// Value of `lit` in the stored model.
    ///
    /// # Panics
    /// If the last solve was not [`SatResult::Sat`] or the literal's variable was created
    /// after it (a caller bug); use [`Solver::try_value`] to check instead.
    pub fn value(&self, lit: Lit) -> bool {
        match self.try_value(lit) {
            Some(value) => value,
            None => panic!(
                "no model value for {lit:?}: the last solve was not Sat or the variable is newer"
            ),
        }
    }

    /// Solves under `assumptions`; when they are unsatisfiable, also returns a subset of
    /// them that is unsatisfiable together with the clauses (a core; empty if the clauses
    /// alone are unsatisfiable). Not necessarily minimal.
    ///
    /// The core varisat reports is checked by solving under it alone: varisat 0.2.2's
    /// failed-assumption analysis can leave a variable flagged between calls, after which a
    /// reported core may miss an assumption that is needed and not be a core at all (seen
    /// on a 6-variable formula, kept as a test in `sat::coremin`). A core that fails the
    /// check is replaced by every assumption, which is a core because the first solve said
    /// so. So the answer is always sound; the check costs one more solve per core.
    pub fn solve_core(&mut self, assumptions: &[Lit]) -> CoreResult {
        match self.solve(assumptions) {
            SatResult::Sat => return CoreResult::Sat,
            SatResult::Unknown => return CoreResult::Unknown,
            SatResult::Unsat => {}
        }
        let core = self.inner.failed_core().unwrap_or(&[]).to_vec();
        if core.len() >= assumptions.len() {
            return CoreResult::Unsat(assumptions.to_vec());
        }
        match self.solve(&core) {
            SatResult::Unsat => CoreResult::Unsat(core),
            SatResult::Sat => {
                self.model.clear();
                CoreResult::Unsat(assumptions.to_vec())
            }
            SatResult::Unknown => CoreResult::Unknown,
        }
    }

    /// The permanent clauses, in the order they were added (assumptions are not clauses).
    pub fn clauses(&self) -> impl Iterator<Item = &[Lit]> + '_ {
        let starts = std::iter::once(0).chain(self.clause_ends.iter().copied());
        starts
            .zip(self.clause_ends.iter().copied())
            .map(|(a, b)| &self.clause_lits[a..b])
    }

    /// The permanent clauses in DIMACS CNF format (`p cnf V C` header, one clause per line,
    /// each terminated by `0`). Assumptions are not included.
    pub fn to_dimacs(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!("p cnf {} {}\n", self.num_vars, self.num_clauses());
        let mut start = 0;
        for &end in &self.clause_ends {
            for lit in &self.clause_lits[start..end] {
                // Writing to a String cannot fail.
                let _ = write!(out, "{} ", lit.to_dimacs());
            }
            out.push_str("0\n");
            start = end;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        let mut s = Solver::new();
        assert_eq!((s.num_vars(), s.num_clauses()), (1, 1));
        assert_eq!(s.solve(&[]), SatResult::Sat);
        assert!(s.value(s.true_lit()));
        assert!(!s.value(s.false_lit()));
        assert_eq!(s.solve(&[s.false_lit()]), SatResult::Unsat);
        assert_eq!(s.model(), None);
        assert_eq!(s.try_value(s.true_lit()), None);
        let (t, f) = (s.true_lit(), s.false_lit());
        assert_eq!(s.and(&[]), t);
        assert_eq!(s.or(&[]), f);
    }

    #[test]
    fn and_or_truth_tables() {
        for n in 1..=4 {
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..n).map(|_| s.new_lit()).collect();
            // Mix polarities so negated inputs are covered.
            let ins: Vec<Lit> = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| if i % 2 == 1 { !x } else { x })
                .collect();
            let a = s.and(&ins);
            let o = s.or(&ins);
            for mask in 0..(1u32 << n) {
                let assign: Vec<Lit> = xs
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| if mask >> i & 1 == 1 { x } else { !x })
                    .collect();
                let vals: Vec<bool> = ins
                    .iter()
                    .enumerate()
                    .map(|(i, _)| (mask >> i & 1 == 1) != (i % 2 == 1))
                    .collect();
                let want_and = vals.iter().all(|&v| v);
                let want_or = vals.iter().any(|&v| v);
                assert_eq!(s.solve(&assign), SatResult::Sat);
                assert_eq!(s.value(a), want_and, "and n={n} mask={mask}");
                assert_eq!(s.value(o), want_or, "or n={n} mask={mask}");
                // The opposite value must be impossible (equivalence, not just implication).
                let mut flipped = assign.clone();
                flipped.push(if want_and { !a } else { a });
                assert_eq!(s.solve(&flipped), SatResult::Unsat);
                let mut flipped = assign;
                flipped.push(if want_or { !o } else { o });
                assert_eq!(s.solve(&flipped), SatResult::Unsat);
            }
        }
    }

    #[test]
    fn implies_clause_semantics() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_lit(), s.new_lit(), s.new_lit());
        s.implies_clause(&[a, b], &[c]);
        assert_eq!(s.solve(&[a, b, !c]), SatResult::Unsat);
        assert_eq!(s.solve(&[a, !b, !c]), SatResult::Sat);
        assert_eq!(s.solve(&[a, b]), SatResult::Sat);
        assert!(s.value(c));
    }

    /// The pigeonhole formula: `holes + 1` pigeons, each in some hole, no two in one hole.
    /// Unsatisfiable, and exponentially hard for resolution (so for any CDCL solver):
    /// with 13 holes varisat runs for hours.
    fn pigeonhole(s: &mut Solver, holes: usize) {
        let x: Vec<Vec<Lit>> = (0..=holes)
            .map(|_| (0..holes).map(|_| s.new_lit()).collect())
            .collect();
        for row in &x {
            s.add_clause(row);
        }
        for h in 0..holes {
            for (p, earlier) in x.iter().enumerate() {
                for later in &x[p + 1..] {
                    s.add_clause(&[!earlier[h], !later[h]]);
                }
            }
        }
    }

    #[test]
    fn a_running_search_stops_when_the_flag_is_raised() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut s = Solver::new();
            pigeonhole(&mut s, 13);
            let flag = Arc::new(Flag::default());
            s.set_interrupt(flag.clone());
            let raiser = {
                let flag = flag.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    flag.raise();
                })
            };
            let first = s.solve(&[]);
            raiser.join().unwrap();
            // Stopped for good: a later solve answers at once, even with the flag lowered.
            flag.lower();
            let _ = tx.send((first, s.solve(&[])));
        });
        // A hang guard only (the search itself would take hours): not a speed bound.
        let (first, later) = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the search did not stop within 120 s of its flag being raised");
        assert_eq!(first, SatResult::Unknown);
        assert_eq!(later, SatResult::Unknown);
    }

    #[test]
    fn a_running_search_stops_at_the_flags_deadline() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut s = Solver::new();
            pigeonhole(&mut s, 13);
            let flag = Arc::new(Flag::default());
            flag.set_deadline(
                crate::cancel::Instant::now() + std::time::Duration::from_millis(200),
            );
            s.set_interrupt(flag);
            let _ = tx.send(s.solve(&[]));
        });
        let result = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the search did not stop within 120 s of its deadline");
        assert_eq!(result, SatResult::Unknown);
    }

    #[test]
    fn interrupt_flag_checked_before_solve() {
        // With the hook and without it (a solver for short solves) alike.
        for mut s in [Solver::new(), Solver::for_short_solves()] {
            let a = s.new_lit();
            s.add_clause(&[!a]);
            let flag = Arc::new(Flag::raised());
            s.set_interrupt(flag.clone());
            assert_eq!(s.solve(&[]), SatResult::Unknown);
            assert_eq!(s.model(), None);
            flag.lower();
            assert_eq!(s.solve(&[]), SatResult::Sat);
            assert!(!s.value(a));
            assert_eq!(s.solve(&[a]), SatResult::Unsat);
        }
    }

    #[test]
    fn unsat_core_and_permanent_unsat() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_lit(), s.new_lit(), s.new_lit());
        s.add_clause(&[!a, !b]);
        // Every core holds both a and b (either alone is satisfiable); c is free.
        match s.solve_core(&[a, c, b]) {
            CoreResult::Unsat(core) => assert!(core.contains(&a) && core.contains(&b)),
            other => panic!("expected a core, got {other:?}"),
        }
        assert_eq!(s.solve_core(&[a, c]), CoreResult::Sat);
        assert!(s.value(a) && s.value(c) && !s.value(b));
        assert_eq!(s.solve(&[a]), SatResult::Sat);
        assert!(!s.value(b));
        s.add_clause(&[]);
        assert_eq!(s.solve(&[]), SatResult::Unsat);
    }

    #[test]
    fn dimacs_round_trip() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_lit(), s.new_lit(), s.new_lit());
        s.add_clause(&[a, !b]);
        s.add_clause(&[!c]);
        s.add_clause(&[]);
        let _ = s.solve(&[a, b]); // assumptions must not show up
        let text = s.to_dimacs();
        let lines: Vec<&str> = text.lines().collect();
        // 4 vars (true + a, b, c), 4 clauses (true unit + 3).
        assert_eq!(lines[0], "p cnf 4 4");
        assert_eq!(&lines[1..], ["1 0", "2 -3 0", "-4 0", "0"]);
        let parsed = varisat::dimacs::DimacsParser::parse(text.as_bytes())
            .expect("own DIMACS output must parse");
        assert_eq!(parsed.var_count(), 4);
        assert_eq!(parsed.len(), 4);
        let clauses: Vec<Vec<Lit>> = parsed.iter().map(<[Lit]>::to_vec).collect();
        let t = s.true_lit();
        assert_eq!(clauses, vec![vec![t], vec![a, !b], vec![!c], vec![]]);
    }
}
