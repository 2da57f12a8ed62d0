//! The direct engine: exact next-state distributions by splitting every `getRandom` into
//! the byte intervals its branch depends on, reachability within k challenges by
//! exploring their supports, and the planner (exact dynamic programming).
//!
//! Invariants: never calls the SAT layer; probabilities are exact rationals (a path that
//! reads `k` bytes has probability `n / 256^k`); the distribution of one challenge sums to
//! 1; every loop over states polls the [`Budget`].

use super::model::*;
use super::reach::{
    from_trade_code, join, rules_part, trade_code, trade_part, trade_rules_bits, Reach,
};
use super::simulate::{Ctx, Driver, Message, Query, Site, PHASES};
use crate::odometer::Odometer;
use crate::systems::spec::{Budget, Interrupted};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The byte classes of every call, counted through by the odometer: each run takes the
/// current class of each call, with the weight of the classes taken.
#[derive(Default)]
struct Classes {
    odometer: Odometer,
    /// Product of the class sizes of this run.
    num: u128,
    /// Bytes read in this run.
    bytes: u32,
}

impl Classes {
    fn start(&mut self) {
        self.odometer.rewind();
        self.num = 1;
        self.bytes = 0;
    }
}

/// The classes of a query: `[lo, hi)` byte intervals, ascending, non-empty.
fn intervals<'q>(q: &'q Query) -> impl Iterator<Item = (u16, u16)> + Clone + 'q {
    let mut lo = 0u16;
    q.cuts
        .iter()
        .chain(std::iter::once(&256))
        .filter_map(move |&c| {
            let c = c.min(256);
            (c > lo).then(|| {
                let iv = (lo, c);
                lo = c;
                iv
            })
        })
}

impl Driver for Classes {
    fn random(&mut self, q: &Query) -> u8 {
        let mut iv = intervals(q);
        let i = self.odometer.pick(iv.clone().count());
        let (lo, hi) = iv.nth(i).expect("a class");
        self.num *= u128::from(hi - lo);
        self.bytes += 1;
        lo as u8
    }
}

/// One outcome of a challenge: the next state, the message boxes, the exact probability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The next state.
    pub state: State,
    /// The message boxes shown, in order.
    pub messages: Vec<Message>,
    /// Exact probability.
    #[serde(serialize_with = "ser_ratio")]
    pub prob: BigRational,
}

/// Serialises a rational as `"n/d"`.
pub fn ser_ratio<S: serde::Serializer>(r: &BigRational, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{}/{}", r.numer(), r.denom()))
}

/// Runs every byte-class path of one challenge, phase by phase, merging equal
/// intermediate contexts between phases: the exact distribution of the final contexts.
fn run_phases(s: &State, choice: &Choice) -> HashMap<Ctx, BigRational> {
    let mut cur: HashMap<Ctx, BigRational> = HashMap::default();
    cur.insert(Ctx::start(s), BigRational::one());
    for phase in PHASES {
        let mut next: HashMap<Ctx, BigRational> = HashMap::default();
        for (cx, p) in cur {
            // Within a phase, weights are integers over 256^PHASE_BYTES (a phase reads
            // at most 6 bytes), so only distinct outcomes cost a rational product.
            let mut local: HashMap<Ctx, u128> = HashMap::default();
            let mut od = Classes::default();
            loop {
                od.start();
                let mut c2 = cx.clone();
                phase(&mut c2, choice, &mut od);
                debug_assert!(od.bytes <= PHASE_BYTES);
                let w = od.num << (8 * (PHASE_BYTES - od.bytes.min(PHASE_BYTES)));
                *local.entry(c2).or_insert(0) += w;
                if !od.odometer.advance() {
                    break;
                }
            }
            for (c2, w) in local {
                *next.entry(c2).or_insert_with(BigRational::zero) += &p * ratio(w, PHASE_BYTES);
            }
        }
        cur = next;
    }
    cur
}

/// Most bytes one phase reads (steps 6-9: at most four; step 10: five).
const PHASE_BYTES: u32 = 6;

fn ratio(num: u128, bytes: u32) -> BigRational {
    BigRational::new(BigInt::from(num), BigInt::from(1u8) << (8 * bytes as usize))
}

/// The exact distribution of one challenge's next state and messages, most likely first
/// (ties by state). Probabilities sum to 1.
pub fn distribution(s: &State, choice: &Choice) -> Vec<Outcome> {
    let mut acc: HashMap<(State, Vec<Message>), BigRational> = HashMap::default();
    for (cx, p) in run_phases(s, choice) {
        *acc.entry((cx.state, cx.messages))
            .or_insert_with(BigRational::zero) += p;
    }
    let mut out: Vec<Outcome> = acc
        .into_iter()
        .map(|((state, messages), prob)| Outcome {
            state,
            messages,
            prob,
        })
        .collect();
    out.sort_by(|a, b| {
        b.prob
            .cmp(&a.prob)
            .then_with(|| a.state.cmp(&b.state))
            .then_with(|| a.messages.cmp(&b.messages))
    });
    out
}

/// The next-state distribution of one challenge (messages merged).
pub fn transitions(s: &State, choice: &Choice) -> Vec<(State, BigRational)> {
    let mut acc: HashMap<State, BigRational> = HashMap::default();
    for (cx, p) in run_phases(s, choice) {
        *acc.entry(cx.state).or_insert_with(BigRational::zero) += p;
    }
    let mut v: Vec<(State, BigRational)> = acc.into_iter().collect();
    v.sort_by_key(|a| a.0);
    v
}

/// The states one challenge can lead to (non-zero probability).
pub fn support(s: &State, choice: &Choice) -> BTreeSet<State> {
    final_contexts(s, choice, |_| {})
        .into_iter()
        .map(|cx| cx.state)
        .collect()
}

