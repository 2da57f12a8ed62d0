//! A role setup as data: its players, the fixed part of every night (an ensemble of the
//! passives and known actions), and the *choosers*, each with the list of what it may do
//! tonight; plus the symmetry classes of interchangeable players and each player's role
//! label, for the reports.
//!
//! Invariants: every option of every chooser, added to the fixed part, is a valid night
//! (the reader checks the kinds and arities, the targets are declared players); a
//! chooser's options are listed in a fixed order (by player index), so a night is a pure
//! function of one option index per chooser; two players of one class have the same
//! alignment, the same choice lines (in the same order) and the same own passives, and
//! no line names either of them, so exchanging them maps the setup onto itself.

use crate::systems::ar::night::model::{ActionKind, Effect, Ensemble, Kind, Mods, Player};

/// One chosen action: who performs it and on whom.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Act {
    /// The performing player.
    pub actor: Player,
    /// Its targets, in order (none for a commute).
    pub targets: Vec<Player>,
}

/// Who may pick the performer of a chooser's action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Performer {
    /// The player of a role's line.
    Player(Player),
    /// Any member of a faction (a shared action, such as the mafia's one kill).
    Faction(String),
}

/// A choice line: one action some player (or one member of a faction) may take tonight.
#[derive(Clone, Debug)]
pub struct Chooser {
    /// The id its effect has in every night (`Doc.doctor`, `mafia.kill`).
    pub id: String,
    /// The kind or role word as written (`doctor`, `block[kill]`).
    pub word: String,
    /// The action kind and modifiers it stands for.
    pub kind: ActionKind,
    /// Its modifiers.
    pub mods: Mods,
    /// Who performs it.
    pub performer: Performer,
    /// The target rule as written after the colon (for reports and symmetry).
    pub spec: String,
    /// Every option, in a fixed order: `None` (not acting) first when optional.
    pub options: Vec<Option<Act>>,
}

/// A parsed setup.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The fixed part of every night: players, alignments, fixed passives and actions.
    pub fixed: Ensemble,
    /// The choice and faction lines, in file order.
    pub choosers: Vec<Chooser>,
    /// Each player's symmetry class (players of one class are interchangeable).
    pub class: Vec<usize>,
    /// Each player's role label (`town doctor`, `mafia roleblocker`, `town vanilla`).
    pub role: Vec<String>,
}

impl Setup {
    /// The number of players.
    pub fn n_players(&self) -> usize {
        self.fixed.players.len()
    }

    /// The number of nights the setup allows (the product of the choosers' option
    /// counts), saturating at `u128::MAX`.
    pub fn night_count(&self) -> u128 {
        self.choosers
            .iter()
            .fold(1u128, |n, c| n.saturating_mul(c.options.len() as u128))
    }

    /// The night of one act (or none) per chooser.
    pub fn night_of(&self, acts: &[Option<&Act>]) -> Ensemble {
        let mut e = self.fixed.clone();
        for (c, a) in self.choosers.iter().zip(acts) {
            if let Some(a) = a {
                e.effects.push(Effect {
                    id: c.id.clone(),
                    actor: a.actor,
                    kind: Kind::Action(c.kind),
                    mods: c.mods,
                    targets: a.targets.clone(),
                    priority: Kind::Action(c.kind).default_priority(),
                    span: None,
                });
            }
        }
        e
    }

    /// The players of each class, by class id.
    pub fn classes(&self) -> Vec<Vec<Player>> {
        let n = self.class.iter().max().map_or(0, |m| m + 1);
        let mut out = vec![Vec::new(); n];
        for (p, &c) in self.class.iter().enumerate() {
            out[c].push(p as Player);
        }
        out
    }

    /// The label a chooser's action is counted under in the reports: `town doctor`,
    /// `mafia kill (faction)`.
    pub fn action_label(&self, c: &Chooser) -> String {
        match &c.performer {
            Performer::Player(p) => {
                let align = self.fixed.alignment(*p).unwrap_or("unaligned");
                format!("{align} {}", c.word)
            }
            Performer::Faction(f) => format!("{f} {} (faction)", c.word),
        }
    }
}
