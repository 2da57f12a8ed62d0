//! What the ?AR benchmarks share: running one engine directly, or both through the
//! harness as `resolve` does.

use gordian::systems::ar::{self, Night};
use gordian::systems::spec::{Budget, Engine};

/// Which engine(s) a benchmark runs: one engine called directly, or both through the
/// harness (raced in parallel, compared), as `resolve` does.
#[derive(Clone, Copy, Debug)]
pub enum EngineKind {
    Direct,
    Sat,
    Both,
}

pub fn solve(u: &Night, kind: EngineKind) {
    let budget = Budget::new();
    match kind {
        EngineKind::Direct => {
            std::hint::black_box(ar::Direct.solve(u, &budget).expect("solved"));
        }
        EngineKind::Sat => {
            std::hint::black_box(ar::Sat.solve(u, &budget).expect("solved"));
        }
        EngineKind::Both => {
            let d = gordian::harness::Differential::<ar::Ar>::only(&["direct", "sat"])
                .expect("engines exist")
                .with_grace(Some(ar::DEFAULT_GRACE));
            let c = d.compare(u, &budget);
            assert!(c.cross_checked(), "the engines agree");
            std::hint::black_box(c);
        }
    }
}
