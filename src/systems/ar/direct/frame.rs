//! A *frame*: the static problem the direct engine solves for one target map and one set
//! of cut passives (see [`super`] for the constraints C1-C5), with its attack and trigger
//! edges found through per-player indexes (linear in the frame), and its independent
//! components, upstream first. Shared by the labelling search ([`super`]), the cut search
//! ([`super::cuts`]) and the product form ([`super::split`]).
//!
//! Invariants: building polls the budget; every list of edges is sorted; the components
//! partition the frame's effects.

use crate::systems::ar::night::model::{ActionKind, Kind, PassiveKind, Player, Reach};
use crate::systems::ar::night::resolution::{Cut, TargetMap};
use crate::systems::ar::night::universe::{Ix, Origin, Universe};
use crate::systems::spec::{Budget, Interrupted};
use itertools::Itertools;
use petgraph::unionfind::UnionFind;

/// The static problem for one target map and one set of cut passives.
#[derive(Debug)]
pub struct Frame {
    pub(super) n: usize,
    pub(super) attackers: Vec<Vec<Ix>>,
    pub(super) attacks: Vec<Vec<Ix>>,
    /// For a created effect, the actions that may create it: they create it by succeeding
    /// (`trig_of`), or, for a `visited:K` passive, by visiting (`vtrig_of`).
    pub(super) triggers: Vec<Vec<Ix>>,
    pub(super) trig_of: Vec<Vec<Ix>>,
    pub(super) vtrig_of: Vec<Vec<Ix>>,
    /// For a created effect, whether visits create it (its passive is a `visited:K`).
    pub(super) on_visit: Vec<bool>,
    /// For an action that may create an effect by visiting (non-empty `vtrig_of`), the
    /// effects that stop it at its source when they succeed (block rules, commutes: the
    /// rows of the kind table that keep an action from visiting): it visits exactly when
    /// it is live and none of them succeeds. Each is among its attackers. Empty for the
    /// other effects.
    pub(super) sources: Vec<Vec<Ix>>,
    /// The effects each effect is a source of (the transpose of `sources`).
    pub(super) source_of: Vec<Vec<Ix>>,
    /// For a created effect, its reflexive passive (which must be in S for it to exist).
    pub(super) req: Vec<Option<Ix>>,
    /// For a reflexive passive, the created effects that require it.
    pub(super) req_of: Vec<Vec<Ix>>,
    pub(super) created: Vec<bool>,
    /// Level index of each declared effect (for the cost vector).
    pub(super) level: Vec<usize>,
    /// Fixed initial labels: (var, value); var < n is s[var], else live[var - n].
    pub(super) fixed: Vec<(usize, bool)>,
    /// Cut search: a cut declared effect has no attacker in S (see [`Frame::build`]).
    pub(super) cut_dominance: bool,
    /// Connected components of the attack and trigger graph: labellings of different
    /// components are independent, so resolutions are products and cut costs add up.
    pub(super) components: Vec<Vec<Ix>>,
    /// Cut search only: each player's unblockable passives (empty when resolving, where
    /// they are fixed and a block on their owner simply does not attack).
    pub(super) guards: Vec<Vec<Ix>>,
    pub(super) rho: TargetMap,
}

