//! SAT bounded model checking of the FFT turn flow: the SR phase's step machine unrolled
//! to the quick-turn bound on one incremental solver, and the decoding of models back into
//! [`Outcome`]s.
//!
//! Owns: the encoding of one scenario under one [`Variant`] (state variables, choice
//! variables, the halting literal), projected enumeration of its runs, the
//! "exceeds the bound" query, property queries, DIMACS export, and decoding (log lines,
//! flags left and next CR order are read from variable values; the simulator is never
//! called).
//!
//! # The unrolling
//!
//! The machine is executed *symbolically*: the encoder walks the simulator's control flow
//! once, keeping the state as literals, and every conditional update becomes a Tseitin
//! gate (`and`, `or`, if-then-else) whose guard is the literal "this happens". State:
//!
//! * a quick flag per character, one-hot over `n, qs, cq, mqs, mcq`;
//! * the quick-safety bit;
//! * `last_action` as an actor one-hot plus an action-kind one-hot (all false: empty);
//! * a unary quick-turn counter `count[k]` = "at least k quick turns so far", `k <= bound`,
//!   kept only up to the most quick turns taken so far (the entries above are constant
//!   false), so the encoding's size follows the quick turns that can happen, never the
//!   bound itself;
//! * `halted`: some point wanted a quick turn while `count[bound]` held (the run needs a
//!   `(bound+1)`-th quick turn). No choice point occurs after halting (the state is
//!   still defined, but never decoded).
//!
//! Per slow action (in `sc.slow` order): step 1 (safety := no flag held; the hit; `last`
//! := the action), step 2 (the targets' reactions; a `qs` flag turns the safety OFF), step
//! 3 (in quick mode, a quick turn by the first flagged character, or in
//! [`Variant::Earlier`] the initial actor if it is flagged), then a chain of `bound + 1`
//! statically allocated *units*. Unit 0 is the first step-4 mime cycle; unit `j > 0` is a
//! step-5 quick turn followed by a mime cycle, present iff unit `j - 1` was present, quick
//! mode holds after its mime cycle, somebody holds a flag and the counter is below the
//! bound. Unit `bound` wanting a successor can only happen with `bound` quick turns taken
//! (units `1..=bound` each took one), so it sets `halted`. Step 6 sets the safety ON and
//! clears `last`. Quick mode is "safety OFF", or always in [`Variant::Naive`].
//!
//! Within one action the updates follow the simulator's order exactly: flag clearing of
//! the quick-turn taker, the hit on every target, then the targets' reactions in list order
//! (a later flag replaces an earlier one). A mime cycle covers every mime of the whole
//! list; mime `m` acts iff its unit is present and `last`'s actor is on `m`'s team and is
//! not `m`; it repeats `last`'s action kind (read from the action one-hot, so reaction
//! eligibility, quick hits and counter-magic recasts are gates on it).
//!
//! Choice variables (the projection): per mime per unit a one-hot over "miss" and that
//! mime's own target menu ([`mime_menu`](super::model::Menus::mime_menu); mimes are fixed
//! per slot); per quick turn a one-hot over "wait" and the *union* of the quick menus
//! ([`quick_menu`](super::model::Menus::quick_menu)) of the characters that can take that
//! turn (the actor is the symbolic one-hot `who`), in order of first appearance along the
//! list, with a clause `option_j -> OR(who_c : c's menu holds entry j)` wherever some
//! possible actor's menu lacks entry j, so the options open to the actual actor are
//! exactly its own menu; per reaction opportunity (an eligible reactor among the targets
//! of one concrete option) a fire bit. A choice variable implies that its choice point
//! occurs, and an occurring point takes exactly one option, so a choice point that does
//! not occur has all its variables false (each distinct run is one projected model).
//! Constant folding (`sat`'s builder: no variable for a gate with a constant or a single
//! input) keeps impossible points out entirely: e.g. with empty quick menus `last_action`
//! is constant empty after a quick turn, so no later mime cycle has variables.
//!
//! Enumeration is projected on the choice variables, with blocking clauses naming only
//! the choice points a run reaches (see `Encoding::for_each_run`), which keeps them short.
//! Sizes (the seed's third example, 8 characters, 4 slow actions, 3 mime target sets, no
//! quick menu): bound 1: 313 variables, 976 clauses; bound 8: 1412 / 4406 (final theory),
//! 1783 / 5562 (naive).
//!
//! # Invariants
//!
//! * Every non-choice variable is a function of the choice variables (full Tseitin
//!   definitions), so projected models under `!halted` are in bijection with the choice
//!   sequences of complete runs of the simulator's search, and each decodes to that run's
//!   outcome. [`enumerate`] therefore reports `runs` = number of complete runs (the
//!   simulator's `runs` also counts sequences cut off by the bound).
//! * A model with `halted` exists iff some choice sequence needs a `(bound+1)`-th quick
//!   turn; all choices after halting are forced false.
//! * Log lines are *slots* created in the simulator's emission order, each with a
//!   "present" literal; alternative options of one choice point are consecutive, and at
//!   most one of them is present, so the present slots of a model, in slot order, are the
//!   run's log.
//! * Temporary constraints (the property of a query, `halted` / `!halted`) are
//!   assumptions, so the queries of one call see the same encoding.

use super::model::{
    ActionId, Body, CharId, Flag, Line, LineKind, QuickChoice, Reaction, Scenario, Variant,
};
use super::search::{Enumerated, Property};
use super::simulate::Outcome;
use crate::sat::{Inputs, Lit, SatResult, Solver, Totalizer};
use crate::systems::spec::{Budget, Charged, Interrupted};
use std::collections::BTreeSet;

/// Index of a flag in the per-character one-hot (the order of [`Flag::ALL`]).
fn fi(f: Flag) -> usize {
    match f {
        Flag::N => 0,
        Flag::Qs => 1,
        Flag::Cq => 2,
        Flag::Mqs => 3,
        Flag::Mcq => 4,
    }
}

/// A character known statically or as a one-hot over the character list (index =
/// [`CharId`]; exactly one literal true wherever the character is read).
#[derive(Clone, Debug)]
enum WhoSym {
    Fixed(CharId),
    Dyn(Vec<Lit>),
}

