//! Exhaustive search of the direct simulator: every choice sequence the menus allow,
//! run through [`simulate::run`], collected as distinct [`Outcome`]s; and property queries
//! over those runs.
//!
//! Invariants: the search visits every choice sequence exactly once (an odometer over the
//! choice points, re-simulating each sequence from the start: the simulator is cheap and
//! this keeps it free of state cloning); a run that would take more than `bound` quick
//! turns is counted as exceeding the bound, never reported as an outcome; the menus are
//! the only source of choices (mime `m`: a miss or one of `menus.mime_menu(m)`; reaction:
//! fires or not; quick turn by `c`: wait or one of `menus.quick_menu(c)`, so a choice
//! point's number of options depends on who acts, which the choices before it fix).

use super::model::{ActionId, CharId, QuickChoice, Reaction, Scenario, Variant};
use super::simulate::{self, Event, Halt, Outcome, Run, Step, Stop};
use crate::odometer::Odometer;
use crate::systems::spec::{Budget, Interrupted};
use serde::Serialize;
use std::collections::BTreeSet;

/// A property a query looks for in a complete run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Property {
    /// Some character still holds a quick flag when the SR phase ends.
    FlagSurvives,
    /// Some character takes two (or more) quick turns in the phase.
    TwoQuickTurns,
    /// A mime cycle in which at least one mime acted ends with the safety OFF.
    MimeCycleEndsOff,
}

impl Property {
    /// Every property.
    pub const ALL: [Property; 3] = [
        Property::FlagSurvives,
        Property::TwoQuickTurns,
        Property::MimeCycleEndsOff,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Property::FlagSurvives => "flag-survives",
            Property::TwoQuickTurns => "two-quick-turns",
            Property::MimeCycleEndsOff => "mime-cycle-ends-off",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Whether a complete run has the property.
    pub(crate) fn holds(self, run: &Run) -> bool {
        match self {
            Property::FlagSurvives => run.flags.iter().any(|f| f.is_set()),
            Property::TwoQuickTurns => {
                let mut seen = BTreeSet::new();
                run.quick_turns.iter().any(|&c| !seen.insert(c))
            }
            Property::MimeCycleEndsOff => {
                // Safety never changes inside a mime cycle: a mime line run under safety
                // OFF is a mime cycle that acted and ends OFF.
                run.lines().any(|e| {
                    e.line.kind == super::model::LineKind::Mime && e.step == Step::S4 && !e.safety
                })
            }
        }
    }
}

/// Every outcome of a scenario under a variant, as found by the simulator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Enumerated {
    /// The distinct outcomes of complete runs.
    pub outcomes: BTreeSet<Outcome>,
    /// Some choice sequence needs more quick turns than the bound.
    pub exceeds_bound: bool,
    /// Choice sequences simulated (complete or not).
    pub runs: usize,
}

/// Answers the simulator's choices from the odometer's current sequence.
struct Chooser<'m> {
    menus: &'m super::model::Menus,
    odometer: Odometer,
}

impl Chooser<'_> {
    fn pick(&mut self, options: usize) -> usize {
        self.odometer.pick(options)
    }
}

impl simulate::Driver for Chooser<'_> {
    type Stop = std::convert::Infallible;

    fn mime(&mut self, _: &Scenario, mime: CharId, _: ActionId) -> Result<Vec<CharId>, Self::Stop> {
        let menus = self.menus;
        let menu = menus.mime_menu(mime);
        let i = self.pick(menu.len() + 1);
        Ok(if i == 0 {
            Vec::new()
        } else {
            menu[i - 1].clone()
        })
    }

    fn reaction(
        &mut self,
        _: &Scenario,
        _: CharId,
        _: Reaction,
        _: CharId,
        _: ActionId,
    ) -> Result<bool, Self::Stop> {
        Ok(self.pick(2) == 1)
    }

    fn quick_turn(
        &mut self,
        _: &Scenario,
        who: CharId,
        _: Step,
    ) -> Result<QuickChoice, Self::Stop> {
        let menus = self.menus;
        let menu = menus.quick_menu(who);
        let i = self.pick(menu.len() + 1);
        Ok(if i == 0 {
            QuickChoice::Wait
        } else {
            menu[i - 1].clone()
        })
    }

    fn line(&mut self, _: &Scenario, _: &Event) -> Result<(), Self::Stop> {
        Ok(())
    }
}

