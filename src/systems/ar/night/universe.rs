//! The universe of an ensemble: its declared effects plus every effect a reflexive passive
//! could possibly create, indexed densely so that engines can use bitsets.
//!
//! Invariants: indices `0..n_declared` are the declared effects in file order; the rest are
//! potential created effects, one per (reflexive passive, visitor) pair that some action
//! could trigger under *some* redirection, so every created effect of every acceptable
//! resolution has an index here (the converse need not hold). The universe is built as
//! the closure of what the *declared* actions could start, which is exactly the shape of
//! grounded creation (contract condition 2: every created effect is derived, step by
//! step, from succeeding declared actions): each step of a derivation is an edge of this
//! closure, under any success set and any redirection. It over-approximates; acceptance
//! (groundedness included) is decided by the engines, never by the universe. A slot's possible final
//! targets are the players reachable from its declared target in the deflection graph
//! (player -> target of that player's `deflect`), which over-approximates every processing
//! order of every set of active deflections; that graph is kept in linear space
//! ([`Deflections`]: paths are walked, never stored), and the closure walks only the
//! reflexive owners along a path, so a chain of n deflections builds in O(n).
//!
//! A universe made by [`Universe::piece`] is a view of some effects of another, for the
//! pieces of a split answer: it is never solved, and the closure above does not hold
//! for it.
//!
//! [`effect_name`] and [`actor_name`] are the one way every report names an effect
//! (`Goon kill Cop [e1]`) and its actor (`Doc [e3]`).

use super::deflections::Deflections;
use super::model::{
    kind_word, ActionKind, Attack, Effect, Ensemble, Kind, Mods, PassiveKind, Player, Reach,
    Redirection, Trigger,
};
use crate::systems::spec::{Budget, Interrupted};
use std::collections::HashMap;

/// Index of an effect in a [`Universe`].
pub type Ix = usize;

/// Where a universe effect comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A declared effect of the ensemble (its index in `Ensemble::effects`).
    Declared(usize),
    /// The effect a reflexive passive creates for a visitor.
    Created {
        /// Universe index of the reflexive passive.
        passive: Ix,
        /// The player whose action triggered it (and its only declared target).
        visitor: Player,
    },
}

/// One effect of the universe (declared or potential created).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UEffect {
    /// The effect's id (`<passive id>><visitor>` for created effects).
    pub id: String,
    /// Declared or created.
    pub origin: Origin,
    /// The acting player (the passive's owner for created effects).
    pub actor: Player,
    /// Its kind (an action kind for created effects).
    pub kind: Kind,
    /// Its kind's modifiers (none for created effects).
    pub mods: Mods,
    /// Declared targets (`[visitor]` for created effects).
    pub targets: Vec<Player>,
    /// Priority (the passive's for created effects).
    pub priority: u32,
}

impl UEffect {
    /// The action kind, if an action.
    pub fn action(&self) -> Option<ActionKind> {
        self.kind.action()
    }

    /// Whether it is a *submitted* action: declared and not a passive (what `block` hits).
    pub fn is_submitted_action(&self) -> bool {
        matches!(self.origin, Origin::Declared(_)) && self.action().is_some()
    }

    /// Whether it is a declared effect.
    pub fn is_declared(&self) -> bool {
        matches!(self.origin, Origin::Declared(_))
    }

    /// Its kind as written in night files, modifiers included.
    pub fn kind_word(&self) -> String {
        kind_word(self.kind, self.mods)
    }

    /// The ways it makes actions fail (the kind table's rows for its kind).
    pub fn attacks(&self) -> impl Iterator<Item = Attack> {
        Attack::of(self.kind, self.mods)
    }

    /// Whether `attack` (of effect `a`, a different effect) hits this effect, where it
    /// looks aside.
    pub fn hit_by(&self, attack: &Attack, a: &UEffect) -> bool {
        self.action().is_some_and(|k| {
            attack.hits(
                k,
                self.mods,
                self.is_submitted_action(),
                self.actor == a.actor,
            )
        })
    }
}