/// An action kind known statically or as a one-hot over [`Scenario::actions`].
#[derive(Clone, Debug)]
enum ActionSym {
    Fixed(ActionId),
    Dyn(Vec<Lit>),
}

/// The targets of a line: a static list, or the (possibly dynamic) caster of a
/// counter-magicked action.
#[derive(Clone, Debug)]
enum TargetsSym {
    Fixed(Vec<CharId>),
    Caster(WhoSym),
}

/// The body of a line slot.
#[derive(Clone, Debug)]
enum BodySym {
    Wait,
    Act {
        action: ActionSym,
        targets: TargetsSym,
    },
    Critical(Flag),
}

/// A possible log line: it is in the log iff `present` is true.
#[derive(Clone, Debug)]
struct Slot {
    present: Lit,
    kind: LineKind,
    who: WhoSym,
    body: BodySym,
}

/// The machine state at one point of the unrolling, as literals.
#[derive(Clone, Debug)]
struct State {
    /// Per character, one-hot over [`Flag::ALL`].
    flags: Vec<[Lit; 5]>,
    /// Quick-safety (true = ON).
    safety: Lit,
    /// `last_action`'s actor, one-hot or all false (empty).
    last_actor: Vec<Lit>,
    /// `last_action`'s kind, one-hot or all false (empty).
    last_action: Vec<Lit>,
    /// `count[k]`: at least `k` quick turns taken (`count[0]` is constant true); entries
    /// past the end are constant false (at most `bound + 1` entries, one more per quick
    /// turn point).
    count: Vec<Lit>,
    /// The run wanted a quick turn beyond the bound.
    halted: Lit,
}

/// What decoding reads: the line slots, the final flags and the static CTs.
struct Decoder {
    /// Line slots, in the simulator's emission order.
    slots: Vec<Slot>,
    /// The flags when the phase ends.
    final_flags: Vec<[Lit; 5]>,
    /// CT >= 100 per character (static, for the next CR order).
    ct_ready: Vec<bool>,
}

/// The encoding of one scenario under one variant.
struct Encoding {
    solver: Solver,
    /// One-hot option variables of mime and quick-turn choice points, in creation order.
    options: Vec<Lit>,
    /// Reaction fire bits with their occurrence literals `(fire, occurs)`.
    fires: Vec<(Lit, Lit)>,
    /// Decoding of models.
    dec: Decoder,
    /// Some choice point wanted a quick turn beyond the bound.
    halted: Lit,
    /// Per quick-turn point, the one-hot of who takes it (all false if it does not occur).
    quick_turns: Vec<Vec<Lit>>,
    /// Per (unit, mime): the mime acts and the safety is OFF in that mime cycle.
    mime_off: Vec<Lit>,
}

/// The encoder: walks the simulator's control flow symbolically.
struct Builder<'a> {
    sc: &'a Scenario,
    variant: Variant,
    s: Solver,
    st: State,
    options: Vec<Lit>,
    fires: Vec<(Lit, Lit)>,
    slots: Vec<Slot>,
    quick_turns: Vec<Vec<Lit>>,
    mime_off: Vec<Lit>,
}

impl<'a> Builder<'a> {
    fn new(sc: &'a Scenario, variant: Variant) -> Self {
        let s = Solver::new();
        let (t, f) = (s.true_lit(), s.false_lit());
        let n = sc.characters.len();
        let st = State {
            flags: vec![[t, f, f, f, f]; n],
            safety: t,
            last_actor: vec![f; n],
            last_action: vec![f; sc.actions.len()],
            count: vec![t],
            halted: f,
        };
        Builder {
            sc,
            variant,
            s,
            st,
            options: Vec::new(),
            fires: Vec::new(),
            slots: Vec::new(),
            quick_turns: Vec::new(),
            mime_off: Vec::new(),
        }
    }

    fn t(&self) -> Lit {
        self.s.true_lit()
    }

    fn f(&self) -> Lit {
        self.s.false_lit()
    }

    /// A literal equivalent to the conjunction (constants folded, no variable for 0 or 1
    /// remaining inputs).
    fn and(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_and(lits, Inputs::Given)
    }

    /// A literal equivalent to the disjunction (constants folded).
    fn or(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_or(lits, Inputs::Given)
    }

    /// A literal equivalent to `if g then a else b` (constants folded).
    fn ite(&mut self, g: Lit, a: Lit, b: Lit) -> Lit {
        self.s.fold_ite(g, a, b)
    }

    /// If `g`, character `c`'s flag becomes `flag` (replacing any earlier one).
    fn set_flag(&mut self, c: CharId, flag: Flag, g: Lit) {
        if g == self.f() {
            return;
        }
        let old = self.st.flags[c];
        let mut new = old;
        for (x, slot) in new.iter_mut().enumerate() {
            *slot = if x == fi(flag) {
                self.or(&[old[x], g])
            } else {
                self.and(&[old[x], !g])
            };
        }
        self.st.flags[c] = new;
    }

    /// Character `c` holds a quick flag.
    fn flagged(&self, c: CharId) -> Lit {
        !self.st.flags[c][fi(Flag::N)]
    }

    /// Somebody holds a quick flag.
    fn any_flag(&mut self) -> Lit {
        let all: Vec<Lit> = (0..self.sc.characters.len())
            .map(|c| self.flagged(c))
            .collect();
        self.or(&all)
    }

    /// A choice point with `n` options that occurs iff `occ`: fresh one-hot variables
    /// (all false when it does not occur), added to the projection.
    fn choice(&mut self, occ: Lit, n: usize) -> Vec<Lit> {
        if occ == self.f() {
            return vec![self.f(); n];
        }
        let opts: Vec<Lit> = (0..n).map(|_| self.s.new_lit()).collect();
        for &o in &opts {
            self.s.add_clause(&[!o, occ]);
        }
        let mut at_least = vec![!occ];
        at_least.extend(&opts);
        self.s.add_clause(&at_least);
        for i in 0..n {
            for j in i + 1..n {
                self.s.add_clause(&[!opts[i], !opts[j]]);
            }
        }
        self.options.extend(&opts);
        opts
    }

    /// A reaction's fire bit, possible only if `occ` (the reaction is eligible).
    fn fire(&mut self, occ: Lit) -> Lit {
        if occ == self.f() {
            return occ;
        }
        let r = self.s.new_lit();
        self.s.add_clause(&[!r, occ]);
        self.fires.push((r, occ));
        r
    }

