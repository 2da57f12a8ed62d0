//! The direct engine on a component with many deflections: redirection as decisions of
//! the learning search, instead of one frame per set of active deflections.
//!
//! A frame ([`crate::systems::ar::direct::Frame`]) fixes the final targets, so a night with d
//! deflections has up to 2^d of them. Here the component is written once for the
//! learner of [`super::learn`], whose variables are, besides `s(u)` and `live(u)` of every
//! effect (as in [`super::cuts`]), the facts the final targets depend on:
//!
//! * `a[p]`, p's deflection succeeds, is `s(deflection of p)`;
//! * each cycle of two deflectors or more has one-hot `last` variables (which member is
//!   processed last), free when the whole cycle is active and pinned to its first
//!   member otherwise: these are the *ways*;
//! * a slot declared at p passes the players of p's path while every deflection before
//!   them is active, and ends at the first one where it stops (inactive, a
//!   self-deflection, or the `last` of an active cycle): `docs/redirection.md` derives
//!   why this is every processing order. "Ends at q" is one AND gate per step of the
//!   path, written only where some rule reads it: a block reads where it ends, a stop or
//!   protect whether it shares a final target, a bulletproof passive where a kill ends, a
//!   reflexive passive which actions end at its owner.
//!
//! Every attack and trigger of the frames becomes the same edge guarded by those gates:
//! (C2) an attack `s(a) and cond(a, y)` excludes `s(y)`, (C3) a failed live effect has
//! one, (C4) creation is `s(p) and some trigger (s(g) and g ends at the owner)`, and (C5)
//! grounded creation is propagated on partial labellings ([`super::ground`]) and
//! checked on each complete labelling, with loop nogoods over the guarded triggers. Memory is linear in the component plus the path steps its rules
//! read (a chain of n deflections that only a kill enters has no gate at all). The
//! resolutions are every labelling projected on success, creation and `last`, each
//! (resolution, way) once; optimal cuts are minimised level by level as in
//! [`super::cuts`] (with cut dominance), then enumerated by blocking. A large component
//! is answered as a product ([`product`], through [`super::split`]) on the same writing.
//!
//! Invariant: never calls the SAT layer; answers equal those of the frames (tested
//! against brute force, the frames and the SAT engine by the property tests).

use super::cuts::{self, minimise_with};
use super::learn::{lit, neg, Learner, Lit, Problem};
use crate::systems::ar::answer::pieces::Product;
use crate::systems::ar::night::model::{Kind, PassiveKind, Player, Reach};
use crate::systems::ar::night::resolution::{
    group_ways, Cut, Resolution, TargetMap, WaysByResolution,
};
use crate::systems::ar::night::universe::{attack_candidates, Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::collections::{BTreeSet, HashMap};

/// Exactly-one constraints up to this many literals are pairwise; longer ones use a
/// sequential counter.
const PAIRWISE_UP_TO: usize = 6;

/// The component written for the learner.
struct Written {
    /// The component as the cut search's loop nogoods and the product form read it: every
    /// effect of the universe (local index = universe index), each trigger of a created
    /// effect guarded by "it succeeds and ends at the owner".
    shape: cuts::Written,
    /// Which effects may be live (not cut, not created by a cut passive).
    dead: Vec<bool>,
    /// `last` variables of each cycle of two or more deflectors (members in order).
    cycles: Vec<(Vec<Player>, Vec<Lit>)>,
    /// Cycle index of each player on such a cycle.
    cycle_of: Vec<Option<usize>>,
    /// The effect whose success is `a[p]`, for each player with an uncut deflection.
    active: Vec<Option<Ix>>,
    vars: usize,
}

impl Written {
    /// How many effects (the universe's).
    fn n(&self) -> usize {
        self.shape.m()
    }
    fn s(&self, j: Ix) -> usize {
        self.shape.s(j)
    }
    fn live(&self, j: Ix) -> usize {
        self.shape.live(j)
    }
    fn declared(&self, j: Ix) -> bool {
        self.shape.declared[j]
    }
}

/// Builds the clauses: constants folded through the variable `tv`, fixed true.
struct Builder<'u> {
    u: &'u Universe,
    w: Written,
    clauses: Vec<Vec<Lit>>,
    facts: Vec<Lit>,
    phase: Vec<bool>,
    t: Lit,
    stop_cache: HashMap<Player, Lit>,
    end: HashMap<Player, Vec<(Player, Lit)>>,
    at_cache: HashMap<(Ix, Player), Lit>,
    budget: &'u Budget,
    polls: u64,
}

