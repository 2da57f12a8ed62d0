//! The SAT encoding of the contract, and its decoding back into resolutions and cuts.
//!
//! Variables: for every universe effect u, `s[u]` (u is in S) and `live[u]` (u is in R and
//! not cut: `!x[f]` for a declared effect f with cut variable `x[f]`, a fresh creation
//! variable for a created effect). For every pair (a, y) where a could make y fail, an
//! activation literal `act(a, y) <-> s[a] and cond(a, y)` (cond: no succeeding unblockable
//! passive of y's actor, for blocks). Clauses:
//!
//! * `s[u] -> live[u]`; `s[y] -> !act(a, y)` for every a;
//! * `live[y] and !s[y] -> OR_a act(a, y)` (an effect of R\S necessarily fails);
//! * for a created c(p, v): `live[c] <-> s[p] and OR_g s[g]` over the actions g of v
//!   whose final targets include p's owner (creation).
//!
//! Final targets are constants here (declared targets); every place that reads a final
//! target goes through [`Encoding::targets`] so that redirection can turn them into
//! variables without touching the rest.
//!
//! Invariants: the encoder owns its decoding (`decode_*`); projections are exactly the
//! success and creation variables (resolutions) or the cut variables (cuts), so each
//! resolution and each cut is enumerated once; the encoding never calls the direct engine.

use super::model::{ActionKind, Kind, PassiveKind, Player};
use super::resolution::{
    canonicalize_resolutions, Analysis, Cut, CutAnalysis, Resolution, TargetMap,
};
use super::universe::{Ix, Origin, Universe};
use crate::sat::{enumerate_projected, lexmin, EnumerationEnd, Lit, Solver};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::ops::ControlFlow;

/// The encoding of one universe on one incremental solver.
pub struct Encoding<'u> {
    u: &'u Universe,
    /// The solver holding the clauses.
    pub solver: Solver,
    s: Vec<Lit>,
    live: Vec<Lit>,
    x: Vec<Lit>,
    rho: TargetMap,
}

