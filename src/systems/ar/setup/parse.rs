//! The `.setup` reader: a night file whose action lines may leave their targets open.
//!
//! ```text
//! players: G1 G2 Doc Cop V1 V2 V3
//! alignment: G1=mafia G2=mafia Doc=town Cop=town V1=town V2=town V3=town
//! faction mafia kill: outside          # one member of `mafia` kills a non-member
//! G2 roleblocker: other optional       # may block anyone but G2, or not act
//! Doc doctor: other
//! Cop cop: outside once
//! V1 bomb                              # a fixed line: in every night as written
//! ```
//!
//! A *choice line* is `PLAYER KIND: TERMS` (the colon ends the kind); a *faction line*
//! is `faction ALIGNMENT KIND: TERMS`. Terms, separated by spaces or commas: `any`,
//! `other` (not the performer), `outside` (not of the performer's alignment), `inside`
//! (of it, not the performer), player names, and `optional` / `once` (not acting is one
//! of the options). Every other line is a night line, read by the night reader with the
//! same line and column numbers (the choice lines are blanked out for it).
//!
//! Invariants: errors are located (file, line, column) like every other format, and a
//! setup that reads without error gives a valid night for every option of every chooser.

use super::model::{Act, Chooser, Performer, Setup};
use crate::systems::ar::night::model::{parse_kind_word, ActionKind, Ensemble, Kind, Mods, Player};
use crate::systems::ar::night::{parse, roles};
use crate::text::lex::{self, Word};
use crate::text::{ParseErrors, Sink};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// At most this many options per chooser (a guard against setups no analysis could run).
pub const MAX_OPTIONS: usize = 1 << 20;

/// A target term after the colon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Any,
    Other,
    Outside,
    Inside,
    Named(Player),
}

/// A choice or faction line, before its options are listed.
struct Line<'a> {
    line: usize,
    faction: Option<Word<'a>>,
    actor: Option<Word<'a>>,
    kind: Word<'a>,
    terms: Vec<Word<'a>>,
}

/// Splits a choice or faction line; `None` for any other line (a night line).
fn choice_line(lineno: usize, text: &str) -> Option<Line<'_>> {
    let ws = lex::line_words(text);
    let (faction, actor, rest) =
        if ws.len() >= 3 && ws[0].text == "faction" && ws[2].text.contains(':') {
            (Some(ws[1]), None, &ws[2..])
        } else if ws.len() >= 2 && !ws[0].text.contains(':') && ws[1].text.contains(':') {
            (None, Some(ws[0]), &ws[1..])
        } else {
            return None;
        };
    let w = rest[0];
    let colon = w.text.find(':').expect("checked");
    let kind = Word {
        col: w.col,
        byte: w.byte,
        text: &w.text[..colon],
    };
    let mut terms = Vec::new();
    let after = &w.text[colon + 1..];
    let after_col = w.col + w.text[..=colon].chars().count();
    for p in lex::pieces(after, after_col, ',') {
        if !p.text.is_empty() {
            terms.push(Word {
                col: p.col,
                byte: 0,
                text: p.text,
            });
        }
    }
    for t in &rest[1..] {
        for p in lex::pieces(t.text, t.col, ',') {
            if !p.text.is_empty() {
                terms.push(Word {
                    col: p.col,
                    byte: 0,
                    text: p.text,
                });
            }
        }
    }
    Some(Line {
        line: lineno,
        faction,
        actor,
        kind,
        terms,
    })
}

/// The action kind a choice's word stands for, or why it cannot be chosen.
fn action_word(word: &str) -> Result<(ActionKind, Mods), String> {
    let role = roles::role(word);
    if let Some(r) = role.filter(|r| r.passive) {
        return Err(format!(
            "`{}` is a passive role: write it as a fixed line, `PLAYER {}`, without a colon",
            r.name, r.name
        ));
    }
    let prim = role.map_or(word, |r| r.primitive);
    match parse_kind_word(prim, false) {
        Ok((Kind::Action(a), m)) => Ok((a, m)),
        Ok((Kind::Passive(_), _)) | Err(_) if parse_kind_word(prim, true).is_ok() => Err(format!(
            "`{word}` is a passive: write it as a fixed line, `PLAYER passive {word}`, without a colon"
        )),
        Ok(_) => Err(format!("`{word}` is not an action")),
        Err(e) if word.contains('[') => Err(e),
        Err(_) => Err(format!(
            "unknown kind or role `{}` (a role such as `doctor`, or a kind such as `kill`, `block[kill]`)",
            word.escape_debug()
        )),
    }
}

