//! Parses and validates ?AR night files (`.night`) and their JSON form into an [`Ensemble`].
//!
//! Both formats are first read into the same intermediate form (names with their source
//! positions); one shared validation then builds the [`Ensemble`], so both formats accept
//! and reject exactly the same nights, with the same messages. Every error names the file,
//! the line and the column (1-based, in characters) of the offending token and shows the
//! line. Errors are collected, not just the first one (at most [`MAX_ERRORS`]).
//!
//! # The `.night` format
//!
//! ```text
//! players: R1 R2 R3 V        # optional; when present, every name used must be declared
//! R1 block R2                # ACTOR KIND TARGET...
//! cut_me: R3 block R1 @1     # optional "ID:" prefix, optional "@PRIORITY"
//! V passive bulletproof      # ACTOR passive KIND
//! rS passive reflexive:stop
//! ```
//!
//! * One effect a line. `#` starts a comment, anywhere on a line (even inside a word);
//!   blank lines are ignored. Words are separated by whitespace. Lines end at `\n`,
//!   `\r\n` or a bare `\r`, and a leading UTF-8 byte order mark is skipped (columns on
//!   line 1 are counted after it): the policy of every format ([`crate::text::lex`]).
//! * Names (players and ids) are `[A-Za-z0-9_.-]+`, case-sensitive.
//! * The `ID:` prefix belongs to the first word: `cut:R3 block R1` is the same as
//!   `cut: R3 block R1`. A first word `players:` always starts the players line, so
//!   `players` can not be an effect id (in JSON either, so that every ensemble can be
//!   written back as a night file). It is still a valid player name.
//! * Action kinds: `visit`, `block`, `stop`, `protect`, `kill`, `deflect`, `jail`,
//!   `commute`, `swap`, `redirect`, `guard`, `hide`, `babysit` (and `strongkill`, the information kinds and
//!   the role names of `roles.rs`). `deflect X to Y` and `redirect X to Y` take `to` as a
//!   keyword between their two targets (optional: `redirect X Y` reads the same). Passives are
//!   written `ACTOR passive KIND` with KIND one of `bulletproof`, `unblockable`,
//!   `immune[K,...]`, `reflexive:K` or `visited:K` (K in `visit`, `block`, `stop`,
//!   `protect`, `kill`, `jail`). `passive` is a
//!   keyword only in the kind position: a player may be called `passive`, `block`, ...
//! * `@N` (N a decimal integer in `0..=4294967295`, leading zeros allowed) must be the last
//!   word of the line; `@` must be followed directly by the number.
//! * The `players:` line may appear at most once, and only before the first effect. Its
//!   names must be distinct. It may be empty (then the file can have no effects). When it
//!   is present the players are in declared order (unused ones included); without it they
//!   are in order of first mention (actor, then targets, left to right, line by line).
//! * Default id `e<N>`, N the 1-based position of the effect among the file's effects
//!   (counting lines that have errors, not counting the players line). Default priority by
//!   kind ([`Kind::default_priority`]).
//! * Ids must be unique whatever their origin: an explicit `e3:` on one effect collides
//!   with the default id of the third effect. The error is reported at the later of the
//!   two effects (at its id if explicit, else at the start of its line).
//! * Arity: `kill`, `guard`, `hide` and `babysit` exactly one target, `swap` and `redirect` two, `deflect`
//!   one or two, `commute` none, the other actions at least one, passives none. A target
//!   may repeat and a player may target itself.
//! * A player may have at most one one-target `deflect` (the error points at the second).
//! * An empty file (or one with only a players line) is a valid, empty ensemble.
//!
//! "Missing" errors (no actor, no kind, nothing after `ID:`) point at the place where the
//! missing word was expected: the priority word if one follows, else just past the last
//! word of the line.
//!
//! # The JSON format
//!
//! ```json
//! {"players": ["R1", "R2"],
//!  "effects": [{"id": "e1", "actor": "R1", "kind": "block", "targets": ["R2"], "priority": 2}]}
//! ```
//!
//! `players` is optional (same meaning as the players line); `effects` is required.
//! Unknown top-level fields are ignored (so the output of `gordian resolve --json` reads
//! back); unknown fields inside an effect are errors. In an effect, `actor` and `kind` are
//! required; `id`, `targets` (default `[]`) and `priority` are optional, and `null` means
//! absent. `kind` is the night-file keyword, passives by their own name (`"bulletproof"`,
//! `"reflexive:stop"`); the word `passive` is not used. JSON syntax errors are reported
//! at serde_json's position; validation errors at the offending JSON value (for an effect
//! as a whole, its `{`).

use super::model::{parse_kind_word, ActionKind, Effect, Ensemble, Info, Kind, Mods, Player, Span};
use super::roles;
use crate::text::lex::{self, strip_bom, Located, NotACount};
use crate::text::{ParseErrors, Sink};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

// ---------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------

/// Parses and validates a `.night` file's text. `file` is only used in error messages.
pub fn parse_night(src: &str, file: &Path) -> Result<Ensemble, ParseErrors> {
    let mut cx = Ctx::new(src, file);
    let raw = read_night(&mut cx);
    finish(cx, raw)
}

/// Parses and validates the JSON form of a night. `file` is only used in error messages.
pub fn parse_json(src: &str, file: &Path) -> Result<Ensemble, ParseErrors> {
    let mut cx = Ctx::new(src, file);
    let raw = read_json(&mut cx);
    finish(cx, raw)
}

/// Parses either format: JSON if `file` has the extension `.json` (any case) or the first
/// non-blank character is `{`, else the night format.
pub fn parse_str(src: &str, file: &Path) -> Result<Ensemble, ParseErrors> {
    let json_ext = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json_ext || strip_bom(src).trim_start().starts_with('{') {
        parse_json(src, file)
    } else {
        parse_night(src, file)
    }
}

/// Like [`parse_str`] on raw bytes: content that is not UTF-8 is a located error at the
/// first invalid byte (tests; the CLI and the library read through `harness::inputs`).
#[cfg(test)]
pub fn parse_bytes(bytes: &[u8], file: &Path) -> Result<Ensemble, ParseErrors> {
    parse_str(
        crate::text::decode_utf8(bytes, file, "night and JSON files")?,
        file,
    )
}

/// Reads and parses a night file (either format, see [`parse_str`]; tests).
#[cfg(test)]
pub fn load(path: &Path) -> Result<Ensemble, crate::text::LoadError> {
    Ok(parse_bytes(
        &crate::text::read_limited(path, "night files")?,
        path,
    )?)
}

/// Writes an ensemble as a `.night` file: a `players:` line, then one line per effect
/// with its explicit id and priority (`e1: R1 block R2 @2`). For a valid ensemble (see
/// [`validate`]) [`parse_night`] reads it back to an equal ensemble (spans aside).
pub fn to_night(ens: &Ensemble) -> String {
    use std::fmt::Write;
    let name = |p: Player| ens.players.get(p as usize).map_or("?", |s| s.as_str());
    let mut out = String::from("players:");
    for p in &ens.players {
        out.push(' ');
        out.push_str(p);
    }
    out.push('\n');
    if !ens.alignments.is_empty() {
        out.push_str("alignment:");
        for (p, a) in &ens.alignments {
            let _ = write!(out, " {}={a}", name(*p));
        }
        out.push('\n');
    }
    for e in &ens.effects {
        let _ = write!(out, "{}: {}", e.id, name(e.actor));
        match e.kind {
            Kind::Action(_) => {
                let _ = write!(out, " {}", e.kind_word());
            }
            Kind::Passive(_) => {
                let _ = write!(out, " passive {}", e.kind_word());
            }
        }
        let to = matches!(
            e.kind,
            Kind::Action(ActionKind::Deflect | ActionKind::Redirect)
        ) && e.targets.len() == 2;
        for (k, &t) in e.targets.iter().enumerate() {
            if to && k == 1 {
                out.push_str(" to");
            }
            out.push(' ');
            out.push_str(name(t));
        }
        let _ = writeln!(out, " @{}", e.priority);
    }
    out
}

/// Checks the invariants of a programmatically built ensemble (the ones [`parse_night`]
/// and [`parse_json`] establish, see the `model` module): player names valid and
/// distinct, ids valid, unique and not `players`, actors and targets in range, arities,
/// at most one `deflect` per player. Returns every problem found.
pub fn validate(ens: &Ensemble) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    let mut seen_players: HashMap<&str, usize> = HashMap::new();
    for (i, p) in ens.players.iter().enumerate() {
        if !is_valid_name(p) {
            problems.push(format!("player {i}: invalid name {p:?}"));
        }
        if let Some(j) = seen_players.insert(p, i) {
            problems.push(format!("players {j} and {i} are both called {p:?}"));
        }
    }
    let n = ens.players.len();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut deflectors: HashMap<Player, usize> = HashMap::new();
    for (i, e) in ens.effects.iter().enumerate() {
        if !is_valid_name(&e.id) || e.id == "players" || e.id == "alignment" {
            problems.push(format!("effect {i}: invalid id {:?}", e.id));
        }
        if let Some(j) = ids.insert(&e.id, i) {
            problems.push(format!("effects {j} and {i} share the id {:?}", e.id));
        }
        if e.actor as usize >= n || e.targets.iter().any(|&t| t as usize >= n) {
            problems.push(format!("effect {:?}: player index out of range", e.id));
        }
        if let Some(msg) = arity_problem(e.kind, e.targets.len()) {
            problems.push(format!("effect {:?}: {msg}", e.id));
        }
        if !e.mods.allowed_for(e.kind) {
            problems.push(format!(
                "effect {:?}: modifiers its kind does not take",
                e.id
            ));
        }
        if e.kind == Kind::Action(ActionKind::Deflect) && e.targets.len() == 1 {
            if let Some(j) = deflectors.insert(e.actor, i) {
                problems.push(format!(
                    "effects {j} and {i}: two deflections by player {}",
                    e.actor
                ));
            }
        }
    }
    let mut last = None;
    for (p, a) in &ens.alignments {
        if *p as usize >= n || !is_valid_name(a) || last >= Some(*p) {
            problems.push(format!(
                "alignment of player {p}: out of range, invalid or out of order"
            ));
        }
        last = Some(*p);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Whether `s` is a valid player name or effect id: `[A-Za-z0-9_.-]+` ([`lex::NAMES`]).
pub fn is_valid_name(s: &str) -> bool {
    lex::NAMES.is_name(s)
}

// ---------------------------------------------------------------------------------------
// Shared machinery: source positions and the error sink
// ---------------------------------------------------------------------------------------

/// The source text (without its byte-order mark), and its lines and the errors found so
/// far in the shared sink (which applies the line-ending policy).
struct Ctx<'a> {
    src: &'a str,
    sink: Sink<'a>,
    /// The last result of `pos`: (offset, 1-based line, column).
    last_pos: Cell<(usize, usize, usize)>,
}

