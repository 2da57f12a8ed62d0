//! The FFT turn-flow data model: characters, action kinds, quick flags, scenarios, log
//! lines, rule variants and the menus that bound enumeration.
//!
//! Invariants of a validated [`Scenario`] (established by `parse`, relied on by the
//! simulator and the SAT encoding): every character index is `< characters.len()`; names
//! are unique and no name is another name with an `m`/`r` prefix; a character has at most
//! one reaction; at most one slow action per character, and `slow` is sorted by the
//! character-list order of the actors; every target list is sorted, duplicate-free, and
//! empty means a miss; every action index is `< actions.len()`; in a log, `Body::Wait`
//! appears only on primary lines and `Body::Critical` (with `cq` or `mcq`) only on
//! reaction lines; in the [`Menus`], every per-character override is keyed by a valid
//! character index (a mime, for mime-target overrides) and no list repeats an entry.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Index of a character in the character list ([`Scenario::characters`]).
pub type CharId = usize;
/// Index of an action kind in [`Scenario::actions`].
pub type ActionId = usize;

/// A reaction ability (at most one per character).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reaction {
    /// When hit by damage, may take a critical-quick: flag `cq` (`mcq` in a mime cycle).
    CriticalQuick,
    /// When hit by a spell, may recast it on the caster (a quick gives the caster `qs`,
    /// or `mqs` in a mime cycle).
    CounterMagic,
}

impl Reaction {
    /// The keyword used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Reaction::CriticalQuick => "critical-quick",
            Reaction::CounterMagic => "counter-magic",
        }
    }
}

/// One character of the character list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Character {
    /// Unique name, as written in logs.
    pub name: String,
    /// Index into [`Scenario::teams`].
    pub team: usize,
    /// Has the mime job: repeats its team's `last_action` in mime cycles.
    pub mime: bool,
    /// Its reaction ability, if any.
    pub reaction: Option<Reaction>,
    /// CT at the start of the next CR phase (after the C+ increment): it gets an active
    /// turn there iff `ct >= 100`.
    pub ct: u32,
}

/// What an action kind does, as far as turn flow is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActionKind {
    /// The name used in logs (`qs`, `haste`, `demi`, `attack`, ...).
    pub name: String,
    /// A spell: counter-magic can recast it on the caster.
    pub spell: bool,
    /// Does damage: critical-quick can fire.
    pub damage: bool,
    /// The quick spell: a hit gives its target a quick flag.
    pub quick: bool,
}

impl ActionKind {
    /// The built-in action kinds every scenario knows (`qs` is the quick spell; logs may
    /// also write it `mqs`).
    pub fn builtins() -> Vec<ActionKind> {
        let k = |name: &str, spell, damage, quick| ActionKind {
            name: name.to_string(),
            spell,
            damage,
            quick,
        };
        vec![
            k("qs", true, false, true),
            k("haste", true, false, false),
            k("demi", true, true, false),
            k("attack", false, true, false),
        ]
    }
}

/// A character's quick flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Flag {
    /// No quick flag.
    #[default]
    N,
    /// Quick spell (also counter-magicked quick) outside a mime cycle.
    Qs,
    /// Critical-quick outside a mime cycle.
    Cq,
    /// Quick spell (or counter-magicked quick) during a mime cycle.
    Mqs,
    /// Critical-quick during a mime cycle.
    Mcq,
}

impl Flag {
    /// All flags, `n` first.
    pub const ALL: [Flag; 5] = [Flag::N, Flag::Qs, Flag::Cq, Flag::Mqs, Flag::Mcq];

    /// The seed's name for the flag.
    pub fn name(self) -> &'static str {
        match self {
            Flag::N => "n",
            Flag::Qs => "qs",
            Flag::Cq => "cq",
            Flag::Mqs => "mqs",
            Flag::Mcq => "mcq",
        }
    }

    /// Any quick flag (not `n`).
    pub fn is_set(self) -> bool {
        self != Flag::N
    }

    /// The flag a quick hit gives (`qs`, or `mqs` in a mime cycle).
    pub fn quick(in_mime: bool) -> Flag {
        if in_mime {
            Flag::Mqs
        } else {
            Flag::Qs
        }
    }

    /// The flag a critical-quick gives (`cq`, or `mcq` in a mime cycle).
    pub fn critical(in_mime: bool) -> Flag {
        if in_mime {
            Flag::Mcq
        } else {
            Flag::Cq
        }
    }
}

