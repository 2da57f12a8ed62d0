//! Human renderings (data in, text out; the CLI prints them): a round's trace segment by
//! segment, the enumeration with exact probabilities, query answers, fairness analyses.
//! JSON renderings are the serde forms of the data types.
//!
//! Invariant: rendering never changes or recomputes an answer.

use super::fairness::{Analysis, Proof};
use super::model::{ActionOutcome, Postpone, Scenario, SideOrder};
use super::search::{Assumptions, Enumerated};
use super::simulate::{Event, TieRoll};
use std::fmt::Write as _;

/// A side order as names: `Red, Blue`.
pub fn side_order(sc: &Scenario, o: &SideOrder) -> String {
    let names: Vec<&str> = o.iter().map(|&i| sc.sides[i].name.as_str()).collect();
    names.join(", ")
}

/// An action outcome as names: `Ann, Bob (waited); on watch: Cid`.
pub fn action_outcome(sc: &Scenario, o: &ActionOutcome) -> String {
    let mut s: Vec<String> = o
        .order
        .iter()
        .map(|a| {
            let n = &sc.figures[a.figure].name;
            if a.waited {
                format!("{n} (waited)")
            } else {
                n.clone()
            }
        })
        .collect();
    if s.is_empty() {
        s.push("(nobody acts)".into());
    }
    let mut out = s.join(", ");
    if !o.watching.is_empty() {
        let w: Vec<&str> = o
            .watching
            .iter()
            .map(|&f| sc.figures[f].name.as_str())
            .collect();
        let _ = write!(out, "; on watch: {}", w.join(", "));
    }
    out
}

fn rolls(out: &mut String, names: &dyn Fn(usize) -> String, rs: &[TieRoll]) {
    for r in rs {
        let _ = write!(
            out,
            " [d{} for {}: {}{}{}]",
            r.die,
            names(r.contender),
            r.roll,
            if r.replaced { " replaces" } else { "" },
            if r.inconsequential {
                ", inconsequential"
            } else {
                ""
            }
        );
    }
}

/// The trace of events, one line each.
pub fn trace(sc: &Scenario, events: &[Event]) -> String {
    let side = |i: usize| sc.sides[i].name.clone();
    let fig = |i: usize| sc.figures[i].name.clone();
    let mut out = String::new();
    for e in events {
        match e {
            Event::IniRoll {
                side: s,
                die,
                value,
            } => {
                let _ = writeln!(out, "  initiative {}: d6 {die} -> {value}", side(*s));
            }
            Event::SideScan {
                selected,
                rolls: rs,
            } => {
                let _ = write!(out, "  sidMov scan notes {}", side(*selected));
                rolls(&mut out, &side, rs);
                out.push('\n');
            }
            Event::Postpones { side: s } => {
                let why = match sc.sides[*s].postpone {
                    Postpone::Yes => "`postpone once`: once per round",
                    _ => "`postpone maybe`: chose to",
                };
                let _ = writeln!(out, "  {} postpones (SidSeq -1; {why})", side(*s));
            }
            Event::SideMoves { side: s, seq } => {
                let _ = writeln!(out, "  {} moves (SidSeq {seq})", side(*s));
            }
            Event::Segment { number } => {
                let _ = writeln!(out, "  segment {number}");
            }
            Event::Poll {
                figure,
                dx,
                seq,
                rolls: rs,
                decl,
                new_dx,
                rezeroed,
                dice,
                supervenes,
                previous,
            } => {
                let _ = write!(out, "    poll {} (modDX {dx}, FigSeq {seq})", fig(*figure));
                rolls(&mut out, &fig, rs);
                if *rezeroed {
                    let _ = writeln!(
                        out,
                        ": picks {decl} (modDX {new_dx}, below an undeclared figure): \
                         FigSeq re-zeroed, polled again later"
                    );
                    continue;
                }
                let _ = write!(out, ": {decl}");
                if new_dx != dx {
                    let _ = write!(out, " (modDX {new_dx})");
                }
                let _ = write!(out, ", FigDic {dice}");
                if *supervenes {
                    match previous {
                        Some(p) => {
                            let _ = write!(out, ", supervenes {}", fig(*p));
                        }
                        None => out.push_str(", dibFig"),
                    }
                }
                out.push('\n');
            }
            Event::Requery {
                figure,
                decl,
                dice,
                supervenes,
                previous,
            } => {
                let _ = write!(
                    out,
                    "    re-query watcher {}: {decl}, FigDic {dice}",
                    fig(*figure)
                );
                if *supervenes {
                    match previous {
                        Some(p) => {
                            let _ = write!(out, ", supervenes {}", fig(*p));
                        }
                        None => out.push_str(", dibFig"),
                    }
                }
                out.push('\n');
            }
            Event::Acts {
                figure,
                seq,
                at_once,
            } => {
                let _ = writeln!(
                    out,
                    "    {} acts (action {seq}{}); other declarations zeroed",
                    fig(*figure),
                    if *at_once { ", at once" } else { "" }
                );
            }
            Event::RoundEnds { watching } => {
                if watching.is_empty() {
                    out.push_str("  round ends: every figure acted\n");
                } else {
                    let w: Vec<String> = watching.iter().map(|&f| fig(f)).collect();
                    let _ = writeln!(out, "  round ends: only watchers remain ({})", w.join(", "));
                }
            }
        }
    }
    out
}

