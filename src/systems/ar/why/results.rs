//! What each player learns from one outcome: the results of their information actions
//! (tracker, watcher, follower, voyeur, cop) and the notices every player gets (blocked,
//! stopped, killed, saved), each attributed to the effects that produced it.
//!
//! Owns: [`Results`] (data, per player) and its text and JSON renderings; the rule of
//! which actions *visit* (in R, uncut, with a final target, not stopped at their source by
//! a block rule or a commute: `Fates::visiting`). Invariants: a pure function of the universe, the
//! cut, the resolution and the way, read through the judge's kind table
//! ([`semantics::attack`], [`semantics::unblockable`]), never through an engine; every
//! item names the effects it comes from (`by`), so `--explain` can say why. The words
//! are those of `docs/ar.md`, "What each player learns".

use crate::systems::ar::judge::semantics::{self, Rule};
use crate::systems::ar::night::model::{ActionKind, Info, Kind, PassiveKind, Player};
use crate::systems::ar::night::resolution::{Cut, Resolution, TargetMap};
use crate::systems::ar::night::universe::{effect_name, Ix, Universe};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// At most this many outcomes get their results written (as `--explain` explains).
pub const MAX_SHOWN: usize = 16;

/// What an information action saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saw {
    /// Players, sorted by name (tracker: where the target's actions landed; watcher: who
    /// visited the target). Empty: nobody.
    Players(Vec<Player>),
    /// Kind words, sorted (follower: the target's visiting actions; voyeur: the actions
    /// that visited the target). Empty: none.
    Kinds(Vec<String>),
    /// The target's alignment (cop); `None` when the night gives none for it.
    Alignment(Option<String>),
}

/// One thing a player learns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Learned {
    /// The result of an information action at one of its final targets; `saw` is `None`
    /// ("no result") when the action failed or was cut.
    Info {
        /// The information action.
        effect: Ix,
        /// What kind of information.
        info: Info,
        /// The player looked at: a final target (a declared one when the action is cut).
        target: Player,
        /// What it saw, or `None` for no result.
        saw: Option<Saw>,
    },
    /// A submitted action of the player failed by a block rule (a `block`, or the block
    /// part of a `jail`, not cancelled by `unblockable`).
    Blocked {
        /// The action that failed.
        effect: Ix,
    },
    /// An action of the player failed by a `stop`.
    Stopped {
        /// The action that failed.
        effect: Ix,
    },
    /// The player dies.
    Killed,
    /// The player dies with another: a `hide` behind a player who is killed, or a
    /// `babysit` whose babysitter is killed.
    DiedWith {
        /// The `hide` or `babysit` that links the deaths.
        link: Ix,
        /// The killed player the death follows.
        with: Player,
    },
    /// A kill that reached the player failed because of a protect, jail, bulletproof or
    /// immune.
    Saved {
        /// The kill that failed.
        kill: Ix,
    },
}

/// One item with the effects it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// What is learnt.
    pub what: Learned,
    /// The effects that produced it, in universe order.
    pub by: Vec<Ix>,
}

/// What every player learns from one outcome: the players who learn something, in
/// player order, each with their items (information results in effect order, then
/// notices).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Results {
    /// Per player, in player order; players who learn nothing are left out.
    pub players: Vec<(Player, Vec<Item>)>,
}

/// How one uncut action of R fared: the succeeding effects that made it fail, sorted by
/// what they did.
#[derive(Clone, Debug, Default)]
struct Fate {
    /// Block rules that count (not cancelled by `unblockable`).
    blocks: Vec<Ix>,
    /// Commutes.
    commutes: Vec<Ix>,
    /// Stops.
    stops: Vec<Ix>,
    /// Protects, jails (their protection), bulletproof and immune passives on a kill.
    savers: Vec<Ix>,
    /// Every effect that made it fail, block rules cancelled by `unblockable` left out.
    all: Vec<Ix>,
}

