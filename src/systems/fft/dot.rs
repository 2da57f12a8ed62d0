//! Graphviz DOT of one SR phase's step flow, from a replayed (or simulated) run: every log
//! line a box labelled with its step and quick-safety, every transition without a line
//! (step 3 or 5 skipped, a mime cycle starting, step 6) an ellipse, in order, with one
//! cluster per slow action (step 1 to step 6) and nodes coloured by step.
//!
//! Invariants: one `digraph`, nodes declared before the edges that use them, every string
//! quoted and escaped; a pure function of the scenario and the run (Graphviz lays it out).

use super::model::Scenario;
use super::report::note_text;
use super::simulate::{Note, Run, Trace};
use std::fmt::Write as _;

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn step_colour(step: u8) -> &'static str {
    match step {
        1 => "lightblue",
        2 => "lightyellow",
        3 => "palegreen",
        4 => "plum",
        _ => "lightsalmon",
    }
}

/// The step flow of `run` as DOT, with `title` as the graph's label.
pub fn step_flow(sc: &Scenario, run: &Run, title: &str) -> String {
    let mut out = String::from("digraph step_flow {\n");
    let _ = writeln!(
        out,
        "  label={};\n  labelloc=t;\n  rankdir=TB;",
        quote(title)
    );
    let _ = writeln!(out, "  node [fontname=\"Helvetica\", fontsize=11];");
    let mut cluster = 0;
    let mut open = false;
    let mut ids = Vec::new();
    for (k, t) in run.trace.iter().enumerate() {
        let id = format!("n{k}");
        if let Trace::Event(e) = t {
            if e.step.number() == 1 {
                if open {
                    out.push_str("  }\n");
                }
                cluster += 1;
                let _ = writeln!(
                    out,
                    "  subgraph cluster_{cluster} {{\n    label={};\n    style=rounded;",
                    quote(&format!("slow action {cluster}"))
                );
                open = true;
            }
        }
        let ind = if open { "    " } else { "  " };
        match t {
            Trace::Event(e) => {
                let label = format!(
                    "{}\nstep {}, safety {}",
                    sc.line_text(&e.line, e.in_mime),
                    e.step.number(),
                    if e.safety { "ON" } else { "OFF" }
                );
                let _ = writeln!(
                    out,
                    "{ind}{id} [shape=box, style=filled, fillcolor={}, label={}];",
                    step_colour(e.step.number()),
                    quote(&label)
                );
            }
            Trace::Note(n) => {
                let shape = if matches!(n, Note::Step6 { .. }) {
                    "doubleoctagon"
                } else {
                    "ellipse"
                };
                let _ = writeln!(
                    out,
                    "{ind}{id} [shape={shape}, fontsize=9, label={}];",
                    quote(&note_text(sc, n))
                );
            }
        }
        ids.push(id);
    }
    if open {
        out.push_str("  }\n");
    }
    for w in ids.windows(2) {
        let _ = writeln!(out, "  {} -> {};", w[0], w[1]);
    }
    out.push_str("}\n");
    out
}
