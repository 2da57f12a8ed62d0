//! A component's optimal labellings as a product *inside* the component: what every
//! optimal labelling shares (its backbone) fixed, and the rest split into independent
//! groups, each with every labelling of its own.
//!
//! The component is one component of a cut-search [`Frame`] (without deflections, where
//! one frame is the whole story), written as nogoods by [`super::cuts`]. Its optimal
//! labellings are exactly the pairs (optimal cut F, acceptable resolution of E\[F\]);
//! a component that resolves has the cost vector zero and its labellings are its
//! resolutions. Steps:
//!
//! 1. The least cost vector, level by level ([`cuts::minimise`]).
//! 2. The backbone B at that cost: a first labelling gives the candidates; each further
//!    search must flip some remaining candidate (and prefers flipping all), and every
//!    labelling it finds drops the candidates it flips, until none can be flipped.
//! 3. Groups: with B fixed, every nogood that B does not satisfy joins its free
//!    variables. Grounded creation (C5) is not a nogood written out in advance, so a live
//!    created effect that B does not already derive joins its triggers (and so its whole
//!    possible derivation) too.
//! 4. Each group's labellings are enumerated on their own (its nogoods with B's values
//!    put in, and its share of the cost as the bound).
//!
//! Why the product is exact: every nogood lives inside one group once B is put in, and so
//! does every derivation of a created effect that B does not derive, so any choice of one
//! labelling per group, with B, is a labelling of the component. Its cost is the sum of the
//! groups' costs; each group's cost is the least it can have (a cheaper one would give a
//! cheaper labelling of the component), and costs add, so every choice is optimal, and
//! every optimal labelling is such a choice (it agrees with B, and its share in each group
//! is a labelling of that group at that group's least cost).
//!
//! Invariant: [`product`] answers the component's optimal labellings exactly (tested
//! against the engines' flat answers and brute force through [`crate::systems::ar::answer::pieces`]).

use super::cuts::{self, minimise, unfounded, FixedLabels, Written};
use super::frame::Frame;
use super::learn::{lit, Learner, Lit, Problem};
use crate::systems::ar::answer::pieces::Labelling;
pub use crate::systems::ar::answer::pieces::{Group, Product};
use crate::systems::ar::night::universe::{Ix, Universe};
use crate::systems::spec::{Budget, Interrupted};
use petgraph::unionfind::UnionFind;

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
    let clauses = problem.clauses.clone();
    let vars = problem.vars;
    let mut learner = Learner::new(problem, budget)?;
    let found = split(&w, f.n, vars, &clauses, levels, &mut learner, budget);
    learner.release(budget);
    found
}

/// The value of a literal under the backbone, if fixed.
fn value(b: &[Option<bool>], l: Lit) -> Option<bool> {
    b[(l >> 1) as usize].map(|v| v == (l & 1 == 0))
}

