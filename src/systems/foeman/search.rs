//! The direct engine: exhaustive search of the simulator over every die roll and every
//! choice (an odometer over the choice points, each sequence re-simulated from the start),
//! with exact probabilities; and queries over the outcomes.
//!
//! Invariants: every roll/choice sequence is visited exactly once; a tie-break scan among
//! `k` tied maxima is one draw of `k` branches of 1/k (the sequential dice select each
//! maximum with probability exactly 1/k — proved in `docs/foeman.md` and checked
//! exhaustively by the fairness tests — so the `2^(k-1)` die-by-die paths collapse into
//! `k`), an initiative d6 six branches of 1/6, a free choice among `n` alternatives `n`
//! branches of 1/n (the decision in `docs/foeman.md`), so the probabilities of each phase
//! sum to 1. The Movement and Action phases share no roll or choice and are searched
//! separately; the Action phase segment by segment, memoised on what the rest of the
//! round depends on ([`Key`]: the unacted figures' waited marks, FigSeq *ranks* and
//! current modDX), so states reached by different action orders share one entry.
//! Never calls the SAT layer; polls the [`Budget`] once per run.

use super::model::{Acted, ActionOutcome, Answer, Scenario, SideOrder};
use super::simulate::{self, ActState, Driver, Event, SegmentEnd};
use crate::odometer::Odometer;
use crate::systems::spec::{Budget, Charged, Interrupted};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The probability of an outcome and one run that reaches it.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    /// Exact probability (over dice; free choices uniform).
    #[serde(serialize_with = "ser_ratio")]
    pub probability: BigRational,
    /// The events of the first run found that reaches it.
    pub witness: Vec<Event>,
}

/// Serializes a rational as `"p/q"` (or `"p"`).
pub fn ser_ratio<S: serde::Serializer>(r: &BigRational, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&r.to_string())
}

/// Every outcome of each phase with its probability.
#[derive(Clone, Debug, Serialize)]
pub struct Enumerated {
    /// Side orders.
    pub sides: BTreeMap<SideOrder, Found>,
    /// Action-phase outcomes.
    pub actions: BTreeMap<ActionOutcome, Found>,
    /// Roll/choice sequences simulated (both phases).
    pub runs: usize,
    /// What the probabilities assume about free choices.
    pub assumptions: Assumptions,
}

impl Enumerated {
    /// The reachable sets, the comparable answer.
    pub fn answer(&self) -> Answer {
        Answer {
            side_orders: self.sides.keys().cloned().collect(),
            actions: self.actions.keys().cloned().collect(),
        }
    }
}

#[derive(Clone, Copy)]
enum Point {
    D6,
    Tie(u32),
    Draw(usize),
    Choose(usize),
}

impl Point {
    fn arity(self) -> usize {
        match self {
            Point::D6 => 6,
            Point::Tie(_) => 2,
            Point::Draw(k) => k,
            Point::Choose(n) => n,
        }
    }
    fn weight(self, i: usize) -> BigRational {
        let r = |a: u64, b: u64| BigRational::new(BigInt::from(a), BigInt::from(b));
        match self {
            Point::D6 => r(1, 6),
            Point::Tie(k) if i == 0 => r(1, k as u64),
            Point::Tie(k) => r(k as u64 - 1, k as u64),
            Point::Draw(k) => r(1, k as u64),
            Point::Choose(n) => r(1, n as u64),
        }
    }
}

/// A driver that answers from the odometer's current sequence (branch 0 past the prefix
/// of earlier runs), keeping each choice point's kind for the run's probability.
struct Rolls(Odometer<Point>);

impl Rolls {
    fn next(&mut self, p: Point) -> usize {
        self.0.pick_with(p.arity(), p)
    }

    fn probability(&self) -> BigRational {
        let mut p = BigRational::one();
        for (i, _, point) in self.0.run() {
            p *= point.weight(i);
        }
        p
    }
}

impl Driver for Rolls {
    fn d6(&mut self, _side: usize) -> i32 {
        self.next(Point::D6) as i32 + 1
    }
    fn tie(&mut self, k: u32, _contender: usize, _noted: usize) -> u32 {
        if self.next(Point::Tie(k)) == 0 {
            1
        } else {
            2
        }
    }
    fn choose(&mut self, n: usize, _what: simulate::Choice) -> usize {
        self.next(Point::Choose(n))
    }
    fn draw(&mut self, k: usize) -> Option<usize> {
        Some(self.next(Point::Draw(k)))
    }
}

/// Estimated bytes of a stored outcome of `n` words with a witness of `events`: the
/// outcome, its probability, its witness, a map node.
fn found_bytes(words: usize, events: usize) -> u64 {
    (160 + 8 * words + events * std::mem::size_of::<Event>()) as u64
}

