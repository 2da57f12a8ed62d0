//! FF8 engines timed on a shipped instance and random ones: one challenge's exact
//! distribution, reachability at k = 1..4 (direct vs SAT), the planner.

use criterion::{criterion_group, criterion_main, Criterion};
use gordian::bench_only::{ff8_plan, ff8_step};
use gordian::ff8::{self, Knobs, Scenario};
use gordian::{Engines, Limits};
use std::path::Path;

fn path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/ff8")
        .join(name)
}

fn load(name: &str) -> Scenario {
    Scenario::from_file(path(name)).expect("shipped instance")
}

fn bench(c: &mut Criterion) {
    let direct = Limits::new().engines(Engines::Direct);
    let sat = Limits::new().engines(Engines::Sat);
    let spread = load("spread_same.ff8");
    let trading = load("trading_points.ff8");
    c.bench_function("ff8 distribution spread_same", |x| {
        x.iter(|| ff8_step(&spread))
    });
    c.bench_function("ff8 distribution trading_points", |x| {
        x.iter(|| ff8_step(&trading))
    });
    // Reachability at k = 1..4: queen_adopt's challenge (refused in Balamb, the Queen
    // there) repeated k times; with free choices and trading under way the sets grow by
    // hundreds per challenge (README).
    let adopt = std::fs::read_to_string(path("queen_adopt.ff8")).expect("shipped instance");
    let challenge = adopt
        .lines()
        .find(|l| l.starts_with("challenge:"))
        .expect("queen_adopt.ff8 has a challenge");
    for k in 1..=4 {
        let more = format!("{challenge}\n").repeat(k - 1);
        let sc = Scenario::parse(&format!("{adopt}{more}")).expect("a valid scenario");
        c.bench_function(&format!("ff8 reach k={k} direct"), |x| {
            x.iter(|| ff8::solve(&sc, &direct).unwrap())
        });
        c.bench_function(&format!("ff8 reach k={k} sat"), |x| {
            x.iter(|| ff8::solve(&sc, &sat).unwrap())
        });
    }
    let knobs = Knobs {
        regions: 1,
        bound: 1,
        fixed_percent: 100,
    };
    let randoms: Vec<Scenario> = (0..20).map(|s| ff8::generate(&knobs, s)).collect();
    c.bench_function("ff8 reach random20 direct", |x| {
        x.iter(|| {
            for sc in &randoms {
                ff8::solve(sc, &direct).unwrap();
            }
        })
    });
    c.bench_function("ff8 reach random20 sat", |x| {
        x.iter(|| {
            for sc in &randoms {
                ff8::solve(sc, &sat).unwrap();
            }
        })
    });
    c.bench_function("ff8 plan spread_same N=3", |x| {
        x.iter(|| ff8_plan(&spread, 3))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(300));
    targets = bench
}
criterion_main!(benches);