fn split(
    w: &Written,
    n: usize,
    vars: usize,
    clauses: &[Vec<Lit>],
    levels: usize,
    l: &mut Learner,
    budget: &Budget,
) -> Result<Option<Product>, Interrupted> {
    if minimise(w, l, levels, budget)?.is_none() {
        return Ok(None);
    }
    let (b, model) = backbone(w, vars, l, budget)?;
    let m = w.m();
    // Created effects that the backbone alone derives (live in every labelling, with a
    // derivation through backbone effects only): they need nothing from any group.
    let mut derived = vec![false; m];
    loop {
        let mut changed = false;
        for j in 0..m {
            if w.created[j]
                && !derived[j]
                && b[w.live(j)] == Some(true)
                && w.triggers[j]
                    .iter()
                    .any(|&g| b[w.s(g)] == Some(true) && (w.declared[g] || derived[g]))
            {
                derived[j] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut uf = UnionFind::<usize>::new(vars);
    let mut open: Vec<&Vec<Lit>> = Vec::new();
    for c in clauses {
        if c.iter().any(|&x| value(&b, x) == Some(true)) {
            continue;
        }
        let mut free = c
            .iter()
            .map(|&x| (x >> 1) as usize)
            .filter(|&v| b[v].is_none());
        let Some(first) = free.next() else {
            unreachable!("the backbone satisfies every nogood");
        };
        free.for_each(|v| {
            uf.union(first, v);
        });
        open.push(c);
    }
    // A live created effect the backbone does not derive joins its possible derivation.
    let needs = |j: usize| w.created[j] && b[w.live(j)] != Some(false) && !derived[j];
    for j in (0..m).filter(|&j| needs(j)) {
        uf.union(w.live(j), w.s(j));
        for &g in &w.triggers[j] {
            if b[w.s(g)] != Some(false) {
                uf.union(w.live(j), w.s(g));
            }
        }
    }
    // Group of each free variable's class, in order of first effect.
    let mut group_of = vec![usize::MAX; vars];
    let mut members: Vec<Vec<usize>> = Vec::new(); // free variables per group
    let mut effects: Vec<Vec<usize>> = Vec::new(); // local effects per group
    let mut fixed_labels: Labelling = Vec::new();
    for j in 0..m {
        let (s, live) = (w.s(j), w.live(j));
        let e = w.comp[j];
        if let Some(x) = b[s] {
            fixed_labels.push((e, x));
        }
        if let Some(x) = b[live] {
            fixed_labels.push((n + e, x));
        }
        if b[s].is_some() && b[live].is_some() {
            continue;
        }
        let v = if b[s].is_none() { s } else { live };
        let root = uf.find(v);
        if group_of[root] == usize::MAX {
            group_of[root] = members.len();
            members.push(Vec::new());
            effects.push(Vec::new());
        }
        effects[group_of[root]].push(j);
    }
    for v in (0..vars).filter(|&v| b[v].is_none()) {
        let root = uf.find(v);
        if group_of[root] == usize::MAX {
            unreachable!("a free variable belongs to some effect's group");
        }
        members[group_of[root]].push(v);
    }
    // Each group's nogoods and the created effects whose derivation it decides.
    let mut own: Vec<Vec<&Vec<Lit>>> = vec![Vec::new(); members.len()];
    for c in open {
        let v = c
            .iter()
            .map(|&x| (x >> 1) as usize)
            .find(|&v| b[v].is_none())
            .expect("an open nogood has a free variable");
        own[group_of[uf.find(v)]].push(c);
    }
    let mut watch: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    for j in (0..m).filter(|&j| needs(j)) {
        watch[group_of[uf.find(w.live(j))]].push(j);
    }
    let mut groups = Vec::with_capacity(members.len());
    for (k, vs) in members.iter().enumerate() {
        budget.check()?;
        let sub = Sub {
            w,
            b: &b,
            vars: vs,
            local: {
                let mut local = std::collections::HashMap::new();
                for (i, &v) in vs.iter().enumerate() {
                    local.insert(v, i);
                }
                local
            },
            watch: &watch[k],
            derived: &derived,
        };
        let options = sub.enumerate(&own[k], &effects[k], &model, levels, n, budget)?;
        let mut es: Vec<Ix> = effects[k].iter().map(|&j| w.comp[j]).collect();
        es.sort_unstable();
        groups.push(Group {
            effects: es,
            options,
        });
    }
    Ok(Some(Product {
        fixed: fixed_labels,
        groups,
    }))
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

/// One group's sub-problem: its free variables renumbered from 0.
struct Sub<'a> {
    w: &'a Written,
    b: &'a [Option<bool>],
    vars: &'a [usize],
    local: std::collections::HashMap<usize, usize>,
    /// The created effects (local to the component) whose derivation this group decides.
    watch: &'a [usize],
    derived: &'a [bool],
}

impl Sub<'_> {
    /// The value of component variable `v` in the group's labelling `l`.
    fn get(&self, l: &Learner, v: usize) -> bool {
        match self.b[v] {
            Some(x) => x,
            None => l.is_true(self.local[&v]),
        }
    }

    /// (C5) for the watched created effects: `None` if each live one is derived, else the
    /// loop nogood of those that are not, over the group's variables.
    fn unfounded(&self, l: &Learner) -> Option<Vec<Lit>> {
        let w = self.w;
        let live: Vec<usize> = self
            .watch
            .iter()
            .copied()
            .filter(|&c| self.get(l, w.live(c)))
            .collect();
        let set = cuts::underived(w, live, |g| self.get(l, w.s(g)), |g| self.derived[g]);
        if set.is_empty() {
            return None;
        }
        // Backbone literals drop out: a live created effect of the backbone is true, and a
        // trigger of the backbone from outside the set is false (else it would derive).
        let mut nogood: Vec<Lit> = set
            .iter()
            .filter(|&&c| self.b[w.live(c)].is_none())
            .map(|&c| lit(self.local[&w.live(c)], false))
            .collect();
        nogood.extend(
            cuts::outside_triggers(w, &set)
                .into_iter()
                .filter(|&g| self.b[w.s(g)].is_none())
                .map(|g| lit(self.local[&w.s(g)], true)),
        );
        // Empty, it would say the group has no labelling, which the backbone (taken from
        // labellings of the whole component) rules out: a bug, not an answer.
        assert!(
            !nogood.is_empty(),
            "bug in gordian: the backbone is not grounded"
        );
        Some(nogood)
    }

    /// Every labelling of the group at its share of the cost, as labels of its effects.
    #[allow(clippy::too_many_arguments)]
    fn enumerate(
        &self,
        own: &[&Vec<Lit>],
        effects: &[usize],
        model: &[bool],
        levels: usize,
        n: usize,
        budget: &Budget,
    ) -> Result<Vec<Labelling>, Interrupted> {
        let w = self.w;
        let renum = |x: Lit| lit(self.local[&((x >> 1) as usize)], x & 1 == 0);
        let clauses: Vec<Vec<Lit>> = own
            .iter()
            .map(|c| {
                c.iter()
                    .filter(|&&x| value(self.b, x).is_none())
                    .map(|&x| renum(x))
                    .collect()
            })
            .collect();
        let mut counted: Vec<Vec<Lit>> = vec![Vec::new(); levels];
        let mut share = vec![0; levels];
        for &j in effects.iter().filter(|&&j| w.declared[j]) {
            if self.b[w.live(j)].is_none() {
                counted[w.level[j]].push(lit(self.local[&w.live(j)], false));
                if !model[w.live(j)] {
                    share[w.level[j]] += 1;
                }
            }
        }
        let problem = Problem {
            vars: self.vars.len(),
            clauses,
            facts: Vec::new(),
            counted,
            phase: self.vars.iter().map(|&v| model[v]).collect(),
        };
        let mut l = Learner::new(problem, budget)?;
        l.set_bounds(&share.iter().map(|&c| Some(c)).collect::<Vec<_>>());
        let found = self.each(&mut l, effects, n, budget);
        l.release(budget);
        found
    }

    fn each(
        &self,
        l: &mut Learner,
        effects: &[usize],
        n: usize,
        budget: &Budget,
    ) -> Result<Vec<Labelling>, Interrupted> {
        let w = self.w;
        let free: Vec<usize> = effects
            .iter()
            .flat_map(|&j| [w.s(j), w.live(j)])
            .filter(|&v| self.b[v].is_none())
            .map(|v| self.local[&v])
            .collect();
        let bytes = 48 + 16 * effects.len() as u64;
        let mut out = Vec::new();
        let mut check = |l: &Learner| self.unfounded(l);
        while l.solve(budget, &mut check)? {
            budget.charge("group labellings", bytes)?;
            out.push(
                effects
                    .iter()
                    .flat_map(|&j| {
                        let e = w.comp[j];
                        [(e, self.get(l, w.s(j))), (n + e, self.get(l, w.live(j)))]
                    })
                    .collect(),
            );
            l.block(
                free.iter().map(|&v| lit(v, !l.is_true(v))).collect(),
                budget,
            )?;
        }
        Ok(out)
    }
}