fn explore<K: Ord>(
    budget: &Budget,
    runs: &mut usize,
    out: &mut BTreeMap<K, Found>,
    words: impl Fn(&K) -> usize,
    mut run: impl FnMut(&mut Rolls, &mut Vec<Event>) -> K,
) -> Result<(), Interrupted> {
    let mut odo = Rolls(Odometer::new());
    loop {
        budget.check()?;
        *runs += 1;
        let mut events = Vec::new();
        odo.0.rewind();
        let k = run(&mut odo, &mut events);
        let p = odo.probability();
        match out.get_mut(&k) {
            Some(f) => f.probability += p,
            None => {
                budget.charge("side orders", found_bytes(words(&k), events.len()))?;
                out.insert(
                    k,
                    Found {
                        probability: p,
                        witness: events,
                    },
                );
            }
        }
        if !odo.0.advance() {
            return Ok(());
        }
    }
}

/// Every outcome of both phases with exact probabilities.
pub fn enumerate(sc: &Scenario, budget: &Budget) -> Result<Enumerated, Interrupted> {
    let mut runs = 0;
    let mut sides = BTreeMap::new();
    explore(budget, &mut runs, &mut sides, Vec::len, |d, ev| {
        simulate::sides(sc, d, ev)
    })?;
    let mut memo = Memo::new();
    let (dist, _) = action_dist(sc, &ActState::start(sc), &mut memo, budget, &mut runs)?;
    let actions = Rc::try_unwrap(dist).unwrap_or_else(|rc| (*rc).clone());
    Ok(Enumerated {
        sides,
        actions,
        runs,
        assumptions: assumptions(sc),
    })
}

/// What the probabilities of [`enumerate`] assume about the round's free choices (the
/// reachable sets assume nothing: every choice is explored).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assumptions {
    /// How a free choice is weighted: always `"uniform"` (no player strategy is modelled).
    pub choices: &'static str,
    /// Figures with a real choice (a set of two or more declarations in some segment):
    /// each declaration of the set has probability 1/n, at every poll and every re-query.
    pub choosing_figures: Vec<String>,
    /// Sides with `postpone maybe`: they postpone with probability 1/2 when they could.
    pub postpone_maybe: Vec<String>,
    /// Sides with `postpone once` (`yes`): they postpone the first time they are noted
    /// while another side could move, once per round (probability 1, no choice).
    pub postpone_once: Vec<String>,
}

/// The assumptions behind the probabilities of a scenario's enumeration.
pub fn assumptions(sc: &Scenario) -> Assumptions {
    use super::model::Postpone;
    let sides = |p: Postpone| {
        sc.sides
            .iter()
            .filter(|s| s.postpone == p)
            .map(|s| s.name.clone())
            .collect()
    };
    Assumptions {
        choices: "uniform",
        choosing_figures: sc
            .figures
            .iter()
            .filter(|f| f.plan.iter().any(|set| set.len() > 1))
            .map(|f| f.name.clone())
            .collect(),
        postpone_maybe: sides(Postpone::Maybe),
        postpone_once: sides(Postpone::Yes),
    }
}

type Dist = Rc<BTreeMap<ActionOutcome, Found>>;

/// What the rest of the Action phase depends on, from a state between segments: which
/// figures acted and, for the unacted ones, whether they waited, the relative order of
/// their FigSeq values (ranks; 0 = unsequenced) and their current modDX. The segment
/// index is the number of acted figures (each segment makes one act or ends the round);
/// absolute FigSeq values and acted figures' marks never change what happens next.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    acted: Vec<bool>,
    waited: Vec<bool>,
    rank: Vec<u8>,
    dx: Vec<i32>,
}

fn key(st: &ActState) -> Key {
    let n = st.acted.len();
    let live = |f: usize| !st.acted[f];
    let rank = (0..n)
        .map(|f| {
            if !live(f) || st.seq[f] == 0 {
                0
            } else {
                1 + (0..n)
                    .filter(|&g| live(g) && st.seq[g] != 0 && st.seq[g] < st.seq[f])
                    .count() as u8
            }
        })
        .collect();
    Key {
        acted: st.acted.clone(),
        waited: (0..n).map(|f| live(f) && st.waited[f]).collect(),
        rank,
        dx: (0..n).map(|f| if live(f) { st.dx[f] } else { 0 }).collect(),
    }
}

/// A memoised distribution and the state it was computed from (its witnesses' FigSeq
/// values are that state's).
type Memo = HashMap<Key, (Dist, Rc<ActState>)>;

