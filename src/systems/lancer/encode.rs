//! The SAT engine: the same bounded run as the simulator, compiled into clauses.
//!
//! The encoder walks the resolution procedure once over a *symbolic* state (one-hot hit
//! points, structure and cells per unit; destroyed/braced/resistance flags; a used flag
//! per reaction) and creates a template node for every event that can statically occur —
//! every reaction whose kind, role and side filter match, down to the depth bound. Each
//! node has an `act` literal (the event is created), `done`/`aborted` literals (its
//! validity check), free choice variables (hit, damage roll, optional reaction, brace) and
//! guarded state updates; the queue discipline is the fixed order in which nodes are
//! checked (the breadth-first order's follow-up queues included: a root's follow-ups are
//! queued with their queue-time literal and fired after the root's events). Trigger
//! conditions come from the model's one matcher ([`Reaction::trigger`]), each turned into a
//! literal. Each node knows its *instance* (the root it belongs to: the action, one firing
//! of a reaction, one brace prompt) and the instances its effect is charged to (its own,
//! and through follow-ups the instances whose applied events caused it), for the
//! `aborted-after-effect` literal. Decoding reads the active nodes in that order back into
//! an [`Outcome`].
//!
//! Invariants: one satisfying assignment per choice sequence the simulator can take, with
//! the same outcome (checked by the differential tests); projection on the trace and final
//! state literals enumerates each distinct outcome once; the encoder never calls the
//! simulator.

use super::model::*;
use super::search::Property;
use crate::sat::{enumerate_projected, lexmin, EnumerationEnd, Inputs, Lit, SatResult, Solver};
use crate::systems::spec::{Budget, Charged, Interrupted};
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

/// A unit's symbolic state.
#[derive(Clone, Debug)]
struct SUnit {
    hp: Vec<Lit>,
    st: Vec<Lit>,
    pos: Vec<(Cell, Lit)>,
    destroyed: Lit,
    braced: Lit,
    resist: Lit,
}

/// A template node: an event that may occur.
#[derive(Clone, Debug)]
struct TNode {
    kind: Kind,
    source: UnitId,
    target: UnitId,
    origin: Origin,
    parent: Option<usize>,
    depth: usize,
    act: Lit,
    done: Lit,
    aborted: Lit,
    /// Damage roll choices (amount, chosen).
    amounts: Vec<(u32, Lit)>,
    weapon: Option<usize>,
    to: Option<Cell>,
    targets: Vec<UnitId>,
    /// Detail literals, each `done ∧ ...` (or `aborted ∧ ...` for the abort reason).
    details: Vec<(Detail, Lit)>,
    /// The root node of its instance (the action, one reaction firing, one brace prompt).
    root: usize,
    /// The instances (root node ids) its effect is charged to.
    blame: Vec<usize>,
}

/// The compiled run: the solver and the template it was built from.
pub struct Encoding {
    /// The solver holding the clauses.
    pub solver: Solver,
    /// Nodes, final state and property literals.
    pub template: Template,
}

/// The template: nodes in check order, final state and property literals.
pub struct Template {
    nodes: Vec<TNode>,
    /// Node ids in check order.
    checked: Vec<usize>,
    units: Vec<SUnit>,
    truncated: Lit,
    props: BTreeMap<Property, Lit>,
    /// Named free choice variables (for DIMACS comments).
    pub choices: Vec<(String, Lit)>,
}

struct Enc<'a, 'c> {
    sc: &'a Scenario,
    policy: Policy,
    s: Solver,
    nodes: Vec<TNode>,
    checked: Vec<usize>,
    units: Vec<SUnit>,
    used: Vec<Lit>,
    truncated: Lit,
    /// Per instance (root node id): some event charged to it has changed the state.
    applied: HashMap<usize, Lit>,
    /// The follow-up queues of the roots being resolved, innermost last:
    /// (trigger, reaction, queued literal).
    pending: Vec<Vec<(usize, usize, Lit)>>,
    aae: Lit,
    cancelled: Lit,
    choices: Vec<(String, Lit)>,
    /// The template's and the clauses' growth, charged at each resolved node.
    clauses: &'c mut Charged<'a>,
}

