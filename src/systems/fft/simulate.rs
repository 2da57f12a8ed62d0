//! The direct simulator: the seed's six-step machine for one SR phase, under a rule
//! [`Variant`], with every free choice (mime targets, reactions, quick-turn actions) asked
//! of a [`Driver`].
//!
//! Invariants: the machine is deterministic given the driver's answers; every line it
//! produces is shown to the driver (`Driver::line`) before the next choice is asked; it
//! never takes more than `bound` quick turns (it halts with [`Halt::Bound`] instead);
//! reactions never become `last_action` and never trigger reactions; mime cycles are never
//! interrupted. This module is the reference the SAT encoding is checked against.

use super::model::{
    ActionId, Body, CharId, Flag, Line, LineKind, QuickChoice, Reaction, Scenario, Variant,
};
use serde::Serialize;

/// The seed's step (rewritten version) that produced a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Step {
    /// Step 1: the initial (slow) action.
    S1 = 1,
    /// Step 2: the initial action's reactions.
    S2 = 2,
    /// Step 3: the first quick turn, before the mime cycle.
    S3 = 3,
    /// Step 4: the mime cycle (mime lines and their reactions).
    S4 = 4,
    /// Step 5: a quick turn after a mime cycle.
    S5 = 5,
}

impl Step {
    /// The step number, 1 to 5.
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// One produced log line with the state it happened under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// The line.
    pub line: Line,
    /// The step that produced it (a reaction carries its action's step).
    pub step: Step,
    /// The quick-safety its step runs under (true = ON): for steps 1 and 4 after the
    /// check at their start, for step 2 after the check at its end, for steps 3 and 5 the
    /// current value.
    pub safety: bool,
    /// Produced during a mime cycle (quick spells are written `mqs`).
    pub in_mime: bool,
}

/// A step transition without a line of its own (the seed's commentary between lines).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "note")]
pub enum Note {
    /// Step 3 skipped: the safety is ON after step 2.
    SkipStep3,
    /// Step 3 runs, but nobody holds a quick flag (naive variant only).
    NoQuickTurn,
    /// A mime cycle starts (step 4, after its check), mimicking `last_action`.
    MimeCycle {
        /// Safety after step 4's check.
        safety: bool,
        /// `last_action` is empty: no mime acts.
        empty: bool,
    },
    /// Step 5 skipped: the safety is ON after the mime cycle.
    SkipStep5,
    /// Step 5 finds no quick flag: on to step 6.
    NoFlags,
    /// Step 6: safety ON; the next slow action, or the end of the phase.
    Step6 {
        /// The next slow action's actor, if any.
        next: Option<CharId>,
    },
}

/// One item of a run's trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trace {
    /// A log line.
    Event(Event),
    /// A transition between lines.
    Note(Note),
}

/// A finished SR phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    /// Lines and transitions, in order.
    pub trace: Vec<Trace>,
    /// Quick flags held when the phase ends, per character.
    pub flags: Vec<Flag>,
    /// The next CR phase's turn order.
    pub next_cr: Vec<CharId>,
    /// Who took each quick turn, in order.
    pub quick_turns: Vec<CharId>,
}

impl Run {
    /// The produced log lines.
    pub fn lines(&self) -> impl Iterator<Item = &Event> {
        self.trace.iter().filter_map(|t| match t {
            Trace::Event(e) => Some(e),
            Trace::Note(_) => None,
        })
    }

    /// The run's outcome (log, flags left, next CR order).
    pub fn outcome(&self) -> Outcome {
        Outcome {
            log: self.lines().map(|e| e.line.clone()).collect(),
            flags: self.flags.clone(),
            next_cr: self.next_cr.clone(),
        }
    }
}

/// What enumeration compares: a distinct log with the flags it leaves and the next CR
/// order. Both engines produce these.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Outcome {
    /// The log lines.
    pub log: Vec<Line>,
    /// Flags left at the end of the phase.
    pub flags: Vec<Flag>,
    /// The next CR order.
    pub next_cr: Vec<CharId>,
}

/// Why a run stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop<E> {
    /// The next quick turn would exceed the bound.
    Bound,
    /// The driver stopped the run.
    Driver(E),
}

/// A run that stopped early, with its trace up to that point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Halt<E> {
    /// Why it stopped.
    pub stop: Stop<E>,
    /// The lines and notes produced before it stopped.
    pub trace: Vec<Trace>,
}

