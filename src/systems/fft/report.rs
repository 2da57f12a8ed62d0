//! Human and JSON renderings of replays, variant tables, enumerations and query answers.
//!
//! Invariants: pure functions from results to text or JSON values (printing is the CLI's
//! job); lines are written in the seed's notation with the seed's indentation (mime lines
//! under their action, reactions under what they react to), so a confirmed log renders
//! as the log itself; JSON names characters, never indices.

use super::model::{Flag, Line, LineKind, Scenario, Variant};
use super::replay::{Divergence, Replay};
use super::search::Enumerated;
use super::simulate::{Note, Outcome, Run, Trace};
use serde_json::{json, Value};
use std::fmt::Write;

fn on_off(safety: bool) -> &'static str {
    if safety {
        "ON"
    } else {
        "OFF"
    }
}

/// The indentation of each line of a log: mime lines 2, reactions 2 more than the line
/// they react to (the previous non-reaction line).
pub fn indents<'a>(lines: impl IntoIterator<Item = &'a Line>) -> Vec<usize> {
    let mut parent = 0;
    lines
        .into_iter()
        .map(|l| match l.kind {
            LineKind::Primary => {
                parent = 0;
                0
            }
            LineKind::Mime => {
                parent = 2;
                2
            }
            LineKind::Reaction => parent + 2,
        })
        .collect()
}

/// Renders a log in the seed's notation, indented as the seed does.
pub fn log_text(sc: &Scenario, lines: &[Line]) -> String {
    let mut in_mime = Vec::with_capacity(lines.len());
    let mut mime = false;
    for l in lines {
        mime = match l.kind {
            LineKind::Primary => false,
            LineKind::Mime => true,
            LineKind::Reaction => mime,
        };
        in_mime.push(mime);
    }
    let mut out = String::new();
    for ((l, ind), m) in lines.iter().zip(indents(lines)).zip(in_mime) {
        let _ = writeln!(out, "{:ind$}{}", "", sc.line_text(l, m));
    }
    out
}

/// The commentary for a note, in the seed's `{...}` style.
pub fn note_text(sc: &Scenario, note: &Note) -> String {
    match note {
        Note::SkipStep3 => "safety ON: step 3 skipped, on to the mime cycle".into(),
        Note::NoQuickTurn => "step 3: nobody holds a quick flag".into(),
        Note::MimeCycle { safety, empty } => {
            if *empty {
                format!(
                    "step 4: last_action empty, no mime acts; safety {}",
                    on_off(*safety)
                )
            } else {
                format!("step 4: mime cycle starts, safety {}", on_off(*safety))
            }
        }
        Note::SkipStep5 => "safety ON: step 5 skipped".into(),
        Note::NoFlags => "step 5: no quick flags, on to step 6".into(),
        Note::Step6 { next } => match next {
            Some(c) => format!(
                "step 6: safety ON; next slow action is {}'s",
                sc.characters[*c].name
            ),
            None => "step 6: safety ON; no slow action left, the SR phase ends".into(),
        },
    }
}

/// Renders a trace: every line with its step and safety, and (with `notes`) the
/// transitions between lines as `{...}` commentary.
pub fn trace_text(sc: &Scenario, trace: &[Trace], notes: bool) -> String {
    let lines: Vec<&Line> = trace
        .iter()
        .filter_map(|t| match t {
            Trace::Event(e) => Some(&e.line),
            Trace::Note(_) => None,
        })
        .collect();
    let ind = indents(lines.iter().copied());
    let mut out = String::new();
    let mut i = 0;
    for t in trace {
        match t {
            Trace::Event(e) => {
                let text = format!("{:w$}{}", "", sc.line_text(&e.line, e.in_mime), w = ind[i]);
                let what = match e.line.kind {
                    LineKind::Reaction => "reaction",
                    LineKind::Mime => "mime",
                    LineKind::Primary => match e.step.number() {
                        1 => "slow action",
                        _ => "quick turn",
                    },
                };
                let _ = writeln!(
                    out,
                    "{text:<28} {{step {} {what}, safety {}}}",
                    e.step.number(),
                    on_off(e.safety)
                );
                i += 1;
            }
            Trace::Note(n) if notes => {
                let _ = writeln!(out, "{:<28} {{{}}}", "", note_text(sc, n));
            }
            Trace::Note(_) => {}
        }
    }
    out
}

