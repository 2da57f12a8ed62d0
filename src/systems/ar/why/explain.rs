//! Why a resolution is what it is, in a moderator's words: for one resolution and one of
//! its ways, why each effect failed (the succeeding effects and the rule that makes it
//! fail) or succeeded, why each created effect exists (its derivation chain back to a
//! declared action), and which way each redirected slot went (the deflections it passed).
//!
//! Owns: [`Explanation`] (data) and its text and JSON renderings (effects are named by
//! [`effect_name`], the one way a report names an effect: `Goon kill Cop [e1]`). Invariants: everything is computed
//! from the night, the cut, the resolution and the way by the rules of `docs/ar.md`
//! (through [`semantics::attack`]), never by an engine; every failed uncut effect has at
//! least one reason when the resolution is acceptable (a failed effect without one is
//! reported as `Why::Unexplained`, which an acceptable resolution never produces).

use crate::systems::ar::answer::factor::{Factored, Night};
use crate::systems::ar::judge::semantics::{self, rule_words, Rule};
use crate::systems::ar::night::model::{ActionKind, Kind, PassiveKind, Player, Trigger};
use crate::systems::ar::night::resolution::{Cut, Resolution, TargetMap};
use crate::systems::ar::night::universe::{effect_name, Ix, Origin, Universe};
use itertools::Itertools;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn rule_id(rule: Rule) -> &'static str {
    match rule {
        Rule::Blocked => "blocked",
        Rule::Stopped => "stopped",
        Rule::Protected => "protected",
        Rule::Bulletproof => "bulletproof",
        Rule::Immune => "immune",
        Rule::Commuted => "commuted",
        Rule::Hidden => "hidden",
    }
}

/// Why one effect ended as it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Cut by the Gordian cut: a no-op that always fails.
    Cut,
    /// Failed: these succeeding effects make it fail, each by its rule.
    Attacked(Vec<(Ix, Rule)>),
    /// A passive: it succeeds unless cut.
    Passive,
    /// Succeeded: nothing that succeeds makes it fail. `shielded` lists blocks aimed at its
    /// actor that an `unblockable` passive cancels.
    Unopposed {
        /// Succeeding blocks cancelled by the actor's `unblockable` passive.
        shielded: Vec<Ix>,
    },
    /// Failed with no reason under the rules: never for an acceptable resolution.
    Unexplained,
}

/// Why a created effect exists: the passive, the action that triggered it, and the chain
/// of triggers back to a declared action (first the declared one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Creation {
    /// The created effect.
    pub created: Ix,
    /// The reflexive passive that created it.
    pub passive: Ix,
    /// The succeeding action that triggered it.
    pub trigger: Ix,
    /// The triggers from a declared action down to `trigger`.
    pub chain: Vec<Ix>,
}

/// One redirected slot: where it was declared and the deflections it went through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The action.
    pub effect: Ix,
    /// The slot (position among its targets).
    pub slot: usize,
    /// The declared target.
    pub declared: Player,
    /// Each deflection passed (the `deflect` effect) and where it sent the slot.
    pub path: Vec<(Ix, Player)>,
}

/// The explanation of one resolution under one way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Every effect of R, in universe order, with why it succeeded or failed.
    pub effects: Vec<(Ix, bool, Why)>,
    /// Every created effect of R.
    pub created: Vec<Creation>,
    /// Every slot whose final target differs from its declared one.
    pub redirects: Vec<Redirect>,
    /// Who dies under this way, with the kill that does it.
    pub deaths: Vec<(Player, Ix)>,
}

/// Explains resolution `r` of E[cut] under `way`.
pub fn explain(u: &Universe, cut: &Cut, r: &Resolution, way: &TargetMap) -> Explanation {
    let s = &r.succeeded;
    let mut effects = Vec::new();
    for f in r.present.ones() {
        let ok = s.contains(f);
        let why = if semantics::is_cut(u, cut, f) {
            Why::Cut
        } else if u.effects[f].action().is_none() {
            Why::Passive
        } else {
            let unblockable = semantics::unblockable(u, s, f);
            let mut attacks = Vec::new();
            let mut shielded = Vec::new();
            for g in s.ones() {
                match semantics::attack(u, way, g, f) {
                    Some(Rule::Blocked) if unblockable => shielded.push(g),
                    Some(rule) => attacks.push((g, rule)),
                    None => {}
                }
            }
            if ok {
                Why::Unopposed { shielded }
            } else if attacks.is_empty() {
                Why::Unexplained
            } else {
                Why::Attacked(attacks)
            }
        };
        effects.push((f, ok, why));
    }
    Explanation {
        effects,
        created: creations(u, cut, r, way),
        redirects: redirects(u, cut, r, way),
        deaths: s
            .ones()
            .filter(|&i| u.effects[i].action() == Some(ActionKind::Kill))
            .flat_map(|i| way[i].iter().map(move |&p| (p, i)))
            .collect(),
    }
}

