//! The playground's requests: what the browser page and the npm package ask of gordian
//! (through the WebAssembly exports of `src/wasm.rs`). A request is an instance as text,
//! of a system named or recognised; it is solved as the CLI solves a file, and answered
//! with what the CLI would print: the report's first line (`status`), the whole human
//! report, the JSON its `--json` prints (`answer`), a picture, and the CLI command those
//! come from (`command`). A night is answered as `gordian resolve FILE --explain` (and
//! `--json`) answers it; an instance of another system as `gordian check FILE --json`
//! answers it (`files[0].answer`), with a report made of the system's summary, its `check`
//! row and its explanation. `docs/playground.md` describes requests and responses.
//!
//! Invariants: renders, never prints; never panics on any request (a malformed request is
//! an `input` error response); names the systems only through the registry.

use super::registry::{self, EngineChoice, SystemName};
use super::resolve::{self, How};
use super::EXIT_LIMIT;
use crate::harness::{Differential, Verdict};
use crate::systems::ar::answer::Options;
use crate::systems::ar::Ar;
use crate::systems::spec::{Budget, System, DEFAULT_MAX_MEMORY};
use crate::text::ParseErrors;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// One request (JSON).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The instance, in its system's text format.
    text: String,
    /// The system's id (`ar`, `fft`, ...); absent or null: recognised.
    #[serde(default)]
    system: Option<String>,
    /// The file name errors are located in (its extension also names the system).
    #[serde(default)]
    name: Option<String>,
    /// The time limit in milliseconds.
    #[serde(default)]
    timeout_ms: Option<f64>,
    /// The seed of the reproducible random pick (nights).
    #[serde(default)]
    seed: Option<u64>,
    /// Also say what each player learns (nights: `resolve --results`).
    #[serde(default)]
    results: bool,
    /// The memory bound on each engine's state in MiB (`--max-memory`; default 1024).
    #[serde(default)]
    max_memory_mib: Option<u64>,
}

/// A request as the systems see it.
pub(super) struct Input<'a> {
    /// The file name the instance is read as.
    pub name: &'a str,
    /// The instance text.
    pub text: &'a str,
    /// The time limit.
    pub timeout: Option<Duration>,
    /// The seed of the pick.
    pub seed: Option<u64>,
    /// What each player learns (nights: `resolve --results`).
    pub results: bool,
    /// The memory bound on each engine's state, in bytes.
    pub max_memory: u64,
}

/// The budgets of the requests being answered, so that [`interrupt`] can stop them (a
/// Python caller's Ctrl-C); each request takes its own out when it ends.
static RUNNING: std::sync::Mutex<Vec<Budget>> = std::sync::Mutex::new(Vec::new());

/// A request's budget, registered for [`interrupt`] while this guard lives.
struct Running(Budget);

impl Running {
    fn new(max_memory: u64) -> Running {
        let b = Budget::with_max_memory(max_memory);
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(b.clone());
        Running(b)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|b| !b.same(&self.0));
    }
}

/// Stops every request being answered now, from any thread: their engines stop when they
/// next poll (a SAT search every few hundred conflicts), and each answers as a request
/// over its time limit does, with an `interrupted` status. For a caller's Ctrl-C (the
/// Python package); the page has its Cancel instead.
pub fn interrupt() {
    for b in RUNNING.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        b.cancel();
    }
}

/// The system of a request's `system` id.
fn system_by_id(id: &str) -> Result<SystemName, String> {
    registry::entries()
        .into_iter()
        .find(|e| e.id == id)
        .map(|e| e.name)
        .ok_or_else(|| {
            format!(
                "error: no system `{id}` (the systems: {})",
                ids().join(", ")
            )
        })
}

/// A request's `timeout_ms` as a time limit.
fn timeout_of(ms: Option<f64>) -> Result<Option<Duration>, String> {
    match ms {
        None => Ok(None),
        Some(ms) if ms.is_finite() && ms > 0.0 && ms <= 1e12 => {
            Ok(Some(Duration::from_secs_f64(ms / 1e3)))
        }
        Some(ms) => Err(format!(
            "error: timeout_ms must be a positive number of milliseconds, not {ms}"
        )),
    }
}

