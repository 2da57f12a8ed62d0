//! The seed's four examples as golden traces: replay, annotations against the seed's
//! `{...}` commentary, predicted next CR orders, the variants that fail them; and the
//! property that the simulator and the SAT encoding enumerate the same outcomes.
//!
//! Expected values here are transcribed by hand from the seed essay "Time Analysis",
//! never produced by the code under test.

use super::model::{Body, LineKind, LogLine, QuickChoice, Scenario, Variant};
use super::replay::{replay, Replay};
use super::simulate::{Run, Step};
use super::{encode, parse, search};
use crate::systems::spec::Budget;
use std::path::PathBuf;

fn instance(name: &str) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("instances/fft")
        .join(name);
    parse::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn log(sc: &Scenario) -> &[LogLine] {
    sc.log.as_deref().expect("the instance has a log")
}

fn confirmed(sc: &Scenario, variant: Variant) -> Run {
    match replay(sc, log(sc), variant) {
        Replay::Confirmed { run, .. } => run,
        Replay::Diverged(d) => panic!(
            "expected the {variant} model to produce the log: {}",
            super::report::divergence_text(&d)
        ),
    }
}

fn names(sc: &Scenario, ids: &[usize]) -> Vec<String> {
    ids.iter().map(|&c| sc.characters[c].name.clone()).collect()
}

const SEEDS: [&str; 4] = [
    "seed-1-mimes-skip.fft",
    "seed-2-haste.fft",
    "seed-3-agrias.fft",
    "seed-4-demi.fft",
];

#[test]
fn the_final_theory_explains_all_four_seed_logs() {
    for name in SEEDS {
        let sc = instance(name);
        let r = replay(&sc, log(&sc), Variant::Final);
        assert!(r.explains(), "{name}: {r:?}");
    }
}

#[test]
fn predicted_next_cr_orders_are_the_seeds() {
    // The seed: "the turn order is B, C, A"; "A, B, C"; "RAF,LAV,AGR,RAM,...".
    let sc = instance("seed-1-mimes-skip.fft");
    assert_eq!(
        names(&sc, &confirmed(&sc, Variant::Final).next_cr),
        ["B", "C", "A"]
    );
    let sc = instance("seed-2-haste.fft");
    assert_eq!(
        names(&sc, &confirmed(&sc, Variant::Final).next_cr),
        ["A", "B", "C"]
    );
    let sc = instance("seed-4-demi.fft");
    let order = names(&sc, &confirmed(&sc, Variant::Final).next_cr);
    assert_eq!(order[..4], ["RAF", "LAV", "AGR", "RAM"]);
}

/// (log line as written without commentary, step, safety ON?) per line, from the seed's
/// commentary.
fn check_annotations(name: &str, expected: &[(&str, u8, bool)]) {
    let sc = instance(name);
    let run = confirmed(&sc, Variant::Final);
    let got: Vec<(String, u8, bool)> = run
        .lines()
        .map(|e| (sc.line_text(&e.line, e.in_mime), e.step.number(), e.safety))
        .collect();
    assert_eq!(got.len(), expected.len(), "{name}: number of lines");
    for (i, ((text, step, safety), (etext, estep, esafety))) in got.iter().zip(expected).enumerate()
    {
        // The seed writes a mimed quick `qs` in example 4 and `mqs` in example 3.
        let norm = |s: &str| s.replace("mqs", "qs");
        assert_eq!(norm(text), norm(etext), "{name} line {}", i + 1);
        assert_eq!(
            (step, safety),
            (estep, esafety),
            "{name} line {}: {text}",
            i + 1
        );
    }
}

const ON: bool = true;
const OFF: bool = false;

#[test]
fn annotations_match_the_seeds_commentary_for_example_3() {
    check_annotations(
        "seed-3-agrias.fft",
        &[
            ("AGR - qs - miss", 1, ON), // qsafety ON, since nobody has any quick-flags
            ("mRAD - mqs - REI", 4, ON), // the mimecycle starts, qsafety still ON
            ("mALI - mqs - miss", 4, ON), //
            ("RAM - qs - miss", 1, OFF), // qsafety turned OFF, due to REI's mqs-flag
            ("REI - wait", 3, OFF),     // this is a step 3 quick-turn
            ("mRAD - mqs - miss", 4, OFF), // the mimecycle starts, qsafety still OFF
            ("mALI - mqs - AGR", 4, OFF), //
            ("AGR - wait", 5, OFF),     // this is a step 5 quick-turn
            ("MEL - qs - miss", 1, ON), // qsafety left ON, since nobody has any quick-flags
            ("mLAV - mqs - RAF", 4, ON), // mimecycle starts, qsafety still ON
            ("rRAF - mqs - LAV", 4, ON), // RAF countermagics (in the mime cycle)
            ("REI - qs - miss", 1, OFF), // qsafety turned OFF, due to RAF's mqs-flag
            ("RAF - wait", 3, OFF),     // this is a step 3 quick-turn
            ("mLAV - mqs - RAF", 4, OFF), // mimecycle, qsafety still OFF
            ("rRAF - mqs - LAV", 4, OFF), //
            ("RAF - wait", 5, OFF),     // this is a step 5 quick-turn
            ("LAV - wait", 5, OFF),     // this is another step 5 quick-turn
        ],
    );
}

