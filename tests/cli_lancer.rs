//! `gordian lancer ...` as a user meets it: every shipped scenario's expected outcomes
//! (worked by hand from the seed, in the instance headers) through the binary, both
//! engines compared; queries with shortest witnesses; the policies table; located errors
//! and exit codes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("gordian runs")
}

fn inst(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/lancer")
        .join(name)
        .display()
        .to_string()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn enumerate(name: &str, policy: &str) -> Value {
    json(&gordian(&[
        "lancer",
        "enumerate",
        "--json",
        "--policy",
        policy,
        &inst(name),
    ]))
}

/// (file, policy, outcomes, destroyable units, action cancelled, aborted after effect)
type Expected = (
    &'static str,
    &'static str,
    usize,
    &'static [&'static str],
    bool,
    bool,
);

const EXPECTED: &[Expected] = &[
    ("seed-1-aggression.lancer", "seed", 3, &[], false, false),
    ("seed-2-brace.lancer", "seed", 4, &[], false, false),
    ("seed-3-area.lancer", "seed", 4, &[], false, false),
    ("seed-4-shrike.lancer", "seed", 1, &["Bombard"], true, false),
    ("seed-4-shrike.lancer", "naive", 2, &["Bombard"], true, true),
    ("overwatch-move.lancer", "seed", 4, &["Lich"], true, false),
    (
        "overwatch-move.lancer",
        "seed-any-brace",
        4,
        &["Lich"],
        true,
        false,
    ),
];

#[test]
fn shipped_scenarios_give_the_hand_worked_outcomes() {
    for &(file, policy, n, destroyable, cancelled, aae) in EXPECTED {
        let v = enumerate(file, policy);
        assert_eq!(v["cross_checked"], true, "{file}");
        assert_eq!(
            v["outcomes"].as_array().expect("outcomes").len(),
            n,
            "{file} {policy}"
        );
        let p = &v["properties"];
        let units: Vec<String> = v["outcomes"][0]["units"]
            .as_array()
            .expect("units")
            .iter()
            .map(|u| u["name"].as_str().expect("name").to_string())
            .collect();
        for u in &units {
            assert_eq!(
                p[format!("destroyed:{u}")] == true,
                destroyable.contains(&u.as_str()),
                "{file} {policy} destroyed:{u}"
            );
        }
        assert_eq!(p["action-cancelled"], cancelled, "{file} {policy}");
        assert_eq!(p["aborted-after-effect"], aae, "{file} {policy}");
    }
}

#[test]
fn seed_4_nothing_is_applied_under_the_seed_policy() {
    let v = enumerate("seed-4-shrike.lancer", "seed");
    let o = &v["outcomes"][0];
    let kinds: Vec<(&str, &str)> = o["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().expect("kind"),
                e["status"].as_str().expect("status"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("activate", "done"),
            ("damage", "done"),
            ("structure", "done"),
            ("destroyed", "done"),
            ("attack", "aborted"),
            ("attack", "aborted")
        ]
    );
    assert_eq!(o["units"][1]["hp"], 6);
    assert_eq!(o["units"][2]["hp"], 8);
}