/// The declared and potential created effects of an ensemble.
#[derive(Clone, Debug)]
pub struct Universe {
    /// The ensemble it was built from.
    pub ensemble: Ensemble,
    /// All effects: declared first, then potential created ones.
    pub effects: Vec<UEffect>,
    /// How many effects are declared.
    pub n_declared: usize,
    /// `deflector[p]`: the universe index of player p's plain `deflect` action (one
    /// target, no filter), if any.
    pub deflector: Vec<Option<Ix>>,
    /// The deflection graph: `reach(p)`, the players a slot declared at p can end at (p
    /// first, in path order), without storing it (linear in the players). Plain
    /// deflections only (`deflect T`); see `general` for the others.
    pub deflections: Box<Deflections>,
    /// When the night has a redirection other than a plain deflection (`swap`,
    /// `redirect`, `guard`, `deflect X to Y`, a filtered `deflect`): every redirection
    /// effect (plain deflections included), solved by processing orders; `None` for
    /// nights of plain deflections only, which the deflection graph answers.
    pub general: Option<Box<General>>,
    /// Whether some effect is a `hide` or `babysit` ([`Universe::links_deaths`]).
    links: bool,
    created_index: HashMap<(Ix, Player), Ix>,
    levels: Vec<u32>,
    /// How many identical declared effects each declared effect stands for, in every
    /// cut's cost (empty: one each). Set only on the universe of a collapsed night
    /// ([`super::collapse`]); a cut drops all of them or none.
    weights: Vec<usize>,
}

/// Whether an ensemble has a `hide` or `babysit`.
fn has_links(ens: &Ensemble) -> bool {
    ens.effects
        .iter()
        .any(|e| e.kind.action().is_some_and(ActionKind::links_deaths))
}

/// The redirections of a night that has more than plain deflections (see
/// [`Universe::general`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct General {
    /// Every declared redirection effect (`deflect`, `swap`, `redirect`, `guard`), in
    /// order.
    pub redirections: Vec<Ix>,
    /// The players a redirection can move a slot to (its declared targets, and a
    /// `guard`'s actor), sorted: a slot declared at p can end at p or at one of these,
    /// whatever the success set and the processing order.
    pub hub: Vec<Player>,
}

impl General {
    /// Whether a slot declared at `p` may end at `q`.
    pub fn may_end(&self, p: Player, q: Player) -> bool {
        p == q || self.hub.binary_search(&q).is_ok()
    }

    /// The players a slot declared at `p` may end at (`p` first, then the hub).
    pub fn ends(&self, p: Player) -> impl Iterator<Item = Player> + '_ {
        std::iter::once(p).chain(self.hub.iter().copied().filter(move |&q| q != p))
    }
}

impl Universe {
    /// Builds the universe of a validated ensemble.
    pub fn new(ensemble: &Ensemble) -> Universe {
        Universe::new_within(ensemble, &Budget::new()).expect("an unbounded budget never stops")
    }

