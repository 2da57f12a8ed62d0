//! Random ?AR nights with knobs a designer can reason about.
//!
//! Invariant: the output is a valid [`Ensemble`] (arity, at most one `deflect` per player,
//! unique ids), and is a pure function of the parameters and the seed.

use crate::systems::ar::night::model::{
    ActionKind, Effect, Ensemble, Info, Kind, KindSet, Mods, PassiveKind, Trigger,
};
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
    /// Probability that an effect carries a modifier its kind allows (a filter on a
    /// block, stop, protect, jail or reflexive passive, `strongkill`, an information
    /// kind, `deflect X to Y`), that a passive is an `immune` one, and that a reflexive
    /// passive is a `visited:K`. 0 draws exactly what the generator drew before modifiers
    /// existed, seed for seed.
    pub modifier_rate: f64,
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
            modifier_rate: 0.0,
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

#[cfg(test)]
impl NightParams {
    /// Nights that draw every action kind (deflect, jail and commute included), every
    /// passive and every modifier: the tests' mix for the role vocabulary.
    pub fn every_kind(players: usize, effects: usize) -> NightParams {
        NightParams {
            players,
            effects,
            kinds: ActionKind::ALL.to_vec(),
            passive_rate: 0.25,
            max_targets: 2,
            modifier_rate: 0.35,
            ..NightParams::default()
        }
    }
}

/// A random filter: one to three kinds.
fn filter(rng: &mut ChaCha8Rng) -> KindSet {
    let n = rng.gen_range(1..=3);
    KindSet::from_kinds((0..n).map(|_| ActionKind::ALL[rng.gen_range(0..ActionKind::ALL.len())]))
}

/// A random modifier for an effect of `kind`, drawn with probability `rate` (no draw at
/// all when `rate` is 0, so that such nights are those of the generator before
/// modifiers).
fn modifiers(rng: &mut ChaCha8Rng, kind: Kind, rate: f64) -> Mods {
    if rate <= 0.0 || !rng.gen_bool(rate.min(1.0)) {
        return Mods::default();
    }
    let mut m = Mods::default();
    match kind {
        Kind::Action(ActionKind::Kill) => m.pierce = true,
        Kind::Action(ActionKind::Visit) => {
            m.info = Some(Info::ALL[rng.gen_range(0..Info::ALL.len())]);
        }
        k => {
            let f = filter(rng);
            if (Mods { only: Some(f), ..m }).allowed_for(k) {
                m.only = Some(f);
            }
        }
    }
    m
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
            let options = if params.modifier_rate > 0.0 { 4 } else { 3 };
            let k = match rng.gen_range(0..options) {
                3 => PassiveKind::Immune,
                0 => PassiveKind::Bulletproof,
                1 => PassiveKind::Unblockable,
                _ => match reflexive.choose(&mut rng) {
                    // A visit trigger is drawn like a modifier (never at rate 0: such
                    // nights are those of the generator before visit triggers existed).
                    Some(&k) => {
                        let visit = params.modifier_rate > 0.0
                            && rng.gen_bool(params.modifier_rate.min(1.0));
                        let trigger = if visit {
                            Trigger::Visit
                        } else {
                            Trigger::Success
                        };
                        PassiveKind::Reflexive(k, trigger)
                    }
                    None => PassiveKind::Bulletproof,
                },
            };
            (Kind::Passive(k), Vec::new())
        } else {
            let mut k = *params.kinds.choose(&mut rng).expect("kinds is not empty");
            // `deflect X to Y` is drawn like a modifier (never when the rate is 0, so that
            // such nights are those of the generator before it existed).
            let two = k == ActionKind::Deflect
                && params.modifier_rate > 0.0
                && rng.gen_bool(params.modifier_rate.min(1.0));
            if k == ActionKind::Deflect && !two && has_deflect[actor] {
                k = ActionKind::Visit;
            }
            if k == ActionKind::Deflect && !two {
                has_deflect[actor] = true;
            }
            let arity = match k.exact_arity() {
                Some(a) => a,
                None if k == ActionKind::Deflect => 1 + usize::from(two),
                None => rng.gen_range(1..=params.max_targets.max(1)),
            };
            let targets = (0..arity).map(|_| rng.gen_range(0..np) as u32).collect();
            (Kind::Action(k), targets)
        };
        let mut mods = modifiers(&mut rng, kind, params.modifier_rate);
        if kind == Kind::Passive(PassiveKind::Immune) && mods.only.is_none() {
            mods.only = Some(filter(&mut rng));
        }
        let priority = if params.priority_levels == 0 {
            kind.default_priority()
        } else {
            rng.gen_range(0..params.priority_levels)
        };
        effects.push(Effect {
            id: format!("e{}", i + 1),
            actor: actor as u32,
            kind,
            mods,
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