#[test]
fn annotations_match_the_seeds_commentary_for_example_4() {
    check_annotations(
        "seed-4-demi.fft",
        &[
            ("AGR - qs - miss", 1, ON),    // qsafety ON, nobody has any quick-flags
            ("mRAD - qs - REI", 4, ON),    // the mimecycle starts, qsafety left ON
            ("mALI - qs - miss", 4, ON),   //
            ("RAM - demi - miss", 1, OFF), // qsafety turned OFF, due to REI's mqs-flag
            ("REI - wait", 3, OFF),        // this is a step 3 quick-turn
            ("mRAD - demi - MEL,REI", 4, OFF), // the mimecycle starts, qsafety left OFF
            ("rMEL - mcq", 4, OFF),        // MEL gets an mcq-flag
            ("rREI - mcq", 4, OFF),        // REI gets an mcq-flag
            ("mALI - demi - AGR", 4, OFF), // ALI mimes
            ("rAGR - mcq", 4, OFF),        // AGR gets an mcq-flag
            ("AGR - attack - miss", 5, OFF), // this is a step 5 quick-turn
            ("mRAD - attack - miss", 4, OFF), //
            ("mALI - attack - AGR", 4, OFF), //
            ("rAGR - mcq", 4, OFF),        // mimecycle ends, qsafety still OFF
            ("AGR - wait", 5, OFF),        // this is a step 5 quick turn
            ("MEL - wait", 5, OFF),        // this is a step 5 quick turn
            ("REI - wait", 5, OFF),        // this is a step 5 quick turn
            ("MEL - qs - RAM", 1, ON),     // qsafety ON, since nobody has quickflags (yet)
            ("rRAM - qs - MEL", 2, OFF),   // in step 2 the qsafety is turned OFF
            ("RAM - attack - miss", 3, OFF), // this is a step 3 quick-turn
            ("mRAD - attack - miss", 4, OFF), // mimecycle starts, qsafety left OFF
            ("mALI - attack - AGR", 4, OFF), //
            ("rAGR - mcq", 4, OFF),        // AGR gets an mcq-flag
            ("AGR - wait", 5, OFF),        // this is a step 5 quick turn
            ("MEL - wait", 5, OFF),        // this is a step 5 quick turn
            ("REI - qs - miss", 1, ON),    // qsafety left ON, since nobody has quickflags
            ("mLAV - mqs - RAF", 4, ON),   // mimecycle starts, qsafety left ON
            ("rRAF - mqs - LAV", 4, ON),   // RAF countermagics, LAV gets an mqs flag
        ],
    );
}

#[test]
fn the_naive_model_fails_the_first_example_where_b_would_move() {
    // Without the quick-safety, step 5 runs after A's mime cycle and B (first flagged)
    // takes a quick turn the log does not show.
    let sc = instance("seed-1-mimes-skip.fft");
    match replay(&sc, log(&sc), Variant::Naive) {
        Replay::Diverged(d) => {
            assert_eq!(d.index, 3, "the log ends after its 3 lines");
            assert!(
                d.expected.contains("quick turn for B (step 5)"),
                "{}",
                d.expected
            );
        }
        r => panic!("the naive model should not explain example 1: {r:?}"),
    }
}

#[test]
fn the_earlier_claim_fails_the_fourth_example_at_rams_quick_turn() {
    // MEL quicks RAM, RAM counter-magics MEL: the earlier claim gives MEL (the quick caster)
    // the step 3 turn, but the log shows RAM, first on the list, acting.
    let sc = instance("seed-4-demi.fft");
    match replay(&sc, log(&sc), Variant::Earlier) {
        Replay::Diverged(d) => {
            assert_eq!(
                d.found
                    .as_deref()
                    .map(|f| f.trim_start().starts_with("RAM - attack")),
                Some(true)
            );
            assert!(
                d.expected.contains("quick turn for MEL (step 3)"),
                "{}",
                d.expected
            );
        }
        r => panic!("the earlier claim should not explain example 4: {r:?}"),
    }
    // It does explain the other three (no counter-magicked quick caster in them).
    for name in &SEEDS[..3] {
        let sc = instance(name);
        assert!(replay(&sc, log(&sc), Variant::Earlier).explains(), "{name}");
    }
}

