//! The simplifications of an ?AR night that the harness's shrinker tries (see
//! `harness::fuzz::shrink`; [`System::simplifications`](crate::systems::spec::System)).
//!
//! The simpler nights of a night (its [`candidates`]), in the order tried: drop one
//! effect; drop one target of a multi-target action; drop a player no effect mentions;
//! merge two players (the later one becomes the earlier one everywhere); drop an
//! effect's modifier (a filter, `strongkill`'s pierce, an information kind) or a
//! player's alignment; lower one effect's priority to 0, or else by one.
//!
//! Invariants: every candidate is a valid ensemble (`parse::validate`), so every step and
//! the result are valid; each candidate is strictly smaller by [`size`] (the count of
//! effects, targets, players, modifiers and alignments plus the sum of priorities), so
//! shrinking terminates. Effect ids and player
//! names are kept, so the result can be traced back to the original.

use crate::systems::ar::night::model::{Ensemble, Mods, Player};
use crate::systems::ar::night::parse;

/// The measure every candidate decreases: effects + targets + players + modifiers +
/// alignments + the sum of priorities.
pub fn size(ens: &Ensemble) -> usize {
    let mods = |m: &Mods| {
        usize::from(m.only.is_some()) + usize::from(m.pierce) + usize::from(m.info.is_some())
    };
    ens.effects.iter().map(|e| mods(&e.mods)).sum::<usize>()
        + ens.alignments.len()
        + ens.effects.len()
        + ens.effects.iter().map(|e| e.targets.len()).sum::<usize>()
        + ens.players.len()
        + ens
            .effects
            .iter()
            .map(|e| e.priority as usize)
            .sum::<usize>()
}

/// Every one-step simplification of `ens` that is a valid ensemble, in the order tried.
pub fn candidates(ens: &Ensemble) -> Vec<Ensemble> {
    let mut out = Vec::new();
    // Drop one effect.
    for i in 0..ens.effects.len() {
        let mut c = ens.clone();
        c.effects.remove(i);
        out.push(c);
    }
    // Drop one target of an action with several.
    for (i, e) in ens.effects.iter().enumerate() {
        if e.targets.len() > 1 {
            for t in 0..e.targets.len() {
                let mut c = ens.clone();
                c.effects[i].targets.remove(t);
                out.push(c);
            }
        }
    }
    // Drop an unused player.
    let used = |p: Player| {
        ens.effects
            .iter()
            .any(|e| e.actor == p || e.targets.contains(&p))
    };
    for p in 0..ens.players.len() as Player {
        if !used(p) {
            out.push(merge_or_remove(ens, p, None));
        }
    }
    // Merge two used players.
    for b in 0..ens.players.len() as Player {
        for a in 0..b {
            if used(a) && used(b) {
                out.push(merge_or_remove(ens, b, Some(a)));
            }
        }
    }
    // Drop a modifier (an `immune` keeps its filter: it needs one) or an alignment.
    for (i, e) in ens.effects.iter().enumerate() {
        let m = e.mods;
        for plain in [
            Mods { only: None, ..m },
            Mods { pierce: false, ..m },
            Mods { info: None, ..m },
        ] {
            if plain != m {
                let mut c = ens.clone();
                c.effects[i].mods = plain;
                out.push(c);
            }
        }
    }
    for k in 0..ens.alignments.len() {
        let mut c = ens.clone();
        c.alignments.remove(k);
        out.push(c);
    }
    // Lower a priority.
    for (i, e) in ens.effects.iter().enumerate() {
        if e.priority > 0 {
            let mut c = ens.clone();
            c.effects[i].priority = 0;
            out.push(c.clone());
            if e.priority > 1 {
                c.effects[i].priority = e.priority - 1;
                out.push(c);
            }
        }
    }
    out.retain(|c| parse::validate(c).is_ok());
    out
}

