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
//!   passives succeed unless cut and a frame fixes which passives are cut);
//! * (C5) grounded creation: the live created effects can be ordered so that each has a
//!   trigger in S that is declared or earlier in the order. C1-C4 propagate during the
//!   search; C5 is checked on every complete labelling of a component (a derivation chain
//!   never leaves its component: trigger edges join it), and labellings whose created
//!   effects only support each other are rejected.
//!
//! The search labels effects IN (s), OUT (live, not s) or CUT/ABSENT (not live), propagating
//! each constraint with counters (attackers in S / undecided, triggers in S / undecided)
//! and undoing through a trail. Cut search is branch and bound over the same labels, with
//! the lexicographic cost vector of the cut effects as the bound.
//!
//! Invariants: the engine never calls the SAT layer; every solution it reports satisfies
//! C1-C5 for the frame, hence (by construction of the frame) the contract; tests re-check
//! every answer with `semantics::check`.

use super::model::{ActionKind, Kind, PassiveKind, Player};
use super::resolution::{
    analyse_with, group_ways, Analysis, Cut, Resolution, Resolver, TargetMap, WaysByResolution,
};
use super::universe::{Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use itertools::Itertools;
use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use petgraph::unionfind::UnionFind;
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
    /// For a created effect, its reflexive passive (which must be in S for it to exist).
    req: Vec<Option<Ix>>,
    /// For a reflexive passive, the created effects that require it.
    req_of: Vec<Vec<Ix>>,
    created: Vec<bool>,
    /// Level index of each declared effect (for the cost vector).
    level: Vec<usize>,
    /// Fixed initial labels: (var, value); var < n is s[var], else live[var - n].
    fixed: Vec<(usize, bool)>,
    /// Cut search: a cut declared effect has no attacker in S (see [`Frame::build`]).
    cut_dominance: bool,
    /// Connected components of the attack and trigger graph: labellings of different
    /// components are independent, so resolutions are products and cut costs add up.
    components: Vec<Vec<Ix>>,
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
    /// `active` fixes the success of every `deflect` effect: a frame is built for one set
    /// of active deflections and one of their redirections (see [`redirection_frames`]).
    /// Building is quadratic in the universe, so it polls `budget`.
    pub fn build(
        u: &Universe,
        rho: &TargetMap,
        cut: &Cut,
        cut_search: bool,
        active: &[(Ix, bool)],
        budget: &Budget,
    ) -> Result<Frame, Interrupted> {
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
            budget.check()?;
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
                budget.check()?;
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
            } else if i < u.n_declared
                && (!cut_search || u.effects[i].kind == Kind::Passive(PassiveKind::Unblockable))
            {
                fixed.push((n + i, true));
            }
        }
        fixed.extend(active.iter().filter(|&&(d, _)| !dead[d]));
        let level = (0..u.n_declared)
            .map(|i| {
                levels
                    .binary_search(&u.effects[i].priority)
                    .expect("every priority is a level")
            })
            .collect();
        let mut req = vec![None; n];
        let mut req_of = vec![Vec::new(); n];
        for c in (0..n).filter(|&c| !dead[c]) {
            if let Origin::Created { passive, .. } = u.effects[c].origin {
                req[c] = Some(passive);
                req_of[passive].push(c);
            }
        }
        let comps = components(n, &attacks, &trig_of, &req_of);
        Ok(Frame {
            n,
            attackers,
            attacks,
            triggers,
            trig_of,
            req,
            req_of,
            created,
            level,
            fixed,
            cut_dominance: cut_search,
            components: comps,
            rho: rho.clone(),
        })
    }
}

