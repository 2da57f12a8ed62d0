//! The fault suite of the resource policy (docs/limits.md), through the binary: large
//! nights under `--timeout`, the memory bound and the output bound, out-of-range
//! durations, a full standard output, two runs on one report, a FIFO among batch inputs,
//! `--resume` on a file that is not a report, and SIGINT/SIGTERM. Every case ends with
//! its documented message or record and exit code, within the budget plus a small margin.
//!
//! Large nights are generated here with the library's generator (no big files in the
//! repository). The soak test (batch over 2,000 nights with random SIGKILLs and resumes)
//! is at the end.

use gordian::{ar, fft};
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A hang guard, not a speed bound: how far past its budget a run may end before the test
/// calls it stuck. No test here asserts a wall-clock bound under a minute (a loaded
/// machine must not fail them); how soon the limits act is measured in benchmarks.
const MARGIN: Duration = Duration::from_secs(60);

mod common;

use common::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
}

/// Runs gordian, returning its output and how long it took.
fn timed(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = bin().args(args).output().expect("run gordian");
    (out, start.elapsed())
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// The number written just before the first `marker` in `text` (a count in a summary
/// line such as `... 13 skipped (over --max-memory)`).
fn count_before(text: &str, marker: &str) -> u64 {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("no `{marker}` in {text}"));
    text[..at]
        .rsplit(' ')
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no count before `{marker}` in {text}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A random night of `effects` effects over `effects / 2` players and three priority
/// levels, in the night format. Two effects per player make one giant component: both
/// engines answer the 10,000-effect one as a product of pieces in seconds; the
/// 30,000-effect one takes each engine several seconds (docs/limits.md), well past the
/// one-second timeouts below.
fn random_night(effects: usize, seed: u64) -> String {
    night(effects / 2, effects, 3, seed)
}

/// A random night of exactly `effects` effects over `players` players, with every kind
/// but `deflect` and `levels` priority levels, in the night format.
fn night(players: usize, effects: usize, levels: u32, seed: u64) -> String {
    let knobs = ar::Knobs {
        players,
        effects: Some(effects),
        kinds: ar::ActionKind::ALL[..5].to_vec(),
        priority_levels: levels,
        ..ar::Knobs::default()
    };
    ar::generate(&knobs, seed).to_text()
}

/// The pinned 10,000-effect dense night (generated once).
fn large() -> &'static str {
    static NIGHT: OnceLock<String> = OnceLock::new();
    NIGHT.get_or_init(|| random_night(10_000, 1))
}

/// 64-bit FNV-1a of `s`'s bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3):
/// a pin on a generated night, independent of the generator and of any crate.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Length and [`fnv1a`] of [`large`]'s night, on which the dense-night figures were
/// computed (by clingo, independently).
const DENSE_NIGHT_LEN: usize = 337_355;
const DENSE_NIGHT_FNV1A: u64 = 0x043e_c5f8_9f45_b920;

/// The 30,000-effect night the limit tests run into: no engine answers it within their
/// budgets of at most 1 s (the SAT engine alone answers it in about 2.8 s, measured on the
/// 2-core development machine, 2026-12-02; a test that needs a night unanswered for
/// longer uses [`huge`]).
fn slow() -> &'static str {
    static NIGHT: OnceLock<String> = OnceLock::new();
    NIGHT.get_or_init(|| random_night(30_000, 1))
}

/// A 200,000-effect night: large enough that reading it and writing its SAT encoding
/// takes well over a fifth of a second (the encoding is linear in the night, so the
/// 10,000-effect one is written at once).
fn huge() -> &'static str {
    static NIGHT: OnceLock<String> = OnceLock::new();
    NIGHT.get_or_init(|| random_night(200_000, 1))
}

/// `k` disjoint mutual blocks: `Ai block Bi`, `Bi block Ai`. Worked by hand: each pair has
/// exactly two resolutions (Ai succeeds and Bi fails, or the reverse; both succeeding or
/// both failing breaks acceptance), the pairs are independent, so the night has `2^k`
/// resolutions, each with one way (no deflection).
fn mutual_blocks(k: usize) -> String {
    (0..k)
        .map(|i| format!("A{i} block B{i}\nB{i} block A{i}\n"))
        .collect()
}

/// `mutual_blocks(k)` made one component: every `Ai` also visits Z, where S's stop makes
/// every visit fail (nothing hits S). Worked by hand: the stop joins the visits, and Bi's
/// block on Ai joins Ai's block and visit, so the pairs are no longer independent, yet
/// the visits change nothing: still `2^k` resolutions, now all in one component.
fn joined_mutual_blocks(k: usize) -> String {
    let mut s = mutual_blocks(k);
    for i in 0..k {
        s.push_str(&format!("A{i} visit Z\n"));
    }
    s.push_str("S stop Z\n");
    s
}

fn assert_limit_exit(o: &Output, took: Duration, budget: Duration, word: &str) {
    assert_eq!(o.status.code(), Some(5), "{}", stderr(o));
    assert!(stderr(o).contains(word), "{}", stderr(o));
    assert!(
        took <= budget + MARGIN,
        "took {took:?}, budget {budget:?}: {}",
        stderr(o)
    );
}

