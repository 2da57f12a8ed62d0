//! Data-driven integration test: every shipped instance under `instances/ar/` runs through
//! the `gordian` binary with each engine, and its `# expect` header (worked by hand from
//! the contract, see `instances/ar/README.md`) must match the JSON report.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

type IdSet = BTreeSet<String>;

#[derive(Default, Debug)]
struct Expect {
    classification: Option<String>,
    resolutions: Option<usize>,
    optimal: Option<BTreeSet<IdSet>>,
    cut_cost: Option<Vec<(u64, u64)>>,
    cuts: Option<BTreeSet<IdSet>>,
    deaths: Option<BTreeMap<IdSet, String>>,
    ways: Option<usize>,
    targets: Option<BTreeSet<IdSet>>,
}

fn parse_sets(v: &str) -> BTreeSet<IdSet> {
    v.split('|')
        .map(|alt| {
            let alt = alt.trim();
            let inner = alt
                .strip_prefix('{')
                .and_then(|a| a.strip_suffix('}'))
                .unwrap_or_else(|| panic!("set not in braces: {alt}"));
            inner.split_whitespace().map(str::to_string).collect()
        })
        .collect()
}

fn parse_expect(path: &Path) -> Expect {
    let text = std::fs::read_to_string(path).expect("readable instance");
    let mut e = Expect::default();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# expect ") else {
            continue;
        };
        let (key, value) = rest.split_once(':').expect("`# expect KEY: VALUE`");
        let value = value.trim();
        match key.trim() {
            "classification" => e.classification = Some(value.to_string()),
            "resolutions" => e.resolutions = Some(value.parse().expect("a count")),
            "optimal" => e.optimal = Some(parse_sets(value)),
            "cut cost" => {
                e.cut_cost = Some(
                    value
                        .split_whitespace()
                        .map(|pc| {
                            let (p, c) = pc.split_once(':').expect("priority:count");
                            (p.parse().expect("priority"), c.parse().expect("count"))
                        })
                        .collect(),
                )
            }
            "cuts" => e.cuts = Some(parse_sets(value)),
            "deaths" => {
                e.deaths = Some(
                    value
                        .split('|')
                        .map(|alt| {
                            let mut words = alt.split_whitespace();
                            let p = words.next().expect("a probability").to_string();
                            let who: IdSet =
                                words.filter(|w| *w != "-").map(str::to_string).collect();
                            (who, p)
                        })
                        .collect(),
                )
            }
            "ways" => e.ways = Some(value.parse().expect("a count")),
            "targets" => e.targets = Some(parse_sets(value)),
            other => panic!("{}: unknown expect key {other}", path.display()),
        }
    }
    e
}

fn strings(v: &Value) -> IdSet {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

fn instances(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("instances directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "night" || x == "json"))
        .collect();
    v.sort();
    v
}

fn resolve_json(path: &Path, engine: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(["resolve", "--json", "--engine", engine])
        .arg(path)
        .output()
        .expect("gordian runs");
    assert!(
        out.status.success(),
        "{} --engine {engine}: exit {:?}\n{}",
        path.display(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn check(path: &Path, engine: &str) {
    let e = parse_expect(path);
    let name = format!("{} [{engine}]", path.display());
    assert!(e.classification.is_some(), "{name}: no expect header");
    let j = resolve_json(path, engine);
    assert_eq!(
        j["classification"].as_str(),
        e.classification.as_deref(),
        "{name}: classification"
    );
    let resolutions = j["resolutions"].as_array().expect("resolutions list");
    if let Some(n) = e.resolutions {
        assert_eq!(resolutions.len(), n, "{name}: number of resolutions");
    }
    if let Some(opt) = &e.optimal {
        let got: BTreeSet<IdSet> = resolutions
            .iter()
            .filter(|r| r["optimal"] == Value::Bool(true))
            .map(|r| strings(&r["succeeded"]))
            .collect();
        assert_eq!(&got, opt, "{name}: optimal resolutions");
    }
    if let Some(cost) = &e.cut_cost {
        let got: Vec<(u64, u64)> = j["cuts"]["cost"]
            .as_array()
            .expect("a paradox has a cut cost")
            .iter()
            .map(|c| {
                (
                    c["priority"].as_u64().unwrap(),
                    c["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, cost, "{name}: cut cost");
    }
    if let Some(cuts) = &e.cuts {
        let got: BTreeSet<IdSet> = j["cuts"]["optimal"]
            .as_array()
            .expect("a paradox has optimal cuts")
            .iter()
            .map(|c| strings(&c["cut"]))
            .collect();
        assert_eq!(&got, cuts, "{name}: optimal cuts");
    }
    if let Some(n) = e.ways {
        let got: usize = resolutions
            .iter()
            .map(|r| r["ways"].as_array().expect("ways").len())
            .sum();
        assert_eq!(got, n, "{name}: number of ways");
    }
    if let Some(targets) = &e.targets {
        let got: BTreeSet<IdSet> = j["outcomes"]
            .as_array()
            .expect("outcomes")
            .iter()
            .map(|o| {
                o["final_targets"]
                    .as_object()
                    .expect("final_targets map")
                    .iter()
                    .map(|(id, t)| {
                        let names: Vec<&str> = t
                            .as_array()
                            .expect("targets")
                            .iter()
                            .map(|p| p.as_str().expect("name"))
                            .collect();
                        format!("{id}:{}", names.join(","))
                    })
                    .collect()
            })
            .collect();
        assert_eq!(&got, targets, "{name}: final targets of the reachable ways");
    }
    if e.classification.as_deref() != Some("paradox") {
        assert!(j["cuts"].is_null(), "{name}: cuts only for a paradox");
    }
    if let Some(deaths) = &e.deaths {
        let got: BTreeMap<IdSet, String> = j["death_probabilities"]
            .as_array()
            .expect("death distribution")
            .iter()
            .map(|d| {
                (
                    strings(&d["deaths"]),
                    d["probability"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(&got, deaths, "{name}: death probabilities");
    }
}

fn check_all(engine: &str) {
    let files = instances("instances/ar");
    assert!(files.len() >= 16, "the shipped instances are missing");
    for f in files {
        check(&f, engine);
    }
}

#[test]
fn ar_instances_direct() {
    check_all("direct");
}

#[test]
fn ar_instances_sat() {
    check_all("sat");
}

#[test]
fn ar_instances_both() {
    check_all("both");
}

#[test]
fn ar_instances_brute() {
    check_all("brute");
}
