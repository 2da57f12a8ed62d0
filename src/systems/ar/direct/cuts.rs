//! The direct engine's optimal-cut search on one component of a cut-search [`Frame`]: the
//! frame's constraints written as nogoods over the component's effects and solved by the
//! learning search of [`super::learn`].
//!
//! Variables: for each effect j of the component, `s(j)` (j succeeds) and `live(j)` (j is
//! in R and not cut); for each player whose unblockable passives guard a block in the
//! component, `open(q)` (every unblockable passive of q is cut, so blocks on q hit); for
//! each guarded block a on an action y, `hits(a, y)` = `s(a)` and `open(actor of y)`. An
//! attack on y is `s(a)` for an unguarded attacker a and `hits(a, y)` for a guarded one.
//! The nogoods are the frame's (see `frame.rs`): (C1) `s(j) -> live(j)`; (C2) an attack
//! on y excludes `s(y)`; cut dominance: an attacked declared effect is not cut (an action
//! that may create by visiting: one stopped at its source, see below); (C3)
//! `live(y)` and not `s(y)` needs an attack on y; (C4) a created c with passive p is live
//! iff p succeeds and some trigger of c succeeds. (C5) grounded creation is checked on
//! every complete labelling, and a set U of live created effects none of which can be
//! derived is refuted by its loop nogood: U cannot be all live unless some trigger from
//! outside U succeeds (the first of U to be derived needs one). The learner also
//! propagates it on partial labellings ([`Written::atoms`], [`super::ground`]): a created
//! effect none of whose triggers can still derive it is made not live at once.
//!
//! Costs are one counted set per priority level: the component's declared effects that are
//! not live, i.e. cut. Level by level, most important first, the least count is found with
//! the earlier levels pinned at their optima; then every cut at the optimum is enumerated,
//! blocking each one found ("one of these effects is not cut"; every other optimal cut has
//! the same size, so it leaves one of them uncut).
//!
//! Invariant: a component's optimal cuts are those of the labelling search over the same
//! frame; the engine's answers are compared with brute force and SAT by the property tests.

use super::frame::Frame;
use super::ground::Atom;
use super::learn::{lit, neg, Learner, Lit, Problem};
use crate::systems::ar::night::model::{ActionKind, Kind, Player};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use std::collections::{BTreeSet, HashMap};

/// A component's optimal cost vector (counts per level) and its optimal cuts (declared
/// universe indices).
pub type ComponentCuts = (Vec<usize>, BTreeSet<Vec<Ix>>);

/// The fixed labels of a frame by effect: (success, liveness).
pub type FixedLabels = Vec<(Option<bool>, Option<bool>)>;

/// The frame's fixed labels, by effect.
pub fn fixed_labels(f: &Frame) -> FixedLabels {
    let mut out = vec![(None, None); f.n];
    for &(v, b) in &f.fixed {
        if v < f.n {
            out[v].0 = Some(b);
        } else {
            out[v - f.n].1 = Some(b);
        }
    }
    out
}

/// One component written out for the learner: local effect j has variables `s(j)` and
/// `live(j)`; guard variables follow them.
pub(super) struct Written {
    /// Universe index of each local effect.
    pub(super) comp: Vec<Ix>,
    /// For each local effect that is created: its local triggers, each with its guard, the
    /// literal "this trigger succeeds and reaches the passive's owner" (in a frame, whose
    /// targets are fixed, the trigger's success `s(g)`; without frames, a gate over the
    /// deflections on its way, see [`super::redirect`]).
    pub(super) triggers: Vec<Vec<(usize, Lit)>>,
    /// Whether each local effect is created.
    pub(super) created: Vec<bool>,
    /// Whether each local effect is declared.
    pub(super) declared: Vec<bool>,
    /// Whether each local effect needs no derivation of its own to ground the effects it
    /// triggers: declared, or a created effect derived outside this problem.
    pub(super) grounded: Vec<bool>,
    /// Priority level index of each local declared effect (0 for created ones).
    pub(super) level: Vec<usize>,
    /// How many times each local declared effect counts in its level's cost
    /// ([`Universe::weight`]; 1 for created ones).
    pub(super) weight: Vec<usize>,
}

