//! Not part of the API: the few engine entry points gordian's own benches
//! (`benches/*.rs`) time that the facade does not offer (one FFT variant enumerated by one
//! engine, a log replayed, one FF8 challenge's distribution, the planner, Foeman's
//! benchmark rounds). Hidden from the documentation; it may change or go away in any
//! release.

use super::{ff8, fft, foeman};
use crate::systems::fft::model::Variant;
use crate::systems::fft::{encode, replay, search};
use crate::systems::spec::Budget;

/// The number of distinct outcomes of `scenario` under the final variant, enumerated by
/// the simulator's search (`sat`: by SAT bounded model checking).
pub fn fft_enumerate_final(scenario: &fft::Scenario, sat: bool) -> usize {
    let (sc, budget) = (scenario.inner.as_ref(), Budget::new());
    let e = if sat {
        encode::enumerate(sc, Variant::Final, &budget)
    } else {
        search::enumerate(sc, Variant::Final, &budget)
    };
    e.expect("no limit").outcomes.len()
}

/// The `seed`-th small random FFT scenario (`gen::small_scenario`: the seed picks the
/// sizes, 3 to 6 characters, menus of 0 to 2 entries, bounds 1 to 4).
pub fn fft_small_scenario(seed: u64) -> fft::Scenario {
    fft::Scenario::from(crate::systems::fft::gen::small_scenario(seed))
}

/// Whether replaying the scenario's log under the final variant confirms it (`None`: no
/// log).
pub fn fft_replay_final(scenario: &fft::Scenario) -> Option<bool> {
    let sc = scenario.inner.as_ref();
    let log = sc.log.as_ref()?;
    Some(replay::replay(sc, log, Variant::Final).explains())
}

/// The number of outcomes of the exact distribution of the scenario's first challenge
/// (`Balamb play`, against a player, when it has none), as `gordian ff8 step` computes it.
pub fn ff8_step(scenario: &ff8::Scenario) -> usize {
    use crate::systems::ff8::model::{Action, Choice, Opponent, Region};
    let sc = scenario.inner.as_ref();
    let first = sc.challenges.first().copied().unwrap_or(Choice {
        region: Region::Balamb,
        opponent: Opponent::Player,
        action: Action::Play,
    });
    crate::systems::ff8::search::distribution(&sc.state, &first).len()
}

/// The planner's maximum probability of the scenario's goal within `horizon` challenges
/// (a decision table of at most 10 rows, a closure of at most 20,000 states), as a
/// fraction.
pub fn ff8_plan(scenario: &ff8::Scenario, horizon: usize) -> String {
    let sc = scenario.inner.as_ref();
    let goal = sc.goal.as_ref().expect("the scenario has a goal");
    let plan = crate::systems::ff8::search::plan(sc, goal, horizon, 10, 20_000, &Budget::new());
    plan.expect("no limit").probability.to_string()
}

/// A Foeman benchmark round: exactly `figures` figures (at most 16) on three sides, tied
/// in pairs on modDX, with fixed plans (`gen::round`; docs/performance.md, Foeman).
pub fn foeman_round(figures: usize, seed: u64) -> foeman::Scenario {
    foeman::Scenario::from(crate::systems::foeman::gen::round(figures, seed))
}
