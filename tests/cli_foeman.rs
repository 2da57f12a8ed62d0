//! `gordian foeman ...` through the binary: every shipped instance's hand-worked
//! `# expect` headers against `enumerate --json` (both engines, cross-checked), the
//! round trace, queries, fairness, DIMACS, and located errors with exit code 2.

mod common;

use common::TempDir;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `gordian foeman ARGS...`.
fn foeman(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .arg("foeman")
        .args(args)
        .output()
        .expect("runs")
}

/// Runs `gordian foeman ARGS...`, which must exit 0; its standard output.
fn stdout_ok(args: &[&str]) -> String {
    let out = foeman(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `gordian foeman ARGS...`, which must exit 0; its standard output as JSON.
fn json_ok(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout_ok(args)).expect("JSON")
}

/// Runs `gordian foeman enumerate` on `bad.foeman` holding `text`: the exit code and
/// standard error.
fn enumerate_bad(text: &str) -> (Option<i32>, String) {
    let dir = TempDir::new("foeman");
    let bad = dir.write("bad.foeman", text);
    let out = foeman(&["enumerate", path(&bad)]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The shipped instance `instances/foeman/NAME`.
fn instance(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/foeman")
        .join(name)
}

/// `p` as a command-line argument.
fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn instances() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/foeman");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("instances/foeman exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "foeman"))
        .collect();
    v.sort();
    v
}

/// The `# expect sides: ...` and `# expect actions: ...` lines, normalised.
fn expected(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut sides = BTreeSet::new();
    let mut actions = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# expect sides:") {
            sides.insert(norm(rest));
        } else if let Some(rest) = line.strip_prefix("# expect actions:") {
            actions.insert(norm(rest));
        }
    }
    (sides, actions)
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().expect("name").to_string())
        .collect()
}

#[test]
fn every_shipped_instance_matches_its_hand_worked_header() {
    let files = instances();
    assert!(files.len() >= 8);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let (want_sides, want_actions) = expected(&text);
        assert!(
            !want_sides.is_empty() && !want_actions.is_empty(),
            "{f:?} has expect lines"
        );
        let v = json_ok(&["enumerate", "--json", path(&f)]);
        assert_eq!(v["cross_checked"], true, "{f:?}");
        let got_sides: BTreeSet<String> = v["side_orders"]
            .as_array()
            .expect("array")
            .iter()
            .map(|o| {
                norm(&format!(
                    "{} = {}",
                    names(&o["order"]).join(" "),
                    o["probability"].as_str().expect("p")
                ))
            })
            .collect();
        let got_actions: BTreeSet<String> = v["action_outcomes"]
            .as_array()
            .expect("array")
            .iter()
            .map(|o| {
                let order: Vec<String> = o["order"]
                    .as_array()
                    .expect("array")
                    .iter()
                    .map(|a| {
                        let n = a["figure"].as_str().expect("name").to_string();
                        if a["waited"] == true {
                            format!("{n}*")
                        } else {
                            n
                        }
                    })
                    .collect();
                let mut s = if order.is_empty() {
                    "-".to_string()
                } else {
                    order.join(" ")
                };
                let w = names(&o["watching"]);
                if !w.is_empty() {
                    s = format!("{s} ; watch {}", w.join(" "));
                }
                norm(&format!("{s} = {}", o["probability"].as_str().expect("p")))
            })
            .collect();
        assert_eq!(got_sides, want_sides, "{f:?}");
        assert_eq!(got_actions, want_actions, "{f:?}");
    }
}

#[test]
fn round_prints_each_segment() {
    let s = stdout_ok(&["round", path(&instance("supervention.foeman"))]);
    assert!(s.contains("segment 1"));
    assert!(
        s.contains("poll B (modDX 10, FigSeq 2): strike:3, FigDic 3, supervenes A"),
        "{s}"
    );
    assert!(s.contains("action order: B, A, C"), "{s}");
}

