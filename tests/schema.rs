//! `gordian schema` and the JSON Schemas it prints (`schemas/`), checked against what
//! gordian writes: every schema is a valid draft 2020-12 schema whose fields are all
//! described; every shipped instance's answer validates (the JSON answer of the direct and
//! the SAT engine of every system, through the library; `resolve --json` and `lancer enumerate
//! --json` through the binary); the ?AR instance schema accepts the nights gordian reads
//! back and rejects what its reader rejects; every shipped setup's `setup analyse --json`
//! report (exact, sampled, a shard, shards merged) validates against the setup schema;
//! broken answers and reports fail, so these tests can fail.

mod common;

use common::TempDir;
use gordian::{Engines, Limits};
use jsonschema::Validator;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The systems and whether each has a JSON instance format.
const SYSTEMS: &[(&str, bool)] = &[
    ("ar", true),
    ("fft", false),
    ("lancer", false),
    ("foeman", false),
    ("ff8", false),
];

/// The one system with role setups (`gordian setup analyse`, `gordian schema setup`).
const SETUP_SYSTEM: &str = "ar";

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("gordian runs")
}

/// The schema `gordian schema WHICH --system SYSTEM` prints (checked: exit 0, one
/// trailing newline, the file of `schemas/` byte for byte).
fn printed_schema(which: &str, system: &str) -> Value {
    let out = gordian(&["schema", which, "--system", system]);
    assert!(
        out.status.success(),
        "schema {which} --system {system}: {out:?}"
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        text.ends_with("}\n") && !text.ends_with("\n\n"),
        "one trailing newline"
    );
    let file = format!("{ROOT}/schemas/{system}.{which}.schema.json");
    let shipped = std::fs::read_to_string(&file).expect("the schema file");
    assert_eq!(
        text.trim_end(),
        shipped.trim_end(),
        "{file} is what is printed"
    );
    serde_json::from_str(&text).expect("a schema is JSON")
}

/// A validator for a schema that is first checked against the draft 2020-12 meta-schema.
fn validator(schema: &Value, what: &str) -> Validator {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!(
            "{what} is not a valid draft 2020-12 schema: {e} at {}",
            e.instance_path()
        );
    }
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{what} does not compile: {e}"))
}

fn answer_validator(system: &str) -> Validator {
    validator(
        &printed_schema("answer", system),
        &format!("{system}.answer"),
    )
}

fn errors(v: &Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} (at `{}`)", e, e.instance_path()))
        .take(10)
        .collect()
}

fn assert_valid(v: &Validator, instance: &Value, what: &str) {
    let errs = errors(v, instance);
    assert!(
        errs.is_empty(),
        "{what} does not validate:\n  {}",
        errs.join("\n  ")
    );
}

fn assert_invalid(v: &Validator, instance: &Value, what: &str) {
    assert!(!v.is_valid(instance), "{what} validates, but should not");
}

/// The shipped instance files of a system (by its extensions), sorted.
fn shipped(system: &str, extensions: &[&str]) -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join("instances").join(system);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the instances directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
        })
        .collect();
    files.sort();
    files
}

fn stdout_json(out: &Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what}: exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

// ----- the schemas themselves -------------------------------------------------------------

const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "$ref",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
    "minLength",
    "pattern",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
];

/// Every keyword is one this project uses (a misspelt keyword would be silently
/// ignored), and every property that documents a field has a `description`
/// (conditional branches and refinements of a `$ref`erenced shape only constrain).
fn check_keywords(s: &Value, at: &str, documenting: bool, problems: &mut Vec<String>) {
    let Some(obj) = s.as_object() else {
        if !s.is_boolean() {
            problems.push(format!("{at}: a schema is an object or a boolean"));
        }
        return;
    };
    for k in obj.keys() {
        if !KEYWORDS.contains(&k.as_str()) {
            problems.push(format!("{at}: unknown keyword `{k}`"));
        }
    }
    let refines = obj.contains_key("$ref");
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            let here = format!("{at}/properties/{name}");
            if documenting && !refines && p.get("description").is_none() {
                problems.push(format!("{here}: no description"));
            }
            check_keywords(p, &here, documenting && !refines, problems);
        }
    }
    if let Some(defs) = obj.get("$defs").and_then(Value::as_object) {
        for (name, d) in defs {
            let here = format!("{at}/$defs/{name}");
            if d.get("description").is_none() {
                problems.push(format!("{here}: no description"));
            }
            check_keywords(d, &here, true, problems);
        }
    }
    for k in [
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
    ] {
        if let Some(sub) = obj.get(k) {
            check_keywords(sub, &format!("{at}/{k}"), documenting, problems);
        }
    }
    for k in ["not", "if", "then", "else"] {
        if let Some(sub) = obj.get(k) {
            check_keywords(sub, &format!("{at}/{k}"), false, problems);
        }
    }
    for k in ["prefixItems", "oneOf", "anyOf", "allOf"] {
        for (i, sub) in obj
            .get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            check_keywords(sub, &format!("{at}/{k}/{i}"), documenting, problems);
        }
    }
}

