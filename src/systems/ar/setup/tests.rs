//! Setups: the symmetry reduction counts every night (random setups, reduced against
//! unreduced), keys are nights of the setup's own orbit, and the reader's options.

use super::model::Setup;
use super::nights::{self, Canon};
use super::parse::parse_setup;
use super::tally::{tally, Tally};
use crate::systems::ar::answer::factor::{Factored, Night};
use crate::systems::ar::system::Ar;
use crate::systems::spec::{Budget, System};
use proptest::prelude::*;
use std::path::Path;

fn setup(text: &str) -> Setup {
    parse_setup(text, Path::new("t.setup")).unwrap_or_else(|e| panic!("{}\n{text}", e.rendered()))
}

/// The direct engine as the solver (the tests of `setup analyse` use both).
fn direct(n: &Night) -> Result<(Factored, bool), String> {
    let engines = Ar::engines();
    let e = engines
        .iter()
        .find(|e| e.name() == "direct")
        .expect("a direct engine");
    e.solve(n, &Budget::new())
        .map(|f| (f, false))
        .map_err(|e| e.to_string())
}

fn run(s: &Setup, symmetry: bool) -> Tally {
    let canon = Canon::new(s, symmetry);
    let keys = nights::enumerate(s, &canon, 0, 1, |_| true).expect("not stopped");
    let mut keys: Vec<_> = keys.into_iter().collect();
    keys.sort();
    tally(s, keys, &direct, &Budget::new(), &|| {})
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Two tallies count the same nights alike (sums of floats up to rounding).
fn same(a: &Tally, b: &Tally) -> Result<(), String> {
    let counts = |t: &Tally| (t.nights, t.paradox, t.quasi, t.non);
    if counts(a) != counts(b) {
        return Err(format!("counts {:?} vs {:?}", counts(a), counts(b)));
    }
    let acc =
        |x: &super::tally::Acc, y: &super::tally::Acc| x.weight == y.weight && near(x.sum, y.sum);
    if !acc(&a.deaths, &b.deaths) {
        return Err(format!("deaths {:?} vs {:?}", a.deaths, b.deaths));
    }
    for (x, y) in a.class_deaths.iter().zip(&b.class_deaths) {
        if !acc(x, y) {
            return Err(format!("class deaths {x:?} vs {y:?}"));
        }
    }
    for (m, n) in [
        (&a.role_deaths, &b.role_deaths),
        (&a.action_fails, &b.action_fails),
    ] {
        if m.len() != n.len() || m.iter().zip(n).any(|((k, x), (l, y))| k != l || !acc(x, y)) {
            return Err(format!("{m:?} vs {n:?}"));
        }
    }
    let causes = |t: &Tally| {
        t.causes
            .iter()
            .map(|(k, c)| (k.clone(), c.nights))
            .collect::<Vec<_>>()
    };
    if causes(a) != causes(b) {
        return Err(format!("causes {:?} vs {:?}", causes(a), causes(b)));
    }
    Ok(())
}

/// Role lines a random setup draws from: one-target actions with every rule, a swap, a
/// redirect, a commute, optional ones.
const LINES: &[&str] = &[
    "roleblocker: other",
    "roleblocker: other optional",
    "doctor: any",
    "jailkeeper: other",
    "vigilante: outside optional",
    "bus_driver: any",
    "redirector: other",
    "commuter: optional",
    "deflector: other optional",
    "cop: other",
];

fn random_setup() -> impl Strategy<Value = String> {
    // 3 to 5 players: each an alignment (0 mafia, 1 town) and a role line or none; some
    // a bomb; the mafia's kill when there is a mafia member.
    prop::collection::vec((0..2usize, 0..LINES.len() + 3, 0..6usize), 3..6).prop_map(|ps| {
        let names: Vec<String> = (0..ps.len()).map(|i| format!("P{i}")).collect();
        let mut t = format!("players: {}\nalignment:", names.join(" "));
        for (n, (a, _, _)) in names.iter().zip(&ps) {
            t.push_str(&format!(" {n}={}", if *a == 0 { "mafia" } else { "town" }));
        }
        t.push('\n');
        if ps.iter().any(|p| p.0 == 0) && ps.iter().any(|p| p.0 == 1) {
            t.push_str("faction mafia kill: outside optional\n");
        }
        for (n, (_, r, b)) in names.iter().zip(&ps) {
            if let Some(l) = LINES.get(*r) {
                t.push_str(&format!("{n} {l}\n"));
            }
            if *b == 0 {
                t.push_str(&format!("{n} bomb\n"));
            }
        }
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// Solving symmetric nights once counts exactly what solving every night counts.
    #[test]
    fn the_symmetry_reduction_counts_every_night(text in random_setup()) {
        let s = setup(&text);
        prop_assume!(s.night_count() <= 4000);
        let reduced = run(&s, true);
        let every = run(&s, false);
        prop_assert_eq!(every.solved as u128, s.night_count());
        prop_assert!(reduced.solved <= every.solved);
        if let Err(e) = same(&reduced, &every) {
            return Err(TestCaseError::fail(format!("{e}\n{text}")));
        }
    }

    /// A key is a night of the setup: every act one of its chooser's options.
    #[test]
    fn keys_are_nights_of_the_setup(text in random_setup()) {
        let s = setup(&text);
        prop_assume!(s.night_count() <= 4000);
        let canon = Canon::new(&s, true);
        let keys = nights::enumerate(&s, &canon, 0, 1, |_| true).expect("not stopped");
        prop_assert_eq!(keys.values().sum::<u64>() as u128, s.night_count());
        for k in keys.keys() {
            for (c, a) in s.choosers.iter().zip(k) {
                prop_assert!(c.options.contains(a), "{:?} is not an option of {}", a, c.id);
            }
        }
    }
}

/// Two interchangeable doctors protecting each other or a third player: the nights
/// that are the same up to the doctors' names meet.
#[test]
fn interchangeable_doctors_share_their_nights() {
    let s = setup(
        "players: D1 D2 V\nalignment: D1=town D2=town V=town\nD1 doctor: other\nD2 doctor: other\n",
    );
    assert_eq!(s.night_count(), 4);
    assert_eq!(s.class[0], s.class[1]);
    let keys = nights::enumerate(&s, &Canon::new(&s, true), 0, 1, |_| true).unwrap();
    // D1->D2 D2->D1 (1), D1->V D2->V (1), and D1->D2 D2->V with D1->V D2->D1 (2): 3 keys.
    let mut weights: Vec<u64> = keys.values().copied().collect();
    weights.sort();
    assert_eq!(weights, [1, 1, 2]);
}

/// Named players are kept apart; options follow the rules.
#[test]
fn options_follow_the_target_rules() {
    let s = setup(
        "players: G1 G2 A B\nalignment: G1=mafia G2=mafia A=town B=town\n\
         faction mafia kill: outside\nA bus_driver: any\nB redirector: G1, A optional\n",
    );
    // The kill: 2 members x 2 town targets; the swap: 6 pairs of 4; the redirect: the
    // ordered pairs of G1 and A (2) or none.
    let sizes: Vec<usize> = s.choosers.iter().map(|c| c.options.len()).collect();
    assert_eq!(sizes, [4, 6, 3]);
    assert_ne!(
        s.class[0], s.class[1],
        "G1 is named, so G2 is not interchangeable with it"
    );
    assert_eq!(s.choosers[2].id, "B.redirector");
}