impl Frame {
    /// Builds the frame for target map `rho` (every universe action's final targets).
    /// Declared effects in `cut` are fixed CUT; if `cut_search`, the liveness of uncut
    /// declared *actions* is left open (they may be cut), else fixed live.
    ///
    /// Cut search also enforces *dominance*: in every resolution of E[F] for an optimal
    /// cut F, no cut effect f has an attacker in S — otherwise F \ {f} would have the
    /// same resolution with f failed (a cut no-op and a failed effect act on nothing),
    /// at a strictly smaller cost. So an effect with an attacker in S is OUT, never CUT.
    /// An action that may create by visiting is the exception: failed at its target, it
    /// still visits (unlike a cut no-op), so only a succeeding source (which stops it at
    /// its source) makes it OUT.
    /// `active` fixes the success of every `deflect` effect: a frame is built for one set
    /// of active deflections and one of their redirections (see [`redirection_frames`]).
    /// Building is quadratic in the universe, so it polls `budget`.
    pub fn build(
        u: &Universe,
        rho: &TargetMap,
        cut: &Cut,
        cut_search: bool,
        active: &[(Ix, bool)],
        budget: &Budget,
    ) -> Result<Frame, Interrupted> {
        let n = u.len();
        let levels = u.levels();
        let is_cut = |i: Ix| i < u.n_declared && cut.contains(i);
        let created: Vec<bool> = (0..n).map(|i| i >= u.n_declared).collect();
        // dead: can never be live.
        let dead: Vec<bool> = (0..n)
            .map(|i| match u.effects[i].origin {
                Origin::Declared(_) => is_cut(i),
                Origin::Created { passive, .. } => is_cut(passive),
            })
            .collect();
        // Unblockable passives present in the frame, per owner. Resolving, they cancel
        // every block on their owner; in cut search they may be cut, so a block's attack
        // is guarded by them instead (see `guards`).
        let mut unblockable: Vec<Vec<Ix>> = vec![Vec::new(); u.n_players()];
        for (i, e) in u.effects.iter().enumerate() {
            if e.kind == Kind::Passive(PassiveKind::Unblockable) && !dead[i] {
                unblockable[e.actor as usize].push(i);
            }
        }
        // Who could be hit: the live actions by actor and by final target.
        let mut by_actor: Vec<Vec<Ix>> = vec![Vec::new(); u.n_players()];
        let mut by_target: Vec<Vec<Ix>> = vec![Vec::new(); u.n_players()];
        for y in (0..n).filter(|&y| !dead[y] && u.effects[y].action().is_some()) {
            by_actor[u.effects[y].actor as usize].push(y);
            for &t in rho[y].iter().sorted().dedup() {
                by_target[t as usize].push(y);
            }
        }
        let mut attackers = vec![Vec::new(); n];
        let mut attacks = vec![Vec::new(); n];
        // Sources are listed only for nights with `visited:K` passives (else empty).
        let visits = u.has_visit_triggers();
        let mut sources: Vec<Vec<Ix>> = vec![Vec::new(); n];
        let mut stamp = vec![usize::MAX; n];
        for a in (0..n).filter(|&a| !dead[a]) {
            if a % 1024 == 0 {
                budget.check()?;
            }
            let ae = &u.effects[a];
            let owner = [ae.actor];
            for atk in ae.attacks() {
                let (via, pool): (&[Player], &[Vec<Ix>]) = match atk.reach {
                    Reach::Actor => (&rho[a], &by_actor),
                    Reach::Shared => (&rho[a], &by_target),
                    Reach::Owner => (&owner, &by_target),
                };
                for &t in via {
                    for &y in &pool[t as usize] {
                        if y == a {
                            continue;
                        }
                        let ye = &u.effects[y];
                        // Resolving, a fixed `unblockable` cancels every block on its owner.
                        let hit = ye.hit_by(&atk, ae)
                            && (!atk.block
                                || cut_search
                                || unblockable[ye.actor as usize].is_empty());
                        // A jail's block row stops y at its source even where its
                        // protection is what makes y fail (rows are seen block first).
                        if hit && atk.at_source && visits && sources[y].last() != Some(&a) {
                            sources[y].push(a);
                        }
                        if stamp[y] == a {
                            continue;
                        }
                        if hit {
                            stamp[y] = a;
                            attackers[y].push(a);
                            attacks[a].push(y);
                        }
                    }
                }
            }
        }
        for l in &mut attackers {
            l.sort_unstable();
        }
        for l in &mut attacks {
            l.sort_unstable();
        }
        let mut triggers = vec![Vec::new(); n];
        let mut trig_of = vec![Vec::new(); n];
        let mut vtrig_of = vec![Vec::new(); n];
        let mut on_visit = vec![false; n];
        for c in (0..n).filter(|&c| !dead[c]) {
            if let Origin::Created { passive, visitor } = u.effects[c].origin {
                if c % 1024 == 0 {
                    budget.check()?;
                }
                on_visit[c] = u.on_visit(c);
                let owner = u.effects[passive].actor;
                let only = u.effects[passive].mods.only;
                for &g in &by_actor[visitor as usize] {
                    let kind_ok =
                        only.is_none_or(|o| u.effects[g].action().is_some_and(|k| o.contains(k)));
                    if kind_ok && rho[g].contains(&owner) {
                        triggers[c].push(g);
                        if on_visit[c] {
                            vtrig_of[g].push(c);
                        } else {
                            trig_of[g].push(c);
                        }
                    }
                }
            }
        }
        for l in trig_of.iter_mut().chain(&mut vtrig_of) {
            l.sort_unstable();
        }
        // Only the actions that may create by visiting keep their sources.
        let mut source_of = vec![Vec::new(); n];
        for (y, l) in sources.iter_mut().enumerate() {
            if vtrig_of[y].is_empty() {
                l.clear();
            }
            l.sort_unstable();
            for &a in l.iter() {
                source_of[a].push(y);
            }
        }
        // In cut search, a block on an actor with unblockable passives attacks only if
        // every one of them is cut.
        let guards: Vec<Vec<Ix>> = if cut_search {
            unblockable
        } else {
            vec![Vec::new(); u.n_players()]
        };
        let mut fixed = Vec::new();
        for (i, &is_dead) in dead.iter().enumerate() {
            if is_dead {
                fixed.push((n + i, false));
            } else if i < u.n_declared && !cut_search {
                fixed.push((n + i, true));
            }
        }
        fixed.extend(active.iter().filter(|&&(d, _)| !dead[d]));
        let level = (0..u.n_declared)
            .map(|i| {
                levels
                    .binary_search(&u.effects[i].priority)
                    .expect("every priority is a level")
            })
            .collect();
        let mut req = vec![None; n];
        let mut req_of = vec![Vec::new(); n];
        for c in (0..n).filter(|&c| !dead[c]) {
            if let Origin::Created { passive, .. } = u.effects[c].origin {
                req[c] = Some(passive);
                req_of[passive].push(c);
            }
        }
        // A guard joins the effects its blocks hit (it decides whether they are hit).
        let mut guard_of: Vec<Vec<Ix>> = vec![Vec::new(); n];
        for (y, ys) in attackers.iter().enumerate() {
            let guarded = ys.iter().any(|&a| {
                matches!(
                    u.effects[a].kind,
                    Kind::Action(ActionKind::Block | ActionKind::Jail)
                )
            });
            if guarded {
                guard_of[y].clone_from(&guards[u.effects[y].actor as usize]);
            }
        }
        let comps = components(n, &attacks, &trig_of, &vtrig_of, &req_of, &guard_of);
        Ok(Frame {
            n,
            attackers,
            attacks,
            triggers,
            trig_of,
            vtrig_of,
            on_visit,
            sources,
            source_of,
            req,
            req_of,
            created,
            level,
            fixed,
            cut_dominance: cut_search,
            components: comps,
            guards,
            rho: rho.clone(),
        })
    }
}

