//! The seed's figures worked by hand, the trading example, parser errors, and the
//! cross-check of both engines through the `System` trait.

#![allow(clippy::field_reassign_with_default)] // tests build states field by field from the seed's start

use super::model::*;
use super::parse::{parse_ff8, to_text};
use super::search::{distribution, plan, reachable};
use super::simulate::{challenge, Driver, Query};
use super::system::Ff8;
use crate::systems::spec::{Budget, System};
use crate::text::test_util::{error_table, Case};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use std::path::Path;

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn player(region: Region, action: Action) -> Choice {
    Choice {
        region,
        opponent: Opponent::Player,
        action,
    }
}

fn queen(region: Region, action: Action) -> Choice {
    Choice {
        region,
        opponent: Opponent::Queen,
        action,
    }
}

/// Probability that `pred` holds after one challenge.
fn prob(
    s: &State,
    c: &Choice,
    pred: impl Fn(&State, &[super::simulate::Message]) -> bool,
) -> BigRational {
    distribution(s, c)
        .into_iter()
        .filter(|o| pred(&o.state, &o.messages))
        .fold(BigRational::zero(), |a, o| a + o.prob)
}

fn set(rules: &[Rule]) -> RuleSet {
    rules.iter().fold(RuleSet::EMPTY, |s, &r| s.with(r))
}

#[test]
fn starting_rules_are_the_seeds() {
    let s = State::default();
    assert_eq!(s.rules_of(Region::Balamb).to_string(), "Open");
    assert_eq!(s.rules_of(Region::Centra).to_string(), "Same, Plus, Random");
    assert_eq!(s.rules_of(Region::Lunar), RuleSet::ALL);
    assert_eq!(
        s.rules_of(Region::Esthar).to_string(),
        "Same Wall, Elemental"
    );
}

#[test]
fn every_distribution_sums_to_one() {
    let args = super::gen::GenArgs::default();
    for seed in 0..15 {
        let sc = super::gen::generate(&args, seed);
        for c in choices(&sc.state, &sc.allowed) {
            let total = distribution(&sc.state, &c)
                .into_iter()
                .fold(BigRational::zero(), |a, o| a + o.prob);
            assert_eq!(total, BigRational::one(), "seed {seed} {c}");
        }
    }
}

#[test]
fn step1_pushes_back_with_one_quarter_and_step2_refuses_a_mix_with_1_in_256() {
    let mut s = State::default();
    let g = Carried {
        rules: set(&[Rule::Same]),
        origin: Region::Galbadia,
    };
    s.carried = [g, g];
    let c = player(Region::Balamb, Action::Refuse);
    // Refused: only step 1 can change the carried rules.
    let pushed = prob(&s, &c, |n, _| n.carried[0].origin == Region::Balamb);
    assert_eq!(pushed, q(64, 256));
    // Balamb lacks Same, so a mix is offered unless getRandom = 255.
    let mixed = prob(&s, &c, |_, m| {
        m.iter()
            .any(|x| matches!(x, super::simulate::Message::Mix(Region::Galbadia)))
    });
    assert_eq!(mixed, q(255, 256));
}

#[test]
fn step3_adopts_the_queens_rule_with_90_in_256() {
    let mut s = State::default();
    s.queen_trade = Trade::Direct;
    let c = player(Region::Balamb, Action::Refuse);
    let p = prob(&s, &c, |n, _| n.trade[0] == Trade::Direct);
    assert_eq!(p, q(90, 256)); // 35.16 %
}

#[test]
fn step5_queen_chart() {
    let mut s = State::default();
    s.queen = Region::Dollet;
    let c = queen(Region::Dollet, Action::Refuse);
    let cases = [
        (Trade::One, [(Trade::Diff, 220), (Trade::One, 36)]),
        (Trade::All, [(Trade::Direct, 220), (Trade::All, 36)]),
    ];
    for (from, outs) in cases {
        s.queen_trade = from;
        for (to, n) in outs {
            assert_eq!(
                prob(&s, &c, |x, _| x.queen_trade == to),
                q(n, 256),
                "{from} -> {to}"
            );
        }
    }
    s.queen_trade = Trade::Diff;
    assert_eq!(
        prob(&s, &c, |x, _| x.queen_trade == Trade::Direct),
        q(110, 256)
    );
    assert_eq!(
        prob(&s, &c, |x, _| x.queen_trade == Trade::One),
        q(110, 256)
    );
    assert_eq!(
        prob(&s, &c, |x, _| x.queen_trade == Trade::Diff),
        q(36, 256)
    );
    s.queen_trade = Trade::Direct;
    assert_eq!(
        prob(&s, &c, |x, _| x.queen_trade == Trade::All),
        q(110, 256)
    );
    assert_eq!(
        prob(&s, &c, |x, _| x.queen_trade == Trade::Diff),
        q(110, 256)
    );
}

