//! `gordian resolve` as a user meets it: located errors with exit code 2, the stable JSON
//! fields of the contract, exact probabilities, and a reproducible pick.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

mod common;

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("gordian runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gordian-cli-resolve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn a_malformed_night_gives_a_located_error_and_exit_2() {
    let p = temp_file("bad.night", "R1 block R2\nR2 blok R1\n");
    let out = gordian(&["resolve", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: unknown kind `blok`"), "{err}");
    assert!(
        err.contains("bad.night:2:4\n"),
        "file:line:col of `blok`: {err}"
    );
    assert!(
        err.contains("R2 blok R1"),
        "the offending line is shown: {err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_file_is_an_input_error() {
    let out = gordian(&["resolve", "/nonexistent/night.night"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/night.night"));
}

#[test]
fn json_has_the_contracts_stable_fields() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = gordian(&[
        "resolve",
        &format!("{root}/instances/ar/odd-block-cycle.night"),
        "--json",
        "--seed",
        "7",
    ]);
    assert!(out.status.success());
    let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["classification"], "paradox");
    assert_eq!(j["resolutions"], Value::Array(vec![]));
    assert_eq!(
        j["effects"][0],
        serde_json::json!({"id": "e1", "actor": "R1", "kind": "block", "targets": ["R2"], "priority": 2})
    );
    assert_eq!(
        j["cuts"]["cost"],
        serde_json::json!([{"priority": 2, "count": 1}])
    );
    let outcomes = j["outcomes"].as_array().expect("outcomes");
    assert_eq!(outcomes.len(), 3);
    // The contract's worked example: after cutting e3 the only resolution is S = {e1}.
    let e3 = outcomes
        .iter()
        .find(|o| o["cut"] == serde_json::json!(["e3"]))
        .expect("the cut {e3}");
    assert_eq!(e3["probability"], "1/3");
    assert_eq!(e3["succeeded"], serde_json::json!(["e1"]));
    assert_eq!(
        e3["final_targets"],
        serde_json::json!({"e1": ["R2"], "e2": ["R3"]})
    );
    assert_eq!(j["cross_checked"], true);
    assert!(j["pick"]["cut"].is_array(), "--seed makes a pick");
}

#[test]
fn the_pick_is_reproducible_for_a_seed() {
    let root = env!("CARGO_MANIFEST_DIR");
    let file = format!("{root}/instances/ar/rolestoppers.night");
    let pick = |seed: &str| {
        let out = gordian(&["resolve", &file, "--json", "--seed", seed]);
        let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        j["pick"].clone()
    };
    assert_eq!(pick("11"), pick("11"));
    let distinct: std::collections::BTreeSet<String> = (0..16)
        .map(|s| pick(&s.to_string())["succeeded"].to_string())
        .collect();
    assert_eq!(distinct.len(), 2, "both optimal resolutions are reachable");
}

#[test]
fn dimacs_prints_a_well_formed_cnf() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = gordian(&[
        "dimacs",
        &format!("{root}/instances/ar/odd-block-cycle.night"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut lines = text.lines().filter(|l| !l.starts_with('c'));
    let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
    assert_eq!(&header[..2], ["p", "cnf"]);
    let vars: i64 = header[2].parse().expect("variable count");
    let clauses: usize = header[3].parse().expect("clause count");
    let body: Vec<&str> = lines.collect();
    assert_eq!(body.len(), clauses);
    for c in body {
        let lits: Vec<i64> = c
            .split_whitespace()
            .map(|x| x.parse().expect("literal"))
            .collect();
        assert_eq!(lits.last(), Some(&0), "clauses end with 0");
        assert!(lits.iter().all(|l| l.abs() <= vars));
    }
    // Three declared effects, each with a cut and a success variable, at least.
    assert!(vars >= 6);
}

/// A full disk on standard output is a message and exit 1, never a panic (every command
/// that prints writes through the same guard).
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let night = temp_file("full.night", "R1 block R2\nR2 block R1\n");
    for args in [
        vec!["resolve", night.to_str().unwrap()],
        vec!["dimacs", night.to_str().unwrap()],
        vec!["check", night.to_str().unwrap()],
        vec!["completions", "bash"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full exists on Linux");
        let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(&args)
            .stdout(full)
            .output()
            .expect("gordian runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("error: cannot write to standard output") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

fn resolve_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .arg("resolve")
        .args(args)
        .arg("--json")
        .output()
        .expect("gordian runs");
    let v = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    (out.status.code(), v)
}

#[test]
fn independent_components_are_answered_in_factorised_form() {
    // The counts are worked by hand in the instance's header.
    let root = env!("CARGO_MANIFEST_DIR");
    let file = format!("{root}/instances/ar/independent-components.night");
    let (code, j) = resolve_json(&[&file, "--expand=never"]);
    assert_eq!(code, Some(0));
    assert_eq!(j["expanded"], false);
    assert!(j.get("resolutions").is_none() && j.get("outcomes").is_none());
    let t = &j["totals"];
    assert_eq!(
        (&t["components"], &t["paradox_components"]),
        (&serde_json::json!(3), &serde_json::json!(1))
    );
    assert_eq!(t["resolutions"], "0");
    assert_eq!(t["optimal_cuts"], "3");
    assert_eq!(t["outcomes"], "6");
    assert_eq!(
        j["death_chances"],
        serde_json::json!([{"player": "V", "probability": "1"}])
    );
    let comps = j["components"].as_array().expect("components");
    assert_eq!(comps[0]["effects"], serde_json::json!(["e1", "e2"]));
    assert_eq!(comps[0]["classification"], "quasi-paradox");
    assert_eq!(comps[0]["resolutions"].as_array().map(Vec::len), Some(2));
    assert_eq!(comps[2]["classification"], "paradox");
    assert_eq!(
        comps[2]["cut_cost"],
        serde_json::json!([{"priority": 2, "count": 1}, {"priority": 4, "count": 0}, {"priority": 5, "count": 0}])
    );

    // Small enough to be expanded by default: the contract's flat fields.
    let (code, j) = resolve_json(&[&file]);
    assert_eq!(code, Some(0));
    assert_eq!(j["expanded"], true);
    assert_eq!(j["outcomes"].as_array().map(Vec::len), Some(6));
    assert!(j["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o["probability"] == "1/6" && o["deaths"] == serde_json::json!(["V"])));

    // --limit bounds each flat list, says so and exits 5; totals stay exact.
    let (code, j) = resolve_json(&[&file, "--expand", "--limit", "1"]);
    assert_eq!(code, Some(5));
    assert_eq!(j["truncated"], true);
    assert_eq!(j["outcomes"].as_array().map(Vec::len), Some(1));
    assert_eq!(j["cuts"]["optimal"].as_array().map(Vec::len), Some(1));
    assert_eq!(j["totals"]["outcomes"], "6");

    // And each component's own lists when the flat ones are not written: each list is
    // the first item of the unlimited one; the counts and the death probabilities (of
    // every outcome) stay exact.
    let (_, full) = resolve_json(&[&file, "--expand=never"]);
    let (code, j) = resolve_json(&[&file, "--expand=never", "--limit", "1"]);
    assert_eq!(code, Some(5));
    assert_eq!(j["truncated"], true);
    assert_eq!(j["totals"], full["totals"]);
    let (comps, whole) = (
        j["components"].as_array().unwrap(),
        full["components"].as_array().unwrap(),
    );
    // The quasi-paradox's 2 resolutions, the paradox's 3 optimal cuts: one of each.
    assert_eq!(comps[0]["resolutions"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        comps[2]["cuts"]["optimal"].as_array().map(Vec::len),
        Some(1)
    );
    for (c, w) in comps.iter().zip(whole) {
        assert_eq!(c["totals"], w["totals"]);
        assert_eq!(c["death_probabilities"], w["death_probabilities"]);
        for list in ["resolutions", "outcomes"] {
            let (a, b) = (c[list].as_array().unwrap(), w[list].as_array().unwrap());
            assert_eq!(a.len(), b.len().min(1), "{list}");
            assert_eq!(a[..], b[..a.len()], "{list}");
        }
        if let (Some(a), Some(b)) = (
            c["cuts"]["optimal"].as_array(),
            w["cuts"]["optimal"].as_array(),
        ) {
            assert_eq!(a[0]["cut"], b[0]["cut"]);
            assert_eq!(
                a[0]["resolutions"].as_array().unwrap()[..],
                b[0]["resolutions"].as_array().unwrap()[..1]
            );
        }
    }
    // Without a limit the lists are whole and nothing is cut short.
    assert_eq!(full["truncated"], false);

    // `--expand` takes its value only with `=`: a night named right after it is the night.
    let (code, j) = resolve_json(&["--expand", &file]);
    assert_eq!(code, Some(0));
    assert_eq!(j["expanded"], true);
    assert_eq!(j["totals"]["optimal_cuts"], "3");
}

#[test]
fn many_independent_pairs_are_counted_not_listed() {
    // 20 disjoint mutual roleblocks: 2^20 resolutions, each pair a choice of 2.
    let text: String = (0..20)
        .map(|i| format!("A{i} block B{i}\nB{i} block A{i}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("gordian-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pairs.night");
    std::fs::write(&file, text).unwrap();
    let (code, j) = resolve_json(&[file.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert_eq!(j["classification"], "quasi-paradox");
    assert_eq!(j["expanded"], false);
    assert_eq!(j["totals"]["resolutions"], (1u64 << 20).to_string());
    assert_eq!(j["totals"]["outcomes"], (1u64 << 20).to_string());
    assert_eq!(j["components"].as_array().map(Vec::len), Some(20));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--explain`, `--certify DIR`, `--dot FILE` and `--svg FILE` on the odd block cycle:
/// the core is the three blocks (each blocks the next), the two proofs check and are
/// written, the DOT is one digraph; `--svg` renders with Graphviz or says it is missing.
#[test]
fn why_flags_on_the_odd_block_cycle() {
    let night = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/instances/ar/odd-block-cycle.night"
    );
    let dir = std::env::temp_dir().join(format!("gordian-cli-why-{}", std::process::id()));
    let dot = dir.join("night.dot");
    let out = gordian(&[
        "resolve",
        night,
        "--explain",
        "--certify",
        dir.join("cert").to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("paradox: no resolution; the cheapest Gordian cut cuts one priority-2 effect (3 such cuts)"), "{text}");
    assert!(
        text.contains("these 3 effects alone are already a paradox"),
        "{text}"
    );
    assert!(text.contains("an odd cycle of 3 effects"), "{text}");
    assert!(
        text.contains("certified: the night has no resolution (proof checked"),
        "{text}"
    );
    for f in ["no-resolution", "no-cheaper-cut-at-2"] {
        for ext in ["cnf", "varisat", "drat"] {
            assert!(
                dir.join("cert").join(format!("{f}.{ext}")).is_file(),
                "{f}.{ext}"
            );
        }
    }
    let d = std::fs::read_to_string(&dot).expect("DOT written");
    assert!(d.starts_with("digraph night {") && d.contains("CUT"), "{d}");
    let svg = dir.join("night.svg");
    let out = gordian(&["resolve", night, "--svg", svg.to_str().unwrap()]);
    if out.status.success() {
        assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("`dot` is not installed"), "{err}");
    }
    let json = gordian(&["resolve", night, "--json", "--explain"]);
    let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(v["core"]["effects"], serde_json::json!(["e1", "e2", "e3"]));
    assert_eq!(v["explain"].as_array().map(Vec::len), Some(3));
}

/// `--results` on the shipped tracker / watcher / cop night (its derivation is in the
/// file): the text block after the outcome, the same with `--explain` inside the
/// outcome's explanation, and the `results` field of `--json`.
#[test]
fn results_say_what_each_player_learns() {
    let night = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/instances/ar/results-tracker-watcher-cop.night"
    );
    let out = gordian(&["resolve", night, "--results"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    // By hand (the file's comments): Doc's protect is blocked by R, so Goon's kill
    // succeeds; T sees Goon visit Cop; W sees Goon at Cop (Doc's protect never left);
    // Cop learns Goon is mafia and dies.
    let block = "results:\n  outcome 1 (probability 1):\n    what each player learns:\n\
                 \x20     Cop: investigated Goon: mafia  [e5]\n\
                 \x20          was killed  [e1]\n\
                 \x20     Doc: was blocked: protect Cop [e2] failed  [e6]\n\
                 \x20     T: tracked Goon: Goon visited Cop  [e1]\n\
                 \x20     W: watched Cop: Cop was visited by Goon  [e1, e6]\n";
    assert!(text.contains(block), "{text}");
    let out = gordian(&["resolve", night, "--results", "--explain"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "    R block Doc [e6] succeeds: nothing that succeeds stops it\n\
             \x20   what each player learns:\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "      W: watched Cop: Cop was visited by Goon  [e1, e6]\n\
             \x20          from Goon kill Cop [e1]; R block Doc [e6]\n"
        ),
        "{text}"
    );
    let json = gordian(&["resolve", night, "--json", "--results"]);
    assert_eq!(json.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let r = &v["results"];
    assert_eq!(r.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(r[0]["probability"], "1");
    assert_eq!(
        r[0]["players"]["T"],
        serde_json::json!([{"kind": "track", "effect": "e3", "target": "Goon",
                            "saw": ["Cop"], "by": ["e1"],
                            "text": "tracked Goon: Goon visited Cop"}])
    );
    assert_eq!(r[0]["players"]["W"][0]["saw"], serde_json::json!(["Goon"]));
    assert_eq!(
        r[0]["players"]["Cop"][0]["saw"],
        serde_json::json!(["mafia"])
    );
    assert_eq!(r[0]["players"]["Cop"][1]["kind"], "killed");
    assert_eq!(r[0]["players"]["Doc"][0]["by"], serde_json::json!(["e6"]));
    let keys: Vec<&String> = r[0]["players"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4, "Goon and R learn nothing: {keys:?}");
    // A picture on standard output replaces the report: not with --results.
    let out = gordian(&["resolve", night, "--dot", "-", "--results"]);
    assert_eq!(out.status.code(), Some(2));
}

/// What each player learns follows the final targets a swap and a redirect give (the
/// hand derivation is in the night's comments): Red steers RB's block on Cop to A and
/// BD's swap of A and B moves it on to B, so B is blocked and Cop is not; Cop's
/// investigation and W's watch of A land on B; T sees RB visit B; W sees the swap, the
/// redirect (its second target swapped to B), the block and the investigation at B.
#[test]
fn results_follow_a_swap_and_a_redirect() {
    let night = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/instances/ar/results-swap-redirect.night"
    );
    let block = "results:\n  outcome 1 (probability 1):\n    what each player learns:\n\
                 \x20     Cop: investigated B: mafia  [e4]\n\
                 \x20     T: tracked RB: RB visited B  [e3]\n\
                 \x20     W: watched B: B was visited by BD, Cop, RB, Red  [e1, e2, e3, e4]\n\
                 \x20     B: was blocked: kill Cop [e7] failed  [e3]\n";
    // Every engine alone, and all of them cross-checked, tell the same.
    for engine in ["direct", "sat", "brute", "all"] {
        let out = gordian(&["resolve", night, "--results", "--engine", engine]);
        assert_eq!(out.status.code(), Some(0), "--engine {engine}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(block), "--engine {engine}:\n{text}");
        // BD, Red, RB and A learn nothing.
        for quiet in ["BD: ", "Red: ", "RB: ", "A: "] {
            assert!(
                !text.contains(&format!("      {quiet}")),
                "{quiet}learns nothing:\n{text}"
            );
        }
    }
    let json = gordian(&["resolve", night, "--json", "--results"]);
    assert_eq!(json.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(
        v["results"],
        serde_json::json!([{
            "probability": "1",
            "cut": [],
            "players": {
                "Cop": [{"kind": "investigate", "effect": "e4", "target": "B",
                         "saw": ["mafia"], "by": ["e4"],
                         "text": "investigated B: mafia"}],
                "T": [{"kind": "track", "effect": "e5", "target": "RB",
                       "saw": ["B"], "by": ["e3"],
                       "text": "tracked RB: RB visited B"}],
                "W": [{"kind": "watch", "effect": "e6", "target": "B",
                       "saw": ["BD", "Cop", "RB", "Red"], "by": ["e1", "e2", "e3", "e4"],
                       "text": "watched B: B was visited by BD, Cop, RB, Red"}],
                "B": [{"kind": "blocked", "effect": "e7", "target": null,
                       "saw": null, "by": ["e3"],
                       "text": "was blocked: kill Cop [e7] failed"}]
            }
        }]),
        "{}",
        v["results"]
    );
    // The final targets the results follow: one way, the same for both processing orders.
    assert_eq!(
        v["resolutions"][0]["ways"],
        serde_json::json!([{"final_targets": {"e1": ["A", "B"], "e2": ["RB", "B"],
                                              "e3": ["B"], "e4": ["B"], "e5": ["RB"],
                                              "e6": ["B"], "e7": ["Cop"]},
                            "deaths": []}])
    );
}

/// gordian run in `dir` (so that a file wrongly named `-` would show there).
fn gordian_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("gordian runs")
}

/// `-` on `--dot` and `--svg` is standard output: the picture in place of the report,
/// the same picture `--dot FILE` writes, and no file named `-`. `--certify -` is refused
/// (a directory of several files), as are two pictures on standard output and a picture
/// with the flags that shape the report it replaces; all before any work, exit 2.
#[test]
fn a_dash_writes_the_picture_to_standard_output() {
    let night = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/instances/ar/odd-block-cycle.night"
    );
    let dir = std::env::temp_dir().join(format!("gordian-cli-dash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dash = dir.join("-");
    let out = gordian_in(&dir, &["resolve", night, "--dot", "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // A paradox: the picture shows the first optimal cut.
    assert!(
        text.starts_with("digraph night {") && text.contains("CUT"),
        "{text}"
    );
    assert!(text.trim_end().ends_with('}') && !text.contains("paradox: no resolution"));
    assert!(!dash.exists(), "no file named -");
    let file = dir.join("night.dot");
    let out = gordian_in(&dir, &["resolve", night, "--dot", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).expect("DOT written"), text);
    let out = gordian_in(&dir, &["resolve", night, "--svg", "-"]);
    if out.status.success() {
        assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("`dot` is not installed"), "{err}");
        assert!(out.stdout.is_empty());
    }
    assert!(!dash.exists(), "no file named -");
    for (args, says) in [
        (vec!["--certify", "-"], "--certify takes a directory"),
        (
            vec!["--dot", "-", "--svg", "-"],
            "both ask for standard output",
        ),
        (vec!["--dot", "-", "--json"], "does not go with --json"),
        (
            vec!["--svg", "-", "--explain"],
            "does not go with --explain",
        ),
    ] {
        let mut all = vec!["resolve", night];
        all.extend(&args);
        let out = gordian_in(&dir, &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty() && !dash.exists(), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `resolve --seed`'s pick is one of the listed outcomes, with that outcome's probability
/// (the whole object: cut, successes, final targets, deaths and probability), on every
/// shipped night and on nights of several components whose resolutions have several
/// ways (deflections).
#[test]
fn the_pick_is_a_listed_outcome_with_its_probability() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<PathBuf> = std::fs::read_dir(format!("{root}/instances/ar"))
        .expect("instances/ar")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "night"))
        .collect();
    files.sort();
    // Two copies of the mutual deflection (two components, each two equally likely
    // final targets for K's kill: D1's deflection sends it to D2, or D2's sends it back;
    // worked by hand in instances/ar/deflect-two-mutual.night): four outcomes of 1/4.
    let two = "players: D1 D2 K V E1 E2 L W\n\
               D1 deflect D2\nD2 deflect D1\nK kill D1\nV visit D2\n\
               E1 deflect E2\nE2 deflect E1\nL kill E1\nW visit E2\n";
    // And with a three-way deflection cycle and a paradox of its own beside them.
    let three = format!(
        "{}X1 deflect X2\nX2 deflect X3\nX3 deflect X1\nM kill X1\nA block B\nB block C\nC block A\n",
        two.replace("players: D1 D2 K V E1 E2 L W", "players: D1 D2 K V E1 E2 L W X1 X2 X3 M A B C")
    );
    files.push(temp_file("two-deflections.night", two));
    files.push(temp_file("three-components.night", &three));
    let mut several = 0;
    for f in &files {
        let file = f.to_str().expect("UTF-8 path");
        for seed in 0..6 {
            let out = gordian(&["resolve", file, "--json", "--seed", &seed.to_string()]);
            assert!(out.status.success(), "{file}: {out:?}");
            let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
            if j["expanded"] != true || j["pick"].is_null() {
                continue;
            }
            let mut pick = j["pick"].clone();
            pick.as_object_mut().expect("an object").remove("seed");
            let outcomes = j["outcomes"].as_array().expect("outcomes listed");
            assert!(
                outcomes.contains(&pick),
                "{file} seed {seed}: the pick {pick} is not a listed outcome {outcomes:?}"
            );
            if j["totals"]["components"].as_u64() > Some(1) {
                several += 1;
            }
        }
    }
    assert!(
        several >= 12,
        "{several} picks on nights of several components"
    );
    // Worked by hand: the two-deflection night's four outcomes have 1/4 each.
    let two_file = temp_file("two-deflections.night", two);
    let j: Value = serde_json::from_slice(
        &gordian(&[
            "resolve",
            two_file.to_str().unwrap(),
            "--json",
            "--seed",
            "5",
        ])
        .stdout,
    )
    .expect("JSON");
    assert_eq!(j["pick"]["probability"], "1/4");
}

#[test]
fn the_human_report_lists_effects_in_file_order() {
    // Worked by hand: the seed's "reflexive roles" night (R block V, V visit rS, rS
    // reflexive stop) with eight visits in between, so that its effects are e1, e10 and
    // e11. The visits succeed in every resolution (nothing blocks or stops them). With
    // e10 out, e1 succeeds and e10 fails: S = {e1..e9, e11}, the optimal one. With e10
    // in, rS's stop on V is created (e11>V) and makes e1 fail: S = {e2..e11, e11>V}.
    // Listed in file order (e2 before e10, the created effect last), not as strings
    // sorted (e1, e10, e11, e2, ...).
    let visits = "A visit B\nB visit C\nC visit D\nD visit E\nE visit F\nF visit G\n\
                  G visit H\nH visit A\n";
    let p = temp_file(
        "file-order.night",
        &format!("R block V\n{visits}V visit rS\nrS passive reflexive:stop\n"),
    );
    let out = gordian(&["resolve", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let middle = "A visit B [e2], B visit C [e3], C visit D [e4], D visit E [e5], \
                  E visit F [e6], F visit G [e7], G visit H [e8], H visit A [e9]";
    for line in [
        format!("succeed: R block V [e1], {middle}, rS passive reflexive:stop [e11]   (optimal)"),
        "fail:    V visit rS [e10]\n".to_string(),
        format!(
            "succeed: {middle}, V visit rS [e10], rS passive reflexive:stop [e11], \
             rS stop V [e11>V]\n"
        ),
        "fail:    R block V [e1]\n".to_string(),
    ] {
        assert!(text.contains(&line), "{line}\nnot in:\n{text}");
    }
}

/// An answer that is not cross-checked says which engine answered and how long it took,
/// and why the other has no answer. Here the SAT engine stops at a small memory bound:
/// 300 reflexive passives each create a kill, and each of those a visit that fires all
/// 300 again, so its encoding is large, while the direct engine sees at once that the
/// roleblock on V stops the chain. (Each passive has a priority of its own: identical
/// passives would be solved as one.)
#[test]
fn an_answer_alone_says_how_long_it_took_and_why_the_other_stopped() {
    let mut night = String::from("players: V A R\nV visit A\n");
    for p in 1..=300 {
        night.push_str(&format!("A passive reflexive:kill @{p}\n"));
    }
    night.push_str("V passive reflexive:visit\nR block V\n");
    let p = temp_file("alone.night", &night);
    let out = gordian(&["resolve", p.to_str().unwrap(), "--max-memory", "20"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    let (took, why) = last
        .strip_prefix("(answered by the direct engine alone, in ")
        .and_then(|rest| rest.split_once(" s: NOT cross-checked, "))
        .unwrap_or_else(|| panic!("{last}"));
    assert!(took.parse::<f64>().is_ok_and(|s| s >= 0.0), "{last}");
    assert!(
        why.starts_with("the sat engine stopped at the memory bound of 20 MiB"),
        "{last}"
    );
}

/// `resolve --json` writes a component's optimal cuts and outcomes one at a time. On a
/// generated deflection-heavy night whose one large component has a 79 MB list of optimal
/// cuts (13 cuts, each with its many resolutions), the process peaked at about 2 GB while that list was built as one JSON tree; it
/// now stays near what the engine itself holds (about 0.5 GB on the development machine).
#[cfg(target_os = "linux")]
#[test]
fn a_large_json_answer_is_written_without_building_it_whole() {
    use std::process::Stdio;
    let d = common::TempDir::new("resolve-big");
    let dir = &d.0;
    let out = gordian(&[
        "gen",
        "--system",
        "ar",
        "--players",
        "200",
        "--max-effects",
        "800",
        "--kinds",
        "block,stop,protect,kill,deflect",
        "--seed",
        "2029",
        "--count",
        "7",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let night = dir.join("ar-s2029-000006.night");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(["resolve", "--json", "--engine", "direct"])
        .arg(&night)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run gordian");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut text).map(|_| text)
    });
    let peak_kib = common::peak_resident_kib(&mut child);
    let text = reader.join().expect("reader").expect("read");
    assert_eq!(child.wait().expect("exit").code(), Some(0));
    let v: Value = serde_json::from_slice(&text).expect("the answer is JSON");
    // The optimal cuts' resolutions are most of the answer.
    let resolutions: usize = v["components"]
        .as_array()
        .expect("components")
        .iter()
        .flat_map(|c| c["cuts"]["optimal"].as_array().cloned().unwrap_or_default())
        .map(|cut| cut["resolutions"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        text.len() > 50 << 20,
        "a large answer: {} bytes",
        text.len()
    );
    assert!(
        resolutions > 1000,
        "{resolutions} resolutions of optimal cuts"
    );
    assert!(
        peak_kib < 1200 << 10,
        "resolve --json peaked at {} MiB",
        peak_kib >> 10
    );
}

#[test]
fn a_components_long_lists_are_shortened_in_the_human_report() {
    // An odd cycle of 35 roleblocks is a paradox; cutting any one block leaves a chain
    // with exactly one resolution, so there are 35 optimal cuts and 35 outcomes, all in
    // one component. The human report writes 32 of each and says what it left out.
    let text: String = (0..35)
        .map(|i| format!("A{i} block A{}\n", (i + 1) % 35))
        .collect();
    let file = temp_file("cycle35.night", &text);
    let out = gordian(&["resolve", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("(35 such cuts)"), "{report}");
    assert_eq!(report.matches("\n  cutting ").count(), 32, "{report}");
    assert!(
        report.contains("  (3 more optimal cuts not listed)\n"),
        "{report}"
    );
    assert!(report.contains("outcomes (35):"), "{report}");
    assert!(
        report.contains("  (3 more outcomes not listed)\n"),
        "{report}"
    );
    assert!(
        report.contains("\n(lists of more than 32 entries are shortened above; --limit N writes N of each, --json writes every one)\n"),
        "{report}"
    );

    // --limit sets the bound: past it the command exits 5 and says why on stderr.
    let out = gordian(&["resolve", file.to_str().unwrap(), "--limit", "2"]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(report.matches("\n  cutting ").count(), 2, "{report}");
    assert!(
        report.contains("  (33 more optimal cuts not listed)\n"),
        "{report}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("(--limit)"));

    // A bound no list reaches writes everything, exits 0 and adds no note.
    let out = gordian(&["resolve", file.to_str().unwrap(), "--limit", "35"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(report.matches("\n  cutting ").count(), 35, "{report}");
    assert!(!report.contains("not listed"), "{report}");

    // Each component has its own allowance: beside the cycle, a lone roleblock (one
    // resolution, one outcome: X's block succeeds, nobody dies) is written in full.
    let two = temp_file("cycle35-and-block.night", &format!("{text}X block Y\n"));
    let out = gordian(&["resolve", two.to_str().unwrap(), "--expand=never"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = String::from_utf8_lossy(&out.stdout);
    let lone = report
        .split("\ncomponent ")
        .find(|c| c.contains("X block Y [e36]") && !c.contains("A0 block"))
        .expect("the roleblock's own section");
    assert!(lone.contains("resolution 1"), "{lone}");
    assert!(lone.contains("outcomes (1):\n"), "{lone}");
    assert!(!lone.contains("not listed"), "{lone}");
    assert_eq!(
        report.matches("(3 more outcomes not listed)").count(),
        1,
        "{report}"
    );

    // The JSON answer lists every cut and outcome whatever the human report shortens.
    let out = gordian(&["resolve", file.to_str().unwrap(), "--json"]);
    let j: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        j["cuts"]["optimal"].as_array().map(Vec::len),
        Some(35),
        "{j}"
    );
    assert_eq!(j["outcomes"].as_array().map(Vec::len), Some(35), "{j}");
}
