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
//!   passives succeed unless cut and a frame fixes which passives are cut); for a
//!   `visited:K` passive p, `live[c] <-> some trigger of c visits`;
//! * (C6) for an action g that may fire a `visited:K`, a third variable `vis[g] <->
//!   live[g] and no source of g in S` (a source stops g at its source: a block rule or a
//!   commute, [`frame::Frame`]'s `sources`);
//! * (C5) grounded creation: the live created effects can be ordered so that each has a
//!   trigger in S (or, for a `visited:K`, one that visits) that is declared or earlier
//!   in the order. C1-C4 propagate during the
//!   search (and, in the cut search, C5 as unfounded sets: [`ground`]); C5 is checked on
//!   every complete labelling of a component (a derivation chain
//!   never leaves its component: trigger edges join it), and labellings whose created
//!   effects only support each other are rejected.
//!
//! Resolving, the search labels effects IN (s), OUT (live, not s) or ABSENT (not live),
//! propagating each constraint with counters (attackers in S / undecided, triggers in S /
//! undecided) and undoing through a trail; the components of a frame are searched one by
//! one (resolutions are their products). The cut search builds the same frames in cut
//! mode (declared effects may be cut; cut dominance; unblockable passives guard the blocks
//! on their owner) and minimises each component with the nogood-learning search of
//! [`self::cuts`] and [`self::learn`].
//!
//! A large component is answered through its product form instead ([`analyse_part`]: one
//! cut-search frame without deflections, or the component written once with its
//! redirections as decisions by [`self::redirect`], split by [`self::split`] into what
//! every optimal labelling shares and independent groups, the answer built by
//! [`crate::systems::ar::answer::pieces`]).
//!
//! Invariants: the engine never calls the SAT layer; every solution it reports satisfies
//! C1-C5 for the frame, hence (by construction of the frame) the contract; tests re-check
//! every answer with `semantics::check`.
//!
//! The direct engine's layer: this module on top of its frames ([`frame`]), the
//! nogood-learning search ([`learn`]), cut minimisation and large-component enumeration
//! on it ([`cuts`]), the engine without frames ([`redirect`]) and the product form
//! ([`split`]). Imports the night and the answer, never the SAT engine nor the judge
//! (tests/layers.rs).

pub mod cuts;
pub mod frame;
pub mod ground;
pub mod learn;
pub mod oll;
pub mod redirect;
pub mod split;

use self::frame::Frame;
use crate::systems::ar::answer::collapse::{self, Found};
use crate::systems::ar::answer::pieces::PartAnswer;
use crate::systems::ar::night::model::{ActionKind, End, Player, Redirection};
use crate::systems::ar::night::resolution::{
    analyse_with, declared_map, group_ways, restrict, Analysis, Cut, Resolution, Resolver,
    TargetMap, WaysByResolution,
};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use itertools::Itertools;
use std::collections::{BTreeSet, HashSet};

const UNKNOWN: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;

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
    /// Per action that may create by visiting: its sources in S / undecided.
    src_true: Vec<u32>,
    src_open: Vec<u32>,
    nodes: u64,
    /// The created effects of the scope being searched (for C5 at its leaves).
    created: Vec<Ix>,
}

