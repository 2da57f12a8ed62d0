//! Minimal paradox cores: for a paradox, a set of declared effects that is a paradox on
//! its own, found by deletion on the SAT encoding (assumptions on the cut variables: an
//! effect left out is cut, and a cut effect does nothing, so cutting and deleting agree on
//! whether a resolution exists), cross-checked by the direct engine on the core as a night
//! of its own; with the derivation of why the core has no resolution, as data rendered as
//! text (a case analysis whose every branch ends in a contradiction under the rules).
//!
//! Invariants: a returned core is a paradox for both engines, and removing any one of its
//! effects leaves a night with a resolution (for both); when the core has at most
//! [`EXHAUSTIVE_UP_TO`] effects no proper subset of it is a paradox either (paradox is
//! not monotone: adding an `unblockable` can end one, so single deletions alone do not
//! prove that), checked by SAT over every subset. A derivation is built from the rules
//! ([`semantics::attack`]) and closes every branch; a branch that the rules' propagation
//! cannot close is decided by [`semantics::check`] on the complete candidate. It shows at
//! most [`MAX_NODES`] cases nested at most [`MAX_DEPTH`] deep (a branch past either says
//! so), which bounds both its time and the depth of the recursions that build and read it.

use crate::sat::CoreResult;
use crate::systems::ar::direct;
use crate::systems::ar::judge::semantics::{self, rule_words, Rule, Violation};
use crate::systems::ar::night::model::{ActionKind, Ensemble, Kind, PassiveKind};
use crate::systems::ar::night::resolution::{Cut, TargetMap};
use crate::systems::ar::night::universe::{effect_name, Ix, Origin, Universe};
use crate::systems::ar::sat::encode::Encoding;
use crate::systems::spec::{Budget, Interrupted};
use fixedbitset::FixedBitSet;
use std::fmt::Write as _;

/// Cores up to this size are checked subset-minimal by trying every proper subset.
pub const EXHAUSTIVE_UP_TO: usize = 12;

/// Why computing a core failed.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The engines were interrupted.
    #[error("interrupted before a core was found")]
    Interrupted,
    /// The SAT engine and the direct engine disagree about a core: a bug in gordian.
    #[error("the engines disagree about the core {0:?}: this is a bug in gordian")]
    Disagree(Vec<String>),
}

impl From<Interrupted> for CoreError {
    fn from(_: Interrupted) -> Self {
        CoreError::Interrupted
    }
}

/// A minimal paradox core.
#[derive(Clone, Debug)]
pub struct Core {
    /// The core's declared effects (indices into the night's effects), ascending.
    pub effects: Vec<usize>,
    /// Whether every proper subset was checked (else: only every single deletion).
    pub subset_minimal: bool,
    /// The core as a night of its own (the same players, ids and priorities).
    pub universe: Universe,
}

/// The night with only the effects in `keep` (declared indices).
pub fn restrict(e: &Ensemble, keep: &[usize]) -> Ensemble {
    Ensemble {
        players: e.players.clone(),
        effects: keep.iter().map(|&i| e.effects[i].clone()).collect(),
        alignments: e.alignments.clone(),
    }
}

/// Whether keeping exactly `keep` (cutting the rest) leaves a paradox, by SAT.
fn sat_paradox(
    enc: &mut Encoding,
    n: usize,
    keep: &[usize],
) -> Result<(bool, Vec<usize>), Interrupted> {
    let x = enc.cut_lits().to_vec();
    let assumptions: Vec<_> = (0..n)
        .map(|i| if keep.contains(&i) { !x[i] } else { x[i] })
        .collect();
    match enc.solver.solve_core(&assumptions) {
        CoreResult::Sat => Ok((false, Vec::new())),
        CoreResult::Unknown => Err(Interrupted),
        CoreResult::Unsat(core) => {
            // Effects whose "kept" assumption is not in the core can go too.
            let needed = keep
                .iter()
                .copied()
                .filter(|&i| core.contains(&!x[i]))
                .collect();
            Ok((true, needed))
        }
    }
}