impl Written {
    /// Number of local effects.
    pub(super) fn m(&self) -> usize {
        self.comp.len()
    }

    /// The variable "local effect j succeeds".
    pub(super) fn s(&self, j: usize) -> usize {
        j
    }

    /// The variable "local effect j is in R and not cut".
    pub(super) fn live(&self, j: usize) -> usize {
        self.m() + j
    }

    /// (C5) for the learner's unfounded-set propagation: each created effect's liveness
    /// is an atom, derived by a trigger whose guard holds and whose effect is grounded
    /// (no atom) or created (derived itself); a trigger from any other effect never
    /// derives, as in [`underived`].
    pub(super) fn atoms(&self) -> Vec<Atom> {
        let mut index = vec![u32::MAX; self.m()];
        let created: Vec<usize> = (0..self.m()).filter(|&j| self.created[j]).collect();
        for (a, &j) in created.iter().enumerate() {
            index[j] = a as u32;
        }
        created
            .iter()
            .map(|&c| Atom {
                var: self.live(c),
                supports: self.triggers[c]
                    .iter()
                    .filter(|&&(g, _)| self.grounded[g] || self.created[g])
                    .map(|&(g, t)| (t, (!self.grounded[g]).then_some(index[g])))
                    .collect(),
            })
            .collect()
    }
}

