//! Differential fuzzing of the ?AR engines: random nights from [`gen::ar::night`], each
//! answered by every engine of a [`Differential`] (brute force too on small universes);
//! the first failing night is shrunk ([`shrink`]) and written as a `.night` file whose
//! `#` header says what disagreed.
//!
//! Invariants: case `i` of seed `S` is a pure function of the configuration, `S` and `i`
//! ([`case_seed`], [`case_night`]), so any case can be regenerated; cases run in parallel
//! (rayon), handed out in index order, and stop at the first failure or at the limit; when
//! several cases fail before the others notice, the one with the lowest index is kept.

use crate::check::{Comparison, Differential, Verdict};
use crate::gen::ar::{night, NightParams};
use crate::shrink::shrink;
use crate::systems::ar::{parse, Classification, Ensemble, Universe};
use crate::systems::spec::Budget;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// When to stop fuzzing (besides a failure).
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// After this many cases.
    Cases(u64),
    /// After this much time.
    Time(Duration),
}

/// What to fuzz.
#[derive(Clone, Debug)]
pub struct Config {
    /// Generator knobs; `effects` is overridden per case (see [`case_night`]).
    pub params: NightParams,
    /// Each case has between 1 and this many effects (0: empty nights).
    pub max_effects: usize,
    /// The run's seed.
    pub seed: u64,
    /// When to stop.
    pub limit: Limit,
}

/// One step of SplitMix64: a bijective 64-bit mix.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator seed of case `index` of the run with seed `seed`.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ index)
}

/// Case `index` of the run: its seed, and the night (with `1 + case_seed % max_effects`
/// effects).
pub fn case_night(cfg: &Config, index: u64) -> (u64, Ensemble) {
    let s = case_seed(cfg.seed, index);
    let mut params = cfg.params.clone();
    params.effects = match cfg.max_effects {
        0 => 0,
        k => 1 + (splitmix64(s) % k as u64) as usize,
    };
    (s, night(&params, s))
}

