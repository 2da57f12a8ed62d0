//! Parses and validates FFT turn-flow scenario files (`.fft`) into a [`Scenario`], writes
//! scenarios back ([`to_fft`]), and parses single log lines in the seed's notation
//! ([`parse_log_line`]).
//!
//! This module owns the `.fft` format (documented in full in `instances/fft/README.md`)
//! and establishes every invariant of a validated [`Scenario`] listed in the `model`
//! module: indices in range; names unique, valid, and never another name with an `m`/`r`
//! prefix; at most one reaction per character; at most one slow action per character,
//! `slow` sorted by the actors' list positions; target lists sorted by list position,
//! duplicate-free (empty = miss); action indices in range, the built-in action kinds first.
//! It also fixes the defaults: `ct 0`, the mime-target menu "every single character" when
//! no `mime-targets` line is given, a wait-only quick menu, no per-character menus,
//! `bound` [`DEFAULT_BOUND`] (at most [`MAX_BOUND`]). Per-character menus (`mime-targets NAME: ...`,
//! `quick-menu NAME: ...`) are keyed by a character (a mime, for mime targets), at most
//! one line per character and menu, each entry list checked like the global one.
//!
//! Errors are [`ParseError`]s (shared with the ?AR parser): file, 1-based line and column
//! (in characters) of the offending token, and the line itself. Errors are collected
//! across lines (at most [`MAX_ERRORS`]), sorted by position. No input panics
//! (property-tested with random bytes and random lines of the grammar's tokens), and
//! whatever parses round-trips through [`to_fft`]. Parsing is linear in the file: names,
//! teams and action kinds are looked up in hash maps, repeated entries found in hash
//! sets, and once the error sink is full no more entries are checked.
//!
//! The parser checks names and notation only. Whether a log is what the turn-flow model
//! produces (a mime line by a character who is not a mime, a reaction that can not fire,
//! lines in the wrong order) is the replay's question, not a parse error.
//!
//! # The format in brief
//!
//! ```text
//! char AGR team ramza critical-quick ct 100   # one per character, in list order
//! action cure spell                           # extra action kinds: spell, damage, quick
//! slow AGR - qs - miss                        # slow actions resolving in the SR phase
//! next-cr RAF, LAV, ...                       # expected next CR order (`...`: a prefix)
//! mime-targets REI | MEL,REI                  # enumeration menus (global defaults)
//! mime-targets RAD: REI                       # RAD's own target sets
//! quick-menu attack - miss | qs - RAM
//! quick-menu MEL:                             # MEL's quick turns: only wait
//! bound 8
//! log                                         # the observed log, up to `end`
//! AGR - qs - miss     {commentary
//!   mRAD - mqs - REI
//!     rREI - mcq
//! end
//! ```
//!
//! `#` and `{` both start a comment that runs to the end of the line (`{` is the seed's
//! commentary notation). Lines end at `\n`, `\r\n` or a bare `\r`, and a leading
//! byte-order mark is skipped (the policy of every format, [`crate::text::lex`]). Keywords are lowercase and start their line; the remaining lines
//! may come in any order, except that `char` lines give the character list in order.

use super::model::{
    ActionId, ActionKind, Body, CharId, Character, ExpectedOrder, Flag, Line, LineKind, LogLine,
    Menus, QuickChoice, Reaction, Scenario, SlowAction, DEFAULT_BOUND, MAX_BOUND,
};
use crate::text::lex::{self, words, Located, NameRule, NotACount, Piece, Word};
use crate::text::{decode_utf8, read_limited, Sink};
use crate::text::{LoadError, ParseErrors};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The words that start a line outside the log.
const KEYWORDS: &[&str] = &[
    "char",
    "action",
    "slow",
    "next-cr",
    "mime-targets",
    "quick-menu",
    "bound",
    "log",
    "end",
];

/// The attribute keywords of a `char` line.
const CHAR_ATTRIBUTES: &[&str] = &["team", "mime", "critical-quick", "counter-magic", "ct"];

// ---------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------

/// Parses and validates an `.fft` file's text. `file` is only used in error messages.
pub fn parse_fft(src: &str, file: &Path) -> Result<Scenario, ParseErrors> {
    let mut cx = Sink::new(src, file);
    let raw = read(&mut cx);
    let sc = build(&mut cx, raw);
    cx.finish().map(|()| sc)
}

/// Like [`parse_fft`] on raw bytes (for example standard input): content that is not
/// UTF-8 is a located error at the first invalid byte.
pub fn parse_bytes(bytes: &[u8], file: &Path) -> Result<Scenario, ParseErrors> {
    parse_fft(decode_utf8(bytes, file, ".fft files")?, file)
}

/// Reads and parses an `.fft` file. Files larger than
/// [`MAX_FILE_BYTES`](crate::text::MAX_FILE_BYTES) are rejected as a [`LoadError::Io`]
/// error; content that is not UTF-8 is a located parse error.
pub fn load(path: &Path) -> Result<Scenario, LoadError> {
    Ok(parse_bytes(&read_limited(path, ".fft files")?, path)?)
}

/// Parses one log line in the seed's notation (`AGR - qs - miss`, `  mRAD - mqs - REI`,
/// `rMEL - mcq`, `REI - wait`) against `sc`'s character and action names. Indentation,
/// a `{ ...` commentary and a `# ...` comment are ignored. The error is a one-line
/// message naming the offending token.
#[cfg(test)]
pub fn parse_log_line(sc: &Scenario, text: &str) -> Result<Line, String> {
    let code = code_of(text);
    if code.trim().is_empty() {
        return Err(
            "empty log line: expected `WHO - wait`, `WHO - ACTION - TARGETS` or `rWHO - cq`".into(),
        );
    }
    read_line(&Known::new(sc), code, 1, LineCtx::Log)
        .map(|(line, _)| line)
        .map_err(|(_, msg)| msg)
}

/// The mime-target menu used when a file has no `mime-targets` line: every single
/// character of a list of `n`, in list order.
pub fn default_mime_targets(n: usize) -> Vec<Vec<CharId>> {
    (0..n).map(|c| vec![c]).collect()
}

/// The name rule of `.fft` files: ASCII letters, digits and `_` (`-`, `,`, `|`, `:` and
/// `.` belong to the notation: `A - qs - B,C`, `next-cr A, ...`).
pub const NAMES: NameRule = NameRule {
    unicode: false,
    punct: "",
};

/// Whether `s` can be a character, team or action name: `[A-Za-z0-9_]+`.
pub fn is_valid_name(s: &str) -> bool {
    NAMES.is_name(s)
}

/// Writes a scenario as an `.fft` file: the `char` lines, `action` lines for the kinds
/// after the built-ins, the slow actions, `next-cr`, the menus (`mime-targets` only when
/// it is not the default, then one `mime-targets NAME:` line per mime override; the
/// `quick-menu` when not empty, then one `quick-menu NAME:` line per override; overrides
/// keyed by no character, or mime overrides of a non-mime, are left out), `bound`, and
/// the log (indented: mime lines by two spaces,
/// reactions two more than the line they react to; quick spells written `mqs` in a mime
/// cycle), without comments. For a validated scenario (see the module invariants; team
/// indices in order of first use, the built-in kinds first) [`parse_fft`] reads it back
/// to an equal scenario, except for [`LogLine::line_no`], [`LogLine::text`] and
/// [`ExpectedOrder::line_no`]. Never panics; out-of-range indices are written `?`.
pub fn to_fft(sc: &Scenario) -> String {
    use std::fmt::Write;
    let name = |c: CharId| sc.characters.get(c).map_or("?", |ch| ch.name.as_str());
    let action = |a: ActionId, in_mime: bool| match sc.actions.get(a) {
        Some(k) if k.quick && in_mime && k.name == "qs" => "mqs",
        Some(k) => k.name.as_str(),
        None => "?",
    };
    let targets = |ts: &[CharId]| {
        if ts.is_empty() {
            "miss".to_string()
        } else {
            ts.iter().map(|&t| name(t)).collect::<Vec<_>>().join(",")
        }
    };
    let mut out = String::new();
    for c in &sc.characters {
        let team = sc.teams.get(c.team).map_or("?", |t| t.as_str());
        let _ = write!(out, "char {} team {team}", c.name);
        if c.mime {
            out.push_str(" mime");
        }
        if let Some(r) = c.reaction {
            let _ = write!(out, " {}", r.name());
        }
        if c.ct != 0 {
            let _ = write!(out, " ct {}", c.ct);
        }
        out.push('\n');
    }
    for k in sc.actions.iter().skip(ActionKind::builtins().len()) {
        let _ = write!(out, "action {}", k.name);
        for (on, word) in [(k.spell, "spell"), (k.damage, "damage"), (k.quick, "quick")] {
            if on {
                let _ = write!(out, " {word}");
            }
        }
        out.push('\n');
    }
    for s in &sc.slow {
        let _ = writeln!(
            out,
            "slow {} - {} - {}",
            name(s.actor),
            action(s.action, false),
            targets(&s.targets)
        );
    }
    if let Some(e) = &sc.expect_next_cr {
        let mut items: Vec<&str> = e.order.iter().map(|&c| name(c)).collect();
        if e.prefix {
            items.push("...");
        }
        out.push_str("next-cr");
        if !items.is_empty() {
            out.push(' ');
            out.push_str(&items.join(", "));
        }
        out.push('\n');
    }
    // `KEY`, or `KEY NAME:`, then the entries (if any) after a space.
    let menu_line = |out: &mut String, head: String, entries: Vec<String>| {
        out.push_str(&head);
        if !entries.is_empty() {
            out.push(' ');
            out.push_str(&entries.join(" | "));
        }
        out.push('\n');
    };
    let quick_entries = |menu: &[QuickChoice]| -> Vec<String> {
        menu.iter()
            .map(|q| match q {
                QuickChoice::Wait => "wait".to_string(),
                QuickChoice::Act {
                    action: a,
                    targets: t,
                } => format!("{} - {}", action(*a, false), targets(t)),
            })
            .collect()
    };
    if sc.menus.mime_targets != default_mime_targets(sc.characters.len()) {
        let entries = sc.menus.mime_targets.iter().map(|t| targets(t)).collect();
        menu_line(&mut out, "mime-targets".into(), entries);
    }
    for (&c, menu) in &sc.menus.mime_targets_for {
        // Overrides the format can not state (not a mime, no such character) are left out.
        if sc.characters.get(c).is_some_and(|ch| ch.mime) {
            let entries = menu.iter().map(|t| targets(t)).collect();
            menu_line(&mut out, format!("mime-targets {}:", name(c)), entries);
        }
    }
    if !sc.menus.quick.is_empty() {
        menu_line(
            &mut out,
            "quick-menu".into(),
            quick_entries(&sc.menus.quick),
        );
    }
    for (&c, menu) in &sc.menus.quick_for {
        if c < sc.characters.len() {
            menu_line(
                &mut out,
                format!("quick-menu {}:", name(c)),
                quick_entries(menu),
            );
        }
    }
    let _ = writeln!(out, "bound {}", sc.menus.bound);
    if let Some(log) = &sc.log {
        out.push_str("log\n");
        let mut parent = LineKind::Primary;
        for l in log {
            let l = &l.line;
            let (indent, in_mime) = match l.kind {
                LineKind::Primary => (0, false),
                LineKind::Mime => (2, true),
                LineKind::Reaction => {
                    if parent == LineKind::Mime {
                        (4, true)
                    } else {
                        (2, false)
                    }
                }
            };
            if l.kind != LineKind::Reaction {
                parent = l.kind;
            }
            let prefix = match l.kind {
                LineKind::Primary => "",
                LineKind::Mime => "m",
                LineKind::Reaction => "r",
            };
            let _ = write!(out, "{:indent$}{prefix}{}", "", name(l.who));
            match &l.body {
                Body::Wait => out.push_str(" - wait"),
                Body::Critical(f) => {
                    let _ = write!(out, " - {}", f.name());
                }
                Body::Act {
                    action: a,
                    targets: t,
                } => {
                    let _ = write!(out, " - {} - {}", action(*a, in_mime), targets(t));
                }
            }
            out.push('\n');
        }
        out.push_str("end\n");
    }
    out
}