#[test]
fn step8_abolishes_in_a_region_with_all_rules_with_one_quarter() {
    let s = State::default();
    let c = player(Region::Lunar, Action::Quit);
    let any = prob(&s, &c, |n, _| n.rules_of(Region::Lunar) != RuleSet::ALL);
    assert_eq!(any, q(1, 4));
    // Open has two rule ids of eight.
    let open = prob(&s, &c, |n, _| !n.rules_of(Region::Lunar).has(Rule::Open));
    assert_eq!(open, q(1, 16));
    let same = prob(&s, &c, |n, _| !n.rules_of(Region::Lunar).has(Rule::Same));
    assert_eq!(same, q(1, 32));
    // After the abolition both carried sets are the new rules: no mix possible.
    for o in distribution(&s, &c) {
        if o.state.rules_of(Region::Lunar) != RuleSet::ALL {
            assert_eq!(o.state.carried[0].rules, o.state.rules_of(Region::Lunar));
            assert_eq!(o.state.carried[1].rules, o.state.rules_of(Region::Lunar));
        }
    }
}

#[test]
fn step9_spreads_and_abolishes_worked_by_hand() {
    // Balamb has Open; Squall carries Open, Same from Galbadia (twice). Whatever step 1
    // does, step 9 sees rules (2nd) = {Open, Same}; only Same can spread (1 id in 8):
    // P(spread) = 1 - (7/8)^3 = 169/512; otherwise rule3 is Open with 2/7 and is
    // abolished with 1/2: 343/512 * 2/7 * 1/2 = 49/512. A mix happens with 255/256.
    let mut s = State::default();
    let g = Carried {
        rules: set(&[Rule::Open, Rule::Same]),
        origin: Region::Galbadia,
    };
    s.carried = [g, g];
    let c = player(Region::Balamb, Action::Play);
    let spread = prob(&s, &c, |n, _| {
        n.rules_of(Region::Balamb) == set(&[Rule::Open, Rule::Same])
    });
    assert_eq!(spread, q(255, 256) * q(169, 512));
    let abolished = prob(&s, &c, |n, _| n.rules_of(Region::Balamb).is_empty_set());
    assert_eq!(abolished, q(255, 256) * q(49, 512));
}

impl RuleSet {
    fn is_empty_set(self) -> bool {
        self == RuleSet::EMPTY
    }
}

#[test]
fn step10_fires_with_amount_times_9_77_percent_and_points_wrap() {
    // Spread from Balamb, amount 9, challenge there: amount 10 at step 10, which fires
    // when getRandom < 250; points then grow by getRandom/32 (0 with 1/8).
    let mut s = State::default();
    s.amount = 9;
    let c = player(Region::Balamb, Action::Play);
    let grew = prob(&s, &c, |n, _| n.points > 0);
    assert_eq!(grew, q(250, 256) * q(7, 8));
    // Amount 2 elsewhere: 1 at step 10, fires when getRandom < 25.
    s.amount = 2;
    let c = player(Region::Dollet, Action::Play);
    assert_eq!(prob(&s, &c, |n, _| n.points > 0), q(25, 256) * q(7, 8));
    // Points 250: any increase exceeds 250 and resets to 0.
    s.points = 250;
    s.amount = 9;
    let c = player(Region::Balamb, Action::Play);
    assert_eq!(prob(&s, &c, |n, _| n.points == 0), q(250, 256) * q(7, 8));
    // Refusing skips step 10.
    let c = player(Region::Balamb, Action::Refuse);
    assert_eq!(prob(&s, &c, |n, _| n.points == 250), BigRational::one());
}

struct AllHigh;
impl Driver for AllHigh {
    fn random(&mut self, _q: &Query) -> u8 {
        255
    }
}