impl Fate {
    /// Stopped at its source: by a block rule or a commute (it went nowhere).
    fn at_source(&self) -> Vec<Ix> {
        let mut v: Vec<Ix> = self.blocks.iter().chain(&self.commutes).copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn fate(u: &Universe, r: &Resolution, way: &TargetMap, f: Ix) -> Fate {
    let s = &r.succeeded;
    let unblockable = semantics::unblockable(u, s, f);
    let mut out = Fate::default();
    for g in s.ones() {
        let Some(rule) = semantics::attack(u, way, g, f) else {
            continue;
        };
        let gk = u.effects[g].kind;
        // A jail whose protection is what the judge reports still blocks at the source.
        let blocked = semantics::at_source(u, way, g, f) == Some(Rule::Blocked);
        if blocked && !unblockable {
            out.blocks.push(g);
        }
        if rule == Rule::Blocked {
            if !unblockable {
                out.all.push(g);
            }
            continue;
        }
        out.all.push(g);
        if gk == Kind::Action(ActionKind::Commute) {
            out.commutes.push(g);
        } else if rule == Rule::Stopped {
            out.stops.push(g);
        } else if u.effects[f].action() == Some(ActionKind::Kill)
            && matches!(
                gk,
                Kind::Action(
                    ActionKind::Protect | ActionKind::Jail | ActionKind::Hide | ActionKind::Babysit
                ) | Kind::Passive(PassiveKind::Bulletproof | PassiveKind::Immune)
            )
        {
            out.savers.push(g);
        }
    }
    out
}

fn sorted_players(u: &Universe, mut v: Vec<Player>) -> Vec<Player> {
    v.sort_by(|&a, &b| u.player_name(a).cmp(u.player_name(b)));
    v.dedup();
    v
}

fn sorted_words(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

fn sorted_ix(mut v: Vec<Ix>) -> Vec<Ix> {
    v.sort_unstable();
    v.dedup();
    v
}

/// One outcome, read once: the uncut actions of R and how each fared.
struct Fates<'a> {
    u: &'a Universe,
    way: &'a TargetMap,
    /// The uncut actions of R, in universe order.
    live: Vec<Ix>,
    /// The fate of each of them (`None` for the other effects).
    fates: Vec<Option<Fate>>,
}

impl Fates<'_> {
    /// Whether action `f` visits its final targets: it is in R, not cut, has a final
    /// target, and was not stopped at its source (by a block rule not cancelled by
    /// `unblockable`, or by a commute). Actions that failed at their target (protected,
    /// stopped, bulletproof, immune) still visit.
    fn visiting(&self, f: Ix) -> bool {
        !self.way[f].is_empty()
            && self.fates[f]
                .as_ref()
                .is_some_and(|x| x.at_source().is_empty())
    }

    /// The actions `pick` keeps, split into the visiting ones and what stopped the others
    /// at their source.
    fn split(&self, pick: impl Fn(Ix) -> bool) -> (Vec<Ix>, Vec<Ix>) {
        let mut seen = Vec::new();
        let mut stoppers = Vec::new();
        for &a in self.live.iter().filter(|&&a| pick(a)) {
            if self.visiting(a) {
                seen.push(a);
            } else if let Some(f) = &self.fates[a] {
                stoppers.extend(f.at_source());
            }
        }
        (seen, stoppers)
    }

    /// What succeeding information action `i` of kind `info` learns about `x`, with the
    /// effects it comes from: the actions seen, and what stopped at their source the
    /// actions that would have been seen (for a cop, its own action).
    fn learn(&self, info: Info, i: Ix, x: Player) -> (Saw, Vec<Ix>) {
        let (u, way) = (self.u, self.way);
        let (seen, stoppers) = match info {
            Info::Track | Info::Follow => self.split(|a| u.effects[a].actor == x),
            Info::Watch | Info::Voyeur => self.split(|a| a != i && way[a].contains(&x)),
            Info::Investigate => {
                let a = u.ensemble.alignment(x).map(str::to_string);
                return (Saw::Alignment(a), vec![i]);
            }
        };
        let saw = match info {
            Info::Track => Saw::Players(sorted_players(
                u,
                seen.iter().flat_map(|&a| way[a].iter().copied()).collect(),
            )),
            Info::Watch => Saw::Players(sorted_players(
                u,
                seen.iter().map(|&a| u.effects[a].actor).collect(),
            )),
            _ => Saw::Kinds(sorted_words(
                seen.iter().map(|&a| u.effects[a].kind_word()).collect(),
            )),
        };
        let mut by = seen;
        by.extend(stoppers);
        (saw, by)
    }
}

/// What every player learns from resolution `r` of E[cut] under `way`.
pub fn results(u: &Universe, cut: &Cut, r: &Resolution, way: &TargetMap) -> Results {
    let s = &r.succeeded;
    let live: Vec<Ix> = r
        .present
        .ones()
        .filter(|&f| !semantics::is_cut(u, cut, f) && u.effects[f].action().is_some())
        .collect();
    let mut fates: Vec<Option<Fate>> = vec![None; u.len()];
    for &f in &live {
        fates[f] = Some(fate(u, r, way, f));
    }
    let n = Fates {
        u,
        way,
        live,
        fates,
    };
    let mut per: Vec<Vec<Item>> = vec![Vec::new(); u.n_players()];
    for i in r.present.ones() {
        let e = &u.effects[i];
        if e.action().is_none() {
            continue;
        }
        let p = e.actor as usize;
        if let Some(info) = e.mods.info {
            let targets = if semantics::is_cut(u, cut, i) {
                &e.targets
            } else {
                &way[i]
            };
            let mut done = Vec::new();
            for &x in targets {
                if done.contains(&x) {
                    continue;
                }
                done.push(x);
                let (saw, by) = if s.contains(i) {
                    let (saw, by) = n.learn(info, i, x);
                    (Some(saw), by)
                } else {
                    let by = n.fates[i].as_ref().map(|f| f.all.clone());
                    (None, by.unwrap_or_default())
                };
                per[p].push(Item {
                    what: Learned::Info {
                        effect: i,
                        info,
                        target: x,
                        saw,
                    },
                    by: sorted_ix(by),
                });
            }
        }
        let Some(fate) = &n.fates[i] else { continue };
        if !fate.blocks.is_empty() {
            per[p].push(Item {
                what: Learned::Blocked { effect: i },
                by: sorted_ix(fate.blocks.clone()),
            });
        }
        if !fate.stops.is_empty() {
            per[p].push(Item {
                what: Learned::Stopped { effect: i },
                by: sorted_ix(fate.stops.clone()),
            });
        }
    }
    // Saved: a kill that reached them and failed because of a saver.
    for &k in &n.live {
        let Some(fate) = &n.fates[k] else { continue };
        if u.effects[k].action() != Some(ActionKind::Kill)
            || s.contains(k)
            || fate.savers.is_empty()
            || !n.visiting(k)
        {
            continue;
        }
        for x in sorted_players(u, way[k].clone()) {
            let mut by = vec![k];
            by.extend(&fate.savers);
            per[x as usize].push(Item {
                what: Learned::Saved { kill: k },
                by: sorted_ix(by),
            });
        }
    }
    // Killed: the final target of a succeeding kill.
    let mut killers: Vec<Vec<Ix>> = vec![Vec::new(); u.n_players()];
    for &k in &n.live {
        if u.effects[k].action() == Some(ActionKind::Kill) && s.contains(k) {
            for &x in &way[k] {
                killers[x as usize].push(k);
            }
        }
    }
    // Died with another (one step, as `Resolution::deaths`): a hider whose final target
    // is killed, the final target of a babysitter who is killed.
    let mut linked: Vec<(Player, Ix, Player)> = Vec::new();
    for &g in &n.live {
        if !s.contains(g) {
            continue;
        }
        let actor = u.effects[g].actor;
        match u.effects[g].action() {
            Some(ActionKind::Hide) => {
                for &t in &way[g] {
                    if !killers[t as usize].is_empty() {
                        linked.push((actor, g, t));
                    }
                }
            }
            Some(ActionKind::Babysit) if !killers[actor as usize].is_empty() => {
                for &t in &way[g] {
                    linked.push((t, g, actor));
                }
            }
            _ => {}
        }
    }
    for (x, g, with) in linked {
        let mut by = vec![g];
        by.extend(&killers[with as usize]);
        per[x as usize].push(Item {
            what: Learned::DiedWith { link: g, with },
            by: sorted_ix(by),
        });
    }
    for (x, ks) in killers.into_iter().enumerate() {
        if !ks.is_empty() {
            per[x].push(Item {
                what: Learned::Killed,
                by: sorted_ix(ks),
            });
        }
    }
    Results {
        players: per
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(p, v)| (p as Player, v))
            .collect(),
    }
}

