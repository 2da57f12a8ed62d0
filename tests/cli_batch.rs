//! Integration tests of `gordian batch`, `gordian check` and `gordian fuzz` through the
//! binary: error records for bad, empty and oversized files, resuming, sharding, exit
//! codes.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::TempDir;

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("run gordian")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn records(report: &Path) -> Vec<Value> {
    std::fs::read_to_string(report)
        .expect("report")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

fn by_path(recs: &[Value]) -> BTreeMap<String, Value> {
    recs.iter()
        .map(|r| (r["path"].as_str().expect("path").to_string(), r.clone()))
        .collect()
}

/// A directory of nights: two good ones, a malformed one, an empty one, a huge one, and a
/// text file that is not picked up.
fn fixture(name: &str) -> TempDir {
    let d = TempDir::new(name);
    d.write(
        "good/cycle.night",
        b"R1 block R2\nR2 block R3\nR3 block R1\n",
    );
    d.write(
        "good/mutual.json",
        br#"{"effects": [{"actor": "A", "kind": "block", "targets": ["B"]},
                         {"actor": "B", "kind": "block", "targets": ["A"]}]}"#,
    );
    d.write("good/kill.night", b"M kill V\nD protect V\n");
    d.write("bad.night", b"R1 block\n");
    d.write("empty.night", b"");
    let mut huge = b"# padding\n".repeat(17 * 1024 * 1024 / 10 + 1);
    huge.extend_from_slice(b"A block B\n");
    d.write("huge.night", &huge);
    d.write("notes.txt", b"not a night");
    d
}

#[test]
fn batch_reports_every_instance_good_or_bad() {
    let d = fixture("batch");
    let report = d.0.join("report.jsonl");
    let out = gordian(&["batch", s(&d.0), "--out", s(&report), "--jobs", "2"]);
    assert!(out.status.success(), "{out:?}");
    let recs = by_path(&records(&report));
    let p = |n: &str| s(&d.0.join(n)).to_string();
    assert_eq!(recs.len(), 6, "{recs:#?}");
    assert!(!recs.contains_key(&p("notes.txt")));

    let cycle = &recs[&p("good/cycle.night")];
    assert_eq!(cycle["classification"], "paradox");
    assert_eq!(cycle["label"], "paradox");
    // Counts are exact decimal strings (they can exceed any integer type).
    assert_eq!(cycle["resolutions"], "0");
    assert_eq!(cycle["optimal_cut_count"], "3");
    assert_eq!(cycle["components"], 1);
    assert_eq!(
        cycle["optimal_cuts"],
        serde_json::json!([["e1"], ["e2"], ["e3"]])
    );
    assert_eq!(
        cycle["cut_cost"],
        serde_json::json!([{"priority": 2, "count": 1}])
    );
    assert_eq!(cycle["engines"], serde_json::json!(["direct", "sat"]));
    assert!(cycle["times_ms"]["direct"].is_number() && cycle["times_ms"]["sat"].is_number());
    assert_eq!(cycle["cross_checked"], true);

    let mutual = &recs[&p("good/mutual.json")];
    assert_eq!(mutual["classification"], "quasi-paradox");
    assert_eq!(
        (mutual["resolutions"].as_str(), mutual["ways"].as_str()),
        (Some("2"), Some("2"))
    );
    assert!(mutual["optimal_cuts"].is_null());
    assert_eq!(recs[&p("good/kill.night")]["classification"], "non-paradox");

    // A night without effects has nothing to resolve: a located input error, not a
    // silent empty answer.
    let empty = &recs[&p("empty.night")];
    assert_eq!(empty["error_kind"], "input", "{empty}");
    let msg = empty["error"].as_str().expect("message");
    assert!(
        msg.starts_with("error: the night has no effects") && msg.contains("empty.night:1:1"),
        "{msg}"
    );

    let bad = &recs[&p("bad.night")];
    assert_eq!(bad["error_kind"], "input");
    let msg = bad["error"].as_str().expect("message");
    assert!(msg.starts_with("error: "), "{msg}");
    assert!(msg.contains(&format!("--> {}:1:", p("bad.night"))), "{msg}");

    let huge = &recs[&p("huge.night")];
    assert_eq!(huge["error_kind"], "input");
    assert!(
        huge["error"].as_str().expect("message").contains("MiB"),
        "{huge}"
    );

    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(
        summary.contains("6 instance(s)") && summary.contains("3 input error(s)"),
        "{summary}"
    );
}

