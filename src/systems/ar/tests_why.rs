//! Tests of the "why" modules: explanations, minimal cores and their derivations, checked
//! certificates, DOT and the named DIMACS. Expected values are worked by hand from the
//! rules (derivations in the comments) or come from the other engine.

use super::direct;
use super::judge::semantics::Rule;
use super::night::gen::{self, NightParams};
use super::night::model::Ensemble;
use super::night::parse;
use super::night::resolution::Cut;
use super::night::universe::Universe;
use super::sat::certify::{self, Claim};
use super::sat::encode;
use super::why::core::{self, Shape};
use super::why::dot;
use super::why::explain::{self, Why};
use crate::systems::spec::Budget;
use std::path::Path;

fn load(name: &str) -> Universe {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/ar")
        .join(name);
    Universe::new(&parse::load(&path).expect("a shipped instance loads"))
}

fn ids(u: &Universe, ix: &[usize]) -> Vec<String> {
    let mut v: Vec<String> = ix.iter().map(|&i| u.effects[i].id.clone()).collect();
    v.sort();
    v
}

fn set(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A night from which no single effect can be deleted without resolving it, although two
/// of its effects alone are a paradox: the core must be the pair, not the whole night
/// (being a paradox is not monotone; deletion alone stops at the four).
///
/// Worked by hand (e1 `P3 deflect P2`, e3 `P2 stop P3`, e4 P2's `reflexive:block`, e5
/// `P1 block P3`):
/// * {e1, e3} is a paradox: if e1 succeeds, e3's slot moves from P3 to P2, e3 (a stop,
///   unopposed) then shares P2 with e1 and stops it; if e1 fails, e3 stays at P3, nothing
///   shares e1's target and e1 succeeds.
/// * {e1, e3, e4} resolves: e1 succeeds and, aiming at P2, creates P2's block at P3; that
///   block's slot is moved to P2 by e1 and blocks e3, so nothing stops e1.
/// * {e1, e3, e5} resolves: e1 succeeds, e5's slot moves to P2 and blocks e3.
/// * {e1, e4, e5} resolves: e5 blocks P3, so e1 fails and nothing moves. {e3, e4, e5}
///   resolves (no deflection: e3 stops e5, nothing attacks e3).
/// * The whole night is a paradox. If e1 fails, nothing moves: e3 stops e5 at P3 and
///   nothing attacks e1. If e1 succeeds, e3 and e5 move to P2, and e1 creates P2's block
///   c at P3 (moved to P2); e3 and c make each other fail; if e3 succeeds it stops e1; if
///   e3 fails, e5 has no succeeding attacker, and a succeeding e5 (P1's action at P2)
///   creates P2's block at P1, which blocks e5.
/// * No single effect is a paradox and no other pair is: without e1 nothing moves and a
///   stop cannot hit a stop; {e1, e4} and {e1, e5} let e1 succeed unopposed.
#[test]
fn the_core_is_the_smallest_paradox_among_the_subsets_deletion_leaves() {
    let text = "players: P1 P2 P3\n\
                e1: P3 deflect P2\n\
                e3: P2 stop P3\n\
                e4: P2 passive reflexive:block\n\
                e5: P1 block P3\n";
    let u = Universe::new(&parse::parse_str(text, Path::new("t.night")).unwrap());
    let c = core::minimal_core(&u, &Budget::new()).unwrap().unwrap();
    assert_eq!(ids(&u, &c.effects), set(&["e1", "e3"]));
    assert!(c.subset_minimal);
}

/// Every shipped paradox (the files whose header says `classification: paradox`), with
/// every minimal core worked by hand; the core found must be one of them.
///
/// * odd block cycles (3, 5, 7, with a priority override): the cycle; without any one
///   block the rest is a chain, which resolves.
/// * block-stop-odd-cycle: `R block S` [e1] blocks `S stop R` [e2], which stops
///   `W block R` [e3] (shared target R), which blocks R's e1: an odd cycle of three;
///   `R kill X` [e4] touches none of them.
/// * cut-creates-new-problem: the block cycle e1-e3, and also `X visit rB` [e4] with
///   `rB reflexive:block` [e5] on their own (the visit creates a block on X that blocks
///   it; failing, it creates nothing and nothing stops it). With e3 present and succeeding
///   the visit is blocked, so the cycle alone or the visit pair alone are the cores.
/// * deflect-stop-paradox: `P5 deflect P2` [e1], `P2 stop P5` [e2]: if e1 succeeds, e2's
///   slot goes to P2 and shares e1's target, so e2 stops e1; if e1 fails, e2 stays at P5,
///   nothing stops e1. `K kill P5` [e3] plays no part.
/// * paradox-cut-two-low-over-passive: `V kill rB` [e1] or `V visit rB` [e3], each with
///   `rB reflexive:block` [e2], defeats itself as above.
/// * paradox-lexicographic-cut: `R1 block R2` [e1] blocks `R2 block S3 S4` [e2], which
///   blocks S3 and S4, whose stops [e3], [e4] each stop e1 (shared target R2): two odd
///   cycles, e1-e2-e3 and e1-e2-e4.
/// * reflexive-block-paradox: the visit [e1] and the reflexive block [e2].
/// * reflexive-self-sustaining-loop: all three (visit, reflexive kill, reflexive stop):
///   the visit creates A's kill on V, which creates V's stop on A, which stops the visit;
///   without the visit nothing is created, without either passive the chain breaks.
const PARADOXES: &[(&str, &[&[&str]])] = &[
    ("odd-block-cycle.night", &[&["e1", "e2", "e3"]]),
    // Three jails in a circle: the jail's block part makes the odd cycle.
    ("role-jail-odd-cycle.night", &[&["e1", "e2", "e3"]]),
    // Three independent components; only the circle of blocks X, Y, Z has no resolution.
    ("independent-components.night", &[&["e6", "e7", "e8"]]),
    (
        "odd-block-cycle-5.night",
        &[&["e1", "e2", "e3", "e4", "e5"]],
    ),
    (
        "odd-block-cycle-7.night",
        &[&["e1", "e2", "e3", "e4", "e5", "e6", "e7"]],
    ),
    (
        "odd-block-cycle-priority-override.night",
        &[&["e1", "e2", "loop"]],
    ),
    ("block-stop-odd-cycle.night", &[&["e1", "e2", "e3"]]),
    (
        "cut-creates-new-problem.night",
        &[&["e1", "e2", "e3"], &["e4", "e5"]],
    ),
    ("deflect-stop-paradox.night", &[&["e1", "e2"]]),
    (
        "paradox-cut-two-low-over-passive.night",
        &[&["e1", "e2"], &["e2", "e3"]],
    ),
    (
        "paradox-lexicographic-cut.night",
        &[&["e1", "e2", "e3"], &["e1", "e2", "e4"]],
    ),
    ("reflexive-block-paradox.night", &[&["e1", "e2"]]),
    // Every paradox needs the passive (the only creator) and P1's protect (the only
    // visitor of P3); the two alone loop: the protect visits, the block it draws stops it
    // at its source, and then nothing draws the block.
    ("visited-cut-failing-visitor.night", &[&["e1", "e2"]]),
    (
        "reflexive-self-sustaining-loop.night",
        &[&["e1", "e2", "e3"]],
    ),
];

#[test]
fn every_shipped_paradox_is_listed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ar");
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .expect("instances")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let text = std::fs::read_to_string(&p).ok()?;
            text.contains("# expect classification: paradox")
                .then(|| p.file_name()?.to_str().map(str::to_string))?
        })
        .collect();
    shipped.sort();
    let mut listed: Vec<String> = PARADOXES.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(shipped, listed);
}

