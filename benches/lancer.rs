//! Criterion benchmarks of the Lancer event-system engines: the simulator's exhaustive
//! search against SAT projected enumeration (same outcome sets) on the shipped scenarios
//! and on a fixed set of random scenarios.

use criterion::{criterion_group, criterion_main, Criterion};
use gordian::lancer::{self, Knobs, Scenario};
use gordian::{Engines, Limits};
use std::hint::black_box;
use std::path::Path;

const SHIPPED: [&str; 5] = [
    "seed-1-aggression.lancer",
    "seed-2-brace.lancer",
    "seed-3-area.lancer",
    "seed-4-shrike.lancer",
    "overwatch-move.lancer",
];

fn instance(name: &str) -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/lancer")
        .join(name);
    Scenario::from_file(&p).expect("shipped instance parses")
}

/// Every outcome of `sc` under its policy, by one engine.
fn outcomes(sc: &Scenario, engines: Engines) -> Option<lancer::Answer> {
    lancer::solve(sc, &Limits::new().engines(engines)).ok()
}

fn bench_shipped(c: &mut Criterion) {
    let mut g = c.benchmark_group("lancer/shipped");
    for name in SHIPPED {
        let sc = instance(name);
        g.bench_function(format!("direct/{name}"), |b| {
            b.iter(|| black_box(outcomes(&sc, Engines::Direct)))
        });
        g.bench_function(format!("sat/{name}"), |b| {
            b.iter(|| black_box(outcomes(&sc, Engines::Sat)))
        });
    }
    g.finish();
}

fn bench_random(c: &mut Criterion) {
    let knobs = Knobs::default();
    let scs: Vec<Scenario> = (0..50).map(|s| lancer::generate(&knobs, s)).collect();
    let mut g = c.benchmark_group("lancer/random50");
    g.sample_size(10);
    g.bench_function("direct", |b| {
        b.iter(|| {
            for sc in &scs {
                black_box(outcomes(sc, Engines::Direct));
            }
        })
    });
    g.bench_function("sat", |b| {
        b.iter(|| {
            for sc in &scs {
                black_box(outcomes(sc, Engines::Sat));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_shipped, bench_random);
criterion_main!(benches);
