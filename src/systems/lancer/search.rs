//! The direct engine: exhaustive search over every choice sequence of the simulator
//! (backtracking by replaying choice prefixes), collecting every distinct outcome; the
//! queries and their shortest witnesses are read off the outcome set.
//!
//! Invariants: every choice sequence the simulator can ask for is visited exactly once
//! (odometer over the recorded arities); the budget is polled once per run; this module
//! never calls the SAT layer.

use super::model::*;
use super::simulate::{run, Chooser};
use crate::odometer::Odometer;
use crate::systems::spec::{Budget, Interrupted};
use serde::Serialize;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// A question about the scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Property {
    /// The unit (index) can end destroyed.
    Destroyed(UnitId),
    /// An event was aborted after an effect charged to its instance had been applied (see
    /// [`aborted_after_effect`]).
    AbortedAfterEffect,
    /// An event of the initiating action was aborted.
    ActionCancelled,
    /// The reaction (index) fires.
    Fires(usize),
}

impl Property {
    /// Whether the outcome has the property.
    pub fn holds(self, sc: &Scenario, o: &Outcome) -> bool {
        match self {
            Property::Destroyed(u) => o.units[u].destroyed,
            Property::AbortedAfterEffect => aborted_after_effect(sc, o),
            Property::ActionCancelled => !Flags::of(sc, o).cancelled.is_empty(),
            Property::Fires(r) => o.events.iter().any(|e| e.origin == Origin::Reaction(r)),
        }
    }

    /// Every property of the scenario: each unit destroyed, the two abort properties, each
    /// reaction fires.
    pub fn all(sc: &Scenario) -> Vec<Property> {
        let mut v: Vec<Property> = (0..sc.units.len()).map(Property::Destroyed).collect();
        v.push(Property::AbortedAfterEffect);
        v.push(Property::ActionCancelled);
        v.extend((0..sc.reactions.len()).map(Property::Fires));
        v
    }

    /// The name (`destroyed:UNIT`, `aborted-after-effect`, `action-cancelled`,
    /// `fires:REACTION`).
    pub fn name(self, sc: &Scenario) -> String {
        match self {
            Property::Destroyed(u) => format!("destroyed:{}", sc.units[u].name),
            Property::AbortedAfterEffect => "aborted-after-effect".into(),
            Property::ActionCancelled => "action-cancelled".into(),
            Property::Fires(r) => format!("fires:{}", sc.reactions[r].name),
        }
    }

    /// Parses a property name against the scenario.
    pub fn parse(s: &str, sc: &Scenario) -> Result<Property, String> {
        match s {
            "aborted-after-effect" => return Ok(Property::AbortedAfterEffect),
            "action-cancelled" => return Ok(Property::ActionCancelled),
            _ => {}
        }
        if let Some(u) = s.strip_prefix("destroyed:") {
            return sc
                .unit(u)
                .map(Property::Destroyed)
                .ok_or_else(|| format!("unknown unit `{u}`"));
        }
        if let Some(r) = s.strip_prefix("fires:") {
            return sc
                .reactions
                .iter()
                .position(|x| x.name == r)
                .map(Property::Fires)
                .ok_or_else(|| format!("unknown reaction `{r}`"));
        }
        Err(format!(
            "unknown property `{s}` (destroyed:UNIT, aborted-after-effect, action-cancelled, fires:REACTION)"
        ))
    }
}

/// Whether event `e` starts an instance: the initiating action (no parent), a brace prompt,
/// or the effect event of one firing of a reaction. A reaction's events are its effect
/// event and what that produces; the effect's kind (attack, damage, move, teleport) is never
/// the kind of an event produced inside the same firing (a firing that attacks produces
/// damage, one that deals damage produces structure), so the kind tells the effect event
/// apart even when a reaction answers its own events.
pub fn starts_instance(sc: &Scenario, e: &Event) -> bool {
    match e.origin {
        Origin::Action => e.parent.is_none(),
        Origin::Brace(_) => true,
        Origin::Reaction(r) => e.kind == sc.reactions[r].effect_kind(),
    }
}

/// For each event: the instance it belongs to (the index of the event that starts it) and
/// the instances its effect is charged to. An instance's effects are its own events' and,
/// through follow-ups, those of everything its applied events caused: a follow-up firing is
/// charged to the instances its trigger is charged to; an interrupt firing or a brace
/// prompt to those of its trigger except the trigger's own instance (it resolves before the
/// trigger applies; the Shrike Armor's damage is not the attack's).
pub fn instances(sc: &Scenario, o: &Outcome) -> Vec<(usize, Vec<usize>)> {
    fn walk(sc: &Scenario, o: &Outcome, i: usize, memo: &mut [Option<(usize, Vec<usize>)>]) {
        if memo[i].is_some() {
            return;
        }
        let e = &o.events[i];
        let v = match e.parent {
            Some(p) if !starts_instance(sc, e) => {
                walk(sc, o, p, memo);
                memo[p].clone().expect("walked")
            }
            Some(p) => {
                walk(sc, o, p, memo);
                let (proot, pblame) = memo[p].clone().expect("walked");
                let followup = matches!(e.origin, Origin::Reaction(r)
                    if sc.reactions[r].timing == Timing::Followup);
                let mut blame = vec![i];
                blame.extend(pblame.into_iter().filter(|&b| followup || b != proot));
                (i, blame)
            }
            None => (i, vec![i]),
        };
        memo[i] = Some(v);
    }
    let mut memo = vec![None; o.events.len()];
    for i in 0..o.events.len() {
        walk(sc, o, i, &mut memo);
    }
    memo.into_iter().map(|m| m.expect("walked")).collect()
}