    /// Under guard `q`, the first flagged character in `order` (one-hot indexed by
    /// [`CharId`], all false if `q` is false or nobody in `order` is flagged).
    fn first_flagged(&mut self, q: Lit, order: &[CharId]) -> Vec<Lit> {
        let mut who = vec![self.f(); self.sc.characters.len()];
        let mut none_before = q;
        for &c in order {
            let fl = self.flagged(c);
            who[c] = self.and(&[none_before, fl]);
            none_before = self.and(&[none_before, !fl]);
        }
        who
    }

    /// Quick mode (steps 3 and 5 run) under guard `g`.
    fn quick_mode(&mut self, g: Lit) -> Lit {
        match self.variant {
            Variant::Naive => g,
            Variant::Final | Variant::Earlier => {
                let off = !self.st.safety;
                self.and(&[g, off])
            }
        }
    }

    /// `want`: a quick turn is due, by the one-hot `who` (which implies `want`). Halts if
    /// the bound is reached; otherwise the quick turn happens. Returns the literal "the
    /// quick turn happens".
    fn quick_turn(&mut self, want: Lit, who: Vec<Lit>) -> Lit {
        let bound = self.sc.menus.bound;
        let full = self.st.count.get(bound).copied().unwrap_or(self.f());
        let over = self.and(&[want, full]);
        self.st.halted = self.or(&[self.st.halted, over]);
        let q = self.and(&[want, !full]);
        if q == self.f() {
            return q;
        }
        let who: Vec<Lit> = who.iter().map(|&w| self.and(&[w, q])).collect();
        self.quick_turns.push(who.clone());
        // One more entry (this turn may be one more than any before), up to the bound.
        if self.st.count.len() <= bound {
            let f = self.f();
            self.st.count.push(f);
        }
        for k in (1..self.st.count.len()).rev() {
            let step = self.and(&[q, self.st.count[k - 1]]);
            self.st.count[k] = self.or(&[self.st.count[k], step]);
        }
        for (c, &w) in who.iter().enumerate() {
            self.set_flag(c, Flag::N, w);
        }
        // The options: the union of the possible actors' menus; entry j only for an actor
        // whose own menu holds it.
        let f = self.f();
        let sc = self.sc;
        let menus = &sc.menus;
        let able: Vec<CharId> = (0..who.len()).filter(|&c| who[c] != f).collect();
        let mut menu: Vec<QuickChoice> = Vec::new();
        for &c in &able {
            for e in menus.quick_menu(c) {
                if !menu.contains(e) {
                    menu.push(e.clone());
                }
            }
        }
        let opts = self.choice(q, menu.len() + 1);
        for (j, entry) in menu.iter().enumerate() {
            let holders: Vec<Lit> = able
                .iter()
                .filter(|&&c| menus.quick_menu(c).contains(entry))
                .map(|&c| who[c])
                .collect();
            if holders.len() < able.len() {
                let mut clause = vec![!opts[j + 1]];
                clause.extend(holders);
                self.s.add_clause(&clause);
            }
        }
        let who_sym = WhoSym::Dyn(who.clone());
        // `last_action` := the action, if the character acts.
        let mut acts = Vec::new();
        let mut by_kind = vec![Vec::new(); self.sc.actions.len()];
        for (j, entry) in menu.iter().enumerate() {
            if let QuickChoice::Act { action, .. } = entry {
                acts.push(opts[j + 1]);
                by_kind[*action].push(opts[j + 1]);
            }
        }
        let acted = self.or(&acts);
        for (c, &w) in who.iter().enumerate() {
            self.st.last_actor[c] = self.ite(acted, w, self.st.last_actor[c]);
        }
        for (k, lits) in by_kind.iter().enumerate() {
            let is_k = self.or(lits);
            self.st.last_action[k] = self.ite(acted, is_k, self.st.last_action[k]);
        }
        self.slots.push(Slot {
            present: opts[0],
            kind: LineKind::Primary,
            who: who_sym.clone(),
            body: BodySym::Wait,
        });
        for (j, entry) in menu.iter().enumerate() {
            let g = opts[j + 1];
            match entry {
                QuickChoice::Wait => self.slots.push(Slot {
                    present: g,
                    kind: LineKind::Primary,
                    who: who_sym.clone(),
                    body: BodySym::Wait,
                }),
                QuickChoice::Act { action, targets } => {
                    let action = *action;
                    if self.sc.actions[action].quick {
                        for &tg in targets {
                            self.set_flag(tg, Flag::Qs, g);
                        }
                    }
                    self.slots.push(Slot {
                        present: g,
                        kind: LineKind::Primary,
                        who: who_sym.clone(),
                        body: BodySym::Act {
                            action: ActionSym::Fixed(action),
                            targets: TargetsSym::Fixed(targets.clone()),
                        },
                    });
                    self.react(&who_sym, &ActionSym::Fixed(action), targets, false, g);
                }
            }
        }
        q
    }