/// Answers the machine's free choices and watches its lines.
pub trait Driver {
    /// Why the driver stops a run.
    type Stop;
    /// Whom mime `mime` hits repeating `action` (sorted targets; empty = miss).
    fn mime(
        &mut self,
        sc: &Scenario,
        mime: CharId,
        action: ActionId,
    ) -> Result<Vec<CharId>, Self::Stop>;
    /// Whether `reactor` (hit by `caster`'s `action`) uses its `reaction`.
    fn reaction(
        &mut self,
        sc: &Scenario,
        reactor: CharId,
        reaction: Reaction,
        caster: CharId,
        action: ActionId,
    ) -> Result<bool, Self::Stop>;
    /// What `who` does on its quick turn (at `step`).
    fn quick_turn(
        &mut self,
        sc: &Scenario,
        who: CharId,
        step: Step,
    ) -> Result<QuickChoice, Self::Stop>;
    /// Sees each line as it is produced (`safety` of step-2 lines is provisional here).
    fn line(&mut self, sc: &Scenario, event: &Event) -> Result<(), Self::Stop>;
    /// Sees the end of the phase.
    fn end(&mut self, _sc: &Scenario, _run: &Run) -> Result<(), Self::Stop> {
        Ok(())
    }
}

/// The next CR phase's order: quick-flagged characters in list order, then characters
/// with CT >= 100 in list order, each at most once.
pub fn next_cr_order(sc: &Scenario, flags: &[Flag]) -> Vec<CharId> {
    let mut order: Vec<CharId> = (0..flags.len()).filter(|&c| flags[c].is_set()).collect();
    order.extend((0..flags.len()).filter(|&c| !flags[c].is_set() && sc.characters[c].ct >= 100));
    order
}

/// Runs the SR phase of `sc` under `variant`, at most `bound` quick turns.
pub fn run<D: Driver>(
    sc: &Scenario,
    variant: Variant,
    bound: usize,
    driver: &mut D,
) -> Result<Run, Halt<D::Stop>> {
    let mut m = Machine {
        sc,
        variant,
        bound,
        driver,
        flags: vec![Flag::N; sc.characters.len()],
        safety: true,
        last: None,
        trace: Vec::new(),
        quick_turns: Vec::new(),
    };
    if let Err(stop) = m.phase() {
        return Err(Halt {
            stop,
            trace: m.trace,
        });
    }
    let next_cr = next_cr_order(sc, &m.flags);
    let run = Run {
        trace: m.trace,
        flags: m.flags,
        next_cr,
        quick_turns: m.quick_turns,
    };
    match m.driver.end(sc, &run) {
        Ok(()) => Ok(run),
        Err(e) => Err(Halt {
            stop: Stop::Driver(e),
            trace: run.trace,
        }),
    }
}

struct Machine<'a, D: Driver> {
    sc: &'a Scenario,
    variant: Variant,
    bound: usize,
    driver: &'a mut D,
    flags: Vec<Flag>,
    safety: bool,
    /// `last_action`: (actor, action kind).
    last: Option<(CharId, ActionId)>,
    trace: Vec<Trace>,
    quick_turns: Vec<CharId>,
}