/// Removes player `gone`, first renaming it to `into` wherever it occurs (when given).
fn merge_or_remove(ens: &Ensemble, gone: Player, into: Option<Player>) -> Ensemble {
    let map = |p: Player| {
        let p = if p == gone { into.unwrap_or(p) } else { p };
        if p > gone {
            p - 1
        } else {
            p
        }
    };
    let mut c = ens.clone();
    c.players.remove(gone as usize);
    // The gone player's alignment goes (a merged player keeps its own).
    c.alignments.retain(|&(p, _)| p != gone);
    for (p, _) in &mut c.alignments {
        *p = map(*p);
    }
    for e in &mut c.effects {
        e.actor = map(e.actor);
        for t in &mut e.targets {
            *t = map(*t);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::fuzz::shrink;
    use crate::harness::Differential;
    use crate::systems::ar::engine::Direct;
    use crate::systems::ar::night::model::{ActionKind, Kind};
    use crate::systems::ar::night::parse;
    use crate::systems::ar::system::Ar;
    use crate::systems::ar::{direct, Analysis, Factored, Night, Universe};
    use crate::systems::spec::{Budget, Engine, Interrupted};
    use std::path::Path;

    /// A planted bug: the direct engine on the night with every declared `protect` turned
    /// into a `visit` (so protection is ignored).
    struct IgnoresProtect;

    impl Engine<Night, Factored> for IgnoresProtect {
        fn name(&self) -> &'static str {
            "ignores-protect"
        }
        fn solve(&self, n: &Night, budget: &Budget) -> Result<Factored, Interrupted> {
            let mut parts = Vec::new();
            for p in &n.parts {
                let u = &p.universe;
                let mut ens = u.ensemble.clone();
                for e in &mut ens.effects {
                    if e.kind == Kind::Action(ActionKind::Protect) {
                        e.kind = Kind::Action(ActionKind::Visit);
                    }
                }
                let broken = Universe::new(&ens);
                let mut a: Analysis = direct::analyse(&broken, budget)?;
                a.canonicalize(u);
                parts.push(a);
            }
            Ok(Factored::of(parts))
        }
    }

    fn night(src: &str) -> Ensemble {
        parse::parse_night(src, Path::new("test.night")).expect("valid night")
    }

    #[test]
    fn shrinks_a_planted_disagreement_to_the_hand_worked_minimum() {
        // The protection of C decides whether e2 kills; the rest is noise.
        let start = night(
            "players: A B C D E\n\
             e1: A protect C D @4\n\
             e2: B kill C @5\n\
             e3: D visit A @6\n\
             e4: E block D @2\n\
             e5: C passive unblockable @0\n",
        );
        let diff: Differential<Ar> = Differential {
            engines: vec![Box::new(Direct), Box::new(IgnoresProtect)],
            grace: None,
            filtered: true,
        };
        let fails = |e: &Ensemble| diff.fails(&Night::of(e), None);
        assert!(fails(&start));
        let small = shrink::<Ar>(&Night::of(&start), |n| fails(&n.whole.ensemble))
            .whole
            .ensemble;
        // Worked by hand: a protect and a kill on the same target are needed (without the
        // kill, protection changes nothing; without the protect, nothing is ignored); one
        // player can do both to himself; priorities do not matter for a non-paradox, so
        // they go to 0. Merging keeps the earlier player, A.
        let want = night("players: A\ne1: A protect A @0\ne2: A kill A @0\n");
        assert_eq!(parse::to_night(&small), parse::to_night(&want));
        // Locally minimal: no one-step simplification still fails.
        assert!(candidates(&small).iter().all(|c| !fails(c)));
        // And the written file reads back to the same night.
        let back = parse::parse_night(&parse::to_night(&small), Path::new("x.night")).unwrap();
        assert_eq!(parse::to_night(&back), parse::to_night(&small));
    }

    #[test]
    fn candidates_are_valid_and_smaller() {
        let ens = night(
            "players: A B C\nA deflect B\nB deflect C\nC block A B\nA passive reflexive:kill @3\n",
        );
        let cs = candidates(&ens);
        assert!(!cs.is_empty());
        for c in &cs {
            assert!(parse::validate(c).is_ok());
            assert!(size(c) < size(&ens), "{}", parse::to_night(c));
        }
        // Of the three merges, A with B would give A two deflections: never proposed.
        assert_eq!(cs.iter().filter(|c| c.players.len() == 2).count(), 2);
    }
}
