//! A set of states kept as a union of products of *rules parts* and *trade parts*: the
//! reachable set both engines answer with, compared without listing its states.
//!
//! Owns: the two parts of a state ([`rules_part`], [`trade_part`], [`join`]), a trade part
//! as a 36-bit number ([`trade_code`], [`from_trade_code`]: hashed and compared as one word
//! while the engines gather trade parts and the canonical form is built), [`Reach`]
//! and its canonical form, the listing of its states (all, or the first few in order).
//!
//! A state's rules part is each region's rules, the carried rules and the current region;
//! its trade part is everything else (trade rules, spread-from, amount, points, the Queen
//! and her trade rule). A part is stored as a [`State`] whose other part's fields are the
//! defaults, so `join(rules_part(s), trade_part(s)) == s`.
//!
//! Invariant (the canonical form, so that `==` is equality of the sets): the classes
//! partition the trade parts of the set; a class holds every trade part `t` with the same
//! `R(t) = { r : join(r, t) in the set }` and that `R(t)` as its rules parts; no two
//! classes have the same rules parts; rules parts, trade parts and classes are sorted. The
//! canonical form is a function of the set alone, however it was put together.

use super::model::{Region, State, Trade};
use crate::systems::spec::{Budget, Interrupted};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BinaryHeap;

/// The rules part of `s` (the trade part's fields set to the defaults).
pub fn rules_part(s: &State) -> State {
    join(s, &State::default())
}

/// The trade part of `s` (the rules part's fields set to the defaults).
pub fn trade_part(s: &State) -> State {
    join(&State::default(), s)
}

/// The rules part of `r` with the trade part of `t`.
pub fn join(r: &State, t: &State) -> State {
    let mut s = *t;
    s.rules = r.rules;
    s.carried = r.carried;
    s.current = r.current;
    s
}

/// A trade part as a number (the trade rules, spread-from, amount, points, the Queen and
/// her rule; 36 bits), [`from_trade_code`]'s inverse.
pub fn trade_code(s: &State) -> u64 {
    let mut c = 0u64;
    for t in s.trade {
        c = c << 2 | t.id() as u64;
    }
    c = c << 3 | s.spread_from.id() as u64;
    c = c << 4 | u64::from(s.amount);
    c = c << 8 | u64::from(s.points);
    c = c << 3 | s.queen.id() as u64;
    c << 2 | s.queen_trade.id() as u64
}

/// The bits of a [`trade_code`] that hold the trade rules of the regions in `mask` (a bit
/// per region id): the code of `t` with those rules taken from `u` is
/// `code(t) & !bits | code(u) & bits`.
pub fn trade_rules_bits(mask: u8) -> u64 {
    (0..8)
        .filter(|p| mask >> p & 1 == 1)
        .map(|p| 0b11u64 << (20 + 2 * (7 - p)))
        .fold(0, |a, b| a | b)
}

/// The trade part numbered `c` by [`trade_code`].
pub fn from_trade_code(mut c: u64) -> State {
    let mut s = State::default();
    let mut take = |bits: u32| {
        let v = (c & ((1 << bits) - 1)) as usize;
        c >>= bits;
        v
    };
    s.queen_trade = Trade::ALL[take(2)];
    s.queen = Region::from_id(take(3));
    s.points = take(8) as u8;
    s.amount = take(4) as u8;
    s.spread_from = Region::from_id(take(3));
    for p in (0..8).rev() {
        s.trade[p] = Trade::ALL[take(2)];
    }
    s
}

/// Some rules parts and some trade parts: the states `join(r, t)` of every pair (how the
/// engines hand their sets to [`Reach::from_products`]).
pub type Product = (Vec<State>, Vec<State>);

/// Trade parts sharing their rules parts: the states `join(r, t)` for every `r` in
/// `rules` and `t` in `trade`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Class {
    /// Rules parts, sorted.
    pub rules: Vec<State>,
    /// Trade parts, sorted.
    pub trade: Vec<State>,
}

/// A set of states in canonical form (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Reach {
    classes: Vec<Class>,
}

/// Bytes one stored part costs while the canonical form is built (the part, its slot in
/// a list, a share of a map entry).
const PART_BYTES: u64 = std::mem::size_of::<State>() as u64 + 32;