#[test]
fn large_nights_end_at_the_timeout_with_exit_5() {
    let d = TempDir::new("timeout");
    let f = d.write("slow.night", slow());
    let h = d.write("huge.night", huge());
    let budget = Duration::from_secs(1);
    for args in [
        vec!["resolve", s(&f), "--timeout", "1", "--engine", "sat"],
        vec!["resolve", s(&f), "--timeout", "1"],
        // Reading 200,000 effects alone takes a good part of a second: a fifth is safe.
        vec!["dimacs", s(&h), "--timeout", "0.2"],
        vec!["check", s(&f), "--timeout", "1", "--engine", "sat"],
    ] {
        let (o, took) = timed(&args);
        assert_limit_exit(&o, took, budget, "time");
        assert!(o.stdout.is_empty() || args[0] == "check", "{args:?}");
    }
    let report = d.0.join("r.jsonl");
    let (o, took) = timed(&[
        "batch",
        s(&f),
        "--timeout",
        "1",
        "--engine",
        "sat",
        "--out",
        s(&report),
    ]);
    assert_limit_exit(&o, took, budget, "timeout");
    let rec: Value =
        serde_json::from_str(std::fs::read_to_string(&report).expect("report").trim_end())
            .expect("one record");
    assert_eq!(rec["error_kind"], "timeout", "{rec}");
}

#[test]
fn sparse_large_nights_are_answered_and_cross_checked() {
    // 10,000 effects over 20,000 players: thousands of small components (docs/limits.md).
    let d = TempDir::new("sparse");
    let f = d.write("sparse.night", night(20_000, 10_000, 3, 1));
    let (o, took) = timed(&["resolve", s(&f), "--json", "--timeout", "60"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["cross_checked"], true, "both engines answered and agreed");
    let comps = v["totals"]["components"].as_u64().expect("a count");
    assert!(comps > 1_000, "{comps} components");
    assert!(took < Duration::from_secs(60));
}

#[test]
fn a_dense_large_night_is_answered_as_pieces() {
    // One component of about 9,000 effects (docs/limits.md, "Large nights"). Its optimal
    // cost (4/16/28 per level) and its 4,608 optimal cuts are clingo's, from the
    // independent ASP encoding in bench/clingo (`ar.lp cut.lp`, optN projected on the
    // cuts, core-guided); the cut search that enumerates cuts one by one (before the
    // product form) found the same 4,608. The pieces must say the same.
    //
    // Those figures belong to this one night: the generator's output (and rand's
    // sampling under it) is pinned by its length and FNV-1a hash, so a change there fails
    // here instead of silently testing another night (re-derive the figures with clingo,
    // then update the pin).
    assert_eq!(
        (large().len(), fnv1a(large())),
        (DENSE_NIGHT_LEN, DENSE_NIGHT_FNV1A),
        "the generator's 10,000-effect night changed: the clingo figures below are for the pinned one"
    );
    let d = TempDir::new("dense");
    let f = d.write("dense.night", large());
    // Each engine alone, so that each must find the figures on its own.
    let mut seen = Vec::new();
    for engine in ["direct", "sat"] {
        let (o, took) = timed(&[
            "resolve",
            s(&f),
            "--json",
            "--engine",
            engine,
            "--timeout",
            "120",
        ]);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["classification"], "paradox", "{engine}");
        assert_eq!(v["totals"]["optimal_cuts"], "4608", "{engine}");
        let counts: Vec<u64> = v["cut_cost"]
            .as_array()
            .expect("a cost")
            .iter()
            .map(|c| c["count"].as_u64().expect("a count"))
            .collect();
        assert_eq!(counts, [4, 16, 28], "{engine}");
        let pieces = v["totals"]["pieces"].as_u64().expect("split into pieces");
        let comps = v["totals"]["components"].as_u64().expect("a count");
        assert!(
            pieces > comps,
            "{engine}: {pieces} pieces, {comps} components"
        );
        // Components are classified as wholes, however an engine split them.
        let classes: u64 = ["paradox", "quasi_paradox", "non_paradox"]
            .iter()
            .map(|c| {
                v["totals"][format!("{c}_components")]
                    .as_u64()
                    .expect("a count")
            })
            .sum();
        assert_eq!(classes, comps, "{engine}: {}", v["totals"]);
        let mut totals = v["totals"].clone();
        totals.as_object_mut().expect("totals").remove("pieces");
        seen.push(totals);
        assert_eq!(
            v["expanded"], false,
            "27,648 outcomes are not listed by default"
        );
        assert!(took < Duration::from_secs(120), "{engine}");
    }
    assert_eq!(seen[0], seen[1], "the engines' totals (pieces aside)");
}