/// Whether some event aborted after an effect charged to its instance ([`instances`]) had
/// changed the state earlier: the essay's "bad spot" of having applied the damage and the
/// subsequent movement of an attack that is then cancelled. Each firing of a reaction is
/// its own instance.
pub fn aborted_after_effect(sc: &Scenario, o: &Outcome) -> bool {
    !Flags::of(sc, o).aborted_after_effect.is_empty()
}

/// One outcome's abort flags and the events (indices in resolution order) behind them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// The initiating action's events that aborted (none: the action was not cancelled).
    pub cancelled: Vec<usize>,
    /// Each event that aborted after its instance had changed the state, with the earlier
    /// events charged to that instance that changed it (none: no bad spot).
    pub aborted_after_effect: Vec<(usize, Vec<usize>)>,
}

impl Flags {
    /// The flags of outcome `o`.
    pub fn of(sc: &Scenario, o: &Outcome) -> Flags {
        let inst = instances(sc, o);
        // By instance root: the events so far that changed the state on its account.
        let mut applied: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        let mut flags = Flags::default();
        for (i, (e, (root, blame))) in o.events.iter().zip(&inst).enumerate() {
            if e.status == Status::Aborted {
                if e.origin == Origin::Action {
                    flags.cancelled.push(i);
                }
                if let Some(before) = applied.get(root) {
                    flags.aborted_after_effect.push((i, before.clone()));
                }
            }
            if changes_state(e) {
                for &b in blame {
                    applied.entry(b).or_default().push(i);
                }
            }
        }
        flags
    }
}

/// Runs every choice sequence, passing each run's outcome and choices to `visit` until it
/// breaks.
pub fn each_run(
    sc: &Scenario,
    policy: Policy,
    budget: &Budget,
    mut visit: impl FnMut(Outcome, &[usize]) -> ControlFlow<()>,
) -> Result<(), Interrupted> {
    let mut odometer = Odometer::new();
    loop {
        budget.check()?;
        let o = run(sc, policy, &mut Choices(&mut odometer));
        if visit(o, &odometer.choices()).is_break() {
            return Ok(());
        }
        if !odometer.advance() {
            return Ok(());
        }
    }
}

/// The simulator's choices, answered from the odometer's current sequence.
struct Choices<'a>(&'a mut Odometer);

impl Chooser for Choices<'_> {
    fn choose(&mut self, n: usize) -> usize {
        self.0.pick(n)
    }
}

/// What the memory meter is charged for one stored outcome (estimated bytes: the
/// outcome, its events and unit states, a set node).
pub fn outcome_bytes(o: &Outcome) -> u64 {
    (std::mem::size_of::<Outcome>()
        + 48
        + o.events.len() * std::mem::size_of::<super::model::Event>()
        + o.units.len() * std::mem::size_of::<super::model::UnitState>()) as u64
}

/// Every distinct outcome of the scenario under `policy`, sorted. Each new outcome is
/// charged to the budget's memory meter ([`outcome_bytes`]); past the bound the search
/// stops.
pub fn outcomes(
    sc: &Scenario,
    policy: Policy,
    budget: &Budget,
) -> Result<Vec<Outcome>, Interrupted> {
    let mut seen = BTreeSet::new();
    let mut full = false;
    each_run(sc, policy, budget, |o, _| {
        let bytes = outcome_bytes(&o);
        if seen.insert(o) && budget.charge("outcomes", bytes).is_err() {
            full = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })?;
    if full {
        return Err(Interrupted);
    }
    Ok(seen.into_iter().collect())
}

/// A choice sequence (as `resolve --choices` takes it) whose run gives `target`.
pub fn choices_for(
    sc: &Scenario,
    policy: Policy,
    target: &Outcome,
    budget: &Budget,
) -> Result<Option<Vec<usize>>, Interrupted> {
    let mut found = None;
    each_run(sc, policy, budget, |o, ch| {
        if &o == target {
            found = Some(ch.to_vec());
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(found)
}

/// The shortest witness (fewest events, then smallest in outcome order) of `p`, if any.
pub fn shortest<'a>(sc: &Scenario, outcomes: &'a [Outcome], p: Property) -> Option<&'a Outcome> {
    outcomes
        .iter()
        .filter(|o| p.holds(sc, o))
        .min_by_key(|o| o.events.len())
}