/// An action as its actor reads it: `track Goon [e2]` (declared targets).
fn action_words(u: &Universe, i: Ix) -> String {
    let e = &u.effects[i];
    let mut s = e.kind_word();
    for &t in &e.targets {
        s.push(' ');
        s.push_str(u.player_name(t));
    }
    format!("{s} [{}]", e.id)
}

fn names(u: &Universe, ps: &[Player], none: &str) -> String {
    if ps.is_empty() {
        return none.to_string();
    }
    ps.iter()
        .map(|&p| u.player_name(p))
        .collect::<Vec<_>>()
        .join(", ")
}

fn words(ws: &[String], none: &str) -> String {
    if ws.is_empty() {
        none.to_string()
    } else {
        ws.join(", ")
    }
}

/// The verb of an information kind, past tense and as an attempt.
fn verbs(info: Info) -> (&'static str, &'static str) {
    match info {
        Info::Track => ("tracked", "track"),
        Info::Watch => ("watched", "watch"),
        Info::Follow => ("followed", "follow"),
        Info::Voyeur => ("spied on", "spy on"),
        Info::Investigate => ("investigated", "investigate"),
    }
}

impl Learned {
    /// The JSON `kind` of the item: the information kind, or the notice.
    pub fn kind(&self) -> &'static str {
        match self {
            Learned::Info { info, .. } => info.name(),
            Learned::Blocked { .. } => "blocked",
            Learned::Stopped { .. } => "stopped",
            Learned::Killed => "killed",
            Learned::DiedWith { .. } => "died_with",
            Learned::Saved { .. } => "saved",
        }
    }

    /// In words: `tracked Goon: Goon visited Cop`, `was blocked: track Goon [e2] failed`
    /// (`cut`: the information action was cut).
    fn words(&self, u: &Universe, cut: bool) -> String {
        match self {
            Learned::Info {
                info, target, saw, ..
            } => {
                let x = u.player_name(*target);
                let (done, tried) = verbs(*info);
                match saw {
                    None if cut => format!("tried to {tried} {x}: no result (cut)"),
                    None => format!("tried to {tried} {x}: no result"),
                    Some(Saw::Players(ps)) if *info == Info::Track => {
                        format!("{done} {x}: {x} visited {}", names(u, ps, "nobody"))
                    }
                    Some(Saw::Players(ps)) => {
                        format!("{done} {x}: {x} was visited by {}", names(u, ps, "nobody"))
                    }
                    Some(Saw::Kinds(ks)) if *info == Info::Follow => {
                        format!("{done} {x}: {x} used {}", words(ks, "nothing"))
                    }
                    Some(Saw::Kinds(ks)) => {
                        format!("{done} {x}: {x} was visited by {}", words(ks, "nothing"))
                    }
                    Some(Saw::Alignment(a)) => {
                        format!(
                            "{done} {x}: {}",
                            a.as_deref().unwrap_or("no alignment given")
                        )
                    }
                }
            }
            Learned::Blocked { effect } => {
                format!("was blocked: {} failed", action_words(u, *effect))
            }
            Learned::Stopped { effect } => {
                format!("was stopped: {} failed", action_words(u, *effect))
            }
            Learned::Killed => "was killed".to_string(),
            Learned::DiedWith { link, with } => {
                let how = if u.effects[*link].action() == Some(ActionKind::Hide) {
                    "hid behind"
                } else {
                    "was babysat by"
                };
                format!(
                    "died with {}: {how} {}, who was killed",
                    u.player_name(*with),
                    u.player_name(*with)
                )
            }
            Learned::Saved { kill } => format!(
                "was saved: {} {} failed",
                u.player_name(u.effects[*kill].actor),
                action_words(u, *kill)
            ),
        }
    }
}