    /// The kind properties (quick, spell, damage) of an action symbol, as literals.
    fn kind_lits(&mut self, action: &ActionSym) -> [Lit; 3] {
        let props = |k: &super::model::ActionKind| [k.quick, k.spell, k.damage];
        match action {
            ActionSym::Fixed(a) => {
                let p = props(&self.sc.actions[*a]);
                p.map(|b| if b { self.t() } else { self.f() })
            }
            ActionSym::Dyn(one_hot) => {
                let mut out = [self.f(); 3];
                for (i, slot) in out.iter_mut().enumerate() {
                    let lits: Vec<Lit> = one_hot
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| props(&self.sc.actions[k])[i])
                        .map(|(_, &l)| l)
                        .collect();
                    *slot = self.or(&lits);
                }
                out
            }
        }
    }

    /// The targets of `caster`'s `action` (which happened iff `g`) react, in list order.
    fn react(
        &mut self,
        caster: &WhoSym,
        action: &ActionSym,
        targets: &[CharId],
        in_mime: bool,
        g: Lit,
    ) {
        let [quick, spell, damage] = self.kind_lits(action);
        for &tg in targets {
            let Some(reaction) = self.sc.characters[tg].reaction else {
                continue;
            };
            match reaction {
                Reaction::CounterMagic => {
                    let occ = self.and(&[g, spell]);
                    let r = self.fire(occ);
                    let hit = self.and(&[r, quick]);
                    let flag = Flag::quick(in_mime);
                    match caster {
                        WhoSym::Fixed(c) => self.set_flag(*c, flag, hit),
                        WhoSym::Dyn(w) => {
                            for (c, &wc) in w.iter().enumerate() {
                                let h = self.and(&[hit, wc]);
                                self.set_flag(c, flag, h);
                            }
                        }
                    }
                    self.slots.push(Slot {
                        present: r,
                        kind: LineKind::Reaction,
                        who: WhoSym::Fixed(tg),
                        body: BodySym::Act {
                            action: action.clone(),
                            targets: TargetsSym::Caster(caster.clone()),
                        },
                    });
                }
                Reaction::CriticalQuick => {
                    let occ = self.and(&[g, damage]);
                    let r = self.fire(occ);
                    let flag = Flag::critical(in_mime);
                    self.set_flag(tg, flag, r);
                    self.slots.push(Slot {
                        present: r,
                        kind: LineKind::Reaction,
                        who: WhoSym::Fixed(tg),
                        body: BodySym::Critical(flag),
                    });
                }
            }
        }
    }

    /// Step 4 after its check, in a unit present iff `present`: the mime cycle over
    /// `last_action`, which is then cleared.
    fn mime_cycle(&mut self, present: Lit) {
        let sc = self.sc;
        let action = ActionSym::Dyn(self.st.last_action.clone());
        let [quick, _, _] = self.kind_lits(&action);
        let off = !self.st.safety;
        for m in 0..sc.characters.len() {
            let cm = &sc.characters[m];
            if !cm.mime {
                continue;
            }
            let teammates: Vec<Lit> = (0..sc.characters.len())
                .filter(|&c| c != m && sc.characters[c].team == cm.team)
                .map(|c| self.st.last_actor[c])
                .collect();
            let by_team = self.or(&teammates);
            let acts = self.and(&[present, by_team]);
            if acts == self.f() {
                continue;
            }
            let mo = self.and(&[acts, off]);
            self.mime_off.push(mo);
            let menu = sc.menus.mime_menu(m);
            let opts = self.choice(acts, menu.len() + 1);
            self.slots.push(Slot {
                present: opts[0],
                kind: LineKind::Mime,
                who: WhoSym::Fixed(m),
                body: BodySym::Act {
                    action: action.clone(),
                    targets: TargetsSym::Fixed(Vec::new()),
                },
            });
            for (j, targets) in menu.iter().enumerate() {
                let g = opts[j + 1];
                let hit = self.and(&[g, quick]);
                for &tg in targets {
                    self.set_flag(tg, Flag::Mqs, hit);
                }
                self.slots.push(Slot {
                    present: g,
                    kind: LineKind::Mime,
                    who: WhoSym::Fixed(m),
                    body: BodySym::Act {
                        action: action.clone(),
                        targets: TargetsSym::Fixed(targets.clone()),
                    },
                });
                self.react(&WhoSym::Fixed(m), &action, targets, true, g);
            }
        }
        let f = self.f();
        self.st.last_actor.iter_mut().for_each(|l| *l = f);
        self.st.last_action.iter_mut().for_each(|l| *l = f);
    }

    /// The whole SR phase; the encoding's growth is charged to `clauses` after each
    /// unit of steps 4 and 5 (past the memory bound: `Interrupted`).
    fn phase(&mut self, clauses: &mut Charged) -> Result<(), Interrupted> {
        let sc = self.sc;
        let bound = sc.menus.bound;
        for slow in &sc.slow {
            let alive = !self.st.halted;
            // Step 1 (the phase starts, and step 6 leaves, with the safety ON).
            let any = self.any_flag();
            self.st.safety = !any;
            if sc.actions[slow.action].quick {
                for &tg in &slow.targets {
                    self.set_flag(tg, Flag::Qs, alive);
                }
            }
            self.slots.push(Slot {
                present: alive,
                kind: LineKind::Primary,
                who: WhoSym::Fixed(slow.actor),
                body: BodySym::Act {
                    action: ActionSym::Fixed(slow.action),
                    targets: TargetsSym::Fixed(slow.targets.clone()),
                },
            });
            let f = self.f();
            self.st.last_actor.iter_mut().for_each(|l| *l = f);
            self.st.last_action.iter_mut().for_each(|l| *l = f);
            self.st.last_actor[slow.actor] = alive;
            self.st.last_action[slow.action] = alive;
            // Step 2.
            let action = ActionSym::Fixed(slow.action);
            self.react(
                &WhoSym::Fixed(slow.actor),
                &action,
                &slow.targets,
                false,
                alive,
            );
            let qs: Vec<Lit> = self.st.flags.iter().map(|f| f[fi(Flag::Qs)]).collect();
            let any_qs = self.or(&qs);
            self.st.safety = self.and(&[self.st.safety, !any_qs]);
            // Step 3.
            let qm = self.quick_mode(alive);
            let order: Vec<CharId> = match self.variant {
                Variant::Earlier => std::iter::once(slow.actor)
                    .chain((0..sc.characters.len()).filter(|&c| c != slow.actor))
                    .collect(),
                Variant::Final | Variant::Naive => (0..sc.characters.len()).collect(),
            };
            let who = self.first_flagged(qm, &order);
            let want = self.or(&who);
            self.quick_turn(want, who);
            // Steps 4 and 5: units 0..=bound.
            let mut present = !self.st.halted;
            for unit in 0..=bound {
                if unit > 0 {
                    let qm = self.quick_mode(present);
                    let order: Vec<CharId> = (0..sc.characters.len()).collect();
                    let who = self.first_flagged(qm, &order);
                    let want = self.or(&who);
                    present = self.quick_turn(want, who);
                }
                clauses.grow_to(self.s.approx_bytes())?;
                if present == self.f() {
                    break;
                }
                let any = self.any_flag();
                let on = self.and(&[present, any]);
                self.st.safety = self.and(&[self.st.safety, !on]);
                self.mime_cycle(present);
                if unit == bound {
                    // A successor unit would be quick turn number bound + 1.
                    let qm = self.quick_mode(present);
                    let any = self.any_flag();
                    let want = self.and(&[qm, any]);
                    self.st.halted = self.or(&[self.st.halted, want]);
                }
            }
            // Step 6.
            self.st.safety = self.t();
            let f = self.f();
            self.st.last_actor.iter_mut().for_each(|l| *l = f);
            self.st.last_action.iter_mut().for_each(|l| *l = f);
        }
        clauses.grow_to(self.s.approx_bytes())
    }

    fn finish(self) -> Encoding {
        Encoding {
            dec: Decoder {
                ct_ready: self.sc.characters.iter().map(|c| c.ct >= 100).collect(),
                final_flags: self.st.flags,
                slots: self.slots,
            },
            halted: self.st.halted,
            solver: self.s,
            options: self.options,
            fires: self.fires,
            quick_turns: self.quick_turns,
            mime_off: self.mime_off,
        }
    }
}

