//! Random scenarios for fuzzing: a pure function of the knobs and the seed.
//!
//! Invariants: every generated scenario is valid (fields in range, the first fixed
//! challenge valid in the start state, a goal has at least one atom) and round-trips
//! through `to_text`/`parse`.

use super::model::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator's knobs (`gordian fuzz|gen --system ff8` sets them with its `--ff8-*`
/// flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenArgs {
    /// Most regions the player may challenge in (1..=8).
    pub regions: usize,
    /// Most challenges (the bound k of reachability), at most 64 (the largest a scenario
    /// may give; a larger value is taken as 64).
    pub bound: usize,
    /// Percent of scenarios with a fixed challenge sequence (bytes free) instead of free
    /// choices.
    pub fixed_percent: u32,
}

impl Default for GenArgs {
    fn default() -> Self {
        GenArgs {
            regions: 2,
            bound: 2,
            fixed_percent: 40,
        }
    }
}

fn region(rng: &mut ChaCha8Rng) -> Region {
    Region::from_id(rng.gen_range(0..8))
}

fn trade(rng: &mut ChaCha8Rng) -> Trade {
    Trade::ALL[rng.gen_range(0..4)]
}

/// A random scenario.
pub fn generate(args: &GenArgs, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let nreg = rng.gen_range(1..=args.regions.clamp(1, 8));
    let mut allowed: Vec<Region> = Vec::new();
    while allowed.len() < nreg {
        let r = region(&mut rng);
        if !allowed.contains(&r) {
            allowed.push(r);
        }
    }
    allowed.sort();
    let mut s = State::default();
    for r in Region::ALL {
        s.rules[r.id()] = match rng.gen_range(0..4) {
            0 => starting_rules(r),
            1 => RuleSet::ALL,
            _ => RuleSet(rng.gen_range(0..128)),
        };
        s.trade[r.id()] = trade(&mut rng);
    }
    for k in 0..2 {
        let origin = region(&mut rng);
        let rules = if rng.gen_bool(0.4) {
            s.rules[allowed[rng.gen_range(0..allowed.len())].id()]
        } else {
            RuleSet(rng.gen_range(0..128))
        };
        s.carried[k] = Carried { rules, origin };
    }
    s.spread_from = if rng.gen_bool(0.5) {
        allowed[rng.gen_range(0..allowed.len())]
    } else {
        region(&mut rng)
    };
    // Half the states have no trading, so step 10 rarely fires and k = 2 stays small.
    s.amount = if rng.gen_bool(0.5) {
        0
    } else {
        rng.gen_range(0..=10)
    };
    s.points = if rng.gen_bool(0.3) {
        rng.gen_range(240..=250)
    } else {
        rng.gen_range(0..=250)
    };
    s.queen = if rng.gen_bool(0.6) {
        allowed[rng.gen_range(0..allowed.len())]
    } else {
        region(&mut rng)
    };
    s.queen_trade = trade(&mut rng);
    s.current = region(&mut rng);
    let bound = rng.gen_range(1..=args.bound.clamp(1, super::parse::MAX_BOUND));
    let mut challenges = Vec::new();
    if rng.gen_range(0..100) < args.fixed_percent {
        for j in 0..bound {
            let region = allowed[rng.gen_range(0..allowed.len())];
            // The first challenge must be valid in the start; later ones may not be
            // (a path where the Queen left simply ends).
            let queen_ok = j > 0 || s.queen == region;
            let opponent = if queen_ok && rng.gen_bool(0.5) {
                Opponent::Queen
            } else {
                Opponent::Player
            };
            let n = if opponent == Opponent::Queen { 4 } else { 3 };
            let action = Action::ALL[rng.gen_range(0..n)];
            challenges.push(Choice {
                region,
                opponent,
                action,
            });
        }
    }
    let goal = if rng.gen_bool(0.7) {
        let n = rng.gen_range(1..=2);
        let atoms = (0..n)
            .map(|_| {
                let r = allowed[rng.gen_range(0..allowed.len())];
                let x = Rule::ALL[rng.gen_range(0..7)];
                match rng.gen_range(0..4) {
                    0 => Atom::Has(r, x),
                    1 => Atom::Lacks(r, x),
                    2 => Atom::TradeIs(region(&mut rng), trade(&mut rng)),
                    _ => Atom::QueenIn(region(&mut rng)),
                }
            })
            .collect();
        Some(Goal(atoms))
    } else {
        None
    };
    Scenario {
        state: s,
        allowed,
        bound,
        challenges,
        goal,
    }
}
