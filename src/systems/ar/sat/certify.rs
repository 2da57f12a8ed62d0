//! Certified paradox verdicts: for a paradox, proofs that the uncut night has no
//! resolution and that no cut is cheaper than the optimal cost vector at any priority
//! level, each an unsatisfiability proof of the SAT encoding plus the claim's constraints,
//! produced by varisat and checked in-process by `varisat-checker`; and the DIMACS of the
//! encoding with `c` lines naming what every variable stands for.
//!
//! A claim's formula is the encoding (cut variables free) plus permanent clauses: every
//! cut variable false (no resolution), or, for level k with optimal counts c, at most c_j
//! cut effects at each level j < k and at most c_k - 1 at level k (a totalizer per level).
//! Every cost vector lexicographically below c satisfies one of these, so together they
//! say no cheaper cut exists. Invariant: a [`Certificate`] is only returned after its
//! proof checked; what it certifies is the formula, so its trust rests on the encoding,
//! which the direct engine cross-checks on every answer.

use super::encode::Encoding;
use crate::sat::{Lit, Totalizer};
use crate::systems::ar::night::resolution::CutAnalysis;
use crate::systems::ar::night::universe::Universe;
use crate::systems::spec::{Budget, Charged, Interrupted};
use std::fmt::Write as _;
use varisat::{ExtendFormula, ProofFormat};

/// What a certificate proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The uncut night has no acceptable resolution.
    NoResolution,
    /// No Gordian cut has the optimal counts below `level` and fewer than the optimum at it.
    NoCheaperCut {
        /// The priority level.
        level: u32,
        /// The optimal count at that level.
        optimum: usize,
    },
}

impl Claim {
    /// A file-name stem for the claim.
    pub fn stem(&self) -> String {
        match self {
            Claim::NoResolution => "no-resolution".into(),
            Claim::NoCheaperCut { level, .. } => format!("no-cheaper-cut-at-{level}"),
        }
    }

    /// The claim in words.
    pub fn words(&self) -> String {
        match self {
            Claim::NoResolution => "the night has no resolution".into(),
            Claim::NoCheaperCut { level, optimum } => format!(
                "no cut is cheaper at priority {level} (fewer than {optimum} there, with no more at higher priorities)"
            ),
        }
    }
}

/// A checked certificate: the formula as DIMACS (with `c` lines), its unsatisfiability
/// proof in varisat's native format (checked) and in text DRAT (for external checkers).
#[derive(Clone, Debug)]
pub struct Certificate {
    /// What it proves.
    pub claim: Claim,
    /// The formula, DIMACS CNF with naming comments.
    pub cnf: String,
    /// The clauses, as added to the checker (tests tamper with them).
    #[cfg(test)]
    pub clauses: Vec<Vec<Lit>>,
    /// varisat's native proof (what `varisat-checker` reads).
    pub proof: Vec<u8>,
    /// The same refutation found again, as text DRAT.
    pub drat: Vec<u8>,
}

/// Why certification failed.
#[derive(Debug, thiserror::Error)]
pub enum CertifyError {
    /// The claim's formula is satisfiable: the verdict is wrong (a bug in gordian).
    #[error("the claim \"{0}\" does not hold: its formula is satisfiable (a bug in gordian)")]
    ClaimFalse(String),
    /// The solver failed.
    #[error("the solver failed while proving \"{0}\": {1}")]
    Solver(String, String),
    /// The proof did not check.
    #[error("the proof of \"{0}\" does not check: {1}")]
    Check(String, String),
}

/// The `c` lines naming every variable of the encoding: cut, success, creation, the
/// members of deflection cycles processed last (`c last P L`) and the final positions
/// encoded (`c ends P Q L`: a slot declared at P ends at Q); the rest are auxiliary (gates, derivation levels,
/// totalizers). Same convention as the FFT DIMACS: `c KEY NAME... LITERAL`.
pub fn names(u: &Universe, enc: &Encoding) -> String {
    let mut out = String::from(
        "c gordian ?AR night: variables named below; every other variable is auxiliary (gates, derivation levels, cardinality)\n",
    );
    let t = enc.solver.true_lit();
    let _ = writeln!(out, "c true {}", t.to_dimacs());
    for (i, x) in enc.cut_lits().iter().enumerate() {
        let _ = writeln!(out, "c cut {} {}", u.effects[i].id, x.to_dimacs());
    }
    for i in 0..u.len() {
        let _ = writeln!(
            out,
            "c succeeds {} {}",
            u.effects[i].id,
            enc.success_lit(i).to_dimacs()
        );
    }
    for i in u.n_declared..u.len() {
        let _ = writeln!(
            out,
            "c created {} {}",
            u.effects[i].id,
            enc.live_lit(i).to_dimacs()
        );
    }
    for (members, last) in enc.last_positions() {
        for (&q, l) in members.iter().zip(last) {
            let _ = writeln!(out, "c last {} {}", u.player_name(q), l.to_dimacs());
        }
    }
    for (p, pos) in enc.end_positions().iter().enumerate() {
        if pos.len() > 1 {
            for &(q, l) in pos {
                let _ = writeln!(
                    out,
                    "c ends {} {} {}",
                    u.player_name(p as u32),
                    u.player_name(q),
                    l.to_dimacs()
                );
            }
        }
    }
    out
}