    /// Builds the universe of a validated ensemble, polling `budget` and charging it for
    /// each potential created effect (their number is up to reflexive passives × players).
    pub fn new_within(ensemble: &Ensemble, budget: &Budget) -> Result<Universe, Interrupted> {
        let n_players = ensemble.players.len();
        let mut effects: Vec<UEffect> = ensemble
            .effects
            .iter()
            .enumerate()
            .map(|(i, e): (usize, &Effect)| UEffect {
                id: e.id.clone(),
                origin: Origin::Declared(i),
                actor: e.actor,
                kind: e.kind,
                mods: e.mods,
                targets: e.targets.clone(),
                priority: e.priority,
            })
            .collect();
        let n_declared = effects.len();
        let mut deflector = vec![None; n_players];
        let mut plain_only = true;
        let mut redirections = Vec::new();
        let mut hub = Vec::new();
        for (i, e) in effects.iter().enumerate() {
            let Some(k) = e.action().filter(|k| k.redirects()) else {
                continue;
            };
            redirections.push(i);
            hub.extend_from_slice(&e.targets);
            if k == ActionKind::Guard {
                hub.push(e.actor);
            }
            if Redirection::is_plain_deflection(k, e.targets.len(), e.mods) {
                deflector[e.actor as usize] = Some(i);
            } else {
                plain_only = false;
            }
        }
        hub.sort_unstable();
        hub.dedup();
        let general = (!plain_only).then(|| Box::new(General { redirections, hub }));
        budget.check()?;
        let deflections = Box::new(Deflections::new(
            deflector
                .iter()
                .map(|d| d.map(|d| effects[d].targets[0]))
                .collect(),
        ));
        budget.charge("the deflection graph", deflections.bytes())?;
        // Reflexive passives by owner, and the owners along each path (linear: the
        // fixpoint below walks only the owners a path passes, not the whole path).
        let mut reflexive_of: Vec<Vec<Ix>> = vec![Vec::new(); n_players];
        for (i, e) in effects.iter().enumerate() {
            if let Kind::Passive(PassiveKind::Reflexive(..)) = e.kind {
                reflexive_of[e.actor as usize].push(i);
            }
        }
        let owner: Vec<bool> = reflexive_of.iter().map(|r| !r.is_empty()).collect();
        let first_owner = deflections.first_marked(&owner);
        let owners_on_cycle: Vec<Vec<Player>> = deflections
            .cycles()
            .iter()
            .map(|c| c.iter().copied().filter(|&q| owner[q as usize]).collect())
            .collect();
        // Fixpoint: every action (declared or created) may trigger reflexives of the owners
        // it can reach.
        let mut created_index = HashMap::new();
        let mut next = 0;
        while next < effects.len() {
            if next % 1024 == 0 {
                budget.check()?;
            }
            let g = &effects[next];
            next += 1;
            if g.action().is_none() {
                continue;
            }
            let visitor = g.actor;
            let mut owners: Vec<Player> = Vec::new();
            for &t in &g.targets {
                match &general {
                    Some(gen) => {
                        owners.extend(gen.ends(t).filter(|&o| o != visitor && owner[o as usize]))
                    }
                    None => deflections.marked_on_reach(t, &first_owner, &owners_on_cycle, |o| {
                        if o != visitor {
                            owners.push(o);
                        }
                    }),
                }
            }
            owners.sort_unstable();
            owners.dedup();
            for o in owners {
                for &p in &reflexive_of[o as usize] {
                    if created_index.contains_key(&(p, visitor)) {
                        continue;
                    }
                    let Kind::Passive(PassiveKind::Reflexive(k, _)) = effects[p].kind else {
                        unreachable!("reflexive_of holds reflexive passives only")
                    };
                    let id = format!("{}>{}", effects[p].id, ensemble.player_name(visitor));
                    let priority = effects[p].priority;
                    budget.charge("potential created effects", 128 + id.len() as u64)?;
                    created_index.insert((p, visitor), effects.len());
                    effects.push(UEffect {
                        id,
                        origin: Origin::Created {
                            passive: p,
                            visitor,
                        },
                        actor: o,
                        kind: Kind::Action(k),
                        mods: Mods::default(),
                        targets: vec![visitor],
                        priority,
                    });
                }
            }
        }
        Ok(Universe {
            ensemble: ensemble.clone(),
            effects,
            n_declared,
            deflector,
            deflections,
            general,
            links: has_links(ensemble),
            created_index,
            levels: ensemble.priority_levels(),
            weights: Vec::new(),
        })
    }

