//! Integration tests of the outside-resolver protocol (`fuzz --against`, `check
//! --against`) and of `gordian gen`, through the binary, with real external processes:
//! a resolver with planted faults (`tests/resolvers/planted.py`, gordian's own answer
//! with one fault added) and the example resolvers in `examples/against/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_gordian");

fn gordian(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("GORDIAN_BIN", BIN)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gordian")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fuzz run against `resolver`: its exit code, stdout, stderr and the file it saved.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    saved: Option<String>,
}

fn fuzz_against(resolver: &str, cases: u32, out: &Path, extra: &[&str]) -> Run {
    let cases = cases.to_string();
    let mut args = vec![
        "fuzz",
        "--system",
        "ar",
        "--against",
        resolver,
        "--cases",
        &cases,
        "--out",
        s(out),
    ];
    if !extra.contains(&"--case-timeout") {
        args.extend_from_slice(&["--case-timeout", "3"]);
    }
    args.extend_from_slice(extra);
    let o = gordian(&args);
    let stdout = text(&o.stdout);
    let saved = stdout
        .lines()
        .last()
        .filter(|l| l.ends_with(".night"))
        .map(|l| std::fs::read_to_string(l).expect("the saved file exists"));
    Run {
        code: o.status.code(),
        stdout,
        stderr: text(&o.stderr),
        saved,
    }
}

fn planted(mode: &str) -> String {
    format!("python3 tests/resolvers/planted.py {mode}")
}

/// The effect lines of a night file (neither comments nor the players line).
fn effects(night: &str) -> usize {
    night
        .lines()
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('#') && !l.starts_with("players:")
        })
        .count()
}