impl<'u> Encoding<'u> {
    /// Encodes the contract for `u`, with one cut variable per declared effect.
    pub fn new(u: &'u Universe, budget: &Budget) -> Encoding<'u> {
        let mut solver = Solver::new();
        solver.set_interrupt(budget.flag());
        let n = u.len();
        let x: Vec<Lit> = (0..u.n_declared).map(|_| solver.new_lit()).collect();
        let s: Vec<Lit> = (0..n).map(|_| solver.new_lit()).collect();
        let live: Vec<Lit> = (0..n)
            .map(|i| {
                if i < u.n_declared {
                    !x[i]
                } else {
                    solver.new_lit()
                }
            })
            .collect();
        let rho = (0..n)
            .map(|i| {
                let e = &u.effects[i];
                if e.action().is_some() {
                    e.targets.clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut enc = Encoding {
            u,
            solver,
            s,
            live,
            x,
            rho,
        };
        enc.encode();
        enc
    }

    /// The final targets of effect `i` (constants for now).
    fn targets(&self, i: Ix) -> &[Player] {
        &self.rho[i]
    }

    fn shares(&self, a: Ix, b: Ix) -> bool {
        self.targets(a).iter().any(|t| self.targets(b).contains(t))
    }

    /// The extra conditions (besides `s[a]`) under which a makes y fail, or `None` if it
    /// never does.
    fn attack_condition(&self, a: Ix, y: Ix) -> Option<Vec<Lit>> {
        let u = self.u;
        let (ae, ye) = (&u.effects[a], &u.effects[y]);
        let yk = ye.action()?;
        let hit = match ae.kind {
            Kind::Action(ActionKind::Block) => {
                if ye.is_submitted_action() && self.targets(a).contains(&ye.actor) {
                    let guards = (0..u.n_declared)
                        .filter(|&g| {
                            u.effects[g].kind == Kind::Passive(PassiveKind::Unblockable)
                                && u.effects[g].actor == ye.actor
                        })
                        .map(|g| !self.s[g])
                        .collect();
                    return Some(guards);
                }
                false
            }
            Kind::Action(ActionKind::Stop) => yk != ActionKind::Stop && self.shares(a, y),
            Kind::Action(ActionKind::Protect) => yk == ActionKind::Kill && self.shares(a, y),
            Kind::Passive(PassiveKind::Bulletproof) => {
                yk == ActionKind::Kill && self.targets(y).contains(&ae.actor)
            }
            _ => false,
        };
        hit.then(Vec::new)
    }

    fn encode(&mut self) {
        let u = self.u;
        let n = u.len();
        let mut fail_lits: Vec<Vec<Lit>> = vec![Vec::new(); n];
        for a in 0..n {
            for y in (0..n).filter(|&y| y != a) {
                let Some(mut cond) = self.attack_condition(a, y) else {
                    continue;
                };
                let act = if cond.is_empty() {
                    self.s[a]
                } else {
                    cond.push(self.s[a]);
                    self.solver.and(&cond)
                };
                self.solver.add_clause(&[!self.s[y], !act]);
                fail_lits[y].push(act);
            }
        }
        for (y, fails) in fail_lits.into_iter().enumerate() {
            self.solver.add_clause(&[!self.s[y], self.live[y]]);
            let mut clause = vec![!self.live[y], self.s[y]];
            clause.extend(fails);
            self.solver.add_clause(&clause);
        }
        for c in u.n_declared..n {
            let Origin::Created { passive, visitor } = u.effects[c].origin else {
                unreachable!("universe effects past n_declared are created")
            };
            let owner = u.effects[passive].actor;
            let triggers: Vec<Lit> = (0..n)
                .filter(|&g| {
                    let ge = &u.effects[g];
                    ge.action().is_some() && ge.actor == visitor && self.targets(g).contains(&owner)
                })
                .map(|g| self.s[g])
                .collect();
            let any = self.solver.or(&triggers);
            let both = self.solver.and(&[self.s[passive], any]);
            self.solver.add_clause(&[!self.live[c], both]);
            self.solver.add_clause(&[self.live[c], !both]);
        }
    }

    /// Assumptions that fix the cut to exactly `cut`.
    fn cut_assumptions(&self, cut: &Cut) -> Vec<Lit> {
        self.x
            .iter()
            .enumerate()
            .map(|(i, &x)| if cut.contains(i) { x } else { !x })
            .collect()
    }

    fn resolution_projection(&self) -> Vec<Lit> {
        let mut p = self.s.clone();
        p.extend_from_slice(&self.live[self.u.n_declared..]);
        p
    }

    /// Decodes a projected model of [`Self::resolution_projection`] into a resolution.
    fn decode_resolution(&self, values: &[bool], cut: &Cut) -> Resolution {
        let u = self.u;
        let n = u.len();
        let mut succeeded = FixedBitSet::with_capacity(n);
        let mut present = FixedBitSet::with_capacity(n);
        present.insert_range(..u.n_declared);
        for (i, &v) in values[..n].iter().enumerate() {
            succeeded.set(i, v);
        }
        for c in u.n_declared..n {
            present.set(c, values[n + c - u.n_declared]);
        }
        let way = (0..n)
            .map(|i| {
                let is_cut = i < u.n_declared && cut.contains(i);
                if present.contains(i) && !is_cut {
                    self.rho[i].clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        Resolution {
            present,
            succeeded,
            ways: vec![way],
        }
    }

    /// Every acceptable resolution of E[cut], by projected enumeration.
    pub fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted> {
        let assumptions = self.cut_assumptions(cut);
        let projection = self.resolution_projection();
        let mut models = Vec::new();
        let e = enumerate_projected(&mut self.solver, &projection, &assumptions, None, |v| {
            models.push(v.to_vec());
            ControlFlow::Continue(())
        });
        if e.end != EnumerationEnd::Complete {
            return Err(Interrupted);
        }
        let mut rs: Vec<Resolution> = models
            .iter()
            .map(|v| self.decode_resolution(v, cut))
            .collect();
        canonicalize_resolutions(self.u, &mut rs);
        Ok(rs)
    }

    /// The optimal cost vector and every optimal cut, by lexicographic minimisation one
    /// priority level at a time, then enumeration projected on the cut variables.
    pub fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
        let u = self.u;
        let levels = u.ensemble.priority_levels();
        let by_level: Vec<Vec<Lit>> = levels
            .iter()
            .map(|&p| {
                (0..u.n_declared)
                    .filter(|&i| u.effects[i].priority == p)
                    .map(|i| self.x[i])
                    .collect()
            })
            .collect();
        let opt = lexmin(&mut self.solver, &by_level, &[])
            .map_err(|_| Interrupted)?
            .expect("cutting every effect always leaves an acceptable resolution");
        let x = self.x.clone();
        let mut cuts = Vec::new();
        let e = enumerate_projected(&mut self.solver, &x, &opt.pins, None, |v| {
            let mut c = Cut::with_capacity(u.n_declared);
            for (i, &b) in v.iter().enumerate() {
                c.set(i, b);
            }
            cuts.push(c);
            ControlFlow::Continue(())
        });
        if e.end != EnumerationEnd::Complete {
            return Err(Interrupted);
        }
        Ok((opt.counts, cuts))
    }
}

/// The whole analysis by the SAT engine.
pub fn analyse(u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
    let mut enc = Encoding::new(u, budget);
    let resolutions = enc.resolutions(&Cut::with_capacity(u.n_declared))?;
    let cuts = if resolutions.is_empty() {
        let (cost, cuts) = enc.optimal_cuts()?;
        let mut optimal = Vec::with_capacity(cuts.len());
        for f in cuts {
            let rs = enc.resolutions(&f)?;
            optimal.push((f, rs));
        }
        Some(CutAnalysis { cost, optimal })
    } else {
        None
    };
    let mut a = Analysis { resolutions, cuts };
    a.canonicalize(u);
    Ok(a)
}

/// The DIMACS CNF of the encoding (cut variables free).
pub fn dimacs(u: &Universe) -> String {
    Encoding::new(u, &Budget::new()).solver.to_dimacs()
}
