//! `cargo bench --bench ratios`: throughput of every engine on the same 10,000 random
//! 12-player nights, measured in one run and printed as ratios to the direct engine (the
//! baseline), so the figures survive a noisy machine. Rounds alternate between engines;
//! the median round counts. Then the same for the FFT turn-flow engines: enumerating every
//! outcome of 300 random small scenarios (and of the shipped ones) with the simulator's
//! exhaustive search (the baseline) and with SAT bounded model checking. Last, a dense
//! random ?AR night (one component of about 1,800 effects): the direct engine's product
//! form (the baseline) against the SAT engine's flat answer.

use gordian::ar::{self, Night};
use gordian::bench_only::{fft_enumerate_final, fft_small_scenario};
use gordian::fft::Scenario;
use rayon::prelude::*;
use std::time::Instant;

mod common;

use common::{random_night, small_nights, solve, unbounded, EngineKind};

fn main() {
    let nights: Vec<Night> = small_nights(10_000);
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
            let solve = |u: &Night| {
                solve(u, kind);
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
    fft_ratios();
    dense_ratio();
}

/// ?AR: a dense random night of 2,000 effects over 1,000 players, direct vs SAT,
/// alternating rounds; the answers are compared.
fn dense_ratio() {
    let n = random_night(2_000, 1_000, 3, 1);
    let both = ar::solve(&n, &unbounded()).expect("solved");
    assert!(both.cross_checked(), "the engines agree on the dense night");
    let rounds = 5;
    let mut secs = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (i, kind) in [EngineKind::Direct, EngineKind::Sat]
            .into_iter()
            .enumerate()
        {
            let t = Instant::now();
            solve(&n, kind);
            secs[i].push(t.elapsed().as_secs_f64());
        }
    }
    for s in &mut secs {
        s.sort_by(f64::total_cmp);
    }
    let (d, sat) = (secs[0][rounds / 2], secs[1][rounds / 2]);
    println!(
        "?AR dense night (2,000 effects, 1,000 players, one large component), median of {rounds}: \
         time ratio SAT/direct (product form): {:.1}",
        sat / d
    );
}

/// FFT: simulator search vs SAT enumeration, same scenarios, alternating rounds.
fn fft_ratios() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/fft");
    let mut shipped: Vec<(usize, Scenario)> = std::fs::read_dir(&dir)
        .expect("instances/fft")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "fft").then(|| {
                let text = std::fs::read_to_string(&p).expect("shipped scenario reads");
                let chars = text.lines().filter(|l| l.starts_with("char ")).count();
                (
                    chars,
                    Scenario::parse(&text).expect("shipped scenario parses"),
                )
            })
        })
        .collect();
    shipped.sort_by_key(|(chars, _)| *chars);
    let shipped: Vec<Scenario> = shipped.into_iter().map(|(_, s)| s).collect();
    let random: Vec<Scenario> = (0..300).map(fft_small_scenario).collect();
    for (what, set) in [
        ("random small scenarios", &random),
        ("shipped scenarios", &shipped),
    ] {
        let rounds = 3;
        let mut secs = [Vec::new(), Vec::new()];
        let mut outcomes = 0;
        for _ in 0..rounds {
            for (i, s) in secs.iter_mut().enumerate() {
                let t = Instant::now();
                outcomes = 0;
                for sc in set.iter() {
                    outcomes += std::hint::black_box(fft_enumerate_final(sc, i == 1));
                }
                s.push(t.elapsed().as_secs_f64());
            }
        }
        for s in &mut secs {
            s.sort_by(f64::total_cmp);
        }
        let (d, sat) = (secs[0][rounds / 2], secs[1][rounds / 2]);
        println!(
            "FFT enumerate, {} {what} ({outcomes} outcomes, final variant), median of {rounds}:",
            set.len()
        );
        println!(
            "  simulator {:>9.0} outcomes/s   SAT {:>9.0} outcomes/s   time ratio SAT/simulator: {:.1}",
            outcomes as f64 / d,
            outcomes as f64 / sat,
            sat / d
        );
    }
}
