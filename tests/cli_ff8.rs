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
            } else if let Some(value) = line.strip_prefix("expected = ") {
                // The minimum expected number of challenges is an f64 (value iteration
                // to a change below 1e-12).
                let v = json(&["ff8", "plan", file, "--json"]);
                let (n, d) = frac(value);
                let want = n as f64 / d as f64;
                let got = v["expected"].as_f64().unwrap_or(f64::NAN);
                assert!(
                    (got - want).abs() <= 1e-9 * want,
                    "{file}: expected challenges {got}, worked by hand {want}"
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
    assert!(out.contains("message: Same was spread"), "{out}");
    assert!(!out.contains('"'), "no literal quotes: {out}");
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
    let free = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/unreachable.ff8");
    let (code, out, _) = gordian(&["ff8", "dimacs", free.to_str().unwrap(), "--bound", "64"]);
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

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gordian-cli-ff8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f
}

/// Too few bytes for the challenge's getRandom calls is an error, not a replay with zeros.
#[test]
fn replay_with_too_few_bytes_is_an_error() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/spread_same.ff8");
    // The same challenge as `replay_follows_the_given_bytes` reads five bytes; four given.
    let (code, out, err) = gordian(&[
        "ff8",
        "replay",
        file.to_str().unwrap(),
        "--bytes",
        "200,0,200,40",
        "--challenge",
        "Balamb play",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("error: ") && err.contains("--bytes gives 4 getRandom value(s)"),
        "{err}"
    );
}

/// `reach` lists its states under their own heading, not under the witness's first step.
#[test]
fn reach_lists_its_states_under_their_own_heading() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/queen_moves.ff8");
    let (code, out, err) = gordian(&["ff8", "reach", file.to_str().unwrap(), "--list", "3"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let w = lines.iter().position(|l| l.starts_with("witness")).unwrap();
    assert!(
        lines[w + 1].starts_with("  1. Balamb queen play-lv8  --bytes "),
        "{out}"
    );
    // The witness has one challenge; the next line is the states' heading, at column 0.
    assert!(
        lines[w + 2].starts_with("reachable states (the first 3 of "),
        "{out}"
    );
    assert_eq!(lines[w + 3].trim_start(), "1. the start", "{out}");
}

/// With `challenge:` lines the bound counts challenges of the sequence: `reach` follows
/// the first k (the file's `bound:` or `--bound`); more than the sequence is an error.
#[test]
fn the_bound_of_a_fixed_sequence_is_honoured() {
    // Three refusals in Galbadia from amount 10 spread from Dollet (as in
    // trading_example.ff8): after k of them the amount is 10 - k, so the (spread-from,
    // amount) pairs within k = 1 are Dollet 10 and Dollet 9.
    let seq = "spread-from: Dollet\ntrading: 10\ncurrent: Galbadia\n\
               challenge: Galbadia refuse\nchallenge: Galbadia refuse\nchallenge: Galbadia refuse\n";
    let pairs = |v: &Value| -> Vec<u64> {
        let mut a: Vec<u64> = v["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["amount"].as_u64().unwrap())
            .collect();
        a.sort();
        a.dedup();
        a
    };
    let one = scratch("seq1.ff8", &format!("bound: 1\n{seq}"));
    let one = one.to_str().unwrap();
    let v = json(&["ff8", "reach", one, "--json", "--list", "1000"]);
    assert_eq!(v["horizon"], 1);
    assert_eq!(pairs(&v), [9, 10]);
    // Without `bound:` the whole sequence; `--bound 2` its first two.
    let all = scratch("seq.ff8", seq);
    let all = all.to_str().unwrap();
    let v = json(&["ff8", "reach", all, "--json", "--list", "1000"]);
    assert_eq!(v["horizon"], 3);
    assert_eq!(pairs(&v), [7, 8, 9, 10]);
    let v = json(&[
        "ff8", "reach", all, "--json", "--list", "1000", "--bound", "2",
    ]);
    assert_eq!(pairs(&v), [8, 9, 10]);
    // Past the sequence: a located error in the file, exit 2 for the flag.
    let four = scratch("seq4.ff8", &format!("{seq}bound: 4\n"));
    let (code, _, err) = gordian(&["ff8", "reach", four.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("seq4.ff8:7:8") && err.contains("the bound 4 is more than the 3"),
        "{err}"
    );
    let (code, _, err) = gordian(&["ff8", "reach", all, "--bound", "4"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--bound 4"), "{err}");
}

/// JSON names rules (no bit masks) and messages carry no literal quotes.
#[test]
fn json_names_rules_and_messages_have_no_quotes() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/spread_same.ff8");
    let v = json(&["ff8", "step", file.to_str().unwrap(), "--json"]);
    let outcomes = v["outcomes"].as_array().unwrap();
    let spread = outcomes
        .iter()
        .find(|o| o["messages"].as_array().unwrap().len() == 2)
        .unwrap();
    assert_eq!(
        spread["messages"],
        serde_json::json!([
            "You have rules from Galbadia, let's mix!",
            "Same was spread"
        ])
    );
    // Balamb (region 0) with Open and Same; Lunar (6) with every rule, in rule order.
    assert_eq!(
        spread["state"]["rules"][0],
        serde_json::json!(["Open", "Same"])
    );
    assert_eq!(
        spread["state"]["rules"][6],
        serde_json::json!([
            "Open",
            "Same",
            "Plus",
            "Random",
            "Sudden Death",
            "Same Wall",
            "Elemental"
        ])
    );
    assert_eq!(
        spread["state"]["carried"][0]["rules"],
        serde_json::json!(["Open", "Same"])
    );
}

/// A Queen move by a guessed chart figure is flagged; a published one is not.
#[test]
fn guessed_chart_figures_are_flagged() {
    // From Galbadia: Balamb 1/8 and Dollet 1/8 are published, FH and Centra (3/8 each)
    // guessed.
    let g = scratch(
        "galbadia.ff8",
        "queen: Galbadia One\nallow: Galbadia\nchallenge: Galbadia queen play-lv8\ngoal: queen in FH\n",
    );
    let g = g.to_str().unwrap();
    let v = json(&["ff8", "step", g, "--json"]);
    let mut guessed = (0, 1);
    let mut published = (0, 1);
    for o in v["outcomes"].as_array().unwrap() {
        let q = o["state"]["queen"].as_str().unwrap();
        let p = frac(o["probability"].as_str().unwrap());
        match q {
            "FH" | "Centra" => {
                assert!(o["guessed"].as_str().unwrap().contains("guessed"), "{o}");
                guessed = add(guessed, p);
            }
            _ => {
                assert!(o["guessed"].is_null(), "{o}");
                published = add(published, p);
            }
        }
    }
    assert_eq!(guessed, (3, 4));
    assert_eq!(published, (1, 4));
    let v = json(&["ff8", "reach", g, "--json"]);
    assert_eq!(v["guessed_chart_rows"], serde_json::json!(["Galbadia"]));
    let v = json(&["ff8", "plan", g, "--json", "--closure-limit", "10"]);
    assert_eq!(v["guessed_chart_rows"], serde_json::json!(["Galbadia"]));
    let (_, out, _) = gordian(&["ff8", "reach", g]);
    assert!(
        out.contains("note: the Queen may move from Galbadia"),
        "{out}"
    );
    // From Balamb only published figures are used.
    let b = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/queen_moves.ff8");
    let v = json(&["ff8", "reach", b.to_str().unwrap(), "--json"]);
    assert_eq!(v["guessed_chart_rows"], serde_json::json!([]));
    let v = json(&["check", b.to_str().unwrap(), "--json"]);
    let s = v.to_string();
    assert!(!s.contains("guessed_chart_rows"), "{s}");
}

/// When one engine stops at a limit of its own and the other answers, `reach` answers
/// with the other engine's states, says on stderr that they are not cross-checked and
/// why, and exits 0 (it used to end with exit 5 and no answer). At 1 MiB the SAT engine's
/// clauses for the 21 challenges of the trading example do not fit (a deterministic
/// charge, not a race), while the direct engine's 22 states do.
#[test]
fn reach_answers_with_the_engine_that_finished() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/ff8/trading_example.ff8");
    let f = file.to_str().unwrap();
    let whole = json(&["ff8", "reach", f, "--json", "--list", "0"]);
    let both: Vec<&Value> = whole["engines"].as_array().unwrap().iter().collect();
    assert_eq!(both.len(), 2, "{whole}");
    let (code, out, err) = gordian(&["ff8", "reach", f, "--max-memory", "1", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("NOT cross-checked: the sat engine stopped at the memory bound of 1 MiB"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let engines = v["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 1, "{v}");
    assert_eq!(engines[0]["engine"], "direct");
    assert_eq!(engines[0]["reachable"], both[0]["reachable"]);
    // Both engines stopped: no answer, the limit message, exit 5.
    let (code, _, err) = gordian(&["ff8", "reach", f, "--max-memory", "1", "--engine", "sat"]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("limit: the memory bound of 1 MiB"), "{err}");
}

/// `fuzz` names the cases it skipped, and each named case is the instance of `gen` with
/// the same seed and index: written out and solved alone under the same memory bound, it
/// stops at the bound too, and a case not named does not.
#[test]
fn fuzz_names_its_skipped_cases_and_gen_writes_them_out() {
    let dir = std::env::temp_dir().join(format!("gordian-ff8-skipped-{}", std::process::id()));
    let out = dir.join("failures");
    let (code, stdout, stderr) = gordian(&[
        "fuzz",
        "--system",
        "ff8",
        "--cases",
        "8",
        "--seed",
        "11",
        "--max-memory",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let count: usize = stdout
        .lines()
        .next()
        .and_then(|l| {
            l.split("; ")
                .find_map(|p| p.strip_suffix(" skipped (over --max-memory)"))
        })
        .expect("some case is over 1 MiB")
        .parse()
        .expect("a count");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("skipped (over --max-memory): case"))
        .expect("the skipped cases are named");
    assert!(
        line.ends_with("; case i is instance i of `gordian gen --system ff8 --seed 11` with the same generator flags"),
        "{line}"
    );
    let named: Vec<u64> = line
        .split(": case")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .expect("a list")
        .trim_start_matches('s')
        .split(", ")
        .map(|i| i.trim().parse().expect("an index"))
        .collect();
    assert_eq!(named.len(), count, "{stdout}");
    let gen_dir = dir.join("gen");
    let (code, _, stderr) = gordian(&[
        "gen",
        "--system",
        "ff8",
        "--seed",
        "11",
        "--count",
        "8",
        "--out",
        gen_dir.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for i in 0..8u64 {
        let file = gen_dir.join(format!("ff8-s11-{i:06}.ff8"));
        let (code, _, stderr) =
            gordian(&["ff8", "reach", file.to_str().unwrap(), "--max-memory", "1"]);
        if named.contains(&i) {
            assert_eq!(code, 5, "case {i} was named as over the bound: {stderr}");
            assert!(stderr.contains("memory bound"), "{stderr}");
        } else {
            assert_eq!(code, 0, "case {i} was not named: {stderr}");
        }
    }
}
