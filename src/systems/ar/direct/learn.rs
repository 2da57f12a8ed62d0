//! A labelling search with nogood learning: the kernel of the direct engine's cut search.
//!
//! The problem is boolean variables, clauses (the frame's constraints, written out by
//! [`super::cuts`]), *counted sets* (at most `b` of these literals true: the cost of one
//! priority level, with a bound that the caller tightens or loosens between queries),
//! *atoms* (variables true only with an acyclic derivation, whose unfounded sets
//! [`super::ground`] finds at every propagation fixpoint) and a check on complete
//! labellings (grounded creation) that may answer with a nogood. The
//! search propagates clauses with two watched literals and counted sets with counters;
//! every propagation records the nogood it came from, so a conflict is analysed to its
//! first unique implication point and the learned nogood is kept. The search then jumps
//! back past every choice that played no part in the conflict, and never refutes the same
//! sub-problem (an odd cycle downstream) again under another upstream choice. It restarts
//! on the Luby sequence, and at a restart once enough nogoods are learned it drops the
//! half with the highest literal block distance (as Glucose does), so that a long search
//! keeps its store of nogoods bounded.
//!
//! Levels: 0 holds the facts and what follows from them and from the permanent nogoods;
//! level 1 holds what follows from the current bounds (and the *bounded* nogoods); choices
//! start at level 2. A nogood is *bounded* when its derivation used a bound or a blocking
//! nogood added by the caller: it holds only while the bounds are at least as tight, so all
//! bounded nogoods are dropped when a bound loosens.
//!
//! Invariants: every learned nogood follows from the clauses, the atoms' loop nogoods, the
//! checks' nogoods and (if bounded) the current bounds and blocks (so dropping one loses
//! nothing but time); only
//! nogoods learned from conflicts are ever dropped, never a clause, a check's nogood, a
//! block or a held literal; [`Learner::solve`] answers `true` only on a
//! complete labelling that satisfies every clause, bound and check, and `false` only when
//! none exists. This module knows nothing about games and never calls the SAT layer.

use super::ground::{Atom, Grounding, FALSE, TRUE, UNKNOWN};
use crate::systems::spec::{Budget, Interrupted};

/// A literal: `2 * var` is "var is true", `2 * var + 1` "var is false" (defined with the
/// unfounded-set propagation, which the learner builds on).
pub use super::ground::Lit;

/// The literal "var has value `value`".
pub fn lit(var: usize, value: bool) -> Lit {
    ((var as u32) << 1) | u32::from(!value)
}

/// The opposite literal.
pub fn neg(l: Lit) -> Lit {
    l ^ 1
}

fn var(l: Lit) -> usize {
    (l >> 1) as usize
}

/// Conflicts between polls of the budget.
const POLL: u64 = 256;
/// Conflicts per unit of the Luby restart sequence (tests restart often, and so reduce).
#[cfg(not(test))]
const RESTART_UNIT: u64 = 128;
#[cfg(test)]
const RESTART_UNIT: u64 = 2;
/// Learned nogoods stored before the first [`Learner::reduce`], and how many more each
/// later one waits for (as Glucose does). Tests reduce after a few, so that every
/// property test of the direct engine runs through reductions.
#[cfg(not(test))]
const REDUCE_FIRST: usize = 2000;
#[cfg(not(test))]
const REDUCE_STEP: usize = 300;
#[cfg(test)]
const REDUCE_FIRST: usize = 4;
#[cfg(test)]
const REDUCE_STEP: usize = 1;

#[derive(Clone, Copy, Debug)]
enum Reason {
    /// A choice, a fact, or a level-0 consequence whose nogood was since dropped.
    None,
    /// A nogood stored in the arena, implied literal first.
    Arena { start: u32, len: u32, bounded: bool },
    /// A stored clause.
    Clause(u32),
}

struct Clause {
    lits: Vec<Lit>,
    bounded: bool,
    /// For a nogood learned from a conflict, its literal block distance (how many
    /// decision levels its literals spanned when learned, at least 1): what
    /// [`Learner::reduce`] keeps the low ones of. 0 for every other nogood (kept).
    lbd: u32,
}

struct Counted {
    lits: Vec<Lit>,
    bound: Option<usize>,
    count: usize,
    /// A guarded set (added by [`Learner::add_counted`]) holds only while its guard does;
    /// its bound is fixed and its nogoods are permanent.
    guard: Option<Lit>,
}

/// The problem given to a [`Learner`].
#[derive(Clone)]
pub struct Problem {
    /// Number of variables.
    pub vars: usize,
    /// Clauses (each a disjunction of literals; none empty).
    pub clauses: Vec<Vec<Lit>>,
    /// Literals that hold.
    pub facts: Vec<Lit>,
    /// The counted sets (at most `bound` of the literals true), unbounded at first.
    pub counted: Vec<Vec<Lit>>,
    /// The value each variable is tried with first.
    pub phase: Vec<bool>,
    /// Variables true only when derived (grounded creation): propagated by
    /// [`super::ground`] on partial labellings, as well as judged by the check.
    pub atoms: Vec<Atom>,
}

impl Problem {
    /// Counts `l` in counted set `set` `weight` times: `l` itself and `weight - 1` fresh
    /// variables equal to it (so a counted set's count is a weighted sum).
    pub fn count(&mut self, set: usize, l: Lit, weight: usize) {
        self.counted[set].push(l);
        for _ in 1..weight {
            let v = self.vars;
            self.vars += 1;
            self.phase.push(self.phase[var(l)] == (l & 1 == 0));
            self.clauses.push(vec![lit(v, false), l]);
            self.clauses.push(vec![lit(v, true), neg(l)]);
            self.counted[set].push(lit(v, true));
        }
    }
}