#[test]
fn every_schema_is_a_valid_draft_2020_12_schema_with_every_field_described() {
    let mut checked = Vec::new();
    for &(system, has_instance) in SYSTEMS {
        let whiches: &[&str] = if has_instance {
            &["instance", "answer"]
        } else {
            &["answer"]
        };
        for which in whiches {
            checked.push((*which, system));
        }
    }
    // The report of `setup analyse --json`: only ?AR has setups.
    checked.push(("setup", SETUP_SYSTEM));
    for (which, system) in checked {
        let what = format!("{system}.{which}");
        let s = printed_schema(which, system);
        validator(&s, &what);
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(s["$id"], format!("urn:gordian:schema:{what}"), "{what}");
        for k in ["$id", "title", "description"] {
            assert!(s[k].is_string(), "{what}: no {k}");
        }
        assert_eq!(s["type"], "object", "{what}: an object");
        assert!(
            s.get("additionalProperties").is_none() && s.get("unevaluatedProperties").is_none(),
            "{what}: new top-level fields may be added"
        );
        let mut problems = Vec::new();
        check_keywords(&s, &what, true, &mut problems);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}

#[test]
fn the_instance_schema_of_a_text_only_system_is_an_error_naming_its_format() {
    for &(system, has_instance) in SYSTEMS.iter().filter(|(_, j)| !j) {
        assert!(!has_instance);
        let out = gordian(&["schema", "instance", "--system", system]);
        assert_eq!(out.status.code(), Some(2), "{system}");
        assert!(out.stdout.is_empty(), "{system}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "error: system `{system}` has no JSON instance format"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!("`.{system}`")),
            "names the extension: {err}"
        );
        assert!(
            err.contains(&format!("instances/{system}/README.md")),
            "names the format's description: {err}"
        );
    }
    let out = gordian(&["schema", "answer"]);
    assert_eq!(out.status.code(), Some(2), "--system is required");
}

#[test]
fn the_setup_schema_of_a_system_without_setups_is_an_error_naming_ar() {
    for &(system, _) in SYSTEMS.iter().filter(|(s, _)| *s != SETUP_SYSTEM) {
        let out = gordian(&["schema", "setup", "--system", system]);
        assert_eq!(out.status.code(), Some(2), "{system}");
        assert!(out.stdout.is_empty(), "{system}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("error: system `{system}` has no setups")),
            "{err}"
        );
        assert!(
            err.contains(&format!("only `{SETUP_SYSTEM}` has role setups")),
            "names the system with setups: {err}"
        );
        assert!(
            err.contains(&format!("gordian schema setup --system {SETUP_SYSTEM}")),
            "names the command that prints it: {err}"
        );
    }
}

// ----- answers ------------------------------------------------------------------------------

/// The JSON answer of the direct and of the SAT engine on every shipped instance of a
/// system (its facade module, its name, its extensions) validates against the system's
/// answer schema; gives how many answers were checked.
macro_rules! every_engines_answer_validates {
    ($sys:ident, $ty:ident, $name:expr, $exts:expr) => {{
        let v = answer_validator($name);
        let files = shipped($name, $exts);
        assert!(!files.is_empty(), "{}: no shipped instances", $name);
        let mut checked = 0;
        for f in &files {
            let instance =
                gordian::$sys::$ty::from_file(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            for engine in [Engines::Direct, Engines::Sat] {
                let answer = gordian::$sys::solve(&instance, &Limits::new().engines(engine))
                    .unwrap_or_else(|e| panic!("{}: {engine:?}: {e}", f.display()));
                let what = format!("{} ({engine:?} engine)", f.display());
                assert_valid(&v, &answer.to_json(), &what);
                checked += 1;
            }
        }
        checked
    }};
}

#[test]
fn every_systems_answer_validates_on_every_shipped_instance_with_every_engine() {
    // Direct and SAT everywhere; ?AR adds brute force on small nights.
    assert!(every_engines_answer_validates!(ar, Night, "ar", &["night", "json"]) >= 2 * 45);
    assert!(every_engines_answer_validates!(fft, Scenario, "fft", &["fft"]) >= 2 * 9);
    assert!(every_engines_answer_validates!(lancer, Scenario, "lancer", &["lancer"]) >= 2 * 5);
    assert!(every_engines_answer_validates!(foeman, Scenario, "foeman", &["foeman"]) >= 2 * 11);
    assert!(every_engines_answer_validates!(ff8, Scenario, "ff8", &["ff8"]) >= 2 * 10);
}

#[test]
fn resolve_json_validates_on_every_shipped_night_with_every_output_option() {
    let answer = answer_validator("ar");
    let instance = validator(&printed_schema("instance", "ar"), "ar.instance");
    let nights = shipped("ar", &["night", "json"]);
    assert!(nights.len() >= 45);
    let mut expanded = [0; 2];
    for f in &nights {
        let file = f.to_str().expect("UTF-8 path");
        for opts in [
            &["--json"][..],
            &["--json", "--expand=never", "--seed", "3"],
            &[
                "--json",
                "--expand",
                "--engine",
                "all",
                "--explain",
                "--results",
                "--seed",
                "0",
            ],
        ] {
            let mut args = vec!["resolve", file];
            args.extend(opts);
            let what = args.join(" ");
            let j = stdout_json(&gordian(&args), &what);
            assert_valid(&answer, &j, &what);
            // Its `players` and `effects` read back as the night.
            assert_valid(&instance, &j, &format!("{what}, as a night"));
            expanded[usize::from(j["expanded"] == true)] += 1;
        }
    }
    // Both shapes were seen: the flat lists, and each component with its own lists.
    assert!(expanded[0] >= nights.len() && expanded[1] >= nights.len());
}

#[test]
fn resolve_json_with_certify_and_limit_validates() {
    let answer = answer_validator("ar");
    let dir = TempDir::new("schema-certify");
    let certs = dir.0.join("certs");
    let paradox = format!("{ROOT}/instances/ar/odd-block-cycle.night");
    let several = format!("{ROOT}/instances/ar/independent-components.night");
    let resolution = format!("{ROOT}/instances/ar/mutual-roleblock.night");
    let certs = certs.to_str().expect("UTF-8 path");
    for (file, certified_null) in [(&paradox, false), (&resolution, true)] {
        let args = ["resolve", file, "--json", "--certify", certs];
        let j = stdout_json(&gordian(&args), &args.join(" "));
        assert_valid(&answer, &j, &args.join(" "));
        assert_eq!(j["certified"].is_null(), certified_null, "{j}");
    }
    // `--limit` cuts the flat lists short (exit 5): still an answer of the same shape.
    let args = ["resolve", &several, "--json", "--expand", "--limit", "1"];
    let out = gordian(&args);
    assert_eq!(out.status.code(), Some(5));
    let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["truncated"], true);
    assert_valid(&answer, &j, &args.join(" "));
}

#[test]
fn a_night_answered_as_pieces_validates() {
    // Nine mutual blocks joined into one component of 68 effects by visits to Z that S's
    // stop makes fail (tests/faults.rs, `joined_mutual_blocks`): 2^9 resolutions, which
    // the direct engine answers as pieces (`totals.pieces`, each piece's `component`).
    let mut night = String::new();
    for i in 0..9 {
        night.push_str(&format!("A{i} block B{i}\nB{i} block A{i}\nA{i} visit Z\n"));
    }
    night.push_str("S stop Z\n");
    for j in 0..40 {
        night.push_str(&format!("P{j} visit Z\n"));
    }
    let dir = TempDir::new("schema-pieces");
    let f = dir.write("pairs.night", night);
    let v = answer_validator("ar");
    for expand in ["--expand=never", "--expand=always"] {
        let args = ["resolve", f.to_str().expect("UTF-8"), "--json", expand];
        let j = stdout_json(&gordian(&args), &args.join(" "));
        assert!(
            j["totals"]["pieces"].as_u64().expect("pieces") > 1,
            "{}",
            j["totals"]
        );
        assert_eq!(j["components"][0]["component"], 1);
        assert_valid(&v, &j, &args.join(" "));
    }
}

#[test]
fn lancer_enumerate_json_has_the_answers_shape() {
    let v = answer_validator("lancer");
    for f in shipped("lancer", &["lancer"]) {
        let args = ["lancer", "enumerate", f.to_str().expect("UTF-8"), "--json"];
        let j = stdout_json(&gordian(&args), &args.join(" "));
        assert_valid(&v, &j, &args.join(" "));
    }
}

// ----- the setup report ------------------------------------------------------------------------

fn setup_validator() -> Validator {
    validator(&printed_schema("setup", SETUP_SYSTEM), "ar.setup")
}

/// `gordian setup analyse FILE --json EXTRA...`: its report (exit 0 required).
fn setup_report(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "setup",
        "analyse",
        file.to_str().expect("UTF-8 path"),
        "--json",
    ];
    args.extend(extra);
    stdout_json(&gordian(&args), &args.join(" "))
}

