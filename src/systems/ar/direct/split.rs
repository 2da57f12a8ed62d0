//! A component's optimal labellings as a product *inside* the component: what every
//! optimal labelling shares (its backbone) fixed, and the rest split into independent
//! groups, each with every labelling of its own.
//!
//! The component is one component of a cut-search [`Frame`] (without deflections, where
//! one frame is the whole story), written as nogoods by [`super::cuts`], or a component
//! with deflections written once with its redirections as decisions by
//! [`super::redirect`] (its `last` variables, which cycle member is processed last, are
//! labels too: the ways). Its optimal labellings are exactly the pairs (optimal cut F,
//! acceptable resolution of E\[F\]); a component that resolves has the cost vector zero
//! and its labellings are its resolutions. A *part* is such a problem on its own
//! variables. Steps, for a part:
//!
//! 1. The least cost vector, level by level (most important first; in a large part
//!    core-guided by [`super::oll`], whose final assumptions every optimal labelling
//!    satisfies and are then held for good; in a small one from above). When a level's
//!    least cost is zero, each of its effects is uncut in every optimal labelling; when
//!    it is not, in a large part, the effects in no core and cut by no probe are: those
//!    values, propagated through the nogoods, may cut the part into independent parts
//!    (step 3 with these values), each then solved on its own from step 1 (costs add,
//!    and the lexicographic order is compatible with addition). A part that falls out
//!    this way starts at the next level: at the levels done, its share of the optimum
//!    (what it costs in an optimal labelling of the whole) is its own least cost, since a
//!    cheaper one would make a cheaper whole.
//! 2. At the least cost, the backbone B: a first labelling gives the candidates; each
//!    further search must flip some remaining candidate (and prefers flipping all), and
//!    every labelling it finds drops the candidates it flips, until none can be flipped.
//! 3. Groups: with the fixed values put in, every nogood they do not satisfy joins its
//!    free variables, and an effect's two variables are joined. Grounded creation (C5) is
//!    not a nogood written out in advance, so a live created effect that the fixed values
//!    do not already derive, nor ground whenever it is live (a trigger in S through fixed
//!    values alone), joins its triggers and their guards (and so its whole possible
//!    derivation) too. With deflections, every action that may be live joins what decides
//!    where it ends ([`pieces::join_redirected`]), since the answer shows final targets.
//!    A group is a class holding a free variable and an effect (a class of auxiliary
//!    variables alone decides no label).
//! 4. Each group of B's grouping has its labellings enumerated on its own (its nogoods
//!    with B's values put in, and its share of the cost as the bound). A group joined
//!    only for its answer (with deflections, an action and what decides where it ends)
//!    may hold several parts that no nogood nor derivation joins: each is enumerated on
//!    its own at its own share, and the group's labellings are their product. A part
//!    with more than [`CUBES_FROM`] labellings that still has open cut variables is
//!    enumerated again split on them: each choice of what is cut (one search each) is a
//!    *cube*, its values propagated and the part grouped again as in step 3 (nogoods and
//!    derivations only), and its labellings are the product of those groups' (the same
//!    argument as below: under a choice the cost is fixed). A deflection-heavy part with
//!    10^5 labellings over 20 cuts is then a few hundred labellings found. A cube is
//!    grouped over its open nogoods with every variable that is not a label (nor a
//!    trigger's guard, which grounded creation reads) eliminated by resolution
//!    ([`quantified`]): the same labellings, but the variables that say where a slot ends
//!    no longer join labels whose values do not depend on each other, and each group is
//!    searched over far fewer variables.
//!
//! Why the product is exact: with values that hold in every optimal labelling put in,
//! every nogood lives inside one group, and so does every derivation of a created effect
//! those values do not derive, so any choice of one labelling per group, with the values,
//! is a labelling of the part. Its cost is the sum of the groups' costs; each group's
//! cost is the least it can have (a cheaper one would give a cheaper labelling of the
//! part), and costs add, so every choice is optimal, and every optimal labelling is such
//! a choice (it agrees with the values, and its share in each group is a labelling of
//! that group at that group's least cost).
//!
//! Invariant: [`product`] and [`product_of`] answer the component's optimal labellings
//! exactly (tested against the engines' flat answers and brute force through
//! [`crate::systems::ar::answer::pieces`]).

use super::cuts::{self, unfounded, FixedLabels, Written};
use super::frame::Frame;
use super::learn::{lit, neg, Learner, Lit, Problem};
use super::oll;
use crate::systems::ar::answer::pieces::{self, Cube, Factor, Labelling, Rows};
pub use crate::systems::ar::answer::pieces::{Group, Product};
use crate::systems::ar::night::model::Player;
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use crate::units;
use petgraph::unionfind::UnionFind;
use std::collections::HashMap;

/// The optimal labellings of component `comp` of cut-search frame `f` as a product; `None`
/// when the component has no labelling at all.
pub fn product(
    u: &Universe,
    f: &Frame,
    fixed: &FixedLabels,
    comp: &[Ix],
    budget: &Budget,
) -> Result<Option<Product>, Interrupted> {
    let levels = u.levels().len();
    let (w, problem) = cuts::write(u, f, fixed, comp, levels);
    product_of(u, w, f.n, problem, None, budget)
}

