//! The fairness check of the tie-break procedure: for a list of values scanned in order,
//! the exact probability that each position is selected, the expected number of displayed
//! tie-break dice and of inconsequential ones (rolled, then made moot by a higher value),
//! by exact enumeration of the dice; under the seed's procedure and two naive variants a
//! programmer might write; and an exhaustive proof over every list up to a length.
//!
//! Invariants: probabilities are exact rationals summing to 1; a die of `k` sides is
//! enumerated as "1" (weight 1/k) and "not 1" ((k-1)/k), which is all the procedure reads.

use num_rational::Rational64;
use num_traits::{One, Zero};
use serde::Serialize;

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
    pub probabilities: Vec<Rational64>,
    /// Every tied position has probability exactly 1/k (and the others 0).
    pub fair: bool,
    /// Expected number of tie-break dice displayed.
    #[serde(serialize_with = "ser_one")]
    pub expected_rolls: Rational64,
    /// Expected number of displayed dice made moot by a later higher value.
    #[serde(serialize_with = "ser_one")]
    pub expected_inconsequential: Rational64,
}

fn ser_one<S: serde::Serializer>(r: &Rational64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&r.to_string())
}

fn ser_vec<S: serde::Serializer>(r: &[Rational64], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut q = s.serialize_seq(Some(r.len()))?;
    for x in r {
        q.serialize_element(&x.to_string())?;
    }
    q.end()
}

/// Branch enumeration of the dice: `path` of "is a 1" answers, weights alongside.
struct Dice {
    path: Vec<bool>,
    dies: Vec<u32>,
    at: usize,
}

impl Dice {
    fn roll(&mut self, k: u32) -> bool {
        if self.at == self.path.len() {
            self.path.push(true);
            self.dies.push(k);
        } else {
            self.dies[self.at] = k;
        }
        self.at += 1;
        self.path[self.at - 1]
    }
    fn weight(&self) -> Rational64 {
        let mut w = Rational64::one();
        for (&one, &k) in self.path.iter().zip(&self.dies).take(self.at) {
            let k = k as i64;
            w *= if one {
                Rational64::new(1, k)
            } else {
                Rational64::new(k - 1, k)
            };
        }
        w
    }
    fn advance(&mut self) -> bool {
        self.path.truncate(self.at);
        self.dies.truncate(self.at);
        while let Some(last) = self.path.pop() {
            self.dies.pop();
            if last {
                self.path.push(false);
                self.dies.push(0);
                self.at = 0;
                return true;
            }
        }
        false
    }
}

/// One scan; returns (selected, rolls shown, inconsequential rolls).
fn scan(values: &[i32], variant: Variant, dice: &mut Dice) -> (usize, u32, u32) {
    let seq = |dice: &mut Dice, pairwise: bool| {
        let mut best = 0;
        let mut tied = 1u32;
        let mut rolls = 0u32;
        let mut moot = 0u32;
        let mut pending = 0u32;
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
                let k = if pairwise { 2 } else { tied };
                if dice.roll(k) {
                    best = i;
                }
            }
        }
        (best, rolls, moot)
    };
    match variant {
        Variant::Sequential => seq(dice, false),
        Variant::Pairwise => seq(dice, true),
        Variant::Reroll => {
            let (b, r, m) = seq(dice, false);
            let top = values.iter().copied().max().unwrap_or(0);
            let first = values.iter().position(|&v| v == top).unwrap_or(0);
            if b != first {
                let (b2, r2, m2) = seq(dice, false);
                (b2, r + r2, m + m2)
            } else {
                (b, r, m)
            }
        }
    }
}

/// The exact analysis of `values` (non-empty) under `variant`.
pub fn analyse(values: &[i32], variant: Variant) -> Analysis {
    let mut probabilities = vec![Rational64::zero(); values.len()];
    let mut expected_rolls = Rational64::zero();
    let mut expected_inconsequential = Rational64::zero();
    let mut dice = Dice {
        path: vec![],
        dies: vec![],
        at: 0,
    };
    if !values.is_empty() {
        loop {
            dice.at = 0;
            let (b, r, m) = scan(values, variant, &mut dice);
            let w = dice.weight();
            probabilities[b] += w;
            expected_rolls += w * Rational64::from(r as i64);
            expected_inconsequential += w * Rational64::from(m as i64);
            if !dice.advance() {
                break;
            }
        }
    }
    let top = values.iter().copied().max().unwrap_or(0);
    let tied: Vec<usize> = (0..values.len()).filter(|&i| values[i] == top).collect();
    let k = tied.len().max(1) as i64;
    let fair = (0..values.len()).all(|i| {
        let want = if tied.contains(&i) {
            Rational64::new(1, k)
        } else {
            Rational64::zero()
        };
        probabilities[i] == want
    });
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
    pub max_expected_inconsequential: Rational64,
}

/// Checks every list up to `max_len` (at most 7) under `variant`.
pub fn prove(variant: Variant, max_len: usize) -> Proof {
    let max_len = max_len.clamp(1, 7);
    let mut lists = 0;
    let mut biased = 0;
    let mut example = None;
    let mut max_inc = Rational64::zero();
    for len in 1..=max_len {
        let mut v = vec![1i32; len];
        loop {
            lists += 1;
            let a = analyse(&v, variant);
            if a.expected_inconsequential > max_inc {
                max_inc = a.expected_inconsequential;
            }
            if !a.fair {
                biased += 1;
                if example.is_none() {
                    example = Some(a);
                }
            }
            // Next list (odometer over 1..=max_len).
            let mut i = len;
            loop {
                if i == 0 {
                    break;
                }
                i -= 1;
                if v[i] < max_len as i32 {
                    v[i] += 1;
                    break;
                }
                v[i] = 1;
                if i == 0 {
                    i = usize::MAX;
                    break;
                }
            }
            if i == usize::MAX {
                break;
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