#[test]
fn shipped_paradoxes_have_their_hand_worked_cores_and_closed_derivations() {
    for (file, cores) in PARADOXES {
        let u = load(file);
        let c = core::minimal_core(&u, &Budget::new())
            .expect("no engine error")
            .expect("a paradox has a core");
        let got = ids(&u, &c.effects);
        assert!(
            cores.iter().any(|k| set(k) == got),
            "{file}: core {got:?} is not one of {cores:?}"
        );
        assert!(c.subset_minimal, "{file}");
        let why = core::why(&c.universe);
        assert!(core::is_closed(&why.derivation), "{file}: {why:?}");
        let text = why.to_text(&c.universe, "");
        assert!(
            text.contains("contradiction") || text.contains("no resolution here"),
            "{file}"
        );
    }
}

/// The shapes, by hand: the block cycles (and block-stop-block) are odd cycles in file
/// order; the reflexive block defeats the visit: if it succeeds it creates the block that
/// stops it, if it fails nothing is created and nothing stops it.
#[test]
fn shapes_of_shipped_cores() {
    let cycle = |file: &str, n: usize| {
        let u = load(file);
        let c = core::minimal_core(&u, &Budget::new()).unwrap().unwrap();
        assert_eq!(
            core::why(&c.universe).shape,
            Shape::OddCycle((0..n).collect()),
            "{file}"
        );
    };
    cycle("odd-block-cycle.night", 3);
    cycle("role-jail-odd-cycle.night", 3);
    cycle("odd-block-cycle-5.night", 5);
    cycle("odd-block-cycle-7.night", 7);
    cycle("block-stop-odd-cycle.night", 3);
    let u = load("reflexive-block-paradox.night");
    let c = core::minimal_core(&u, &Budget::new()).unwrap().unwrap();
    assert_eq!(core::why(&c.universe).shape, Shape::SelfDefeating(0));
    // The deflection: if `P5 deflect P2` succeeds, the stop's slot moves to P2, where it
    // shares the deflection's target and stops it; if it fails, nothing stops it.
    let u = load("deflect-stop-paradox.night");
    let c = core::minimal_core(&u, &Budget::new()).unwrap().unwrap();
    let why = core::why(&c.universe);
    assert_eq!(why.shape, Shape::SelfDefeating(0));
    let text = why.to_text(&c.universe, "");
    assert!(
        text.contains("so (redirection) P2 stop P5 [e2] goes to P2:"),
        "{text}"
    );
}