/// The search state; see the module documentation.
pub struct Learner {
    clauses: Vec<Clause>,
    watches: Vec<Vec<u32>>,
    facts: Vec<Lit>,
    counted: Vec<Counted>,
    counted_of: Vec<Vec<u32>>,
    /// By literal: the guarded counted sets it guards.
    guarded_by: Vec<Vec<u32>>,
    val: Vec<u8>,
    lvl: Vec<u32>,
    reason: Vec<Reason>,
    trail: Vec<Lit>,
    arena_at: Vec<u32>,
    arena: Vec<Lit>,
    lim: Vec<usize>,
    qhead: usize,
    heap: VarHeap,
    phase: Vec<bool>,
    grounding: Grounding,
    seen: Vec<bool>,
    conflict: Vec<Lit>,
    conflict_bounded: bool,
    /// A level-0 conflict: no labelling at all.
    dead: bool,
    /// No labelling within the current bounds and blocks.
    exhausted: bool,
    /// Every clause must be watched afresh before the next search (new bounds).
    fresh: bool,
    conflicts: u64,
    /// Nogoods learned from conflicts now stored, and how many trigger the next
    /// [`Learner::reduce`].
    learned: usize,
    reduce_at: usize,
    charged: u64,
    stored: u64,
}

impl Learner {
    /// A learner for `p`, charging `budget` for its state.
    pub fn new(p: Problem, budget: &Budget) -> Result<Learner, Interrupted> {
        let n = p.vars;
        let mut counted_of = vec![Vec::new(); 2 * n];
        for (i, c) in p.counted.iter().enumerate() {
            for &l in c {
                counted_of[l as usize].push(i as u32);
            }
        }
        let stored: u64 = p
            .clauses
            .iter()
            .map(|c| 32 + 4 * c.len() as u64)
            .sum::<u64>()
            + 64 * n as u64;
        let grounding = Grounding::new(p.atoms, n);
        let stored = stored + grounding.bytes();
        let mut l = Learner {
            clauses: p
                .clauses
                .into_iter()
                .map(|lits| Clause {
                    lits,
                    bounded: false,
                    lbd: 0,
                })
                .collect(),
            watches: vec![Vec::new(); 2 * n],
            facts: p.facts,
            counted: p
                .counted
                .into_iter()
                .map(|lits| Counted {
                    lits,
                    bound: None,
                    count: 0,
                    guard: None,
                })
                .collect(),
            counted_of,
            guarded_by: vec![Vec::new(); 2 * n],
            val: vec![UNKNOWN; n],
            lvl: vec![0; n],
            reason: vec![Reason::None; n],
            trail: Vec::with_capacity(n),
            arena_at: Vec::with_capacity(n),
            arena: Vec::new(),
            lim: Vec::new(),
            qhead: 0,
            heap: VarHeap::new(n),
            phase: p.phase,
            grounding,
            seen: vec![false; n],
            conflict: Vec::new(),
            conflict_bounded: false,
            dead: false,
            exhausted: false,
            fresh: true,
            conflicts: 0,
            learned: 0,
            reduce_at: REDUCE_FIRST,
            charged: 0,
            stored,
        };
        l.charge(budget)?;
        for i in 0..l.facts.len() {
            let f = l.facts[i];
            match l.value(f) {
                UNKNOWN => l.assign(f, Reason::None),
                FALSE => l.dead = true,
                _ => {}
            }
        }
        Ok(l)
    }

    /// Charges the budget for storage beyond what was charged so far.
    fn charge(&mut self, budget: &Budget) -> Result<(), Interrupted> {
        if self.stored > self.charged {
            budget.charge("learned nogoods", self.stored - self.charged)?;
            self.charged = self.stored;
        }
        Ok(())
    }

    /// Releases what this learner charged.
    pub fn release(&self, budget: &Budget) {
        budget.release(self.charged);
    }

    fn value(&self, l: Lit) -> u8 {
        super::ground::value(&self.val, l)
    }

    /// The value of `v` in the labelling found by the last successful [`Learner::solve`].
    pub fn is_true(&self, v: usize) -> bool {
        self.val[v] == TRUE
    }

    /// Whether literal `l` holds (its variable has the literal's value).
    pub fn holds(&self, l: Lit) -> bool {
        self.is_true(var(l)) == (l & 1 == 0)
    }

    /// Undoes every choice and makes the next search try each `(v, value)` first (until
    /// the search backtracks over `v` again, which saves the value it had).
    pub fn prefer(&mut self, prefs: impl IntoIterator<Item = (usize, bool)>) {
        self.backtrack(1);
        for (v, value) in prefs {
            self.phase[v] = value;
        }
    }

    /// How many literals of counted set `i` are true.
    pub fn count(&self, i: usize) -> usize {
        self.counted[i].count
    }

    fn level(&self) -> usize {
        self.lim.len()
    }

    fn assign(&mut self, l: Lit, reason: Reason) {
        let v = var(l);
        self.val[v] = if l & 1 == 0 { TRUE } else { FALSE };
        self.lvl[v] = self.lim.len() as u32;
        self.reason[v] = reason;
        let at = match reason {
            Reason::Arena { start, .. } => start,
            _ => self.arena.len() as u32,
        };
        self.arena_at.push(at);
        self.trail.push(l);
        for &c in &self.counted_of[l as usize] {
            self.counted[c as usize].count += 1;
        }
    }

    /// Undoes every level above `level`.
    fn backtrack(&mut self, level: usize) {
        if self.lim.len() <= level {
            return;
        }
        let t = self.lim[level];
        for pos in (t..self.trail.len()).rev() {
            let l = self.trail[pos];
            let v = var(l);
            self.val[v] = UNKNOWN;
            self.reason[v] = Reason::None;
            self.phase[v] = l & 1 == 0;
            self.heap.insert(v);
            self.grounding.unassigned(v);
            for &c in &self.counted_of[l as usize] {
                self.counted[c as usize].count -= 1;
            }
        }
        if let Some(&at) = self.arena_at.get(t) {
            self.arena.truncate(at as usize);
        }
        self.trail.truncate(t);
        self.arena_at.truncate(t);
        self.lim.truncate(level);
        self.qhead = t;
    }