#[test]
fn the_seeds_trading_example_takes_21_challenges() {
    // Rules spread from A = Dollet, amount 10, challenging in B = Galbadia.
    let mut s = State::default();
    s.spread_from = Region::Dollet;
    s.amount = 10;
    let c = player(Region::Galbadia, Action::Refuse);
    let expect: Vec<(u8, Region)> = (0..10)
        .rev()
        .map(|a| (a, Region::Dollet))
        .chain(std::iter::once((0, Region::Galbadia)))
        .chain((1..=10).map(|a| (a, Region::Galbadia)))
        .collect();
    assert_eq!(expect.len(), 21);
    for (i, (amount, from)) in expect.into_iter().enumerate() {
        challenge(&mut s, &c, &mut AllHigh);
        assert_eq!(
            (s.amount, s.spread_from),
            (amount, from),
            "challenge {}",
            i + 1
        );
    }
}

#[test]
fn queen_speech_bands() {
    let mut s = State::default();
    for (a, band) in [
        (0, "little"),
        (2, "little"),
        (3, "much"),
        (5, "much"),
        (6, "some"),
        (10, "some"),
    ] {
        s.amount = a;
        assert!(s.trading_band().starts_with(band), "{a}");
    }
    s.points = 127;
    assert!(!s.points_speech_towards_one());
    s.points = 128;
    assert!(s.points_speech_towards_one());
}

/// Step 11's chart. The published figures (docs/ff8.md): from Balamb, Dollet 37.5 % and
/// Galbadia 62.5 % (3 and 5 columns of 8); from Dollet, Balamb 37.5 % and Galbadia 62.5 %;
/// from Galbadia, Balamb 12.5 % and Dollet 12.5 % (one column each). Lunar's row lists
/// eight destinations for eight columns. Every row keeps the notes' destinations in the
/// notes' column order, each in one run of columns.
#[test]
fn queen_moves_by_the_published_chart() {
    use Region::*;
    let cols =
        |from: Region| -> Vec<Region> { (0..8).map(|k| queen_destination(from, k)).collect() };
    assert_eq!(
        cols(Balamb),
        [Dollet, Dollet, Dollet, Galbadia, Galbadia, Galbadia, Galbadia, Galbadia]
    );
    assert_eq!(
        cols(Dollet),
        [Balamb, Balamb, Balamb, Galbadia, Galbadia, Galbadia, Galbadia, Galbadia]
    );
    assert_eq!(cols(Galbadia)[..2], [Balamb, Dollet]);
    assert_eq!(
        cols(Lunar),
        [Balamb, Galbadia, Trabia, Dollet, Centra, FH, Lunar, Esthar]
    );
    for from in Region::ALL {
        let mut runs = cols(from);
        runs.dedup();
        assert_eq!(runs, QUEEN_CHART[from.id()], "{from}");
    }
    // Which figures are guesses.
    assert!(!queen_row_guessed(Balamb) && !queen_row_guessed(Dollet) && !queen_row_guessed(Lunar));
    assert!(!queen_figure_guessed(Galbadia, Balamb) && !queen_figure_guessed(Galbadia, Dollet));
    assert!(queen_figure_guessed(Galbadia, FH) && queen_figure_guessed(Galbadia, Centra));
    for from in [Trabia, Centra, FH, Esthar] {
        for &to in QUEEN_CHART[from.id()] {
            assert!(queen_figure_guessed(from, to), "{from} -> {to}");
        }
    }
    // Through the step: from Balamb, play-lv8 moves her to Dollet with 3/8.
    let s = State::default();
    let c = queen(Balamb, Action::PlayMoved);
    assert_eq!(prob(&s, &c, |n, _| n.queen == Dollet), q(3, 8));
    assert_eq!(prob(&s, &c, |n, _| n.queen == Galbadia), q(5, 8));
    // Without a Lv8 change she stays.
    let c = queen(Balamb, Action::Play);
    assert_eq!(prob(&s, &c, |n, _| n.queen == Balamb), BigRational::one());
}

