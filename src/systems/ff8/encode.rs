//! The SAT engine: the step function unrolled over k challenges as a circuit on varisat,
//! with every call site's byte and every choice as variables; projected enumeration of
//! the states reachable within k challenges; goal queries with a witness. The encoder
//! owns its decoding (models back to states, choices and bytes).
//!
//! Invariants: every `getRandom` call site of challenge j has its own 8-bit vector (a
//! path reads each site at most once, so free bytes at unread sites change nothing);
//! regions, trade rules and the amount of trading are one-hot, points binary; challenge
//! j+1 is active only if challenge j is ("within k" = the prefixes of length 0..=k).

#![allow(clippy::needless_range_loop)] // index loops over parallel one-hot arrays read best

use super::model::*;
use super::reach::{Product, Reach};
use super::simulate::Site;
use crate::sat::{
    enumerate_factored, EnumerationEnd, Factor, FactorProduct, Inputs, Lit, SatResult, Solver,
};
use crate::systems::spec::{Budget, Charged, Interrupted};
use std::ops::ControlFlow;

/// The circuit: `sat`'s constant-folding gates, with the word-level helpers built on them.
struct C<'a> {
    s: &'a mut Solver,
    t: Lit,
}

impl C<'_> {
    fn k(&self, b: bool) -> Lit {
        if b {
            self.t
        } else {
            !self.t
        }
    }
    fn is_k(&self, l: Lit) -> Option<bool> {
        if l == self.t {
            Some(true)
        } else if l == !self.t {
            Some(false)
        } else {
            None
        }
    }
    fn and(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_and(lits, Inputs::Given)
    }
    fn or(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_or(lits, Inputs::Given)
    }
    fn ite(&mut self, c: Lit, a: Lit, b: Lit) -> Lit {
        self.s.fold_ite(c, a, b)
    }
    fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        self.ite(a, !b, b)
    }
    fn ite_v<const N: usize>(&mut self, c: Lit, a: &[Lit; N], b: &[Lit; N]) -> [Lit; N] {
        std::array::from_fn(|i| self.ite(c, a[i], b[i]))
    }
    fn eq_v(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        let d: Vec<Lit> = a.iter().zip(b).map(|(&x, &y)| self.xor(x, y)).collect();
        !self.or(&d)
    }
    /// `bits` (LSB first) `< c`.
    fn lt_const(&mut self, bits: &[Lit], c: u32) -> Lit {
        if c >= 1 << bits.len() {
            return self.k(true);
        }
        let mut lt = self.k(false);
        for (i, &b) in bits.iter().enumerate() {
            // From LSB up: lt_i = "bits[..=i] < c[..=i]".
            lt = if c >> i & 1 == 1 {
                self.or(&[!b, lt])
            } else {
                self.and(&[!b, lt])
            };
        }
        lt
    }
    /// `a < b` (same width, LSB first).
    fn lt_var(&mut self, a: &[Lit], b: &[Lit]) -> Lit {
        let mut lt = self.k(false);
        for (&x, &y) in a.iter().zip(b) {
            let strict = self.and(&[!x, y]);
            let eq = !self.xor(x, y);
            let keep = self.and(&[eq, lt]);
            lt = self.or(&[strict, keep]);
        }
        lt
    }
    /// One-hot of the top three bits of a byte (`getRandom / 32`).
    fn div32(&mut self, byte: &[Lit; 8]) -> [Lit; 8] {
        std::array::from_fn(|v| {
            let lits: Vec<Lit> = (0..3)
                .map(|i| {
                    if v >> i & 1 == 1 {
                        byte[5 + i]
                    } else {
                        !byte[5 + i]
                    }
                })
                .collect();
            self.and(&lits)
        })
    }
    /// `OR_i (sel[i] AND val[i][j])` for each j: the value selected by a one-hot.
    fn pick<const N: usize>(&mut self, sel: &[Lit], val: &[[Lit; N]]) -> [Lit; N] {
        std::array::from_fn(|j| {
            let terms: Vec<Lit> = sel
                .iter()
                .zip(val)
                .map(|(&s, v)| (s, v[j]))
                .collect::<Vec<_>>()
                .into_iter()
                .map(|(s, x)| self.and(&[s, x]))
                .collect();
            self.or(&terms)
        })
    }
    /// Exactly one of `lits` if `active`, none otherwise.
    fn exactly_one_if(&mut self, active: Lit, lits: &[Lit]) {
        let mut alo = vec![!active];
        alo.extend_from_slice(lits);
        self.s.add_clause(&alo);
        for &l in lits {
            self.s.add_clause(&[active, !l]);
        }
        for i in 0..lits.len() {
            for j in i + 1..lits.len() {
                self.s.add_clause(&[!lits[i], !lits[j]]);
            }
        }
    }
}

