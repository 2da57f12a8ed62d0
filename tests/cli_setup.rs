//! `gordian setup analyse` through the binary: the shipped setups' hand-worked numbers,
//! every count against an independent enumeration of the nights solved one by one
//! through the library (with and without the symmetry reduction, and split into shards
//! joined by `gordian merge`), sampling, and located errors.

mod common;

use common::TempDir;
use gordian::ar::{self, Classification};
use gordian::Limits;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn gordian(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn report(args: &[&str]) -> Value {
    let (code, out, err) = gordian(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("JSON")
}

fn shipped(name: &str) -> String {
    format!("instances/setup/{name}")
}

/// The shares and counts of the three classes.
fn classes(r: &Value) -> [u64; 3] {
    ["paradox", "quasi_paradox", "non_paradox"].map(|c| r["classes"][c]["nights"].as_u64().unwrap())
}

fn player_chance(r: &Value, who: &str) -> f64 {
    r["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == who)
        .unwrap_or_else(|| panic!("no player {who}"))["death_chance"]
        .as_f64()
        .unwrap()
}

fn action_fail(r: &Value, action: &str) -> (u64, f64) {
    let a = r["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"] == action)
        .unwrap_or_else(|| panic!("no action {action}: {r}"));
    (
        a["taken_in"].as_u64().unwrap(),
        a["fail_chance"].as_f64().unwrap(),
    )
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The numbers worked by hand in each shipped setup's comments.
#[test]
fn the_shipped_setups_give_their_hand_worked_numbers() {
    // vanilla-7: 2 x 5 nights, each one death, each town player dies in 2 of 10, one
    // distinct night up to names.
    let r = report(&["setup", "analyse", &shipped("vanilla-7.setup"), "--json"]);
    assert_eq!(r["nights"], 10);
    assert_eq!(r["distinct_nights_solved"], 1);
    assert_eq!(classes(&r), [0, 0, 10]);
    assert!(near(r["expected_deaths"]["mean"].as_f64().unwrap(), 1.0));
    for t in ["T1", "T2", "T3", "T4", "T5"] {
        assert!(near(player_chance(&r, t), 0.2));
    }
    assert!(near(player_chance(&r, "G1"), 0.0));

    // roleblocker-doctor: 5 targets x 2 performers x 6 doctor targets x 5 blocks = 300;
    // the kill fails iff the doctor protects its target (4 town players it may protect)
    // and is not blocked (4 of 5 blocks): 4 x 2 x 1 x 4 = 32 nights.
    let r = report(&[
        "setup",
        "analyse",
        &shipped("roleblocker-doctor.setup"),
        "--json",
    ]);
    assert_eq!(r["nights"], 300);
    assert_eq!(classes(&r), [0, 0, 300]);
    assert!(near(
        r["expected_deaths"]["mean"].as_f64().unwrap(),
        1.0 - 32.0 / 300.0
    ));
    assert_eq!(action_fail(&r, "mafia kill (faction)"), (300, 32.0 / 300.0));
    let (n, f) = action_fail(&r, "town doctor");
    assert!(
        n == 300 && near(f, 0.2),
        "the doctor is blocked in 1 of 5 nights"
    );
    assert!(
        near(player_chance(&r, "Doc"), 0.2),
        "the doctor cannot protect itself"
    );
    assert!(near(player_chance(&r, "T1"), 0.2 * (1.0 - 4.0 / 30.0)));
    assert!(near(player_chance(&r, "RB"), 0.0));

    // blocker-loop: 4^4 = 256 nights; the two odd circles R1 -> R2 -> J -> R1 and
    // R1 -> J -> R2 -> R1, with any of 4 kills, are paradoxes (8); a 2-circle among R1,
    // R2, J with the third blocker aimed at G or T keeps two resolutions: 3 x 2 x 4 = 24.
    let r = report(&["setup", "analyse", &shipped("blocker-loop.setup"), "--json"]);
    assert_eq!(r["nights"], 256);
    assert_eq!(classes(&r), [8, 24, 224]);
    let causes = r["paradox_causes"].as_array().unwrap();
    assert_eq!(causes.len(), 1, "{r}");
    assert_eq!(
        causes[0]["roles"],
        "town jailkeeper + town roleblocker + town roleblocker"
    );
    assert_eq!(causes[0]["nights"], 8);
    // The example is a paradox night as `resolve` reads it.
    let night = ar::Night::parse(causes[0]["example"].as_str().unwrap()).expect("a night");
    let a = ar::solve(&night, &Limits::default()).expect("solved");
    assert_eq!(a.classification(), Classification::Paradox);
}

/// A target rule of the subset the independent enumeration below reads.
fn allowed(
    rule: &str,
    players: &[String],
    align: &BTreeMap<String, String>,
    who: &str,
    side: &str,
) -> Vec<String> {
    players
        .iter()
        .filter(|p| match rule {
            "any" => true,
            "other" => *p != who,
            "outside" => align.get(*p).map(String::as_str) != Some(side),
            "inside" => *p != who && align.get(*p).map(String::as_str) == Some(side),
            name => *p == name,
        })
        .cloned()
        .collect()
}

/// Every night of a setup written with one-target choices only (`P KIND: RULE
/// [optional]`, `faction F KIND: RULE [optional]`, one rule word), as `.night` texts:
/// written from the format's description, independently of gordian's reader.
fn nights_of(setup: &str) -> Vec<String> {
    let mut fixed = Vec::new();
    let mut players: Vec<String> = Vec::new();
    let mut align = BTreeMap::new();
    // Each choice: its options as effect lines ("" for not acting).
    let mut choices: Vec<Vec<String>> = Vec::new();
    for line in setup.lines() {
        let code = line.split('#').next().unwrap().trim();
        let w: Vec<&str> = code.split_whitespace().collect();
        if w.is_empty() {
            continue;
        }
        if w[0] == "players:" {
            players = w[1..].iter().map(|s| s.to_string()).collect();
            fixed.push(code.to_string());
        } else if w[0] == "alignment:" {
            for a in &w[1..] {
                let (p, s) = a.split_once('=').unwrap();
                align.insert(p.to_string(), s.to_string());
            }
            fixed.push(code.to_string());
        } else if w[0] == "faction" && w[2].ends_with(':') {
            let (side, kind) = (w[1], w[2].trim_end_matches(':'));
            let mut opts: Vec<String> = Vec::new();
            if w[3..].contains(&"optional") {
                opts.push(String::new());
            }
            for m in players
                .iter()
                .filter(|p| align.get(*p).map(String::as_str) == Some(side))
            {
                for t in allowed(w[3], &players, &align, m, side) {
                    opts.push(format!("{m} {kind} {t}"));
                }
            }
            choices.push(opts);
        } else if w.len() > 1 && w[1].ends_with(':') {
            let (who, kind) = (w[0], w[1].trim_end_matches(':'));
            let side = align.get(who).cloned().unwrap_or_default();
            let mut opts: Vec<String> = Vec::new();
            if w[2..].contains(&"optional") {
                opts.push(String::new());
            }
            for t in allowed(w[2], &players, &align, who, &side) {
                opts.push(format!("{who} {kind} {t}"));
            }
            choices.push(opts);
        } else {
            fixed.push(code.to_string());
        }
    }
    let mut out = vec![fixed.join("\n")];
    for opts in choices {
        out = out
            .iter()
            .flat_map(|n| opts.iter().map(move |o| format!("{n}\n{o}")))
            .collect();
    }
    out
}

/// What the independent enumeration finds: class counts, expected deaths and each
/// player's chance of dying, exact.
struct Brute {
    nights: u64,
    classes: [u64; 3],
    deaths: BigRational,
    dies: BTreeMap<String, BigRational>,
}

fn brute(setup: &str) -> Brute {
    let mut b = Brute {
        nights: 0,
        classes: [0; 3],
        deaths: BigRational::zero(),
        dies: BTreeMap::new(),
    };
    for text in nights_of(setup) {
        let night = ar::Night::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let a = ar::solve(&night, &Limits::default()).expect("solved");
        b.nights += 1;
        b.classes[match a.classification() {
            Classification::Paradox => 0,
            Classification::QuasiParadox => 1,
            Classification::NonParadox => 2,
        }] += 1;
        for (who, p) in a.death_probabilities() {
            b.deaths += p.clone();
            *b.dies.entry(who).or_insert_with(BigRational::zero) += p;
        }
    }
    b
}

fn agrees(r: &Value, b: &Brute, what: &str) {
    assert_eq!(r["nights"], b.nights, "{what}");
    assert_eq!(classes(r), b.classes, "{what}");
    let n = b.nights as f64;
    let deaths = b.deaths.to_f64().unwrap() / n;
    assert!(
        near(r["expected_deaths"]["mean"].as_f64().unwrap(), deaths),
        "{what}"
    );
    for p in r["players"].as_array().unwrap() {
        let name = p["player"].as_str().unwrap();
        let want = b.dies.get(name).map_or(0.0, |x| x.to_f64().unwrap() / n);
        assert!(
            near(p["death_chance"].as_f64().unwrap(), want),
            "{what}: {name}"
        );
    }
}

/// Setups only the tests use, with more symmetric players (two doctors, three
/// roleblockers) and optional actions.
const MORE: &[(&str, &str)] = &[
    (
        "two-doctors.setup",
        "players: G1 G2 D1 D2 T1 T2\n\
         alignment: G1=mafia G2=mafia D1=town D2=town T1=town T2=town\n\
         faction mafia kill: outside\n\
         D1 doctor: other\n\
         D2 doctor: other\n",
    ),
    (
        "three-blockers.setup",
        "players: B1 B2 B3 G T\n\
         alignment: B1=town B2=town B3=town G=mafia T=town\n\
         faction mafia kill: outside optional\n\
         B1 roleblocker: other optional\n\
         B2 roleblocker: other optional\n\
         B3 roleblocker: other optional\n\
         T passive bulletproof\n",
    ),
    (
        "bomb-and-bodyguard.setup",
        "players: G1 G2 B Bg T1 T2\n\
         alignment: G1=mafia G2=mafia B=town Bg=town T1=town T2=town\n\
         faction mafia kill: outside\n\
         Bg bodyguard: other\n\
         G2 roleblocker: outside optional\n\
         B bomb\n",
    ),
];

/// Every count equals the independent enumeration, with and without the symmetry
/// reduction, and split into three shards joined by `gordian merge`.
#[test]
fn every_count_equals_an_enumeration_of_the_nights_through_resolve() {
    let d = TempDir::new("setup-brute");
    let mut files: Vec<PathBuf> = [
        "vanilla-7.setup",
        "roleblocker-doctor.setup",
        "blocker-loop.setup",
    ]
    .iter()
    .map(|n| Path::new(env!("CARGO_MANIFEST_DIR")).join(shipped(n)))
    .collect();
    for (name, text) in MORE {
        files.push(d.write(name, text));
    }
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let b = brute(&text);
        let path = f.to_str().unwrap();
        let sym = report(&["setup", "analyse", path, "--json"]);
        agrees(&sym, &b, &format!("{path} (symmetric nights once)"));
        let all = report(&["setup", "analyse", path, "--json", "--no-symmetry"]);
        agrees(&all, &b, &format!("{path} (every night)"));
        assert_eq!(all["distinct_nights_solved"], b.nights);
        assert!(sym["distinct_nights_solved"].as_u64() <= all["distinct_nights_solved"].as_u64());
        let mut parts = Vec::new();
        for k in 1..=3 {
            let out = d.write(&format!("part-{k}.json"), "");
            let shard = format!("{k}/3");
            let r = report(&["setup", "analyse", path, "--json", "--shard", &shard]);
            std::fs::write(&out, r.to_string()).unwrap();
            parts.push(out);
        }
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(|p| p.to_str().unwrap()));
        let merged = report(&args);
        agrees(&merged, &b, &format!("{path} (three shards, merged)"));
        assert_eq!(merged["paradox_causes"], sym["paradox_causes"], "{path}");
    }
}

/// The symmetry reduction solves fewer nights where players are interchangeable.
#[test]
fn interchangeable_players_are_solved_once() {
    let r = report(&[
        "setup",
        "analyse",
        &shipped("roleblocker-doctor.setup"),
        "--json",
    ]);
    // Four vanilla townsfolk: the 300 nights fall into far fewer up to their names.
    assert!(r["distinct_nights_solved"].as_u64().unwrap() < 100, "{r}");
    assert_eq!(r["cross_checked"], r["distinct_nights_solved"]);
}

/// Past --exact-limit the nights are sampled: every rate gets an interval that holds the
/// exact rate here (with this seed), and the same seed draws the same nights.
#[test]
fn sampling_gives_intervals_around_the_exact_rates() {
    let f = shipped("blocker-loop.setup");
    let exact = report(&["setup", "analyse", &f, "--json"]);
    let args = [
        "setup",
        "analyse",
        &f,
        "--json",
        "--exact-limit",
        "10",
        "--samples",
        "4000",
        "--seed",
        "3",
    ];
    let s = report(&args);
    assert_eq!(s["mode"], "sampled");
    assert_eq!(s["nights"], 4000);
    for c in ["paradox", "quasi_paradox", "non_paradox"] {
        let ci = s["classes"][c]["ci95"].as_array().unwrap();
        let want = exact["classes"][c]["share"].as_f64().unwrap();
        assert!(
            ci[0].as_f64().unwrap() <= want && want <= ci[1].as_f64().unwrap(),
            "{c}: {ci:?} {want}"
        );
    }
    let ci = s["expected_deaths"]["ci95"].as_array().unwrap();
    let want = exact["expected_deaths"]["mean"].as_f64().unwrap();
    assert!(ci[0].as_f64().unwrap() <= want && want <= ci[1].as_f64().unwrap());
    assert_eq!(
        report(&args)["tally"],
        s["tally"],
        "the same seed draws the same nights"
    );
    let (_, text, _) = gordian(&[
        "setup",
        "analyse",
        &f,
        "--exact-limit",
        "10",
        "--samples",
        "500",
    ]);
    assert!(
        text.contains("500 sampled uniformly (seed 0); rates with 95% confidence intervals"),
        "{text}"
    );
}

/// Bad setups: a located error (file, line, column) and exit 2.
#[test]
fn bad_setups_get_located_errors() {
    let d = TempDir::new("setup-errors");
    let head = "players: A B C\nalignment: A=mafia B=town C=town\n";
    let cases: &[(&str, &str, &str)] = &[
        ("A doktor: other\n", ":3:3", "unknown kind or role `doktor`"),
        ("Z doctor: other\n", ":3:1", "unknown player `Z`"),
        ("A bomb: other\n", ":3:3", "`bomb` is a passive role"),
        ("A doctor:\n", ":3:", "missing targets after `doctor:`"),
        (
            "A doctor: D\n",
            ":3:11",
            "`D` is neither a player nor a target rule",
        ),
        (
            "A commuter: other\n",
            ":3:13",
            "`commuter` takes no targets",
        ),
        (
            "A doctor: inside\n",
            ":3:11",
            "no player fits these targets",
        ),
        (
            "faction wolves kill: outside\n",
            ":3:9",
            "no player has the alignment `wolves`",
        ),
        ("A kill B C D\n", ":3:", "`kill` takes exactly 1 target"),
    ];
    for (i, (line, at, msg)) in cases.iter().enumerate() {
        let f = d.write(&format!("bad-{i}.setup"), format!("{head}{line}"));
        let (code, _, err) = gordian(&["setup", "analyse", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{line}: {err}");
        assert!(err.contains(msg), "{line}: {err}");
        assert!(err.contains(&format!("bad-{i}.setup{at}")), "{line}: {err}");
    }
    let f = d.write("no-players.setup", "A doctor: other\n");
    let (code, _, err) = gordian(&["setup", "analyse", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("a setup needs a `players:` line"), "{err}");
    let (code, _, err) = gordian(&["setup", "analyse", "no/such.setup"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such.setup"), "{err}");
}

/// The JSON form reads as the line form does: the same report for the same setup, and
/// errors located at the choice they are about.
#[test]
fn a_json_setup_reads_as_its_line_form() {
    let d = TempDir::new("setup-json");
    let json = d.write(
        "rb.json",
        r#"{"players": ["RB", "G", "Doc", "T1", "T2", "T3", "T4"],
 "alignment": {"RB": "mafia", "G": "mafia", "Doc": "town", "T1": "town", "T2": "town",
               "T3": "town", "T4": "town"},
 "choices": [
   {"faction": "mafia", "kind": "kill", "targets": "outside"},
   {"actor": "RB", "kind": "roleblocker", "targets": ["outside"]},
   {"actor": "Doc", "kind": "doctor", "targets": "other"}
 ]}
"#,
    );
    let from_json = report(&["setup", "analyse", json.to_str().unwrap(), "--json"]);
    let from_text = report(&[
        "setup",
        "analyse",
        &shipped("roleblocker-doctor.setup"),
        "--json",
    ]);
    for k in [
        "nights",
        "classes",
        "expected_deaths",
        "players",
        "roles",
        "actions",
    ] {
        assert_eq!(from_json[k], from_text[k], "{k}");
    }
    // Fixed effects in the night's JSON form, and an optional choice.
    let bomb = d.write(
        "bomb.json",
        r#"{"players": ["G", "B", "T"], "alignment": {"G": "mafia", "B": "town", "T": "town"},
 "effects": [{"actor": "B", "kind": "bomb"}],
 "choices": [{"faction": "mafia", "kind": "kill", "targets": "outside", "optional": true}]}
"#,
    );
    let r = report(&["setup", "analyse", bomb.to_str().unwrap(), "--json"]);
    // No kill, kill B (the bomb kills G back), kill T: 3 nights, 2 deaths when B is hit.
    assert_eq!(r["nights"], 3);
    assert!(near(r["expected_deaths"]["mean"].as_f64().unwrap(), 1.0));
    assert!(near(player_chance(&r, "G"), 1.0 / 3.0));
    let roles: Vec<&str> = r["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["role"].as_str().unwrap())
        .collect();
    assert!(roles.contains(&"town bomb"), "{roles:?}");
    let bad = d.write(
        "bad.json",
        r#"{"players": ["A", "B"],
 "alignment": {"A": "mafia", "B": "town"},
 "choices": [
   {"actor": "A", "kind": "doktor", "targets": "other"},
   {"actor": "A", "kind": "kill", "target": "other"},
   {"kind": "kill", "targets": "other"}
 ]}
"#,
    );
    let (code, _, err) = gordian(&["setup", "analyse", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    for (at, msg) in [
        ("bad.json:4:4", "unknown kind or role `doktor`"),
        ("bad.json:5:4", "unknown field `target`"),
        ("bad.json:6:4", "either an `actor` or a `faction`"),
    ] {
        assert!(err.contains(at) && err.contains(msg), "{at} {msg}: {err}");
    }
}

/// The shipped nine-player setup with five power roles allows more nights than the
/// default --exact-limit, so it is sampled, and says so.
#[test]
fn a_large_setup_is_sampled_by_default() {
    let r = report(&[
        "setup",
        "analyse",
        &shipped("nine-five-power.setup"),
        "--json",
        "--samples",
        "2000",
    ]);
    // 14 kills x 7 blocks x 8 protections x 8 investigations x 36 swaps x 8 jailings.
    assert_eq!(
        r["nights_in_setup"],
        (14u64 * 7 * 8 * 8 * 36 * 8).to_string()
    );
    assert_eq!(r["mode"], "sampled");
    assert_eq!(r["nights"], 2000);
    assert_eq!(r["cross_checked"], r["distinct_nights_solved"]);
    assert!(
        r["classes"]["paradox"]["nights"].as_u64().unwrap() > 0,
        "the bus driver can loop"
    );
}
