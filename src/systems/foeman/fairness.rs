//! The fairness check of the tie-break procedure: for a list of values scanned in order,
//! the exact probability that each position is selected, the expected number of displayed
//! tie-break dice and of inconsequential ones (rolled, then made moot by a higher value),
//! under the seed's procedure and two naive variants a programmer might write; and an
//! exhaustive proof over every list up to a length.
//!
//! How it is computed: the scan compares each value with the highest so far, so which
//! dice are rolled, and when a later higher value makes them moot, depend on the values
//! alone; only which tied position is noted is random. A position of the final tie group
//! (the positions holding the highest value, in scan order) is selected iff its own die
//! shows 1 (the first member has no die) and no later member's does, so member `j` is
//! selected with probability `1/k_j * (1 - 1/k_{j+1}) * ... * (1 - 1/k_K)`, `k` the sides
//! of each member's die (`j` for the seed's sequential dice, 2 for pairwise ones);
//! positions outside the group are never selected. The reroll exploit repeats the whole
//! scan, with fresh dice, whenever the first member lost. Every quantity is an exact
//! [`BigRational`], so no list can overflow; the work is linear in the list, and the
//! answer's size grows with the square of the tie group (pairwise probabilities are
//! powers of 1/2 with as many digits as there are ties), so the command line caps a
//! list at [`MAX_VALUES`] values. The enumeration of every die outcome the procedure
//! reads (a die of `k` sides as "1" with weight 1/k or "not 1" with weight (k-1)/k),
//! exponential in the ties, is kept in the tests as the reference this is checked against.
//!
//! Invariants: probabilities are exact rationals summing to 1; `analyse` never overflows
//! or panics, for any list.

use crate::odometer::Product;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use serde::Serialize;

/// Most values `gordian foeman fairness --values` analyses in one list. The computation is
/// exact and linear in the list, but what it answers grows with the square of the number
/// of tied values (pairwise dice: each probability a power of 1/2 with a digit for about
/// every three ties, one per tied position): 1,000 equal values answer all three variants
/// in 0.09 s with a 315 KB JSON answer; ten times as many would answer about a hundred
/// times as much (the pairwise probabilities alone: 15 MB of digits).
pub const MAX_VALUES: usize = 1000;

/// A tie-break procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The seed's `sidMov()`: on the j-th tied contender so far roll a dj, replace on 1.
    Sequential,
    /// Naive: one d2 between the noted side and each newly tied one, replace on 1.
    Pairwise,
    /// Naive: ties re-rolled on every option change. Modelled as the exploit it allows:
    /// the first-listed tied contender, having lost the roll, changes its option once and
    /// so forces a fresh roll of the whole tie (FigSeq memory exists to prevent this).
    Reroll,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Sequential, Variant::Pairwise, Variant::Reroll];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Sequential => "sequential",
            Variant::Pairwise => "pairwise",
            Variant::Reroll => "reroll",
        }
    }
}

/// The exact analysis of one list under one variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The values, in scan order.
    pub values: Vec<i32>,
    /// The procedure.
    pub variant: Variant,
    /// Positions holding the highest value.
    pub tied: Vec<usize>,
    /// Probability that each position is selected (`"p/q"`).
    #[serde(serialize_with = "ser_vec")]
    pub probabilities: Vec<BigRational>,
    /// Every tied position has probability exactly 1/k (and the others 0).
    pub fair: bool,
    /// Expected number of tie-break dice displayed.
    #[serde(serialize_with = "ser_one")]
    pub expected_rolls: BigRational,
    /// Expected number of displayed dice made moot by a later higher value.
    #[serde(serialize_with = "ser_one")]
    pub expected_inconsequential: BigRational,
}

fn ser_one<S: serde::Serializer>(r: &BigRational, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&r.to_string())
}

fn ser_vec<S: serde::Serializer>(r: &[BigRational], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut q = s.serialize_seq(Some(r.len()))?;
    for x in r {
        q.serialize_element(&x.to_string())?;
    }
    q.end()
}