impl<'a> Ctx<'a> {
    fn new(src: &'a str, file: &'a Path) -> Ctx<'a> {
        let sink = Sink::new(src, file);
        Ctx {
            src: sink.text(),
            sink,
            last_pos: Cell::new((0, 1, 1)),
        }
    }

    /// Whether no more errors are wanted.
    fn full(&self) -> bool {
        self.sink.full()
    }

    /// How many errors were recorded so far.
    fn error_count(&self) -> usize {
        self.sink.error_count()
    }

    /// Records an error at a 1-based line and column.
    fn err(&mut self, line: usize, col: usize, message: String) {
        self.sink.err(line, col, message);
    }

    /// Records an error at a token.
    fn err_at(&mut self, t: &Tok, message: String) {
        self.err(t.line, t.col, message);
    }

    /// Line and column of a byte offset into the source.
    fn pos(&self, offset: usize) -> Span {
        let mut offset = offset.min(self.src.len());
        while !self.src.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start) = self.sink.line_at(offset);
        // Count characters from the last position asked for when it is on the same line
        // (positions come roughly in order), so that a long one-line JSON file stays
        // linear.
        let (last_offset, last_line, last_col) = self.last_pos.get();
        let col = if last_line == line && last_offset <= offset {
            last_col + self.src[last_offset..offset].chars().count()
        } else if last_line == line {
            last_col - self.src[offset..last_offset].chars().count()
        } else {
            self.src[start..offset].chars().count() + 1
        };
        self.last_pos.set((offset, line, col));
        Span { line, col }
    }

    /// Byte offset in the source of a raw JSON value borrowed from it.
    fn offset_of(&self, raw: &RawValue) -> usize {
        let p = raw.get().as_ptr() as usize;
        p.checked_sub(self.src.as_ptr() as usize)
            .filter(|&o| o <= self.src.len())
            .unwrap_or(0)
    }

    /// Position of a raw JSON value borrowed from the source.
    fn pos_of(&self, raw: &RawValue) -> Span {
        self.pos(self.offset_of(raw))
    }

    /// Records a serde_json error that occurred while reading `text`, a slice of the
    /// source starting at byte `base`.
    fn serde_err(&mut self, base: usize, text: &str, e: &serde_json::Error) {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        let rel = if e.line() == 0 {
            0
        } else {
            // serde_json's column counts the bytes consumed on the line, so the last
            // consumed byte (the offending one) is at column - 1 from the line start.
            let line_start = if e.line() == 1 {
                0
            } else {
                text.match_indices('\n')
                    .nth(e.line() - 2)
                    .map_or(text.len(), |(i, _)| i + 1)
            };
            line_start + e.column().saturating_sub(1)
        };
        let mut rel = rel.min(text.len());
        // serde_json reports unknown and duplicate fields after the key's closing quote;
        // point at the key instead.
        if (message.starts_with("unknown field") || message.starts_with("duplicate field"))
            && text.as_bytes().get(rel) == Some(&b'"')
        {
            rel = text[..rel].rfind('"').unwrap_or(rel);
        }
        let p = self.pos(base + rel);
        self.err(p.line, p.col, message);
    }
}

fn finish(mut cx: Ctx<'_>, raw: RawNight) -> Result<Ensemble, ParseErrors> {
    let ens = build(&mut cx, raw);
    cx.sink.finish().map(|()| ens)
}

// ---------------------------------------------------------------------------------------
// The intermediate form shared by both formats
// ---------------------------------------------------------------------------------------

/// A word of the source (a name, a kind) with its position.
#[derive(Clone, Debug)]
struct Tok {
    text: String,
    line: usize,
    col: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Night,
    Json,
}

/// An effect as read, before validation.
#[derive(Debug)]
struct RawEffect {
    /// 1-based position among the file's effects (for the default id).
    index: usize,
    start: Span,
    id: Option<Tok>,
    actor: Tok,
    /// Night files: the `passive` keyword was used.
    passive_kw: bool,
    kind: Tok,
    targets: Vec<Tok>,
    /// `None`: the default (or a bad priority, already reported by the reader).
    priority: Option<u32>,
}

/// A night as read, before validation.
#[derive(Debug)]
struct RawNight {
    format: Format,
    /// The declared players, with the line of the declaration.
    players: Option<(usize, Vec<Tok>)>,
    /// `alignment:` entries: (player, alignment).
    alignments: Vec<(Tok, Tok)>,
    effects: Vec<RawEffect>,
}

/// The value of a priority written as `digits` (after the `@` in night files), or why
/// it is not one.
fn priority_value(digits: &str) -> Result<u32, &'static str> {
    lex::count(digits, u32::MAX).map_err(|why| match why {
        NotACount::TooLarge => "it is too large (the maximum is 4294967295)",
        NotACount::Negative => "priorities can not be negative",
        NotACount::NotDigits => "a priority is a non-negative integer",
    })
}

// ---------------------------------------------------------------------------------------
// Night reader
// ---------------------------------------------------------------------------------------

/// The whitespace-separated words of a line, with their 1-based character columns.
fn words(code: &str) -> Vec<(usize, &str)> {
    lex::words(code, 1)
        .into_iter()
        .map(|w| (w.col, w.text))
        .collect()
}

fn read_night(cx: &mut Ctx<'_>) -> RawNight {
    let mut raw = RawNight {
        format: Format::Night,
        players: None,
        alignments: Vec::new(),
        effects: Vec::new(),
    };
    let mut n_effects = 0;
    for i in 0..cx.sink.line_count() {
        if cx.full() {
            break;
        }
        let line = cx.sink.line_text(i + 1);
        let lineno = i + 1;
        let mut ws = words(lex::code(line));
        let Some(&(c0, w0)) = ws.first() else {
            continue;
        };
        let tok = |col: usize, text: &str| Tok {
            text: text.to_string(),
            line: lineno,
            col,
        };
        let mut id = None;
        if let Some(p) = w0.find(':') {
            let (name, after) = (&w0[..p], &w0[p + 1..]);
            ws.remove(0);
            if !after.is_empty() {
                ws.insert(0, (c0 + name.chars().count() + 1, after));
            }
            if name == "alignment" {
                for &(c, w) in &ws {
                    match w.split_once('=') {
                        Some((who, what)) => raw.alignments.push((
                            tok(c, who),
                            tok(c + who.chars().count() + 1, what),
                        )),
                        None => cx.err(
                            lineno,
                            c,
                            format!("`{}`: write alignments as `PLAYER=ALIGNMENT`, e.g. `alignment: Goon=mafia Cop=town`", w.escape_debug()),
                        ),
                    }
                }
                if ws.is_empty() {
                    cx.err(
                        lineno,
                        c0,
                        "empty `alignment:` line (write `alignment: Goon=mafia Cop=town`)".into(),
                    );
                }
                continue;
            }
            if name == "players" {
                if let Some((first, _)) = raw.players {
                    cx.err(
                        lineno,
                        c0,
                        format!("second `players:` line (the first is line {first})"),
                    );
                } else if n_effects > 0 {
                    cx.err(
                        lineno,
                        c0,
                        "the `players:` line must come before the first effect".into(),
                    );
                } else {
                    let names = ws.iter().map(|&(c, w)| tok(c, w)).collect();
                    raw.players = Some((lineno, names));
                }
                continue;
            }
            n_effects += 1;
            if name.is_empty() {
                cx.err(lineno, c0, "missing id before `:`".into());
                continue;
            }
            id = Some(tok(c0, name));
        } else {
            n_effects += 1;
        }
        let last = ws.last().copied().unwrap_or((c0, w0));
        let end_col = last.0 + last.1.chars().count();
        match night_effect(&ws, end_col, id.is_some()) {
            Ok(e) => raw.effects.push(RawEffect {
                priority: e.priority.unwrap_or_else(|(col, msg)| {
                    cx.err(lineno, col, msg);
                    None
                }),
                index: n_effects,
                start: Span {
                    line: lineno,
                    col: c0,
                },
                id,
                actor: tok(e.actor.0, e.actor.1),
                passive_kw: e.passive_kw,
                kind: tok(e.kind.0, e.kind.1),
                targets: e.targets.iter().map(|&(c, w)| tok(c, w)).collect(),
            }),
            Err((col, msg)) => cx.err(lineno, col, msg),
        }
    }
    raw
}

