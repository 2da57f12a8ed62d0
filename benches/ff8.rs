//! FF8 engines timed on a shipped instance and random ones: one challenge's exact
//! distribution, reachability at k = 1..4 (direct vs SAT), the planner.

use criterion::{criterion_group, criterion_main, Criterion};
use gordian::systems::ff8::model::Scenario;
use gordian::systems::ff8::system::{Direct, Sat};
use gordian::systems::ff8::{gen, parse, search};
use gordian::systems::spec::{Budget, Engine};
use std::path::Path;

fn load(name: &str) -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/ff8")
        .join(name);
    parse::load(&p).expect("shipped instance")
}

fn bench(c: &mut Criterion) {
    let b = Budget::new();
    let spread = load("spread_same.ff8");
    let trading = load("trading_points.ff8");
    c.bench_function("ff8 distribution spread_same", |x| {
        x.iter(|| {
            search::distribution(
                &spread.state,
                &spread.challenges.first().copied().unwrap_or(
                    gordian::systems::ff8::model::Choice {
                        region: gordian::systems::ff8::model::Region::Balamb,
                        opponent: gordian::systems::ff8::model::Opponent::Player,
                        action: gordian::systems::ff8::model::Action::Play,
                    },
                ),
            )
        })
    });
    c.bench_function("ff8 distribution trading_points", |x| {
        x.iter(|| search::distribution(&trading.state, &trading.challenges[0]))
    });
    // Reachability at k = 1..4: queen_adopt's challenge (refused in Balamb, the Queen
    // there) repeated k times; with free choices and trading under way the sets grow by
    // hundreds per challenge (README).
    let adopt = load("queen_adopt.ff8");
    for k in 1..=4 {
        let mut sc = adopt.clone();
        sc.challenges = vec![adopt.challenges[0]; k];
        c.bench_function(&format!("ff8 reach k={k} direct"), |x| {
            x.iter(|| Direct.solve(&sc, &b).unwrap())
        });
        c.bench_function(&format!("ff8 reach k={k} sat"), |x| {
            x.iter(|| Sat.solve(&sc, &b).unwrap())
        });
    }
    let randoms: Vec<Scenario> = (0..20)
        .map(|s| {
            gen::generate(
                &gen::GenArgs {
                    regions: 1,
                    bound: 1,
                    fixed_percent: 100,
                },
                s,
            )
        })
        .collect();
    c.bench_function("ff8 reach random20 direct", |x| {
        x.iter(|| {
            for sc in &randoms {
                Direct.solve(sc, &b).unwrap();
            }
        })
    });
    c.bench_function("ff8 reach random20 sat", |x| {
        x.iter(|| {
            for sc in &randoms {
                Sat.solve(sc, &b).unwrap();
            }
        })
    });
    let goal = spread.goal.clone().unwrap();
    c.bench_function("ff8 plan spread_same N=3", |x| {
        x.iter(|| search::plan(&spread, &goal, 3, 10, 20000, &b).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(300));
    targets = bench
}
criterion_main!(benches);
