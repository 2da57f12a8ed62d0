//! Criterion benchmarks: every shipped instance with each engine (the baseline), small-night
//! throughput per engine, classifying and cutting large random paradoxes (solving, and the
//! whole JSON answer), enumerating thousands of resolutions of independent components, and
//! the direct engine's product form on dense random nights (one large component answered
//! as pieces).

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use gordian::ar::{self, Classification, Night};
use gordian::{Engines, Limits};
mod common;

use common::{random_night, small_nights, solve, unbounded, EngineKind};
use std::path::Path;

/// The SAT engine alone.
fn sat() -> Limits {
    unbounded().engines(Engines::Sat)
}

/// The first random night of `effects` effects (three priority levels) that is a paradox.
pub fn large_paradox(effects: usize) -> Night {
    (0..)
        .map(|seed| random_night(effects, effects / 2, 3, seed))
        .find(|n| ar::solve(n, &sat()).is_ok_and(|a| a.classification() == Classification::Paradox))
        .expect("some seed gives a paradox")
}

/// `pairs` disjoint mutual roleblocks: 2^pairs resolutions.
fn mutual_pairs(pairs: usize) -> Night {
    let text: String = (0..pairs)
        .map(|i| format!("A{i} block B{i}\nB{i} block A{i}\n"))
        .collect();
    Night::parse(&text).expect("a valid night")
}

/// One benchmark per engine choice, each resolving every night in `nights`.
fn per_engine(g: &mut BenchmarkGroup<'_, WallTime>, nights: &[Night]) {
    for (name, kind) in [
        ("direct", EngineKind::Direct),
        ("sat", EngineKind::Sat),
        ("both", EngineKind::Both),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for u in nights {
                    solve(u, kind);
                }
            })
        });
    }
}

fn shipped() -> Vec<Night> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ar");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("instances/ar")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "night"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| Night::from_file(p).expect("shipped instances parse"))
        .collect()
}

fn resolve_shipped(c: &mut Criterion) {
    let nights = shipped();
    let mut g = c.benchmark_group("shipped-instances");
    per_engine(&mut g, &nights);
    g.finish();
}

fn throughput(c: &mut Criterion) {
    let nights = small_nights(10_000);
    let mut g = c.benchmark_group("small-nights");
    g.throughput(Throughput::Elements(nights.len() as u64));
    g.sample_size(10);
    per_engine(&mut g, &nights);
    g.finish();
}

fn paradoxes(c: &mut Criterion) {
    let mut g = c.benchmark_group("large-paradox-cuts");
    g.sample_size(10);
    for effects in [100, 300, 1000] {
        let u = large_paradox(effects);
        g.bench_with_input(BenchmarkId::new("sat", effects), &u, |b, u| {
            b.iter(|| solve(u, EngineKind::Sat))
        });
        // What `resolve --engine sat --json` does: solve, then write the whole answer.
        g.bench_with_input(BenchmarkId::new("sat-json", effects), &u, |b, u| {
            b.iter(|| {
                let a = ar::solve(u, &sat()).expect("solved");
                a.write_json(&mut std::io::sink()).expect("written")
            })
        });
    }
    g.finish();
}

fn enumeration(c: &mut Criterion) {
    let mut g = c.benchmark_group("enumerate-mutual-blocks");
    g.sample_size(10);
    for pairs in [8, 12, 14] {
        let u = mutual_pairs(pairs);
        for (name, kind) in [("direct", EngineKind::Direct), ("sat", EngineKind::Sat)] {
            g.bench_with_input(BenchmarkId::new(name, 1 << pairs), &u, |b, u| {
                b.iter(|| solve(u, kind))
            });
        }
    }
    g.finish();
}

/// The first random night of `effects` effects over `effects / 2` players (three levels):
/// one large component, which the direct engine answers as pieces.
fn dense_night(effects: usize) -> Night {
    random_night(effects, effects / 2, 3, 1)
}

fn pieces(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense-night-pieces");
    g.sample_size(10);
    for effects in [2_000, 5_000] {
        let u = dense_night(effects);
        g.bench_with_input(BenchmarkId::new("direct", effects), &u, |b, u| {
            b.iter(|| solve(u, EngineKind::Direct))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    resolve_shipped,
    throughput,
    paradoxes,
    enumeration,
    pieces
);
criterion_main!(benches);