/// A state as literals.
#[derive(Clone, Debug)]
pub struct SState {
    rules: [[Lit; 7]; 8],
    trade: [[Lit; 4]; 8],
    carried: [([Lit; 7], [Lit; 8]); 2],
    spread: [Lit; 8],
    amount: [Lit; 11],
    points: [Lit; 8],
    queen: [Lit; 8],
    qtrade: [Lit; 4],
    current: [Lit; 8],
}

fn onehot<const N: usize>(c: &C, i: usize) -> [Lit; N] {
    std::array::from_fn(|j| c.k(j == i))
}

impl SState {
    fn constant(c: &C, s: &State) -> SState {
        let set = |r: RuleSet| -> [Lit; 7] { std::array::from_fn(|i| c.k(r.0 >> i & 1 == 1)) };
        SState {
            rules: s.rules.map(set),
            trade: s.trade.map(|t| onehot(c, t.id())),
            carried: s.carried.map(|x| (set(x.rules), onehot(c, x.origin.id()))),
            spread: onehot(c, s.spread_from.id()),
            amount: onehot(c, usize::from(s.amount)),
            points: std::array::from_fn(|i| c.k(s.points >> i & 1 == 1)),
            queen: onehot(c, s.queen.id()),
            qtrade: onehot(c, s.queen_trade.id()),
            current: onehot(c, s.current.id()),
        }
    }
    /// For each position of [`SState::flat`], whether it belongs to the rules part (each
    /// region's rules, the carried rules, the current region; see `reach.rs`).
    fn rules_positions() -> Vec<bool> {
        let mut v = Vec::new();
        v.extend([true; 8 * 7]); // rules
        v.extend([false; 8 * 4]); // trade
        v.extend([true; 2 * (7 + 8)]); // carried
        v.extend([false; 8 + 11 + 8 + 8 + 4]); // spread, amount, points, queen, qtrade
        v.extend([true; 8]); // current
        v
    }
    /// Every literal, in a fixed order (the projection).
    fn flat(&self) -> Vec<Lit> {
        let mut v = Vec::new();
        self.rules.iter().for_each(|x| v.extend(x));
        self.trade.iter().for_each(|x| v.extend(x));
        for (r, o) in &self.carried {
            v.extend(r);
            v.extend(o);
        }
        v.extend(self.spread);
        v.extend(self.amount);
        v.extend(self.points);
        v.extend(self.queen);
        v.extend(self.qtrade);
        v.extend(self.current);
        v
    }
    fn ite(&self, c: &mut C, cond: Lit, other: &SState) -> SState {
        let a = self.flat();
        let b = other.flat();
        let m: Vec<Lit> = a.iter().zip(&b).map(|(&x, &y)| c.ite(cond, x, y)).collect();
        SState::unflat(&m)
    }
    fn unflat(v: &[Lit]) -> SState {
        let mut it = v.iter().copied();
        let mut take =
            |n: usize| -> Vec<Lit> { (0..n).map(|_| it.next().expect("layout")).collect() };
        fn arr<const N: usize>(x: Vec<Lit>) -> [Lit; N] {
            std::array::from_fn(|i| x[i])
        }
        let rules = std::array::from_fn(|_| arr::<7>(take(7)));
        let trade = std::array::from_fn(|_| arr::<4>(take(4)));
        let carried = std::array::from_fn(|_| (arr::<7>(take(7)), arr::<8>(take(8))));
        SState {
            rules,
            trade,
            carried,
            spread: arr(take(8)),
            amount: arr(take(11)),
            points: arr(take(8)),
            queen: arr(take(8)),
            qtrade: arr(take(4)),
            current: arr(take(8)),
        }
    }
    /// Decodes the flat values (same order as [`SState::flat`]).
    fn decode(vals: &[bool]) -> State {
        let mut i = 0;
        let mut next = |n: usize| -> &[bool] {
            let s = &vals[i..i + n];
            i += n;
            s
        };
        let set = |b: &[bool]| RuleSet(b.iter().enumerate().map(|(i, &x)| u8::from(x) << i).sum());
        let hot = |b: &[bool]| b.iter().position(|&x| x).unwrap_or(0);
        let rules: [RuleSet; 8] = std::array::from_fn(|_| set(next(7)));
        let trade: [Trade; 8] = std::array::from_fn(|_| Trade::ALL[hot(next(4))]);
        let carried: [Carried; 2] = std::array::from_fn(|_| {
            let r = set(next(7));
            Carried {
                rules: r,
                origin: Region::from_id(hot(next(8))),
            }
        });
        let spread_from = Region::from_id(hot(next(8)));
        let amount = hot(next(11)) as u8;
        let points = next(8)
            .iter()
            .enumerate()
            .map(|(i, &x)| u8::from(x) << i)
            .sum();
        let queen = Region::from_id(hot(next(8)));
        let queen_trade = Trade::ALL[hot(next(4))];
        let current = Region::from_id(hot(next(8)));
        State {
            rules,
            trade,
            carried,
            spread_from,
            amount,
            points,
            queen,
            queen_trade,
            current,
        }
    }
}