/// The exact rational `n / d`.
fn ratio(n: usize, d: usize) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// One scan's deterministic part: the dice shown and the moot ones (both fixed by the
/// values), and the final tie group with each member's probability of being noted at the
/// end (`pairwise`: every die has 2 sides, else the j-th tied so far rolls a dj).
fn scan(values: &[i32], pairwise: bool) -> (u64, u64, Vec<usize>, Vec<BigRational>) {
    let (mut rolls, mut moot, mut pending) = (0u64, 0u64, 0u64);
    let mut top = values[0];
    let mut group = vec![0];
    for (i, &v) in values.iter().enumerate().skip(1) {
        if v > top {
            top = v;
            group = vec![i];
            moot += pending;
            pending = 0;
        } else if v == top {
            group.push(i);
            rolls += 1;
            pending += 1;
        }
    }
    // Member j (1-based) is noted at the end iff its die shows 1 (the first has none)
    // and no later member's does: from the last member back, `later` is the probability
    // that no later die shows 1.
    let sides = |j: usize| if pairwise { 2 } else { j };
    let mut probs = vec![BigRational::zero(); group.len()];
    let mut later = BigRational::one();
    for j in (1..=group.len()).rev() {
        let k = sides(j);
        if j == 1 {
            probs[0] = later.clone();
        } else {
            probs[j - 1] = &later * ratio(1, k);
            later *= ratio(k - 1, k);
        }
    }
    (rolls, moot, group, probs)
}

/// The exact analysis of `values` under `variant` (an empty list: nothing tied, nothing
/// rolled).
pub fn analyse(values: &[i32], variant: Variant) -> Analysis {
    let mut probabilities = vec![BigRational::zero(); values.len()];
    let mut expected_rolls = BigRational::zero();
    let mut expected_inconsequential = BigRational::zero();
    let mut tied = Vec::new();
    if !values.is_empty() {
        let (rolls, moot, group, probs) = scan(values, variant == Variant::Pairwise);
        let (rolls, moot) = (
            BigRational::from(BigInt::from(rolls)),
            BigRational::from(BigInt::from(moot)),
        );
        match variant {
            Variant::Sequential | Variant::Pairwise => {
                for (&i, p) in group.iter().zip(probs) {
                    probabilities[i] = p;
                }
                expected_rolls = rolls;
                expected_inconsequential = moot;
            }
            Variant::Reroll => {
                // The first member keeps what it won; when it lost (probability `again`)
                // the whole scan is run once more, with fresh dice.
                let again = BigRational::one() - &probs[0];
                for (&i, p) in group.iter().zip(&probs) {
                    probabilities[i] = &again * p;
                }
                probabilities[group[0]] += &probs[0];
                expected_rolls = &rolls + &again * &rolls;
                expected_inconsequential = &moot + &again * &moot;
            }
        }
        tied = group;
    }
    let k = tied.len().max(1);
    let mut fair = true;
    let mut t = tied.iter().peekable();
    for (i, p) in probabilities.iter().enumerate() {
        let want = if t.next_if(|&&j| j == i).is_some() {
            ratio(1, k)
        } else {
            BigRational::zero()
        };
        fair &= *p == want;
    }
    Analysis {
        values: values.to_vec(),
        variant,
        tied,
        probabilities,
        fair,
        expected_rolls,
        expected_inconsequential,
    }
}

/// The exhaustive proof for one variant: every list of length 1..=`max_len` over values
/// 1..=`max_len` (every pattern of ties and interleaved higher values).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// The procedure.
    pub variant: Variant,
    /// Longest list checked.
    pub max_len: usize,
    /// Lists checked.
    pub lists: usize,
    /// Lists where some tied position is not selected with probability exactly 1/k.
    pub biased: usize,
    /// The first biased list found (shortest first), if any.
    pub example: Option<Analysis>,
    /// The largest expected number of inconsequential dice over the lists.
    #[serde(serialize_with = "ser_one")]
    pub max_expected_inconsequential: BigRational,
}

