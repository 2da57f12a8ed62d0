//! The judge: resolves one scenario under one sequence of choices with a dynamic event
//! queue, producing the event tree and the final state ([`Outcome`]).
//!
//! Every event follows the essay's five steps: (1) queue the matching interrupts (and, for
//! damage, the brace prompt) and resolve them; (2) check validity, abort if invalid (with
//! the reason); (3) apply; (4) resolve the events it produces — depth-first, or, for the
//! attacks of an area activation under the breadth-first order, as one batch; (5) queue
//! the matching follow-ups. Under the breadth-first order (the essay's policy) the
//! follow-ups wait in the follow-up queue of the *root* being resolved (the initiating
//! action, a reaction's effect, a brace prompt) and fire, in the order queued, once the
//! root and everything it produced are resolved; under the depth-first order they fire at
//! once. Trigger matching is the model's one matcher ([`Reaction::trigger`]).
//!
//! Invariants: choices are asked for only when they matter (hit/miss when an attack is
//! applied, the damage roll when a damage event is created, an optional reaction when it
//! could fire, brace yes/no when the prompt fires); the choice sequence fully determines
//! the run; the simulator never calls the SAT layer.

use super::model::*;

/// Supplies choices: `choose(n)` returns a value in `0..n`.
pub trait Chooser {
    /// A value in `0..n` (`n >= 2`).
    fn choose(&mut self, n: usize) -> usize;
}

/// Plays a fixed prefix of choices, then zeros, recording every choice point's arity.
#[derive(Clone, Debug, Default)]
pub struct Prefix {
    /// The choices to play first.
    pub prefix: Vec<usize>,
    /// Every choice made: (value, arity).
    pub taken: Vec<(usize, usize)>,
}

impl Chooser for Prefix {
    fn choose(&mut self, n: usize) -> usize {
        let i = self.taken.len();
        let v = self.prefix.get(i).copied().unwrap_or(0).min(n - 1);
        self.taken.push((v, n));
        v
    }
}

/// A live unit's state during a run.
#[derive(Clone, Copy, Debug)]
struct Live {
    hp: u32,
    structure: u32,
    at: Cell,
    destroyed: bool,
    braced: bool,
    resist: bool,
}

/// A created event during the run.
#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    source: UnitId,
    target: UnitId,
    origin: Origin,
    parent: Option<usize>,
    depth: usize,
    /// Damage amount (before reduction) for damage events.
    amount: u32,
    /// Weapon for attacks.
    weapon: Option<usize>,
    /// Destination for moves and teleports.
    to: Option<Cell>,
    /// Targets of an activation.
    targets: Vec<UnitId>,
    /// Set when applied: status, detail, check order.
    status: Option<(Status, Detail, usize)>,
}

/// One run in progress.
struct Run<'a, C: Chooser> {
    sc: &'a Scenario,
    policy: Policy,
    units: Vec<Live>,
    used: Vec<bool>,
    nodes: Vec<Node>,
    checked: usize,
    truncated: bool,
    /// The follow-up queues of the roots being resolved, innermost last: (trigger, reaction).
    pending: Vec<Vec<(usize, usize)>>,
    chooser: &'a mut C,
}

/// Resolves the scenario under `policy` with choices from `chooser`.
pub fn run<C: Chooser>(sc: &Scenario, policy: Policy, chooser: &mut C) -> Outcome {
    let units = sc
        .units
        .iter()
        .map(|u| Live {
            hp: u.hp,
            structure: u.structure,
            at: u.at,
            destroyed: false,
            braced: false,
            resist: false,
        })
        .collect();
    let mut r = Run {
        sc,
        policy,
        units,
        used: vec![false; sc.reactions.len()],
        nodes: Vec::new(),
        checked: 0,
        truncated: false,
        pending: Vec::new(),
        chooser,
    };
    let root = match &sc.action {
        Action::Activate {
            actor,
            weapon,
            targets,
        } => Node {
            kind: Kind::Activate,
            source: *actor,
            target: targets[0],
            origin: Origin::Action,
            parent: None,
            depth: 0,
            amount: 0,
            weapon: Some(*weapon),
            to: None,
            targets: targets.clone(),
            status: None,
        },
        Action::Relocate {
            actor,
            to,
            teleport,
        } => Node {
            kind: if *teleport {
                Kind::Teleport
            } else {
                Kind::Move
            },
            source: *actor,
            target: *actor,
            origin: Origin::Action,
            parent: None,
            depth: 0,
            amount: 0,
            weapon: None,
            to: Some(*to),
            targets: vec![],
            status: None,
        },
    };
    let id = r.add(root);
    r.resolve_root(id);
    r.finish()
}