    /// The universe of some of this universe's effects (`keep`, ascending, holding the
    /// reflexive passive of every created effect it holds), for a piece of a factorised
    /// answer ([`crate::systems::ar::answer::pieces`]): the same effects in the same order, players renumbered
    /// to those the effects name (ascending); also the index here of each of its players.
    /// It is a view for answers, not a night to solve: an effect's attackers may lie
    /// outside it, and its deflection reach is each player alone. `also`: more players
    /// it must name (the final targets of its effects, when deflections moved them).
    pub fn piece(&self, keep: &[Ix], also: &[Player]) -> (Universe, Vec<Player>) {
        let mut players: Vec<Player> = keep
            .iter()
            .flat_map(|&i| {
                let e = &self.effects[i];
                std::iter::once(e.actor).chain(e.targets.iter().copied())
            })
            .chain(also.iter().copied())
            .collect();
        players.sort_unstable();
        players.dedup();
        let mut local_player = HashMap::new();
        for (k, &p) in players.iter().enumerate() {
            local_player.insert(p, k as Player);
        }
        let mut local = HashMap::new();
        for (k, &i) in keep.iter().enumerate() {
            local.insert(i, k);
        }
        let lp = |p: &Player| local_player[p];
        let mut ensemble_effects = Vec::new();
        let effects: Vec<UEffect> = keep
            .iter()
            .map(|&i| {
                let e = &self.effects[i];
                let origin = match e.origin {
                    Origin::Declared(k) => {
                        let mut d = self.ensemble.effects[k].clone();
                        d.actor = lp(&d.actor);
                        d.targets.iter_mut().for_each(|t| *t = lp(t));
                        ensemble_effects.push(d);
                        Origin::Declared(ensemble_effects.len() - 1)
                    }
                    Origin::Created { passive, visitor } => Origin::Created {
                        passive: local[&passive],
                        visitor: lp(&visitor),
                    },
                };
                UEffect {
                    id: e.id.clone(),
                    origin,
                    actor: lp(&e.actor),
                    kind: e.kind,
                    mods: e.mods,
                    targets: e.targets.iter().map(lp).collect(),
                    priority: e.priority,
                }
            })
            .collect();
        let ensemble = Ensemble {
            players: players
                .iter()
                .map(|&p| self.player_name(p).to_string())
                .collect(),
            effects: ensemble_effects,
            alignments: players
                .iter()
                .enumerate()
                .filter_map(|(k, &p)| {
                    self.ensemble
                        .alignment(p)
                        .map(|a| (k as Player, a.to_string()))
                })
                .collect(),
        };
        let n_declared = ensemble.effects.len();
        let mut deflector = vec![None; players.len()];
        let mut created_index = HashMap::new();
        for (i, e) in effects.iter().enumerate() {
            if e.action() == Some(ActionKind::Deflect) && e.is_declared() {
                deflector[e.actor as usize] = Some(i);
            }
            if let Origin::Created { passive, visitor } = e.origin {
                created_index.insert((passive, visitor), i);
            }
        }
        let links = has_links(&ensemble);
        let universe = Universe {
            levels: ensemble.priority_levels(),
            ensemble,
            effects,
            n_declared,
            deflector,
            deflections: Box::new(Deflections::none(players.len())),
            // Pieces come from components the product form answers, which never have
            // general redirections.
            general: None,
            links,
            created_index,
            weights: if self.weights.is_empty() {
                Vec::new()
            } else {
                keep.iter()
                    .filter(|&&i| i < self.n_declared)
                    .map(|&i| self.weight(i))
                    .collect()
            },
        };
        (universe, players)
    }

    /// How many identical declared effects declared effect `i` stands for in a cut's
    /// cost: one, except in the universe of a collapsed night ([`super::collapse`]).
    pub fn weight(&self, i: Ix) -> usize {
        self.weights.get(i).copied().unwrap_or(1)
    }

    /// Sets the weights of the declared effects (see [`Universe::weight`]).
    pub(in crate::systems::ar) fn set_weights(&mut self, weights: Vec<usize>) {
        debug_assert_eq!(weights.len(), self.n_declared);
        self.weights = weights;
    }

    /// The ensemble's distinct priorities, ascending (computed once).
    pub fn levels(&self) -> &[u32] {
        &self.levels
    }

    /// Estimated bytes of one set of universe effects (a bitset), for memory charges.
    pub fn set_bytes(&self) -> u64 {
        32 + self.len().div_ceil(8) as u64
    }

    /// Estimated bytes of one target map over the universe (one way), for memory charges.
    pub fn map_bytes(&self) -> u64 {
        24 + 32 * self.len() as u64
    }

    /// Number of universe effects.
    pub fn len(&self) -> usize {
        self.effects.len()
    }

    /// Whether the universe is empty.
    pub fn is_empty(&self) -> bool {
        self.effects.is_empty()
    }