/// Grounded creation replayed with provenance: the least fixed point of
/// `semantics::created_set`, recording for each created effect the first trigger found.
fn creations(u: &Universe, cut: &Cut, r: &Resolution, way: &TargetMap) -> Vec<Creation> {
    let s = &r.succeeded;
    let mut trigger_of: Vec<Option<(Ix, Ix)>> = vec![None; u.len()];
    loop {
        let mut grew = false;
        for p in s.ones() {
            let Kind::Passive(PassiveKind::Reflexive(_, trigger)) = u.effects[p].kind else {
                continue;
            };
            if semantics::is_cut(u, cut, p) {
                continue;
            }
            let owner = u.effects[p].actor;
            let only = u.effects[p].mods.only;
            for g in 0..u.len() {
                let ge = &u.effects[g];
                let Some(gk) = ge.action() else {
                    continue;
                };
                if semantics::is_cut(u, cut, g)
                    || ge.actor == owner
                    || only.is_some_and(|o| !o.contains(gk))
                {
                    continue;
                }
                let derived = ge.is_declared() || trigger_of[g].is_some();
                // A `reflexive:K` answers a success, a `visited:K` a visit.
                let fires = match trigger {
                    Trigger::Success => s.contains(g),
                    Trigger::Visit => derived && semantics::visits(u, cut, s, way, g),
                };
                if derived && fires && way[g].contains(&owner) {
                    if let Some(c) = u.created(p, ge.actor) {
                        if trigger_of[c].is_none() {
                            trigger_of[c] = Some((p, g));
                            grew = true;
                        }
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    r.present
        .ones()
        .filter(|&c| matches!(u.effects[c].origin, Origin::Created { .. }))
        .filter_map(|c| {
            let (passive, trigger) = trigger_of[c]?;
            let mut chain = vec![trigger];
            let mut cur = trigger;
            while let Some((_, t)) = trigger_of[cur] {
                if chain.contains(&t) {
                    break;
                }
                chain.push(t);
                cur = t;
            }
            chain.reverse();
            Some(Creation {
                created: c,
                passive,
                trigger,
                chain,
            })
        })
        .collect()
}

/// The deflections each moved slot went through: from the declared target, along the
/// succeeding deflections' declared targets, until the slot's final target. With
/// redirections other than plain deflections, the steps of one processing order that
/// gives this way ([`replayed`]).
fn redirects(u: &Universe, cut: &Cut, r: &Resolution, way: &TargetMap) -> Vec<Redirect> {
    let steps = if u.general.is_some() {
        replayed(u, cut, r, way)
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    for i in r.present.ones() {
        if semantics::is_cut(u, cut, i) || u.effects[i].action().is_none() {
            continue;
        }
        for (k, &d) in u.effects[i].targets.iter().enumerate() {
            let Some(&fin) = way[i].get(k) else { continue };
            let path = if u.general.is_some() {
                steps
                    .get(i)
                    .and_then(|s| s.get(k))
                    .cloned()
                    .unwrap_or_default()
            } else {
                deflection_path(u, r, d, fin)
            };
            if fin == d && path.is_empty() {
                continue;
            }
            out.push(Redirect {
                effect: i,
                slot: k,
                declared: d,
                path,
            });
        }
    }
    out
}

/// The succeeding plain deflections a slot passes from `d` to `fin`.
fn deflection_path(u: &Universe, r: &Resolution, d: Player, fin: Player) -> Vec<(Ix, Player)> {
    let mut path = Vec::new();
    let mut cur = d;
    while cur != fin && path.len() <= u.n_players() {
        let Some(g) = u.deflector[cur as usize].filter(|&g| r.succeeded.contains(g)) else {
            break;
        };
        cur = u.effects[g].targets[0];
        path.push((g, cur));
    }
    path
}

/// Orders of more succeeding redirections than this are not replayed: the moved slots
/// are then listed with their final targets only.
const REPLAY_UP_TO: usize = 8;

/// For every slot of `way`, the steps that moved it (redirection, where to), replaying
/// the first processing order of the succeeding redirections (at most [`REPLAY_UP_TO`])
/// that gives `way` (by the judge's [`semantics::process`]); empty when none is replayed.
fn replayed(
    u: &Universe,
    cut: &Cut,
    r: &Resolution,
    way: &TargetMap,
) -> Vec<Vec<Vec<(Ix, Player)>>> {
    let active: Vec<Ix> = r
        .succeeded
        .ones()
        .filter(|&g| {
            !semantics::is_cut(u, cut, g)
                && u.effects[g].action().is_some_and(semantics::is_redirection)
        })
        .collect();
    if active.len() > REPLAY_UP_TO {
        return Vec::new();
    }
    let start = semantics::declared_targets(u, cut, &r.present);
    for order in active.iter().copied().permutations(active.len()) {
        let mut rho = start.clone();
        let mut moved: Vec<Vec<Vec<(Ix, Player)>>> =
            rho.iter().map(|s| vec![Vec::new(); s.len()]).collect();
        for &g in &order {
            let before = rho.clone();
            semantics::process(u, &mut rho, g);
            for (i, slots) in rho.iter().enumerate() {
                for (k, &t) in slots.iter().enumerate() {
                    if t != before[i][k] {
                        moved[i][k].push((g, t));
                    }
                }
            }
        }
        if &rho == way {
            return moved;
        }
    }
    Vec::new()
}

/// The verb of a redirection step in the text form: "deflects", "swaps", "redirects",
/// "guards".
fn verb(k: Option<ActionKind>) -> &'static str {
    match k {
        Some(ActionKind::Swap) => "swaps",
        Some(ActionKind::Redirect) => "redirects",
        Some(ActionKind::Guard) => "guards",
        _ => "deflects",
    }
}

impl Explanation {
    /// The explanation as text, one line per fact, each line starting with `indent`.
    pub fn to_text(&self, u: &Universe, indent: &str) -> String {
        let mut out = String::new();
        for (f, ok, why) in &self.effects {
            let name = effect_name(u, *f);
            let line = match why {
                Why::Cut => format!("{name} is cut (a Gordian cut: it does nothing)"),
                Why::Passive => format!("{name} succeeds: a passive succeeds unless cut"),
                Why::Unopposed { shielded } if shielded.is_empty() => {
                    format!("{name} succeeds: nothing that succeeds stops it")
                }
                Why::Unopposed { shielded } => format!(
                    "{name} succeeds: unblockable, so {} do(es) not stop it",
                    shielded
                        .iter()
                        .map(|&g| effect_name(u, g))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Why::Attacked(a) => format!(
                    "{name} fails: {}",
                    a.iter()
                        .map(|&(g, rule)| rule_words(u, rule, g))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                Why::Unexplained => format!("{name} fails with no reason (not acceptable)"),
            };
            let _ = ok;
            let _ = writeln!(out, "{indent}{line}");
        }
        for c in &self.created {
            let chain: Vec<String> = c.chain.iter().map(|&g| effect_name(u, g)).collect();
            let _ = writeln!(
                out,
                "{indent}{} was created: {} answers {}",
                effect_name(u, c.created),
                effect_name(u, c.passive),
                chain.join(", which created ")
            );
        }
        for r in &self.redirects {
            let hops: Vec<String> = r
                .path
                .iter()
                .map(|&(g, to)| {
                    format!(
                        "{} {} [{}] to {}",
                        u.player_name(u.effects[g].actor),
                        verb(u.effects[g].action()),
                        u.effects[g].id,
                        u.player_name(to)
                    )
                })
                .collect();
            let fin = r.path.last().map_or(r.declared, |&(_, p)| p);
            let line = if fin == r.declared {
                // Moved away and back (a swap undone by a later step).
                format!(
                    "{indent}{} stays at {}: {}",
                    effect_name(u, r.effect),
                    u.player_name(fin),
                    hops.join(", then ")
                )
            } else if hops.is_empty() {
                format!(
                    "{indent}{} goes to {} instead of {}",
                    effect_name(u, r.effect),
                    u.player_name(fin),
                    u.player_name(r.declared)
                )
            } else {
                format!(
                    "{indent}{} goes to {} instead of {}: {}",
                    effect_name(u, r.effect),
                    u.player_name(fin),
                    u.player_name(r.declared),
                    hops.join(", then ")
                )
            };
            let _ = writeln!(out, "{line}");
        }
        out
    }

    /// The explanation as JSON (ids and player names).
    pub fn to_json(&self, u: &Universe) -> Value {
        let id = |i: Ix| u.effects[i].id.clone();
        let effects: Vec<Value> = self
            .effects
            .iter()
            .map(|(f, ok, why)| {
                let (reason, by): (&str, Vec<Value>) = match why {
                    Why::Cut => ("cut", vec![]),
                    Why::Passive => ("passive", vec![]),
                    Why::Unopposed { shielded } => (
                        "unopposed",
                        shielded
                            .iter()
                            .map(|&g| json!({"effect": id(g), "rule": "unblockable"}))
                            .collect(),
                    ),
                    Why::Attacked(a) => (
                        "attacked",
                        a.iter()
                            .map(|&(g, rule)| json!({"effect": id(g), "rule": rule_id(rule)}))
                            .collect(),
                    ),
                    Why::Unexplained => ("unexplained", vec![]),
                };
                json!({"effect": id(*f), "text": effect_name(u, *f), "succeeded": ok,
                       "reason": reason, "by": by})
            })
            .collect();
        let created: Vec<Value> = self
            .created
            .iter()
            .map(|c| {
                json!({"effect": id(c.created), "passive": id(c.passive),
                       "trigger": id(c.trigger),
                       "chain": c.chain.iter().map(|&g| id(g)).collect::<Vec<_>>()})
            })
            .collect();
        let redirects: Vec<Value> = self
            .redirects
            .iter()
            .map(|r| {
                json!({"effect": id(r.effect), "slot": r.slot,
                       "declared": u.player_name(r.declared),
                       "path": r.path.iter().map(|&(g, to)| json!({"deflection": id(g), "to": u.player_name(to)})).collect::<Vec<_>>()})
            })
            .collect();
        let deaths: Vec<Value> = self
            .deaths
            .iter()
            .map(|&(p, k)| json!({"player": u.player_name(p), "by": id(k)}))
            .collect();
        json!({"effects": effects, "created": created, "redirects": redirects, "deaths": deaths})
    }
}

/// At most this many outcomes are explained in full.
const MAX_EXPLAINED: usize = 16;

/// `why:` and the explanation of each of the first outcomes, as text and as a JSON array
/// (the `--explain` part of a report).
pub fn why_outcomes(
    u: &Universe,
    outs: &[crate::systems::ar::answer::report::Outcome],
) -> (String, Value) {
    let mut text = String::from("why:\n");
    let mut js = Vec::new();
    for (k, o) in outs.iter().enumerate().take(MAX_EXPLAINED) {
        let e = explain(u, o.cut, o.resolution, o.way);
        let _ = writeln!(text, "  outcome {} (probability {}):", k + 1, o.probability);
        text.push_str(&e.to_text(u, "    "));
        let mut v = e.to_json(u);
        v["probability"] = json!(o.probability.to_string());
        js.push(v);
    }
    if outs.len() > MAX_EXPLAINED {
        let _ = writeln!(
            text,
            "  ({} more outcomes not explained; see --json for the first {MAX_EXPLAINED})",
            outs.len() - MAX_EXPLAINED
        );
    }
    (text, Value::Array(js))
}

/// For a paradox: a minimal core and the derivation of why it has no resolution, as text
/// and as JSON; an error is a message.
pub fn why_core(u: &Universe) -> Result<(String, Value), String> {
    let c = super::core::minimal_core(u, &crate::systems::spec::Budget::new())
        .map_err(|e| e.to_string())?
        .ok_or("the engines found no resolution, but the core search did: a bug in gordian")?;
    let why = super::core::why(&c.universe);
    let ids: Vec<String> = c.effects.iter().map(|&i| u.effects[i].id.clone()).collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "why no resolution: these {} effects alone are already a paradox, and without any one of them \
         the night has a resolution{}:",
        ids.len(),
        if c.subset_minimal { " (nor does any smaller part of them make one)" } else { "" }
    );
    for &i in &c.effects {
        let _ = writeln!(text, "    {}", effect_name(u, i));
    }
    text.push_str(&why.to_text(&c.universe, "  "));
    let js = json!({"effects": ids, "subset_minimal": c.subset_minimal,
                    "derivation": why.to_text(&c.universe, "")});
    Ok((text, js))
}

/// The whole `--explain` text of a night's answer (its flat answer: for small nights),
/// or `None` when it has more than `up_to` flat entries.
pub fn why_night(n: &Night, f: &Factored, up_to: u64) -> Option<Result<String, String>> {
    if crate::systems::ar::answer::flat_entries(n, f) > up_to.into() {
        return None;
    }
    let a = crate::systems::ar::answer::expand::flatten(n, f);
    let u = &n.whole;
    let empty = Cut::with_capacity(u.n_declared);
    let outs = crate::systems::ar::answer::report::outcomes(u, &a, &empty);
    let (mut text, _) = why_outcomes(u, &outs);
    if a.resolutions.is_empty() {
        match why_core(u) {
            Ok((t, _)) => text.push_str(&t),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(text))
}