#[test]
fn resume_neither_redoes_nor_loses_records() {
    let d = fixture("resume");
    let report = d.0.join("report.jsonl");
    let run = || gordian(&["batch", s(&d.0), "--out", s(&report), "--resume"]);
    assert!(run().status.success());
    let first = std::fs::read_to_string(&report).expect("report");
    assert_eq!(first.lines().count(), 6);

    // Again: everything is skipped, nothing is written.
    let out = run();
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&report).expect("report"), first);
    assert!(String::from_utf8_lossy(&out.stderr).contains("6 skipped"));

    // Delete one line: resuming adds exactly it back.
    let lines: Vec<&str> = first.lines().collect();
    let removed = lines[2];
    let kept: String = lines
        .iter()
        .filter(|l| **l != removed)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&report, &kept).expect("write");
    assert!(run().status.success());
    let now = std::fs::read_to_string(&report).expect("report");
    assert!(now.starts_with(&kept), "appended, not rewritten");
    let added: Vec<Value> = now[kept.len()..]
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let removed: Value = serde_json::from_str(removed).expect("JSON");
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["path"], removed["path"]);

    // A partially written last line is removed (the report stays JSON lines) and its
    // instance redone.
    let cut = now.trim_end().rfind('\n').expect("several lines") + 1;
    let partial_path: Value = serde_json::from_str(now[cut..].trim_end()).expect("JSON");
    let truncated = now[..cut + 20].to_string();
    std::fs::write(&report, &truncated).expect("write");
    assert!(run().status.success());
    let after = std::fs::read_to_string(&report).expect("report");
    assert!(after.starts_with(&now[..cut]), "complete lines kept");
    for line in after.lines() {
        serde_json::from_str::<Value>(line).expect("every line is a JSON record");
    }
    let redone: Vec<Value> = after[cut..]
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(redone.len(), 1);
    assert_eq!(redone[0]["path"], partial_path["path"]);
}