#[test]
fn dense_large_nights_are_cross_checked_within_the_default_memory() {
    // The engines group a large component's pieces on their own, so their groupings may
    // differ; comparing them must not multiply out the pieces. On these nights a created
    // effect whose trigger always succeeds once put that trigger in a group on one side
    // and in the shared piece on the other, and the comparison joined everything into
    // one block (past 1 GiB). Seeds 2 and 3 of the dense 10,000-effect nights.
    for seed in [2, 3] {
        let d = TempDir::new("dense-xchk");
        let f = d.write("dense.night", random_night(10_000, seed));
        let (o, took) = timed(&["resolve", s(&f), "--json", "--expand=never"]);
        assert_eq!(o.status.code(), Some(0), "seed {seed}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["cross_checked"], true, "seed {seed}");
        assert!(took < Duration::from_secs(60), "seed {seed}");
    }
}

#[test]
fn a_joined_component_of_many_pairs_is_answered_as_pieces_and_cross_checked() {
    // `joined_mutual_blocks(9)` padded with 40 more visits to Z (joined by S's stop, and
    // failing like the others): one component of 68 effects, still 2^9 = 512 resolutions
    // (worked by hand, see `joined_mutual_blocks`). Large enough for the direct engine's
    // product form, small enough for the SAT engine to list: the pieces are flattened and
    // compared with the SAT engine's flat answer.
    let mut night = joined_mutual_blocks(9);
    for j in 0..40 {
        night.push_str(&format!("P{j} visit Z\n"));
    }
    let d = TempDir::new("pieces");
    let f = d.write("pairs.night", night);
    let (o, _) = timed(&[
        "resolve",
        s(&f),
        "--json",
        "--expand=never",
        "--timeout",
        "60",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["cross_checked"], true, "{}", stderr(&o));
    assert_eq!(v["totals"]["resolutions"], "512");
    assert_eq!(v["totals"]["components"], 1);
    assert!(
        v["totals"]["pieces"].as_u64().expect("pieces") >= 10,
        "{}",
        v["totals"]
    );
    // Classified as one component (512 resolutions: a quasi-paradox), not piece by piece.
    assert_eq!(
        v["totals"]["quasi_paradox_components"], 1,
        "{}",
        v["totals"]
    );
    assert_eq!(v["totals"]["non_paradox_components"], 0, "{}", v["totals"]);
    let (o, _) = timed(&["resolve", s(&f), "--expand=never"]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(
            "1 independent component (0 paradoxes, 1 quasi-paradox, 0 non-paradoxes), answered as"
        ),
        "{report}"
    );
    // At 40 pairs the product, 2^40 resolutions, is answered at once by the direct
    // engine and counted exactly.
    let mut night = joined_mutual_blocks(40);
    night.push_str("X visit Z\n");
    let f = d.write("many.night", night);
    let (o, took) = timed(&["resolve", s(&f), "--json", "--engine", "direct"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["totals"]["resolutions"], (1u64 << 40).to_string());
    assert!(took < MARGIN, "took {took:?}");
}

#[test]
fn a_systems_command_without_a_budget_poll_ends_at_the_watchdog() {
    // Proving the tie-break fair over every list up to length 7 takes seconds; the
    // command polls no budget, so the watchdog ends it just past the timeout.
    let (o, took) = timed(&["foeman", "fairness", "--prove", "7", "--timeout", "0.2"]);
    assert_limit_exit(&o, took, Duration::from_millis(200), "timeout");
}

#[test]
fn the_memory_bound_stops_an_engine_and_names_what_it_held() {
    let d = TempDir::new("memory");
    // 2^16 resolutions in one component (see `joined_mutual_blocks`), each way charged
    // about 1 KiB by either engine: far past a 4 MiB bound, so both engines stop at it.
    let f = d.write("blocks.night", joined_mutual_blocks(16));
    for engine in ["direct", "sat"] {
        let (o, took) = timed(&["resolve", s(&f), "--engine", engine, "--max-memory", "4"]);
        assert_limit_exit(&o, took, Duration::from_secs(5), "limit:");
        assert!(
            stderr(&o).contains("while storing"),
            "{engine}: {}",
            stderr(&o)
        );
    }
    let (o, _) = timed(&["batch", s(&f), "--max-memory", "4"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let rec: Value = serde_json::from_slice(&o.stdout).expect("one record");
    assert_eq!(rec["error_kind"], "limit", "{rec}");
}

#[test]
fn fuzz_cases_over_the_memory_bound_are_skipped_and_counted() {
    // Random nights of up to 400 effects over 60 players: most have a component whose
    // answer (ways, cuts, clauses) is far past 1 MiB, so their cases stop at the bound
    // and are counted, neither as failures nor as a crash; the run ends with exit 0.
    let d = TempDir::new("fuzz-memory");
    let out = d.0.join("failures");
    let (o, took) = timed(&[
        "fuzz",
        "--system",
        "ar",
        "--cases",
        "20",
        "--seed",
        "1",
        "--max-effects",
        "400",
        "--players",
        "60",
        "--max-memory",
        "1",
        "--case-timeout",
        "10",
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let over = count_before(&stdout, " skipped (over --max-memory)");
    assert!(over > 0 && over <= 20, "{stdout}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn a_listing_over_the_output_bound_is_cut_short_with_exit_5() {
    let d = TempDir::new("output");
    // 2^10 = 1024 resolutions of one way each: 1024 outcomes, in 10 components; the
    // factorised answer is short, the flat lists are not.
    let f = d.write("blocks.night", mutual_blocks(10));
    let (o, _) = timed(&["resolve", s(&f), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        (&v["expanded"], &v["totals"]["outcomes"]),
        (&Value::Bool(false), &Value::from("1024"))
    );
    let (o, _) = timed(&["resolve", s(&f), "--expand", "--limit", "1000", "--json"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("--limit"), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON up to the limit");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["resolutions"].as_array().map(Vec::len), Some(1000));
    assert_eq!(v["totals"]["resolutions"], "1024");
    let (o, _) = timed(&["resolve", s(&f), "--expand", "--limit", "1024", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["resolutions"].as_array().map(Vec::len), Some(1024));
    assert_eq!(v["truncated"], false);
}

#[test]
fn fft_listing_over_the_output_bound_is_refused() {
    // The bound is checked against the count the same command prints without listing.
    let f = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/instances/fft/custom-action.fft"
    );
    let (o, _) = timed(&["fft", "enumerate", f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let n = count_before(&text, " distinct outcomes");
    assert!(n > 1, "{text}");
    let below = (n - 1).to_string();
    let (o, _) = timed(&["fft", "enumerate", f, "--list", "--limit", &below]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(
        stderr(&o).contains(&format!("listing its {n} outcomes exceeds --limit {below}")),
        "{}",
        stderr(&o)
    );
    let (o, _) = timed(&["fft", "enumerate", f, "--json", "--limit", &n.to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A random FFT scenario with large menus: over ten thousand outcomes (counted by
/// `the_memory_bound_stops_every_systems_engines` with no bound, in a fraction of a
/// second).
fn large_fft() -> String {
    let knobs = fft::Knobs {
        characters: 6,
        slow: 3,
        mime_menu: 3,
        quick_menu: 3,
        reaction_rate: 0.8,
        bound: 5,
        ..fft::Knobs::default()
    };
    fft::generate(&knobs, 1).to_text()
}

/// An area attack on `k` targets with a weapon of four damage values and no reactions.
/// Worked by hand (`docs/lancer.md`): each target's attack is one independent choice,
/// a miss or a hit for 1, 2, 3 or 4 (at most 4 damage against 9 hp: nobody is destroyed,
/// nothing reacts), so there are `5^k` distinct outcomes; with `damage 1` only, `2^k`.
fn area_attack(k: usize, damages: &str) -> String {
    let mut s = String::from("unit A side player hp 5 structure 1 at 0 0\n");
    for i in 1..=k {
        s.push_str(&format!(
            "unit T{i} side enemy hp 9 structure 1 at {i} 5 npc\n"
        ));
    }
    s.push_str(&format!("weapon Blast damage {damages} area\n"));
    let targets: Vec<String> = (1..=k).map(|i| format!("T{i}")).collect();
    s.push_str(&format!(
        "action A activate Blast at {}\n",
        targets.join(" ")
    ));
    s
}

/// `k` figures of one side, all of modDX 10, each declaring `strike:1`. Worked by hand
/// (`docs/foeman.md`): one side, so one side order; in every segment the unacted figures
/// tie on modDX with equal declarations (no supervention), and the tie-break selects each
/// tied figure with probability 1/k, so every order of the `k` figures happens: `k!`
/// action outcomes.
fn tied_figures(k: usize) -> String {
    let mut s = String::from("side X ini 3\n");
    for i in 1..=k {
        s.push_str(&format!("figure F{i} side X dx 10 do strike:1\n"));
    }
    s
}

#[test]
fn the_memory_bound_stops_every_systems_engines() {
    let d = TempDir::new("memory-systems");
    let fft = d.write("large.fft", large_fft());
    // 5^10 (about 9.8 million) outcomes of a dozen events each.
    let lancer = d.write("area.lancer", area_attack(10, "1 2 3 4"));
    // 10! (3,628,800) action outcomes.
    let foeman = d.write("tied.foeman", tied_figures(10));
    // Free challenges in every region (the defaults), 3 deep: thousands of states after
    // 2 challenges already (ff8 reach --bound 2 lists 7282).
    let ff8 = d.write("free.ff8", "bound: 3\n");
    let ff8_plan = d.write("plan.ff8", "bound: 3\ngoal: Balamb has Same\n");
    let (o, _) = timed(&["fft", "enumerate", s(&fft), "--engine", "direct"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let n = count_before(&text, " distinct outcomes");
    assert!(n > 10_000, "the FFT scenario is not large: {text}");
    let budget = Duration::from_secs(5);
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for engine in ["direct", "sat", "both"] {
        runs.push(vec!["fft", "enumerate", s(&fft), "--engine", engine]);
        runs.push(vec!["lancer", "enumerate", s(&lancer), "--engine", engine]);
        runs.push(vec!["foeman", "enumerate", s(&foeman), "--engine", engine]);
        runs.push(vec!["ff8", "reach", s(&ff8), "--engine", engine]);
    }
    runs.push(vec![
        "fft",
        "query",
        s(&fft),
        "--engine",
        "sat",
        "--property",
        "flag-survives",
        "--bound",
        "40",
    ]);
    runs.push(vec!["ff8", "plan", s(&ff8_plan)]);
    runs.push(vec!["ff8", "dimacs", s(&ff8), "--bound", "30"]);
    runs.push(vec!["fft", "dimacs", s(&fft), "--bound", "60"]);
    for mut args in runs {
        args.extend(["--max-memory", "1"]);
        let (o, took) = timed(&args);
        assert_eq!(o.status.code(), Some(5), "{args:?}: {}", stderr(&o));
        assert_limit_exit(&o, took, budget, "limit: the memory bound of 1 MiB");
        assert!(
            stderr(&o).contains("while storing"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}: nothing but the message");
    }
    // check and batch on the same files: a `limit` row / record each, exit 5.
    let files = [s(&fft), s(&lancer), s(&foeman), s(&ff8)];
    let mut args = vec!["check", "--max-memory", "1", "--json"];
    args.extend(files);
    let (o, took) = timed(&args);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(took < MARGIN, "{took:?}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let verdicts: Vec<&Value> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| &f["verdict"])
        .collect();
    assert_eq!(verdicts, [&Value::from("limit"); 4], "{v}");
    let mut args = vec!["batch", "--max-memory", "1"];
    args.extend(files);
    let (o, _) = timed(&args);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let recs: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    assert_eq!(recs.len(), 4);
    for r in &recs {
        assert_eq!(r["error_kind"], "limit", "{r}");
        assert!(
            r["error"]
                .as_str()
                .is_some_and(|e| e.contains("while storing")),
            "{r}"
        );
    }
}

#[test]
fn lancer_and_foeman_listings_over_the_output_bound_are_cut_short() {
    let d = TempDir::new("systems-output");
    // 2^4 = 16 outcomes (see `area_attack`), 4! = 24 action outcomes (`tied_figures`).
    let lancer = d.write("area.lancer", area_attack(4, "1"));
    let foeman = d.write("tied.foeman", tied_figures(4));
    let json = |o: &Output| -> Value { serde_json::from_slice(&o.stdout).expect("JSON") };
    let (o, _) = timed(&["lancer", "enumerate", s(&lancer), "--json", "--limit", "5"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("listing its 16 outcomes exceeds --limit 5"),
        "{}",
        stderr(&o)
    );
    let v = json(&o);
    assert_eq!(
        (&v["count"], &v["truncated"]),
        (&Value::from(16), &Value::Bool(true))
    );
    assert_eq!(v["outcomes"].as_array().map(Vec::len), Some(5));
    let (o, _) = timed(&["lancer", "enumerate", s(&lancer), "--limit", "5"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains(": 16 distinct outcome(s)"), "{text}");
    assert!(
        text.contains("outcome 5:") && !text.contains("outcome 6:"),
        "{text}"
    );
    assert!(
        text.contains("... 11 more outcome(s) not listed (--limit 5)"),
        "{text}"
    );
    let (o, _) = timed(&["lancer", "enumerate", s(&lancer), "--json", "--limit", "16"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(
        (&v["count"], &v["truncated"]),
        (&Value::from(16), &Value::Bool(false))
    );
    assert_eq!(v["outcomes"].as_array().map(Vec::len), Some(16));

    for engine in ["direct", "sat"] {
        let args = ["foeman", "enumerate", s(&foeman), "--engine", engine];
        let (o, _) = timed(&[&args[..], &["--json", "--limit", "10"]].concat());
        assert_eq!(o.status.code(), Some(5), "{engine}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("listing its 24 action outcomes exceeds --limit 10"),
            "{}",
            stderr(&o)
        );
        let v = json(&o);
        assert_eq!(v["truncated"], true);
        assert_eq!(
            (&v["side_order_count"], &v["action_outcome_count"]),
            (&Value::from(1), &Value::from(24))
        );
        assert_eq!(v["action_outcomes"].as_array().map(Vec::len), Some(10));
        assert_eq!(v["side_orders"].as_array().map(Vec::len), Some(1));
        let (o, _) = timed(&[&args[..], &["--limit", "10"]].concat());
        assert_eq!(o.status.code(), Some(5), "{engine}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(text.contains("action outcomes (24):"), "{text}");
        assert!(
            text.contains("... 14 more not listed (--limit 10)"),
            "{text}"
        );
        let (o, _) = timed(&[&args[..], &["--json", "--limit", "24"]].concat());
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["truncated"], false);
        assert_eq!(v["action_outcomes"].as_array().map(Vec::len), Some(24));
    }
}

#[test]
fn whole_file_problems_point_at_line_1_in_every_system() {
    let d = TempDir::new("wholefile");
    for ext in ["night", "fft", "lancer", "foeman", "ff8"] {
        for (name, text) in [("empty", ""), ("comments", "\n# only a comment\n\n")] {
            let f = d.write(&format!("{name}.{ext}"), text);
            let (o, _) = timed(&["check", s(&f)]);
            assert_eq!(o.status.code(), Some(2), "{ext} {name}: {}", stderr(&o));
            let at = format!("{}:1:1", s(&f));
            assert!(stderr(&o).contains(&at), "{ext} {name}: {}", stderr(&o));
        }
    }
}

#[test]
fn huge_durations_are_rejected_by_argument_parsing() {
    let d = TempDir::new("durations");
    let f = d.write("n.night", "A block B\n");
    for args in [
        vec!["resolve", s(&f), "--grace", "1e19"],
        vec!["resolve", s(&f), "--timeout", "1e19"],
        vec!["batch", s(&f), "--grace", "1e19"],
        vec!["fuzz", "--seconds", "1e19"],
        vec!["dimacs", s(&f), "--timeout", "inf"],
    ] {
        let (o, _) = timed(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("one year"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn writes_to_a_full_device_end_with_exit_1() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let d = TempDir::new("full");
    let f = d.write("n.night", "A block B\nB block A\n");
    for args in [
        vec!["resolve", s(&f)],
        vec!["dimacs", s(&f)],
        vec!["check", s(&f)],
        vec!["batch", s(&f)],
    ] {
        let full = std::fs::File::create("/dev/full").expect("/dev/full");
        let o = bin().args(&args).stdout(full).output().expect("run");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_second_batch_run_on_a_locked_report_is_refused() {
    let d = TempDir::new("lock");
    // Unanswered by the SAT engine for far longer than the first run's 3 s (over 60 s):
    // the first run still holds the lock when the second one starts, on any machine.
    let f = d.write("huge.night", huge());
    let report = d.0.join("r.jsonl");
    let mut first = bin()
        .args([
            "batch",
            s(&f),
            "--engine",
            "sat",
            "--timeout",
            "3",
            "--out",
            s(&report),
        ])
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while !report.exists() && start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    let (o, _) = timed(&["batch", s(&f), "--out", s(&report), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("locked"), "{}", stderr(&o));
    assert_eq!(first.wait().expect("first run").code(), Some(5));
    let text = std::fs::read_to_string(&report).expect("report");
    assert_eq!(text.lines().count(), 1, "one record, written once: {text}");
}

#[cfg(unix)]
#[test]
fn a_fifo_among_batch_inputs_is_an_input_record_not_a_hang() {
    let d = TempDir::new("fifo");
    d.write("a.night", "A block B\n");
    let fifo = d.0.join("p.night");
    let c = std::ffi::CString::new(s(&fifo)).expect("path");
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (o, took) = timed(&["batch", s(&d.0), "--timeout", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(took < Duration::from_secs(2) + MARGIN, "{took:?}");
    let recs: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    let p = recs
        .iter()
        .find(|r| r["path"].as_str().is_some_and(|x| x.ends_with("p.night")))
        .expect("a record for the FIFO");
    assert_eq!(p["error_kind"], "input", "{p}");
    assert_eq!(recs.len(), 2);
}

#[test]
fn resume_refuses_a_file_that_is_not_a_report() {
    let d = TempDir::new("notreport");
    let f = d.write("a.night", "A block B\n");
    let not = d.write("notes.txt", "line one\nline two\n");
    let (o, _) = timed(&["batch", s(&f), "--out", s(&not), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("notes.txt:1: not a gordian batch report"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&not).expect("file"),
        "line one\nline two\n",
        "nothing written"
    );
}

/// Sends `signal` to a child once `ready` holds (or after 5 s), and returns its output.
#[cfg(unix)]
fn signalled(mut child: Child, signal: i32, ready: impl Fn() -> bool) -> Output {
    let start = Instant::now();
    while !ready() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        // A hang guard, not a speed bound: generous for a busy machine.
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the process did not stop within 60 s of the signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Writes `n` small random nights (4 to 12 effects over 8 players) into `dir`.
fn small_nights(dir: &TempDir, n: usize) {
    for i in 0..n {
        let text = night(8, 4 + i % 9, 0, i as u64);
        dir.write(&format!("n{i:05}.night"), &text);
    }
}

#[cfg(unix)]
#[test]
fn signals_stop_fuzz_batch_and_check_with_their_summary() {
    let d = TempDir::new("signals");
    small_nights(&d, 400);
    let f = d.write("slow.night", slow());
    let piped = |args: &[&str]| {
        bin()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let after = |ms: u64| {
        let t = Instant::now();
        move || t.elapsed() > Duration::from_millis(ms)
    };
    // fuzz: the summary of the cases run, exit 130.
    let o = signalled(
        piped(&["fuzz", "--seconds", "60", "--out", s(&d.0.join("f"))]),
        libc::SIGINT,
        after(700),
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("case(s) in") && out.contains("interrupted: no disagreement"),
        "{out}"
    );
    // batch: records written so far stay, exit 143.
    let report = d.0.join("r.jsonl");
    let o = signalled(
        piped(&[
            "batch",
            s(&d.0),
            "--jobs",
            "1",
            "--engine",
            "sat",
            "--timeout",
            "2",
            "--out",
            s(&report),
        ]),
        libc::SIGTERM,
        after(700),
    );
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    // check: the table so far, exit 130 (the large night is in flight under --timeout).
    let o = signalled(
        piped(&["check", s(&f), s(&d.0), "--jobs", "1", "--timeout", "2"]),
        libc::SIGINT,
        after(300),
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(!o.stdout.is_empty(), "the table so far is printed");
}

/// Batch over 8,000 generated nights, killed (SIGKILL) at random moments and resumed
/// until it finishes, with a worker process killed from outside midway through each
/// killed run: every night ends with exactly one record, none lost, none twice; a killed
/// worker costs at most its night, as a `crash` record.
#[cfg(unix)]
#[test]
fn soak_batch_with_random_kills_loses_and_duplicates_nothing() {
    let d = TempDir::new("soak");
    let nights = TempDir::new("soak-nights");
    // Enough nights that a whole run takes longer than the longest random wait: one
    // worker process answers thousands of small nights a second.
    small_nights(&nights, 8000);
    let report = d.0.join("r.jsonl");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let args = |resume: bool| {
        let mut a = vec![
            "batch".to_string(),
            s(&nights.0).to_string(),
            "--engine".into(),
            "direct".into(),
            "--jobs".into(),
            "2".into(),
            "--out".into(),
            s(&report).to_string(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let mut kills = 0;
    let mut worker_kills = 0;
    let mut runs = 0;
    loop {
        runs += 1;
        assert!(runs < 20, "the batch never finished");
        let err_path = d.0.join(format!("stderr-{runs}"));
        let err = std::fs::File::create(&err_path).expect("stderr file");
        let mut child = bin()
            .args(args(runs > 1))
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .expect("spawn");
        // Eight runs are killed at a random moment; the ninth runs to its end.
        let wait = if kills < 8 {
            Duration::from_millis(rng.gen_range(2..60))
        } else {
            Duration::from_secs(120)
        };
        let start = Instant::now();
        let mut status = None;
        let mut worker_killed = kills >= 8;
        while start.elapsed() < wait {
            if !worker_killed && start.elapsed() >= wait / 2 {
                worker_killed = true;
                if let Some(&w) = linux_children(child.id()).first() {
                    // SAFETY: signals a worker of the child this test started; a pid that
                    // has just exited is at worst signalled in vain.
                    unsafe { libc::kill(w as libc::pid_t, libc::SIGKILL) };
                    worker_kills += 1;
                }
            }
            if let Some(st) = child.try_wait().expect("wait") {
                status = Some(st);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        match status {
            Some(st) => {
                // A run that finishes exits 1 if a worker killed in it cost a crash record.
                let want: &[i32] = if worker_killed && kills < 8 {
                    &[0, 1]
                } else {
                    &[0]
                };
                assert!(
                    st.code().is_some_and(|c| want.contains(&c)),
                    "run {runs}: {st:?}, standard error:\n{}",
                    std::fs::read_to_string(&err_path).unwrap_or_default()
                );
                break;
            }
            None => {
                child.kill().expect("SIGKILL");
                child.wait().expect("reaped");
                kills += 1;
            }
        }
    }
    assert!(
        kills >= 3,
        "only {kills} kill(s): the soak did not interrupt"
    );
    let text = std::fs::read_to_string(&report).expect("report");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut crashes = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("every line is a whole record");
        *seen
            .entry(v["path"].as_str().expect("path").to_string())
            .or_default() += 1;
        if v["error_kind"] == "crash" {
            crashes += 1;
        }
    }
    eprintln!("{kills} runs killed, {worker_kills} workers killed, {crashes} crash records");
    assert!(
        crashes <= worker_kills,
        "{crashes} crash records, {worker_kills} workers killed"
    );
    assert_eq!(seen.len(), 8000, "every night has a record");
    let twice: Vec<_> = seen.iter().filter(|(_, &n)| n != 1).collect();
    assert!(twice.is_empty(), "recorded more than once: {twice:?}");
}

/// One run of gordian with its peak memory: the exit code, standard error, the wall time
/// and the child's maximum resident set (`getrusage` of the reaped child, via `wait4`).
#[cfg(unix)]
struct Measured {
    code: Option<i32>,
    stderr: String,
    took: Duration,
    peak_mib: u64,
}

#[cfg(unix)]
fn measured(args: &[&str]) -> Measured {
    let d = TempDir::new("measured");
    let (out, err) = (d.0.join("out"), d.0.join("err"));
    let start = Instant::now();
    // Reaped by `wait4` below, which also reads its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("out"))
        .stderr(std::fs::File::create(&err).expect("err"))
        .spawn()
        .expect("run gordian");
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: wait4 reaps our own child and fills a plain C struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let took = start.elapsed();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Measured {
        code,
        stderr: std::fs::read_to_string(&err).expect("stderr"),
        took,
        // Linux reports kilobytes.
        peak_mib: u64::try_from(usage.ru_maxrss).expect("positive") / 1024,
    }
}

/// `V kill D0`, then `Di deflect D(i+1)` for i < `n`: every slot aimed at D0 may end
/// anywhere along the chain (once cubic in the SAT encoding's one-hot final positions,
/// and 2^n sets of active deflections for the direct engine's frames; both are now
/// linear).
fn deflection_chain(n: usize) -> String {
    let mut s = String::from("V kill D0\n");
    for i in 0..n {
        s.push_str(&format!("D{i} deflect D{}\n", i + 1));
    }
    s
}

/// `V visit A`, `V passive reflexive:kill` and `n` lines `A passive reflexive:visit @i`:
/// the visit creates one visit of A's at V per passive, each of which creates V's kill on
/// A, which creates them again: one cycle of n + 1 created effects, whose grounding the
/// SAT encoding writes with n levels of n + 1 derivation variables each.
fn reflexive_ring(n: usize) -> String {
    let mut s = String::from("V visit A\nV passive reflexive:kill\n");
    // Each at a priority of its own: identical passives would be solved as one.
    for i in 0..n {
        s.push_str(&format!("A passive reflexive:visit @{}\n", i + 1));
    }
    s
}

/// The SAT encoding is charged to the memory meter as it is built, and polled: the ring
/// of 5,000 reflexive passives (25 million derivation variables) stops at a 200 MiB bound
/// with the limit message and exit 5, at a peak within the bound plus 150 MiB, in about a
/// second; `dimacs` writes the same encoding under the same bound. The chain of 1,000
/// deflections, whose one-hot final positions once took about 166 million clauses, is
/// now encoded in linear size and answered within the bound: by hand, nothing can fail
/// (no block, stop or protect), so every deflection succeeds and the kill travels down
/// the chain to D1000, who dies.
#[cfg(unix)]
#[test]
fn the_sat_encoding_is_charged_to_the_memory_bound() {
    let d = TempDir::new("encoding");
    let chain = d.write("chain.night", deflection_chain(1000));
    let ring = d.write("ring.night", reflexive_ring(5000));
    let m = measured(&[
        "resolve",
        s(&ring),
        "--max-memory",
        "200",
        "--engine",
        "sat",
    ]);
    assert_eq!(m.code, Some(5), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("limit: the memory bound of 200 MiB on engine state was reached"),
        "{}",
        m.stderr
    );
    assert!(m.stderr.contains("storing SAT clauses"), "{}", m.stderr);
    // About 205 MiB on a quiet machine; 307 MiB was seen once while the tests of this
    // binary ran in parallel with a benchmark (the meter is read every 1,024 clauses and
    // the cancelled engine stops at its next poll): a bound well under twice the budget.
    assert!(m.peak_mib <= 350, "peak {} MiB", m.peak_mib);
    assert!(m.took < MARGIN, "{:?}", m.took);
    let m = measured(&["dimacs", s(&ring), "--max-memory", "200"]);
    assert_eq!(m.code, Some(5), "{}", m.stderr);
    assert!(m.stderr.contains("storing SAT clauses"), "{}", m.stderr);
    assert!(m.peak_mib <= 300, "dimacs: peak {} MiB", m.peak_mib);
    let (o, _) = timed(&[
        "resolve",
        s(&chain),
        "--max-memory",
        "200",
        "--engine",
        "sat",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["classification"], "non-paradox");
    assert_eq!(
        v["death_chances"],
        serde_json::json!([{"player": "D1000", "probability": "1"}])
    );
}

/// A chain of 10,000 deflections is answered by each engine and cross-checked by both,
/// each in under 5 s within the default memory bound. By hand: nothing can fail anything
/// (no block, stop or protect), so every deflection succeeds and the kill aimed at D0
/// travels down the chain to D10000, who dies; one resolution, one way.
#[test]
fn a_chain_of_ten_thousand_deflections_is_answered_by_both_engines() {
    let d = TempDir::new("chain10k");
    let chain = d.write("chain.night", deflection_chain(10_000));
    for engine in ["direct", "sat", "both"] {
        let (o, took) = timed(&["resolve", s(&chain), "--engine", engine, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        assert!(took < MARGIN, "{engine}: {took:?}");
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["classification"], "non-paradox", "{engine}");
        assert_eq!(
            v["death_chances"],
            serde_json::json!([{"player": "D10000", "probability": "1"}]),
            "{engine}"
        );
        if engine == "both" {
            assert_eq!(v["cross_checked"], true);
        }
    }
}

/// The ring of 5,000 reflexive passives has one resolution, worked by hand: nothing
/// makes anything fail, so the visit succeeds, creates A's 5,000 visits at V, which create
/// V's kill on A (one per passive and visitor), which succeeds: A dies. The direct engine
/// answers at once; the SAT engine stops at the memory bound, and the report says so
/// (not a grace period it never had).
#[test]
fn an_engine_at_its_memory_bound_leaves_the_answer_to_the_other() {
    let d = TempDir::new("ring");
    let ring = d.write("ring.night", reflexive_ring(5000));
    let (o, took) = timed(&["resolve", s(&ring), "--max-memory", "200", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(took < MARGIN, "{took:?}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["engine"], "direct");
    assert_eq!(v["cross_checked"], false);
    assert_eq!(v["unfinished"], "sat");
    assert_eq!(v["classification"], "non-paradox");
    assert_eq!(
        v["death_chances"],
        serde_json::json!([{"player": "A", "probability": "1"}])
    );
    let (o, _) = timed(&["resolve", s(&ring), "--max-memory", "200", "--expand=never"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.trim_end().ends_with(
            "NOT cross-checked, the sat engine stopped at the memory bound of 200 MiB on \
             its state (storing SAT clauses; --max-memory))"
        ),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    assert!(text.contains("A dies"), "the created kill on A succeeds");
}

/// `--timeout` ends a night that would take far longer within a tenth of the budget (plus
/// a generous 0.3 s for process start and exit on a loaded machine), with exit 5 and the
/// timeout message: with the default engines on the 30,000-effect night, and with the SAT
/// engine on the ring of 5,000 reflexive passives (whose grounding levels take seconds).
/// (The chain of 1,000 deflections was here too; both engines now answer it at once.)
#[test]
fn the_timeout_holds_within_a_tenth_of_the_budget() {
    let d = TempDir::new("precise");
    let large = d.write("slow.night", slow());
    let ring = d.write("ring.night", reflexive_ring(5000));
    let plenty = "100000"; // MiB: the memory bound never stops these first
    for (f, secs, engine) in [(&large, "1", "both"), (&ring, "0.5", "sat")] {
        let args = [
            "resolve",
            s(f),
            "--timeout",
            secs,
            "--engine",
            engine,
            "--max-memory",
            plenty,
        ];
        let (o, took) = timed(&args);
        let budget = Duration::from_secs_f64(secs.parse().expect("seconds"));
        assert_eq!(o.status.code(), Some(5), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("timeout: no answer within"),
            "{}",
            stderr(&o)
        );
        assert!(
            took <= budget.mul_f64(1.1) + Duration::from_millis(300),
            "{args:?}: took {took:?} for a budget of {budget:?}"
        );
    }
}

/// The children of process `pid` (Linux: from /proc; elsewhere none).
#[cfg(unix)]
fn linux_children(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut kids = Vec::new();
    for entry in dir.flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let ppid = stat[close + 1..].split_whitespace().nth(1);
        if ppid.and_then(|x| x.parse::<u32>().ok()) == Some(pid) {
            kids.push(p);
        }
    }
    kids
}