/// Blocking clauses a cube of [`enumerate_factored`]'s groups holds before it is split:
/// each group is solved on its own (a small solver), where 64 is the fastest of 2 to
/// 1,024 on generated scenarios.
const CHUNK: usize = 64;

/// Every combination of `factors`' rows written over `values`, decoded; each 4,096 states
/// are charged to `budget`.
fn expand(
    values: &[bool],
    factors: &[&Factor],
    budget: &Budget,
) -> Result<Vec<State>, Interrupted> {
    let mut out = Vec::new();
    let mut charged = Ok(());
    for_each_combination(values, factors, |v| {
        out.push(SState::decode(v));
        if out.len().is_multiple_of(4096) {
            charged = budget.charge(
                "reachable states",
                4096 * std::mem::size_of::<State>() as u64,
            );
        }
        charged.is_ok()
    });
    charged.map(|()| out)
}

/// One side (the rules part or the trade part) of an enumerated product, as what it is
/// made of: the fixed values at the side's positions (`None` elsewhere) and its factors,
/// a numbered one by its group, an unnumbered one by its positions and rows. Equal keys
/// give equal parts.
#[derive(Clone, PartialEq, Eq, Hash)]
struct SideKey {
    fixed: Vec<Option<bool>>,
    factors: Vec<FactorKey>,
}

/// A factor of a [`SideKey`]: a numbered group's by its positions and number, an
/// unnumbered one by its positions and rows.
#[derive(Clone, PartialEq, Eq, Hash)]
enum FactorKey {
    Group(Vec<usize>, usize),
    Rows(Vec<usize>, Vec<Vec<bool>>),
}

impl SideKey {
    fn of(p: &FactorProduct, factors: &[&Factor], side: impl Fn(usize) -> bool) -> SideKey {
        SideKey {
            fixed: p
                .fixed
                .iter()
                .enumerate()
                .map(|(q, &v)| v.filter(|_| side(q)))
                .collect(),
            factors: factors
                .iter()
                .map(|f| match f.group {
                    Some(g) => FactorKey::Group(f.positions.clone(), g),
                    None => FactorKey::Rows(f.positions.clone(), f.rows.to_vec()),
                })
                .collect(),
        }
    }
}

/// The products of [`enumerate_factored`] gathered side by side before they are
/// expanded: each distinct rules side and trade side is expanded once, and the rules
/// sides of every product with the same trade side are joined into one product. The
/// enumeration meets one trade group under many cubes (different choices that leave the
/// trade part the same); expanded product by product, its trade parts were listed once
/// per cube.
#[derive(Default)]
struct Gather {
    /// Each side's number, by its key.
    index: rustc_hash::FxHashMap<SideKey, usize>,
    /// Each side: the values to write its factors over (its fixed values in place) and
    /// its factors.
    sides: Vec<(Vec<bool>, Vec<Factor>)>,
    /// Each trade side met, with the rules sides it was met with.
    with: Vec<(usize, Vec<usize>)>,
    /// The position in `with` of each trade side's entry.
    at: rustc_hash::FxHashMap<usize, usize>,
    /// Products with a factor over both kinds of position (none has been seen), split
    /// row by row.
    mixed: Vec<Product>,
}