impl Reach {
    /// The union of the products `rules × trade` of `rects` (each list a list of parts:
    /// a rules part's trade fields and a trade part's rules fields are ignored). The
    /// memory of the parts is charged to `budget`.
    pub fn from_products<I>(rects: I, budget: &Budget) -> Result<Reach, Interrupted>
    where
        I: IntoIterator<Item = Product>,
    {
        // Rules parts as numbers; each product as (its rules parts' numbers, sorted).
        let mut rule_id: HashMap<State, u32> = HashMap::default();
        let mut rule_of: Vec<State> = Vec::new();
        let mut rect_rules: Vec<Vec<u32>> = Vec::new();
        // Each trade part (as its code) with each product it is in.
        let mut member: Vec<(u64, u32)> = Vec::new();
        for (rules, trade) in rects {
            if rules.is_empty() || trade.is_empty() {
                continue;
            }
            budget.charge(
                "reachable states",
                (rules.len() + trade.len()) as u64 * PART_BYTES,
            )?;
            let i = rect_rules.len() as u32;
            let mut ids: Vec<u32> = rules
                .iter()
                .map(|r| {
                    let r = rules_part(r);
                    *rule_id.entry(r).or_insert_with(|| {
                        rule_of.push(r);
                        rule_of.len() as u32 - 1
                    })
                })
                .collect();
            ids.sort_unstable();
            ids.dedup();
            rect_rules.push(ids);
            member.extend(trade.iter().map(|t| (trade_code(t), i)));
        }
        // Sorted, each trade part's products are a run, ascending.
        member.sort_unstable();
        member.dedup();
        // R(t) is the union of the rules parts of the products t is in: computed once per
        // distinct list of products.
        let mut by_products: HashMap<Vec<u32>, Vec<u64>> = HashMap::default();
        for run in member.chunk_by(|a, b| a.0 == b.0) {
            let products: Vec<u32> = run.iter().map(|&(_, i)| i).collect();
            by_products.entry(products).or_default().push(run[0].0);
        }
        let mut by_rules: HashMap<Vec<u32>, Vec<u64>> = HashMap::default();
        for (products, trade) in by_products {
            let mut ids: Vec<u32> = products
                .iter()
                .flat_map(|&i| rect_rules[i as usize].iter().copied())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            by_rules.entry(ids).or_default().extend(trade);
        }
        let mut classes: Vec<Class> = by_rules
            .into_iter()
            .map(|(ids, mut codes)| {
                let mut rules: Vec<State> = ids.iter().map(|&i| rule_of[i as usize]).collect();
                rules.sort_unstable();
                // Codes sort as their trade parts do.
                codes.sort_unstable();
                let trade: Vec<State> = codes.into_iter().map(from_trade_code).collect();
                Class { rules, trade }
            })
            .collect();
        classes.sort_unstable_by(|a, b| a.rules.cmp(&b.rules).then(a.trade.cmp(&b.trade)));
        Ok(Reach { classes })
    }

    /// The set of `states`.
    pub fn from_states(states: &[State], budget: &Budget) -> Result<Reach, Interrupted> {
        Reach::from_products(states.iter().map(|s| (vec![*s], vec![*s])), budget)
    }

    /// The classes (the canonical form).
    #[cfg(test)]
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// The number of states.
    pub fn len(&self) -> u64 {
        self.classes
            .iter()
            .map(|c| c.rules.len() as u64 * c.trade.len() as u64)
            .sum()
    }

    /// Every state, class by class (not in order).
    pub fn iter(&self) -> impl Iterator<Item = State> + '_ {
        self.classes.iter().flat_map(|c| {
            c.rules
                .iter()
                .flat_map(move |r| c.trade.iter().map(move |t| join(r, t)))
        })
    }

    /// Whether some state satisfies `pred`.
    pub fn any(&self, mut pred: impl FnMut(&State) -> bool) -> bool {
        self.iter().any(|s| pred(&s))
    }

    /// Every state, sorted.
    pub fn sorted(&self) -> Vec<State> {
        let mut v: Vec<State> = self.iter().collect();
        v.sort_unstable();
        v
    }

    /// The `n` smallest states, sorted (every state if there are no more than `n`).
    /// States order by their rules first, then their trade rules: a class's rules parts
    /// and trade parts are sorted that way, so the scan of a class stops where it can no
    /// longer beat the `n`-th smallest state found so far.
    pub fn first(&self, n: usize) -> Vec<State> {
        if n == 0 {
            return Vec::new();
        }
        if self.len() <= n as u64 {
            return self.sorted();
        }
        let mut heap: BinaryHeap<State> = BinaryHeap::with_capacity(n + 1);
        for c in &self.classes {
            for r in &c.rules {
                if heap.len() == n && heap.peek().is_some_and(|top| r.rules > top.rules) {
                    break;
                }
                for t in &c.trade {
                    let s = join(r, t);
                    if heap.len() == n {
                        let top = heap.peek().expect("full");
                        if (s.rules, s.trade) > (top.rules, top.trade) {
                            break;
                        }
                        if s >= *top {
                            continue;
                        }
                        heap.pop();
                    }
                    heap.push(s);
                }
            }
        }
        heap.into_sorted_vec()
    }
}