/// The DIMACS CNF of the encoding (cut variables free), preceded by the naming comments;
/// built under `budget` (the encoding charges its clauses, and the text is charged too),
/// or `Interrupted` once it is cancelled.
pub fn named_dimacs(u: &Universe, budget: &Budget) -> Result<String, Interrupted> {
    let enc = Encoding::new(u, budget);
    budget.check()?;
    // The text takes about as much again as the clauses it writes.
    let mut text = Charged::new(budget, "the DIMACS text");
    text.grow_to(enc.solver.approx_bytes())?;
    let mut out = names(u, &enc);
    out.push_str(&enc.solver.to_dimacs());
    Ok(out)
}

/// The claims a paradox with these optimal cuts has: no resolution, and no cheaper cut at
/// every level whose optimal count is positive.
pub fn claims(u: &Universe, cuts: &CutAnalysis) -> Vec<Claim> {
    let mut v = vec![Claim::NoResolution];
    for (&level, &optimum) in u.levels().iter().zip(&cuts.cost) {
        if optimum > 0 {
            v.push(Claim::NoCheaperCut { level, optimum });
        }
    }
    v
}

/// The claim's formula: the encoding plus the claim's permanent clauses.
fn formula(u: &Universe, cost: &[usize], claim: &Claim) -> (String, Vec<Vec<Lit>>) {
    let mut enc = Encoding::new(u, &Budget::new());
    let x = enc.cut_lits().to_vec();
    let levels = u.levels();
    let mut header = names(u, &enc);
    match claim {
        Claim::NoResolution => {
            for &l in &x {
                enc.solver.add_clause(&[!l]);
            }
        }
        Claim::NoCheaperCut { level, .. } => {
            for (k, &p) in levels.iter().enumerate() {
                if p > *level {
                    break;
                }
                let lits: Vec<Lit> = (0..u.n_declared)
                    .filter(|&i| u.effects[i].priority == p)
                    .map(|i| x[i])
                    .collect();
                let bound = if p == *level { cost[k] - 1 } else { cost[k] };
                let tot = Totalizer::new(&mut enc.solver, &lits, bound + 1);
                if let Some(l) = tot.at_most(bound).expect("cap is bound + 1") {
                    enc.solver.add_clause(&[l]);
                }
            }
        }
    }
    let _ = writeln!(header, "c claim: {}", claim.words());
    let clauses: Vec<Vec<Lit>> = enc.solver.clauses().map(<[Lit]>::to_vec).collect();
    header.push_str(&enc.solver.to_dimacs());
    (header, clauses)
}

fn refute(clauses: &[Vec<Lit>], format: ProofFormat) -> Result<(bool, Vec<u8>), String> {
    let mut proof = Vec::new();
    let sat = {
        let mut solver = varisat::Solver::new();
        solver.write_proof(&mut proof, format);
        for c in clauses {
            solver.add_clause(c);
        }
        let sat = solver.solve().map_err(|e| e.to_string())?;
        solver.close_proof().map_err(|e| e.to_string())?;
        sat
    };
    Ok((sat, proof))
}

/// Checks a native varisat proof of unsatisfiability of `clauses` in-process.
pub fn check(clauses: &[Vec<Lit>], proof: &[u8]) -> Result<(), String> {
    let mut checker = varisat_checker::Checker::new();
    for c in clauses {
        checker.add_clause(c).map_err(|e| e.to_string())?;
    }
    checker.check_proof(proof).map_err(|e| e.to_string())
}

/// Proves and checks one claim.
pub fn certify(u: &Universe, cost: &[usize], claim: &Claim) -> Result<Certificate, CertifyError> {
    let words = claim.words();
    let (cnf, clauses) = formula(u, cost, claim);
    let (sat, proof) = refute(&clauses, ProofFormat::Varisat)
        .map_err(|e| CertifyError::Solver(words.clone(), e))?;
    if sat {
        return Err(CertifyError::ClaimFalse(words));
    }
    check(&clauses, &proof).map_err(|e| CertifyError::Check(words.clone(), e))?;
    let (_, drat) =
        refute(&clauses, ProofFormat::Drat).map_err(|e| CertifyError::Solver(words.clone(), e))?;
    Ok(Certificate {
        claim: claim.clone(),
        cnf,
        #[cfg(test)]
        clauses,
        proof,
        drat,
    })
}

/// Every certificate of a paradox's verdict (see [`claims`]), each checked.
pub fn certify_all(u: &Universe, cuts: &CutAnalysis) -> Result<Vec<Certificate>, CertifyError> {
    claims(u, cuts)
        .iter()
        .map(|c| certify(u, &cuts.cost, c))
        .collect()
}