// ---------------------------------------------------------------------------------------
// Source positions, words, pieces and the error sink
// ---------------------------------------------------------------------------------------

/// A scenario's characters and action kinds with their names indexed, so that every name
/// in the file is looked up in constant time (parsing stays linear in the file). Reads as
/// the scenario otherwise.
struct Known<'s> {
    sc: &'s Scenario,
    char_ids: HashMap<&'s str, CharId>,
    action_ids: HashMap<&'s str, ActionId>,
}

impl<'s> Known<'s> {
    fn new(sc: &'s Scenario) -> Known<'s> {
        let mut chars = HashMap::with_capacity(sc.characters.len());
        for (i, c) in sc.characters.iter().enumerate() {
            chars.entry(c.name.as_str()).or_insert(i);
        }
        let mut actions = HashMap::with_capacity(sc.actions.len());
        for (i, a) in sc.actions.iter().enumerate() {
            actions.entry(a.name.as_str()).or_insert(i);
        }
        Known {
            sc,
            char_ids: chars,
            action_ids: actions,
        }
    }

    /// As [`Scenario::char_id`].
    fn char_id(&self, name: &str) -> Option<CharId> {
        self.char_ids.get(name).copied()
    }

    /// As [`Scenario::action_id`] (`mqs` is `qs`).
    fn action_id(&self, name: &str) -> Option<ActionId> {
        let name = if name == "mqs" { "qs" } else { name };
        self.action_ids.get(name).copied()
    }
}

impl std::ops::Deref for Known<'_> {
    type Target = Scenario;

    fn deref(&self) -> &Scenario {
        self.sc
    }
}

/// The part of a line before its comment (`#`, [`lex::code`]) or commentary (`{`).
fn code_of(line: &str) -> &str {
    let code = lex::code(line);
    code.find('{').map_or(code, |p| &code[..p])
}

/// The single word of a non-empty piece (an error at the second word otherwise).
fn single_word<'a>(p: &Piece<'a>, hint: &str) -> Result<&'a str, Located> {
    match lex::single(p.text, p.col) {
        Ok(_) => Ok(p.text),
        Err(w) => Err((w.col, format!("unexpected `{}`{hint}", w.text))),
    }
}

/// The value of a decimal count (`digits` only) of at most `max`, or why it is not one.
fn count<T>(text: &str, max: T) -> Result<T, String>
where
    T: std::str::FromStr + std::fmt::Display + PartialOrd + Copy,
{
    lex::count(text, max).map_err(|why| match why {
        NotACount::TooLarge => format!("it is too large (the maximum is {max})"),
        NotACount::Negative => "it can not be negative".into(),
        NotACount::NotDigits => "expected a non-negative integer".into(),
    })
}

// ---------------------------------------------------------------------------------------
// Pass 1: lines into raw declarations
// ---------------------------------------------------------------------------------------

/// A `char` line as read.
struct RawChar<'a> {
    line: usize,
    name: Word<'a>,
    team: Option<Word<'a>>,
    /// A `team` attribute was given but is bad (already reported).
    team_bad: bool,
    mime: bool,
    reaction: Option<Reaction>,
    ct: u32,
}

/// An `action` line as read.
struct RawAction<'a> {
    line: usize,
    name: Word<'a>,
    kind: ActionKind,
}

/// The text after a keyword, for pass 2.
#[derive(Clone, Copy)]
struct Rest<'a> {
    line: usize,
    /// The text after the keyword (comment stripped).
    code: &'a str,
    /// Column of the first character of `code`.
    base: usize,
}

/// A per-character menu line (`mime-targets NAME: ...`, `quick-menu NAME: ...`) as read.
struct Override<'a> {
    /// The character's name and its column; `None` if it is unusable (reported).
    name: Option<(&'a str, usize)>,
    /// The text after the colon.
    rest: Rest<'a>,
}

/// Splits the text after a menu keyword into a per-character override (`NAME: ...`), or
/// returns `None` for a global menu line (no colon). A missing or multi-word name is
/// reported (and the override keeps no name).
fn read_override<'a>(cx: &mut Sink<'_>, rest: Rest<'a>, key: &str) -> Option<Override<'a>> {
    let colon = rest.code.find(':')?;
    let before = &rest.code[..colon];
    let colon_col = rest.base + before.chars().count();
    let after = Rest {
        line: rest.line,
        code: &rest.code[colon + 1..],
        base: colon_col + 1,
    };
    let ws = words(before, rest.base);
    let name = match ws.as_slice() {
        [] => {
            cx.err(
                rest.line,
                colon_col,
                format!(
                    "missing character name before `:` (a per-character menu is                      `{key} NAME: ...`)"
                ),
            );
            None
        }
        [w] => Some((w.text, w.col)),
        [_, w, ..] => {
            cx.err(
                rest.line,
                w.col,
                format!(
                    "unexpected `{}` (a per-character menu is `{key} NAME: ...`, one name)",
                    w.text
                ),
            );
            None
        }
    };
    Some(Override { name, rest: after })
}

/// A file as read, before names are resolved.
#[derive(Default)]
struct Raw<'a> {
    chars: Vec<RawChar<'a>>,
    actions: Vec<RawAction<'a>>,
    slow: Vec<Rest<'a>>,
    next_cr: Option<Rest<'a>>,
    mime_targets: Option<Rest<'a>>,
    quick_menu: Option<Rest<'a>>,
    /// `mime-targets NAME: ...` lines.
    mime_overrides: Vec<Override<'a>>,
    /// `quick-menu NAME: ...` lines.
    quick_overrides: Vec<Override<'a>>,
    bound: Option<(usize, usize)>,
    /// The log's lines: (line number, comment-stripped text).
    log: Option<Vec<(usize, &'a str)>>,
}

fn read<'a>(cx: &mut Sink<'a>) -> Raw<'a> {
    let mut raw = Raw::default();
    // `Some((line, col, keep))` inside a log section.
    let mut in_log: Option<(usize, usize, bool)> = None;
    let mut log_line: Option<usize> = None;
    let mut single: HashMap<&'static str, usize> = HashMap::new();
    for i in 0..cx.line_count() {
        if cx.full() {
            break;
        }
        let lineno = i + 1;
        let text = cx.line_text(lineno);
        let code = code_of(text);
        let ws = words(code, 1);
        let Some(&kw) = ws.first() else {
            continue;
        };
        let end_col = ws.last().map_or(1, Word::end_col);
        if let Some((_, _, keep)) = in_log {
            if kw.text == "end" {
                if let Some(w) = ws.get(1) {
                    cx.err(
                        lineno,
                        w.col,
                        format!("unexpected `{}` after `end`", w.text),
                    );
                }
                in_log = None;
            } else if keep {
                if let Some(log) = raw.log.as_mut() {
                    log.push((lineno, code));
                }
            }
            continue;
        }
        let rest = Rest {
            line: lineno,
            code: &code[kw.byte + kw.text.len()..],
            base: kw.end_col(),
        };
        let mut once = |cx: &mut Sink<'a>, key: &'static str| -> bool {
            if let Some(first) = single.get(key) {
                cx.err(
                    lineno,
                    kw.col,
                    format!("second `{key}` line (the first is line {first})"),
                );
                false
            } else {
                single.insert(key, lineno);
                true
            }
        };
        match kw.text {
            "char" => {
                if let Some(c) = read_char(cx, lineno, &ws, end_col) {
                    raw.chars.push(c);
                }
            }
            "action" => {
                if let Some(a) = read_action(cx, lineno, &ws, end_col) {
                    raw.actions.push(a);
                }
            }
            "slow" => raw.slow.push(rest),
            "next-cr" => {
                if once(cx, "next-cr") {
                    raw.next_cr = Some(rest);
                }
            }
            "mime-targets" => match read_override(cx, rest, "mime-targets") {
                Some(o) => raw.mime_overrides.push(o),
                None => {
                    if once(cx, "mime-targets") {
                        raw.mime_targets = Some(rest);
                    }
                }
            },
            "quick-menu" => match read_override(cx, rest, "quick-menu") {
                Some(o) => raw.quick_overrides.push(o),
                None => {
                    if once(cx, "quick-menu") {
                        raw.quick_menu = Some(rest);
                    }
                }
            },
            "bound" => {
                let first = once(cx, "bound");
                match ws.get(1) {
                    None => cx.err(lineno, end_col, "missing number after `bound`"),
                    Some(w) => match count::<usize>(w.text, MAX_BOUND) {
                        Ok(n) => {
                            if let Some(extra) = ws.get(2) {
                                cx.err(
                                    lineno,
                                    extra.col,
                                    format!("unexpected `{}` after the bound", extra.text),
                                );
                            } else if first {
                                raw.bound = Some((lineno, n));
                            }
                        }
                        Err(why) => {
                            cx.err(lineno, w.col, format!("invalid bound `{}`: {why}", w.text))
                        }
                    },
                }
            }
            "log" => {
                if let Some(w) = ws.get(1) {
                    cx.err(
                        lineno,
                        w.col,
                        format!(
                            "unexpected `{}` after `log` (log lines start on the next line)",
                            w.text
                        ),
                    );
                }
                let keep = match log_line {
                    Some(first) => {
                        cx.err(
                            lineno,
                            kw.col,
                            format!("second `log` section (the first starts at line {first})"),
                        );
                        false
                    }
                    None => {
                        log_line = Some(lineno);
                        raw.log = Some(Vec::new());
                        true
                    }
                };
                in_log = Some((lineno, kw.col, keep));
            }
            "end" => cx.err(lineno, kw.col, "`end` without a `log` line before it"),
            other => {
                let lower = other.to_lowercase();
                let hint = if KEYWORDS.contains(&lower.as_str()) {
                    format!(" (keywords are lowercase: `{lower}`)")
                } else if code.contains('-') {
                    " (log lines go between a `log` line and an `end` line)".to_string()
                } else {
                    format!(" (expected one of {})", quoted(KEYWORDS))
                };
                cx.err(lineno, kw.col, format!("unknown keyword `{other}`{hint}"));
            }
        }
    }
    if let Some((line, col, _)) = in_log {
        cx.err(
            line,
            col,
            "this `log` section has no `end` line".to_string(),
        );
    }
    raw
}

