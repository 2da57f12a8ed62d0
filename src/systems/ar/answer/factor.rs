//! Independent components of a night, and the factorised answer built from them.
//!
//! Two effects *interact* when one could make the other fail, create it or redirect it,
//! under some success set and some redirection (see [`components`]). The connected
//! components of that relation are independent: the acceptable resolutions of the night
//! are exactly the products of the components' resolutions (R, S and the final-target map
//! are unions over components, ways multiply), costs of cuts add level by level, so the
//! optimal cuts are the products of the components' optimal cuts (the lexicographic order
//! on cost vectors is compatible with addition), and the contract's uniform pick is the
//! product of uniform picks. So each component is solved alone ([`Night::parts`]) and the
//! answer ([`Factored`]) is one [`Analysis`] per component; totals are exact integers and
//! flat lists are produced on demand ([`expand`](super::expand)).
//!
//! Invariants: the parts partition the declared effects; part `k`'s universe is built
//! from the sub-ensemble of its declared effects (same ids, priorities and player names,
//! players renumbered in ascending whole order), and `to_whole` maps each of its universe
//! effects to the whole universe's index of the same effect (the sub-universe's potential
//! created effects are exactly the whole universe's created effects of that component).
//! Components are ordered by their first declared effect.

use crate::systems::ar::night::model::{ActionKind, Ensemble, Kind, PassiveKind, Player};
use crate::systems::ar::night::resolution::{Analysis, Classification};
use crate::systems::ar::night::universe::{Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use petgraph::unionfind::UnionFind;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

/// One independent component of a night, as a night of its own.
#[derive(Clone, Debug)]
pub struct Part {
    /// The universe of the component's sub-ensemble.
    pub universe: Universe,
    /// For each universe effect of the part, its index in the whole universe.
    pub to_whole: Vec<usize>,
    /// For each player of the part, its index among the whole night's players.
    pub players: Vec<Player>,
}

/// A night split into independent components: the instance every ?AR engine solves.
#[derive(Clone, Debug)]
pub struct Night {
    /// The whole night's universe (for reports, DIMACS and the text form).
    pub whole: Universe,
    /// The independent components, ordered by their first declared effect.
    pub parts: Vec<Part>,
}

/// The factorised analysis: one [`Analysis`] per part of the [`Night`], same order; or,
/// when some component's answer is a product of pieces ([`super::pieces`]), one per part
/// of the refined night that lists those pieces in place of the component.
#[derive(Clone, Debug)]
pub struct Factored {
    /// Each part's analysis, in canonical order.
    pub parts: Vec<Analysis>,
    /// The night of pieces `parts` follows, when some component was split.
    pub refined: Option<Arc<Refined>>,
}

/// A night whose split components are replaced by their pieces.
#[derive(Clone, Debug)]
pub struct Refined {
    /// The whole night with one part per piece (unsplit components are one piece).
    pub night: Night,
    /// For each component of the instance, its pieces' range in `night.parts`.
    pub ranges: Vec<Range<usize>>,
    /// For each split component, its pieces as a night whose whole is the component.
    pub splits: BTreeMap<usize, Night>,
}

/// The interaction components of a universe, as lists of universe indices (each sorted,
/// the lists ordered by their first element). Two effects are joined when one could make
/// the other fail, create it or redirect it, for some final targets:
/// * a `stop` and the non-stop actions that may share a final target with it;
/// * a `protect` and the kills that may share a final target with it;
/// * a `block` that may end at p and p's submitted actions and `unblockable` passives;
/// * a `bulletproof` passive of p and the kills that may end at p;
/// * a `hide` or `babysit` and the kills that may end at its target or at its actor
///   (a hider dies with its target, a babysat player with its babysitter);
/// * p's `deflect` and every action that may end at p (it may be redirected);
/// * a reflexive passive of p, the actions of other players that may end at p (they
///   trigger it) and the effects it may create.
///
/// "May end at p" reads the universe's deflection graph, which covers every set of active
/// deflections and every processing order. The rules are applied without listing, for
/// each player, every action that may end there (quadratic along a chain of
/// deflections): an action aimed at a deflector joins that deflection, and a deflection
/// aimed at a deflector joins the next, so everything that may end at a player with a
/// deflection is already in one component, that of the deflections of its *tree* (the
/// players with a deflection joined by deflection edges). At such a player only its own
/// passives and actions remain to join, which needs only a summary of what may end there
/// ([`Arrivals`]: kinds, up to two blocks, up to two actors), summed along the tree in
/// linear time. At a player without a deflection, what may end there is what is aimed at
/// it plus, per tree whose paths end there, that tree's summary: one item each. The
/// components are exactly those of the rules above (tested against listing every action).
///
/// A night with a redirection other than a plain deflection (`swap`, `redirect`,
/// `guard`, `deflect X to Y`, a filtered `deflect`; [`Universe::general`]) is one
/// component: such redirections move slots by processing order, which the rules above do
/// not follow.
pub fn components(u: &Universe) -> Vec<Vec<usize>> {
    let n = u.len();
    if u.general.is_some() {
        return if n == 0 {
            Vec::new()
        } else {
            vec![(0..n).collect()]
        };
    }
    let np = u.n_players();
    let d = &u.deflections;
    let mut uf = UnionFind::<usize>::new(n);
    // What is aimed at each player (declared targets), and each player's effects.
    let mut aimed: Vec<Vec<usize>> = vec![Vec::new(); np];
    let mut own_actions: Vec<Vec<usize>> = vec![Vec::new(); np];
    let mut passives: Vec<Vec<usize>> = vec![Vec::new(); np];
    for (i, e) in u.effects.iter().enumerate() {
        match e.kind {
            Kind::Passive(_) => passives[e.actor as usize].push(i),
            Kind::Action(_) => {
                if e.is_submitted_action() {
                    own_actions[e.actor as usize].push(i);
                }
                for (k, &t) in e.targets.iter().enumerate() {
                    if !e.targets[..k].contains(&t) {
                        aimed[t as usize].push(i);
                    }
                    // Aimed at a deflector: it may be redirected (this also joins a
                    // deflection aimed at a deflector to that deflection).
                    if let Some(g) = u.deflector[t as usize] {
                        uf.union(i, g);
                    }
                }
            }
        }
        if let Origin::Created { passive, .. } = e.origin {
            uf.union(i, passive);
        }
    }
    // The summary of what may end at each player with a deflection: what is aimed at it,
    // plus the summaries of the deflectors aimed at it (children first; a cycle shares
    // the sum of its members).
    let mut sum: Vec<Arrivals> = (0..np)
        .map(|p| {
            let mut a = Arrivals::default();
            if u.deflector[p].is_some() {
                aimed[p].iter().for_each(|&i| a.add(u, i));
            }
            a
        })
        .collect();
    let mut pending: Vec<u32> = vec![0; np];
    for p in 0..np as Player {
        if let Some(q) = d.next(p) {
            if q != p && u.deflector[q as usize].is_some() {
                pending[q as usize] += 1;
            }
        }
    }
    let mut ready: Vec<Player> = (0..np as Player)
        .filter(|&p| u.deflector[p as usize].is_some() && pending[p as usize] == 0)
        .collect();
    while let Some(p) = ready.pop() {
        if let Some(q) = d.next(p).filter(|&q| q != p) {
            if u.deflector[q as usize].is_some() {
                let a = sum[p as usize].clone();
                sum[q as usize].merge(&a);
                pending[q as usize] -= 1;
                if pending[q as usize] == 0 {
                    ready.push(q);
                }
            }
        }
    }
    for cycle in d.cycles() {
        if cycle.len() < 2 {
            continue;
        }
        let mut all = Arrivals::default();
        cycle.iter().for_each(|&q| all.merge(&sum[q as usize]));
        cycle.iter().for_each(|&q| sum[q as usize] = all.clone());
    }
    // At a player without a deflection: the trees whose paths end there.
    let mut trees: Vec<Vec<Player>> = vec![Vec::new(); np];
    for p in 0..np as Player {
        if let Some(q) = d.next(p) {
            if u.deflector[q as usize].is_none() {
                trees[q as usize].push(p);
            }
        }
    }
    let mut items: Vec<(usize, Arrivals)> = Vec::new();
    for p in 0..np {
        items.clear();
        if let Some(g) = u.deflector[p] {
            items.push((g, sum[p].clone()));
        } else {
            for &i in &aimed[p] {
                let mut a = Arrivals::default();
                a.add(u, i);
                items.push((i, a));
            }
            for &r in &trees[p] {
                let g = u.deflector[r as usize].expect("a tree's root deflects");
                items.push((g, sum[r as usize].clone()));
            }
        }
        if items.is_empty() {
            continue;
        }
        join_at(
            u,
            &mut uf,
            p as Player,
            &items,
            &own_actions[p],
            &passives[p],
        );
    }
    let mut by_root: std::collections::HashMap<usize, usize> = Default::default();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let r = uf.find(i);
        let k = *by_root.entry(r).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[k].push(i);
    }
    out
}

