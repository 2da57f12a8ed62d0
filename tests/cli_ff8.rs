//! The shipped `.ff8` instances through the binary: every `# expect` header (worked by
//! hand from the seed) is checked, reachability on both engines; bad input exits 2 with a
//! located error.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn gordian(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = gordian(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("JSON output")
}

/// `n/d` as a reduced pair.
fn frac(s: &str) -> (u128, u128) {
    let (n, d) = s.trim().split_once('/').unwrap_or((s.trim(), "1"));
    let (n, d): (u128, u128) = (n.parse().unwrap(), d.parse().unwrap());
    let g = gcd(n, d);
    (n / g.max(1), d / g.max(1))
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn add(a: (u128, u128), b: (u128, u128)) -> (u128, u128) {
    let n = a.0 * b.1 + b.0 * a.1;
    let d = a.1 * b.1;
    let g = gcd(n, d).max(1);
    (n / g, d / g)
}

fn instances() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ff8"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_expectation_of_every_instance_holds() {
    let mut checked = 0;
    for path in instances() {
        let file = path.to_str().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter_map(|l| l.strip_prefix("# expect ")) {
            if let Some(rest) = line.strip_prefix("step ") {
                let (needle, value) = rest.rsplit_once(" = ").unwrap();
                let needle = needle.trim().trim_matches('"');
                let v = json(&["ff8", "step", file, "--json"]);
                let mut total = (0, 1);
                for o in v["outcomes"].as_array().unwrap() {
                    let mut hay = String::new();
                    for m in o["messages"].as_array().unwrap() {
                        hay += m.as_str().unwrap();
                        hay += "\n";
                    }
                    for c in o["changes"].as_array().unwrap() {
                        hay += c.as_str().unwrap();
                        hay += "\n";
                    }
                    if hay.contains(needle) {
                        total = add(total, frac(o["probability"].as_str().unwrap()));
                    }
                }
                assert_eq!(total, frac(value), "{file}: step \"{needle}\"");
            } else if let Some(value) = line.strip_prefix("goal = ") {
                for engine in ["both", "direct", "sat"] {
                    let v = json(&["ff8", "reach", file, "--json", "--engine", engine]);
                    assert_eq!(
                        v["goal_reachable"].as_bool(),
                        Some(value.trim() == "true"),
                        "{file} {engine}"
                    );
                    if engine == "both" {
                        assert_eq!(v["agree"], Value::Bool(true), "{file}");
                    }
                    if value.trim() == "true" && engine == "both" {
                        assert_eq!(v["witness"]["validated"], Value::Bool(true), "{file}");
                    }
                }
            } else if let Some(value) = line.strip_prefix("plan = ") {
                let v = json(&["ff8", "plan", file, "--json"]);
                assert_eq!(
                    frac(v["probability"].as_str().unwrap()),
                    frac(value),
                    "{file}: plan"
                );
            } else if let Some(value) = line.strip_prefix("trading = ") {
                let mut want: Vec<(String, u64)> = value
                    .split(',')
                    .map(|p| {
                        let (r, n) = p.trim().split_once(' ').unwrap();
                        (r.to_string(), n.parse().unwrap())
                    })
                    .collect();
                want.sort();
                for engine in ["direct", "sat"] {
                    let v = json(&[
                        "ff8", "reach", file, "--json", "--engine", engine, "--list", "100000",
                    ]);
                    let mut got: Vec<(String, u64)> = v["states"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| {
                            (
                                s["spread_from"].as_str().unwrap().to_string(),
                                s["amount"].as_u64().unwrap(),
                            )
                        })
                        .collect();
                    got.sort();
                    got.dedup();
                    assert_eq!(got, want, "{file} {engine}");
                }
            } else {
                panic!("{file}: unknown expectation `{line}`");
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} expectations");
}

#[test]
fn replay_follows_the_given_bytes() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/spread_same.ff8");
    // Step 1: 200 (no push); step 2: 0 (mix); step 3 (the Queen is in Balamb): 200, no
    // adoption; step 7 pushes; step 9: rule1 = 40/32 = 1 = Same, carried and not in
    // Balamb: spread; step 10: amount 1, 255 / 25 = 10 >= 1, nothing. Five bytes.
    let (code, out, err) = gordian(&[
        "ff8",
        "replay",
        file.to_str().unwrap(),
        "--bytes",
        "200,0,200,40,255",
        "--challenge",
        "Balamb play",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"Same was spread\""), "{out}");
    assert!(out.contains("Balamb rules: Open -> Open, Same"), "{out}");
    assert!(out.contains("bytes read: 5, unused: 0"), "{out}");
    assert!(!out.contains("warning"), "{out}");
}

#[test]
fn bad_input_exits_2_with_a_located_error() {
    let dir = std::env::temp_dir().join(format!("gordian-ff8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.ff8");
    std::fs::write(&f, "trading: 3\npoints: 300\n").unwrap();
    let (code, _, err) = gordian(&["ff8", "step", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: trade rule points must be") && err.contains("bad.ff8:2:9"),
        "{err}"
    );
    assert!(err.contains("points: 300"), "{err}");
}

/// Every count of challenges is at most 64: the file's `bound:` and its `challenge:`
/// lines (located errors), `--bound` of `reach`, `plan` and `dimacs`, and the generator's
/// `--ff8-bound` (which once let `fuzz` grow to 17 GB), all exit 2 past it.
#[test]
fn the_bound_is_at_most_64_in_the_file_and_every_flag() {
    let dir = std::env::temp_dir().join(format!("gordian-cli-ff8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.ff8");
    std::fs::write(&big, "current: Balamb\nbound: 9223372036854775808\n").unwrap();
    let (code, _, err) = gordian(&["ff8", "reach", big.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the bound must be a whole number 0..=64"),
        "{err}"
    );
    assert!(err.contains("big.ff8:2:8"), "{err}");
    let spread = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/spread_same.ff8");
    let spread = spread.to_str().unwrap();
    for cmd in ["reach", "plan", "dimacs"] {
        let (code, _, err) = gordian(&["ff8", cmd, spread, "--bound", "65"]);
        assert_eq!(code, 2, "{cmd}: {err}");
    }
    let (code, out, _) = gordian(&["ff8", "dimacs", spread, "--bound", "64"]);
    assert_eq!(code, 0);
    assert!(out.contains("p cnf "));
    for flag in ["9223372036854775808", "65", "0"] {
        let (code, _, err) = gordian(&["fuzz", "--system", "ff8", "--ff8-bound", flag]);
        assert_eq!(code, 2, "--ff8-bound {flag}: {err}");
        let (code, _, _) = gordian(&[
            "gen",
            "--system",
            "ff8",
            "--count",
            "1",
            "--ff8-bound",
            flag,
        ]);
        assert_eq!(code, 2, "gen --ff8-bound {flag}");
    }
    let (code, out, err) = gordian(&[
        "gen",
        "--system",
        "ff8",
        "--ff8-bound",
        "64",
        "--count",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty());
}