#[test]
fn query_gives_the_naive_witness_of_damage_before_the_abort() {
    let v = json(&gordian(&[
        "lancer",
        "query",
        "--json",
        "--policy",
        "naive",
        "--property",
        "aborted-after-effect",
        &inst("seed-4-shrike.lancer"),
    ]));
    assert_eq!(v["possible"], true);
    assert_eq!(v["cross_checked"], true);
    let w = &v["witness"];
    // activate, attack MC (hit), damage MC, teleport MC, Shrike damage, structure,
    // destroyed, attack Vlad aborted
    assert_eq!(w["events"].as_array().expect("events").len(), 8);
    assert_eq!(w["units"][1]["hp"], 4);
    // replaying the witness's choices gives the same run
    let choices: Vec<String> = v["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .map(|c| c.to_string())
        .collect();
    let r = json(&gordian(&[
        "lancer",
        "resolve",
        "--json",
        "--policy",
        "naive",
        "--choices",
        &choices.join(","),
        &inst("seed-4-shrike.lancer"),
    ]));
    assert_eq!(r["events"], w["events"]);
    let v = json(&gordian(&[
        "lancer",
        "query",
        "--json",
        "--property",
        "aborted-after-effect",
        &inst("seed-4-shrike.lancer"),
    ]));
    assert_eq!(v["possible"], false);
}

#[test]
fn query_fires_and_destroyed() {
    let v = json(&gordian(&[
        "lancer",
        "query",
        "--json",
        "--property",
        "fires:ShrikeArmor",
        &inst("seed-3-area.lancer"),
    ]));
    assert_eq!(v["possible"], false, "the Bombard is not adjacent");
    let v = json(&gordian(&[
        "lancer",
        "query",
        "--json",
        "--property",
        "destroyed:Lich",
        &inst("overwatch-move.lancer"),
    ]));
    assert_eq!(v["possible"], true);
    assert_eq!(v["witness"]["events"].as_array().expect("events").len(), 6);
}

#[test]
fn resolve_follows_the_given_choices() {
    // hit, hit back, brace
    let v = json(&gordian(&[
        "lancer",
        "resolve",
        "--json",
        "--choices",
        "1,1,1",
        &inst("seed-2-brace.lancer"),
    ]));
    assert_eq!(v["units"][0]["hp"], 1);
    assert_eq!(v["units"][0]["braced"], true);
    let v = json(&gordian(&[
        "lancer",
        "resolve",
        "--json",
        "--choices",
        "1,1,0",
        &inst("seed-2-brace.lancer"),
    ]));
    assert_eq!(v["units"][0]["hp"], 3);
    assert_eq!(v["units"][0]["structure"], 1);
    // a miss ends the run after one choice: a second one is an error, as is a value
    // outside a choice's range
    for bad in ["0,1", "2"] {
        let out = gordian(&[
            "lancer",
            "resolve",
            "--choices",
            bad,
            &inst("seed-2-brace.lancer"),
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn policies_table_shows_where_the_naive_policy_applies_a_cancelled_attack() {
    let out = gordian(&[
        "lancer",
        "policies",
        "--json",
        &inst("seed-4-shrike.lancer"),
        &inst("seed-3-area.lancer"),
    ]);
    assert!(out.status.success());
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(rows.len(), 8);
    for r in &rows {
        let naive = r["policy"].as_str().expect("policy").starts_with("naive");
        let shrike = r["file"].as_str().expect("file").contains("shrike");
        assert_eq!(r["aborted_after_effect"], naive && shrike, "{r}");
    }
}

#[test]
fn bad_input_is_located_and_exits_2() {
    let dir = std::env::temp_dir().join(format!("gordian-lancer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f: PathBuf = dir.join("bad.lancer");
    std::fs::write(
        &f,
        "unit A side x hp 3 structure 1 at 0 0\nweapon W damage 2\naction A activate W at Ghost\n",
    )
    .expect("write");
    let out = gordian(&["lancer", "enumerate", f.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: unknown unit `Ghost`"), "{err}");
    assert!(err.contains("bad.lancer:3:24"), "{err}");
    assert!(err.contains("action A activate W at Ghost"), "{err}");
    let out = gordian(&[
        "lancer",
        "query",
        "--property",
        "destroyed:Nobody",
        &inst("seed-1-aggression.lancer"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dimacs_names_choices_and_properties() {
    let out = gordian(&["lancer", "dimacs", &inst("seed-3-area.lancer")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("c choice"));
    assert!(text.contains("c property"));
    assert!(text.lines().any(|l| l.starts_with("p cnf ")));
}

#[test]
fn check_and_fuzz_run_lancer_through_the_generic_harness() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/lancer");
    let out = gordian(&["check", dir.to_str().expect("utf-8 path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for f in ["seed-1-aggression", "seed-4-shrike", "overwatch-move"] {
        assert!(text.contains(f), "{text}");
    }
    let tmp = std::env::temp_dir().join(format!("gordian-lancer-fuzz-{}", std::process::id()));
    let out = gordian(&[
        "fuzz",
        "--system",
        "lancer",
        "--cases",
        "300",
        "--lancer-depth",
        "1",
        "--out",
        tmp.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
