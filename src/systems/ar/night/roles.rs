//! The role table: the community's role names as aliases of the primitives every engine
//! knows (`G jailkeeper X` is `G jail X`, `B bomb` is `B passive reflexive:kill[kill]`,
//! `P paranoid_gun_owner` is `P passive visited:kill`).
//!
//! Invariant: a role is data, a row here, never a branch in an engine; the parser
//! expands a role name to its primitive while reading, so nothing downstream sees a role
//! name, and a night written with roles equals the same night written with primitives.
//! Default priorities come from the primitive (the Natural Action Resolution order:
//! passives, then commuting and deflecting, blocking, stopping, protecting, killing,
//! visiting and investigating).

/// One role: its name, the primitive it is written as, and whether that is a passive
/// (written `ACTOR ROLE`, no targets) or an action (`ACTOR ROLE TARGET...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// The role's name as written in night files (lower case).
    pub name: &'static str,
    /// The primitive kind word it stands for.
    pub primitive: &'static str,
    /// Whether the primitive is a passive.
    pub passive: bool,
    /// What the role does, in a moderator's words (for the docs and `--help`).
    pub summary: &'static str,
}

const fn action(name: &'static str, primitive: &'static str, summary: &'static str) -> Role {
    Role {
        name,
        primitive,
        passive: false,
        summary,
    }
}

const fn passive(name: &'static str, primitive: &'static str, summary: &'static str) -> Role {
    Role {
        name,
        primitive,
        passive: true,
        summary,
    }
}

/// Every role name gordian reads, in the order the docs list them.
pub const ROLES: &[Role] = &[
    action(
        "roleblocker",
        "block",
        "the target's submitted actions fail",
    ),
    action(
        "killblocker",
        "block[kill]",
        "the target's kills fail (its other actions go on)",
    ),
    action(
        "jailkeeper",
        "jail",
        "blocks the target and protects it from kills",
    ),
    action("doctor", "protect", "kills on the target fail"),
    action(
        "rolestopper",
        "stop",
        "every other action on the target fails, except stops",
    ),
    action("vigilante", "kill", "the target dies"),
    action(
        "strongman",
        "strongkill",
        "the target dies; only a commute stops it",
    ),
    action(
        "commuter",
        "commute",
        "every action of another player on the commuter fails",
    ),
    action(
        "deflector",
        "deflect",
        "with one target T, actions aimed at the deflector go to T; with two, `X to Y`, actions aimed at X go to Y",
    ),
    action(
        "bus_driver",
        "swap",
        "two targets X Y: actions aimed at X land on Y, and those aimed at Y on X",
    ),
    action(
        "redirector",
        "redirect",
        "two targets, `X to Y`: X's actions land on Y",
    ),
    action(
        "puppeteer",
        "redirect",
        "the same as redirector",
    ),
    action(
        "bodyguard",
        "guard",
        "kills aimed at the target land on the bodyguard instead (not a strongkill)",
    ),
    action(
        "hider",
        "hide",
        "kills on the hider fail, but the hider dies if the target is killed",
    ),
    action(
        "babysitter",
        "babysit",
        "kills on the target fail, but the target dies if the babysitter is killed",
    ),
    action(
        "tracker",
        "track",
        "learns where the target's actions landed",
    ),
    action("watcher", "watch", "learns who visited the target"),
    action(
        "follower",
        "follow",
        "learns the kinds of the target's actions",
    ),
    action("cop", "investigate", "learns the target's alignment"),
    passive(
        "ascetic",
        "immune[visit,block,stop,protect,deflect,jail,swap,redirect,guard,hide,babysit]",
        "every action on the ascetic fails, except kills",
    ),
    passive(
        "bomb",
        "reflexive:kill[kill]",
        "whoever kills the bomb dies too",
    ),
    passive(
        "paranoid_gun_owner",
        "visited:kill",
        "shoots whoever visits it, even a visitor whose action fails there",
    ),
];

/// The role of a name, if it is one.
pub fn role(name: &str) -> Option<&'static Role> {
    ROLES.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::ar::night::model::parse_kind_word;

    /// Every row's primitive is a valid kind word of the right sort, and names are unique
    /// and not primitive keywords themselves (so a role never shadows a kind).
    #[test]
    fn every_role_is_a_primitive() {
        for (i, r) in ROLES.iter().enumerate() {
            parse_kind_word(r.primitive, r.passive).unwrap_or_else(|e| panic!("{}: {e}", r.name));
            assert!(
                parse_kind_word(r.name, false).is_err() && parse_kind_word(r.name, true).is_err(),
                "{} is also a primitive",
                r.name
            );
            assert!(ROLES[..i].iter().all(|q| q.name != r.name), "{}", r.name);
        }
    }

    /// docs/ar.md's role table is this table: one row per role, in order, with its
    /// primitive and summary.
    #[test]
    fn the_rules_page_lists_every_role() {
        let doc = include_str!("../../../../docs/ar.md");
        let mut at = 0;
        for r in ROLES {
            let written = if r.passive {
                format!("passive {}", r.primitive)
            } else {
                r.primitive.to_string()
            };
            let row = format!("| `{}` | `{written}` | {} |", r.name, r.summary);
            let found = doc[at..]
                .find(&row)
                .unwrap_or_else(|| panic!("docs/ar.md lacks, or misorders, the row {row}"));
            at += found + row.len();
        }
    }
}