/// The optimal labellings of a written component as a product (`n`: the size of the
/// universe its labels number). `redirected`: the targets are not fixed by a frame but
/// decided by deflections, with each cycle member's `last` variable (player, variable).
pub(super) fn product_of(
    u: &Universe,
    w: Written,
    n: usize,
    problem: Problem,
    redirected: Option<Vec<(Player, usize)>>,
    budget: &Budget,
) -> Result<Option<Product>, Interrupted> {
    let ctx = Ctx {
        u,
        n,
        levels: u.levels().len(),
        redirected: redirected.is_some(),
        budget,
    };
    let mut out = Out {
        product: Product {
            fixed: Vec::new(),
            groups: Vec::new(),
        },
        known: vec![None; 2 * n + u.n_players()],
    };
    let part = Part {
        w,
        problem,
        lasts: redirected.unwrap_or_default(),
        pinned: Vec::new(),
    };
    Ok(ctx.solve(part, &mut out)?.then_some(out.product))
}

/// The value of a literal under partial values, if fixed.
fn value(b: &[Option<bool>], l: Lit) -> Option<bool> {
    b[(l >> 1) as usize].map(|v| v == (l & 1 == 0))
}

/// What a search over parts shares.
struct Ctx<'a> {
    u: &'a Universe,
    n: usize,
    levels: usize,
    redirected: bool,
    budget: &'a Budget,
}

/// The product under construction, and every label's value fixed so far (by label, in
/// frame numbering: a part's fixed values are recorded before its sub-parts are solved).
struct Out {
    product: Product,
    known: Vec<Option<bool>>,
}

impl Out {
    fn fix(&mut self, labels: Labelling) {
        for &(k, x) in &labels {
            self.known[k] = Some(x);
        }
        self.product.fixed.extend(labels);
    }
}

/// One self-contained problem: its effects (`w.comp`, universe indices; effect j has
/// variables `w.s(j)` and `w.live(j)`), nogoods over its own variables, and the `last`
/// variables of its cycles (player, variable).
struct Part {
    w: Written,
    problem: Problem,
    lasts: Vec<(Player, usize)>,
    /// The least cost of the part at its first `pinned.len()` levels, when known (a part
    /// that fell out of a larger one, whose optimum there is the sum of its parts'
    /// least costs): those levels are bounded at once, not optimised again.
    pinned: Vec<usize>,
}

/// A part being solved, as [`Ctx::fall_apart`] reads it (`open`: its variables the facts
/// leave open).
struct Split<'a> {
    w: &'a Written,
    lasts: &'a [(Player, usize)],
    vars: usize,
    clauses: &'a [Vec<Lit>],
    open: usize,
}

/// `forced` with every cut literal of `lits` that is not `cuttable` made false.
fn uncut(forced: &[Lit], lits: &[Lit], cuttable: &[Lit]) -> Vec<Lit> {
    let cuttable: std::collections::HashSet<Lit> = cuttable.iter().copied().collect();
    let mut f = forced.to_vec();
    f.extend(
        lits.iter()
            .filter(|c| !cuttable.contains(c))
            .map(|&c| neg(c)),
    );
    f
}

/// A part's variables split by fixed values: the labels they fix and the groups.
struct Grouping {
    fixed: Labelling,
    groups: Vec<Spec>,
    /// Created effects (local) the fixed values derive on their own.
    derived: Vec<bool>,
    /// Created effects (local) that may be live and that the fixed values ground whenever
    /// they are (their groups need not hold a derivation).
    settled: Vec<bool>,
}

/// One group of a [`Grouping`]: its effects (local, ascending), its free variables, the
/// nogoods it owns, the created effects whose derivation it decides, its free `last`
/// variables.
#[derive(Default)]
struct Spec {
    effects: Vec<usize>,
    free: Vec<usize>,
    own: Vec<usize>,
    watch: Vec<usize>,
    lasts: Vec<(Player, usize)>,
    /// When the group is joined for its answer only (an action with what decides where
    /// it ends) and its nogoods and derivations fall into several parts: those parts, each
    /// a spec of its own (empty otherwise). The group's labellings are their product.
    parts: Vec<Spec>,
}