impl Enc<'_, '_> {
    fn t(&self) -> Lit {
        self.s.true_lit()
    }
    fn f(&self) -> Lit {
        self.s.false_lit()
    }
    fn and(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_and(lits, Inputs::Code)
    }
    fn or(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_or(lits, Inputs::Code)
    }
    fn choice(&mut self, name: String) -> Lit {
        let l = self.s.new_lit();
        self.choices.push((name, l));
        l
    }
    fn unit_name(&self, u: UnitId) -> &str {
        &self.sc.units[u].name
    }

    fn adjacent(&mut self, a: UnitId, b: UnitId) -> Lit {
        let pa = self.units[a].pos.clone();
        let pb = self.units[b].pos.clone();
        let mut terms = Vec::new();
        for &(ca, la) in &pa {
            for &(cb, lb) in &pb {
                if ca.adjacent(cb) {
                    let x = self.and(&[la, lb]);
                    terms.push(x);
                }
            }
        }
        self.or(&terms)
    }

    /// `g ? a : b` for one-hot vectors given as per-value (new-value terms under g).
    fn guarded(&mut self, g: Lit, new_terms: Vec<Vec<Lit>>, old: &[Lit]) -> Vec<Lit> {
        let mut out = Vec::with_capacity(old.len());
        for (w, terms) in new_terms.into_iter().enumerate() {
            let n = self.or(&terms);
            let a = self.and(&[g, n]);
            let b = self.and(&[!g, old[w]]);
            out.push(self.or(&[a, b]));
        }
        out
    }