    /// Sets `l` because `others` (all false) leave it as the only way out.
    fn imply(&mut self, l: Lit, others: &[Lit], bounded: bool) -> Result<(), ()> {
        match self.value(l) {
            TRUE => Ok(()),
            FALSE => {
                self.conflict.clear();
                self.conflict.push(l);
                self.conflict.extend_from_slice(others);
                self.conflict_bounded = bounded;
                Err(())
            }
            _ => {
                let start = self.arena.len() as u32;
                self.arena.push(l);
                self.arena.extend_from_slice(others);
                let len = others.len() as u32 + 1;
                self.assign(
                    l,
                    Reason::Arena {
                        start,
                        len,
                        bounded,
                    },
                );
                Ok(())
            }
        }
    }

    /// Propagates counted set `i` against its bound (and a guarded set's guard: more
    /// true literals than the bound make the guard false).
    fn check_counted(&mut self, i: usize) -> Result<(), ()> {
        let c = &self.counted[i];
        let Some(b) = c.bound else { return Ok(()) };
        if c.count < b {
            return Ok(());
        }
        let guard = c.guard.map(|g| (g, self.value(g)));
        if matches!(guard, Some((_, FALSE)))
            || (c.count == b && matches!(guard, Some((_, UNKNOWN))))
        {
            return Ok(());
        }
        let bounded = guard.is_none();
        let mut trues: Vec<Lit> = c
            .lits
            .iter()
            .filter(|&&l| self.value(l) == TRUE)
            .map(|&l| neg(l))
            .collect();
        if c.count > b {
            if let Some((g, UNKNOWN)) = guard {
                return self.imply(neg(g), &trues, false);
            }
            trues.extend(guard.map(|(g, _)| neg(g)));
            self.conflict = trues;
            self.conflict_bounded = bounded;
            return Err(());
        }
        trues.extend(guard.map(|(g, _)| neg(g)));
        let open: Vec<Lit> = c
            .lits
            .iter()
            .copied()
            .filter(|&l| self.value(l) == UNKNOWN)
            .collect();
        for l in open {
            self.imply(neg(l), &trues, bounded)?;
        }
        Ok(())
    }

    /// Propagates to a fixpoint: the nogoods and counted sets, then the unfounded sets
    /// of the atoms (each set's atoms made false), until neither sets anything.
    fn propagate(&mut self) -> Result<(), ()> {
        loop {
            self.propagate_nogoods()?;
            if self.grounding.is_empty() {
                return Ok(());
            }
            let sets = self.grounding.unfounded(&self.val);
            if sets.is_empty() {
                return Ok(());
            }
            for u in sets {
                for &v in &u.atoms {
                    self.imply(lit(v, false), &u.outside, false)?;
                }
            }
        }
    }

    fn propagate_nogoods(&mut self) -> Result<(), ()> {
        while self.qhead < self.trail.len() {
            let x = self.trail[self.qhead];
            self.qhead += 1;
            self.grounding.assigned(x);
            if !self.lim.is_empty() {
                for k in 0..self.counted_of[x as usize].len() {
                    let c = self.counted_of[x as usize][k] as usize;
                    self.check_counted(c)?;
                }
                for k in 0..self.guarded_by[x as usize].len() {
                    let c = self.guarded_by[x as usize][k] as usize;
                    self.check_counted(c)?;
                }
            }
            let fl = neg(x);
            let mut ws = std::mem::take(&mut self.watches[fl as usize]);
            let mut i = 0;
            let mut j = 0;
            let mut result = Ok(());
            while i < ws.len() {
                let ci = ws[i];
                i += 1;
                let c = ci as usize;
                if self.clauses[c].lits[0] == fl {
                    self.clauses[c].lits.swap(0, 1);
                }
                let first = self.clauses[c].lits[0];
                if self.value(first) == TRUE {
                    ws[j] = ci;
                    j += 1;
                    continue;
                }
                let len = self.clauses[c].lits.len();
                let mut moved = false;
                for k in 2..len {
                    let l = self.clauses[c].lits[k];
                    if self.value(l) != FALSE {
                        self.clauses[c].lits.swap(1, k);
                        self.watches[l as usize].push(ci);
                        moved = true;
                        break;
                    }
                }
                if moved {
                    continue;
                }
                ws[j] = ci;
                j += 1;
                if self.value(first) == FALSE {
                    self.conflict.clone_from(&self.clauses[c].lits);
                    self.conflict_bounded = self.clauses[c].bounded;
                    while i < ws.len() {
                        ws[j] = ws[i];
                        j += 1;
                        i += 1;
                    }
                    result = Err(());
                } else {
                    self.assign(first, Reason::Clause(ci));
                }
            }
            ws.truncate(j);
            self.watches[fl as usize] = ws;
            result?;
        }
        Ok(())
    }

    /// Watches clause `ci` under the current labelling, propagating it if it is unit.
    fn attach(&mut self, ci: usize) -> Result<(), ()> {
        let len = self.clauses[ci].lits.len();
        let mut k = 0;
        for i in 0..len {
            if self.value(self.clauses[ci].lits[i]) != FALSE {
                self.clauses[ci].lits.swap(k, i);
                k += 1;
                if k == 2 {
                    break;
                }
            }
        }
        if k == 0 {
            self.conflict.clone_from(&self.clauses[ci].lits);
            self.conflict_bounded = self.clauses[ci].bounded;
            return Err(());
        }
        let first = self.clauses[ci].lits[0];
        if k == 1 {
            if self.value(first) == UNKNOWN {
                self.assign(first, Reason::Clause(ci as u32));
            }
            // The second watch: the false literal set last.
            if let Some(best) = (1..len).max_by_key(|&i| self.lvl[var(self.clauses[ci].lits[i])]) {
                self.clauses[ci].lits.swap(1, best);
            }
        }
        if len >= 2 {
            self.watches[self.clauses[ci].lits[0] as usize].push(ci as u32);
            self.watches[self.clauses[ci].lits[1] as usize].push(ci as u32);
        }
        Ok(())
    }