/// The enumeration: each phase's outcomes with exact probabilities, at most `limit` of
/// each listed (the counts are whole).
pub fn enumeration(
    sc: &Scenario,
    e: &Enumerated,
    cross_checked: Option<bool>,
    limit: usize,
) -> String {
    let mut out = String::new();
    let more = |out: &mut String, n: usize| {
        if n > limit {
            let _ = writeln!(out, "  ... {} more not listed (--limit {limit})", n - limit);
        }
    };
    let _ = writeln!(out, "side orders ({}):", e.sides.len());
    for (o, f) in e.sides.iter().take(limit) {
        let _ = writeln!(
            out,
            "  {:>12}  {}",
            f.probability.to_string(),
            side_order(sc, o)
        );
    }
    more(&mut out, e.sides.len());
    let _ = writeln!(out, "action outcomes ({}):", e.actions.len());
    for (o, f) in e.actions.iter().take(limit) {
        let _ = writeln!(
            out,
            "  {:>12}  {}",
            f.probability.to_string(),
            action_outcome(sc, o)
        );
    }
    more(&mut out, e.actions.len());
    let _ = writeln!(
        out,
        "{} runs simulated; the phases are independent: P(side order, action outcome) is the product",
        e.runs
    );
    out.push_str(&assumptions(&e.assumptions));
    match cross_checked {
        Some(true) => out.push_str("SAT agrees: same reachable side orders and action outcomes\n"),
        Some(false) => out.push_str("SAT DISAGREES\n"),
        None => {}
    }
    out
}

/// What the probabilities assume, one line each: free choices uniform (naming the
/// figures and sides that choose), `postpone once` sides postponing once per round.
pub fn assumptions(a: &Assumptions) -> String {
    let mut out = String::new();
    let mut chooser = Vec::new();
    if !a.choosing_figures.is_empty() {
        chooser.push(format!(
            "each of {}'s declarations in a choice set is picked with 1/n at every poll and re-query",
            a.choosing_figures.join(", ")
        ));
    }
    if !a.postpone_maybe.is_empty() {
        chooser.push(format!(
            "{} (`postpone maybe`) postpone(s) with 1/2 when it could",
            a.postpone_maybe.join(", ")
        ));
    }
    if chooser.is_empty() {
        out.push_str("probabilities assume fair dice; this round has no free choice\n");
    } else {
        let _ = writeln!(
            out,
            "probabilities assume fair dice and {} free choices (no player strategy): {}",
            a.choices,
            chooser.join("; ")
        );
    }
    if !a.postpone_once.is_empty() {
        let _ = writeln!(
            out,
            "`postpone once` (= `yes`): {} postpone(s) once per round, the first time noted while another side could move",
            a.postpone_once.join(", ")
        );
    }
    out
}

/// One fairness analysis.
pub fn analysis(a: &Analysis) -> String {
    let probs: Vec<String> = a.probabilities.iter().map(|p| p.to_string()).collect();
    format!(
        "{:<10} values {:?}: P(selected) = [{}]; {}; expected dice shown {}, inconsequential {}\n",
        a.variant.name(),
        a.values,
        probs.join(", "),
        if a.fair {
            format!("fair (each of {} tied: 1/{})", a.tied.len(), a.tied.len())
        } else {
            "BIASED".to_string()
        },
        a.expected_rolls,
        a.expected_inconsequential
    )
}

/// One exhaustive proof.
pub fn proof(p: &Proof) -> String {
    let mut out = format!(
        "{:<10} {} lists (length 1..{}, values 1..{}): {} biased; max expected inconsequential dice {}\n",
        p.variant.name(),
        p.lists,
        p.max_len,
        p.max_len,
        p.biased,
        p.max_expected_inconsequential
    );
    if let Some(e) = &p.example {
        let _ = write!(out, "           e.g. {}", analysis(e));
    }
    out
}
