//! The `.foeman` scenario format (documented in `instances/foeman/README.md`) → a validated
//! [`Scenario`], and [`to_text`] back.
//!
//! Lines end at `\n`, `\r\n` or a bare `\r`, and a leading byte-order mark is skipped (the
//! policy of every format, [`crate::text::lex`]).
//!
//! Invariants: no input panics (property-tested); every error names file, line and column
//! (of the offending token) and shows the line; at most
//! [`MAX_ERRORS`](crate::text::MAX_ERRORS) are reported; `parse(to_text(s)) == s`; parsing
//! is linear in the file (each line is split into words in one pass).

use super::model::{
    Decl, Figure, Ini, Opt, Postpone, Scenario, Side, MAX_ADJ, MAX_FIGURES, MAX_SIDES,
};
use crate::text::lex::{self, NameRule, Word};
use crate::text::{ParseErrors, Sink};
use std::path::Path;

/// Largest absolute modDX or initiative value accepted.
pub const MAX_ABS_VALUE: i32 = 99;
/// Most choice sets in a figure's plan.
pub const MAX_PLAN: usize = 16;
/// Most declarations in one choice set.
pub const MAX_SET: usize = 8;

/// A modDX or initiative value: an integer of at most [`MAX_ABS_VALUE`] either way.
fn int(s: &str) -> Option<i32> {
    lex::number(s, -MAX_ABS_VALUE..=MAX_ABS_VALUE)
}

fn ini(s: &str) -> Option<Ini> {
    let l = s.to_ascii_lowercase();
    if let Some(rest) = l.strip_prefix("roll") {
        if rest.is_empty() {
            return Some(Ini::Roll(0));
        }
        let m = rest.strip_prefix('+').unwrap_or(rest);
        return int(m).map(Ini::Roll);
    }
    int(s).map(Ini::Fixed)
}

fn decl(s: &str) -> Result<Decl, String> {
    let (s, adj) = match s.split_once('@') {
        None => (s, 0),
        Some((a, b)) => (a, adjustment(b)?),
    };
    let d = plain_decl(s)?;
    Ok(Decl { adj, ..d })
}

/// An option's modDX adjustment: `+N` or `-N`, N in 0..=MAX_ADJ.
fn adjustment(b: &str) -> Result<i8, String> {
    let signed = b.starts_with('+') || b.starts_with('-');
    match lex::number(b, -MAX_ADJ..=MAX_ADJ) {
        Some(v) if signed => Ok(v),
        _ => Err(format!(
            "modDX adjustment `@{b}` is not `@+N` or `@-N` with N in 0..{MAX_ADJ}"
        )),
    }
}

fn plain_decl(s: &str) -> Result<Decl, String> {
    let (name, dice) = match s.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let opt = Opt::from_name(name).ok_or_else(|| {
        format!(
            "unknown option `{name}` (one of: {})",
            Opt::ALL.map(|o| o.name()).join(", ")
        )
    })?;
    match (opt.preset(), dice) {
        (true, None) => Ok(Decl::new(opt, 0)),
        (true, Some(_)) => Err(format!(
            "`{}` takes no number of dice: its dice are preset (Watch 1, Move/Defend by isdib)",
            opt.name()
        )),
        (false, None) => Err(format!(
            "`{}` needs a number of dice, as `{}:N` with N in 1..9",
            opt.name(),
            opt.name()
        )),
        (false, Some(d)) => match lex::number(d, 1..=9) {
            Some(n) => Ok(Decl::new(opt, n)),
            None => Err(format!("number of dice `{d}` is not in 1..9")),
        },
    }
}

/// The name rule of `.foeman` files: letters (any script), digits, `_`, `-` and `.`.
pub const NAMES: NameRule = NameRule {
    unicode: true,
    punct: "-.",
};

/// Whether `s` is a side or figure name: [`NAMES`], at most 64 bytes.
fn valid_name(s: &str) -> bool {
    NAMES.is_name(s) && s.len() <= 64
}

