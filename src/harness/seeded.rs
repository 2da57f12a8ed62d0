//! Test-only: the one seeded differential loop the systems' tests run. Instances come
//! from a system's generator for a range of seeds; every engine of the system answers
//! each one (under an optional time limit per instance); the answers must all be equal,
//! and a caller's extra check (witnesses replayed, queries compared) may find more
//! disagreements.
//!
//! Invariants: an instance on which some engine gave no answer (the time limit, or any
//! other interruption) is skipped and counted, never compared and never a disagreement;
//! every disagreement prints the seed and the instance in the system's text format.

use crate::systems::spec::{Budget, System};
use std::ops::Range;
use std::time::{Duration, Instant};

/// What one run of [`engines_agree`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Instances on which every engine answered (and so were compared).
    pub(crate) compared: u64,
    /// Compared instances whose answers differ, or that the extra check refused.
    pub(crate) disagreements: u64,
    /// Instances on which some engine gave no answer within the limit.
    pub(crate) skipped: u64,
}

/// Runs every engine of `S` on `S::generate(args, seed)` for each seed, each instance
/// under `limit` (None: no limit), and compares their answers; `extra(seed, instance,
/// answers)` is asked too, for compared instances, and says whether it found a
/// disagreement. Progress goes to standard error every 10,000 seeds.
pub(crate) fn engines_agree<S: System>(
    args: &S::GenArgs,
    seeds: Range<u64>,
    limit: Option<Duration>,
    mut extra: impl FnMut(u64, &S::Instance, &[S::Answer]) -> bool,
) -> Tally {
    let engines = S::engines();
    let mut tally = Tally::default();
    let mut slowest = (Duration::ZERO, seeds.start);
    for seed in seeds.clone() {
        let done = seed - seeds.start;
        if done > 0 && done.is_multiple_of(10_000) {
            eprintln!(
                "  {done} cases, {} disagreements, {} skipped, slowest seed {} ({:?})",
                tally.disagreements, tally.skipped, slowest.1, slowest.0
            );
        }
        let t0 = Instant::now();
        let instance = S::generate(args, seed);
        let budget = Budget::new();
        let answers: Result<Vec<S::Answer>, _> = budget.with_timeout(limit, || {
            engines
                .iter()
                .filter(|e| S::runs_on(e.name(), &instance))
                .map(|e| e.solve(&instance, &budget))
                .collect()
        });
        let dt = t0.elapsed();
        if dt > slowest.0 {
            slowest = (dt, seed);
        }
        let Ok(answers) = answers else {
            tally.skipped += 1;
            eprintln!("  seed {seed} skipped: an engine gave no answer within {limit:?}");
            continue;
        };
        tally.compared += 1;
        let differ = answers.windows(2).any(|w| w[0] != w[1]);
        if differ | extra(seed, &instance, &answers) {
            tally.disagreements += 1;
            eprintln!(
                "{} seed {seed} disagrees:\n{}",
                S::NAME,
                S::to_text(&instance)
            );
        }
    }
    if limit.is_some() {
        eprintln!(
            "  slowest case: seed {} ({:?}); {} skipped over {limit:?}",
            slowest.1, slowest.0, tally.skipped
        );
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::toy::{Toy, ToyGen};

    #[test]
    fn honest_engines_agree_and_every_seed_is_compared() {
        let t = engines_agree::<Toy>(&ToyGen { len: 4 }, 0..50, None, |_, _, _| false);
        assert_eq!(
            t,
            Tally {
                compared: 50,
                disagreements: 0,
                skipped: 0
            }
        );
    }

    #[test]
    fn the_extra_check_counts_as_a_disagreement() {
        let t = engines_agree::<Toy>(&ToyGen { len: 4 }, 0..10, None, |seed, _, _| seed < 3);
        assert_eq!(t.disagreements, 3);
        assert_eq!(t.compared, 10);
    }
}