impl Ctx<'_> {
    /// Solves `part` into `out` (its fixed labels and groups); `false` if it has no
    /// labelling at all.
    fn solve(&self, part: Part, out: &mut Out) -> Result<bool, Interrupted> {
        self.budget.check()?;
        let clauses = part.problem.clauses.clone();
        let facts = part.problem.facts.clone();
        let counted = part.problem.counted.clone();
        let vars = part.problem.vars;
        let mut l = Learner::new(part.problem, self.budget)?;
        let found = self.solve_with(
            &part.w,
            &part.lasts,
            &part.pinned,
            vars,
            &clauses,
            &facts,
            &counted,
            &mut l,
            out,
        );
        l.release(self.budget);
        found
    }

    #[allow(clippy::too_many_arguments)]
    fn solve_with(
        &self,
        w: &Written,
        lasts: &[(Player, usize)],
        pinned: &[usize],
        vars: usize,
        clauses: &[Vec<Lit>],
        facts: &[Lit],
        counted: &[Vec<Lit>],
        l: &mut Learner,
        out: &mut Out,
    ) -> Result<bool, Interrupted> {
        let budget = self.budget;
        let levels = self.levels;
        let mut check = |l: &Learner| unfounded(w, l);
        // Levels whose least cost is known are bounded there from the start.
        let mut opt: Vec<usize> = Vec::with_capacity(levels);
        opt.extend_from_slice(pinned);
        if !opt.is_empty() {
            let pins: Vec<Option<usize>> = (0..levels).map(|i| opt.get(i).copied()).collect();
            l.set_bounds(&pins);
        }
        if !l.solve(budget, &mut check)? {
            return Ok(false);
        }
        let counts = |l: &Learner| (0..levels).map(|i| l.count(i)).collect::<Vec<_>>();
        let mut upper = counts(l);
        let mut forced: Vec<Lit> = facts.to_vec();
        // What the facts fix: a level decides something new only if it counts an effect
        // they leave open, and the part falls apart only into less than it has open.
        let given = propagate(vars, clauses, facts, budget)?;
        let open = given.iter().filter(|x| x.is_none()).count();
        let ctx = Split {
            w,
            lasts,
            vars,
            clauses,
            open,
        };
        for level in opt.len()..levels {
            if upper[level..].iter().all(|&c| c == 0) {
                // The labelling found cuts nothing at this level or any later one: their
                // optima are all 0, pinned at once (a level at a time costs a search each,
                // quadratic in a night with thousands of priorities). Uncut effects are
                // facts of every optimal labelling, so the part may fall apart on them.
                opt.resize(levels, 0);
                l.set_bounds(&opt.iter().map(|&c| Some(c)).collect::<Vec<_>>());
                let decides = counted[level..levels - 1]
                    .iter()
                    .flatten()
                    .any(|&c| value(&given, c).is_none());
                if decides {
                    let rest: Vec<Lit> = counted[level..].iter().flatten().copied().collect();
                    forced = uncut(&forced, &rest, &[]);
                    if self.fall_apart(&ctx, forced.clone(), levels, l, out)? {
                        return Ok(true);
                    }
                }
                break;
            }
            // In a large part, the least count core-guided: what every labelling with it
            // has is then held for good (the level is pinned there from now on), and the
            // level's effects in no core are uncut in every optimal labelling.
            let mut lower = 0;
            let large = vars >= PROBE_FROM;
            let decides = counted[level].iter().any(|&c| value(&given, c).is_none());
            let mut candidates: &[Lit] = &counted[level];
            let held: Vec<Lit>;
            if large && upper[level] > 0 {
                let Some(least) = oll::least(l, &counted[level], &mut check, budget)? else {
                    unreachable!("the learner is bounded at a cost some labelling has");
                };
                upper = counts(l);
                assert_eq!(
                    upper[level], least.cost,
                    "bug in gordian: the core-guided least cost is not the labelling's"
                );
                lower = least.cost;
                let uncut: std::collections::HashSet<Lit> = least.holds.iter().copied().collect();
                held = counted[level]
                    .iter()
                    .copied()
                    .filter(|&c| !uncut.contains(&neg(c)))
                    .collect();
                candidates = &held;
                l.hold(&least.holds);
            }
            let pins_at = |opt: &[usize], c: usize| -> Vec<Option<usize>> {
                (0..levels)
                    .map(|i| match i.cmp(&level) {
                        std::cmp::Ordering::Less => Some(opt[i]),
                        std::cmp::Ordering::Equal => Some(c),
                        std::cmp::Ordering::Greater => None,
                    })
                    .collect()
            };
            // Down from the best count found: each labelling found lowers it; the first
            // bound with none, or the lower bound, proves it optimal (earlier levels
            // pinned at their optima).
            while upper[level] > lower {
                l.set_bounds(&pins_at(&opt, upper[level] - 1));
                // Each search starts from "nothing of this level cut" (not from the last
                // labelling's cuts): the bound then falls by many at a step, not by one.
                l.prefer(
                    counted[level]
                        .iter()
                        .map(|&c| ((c >> 1) as usize, c & 1 == 1)),
                );
                if !l.solve(budget, &mut check)? {
                    break;
                }
                upper = counts(l);
            }
            opt.push(upper[level]);
            let pins: Vec<Option<usize>> = (0..levels).map(|i| opt.get(i).copied()).collect();
            l.set_bounds(&pins);
            if level + 1 == levels || !decides {
                continue;
            }
            // The level's effects that no labelling at the optimum so far cuts (all of
            // them when its optimum is zero): may the part now fall apart?
            let cuttable = if opt[level] == 0 {
                Vec::new()
            } else if large {
                match cuttable(l, candidates, &pins, &mut check, budget)? {
                    Some(c) => c,
                    None => continue,
                }
            } else {
                continue;
            };
            forced = uncut(&forced, &counted[level], &cuttable);
            if self.fall_apart(&ctx, forced.clone(), level + 1, l, out)? {
                return Ok(true);
            }
        }
        let (b, model) = backbone(w, vars, l, budget)?;
        let g = self.group(w, lasts, &b, clauses, Some(&out.known))?;
        out.fix(g.fixed.clone());
        for k in 0..g.groups.len() {
            budget.check()?;
            let spec = &g.groups[k];
            let factors = if spec.parts.len() < 2 {
                let sub = self.part(w, &g, spec, &b, clauses, &model);
                vec![self.enumerate(sub, &model_share(w, spec, &model, levels), budget)?]
            } else {
                // Each part at its own share (what it costs in the optimal `model`: the
                // least it can, as parts are independent and costs add), then every
                // choice of one labelling per part.
                let mut factors = Vec::with_capacity(spec.parts.len());
                for p in &spec.parts {
                    let sub = self.part(w, &g, p, &b, clauses, &model);
                    factors.push(self.enumerate(
                        sub,
                        &model_share(w, p, &model, levels),
                        budget,
                    )?);
                }
                factors
            };
            let mut es: Vec<Ix> = g.groups[k].effects.iter().map(|&j| w.comp[j]).collect();
            es.sort_unstable();
            out.product.groups.push(Group {
                effects: es,
                factors,
            });
        }
        Ok(true)
    }

    /// Cuts a part into independent parts by the values `forced` (which hold in every
    /// optimal labelling) propagated, and solves each on its own from level `done` (the
    /// levels before are optimised already, and each part is bounded there at its share
    /// of the optimum); `false` (nothing done) when that leaves one part not much smaller.
    fn fall_apart(
        &self,
        p: &Split,
        forced: Vec<Lit>,
        done: usize,
        l: &mut Learner,
        out: &mut Out,
    ) -> Result<bool, Interrupted> {
        let b = propagate(p.vars, p.clauses, &forced, self.budget)?;
        let g = self.group(p.w, p.lasts, &b, p.clauses, Some(&out.known))?;
        let free: usize = g.groups.iter().map(|s| s.free.len()).sum();
        if g.groups.len() < 2 && 4 * free > 3 * p.open {
            return Ok(false);
        }
        // The learner's labelling is optimal so far: the parts start from it.
        let mut check = |l: &Learner| unfounded(p.w, l);
        if !l.solve(self.budget, &mut check)? {
            unreachable!("the learner is bounded at a cost some labelling has");
        }
        let phase: Vec<bool> = (0..p.vars).map(|v| l.is_true(v)).collect();
        out.fix(g.fixed.clone());
        for k in 0..g.groups.len() {
            let mut sub = self.part(p.w, &g, &g.groups[k], &b, p.clauses, &phase);
            // The levels optimised so far: each part's share of the optimum, which is its
            // own least cost there (parts are independent and costs add).
            sub.pinned = model_share(p.w, &g.groups[k], &phase, self.levels);
            sub.pinned.truncate(done);
            if !self.solve(sub, out)? {
                unreachable!("a part of a part with labellings has labellings");
            }
        }
        Ok(true)
    }

    /// The grouping of a part's free variables under the fixed values `b` (step 3).
    fn group(
        &self,
        w: &Written,
        lasts: &[(Player, usize)],
        b: &[Option<bool>],
        clauses: &[Vec<Lit>],
        known: Option<&[Option<bool>]>,
    ) -> Result<Grouping, Interrupted> {
        let (n, m, vars) = (self.n, w.m(), b.len());
        // Created effects that the fixed values alone derive (live, with a derivation
        // through fixed effects only): they need nothing from any group.
        // Whether created effect j has a trigger in S through fixed values alone.
        let fixed_trigger = |j: usize, derived: &[bool]| {
            w.triggers[j]
                .iter()
                .any(|&(g, t)| value(b, t) == Some(true) && (w.grounded[g] || derived[g]))
        };
        let mut derived = vec![false; m];
        loop {
            let mut changed = false;
            for j in 0..m {
                if w.created[j]
                    && !derived[j]
                    && b[w.live(j)] == Some(true)
                    && fixed_trigger(j, &derived)
                {
                    derived[j] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.budget.check()?;
        let mut uf = UnionFind::<usize>::new(vars);
        let mut open: Vec<usize> = Vec::new();
        for (ci, c) in clauses.iter().enumerate() {
            if c.iter().any(|&x| value(b, x) == Some(true)) {
                continue;
            }
            let mut free = c
                .iter()
                .map(|&x| (x >> 1) as usize)
                .filter(|&v| b[v].is_none());
            let Some(first) = free.next() else {
                unreachable!("the fixed values satisfy every nogood");
            };
            free.for_each(|v| {
                uf.union(first, v);
            });
            open.push(ci);
        }
        for j in 0..m {
            uf.union(w.s(j), w.live(j));
        }
        // Created effects that may be live and that the fixed values ground whenever they
        // are: a trigger in S through fixed values only (their liveness is then decided
        // by the nogoods alone).
        let settled: Vec<bool> = (0..m)
            .map(|j| {
                w.created[j]
                    && !derived[j]
                    && b[w.live(j)] != Some(false)
                    && fixed_trigger(j, &derived)
            })
            .collect();
        // Any other created effect that may be live joins its possible derivation: each
        // trigger that may hold, with its guard.
        let needs =
            |j: usize| w.created[j] && b[w.live(j)] != Some(false) && !derived[j] && !settled[j];
        for j in (0..m).filter(|&j| needs(j)) {
            for &(g, t) in &w.triggers[j] {
                if value(b, t) != Some(false) {
                    uf.union(w.live(j), w.s(g));
                    uf.union(w.live(j), (t >> 1) as usize);
                }
            }
        }
        let last_var: HashMap<Player, usize> = lasts.iter().copied().collect();
        // Effects (universe indices) to the part's.
        let local: HashMap<Ix, usize> = if self.redirected {
            w.comp.iter().enumerate().map(|(j, &e)| (e, j)).collect()
        } else {
            HashMap::new()
        };
        for &(p, v) in lasts {
            // A cycle's choice goes with its member's deflection.
            let g = self.u.deflector[p as usize].expect("a cycle member deflects");
            if let Some(&j) = local.get(&g) {
                uf.union(v, w.s(j));
            }
        }
        let mut constraint: Option<UnionFind<usize>> = None;
        if let (true, Some(known)) = (self.redirected, known) {
            // Labels (frame numbering) to the part's variables.
            let var_of = |k: usize| -> Option<usize> {
                if k < n {
                    local.get(&k).map(|&j| w.s(j))
                } else if k < 2 * n {
                    local.get(&(k - n)).map(|&j| w.live(j))
                } else {
                    last_var.get(&((k - 2 * n) as Player)).copied()
                }
            };
            // What the nogoods and derivations join, before what the answer joins.
            constraint = Some(uf.clone());
            pieces::join_redirected(
                self.u,
                |k| match var_of(k) {
                    Some(v) => b[v],
                    None => known[k],
                },
                |p| last_var.contains_key(&p),
                w.comp.iter().copied(),
                self.budget,
                |x, y| {
                    if let (Some(x), Some(y)) = (var_of(x), var_of(y)) {
                        uf.union(x, y);
                    }
                },
            )?;
        }
        // A class is free when it holds a free variable; a group is a free class holding
        // an effect, numbered in order of first effect.
        let mut free_class = vec![false; vars];
        for v in (0..vars).filter(|&v| b[v].is_none()) {
            free_class[uf.find(v)] = true;
        }
        let mut group_of = vec![usize::MAX; vars];
        let mut groups: Vec<Spec> = Vec::new();
        let mut fixed: Labelling = Vec::new();
        for j in 0..m {
            let (s, live) = (w.s(j), w.live(j));
            let e = w.comp[j];
            if let Some(x) = b[s] {
                fixed.push((e, x));
            }
            if let Some(x) = b[live] {
                fixed.push((n + e, x));
            }
            let root = uf.find(s);
            if !free_class[root] {
                continue;
            }
            if group_of[root] == usize::MAX {
                group_of[root] = groups.len();
                groups.push(Spec::default());
            }
            groups[group_of[root]].effects.push(j);
        }
        let mut sorted: Vec<(Player, usize)> = lasts.to_vec();
        sorted.sort_unstable();
        for (p, v) in sorted {
            match b[v] {
                Some(true) => fixed.push((2 * n + p as usize, true)),
                Some(false) => {}
                None => {
                    let g = group_of[uf.find(v)];
                    assert!(
                        g != usize::MAX,
                        "a cycle's free choice is grouped with its deflections"
                    );
                    groups[g].lasts.push((p, v));
                }
            }
        }
        for v in (0..vars).filter(|&v| b[v].is_none()) {
            let g = group_of[uf.find(v)];
            if g != usize::MAX {
                groups[g].free.push(v);
            }
        }
        // Each group's nogoods and the created effects whose derivation it decides (a
        // class of auxiliary variables alone is left out: it decides no label).
        for ci in open {
            let v = clauses[ci]
                .iter()
                .map(|&x| (x >> 1) as usize)
                .find(|&v| b[v].is_none())
                .expect("an open nogood has a free variable");
            let g = group_of[uf.find(v)];
            if g != usize::MAX {
                groups[g].own.push(ci);
            }
        }
        for j in (0..m).filter(|&j| needs(j)) {
            let g = group_of[uf.find(w.live(j))];
            assert!(
                g != usize::MAX,
                "an underived created effect has a free class"
            );
            groups[g].watch.push(j);
        }
        if let Some(c) = &constraint {
            for spec in &mut groups {
                spec.parts = parts_of(spec, c, w, clauses, b);
            }
        }
        Ok(Grouping {
            fixed,
            groups,
            derived,
            settled,
        })
    }

    /// Group `k` of `g` as a part of its own: its effects first (s, then live), a
    /// variable fixed true, then its other free variables; its nogoods with the fixed
    /// values `b` put in; `phase` (over the part's variables) as the values tried first.
    fn part(
        &self,
        w: &Written,
        g: &Grouping,
        spec: &Spec,
        b: &[Option<bool>],
        clauses: &[Vec<Lit>],
        phase: &[bool],
    ) -> Part {
        let m = spec.effects.len();
        let tv = 2 * m;
        let mut local: HashMap<usize, usize> = HashMap::new();
        let mut back: Vec<usize> = vec![usize::MAX; 2 * m + 1];
        for (i, &j) in spec.effects.iter().enumerate() {
            local.insert(w.s(j), i);
            local.insert(w.live(j), m + i);
            back[i] = w.s(j);
            back[m + i] = w.live(j);
        }
        for &v in &spec.free {
            if let std::collections::hash_map::Entry::Vacant(e) = local.entry(v) {
                e.insert(back.len());
                back.push(v);
            }
        }
        let vars = back.len();
        let t = lit(tv, true);
        // A literal of the part's problem: fixed ones as the constant.
        let renum = |x: Lit| match value(b, x) {
            Some(true) => t,
            Some(false) => neg(t),
            None => lit(local[&((x >> 1) as usize)], x & 1 == 0),
        };
        let mut facts = vec![t];
        for (i, &j) in spec.effects.iter().enumerate() {
            facts.extend(b[w.s(j)].map(|x| lit(i, x)));
            facts.extend(b[w.live(j)].map(|x| lit(m + i, x)));
        }
        let own: Vec<Vec<Lit>> = spec
            .own
            .iter()
            .map(|&ci| {
                clauses[ci]
                    .iter()
                    .filter(|&&x| value(b, x).is_none())
                    .map(|&x| renum(x))
                    .collect()
            })
            .collect();
        let mut index: HashMap<usize, usize> = HashMap::new();
        for (i, &j) in spec.effects.iter().enumerate() {
            index.insert(j, i);
        }
        let mut counted: Vec<(usize, Lit, usize)> = Vec::new();
        let mut sub = Written {
            comp: spec.effects.iter().map(|&j| w.comp[j]).collect(),
            triggers: vec![Vec::new(); m],
            created: vec![false; m],
            declared: vec![false; m],
            grounded: vec![false; m],
            level: vec![0; m],
            weight: vec![1; m],
        };
        for (i, &j) in spec.effects.iter().enumerate() {
            sub.declared[i] = w.declared[j];
            sub.level[i] = w.level[j];
            sub.weight[i] = w.weight[j];
            sub.grounded[i] = w.grounded[j] || g.derived[j] || g.settled[j];
            if w.declared[j] {
                counted.push((w.level[j], lit(m + i, false), w.weight[j]));
            }
        }
        for &j in &spec.watch {
            let i = index[&j];
            sub.created[i] = true;
            sub.triggers[i] = w.triggers[j]
                .iter()
                .filter(|&&(_, t)| value(b, t) != Some(false))
                .map(|&(g, t)| (index[&g], renum(t)))
                .collect();
        }
        let mut problem = Problem {
            vars,
            clauses: own,
            facts,
            counted: vec![Vec::new(); self.levels],
            phase: back
                .iter()
                .map(|&v| if v == usize::MAX { true } else { phase[v] })
                .collect(),
            atoms: sub.atoms(),
        };
        for (level, l, weight) in counted {
            problem.count(level, l, weight);
        }
        Part {
            w: sub,
            problem,
            lasts: spec.lasts.iter().map(|&(p, v)| (p, local[&v])).collect(),
            pinned: Vec::new(),
        }
    }

    /// Every labelling of a group's part at its share of the cost, as a factor. A part
    /// with open cut variables and more than [`CUBES_FROM`] labellings is enumerated
    /// again split on them ([`Ctx::cubes`]).
    fn enumerate(
        &self,
        part: Part,
        share: &[usize],
        budget: &Budget,
    ) -> Result<Factor, Interrupted> {
        let w = &part.w;
        let mut given = vec![false; part.problem.vars];
        part.problem
            .facts
            .iter()
            .for_each(|&f| given[(f >> 1) as usize] = true);
        let cut_vars: Vec<usize> = (0..w.m())
            .filter(|&j| w.declared[j])
            .map(|j| w.live(j))
            .filter(|&v| !given[v])
            .collect();
        if cut_vars.is_empty() {
            let rows = self.labellings(w, &part.lasts, part.problem, share, usize::MAX, budget)?;
            return Ok(Factor::flat(rows.expect("no limit")));
        }
        let again = part.problem.clone();
        match self.labellings(w, &part.lasts, part.problem, share, CUBES_FROM, budget)? {
            Some(rows) => Ok(Factor::flat(rows)),
            None => self.cubes(w, &part.lasts, again, share, &cut_vars, budget),
        }
    }

    /// Every labelling of a part (`w`, `lasts`, `problem`) at its share of the cost, as
    /// labels; `None` past `limit` labellings.
    fn labellings(
        &self,
        w: &Written,
        lasts: &[(Player, usize)],
        problem: Problem,
        share: &[usize],
        limit: usize,
        budget: &Budget,
    ) -> Result<Option<Rows>, Interrupted> {
        let n = self.n;
        let mut given = vec![false; problem.vars];
        problem
            .facts
            .iter()
            .for_each(|&f| given[(f >> 1) as usize] = true);
        let mut l = Learner::new(problem, budget)?;
        l.set_bounds(&share.iter().map(|&c| Some(c)).collect::<Vec<_>>());
        let m = w.m();
        // Blocked on the labels that may vary (the facts never do).
        let projected: Vec<usize> = (0..2 * m)
            .chain(lasts.iter().map(|&(_, v)| v))
            .filter(|&v| !given[v])
            .collect();
        let mut is_projected = vec![false; given.len()];
        projected.iter().for_each(|&v| is_projected[v] = true);
        // Two bits a label ([`Rows`]).
        let bytes = 16 * (2 * m + lasts.len()).div_ceil(64) as u64;
        let mut out = Rows::default();
        let mut check = |l: &Learner| unfounded(w, l);
        let found = (|| {
            while l.solve(budget, &mut check)? {
                if out.len() == limit {
                    return Ok(false);
                }
                budget.charge("group labellings", bytes)?;
                let labels: Labelling = (0..m)
                    .flat_map(|j| {
                        let e = w.comp[j];
                        [(e, l.is_true(w.s(j))), (n + e, l.is_true(w.live(j)))]
                    })
                    .chain(
                        lasts
                            .iter()
                            .filter(|&&(_, v)| l.is_true(v))
                            .map(|&(p, _)| (2 * n + p as usize, true)),
                    )
                    .collect();
                out.push(&labels);
                // Blocked on its choices when they are all labels that may vary: the
                // labellings with them are this one, and every other labelling with its
                // labels has them too. A nogood of a few choices, where one of every
                // label makes 10^4 labellings slow to propagate.
                let choices = l.decisions();
                let block = if choices.iter().all(|&d| is_projected[(d >> 1) as usize]) {
                    choices.into_iter().map(neg).collect()
                } else {
                    projected.iter().map(|&v| lit(v, !l.is_true(v))).collect()
                };
                l.block(block, budget)?;
            }
            Ok(true)
        })();
        l.release(budget);
        if !found? {
            budget.release(bytes * out.len() as u64);
            return Ok(None);
        }
        Ok(Some(out))
    }

    /// Every labelling of a part at its share of the cost, split on its open cut
    /// variables `cut_vars`: one cube per choice of what is cut. Under a choice, its
    /// values propagated, the part's variables are grouped as in step 3 (nogoods and
    /// derivations only: no join for the answer), and the labellings there are the
    /// fixed labels with every choice of one labelling per group, for the reason the
    /// module doc gives (every labelling with the choice costs the same).
    fn cubes(
        &self,
        w: &Written,
        lasts: &[(Player, usize)],
        problem: Problem,
        share: &[usize],
        cut_vars: &[usize],
        budget: &Budget,
    ) -> Result<Factor, Interrupted> {
        let n = self.n;
        let vars = problem.vars;
        let clauses = problem.clauses.clone();
        let facts = problem.facts.clone();
        let mut l = Learner::new(problem, budget)?;
        l.set_bounds(&share.iter().map(|&c| Some(c)).collect::<Vec<_>>());
        let mut check = |l: &Learner| unfounded(w, l);
        // One labelling with each choice of what is cut.
        let mut models: Vec<Vec<bool>> = Vec::new();
        let bytes = 24 + vars as u64;
        let found = (|| {
            while l.solve(budget, &mut check)? {
                budget.charge("cut choices", bytes)?;
                let model: Vec<bool> = (0..vars).map(|v| l.is_true(v)).collect();
                l.block(
                    cut_vars.iter().map(|&v| lit(v, !model[v])).collect(),
                    budget,
                )?;
                models.push(model);
            }
            Ok(())
        })();
        l.release(budget);
        found?;
        let mut cubes = Vec::with_capacity(models.len());
        for model in &models {
            budget.check()?;
            let mut at = facts.clone();
            at.extend(cut_vars.iter().map(|&v| lit(v, model[v])));
            let b = propagate(vars, &clauses, &at, budget)?;
            let clauses = quantified(w, lasts, &clauses, &b);
            let g = self.group(w, lasts, &b, &clauses, None)?;
            // The fixed labels of effects in no group (a group's labellings carry both
            // labels of each of its effects).
            let grouped: std::collections::HashSet<Ix> = g
                .groups
                .iter()
                .flat_map(|s| s.effects.iter().map(|&j| w.comp[j]))
                .collect();
            let fixed: Labelling = g
                .fixed
                .iter()
                .copied()
                .filter(|&(v, _)| v >= 2 * n || !grouped.contains(&(v % n)))
                .collect();
            let mut factors = Vec::with_capacity(g.groups.len());
            for spec in &g.groups {
                let sub = self.part(w, &g, spec, &b, &clauses, model);
                let share = model_share(w, spec, model, self.levels);
                let rows =
                    self.labellings(&sub.w, &sub.lasts, sub.problem, &share, usize::MAX, budget)?;
                factors.push(rows.expect("no limit"));
            }
            cubes.push(Cube { fixed, factors });
        }
        budget.release(bytes * models.len() as u64);
        Ok(Factor { cubes })
    }
}

/// A part with open cut variables and more labellings than this is enumerated cube by
/// cube ([`Ctx::cubes`]). Tests take every part with more than one that way.
#[cfg(not(test))]
const CUBES_FROM: usize = 256;
#[cfg(test)]
const CUBES_FROM: usize = 1;

/// Parts of at least this many variables whose least cost at a level is not zero look
/// for the level's effects that some optimal labelling cuts (see [`cuttable`]).
#[cfg(not(test))]
const PROBE_FROM: usize = 1024;
#[cfg(test)]
const PROBE_FROM: usize = 8;

/// At most this many searches look for a level's cuttable effects.
const PROBES: usize = 64;

/// The cut literals of `lits` (one level's) true in some labelling within the bounds
/// `pins` (the optimum so far), found by searches that must cut some effect not yet seen
/// cut; `None` after [`PROBES`] searches. Every other effect of the level is uncut in
/// every such labelling: a value that holds in every optimal labelling, which may cut a
/// part into independent parts although the level's least cost is not zero (each part
/// then finds its own share). The learner is left as it was, bounded by `pins`.
fn cuttable(
    l: &mut Learner,
    lits: &[Lit],
    pins: &[Option<usize>],
    check: &mut dyn FnMut(&Learner) -> Option<Vec<Lit>>,
    budget: &Budget,
) -> Result<Option<Vec<Lit>>, Interrupted> {
    if !l.solve(budget, check)? {
        unreachable!("the learner is bounded at a cost some labelling has");
    }
    let mut seen: std::collections::HashSet<Lit> =
        lits.iter().copied().filter(|&c| l.holds(c)).collect();
    let mut probes = 0;
    let found = loop {
        let rest: Vec<Lit> = lits.iter().copied().filter(|c| !seen.contains(c)).collect();
        if rest.is_empty() {
            break Some(seen.into_iter().collect());
        }
        if probes == PROBES {
            break None;
        }
        probes += 1;
        // "Some effect not seen cut is cut", tried first.
        l.block(rest.clone(), budget)?;
        l.prefer(rest.iter().map(|&c| ((c >> 1) as usize, c & 1 == 0)));
        if !l.solve(budget, check)? {
            break Some(seen.into_iter().collect());
        }
        seen.extend(rest.into_iter().filter(|&c| l.holds(c)));
    };
    // The searches' clauses go with a loosening of the bounds; the pins come back.
    l.set_bounds(&vec![None; pins.len()]);
    l.set_bounds(pins);
    Ok(found)
}

/// A group's share of the cost in labelling `model`, by level.
/// A group's parts by what its nogoods and derivations join (`c`, before the joins for
/// the answer): each free variable, effect, nogood, watched derivation and `last`
/// variable goes to its class's part. Empty when the group is one part.
fn parts_of(
    spec: &Spec,
    c: &UnionFind<usize>,
    w: &Written,
    clauses: &[Vec<Lit>],
    b: &[Option<bool>],
) -> Vec<Spec> {
    let mut index: HashMap<usize, usize> = HashMap::new();
    let mut parts: Vec<Spec> = Vec::new();
    let mut part = |v: usize, parts: &mut Vec<Spec>| -> usize {
        let next = parts.len();
        let k = *index.entry(c.find(v)).or_insert(next);
        if k == parts.len() {
            parts.push(Spec::default());
        }
        k
    };
    for &j in &spec.effects {
        let k = part(w.s(j), &mut parts);
        parts[k].effects.push(j);
    }
    for &v in &spec.free {
        let k = part(v, &mut parts);
        parts[k].free.push(v);
    }
    for &ci in &spec.own {
        let v = clauses[ci]
            .iter()
            .map(|&x| (x >> 1) as usize)
            .find(|&v| b[v].is_none())
            .expect("an open nogood has a free variable");
        let k = part(v, &mut parts);
        parts[k].own.push(ci);
    }
    for &j in &spec.watch {
        let k = part(w.live(j), &mut parts);
        parts[k].watch.push(j);
    }
    for &(p, v) in &spec.lasts {
        let k = part(v, &mut parts);
        parts[k].lasts.push((p, v));
    }
    if parts.len() < 2 {
        return Vec::new();
    }
    parts
}

/// What the cut effects of `spec` cost in `model`, per level.
fn model_share(w: &Written, spec: &Spec, model: &[bool], levels: usize) -> Vec<usize> {
    let mut share = vec![0; levels];
    for &j in spec.effects.iter().filter(|&&j| w.declared[j]) {
        if !model[w.live(j)] {
            share[w.level[j]] += w.weight[j];
        }
    }
    share
}

/// The nogoods a part's fixed values `b` leave open, their fixed literals dropped, with
/// every variable that is not a label eliminated by resolution where that does not grow
/// them ([`crate::eliminate`]): not a success or liveness variable, a `last` variable or
/// a trigger's guard (which grounded creation reads). They have, on those variables,
/// exactly the labellings the part's nogoods have with `b`: the auxiliary variables that
/// say where a slot ends no longer join labels that do not decide each other.
fn quantified(
    w: &Written,
    lasts: &[(Player, usize)],
    clauses: &[Vec<Lit>],
    b: &[Option<bool>],
) -> Vec<Vec<Lit>> {
    // Codes `2 · variable + positive` are the learner's literals with the last bit flipped.
    let keep: rustc_hash::FxHashSet<u32> = (0..2 * w.m())
        .chain(lasts.iter().map(|&(_, v)| v))
        .chain(w.triggers.iter().flatten().map(|&(_, t)| (t >> 1) as usize))
        .map(|v| v as u32)
        .collect();
    let open: Vec<Vec<u32>> = clauses
        .iter()
        .filter(|c| !c.iter().any(|&x| value(b, x) == Some(true)))
        .map(|c| {
            c.iter()
                .filter(|&&x| value(b, x).is_none())
                .map(|&x| x ^ 1)
                .collect()
        })
        .collect();
    crate::eliminate::eliminate(open, &keep)
        .into_iter()
        .map(|c| c.into_iter().map(|x| x ^ 1).collect())
        .collect()
}

/// Unit propagation of `facts` through `clauses`, to a fixpoint: values that hold in
/// every labelling with the facts (the first value given for a variable stands).
fn propagate(
    vars: usize,
    clauses: &[Vec<Lit>],
    facts: &[Lit],
    budget: &Budget,
) -> Result<Vec<Option<bool>>, Interrupted> {
    let mut val: Vec<Option<bool>> = vec![None; vars];
    for &f in facts {
        let v = (f >> 1) as usize;
        val[v].get_or_insert(f & 1 == 0);
    }
    units::propagate(
        clauses,
        &mut val,
        |l| ((l >> 1) as usize, l & 1 == 0),
        budget,
    )?;
    Ok(val)
}

/// The backbone of the learner's labellings within its current bounds (each variable's
/// value if it has it in every labelling) and one labelling.
fn backbone(
    w: &Written,
    vars: usize,
    l: &mut Learner,
    budget: &Budget,
) -> Result<(Vec<Option<bool>>, Vec<bool>), Interrupted> {
    let mut check = |l: &Learner| unfounded(w, l);
    if !l.solve(budget, &mut check)? {
        unreachable!("the learner is bounded at a cost some labelling has");
    }
    let model: Vec<bool> = (0..vars).map(|v| l.is_true(v)).collect();
    let mut b: Vec<Option<bool>> = model.iter().map(|&x| Some(x)).collect();
    loop {
        let flip: Vec<Lit> = (0..vars).filter_map(|v| b[v].map(|x| lit(v, !x))).collect();
        if flip.is_empty() {
            break;
        }
        budget.charge("backbone", 4 * flip.len() as u64)?;
        l.block(flip, budget)?;
        l.prefer((0..vars).filter_map(|v| b[v].map(|x| (v, !x))));
        if !l.solve(budget, &mut check)? {
            break;
        }
        for (v, x) in b.iter_mut().enumerate() {
            if x.is_some_and(|x| x != l.is_true(v)) {
                *x = None;
            }
        }
    }
    Ok((b, model))
}
