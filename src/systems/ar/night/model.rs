//! The ?AR data model: players, effect kinds, effects and ensembles.
//!
//! Invariants of a validated [`Ensemble`] (established by `parse::validate`, relied on by
//! every engine): ids are unique; every target and actor is an index into `players`;
//! actions have the arity of their kind ([`ActionKind::arity`]: `kill`, `guard`, `hide` and `babysit` one
//! target, `swap` and `redirect` two, `deflect` one or two, `commute` none, the others at
//! least one); passives have no targets; a player has at most one one-target `deflect`;
//! an effect's [`Mods`] are those its kind allows ([`Mods::allowed_for`]).
//!
//! [`Attack`] is the one table of how an effect makes actions fail (which victims it
//! looks for, where, of which kinds, and what cancels it): the engines and the component
//! split read it, so a new primitive is a row there, never a branch in an engine. The
//! judge (`judge/semantics.rs`) states the same rules on its own, word for word from
//! `docs/ar.md`, so that the engines are checked by rules they do not share.

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
    /// A block and a protect at once (the Jailkeeper): the submitted actions of its
    /// targets fail, and so do the kills sharing a target with it.
    Jail,
    /// No targets: every action of another player aimed at the actor fails (the
    /// Commuter is not at home).
    Commute,
    /// Two targets X Y (the Bus Driver): actions aimed at X land on Y and actions aimed
    /// at Y land on X.
    Swap,
    /// Two targets X Y (the Redirector, Puppeteer, Witch): X's actions land on Y.
    Redirect,
    /// One target X (the Bodyguard): kills aimed at X land on the actor instead.
    Guard,
    /// One target T (the Hider): kills aimed at the actor fail, and the actor dies when
    /// T is killed.
    Hide,
    /// One target T (the Babysitter): kills sharing a target with it fail (a protect),
    /// and T dies when the actor is killed.
    Babysit,
}