/// `gordian merge` of the JSON reports of `--shard 1/2` and `--shard 2/2` (`extra` flags
/// on both), through files in `dir`.
fn merged_setup_report(dir: &TempDir, file: &Path, extra: &[&str]) -> Value {
    let mut parts = Vec::new();
    for k in ["1/2", "2/2"] {
        let mut args = extra.to_vec();
        args.extend(["--shard", k]);
        let part = setup_report(file, &args);
        assert_eq!(part["shard"], k);
        let name = format!("part-{}.json", k.replace('/', "-of-"));
        parts.push(dir.write(&name, part.to_string()));
    }
    let args = [
        "merge",
        parts[0].to_str().expect("UTF-8"),
        parts[1].to_str().expect("UTF-8"),
    ];
    let merged = stdout_json(&gordian(&args), &args.join(" "));
    assert!(merged["shard"].is_null(), "{}", merged["shard"]);
    merged
}

#[test]
fn setup_analyse_json_validates_on_every_shipped_setup() {
    let v = setup_validator();
    let dir = TempDir::new("schema-setup");
    let setups = shipped("setup", &["setup"]);
    assert!(setups.len() >= 4, "{setups:?}");
    // The modes seen, and whether some report named a paradox cause.
    let (mut exact, mut sampled, mut causes) = (0, 0, 0);
    for f in &setups {
        let name = f.display();
        let mut reports = Vec::new();
        reports.push((name.to_string(), setup_report(f, &[])));
        let flags = ["--sample", "--samples", "200", "--seed", "1"];
        reports.push((
            format!("{name} {}", flags.join(" ")),
            setup_report(f, &flags),
        ));
        reports.push((
            format!("{name} --shard 1/2"),
            setup_report(f, &["--shard", "1/2"]),
        ));
        reports.push((
            format!("{name}: merge of --shard 1/2 and 2/2"),
            merged_setup_report(&dir, f, &[]),
        ));
        for (what, r) in &reports {
            assert_valid(&v, r, what);
            match r["mode"].as_str() {
                Some("exact") => exact += 1,
                Some("sampled") => sampled += 1,
                m => panic!("{what}: mode {m:?}"),
            }
            causes += usize::from(!r["paradox_causes"].as_array().expect("a list").is_empty());
        }
    }
    // Both modes, with and without intervals, and the paradox causes were seen.
    assert!(
        exact >= 3 * 3 && sampled >= setups.len(),
        "{exact} {sampled}"
    );
    assert!(causes > 0);
}

