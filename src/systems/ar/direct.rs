//! The direct engine: a labelling search with propagation, no SAT.
//!
//! For a fixed target map and a fixed set of cut passives, the contract becomes a static
//! problem (a [`Frame`]): every effect u has two boolean variables, `s[u]` (u in S) and
//! `live[u]` (u is in R and not cut: for declared effects "not cut", for created ones
//! "created"), linked by
//!
//! * (C1) `s[u] -> live[u]`;
//! * (C2) `s[u] -> no attacker of u in S` (an attacker is an effect that makes u fail
//!   while it succeeds: a block on u's actor, a stop or protect sharing a target, a
//!   bulletproof owner);
//! * (C3) `live[u] and not s[u] -> some attacker of u in S`;
//! * (C4) for a created c(p, v): `live[c] <-> some trigger of c in S` (p is in S, since
//!   passives succeed unless cut and a frame fixes which passives are cut).
//!
//! The search labels effects IN (s), OUT (live, not s) or CUT/ABSENT (not live), propagating
//! each constraint with counters (attackers in S / undecided, triggers in S / undecided)
//! and undoing through a trail. Cut search is branch and bound over the same labels, with
//! the lexicographic cost vector of the cut effects as the bound.
//!
//! Invariants: the engine never calls the SAT layer; every solution it reports satisfies
//! C1-C4 for the frame, hence (by construction of the frame) the contract; tests re-check
//! every answer with `semantics::check`.