/// What may end at a player, summarised for [`components`]: the action kinds, up to two
/// distinct blocks and up to two distinct actors (enough to decide "a block other than
/// this victim" and "an action of another player").
#[derive(Clone, Debug, Default)]
struct Arrivals {
    kinds: u16,
    /// A `protect` with a filter: it may hit any kind sharing a target, as a stop does.
    wide: bool,
    blocks: [Option<usize>; 2],
    actors: [Option<Player>; 2],
}

fn keep_two<T: PartialEq + Copy>(two: &mut [Option<T>; 2], x: T) {
    if two[0].is_none() {
        two[0] = Some(x);
    } else if two[0] != Some(x) && two[1].is_none() {
        two[1] = Some(x);
    }
}

fn kind_bit(k: ActionKind) -> u16 {
    1 << ActionKind::ALL
        .iter()
        .position(|&x| x == k)
        .expect("every kind is listed")
}

impl Arrivals {
    fn add(&mut self, u: &Universe, i: usize) {
        let e = &u.effects[i];
        let k = e.action().expect("arrivals are actions");
        self.kinds |= kind_bit(k);
        if is_block(k) {
            keep_two(&mut self.blocks, i);
        }
        self.wide |= is_wide(e);
        keep_two(&mut self.actors, e.actor);
    }