/// The odd block cycle's derivation, case "e1 succeeds": e1 succeeding forbids its only
/// attacker e3 (rule: what would stop a success fails) and blocks e2; e3 then has no
/// succeeding attacker, so it succeeds: e3 both fails and succeeds.
#[test]
fn odd_cycle_derivation_by_hand() {
    let u = load("odd-block-cycle.night");
    let why = core::why(&u);
    let core::Derivation::Split { on, cases, steps } = &why.derivation else {
        panic!("a split: {why:?}")
    };
    assert!(steps.is_empty());
    assert_eq!(*on, 0);
    let core::Derivation::Closed { steps, end } = &cases[0] else {
        panic!()
    };
    assert_eq!(*end, core::End::Contradiction);
    let facts: Vec<(usize, bool)> = steps.iter().map(|s| (s.effect, s.succeeds)).collect();
    assert_eq!(facts, vec![(0, true), (2, false), (1, false), (2, true)]);
}

/// How many splits are nested in a derivation, at most.
fn nesting(d: &core::Derivation) -> usize {
    match d {
        core::Derivation::Closed { .. } => 0,
        core::Derivation::Split { cases, .. } => 1 + cases.iter().map(nesting).max().unwrap_or(0),
        core::Derivation::Ways { ways, .. } => {
            ways.iter().map(|(_, d)| nesting(d)).max().unwrap_or(0)
        }
    }
}

/// The derivation splits on every deflection before anything else: with 100 of them (a
/// chain that touches nothing) beside an odd block cycle, that would be 2^100 cases
/// nested 100 deep. It stops at the documented bounds instead, and says so.
#[test]
fn a_derivation_over_many_deflections_stops_at_its_bounds() {
    let mut text = String::from("R1 block R2\nR2 block R3\nR3 block R1\n");
    for i in 0..100 {
        text.push_str(&format!("D{i} deflect D{}\n", i + 1));
    }
    let u = Universe::new(&parse::parse_str(&text, Path::new("t.night")).unwrap());
    let why = core::why(&u);
    assert_eq!(nesting(&why.derivation), core::MAX_DEPTH);
    assert!(!core::is_closed(&why.derivation));
    assert!(why.to_text(&u, "").contains("too many cases to show"));
}