#[test]
fn an_honest_resolver_agrees() {
    let d = TempDir::new("against-honest");
    let r = fuzz_against(&planted("honest"), 40, &d.0, &[]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("40 agreed"), "{}", r.stdout);
    assert!(
        r.stdout.contains("fields compared: classification,"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("no disagreement"), "{}", r.stdout);
}

#[test]
fn a_wrong_classification_is_shrunk_to_at_most_three_effects_and_explained() {
    let d = TempDir::new("against-class");
    let r = fuzz_against(&planted("wrong-classification"), 1000, &d.0, &[]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let saved = r.saved.expect("a saved night");
    assert!(
        saved.contains("# first field that differs: classification\n")
            && saved.contains("#   gordian:  \"quasi-paradox\"\n")
            && saved.contains("#   resolver: \"non-paradox\"\n"),
        "{saved}"
    );
    let n = effects(&saved);
    assert!((1..=3).contains(&n), "{n} effects:\n{saved}");
    assert!(r.stderr.contains("why gordian answers so:"), "{}", r.stderr);
    // The saved night reads back, and gordian still calls it a quasi-paradox.
    let f = d.write("shrunk.night", &saved);
    let o = gordian(&["resolve", "--json", s(&f)]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["classification"], "quasi-paradox");
}

#[test]
fn wrong_cuts_are_named_as_the_field_that_differs() {
    let d = TempDir::new("against-cuts");
    let r = fuzz_against(&planted("wrong-cuts"), 1000, &d.0, &[]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let saved = r.saved.expect("a saved night");
    assert!(
        saved.contains("# first field that differs: cuts.optimal\n"),
        "{saved}"
    );
    assert!(r.stderr.contains("why no resolution"), "{}", r.stderr);
}

#[test]
fn each_fault_of_the_resolver_is_reported_as_what_it_is_never_as_a_disagreement() {
    // (mode, what the saved file's first line says, what the report says)
    let faults = [
        (
            "crash",
            "crash",
            "the resolver crashed (killed by signal 11)",
        ),
        ("hang", "timeout", "gave no answer within 3 s"),
        ("garbage", "not JSON", "the resolver's output is not JSON"),
        ("silent", "no output", "printed nothing on standard output"),
        ("exit", "non-zero exit", "exited with code 7"),
    ];
    for (mode, kind, words) in faults {
        let d = TempDir::new(&format!("against-{mode}"));
        let r = fuzz_against(&planted(mode), 300, &d.0, &[]);
        assert_eq!(r.code, Some(1), "{mode}: {}{}", r.stdout, r.stderr);
        let saved = r.saved.unwrap_or_else(|| panic!("{mode}: nothing saved"));
        let first = saved.lines().next().expect("header");
        assert!(
            first.ends_with(&format!("gave no answer on this night: {kind}.")),
            "{mode}: {first}"
        );
        assert!(r.stderr.contains(words), "{mode}: {}", r.stderr);
        assert!(!saved.contains("differs"), "{mode}: {saved}");
        // Faults other than a timeout are shrunk to the one effect that triggers them.
        if mode != "hang" {
            assert_eq!(effects(&saved), 1, "{mode}: {saved}");
        }
    }
}

#[test]
fn check_against_compares_every_file_and_saves_each_difference() {
    let d = TempDir::new("against-check");
    let out = d.0.join("failures");
    let o = gordian(&[
        "check",
        "--against",
        &planted("wrong-classification"),
        "--out",
        s(&out),
        "--json",
        "instances/ar",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let files = v["files"].as_array().expect("files");
    assert!(files.len() >= 40);
    for f in files {
        let path = f["path"].as_str().expect("path");
        let header = std::fs::read_to_string(path).expect("instance");
        let quasi = header.contains("# expect classification: quasi-paradox");
        let want = if quasi { "differs" } else { "agree" };
        assert_eq!(f["verdict"], want, "{path}");
        if quasi {
            assert_eq!(f["field"], "classification");
            let saved = PathBuf::from(f["saved"].as_str().expect("saved"));
            assert!(effects(&std::fs::read_to_string(saved).expect("saved")) <= 3);
        }
    }
}

#[test]
fn generated_instances_are_reproducible_and_check_clean() {
    // FF8 at one challenge: with two, a few generated scenarios reach millions of states
    // and take both engines seconds (docs/ff8.md).
    let flags: [(&str, &[&str]); 5] = [
        ("ar", &[]),
        ("fft", &[]),
        ("lancer", &[]),
        ("foeman", &[]),
        ("ff8", &["--ff8-bound", "1"]),
    ];
    for (system, extra) in flags {
        let d = TempDir::new(&format!("gen-{system}"));
        let mut args = vec![
            "gen",
            "--system",
            system,
            "--count",
            "12",
            "--seed",
            "5",
            "--out",
            s(&d.0),
        ];
        args.extend_from_slice(extra);
        let o = gordian(&args);
        assert!(o.status.success(), "{system}: {}", text(&o.stderr));
        let files = std::fs::read_dir(&d.0).expect("dir").count();
        assert_eq!(files, 12, "{system}");
        let o = gordian(&["check", "--timeout", "20", s(&d.0)]);
        assert_eq!(o.status.code(), Some(0), "{system}: {}", text(&o.stderr));
        let summary = text(&o.stdout);
        assert!(
            summary.contains("12 file(s): 12 agree, 0 disagree, 0 error(s)"),
            "{system}: {summary}"
        );
        // The same seed gives the same instances; stdout holds them one after another.
        let a = gordian(&["gen", "--system", system, "--count", "3", "--seed", "5"]);
        let b = gordian(&["gen", "--system", system, "--count", "3", "--seed", "5"]);
        assert_eq!(a.stdout, b.stdout, "{system}");
        let first = std::fs::read_dir(&d.0)
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .min()
            .expect("a file");
        let one = std::fs::read(first).expect("file");
        assert!(a.stdout.starts_with(&one), "{system}");
        // A second run into the same directory does not overwrite.
        let o = gordian(&[
            "gen",
            "--system",
            system,
            "--count",
            "1",
            "--seed",
            "5",
            "--out",
            s(&d.0),
        ]);
        assert_eq!(o.status.code(), Some(2), "{system}");
        assert!(text(&o.stderr).contains("exists already"), "{system}");
    }
}

#[test]
fn gen_refuses_another_systems_flags() {
    let o = gordian(&["gen", "--system", "fft", "--max-effects", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--max-effects is a flag of the ar generator"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_priority_list_example_is_caught_within_1000_cases_and_shrunk_to_a_minimal_night() {
    let d = TempDir::new("against-priority");
    let r = fuzz_against("python3 examples/against/priority_list.py", 1000, &d.0, &[]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let saved = r.saved.expect("a saved night");
    let n = effects(&saved);
    assert!((1..=3).contains(&n), "{n} effects:\n{saved}");
    assert!(saved.contains("# first field that differs: "), "{saved}");
}

/// The brute-force example agrees with gordian on `cases` random nights (and on every
/// shipped night).
fn brute_force_agrees(cases: u32, seed: &str) {
    let d = TempDir::new("against-brute");
    let brute = "python3 examples/against/ar_brute.py";
    let r = fuzz_against(
        brute,
        cases,
        &d.0,
        &["--seed", seed, "--case-timeout", "20"],
    );
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!("{cases} agreed")),
        "{}",
        r.stdout
    );
    for field in [
        "classification",
        "cuts",
        "death_probabilities",
        "resolutions",
    ] {
        assert!(
            r.stdout.contains(field),
            "{field} not compared: {}",
            r.stdout
        );
    }
}

#[test]
fn the_brute_force_example_agrees_on_random_and_shipped_nights() {
    brute_force_agrees(200, "1");
    let d = TempDir::new("against-brute-check");
    // The example reads the night format's kinds before roles, modifiers and visit
    // triggers (its README says so): every shipped night but the role and results ones
    // and those with a `visited:K` passive.
    let mut nights: Vec<String> = std::fs::read_dir("instances/ar")
        .expect("instances/ar")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "night"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).expect("a shipped night");
            !text
                .lines()
                .any(|l| !l.starts_with('#') && l.contains("visited:"))
        })
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.contains("/role-") && !p.contains("/results-"))
        .collect();
    nights.sort();
    assert!(nights.len() >= 45, "{} nights", nights.len());
    let mut args = vec![
        "check",
        "--against",
        "python3 examples/against/ar_brute.py",
        "--out",
        s(&d.0),
    ];
    args.extend(nights.iter().map(String::as_str));
    let o = gordian(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let agree = format!(": {} agree, 0 differ or fail", nights.len());
    assert!(text(&o.stdout).contains(&agree), "{}", text(&o.stdout));
}

/// The long run: `BRUTE_CASES=10000 cargo test --release --test against -- --ignored`.
#[test]
#[ignore = "long: 10,000 nights through a Python brute force"]
fn the_brute_force_example_agrees_on_ten_thousand_nights() {
    let cases = std::env::var("BRUTE_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(10_000);
    brute_force_agrees(cases, "2026");
}

#[test]
fn a_large_answer_is_compared_in_full() {
    // Nine independent mutual blocks: 2^9 = 512 resolutions, more than `resolve` writes
    // out by default; the resolver's full lists are compared all the same.
    let d = TempDir::new("against-large");
    let night: String = (0..9)
        .map(|i| format!("A{i} block B{i}\nB{i} block A{i}\n"))
        .collect();
    let f = d.write("pairs.night", night);
    let out = d.0.join("failures");
    let o = gordian(&[
        "check",
        "--json",
        "--against",
        &planted("honest"),
        "--out",
        s(&out),
        s(&f),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let compared = v["files"][0]["compared"].to_string();
    for field in ["resolutions", "outcomes", "death_probabilities"] {
        assert!(compared.contains(field), "{compared}");
    }
    // A resolver that misses one of the 512 resolutions differs there.
    let o = gordian(&[
        "check",
        "--json",
        "--against",
        "python3 -c \"import json,os,subprocess,sys; a=json.loads(subprocess.run([os.environ['GORDIAN_BIN'],'resolve','--json','--expand=always','-'],stdin=sys.stdin,capture_output=True,text=True).stdout); a['resolutions'].pop(); print(json.dumps({'resolutions': a['resolutions']}))\"",
        "--out",
        s(&out),
        s(&f),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["files"][0]["field"], "resolutions");
}

/// `gen --out -` is standard output (its default), never a directory named `-`.
#[test]
fn gen_out_dash_is_standard_output() {
    let d = TempDir::new("gen-dash");
    let o = Command::new(BIN)
        .args(["gen", "--count", "2", "--seed", "5", "--out", "-"])
        .current_dir(&d.0)
        .output()
        .expect("gordian runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let a = gordian(&["gen", "--count", "2", "--seed", "5"]);
    assert_eq!(o.stdout, a.stdout);
    assert!(!d.0.join("-").exists());
}