/// The distinct final contexts of one challenge: every byte-class path run phase by phase
/// as [`run_phases`] does, without weights, with the messages dropped and `settle` applied
/// after every phase (no phase reads the messages), so equal contexts merge sooner.
fn final_contexts(s: &State, choice: &Choice, settle: impl Fn(&mut Ctx)) -> HashSet<Ctx> {
    let mut cur: HashSet<Ctx> = HashSet::default();
    cur.insert(Ctx::start(s));
    for phase in PHASES {
        let mut next: HashSet<Ctx> =
            HashSet::with_capacity_and_hasher(cur.len(), Default::default());
        for cx in cur {
            let mut od = Classes::default();
            loop {
                od.start();
                let mut c2 = cx.clone();
                phase(&mut c2, choice, &mut od);
                c2.messages.clear();
                settle(&mut c2);
                next.insert(c2);
                if !od.odometer.advance() {
                    break;
                }
            }
        }
        cur = next;
    }
    cur
}

/// The choices at step `j` (0-based) from `s`: the fixed one if the scenario has a
/// sequence (none if it is invalid in `s`), else every distinct choice.
pub fn choices_at(sc: &Scenario, s: &State, j: usize) -> Vec<Choice> {
    if sc.challenges.is_empty() {
        choices(s, &sc.allowed)
    } else {
        sc.challenges
            .get(j)
            .filter(|c| c.valid_in(s))
            .copied()
            .into_iter()
            .collect()
    }
}

/// Estimated bytes of a stored state in a set or map (the state and a node), times three
/// (the copies one state has while the search runs: this layer, `seen`, the frontier).
const STATE_BYTES: u64 = 3 * (std::mem::size_of::<State>() as u64 + 48);

/// Every state reachable within `horizon()` challenges (the start included), as a
/// union of products ([`Reach`]). Every part found is charged to the budget's memory meter.
///
/// The layers are unions of products (see [`Part`]): a layer is a list of nodes `R × T`
/// (rules parts times trade parts), each grown one challenge at a time part by part. A
/// layer with more than [`MAX_NODES`] nodes is expanded into its states, and the rest is
/// searched state by state ([`reachable_by_states`]): the answer is the same either way.
pub fn reachable(sc: &Scenario, budget: &Budget) -> Result<Reach, Interrupted> {
    reachable_with(sc, budget, MAX_NODES)
}

/// [`reachable`] with at most `max_nodes` nodes a layer.
fn reachable_with(sc: &Scenario, budget: &Budget, max_nodes: usize) -> Result<Reach, Interrupted> {
    let start = Node {
        r: vec![Part::Rules.of(&sc.state)],
        t: vec![trade_code(&sc.state)],
    };
    let mut done: Vec<Node> = Vec::new();
    let mut frontier = vec![start];
    let mut supports = Supports::default();
    let mut j = 0;
    while j < sc.horizon() && !frontier.is_empty() {
        if frontier.len() > max_nodes {
            break;
        }
        let mut next: Vec<Node> = Vec::new();
        for node in &frontier {
            for c in candidate_choices(sc, j) {
                let valid: Vec<State> = node
                    .t
                    .iter()
                    .map(|&t| from_trade_code(t))
                    .filter(|t| c.valid_in(t))
                    .collect();
                let (Some(t0), Some(r0)) = (valid.first(), node.r.first()) else {
                    continue;
                };
                let from_r: Vec<State> = node.r.iter().map(|r| join(r, t0)).collect();
                let r = supports.grow_rules(&from_r, &c, budget)?;
                let from_t: Vec<State> = valid.iter().map(|t| join(r0, t)).collect();
                let t = supports.grow_trade(&from_t, &c, budget)?;
                next.push(Node { r, t });
            }
        }
        done.append(&mut frontier);
        frontier = merge(next);
        if sc.challenges.is_empty() {
            // The same challenges follow from every layer: a node met before has been
            // grown already.
            frontier.retain(|n| !done.contains(n));
        }
        j += 1;
    }
    if j < sc.horizon() && !frontier.is_empty() {
        // Too many products: expand them and go on state by state.
        let mut seen: HashSet<State> = HashSet::default();
        for n in done.iter().chain(&frontier) {
            for r in &n.r {
                for t in n.t.iter().map(|&t| from_trade_code(t)) {
                    if seen.insert(join(r, &t)) && seen.len().is_multiple_of(4096) {
                        budget.charge("reachable states", 4096 * ANSWER_BYTES)?;
                    }
                }
            }
        }
        let mut states: Vec<State> = Vec::new();
        for n in &frontier {
            for r in &n.r {
                for t in n.t.iter().map(|&t| from_trade_code(t)) {
                    states.push(join(r, &t));
                }
            }
        }
        states.sort();
        states.dedup();
        let all = reachable_by_states(sc, budget, seen, states, j)?;
        return Reach::from_states(&all, budget);
    }
    let products = done
        .into_iter()
        .chain(frontier)
        .map(|n| (n.r, n.t.into_iter().map(from_trade_code).collect()));
    Reach::from_products(products, budget)
}

/// Bytes of one part stored in [`reachable`]'s cache of part supports (the state and a
/// slot of the vector it is in).
const PART_BYTES: u64 = std::mem::size_of::<State>() as u64 + 8;

/// Bytes of one state of [`reachable`]'s answer: in the set the products are expanded
/// into (the state and a control byte, at most half the set's slots empty), then in the
/// sorted answer.
const ANSWER_BYTES: u64 = 3 * std::mem::size_of::<State>() as u64 + 8;