/// Whether the night restricted to `keep` is a paradox, by the direct engine.
fn direct_paradox(e: &Ensemble, keep: &[usize], budget: &Budget) -> Result<bool, Interrupted> {
    let u = Universe::new(&restrict(e, keep));
    let rs = direct::resolutions(&u, &Cut::with_capacity(u.n_declared), budget)?;
    Ok(rs.is_empty())
}

/// A minimal paradox core of `u`, or `None` when `u` has a resolution.
pub fn minimal_core(u: &Universe, budget: &Budget) -> Result<Option<Core>, CoreError> {
    let n = u.n_declared;
    let mut enc = Encoding::new(u, budget);
    let all: Vec<usize> = (0..n).collect();
    let (paradox, mut keep) = sat_paradox(&mut enc, n, &all)?;
    if !paradox {
        return Ok(None);
    }
    // Deletion, repeated until no single effect can go (paradox is not monotone, so a
    // later deletion can make an earlier kept effect removable).
    loop {
        let mut changed = false;
        let mut k = 0;
        while k < keep.len() {
            let mut trial = keep.clone();
            trial.remove(k);
            let (p, needed) = sat_paradox(&mut enc, n, &trial)?;
            if p {
                keep = needed;
                changed = true;
            } else {
                k += 1;
            }
        }
        if !changed {
            break;
        }
    }
    // Subset-minimality: the smallest paradox among the subsets of the core.
    let subset_minimal = keep.len() <= EXHAUSTIVE_UP_TO;
    if subset_minimal {
        'size: for size in 1..keep.len() {
            for mask in 0u32..(1 << keep.len()) {
                if mask.count_ones() as usize != size {
                    continue;
                }
                let sub: Vec<usize> = (0..keep.len())
                    .filter(|&b| mask >> b & 1 == 1)
                    .map(|b| keep[b])
                    .collect();
                if sat_paradox(&mut enc, n, &sub)?.0 {
                    keep = sub;
                    break 'size;
                }
            }
        }
    }
    direct_confirms(u, &keep, budget)?;
    Ok(Some(Core {
        universe: Universe::new(&restrict(&u.ensemble, &keep)),
        effects: keep,
        subset_minimal,
    }))
}

/// The SAT engine's core `keep`, cross-checked by the direct engine on the core as a night
/// of its own: a paradox, and removing any one of its effects leaves a resolution.
fn direct_confirms(u: &Universe, keep: &[usize], budget: &Budget) -> Result<(), CoreError> {
    let disagree = || CoreError::Disagree(keep.iter().map(|&i| u.effects[i].id.clone()).collect());
    if !direct_paradox(&u.ensemble, keep, budget)? {
        return Err(disagree());
    }
    for k in 0..keep.len() {
        let mut trial = keep.to_vec();
        trial.remove(k);
        if direct_paradox(&u.ensemble, &trial, budget)? {
            return Err(disagree());
        }
    }
    Ok(())
}

/// Every paradox core with the fewest effects: the sets of declared effects of the
/// smallest size that are a paradox on their own (so no proper subset is one: every
/// smaller set was tried), found by SAT over the subsets of growing size and each
/// checked by the direct engine (a paradox, and removing any one effect resolves it).
/// Unlike [`minimal_core`]'s deletion, whose result depends on the order of the effects,
/// the set of smallest cores depends only on the night: renaming players maps it onto
/// the renamed night's. `Ok(None)` when `u` has a resolution or has more than
/// [`EXHAUSTIVE_UP_TO`] declared effects (too many subsets to try).
pub fn smallest_cores(u: &Universe, budget: &Budget) -> Result<Option<Vec<Vec<usize>>>, CoreError> {
    use itertools::Itertools;
    let n = u.n_declared;
    if n > EXHAUSTIVE_UP_TO {
        return Ok(None);
    }
    let mut enc = Encoding::new(u, budget);
    let all: Vec<usize> = (0..n).collect();
    if !sat_paradox(&mut enc, n, &all)?.0 {
        return Ok(None);
    }
    for size in 1..=n {
        let mut found = Vec::new();
        for keep in (0..n).combinations(size) {
            if sat_paradox(&mut enc, n, &keep)?.0 {
                found.push(keep);
            }
        }
        if found.is_empty() {
            continue;
        }
        for keep in &found {
            direct_confirms(u, keep, budget)?;
        }
        return Ok(Some(found));
    }
    Err(CoreError::Disagree(
        u.effects[..n].iter().map(|e| e.id.clone()).collect(),
    ))
}