    /// Back to level 0, every clause watched afresh: the permanent ones at level 0, then
    /// (opening level 1) the bounded ones and the bounds. `Err` if no labelling is left.
    fn restart(&mut self) -> Result<(), ()> {
        self.backtrack(0);
        self.watches.iter_mut().for_each(Vec::clear);
        for ci in 0..self.clauses.len() {
            if !self.clauses[ci].bounded {
                if let Err(()) = self.attach(ci) {
                    self.dead = true;
                    return Err(());
                }
            }
        }
        if self.propagate().is_err() {
            self.dead = true;
            return Err(());
        }
        self.lim.push(self.trail.len());
        for ci in 0..self.clauses.len() {
            if self.clauses[ci].bounded {
                self.attach(ci)?;
            }
        }
        for i in 0..self.counted.len() {
            self.check_counted(i)?;
        }
        self.propagate()
    }

    /// Drops the half of the nogoods learned from conflicts with the highest literal
    /// block distance (then the longest), keeping every one of distance 2 or less, and
    /// gives their memory back; the caller restarts the search (watches and level 1
    /// are rebuilt). Sound: a learned nogood follows from the others, so dropping one
    /// loses no constraint, only the shortcut.
    fn reduce(&mut self, budget: &Budget) {
        self.backtrack(0);
        let mut candidates: Vec<(u32, usize, usize)> = self
            .clauses
            .iter()
            .enumerate()
            .filter(|(_, c)| c.lbd > 2)
            .map(|(i, c)| (c.lbd, c.lits.len(), i))
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        let drop = (self.learned / 2).min(candidates.len());
        let mut dropped = vec![false; self.clauses.len()];
        for &(_, _, i) in &candidates[..drop] {
            dropped[i] = true;
        }
        let mut freed = 0;
        let mut k = 0;
        self.clauses.retain(|c| {
            let keep = !dropped[k];
            k += 1;
            if !keep {
                freed += 32 + 4 * c.lits.len() as u64;
            }
            keep
        });
        self.learned -= drop;
        self.reduce_at += REDUCE_STEP;
        for r in &mut self.reason {
            if matches!(r, Reason::Clause(_) | Reason::Arena { .. }) {
                *r = Reason::None; // level-0 reasons are never analysed
            }
        }
        self.stored -= freed;
        if self.charged > self.stored {
            budget.release(self.charged - self.stored);
            self.charged = self.stored;
        }
    }

