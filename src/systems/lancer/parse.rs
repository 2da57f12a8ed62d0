//! The `.lancer` scenario format: reading (with located errors) and writing.
//!
//! One declaration per line; `#` starts a comment; tokens are separated by blanks. Lines
//! end at `\n`, `\r\n` or a bare `\r`, and a leading byte-order mark is skipped (the policy
//! of every format, [`crate::text::lex`]). Names must be declared before use (units and
//! weapons before the reactions and the action that name them). See
//! `instances/lancer/README.md` for the grammar.
//!
//! Invariants: every error carries the file, a 1-based line and the column of the
//! offending token (or the end of the line when a token is missing); a returned
//! [`Scenario`] satisfies the invariants listed in `model`; `parse(to_text(s)) == s`;
//! parsing is linear in the file (names, cells and weapons are looked up in hash maps).

use super::model::*;
use crate::text::lex::{self, Located, NameRule};
use crate::text::{ParseErrors, Sink};
use std::collections::HashMap;
use std::path::Path;

struct Line<'a> {
    no: usize,
    text: &'a str,
    toks: Vec<(usize, &'a str)>,
    at: usize,
}

type Res<T> = Result<T, Located>;

impl<'a> Line<'a> {
    fn end_col(&self) -> usize {
        self.text.chars().count() + 1
    }
    fn col(&self) -> usize {
        self.toks.get(self.at).map_or(self.end_col(), |t| t.0)
    }
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.at).map(|t| t.1)
    }
    fn next(&mut self, what: &str) -> Res<(usize, &'a str)> {
        match self.toks.get(self.at) {
            Some(&t) => {
                self.at += 1;
                Ok(t)
            }
            None => Err((self.end_col(), format!("expected {what}"))),
        }
    }
    fn keyword(&mut self, kw: &str) -> Res<()> {
        let (c, t) = self.next(&format!("`{kw}`"))?;
        if t == kw {
            Ok(())
        } else {
            Err((c, format!("expected `{kw}`, found `{t}`")))
        }
    }
    fn number(&mut self, what: &str, min: u32, max: u32) -> Res<u32> {
        let (c, t) = self.next(what)?;
        match lex::number(t, min..=max) {
            Some(n) => Ok(n),
            None => Err((
                c,
                format!("{what} must be a whole number from {min} to {max}, found `{t}`"),
            )),
        }
    }
    /// `N` (undamaged: current = maximum) or `CUR/MAX` (a unit that starts damaged). An
    /// error points at the offending part of the token.
    fn hp(&mut self) -> Res<(u32, u32)> {
        let (c, t) = self.next("hp")?;
        let bad = |col: usize, what: &str, found: &str| {
            (
                col,
                format!("{what} must be a whole number from 1 to {MAX_STAT}, found `{found}`"),
            )
        };
        let whole = |s: &str| lex::number(s, 1..=MAX_STAT);
        match t.split_once('/') {
            None => whole(t).map(|n| (n, n)).ok_or_else(|| bad(c, "hp", t)),
            Some((cur, max)) => {
                let max_col = c + cur.chars().count() + 1;
                let cur_n = whole(cur).ok_or_else(|| bad(c, "the current hp", cur))?;
                let max_n = whole(max).ok_or_else(|| bad(max_col, "the maximum hp", max))?;
                if cur_n > max_n {
                    return Err((
                        c,
                        format!(
                            "the current hp {cur_n} is above the maximum {max_n} (write `hp CURRENT/MAXIMUM`)"
                        ),
                    ));
                }
                Ok((cur_n, max_n))
            }
        }
    }
    fn cell(&mut self) -> Res<Cell> {
        let x = self.number("x coordinate", 0, MAX_COORD as u32)? as u8;
        let y = self.number("y coordinate", 0, MAX_COORD as u32)? as u8;
        Ok(Cell { x, y })
    }
    fn done(&self) -> Res<()> {
        match self.toks.get(self.at) {
            None => Ok(()),
            Some(&(c, t)) => Err((c, format!("unexpected `{t}` at the end of the line"))),
        }
    }
}