/// The regions a guessed chart figure could be used from, worked by hand on the chart.
#[test]
fn guessed_rows_follow_where_the_queen_can_be() {
    use Region::*;
    let sc = |queen: Region, allowed: Vec<Region>, challenges: Vec<Choice>| {
        let mut state = State::default();
        state.queen = queen;
        Scenario {
            state,
            allowed,
            bound: 1,
            challenges,
            goal: None,
        }
    };
    // Balamb and Dollet only: their rows are published, and she can only reach Galbadia.
    assert!(guessed_rows_in_play(&sc(Balamb, vec![Balamb, Dollet], vec![]), 5).is_empty());
    // With Galbadia allowed too: after one move (to Galbadia) a second can use its row.
    let free = sc(Balamb, vec![Balamb, Galbadia], vec![]);
    assert!(guessed_rows_in_play(&free, 1).is_empty());
    assert_eq!(guessed_rows_in_play(&free, 2), [Galbadia]);
    // Then FH and Centra (guessed rows) are reachable, but not allowed.
    assert_eq!(guessed_rows_in_play(&free, 9), [Galbadia]);
    // A fixed sequence: only its play-lv8 challenges of the Queen move her.
    let fixed = sc(
        Galbadia,
        vec![Galbadia],
        vec![
            queen(Galbadia, Action::Play),
            player(Galbadia, Action::Play),
        ],
    );
    assert!(guessed_rows_in_play(&fixed, 2).is_empty());
    let fixed = sc(
        Galbadia,
        vec![Galbadia],
        vec![queen(Galbadia, Action::PlayMoved)],
    );
    assert_eq!(guessed_rows_in_play(&fixed, 1), [Galbadia]);
    assert!(guessed_rows_in_play(&fixed, 0).is_empty());
}

#[test]
fn engines_agree_through_the_system_trait() {
    let args = super::gen::GenArgs {
        regions: 1,
        bound: 1,
        fixed_percent: 50,
    };
    let budget = Budget::new();
    let mut reach_goal = 0;
    let mut compared = 0;
    let mut states = 0;
    for seed in 0..120 {
        let sc = Ff8::generate(&args, seed);
        let back = Ff8::parse(Path::new("gen.ff8"), &Ff8::to_text(&sc)).expect("round trip");
        assert_eq!(back, sc, "seed {seed}");
        let engines = Ff8::engines();
        let direct = engines[0].solve(&sc, &budget).expect("no cancel");
        // Keep CI fast: large reachable sets (step 10 multiplies states) are left to the
        // ignored fuzz test.
        if direct.states.len() > 200 {
            continue;
        }
        let sat = engines[1].solve(&sc, &budget).expect("no cancel");
        assert_eq!(direct, sat, "seed {seed}:\n{}", Ff8::to_text(&sc));
        compared += 1;
        states += direct.states.len();
        if direct.goal == Some(true) {
            reach_goal += 1;
        }
    }
    assert!(compared >= 50, "only {compared} compared");
    assert!(states > 1000, "only {states} states compared");
    assert!(
        reach_goal > 5,
        "the generator gives reachable goals too ({reach_goal})"
    );
}

/// The first 20 scenarios of `gordian gen --system ff8 --seed 11` (default knobs: up to
/// two regions, two challenges, trading under way in half of them), every one answered
/// by both engines to the end and compared, none skipped: up to millions of reachable
/// states (scenario 12: 8,604,445), compared as unions of products.
#[test]
fn every_generated_scenario_of_a_seed_is_solved_by_both_engines() {
    let args = super::gen::GenArgs::default();
    let budget = Budget::new();
    let (mut states, mut largest, mut goals) = (0u64, 0u64, 0);
    for i in 0..20 {
        let sc = Ff8::generate(&args, crate::harness::fuzz::case_seed(11, i));
        let engines = Ff8::engines();
        let direct = engines[0].solve(&sc, &budget).expect("no limit");
        let sat = engines[1].solve(&sc, &budget).expect("no limit");
        assert_eq!(direct, sat, "scenario {i}:\n{}", Ff8::to_text(&sc));
        states += direct.states.len();
        largest = largest.max(direct.states.len());
        goals += usize::from(direct.goal.is_some());
    }
    eprintln!(
        "ff8 gen --seed 11, scenarios 0 to 19: {states} states compared, at most {largest} in one"
    );
    assert!(
        largest > 1_000_000,
        "the largest answer holds {largest} states"
    );
    assert!(goals >= 5, "{goals} scenarios with a goal");
}