/// A request's `max_memory_mib` as a memory bound in bytes (the default when absent).
fn memory_of(mib: Option<u64>) -> Result<u64, String> {
    match mib {
        None => Ok(DEFAULT_MAX_MEMORY),
        Some(mib) if (1..=(1 << 30)).contains(&mib) => Ok(mib << 20),
        Some(mib) => Err(format!(
            "error: max_memory_mib must be 1 to 1073741824 MiB, not {mib}"
        )),
    }
}

/// The name an instance is read as when the request names none.
const UNNAMED: &str = "instance";

/// Answers one request (JSON) with one response (JSON); see the module doc.
pub fn solve(request: &str) -> String {
    let start = crate::cancel::Instant::now();
    let mut response = match answer(request) {
        Ok(v) | Err(v) => v,
    };
    response["ms"] = json!(start.elapsed().as_secs_f64() * 1e3);
    response.to_string()
}

fn answer(request: &str) -> Result<Value, Value> {
    let req: Request = serde_json::from_str(request).map_err(|e| {
        failure(
            "input",
            None,
            format!("error: the request is not valid: {e}"),
        )
    })?;
    let name = req.name.as_deref().unwrap_or(UNNAMED);
    let bad = |m: String| failure("input", None, m);
    let system = match req.system.as_deref() {
        Some(id) => system_by_id(id).map_err(bad)?,
        None => recognise(name, &req.text).unwrap_or_else(|| closest(name, &req.text)),
    };
    let timeout = timeout_of(req.timeout_ms).map_err(bad)?;
    let max_memory = memory_of(req.max_memory_mib).map_err(bad)?;
    let input = Input {
        name,
        text: &req.text,
        timeout,
        seed: req.seed,
        results: req.results,
        max_memory,
    };
    (registry::get(system).page)(&input)
}

/// A request for instances (JSON `{"flags": ["--system", "ar", "--seed", "3", ...]}`,
/// `gordian gen`'s flags): answered `{"ok": true, "instances": [TEXT, ...]}` with what
/// `gordian gen FLAGS --out -` writes, or an `input` failure with the flags' error.
pub fn generate(request: &str) -> String {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Gen {
        flags: Vec<String>,
    }
    let r = serde_json::from_str::<Gen>(request)
        .map_err(|e| format!("error: the request is not valid: {e}"))
        .and_then(|g| {
            super::gen::texts(&g.flags)
                .map_err(|e| format!("error: {}", e.trim_start_matches("error: ")))
        });
    match r {
        Ok(texts) => json!({"ok": true, "instances": texts}),
        Err(m) => failure("input", None, m),
    }
    .to_string()
}

/// A request for the instance files under some paths (JSON `{"paths": [...], "system":
/// ID?}`), walked as `gordian batch` walks them: `{"ok": true, "files": [PATH, ...]}`
/// (sorted; a path that does not exist is an `input` failure).
pub fn files(request: &str) -> String {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Files {
        paths: Vec<std::path::PathBuf>,
        #[serde(default)]
        system: Option<String>,
    }
    let answer = || -> Result<Value, String> {
        let f: Files = serde_json::from_str(request)
            .map_err(|e| format!("error: the request is not valid: {e}"))?;
        let system = f.system.as_deref().map(system_by_id).transpose()?;
        for p in &f.paths {
            if std::fs::symlink_metadata(p).is_err() {
                return Err(format!("error: {}: no such file or directory", p.display()));
            }
        }
        let exts = registry::extensions(system);
        let (jobs, _) = crate::harness::batch::plan(&f.paths, &exts, None, &Default::default());
        Ok(json!({"ok": true, "files": jobs.iter().map(|j| j.key()).collect::<Vec<_>>()}))
    };
    answer()
        .unwrap_or_else(|m| failure("input", None, m))
        .to_string()
}