/// Why one fact of a derivation holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A case of the analysis.
    Assumed,
    /// It fails: this succeeding effect makes it fail by this rule.
    AttackedBy(Ix, Rule),
    /// It succeeds: every effect that could make it fail fails (and, for a created effect,
    /// it is created).
    Unopposed,
    /// It fails: it would make this succeeding effect fail.
    WouldStop(Ix, Rule),
    /// It succeeds: this failing effect must be made to fail by something, and it is the
    /// only candidate left.
    OnlyAttacker(Ix),
    /// A created effect that is not created: every action that could trigger it fails
    /// (for a `visited:K`, is stopped at its source).
    NotCreated,
}

/// One fact: an effect succeeds (`true`) or fails, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The effect (index in the core's universe).
    pub effect: Ix,
    /// Whether it succeeds.
    pub succeeds: bool,
    /// Why.
    pub reason: Reason,
}

/// How a branch of the case analysis ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The last step contradicts an earlier fact about the same effect.
    Contradiction,
    /// An effect fails, but nothing that succeeds can make it fail.
    Unexplained(Ix),
    /// Every effect is decided and the candidate breaks a condition of the contract.
    Rejected(String),
}

/// A case analysis showing that no resolution exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Derivation {
    /// Facts that follow, then how the branch ends.
    Closed {
        /// The facts, in order.
        steps: Vec<Step>,
        /// How the branch ends.
        end: End,
    },
    /// Facts that follow, then a split on whether an effect succeeds (or on a way).
    Split {
        /// The facts before the split.
        steps: Vec<Step>,
        /// The effect split on.
        on: Ix,
        /// The case where it succeeds, then where it fails.
        cases: Box<[Derivation; 2]>,
    },
    /// Several ways of redirecting (every processing order of the active deflections).
    Ways {
        /// The facts before the ways (the cases on the deflections).
        steps: Vec<Step>,
        /// One derivation per distinct final-target map.
        ways: Vec<(TargetMap, Derivation)>,
    },
}

/// The shape of a core, when it has a well-known one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An odd cycle of actions, each making the next fail (core universe indices, in
    /// cycle order starting from the first effect).
    OddCycle(Vec<Ix>),
    /// One effect defeats itself: assuming it succeeds, or that it fails, each leads
    /// straight to a contradiction (one case split, no further one).
    SelfDefeating(Ix),
    /// Neither: a case analysis.
    Cases,
}

/// Why a core has no resolution.
#[derive(Clone, Debug)]
pub struct Why {
    /// The shape, when recognised.
    pub shape: Shape,
    /// The case analysis.
    pub derivation: Derivation,
}

/// Cases past this many are not explored (the derivation says so).
const MAX_NODES: usize = 4096;

/// Case splits nested deeper than this are not explored either (the derivation says so):
/// a derivation is for reading, and the search that builds it (like the functions that
/// read it) recurses once per nested split, so it stays this shallow however large the
/// core.
pub const MAX_DEPTH: usize = 64;

/// How a branch cut short by [`MAX_NODES`] or [`MAX_DEPTH`] ends.
fn too_many(steps: Vec<Step>) -> Derivation {
    Derivation::Closed {
        steps,
        end: End::Rejected("(too many cases to show)".into()),
    }
}

struct Deriver<'a> {
    u: &'a Universe,
    nodes: usize,
}

/// Effective attacks on `f` under `rho` in a core where every passive succeeds: an
/// `unblockable` of f's actor cancels blocks.
fn attackers(u: &Universe, rho: &TargetMap, f: Ix) -> Vec<(Ix, Rule)> {
    if u.effects[f].action().is_none() {
        return Vec::new();
    }
    let shield = shielded(u, f);
    (0..u.len())
        .filter_map(|g| semantics::attack(u, rho, g, f).map(|r| (g, r)))
        .filter(|&(_, r)| !(r == Rule::Blocked && shield))
        .collect()
}