/// The name rule of `.lancer` files: letters (any script), digits, `_`, `-` and `'`.
pub const NAMES: NameRule = NameRule {
    unicode: true,
    punct: "-'",
};

/// The scenario as declared so far, with the indexes that keep every name check and
/// lookup constant-time (so parsing is linear in the file).
#[derive(Default)]
struct Builder {
    units: Vec<Unit>,
    weapons: Vec<Weapon>,
    reactions: Vec<Reaction>,
    action: Option<Action>,
    policy: Option<Policy>,
    depth: Option<usize>,
    /// Unit, weapon and reaction names, each to its index.
    unit_ids: HashMap<String, UnitId>,
    weapon_ids: HashMap<String, usize>,
    reaction_ids: HashMap<String, usize>,
    /// The unit standing on each taken cell.
    cells: HashMap<Cell, UnitId>,
}

impl Builder {
    fn new_name(&self, l: &mut Line, what: &str) -> Res<String> {
        let (c, t) = l.next(&format!("a {what} name"))?;
        if !NAMES.is_name(t) || lex::number::<u32>(t, ..).is_some() {
            return Err((c, format!("`{t}` is not a valid {what} name")));
        }
        let taken = match what {
            "unit" => self.unit_ids.contains_key(t),
            "weapon" => self.weapon_ids.contains_key(t),
            _ => self.reaction_ids.contains_key(t),
        };
        if taken {
            return Err((c, format!("{what} `{t}` is already declared")));
        }
        Ok(t.to_string())
    }
    fn unit(&self, l: &mut Line) -> Res<UnitId> {
        let (c, t) = l.next("a unit name")?;
        self.unit_ids
            .get(t)
            .copied()
            .ok_or((c, format!("unknown unit `{t}`")))
    }
    fn weapon(&self, l: &mut Line) -> Res<usize> {
        let (c, t) = l.next("a weapon name")?;
        self.weapon_ids
            .get(t)
            .copied()
            .ok_or((c, format!("unknown weapon `{t}`")))
    }
    fn aim(l: &mut Line) -> Res<Aim> {
        l.keyword("at")?;
        let (c, t) = l.next("`source` or `target`")?;
        match t {
            "source" => Ok(Aim::Source),
            "target" => Ok(Aim::Target),
            _ => Err((c, format!("expected `source` or `target`, found `{t}`"))),
        }
    }