#[test]
fn setup_reports_of_the_corner_cases_validate() {
    let v = setup_validator();
    let dir = TempDir::new("schema-setup-corners");
    let setup = |name: &str| Path::new(ROOT).join("instances/setup").join(name);
    let loop_ = setup("blocker-loop.setup");
    let vanilla = setup("vanilla-7.setup");
    // A sampled run split into shards and merged; without the symmetry reduction; with
    // one engine (nothing cross-checked).
    let sampled = ["--sample", "--samples", "300", "--seed", "7"];
    let merged = merged_setup_report(&dir, &loop_, &sampled);
    assert_eq!(merged["mode"], "sampled");
    assert_eq!(merged["samples"], 300);
    assert_valid(&v, &merged, "a merged sampled run");
    let r = setup_report(&loop_, &["--no-symmetry"]);
    assert_eq!(r["symmetry"], false);
    assert_valid(&v, &r, "--no-symmetry");
    let r = setup_report(&loop_, &["--engine", "direct"]);
    assert_eq!(r["cross_checked"], 0);
    assert_valid(&v, &r, "--engine direct");
    // A shard with no night at all (10 nights in 11 parts; no draw in the second of 2
    // parts of 1): every rate null, no role, action or cause listed.
    let r = setup_report(&vanilla, &["--shard", "11/11"]);
    assert_eq!(r["nights"], 0);
    assert!(r["classes"]["paradox"]["share"].is_null());
    assert_eq!(r["roles"], json!([]));
    assert_valid(&v, &r, "an empty exact shard");
    let r = setup_report(&vanilla, &["--sample", "--samples", "1", "--shard", "2/2"]);
    assert_eq!((&r["mode"], &r["nights"]), (&json!("sampled"), &json!(0)));
    assert!(r["players"][0]["ci95"].is_null());
    assert_valid(&v, &r, "an empty sampled shard");
    // Nights over a tiny --timeout are listed in `failed` (exit 5) and left out of the
    // rates; however many make it in time, the report keeps its shape.
    let f = loop_.to_str().expect("UTF-8");
    let args = ["setup", "analyse", f, "--json", "--timeout", "0.000001"];
    let out = gordian(&args);
    assert!(matches!(out.status.code(), Some(0 | 5)), "{out:?}");
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        out.status.code() == Some(5),
        !r["failed"].as_array().expect("a list").is_empty()
    );
    assert_eq!(r["failed"], r["tally"]["failed"]);
    assert_valid(&v, &r, &args.join(" "));
}

// ----- the ?AR instance format ---------------------------------------------------------------