/// Whether f's actor has an `unblockable` passive (in a core every passive succeeds).
fn shielded(u: &Universe, f: Ix) -> bool {
    u.effects.iter().enumerate().any(|(g, e)| {
        g < u.n_declared
            && e.kind == Kind::Passive(PassiveKind::Unblockable)
            && e.actor == u.effects[f].actor
    })
}

/// Whether trigger g fires created effect c under `val`, if the values so far tell: for a
/// `reflexive:K`, whether g succeeds; for a `visited:K`, whether g visits (it is present
/// and nothing stops it at its source; a created g counts as present once it succeeds).
fn fires(u: &Universe, rho: &TargetMap, val: &[Option<bool>], c: Ix, g: Ix) -> Option<bool> {
    if !u.on_visit(c) {
        return val[g];
    }
    let shield = shielded(u, g);
    let mut open = false;
    for (h, &v) in val.iter().enumerate() {
        match semantics::at_source(u, rho, h, g) {
            Some(Rule::Blocked) if shield => {}
            Some(_) if v == Some(true) => return Some(false),
            Some(_) => open |= v.is_none(),
            None => {}
        }
    }
    let present = g < u.n_declared || val[g] == Some(true);
    (present && !open).then_some(true)
}

/// Actions that would create created effect `c` by targeting its passive's owner.
fn triggers(u: &Universe, rho: &TargetMap, c: Ix) -> Vec<Ix> {
    let Origin::Created { passive, visitor } = u.effects[c].origin else {
        return Vec::new();
    };
    let owner = u.effects[passive].actor;
    (0..u.len())
        .filter(|&g| {
            let e = &u.effects[g];
            e.action().is_some() && e.actor == visitor && rho[g].contains(&owner)
        })
        .collect()
}