/// Names of characters, joined by `, ` (or `(nobody)`).
pub fn names(sc: &Scenario, ids: &[usize]) -> String {
    if ids.is_empty() {
        "(nobody)".into()
    } else {
        ids.iter()
            .map(|&c| sc.characters[c].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The flags held, as `NAME flag` pairs (or `none`).
pub fn flags_text(sc: &Scenario, flags: &[Flag]) -> String {
    let held: Vec<String> = flags
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_set())
        .map(|(c, f)| format!("{} {}", sc.characters[c].name, f.name()))
        .collect();
    if held.is_empty() {
        "none".into()
    } else {
        held.join(", ")
    }
}

fn expected_order_text(sc: &Scenario) -> Option<String> {
    sc.expect_next_cr.as_ref().map(|e| {
        let mut s = names(sc, &e.order);
        if e.prefix {
            s.push_str(", ...");
        }
        s
    })
}

/// One sentence on where a replay diverged.
pub fn divergence_text(d: &Divergence) -> String {
    match (&d.found, d.line_no) {
        (Some(found), Some(line)) => format!(
            "log line {} (file line {line}) `{}`: the model expected {}",
            d.index + 1,
            found.trim(),
            d.expected
        ),
        _ => format!(
            "the log ends after {} lines: the model expected {}",
            d.index, d.expected
        ),
    }
}

/// The human report of one replay.
pub fn replay_text(
    sc: &Scenario,
    file: &str,
    variant: Variant,
    r: &Replay,
    annotate: bool,
) -> String {
    let mut out = String::new();
    match r {
        Replay::Confirmed {
            run,
            next_cr_matches,
        } => {
            let n = run.lines().count();
            let _ = writeln!(
                out,
                "{file}: the {variant} model produces the log ({n} lines)."
            );
            if annotate {
                out.push_str(&trace_text(sc, &run.trace, true));
            }
            let _ = writeln!(out, "flags left: {}", flags_text(sc, &run.flags));
            let _ = write!(out, "next CR order: {}", names(sc, &run.next_cr));
            match (expected_order_text(sc), next_cr_matches) {
                (Some(e), Some(true)) => {
                    let _ = writeln!(out, " (expected {e}: matches)");
                }
                (Some(e), _) => {
                    let _ = writeln!(out, " (expected {e}: DOES NOT MATCH)");
                }
                (None, _) => out.push('\n'),
            }
        }
        Replay::Diverged(d) => {
            let _ = writeln!(
                out,
                "{file}: the {variant} model does NOT produce the log: {}",
                divergence_text(d)
            );
            if annotate {
                let _ = writeln!(out, "the model's run up to there:");
                out.push_str(&trace_text(sc, &d.trace, true));
            }
        }
    }
    out
}

fn line_json(sc: &Scenario, line: &Line, in_mime: bool) -> Value {
    json!({
        "text": sc.line_text(line, in_mime),
        "kind": line.kind,
        "who": sc.characters[line.who].name,
    })
}

fn flags_json(sc: &Scenario, flags: &[Flag]) -> Value {
    Value::Object(
        flags
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_set())
            .map(|(c, f)| (sc.characters[c].name.clone(), json!(f.name())))
            .collect(),
    )
}

fn trace_json(sc: &Scenario, trace: &[Trace]) -> Value {
    Value::Array(
        trace
            .iter()
            .map(|t| match t {
                Trace::Event(e) => {
                    let mut v = line_json(sc, &e.line, e.in_mime);
                    v["step"] = json!(e.step.number());
                    v["safety"] = json!(on_off(e.safety));
                    v
                }
                Trace::Note(n) => json!({ "note": note_text(sc, n) }),
            })
            .collect(),
    )
}

/// The JSON object of one replay.
pub fn replay_json(sc: &Scenario, file: &str, variant: Variant, r: &Replay) -> Value {
    let names_of = |ids: &[usize]| -> Vec<&str> {
        ids.iter()
            .map(|&c| sc.characters[c].name.as_str())
            .collect()
    };
    let expected = sc
        .expect_next_cr
        .as_ref()
        .map(|e| json!({ "order": names_of(&e.order), "prefix": e.prefix }));
    match r {
        Replay::Confirmed {
            run,
            next_cr_matches,
        } => json!({
            "file": file,
            "variant": variant,
            "verdict": "confirmed",
            "explains": r.explains(),
            "trace": trace_json(sc, &run.trace),
            "flags_left": flags_json(sc, &run.flags),
            "next_cr": names_of(&run.next_cr),
            "expected_next_cr": expected,
            "next_cr_matches": next_cr_matches,
        }),
        Replay::Diverged(d) => json!({
            "file": file,
            "variant": variant,
            "verdict": "diverged",
            "explains": false,
            "divergence": {
                "index": d.index,
                "line": d.line_no,
                "found": d.found.as_deref().map(str::trim),
                "expected": d.expected,
                "message": divergence_text(d),
            },
            "trace": trace_json(sc, &d.trace),
        }),
    }
}

/// A short cell for the variants table: `yes`, or why not.
pub fn verdict_cell(r: &Replay) -> String {
    match r {
        Replay::Confirmed {
            next_cr_matches: Some(false),
            ..
        } => "no: next CR order differs".into(),
        Replay::Confirmed { .. } => "yes".into(),
        Replay::Diverged(d) => match d.line_no {
            Some(l) => format!("no: line {l}"),
            None => "no: past the end of the log".into(),
        },
    }
}

/// One outcome: its log, flags left and next CR order.
pub fn outcome_text(sc: &Scenario, o: &Outcome) -> String {
    let mut out = log_text(sc, &o.log);
    let _ = writeln!(out, "  => flags left: {}", flags_text(sc, &o.flags));
    let _ = writeln!(out, "  => next CR order: {}", names(sc, &o.next_cr));
    out
}

/// The JSON object of one outcome.
pub fn outcome_json(sc: &Scenario, o: &Outcome) -> Value {
    json!({
        "log": log_text(sc, &o.log).lines().collect::<Vec<_>>(),
        "flags_left": flags_json(sc, &o.flags),
        "next_cr": o.next_cr.iter().map(|&c| sc.characters[c].name.as_str()).collect::<Vec<_>>(),
    })
}

/// The JSON object of an enumeration.
pub fn enumerated_json(sc: &Scenario, e: &Enumerated) -> Value {
    json!({
        "outcomes": e.outcomes.iter().map(|o| outcome_json(sc, o)).collect::<Vec<_>>(),
        "count": e.outcomes.len(),
        "exceeds_bound": e.exceeds_bound,
        "bound": sc.menus.bound,
    })
}

/// A run's annotated rendering (used for query witnesses).
pub fn run_text(sc: &Scenario, run: &Run) -> String {
    let mut out = trace_text(sc, &run.trace, false);
    let _ = writeln!(out, "  => flags left: {}", flags_text(sc, &run.flags));
    let _ = writeln!(out, "  => next CR order: {}", names(sc, &run.next_cr));
    out
}