impl Builder<'_> {
    fn f(&self) -> Lit {
        neg(self.t)
    }

    fn fresh(&mut self) -> Lit {
        let v = self.w.vars;
        self.w.vars += 1;
        self.phase.push(false);
        lit(v, true)
    }

    fn poll(&mut self) -> Result<(), Interrupted> {
        self.polls += 1;
        if self.polls.is_multiple_of(1024) {
            self.budget.check()?;
        }
        Ok(())
    }

    /// Adds a clause, folding constants (an empty one makes the problem unsatisfiable).
    fn clause(&mut self, lits: &[Lit]) {
        if lits.contains(&self.t) {
            return;
        }
        let f = self.f();
        let mut v: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            if l != f && !v.contains(&l) {
                v.push(l);
            }
        }
        if v.is_empty() {
            self.facts.push(f);
        } else {
            self.clauses.push(v);
        }
    }

    fn and(&mut self, lits: &[Lit]) -> Lit {
        let f = self.f();
        if lits.contains(&f) {
            return f;
        }
        let mut v: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            if l != self.t && !v.contains(&l) {
                v.push(l);
            }
        }
        if v.iter().any(|&l| v.contains(&neg(l))) {
            return f;
        }
        match v.as_slice() {
            [] => self.t,
            [l] => *l,
            _ => {
                let g = self.fresh();
                let mut back = vec![g];
                for &l in &v {
                    self.clauses.push(vec![neg(g), l]);
                    back.push(neg(l));
                }
                self.clauses.push(back);
                g
            }
        }
    }

    fn or(&mut self, lits: &[Lit]) -> Lit {
        let negated: Vec<Lit> = lits.iter().map(|&l| neg(l)).collect();
        neg(self.and(&negated))
    }

    fn exactly_one(&mut self, lits: &[Lit]) {
        self.clause(lits);
        if lits.len() <= PAIRWISE_UP_TO {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.clause(&[neg(a), neg(b)]);
                }
            }
            return;
        }
        let mut seen = lits[0];
        for &l in &lits[1..] {
            self.clause(&[neg(seen), neg(l)]);
            let next = self.fresh();
            self.clause(&[neg(seen), next]);
            self.clause(&[neg(l), next]);
            seen = next;
        }
    }

    fn active(&self, p: Player) -> Lit {
        self.w.active[p as usize].map_or(self.f(), |g| lit(g, true))
    }

    /// "A slot that reaches p stops at p" (see the module documentation).
    fn stop_at(&mut self, p: Player) -> Lit {
        if let Some(&l) = self.stop_cache.get(&p) {
            return l;
        }
        let inactive = neg(self.active(p));
        let l = if self.u.deflections.next(p) == Some(p) {
            self.t
        } else if let Some(c) = self.w.cycle_of[p as usize] {
            let (members, last) = self.w.cycles[c].clone();
            let k = members.iter().position(|&q| q == p).expect("on its cycle");
            let actives: Vec<Lit> = members.iter().map(|&q| self.active(q)).collect();
            let all = self.and(&actives);
            let picked = self.and(&[all, last[k]]);
            self.or(&[inactive, picked])
        } else {
            inactive
        };
        self.stop_cache.insert(p, l);
        l
    }

    /// Where a slot declared at p can end, with the literal "it ends there".
    fn ends(&mut self, p: Player) -> Result<Vec<(Player, Lit)>, Interrupted> {
        if let Some(e) = self.end.get(&p) {
            return Ok(e.clone());
        }
        let mut pos = Vec::new();
        let mut pass = self.t;
        let d = &self.u.deflections;
        for q in d.reach(p) {
            self.poll()?;
            let stop = self.stop_at(q);
            let here = self.and(&[pass, stop]);
            if here != self.f() {
                pos.push((q, here));
            }
            let a = self.active(q);
            pass = self.and(&[pass, a]);
            if pass == self.f() {
                break;
            }
        }
        self.end.insert(p, pos.clone());
        Ok(pos)
    }

    /// "Some final target of effect i is p".
    fn at(&mut self, i: Ix, p: Player) -> Result<Lit, Interrupted> {
        if let Some(&l) = self.at_cache.get(&(i, p)) {
            return Ok(l);
        }
        let mut lits = Vec::new();
        let u = self.u;
        for (k, &d) in u.effects[i].targets.iter().enumerate() {
            if u.effects[i].targets[..k].contains(&d) || !u.deflections.reaches(d, p) {
                continue;
            }
            let ends = self.ends(d)?;
            if let Some(&(_, l)) = ends.iter().find(|&&(q, _)| q == p) {
                lits.push(l);
            }
        }
        let l = self.or(&lits);
        self.at_cache.insert((i, p), l);
        Ok(l)
    }

    /// The players effect i can finally target (sorted).
    fn possible(&self, i: Ix) -> Vec<Player> {
        let d = &self.u.deflections;
        let mut v: Vec<Player> = self.u.effects[i]
            .targets
            .iter()
            .flat_map(|&t| d.reach(t))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// "a and b share a final target".
    fn shares(&mut self, a: Ix, b: Ix) -> Result<Lit, Interrupted> {
        let pb = self.possible(b);
        let mut terms = Vec::new();
        for p in self.possible(a) {
            if pb.binary_search(&p).is_err() {
                continue;
            }
            let (la, lb) = (self.at(a, p)?, self.at(b, p)?);
            let l = self.and(&[la, lb]);
            if l == self.t {
                return Ok(self.t);
            }
            terms.push(l);
        }
        Ok(self.or(&terms))
    }
}

