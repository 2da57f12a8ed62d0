//! `.ff8` scenarios (format: `instances/ff8/README.md`) to [`Scenario`], and back
//! ([`to_text`]).
//!
//! Lines end at `\n`, `\r\n` or a bare `\r`, and a leading byte-order mark is skipped (the
//! policy of every format, [`crate::text::lex`]).
//!
//! Invariants: no input panics (property-tested); every error names the line and the
//! column of the offending word; `parse(to_text(s)) == s`; parsing is linear in the file
//! (columns come from [`Columns`] in constant time, repeated keys are found in a hash
//! set).

use super::model::*;
use crate::text::lex::{self, Columns, Located};
use crate::text::{ParseErrors, Sink};
use std::collections::HashSet;
use std::path::Path;

/// Most challenges a scenario may ask `reach`/`plan` to explore.
pub const MAX_BOUND: usize = 64;

/// A piece of a line: its text and 1-based character column.
#[derive(Clone, Copy, Debug)]
struct Piece<'a> {
    text: &'a str,
    col: usize,
}

/// The column of `sub`, a slice of the line (constant time: see [`Columns`]).
fn col_of(line: &Columns, sub: &str) -> usize {
    line.col_of(sub)
}

impl<'a> From<lex::Word<'a>> for Piece<'a> {
    fn from(w: lex::Word<'a>) -> Piece<'a> {
        Piece {
            text: w.text,
            col: w.col,
        }
    }
}

/// Splits `p` on `sep`, trimming each part (an empty part is located at its start).
fn split(p: Piece<'_>, sep: char) -> Vec<Piece<'_>> {
    lex::pieces(p.text, p.col, sep)
        .into_iter()
        .map(|q| Piece {
            text: q.text,
            col: if q.text.is_empty() { q.raw_col } else { q.col },
        })
        .collect()
}

/// Splits on whitespace.
fn words(p: Piece<'_>) -> Vec<Piece<'_>> {
    lex::words(p.text, p.col)
        .into_iter()
        .map(Piece::from)
        .collect()
}

type R<T> = Result<T, Located>;

fn region(p: Piece) -> R<Region> {
    Region::from_name(p.text).ok_or_else(|| {
        (
            p.col,
            format!(
                "unknown region `{}` (one of: Balamb, Galbadia, Trabia, Centra, Dollet, FH, Lunar, Esthar)",
                p.text
            ),
        )
    })
}

fn rule(p: Piece) -> R<Rule> {
    Rule::from_name(p.text).ok_or_else(|| {
        (
            p.col,
            format!(
                "unknown rule `{}` (one of: Open, Same, Plus, Random, Sudden Death, Same Wall, Elemental)",
                p.text
            ),
        )
    })
}

fn trade(p: Piece) -> R<Trade> {
    Trade::from_name(p.text).ok_or_else(|| {
        (
            p.col,
            format!(
                "unknown trade rule `{}` (one of: One, Diff, Direct, All)",
                p.text
            ),
        )
    })
}

fn number(p: Piece, max: usize, what: &str) -> R<usize> {
    match lex::number(p.text, 0..=max) {
        Some(n) => Ok(n),
        None => Err((
            p.col,
            format!("{what} must be a whole number 0..={max}, not `{}`", p.text),
        )),
    }
}

fn ruleset(p: Piece) -> R<RuleSet> {
    if p.text.is_empty() {
        return Err((p.col, "expected a list of rules (or `none`)".into()));
    }
    if norm(p.text) == "none" {
        return Ok(RuleSet::EMPTY);
    }
    let mut set = RuleSet::EMPTY;
    for part in split(p, ',') {
        let r = rule(part)?;
        if set.has(r) {
            return Err((part.col, format!("rule {r} listed twice")));
        }
        set = set.with(r);
    }
    Ok(set)
}

fn one<'a>(p: Piece<'a>, what: &str) -> R<Piece<'a>> {
    match lex::single(p.text, p.col) {
        Ok(Some(x)) => Ok(x.into()),
        Ok(None) => Err((p.col, format!("expected {what}"))),
        Err(y) => Err((y.col, format!("unexpected `{}` after {what}", y.text))),
    }
}

/// `RULES from REGION`.
fn carried(line: &Columns, p: Piece) -> R<Carried> {
    let lower = p.text.to_ascii_lowercase();
    let Some(at) = lower.rfind(" from ") else {
        return Err((p.col, "expected `RULES from REGION`".into()));
    };
    let rules_part = Piece {
        text: p.text[..at].trim(),
        col: p.col,
    };
    let reg = &p.text[at + 6..];
    let reg_p = Piece {
        text: reg.trim(),
        col: col_of(line, reg.trim_start()),
    };
    Ok(Carried {
        rules: ruleset(rules_part)?,
        origin: region(one(reg_p, "a region")?)?,
    })
}