/// How many targets a chosen action takes in a setup: 0 (commute), 2 (swap, redirect),
/// else 1 (a deflection's own `deflect T`; one target for kinds that take several).
fn setup_arity(a: ActionKind) -> usize {
    match a.arity() {
        (0, 0) => 0,
        (2, 2) => 2,
        _ => 1,
    }
}

/// A valid id part: the characters names allow, others as `_`.
fn id_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Reads a `.setup` file's text (the line format, or JSON when it starts with `{`).
/// `file` is only used in error messages.
pub fn parse_setup(src: &str, file: &Path) -> Result<Setup, ParseErrors> {
    if lex::strip_bom(src).trim_start().starts_with('{') {
        return parse_setup_json(src, file);
    }
    let sink = Sink::new(src, file);
    let mut skeleton = String::new();
    let mut lines = Vec::new();
    for i in 1..=sink.line_count() {
        let text = sink.line_text(i);
        match choice_line(i, text) {
            Some(l) => lines.push(l),
            None => skeleton.push_str(text),
        }
        skeleton.push('\n');
    }
    // The fixed part, read by the night reader at the same lines and columns.
    let fixed = parse::parse_night(&skeleton, file)?;
    let mut sink = Sink::new(src, file);
    let has_players = (1..=sink.line_count()).any(|i| {
        lex::line_words(sink.line_text(i))
            .first()
            .is_some_and(|w| w.text == "players:" || w.text.starts_with("players:"))
    });
    if !has_players {
        sink.err(
            1,
            1,
            "a setup needs a `players:` line naming every player (`players: G1 Doc V1 V2`)",
        );
        return Err(sink.finish().expect_err("an error was recorded"));
    }
    build(sink, fixed, &lines, src, file, Format::Text)
}