    fn add(&mut self, n: TNode) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &self,
        kind: Kind,
        source: UnitId,
        target: UnitId,
        origin: Origin,
        parent: Option<usize>,
        depth: usize,
        act: Lit,
    ) -> TNode {
        TNode {
            kind,
            source,
            target,
            origin,
            parent,
            depth,
            act,
            done: self.f(),
            aborted: self.f(),
            amounts: vec![],
            weapon: None,
            to: None,
            targets: vec![],
            details: vec![],
            root: usize::MAX,
            blame: vec![],
        }
    }

    /// Adds a root node: its own instance, charged also to `upstream`.
    fn add_root(&mut self, n: TNode, upstream: &[usize]) -> usize {
        let id = self.add(n);
        let mut blame = vec![id];
        blame.extend(upstream.iter().copied().filter(|&b| b != id));
        self.nodes[id].root = id;
        self.nodes[id].blame = blame;
        id
    }

    /// The instances a root triggered by node `trigger` is charged to besides its own: a
    /// follow-up happens because the trigger was applied (all of the trigger's); an
    /// interrupt or a brace prompt comes before it applies (not the trigger's own instance).
    fn upstream(&self, trigger: usize, followup: bool) -> Vec<usize> {
        let t = &self.nodes[trigger];
        t.blame
            .iter()
            .copied()
            .filter(|&b| followup || b != t.root)
            .collect()
    }

    /// A root event with its own follow-up queue (see the simulator's `resolve_root`).
    fn resolve_root(&mut self, id: usize) -> Result<(), Interrupted> {
        self.pending.push(Vec::new());
        self.resolve(id)?;
        let q = self.pending.pop().expect("pushed above");
        for (trigger, r, c) in q {
            self.fire(trigger, r, c)?;
        }
        Ok(())
    }

    /// The literal of a trigger condition on node `n` now.
    fn cond(&mut self, c: Cond, n: &TNode) -> Lit {
        match c {
            Cond::Alive(u) => !self.units[u].destroyed,
            Cond::Adjacent(a, b) => self.adjacent(a, b),
            Cond::Hit(h) => {
                let hit = n
                    .details
                    .iter()
                    .find(|(d, _)| *d == Detail::Hit(h))
                    .map(|&(_, l)| l)
                    .unwrap_or(self.f());
                hit
            }
        }
    }

    fn resolve(&mut self, id: usize) -> Result<(), Interrupted> {
        let nodes = (self.nodes.len() * (std::mem::size_of::<TNode>() + 64)) as u64;
        self.clauses.grow_to(self.s.approx_bytes() + nodes)?;
        self.interrupts(id)?;
        self.check_apply_children(id)?;
        self.followups(id)
    }

    /// Reactions matching node `id` for `timing`: (reaction, queued literal).
    fn queue(&mut self, id: usize, timing: Timing) -> Vec<(usize, Lit)> {
        let n = self.nodes[id].clone();
        let base = match timing {
            Timing::Interrupt => n.act,
            Timing::Followup => n.done,
        };
        let shape = EventShape {
            kind: n.kind,
            source: n.source,
            target: n.target,
            targets: &n.targets,
            area: n.kind == Kind::Activate && n.weapon.is_some_and(|w| self.sc.weapons[w].area),
        };
        let mut q = Vec::new();
        for (i, r) in self.sc.reactions.iter().enumerate() {
            let Some(conds) = r.trigger(&shape, timing, &self.sc.units) else {
                continue;
            };
            let mut conj = vec![base];
            for c in conds {
                let l = self.cond(c, &n);
                conj.push(l);
            }
            let c = self.and(&conj);
            if n.depth >= self.sc.depth {
                self.truncated = self.or(&[self.truncated, c]);
            } else {
                q.push((i, c));
            }
        }
        q
    }

    fn interrupts(&mut self, id: usize) -> Result<(), Interrupted> {
        let q = self.queue(id, Timing::Interrupt);
        let n = self.nodes[id].clone();
        let prompted = if n.kind == Kind::Damage && !self.sc.units[n.target].npc {
            let t = n.target;
            let u = self.units[t].clone();
            let rule = match self.policy.brace {
                BraceRule::Any => self.t(),
                BraceRule::Structure => {
                    let armor = self.sc.units[t].armor;
                    let resist = if self.sc.units[t].resistant {
                        self.t()
                    } else {
                        u.resist
                    };
                    let mut terms = Vec::new();
                    for &(a, ch) in &n.amounts {
                        for r in [false, true] {
                            let d = reduce(a, armor, r);
                            for (v, &hv) in u.hp.iter().enumerate() {
                                if d >= v as u32 {
                                    let rl = if r { resist } else { !resist };
                                    let x = self.and(&[ch, rl, hv]);
                                    terms.push(x);
                                }
                            }
                        }
                    }
                    self.or(&terms)
                }
            };
            Some(self.and(&[n.act, !u.destroyed, !u.braced, rule]))
        } else {
            None
        };
        for (r, c) in q {
            self.fire(id, r, c)?;
        }
        if let Some(p) = prompted {
            let t = n.target;
            let u = self.units[t].clone();
            let act = self.and(&[p, !u.destroyed, !u.braced]);
            if act != self.f() {
                let b = self.node(Kind::Brace, t, t, Origin::Brace(t), Some(id), n.depth, act);
                let up = self.upstream(id, false);
                let b = self.add_root(b, &up);
                self.resolve_root(b)?;
            }
        }
        Ok(())
    }

    fn followups(&mut self, id: usize) -> Result<(), Interrupted> {
        let q = self.queue(id, Timing::Followup);
        if self.policy.order == Order::BreadthFirst {
            let top = self.pending.last_mut().expect("inside a root");
            top.extend(q.into_iter().map(|(r, c)| (id, r, c)));
        } else {
            for (r, c) in q {
                self.fire(id, r, c)?;
            }
        }
        Ok(())
    }

    fn fire(&mut self, trigger: usize, ri: usize, queued: Lit) -> Result<(), Interrupted> {
        if queued == self.f() {
            return Ok(());
        }
        let r = self.sc.reactions[ri].clone();
        let u = self.units[r.unit].clone();
        let mut conj = vec![queued, !u.destroyed, !u.braced];
        if r.once {
            conj.push(!self.used[ri]);
        }
        if r.optional {
            let c = self.choice(format!("use {} (on event {})", r.name, trigger));
            conj.push(c);
        }
        let act = self.and(&conj);
        if act == self.f() {
            return Ok(());
        }
        self.used[ri] = self.or(&[self.used[ri], act]);
        let t = self.nodes[trigger].clone();
        let aim = |a: Aim| match a {
            Aim::Source => t.source,
            Aim::Target => t.target,
        };
        let mut n = self.node(
            Kind::Attack,
            r.unit,
            r.unit,
            Origin::Reaction(ri),
            Some(trigger),
            t.depth + 1,
            act,
        );
        match r.effect {
            Effect::Attack { weapon, at } => {
                n.target = aim(at);
                n.weapon = Some(weapon);
            }
            Effect::Damage { amount, at } => {
                n.kind = Kind::Damage;
                n.target = aim(at);
                n.amounts = vec![(amount, self.t())];
            }
            Effect::Relocate { to, teleport } => {
                n.kind = if teleport { Kind::Teleport } else { Kind::Move };
                n.to = Some(to);
            }
        }
        let up = self.upstream(trigger, r.timing == Timing::Followup);
        let id = self.add_root(n, &up);
        self.resolve_root(id)
    }

    fn check_apply(&mut self, id: usize) {
        let n = self.nodes[id].clone();
        // The abort reasons in priority order, each as a literal (true: it holds).
        let dead = |e: &Self, u: UnitId| e.units[u].destroyed;
        let reasons: Vec<(AbortReason, Lit)> = match n.kind {
            Kind::Structure | Kind::Destroyed => {
                vec![(AbortReason::TargetDestroyed, dead(self, n.target))]
            }
            Kind::Brace => vec![
                (AbortReason::TargetDestroyed, dead(self, n.target)),
                (AbortReason::AlreadyBraced, self.units[n.target].braced),
            ],
            Kind::Move | Kind::Teleport => {
                let to = n.to.expect("relocations have a destination");
                let mut blocked = Vec::new();
                for v in 0..self.units.len() {
                    if v == n.source {
                        continue;
                    }
                    if let Some(&(_, l)) = self.units[v].pos.iter().find(|(c, _)| *c == to) {
                        let d = self.units[v].destroyed;
                        let x = self.and(&[!d, l]);
                        blocked.push(x);
                    }
                }
                let b = self.or(&blocked);
                vec![
                    (AbortReason::SourceDestroyed, dead(self, n.source)),
                    (AbortReason::CellTaken, b),
                ]
            }
            Kind::Activate => vec![(AbortReason::SourceDestroyed, dead(self, n.source))],
            _ => vec![
                (AbortReason::SourceDestroyed, dead(self, n.source)),
                (AbortReason::TargetDestroyed, dead(self, n.target)),
            ],
        };
        let any: Vec<Lit> = reasons.iter().map(|&(_, l)| l).collect();
        let valid = !self.or(&any);
        let done = self.and(&[n.act, valid]);
        let aborted = self.and(&[n.act, !valid]);
        // properties, before this node's own effect
        let applied = self.applied.get(&n.root).copied().unwrap_or(self.f());
        let x = self.and(&[aborted, applied]);
        self.aae = self.or(&[self.aae, x]);
        if n.origin == Origin::Action {
            self.cancelled = self.or(&[self.cancelled, aborted]);
        }
        let mut details = Vec::new();
        let mut earlier = Vec::new();
        for &(why, l) in &reasons {
            let mut conj = vec![aborted, l];
            conj.extend(earlier.iter().map(|&e: &Lit| !e));
            let x = self.and(&conj);
            details.push((Detail::Aborted(why), x));
            earlier.push(l);
        }
        let mut effect = self.f();
        let t = n.target;
        match n.kind {
            Kind::Activate => {}
            Kind::Structure => {
                let u = self.units[t].clone();
                let maxs = u.st.len() - 1;
                let mut st_terms = vec![Vec::new(); maxs + 1];
                st_terms[0].push(u.st[0]);
                for v in 1..=maxs {
                    st_terms[v - 1].push(u.st[v]);
                }
                let new_st = self.guarded(done, st_terms, &u.st);
                let maxh = u.hp.len() - 1;
                let mut hp_terms = vec![Vec::new(); maxh + 1];
                let zero = self.or(&[u.st[0], u.st[1.min(maxs)]]);
                hp_terms[0].push(zero);
                hp_terms[maxh].push(!zero);
                let new_hp = self.guarded(done, hp_terms, &u.hp);
                self.units[t].st = new_st;
                self.units[t].hp = new_hp;
                effect = done;
            }
            Kind::Destroyed => {
                let u = self.units[t].clone();
                let maxh = u.hp.len() - 1;
                let mut hp_terms = vec![Vec::new(); maxh + 1];
                hp_terms[0].push(self.t());
                let new_hp = self.guarded(done, hp_terms, &u.hp);
                self.units[t].hp = new_hp;
                self.units[t].destroyed = self.or(&[u.destroyed, done]);
                effect = done;
            }
            Kind::Attack => {
                let h = self.choice(format!(
                    "hit: {} attacks {} (event {id})",
                    self.unit_name(n.source),
                    self.unit_name(t)
                ));
                let dh = self.and(&[done, h]);
                let dm = self.and(&[done, !h]);
                details.push((Detail::Hit(true), dh));
                details.push((Detail::Hit(false), dm));
            }
            Kind::Brace => {
                let b = self.choice(format!("brace: {} (event {id})", self.unit_name(t)));
                let db = self.and(&[done, b]);
                let dn = self.and(&[done, !b]);
                details.push((Detail::Braced(true), db));
                details.push((Detail::Braced(false), dn));
                let u = self.units[t].clone();
                self.units[t].braced = self.or(&[u.braced, db]);
                self.units[t].resist = self.or(&[u.resist, db]);
                effect = db;
            }
            Kind::Damage => {
                let u = self.units[t].clone();
                let armor = self.sc.units[t].armor;
                let resist = if self.sc.units[t].resistant {
                    self.t()
                } else {
                    u.resist
                };
                let maxh = u.hp.len() - 1;
                let mut hp_terms = vec![Vec::new(); maxh + 1];
                let mut dealt: BTreeMap<u32, Vec<Lit>> = BTreeMap::new();
                for &(a, ch) in &n.amounts {
                    for r in [false, true] {
                        let d = reduce(a, armor, r);
                        let rl = if r { resist } else { !resist };
                        let c = self.and(&[ch, rl]);
                        dealt.entry(d).or_default().push(c);
                        for (v, &hv) in u.hp.iter().enumerate() {
                            let w = (v as u32).saturating_sub(d) as usize;
                            let x = self.and(&[c, hv]);
                            hp_terms[w].push(x);
                        }
                    }
                }
                let new_hp = self.guarded(done, hp_terms, &u.hp);
                self.units[t].hp = new_hp;
                self.units[t].resist = self.and(&[u.resist, !done]);
                let mut pos_terms = Vec::new();
                for (d, cs) in dealt {
                    let any = self.or(&cs);
                    let x = self.and(&[done, any]);
                    if d > 0 {
                        pos_terms.push(x);
                    }
                    details.push((Detail::Dealt(d), x));
                }
                effect = self.or(&pos_terms);
            }
            Kind::Move | Kind::Teleport => {
                let to = n.to.expect("destination");
                let pos = self.units[n.source].pos.clone();
                let mut new = Vec::new();
                for (c, l) in pos {
                    let nl = if c == to {
                        self.or(&[done, l])
                    } else {
                        self.and(&[!done, l])
                    };
                    new.push((c, nl));
                }
                self.units[n.source].pos = new;
                details.push((Detail::To(to), done));
                effect = done;
            }
        }
        for &b in &n.blame {
            let prev = self.applied.get(&b).copied().unwrap_or(self.f());
            let now = self.or(&[prev, effect]);
            self.applied.insert(b, now);
        }
        self.checked.push(id);
        let node = &mut self.nodes[id];
        node.done = done;
        node.aborted = aborted;
        node.details = details;
    }

    fn children(&mut self, id: usize) -> Vec<usize> {
        let n = self.nodes[id].clone();
        if n.done == self.f() {
            return vec![];
        }
        let mk = |e: &Self, kind, s, t, act| {
            let mut c = e.node(kind, s, t, n.origin, Some(id), n.depth, act);
            c.root = n.root;
            c.blame = n.blame.clone();
            c
        };
        let mut out = Vec::new();
        match n.kind {
            Kind::Activate => {
                for &t in &n.targets {
                    let mut c = mk(self, Kind::Attack, n.source, t, n.done);
                    c.weapon = n.weapon;
                    out.push(c);
                }
            }
            Kind::Attack => {
                let hit = n
                    .details
                    .iter()
                    .find(|(d, _)| *d == Detail::Hit(true))
                    .map(|&(_, l)| l)
                    .expect("attacks have a hit literal");
                let w = self.sc.weapons[n.weapon.expect("weapon")].clone();
                let mut c = mk(self, Kind::Damage, n.source, n.target, hit);
                if w.damage.len() == 1 {
                    c.amounts = vec![(w.damage[0], self.t())];
                } else {
                    let ls: Vec<Lit> = w
                        .damage
                        .iter()
                        .map(|a| self.choice(format!("roll {a} (event {id})")))
                        .collect();
                    self.s.add_clause(&ls);
                    for i in 0..ls.len() {
                        for j in i + 1..ls.len() {
                            self.s.add_clause(&[!ls[i], !ls[j]]);
                        }
                    }
                    c.amounts = w.damage.iter().copied().zip(ls).collect();
                }
                out.push(c);
            }
            Kind::Damage => {
                let z = self.units[n.target].hp[0];
                let act = self.and(&[n.done, z]);
                out.push(mk(self, Kind::Structure, n.target, n.target, act));
            }
            Kind::Structure => {
                let z = self.units[n.target].st[0];
                let act = self.and(&[n.done, z]);
                out.push(mk(self, Kind::Destroyed, n.target, n.target, act));
            }
            _ => {}
        }
        let f = self.f();
        out.into_iter()
            .filter(|c| c.act != f)
            .map(|c| self.add(c))
            .collect()
    }

    fn check_apply_children(&mut self, id: usize) -> Result<(), Interrupted> {
        self.check_apply(id);
        let kids = self.children(id);
        let batch = self.nodes[id].kind == Kind::Activate
            && self.policy.order == Order::BreadthFirst
            && kids.len() > 1;
        if batch {
            for &k in &kids {
                self.interrupts(k)?;
            }
            for &k in &kids {
                self.check_apply_children(k)?;
            }
            for &k in &kids {
                self.followups(k)?;
            }
        } else {
            for k in kids {
                self.resolve(k)?;
            }
        }
        Ok(())
    }
}

