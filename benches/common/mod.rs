//! What the ?AR benchmarks share: one engine alone, or both compared as `resolve` runs
//! them (in parallel, a 10 s grace), through the library's facade.

use gordian::ar::{self, Night};
use gordian::{Engines, Limits};
use std::time::Duration;

/// Which engine(s) a benchmark runs: one engine alone, or both (raced in parallel,
/// compared), as `resolve` does.
#[derive(Clone, Copy, Debug)]
pub enum EngineKind {
    Direct,
    Sat,
    Both,
}

/// No memory bound (the benchmarks time the engines, never their limits).
pub fn unbounded() -> Limits {
    Limits::new().max_memory(u64::MAX)
}

pub fn solve(u: &Night, kind: EngineKind) {
    let limits = match kind {
        EngineKind::Direct => unbounded().engines(Engines::Direct),
        EngineKind::Sat => unbounded().engines(Engines::Sat),
        EngineKind::Both => unbounded().grace(Duration::from_secs(10)),
    };
    let a = ar::solve(u, &limits).expect("solved");
    if let EngineKind::Both = kind {
        assert!(a.cross_checked(), "the engines agree");
    }
    std::hint::black_box(a);
}

/// A random night of exactly `effects` effects over `players` players, with the kinds
/// but `deflect` and `levels` priority levels (the nights of the README's benchmarks).
pub fn random_night(effects: usize, players: usize, levels: u32, seed: u64) -> Night {
    let knobs = ar::Knobs {
        players,
        effects: Some(effects),
        kinds: ar::ActionKind::ALL[..5].to_vec(),
        priority_levels: levels,
        ..ar::Knobs::default()
    };
    ar::generate(&knobs, seed)
}

/// `count` random 12-player nights of 4 to 12 effects, every kind but `deflect` and
/// passives, three priority levels.
pub fn small_nights(count: u64) -> Vec<Night> {
    (0..count)
        .map(|seed| random_night(4 + (seed % 9) as usize, 12, 3, seed))
        .collect()
}
