//! Inputs whose structures are deeper than any thread's stack would allow a recursive
//! search to go, through the library facade: a cycle of 200,000 blocks is one strongly
//! connected component of 200,000 effects (one path of a depth-first search), and every
//! engine answers it. The nights are generated here, not committed.
//!
//! The expected answers are worked by hand from the rules (docs/ar.md; the shipped
//! `instances/ar/even-block-cycle-*.night` and `odd-block-cycle-*.night` work the small
//! cases the same way).

use gordian::ar::{self, Classification};
use gordian::{Engines, Error, Limits};
use std::collections::BTreeSet;
use std::time::Duration;

/// `P0 block P1`, ..., `P(n-1) block P0`: effect `e(i+1)` is `Pi block P(i+1)`.
fn block_cycle(n: usize) -> ar::Night {
    let mut text = String::from("players:");
    for i in 0..n {
        text.push_str(&format!(" P{i}"));
    }
    text.push('\n');
    for i in 0..n {
        text.push_str(&format!("P{i} block P{}\n", (i + 1) % n));
    }
    ar::Night::parse(&text).expect("a valid night")
}

/// `e(i+1)` (`Pi block P(i+1)`) fails exactly when `ei` (`P(i-1) block Pi`, the block on
/// its actor) succeeds, and `e1` exactly when `en` does: around the cycle "succeeds" and
/// "fails" alternate. With n even that closes up in two ways, the odd-numbered blocks
/// succeeding or the even-numbered ones; nothing is created and nothing redirected, so
/// these are the two resolutions, each with one way: a quasi-paradox. Nobody kills, so
/// nobody dies.
#[test]
fn a_cycle_of_200000_blocks_resolves_with_every_engine() {
    let n = 200_000;
    let night = block_cycle(n);
    let odd: BTreeSet<String> = (1..=n).step_by(2).map(|i| format!("e{i}")).collect();
    let even: BTreeSet<String> = (2..=n).step_by(2).map(|i| format!("e{i}")).collect();
    for engines in [Engines::Direct, Engines::Sat, Engines::Both] {
        let a = ar::solve(&night, &Limits::new().engines(engines))
            .unwrap_or_else(|e| panic!("{engines:?}: {e}"));
        assert_eq!(a.classification(), Classification::QuasiParadox);
        assert_eq!(a.resolution_count(), 2u32.into(), "{engines:?}");
        let found: BTreeSet<BTreeSet<String>> =
            a.resolutions().map(|r| r.into_iter().collect()).collect();
        assert_eq!(found, BTreeSet::from([odd.clone(), even.clone()]));
        assert!(a.death_probabilities().is_empty());
        assert_eq!(a.cross_checked(), engines == Engines::Both);
    }
}

/// An odd cycle cannot alternate: whichever a block does, going round makes it do the
/// opposite, so there is no resolution (a paradox). Cutting one block leaves a chain,
/// which resolves exactly one way (the block after the cut succeeds, the next fails, and
/// so on), and cutting nothing does not: every optimal cut is one block, all at priority
/// 2, and there are as many optimal cuts as blocks.
#[test]
fn an_odd_cycle_of_blocks_is_a_paradox_cut_anywhere() {
    let n = 1_001;
    let night = block_cycle(n);
    let a = ar::solve(&night, &Limits::new()).expect("answered");
    assert!(a.cross_checked());
    assert_eq!(a.classification(), Classification::Paradox);
    assert_eq!(a.resolution_count(), 0u32.into());
    assert_eq!(a.cut_cost(), Some(vec![(2, 1)]));
    let cuts: BTreeSet<Vec<String>> = a.optimal_cuts().collect();
    let expected: BTreeSet<Vec<String>> = (1..=n).map(|i| vec![format!("e{i}")]).collect();
    assert_eq!(cuts, expected);
}

/// An odd cycle of 200,001 blocks is a paradox with 200,001 optimal cuts, each with a
/// resolution of 200,001 effects: far more than the time given here. Every engine stops
/// at the timeout (or the memory bound) with that error, and none overflows its stack
/// on the way (an overflow aborts the whole test process).
#[test]
fn an_odd_cycle_of_200001_blocks_ends_at_the_limit_without_overflow() {
    let night = block_cycle(200_001);
    let t = Duration::from_secs(2);
    // The error itself says the run stopped at the limit rather than finishing; how soon
    // after the limit it stops is measured by the benchmarks, not asserted here (a busy
    // machine stretches it).
    for engines in [Engines::Direct, Engines::Sat, Engines::Both] {
        let e = ar::solve(&night, &Limits::new().engines(engines).timeout(t)).unwrap_err();
        assert!(
            matches!(e, Error::Timeout(_) | Error::Limit { .. }),
            "{engines:?}: {e}"
        );
    }
}
