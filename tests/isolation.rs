//! `check` and `batch` solve each instance in a worker process: a worker that dies costs
//! its instance one `crash` record and the run goes on; a signal stops the workers at
//! once, keeps every finished record and exits 130/143. Through the binary, with real
//! processes and signals (Linux).
#![cfg(target_os = "linux")]

mod common;

use common::TempDir;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
}

/// A night the SAT engine takes seconds on (the tests run it with `--engine sat`): a dense
/// random night of 30,000 effects over 15,000 players, every kind but `deflect`, three
/// priority levels (a generated 400-effect night with deflections was answered in well
/// under a second once the SAT engine split components with deflections into pieces).
fn slow_night() -> String {
    let knobs = gordian::ar::Knobs {
        players: 15_000,
        effects: Some(30_000),
        kinds: gordian::ar::ActionKind::ALL[..5].to_vec(),
        priority_levels: 3,
        ..gordian::ar::Knobs::default()
    };
    gordian::ar::generate(&knobs, 1).to_text()
}

/// The children of process `pid` (from /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut kids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split_whitespace().nth(1).unwrap().parse().unwrap();
        if ppid == pid {
            kids.push(p);
        }
    }
    kids
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// Waits until `child` has `n` worker processes busy for a while (the slow instance has
/// started); gives up after 120 s (a guard against a hang, not a speed bound).
fn wait_for_workers(child: &Child, n: usize) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let kids = children(child.id());
        if kids.len() >= n {
            std::thread::sleep(Duration::from_millis(1500));
            return children(child.id());
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no workers started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `V visit A`, `V passive reflexive:kill` and 5,000 lines `A passive reflexive:visit @i`:
/// one cycle of 5,001 created effects, whose grounding the SAT encoding writes with 5,000
/// levels of 5,001 derivation variables each.
fn ring_night() -> String {
    let mut s = String::from("players: V A\nV visit A\nV passive reflexive:kill\n");
    // Each at a priority of its own: identical passives would be solved as one.
    for i in 0..5000 {
        s.push_str(&format!("A passive reflexive:visit @{}\n", i + 1));
    }
    s
}

fn records(report: &Path) -> Vec<Value> {
    std::fs::read_to_string(report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a JSON record"))
        .collect()
}

fn folder(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    // Two small hand-worked nights (docs/ar.md): three blocks in a cycle are a paradox;
    // a protection stops a kill.
    dir.write(
        "a-cycle.night",
        "players: A B C\nA block B\nB block C\nC block A\n",
    );
    dir.write("b-protect.night", "players: M D C\nM kill C\nD protect C\n");
    dir.write("z-slow.night", slow_night());
    dir
}

#[test]
fn a_killed_worker_costs_its_instance_one_crash_record_and_the_run_goes_on() {
    let dir = folder("isolation-crash");
    let report = dir.0.join("report.jsonl");
    let child = bin()
        .args([
            "batch",
            dir.0.to_str().unwrap(),
            "--jobs",
            "1",
            "--engine",
            "sat",
            "--out",
        ])
        .arg(&report)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // With one job the instances run in sorted order: the slow one is last.
    let workers = wait_for_workers(&child, 1);
    assert_eq!(workers.len(), 1, "one worker process: {workers:?}");
    signal(workers[0], "-KILL");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a crash record means exit 1: {err}"
    );
    let recs = records(&report);
    assert_eq!(recs.len(), 3, "one record per instance: {recs:?}");
    let by = |name: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    assert_eq!(by("a-cycle.night")["classification"], "paradox");
    assert_eq!(by("b-protect.night")["classification"], "non-paradox");
    let slow = by("z-slow.night");
    assert_eq!(slow["error_kind"], "crash", "{slow}");
    assert!(
        slow["error"].as_str().unwrap().contains("signal 9"),
        "{slow}"
    );
    assert!(err.contains("1 crash error(s)"), "{err}");
}

#[test]
fn sigterm_during_a_long_solve_exits_143_at_once_keeping_finished_records() {
    let dir = folder("isolation-term");
    let report = dir.0.join("report.jsonl");
    let child = bin()
        .args([
            "batch",
            dir.0.to_str().unwrap(),
            "--jobs",
            "1",
            "--engine",
            "sat",
            "--out",
        ])
        .arg(&report)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let workers = wait_for_workers(&child, 1);
    signal(child.id(), "-TERM");
    let out = child.wait_with_output().unwrap();
    // 143 says the run ended by the signal (how soon is not asserted).
    assert_eq!(out.status.code(), Some(143));
    let recs = records(&report);
    assert_eq!(
        recs.len(),
        2,
        "the two finished instances, not the stopped one"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--resume"), "{err}");
    // No worker is left behind: the parent killed and reaped it.
    for w in workers {
        assert!(
            !Path::new(&format!("/proc/{w}")).exists(),
            "worker {w} left running"
        );
    }
}

#[test]
fn check_keeps_going_past_a_killed_worker_and_sigint_ends_it() {
    let dir = folder("isolation-check");
    let child = bin()
        .args([
            "check",
            dir.0.to_str().unwrap(),
            "--jobs",
            "1",
            "--engine",
            "sat",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let workers = wait_for_workers(&child, 1);
    signal(workers[0], "-KILL");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdicts: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["agree", "agree", "crash"]);

    let child = bin()
        .args([
            "check",
            dir.0.to_str().unwrap(),
            "--jobs",
            "1",
            "--engine",
            "sat",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_workers(&child, 1);
    signal(child.id(), "-INT");
    let out = child.wait_with_output().unwrap();
    // 130 says the run ended by the signal, not by finishing its work (how soon is not
    // asserted: a busy machine stretches it).
    assert_eq!(out.status.code(), Some(130));
}

/// Waits for `child`; its exit code and peak resident memory in bytes (`wait4`: this
/// child and the descendants it waited for, not the other tests' processes).
fn wait_with_peak(child: Child) -> (Option<i32>, u64) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes only into `status` and `usage`, which we own; `pid` is our
    // child, not yet reaped (`Child` is dropped without waiting).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, u64::try_from(usage.ru_maxrss).unwrap() * 1024)
}

#[test]
fn a_night_that_outgrows_its_memory_bound_is_stopped_near_it() {
    // A ring of 5,000 reflexive passives: its SAT encoding (25 million derivation
    // variables) outgrows --max-memory 200. Whatever the engine charges, the process is
    // held to the bound plus 100 MiB.
    let dir = TempDir::new("isolation-memory");
    let file = dir.write("ring.night", ring_night());
    let err_file = dir.0.join("stderr");
    let child = bin()
        .args([
            "resolve",
            file.to_str().unwrap(),
            "--max-memory",
            "200",
            "--engine",
            "sat",
        ])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    let (code, peak) = wait_with_peak(child);
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert_eq!(code, Some(5), "{err}");
    assert!(err.contains("limit:"), "{err}");
    // The bound plus 100 MiB, plus what one watchdog tick of growth may add.
    assert!(peak < (200 + 100 + 50) << 20, "peak {} MiB", peak >> 20);
}

#[test]
fn batch_gives_an_outgrowing_instance_a_limit_record_and_goes_on() {
    let dir = TempDir::new("isolation-batch-memory");
    dir.write(
        "a-cycle.night",
        "players: A B C\nA block B\nB block C\nC block A\n",
    );
    dir.write("b-ring.night", ring_night());
    dir.write("c-protect.night", "players: M D C\nM kill C\nD protect C\n");
    let report = dir.0.join("report.jsonl");
    let out = bin()
        .args([
            "batch",
            dir.0.to_str().unwrap(),
            "--max-memory",
            "200",
            "--engine",
            "sat",
            "--out",
        ])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let recs = records(&report);
    assert_eq!(recs.len(), 3);
    let by = |name: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    let ring = by("b-ring.night");
    assert_eq!(ring["error_kind"], "limit", "{ring}");
    // The hand-worked nights around it are answered (docs/ar.md): a paradox, a protected
    // kill.
    assert_eq!(by("a-cycle.night")["classification"], "paradox");
    assert_eq!(by("c-protect.night")["classification"], "non-paradox");
}

/// `fuzz` solves its cases in worker processes too: a worker killed from outside costs
/// its case, reported as a crash (a failure, exit 1) and saved; run again it does not
/// crash, so it is saved as generated, not shrunk, and the file says why.
#[test]
fn fuzz_reports_a_killed_worker_as_a_crash_and_saves_the_case_unshrunk() {
    let dir = TempDir::new("isolation-fuzz");
    let out_dir = dir.0.join("failures");
    // Generated 400-effect nights take about a second each, so the workers are busy.
    let child = bin()
        .args([
            "fuzz",
            "--players",
            "40",
            "--max-effects",
            "400",
            "--cases",
            "60",
            "--case-timeout",
            "30",
            "--max-memory",
            "4000",
            "--out",
        ])
        .arg(&out_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Every worker is killed at once, so the one solving a case is among them.
    for w in wait_for_workers(&child, 1) {
        signal(w, "-KILL");
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{err}");
    assert!(
        err.contains("worker process crashed (a bug in gordian)"),
        "{err}"
    );
    assert!(err.contains("signal 9"), "{err}");
    assert!(err.contains("did not crash when run again"), "{err}");
    let saved: Vec<_> = std::fs::read_dir(&out_dir).unwrap().flatten().collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let path = saved[0].path();
    assert!(
        stdout.trim_end().ends_with(path.to_str().unwrap()),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("# gordian fuzz: gordian's worker process crashed on this night; this is a bug in gordian.")
    );
    assert!(lines
        .next()
        .unwrap()
        .contains("did not crash when run again"));
    // Unshrunk: the header's sizes are equal, and the night reads back (it is answered,
    // or stopped at a limit: not a reading error).
    let sizes = text
        .lines()
        .find(|l| l.contains("shrunk from size"))
        .unwrap();
    let (from, to) = sizes
        .split_once("shrunk from size ")
        .unwrap()
        .1
        .split_once(" to ")
        .unwrap();
    let to = to.split_whitespace().next().unwrap();
    assert_eq!(from, to, "{sizes}");
    // The header names the run the case came from as its command line, whose flags set
    // the generator (not a dump of the generator's internal settings).
    assert!(
        text.lines().any(|l| l.starts_with(
            "# the run (its flags set the generator): gordian fuzz --players 40 --max-effects 400 --cases 60 --case-timeout 30"
        )),
        "{text}"
    );
    let o = bin()
        .args(["resolve", "--timeout", "10", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 5)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Waits until process `pid` is gone (or a zombie nobody reaps), for at most 60 s: a hang
/// guard, not a speed bound. Returns whether it is gone.
fn gone_within_a_minute(pid: u32) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Field 3 of /proc/PID/stat is the state; Z is a zombie, dead already.
        let dead = state.is_empty()
            || state
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if dead {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A folder with one night of many redirections that the SAT engine takes minutes on (over
/// 100 s on the 2-core development machine): without its parent, a worker solving it
/// would outlive any hang guard below.
fn endless_folder(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let out = bin()
        .args([
            "gen",
            "--system",
            "ar",
            "--players",
            "12",
            "--max-effects",
            "40",
            "--kinds",
            "visit,block,stop,protect,kill,deflect,jail,swap,redirect,guard,hide,babysit",
            "--seed",
            "5",
            "--count",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    dir.write("endless.night", out.stdout);
    dir
}

/// `batch` (no `--timeout`, one worker, the SAT engine) started on [`endless_folder`],
/// with the workers it has once its solve is under way.
fn endless_batch(name: &str) -> (TempDir, Child, Vec<u32>) {
    let dir = endless_folder(name);
    let report = dir.0.join("report.jsonl");
    let child = bin()
        .args([
            "batch",
            dir.0.to_str().unwrap(),
            "--jobs",
            "1",
            "--engine",
            "sat",
            "--out",
        ])
        .arg(&report)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let workers = wait_for_workers(&child, 1);
    assert!(!workers.is_empty());
    (dir, child, workers)
}

/// A worker dies with its parent whatever ends the parent: here `batch` without
/// `--timeout` is killed by SIGKILL (it cannot clean up) in the middle of a long solve.
#[test]
fn a_worker_dies_when_its_parent_is_killed() {
    let (_dir, mut child, workers) = endless_batch("isolation-orphan");
    signal(child.id(), "-KILL");
    child.wait().unwrap();
    for w in workers {
        assert!(gone_within_a_minute(w), "worker {w} outlived its parent");
    }
}

/// Two SIGTERMs in a row (the second while the first is being handled) leave no worker
/// behind.
#[test]
fn a_double_sigterm_leaves_no_worker() {
    let (_dir, mut child, workers) = endless_batch("isolation-double-term");
    signal(child.id(), "-TERM");
    signal(child.id(), "-TERM");
    child.wait().unwrap();
    for w in workers {
        assert!(gone_within_a_minute(w), "worker {w} outlived its parent");
    }
}
