//! Criterion benchmarks of the FFT turn-flow engines: replaying the seed's logs, the
//! simulator's exhaustive search against SAT bounded model checking on the shipped
//! scenarios (same outcome sets), and random-scenario throughput of the full
//! differential (both engines, every variant and property).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gordian::systems::fft::gen::small_scenario;
use gordian::systems::fft::model::{Scenario, Variant};
use gordian::systems::fft::{encode, parse, replay, search};
use gordian::systems::spec::Budget;
use std::hint::black_box;
use std::path::Path;

fn instance(name: &str) -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/fft")
        .join(name);
    parse::load(&p).expect("shipped instance parses")
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
        let log = sc.log.clone().expect("seed instances have logs");
        g.bench_function(name, |b| {
            b.iter(|| black_box(replay::replay(&sc, &log, Variant::Final)))
        });
    }
    g.finish();
}

fn bench_enumerate(c: &mut Criterion) {
    let mut g = c.benchmark_group("fft/enumerate");
    g.sample_size(10);
    let budget = Budget::new();
    for name in SEEDS {
        let sc = instance(name);
        g.bench_with_input(BenchmarkId::new("direct", name), &sc, |b, sc| {
            b.iter(|| black_box(search::enumerate(sc, Variant::Final, &budget).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("sat", name), &sc, |b, sc| {
            b.iter(|| black_box(encode::enumerate(sc, Variant::Final, &budget).unwrap()))
        });
    }
    g.finish();
}

fn bench_differential(c: &mut Criterion) {
    let scenarios: Vec<Scenario> = (0..50).map(small_scenario).collect();
    let mut g = c.benchmark_group("fft/differential");
    g.sample_size(10);
    g.throughput(Throughput::Elements(scenarios.len() as u64));
    g.bench_function("50 random scenarios", |b| {
        b.iter(|| {
            for sc in &scenarios {
                black_box(
                    gordian::harness::Differential::<gordian::systems::fft::Fft>::all()
                        .compare(sc, &Budget::new()),
                );
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_replay, bench_enumerate, bench_differential);
criterion_main!(benches);