/// A request for one file's `gordian batch` record (JSON `{"path", "system"?,
/// "timeout_ms"?, "max_memory_mib"?}`): the record `batch` writes for it, as JSON (a bad
/// file or a limit is a record too, as in `batch`).
pub fn record(request: &str) -> String {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct One {
        path: std::path::PathBuf,
        #[serde(default)]
        system: Option<String>,
        #[serde(default)]
        timeout_ms: Option<f64>,
        #[serde(default)]
        max_memory_mib: Option<u64>,
    }
    let answer = || -> Result<Value, String> {
        let o: One = serde_json::from_str(request)
            .map_err(|e| format!("error: the request is not valid: {e}"))?;
        let forced = o.system.as_deref().map(system_by_id).transpose()?;
        let system = registry::system_of(&o.path, forced).map_err(|e| format!("error: {e}"))?;
        let opts = registry::RunOptions {
            engine: EngineChoice::Both,
            grace: Some(Duration::from_secs(10)),
            timeout: timeout_of(o.timeout_ms)?,
            max_memory: memory_of(o.max_memory_mib)?,
            answers: false,
        };
        let job = crate::harness::batch::Job {
            path: o.path,
            unreadable: None,
            stdin: None,
        };
        Ok((registry::get(system).batch)(&job, &opts).json)
    };
    answer()
        .unwrap_or_else(|m| failure("input", None, m))
        .to_string()
}

/// A request for a setup analysis (JSON `{"text", "name"?, "exact_limit"?, "samples"?,
/// "seed"?, "sample"?, "symmetry"?, "timeout_ms"?, "max_memory_mib"?}`: `setup analyse`'s
/// flags): `{"ok": true, "report": REPORT, "text": TEXT}` with the report `setup analyse
/// --json` prints and its human form, or a `parse` / `input` failure.
pub fn setup_analyse(request: &str) -> String {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Analyse {
        text: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        exact_limit: Option<u64>,
        #[serde(default)]
        samples: Option<u64>,
        #[serde(default)]
        seed: Option<u64>,
        #[serde(default)]
        sample: bool,
        #[serde(default)]
        symmetry: Option<bool>,
        #[serde(default)]
        timeout_ms: Option<f64>,
        #[serde(default)]
        max_memory_mib: Option<u64>,
    }
    let bad = |m: String| failure("input", None, m);
    let answer = || -> Result<Value, Value> {
        let r: Analyse = serde_json::from_str(request).map_err(|e| {
            failure(
                "input",
                None,
                format!("error: the request is not valid: {e}"),
            )
        })?;
        let name = r.name.as_deref().unwrap_or("setup");
        let setup = crate::systems::ar::setup::parse::parse_setup(&r.text, Path::new(name))
            .map_err(|e| parse_failure("setup", &e))?;
        let plan = super::setup::Plan {
            file: name.to_string(),
            exact_limit: r.exact_limit.unwrap_or(1_000_000),
            samples: r.samples.unwrap_or(20_000),
            seed: r.seed.unwrap_or(0),
            sample: r.sample,
            symmetry: r.symmetry.unwrap_or(true),
            shard: None,
            engine: super::system_cmd::Engines::Both,
            timeout: timeout_of(r.timeout_ms).map_err(bad)?,
            max_memory: memory_of(r.max_memory_mib).map_err(bad)?,
            progress: false,
        };
        let a = super::setup::analyse_setup(&setup, &plan);
        use crate::systems::ar::setup::report;
        Ok(json!({
            "ok": true,
            "report": report::to_json(&a.run, &setup, &a.tally),
            "text": report::to_text(&a.run, &setup, &a.tally),
            "disagreed": a.disagreed,
        }))
    };
    match answer() {
        Ok(v) | Err(v) => v.to_string(),
    }
}

/// The systems, as JSON: `[{"id", "noun", "extensions"}]`.
pub fn systems() -> String {
    let list: Vec<Value> = registry::entries()
        .iter()
        .map(|e| json!({"id": e.id, "noun": e.noun, "extensions": e.extensions}))
        .collect();
    Value::Array(list).to_string()
}

/// The system of an instance: by the extension of `name`, else the first system (in the
/// registry's order) whose format reads `text`; `""` when none does (a request without a
/// system is then read in the format whose reading went furthest, to show its error).
pub fn detect(name: &str, text: &str) -> String {
    recognise(name, text).map_or(String::new(), |s| registry::get(s).id.to_string())
}