impl Gather {
    fn side(&mut self, key: SideKey, base: &[bool], factors: &[&Factor]) -> usize {
        let next = self.sides.len();
        let id = *self.index.entry(key).or_insert(next);
        if id == next {
            self.sides
                .push((base.to_vec(), factors.iter().map(|&f| f.clone()).collect()));
        }
        id
    }

    /// Adds one product of the projected models.
    fn add(
        &mut self,
        p: &FactorProduct,
        rules_at: &[bool],
        budget: &Budget,
    ) -> Result<(), Interrupted> {
        let only = |f: &Factor, rules: bool| f.positions.iter().all(|&q| rules_at[q] == rules);
        let (mut rules_f, mut trade_f, mut mixed) = (Vec::new(), Vec::new(), Vec::new());
        for f in &p.factors {
            if only(f, true) {
                rules_f.push(f);
            } else if only(f, false) {
                trade_f.push(f);
            } else {
                mixed.push(f);
            }
        }
        let base: Vec<bool> = p.fixed.iter().map(|v| v.unwrap_or(false)).collect();
        if !mixed.is_empty() {
            // Row by row: each combination of the mixed factors' rows is one product.
            let mut failed = Ok(());
            for_each_combination(&base, &mixed, |values| {
                match (
                    expand(values, &rules_f, budget),
                    expand(values, &trade_f, budget),
                ) {
                    (Ok(rules), Ok(trade)) => self.mixed.push((rules, trade)),
                    (Err(e), _) | (_, Err(e)) => failed = Err(e),
                }
                failed.is_ok()
            });
            return failed;
        }
        let rules = SideKey::of(p, &rules_f, |q| rules_at[q]);
        let rules = self.side(rules, &base, &rules_f);
        let trade = SideKey::of(p, &trade_f, |q| !rules_at[q]);
        let trade = self.side(trade, &base, &trade_f);
        let n = self.with.len();
        let at = *self.at.entry(trade).or_insert(n);
        if at == n {
            self.with.push((trade, Vec::new()));
        }
        self.with[at].1.push(rules);
        Ok(())
    }

    /// The products of rules parts and trade parts: one per trade side, with the rules
    /// parts of every rules side it was met with. Each side's parts are charged to
    /// `budget` as they are expanded.
    fn products(self, budget: &Budget) -> Result<Vec<Product>, Interrupted> {
        let Gather {
            sides, with, mixed, ..
        } = self;
        let expand_side = |id: usize| {
            let (base, factors) = &sides[id];
            let factors: Vec<&Factor> = factors.iter().collect();
            expand(base, &factors, budget)
        };
        // A rules side may go with several trade sides: expanded once, kept. A trade side
        // has one entry: expanded when it is reached, handed over.
        let mut rules_parts: Vec<Option<Vec<State>>> = vec![None; sides.len()];
        let mut out = mixed;
        for (trade, mut rules) in with {
            rules.sort_unstable();
            rules.dedup();
            let mut rs = Vec::new();
            for r in rules {
                if rules_parts[r].is_none() {
                    rules_parts[r] = Some(expand_side(r)?);
                }
                rs.extend_from_slice(rules_parts[r].as_deref().unwrap_or_default());
            }
            out.push((rs, expand_side(trade)?));
        }
        Ok(out)
    }
}

/// Calls `each` with `base` with every combination of `factors`' rows written in (in the
/// odometer's order), in one buffer: a step writes only the factors whose row changed.
/// Stops when `each` returns `false`.
fn for_each_combination(base: &[bool], factors: &[&Factor], mut each: impl FnMut(&[bool]) -> bool) {
    let mut values = base.to_vec();
    let mut last: Option<Vec<usize>> = None;
    let sizes = factors.iter().map(|f| f.rows.len()).collect();
    for pick in crate::odometer::Product::new(sizes) {
        for (k, (f, &i)) in factors.iter().zip(&pick).enumerate() {
            if last.as_ref().is_some_and(|l| l[k] == i) {
                continue;
            }
            for (&q, &v) in f.positions.iter().zip(&f.rows[i]) {
                values[q] = v;
            }
        }
        if !each(&values) {
            return;
        }
        last = Some(pick);
    }
}

/// The variables of one challenge.
#[derive(Clone, Debug)]
struct StepVars {
    active: Lit,
    region: [Lit; 8],
    queen: Lit,
    refuse: Lit,
    moved: Lit,
    bytes: [[Lit; 8]; 16],
    /// Outcomes inside the challenge that the enumeration splits on as well (see
    /// `reachable`): filled in by `step`.
    events: Vec<Lit>,
}