/// The words of one effect line (after its `ID:` prefix).
struct NightWords<'w> {
    actor: (usize, &'w str),
    passive_kw: bool,
    kind: (usize, &'w str),
    targets: Vec<(usize, &'w str)>,
    /// The priority, or the column and message of a bad one (the line is still
    /// validated).
    priority: Result<Option<u32>, Located>,
}

/// Splits an effect line's words; `Err((column, message))` on a syntax error.
fn night_effect<'w>(
    ws: &[(usize, &'w str)],
    end_col: usize,
    has_id: bool,
) -> Result<NightWords<'w>, Located> {
    if let Some(&(c, _)) = ws.iter().find(|(_, w)| *w == "@") {
        return Err((
            c,
            "missing priority after `@` (write it as `@3`, without a space)".into(),
        ));
    }
    let mut ws = ws.to_vec();
    let mut priority = Ok(None);
    let mut missing_col = end_col;
    if let Some(&(c, w)) = ws.last() {
        if let Some(digits) = w.strip_prefix('@') {
            priority = priority_value(digits)
                .map(Some)
                .map_err(|why| (c, format!("bad priority `{w}`: {why}")));
            missing_col = c;
            ws.pop();
        }
    }
    if let Some(&(c, w)) = ws.iter().find(|(_, w)| w.starts_with('@')) {
        return Err((
            c,
            format!("the priority `{w}` must be the last word of the line"),
        ));
    }
    let mut it = ws.into_iter();
    let Some(actor) = it.next() else {
        let msg = if has_id {
            "expected an effect (`ACTOR KIND TARGET...`) after the id"
        } else {
            "missing actor and kind before the priority"
        };
        return Err((missing_col, msg.into()));
    };
    let Some(mut kind) = it.next() else {
        return Err((
            missing_col,
            format!("missing kind after the actor `{}`", actor.1),
        ));
    };
    let passive_kw = kind.1 == "passive";
    if passive_kw {
        kind = it.next().ok_or_else(|| {
            (
                missing_col,
                "missing passive kind after `passive` (bulletproof, unblockable, reflexive:K, visited:K)"
                    .to_string(),
            )
        })?;
    }
    let mut targets: Vec<(usize, &str)> = it.collect();
    // `deflect X to Y`, `redirect X to Y`: the `to` is a keyword between two targets.
    if !passive_kw && targets.len() == 3 && targets[1].1 == "to" && reads_to(kind.1) {
        targets.remove(1);
    }
    Ok(NightWords {
        actor,
        passive_kw,
        kind,
        targets,
        priority,
    })
}

/// Whether a kind word (or role name) writes its two targets as `X to Y`: `deflect` and
/// `redirect`, with or without a filter, and their roles.
fn reads_to(word: &str) -> bool {
    let base = word.split_once('[').map_or(word, |(b, _)| b);
    let primitive = roles::role(base).map_or(base, |r| r.primitive);
    matches!(primitive, "deflect" | "redirect")
}

// ---------------------------------------------------------------------------------------
// JSON reader
// ---------------------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(expecting = "a JSON object with an `effects` array")]
struct JsonTop<'a> {
    #[serde(borrow, default)]
    players: Option<&'a RawValue>,
    #[serde(borrow, default)]
    effects: Option<&'a RawValue>,
    #[serde(borrow, default)]
    alignment: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an effect object (fields id, actor, kind, targets, priority)"
)]
struct JsonEffect<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    actor: Option<&'a RawValue>,
    #[serde(borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    targets: Option<&'a RawValue>,
    #[serde(borrow, default)]
    priority: Option<&'a RawValue>,
}

/// What kind of JSON value `raw` is, for messages.
fn json_type(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// A JSON string value as a token; records `what must be a string` otherwise.
fn json_string(cx: &mut Ctx<'_>, raw: &RawValue, what: &str) -> Option<Tok> {
    let p = cx.pos_of(raw);
    match serde_json::from_str::<String>(raw.get()) {
        Ok(text) => Some(Tok {
            text,
            line: p.line,
            col: p.col,
        }),
        Err(_) => {
            cx.err(p.line, p.col, format!("{what} must be a string"));
            None
        }
    }
}

/// A JSON array of strings as tokens; records an error for anything else.
fn json_names(cx: &mut Ctx<'_>, raw: &RawValue, what: &str) -> Option<Vec<Tok>> {
    let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
        let p = cx.pos_of(raw);
        cx.err(
            p.line,
            p.col,
            format!("{what} must be an array of player names"),
        );
        return None;
    };
    let mut out = Vec::new();
    let mut ok = true;
    for item in items {
        match json_string(cx, item, "a player name") {
            Some(t) => out.push(t),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn read_json(cx: &mut Ctx<'_>) -> RawNight {
    let mut raw = RawNight {
        format: Format::Json,
        players: None,
        alignments: Vec::new(),
        effects: Vec::new(),
    };
    let src = cx.src;
    let top: JsonTop<'_> = match serde_json::from_str(src) {
        Ok(t) => t,
        Err(e) => {
            cx.serde_err(0, src, &e);
            return raw;
        }
    };
    let first = src.len() - src.trim_start().len();
    if !src[first..].starts_with('{') {
        let p = cx.pos(first);
        cx.err(
            p.line,
            p.col,
            "expected a JSON object with an `effects` array".into(),
        );
        return raw;
    }
    if let Some(players) = top.players {
        let line = cx.pos_of(players).line;
        if let Some(names) = json_names(cx, players, "`players`") {
            raw.players = Some((line, names));
        }
    }
    if let Some(al) = top.alignment {
        match serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(al.get()) {
            Ok(map) => {
                for (who, v) in map {
                    let p = cx.pos_of(v);
                    if let Some(what) = json_string(cx, v, "an alignment") {
                        raw.alignments.push((
                            Tok {
                                text: who,
                                line: p.line,
                                col: p.col,
                            },
                            what,
                        ));
                    }
                }
            }
            Err(_) => {
                let p = cx.pos_of(al);
                cx.err(
                    p.line,
                    p.col,
                    "`alignment` must be an object from player names to alignments, e.g. {\"Goon\": \"mafia\"}".into(),
                );
            }
        }
    }
    let Some(effects) = top.effects else {
        let p = cx.pos(first);
        cx.err(p.line, p.col, "missing `effects` array".into());
        return raw;
    };
    let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(effects.get()) else {
        let p = cx.pos_of(effects);
        cx.err(
            p.line,
            p.col,
            "`effects` must be an array of effect objects".into(),
        );
        return raw;
    };
    for (i, item) in items.into_iter().enumerate() {
        if cx.full() {
            break;
        }
        let start = cx.pos_of(item);
        if !item.get().starts_with('{') {
            let what = json_type(item);
            cx.err(
                start.line,
                start.col,
                format!("expected an effect object, found {what}"),
            );
            continue;
        }
        let je: JsonEffect<'_> = match serde_json::from_str(item.get()) {
            Ok(je) => je,
            Err(e) => {
                let base = cx.offset_of(item);
                cx.serde_err(base, item.get(), &e);
                continue;
            }
        };
        let before = cx.error_count();
        let required = |cx: &mut Ctx<'_>, v: Option<&RawValue>, field: &str| match v {
            Some(v) => json_string(cx, v, &format!("`{field}`")),
            None => {
                cx.err(start.line, start.col, format!("effect has no `{field}`"));
                None
            }
        };
        let actor = required(cx, je.actor, "actor");
        let kind = required(cx, je.kind, "kind");
        let id = je.id.and_then(|v| json_string(cx, v, "`id`"));
        let targets = match je.targets {
            Some(v) => json_names(cx, v, "`targets`").unwrap_or_default(),
            None => Vec::new(),
        };
        let structural_errors = cx.error_count() > before;
        let priority = je.priority.and_then(|v| {
            let p = cx.pos_of(v);
            let text = v.get();
            match priority_value(text) {
                Ok(n) => Some(n),
                Err(why) => {
                    let found = if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
                        format!("`{text}`")
                    } else {
                        json_type(v).to_string()
                    };
                    cx.err(p.line, p.col, format!("bad priority {found}: {why}"));
                    None
                }
            }
        });
        if structural_errors {
            continue;
        }
        if let (Some(actor), Some(kind)) = (actor, kind) {
            raw.effects.push(RawEffect {
                index: i + 1,
                start,
                id,
                actor,
                passive_kw: false,
                kind,
                targets,
                priority,
            });
        }
    }
    raw
}

// ---------------------------------------------------------------------------------------
// Shared validation
// ---------------------------------------------------------------------------------------

const ACTION_LIST: &str =
    "visit, block, stop, protect, kill, strongkill, deflect, jail, commute, swap, redirect, guard, hide, babysit, track, watch, follow, voyeur, investigate";
const PASSIVE_LIST: &str =
    "bulletproof, unblockable, immune[K,...], reflexive:K or visited:K with K one of visit, block, stop, protect, kill, jail";

/// Checks a name's characters; records an error and returns false when it is not valid.
fn check_name(cx: &mut Ctx<'_>, t: &Tok, what: &str) -> bool {
    if t.text.is_empty() {
        cx.err_at(t, format!("empty {what}"));
        return false;
    }
    let Some(bad) = lex::NAMES.first_bad(&t.text) else {
        return true;
    };
    let hint = match bad {
        ',' => "; separate names with spaces",
        '@' => "; a priority is a separate word at the end of the line",
        ':' => "; only the first word of a line may carry an `ID:` prefix",
        _ => "",
    };
    cx.err_at(
        t,
        format!(
            "invalid character '{}' in {what} `{}` (names use only A-Z a-z 0-9 _ . -){hint}",
            bad.escape_debug(),
            t.text.escape_debug()
        ),
    );
    false
}

/// The message for a wrong number of targets, if any.
fn arity_problem(kind: Kind, n: usize) -> Option<String> {
    match kind {
        Kind::Action(a) => match a.arity() {
            (0, 0) if n != 0 => Some(format!("`{}` takes no targets, found {n}", a.name())),
            (k, l) if k == l && n != k => Some(format!(
                "`{}` takes exactly {k} target{}, found {n}",
                a.name(),
                if k == 1 { "" } else { "s" }
            )),
            (k, l) if l != usize::MAX && (n < k || n > l) => Some(format!(
                "`{}` takes {k} or {l} targets (`{} X to Y`), found {n}",
                a.name(),
                a.name()
            )),
            (_, usize::MAX) if n == 0 => Some(format!("`{}` needs at least one target", a.name())),
            _ => None,
        },
        Kind::Passive(_) if n > 0 => Some(format!("passive `{kind}` takes no targets")),
        Kind::Passive(_) => None,
    }
}

