//! Runs the two FFT engines — the simulator's exhaustive search and the SAT bounded model
//! checker — in parallel and compares them.
//!
//! Invariants: with [`EngineKind::Both`] both engines run to the end (no grace period:
//! the comparison is the point; an engine stopped at the memory bound of its own meter
//! or at the time limit stops alone, and when the other answered, the answer is that
//! engine's, not cross-checked, with the stopped one in `stopped`: see
//! [`settle`](crate::systems::spec::settle)) and any difference in outcomes or in `exceeds_bound` is
//! reported as a disagreement, never resolved silently; a SAT query witness is accepted
//! only if the simulator, replaying its log, reproduces it and the property holds.

use super::encode;
use super::model::{LogLine, Scenario, Variant};
use super::replay::{replay, Replay};
use super::search::{self, Enumerated, Property};
use super::simulate::{Outcome, Run};
use crate::systems::spec::{race_to_end, settle, Budget, Interrupted, Job, Stopped};

/// Which engine(s) answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// Both, in parallel, compared.
    Both,
    /// The simulator's exhaustive search alone.
    Direct,
    /// The SAT encoding alone.
    Sat,
}

/// The answers of the engines that ran.
#[derive(Clone, Debug)]
pub struct Enumeration {
    /// The simulator's answer, if it ran.
    pub direct: Option<Enumerated>,
    /// The SAT engine's answer, if it ran.
    pub sat: Option<Enumerated>,
    /// Engines that ran and were stopped (at a limit) while the other answered.
    pub stopped: Vec<Stopped>,
}

impl Enumeration {
    /// Both ran and differ (in outcomes or in `exceeds_bound`).
    pub fn disagree(&self) -> bool {
        match (&self.direct, &self.sat) {
            (Some(d), Some(s)) => d.outcomes != s.outcomes || d.exceeds_bound != s.exceeds_bound,
            _ => false,
        }
    }

    /// The answer (the simulator's when both ran).
    pub fn answer(&self) -> &Enumerated {
        self.direct
            .as_ref()
            .or(self.sat.as_ref())
            .expect("at least one engine ran")
    }

    /// Outcomes only one engine found: (simulator only, SAT only).
    pub fn differences(&self) -> (Vec<&Outcome>, Vec<&Outcome>) {
        match (&self.direct, &self.sat) {
            (Some(d), Some(s)) => (
                d.outcomes.difference(&s.outcomes).collect(),
                s.outcomes.difference(&d.outcomes).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        }
    }
}

/// Every outcome of `sc` under `variant`, by the chosen engine(s).
pub fn enumerate(
    sc: &Scenario,
    variant: Variant,
    kind: EngineKind,
    budget: &Budget,
) -> Result<Enumeration, Interrupted> {
    let direct = || search::enumerate(sc, variant, budget);
    let sat = || encode::enumerate(sc, variant, budget);
    Ok(match kind {
        EngineKind::Direct => Enumeration {
            direct: Some(direct()?),
            sat: None,
            stopped: Vec::new(),
        },
        EngineKind::Sat => Enumeration {
            direct: None,
            sat: Some(sat()?),
            stopped: Vec::new(),
        },
        EngineKind::Both => {
            type R = Result<Enumerated, Interrupted>;
            let jobs: Vec<Job<R>> = vec![
                Box::new(|b: &Budget| search::enumerate(sc, variant, b)),
                Box::new(|b: &Budget| encode::enumerate(sc, variant, b)),
            ];
            let (answers, stopped) = settle(budget, &["direct", "sat"], race_to_end(budget, jobs))?;
            let mut answers = answers.into_iter();
            Enumeration {
                direct: answers.next().flatten(),
                sat: answers.next().flatten(),
                stopped,
            }
        }
    })
}

/// The answer to a query.
#[derive(Clone, Debug)]
pub struct QueryAnswer {
    /// A witness run (the simulator's shortest, or the SAT witness replayed), or `None`.
    pub witness: Option<Run>,
    /// Both engines ran and agree on whether a witness exists.
    pub cross_checked: bool,
    /// A description of a disagreement or of an invalid SAT witness (a bug).
    pub disagreement: Option<String>,
    /// Engines that ran and were stopped (at a limit) while the other answered.
    pub stopped: Vec<Stopped>,
}

/// Replays a SAT witness through the simulator: the run if it reproduces the outcome.
fn validate(sc: &Scenario, variant: Variant, o: &Outcome) -> Result<Run, String> {
    let log: Vec<LogLine> = o
        .log
        .iter()
        .enumerate()
        .map(|(i, l)| LogLine {
            line_no: i + 1,
            text: sc.line_text(l, false),
            line: l.clone(),
        })
        .collect();
    match replay(sc, &log, variant) {
        Replay::Confirmed { run, .. } if run.outcome() == *o => Ok(run),
        Replay::Confirmed { .. } => Err("the simulator replays the SAT witness's log but \
                                         ends with other flags or another CR order"
            .into()),
        Replay::Diverged(d) => Err(format!(
            "the simulator does not reproduce the SAT witness: {}",
            super::report::divergence_text(&d)
        )),
    }
}

/// A witness of `property` within the bound, by the chosen engine(s).
pub fn query(
    sc: &Scenario,
    variant: Variant,
    property: Property,
    kind: EngineKind,
    budget: &Budget,
) -> Result<QueryAnswer, Interrupted> {
    enum Found {
        Direct(Option<Run>),
        Sat(Option<Outcome>),
    }
    let mut jobs: Vec<Job<Result<Found, Interrupted>>> = Vec::new();
    let mut names = Vec::new();
    if kind != EngineKind::Sat {
        jobs.push(Box::new(|b: &Budget| {
            search::query(sc, variant, property, b).map(Found::Direct)
        }));
        names.push("direct");
    }
    if kind != EngineKind::Direct {
        jobs.push(Box::new(|b: &Budget| {
            encode::query(sc, variant, property, b).map(Found::Sat)
        }));
        names.push("sat");
    }
    let mut direct = None;
    let mut sat = None;
    let (answers, stopped) = settle(budget, &names, race_to_end(budget, jobs))?;
    for found in answers.into_iter().flatten() {
        match found {
            Found::Direct(w) => direct = Some(w),
            Found::Sat(w) => sat = Some(w),
        }
    }
    let mut disagreement = None;
    let sat_run = match sat.as_ref().and_then(|w| w.as_ref()) {
        Some(o) => match validate(sc, variant, o) {
            Ok(run) if property.holds(&run) => Some(run),
            Ok(_) => {
                disagreement = Some("the SAT witness does not have the property".to_string());
                None
            }
            Err(e) => {
                disagreement = Some(e);
                None
            }
        },
        None => None,
    };
    if let (Some(d), Some(s), None) = (&direct, &sat, &disagreement) {
        if d.is_some() != s.is_some() {
            disagreement = Some(format!(
                "the simulator found {} witness, the SAT engine found {}",
                if d.is_some() { "a" } else { "no" },
                if s.is_some() { "one" } else { "none" },
            ));
        }
    }
    let cross_checked = direct.is_some() && sat.is_some() && disagreement.is_none();
    Ok(QueryAnswer {
        witness: direct.flatten().or(sat_run),
        cross_checked,
        disagreement,
        stopped,
    })
}