/// `REGION [queen] ACTION`.
fn choice(p: Piece) -> R<Choice> {
    let w = words(p);
    let (reg, opp, act) = match w.as_slice() {
        [r, a] => (*r, Opponent::Player, *a),
        [r, o, a] => {
            let opp = match norm(o.text).as_str() {
                "queen" => Opponent::Queen,
                "player" => Opponent::Player,
                _ => {
                    return Err((
                        o.col,
                        format!("expected `queen` or `player`, not `{}`", o.text),
                    ))
                }
            };
            (*r, opp, *a)
        }
        [] | [_] => {
            return Err((
                p.col,
                "expected `REGION [queen] refuse|quit|play|play-lv8`".into(),
            ))
        }
        [_, _, _, x, ..] => return Err((x.col, format!("unexpected `{}`", x.text))),
    };
    let region = region(reg)?;
    let action = Action::from_name(act.text).ok_or_else(|| {
        (
            act.col,
            format!(
                "unknown action `{}` (one of: refuse, quit, play, play-lv8)",
                act.text
            ),
        )
    })?;
    if action == Action::PlayMoved && opp == Opponent::Player {
        return Err((
            act.col,
            "play-lv8 (the Queen's Lv8+ count changed) needs `queen`".into(),
        ));
    }
    Ok(Choice {
        region,
        opponent: opp,
        action,
    })
}

fn atom(p: Piece) -> R<Atom> {
    let w = words(p);
    let bad = || {
        (
            p.col,
            "expected `REGION has RULE`, `REGION lacks RULE`, `REGION trade T` or `queen in REGION`"
                .to_string(),
        )
    };
    if w.is_empty() {
        return Err(bad());
    }
    if norm(w[0].text) == "queen" {
        return match w.as_slice() {
            [_, i, r] if norm(i.text) == "in" => Ok(Atom::QueenIn(region(*r)?)),
            _ => Err(bad()),
        };
    }
    if w.len() < 3 {
        return Err(bad());
    }
    let reg = region(w[0])?;
    let rest_start = w[2].text.as_ptr() as usize - p.text.as_ptr() as usize;
    let rest = Piece {
        text: p.text[rest_start..].trim(),
        col: w[2].col,
    };
    match norm(w[1].text).as_str() {
        "has" => Ok(Atom::Has(reg, rule(rest)?)),
        "lacks" => Ok(Atom::Lacks(reg, rule(rest)?)),
        "trade" => Ok(Atom::TradeIs(reg, trade(one(rest, "a trade rule")?)?)),
        _ => Err((
            w[1].col,
            format!("expected `has`, `lacks` or `trade`, not `{}`", w[1].text),
        )),
    }
}