    fn line(&mut self, l: &mut Line) -> Res<()> {
        let (c, kw) = l.next("a declaration")?;
        match kw {
            "policy" => {
                let (c, t) = l.next("a policy name")?;
                if self.policy.is_some() {
                    return Err((c, "the policy is already set".into()));
                }
                let p = Policy::from_name(t).ok_or_else(|| {
                    let names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
                    (
                        c,
                        format!("unknown policy `{t}` (one of: {})", names.join(", ")),
                    )
                })?;
                self.policy = Some(p);
            }
            "depth" => {
                if self.depth.is_some() {
                    return Err((l.col(), "the depth bound is already set".into()));
                }
                self.depth = Some(l.number("the depth bound", 0, MAX_DEPTH as u32)? as usize);
            }
            "unit" => {
                let name = self.new_name(l, "unit")?;
                l.keyword("side")?;
                let (_, side) = l.next("a side")?;
                l.keyword("hp")?;
                let (hp, max_hp) = l.hp()?;
                l.keyword("structure")?;
                let structure = l.number("structure", 1, MAX_STAT)?;
                let mut armor = 0;
                if l.peek() == Some("armor") {
                    l.at += 1;
                    armor = l.number("armor", 0, MAX_STAT)?;
                }
                l.keyword("at")?;
                let cc = l.col();
                let at = l.cell()?;
                if let Some(&o) = self.cells.get(&at) {
                    let o = &self.units[o].name;
                    return Err((cc, format!("cell {at} is already taken by `{o}`")));
                }
                // The side `npc` makes an NPC, as the `npc` flag does (both may be given).
                let (mut npc, mut resistant) = (side == "npc", false);
                let mut npc_flag = false;
                while let Some(t) = l.peek() {
                    match t {
                        "npc" if !npc_flag => {
                            npc_flag = true;
                            npc = true;
                        }
                        "resistant" if !resistant => resistant = true,
                        _ => break,
                    }
                    l.at += 1;
                }
                self.unit_ids.insert(name.clone(), self.units.len());
                self.cells.insert(at, self.units.len());
                self.units.push(Unit {
                    name,
                    side: side.to_string(),
                    hp,
                    max_hp,
                    structure,
                    armor,
                    at,
                    npc,
                    resistant,
                });
            }
            "weapon" => {
                let name = self.new_name(l, "weapon")?;
                l.keyword("damage")?;
                let mut damage = vec![l.number("a damage value", 0, MAX_STAT)?];
                let mut area = false;
                while let Some(t) = l.peek() {
                    if t == "area" {
                        l.at += 1;
                        area = true;
                        break;
                    }
                    let c = l.col();
                    let d = l.number("a damage value", 0, MAX_STAT)?;
                    if damage.contains(&d) {
                        return Err((c, format!("damage value {d} is listed twice")));
                    }
                    if damage.len() == 4 {
                        return Err((c, "at most 4 damage values".into()));
                    }
                    damage.push(d);
                }
                damage.sort();
                self.weapon_ids.insert(name.clone(), self.weapons.len());
                self.weapons.push(Weapon { name, damage, area });
            }
            "reaction" => {
                let name = self.new_name(l, "reaction")?;
                l.keyword("of")?;
                let unit = self.unit(l)?;
                l.keyword("on")?;
                let (kc, kt) = l.next("an event kind")?;
                let on = Kind::from_name(kt).ok_or((kc, format!("unknown event kind `{kt}`")))?;
                let (rc, rt) = l.next("a role")?;
                let role = Role::from_name(rt).ok_or((
                    rc,
                    format!("unknown role `{rt}` (target, source, area, adjacent, any)"),
                ))?;
                if role == Role::Area && on != Kind::Activate {
                    return Err((rc, "role `area` only applies to `activate` events".into()));
                }
                let (mut hit, mut from_adjacent, mut foe) = (None, false, false);
                let mut hit_col = 0;
                let timing = loop {
                    let (c, t) = l.next("`interrupt` or `followup`")?;
                    match t {
                        "hit" | "miss" if hit.is_none() => {
                            hit = Some(t == "hit");
                            hit_col = c;
                        }
                        "from-adjacent" if !from_adjacent => from_adjacent = true,
                        "foe" if !foe => foe = true,
                        "interrupt" => break Timing::Interrupt,
                        "followup" => break Timing::Followup,
                        _ => {
                            return Err((
                                c,
                                format!("expected a qualifier (hit, miss, from-adjacent, foe) or `interrupt`/`followup`, found `{t}`"),
                            ))
                        }
                    }
                };
                if hit.is_some() && (on != Kind::Attack || timing != Timing::Followup) {
                    return Err((
                        hit_col,
                        "`hit`/`miss` only qualify `attack` follow-ups (an interrupt comes before the roll)".into(),
                    ));
                }
                let (ec, et) = l.next("an effect (attack, damage, move, teleport)")?;
                let effect = match et {
                    "attack" => {
                        let wc = l.col();
                        let weapon = self.weapon(l)?;
                        if self.weapons[weapon].area {
                            return Err((
                                wc,
                                "a reaction attacks one unit: use a weapon without `area`".into(),
                            ));
                        }
                        Effect::Attack {
                            weapon,
                            at: Self::aim(l)?,
                        }
                    }
                    "damage" => {
                        let amount = l.number("the damage", 0, MAX_STAT)?;
                        Effect::Damage {
                            amount,
                            at: Self::aim(l)?,
                        }
                    }
                    "move" | "teleport" => Effect::Relocate {
                        to: l.cell()?,
                        teleport: et == "teleport",
                    },
                    _ => {
                        return Err((
                            ec,
                            format!("unknown effect `{et}` (attack, damage, move, teleport)"),
                        ))
                    }
                };
                let (mut optional, mut once) = (false, false);
                while let Some(t) = l.peek() {
                    match t {
                        "optional" if !optional => optional = true,
                        "once" if !once => once = true,
                        _ => break,
                    }
                    l.at += 1;
                }
                self.reaction_ids.insert(name.clone(), self.reactions.len());
                self.reactions.push(Reaction {
                    name,
                    unit,
                    on,
                    role,
                    hit,
                    from_adjacent,
                    foe,
                    timing,
                    effect,
                    optional,
                    once,
                });
            }
            "action" => {
                if self.action.is_some() {
                    return Err((
                        c,
                        "the action is already declared: a scenario has one initiating action \
                         (a run is that action and its cascade of reactions; resolve several \
                         actions as one file each)"
                            .into(),
                    ));
                }
                let actor = self.unit(l)?;
                let (vc, verb) = l.next("`activate`, `move` or `teleport`")?;
                let action = match verb {
                    "activate" => {
                        let wc = l.col();
                        let weapon = self.weapon(l)?;
                        l.keyword("at")?;
                        let mut targets = vec![];
                        loop {
                            let tc = l.col();
                            let t = self.unit(l)?;
                            if t == actor {
                                return Err((tc, "a unit does not target itself".into()));
                            }
                            if targets.contains(&t) {
                                return Err((
                                    tc,
                                    format!("`{}` is targeted twice", self.units[t].name),
                                ));
                            }
                            targets.push(t);
                            if l.peek().is_none() {
                                break;
                            }
                        }
                        if targets.len() > 1 && !self.weapons[weapon].area {
                            return Err((
                                wc,
                                format!(
                                    "`{}` is not an area weapon: it takes one target",
                                    self.weapons[weapon].name
                                ),
                            ));
                        }
                        Action::Activate {
                            actor,
                            weapon,
                            targets,
                        }
                    }
                    "move" | "teleport" => Action::Relocate {
                        actor,
                        to: l.cell()?,
                        teleport: verb == "teleport",
                    },
                    _ => {
                        return Err((
                            vc,
                            format!("expected `activate`, `move` or `teleport`, found `{verb}`"),
                        ))
                    }
                };
                self.action = Some(action);
            }
            _ => {
                return Err((
                    c,
                    format!(
                    "unknown declaration `{kw}` (policy, depth, unit, weapon, reaction, action)"
                ),
                ))
            }
        }
        l.done()
    }
}

