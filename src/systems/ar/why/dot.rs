//! Graphviz DOT of a night under one outcome: players as nodes (passives in their label,
//! the dead filled), actions as edges from actor to final target, styled by kind (colour)
//! and by fate (solid: succeeds, dashed: fails, dotted and marked CUT: cut), created
//! effects marked, and each deflected slot with a faint edge to where it was declared.
//!
//! Invariants: the output is one `digraph` whose every node is declared before use and
//! every string is quoted and escaped ([`quote`]); it is a pure function of the night and
//! the outcome (no layout: Graphviz lays it out).

use crate::systems::ar::night::model::ActionKind;
use crate::systems::ar::night::resolution::{Cut, Resolution, TargetMap};
use crate::systems::ar::night::universe::{effect_name, Universe};
use std::fmt::Write as _;

/// A DOT string literal.
pub fn quote(s: &str) -> String {
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

fn colour(k: ActionKind) -> &'static str {
    match k {
        ActionKind::Kill => "red3",
        ActionKind::Block | ActionKind::Jail => "blue3",
        ActionKind::Stop => "darkorange2",
        ActionKind::Protect | ActionKind::Guard | ActionKind::Babysit => "green4",
        ActionKind::Visit | ActionKind::Commute | ActionKind::Hide => "gray40",
        ActionKind::Deflect | ActionKind::Swap | ActionKind::Redirect => "purple3",
    }
}

/// The DOT of the night `u` under resolution `r` of E[`cut`] and its way `way`, with
/// `title` as the graph's label.
pub fn night(u: &Universe, cut: &Cut, r: &Resolution, way: &TargetMap, title: &str) -> String {
    let mut out = String::from("digraph night {\n");
    let _ = writeln!(
        out,
        "  label={};\n  labelloc=t;\n  rankdir=LR;",
        quote(title)
    );
    let _ = writeln!(
        out,
        "  node [shape=box, style=rounded, fontname=\"Helvetica\"];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=10];");
    let dead = r.deaths(u, way);
    for p in 0..u.n_players() as u32 {
        let name = u.player_name(p);
        let mut label = name.to_string();
        for (i, e) in u.effects.iter().enumerate().take(u.n_declared) {
            if e.actor == p && e.action().is_none() {
                let mark = if cut.contains(i) { " (CUT)" } else { "" };
                let _ = write!(label, "\n{} [{}]{mark}", e.kind_word(), e.id);
            }
        }
        let dies = dead.iter().any(|d| d == name);
        if dies {
            label.push_str("\ndies");
        }
        let style = if dies {
            ", style=\"rounded,filled\", fillcolor=\"mistyrose\""
        } else {
            ""
        };
        let _ = writeln!(out, "  {} [label={}{style}];", quote(name), quote(&label));
    }
    for i in r.present.ones() {
        let e = &u.effects[i];
        let Some(k) = e.action() else { continue };
        let is_cut = i < u.n_declared && cut.contains(i);
        let ok = r.succeeded.contains(i);
        let created = i >= u.n_declared;
        let targets: &[u32] = if is_cut { &e.targets } else { &way[i] };
        let mut label = format!("{} [{}]", k.name(), e.id);
        if created {
            label.push_str(" (created)");
        }
        if is_cut {
            label.push_str(" CUT");
        }
        let style = if is_cut {
            "dotted"
        } else if ok {
            "solid"
        } else {
            "dashed"
        };
        for (slot, &t) in targets.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {} -> {} [label={}, color={}, fontcolor={}, style={}{}];",
                quote(u.player_name(e.actor)),
                quote(u.player_name(t)),
                quote(&label),
                colour(k),
                colour(k),
                style,
                if ok { ", penwidth=2" } else { "" }
            );
            let declared = e.targets[slot];
            if !is_cut && declared != t {
                let _ = writeln!(
                    out,
                    "  {} -> {} [label={}, color=gray70, fontcolor=gray50, style=dotted, arrowhead=empty];",
                    quote(u.player_name(e.actor)),
                    quote(u.player_name(declared)),
                    quote(&format!("[{}] declared here, deflected", e.id))
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "  legend [shape=note, label={}];",
        quote(
            "solid: succeeds   dashed: fails   dotted: cut / declared target before a deflection\n\
             red kill, blue block, orange stop, green protect, grey visit, purple deflect"
        )
    );
    out.push_str("}\n");
    out
}

/// A title for the picture: the classification and the outcome's effects.
pub fn title(u: &Universe, classification: &str, r: &Resolution, cut: &Cut, prob: &str) -> String {
    let cut_ids: Vec<String> = cut.ones().map(|i| effect_name(u, i)).collect();
    let mut t = format!("{classification}: outcome with probability {prob}");
    if !cut_ids.is_empty() {
        let _ = write!(t, ", cutting {}", cut_ids.join(", "));
    }
    let _ = r;
    t
}

/// Renders DOT to SVG with Graphviz's `dot`, or says clearly why it could not.
pub fn to_svg(dot: &str) -> Result<Vec<u8>, String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                "Graphviz's `dot` is not installed (install the graphviz package), or use \
                 --dot FILE and render it elsewhere"
                    .to_string()
            } else {
                format!("cannot run Graphviz's `dot`: {e}")
            }
        })?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(dot.as_bytes())
        .map_err(|e| format!("cannot write to `dot`: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`dot` failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`dot` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}
