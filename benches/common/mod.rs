//! What the ?AR benchmarks share: running one engine directly, or both through the
//! harness as `resolve` does.

use gordian::systems::ar::{self, Universe};
use gordian::systems::spec::Budget;

/// Which engine(s) a benchmark runs: one engine called directly, or both through the
/// harness (raced in parallel, compared), as `resolve` does.
#[derive(Clone, Copy, Debug)]
pub enum EngineKind {
    Direct,
    Sat,
    Both,
}

pub fn solve(u: &Universe, kind: EngineKind) {
    let budget = Budget::new();
    match kind {
        EngineKind::Direct => {
            std::hint::black_box(ar::direct::analyse(u, &budget).expect("solved"));
        }
        EngineKind::Sat => {
            std::hint::black_box(ar::encode::analyse(u, &budget).expect("solved"));
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
