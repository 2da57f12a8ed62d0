//! Random FFT scenarios: small character lists with mimes, reactions and slow actions,
//! and small enumeration menus.
//!
//! Invariant: the output satisfies every invariant of a validated
//! [`Scenario`](crate::systems::fft::model::Scenario) (sorted, duplicate-free targets; at
//! most one slow action per character, sorted by list order; names that cannot be read as
//! another name with an `m`/`r` prefix), and is a pure function of the parameters and the
//! seed.

use crate::systems::fft::model::{
    ActionKind, CharId, Character, Menus, QuickChoice, Reaction, Scenario, SlowAction,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Knobs of the random scenario generator.
#[derive(Clone, Debug)]
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
    /// Bound on quick turns.
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
    let mut mime_targets: Vec<Vec<CharId>> = (0..params.mime_menu)
        .map(|_| targets(&mut rng, n, params.max_targets, false))
        .collect();
    mime_targets.sort();
    mime_targets.dedup();
    let quick = (0..params.quick_menu)
        .map(|_| QuickChoice::Act {
            action: action(&mut rng),
            targets: targets(&mut rng, n, params.max_targets, true),
        })
        .collect();
    Scenario {
        teams,
        characters,
        actions,
        slow,
        log: None,
        expect_next_cr: None,
        menus: Menus {
            mime_targets,
            quick,
            bound: params.bound,
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
