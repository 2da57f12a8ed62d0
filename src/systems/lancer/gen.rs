//! Random scenarios for fuzzing and benchmarks, and the shrinker's simplifications.
//!
//! Invariants: [`generate`] is a pure function of its arguments and the seed and always
//! returns a valid scenario (the invariants of `model`); every scenario returned by
//! [`simplifications`] is valid and strictly smaller by [`size`].

use super::model::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator's knobs (`gordian fuzz|gen --system lancer` sets them with its
/// `--lancer-*` flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenArgs {
    /// Most units in a random scenario (2..=5; other values are clamped).
    pub units: u8,
    /// Most reactions in a random scenario.
    pub reactions: u8,
    /// Largest reaction nesting bound in a random scenario, at most 6 (the largest a
    /// scenario may give; a larger value is taken as 6).
    pub depth: u8,
}

impl Default for GenArgs {
    fn default() -> Self {
        GenArgs {
            units: 3,
            reactions: 3,
            depth: 2,
        }
    }
}

fn cell(rng: &mut ChaCha8Rng) -> Cell {
    Cell {
        x: rng.gen_range(0..4),
        y: rng.gen_range(0..3),
    }
}

/// A random valid scenario.
pub fn generate(args: &GenArgs, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.gen_range(2..=args.units.clamp(2, 5) as usize);
    let mut cells: Vec<Cell> = (0..4u8)
        .flat_map(|x| (0..3u8).map(move |y| Cell { x, y }))
        .collect();
    cells.shuffle(&mut rng);
    let units: Vec<Unit> = (0..n)
        .map(|i| {
            let side = if i == 0 || rng.gen_bool(0.3) {
                "a"
            } else {
                "b"
            }
            .to_string();
            let max_hp = rng.gen_range(1..=5);
            // Some units start damaged.
            let hp = if rng.gen_bool(0.25) {
                rng.gen_range(1..=max_hp)
            } else {
                max_hp
            };
            Unit {
                name: format!("U{i}"),
                side,
                hp,
                max_hp,
                structure: rng.gen_range(1..=2),
                armor: if rng.gen_bool(0.25) { 1 } else { 0 },
                at: cells[i],
                npc: rng.gen_bool(0.4),
                resistant: rng.gen_bool(0.15),
            }
        })
        .collect();
    let mut weapons = Vec::new();
    for i in 0..3 {
        let mut damage = vec![rng.gen_range(1..=4)];
        if rng.gen_bool(0.4) {
            let d = rng.gen_range(1..=5);
            if !damage.contains(&d) {
                damage.push(d);
            }
        }
        damage.sort();
        weapons.push(Weapon {
            name: format!("W{i}"),
            damage,
            area: i == 0,
        });
    }
    let mut reactions = Vec::new();
    let k = rng.gen_range(0..=args.reactions as usize);
    const KINDS: [Kind; 11] = [
        Kind::Attack,
        Kind::Attack,
        Kind::Attack,
        Kind::Damage,
        Kind::Damage,
        Kind::Activate,
        Kind::Structure,
        Kind::Destroyed,
        Kind::Move,
        Kind::Teleport,
        Kind::Brace,
    ];
    for i in 0..k {
        let on = *KINDS.choose(&mut rng).expect("non-empty");
        let role = if on == Kind::Activate && rng.gen_bool(0.3) {
            Role::Area
        } else {
            *[
                Role::Target,
                Role::Target,
                Role::Source,
                Role::Adjacent,
                Role::Any,
            ]
            .choose(&mut rng)
            .expect("non-empty")
        };
        let timing = if rng.gen_bool(0.5) {
            Timing::Interrupt
        } else {
            Timing::Followup
        };
        let hit = (on == Kind::Attack && timing == Timing::Followup && rng.gen_bool(0.5))
            .then(|| rng.gen_bool(0.8));
        let at = if rng.gen_bool(0.8) {
            Aim::Source
        } else {
            Aim::Target
        };
        let effect = match rng.gen_range(0..6) {
            0..=2 => Effect::Attack {
                weapon: rng.gen_range(1..3),
                at,
            },
            3 | 4 => Effect::Damage {
                amount: rng.gen_range(1..=2),
                at,
            },
            _ => Effect::Relocate {
                to: cell(&mut rng),
                teleport: rng.gen_bool(0.5),
            },
        };
        reactions.push(Reaction {
            name: format!("R{i}"),
            unit: rng.gen_range(0..n),
            on,
            role,
            hit,
            from_adjacent: rng.gen_bool(0.25),
            foe: rng.gen_bool(0.3),
            timing,
            effect,
            optional: rng.gen_bool(0.4),
            once: rng.gen_bool(0.6),
        });
    }
    let action = if rng.gen_bool(0.12) {
        Action::Relocate {
            actor: 0,
            to: cell(&mut rng),
            teleport: rng.gen_bool(0.5),
        }
    } else if rng.gen_bool(0.6) {
        let mut t: Vec<UnitId> = (1..n).collect();
        t.shuffle(&mut rng);
        t.truncate(rng.gen_range(1..=n - 1));
        Action::Activate {
            actor: 0,
            weapon: 0,
            targets: t,
        }
    } else {
        Action::Activate {
            actor: 0,
            weapon: rng.gen_range(1..3),
            targets: vec![rng.gen_range(1..n)],
        }
    };
    Scenario {
        units,
        weapons,
        reactions,
        action,
        policy: Policy::ALL[rng.gen_range(0..4)],
        depth: rng.gen_range(0..=(args.depth as usize).min(super::model::MAX_DEPTH)),
    }
}