/// Most nodes a layer of [`reachable`] may hold before the search goes on state by state.
const MAX_NODES: usize = 256;

/// A set of states `{join(r, t) : r ∈ r, t ∈ t}`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Node {
    /// Rules parts, sorted, each once.
    r: Vec<State>,
    /// Trade parts as their codes ([`trade_code`]), sorted, each once.
    t: Vec<u64>,
}

/// Nodes with equal trade parts are one node (the union of their rules parts), then
/// nodes with equal rules parts likewise: the same states, fewer nodes. The nodes come
/// out in the order their trade parts were first met (a function of the input's order).
fn merge(nodes: Vec<Node>) -> Vec<Node> {
    let by_t = group_by_first(nodes.into_iter().map(|n| (n.t, n.r)));
    let by_r = group_by_first(by_t.into_iter().map(|(t, r)| (distinct(r.into_iter()), t)));
    by_r.into_iter()
        .map(|(r, t)| Node {
            r,
            t: distinct(t.into_iter()),
        })
        .collect()
}

/// The pairs with equal keys joined (their values appended in turn), in the order each
/// key was first met. Keys are hashed: large keys (lists of parts) are compared once per
/// pair, not once per step of a search through an ordered map.
fn group_by_first<K: std::hash::Hash + Eq, V>(
    pairs: impl Iterator<Item = (K, Vec<V>)>,
) -> Vec<(K, Vec<V>)> {
    let mut groups: HashMap<K, (usize, Vec<V>)> = HashMap::default();
    for (k, v) in pairs {
        let n = groups.len();
        groups
            .entry(k)
            .or_insert_with(|| (n, Vec::new()))
            .1
            .extend(v);
    }
    let mut out: Vec<(usize, K, Vec<V>)> =
        groups.into_iter().map(|(k, (i, v))| (i, k, v)).collect();
    out.sort_unstable_by_key(|g| g.0);
    out.into_iter().map(|(_, k, v)| (k, v)).collect()
}

/// Every challenge step `j` may take in some state: the fixed one, or every choice in the
/// allowed regions (those against the Queen valid only where she is).
fn candidate_choices(sc: &Scenario, j: usize) -> Vec<Choice> {
    if sc.challenges.is_empty() {
        let mut everywhere = State::default();
        let mut out = Vec::new();
        for &r in &sc.allowed {
            everywhere.queen = r;
            out.extend(choices(&everywhere, &[r]));
        }
        out
    } else {
        sc.challenges.get(j).copied().into_iter().collect()
    }
}

/// The two parts of a state. The rules part: each region's rules, the carried rules and
/// the current region. The trade part: everything else (trade rules, the amount of
/// trading and where rules spread from, points, the Queen and her trade rule). Given a
/// challenge, the steps that change one part read nothing of the other (steps 1, 2 and
/// 6-9 the rules, steps 3-5, 10 and 11 the trade part; a challenge's validity reads only
/// where the Queen is), so what one challenge leads to from a set `R × T` is the product
/// of what it leads to part by part. The SAT engine does not assume this: it finds
/// independent parts in its formula, and the two engines are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Part {
    Rules,
    Trade,
}

impl Part {
    /// The part of `s`, the other part's fields set to the defaults.
    fn of(self, s: &State) -> State {
        match self {
            Part::Rules => rules_part(s),
            Part::Trade => trade_part(s),
        }
    }
}

/// Supports of one layer computed in parallel from this many on (fewer: in turn, where
/// threads would cost more than they save).
const PARALLEL_FROM: usize = 32;

/// [`support`] projected on one part: the other part's fields are put back as they were
/// after every phase (they change nothing of this part), so contexts merge sooner.
fn support_of(part: Part, s: &State, choice: &Choice) -> Vec<State> {
    let contexts = final_contexts(s, choice, |cx| {
        cx.state = match part {
            Part::Rules => join(&cx.state, s),
            Part::Trade => join(s, &cx.state),
        }
    });
    let out: BTreeSet<State> = contexts.iter().map(|cx| part.of(&cx.state)).collect();
    out.into_iter().collect()
}

/// Every support [`reachable`] has found, by part and challenge.
///
/// A rules part's support is its list of parts. A trade part's is kept as *edits*: given
/// a challenge, the trade dynamics read the trade rules only where rules spread from
/// (step 10 copies that region's rule; step 4 leaves the spread-from region as it was or
/// makes it the challenge's region), so trade parts that differ only in the other
/// regions' trade rules (the *masked* ones) share one computation. Each outcome is kept
/// with the masked rules it wrote; the others are copied from the part it is applied to.
/// [`masked_support`] checks on every path that the masked rules changed nothing else;
/// the SAT engine does not assume any of this, and the two engines are compared.
#[derive(Default)]
struct Supports {
    rules: HashMap<(State, Choice), Vec<State>>,
    /// By key (the trade part with its masked rules set to `FILL[0]`): each outcome's
    /// trade part (unwritten masked rules `FILL[0]`) and the masked rules it wrote; `None`
    /// where the check failed (then each trade part's own support is used, from `plain`).
    edits: HashMap<(State, Choice), Option<Vec<Edit>>>,
    plain: HashMap<(State, Choice), Vec<State>>,
}

/// One outcome of a trade support kept as edits: the outcome's trade part (the masked
/// rules it did not write as `FILL[0]`) and the masked rules it wrote (a bit per region id).
type Edit = (State, u8);

/// The two values the masked trade rules are given in [`masked_support`]'s paired runs.
const FILL: [Trade; 2] = [Trade::One, Trade::Diff];

/// `s` with the trade rules at the positions of `mask` (a bit per region id) set to `t`.
fn filled(s: &State, mask: u8, t: Trade) -> State {
    let mut out = *s;
    for (p, x) in out.trade.iter_mut().enumerate() {
        if mask >> p & 1 == 1 {
            *x = t;
        }
    }
    out
}