/// Who wrote a log line: an action or quick turn, a mime, or a reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    /// A slow action or a quick turn: `ACTOR - ...`.
    Primary,
    /// A mime repeating `last_action`: `mNAME - ...`.
    Mime,
    /// A reaction: `rNAME - ...`.
    Reaction,
}

/// What a log line says happened.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Body {
    /// `- wait` (a quick turn passed).
    Wait,
    /// `- ACTION - TARGETS|miss` (targets sorted by list order; empty = miss).
    Act {
        /// The action kind.
        action: ActionId,
        /// Targets hit, in list order; empty is a miss.
        targets: Vec<CharId>,
    },
    /// `- cq` / `- mcq`: a critical-quick reaction.
    Critical(Flag),
}

/// One line of a log, without source position (the simulator's output unit).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Line {
    /// Primary, mime or reaction.
    pub kind: LineKind,
    /// The actor, mime or reactor.
    pub who: CharId,
    /// What happened.
    pub body: Body,
}

/// A log line as written in a scenario file, with its source line number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// 1-based line number in the scenario file.
    pub line_no: usize,
    /// The text as written (trimmed of the comment).
    pub text: String,
    /// The parsed line.
    pub line: Line,
}

/// What a quick turn does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QuickChoice {
    /// The character waits: `last_action` is unchanged.
    Wait,
    /// The character acts: `last_action` := this action, its targets react.
    Act {
        /// The action kind.
        action: ActionId,
        /// Targets, sorted; empty is a miss.
        targets: Vec<CharId>,
    },
}

/// A slow action resolving in the SR phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlowAction {
    /// The caster.
    pub actor: CharId,
    /// The action kind.
    pub action: ActionId,
    /// Targets, sorted; empty is a miss.
    pub targets: Vec<CharId>,
}

/// The expected next CR order, possibly only a prefix (written with a trailing `...`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectedOrder {
    /// The characters, in order.
    pub order: Vec<CharId>,
    /// Only a prefix of the order is given.
    pub prefix: bool,
    /// Source line of the expectation.
    pub line_no: usize,
}

impl ExpectedOrder {
    /// Whether `actual` is this order (or starts with it, for a prefix).
    pub fn matches(&self, actual: &[CharId]) -> bool {
        if self.prefix {
            actual.starts_with(&self.order)
        } else {
            actual == self.order.as_slice()
        }
    }
}

/// The choices enumeration may make (replay takes its choices from the log instead).
///
/// The global lists apply to every mime and every quick turn; a per-character override
/// replaces the global list for that character only ([`Menus::mime_menu`],
/// [`Menus::quick_menu`]). `Menus::default()` lets mimes only miss and quick turns only
/// wait, with no overrides; the scenario format's default (no `mime-targets` line) is
/// every single character.
///
/// Invariants (established by `parse`, relied on by the engines): every target set is
/// sorted, non-empty and duplicate-free, and each list (global or override) holds no entry
/// twice; quick entries' targets are sorted and duplicate-free; every override key is a
/// valid character index, and a key of `mime_targets_for` is a mime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Menus {
    /// Target sets a mime may hit (each sorted, non-empty); a miss is always possible.
    pub mime_targets: Vec<Vec<CharId>>,
    /// Per mime, its own target sets, replacing `mime_targets` for that mime (an empty
    /// list: the mime always misses).
    pub mime_targets_for: BTreeMap<CharId, Vec<Vec<CharId>>>,
    /// What a quick turn may do besides waiting (waiting is always possible).
    pub quick: Vec<QuickChoice>,
    /// Per character, its own quick-turn actions, replacing `quick` for that character
    /// (an empty list: it can only wait).
    pub quick_for: BTreeMap<CharId, Vec<QuickChoice>>,
    /// Most quick turns in one phase; runs needing more are reported as exceeding it.
    pub bound: usize,
}

/// Default bound on quick turns per phase.
pub const DEFAULT_BOUND: usize = 8;