    fn merge(&mut self, o: &Arrivals) {
        self.kinds |= o.kinds;
        self.wide |= o.wide;
        o.blocks
            .iter()
            .flatten()
            .for_each(|&b| keep_two(&mut self.blocks, b));
        o.actors
            .iter()
            .flatten()
            .for_each(|&a| keep_two(&mut self.actors, a));
    }

    fn has(&self, k: ActionKind) -> bool {
        self.kinds & kind_bit(k) != 0
    }

    fn has_other_than(&self, k: ActionKind) -> bool {
        self.kinds & !kind_bit(k) != 0
    }

    fn other_actor(&self, p: Player) -> bool {
        self.actors.iter().flatten().any(|&a| a != p)
    }
}

/// Whether an action kind blocks its targets' actions (`block`, `jail`).
fn is_block(k: ActionKind) -> bool {
    matches!(k, ActionKind::Block | ActionKind::Jail)
}

/// Whether an action kind protects its targets from kills (`protect`, `jail`).
#[cfg(test)]
fn is_protect(k: ActionKind) -> bool {
    matches!(
        k,
        ActionKind::Protect | ActionKind::Jail | ActionKind::Hide | ActionKind::Babysit
    )
}

/// A `protect` with a filter (`protect[kill,block]`): joined like a stop, with every
/// action that may share a target with it.
fn is_wide(e: &crate::systems::ar::night::universe::UEffect) -> bool {
    e.action() == Some(ActionKind::Protect) && e.mods.only.is_some()
}

/// Whether an effect turns away actions of other players aimed at its owner, whatever
/// their kind (`immune`, `commute`), or is triggered by them (reflexive passives).
fn watches_visitors(k: Kind) -> bool {
    matches!(
        k,
        Kind::Passive(PassiveKind::Reflexive(..) | PassiveKind::Immune)
            | Kind::Action(ActionKind::Commute)
    )
}