impl ActionKind {
    /// All action kinds, in declaration order.
    pub const ALL: [ActionKind; 13] = [
        ActionKind::Visit,
        ActionKind::Block,
        ActionKind::Stop,
        ActionKind::Protect,
        ActionKind::Kill,
        ActionKind::Deflect,
        ActionKind::Jail,
        ActionKind::Commute,
        ActionKind::Swap,
        ActionKind::Redirect,
        ActionKind::Guard,
        ActionKind::Hide,
        ActionKind::Babysit,
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
            ActionKind::Jail => "jail",
            ActionKind::Commute => "commute",
            ActionKind::Swap => "swap",
            ActionKind::Redirect => "redirect",
            ActionKind::Guard => "guard",
            ActionKind::Hide => "hide",
            ActionKind::Babysit => "babysit",
        }
    }

    /// Parses a keyword used in night files.
    pub fn from_name(s: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Default priority (after the Modbot / NAR order): the redirections (deflect, swap,
    /// redirect) and commute 1, block and jail 2, stop 3, protect, guard, hide and
    /// babysit 4, kill 5, visit 6.
    pub fn default_priority(self) -> u32 {
        match self {
            ActionKind::Deflect | ActionKind::Commute | ActionKind::Swap | ActionKind::Redirect => {
                1
            }
            ActionKind::Block | ActionKind::Jail => 2,
            ActionKind::Stop => 3,
            ActionKind::Protect | ActionKind::Guard | ActionKind::Hide | ActionKind::Babysit => 4,
            ActionKind::Kill => 5,
            ActionKind::Visit => 6,
        }
    }

    /// Exactly one target (`kill`, `guard`), two (`swap`, `redirect`), none (`commute`),
    /// or `None`: see [`ActionKind::arity`] (`deflect` takes one or two, the others at
    /// least one).
    pub fn exact_arity(self) -> Option<usize> {
        match self {
            ActionKind::Kill | ActionKind::Guard | ActionKind::Hide | ActionKind::Babysit => {
                Some(1)
            }
            ActionKind::Swap | ActionKind::Redirect => Some(2),
            ActionKind::Commute => Some(0),
            _ => None,
        }
    }

    /// The least and the most targets (`usize::MAX`: no bound).
    pub fn arity(self) -> (usize, usize) {
        match (self, self.exact_arity()) {
            (_, Some(k)) => (k, k),
            (ActionKind::Deflect, None) => (1, 2),
            _ => (1, usize::MAX),
        }
    }

    /// Whether a reflexive passive may create an effect of this kind (one target, aimed
    /// back at the visitor): not a redirection (`deflect`, `swap`, `redirect`, `guard`:
    /// created effects never redirect), nor `commute`, `hide` or `babysit` (a choice of
    /// where to spend the night).
    pub fn reflexive_allowed(self) -> bool {
        !self.redirects()
            && !matches!(
                self,
                ActionKind::Commute | ActionKind::Hide | ActionKind::Babysit
            )
    }

    /// Whether actions of this kind link deaths (`hide`, `babysit`).
    pub fn links_deaths(self) -> bool {
        matches!(self, ActionKind::Hide | ActionKind::Babysit)
    }

    /// Whether actions of this kind move other actions' targets (`deflect`, `swap`,
    /// `redirect`, `guard`).
    pub fn redirects(self) -> bool {
        matches!(
            self,
            ActionKind::Deflect | ActionKind::Swap | ActionKind::Redirect | ActionKind::Guard
        )
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// One end of a [`Redirection::Move`]: a player named by the redirection's own actor, or
/// by one of its target slots (read at its *current* value when the redirection is
/// processed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The redirection's actor (fixed).
    Actor,
    /// The current value of this target slot.
    Slot(usize),
}

/// What processing one active redirection does to the slots of the *other* actions (of
/// the kinds it moves, [`Redirection::moves`]): the one description of `deflect`, `swap`,
/// `redirect` and `guard` the engines read (the judge states it on its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redirection {
    /// Every slot at `from` moves to `to` (`deflect T`: from the actor to slot 0;
    /// `deflect X to Y`: slot 0 to slot 1; `guard X`: slot 0 to the actor).
    Move {
        /// Where the slots it moves are.
        from: End,
        /// Where they go.
        to: End,
    },
    /// Slots at slot 0's player move to slot 1's and those at slot 1's to slot 0's, at
    /// once (`swap X Y`).
    Swap,
    /// Every slot of every action whose actor is slot 0's player moves to slot 1's
    /// (`redirect X to Y`).
    Steer,
}

impl Redirection {
    /// The redirection of an action of kind `kind` with `arity` targets, if it redirects.
    pub fn of(kind: ActionKind, arity: usize) -> Option<Redirection> {
        Some(match (kind, arity) {
            (ActionKind::Deflect, 1) => Redirection::Move {
                from: End::Actor,
                to: End::Slot(0),
            },
            (ActionKind::Deflect, _) => Redirection::Move {
                from: End::Slot(0),
                to: End::Slot(1),
            },
            (ActionKind::Guard, _) => Redirection::Move {
                from: End::Slot(0),
                to: End::Actor,
            },
            (ActionKind::Swap, _) => Redirection::Swap,
            (ActionKind::Redirect, _) => Redirection::Steer,
            _ => return None,
        })
    }

    /// Whether a redirection of kind `kind` with modifiers `mods` moves the slots of an
    /// action of kind `victim` with modifiers `vmods`: the kinds of its filter (default
    /// every kind; `guard`: `kill`), and a `guard` never moves a piercing kill (a
    /// Strongman's kill is not stopped by a Bodyguard).
    pub fn moves(kind: ActionKind, mods: Mods, victim: ActionKind, vmods: Mods) -> bool {
        let default = if kind == ActionKind::Guard {
            KindSet::of(ActionKind::Kill)
        } else {
            KindSet::ALL
        };
        mods.only.unwrap_or(default).contains(victim)
            && !(kind == ActionKind::Guard && vmods.pierce)
    }

    /// Whether this is the plain deflection of the ?AR essay (`deflect T` without a
    /// filter), which the engines' deflection graph handles; every other redirection is
    /// solved by processing orders.
    pub fn is_plain_deflection(kind: ActionKind, arity: usize, mods: Mods) -> bool {
        kind == ActionKind::Deflect && arity == 1 && mods.only.is_none()
    }
}

/// A set of action kinds: the kinds a filter lets through (`block[kill]`,
/// `immune[visit,block]`, `reflexive:kill[kill]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KindSet(u16);

impl KindSet {
    /// Every action kind.
    pub const ALL: KindSet = KindSet((1 << ActionKind::ALL.len()) - 1);

    /// The empty set.
    pub const NONE: KindSet = KindSet(0);

    /// The set of one kind.
    pub fn of(k: ActionKind) -> KindSet {
        KindSet(k.bit())
    }

    /// The set of these kinds.
    pub fn from_kinds(ks: impl IntoIterator<Item = ActionKind>) -> KindSet {
        KindSet(ks.into_iter().fold(0, |b, k| b | k.bit()))
    }

    /// Whether `k` is in the set.
    pub fn contains(self, k: ActionKind) -> bool {
        self.0 & k.bit() != 0
    }

    /// The kinds in both sets.
    pub fn and(self, o: KindSet) -> KindSet {
        KindSet(self.0 & o.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds, in [`ActionKind::ALL`] order.
    pub fn kinds(self) -> impl Iterator<Item = ActionKind> {
        ActionKind::ALL
            .into_iter()
            .filter(move |&k| self.contains(k))
    }

    /// Written as in night files, between brackets without them: `kill`, `visit,block`.
    pub fn words(self) -> String {
        self.kinds()
            .map(ActionKind::name)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Reads `kill` or `visit,block` (the text between the brackets); `Err` names the
    /// first word that is not an action kind.
    pub fn parse(s: &str) -> Result<KindSet, String> {
        let mut set = KindSet::NONE;
        for w in s.split(',') {
            let k = ActionKind::from_name(w.trim()).ok_or_else(|| w.trim().to_string())?;
            set = KindSet(set.0 | k.bit());
        }
        Ok(set)
    }
}

/// What an information action tells its actor (it acts as a `visit` in every rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Info {
    /// Tracker: where the target's actions finally landed.
    Track,
    /// Watcher: who visited the target.
    Watch,
    /// Follower: the kinds of the target's own actions.
    Follow,
    /// Voyeur: the kinds of the actions that visited the target.
    Voyeur,
    /// Cop: the target's alignment (from the night's `alignment:` lines).
    Investigate,
}

impl Info {
    /// Every information kind.
    pub const ALL: [Info; 5] = [
        Info::Track,
        Info::Watch,
        Info::Follow,
        Info::Voyeur,
        Info::Investigate,
    ];

    /// The keyword used in night files.
    pub fn name(self) -> &'static str {
        match self {
            Info::Track => "track",
            Info::Watch => "watch",
            Info::Follow => "follow",
            Info::Voyeur => "voyeur",
            Info::Investigate => "investigate",
        }
    }

    /// Parses a keyword used in night files.
    pub fn from_name(s: &str) -> Option<Info> {
        Info::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What modifies an effect's kind. The default (no modifier) is the plain kind, so a
/// night written without modifiers reads exactly as before they existed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mods {
    /// The filter written in brackets: the kinds a `block`, `stop`, `protect` or `jail`
    /// makes fail, the kinds a redirection moves, the kinds an `immune` passive turns
    /// away (always set for it), or the kinds of visiting action that trigger a reflexive
    /// passive. `None`: the kind's default.
    pub only: Option<KindSet>,
    /// A `strongkill`: a kill that no rule makes fail but a `commute` (blocks, stops,
    /// protects, jails, `bulletproof` and `immune` do not touch it).
    pub pierce: bool,
    /// An information action (a `visit` that tells its actor something).
    pub info: Option<Info>,
}

impl Mods {
    /// Whether a kind may carry these modifiers: a filter on `block`, `stop`, `protect`,
    /// `jail`, the redirections, `immune` and reflexive passives; pierce on `kill`; information on `visit`.
    pub fn allowed_for(self, kind: Kind) -> bool {
        let filter_ok = self.only.is_none()
            || matches!(
                kind,
                Kind::Action(
                    ActionKind::Block
                        | ActionKind::Stop
                        | ActionKind::Protect
                        | ActionKind::Jail
                        | ActionKind::Deflect
                        | ActionKind::Swap
                        | ActionKind::Redirect
                        | ActionKind::Guard
                ) | Kind::Passive(PassiveKind::Immune | PassiveKind::Reflexive(..))
            );
        let immune_ok = kind != Kind::Passive(PassiveKind::Immune) || self.only.is_some();
        let pierce_ok = !self.pierce || kind == Kind::Action(ActionKind::Kill);
        let info_ok = self.info.is_none() || kind == Kind::Action(ActionKind::Visit);
        filter_ok && immune_ok && pierce_ok && info_ok && !(self.pierce && self.info.is_some())
    }
}

/// Where an attacker looks for the actions it makes fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The actions whose *actor* is among the attacker's final targets (`block`).
    Actor,
    /// The actions sharing a final target with the attacker (`stop`, `protect`).
    Shared,
    /// The actions with the attacker's owner among their final targets (`bulletproof`,
    /// `immune`, `commute`, `hide`).
    Owner,
}

/// One way an effect makes actions fail (a row of the kind table; `jail` has two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attack {
    /// Where it looks.
    pub reach: Reach,
    /// The kinds of action it makes fail.
    pub victims: KindSet,
    /// Only *submitted* actions (declared, not created), and a succeeding `unblockable`
    /// passive of the victim's actor cancels it: the block rule.
    pub block: bool,
    /// A piercing kill (`strongkill`) is not hit (every row but `commute`'s).
    pub pierceable: bool,
    /// The owner's own actions are not hit.
    pub others_only: bool,
    /// The victim is stopped at its source: it never reaches its targets, so it visits
    /// nobody (the block rows and the commute; every other row makes an action fail at
    /// its target, where it still visits).
    pub at_source: bool,
}

impl Attack {
    /// Whether this attack, by an effect other than `victim`, hits an action of kind
    /// `kind` with modifiers `mods`, submitted or not, by the attacker's actor or not
    /// (where it looks aside: the caller checks [`Attack::reach`]).
    pub fn hits(&self, kind: ActionKind, mods: Mods, submitted: bool, same_actor: bool) -> bool {
        self.victims.contains(kind)
            && (!self.block || submitted)
            && !(self.pierceable && mods.pierce)
            && !(self.others_only && same_actor)
    }

    /// The attacks of an effect of kind `kind` with modifiers `mods`, at most two.
    pub fn of(kind: Kind, mods: Mods) -> impl Iterator<Item = Attack> {
        let all_but_stop = KindSet::from_kinds(
            ActionKind::ALL
                .into_iter()
                .filter(|&k| k != ActionKind::Stop),
        );
        let kills = KindSet::of(ActionKind::Kill);
        // A commute is not blocked unless a filter names it (the commuter left first).
        let blockable = KindSet::from_kinds(
            ActionKind::ALL
                .into_iter()
                .filter(|&k| k != ActionKind::Commute),
        );
        let only = |default: KindSet| mods.only.unwrap_or(default);
        let block = |victims| Attack {
            reach: Reach::Actor,
            victims,
            block: true,
            pierceable: true,
            others_only: false,
            at_source: true,
        };
        let protect = |victims| Attack {
            reach: Reach::Shared,
            victims,
            block: false,
            pierceable: true,
            others_only: false,
            at_source: false,
        };
        let owner = |victims, pierceable, others_only| Attack {
            reach: Reach::Owner,
            victims,
            block: false,
            pierceable,
            others_only,
            at_source: false,
        };
        let (a, b) = match kind {
            Kind::Action(ActionKind::Block) => (Some(block(only(blockable))), None),
            Kind::Action(ActionKind::Stop) => (
                Some(Attack {
                    reach: Reach::Shared,
                    victims: only(all_but_stop).and(all_but_stop),
                    block: false,
                    pierceable: true,
                    others_only: false,
                    at_source: false,
                }),
                None,
            ),
            Kind::Action(ActionKind::Protect) => (Some(protect(only(kills))), None),
            Kind::Action(ActionKind::Jail) => (
                Some(block(only(blockable))),
                Some(protect(only(KindSet::ALL).and(kills))),
            ),
            // A commute turns its visitors away at their source (they never arrive).
            Kind::Action(ActionKind::Commute) => (
                Some(Attack {
                    at_source: true,
                    ..owner(KindSet::ALL, false, true)
                }),
                None,
            ),
            Kind::Action(ActionKind::Hide) => (Some(owner(kills, true, true)), None),
            Kind::Action(ActionKind::Babysit) => (Some(protect(kills)), None),
            Kind::Passive(PassiveKind::Bulletproof) => (Some(owner(kills, true, false)), None),
            Kind::Passive(PassiveKind::Immune) => {
                (Some(owner(only(KindSet::NONE), true, true)), None)
            }
            _ => (None, None),
        };
        a.into_iter().chain(b).filter(|x| !x.victims.is_empty())
    }
}

/// A passive ability's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PassiveKind {
    /// Kills whose final target is the owner fail.
    Bulletproof,
    /// `block` does not make the owner's actions fail.
    Unblockable,
    /// An action by another player that targets the owner creates an action of this kind
    /// from the owner back at that player: a succeeding one (`reflexive:K`, the essay's
    /// rule), or one that visits whatever its outcome (`visited:K`, the Paranoid Gun
    /// Owner).
    Reflexive(ActionKind, Trigger),
    /// Actions of the kinds in its filter (`immune[visit,block]`), by other players, with
    /// the owner among their final targets fail (the Ascetic); piercing kills excepted.
    Immune,
}