impl Deriver<'_> {
    /// Propagates from `val`; returns the steps and, if the branch closes, how.
    fn propagate(
        &self,
        rho: &TargetMap,
        val: &mut [Option<bool>],
        steps: &mut Vec<Step>,
    ) -> Option<End> {
        let u = self.u;
        let created = |i: Ix| i >= u.n_declared;
        loop {
            let mut new: Option<Step> = None;
            'find: for f in 0..u.len() {
                let att = attackers(u, rho, f);
                if u.effects[f].action().is_none() {
                    continue;
                }
                // Rule 1: a succeeding attacker makes it fail.
                if val[f] != Some(false) {
                    if let Some(&(g, r)) = att.iter().find(|&&(g, _)| val[g] == Some(true)) {
                        new = Some(Step {
                            effect: f,
                            succeeds: false,
                            reason: Reason::AttackedBy(g, r),
                        });
                        break 'find;
                    }
                }
                // A created effect none of whose triggers fires is not created.
                if created(f) && val[f] != Some(false) {
                    let t = triggers(u, rho, f);
                    if t.iter().all(|&g| fires(u, rho, val, f, g) == Some(false)) {
                        new = Some(Step {
                            effect: f,
                            succeeds: false,
                            reason: Reason::NotCreated,
                        });
                        break 'find;
                    }
                }
                let present = !created(f)
                    || triggers(u, rho, f)
                        .iter()
                        .any(|&g| fires(u, rho, val, f, g) == Some(true));
                // Rule 2: unopposed and present, it succeeds.
                if present
                    && val[f] != Some(true)
                    && att.iter().all(|&(g, _)| val[g] == Some(false))
                {
                    new = Some(Step {
                        effect: f,
                        succeeds: true,
                        reason: Reason::Unopposed,
                    });
                    break 'find;
                }
                // Rule 3: what would make a succeeding effect fail, fails.
                if val[f] == Some(true) {
                    if let Some(&(g, r)) = att.iter().find(|&&(g, _)| val[g] != Some(false)) {
                        new = Some(Step {
                            effect: g,
                            succeeds: false,
                            reason: Reason::WouldStop(f, r),
                        });
                        break 'find;
                    }
                }
                // Rule 4: a present failing effect needs a succeeding attacker.
                if val[f] == Some(false) && present {
                    let open: Vec<Ix> = att
                        .iter()
                        .map(|&(g, _)| g)
                        .filter(|&g| val[g] != Some(false))
                        .collect();
                    if open.is_empty() {
                        return Some(End::Unexplained(f));
                    }
                    if let [g] = open[..] {
                        if val[g].is_none() {
                            new = Some(Step {
                                effect: g,
                                succeeds: true,
                                reason: Reason::OnlyAttacker(f),
                            });
                            break 'find;
                        }
                    }
                }
            }
            let step = new?;
            let clash = val[step.effect] == Some(!step.succeeds);
            val[step.effect] = Some(step.succeeds);
            steps.push(step);
            if clash {
                return Some(End::Contradiction);
            }
        }
    }

    fn branch(
        &mut self,
        rho: &TargetMap,
        mut val: Vec<Option<bool>>,
        mut steps: Vec<Step>,
        depth: usize,
    ) -> Derivation {
        self.nodes += 1;
        if let Some(end) = self.propagate(rho, &mut val, &mut steps) {
            return Derivation::Closed { steps, end };
        }
        let u = self.u;
        let pick = (0..u.len())
            .find(|&i| i < u.n_declared && val[i].is_none())
            .or_else(|| (0..u.len()).find(|&i| val[i].is_none()));
        let Some(on) = pick else {
            return Derivation::Closed {
                steps,
                end: End::Rejected(self.judge(rho, &val)),
            };
        };
        if self.nodes > MAX_NODES || depth >= MAX_DEPTH {
            return too_many(steps);
        }
        let case = |this: &mut Self, b: bool| {
            let mut v = val.clone();
            v[on] = Some(b);
            this.branch(
                rho,
                v,
                vec![Step {
                    effect: on,
                    succeeds: b,
                    reason: Reason::Assumed,
                }],
                depth + 1,
            )
        };
        let yes = case(self, true);
        let no = case(self, false);
        Derivation::Split {
            steps,
            on,
            cases: Box::new([yes, no]),
        }
    }

    /// The contract's verdict on a complete candidate (the created effects present are
    /// those grounded creation derives).
    fn judge(&self, rho: &TargetMap, val: &[Option<bool>]) -> String {
        let u = self.u;
        let cut = Cut::with_capacity(u.n_declared);
        let mut s = FixedBitSet::with_capacity(u.len());
        for (i, v) in val.iter().enumerate() {
            s.set(i, *v == Some(true));
        }
        let Some(mut present) = semantics::created_set(u, &cut, &s, rho) else {
            return "a created effect outside the universe".into();
        };
        present.insert_range(..u.n_declared);
        let way = rho
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if present.contains(i) {
                    t.clone()
                } else {
                    Vec::new()
                }
            })
            .collect::<TargetMap>();
        match semantics::check(u, &cut, &present, &s, &way) {
            Ok(()) => "an acceptable resolution: not a paradox (a bug)".into(),
            Err(Violation::Creation) => {
                "the created effects that succeed are not all derived from a succeeding declared action (creation must be grounded)".into()
            }
            Err(Violation::Redirection) => "the final targets are not a coherent redirection".into(),
            Err(Violation::FailsButSucceeds(id)) => format!("[{id}] succeeds but would fail"),
            Err(Violation::SucceedsButFails(id)) => format!("[{id}] fails but nothing stops it"),
            Err(v) => format!("{v:?}"),
        }
    }
}

/// The derivation of why the core's night `u` (uncut) has no resolution.
pub fn why(u: &Universe) -> Why {
    let mut d = Deriver { u, nodes: 0 };
    let cut = Cut::with_capacity(u.n_declared);
    let mut all = FixedBitSet::with_capacity(u.len());
    all.insert_range(..);
    let mut val: Vec<Option<bool>> = vec![None; u.len()];
    for (i, e) in u.effects.iter().enumerate() {
        if e.action().is_none() {
            val[i] = Some(true); // passives succeed (nothing is cut in a core)
        }
    }
    let deflects: Vec<Ix> = (0..u.n_declared)
        .filter(|&i| u.effects[i].action() == Some(ActionKind::Deflect))
        .collect();
    let derivation = frames(&mut d, &cut, &all, &deflects, val, 0);
    let shape = shape(u, &derivation);
    Why { shape, derivation }
}