    /// Sets the bound of every counted set (`None`: unbounded). Loosening any bound drops
    /// every bounded nogood.
    pub fn set_bounds(&mut self, bounds: &[Option<usize>]) {
        let loosens = self
            .counted
            .iter()
            .zip(bounds)
            .any(|(c, b)| match (c.bound, b) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(old), Some(new)) => *new > old,
            });
        for (c, &b) in self.counted.iter_mut().zip(bounds) {
            c.bound = b;
        }
        self.fresh = true;
        self.exhausted = false;
        if loosens {
            self.backtrack(0);
            self.clauses.retain(|c| !c.bounded);
            self.learned = self.clauses.iter().filter(|c| c.lbd > 0).count();
            for r in &mut self.reason {
                if matches!(r, Reason::Clause(_) | Reason::Arena { .. }) {
                    *r = Reason::None; // level-0 reasons are never analysed
                }
            }
        }
    }

    /// Adds a nogood valid only under the current bounds (e.g. "not this cut again") that
    /// the labelling found last violates; the next [`Learner::solve`] goes on from there.
    pub fn block(&mut self, lits: Vec<Lit>, budget: &Budget) -> Result<(), Interrupted> {
        self.add_violated(lits, true, budget)
    }

    /// The choices the labelling found last was reached by (the literals the search
    /// set freely, level by level): every labelling with them all is that labelling,
    /// since the nogoods force the rest of it from them.
    pub fn decisions(&self) -> Vec<Lit> {
        (2..=self.level())
            .filter_map(|k| {
                let &l = self.trail.get(self.lim[k - 1])?;
                (self.lvl[var(l)] as usize == k && matches!(self.reason[var(l)], Reason::None))
                    .then_some(l)
            })
            .collect()
    }

    /// A new variable, tried first with `phase`: the next search labels it too.
    pub fn add_var(&mut self, phase: bool) -> usize {
        let v = self.val.len();
        self.val.push(UNKNOWN);
        self.lvl.push(0);
        self.reason.push(Reason::None);
        self.phase.push(phase);
        self.seen.push(false);
        self.grounding.add_var();
        for _ in 0..2 {
            self.watches.push(Vec::new());
            self.counted_of.push(Vec::new());
            self.guarded_by.push(Vec::new());
        }
        self.heap.grow();
        self.stored += 64;
        v
    }

    /// Adds the guarded counted set "if `guard` holds, at most `bound` of `lits` are
    /// true" for good (a definition: it holds whatever the bounds); the next search
    /// starts afresh.
    pub fn add_counted(&mut self, lits: Vec<Lit>, bound: usize, guard: Lit) {
        let i = self.counted.len() as u32;
        for &l in &lits {
            self.counted_of[l as usize].push(i);
        }
        self.guarded_by[guard as usize].push(i);
        self.stored += 48 + 8 * lits.len() as u64;
        let count = lits.iter().filter(|&&l| self.value(l) == TRUE).count();
        self.counted.push(Counted {
            lits,
            bound: Some(bound),
            count,
            guard: Some(guard),
        });
        self.fresh = true;
    }

    /// Makes each literal of `lits` hold for good, like a fact; the next search starts
    /// afresh. The caller vouches that every labelling it will ask for has them (a
    /// caller that pins a bound for good may add what every labelling within it has).
    pub fn hold(&mut self, lits: &[Lit]) {
        for &l in lits {
            self.stored += 36;
            self.clauses.push(Clause {
                lits: vec![l],
                bounded: false,
                lbd: 0,
            });
        }
        self.fresh = true;
    }

    /// Stores a nogood that the current labelling violates, learns from it and watches it.
    fn add_violated(
        &mut self,
        lits: Vec<Lit>,
        bounded: bool,
        budget: &Budget,
    ) -> Result<(), Interrupted> {
        self.stored += 32 + 4 * lits.len() as u64;
        let ci = self.clauses.len();
        self.conflict.clone_from(&lits);
        self.conflict_bounded = bounded;
        self.clauses.push(Clause {
            lits,
            bounded,
            lbd: 0,
        });
        if self.fresh || self.exhausted || self.dead {
            return self.charge(budget); // watched at the next restart
        }
        if !self.analysable() {
            self.exhausted = true;
            return self.charge(budget);
        }
        self.learn(budget)?;
        if self.attach(ci).is_err() {
            self.fresh = true;
        }
        Ok(())
    }

    /// The literals of the nogood that set `v`.
    fn reason_lits(&self, v: usize, out: &mut Vec<Lit>) -> bool {
        out.clear();
        match self.reason[v] {
            Reason::None => false,
            Reason::Arena {
                start,
                len,
                bounded,
            } => {
                out.extend_from_slice(&self.arena[start as usize..(start + len) as usize]);
                bounded
            }
            Reason::Clause(ci) => {
                out.extend_from_slice(&self.clauses[ci as usize].lits);
                self.clauses[ci as usize].bounded
            }
        }
    }

    /// Analyses the conflict in `self.conflict` (at the current level, at least 2) to its
    /// first unique implication point, learns the nogood, jumps back and asserts it.
    fn learn(&mut self, budget: &Budget) -> Result<(), Interrupted> {
        let d = self.level() as u32;
        let mut clause = std::mem::take(&mut self.conflict);
        let mut bounded = self.conflict_bounded;
        let mut learnt: Vec<Lit> = vec![0];
        let mut touched: Vec<usize> = Vec::new();
        let mut path = 0;
        let mut p: Option<Lit> = None;
        let mut idx = self.trail.len();
        loop {
            for &q in &clause {
                let v = var(q);
                if p.is_some_and(|p| var(p) == v) || self.seen[v] || self.lvl[v] == 0 {
                    continue;
                }
                self.seen[v] = true;
                touched.push(v);
                self.heap.bump(v);
                if self.lvl[v] == d {
                    path += 1;
                } else {
                    learnt.push(q);
                }
            }
            loop {
                idx -= 1;
                if self.seen[var(self.trail[idx])] {
                    break;
                }
            }
            let pl = self.trail[idx];
            p = Some(pl);
            path -= 1;
            if path == 0 {
                break;
            }
            bounded |= self.reason_lits(var(pl), &mut clause);
        }
        for v in touched {
            self.seen[v] = false;
        }
        self.heap.decay();
        learnt[0] = neg(p.expect("the conflict has a literal at its level"));
        let mut levels: Vec<u32> = learnt.iter().map(|&l| self.lvl[var(l)]).collect();
        levels.sort_unstable();
        levels.dedup();
        let lbd = levels.len() as u32;
        let mut back = 1;
        if learnt.len() > 1 {
            let best = (1..learnt.len())
                .max_by_key(|&i| self.lvl[var(learnt[i])])
                .expect("more than one literal");
            learnt.swap(1, best);
            back = back.max(self.lvl[var(learnt[1])] as usize);
        }
        self.backtrack(back);
        let ci = self.clauses.len() as u32;
        self.stored += 32 + 4 * learnt.len() as u64;
        if learnt.len() >= 2 {
            self.watches[learnt[0] as usize].push(ci);
            self.watches[learnt[1] as usize].push(ci);
        }
        let first = learnt[0];
        self.clauses.push(Clause {
            lits: learnt,
            bounded,
            lbd,
        });
        self.learned += 1;
        self.assign(first, Reason::Clause(ci));
        self.charge(budget)
    }

    /// The highest level among the literals of `self.conflict`.
    fn conflict_level(&self) -> usize {
        self.conflict
            .iter()
            .map(|&l| self.lvl[var(l)] as usize)
            .max()
            .unwrap_or(0)
    }

    /// Searches for a complete labelling within the bounds that `check` accepts (`check`
    /// answers `None` to accept, or a nogood that the labelling violates). The labelling
    /// stays readable until the next call that changes the learner; call
    /// [`Learner::block`] before searching again, or the same labelling is found.
    pub fn solve(
        &mut self,
        budget: &Budget,
        check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
    ) -> Result<bool, Interrupted> {
        Ok(self.search(budget, check, &[])?.is_none())
    }

    /// [`Learner::solve`] with every literal of `assumptions` made to hold as well:
    /// `None` when a labelling is found, else a *core*: assumptions that no labelling
    /// within the bounds lets hold together (empty when there is no labelling at all).
    /// The assumptions are the first choices; a core is read off the nogoods that forced
    /// an assumption false. Nogoods learned on the way hold without the assumptions.
    pub fn solve_assuming(
        &mut self,
        budget: &Budget,
        check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
        assumptions: &[Lit],
    ) -> Result<Option<Vec<Lit>>, Interrupted> {
        if !self.fresh && !self.dead && !self.exhausted {
            self.backtrack(1);
        }
        let found = self.search(budget, check, assumptions)?;
        if found.is_some() && !self.dead && !self.exhausted {
            self.backtrack(1);
        }
        Ok(found)
    }

    /// The assumptions that forced assumption `a` false (`a` among them): the choices
    /// (every choice below the free ones is an assumption) that the nogoods setting `¬a`
    /// lead back to.
    fn core(&mut self, a: Lit) -> Vec<Lit> {
        let mut core = vec![a];
        let v = var(a);
        if self.lvl[v] <= 1 {
            return core;
        }
        self.seen[v] = true;
        let mut marked = vec![v];
        let start = self.lim[1];
        let mut lits = Vec::new();
        for pos in (start..self.trail.len()).rev() {
            let x = self.trail[pos];
            let u = var(x);
            if !self.seen[u] {
                continue;
            }
            if matches!(self.reason[u], Reason::None) {
                core.push(x);
                continue;
            }
            self.reason_lits(u, &mut lits);
            for &q in &lits {
                let w = var(q);
                if w != u && !self.seen[w] && self.lvl[w] > 1 {
                    self.seen[w] = true;
                    marked.push(w);
                }
            }
        }
        for w in marked {
            self.seen[w] = false;
        }
        core
    }

    fn search(
        &mut self,
        budget: &Budget,
        check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
        assumptions: &[Lit],
    ) -> Result<Option<Vec<Lit>>, Interrupted> {
        if self.dead || self.exhausted {
            return Ok(Some(Vec::new()));
        }
        if self.fresh {
            self.fresh = false;
            if self.restart().is_err() {
                self.exhausted = true;
                return Ok(Some(Vec::new()));
            }
        }
        let mut restarts = 0u32;
        let mut until = luby(restarts) * RESTART_UNIT;
        let mut since = 0;
        loop {
            if self.propagate().is_err() {
                self.conflicts += 1;
                since += 1;
                if self.conflicts.is_multiple_of(POLL) {
                    budget.check()?;
                }
                if !self.analysable() {
                    self.exhausted = true;
                    return Ok(Some(Vec::new()));
                }
                self.learn(budget)?;
                continue;
            }
            if since >= until {
                since = 0;
                restarts += 1;
                until = luby(restarts) * RESTART_UNIT;
                self.backtrack(1);
                if self.learned >= self.reduce_at {
                    self.reduce(budget);
                    if self.restart().is_err() {
                        self.exhausted = true;
                        return Ok(Some(Vec::new()));
                    }
                }
                continue;
            }
            // The assumptions first, one level each (an empty level for one that holds).
            if let Some(&a) = assumptions.get(self.level() - 1) {
                match self.value(a) {
                    TRUE => self.lim.push(self.trail.len()),
                    FALSE => return Ok(Some(self.core(a))),
                    _ => {
                        self.lim.push(self.trail.len());
                        self.assign(a, Reason::None);
                    }
                }
                continue;
            }
            match self.heap.pop_open(&self.val) {
                Some(v) => {
                    self.lim.push(self.trail.len());
                    self.assign(lit(v, self.phase[v]), Reason::None);
                }
                None => {
                    let Some(nogood) = check(self) else {
                        return Ok(None);
                    };
                    self.add_violated(nogood, false, budget)?;
                    if self.dead || self.exhausted {
                        return Ok(Some(Vec::new()));
                    }
                    if self.fresh {
                        self.fresh = false;
                        if self.restart().is_err() {
                            self.exhausted = true;
                            return Ok(Some(Vec::new()));
                        }
                    }
                }
            }
        }
    }

    /// Moves back to the level of the conflict; `false` if that is level 0 or 1 (no
    /// labelling within the bounds).
    fn analysable(&mut self) -> bool {
        let at = self.conflict_level();
        if at <= 1 {
            if at == 0 && !self.conflict_bounded {
                self.dead = true;
            }
            return false;
        }
        self.backtrack(at);
        true
    }
}