/// The unrolled encoding of a scenario.
pub struct Encoding {
    /// The solver holding the circuit.
    pub solver: Solver,
    states: Vec<SState>,
    steps: Vec<StepVars>,
    /// The scenario's goal, and its literal once [`Encoding::goal`] has built it.
    goal: Option<(Goal, Option<Lit>)>,
}

/// A witness run: the challenges and, for each, the bytes read in order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Witness {
    /// The challenges taken (fewer than k if the goal holds earlier).
    pub challenges: Vec<Choice>,
    /// One byte per call site per challenge, as the SAT model chose them.
    pub site_bytes: Vec<[u8; 16]>,
}

fn push(
    c: &mut C,
    car: &[([Lit; 7], [Lit; 8]); 2],
    here: &[Lit; 7],
    reg: &[Lit; 8],
) -> [([Lit; 7], [Lit; 8]); 2] {
    let _ = c;
    [(*here, *reg), car[0]]
}

fn ite_car(
    c: &mut C,
    cond: Lit,
    a: &[([Lit; 7], [Lit; 8]); 2],
    b: &[([Lit; 7], [Lit; 8]); 2],
) -> [([Lit; 7], [Lit; 8]); 2] {
    std::array::from_fn(|i| {
        (
            c.ite_v(cond, &a[i].0, &b[i].0),
            c.ite_v(cond, &a[i].1, &b[i].1),
        )
    })
}

/// `rule_is[i]`: the byte's `getRandomRule` is rule `i`.
fn rule_of(c: &mut C, byte: &[Lit; 8]) -> [Lit; 7] {
    let id = c.div32(byte);
    std::array::from_fn(|i| {
        let ids: Vec<Lit> = (0..8)
            .filter(|&v| Rule::BY_RULE_ID[v].bit() == i)
            .map(|v| id[v])
            .collect();
        c.or(&ids)
    })
}

