//! The SAT encoding of the contract, and its decoding back into resolutions and cuts.
//!
//! Variables: for every universe effect u, `s[u]` (u is in S) and `live[u]` (u is in R and
//! not cut: `!x[f]` for a declared effect f with cut variable `x[f]`, a fresh creation
//! variable for a created effect). For every pair (a, y) where a could make y fail, an
//! activation literal `act(a, y) <-> s[a] and cond(a, y)` (cond: the final targets meet as
//! the kind requires, and for blocks no succeeding unblockable passive of y's actor).
//! Clauses:
//!
//! * `s[u] -> live[u]`; `s[y] -> !act(a, y)` for every a;
//! * `live[y] and !s[y] -> OR_a act(a, y)` (an effect of R\S necessarily fails);
//! * for a created c(p, v): `live[c] <-> s[p] and OR_g (s[g] and owner(p) in rho(g))` over
//!   the actions g of v (creation, completed); for a `visited:K` passive p, `visit[g]`
//!   instead of `s[g]`, a gate `live[g] and not OR(activations that stop g at its
//!   source)`;
//! * grounded creation: derivation levels on every cycle of created effects that may
//!   trigger each other (see [`Encoding::encode_grounding`]; `docs/grounding.md`).
//!
//! **Redirection.** Processing an active deflection g of player d whose slot is at c != d
//! moves every slot at d to c, and afterwards no slot is ever at d again (a slot only
//! arrives at a player when a deflection whose slot points there is processed, and none
//! points at d any more). So processing g contracts d into c in the functional graph
//! "active deflector -> where its slot is", and a slot ends at a node that is never
//! contracted: a player without an active deflection, or in each cycle of active
//! deflections the one processed last (its slot then points at itself; it moves nothing).
//! Contraction keeps where paths lead, so a slot declared at p ends where the path
//! p -> T(p) -> ... of active deflections stops, or at the chosen node of the cycle it runs
//! into, and every choice of one node per cycle comes from some order (process it last).
//! Hence, with `a[q]` "q's deflection succeeds":
//!
//! * each cycle C of the deflection graph (two members or more) has one-hot `last[C]`
//!   literals, "this member is processed last": free when every deflection of C is
//!   active (the ways), pinned to C's first member otherwise;
//! * a slot passing q stops there iff `!a[q]`, or q is on such a cycle, the whole cycle
//!   is active and q is its `last` (a deflection of q to q itself moves nothing: a slot
//!   stops there);
//! * a slot declared at p passes the players of its path p -> T(p) -> ... while every
//!   deflection before them is active, and ends at the first where it stops: the final
//!   positions `end[p]` are one AND gate per step of the path.
//!
//! `end[p]` is encoded only where some read needs it ([`Encoding::at`]: blocks, stops,
//! protects, bulletproof passives and triggers read final targets); decoding walks the
//! paths in the model instead ([`Encoding::final_positions`]). So the encoding is linear
//! in the deflections plus the path steps the reads need (a chain of n deflections that
//! only a kill enters: O(n); with pairwise one-hot positions it was cubic), exactly-one
//! constraints past six literals are sequential counters, and without a deflection some
//! slot can reach, everything is constant and the clauses are exactly those of declared
//! targets. Reading final targets then costs Tseitin gates: `at(i, p)` (an OR over i's
//! slots, when i has several) and `shares(a, y)` (an AND per common player and an OR),
//! only for pairs whose final targets are not constant.
//!
//! Invariants: the encoder owns its decoding (`decode_*`); projections are exactly the
//! success, creation and cycle `last` variables (resolutions: distinct `last` values
//! under one (R, S) are distinct ways, since each free value is a cycle of deflections in
//! S whose own slots show it, and a cycle not wholly in S has its `last` pinned; models
//! with the same (R, S) are grouped into one resolution)
//! or the cut variables (cuts), so each (resolution, way) and each cut is enumerated once;
//! the encoding never calls the direct engine; it is charged to the budget's memory meter
//! as it is built and polls the budget in every loop (an interrupted encoding answers no
//! query), and gives the charge back when dropped.