/// `a`, `b` or `c`.
fn quoted(words: &[&str]) -> String {
    let q: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} or {last}", init.join(", ")),
    }
}

/// The name a `char` or `action` line (`ws`) declares, a `what` name, and whether it
/// follows [`NAMES`]; `None` when it is missing. Either problem is reported.
fn declared_name<'a>(
    cx: &mut Sink<'_>,
    line: usize,
    ws: &[Word<'a>],
    end_col: usize,
    what: &str,
) -> Option<(Word<'a>, bool)> {
    let Some(&name) = ws.get(1) else {
        cx.err(
            line,
            end_col,
            format!("missing {what} name after `{}`", ws[0].text),
        );
        return None;
    };
    let ok = is_valid_name(name.text);
    if !ok {
        cx.err(
            line,
            name.col,
            format!(
                "invalid {what} name `{}` (names are ASCII letters, digits and `_`)",
                name.text
            ),
        );
    }
    Some((name, ok))
}

/// A `char` line: `char NAME team TEAM [mime] [critical-quick|counter-magic] [ct N]`.
/// `None` when the name itself is unusable (reported).
fn read_char<'a>(
    cx: &mut Sink<'_>,
    line: usize,
    ws: &[Word<'a>],
    end_col: usize,
) -> Option<RawChar<'a>> {
    let (name, mut ok) = declared_name(cx, line, ws, end_col, "character")?;
    if ok && (name.text == "miss" || name.text == "end") {
        let why = if name.text == "miss" {
            "it is the empty target list"
        } else {
            "it ends the log"
        };
        cx.err(
            line,
            name.col,
            format!("`{}` can not be a character name ({why})", name.text),
        );
        ok = false;
    }
    let mut c = RawChar {
        line,
        name,
        team: None,
        team_bad: false,
        mime: false,
        reaction: None,
        ct: 0,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 2;
    while i < ws.len() {
        let w = ws[i];
        i += 1;
        if CHAR_ATTRIBUTES.contains(&w.text) {
            if seen.contains(&w.text) {
                cx.err(line, w.col, format!("`{}` given twice", w.text));
            } else {
                // At most one entry per attribute: the check stays constant-time.
                seen.push(w.text);
            }
        }
        match w.text {
            "team" => match ws.get(i) {
                Some(t) if is_valid_name(t.text) && !CHAR_ATTRIBUTES.contains(&t.text) => {
                    i += 1;
                    if c.team.is_none() {
                        c.team = Some(*t);
                    }
                }
                Some(t) if CHAR_ATTRIBUTES.contains(&t.text) => {
                    cx.err(
                        line,
                        t.col,
                        format!(
                            "missing team name after `team` (`{}` is an attribute)",
                            t.text
                        ),
                    );
                    c.team_bad = true;
                }
                Some(t) => {
                    i += 1;
                    cx.err(
                        line,
                        t.col,
                        format!(
                            "invalid team name `{}` (names are ASCII letters, digits and `_`)",
                            t.text
                        ),
                    );
                    c.team_bad = true;
                }
                None => {
                    cx.err(line, end_col, "missing team name after `team`");
                    c.team_bad = true;
                }
            },
            "mime" => c.mime = true,
            "critical-quick" | "counter-magic" => {
                let r = if w.text == "critical-quick" {
                    Reaction::CriticalQuick
                } else {
                    Reaction::CounterMagic
                };
                match c.reaction {
                    Some(prev) if prev != r => cx.err(
                        line,
                        w.col,
                        format!(
                            "a character has at most one reaction (`{}` already has `{}`)",
                            name.text,
                            prev.name()
                        ),
                    ),
                    _ => c.reaction = Some(r),
                }
            }
            "ct" => match ws.get(i) {
                Some(v) => {
                    i += 1;
                    match count::<u32>(v.text, u32::MAX) {
                        Ok(n) => c.ct = n,
                        Err(why) => cx.err(line, v.col, format!("invalid CT `{}`: {why}", v.text)),
                    }
                }
                None => cx.err(line, end_col, "missing number after `ct`"),
            },
            other => cx.err(
                line,
                w.col,
                format!(
                    "unknown character attribute `{other}` (expected {})",
                    quoted(CHAR_ATTRIBUTES)
                ),
            ),
        }
    }
    if c.team.is_none() && !c.team_bad {
        cx.err(
            line,
            name.col,
            format!("character `{}` has no team (add `team NAME`)", name.text),
        );
    }
    ok.then_some(c)
}

/// An `action` line: `action NAME [spell] [damage] [quick]`.
fn read_action<'a>(
    cx: &mut Sink<'_>,
    line: usize,
    ws: &[Word<'a>],
    end_col: usize,
) -> Option<RawAction<'a>> {
    let (name, mut ok) = declared_name(cx, line, ws, end_col, "action")?;
    if ok && ["wait", "cq", "mcq", "mqs", "miss"].contains(&name.text) {
        cx.err(
            line,
            name.col,
            format!(
                "`{}` is a keyword of the log notation, not an action name",
                name.text
            ),
        );
        ok = false;
    } else if ok && ActionKind::builtins().iter().any(|k| k.name == name.text) {
        cx.err(
            line,
            name.col,
            format!(
                "`{}` is a built-in action kind; it can not be redeclared",
                name.text
            ),
        );
        ok = false;
    }
    let mut kind = ActionKind {
        name: name.text.to_string(),
        spell: false,
        damage: false,
        quick: false,
    };
    for w in &ws[2..] {
        let flag = match w.text {
            "spell" => &mut kind.spell,
            "damage" => &mut kind.damage,
            "quick" => &mut kind.quick,
            other => {
                cx.err(
                    line,
                    w.col,
                    format!(
                        "unknown action property `{other}` (expected `spell`, `damage` or `quick`)"
                    ),
                );
                continue;
            }
        };
        if *flag {
            cx.err(line, w.col, format!("`{}` given twice", w.text));
        }
        *flag = true;
    }
    ok.then_some(RawAction { line, name, kind })
}

// ---------------------------------------------------------------------------------------
// Pass 2: names resolved, references checked
// ---------------------------------------------------------------------------------------