#[test]
fn shards_partition_the_inputs() {
    let d = TempDir::new("shard");
    for i in 0..11 {
        d.write(&format!("n{i:02}.night"), b"A block B\n");
    }
    let n = 3;
    let mut seen: Vec<String> = Vec::new();
    for k in 1..=n {
        let out = gordian(&["batch", s(&d.0), "--shard", &format!("{k}/{n}")]);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let paths: Vec<String> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("JSON");
                v["path"].as_str().expect("path").to_string()
            })
            .collect();
        assert!((3..=4).contains(&paths.len()), "balanced: {paths:?}");
        assert!(String::from_utf8_lossy(&out.stderr)
            .starts_with(&format!("shard {k}/{n} (from --shard)\n")));
        seen.extend(paths);
    }
    let distinct: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(seen.len(), 11, "no instance in two shards");
    assert_eq!(distinct.len(), 11, "every instance in some shard");

    let bad = gordian(&["batch", s(&d.0), "--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn check_exit_codes() {
    let d = fixture("check");
    let good = gordian(&["check", s(&d.0.join("good"))]);
    assert_eq!(good.status.code(), Some(0), "{good:?}");
    let table = String::from_utf8_lossy(&good.stdout);
    assert!(
        table.contains("3 file(s): 3 agree, 0 disagree, 0 error(s)"),
        "{table}"
    );
    assert!(table.lines().any(|l| l.contains("cycle.night")
        && l.contains("paradox")
        && l.trim_end().ends_with("agree")));

    let bad = gordian(&["check", s(&d.0.join("good")), s(&d.0.join("bad.night"))]);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("bad.night:1:"), "located: {err}");
    assert!(String::from_utf8_lossy(&bad.stdout).contains("1 error(s)"));

    let missing = gordian(&["check", s(&d.0.join("missing.night"))]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn fuzz_runs_and_summarises() {
    let d = TempDir::new("fuzz");
    let out = gordian(&[
        "fuzz",
        "--cases",
        "40",
        "--seed",
        "3",
        "--max-effects",
        "6",
        "--out",
        s(&d.0),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("40 ar case(s) in"), "{text}");
    let bad = gordian(&["fuzz", "--kinds", "visit,teleport"]);
    assert_eq!(bad.status.code(), Some(2));
    // A flag of another system's generator is an error naming that system.
    let foreign = gordian(&["fuzz", "--system", "fft", "--players", "3", "--cases", "1"]);
    assert_eq!(foreign.status.code(), Some(2), "{foreign:?}");
    let err = String::from_utf8_lossy(&foreign.stderr);
    assert!(
        err.starts_with("error: --players is a flag of the ar generator"),
        "{err}"
    );
}

#[test]
fn batch_refuses_a_missing_path_and_an_existing_report() {
    let d = fixture("batch-refuses");
    let out = gordian(&["batch", s(&d.0.join("nowhere"))]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nowhere: no such file or directory"), "{err}");
    assert!(out.stdout.is_empty(), "no record for a mistyped path");

    let report = d.0.join("report.jsonl");
    let good = d.0.join("good");
    assert_eq!(
        gordian(&["batch", s(&good), "--out", s(&report)])
            .status
            .code(),
        Some(0)
    );
    let before = std::fs::read_to_string(&report).unwrap();
    assert_eq!(records(&report).len(), 3);
    // Again without --resume or --force: refused, the report untouched.
    let out = gordian(&["batch", s(&good), "--out", s(&report)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), before);
    // --force starts it again: the same three records.
    let out = gordian(&["batch", s(&good), "--out", s(&report), "--force"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(records(&report).len(), 3);
}

/// A report is a regular file: a device is refused before anything is solved (reading
/// `/dev/full` to resume used to grow without end), and a file of one endless line is
/// refused as not a report at a bounded line length, without being held whole.
#[test]
fn batch_refuses_a_device_report_and_an_endless_line() {
    let d = fixture("batch-device");
    let good = d.0.join("good");
    if Path::new("/dev/full").exists() {
        for extra in [&["--resume"][..], &[][..]] {
            let mut args = vec!["batch", s(&good), "--out", "/dev/full"];
            args.extend_from_slice(extra);
            let out = gordian(&args);
            assert_eq!(out.status.code(), Some(2), "{extra:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("/dev/full: it is not a regular file"), "{err}");
        }
    }
    // 80 MiB without a line end: longer than any record may be.
    let report = d.0.join("zeros.jsonl");
    std::fs::write(&report, vec![b'0'; 80 << 20]).unwrap();
    let out = gordian(&["batch", s(&good), "--out", s(&report), "--resume"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("zeros.jsonl:1: not a gordian batch report: the line is longer than 64 MiB"),
        "{err}"
    );
    assert_eq!(
        std::fs::metadata(&report).unwrap().len(),
        80 << 20,
        "untouched"
    );
}

/// A file name that is not UTF-8 is read like any other by `check`, `batch` and `batch
/// --resume` (the name goes to the workers as bytes); its record carries the name with
/// the bad byte replaced, and the valid file beside it keeps its record.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_checked_and_recorded() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = TempDir::new("non-utf8-name");
    let bad = d.0.join(OsStr::from_bytes(b"bad\xff.night"));
    std::fs::write(&bad, b"R1 block R2\nR2 block R1\n").expect("write");
    d.write("good.night", b"R1 block R2\nR2 block R3\nR3 block R1\n");
    let o = gordian(&["check", s(&d.0)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("2 file(s): 2 agree"), "{out}");
    let report = d.0.join("report.jsonl");
    for args in [&[][..], &["--resume"][..]] {
        let mut all = vec!["batch", "--out", s(&report)];
        all.extend_from_slice(args);
        all.push(s(&d.0));
        let o = gordian(&all);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let recs = by_path(&records(&report));
    assert_eq!(recs.len(), 2, "{recs:?}");
    let bad_key = format!("{}/bad\u{fffd}.night", s(&d.0));
    // Two blocks on each other: two resolutions; three in a circle: a paradox.
    assert_eq!(recs[&bad_key]["classification"], "quasi-paradox");
    assert_eq!(
        recs[&format!("{}/good.night", s(&d.0))]["classification"],
        "paradox"
    );
}

/// `-` reads the instance from standard input in `check` and `batch`: the parent reads it
/// and hands it to a worker (whose own standard input carries its requests).
#[test]
fn check_and_batch_read_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let d = TempDir::new("stdin-dash");
    let report = d.0.join("r.jsonl");
    for args in [
        vec!["check", "--system", "ar", "--json", "-"],
        vec!["batch", "--system", "ar", "--out", s(&report), "-"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gordian");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"R1 block R2\nR2 block R3\nR3 block R1\n")
            .expect("write the night");
        // A hang guard only: the answer comes at once (before the fix, never).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while child.try_wait().expect("wait").is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "{args:?} did not answer"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = child.wait_with_output().expect("output");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if args[0] == "check" {
            let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
            assert!(v.to_string().contains("\"paradox\""), "{v}");
        }
    }
    let recs = records(&report);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["path"], "-");
    assert_eq!(recs[0]["classification"], "paradox");
}

/// `--out -` is standard output for the flags that take an output file (`batch`), and is
/// refused, with a message, by those that take a folder (`fuzz`, `man`, `check
/// --against`), as is an existing file or device there; no file named `-` is written.
#[test]
fn out_dash_is_standard_output_or_refused() {
    let d = TempDir::new("out-dash");
    d.write("n.night", b"M kill V\nD protect V\n");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(args)
            .current_dir(&d.0)
            .output()
            .expect("run gordian")
    };
    let o = run(&["batch", "--out", "-", "n.night"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let line: Value = serde_json::from_slice(&o.stdout).expect("one record on stdout");
    assert_eq!(line["path"], "n.night");
    for args in [
        &["batch", "--out", "-", "--resume", "n.night"][..],
        &["fuzz", "--cases", "1", "--out", "-"][..],
        &["fuzz", "--cases", "1", "--out", "/dev/null"][..],
        &["fuzz", "--cases", "1", "--out", "n.night"][..],
        &["man", "--out", "-"][..],
        &["check", "--against", "true", "--out", "-", "n.night"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("File exists"), "{args:?}: {err}");
    }
    assert!(!d.0.join("-").exists(), "a file named `-` was written");
}

/// `check --json` holds each file's answer as the JSON text its worker sent and writes
/// the document as a stream: on 40 nights of 2,000 effects (a 400 MB document) the
/// parent's peak resident memory stays under `--max-memory` plus 100 MiB (about 130 MiB
/// on the development machine). It held every answer as a JSON tree, twice, and the
/// document as one string: 5 GiB here.
#[cfg(target_os = "linux")]
#[test]
fn check_json_streams_its_document_within_the_memory_bound() {
    use std::process::Stdio;
    let d = TempDir::new("check-json-memory");
    let knobs = gordian::ar::Knobs {
        players: 1000,
        effects: Some(2000),
        kinds: gordian::ar::ActionKind::ALL[..5].to_vec(),
        priority_levels: 0,
        ..gordian::ar::Knobs::default()
    };
    for seed in 1..=40 {
        d.write(
            &format!("n{seed}.night"),
            gordian::ar::generate(&knobs, seed).to_text(),
        );
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(["check", "--json", "--max-memory", "1024", s(&d.0)])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run gordian");
    // Read the document as it comes (a reader that waits would stall the writer).
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut bytes = 0u64;
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(n) = std::io::Read::read(&mut out, &mut buf) {
            if n == 0 {
                break;
            }
            bytes += n as u64;
        }
        bytes
    });
    let peak_kib = common::peak_resident_kib(&mut child);
    let bytes = reader.join().expect("reader");
    assert_eq!(child.wait().expect("exit").code(), Some(0));
    assert!(bytes > 100 << 20, "a large document: {bytes} bytes");
    assert!(
        peak_kib < (1024 + 100) << 10,
        "the parent peaked at {} MiB",
        peak_kib >> 10
    );
}