fn onehot(s: &mut Solver, max: usize, value: usize) -> Vec<Lit> {
    (0..=max)
        .map(|v| {
            if v == value {
                s.true_lit()
            } else {
                s.false_lit()
            }
        })
        .collect()
}

/// Compiles the scenario's run under `policy`, charging the template and its clauses to
/// `clauses` as they grow (past the memory bound: `Interrupted`).
pub fn encode<'a>(
    sc: &'a Scenario,
    policy: Policy,
    budget: &'a Budget,
    clauses: &mut Charged<'a>,
) -> Result<Encoding, Interrupted> {
    let mut s = Solver::new();
    s.set_interrupt(budget.flag());
    let mut units = Vec::new();
    for (i, u) in sc.units.iter().enumerate() {
        let mut cells = vec![u.at];
        for r in sc.reactions.iter().filter(|r| r.unit == i) {
            if let Effect::Relocate { to, .. } = r.effect {
                cells.push(to);
            }
        }
        if let Action::Relocate { actor, to, .. } = sc.action {
            if actor == i {
                cells.push(to);
            }
        }
        cells.sort();
        cells.dedup();
        let pos = cells
            .into_iter()
            .map(|c| {
                (
                    c,
                    if c == u.at {
                        s.true_lit()
                    } else {
                        s.false_lit()
                    },
                )
            })
            .collect();
        units.push(SUnit {
            hp: onehot(&mut s, u.max_hp as usize, u.hp as usize),
            st: onehot(&mut s, u.structure as usize, u.structure as usize),
            pos,
            destroyed: s.false_lit(),
            braced: s.false_lit(),
            resist: s.false_lit(),
        });
    }
    let f = s.false_lit();
    let t = s.true_lit();
    let mut e = Enc {
        sc,
        policy,
        s,
        nodes: vec![],
        checked: vec![],
        units,
        used: vec![f; sc.reactions.len()],
        truncated: f,
        applied: HashMap::new(),
        pending: Vec::new(),
        aae: f,
        cancelled: f,
        choices: vec![],
        clauses,
    };
    let root = match &sc.action {
        Action::Activate {
            actor,
            weapon,
            targets,
        } => {
            let mut n = e.node(
                Kind::Activate,
                *actor,
                targets[0],
                Origin::Action,
                None,
                0,
                t,
            );
            n.weapon = Some(*weapon);
            n.targets = targets.clone();
            n
        }
        Action::Relocate {
            actor,
            to,
            teleport,
        } => {
            let kind = if *teleport {
                Kind::Teleport
            } else {
                Kind::Move
            };
            let mut n = e.node(kind, *actor, *actor, Origin::Action, None, 0, t);
            n.to = Some(*to);
            n
        }
    };
    let id = e.add_root(root, &[]);
    e.resolve_root(id)?;
    let mut props = BTreeMap::new();
    for (u, su) in e.units.iter().enumerate() {
        props.insert(Property::Destroyed(u), su.destroyed);
    }
    props.insert(Property::AbortedAfterEffect, e.aae);
    props.insert(Property::ActionCancelled, e.cancelled);
    for r in 0..sc.reactions.len() {
        let acts: Vec<Lit> = e
            .nodes
            .iter()
            .filter(|n| n.origin == Origin::Reaction(r))
            .map(|n| n.act)
            .collect();
        let l = e.or(&acts);
        props.insert(Property::Fires(r), l);
    }
    Ok(Encoding {
        solver: e.s,
        template: Template {
            nodes: e.nodes,
            checked: e.checked,
            units: e.units,
            truncated: e.truncated,
            props,
            choices: e.choices,
        },
    })
}