use crate::sat::{enumerate_projected, lexmin, EnumerationEnd, Inputs, Lit, Solver};
use crate::systems::ar::night::model::{
    Attack, End, Kind, PassiveKind, Player, Reach, Redirection,
};
use crate::systems::ar::night::resolution::{
    analyse_with, group_ways, Analysis, Cut, Resolution, Resolver, TargetMap, WaysByResolution,
};
use crate::systems::ar::night::universe::{attack_candidates, Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The possible final positions of one action slot: (player, literal "the slot ends
/// there"), exactly one literal true in every model. A single entry holds the constant-true
/// literal.
type Positions = Vec<(Player, Lit)>;

/// The literal of `p` in `pos` (constant false if the slot cannot be at `p`).
fn lit_at(pos: &Positions, p: Player, no: Lit) -> Lit {
    pos.iter().find(|&&(q, _)| q == p).map_or(no, |&(_, l)| l)
}

/// The encoding of one universe on one incremental solver.
pub struct Encoding<'u> {
    u: &'u Universe,
    /// The solver holding the clauses.
    pub solver: Solver,
    s: Vec<Lit>,
    live: Vec<Lit>,
    x: Vec<Lit>,
    /// `end[p]`: where a slot declared at player p can end, with the literal "it ends
    /// there", built when some final target read needs it ([`Encoding::ends`]; a single
    /// constant-true entry until then, and for players no deflection moves).
    end: Vec<Positions>,
    /// `a[p]`: p's deflection succeeds (constant false for a player without one).
    active: Vec<Lit>,
    /// The cycles of the deflection graph (players in deflection order), with their
    /// `last` literals: which member is processed last, one-hot over the cycle when every
    /// deflection of it is active (a way), pinned to the first member otherwise. Cycles of
    /// one player have no literal (nothing to choose).
    cycles: Vec<(Vec<Player>, Vec<Lit>)>,
    /// `cycle_of[p]`: the cycle p is on, if any (an index into `cycles`).
    cycle_of: Vec<Option<usize>>,
    /// Cache of the "a slot passing p stops at p" literal of each player.
    stop_cache: HashMap<Player, Lit>,
    /// The players whose `end` has been encoded.
    built: FixedBitSet,
    /// Cache of [`Encoding::at`].
    at_cache: HashMap<(Ix, Player), Lit>,
    /// For a night with general redirections ([`Universe::general`]): the final positions
    /// of every slot of every action (`fin[i][k]`), from the processing-order layers of
    /// [`Encoding::encode_general`], and the slots that can move (projected, in order).
    /// `None` for nights of plain deflections, whose final positions are `end`.
    general: Option<GeneralSlots>,
    /// Polled while encoding and charged for the solver's clauses and variables as they
    /// are added (the encoding can be quadratic: the one-hot final positions of a long
    /// chain of deflections, the derivation levels of a large cycle of created effects)
    /// and for what enumeration stores. Once it is cancelled (past the memory bound, or a
    /// timeout) the encoding stops where it is and may be incomplete, but the solver shares
    /// its flag, so no query answers from it.
    budget: Budget,
    /// Bytes of the solver charged to `budget` so far (given back when the encoding is
    /// dropped).
    charged: u64,
    /// The solver's clause count when it was last charged.
    metered_at: usize,
}

/// The final positions of every action slot under general redirection (see
/// [`Encoding::encode_general`]).
struct GeneralSlots {
    /// `fin[i][k]`: where slot k of universe effect i ends (a single constant-true entry
    /// for a slot no redirection can move).
    fin: Vec<Vec<Positions>>,
    /// The slots that can move, `(effect, slot)`: their `fin` literals are projected, in
    /// this order.
    movable: Vec<(Ix, usize)>,
}

/// Exactly-one constraints up to this many literals are pairwise; longer ones use a
/// sequential counter.
const PAIRWISE_UP_TO: usize = 6;

/// The encoding charges the solver's growth to the memory meter once per this many new
/// clauses (between charges it only polls the cancellation flag).
const METER_EVERY: usize = 1024;

impl Drop for Encoding<'_> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
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
        let t = solver.true_lit();
        let end = (0..u.n_players() as Player).map(|p| vec![(p, t)]).collect();
        let f = !t;
        let active = (0..u.n_players())
            .map(|p| u.deflector[p].map_or(f, |g| s[g]))
            .collect();
        let mut enc = Encoding {
            u,
            solver,
            s,
            live,
            x,
            end,
            active,
            cycles: Vec::new(),
            cycle_of: vec![None; u.n_players()],
            stop_cache: HashMap::new(),
            built: FixedBitSet::with_capacity(u.n_players()),
            at_cache: HashMap::new(),
            general: None,
            budget: budget.clone(),
            charged: 0,
            metered_at: 0,
        };
        if u.general.is_some() {
            enc.encode_general();
        } else {
            enc.encode_redirection();
        }
        enc.encode();
        enc.meter();
        enc
    }

    /// Charges the solver's growth since the last charge ([`Solver::approx_bytes`], and the
    /// cache of final-target literals) to the budget's meter. `false` once the budget is
    /// cancelled: past the bound (the charge cancels it), or stopped otherwise.
    pub(super) fn meter(&mut self) -> bool {
        self.metered_at = self.solver.num_clauses();
        let now = self.solver.approx_bytes() + 48 * self.at_cache.len() as u64;
        self.budget
            .charge_growth("SAT clauses", &mut self.charged, now)
            .is_ok()
    }

    /// Polls the budget while encoding, charging the growth every [`METER_EVERY`]
    /// clauses: `false` once the encoding must stop (see [`Encoding::meter`]). Cheap
    /// enough for inner loops.
    fn go_on(&mut self) -> bool {
        if self.solver.num_clauses() >= self.metered_at + METER_EVERY {
            self.meter()
        } else {
            !self.budget.is_cancelled()
        }
    }

    /// The `last` literals of the cycles of deflections that have a choice (two members or
    /// more), in projection order.
    fn choices(&self) -> impl Iterator<Item = &[Lit]> {
        self.cycles
            .iter()
            .filter(|(_, last)| !last.is_empty())
            .map(|(_, last)| last.as_slice())
    }

    /// How many players have a final position that depends on the model (0 exactly when
    /// redirection cannot move any slot): every player whose deflection some slot reaches.
    #[cfg(test)]
    pub fn movable_players(&self) -> usize {
        (0..self.u.n_players())
            .filter(|&p| {
                self.u.deflections.moves(p as Player) && self.active[p] != !self.solver.true_lit()
            })
            .filter(|&p| self.needed(p as Player))
            .count()
    }

    /// Whether a slot of some action can be at `p` (p is in the reach of a declared target).
    #[cfg(test)]
    fn needed(&self, p: Player) -> bool {
        self.u
            .effects
            .iter()
            .filter(|e| e.action().is_some())
            .any(|e| e.targets.iter().any(|&d| self.u.deflections.reaches(d, p)))
    }

    /// The cut variable of each declared effect (true: the effect is cut).
    pub fn cut_lits(&self) -> &[Lit] {
        &self.x
    }

    /// The cost literals of each priority level (ascending), for lexicographic
    /// minimisation: each declared effect's cut variable, and for an effect of weight w
    /// ([`Universe::weight`]) w - 1 fresh literals equal to it, so that counting true
    /// literals counts the cut's weight.
    pub fn cost_levels(&mut self) -> Vec<Vec<Lit>> {
        let u = self.u;
        let mut by_level = vec![Vec::new(); u.levels().len()];
        for i in 0..u.n_declared {
            let level = u
                .levels()
                .binary_search(&u.effects[i].priority)
                .expect("every declared priority is a level");
            let x = self.x[i];
            by_level[level].push(x);
            for _ in 1..u.weight(i) {
                let copy = self.solver.new_lit();
                self.solver.add_clause(&[!copy, x]);
                self.solver.add_clause(&[copy, !x]);
                by_level[level].push(copy);
            }
        }
        by_level
    }

    /// `s[i]`: universe effect i succeeds.
    pub fn success_lit(&self, i: Ix) -> Lit {
        self.s[i]
    }

    /// `live[i]`: universe effect i is in R and not cut (`!x[i]` for a declared effect).
    pub fn live_lit(&self, i: Ix) -> Lit {
        self.live[i]
    }

    /// For each player p, where a slot declared at p can end, with the literal "it ends
    /// there", for the players whose final positions some read needed (a single entry
    /// holds the constant-true literal: not moved, or not encoded).
    pub fn end_positions(&self) -> &[Vec<(Player, Lit)>] {
        &self.end
    }

    /// The cycles of deflections with a choice: their members in deflection order, each
    /// with its literal "processed last" (meaningful when every deflection of the cycle
    /// succeeds; the first member's otherwise).
    pub fn last_positions(&self) -> impl Iterator<Item = (&[Player], &[Lit])> {
        self.cycles
            .iter()
            .filter(|(_, last)| !last.is_empty())
            .map(|(c, last)| (c.as_slice(), last.as_slice()))
    }

    /// Adds a clause, dropping constant-false literals; a clause holding the constant-true
    /// literal is satisfied and skipped.
    fn clause(&mut self, lits: &[Lit]) {
        self.solver.fold_clause(lits)
    }

    /// A literal equivalent to the conjunction, folding constants (no variable is created
    /// when the result is constant or a single literal).
    fn and(&mut self, lits: &[Lit]) -> Lit {
        self.solver.fold_and(lits, Inputs::GivenComplementsKept)
    }

    /// A literal equivalent to the disjunction, folding constants.
    fn or(&mut self, lits: &[Lit]) -> Lit {
        self.solver.fold_or(lits, Inputs::GivenComplementsKept)
    }

    /// Exactly one of `lits`: a clause and pairwise exclusions while short, a sequential
    /// counter (linear in `lits`) past [`PAIRWISE_UP_TO`].
    fn exactly_one(&mut self, lits: &[Lit]) {
        self.clause(lits);
        if lits.len() <= PAIRWISE_UP_TO {
            self.at_most_one(lits);
            return;
        }
        // seen[i]: some of lits[..=i] is true; lits[i+1] excludes seen[i].
        let mut seen = lits[0];
        for &l in &lits[1..] {
            if !self.go_on() {
                return;
            }
            self.clause(&[!seen, !l]);
            let next = self.solver.new_lit();
            self.clause(&[!seen, next]);
            self.clause(&[!l, next]);
            seen = next;
        }
    }

    fn at_most_one(&mut self, lits: &[Lit]) {
        for (i, &a) in lits.iter().enumerate() {
            if !self.go_on() {
                return;
            }
            for &b in &lits[i + 1..] {
                self.clause(&[!a, !b]);
            }
        }
    }

    /// Encodes the cycles of the deflection graph with their `last` literals (see the
    /// module documentation); final positions are encoded later, where a read needs them
    /// ([`Encoding::ends`]). Linear in the players.
    fn encode_redirection(&mut self) {
        let u = self.u;
        let np = u.n_players();
        let next = |p: usize| u.deflector[p].map(|g| u.effects[g].targets[0] as usize);
        // Cycles of the functional graph p -> next(p), found by walking each path once
        // (state 1: on the current walk, 2: done).
        let mut state = vec![0u8; np];
        let mut walk = Vec::new();
        for start in 0..np {
            if state[start] != 0 {
                continue;
            }
            walk.clear();
            let mut p = start;
            loop {
                if state[p] == 1 {
                    // A new cycle: the walk from p's first visit on.
                    let at = walk.iter().position(|&q| q == p).expect("p is on the walk");
                    let members: Vec<Player> = walk[at..].iter().map(|&q| q as Player).collect();
                    for &q in &members {
                        self.cycle_of[q as usize] = Some(self.cycles.len());
                    }
                    self.cycles.push((members, Vec::new()));
                    break;
                }
                if state[p] == 2 {
                    break;
                }
                state[p] = 1;
                walk.push(p);
                match next(p) {
                    Some(q) => p = q,
                    None => break,
                }
            }
            for &q in &walk {
                state[q] = 2;
            }
        }
        let t = self.solver.true_lit();
        for c in 0..self.cycles.len() {
            if !self.go_on() {
                return;
            }
            let members = self.cycles[c].0.clone();
            if members.len() < 2 {
                continue;
            }
            let last: Vec<Lit> = members.iter().map(|_| self.solver.new_lit()).collect();
            self.exactly_one(&last);
            // Not every deflection of the cycle active: no choice (the first member).
            let actives: Vec<Lit> = members.iter().map(|&q| self.active[q as usize]).collect();
            let all = self.and(&actives);
            if all != t {
                self.clause(&[all, last[0]]);
            }
            self.cycles[c].1 = last;
        }
    }

    /// General redirection (`swap`, `redirect`, `guard`, `deflect X to Y`, filtered
    /// deflections): the processing order as r steps, r the number of redirections. A
    /// one-hot `pos[g][k]` ("g is processed at step k") is a permutation; each slot has
    /// one-hot positions at every step (its declared target at step 0, `fin` after step
    /// r), and step k applies the redirection g processed there when g succeeds, reading
    /// g's own slots at step k, exactly as `docs/ar.md` states it:
    ///
    /// * `Move { from, to }`: a slot at g's `from` goes to g's `to`;
    /// * `Swap`: a slot at slot 0's player goes to slot 1's, and back;
    /// * `Steer`: every slot of an action whose actor is at slot 0 goes to slot 1.
    ///
    /// A slot no redirection can move from its declared target never moves (no layers).
    /// Final positions are projected, orders are not: each way is enumerated once.
    fn encode_general(&mut self) {
        let u = self.u;
        let Some(gen) = u.general.as_deref() else {
            return;
        };
        let reds = gen.redirections.clone();
        let r = reds.len();
        let t = self.solver.true_lit();
        let f = !t;
        let n = u.len();
        let how: Vec<Redirection> = reds
            .iter()
            .map(|&g| {
                let e = &u.effects[g];
                let k = e.action().expect("a redirection is an action");
                Redirection::of(k, e.targets.len()).expect("a redirection")
            })
            .collect();
        let can_move = |g: usize, h: Ix| -> bool {
            let (ge, he) = (&u.effects[reds[g]], &u.effects[h]);
            reds[g] != h
                && he.action().is_some_and(|hk| {
                    Redirection::moves(ge.action().expect("an action"), ge.mods, hk, he.mods)
                })
        };
        // Which slots can ever move: at step 0 each is at its declared target, so one that
        // no redirection can move from there stays there.
        let first_moves = |g: usize, h: Ix, d: Player| -> bool {
            let ge = &u.effects[reds[g]];
            can_move(g, h)
                && match how[g] {
                    Redirection::Move {
                        from: End::Actor, ..
                    } => d == ge.actor,
                    Redirection::Move { .. } | Redirection::Swap => {
                        gen.hub.binary_search(&d).is_ok()
                    }
                    Redirection::Steer => gen.hub.binary_search(&u.effects[h].actor).is_ok(),
                }
        };
        let mut cur: Vec<Vec<Positions>> = (0..n)
            .map(|i| {
                let e = &u.effects[i];
                if e.action().is_some() {
                    e.targets.iter().map(|&d| vec![(d, t)]).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut movable: Vec<(Ix, usize)> = Vec::new();
        for (i, e) in u.effects.iter().enumerate() {
            if e.action().is_none() {
                continue;
            }
            for (k, &d) in e.targets.iter().enumerate() {
                if (0..r).any(|g| first_moves(g, i, d)) {
                    movable.push((i, k));
                }
            }
        }
        // The permutation: pos[g][k].
        let pos: Vec<Vec<Lit>> = if r == 1 {
            vec![vec![t]]
        } else {
            (0..r)
                .map(|_| (0..r).map(|_| self.solver.new_lit()).collect())
                .collect()
        };
        if r > 1 {
            for row in &pos {
                self.exactly_one(row);
            }
            for k in 0..r {
                let col: Vec<Lit> = pos.iter().map(|row| row[k]).collect();
                self.exactly_one(&col);
            }
            // Symmetry: a failing redirection moves nothing, so only the order of the
            // succeeding ones matters. Keep one order per order of those: the succeeding
            // first, then the failing ones by index.
            let succ: Vec<Lit> = reds.iter().map(|&g| self.s[g]).collect();
            let act_at: Vec<Lit> = (0..r)
                .map(|k| {
                    let terms: Vec<Lit> = (0..r).map(|g| self.and(&[pos[g][k], succ[g]])).collect();
                    self.or(&terms)
                })
                .collect();
            for k in 0..r - 1 {
                if !self.go_on() {
                    return;
                }
                self.clause(&[!act_at[k + 1], act_at[k]]);
                for g in 0..r {
                    for h in 0..g {
                        self.clause(&[!pos[g][k], !pos[h][k + 1], succ[g], succ[h]]);
                    }
                }
            }
        }
        for step in 0..r {
            // The next positions of every movable slot.
            let mut next: Vec<(Ix, usize, Positions)> = Vec::with_capacity(movable.len());
            for &(h, k) in &movable {
                if !self.go_on() {
                    return;
                }
                let d = u.effects[h].targets[k];
                let new: Positions = gen.ends(d).map(|p| (p, self.solver.new_lit())).collect();
                let lits: Vec<Lit> = new.iter().map(|&(_, l)| l).collect();
                self.exactly_one(&lits);
                let old = cur[h][k].clone();
                for g in 0..r {
                    let o = pos[g][step];
                    let sg = self.s[reds[g]];
                    let mine: Vec<Positions> = cur[reds[g]].clone();
                    let ga = u.effects[reds[g]].actor;
                    let lit_of = |pos: &Positions, p: Player| lit_at(pos, p, f);
                    let moved = can_move(g, h);
                    for &(v, ov) in &old {
                        let nv = lit_of(&new, v);
                        if !moved {
                            self.clause(&[!o, !ov, nv]);
                            continue;
                        }
                        // Not processed here, or failing: the slot stays.
                        self.clause(&[!o, sg, !ov, nv]);
                        match how[g] {
                            Redirection::Move { from, to } => {
                                let from_v = match from {
                                    End::Actor => {
                                        if v == ga {
                                            t
                                        } else {
                                            f
                                        }
                                    }
                                    End::Slot(j) => lit_of(&mine[j], v),
                                };
                                self.clause(&[!o, !sg, !ov, from_v, nv]);
                                match to {
                                    End::Actor => {
                                        let na = lit_of(&new, ga);
                                        self.clause(&[!o, !sg, !ov, !from_v, na]);
                                    }
                                    End::Slot(j) => {
                                        for &(q, lq) in &mine[j] {
                                            let nq = lit_of(&new, q);
                                            self.clause(&[!o, !sg, !ov, !from_v, !lq, nq]);
                                        }
                                    }
                                }
                            }
                            Redirection::Swap => {
                                let (a_v, b_v) = (lit_of(&mine[0], v), lit_of(&mine[1], v));
                                self.clause(&[!o, !sg, !ov, a_v, b_v, nv]);
                                for &(q, lq) in &mine[1] {
                                    let nq = lit_of(&new, q);
                                    self.clause(&[!o, !sg, !ov, !a_v, !lq, nq]);
                                }
                                for &(q, lq) in &mine[0] {
                                    let nq = lit_of(&new, q);
                                    self.clause(&[!o, !sg, !ov, !b_v, !lq, nq]);
                                }
                            }
                            Redirection::Steer => {
                                let a_w = lit_of(&mine[0], u.effects[h].actor);
                                self.clause(&[!o, !sg, a_w, !ov, nv]);
                                for &(q, lq) in &mine[1] {
                                    let nq = lit_of(&new, q);
                                    self.clause(&[!o, !sg, !a_w, !lq, nq]);
                                }
                            }
                        }
                    }
                }
                next.push((h, k, new));
            }
            for (h, k, new) in next {
                cur[h][k] = new;
            }
        }
        self.general = Some(GeneralSlots { fin: cur, movable });
    }

    /// The literal "a slot that reaches p stops at p": p's deflection is inactive, or p is
    /// on a cycle of deflections that are all active and is the one processed last.
    fn stop_at(&mut self, p: Player) -> Lit {
        if let Some(&l) = self.stop_cache.get(&p) {
            return l;
        }
        let inactive = !self.active[p as usize];
        let l = match self.cycle_of[p as usize] {
            // A deflection of p to p moves nothing: a slot at p stays.
            Some(c) if self.cycles[c].0.len() == 1 => self.solver.true_lit(),
            Some(c) if !self.cycles[c].1.is_empty() => {
                let (members, last) = &self.cycles[c];
                let k = members
                    .iter()
                    .position(|&q| q == p)
                    .expect("p is on its cycle");
                let chosen = last[k];
                let actives: Vec<Lit> = members.iter().map(|&q| self.active[q as usize]).collect();
                let all = self.and(&actives);
                let picked = self.and(&[all, chosen]);
                self.or(&[inactive, picked])
            }
            _ => inactive,
        };
        self.stop_cache.insert(p, l);
        l
    }

    /// The final positions of a slot declared at p, encoded on first use: along p's path
    /// of deflections (`Universe::deflections.reach(p)`, in order), the slot passes a player while
    /// every deflection before it is active, and ends at the first player where it stops
    /// ([`Encoding::stop_at`]). One AND gate per step of the path: linear in its length.
    fn ends(&mut self, p: Player) -> &Positions {
        let u = self.u;
        let pu = p as usize;
        if !self.built.contains(pu)
            && u.deflections.moves(p)
            && self.active[pu] != !self.solver.true_lit()
        {
            self.built.insert(pu);
            let t = self.solver.true_lit();
            let mut pos = Vec::new();
            let mut pass = t;
            for q in u.deflections.reach(p) {
                if !self.go_on() {
                    break;
                }
                let stop = self.stop_at(q);
                let here = self.and(&[pass, stop]);
                if here != !t {
                    pos.push((q, here));
                }
                pass = self.and(&[pass, self.active[q as usize]]);
                if pass == !t {
                    break;
                }
            }
            self.end[pu] = pos;
        }
        &self.end[pu]
    }

    /// The one accessor of final targets: a literal true iff some final target of effect
    /// `i` is `p` (constant when redirection cannot change it).
    fn at(&mut self, i: Ix, p: Player) -> Lit {
        if let Some(&l) = self.at_cache.get(&(i, p)) {
            return l;
        }
        let f = self.solver.false_lit();
        let lits: Vec<Lit> = match &self.general {
            Some(g) => g.fin[i].iter().map(|pos| lit_at(pos, p, f)).collect(),
            None => {
                let targets = self.u.effects[i].targets.clone();
                targets
                    .iter()
                    .map(|&d| lit_at(self.ends(d), p, f))
                    .collect()
            }
        };
        let l = self.or(&lits);
        self.at_cache.insert((i, p), l);
        l
    }

    /// The players a slot declared at `d` can end at: its path of deflections, or `d`
    /// alone when its own deflection can never be active.
    fn reach_of(&self, d: Player) -> impl Iterator<Item = Player> + '_ {
        let alone = self.active[d as usize] == !self.solver.true_lit();
        self.u
            .deflections
            .reach(d)
            .take(if alone { 1 } else { usize::MAX })
    }

    /// The players effect `i` can finally target.
    fn possible(&self, i: Ix) -> Vec<Player> {
        let mut v: Vec<Player> = match &self.u.general {
            Some(g) => self.u.effects[i]
                .targets
                .iter()
                .flat_map(|&d| g.ends(d))
                .collect(),
            None => self.u.effects[i]
                .targets
                .iter()
                .flat_map(|&d| self.reach_of(d))
                .collect(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A literal true iff a and b share a final target.
    fn shares(&mut self, a: Ix, b: Ix) -> Lit {
        let t = self.solver.true_lit();
        let pb = self.possible(b);
        let mut terms = Vec::new();
        for p in self.possible(a) {
            if !pb.contains(&p) {
                continue;
            }
            let (la, lb) = (self.at(a, p), self.at(b, p));
            let l = self.and(&[la, lb]);
            if l == t {
                return t;
            }
            terms.push(l);
        }
        self.or(&terms)
    }

    /// The extra conditions (besides `s[a]`) under which a makes y fail by the attack
    /// `atk` (a row of a's kind), or `None` if it never does.
    fn attack_condition(
        &mut self,
        a: Ix,
        atk: &Attack,
        y: Ix,
        unblockable_of: &[Vec<Ix>],
    ) -> Option<Vec<Lit>> {
        let u = self.u;
        let (ae, ye) = (&u.effects[a], &u.effects[y]);
        if !ye.hit_by(atk, ae) {
            return None;
        }
        let t = self.solver.true_lit();
        let hit = match atk.reach {
            Reach::Actor => {
                let on = self.at(a, ye.actor);
                if on == !t {
                    return None;
                }
                let mut guards: Vec<Lit> = if atk.block {
                    unblockable_of[ye.actor as usize]
                        .iter()
                        .map(|&g| !self.s[g])
                        .collect()
                } else {
                    Vec::new()
                };
                if on != t {
                    guards.push(on);
                }
                return Some(guards);
            }
            Reach::Shared => self.shares(a, y),
            Reach::Owner => self.at(y, ae.actor),
        };
        if hit == !t {
            None
        } else if hit == t {
            Some(Vec::new())
        } else {
            Some(vec![hit])
        }
    }

    fn encode(&mut self) {
        let u = self.u;
        let n = u.len();
        // Who could be hit, by actor and by possible final target, so that each effect is
        // paired only with the effects it could attack (linear in the night, not quadratic).
        let np = u.n_players();
        let mut by_actor: Vec<Vec<Ix>> = vec![Vec::new(); np];
        let mut by_target: Vec<Vec<Ix>> = vec![Vec::new(); np];
        let mut unblockable_of: Vec<Vec<Ix>> = vec![Vec::new(); np];
        // Possible final targets only of the effects that read them (listing every
        // action's would be quadratic along a chain of deflections); `by_target` only at
        // the players a stop, protect or bulletproof passive looks at, gathered from the
        // actions aimed at the players whose path passes there.
        let reads = |i: Ix| u.effects[i].attacks().any(|a| a.reach != Reach::Owner);
        let possible: Vec<Vec<Player>> = (0..n)
            .map(|i| {
                if reads(i) {
                    self.possible(i)
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut aimed: Vec<Vec<Ix>> = vec![Vec::new(); np];
        for (i, e) in u.effects.iter().enumerate() {
            if e.action().is_some() {
                by_actor[e.actor as usize].push(i);
                for (k, &d) in e.targets.iter().enumerate() {
                    if !e.targets[..k].contains(&d) {
                        aimed[d as usize].push(i);
                    }
                }
            } else if i < u.n_declared && e.kind == Kind::Passive(PassiveKind::Unblockable) {
                unblockable_of[e.actor as usize].push(i);
            }
        }
        let mut looked = FixedBitSet::with_capacity(np);
        for (i, e) in u.effects.iter().enumerate() {
            for atk in e.attacks() {
                match atk.reach {
                    Reach::Shared => possible[i].iter().for_each(|&p| looked.insert(p as usize)),
                    Reach::Owner => looked.insert(e.actor as usize),
                    Reach::Actor => {}
                }
            }
        }
        let mut seen = vec![usize::MAX; n];
        for p in looked.ones() {
            if !self.go_on() {
                return;
            }
            let pool = &mut by_target[p];
            let mut add = |q: Player| {
                for &i in &aimed[q as usize] {
                    if seen[i] != p {
                        seen[i] = p;
                        pool.push(i);
                    }
                }
            };
            match &u.general {
                // A slot may end at p if declared there, or anywhere when p is in the hub.
                Some(g) if g.hub.binary_search(&(p as Player)).is_ok() => {
                    (0..np as Player).for_each(add)
                }
                Some(_) => add(p as Player),
                None => u.deflections.upstream(p as Player, add),
            }
        }
        let mut fail_lits: Vec<Vec<Lit>> = vec![Vec::new(); n];
        // With `visited:K` passives, the activations that stop their victim at its source
        // (block rules, commutes), per victim.
        let visits = u.has_visit_triggers();
        let mut source_lits: Vec<Vec<Lit>> = vec![Vec::new(); n];
        let mut stamp = vec![usize::MAX; n];
        for (a, reach) in possible.iter().enumerate() {
            if !self.go_on() {
                return;
            }
            let ae = &u.effects[a];
            for (row, atk) in ae.attacks().enumerate() {
                // A jail's two rows are two attacks, each with its own condition.
                let key = 2 * a + row;
                let ys =
                    attack_candidates(u, a, &atk, reach, &by_actor, &by_target, &mut stamp, key);
                for y in ys {
                    if !self.go_on() {
                        return;
                    }
                    let Some(mut cond) = self.attack_condition(a, &atk, y, &unblockable_of) else {
                        continue;
                    };
                    let act = if cond.is_empty() {
                        self.s[a]
                    } else {
                        cond.push(self.s[a]);
                        self.solver.and(&cond)
                    };
                    self.solver.add_clause(&[!self.s[y], !act]);
                    if visits && atk.at_source {
                        source_lits[y].push(act);
                    }
                    fail_lits[y].push(act);
                }
            }
        }
        for (y, fails) in fail_lits.into_iter().enumerate() {
            if !self.go_on() {
                return;
            }
            self.solver.add_clause(&[!self.s[y], self.live[y]]);
            let mut clause = vec![!self.live[y], self.s[y]];
            clause.extend(fails);
            self.solver.add_clause(&clause);
        }
        // Creation (completion): live[c] <-> s[p] and some trigger of c fires: it is in S
        // (`reflexive:K`), or it visits (`visited:K`: `visit[g] <-> live[g] and no source
        // of g`), and ends at the owner.
        let t = self.solver.true_lit();
        let mut triggers: Vec<Vec<(Ix, Lit, Lit)>> = vec![Vec::new(); n];
        let mut visit_of: HashMap<Ix, Lit> = HashMap::new();
        for (c, mine) in triggers.iter_mut().enumerate().skip(u.n_declared) {
            let Origin::Created { passive, visitor } = u.effects[c].origin else {
                unreachable!("universe effects past n_declared are created")
            };
            let owner = u.effects[passive].actor;
            if !self.go_on() {
                return;
            }
            let only = u.effects[passive].mods.only;
            let mut any: Vec<Lit> = Vec::new();
            for &g in &by_actor[visitor as usize] {
                if only.is_some_and(|o| u.effects[g].action().is_some_and(|k| !o.contains(k))) {
                    continue;
                }
                let on = self.at(g, owner);
                if on == !t {
                    continue;
                }
                let fires = if u.on_visit(c) {
                    match visit_of.get(&g) {
                        Some(&v) => v,
                        None => {
                            let stopped = self.solver.or(&source_lits[g]);
                            let v = self.solver.and(&[self.live[g], !stopped]);
                            visit_of.insert(g, v);
                            v
                        }
                    }
                } else {
                    self.s[g]
                };
                mine.push((g, fires, on));
                any.push(if on == t {
                    fires
                } else {
                    self.and(&[fires, on])
                });
            }
            let any = self.solver.or(&any);
            let both = self.solver.and(&[self.s[passive], any]);
            self.solver.add_clause(&[!self.live[c], both]);
            self.solver.add_clause(&[self.live[c], !both]);
        }
        self.encode_grounding(&triggers);
    }

    /// Grounded creation (condition 2: the *least* created set). Completion alone admits
    /// created effects that only trigger each other, so every strongly connected component
    /// of the graph "created c may be triggered by created g" with m > 1 members gets
    /// derivation levels: `d_0[c]` is a trigger of c from outside the component in S,
    /// `d_k[c] -> d_0[c] or OR_g (s[g] and d_(k-1)[g] and g at owner(c))` over the
    /// component's members g, and `live[c] -> d_(m-1)[c]` (a derivation inside a component
    /// of m members needs at most m - 1 steps). Triggers from lower components need no
    /// levels: those components are grounded themselves, and without a cycle completion is
    /// exactly the least fixed point. The level variables are never projected, so
    /// enumeration still sees each resolution once.
    fn encode_grounding(&mut self, triggers: &[Vec<(Ix, Lit, Lit)>]) {
        let u = self.u;
        let nd = u.n_declared;
        let created = u.len() - nd;
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); created];
        for c in nd..u.len() {
            for &(h, _, _) in triggers[c].iter().filter(|&&(h, _, _)| h >= nd) {
                succ[c - nd].push(h - nd);
            }
        }
        for scc in crate::graph::scc(&succ)
            .into_iter()
            .filter(|scc| scc.len() > 1)
        {
            if !self.go_on() {
                return;
            }
            let members: Vec<Ix> = scc.iter().map(|&v| v + nd).collect();
            let mut pos: HashMap<Ix, usize> = HashMap::with_capacity(members.len());
            for (i, &c) in members.iter().enumerate() {
                pos.insert(c, i);
            }
            let inside = |h: Ix| pos.contains_key(&h);
            let ext: Vec<Lit> = members
                .iter()
                .map(|&c| {
                    let lits: Vec<Lit> = triggers[c]
                        .iter()
                        .filter(|&&(h, _, _)| !inside(h))
                        .map(|&(_, fires, on)| self.and(&[fires, on]))
                        .collect();
                    self.or(&lits)
                })
                .collect();
            let mut level = ext.clone();
            for _ in 1..members.len() {
                let mut next = Vec::with_capacity(members.len());
                for (i, &c) in members.iter().enumerate() {
                    if !self.go_on() {
                        return;
                    }
                    let d = self.solver.new_lit();
                    let mut clause = vec![!d, ext[i]];
                    for &(h, fires, on) in triggers[c].iter().filter(|&&(h, _, _)| inside(h)) {
                        let j = pos[&h];
                        let step = self.and(&[fires, level[j], on]);
                        clause.push(step);
                    }
                    self.clause(&clause);
                    next.push(d);
                }
                level = next;
            }
            for (i, &c) in members.iter().enumerate() {
                self.clause(&[!self.live[c], level[i]]);
            }
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
        for last in self.choices() {
            p.extend_from_slice(last);
        }
        if let Some(g) = &self.general {
            for &(i, k) in &g.movable {
                p.extend(g.fin[i][k].iter().map(|&(_, l)| l));
            }
        }
        p
    }

    /// Decodes a projected model of [`Self::resolution_projection`] into R, S and one way.
    fn decode_resolution(
        &self,
        values: &[bool],
        cut: &Cut,
    ) -> (FixedBitSet, FixedBitSet, TargetMap) {
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
        let mut rest = &values[2 * n - u.n_declared..];
        // The member of each cycle processed last (its first when there is no choice).
        let mut last: Vec<Player> = Vec::with_capacity(self.cycles.len());
        for (members, lits) in &self.cycles {
            if lits.is_empty() {
                last.push(members[0]);
                continue;
            }
            let (vals, tail) = rest.split_at(lits.len());
            rest = tail;
            let k = vals
                .iter()
                .position(|&b| b)
                .expect("exactly one member of a cycle is processed last");
            last.push(members[k]);
        }
        let keep = |i: Ix| {
            let is_cut = i < u.n_declared && cut.contains(i);
            present.contains(i) && !is_cut && u.effects[i].action().is_some()
        };
        if let Some(g) = &self.general {
            // The final position of every movable slot, read off its one-hot literals.
            let mut way: TargetMap = (0..n)
                .map(|i| {
                    if keep(i) {
                        u.effects[i].targets.clone()
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            for &(i, k) in &g.movable {
                let pos = &g.fin[i][k];
                let (vals, tail) = rest.split_at(pos.len());
                rest = tail;
                if keep(i) {
                    let at = vals.iter().position(|&b| b).expect("a slot ends somewhere");
                    way[i][k] = pos[at].0;
                }
            }
            return (present, succeeded, way);
        }
        let end = self.final_positions(&succeeded, &last);
        let way = (0..n)
            .map(|i| {
                let e = &u.effects[i];
                if keep(i) {
                    e.targets.iter().map(|&d| end[d as usize]).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        (present, succeeded, way)
    }

    /// Where a slot declared at each player ends, given which effects succeed and the
    /// member of each cycle processed last: along the path of active deflections to the
    /// first player whose deflection is inactive, or to the chosen member of a cycle whose
    /// deflections are all active. Linear in the players (each is settled once).
    fn final_positions(&self, succeeded: &FixedBitSet, last: &[Player]) -> Vec<Player> {
        let u = self.u;
        let np = u.n_players();
        let is_active = |p: usize| u.deflector[p].is_some_and(|g| succeeded.contains(g));
        // A cycle all of whose deflections are active sends everything to its chosen member.
        let mut end: Vec<Option<Player>> = vec![None; np];
        for (c, (members, _)) in self.cycles.iter().enumerate() {
            if members.iter().all(|&q| is_active(q as usize)) {
                for &q in members {
                    end[q as usize] = Some(last[c]);
                }
            }
        }
        let mut stack = Vec::new();
        for start in 0..np {
            let mut p = start;
            while end[p].is_none() {
                if !is_active(p) {
                    end[p] = Some(p as Player);
                    break;
                }
                stack.push(p);
                p = u.effects[u.deflector[p].expect("an active player deflects")].targets[0]
                    as usize;
            }
            let e = end[p].expect("settled");
            for q in stack.drain(..) {
                end[q] = Some(e);
            }
        }
        end.into_iter()
            .map(|e| e.expect("every player settled"))
            .collect()
    }

    /// Every acceptable resolution of E[cut] with all its ways, by projected enumeration.
    pub fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted> {
        let assumptions = self.cut_assumptions(cut);
        let projection = self.resolution_projection();
        let mut models = Vec::new();
        let budget = &self.budget;
        let way = self.u.map_bytes() + 2 * self.u.set_bytes();
        let e = enumerate_projected(&mut self.solver, &projection, &assumptions, None, |v| {
            if budget.charge("ways", way + v.len() as u64).is_err() {
                return ControlFlow::Break(());
            }
            models.push(v.to_vec());
            ControlFlow::Continue(())
        });
        // Blocking clauses were added: charged with the rest of the solver.
        if e.end != EnumerationEnd::Complete || !self.meter() {
            return Err(Interrupted);
        }
        let mut grouped = WaysByResolution::new();
        for v in &models {
            let (present, succeeded, way) = self.decode_resolution(v, cut);
            grouped.entry((present, succeeded)).or_default().push(way);
        }
        if self.general.is_some() {
            // Slots outside R (or cut) move too, under general redirection: models that
            // differ only there are one way.
            for ways in grouped.values_mut() {
                ways.sort();
                ways.dedup();
            }
        }
        let rs = group_ways(self.u, grouped);
        // Slots outside R never move with plain deflections, so no two models decode to
        // the same way.
        debug_assert!(
            self.general.is_some()
                || models.len() == rs.iter().map(|r| r.ways.len()).sum::<usize>()
        );
        Ok(rs)
    }

    /// The optimal cost vector and every optimal cut, by lexicographic minimisation one
    /// priority level at a time, then enumeration projected on the cut variables.
    pub fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
        let u = self.u;
        let by_level = self.cost_levels();
        let opt = lexmin(&mut self.solver, &by_level, &[])
            .map_err(|_| Interrupted)?
            .expect("cutting every effect always leaves an acceptable resolution");
        // The minimisation added its counters' clauses.
        if !self.meter() {
            return Err(Interrupted);
        }
        let x = self.x.clone();
        let mut cuts = Vec::new();
        let budget = &self.budget;
        let e = enumerate_projected(&mut self.solver, &x, &opt.pins, None, |v| {
            if budget.charge("cuts", u.set_bytes()).is_err() {
                return ControlFlow::Break(());
            }
            let mut c = Cut::with_capacity(u.n_declared);
            for (i, &b) in v.iter().enumerate() {
                c.set(i, b);
            }
            cuts.push(c);
            ControlFlow::Continue(())
        });
        if e.end != EnumerationEnd::Complete || !self.meter() {
            return Err(Interrupted);
        }
        Ok((opt.counts, cuts))
    }
}

/// The whole analysis by the SAT engine.
pub fn analyse(u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
    analyse_with(u, &mut Encoding::new(u, budget))
}

impl Resolver for Encoding<'_> {
    fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted> {
        Encoding::resolutions(self, cut)
    }
    fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
        Encoding::optimal_cuts(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::judge::{brute, semantics};
    use crate::systems::ar::night::gen::{night, NightParams};
    use crate::systems::ar::night::model::{ActionKind, Ensemble};
    use crate::systems::ar::night::resolution::{sorted_ids, Classification};
    use proptest::prelude::*;

    /// SAT and brute force on one night: they must agree; every way is re-checked by the
    /// reference semantics.
    fn analyse_both(ens: &Ensemble) -> (Universe, Analysis) {
        let u = Universe::new(ens);
        let sat = analyse(&u, &Budget::new()).expect("not interrupted");
        let brute = brute::analyse(&u).expect("small universe");
        assert_eq!(sat, brute, "SAT and brute force disagree");
        let none = Cut::with_capacity(u.n_declared);
        for r in &sat.resolutions {
            for w in &r.ways {
                semantics::check(&u, &none, &r.present, &r.succeeded, w).expect("acceptable");
            }
        }
        (u, sat)
    }

    /// The ways of a resolution as `id -> final target names`, uncut actions of R only.
    fn ways(u: &Universe, r: &Resolution) -> Vec<Vec<(String, Vec<String>)>> {
        let mut ws: Vec<Vec<(String, Vec<String>)>> = r
            .ways
            .iter()
            .map(|w| {
                w.iter()
                    .enumerate()
                    .filter(|(_, t)| !t.is_empty())
                    .map(|(i, t)| {
                        let names = t.iter().map(|&p| u.player_name(p).to_string()).collect();
                        (u.effects[i].id.clone(), names)
                    })
                    .collect()
            })
            .collect();
        ws.sort();
        ws
    }

    /// Every listed effect ends at `to`.
    fn all_at(ids: &[&str], to: &str) -> Vec<(String, Vec<String>)> {
        ids.iter()
            .map(|id| (id.to_string(), vec![to.to_string()]))
            .collect()
    }

    #[test]
    fn two_deflectors_have_one_resolution_with_two_ways() {
        // Order (e1, e2): e1 (actor D1, at D2) moves e2's slot from D1 to D2; e2 (actor D2,
        // now at D2) moves e1's slot from D2 to D2: everything at D2. The other order:
        // everything at D1.
        let (u, a) = analyse_both(&Ensemble::from_triples(&[
            ("D1", "deflect", &["D2"]),
            ("D2", "deflect", &["D1"]),
        ]));
        assert_eq!(a.classification(), Classification::QuasiParadox);
        assert_eq!(a.resolutions.len(), 1);
        let r = &a.resolutions[0];
        assert_eq!(r.succeeded_ids(&u), vec!["e1", "e2"]);
        assert_eq!(
            ways(&u, r),
            vec![all_at(&["e1", "e2"], "D1"), all_at(&["e1", "e2"], "D2")]
        );
    }

    #[test]
    fn deflector_chain_is_a_non_paradox_ending_at_x() {
        // (e2, e3): e1 goes D1 -> D2, then e1 and e2 go D2 -> X. (e3, e2): e2 goes D2 -> X,
        // then e1 goes D1 -> X (e2's current target). One way: everything at X.
        let (u, a) = analyse_both(&Ensemble::from_triples(&[
            ("V", "visit", &["D1"]),
            ("D1", "deflect", &["D2"]),
            ("D2", "deflect", &["X"]),
        ]));
        assert_eq!(a.classification(), Classification::NonParadox);
        let r = &a.resolutions[0];
        assert_eq!(r.succeeded_ids(&u), vec!["e1", "e2", "e3"]);
        assert_eq!(ways(&u, r), vec![all_at(&["e1", "e2", "e3"], "X")]);
    }

    #[test]
    fn a_deflection_onto_a_self_deflector_ends_there() {
        // By hand: nothing can fail the deflections (no block or stop), so e2 and e3
        // succeed. The kill is declared at P; processing e2 (P -> D) moves it to D;
        // processing e3 (D -> D) moves slots at D to D: nothing. Either order: the kill
        // ends at D, where Q protects, so it fails and nobody dies. The protect reads the
        // kill's final target, so its positions along P -> D are encoded, and D's own
        // deflection must let a slot stop at D.
        let (u, a) = analyse_both(&Ensemble::from_triples(&[
            ("V", "kill", &["P"]),
            ("P", "deflect", &["D"]),
            ("D", "deflect", &["D"]),
            ("Q", "protect", &["D"]),
        ]));
        assert_eq!(a.classification(), Classification::NonParadox);
        let r = &a.resolutions[0];
        assert_eq!(r.succeeded_ids(&u), vec!["e2", "e3", "e4"]);
        assert_eq!(ways(&u, r)[0][0], ("e1".to_string(), vec!["D".to_string()]));
    }

    /// The encoding of a chain of n deflections that a kill enters grows linearly in n
    /// (its one-hot final positions made it cubic: 182,302 clauses at n = 100 and
    /// 10,909,202 at n = 400); with a protect at the chain's end reading the kill's final
    /// target, the path's gates are linear too.
    #[test]
    fn a_chain_of_deflections_encodes_in_linear_size() {
        let clauses = |n: usize, protect: bool| {
            let mut night = String::from("V kill D0\n");
            for i in 0..n {
                night.push_str(&format!("D{i} deflect D{}\n", i + 1));
            }
            if protect {
                night.push_str(&format!("Q protect D{n}\n"));
            }
            let ens = crate::systems::ar::night::parse::parse_night(
                &night,
                std::path::Path::new("chain.night"),
            )
            .expect("a night");
            let u = Universe::new(&ens);
            let n = Encoding::new(&u, &Budget::new()).solver.num_clauses();
            n
        };
        for protect in [false, true] {
            let (small, large) = (clauses(100, protect), clauses(400, protect));
            assert!(
                large <= 5 * small,
                "100 deflections: {small} clauses, 400: {large} (protect: {protect})"
            );
        }
    }

    #[test]
    fn seeds_paradox_is_a_quasi_paradox_with_two_ways() {
        // (e2, e3): e1 and e3 go D1 -> D2, then e3 (at D2) moves e1, e2 to D2: all at D2.
        // (e3, e2): e2 goes D2 -> D1, then e2 (at D1) moves e1, e3 to D1: all at D1.
        let (u, a) = analyse_both(&Ensemble::from_triples(&[
            ("V", "visit", &["D1"]),
            ("D1", "deflect", &["D2"]),
            ("D2", "deflect", &["D1"]),
        ]));
        assert_eq!(a.classification(), Classification::QuasiParadox);
        assert_eq!(a.resolutions.len(), 1);
        let r = &a.resolutions[0];
        assert_eq!(r.succeeded_ids(&u), vec!["e1", "e2", "e3"]);
        let ids = ["e1", "e2", "e3"];
        assert_eq!(ways(&u, r), vec![all_at(&ids, "D1"), all_at(&ids, "D2")]);
    }

    #[test]
    fn a_cycle_of_k_deflectors_has_k_ways() {
        // Whichever deflector of the cycle is processed last keeps everything: 8 ways (8!
        // processing orders), found without enumerating orders.
        let k = 8;
        let names: Vec<String> = (0..k).map(|i| format!("D{i}")).collect();
        let visitors: Vec<String> = (0..k).map(|i| format!("V{i}")).collect();
        let mut triples: Vec<(&str, &str, Vec<&str>)> = Vec::new();
        for i in 0..k {
            triples.push((&names[i], "deflect", vec![&names[(i + 1) % k]]));
            triples.push((&visitors[i], "visit", vec![&names[i]]));
        }
        let borrowed: Vec<(&str, &str, &[&str])> = triples
            .iter()
            .map(|(a, k, t)| (*a, *k, t.as_slice()))
            .collect();
        let u = Universe::new(&Ensemble::from_triples(&borrowed));
        let a = analyse(&u, &Budget::new()).expect("not interrupted");
        assert_eq!(a.resolutions.len(), 1);
        let ids: Vec<String> = u.effects.iter().map(|e| e.id.clone()).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut want: Vec<_> = names.iter().map(|d| all_at(&ids, d)).collect();
        want.sort();
        assert_eq!(ways(&u, &a.resolutions[0]), want);
    }

    /// `V visit A`, `A reflexive:kill`, `V reflexive:stop`: the contract's own example of
    /// self-supporting creation. By hand (contract, condition 2): if the visit succeeds it
    /// creates A's kill on V, which creates V's stop on A, which stops the visit; if it
    /// fails nothing is derived and nothing fails it. Paradox; the optimal cut is the visit
    /// (priority 6; cutting a passive costs one at priority 0).
    fn self_sustaining_loop() -> Ensemble {
        Ensemble::from_triples(&[
            ("V", "visit", &["A"]),
            ("A", "reflexive:kill", &[]),
            ("V", "reflexive:stop", &[]),
        ])
    }

    #[test]
    fn the_encoding_rejects_self_supporting_creation() {
        let u = Universe::new(&self_sustaining_loop());
        // The weak candidate: both created effects in R and S, the visit stopped. It
        // satisfies completion, so only the grounding clauses can exclude it.
        let ids = |i: Ix| u.effects[i].id.clone();
        let created: Vec<Ix> = (u.n_declared..u.len()).collect();
        assert_eq!(
            created.iter().map(|&i| ids(i)).collect::<Vec<_>>(),
            vec!["e2>V", "e3>A"]
        );
        let mut enc = Encoding::new(&u, &Budget::new());
        let mut assume: Vec<Lit> = vec![!enc.s[0], enc.s[1], enc.s[2]];
        assume.extend(created.iter().flat_map(|&c| [enc.s[c], enc.live[c]]));
        assume.extend(enc.x.iter().map(|&x| !x));
        assert_eq!(enc.solver.solve(&assume), crate::sat::SatResult::Unsat);
        let (_, a) = analyse_both(&self_sustaining_loop());
        assert_eq!(a.classification(), Classification::Paradox);
        let cuts = cut_names(&u, &a);
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0].0, vec!["e1"]);
        assert_eq!(cuts[0].1, vec![vec!["e2".to_string(), "e3".to_string()]]);
    }

    #[test]
    fn the_encoding_accepts_a_grounded_two_step_chain() {
        // `V visit A` creates A's visit on V (step 1), which creates V's kill on A (step 2).
        // The two created effects also trigger each other (a cycle the grounding levels
        // cover), but the declared visit starts the chain: one resolution, everything in S.
        let ens = Ensemble::from_triples(&[
            ("V", "visit", &["A"]),
            ("A", "reflexive:visit", &[]),
            ("V", "reflexive:kill", &[]),
        ]);
        let (u, a) = analyse_both(&ens);
        assert_eq!(a.classification(), Classification::NonParadox);
        assert_eq!(
            a.resolutions[0].succeeded_ids(&u),
            vec!["e1", "e2", "e2>V", "e3", "e3>A"]
        );
    }

    /// `P5 deflect P2`, `P2 stop P5` (found by the fuzzer). By hand: S = {} leaves e1
    /// unattacked; S = {e2} leaves rho declared (e1 at P2, e2 at P5), so e2 does not stop
    /// e1; S = {e1} moves e2 to P2 but nothing fails e2; S = {e1, e2} moves e2 to P2 and e2
    /// stops e1. A paradox. Cutting either effect leaves the other succeeding alone.
    fn deflected_stopper() -> Ensemble {
        Ensemble::from_triples(&[("P5", "deflect", &["P2"]), ("P2", "stop", &["P5"])])
    }

    fn cut_names(u: &Universe, a: &Analysis) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
        let c = a.cuts.as_ref().expect("paradox has cuts");
        c.optimal
            .iter()
            .map(|(f, rs)| {
                let ss = rs.iter().map(|r| r.succeeded_ids(u)).collect();
                (sorted_ids(u, f.ones()), ss)
            })
            .collect()
    }

    #[test]
    fn deflected_stopper_is_a_paradox() {
        // Default priorities: deflect 1, stop 3, so cutting the stop (cost [0, 1]) beats
        // cutting the deflection (cost [1, 0]).
        let (u, a) = analyse_both(&deflected_stopper());
        assert_eq!(a.classification(), Classification::Paradox);
        assert_eq!(a.cuts.as_ref().map(|c| c.cost.clone()), Some(vec![0, 1]));
        assert_eq!(
            cut_names(&u, &a),
            vec![(vec!["e2".into()], vec![vec!["e1".into()]])]
        );
        // Equal priorities: both singletons are optimal.
        let mut ens = deflected_stopper();
        for e in &mut ens.effects {
            e.priority = 0;
        }
        let (u, a) = analyse_both(&ens);
        assert_eq!(a.classification(), Classification::Paradox);
        assert_eq!(a.cuts.as_ref().map(|c| c.cost.clone()), Some(vec![1]));
        assert_eq!(
            cut_names(&u, &a),
            vec![
                (vec!["e1".into()], vec![vec!["e2".into()]]),
                (vec!["e2".into()], vec![vec!["e1".into()]]),
            ]
        );
    }

    #[test]
    fn no_deflection_means_constant_final_targets() {
        let ens = Ensemble::from_triples(&[
            ("R1", "block", &["R2"]),
            ("R2", "stop", &["R1", "V"]),
            ("V", "reflexive:kill", &[]),
        ]);
        let u = Universe::new(&ens);
        let enc = Encoding::new(&u, &Budget::new());
        assert_eq!(enc.movable_players(), 0);
        // A deflection nobody else can reach moves nothing either.
        let ens = Ensemble::from_triples(&[("D", "deflect", &["X"]), ("V", "visit", &["X"])]);
        let u = Universe::new(&ens);
        assert_eq!(Encoding::new(&u, &Budget::new()).movable_players(), 0);
    }

    fn deflect_params(players: usize, effects: usize, levels: u32) -> NightParams {
        NightParams {
            players,
            effects,
            priority_levels: levels,
            passive_rate: 0.2,
            kinds: vec![
                ActionKind::Deflect,
                ActionKind::Deflect,
                ActionKind::Deflect,
                ActionKind::Deflect,
                ActionKind::Block,
                ActionKind::Stop,
                ActionKind::Protect,
                ActionKind::Kill,
                ActionKind::Visit,
            ],
            max_targets: 2,
            modifier_rate: 0.0,
        }
    }

    /// A random night plus a deflection for some players, aimed at another player (so
    /// deflector cycles, and several ways, are common).
    fn night_with_deflectors(
        seed: u64,
        players: usize,
        effects: usize,
        levels: u32,
        deflect_to: &[Option<usize>],
    ) -> Ensemble {
        let mut params = deflect_params(players, effects, levels);
        params.kinds.retain(|&k| k != ActionKind::Deflect);
        let mut ens = night(&params, seed);
        for (p, to) in deflect_to.iter().enumerate().take(players) {
            let Some(to) = to else { continue };
            let to = (p + 1 + to % (players - 1)) % players;
            let id = format!("e{}", ens.effects.len() + 1);
            ens.effects.push(crate::systems::ar::night::model::Effect {
                id,
                actor: p as Player,
                kind: Kind::Action(ActionKind::Deflect),
                mods: Default::default(),
                targets: vec![to as Player],
                priority: if levels == 0 { 1 } else { (p as u32) % levels },
                span: None,
            });
        }
        ens
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Visits and deflections only (nothing fails, so S is every uncut effect; cut
        /// deflections are the inactive ones): the ways are exactly the contract's
        /// redirections, over every processing order, with up to 6 deflectors.
        #[test]
        fn ways_are_the_redirections_of_every_order(
            players in 2usize..7,
            deflect_to in prop::collection::vec(prop::option::weighted(0.8, 0usize..6), 6),
            visits in prop::collection::vec((0usize..6, 0usize..6), 0..4),
            cut_mask in any::<u8>(),
        ) {
            let names: Vec<String> = (1..=players).map(|i| format!("P{i}")).collect();
            let mut triples: Vec<(&str, &str, Vec<&str>)> = Vec::new();
            for (p, to) in deflect_to.iter().enumerate().take(players) {
                if let Some(to) = to {
                    triples.push((&names[p], "deflect", vec![&names[to % players]]));
                }
            }
            for &(a, b) in &visits {
                triples.push((&names[a % players], "visit", vec![&names[b % players]]));
            }
            let borrowed: Vec<(&str, &str, &[&str])> =
                triples.iter().map(|(a, k, t)| (*a, *k, t.as_slice())).collect();
            let mut ens = Ensemble::from_triples(&borrowed);
            ens.players = names.clone();
            let u = Universe::new(&ens);
            let mut cut = Cut::with_capacity(u.n_declared);
            for i in 0..u.n_declared.min(8) {
                if u.effects[i].action() == Some(ActionKind::Deflect) && cut_mask >> i & 1 == 1 {
                    cut.insert(i);
                }
            }
            let mut present = FixedBitSet::with_capacity(u.len());
            present.insert_range(..);
            let mut s = present.clone();
            s.difference_with(&cut);
            let want = semantics::redirections(&u, &cut, &present, &s);
            let mut enc = Encoding::new(&u, &Budget::new());
            let rs = enc.resolutions(&cut).expect("not interrupted");
            prop_assert_eq!(rs.len(), 1);
            prop_assert_eq!(&rs[0].succeeded, &s);
            prop_assert_eq!(&rs[0].ways, &want);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        #[test]
        fn sat_equals_brute_on_random_nights_with_deflections(
            seed in any::<u64>(),
            players in 2usize..5,
            effects in 1usize..9,
            levels in 0u32..3,
        ) {
            let ens = night(&deflect_params(players, effects, levels), seed);
            let u = Universe::new(&ens);
            prop_assume!(u.len() <= 12);
            let sat = analyse(&u, &Budget::new()).expect("not interrupted");
            let brute = brute::analyse(&u).expect("small universe");
            prop_assert_eq!(sat, brute);
        }

        #[test]
        fn sat_equals_brute_on_nights_with_deflector_cycles(
            seed in any::<u64>(),
            players in 2usize..5,
            effects in 1usize..6,
            levels in 0u32..3,
            deflect_to in prop::collection::vec(prop::option::weighted(0.7, 0usize..3), 4),
        ) {
            let ens = night_with_deflectors(seed, players, effects, levels, &deflect_to);
            let u = Universe::new(&ens);
            prop_assume!(u.len() <= 12);
            let sat = analyse(&u, &Budget::new()).expect("not interrupted");
            let brute = brute::analyse(&u).expect("small universe");
            prop_assert_eq!(sat, brute);
        }
    }
}
