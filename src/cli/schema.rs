//! `gordian schema instance|answer|setup --system S`: the JSON Schemas (draft 2020-12) of
//! the systems' JSON formats, the files of `schemas/` embedded in the binary: the JSON
//! instance format (only ?AR has one: its `.json` nights), the JSON answer
//! (`System::to_json`, for ?AR also what `resolve --json` prints), the reference an
//! external resolver's JSON is compared with, and the JSON report of `setup analyse
//! --json` (only ?AR has setups). Owns the table of embedded schemas, keyed by system id.

use super::registry::{self, SystemName};
use super::EXIT_INPUT;
use std::process::ExitCode;

/// Which of a system's JSON formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Which {
    /// The JSON instance format (what the system reads; only ?AR has one).
    Instance,
    /// The JSON answer (what the system's engines answer, and what an outside resolver is
    /// compared with).
    Answer,
    /// The JSON report of `setup analyse --json`: only ?AR has setups.
    Setup,
}

impl Which {
    /// Its name in the table's keys and the files' names (`SYSTEM.WHICH`).
    fn name(self) -> &'static str {
        match self {
            Which::Instance => "instance",
            Which::Answer => "answer",
            Which::Setup => "setup",
        }
    }
}

/// Arguments of `gordian schema`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The instance format, the answer, or the setup report.
    #[arg(value_enum)]
    which: Which,
    /// The system.
    #[arg(long, value_enum)]
    system: SystemName,
}

/// Every embedded schema: (`SYSTEM.instance`, `SYSTEM.answer` or `SYSTEM.setup`, the
/// file's text). A system's answer schema is required; an instance schema exactly for the
/// systems that read `.json` instances; a setup schema only for ?AR, the one system with
/// setups (unit-tested against the registry).
const SCHEMAS: &[(&str, &str)] = &[
    (
        "ar.instance",
        include_str!("../../schemas/ar.instance.schema.json"),
    ),
    (
        "ar.answer",
        include_str!("../../schemas/ar.answer.schema.json"),
    ),
    (
        "fft.answer",
        include_str!("../../schemas/fft.answer.schema.json"),
    ),
    (
        "lancer.answer",
        include_str!("../../schemas/lancer.answer.schema.json"),
    ),
    (
        "foeman.answer",
        include_str!("../../schemas/foeman.answer.schema.json"),
    ),
    (
        "ff8.answer",
        include_str!("../../schemas/ff8.answer.schema.json"),
    ),
    (
        "ar.setup",
        include_str!("../../schemas/ar.setup.schema.json"),
    ),
];

/// The one system with role setups (`gordian setup analyse`).
const SETUP_SYSTEM: &str = "ar";

/// The embedded schema `key` (`SYSTEM.WHICH`), if there is one.
fn schema(key: &str) -> Option<&'static str> {
    SCHEMAS.iter().find(|(k, _)| *k == key).map(|(_, s)| *s)
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let e = registry::get(args.system);
    let which = args.which.name();
    let found = schema(&format!("{}.{which}", e.id));
    if args.which == Which::Setup && found.is_none() {
        eprintln!(
            "error: system `{id}` has no setups: only `{SETUP_SYSTEM}` has role setups \
             (`gordian setup analyse`, docs/setup.md); `gordian schema setup --system \
             {SETUP_SYSTEM}` prints the schema of its JSON report",
            id = e.id,
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let Some(text) = found else {
        let exts: Vec<String> = e.extensions.iter().map(|x| format!("`.{x}`")).collect();
        eprintln!(
            "error: system `{id}` has no JSON instance format: its instances ({noun}s) are \
             {exts} text files, described in instances/{id}/README.md; `gordian schema \
             answer --system {id}` prints the schema of its JSON answer",
            id = e.id,
            noun = e.noun,
            exts = exts.join(" or "),
        );
        return ExitCode::from(EXIT_INPUT);
    };
    let text = text.trim_end();
    say!("{text}");
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_system_has_an_answer_schema_and_json_readers_an_instance_schema() {
        assert!(
            registry::entries().iter().any(|e| e.id == SETUP_SYSTEM),
            "the system with setups is registered"
        );
        for e in registry::entries() {
            assert!(
                schema(&format!("{}.answer", e.id)).is_some(),
                "{} has no answer schema",
                e.id
            );
            assert_eq!(
                schema(&format!("{}.instance", e.id)).is_some(),
                e.extensions.contains(&"json"),
                "{}: an instance schema exactly when it reads .json instances",
                e.id
            );
            assert_eq!(
                schema(&format!("{}.setup", e.id)).is_some(),
                e.id == SETUP_SYSTEM,
                "{}: a setup schema exactly for the system with setups",
                e.id
            );
        }
        for (key, text) in SCHEMAS {
            let v: serde_json::Value = serde_json::from_str(text).expect("a schema is JSON");
            assert_eq!(
                v["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{key}"
            );
            let (id, which) = key.split_once('.').expect("SYSTEM.WHICH");
            assert!(registry::entries().iter().any(|e| e.id == id), "{key}");
            assert!(
                Which::value_variants().iter().any(|w| w.name() == which),
                "{key}"
            );
        }
    }
}
