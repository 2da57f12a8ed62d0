//! The Lancer event-system data model: units, weapons, reactions, the initiating action,
//! resolution policies, and the outcome of one run (event tree + final state).
//!
//! Invariants of a validated [`Scenario`] (established by `parse`, relied on by both
//! engines): every unit, weapon and reaction index is in range; unit names are unique and
//! no two units start on the same cell; every weapon has 1..=4 damage values; an
//! activation with more than one target uses an `area` weapon and names distinct units
//! other than the actor; a reaction's `attack` effect uses a non-area weapon; a `hit`/`miss`
//! qualifier appears only on `attack` follow-ups; hp and structure are at least 1 and the
//! starting hp is at most the maximum.
//!
//! The trigger matcher ([`Reaction::trigger`]) lives here, once: it decides what an event's
//! shape decides and returns the rest as [`Cond`]itions on the state, which each engine
//! evaluates in its own terms (the simulator on concrete values, the SAT encoder as
//! literals).

use serde::Serialize;
use std::fmt;

/// Index of a unit in [`Scenario::units`].
pub type UnitId = usize;

/// Largest coordinate of a cell (grid is `0..=MAX_COORD` in both axes).
pub const MAX_COORD: u8 = 15;
/// Largest hit points, structure, armour, damage value.
pub const MAX_STAT: u32 = 20;
/// Largest reaction nesting bound.
pub const MAX_DEPTH: usize = 6;

/// A cell of the square grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Cell {
    /// Column.
    pub x: u8,
    /// Row.
    pub y: u8,
}

impl Cell {
    /// Adjacent: distinct cells at Chebyshev distance 1 (the eight neighbours).
    pub fn adjacent(self, other: Cell) -> bool {
        self != other && self.x.abs_diff(other.x) <= 1 && self.y.abs_diff(other.y) <= 1
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// One unit (mech or NPC).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unit {
    /// Unique name.
    pub name: String,
    /// Side (free text; `foe` triggers compare sides).
    pub side: String,
    /// Hit points at the start (at most `max_hp`: a unit may start damaged).
    pub hp: u32,
    /// Maximum hit points (restored after structure damage).
    pub max_hp: u32,
    /// Structure at the start; the unit is destroyed when it reaches 0.
    pub structure: u32,
    /// Armour: subtracted from every instance of damage before resistance.
    pub armor: u32,
    /// Starting cell.
    pub at: Cell,
    /// A non-player unit: never prompted to brace (Brace is a player mech's reaction). Set
    /// by the `npc` flag or by the side `npc`.
    pub npc: bool,
    /// Resistance to all damage (halves every instance, after armour, rounding up).
    pub resistant: bool,
}

/// A weapon (or damaging system): the damage values its roll can give.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Weapon {
    /// Unique name.
    pub name: String,
    /// Damage values a hit may roll (1..=4 distinct values, sorted).
    pub damage: Vec<u32>,
    /// Area of effect: may target several units; its attacks form one breadth-first batch.
    pub area: bool,
}

/// Event kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A unit activates a weapon (the initiating action).
    Activate,
    /// One attack roll: hit or miss.
    Attack,
    /// One instance of damage.
    Damage,
    /// The brace decision (a prompt that pauses a damage event).
    Brace,
    /// Structure damage: -1 structure, HP restored (or destroyed at 0).
    Structure,
    /// The unit is destroyed.
    Destroyed,
    /// A move to a cell.
    Move,
    /// A teleport to a cell.
    Teleport,
}