/// Parses and validates a `.foeman` scenario read from `file`.
pub fn parse(file: &Path, text: &str) -> Result<Scenario, ParseErrors> {
    let mut cx = Sink::new(text, file);
    let mut sc = Scenario {
        is_dib: false,
        optdib: 9,
        sides: Vec::new(),
        figures: Vec::new(),
    };
    let mut seen_isdib = false;
    let mut seen_optdib = false;
    let mut last_line = 1;
    for idx in 0..cx.line_count() {
        if cx.full() {
            break;
        }
        let ln = idx + 1;
        let toks = lex::line_words(cx.line_text(ln));
        if toks.is_empty() {
            continue;
        }
        last_line = ln;
        let kw = toks[0].text.to_ascii_lowercase();
        match kw.as_str() {
            "isdib" => {
                if seen_isdib {
                    cx.err(ln, toks[0].col, "`isdib` given twice");
                }
                seen_isdib = true;
                match toks.get(1).map(|t| t.text.to_ascii_lowercase()) {
                    Some(v) if v == "true" => sc.is_dib = true,
                    Some(v) if v == "false" => sc.is_dib = false,
                    Some(_) => cx.err(ln, toks[1].col, "`isdib` is `true` or `false`"),
                    None => cx.err(ln, toks[0].col, "`isdib` needs `true` or `false`"),
                }
                if let Some(t) = toks.get(2) {
                    cx.err(ln, t.col, "unexpected text after `isdib` value");
                }
            }
            "optdib" => {
                if seen_optdib {
                    cx.err(ln, toks[0].col, "`optdib` given twice");
                }
                seen_optdib = true;
                match toks.get(1) {
                    Some(t) => match lex::number(t.text, 1..=9) {
                        Some(n) => sc.optdib = n,
                        None => cx.err(ln, t.col, "`optdib` is a number of dice in 1..9"),
                    },
                    None => cx.err(ln, toks[0].col, "`optdib` needs a number in 1..9"),
                }
                if let Some(t) = toks.get(2) {
                    cx.err(ln, t.col, "unexpected text after `optdib` value");
                }
            }
            "side" => side_line(&mut cx, &mut sc, ln, &toks),
            "figure" => figure_line(&mut cx, &mut sc, ln, &toks),
            _ => cx.err(
                ln,
                toks[0].col,
                format!(
                    "unknown keyword `{}` (expected side, figure, isdib or optdib)",
                    toks[0].text
                ),
            ),
        }
    }
    if sc.sides.is_empty() && cx.error_count() == 0 {
        cx.err(
            last_line,
            1,
            "no side declared (at least one `side` line is needed)",
        );
    }
    cx.finish().map(|()| sc)
}

/// The name a `side` or `figure` line declares (its second word), if it is a valid new
/// name and the limit is not reached; otherwise the error is recorded.
fn new_name<'t>(
    cx: &mut Sink,
    (ln, toks): (usize, &'t [Word<'t>]),
    what: &str,
    existing: &[&str],
    max: usize,
) -> Option<&'t Word<'t>> {
    let Some(name) = toks.get(1) else {
        cx.err(ln, toks[0].col, format!("`{what}` needs a name"));
        return None;
    };
    let problem = if !valid_name(name.text) {
        Some((
            name.col,
            "a name is letters, digits, `_`, `-` or `.`".to_string(),
        ))
    } else if existing.contains(&name.text) {
        Some((name.col, format!("{what} `{}` declared twice", name.text)))
    } else if existing.len() >= max {
        Some((toks[0].col, format!("more than {max} {what}s")))
    } else {
        None
    };
    match problem {
        Some((col, msg)) => {
            cx.err(ln, col, msg);
            None
        }
        None => Some(name),
    }
}

fn side_line(cx: &mut Sink, sc: &mut Scenario, ln: usize, toks: &[Word]) {
    let names: Vec<&str> = sc.sides.iter().map(|s| s.name.as_str()).collect();
    let Some(name) = new_name(cx, (ln, toks), "side", &names, MAX_SIDES) else {
        return;
    };
    let mut ini_v = None;
    let mut postpone = Postpone::No;
    let mut i = 2;
    while i < toks.len() {
        let key = toks[i].text.to_ascii_lowercase();
        let Some(val) = toks.get(i + 1) else {
            return cx.err(ln, toks[i].col, format!("`{}` needs a value", toks[i].text));
        };
        match key.as_str() {
            "ini" => match ini(val.text) {
                Some(v) => ini_v = Some(v),
                None => {
                    return cx.err(
                        ln,
                        val.col,
                        format!(
                            "initiative `{}` is not a number in -{MAX_ABS_VALUE}..{MAX_ABS_VALUE}, \
                             `roll`, or `roll+N`/`roll-N`",
                            val.text
                        ),
                    )
                }
            },
            "postpone" => {
                postpone = match val.text.to_ascii_lowercase().as_str() {
                    "no" => Postpone::No,
                    "yes" | "once" => Postpone::Yes,
                    "maybe" => Postpone::Maybe,
                    _ => {
                        return cx.err(
                            ln,
                            val.col,
                            "`postpone` is yes, no or maybe (`once` is `yes`: once per round)",
                        )
                    }
                }
            }
            _ => {
                return cx.err(
                    ln,
                    toks[i].col,
                    format!(
                        "unknown side field `{}` (expected ini or postpone)",
                        toks[i].text
                    ),
                )
            }
        }
        i += 2;
    }
    let Some(ini) = ini_v else {
        return cx.err(ln, name.col, "side has no `ini` (a value or `roll`)");
    };
    sc.sides.push(Side {
        name: name.text.to_string(),
        ini,
        postpone,
    });
}

