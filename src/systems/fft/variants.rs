//! Rule variants side by side: the same log replayed under every [`Variant`], to see
//! which theory explains which log.
//!
//! Invariant: a variant explains a log iff its replay confirms every line and, when the
//! scenario gives one, the expected next CR order.

use super::model::{LogLine, Scenario, Variant};
use super::replay::{replay, Replay};

/// The replay of `log` under every variant, in [`Variant::ALL`] order.
pub fn compare(sc: &Scenario, log: &[LogLine]) -> Vec<(Variant, Replay)> {
    Variant::ALL
        .into_iter()
        .map(|v| (v, replay(sc, log, v)))
        .collect()
}