impl Item {
    /// In words: `tracked Goon: Goon visited Cop`, `was blocked: track Goon [e2] failed`.
    pub fn words(&self, u: &Universe) -> String {
        // A failed action has a reason in an acceptable resolution: none means cut.
        self.what.words(u, self.by.is_empty())
    }
}

impl Results {
    /// One line per player who learns something (`T: tracked Goon: Goon visited Cop
    /// [e1]`), a further item on its own line below; each line starts with `indent`. With
    /// `explain`, each item is followed by the effects it comes from, named in full.
    pub fn to_text(&self, u: &Universe, indent: &str, explain: bool) -> String {
        let mut out = String::new();
        if self.players.is_empty() {
            let _ = writeln!(out, "{indent}nobody learns anything");
        }
        for (p, items) in &self.players {
            let name = u.player_name(*p);
            let pad = " ".repeat(name.chars().count() + 2);
            for (k, item) in items.iter().enumerate() {
                let head = if k == 0 {
                    format!("{name}: ")
                } else {
                    pad.clone()
                };
                let ids = if item.by.is_empty() {
                    String::new()
                } else {
                    let ids: Vec<&str> =
                        item.by.iter().map(|&g| u.effects[g].id.as_str()).collect();
                    format!("  [{}]", ids.join(", "))
                };
                let _ = writeln!(out, "{indent}{head}{}{ids}", item.words(u));
                if explain && !item.by.is_empty() {
                    let from: Vec<String> = item.by.iter().map(|&g| effect_name(u, g)).collect();
                    let _ = writeln!(out, "{indent}{pad}  from {}", from.join("; "));
                }
            }
        }
        out
    }