/// Resolves a kind word, a role name or a primitive with its modifiers (recording an
/// error when it is neither).
fn resolve_kind(cx: &mut Ctx<'_>, format: Format, e: &RawEffect) -> Option<(Kind, Mods)> {
    let t = &e.kind;
    let text = t.text.as_str();
    let role = roles::role(text);
    let action = match role {
        Some(r) if !r.passive => parse_kind_word(r.primitive, false),
        _ => parse_kind_word(text, false),
    };
    let passive = match role {
        Some(r) if r.passive => parse_kind_word(r.primitive, true),
        _ => parse_kind_word(text, true),
    };
    let found = match (format, e.passive_kw) {
        // A passive role may be written with or without `passive`.
        (Format::Night, true) => passive.clone().ok(),
        (Format::Night, false) if role.is_some_and(|r| r.passive) => passive.clone().ok(),
        (Format::Night, false) => action.clone().ok(),
        (Format::Json, _) => action.clone().or(passive.clone()).ok(),
    };
    if found.is_some() {
        return found;
    }
    let shown = text.escape_debug();
    let base = text.split('[').next().unwrap_or(text);
    let known_base = ActionKind::from_name(base).is_some()
        || Kind::passive_from_name(base).is_some()
        || base == "immune"
        || base == "strongkill"
        || Info::from_name(base).is_some();
    let msg = if format == Format::Night && e.passive_kw && action.is_ok() {
        format!("`{shown}` is an action, not a passive (write `ACTOR {shown} TARGET`)")
    } else if format == Format::Night && passive.is_ok() {
        format!(
            "`{shown}` is a passive: write `{} passive {shown}`",
            e.actor.text
        )
    } else if let Some((word, k)) = text
        .split_once(':')
        .filter(|&(w, _)| (w == "reflexive" || w == "visited") && !text.contains('['))
    {
        let k = k.escape_debug();
        format!(
            "bad {word} kind `{shown}`: `{k}` is not one of visit, block, stop, protect, kill, jail"
        )
    } else if known_base && text.contains('[') {
        // The filter is what is wrong: say why.
        let why = if e.passive_kw || format == Format::Json {
            passive.clone().err().or(action.clone().err())
        } else {
            action.clone().err()
        };
        why.unwrap_or_else(|| format!("bad kind `{shown}`"))
    } else if base == "immune" {
        "`immune` needs the kinds it turns away, as `immune[visit,block]`".into()
    } else if format == Format::Night && e.passive_kw {
        format!("unknown passive kind `{shown}` (expected {PASSIVE_LIST})")
    } else if format == Format::Json && text == "passive" {
        "unknown kind `passive` (in JSON a passive's kind is its name, e.g. \"bulletproof\")".into()
    } else if format == Format::Night {
        format!("unknown kind `{shown}` (expected {ACTION_LIST}, a role name, or `passive KIND`)")
    } else {
        format!("unknown kind `{shown}` (expected {ACTION_LIST}, {PASSIVE_LIST}, or a role name)")
    };
    cx.err_at(t, msg);
    None
}