/// Connected components of the graph of attack and trigger edges. Each component lists
/// its effects upstream first (strongly connected components in topological order of
/// the directed graph), so the search decides causes before the effects they force.
fn components(
    n: usize,
    attacks: &[Vec<Ix>],
    trig_of: &[Vec<Ix>],
    req_of: &[Vec<Ix>],
) -> Vec<Vec<Ix>> {
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, 0);
    let nodes: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    let mut uf = UnionFind::new(n);
    for a in 0..n {
        for &y in attacks[a].iter().chain(&trig_of[a]).chain(&req_of[a]) {
            g.add_edge(nodes[a], nodes[y], ());
            uf.union(a, y);
        }
    }
    // tarjan_scc lists SCCs in reverse topological order.
    let mut rank = vec![0; n];
    for (r, scc) in tarjan_scc(&g).iter().rev().enumerate() {
        for v in scc {
            rank[v.index()] = r;
        }
    }
    let mut by_root: Vec<Vec<Ix>> = vec![Vec::new(); n];
    for x in 0..n {
        by_root[uf.find(x)].push(x);
    }
    let mut comps: Vec<Vec<Ix>> = by_root.into_iter().filter(|c| !c.is_empty()).collect();
    for c in &mut comps {
        c.sort_by_key(|&x| (rank[x], x));
    }
    comps
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
    /// Effects at this level index or later branch "not IN" first.
    out_first_from: usize,
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
            out_first_from: usize::MAX,
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

    /// (C4) for created c with passive p: `live[c] <-> s[p] and some trigger in S`.
    fn check_trig(&mut self, c: Ix) -> Result<(), Conflict> {
        let n = self.f.n;
        let p = self.f.req[c].expect("created effects have a passive");
        if self.s(p) == FALSE {
            self.force(n + c, false)?;
        }
        if self.trig_true[c] > 0 {
            if self.s(p) == TRUE {
                self.force(n + c, true)?;
            }
        } else if self.trig_open[c] == 0 {
            self.force(n + c, false)?;
        }
        match self.live(c) {
            TRUE => {
                self.force(p, true)?;
                if self.trig_true[c] == 0 && self.trig_open[c] == 1 {
                    let g = self.f.triggers[c]
                        .iter()
                        .copied()
                        .find(|&g| self.val[g] == UNKNOWN)
                        .expect("one trigger is open");
                    self.force(g, true)?;
                }
            }
            FALSE => {
                if self.s(p) == TRUE {
                    for i in 0..self.f.triggers[c].len() {
                        self.force(self.f.triggers[c][i], false)?;
                    }
                } else if self.trig_true[c] > 0 {
                    self.force(p, false)?;
                }
            }
            _ => {}
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
                for i in 0..f.req_of[a].len() {
                    self.check_trig(f.req_of[a][i])?;
                }
                if self.s(a) == TRUE {
                    for i in 0..f.attackers[a].len() {
                        self.force(f.attackers[a][i], false)?;
                    }
                }
            } else {
                let y = var - f.n;
                self.check_node(y)?;
                if f.req[y].is_some() {
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
            if self.f.req[y].is_some() {
                self.check_trig(y)?;
            }
        }
        self.propagate()
    }

    /// The next undecided variable to branch on.
    fn pick(&self, scope: &[Ix]) -> Option<usize> {
        let n = self.f.n;
        scope.iter().find_map(|&u| {
            if self.val[u] == UNKNOWN {
                Some(u)
            } else if self.val[n + u] == UNKNOWN {
                Some(n + u)
            } else {
                None
            }
        })
    }

    /// (C5) on a labelling complete on `scope` (a union of components): every live
    /// created effect is derivable from triggers in S that are declared or themselves
    /// derived (least fixed point).
    fn grounded(&self, scope: &[Ix]) -> bool {
        let f = self.f;
        let n = f.n;
        let nd = f.level.len();
        let mut pending: Vec<Ix> = scope
            .iter()
            .copied()
            .filter(|&c| f.created[c] && self.val[n + c] == TRUE)
            .collect();
        if pending.is_empty() {
            return true;
        }
        let mut derived = vec![false; n];
        loop {
            let before = pending.len();
            pending.retain(|&c| {
                let ok = f.triggers[c]
                    .iter()
                    .any(|&g| self.val[g] == TRUE && (g < nd || derived[g]));
                if ok {
                    derived[c] = true;
                }
                !ok
            });
            if pending.is_empty() {
                return true;
            }
            if pending.len() == before {
                return false;
            }
        }
    }

    /// Depth-first search over the variables of `scope` (a union of components); `visit`
    /// sees every labelling complete on the scope and returns `true` to stop the search.
    /// `bound` prunes a node whose cost vector already exceeds it. Returns whether the
    /// search was stopped by `visit`. The state at entry is left as propagated.
    fn dfs(
        &mut self,
        scope: &[Ix],
        budget: &Budget,
        bound: &mut dyn FnMut(&Search) -> bool,
        visit: &mut dyn FnMut(&Search) -> bool,
    ) -> Result<bool, Interrupted> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) {
            budget.check()?;
        }
        if self.propagate().is_err() || !bound(self) {
            return Ok(false);
        }
        let Some(var) = self.pick(scope) else {
            return Ok(self.grounded(scope) && visit(self));
        };
        let n = self.f.n;
        // Two branches on s (IN / not IN); liveness follows by propagation: in cut search
        // an effect not in S is OUT if attacked by S and CUT otherwise (dominance), and a
        // created effect is present iff triggered. Effects at levels the current query
        // leaves free try "not IN" first, since staying out of S constrains nothing.
        let branches: [(usize, bool); 2] = if var < n {
            let out_first = var < self.f.level.len()
                && self.f.level[var] >= self.out_first_from
                && self.live(var) == UNKNOWN;
            if out_first {
                [(var, false), (var, true)]
            } else {
                [(var, true), (var, false)]
            }
        } else {
            [(var, true), (var, false)]
        };
        for &(v, x) in &branches {
            let mark = self.trail.len();
            let ok = self.force(v, x).is_ok();
            let stop = ok && self.dfs(scope, budget, bound, visit)?;
            self.undo_to(mark);
            if stop {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether some labelling complete on `scope` lies within `bound` (state restored).
    fn exists(
        &mut self,
        scope: &[Ix],
        budget: &Budget,
        bound: &mut dyn FnMut(&Search) -> bool,
    ) -> Result<bool, Interrupted> {
        let mark = self.trail.len();
        let found = self.dfs(scope, budget, bound, &mut |_| true)?;
        self.undo_to(mark);
        Ok(found)
    }

    /// Every cut (declared effects of `scope` labelled CUT) within `bound` that has a
    /// labelling: cut decisions are branched first, then one labelling is searched per
    /// cut. Found cuts are added to `found` (state restored).
    fn enumerate_cuts(
        &mut self,
        scope: &[Ix],
        budget: &Budget,
        bound: &mut dyn FnMut(&Search) -> bool,
        found: &mut BTreeSet<Vec<Ix>>,
    ) -> Result<(), Interrupted> {
        let mark = self.trail.len();
        if self.propagate().is_ok() && bound(self) {
            let nd = self.f.level.len();
            let n = self.f.n;
            let open = scope
                .iter()
                .copied()
                .find(|&i| i < nd && self.val[n + i] == UNKNOWN);
            match open {
                Some(i) => {
                    for value in [true, false] {
                        let m = self.trail.len();
                        if self.force(n + i, value).is_ok() {
                            self.enumerate_cuts(scope, budget, bound, found)?;
                        }
                        self.undo_to(m);
                    }
                }
                None => {
                    let cut: Vec<Ix> = scope
                        .iter()
                        .copied()
                        .filter(|&i| i < nd && self.val[n + i] == FALSE)
                        .collect();
                    if !found.contains(&cut) && self.exists(scope, budget, bound)? {
                        budget.charge("cuts", 48 + 8 * cut.len() as u64)?;
                        found.insert(cut);
                    }
                }
            }
        }
        self.undo_to(mark);
        Ok(())
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

/// The labels a search gave to the variables of one component: (var, value).
type Partial = Vec<(usize, bool)>;

impl Search<'_> {
    /// The current labels of the variables of `comp`.
    fn partial(&self, comp: &[Ix]) -> Partial {
        let n = self.f.n;
        comp.iter()
            .flat_map(|&u| [(u, self.val[u] == TRUE), (n + u, self.val[n + u] == TRUE)])
            .collect()
    }

    /// Every complete labelling of the components still undecided after `init`, each
    /// component on its own (they are independent). `None` if some component has none.
    fn per_component(&mut self, budget: &Budget) -> Result<Option<Vec<Vec<Partial>>>, Interrupted> {
        let f = self.f;
        let mark = self.trail.len();
        let mut out = Vec::new();
        for comp in &f.components {
            if self.pick(comp).is_none() {
                if !self.grounded(comp) {
                    return Ok(None);
                }
                continue;
            }
            let mut sols = Vec::new();
            let bytes = 48 + 32 * comp.len() as u64;
            let mut full = false;
            self.dfs(comp, budget, &mut |_| true, &mut |s| {
                full = budget.charge("component labellings", bytes).is_err();
                sols.push(s.partial(comp));
                full
            })?;
            budget.check()?;
            self.undo_to(mark);
            if sols.is_empty() {
                return Ok(None);
            }
            out.push(sols);
        }
        Ok(Some(out))
    }
}

/// Every acceptable resolution of E[cut].
pub fn resolutions(
    u: &Universe,
    cut: &Cut,
    budget: &Budget,
) -> Result<Vec<Resolution>, Interrupted> {
    let mut found = WaysByResolution::new();
    for (active, rho) in redirection_frames(u, cut, budget)? {
        let frame = Frame::build(u, &rho, cut, false, &active, budget)?;
        let mut search = Search::new(&frame, u.ensemble.priority_levels().len());
        if search.init().is_err() {
            continue;
        }
        let Some(parts) = search.per_component(budget)? else {
            continue;
        };
        let base = search.val.clone();
        let n = frame.n;
        for choice in product(&parts) {
            let mut val = base.clone();
            for part in choice {
                for &(var, b) in part {
                    val[var] = if b { TRUE } else { FALSE };
                }
            }
            let mut present = FixedBitSet::with_capacity(n);
            let mut succeeded = FixedBitSet::with_capacity(n);
            for i in 0..n {
                present.set(i, !frame.created[i] || val[n + i] == TRUE);
                succeeded.set(i, val[i] == TRUE);
            }
            budget.charge("ways", u.map_bytes() + 2 * u.set_bytes())?;
            let way = restrict(u, &frame.rho, &present, cut);
            found.entry((present, succeeded)).or_default().push(way);
        }
    }
    let out = group_ways(u, found);
    Ok(out)
}

/// The distinct final maps of one set of active deflections `on`, without trying every
/// processing order. Processing an active deflection of player d whose current target c
/// differs from d sends every slot at d on to c, and no slot reaches d again. So a slot
/// declared at p ends at the first player along p's chain of active deflections (p, its
/// deflect's target, ...) who has none; or, if the chain runs into a cycle of active
/// deflections, at the member of that cycle processed last, which can be any member,
/// independently for each cycle. (Checked against every order by the property tests.)
fn redirections(u: &Universe, base: &TargetMap, on: &[Ix]) -> Vec<TargetMap> {
    let np = u.n_players();
    let mut next: Vec<Option<Player>> = vec![None; np];
    for &g in on {
        next[u.effects[g].actor as usize] = Some(u.effects[g].targets[0]);
    }
    // Cycles of the functional graph `next`.
    let mut state = vec![0u8; np]; // 0 new, 1 on the current walk, 2 done
    let mut cycles: Vec<Vec<Player>> = Vec::new();
    for start in 0..np {
        let mut path = Vec::new();
        let mut p = start;
        while state[p] == 0 {
            state[p] = 1;
            path.push(p);
            match next[p] {
                Some(t) => p = t as usize,
                None => break,
            }
        }
        if state[p] == 1 && next[p].is_some() {
            let from = path.iter().position(|&x| x == p).expect("p is on the walk");
            cycles.push(path[from..].iter().map(|&x| x as Player).collect());
        }
        for x in path {
            state[x] = 2;
        }
    }
    let mut maps = BTreeSet::new();
    for choice in product(&cycles) {
        // The end of every player's chain under this choice of last-processed members.
        let mut end: Vec<Player> = (0..np as Player).collect();
        for (cycle, &&last) in cycles.iter().zip(&choice) {
            for &m in cycle {
                end[m as usize] = last;
            }
        }
        let in_cycle: Vec<bool> = {
            let mut v = vec![false; np];
            cycles.iter().flatten().for_each(|&m| v[m as usize] = true);
            v
        };
        let mut done = in_cycle.clone();
        for p in 0..np {
            let mut walk = Vec::new();
            let mut q = p;
            while !done[q] {
                walk.push(q);
                match next[q] {
                    Some(t) => q = t as usize,
                    None => {
                        end[q] = q as Player;
                        break;
                    }
                }
            }
            let e = end[q];
            for x in walk {
                end[x] = e;
                done[x] = true;
            }
        }
        let rho: TargetMap = base
            .iter()
            .map(|slots| slots.iter().map(|&t| end[t as usize]).collect())
            .collect();
        maps.insert(rho);
    }
    maps.into_iter().collect()
}

/// The success label of every uncut `deflect`, and the final targets they produce.
pub type RedirectionFrame = (Vec<(Ix, bool)>, TargetMap);

/// One frame per (set of active deflections, distinct redirection of that set): the
/// success label of every uncut `deflect` and the final-target map of every action.
/// Without deflections, the single frame of the declared targets.
pub fn redirection_frames(
    u: &Universe,
    cut: &Cut,
    budget: &Budget,
) -> Result<Vec<RedirectionFrame>, Interrupted> {
    let mut base = declared_map(u);
    for (i, slots) in base.iter_mut().enumerate().take(u.n_declared) {
        if cut.contains(i) {
            slots.clear(); // a cut effect targets nobody
        }
    }
    let deflects: Vec<Ix> = (0..u.n_declared)
        .filter(|&i| u.effects[i].action() == Some(ActionKind::Deflect) && !cut.contains(i))
        .collect();
    let mut frames = Vec::new();
    for mask in 0u64..(1u64 << deflects.len().min(63)) {
        let active: Vec<(Ix, bool)> = deflects
            .iter()
            .enumerate()
            .map(|(b, &d)| (d, mask >> b & 1 == 1))
            .collect();
        let on: Vec<Ix> = active.iter().filter(|a| a.1).map(|a| a.0).collect();
        budget.check()?;
        let maps = redirections(u, &base, &on);
        budget.charge("redirection frames", maps.len() as u64 * u.map_bytes())?;
        frames.extend(maps.into_iter().map(|m| (active.clone(), m)));
    }
    Ok(frames)
}

/// Every choice of one element per list (one empty choice for no lists).
fn product<T>(lists: &[Vec<T>]) -> Box<dyn Iterator<Item = Vec<&T>> + '_> {
    if lists.is_empty() {
        Box::new(std::iter::once(Vec::new()))
    } else {
        Box::new(lists.iter().map(|l| l.iter()).multi_cartesian_product())
    }
}

/// A component's least added cost vector and its cuts (declared indices) reaching it.
type ComponentCuts = (Vec<usize>, BTreeSet<Vec<Ix>>);

/// The optimal cuts of one component: its least added cost and every cut (as declared
/// indices) reaching it. `None` if the component has no labelling at all.
///
/// Level by level, most important first, the least count k at that level is found by
/// existence queries with the earlier levels pinned at their optima and the later levels
/// free (k = 0, 1, ..., never past the count of a labelling already found); then every cut
/// with exactly the optimal vector is enumerated.
fn component_cuts(
    search: &mut Search,
    comp: &[Ix],
    base: &[usize],
    budget: &Budget,
) -> Result<Option<ComponentCuts>, Interrupted> {
    let levels = base.len();
    let delta = |s: &Search, l: usize| s.cost[l] - base[l];
    // Upper bounds from any labelling at all (every level free).
    let mut upper: Option<Vec<usize>> = None;
    search.dfs(comp, budget, &mut |_| true, &mut |s| {
        upper = Some((0..levels).map(|l| delta(s, l)).collect());
        true
    })?;
    let Some(mut upper) = upper else {
        return Ok(None);
    };
    let mut opt: Vec<usize> = Vec::with_capacity(levels);
    for level in 0..levels {
        let mut k = 0;
        while k < upper[level] {
            let pinned = opt.clone();
            let mut witness = None;
            let within = &mut |s: &Search| {
                pinned.iter().enumerate().all(|(l, &c)| delta(s, l) <= c) && delta(s, level) <= k
            };
            let mark = search.trail.len();
            search.out_first_from = level + 1;
            search.dfs(comp, budget, within, &mut |s| {
                witness = Some((0..levels).map(|l| delta(s, l)).collect::<Vec<_>>());
                true
            })?;
            search.undo_to(mark);
            if let Some(w) = witness {
                upper = w;
                break;
            }
            k += 1;
        }
        opt.push(k.min(upper[level]));
    }
    search.out_first_from = usize::MAX;
    let mut cuts = BTreeSet::new();
    let target = opt.clone();
    search.enumerate_cuts(
        comp,
        budget,
        &mut |s: &Search| (0..levels).all(|l| delta(s, l) <= target[l]),
        &mut cuts,
    )?;
    Ok(Some((opt, cuts)))
}

/// The optimal cost vector and every optimal Gordian cut (for any ensemble; the empty cut
/// is optimal when E has a resolution).
///
/// Passives are cut (or not) in an outer loop, cheapest configurations first, since they
/// change the frame (unblockable guards, bulletproof attacks, reflexive creations); within
/// a frame, each component is minimised on its own and the optima add up (the
/// lexicographic order is compatible with addition).
pub fn optimal_cuts(u: &Universe, budget: &Budget) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
    let levels = u.ensemble.priority_levels();
    let nd = u.n_declared;
    // A cut deflection is never active, so the frames of "every deflection may be active"
    // cover every cut; inactive deflections may still be cut or fail inside the search.
    let frames = redirection_frames(u, &Cut::with_capacity(nd), budget)?;
    // Unblockable passives change which blocks attack at all, so they are decided outside
    // the search; the other passives are ordinary search variables.
    let passives: Vec<Ix> = (0..nd)
        .filter(|&i| u.effects[i].kind == Kind::Passive(PassiveKind::Unblockable))
        .collect();
    let n_configs = 1u64 << passives.len().min(20);
    budget.charge(
        "unblockable-passive configurations",
        n_configs * (u.set_bytes() + 24 + 8 * levels.len() as u64),
    )?;
    let mut configs: Vec<(Vec<usize>, Cut)> = (0u64..n_configs)
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
    let mut cuts: Vec<Cut> = Vec::new();
    let runs = configs
        .iter()
        .flat_map(|(pcost, pcut)| frames.iter().map(move |(a, rho)| (pcost, pcut, a, rho)));
    'configs: for (pcost, pcut, active, rho) in runs {
        if best.as_ref().is_some_and(|b| pcost > b) {
            continue;
        }
        let frame = Frame::build(u, rho, pcut, true, active, budget)?;
        let mut search = Search::new(&frame, levels.len());
        if search.init().is_err() {
            continue;
        }
        let base = search.cost.clone();
        let base_cut = search.cut();
        let mark = search.trail.len();
        let mut total = base.clone();
        let mut per_comp: Vec<Vec<Vec<Ix>>> = Vec::new();
        for comp in &frame.components {
            if search.pick(comp).is_none() {
                if !search.grounded(comp) {
                    continue 'configs;
                }
                continue;
            }
            let found = component_cuts(&mut search, comp, &base, budget)?;
            search.undo_to(mark);
            let Some((d, cs)) = found else {
                continue 'configs;
            };
            for (t, x) in total.iter_mut().zip(&d) {
                *t += x;
            }
            per_comp.push(cs.into_iter().collect());
        }
        if best.as_ref().is_some_and(|b| &total > b) {
            continue;
        }
        if best.as_ref().is_none_or(|b| &total < b) {
            best = Some(total);
            cuts.clear();
        }
        for choice in product(&per_comp) {
            budget.charge("cuts", u.set_bytes())?;
            let mut c = base_cut.clone();
            choice.into_iter().flatten().for_each(|&i| c.insert(i));
            cuts.push(c);
        }
    }
    let best = best.expect("cutting every effect always leaves an acceptable resolution");
    cuts.sort_by(|a, b| a.ones().cmp(b.ones()));
    cuts.dedup();
    Ok((best, cuts))
}

/// The direct engine bound to one universe and budget.
struct Direct<'a> {
    u: &'a Universe,
    budget: &'a Budget,
}

impl Resolver for Direct<'_> {
    fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted> {
        resolutions(self.u, cut, self.budget)
    }
    fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
        optimal_cuts(self.u, self.budget)
    }
}

/// The whole analysis: resolutions of E; for a paradox, every optimal cut and the
/// resolutions of each E[F].
pub fn analyse(u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
    analyse_with(u, &mut Direct { u, budget })
}