fn build(cx: &mut Sink<'_>, raw: Raw<'_>) -> Scenario {
    let mut sc = Scenario {
        teams: Vec::new(),
        characters: Vec::new(),
        actions: ActionKind::builtins(),
        slow: Vec::new(),
        log: None,
        expect_next_cr: None,
        menus: Menus::default(),
    };
    // Characters, in list order (names and teams looked up in hash maps: linear).
    let mut char_lines: Vec<(usize, usize)> = Vec::new();
    let mut char_ids: HashMap<&str, CharId> = HashMap::new();
    let mut team_ids: HashMap<&str, usize> = HashMap::new();
    for c in &raw.chars {
        if let Some(&first) = char_ids.get(c.name.text) {
            cx.err(
                c.line,
                c.name.col,
                format!(
                    "duplicate character `{}` (first declared at line {})",
                    c.name.text, char_lines[first].0
                ),
            );
            continue;
        }
        let team = match c.team {
            Some(t) => *team_ids.entry(t.text).or_insert_with(|| {
                sc.teams.push(t.text.to_string());
                sc.teams.len() - 1
            }),
            None => 0,
        };
        char_ids.insert(c.name.text, sc.characters.len());
        sc.characters.push(Character {
            name: c.name.text.to_string(),
            team,
            mime: c.mime,
            reaction: c.reaction,
            ct: c.ct,
        });
        char_lines.push((c.line, c.name.col));
    }
    for (i, c) in sc.characters.iter().enumerate() {
        for (prefix, what) in [('m', "mime"), ('r', "reaction")] {
            if let Some(base) = c.name.strip_prefix(prefix) {
                if char_ids.contains_key(base) {
                    let (line, col) = char_lines[i];
                    cx.err(
                        line,
                        col,
                        format!(
                            "name `{}` collides with the {what} notation for `{base}` \
                             (`{prefix}{base}` in a log)",
                            c.name
                        ),
                    );
                }
            }
        }
    }
    // Declared action kinds.
    let mut action_lines: HashMap<String, usize> = HashMap::new();
    for a in raw.actions {
        if let Some(first) = action_lines.get(a.name.text) {
            cx.err(
                a.line,
                a.name.col,
                format!(
                    "duplicate action `{}` (first declared at line {first})",
                    a.name.text
                ),
            );
            continue;
        }
        action_lines.insert(a.name.text.to_string(), a.line);
        sc.actions.push(a.kind);
    }
    // From here on names are looked up through `known` (hash maps).
    let known = Known::new(&sc);
    // Slow actions.
    let mut slow_lines: HashMap<CharId, usize> = HashMap::new();
    let mut slow = Vec::new();
    for r in &raw.slow {
        if cx.full() {
            break;
        }
        if r.code.trim().is_empty() {
            cx.err(
                r.line,
                r.base,
                "missing slow action after `slow` (expected `ACTOR - ACTION - TARGETS`)",
            );
            continue;
        }
        match read_line(&known, r.code, r.base, LineCtx::Slow) {
            Ok((line, who_col)) => {
                if let Some(first) = slow_lines.get(&line.who) {
                    cx.err(
                        r.line,
                        who_col,
                        format!(
                            "second slow action for `{}` (the first is line {first}; at most \
                             one per character)",
                            sc.characters[line.who].name
                        ),
                    );
                    continue;
                }
                slow_lines.insert(line.who, r.line);
                if let Body::Act { action, targets } = line.body {
                    slow.push(SlowAction {
                        actor: line.who,
                        action,
                        targets,
                    });
                }
            }
            Err((col, msg)) => cx.err(r.line, col, msg),
        }
    }
    slow.sort_by_key(|s| s.actor);
    // Expected next CR order.
    let expect = raw.next_cr.and_then(|r| read_next_cr(cx, &known, r));
    // Menus.
    let mime_targets = match raw.mime_targets {
        Some(r) => read_mime_targets(cx, &known, r),
        None => default_mime_targets(sc.characters.len()),
    };
    let quick = raw
        .quick_menu
        .map(|r| read_quick_menu(cx, &known, r))
        .unwrap_or_default();
    let mime_targets_for = read_overrides(
        cx,
        &known,
        &raw.mime_overrides,
        "mime-targets",
        read_mime_targets,
    );
    let quick_for = read_overrides(
        cx,
        &known,
        &raw.quick_overrides,
        "quick-menu",
        read_quick_menu,
    );
    let bound = raw.bound.map_or(DEFAULT_BOUND, |(_, n)| n);
    // The log.
    let log = raw.log.map(|lines| {
        let mut out = Vec::new();
        for (line_no, code) in lines {
            if cx.full() {
                break;
            }
            if code.trim().is_empty() {
                continue;
            }
            match read_line(&known, code, 1, LineCtx::Log) {
                Ok((line, _)) => out.push(LogLine {
                    line_no,
                    text: code.trim().to_string(),
                    line,
                }),
                Err((col, msg)) => {
                    let first = code.split_whitespace().next().unwrap_or("");
                    let hint = if KEYWORDS.contains(&first) {
                        format!(" (is the log's `end` line missing before this `{first}` line?)")
                    } else {
                        String::new()
                    };
                    cx.err(line_no, col, format!("{msg}{hint}"));
                }
            }
        }
        out
    });
    sc.slow = slow;
    sc.expect_next_cr = expect;
    sc.menus = Menus {
        mime_targets,
        mime_targets_for,
        quick,
        quick_for,
        bound,
    };
    sc.log = log;
    sc
}

/// `next-cr A, B, C` or `next-cr A, B, ...`.
fn read_next_cr(cx: &mut Sink<'_>, sc: &Known<'_>, r: Rest<'_>) -> Option<ExpectedOrder> {
    let mut e = ExpectedOrder {
        order: Vec::new(),
        prefix: false,
        line_no: r.line,
    };
    if r.code.trim().is_empty() {
        return Some(e);
    }
    let ps = lex::pieces(r.code, r.base, ',');
    let mut ok = true;
    let mut listed: HashSet<CharId> = HashSet::new();
    for (i, p) in ps.iter().enumerate() {
        let word = if p.text.is_empty() {
            Err((
                p.col,
                "missing name (an empty entry between commas)".to_string(),
            ))
        } else {
            single_word(p, " (separate the names with `,`)")
        };
        let word = match word {
            Ok(w) => w,
            Err((col, msg)) => {
                cx.err(r.line, col, msg);
                ok = false;
                continue;
            }
        };
        if word == "..." {
            if i + 1 == ps.len() {
                e.prefix = true;
            } else {
                cx.err(r.line, p.col, "`...` must be the last entry");
                ok = false;
            }
            continue;
        }
        match sc.char_id(word) {
            Some(c) if !listed.insert(c) => {
                cx.err(
                    r.line,
                    p.col,
                    format!("`{word}` appears twice in the expected order"),
                );
                ok = false;
            }
            Some(c) => e.order.push(c),
            None => {
                cx.err(r.line, p.col, format!("unknown character `{word}`"));
                ok = false;
            }
        }
    }
    ok.then_some(e)
}

