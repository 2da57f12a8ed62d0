//! Baseline benchmark: resolve every shipped ?AR instance with each engine.

use criterion::{criterion_group, criterion_main, Criterion};
use gordian::systems::ar::{self, parse, EngineKind, Universe};
use gordian::systems::spec::Budget;
use std::hint::black_box;
use std::path::Path;

fn shipped() -> Vec<Universe> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ar");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("instances/ar")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "night"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| Universe::new(&parse::load(p).expect("shipped instances parse")))
        .collect()
}

fn resolve_shipped(c: &mut Criterion) {
    let nights = shipped();
    let mut g = c.benchmark_group("shipped-instances");
    for (name, kind) in [
        ("direct", EngineKind::Direct),
        ("sat", EngineKind::Sat),
        ("both", EngineKind::Both),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for u in &nights {
                    black_box(ar::solve(u, kind, &Budget::new()).expect("solved"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, resolve_shipped);
criterion_main!(benches);
