//! `cargo bench --bench ratios`: throughput of every engine on the same 10,000 random
//! 12-player nights, measured in one run and printed as ratios to the direct engine (the
//! baseline), so the figures survive a noisy machine. Rounds alternate between engines;
//! the median round counts.

use gordian::gen::ar::small_night;
use gordian::systems::ar::{self, EngineKind, Universe};
use gordian::systems::spec::Budget;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let nights: Vec<Universe> = (0..10_000u64)
        .map(|seed| Universe::new(&small_night(seed)))
        .collect();
    let engines = [
        ("direct", EngineKind::Direct),
        ("sat", EngineKind::Sat),
        ("both", EngineKind::Both),
    ];
    let rounds = 5;
    // (engine, parallel over nights with rayon?)
    let runs: Vec<(&str, EngineKind, bool)> = engines
        .iter()
        .flat_map(|&(n, k)| [(n, k, false), (n, k, true)])
        .collect();
    let mut secs: Vec<Vec<f64>> = vec![Vec::new(); runs.len()];
    for _ in 0..rounds {
        for (i, &(_, kind, parallel)) in runs.iter().enumerate() {
            let t = Instant::now();
            let solve = |u: &Universe| {
                std::hint::black_box(ar::solve(u, kind, &Budget::new()).expect("solved"));
            };
            if parallel {
                nights.par_iter().for_each(solve);
            } else {
                nights.iter().for_each(solve);
            }
            secs[i].push(t.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let medians: Vec<f64> = secs.iter_mut().map(median).collect();
    println!(
        "{} nights, median of {rounds} rounds, {} rayon threads",
        nights.len(),
        rayon::current_num_threads()
    );
    for ((name, _, parallel), m) in runs.iter().zip(&medians) {
        let mode = if *parallel { "parallel" } else { "1 thread" };
        println!(
            "{name:>7} {mode:>8}: {:>9.0} nights/s   time ratio to direct (1 thread): {:.2}",
            nights.len() as f64 / m,
            m / medians[0]
        );
    }
}