/// Parses a `.lancer` scenario read from `file`. Lines are read by the policy of every
/// format (a leading byte-order mark skipped; `\n`, `\r\n` and a bare `\r` end a line).
pub fn parse(file: &Path, text: &str) -> Result<Scenario, ParseErrors> {
    let mut b = Builder::default();
    let mut sink = Sink::new(text, file);
    for i in 0..sink.line_count() {
        if sink.full() {
            break;
        }
        let raw = sink.line_text(i + 1);
        let toks: Vec<(usize, &str)> = lex::line_words(raw)
            .into_iter()
            .map(|w| (w.col, w.text))
            .collect();
        if toks.is_empty() {
            continue;
        }
        let mut l = Line {
            no: i + 1,
            text: raw,
            toks,
            at: 0,
        };
        if let Err((col, message)) = b.line(&mut l) {
            sink.err(l.no, col, message);
        }
    }
    if sink.error_count() == 0 {
        // Whole-file problems point at line 1, as in every system.
        if b.units.is_empty() {
            sink.err(
                1,
                1,
                "no units declared (a whole-file problem: a scenario needs at least one \
                 `unit` line)",
            );
        } else if b.action.is_none() {
            sink.err(
                1,
                1,
                "no `action` line: the scenario needs an initiating action (a whole-file \
                 problem)",
            );
        }
    }
    sink.finish()?;
    Ok(Scenario {
        units: b.units,
        weapons: b.weapons,
        reactions: b.reactions,
        action: b.action.expect("checked above"),
        policy: b.policy.unwrap_or(Policy::SEED),
        depth: b.depth.unwrap_or(3),
    })
}