/// Splits on the deflections first (whether each succeeds decides the ways), then on the
/// ways, then derives with fixed final targets; `depth` splits are nested above.
fn frames(
    d: &mut Deriver,
    cut: &Cut,
    all: &FixedBitSet,
    deflects: &[Ix],
    val: Vec<Option<bool>>,
    depth: usize,
) -> Derivation {
    let u = d.u;
    if let Some((&g, rest)) = deflects.split_first() {
        d.nodes += 1;
        if d.nodes > MAX_NODES || depth >= MAX_DEPTH {
            return too_many(Vec::new());
        }
        let case = |d: &mut Deriver, b: bool| {
            let mut v = val.clone();
            v[g] = Some(b);
            let mut dv = frames(d, cut, all, rest, v, depth + 1);
            let assumed = Step {
                effect: g,
                succeeds: b,
                reason: Reason::Assumed,
            };
            match &mut dv {
                Derivation::Closed { steps, .. }
                | Derivation::Split { steps, .. }
                | Derivation::Ways { steps, .. } => steps.insert(0, assumed),
            }
            dv
        };
        let yes = case(d, true);
        let no = case(d, false);
        return Derivation::Split {
            steps: Vec::new(),
            on: g,
            cases: Box::new([yes, no]),
        };
    }
    let mut s = FixedBitSet::with_capacity(u.len());
    for (i, v) in val.iter().enumerate() {
        if *v == Some(true) && u.effects[i].action() == Some(ActionKind::Deflect) {
            s.insert(i);
        }
    }
    let maps = semantics::redirections(u, cut, all, &s);
    let declared = semantics::declared_targets(u, cut, all);
    if maps.len() == 1 && maps[0] == declared {
        return d.branch(&maps[0], val, Vec::new(), depth);
    }
    Derivation::Ways {
        steps: Vec::new(),
        ways: maps
            .into_iter()
            .map(|rho| {
                let dv = d.branch(&rho, val.clone(), Vec::new(), depth);
                (rho, dv)
            })
            .collect(),
    }
}

fn shape(u: &Universe, d: &Derivation) -> Shape {
    // An odd cycle: only declared actions, each with exactly one attacker in the core and
    // attacking exactly one, forming one cycle.
    let n = u.n_declared;
    if n == u.len() && n >= 3 && n % 2 == 1 && (0..n).all(|i| u.effects[i].action().is_some()) {
        let rho = semantics::declared_targets(u, &Cut::with_capacity(n), &{
            let mut b = FixedBitSet::with_capacity(n);
            b.insert_range(..);
            b
        });
        let att: Vec<Vec<Ix>> = (0..n)
            .map(|f| attackers(u, &rho, f).into_iter().map(|(g, _)| g).collect())
            .collect();
        if !u.has_deflections() && u.general.is_none() && att.iter().all(|a| a.len() == 1) {
            // victim of g: the f with att[f] == [g]
            let mut order = vec![0];
            while order.len() < n {
                let cur = *order.last().expect("non-empty");
                match (0..n).find(|&f| att[f] == [cur]) {
                    Some(next) if !order.contains(&next) => order.push(next),
                    _ => break,
                }
            }
            if order.len() == n && att[0] == [order[n - 1]] {
                return Shape::OddCycle(order);
            }
        }
    }
    if let Derivation::Split { steps, on, cases } = d {
        fn closed(c: &Derivation) -> bool {
            match c {
                Derivation::Closed { end, .. } => {
                    matches!(end, End::Contradiction | End::Unexplained(_))
                }
                Derivation::Ways { ways, .. } => ways.iter().all(|(_, d)| closed(d)),
                Derivation::Split { .. } => false,
            }
        }
        if steps.is_empty() && cases.iter().all(closed) {
            return Shape::SelfDefeating(*on);
        }
    }
    Shape::Cases
}

/// Whether every branch of the derivation is closed by a contradiction or a rejection (no
/// branch was cut short).
#[cfg(test)]
pub fn is_closed(d: &Derivation) -> bool {
    match d {
        Derivation::Closed {
            end: End::Rejected(r),
            ..
        } => !r.starts_with("(too many") && !r.starts_with("an acceptable"),
        Derivation::Closed { .. } => true,
        Derivation::Split { cases, .. } => cases.iter().all(is_closed),
        Derivation::Ways { ways, .. } => ways.iter().all(|(_, d)| is_closed(d)),
    }
}