/// `o` with the trade rules at the positions of `mask` taken from `s` (what
/// [`Supports::grow_trade`] computes on codes, with [`trade_rules_bits`]).
#[cfg(test)]
fn with_trades_of(o: &State, mask: u8, s: &State) -> State {
    let mut out = *o;
    for p in 0..8 {
        if mask >> p & 1 == 1 {
            out.trade[p] = s.trade[p];
        }
    }
    out
}

/// The trade rules `choice` may not read in `s` (a bit per region id: all but the
/// spread-from region's and the challenge region's), and the key of `s`'s trade part:
/// those rules set to `FILL[0]`.
fn trade_key(s: &State, choice: &Choice) -> (State, u8) {
    let masked = !((1u8 << s.spread_from.id()) | (1u8 << choice.region.id()));
    (filled(&trade_part(s), masked, FILL[0]), masked)
}

/// Answers with the classes' driver and records each call's site and byte.
struct Recorder<'a> {
    inner: &'a mut Classes,
    trail: &'a mut Vec<(Site, u8)>,
}

impl Driver for Recorder<'_> {
    fn random(&mut self, q: &Query) -> u8 {
        let b = self.inner.random(q);
        self.trail.push((q.site, b));
        b
    }
}

/// Answers with a recorded trail; `ok` turns false if a call's site is not the next one
/// recorded (or the trail ran out).
struct Follower<'a> {
    trail: &'a [(Site, u8)],
    at: usize,
    ok: bool,
}

impl Driver for Follower<'_> {
    fn random(&mut self, q: &Query) -> u8 {
        match self.trail.get(self.at) {
            Some(&(site, b)) if site == q.site => {
                self.at += 1;
                b
            }
            _ => {
                self.ok = false;
                0
            }
        }
    }
}

/// The trade-part support of `s` under `choice` for every trade part that differs from
/// `s`'s only in the trade rules at `masked` (which `s` holds as `FILL[0]`): each outcome's
/// trade part (the masked rules it did not write as `FILL[0]`) and the masked rules it
/// wrote. Every byte-class path runs twice, from `FILL[0]` and from `FILL[1]` in the
/// unwritten masked rules, with the same bytes: a masked rule is written where the two
/// runs end equal in it. `None` if the two runs made different calls or ended apart
/// anywhere else (a masked rule was read).
fn masked_support(s: &State, choice: &Choice, masked: u8) -> Option<Vec<Edit>> {
    let settle = |cx: &mut Ctx| cx.state = join(s, &cx.state);
    let mut cur: HashSet<(Ctx, u8)> = HashSet::default();
    cur.insert((Ctx::start(s), 0));
    let mut trail: Vec<(Site, u8)> = Vec::new();
    for phase in PHASES {
        let mut next: HashSet<(Ctx, u8)> =
            HashSet::with_capacity_and_hasher(cur.len(), Default::default());
        for (cx, written) in cur {
            let other = Ctx {
                state: filled(&cx.state, masked & !written, FILL[1]),
                ..cx.clone()
            };
            let mut od = Classes::default();
            loop {
                od.start();
                trail.clear();
                let mut a = cx.clone();
                phase(
                    &mut a,
                    choice,
                    &mut Recorder {
                        inner: &mut od,
                        trail: &mut trail,
                    },
                );
                let mut b = other.clone();
                let mut follow = Follower {
                    trail: &trail,
                    at: 0,
                    ok: true,
                };
                phase(&mut b, choice, &mut follow);
                if !follow.ok || follow.at != trail.len() {
                    return None;
                }
                let mut w = written;
                for p in 0..8 {
                    if masked >> p & 1 == 1 && a.state.trade[p] == b.state.trade[p] {
                        w |= 1 << p;
                    }
                }
                b.state = filled(&b.state, masked & !w, FILL[0]);
                if a != b {
                    return None;
                }
                a.messages.clear();
                settle(&mut a);
                next.insert((a, w));
                if !od.odometer.advance() {
                    break;
                }
            }
        }
        cur = next;
    }
    // Sorted as codes: the order of trade parts, one word compared each time.
    let out = distinct(cur.into_iter().map(|(cx, w)| (trade_code(&cx.state), w)));
    Some(
        out.into_iter()
            .map(|(c, w)| (from_trade_code(c), w))
            .collect(),
    )
}