impl Template {
    /// The literals that determine an outcome: each node's act/done and detail literals,
    /// the final state and the truncation flag.
    pub fn projection(&self) -> Vec<Lit> {
        let mut v = Vec::new();
        for n in &self.nodes {
            v.push(n.act);
            v.push(n.done);
            v.extend(n.details.iter().map(|&(_, l)| l));
        }
        for u in &self.units {
            v.extend(&u.hp);
            v.extend(&u.st);
            v.extend(u.pos.iter().map(|&(_, l)| l));
            v.push(u.destroyed);
            v.push(u.braced);
        }
        v.push(self.truncated);
        v
    }

    /// The outcome under an assignment of (at least) the projection literals.
    fn decode(&self, val: &dyn Fn(Lit) -> bool) -> Outcome {
        let active: Vec<usize> = self
            .checked
            .iter()
            .copied()
            .filter(|&i| val(self.nodes[i].act))
            .collect();
        let pos: HashMap<usize, usize> = active.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let events = active
            .iter()
            .map(|&i| {
                let n = &self.nodes[i];
                let done = val(n.done);
                let detail = n
                    .details
                    .iter()
                    .find(|&&(_, l)| val(l))
                    .map(|&(d, _)| d)
                    .unwrap_or(Detail::None);
                Event {
                    kind: n.kind,
                    source: n.source,
                    target: n.target,
                    origin: n.origin,
                    parent: n.parent.and_then(|p| pos.get(&p).copied()),
                    status: if done { Status::Done } else { Status::Aborted },
                    detail,
                }
            })
            .collect();
        let pick = |ls: &[Lit]| ls.iter().position(|&l| val(l)).unwrap_or(0) as u32;
        let units = self
            .units
            .iter()
            .map(|u| UnitState {
                hp: pick(&u.hp),
                structure: pick(&u.st),
                at: u
                    .pos
                    .iter()
                    .find(|&&(_, l)| val(l))
                    .map(|&(c, _)| c)
                    .unwrap_or(u.pos[0].0),
                destroyed: val(u.destroyed),
                braced: val(u.braced),
            })
            .collect();
        Outcome {
            events,
            units,
            truncated: val(self.truncated),
        }
    }