impl<D: Driver> Machine<'_, D> {
    fn any_flag(&self) -> bool {
        self.flags.iter().any(|f| f.is_set())
    }

    fn first_flagged(&self) -> Option<CharId> {
        self.flags.iter().position(|f| f.is_set())
    }

    /// Steps 3 and 5 run only with the safety OFF, except in the naive variant.
    fn quick_mode(&self) -> bool {
        self.variant == Variant::Naive || !self.safety
    }

    fn note(&mut self, note: Note) {
        self.trace.push(Trace::Note(note));
    }

    fn emit(&mut self, line: Line, step: Step, in_mime: bool) -> Result<(), Stop<D::Stop>> {
        let event = Event {
            line,
            step,
            safety: self.safety,
            in_mime,
        };
        self.driver.line(self.sc, &event).map_err(Stop::Driver)?;
        self.trace.push(Trace::Event(event));
        Ok(())
    }

    fn phase(&mut self) -> Result<(), Stop<D::Stop>> {
        let sc = self.sc;
        for (i, slow) in sc.slow.iter().enumerate() {
            // Step 1 (the phase starts, and step 6 leaves, with the safety ON).
            self.safety = !self.any_flag();
            let targets = slow.targets.clone();
            self.hit(slow.action, &targets, false);
            let line = Line {
                kind: LineKind::Primary,
                who: slow.actor,
                body: Body::Act {
                    action: slow.action,
                    targets: targets.clone(),
                },
            };
            self.emit(line, Step::S1, false)?;
            self.last = Some((slow.actor, slow.action));
            // Step 2.
            let first_reaction = self.trace.len();
            self.react(slow.actor, slow.action, &targets, false, Step::S2)?;
            if self.flags.contains(&Flag::Qs) {
                self.safety = false;
            }
            for t in &mut self.trace[first_reaction..] {
                if let Trace::Event(e) = t {
                    e.safety = self.safety;
                }
            }
            // Step 3.
            if self.quick_mode() {
                let who = match self.variant {
                    Variant::Earlier if self.flags[slow.actor].is_set() => Some(slow.actor),
                    _ => self.first_flagged(),
                };
                match who {
                    Some(who) => self.quick_turn(who, Step::S3)?,
                    None => self.note(Note::NoQuickTurn),
                }
            } else {
                self.note(Note::SkipStep3);
            }
            // Steps 4 and 5.
            loop {
                if self.any_flag() {
                    self.safety = false;
                }
                self.mime_cycle()?;
                if !self.quick_mode() {
                    self.note(Note::SkipStep5);
                    break;
                }
                match self.first_flagged() {
                    Some(who) => self.quick_turn(who, Step::S5)?,
                    None => {
                        self.note(Note::NoFlags);
                        break;
                    }
                }
            }
            // Step 6.
            self.safety = true;
            self.last = None;
            let next = sc.slow.get(i + 1).map(|s| s.actor);
            self.note(Note::Step6 { next });
        }
        Ok(())
    }

    /// A hit: a quick spell gives each target a quick flag.
    fn hit(&mut self, action: ActionId, targets: &[CharId], in_mime: bool) {
        if self.sc.actions[action].quick {
            for &t in targets {
                self.flags[t] = Flag::quick(in_mime);
            }
        }
    }

    /// The targets of `caster`'s `action` react, in list order.
    fn react(
        &mut self,
        caster: CharId,
        action: ActionId,
        targets: &[CharId],
        in_mime: bool,
        step: Step,
    ) -> Result<(), Stop<D::Stop>> {
        let kind = &self.sc.actions[action];
        for &t in targets {
            let Some(reaction) = self.sc.characters[t].reaction else {
                continue;
            };
            let eligible = match reaction {
                Reaction::CounterMagic => kind.spell,
                Reaction::CriticalQuick => kind.damage,
            };
            if !eligible {
                continue;
            }
            let fires = self
                .driver
                .reaction(self.sc, t, reaction, caster, action)
                .map_err(Stop::Driver)?;
            if !fires {
                continue;
            }
            let body = match reaction {
                Reaction::CounterMagic => {
                    self.hit(action, &[caster], in_mime);
                    Body::Act {
                        action,
                        targets: vec![caster],
                    }
                }
                Reaction::CriticalQuick => {
                    let flag = Flag::critical(in_mime);
                    self.flags[t] = flag;
                    Body::Critical(flag)
                }
            };
            let line = Line {
                kind: LineKind::Reaction,
                who: t,
                body,
            };
            self.emit(line, step, in_mime)?;
        }
        Ok(())
    }

    fn quick_turn(&mut self, who: CharId, step: Step) -> Result<(), Stop<D::Stop>> {
        if self.quick_turns.len() >= self.bound {
            return Err(Stop::Bound);
        }
        self.quick_turns.push(who);
        self.flags[who] = Flag::N;
        let choice = self
            .driver
            .quick_turn(self.sc, who, step)
            .map_err(Stop::Driver)?;
        match choice {
            QuickChoice::Wait => {
                let line = Line {
                    kind: LineKind::Primary,
                    who,
                    body: Body::Wait,
                };
                self.emit(line, step, false)
            }
            QuickChoice::Act { action, targets } => {
                self.hit(action, &targets, false);
                let line = Line {
                    kind: LineKind::Primary,
                    who,
                    body: Body::Act {
                        action,
                        targets: targets.clone(),
                    },
                };
                self.emit(line, step, false)?;
                self.last = Some((who, action));
                self.react(who, action, &targets, false, step)
            }
        }
    }

    /// Step 4 after its check: every mime on the team of `last_action`'s actor (not the
    /// actor), in list order, repeats it; then `last_action` is cleared.
    fn mime_cycle(&mut self) -> Result<(), Stop<D::Stop>> {
        let sc = self.sc;
        self.note(Note::MimeCycle {
            safety: self.safety,
            empty: self.last.is_none(),
        });
        if let Some((actor, action)) = self.last.take() {
            let team = sc.characters[actor].team;
            for m in 0..sc.characters.len() {
                let c = &sc.characters[m];
                if !c.mime || c.team != team || m == actor {
                    continue;
                }
                let targets = self.driver.mime(sc, m, action).map_err(Stop::Driver)?;
                self.hit(action, &targets, true);
                let line = Line {
                    kind: LineKind::Mime,
                    who: m,
                    body: Body::Act {
                        action,
                        targets: targets.clone(),
                    },
                };
                self.emit(line, Step::S4, true)?;
                self.react(m, action, &targets, true, Step::S4)?;
            }
        }
        Ok(())
    }
}
