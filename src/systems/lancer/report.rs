//! Answers as data and their rendering: the event tree of an outcome, the final state,
//! JSON with names, the property table across policies.
//!
//! Invariants: rendering never changes an answer; every function returns text or JSON
//! values (only `cli/` prints).

use super::model::*;
use super::search::{Flags, Property};
use serde_json::{json, Value};

/// Name of an origin.
pub fn origin_name(sc: &Scenario, o: Origin) -> String {
    match o {
        Origin::Action => "action".into(),
        Origin::Reaction(r) => sc.reactions[r].name.clone(),
        Origin::Brace(u) => format!("brace of {}", sc.units[u].name),
    }
}

/// One event as a line: `KIND SOURCE -> TARGET [origin] status detail`.
pub fn event_line(sc: &Scenario, e: &Event) -> String {
    let n = |u: UnitId| sc.units[u].name.as_str();
    let who = match e.kind {
        Kind::Structure | Kind::Destroyed | Kind::Brace => n(e.target).to_string(),
        Kind::Move | Kind::Teleport => n(e.source).to_string(),
        Kind::Activate => match &sc.action {
            Action::Activate {
                weapon, targets, ..
            } => {
                let t: Vec<&str> = targets.iter().map(|&t| n(t)).collect();
                format!(
                    "{} {} -> {}",
                    n(e.source),
                    sc.weapons[*weapon].name,
                    t.join(", ")
                )
            }
            Action::Relocate { .. } => n(e.source).to_string(),
        },
        _ => format!("{} -> {}", n(e.source), n(e.target)),
    };
    let detail = match e.detail {
        Detail::None | Detail::Aborted(_) => String::new(),
        Detail::Hit(true) => " hit".into(),
        Detail::Hit(false) => " miss".into(),
        Detail::Dealt(d) => format!(" {d} dealt"),
        Detail::Braced(true) => " braces".into(),
        Detail::Braced(false) => " declines".into(),
        Detail::To(c) => format!(" to {c}"),
    };
    let status = match (e.status, e.detail) {
        (Status::Done, _) => String::new(),
        (Status::Aborted, Detail::Aborted(why)) => format!(" ABORTED ({})", why.words(e.kind)),
        (Status::Aborted, _) => " ABORTED".into(),
    };
    format!(
        "{} {who} [{}]{status}{detail}",
        e.kind.name(),
        origin_name(sc, e.origin)
    )
}

/// The event tree: each event under the one that produced or triggered it, children in
/// resolution order; `#k` is the event's place in resolution order.
pub fn tree(sc: &Scenario, o: &Outcome) -> String {
    fn walk(sc: &Scenario, o: &Outcome, i: usize, depth: usize, out: &mut String) {
        out.push_str(&format!(
            "{}#{} {}\n",
            "  ".repeat(depth),
            i + 1,
            event_line(sc, &o.events[i])
        ));
        for (j, e) in o.events.iter().enumerate() {
            if e.parent == Some(i) {
                walk(sc, o, j, depth + 1, out);
            }
        }
    }
    let mut out = String::new();
    for (i, e) in o.events.iter().enumerate() {
        if e.parent.is_none() {
            walk(sc, o, i, 0, &mut out);
        }
    }
    out
}

/// The final state, one unit per line.
pub fn state(sc: &Scenario, o: &Outcome) -> String {
    let mut out = String::new();
    for (u, s) in sc.units.iter().zip(&o.units) {
        out.push_str(&format!(
            "{}: hp {}/{} structure {}/{} at {}{}{}\n",
            u.name,
            s.hp,
            u.max_hp,
            s.structure,
            u.structure,
            s.at,
            if s.destroyed { " DESTROYED" } else { "" },
            if s.braced { " braced" } else { "" }
        ));
    }
    if o.truncated {
        out.push_str("(truncated: a reaction matched beyond the depth bound)\n");
    }
    out
}

/// An outcome in full: its event tree, the final state, and its abort flags.
pub fn outcome_text(sc: &Scenario, o: &Outcome) -> String {
    tree(sc, o) + &state(sc, o) + &flags_text(sc, o)
}

/// An outcome's abort flags as text, one line each (empty when it has neither): which
/// events of the initiating action aborted, and each event that aborted after its
/// activation had changed the state, with the events that changed it (`#k`: place in
/// resolution order, as in [`tree`]).
pub fn flags_text(sc: &Scenario, o: &Outcome) -> String {
    let f = Flags::of(sc, o);
    let refs = |v: &[usize]| {
        v.iter()
            .map(|i| format!("#{}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    if !f.cancelled.is_empty() {
        out.push_str(&format!(
            "action cancelled: {} aborted\n",
            refs(&f.cancelled)
        ));
    }
    for (a, before) in &f.aborted_after_effect {
        out.push_str(&format!(
            "aborted after effect: #{} aborted after its activation changed the state ({})\n",
            a + 1,
            refs(before)
        ));
    }
    out
}

/// An outcome as JSON, with names.
pub fn outcome_json(sc: &Scenario, o: &Outcome) -> Value {
    let n = |u: UnitId| sc.units[u].name.clone();
    let events: Vec<Value> = o
        .events
        .iter()
        .map(|e| {
            let detail = match e.detail {
                Detail::None => Value::Null,
                Detail::Aborted(why) => json!({"aborted": why.name()}),
                Detail::Hit(h) => json!({"hit": h}),
                Detail::Dealt(d) => json!({"dealt": d}),
                Detail::Braced(b) => json!({"braced": b}),
                Detail::To(c) => json!({"to": [c.x, c.y]}),
            };
            // An activation's target is every target of the action.
            let target = match (&sc.action, e.kind) {
                (Action::Activate { targets, .. }, Kind::Activate) => {
                    json!(targets.iter().map(|&t| n(t)).collect::<Vec<_>>())
                }
                _ => json!(n(e.target)),
            };
            json!({
                "kind": e.kind.name(),
                "source": n(e.source),
                "target": target,
                "origin": origin_name(sc, e.origin),
                "parent": e.parent,
                "status": match e.status { Status::Done => "done", Status::Aborted => "aborted" },
                "detail": detail,
            })
        })
        .collect();
    let units: Vec<Value> = sc
        .units
        .iter()
        .zip(&o.units)
        .map(|(u, s)| {
            json!({"name": u.name, "hp": s.hp, "structure": s.structure, "at": [s.at.x, s.at.y],
                   "destroyed": s.destroyed, "braced": s.braced})
        })
        .collect();
    let f = Flags::of(sc, o);
    json!({
        "events": events,
        "units": units,
        "truncated": o.truncated,
        "cancelled": !f.cancelled.is_empty(),
        "aborted_after_effect": !f.aborted_after_effect.is_empty(),
        "cancelled_events": f.cancelled,
        "aborted_after_effect_events": f.aborted_after_effect.iter()
            .map(|(a, before)| json!({"aborted": a, "after": before}))
            .collect::<Vec<_>>(),
    })
}

/// Which properties some outcome has.
pub fn properties(sc: &Scenario, outcomes: &[Outcome]) -> Vec<(Property, bool)> {
    Property::all(sc)
        .into_iter()
        .map(|p| (p, outcomes.iter().any(|o| p.holds(sc, o))))
        .collect()
}

/// Left-aligned columns, header first.
pub fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<width$}", width = w[i]))
            .collect();
        cells.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for r in rows {
        out.push_str(&line(r));
    }
    out
}