/// `f` of every item, in parallel from [`PARALLEL_FROM`] items on.
fn map_parts<T: Sync, U: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<U, Interrupted> + Sync + Send,
) -> Result<Vec<U>, Interrupted> {
    if items.len() >= PARALLEL_FROM {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// The items, sorted, each once.
fn distinct<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.collect();
    v.sort_unstable();
    v.dedup();
    v
}

impl Supports {
    /// The rules parts `c` leads to from the states `from` (which share their trade
    /// part, `from[0]`'s), sorted. Supports not met before are computed (in parallel when
    /// there are many) and charged to the budget's memory meter as each is found, so that
    /// the bound holds while the others are still being computed.
    fn grow_rules(
        &mut self,
        from: &[State],
        c: &Choice,
        budget: &Budget,
    ) -> Result<Vec<State>, Interrupted> {
        let charge = |n: usize| budget.charge("reachable states", n as u64 * PART_BYTES);
        // A hash set while the supports overlap (millions of inserts into a union of
        // thousands), sorted once at the end.
        let mut out: HashSet<State> = HashSet::default();
        let missing = distinct(
            from.iter()
                .map(rules_part)
                .filter(|p| !self.rules.contains_key(&(*p, *c))),
        );
        let found = map_parts(&missing, |p| {
            let v = support_of(Part::Rules, &join(p, &from[0]), c);
            charge(v.len())?;
            Ok(v)
        })?;
        self.rules
            .extend(missing.into_iter().zip(found).map(|(p, v)| ((p, *c), v)));
        for s in from {
            out.extend(self.rules[&(rules_part(s), *c)].iter().copied());
        }
        budget.check()?;
        let mut out: Vec<State> = out.into_iter().collect();
        out.sort_unstable();
        Ok(out)
    }

    /// The trade parts `c` leads to from the states `from` (which share their rules
    /// part, `from[0]`'s), as their codes ([`trade_code`]), sorted. Supports are
    /// computed and charged as [`Supports::grow_rules`] does (each takes about a quarter
    /// of a millisecond).
    fn grow_trade(
        &mut self,
        from: &[State],
        c: &Choice,
        budget: &Budget,
    ) -> Result<Vec<u64>, Interrupted> {
        let charge = |n: usize| budget.charge("reachable states", n as u64 * PART_BYTES);
        let keys: Vec<(State, u8)> = from.iter().map(|s| trade_key(s, c)).collect();
        let missing = distinct(
            keys.iter()
                .filter(|(k, _)| !self.edits.contains_key(&(*k, *c)))
                .copied(),
        );
        let found = map_parts(&missing, |(k, masked)| {
            let v = masked_support(&join(&from[0], k), c, *masked);
            charge(v.as_ref().map_or(0, Vec::len))?;
            Ok(v)
        })?;
        self.edits.extend(
            missing
                .into_iter()
                .zip(found)
                .map(|((k, _), v)| ((k, *c), v)),
        );
        let missing = distinct(
            from.iter()
                .zip(&keys)
                .filter(|(_, (k, _))| self.edits[&(*k, *c)].is_none())
                .map(|(s, _)| trade_part(s))
                .filter(|p| !self.plain.contains_key(&(*p, *c))),
        );
        let found = map_parts(&missing, |p| {
            let v = support_of(Part::Trade, &join(&from[0], p), c);
            charge(v.len())?;
            Ok(v)
        })?;
        self.plain
            .extend(missing.into_iter().zip(found).map(|(p, v)| ((p, *c), v)));
        // Trade parts as numbers while they are gathered: hashing and comparing
        // a number costs a fraction of a state's field by field.
        let mut codes: HashSet<u64> = HashSet::default();
        // The parts with edits, by key: an edit's outcome takes the masked rules
        // it did not write from the part it is applied to, so it is written once
        // per distinct value of those rules among the key's parts, not once per
        // part (the parts of a key differ only in masked rules).
        let mut by_key: HashMap<State, (u8, Vec<u64>)> = HashMap::default();
        for (s, (k, masked)) in from.iter().zip(&keys) {
            if self.edits[&(*k, *c)].is_some() {
                by_key
                    .entry(*k)
                    .or_insert_with(|| (*masked, Vec::new()))
                    .1
                    .push(trade_code(s));
            } else {
                codes.extend(self.plain[&(trade_part(s), *c)].iter().map(trade_code));
            }
        }
        for (k, (masked, parts)) in by_key {
            let edits = self.edits[&(k, *c)].as_ref().expect("edits");
            // The distinct values of the rules at each unwritten mask, as code bits.
            let mut values: HashMap<u8, (u64, Vec<u64>)> = HashMap::default();
            for (o, w) in edits {
                let (bits, values) = values.entry(masked & !w).or_insert_with(|| {
                    let bits = trade_rules_bits(masked & !w);
                    (bits, distinct(parts.iter().map(|p| p & bits)))
                });
                let rest = trade_code(o) & !*bits;
                codes.extend(values.iter().map(|v| rest | v));
            }
        }
        // Codes sort as their trade parts do.
        let mut codes: Vec<u64> = codes.into_iter().collect();
        codes.sort_unstable();
        budget.check()?;
        Ok(codes)
    }
}

/// The search state by state from the start.
#[cfg(test)]
pub(super) fn reachable_state_by_state(
    sc: &Scenario,
    budget: &Budget,
) -> Result<Vec<State>, Interrupted> {
    let seen = HashSet::from_iter([sc.state]);
    reachable_by_states(sc, budget, seen, vec![sc.state], 0)
}

/// [`reachable_with`] at most `max_nodes` nodes a layer (tests).
#[cfg(test)]
pub(super) fn reachable_nodes(
    sc: &Scenario,
    budget: &Budget,
    max_nodes: usize,
) -> Result<Reach, Interrupted> {
    reachable_with(sc, budget, max_nodes)
}

/// The search state by state from layer `j` on: `seen` holds every state of layers `..=j`,
/// `frontier` those of layer `j` (a fixed sequence) or those new in it (free choices).
fn reachable_by_states(
    sc: &Scenario,
    budget: &Budget,
    mut seen: HashSet<State>,
    mut frontier: Vec<State>,
    from: usize,
) -> Result<Vec<State>, Interrupted> {
    for j in from..sc.horizon() {
        let mut next: BTreeSet<State> = BTreeSet::new();
        for s in &frontier {
            let before = next.len();
            for c in choices_at(sc, s, j) {
                next.extend(support(s, &c));
            }
            // The states a frontier state adds (in the next layer, then in `seen` and the
            // frontier): three copies and their set nodes.
            budget.charge(
                "reachable states",
                (next.len() - before) as u64 * STATE_BYTES,
            )?;
        }
        // With a fixed sequence a state reached after j challenges must go on from j.
        if sc.challenges.is_empty() {
            frontier = next.iter().filter(|s| !seen.contains(s)).copied().collect();
        } else {
            frontier = next.iter().copied().collect();
        }
        seen.extend(next);
    }
    let mut out: Vec<State> = seen.into_iter().collect();
    out.sort();
    Ok(out)
}

/// Projects a state onto the part a goal reads: rule goals ignore the trade part, trade
/// and Queen goals ignore the rules part (the two parts evolve independently given the
/// choices, and the choice sets differ only by Queen choices that act on rules like
/// ordinary ones). Origins and the current region never change dynamics.
pub fn abstract_state(s: &State, goal: &Goal) -> State {
    let mut a = *s;
    a.current = Region::Balamb;
    for c in a.carried.iter_mut() {
        c.origin = Region::Balamb;
    }
    if goal.rules_only() {
        let d = State::default();
        a.trade = d.trade;
        a.spread_from = d.spread_from;
        a.amount = 0;
        a.points = 0;
        a.queen_trade = d.queen_trade;
        a.queen = Region::Balamb;
    } else if goal.trade_only() {
        a.rules = [RuleSet::EMPTY; 8];
        a.carried = [Carried {
            rules: RuleSet::EMPTY,
            origin: Region::Balamb,
        }; 2];
    }
    a
}

/// The planner's answer.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The goal.
    pub goal: Goal,
    /// The horizon N.
    pub horizon: usize,
    /// Maximum probability of the goal within N challenges (exact).
    #[serde(serialize_with = "ser_ratio")]
    pub probability: BigRational,
    /// Maximum probability within n challenges, for n = 0..=N.
    #[serde(serialize_with = "ser_ratios")]
    pub by_horizon: Vec<BigRational>,
    /// The decision table of an optimal policy, for the states it reaches with
    /// non-zero probability: `(challenges done, state, remaining, best choice, value)`,
    /// at most `table_limit` rows, in order of challenges done then probability.
    pub table: Vec<PolicyRow>,
    /// Rows left out of the table.
    pub table_left_out: usize,
    /// Distinct (abstract) states the dynamic programme visited.
    pub states: usize,
    /// Minimum expected number of challenges to the goal (None: not computed or infinite;
    /// see `expected_note`).
    pub expected: Option<f64>,
    /// Why `expected` is missing, or how it was computed.
    pub expected_note: String,
}