/// A derivation is not vacuous: on a night with a resolution (mutual roleblock) some
/// branch ends in an acceptable resolution, so it is not closed.
#[test]
fn a_night_with_a_resolution_has_no_closed_derivation() {
    let u = load("mutual-roleblock.night");
    assert!(!core::is_closed(&core::why(&u).derivation));
    assert!(core::minimal_core(&u, &Budget::new()).unwrap().is_none());
}

/// Hand-worked: `D protect V`, `K kill V`, `R block D`. R's block is unopposed and blocks
/// D, so the protect fails ("blocked by R [e3]"), and the kill succeeds.
#[test]
fn explanation_of_a_blocked_doctor() {
    let u = load("kill-succeeds-doctor-blocked.night");
    let a = direct::analyse(&u, &Budget::new()).unwrap();
    let r = &a.resolutions[0];
    let e = explain::explain(&u, &Cut::with_capacity(u.n_declared), r, &r.ways[0]);
    assert_eq!(
        e.effects[0],
        (0, false, Why::Attacked(vec![(2, Rule::Blocked)]))
    );
    assert_eq!(e.effects[1], (1, true, Why::Unopposed { shielded: vec![] }));
    assert_eq!(e.effects[2], (2, true, Why::Unopposed { shielded: vec![] }));
    assert_eq!(e.deaths, vec![(u.ensemble.player_index("V").unwrap(), 1)]);
    let text = e.to_text(&u, "");
    assert!(
        text.contains("D protect V [e1] fails: blocked by R [e3]"),
        "{text}"
    );
}

/// Hand-worked: `V visit D1`, `D1 deflect D2`, `D2 deflect X`: the visit's slot goes
/// D1 -> D2 (e2) -> X (e3); e2's own slot goes D2 -> X (e3).
#[test]
fn explanation_of_a_deflection_chain() {
    let u = load("deflect-chain.night");
    let a = direct::analyse(&u, &Budget::new()).unwrap();
    let r = &a.resolutions[0];
    let e = explain::explain(&u, &Cut::with_capacity(u.n_declared), r, &r.ways[0]);
    let p = |n: &str| u.ensemble.player_index(n).unwrap();
    assert_eq!(e.redirects.len(), 2);
    assert_eq!(e.redirects[0].effect, 0);
    assert_eq!(e.redirects[0].path, vec![(1, p("D2")), (2, p("X"))]);
    assert_eq!(e.redirects[1].effect, 1);
    assert_eq!(e.redirects[1].path, vec![(2, p("X"))]);
}

