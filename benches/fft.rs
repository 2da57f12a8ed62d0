//! Criterion benchmarks of the FFT turn-flow engines: replaying the seed's logs, the
//! simulator's exhaustive search against SAT bounded model checking on the shipped
//! scenarios (same outcome sets), and random-scenario throughput of the full
//! differential (both engines, every variant and property).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gordian::bench_only::{fft_enumerate_final, fft_replay_final, fft_small_scenario};
use gordian::fft::{self, Scenario};
use gordian::Limits;
use std::hint::black_box;
use std::path::Path;

fn instance(name: &str) -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/fft")
        .join(name);
    Scenario::from_file(&p).expect("shipped instance parses")
}

const SEEDS: [&str; 4] = [
    "seed-1-mimes-skip.fft",
    "seed-2-haste.fft",
    "seed-3-agrias.fft",
    "seed-4-demi.fft",
];

fn bench_replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("fft/replay");
    for name in SEEDS {
        let sc = instance(name);
        g.bench_function(name, |b| b.iter(|| black_box(fft_replay_final(&sc))));
    }
    g.finish();
}

fn bench_enumerate(c: &mut Criterion) {
    let mut g = c.benchmark_group("fft/enumerate");
    g.sample_size(10);
    for name in SEEDS {
        let sc = instance(name);
        g.bench_with_input(BenchmarkId::new("direct", name), &sc, |b, sc| {
            b.iter(|| black_box(fft_enumerate_final(sc, false)))
        });
        g.bench_with_input(BenchmarkId::new("sat", name), &sc, |b, sc| {
            b.iter(|| black_box(fft_enumerate_final(sc, true)))
        });
    }
    g.finish();
}

fn bench_differential(c: &mut Criterion) {
    let scenarios: Vec<Scenario> = (0..50).map(fft_small_scenario).collect();
    let mut g = c.benchmark_group("fft/differential");
    g.sample_size(10);
    g.throughput(Throughput::Elements(scenarios.len() as u64));
    g.bench_function("50 random scenarios", |b| {
        b.iter(|| {
            for sc in &scenarios {
                black_box(fft::solve(sc, &Limits::new()).expect("answered"));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_replay, bench_enumerate, bench_differential);
criterion_main!(benches);