impl Decoder {
    /// The outcome of a model, given the value of any literal decoding reads.
    fn decode(&self, val: &dyn Fn(Lit) -> bool) -> Outcome {
        let one_hot = |v: &[Lit], what: &str| -> usize {
            v.iter()
                .position(|&l| val(l))
                .unwrap_or_else(|| panic!("encoding invariant: no {what} in a present line"))
        };
        let who = |w: &WhoSym| match w {
            WhoSym::Fixed(c) => *c,
            WhoSym::Dyn(v) => one_hot(v, "actor"),
        };
        let mut log = Vec::new();
        for slot in self.slots.iter().filter(|s| val(s.present)) {
            let body = match &slot.body {
                BodySym::Wait => Body::Wait,
                BodySym::Critical(f) => Body::Critical(*f),
                BodySym::Act { action, targets } => Body::Act {
                    action: match action {
                        ActionSym::Fixed(a) => *a,
                        ActionSym::Dyn(v) => one_hot(v, "action"),
                    },
                    targets: match targets {
                        TargetsSym::Fixed(t) => t.clone(),
                        TargetsSym::Caster(c) => vec![who(c)],
                    },
                },
            };
            log.push(Line {
                kind: slot.kind,
                who: who(&slot.who),
                body,
            });
        }
        let flags: Vec<Flag> = self
            .final_flags
            .iter()
            .map(|f| Flag::ALL[one_hot(f, "flag")])
            .collect();
        // The next CR order: flagged characters in list order, then CT >= 100.
        let mut next_cr: Vec<CharId> = (0..flags.len()).filter(|&c| flags[c].is_set()).collect();
        next_cr.extend((0..flags.len()).filter(|&c| !flags[c].is_set() && self.ct_ready[c]));
        Outcome {
            log,
            flags,
            next_cr,
        }
    }
}

impl Encoding {
    /// Encodes `sc` under `variant`, charging the clauses to `clauses` as they grow.
    fn new(
        sc: &Scenario,
        variant: Variant,
        clauses: &mut Charged,
    ) -> Result<Encoding, Interrupted> {
        let mut b = Builder::new(sc, variant);
        b.phase(clauses)?;
        Ok(b.finish())
    }

    /// Every choice variable: the options, then the fire bits.
    fn choices(&self) -> impl Iterator<Item = Lit> + '_ {
        self.options
            .iter()
            .copied()
            .chain(self.fires.iter().map(|&(r, _)| r))
    }

    /// Calls `visit` with the outcome of every model under `assumptions` that differs in
    /// its choices from all earlier ones (each choice sequence once); returns how many.
    ///
    /// The blocking clause of a model only names the choice points that occur in it: its
    /// true options, its fired reactions, and its reactions that occur but do not fire.
    /// A model satisfying all of those makes the same choice at every point the blocked
    /// run reached, so (by induction along the run) it is that run. Blocking clauses carry
    /// a fresh activation literal that is retired (a unit clause `!a`) on every exit, as
    /// in [`crate::sat::enumerate_projected`].
    fn for_each_run(
        &mut self,
        assumptions: &[Lit],
        budget: &Budget,
        clauses: &mut Charged,
        mut visit: impl FnMut(Outcome),
    ) -> Result<usize, Interrupted> {
        let activation = self.solver.new_lit();
        let mut active = assumptions.to_vec();
        active.push(activation);
        let mut models = 0;
        let result = loop {
            if let Err(e) = budget.check() {
                break Err(e);
            }
            match self.solve(&active) {
                Ok(true) => {}
                Ok(false) => break Ok(models),
                Err(e) => break Err(e),
            }
            models += 1;
            visit(self.decode_model());
            let s = &self.solver;
            let mut blocking = vec![!activation];
            blocking.extend(self.options.iter().filter(|&&o| s.value(o)).map(|&o| !o));
            for &(r, occ) in &self.fires {
                if s.value(r) {
                    blocking.push(!r);
                } else if s.value(occ) {
                    blocking.push(r);
                }
            }
            self.solver.add_clause(&blocking);
            if let Err(e) = clauses.grow_to(self.solver.approx_bytes()) {
                break Err(e);
            }
        };
        self.solver.add_clause(&[!activation]);
        result
    }

    /// Solves under `assumptions`, mapping a cancelled solve to [`Interrupted`].
    fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, Interrupted> {
        match self.solver.solve(assumptions) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => Err(Interrupted),
        }
    }

    /// The outcome of the solver's current model.
    fn decode_model(&self) -> Outcome {
        let s = &self.solver;
        self.dec.decode(&|l| s.value(l))
    }

    /// A literal that holds iff the (complete) run has `property`.
    fn property(&mut self, property: Property) -> Lit {
        let s = &mut self.solver;
        let or = |s: &mut Solver, lits: &[Lit]| s.or(lits);
        match property {
            Property::FlagSurvives => {
                let flagged: Vec<Lit> = self.dec.final_flags.iter().map(|f| !f[0]).collect();
                or(s, &flagged)
            }
            Property::TwoQuickTurns => {
                let n = self.dec.final_flags.len();
                let mut twice = Vec::new();
                for c in 0..n {
                    let (mut seen, mut two) = (s.false_lit(), s.false_lit());
                    for w in &self.quick_turns {
                        let again = s.and(&[seen, w[c]]);
                        two = s.or(&[two, again]);
                        seen = s.or(&[seen, w[c]]);
                    }
                    twice.push(two);
                }
                or(s, &twice)
            }
            Property::MimeCycleEndsOff => {
                let lits = self.mime_off.clone();
                or(s, &lits)
            }
        }
    }
}