/// Reads and parses a `.lancer` file.
#[cfg(test)]
pub fn load(path: &Path) -> Result<Scenario, crate::text::LoadError> {
    let bytes = crate::text::read_limited(path, ".lancer files")?;
    let text = crate::text::decode_utf8(&bytes, path, ".lancer files")?;
    Ok(parse(path, text)?)
}

/// The scenario in the `.lancer` format.
pub fn to_text(sc: &Scenario) -> String {
    let mut s = format!("policy {}\ndepth {}\n", sc.policy.name(), sc.depth);
    for u in &sc.units {
        s.push_str(&format!(
            "unit {} side {} hp {} structure {} armor {} at {} {}{}{}\n",
            u.name,
            u.side,
            if u.hp == u.max_hp {
                u.hp.to_string()
            } else {
                format!("{}/{}", u.hp, u.max_hp)
            },
            u.structure,
            u.armor,
            u.at.x,
            u.at.y,
            if u.npc { " npc" } else { "" },
            if u.resistant { " resistant" } else { "" }
        ));
    }
    for w in &sc.weapons {
        let d: Vec<String> = w.damage.iter().map(|d| d.to_string()).collect();
        s.push_str(&format!(
            "weapon {} damage {}{}\n",
            w.name,
            d.join(" "),
            if w.area { " area" } else { "" }
        ));
    }
    let aim = |a: Aim| match a {
        Aim::Source => "source",
        Aim::Target => "target",
    };
    for r in &sc.reactions {
        let mut q = String::new();
        if let Some(h) = r.hit {
            q.push_str(if h { " hit" } else { " miss" });
        }
        if r.from_adjacent {
            q.push_str(" from-adjacent");
        }
        if r.foe {
            q.push_str(" foe");
        }
        let timing = match r.timing {
            Timing::Interrupt => "interrupt",
            Timing::Followup => "followup",
        };
        let effect = match r.effect {
            Effect::Attack { weapon, at } => {
                format!("attack {} at {}", sc.weapons[weapon].name, aim(at))
            }
            Effect::Damage { amount, at } => format!("damage {amount} at {}", aim(at)),
            Effect::Relocate { to, teleport } => format!(
                "{} {} {}",
                if teleport { "teleport" } else { "move" },
                to.x,
                to.y
            ),
        };
        s.push_str(&format!(
            "reaction {} of {} on {} {}{q} {timing} {effect}{}{}\n",
            r.name,
            sc.units[r.unit].name,
            r.on.name(),
            r.role.name(),
            if r.optional { " optional" } else { "" },
            if r.once { " once" } else { "" }
        ));
    }
    match &sc.action {
        Action::Activate {
            actor,
            weapon,
            targets,
        } => {
            let t: Vec<&str> = targets.iter().map(|&t| sc.units[t].name.as_str()).collect();
            s.push_str(&format!(
                "action {} activate {} at {}\n",
                sc.units[*actor].name,
                sc.weapons[*weapon].name,
                t.join(" ")
            ));
        }
        Action::Relocate {
            actor,
            to,
            teleport,
        } => s.push_str(&format!(
            "action {} {} {} {}\n",
            sc.units[*actor].name,
            if *teleport { "teleport" } else { "move" },
            to.x,
            to.y
        )),
    }
    s
}