/// The choice sets after `do`: words separated by whitespace, declarations within a set
/// by `|`, with or without spaces around it (`strike:2|watch`, `strike:2 | watch`). On
/// an error, its column (`None`: the `do` keyword's) and message.
fn plan_sets(words: &[Word]) -> Result<Vec<Vec<Decl>>, (Option<usize>, String)> {
    enum Item<'a> {
        Part(&'a str, usize),
        Bar(usize),
    }
    let mut items = Vec::new();
    for t in words {
        for (k, p) in lex::pieces(t.text, t.col, '|').into_iter().enumerate() {
            if k > 0 {
                items.push(Item::Bar(p.sep_col));
            }
            if !p.text.is_empty() {
                items.push(Item::Part(p.text, p.col));
            }
        }
    }
    let mut sets: Vec<Vec<Decl>> = Vec::new();
    // Whether the last item was a `|` (the next declaration joins the current set).
    let mut after_bar = false;
    for item in items {
        match item {
            Item::Bar(col) => {
                if sets.is_empty() || after_bar {
                    return Err((Some(col), "`|` needs a declaration before it".into()));
                }
                after_bar = true;
            }
            Item::Part(text, col) => {
                if !after_bar {
                    if sets.len() >= MAX_PLAN {
                        return Err((Some(col), format!("more than {MAX_PLAN} choice sets")));
                    }
                    sets.push(Vec::new());
                }
                after_bar = false;
                let set = sets.last_mut().expect("a set was started");
                if set.len() >= MAX_SET {
                    return Err((Some(col), format!("more than {MAX_SET} choices")));
                }
                set.push(decl(text).map_err(|m| (Some(col), m))?);
            }
        }
    }
    if after_bar {
        let col = words.last().map(|t| t.col + t.text.chars().count() - 1);
        return Err((col, "`|` needs a declaration after it".into()));
    }
    if sets.is_empty() {
        return Err((None, "`do` needs at least one choice set".into()));
    }
    Ok(sets)
}

fn figure_line(cx: &mut Sink, sc: &mut Scenario, ln: usize, toks: &[Word]) {
    let names: Vec<&str> = sc.figures.iter().map(|f| f.name.as_str()).collect();
    let Some(name) = new_name(cx, (ln, toks), "figure", &names, MAX_FIGURES) else {
        return;
    };
    let mut side = None;
    let mut dx = None;
    let mut plan: Option<Vec<Vec<Decl>>> = None;
    let mut i = 2;
    while i < toks.len() {
        let key = toks[i].text.to_ascii_lowercase();
        if key == "do" {
            match plan_sets(&toks[i + 1..]) {
                Ok(p) => plan = Some(p),
                Err((col, m)) => return cx.err(ln, col.unwrap_or(toks[i].col), m),
            }
            break;
        }
        let Some(val) = toks.get(i + 1) else {
            return cx.err(ln, toks[i].col, format!("`{}` needs a value", toks[i].text));
        };
        match key.as_str() {
            "side" => match sc.sides.iter().position(|s| s.name == val.text) {
                Some(s) => side = Some(s),
                None => {
                    return cx.err(
                        ln,
                        val.col,
                        format!("unknown side `{}` (declare sides before figures)", val.text),
                    )
                }
            },
            "dx" => match int(val.text) {
                Some(v) => dx = Some(v),
                None => {
                    return cx.err(
                        ln,
                        val.col,
                        format!(
                            "modDX `{}` is not a number in -{MAX_ABS_VALUE}..{MAX_ABS_VALUE}",
                            val.text
                        ),
                    )
                }
            },
            _ => {
                return cx.err(
                    ln,
                    toks[i].col,
                    format!(
                        "unknown figure field `{}` (expected side, dx or do)",
                        toks[i].text
                    ),
                )
            }
        }
        i += 2;
    }
    let missing = match (side, dx, &plan) {
        (None, _, _) => Some("side"),
        (_, None, _) => Some("dx"),
        (_, _, None) => Some("do"),
        _ => None,
    };
    if let Some(m) = missing {
        return cx.err(ln, name.col, format!("figure has no `{m}`"));
    }
    sc.figures.push(Figure {
        name: name.text.to_string(),
        side: side.unwrap_or(0),
        dx: dx.unwrap_or(0),
        plan: plan.unwrap_or_default(),
    });
}

/// The scenario in the `.foeman` format.
pub fn to_text(sc: &Scenario) -> String {
    let mut out = String::new();
    out.push_str(&format!("isdib {}\noptdib {}\n", sc.is_dib, sc.optdib));
    for s in &sc.sides {
        let ini = match s.ini {
            Ini::Fixed(v) => v.to_string(),
            Ini::Roll(0) => "roll".into(),
            Ini::Roll(m) if m > 0 => format!("roll+{m}"),
            Ini::Roll(m) => format!("roll{m}"),
        };
        let pp = match s.postpone {
            Postpone::No => "",
            Postpone::Yes => " postpone once",
            Postpone::Maybe => " postpone maybe",
        };
        out.push_str(&format!("side {} ini {ini}{pp}\n", s.name));
    }
    for f in &sc.figures {
        let plan: Vec<String> = f
            .plan
            .iter()
            .map(|set| {
                set.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        out.push_str(&format!(
            "figure {} side {} dx {} do {}\n",
            f.name,
            sc.sides[f.side].name,
            f.dx,
            plan.join(" ")
        ));
    }
    out
}