/// Step 10 (trading) live where rules spread from another region than the challenge's:
/// a seeded differential of both engines over several regions, time-boxed. The scenarios
/// come from the generator (up to three allowed regions; even seeds a fixed challenge,
/// odd seeds free choices), then trading is set under way (amount 2..=10, so it is still
/// positive after step 4's decrement) and rules spread from a region other than the
/// (first) challenge's, with another trade rule, so step 10's "trade rule of region rules
/// spread from" differs from the current region's. Carried rules are emptied (no mixing:
/// the rule half of the state stays small, so the SAT side's enumeration does too). The
/// first `ALWAYS` seeds always run, whatever the machine's load; more run until the time
/// box closes. Cases whose direct answer has more than `LARGE` states (about half a second
/// of SAT enumeration) are counted and not compared.
#[test]
fn engines_agree_with_trading_live_over_several_regions() {
    const ALWAYS: u64 = 16;
    const MOST: u64 = 1000;
    const LARGE: u64 = 2000;
    let time_box = std::time::Duration::from_secs(3);
    let start = std::time::Instant::now();
    let budget = Budget::new();
    let (mut compared, mut free, mut states, mut large) = (0u64, 0u64, 0u64, 0u64);
    for seed in 0..MOST {
        if seed >= ALWAYS && start.elapsed() > time_box {
            break;
        }
        let args = super::gen::GenArgs {
            regions: 3,
            bound: 1,
            fixed_percent: if seed % 2 == 0 { 100 } else { 0 },
        };
        let mut sc = Ff8::generate(&args, 26_000 + seed);
        let here = sc.challenges.first().map_or(sc.allowed[0], |c| c.region);
        let there = Region::from_id(here.id() + 1 + (seed as usize % 7));
        sc.state.spread_from = there;
        sc.state.amount = 2 + (seed % 9) as u8;
        if sc.state.trade[there.id()] == sc.state.trade[here.id()] {
            sc.state.trade[there.id()] = Trade::ALL[(sc.state.trade[here.id()].id() + 1) % 4];
        }
        sc.state.carried = [Carried {
            rules: RuleSet::EMPTY,
            origin: here,
        }; 2];
        let engines = Ff8::engines();
        let direct = engines[0].solve(&sc, &budget).expect("no cancel");
        if direct.states.len() > LARGE {
            large += 1;
            continue;
        }
        let sat = engines[1].solve(&sc, &budget).expect("no cancel");
        assert_eq!(direct, sat, "seed {seed}:\n{}", Ff8::to_text(&sc));
        compared += 1;
        free += u64::from(sc.challenges.is_empty());
        states += direct.states.len();
    }
    eprintln!("ff8 trading differential: {compared} compared ({free} free choices, {states} states), {large} over {LARGE} states not compared");
    assert!(
        compared >= ALWAYS / 2 && free >= 2,
        "{compared} compared, {free} free"
    );
    assert!(states > 1000, "only {states} states compared");
}