/// Nights the reader accepts: the example of docs/formats.md and the parser's sample.
fn good_nights() -> Vec<Value> {
    vec![
        json!({"players": ["R1", "R2"],
               "effects": [{"id": "e1", "actor": "R1", "kind": "block", "targets": ["R2"], "priority": 2},
                           {"actor": "R2", "kind": "bulletproof"}]}),
        json!({"players": ["R1", "R2", "R3", "V", "rS"],
               "effects": [{"actor": "R1", "kind": "block", "targets": ["R2"]},
                           {"id": "cut_me", "actor": "R3", "kind": "block", "targets": ["R1"], "priority": 1},
                           {"actor": "V", "kind": "bulletproof"},
                           {"actor": "rS", "kind": "reflexive:stop", "targets": [], "priority": null},
                           {"actor": "V", "kind": "deflect", "targets": ["R1"], "id": null}]}),
        json!({"effects": [{"actor": "A", "kind": "kill", "targets": ["B"]}], "comment": "ignored"}),
        // The redirections: `swap X Y`, `redirect X to Y` (no `to` in JSON), `guard X`,
        // `deflect X to Y` beside the one-target `deflect T`, filters on each, their
        // roles; `hide` and `babysit`; the ascetic's immune list written out. A few
        // redirections a night: the engines try their processing orders.
        json!({"players": ["BD", "BD2", "K", "A", "B", "C"],
               "effects": [{"actor": "BD", "kind": "swap", "targets": ["A", "B"]},
                           {"actor": "BD2", "kind": "bus_driver", "targets": ["B", "C"]},
                           {"actor": "K", "kind": "kill", "targets": ["B"]}]}),
        json!({"effects": [{"actor": "R", "kind": "redirect", "targets": ["K", "C"]},
                           {"actor": "R2", "kind": "redirector", "targets": ["A", "B"]},
                           {"actor": "P", "kind": "puppeteer", "targets": ["K", "A"]},
                           {"actor": "K", "kind": "kill", "targets": ["A"]}]}),
        json!({"effects": [{"actor": "P", "kind": "redirect[kill,visit]", "targets": ["K", "B"]},
                           {"actor": "G", "kind": "guard", "targets": ["A"]},
                           {"actor": "G2", "kind": "bodyguard", "targets": ["B"]},
                           {"actor": "K", "kind": "kill", "targets": ["A"]}]}),
        json!({"effects": [{"actor": "G", "kind": "guard[kill]", "targets": ["C"]},
                           {"actor": "D", "kind": "deflect", "targets": ["A", "C"]},
                           {"actor": "D", "kind": "deflector", "targets": ["B", "C"]},
                           {"actor": "D", "kind": "deflect[kill]", "targets": ["K", "A"]},
                           {"actor": "K", "kind": "kill", "targets": ["A"]}]}),
        json!({"effects": [{"actor": "K", "kind": "swap[kill,swap,redirect,guard,hide,babysit]", "targets": ["C", "Asc"]},
                           {"actor": "D", "kind": "deflect", "targets": ["K"]},
                           {"actor": "K", "kind": "block[swap,redirect,guard]", "targets": ["BD"]},
                           {"actor": "K", "kind": "kill", "targets": ["A"]},
                           {"actor": "H", "kind": "hide", "targets": ["A"]},
                           {"actor": "H", "kind": "babysitter", "targets": ["B"]},
                           {"actor": "A", "kind": "hider", "targets": ["C"]},
                           {"actor": "B", "kind": "babysit", "targets": ["C"]},
                           {"actor": "Asc", "kind": "immune[visit,block,stop,protect,deflect,jail,swap,redirect,guard,hide,babysit]"},
                           {"actor": "C", "kind": "ascetic"},
                           {"actor": "B", "kind": "reflexive:kill[swap,guard]"}]}),
    ]
}