/// Which form a setup was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// The setup of a fixed part and its choice lines, recording every error in `sink`.
fn build(
    mut sink: Sink<'_>,
    fixed: Ensemble,
    lines: &[Line<'_>],
    src: &str,
    file: &Path,
    format: Format,
) -> Result<Setup, ParseErrors> {
    let n = fixed.players.len();
    let align: Vec<Option<&str>> = (0..n).map(|p| fixed.alignment(p as Player)).collect();
    let mut ids: BTreeSet<String> = fixed.effects.iter().map(|e| e.id.clone()).collect();
    let mut named: BTreeSet<Player> = BTreeSet::new();
    let mut choosers = Vec::new();
    for l in lines {
        let (kind, mods) = match action_word(l.kind.text) {
            Ok(k) => k,
            Err(m) => {
                sink.err(l.line, l.kind.col, m);
                continue;
            }
        };
        let performer = match (&l.faction, &l.actor) {
            (Some(f), _) => {
                if !align.contains(&Some(f.text)) {
                    sink.err(
                        l.line,
                        f.col,
                        format!(
                            "no player has the alignment `{}` (give it on an `alignment:` line)",
                            f.text.escape_debug()
                        ),
                    );
                    continue;
                }
                Performer::Faction(f.text.to_string())
            }
            (None, Some(a)) => match fixed.player_index(a.text) {
                Some(p) => Performer::Player(p),
                None => {
                    sink.err(
                        l.line,
                        a.col,
                        format!(
                            "unknown player `{}` (not one of the setup's players)",
                            a.text.escape_debug()
                        ),
                    );
                    continue;
                }
            },
            (None, None) => unreachable!("a choice line has a performer"),
        };
        let mut optional = false;
        let mut terms = Vec::new();
        let mut bad = false;
        for t in &l.terms {
            let term = match t.text {
                "optional" | "once" => {
                    optional = true;
                    continue;
                }
                "any" => Term::Any,
                "other" => Term::Other,
                "outside" => Term::Outside,
                "inside" => Term::Inside,
                name => match fixed.player_index(name) {
                    Some(p) => {
                        named.insert(p);
                        Term::Named(p)
                    }
                    None => {
                        sink.err(
                            l.line,
                            t.col,
                            format!(
                                "`{}` is neither a player nor a target rule (any, other, outside, inside, optional, once)",
                                name.escape_debug()
                            ),
                        );
                        bad = true;
                        continue;
                    }
                },
            };
            terms.push((term, t.col));
        }
        if bad {
            continue;
        }
        let arity = setup_arity(kind);
        let end_col = l
            .terms
            .last()
            .map_or(l.kind.col + l.kind.text.chars().count() + 1, |t| {
                t.col + t.text.chars().count()
            });
        if arity == 0 && !terms.is_empty() {
            sink.err(
                l.line,
                terms[0].1,
                format!("`{}` takes no targets", l.kind.text),
            );
            continue;
        }
        if arity > 0 && terms.is_empty() {
            sink.err(
                l.line,
                end_col,
                format!(
                    "missing targets after `{}:` (a rule such as `other`, `outside`, `any`, or player names)",
                    l.kind.text
                ),
            );
            continue;
        }
        // The performer's alignment, for `inside` / `outside`.
        let relative = terms
            .iter()
            .find(|(t, _)| matches!(t, Term::Inside | Term::Outside));
        if let (Some((_, col)), Performer::Player(p)) = (relative, &performer) {
            if align[*p as usize].is_none() {
                sink.err(
                    l.line,
                    *col,
                    format!(
                        "`inside` and `outside` need {}'s alignment (give it on an `alignment:` line)",
                        fixed.players[*p as usize]
                    ),
                );
                continue;
            }
        }
        let performers: Vec<Player> = match &performer {
            Performer::Player(p) => vec![*p],
            Performer::Faction(f) => (0..n as Player)
                .filter(|&p| align[p as usize] == Some(f.as_str()))
                .collect(),
        };
        let mut options: Vec<Option<Act>> = Vec::new();
        if optional {
            options.push(None);
        }
        for &m in &performers {
            let side = match &performer {
                Performer::Faction(f) => Some(f.as_str()),
                Performer::Player(p) => align[*p as usize],
            };
            let allowed: Vec<Player> = (0..n as Player)
                .filter(|&q| {
                    terms.iter().any(|(t, _)| match t {
                        Term::Any => true,
                        Term::Other => q != m,
                        Term::Outside => align[q as usize] != side,
                        Term::Inside => q != m && align[q as usize] == side,
                        Term::Named(x) => q == *x,
                    })
                })
                .collect();
            match arity {
                0 => options.push(Some(Act {
                    actor: m,
                    targets: Vec::new(),
                })),
                1 => options.extend(allowed.iter().map(|&t| {
                    Some(Act {
                        actor: m,
                        targets: vec![t],
                    })
                })),
                _ => {
                    for &x in &allowed {
                        for &y in &allowed {
                            // A swap is symmetric: each pair once.
                            let keep = if kind == ActionKind::Swap {
                                x < y
                            } else {
                                x != y
                            };
                            if keep {
                                options.push(Some(Act {
                                    actor: m,
                                    targets: vec![x, y],
                                }));
                            }
                        }
                    }
                }
            }
            if options.len() > MAX_OPTIONS {
                break;
            }
        }
        if options.len() > MAX_OPTIONS {
            sink.err(
                l.line,
                l.kind.col,
                format!("more than {MAX_OPTIONS} options on one line"),
            );
            continue;
        }
        if options.is_empty() {
            sink.err(
                l.line,
                terms.first().map_or(l.kind.col, |t| t.1),
                "no player fits these targets, so the setup allows no night (add `optional` or widen the rule)",
            );
            continue;
        }
        let owner = match (&l.faction, &l.actor) {
            (Some(f), _) => f.text,
            (None, Some(a)) => a.text,
            (None, None) => unreachable!("a choice line has a performer"),
        };
        let base = l.kind.text.split('[').next().unwrap_or(l.kind.text);
        let stem = format!("{}.{}", id_part(owner), id_part(base));
        let mut id = stem.clone();
        let mut k = 2;
        while ids.contains(&id) {
            id = format!("{stem}.{k}");
            k += 1;
        }
        ids.insert(id.clone());
        let spec = l.terms.iter().map(|t| t.text).collect::<Vec<_>>().join(" ");
        choosers.push(Chooser {
            id,
            word: l.kind.text.to_string(),
            kind,
            mods,
            performer,
            spec,
            options,
        });
    }
    sink.finish()?;
    let (class, role) = classes(&fixed, &choosers, &named, src, file, format);
    Ok(Setup {
        fixed,
        choosers,
        class,
        role,
    })
}

/// The kind word a fixed passive was written with (`bomb`, `bulletproof`), read back from
/// its line; the kind's own name when the line cannot be read.
fn written_kind(
    src: &str,
    file: &Path,
    e: &crate::systems::ar::night::model::Effect,
    format: Format,
) -> String {
    let from_line = e.span.and_then(|s| {
        let sink = Sink::new(src, file);
        let line = sink.line_text(s.line);
        if format == Format::Json {
            // `"kind": "bomb"` after the effect's start.
            let rest = line
                .chars()
                .skip(s.col.saturating_sub(1))
                .collect::<String>();
            let after = rest.split_once("\"kind\"")?.1;
            let value = after
                .trim_start()
                .strip_prefix(':')?
                .trim_start()
                .strip_prefix('"')?;
            return value.split_once('"').map(|(k, _)| k.to_string());
        }
        let ws = lex::line_words(line);
        let ws: Vec<&str> = ws
            .iter()
            .map(|w| w.text)
            .skip_while(|w| w.ends_with(':'))
            .collect();
        let i = if ws.get(1) == Some(&"passive") { 2 } else { 1 };
        ws.get(i).map(|w| w.to_string())
    });
    from_line.unwrap_or_else(|| e.kind.to_string())
}

/// Each player's symmetry class and role label.
fn classes(
    fixed: &Ensemble,
    choosers: &[Chooser],
    named: &BTreeSet<Player>,
    src: &str,
    file: &Path,
    format: Format,
) -> (Vec<usize>, Vec<String>) {
    let n = fixed.players.len();
    let mut singled: BTreeSet<Player> = named.clone();
    let mut passives: Vec<Vec<String>> = vec![Vec::new(); n];
    for e in &fixed.effects {
        if e.is_action() {
            singled.insert(e.actor);
            singled.extend(e.targets.iter().copied());
        } else {
            passives[e.actor as usize].push(written_kind(src, file, e, format));
        }
    }
    let mut lines: Vec<Vec<String>> = vec![Vec::new(); n];
    for c in choosers {
        if let Performer::Player(p) = c.performer {
            lines[p as usize].push(format!("{}: {}", c.word, c.spec));
        }
    }
    // A player's class: alignment, choice lines, own passives, and itself when singled out.
    type Signature = (Option<String>, Vec<String>, Vec<String>, Option<Player>);
    let mut sigs: BTreeMap<Signature, usize> = BTreeMap::new();
    let mut class = Vec::with_capacity(n);
    let mut role = Vec::with_capacity(n);
    for p in 0..n {
        let mut ps = passives[p].clone();
        ps.sort();
        let key = (
            fixed.alignment(p as Player).map(str::to_string),
            lines[p].clone(),
            ps.clone(),
            singled.contains(&(p as Player)).then_some(p as Player),
        );
        let next = sigs.len();
        class.push(*sigs.entry(key).or_insert(next));
        let words: Vec<String> = choosers
            .iter()
            .filter(|c| c.performer == Performer::Player(p as Player))
            .map(|c| c.word.clone())
            .chain(ps)
            .collect();
        let align = fixed.alignment(p as Player).unwrap_or("unaligned");
        role.push(if words.is_empty() {
            format!("{align} vanilla")
        } else {
            format!("{align} {}", words.join(" + "))
        });
    }
    (class, role)
}

/// Reads a `.setup` file's bytes (UTF-8, checked and located at the first bad byte).
pub fn parse_setup_bytes(bytes: &[u8], file: &Path) -> Result<Setup, ParseErrors> {
    let text = crate::text::decode_utf8(bytes, file, "setup files")?;
    parse_setup(text, file)
}

/// One entry of a JSON setup's `choices`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonChoice {
    actor: Option<String>,
    faction: Option<String>,
    kind: String,
    #[serde(default)]
    targets: JsonTargets,
    #[serde(default)]
    optional: bool,
}