/// Parses a `.ff8` scenario.
pub fn parse_ff8(src: &str, file: &Path) -> Result<Scenario, ParseErrors> {
    let mut sink = Sink::new(src, file);
    let mut st = State::default();
    let mut allowed: Option<Vec<Region>> = None;
    // The bound with its line and column.
    let mut bound: Option<(usize, usize, usize)> = None;
    // Each challenge with its line and column.
    let mut challenges: Vec<(usize, usize, Choice)> = Vec::new();
    let mut goal: Option<Goal> = None;
    // The keys given so far (`challenge` may repeat and is not kept).
    let mut seen: HashSet<String> = HashSet::new();
    for i in 0..sink.line_count() {
        if sink.full() {
            break;
        }
        let lno = i + 1;
        let text = sink.line_text(lno);
        let content = lex::code(text);
        if content.trim().is_empty() {
            continue;
        }
        let cols = Columns::new(text);
        let line = &cols;
        let Some(colon) = content.find(':') else {
            let t = content.trim_start();
            sink.err(lno, col_of(line, t), "expected `KEY: VALUE` (missing `:`)");
            continue;
        };
        let key_raw = content[..colon].trim();
        let key_p = Piece {
            text: key_raw,
            col: col_of(line, content[..colon].trim_start()),
        };
        let value_raw = &content[colon + 1..];
        let vt = value_raw.trim();
        let value = Piece {
            text: vt,
            col: if vt.is_empty() {
                col_of(line, value_raw)
            } else {
                col_of(line, vt)
            },
        };
        let kw = words(key_p);
        let key = kw
            .first()
            .map(|w| w.text.to_ascii_lowercase())
            .unwrap_or_default();
        let res: R<()> = (|| {
            let dup_key = match key.as_str() {
                "rules" | "trade" => {
                    let arg = kw
                        .get(1)
                        .ok_or((key_p.col, format!("expected `{key} REGION:`")))?;
                    if let Some(x) = kw.get(2) {
                        return Err((x.col, format!("unexpected `{}`", x.text)));
                    }
                    let r = region(*arg)?;
                    format!("{key} {}", r.name())
                }
                _ => {
                    if let Some(x) = kw.get(1) {
                        return Err((x.col, format!("unexpected `{}` in the key", x.text)));
                    }
                    key.clone()
                }
            };
            if seen.contains(&dup_key) {
                return Err((key_p.col, format!("`{dup_key}` given twice")));
            }
            match key.as_str() {
                "rules" => {
                    let r = region(kw[1])?;
                    st.rules[r.id()] = ruleset(value)?;
                }
                "trade" => {
                    let r = region(kw[1])?;
                    st.trade[r.id()] = trade(one(value, "a trade rule")?)?;
                }
                "carried" => st.carried[0] = carried(line, value)?,
                "carried2" => st.carried[1] = carried(line, value)?,
                "spread-from" => st.spread_from = region(one(value, "a region")?)?,
                "trading" => st.amount = number(one(value, "a number")?, 10, "the amount of trading")? as u8,
                "points" => st.points = number(one(value, "a number")?, 250, "trade rule points")? as u8,
                "queen" => {
                    let w = words(value);
                    match w.as_slice() {
                        [r, t] => {
                            st.queen = region(*r)?;
                            st.queen_trade = trade(*t)?;
                        }
                        [_] | [] => return Err((value.col, "expected `queen: REGION TRADE`".into())),
                        [_, _, x, ..] => return Err((x.col, format!("unexpected `{}`", x.text))),
                    }
                }
                "current" => st.current = region(one(value, "a region")?)?,
                "allow" => {
                    let mut v = Vec::new();
                    for p in split(value, ',') {
                        let r = region(p)?;
                        if v.contains(&r) {
                            return Err((p.col, format!("region {r} listed twice")));
                        }
                        v.push(r);
                    }
                    v.sort();
                    allowed = Some(v);
                }
                "bound" => {
                    let b = number(one(value, "a number")?, MAX_BOUND, "the bound")?;
                    bound = Some((lno, value.col, b));
                }
                "challenge" => {
                    let c = choice(value)?;
                    challenges.push((lno, value.col, c));
                }
                "goal" => {
                    let mut atoms = Vec::new();
                    for p in split(value, '&') {
                        atoms.push(atom(p)?);
                    }
                    goal = Some(Goal(atoms));
                }
                _ => {
                    return Err((
                        key_p.col,
                        format!("unknown key `{key_raw}` (rules REGION, trade REGION, carried, carried2, spread-from, trading, points, queen, current, allow, bound, challenge, goal)"),
                    ))
                }
            }
            if key != "challenge" {
                seen.insert(dup_key);
            }
            Ok(())
        })();
        if let Err((col, msg)) = res {
            sink.err(lno, col, msg);
        }
    }
    if sink.error_count() == 0 {
        if let Some(&(lno, col, c)) = challenges.first() {
            if !c.valid_in(&st) {
                sink.err(
                    lno,
                    col,
                    format!(
                        "the Queen is in {}, not {}: she cannot be challenged there",
                        st.queen, c.region
                    ),
                );
            }
        }
        if let Some(&(lno, col, _)) = challenges.get(MAX_BOUND) {
            sink.err(lno, col, format!("at most {MAX_BOUND} challenges"));
        }
        // With a fixed sequence the bound counts its challenges (docs/ff8.md).
        if let Some((lno, col, b)) = bound {
            let n = challenges.len();
            if n > 0 && b > n {
                sink.err(
                    lno,
                    col,
                    format!(
                        "the bound {b} is more than the {n} `challenge:` line(s): with a fixed sequence the bound counts its challenges (reach follows the first k; `plan --bound N` sets a longer horizon)"
                    ),
                );
            }
        }
    }
    sink.finish()?;
    Ok(Scenario {
        state: st,
        allowed: allowed.unwrap_or_else(|| Region::ALL.to_vec()),
        bound: match bound {
            Some((_, _, b)) => b,
            None if challenges.is_empty() => 1,
            None => challenges.len(),
        },
        challenges: challenges.into_iter().map(|c| c.2).collect(),
        goal,
    })
}

/// The scenario as `.ff8` text, every field explicit.
pub fn to_text(sc: &Scenario) -> String {
    let s = &sc.state;
    let mut o = String::new();
    for r in Region::ALL {
        o += &format!("rules {r}: {}\n", s.rules_of(r));
    }
    for r in Region::ALL {
        o += &format!("trade {r}: {}\n", s.trade[r.id()]);
    }
    o += &format!(
        "carried: {} from {}\n",
        s.carried[0].rules, s.carried[0].origin
    );
    o += &format!(
        "carried2: {} from {}\n",
        s.carried[1].rules, s.carried[1].origin
    );
    o += &format!("spread-from: {}\n", s.spread_from);
    o += &format!("trading: {}\n", s.amount);
    o += &format!("points: {}\n", s.points);
    o += &format!("queen: {} {}\n", s.queen, s.queen_trade);
    o += &format!("current: {}\n", s.current);
    let names: Vec<&str> = sc.allowed.iter().map(|r| r.name()).collect();
    o += &format!("allow: {}\n", names.join(", "));
    o += &format!("bound: {}\n", sc.bound);
    for c in &sc.challenges {
        o += &format!("challenge: {c}\n");
    }
    if let Some(g) = &sc.goal {
        if !g.0.is_empty() {
            o += &format!("goal: {g}\n");
        }
    }
    o
}