/// What makes a reflexive passive fire: a succeeding action on its owner, or an action
/// that visits its owner whatever its outcome (not stopped at its source by a block rule
/// or a commute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Trigger {
    /// `reflexive:K`: the triggering action succeeds.
    Success,
    /// `visited:K`: the triggering action visits the owner (it may fail there).
    Visit,
}

impl Trigger {
    /// The word before the colon in night files: `reflexive`, `visited`.
    pub fn word(self) -> &'static str {
        match self {
            Trigger::Success => "reflexive",
            Trigger::Visit => "visited",
        }
    }
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
            "immune" => Some(Kind::Passive(PassiveKind::Immune)),
            _ => {
                let (trigger, k) = match s.split_once(':')? {
                    ("reflexive", k) => (Trigger::Success, k),
                    ("visited", k) => (Trigger::Visit, k),
                    _ => return None,
                };
                let k = ActionKind::from_name(k)?;
                k.reflexive_allowed()
                    .then_some(Kind::Passive(PassiveKind::Reflexive(k, trigger)))
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
            Kind::Passive(PassiveKind::Immune) => f.write_str("immune"),
            Kind::Passive(PassiveKind::Reflexive(a, t)) => write!(f, "{}:{}", t.word(), a.name()),
        }
    }
}

/// An effect's kind as written in night files, modifiers included: `block`,
/// `block[kill]`, `strongkill`, `track`, `passive` kinds as `immune[visit,block]` or
/// `reflexive:kill[kill]`.
pub fn kind_word(kind: Kind, mods: Mods) -> String {
    let base = match (kind, mods.info) {
        (Kind::Action(ActionKind::Kill), _) if mods.pierce => "strongkill".to_string(),
        (Kind::Action(ActionKind::Visit), Some(info)) => info.name().to_string(),
        _ => kind.to_string(),
    };
    match mods.only {
        Some(set) => format!("{base}[{}]", set.words()),
        None => base,
    }
}