/// Serialises rationals as `"n/d"` strings.
pub fn ser_ratios<S: serde::Serializer>(r: &[BigRational], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(r.len()))?;
    for x in r {
        seq.serialize_element(&format!("{}/{}", x.numer(), x.denom()))?;
    }
    seq.end()
}

/// One row of a decision table.
#[derive(Clone, Debug, Serialize)]
pub struct PolicyRow {
    /// Challenges done before this decision.
    pub done: usize,
    /// Probability of being in this state at that point under the policy.
    #[serde(serialize_with = "ser_ratio")]
    pub reach: BigRational,
    /// The (abstract) state.
    pub state: State,
    /// The best challenge (None: the goal already holds, stop).
    pub choice: Option<Choice>,
    /// The probability of reaching the goal from here with the remaining challenges.
    #[serde(serialize_with = "ser_ratio")]
    pub value: BigRational,
}

/// Each distinct move from a state: a choice and its next-state distribution.
type Moves = Vec<(Choice, Vec<(State, BigRational)>)>;

struct Planner<'a> {
    sc: &'a Scenario,
    goal: &'a Goal,
    budget: &'a Budget,
    trans: HashMap<State, Moves>,
    value: HashMap<(State, usize), (BigRational, Option<Choice>)>,
}

impl Planner<'_> {
    fn moves(&mut self, s: &State) -> Result<&Moves, Interrupted> {
        if !self.trans.contains_key(s) {
            self.budget.check()?;
            let mut v = Vec::new();
            let mut seen: BTreeMap<Vec<(State, BigRational)>, ()> = BTreeMap::new();
            for c in choices(s, &self.sc.allowed) {
                let t: Vec<(State, BigRational)> = {
                    let mut acc: BTreeMap<State, BigRational> = BTreeMap::new();
                    for (n, p) in transitions(s, &c) {
                        *acc.entry(abstract_state(&n, self.goal))
                            .or_insert_with(BigRational::zero) += p;
                    }
                    acc.into_iter().collect()
                };
                // Choices with the same distribution are one move (the first is kept).
                if seen.insert(t.clone(), ()).is_none() {
                    v.push((c, t));
                }
            }
            let bytes: usize = v.iter().map(|(_, t)| 64 + t.len() * 96).sum();
            self.budget
                .charge("planner states", (bytes + 96) as u64 + STATE_BYTES)?;
            self.trans.insert(*s, v);
        }
        Ok(&self.trans[s])
    }

    /// The value of `s` with `n` challenges left when it needs no computing: the goal
    /// holds (1), none are left (0), or it is memoised.
    fn known(&self, s: &State, n: usize) -> Option<(BigRational, Option<Choice>)> {
        if self.goal.holds(s) {
            Some((BigRational::one(), None))
        } else if n == 0 {
            Some((BigRational::zero(), None))
        } else {
            self.value.get(&(*s, n)).cloned()
        }
    }

    fn is_known(&self, s: &State, n: usize) -> bool {
        self.goal.holds(s) || n == 0 || self.value.contains_key(&(*s, n))
    }

    /// Maximum probability of the goal within `n` challenges from `s`, with a best choice.
    ///
    /// The value of (s, n) needs those of (s', n - 1) for every state s' a move leads to
    /// (and, for ties, of (s, n - 1)): a depth-first search as deep as the horizon, which
    /// is a flag's value. So the search keeps its own stack (no recursion): an entry is
    /// computed once everything it needs is known, else what it needs is pushed above it.
    fn value(&mut self, s: &State, n: usize) -> Result<(BigRational, Option<Choice>), Interrupted> {
        let mut stack = vec![(*s, n)];
        while let Some(&(t, k)) = stack.last() {
            if self.is_known(&t, k) {
                stack.pop();
                continue;
            }
            self.moves(&t)?;
            let mut needs: Vec<(State, usize)> = self.trans[&t]
                .iter()
                .flat_map(|(_, dist)| dist.iter().map(|(t2, _)| *t2))
                .filter(|t2| !self.is_known(t2, k - 1))
                .map(|t2| (t2, k - 1))
                .collect();
            if k > 1 && !self.is_known(&t, k - 1) {
                needs.push((t, k - 1));
            }
            if needs.is_empty() {
                stack.pop();
                self.compute(&t, k)?;
            } else {
                stack.extend(needs);
            }
        }
        Ok(self.known(s, n).expect("computed"))
    }

    /// Computes and memoises the value of (s, n), n > 0, once the values it needs are
    /// known (see [`Planner::value`]).
    fn compute(&mut self, s: &State, n: usize) -> Result<(), Interrupted> {
        let mut vals: Vec<(Choice, BigRational)> = Vec::with_capacity(self.trans[s].len());
        for (c, t) in &self.trans[s] {
            let mut v = BigRational::zero();
            for (n2, p) in t {
                let (w, _) = self.known(n2, n - 1).expect("needed values come first");
                if !w.is_zero() {
                    v += p * w;
                }
            }
            vals.push((*c, v));
        }
        let top = vals
            .iter()
            .map(|(_, v)| v.clone())
            .max()
            .unwrap_or_else(BigRational::zero);
        // Ties: prefer the move that is already optimal with one challenge fewer (so the
        // policy does not waste challenges), else the first in choice order.
        let prev = if n > 1 {
            self.known(s, n - 1).expect("needed values come first").1
        } else {
            None
        };
        let pick = prev
            .filter(|c| vals.iter().any(|(d, v)| d == c && *v == top))
            .or_else(|| vals.iter().find(|(_, v)| *v == top).map(|(c, _)| *c));
        let mut best = (top, pick);
        if best.0.is_zero() {
            best.1 = None;
        }
        self.budget.charge("planner values", 160 + STATE_BYTES)?;
        self.value.insert((*s, n), best);
        Ok(())
    }
}