fn fact(u: &Universe, s: &Step) -> String {
    let name = effect_name(u, s.effect);
    let verb = if s.succeeds { "succeeds" } else { "fails" };
    let why = match &s.reason {
        Reason::Assumed => return format!("suppose {name} {verb}:"),
        Reason::AttackedBy(g, r) => rule_words(u, *r, *g),
        Reason::Unopposed => "nothing that could stop it succeeds".into(),
        Reason::WouldStop(f, _) => {
            format!("it would make {} fail, which succeeds", effect_name(u, *f))
        }
        Reason::OnlyAttacker(f) => format!(
            "{} fails, and only this could make it fail",
            effect_name(u, *f)
        ),
        Reason::NotCreated if u.on_visit(s.effect) => {
            "it is never created: no action that would create it visits (each is stopped at its source)".into()
        }
        Reason::NotCreated => "it is never created: every action that would create it fails".into(),
    };
    format!("{name} {verb}: {why}")
}

fn render(u: &Universe, d: &Derivation, indent: &str, out: &mut String) {
    let steps_text = |steps: &[Step], out: &mut String| -> String {
        let mut ind = indent.to_string();
        for s in steps {
            let _ = writeln!(out, "{ind}{}", fact(u, s));
            if s.reason == Reason::Assumed {
                ind.push_str("  ");
            }
        }
        ind
    };
    match d {
        Derivation::Closed { steps, end } => {
            let ind = steps_text(steps, out);
            let last = match end {
                End::Contradiction => match steps.last() {
                    Some(s) => format!(
                        "contradiction: {} would both succeed and fail",
                        effect_name(u, s.effect)
                    ),
                    None => "contradiction".to_string(),
                },
                End::Unexplained(f) => format!(
                    "contradiction: {} fails, but nothing that could stop it succeeds",
                    effect_name(u, *f)
                ),
                End::Rejected(r) => format!("no resolution here: {r}"),
            };
            let _ = writeln!(out, "{ind}=> {last}");
        }
        Derivation::Split { steps, cases, .. } => {
            let ind = steps_text(steps, out);
            for c in cases.iter() {
                render(u, c, &ind, out);
            }
        }
        Derivation::Ways { steps, ways } => {
            let indent = steps_text(steps, out);
            for (rho, dv) in ways {
                let moved: Vec<String> = rho
                    .iter()
                    .enumerate()
                    .filter(|(i, t)| !t.is_empty() && **t != u.effects[*i].targets)
                    .map(|(i, t)| {
                        let names: Vec<&str> = t.iter().map(|&p| u.player_name(p)).collect();
                        format!("{} goes to {}", effect_name(u, i), names.join(" "))
                    })
                    .collect();
                let moved = if moved.is_empty() {
                    "no slot moves".to_string()
                } else {
                    moved.join(", ")
                };
                let _ = writeln!(out, "{indent}so (redirection) {moved}:");
                render(u, dv, &format!("{indent}  "), out);
            }
        }
    }
}

impl Why {
    /// The derivation as text: the shape first, then the case analysis.
    pub fn to_text(&self, u: &Universe, indent: &str) -> String {
        let mut out = String::new();
        match &self.shape {
            Shape::OddCycle(order) => {
                let names: Vec<String> = order.iter().map(|&i| effect_name(u, i)).collect();
                let _ = writeln!(
                    out,
                    "{indent}an odd cycle of {} effects, each making the next fail: {} -> back to the first. \
                     Around an odd cycle, \"succeeds\" and \"fails\" must alternate, which cannot close up.",
                    order.len(),
                    names.join(" -> ")
                );
            }
            Shape::SelfDefeating(f) => {
                let _ = writeln!(
                    out,
                    "{indent}{} defeats itself: whether it succeeds or fails, the rules lead to a contradiction.",
                    effect_name(u, *f)
                );
            }
            Shape::Cases => {
                let _ = writeln!(out, "{indent}every case leads to a contradiction:");
            }
        }
        render(u, &self.derivation, indent, &mut out);
        out
    }
}
