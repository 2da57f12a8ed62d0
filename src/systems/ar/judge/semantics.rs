//! The contract evaluated directly: given a universe, a cut and a candidate (R, S, rho),
//! decide `fails`, the created set, the coherent redirections and acceptability, word for
//! word as `docs/ar.md` states them.
//!
//! This module is the judge of every engine: it favours literal clarity over speed, and no
//! engine's search logic lives here. Invariant: every function is a pure function of its
//! arguments; a candidate whose created effects are not in the universe is rejected
//! (the universe over-approximates, so that never happens for a true resolution).
//! [`rule_words`] names a rule in a moderator's words, for the explanations and the
//! paradox derivations.

use crate::systems::ar::night::model::{ActionKind, Kind, PassiveKind, Trigger};
use crate::systems::ar::night::resolution::{Cut, TargetMap};
use crate::systems::ar::night::universe::{actor_name, Ix, Universe};
use fixedbitset::FixedBitSet;
use itertools::Itertools;
use std::collections::BTreeSet;

/// Whether universe effect `i` is cut (only declared effects can be).
pub fn is_cut(u: &Universe, cut: &Cut, i: Ix) -> bool {
    i < u.n_declared && cut.contains(i)
}

/// The declared targets of every action that is in R and not cut (the map before any
/// redirection).
pub fn declared_targets(u: &Universe, cut: &Cut, present: &FixedBitSet) -> TargetMap {
    (0..u.len())
        .map(|i| {
            if present.contains(i) && !is_cut(u, cut, i) && u.effects[i].action().is_some() {
                u.effects[i].targets.clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

fn shares_target(rho: &TargetMap, a: Ix, b: Ix) -> bool {
    rho[a].iter().any(|t| rho[b].contains(t))
}

fn kind_of(u: &Universe, i: Ix) -> Kind {
    u.effects[i].kind
}

/// The rule of the kind table by which one effect makes another fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A succeeding `block` whose final targets include the actor of a submitted action.
    Blocked,
    /// A succeeding `stop` sharing a final target with a non-stop action.
    Stopped,
    /// A succeeding `protect` sharing a final target with a kill.
    Protected,
    /// A `bulletproof` passive owned by a kill's final target.
    Bulletproof,
    /// An `immune` passive owned by a final target of another player's action of a kind
    /// in its filter.
    Immune,
    /// A succeeding `commute` of a final target of another player's action.
    Commuted,
    /// A succeeding `hide` of a kill's final target (the hider is not at home).
    Hidden,
}

/// Whether `g`, if it succeeds, makes action `f` fail under the final targets `rho`, and by
/// which rule (the kind table of `docs/ar.md`, filters and `strongkill` included).
/// `block` is reported whatever passives the target has: a succeeding `unblockable` of
/// f's actor cancels it, which [`fails`] checks against S.
pub fn attack(u: &Universe, rho: &TargetMap, g: Ix, f: Ix) -> Option<Rule> {
    let fe = &u.effects[f];
    let fk = fe.action()?;
    if g == f {
        return None;
    }
    let ge = &u.effects[g];
    // The filter written on g (`block[kill]`), else its kind's default victims.
    let filtered = |default: &dyn Fn(ActionKind) -> bool| match ge.mods.only {
        Some(only) => only.contains(fk),
        None => default(fk),
    };
    // A `strongkill` is stopped by no rule but a commute.
    let pierce = fe.mods.pierce;
    let blocks = || block_hits(u, rho, g, f);
    let protects = || !pierce && fk == ActionKind::Kill && filtered(&|_| true);
    match ge.kind {
        Kind::Action(ActionKind::Block) => blocks().then_some(Rule::Blocked),
        // The protection first: unlike the block, no `unblockable` cancels it.
        Kind::Action(ActionKind::Jail) => {
            if protects() && shares_target(rho, g, f) {
                Some(Rule::Protected)
            } else {
                blocks().then_some(Rule::Blocked)
            }
        }
        Kind::Action(ActionKind::Stop) => {
            (!pierce && fk != ActionKind::Stop && filtered(&|_| true) && shares_target(rho, g, f))
                .then_some(Rule::Stopped)
        }
        Kind::Action(ActionKind::Protect) => {
            (!pierce && filtered(&|k| k == ActionKind::Kill) && shares_target(rho, g, f))
                .then_some(Rule::Protected)
        }
        Kind::Action(ActionKind::Commute) => {
            (fe.actor != ge.actor && rho[f].contains(&ge.actor)).then_some(Rule::Commuted)
        }
        // Kills on a hider fail (a strongkill is a kill no rule but a commute stops).
        Kind::Action(ActionKind::Hide) => (!pierce
            && fk == ActionKind::Kill
            && fe.actor != ge.actor
            && rho[f].contains(&ge.actor))
        .then_some(Rule::Hidden),
        // A babysitter protects like a doctor.
        Kind::Action(ActionKind::Babysit) => {
            (!pierce && fk == ActionKind::Kill && shares_target(rho, g, f))
                .then_some(Rule::Protected)
        }
        Kind::Passive(PassiveKind::Bulletproof) => {
            (!pierce && fk == ActionKind::Kill && rho[f].contains(&ge.actor))
                .then_some(Rule::Bulletproof)
        }
        Kind::Passive(PassiveKind::Immune) => {
            (!pierce && fe.actor != ge.actor && filtered(&|_| false) && rho[f].contains(&ge.actor))
                .then_some(Rule::Immune)
        }
        _ => None,
    }
}

/// Whether block rule of `g` (a `block`, or the block part of a `jail`) hits action `f`
/// under `rho`: f is submitted, not a strongkill, its actor is among g's final targets,
/// and its kind is in g's filter (every kind but `commute` by default). A succeeding
/// `unblockable` of f's actor cancels it, which the callers check.
fn block_hits(u: &Universe, rho: &TargetMap, g: Ix, f: Ix) -> bool {
    let (ge, fe) = (&u.effects[g], &u.effects[f]);
    let Some(fk) = fe.action() else {
        return false;
    };
    let is_block = matches!(ge.kind, Kind::Action(ActionKind::Block | ActionKind::Jail));
    is_block
        && g != f
        && !fe.mods.pierce
        && fe.is_submitted_action()
        && rho[g].contains(&fe.actor)
        && match ge.mods.only {
            Some(only) => only.contains(fk),
            None => fk != ActionKind::Commute,
        }
}

/// Whether `g`, if it succeeds, stops action `f` at its source, so that f never reaches
/// its targets: a block rule (`Rule::Blocked`, which a succeeding `unblockable` of f's
/// actor cancels: the caller checks) or a commute of one of f's final targets
/// (`Rule::Commuted`). The block part of a jail counts even where its protection is
/// what [`attack`] reports.
pub fn at_source(u: &Universe, rho: &TargetMap, g: Ix, f: Ix) -> Option<Rule> {
    let (ge, fe) = (&u.effects[g], &u.effects[f]);
    fe.action()?;
    match ge.kind {
        Kind::Action(ActionKind::Block | ActionKind::Jail) => {
            block_hits(u, rho, g, f).then_some(Rule::Blocked)
        }
        Kind::Action(ActionKind::Commute) => {
            (g != f && fe.actor != ge.actor && rho[f].contains(&ge.actor)).then_some(Rule::Commuted)
        }
        _ => None,
    }
}

/// Whether action `f` *visits* its final targets when exactly `s` succeeds: it is not cut,
/// has a final target, and nothing in `s` stops it at its source ([`at_source`]; a
/// succeeding `unblockable` of its actor cancels the block rule). An action that fails
/// at its target (protected, stopped, bulletproof, immune, hidden) still visits. The
/// caller checks that f is in R.
pub fn visits(u: &Universe, cut: &Cut, s: &FixedBitSet, rho: &TargetMap, f: Ix) -> bool {
    if is_cut(u, cut, f) || u.effects[f].action().is_none() || rho[f].is_empty() {
        return false;
    }
    let unblockable = unblockable(u, s, f);
    !s.ones().any(|g| match at_source(u, rho, g, f) {
        Some(Rule::Blocked) => !unblockable,
        Some(_) => true,
        None => false,
    })
}

/// Whether a succeeding `unblockable` passive of f's actor is in `s`.
pub fn unblockable(u: &Universe, s: &FixedBitSet, f: Ix) -> bool {
    let actor = u.effects[f].actor;
    s.ones().any(|g| {
        kind_of(u, g) == Kind::Passive(PassiveKind::Unblockable) && u.effects[g].actor == actor
    })
}

/// `fails(f | S, rho)`: whether effect `f` necessarily fails when exactly the effects in
/// `s` succeed and slots point where `rho` says.
pub fn fails(u: &Universe, cut: &Cut, s: &FixedBitSet, rho: &TargetMap, f: Ix) -> bool {
    if is_cut(u, cut, f) {
        return true; // a cut effect is a no-op that always fails
    }
    if u.effects[f].action().is_none() {
        return false; // passives succeed unless cut
    }
    let unblockable = unblockable(u, s, f);
    s.ones().any(|g| match attack(u, rho, g, f) {
        Some(Rule::Blocked) => !unblockable,
        Some(_) => true,
        None => false,
    })
}

/// Condition 2 (grounded creation): the *least* set X of created effects such that
/// c(p, v) is in X whenever p is in S and some action g, declared or in X, with actor
/// v != owner(p) has owner(p) among its final targets and *fires* p: g is in S for a
/// `reflexive:K`, g [`visits`] for a `visited:K`. Computed as a least fixed point:
/// start from nothing and add what the declared successes trigger, then what those
/// created successes trigger, until nothing changes. A created effect in S that is not
/// derived this way triggers nothing (it is not in R). Returns `None` if a derived pair
/// has no index in the universe (a universe bug).
pub fn created_set(
    u: &Universe,
    cut: &Cut,
    s: &FixedBitSet,
    rho: &TargetMap,
) -> Option<FixedBitSet> {
    let mut out = FixedBitSet::with_capacity(u.len());
    loop {
        let mut grew = false;
        for p in s.ones() {
            if is_cut(u, cut, p) {
                continue;
            }
            let Kind::Passive(PassiveKind::Reflexive(_, trigger)) = kind_of(u, p) else {
                continue;
            };
            let owner = u.effects[p].actor;
            // `reflexive:kill[kill]`: only actions of the filter's kinds trigger it.
            let only = u.effects[p].mods.only;
            // `reflexive:K` is triggered by the actions that succeed, `visited:K` by those
            // that visit (derived ones: declared, or already created).
            for g in 0..u.len() {
                let ge = &u.effects[g];
                let Some(gk) = ge.action() else {
                    continue;
                };
                if is_cut(u, cut, g) || ge.actor == owner || only.is_some_and(|o| !o.contains(gk)) {
                    continue;
                }
                let derived = ge.is_declared() || out.contains(g);
                let fires = match trigger {
                    Trigger::Success => s.contains(g),
                    Trigger::Visit => derived && visits(u, cut, s, rho, g),
                };
                if derived && fires && rho[g].contains(&owner) {
                    let c = u.created(p, ge.actor)?;
                    if !out.contains(c) {
                        out.insert(c);
                        grew = true;
                    }
                }
            }
        }
        if !grew {
            return Some(out);
        }
    }
}

/// Redirection: every distinct final-target map over R's (uncut) action slots, one per
/// processing order of the active redirections (the `deflect`, `swap`, `redirect` and
/// `guard` effects in S). Processing g changes the slots of every action h != g whose
/// kind g moves (g's filter, by default every kind; a `guard` moves kills, never a
/// strongkill), reading g's own slots at their current values:
///
/// * `deflect T` (actor d): slots at d move to g's slot;
/// * `deflect X to Y`: slots at g's first slot move to its second;
/// * `guard X`: slots at g's slot move to g's actor;
/// * `swap X Y`: slots at the first move to the second and those at the second to the
///   first, at once;
/// * `redirect X to Y`: every slot of h moves to g's second slot when h's actor is at
///   g's first slot.
pub fn redirections(
    u: &Universe,
    cut: &Cut,
    present: &FixedBitSet,
    s: &FixedBitSet,
) -> Vec<TargetMap> {
    let start = declared_targets(u, cut, present);
    let active: Vec<Ix> = s
        .ones()
        .filter(|&g| u.effects[g].action().is_some_and(is_redirection) && !is_cut(u, cut, g))
        .collect();
    let mut maps = BTreeSet::new();
    for order in active.iter().copied().permutations(active.len()) {
        let mut rho = start.clone();
        for &g in &order {
            process(u, &mut rho, g);
        }
        maps.insert(rho);
    }
    maps.into_iter().collect()
}

/// Whether actions of kind `k` redirect (`deflect`, `swap`, `redirect`, `guard`).
pub fn is_redirection(k: ActionKind) -> bool {
    matches!(
        k,
        ActionKind::Deflect | ActionKind::Swap | ActionKind::Redirect | ActionKind::Guard
    )
}

/// Processes one active redirection g on `rho` (see [`redirections`]).
pub fn process(u: &Universe, rho: &mut TargetMap, g: Ix) {
    let ge = &u.effects[g];
    let kind = ge.action().expect("a redirection is an action");
    let mine = rho[g].clone();
    let moves = |h: Ix| -> bool {
        let he = &u.effects[h];
        let Some(hk) = he.action() else {
            return false;
        };
        let default_all = kind != ActionKind::Guard;
        let listed = match ge.mods.only {
            Some(set) => set.contains(hk),
            None => default_all || hk == ActionKind::Kill,
        };
        listed && !(kind == ActionKind::Guard && he.mods.pierce)
    };
    for (h, slots) in rho.iter_mut().enumerate() {
        if h == g || slots.is_empty() || !moves(h) {
            continue;
        }
        let actor = u.effects[h].actor;
        for t in slots.iter_mut() {
            let now = *t;
            *t = match (kind, mine.len()) {
                (ActionKind::Deflect, 1) if now == ge.actor => mine[0],
                (ActionKind::Deflect, 2) if now == mine[0] => mine[1],
                (ActionKind::Guard, _) if now == mine[0] => ge.actor,
                (ActionKind::Swap, _) if now == mine[0] => mine[1],
                (ActionKind::Swap, _) if now == mine[1] => mine[0],
                (ActionKind::Redirect, _) if actor == mine[0] => mine[1],
                _ => now,
            };
        }
    }
}

/// Why a candidate is not acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// S is not a subset of R, or R lacks a declared effect.
    NotInR(String),
    /// An effect in S would necessarily fail.
    FailsButSucceeds(String),
    /// An effect in R \ S would not fail.
    SucceedsButFails(String),
    /// A cut effect is in S.
    CutSucceeds(String),
    /// R \ E differs from the least set of created effects derivable from the declared
    /// successes (condition 2).
    Creation,
    /// rho is not one of the coherent redirections.
    Redirection,
}

/// Checks the contract's three conditions for the candidate (R = `present`, S, rho) of
/// E[cut].
pub fn check(
    u: &Universe,
    cut: &Cut,
    present: &FixedBitSet,
    s: &FixedBitSet,
    rho: &TargetMap,
) -> Result<(), Violation> {
    let id = |i: Ix| u.effects[i].id.clone();
    for i in 0..u.n_declared {
        if !present.contains(i) {
            return Err(Violation::NotInR(id(i)));
        }
    }
    if let Some(i) = s.difference(present).next() {
        return Err(Violation::NotInR(id(i)));
    }
    if let Some(i) = s.ones().find(|&i| is_cut(u, cut, i)) {
        return Err(Violation::CutSucceeds(id(i)));
    }
    if !redirections(u, cut, present, s).contains(rho) {
        return Err(Violation::Redirection);
    }
    for f in present.ones() {
        let f_fails = fails(u, cut, s, rho, f);
        match (s.contains(f), f_fails) {
            (true, true) => return Err(Violation::FailsButSucceeds(id(f))),
            (false, false) => return Err(Violation::SucceedsButFails(id(f))),
            _ => {}
        }
    }
    let created = created_set(u, cut, s, rho).ok_or(Violation::Creation)?;
    let present_created: FixedBitSet = {
        let mut b = present.clone();
        for i in 0..u.n_declared {
            b.set(i, false);
        }
        b
    };
    if created != present_created {
        return Err(Violation::Creation);
    }
    Ok(())
}

/// The rule's words: "blocked by Doc [e3]", "Cop [e4] is bulletproof".
pub fn rule_words(u: &Universe, rule: Rule, by: Ix) -> String {
    match rule {
        Rule::Blocked => format!("blocked by {}", actor_name(u, by)),
        Rule::Stopped => format!("stopped by {}", actor_name(u, by)),
        Rule::Protected => format!("protected by {}", actor_name(u, by)),
        Rule::Bulletproof => format!("{} is bulletproof", actor_name(u, by)),
        Rule::Immune => format!("{} is immune", actor_name(u, by)),
        Rule::Commuted => format!("{} commuted", actor_name(u, by)),
        Rule::Hidden => format!("{} is hiding", actor_name(u, by)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::night::model::Ensemble;

    /// The contract's example (condition 2, "Why least"): `V visit A`, `A reflexive:kill`,
    /// `V reflexive:stop`, with the candidate R = E + {A kills V, V stops A}, S = the
    /// passives and both created effects (the visit stopped). Both created effects are
    /// triggered under S, so the candidate is a fixed point; neither is derivable from a
    /// succeeding declared action, so it is not the least one: rejected.
    #[test]
    fn self_supporting_creation_is_rejected() {
        let ens = Ensemble::from_triples(&[
            ("V", "visit", &["A"]),
            ("A", "reflexive:kill", &[]),
            ("V", "reflexive:stop", &[]),
        ]);
        let u = Universe::new(&ens);
        let cut = Cut::with_capacity(u.n_declared);
        let mut all = FixedBitSet::with_capacity(u.len());
        all.insert_range(..);
        let mut s = all.clone();
        s.set(0, false);
        let rho = declared_targets(&u, &cut, &all);
        assert_eq!(check(&u, &cut, &all, &s, &rho), Err(Violation::Creation));
        assert!(created_set(&u, &cut, &s, &rho).expect("indexed").is_clear());
        // With the visit succeeding, the chain is grounded: both are derived.
        s.set(0, true);
        assert_eq!(
            created_set(&u, &cut, &s, &rho)
                .expect("indexed")
                .count_ones(..),
            2
        );
    }

    /// `visited:kill` fires on a visit, `reflexive:kill` on a success. e1 P visited:kill,
    /// e2 Q reflexive:kill, e3 G kill P, e4 H kill Q, e5 D protect P, e6 E protect Q,
    /// e7 B visit P, e8 R block B, e9 U visit P, e10 R block U, e11 U unblockable. By
    /// hand, S = every effect but e3, e4 (protected) and e7 (blocked): e3 fails but visits
    /// P (a protect fails it at its target), so P kill G is created; e4 fails and Q's
    /// reflexive needs a success: nothing. e7 is stopped at its source by e8: no shot at B.
    /// e10 is cancelled by U's unblockable, so e9 visits (and succeeds): P kill U. D's
    /// protect visits P too: P kill D. E's protect is at Q (reflexive; it succeeds): Q kill
    /// E. R's blocks target B and U, not P.
    #[test]
    fn visit_triggers_fire_on_failed_visits_and_not_on_blocked_ones() {
        let ens = Ensemble::from_triples(&[
            ("P", "visited:kill", &[]),
            ("Q", "reflexive:kill", &[]),
            ("G", "kill", &["P"]),
            ("H", "kill", &["Q"]),
            ("D", "protect", &["P"]),
            ("E", "protect", &["Q"]),
            ("B", "visit", &["P"]),
            ("R", "block", &["B"]),
            ("U", "visit", &["P"]),
            ("R", "block", &["U"]),
            ("U", "unblockable", &[]),
        ]);
        let u = Universe::new(&ens);
        let cut = Cut::with_capacity(u.n_declared);
        let mut declared = FixedBitSet::with_capacity(u.len());
        declared.insert_range(..u.n_declared);
        let rho = declared_targets(&u, &cut, &declared);
        let mut s = declared.clone();
        for i in [2, 3, 6] {
            s.set(i, false);
        }
        assert!(
            visits(&u, &cut, &s, &rho, 2),
            "a protected kill still visits"
        );
        assert!(!visits(&u, &cut, &s, &rho, 6), "a blocked visit does not");
        assert!(
            visits(&u, &cut, &s, &rho, 8),
            "unblockable cancels the block"
        );
        let created = created_set(&u, &cut, &s, &rho).expect("indexed");
        let name = |c: Ix| u.effects[c].id.clone();
        let mut got: Vec<String> = created.ones().map(name).collect();
        got.sort();
        assert_eq!(got, ["e1>D", "e1>G", "e1>U", "e2>E"]);
    }
}
