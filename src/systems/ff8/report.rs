//! Data for reports: a state's differences from another, a byte replay's trace. Rendering
//! to text is in `cli/ff8.rs`; everything here is data or plain strings.
//!
//! Invariant: [`diff`] is empty exactly when the states are equal.

use super::model::*;
use super::simulate::{challenge, Message, Replay};
use serde::Serialize;

/// The fields of `b` that differ from `a`, as `field: old -> new` strings.
pub fn diff(a: &State, b: &State) -> Vec<String> {
    let mut v = Vec::new();
    for r in Region::ALL {
        if a.rules_of(r) != b.rules_of(r) {
            v.push(format!("{r} rules: {} -> {}", a.rules_of(r), b.rules_of(r)));
        }
    }
    for r in Region::ALL {
        if a.trade[r.id()] != b.trade[r.id()] {
            v.push(format!(
                "{r} trade: {} -> {}",
                a.trade[r.id()],
                b.trade[r.id()]
            ));
        }
    }
    for (k, name) in ["carried", "carried2"].iter().enumerate() {
        if a.carried[k] != b.carried[k] {
            v.push(format!(
                "{name}: {} from {} -> {} from {}",
                a.carried[k].rules, a.carried[k].origin, b.carried[k].rules, b.carried[k].origin
            ));
        }
    }
    if a.spread_from != b.spread_from {
        v.push(format!(
            "spread-from: {} -> {}",
            a.spread_from, b.spread_from
        ));
    }
    if a.amount != b.amount {
        v.push(format!("trading: {} -> {}", a.amount, b.amount));
    }
    if a.points != b.points {
        v.push(format!("points: {} -> {}", a.points, b.points));
    }
    if a.queen != b.queen {
        v.push(format!("queen: {} -> {}", a.queen, b.queen));
    }
    if a.queen_trade != b.queen_trade {
        v.push(format!(
            "queen trade: {} -> {}",
            a.queen_trade, b.queen_trade
        ));
    }
    if a.current != b.current {
        v.push(format!("current: {} -> {}", a.current, b.current));
    }
    v
}

/// One challenge replayed on given bytes.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// `(step, what happened)` in order.
    pub trace: Vec<(u8, String)>,
    /// The message boxes.
    pub messages: Vec<Message>,
    /// The state after the challenge.
    pub state: State,
    /// What changed.
    pub changes: Vec<String>,
    /// Bytes read.
    pub used: usize,
    /// Bytes given but not read.
    pub unused: usize,
    /// Calls after the bytes ran out (answered with 0).
    pub missing: usize,
}

/// Replays `choice` from `s` on `bytes`.
pub fn replay(s: &State, choice: &Choice, bytes: &[u8]) -> ReplayReport {
    let mut d = Replay {
        bytes: bytes.to_vec(),
        ..Replay::default()
    };
    let mut next = *s;
    let messages = challenge(&mut next, choice, &mut d);
    ReplayReport {
        changes: diff(s, &next),
        trace: d.trace,
        messages,
        state: next,
        used: d.used,
        unused: bytes.len() - d.used,
        missing: d.missing,
    }
}