use super::model::{ActionKind, Kind, PassiveKind};
use super::resolution::{
    canonicalize_resolutions, Analysis, Cut, CutAnalysis, Resolution, TargetMap,
};
use super::universe::{Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::collections::BTreeSet;

const UNKNOWN: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;

/// The static problem for one target map and one set of cut passives.
#[derive(Debug)]
pub struct Frame {
    n: usize,
    attackers: Vec<Vec<Ix>>,
    attacks: Vec<Vec<Ix>>,
    triggers: Vec<Vec<Ix>>,
    trig_of: Vec<Vec<Ix>>,
    created: Vec<bool>,
    /// Level index of each declared effect (for the cost vector).
    level: Vec<usize>,
    /// Fixed initial labels: (var, value); var < n is s[var], else live[var - n].
    fixed: Vec<(usize, bool)>,
    /// Cut search: a cut declared effect has no attacker in S (see [`Frame::build`]).
    cut_dominance: bool,
    rho: TargetMap,
}

/// The target map before redirection: every action's declared targets.
pub fn declared_map(u: &Universe) -> TargetMap {
    u.effects
        .iter()
        .map(|e| {
            if e.action().is_some() {
                e.targets.clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

impl Frame {
    /// Builds the frame for target map `rho` (every universe action's final targets).
    /// Declared effects in `cut` are fixed CUT; if `cut_search`, the liveness of uncut
    /// declared *actions* is left open (they may be cut), else fixed live.
    ///
    /// Cut search also enforces *dominance*: in every resolution of E[F] for an optimal
    /// cut F, no cut effect f has an attacker in S — otherwise F \ {f} would have the
    /// same resolution with f failed (a cut no-op and a failed effect act on nothing),
    /// at a strictly smaller cost. So an effect with an attacker in S is OUT, never CUT.
    pub fn build(u: &Universe, rho: &TargetMap, cut: &Cut, cut_search: bool) -> Frame {
        let n = u.len();
        let levels = u.ensemble.priority_levels();
        let is_cut = |i: Ix| i < u.n_declared && cut.contains(i);
        let created: Vec<bool> = (0..n).map(|i| i >= u.n_declared).collect();
        // dead: can never be live.
        let dead: Vec<bool> = (0..n)
            .map(|i| match u.effects[i].origin {
                Origin::Declared(_) => is_cut(i),
                Origin::Created { passive, .. } => is_cut(passive),
            })
            .collect();
        let mut unblockable = vec![false; u.n_players()];
        for (i, e) in u.effects.iter().enumerate() {
            if e.kind == Kind::Passive(PassiveKind::Unblockable) && !dead[i] {
                unblockable[e.actor as usize] = true;
            }
        }
        let shares = |a: Ix, b: Ix| rho[a].iter().any(|t| rho[b].contains(t));
        let mut attackers = vec![Vec::new(); n];
        let mut attacks = vec![Vec::new(); n];
        for a in (0..n).filter(|&a| !dead[a]) {
            let ae = &u.effects[a];
            for y in (0..n).filter(|&y| y != a && !dead[y]) {
                let ye = &u.effects[y];
                let Some(yk) = ye.action() else { continue };
                let hit = match ae.kind {
                    Kind::Action(ActionKind::Block) => {
                        ye.is_submitted_action()
                            && rho[a].contains(&ye.actor)
                            && !unblockable[ye.actor as usize]
                    }
                    Kind::Action(ActionKind::Stop) => yk != ActionKind::Stop && shares(a, y),
                    Kind::Action(ActionKind::Protect) => yk == ActionKind::Kill && shares(a, y),
                    Kind::Passive(PassiveKind::Bulletproof) => {
                        yk == ActionKind::Kill && rho[y].contains(&ae.actor)
                    }
                    _ => false,
                };
                if hit {
                    attackers[y].push(a);
                    attacks[a].push(y);
                }
            }
        }
        let mut triggers = vec![Vec::new(); n];
        let mut trig_of = vec![Vec::new(); n];
        for c in (0..n).filter(|&c| !dead[c]) {
            if let Origin::Created { passive, visitor } = u.effects[c].origin {
                let owner = u.effects[passive].actor;
                for g in (0..n).filter(|&g| !dead[g]) {
                    let ge = &u.effects[g];
                    if ge.action().is_some() && ge.actor == visitor && rho[g].contains(&owner) {
                        triggers[c].push(g);
                        trig_of[g].push(c);
                    }
                }
            }
        }
        let mut fixed = Vec::new();
        for (i, &is_dead) in dead.iter().enumerate() {
            if is_dead {
                fixed.push((n + i, false));
            } else if i < u.n_declared && (!cut_search || u.effects[i].action().is_none()) {
                fixed.push((n + i, true));
            }
        }
        let level = (0..u.n_declared)
            .map(|i| {
                levels
                    .binary_search(&u.effects[i].priority)
                    .expect("every priority is a level")
            })
            .collect();
        Frame {
            n,
            attackers,
            attacks,
            triggers,
            trig_of,
            created,
            level,
            fixed,
            cut_dominance: cut_search,
            rho: rho.clone(),
        }
    }
}

struct Conflict;

/// The labelling state of a search over one frame.
struct Search<'f> {
    f: &'f Frame,
    val: Vec<u8>,
    trail: Vec<usize>,
    queue: Vec<usize>,
    att_true: Vec<u32>,
    att_open: Vec<u32>,
    trig_true: Vec<u32>,
    trig_open: Vec<u32>,
    cost: Vec<usize>,
    nodes: u64,
}

impl<'f> Search<'f> {
    fn new(f: &'f Frame, n_levels: usize) -> Search<'f> {
        Search {
            f,
            val: vec![UNKNOWN; 2 * f.n],
            trail: Vec::with_capacity(2 * f.n),
            queue: Vec::new(),
            att_true: vec![0; f.n],
            att_open: f.attackers.iter().map(|a| a.len() as u32).collect(),
            trig_true: vec![0; f.n],
            trig_open: f.triggers.iter().map(|t| t.len() as u32).collect(),
            cost: vec![0; n_levels],
            nodes: 0,
        }
    }

    fn s(&self, u: Ix) -> u8 {
        self.val[u]
    }

    fn live(&self, u: Ix) -> u8 {
        self.val[self.f.n + u]
    }

    /// Assigns an unassigned variable, updating the counters.
    fn assign(&mut self, var: usize, value: bool) {
        let f = self.f;
        self.val[var] = if value { TRUE } else { FALSE };
        self.trail.push(var);
        self.queue.push(var);
        if var < f.n {
            for &y in &f.attacks[var] {
                self.att_open[y] -= 1;
                if value {
                    self.att_true[y] += 1;
                }
            }
            for &c in &f.trig_of[var] {
                self.trig_open[c] -= 1;
                if value {
                    self.trig_true[c] += 1;
                }
            }
        } else if !value && var - f.n < f.level.len() {
            self.cost[f.level[var - f.n]] += 1;
        }
    }

    fn undo_to(&mut self, mark: usize) {
        let f = self.f;
        while self.trail.len() > mark {
            let var = self.trail.pop().expect("trail longer than mark");
            let value = self.val[var] == TRUE;
            self.val[var] = UNKNOWN;
            if var < f.n {
                for &y in &f.attacks[var] {
                    self.att_open[y] += 1;
                    if value {
                        self.att_true[y] -= 1;
                    }
                }
                for &c in &f.trig_of[var] {
                    self.trig_open[c] += 1;
                    if value {
                        self.trig_true[c] -= 1;
                    }
                }
            } else if !value && var - f.n < f.level.len() {
                self.cost[f.level[var - f.n]] -= 1;
            }
        }
        self.queue.clear();
    }

    fn force(&mut self, var: usize, value: bool) -> Result<(), Conflict> {
        match self.val[var] {
            UNKNOWN => {
                self.assign(var, value);
                Ok(())
            }
            v if (v == TRUE) == value => Ok(()),
            _ => Err(Conflict),
        }
    }

    fn check_node(&mut self, y: Ix) -> Result<(), Conflict> {
        let n = self.f.n;
        let declared = y < self.f.level.len();
        if self.att_true[y] > 0 {
            self.force(y, false)?;
            if self.f.cut_dominance && declared {
                self.force(n + y, true)?;
            }
        }
        if self.f.cut_dominance && declared && self.live(y) == FALSE {
            for i in 0..self.f.attackers[y].len() {
                self.force(self.f.attackers[y][i], false)?;
            }
        }
        if self.s(y) == TRUE {
            self.force(n + y, true)?;
        }
        if self.live(y) == FALSE {
            self.force(y, false)?;
        }
        if self.att_true[y] == 0 {
            if self.att_open[y] == 0 {
                if self.live(y) == TRUE {
                    self.force(y, true)?;
                }
                if self.s(y) == FALSE {
                    self.force(n + y, false)?;
                }
            } else if self.att_open[y] == 1 && self.live(y) == TRUE && self.s(y) == FALSE {
                let a = self.f.attackers[y]
                    .iter()
                    .copied()
                    .find(|&a| self.val[a] == UNKNOWN)
                    .expect("one attacker is open");
                self.force(a, true)?;
            }
        }
        Ok(())
    }

    fn check_trig(&mut self, c: Ix) -> Result<(), Conflict> {
        let n = self.f.n;
        if self.trig_true[c] > 0 {
            self.force(n + c, true)?;
        } else if self.trig_open[c] == 0 {
            self.force(n + c, false)?;
        } else if self.live(c) == TRUE && self.trig_open[c] == 1 {
            let g = self.f.triggers[c]
                .iter()
                .copied()
                .find(|&g| self.val[g] == UNKNOWN)
                .expect("one trigger is open");
            self.force(g, true)?;
        }
        if self.live(c) == FALSE {
            for i in 0..self.f.triggers[c].len() {
                self.force(self.f.triggers[c][i], false)?;
            }
        }
        Ok(())
    }

    fn propagate(&mut self) -> Result<(), Conflict> {
        let f = self.f;
        while let Some(var) = self.queue.pop() {
            if var < f.n {
                let a = var;
                self.check_node(a)?;
                for i in 0..f.attacks[a].len() {
                    self.check_node(f.attacks[a][i])?;
                }
                for i in 0..f.trig_of[a].len() {
                    self.check_trig(f.trig_of[a][i])?;
                }
                if self.s(a) == TRUE {
                    for i in 0..f.attackers[a].len() {
                        self.force(f.attackers[a][i], false)?;
                    }
                }
            } else {
                let y = var - f.n;
                self.check_node(y)?;
                if f.created[y] {
                    self.check_trig(y)?;
                }
            }
        }
        Ok(())
    }

    /// Applies the frame's fixed labels and checks every node once.
    fn init(&mut self) -> Result<(), Conflict> {
        for i in 0..self.f.fixed.len() {
            let (var, value) = self.f.fixed[i];
            self.force(var, value)?;
        }
        for y in 0..self.f.n {
            self.check_node(y)?;
            if self.f.created[y] {
                self.check_trig(y)?;
            }
        }
        self.propagate()
    }

    /// The next undecided variable to branch on.
    fn pick(&self) -> Option<usize> {
        let n = self.f.n;
        (0..n).find_map(|u| {
            if self.val[u] == UNKNOWN {
                Some(u)
            } else if self.val[n + u] == UNKNOWN {
                Some(n + u)
            } else {
                None
            }
        })
    }

    /// Depth-first search; `visit` sees every complete labelling and says whether to go on.
    /// `bound` prunes a node whose cost vector already exceeds it.
    fn dfs(
        &mut self,
        budget: &Budget,
        bound: &mut dyn FnMut(&Search) -> bool,
        visit: &mut dyn FnMut(&Search),
    ) -> Result<(), Interrupted> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) {
            budget.check()?;
        }
        if self.propagate().is_err() || !bound(self) {
            return Ok(());
        }
        let Some(var) = self.pick() else {
            visit(self);
            return Ok(());
        };
        let n = self.f.n;
        // Branch IN, then OUT, then CUT/ABSENT.
        let branches: &[&[(usize, bool)]] = if var < n {
            let u = var;
            if self.live(u) == UNKNOWN {
                &[
                    &[(u, true)],
                    &[(u, false), (n + u, true)],
                    &[(n + u, false)],
                ]
            } else {
                &[&[(u, true)], &[(u, false)]]
            }
        } else {
            &[&[(var, true)], &[(var, false)]]
        };
        // Branch lists borrow locals of different shapes; copy them out first.
        let branches: Vec<Vec<(usize, bool)>> = branches.iter().map(|b| b.to_vec()).collect();
        for b in branches {
            let mark = self.trail.len();
            let ok = b.iter().all(|&(v, x)| self.force(v, x).is_ok());
            if ok {
                self.dfs(budget, bound, visit)?;
            }
            self.undo_to(mark);
        }
        Ok(())
    }

    fn present(&self) -> FixedBitSet {
        let n = self.f.n;
        let mut b = FixedBitSet::with_capacity(n);
        for u in 0..n {
            if !self.f.created[u] || self.val[n + u] == TRUE {
                b.insert(u);
            }
        }
        b
    }

    fn succeeded(&self) -> FixedBitSet {
        let mut b = FixedBitSet::with_capacity(self.f.n);
        for u in 0..self.f.n {
            if self.val[u] == TRUE {
                b.insert(u);
            }
        }
        b
    }

    fn cut(&self) -> Cut {
        let nd = self.f.level.len();
        let mut b = Cut::with_capacity(nd);
        for i in 0..nd {
            if self.val[self.f.n + i] == FALSE {
                b.insert(i);
            }
        }
        b
    }
}

/// The final-target map of one way, restricted to R's uncut actions.
fn restrict(u: &Universe, rho: &TargetMap, present: &FixedBitSet, cut: &Cut) -> TargetMap {
    (0..u.len())
        .map(|i| {
            let is_cut = i < u.n_declared && cut.contains(i);
            if present.contains(i) && !is_cut {
                rho[i].clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// Every acceptable resolution of E[cut].
pub fn resolutions(
    u: &Universe,
    cut: &Cut,
    budget: &Budget,
) -> Result<Vec<Resolution>, Interrupted> {
    let rho = declared_map(u);
    let frame = Frame::build(u, &rho, cut, false);
    let mut search = Search::new(&frame, u.ensemble.priority_levels().len());
    let mut out = Vec::new();
    if search.init().is_ok() {
        search.dfs(budget, &mut |_| true, &mut |s| {
            let present = s.present();
            let way = restrict(u, &frame.rho, &present, cut);
            out.push(Resolution {
                present,
                succeeded: s.succeeded(),
                ways: vec![way],
            });
        })?;
    }
    canonicalize_resolutions(u, &mut out);
    Ok(out)
}

/// Whether E[cut] has at least one acceptable resolution.
pub fn has_resolution(u: &Universe, cut: &Cut, budget: &Budget) -> Result<bool, Interrupted> {
    Ok(!resolutions(u, cut, budget)?.is_empty())
}

/// The optimal cost vector and every optimal Gordian cut (for any ensemble; the empty cut
/// is optimal when E has a resolution).
pub fn optimal_cuts(u: &Universe, budget: &Budget) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
    let levels = u.ensemble.priority_levels();
    let nd = u.n_declared;
    let rho = declared_map(u);
    let passives: Vec<Ix> = (0..nd)
        .filter(|&i| u.effects[i].action().is_none())
        .collect();
    // Passive cut configurations in ascending cost order.
    let mut configs: Vec<(Vec<usize>, Cut)> = (0u64..(1u64 << passives.len().min(20)))
        .map(|mask| {
            let mut c = Cut::with_capacity(nd);
            for (b, &p) in passives.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    c.insert(p);
                }
            }
            (super::resolution::cut_cost(u, &levels, &c), c)
        })
        .collect();
    configs.sort();
    let mut best: Option<Vec<usize>> = None;
    let mut cuts: BTreeSet<Vec<usize>> = BTreeSet::new();
    for (cost, pcut) in configs {
        if best.as_ref().is_some_and(|b| &cost > b) {
            continue;
        }
        let frame = Frame::build(u, &rho, &pcut, true);
        let mut search = Search::new(&frame, levels.len());
        if search.init().is_err() {
            continue;
        }
        // `best` is shared by the bound and the visitor; keep it in a cell.
        let best_cell = std::cell::RefCell::new(best.take());
        let cuts_cell = std::cell::RefCell::new(std::mem::take(&mut cuts));
        search.dfs(
            budget,
            &mut |s| best_cell.borrow().as_ref().is_none_or(|b| &s.cost <= b),
            &mut |s| {
                let mut b = best_cell.borrow_mut();
                let mut c = cuts_cell.borrow_mut();
                if b.as_ref().is_none_or(|b| &s.cost < b) {
                    *b = Some(s.cost.clone());
                    c.clear();
                }
                c.insert(s.cut().ones().collect());
            },
        )?;
        best = best_cell.into_inner();
        cuts = cuts_cell.into_inner();
    }
    let best = best.expect("cutting every effect always leaves an acceptable resolution");
    let cuts = cuts
        .into_iter()
        .map(|ones| {
            let mut c = Cut::with_capacity(nd);
            ones.into_iter().for_each(|i| c.insert(i));
            c
        })
        .collect();
    Ok((best, cuts))
}

/// The whole analysis: resolutions of E; for a paradox, every optimal cut and the
/// resolutions of each E[F].
pub fn analyse(u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
    let resolutions = resolutions(u, &Cut::with_capacity(u.n_declared), budget)?;
    let cuts = if resolutions.is_empty() {
        let (cost, cuts) = optimal_cuts(u, budget)?;
        let mut optimal = Vec::with_capacity(cuts.len());
        for f in cuts {
            let rs = self::resolutions(u, &f, budget)?;
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