/// Rewrites a witness computed from state `from` for the equivalent state `to`: FigSeq
/// values kept from `from` become `to`'s, values given later are shifted by the
/// difference of the last FigSeq given.
fn remap(events: &[Event], from: &ActState, to: &ActState) -> Vec<Event> {
    if from.seq == to.seq && from.next_seq == to.next_seq {
        return events.to_vec();
    }
    events
        .iter()
        .map(|e| match e {
            Event::Poll { figure, seq, .. } => {
                let mut e = e.clone();
                let new = if *seq <= from.next_seq {
                    to.seq[*figure]
                } else {
                    seq - from.next_seq + to.next_seq
                };
                if let Event::Poll { seq, .. } = &mut e {
                    *seq = new;
                }
                e
            }
            _ => e.clone(),
        })
        .collect()
}

/// Adds probability `p` of outcome `k` to `out`; a new outcome (with its witness) is
/// charged to `budget`.
fn add(
    budget: &Budget,
    out: &mut BTreeMap<ActionOutcome, Found>,
    k: ActionOutcome,
    p: BigRational,
    witness: impl FnOnce() -> Vec<Event>,
) -> Result<(), Interrupted> {
    match out.get_mut(&k) {
        Some(f) => f.probability += p,
        None => {
            let witness = witness();
            budget.charge(
                "memoised Action-phase distributions",
                found_bytes(2 * k.order.len() + k.watching.len(), witness.len()),
            )?;
            out.insert(
                k,
                Found {
                    probability: p,
                    witness,
                },
            );
        }
    }
    Ok(())
}

/// The distribution of the rest of the Action phase from a state between segments:
/// every roll/choice sequence of one segment (odometer), then the memoised distribution
/// from the state it leads to. The future depends only on the state's [`Key`], so
/// memoising on it is exact. Returns the distribution and the state its witnesses were
/// computed from.
fn action_dist(
    sc: &Scenario,
    st: &ActState,
    memo: &mut Memo,
    budget: &Budget,
    runs: &mut usize,
) -> Result<(Dist, Rc<ActState>), Interrupted> {
    let k = key(st);
    if let Some((d, from)) = memo.get(&k) {
        return Ok((d.clone(), from.clone()));
    }
    // One segment's runs, grouped by what they lead to (the same segment end and state
    // from different rolls/choices): probabilities summed, the first run's events kept.
    let mut trans: BTreeMap<(Option<Acted>, ActState), (BigRational, Vec<Event>)> = BTreeMap::new();
    // The segment's distinct transitions are held until the distribution is built.
    let mut held = Charged::new(budget, "one segment's transitions");
    let state_bytes = (std::mem::size_of::<ActState>() + 24 * st.acted.len()) as u64;
    let mut odo = Rolls(Odometer::new());
    loop {
        budget.check()?;
        *runs += 1;
        odo.0.rewind();
        let mut next = st.clone();
        let mut ev = Vec::new();
        let end = simulate::segment(sc, &mut next, &mut odo, &mut ev);
        let p = odo.probability();
        let a = match end {
            SegmentEnd::RoundEnds => None,
            SegmentEnd::Acted(a) => Some(a),
        };
        match trans.get_mut(&(a, next.clone())) {
            Some(t) => t.0 += p,
            None => {
                held.add(160 + state_bytes + (ev.len() * std::mem::size_of::<Event>()) as u64)?;
                trans.insert((a, next), (p, ev));
            }
        }
        if !odo.0.advance() {
            break;
        }
    }
    let mut out = BTreeMap::new();
    for ((a, next), (p, ev)) in trans {
        match a {
            None => {
                let watching = (0..sc.figures.len()).filter(|&f| !next.acted[f]).collect();
                let k = ActionOutcome {
                    order: vec![],
                    watching,
                };
                add(budget, &mut out, k, p, || ev)?;
            }
            Some(a) => {
                let (sub, from) = action_dist(sc, &next, memo, budget, runs)?;
                for (o, f) in sub.iter() {
                    let mut order = Vec::with_capacity(o.order.len() + 1);
                    order.push(a);
                    order.extend_from_slice(&o.order);
                    let k = ActionOutcome {
                        order,
                        watching: o.watching.clone(),
                    };
                    add(budget, &mut out, k, &p * &f.probability, || {
                        let mut w = ev.clone();
                        w.extend(remap(&f.witness, &from, &next));
                        w
                    })?;
                }
            }
        }
    }
    // The memo entry's key and state (its outcomes were charged as they were added).
    budget.charge(
        "memoised Action-phase distributions",
        256 + 64 * k.acted.len() as u64,
    )?;
    let d = Rc::new(out);
    let from = Rc::new(st.clone());
    memo.insert(k, (d.clone(), from.clone()));
    Ok((d, from))
}