/// Reads a kind word with its modifiers (the inverse of [`kind_word`]): an action kind
/// (with `strongkill` and the information kinds) when `passive` is false, else a passive
/// kind. `Err`: why not, in words.
pub fn parse_kind_word(word: &str, passive: bool) -> Result<(Kind, Mods), String> {
    let (base, only) = match word.split_once('[') {
        Some((b, rest)) => {
            let inner = rest
                .strip_suffix(']')
                .ok_or_else(|| format!("`{word}`: a filter ends with `]`"))?;
            let set = KindSet::parse(inner).map_err(|bad| {
                format!(
                    "`{bad}` in `{word}` is not an action kind (a filter lists kinds: visit, block, stop, protect, kill, deflect, jail, commute, swap, redirect, guard, hide, babysit)"
                )
            })?;
            (b, Some(set))
        }
        None => (word, None),
    };
    let mut mods = Mods {
        only,
        ..Mods::default()
    };
    let kind = if passive {
        Kind::passive_from_name(base)
    } else if base == "strongkill" {
        mods.pierce = true;
        Some(Kind::Action(ActionKind::Kill))
    } else if let Some(info) = Info::from_name(base) {
        mods.info = Some(info);
        Some(Kind::Action(ActionKind::Visit))
    } else {
        ActionKind::from_name(base).map(Kind::Action)
    };
    let kind = kind.ok_or_else(|| format!("unknown kind `{base}`"))?;
    if kind == Kind::Passive(PassiveKind::Immune) && mods.only.is_none() {
        return Err("`immune` needs the kinds it turns away, as `immune[visit,block]`".into());
    }
    if !mods.allowed_for(kind) {
        return Err(format!(
            "`{base}` takes no filter (filters go on block, stop, protect, jail, the redirections, immune and reflexive passives)"
        ));
    }
    Ok((kind, mods))
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
    /// Its kind's modifiers (filter, pierce, information).
    pub mods: Mods,
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

    /// Its kind as written in night files, modifiers included ([`kind_word`]).
    pub fn kind_word(&self) -> String {
        kind_word(self.kind, self.mods)
    }
}

/// A validated ensemble: the players and the declared effects of one night.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ensemble {
    /// Player names; [`Player`] indexes this list.
    pub players: Vec<String>,
    /// Declared effects, in file order.
    pub effects: Vec<Effect>,
    /// Each player's alignment from the `alignment:` lines (what a Cop learns), sorted
    /// by player, at most one each.
    pub alignments: Vec<(Player, String)>,
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

    /// A player's alignment, if an `alignment:` line gives one.
    pub fn alignment(&self, p: Player) -> Option<&str> {
        self.alignments
            .binary_search_by_key(&p, |(q, _)| *q)
            .ok()
            .map(|i| self.alignments[i].1.as_str())
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
            let (kind, mods) = parse_kind_word(kind, false)
                .or_else(|_| parse_kind_word(kind, true))
                .unwrap_or_else(|e| panic!("{e}"));
            let actor = player(&mut ens, actor);
            let targets = targets.iter().map(|t| player(&mut ens, t)).collect();
            ens.effects.push(Effect {
                id: format!("e{}", i + 1),
                actor,
                kind,
                mods,
                targets,
                priority: kind.default_priority(),
                span: None,
            });
        }
        ens
    }
}