#[test]
fn queries_answer_with_witnesses_and_engines_agree() {
    let f = instance("requery.foeman");
    let run = |q: &str| json_ok(&["query", "--json", path(&f), q]);
    let v = run("on-watch W");
    assert_eq!(v["holds"], true);
    assert_eq!(v["probability"], "1/8");
    assert_eq!(v["cross_checked"], true);
    let v = run("before A W");
    assert_eq!(v["probability"], "1/2");
    let v = run("watcher-first");
    assert_eq!(v["holds"], false);
    let out = foeman(&["query", path(&f), "before A Zed"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fairness_proves_the_sequential_die_and_shows_the_naive_bias() {
    let v = json_ok(&["fairness", "--json", "--prove", "4", "--values", "7,7,7"]);
    let proofs = v["proofs"].as_array().expect("array");
    assert_eq!(proofs[0]["variant"], "sequential");
    assert_eq!(proofs[0]["biased"], 0);
    assert!(proofs[1]["biased"].as_u64().expect("n") > 0);
    let an = &v["lists"][0]["analyses"];
    assert_eq!(
        an[0]["probabilities"],
        serde_json::json!(["1/3", "1/3", "1/3"])
    );
    assert_eq!(
        an[1]["probabilities"],
        serde_json::json!(["1/4", "1/4", "1/2"])
    );
}

#[test]
fn fairness_is_exact_up_to_1000_values_and_refuses_more() {
    // 66 equal values (a 64-bit fraction once overflowed here): each 1/66 under the
    // sequential die, worked by hand (see the unit test); the shape is unchanged, the
    // fractions strings.
    let v66 = vec!["3"; 66].join(",");
    let v = json_ok(&["fairness", "--json", "--values", &v66]);
    let an = &v["lists"][0]["analyses"];
    assert_eq!(an[0]["variant"], "sequential");
    assert_eq!(an[0]["fair"], true);
    assert_eq!(an[0]["probabilities"], serde_json::json!(vec!["1/66"; 66]));
    assert_eq!(an[0]["expected_rolls"], "65");
    assert_eq!(an[1]["fair"], false);
    // The cap: 1,000 values are analysed, 1,001 are refused with exit 2.
    let v1000 = vec!["3"; 1000].join(",");
    let v = json_ok(&["fairness", "--json", "--values", &v1000]);
    assert_eq!(v["lists"][0]["analyses"][0]["probabilities"][999], "1/1000");
    let v1001 = vec!["3"; 1001].join(",");
    let out = foeman(&["fairness", "--values", &v1001]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("1001 values given; at most 1000 are analysed"),
        "{e}"
    );
    assert!(out.stdout.is_empty());
    // --prove takes 1 to 7 (it was silently cut to 7).
    assert_eq!(foeman(&["fairness", "--prove", "8"]).status.code(), Some(2));
}

#[test]
fn dimacs_and_located_errors() {
    let s = stdout_ok(&["dimacs", path(&instance("watcher.foeman"))]);
    assert_eq!(s.matches("p cnf").count(), 2);
    let (code, e) = enumerate_bad("side A ini 5\nfigure F side A dx 3 do watch|strike:12\n");
    assert_eq!(code, Some(2));
    assert!(
        e.starts_with("error: number of dice `12` is not in 1..9") && e.contains("bad.foeman:2:31"),
        "{e}"
    );
    assert!(e.contains("figure F side A dx 3 do watch|strike:12"), "{e}");
}

/// `rezero.foeman`, worked in its header: A's option lowers its modDX (12 → 9) below the
/// undeclared B (11), so A's FigSeq 2 is zeroed and skipped; B gets 3, A is polled again
/// with 4, and in segment 2 the modDX tie A/B (9/9) goes to the lower FigSeq, B.
#[test]
fn rezeroed_figseq_skips_a_value_and_reorders_the_poll() {
    let s = stdout_ok(&["round", path(&instance("rezero.foeman"))]);
    let polls: Vec<&str> = s
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("poll ") || l.starts_with("segment"))
        .collect();
    assert_eq!(
        polls,
        [
            "segment 1",
            "poll C (modDX 13, FigSeq 1): strike:3, FigDic 3, dibFig",
            "poll A (modDX 12, FigSeq 2): picks watch@-3 (modDX 9, below an undeclared \
             figure): FigSeq re-zeroed, polled again later",
            "poll B (modDX 11, FigSeq 3): strike:2@-2 (modDX 9), FigDic 2",
            "poll A (modDX 9, FigSeq 4): watch@-3, FigDic 1",
            "segment 2",
            "poll B (modDX 9, FigSeq 3): strike:2@-2, FigDic 2, dibFig",
            "poll A (modDX 9, FigSeq 4): strike:2@-3, FigDic 2",
            "segment 3",
            "poll A (modDX 9, FigSeq 4): strike:2@-3, FigDic 2, dibFig",
        ],
        "{s}"
    );
    assert!(s.contains("action order: C, B, A (waited)"), "{s}");
}

/// `raise.foeman`, worked in its header, in its "C first" branch (the d2 is rolled for C,
/// scanned after B: a 1 replaces B): B's raised modDX (10 → 13) supervenes A on equal
/// dice; FigSeq values are unchanged.
#[test]
fn raised_moddx_takes_priority_on_equal_dice_without_resequencing() {
    let s = stdout_ok(&["round", "--rolls", "1", path(&instance("raise.foeman"))]);
    assert!(
        s.contains("poll C (modDX 10, FigSeq 2) [d2 for C: 1 replaces]: strike:2, FigDic 2\n"),
        "{s}"
    );
    assert!(
        s.contains("poll B (modDX 10, FigSeq 3): strike:2@+3 (modDX 13), FigDic 2, supervenes A"),
        "{s}"
    );
    // Segment 2: A keeps FigSeq 1, C keeps 2.
    assert!(
        s.contains("poll A (modDX 12, FigSeq 1): strike:2, FigDic 2, dibFig"),
        "{s}"
    );
    assert!(
        s.contains("poll C (modDX 10, FigSeq 2): strike:2, FigDic 2\n"),
        "{s}"
    );
    assert!(s.contains("action order: B, A, C"), "{s}");
}

#[test]
fn bad_moddx_adjustments_are_located_errors() {
    for (text, msg, at) in [
        (
            "side A ini 5\nfigure F side A dx 3 do watch|strike:2@3\n",
            "error: modDX adjustment `@3` is not `@+N` or `@-N` with N in 0..9",
            "bad.foeman:2:31",
        ),
        (
            "side A ini 5\nfigure F side A dx 3 do move@+12\n",
            "error: modDX adjustment `@+12` is not `@+N` or `@-N` with N in 0..9",
            "bad.foeman:2:25",
        ),
    ] {
        let (code, e) = enumerate_bad(text);
        assert_eq!(code, Some(2));
        assert!(e.starts_with(msg) && e.contains(at), "{e}");
    }
}

/// The generator's counts are range-checked (they were silently cut to the model's
/// limits): sides 1 to 8, figures 0 to 16, declarations per choice set 1 to 8, choice
/// sets per plan 1 to 16.
#[test]
fn generator_counts_out_of_range_exit_2() {
    let gen = |flag: &str, value: &str| {
        Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(["gen", "--system", "foeman", "--count", "1", flag, value])
            .output()
            .expect("runs")
            .status
            .code()
    };
    for (flag, bad, good) in [
        ("--foeman-sides", "9", "8"),
        ("--foeman-figures", "17", "16"),
        ("--foeman-menu", "9", "8"),
        ("--foeman-plan", "17", "16"),
    ] {
        assert_eq!(gen(flag, bad), Some(2), "{flag} {bad}");
        assert_eq!(gen(flag, good), Some(0), "{flag} {good}");
    }
}

/// `fairness FILE` analyses what the file's values can be: each rolled initiative's six
/// values (one list per combination) and each figure's modDX with its options' `@`
/// adjustments; too many combinations are reported as skipped, in the text and the JSON.
#[test]
fn fairness_of_a_file_honours_rolls_and_adjustments() {
    let dir = TempDir::new("foeman");
    let f = dir.write(
        "f.foeman",
        "side A ini roll\nside B ini 4\n\
         figure X side A dx 10 do strike:2|watch@-1\nfigure Y side B dx 9 do strike:1\n",
    );
    let v = json_ok(&["fairness", "--json", path(&f)]);
    let lists: Vec<String> = v["lists"]
        .as_array()
        .expect("lists")
        .iter()
        .map(|l| l["list"].as_str().expect("label").to_string())
        .collect();
    // A's roll: 1..6 against B's 4 (six lists); X: 10 or 9 (after `watch@-1`) against 9.
    assert_eq!(lists.len(), 6 + 2, "{lists:?}");
    assert!(lists.contains(&"side initiative (rolls: A 4)".to_string()));
    assert!(lists.contains(&"figure modDX".to_string()));
    assert!(lists.contains(&"figure modDX (after `@` adjustments: X 9)".to_string()));
    // The rolled 4 ties B's 4: a fair draw, 1/2 each (worked by hand: one d2).
    let tie = v["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list"] == "side initiative (rolls: A 4)")
        .unwrap();
    assert_eq!(tie["analyses"][0]["values"], serde_json::json!([4, 4]));
    assert_eq!(
        tie["analyses"][0]["probabilities"],
        serde_json::json!(["1/2", "1/2"])
    );
    // X 9 ties Y 9: 1/2 each.
    let adj = v["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list"] == "figure modDX (after `@` adjustments: X 9)")
        .unwrap();
    assert_eq!(
        adj["analyses"][0]["probabilities"],
        serde_json::json!(["1/2", "1/2"])
    );
    assert_eq!(v["skipped"], serde_json::json!([]));
    // Three rolled sides: 216 combinations, more than 36: skipped, saying so.
    let g = dir.write(
        "g.foeman",
        "side A ini roll\nside B ini roll\nside C ini roll+1\n",
    );
    let v = json_ok(&["fairness", "--json", path(&g)]);
    assert_eq!(v["lists"], serde_json::json!([]));
    assert_eq!(v["skipped"][0]["list"], "side initiative");
    assert!(v["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("A, B, C"));
    let text = stdout_ok(&["fairness", path(&g)]);
    assert!(text.contains("side initiative: not analysed:"), "{text}");
}

/// Menus may put spaces around `|`; `postpone once` is accepted; the enumeration states
/// what its probabilities assume (text and JSON).
#[test]
fn spaced_menus_and_stated_assumptions() {
    let dir = TempDir::new("foeman");
    let f = dir.write(
        "m.foeman",
        "side A ini 6 postpone once\nside B ini 5\n\
         figure X side A dx 10 do strike:2 | watch\nfigure Y side B dx 9 do strike:1\n",
    );
    let v = json_ok(&["enumerate", "--json", path(&f)]);
    assert_eq!(v["probabilities_assume"]["choices"], "uniform");
    assert_eq!(
        v["probabilities_assume"]["choosing_figures"],
        serde_json::json!(["X"])
    );
    assert_eq!(
        v["probabilities_assume"]["postpone_once"],
        serde_json::json!(["A"])
    );
    // A postpones once (B moves first), then moves: B, A with probability 1.
    assert_eq!(v["side_orders"][0]["order"], serde_json::json!(["B", "A"]));
    assert_eq!(v["side_orders"][0]["probability"], "1");
    let text = stdout_ok(&["enumerate", path(&f)]);
    assert!(text.contains("uniform free choices"), "{text}");
    assert!(text.contains("A postpone(s) once per round"), "{text}");
    let round = stdout_ok(&["round", path(&f)]);
    assert!(
        round.contains("A postpones (SidSeq -1; `postpone once`: once per round)"),
        "{round}"
    );
}
