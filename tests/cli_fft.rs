//! `gordian fft ...` and `check`/`fuzz --system fft` as a user meets them: every shipped
//! scenario's log confirmed under the final theory, the variants table of the seed's
//! examples, exit codes, located errors, JSON fields, enumeration cross-checked, queries.
//!
//! Expected verdicts come from the seed (which logs the author observed, which theory he
//! retracted) and from the hand derivations in the instance files.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("gordian runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn instances() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/fft");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("instances/fft")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fft"))
        .collect();
    v.sort();
    v
}

fn seed(n: u32) -> String {
    let name = match n {
        1 => "seed-1-mimes-skip.fft",
        2 => "seed-2-haste.fft",
        3 => "seed-3-agrias.fft",
        _ => "seed-4-demi.fft",
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/fft")
        .join(name)
        .display()
        .to_string()
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gordian-cli-fft-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn every_shipped_log_is_explained_by_the_final_theory() {
    let files = instances();
    assert!(files.len() >= 4);
    for f in files {
        let out = gordian(&["fft", "replay", "--json", f.to_str().unwrap()]);
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(out.status.code(), Some(0), "{}: {v}", f.display());
        assert_eq!(v["verdict"], "confirmed", "{}", f.display());
        assert_ne!(v["next_cr_matches"], false, "{}", f.display());
    }
}

#[test]
fn replay_json_predicts_the_seeds_next_cr_orders() {
    for (n, order) in [(1, vec!["B", "C", "A"]), (2, vec!["A", "B", "C"])] {
        let out = gordian(&["fft", "replay", "--json", &seed(n)]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["next_cr"], serde_json::json!(order), "example {n}");
        assert_eq!(v["next_cr_matches"], true);
    }
    let out = gordian(&["fft", "replay", "--json", &seed(4)]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["next_cr"][0], "RAF");
    assert_eq!(v["next_cr"][1], "LAV");
    assert_eq!(
        v["flags_left"],
        serde_json::json!({"RAF": "mqs", "LAV": "mqs"})
    );
}

#[test]
fn annotate_shows_step_and_safety_like_the_seed() {
    let out = gordian(&["fft", "replay", "--annotate", &seed(3)]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    // The seed: "REI - wait {this is a step 3 quick-turn", "AGR - wait {this is a step 5
    // quick-turn", "RAM - qs - miss {qsafety turned OFF".
    let line = |start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line `{start}` in\n{text}"))
            .to_string()
    };
    assert!(line("REI - wait").contains("step 3 quick turn, safety OFF"));
    assert!(line("AGR - wait").contains("step 5 quick turn, safety OFF"));
    assert!(line("RAM - qs - miss").contains("step 1 slow action, safety OFF"));
    assert!(line("AGR - qs - miss").contains("safety ON"));
    assert!(text.contains("step 3 skipped"));
}

#[test]
fn the_variants_table_refutes_the_naive_model_with_the_first_example() {
    let files: Vec<String> = (1..=4).map(seed).collect();
    let mut args = vec!["fft", "variants", "--json"];
    args.extend(files.iter().map(String::as_str));
    let out = gordian(&args);
    assert_eq!(out.status.code(), Some(0));
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(rows.len(), 4);
    let explains = |i: usize| -> Vec<String> {
        rows[i]["explains"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    for i in 0..4 {
        assert!(
            explains(i).contains(&"final".to_string()),
            "example {}",
            i + 1
        );
        assert!(
            !explains(i).contains(&"naive".to_string()),
            "example {}",
            i + 1
        );
    }
    assert!(explains(0) == ["final", "earlier"], "{:?}", explains(0));
    assert!(!explains(3).contains(&"earlier".to_string()));
    // The human table has one row per file and a column per variant.
    let out = gordian(&["fft", "variants", &seed(1)]);
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    assert!(header.contains("final") && header.contains("naive") && header.contains("earlier"));
    assert!(text.lines().nth(1).unwrap().contains("yes"));
}

#[test]
fn a_log_the_model_does_not_produce_names_the_line_and_exits_4() {
    let text = "char A team t ct 100\nchar D team t mime\nslow A - qs - miss\nlog\n\
                A - qs - miss\n  mD - mqs - A\nA - wait\nend\n";
    let p = temp_file("diverges.fft", text);
    let out = gordian(&["fft", "replay", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    let s = stdout(&out);
    // Safety stays ON through A's mime cycle: no step 5 quick turn for A (file line 7).
    assert!(s.contains("file line 7"), "{s}");
    assert!(s.contains("the end of the SR phase"), "{s}");
}

#[test]
fn malformed_scenarios_give_located_errors_and_exit_2() {
    let p = temp_file("bad.fft", "char A team t\nslow A - quik - miss\n");
    for args in [
        vec!["fft", "replay"],
        vec!["fft", "enumerate"],
        vec!["fft", "query", "--property", "flag-survives"],
    ] {
        let mut args = args.clone();
        args.push(p.to_str().unwrap());
        let out = gordian(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.fft:2:10"), "{err}");
    }
    let out = gordian(&["fft", "query", "--property", "nonsense", &seed(1)]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn enumerate_cross_checks_simulator_and_sat_on_every_shipped_scenario() {
    for f in instances() {
        for variant in ["final", "naive", "earlier"] {
            let out = gordian(&[
                "fft",
                "enumerate",
                "--json",
                "--variant",
                variant,
                f.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{} {variant}", f.display());
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["cross_checked"], true);
            assert_eq!(
                v["count"].as_u64().unwrap() as usize,
                v["outcomes"].as_array().unwrap().len()
            );
        }
    }
}

#[test]
fn the_bound_is_at_most_64_in_the_file_and_every_flag() {
    // Bounds that once aborted (2^45: an allocation failure), panicked (2^63: capacity
    // overflow) or grew to 11 GB (2^32 - 1) are located input errors now, in every
    // command that reads the file, `check` included.
    for (n, big) in ["4294967295", "35184372088832", "9223372036854775808", "65"]
        .iter()
        .enumerate()
    {
        let p = temp_file(
            &format!("big{n}.fft"),
            &format!("char A team t\nbound {big}\n"),
        );
        for cmd in [
            vec!["fft", "enumerate"],
            vec!["fft", "query", "--property", "flag-survives"],
            vec!["fft", "dimacs"],
            vec!["check", "--timeout", "5"],
        ] {
            let mut args = cmd.clone();
            args.push(p.to_str().unwrap());
            let out = gordian(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!(
                    "invalid bound `{big}`: it is too large (the maximum is 64)"
                )),
                "{args:?}: {err}"
            );
            assert!(err.contains(&format!("big{n}.fft:2:7")), "{err}");
        }
    }
    // The flags: 65 is refused by the argument parser, 64 is answered (example 1 takes no
    // quick turn: its nine outcomes, worked by hand in the test below).
    for cmd in ["enumerate", "dimacs"] {
        let out = gordian(&["fft", cmd, "--bound", "65", &seed(1)]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
    }
    for system_flag in [["fuzz", "--bound"], ["gen", "--bound"]] {
        let out = gordian(&[system_flag[0], "--system", "fft", system_flag[1], "33"]);
        assert_eq!(out.status.code(), Some(2), "{system_flag:?}");
    }
    let out = gordian(&["fft", "enumerate", "--json", "--bound", "64", &seed(1)]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["count"].as_u64(), v["bound"].as_u64()),
        (Some(9), Some(64))
    );
}

#[test]
fn example_1_has_nine_outcomes_worked_by_hand() {
    // A's quick misses; D then E each miss, hit B or hit C (menu `B | C`): 3 x 3 choice
    // sequences, all distinct logs. Nobody had a flag, so the safety stays ON and no
    // quick turn happens: exactly 9 outcomes.
    let out = gordian(&["fft", "enumerate", "--json", &seed(1)]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["count"], 9);
    assert_eq!(v["exceeds_bound"], false);
}

#[test]
fn queries_find_witnesses_or_say_none_within_the_bound() {
    // Example 1: B and C keep their mqs flags: a flag survives.
    let out = gordian(&[
        "fft",
        "query",
        "--json",
        "--property",
        "flag-survives",
        &seed(1),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["found"], true);
    assert_eq!(v["cross_checked"], true);
    assert!(!v["witness"]["flags_left"].as_object().unwrap().is_empty());
    // Example 1 under the final theory: the safety stays ON, nobody ever takes a quick
    // turn, so no one takes two.
    let out = gordian(&["fft", "query", "--property", "two-quick-turns", &seed(1)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("none within bound 8"),
        "{}",
        stdout(&out)
    );
    // Example 3 (seed): "RAF - wait" twice in REI's action: two quick turns in a phase.
    let out = gordian(&["fft", "query", "--property", "two-quick-turns", &seed(3)]);
    assert!(stdout(&out).contains("witness"), "{}", stdout(&out));
    // Example 2: D and E mime B's haste with the safety OFF.
    let out = gordian(&[
        "fft",
        "query",
        "--property",
        "mime-cycle-ends-off",
        &seed(2),
    ]);
    assert!(stdout(&out).contains("witness"), "{}", stdout(&out));
}

#[test]
fn check_and_fuzz_take_the_fft_system() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/fft");
    let out = gordian(&["check", "--system", "fft", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("0 disagree, 0 error(s)"));
    let out = gordian(&["fuzz", "--system", "fft", "--cases", "40", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("no disagreement"));
}

#[test]
fn dimacs_prints_a_cnf_header_and_clauses() {
    let out = gordian(&["fft", "dimacs", "--bound", "2", &seed(1)]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let header = text
        .lines()
        .find(|l| l.starts_with("p cnf "))
        .expect("a DIMACS header");
    let clauses: usize = header.split_whitespace().nth(3).unwrap().parse().unwrap();
    let body = text
        .lines()
        .filter(|l| !l.starts_with('c') && !l.starts_with('p') && !l.is_empty())
        .count();
    assert_eq!(body, clauses, "the header counts the clauses printed");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `gordian fft enumerate --list | head -1` on ~800 KB of listing (far more than a
    // pipe buffer): the reader goes away early.
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(["fft", "enumerate", "--list", "--engine", "direct", &seed(4)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gordian runs");
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("some output");
    // The read end is dropped here; the rest of the listing goes into a closed pipe.
    let out = child.wait_with_output().expect("gordian ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn replaying_a_scenario_without_a_log_is_a_located_error() {
    let p = temp_file("nolog.fft", "char X team light\nslow X - haste - X\n");
    let out = gordian(&["fft", "replay", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: the scenario has no `log` section"),
        "{err}"
    );
    assert!(err.contains("nolog.fft:1:1"), "{err}");
}

/// `fft replay --dot`: for every shipped scenario whose log is confirmed, one digraph with
/// a box per log line (as many as the replay's JSON lists), every node but the last
/// followed by one edge, a cluster per slow action; rendered by `dot -Tsvg` when Graphviz
/// is installed.
#[test]
fn replay_dot_draws_the_step_flow() {
    let dir = std::env::temp_dir().join(format!("gordian-fft-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut drawn = 0;
    for p in instances() {
        let f = dir.join("flow.dot");
        let _ = std::fs::remove_file(&f);
        let out = gordian(&[
            "fft",
            "replay",
            p.to_str().unwrap(),
            "--dot",
            f.to_str().unwrap(),
        ]);
        if !out.status.success() {
            continue;
        }
        let json = gordian(&["fft", "replay", p.to_str().unwrap(), "--json"]);
        let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
        let n_lines = v["trace"]
            .as_array()
            .map(|t| t.iter().filter(|x| x.get("text").is_some()).count())
            .unwrap_or_default();
        let d = std::fs::read_to_string(&f).expect("DOT written");
        assert!(d.starts_with("digraph step_flow {") && d.trim_end().ends_with('}'));
        let nodes = d
            .lines()
            .filter(|l| l.trim_start().starts_with('n') && l.contains(" [shape="))
            .count();
        let boxes = d.lines().filter(|l| l.contains("[shape=box")).count();
        let edges = d.lines().filter(|l| l.contains(" -> ")).count();
        assert_eq!(edges + 1, nodes, "{}", p.display());
        assert_eq!(boxes, n_lines, "{}: {d}", p.display());
        assert!(d.contains("subgraph cluster_1"));
        if let Ok(o) = Command::new("dot").arg("-Tsvg").arg(&f).output() {
            assert!(
                o.status.success(),
                "dot -Tsvg: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        drawn += 1;
    }
    assert!(drawn >= 5, "{drawn}");
}

/// `fft replay --dot -` writes the step flow to standard output in place of the replay
/// (the same DOT `--dot FILE` writes; no file named `-`); with `--json` or `--annotate`,
/// which shape the replay it replaces, it is refused with exit 2.
#[test]
fn replay_dot_dash_is_standard_output() {
    let dir = std::env::temp_dir().join(format!("gordian-fft-dash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("flow.dot");
    let confirmed = instances()
        .into_iter()
        .find(|p| {
            gordian(&[
                "fft",
                "replay",
                p.to_str().unwrap(),
                "--dot",
                file.to_str().unwrap(),
            ])
            .status
            .success()
        })
        .expect("a shipped scenario with a confirmed log");
    let p = confirmed.to_str().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("gordian runs")
    };
    let out = run(&["fft", "replay", p, "--dot", "-"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), std::fs::read_to_string(&file).expect("DOT"));
    assert!(!dir.join("-").exists());
    for other in ["--json", "--annotate"] {
        let out = run(&["fft", "replay", p, "--dot", "-", other]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("does not go with {other}")), "{err}");
        assert!(out.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).ok();
}