/// The rules of [`components`] at player p, over the items that may end there (each an
/// effect standing for a set already joined, with that set's summary).
fn join_at(
    u: &Universe,
    uf: &mut UnionFind<usize>,
    p: Player,
    items: &[(usize, Arrivals)],
    own_actions: &[usize],
    passives: &[usize],
) {
    let any = |f: &dyn Fn(&Arrivals) -> bool| items.iter().any(|(_, a)| f(a));
    let join = |uf: &mut UnionFind<usize>, with: usize, f: &dyn Fn(&Arrivals) -> bool| {
        for (i, a) in items {
            if f(a) {
                uf.union(with, *i);
            }
        }
    };
    let first = items[0].0;
    // Stops (and filtered protects) and the actions that may share p with them.
    if (any(&|a| a.has(ActionKind::Stop)) && any(&|a| a.has_other_than(ActionKind::Stop)))
        || (any(&|a| a.wide) && items.len() > 1)
    {
        join(uf, first, &|_| true);
    }
    // Protects (and jails) and kills.
    let kills = any(&|a| a.has(ActionKind::Kill));
    // (A hide and a babysit too: the hider dies with a killed target, the babysit
    // protects it.)
    let shields = |a: &Arrivals| {
        a.has(ActionKind::Protect)
            || a.has(ActionKind::Jail)
            || a.has(ActionKind::Hide)
            || a.has(ActionKind::Babysit)
    };
    if kills && any(&shields) {
        let f = |a: &Arrivals| a.has(ActionKind::Kill) || shields(a);
        let with = items.iter().find(|(_, a)| f(a)).expect("some").0;
        join(uf, with, &f);
    }
    // Blocks and the blocked player's submitted actions and unblockable passives; a block
    // never hits itself.
    let mut blocks: [Option<usize>; 2] = [None; 2];
    for (_, a) in items {
        a.blocks
            .iter()
            .flatten()
            .for_each(|&b| keep_two(&mut blocks, b));
    }
    if let Some(b0) = blocks[0] {
        let victims: Vec<usize> = own_actions
            .iter()
            .copied()
            .chain(
                passives
                    .iter()
                    .copied()
                    .filter(|&i| u.effects[i].kind == Kind::Passive(PassiveKind::Unblockable)),
            )
            .collect();
        if victims.iter().any(|&v| blocks[1].is_some() || v != b0) {
            join(uf, b0, &|a| {
                a.has(ActionKind::Block) || a.has(ActionKind::Jail)
            });
            for v in victims {
                uf.union(b0, v);
            }
        }
    }
    for &q in passives.iter().chain(own_actions) {
        match u.effects[q].kind {
            // The kills on p: a hide of p turns them away, a babysit of p dies with them.
            Kind::Passive(PassiveKind::Bulletproof)
            | Kind::Action(ActionKind::Hide | ActionKind::Babysit)
                if kills =>
            {
                join(uf, q, &|a| a.has(ActionKind::Kill));
            }
            k if watches_visitors(k) => join(uf, q, &|a| a.other_actor(p)),
            _ => {}
        }
    }
}

impl Night {
    /// Splits a universe into its independent components.
    pub fn new(whole: Universe) -> Night {
        Night::new_within(whole, &Budget::new()).expect("an unbounded budget never stops")
    }

    /// Splits a universe, polling `budget` between components (building each
    /// component's universe charges it as [`Universe::new_within`] does).
    pub fn new_within(whole: Universe, budget: &Budget) -> Result<Night, Interrupted> {
        let comps = components(&whole);
        if let [only] = comps.as_slice() {
            if only.len() == whole.len() {
                // One component: the whole universe is its own part (players that do
                // nothing stay; they change no answer).
                let part = Part {
                    universe: whole.clone(),
                    to_whole: (0..whole.len()).collect(),
                    players: (0..whole.n_players() as Player).collect(),
                };
                return Ok(Night {
                    whole,
                    parts: vec![part],
                });
            }
        }
        let mut parts = Vec::new();
        let mut local = vec![u32::MAX; whole.n_players()];
        for comp in comps {
            let declared: Vec<usize> = comp
                .iter()
                .copied()
                .filter(|&i| i < whole.n_declared)
                .collect();
            if declared.is_empty() {
                continue; // created effects always join their (declared) passive
            }
            let mut players: Vec<Player> = declared
                .iter()
                .flat_map(|&i| {
                    let e = &whole.ensemble.effects[i];
                    std::iter::once(e.actor).chain(e.targets.iter().copied())
                })
                .collect();
            players.sort_unstable();
            players.dedup();
            for (k, &p) in players.iter().enumerate() {
                local[p as usize] = k as u32;
            }
            let sub = Ensemble {
                players: players
                    .iter()
                    .map(|&p| whole.player_name(p).to_string())
                    .collect(),
                effects: declared
                    .iter()
                    .map(|&i| {
                        let mut e = whole.ensemble.effects[i].clone();
                        e.actor = local[e.actor as usize];
                        for t in &mut e.targets {
                            *t = local[*t as usize];
                        }
                        e
                    })
                    .collect(),
                alignments: players
                    .iter()
                    .enumerate()
                    .filter_map(|(k, &p)| {
                        whole
                            .ensemble
                            .alignment(p)
                            .map(|a| (k as Player, a.to_string()))
                    })
                    .collect(),
            };
            budget.check()?;
            let universe = Universe::new_within(&sub, budget)?;
            let to_whole = universe
                .effects
                .iter()
                .map(|e| match e.origin {
                    Origin::Declared(k) => declared[k],
                    Origin::Created { passive, visitor } => {
                        let Origin::Declared(pk) = universe.effects[passive].origin else {
                            unreachable!("passives are declared")
                        };
                        whole
                            .created(declared[pk], players[visitor as usize])
                            .expect("a component's created effects exist in the whole universe")
                    }
                })
                .collect();
            parts.push(Part {
                universe,
                to_whole,
                players,
            });
        }
        Ok(Night { whole, parts })
    }