/// The shrinker's measure.
pub fn size(sc: &Scenario) -> usize {
    let stats: u32 = sc
        .units
        .iter()
        .map(|u| u.hp + u.max_hp + u.structure + u.armor + u.resistant as u32)
        .sum();
    let dmg: usize = sc
        .weapons
        .iter()
        .map(|w| w.damage.len() + w.area as usize)
        .sum();
    let targets = match &sc.action {
        Action::Activate { targets, .. } => targets.len(),
        Action::Relocate { .. } => 0,
    };
    sc.units.len() * 20
        + sc.weapons.len() * 10
        + sc.reactions.len() * 20
        + stats as usize
        + dmg
        + targets
        + sc.depth
}

/// The scenario without unit `u` (which must not be the actor or a target).
fn drop_unit(sc: &Scenario, u: UnitId) -> Scenario {
    let map = |x: UnitId| if x > u { x - 1 } else { x };
    let mut s = sc.clone();
    s.units.remove(u);
    s.reactions.retain(|r| r.unit != u);
    for r in &mut s.reactions {
        r.unit = map(r.unit);
    }
    s.action = match &sc.action {
        Action::Activate {
            actor,
            weapon,
            targets,
        } => Action::Activate {
            actor: map(*actor),
            weapon: *weapon,
            targets: targets.iter().map(|&t| map(t)).collect(),
        },
        Action::Relocate {
            actor,
            to,
            teleport,
        } => Action::Relocate {
            actor: map(*actor),
            to: *to,
            teleport: *teleport,
        },
    };
    s
}

fn weapon_used(sc: &Scenario, w: usize) -> bool {
    matches!(sc.action, Action::Activate { weapon, .. } if weapon == w)
        || sc
            .reactions
            .iter()
            .any(|r| matches!(r.effect, Effect::Attack { weapon, .. } if weapon == w))
}

/// Valid, strictly smaller variants of the scenario.
pub fn simplifications(sc: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    for i in 0..sc.reactions.len() {
        let mut s = sc.clone();
        s.reactions.remove(i);
        out.push(s);
    }
    let (actor, targets) = match &sc.action {
        Action::Activate { actor, targets, .. } => (*actor, targets.clone()),
        Action::Relocate { actor, .. } => (*actor, vec![]),
    };
    for u in 0..sc.units.len() {
        if u != actor && !targets.contains(&u) {
            out.push(drop_unit(sc, u));
        }
    }
    if let Action::Activate {
        actor,
        weapon,
        targets,
    } = &sc.action
    {
        if targets.len() > 1 {
            for i in 0..targets.len() {
                let mut s = sc.clone();
                let mut t = targets.clone();
                t.remove(i);
                s.action = Action::Activate {
                    actor: *actor,
                    weapon: *weapon,
                    targets: t,
                };
                out.push(s);
            }
        }
    }
    for w in (0..sc.weapons.len()).rev() {
        if !weapon_used(sc, w) {
            let mut s = sc.clone();
            s.weapons.remove(w);
            let map = |x: usize| if x > w { x - 1 } else { x };
            if let Action::Activate { weapon, .. } = &mut s.action {
                *weapon = map(*weapon);
            }
            for r in &mut s.reactions {
                if let Effect::Attack { weapon, .. } = &mut r.effect {
                    *weapon = map(*weapon);
                }
            }
            out.push(s);
        }
        for d in 0..sc.weapons[w].damage.len() {
            if sc.weapons[w].damage.len() > 1 {
                let mut s = sc.clone();
                s.weapons[w].damage.remove(d);
                out.push(s);
            }
        }
    }
    if sc.depth > 0 {
        let mut s = sc.clone();
        s.depth -= 1;
        out.push(s);
    }
    for u in 0..sc.units.len() {
        let unit = &sc.units[u];
        if unit.hp > 1 {
            let mut s = sc.clone();
            s.units[u].hp -= 1;
            out.push(s);
        }
        if unit.max_hp > unit.hp {
            let mut s = sc.clone();
            s.units[u].max_hp -= 1;
            out.push(s);
        }
        if unit.structure > 1 {
            let mut s = sc.clone();
            s.units[u].structure -= 1;
            out.push(s);
        }
        if unit.resistant {
            let mut s = sc.clone();
            s.units[u].resistant = false;
            out.push(s);
        }
        if unit.armor > 0 {
            let mut s = sc.clone();
            s.units[u].armor -= 1;
            out.push(s);
        }
    }
    out
}