/// The per-character menus of one kind (`key`: `mime-targets` or `quick-menu`), each
/// entry list read by `entries`: the name must be a character (a mime, for
/// `mime-targets`), with at most one such line per character. The entries of a line
/// with a bad name are still checked.
fn read_overrides<T>(
    cx: &mut Sink<'_>,
    sc: &Known<'_>,
    lines: &[Override<'_>],
    key: &str,
    entries: impl Fn(&mut Sink<'_>, &Known<'_>, Rest<'_>) -> Vec<T>,
) -> BTreeMap<CharId, Vec<T>> {
    let mut out = BTreeMap::new();
    let mut first: HashMap<CharId, usize> = HashMap::new();
    for o in lines {
        if cx.full() {
            break;
        }
        let list = entries(cx, sc, o.rest);
        let Some((name, col)) = o.name else {
            continue;
        };
        let line = o.rest.line;
        let Some(c) = sc.char_id(name) else {
            cx.err(line, col, format!("unknown character `{name}`"));
            continue;
        };
        if let Some(f) = first.get(&c) {
            cx.err(
                line,
                col,
                format!("second `{key}` line for `{name}` (the first is line {f})"),
            );
            continue;
        }
        first.insert(c, line);
        if key == "mime-targets" && !sc.characters[c].mime {
            cx.err(
                line,
                col,
                format!("{name} is not a mime (only a mime can have its own `mime-targets`)"),
            );
            continue;
        }
        out.insert(c, list);
    }
    out
}

/// `mime-targets T | T | ...`, each T a target list (not `miss`).
fn read_mime_targets(cx: &mut Sink<'_>, sc: &Known<'_>, r: Rest<'_>) -> Vec<Vec<CharId>> {
    let mut out: Vec<Vec<CharId>> = Vec::new();
    if r.code.trim().is_empty() {
        return out;
    }
    let mut listed: HashSet<Vec<CharId>> = HashSet::new();
    for p in lex::pieces(r.code, r.base, '|') {
        if cx.full() {
            break;
        }
        if p.text == "miss" {
            cx.err(
                r.line,
                p.col,
                "a miss is always possible: list only target sets (an empty `mime-targets` \
                 line means mimes always miss)",
            );
            continue;
        }
        match read_targets(sc, &p) {
            Ok(t) if listed.contains(&t) => cx.err(
                r.line,
                p.col,
                format!("target set `{}` listed twice", sc.targets_text(&t)),
            ),
            Ok(t) => {
                listed.insert(t.clone());
                out.push(t);
            }
            Err((col, msg)) => cx.err(r.line, col, msg),
        }
    }
    out
}

/// `quick-menu E | E | ...`, each E `wait` (ignored) or `ACTION - TARGETS`.
fn read_quick_menu(cx: &mut Sink<'_>, sc: &Known<'_>, r: Rest<'_>) -> Vec<QuickChoice> {
    let mut out: Vec<QuickChoice> = Vec::new();
    if r.code.trim().is_empty() {
        return out;
    }
    let mut listed: HashSet<QuickChoice> = HashSet::new();
    for p in lex::pieces(r.code, r.base, '|') {
        if cx.full() {
            break;
        }
        if p.text == "wait" {
            continue;
        }
        match read_quick_entry(sc, &p) {
            Ok(q) if listed.contains(&q) => cx.err(r.line, p.col, "entry listed twice"),
            Ok(q) => {
                listed.insert(q.clone());
                out.push(q);
            }
            Err((col, msg)) => cx.err(r.line, col, msg),
        }
    }
    out
}

fn read_quick_entry(sc: &Known<'_>, p: &Piece<'_>) -> Result<QuickChoice, Located> {
    if p.text.is_empty() {
        return Err((
            p.col,
            "empty entry (expected `wait` or `ACTION - TARGETS`)".into(),
        ));
    }
    let ps = lex::pieces(p.text, p.col, '-');
    let a = &ps[0];
    if a.text.is_empty() {
        return Err((a.col, "missing action before `-`".into()));
    }
    let name = single_word(a, " (a quick-menu entry is `ACTION - TARGETS` or `wait`)")?;
    let action = match name {
        "wait" | "cq" | "mcq" => {
            return Err((
                a.col,
                format!(
                "`{name}` takes no targets (a quick-menu entry is `ACTION - TARGETS` or `wait`)"
            ),
            ))
        }
        _ => lookup_action(sc, name, a.col)?,
    };
    let Some(t) = ps.get(1) else {
        return Err((
            a.col + name.chars().count(),
            format!("missing ` - TARGETS` after `{name}` (write `miss` for a miss)"),
        ));
    };
    if let Some(extra) = ps.get(2) {
        return Err((
            extra.sep_col,
            "unexpected `-` (expected `ACTION - TARGETS`)".into(),
        ));
    }
    let targets = read_targets(sc, t)?;
    Ok(QuickChoice::Act { action, targets })
}

/// Where a line is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineCtx {
    /// In the log: any line of the notation.
    Log,
    /// After `slow`: `ACTOR - ACTION - TARGETS` only.
    Slow,
}

fn lookup_action(sc: &Known<'_>, name: &str, col: usize) -> Result<ActionId, Located> {
    sc.action_id(name).ok_or_else(|| {
        let known: Vec<&str> = sc.actions.iter().map(|k| k.name.as_str()).collect();
        (
            col,
            format!(
                "unknown action `{name}` (known: {}; declare others with an `action` line)",
                known.join(", ")
            ),
        )
    })
}

/// Reads `WHO - wait`, `WHO - ACTION - TARGETS` or `WHO - cq|mcq` from `code` (comment
/// stripped, not blank; its first character at column `base`). Returns the line and the
/// column of WHO.
fn read_line(
    sc: &Known<'_>,
    code: &str,
    base: usize,
    ctx: LineCtx,
) -> Result<(Line, usize), Located> {
    let form = match ctx {
        LineCtx::Log => "a log line is `WHO - wait`, `WHO - ACTION - TARGETS` or `rWHO - cq`",
        LineCtx::Slow => "a slow action is `ACTOR - ACTION - TARGETS`",
    };
    let ps = lex::pieces(code, base, '-');
    let who_p = ps[0];
    if ps.len() < 2 {
        let ws = words(who_p.text, who_p.col);
        let col = ws
            .get(1)
            .map_or(who_p.col + who_p.text.chars().count(), |w| w.col);
        return Err((col, format!("expected ` - `: {form}")));
    }
    if who_p.text.is_empty() {
        return Err((who_p.col, "missing name before `-`".into()));
    }
    let who_name = single_word(&who_p, &format!(" ({form})"))?;
    let who_col = who_p.col;
    let (kind, who) = match sc.char_id(who_name) {
        Some(c) => (LineKind::Primary, c),
        None => {
            let prefixed = [('m', LineKind::Mime), ('r', LineKind::Reaction)]
                .into_iter()
                .find_map(|(p, k)| {
                    let base = who_name.strip_prefix(p)?;
                    Some((k, sc.char_id(base)?))
                });
            match prefixed {
                Some(_) if ctx == LineCtx::Slow => {
                    return Err((
                        who_col,
                        format!(
                            "a slow action's actor is a plain character name (`{who_name}` is \
                             mime or reaction notation)"
                        ),
                    ))
                }
                Some(kw) => kw,
                None => return Err((who_col, format!("unknown character `{who_name}`"))),
            }
        }
    };
    let body_p = ps[1];
    if body_p.text.is_empty() {
        return Err((body_p.col, "missing action after `-`".into()));
    }
    let body_name = single_word(&body_p, &format!(" ({form})"))?;
    let body_col = body_p.col;
    let nothing_after = |what: &str| -> Result<(), Located> {
        match ps.get(2) {
            Some(p) => Err((p.sep_col, format!("nothing may follow `{what}`"))),
            None => Ok(()),
        }
    };
    let body = match body_name {
        "wait" => {
            nothing_after("wait")?;
            if ctx == LineCtx::Slow {
                return Err((body_col, "`wait` is not a slow action".into()));
            }
            match kind {
                LineKind::Primary => Body::Wait,
                LineKind::Mime => {
                    return Err((
                        body_col,
                        "a mime line can not `wait` (a mime repeats the last action)".into(),
                    ))
                }
                LineKind::Reaction => {
                    return Err((
                        body_col,
                        "a reaction line can not `wait` (a reaction that does not fire is not \
                         written)"
                            .into(),
                    ))
                }
            }
        }
        "cq" | "mcq" => {
            nothing_after(body_name)?;
            if kind != LineKind::Reaction || ctx == LineCtx::Slow {
                return Err((
                    body_col,
                    format!(
                        "`{body_name}` is a critical-quick reaction: only a reaction line \
                         (`rNAME - {body_name}`) can say it"
                    ),
                ));
            }
            Body::Critical(if body_name == "cq" {
                Flag::Cq
            } else {
                Flag::Mcq
            })
        }
        _ => {
            let action = lookup_action(sc, body_name, body_col)?;
            let Some(t) = ps.get(2) else {
                return Err((
                    body_col + body_name.chars().count(),
                    format!("missing ` - TARGETS` after `{body_name}` (write `miss` for a miss)"),
                ));
            };
            if let Some(extra) = ps.get(3) {
                return Err((extra.sep_col, format!("unexpected `-` ({form})")));
            }
            let targets = read_targets(sc, t)?;
            Body::Act { action, targets }
        }
    };
    Ok((Line { kind, who, body }, who_col))
}

/// `miss`, or comma-separated character names: sorted by list position, no duplicates.
fn read_targets(sc: &Known<'_>, p: &Piece<'_>) -> Result<Vec<CharId>, Located> {
    if p.text.is_empty() {
        return Err((p.col, "missing targets (write `miss` for a miss)".into()));
    }
    if p.text == "miss" {
        return Ok(Vec::new());
    }
    let mut out: Vec<CharId> = Vec::new();
    let mut listed: HashSet<CharId> = HashSet::new();
    for q in lex::pieces(p.text, p.col, ',') {
        if q.text.is_empty() {
            return Err((
                q.col,
                "missing target name (an empty entry between commas)".into(),
            ));
        }
        let name = single_word(&q, " (separate targets with `,`)")?;
        if name == "miss" {
            return Err((q.col, "`miss` can not be listed with targets".into()));
        }
        match sc.char_id(name) {
            Some(c) if !listed.insert(c) => {
                return Err((q.col, format!("target `{name}` is listed twice")))
            }
            Some(c) => out.push(c),
            None => return Err((q.col, format!("unknown character `{name}`"))),
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::test_util::{
        assert_errors_well_formed, assert_invalid_utf8_error, error_table, Case,
    };
    use crate::text::ParseError;
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn path() -> &'static Path {
        Path::new("t.fft")
    }

    fn ok(src: &str) -> Scenario {
        parse_fft(src, path()).unwrap_or_else(|e| panic!("unexpected errors:\n{e}"))
    }

    fn errs(src: &str) -> Vec<ParseError> {
        match parse_fft(src, path()) {
            Ok(sc) => panic!("{src:?}: expected errors, got {sc:#?}"),
            Err(e) => e.0,
        }
    }

    const ABC: &str = "char A team x ct 100\nchar B team x critical-quick\n\
                       char C team y counter-magic\nchar M team x mime\n";

    fn abc(rest: &str) -> String {
        format!("{ABC}{rest}")
    }

    fn act(action: ActionId, targets: &[CharId]) -> Body {
        Body::Act {
            action,
            targets: targets.to_vec(),
        }
    }

    fn line(kind: LineKind, who: CharId, body: Body) -> Line {
        Line { kind, who, body }
    }

    const QS: ActionId = 0;
    const HASTE: ActionId = 1;
    const DEMI: ActionId = 2;
    const ATTACK: ActionId = 3;

    // ----- the grammar ----------------------------------------------------------------

    #[test]
    fn the_documented_example() {
        let sc = ok("# Seed example 3 ...\n\
             char AGR team ramza critical-quick ct 100\n\
             char RAM team ramza counter-magic ct 100\n\
             char RAD team ramza mime\n\
             char REI   team rafa   critical-quick   # a comment\n\
             char MEL critical-quick team rafa\n\
             action cure spell\n\
             slow RAM - demi - MEL,REI\n\
             slow AGR - qs - miss\n\
             next-cr REI, AGR, RAM, ...\n\
             mime-targets REI | MEL,REI | AGR\n\
             quick-menu attack - miss | wait | attack - AGR | qs - RAM\n\
             bound 5\n\
             log\n\
             AGR - qs - miss       {qsafety ON, since nobody ...\n\
             \x20                     {so we skip step 3\n\
             \x20 mRAD - mqs - REI    {REI gets an mqs-flag\n\
             RAM - demi - REI, MEL\n\
             \x20   rREI - mcq\n\
             \x20 rMEL - cq\n\
             REI - wait\n\
             \x20   rRAM - cure - AGR\n\
             end\n");
        assert_eq!(sc.teams, ["ramza", "rafa"]);
        let names: Vec<&str> = sc.characters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["AGR", "RAM", "RAD", "REI", "MEL"]);
        let c = &sc.characters;
        assert_eq!(
            (c[0].team, c[0].mime, c[0].reaction, c[0].ct),
            (0, false, Some(Reaction::CriticalQuick), 100)
        );
        assert_eq!(c[1].reaction, Some(Reaction::CounterMagic));
        assert_eq!((c[2].mime, c[2].reaction, c[2].ct), (true, None, 0));
        assert_eq!((c[3].team, c[4].team), (1, 1));
        assert_eq!(c[4].reaction, Some(Reaction::CriticalQuick));
        assert_eq!(sc.actions.len(), 5);
        assert_eq!(
            sc.actions[4],
            ActionKind {
                name: "cure".into(),
                spell: true,
                damage: false,
                quick: false
            }
        );
        // Sorted by the actors' list positions; targets sorted by list position.
        assert_eq!(
            sc.slow,
            [
                SlowAction {
                    actor: 0,
                    action: QS,
                    targets: vec![]
                },
                SlowAction {
                    actor: 1,
                    action: DEMI,
                    targets: vec![3, 4]
                },
            ]
        );
        let e = sc.expect_next_cr.as_ref().unwrap();
        assert_eq!(
            (e.order.clone(), e.prefix, e.line_no),
            (vec![3, 0, 1], true, 10)
        );
        assert_eq!(sc.menus.mime_targets, [vec![3], vec![3, 4], vec![0]]);
        assert_eq!(
            sc.menus.quick,
            [
                QuickChoice::Act {
                    action: ATTACK,
                    targets: vec![]
                },
                QuickChoice::Act {
                    action: ATTACK,
                    targets: vec![0]
                },
                QuickChoice::Act {
                    action: QS,
                    targets: vec![1]
                },
            ]
        );
        assert_eq!(sc.menus.bound, 5);
        let log = sc.log.as_ref().unwrap();
        let lines: Vec<Line> = log.iter().map(|l| l.line.clone()).collect();
        use LineKind::{Mime, Primary};
        assert_eq!(
            lines,
            [
                line(Primary, 0, act(QS, &[])),
                line(Mime, 2, act(QS, &[3])),
                line(Primary, 1, act(DEMI, &[3, 4])),
                line(LineKind::Reaction, 3, Body::Critical(Flag::Mcq)),
                line(LineKind::Reaction, 4, Body::Critical(Flag::Cq)),
                line(Primary, 3, Body::Wait),
                line(LineKind::Reaction, 1, act(4, &[0])),
            ]
        );
        let nos: Vec<usize> = log.iter().map(|l| l.line_no).collect();
        assert_eq!(nos, [15, 17, 18, 19, 20, 21, 22]);
        assert_eq!(log[0].text, "AGR - qs - miss");
        assert_eq!(log[1].text, "mRAD - mqs - REI");
    }

    #[test]
    fn defaults() {
        let sc = ok("char A team x\nchar B team y\n");
        assert_eq!(sc.characters[0].ct, 0);
        assert_eq!(sc.characters[1].team, 1);
        assert_eq!(sc.actions, ActionKind::builtins());
        assert!(sc.slow.is_empty() && sc.log.is_none() && sc.expect_next_cr.is_none());
        assert_eq!(sc.menus.mime_targets, [vec![0], vec![1]]);
        assert!(sc.menus.quick.is_empty());
        assert_eq!(sc.menus.bound, DEFAULT_BOUND);
        // An empty file is a valid, empty scenario; so is an empty log.
        assert_eq!(ok("").characters.len(), 0);
        assert_eq!(ok("log\nend").log, Some(vec![]));
        // Present but empty lines.
        let sc = ok(&abc("mime-targets\nquick-menu\nnext-cr\n"));
        assert!(sc.menus.mime_targets.is_empty() && sc.menus.quick.is_empty());
        let e = sc.expect_next_cr.unwrap();
        assert!(e.order.is_empty() && !e.prefix);
        let e = ok(&abc("next-cr ...")).expect_next_cr.unwrap();
        assert!(e.order.is_empty() && e.prefix);
    }

    #[test]
    fn per_character_menus() {
        // ABC: A, B, C; M the only mime.
        let sc = ok(&abc(
            "mime-targets A | B\nmime-targets M: C,A | B\nquick-menu attack - miss\n\
             quick-menu B: qs - C | wait | attack - A\nquick-menu C:\n",
        ));
        assert_eq!(sc.menus.mime_targets, [vec![0], vec![1]]);
        assert_eq!(sc.menus.mime_targets_for.len(), 1);
        assert_eq!(sc.menus.mime_menu(3), [vec![0, 2], vec![1]]);
        assert_eq!(sc.menus.mime_menu(0), [vec![0], vec![1]]);
        let attack_miss = QuickChoice::Act {
            action: ATTACK,
            targets: vec![],
        };
        assert_eq!(sc.menus.quick, std::slice::from_ref(&attack_miss));
        assert_eq!(
            sc.menus.quick_menu(1),
            [
                QuickChoice::Act {
                    action: QS,
                    targets: vec![2]
                },
                QuickChoice::Act {
                    action: ATTACK,
                    targets: vec![0]
                }
            ]
        );
        assert!(sc.menus.quick_menu(2).is_empty(), "C: only wait");
        assert_eq!(sc.menus.quick_menu(0), [attack_miss]);
        // An empty override: the mime only misses; no global line: the default applies to
        // the others. The colon may touch the name and the entries.
        let sc = ok(&abc("mime-targets M:\nquick-menu A:qs-B\n"));
        assert_eq!(sc.menus.mime_menu(3), Vec::<Vec<CharId>>::new());
        assert_eq!(sc.menus.mime_targets, default_mime_targets(4));
        assert_eq!(sc.menus.quick_menu(0).len(), 1);
        assert!(sc.menus.quick.is_empty());
        // Written back.
        let text = to_fft(&sc);
        assert!(text.contains("mime-targets M:\n"), "{text}");
        assert!(text.contains("quick-menu A: qs - B\n"), "{text}");
        assert_eq!(
            strip_positions(parse_fft(&text, path()).unwrap()),
            strip_positions(sc)
        );
    }

    /// Per-character `mime-targets` and `quick-menu` lines, after `ABC`.
    #[rustfmt::skip]
    const MENU_ERRORS: &[Case] = &[
        ("mime-targets A: B", 5, 14, "A is not a mime"),
        ("mime-targets Z: B", 5, 14, "unknown character `Z`"),
        ("quick-menu Z: qs - A", 5, 12, "unknown character `Z`"),
        ("mime-targets M: A\nmime-targets M: B", 6, 14, "second `mime-targets` line for `M` (the first is line 5)"),
        ("quick-menu B: qs - A\nquick-menu B:", 6, 12, "second `quick-menu` line for `B` (the first is line 5)"),
        // Overrides do not count as the global line, and vice versa.
        ("mime-targets A\nmime-targets M: B\nmime-targets B", 7, 1, "second `mime-targets` line (the first is line 5)"),
        ("mime-targets : A", 5, 14, "missing character name before `:`"),
        ("quick-menu A B: qs - A", 5, 14, "unexpected `B`"),
        // The entries are checked as in the global lines (columns after the colon).
        ("mime-targets M: A | miss", 5, 21, "a miss is always possible"),
        ("mime-targets M: A | A", 5, 21, "listed twice"),
        ("quick-menu B: qs - Z", 5, 20, "unknown character `Z`"),
        ("quick-menu B: qs - A | qs - A", 5, 24, "entry listed twice"),
    ];

    #[test]
    fn per_character_menu_errors() {
        error_table(MENU_ERRORS, |s| parse_fft(&abc(s), path()));
        // Overrides do not count as the global line, and vice versa.
        ok(&abc(
            "mime-targets A\nmime-targets M: B\nquick-menu qs - A\nquick-menu A: qs - B",
        ));
        // Entries of a line with a bad name are still checked.
        let es = errs(&abc("mime-targets A: Z"));
        assert_eq!(es.len(), 2, "{es:#?}");
    }

    #[test]
    fn lenient_spacing_mqs_and_sorting() {
        let sc = ok(&abc(
            "log\nA-qs-miss\n  mM -mqs-  C ,B\nA  -   haste -C,  A\n\trB-mcq\n\
             \x20 rC - mqs - M\nB - wait{c\nend\n",
        ));
        let lines: Vec<Line> = sc.log.unwrap().into_iter().map(|l| l.line).collect();
        use LineKind::{Mime, Primary};
        assert_eq!(
            lines,
            [
                line(Primary, 0, act(QS, &[])),
                line(Mime, 3, act(QS, &[1, 2])),
                line(Primary, 0, act(HASTE, &[0, 2])),
                line(LineKind::Reaction, 1, Body::Critical(Flag::Mcq)),
                line(LineKind::Reaction, 2, act(QS, &[3])),
                line(Primary, 1, Body::Wait),
            ]
        );
        // `mqs` is `qs` on slow lines and in menus too.
        let sc = ok(&abc("slow A - mqs - B\nquick-menu mqs - A | qs - C\n"));
        assert_eq!(sc.slow[0].action, QS);
        assert_eq!(sc.menus.quick.len(), 2);
    }

    #[test]
    fn exact_names_first_then_prefixes() {
        // `mX` is a character; `X` is not: `mX - wait` is a primary line of mX.
        let sc = ok("char mX team t\nchar Y team t mime\nlog\nmX - wait\nmY - qs - mX\nend");
        let lines: Vec<Line> = sc.log.unwrap().into_iter().map(|l| l.line).collect();
        assert_eq!(
            lines,
            [
                line(LineKind::Primary, 0, Body::Wait),
                line(LineKind::Mime, 1, act(QS, &[0])),
            ]
        );
    }

    #[test]
    fn parse_log_line_against_a_scenario() {
        let sc = ok(ABC);
        assert_eq!(
            parse_log_line(&sc, "    rB - mcq   {B gets an mcq-flag"),
            Ok(line(LineKind::Reaction, 1, Body::Critical(Flag::Mcq)))
        );
        assert_eq!(
            parse_log_line(&sc, "mM - demi - C,A # x"),
            Ok(line(LineKind::Mime, 3, act(DEMI, &[0, 2])))
        );
        let e = parse_log_line(&sc, "A - cq").unwrap_err();
        assert!(e.contains("only a reaction line"), "{e}");
        let e = parse_log_line(&sc, "Z - wait").unwrap_err();
        assert!(e.contains("unknown character `Z`"), "{e}");
        assert!(parse_log_line(&sc, "  {just commentary").is_err());
        assert!(parse_log_line(&sc, "").is_err());
    }

    // ----- errors, located ------------------------------------------------------------

    /// `char` lines.
    #[rustfmt::skip]
    const CHAR_LINE_ERRORS: &[Case] = &[
        ("chat A team x", 1, 1, "unknown keyword `chat`"),
        ("Char A team x", 1, 1, "keywords are lowercase"),
        ("char A team x mimic", 1, 15, "unknown character attribute `mimic`"),
        ("char A", 1, 6, "character `A` has no team"),
        ("char A team", 1, 12, "missing team name"),
        ("char A team mime", 1, 13, "`mime` is an attribute"),
        ("char A team x team y", 1, 15, "`team` given twice"),
        ("char A team x mime mime", 1, 20, "`mime` given twice"),
        ("char A team x critical-quick counter-magic", 1, 30, "at most one reaction"),
        ("char A team x ct", 1, 17, "missing number after `ct`"),
        ("char A team x ct -5", 1, 18, "can not be negative"),
        ("char A team x ct 4294967296", 1, 18, "too large"),
        ("char A team x ct ten", 1, 18, "invalid CT `ten`"),
        ("char", 1, 5, "missing character name"),
        ("char A-B team x", 1, 6, "invalid character name `A-B`"),
        ("char miss team x", 1, 6, "`miss` can not be a character name"),
        ("char A team x\nchar  A team y", 2, 7, "duplicate character `A` (first declared at line 1)"),
        // The collision is reported at the prefixed name, whichever comes first.
        ("char rA team x\nchar A team x", 1, 6, "collides with the reaction notation for `A`"),
        ("char A team x\nchar mA team y", 2, 6, "collides with the mime notation for `A`"),
    ];

    #[test]
    fn char_line_errors() {
        error_table(CHAR_LINE_ERRORS, |s| parse_fft(s, path()));
    }

    /// `action` lines.
    #[rustfmt::skip]
    const ACTION_LINE_ERRORS: &[Case] = &[
        ("action", 1, 7, "missing action name"),
        ("action qs spell", 1, 8, "built-in"),
        ("action wait", 1, 8, "keyword of the log notation"),
        ("action cure spell heal", 1, 19, "unknown action property `heal`"),
        ("action cure spell spell", 1, 19, "`spell` given twice"),
        ("action cure\naction cure", 2, 8, "duplicate action `cure`"),
    ];

    #[test]
    fn action_line_errors() {
        error_table(ACTION_LINE_ERRORS, |s| parse_fft(s, path()));
    }

    /// `slow` lines, after `ABC`.
    #[rustfmt::skip]
    const SLOW_LINE_ERRORS: &[Case] = &[
        ("slow A - fire - miss", 5, 10, "unknown action `fire`"),
        ("slow Z - qs - miss", 5, 6, "unknown character `Z`"),
        ("slow mM - qs - miss", 5, 6, "plain character name"),
        ("slow A - wait", 5, 10, "`wait` is not a slow action"),
        ("slow A - qs", 5, 12, "missing ` - TARGETS` after `qs`"),
        ("slow A - qs -", 5, 14, "missing targets"),
        ("slow A - qs - B - C", 5, 17, "unexpected `-`"),
        ("slow A qs - B", 5, 8, "unexpected `qs`"),
        ("slow A", 5, 7, "expected ` - `"),
        ("slow", 5, 5, "missing slow action"),
        ("slow A - qs - B,B", 5, 17, "target `B` is listed twice"),
        ("slow A - qs - B,miss", 5, 17, "`miss` can not be listed"),
        ("slow A - qs - B,", 5, 17, "missing target name"),
        ("slow A - qs - B\nslow A - qs - C", 6, 6, "second slow action for `A` (the first is line 5"),
    ];

    #[test]
    fn slow_line_errors() {
        error_table(SLOW_LINE_ERRORS, |s| parse_fft(&abc(s), path()));
    }

    /// The `log` section and its lines, after `ABC`.
    #[rustfmt::skip]
    const LOG_ERRORS: &[Case] = &[
        ("log\nA - cq\nend", 6, 5, "only a reaction line"),
        ("log\nmM - mcq\nend", 6, 6, "only a reaction line"),
        ("log\n  mM - wait\nend", 6, 8, "a mime line can not `wait`"),
        ("log\n    rB - wait\nend", 6, 10, "a reaction line can not `wait`"),
        ("log\nA - wait - B\nend", 6, 10, "nothing may follow `wait`"),
        ("log\nrB - cq - A\nend", 6, 9, "nothing may follow `cq`"),
        ("log\nZ - wait\nend", 6, 1, "unknown character `Z`"),
        ("log\nA - qs - Z\nend", 6, 10, "unknown character `Z`"),
        ("log\n - wait\nend", 6, 2, "missing name before `-`"),
        ("log\nA -  - miss\nend", 6, 6, "missing action"),
        ("log\nA waits\nend", 6, 3, "expected ` - `"),
        ("log\nA - qs - miss", 5, 1, "has no `end`"),
        ("log\nend\nlog\nend", 7, 1, "second `log` section (the first starts at line 5)"),
        ("end", 5, 1, "`end` without a `log`"),
        ("log\nend now", 6, 5, "unexpected `now` after `end`"),
        ("log x\nend", 5, 5, "unexpected `x` after `log`"),
        ("A - qs - miss", 5, 1, "log lines go between"),
    ];

    #[test]
    fn log_errors() {
        error_table(LOG_ERRORS, |s| parse_fft(&abc(s), path()));
        // A keyword line inside the log: probably a missing `end`.
        let es = errs(&abc("log\nA - qs - miss\nslow A - qs - miss\nend"));
        assert_eq!(es.len(), 1, "{es:#?}");
        assert!(es[0].message.contains("`end` line missing"), "{es:#?}");
    }

    /// `next-cr`, `bound`, `mime-targets` and `quick-menu` lines, after `ABC`.
    #[rustfmt::skip]
    const OTHER_LINE_ERRORS: &[Case] = &[
        ("next-cr A, B, A", 5, 15, "`A` appears twice"),
        ("next-cr A, ..., B", 5, 12, "`...` must be the last entry"),
        ("next-cr A,, B", 5, 11, "missing name"),
        ("next-cr A, Z", 5, 12, "unknown character `Z`"),
        ("next-cr A\nnext-cr B", 6, 1, "second `next-cr` line (the first is line 5)"),
        ("bound x", 5, 7, "invalid bound `x`"),
        ("bound -1", 5, 7, "can not be negative"),
        ("bound", 5, 6, "missing number after `bound`"),
        ("bound 3 4", 5, 9, "unexpected `4`"),
        ("bound 3\nbound 4", 6, 1, "second `bound` line"),
        // At most 64 quick turns (MAX_BOUND): one past it, the sizes that used to abort
        // or exhaust memory (2^32 - 1, 2^45, 2^63), and past u64.
        ("bound 65", 5, 7, "invalid bound `65`: it is too large (the maximum is 64)"),
        ("bound 4294967295", 5, 7, "it is too large (the maximum is 64)"),
        ("bound 35184372088832", 5, 7, "it is too large (the maximum is 64)"),
        ("bound 9223372036854775808", 5, 7, "it is too large (the maximum is 64)"),
        ("bound 99999999999999999999999", 5, 7, "it is too large (the maximum is 64)"),
        ("mime-targets A | miss", 5, 18, "a miss is always possible"),
        ("mime-targets A | B,A | A,B", 5, 24, "listed twice"),
        ("mime-targets A || B", 5, 17, "missing targets"),
        ("quick-menu attack", 5, 18, "missing ` - TARGETS` after `attack`"),
        ("quick-menu cq - A", 5, 12, "`cq` takes no targets"),
        ("quick-menu qs - A | qs - A", 5, 21, "entry listed twice"),
        ("quick-menu qs - A |", 5, 20, "empty entry"),
    ];

    #[test]
    fn other_line_errors() {
        error_table(OTHER_LINE_ERRORS, |s| parse_fft(&abc(s), path()));
        // The largest bound and the smallest are accepted.
        assert_eq!(ok(&abc("bound 64")).menus.bound, 64);
        assert_eq!(ok(&abc("bound 0")).menus.bound, 0);
    }

    #[test]
    fn several_errors_are_collected_in_order() {
        let es =
            errs("char A team x bogus\nchar A team y\nslow A - nope - miss\nwhat\nlog\nB - wait\n");
        let pos: Vec<(usize, usize)> = es.iter().map(|e| (e.line, e.col)).collect();
        assert_eq!(
            pos,
            [(1, 15), (2, 6), (3, 10), (4, 1), (5, 1), (6, 1)],
            "{es:#?}"
        );
        let shown = ParseErrors(es).rendered();
        assert!(
            shown.starts_with("error: unknown character attribute `bogus`")
                && shown.contains("--> t.fft:1:15"),
            "{shown}"
        );
        assert!(shown.ends_with("6 errors"), "{shown}");
    }

    #[test]
    fn bytes_and_files() {
        let e = parse_bytes(b"char A team x\nchar \xff team y\n", path()).unwrap_err();
        assert_eq!((e.0[0].line, e.0[0].col), (2, 6));
        assert!(e.0[0].message.contains("invalid UTF-8 (byte 0xff)"));
        // A byte order mark is skipped; CRLF (and bare CR) line ends end lines.
        let sc = parse_bytes(
            "\u{FEFF}char A team x\r\nlog\r\nA - wait\r\nend\r\n".as_bytes(),
            path(),
        )
        .unwrap();
        assert_eq!(sc.log.unwrap()[0].text, "A - wait");
        match load(Path::new("/nonexistent/dir/x.fft")) {
            Err(LoadError::Io { file, .. }) => {
                assert_eq!(file, Path::new("/nonexistent/dir/x.fft"))
            }
            other => panic!("{other:?}"),
        }
    }

    // ----- the instances --------------------------------------------------------------

    fn instances() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/fft");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "fft"))
            .collect();
        files.sort();
        files
    }

    fn instance(name: &str) -> Scenario {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("instances/fft")
            .join(name);
        load(&p).unwrap_or_else(|e| panic!("{e}"))
    }

    fn strip_positions(mut sc: Scenario) -> Scenario {
        for l in sc.log.iter_mut().flatten() {
            l.line_no = 0;
            l.text.clear();
        }
        if let Some(e) = sc.expect_next_cr.as_mut() {
            e.line_no = 0;
        }
        sc
    }

    #[test]
    fn every_instance_parses_and_round_trips() {
        let files = instances();
        assert!(files.len() >= 7, "{files:?}");
        for f in files {
            let sc = load(&f).unwrap_or_else(|e| panic!("{e}"));
            assert!(sc.log.is_some(), "{}: no log", f.display());
            let text = to_fft(&sc);
            let back = parse_fft(&text, &f).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(
                strip_positions(back),
                strip_positions(sc),
                "{}",
                f.display()
            );
        }
    }

    fn log_texts(sc: &Scenario) -> Vec<String> {
        sc.log
            .iter()
            .flatten()
            .map(|l| {
                sc.line_text(
                    &l.line,
                    l.line.kind != LineKind::Primary && l.text.contains("mqs"),
                )
            })
            .collect()
    }

    #[test]
    fn seed_instances_say_what_the_seed_says() {
        let s1 = instance("seed-1-mimes-skip.fft");
        assert_eq!(s1.teams.len(), 1);
        assert_eq!(
            log_texts(&s1),
            ["A - qs - miss", "mD - mqs - C", "mE - mqs - B"]
        );
        let e = s1.expect_next_cr.unwrap();
        assert_eq!((e.order, e.prefix), (vec![1, 2, 0], false));

        let s2 = instance("seed-2-haste.fft");
        let slow: Vec<(CharId, ActionId)> = s2.slow.iter().map(|s| (s.actor, s.action)).collect();
        assert_eq!(slow, [(0, QS), (1, HASTE)]);
        assert_eq!(s2.log.as_ref().unwrap().len(), 8);
        let e = s2.expect_next_cr.unwrap();
        assert_eq!((e.order, e.prefix), (vec![0, 1, 2], false));

        let s3 = instance("seed-3-agrias.fft");
        let names: Vec<&str> = s3.characters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["AGR", "RAM", "RAD", "ALI", "RAF", "MEL", "LAV", "REI"]
        );
        let teams: Vec<usize> = s3.characters.iter().map(|c| c.team).collect();
        assert_eq!(teams, [0, 0, 0, 0, 1, 1, 1, 1]);
        assert!(s3.expect_next_cr.is_none());
        let log = s3.log.as_ref().unwrap();
        assert_eq!(log.len(), 17);
        assert_eq!(log[0].text, "AGR - qs - miss");
        assert_eq!(log[14].text, "rRAF - mqs - LAV");
        assert_eq!(log[16].text, "LAV - wait");
        let slow: Vec<(CharId, ActionId, Vec<CharId>)> = s3
            .slow
            .iter()
            .map(|s| (s.actor, s.action, s.targets.clone()))
            .collect();
        assert_eq!(
            slow,
            [
                (0, QS, vec![]),
                (1, QS, vec![]),
                (5, QS, vec![]),
                (7, QS, vec![])
            ]
        );

        let s4 = instance("seed-4-demi.fft");
        let slow: Vec<(CharId, ActionId, Vec<CharId>)> = s4
            .slow
            .iter()
            .map(|s| (s.actor, s.action, s.targets.clone()))
            .collect();
        assert_eq!(
            slow,
            [
                (0, QS, vec![]),
                (1, DEMI, vec![]),
                (5, QS, vec![1]),
                (7, QS, vec![])
            ]
        );
        let log = s4.log.as_ref().unwrap();
        assert_eq!(log.len(), 28);
        assert_eq!(log[1].text, "mRAD - qs - REI");
        assert_eq!(log[1].line, line(LineKind::Mime, 2, act(QS, &[7])));
        assert_eq!(log[5].line, line(LineKind::Mime, 2, act(DEMI, &[5, 7])));
        assert_eq!(
            log[6].line,
            line(LineKind::Reaction, 5, Body::Critical(Flag::Mcq))
        );
        let e = s4.expect_next_cr.unwrap();
        assert_eq!((e.order, e.prefix), (vec![4, 6, 0, 1], true));
        let cts: Vec<u32> = s4.characters.iter().map(|c| c.ct).collect();
        assert_eq!(cts, [100, 100, 0, 0, 0, 0, 0, 0]);
        assert_eq!(s4.menus.bound, 8);
    }

    // ----- properties -----------------------------------------------------------------

    /// Whatever parses round-trips through `to_fft`; errors are well-formed.
    fn check_result(src: &str, r: &Result<Scenario, ParseErrors>) {
        match r {
            Ok(sc) => {
                let text = to_fft(sc);
                let again = parse_fft(&text, path()).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(strip_positions(again), strip_positions(sc.clone()));
            }
            Err(errs) => assert_errors_well_formed(src, errs),
        }
    }

    const VOCAB: &[&str] = &[
        "char",
        "action",
        "slow",
        "next-cr",
        "mime-targets",
        "quick-menu",
        "bound",
        "log",
        "end",
        "A",
        "B",
        "mA",
        "rB",
        "mB",
        "team",
        "t",
        "u",
        "mime",
        "critical-quick",
        "counter-magic",
        "ct",
        "100",
        "-1",
        "0",
        "x",
        "spell",
        "damage",
        "quick",
        "cure",
        "-",
        " - ",
        "qs",
        "mqs",
        "haste",
        "demi",
        "attack",
        "wait",
        "cq",
        "mcq",
        "miss",
        ",",
        "A,B",
        "B, A",
        "...",
        "|",
        "{c",
        "# c",
        "é",
        "\t",
        "\r",
        "-A",
        "A-",
        "--",
        ":",
        "A:",
        "M:",
        "mime-targets M:",
        "quick-menu B:",
    ];

    fn fft_text() -> impl Strategy<Value = String> {
        let line =
            prop::collection::vec(prop::sample::select(VOCAB), 0..8).prop_map(|ws| ws.join(" "));
        let glued =
            prop::collection::vec(prop::sample::select(VOCAB), 0..8).prop_map(|ws| ws.concat());
        let header =
            Just("char A team t\nchar B team u counter-magic\nchar M team t mime\n".to_string());
        (
            header,
            prop::collection::vec(prop_oneof![3 => line, 1 => glued], 0..14),
        )
            .prop_map(|(h, ls)| format!("{h}{}", ls.join("\n")))
    }

    /// Random valid scenarios: names unique, valid, without prefix collisions; teams in
    /// order of first use; one slow action per actor, sorted; targets sorted and distinct.
    fn arb_scenario() -> impl Strategy<Value = Scenario> {
        let chars = prop::collection::vec(
            (
                "[A-Za-z0-9_]{1,4}",
                0..3usize,
                any::<bool>(),
                0..3u8,
                prop_oneof![Just(0u32), Just(100), any::<u32>()],
            ),
            1..7,
        );
        let actions = prop::collection::vec(
            ("[a-z]{1,5}", any::<bool>(), any::<bool>(), any::<bool>()),
            0..3,
        );
        let targets = || prop::collection::vec(any::<usize>(), 0..3);
        let slow = prop::collection::vec((any::<usize>(), any::<usize>(), targets()), 0..5);
        let next_cr =
            prop::option::of((prop::collection::vec(any::<usize>(), 0..5), any::<bool>()));
        let mime = prop::option::of(prop::collection::vec(
            prop::collection::vec(any::<usize>(), 1..3),
            0..4,
        ));
        let quick = || prop::collection::vec((any::<usize>(), targets()), 0..4);
        let log = prop::option::of(prop::collection::vec(
            (0..3u8, any::<usize>(), 0..3u8, any::<usize>(), targets()),
            0..10,
        ));
        // Per-character overrides: (which mime / character, entries).
        let mime_for = prop::collection::vec(
            (
                any::<usize>(),
                prop::collection::vec(prop::collection::vec(any::<usize>(), 1..3), 0..3),
            ),
            0..3,
        );
        let quick_for = prop::collection::vec((any::<usize>(), quick()), 0..3);
        (
            chars,
            actions,
            slow,
            next_cr,
            mime,
            quick(),
            0..20usize,
            log,
            mime_for,
            quick_for,
        )
            .prop_map(
                |(chars, actions, slow, next_cr, mime, quick, bound, log, mime_for, quick_for)| {
                    let mut sc = Scenario {
                        teams: Vec::new(),
                        characters: Vec::new(),
                        actions: ActionKind::builtins(),
                        slow: Vec::new(),
                        log: None,
                        expect_next_cr: None,
                        menus: Menus::default(),
                    };
                    for (name, team, mime, reaction, ct) in chars {
                        let clash = |a: &str, b: &str| {
                            a == b
                                || a.strip_prefix(['m', 'r']) == Some(b)
                                || b.strip_prefix(['m', 'r']) == Some(a)
                        };
                        if name == "miss"
                            || name == "end"
                            || sc.characters.iter().any(|c| clash(&c.name, &name))
                        {
                            continue;
                        }
                        let team_name = format!("t{team}");
                        let team = match sc.teams.iter().position(|t| *t == team_name) {
                            Some(i) => i,
                            None => {
                                sc.teams.push(team_name);
                                sc.teams.len() - 1
                            }
                        };
                        sc.characters.push(Character {
                            name,
                            team,
                            mime,
                            reaction: [
                                None,
                                Some(Reaction::CriticalQuick),
                                Some(Reaction::CounterMagic),
                            ][reaction as usize],
                            ct,
                        });
                    }
                    for (name, spell, damage, quick) in actions {
                        if ["wait", "cq", "mcq", "mqs", "miss"].contains(&name.as_str())
                            || sc.actions.iter().any(|k| k.name == name)
                        {
                            continue;
                        }
                        sc.actions.push(ActionKind {
                            name,
                            spell,
                            damage,
                            quick,
                        });
                    }
                    let n = sc.characters.len();
                    let na = sc.actions.len();
                    let tg = |ts: Vec<usize>| {
                        let mut ts: Vec<CharId> = ts.into_iter().map(|t| t % n).collect();
                        ts.sort_unstable();
                        ts.dedup();
                        ts
                    };
                    for (actor, action, targets) in slow {
                        let actor = actor % n;
                        if sc.slow.iter().all(|s| s.actor != actor) {
                            sc.slow.push(SlowAction {
                                actor,
                                action: action % na,
                                targets: tg(targets),
                            });
                        }
                    }
                    sc.slow.sort_by_key(|s| s.actor);
                    sc.expect_next_cr = next_cr.map(|(order, prefix)| {
                        let mut o: Vec<CharId> = Vec::new();
                        for c in order {
                            if !o.contains(&(c % n)) {
                                o.push(c % n);
                            }
                        }
                        ExpectedOrder {
                            order: o,
                            prefix,
                            line_no: 0,
                        }
                    });
                    let sets = |sets: Vec<Vec<usize>>| {
                        let mut out: Vec<Vec<CharId>> = Vec::new();
                        for s in sets {
                            let s = tg(s);
                            if !out.contains(&s) {
                                out.push(s);
                            }
                        }
                        out
                    };
                    let entries = |quick: Vec<(usize, Vec<usize>)>| {
                        let mut out: Vec<QuickChoice> = Vec::new();
                        for (action, targets) in quick {
                            let q = QuickChoice::Act {
                                action: action % na,
                                targets: tg(targets),
                            };
                            if !out.contains(&q) {
                                out.push(q);
                            }
                        }
                        out
                    };
                    sc.menus.mime_targets = match mime {
                        None => default_mime_targets(n),
                        Some(s) => sets(s),
                    };
                    sc.menus.quick = entries(quick);
                    let mimes: Vec<CharId> = (0..n).filter(|&c| sc.characters[c].mime).collect();
                    for (k, s) in mime_for {
                        if !mimes.is_empty() {
                            sc.menus
                                .mime_targets_for
                                .insert(mimes[k % mimes.len()], sets(s));
                        }
                    }
                    for (c, q) in quick_for {
                        sc.menus.quick_for.insert(c % n, entries(q));
                    }
                    sc.menus.bound = bound;
                    sc.log = log.map(|lines| {
                        lines
                            .into_iter()
                            .map(|(kind, who, body, action, targets)| {
                                let kind = [LineKind::Primary, LineKind::Mime, LineKind::Reaction]
                                    [kind as usize];
                                let body = match (kind, body) {
                                    (LineKind::Primary, 0) => Body::Wait,
                                    (LineKind::Reaction, 0) => Body::Critical(Flag::Cq),
                                    (LineKind::Reaction, 1) => Body::Critical(Flag::Mcq),
                                    _ => Body::Act {
                                        action: action % na,
                                        targets: tg(targets),
                                    },
                                };
                                LogLine {
                                    line_no: 0,
                                    text: String::new(),
                                    line: Line {
                                        kind,
                                        who: who % n,
                                        body,
                                    },
                                }
                            })
                            .collect()
                    });
                    sc
                },
            )
    }

    proptest! {
        // 512 cases unless PROPTEST_CASES says otherwise.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
        ))]

        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let r = parse_bytes(&bytes, path());
            match std::str::from_utf8(&bytes) {
                Ok(s) => check_result(s, &r),
                Err(_) => {
                    assert_invalid_utf8_error(&bytes, &r.unwrap_err());
                }
            }
        }

        #[test]
        fn random_lines_never_panic(src in fft_text()) {
            check_result(&src, &parse_fft(&src, path()));
            let sc = ok(ABC);
            for l in src.lines() {
                let _ = parse_log_line(&sc, l);
            }
        }

        #[test]
        fn valid_scenarios_round_trip(sc in arb_scenario()) {
            let text = to_fft(&sc);
            let back = parse_fft(&text, path()).unwrap_or_else(|e| panic!("{e}\n{text}"));
            prop_assert_eq!(strip_positions(back), sc);
        }
    }
}