/// The planner: maximum probability of `goal` within `horizon` challenges by exact
/// dynamic programming, an optimal decision table (at most `table_limit` rows), and the
/// minimum expected number of challenges (value iteration over the closure of reachable
/// abstract states when it has at most `closure_limit` states).
pub fn plan(
    sc: &Scenario,
    goal: &Goal,
    horizon: usize,
    table_limit: usize,
    closure_limit: usize,
    budget: &Budget,
) -> Result<Plan, Interrupted> {
    let mut p = Planner {
        sc,
        goal,
        budget,
        trans: HashMap::default(),
        value: HashMap::default(),
    };
    let start = abstract_state(&sc.state, goal);
    let mut by_horizon = Vec::new();
    for n in 0..=horizon {
        by_horizon.push(p.value(&start, n)?.0);
    }
    // Decision table: forward over the policy's reachable states.
    let mut table = Vec::new();
    let mut left_out = 0;
    let mut layer: BTreeMap<State, BigRational> = BTreeMap::new();
    layer.insert(start, BigRational::one());
    for done in 0..horizon {
        let mut rows: Vec<PolicyRow> = Vec::new();
        let mut next: BTreeMap<State, BigRational> = BTreeMap::new();
        for (s, r) in &layer {
            budget.check()?;
            let (value, choice) = p.value(s, horizon - done)?;
            rows.push(PolicyRow {
                done,
                reach: r.clone(),
                state: *s,
                choice,
                value: value.clone(),
            });
            if let Some(c) = choice {
                let moves = p.moves(s)?;
                if let Some((_, t)) = moves.iter().find(|(m, _)| *m == c) {
                    for (n2, q) in t.clone() {
                        *next.entry(n2).or_insert_with(BigRational::zero) += r * q;
                    }
                }
            }
        }
        rows.sort_by(|a, b| b.reach.cmp(&a.reach).then_with(|| a.state.cmp(&b.state)));
        for row in rows {
            if row.choice.is_none() && row.done > 0 {
                continue;
            }
            if table.len() < table_limit {
                table.push(row);
            } else {
                left_out += 1;
            }
        }
        layer = next;
    }
    let (expected, expected_note) = expected_challenges(&mut p, &start, closure_limit)?;
    Ok(Plan {
        goal: goal.clone(),
        horizon,
        probability: by_horizon[horizon].clone(),
        by_horizon,
        table,
        table_left_out: left_out,
        states: p.trans.len(),
        expected,
        expected_note,
    })
}