impl Kind {
    /// Every kind, in file-keyword order.
    pub const ALL: [Kind; 8] = [
        Kind::Activate,
        Kind::Attack,
        Kind::Damage,
        Kind::Brace,
        Kind::Structure,
        Kind::Destroyed,
        Kind::Move,
        Kind::Teleport,
    ];
    /// The keyword.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Activate => "activate",
            Kind::Attack => "attack",
            Kind::Damage => "damage",
            Kind::Brace => "brace",
            Kind::Structure => "structure",
            Kind::Destroyed => "destroyed",
            Kind::Move => "move",
            Kind::Teleport => "teleport",
        }
    }
    /// The kind named `s`.
    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Which part the reacting unit plays in the triggering event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The reactor is the event's target (for `activate`: one of its targets).
    Target,
    /// The reactor is the event's source (attacker, dealer, mover).
    Source,
    /// The reactor is caught in an area activation (`activate` with an area weapon only).
    Area,
    /// The reactor stands adjacent to the event's target (and is not the target).
    Adjacent,
    /// Any event of the kind.
    Any,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 5] = [
        Role::Target,
        Role::Source,
        Role::Area,
        Role::Adjacent,
        Role::Any,
    ];
    /// The keyword.
    pub fn name(self) -> &'static str {
        match self {
            Role::Target => "target",
            Role::Source => "source",
            Role::Area => "area",
            Role::Adjacent => "adjacent",
            Role::Any => "any",
        }
    }
    /// The role named `s`.
    pub fn from_name(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// When a reaction resolves relative to its trigger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// Before the trigger resolves (step 1): may cancel it.
    Interrupt,
    /// After the trigger resolved (step 5).
    Followup,
}

/// Whom a reaction's attack or damage goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aim {
    /// The triggering event's source.
    Source,
    /// The triggering event's target.
    Target,
}

/// What a reaction does when it fires (an event of its own).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// The reactor attacks with a (single-target) weapon.
    Attack {
        /// Index into [`Scenario::weapons`].
        weapon: usize,
        /// Whom.
        at: Aim,
    },
    /// The reactor deals a fixed amount of damage.
    Damage {
        /// The amount (before armour and resistance).
        amount: u32,
        /// Whom.
        at: Aim,
    },
    /// The reactor moves (`teleport = false`) or teleports to a cell.
    Relocate {
        /// Destination.
        to: Cell,
        /// Teleport rather than move (only the event kind differs).
        teleport: bool,
    },
}

/// A reaction of one unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reaction {
    /// Unique name.
    pub name: String,
    /// The reacting unit.
    pub unit: UnitId,
    /// The kind of event it listens for.
    pub on: Kind,
    /// The reactor's part in that event.
    pub role: Role,
    /// Only when the attack hit (attack follow-ups only).
    pub hit: Option<bool>,
    /// Only when the event's source stands adjacent to the reactor.
    pub from_adjacent: bool,
    /// Only when the event's source is on another side than the reactor.
    pub foe: bool,
    /// Interrupt or follow-up.
    pub timing: Timing,
    /// What it does.
    pub effect: Effect,
    /// The player may decline it.
    pub optional: bool,
    /// At most once per round (per run).
    pub once: bool,
}

/// What the trigger matcher reads of an event: its shape, fixed when it is created.
#[derive(Clone, Copy, Debug)]
pub struct EventShape<'a> {
    /// Kind.
    pub kind: Kind,
    /// Source unit.
    pub source: UnitId,
    /// Target unit (for an activation: its first target).
    pub target: UnitId,
    /// Every target of an activation (empty for other kinds).
    pub targets: &'a [UnitId],
    /// An activation of an area weapon.
    pub area: bool,
}

/// A condition of a trigger on the state when the queue is built: what the event's shape
/// alone does not decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cond {
    /// The unit is not destroyed.
    Alive(UnitId),
    /// The two units stand on adjacent cells (the eight neighbours).
    Adjacent(UnitId, UnitId),
    /// The triggering attack was applied and hit (`true`) or missed.
    Hit(bool),
}