/// Hand-worked: `R1 kill V`... the two-step reflexive chain: `V visit A` triggers A's
/// reflexive, whose created effect triggers the next; each creation's chain starts at the
/// declared visit.
#[test]
fn explanation_of_created_effects_starts_at_a_declared_action() {
    let ens = Ensemble::from_triples(&[
        ("V", "visit", &["A"]),
        ("A", "reflexive:visit", &[]),
        ("V", "reflexive:visit", &[]),
    ]);
    // V visits A: A's reflexive creates `A visit V` [e2>V]; that targets V, whose
    // reflexive creates `V visit A` [e3>A], derived from e2>V, derived from e1.
    let u = Universe::new(&ens);
    let a = direct::analyse(&u, &Budget::new()).unwrap();
    let r = &a.resolutions[0];
    let e = explain::explain(&u, &Cut::with_capacity(u.n_declared), r, &r.ways[0]);
    let created: Vec<(String, Vec<String>)> = e
        .created
        .iter()
        .map(|c| {
            (
                u.effects[c.created].id.clone(),
                c.chain.iter().map(|&g| u.effects[g].id.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(
        created,
        vec![
            ("e2>V".to_string(), vec!["e1".to_string()]),
            (
                "e3>A".to_string(),
                vec!["e1".to_string(), "e2>V".to_string()]
            ),
        ]
    );
}

fn paradox_cuts(u: &Universe) -> Option<super::night::resolution::CutAnalysis> {
    let a = encode::analyse(u, &Budget::new()).expect("not interrupted");
    a.cuts
}

#[test]
fn certificates_check_on_every_shipped_paradox() {
    for (file, _) in PARADOXES {
        let u = load(file);
        let cuts = paradox_cuts(&u).expect("a paradox");
        let certs = certify::certify_all(&u, &cuts).unwrap_or_else(|e| panic!("{file}: {e}"));
        let positive = cuts.cost.iter().filter(|&&c| c > 0).count();
        assert_eq!(certs.len(), 1 + positive, "{file}");
        assert_eq!(certs[0].claim, Claim::NoResolution);
        for c in &certs {
            assert!(c.cnf.contains("c claim:"), "{file}");
            assert!(!c.drat.is_empty(), "{file}");
        }
    }
}

/// Tampering: the proof of the odd block cycle checks against its own formula, and fails
/// against the formula without the claim (nothing cut: the unit clauses dropped, which is
/// satisfiable, so no proof can check) and when the proof is cut short.
#[test]
fn a_tampered_proof_fails_the_check() {
    let u = load("odd-block-cycle.night");
    let cuts = paradox_cuts(&u).unwrap();
    let cert = certify::certify(&u, &cuts.cost, &Claim::NoResolution).unwrap();
    assert!(certify::check(&cert.clauses, &cert.proof).is_ok());
    let without_claim: Vec<_> = cert.clauses[..cert.clauses.len() - u.n_declared].to_vec();
    assert!(certify::check(&without_claim, &cert.proof).is_err());
    let short = &cert.proof[..cert.proof.len() / 2];
    assert!(certify::check(&cert.clauses, short).is_err());
    // A false claim is refused: "no cheaper cut at 2 than 2" on a night whose optimum is 1.
    assert!(certify::certify(
        &u,
        &[2],
        &Claim::NoCheaperCut {
            level: 2,
            optimum: 2
        }
    )
    .is_err());
}

/// Fuzzed paradoxes: `GORDIAN_FUZZ_PARADOXES` of them (200 by default; the documented
/// command runs 1,000; every other night may deflect): each gets checked certificates,
/// and a minimal core (cross-checked by the direct engine inside `minimal_core`) whose
/// derivation closes.
#[test]
fn fuzzed_paradoxes_are_certified_and_have_cores() {
    let want: usize = std::env::var("GORDIAN_FUZZ_PARADOXES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let plain = NightParams {
        players: 5,
        effects: 7,
        ..NightParams::default()
    };
    // Every other night may also deflect.
    let mut deflecting = plain.clone();
    deflecting
        .kinds
        .push(super::night::model::ActionKind::Deflect);
    let mut found = 0;
    let mut seed = 0u64;
    while found < want {
        assert!(seed < 200 * want as u64, "too few paradoxes generated");
        let params = if seed.is_multiple_of(2) {
            &plain
        } else {
            &deflecting
        };
        let u = Universe::new(&gen::night(params, seed));
        seed += 1;
        let Some(cuts) = paradox_cuts(&u) else {
            continue;
        };
        found += 1;
        let d = direct::analyse(&u, &Budget::new()).unwrap();
        assert_eq!(
            d.cuts.as_ref().map(|c| &c.cost),
            Some(&cuts.cost),
            "seed {}",
            seed - 1
        );
        certify::certify_all(&u, &cuts).unwrap_or_else(|e| panic!("seed {}: {e}", seed - 1));
        let c = core::minimal_core(&u, &Budget::new())
            .unwrap_or_else(|e| panic!("seed {}: {e}", seed - 1))
            .expect("a paradox has a core");
        assert!(
            core::is_closed(&core::why(&c.universe).derivation),
            "seed {}",
            seed - 1
        );
    }
}

/// Structural DOT check: one digraph, balanced quotes, every edge between declared nodes.
fn check_dot(text: &str) -> Result<(), String> {
    if !text.starts_with("digraph ") || !text.trim_end().ends_with('}') {
        return Err("not one digraph".into());
    }
    let mut nodes = Vec::new();
    for line in text.lines().skip(1) {
        let line = line.trim();
        let quotes = line.matches('"').count() - line.matches("\\\"").count();
        if quotes % 2 == 1 {
            return Err(format!("unbalanced quotes: {line}"));
        }
        if let Some((lhs, rest)) = line.split_once(" -> ") {
            let rhs = rest.split(" [").next().unwrap_or("");
            for n in [lhs, rhs] {
                if !nodes.iter().any(|m: &String| m == n) {
                    return Err(format!("edge to undeclared node {n}"));
                }
            }
        } else if line.starts_with('"') {
            nodes.push(line.split(" [").next().unwrap_or("").to_string());
        }
    }
    Ok(())
}

#[test]
fn dot_of_every_shipped_instance_is_well_formed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ar");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("night") {
            continue;
        }
        let u = load(p.file_name().unwrap().to_str().unwrap());
        let a = direct::analyse(&u, &Budget::new()).unwrap();
        let empty = Cut::with_capacity(u.n_declared);
        for o in super::answer::report::outcomes(&u, &a, &empty) {
            let text = dot::night(&u, o.cut, o.resolution, o.way, "t \"q\"");
            check_dot(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", p.display()));
            // Cut effects are marked, failed ones dashed, deflected slots shown.
            for i in o.cut.ones() {
                if u.effects[i].action().is_some() {
                    assert!(
                        text.contains(&format!("[{}] CUT", u.effects[i].id)),
                        "{text}"
                    );
                }
            }
            if o.resolution.present.ones().any(|i| {
                !o.resolution.succeeded.contains(i)
                    && u.effects[i].action().is_some()
                    && !(i < u.n_declared && o.cut.contains(i))
            }) {
                assert!(text.contains("style=dashed"), "{text}");
            }
            n += 1;
        }
    }
    assert!(n > 40);
    // A broken DOT is caught by the structural check.
    assert!(check_dot("digraph x {\n  \"a\" -> \"b\";\n}\n").is_err());
}

#[test]
fn svg_needs_graphviz_or_says_so() {
    let u = load("odd-block-cycle.night");
    let a = direct::analyse(&u, &Budget::new()).unwrap();
    let (f, rs) = &a.cuts.as_ref().unwrap().optimal[0];
    let text = dot::night(&u, f, &rs[0], &rs[0].ways[0], "t");
    match dot::to_svg(&text) {
        Ok(svg) => assert!(String::from_utf8_lossy(&svg).contains("<svg")),
        Err(e) => assert!(e.contains("not installed") || e.contains("dot"), "{e}"),
    }
}

/// The named DIMACS: a `c cut` and a `c succeeds` line for every declared effect, a
/// `c created` line for every potential created effect, all naming distinct variables
/// within the header's count.
#[test]
fn dimacs_names_every_effect_variable() {
    let u = load("reflexive-block-paradox.night");
    let text = certify::named_dimacs(&u, &Budget::new()).unwrap();
    let header = text.lines().find(|l| l.starts_with("p cnf")).unwrap();
    let n_vars: i64 = header.split_whitespace().nth(2).unwrap().parse().unwrap();
    let mut vars = Vec::new();
    for (key, count) in [
        ("c cut ", u.n_declared),
        ("c succeeds ", u.len()),
        ("c created ", u.len() - u.n_declared),
    ] {
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(key)).collect();
        assert_eq!(lines.len(), count, "{key}");
        for l in lines {
            let v: i64 = l.split_whitespace().last().unwrap().parse().unwrap();
            assert!(v.abs() <= n_vars);
            vars.push(v.abs());
        }
    }
    let n = vars.len();
    vars.sort();
    vars.dedup();
    assert_eq!(vars.len(), n, "distinct variables");
}
