//! The validated scenario (sides with initiative, figures with modDX and declaration
//! plans) and the outcome types both engines produce.
//!
//! Invariants: a validated [`Scenario`] has 1..=[`MAX_SIDES`] sides and at most
//! [`MAX_FIGURES`] figures, unique names, every figure on an existing side, every plan
//! non-empty with non-empty choice sets, every active option with 1..=9 dice, every
//! option's modDX adjustment within ±[`MAX_ADJ`]; an
//! [`Answer`] keeps its sets sorted (`BTreeSet`), so answers of different engines compare
//! with `==`.

use serde::Serialize;
use std::collections::BTreeSet;

/// Most sides in a scenario.
pub const MAX_SIDES: usize = 8;
/// Most figures in a scenario.
pub const MAX_FIGURES: usize = 16;
/// Largest absolute modDX adjustment of an option (`@+N` / `@-N`).
pub const MAX_ADJ: i8 = 9;
/// Sides of the initiative die (`ini roll`).
pub const INI_DIE: i32 = 6;

/// The seed's FigDo options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Opt {
    /// Move (=1): preset dice (OptDib, or 10 and acted at once when `isDib` is false).
    Move,
    /// Watch (=2): preset 1 die; postponement of precedence, re-queried.
    Watch,
    /// Ready (=3).
    Ready,
    /// Defend (=4): preset like Move.
    Defend,
    /// Strike (=5).
    Strike,
    /// Jab (=6).
    Jab,
    /// Hurl (=7).
    Hurl,
    /// Fire (=8).
    Fire,
    /// Use (=9).
    Use,
    /// Dodge (=10).
    Dodge,
    /// Strike2 (=11).
    Strike2,
    /// Fire2 (=12).
    Fire2,
}

impl Opt {
    /// Every option, in FigDo order.
    pub const ALL: [Opt; 12] = [
        Opt::Move,
        Opt::Watch,
        Opt::Ready,
        Opt::Defend,
        Opt::Strike,
        Opt::Jab,
        Opt::Hurl,
        Opt::Fire,
        Opt::Use,
        Opt::Dodge,
        Opt::Strike2,
        Opt::Fire2,
    ];

    /// The file-format name (lower case).
    pub fn name(self) -> &'static str {
        match self {
            Opt::Move => "move",
            Opt::Watch => "watch",
            Opt::Ready => "ready",
            Opt::Defend => "defend",
            Opt::Strike => "strike",
            Opt::Jab => "jab",
            Opt::Hurl => "hurl",
            Opt::Fire => "fire",
            Opt::Use => "use",
            Opt::Dodge => "dodge",
            Opt::Strike2 => "strike2",
            Opt::Fire2 => "fire2",
        }
    }

    /// Parses a file-format name (case-insensitive).
    pub fn from_name(s: &str) -> Option<Opt> {
        let l = s.to_ascii_lowercase();
        Opt::ALL.into_iter().find(|o| o.name() == l)
    }

    /// Whether the number of dice is preset (Move, Watch, Defend) rather than chosen.
    pub fn preset(self) -> bool {
        matches!(self, Opt::Move | Opt::Watch | Opt::Defend)
    }
}

/// One declaration a figure may make when polled: an option, for active options its
/// number of dice (1..=9), and the option's modDX adjustment. Preset options carry
/// `dice = 0` here; the effective dice come from [`Scenario::dice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Decl {
    /// The option.
    pub opt: Opt,
    /// Chosen dice for active options, 0 for preset ones.
    pub dice: u8,
    /// modDX adjustment of this option (and target/item) relative to the figure's modDX
    /// (`@+N` / `@-N` in the format; 0 when not written). See [`Figure::dx_of`].
    pub adj: i8,
}

impl Decl {
    /// A declaration without modDX adjustment.
    pub fn new(opt: Opt, dice: u8) -> Decl {
        Decl { opt, dice, adj: 0 }
    }
}

impl std::fmt::Display for Decl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.opt.preset() {
            f.write_str(self.opt.name())?;
        } else {
            write!(f, "{}:{}", self.opt.name(), self.dice)?;
        }
        if self.adj != 0 {
            write!(f, "@{:+}", self.adj)?;
        }
        Ok(())
    }
}

/// A side's modified initiative roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ini {
    /// A given modified value.
    Fixed(i32),
    /// 1d6 plus the modifier, rolled for the round.
    Roll(i32),
}

impl Ini {
    /// Every value the initiative can take, ascending.
    pub fn values(self) -> Vec<i32> {
        match self {
            Ini::Fixed(v) => vec![v],
            Ini::Roll(m) => (1..=INI_DIE).map(|d| d + m).collect(),
        }
    }
}

/// Whether a side postpones (SidSeq -1) when it is first selected to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Postpone {
    /// Never.
    No,
    /// Always, once per round, when another side could move instead.
    Yes,
    /// Either (enumerated; probability 1/2 each).
    Maybe,
}

/// One side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Side {
    /// Unique name.
    pub name: String,
    /// Its modified initiative.
    pub ini: Ini,
    /// Its postponement policy.
    pub postpone: Postpone,
}