    /// Splits an ensemble.
    pub fn of(ensemble: &Ensemble) -> Night {
        Night::new(Universe::new(ensemble))
    }

    /// The largest part's universe size (0 for an empty night).
    pub fn largest_part(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.universe.len())
            .max()
            .unwrap_or(0)
    }
}

/// Exact totals of a factorised answer, however large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    /// Acceptable resolutions of the uncut night (0 for a paradox).
    pub resolutions: BigUint,
    /// Their ways, summed over resolutions.
    pub ways: BigUint,
    /// Optimal Gordian cuts (0 unless a paradox).
    pub optimal_cuts: BigUint,
    /// Final outcomes the pick can reach (cut, optimal resolution, way).
    pub outcomes: BigUint,
}

impl Factored {
    /// The answer of one analysis per part of the instance.
    pub fn of(parts: Vec<Analysis>) -> Factored {
        Factored {
            parts,
            refined: None,
        }
    }

    /// The night `parts` follows: the instance, or the refined night of pieces.
    pub fn night<'a>(&'a self, instance: &'a Night) -> &'a Night {
        self.refined.as_ref().map_or(instance, |r| &r.night)
    }

    /// The whole night's classification: a paradox when some component is one, a
    /// non-paradox when every component is one.
    pub fn classification(&self) -> Classification {
        Classification::of_parts(self.parts.iter().map(Analysis::classification))
    }

    /// The optimal cost vector over the whole night's priority levels (ascending), the sum
    /// of the paradox components' costs; `None` unless a paradox.
    pub fn cost(&self, night: &Night) -> Option<Vec<usize>> {
        let night = self.night(night);
        if self.classification() != Classification::Paradox {
            return None;
        }
        let levels = night.whole.levels();
        let mut cost = vec![0; levels.len()];
        for (part, a) in night.parts.iter().zip(&self.parts) {
            if let Some(c) = &a.cuts {
                for (p, n) in part.universe.levels().iter().zip(&c.cost) {
                    let l = levels.binary_search(p).expect("a part's level is a level");
                    cost[l] += n;
                }
            }
        }
        Some(cost)
    }