/// One challenge as a circuit: the next state from `s` and the step's variables.
fn step(c: &mut C, s: &SState, v: &mut StepVars) -> SState {
    let reg = v.region;
    let b = &v.bytes;
    let site = |x: Site| x.id();
    let mut n = s.clone();
    n.current = reg;
    let mut cur: [Lit; 7] = c.pick(&reg, &s.rules);
    // Step 1.
    let p1 = c.lt_const(&b[site(Site::Push)], 64);
    let pushed = push(c, &n.carried, &cur, &reg);
    n.carried = ite_car(c, p1, &pushed, &n.carried);
    // Step 2.
    let eq1 = c.eq_v(&n.carried[0].0, &cur);
    let sel = c.ite_v(eq1, &n.carried[1].0, &n.carried[0].0);
    let lacks: Vec<Lit> = (0..7).map(|i| c.and(&[sel[i], !cur[i]])).collect();
    let canmix = c.or(&lacks);
    let lt255 = c.lt_const(&b[site(Site::Mix)], 255);
    let mix = c.and(&[canmix, lt255]);
    // Step 3.
    let qhere_terms: Vec<Lit> = (0..8).map(|r| c.and(&[reg[r], s.queen[r]])).collect();
    let qhere = c.or(&qhere_terms);
    let a90 = c.lt_const(&b[site(Site::Adopt)], 90);
    let adopt = c.and(&[qhere, a90]);
    for r in 0..8 {
        let here = c.and(&[adopt, reg[r]]);
        n.trade[r] = c.ite_v(here, &s.qtrade, &n.trade[r]);
    }
    // Step 4.
    let sfh_terms: Vec<Lit> = (0..8).map(|r| c.and(&[reg[r], s.spread[r]])).collect();
    let sf_here = c.or(&sfh_terms);
    let a = s.amount;
    let f = c.k(false);
    let inc: [Lit; 11] = std::array::from_fn(|j| match j {
        0 => f,
        10 => c.or(&[a[9], a[10]]),
        _ => a[j - 1],
    });
    let dec: [Lit; 11] = std::array::from_fn(|j| match j {
        0 => c.or(&[a[0], a[1]]),
        10 => f,
        _ => a[j + 1],
    });
    n.amount = c.ite_v(sf_here, &inc, &dec);
    let take = c.and(&[!sf_here, a[0]]);
    n.spread = c.ite_v(take, &reg, &s.spread);
    // Step 5.
    let up = c.lt_const(&b[site(Site::QueenRule)], 110);
    let lt220 = c.lt_const(&b[site(Site::QueenRule)], 220);
    let mid = c.and(&[!up, lt220]);
    let class = [up, mid, !lt220];
    let newq: [Lit; 4] = std::array::from_fn(|t| {
        let mut terms = Vec::new();
        for o in Trade::ALL {
            for (k, &cl) in class.iter().enumerate() {
                if o.queen_chart(k).id() == t {
                    terms.push(c.and(&[s.qtrade[o.id()], cl]));
                }
            }
        }
        c.or(&terms)
    });
    n.qtrade = c.ite_v(v.queen, &newq, &s.qtrade);
    // Step 6.
    let game = !v.refuse;
    // Step 7.
    let eq7 = c.eq_v(&n.carried[0].0, &cur);
    let p7 = c.and(&[game, !eq7]);
    let pushed = push(c, &n.carried, &cur, &reg);
    n.carried = ite_car(c, p7, &pushed, &n.carried);
    // Step 8.
    let all = c.and(&cur);
    let a64 = c.lt_const(&b[site(Site::AbolishCheck)], 64);
    let ab = c.and(&[game, all, a64]);
    let r8 = rule_of(c, &b[site(Site::AbolishRule)]);
    cur = std::array::from_fn(|i| {
        let gone = c.and(&[ab, r8[i]]);
        c.and(&[cur[i], !gone])
    });
    let pushed2 = [(cur, reg), (cur, reg)];
    n.carried = ite_car(c, ab, &pushed2, &n.carried);
    // Step 9.
    let m = c.and(&[game, mix]);
    let second = n.carried[1].0;
    let rs: Vec<[Lit; 7]> = [Site::Rule1, Site::Rule2, Site::Rule3]
        .iter()
        .map(|&x| rule_of(c, &b[site(x)]))
        .collect();
    let spreadable: Vec<Lit> = rs
        .iter()
        .map(|r| {
            let t: Vec<Lit> = (0..7).map(|i| c.and(&[r[i], second[i], !cur[i]])).collect();
            c.or(&t)
        })
        .collect();
    let s1 = c.and(&[m, spreadable[0]]);
    let s2 = c.and(&[m, !spreadable[0], spreadable[1]]);
    let s3 = c.and(&[m, !spreadable[0], !spreadable[1], spreadable[2]]);
    let in3_t: Vec<Lit> = (0..7).map(|i| c.and(&[rs[2][i], cur[i]])).collect();
    let in3 = c.or(&in3_t);
    let a128 = c.lt_const(&b[site(Site::Abolish3)], 128);
    let abol = c.and(&[m, !spreadable[0], !spreadable[1], !spreadable[2], in3, a128]);
    cur = std::array::from_fn(|i| {
        let add1 = c.and(&[s1, rs[0][i]]);
        let add2 = c.and(&[s2, rs[1][i]]);
        let add3 = c.and(&[s3, rs[2][i]]);
        let kept = c.or(&[cur[i], add1, add2, add3]);
        let gone = c.and(&[abol, rs[2][i]]);
        c.and(&[kept, !gone])
    });
    let changed9 = c.or(&[s1, s2, s3, abol]);
    let pushed3 = [(cur, reg), (cur, reg)];
    n.carried = ite_car(c, changed9, &pushed3, &n.carried);
    for r in 0..8 {
        n.rules[r] = c.ite_v(reg[r], &cur, &s.rules[r]);
    }
    // Step 10.
    let tb = b[site(Site::Trading)];
    let fire_t: Vec<Lit> = (1..=10u32)
        .map(|k| {
            let lt = c.lt_const(&tb, 25 * k);
            c.and(&[n.amount[k as usize], lt])
        })
        .collect();
    let fire0 = c.or(&fire_t);
    let fire = c.and(&[game, fire0]);
    let reg1 = c.div32(&b[site(Site::TradeRegion)]);
    let src: [Lit; 4] = c.pick(&n.spread, &n.trade);
    for r in 0..8 {
        let here = c.and(&[fire, reg1[r]]);
        n.trade[r] = c.ite_v(here, &src, &n.trade[r]);
    }
    // points + top three bits of the Points byte, 9 bits.
    let pb = b[site(Site::Points)];
    let add: [Lit; 8] = std::array::from_fn(|i| if i < 3 { pb[5 + i] } else { f });
    let mut sum = Vec::with_capacity(9);
    let mut carry = f;
    for i in 0..8 {
        let x = s.points[i];
        let y = add[i];
        let xy = c.xor(x, y);
        sum.push(c.xor(xy, carry));
        let c1 = c.and(&[x, y]);
        let c2 = c.and(&[xy, carry]);
        carry = c.or(&[c1, c2]);
    }
    sum.push(carry);
    let le250 = c.lt_const(&sum, 251);
    let newp: [Lit; 8] = std::array::from_fn(|i| c.and(&[sum[i], le250]));
    n.points = c.ite_v(fire, &newp, &s.points);
    let one_lt = c.lt_var(&b[site(Site::OneCheck)], &n.points);
    let one = c.and(&[fire, one_lt]);
    v.events.extend([fire, one]);
    let reg2 = c.div32(&b[site(Site::OneRegion)]);
    let one_hot: [Lit; 4] = onehot(c, Trade::One.id());
    for r in 0..8 {
        let here = c.and(&[one, reg2[r]]);
        n.trade[r] = c.ite_v(here, &one_hot, &n.trade[r]);
    }
    // Step 11.
    let mv = c.and(&[game, v.moved]);
    let col = c.div32(&b[site(Site::QueenMove)]);
    let dest: [Lit; 8] = std::array::from_fn(|d| {
        let mut terms = Vec::new();
        for q in Region::ALL {
            for (k, &cl) in col.iter().enumerate() {
                if queen_destination(q, k).id() == d {
                    terms.push(c.and(&[s.queen[q.id()], cl]));
                }
            }
        }
        c.or(&terms)
    });
    n.queen = c.ite_v(mv, &dest, &s.queen);
    n
}

