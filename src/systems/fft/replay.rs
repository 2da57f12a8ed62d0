//! Replay: feeds a log's choices (mime hits, reactions, quick-turn actions) through the
//! simulator and checks that the model produces exactly the log, naming the first line
//! where it does not and what the model expected there.
//!
//! Invariants: choices are read from the log only at the model's own choice points, so a
//! confirmed log is one the model produces line for line; a reaction the log does not
//! show is a reaction that did not fire; the verdict is a value, never an error.

use super::model::{
    ActionId, Body, CharId, LineKind, LogLine, QuickChoice, Reaction, Scenario, Variant,
};
use super::simulate::{self, Event, Halt, Run, Step, Stop, Trace};
use serde::Serialize;

/// Where and how the model and a log part ways.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// Index into the log of the first line that differs (`== log.len()` when the log
    /// ends before the model does).
    pub index: usize,
    /// Source line number of that log line, if there is one.
    pub line_no: Option<usize>,
    /// The log's text there, if any.
    pub found: Option<String>,
    /// What the model expected there (a line in the seed's notation, a description, or
    /// "the end of the phase").
    pub expected: String,
    /// The model's trace up to the divergence.
    pub trace: Vec<Trace>,
}

/// The verdict of one replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "verdict")]
pub enum Replay {
    /// The model produces exactly the log.
    Confirmed {
        /// The run (lines with step and safety, notes, flags left, next CR order).
        run: Run,
        /// Whether the predicted next CR order matches the scenario's expectation
        /// (`None` if the scenario gives none).
        next_cr_matches: Option<bool>,
    },
    /// The model parts ways with the log.
    Diverged(Divergence),
}

impl Replay {
    /// The log is confirmed and the next CR order (if expected) matches.
    pub fn explains(&self) -> bool {
        matches!(
            self,
            Replay::Confirmed {
                next_cr_matches: None | Some(true),
                ..
            }
        )
    }
}

struct Follow<'l> {
    log: &'l [LogLine],
    pos: usize,
}

/// What the model wanted at a choice point, for a divergence message.
struct Want(String);

impl Follow<'_> {
    fn peek(&self) -> Option<&LogLine> {
        self.log.get(self.pos)
    }
}

impl simulate::Driver for Follow<'_> {
    type Stop = Want;

    fn mime(&mut self, sc: &Scenario, mime: CharId, action: ActionId) -> Result<Vec<CharId>, Want> {
        match self.peek() {
            Some(l) if l.line.kind == LineKind::Mime && l.line.who == mime => match &l.line.body {
                Body::Act { targets, .. } => Ok(targets.clone()),
                _ => Err(Want(format!(
                    "m{} - {} - TARGETS|miss (mime cycle)",
                    sc.characters[mime].name, sc.actions[action].name
                ))),
            },
            _ => Err(Want(format!(
                "m{} - {} - TARGETS|miss (mime cycle)",
                sc.characters[mime].name,
                mime_action_name(sc, action)
            ))),
        }
    }

    fn reaction(
        &mut self,
        _: &Scenario,
        reactor: CharId,
        _: Reaction,
        _: CharId,
        _: ActionId,
    ) -> Result<bool, Want> {
        Ok(self
            .peek()
            .is_some_and(|l| l.line.kind == LineKind::Reaction && l.line.who == reactor))
    }

    fn quick_turn(&mut self, sc: &Scenario, who: CharId, step: Step) -> Result<QuickChoice, Want> {
        match self.peek() {
            Some(l) if l.line.kind == LineKind::Primary && l.line.who == who => {
                match &l.line.body {
                    Body::Wait => Ok(QuickChoice::Wait),
                    Body::Act { action, targets } => Ok(QuickChoice::Act {
                        action: *action,
                        targets: targets.clone(),
                    }),
                    Body::Critical(_) => Err(Want(quick_want(sc, who, step))),
                }
            }
            _ => Err(Want(quick_want(sc, who, step))),
        }
    }

    fn line(&mut self, sc: &Scenario, event: &Event) -> Result<(), Want> {
        match self.peek() {
            Some(l) if l.line == event.line => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(Want(format!(
                "{} (step {})",
                sc.line_text(&event.line, event.in_mime),
                event.step.number()
            ))),
        }
    }

    fn end(&mut self, _: &Scenario, _: &Run) -> Result<(), Want> {
        if self.pos < self.log.len() {
            Err(Want("the end of the SR phase".to_string()))
        } else {
            Ok(())
        }
    }
}

fn mime_action_name(sc: &Scenario, action: ActionId) -> &str {
    if sc.actions[action].quick {
        "mqs"
    } else {
        &sc.actions[action].name
    }
}

fn quick_want(sc: &Scenario, who: CharId, step: Step) -> String {
    format!(
        "a quick turn for {} (step {}): {} - wait|ACTION - TARGETS",
        sc.characters[who].name,
        step.number(),
        sc.characters[who].name
    )
}

/// Replays `log` through the model of `sc` under `variant`.
pub fn replay(sc: &Scenario, log: &[LogLine], variant: Variant) -> Replay {
    let mut follow = Follow { log, pos: 0 };
    // Each quick turn consumes a log line, so the log's length bounds the quick turns.
    match simulate::run(sc, variant, log.len() + 1, &mut follow) {
        Ok(run) => {
            let next_cr_matches = sc.expect_next_cr.as_ref().map(|e| e.matches(&run.next_cr));
            Replay::Confirmed {
                run,
                next_cr_matches,
            }
        }
        Err(Halt { stop, trace }) => {
            let expected = match stop {
                Stop::Driver(Want(expected)) => expected,
                Stop::Bound => "another quick turn (more than the log has lines)".to_string(),
            };
            let index = follow.pos;
            let here = log.get(index);
            Replay::Diverged(Divergence {
                index,
                line_no: here.map(|l| l.line_no),
                found: here.map(|l| l.text.clone()),
                expected,
                trace,
            })
        }
    }
}