/// Nights the reader rejects, each for one reason the schema states too.
fn bad_nights() -> Vec<(&'static str, Value)> {
    let e = |effect: Value| json!({"effects": [effect]});
    vec![
        ("no effects", json!({"effects": []})),
        ("no `effects`", json!({"players": ["A"]})),
        (
            "`players` not names",
            json!({"players": "A", "effects": [{"actor": "A", "kind": "visit", "targets": ["A"]}]}),
        ),
        (
            "an unknown effect field",
            e(json!({"actor": "A", "kind": "visit", "targets": ["B"], "to": "B"})),
        ),
        ("no actor", e(json!({"kind": "visit", "targets": ["B"]}))),
        (
            "the kind `passive`",
            e(json!({"actor": "A", "kind": "passive"})),
        ),
        (
            "an unknown kind",
            e(json!({"actor": "A", "kind": "blok", "targets": ["B"]})),
        ),
        (
            "reflexive:deflect",
            e(json!({"actor": "A", "kind": "reflexive:deflect"})),
        ),
        (
            "a kill with two targets",
            e(json!({"actor": "A", "kind": "kill", "targets": ["B", "C"]})),
        ),
        (
            "a swap with one target",
            e(json!({"actor": "A", "kind": "swap", "targets": ["B"]})),
        ),
        (
            "a bus driver with three targets",
            e(json!({"actor": "A", "kind": "bus_driver", "targets": ["B", "C", "D"]})),
        ),
        (
            "a redirect written with `to`",
            e(json!({"actor": "A", "kind": "redirect", "targets": ["B", "to", "C"]})),
        ),
        (
            "a filtered redirect with one target",
            e(json!({"actor": "A", "kind": "redirect[kill]", "targets": ["B"]})),
        ),
        (
            "a guard with two targets",
            e(json!({"actor": "A", "kind": "bodyguard", "targets": ["B", "C"]})),
        ),
        (
            "a deflect with three targets",
            e(json!({"actor": "A", "kind": "deflect[kill]", "targets": ["B", "C", "D"]})),
        ),
        (
            "a filter on a kill",
            e(json!({"actor": "A", "kind": "kill[swap]", "targets": ["B"]})),
        ),
        (
            "an unknown kind in a redirection's filter",
            e(json!({"actor": "A", "kind": "swap[bus]", "targets": ["B", "C"]})),
        ),
        (
            "a hider with two targets",
            e(json!({"actor": "A", "kind": "hider", "targets": ["B", "C"]})),
        ),
        (
            "a filter on a babysit",
            e(json!({"actor": "A", "kind": "babysit[kill]", "targets": ["B"]})),
        ),
        (
            "reflexive:swap",
            e(json!({"actor": "A", "kind": "reflexive:swap"})),
        ),
        (
            "a block without targets",
            e(json!({"actor": "A", "kind": "block"})),
        ),
        (
            "a passive with a target",
            e(json!({"actor": "A", "kind": "bulletproof", "targets": ["B"]})),
        ),
        (
            "a negative priority",
            e(json!({"actor": "A", "kind": "visit", "targets": ["B"], "priority": -1})),
        ),
        (
            "a priority past u32",
            e(json!({"actor": "A", "kind": "visit", "targets": ["B"], "priority": 4294967296u64})),
        ),
        (
            "the id `players`",
            e(json!({"id": "players", "actor": "A", "kind": "visit", "targets": ["B"]})),
        ),
        (
            "a bad name",
            e(json!({"actor": "A B", "kind": "visit", "targets": ["B"]})),
        ),
    ]
}