impl serde::Serialize for Reach {
    /// The states, sorted.
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let states = self.sorted();
        let mut seq = ser.serialize_seq(Some(states.len()))?;
        for s in &states {
            seq.serialize_element(s)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ff8::model::RuleSet;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// A state from a few small numbers: rules of Balamb, the current region (rules
    /// part); Balamb's trade rule and the points (trade part).
    fn state(rules: u8, current: u8, trade: u8, points: u8) -> State {
        let mut s = State::default();
        s.rules[0] = RuleSet(rules);
        s.current = Region::from_id(usize::from(current));
        s.trade[0] = Trade::ALL[usize::from(trade)];
        s.points = points;
        s
    }

    fn small_state() -> impl Strategy<Value = State> {
        (0..3u8, 0..2u8, 0..3u8, 0..3u8).prop_map(|(a, b, c, d)| state(a, b, c, d))
    }

    fn products() -> impl Strategy<Value = Vec<(Vec<State>, Vec<State>)>> {
        prop::collection::vec(
            (
                prop::collection::vec(small_state(), 0..4),
                prop::collection::vec(small_state(), 0..4),
            ),
            0..6,
        )
    }

    /// The states of the products, listed one by one.
    fn flat(rects: &[(Vec<State>, Vec<State>)]) -> BTreeSet<State> {
        let mut out = BTreeSet::new();
        for (rs, ts) in rects {
            for r in rs {
                for t in ts {
                    out.insert(join(r, t));
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// The canonical form holds exactly the products' states, and two sets of
        /// products with the same states (here: the products, and the states one by one)
        /// give equal forms; different states give different forms.
        #[test]
        fn the_form_is_the_set(a in products(), b in products()) {
            let budget = Budget::new();
            let ra = Reach::from_products(a.clone(), &budget).unwrap();
            let want = flat(&a);
            prop_assert_eq!(ra.iter().collect::<BTreeSet<_>>(), want.clone());
            prop_assert_eq!(ra.len(), want.len() as u64);
            prop_assert_eq!(ra.sorted(), want.iter().copied().collect::<Vec<_>>());
            let states: Vec<State> = want.iter().copied().collect();
            prop_assert_eq!(&Reach::from_states(&states, &budget).unwrap(), &ra);
            let rb = Reach::from_products(b.clone(), &budget).unwrap();
            prop_assert_eq!(rb == ra, flat(&b) == want);
            for n in [0, 1, 2, 5, 100] {
                let first: Vec<State> = want.iter().copied().take(n).collect();
                prop_assert_eq!(ra.first(n), first);
            }
        }
    }

    #[test]
    fn overlapping_products_give_classes_by_their_rules_parts() {
        // {r1, r2} × {t1, t2} ∪ {r2} × {t2, t3}: t1 has {r1, r2}, t2 {r1, r2}, t3 {r2}.
        // (Parts are kept with the other part's fields at their defaults.)
        let (r1, r2) = (
            rules_part(&state(1, 0, 0, 0)),
            rules_part(&state(2, 0, 0, 0)),
        );
        let t = |trade, points| trade_part(&state(0, 0, trade, points));
        let (t1, t2, t3) = (t(1, 0), t(2, 0), t(0, 7));
        let reach = Reach::from_products(
            [(vec![r1, r2], vec![t1, t2]), (vec![r2], vec![t2, t3])],
            &Budget::new(),
        )
        .unwrap();
        let classes = reach.classes();
        assert_eq!(classes.len(), 2);
        assert_eq!(classes[0].rules, vec![r1, r2]);
        assert_eq!(classes[0].trade, vec![t1, t2]);
        assert_eq!(classes[1].rules, vec![r2]);
        assert_eq!(classes[1].trade, vec![t3]);
        assert_eq!(reach.len(), 5);
    }

    /// Trade codes are a bijection on trade parts.
    #[test]
    fn a_trade_code_gives_its_trade_part_back() {
        let knobs = super::super::gen::GenArgs {
            regions: 8,
            ..Default::default()
        };
        for seed in 0..200 {
            let t = trade_part(&super::super::gen::generate(&knobs, seed).state);
            assert_eq!(from_trade_code(trade_code(&t)), t);
        }
    }
}
