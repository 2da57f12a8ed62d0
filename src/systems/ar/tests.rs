//! Cross-engine tests: the seed's examples worked by hand, and random nights on which
//! brute force, the direct engine and the SAT engine must agree, every answer re-checked by
//! the reference semantics.

use super::answer::{expand, report};
use super::engine::{Brute, Direct, Sat};
use super::judge::{brute, semantics};
use super::night::model::{ActionKind, Ensemble};
use super::night::{parse, resolution};
use super::sat::{encode, satsplit};
use super::*;
use crate::systems::ar::night::gen::{night, NightParams};
use crate::systems::spec::{Budget, Engine, Interrupted};
use proptest::prelude::*;

/// Brute force, direct and SAT on one night: all three must agree; returns the universe
/// and the (checked) analysis.
fn analyse_all(ens: &Ensemble) -> (Universe, Analysis, Analysis) {
    let u = Universe::new(ens);
    let b = brute::analyse(&u).expect("small universe");
    let d = direct::analyse(&u, &Budget::new()).expect("not interrupted");
    let s = encode::analyse(&u, &Budget::new()).expect("not interrupted");
    assert_eq!(d, s, "direct and SAT engines disagree");
    recheck(&u, &d);
    (u, b, d)
}

fn succeeded_sets(u: &Universe, rs: &[Resolution]) -> Vec<Vec<String>> {
    rs.iter().map(|r| r.succeeded_ids(u)).collect()
}

fn recheck(u: &Universe, a: &Analysis) {
    let none = Cut::with_capacity(u.n_declared);
    for r in &a.resolutions {
        for w in &r.ways {
            semantics::check(u, &none, &r.present, &r.succeeded, w).expect("acceptable");
        }
    }
    if let Some(c) = &a.cuts {
        for (f, rs) in &c.optimal {
            assert!(!rs.is_empty(), "a Gordian cut leaves a resolution");
            for r in rs {
                for w in &r.ways {
                    semantics::check(u, f, &r.present, &r.succeeded, w).expect("acceptable");
                }
            }
        }
    }
}

#[test]
fn mutual_roleblock_has_two_resolutions() {
    let (u, b, d) = analyse_all(&Ensemble::from_triples(&[
        ("R1", "block", &["R2"]),
        ("R2", "block", &["R1"]),
    ]));
    assert_eq!(b, d);
    assert_eq!(d.classification(), Classification::QuasiParadox);
    assert_eq!(
        succeeded_sets(&u, &d.resolutions),
        vec![vec!["e1"], vec!["e2"]]
    );
}

#[test]
fn rolestoppers_have_two_resolutions() {
    let (u, b, d) = analyse_all(&Ensemble::from_triples(&[
        ("R1", "block", &["S1"]),
        ("R2", "block", &["S2"]),
        ("S1", "stop", &["S2"]),
        ("S2", "stop", &["S1"]),
        ("V1", "kill", &["S1"]),
        ("V2", "kill", &["S2"]),
    ]));
    assert_eq!(b, d);
    assert_eq!(d.classification(), Classification::QuasiParadox);
    assert_eq!(
        succeeded_sets(&u, &d.resolutions),
        vec![vec!["e1", "e2", "e5", "e6"], vec!["e3", "e4"]]
    );
}

#[test]
fn reflexive_prefers_the_smaller_r() {
    let (u, b, d) = analyse_all(&Ensemble::from_triples(&[
        ("R", "block", &["V"]),
        ("V", "visit", &["rS"]),
        ("rS", "reflexive:stop", &[]),
    ]));
    assert_eq!(b, d);
    assert_eq!(d.classification(), Classification::QuasiParadox);
    assert_eq!(
        succeeded_sets(&u, &d.resolutions),
        vec![vec!["e1", "e3"], vec!["e2", "e3", "e3>V"]]
    );
    assert_eq!(d.resolutions[0].n_created(&u), 0);
    assert_eq!(d.resolutions[1].n_created(&u), 1);
}

#[test]
fn odd_block_cycle_is_a_paradox_with_three_singleton_cuts() {
    let (u, b, d) = analyse_all(&Ensemble::from_triples(&[
        ("R1", "block", &["R2"]),
        ("R2", "block", &["R3"]),
        ("R3", "block", &["R1"]),
    ]));
    assert_eq!(b, d);
    assert_eq!(d.classification(), Classification::Paradox);
    let cuts = d.cuts.as_ref().expect("paradox has cuts");
    assert_eq!(cuts.cost, vec![1]);
    let names: Vec<Vec<String>> = cuts
        .optimal
        .iter()
        .map(|(f, _)| resolution::sorted_ids(&u, f.ones()))
        .collect();
    assert_eq!(names, vec![vec!["e1"], vec!["e2"], vec!["e3"]]);
    // After cutting e3 the only resolution is S = {e1}.
    let (_, rs) = &cuts.optimal[2];
    assert_eq!(succeeded_sets(&u, rs), vec![vec!["e1"]]);
}