/// Writes one component of a frame as a [`Problem`] (see the module documentation).
pub(super) fn write(
    u: &Universe,
    f: &Frame,
    fixed: &FixedLabels,
    comp: &[Ix],
    levels: usize,
) -> (Written, Problem) {
    let m = comp.len();
    let local: HashMap<Ix, usize> = comp.iter().enumerate().map(|(j, &g)| (g, j)).collect();
    let s = |j: usize| j;
    let live = |j: usize| m + j;
    let mut vars = 2 * m;
    let mut phase = vec![true; 2 * m];
    let mut clauses: Vec<Vec<Lit>> = Vec::new();
    let mut facts: Vec<Lit> = Vec::new();
    let mut open: HashMap<Player, usize> = HashMap::new();
    let mut triggers = vec![Vec::new(); m];
    let mut created = vec![false; m];
    let mut declared = vec![false; m];
    let mut level = vec![0; m];
    // What each level counts: (level, literal "cut", weight).
    let mut counted: Vec<(usize, Lit, usize)> = Vec::new();
    // `open(q)`: every unblockable passive of q is cut (created on first use).
    let mut open_var =
        |q: Player, vars: &mut usize, phase: &mut Vec<bool>, clauses: &mut Vec<Vec<Lit>>| {
            *open.entry(q).or_insert_with(|| {
                let o = *vars;
                *vars += 1;
                phase.push(false);
                let mut any = vec![lit(o, true)];
                for g in &f.guards[q as usize] {
                    clauses.push(vec![lit(o, false), lit(live(local[g]), false)]);
                    any.push(lit(live(local[g]), true));
                }
                clauses.push(any);
                o
            })
        };
    // A fresh variable equal to the conjunction of two literals.
    let and =
        |x: Lit, y: Lit, vars: &mut usize, phase: &mut Vec<bool>, clauses: &mut Vec<Vec<Lit>>| {
            let h = *vars;
            *vars += 1;
            phase.push(false);
            clauses.push(vec![lit(h, false), x]);
            clauses.push(vec![lit(h, false), y]);
            clauses.push(vec![lit(h, true), neg(x), neg(y)]);
            lit(h, true)
        };
    // (C4) creation: live(c) <-> s(p) and some trigger succeeds (`reflexive:K`) or visits
    // (`visited:K`, once every "visits" variable exists).
    let creation = |j: usize,
                    y: Ix,
                    visits: &HashMap<usize, usize>,
                    triggers: &mut Vec<Vec<(usize, Lit)>>,
                    clauses: &mut Vec<Vec<Lit>>| {
        let jp = local[&f.req[y].expect("a created effect has a passive")];
        clauses.push(vec![lit(live(j), false), lit(s(jp), true)]);
        triggers[j] = f.triggers[y]
            .iter()
            .map(|g| {
                let jg = local[g];
                let t = if f.on_visit[y] { visits[&jg] } else { s(jg) };
                (jg, lit(t, true))
            })
            .collect();
        let mut some = vec![lit(live(j), false)];
        some.extend(triggers[j].iter().map(|&(_, t)| t));
        clauses.push(some);
        for &(_, t) in &triggers[j] {
            clauses.push(vec![neg(t), lit(s(jp), false), lit(live(j), true)]);
        }
    };
    // The variable "local effect j visits", for the actions that may create by visiting.
    let mut visits: HashMap<usize, usize> = HashMap::new();
    for (j, &y) in comp.iter().enumerate() {
        let ye = &u.effects[y];
        let mut attacks: Vec<Lit> = Vec::with_capacity(f.attackers[y].len());
        let guard = &f.guards[ye.actor as usize];
        // `s(a) and open(actor of y)` per block attacker a whose block y's unblockable
        // passives guard: made once, read by the attack and by the source below.
        let mut guarded: Vec<(Ix, Lit)> = Vec::new();
        let mut guarded_hit =
            |a: Ix, vars: &mut usize, phase: &mut Vec<bool>, clauses: &mut Vec<Vec<Lit>>| {
                if let Some(&(_, h)) = guarded.iter().find(|&&(b, _)| b == a) {
                    return h;
                }
                let o = open_var(ye.actor, vars, phase, clauses);
                let h = and(lit(s(local[&a]), true), lit(o, true), vars, phase, clauses);
                guarded.push((a, h));
                h
            };
        for &a in &f.attackers[y] {
            let ja = local[&a];
            let attack = if !guard.is_empty() && super::frame::block_only(u, &f.rho, a, y) {
                guarded_hit(a, &mut vars, &mut phase, &mut clauses)
            } else {
                lit(s(ja), true)
            };
            clauses.push(vec![neg(attack), lit(s(j), false)]);
            // An action that may create by visiting still visits when it fails at its
            // target, so only its sources make it dominated (below).
            if f.cut_dominance && y < u.n_declared && f.vtrig_of[y].is_empty() {
                clauses.push(vec![neg(attack), lit(live(j), true)]);
            }
            attacks.push(attack);
        }
        clauses.push(vec![lit(s(j), false), lit(live(j), true)]);
        let mut c3 = vec![lit(live(j), false), lit(s(j), true)];
        c3.extend(attacks);
        clauses.push(c3);
        // (C6) visit(j) <-> live(j) and no source of j succeeds (a block rule guarded by
        // the actor's unblockable passives, as for the attack; a commute unguarded).
        if !f.vtrig_of[y].is_empty() {
            let v = vars;
            vars += 1;
            phase.push(true);
            visits.insert(j, v);
            clauses.push(vec![lit(v, false), lit(live(j), true)]);
            let mut all = vec![lit(v, true), lit(live(j), false)];
            for &a in &f.sources[y] {
                let blockish = matches!(
                    u.effects[a].kind,
                    Kind::Action(ActionKind::Block | ActionKind::Jail)
                );
                let src = if blockish && !guard.is_empty() {
                    guarded_hit(a, &mut vars, &mut phase, &mut clauses)
                } else {
                    lit(s(local[&a]), true)
                };
                clauses.push(vec![lit(v, false), neg(src)]);
                if f.cut_dominance && y < u.n_declared {
                    clauses.push(vec![neg(src), lit(live(j), true)]);
                }
                all.push(src);
            }
            clauses.push(all);
        }
        if f.req[y].is_some() {
            created[j] = true;
            if !f.on_visit[y] {
                creation(j, y, &visits, &mut triggers, &mut clauses);
            }
        }
        if y < u.n_declared {
            declared[j] = true;
            level[j] = f.level[y];
            counted.push((f.level[y], lit(live(j), false), u.weight(y)));
        }
        let (fs, fl) = fixed[y];
        facts.extend(fs.map(|b| lit(s(j), b)));
        facts.extend(fl.map(|b| lit(live(j), b)));
    }
    // Visit creation once every "visits" variable exists.
    for (j, &y) in comp.iter().enumerate() {
        if f.on_visit[y] {
            creation(j, y, &visits, &mut triggers, &mut clauses);
        }
    }
    let w = Written {
        comp: comp.to_vec(),
        triggers,
        created,
        grounded: declared.clone(),
        declared,
        level,
        weight: comp.iter().map(|&y| u.weight(y)).collect(),
    };
    let mut problem = Problem {
        vars,
        clauses,
        facts,
        counted: vec![Vec::new(); levels],
        phase,
        atoms: w.atoms(),
    };
    for (level, l, weight) in counted {
        problem.count(level, l, weight);
    }
    (w, problem)
}