/// Whether the attack of `a` on `y` (an edge of the frame) is by the block rule alone, so
/// that a succeeding `unblockable` of y's actor cancels it: `a` is a block, or a jail
/// whose protection does not also hit `y` (a kill sharing a final target with it).
pub(super) fn block_only(u: &Universe, rho: &TargetMap, a: Ix, y: Ix) -> bool {
    let ae = &u.effects[a];
    match ae.kind {
        Kind::Action(ActionKind::Block) => true,
        Kind::Action(ActionKind::Jail) => !ae.attacks().any(|atk| {
            !atk.block && u.effects[y].hit_by(&atk, ae) && rho[a].iter().any(|t| rho[y].contains(t))
        }),
        _ => false,
    }
}

/// Connected components of the graph of attack and trigger edges. Each component lists
/// its effects upstream first (strongly connected components in topological order of
/// the directed graph), so the search decides causes before the effects they force.
fn components(
    n: usize,
    attacks: &[Vec<Ix>],
    trig_of: &[Vec<Ix>],
    vtrig_of: &[Vec<Ix>],
    req_of: &[Vec<Ix>],
    guard_of: &[Vec<Ix>],
) -> Vec<Vec<Ix>> {
    let mut succ: Vec<Vec<Ix>> = vec![Vec::new(); n];
    let mut uf = UnionFind::new(n);
    for a in 0..n {
        let edges = attacks[a].iter().chain(&trig_of[a]).chain(&vtrig_of[a]);
        for &y in edges.chain(&req_of[a]) {
            succ[a].push(y);
            uf.union(a, y);
        }
        for &p in &guard_of[a] {
            succ[p].push(a);
            uf.union(p, a);
        }
    }
    // `graph::scc` lists SCCs in reverse topological order (iteratively: a component
    // can be as long as the night).
    let mut rank = vec![0; n];
    for (r, scc) in crate::graph::scc(&succ).iter().rev().enumerate() {
        for &v in scc {
            rank[v] = r;
        }
    }
    let mut by_root: Vec<Vec<Ix>> = vec![Vec::new(); n];
    for x in 0..n {
        by_root[uf.find(x)].push(x);
    }
    let mut comps: Vec<Vec<Ix>> = by_root.into_iter().filter(|c| !c.is_empty()).collect();
    for c in &mut comps {
        c.sort_by_key(|&x| (rank[x], x));
    }
    comps
}