impl<'f> Search<'f> {
    fn new(f: &'f Frame) -> Search<'f> {
        debug_assert!(!f.cut_dominance, "cut search runs in `cuts`, not here");
        Search {
            f,
            val: vec![UNKNOWN; 3 * f.n],
            trail: Vec::with_capacity(2 * f.n),
            queue: Vec::new(),
            att_true: vec![0; f.n],
            att_open: f.attackers.iter().map(|a| a.len() as u32).collect(),
            trig_true: vec![0; f.n],
            trig_open: f.triggers.iter().map(|t| t.len() as u32).collect(),
            src_true: vec![0; f.n],
            src_open: f.sources.iter().map(|t| t.len() as u32).collect(),
            nodes: 0,
            created: Vec::new(),
        }
    }

    fn s(&self, u: Ix) -> u8 {
        self.val[u]
    }

    fn live(&self, u: Ix) -> u8 {
        self.val[self.f.n + u]
    }

    /// Whether action u visits (tracked only for actions that may create by visiting).
    fn vis(&self, u: Ix) -> u8 {
        self.val[2 * self.f.n + u]
    }

    /// The variable by which trigger g counts for created c: its success, or its visit.
    fn tvar(&self, c: Ix, g: Ix) -> usize {
        if self.f.on_visit[c] {
            2 * self.f.n + g
        } else {
            g
        }
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
            for &g in &f.source_of[var] {
                self.src_open[g] -= 1;
                if value {
                    self.src_true[g] += 1;
                }
            }
        } else if var >= 2 * f.n {
            for &c in &f.vtrig_of[var - 2 * f.n] {
                self.trig_open[c] -= 1;
                if value {
                    self.trig_true[c] += 1;
                }
            }
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
                for &g in &f.source_of[var] {
                    self.src_open[g] += 1;
                    if value {
                        self.src_true[g] -= 1;
                    }
                }
            } else if var >= 2 * f.n {
                for &c in &f.vtrig_of[var - 2 * f.n] {
                    self.trig_open[c] += 1;
                    if value {
                        self.trig_true[c] -= 1;
                    }
                }
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
        if self.att_true[y] > 0 {
            self.force(y, false)?;
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
                        .map(|&g| self.tvar(c, g))
                        .find(|&g| self.val[g] == UNKNOWN)
                        .expect("one trigger is open");
                    self.force(g, true)?;
                }
            }
            FALSE => {
                if self.s(p) == TRUE {
                    for i in 0..self.f.triggers[c].len() {
                        self.force(self.tvar(c, self.f.triggers[c][i]), false)?;
                    }
                } else if self.trig_true[c] > 0 {
                    self.force(p, false)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// (C6) for an action g that may create by visiting: `vis[g] <-> live[g] and no source
    /// of g in S`.
    fn check_vis(&mut self, g: Ix) -> Result<(), Conflict> {
        let f = self.f;
        if f.vtrig_of[g].is_empty() {
            return Ok(());
        }
        let (n, v) = (f.n, 2 * f.n + g);
        if self.src_true[g] > 0 || self.live(g) == FALSE {
            self.force(v, false)?;
        }
        match self.vis(g) {
            TRUE => {
                self.force(n + g, true)?;
                for i in 0..f.sources[g].len() {
                    self.force(f.sources[g][i], false)?;
                }
            }
            FALSE if self.src_true[g] == 0 => {
                if self.src_open[g] == 0 {
                    self.force(n + g, false)?;
                } else if self.src_open[g] == 1 && self.live(g) == TRUE {
                    let a = f.sources[g]
                        .iter()
                        .copied()
                        .find(|&a| self.val[a] == UNKNOWN)
                        .expect("one source is open");
                    self.force(a, true)?;
                }
            }
            FALSE => {}
            _ => {
                if self.src_true[g] == 0 && self.src_open[g] == 0 && self.live(g) == TRUE {
                    self.force(v, true)?;
                }
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
                for i in 0..f.req_of[a].len() {
                    self.check_trig(f.req_of[a][i])?;
                }
                if self.s(a) == TRUE {
                    for i in 0..f.attackers[a].len() {
                        self.force(f.attackers[a][i], false)?;
                    }
                }
                for i in 0..f.source_of[a].len() {
                    self.check_vis(f.source_of[a][i])?;
                }
            } else if var < 2 * f.n {
                let y = var - f.n;
                self.check_node(y)?;
                if f.req[y].is_some() {
                    self.check_trig(y)?;
                }
                self.check_vis(y)?;
            } else {
                let g = var - 2 * f.n;
                self.check_vis(g)?;
                for i in 0..f.vtrig_of[g].len() {
                    self.check_trig(f.vtrig_of[g][i])?;
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
            self.check_vis(y)?;
        }
        self.propagate()
    }

    /// The next undecided variable to branch on, looking at `scope[from..]` (everything
    /// before `from` is decided), with its position in the scope.
    fn pick(&self, scope: &[Ix], from: usize) -> Option<(usize, usize)> {
        let n = self.f.n;
        scope[from..].iter().enumerate().find_map(|(i, &u)| {
            if self.val[u] == UNKNOWN {
                Some((from + i, u))
            } else if self.val[n + u] == UNKNOWN {
                Some((from + i, n + u))
            } else {
                None
            }
        })
    }

    /// (C5) on a labelling complete on a union of components whose created effects are
    /// `created`: every live created effect is derivable from triggers in S that are
    /// declared or themselves derived (least fixed point, by a worklist: linear).
    fn grounded(&self, created: &[Ix]) -> bool {
        let f = self.f;
        let n = f.n;
        let nd = f.level.len();
        let live = |c: Ix| self.val[n + c] == TRUE;
        let mut derived = FixedBitSet::with_capacity(n);
        let mut work: Vec<Ix> = Vec::new();
        let mut pending = 0;
        for &c in created.iter().filter(|&&c| live(c)) {
            pending += 1;
            if f.triggers[c]
                .iter()
                .any(|&g| g < nd && self.val[self.tvar(c, g)] == TRUE)
            {
                derived.insert(c);
                work.push(c);
            }
        }
        let mut done = 0;
        while let Some(g) = work.pop() {
            done += 1;
            // What g creates by succeeding, and by visiting (a failed g may still visit).
            let succeeded = (self.val[g] == TRUE).then_some(&f.trig_of[g]);
            let visited = (self.vis(g) == TRUE).then_some(&f.vtrig_of[g]);
            for &c in succeeded.into_iter().chain(visited).flatten() {
                if live(c) && !derived.contains(c) {
                    derived.insert(c);
                    work.push(c);
                }
            }
        }
        done == pending
    }

    /// Depth-first search over the variables of `scope` (a union of components); `visit`
    /// sees every labelling complete on the scope and returns `true` to stop the search.
    /// Returns whether the search was stopped by `visit`. The state at entry is left as
    /// propagated.
    fn dfs(
        &mut self,
        scope: &[Ix],
        from: usize,
        budget: &Budget,
        visit: &mut dyn FnMut(&Search) -> bool,
    ) -> Result<bool, Interrupted> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) {
            budget.check()?;
        }
        if self.propagate().is_err() {
            return Ok(false);
        }
        // Deeper nodes only decide more, so the scan goes on from the parent's choice.
        let Some((at, var)) = self.pick(scope, from) else {
            return Ok(self.grounded(&self.created) && visit(self));
        };
        // Two branches (IN / not IN, or present / absent); the rest follows by propagation.
        for x in [true, false] {
            let mark = self.trail.len();
            let ok = self.force(var, x).is_ok();
            let stop = ok && self.dfs(scope, at, budget, visit)?;
            self.undo_to(mark);
            if stop {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The labels a search gave to the variables of one component: (var, value).
type Partial = Vec<(usize, bool)>;

/// Components of at least this many effects are enumerated by the learning search of
/// [`self::cuts::labellings`] instead of the plain labelling search (which pays for
/// ungrounded complete labellings one by one). Tests lower it to cover both paths.
#[cfg(not(test))]
const LEARN_FROM: usize = 64;
#[cfg(test)]
const LEARN_FROM: usize = 4;

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
    fn per_component(
        &mut self,
        u: &Universe,
        budget: &Budget,
    ) -> Result<Option<Vec<Vec<Partial>>>, Interrupted> {
        let f = self.f;
        let mark = self.trail.len();
        let mut out = Vec::new();
        let mut fixed = None;
        for comp in &f.components {
            self.created.clear();
            self.created
                .extend(comp.iter().copied().filter(|&c| f.created[c]));
            if self.pick(comp, 0).is_none() {
                if !self.grounded(&self.created) {
                    return Ok(None);
                }
                continue;
            }
            let mut sols = Vec::new();
            let bytes = 48 + 32 * comp.len() as u64;
            let mut full = false;
            if comp.len() >= LEARN_FROM {
                let fixed = fixed.get_or_insert_with(|| self::cuts::fixed_labels(f));
                self::cuts::labellings(u, f, fixed, comp, budget, &mut |labels| {
                    full = budget.charge("component labellings", bytes).is_err();
                    sols.push(labels);
                    full
                })?;
            } else {
                self.dfs(comp, 0, budget, &mut |s| {
                    full = budget.charge("component labellings", bytes).is_err();
                    sols.push(s.partial(comp));
                    full
                })?;
            }
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

/// Universes with more uncut deflections than this are answered without frames, by
/// [`self::redirect`] (deflections as decisions of the learning search): frames number
/// up to 2^d. Tests lower it so that the property tests cover both paths.
#[cfg(not(test))]
const FRAMES_UP_TO: usize = 3;
#[cfg(test)]
const FRAMES_UP_TO: usize = 1;

/// Whether E[cut] has too many deflections for frames (see [`FRAMES_UP_TO`]).
fn lazy(u: &Universe, cut: &Cut) -> bool {
    u.general.is_none()
        && u.deflector
            .iter()
            .flatten()
            .filter(|&&g| !cut.contains(g))
            .nth(FRAMES_UP_TO)
            .is_some()
}

/// Every acceptable resolution of E[cut].
pub fn resolutions(
    u: &Universe,
    cut: &Cut,
    budget: &Budget,
) -> Result<Vec<Resolution>, Interrupted> {
    if lazy(u, cut) {
        return self::redirect::resolutions(u, cut, budget);
    }
    let mut found = WaysByResolution::new();
    for (active, rho) in redirection_frames(u, cut, budget)? {
        let frame = Frame::build(u, &rho, cut, false, &active, budget)?;
        let mut search = Search::new(&frame);
        if search.init().is_err() {
            continue;
        }
        let Some(parts) = search.per_component(u, budget)? else {
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

/// The distinct final maps of one set of active redirections `on` when the night has
/// more than plain deflections: the maps every processing order of `on` reaches, applied
/// step by step ([`process`]). Orders that reach the same map after the same set of
/// redirections continue alike, so the search runs over (set processed, map) states, one
/// layer per set size: at most 2^|on| sets, each with the distinct maps its orders reach
/// (usually one), instead of |on|! orders.
fn processed(
    u: &Universe,
    base: &TargetMap,
    on: &[Ix],
    budget: &Budget,
) -> Result<Vec<TargetMap>, Interrupted> {
    let mut layer: HashSet<(u64, TargetMap)> = HashSet::from([(0, base.clone())]);
    // The layer held now is charged to the memory meter, and given back once replaced.
    let mut held = 0;
    for _ in 0..on.len() {
        let mut next = HashSet::new();
        for (done, rho) in &layer {
            budget.check()?;
            for (b, &g) in on.iter().enumerate() {
                if done >> b & 1 == 1 {
                    continue;
                }
                let mut after = rho.clone();
                process(u, &mut after, g);
                next.insert((done | 1 << b, after));
            }
        }
        let bytes = next.len() as u64 * (u.map_bytes() + 8);
        budget.release(held);
        budget.charge("redirection orders", bytes)?;
        held = bytes;
        layer = next;
    }
    budget.release(held);
    let maps: BTreeSet<TargetMap> = layer.into_iter().map(|(_, m)| m).collect();
    Ok(maps.into_iter().collect())
}

/// Processes one active redirection `g` on `rho`: the slots of every other action whose
/// kind g moves ([`Redirection::moves`]) go where g's [`Redirection`] sends them, g's own
/// slots read at their current values.
fn process(u: &Universe, rho: &mut TargetMap, g: Ix) {
    let ge = &u.effects[g];
    let kind = ge.action().expect("redirections are actions");
    let how = Redirection::of(kind, ge.targets.len()).expect("a redirection");
    let at = |rho: &TargetMap, end: End| match end {
        End::Actor => ge.actor,
        End::Slot(k) => rho[g][k],
    };
    // A redirection's own slots are read before any slot moves (it never moves itself).
    let (a, b) = match how {
        Redirection::Move { from, to } => (at(rho, from), at(rho, to)),
        Redirection::Swap | Redirection::Steer => (rho[g][0], rho[g][1]),
    };
    for (h, slots) in rho.iter_mut().enumerate() {
        let he = &u.effects[h];
        let Some(hk) = he.action() else { continue };
        if h == g || slots.is_empty() || !Redirection::moves(kind, ge.mods, hk, he.mods) {
            continue;
        }
        match how {
            Redirection::Move { .. } => slots.iter_mut().filter(|t| **t == a).for_each(|t| *t = b),
            Redirection::Swap => slots.iter_mut().for_each(|t| {
                *t = if *t == a {
                    b
                } else if *t == b {
                    a
                } else {
                    *t
                }
            }),
            Redirection::Steer => {
                if he.actor == a {
                    slots.iter_mut().for_each(|t| *t = b);
                }
            }
        }
    }
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
    let deflects: Vec<Ix> = match &u.general {
        Some(g) => g
            .redirections
            .iter()
            .copied()
            .filter(|&i| !cut.contains(i))
            .collect(),
        None => (0..u.n_declared)
            .filter(|&i| u.effects[i].action() == Some(ActionKind::Deflect) && !cut.contains(i))
            .collect(),
    };
    let mut frames = Vec::new();
    // Each frame holds its own list of which deflections are active, besides its map.
    let active_bytes = 24 + (deflects.len() * std::mem::size_of::<(Ix, bool)>()) as u64;
    for mask in 0u64..(1u64 << deflects.len().min(63)) {
        let active: Vec<(Ix, bool)> = deflects
            .iter()
            .enumerate()
            .map(|(b, &d)| (d, mask >> b & 1 == 1))
            .collect();
        let on: Vec<Ix> = active.iter().filter(|a| a.1).map(|a| a.0).collect();
        budget.check()?;
        let maps = if u.general.is_some() {
            processed(u, &base, &on, budget)?
        } else {
            redirections(u, &base, &on)
        };
        budget.charge(
            "redirection frames",
            maps.len() as u64 * (u.map_bytes() + active_bytes),
        )?;
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

/// The optimal cost vector and every optimal Gordian cut (for any ensemble; the empty cut
/// is optimal when E has a resolution).
///
/// One cut-search frame per redirection (a cut deflection is never active, so the frames
/// of "every deflection may be active" cover every cut); within a frame, each component is
/// minimised on its own by the learning search of [`self::cuts`] and the optima add up
/// (the lexicographic order is compatible with addition). Unblockable passives are
/// variables of that search like every other effect: a block on their owner hits only if
/// all of them are cut.
pub fn optimal_cuts(u: &Universe, budget: &Budget) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
    let levels = u.levels().len();
    let nd = u.n_declared;
    let none = Cut::with_capacity(nd);
    if lazy(u, &none) {
        return self::redirect::optimal_cuts(u, budget);
    }
    let frames = redirection_frames(u, &none, budget)?;
    let mut best: Option<Vec<usize>> = None;
    let mut cuts: Vec<Cut> = Vec::new();
    'frames: for (active, rho) in &frames {
        let frame = Frame::build(u, rho, &none, true, active, budget)?;
        let fixed = self::cuts::fixed_labels(&frame);
        let mut total = vec![0; levels];
        let mut per_comp: Vec<Vec<Vec<Ix>>> = Vec::new();
        for comp in &frame.components {
            let found = self::cuts::component_cuts(u, &frame, &fixed, comp, levels, budget)?;
            let Some((d, cs)) = found else {
                continue 'frames;
            };
            for (t, x) in total.iter_mut().zip(&d) {
                *t += x;
            }
            if best.as_ref().is_some_and(|b| &total > b) {
                continue 'frames; // costs only add up from here
            }
            if cs.iter().any(|c| !c.is_empty()) {
                per_comp.push(cs.into_iter().collect());
            }
        }
        if best.as_ref().is_none_or(|b| &total < b) {
            best = Some(total);
            cuts.clear();
        }
        for choice in product(&per_comp) {
            budget.charge("cuts", u.set_bytes())?;
            let mut c = Cut::with_capacity(nd);
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

/// Components of at least this many universe effects are answered
/// through their product form ([`self::split`], [`crate::systems::ar::answer::pieces`]): what every optimal
/// labelling shares fixed, the rest in independent groups. Tests lower it so that the
/// property tests cover that path.
#[cfg(not(test))]
const SPLIT_FROM: usize = 64;
#[cfg(test)]
const SPLIT_FROM: usize = 4;

/// One component's answer: through its product form when it is large (one cut-search
/// frame without deflections, else the component written once by [`self::redirect`]), as
/// pieces when that product is large; otherwise [`analyse`]. Identical passives are
/// solved as one ([`collapse`]).
pub fn analyse_part(u: &Universe, budget: &Budget) -> Result<PartAnswer, Interrupted> {
    collapse::answer(u, budget, find)
}

/// What [`analyse_part`] finds on a (collapsed) component.
fn find(u: &Universe, budget: &Budget) -> Result<Found, Interrupted> {
    if u.len() < SPLIT_FROM || u.general.is_some() || u.links_deaths() {
        return analyse(u, budget).map(Found::Flat);
    }
    let products = if u.has_deflections() {
        // Written once, redirections as decisions: no frame per set of deflections.
        let Some(p) = self::redirect::product(u, budget)? else {
            unreachable!("cutting every declared effect always leaves a labelling");
        };
        vec![p]
    } else {
        let none = Cut::with_capacity(u.n_declared);
        let frame = Frame::build(u, &declared_map(u), &none, true, &[], budget)?;
        let fixed = self::cuts::fixed_labels(&frame);
        let mut products = Vec::with_capacity(frame.components.len());
        for comp in &frame.components {
            let Some(p) = self::split::product(u, &frame, &fixed, comp, budget)? else {
                unreachable!("cutting every declared effect always leaves a labelling");
            };
            products.push(p);
        }
        products
    };
    Ok(Found::Products(products))
}

/// The whole analysis: resolutions of E; for a paradox, every optimal cut and the
/// resolutions of each E[F].
pub fn analyse(u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
    analyse_with(u, &mut Direct { u, budget })
}