impl Reaction {
    /// The one trigger matcher both engines use. `None` when the reaction cannot match the
    /// event at this timing (kind, timing, role and `foe` are decided by the event's shape
    /// and the scenario); otherwise the conditions on the state that must all hold when the
    /// queue is built: the reactor is not destroyed, it stands next to the event's target
    /// (role `adjacent`), the event's source stands next to it (`from-adjacent`), the
    /// attack hit or missed (`hit`/`miss`). In that order.
    pub fn trigger(&self, ev: &EventShape, timing: Timing, units: &[Unit]) -> Option<Vec<Cond>> {
        if self.timing != timing || self.on != ev.kind {
            return None;
        }
        let me = self.unit;
        let role = match self.role {
            Role::Target if ev.kind == Kind::Activate => ev.targets.contains(&me),
            Role::Target => ev.target == me,
            Role::Source => ev.source == me,
            Role::Area => ev.kind == Kind::Activate && ev.area && ev.targets.contains(&me),
            Role::Adjacent => ev.target != me,
            Role::Any => true,
        };
        if !role || (self.foe && units[ev.source].side == units[me].side) {
            return None;
        }
        let mut conds = vec![Cond::Alive(me)];
        if self.role == Role::Adjacent {
            conds.push(Cond::Adjacent(ev.target, me));
        }
        if self.from_adjacent {
            conds.push(Cond::Adjacent(ev.source, me));
        }
        if let Some(h) = self.hit {
            conds.push(Cond::Hit(h));
        }
        Some(conds)
    }

    /// The kind of the event its effect creates.
    pub fn effect_kind(&self) -> Kind {
        match self.effect {
            Effect::Attack { .. } => Kind::Attack,
            Effect::Damage { .. } => Kind::Damage,
            Effect::Relocate { teleport: true, .. } => Kind::Teleport,
            Effect::Relocate {
                teleport: false, ..
            } => Kind::Move,
        }
    }
}

/// The initiating action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// `actor` activates `weapon` at `targets`.
    Activate {
        /// Who.
        actor: UnitId,
        /// Index into [`Scenario::weapons`].
        weapon: usize,
        /// Targets in file order (one unless the weapon is an area weapon).
        targets: Vec<UnitId>,
    },
    /// `actor` moves or teleports to a cell.
    Relocate {
        /// Who.
        actor: UnitId,
        /// Where.
        to: Cell,
        /// Teleport rather than move.
        teleport: bool,
    },
}

impl Action {
    /// The acting unit.
    pub fn actor(&self) -> UnitId {
        match self {
            Action::Activate { actor, .. } | Action::Relocate { actor, .. } => *actor,
        }
    }
}

/// The queue discipline of an area action's attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// The seed's: all attacks of an area action are one batch — every attack's interrupts,
    /// then each attack's check, effect and consequences, then every attack's follow-ups.
    BreadthFirst,
    /// The naive policy the seed warns against: each attack resolves completely (interrupts,
    /// damage, follow-ups) before the next one starts.
    DepthFirst,
}

/// When the brace prompt appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BraceRule {
    /// The planned rule: only when the damage would structure the unit.
    Structure,
    /// The current rule: on any instance of damage to the unit.
    Any,
}

/// A resolution policy: queue discipline and brace rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Policy {
    /// Queue discipline of area attacks.
    pub order: Order,
    /// Brace rule.
    pub brace: BraceRule,
}

impl Policy {
    /// Every policy, the seed's first.
    pub const ALL: [Policy; 4] = [
        Policy {
            order: Order::BreadthFirst,
            brace: BraceRule::Structure,
        },
        Policy {
            order: Order::BreadthFirst,
            brace: BraceRule::Any,
        },
        Policy {
            order: Order::DepthFirst,
            brace: BraceRule::Structure,
        },
        Policy {
            order: Order::DepthFirst,
            brace: BraceRule::Any,
        },
    ];
    /// The seed's policy.
    pub const SEED: Policy = Policy::ALL[0];
    /// The name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match (self.order, self.brace) {
            (Order::BreadthFirst, BraceRule::Structure) => "seed",
            (Order::BreadthFirst, BraceRule::Any) => "seed-any-brace",
            (Order::DepthFirst, BraceRule::Structure) => "naive",
            (Order::DepthFirst, BraceRule::Any) => "naive-any-brace",
        }
    }
    /// The policy named `s`.
    pub fn from_name(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// Units in file order.
    pub units: Vec<Unit>,
    /// Weapons in file order.
    pub weapons: Vec<Weapon>,
    /// Reactions in file order (also the order in which matching reactions are queued).
    pub reactions: Vec<Reaction>,
    /// The initiating action.
    pub action: Action,
    /// The resolution policy.
    pub policy: Policy,
    /// Reaction nesting bound: a reaction to an event at depth `depth` is not queued (and
    /// the run is marked truncated).
    pub depth: usize,
}