/// Builds the ensemble from the intermediate form, recording every validation error.
fn build(cx: &mut Ctx<'_>, raw: RawNight) -> Ensemble {
    let mut ens = Ensemble::default();
    let mut index: HashMap<String, (Player, usize)> = HashMap::new();
    let declared_at = raw.players.as_ref().map(|(line, _)| *line);
    let players_where = match raw.format {
        Format::Night => "the `players:` line",
        Format::Json => "`players`",
    };
    if let Some((_, names)) = &raw.players {
        for t in names {
            if !check_name(cx, t, "player name") {
                continue;
            }
            if let Some(&(_, col)) = index.get(&t.text) {
                let msg = match raw.format {
                    Format::Night => format!(
                        "player `{}` is declared twice (first at column {col})",
                        t.text
                    ),
                    Format::Json => format!("player `{}` is declared twice", t.text),
                };
                cx.err_at(t, msg);
                continue;
            }
            index.insert(t.text.clone(), (ens.players.len() as Player, t.col));
            ens.players.push(t.text.clone());
        }
    }
    let mut player = |cx: &mut Ctx<'_>, ens: &mut Ensemble, t: &Tok| -> Option<Player> {
        if !check_name(cx, t, "player name") {
            return None;
        }
        if let Some(&(p, _)) = index.get(&t.text) {
            return Some(p);
        }
        if let Some(line) = declared_at {
            cx.err_at(
                t,
                format!(
                    "undeclared player `{}` (not in {players_where}, line {line})",
                    t.text
                ),
            );
            return None;
        }
        let p = ens.players.len() as Player;
        index.insert(t.text.clone(), (p, t.col));
        ens.players.push(t.text.clone());
        Some(p)
    };

    // id -> (line, col, explicit)
    let mut ids: HashMap<String, (usize, usize, bool)> = HashMap::new();
    let mut deflectors: HashMap<Player, usize> = HashMap::new();
    for e in &raw.effects {
        if cx.full() {
            break;
        }
        let before = cx.error_count();
        let actor = player(cx, &mut ens, &e.actor);
        let kind_mods = resolve_kind(cx, raw.format, e);
        let kind = kind_mods.map(|(k, _)| k);
        // A passive's targets are only reported as too many, not also as undeclared.
        let targets: Vec<Option<Player>> = match kind {
            Some(Kind::Passive(_)) => Vec::new(),
            _ => e.targets.iter().map(|t| player(cx, &mut ens, t)).collect(),
        };
        let id = match &e.id {
            Some(t) => {
                if check_name(cx, t, "id") && (t.text == "players" || t.text == "alignment") {
                    cx.err_at(
                        t,
                        format!(
                            "`{}` can not be an effect id (it starts the {} line)",
                            t.text, t.text
                        ),
                    );
                }
                t.text.clone()
            }
            None => format!("e{}", e.index),
        };
        if let Some(kind) = kind {
            if let Some(msg) = arity_problem(kind, e.targets.len()) {
                let at = match kind {
                    Kind::Action(ActionKind::Commute) => &e.targets[0],
                    Kind::Action(_) if e.targets.len() > 1 => &e.targets[1],
                    Kind::Passive(_) => &e.targets[0],
                    _ => &e.kind,
                };
                // A role's arity is its primitive's: say which primitive.
                let msg = match roles::role(&e.kind.text) {
                    Some(r) => format!("{msg} (`{}` is written as `{}`)", r.name, r.primitive),
                    None => msg,
                };
                cx.err_at(at, msg);
            }
            if let (Kind::Action(ActionKind::Deflect), Some(a), 1) = (kind, actor, e.targets.len())
            {
                if let Some(&line) = deflectors.get(&a) {
                    cx.err_at(
                        &e.kind,
                        format!(
                            "player `{}` already deflects (line {line}); a player may have at most one one-target `deflect`",
                            e.actor.text
                        ),
                    );
                } else {
                    deflectors.insert(a, e.start.line);
                }
            }
        }
        let (id_line, id_col) = match &e.id {
            Some(t) => (t.line, t.col),
            None => (e.start.line, e.start.col),
        };
        if let Some(&(line, col, explicit)) = ids.get(&id) {
            let id = id.escape_debug();
            let msg = match (e.id.is_some(), explicit) {
                (true, true) => format!("duplicate id `{id}` (already used at {line}:{col})"),
                (true, false) => format!(
                    "duplicate id `{id}`: it is the default id of the effect at {line}:{col}"
                ),
                (false, _) => format!(
                    "this effect's default id `{id}` is already used at {line}:{col}; give one of them another id"
                ),
            };
            cx.err(id_line, id_col, msg);
        } else {
            ids.insert(id.clone(), (id_line, id_col, e.id.is_some()));
        }
        if cx.error_count() > before {
            continue;
        }
        if let (Some(actor), Some((kind, mods))) = (actor, kind_mods) {
            ens.effects.push(Effect {
                id,
                actor,
                kind,
                mods,
                targets: targets.into_iter().flatten().collect(),
                priority: e.priority.unwrap_or(kind.default_priority()),
                span: Some(e.start),
            });
        }
    }
    let mut aligned: HashMap<Player, usize> = HashMap::new();
    for (who, what) in &raw.alignments {
        let Some(p) = player(cx, &mut ens, who) else {
            continue;
        };
        if !check_name(cx, what, "alignment") {
            continue;
        }
        if let Some(line) = aligned.insert(p, who.line) {
            cx.err_at(
                who,
                format!(
                    "the alignment of `{}` is already given (line {line})",
                    who.text
                ),
            );
            continue;
        }
        ens.alignments.push((p, what.text.clone()));
    }
    ens.alignments.sort();
    ens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::night::model::{PassiveKind, Trigger};
    use crate::text::test_util::{
        assert_errors_well_formed, assert_invalid_utf8_error, error_table, Case,
    };
    use crate::text::{LoadError, ParseError, MAX_ERRORS, MAX_FILE_BYTES};
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn path() -> &'static Path {
        Path::new("t.night")
    }

    fn night(src: &str) -> Ensemble {
        parse_night(src, path()).unwrap_or_else(|e| panic!("unexpected errors:\n{e}"))
    }

    fn json(src: &str) -> Ensemble {
        parse_json(src, Path::new("t.json")).unwrap_or_else(|e| panic!("unexpected errors:\n{e}"))
    }

    fn night_errs(src: &str) -> Vec<ParseError> {
        match parse_night(src, path()) {
            Ok(e) => panic!("{src:?}: expected errors, got {e:?}"),
            Err(e) => e.0,
        }
    }

    fn json_errs(src: &str) -> Vec<ParseError> {
        match parse_json(src, Path::new("t.json")) {
            Ok(e) => panic!("{src:?}: expected errors, got {e:?}"),
            Err(e) => e.0,
        }
    }

    fn unspanned(mut ens: Ensemble) -> Ensemble {
        for e in &mut ens.effects {
            e.span = None;
        }
        ens
    }

    fn sp(line: usize, col: usize) -> Option<Span> {
        Some(Span { line, col })
    }

    // ----- defaults -------------------------------------------------------------------

    #[test]
    fn defaults_ids_priorities_and_first_mention_order() {
        let ens = night(
            "R1 block R2\ncut_me: R3 block R1 @1\nV passive bulletproof\n\
             rS passive reflexive:stop\nV visit rS R1\n",
        );
        assert_eq!(ens.players, ["R1", "R2", "R3", "V", "rS"]);
        let ids: Vec<&str> = ens.effects.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["e1", "cut_me", "e3", "e4", "e5"]);
        let prios: Vec<u32> = ens.effects.iter().map(|e| e.priority).collect();
        assert_eq!(prios, [2, 1, 0, 0, 6]);
        let e = &ens.effects;
        assert_eq!(e[0].kind, Kind::Action(ActionKind::Block));
        assert_eq!((e[0].actor, e[0].targets.clone()), (0, vec![1]));
        assert_eq!((e[1].actor, e[1].targets.clone()), (2, vec![0]));
        assert_eq!(e[2].kind, Kind::Passive(PassiveKind::Bulletproof));
        assert_eq!((e[2].actor, e[2].targets.clone()), (3, vec![]));
        assert_eq!(
            e[3].kind,
            Kind::Passive(PassiveKind::Reflexive(ActionKind::Stop, Trigger::Success))
        );
        assert_eq!((e[4].actor, e[4].targets.clone()), (3, vec![4, 0]));
        let spans: Vec<_> = e.iter().map(|e| e.span).collect();
        assert_eq!(spans, [sp(1, 1), sp(2, 1), sp(3, 1), sp(4, 1), sp(5, 1)]);
    }

    #[test]
    fn every_kind_and_its_default_priority() {
        let ens = night(
            "A visit B\nA block B\nA stop B\nA protect B\nA kill B\nA deflect B\n\
             A passive bulletproof\nA passive unblockable\nA passive reflexive:visit\n\
             A passive reflexive:block\nA passive reflexive:protect\nA passive reflexive:kill\n\
             A passive visited:kill\nA paranoid_gun_owner",
        );
        let got: Vec<(String, u32)> = ens
            .effects
            .iter()
            .map(|e| (e.kind.to_string(), e.priority))
            .collect();
        let want = [
            ("visit", 6),
            ("block", 2),
            ("stop", 3),
            ("protect", 4),
            ("kill", 5),
            ("deflect", 1),
            ("bulletproof", 0),
            ("unblockable", 0),
            ("reflexive:visit", 0),
            ("reflexive:block", 0),
            ("reflexive:protect", 0),
            ("reflexive:kill", 0),
            ("visited:kill", 0),
            ("visited:kill", 0),
        ];
        let want: Vec<(String, u32)> = want.iter().map(|(k, p)| (k.to_string(), *p)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn players_line_gives_declared_order() {
        let ens = night("players: V R2 R1 X\nR1 block R2\n");
        assert_eq!(ens.players, ["V", "R2", "R1", "X"]);
        assert_eq!(ens.effects[0].actor, 2);
        assert_eq!(ens.effects[0].targets, [1]);
        assert_eq!(ens.effects[0].id, "e1", "the players line is not an effect");
        // Without a space after the colon, and an empty players line.
        assert_eq!(night("players:A B\n").players, ["A", "B"]);
        assert_eq!(night("players:\n"), Ensemble::default());
        assert_eq!(night(""), Ensemble::default());
        assert_eq!(night("# only a comment\n\n   \n"), Ensemble::default());
    }

    #[test]
    fn comments_blank_lines_crlf_tabs_and_bom() {
        let ens = night("\u{FEFF}# header\r\n\r\n  R1\tkill R2 # bang\r\nR2 visit R1#x\r\n");
        assert_eq!(ens.players, ["R1", "R2"]);
        assert_eq!(ens.effects.len(), 2);
        assert_eq!(ens.effects[0].id, "e1");
        assert_eq!(ens.effects[0].span, sp(3, 3));
        assert_eq!(ens.effects[1].id, "e2");
        assert_eq!(ens.effects[1].targets, [0]);
    }

    #[test]
    fn id_prefix_forms_and_priority_forms() {
        let ens = night("a:R1 block R2 @007\nb.c-d_9: R2 block R1 @4294967295\nR1 visit R1 R1 @0");
        assert_eq!(ens.effects[0].id, "a");
        assert_eq!(ens.effects[0].actor, 0);
        assert_eq!(ens.effects[0].priority, 7);
        assert_eq!(ens.effects[1].id, "b.c-d_9");
        assert_eq!(ens.effects[1].priority, u32::MAX);
        assert_eq!(ens.effects[2].id, "e3");
        assert_eq!(ens.effects[2].priority, 0);
        assert_eq!(
            ens.effects[2].targets,
            [0, 0],
            "self and repeated targets are allowed"
        );
    }

    #[test]
    fn keywords_are_valid_player_names() {
        let ens = night("passive passive bulletproof\nblock block passive\nplayers visit block\n");
        assert_eq!(ens.players, ["passive", "block", "players"]);
        let e = &ens.effects;
        assert_eq!(
            (e[0].actor, e[0].kind),
            (0, Kind::Passive(PassiveKind::Bulletproof))
        );
        assert_eq!((e[1].actor, e[1].targets.clone()), (1, vec![0]));
        assert_eq!(e[1].kind, Kind::Action(ActionKind::Block));
        assert_eq!((e[2].actor, e[2].targets.clone()), (2, vec![1]));
    }

    // ----- night errors ---------------------------------------------------------------

    /// Unknown, misplaced and miscased kinds.
    #[rustfmt::skip]
    const UNKNOWN_KINDS: &[Case] = &[
        ("R1 block R2\nR1 smash R2", 2, 4, "unknown kind `smash`"),
        ("V bulletproof", 1, 3, "`bulletproof` is a passive: write `V passive bulletproof`"),
        ("V passive shiny", 1, 11, "unknown passive kind `shiny`"),
        ("V passive kill", 1, 11, "`kill` is an action, not a passive"),
        ("V passive reflexive:deflect", 1, 11, "bad reflexive kind"),
        ("V reflexive:stop", 1, 3, "is a passive"),
        ("V Block W", 1, 3, "unknown kind `Block`"),
    ];

    #[test]
    fn unknown_kinds() {
        error_table(UNKNOWN_KINDS, |s| parse_night(s, path()));
    }

    /// Filters, modifiers, role names and alignment lines that are not right.
    #[rustfmt::skip]
    const BAD_ROLES_AND_MODIFIERS: &[Case] = &[
        ("K block[kil] G", 1, 3, "`kil` in `block[kil]` is not an action kind"),
        ("K block[kill G", 1, 3, "a filter ends with `]`"),
        ("G kill[kill] V", 1, 3, "`kill` takes no filter"),
        ("A passive immune", 1, 11, "`immune` needs the kinds it turns away"),
        ("A passive bulletproof[kill]", 1, 11, "`bulletproof` takes no filter"),
        ("C commute G", 1, 11, "`commute` takes no targets, found 1"),
        ("C commuter G", 1, 12, "`commute` takes no targets, found 1"),
        ("S strongman X Y", 1, 15, "`kill` takes exactly 1 target, found 2"),
        ("B passive doctor", 1, 11, "`doctor` is an action, not a passive"),
        ("alignment: Goon\nGoon kill V", 1, 12, "write alignments as `PLAYER=ALIGNMENT`"),
        ("alignment:\nGoon kill V", 1, 1, "empty `alignment:` line"),
        ("alignment: Goon=mafia Goon=town\nGoon kill V", 1, 23, "the alignment of `Goon` is already given (line 1)"),
        ("players: Goon V\nalignment: Cop=town\nGoon kill V", 2, 12, "undeclared player `Cop`"),
        ("alignment: Goon=ma!fia\nGoon kill V", 1, 17, "invalid character '!' in alignment"),
    ];

    #[test]
    fn bad_roles_and_modifiers() {
        error_table(BAD_ROLES_AND_MODIFIERS, |s| parse_night(s, path()));
    }

    /// A role name reads exactly as its primitive (the property the role table promises):
    /// the same ensemble, kind, modifiers and default priority.
    #[test]
    fn roles_read_as_their_primitives() {
        for r in super::roles::ROLES {
            let (kind, _) = parse_kind_word(r.primitive, r.passive).expect("a primitive");
            let targets = match kind {
                Kind::Action(a) => " B".repeat(a.arity().0),
                Kind::Passive(_) => String::new(),
            };
            let written = if r.passive { "passive " } else { "" };
            let by_role = night(&format!("A {}{targets}\nA visit B", r.name));
            let by_kind = night(&format!("A {written}{}{targets}\nA visit B", r.primitive));
            assert_eq!(unspanned(by_role), unspanned(by_kind), "{}", r.name);
        }
    }

    /// Too many or too few targets.
    #[rustfmt::skip]
    const WRONG_ARITY: &[Case] = &[
        ("K kill", 1, 3, "`kill` takes exactly 1 target, found 0"),
        ("K kill A B", 1, 10, "`kill` takes exactly 1 target, found 2"),
        ("D deflect A B C", 1, 13, "`deflect` takes 1 or 2 targets (`deflect X to Y`), found 3"),
        ("D deflect A to B C", 1, 13, "`deflect` takes 1 or 2 targets (`deflect X to Y`), found 4"),
        ("B swap A", 1, 3, "`swap` takes exactly 2 targets, found 1"),
        ("B bus_driver A C D", 1, 16, "`swap` takes exactly 2 targets, found 3"),
        ("R redirect A", 1, 3, "`redirect` takes exactly 2 targets, found 1"),
        ("G bodyguard A B", 1, 15, "`guard` takes exactly 1 target, found 2"),
        ("B block", 1, 3, "`block` needs at least one target"),
        ("B visit # nobody", 1, 3, "`visit` needs at least one target"),
        ("V passive bulletproof X", 1, 23, "passive `bulletproof` takes no targets"),
        ("players: V\nV passive unblockable X", 2, 23, "passive `unblockable` takes no targets"),
    ];

    #[test]
    fn wrong_arity() {
        error_table(WRONG_ARITY, |s| parse_night(s, path()));
    }

    /// Undeclared and duplicate players.
    #[rustfmt::skip]
    const PLAYERS: &[Case] = &[
        ("players: A B\nA block C", 2, 9, "undeclared player `C`"),
        ("players: A\nZ visit A", 2, 1, "undeclared player `Z`"),
        ("players: A B A\nA visit B", 1, 14, "player `A` is declared twice"),
    ];

    #[test]
    fn undeclared_and_duplicate_players() {
        error_table(PLAYERS, |s| parse_night(s, path()));
        // Both undeclared targets are reported.
        let errs = night_errs("players: A\nA block X Y");
        assert_eq!(errs.len(), 2);
        assert_eq!((errs[0].col, errs[1].col), (9, 11));
    }

    /// A misplaced or repeated `players:` line.
    #[rustfmt::skip]
    const PLAYERS_LINE: &[Case] = &[
        ("A block B\nplayers: A B", 2, 1, "must come before the first effect"),
        ("players: A\nplayers: A", 2, 1, "second `players:` line (the first is line 1)"),
    ];

    #[test]
    fn players_line_placement() {
        error_table(PLAYERS_LINE, |s| parse_night(s, path()));
        // A comment before the players line is fine.
        assert_eq!(night("# x\nplayers: B A\nA visit B").players, ["B", "A"]);
    }

    /// Explicit and default ids that collide.
    #[rustfmt::skip]
    const DUPLICATE_IDS: &[Case] = &[
        ("x: A block B\nx: B block A", 2, 1, "duplicate id `x` (already used at 1:1)"),
        ("e2: A block B\nB block A", 2, 1, "this effect's default id `e2` is already used at 1:1"),
        ("A block B\n  e1: B block A", 2, 3, "duplicate id `e1`: it is the default id of the effect at 1:1"),
    ];

    #[test]
    fn duplicate_ids() {
        error_table(DUPLICATE_IDS, |s| parse_night(s, path()));
        // An explicit id equal to the effect's own default id is fine.
        assert_eq!(night("e1: A visit B").effects[0].id, "e1");
    }

    /// Malformed, negative, too large and misplaced priorities.
    #[rustfmt::skip]
    const BAD_PRIORITIES: &[Case] = &[
        ("A block B @x", 1, 11, "bad priority `@x`: a priority is a non-negative integer"),
        ("A block B @-1", 1, 11, "priorities can not be negative"),
        ("A block B @", 1, 11, "missing priority after `@`"),
        ("A block B @ 3", 1, 11, "missing priority after `@`"),
        ("A block B @99999999999", 1, 11, "too large"),
        ("A block B @4294967296", 1, 11, "too large"),
        ("A block B @1.5", 1, 11, "bad priority"),
        ("A block @2 B", 1, 9, "the priority `@2` must be the last word"),
        ("A block B @2 @3", 1, 11, "the priority `@2` must be the last word"),
    ];

    #[test]
    fn bad_priorities() {
        error_table(BAD_PRIORITIES, |s| parse_night(s, path()));
    }

    /// A second deflection by the same player is reported at the second.
    #[rustfmt::skip]
    const TWO_DEFLECTIONS: &[Case] = &[
        ("D deflect A\nA visit D\nD deflect B", 3, 3, "player `D` already deflects (line 1)"),
    ];

    #[test]
    fn two_deflections_point_at_the_second() {
        error_table(TWO_DEFLECTIONS, |s| parse_night(s, path()));
        // Two players deflecting once each is fine.
        assert_eq!(night("D1 deflect D2\nD2 deflect D1").effects.len(), 2);
    }

    /// Invalid characters in player names and ids.
    #[rustfmt::skip]
    const BAD_NAME_CHARACTERS: &[Case] = &[
        ("A block B,C", 1, 9, "invalid character ',' in player name `B,C`"),
        ("A block R2@2", 1, 9, "invalid character '@'"),
        ("Ä visit B", 1, 1, "invalid character 'Ä'"),
        ("players: A B$\nA visit A", 1, 12, "invalid character '$'"),
        ("x$y: A visit B", 1, 1, "invalid character '$' in id `x$y`"),
        ("a:b:c visit B", 1, 3, "invalid character ':' in player name `b:c`"),
    ];

    #[test]
    fn bad_name_characters() {
        error_table(BAD_NAME_CHARACTERS, |s| parse_night(s, path()));
    }

    /// Missing actors, kinds, ids and passive kinds.
    #[rustfmt::skip]
    const MISSING_WORDS: &[Case] = &[
        ("A", 1, 2, "missing kind after the actor `A`"),
        ("A   # comment", 1, 2, "missing kind after the actor `A`"),
        ("A @3", 1, 3, "missing kind after the actor `A`"),
        ("@3", 1, 1, "missing actor and kind"),
        ("cut:", 1, 5, "expected an effect"),
        ("  cut:   # c", 1, 7, "expected an effect"),
        ("cut: @2", 1, 6, "expected an effect"),
        (":A block B", 1, 1, "missing id before `:`"),
        ("V passive", 1, 10, "missing passive kind after `passive`"),
        ("V passive @0", 1, 11, "missing passive kind after `passive`"),
    ];

    #[test]
    fn missing_words() {
        error_table(MISSING_WORDS, |s| parse_night(s, path()));
    }

    #[test]
    fn a_bad_priority_does_not_hide_other_errors() {
        let errs = night_errs("A smash B @x");
        let got: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.col)).collect();
        assert_eq!(got, [(1, 3), (1, 11)]);
        assert!(errs[1].message.contains("bad priority `@x`"));
        let src = "{\"effects\": [{\"actor\": \"A\", \"kind\": \"smash\", \"priority\": true}]}";
        let errs = json_errs(src);
        let got: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.col)).collect();
        assert_eq!(got, [(1, 37), (1, 58)]);
        assert!(errs[1].message.contains("bad priority a boolean"));
    }

    #[test]
    fn errors_are_collected_sorted_and_capped() {
        let errs = night_errs("A smash B\nA block\nC\nok: A visit B\nok: B visit A\n");
        let got: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.col)).collect();
        assert_eq!(got, [(1, 3), (2, 3), (3, 2), (5, 1)]);
        let many: String = (0..50).map(|i| format!("A{i} smash B\n")).collect();
        let errs = night_errs(&many);
        assert_eq!(errs.len(), MAX_ERRORS);
        assert_eq!(errs[19].line, 20);
    }

    #[test]
    fn error_display() {
        let err =
            parse_night("A block B\n\tA smash B # x\n", Path::new("dir/f.night")).unwrap_err();
        assert_eq!(err.0[0].source_line, "\tA smash B # x");
        assert_eq!(err.0[0].col, 4);
        let msg = err.0[0].message.clone();
        assert_eq!(
            err.rendered(),
            format!("error: {msg}\n --> dir/f.night:2:4\n  |\n2 |     A smash B # x\n  |       ^")
        );
        assert_eq!(err.to_string(), format!("dir/f.night:2:4: {msg}"));
        let two = parse_night("A smash B\nA block", Path::new("f")).unwrap_err();
        let text = two.rendered();
        assert!(text.starts_with("error: unknown kind `smash`"), "{text}");
        assert!(
            text.contains(
                "\nerror: `block` needs at least one target\n --> f:2:3\n  |\n2 | A block\n  |   ^\n2 errors"
            ),
            "{text}"
        );
        assert!(text.ends_with("\n2 errors"), "{text}");
    }

    #[test]
    fn long_lines_are_shown_as_a_window() {
        let line = format!("A visit {}B,C B", "B ".repeat(200));
        let err = parse_night(&line, path()).unwrap_err();
        let e = &err.0[0];
        assert_eq!(e.col, 8 + 400 + 1);
        let shown = e.rendered();
        assert!(
            shown.contains(&format!("--> t.night:1:{}", e.col)),
            "{shown}"
        );
        let mut rows = shown.lines().skip(3);
        let text_row = rows.next().unwrap();
        let caret_row = rows.next().unwrap();
        assert!(
            text_row.starts_with("1 | ...") && text_row.len() < 200,
            "{text_row}"
        );
        // The caret is under the offending `B,C`.
        let caret = caret_row.find('^').unwrap();
        assert_eq!(&text_row[caret..caret + 3], "B,C");
    }

    // ----- JSON -----------------------------------------------------------------------

    const SAMPLE_NIGHT: &str = "players: R1 R2 R3 V rS