/// Literal: the goal holds in `s`.
fn goal_lit(c: &mut C, s: &SState, g: &Goal) -> Lit {
    let atoms: Vec<Lit> =
        g.0.iter()
            .map(|a| match *a {
                Atom::Has(r, x) => s.rules[r.id()][x.bit()],
                Atom::Lacks(r, x) => !s.rules[r.id()][x.bit()],
                Atom::TradeIs(r, t) => s.trade[r.id()][t.id()],
                Atom::QueenIn(r) => s.queen[r.id()],
            })
            .collect();
    c.and(&atoms)
}

impl Encoding {
    /// [`Encoding::new`], charging the clauses to `clauses` after each challenge (past the
    /// memory bound: `Interrupted`).
    pub fn within(sc: &Scenario, clauses: &mut Charged) -> Result<Encoding, Interrupted> {
        let mut solver = Solver::new();
        let t = solver.true_lit();
        let mut c = C { s: &mut solver, t };
        let mut states = vec![SState::constant(&c, &sc.state)];
        let mut steps: Vec<StepVars> = Vec::new();
        for j in 0..sc.horizon() {
            let active = c.s.new_lit();
            if let Some(prev) = steps.last() {
                c.s.add_clause(&[!active, prev.active]);
            }
            let (region, queen, refuse, moved) = match sc.challenges.get(j) {
                Some(ch) => (
                    onehot::<8>(&c, ch.region.id()),
                    c.k(ch.opponent == Opponent::Queen),
                    c.k(ch.action == Action::Refuse),
                    c.k(ch.action == Action::PlayMoved),
                ),
                None => {
                    let region: [Lit; 8] = std::array::from_fn(|r| {
                        if sc.allowed.contains(&Region::from_id(r)) {
                            c.s.new_lit()
                        } else {
                            c.k(false)
                        }
                    });
                    let free: Vec<Lit> = region
                        .iter()
                        .copied()
                        .filter(|&l| c.is_k(l).is_none())
                        .collect();
                    c.exactly_one_if(active, &free);
                    // An inactive challenge has every choice false, so that it is one cube
                    // of the split in `reachable`, not one per choice.
                    let (queen, refuse, moved) = (c.s.new_lit(), c.s.new_lit(), c.s.new_lit());
                    for l in [queen, refuse, moved] {
                        c.s.add_clause(&[active, !l]);
                    }
                    (region, queen, refuse, moved)
                }
            };
            let bytes: [[Lit; 8]; 16] =
                std::array::from_fn(|_| std::array::from_fn(|_| c.s.new_lit()));
            let mut v = StepVars {
                active,
                region,
                queen,
                refuse,
                moved,
                bytes,
                events: Vec::new(),
            };
            let s = states.last().expect("start").clone();
            // Validity (only when active): the Queen must be here; play-lv8 only against
            // her, and only if the game starts.
            for r in 0..8 {
                c.s.add_clause(&[!active, !queen, !region[r], s.queen[r]]);
            }
            c.s.add_clause(&[!active, !moved, queen]);
            c.s.add_clause(&[!active, !moved, !refuse]);
            let next = step(&mut c, &s, &mut v);
            let merged = next.ite(&mut c, active, &s);
            states.push(merged);
            steps.push(v);
            clauses.grow_to(c.s.approx_bytes())?;
        }
        Ok(Encoding {
            solver,
            states,
            steps,
            goal: sc.goal.clone().map(|g| (g, None)),
        })
    }