/// The first failing case, as generated.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its index in the run.
    pub index: u64,
    /// Its generator seed.
    pub seed: u64,
    /// The night.
    pub night: Ensemble,
    /// The engines' answers on it, one line each (see [`Comparison::describe`]).
    pub answers: Vec<String>,
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases run.
    pub cases: u64,
    /// Agreed classifications seen, with their counts.
    pub classes: BTreeMap<Classification, u64>,
    /// Cases on which brute force also ran.
    pub brute: u64,
    /// The failing case with the lowest index, if any.
    pub failure: Option<Failure>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl Summary {
    fn merge(mut self, other: Summary) -> Summary {
        self.cases += other.cases;
        self.brute += other.brute;
        for (c, n) in other.classes {
            *self.classes.entry(c).or_default() += n;
        }
        self.failure = match (self.failure, other.failure) {
            (Some(a), Some(b)) => Some(if a.index <= b.index { a } else { b }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Runs the cases in parallel; calls `on_case` after each one (for progress display).
pub fn run(cfg: &Config, diff: &Differential, on_case: &(dyn Fn() + Sync)) -> Summary {
    let start = Instant::now();
    let stop = AtomicBool::new(false);
    let (end, deadline) = match cfg.limit {
        Limit::Cases(n) => (n, None),
        Limit::Time(t) => (u64::MAX, Some(start + t)),
    };
    // `par_bridge` hands out indices in order, so the cases run are (about) a prefix.
    let mut summary = (0..end)
        .par_bridge()
        .map(|i| {
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            let (seed, ens) = case_night(cfg, i);
            let u = Universe::new(&ens);
            let c = diff.compare(&u, &Budget::new());
            let mut s = Summary {
                cases: 1,
                brute: u64::from(c.runs.len() > diff.engines.len()),
                ..Summary::default()
            };
            match c.verdict() {
                Verdict::Agree(a) => {
                    s.classes.insert(a.classification(), 1);
                }
                _ => {
                    stop.store(true, Ordering::Relaxed);
                    s.failure = Some(Failure {
                        index: i,
                        seed,
                        answers: c.describe(&u),
                        night: ens,
                    });
                }
            }
            on_case();
            Some(s)
        })
        .while_some()
        .reduce(Summary::default, Summary::merge);
    summary.elapsed = start.elapsed();
    summary
}

/// A failing night shrunk to a locally minimal one, with the engines' answers on it.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The minimal night.
    pub night: Ensemble,
    /// Its universe.
    pub universe: Universe,
    /// The engines' (disagreeing) answers on it.
    pub comparison: Comparison,
}

/// Shrinks a failing night while the engines still fail on it.
pub fn shrink_failure(night: &Ensemble, diff: &Differential) -> Shrunk {
    let small = shrink(night, |e| diff.fails(e));
    let universe = Universe::new(&small);
    let comparison = diff.compare(&universe, &Budget::new());
    Shrunk {
        night: small,
        universe,
        comparison,
    }
}

/// The `.night` file for a shrunk failure: a `#` header (what disagreed, where the night
/// came from) and the night itself.
pub fn failure_file(cfg: &Config, f: &Failure, s: &Shrunk) -> String {
    let kinds: Vec<&str> = cfg.params.kinds.iter().map(|k| k.name()).collect();
    let mut out = String::from(
        "# gordian fuzz: the engines disagree on this night; this is a bug in gordian.\n",
    );
    out.push_str(&format!(
        "# case {} of seed {} (night seed {}), shrunk from {} effects and {} players\n",
        f.index,
        cfg.seed,
        f.seed,
        f.night.effects.len(),
        f.night.players.len()
    ));
    out.push_str(&format!(
        "# generator: players {} kinds {} passive-rate {} priority-levels {} max-targets {}\n",
        cfg.params.players,
        kinds.join(","),
        cfg.params.passive_rate,
        cfg.params.priority_levels,
        cfg.params.max_targets
    ));
    for line in s.comparison.describe(&s.universe) {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str("# reproduce: gordian check THIS_FILE\n");
    out.push_str(&parse::to_night(&s.night));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Direct, DynEngine, Sat};
    use crate::systems::ar::{direct, Analysis};
    use crate::systems::spec::{Engine, Interrupted};
    use std::path::Path;

    /// A planted bug: drops the last resolution whenever there are at least two.
    struct DropsLastOfMany;

    impl Engine<Universe, Analysis> for DropsLastOfMany {
        fn name(&self) -> &'static str {
            "drops-last"
        }
        fn solve(&self, u: &Universe, budget: &Budget) -> Result<Analysis, Interrupted> {
            let mut a = direct::analyse(u, budget)?;
            if a.resolutions.len() >= 2 {
                a.resolutions.pop();
            }
            Ok(a)
        }
    }

    fn config(limit: Limit) -> Config {
        Config {
            params: NightParams::default(),
            max_effects: 8,
            seed: 7,
            limit,
        }
    }

    #[test]
    fn cases_are_reproducible() {
        let cfg = config(Limit::Cases(1));
        assert_eq!(case_night(&cfg, 3), case_night(&cfg, 3));
        assert_ne!(case_seed(7, 3), case_seed(7, 4));
        assert_ne!(case_seed(7, 3), case_seed(8, 3));
        let n = case_night(&cfg, 3).1.effects.len();
        assert!((1..=8).contains(&n));
    }

    #[test]
    fn the_real_engines_agree() {
        let cfg = config(Limit::Cases(200));
        let diff = Differential::with_brute(vec![&Direct, &Sat]);
        let s = run(&cfg, &diff, &|| {});
        assert!(s.failure.is_none(), "{:?}", s.failure);
        assert_eq!(s.cases, 200);
        assert_eq!(s.classes.values().sum::<u64>(), 200);
        assert!(s.brute > 0);
    }

    #[test]
    fn a_planted_bug_is_found_and_shrunk() {
        let cfg = config(Limit::Time(Duration::from_secs(60)));
        let engines: Vec<&DynEngine> = vec![&Direct, &DropsLastOfMany];
        let diff = Differential {
            engines,
            brute_up_to: 0,
            grace: None,
        };
        let s = run(&cfg, &diff, &|| {});
        let f = s.failure.expect("the planted bug is found");
        let shrunk = shrink_failure(&f.night, &diff);
        // The smallest nights with two resolutions: one effect with two ways... no: ways
        // are not resolutions. Two players blocking each other (two resolutions), or one
        // player blocking himself twice. Whatever it is, it has at most two effects.
        assert!(
            shrunk.night.effects.len() <= 2,
            "{}",
            parse::to_night(&shrunk.night)
        );
        assert!(shrunk.comparison.disagrees());
        let text = failure_file(&cfg, &f, &shrunk);
        assert!(
            text.contains("# direct: quasi-paradox, 2 resolution(s)"),
            "{text}"
        );
        assert!(
            text.contains("# drops-last: non-paradox, 1 resolution(s)"),
            "{text}"
        );
        let back = parse::parse_night(&text, Path::new("f.night")).expect("reads back");
        assert_eq!(back.effects.len(), shrunk.night.effects.len());
    }
}