/// Writes the component: resolving E[`cut`] (declared effects outside the cut live), or,
/// with `cut_search`, any cut (declared liveness free, cut dominance, one counted set of
/// cut effects per level).
fn write(
    u: &Universe,
    cut: &Cut,
    cut_search: bool,
    budget: &Budget,
) -> Result<(Written, Problem), Interrupted> {
    let n = u.len();
    let np = u.n_players();
    let nd = u.n_declared;
    let is_cut = |i: Ix| i < nd && cut.contains(i);
    let dead: Vec<bool> = (0..n)
        .map(|i| match u.effects[i].origin {
            Origin::Declared(_) => is_cut(i),
            Origin::Created { passive, .. } => is_cut(passive),
        })
        .collect();
    let active: Vec<Option<Ix>> = (0..np)
        .map(|p| u.deflector[p].filter(|&g| !dead[g]))
        .collect();
    let mut cycle_of = vec![None; np];
    let mut cycles = Vec::new();
    let tv = 2 * n;
    let levels = u.levels();
    let w = Written {
        shape: cuts::Written {
            comp: (0..n).collect(),
            triggers: vec![Vec::new(); n],
            created: (0..n).map(|j| j >= nd).collect(),
            declared: (0..n).map(|j| j < nd).collect(),
            grounded: (0..n).map(|j| j < nd).collect(),
            level: (0..n)
                .map(|j| {
                    if j < nd {
                        levels
                            .binary_search(&u.effects[j].priority)
                            .expect("every priority is a level")
                    } else {
                        0
                    }
                })
                .collect(),
            weight: (0..n).map(|j| u.weight(j)).collect(),
        },
        dead,
        cycles: Vec::new(),
        cycle_of: Vec::new(),
        active,
        vars: tv + 1,
    };
    let mut b = Builder {
        u,
        w,
        clauses: Vec::new(),
        facts: vec![lit(tv, true)],
        phase: vec![true; tv + 1],
        t: lit(tv, true),
        stop_cache: HashMap::new(),
        end: HashMap::new(),
        at_cache: HashMap::new(),
        budget,
        polls: 0,
    };
    // Cycles of two or more deflectors: one-hot `last`, pinned unless all are active.
    for members in u.deflections.cycles().iter().filter(|c| c.len() > 1) {
        b.poll()?;
        let last: Vec<Lit> = members.iter().map(|_| b.fresh()).collect();
        b.exactly_one(&last);
        let actives: Vec<Lit> = members.iter().map(|&q| b.active(q)).collect();
        let all = b.and(&actives);
        b.clause(&[all, last[0]]);
        for &q in members {
            cycle_of[q as usize] = Some(cycles.len());
        }
        cycles.push((members.clone(), last));
    }
    b.w.cycles = cycles;
    b.w.cycle_of = cycle_of;
    let dead = b.w.dead.clone();
    // Who could be hit: live actions by actor, and by possible final target where a
    // stop, protect or bulletproof passive looks (gathered from the players upstream).
    let mut by_actor: Vec<Vec<Ix>> = vec![Vec::new(); np];
    let mut aimed: Vec<Vec<Ix>> = vec![Vec::new(); np];
    let mut unblockable: Vec<Vec<Ix>> = vec![Vec::new(); np];
    for (i, e) in u.effects.iter().enumerate().filter(|&(i, _)| !dead[i]) {
        if e.action().is_some() {
            by_actor[e.actor as usize].push(i);
            for (k, &d) in e.targets.iter().enumerate() {
                if !e.targets[..k].contains(&d) {
                    aimed[d as usize].push(i);
                }
            }
        } else if e.kind == Kind::Passive(PassiveKind::Unblockable) {
            unblockable[e.actor as usize].push(i);
        }
    }
    let mut possible: Vec<Vec<Player>> = vec![Vec::new(); n];
    let mut looked = FixedBitSet::with_capacity(np);
    for (i, e) in u.effects.iter().enumerate().filter(|&(i, _)| !dead[i]) {
        for atk in e.attacks() {
            match atk.reach {
                Reach::Actor => {
                    if possible[i].is_empty() {
                        possible[i] = b.possible(i);
                    }
                }
                Reach::Shared => {
                    if possible[i].is_empty() {
                        possible[i] = b.possible(i);
                    }
                    possible[i].iter().for_each(|&p| looked.insert(p as usize));
                }
                Reach::Owner => looked.insert(e.actor as usize),
            }
        }
    }
    let mut by_target: Vec<Vec<Ix>> = vec![Vec::new(); np];
    let mut seen = vec![usize::MAX; n];
    for p in looked.ones() {
        b.poll()?;
        let pool = &mut by_target[p];
        u.deflections.upstream(p as Player, |q| {
            for &i in &aimed[q as usize] {
                if seen[i] != p {
                    seen[i] = p;
                    pool.push(i);
                }
            }
        });
    }
    // Attacks: (C2), cut dominance, (C3). With `visited:K` passives, the attacks that stop
    // their victim at its source are also kept per victim (a victim without one visits
    // while it is live).
    let mut attacks: Vec<Vec<Lit>> = vec![Vec::new(); n];
    let visits = u.has_visit_triggers();
    let mut sources: Vec<Vec<Lit>> = vec![Vec::new(); n];
    let mut open: HashMap<Player, Lit> = HashMap::new();
    let mut stamp = vec![usize::MAX; n];
    for a in (0..n).filter(|&a| !dead[a]) {
        let ae = &u.effects[a];
        for (row, atk) in ae.attacks().enumerate() {
            // A jail's two rows are two attacks, each with its own condition.
            let key = 2 * a + row;
            let ys = attack_candidates(
                u,
                a,
                &atk,
                &possible[a],
                &by_actor,
                &by_target,
                &mut stamp,
                key,
            );
            for y in ys {
                b.poll()?;
                let ye = &u.effects[y];
                if !ye.hit_by(&atk, ae) {
                    continue;
                }
                let sa = lit(a, true);
                let att = match atk.reach {
                    Reach::Actor => {
                        let guards = &unblockable[ye.actor as usize];
                        if atk.block && !guards.is_empty() && !cut_search {
                            continue; // an unblockable passive that cannot be cut
                        }
                        let on = b.at(a, ye.actor)?;
                        let mut cond = vec![sa, on];
                        if atk.block && !guards.is_empty() {
                            let o = match open.get(&ye.actor) {
                                Some(&o) => o,
                                None => {
                                    // Every unblockable passive of the actor is cut.
                                    let o = b.fresh();
                                    let mut any = vec![o];
                                    for &g in guards {
                                        b.clause(&[neg(o), lit(n + g, false)]);
                                        any.push(lit(n + g, true));
                                    }
                                    b.clause(&any);
                                    open.insert(ye.actor, o);
                                    o
                                }
                            };
                            cond.push(o);
                        }
                        b.and(&cond)
                    }
                    Reach::Shared => {
                        let sh = b.shares(a, y)?;
                        b.and(&[sa, sh])
                    }
                    Reach::Owner => {
                        let on = b.at(y, ae.actor)?;
                        b.and(&[sa, on])
                    }
                };
                if att == b.f() {
                    continue;
                }
                b.clause(&[neg(att), lit(y, false)]);
                // With `visited:K` passives, an action failed at its target still visits:
                // only an attack at its source makes a cut of it dominated.
                if cut_search && y < nd && (!visits || atk.at_source) {
                    b.clause(&[neg(att), lit(n + y, true)]);
                }
                if visits && atk.at_source {
                    sources[y].push(att);
                }
                attacks[y].push(att);
            }
        }
    }
    for y in 0..n {
        b.poll()?;
        let (s, live) = (lit(y, true), lit(n + y, true));
        b.clause(&[neg(s), live]);
        let mut c3 = vec![neg(live), s];
        c3.append(&mut attacks[y]);
        b.clause(&c3);
        if dead[y] {
            b.facts.extend([neg(s), neg(live)]);
        } else if y < nd && !cut_search {
            b.facts.push(live);
        }
    }
    // Creation (C4): live(c) <-> s(p) and some trigger (succeeds, or visits for a
    // `visited:K`, and ends at the owner). `visit(g) <-> live(g) and no source of g`.
    let mut visit_of: HashMap<Ix, Lit> = HashMap::new();
    for (c, &is_dead) in dead.iter().enumerate().skip(nd) {
        let Origin::Created { passive, visitor } = u.effects[c].origin else {
            unreachable!("effects past the declared ones are created")
        };
        if is_dead {
            continue;
        }
        let owner = u.effects[passive].actor;
        let live = lit(n + c, true);
        let sp = lit(passive, true);
        b.clause(&[neg(live), sp]);
        let mut some = vec![neg(live)];
        let mut mine = Vec::new();
        let only = u.effects[passive].mods.only;
        for &g in &by_actor[visitor as usize] {
            b.poll()?;
            if only.is_some_and(|o| u.effects[g].action().is_some_and(|k| !o.contains(k))) {
                continue;
            }
            let on = b.at(g, owner)?;
            let fires = if u.on_visit(c) {
                match visit_of.get(&g) {
                    Some(&v) => v,
                    None => {
                        let v = b.fresh();
                        b.clause(&[neg(v), lit(n + g, true)]);
                        let mut all = vec![v, lit(n + g, false)];
                        for &src in &sources[g] {
                            b.clause(&[neg(v), neg(src)]);
                            all.push(src);
                        }
                        b.clause(&all);
                        visit_of.insert(g, v);
                        v
                    }
                }
            } else {
                lit(g, true)
            };
            let trig = b.and(&[fires, on]);
            if trig == b.f() {
                continue;
            }
            mine.push((g, trig));
            some.push(trig);
            b.clause(&[neg(trig), neg(sp), live]);
        }
        b.clause(&some);
        b.w.shape.triggers[c] = mine;
    }
    if cut_search {
        let mut problem = Problem {
            vars: b.w.vars,
            clauses: b.clauses,
            facts: b.facts,
            counted: vec![Vec::new(); levels.len()],
            phase: b.phase,
            atoms: b.w.shape.atoms(),
        };
        for j in 0..nd {
            problem.count(b.w.shape.level[j], lit(n + j, false), u.weight(j));
        }
        return Ok((b.w, problem));
    }
    let problem = Problem {
        vars: b.w.vars,
        clauses: b.clauses,
        facts: b.facts,
        counted: Vec::new(),
        phase: b.phase,
        atoms: b.w.shape.atoms(),
    };
    Ok((b.w, problem))
}