fn recognise(name: &str, text: &str) -> Option<SystemName> {
    let path = Path::new(name);
    let entries = registry::entries();
    if let Some(e) = entries
        .iter()
        .find(|e| crate::harness::inputs::has_extension(path, e.extensions))
    {
        return Some(e.name);
    }
    entries
        .iter()
        .find(|e| (e.reads)(path, text))
        .map(|e| e.name)
}

/// For a text no system reads: the system whose reading of it went furthest (its first
/// error is the latest in the text; the first system on a tie), so that the located error
/// shown is the one in the format the author meant.
fn closest(name: &str, text: &str) -> SystemName {
    let path = Path::new(name);
    registry::entries()
        .iter()
        .map(|e| (std::cmp::Reverse((e.first_error)(path, text)), e.name))
        .min()
        .map_or(SystemName::Ar, |(_, n)| n)
}

fn ids() -> Vec<&'static str> {
    registry::entries().iter().map(|e| e.id).collect()
}

/// An error response: `kind` is `input`, `parse`, `timeout`, `limit` or `disagree`;
/// `report` is what the CLI writes on standard error, `status` its first line.
fn failure(kind: &str, system: Option<&str>, report: String) -> Value {
    json!({
        "ok": false,
        "kind": kind,
        "system": system,
        "status": first_line(&report),
        "report": report,
        "errors": [],
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The response for located parse errors: the CLI's rendering, and each location.
fn parse_failure(system: &str, e: &ParseErrors) -> Value {
    let mut v = failure("parse", Some(system), e.rendered());
    v["errors"] =
        e.0.iter()
            .map(|p| json!({"line": p.line, "column": p.col, "message": p.message}))
            .collect();
    v
}

/// Whether `text` reads as an instance of `S` (recognising a system from its text).
pub(super) fn reads<S: System>(file: &Path, text: &str) -> bool {
    S::parse(file, text).is_ok()
}

/// Where `S`'s reading of `text` first fails, as (line, column); past the end when it
/// reads.
pub(super) fn first_error<S: System>(file: &Path, text: &str) -> (usize, usize) {
    match S::parse(file, text) {
        Ok(_) => (usize::MAX, usize::MAX),
        Err(e) => e.0.iter().map(|p| (p.line, p.col)).min().unwrap_or((0, 0)),
    }
}

/// A night, as `gordian resolve FILE --explain` and `--explain --json` answer it (with
/// `--results` when the request asks for `results`), with the picture of `--dot` (the
/// CLI's defaults: both engines, a 10 s grace, the memory bound).
pub(super) fn night(input: &Input) -> Result<Value, Value> {
    let running = Running::new(input.max_memory);
    let budget = running.0.clone();
    let why = super::why::Args {
        explain: true,
        results: input.results,
        picture: true,
        ..Default::default()
    };
    let how = How {
        engine: EngineChoice::Both,
        grace: Duration::from_secs(10),
        self_check: false,
        why: &why,
        seed: input.seed,
        timeout: input.timeout,
    };
    let what = input.name;
    let solved = budget.with_timeout(input.timeout, || {
        let u = match Ar::parse_within(Path::new(what), input.text, &budget) {
            Ok(Ok(u)) => u,
            Ok(Err(e)) => return Err(parse_failure(Ar::NAME, &e)),
            Err(_) => {
                return Err(stopped(Ar::NAME, what, &budget, input.timeout));
            }
        };
        resolve::solve(what, u, &how, &budget).map_err(|f| {
            let kind = match f.code {
                // The engines' memory limits are on their own meters, named in the message.
                EXIT_LIMIT if f.message.contains(": limit: ") => "limit",
                EXIT_LIMIT => limit_kind(&budget),
                super::EXIT_DISAGREE => "disagree",
                _ => "input",
            };
            let mut v = failure(kind, Some(Ar::NAME), f.message);
            if let Some(a) = f.answers {
                v["answers"] = serde_json::from_str(&a).unwrap_or(Value::Null);
            }
            v
        })
    })?;
    let opts = Options {
        seed: input.seed,
        ..Options::default()
    };
    let render = |json: bool| {
        let mut out = Vec::new();
        resolve::render(&solved, &opts, json, &mut out)
            .map(|_| String::from_utf8_lossy(&out).into_owned())
            .map_err(|e| failure("input", Some(Ar::NAME), format!("error: {e}")))
    };
    let report = render(false)?;
    let answer: Value = serde_json::from_str(&render(true)?).unwrap_or(Value::Null);
    let mut command = String::from("gordian resolve FILE --explain --json");
    if input.results {
        command.push_str(" --results");
    }
    if let Some(s) = input.seed {
        command.push_str(&format!(" --seed {s}"));
    }
    Ok(json!({
        "ok": true,
        "system": Ar::NAME,
        "status": first_line(&report),
        "report": report,
        "answer": answer,
        "dot": solved.dot(),
        "command": command,
        "cross_checked": solved.cross_checked(),
    }))
}

/// An instance of any system, as `gordian check FILE --json` answers it (every engine,
/// compared), with a report of its summary, its `check` row and its explanation.
pub(super) fn generic<S: System>(input: &Input) -> Result<Value, Value> {
    let running = Running::new(input.max_memory);
    let budget = running.0.clone();
    let what = input.name;
    budget.with_timeout(input.timeout, || {
        let instance = match S::parse_within(Path::new(what), input.text, &budget) {
            Ok(Ok(i)) => i,
            Ok(Err(e)) => return Err(parse_failure(S::NAME, &e)),
            Err(_) => return Err(stopped(S::NAME, what, &budget, input.timeout)),
        };
        let c = Differential::<S>::all().compare(&instance, &budget);
        let a = match c.verdict() {
            Verdict::Agree(a) | Verdict::Alone(a) => a,
            Verdict::Interrupted => {
                let reason = super::limits::stop_reason(&budget, c.limit_hit(), input.timeout);
                // The engines' memory limits are on their own meters (`c.limit_hit`).
                let kind = if c.limit_hit().is_some() {
                    "limit"
                } else {
                    limit_kind(&budget)
                };
                return Err(failure(
                    kind,
                    Some(S::NAME),
                    format!("error: {what}: {reason}"),
                ));
            }
            Verdict::Disagree => {
                let mut v = failure(
                    "disagree",
                    Some(S::NAME),
                    format!("error: {what}: the engines disagree; this is a bug in gordian."),
                );
                v["answers"] = registry::every_answer::<S>(&instance, &c);
                return Err(v);
            }
        };
        let mut report = S::summary(&instance, a);
        report.push('\n');
        for (col, cell) in S::columns().iter().zip(S::row(&instance, a)) {
            report.push_str(&format!("  {col}: {cell}\n"));
        }
        if let Some(why) = S::explain(&instance, a) {
            report.push_str(&why);
            if !why.ends_with('\n') {
                report.push('\n');
            }
        }
        let answered: Vec<&str> = c
            .runs
            .iter()
            .filter(|r| r.result.is_ok())
            .map(|r| r.engine)
            .collect();
        if c.cross_checked() {
            report.push_str(&format!(
                "(cross-checked: {} engines agree)\n",
                answered.join(" and ")
            ));
        } else {
            report.push_str(&format!(
                "(answered by the {} engine alone: NOT cross-checked)\n",
                answered.join("+")
            ));
        }
        Ok(json!({
            "ok": true,
            "system": S::NAME,
            "status": first_line(&report),
            "report": report,
            "answer": S::to_json(&instance, a),
            "dot": Value::Null,
            "command": "gordian check FILE --json",
            "cross_checked": c.cross_checked(),
        }))
    })
}

fn limit_kind(budget: &Budget) -> &'static str {
    if budget.limit_hit().is_some() {
        "limit"
    } else {
        "timeout"
    }
}

fn stopped(system: &str, what: &str, budget: &Budget, timeout: Option<Duration>) -> Value {
    let reason = super::limits::stop_reason(budget, None, timeout);
    failure(
        limit_kind(budget),
        Some(system),
        format!("error: {what}: {reason}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(req: Value) -> Value {
        serde_json::from_str(&solve(&req.to_string())).expect("responses are JSON")
    }

    #[test]
    fn a_hand_worked_night_is_answered_as_resolve_answers_it() {
        // A kill and a protection of the same target: the protection stops the kill, so
        // one resolution, nobody dies (docs/ar.md, protect).
        let r = ask(json!({
            "text": "players: M D C\nM kill C\nD protect C\n",
            "name": "protect.night"
        }));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["system"], "ar");
        assert!(
            r["status"]
                .as_str()
                .unwrap()
                .starts_with("non-paradox: exactly one resolution"),
            "{r}"
        );
        assert_eq!(r["answer"]["classification"], "non-paradox");
        assert_eq!(r["cross_checked"], true);
        assert!(r["dot"].as_str().unwrap().starts_with("digraph"));
        assert!(r["report"].as_str().unwrap().contains("why:"));
    }

    #[test]
    fn results_are_asked_for_as_resolve_results() {
        // A tracker on a killer whose kill is protected: the kill still visited Cop
        // (docs/ar.md, What each player learns), so T sees Cop; Cop was saved.
        let text = "players: M D C T\nM kill C\nD protect C\nT track M\n";
        let r = ask(json!({"text": text, "name": "n.night", "results": true}));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            r["command"],
            "gordian resolve FILE --explain --json --results"
        );
        let report = r["report"].as_str().unwrap();
        assert!(
            report.contains("T: tracked M: M visited C  [e1]"),
            "{report}"
        );
        assert_eq!(
            r["answer"]["results"][0]["players"]["T"][0]["saw"],
            json!(["C"])
        );
        let r = ask(json!({"text": text, "name": "n.night"}));
        assert!(r["answer"].get("results").is_none(), "{r}");
    }

    #[test]
    fn a_located_error_names_its_line_and_column() {
        let r = ask(json!({"text": "players: A B\nA kill\n", "system": "ar"}));
        assert_eq!(r["ok"], false);
        assert_eq!(r["kind"], "parse");
        assert_eq!(r["errors"][0]["line"], 2, "{r}");
        assert!(r["status"].as_str().unwrap().starts_with("error:"));
        assert!(r["report"].as_str().unwrap().contains("--> instance:2:"));
        // Without a system: read as the format that went furthest (a night, here).
        let r = ask(json!({"text": "players: A B\nA kill B\nB kill\n"}));
        assert_eq!(
            (r["kind"].as_str(), r["system"].as_str()),
            (Some("parse"), Some("ar"))
        );
        assert_eq!(r["errors"][0]["line"], 3, "{r}");
    }

    #[test]
    fn bad_requests_are_input_errors_never_panics() {
        for req in [
            "",
            "{",
            "[]",
            r#"{"text": 3}"#,
            r#"{"text": "x", "system": "chess"}"#,
            r#"{"text": "x", "timeout_ms": -1}"#,
            r#"{"text": "x", "extra": 1}"#,
        ] {
            let r: Value = serde_json::from_str(&solve(req)).unwrap();
            assert_eq!(r["ok"], false, "{req}");
            assert!(r["status"].as_str().unwrap().starts_with("error:"), "{req}");
        }
    }

    #[test]
    fn systems_are_recognised_by_extension_then_by_text() {
        assert_eq!(detect("x.lancer", ""), "lancer");
        assert_eq!(detect("instance", "players: A B\nA kill B\n"), "ar");
        let fft = include_str!("../../instances/fft/seed-2-haste.fft");
        assert_eq!(detect("instance", fft), "fft");
        assert_eq!(detect("instance", "\u{1}\u{2} not any format"), "");
        let list: Value = serde_json::from_str(&systems()).unwrap();
        assert_eq!(list.as_array().unwrap().len(), 5);
    }

    #[test]
    fn other_systems_answer_as_check_json_does() {
        let text = include_str!("../../instances/lancer/seed-2-brace.lancer");
        let r = ask(json!({"text": text, "name": "seed-2-brace.lancer"}));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["command"], "gordian check FILE --json");
        // The seed's brace example has four outcomes (instances/lancer/README.md).
        assert_eq!(r["answer"]["outcomes"].as_array().unwrap().len(), 4);
    }
}