    /// Exact counts of the flat answer's lists.
    pub fn totals(&self, night: &Night) -> Totals {
        let night = self.night(night);
        let paradox = self.classification() == Classification::Paradox;
        let mut t = Totals {
            resolutions: BigUint::one(),
            ways: BigUint::one(),
            optimal_cuts: if paradox {
                BigUint::one()
            } else {
                BigUint::zero()
            },
            outcomes: BigUint::one(),
        };
        for (part, a) in night.parts.iter().zip(&self.parts) {
            t.resolutions *= a.resolutions.len();
            t.ways *= a.resolutions.iter().map(|r| r.ways.len()).sum::<usize>();
            if let (true, Some(c)) = (paradox, &a.cuts) {
                t.optimal_cuts *= c.optimal.len();
            }
            t.outcomes *= super::report::count_outcomes(&part.universe, a);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::night::parse::parse_str;
    use std::path::Path;

    fn night(text: &str) -> Night {
        Night::of(&parse_str(text, Path::new("t.night")).unwrap())
    }

    fn ids(n: &Night) -> Vec<Vec<String>> {
        n.parts
            .iter()
            .map(|p| {
                p.universe
                    .ensemble
                    .effects
                    .iter()
                    .map(|e| e.id.clone())
                    .collect()
            })
            .collect()
    }

    /// The rules of [`components`] applied literally: list every action that may end at
    /// each player (walking every path), then join per player. Quadratic along a chain;
    /// the reference the linear version is checked against.
    fn components_by_listing(u: &Universe) -> Vec<Vec<usize>> {
        let n = u.len();
        let np = u.n_players();
        let mut uf = UnionFind::<usize>::new(n);
        let mut hit: Vec<Vec<usize>> = vec![Vec::new(); np];
        let mut own_actions: Vec<Vec<usize>> = vec![Vec::new(); np];
        let mut passives: Vec<Vec<usize>> = vec![Vec::new(); np];
        for (i, e) in u.effects.iter().enumerate() {
            match e.kind {
                Kind::Passive(_) => passives[e.actor as usize].push(i),
                Kind::Action(_) => {
                    if e.is_submitted_action() {
                        own_actions[e.actor as usize].push(i);
                    }
                    for &t in &e.targets {
                        for p in u.deflections.reach(t) {
                            if !hit[p as usize].contains(&i) {
                                hit[p as usize].push(i);
                            }
                        }
                    }
                }
            }
            if let Origin::Created { passive, .. } = e.origin {
                uf.union(i, passive);
            }
        }
        let kind = |i: usize| u.effects[i].action();
        let join_all = |uf: &mut UnionFind<usize>, a: &[usize], b: &[usize]| {
            if let Some(&r) = a.first().or(b.first()) {
                for &x in a.iter().chain(b) {
                    uf.union(r, x);
                }
            }
        };
        for p in 0..np {
            let h = &hit[p];
            let of = |k: ActionKind| -> Vec<usize> {
                h.iter().copied().filter(|&i| kind(i) == Some(k)).collect()
            };
            let stops = of(ActionKind::Stop);
            let others: Vec<usize> = h
                .iter()
                .copied()
                .filter(|&i| kind(i) != Some(ActionKind::Stop))
                .collect();
            if !stops.is_empty() && !others.is_empty() {
                join_all(&mut uf, &stops, &others);
            }
            let wide: Vec<usize> = h
                .iter()
                .copied()
                .filter(|&i| is_wide(&u.effects[i]))
                .collect();
            if !wide.is_empty() && h.len() > 1 {
                join_all(&mut uf, &wide, h);
            }
            let of_any = |f: fn(ActionKind) -> bool| -> Vec<usize> {
                h.iter()
                    .copied()
                    .filter(|&i| kind(i).is_some_and(f))
                    .collect()
            };
            let (kills, protects, blocks) =
                (of(ActionKind::Kill), of_any(is_protect), of_any(is_block));
            if !kills.is_empty() && !protects.is_empty() {
                join_all(&mut uf, &protects, &kills);
            }
            let victims: Vec<usize> = own_actions[p]
                .iter()
                .copied()
                .chain(
                    passives[p]
                        .iter()
                        .copied()
                        .filter(|&i| u.effects[i].kind == Kind::Passive(PassiveKind::Unblockable)),
                )
                .collect();
            if victims.iter().any(|v| blocks.iter().any(|b| b != v)) {
                join_all(&mut uf, &blocks, &victims);
            }
            if let Some(d) = u.deflector[p] {
                join_all(&mut uf, &[d], h);
            }
            for &q in passives[p].iter().chain(&own_actions[p]) {
                match u.effects[q].kind {
                    Kind::Passive(PassiveKind::Bulletproof)
                    | Kind::Action(ActionKind::Hide | ActionKind::Babysit) => {
                        join_all(&mut uf, &[q], &kills)
                    }
                    k if watches_visitors(k) => {
                        let triggers: Vec<usize> = h
                            .iter()
                            .copied()
                            .filter(|&i| u.effects[i].actor as usize != p)
                            .collect();
                        join_all(&mut uf, &[q], &triggers);
                    }
                    _ => {}
                }
            }
        }
        let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for i in 0..n {
            out.entry(uf.find(i)).or_default().push(i);
        }
        let mut v: Vec<Vec<usize>> = out.into_values().collect();
        v.sort();
        v
    }

    /// The linear components equal the literal listing on random nights where deflections
    /// are frequent (chains, cycles, trees into cycles, self-deflections).
    #[test]
    fn linear_components_equal_the_literal_rules() {
        use crate::systems::ar::night::gen::{night, NightParams};
        let mut checked = 0;
        for seed in 0..3000 {
            let params =
                NightParams::deflect_heavy(2 + (seed % 9) as usize, 2 + (seed % 17) as usize);
            let u = Universe::new(&night(&params, seed));
            let mut got = components(&u);
            got.sort();
            assert_eq!(got, components_by_listing(&u), "seed {seed}");
            checked += usize::from(u.has_deflections());
        }
        assert!(checked > 2000, "{checked} nights with deflections");
    }

    /// A chain of 100,000 deflections (`V kill D0`, `Di deflect D(i+1)`) builds its
    /// universe and components in linear time: listing every player a slot may end at
    /// would be 5 billion entries. One component (the kill and every deflection may move
    /// along the chain together).
    #[test]
    fn a_long_chain_of_deflections_is_linear() {
        let mut text = String::from("V kill D0\n");
        for i in 0..100_000 {
            text.push_str(&format!("D{i} deflect D{}\n", i + 1));
        }
        let e = parse_str(&text, Path::new("chain.night")).unwrap();
        let start = std::time::Instant::now();
        let budget = Budget::with_max_memory(64 << 20);
        let u = Universe::new_within(&e, &budget).expect("within 64 MiB");
        let n = Night::new_within(u, &budget).expect("within 64 MiB");
        assert_eq!(n.parts.len(), 1);
        assert_eq!(
            n.whole.deflections.reach(0).count(),
            1,
            "V deflects nothing"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn disjoint_mutual_blocks_are_separate_components() {
        let n = night("A block B\nB block A\nC block D\nD block C\n");
        assert_eq!(ids(&n), [["e1", "e2"], ["e3", "e4"]]);
        // Player names survive; each part has its own two players.
        assert_eq!(n.parts[1].universe.ensemble.players, ["C", "D"]);
        assert_eq!(n.parts[1].players, [2, 3]);
    }

    #[test]
    fn kills_on_one_player_do_not_interact_but_a_protect_joins_them() {
        // Two kills on V make nothing fail; a protect on V can fail both.
        let n = night("A kill V\nB kill V\n");
        assert_eq!(ids(&n), [["e1"], ["e2"]]);
        let n = night("A kill V\nB kill V\nD protect V\n");
        assert_eq!(ids(&n), [["e1", "e2", "e3"]]);
    }

    #[test]
    fn a_deflection_joins_every_action_that_may_reach_its_actor() {
        // e1 aims at D, whose deflect may move it to V, where the bulletproof acts; e4 is
        // unrelated.
        let n = night("A kill D\nD deflect V\nV passive bulletproof\nX visit Y\n");
        assert_eq!(ids(&n), [vec!["e1", "e2", "e3"], vec!["e4"]]);
    }

    #[test]
    fn reflexive_creation_joins_triggers_and_what_the_created_effect_touches() {
        // A visits R (reflexive kill) -> created kill R>A at A; P protects A, so the
        // protect joins through the created effect.
        let n = night("A visit R\nR passive reflexive:kill\nP protect A\nQ visit Z\n");
        assert_eq!(ids(&n), [vec!["e1", "e2", "e3"], vec!["e4"]]);
        let created = n.parts[0].universe.len() - n.parts[0].universe.n_declared;
        assert_eq!(created, 1);
        let whole_ix = n.parts[0].to_whole[3];
        assert_eq!(n.whole.effects[whole_ix].id, "e2>A");
    }

    #[test]
    fn blocks_join_the_blocked_players_actions_and_unblockable() {
        let n = night("A block B\nB kill C\nB passive unblockable\nE kill F\n");
        assert_eq!(ids(&n), [vec!["e1", "e2", "e3"], vec!["e4"]]);
        // A block on a player with no action touches nothing.
        let n = night("A block B\nC kill D\n");
        assert_eq!(ids(&n), [["e1"], ["e2"]]);
    }
}