    /// As JSON: an object from player name to the list of items, each
    /// `{"kind", "effect", "target", "saw", "by", "text"}` (see `docs/json.md`).
    pub fn to_json(&self, u: &Universe) -> Value {
        let id = |i: Ix| Value::from(u.effects[i].id.clone());
        let mut m = Map::new();
        for (p, items) in &self.players {
            let list: Vec<Value> = items
                .iter()
                .map(|item| {
                    let (effect, target, saw) = match &item.what {
                        Learned::Info {
                            effect,
                            target,
                            saw,
                            ..
                        } => {
                            let saw = match saw {
                                None => Value::Null,
                                Some(Saw::Players(ps)) => {
                                    json!(ps.iter().map(|&q| u.player_name(q)).collect::<Vec<_>>())
                                }
                                Some(Saw::Kinds(ks)) => json!(ks),
                                Some(Saw::Alignment(a)) => json!(a.iter().collect::<Vec<_>>()),
                            };
                            (id(*effect), json!(u.player_name(*target)), saw)
                        }
                        Learned::Blocked { effect } | Learned::Stopped { effect } => {
                            (id(*effect), Value::Null, Value::Null)
                        }
                        Learned::Saved { kill } => (id(*kill), Value::Null, Value::Null),
                        Learned::Killed => (Value::Null, Value::Null, Value::Null),
                        Learned::DiedWith { link, with } => {
                            (id(*link), json!(u.player_name(*with)), Value::Null)
                        }
                    };
                    let mut by: Vec<&str> =
                        item.by.iter().map(|&g| u.effects[g].id.as_str()).collect();
                    by.sort_unstable();
                    json!({"kind": item.what.kind(), "effect": effect, "target": target,
                           "saw": saw, "by": by, "text": item.words(u)})
                })
                .collect();
            m.insert(u.player_name(*p).to_string(), Value::Array(list));
        }
        Value::Object(m)
    }
}

