//! Random ?AR nights with knobs a designer can reason about.
//!
//! Invariant: the output is a valid [`Ensemble`] (arity, at most one `deflect` per player,
//! unique ids), and is a pure function of the parameters and the seed.

use crate::systems::ar::night::model::{ActionKind, Effect, Ensemble, Kind, Mods, PassiveKind};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Knobs of the random night generator.
#[derive(Clone, Debug)]
pub struct NightParams {
    /// Number of players.
    pub players: usize,
    /// Number of effects (actions and passives).
    pub effects: usize,
    /// Action kinds to draw from.
    pub kinds: Vec<ActionKind>,
    /// Probability that an effect is a passive.
    pub passive_rate: f64,
    /// Number of distinct priority levels to draw from (0 = the kinds' defaults).
    pub priority_levels: u32,
    /// Largest number of targets of multi-target actions.
    pub max_targets: usize,
}

impl Default for NightParams {
    fn default() -> Self {
        NightParams {
            players: 6,
            effects: 8,
            kinds: vec![
                ActionKind::Visit,
                ActionKind::Block,
                ActionKind::Stop,
                ActionKind::Protect,
                ActionKind::Kill,
            ],
            passive_rate: 0.15,
            priority_levels: 0,
            max_targets: 2,
        }
    }
}

#[cfg(test)]
impl NightParams {
    /// Nights where deflections are frequent (deflect drawn 3 times in 8 kinds), a
    /// quarter of the effects passives: the tests' mix for redirection.
    pub fn deflect_heavy(players: usize, effects: usize) -> NightParams {
        NightParams {
            players,
            effects,
            kinds: vec![
                ActionKind::Deflect,
                ActionKind::Deflect,
                ActionKind::Deflect,
                ActionKind::Block,
                ActionKind::Stop,
                ActionKind::Protect,
                ActionKind::Kill,
                ActionKind::Visit,
            ],
            passive_rate: 0.25,
            max_targets: 2,
            ..NightParams::default()
        }
    }
}

/// A random night drawn from `params` with the given seed.
pub fn night(params: &NightParams, seed: u64) -> Ensemble {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let np = params.players.max(1);
    let players: Vec<String> = (1..=np).map(|i| format!("P{i}")).collect();
    let mut effects = Vec::with_capacity(params.effects);
    let mut has_deflect = vec![false; np];
    let reflexive: Vec<ActionKind> = params
        .kinds
        .iter()
        .copied()
        .filter(|k| k.reflexive_allowed())
        .collect();
    for i in 0..params.effects {
        let actor = rng.gen_range(0..np);
        let passive = rng.gen_bool(params.passive_rate.clamp(0.0, 1.0)) || params.kinds.is_empty();
        let (kind, targets) = if passive {
            let k = match rng.gen_range(0..3) {
                0 => PassiveKind::Bulletproof,
                1 => PassiveKind::Unblockable,
                _ => match reflexive.choose(&mut rng) {
                    Some(&k) => PassiveKind::Reflexive(k),
                    None => PassiveKind::Bulletproof,
                },
            };
            (Kind::Passive(k), Vec::new())
        } else {
            let mut k = *params.kinds.choose(&mut rng).expect("kinds is not empty");
            if k == ActionKind::Deflect && has_deflect[actor] {
                k = ActionKind::Visit;
            }
            if k == ActionKind::Deflect {
                has_deflect[actor] = true;
            }
            let arity = match k.exact_arity() {
                Some(a) => a,
                None => rng.gen_range(1..=params.max_targets.max(1)),
            };
            let targets = (0..arity).map(|_| rng.gen_range(0..np) as u32).collect();
            (Kind::Action(k), targets)
        };
        let priority = if params.priority_levels == 0 {
            kind.default_priority()
        } else {
            rng.gen_range(0..params.priority_levels)
        };
        effects.push(Effect {
            id: format!("e{}", i + 1),
            actor: actor as u32,
            kind,
            mods: Mods::default(),
            targets,
            priority,
            span: None,
        });
    }
    Ensemble {
        players,
        effects,
        alignments: Vec::new(),
    }
}