#[test]
fn the_ar_instance_schema_accepts_what_the_reader_reads_and_rejects_what_it_rejects() {
    let v = validator(&printed_schema("instance", "ar"), "ar.instance");
    let dir = TempDir::new("schema-instance");
    for f in shipped("ar", &["json"]) {
        let j: Value =
            serde_json::from_str(&std::fs::read_to_string(&f).expect("readable")).expect("JSON");
        assert_valid(&v, &j, &f.display().to_string());
    }
    for (k, night) in good_nights().into_iter().enumerate() {
        assert_valid(&v, &night, &night.to_string());
        let p = dir.write(&format!("good{k}.json"), night.to_string());
        let out = gordian(&["resolve", p.to_str().expect("UTF-8"), "--json"]);
        assert!(
            out.status.success(),
            "{night}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (why, night) in bad_nights() {
        assert_invalid(&v, &night, why);
        let p = dir.write("bad.json", night.to_string());
        let out = gordian(&["resolve", p.to_str().expect("UTF-8")]);
        assert_eq!(out.status.code(), Some(2), "the reader rejects {why} too");
    }
    // Every shipped night, as gordian writes it in `resolve --json`, reads back as a
    // `.json` night with the same answer.
    for f in shipped("ar", &["night"]) {
        let a = stdout_json(
            &gordian(&["resolve", f.to_str().expect("UTF-8"), "--json"]),
            "resolve",
        );
        let night = json!({"players": a["players"], "effects": a["effects"]});
        assert_valid(&v, &night, &f.display().to_string());
        let p = dir.write("back.json", night.to_string());
        let b = stdout_json(
            &gordian(&["resolve", p.to_str().expect("UTF-8"), "--json"]),
            "read back",
        );
        for k in [
            "classification",
            "totals",
            "cut_cost",
            "death_chances",
            "effects",
        ] {
            assert_eq!(a[k], b[k], "{}: {k}", f.display());
        }
    }
}

// ----- broken answers fail -------------------------------------------------------------------

/// `answer` with `edit` applied must fail validation.
fn breaks(v: &Validator, answer: &Value, what: &str, edit: impl Fn(&mut Value)) {
    let mut broken = answer.clone();
    edit(&mut broken);
    assert_ne!(&broken, answer, "{what}: the edit changed nothing");
    assert_invalid(v, &broken, what);
}

fn resolve(file: &str, extra: &[&str]) -> Value {
    let path = format!("{ROOT}/instances/ar/{file}");
    let mut args = vec!["resolve", path.as_str(), "--json"];
    args.extend(extra);
    stdout_json(&gordian(&args), &args.join(" "))
}

#[test]
fn broken_ar_answers_fail_validation() {
    let v = answer_validator("ar");
    let paradox = resolve("odd-block-cycle.night", &["--seed", "1"]);
    assert_valid(&v, &paradox, "the paradox");
    let quasi = resolve("mutual-roleblock.night", &[]);
    assert_eq!(quasi["classification"], "quasi-paradox");
    assert_valid(&v, &quasi, "the quasi-paradox");
    let several = resolve("independent-components.night", &["--expand=never"]);
    assert_valid(&v, &several, "three components, not expanded");
    let maybe = |a: &mut Value| a["classification"] = json!("maybe");
    breaks(&v, &paradox, "classification `maybe`", maybe);
    breaks(&v, &paradox, "no `totals`", |a| {
        a.as_object_mut().expect("an object").remove("totals");
    });
    breaks(&v, &paradox, "a decimal probability", |a| {
        a["outcomes"][0]["probability"] = json!("0.333")
    });
    breaks(&v, &paradox, "a count as a number", |a| {
        a["totals"]["resolutions"] = json!(0)
    });
    breaks(&v, &paradox, "a paradox without a cut cost", |a| {
        a["cut_cost"] = Value::Null
    });
    breaks(&v, &paradox, "an unknown field in a resolution", |a| {
        a["cuts"]["optimal"][0]["resolutions"][0]["weight"] = json!(1)
    });
    breaks(&v, &paradox, "a way without deaths", |a| {
        a["cuts"]["optimal"][0]["resolutions"][0]["ways"][0]
            .as_object_mut()
            .expect("an object")
            .remove("deaths");
    });
    breaks(&v, &paradox, "expanded without the flat lists", |a| {
        a.as_object_mut().expect("an object").remove("outcomes");
    });
    breaks(&v, &paradox, "a pick without its seed", |a| {
        a["pick"].as_object_mut().expect("a pick").remove("seed");
    });
    breaks(&v, &paradox, "an unknown engine", |a| {
        a["engine"] = json!("magic")
    });
    breaks(&v, &quasi, "a quasi-paradox with a cut cost", |a| {
        a["cut_cost"] = json!([{"priority": 2, "count": 1}])
    });
    breaks(&v, &quasi, "a quasi-paradox with optimal cuts", |a| {
        a["cuts"] = json!({"cost": [], "optimal": []})
    });
    breaks(
        &v,
        &several,
        "a component without its lists when not expanded",
        |a| {
            a["components"][0]
                .as_object_mut()
                .expect("a component")
                .remove("outcomes");
        },
    );
    breaks(&v, &several, "a target that is not a player name", |a| {
        a["effects"][0]["targets"] = json!(["B C"])
    });
    // New top-level fields are allowed.
    let mut more = paradox.clone();
    more["solver_version"] = json!("x");
    assert_valid(&v, &more, "an added top-level field");
}

/// The JSON answer of one shipped instance of a system, by its direct engine.
macro_rules! answer_of {
    ($sys:ident, $ty:ident, $file:expr) => {{
        let f = Path::new(ROOT)
            .join("instances")
            .join(stringify!($sys))
            .join($file);
        let instance = gordian::$sys::$ty::from_file(&f).expect("loads");
        gordian::$sys::solve(&instance, &Limits::new().engines(Engines::Direct))
            .expect("answers")
            .to_json()
    }};
}

#[test]
fn broken_answers_of_the_other_systems_fail_validation() {
    let v = answer_validator("fft");
    let a = answer_of!(fft, Scenario, "naive-refuter-mini.fft");
    assert_valid(&v, &a, "fft");
    breaks(&v, &a, "fft: variants out of order", |a| {
        a["variants"].as_array_mut().expect("variants").swap(0, 1)
    });
    breaks(&v, &a, "fft: an unknown flag", |a| {
        a["variants"][0]["outcomes"][0]["flags"][0] = json!("maybe")
    });
    breaks(&v, &a, "fft: a character by name", |a| {
        a["variants"][0]["outcomes"][0]["next_cr"] = json!(["A"])
    });

    let v = answer_validator("lancer");
    let a = answer_of!(lancer, Scenario, "seed-2-brace.lancer");
    assert_valid(&v, &a, "lancer");
    breaks(&v, &a, "lancer: status `maybe`", |a| {
        a["outcomes"][0]["events"][0]["status"] = json!("maybe")
    });
    breaks(&v, &a, "lancer: an unknown policy", |a| {
        a["policy"] = json!("random")
    });
    breaks(&v, &a, "lancer: a detail with two results", |a| {
        a["outcomes"][0]["events"][0]["detail"] = json!({"hit": true, "dealt": 1})
    });

    let v = answer_validator("foeman");
    let a = answer_of!(foeman, Scenario, "figure_tie.foeman");
    assert_valid(&v, &a, "foeman");
    breaks(&v, &a, "foeman: no `actions`", |a| {
        a.as_object_mut().expect("an object").remove("actions");
    });
    breaks(&v, &a, "foeman: a negative figure", |a| {
        a["actions"][0]["order"][0]["figure"] = json!(-1)
    });

    let v = answer_validator("ff8");
    let a = answer_of!(ff8, Scenario, "queen_moves.ff8");
    assert_valid(&v, &a, "ff8");
    breaks(&v, &a, "ff8: amount 11", |a| {
        a["states"][0]["amount"] = json!(11)
    });
    breaks(&v, &a, "ff8: an unknown region", |a| {
        a["states"][0]["queen"] = json!("Winhill")
    });
    breaks(&v, &a, "ff8: a goal as text", |a| {
        a["goal"] = json!("Open in Balamb")
    });
    // Rule sets are named rules, not bit masks.
    assert_eq!(a["states"][0]["rules"][0], json!(["Open"]));
    breaks(&v, &a, "ff8: a rule set as a bit mask", |a| {
        a["states"][0]["rules"][0] = json!(1)
    });
    breaks(&v, &a, "ff8: an unknown rule", |a| {
        a["states"][0]["carried"][0]["rules"] = json!(["Open", "Wall"])
    });
    breaks(&v, &a, "ff8: a rule twice", |a| {
        a["states"][0]["rules"][1] = json!(["Same", "Same"])
    });
    breaks(&v, &a, "ff8: guessed chart rows naming no region", |a| {
        a["guessed_chart_rows"] = json!(["Winhill"])
    });
}

#[test]
fn broken_setup_reports_fail_validation() {
    let v = setup_validator();
    let f = Path::new(ROOT).join("instances/setup/blocker-loop.setup");
    let exact = setup_report(&f, &[]);
    assert_valid(&v, &exact, "the exact report");
    let sampled = setup_report(&f, &["--sample", "--samples", "200", "--seed", "1"]);
    assert_valid(&v, &sampled, "the sampled report");
    assert!(!exact["paradox_causes"]
        .as_array()
        .expect("causes")
        .is_empty());
    breaks(&v, &exact, "no `classes`", |r| {
        r.as_object_mut().expect("an object").remove("classes");
    });
    breaks(&v, &exact, "no `tally`", |r| {
        r.as_object_mut().expect("an object").remove("tally");
    });
    breaks(&v, &exact, "a player without its chance", |r| {
        r["players"][0]
            .as_object_mut()
            .expect("a player")
            .remove("death_chance");
    });
    breaks(&v, &exact, "a share above 1", |r| {
        r["classes"]["paradox"]["share"] = json!(1.5)
    });
    breaks(&v, &exact, "a negative chance", |r| {
        r["roles"][0]["death_chance"] = json!(-0.25)
    });
    breaks(&v, &sampled, "a ci95 with one number", |r| {
        r["classes"]["paradox"]["ci95"] = json!([0.01])
    });
    breaks(&v, &sampled, "a ci95 with three numbers", |r| {
        r["players"][0]["ci95"] = json!([0.0, 0.1, 0.2])
    });
    breaks(&v, &sampled, "a chance's ci95 above 1", |r| {
        r["actions"][0]["ci95"] = json!([0.5, 1.5])
    });
    breaks(&v, &sampled, "a sampled rate without its ci95", |r| {
        r["expected_deaths"]["ci95"] = Value::Null
    });
    breaks(&v, &sampled, "a sampled run without its seed", |r| {
        r["seed"] = Value::Null
    });
    breaks(&v, &exact, "an exact rate with a ci95", |r| {
        r["classes"]["non_paradox"]["ci95"] = json!([0.8, 0.9])
    });
    breaks(&v, &exact, "an exact run with a sample size", |r| {
        r["samples"] = json!(200)
    });
    breaks(&v, &exact, "mode `guess`", |r| r["mode"] = json!("guess"));
    breaks(&v, &exact, "nights_in_setup as a number", |r| {
        r["nights_in_setup"] = json!(256)
    });
    breaks(&v, &exact, "nights_in_setup not a decimal", |r| {
        r["nights_in_setup"] = json!("2.56e2")
    });
    breaks(&v, &exact, "a count as a decimal", |r| {
        r["answered"] = json!(255.5)
    });
    breaks(&v, &exact, "a shard that is not K/N", |r| {
        r["shard"] = json!("1 of 2")
    });
    breaks(&v, &exact, "answered nights without their rates", |r| {
        r["classes"]["paradox"]["share"] = Value::Null
    });
    breaks(
        &v,
        &exact,
        "a cause's example as a number of effects",
        |r| r["paradox_causes"][0]["example"] = json!(4),
    );
    breaks(&v, &exact, "an unknown field in a player", |r| {
        r["players"][0]["alignment"] = json!("town")
    });
    breaks(&v, &exact, "a tally sum without its squares", |r| {
        r["tally"]["deaths"]
            .as_object_mut()
            .expect("a sum")
            .remove("sum_sq");
    });
    breaks(&v, &exact, "a class's sums as a number", |r| {
        r["tally"]["class_deaths"][0] = json!(0.5)
    });
    breaks(&v, &exact, "a failed night without its error", |r| {
        r["failed"] = json!([{"nights": 1, "night": "A visit B\n"}])
    });
    // New top-level fields are allowed.
    let mut more = exact.clone();
    more["gordian_version"] = json!("x");
    assert_valid(&v, &more, "an added top-level field");
}