/// What caused an event: the initiating action, a reaction, or a unit's brace prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The initiating action (and its consequences).
    Action,
    /// A reaction (index into [`Scenario::reactions`]) and its consequences.
    Reaction(usize),
    /// The brace prompt of a unit and its consequences.
    Brace(UnitId),
}

/// How an event ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// It passed its validity check and was applied.
    Done,
    /// It failed its validity check (step 2) and did nothing.
    Aborted,
}

/// The result of an applied event, where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Detail {
    /// Nothing to report (or the event was aborted).
    None,
    /// An attack hit (`true`) or missed.
    Hit(bool),
    /// Damage that got through (after armour and resistance).
    Dealt(u32),
    /// The unit braced (`true`) or declined.
    Braced(bool),
    /// Moved or teleported to this cell.
    To(Cell),
    /// Why the event aborted (its validity check failed).
    Aborted(AbortReason),
}

/// Why an event failed its validity check (step 2). When several reasons hold, the first
/// in this order is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AbortReason {
    /// The source (actor, attacker, dealer, mover) is destroyed.
    SourceDestroyed,
    /// The target (for structure, destroyed and brace: the unit itself) is destroyed.
    TargetDestroyed,
    /// The destination cell is held by another undestroyed unit.
    CellTaken,
    /// The unit already braced (a brace prompt).
    AlreadyBraced,
}

impl AbortReason {
    /// The keyword (JSON).
    pub fn name(self) -> &'static str {
        match self {
            AbortReason::SourceDestroyed => "source-destroyed",
            AbortReason::TargetDestroyed => "target-destroyed",
            AbortReason::CellTaken => "cell-taken",
            AbortReason::AlreadyBraced => "already-braced",
        }
    }
    /// In words, for an event of kind `kind`.
    pub fn words(self, kind: Kind) -> &'static str {
        match (self, kind) {
            (AbortReason::SourceDestroyed, Kind::Activate | Kind::Attack) => "attacker destroyed",
            (AbortReason::SourceDestroyed, Kind::Move | Kind::Teleport) => "mover destroyed",
            (AbortReason::SourceDestroyed, _) => "source destroyed",
            (AbortReason::TargetDestroyed, Kind::Structure | Kind::Destroyed | Kind::Brace) => {
                "unit destroyed"
            }
            (AbortReason::TargetDestroyed, _) => "target destroyed",
            (AbortReason::CellTaken, _) => "cell taken",
            (AbortReason::AlreadyBraced, _) => "already braced",
        }
    }
}

/// One event of a run, in resolution order (the order of validity checks).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Event {
    /// Kind.
    pub kind: Kind,
    /// Source unit (attacker, dealer, mover; the unit itself for structure/destroyed/brace).
    pub source: UnitId,
    /// Target unit (the mover for moves; the first target for an activation, whose
    /// targets are the action's).
    pub target: UnitId,
    /// What caused it.
    pub origin: Origin,
    /// Index (in the run's event list) of the event that produced or triggered it.
    pub parent: Option<usize>,
    /// Applied or aborted.
    pub status: Status,
    /// The result.
    pub detail: Detail,
}

/// A unit at the end of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct UnitState {
    /// Hit points.
    pub hp: u32,
    /// Structure.
    pub structure: u32,
    /// Cell.
    pub at: Cell,
    /// Destroyed.
    pub destroyed: bool,
    /// Braced this round (loses most of its next turn; takes no more reactions).
    pub braced: bool,
}

