//! Criterion benchmarks of the Foeman engines: the direct search (exact probabilities)
//! and the SAT encoding (reachable sets) on every shipped instance and on benchmark
//! rounds of 4 to 12 figures (`gen::round`), each pair measured in the same run so the
//! ratio SAT time / direct time can be read off (README, Foeman section).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gordian::bench_only::foeman_round;
use gordian::foeman::{self, Scenario};
use gordian::{Engines, Limits};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn shipped() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/foeman");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .expect("instances/foeman")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "foeman"))
        .collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().to_string();
            (
                name,
                Scenario::from_file(&p).expect("shipped instance parses"),
            )
        })
        .collect()
}

fn pair(c: &mut Criterion, group: &str, cases: Vec<(String, Scenario)>) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(2));
    g.warm_up_time(Duration::from_millis(300));
    let (direct, sat) = (
        Limits::new().engines(Engines::Direct),
        Limits::new().engines(Engines::Sat),
    );
    for (name, sc) in &cases {
        g.bench_with_input(BenchmarkId::new("direct", name), sc, |b, sc| {
            b.iter(|| black_box(foeman::solve(sc, &direct).expect("no limit")))
        });
        g.bench_with_input(BenchmarkId::new("sat", name), sc, |b, sc| {
            b.iter(|| black_box(foeman::solve(sc, &sat).expect("no limit")))
        });
    }
    g.finish();
}

fn bench_shipped(c: &mut Criterion) {
    pair(c, "foeman/shipped", shipped());
}

fn bench_rounds(c: &mut Criterion) {
    let cases = [4usize, 6, 8, 10, 12]
        .into_iter()
        .map(|n| (format!("{n}-figures"), foeman_round(n, 7)))
        .collect();
    pair(c, "foeman/rounds", cases);
}

criterion_group!(benches, bench_shipped, bench_rounds);
criterion_main!(benches);