impl<C: Chooser> Run<'_, C> {
    fn add(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    fn finish(self) -> Outcome {
        let mut order: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.status.expect("every created event is checked").2, i))
            .collect();
        order.sort();
        let mut pos = vec![0; self.nodes.len()];
        for (k, &(_, i)) in order.iter().enumerate() {
            pos[i] = k;
        }
        let events = order
            .iter()
            .map(|&(_, i)| {
                let n = &self.nodes[i];
                let (status, detail, _) = n.status.expect("checked");
                Event {
                    kind: n.kind,
                    source: n.source,
                    target: n.target,
                    origin: n.origin,
                    parent: n.parent.map(|p| pos[p]),
                    status,
                    detail,
                }
            })
            .collect();
        Outcome {
            events,
            units: self
                .units
                .iter()
                .map(|u| UnitState {
                    hp: u.hp,
                    structure: u.structure,
                    at: u.at,
                    destroyed: u.destroyed,
                    braced: u.braced,
                })
                .collect(),
            truncated: self.truncated,
        }
    }

    /// A root event (the initiating action, a reaction's effect, a brace prompt) with its
    /// own follow-up queue: all five steps of it and of everything it produces, then the
    /// queued follow-ups in the order queued (empty under the depth-first order, where
    /// follow-ups fire at once).
    fn resolve_root(&mut self, id: usize) {
        self.pending.push(Vec::new());
        self.resolve(id);
        let q = self.pending.pop().expect("pushed above");
        for (trigger, r) in q {
            self.fire(trigger, r);
        }
    }

    /// All five steps of one event.
    fn resolve(&mut self, id: usize) {
        self.interrupts(id);
        self.check_apply_children(id);
        self.followups(id);
    }

    /// Whether a condition of a trigger holds now on event `id`.
    fn holds(&self, c: Cond, id: usize) -> bool {
        match c {
            Cond::Alive(u) => !self.units[u].destroyed,
            Cond::Adjacent(a, b) => self.units[a].at.adjacent(self.units[b].at),
            Cond::Hit(h) => matches!(
                self.nodes[id].status,
                Some((Status::Done, Detail::Hit(x), _)) if x == h
            ),
        }
    }

    /// Whether the reaction's trigger matches event `id` now (the model's matcher).
    fn matches(&self, r: &Reaction, id: usize, timing: Timing) -> bool {
        let n = &self.nodes[id];
        let shape = EventShape {
            kind: n.kind,
            source: n.source,
            target: n.target,
            targets: &n.targets,
            area: n.kind == Kind::Activate && n.weapon.is_some_and(|w| self.sc.weapons[w].area),
        };
        r.trigger(&shape, timing, &self.sc.units)
            .is_some_and(|conds| conds.into_iter().all(|c| self.holds(c, id)))
    }

    /// The reactions matching event `id` for `timing`, in file order; those beyond the depth
    /// bound are not queued and mark the run truncated.
    fn queue(&mut self, id: usize, timing: Timing) -> Vec<usize> {
        let mut q = Vec::new();
        for (i, r) in self.sc.reactions.iter().enumerate() {
            if self.matches(r, id, timing) {
                if self.nodes[id].depth >= self.sc.depth {
                    self.truncated = true;
                } else {
                    q.push(i);
                }
            }
        }
        q
    }

    /// Step 1: queue the interrupts (and the brace prompt of a damage event), then resolve.
    fn interrupts(&mut self, id: usize) {
        let q = self.queue(id, Timing::Interrupt);
        let brace = self.nodes[id].kind == Kind::Damage && self.brace_prompted(id);
        for r in q {
            self.fire(id, r);
        }
        if brace {
            let n = &self.nodes[id];
            let t = n.target;
            if !self.units[t].destroyed && !self.units[t].braced {
                let b = Node {
                    kind: Kind::Brace,
                    source: t,
                    target: t,
                    origin: Origin::Brace(t),
                    parent: Some(id),
                    depth: n.depth,
                    amount: 0,
                    weapon: None,
                    to: None,
                    targets: vec![],
                    status: None,
                };
                let b = self.add(b);
                self.resolve_root(b);
            }
        }
    }

    /// Whether damage event `id` prompts its target to brace (at queue time).
    fn brace_prompted(&self, id: usize) -> bool {
        let n = &self.nodes[id];
        let u = &self.units[n.target];
        if u.destroyed || u.braced || self.sc.units[n.target].npc {
            return false;
        }
        match self.policy.brace {
            BraceRule::Any => true,
            BraceRule::Structure => {
                let def = &self.sc.units[n.target];
                reduce(n.amount, def.armor, u.resist || def.resistant) >= u.hp
            }
        }
    }

    /// Step 5: queue the follow-ups: in the root's follow-up queue (breadth-first order),
    /// or resolved at once (depth-first). Aborted events have none.
    fn followups(&mut self, id: usize) {
        if !matches!(self.nodes[id].status, Some((Status::Done, _, _))) {
            return;
        }
        let q = self.queue(id, Timing::Followup);
        if self.policy.order == Order::BreadthFirst {
            let top = self.pending.last_mut().expect("inside a root");
            top.extend(q.into_iter().map(|r| (id, r)));
        } else {
            for r in q {
                self.fire(id, r);
            }
        }
    }

    /// A queued reaction fires if its unit is alive, not braced, not spent (once per
    /// round) and, if optional, chosen; its effect is then a new event.
    fn fire(&mut self, trigger: usize, ri: usize) {
        let r = &self.sc.reactions[ri];
        let u = &self.units[r.unit];
        if u.destroyed || u.braced || (r.once && self.used[ri]) {
            return;
        }
        if r.optional && self.chooser.choose(2) == 0 {
            return;
        }
        self.used[ri] = true;
        let t = &self.nodes[trigger];
        let aim = |a: Aim| match a {
            Aim::Source => t.source,
            Aim::Target => t.target,
        };
        let mut n = Node {
            kind: Kind::Attack,
            source: r.unit,
            target: r.unit,
            origin: Origin::Reaction(ri),
            parent: Some(trigger),
            depth: t.depth + 1,
            amount: 0,
            weapon: None,
            to: None,
            targets: vec![],
            status: None,
        };
        match r.effect {
            Effect::Attack { weapon, at } => {
                n.target = aim(at);
                n.weapon = Some(weapon);
            }
            Effect::Damage { amount, at } => {
                n.kind = Kind::Damage;
                n.target = aim(at);
                n.amount = amount;
            }
            Effect::Relocate { to, teleport } => {
                n.kind = if teleport { Kind::Teleport } else { Kind::Move };
                n.to = Some(to);
            }
        }
        let id = self.add(n);
        self.resolve_root(id);
    }

    /// Step 2 (validity) and 3 (apply) of event `id`; records its status.
    fn check_apply(&mut self, id: usize) {
        let n = self.nodes[id].clone();
        let dead = |u: UnitId| self.units[u].destroyed;
        let reason = match n.kind {
            Kind::Structure | Kind::Destroyed => {
                dead(n.target).then_some(AbortReason::TargetDestroyed)
            }
            Kind::Brace => {
                if dead(n.target) {
                    Some(AbortReason::TargetDestroyed)
                } else if self.units[n.target].braced {
                    Some(AbortReason::AlreadyBraced)
                } else {
                    None
                }
            }
            Kind::Move | Kind::Teleport => {
                let to = n.to.expect("relocations have a destination");
                if dead(n.source) {
                    Some(AbortReason::SourceDestroyed)
                } else if self
                    .units
                    .iter()
                    .enumerate()
                    .any(|(v, u)| v != n.source && !u.destroyed && u.at == to)
                {
                    Some(AbortReason::CellTaken)
                } else {
                    None
                }
            }
            Kind::Activate => dead(n.source).then_some(AbortReason::SourceDestroyed),
            _ => {
                if dead(n.source) {
                    Some(AbortReason::SourceDestroyed)
                } else if dead(n.target) {
                    Some(AbortReason::TargetDestroyed)
                } else {
                    None
                }
            }
        };
        let valid = reason.is_none();
        let detail = if let Some(why) = reason {
            Detail::Aborted(why)
        } else {
            match n.kind {
                Kind::Activate | Kind::Structure | Kind::Destroyed => {
                    let t = &mut self.units[n.target];
                    if n.kind == Kind::Structure {
                        t.structure = t.structure.saturating_sub(1);
                        t.hp = if t.structure == 0 {
                            0
                        } else {
                            self.sc.units[n.target].max_hp
                        };
                    } else if n.kind == Kind::Destroyed {
                        t.destroyed = true;
                        t.hp = 0;
                    }
                    Detail::None
                }
                Kind::Attack => Detail::Hit(self.chooser.choose(2) == 1),
                Kind::Brace => {
                    let b = self.chooser.choose(2) == 1;
                    if b {
                        let t = &mut self.units[n.target];
                        t.braced = true;
                        t.resist = true;
                    }
                    Detail::Braced(b)
                }
                Kind::Damage => {
                    let def = &self.sc.units[n.target];
                    let (armor, resistant) = (def.armor, def.resistant);
                    let t = &mut self.units[n.target];
                    let d = reduce(n.amount, armor, t.resist || resistant);
                    t.resist = false;
                    t.hp = t.hp.saturating_sub(d);
                    Detail::Dealt(d)
                }
                Kind::Move | Kind::Teleport => {
                    let to = n.to.expect("destination");
                    self.units[n.source].at = to;
                    Detail::To(to)
                }
            }
        };
        let status = if valid { Status::Done } else { Status::Aborted };
        self.nodes[id].status = Some((status, detail, self.checked));
        self.checked += 1;
    }

    /// The events event `id` produces, depth-first, once it is applied.
    fn children(&mut self, id: usize) -> Vec<usize> {
        let n = self.nodes[id].clone();
        let Some((Status::Done, detail, _)) = n.status else {
            return vec![];
        };
        let child = |kind, source, target| Node {
            kind,
            source,
            target,
            origin: n.origin,
            parent: Some(id),
            depth: n.depth,
            amount: 0,
            weapon: None,
            to: None,
            targets: vec![],
            status: None,
        };
        let mut out = Vec::new();
        match n.kind {
            Kind::Activate => {
                for &t in &n.targets {
                    let mut c = child(Kind::Attack, n.source, t);
                    c.weapon = n.weapon;
                    out.push(c);
                }
            }
            Kind::Attack if detail == Detail::Hit(true) => {
                let w = &self.sc.weapons[n.weapon.expect("attacks have a weapon")];
                let amount = if w.damage.len() == 1 {
                    w.damage[0]
                } else {
                    w.damage[self.chooser.choose(w.damage.len())]
                };
                let mut c = child(Kind::Damage, n.source, n.target);
                c.amount = amount;
                out.push(c);
            }
            Kind::Damage if self.units[n.target].hp == 0 => {
                out.push(child(Kind::Structure, n.target, n.target));
            }
            Kind::Structure if self.units[n.target].structure == 0 => {
                out.push(child(Kind::Destroyed, n.target, n.target));
            }
            _ => {}
        }
        out.into_iter().map(|c| self.add(c)).collect()
    }

    /// Steps 2–4 of event `id`.
    fn check_apply_children(&mut self, id: usize) {
        self.check_apply(id);
        let kids = self.children(id);
        let batch = self.nodes[id].kind == Kind::Activate
            && self.policy.order == Order::BreadthFirst
            && kids.len() > 1;
        if batch {
            for &k in &kids {
                self.interrupts(k);
            }
            for &k in &kids {
                self.check_apply_children(k);
            }
            for &k in &kids {
                self.followups(k);
            }
        } else {
            for k in kids {
                self.resolve(k);
            }
        }
    }
}