/// The final target of a slot declared at each player, under the labelling (linear: each
/// player's end is its own or its successor's).
fn final_positions(u: &Universe, w: &Written, l: &Learner) -> Vec<Player> {
    let np = u.n_players();
    let d = &u.deflections;
    let on = |p: Player| w.active[p as usize].is_some_and(|g| l.is_true(w.s(g)));
    let stops = |p: Player| -> bool {
        if !on(p) || d.next(p) == Some(p) {
            return true;
        }
        match w.cycle_of[p as usize] {
            Some(c) => {
                let (members, last) = &w.cycles[c];
                let all = members.iter().all(|&q| on(q));
                let k = members.iter().position(|&q| q == p).expect("on its cycle");
                all && l.is_true((last[k] >> 1) as usize)
            }
            None => false,
        }
    };
    const UNSET: Player = Player::MAX;
    let mut end = vec![UNSET; np];
    let mut walk = Vec::new();
    for start in 0..np as Player {
        let mut p = start;
        while end[p as usize] == UNSET {
            if stops(p) {
                end[p as usize] = p;
                break;
            }
            walk.push(p);
            p = d.next(p).expect("an active deflection has a target");
        }
        let e = end[p as usize];
        for q in walk.drain(..) {
            end[q as usize] = e;
        }
    }
    end
}