/// One distinct way the round can play out.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Outcome {
    /// The event tree, flattened in resolution order with parent links.
    pub events: Vec<Event>,
    /// Every unit at the end, in unit order.
    pub units: Vec<UnitState>,
    /// A reaction matched beyond the depth bound and was not queued.
    pub truncated: bool,
}

/// Whether an event's application changes the state (counts for "applied an effect").
pub fn changes_state(e: &Event) -> bool {
    e.status == Status::Done
        && match (e.kind, e.detail) {
            (Kind::Damage, Detail::Dealt(d)) => d > 0,
            (Kind::Brace, Detail::Braced(b)) => b,
            (Kind::Structure | Kind::Destroyed | Kind::Move | Kind::Teleport, _) => true,
            _ => false,
        }
}

/// Damage that gets through: armour first, then resistance halves (rounding up).
pub fn reduce(amount: u32, armor: u32, resist: bool) -> u32 {
    let after = amount.saturating_sub(armor);
    if resist {
        after.div_ceil(2)
    } else {
        after
    }
}

impl Scenario {
    /// The unit named `name`.
    pub fn unit(&self, name: &str) -> Option<UnitId> {
        self.units.iter().position(|u| u.name == name)
    }
}

#[cfg(test)]
mod tests {
    //! The trigger matcher on hand-worked events: what the event's shape decides, and the
    //! conditions left for the engines, in the documented order.
    use super::*;

    fn unit(name: &str, side: &str, x: u8, y: u8) -> Unit {
        Unit {
            name: name.into(),
            side: side.into(),
            hp: 5,
            max_hp: 5,
            structure: 1,
            armor: 0,
            at: Cell { x, y },
            npc: true,
            resistant: false,
        }
    }

    /// A (side x) at 0,0; B (side y) at 1,0; C (side y) at 5,5.
    fn units() -> Vec<Unit> {
        vec![
            unit("A", "x", 0, 0),
            unit("B", "y", 1, 0),
            unit("C", "y", 5, 5),
        ]
    }

    fn reaction(unit: UnitId, on: Kind, role: Role, timing: Timing) -> Reaction {
        Reaction {
            name: "R".into(),
            unit,
            on,
            role,
            hit: None,
            from_adjacent: false,
            foe: false,
            timing,
            effect: Effect::Damage {
                amount: 1,
                at: Aim::Source,
            },
            optional: false,
            once: false,
        }
    }