/// The largest bound a scenario (its `bound` line, or `--bound`) may ask for. Every
/// shipped scenario whose runs end needs at most 8 quick turns (seed examples 3 and 4
/// exceed 4, not 8). Cost per step: the SAT encoding unrolls `bound + 1` quick-turn units
/// per slow action wherever a quick turn is not ruled out by constant folding (it cannot
/// tell an impossible turn from a possible one without solving), each a quick turn, a
/// mime cycle and a unary counter of the turns so far, so it grows with the square of the
/// bound (seed example 4: 1,386 variables at 8, 27,874 at 64, 356,770 at 256) and its
/// enumeration, both engines compared, takes 0.9 s at bound 8, 2.4 s at 16, 7.5 s at 32
/// and 28 s at 64. Where menus let quick spells chain without end the search's outcomes
/// multiply with every further turn instead (1,413 outcomes at 8 for the shipped endless
/// chain, past the default 1 GiB memory bound at 16). 64 is eight times the largest
/// useful bound of the shipped scenarios and keeps their slowest enumeration within half
/// a minute.
pub const MAX_BOUND: usize = 64;

impl Default for Menus {
    fn default() -> Self {
        Menus {
            mime_targets: Vec::new(),
            mime_targets_for: BTreeMap::new(),
            quick: Vec::new(),
            quick_for: BTreeMap::new(),
            bound: DEFAULT_BOUND,
        }
    }
}

impl Menus {
    /// The target sets `mime` may hit (besides a miss): its override, or the global list.
    pub fn mime_menu(&self, mime: CharId) -> &[Vec<CharId>] {
        self.mime_targets_for
            .get(&mime)
            .unwrap_or(&self.mime_targets)
    }

    /// What `who` may do on a quick turn (besides waiting): its override, or the global
    /// list.
    pub fn quick_menu(&self, who: CharId) -> &[QuickChoice] {
        self.quick_for.get(&who).unwrap_or(&self.quick)
    }
}

/// A validated FFT scenario: one SR phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// Team names, in order of first declaration.
    pub teams: Vec<String>,
    /// The character list, in list order.
    pub characters: Vec<Character>,
    /// Action kinds: the builtins, then any declared in the file.
    pub actions: Vec<ActionKind>,
    /// The slow actions resolving in the phase, in character-list order of the actors.
    pub slow: Vec<SlowAction>,
    /// The observed log, if given.
    pub log: Option<Vec<LogLine>>,
    /// The expected next CR order, if given.
    pub expect_next_cr: Option<ExpectedOrder>,
    /// Enumeration menus and bound.
    pub menus: Menus,
}

impl Scenario {
    /// The index of the character called `name`.
    pub fn char_id(&self, name: &str) -> Option<CharId> {
        self.characters.iter().position(|c| c.name == name)
    }

    /// The index of the action kind called `name` (`mqs` is `qs`).
    pub fn action_id(&self, name: &str) -> Option<ActionId> {
        let name = if name == "mqs" { "qs" } else { name };
        self.actions.iter().position(|a| a.name == name)
    }

    /// Renders a target list: names joined by `,`, or `miss`.
    pub fn targets_text(&self, targets: &[CharId]) -> String {
        if targets.is_empty() {
            "miss".to_string()
        } else {
            targets
                .iter()
                .map(|&t| self.characters[t].name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        }
    }

    /// Renders a line in the seed's notation, without indentation. Quick spells are
    /// written `mqs` in a mime cycle (`in_mime`), `qs` elsewhere, as the seed does.
    pub fn line_text(&self, line: &Line, in_mime: bool) -> String {
        let prefix = match line.kind {
            LineKind::Primary => "",
            LineKind::Mime => "m",
            LineKind::Reaction => "r",
        };
        let who = &self.characters[line.who].name;
        match &line.body {
            Body::Wait => format!("{prefix}{who} - wait"),
            Body::Critical(f) => format!("{prefix}{who} - {}", f.name()),
            Body::Act { action, targets } => {
                let kind = &self.actions[*action];
                let name = if in_mime && kind.name == "qs" {
                    "mqs"
                } else {
                    kind.name.as_str()
                };
                format!("{prefix}{who} - {name} - {}", self.targets_text(targets))
            }
        }
    }
}

/// A rule variant: which theory of turn flow the simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The seed's final theory, with the quick-safety.
    Final,
    /// No quick-safety: steps 3 and 5 always run.
    Naive,
    /// The author's earlier claim: at step 3 the initial actor, if it holds a quick flag,
    /// takes the quick turn before the mime cycle (otherwise the first flagged character).
    Earlier,
}

impl Variant {
    /// Every variant, the final theory first.
    pub const ALL: [Variant; 3] = [Variant::Final, Variant::Naive, Variant::Earlier];

    /// The variant's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Final => "final",
            Variant::Naive => "naive",
            Variant::Earlier => "earlier",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == s)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