    /// The created effect of a (reflexive passive, visitor) pair, if it is possible.
    pub fn created(&self, passive: Ix, visitor: Player) -> Option<Ix> {
        self.created_index.get(&(passive, visitor)).copied()
    }

    /// Whether created effect `c` is created by a visit (its passive is a `visited:K`),
    /// not by a success (`reflexive:K`). False for declared effects.
    pub fn on_visit(&self, c: Ix) -> bool {
        match self.effects[c].origin {
            Origin::Created { passive, .. } => matches!(
                self.effects[passive].kind,
                Kind::Passive(PassiveKind::Reflexive(_, Trigger::Visit))
            ),
            Origin::Declared(_) => false,
        }
    }

    /// Whether some passive of the night is triggered by visits (`visited:K`): its
    /// components are answered flat, never as pieces.
    pub fn has_visit_triggers(&self) -> bool {
        self.effects[..self.n_declared].iter().any(|e| {
            matches!(
                e.kind,
                Kind::Passive(PassiveKind::Reflexive(_, Trigger::Visit))
            )
        })
    }

    /// Whether the ensemble has any `deflect` action.
    pub fn has_deflections(&self) -> bool {
        self.deflector.iter().any(Option::is_some)
    }

    /// Whether the night has a `hide` or `babysit` (deaths that follow another
    /// player's): its components are answered flat, never as pieces, so that a linked
    /// death is read where its kill is.
    pub fn links_deaths(&self) -> bool {
        self.links
    }

    /// The name of a player.
    pub fn player_name(&self, p: Player) -> &str {
        self.ensemble.player_name(p)
    }

    /// Number of players.
    pub fn n_players(&self) -> usize {
        self.ensemble.players.len()
    }
}

/// The effects attack `atk` of effect `a` may hit, each once, sorted: the actions of the
/// players in `possible` (a's possible final targets) by actor (`Reach::Actor`) or by
/// possible final target (`Reach::Shared`), or those that may end at a's actor
/// (`Reach::Owner`). `stamp` (one entry per effect) marks what this (effect, row) `key`
/// has listed already, so that a caller's loop over every attack stays linear.
#[allow(clippy::too_many_arguments)]
pub fn attack_candidates(
    u: &Universe,
    a: Ix,
    atk: &Attack,
    possible: &[Player],
    by_actor: &[Vec<Ix>],
    by_target: &[Vec<Ix>],
    stamp: &mut [usize],
    key: usize,
) -> Vec<Ix> {
    let owner = [u.effects[a].actor];
    let (via, pool): (&[Player], &[Vec<Ix>]) = match atk.reach {
        Reach::Actor => (possible, by_actor),
        Reach::Shared => (possible, by_target),
        Reach::Owner => (&owner, by_target),
    };
    let mut ys = Vec::new();
    for &p in via {
        for &y in &pool[p as usize] {
            if y != a && stamp[y] != key {
                stamp[y] = key;
                ys.push(y);
            }
        }
    }
    ys.sort_unstable();
    ys
}

/// An effect as a moderator reads it: `Goon kill Cop [e1]`, `Doc passive bulletproof [e4]`
/// (declared targets).
pub fn effect_name(u: &Universe, i: Ix) -> String {
    let e = &u.effects[i];
    let actor = u.player_name(e.actor);
    if e.action().is_none() {
        format!("{actor} passive {} [{}]", e.kind_word(), e.id)
    } else if e.targets.is_empty() {
        format!("{actor} {} [{}]", e.kind_word(), e.id)
    } else {
        let t: Vec<&str> = e.targets.iter().map(|&p| u.player_name(p)).collect();
        // `deflect X to Y`, `redirect X to Y`, as written in night files.
        let sep = match e.action() {
            Some(ActionKind::Deflect | ActionKind::Redirect) if t.len() == 2 => " to ",
            _ => " ",
        };
        format!("{actor} {} {} [{}]", e.kind_word(), t.join(sep), e.id)
    }
}

/// The short name of an effect's actor with its id: `Doc [e3]`.
pub fn actor_name(u: &Universe, i: Ix) -> String {
    format!(
        "{} [{}]",
        u.player_name(u.effects[i].actor),
        u.effects[i].id
    )
}