R1 block R2
cut_me: R3 block R1 @1
V passive bulletproof
rS passive reflexive:stop
V visit rS R1 @9
";

    const SAMPLE_JSON: &str = r#"{"players": ["R1", "R2", "R3", "V", "rS"],
 "effects": [
  {"actor": "R1", "kind": "block", "targets": ["R2"]},
  {"id": "cut_me", "actor": "R3", "kind": "block", "targets": ["R1"], "priority": 1},
  {"id": null, "actor": "V", "kind": "bulletproof", "targets": [], "priority": null},
  {"actor": "rS", "kind": "reflexive:stop"},
  {"id": "e5", "actor": "V", "kind": "visit", "targets": ["rS", "R1"], "priority": 9}
 ]}"#;

    #[test]
    fn json_and_night_agree() {
        let from_json = json(SAMPLE_JSON);
        let from_night = night(SAMPLE_NIGHT);
        assert_eq!(unspanned(from_json.clone()), unspanned(from_night));
        let spans: Vec<_> = from_json.effects.iter().map(|e| e.span).collect();
        assert_eq!(spans, [sp(3, 3), sp(4, 3), sp(5, 3), sp(6, 3), sp(7, 3)]);
        // Same through parse_str, by extension or by content.
        let by_ext = parse_str(SAMPLE_JSON, Path::new("x.JSON")).unwrap();
        let by_content = parse_str(&format!("\n  {SAMPLE_JSON}"), Path::new("x.night")).unwrap();
        assert_eq!(unspanned(by_ext), unspanned(by_content.clone()));
        assert_eq!(by_content.effects[0].span, sp(4, 3));
        let as_night = parse_str(SAMPLE_NIGHT, Path::new("x.txt")).unwrap();
        assert_eq!(as_night.effects.len(), 5);
    }

    #[test]
    fn json_without_players_and_with_extra_top_level_fields() {
        let src = r#"{"classification": "quasi-paradox",
          "effects": [{"id": "e1", "actor": "R1", "kind": "block", "targets": ["R2"], "priority": 2},
                      {"id": "e2", "actor": "R2", "kind": "block", "targets": ["R1"], "priority": 2}],
          "resolutions": [{"succeeded": ["e1"]}], "cuts": null}"#;
        let ens = json(src);
        let want = Ensemble::from_triples(&[("R1", "block", &["R2"]), ("R2", "block", &["R1"])]);
        assert_eq!(unspanned(ens), want);
        assert_eq!(json(r#"{"effects": []}"#), Ensemble::default());
    }

    /// JSON syntax errors, at the positions serde reports.
    #[rustfmt::skip]
    const JSON_SYNTAX: &[Case] = &[
        ("{\"effects\": [\n  {\"actor\": \"A\",, }\n]}", 2, 17, "key must be a string"),
        ("", 1, 1, "EOF while parsing a value"),
        ("{\"effects\": [\n", 2, 1, "EOF while parsing a list"),
        ("[1]", 1, 1, "expected a JSON object with an `effects` array"),
        (" [null, []]", 1, 2, "expected a JSON object"),
        ("3", 1, 1, "expected a JSON object"),
        (r#"{"effects": []} x"#, 1, 17, "trailing characters"),
    ];

    #[test]
    fn json_syntax_errors_use_serde_positions() {
        error_table(JSON_SYNTAX, |s| parse_json(s, Path::new("t.json")));
    }

    /// Errors inside effects, located at the offending value or key.
    #[rustfmt::skip]
    const JSON_IN_EFFECTS: &[Case] = &[
        ("{\"effects\": [\n  {\"actor\": \"A\", \"kind\": \"block\", \"targets\": [\"B\"]},\n  {\"actor\": \"B\", \"kind\": \"block\", \"target\": [\"A\"]}\n]}", 3, 35, "unknown field `target`"),
        (r#"{"effects": [{"actor": "A", "actor": "B"}]}"#, 1, 29, "duplicate field `actor`"),
        ("{\"effects\": [\n  {\"actor\": \"A\",\n   \"kind\": \"smash\",\n   \"targets\": [\"B\"]}]}", 3, 12, "unknown kind `smash`"),
        (r#"{"effects": [{"actor": "A", "kind": "kill", "targets": ["B", "C"]}]}"#, 1, 62, "`kill` takes exactly 1 target, found 2"),
        ("{\"players\": [\"A\"],\n \"effects\": [{\"actor\": \"A\", \"kind\": \"visit\", \"targets\": [\"Z\"]}]}", 2, 58, "undeclared player `Z` (not in `players`, line 1)"),
        (r#"{"players": ["A", "A"], "effects": []}"#, 1, 19, "player `A` is declared twice"),
        (r#"{"effects": [{"actor": "A", "kind": "bulletproof", "targets": ["B"]}]}"#, 1, 64, "passive `bulletproof` takes no targets"),
        (r#"{"effects": [{"actor": "A", "kind": "passive"}]}"#, 1, 37, "in JSON a passive's kind is its name"),
        ("{\"effects\": [{\"actor\": \"A\", \"kind\": \"block\", \"targets\": [\"B\"]},\n {\"id\": \"e1\", \"actor\": \"B\", \"kind\": \"visit\", \"targets\": [\"A\"]}]}", 2, 9, "duplicate id `e1`: it is the default id of the effect at 1:14"),
        ("{\"effects\": [{\"actor\": \"D\", \"kind\": \"deflect\", \"targets\": [\"B\"]},\n {\"actor\": \"D\", \"kind\": \"deflect\", \"targets\": [\"C\"]}]}", 2, 25, "player `D` already deflects (line 1)"),
        (r#"{"effects": [{"id": "players", "actor": "A", "kind": "visit", "targets": ["A"]}]}"#, 1, 21, "`players` can not be an effect id"),
        (r#"{"effects": [{"actor": "A b", "kind": "visit", "targets": ["A"]}]}"#, 1, 24, "invalid character ' ' in player name `A b`"),
        (r#"{"effects": [{"actor": "", "kind": "visit", "targets": ["A"]}]}"#, 1, 24, "empty player name"),
    ];

    #[test]
    fn json_errors_inside_effects_are_located() {
        error_table(JSON_IN_EFFECTS, |s| parse_json(s, Path::new("t.json")));
    }

    /// Well-formed JSON of the wrong shape.
    #[rustfmt::skip]
    const JSON_SHAPES: &[Case] = &[
        (r#"{"players": []}"#, 1, 1, "missing `effects` array"),
        (r#"  {"effects": null}"#, 1, 3, "missing `effects` array"),
        (r#"{"effects": {}}"#, 1, 13, "`effects` must be an array"),
        (r#"{"effects": [], "players": "A"}"#, 1, 28, "`players` must be an array"),
        (r#"{"effects": [3]}"#, 1, 14, "expected an effect object, found a number"),
        (r#"{"effects": [["A", "visit"]]}"#, 1, 14, "found an array"),
        (r#"{"effects": [{"kind": "visit"}]}"#, 1, 14, "effect has no `actor`"),
        (r#"{"effects": [{"actor": "A"}]}"#, 1, 14, "effect has no `kind`"),
        (r#"{"effects": [{"actor": 7, "kind": "visit", "targets": ["A"]}]}"#, 1, 24, "`actor` must be a string"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": "A"}]}"#, 1, 57, "`targets` must be an array"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": [1]}]}"#, 1, 58, "a player name must be a string"),
    ];

    #[test]
    fn json_shape_errors() {
        error_table(JSON_SHAPES, |s| parse_json(s, Path::new("t.json")));
    }

    /// Bad priorities; the value starts at column 76, and messages stay on one line
    /// whatever the value.
    #[rustfmt::skip]
    const JSON_PRIORITIES: &[Case] = &[
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": -1}]}"#, 1, 76, "bad priority `-1`: priorities can not be negative"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": "2"}]}"#, 1, 76, "a priority is a non-negative integer"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": 2.5}]}"#, 1, 76, "a priority is a non-negative integer"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": 1e3}]}"#, 1, 76, "a priority is a non-negative integer"),
        (r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": 4294967296}]}"#, 1, 76, "too large"),
        ("{\"effects\": [{\"actor\": \"A\", \"kind\": \"visit\", \"targets\": [\"A\"], \"priority\": [\n 1]}]}", 1, 76, "bad priority an array: a priority is"),
    ];

    #[test]
    fn json_bad_priorities() {
        error_table(JSON_PRIORITIES, |s| parse_json(s, Path::new("t.json")));
        let max = r#"{"effects": [{"actor": "A", "kind": "visit", "targets": ["A"], "priority": 4294967295}]}"#;
        assert_eq!(json(max).effects[0].priority, u32::MAX);
    }

    #[test]
    fn big_inputs_parse_in_linear_time() {
        // One line of JSON with 20000 effects, then 100000 night lines: quadratic
        // column counting would take minutes.
        let effects: Vec<String> = (0..20000)
            .map(|i| {
                format!(
                    "{{\"actor\": \"é{i:05}\", \"kind\": \"visit\", \"targets\": [\"P{i:05}\"]}}"
                )
            })
            .collect();
        let src = format!("{{\"effects\": [{}]}}", effects.join(", "));
        let err = parse_json(&src, path()).unwrap_err();
        assert_eq!(err.0.len(), MAX_ERRORS);
        // Each effect is 59 characters plus ", " between them; the actor is at +11.
        assert_eq!(err.0[19].col, 13 + 19 * 61 + 11);
        let ok = src.replace('é', "x");
        assert_eq!(json(&ok).effects.len(), 20000);
        let night_src: String = (0..100_000).map(|i| format!("A{i} kill B{i}\n")).collect();
        let ens = night(&night_src);
        assert_eq!(ens.effects[99_999].id, "e100000");
        assert_eq!(ens.players.len(), 200_000);
    }

    /// Columns count characters: "zap" is at byte column 50, but each é is one column.
    #[rustfmt::skip]
    const JSON_UNICODE: &[Case] = &[
        (r#"{"x": "éé", "effects": [{"actor": "A", "kind": "zap", "targets": ["B"]}]}"#, 1, 48, "unknown kind `zap`"),
    ];

    #[test]
    fn json_unicode_columns_count_characters() {
        error_table(JSON_UNICODE, |s| parse_json(s, Path::new("t.json")));
    }

    // ----- load ---------------------------------------------------------------------

    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gordian-parse-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn load_reads_both_formats() {
        let n = temp_file("a.night", SAMPLE_NIGHT.as_bytes());
        let j = temp_file("a.json", SAMPLE_JSON.as_bytes());
        assert_eq!(unspanned(load(&n).unwrap()), unspanned(load(&j).unwrap()));
    }

    #[test]
    fn load_reports_invalid_utf8_with_a_position() {
        let p = temp_file("bad.night", b"A block B\nA \xff kill B\n");
        match load(&p) {
            Err(LoadError::Parse(ParseErrors(errs))) => {
                assert_eq!(errs.len(), 1, "{errs:#?}");
                assert_eq!((errs[0].line, errs[0].col), (2, 3));
                assert!(errs[0].message.contains("invalid UTF-8 (byte 0xff)"));
                assert_eq!(errs[0].source_line, "A \u{FFFD} kill B");
                assert_eq!(errs[0].file, p);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn load_io_errors_name_the_file() {
        let missing = std::env::temp_dir().join("gordian-surely-missing/x.night");
        let err = load(&missing).unwrap_err();
        assert!(matches!(err, LoadError::Io { .. }));
        assert!(err
            .to_string()
            .starts_with(&format!("cannot read {}: ", missing.display())));
        let big = temp_file("big.night", &vec![b'\n'; MAX_FILE_BYTES as usize + 1]);
        let err = load(&big).unwrap_err();
        assert!(err.to_string().contains("larger than 16 MiB"), "{err}");
        std::fs::remove_file(&big).unwrap();
        let ok = temp_file("ok.night", &vec![b'\n'; MAX_FILE_BYTES as usize]);
        assert_eq!(load(&ok).unwrap(), Ensemble::default());
        std::fs::remove_file(&ok).unwrap();
    }

    #[test]
    fn load_parse_errors_display_like_parse_errors() {
        let p = temp_file("err.night", b"A smash B\n");
        let err = load(&p).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("{}:1:3: unknown kind", p.display())),
            "{err}"
        );
        let crate::text::LoadError::Parse(err) = err else {
            panic!("not a parse error: {err:?}")
        };
        let shown = err.rendered();
        assert!(shown.starts_with("error: unknown kind"), "{shown}");
        assert!(
            shown.contains(&format!("--> {}:1:3", p.display())),
            "{shown}"
        );
    }

    // ----- to_night and validate ----------------------------------------------------

    #[test]
    fn to_night_writes_explicit_ids_and_priorities() {
        let ens = night(SAMPLE_NIGHT);
        let text = to_night(&ens);
        assert_eq!(
            text,
            "players: R1 R2 R3 V rS\ne1: R1 block R2 @2\ncut_me: R3 block R1 @1\n\
             e3: V passive bulletproof @0\ne4: rS passive reflexive:stop @0\n\
             e5: V visit rS R1 @9\n"
        );
        assert_eq!(unspanned(night(&text)), unspanned(ens));
        // Unused declared players survive, and ids that look like other defaults.
        let ens = night("players: Z A B\ne2: A kill B\ne1: B visit A");
        assert_eq!(unspanned(night(&to_night(&ens))), unspanned(ens));
    }

    #[test]
    fn validate_checks_model_invariants() {
        let good = Ensemble::from_triples(&[("D", "deflect", &["A"]), ("A", "visit", &["D"])]);
        assert_eq!(validate(&good), Ok(()));
        let mut bad = good.clone();
        bad.effects[1].kind = Kind::Action(ActionKind::Deflect);
        bad.effects[1].actor = 0;
        bad.effects[1].id = "e1".into();
        bad.effects[0].targets = vec![9];
        bad.effects[0].mods.pierce = true;
        let problems = validate(&bad).unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:#?}");
    }

    // ----- property tests -----------------------------------------------------------

    /// Whatever parses also validates and round-trips through `to_night`.
    fn check_result(src: &str, r: &Result<Ensemble, ParseErrors>) {
        match r {
            Ok(ens) => {
                assert_eq!(validate(ens), Ok(()));
                let again = parse_night(&to_night(ens), path()).unwrap();
                assert_eq!(unspanned(again), unspanned(ens.clone()));
            }
            Err(errs) => assert_errors_well_formed(src, errs),
        }
    }

    const NIGHT_VOCAB: &[&str] = &[
        "R1",
        "R2",
        "V",
        "D",
        "players:",
        "players",
        "passive",
        "visit",
        "block",
        "stop",
        "protect",
        "kill",
        "deflect",
        "bulletproof",
        "unblockable",
        "reflexive:stop",
        "reflexive:kill",
        "reflexive:deflect",
        "reflexive:",
        "@",
        "@0",
        "@3",
        "@-1",
        "@x",
        "@99999999999",
        ":",
        "cut:",
        "e1:",
        "e2:",
        "e2",
        "e1",
        "#",
        "# note",
        "é",
        "ß@",
        "R,1",
        "\t",
        "  ",
        "\r",
        "{",
        "}",
        "\"",
        "0",
        "42",
        ".",
        "-",
        "_",
        "\u{FEFF}",
        "\u{0}",
    ];

    const JSON_VOCAB: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"effects\"",
        "\"players\"",
        "\"actor\"",
        "\"kind\"",
        "\"targets\"",
        "\"id\"",
        "\"priority\"",
        "\"R1\"",
        "\"R2\"",
        "\"block\"",
        "\"kill\"",
        "\"bulletproof\"",
        "\"passive\"",
        "\"e1\"",
        "2",
        "-1",
        "1.5",
        "null",
        "\n",
        " ",
        "\"é\"",
        "\"a\\u00e9\"",
        "\r\n",
        "\"",
    ];

    fn night_text() -> impl Strategy<Value = String> {
        let line = prop::collection::vec(prop::sample::select(NIGHT_VOCAB), 0..8)
            .prop_map(|ws| ws.join(" "));
        prop::collection::vec(line, 0..12).prop_map(|ls| ls.join("\n"))
    }

    fn json_token_text() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(JSON_VOCAB), 0..40).prop_map(|ts| ts.concat())
    }

    /// Well-formed JSON with random effect objects (valid or not), pretty-printed or not.
    fn json_value_text() -> impl Strategy<Value = String> {
        let value = prop::sample::select(vec![
            serde_json::json!("R1"),
            serde_json::json!("R2"),
            serde_json::json!("block"),
            serde_json::json!("kill"),
            serde_json::json!("deflect"),
            serde_json::json!("reflexive:stop"),
            serde_json::json!("é x"),
            serde_json::json!("e1"),
            serde_json::json!(["R1"]),
            serde_json::json!(["R1", "R2"]),
            serde_json::json!([]),
            serde_json::json!(3),
            serde_json::json!(-3),
            serde_json::json!(null),
            serde_json::json!({}),
        ]);
        let field = prop::sample::select(vec!["id", "actor", "kind", "targets", "priority", "x"]);
        let effect = prop::collection::vec((field, value.clone()), 0..6).prop_map(|fs| {
            serde_json::Value::Object(fs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        });
        (
            prop::collection::vec(effect, 0..5),
            prop::option::of(value),
            any::<bool>(),
        )
            .prop_map(|(effects, players, pretty)| {
                let mut top = serde_json::Map::new();
                if let Some(p) = players {
                    top.insert("players".into(), p);
                }
                top.insert("effects".into(), serde_json::Value::Array(effects));
                let v = serde_json::Value::Object(top);
                if pretty {
                    serde_json::to_string_pretty(&v).unwrap()
                } else {
                    serde_json::to_string(&v).unwrap()
                }
            })
    }

    /// Every kind word the reader knows (modifiers included), and whether it is passive.
    const KINDS: [(&str, bool); 34] = [
        ("hide", false),
        ("babysit", false),
        ("swap", false),
        ("redirect", false),
        ("guard", false),
        ("deflect[kill]", false),
        ("guard[kill,visit]", false),
        ("visit", false),
        ("block", false),
        ("stop", false),
        ("protect", false),
        ("kill", false),
        ("deflect", false),
        ("jail", false),
        ("commute", false),
        ("strongkill", false),
        ("track", false),
        ("watch", false),
        ("follow", false),
        ("voyeur", false),
        ("investigate", false),
        ("block[kill]", false),
        ("stop[visit,kill]", false),
        ("protect[kill,block]", false),
        ("jail[kill]", false),
        ("bulletproof", true),
        ("unblockable", true),
        (
            "immune[visit,block,stop,protect,deflect,jail,swap,redirect,guard,hide,babysit]",
            true,
        ),
        ("reflexive:visit", true),
        ("reflexive:block", true),
        ("reflexive:stop", true),
        ("reflexive:protect", true),
        ("reflexive:kill", true),
        ("reflexive:kill[kill]", true),
    ];

    fn arb_name() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[A-Za-z0-9_.-]{1,6}",
            1 => prop::sample::select(vec!["passive", "players", "block", "e1", "e2", "...", "to"])
                .prop_map(str::to_string),
        ]
    }

    /// Random valid ensembles: unique names and ids, correct arities, one deflect each.
    fn arb_ensemble() -> impl Strategy<Value = Ensemble> {
        let effect = (
            any::<u32>(),
            0..KINDS.len(),
            prop::collection::vec(any::<u32>(), 1..4),
            prop::option::of(arb_name()),
            prop::option::of(prop_oneof![0..8u32, any::<u32>()]),
        );
        (
            prop::collection::vec(arb_name(), 1..6),
            prop::collection::vec(effect, 0..10),
        )
            .prop_map(|(names, effects)| {
                let mut ens = Ensemble::default();
                for n in names {
                    if !ens.players.contains(&n) {
                        ens.players.push(n);
                    }
                }
                let np = ens.players.len() as u32;
                let mut ids = std::collections::HashSet::new();
                let mut deflectors = std::collections::HashSet::new();
                for (i, (actor, k, targets, id, prio)) in effects.into_iter().enumerate() {
                    let actor = actor % np;
                    let (word, passive) = KINDS[k];
                    let (mut kind, mut mods) = parse_kind_word(word, passive).expect("a kind");
                    let mut targets: Vec<Player> = targets.into_iter().map(|t| t % np).collect();
                    // A one-target deflection at most once per player.
                    if kind == Kind::Action(ActionKind::Deflect)
                        && targets.len() == 1
                        && !deflectors.insert(actor)
                    {
                        (kind, mods) = (Kind::Action(ActionKind::Visit), Mods::default());
                    }
                    match kind {
                        Kind::Passive(_) => targets.clear(),
                        Kind::Action(a) => {
                            let (least, most) = a.arity();
                            targets.truncate(most);
                            while targets.len() < least {
                                targets.push(actor);
                            }
                        }
                    }
                    let mut id = id.unwrap_or_else(|| format!("e{}", i + 1));
                    while id == "players" || ids.contains(&id) {
                        id.push('_');
                    }
                    ids.insert(id.clone());
                    ens.effects.push(Effect {
                        id,
                        actor,
                        kind,
                        mods,
                        targets,
                        priority: prio.unwrap_or(kind.default_priority()),
                        span: None,
                    });
                }
                for p in 0..np {
                    if p % 2 == 0 {
                        let a = if p % 4 == 0 { "mafia" } else { "town" };
                        ens.alignments.push((p, a.to_string()));
                    }
                }
                ens
            })
    }

    fn to_json(ens: &Ensemble) -> String {
        let effects: Vec<serde_json::Value> = ens
            .effects
            .iter()
            .map(|e| {
                serde_json::json!({
                    "id": e.id,
                    "actor": ens.player_name(e.actor),
                    "kind": e.kind_word(),
                    "targets": e.targets.iter().map(|&t| ens.player_name(t)).collect::<Vec<_>>(),
                    "priority": e.priority,
                })
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({
            "players": ens.players,
            "effects": effects,
            "alignment": ens
                .alignments
                .iter()
                .map(|(p, a)| (ens.player_name(*p).to_string(), serde_json::json!(a)))
                .collect::<serde_json::Map<_, _>>(),
        }))
        .unwrap()
    }

    proptest! {
        // 512 cases unless PROPTEST_CASES says otherwise.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
        ))]

        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            for name in ["f.night", "f.json"] {
                let r = parse_bytes(&bytes, Path::new(name));
                match std::str::from_utf8(&bytes) {
                    Ok(s) => check_result(s, &r),
                    Err(_) => {
                        assert_invalid_utf8_error(&bytes, &r.unwrap_err());
                    }
                }
            }
        }

        #[test]
        fn random_night_lines_never_panic(src in night_text()) {
            check_result(&src, &parse_night(&src, path()));
            check_result(&src, &parse_str(&src, path()));
        }

        #[test]
        fn random_json_tokens_never_panic(src in json_token_text()) {
            check_result(&src, &parse_json(&src, path()));
        }

        #[test]
        fn random_json_values_never_panic(src in json_value_text()) {
            check_result(&src, &parse_json(&src, path()));
        }

        #[test]
        fn valid_ensembles_round_trip(ens in arb_ensemble()) {
            prop_assert_eq!(validate(&ens), Ok(()));
            let text = to_night(&ens);
            let back = parse_night(&text, path()).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let first = if ens.alignments.is_empty() { 2 } else { 3 };
            for (i, e) in back.effects.iter().enumerate() {
                prop_assert_eq!(e.span, sp(i + first, 1));
            }
            prop_assert_eq!(unspanned(back), ens.clone());
            let from_json = parse_json(&to_json(&ens), path()).unwrap_or_else(|e| panic!("{e}"));
            prop_assert_eq!(unspanned(from_json), ens);
        }
    }
}