/// Every distinct outcome the menus allow within the bound, found by enumerating the
/// encoding's models without halting projected on the choice variables; `exceeds_bound` by
/// one more query on the same encoding (a model that halts: some choice sequence needs a
/// `(bound+1)`-th quick turn). `runs` is the number of projected models, i.e. the choice
/// sequences of complete runs (the simulator's search also counts sequences cut off by the
/// bound, so its `runs` is at least this).
pub fn enumerate(
    sc: &Scenario,
    variant: Variant,
    budget: &Budget,
) -> Result<Enumerated, Interrupted> {
    budget.check()?;
    let mut clauses = Charged::new(budget, "SAT clauses");
    let mut enc = Encoding::new(sc, variant, &mut clauses)?;
    enc.solver.set_interrupt(budget.flag());
    let mut outcomes = BTreeSet::new();
    let halted = enc.halted;
    let mut full = false;
    let runs = enc.for_each_run(&[!halted], budget, &mut clauses, |o| {
        let bytes = super::search::outcome_bytes(&o);
        if outcomes.insert(o) {
            full |= budget.charge("outcomes", bytes).is_err();
        }
    })?;
    if full {
        return Err(Interrupted);
    }
    let exceeds_bound = enc.solve(&[halted])?;
    Ok(Enumerated {
        outcomes,
        exceeds_bound,
        runs,
    })
}

/// A witness outcome of a complete run within the bound having `property` (see
/// [`Property::holds`]), or `None` if there is none. The witness has the shortest log of
/// all such runs (like [`search::query`](super::search::query)'s; ties are broken by the
/// solver): after a first witness of `L` lines, a totalizer over the line slots capped at
/// `L` tightens "at most `L - 1` lines" until unsatisfiable.
pub fn query(
    sc: &Scenario,
    variant: Variant,
    property: Property,
    budget: &Budget,
) -> Result<Option<Outcome>, Interrupted> {
    budget.check()?;
    let mut clauses = Charged::new(budget, "SAT clauses");
    let mut enc = Encoding::new(sc, variant, &mut clauses)?;
    enc.solver.set_interrupt(budget.flag());
    let p = enc.property(property);
    let halted = enc.halted;
    if !enc.solve(&[!halted, p])? {
        return Ok(None);
    }
    let mut best = enc.decode_model();
    let f = enc.solver.false_lit();
    let lines: Vec<Lit> = enc
        .dec
        .slots
        .iter()
        .map(|s| s.present)
        .filter(|&l| l != f)
        .collect();
    let count = Totalizer::new(&mut enc.solver, &lines, best.log.len());
    clauses.grow_to(enc.solver.approx_bytes())?;
    while let Some(k) = best.log.len().checked_sub(1) {
        budget.check()?;
        let Ok(Some(shorter)) = count.at_most(k) else {
            // `k < L <= lines.len()` and the cap is `L`: always expressible.
            break;
        };
        if !enc.solve(&[!halted, p, shorter])? {
            break;
        }
        best = enc.decode_model();
    }
    Ok(Some(best))
}