/// A choice's targets: one rule or name, or a list of them.
#[derive(serde::Deserialize, Default)]
#[serde(untagged)]
enum JsonTargets {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

/// The top level of a JSON setup, as far as the choices go (the night reader reads the
/// rest: `players`, `alignment`, `effects`).
#[derive(serde::Deserialize)]
struct JsonSetup<'a> {
    #[serde(borrow, default)]
    choices: Vec<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    players: Option<&'a serde_json::value::RawValue>,
}

/// Reads the JSON form: a JSON night (`players`, `alignment`, `effects`: the fixed part)
/// with `choices`, each `{"actor": P, "kind": K, "targets": RULES, "optional": B}` or
/// `{"faction": F, ...}`; errors are located at the entry they are about.
fn parse_setup_json(src: &str, file: &Path) -> Result<Setup, ParseErrors> {
    // The night reader ignores the top-level fields it does not know (`choices`); a
    // setup may have no fixed effects, which the reader wants as an empty list: added
    // before the last `}`, past every position an error can point at.
    let fixed = match serde_json::from_str::<serde_json::Value>(lex::strip_bom(src)) {
        Ok(v) if v.get("effects").is_none() && v.is_object() => {
            let at = src.rfind('}').expect("an object ends with `}`");
            let comma = if v.as_object().is_some_and(|o| o.is_empty()) {
                ""
            } else {
                ","
            };
            let with = format!("{}{comma}\"effects\": []{}", &src[..at], &src[at..]);
            parse::parse_json(&with, file)?
        }
        _ => parse::parse_json(src, file)?,
    };
    let mut sink = Sink::new(src, file);
    let text = sink.text();
    let top: JsonSetup<'_> = match serde_json::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            sink.err(e.line(), e.column(), format!("`choices`: {e}"));
            return Err(sink.finish().expect_err("an error was recorded"));
        }
    };
    if top.players.is_none() {
        sink.err(1, 1, "a setup needs `players`, naming every player");
        return Err(sink.finish().expect_err("an error was recorded"));
    }
    // Each entry read, at its line and column; the words borrow `owned`.
    let mut owned: Vec<(usize, usize, JsonChoice)> = Vec::new();
    for raw in &top.choices {
        let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
        let (line, start) = sink.line_at(offset);
        let col = text[start..offset].chars().count() + 1;
        match serde_json::from_str::<JsonChoice>(raw.get()) {
            Ok(c) if c.actor.is_some() == c.faction.is_some() => sink.err(
                line,
                col,
                "a choice has either an `actor` or a `faction`, not both and not neither",
            ),
            Ok(c) => owned.push((line, col, c)),
            Err(e) => {
                // serde's position is inside the entry: the entry's own is given instead.
                let m = e.to_string();
                let m = m.split(" at line ").next().unwrap_or(&m);
                sink.err(line, col, format!("a choice: {m}"));
            }
        }
    }
    fn word(col: usize, text: &str) -> Word<'_> {
        Word { col, byte: 0, text }
    }
    let mut lines = Vec::new();
    for (line, col, c) in &owned {
        let terms: Vec<&String> = match &c.targets {
            JsonTargets::None => Vec::new(),
            JsonTargets::One(t) => vec![t],
            JsonTargets::Many(ts) => ts.iter().collect(),
        };
        let mut terms: Vec<Word<'_>> = terms.into_iter().map(|t| word(*col, t)).collect();
        if c.optional {
            terms.push(word(*col, "optional"));
        }
        lines.push(Line {
            line: *line,
            faction: c.faction.as_deref().map(|f| word(*col, f)),
            actor: c.actor.as_deref().map(|a| word(*col, a)),
            kind: word(*col, &c.kind),
            terms,
        });
    }
    build(sink, fixed, &lines, src, file, Format::Json)
}