fn small_params(effects: usize) -> NightParams {
    NightParams {
        players: 2 + effects % 3,
        effects,
        priority_levels: 3,
        passive_rate: 0.2,
        // Repeats weight the draw towards the kinds that make cycles.
        kinds: vec![
            ActionKind::Block,
            ActionKind::Block,
            ActionKind::Block,
            ActionKind::Stop,
            ActionKind::Stop,
            ActionKind::Protect,
            ActionKind::Kill,
            ActionKind::Kill,
            ActionKind::Visit,
        ],
        ..NightParams::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn brute_equals_direct_on_random_nights(seed in any::<u64>(), effects in 1usize..13) {
        let ens = night(&small_params(effects), seed);
        let u = Universe::new(&ens);
        prop_assume!(u.len() <= 14);
        let (_, b, d) = analyse_all(&ens);
        prop_assert_eq!(b, d);
    }

    #[test]
    fn direct_equals_sat_on_larger_nights(seed in any::<u64>(), effects in 8usize..25) {
        let params = NightParams { players: 3 + effects / 4, ..small_params(effects) };
        let ens = night(&params, seed);
        let u = Universe::new(&ens);
        let d = direct::analyse(&u, &Budget::new()).expect("not interrupted");
        let s = encode::analyse(&u, &Budget::new()).expect("not interrupted");
        recheck(&u, &d);
        prop_assert_eq!(d, s);
    }

    #[test]
    fn brute_equals_direct_on_paradox_prone_nights(seed in any::<u64>(), effects in 3usize..10) {
        let params = NightParams {
            players: 3,
            kinds: vec![ActionKind::Block, ActionKind::Block, ActionKind::Stop, ActionKind::Protect, ActionKind::Kill],
            max_targets: 1,
            ..small_params(effects)
        };
        let ens = night(&params, seed);
        let u = Universe::new(&ens);
        prop_assume!(u.len() <= 14);
        let (_, b, d) = analyse_all(&ens);
        prop_assert_eq!(b, d);
    }
}

/// small_params with the deflection-heavy kinds of `NightParams::deflect_heavy` (three
/// deflects in eight draws) and two targets at most.
fn deflect_params(effects: usize) -> NightParams {
    NightParams {
        players: 2 + effects % 3,
        kinds: NightParams::deflect_heavy(0, 0).kinds,
        max_targets: 2,
        ..small_params(effects)
    }
}

/// The ways of the resolutions, each as a sorted list of `id:targets`.
fn ways(u: &Universe, rs: &[Resolution]) -> Vec<Vec<Vec<String>>> {
    rs.iter()
        .map(|r| {
            r.ways
                .iter()
                .map(|w| {
                    let mut v: Vec<String> = w
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| !t.is_empty())
                        .map(|(i, t)| {
                            let names: Vec<&str> = t.iter().map(|&p| u.player_name(p)).collect();
                            format!("{}:{}", u.effects[i].id, names.join(","))
                        })
                        .collect();
                    v.sort();
                    v
                })
                .collect()
        })
        .collect()
}

#[test]
fn two_mutual_deflectors_have_one_resolution_with_two_ways() {
    // Order e1, e2: e1 moves e2's slot (at D1) to D2; e2 (now at D2) moves e1's slot (at
    // D2) to D2. Order e2, e1: symmetric, everything at D1.
    check_example(
        &[("D1", "deflect", &["D2"]), ("D2", "deflect", &["D1"])],
        Classification::QuasiParadox,
        &[&[&["e1:D1", "e2:D1"], &["e1:D2", "e2:D2"]]],
    );
}

/// Brute force, direct and SAT on a hand-worked night (`analyse_all` compares them too):
/// its classification and the ways of its resolutions (as `ways` writes them).
fn check_example(
    triples: &[(&str, &str, &[&str])],
    class: Classification,
    expected_ways: &[&[&[&str]]],
) {
    let (u, b, d) = analyse_all(&Ensemble::from_triples(triples));
    assert_eq!(b, d);
    assert_eq!(d.classification(), class);
    assert_eq!(ways(&u, &d.resolutions), expected_ways);
}

#[test]
fn deflector_chain_ends_at_x() {
    check_example(
        &[
            ("V", "visit", &["D1"]),
            ("D1", "deflect", &["D2"]),
            ("D2", "deflect", &["X"]),
        ],
        Classification::NonParadox,
        &[&[&["e1:X", "e2:X", "e3:X"]]],
    );
}

#[test]
fn the_seeds_deflector_paradox_is_a_quasi_paradox_here() {
    check_example(
        &[
            ("V", "visit", &["D1"]),
            ("D1", "deflect", &["D2"]),
            ("D2", "deflect", &["D1"]),
        ],
        Classification::QuasiParadox,
        &[&[&["e1:D1", "e2:D1", "e3:D1"], &["e1:D2", "e2:D2", "e3:D2"]]],
    );
}