    /// The literal "the goal holds in the last state" (None without a goal), built on
    /// first use. Not before: its gate joins the bits of both parts of the state that the
    /// goal names, and [`Encoding::reachable`] enumerates the parts apart.
    pub fn goal(&mut self) -> Option<Lit> {
        let (g, lit) = self.goal.as_mut()?;
        if lit.is_none() {
            let t = self.solver.true_lit();
            let mut c = C {
                s: &mut self.solver,
                t,
            };
            let last = self.states.last().expect("start").clone();
            *lit = Some(goal_lit(&mut c, &last, g));
        }
        *lit
    }

    /// Every state reachable within the horizon (projected enumeration), as a union of
    /// products ([`Reach`]).
    pub fn reachable(&mut self, budget: &Budget) -> Result<Reach, Interrupted> {
        self.solver.set_interrupt(budget.flag());
        let proj = self.states.last().expect("start").flat();
        // Every choice and activity literal, and whether step 10 fires and sets One: under
        // each of their models, the state's parts that no longer share a variable (the
        // rules and the trade part, say; step 10's trade rules and points once it is known
        // whether One is set) are enumerated apart and combined (see
        // `enumerate_factored`).
        let mut split: Vec<Lit> = Vec::new();
        for v in &self.steps {
            let choice = v
                .region
                .iter()
                .chain([&v.active, &v.queen, &v.refuse, &v.moved])
                .chain(&v.events);
            split.extend(choice.filter(|&&l| l.var() != self.solver.true_lit().var()));
        }
        let rules_at = SState::rules_positions();
        let mut gather = Gather::default();
        let mut over = false;
        let e = enumerate_factored(&mut self.solver, &split, &proj, CHUNK, |p| {
            match gather.add(&p, &rules_at, budget) {
                Ok(()) => ControlFlow::Continue(()),
                Err(Interrupted) => {
                    over = true;
                    ControlFlow::Break(())
                }
            }
        });
        if over || e != EnumerationEnd::Complete {
            return Err(Interrupted);
        }
        Reach::from_products(gather.products(budget)?, budget)
    }

    /// Whether the goal can hold within the horizon, with a witness (None: it cannot).
    /// `Ok(None)` without a goal.
    pub fn query(&mut self, budget: &Budget) -> Result<Option<Witness>, Interrupted> {
        self.solver.set_interrupt(budget.flag());
        let Some(g) = self.goal() else {
            return Ok(None);
        };
        match self.solver.solve(&[g]) {
            SatResult::Unsat => Ok(None),
            SatResult::Unknown => Err(Interrupted),
            SatResult::Sat => {
                let mut w = Witness {
                    challenges: Vec::new(),
                    site_bytes: Vec::new(),
                };
                for v in &self.steps {
                    if !self.solver.value(v.active) {
                        break;
                    }
                    let region = Region::from_id(
                        v.region
                            .iter()
                            .position(|&l| self.solver.value(l))
                            .unwrap_or(0),
                    );
                    let queen = self.solver.value(v.queen);
                    let action = if self.solver.value(v.refuse) {
                        Action::Refuse
                    } else if self.solver.value(v.moved) {
                        Action::PlayMoved
                    } else {
                        Action::Play
                    };
                    w.challenges.push(Choice {
                        region,
                        opponent: if queen {
                            Opponent::Queen
                        } else {
                            Opponent::Player
                        },
                        action,
                    });
                    w.site_bytes.push(std::array::from_fn(|k| {
                        v.bytes[k]
                            .iter()
                            .enumerate()
                            .map(|(i, &l)| u8::from(self.solver.value(l)) << i)
                            .sum()
                    }));
                }
                Ok(Some(w))
            }
        }
    }
}