/// `what each player learns:` for each of the first outcomes, as text (each outcome
/// under its number and probability; with `explain`, the explanation of `--explain`
/// first) and as a JSON array of `{"probability", "cut", "players"}` (the `--results`
/// part of a report).
pub fn results_outcomes(
    u: &Universe,
    outs: &[crate::systems::ar::answer::report::Outcome],
    explain: bool,
) -> (String, Value) {
    let mut text = String::from(if explain { "why:\n" } else { "results:\n" });
    let mut js = Vec::new();
    for (k, o) in outs.iter().enumerate().take(MAX_SHOWN) {
        let res = results(u, o.cut, o.resolution, o.way);
        let _ = writeln!(text, "  outcome {} (probability {}):", k + 1, o.probability);
        if explain {
            let e = super::explain::explain(u, o.cut, o.resolution, o.way);
            text.push_str(&e.to_text(u, "    "));
        }
        text.push_str("    what each player learns:\n");
        text.push_str(&res.to_text(u, "      ", explain));
        let cut: Vec<&str> = crate::systems::ar::night::resolution::sorted_id_refs(u, o.cut.ones());
        js.push(json!({"probability": o.probability.to_string(), "cut": cut,
                       "players": res.to_json(u)}));
    }
    if outs.len() > MAX_SHOWN {
        let _ = writeln!(
            text,
            "  ({} more outcomes not shown; see --json for the first {MAX_SHOWN})",
            outs.len() - MAX_SHOWN
        );
    }
    (text, Value::Array(js))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::night::model::Ensemble;
    use fixedbitset::FixedBitSet;

    /// The one outcome of a night without deflections or reflexives, given by hand: R is
    /// E, S the effects named, final targets the declared ones; the judge confirms it is
    /// acceptable, so each test's hand-worked S is checked too.
    fn outcome(ens: &Ensemble, succeeded: &[&str]) -> (Universe, Cut, Resolution) {
        let u = Universe::new(ens);
        let cut = Cut::with_capacity(u.n_declared);
        let mut present = FixedBitSet::with_capacity(u.len());
        present.insert_range(..u.n_declared);
        let mut s = FixedBitSet::with_capacity(u.len());
        for id in succeeded {
            s.insert(u.effects.iter().position(|e| e.id == *id).expect("an id"));
        }
        let way = semantics::declared_targets(&u, &cut, &present);
        assert_eq!(semantics::check(&u, &cut, &present, &s, &way), Ok(()));
        let r = Resolution {
            present,
            succeeded: s,
            ways: vec![way],
        };
        (u, cut, r)
    }

    /// What each player learns, as JSON without the `text` of each item.
    fn learnt(ens: &Ensemble, succeeded: &[&str]) -> Value {
        let (u, cut, r) = outcome(ens, succeeded);
        let mut v = results(&u, &cut, &r, &r.ways[0]).to_json(&u);
        for items in v.as_object_mut().unwrap().values_mut() {
            for item in items.as_array_mut().unwrap() {
                item.as_object_mut().unwrap().remove("text");
            }
        }
        v
    }

    fn align(ens: &mut Ensemble, who: &[(&str, &str)]) {
        for (p, a) in who {
            let p = ens.player_index(p).expect("a player");
            ens.alignments.push((p, a.to_string()));
        }
        ens.alignments.sort();
    }

    /// e1 Goon kill Cop, e2 Doc protect Cop, e3 T track Goon, e4 W watch Cop, e5 Cop
    /// investigate Goon, e6 R block Doc; Goon is mafia. By hand: nothing can make e6 fail
    /// (nobody blocks R, no stop), so it succeeds and Doc's protect e2 fails (blocked);
    /// then nothing makes e1 fail (its only attacker e2 fails), and e3, e4, e5 have no
    /// attacker: S = {e1 e3 e4 e5 e6}. Visits: e1 (Goon at Cop), e3 (T at Goon), e4 (W
    /// at Cop), e5 (Cop at Goon), e6 (R at Doc); e2 was stopped at its source by e6.
    /// T tracks Goon: Goon's visiting actions are e1, landing on Cop. W watches Cop: the
    /// visiting actions at Cop other than e4 are e1 (Goon); Doc's e2, aimed at Cop, did
    /// not visit because of e6, so e6 is part of why. Cop investigates Goon: mafia, and
    /// dies by e1. Doc is blocked by e6.
    #[test]
    fn tracker_watcher_cop_and_a_blocked_notice() {
        let mut ens = Ensemble::from_triples(&[
            ("Goon", "kill", &["Cop"]),
            ("Doc", "protect", &["Cop"]),
            ("T", "track", &["Goon"]),
            ("W", "watch", &["Cop"]),
            ("Cop", "investigate", &["Goon"]),
            ("R", "block", &["Doc"]),
        ]);
        align(&mut ens, &[("Goon", "mafia"), ("Cop", "town")]);
        let got = learnt(&ens, &["e1", "e3", "e4", "e5", "e6"]);
        assert_eq!(
            got,
            json!({
                "T": [{"kind": "track", "effect": "e3", "target": "Goon", "saw": ["Cop"], "by": ["e1"]}],
                "W": [{"kind": "watch", "effect": "e4", "target": "Cop", "saw": ["Goon"], "by": ["e1", "e6"]}],
                "Cop": [
                    {"kind": "investigate", "effect": "e5", "target": "Goon", "saw": ["mafia"], "by": ["e5"]},
                    {"kind": "killed", "effect": null, "target": null, "saw": null, "by": ["e1"]}
                ],
                "Doc": [{"kind": "blocked", "effect": "e2", "target": null, "saw": null, "by": ["e6"]}]
            })
        );
        // The text: one line per player (in the order players are first named), a
        // further item below it.
        let (u, cut, r) = outcome(&ens, &["e1", "e3", "e4", "e5", "e6"]);
        let text = results(&u, &cut, &r, &r.ways[0]).to_text(&u, "", false);
        assert_eq!(
            text,
            "Cop: investigated Goon: mafia  [e5]\n\
             \x20    was killed  [e1]\n\
             Doc: was blocked: protect Cop [e2] failed  [e6]\n\
             T: tracked Goon: Goon visited Cop  [e1]\n\
             W: watched Cop: Cop was visited by Goon  [e1, e6]\n"
        );
    }

    /// e1 Goon kill Cop, e2 Doc protect Cop, e3 T track Goon. By hand: e2 and e3 have no
    /// attacker and succeed; e2 shares Cop with the kill e1, which fails (protected) but
    /// was not stopped at its source: it still visited Cop. So T sees Goon visit Cop
    /// (by e1), and Cop was saved (the kill e1 and the saver e2).
    #[test]
    fn a_tracker_on_a_protected_killer_sees_the_visit() {
        let ens = Ensemble::from_triples(&[
            ("Goon", "kill", &["Cop"]),
            ("Doc", "protect", &["Cop"]),
            ("T", "track", &["Goon"]),
        ]);
        assert_eq!(
            learnt(&ens, &["e2", "e3"]),
            json!({
                "T": [{"kind": "track", "effect": "e3", "target": "Goon", "saw": ["Cop"], "by": ["e1"]}],
                "Cop": [{"kind": "saved", "effect": "e1", "target": null, "saw": null, "by": ["e1", "e2"]}]
            })
        );
    }

    /// e1 Goon kill Cop, e2 R block Goon, e3 T track Goon. By hand: e2, e3 unattacked
    /// succeed; e1 is blocked (Goon is e2's target), stopped at its source: Goon visited
    /// nobody, and e2 is why. Goon is told of the block; Cop learns nothing (the kill
    /// never reached Cop, so nobody saved Cop).
    #[test]
    fn a_tracker_on_a_blocked_player_sees_nobody() {
        let ens = Ensemble::from_triples(&[
            ("Goon", "kill", &["Cop"]),
            ("R", "block", &["Goon"]),
            ("T", "track", &["Goon"]),
        ]);
        assert_eq!(
            learnt(&ens, &["e2", "e3"]),
            json!({
                "Goon": [{"kind": "blocked", "effect": "e1", "target": null, "saw": null, "by": ["e2"]}],
                "T": [{"kind": "track", "effect": "e3", "target": "Goon", "saw": [], "by": ["e2"]}]
            })
        );
    }

    /// e1 C investigate Goon, e2 C investigate Doc, e3 Doc visit Goon; only Goon has an
    /// alignment line (mafia). No attacks: S = E. C learns Goon's alignment and that the
    /// night gives none for Doc (an empty `saw`), each by its own investigation.
    #[test]
    fn a_cop_with_and_without_an_alignment() {
        let mut ens = Ensemble::from_triples(&[
            ("C", "investigate", &["Goon"]),
            ("C", "investigate", &["Doc"]),
            ("Doc", "visit", &["Goon"]),
        ]);
        align(&mut ens, &[("Goon", "mafia")]);
        assert_eq!(
            learnt(&ens, &["e1", "e2", "e3"]),
            json!({"C": [
                {"kind": "investigate", "effect": "e1", "target": "Goon", "saw": ["mafia"], "by": ["e1"]},
                {"kind": "investigate", "effect": "e2", "target": "Doc", "saw": [], "by": ["e2"]}
            ]})
        );
        let (u, cut, r) = outcome(&ens, &["e1", "e2", "e3"]);
        let text = results(&u, &cut, &r, &r.ways[0]).to_text(&u, "", false);
        assert!(
            text.contains("   investigated Doc: no alignment given  [e2]\n"),
            "{text}"
        );
    }

    /// e1 Cm commute, e2 V visit Cm, e3 W watch Cm, e4 T track V, e5 X watch V. By hand
    /// (commute: every action of another player with Cm among its final targets fails):
    /// e1 is unattacked and succeeds, so e2 and e3 fail (commuted, stopped at their
    /// source); e4 and e5 are unattacked and succeed. W gets no result, because of e1. T
    /// tracks V: V's only action e2 did not visit, because of e1: nobody. X watches V, the
    /// commuter's visitor: V was visited by T's e4 (X's own e5 excluded).
    #[test]
    fn a_watcher_on_a_commuter_and_on_the_commuters_visitor() {
        let ens = Ensemble::from_triples(&[
            ("Cm", "commute", &[]),
            ("V", "visit", &["Cm"]),
            ("W", "watch", &["Cm"]),
            ("T", "track", &["V"]),
            ("X", "watch", &["V"]),
        ]);
        assert_eq!(
            learnt(&ens, &["e1", "e4", "e5"]),
            json!({
                "W": [{"kind": "watch", "effect": "e3", "target": "Cm", "saw": null, "by": ["e1"]}],
                "T": [{"kind": "track", "effect": "e4", "target": "V", "saw": [], "by": ["e1"]}],
                "X": [{"kind": "watch", "effect": "e5", "target": "V", "saw": ["T"], "by": ["e4"]}]
            })
        );
    }

    /// e1 Goon kill Cop, e2 Doc protect Cop, e3 F follow Goon, e4 Vo voyeur Cop, e5 S stop
    /// Doc, e6 Doc visit Doc. By hand: e5 (a stop at Doc) is unattacked
    /// (stops do not stop stops) and succeeds; e6 shares Doc with e5: stopped (it still
    /// visited). e2 is at Cop, not Doc: unattacked, succeeds; e1 fails (protected, still
    /// visited); e3, e4 succeed. F sees Goon's e1: kill. Vo sees the visits at Cop but its
    /// own: e1 kill, e2 protect. Doc is told e6 was stopped (by e5); Cop was saved.
    #[test]
    fn follower_voyeur_and_a_stopped_notice() {
        let ens = Ensemble::from_triples(&[
            ("Goon", "kill", &["Cop"]),
            ("Doc", "protect", &["Cop"]),
            ("F", "follow", &["Goon"]),
            ("Vo", "voyeur", &["Cop"]),
            ("S", "stop", &["Doc"]),
            ("Doc", "visit", &["Doc"]),
        ]);
        assert_eq!(
            learnt(&ens, &["e2", "e3", "e4", "e5"]),
            json!({
                "Cop": [{"kind": "saved", "effect": "e1", "target": null, "saw": null, "by": ["e1", "e2"]}],
                "Doc": [{"kind": "stopped", "effect": "e6", "target": null, "saw": null, "by": ["e5"]}],
                "F": [{"kind": "follow", "effect": "e3", "target": "Goon", "saw": ["kill"], "by": ["e1"]}],
                "Vo": [{"kind": "voyeur", "effect": "e4", "target": "Cop", "saw": ["kill", "protect"], "by": ["e1", "e2"]}]
            })
        );
    }
}