/// Visits every complete run (and notes runs exceeding the bound); `visit` sees each
/// complete run. Polls `budget` between runs.
pub fn for_each_run(
    sc: &Scenario,
    variant: Variant,
    budget: &Budget,
    visit: impl FnMut(&Run),
) -> Result<(bool, usize), Interrupted> {
    for_each_run_upto(sc, variant, budget, usize::MAX, visit)
}

/// [`for_each_run`], stopped (`Interrupted`) once `max_runs` runs (complete or past the
/// bound) were simulated without reaching the last: a bound on the work done, the same
/// on every machine (the tests' reference searches use it instead of a deadline).
pub fn for_each_run_upto(
    sc: &Scenario,
    variant: Variant,
    budget: &Budget,
    max_runs: usize,
    mut visit: impl FnMut(&Run),
) -> Result<(bool, usize), Interrupted> {
    let mut odo = Chooser {
        menus: &sc.menus,
        odometer: Odometer::new(),
    };
    let mut exceeds = false;
    let mut runs = 0;
    loop {
        if runs % 256 == 0 {
            budget.check()?;
        }
        if runs == max_runs {
            return Err(Interrupted);
        }
        odo.odometer.rewind();
        runs += 1;
        match simulate::run(sc, variant, sc.menus.bound, &mut odo) {
            Ok(run) => visit(&run),
            Err(Halt {
                stop: Stop::Bound, ..
            }) => exceeds = true,
            Err(Halt {
                stop: Stop::Driver(never),
                ..
            }) => match never {},
        }
        if !odo.odometer.advance() {
            return Ok((exceeds, runs));
        }
    }
}

/// What the memory meter is charged for one stored outcome (estimated bytes: the
/// outcome, its log lines with a target or two each, a set node; no traversal).
pub fn outcome_bytes(o: &Outcome) -> u64 {
    let line = std::mem::size_of::<super::model::Line>() as u64 + 16;
    (std::mem::size_of::<Outcome>() + 48) as u64
        + line * o.log.len() as u64
        + 8 * (o.flags.len() + o.next_cr.len()) as u64
}

/// Every distinct outcome the menus allow within the bound. Each new outcome is charged
/// to the budget's memory meter ([`outcome_bytes`]); past the bound the search stops.
pub fn enumerate(
    sc: &Scenario,
    variant: Variant,
    budget: &Budget,
) -> Result<Enumerated, Interrupted> {
    let mut outcomes = BTreeSet::new();
    let mut full = false;
    let (exceeds_bound, runs) = for_each_run(sc, variant, budget, |run| {
        let o = run.outcome();
        let bytes = outcome_bytes(&o);
        if outcomes.insert(o) {
            full |= budget.charge("outcomes", bytes).is_err();
        }
    })?;
    if full {
        return Err(Interrupted);
    }
    Ok(Enumerated {
        outcomes,
        exceeds_bound,
        runs,
    })
}

/// A complete run with the property and the shortest log (ties: the first found), or
/// `None` if no run within the bound has it.
pub fn query(
    sc: &Scenario,
    variant: Variant,
    property: Property,
    budget: &Budget,
) -> Result<Option<Run>, Interrupted> {
    let mut best: Option<Run> = None;
    for_each_run(sc, variant, budget, |run| {
        if property.holds(run)
            && best
                .as_ref()
                .is_none_or(|b| run.lines().count() < b.lines().count())
        {
            best = Some(run.clone());
        }
    })?;
    Ok(best)
}