/// `FF8_FUZZ_CASES=N cargo test --release --lib systems::ff8 -- --ignored`
#[test]
#[ignore]
fn fuzz_engines_agree() {
    let n: u64 = std::env::var("FF8_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let args = super::gen::GenArgs::default();
    // Each case gets 5 s; slower cases are skipped and counted.
    let mut states = 0u64;
    let t = crate::harness::seeded::engines_agree::<Ff8>(
        &args,
        1_000_000..1_000_000 + n,
        Some(std::time::Duration::from_secs(5)),
        |_, _, answers| {
            states += answers[0].states.len();
            false
        },
    );
    let (bad, skipped) = (t.disagreements, t.skipped);
    eprintln!("ff8 fuzz: {n} cases, {bad} disagreements, {skipped} skipped (over 5 s), {states} states compared");
    assert_eq!(bad, 0);
}

/// `.ff8` lines and the one error each gives: (input, line, column, message fragment).
#[rustfmt::skip]
const PARSE_ERRORS: &[Case] = &[
    ("rules Balamb Open", 1, 1, "missing `:`"),
    ("rules Balam: Open", 1, 7, "unknown region `Balam`"),
    ("rules Balamb: Open, Sam", 1, 21, "unknown rule `Sam`"),
    ("rules Balamb: Open, Open", 1, 21, "listed twice"),
    // A blank part is located where it starts (column 20, after the comma at 19), not at
    // the next comma (22).
    ("rules Balamb: Open,  , Same", 1, 20, "unknown rule ``"),
    ("trade Dollet: Half", 1, 15, "unknown trade rule"),
    ("trading: 11", 1, 10, "0..=10"),
    ("points: 251", 1, 9, "0..=250"),
    ("points: 3 4", 1, 11, "unexpected `4`"),
    ("queen: Dollet", 1, 8, "queen: REGION TRADE"),
    ("carried: Open", 1, 10, "RULES from REGION"),
    ("carried: Open from Nowhere", 1, 20, "unknown region"),
    ("challenge: Balamb dance", 1, 19, "unknown action"),
    ("challenge: Balamb play-lv8", 1, 19, "needs `queen`"),
    ("challenge: Dollet queen play", 1, 12, "the Queen is in Balamb"),
    ("goal: Balamb owns Open", 1, 14, "expected `has`"),
    ("goal: queen at Dollet", 1, 7, "queen in REGION"),
    ("colour: red", 1, 1, "unknown key"),
    ("bound: 1\nbound: 2", 2, 1, "given twice"),
    ("bound: 2\nchallenge: Balamb play", 1, 8, "the bound 2 is more than the 1 `challenge:` line(s)"),
    ("# comment\n\n  allow: Balamb, Balamb", 3, 18, "listed twice"),
];

#[test]
fn parse_errors_are_located() {
    error_table(PARSE_ERRORS, |text| parse_ff8(text, Path::new("t.ff8")));
}

#[test]
fn a_written_scenario_reads_back() {
    let text = "rules Dollet: Random, Same Wall\ntrade FH: Diff\ncarried: none from Esthar\n\
                spread-from: FH\ntrading: 7\npoints: 200\nqueen: Dollet All\ncurrent: Dollet\n\
                allow: Dollet, FH\nbound: 2\nchallenge: Dollet queen play-lv8\nchallenge: FH quit\n\
                goal: Dollet has Same Wall & FH trade One & queen in FH\n";
    let sc = parse_ff8(text, Path::new("t.ff8")).unwrap();
    assert_eq!(
        sc.state.rules_of(Region::Dollet),
        set(&[Rule::Random, Rule::SameWall])
    );
    assert_eq!(sc.state.trade[Region::FH.id()], Trade::Diff);
    assert_eq!(sc.challenges.len(), 2);
    assert_eq!(sc.goal.as_ref().map(|g| g.0.len()), Some(3));
    assert_eq!(parse_ff8(&to_text(&sc), Path::new("t.ff8")).unwrap(), sc);
}

proptest::proptest! {
    #[test]
    fn random_input_never_panics(s in "(?s).{0,200}") {
        let _ = parse_ff8(&s, Path::new("p.ff8"));
    }
    #[test]
    fn random_keyed_lines_never_panic(lines in proptest::collection::vec(
        "(rules|trade|carried|queen|goal|challenge|allow|points|trading) ?[A-Za-z]{0,7}: ?[A-Za-z0-9 ,&-]{0,30}", 0..6)) {
        let _ = parse_ff8(&lines.join("\n"), Path::new("p.ff8"));
    }
}

/// A state from raw field values (each reduced into its field's range).
fn raw_state(v: &[u8; 28]) -> State {
    let mut s = State::default();
    for p in 0..8 {
        s.rules[p] = RuleSet(v[p] & 0x7f);
        s.trade[p] = Trade::ALL[usize::from(v[8 + p] & 3)];
    }
    for k in 0..2 {
        s.carried[k] = Carried {
            rules: RuleSet(v[16 + 2 * k] & 0x7f),
            origin: Region::from_id(usize::from(v[17 + 2 * k])),
        };
    }
    s.spread_from = Region::from_id(usize::from(v[20]));
    s.amount = v[21] % 11;
    s.points = v[22] % 251;
    s.queen = Region::from_id(usize::from(v[23]));
    s.queen_trade = Trade::ALL[usize::from(v[24] & 3)];
    s.current = Region::from_id(usize::from(v[25]));
    s
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// States order as the derived order of their fields would (declaration order,
    /// arrays element by element), and their two words are equal exactly when they are.
    #[test]
    fn states_order_field_by_field(
        a in proptest::array::uniform28(proptest::prelude::any::<u8>()),
        b in proptest::array::uniform28(proptest::prelude::any::<u8>()),
        prefix in 0..=28usize,
        same in proptest::array::uniform28(proptest::prelude::any::<bool>()),
    ) {
        // b shares a's first `prefix` values and some others, so every field gets to
        // decide the order.
        let mut mixed = b;
        for i in 0..28 {
            if i < prefix || same[i] {
                mixed[i] = a[i];
            }
        }
        let (x, y) = (raw_state(&a), raw_state(&mixed));
        let fields = |s: &State| {
            (s.rules, s.trade, s.carried, s.spread_from, s.amount, s.points, s.queen,
             s.queen_trade, s.current)
        };
        proptest::prop_assert_eq!(x.cmp(&y), fields(&x).cmp(&fields(&y)));
        proptest::prop_assert_eq!(x == y, x.words() == y.words());
    }
}

#[test]
fn planner_one_challenge_matches_the_distribution() {
    // Goal: Balamb has Same, from Balamb carrying Open, Same (as in the step-9 test): one
    // challenge gives 255/256 * 169/512, and playing is the only way.
    let mut s = State::default();
    let g = Carried {
        rules: set(&[Rule::Open, Rule::Same]),
        origin: Region::Galbadia,
    };
    s.carried = [g, g];
    let sc = Scenario {
        state: s,
        allowed: vec![Region::Balamb],
        bound: 1,
        challenges: vec![],
        goal: Some(Goal(vec![Atom::Has(Region::Balamb, Rule::Same)])),
    };
    let goal = sc.goal.clone().unwrap();
    let p = plan(&sc, &goal, 1, 10, 1000, &Budget::new()).unwrap();
    assert_eq!(p.probability, q(255, 256) * q(169, 512));
    assert_eq!(p.table[0].choice.map(|c| c.action), Some(Action::Play));
    // Two challenges can only do better.
    let p2 = plan(&sc, &goal, 2, 10, 1000, &Budget::new()).unwrap();
    assert!(p2.probability > p.probability);
    assert!(reachable(&sc, &Budget::new()).unwrap().len() > 1);
}

/// The direct engine's search by products of rules and trade parts (with any number of
/// nodes a layer before it goes on state by state) finds the states the plain search
/// state by state finds: generated scenarios of up to three fixed challenges (carried
/// rules emptied, every other one with no trading under way), and free choices over up to
/// three challenges in one or two regions from the start of the game. A case whose answer
/// is large (or whose search by parts passes 200 MB) is counted and not compared.
#[test]
fn the_search_by_parts_finds_what_the_search_by_states_finds() {
    let (mut compared, mut free, mut states, mut large) = (0, 0, 0, 0);
    for seed in 0..160u64 {
        let args = super::gen::GenArgs {
            regions: 1 + (seed / 3 % 2) as usize,
            bound: 1 + (seed % 3) as usize,
            fixed_percent: 100,
        };
        let mut sc = Ff8::generate(&args, 41_000 + seed);
        if seed % 2 == 0 {
            for c in sc.state.carried.iter_mut() {
                c.rules = RuleSet::EMPTY;
            }
            if seed % 4 == 0 {
                sc.state.amount = 0;
            }
        } else {
            sc.state = State::default();
            sc.challenges.clear();
            sc.goal = None;
        }
        let budget = Budget::with_max_memory(200 << 20);
        let by_parts = match super::search::reachable_nodes(&sc, &budget, 256) {
            Ok(s) if s.len() <= 5000 => s,
            _ => {
                large += 1;
                continue;
            }
        };
        let budget = Budget::new();
        let by_states = super::search::reachable_state_by_state(&sc, &budget).expect("no cancel");
        assert_eq!(
            by_parts.sorted(),
            by_states,
            "seed {seed}:\n{}",
            Ff8::to_text(&sc)
        );
        // Two nodes a layer at most: the search goes on state by state mid-way.
        let mixed = super::search::reachable_nodes(&sc, &budget, 2).expect("no cancel");
        assert_eq!(
            mixed.sorted(),
            by_states,
            "seed {seed} (2 nodes):\n{}",
            Ff8::to_text(&sc)
        );
        compared += 1;
        free += usize::from(sc.challenges.is_empty() && sc.horizon() > 1);
        states += by_states.len();
    }
    eprintln!("ff8 search by parts: {compared} compared ({free} free over 2+ challenges, {states} states), {large} large");
    assert!(
        compared >= 100 && free >= 20,
        "{compared} compared, {free} free, {large} large"
    );
    assert!(states > 20_000, "only {states} states");
}