/// The live created effects (of `pending`) that cannot be derived step by step: a created
/// effect is derived when the guard of a trigger of it `holds` and the trigger is
/// grounded, `given` (derived outside this check) or derived itself (least fixed point).
/// Empty when all are.
pub(super) fn underived(
    w: &Written,
    mut pending: Vec<usize>,
    holds: impl Fn(Lit) -> bool,
    given: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut derived = vec![false; w.m()];
    loop {
        let before = pending.len();
        pending.retain(|&c| {
            let ok = w.triggers[c]
                .iter()
                .any(|&(g, t)| holds(t) && (w.grounded[g] || given(g) || derived[g]));
            derived[c] |= ok;
            !ok
        });
        if pending.is_empty() || pending.len() == before {
            return pending;
        }
    }
}

/// The guards of the triggers of the effects of `set` from outside it, sorted.
pub(super) fn outside_triggers(w: &Written, set: &[usize]) -> Vec<Lit> {
    let mut inside = vec![false; w.m()];
    set.iter().for_each(|&c| inside[c] = true);
    let mut outside: Vec<Lit> = set
        .iter()
        .flat_map(|&c| w.triggers[c].iter())
        .filter(|&&(g, _)| !inside[g])
        .map(|&(_, t)| t)
        .collect();
    outside.sort_unstable();
    outside.dedup();
    outside
}

/// (C5) on a complete labelling: `None` if every live created effect can be derived from
/// succeeding declared effects step by step, else the loop nogood of those that cannot.
pub(super) fn unfounded(w: &Written, l: &Learner) -> Option<Vec<Lit>> {
    let live: Vec<usize> = (0..w.m())
        .filter(|&j| w.created[j] && l.is_true(w.live(j)))
        .collect();
    let set = underived(w, live, |t| l.holds(t), |_| false);
    if set.is_empty() {
        return None;
    }
    let mut nogood: Vec<Lit> = set.iter().map(|&c| lit(w.live(c), false)).collect();
    nogood.extend(outside_triggers(w, &set));
    Some(nogood)
}

/// The optimal cuts of one component of a cut-search frame: its cost vector and every cut
/// (declared universe indices) reaching it. `None` if the component has no labelling.
pub fn component_cuts(
    u: &Universe,
    f: &Frame,
    fixed: &FixedLabels,
    comp: &[Ix],
    levels: usize,
    budget: &Budget,
) -> Result<Option<ComponentCuts>, Interrupted> {
    let (w, problem) = write(u, f, fixed, comp, levels);
    let mut learner = Learner::new(problem, budget)?;
    let found = optimise(&w, &mut learner, levels, budget);
    learner.release(budget);
    found
}

fn optimise(
    w: &Written,
    l: &mut Learner,
    levels: usize,
    budget: &Budget,
) -> Result<Option<ComponentCuts>, Interrupted> {
    let Some(opt) = minimise(w, l, levels, budget)? else {
        return Ok(None);
    };
    let mut check = |l: &Learner| unfounded(w, l);
    let mut cuts = BTreeSet::new();
    while l.solve(budget, &mut check)? {
        let cut: Vec<usize> = (0..w.m())
            .filter(|&j| w.declared[j] && !l.is_true(w.live(j)))
            .collect();
        budget.charge("cuts", 48 + 8 * cut.len() as u64)?;
        let done = cut.is_empty();
        l.block(cut.iter().map(|&j| lit(w.live(j), true)).collect(), budget)?;
        let mut global: Vec<Ix> = cut.into_iter().map(|j| w.comp[j]).collect();
        global.sort_unstable();
        cuts.insert(global);
        if done {
            break;
        }
    }
    Ok(Some((opt, cuts)))
}

