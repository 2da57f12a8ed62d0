//! The ?AR data model: players, effect kinds, effects and ensembles.
//!
//! Invariants of a validated [`Ensemble`] (established by `parse::validate`, relied on by
//! every engine): ids are unique; every target and actor is an index into `players`;
//! actions have the arity of their kind (`kill` and `deflect` exactly one target, the others
//! at least one); passives have no targets; a player has at most one `deflect`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Index of a player in [`Ensemble::players`].
pub type Player = u32;

/// A submitted night action's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    /// Visits its targets; does nothing else (can trigger reflexive passives).
    Visit,
    /// Makes the submitted actions of its targets fail.
    Block,
    /// Makes every non-stop action sharing a target with it fail.
    Stop,
    /// Makes every kill sharing a target with it fail.
    Protect,
    /// Its target dies.
    Kill,
    /// Redirects actions aimed at its actor to its target.
    Deflect,
}

impl ActionKind {
    /// All action kinds, in declaration order.
    pub const ALL: [ActionKind; 6] = [
        ActionKind::Visit,
        ActionKind::Block,
        ActionKind::Stop,
        ActionKind::Protect,
        ActionKind::Kill,
        ActionKind::Deflect,
    ];

    /// The keyword used in night files.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Visit => "visit",
            ActionKind::Block => "block",
            ActionKind::Stop => "stop",
            ActionKind::Protect => "protect",
            ActionKind::Kill => "kill",
            ActionKind::Deflect => "deflect",
        }
    }

    /// Parses a keyword used in night files.
    pub fn from_name(s: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Default priority (after the Modbot / NAR order): deflect 1, block 2, stop 3,
    /// protect 4, kill 5, visit 6.
    pub fn default_priority(self) -> u32 {
        match self {
            ActionKind::Deflect => 1,
            ActionKind::Block => 2,
            ActionKind::Stop => 3,
            ActionKind::Protect => 4,
            ActionKind::Kill => 5,
            ActionKind::Visit => 6,
        }
    }

    /// Exactly one target (`kill`, `deflect`), or at least one (the others).
    pub fn exact_arity(self) -> Option<usize> {
        match self {
            ActionKind::Kill | ActionKind::Deflect => Some(1),
            _ => None,
        }
    }

    /// Whether a reflexive passive may create an effect of this kind.
    pub fn reflexive_allowed(self) -> bool {
        self != ActionKind::Deflect
    }
}

/// A passive ability's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PassiveKind {
    /// Kills whose final target is the owner fail.
    Bulletproof,
    /// `block` does not make the owner's actions fail.
    Unblockable,
    /// A succeeding action by another player that targets the owner creates an action of
    /// this kind from the owner back at that player.
    Reflexive(ActionKind),
}

/// An effect's kind: an action or a passive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A submitted (or created) action with targets.
    Action(ActionKind),
    /// A passive ability, no targets.
    Passive(PassiveKind),
}

impl Kind {
    /// Default priority of the kind: passives 0, actions as [`ActionKind::default_priority`].
    pub fn default_priority(self) -> u32 {
        match self {
            Kind::Action(a) => a.default_priority(),
            Kind::Passive(_) => 0,
        }
    }

    /// The action kind, if this is an action.
    pub fn action(self) -> Option<ActionKind> {
        match self {
            Kind::Action(a) => Some(a),
            Kind::Passive(_) => None,
        }
    }

    /// Parses the kind as written after `passive` (`bulletproof`, `reflexive:stop`, ...).
    pub fn passive_from_name(s: &str) -> Option<Kind> {
        match s {
            "bulletproof" => Some(Kind::Passive(PassiveKind::Bulletproof)),
            "unblockable" => Some(Kind::Passive(PassiveKind::Unblockable)),
            _ => {
                let k = ActionKind::from_name(s.strip_prefix("reflexive:")?)?;
                k.reflexive_allowed()
                    .then_some(Kind::Passive(PassiveKind::Reflexive(k)))
            }
        }
    }
}

impl fmt::Display for Kind {
    /// Written as in night files: `block`, `bulletproof`, `reflexive:stop`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Action(a) => f.write_str(a.name()),
            Kind::Passive(PassiveKind::Bulletproof) => f.write_str("bulletproof"),
            Kind::Passive(PassiveKind::Unblockable) => f.write_str("unblockable"),
            Kind::Passive(PassiveKind::Reflexive(a)) => write!(f, "reflexive:{}", a.name()),
        }
    }
}

/// Where an effect was declared in its source file (1-based line and column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
}

/// One declared effect of an ensemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    /// Unique id (`e<N>` by default, N its 1-based position among the effects).
    pub id: String,
    /// The acting player.
    pub actor: Player,
    /// What it does.
    pub kind: Kind,
    /// Declared targets, in order (empty for passives).
    pub targets: Vec<Player>,
    /// Lower is more important.
    pub priority: u32,
    /// Source position, when loaded from a file.
    pub span: Option<Span>,
}

impl Effect {
    /// Whether this is a submitted action (not a passive).
    pub fn is_action(&self) -> bool {
        matches!(self.kind, Kind::Action(_))
    }
}

/// A validated ensemble: the players and the declared effects of one night.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ensemble {
    /// Player names; [`Player`] indexes this list.
    pub players: Vec<String>,
    /// Declared effects, in file order.
    pub effects: Vec<Effect>,
}

impl Ensemble {
    /// The name of a player.
    pub fn player_name(&self, p: Player) -> &str {
        &self.players[p as usize]
    }

    /// Index of a player by name.
    pub fn player_index(&self, name: &str) -> Option<Player> {
        self.players
            .iter()
            .position(|n| n == name)
            .map(|i| i as Player)
    }

    /// The distinct priority levels present, ascending.
    pub fn priority_levels(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.effects.iter().map(|e| e.priority).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Builds an ensemble from `(actor, kind, targets)` triples with default ids and
    /// priorities; players are created in order of first mention. For tests and
    /// generators; panics on an unknown kind keyword.
    pub fn from_triples(triples: &[(&str, &str, &[&str])]) -> Ensemble {
        let mut ens = Ensemble::default();
        let player = |ens: &mut Ensemble, n: &str| -> Player {
            ens.player_index(n).unwrap_or_else(|| {
                ens.players.push(n.to_string());
                (ens.players.len() - 1) as Player
            })
        };
        for (i, (actor, kind, targets)) in triples.iter().enumerate() {
            let kind = ActionKind::from_name(kind)
                .map(Kind::Action)
                .or_else(|| Kind::passive_from_name(kind))
                .unwrap_or_else(|| panic!("unknown kind {kind}"));
            let actor = player(&mut ens, actor);
            let targets = targets.iter().map(|t| player(&mut ens, t)).collect();
            ens.effects.push(Effect {
                id: format!("e{}", i + 1),
                actor,
                kind,
                targets,
                priority: kind.default_priority(),
                span: None,
            });
        }
        ens
    }
}