    fn ev(kind: Kind, source: UnitId, target: UnitId) -> EventShape<'static> {
        EventShape {
            kind,
            source,
            target,
            targets: &[],
            area: false,
        }
    }

    const A: UnitId = 0;
    const B: UnitId = 1;
    const C: UnitId = 2;

    #[test]
    fn kind_and_timing_must_both_match() {
        let u = units();
        let r = reaction(B, Kind::Attack, Role::Target, Timing::Followup);
        assert_eq!(
            r.trigger(&ev(Kind::Attack, A, B), Timing::Followup, &u),
            Some(vec![Cond::Alive(B)])
        );
        assert_eq!(
            r.trigger(&ev(Kind::Attack, A, B), Timing::Interrupt, &u),
            None
        );
        assert_eq!(
            r.trigger(&ev(Kind::Damage, A, B), Timing::Followup, &u),
            None
        );
    }

    #[test]
    fn roles() {
        let u = units();
        let t = Timing::Interrupt;
        // target: B is the target of A's attack, C is not
        let r = reaction(B, Kind::Attack, Role::Target, t);
        assert!(r.trigger(&ev(Kind::Attack, A, B), t, &u).is_some());
        assert!(r.trigger(&ev(Kind::Attack, A, C), t, &u).is_none());
        // source: B deals the damage
        let r = reaction(B, Kind::Damage, Role::Source, t);
        assert!(r.trigger(&ev(Kind::Damage, B, A), t, &u).is_some());
        assert!(r.trigger(&ev(Kind::Damage, A, B), t, &u).is_none());
        // any: every event of the kind
        let r = reaction(C, Kind::Move, Role::Any, t);
        assert_eq!(
            r.trigger(&ev(Kind::Move, A, A), t, &u),
            Some(vec![Cond::Alive(C)])
        );
        // adjacent: C next to the target B (a condition on the state, cells move); not
        // when C itself is the target
        let r = reaction(C, Kind::Attack, Role::Adjacent, t);
        assert_eq!(
            r.trigger(&ev(Kind::Attack, A, B), t, &u),
            Some(vec![Cond::Alive(C), Cond::Adjacent(B, C)])
        );
        assert_eq!(r.trigger(&ev(Kind::Attack, A, C), t, &u), None);
    }

    #[test]
    fn activation_roles_read_every_target() {
        let u = units();
        let t = Timing::Interrupt;
        let targets = [B, C];
        let area = EventShape {
            kind: Kind::Activate,
            source: A,
            target: B,
            targets: &targets,
            area: true,
        };
        // C is the second target: `target` and `area` both match it
        for role in [Role::Target, Role::Area] {
            let r = reaction(C, Kind::Activate, role, t);
            assert_eq!(
                r.trigger(&area, t, &u),
                Some(vec![Cond::Alive(C)]),
                "{role:?}"
            );
        }
        // not an area weapon: `area` never matches, `target` still does
        let single = EventShape {
            area: false,
            ..area
        };
        assert_eq!(
            reaction(C, Kind::Activate, Role::Area, t).trigger(&single, t, &u),
            None
        );
        assert!(reaction(C, Kind::Activate, Role::Target, t)
            .trigger(&single, t, &u)
            .is_some());
        // the actor is not a target
        assert_eq!(
            reaction(A, Kind::Activate, Role::Target, t).trigger(&area, t, &u),
            None
        );
    }

    #[test]
    fn qualifiers_foe_from_adjacent_and_hit() {
        let u = units();
        // foe: A (side x) attacks B (side y): a foe; C (side y) attacking B is not
        let mut r = reaction(B, Kind::Attack, Role::Target, Timing::Followup);
        r.foe = true;
        assert!(r
            .trigger(&ev(Kind::Attack, A, B), Timing::Followup, &u)
            .is_some());
        assert_eq!(
            r.trigger(&ev(Kind::Attack, C, B), Timing::Followup, &u),
            None
        );
        // from-adjacent then hit, after the reactor alive, in that order
        r.from_adjacent = true;
        r.hit = Some(false);
        assert_eq!(
            r.trigger(&ev(Kind::Attack, A, B), Timing::Followup, &u),
            Some(vec![Cond::Alive(B), Cond::Adjacent(A, B), Cond::Hit(false)])
        );
        // role adjacent and from-adjacent together: both conditions, target's first
        let mut r = reaction(C, Kind::Attack, Role::Adjacent, Timing::Followup);
        r.from_adjacent = true;
        r.hit = Some(true);
        assert_eq!(
            r.trigger(&ev(Kind::Attack, A, B), Timing::Followup, &u),
            Some(vec![
                Cond::Alive(C),
                Cond::Adjacent(B, C),
                Cond::Adjacent(A, C),
                Cond::Hit(true)
            ])
        );
    }

    #[test]
    fn effect_kinds() {
        let mut r = reaction(A, Kind::Attack, Role::Any, Timing::Followup);
        assert_eq!(r.effect_kind(), Kind::Damage);
        r.effect = Effect::Attack {
            weapon: 0,
            at: Aim::Target,
        };
        assert_eq!(r.effect_kind(), Kind::Attack);
        r.effect = Effect::Relocate {
            to: Cell { x: 1, y: 1 },
            teleport: true,
        };
        assert_eq!(r.effect_kind(), Kind::Teleport);
        r.effect = Effect::Relocate {
            to: Cell { x: 1, y: 1 },
            teleport: false,
        };
        assert_eq!(r.effect_kind(), Kind::Move);
    }
}