/// A question about the round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Query {
    /// Figure `0` acts, and before figure `1` (or `1` never acts).
    Before(usize, usize),
    /// The first figure to act had declared Watch first (it waited, then acted).
    WatcherFirst,
    /// Some figure that declared Watch acts later in the round.
    WatcherActs,
    /// The figure is still on Watch when the round ends.
    OnWatch(usize),
    /// The side moves first.
    SideFirst(usize),
    /// The side moves last.
    SideLast(usize),
}

impl Query {
    /// Parses `before F G`, `watcher-first`, `watcher-acts`, `on-watch F`, `side-first S`,
    /// `side-last S` against the scenario's names.
    pub fn parse(sc: &Scenario, text: &str) -> Result<Query, String> {
        let w: Vec<&str> = text.split_whitespace().collect();
        let fig = |s: &str| {
            sc.figures
                .iter()
                .position(|f| f.name == s)
                .ok_or_else(|| format!("no figure named `{s}`"))
        };
        let side = |s: &str| {
            sc.sides
                .iter()
                .position(|f| f.name == s)
                .ok_or_else(|| format!("no side named `{s}`"))
        };
        match w.as_slice() {
            ["before", a, b] => Ok(Query::Before(fig(a)?, fig(b)?)),
            ["watcher-first"] => Ok(Query::WatcherFirst),
            ["watcher-acts"] => Ok(Query::WatcherActs),
            ["on-watch", a] => Ok(Query::OnWatch(fig(a)?)),
            ["side-first", s] => Ok(Query::SideFirst(side(s)?)),
            ["side-last", s] => Ok(Query::SideLast(side(s)?)),
            _ => Err(format!(
                "unknown query `{text}` (one of: before F G, watcher-first, watcher-acts, \
                 on-watch F, side-first S, side-last S)"
            )),
        }
    }

    /// Whether the query is about the Movement phase (side order).
    pub fn on_sides(&self) -> bool {
        matches!(self, Query::SideFirst(_) | Query::SideLast(_))
    }

    /// Whether a side order satisfies a side query.
    pub fn holds_sides(&self, o: &SideOrder) -> bool {
        match *self {
            Query::SideFirst(s) => o.first() == Some(&s),
            Query::SideLast(s) => o.last() == Some(&s),
            _ => false,
        }
    }

    /// Whether an Action-phase outcome satisfies an action query.
    pub fn holds_actions(&self, o: &ActionOutcome) -> bool {
        let pos = |f: usize| o.order.iter().position(|a| a.figure == f);
        match *self {
            Query::Before(a, b) => match (pos(a), pos(b)) {
                (Some(i), Some(j)) => i < j,
                (Some(_), None) => true,
                _ => false,
            },
            Query::WatcherFirst => o.order.first().is_some_and(|a| a.waited),
            Query::WatcherActs => o.order.iter().any(|a| a.waited),
            Query::OnWatch(f) => o.watching.contains(&f),
            _ => false,
        }
    }
}

/// A query's answer from the enumeration: its probability, and a witness outcome.
#[derive(Clone, Debug, Serialize)]
pub struct QueryAnswer {
    /// Whether some run satisfies the query.
    pub holds: bool,
    /// The probability that it does.
    #[serde(serialize_with = "ser_ratio")]
    pub probability: BigRational,
    /// The most probable satisfying outcome (side order or action outcome, as JSON).
    pub witness: Option<serde_json::Value>,
    /// The run reaching the witness.
    pub trace: Vec<Event>,
}

/// Answers `q` from an enumeration.
pub fn answer(e: &Enumerated, q: &Query) -> QueryAnswer {
    let mut p = BigRational::zero();
    let mut best: Option<(BigRational, serde_json::Value, Vec<Event>)> = None;
    let mut consider = |prob: &BigRational, v: serde_json::Value, tr: &Vec<Event>| {
        p += prob;
        if best.as_ref().is_none_or(|b| *prob > b.0) {
            best = Some((prob.clone(), v, tr.clone()));
        }
    };
    if q.on_sides() {
        for (o, f) in e.sides.iter().filter(|(o, _)| q.holds_sides(o)) {
            consider(&f.probability, serde_json::json!(o), &f.witness);
        }
    } else {
        for (o, f) in e.actions.iter().filter(|(o, _)| q.holds_actions(o)) {
            consider(&f.probability, serde_json::json!(o), &f.witness);
        }
    }
    let (witness, trace) = match best {
        Some((_, v, t)) => (Some(v), t),
        None => (None, vec![]),
    };
    QueryAnswer {
        holds: witness.is_some(),
        probability: p,
        witness,
        trace,
    }
}