/// Minimum expected challenges to the goal: the closure of reachable abstract states
/// (at most `limit`), the states where the goal is reached almost surely under some
/// policy (the classical fixpoint), then value iteration in f64 to a 1e-12 change.
fn expected_challenges(
    p: &mut Planner,
    start: &State,
    limit: usize,
) -> Result<(Option<f64>, String), Interrupted> {
    if p.goal.holds(start) {
        return Ok((Some(0.0), "the goal already holds".into()));
    }
    // Closure.
    let mut index: HashMap<State, usize> = HashMap::default();
    let mut states = vec![*start];
    index.insert(*start, 0);
    let mut i = 0;
    while i < states.len() {
        let s = states[i];
        i += 1;
        if p.goal.holds(&s) {
            continue;
        }
        let moves = p.moves(&s)?.clone();
        for (_, t) in moves {
            for (n, _) in t {
                if let std::collections::hash_map::Entry::Vacant(e) = index.entry(n) {
                    if states.len() >= limit {
                        return Ok((
                            None,
                            format!("not computed: more than {limit} reachable states"),
                        ));
                    }
                    e.insert(states.len());
                    states.push(n);
                }
            }
        }
    }
    let n = states.len();
    let goal: Vec<bool> = states.iter().map(|s| p.goal.holds(s)).collect();
    // moves as index lists with f64 probabilities.
    let mut mv: Vec<Vec<Vec<(usize, f64)>>> = vec![Vec::new(); n];
    for (k, s) in states.iter().enumerate() {
        if goal[k] {
            continue;
        }
        p.budget.check()?;
        for (_, t) in p.moves(s)?.clone() {
            mv[k].push(t.iter().map(|(s2, q)| (index[s2], ratio_f64(q))).collect());
        }
    }
    // Almost-sure reachability: greatest fixpoint.
    let mut alive = vec![true; n];
    loop {
        // Moves staying in alive.
        let ok_move = |m: &Vec<(usize, f64)>, alive: &Vec<bool>| m.iter().all(|&(j, _)| alive[j]);
        // Least fixpoint: states reaching the goal using only ok moves.
        let mut reach = goal.clone();
        loop {
            let mut changed = false;
            for k in 0..n {
                if reach[k] || !alive[k] {
                    continue;
                }
                if mv[k]
                    .iter()
                    .any(|m| ok_move(m, &alive) && m.iter().any(|&(j, _)| reach[j]))
                {
                    reach[k] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let next: Vec<bool> = (0..n).map(|k| alive[k] && reach[k]).collect();
        if next == alive {
            break;
        }
        alive = next;
        p.budget.check()?;
    }
    if !alive[0] {
        return Ok((
            None,
            "infinite: no policy reaches the goal with probability 1".into(),
        ));
    }
    let mut e = vec![0.0f64; n];
    for _ in 0..1_000_000 {
        p.budget.check()?;
        let mut delta = 0.0f64;
        for k in 0..n {
            if goal[k] || !alive[k] {
                continue;
            }
            let best = mv[k]
                .iter()
                .filter(|m| m.iter().all(|&(j, _)| alive[j]))
                .map(|m| 1.0 + m.iter().map(|&(j, q)| q * e[j]).sum::<f64>())
                .fold(f64::INFINITY, f64::min);
            delta = delta.max((best - e[k]).abs());
            e[k] = best;
        }
        if delta < 1e-12 {
            return Ok((
                Some(e[0]),
                format!("value iteration over {n} reachable states (f64, change < 1e-12)"),
            ));
        }
    }
    Ok((
        Some(e[0]),
        format!("value iteration over {n} states stopped at 10^6 sweeps"),
    ))
}

/// A rational as f64.
pub fn ratio_f64(r: &BigRational) -> f64 {
    use num_traits::ToPrimitive;
    r.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trade part's support found by edits (shared by every trade part that differs
    /// only in the rules the challenge does not read) is exactly its own support, state
    /// by state: over generated states with every trade rule drawn anew, and every choice
    /// in every region. The edits' check must also pass (the judge reads no masked rule).
    #[test]
    fn trade_supports_by_edits_are_each_parts_own_support() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let knobs = super::super::gen::GenArgs {
            regions: 8,
            ..Default::default()
        };
        let mut compared = 0;
        for seed in 0..40 {
            let mut s = super::super::gen::generate(&knobs, seed).state;
            for _ in 0..4 {
                for t in s.trade.iter_mut() {
                    *t = Trade::ALL[rng.gen_range(0..4)];
                }
                for c in choices(&s, &Region::ALL) {
                    let (key, masked) = trade_key(&s, &c);
                    let edits = masked_support(&join(&s, &key), &c, masked)
                        .expect("the judge reads no masked trade rule");
                    let by_edits: BTreeSet<State> = edits
                        .iter()
                        .map(|(o, w)| with_trades_of(o, masked & !w, &s))
                        .collect();
                    // The same, on codes, as the search gathers them.
                    for (o, w) in &edits {
                        let bits = trade_rules_bits(masked & !w);
                        assert_eq!(
                            trade_code(o) & !bits | trade_code(&s) & bits,
                            trade_code(&with_trades_of(o, masked & !w, &s))
                        );
                    }
                    let own: BTreeSet<State> =
                        support_of(Part::Trade, &s, &c).into_iter().collect();
                    assert_eq!(by_edits, own, "{c} from {s:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "{compared} supports compared");
    }

    /// The value of (s, n) needs (s', n - 1) for every next state s': asked directly for
    /// a horizon of 200,000, the planner searches 200,000 levels deep, far deeper than a
    /// test thread's stack would allow a recursive search. A goal that asks for a rule
    /// both present and absent never holds, so every value is 0 and no choice is best.
    #[test]
    fn a_horizon_deeper_than_any_stack_is_planned() {
        let goal = Goal(vec![
            Atom::Has(Region::Balamb, Rule::Open),
            Atom::Lacks(Region::Balamb, Rule::Open),
        ]);
        let sc = Scenario {
            state: State::default(),
            allowed: vec![Region::Balamb],
            bound: 1,
            challenges: vec![],
            goal: Some(goal.clone()),
        };
        let budget = Budget::new();
        let mut p = Planner {
            sc: &sc,
            goal: &goal,
            budget: &budget,
            trans: HashMap::default(),
            value: HashMap::default(),
        };
        let start = abstract_state(&sc.state, &goal);
        assert_eq!(
            p.value(&start, 200_000).unwrap(),
            (BigRational::zero(), None)
        );
    }
}
