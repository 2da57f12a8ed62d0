//! Random scenarios from designer-level knobs: a pure function of the knobs and the seed.
//!
//! Invariants: every generated scenario is valid (it round-trips through
//! [`super::parse::to_text`] and [`super::parse::parse`]); modDX and initiative values are
//! drawn from small ranges so ties (the interesting case) are frequent.

use super::model::{Decl, Figure, Ini, Opt, Postpone, Scenario, Side, MAX_FIGURES, MAX_SIDES};
use rand::{Rng, SeedableRng};

/// The generator's knobs (`gordian fuzz|gen --system foeman` sets them with its
/// `--foeman-*` flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenArgs {
    /// Most sides (1..=8).
    pub sides: usize,
    /// Most figures (0..=16).
    pub figures: usize,
    /// modDX values are drawn from 10..10+spread (small spreads give ties).
    pub dx_spread: i32,
    /// Most declarations in a choice set.
    pub menu: usize,
    /// Most choice sets in a plan.
    pub plan: usize,
    /// Percentage of figures with a menu (more than one choice); the rest get fixed plans.
    pub menu_rate: u32,
    /// Percentage of declarations carrying a modDX adjustment (`@+N`/`@-N`, N in 1..=2):
    /// options that change the figure's modDX, which exercises FigSeq re-zeroing.
    pub adj_rate: u32,
}

impl Default for GenArgs {
    fn default() -> Self {
        GenArgs {
            sides: 3,
            figures: 4,
            dx_spread: 2,
            menu: 2,
            plan: 2,
            menu_rate: 40,
            adj_rate: 30,
        }
    }
}

fn random_decl(rng: &mut impl Rng, adj_rate: u32) -> Decl {
    let d = match rng.gen_range(0..10) {
        0..=2 => Decl::new(Opt::Watch, 0),
        3 => Decl::new(Opt::Move, 0),
        4 => Decl::new(Opt::Defend, 0),
        _ => {
            let active = [Opt::Strike, Opt::Jab, Opt::Fire, Opt::Hurl, Opt::Ready];
            Decl::new(active[rng.gen_range(0..active.len())], rng.gen_range(1..=4))
        }
    };
    let adj = if rng.gen_range(0..100) < adj_rate {
        [-2, -1, 1, 2][rng.gen_range(0..4)]
    } else {
        0
    };
    Decl { adj, ..d }
}

/// A random scenario.
pub fn generate(args: &GenArgs, seed: u64) -> Scenario {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0xf0e_3a11);
    let ns = rng.gen_range(1..=args.sides.clamp(1, MAX_SIDES));
    let sides = (0..ns)
        .map(|i| Side {
            name: format!("S{}", i + 1),
            ini: if rng.gen_range(0..4) == 0 {
                Ini::Roll(rng.gen_range(-1..=1))
            } else {
                Ini::Fixed(rng.gen_range(3..=5))
            },
            postpone: match rng.gen_range(0..6) {
                0 => Postpone::Yes,
                1 => Postpone::Maybe,
                _ => Postpone::No,
            },
        })
        .collect();
    let nf = rng.gen_range(0..=args.figures.min(MAX_FIGURES));
    let spread = args.dx_spread.clamp(1, 40);
    let figures = (0..nf)
        .map(|i| {
            let menu = rng.gen_range(0..100) < args.menu_rate;
            let sets = rng.gen_range(1..=args.plan.clamp(1, 16));
            let plan = (0..sets)
                .map(|_| {
                    let k = if menu {
                        rng.gen_range(1..=args.menu.clamp(1, 8))
                    } else {
                        1
                    };
                    let mut set: Vec<Decl> = Vec::new();
                    while set.len() < k {
                        let d = random_decl(&mut rng, args.adj_rate);
                        if !set.contains(&d) {
                            set.push(d);
                        }
                    }
                    set
                })
                .collect();
            Figure {
                name: format!("F{}", i + 1),
                side: rng.gen_range(0..ns),
                dx: 10 + rng.gen_range(0..spread),
                plan,
            }
        })
        .collect();
    Scenario {
        is_dib: rng.gen_range(0..2) == 0,
        optdib: if rng.gen_range(0..3) == 0 {
            rng.gen_range(1..=9)
        } else {
            9
        },
        sides,
        figures,
    }
}

/// A benchmark round: exactly `figures` figures (at most 16) on three sides; modDX in
/// pairs (every value shared by two figures), fixed plans mixing dice, Watch-then-act
/// and act-at-once Moves, and a menu of two for every fourth figure.
pub fn round(figures: usize, seed: u64) -> Scenario {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x50_0d);
    let n = figures.min(MAX_FIGURES);
    let sides: Vec<Side> = (0..3)
        .map(|i| Side {
            name: format!("S{}", i + 1),
            ini: if i == 2 { Ini::Roll(0) } else { Ini::Fixed(4) },
            postpone: if i == 0 {
                Postpone::Maybe
            } else {
                Postpone::No
            },
        })
        .collect();
    let figures = (0..n)
        .map(|i| {
            let strike = |d: u8| Decl::new(Opt::Strike, d);
            let watch = Decl::new(Opt::Watch, 0);
            let plan = match i % 4 {
                0 => vec![vec![strike(rng.gen_range(1..=4)), watch]],
                1 => vec![vec![watch], vec![strike(rng.gen_range(1..=4))]],
                2 => vec![vec![Decl::new(
                    if rng.gen_range(0..3) == 0 {
                        Opt::Move
                    } else {
                        Opt::Jab
                    },
                    2,
                )]],
                _ => vec![vec![strike(rng.gen_range(1..=4))]],
            };
            Figure {
                name: format!("F{}", i + 1),
                side: i % 3,
                dx: 10 + (i / 2) as i32,
                plan,
            }
        })
        .collect();
    Scenario {
        is_dib: false,
        optdib: 9,
        sides,
        figures,
    }
}