/// The Luby sequence 1 1 2 1 1 2 4 ...
fn luby(i: u32) -> u64 {
    let mut i = u64::from(i) + 1;
    loop {
        let k = 64 - i.leading_zeros();
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// Variables by activity (bumped when they take part in a conflict): the next choice is
/// the most active open variable.
struct VarHeap {
    heap: Vec<u32>,
    pos: Vec<i32>,
    act: Vec<f64>,
    inc: f64,
}

impl VarHeap {
    /// Room for one more variable (least active), in the heap.
    fn grow(&mut self) {
        let v = self.pos.len();
        self.pos.push(-1);
        self.act.push(0.0);
        self.insert(v);
    }

    fn new(n: usize) -> VarHeap {
        // Earlier variables first until conflicts say otherwise.
        let act = (0..n).map(|v| (n - v) as f64 * 1e-9).collect();
        let mut h = VarHeap {
            heap: Vec::with_capacity(n),
            pos: vec![-1; n],
            act,
            inc: 1.0,
        };
        for v in 0..n {
            h.insert(v);
        }
        h
    }

    fn better(&self, a: u32, b: u32) -> bool {
        self.act[a as usize] > self.act[b as usize]
    }

    fn up(&mut self, mut i: usize) {
        let x = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.better(x, self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            self.pos[self.heap[i] as usize] = i as i32;
            i = parent;
        }
        self.heap[i] = x;
        self.pos[x as usize] = i as i32;
    }

    fn down(&mut self, mut i: usize) {
        let x = self.heap[i];
        loop {
            let left = 2 * i + 1;
            if left >= self.heap.len() {
                break;
            }
            let right = left + 1;
            let child = if right < self.heap.len() && self.better(self.heap[right], self.heap[left])
            {
                right
            } else {
                left
            };
            if !self.better(self.heap[child], x) {
                break;
            }
            self.heap[i] = self.heap[child];
            self.pos[self.heap[i] as usize] = i as i32;
            i = child;
        }
        self.heap[i] = x;
        self.pos[x as usize] = i as i32;
    }

    fn insert(&mut self, v: usize) {
        if self.pos[v] >= 0 {
            return;
        }
        self.heap.push(v as u32);
        let i = self.heap.len() - 1;
        self.pos[v] = i as i32;
        self.up(i);
    }

    fn bump(&mut self, v: usize) {
        self.act[v] += self.inc;
        if self.act[v] > 1e100 {
            self.act.iter_mut().for_each(|a| *a *= 1e-100);
            self.inc *= 1e-100;
        }
        if self.pos[v] >= 0 {
            self.up(self.pos[v] as usize);
        }
    }

    fn decay(&mut self) {
        self.inc /= 0.95;
    }

    /// Removes and returns the most active variable still open in `val`.
    fn pop_open(&mut self, val: &[u8]) -> Option<usize> {
        while let Some(&top) = self.heap.first() {
            let last = self.heap.pop().expect("not empty");
            self.pos[top as usize] = -1;
            if !self.heap.is_empty() {
                self.heap[0] = last;
                self.pos[last as usize] = 0;
                self.down(0);
            }
            if val[top as usize] == UNKNOWN {
                return Some(top as usize);
            }
        }
        None
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// All labellings of `vars` variables that satisfy `clauses`, by enumeration (bit v
    /// of a labelling is variable v).
    pub(crate) fn models(vars: usize, clauses: &[Vec<Lit>]) -> Vec<u32> {
        (0u32..1 << vars)
            .filter(|m| {
                clauses
                    .iter()
                    .all(|c| c.iter().any(|&l| (m >> var(l) & 1 == 1) == (l & 1 == 0)))
            })
            .collect()
    }

    /// `n` random clauses of one to `longest` literals over `vars` variables.
    pub(crate) fn random_clauses(seed: u64, vars: usize, n: usize, longest: u64) -> Vec<Vec<Lit>> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |k: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % k
        };
        (0..n)
            .map(|_| {
                let len = 1 + next(longest) as usize;
                (0..len)
                    .map(|_| lit(next(vars as u64) as usize, next(2) == 0))
                    .collect()
            })
            .collect()
    }

    /// A learner over `clauses` (no facts) with these counted sets and first values.
    pub(crate) fn learner(
        vars: usize,
        clauses: Vec<Vec<Lit>>,
        counted: Vec<Vec<Lit>>,
        phase: Vec<bool>,
        budget: &Budget,
    ) -> Learner {
        let problem = Problem {
            vars,
            clauses,
            facts: Vec::new(),
            counted,
            phase,
            atoms: Vec::new(),
        };
        Learner::new(problem, budget).expect("no budget limit")
    }

    /// The least count of counted set 0 over the labellings `l` accepts with no check,
    /// found by tightening its bound from 0 (the bound is left there).
    fn least_by_tightening(l: &mut Learner, budget: &Budget) -> usize {
        let mut k = 0;
        loop {
            l.set_bounds(&[Some(k)]);
            if l.solve(budget, &mut |_| None).unwrap() {
                assert_eq!(l.count(0), k, "a labelling within bound {k} counts {k}");
                return k;
            }
            k += 1;
        }
    }

    /// Every labelling `l` accepts with no check under its current bounds, each blocked
    /// once found, sorted (bit v of a labelling is variable v).
    fn models_by_blocking(l: &mut Learner, vars: usize, budget: &Budget) -> Vec<u32> {
        let mut found = Vec::new();
        while l.solve(budget, &mut |_| None).unwrap() {
            let m: u32 = (0..vars).filter(|&v| l.is_true(v)).map(|v| 1 << v).sum();
            found.push(m);
            l.block((0..vars).map(|v| lit(v, !l.is_true(v))).collect(), budget)
                .unwrap();
        }
        found.sort();
        found
    }

    /// Against enumeration: satisfiability, the least count of true literals of a counted
    /// set (found by tightening the bound), and every model within the optimum found by
    /// blocking, on random 3-clause problems.
    #[test]
    fn agrees_with_enumeration() {
        let vars = 8;
        for seed in 0..400 {
            let clauses = random_clauses(seed, vars, 6 + (seed % 30) as usize, 3);
            let all = models(vars, &clauses);
            let counted: Vec<Lit> = (0..vars).map(|v| lit(v, false)).collect();
            let problem = Problem {
                vars,
                clauses: clauses.clone(),
                facts: Vec::new(),
                counted: vec![counted.clone()],
                phase: vec![true; vars],
                atoms: Vec::new(),
            };
            let budget = Budget::new();
            let mut l = Learner::new(problem, &budget).unwrap();
            let sat = l.solve(&budget, &mut |_| None).unwrap();
            assert_eq!(sat, !all.is_empty(), "seed {seed}");
            if !sat {
                continue;
            }
            let falses = |m: u32| vars - m.count_ones() as usize;
            let least = all.iter().map(|&m| falses(m)).min().unwrap();
            assert_eq!(least_by_tightening(&mut l, &budget), least, "seed {seed}");
            let found = models_by_blocking(&mut l, vars, &budget);
            let want: Vec<u32> = all.into_iter().filter(|&m| falses(m) == least).collect();
            assert_eq!(found, want, "seed {seed}");
        }
    }

    /// Random atoms over the first variables: each with one to three supports, a random
    /// guard and, half the time, a random atom (itself possibly) to be derived from.
    fn random_atoms(seed: u64, vars: usize) -> Vec<Atom> {
        let mut r = random_clauses(seed ^ 0x5eed, vars, 64, 1)
            .into_iter()
            .map(|c| c[0]);
        let mut next = move || r.next().expect("enough random literals");
        let n = 1 + (seed % 4) as usize;
        (0..n)
            .map(|a| Atom {
                var: a,
                supports: (0..=(next() % 3))
                    .map(|_| {
                        let guard = next();
                        let from = next();
                        (guard, (from & 1 == 0).then_some((from >> 1) % n as u32))
                    })
                    .collect(),
            })
            .collect()
    }

    /// Whether every true atom of labelling `m` is derived (least fixed point), by
    /// enumeration of the derivation steps.
    fn grounded(m: u32, atoms: &[Atom]) -> bool {
        let holds = |l: Lit| (m >> var(l) & 1 == 1) == (l & 1 == 0);
        let mut derived = vec![false; atoms.len()];
        loop {
            let mut changed = false;
            for (a, atom) in atoms.iter().enumerate() {
                if !derived[a]
                    && holds(lit(atom.var, true))
                    && atom
                        .supports
                        .iter()
                        .any(|&(g, from)| holds(g) && from.is_none_or(|f| derived[f as usize]))
                {
                    derived[a] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        atoms
            .iter()
            .zip(&derived)
            .all(|(atom, &d)| d || !holds(lit(atom.var, true)))
    }

    /// With atoms and no check at all, the learner's models (found by blocking) are
    /// exactly the enumerated models whose true atoms are all derived, and its optimum
    /// of a counted set is theirs: the unfounded-set propagation loses no grounded
    /// labelling and lets no ungrounded one through.
    #[test]
    fn atoms_leave_exactly_the_grounded_models() {
        let vars = 7;
        for seed in 0..3000 {
            let clauses = random_clauses(seed, vars, (seed % 12) as usize, 3);
            let atoms = random_atoms(seed, vars);
            let all: Vec<u32> = models(vars, &clauses)
                .into_iter()
                .filter(|&m| grounded(m, &atoms))
                .collect();
            let counted: Vec<Lit> = (0..vars).map(|v| lit(v, false)).collect();
            let problem = Problem {
                vars,
                clauses: clauses.clone(),
                facts: Vec::new(),
                counted: vec![counted],
                phase: (0..vars).map(|v| (seed >> v) & 1 == 0).collect(),
                atoms: atoms.clone(),
            };
            let budget = Budget::new();
            let mut l = Learner::new(problem, &budget).unwrap();
            let mut none = |_: &Learner| None;
            let sat = l.solve(&budget, &mut none).unwrap();
            assert_eq!(sat, !all.is_empty(), "seed {seed}: {atoms:?}");
            if !sat {
                continue;
            }
            let falses = |m: u32| vars - m.count_ones() as usize;
            let least = all.iter().map(|&m| falses(m)).min().unwrap();
            assert_eq!(least_by_tightening(&mut l, &budget), least, "seed {seed}");
            l.set_bounds(&[None]);
            let found = models_by_blocking(&mut l, vars, &budget);
            assert_eq!(found, all, "seed {seed}: {atoms:?} {clauses:?}");
        }
    }

    /// A check that rejects every labelling with an odd number of true variables (as a
    /// nogood over all variables) leaves exactly the even models.
    #[test]
    fn check_nogoods_are_learned() {
        let vars = 6;
        let budget = Budget::new();
        let problem = Problem {
            vars,
            clauses: vec![vec![lit(0, true), lit(1, true)]],
            facts: Vec::new(),
            counted: Vec::new(),
            phase: vec![true; vars],
            atoms: Vec::new(),
        };
        let mut l = Learner::new(problem, &budget).unwrap();
        let mut found = Vec::new();
        let mut check = |l: &Learner| {
            let ones = (0..vars).filter(|&v| l.is_true(v)).count();
            (ones % 2 == 1).then(|| (0..vars).map(|v| lit(v, !l.is_true(v))).collect())
        };
        while l.solve(&budget, &mut check).unwrap() {
            let m: u32 = (0..vars).filter(|&v| l.is_true(v)).map(|v| 1 << v).sum();
            found.push(m);
            l.block((0..vars).map(|v| lit(v, !l.is_true(v))).collect(), &budget)
                .unwrap();
        }
        found.sort();
        let want: Vec<u32> = models(vars, &[vec![lit(0, true), lit(1, true)]])
            .into_iter()
            .filter(|m| m.count_ones() % 2 == 0)
            .collect();
        assert_eq!(found, want);
    }

    #[test]
    fn luby_sequence() {
        let s: Vec<u64> = (0..15).map(luby).collect();
        assert_eq!(s, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    /// Worked by hand: a -> x, x -> y, and not both b and y; c is free. Assuming b, c, a
    /// (in that order): b forces y false, hence x false, hence a false, so a is false when
    /// its turn comes; the core is {a, b} (c played no part). Assuming a and c: a
    /// labelling with a, x, y and c true, b false. Assuming a twice over and b: the core
    /// is {a, b} again (whichever comes second is the one found false).
    #[test]
    fn cores_name_the_assumptions_that_cannot_hold_together() {
        let (a, b, c, x, y) = (0, 1, 2, 3, 4);
        let clauses = vec![
            vec![lit(a, false), lit(x, true)],
            vec![lit(x, false), lit(y, true)],
            vec![lit(b, false), lit(y, false)],
        ];
        let budget = Budget::new();
        let mut l = learner(5, clauses, Vec::new(), vec![false; 5], &budget);
        let mut check = |_: &Learner| None;
        let sorted = |mut v: Vec<Lit>| {
            v.sort_unstable();
            v
        };
        let core = l
            .solve_assuming(
                &budget,
                &mut check,
                &[lit(b, true), lit(c, true), lit(a, true)],
            )
            .unwrap()
            .expect("a and b cannot both hold");
        assert_eq!(sorted(core), [lit(a, true), lit(b, true)]);
        let found = l
            .solve_assuming(&budget, &mut check, &[lit(a, true), lit(c, true)])
            .unwrap();
        assert_eq!(found, None);
        assert!([a, x, y, c].iter().all(|&v| l.is_true(v)) && !l.is_true(b));
        let core = l
            .solve_assuming(
                &budget,
                &mut check,
                &[lit(a, true), lit(a, true), lit(b, true)],
            )
            .unwrap()
            .expect("a and b cannot both hold");
        assert_eq!(sorted(core), [lit(a, true), lit(b, true)]);
        // Without assumptions the problem has labellings.
        assert!(l.solve(&budget, &mut check).unwrap());
    }
}