/// The least cost vector of the component, found level by level (most important first,
/// each from above: every labelling found lowers the bound, the first bound without one
/// proves the optimum); the learner is left bounded at it. `None` if the component has no labelling at all.
pub(super) fn minimise(
    w: &Written,
    l: &mut Learner,
    levels: usize,
    budget: &Budget,
) -> Result<Option<Vec<usize>>, Interrupted> {
    minimise_with(l, levels, budget, &mut |l: &Learner| unfounded(w, l))
}

/// [`minimise`] with any check of complete labellings (`None` accepts, else a nogood the
/// labelling violates): the learner's counted sets are the levels' costs.
pub(super) fn minimise_with(
    l: &mut Learner,
    levels: usize,
    budget: &Budget,
    check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
) -> Result<Option<Vec<usize>>, Interrupted> {
    if !l.solve(budget, check)? {
        return Ok(None);
    }
    let counts = |l: &Learner| (0..levels).map(|i| l.count(i)).collect::<Vec<_>>();
    let mut upper = counts(l);
    let mut opt: Vec<usize> = Vec::with_capacity(levels);
    for level in 0..levels {
        // Down from the best count found: each labelling found lowers it; the first
        // bound with none proves it optimal (earlier levels pinned at their optima).
        while upper[level] > 0 {
            let bounds: Vec<Option<usize>> = (0..levels)
                .map(|i| match i.cmp(&level) {
                    std::cmp::Ordering::Less => Some(opt[i]),
                    std::cmp::Ordering::Equal => Some(upper[level] - 1),
                    std::cmp::Ordering::Greater => None,
                })
                .collect();
            l.set_bounds(&bounds);
            if !l.solve(budget, check)? {
                break;
            }
            upper = counts(l);
        }
        opt.push(upper[level]);
    }
    l.set_bounds(&opt.iter().map(|&c| Some(c)).collect::<Vec<_>>());
    Ok(Some(opt))
}

/// A component's labelling: (variable, value) in the frame's numbering (`s[u]` is `u`,
/// `live[u]` is `n + u`).
pub type Labelling = Vec<(usize, bool)>;

/// Every labelling of one component of a *resolving* frame (nothing may be cut), found by
/// the learning search, each one blocked once found. The alternative to the plain
/// labelling search for large components: loop nogoods refute ungrounded creation as
/// soon as it is learned, where the plain search checks it on every complete labelling.
/// `each` sees every labelling and returns `true` to stop.
pub fn labellings(
    u: &Universe,
    f: &Frame,
    fixed: &FixedLabels,
    comp: &[Ix],
    budget: &Budget,
    each: &mut dyn FnMut(Labelling) -> bool,
) -> Result<(), Interrupted> {
    let (w, problem) = write(u, f, fixed, comp, u.levels().len());
    let vars = problem.vars;
    let mut learner = Learner::new(problem, budget)?;
    let found = enumerate(&w, f.n, vars, &mut learner, budget, each);
    learner.release(budget);
    found
}

fn enumerate(
    w: &Written,
    n: usize,
    vars: usize,
    l: &mut Learner,
    budget: &Budget,
    each: &mut dyn FnMut(Labelling) -> bool,
) -> Result<(), Interrupted> {
    let mut check = |l: &Learner| unfounded(w, l);
    while l.solve(budget, &mut check)? {
        let labels: Labelling = (0..w.m())
            .flat_map(|j| {
                let e = w.comp[j];
                [(e, l.is_true(w.s(j))), (n + e, l.is_true(w.live(j)))]
            })
            .collect();
        if each(labels) {
            break;
        }
        l.block((0..vars).map(|v| lit(v, !l.is_true(v))).collect(), budget)?;
    }
    Ok(())
}
