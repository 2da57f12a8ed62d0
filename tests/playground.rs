//! The playground's requests (`gordian::playground`, what the browser page and the npm
//! package call through WebAssembly) against the CLI itself: every shipped instance of
//! every system, given as text, is answered with the report and the JSON the CLI prints
//! for its file (`resolve --explain` / `--explain --json` for nights, `check --json`'s
//! answer for the other systems). The same comparison runs in a real browser in
//! `web/tests/`.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("gordian runs");
    assert!(out.status.success(), "gordian {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn shipped() -> Vec<(String, std::path::PathBuf)> {
    let mut all = Vec::new();
    for sys in ["ar", "fft", "lancer", "foeman", "ff8"] {
        let mut files: Vec<_> = std::fs::read_dir(Path::new("instances").join(sys))
            .expect("instances/")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no shipped {sys} instances");
        all.extend(files.into_iter().map(|p| (sys.to_string(), p)));
    }
    all
}

#[test]
fn every_shipped_instance_is_answered_as_the_cli_answers_its_file() {
    for (sys, path) in shipped() {
        let file = path.to_str().expect("UTF-8 path");
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path.file_name().unwrap().to_str().unwrap();
        // Without naming the system: recognised by the extension.
        let req = json!({"text": text, "name": name});
        let r: Value = serde_json::from_str(&gordian::playground::solve(&req.to_string()))
            .expect("responses are JSON");
        assert_eq!(r["ok"], true, "{file}: {r}");
        assert_eq!(r["system"], sys.as_str(), "{file}");
        if sys == "ar" {
            let human = cli(&["resolve", file, "--explain"]);
            let json: Value =
                serde_json::from_str(&cli(&["resolve", file, "--explain", "--json"])).unwrap();
            assert_eq!(r["report"].as_str().unwrap(), human, "{file}");
            assert_eq!(r["answer"], json, "{file}");
            assert_eq!(r["command"], "gordian resolve FILE --explain --json");
        } else {
            let doc: Value = serde_json::from_str(&cli(&["check", file, "--json"])).unwrap();
            assert_eq!(r["answer"], doc["files"][0]["answer"], "{file}");
            assert_eq!(r["command"], "gordian check FILE --json");
        }
        // The same text without a name: the system is recognised from the text.
        assert_eq!(
            gordian::playground::detect("instance", &text),
            sys,
            "{file}"
        );
    }
}

/// A generated night large enough that neither engine answers in 1 ms.
fn big_night() -> String {
    cli(&[
        "gen",
        "--system",
        "ar",
        "--seed",
        "3",
        "--count",
        "1",
        "--out",
        "-",
        "--players",
        "40",
        "--max-effects",
        "400",
    ])
}

#[test]
fn a_time_limit_stops_a_long_night_with_the_cli_message() {
    let night = big_night();
    let req = json!({"text": night, "name": "big.night", "timeout_ms": 1});
    let r: Value = serde_json::from_str(&gordian::playground::solve(&req.to_string())).unwrap();
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["kind"], "timeout", "{r}");
    assert!(r["status"]
        .as_str()
        .unwrap()
        .contains("no answer within the time limit of 0.001 s"));
}

/// A request's memory bound (`max_memory_mib`) stops the engines as `--max-memory` does,
/// and the response's kind is `limit` (the engines' limits are on their own meters).
#[test]
fn a_memory_bound_stops_the_engines_with_kind_limit() {
    let night = big_night();
    for (text, name) in [(night.as_str(), "big.night"), ("bound: 3\n", "free.ff8")] {
        let req = json!({"text": text, "name": name, "max_memory_mib": 1});
        let r: Value = serde_json::from_str(&gordian::playground::solve(&req.to_string())).unwrap();
        assert_eq!(r["ok"], false, "{name}: {r}");
        assert_eq!(r["kind"], "limit", "{name}: {r}");
        assert!(
            r["status"]
                .as_str()
                .unwrap()
                .contains("the memory bound of 1 MiB"),
            "{name}: {r}"
        );
    }
    let req = json!({"text": "x", "max_memory_mib": 0});
    let r: Value = serde_json::from_str(&gordian::playground::solve(&req.to_string())).unwrap();
    assert_eq!(r["kind"], "input", "{r}");
}
