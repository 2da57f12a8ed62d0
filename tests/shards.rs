//! Batch past one machine, through the binary: `batch --shard auto` run as separate local
//! processes under a Slurm job array's variables (ids from 1, ids from 0) and a Kubernetes
//! Indexed Job's, then `merge --expect`: every input exactly once, the same records as one
//! `batch` run (timings aside). A missing shard, a duplicated record, a broken or partial
//! line and conflicting variables fail with exit 2; `merge --out` never overwrites
//! without `--force` and never leaves a partial file. The recipes of `deploy/` run
//! without a cluster: the Slurm script with `bash` under fake Slurm variables, the
//! Kubernetes manifests' commands (read from the YAML, `/data` a temporary folder) as
//! one process per completion index, then the merge Job's `sh -c` line.

use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

mod common;

use common::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_gordian");

/// Environment variables to set in a child.
type Env = Vec<(&'static str, String)>;

/// Every variable `--shard auto` reads: removed from each child, then set as a test says.
const SHARD_VARS: [&str; 7] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "GORDIAN_SHARD_COUNT",
];

fn command(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir).args(args);
    for v in SHARD_VARS {
        c.env_remove(v);
    }
    c.env_remove("SLURM_CPUS_PER_TASK");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn gordian(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    command(dir, args, env).output().expect("run gordian")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A folder `in/` of generated instances: 30 ?AR nights and a few of every other system
/// (small enough that both engines answer well within the grace period, so every record
/// is the same from run to run but for its timings).
fn fixture(name: &str) -> TempDir {
    let d = TempDir::new(name);
    let gens: [&[&str]; 5] = [
        &["--system", "ar", "--count", "30", "--seed", "2"],
        &["--system", "fft", "--count", "3", "--seed", "2"],
        &["--system", "lancer", "--count", "3", "--seed", "2"],
        &["--system", "foeman", "--count", "3", "--seed", "2"],
        &[
            "--system",
            "ff8",
            "--count",
            "2",
            "--seed",
            "3",
            "--ff8-bound",
            "1",
            "--ff8-regions",
            "2",
        ],
    ];
    for g in gens {
        let mut args = vec!["gen", "--out", "in"];
        args.extend_from_slice(g);
        let out = gordian(&d.0, &args, &[]);
        assert!(out.status.success(), "{out:?}");
    }
    d
}

fn records(report: &Path) -> Vec<Value> {
    std::fs::read_to_string(report)
        .unwrap_or_else(|e| panic!("{}: {e}", report.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

/// Records by path, without their timings and shard tags; panics on a path recorded twice.
fn untimed(recs: &[Value]) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    for r in recs {
        let mut r = r.clone();
        r.as_object_mut().expect("an object").remove("times_ms");
        r.as_object_mut().expect("an object").remove("shard");
        let path = r["path"].as_str().expect("path").to_string();
        assert!(m.insert(path.clone(), r).is_none(), "{path} twice");
    }
    m
}

/// Runs the shards as separate processes at once, one per environment, each writing
/// `reports/shard-NAME.jsonl`; returns the reports and each shard's stderr.
fn run_shards(dir: &Path, shards: &[(String, Env)]) -> Vec<(PathBuf, String)> {
    std::fs::create_dir_all(dir.join("reports")).expect("mkdir");
    let children: Vec<(PathBuf, Child)> = shards
        .iter()
        .map(|(name, env)| {
            let report = format!("reports/shard-{name}.jsonl");
            let child = command(
                dir,
                &[
                    "batch", "in", "--shard", "auto", "--resume", "--out", &report, "--jobs", "1",
                ],
                env,
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gordian");
            (dir.join(report), child)
        })
        .collect();
    children
        .into_iter()
        .map(|(report, child)| {
            let out = child.wait_with_output().expect("wait");
            let err = text(&out.stderr);
            assert!(out.status.success(), "{}: {err}", report.display());
            (report, err)
        })
        .collect()
}

fn slurm(id: usize, min: usize, n: usize) -> Env {
    vec![
        ("SLURM_ARRAY_TASK_ID", id.to_string()),
        ("SLURM_ARRAY_TASK_MIN", min.to_string()),
        ("SLURM_ARRAY_TASK_MAX", (min + n - 1).to_string()),
        ("SLURM_ARRAY_TASK_STEP", "1".to_string()),
        ("SLURM_ARRAY_TASK_COUNT", n.to_string()),
    ]
}

fn kubernetes(index: usize, n: usize) -> Env {
    vec![
        ("JOB_COMPLETION_INDEX", index.to_string()),
        ("GORDIAN_SHARD_COUNT", n.to_string()),
    ]
}

fn merge(dir: &Path, reports: &[PathBuf], extra: &[&str]) -> Output {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(reports.iter().map(|r| r.to_str().expect("UTF-8 path")));
    args.extend_from_slice(extra);
    gordian(dir, &args, &[])
}

#[test]
fn shards_as_separate_processes_merge_into_one_batch() {
    let d = fixture("shards");
    let single = gordian(&d.0, &["batch", "in", "--out", "single.jsonl"], &[]);
    assert!(single.status.success(), "{single:?}");
    let want = untimed(&records(&d.0.join("single.jsonl")));
    assert_eq!(want.len(), 41);

    let n = 4;
    let schemes: Vec<(&str, Vec<(String, Env)>)> = vec![
        (
            "slurm from 1",
            (1..=n)
                .map(|id| (format!("s1-{id}"), slurm(id, 1, n)))
                .collect(),
        ),
        (
            "slurm from 0",
            (0..n)
                .map(|id| (format!("s0-{id}"), slurm(id, 0, n)))
                .collect(),
        ),
        (
            "kubernetes",
            (0..n)
                .map(|i| (format!("k-{i}"), kubernetes(i, n)))
                .collect(),
        ),
    ];
    for (scheme, shards) in &schemes {
        let ran = run_shards(&d.0, shards);
        let mut ks = Vec::new();
        for (_, err) in &ran {
            let first = err.lines().next().unwrap_or_default();
            assert!(first.starts_with("shard "), "{scheme}: {err}");
            let from = if scheme.starts_with("slurm") {
                "(from SLURM_ARRAY_TASK_ID="
            } else {
                "(from JOB_COMPLETION_INDEX="
            };
            assert!(first.contains(from), "{scheme}: {first}");
            ks.push(
                first["shard ".len()..]
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
        assert_eq!(ks, ["1/4", "2/4", "3/4", "4/4"], "{scheme}");
        let reports: Vec<PathBuf> = ran.into_iter().map(|(r, _)| r).collect();
        // Each shard has about a quarter of the inputs, none of another shard's.
        for r in &reports {
            let n = records(r).len();
            assert!((10..=11).contains(&n), "{scheme}: {}: {n}", r.display());
        }
        let merged = format!("merged-{}.jsonl", scheme.replace(' ', "-"));
        let out = merge(&d.0, &reports, &["--out", &merged, "--expect", "in"]);
        assert_eq!(out.status.code(), Some(0), "{scheme}: {out:?}");
        let summary = text(&out.stderr);
        assert!(
            summary.starts_with(&format!(
                "merged 41 record(s) from 4 report(s) into {merged}: "
            )) && summary.contains("every one of the 41 input(s) has exactly one record"),
            "{summary}"
        );
        assert!(summary.contains(" non-paradox, "), "per label: {summary}");
        let got = records(&d.0.join(&merged));
        let paths: Vec<&str> = got.iter().map(|r| r["path"].as_str().unwrap()).collect();
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted, "sorted by path");
        assert_eq!(
            untimed(&got),
            want,
            "{scheme}: the records of one batch run"
        );
    }
}

/// A small folder of nights and its 3 shard reports (Slurm ids from 1).
fn three_shards(name: &str) -> (TempDir, Vec<PathBuf>) {
    let d = TempDir::new(name);
    let out = gordian(
        &d.0,
        &[
            "gen", "--system", "ar", "--count", "14", "--seed", "9", "--out", "in",
        ],
        &[],
    );
    assert!(out.status.success(), "{out:?}");
    let shards: Vec<(String, Env)> = (1..=3)
        .map(|id| (id.to_string(), slurm(id, 1, 3)))
        .collect();
    let reports = run_shards(&d.0, &shards)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    (d, reports)
}

/// Without `--expect`, merge still names the shards that have no record (from the shard
/// each record carries), and says when it cannot tell.
#[test]
fn without_expect_merge_names_the_shards_without_records() {
    let (d, reports) = three_shards("gap");
    for r in &reports {
        let tags: Vec<String> = records(r)
            .iter()
            .map(|v| v["shard"].as_str().unwrap_or("none").to_string())
            .collect();
        assert!(tags.windows(2).all(|w| w[0] == w[1]), "{tags:?}");
        assert!(tags[0].ends_with("/3"), "{tags:?}");
    }
    let out = merge(&d.0, &[reports[0].clone(), reports[2].clone()], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: no record from shard(s) 2 of 3"),
        "{err}"
    );
    // An unsharded run's report among them: missing shards cannot be told.
    let whole = gordian(&d.0, &["batch", "in", "--out", "whole.jsonl"], &[]);
    assert!(whole.status.success(), "{whole:?}");
    assert!(records(&d.0.join("whole.jsonl"))
        .iter()
        .all(|v| v.get("shard").is_none()));
    let out = merge(&d.0, &[d.0.join("whole.jsonl")], &[]);
    assert!(
        text(&out.stderr).contains("warning: without --expect"),
        "{out:?}"
    );
}

#[test]
fn a_missing_shard_fails_listing_the_missing_inputs() {
    let (d, reports) = three_shards("missing");
    let out = merge(&d.0, &reports[..2], &["--expect", "in", "--out", "m.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = text(&out.stderr);
    let mut missing: Vec<String> = records(&reports[2])
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    missing.sort();
    assert_eq!(missing.len(), 4);
    assert!(
        err.starts_with(&format!(
            "error: 4 input(s) have no record: {}",
            missing.join(", ")
        )),
        "{err}"
    );
    assert!(err.contains("nothing written"), "{err}");
    assert!(!d.0.join("m.jsonl").exists(), "nothing written");
    // The first few and the count, when many are missing.
    let out = merge(&d.0, &reports[..1], &["--expect", "in"]);
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: 9 input(s) have no record: ") && !err.contains("more)"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing on standard output");
    // A folder with more inputs than records: more than ten missing are counted.
    for i in 0..12 {
        std::fs::write(d.0.join(format!("in/extra-{i:02}.night")), "A block B\n").unwrap();
    }
    let out = merge(&d.0, &reports, &["--expect", "in"]);
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: 12 input(s) have no record: in/extra-00.night, ")
            && err.contains("in/extra-09.night, ... (2 more)"),
        "{err}"
    );
    // And records for paths that are not inputs: the same folder written differently.
    let out = merge(&d.0, &reports, &["--expect", "./in"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("26 input(s) have no record: ./in/")
            && err.contains("14 record(s) are for paths that are not inputs under --expect: in/"),
        "{err}"
    );
}

#[test]
fn duplicates_broken_lines_and_partial_lines() {
    let (d, reports) = three_shards("dup");
    // The same report twice: identical records, merged once.
    let mut twice = reports.clone();
    twice.push(reports[0].clone());
    let out = merge(&d.0, &twice, &["--expect", "in"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout).lines().count(), 14);
    assert!(
        text(&out.stderr).contains("; 5 identical duplicate record(s) left out"),
        "{}",
        text(&out.stderr)
    );

    // A record of shard 1 run again (other timings) in shard 2's report: two records.
    let first = std::fs::read_to_string(&reports[0]).unwrap();
    let line = first.lines().next().unwrap();
    let mut rec: Value = serde_json::from_str(line).unwrap();
    rec["times_ms"]["direct"] = serde_json::json!(1234.5);
    let path = rec["path"].as_str().unwrap().to_string();
    let other = d.write(
        "reports/again.jsonl",
        format!(
            "{}\n{rec}\n",
            std::fs::read_to_string(&reports[1]).unwrap().trim_end()
        ),
    );
    let out = merge(
        &d.0,
        &[reports[0].clone(), other.clone(), reports[2].clone()],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {path} has two different records: {}:1 and {}:6",
            reports[0].display(),
            other.display()
        )),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    // A line that is not a record, located; a partially written last line, named.
    let broken = d.write(
        "reports/broken.jsonl",
        format!("{line}\nhello\n{}", &line[..line.len() / 2]),
    );
    let out = merge(&d.0, std::slice::from_ref(&broken), &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = text(&out.stderr);
    let b = broken.display();
    assert!(
        err.contains(&format!(
            "error: {b}:2: not a gordian batch report: the line is not JSON"
        )) && err.contains(&format!("error: {b}:3: the last line is partially written")),
        "{err}"
    );
}

#[test]
fn merge_out_is_whole_or_absent() {
    let (d, reports) = three_shards("out");
    let existing = d.write("report.jsonl", "keep me\n");
    let out = merge(&d.0, &reports, &["--out", "report.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("pass --force"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me\n");
    let out = merge(&d.0, &reports, &["--out", "report.jsonl", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(records(&existing).len(), 14);
    // Without --expect, the records' shard tags say every shard is there.
    assert!(
        text(&out.stderr).contains("every shard of 3 has records"),
        "{out:?}"
    );
    // `--out -` is standard output, like no --out.
    let dash = merge(&d.0, &reports, &["--out", "-"]);
    let none = merge(&d.0, &reports, &[]);
    assert_eq!(dash.stdout, none.stdout);
    assert_eq!(
        text(&dash.stdout),
        std::fs::read_to_string(&existing).unwrap()
    );
    // A shard report can be merged into itself (read first, then replaced).
    let out = merge(
        &d.0,
        &reports[..1],
        &["--out", reports[0].to_str().unwrap(), "--force"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A file that cannot be written: exit 2 (as every command's output file); standard
    // output that fails: 1. No temporary file left behind.
    let out = merge(&d.0, &reports, &["--out", "no/such/dir/r.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // --force replaces a report file, never a device or a FIFO.
    let fifo = d.0.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for special in ["/dev/null", fifo.to_str().unwrap()] {
        let out = merge(&d.0, &reports, &["--out", special, "--force"]);
        assert_eq!(out.status.code(), Some(2), "{special}: {out:?}");
        assert!(text(&out.stderr).contains("not a regular file"), "{out:?}");
    }
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let full = std::fs::File::create("/dev/full").expect("/dev/full");
    let out = command(&d.0, &["merge", reports[0].to_str().unwrap()], &[])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn conflicting_or_missing_variables_fail_with_exit_2() {
    let d = TempDir::new("vars");
    d.write("in/a.night", "A block B\n");
    let report = d.write("r.jsonl", "{\"path\":\"in/a.night\"}\n");
    let cases: Vec<(Env, &[&str])> = vec![
        (vec![], &["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"]),
        (
            {
                let mut v = slurm(2, 1, 3);
                v.extend(kubernetes(0, 3));
                v
            },
            &["disagree", "2/3", "1/3"],
        ),
        (slurm(4, 1, 3)[..1].to_vec(), &["SLURM_ARRAY_TASK_MIN"]),
        (
            vec![
                ("SLURM_ARRAY_TASK_ID", "4".into()),
                ("SLURM_ARRAY_TASK_MIN", "1".into()),
                ("SLURM_ARRAY_TASK_COUNT", "3".into()),
            ],
            &["SLURM_ARRAY_TASK_ID=4", "past the array's 3 task(s)"],
        ),
        (
            vec![("JOB_COMPLETION_INDEX", "0".into())],
            &["GORDIAN_SHARD_COUNT is not", "manifest"],
        ),
        (
            kubernetes(5, 3),
            &["JOB_COMPLETION_INDEX=5", "GORDIAN_SHARD_COUNT=3"],
        ),
        (
            {
                let mut v = slurm(1, 1, 3);
                v.push(("GORDIAN_SHARD_COUNT", "4".into()));
                v
            },
            &["GORDIAN_SHARD_COUNT=4", "3 task(s)"],
        ),
    ];
    for (env, words) in cases {
        // With --resume, as the recipes of deploy/ run it: the report may exist, and the
        // shard is checked before it is opened.
        let out = gordian(
            &d.0,
            &[
                "batch", "in", "--shard", "auto", "--out", "r.jsonl", "--resume",
            ],
            &env,
        );
        assert_eq!(out.status.code(), Some(2), "{env:?}: {out:?}");
        let err = text(&out.stderr);
        assert!(err.starts_with("error: --shard auto: "), "{err}");
        for w in words {
            assert!(err.contains(w), "{env:?}: `{w}` not in {err}");
        }
        assert_eq!(
            std::fs::read_to_string(&report).unwrap(),
            "{\"path\":\"in/a.night\"}\n",
            "the report is left alone"
        );
    }
    // --shard K/N as before, and said on stderr.
    let out = gordian(&d.0, &["batch", "in", "--shard", "1/1"], &[]);
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stderr).starts_with("shard 1/1 (from --shard)\n"));
}

#[test]
fn the_slurm_script_runs_without_slurm() {
    let d = fixture("sbatch");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm/gordian-batch.sbatch");
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |env: Env, args: &[&str]| {
        let mut c = Command::new("bash");
        c.current_dir(&d.0)
            .arg(&script)
            .args(args)
            .env("PATH", &path);
        for v in SHARD_VARS {
            c.env_remove(v);
        }
        c.env_remove("GORDIAN").env_remove("GORDIAN_REPORTS");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run bash")
    };
    // Array ids 0-2; the script's --jobs from SLURM_CPUS_PER_TASK, or the arguments'.
    let mut children = Vec::new();
    for id in 0..3 {
        let mut env = slurm(id, 0, 3);
        env.push(("SLURM_CPUS_PER_TASK", "1".into()));
        let args: &[&str] = if id == 0 {
            &["in", "--jobs", "2"]
        } else {
            &["in"]
        };
        children.push(run(env, args));
    }
    for (id, out) in children.iter().enumerate() {
        assert!(out.status.success(), "task {id}: {out:?}");
        assert!(
            text(&out.stderr).starts_with(&format!(
                "shard {}/3 (from SLURM_ARRAY_TASK_ID={id}",
                id + 1
            )),
            "{}",
            text(&out.stderr)
        );
    }
    let reports: Vec<PathBuf> = (0..3)
        .map(|id| d.0.join(format!("reports/shard-{id}.jsonl")))
        .collect();
    let out = merge(&d.0, &reports, &["--expect", "in", "--out", "report.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(records(&d.0.join("report.jsonl")).len(), 41);
    // Running a task again resumes its report: nothing redone, nothing duplicated.
    let again = run(slurm(1, 0, 3), &["in"]);
    assert!(again.status.success(), "{again:?}");
    assert!(text(&again.stderr).contains("skipped (already in the report)"));
    let out = merge(&d.0, &reports, &["--expect", "in"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Outside a job array, or without inputs: exit 2 and why.
    let outside = run(vec![], &["in"]);
    assert_eq!(outside.status.code(), Some(2));
    assert!(text(&outside.stderr).contains("sbatch --array"));
    let no_inputs = run(slurm(1, 0, 3), &[]);
    assert_eq!(no_inputs.status.code(), Some(2));
}

/// The value of the first `key:` line of a manifest (comment and quotes removed).
fn yaml_value<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no `{key}:` in the manifest"))
        .split(" #")
        .next()
        .unwrap()
        .trim()
        .trim_matches('"')
}

/// The list under the first `command:` of a manifest: `- item` lines, or one folded
/// (`- >-`) item whose lines are joined by spaces.
fn yaml_command(text: &str) -> Vec<String> {
    let mut lines = text
        .lines()
        .skip_while(|l| l.trim() != "command:")
        .skip(1)
        .peekable();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let first = *lines.peek().expect("a command list");
    let depth = indent(first);
    let mut items: Vec<String> = Vec::new();
    for l in lines {
        if l.trim().is_empty() || indent(l) < depth {
            break;
        }
        let t = l.trim();
        if indent(l) == depth {
            let Some(item) = t.strip_prefix("- ") else {
                break;
            };
            let item = item.split(" #").next().unwrap().trim();
            items.push(if item == ">-" {
                String::new()
            } else {
                item.trim_matches('"').to_string()
            });
        } else {
            let last = items.last_mut().expect("an item to continue");
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(t);
        }
    }
    items
}

#[test]
fn the_kubernetes_manifests_run_as_local_processes() {
    let d = fixture("k8s");
    std::fs::rename(d.0.join("in"), d.0.join("instances")).unwrap();
    std::fs::create_dir(d.0.join("reports")).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes");
    let job = std::fs::read_to_string(dir.join("gordian-batch-job.yaml")).unwrap();
    assert_eq!(yaml_value(&job, "completionMode"), "Indexed");
    let n: usize = yaml_value(&job, "completions").parse().unwrap();
    let count_at = job
        .find("- name: GORDIAN_SHARD_COUNT")
        .expect("GORDIAN_SHARD_COUNT");
    assert_eq!(
        yaml_value(&job[count_at..], "value"),
        n.to_string(),
        "GORDIAN_SHARD_COUNT = completions"
    );
    let pod = yaml_command(&job);
    assert_eq!(pod[..4], ["gordian", "batch", "/data/instances", "--shard"]);
    let data = format!("{}/", d.0.display());
    // Each pod: the manifest's command, /data the temporary folder, its index and count.
    let children: Vec<Child> = (0..n)
        .map(|i| {
            let args: Vec<String> = pod[1..]
                .iter()
                .map(|a| {
                    a.replace("/data/", &data)
                        .replace("$(JOB_COMPLETION_INDEX)", &i.to_string())
                })
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            command(&d.0, &args, &kubernetes(i, n))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "pod {i}: {out:?}");
        assert!(
            text(&out.stderr).starts_with(&format!(
                "shard {}/{n} (from JOB_COMPLETION_INDEX={i}, GORDIAN_SHARD_COUNT={n})",
                i + 1
            )),
            "{}",
            text(&out.stderr)
        );
    }
    // The merge Job's command, through sh as in the pod.
    let merge_job = std::fs::read_to_string(dir.join("gordian-merge-job.yaml")).unwrap();
    let sh = yaml_command(&merge_job);
    assert_eq!(sh[..2], ["sh", "-c"]);
    let script = sh[2].replace("/data/", &data);
    assert!(script.starts_with("exec gordian merge "), "{script}");
    let path = format!(
        "{}:{}",
        Path::new(BIN).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text(&out.stderr).contains(&format!("from {n} report(s) into {data}report.jsonl: ")),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(records(&d.0.join("report.jsonl")).len(), 41);
}