    /// The literal of a property.
    pub fn property(&self, p: Property) -> Lit {
        self.props[&p]
    }
}

/// Every distinct outcome by projected enumeration, sorted.
pub fn outcomes(
    sc: &Scenario,
    policy: Policy,
    budget: &Budget,
) -> Result<Vec<Outcome>, Interrupted> {
    let mut clauses = Charged::new(budget, "SAT clauses");
    let Encoding {
        mut solver,
        template,
    } = encode(sc, policy, budget, &mut clauses)?;
    let proj = template.projection();
    let t = solver.true_lit();
    let mut out = Vec::new();
    // Each model: its outcome and its blocking clause.
    let blocking = 8 * proj.len() as u64 + 40;
    let mut full = false;
    let end = enumerate_projected(&mut solver, &proj, &[], None, |vals| {
        let mut map: HashMap<Lit, bool> = HashMap::with_capacity(proj.len() * 2);
        for (&l, &v) in proj.iter().zip(vals) {
            map.insert(l, v);
            map.insert(!l, !v);
        }
        map.insert(t, true);
        map.insert(!t, false);
        let o = template.decode(&|l: Lit| map.get(&l).copied().unwrap_or(false));
        if budget
            .charge("outcomes", super::search::outcome_bytes(&o) + blocking)
            .is_err()
        {
            full = true;
            return ControlFlow::Break(());
        }
        out.push(o);
        ControlFlow::Continue(())
    });
    if full || end.end != EnumerationEnd::Complete {
        return Err(Interrupted);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The shortest witness of `p` (fewest events) by SAT minimisation, or `None` if no run
/// has the property.
pub fn shortest(
    sc: &Scenario,
    policy: Policy,
    p: Property,
    budget: &Budget,
) -> Result<Option<Outcome>, Interrupted> {
    let mut clauses = Charged::new(budget, "SAT clauses");
    let mut enc = encode(sc, policy, budget, &mut clauses)?;
    let goal = enc.template.property(p);
    let acts: Vec<Lit> = enc.template.nodes.iter().map(|n| n.act).collect();
    let Some(m) = lexmin(&mut enc.solver, &[acts], &[goal]).map_err(|_| Interrupted)? else {
        return Ok(None);
    };
    let mut assume = vec![goal];
    assume.extend(m.pins);
    match enc.solver.solve(&assume) {
        SatResult::Sat => {}
        SatResult::Unsat => return Ok(None),
        SatResult::Unknown => return Err(Interrupted),
    }
    let s = &enc.solver;
    Ok(Some(enc.template.decode(&|l| s.value(l))))
}

/// The DIMACS text of the encoding, with `c` lines naming the choice variables and the
/// property literals; the encoding is charged to `budget`'s memory meter.
pub fn dimacs(sc: &Scenario, policy: Policy, budget: &Budget) -> Result<String, Interrupted> {
    let mut clauses = Charged::new(budget, "SAT clauses");
    let enc = encode(sc, policy, budget, &mut clauses)?;
    let mut out = format!(
        "c gordian lancer: policy {}, {} template events\n",
        policy.name(),
        enc.template.nodes.len()
    );
    for (name, l) in &enc.template.choices {
        out.push_str(&format!("c choice {} {name}\n", l.to_dimacs()));
    }
    for (p, l) in &enc.template.props {
        out.push_str(&format!("c property {} {}\n", l.to_dimacs(), p.name(sc)));
    }
    out.push_str(&enc.solver.to_dimacs());
    Ok(out)
}