#[test]
fn a_stop_moved_onto_the_deflectors_target_is_a_paradox() {
    // Found by `gordian fuzz`. If e1 succeeds, e2's slot (at P5) moves to P2, sharing e1's
    // final target, so e1 fails; if e1 fails nothing fails it. Cutting either one works,
    // and the lexicographic cost prefers cutting the stop (@3) over the deflect (@1).
    let ens = Ensemble::from_triples(&[("P5", "deflect", &["P2"]), ("P2", "stop", &["P5"])]);
    let (u, b, d) = analyse_all(&ens);
    assert_eq!(b, d);
    assert_eq!(d.classification(), Classification::Paradox);
    let cuts: Vec<Vec<String>> = d
        .cuts
        .as_ref()
        .expect("cuts")
        .optimal
        .iter()
        .map(|(f, _)| resolution::sorted_ids(&u, f.ones()))
        .collect();
    assert_eq!(cuts, vec![vec!["e2"]]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn brute_direct_and_sat_agree_with_deflections(seed in any::<u64>(), effects in 1usize..9) {
        let ens = night(&deflect_params(effects), seed);
        prop_assume!(Universe::new(&ens).len() <= 12);
        let (_, b, d) = analyse_all(&ens);
        prop_assert_eq!(b, d);
    }
}

/// Nights spread over more players than small_params, so that they often fall into
/// several independent components, with every kind and passives.
fn spread_params(effects: usize) -> NightParams {
    NightParams {
        players: 4 + effects / 2,
        // Not swap, redirect or guard: a night with one is a single component.
        kinds: ActionKind::ALL[..8].to_vec(),
        passive_rate: 0.25,
        max_targets: 2,
        ..small_params(effects)
    }
}

/// Sorted JSON texts of a list, to compare lists written in different orders.
fn as_sorted_texts(v: &serde_json::Value) -> Vec<String> {
    let mut t: Vec<String> = v
        .as_array()
        .map(|a| a.iter().map(|x| x.to_string()).collect())
        .unwrap_or_default();
    t.sort();
    t
}

/// Everything the factorised answer says, checked against brute force on the unsplit
/// night: the flat analysis, the totals, each player's chance of dying, and the streamed
/// flat lists.
fn check_factorised_against_brute(ens: &Ensemble) -> usize {
    use crate::systems::ar::answer::{self, Expand, Options};
    let whole = Universe::new(ens);
    let flat = brute::analyse(&whole).expect("small universe");
    let n = Night::new(whole.clone());
    let f = Direct.solve(&n, &Budget::new()).expect("not interrupted");
    assert_eq!(Sat.solve(&n, &Budget::new()).expect("not interrupted"), f);
    // Small nights are solved whole and projected; the components solved one by one
    // must give the same answer.
    let each = engine::solve_parts(&n, &Budget::new(), |u, b| {
        direct::analyse(u, b).map(crate::systems::ar::answer::pieces::PartAnswer::Flat)
    })
    .expect("solved");
    assert_eq!(
        each, f,
        "solving per component != projecting the whole night's answer"
    );
    assert_eq!(
        expand::flatten(&n, &f),
        flat,
        "products of components != brute force"
    );
    let t = f.totals(&n);
    assert_eq!(t.resolutions, flat.resolutions.len().into());
    let ways: usize = flat.resolutions.iter().map(|r| r.ways.len()).sum();
    assert_eq!(t.ways, ways.into());
    let cuts = flat.cuts.as_ref().map_or(0, |c| c.optimal.len());
    assert_eq!(t.optimal_cuts, cuts.into());
    assert_eq!(f.cost(&n), flat.cuts.as_ref().map(|c| c.cost.clone()));
    let empty = Cut::with_capacity(whole.n_declared);
    let outs = report::outcomes(&whole, &flat, &empty);
    assert_eq!(t.outcomes, outs.len().into());
    assert_eq!(f.classification(), flat.classification());
    // Per-player chances from the flat distribution.
    let mut chance: std::collections::BTreeMap<String, num_rational::BigRational> =
        Default::default();
    for o in &outs {
        for d in o.resolution.deaths(&whole, o.way) {
            *chance.entry(d).or_default() += o.probability.clone();
        }
    }
    let chance: Vec<_> = chance.into_iter().collect();
    assert_eq!(answer::death_chances(&n, &f), chance);
    // The streamed flat lists hold the same items as the flat report's.
    let streamed = answer::to_json(
        &n,
        &f,
        &Options {
            expand: Expand::Always,
            ..Options::default()
        },
    );
    let reference = report::to_json(&whole, &flat, None);
    for key in ["resolutions", "outcomes", "death_probabilities"] {
        assert_eq!(
            as_sorted_texts(&streamed[key]),
            as_sorted_texts(&reference[key]),
            "{key}"
        );
    }
    assert_eq!(
        as_sorted_texts(&streamed["cuts"]["optimal"]),
        as_sorted_texts(&reference["cuts"]["optimal"])
    );
    assert_eq!(streamed["cuts"]["cost"], reference["cuts"]["cost"]);
    // Not expanded, each component carries its own lists, written one cut and one
    // outcome at a time: the same as the flat report of the component on its own.
    let never = answer::to_json(
        &n,
        &f,
        &Options {
            expand: Expand::Never,
            ..Options::default()
        },
    );
    for (k, (p, a)) in f.night(&n).parts.iter().zip(&f.parts).enumerate() {
        let c = &never["components"][k];
        let own = report::to_json(&p.universe, a, None);
        for key in [
            "classification",
            "resolutions",
            "outcomes",
            "death_probabilities",
        ] {
            assert_eq!(c[key], own[key], "component {k}: {key}");
        }
        assert_eq!(
            c["cuts"]["optimal"], own["cuts"]["optimal"],
            "component {k}"
        );
        assert_eq!(
            c["totals"]["outcomes"],
            serde_json::json!(own["outcomes"].as_array().map_or(0, Vec::len).to_string())
        );
    }
    n.parts.len()
}

#[test]
fn random_spread_nights_often_have_several_components() {
    // Guards the property test below against testing only one-component nights.
    let several = (0..200u64)
        .filter(|&seed| Night::of(&night(&spread_params(8), seed)).parts.len() > 1)
        .count();
    assert!(several > 100, "{several} of 200");
}

#[test]
fn disjoint_pairs_and_a_cycle_multiply() {
    // Worked by hand: two mutual-block pairs (2 resolutions each) and an odd cycle of
    // blocks (3 optimal cuts of one block each): a paradox, 3 optimal cuts, and under each
    // 2 x 2 resolutions; 12 outcomes of 1/12.
    let (ens, n) =
        parsed("A block B\nB block A\nC block D\nD block C\nX block Y\nY block Z\nZ block X\n");
    assert_eq!(check_factorised_against_brute(&ens), 3);
    let f = Direct.solve(&n, &Budget::new()).expect("not interrupted");
    let t = f.totals(&n);
    assert_eq!(
        (t.resolutions, t.optimal_cuts, t.outcomes),
        (0u32.into(), 3u32.into(), 12u32.into())
    );
    // One block cut, at the blocks' level 2 (the night's only level).
    assert_eq!(f.cost(&n), Some(vec![1]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn factorised_answers_equal_brute_force_on_the_whole_night(
        seed in any::<u64>(), effects in 1usize..12,
    ) {
        let ens = night(&spread_params(effects), seed);
        prop_assume!(Universe::new(&ens).len() <= 13);
        check_factorised_against_brute(&ens);
    }
}

/// Nights of one or a few dense components, large enough for the split path.
fn dense_params(effects: usize) -> NightParams {
    NightParams {
        players: 3 + effects / 4,
        ..small_params(effects)
    }
}

#[test]
fn random_dense_nights_often_answer_as_pieces() {
    // Guards the property test below against never meeting a split answer (tests split
    // every component of 4 effects or more whose product has more than one entry).
    let split = dense_nights_split_by(direct::analyse_part);
    assert!(split > 40, "{split} of 200");
}

/// Of 200 dense random nights, how many `analyse_part` answers as pieces.
fn dense_nights_split_by<E>(
    analyse_part: impl Fn(
        &Universe,
        &Budget,
    ) -> Result<crate::systems::ar::answer::pieces::PartAnswer, E>,
) -> usize {
    (0..200u64)
        .filter(|&seed| {
            let u = Universe::new(&night(&dense_params(4 + seed as usize % 20), seed));
            matches!(
                analyse_part(&u, &Budget::new()),
                Ok(crate::systems::ar::answer::pieces::PartAnswer::Split(_))
            )
        })
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn pieces_multiply_to_the_sat_engines_flat_answer(seed in any::<u64>(), effects in 4usize..60) {
        use crate::systems::ar::answer::pieces::PartAnswer;
        let u = Universe::new(&night(&dense_params(effects), seed));
        let flat = encode::analyse(&u, &Budget::new()).expect("not interrupted");
        match direct::analyse_part(&u, &Budget::new()).expect("not interrupted") {
            PartAnswer::Flat(a) => prop_assert_eq!(a, flat),
            PartAnswer::Split(s) => {
                prop_assert_eq!(s.flatten(), flat.clone());
                recheck(&u, &flat);
                let f = s.factored();
                let t = f.totals(&s.night);
                let cuts = flat.cuts.as_ref().map_or(0, |c| c.optimal.len());
                prop_assert_eq!(t.resolutions, flat.resolutions.len().into());
                prop_assert_eq!(t.optimal_cuts, cuts.into());
                prop_assert_eq!(f.cost(&s.night), flat.cuts.as_ref().map(|c| c.cost.clone()));
                let empty = Cut::with_capacity(u.n_declared);
                let outs = report::outcomes(&u, &flat, &empty);
                prop_assert_eq!(t.outcomes, outs.len().into());
                prop_assert_eq!(f.classification(), flat.classification());
            }
        }
    }
}

#[test]
fn mutual_blocks_behind_a_certain_block_are_independent_pieces() {
    // Worked by hand. F blocks E (nobody blocks F), so E's block on B and D fails in
    // every resolution, yet it joins the two mutual blocks into one component. With E
    // fixed, {A, B} and {C, D} are independent: A or B succeeds (B's kill of X with B),
    // C or D succeeds. Pieces: what is fixed (E, F), {e1 e2 e3}, {e4 e5}; 2 x 2 = 4
    // resolutions, X dies in 2 of them.
    let (ens, n, f) = one_component_by_direct(
        "A block B\nB block A\nB kill X\nC block D\nD block C\nE block B D\nF block E\n",
    );
    let r = f.refined.as_ref().expect("answered as pieces");
    let ids: Vec<Vec<&str>> = r
        .night
        .parts
        .iter()
        .map(|p| p.universe.effects.iter().map(|e| e.id.as_str()).collect())
        .collect();
    assert_eq!(
        ids,
        [vec!["e6", "e7"], vec!["e1", "e2", "e3"], vec!["e4", "e5"]]
    );
    // A piece names its own players, and maps its effects and players to the night's.
    let p = &r.night.parts[1];
    assert_eq!(p.universe.ensemble.players, ["A", "B", "X"]);
    assert_eq!(p.to_whole, [0, 1, 2]);
    let names: Vec<&str> = p.players.iter().map(|&q| n.whole.player_name(q)).collect();
    assert_eq!(names, ["A", "B", "X"]);
    let t = f.totals(&n);
    assert_eq!((t.resolutions, t.outcomes), (4u32.into(), 4u32.into()));
    let half = num_rational::BigRational::new(1.into(), 2.into());
    assert_eq!(
        crate::systems::ar::answer::death_chances(&n, &f),
        [("X".to_string(), half)]
    );
    // The SAT engine finds the same pieces on its own encoding (worked by hand above).
    let sat = Sat.solve(&n, &Budget::new()).expect("not interrupted");
    let sr = sat
        .refined
        .as_ref()
        .expect("the SAT engine answers as pieces too");
    let sat_ids: Vec<Vec<&str>> = sr
        .night
        .parts
        .iter()
        .map(|p| p.universe.effects.iter().map(|e| e.id.as_str()).collect())
        .collect();
    assert_eq!(sat_ids, ids);
    // The split answer agrees with the SAT engine's and brute force's.
    assert_eq!(f, sat);
    every_engine_agrees(&ens, &n, &f);
}

/// A hand-written night (`t.night`) and its components.
fn parsed(text: &str) -> (Ensemble, Night) {
    let ens = parse::parse_night(text, std::path::Path::new("t.night")).unwrap();
    let n = Night::of(&ens);
    (ens, n)
}

/// Parses a night of one component and answers it with the direct engine.
fn one_component_by_direct(
    text: &str,
) -> (
    Ensemble,
    Night,
    crate::systems::ar::answer::factor::Factored,
) {
    let (ens, n) = parsed(text);
    assert_eq!(n.parts.len(), 1);
    let f = Direct.solve(&n, &Budget::new()).expect("not interrupted");
    (ens, n, f)
}

/// The direct engine's answer `f` equals the SAT engine's and brute force's, passes the
/// self-check, and its one component multiplies out to brute force's flat answer.
fn every_engine_agrees(
    ens: &Ensemble,
    n: &Night,
    f: &crate::systems::ar::answer::factor::Factored,
) {
    assert_eq!(f, &Sat.solve(n, &Budget::new()).expect("not interrupted"));
    assert_eq!(f, &Brute.solve(n, &Budget::new()).expect("not interrupted"));
    engine::self_check(n, f).expect("every piece's entries are acceptable");
    assert_eq!(check_factorised_against_brute(ens), 1);
}

#[test]
fn an_odd_cycle_and_a_pair_in_one_component_multiply_as_pieces() {
    // Worked by hand. H blocks G, so G's block on C and E fails, yet joins the odd cycle
    // A -> B -> C -> A (a paradox: 3 optimal cuts of one block, one resolution each) and
    // the pair D <-> E (2 resolutions) into one component: 3 cuts, each with 2
    // resolutions, 6 outcomes; one block cut at level 2. (Cutting H's block would also
    // break the cycle, G then blocking C, but H's block is at the more important level
    // 0, so that cut is never optimal.)
    let (ens, n, f) = one_component_by_direct(
        "A block B\nB block C\nC block A\nD block E\nE block D\nG block C E\nH block G @0\n",
    );
    assert!(f.refined.is_some(), "answered as pieces");
    let t = f.totals(&n);
    assert_eq!(
        (t.resolutions, t.optimal_cuts, t.outcomes),
        (0u32.into(), 3u32.into(), 6u32.into())
    );
    assert_eq!(f.cost(&n), Some(vec![0, 1]));
    every_engine_agrees(&ens, &n, &f);
}

/// The nights of seeds 0..1500 with 4 to 33 effects, deflections frequent, that have a
/// deflection: (seed, night, universe).
fn deflection_nights() -> impl Iterator<Item = (u64, Ensemble, Universe)> {
    (0..1500u64).filter_map(|seed| {
        let effects = 4 + (seed % 30) as usize;
        let params = NightParams {
            players: 3 + effects / 4,
            ..deflect_params(effects)
        };
        let ens = night(&params, seed);
        let u = Universe::new(&ens);
        u.has_deflections().then_some((seed, ens, u))
    })
}

#[test]
fn random_dense_nights_often_answer_as_pieces_by_sat() {
    // Guards the property test below against never meeting a split SAT answer (tests
    // split every component of 4 effects or more whose product has more than one entry).
    let split = dense_nights_split_by(satsplit::analyse_part);
    assert!(split > 40, "{split} of 200");
}

/// A component's answer as one piece holding the whole component: the coarsest grouping.
fn one_piece(u: &Universe, a: Analysis) -> crate::systems::ar::answer::pieces::PartAnswer {
    use crate::systems::ar::answer::factor::Part;
    use crate::systems::ar::answer::pieces::PartAnswer;
    PartAnswer::Split(Box::new(crate::systems::ar::answer::pieces::Split {
        night: Night {
            whole: u.clone(),
            parts: vec![Part {
                universe: u.clone(),
                to_whole: (0..u.len()).collect(),
                players: (0..u.n_players() as u32).collect(),
            }],
        },
        parts: vec![a],
    }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn sat_pieces_multiply_to_the_flat_answer_and_agree_with_the_direct_engine(
        seed in any::<u64>(), effects in 4usize..60,
    ) {
        use crate::systems::ar::answer::pieces::PartAnswer;
        let ens = night(&dense_params(effects), seed);
        let u = Universe::new(&ens);
        let flat = encode::analyse(&u, &Budget::new()).expect("not interrupted");
        let sat = satsplit::analyse_part(&u, &Budget::new()).expect("not interrupted");
        match &sat {
            PartAnswer::Flat(a) => prop_assert_eq!(a, &flat),
            PartAnswer::Split(s) => {
                prop_assert_eq!(s.flatten(), flat.clone());
                let f = s.factored();
                let t = f.totals(&s.night);
                let cuts = flat.cuts.as_ref().map_or(0, |c| c.optimal.len());
                prop_assert_eq!(t.resolutions, flat.resolutions.len().into());
                prop_assert_eq!(t.optimal_cuts, cuts.into());
                prop_assert_eq!(f.cost(&s.night), flat.cuts.as_ref().map(|c| c.cost.clone()));
            }
        }
        // The two engines' answers of the whole night agree piece by piece, and with the
        // coarsest grouping of each component (one piece, the flat answer); the SAT
        // engine's answer passes the self-check.
        let n = Night::of(&ens);
        let d = Direct.solve(&n, &Budget::new()).expect("not interrupted");
        let s = Sat.solve(&n, &Budget::new()).expect("not interrupted");
        prop_assert_eq!(&d, &s);
        engine::self_check(&n, &s).map_err(TestCaseError::fail)?;
        let coarse = crate::systems::ar::answer::factor::Factored::assemble(
            &n,
            n.parts
                .iter()
                .map(|p| one_piece(&p.universe, encode::analyse(&p.universe, &Budget::new()).expect("not interrupted")))
                .collect(),
        );
        prop_assert_eq!(&coarse, &s);
        prop_assert_eq!(&d, &coarse);
    }
}

/// Components with deflections answered as pieces by one engine (`analyse_part`),
/// including those whose optimal labellings disagree on which deflections succeed or have
/// several ways: the pieces multiply to the flat SAT answer, the whole night's answer
/// agrees between the engines and passes the self-check, and pieces whose options differ
/// on a deflection's success or on a way are met often enough for this to mean something,
/// and so are pieces held cut by cut as products (tests take that path for every group of
/// several factors), whose counted outcomes and death chances equal the flat answer's.
fn pieces_with_deflections_multiply_to_the_flat_answer(
    analyse_part: fn(
        &Universe,
        &Budget,
    ) -> Result<crate::systems::ar::answer::pieces::PartAnswer, Interrupted>,
) {
    use crate::systems::ar::answer::pieces::PartAnswer;
    let (mut split, mut varying, mut by_cut, mut scoped) = (0, 0, 0, 0);
    for (seed, ens, u) in deflection_nights() {
        let flat = encode::analyse(&u, &Budget::new()).expect("not interrupted");
        match analyse_part(&u, &Budget::new()).expect("not interrupted") {
            PartAnswer::Flat(a) => assert_eq!(a, flat, "seed {seed}"),
            PartAnswer::Split(s) => {
                split += 1;
                assert_eq!(s.flatten(), flat, "seed {seed}");
                let moves = |pa: &Analysis, part: &crate::systems::ar::answer::factor::Part| {
                    let deflects: Vec<usize> = (0..part.universe.len())
                        .filter(|&k| part.universe.effects[k].action() == Some(ActionKind::Deflect))
                        .collect();
                    let rs: Vec<&Resolution> = pa
                        .resolutions
                        .iter()
                        .chain(
                            pa.cuts
                                .iter()
                                .flat_map(|c| c.optimal.iter().flat_map(|o| &o.1)),
                        )
                        .collect();
                    rs.iter().any(|r| r.ways.len() > 1)
                        || deflects.iter().any(|&k| {
                            rs.iter().any(|r| r.succeeded.contains(k))
                                && rs.iter().any(|r| !r.succeeded.contains(k))
                        })
                };
                if s.parts.iter().zip(&s.night.parts).any(|(a, p)| moves(a, p)) {
                    varying += 1;
                }
                let products = |a: &Analysis| {
                    a.cuts
                        .as_ref()
                        .is_some_and(|c| c.optimal.iter().any(|(_, rs)| rs.is_product()))
                };
                let tables = |a: &Analysis| {
                    a.cuts
                        .as_ref()
                        .is_some_and(|c| c.optimal.iter().any(|(_, rs)| rs.is_scoped()))
                };
                if s.parts.iter().any(tables) {
                    scoped += 1;
                }
                if s.parts.iter().any(products) {
                    by_cut += 1;
                    let whole = Night {
                        whole: u.clone(),
                        parts: vec![crate::systems::ar::answer::factor::Part {
                            universe: u.clone(),
                            to_whole: (0..u.len()).collect(),
                            players: (0..u.n_players() as u32).collect(),
                        }],
                    };
                    let pieces = s.factored();
                    let flat_f =
                        crate::systems::ar::answer::factor::Factored::of(vec![flat.clone()]);
                    let empty =
                        crate::systems::ar::night::resolution::Cut::with_capacity(u.n_declared);
                    assert_eq!(
                        pieces.totals(&s.night).outcomes,
                        report::outcomes(&u, &flat, &empty).len().into(),
                        "seed {seed}"
                    );
                    assert_eq!(
                        crate::systems::ar::answer::death_chances(&s.night, &pieces),
                        crate::systems::ar::answer::death_chances(&whole, &flat_f),
                        "seed {seed}"
                    );
                }
            }
        }
        let n = Night::of(&ens);
        let d = Direct.solve(&n, &Budget::new()).expect("not interrupted");
        let sat = Sat.solve(&n, &Budget::new()).expect("not interrupted");
        assert_eq!(d, sat, "seed {seed}");
        engine::self_check(&n, &d).expect("every piece's entries are acceptable");
    }
    eprintln!("{split} split, {varying} varying, {by_cut} by cut, {scoped} scoped");
    assert!(
        split > 30 && varying > 10 && by_cut > 5 && scoped > 5,
        "{split} split, {varying} varying, {by_cut} by cut, {scoped} scoped"
    );
}

#[test]
fn sat_pieces_with_deflections_multiply_to_the_flat_answer() {
    pieces_with_deflections_multiply_to_the_flat_answer(satsplit::analyse_part);
}

#[test]
fn direct_pieces_with_deflections_multiply_to_the_flat_answer() {
    pieces_with_deflections_multiply_to_the_flat_answer(direct::analyse_part);
}

#[test]
fn a_group_joined_only_by_where_a_visit_ends_is_the_product_of_its_parts() {
    // Two mutual roleblocks, joined only through where A's visit ends. Worked by hand:
    // A and B block each other, so exactly one of e1, e2 succeeds, and A's visit e3
    // succeeds with e1. C blocks D (e4) and D blocks C (e5); D also deflects to T (e6).
    // If e4 succeeds, D is blocked: e5 and e6 fail, and e4 stays on D, as it must. If e5
    // succeeds, C is blocked (e4 fails) and D's deflection succeeds, moving e4 and the
    // visit to T. Both engines group the six effects together (the visit's final target
    // depends on e6), while no constraint joins the two pairs: the group's labellings are
    // the product of its two parts', four resolutions, one way each, the visit at T
    // exactly when e6 succeeds.
    use crate::systems::ar::answer::pieces::PartAnswer;
    use std::collections::BTreeSet;
    let (_, n) = parsed("A block B\nB block A\nA visit D\nC block D\nD block C\nD deflect T\n");
    assert_eq!(n.parts.len(), 1);
    let u = &n.parts[0].universe;
    let want: BTreeSet<Vec<&str>> = [
        vec!["e1", "e3", "e4"],
        vec!["e1", "e3", "e5", "e6"],
        vec!["e2", "e4"],
        vec!["e2", "e5", "e6"],
    ]
    .into_iter()
    .collect();
    for (engine, part) in [
        (
            "direct",
            direct::analyse_part(u, &Budget::new()).expect("not interrupted"),
        ),
        (
            "sat",
            satsplit::analyse_part(u, &Budget::new()).expect("not interrupted"),
        ),
    ] {
        let PartAnswer::Split(s) = part else {
            panic!("{engine}: a product of more than one entry stays as pieces in tests")
        };
        let joined = s.night.parts.iter().position(|p| {
            let ids: Vec<&str> = p.universe.effects.iter().map(|e| e.id.as_str()).collect();
            ids.contains(&"e3") && ids.contains(&"e6") && ids.contains(&"e1")
        });
        let k = joined.unwrap_or_else(|| panic!("{engine}: one piece holds both pairs"));
        assert_eq!(s.parts[k].resolutions.len(), 4, "{engine}");
        let flat = s.flatten();
        assert!(flat.cuts.is_none(), "{engine}: nothing is cut");
        let got: BTreeSet<Vec<String>> = flat
            .resolutions
            .iter()
            .map(|r| r.succeeded_ids(u))
            .collect();
        let got: BTreeSet<Vec<&str>> = got
            .iter()
            .map(|v| v.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(got, want, "{engine}");
        let visit = u.effects.iter().position(|e| e.id == "e3").expect("e3");
        let deflect = u.effects.iter().position(|e| e.id == "e6").expect("e6");
        for r in &flat.resolutions {
            assert_eq!(r.ways.len(), 1, "{engine}");
            let at = u.player_name(r.ways[0][visit][0]);
            let want = if r.succeeded.contains(deflect) {
                "T"
            } else {
                "D"
            };
            assert_eq!(at, want, "{engine}");
        }
    }
}

#[test]
fn a_coarser_grouping_with_one_resolution_less_disagrees() {
    // The comparison on the common coarsening is not vacuous: the two mutual blocks behind
    // a certain block (4 resolutions, worked by hand in the test above) against one piece
    // holding the component's flat answer without its last resolution.
    use crate::systems::ar::answer::factor::Factored;
    let (_, n) =
        parsed("A block B\nB block A\nB kill X\nC block D\nD block C\nE block B D\nF block E\n");
    let s = Sat.solve(&n, &Budget::new()).expect("not interrupted");
    let u = &n.parts[0].universe;
    let mut flat = encode::analyse(u, &Budget::new()).expect("not interrupted");
    assert_eq!(flat.resolutions.len(), 4);
    assert_eq!(Factored::assemble(&n, vec![one_piece(u, flat.clone())]), s);
    flat.resolutions.pop();
    assert_ne!(Factored::assemble(&n, vec![one_piece(u, flat)]), s);
}

/// Small nights drawing every action kind (jail, commute and deflect included), every
/// passive (immune included) and every modifier (filters, `strongkill`, information
/// kinds), over few players so that they interact.
fn every_kind_params(effects: usize) -> NightParams {
    NightParams {
        players: 2 + effects % 3,
        priority_levels: 3,
        ..NightParams::every_kind(0, effects)
    }
}

/// Dense nights of every kind, large enough for the split path.
fn every_kind_dense(effects: usize) -> NightParams {
    NightParams {
        players: 3 + effects / 4,
        // Swaps, redirects and guards make a night one component solved flat (no
        // pieces); the few `deflect X to Y` the modifiers draw still do.
        kinds: ActionKind::ALL[..8].to_vec(),
        ..every_kind_params(effects)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn brute_direct_and_sat_agree_on_every_kind(seed in any::<u64>(), effects in 1usize..10) {
        let ens = night(&every_kind_params(effects), seed);
        prop_assume!(Universe::new(&ens).len() <= 13);
        let (_, b, d) = analyse_all(&ens);
        prop_assert_eq!(b, d);
    }

    #[test]
    fn factorised_answers_equal_brute_force_with_every_kind(
        seed in any::<u64>(), effects in 1usize..12,
    ) {
        let params = NightParams { players: 4 + effects / 2, ..every_kind_params(effects) };
        let ens = night(&params, seed);
        prop_assume!(Universe::new(&ens).len() <= 13);
        check_factorised_against_brute(&ens);
    }
}

/// The flat SAT answer a piece test compares against may be enormous for a rare night of
/// 40 effects: such a night is skipped once the flat answer passes this many bytes, which
/// the engines count the same way on every machine.
const FLAT_ANSWER_BOUND: u64 = 64 << 20;

proptest! {
    // A fixed seed: the nights drawn, and so the test's running time, are the same on
    // every run (a random draw once made one night's flat answer run for hours).
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6f72_6469_616e),
        ..ProptestConfig::default()
    })]

    #[test]
    fn pieces_of_every_kind_multiply_to_the_flat_answer(seed in any::<u64>(), effects in 4usize..40) {
        use crate::systems::ar::answer::pieces::PartAnswer;
        let ens = night(&every_kind_dense(effects), seed);
        let u = Universe::new(&ens);
        let flat = encode::analyse(&u, &Budget::with_max_memory(FLAT_ANSWER_BOUND));
        prop_assume!(flat.is_ok(), "flat answer over the bound");
        let flat = flat.expect("checked above");
        recheck(&u, &flat);
        for part in [
            direct::analyse_part(&u, &Budget::new()).expect("not interrupted"),
            satsplit::analyse_part(&u, &Budget::new()).expect("not interrupted"),
        ] {
            match part {
                PartAnswer::Flat(a) => prop_assert_eq!(a, flat.clone()),
                PartAnswer::Split(s) => prop_assert_eq!(s.flatten(), flat.clone()),
            }
        }
        let n = Night::of(&ens);
        let d = Direct.solve(&n, &Budget::new()).expect("not interrupted");
        let s = Sat.solve(&n, &Budget::new()).expect("not interrupted");
        prop_assert_eq!(&d, &s);
        engine::self_check(&n, &s).map_err(TestCaseError::fail)?;
    }
}

/// `ens` with copies of some of its passives inserted at random places: each passive is
/// copied 0 to 3 times (ids `c1`, `c2`, ...), drawn from `seed`.
fn with_copied_passives(ens: &Ensemble, seed: u64) -> Ensemble {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut effects = ens.effects.clone();
    let mut n = 0;
    for e in ens.effects.iter().filter(|e| !e.is_action()) {
        for _ in 0..rng.gen_range(0..4) {
            n += 1;
            let mut copy = e.clone();
            copy.id = format!("c{n}");
            let at = rng.gen_range(0..=effects.len());
            effects.insert(at, copy);
        }
    }
    Ensemble {
        effects,
        ..ens.clone()
    }
}

/// Both engines' component answers (identical passives collapsed) flattened, for a
/// universe of one component or more.
fn collapsed_answers(u: &Universe) -> (Analysis, Analysis) {
    use crate::systems::ar::answer::pieces::PartAnswer;
    let flat = |a: PartAnswer| match a {
        PartAnswer::Flat(a) => a,
        PartAnswer::Split(s) => s.flatten(),
    };
    let d = direct::analyse_part(u, &Budget::new()).expect("not interrupted");
    let s = satsplit::analyse_part(u, &Budget::new()).expect("not interrupted");
    (flat(d), flat(s))
}

#[test]
fn a_cut_counts_every_copy_of_a_collapsed_passive() {
    // `B visit A` succeeding creates A's block on B, which makes it fail: a paradox. With
    // one passive at the visit's priority, cutting either is optimal; with two identical
    // passives, cutting both costs two, so cutting the visit is the only optimal cut.
    let one = "players: A B\nB visit A\nA passive reflexive:block @6\n";
    let two =
        "players: A B\nB visit A\nA passive reflexive:block @6\nA passive reflexive:block @6\n";
    for (text, cuts) in [(one, vec![vec!["e1"], vec!["e2"]]), (two, vec![vec!["e1"]])] {
        let (ens, _) = parsed(text);
        let u = Universe::new(&ens);
        for a in [collapsed_answers(&u).0, collapsed_answers(&u).1] {
            let c = a.cuts.as_ref().expect("a paradox");
            assert_eq!(c.cost, vec![1], "{text}");
            let got: Vec<Vec<String>> = c
                .optimal
                .iter()
                .map(|(f, _)| resolution::sorted_ids(&u, f.ones()))
                .collect();
            assert_eq!(got, cuts, "{text}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Identical passives are solved as one and the answer expanded back: both engines'
    /// answers equal the direct engine's on the night as written (and brute force's when
    /// small), flat and as pieces, with and without deflections.
    #[test]
    fn collapsed_passives_answer_as_the_night_as_written(
        seed in any::<u64>(), effects in 2usize..30, mix in 0u8..3,
    ) {
        let params = match mix {
            0 => NightParams { passive_rate: 0.4, ..small_params(effects) },
            1 => NightParams { passive_rate: 0.4, ..dense_params(effects) },
            _ => NightParams { passive_rate: 0.4, ..deflect_params(effects.min(10)) },
        };
        let ens = with_copied_passives(&night(&params, seed), seed);
        let u = Universe::new(&ens);
        let collapsed = crate::systems::ar::answer::collapse::collapse(&u, &Budget::new())
            .expect("not interrupted");
        prop_assume!(collapsed.is_some());
        let written = direct::analyse(&u, &Budget::new()).expect("not interrupted");
        recheck(&u, &written);
        if u.len() <= 14 {
            prop_assert_eq!(&brute::analyse(&u).expect("small universe"), &written);
        }
        let (d, s) = collapsed_answers(&u);
        prop_assert_eq!(&d, &written);
        prop_assert_eq!(&s, &written);
    }
}

#[test]
fn a_product_is_canonical_wherever_its_constant_targets_sit() {
    use crate::systems::ar::night::model::Player;
    use fixedbitset::FixedBitSet;
    use resolution::{Partial, SparseWay, Under};
    // Three kills: e1 (A kills P), e2 (B kills Q), e3 (C kills R). Worked by hand: the
    // product of "e1 succeeds or not" and "e2 succeeds or not", e3's targets shared by
    // every way, is four resolutions (R = all three, S = {}, {e1}, {e2}, {e1, e2}), each
    // with one way: e1 -> P, e2 -> Q, e3 -> R.
    let (ens, _) = parsed("players: A B C P Q R\nA kill P\nB kill Q\nC kill R\n");
    let u = Universe::new(&ens);
    assert_eq!(u.len(), 3);
    let ix = |id: &str| u.effects.iter().position(|e| e.id == id).unwrap();
    let player = |name: &str| {
        (0..u.n_players() as Player)
            .find(|&p| u.player_name(p) == name)
            .unwrap()
    };
    let bits = |on: &[usize]| {
        let mut b = FixedBitSet::with_capacity(u.len());
        on.iter().for_each(|&i| b.insert(i));
        b
    };
    let all = bits(&[0, 1, 2]);
    let way = |entries: &[(&str, &str)]| -> SparseWay {
        let mut w: SparseWay = entries
            .iter()
            .map(|&(e, p)| (ix(e) as u32, vec![player(p)]))
            .collect();
        w.sort();
        w
    };
    let partial = |s: &[&str], w: SparseWay| Partial {
        present: all.clone(),
        succeeded: bits(&s.iter().map(|e| ix(e)).collect::<Vec<_>>()),
        ways: vec![w],
    };
    // e3's targets with e1's factor, then with e2's as its base (and the factors in the
    // other order).
    let one = Under::product(
        &u,
        vec![
            (
                Vec::new(),
                vec![
                    partial(&["e1"], way(&[("e1", "P"), ("e3", "R")])),
                    partial(&[], way(&[("e1", "P"), ("e3", "R")])),
                ],
            ),
            (
                Vec::new(),
                vec![
                    partial(&["e2"], way(&[("e2", "Q")])),
                    partial(&[], way(&[("e2", "Q")])),
                ],
            ),
        ],
    );
    // e3's targets and e2's given as the base of e2's factor, its ways holding nothing of
    // their own; e1's factor with e1's targets as its base, one way saying so again.
    let other = Under::product(
        &u,
        vec![
            (
                way(&[("e2", "Q"), ("e3", "R")]),
                vec![partial(&[], Vec::new()), partial(&["e2"], Vec::new())],
            ),
            (
                way(&[("e1", "P")]),
                vec![
                    partial(&[], way(&[("e1", "P")])),
                    partial(&["e1"], Vec::new()),
                ],
            ),
        ],
    );
    // The same factors, not only the same expansion: so the engines' answers compare
    // without expanding.
    assert!(one.same_form(&other));
    assert!(one.is_product() && other.is_product());
    assert_eq!(one.len(), 4);
    assert_eq!(one.n_ways(), 4);
    assert_eq!(one, other);
    let mut map = vec![Vec::new(); u.len()];
    map[ix("e1")] = vec![player("P")];
    map[ix("e2")] = vec![player("Q")];
    map[ix("e3")] = vec![player("R")];
    let mut want: Vec<Resolution> = [vec![], vec!["e1"], vec!["e2"], vec!["e1", "e2"]]
        .iter()
        .map(|s| Resolution {
            present: all.clone(),
            succeeded: bits(&s.iter().map(|e| ix(e)).collect::<Vec<_>>()),
            ways: vec![map.clone()],
        })
        .collect();
    resolution::canonicalize_resolutions(&u, &mut want);
    assert_eq!(one.as_slice(), want.as_slice());
    assert_eq!(one, Under::from(want));
}