/// One figure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Figure {
    /// Unique name.
    pub name: String,
    /// Index of its side.
    pub side: usize,
    /// Its modDX before it picks an option this round (the seed's "asgnd opt" modDX);
    /// each picked option then sets it to [`Figure::dx_of`] that option.
    pub dx: i32,
    /// Choice sets: entry `k` is used in segment `k + 1` (the last entry repeats). When
    /// polled, and again when re-queried as a watcher, the figure picks one declaration
    /// of the segment's set.
    pub plan: Vec<Vec<Decl>>,
}

impl Figure {
    /// The choice set for 0-based segment `s`.
    pub fn choices(&self, s: usize) -> &[Decl] {
        &self.plan[s.min(self.plan.len() - 1)]
    }

    /// The figure's modDX once it has picked `d`: its modDX plus the option's adjustment.
    pub fn dx_of(&self, d: Decl) -> i32 {
        self.dx + i32::from(d.adj)
    }

    /// Every modDX the figure can have during the round (its own and each option's),
    /// ascending, without repeats.
    pub fn dx_values(&self) -> Vec<i32> {
        let mut v: Vec<i32> = std::iter::once(self.dx)
            .chain(self.plan.iter().flatten().map(|&d| self.dx_of(d)))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A validated scenario: one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// The seed's `isDib` flag: false (the default) gives Move/Defend 10 dice and they act
    /// at once; true gives them `optdib` dice and they compete like any declaration.
    pub is_dib: bool,
    /// OptDib: dice of Move/Defend when `is_dib` (default 9).
    pub optdib: u8,
    /// Sides, in list (scan) order.
    pub sides: Vec<Side>,
    /// Figures, in list (scan) order.
    pub figures: Vec<Figure>,
}

/// The precedence of a declaration in the dib running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dib {
    /// Watch: never made the dibFig while another declaration stands.
    Watch,
    /// Acts at once when declared (Move/Defend with `isDib` false, FigDic 10).
    AtOnce,
    /// Competes with this many dice.
    Dice(u8),
}

impl Scenario {
    /// The precedence of `d` under this scenario's `isDib`.
    pub fn dib(&self, d: Decl) -> Dib {
        match d.opt {
            Opt::Watch => Dib::Watch,
            Opt::Move | Opt::Defend if !self.is_dib => Dib::AtOnce,
            Opt::Move | Opt::Defend => Dib::Dice(self.optdib),
            _ => Dib::Dice(d.dice),
        }
    }

    /// Classes of interchangeable sides (the same initiative and postponement), each of
    /// two or more sides, ascending. Sides differ only by list order otherwise, which
    /// matters only to the tie-break scan, whose dice select every tied side: the
    /// reachable side orders are closed under permuting a class (and each permuted order
    /// has the same probability, the scan being fair).
    pub fn side_classes(&self) -> Vec<Vec<usize>> {
        classes(&self.sides, |a, b| {
            a.ini == b.ini && a.postpone == b.postpone
        })
    }

    /// Classes of interchangeable figures (the same modDX and plan; the side plays no
    /// part in the Action phase), each of two or more figures, ascending: the reachable
    /// action outcomes are closed under permuting a class, as for [`Self::side_classes`].
    pub fn figure_classes(&self) -> Vec<Vec<usize>> {
        classes(&self.figures, |a, b| a.dx == b.dx && a.plan == b.plan)
    }

    /// The FigDic value a declaration records (1 for Watch, 10 for act-at-once).
    pub fn dice(&self, d: Decl) -> u8 {
        match self.dib(d) {
            Dib::Watch => 1,
            Dib::AtOnce => 10,
            Dib::Dice(n) => n,
        }
    }
}

/// The classes (of two or more, ascending) of `items` under the equivalence `same`.
fn classes<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut placed = vec![false; items.len()];
    for i in 0..items.len() {
        if placed[i] {
            continue;
        }
        let class: Vec<usize> = (i..items.len())
            .filter(|&j| !placed[j] && same(&items[i], &items[j]))
            .collect();
        for &j in &class {
            placed[j] = true;
        }
        if class.len() > 1 {
            out.push(class);
        }
    }
    out
}

/// One figure's action in the round's action order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Acted {
    /// The figure.
    pub figure: usize,
    /// Whether it declared Watch in an earlier poll of the round (or in its acting
    /// segment before switching when re-queried): it waited, then acted.
    pub waited: bool,
}

/// How a round's Action phase ends.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ActionOutcome {
    /// Acting figures, one per segment, in action-performance order (FigSeq of acted
    /// figures).
    pub order: Vec<Acted>,
    /// Figures left on Watch when the round ended (ascending index).
    pub watching: Vec<usize>,
}

/// A side order (SidSeq): side indices in the order they moved.
pub type SideOrder = Vec<usize>;

/// The whole comparable answer: every reachable side order and every reachable
/// Action-phase outcome. The two phases are independent (no roll or choice is shared),
/// so the reachable (side order, action outcome) pairs are exactly the product.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// Reachable side orders.
    pub side_orders: BTreeSet<SideOrder>,
    /// Reachable Action-phase outcomes.
    pub actions: BTreeSet<ActionOutcome>,
}