/// The projection of a labelling onto (R, S, way): success, creation and `last`.
fn projection(w: &Written) -> Vec<usize> {
    let mut v: Vec<usize> = (0..w.n()).map(|j| w.s(j)).collect();
    v.extend((0..w.n()).filter(|&c| !w.declared(c)).map(|c| w.live(c)));
    for (_, last) in &w.cycles {
        v.extend(last.iter().map(|&l| (l >> 1) as usize));
    }
    v
}

/// Every acceptable resolution of E[cut], each with all its ways.
pub fn resolutions(
    u: &Universe,
    cut: &Cut,
    budget: &Budget,
) -> Result<Vec<Resolution>, Interrupted> {
    let (w, problem) = write(u, cut, false, budget)?;
    let mut learner = Learner::new(problem, budget)?;
    let found = enumerate(u, &w, cut, &mut learner, budget);
    learner.release(budget);
    Ok(group_ways(u, found?))
}

fn enumerate(
    u: &Universe,
    w: &Written,
    cut: &Cut,
    l: &mut Learner,
    budget: &Budget,
) -> Result<WaysByResolution, Interrupted> {
    let n = w.n();
    let proj = projection(w);
    let mut check = |l: &Learner| cuts::unfounded(&w.shape, l);
    let mut found = WaysByResolution::new();
    while l.solve(budget, &mut check)? {
        let mut present = FixedBitSet::with_capacity(n);
        let mut succeeded = FixedBitSet::with_capacity(n);
        for i in 0..n {
            present.set(i, w.declared(i) || l.is_true(w.live(i)));
            succeeded.set(i, l.is_true(w.s(i)));
        }
        let end = final_positions(u, w, l);
        let way: TargetMap = (0..n)
            .map(|i| {
                let e = &u.effects[i];
                let is_cut = w.declared(i) && cut.contains(i);
                if e.action().is_some() && present.contains(i) && !is_cut {
                    e.targets.iter().map(|&t| end[t as usize]).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        budget.charge("ways", u.map_bytes() + 2 * u.set_bytes())?;
        found.entry((present, succeeded)).or_default().push(way);
        let block: Vec<Lit> = proj.iter().map(|&v| lit(v, !l.is_true(v))).collect();
        l.block(block, budget)?;
    }
    Ok(found)
}

/// The optimal cost vector and every optimal Gordian cut.
pub fn optimal_cuts(u: &Universe, budget: &Budget) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
    let nd = u.n_declared;
    let levels = u.levels().len();
    let none = Cut::with_capacity(nd);
    let (w, problem) = write(u, &none, true, budget)?;
    let mut learner = Learner::new(problem, budget)?;
    let found = cuts_of(&w, levels, &mut learner, budget);
    learner.release(budget);
    let (opt, cuts) = found?;
    let cuts = cuts
        .into_iter()
        .map(|c| {
            let mut f = Cut::with_capacity(nd);
            c.into_iter().for_each(|i| f.insert(i));
            f
        })
        .collect();
    Ok((opt, cuts))
}

fn cuts_of(
    w: &Written,
    levels: usize,
    l: &mut Learner,
    budget: &Budget,
) -> Result<(Vec<usize>, BTreeSet<Vec<Ix>>), Interrupted> {
    let mut check = |l: &Learner| cuts::unfounded(&w.shape, l);
    let opt = minimise_with(l, levels, budget, &mut check)?
        .expect("cutting every declared effect always leaves an acceptable resolution");
    let mut cuts = BTreeSet::new();
    while l.solve(budget, &mut check)? {
        let cut: Vec<Ix> = (0..w.n())
            .filter(|&j| w.declared(j) && !l.is_true(w.live(j)))
            .collect();
        budget.charge("cuts", 48 + 8 * cut.len() as u64)?;
        let done = cut.is_empty();
        l.block(cut.iter().map(|&j| lit(w.live(j), true)).collect(), budget)?;
        cuts.insert(cut);
        if done {
            break;
        }
    }
    Ok((opt, cuts))
}

/// The optimal labellings of component universe `u` as a product (see [`super::split`]),
/// written once with its redirections as decisions: the `last` variables of its cycles
/// are labels too. `None` never happens (cutting every declared effect always leaves a
/// labelling) but is passed on.
pub fn product(u: &Universe, budget: &Budget) -> Result<Option<Product>, Interrupted> {
    let none = Cut::with_capacity(u.n_declared);
    let (w, problem) = write(u, &none, true, budget)?;
    let lasts: Vec<(Player, usize)> = w
        .cycles
        .iter()
        .flat_map(|(members, last)| {
            members
                .iter()
                .zip(last)
                .map(|(&p, &l)| (p, (l >> 1) as usize))
        })
        .collect();
    super::split::product_of(u, w.shape, u.len(), problem, Some(lasts), budget)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::judge::brute;
    use crate::systems::ar::night::gen::{night, NightParams};
    use crate::systems::ar::night::model::Ensemble;
    use crate::systems::ar::night::parse::parse_str;
    use crate::systems::ar::night::resolution::{analyse_with, Analysis, Resolver};
    use crate::systems::ar::sat::encode;
    use std::path::Path;

    /// This module as a complete engine (whatever the number of deflections).
    struct Lazy<'a>(&'a Universe);

    impl Resolver for Lazy<'_> {
        fn resolutions(&mut self, cut: &Cut) -> Result<Vec<Resolution>, Interrupted> {
            resolutions(self.0, cut, &Budget::new())
        }
        fn optimal_cuts(&mut self) -> Result<(Vec<usize>, Vec<Cut>), Interrupted> {
            optimal_cuts(self.0, &Budget::new())
        }
    }

    fn lazy(u: &Universe) -> Analysis {
        analyse_with(u, &mut Lazy(u)).expect("not interrupted")
    }

    fn universe(text: &str) -> Universe {
        Universe::new(&parse_str(text, Path::new("t.night")).expect("valid"))
    }

    /// Each resolution as (succeeded ids, deaths of its one way).
    fn summary(u: &Universe, a: &Analysis) -> Vec<(Vec<String>, Vec<String>)> {
        a.resolutions
            .iter()
            .map(|r| {
                assert_eq!(r.ways.len(), 1);
                (r.succeeded_ids(u), r.deaths(u, &r.ways[0]))
            })
            .collect()
    }

    /// Worked by hand: e1 `V kill D1`, e2 `D1 deflect D2`, e3 `D2 deflect D3`, e4 `B block
    /// D2`. Nothing can hit e1, e2 or e4 (no stop or protect; the block can only hit
    /// D2's action), so they succeed. If e3 succeeds, the block's slot at D2 moves on to
    /// D3 (who has no action), nothing hits e3: consistent; the kill goes D1 -> D2 -> D3
    /// in either processing order, and D3 dies. If e3 fails, nothing moves the block
    /// off D2, so it hits e3: consistent too; the kill stops at D2, who dies. Two
    /// resolutions of one way each: a quasi-paradox.
    #[test]
    fn a_block_on_a_deflector_decides_where_the_kill_ends() {
        let u = universe("V kill D1\nD1 deflect D2\nD2 deflect D3\nB block D2\n");
        let a = lazy(&u);
        let mut got = summary(&u, &a);
        got.sort();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            [
                (s(&["e1", "e2", "e3", "e4"]), s(&["D3"])),
                (s(&["e1", "e2", "e4"]), s(&["D2"])),
            ]
        );
        assert_eq!(a, brute::analyse(&u).expect("small"));
    }

    /// Worked by hand: e1 `D1 deflect D2`, e2 `D2 deflect D1`, e3 `S stop D1`. Nothing
    /// can fail the stop (a stop fails only non-stops), so it succeeds. Both deflections
    /// succeeding: every slot ends at the cycle's last-processed member, the stop's too,
    /// so it fails both: no. e1 alone: it moves e2's and the stop's slots from D1 to D2,
    /// where e1's own slot is: the stop fails e1: no. e2 alone: it moves e1's slot from
    /// D2 to D1, where e2's slot and the stop are: the stop fails e2: no. Neither: nothing
    /// moves, e1 alone at D2 has no attacker and must succeed: no. A paradox. Cutting the
    /// stop (one effect at priority 3) leaves the two deflectors with one resolution of
    /// two ways; every other cut cuts a deflection (priority 1) and costs more. So the one
    /// optimal cut is {e3}, cost [0 at priority 1, 1 at priority 3].
    #[test]
    fn a_stop_inside_a_cycle_of_deflections_is_a_paradox_cut_at_the_stop() {
        let u = universe("D1 deflect D2\nD2 deflect D1\nS stop D1\n");
        let a = lazy(&u);
        assert!(a.resolutions.is_empty());
        let c = a.cuts.as_ref().expect("a paradox");
        assert_eq!(c.cost, [0, 1]); // levels 1 (deflect) and 3 (stop)
        assert_eq!(c.optimal.len(), 1);
        assert_eq!(c.optimal[0].0.ones().collect::<Vec<_>>(), [2]);
        assert_eq!(c.optimal[0].1.len(), 1);
        assert_eq!(
            c.optimal[0].1[0].ways.len(),
            2,
            "the two deflectors' two ways"
        );
        assert_eq!(a, brute::analyse(&u).expect("small"));
    }

    /// A chain of 10,000 deflections into which a kill is aimed (`V kill D0`, `Di
    /// deflect D(i+1)`): nothing can fail anything (no block, stop or protect), so every
    /// deflection succeeds and the kill travels to D10000, who dies: one resolution, one
    /// way, found without a gate (no rule reads a final target).
    #[test]
    fn a_chain_of_ten_thousand_deflections_is_answered_at_once() {
        let mut text = String::from("V kill D0\n");
        for i in 0..10_000 {
            text.push_str(&format!("D{i} deflect D{}\n", i + 1));
        }
        let u = universe(&text);
        let none = Cut::with_capacity(u.n_declared);
        let (w, _) = write(&u, &none, false, &Budget::new()).expect("not interrupted");
        assert_eq!(
            w.vars,
            2 * u.len() + 1,
            "no gate: nothing reads a final target"
        );
        let rs = resolutions(&u, &none, &Budget::new()).expect("not interrupted");
        assert_eq!(rs.len(), 1);
        assert_eq!(rs[0].ways.len(), 1);
        assert_eq!(rs[0].succeeded.count_ones(..), u.len());
        assert_eq!(rs[0].deaths(&u, &rs[0].ways[0]), ["D10000"]);
    }

    /// Equal to brute force (every subset and every processing order) on small random
    /// nights where deflections are frequent: cycles, chains, reflexives, cuts.
    #[test]
    fn lazy_redirection_equals_brute_force() {
        let mut compared = 0;
        for seed in 0..2500u64 {
            let e: Ensemble = night(
                &NightParams::deflect_heavy(2 + (seed % 4) as usize, 1 + (seed % 9) as usize),
                seed,
            );
            let u = Universe::new(&e);
            if u.len() > 12 {
                continue;
            }
            let b = brute::analyse(&u).expect("small");
            assert_eq!(lazy(&u), b, "seed {seed}");
            compared += 1;
        }
        assert!(compared > 1500, "{compared}");
    }

    /// Equal to the SAT engine on larger random nights with many deflections.
    #[test]
    fn lazy_redirection_equals_sat() {
        for seed in 0..300u64 {
            let e = night(
                &NightParams::deflect_heavy(4 + (seed % 6) as usize, 10 + (seed % 15) as usize),
                seed,
            );
            let u = Universe::new(&e);
            let s = encode::analyse(&u, &Budget::new()).expect("not interrupted");
            assert_eq!(lazy(&u), s, "seed {seed}");
        }
    }
}