#[test]
fn simulator_and_sat_enumerate_the_same_outcomes_on_the_seed_scenarios() {
    let budget = Budget::new();
    for name in SEEDS {
        let sc = instance(name);
        for v in Variant::ALL {
            let d = search::enumerate(&sc, v, &budget).unwrap();
            let s = encode::enumerate(&sc, v, &budget).unwrap();
            assert!(!d.outcomes.is_empty(), "{name} {v}");
            assert_eq!(d.outcomes, s.outcomes, "{name} {v}");
            assert_eq!(d.exceeds_bound, s.exceeds_bound, "{name} {v}");
        }
    }
}

/// The first choice of a run that its scenario's menus do not offer: a mime's hit not on
/// its mime menu, or a quick turn's action not on its character's quick menu (misses,
/// waits and reactions are always offered).
fn off_menu(sc: &Scenario, run: &Run) -> Option<String> {
    run.lines().find_map(|e| {
        let off = match (&e.line.kind, &e.line.body, e.step) {
            (LineKind::Mime, Body::Act { targets, .. }, _) => {
                !targets.is_empty() && !sc.menus.mime_menu(e.line.who).contains(targets)
            }
            (LineKind::Primary, Body::Act { action, targets }, Step::S3 | Step::S5) => {
                let q = QuickChoice::Act {
                    action: *action,
                    targets: targets.clone(),
                };
                !sc.menus.quick_menu(e.line.who).contains(&q)
            }
            _ => false,
        };
        off.then(|| sc.line_text(&e.line, e.in_mime))
    })
}

#[test]
fn the_seed_logs_are_among_the_enumerated_outcomes() {
    // Examples 1 to 3 ship per-character menus that allow their logs: the log is among
    // the enumerated outcomes, with others.
    let budget = Budget::new();
    for name in &SEEDS[..3] {
        let sc = instance(name);
        let run = confirmed(&sc, Variant::Final);
        assert_eq!(off_menu(&sc, &run), None, "{name}");
        let d = search::enumerate(&sc, Variant::Final, &budget).unwrap();
        assert!(
            d.outcomes.contains(&run.outcome()),
            "{name}: the menus allow the seed's own log"
        );
        assert!(
            d.outcomes.len() > 1,
            "{name}: other choices give other outcomes"
        );
    }
    // Example 4's log-allowing menus have hundreds of millions of outcomes (see the
    // file's header), so it ships them without the two attacking quick turns; with those
    // two entries every choice of the log is on the menus.
    let mut sc = instance("seed-4-demi.fft");
    let run = confirmed(&sc, Variant::Final);
    assert_eq!(
        off_menu(&sc, &run).as_deref(),
        Some("AGR - attack - miss"),
        "the shipped menus leave out the attacking quick turns"
    );
    let d = search::enumerate(&sc, Variant::Final, &budget).unwrap();
    assert!(!d.outcomes.contains(&run.outcome()));
    let attack_miss = QuickChoice::Act {
        action: sc.action_id("attack").unwrap(),
        targets: Vec::new(),
    };
    for who in ["AGR", "RAM"] {
        let c = sc.char_id(who).unwrap();
        sc.menus.quick_for.insert(c, vec![attack_miss.clone()]);
    }
    assert_eq!(off_menu(&sc, &run), None);
}

#[test]
fn simulator_and_sat_agree_on_hundreds_of_random_scenarios() {
    // Every variant: the outcome sets, `exceeds_bound`, and the existence of a witness for
    // every property (SAT witnesses replayed through the simulator).
    let budget = Budget::new();
    let mut outcomes = 0;
    for seed in 0..300 {
        let sc = crate::systems::fft::gen::small_scenario(seed);
        let c = crate::harness::Differential::<super::Fft>::all().compare(&sc, &budget);
        assert!(
            matches!(c.verdict(), crate::harness::Verdict::Agree(_)),
            "seed {seed}: {:?}\n{}",
            c.describe(|a| format!("{a:?}")),
            parse::to_fft(&sc)
        );
        for v in Variant::ALL {
            for p in search::Property::ALL {
                let q = super::engine::query(&sc, v, p, super::engine::EngineKind::Both, &budget)
                    .unwrap();
                assert!(q.disagreement.is_none(), "seed {seed} {v:?} {p:?}");
            }
        }
        outcomes += search::enumerate(&sc, Variant::Final, &budget)
            .unwrap()
            .outcomes
            .len();
    }
    assert!(
        outcomes > 600,
        "the scenarios are not trivial: {outcomes} outcomes"
    );
}