/// The encoding of `sc` under `variant` in DIMACS CNF, preceded by comment lines naming
/// the halting literal (assume its negation for complete runs) and the choice variables
/// (the projection of [`enumerate`]). The clauses are charged to `budget`'s memory meter.
pub fn dimacs(sc: &Scenario, variant: Variant, budget: &Budget) -> Result<String, Interrupted> {
    let mut clauses = Charged::new(budget, "SAT clauses");
    let enc = Encoding::new(sc, variant, &mut clauses)?;
    let mut out = format!(
        "c gordian fft turn flow, variant {variant}, bound {}\nc halted {}\nc choices",
        sc.menus.bound,
        enc.halted.to_dimacs()
    );
    for l in enc.choices() {
        out.push_str(&format!(" {}", l.to_dimacs()));
    }
    out.push('\n');
    out.push_str(&enc.solver.to_dimacs());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::fft::model::{ActionKind, Character, Menus, SlowAction};
    use crate::systems::fft::search;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::time::Instant;

    /// A scenario with the builtin actions, no log and no expectation.
    fn scenario(
        chars: &[(&str, usize, bool, Option<Reaction>, u32)],
        teams: usize,
        slow: Vec<SlowAction>,
        menus: Menus,
    ) -> Scenario {
        Scenario {
            teams: (0..teams).map(|t| format!("t{t}")).collect(),
            characters: chars
                .iter()
                .map(|&(name, team, mime, reaction, ct)| Character {
                    name: name.to_string(),
                    team,
                    mime,
                    reaction,
                    ct,
                })
                .collect(),
            actions: ActionKind::builtins(),
            slow,
            log: None,
            expect_next_cr: None,
            menus,
        }
    }

    /// The seed's third example ("a real example"): AGR, RAM, MEL and REI cast quick spells
    /// that miss.
    fn seed_example_3(bound: usize) -> Scenario {
        use Reaction::{CounterMagic as Cm, CriticalQuick as Cq};
        let chars = [
            ("AGR", 0, false, Some(Cq), 50),
            ("RAM", 0, false, Some(Cm), 50),
            ("RAD", 0, true, None, 50),
            ("ALI", 0, true, None, 50),
            ("RAF", 1, false, Some(Cm), 50),
            ("MEL", 1, false, Some(Cq), 50),
            ("LAV", 1, true, None, 120),
            ("REI", 1, false, Some(Cq), 50),
        ];
        let slow = [0, 1, 5, 7]
            .into_iter()
            .map(|actor| SlowAction {
                actor,
                action: 0,
                targets: Vec::new(),
            })
            .collect();
        let menus = Menus {
            mime_targets: vec![vec![7], vec![0], vec![4]],
            quick: Vec::new(),
            bound,
            ..Menus::default()
        };
        scenario(&chars, 2, slow, menus)
    }

    /// What the simulator's search finds for one variant: every outcome of a complete run,
    /// those of runs with each property, the complete runs, and `exceeds_bound`.
    struct Reference {
        all: BTreeSet<Outcome>,
        with: Vec<BTreeSet<Outcome>>,
        complete: usize,
        exceeds: bool,
    }

    /// `None` when the search needs more than `max_sim` simulated runs.
    fn reference(sc: &Scenario, variant: Variant, max_sim: usize) -> Option<Reference> {
        let mut r = Reference {
            all: BTreeSet::new(),
            with: vec![BTreeSet::new(); Property::ALL.len()],
            complete: 0,
            exceeds: false,
        };
        let budget = Budget::new();
        let (exceeds, _) = search::for_each_run_upto(sc, variant, &budget, max_sim, |run| {
            r.complete += 1;
            r.all.insert(run.outcome());
            for (i, p) in Property::ALL.iter().enumerate() {
                if p.holds(run) {
                    r.with[i].insert(run.outcome());
                }
            }
        })
        .ok()?;
        r.exceeds = exceeds;
        Some(r)
    }

    /// Most complete runs per variant of a random scenario that is checked (SAT
    /// enumeration costs about 0.1 ms per run).
    const MAX_RUNS: usize = 3000;

    /// Most runs (complete or past the bound) the simulator's search of one variant of a
    /// random scenario may simulate for the scenario to be checked: a count, so which
    /// scenarios are checked never depends on the machine's speed or load.
    const MAX_SIM_RUNS: usize = 20_000;

    /// Compares the SAT engine with the simulator's search on every variant and property;
    /// returns the number of complete runs, or `None` (nothing checked) if the simulator's
    /// search of some variant simulates more than `max_sim` runs or has more than
    /// `max_runs` complete runs.
    fn check(sc: &Scenario, max_sim: usize, max_runs: usize) -> Option<usize> {
        let refs: Vec<Reference> = Variant::ALL
            .into_iter()
            .map(|v| reference(sc, v, max_sim))
            .collect::<Option<_>>()?;
        if refs.iter().any(|r| r.complete > max_runs) {
            return None;
        }
        let budget = Budget::new();
        let mut sat_runs = 0;
        for (variant, r) in Variant::ALL.into_iter().zip(refs) {
            let sat = enumerate(sc, variant, &budget).unwrap();
            assert_eq!(
                sat.exceeds_bound, r.exceeds,
                "exceeds_bound, {variant}: {sc:#?}"
            );
            if sat.outcomes != r.all {
                let missing: Vec<_> = r.all.difference(&sat.outcomes).take(2).collect();
                let extra: Vec<_> = sat.outcomes.difference(&r.all).take(2).collect();
                panic!("{variant}: missing {missing:#?}\nextra {extra:#?}\n{sc:#?}");
            }
            assert_eq!(sat.runs, r.complete, "complete runs, {variant}: {sc:#?}");
            sat_runs += sat.runs;
            for (i, p) in Property::ALL.into_iter().enumerate() {
                let witness = query(sc, variant, p, &budget).unwrap();
                let sim_q = search::query(sc, variant, p, &budget).unwrap();
                assert_eq!(sim_q.is_some(), !r.with[i].is_empty());
                assert_eq!(
                    witness.is_some(),
                    sim_q.is_some(),
                    "{variant} {p:?}: {sc:#?}"
                );
                if let (Some(w), Some(run)) = (witness, sim_q) {
                    assert!(r.with[i].contains(&w), "{variant} {p:?} witness {w:#?}");
                    assert_eq!(w.log.len(), run.lines().count(), "shortest witness");
                }
            }
        }
        Some(sat_runs)
    }

    #[test]
    fn seed_example_3_all_variants() {
        for bound in 0..=3 {
            check(&seed_example_3(bound), usize::MAX, usize::MAX).expect("no limit");
        }
    }

    #[test]
    fn seed_example_3_log_is_an_outcome() {
        // The log takes five quick turns.
        let sc = seed_example_3(5);
        let (agr, ram, rad, ali, raf, mel, lav, rei) = (0, 1, 2, 3, 4, 5, 6, 7);
        let act = |kind, who, targets: Vec<CharId>| Line {
            kind,
            who,
            body: Body::Act { action: 0, targets },
        };
        let wait = |who| Line {
            kind: LineKind::Primary,
            who,
            body: Body::Wait,
        };
        use LineKind::{Mime as M, Primary as P, Reaction as R};
        let log = vec![
            act(P, agr, vec![]),
            act(M, rad, vec![rei]),
            act(M, ali, vec![]),
            act(P, ram, vec![]),
            wait(rei),
            act(M, rad, vec![]),
            act(M, ali, vec![agr]),
            wait(agr),
            act(P, mel, vec![]),
            act(M, lav, vec![raf]),
            act(R, raf, vec![lav]),
            act(P, rei, vec![]),
            wait(raf),
            act(M, lav, vec![raf]),
            act(R, raf, vec![lav]),
            wait(raf),
            wait(lav),
        ];
        let want = Outcome {
            log,
            flags: vec![Flag::N; 8],
            next_cr: vec![lav],
        };
        let sat = enumerate(&sc, Variant::Final, &Budget::new()).unwrap();
        assert!(sat.outcomes.contains(&want));
        // Other mime choices need more quick turns (the simulator agrees: see the
        // comparison tests).
        assert!(sat.exceeds_bound);
        // Without the safety, REI's mqs flag from the first mime cycle gives REI a quick
        // turn before RAM's slow action.
        let naive = enumerate(&sc, Variant::Naive, &Budget::new()).unwrap();
        assert!(!naive.outcomes.contains(&want));
    }

    /// A random small scenario: 3-6 characters, 1-2 teams, random mimes, reactions and
    /// CT, 1-3 slow actions, menus of 0-2 mime target sets and 0-2 quick entries, bound 0-4;
    /// each mime (each character) has its own mime-target (quick) menu with probability 0.3.
    fn random_scenario(seed: u64) -> Scenario {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = rng.gen_range(3..=6);
        let teams = rng.gen_range(1..=2);
        let subset = |rng: &mut ChaCha8Rng, min: usize| {
            let k = rng.gen_range(min..=2);
            let mut all: Vec<CharId> = (0..n).collect();
            all.shuffle(rng);
            let mut t: Vec<CharId> = all.into_iter().take(k).collect();
            t.sort_unstable();
            t
        };
        let mut chars: Vec<(String, usize, bool, Option<Reaction>, u32)> = (0..n)
            .map(|i| {
                let reaction = match rng.gen_range(0..4) {
                    0 => Some(Reaction::CriticalQuick),
                    1 => Some(Reaction::CounterMagic),
                    _ => None,
                };
                let team = if i < teams {
                    i
                } else {
                    rng.gen_range(0..teams)
                };
                let ct = [50, 100, 130][rng.gen_range(0..3)];
                (format!("C{i}"), team, rng.gen_bool(0.35), reaction, ct)
            })
            .collect();
        // At most two mimes: mime cycles multiply the choice sequences.
        let mut mimes = 0;
        for c in chars.iter_mut() {
            c.2 &= mimes < 2;
            mimes += usize::from(c.2);
        }
        let action = |rng: &mut ChaCha8Rng| {
            if rng.gen_bool(0.5) {
                0
            } else {
                rng.gen_range(0..4)
            }
        };
        let mut actors: Vec<CharId> = (0..n).collect();
        actors.shuffle(&mut rng);
        actors.truncate(rng.gen_range(1..=3));
        actors.sort_unstable();
        let slow = actors
            .into_iter()
            .map(|actor| SlowAction {
                actor,
                action: action(&mut rng),
                targets: subset(&mut rng, 0),
            })
            .collect();
        // Menus hold no entry twice (the `Menus` invariant).
        let mime_list = |rng: &mut ChaCha8Rng| {
            let mut out: Vec<Vec<CharId>> = Vec::new();
            for _ in 0..rng.gen_range(0..=2) {
                let t = subset(rng, 1);
                if !out.contains(&t) {
                    out.push(t);
                }
            }
            out
        };
        let quick_list = |rng: &mut ChaCha8Rng| {
            let mut out: Vec<QuickChoice> = Vec::new();
            for _ in 0..rng.gen_range(0..=2) {
                let q = if rng.gen_bool(0.1) {
                    QuickChoice::Wait
                } else {
                    QuickChoice::Act {
                        action: action(rng),
                        targets: subset(rng, 0),
                    }
                };
                if !out.contains(&q) {
                    out.push(q);
                }
            }
            out
        };
        let mut menus = Menus {
            mime_targets: mime_list(&mut rng),
            quick: quick_list(&mut rng),
            bound: rng.gen_range(0..=4),
            ..Menus::default()
        };
        // Per-character overrides, now and then.
        for (c, ch) in chars.iter().enumerate() {
            if ch.2 && rng.gen_bool(0.3) {
                menus.mime_targets_for.insert(c, mime_list(&mut rng));
            }
            if rng.gen_bool(0.3) {
                menus.quick_for.insert(c, quick_list(&mut rng));
            }
        }
        let chars: Vec<(&str, usize, bool, Option<Reaction>, u32)> = chars
            .iter()
            .map(|(s, t, m, r, c)| (s.as_str(), *t, *m, *r, *c))
            .collect();
        scenario(&chars, teams, slow, menus)
    }

    #[test]
    fn random_scenarios_agree_with_the_simulator() {
        let start = Instant::now();
        let (mut runs, mut checked) = (0, 0);
        let cases = 300;
        for seed in 0..cases {
            let t0 = Instant::now();
            let r = check(&random_scenario(seed), MAX_SIM_RUNS, MAX_RUNS);
            if let Some(r) = r {
                runs += r;
                checked += 1;
            }
            if std::env::var("FFT_TRACE").is_ok() {
                eprintln!("seed {seed}: {r:?} runs, {:?}", t0.elapsed());
            }
        }
        eprintln!(
            "{checked} of {cases} random scenarios checked, {runs} complete runs, {:?}",
            start.elapsed()
        );
        assert!(
            checked * 10 >= cases * 9,
            "too many scenarios skipped: {checked}"
        );
    }

    /// The unary counter holds an entry per quick turn encoded so far, never one per unit
    /// of the bound: where no quick turn can happen (the seed's first example: nobody
    /// holds a quick flag, so the safety stays ON) the encoding at the largest bound is
    /// the one at 8 (only the header names the bound). Where turns can chain without end
    /// the encoding grows unit by unit, each charged to the memory meter: under a small
    /// meter it stops with a limit on its clauses instead of growing on.
    #[test]
    fn the_encoding_grows_with_the_units_encoded_and_is_charged_as_it_grows() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/fft");
        let load = |name: &str| crate::systems::fft::parse::load(&dir.join(name)).unwrap();
        let max = crate::systems::fft::model::MAX_BOUND;
        let body = |t: String| t.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
        let mut sc = load("seed-1-mimes-skip.fft");
        sc.menus.bound = 8;
        let at8 = dimacs(&sc, Variant::Final, &Budget::new()).unwrap();
        sc.menus.bound = max;
        let at_max = dimacs(&sc, Variant::Final, &Budget::new()).unwrap();
        assert_eq!(body(at8), body(at_max));
        // The endless chain: 928 clauses at bound 8 fit in 256 KiB, the 18,008 at the
        // largest bound do not.
        let mut chain = load("quick-turn-redefines-last-action.fft");
        chain.menus.bound = 8;
        assert!(dimacs(&chain, Variant::Final, &Budget::with_max_memory(256 << 10)).is_ok());
        chain.menus.bound = max;
        let small = Budget::with_max_memory(256 << 10);
        assert_eq!(dimacs(&chain, Variant::Final, &small), Err(Interrupted));
        assert_eq!(small.limit_hit().map(|h| h.what), Some("SAT clauses"));
    }

    #[test]
    fn dimacs_header_and_interrupt() {
        let sc = seed_example_3(2);
        let text = dimacs(&sc, Variant::Final, &Budget::new()).unwrap();
        assert!(text.starts_with("c gordian fft"));
        assert!(text.lines().any(|l| l.starts_with("p cnf ")));
        let budget = Budget::new();
        budget.cancel();
        assert_eq!(enumerate(&sc, Variant::Final, &budget), Err(Interrupted));
        assert_eq!(
            query(&sc, Variant::Final, Property::FlagSurvives, &budget),
            Err(Interrupted)
        );
    }
}