/// Checks every list up to `max_len` (at most 7) under `variant`.
pub fn prove(variant: Variant, max_len: usize) -> Proof {
    let max_len = max_len.clamp(1, 7);
    let mut lists = 0;
    let mut biased = 0;
    let mut example = None;
    let mut max_inc = BigRational::zero();
    for len in 1..=max_len {
        // Every list of `len` values in 1..=max_len, the last fastest.
        for pick in Product::new(vec![max_len; len]) {
            let v: Vec<i32> = pick.iter().map(|&i| i as i32 + 1).collect();
            lists += 1;
            let a = analyse(&v, variant);
            if a.expected_inconsequential > max_inc {
                max_inc = a.expected_inconsequential.clone();
            }
            if !a.fair {
                biased += 1;
                if example.is_none() {
                    example = Some(a);
                }
            }
        }
    }
    Proof {
        variant,
        max_len,
        lists,
        biased,
        example,
        max_expected_inconsequential: max_inc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::odometer::Odometer;
    use rand::{Rng, SeedableRng};

    /// The reference: every outcome of every die the procedure reads, enumerated (a die
    /// of `k` sides as "1", weight 1/k, or "not 1", weight (k-1)/k), each scan run as
    /// the seed's `sidMov()` reads it; the selected position's probability and the dice
    /// shown and made moot, weighted. Exponential in the ties.
    fn enumerated(
        values: &[i32],
        variant: Variant,
    ) -> (Vec<BigRational>, BigRational, BigRational) {
        // The odometer's choice points: the dice rolled so far, each with its sides;
        // option 0 is "a 1", option 1 "not a 1".
        struct Dice(Odometer<usize>);
        impl Dice {
            fn roll(&mut self, k: usize) -> bool {
                self.0.pick_with(2, k) == 0
            }
            fn weight(&self) -> BigRational {
                self.0
                    .run()
                    .map(|(i, _, &k)| if i == 0 { ratio(1, k) } else { ratio(k - 1, k) })
                    .product()
            }
        }
        let seq = |dice: &mut Dice, pairwise: bool| {
            let (mut best, mut tied, mut rolls, mut moot, mut pending) = (0, 1, 0, 0, 0);
            for (i, &v) in values.iter().enumerate().skip(1) {
                if v > values[best] {
                    best = i;
                    tied = 1;
                    moot += pending;
                    pending = 0;
                } else if v == values[best] {
                    tied += 1;
                    rolls += 1;
                    pending += 1;
                    if dice.roll(if pairwise { 2 } else { tied }) {
                        best = i;
                    }
                }
            }
            (best, rolls, moot)
        };
        let mut probs = vec![BigRational::zero(); values.len()];
        let (mut er, mut em) = (BigRational::zero(), BigRational::zero());
        let mut dice = Dice(Odometer::new());
        loop {
            dice.0.rewind();
            let (b, r, m) = match variant {
                Variant::Sequential => seq(&mut dice, false),
                Variant::Pairwise => seq(&mut dice, true),
                Variant::Reroll => {
                    let (b, r, m) = seq(&mut dice, false);
                    let top = values.iter().copied().max().unwrap();
                    let first = values.iter().position(|&v| v == top).unwrap();
                    if b != first {
                        let (b2, r2, m2) = seq(&mut dice, false);
                        (b2, r + r2, m + m2)
                    } else {
                        (b, r, m)
                    }
                }
            };
            let w = dice.weight();
            probs[b] += &w;
            er += &w * ratio(r, 1);
            em += &w * ratio(m, 1);
            if !dice.0.advance() {
                break;
            }
        }
        (probs, er, em)
    }

    fn check(values: &[i32]) {
        for v in Variant::ALL {
            let a = analyse(values, v);
            let (p, r, m) = enumerated(values, v);
            assert_eq!(a.probabilities, p, "{values:?} {v:?}");
            assert_eq!(a.expected_rolls, r, "{values:?} {v:?}");
            assert_eq!(a.expected_inconsequential, m, "{values:?} {v:?}");
            let sum: BigRational = a.probabilities.iter().sum();
            assert_eq!(sum, BigRational::one(), "{values:?} {v:?}");
        }
    }

    /// Every list of length 1 to 5 over the values 1 to 5 (every pattern of ties and
    /// interleaved higher values), and random lists of up to 10 values with many ties.
    #[test]
    fn the_computation_is_the_enumeration_of_every_die() {
        for len in 1..=5u32 {
            for code in 0..5usize.pow(len) {
                let values: Vec<i32> = (0..len)
                    .map(|i| (code / 5usize.pow(i) % 5) as i32 + 1)
                    .collect();
                check(&values);
            }
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let len = rng.gen_range(6..=10);
            let values: Vec<i32> = (0..len).map(|_| rng.gen_range(1..=3)).collect();
            check(&values);
        }
        assert_eq!(analyse(&[], Variant::Sequential).probabilities, vec![]);
    }
}
