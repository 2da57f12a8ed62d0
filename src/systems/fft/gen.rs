//! Random FFT scenarios: small character lists with mimes, reactions and slow actions,
//! and small enumeration menus (global, and now and then per character).
//!
//! Invariant: the output satisfies every invariant of a validated
//! [`Scenario`](crate::systems::fft::model::Scenario) (sorted, duplicate-free targets; at
//! most one slow action per character, sorted by list order; names that cannot be read as
//! another name with an `m`/`r` prefix; menus without repeated entries, mime-target
//! overrides only for mimes), and is a pure function of the parameters and the
//! seed.

use crate::systems::fft::model::{
    ActionKind, CharId, Character, Menus, QuickChoice, Reaction, Scenario, SlowAction, MAX_BOUND,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Knobs of the random scenario generator (`gordian fuzz|gen --system fft` sets
/// `characters`, `slow` and `bound` with its flags, `cli/generators.rs`; `Default` is
/// their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioParams {
    /// Number of characters.
    pub characters: usize,
    /// Number of teams (at least 1).
    pub teams: usize,
    /// Probability that a character is a mime.
    pub mime_rate: f64,
    /// Probability that a character has a reaction (critical-quick or counter-magic).
    pub reaction_rate: f64,
    /// Number of slow actions (at most one per character).
    pub slow: usize,
    /// Largest number of targets of an action or menu entry.
    pub max_targets: usize,
    /// Number of mime target sets in the menu.
    pub mime_menu: usize,
    /// Number of quick-turn actions in the menu (besides waiting).
    pub quick_menu: usize,
    /// Probability that a mime gets its own mime-target menu, and (separately) that a
    /// character gets its own quick-turn menu; an override has 0 (only a miss, only wait)
    /// to `max(1, mime_menu)` (`max(1, quick_menu)`) entries.
    pub override_rate: f64,
    /// Bound on quick turns, at most 64 (the largest a scenario may give; a larger value is
    /// taken as 64).
    pub bound: usize,
}

impl Default for ScenarioParams {
    fn default() -> Self {
        ScenarioParams {
            characters: 5,
            teams: 2,
            mime_rate: 0.3,
            reaction_rate: 0.5,
            slow: 2,
            max_targets: 2,
            mime_menu: 1,
            quick_menu: 1,
            override_rate: 0.3,
            bound: 3,
        }
    }
}

fn targets(rng: &mut ChaCha8Rng, n: usize, max: usize, allow_miss: bool) -> Vec<CharId> {
    let k = if allow_miss {
        rng.gen_range(0..=max.min(n))
    } else {
        rng.gen_range(1..=max.clamp(1, n.max(1)))
    };
    let mut all: Vec<CharId> = (0..n).collect();
    all.shuffle(rng);
    let mut t: Vec<CharId> = all.into_iter().take(k).collect();
    t.sort_unstable();
    t
}

/// A random scenario drawn from `params` with the given seed (no log, no expectation).
pub fn scenario(params: &ScenarioParams, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = params.characters.max(1);
    let nteams = params.teams.clamp(1, n);
    let teams: Vec<String> = (1..=nteams).map(|i| format!("t{i}")).collect();
    let characters: Vec<Character> = (0..n)
        .map(|i| Character {
            name: format!("C{}", i + 1),
            team: if i < nteams {
                i
            } else {
                rng.gen_range(0..nteams)
            },
            mime: rng.gen_bool(params.mime_rate.clamp(0.0, 1.0)),
            reaction: if rng.gen_bool(params.reaction_rate.clamp(0.0, 1.0)) {
                Some(if rng.gen_bool(0.5) {
                    Reaction::CriticalQuick
                } else {
                    Reaction::CounterMagic
                })
            } else {
                None
            },
            ct: if rng.gen_bool(0.5) { 100 } else { 50 },
        })
        .collect();
    let actions = ActionKind::builtins();
    // Quick spells are what the turn flow is about: draw them half the time.
    let action = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.5) {
            0
        } else {
            rng.gen_range(0..actions.len())
        }
    };
    let mut actors: Vec<CharId> = (0..n).collect();
    actors.shuffle(&mut rng);
    let mut actors: Vec<CharId> = actors.into_iter().take(params.slow.min(n)).collect();
    actors.sort_unstable();
    let slow = actors
        .into_iter()
        .map(|actor| SlowAction {
            actor,
            action: action(&mut rng),
            targets: targets(&mut rng, n, params.max_targets, true),
        })
        .collect();
    // Menus hold no entry twice (the `Menus` invariant); target sets sorted.
    let mime_list = |rng: &mut ChaCha8Rng, len: usize| {
        let mut sets: Vec<Vec<CharId>> = (0..len)
            .map(|_| targets(rng, n, params.max_targets, false))
            .collect();
        sets.sort();
        sets.dedup();
        sets
    };
    let quick_list = |rng: &mut ChaCha8Rng, len: usize| {
        let mut out: Vec<QuickChoice> = Vec::new();
        for _ in 0..len {
            let q = QuickChoice::Act {
                action: action(rng),
                targets: targets(rng, n, params.max_targets, true),
            };
            if !out.contains(&q) {
                out.push(q);
            }
        }
        out
    };
    let mime_targets = mime_list(&mut rng, params.mime_menu);
    let quick = quick_list(&mut rng, params.quick_menu);
    // Per-character overrides, drawn last (the rest of the scenario does not depend on
    // `override_rate`). An override may be empty (only a miss / only wait).
    let rate = params.override_rate.clamp(0.0, 1.0);
    let mut mime_targets_for = BTreeMap::new();
    let mut quick_for = BTreeMap::new();
    for (c, ch) in characters.iter().enumerate() {
        if ch.mime && rng.gen_bool(rate) {
            let len = rng.gen_range(0..=params.mime_menu.max(1));
            mime_targets_for.insert(c, mime_list(&mut rng, len));
        }
        if rng.gen_bool(rate) {
            let len = rng.gen_range(0..=params.quick_menu.max(1));
            quick_for.insert(c, quick_list(&mut rng, len));
        }
    }
    Scenario {
        teams,
        characters,
        actions,
        slow,
        log: None,
        expect_next_cr: None,
        menus: Menus {
            mime_targets,
            mime_targets_for,
            quick,
            quick_for,
            bound: params.bound.min(MAX_BOUND),
        },
    }
}

/// A small random scenario whose size varies with the seed (for property tests and fuzzing).
pub fn small_scenario(seed: u64) -> Scenario {
    let params = ScenarioParams {
        characters: 3 + (seed % 4) as usize,
        teams: 1 + (seed / 4 % 2) as usize,
        slow: 1 + (seed / 8 % 3) as usize,
        mime_menu: (seed / 24 % 3) as usize,
        quick_menu: (seed / 72 % 3) as usize,
        bound: 1 + (seed / 216 % 4) as usize,
        ..ScenarioParams::default()
    };
    scenario(&params, seed)
}
