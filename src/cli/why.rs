//! The "why" flags of `gordian resolve`: `--explain` (why each effect of each outcome ended
//! as it did, and for a paradox its minimal core with the derivation), `--results` (what
//! each player learns in each outcome, with the effects it comes from), `--certify DIR`
//! (checked unsatisfiability proofs of a paradox verdict), `--dot FILE` / `--svg FILE`
//! (a picture of the night under one outcome; `-` writes it to standard output in place
//! of the report). Computes text and JSON additions for the report, and the picture for
//! standard output; the caller prints.

use crate::systems::ar::answer::report::{outcomes, pick};
use crate::systems::ar::sat::certify;
use crate::systems::ar::why::{dot, explain, results};
use crate::systems::ar::{Analysis, Cut, Universe};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The flags.
#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Explain each outcome (why each effect failed or succeeded, why each created effect
    /// exists, where each deflected slot went) and, for a paradox, a minimal core with the
    /// derivation of why it has no resolution.
    #[arg(long)]
    pub explain: bool,
    /// Say what each player learns in each outcome: the results of their information
    /// actions (track, watch, follow, voyeur, investigate) and the notices blocked,
    /// stopped, killed and saved, each with the effects it comes from (with --explain,
    /// inside each outcome's explanation).
    #[arg(long)]
    pub results: bool,
    /// For a paradox: write checked proofs (no resolution; no cheaper cut at each priority
    /// level) to this directory, as DIMACS + varisat proof + DRAT (several files: a
    /// directory, never `-`).
    #[arg(long, value_name = "DIR")]
    pub certify: Option<PathBuf>,
    /// Write Graphviz DOT of the night under one outcome (the pick with --seed, else the
    /// first) to this file; `-` writes it to standard output instead of the report.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Render the same picture to SVG with Graphviz's `dot` (which must be installed);
    /// `-` writes it to standard output instead of the report.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Keep the picture's DOT text in [`Extras::dot`] (the playground draws it itself).
    #[arg(skip)]
    pub picture: bool,
}

impl Args {
    /// Whether the flags ask for anything.
    pub fn wanted(&self) -> bool {
        self.explain
            || self.results
            || self.certify.is_some()
            || self.dot.is_some()
            || self.svg.is_some()
            || self.picture
    }

    /// Refuses what cannot be written (checked before any work, exit 2): `--certify -`
    /// (a directory of several files), `-` for both pictures, and a picture on standard
    /// output with the flags that shape the report it replaces (`--json`, `--explain`).
    pub fn check_outputs(&self, json: bool) -> Result<(), String> {
        if self.certify.as_deref().is_some_and(super::is_stdout) {
            return Err(
                "--certify takes a directory to write its proofs into (a DIMACS, \
                        a varisat proof and a DRAT file per claim), and `-` (standard \
                        output) cannot hold several files; name a directory"
                    .into(),
            );
        }
        let dot = self.dot.as_deref().is_some_and(super::is_stdout);
        let svg = self.svg.as_deref().is_some_and(super::is_stdout);
        if dot && svg {
            return Err(
                "--dot - and --svg - both ask for standard output; write one of \
                        the pictures to a file"
                    .into(),
            );
        }
        let (flag, what) = if dot {
            ("--dot", "the DOT picture")
        } else if svg {
            ("--svg", "the SVG picture")
        } else {
            return Ok(());
        };
        for (other, set) in [
            ("--json", json),
            ("--explain", self.explain),
            ("--results", self.results),
        ] {
            if set {
                return Err(super::stdout_taken(flag, what, other));
            }
        }
        Ok(())
    }
}

/// What the flags add to the report.
#[derive(Default)]
pub struct Extras {
    /// Text appended to the human report.
    pub text: String,
    /// Fields added to the JSON report.
    pub json: Vec<(&'static str, Value)>,
    /// The picture's Graphviz DOT text, when [`Args::picture`] asked for it.
    pub dot: Option<String>,
    /// The picture for standard output (`--dot -` or `--svg -`), written in place of the
    /// report once the watchdog is disarmed.
    pub stdout: Option<Vec<u8>>,
}

/// Computes everything the flags ask for; an error is a message for stderr.
pub fn run(args: &Args, u: &Universe, a: &Analysis, seed: Option<u64>) -> Result<Extras, String> {
    let mut ex = Extras::default();
    let empty = Cut::with_capacity(u.n_declared);
    let outs = outcomes(u, a, &empty);
    if args.explain {
        let (text, js) = explain::why_outcomes(u, &outs);
        if args.results {
            // The results inside each outcome's explanation.
            let (text, rs) = results::results_outcomes(u, &outs, true);
            ex.text.push_str(&text);
            ex.json.push(("explain", js));
            ex.json.push(("results", rs));
        } else {
            ex.text.push_str(&text);
            ex.json.push(("explain", js));
        }
        if a.resolutions.is_empty() {
            let (text, js) = explain::why_core(u)?;
            ex.text.push_str(&text);
            ex.json.push(("core", js));
        }
    }
    if args.results && !args.explain {
        let (text, rs) = results::results_outcomes(u, &outs, false);
        ex.text.push_str(&text);
        ex.json.push(("results", rs));
    }
    if let Some(dir) = &args.certify {
        certify_to(u, a, dir, &mut ex)?;
    }
    if args.dot.is_some() || args.svg.is_some() || args.picture {
        let o = seed
            .and_then(|s| pick(u, a, &empty, s))
            .or_else(|| outs.first().cloned())
            .ok_or("no outcome to draw")?;
        let title = dot::title(
            u,
            a.classification().name(),
            o.resolution,
            o.cut,
            &o.probability.to_string(),
        );
        let text = dot::night(u, o.cut, o.resolution, o.way, &title);
        if let Some(f) = &args.dot {
            if super::is_stdout(f) {
                ex.stdout = Some(text.clone().into_bytes());
            } else {
                std::fs::write(f, &text)
                    .map_err(|e| format!("cannot write {}: {e}", f.display()))?;
            }
        }
        if let Some(f) = &args.svg {
            let svg = dot::to_svg(&text).map_err(|e| format!("--svg {}: {e}", f.display()))?;
            if super::is_stdout(f) {
                ex.stdout = Some(svg);
            } else {
                std::fs::write(f, svg).map_err(|e| format!("cannot write {}: {e}", f.display()))?;
            }
        }
        if args.picture {
            ex.dot = Some(text);
        }
    }
    Ok(ex)
}

fn certify_to(u: &Universe, a: &Analysis, dir: &PathBuf, ex: &mut Extras) -> Result<(), String> {
    let Some(cuts) = &a.cuts else {
        let _ = writeln!(
            ex.text,
            "certified: nothing to prove; the night has a resolution, and every resolution shown \
             is re-checked against the rules with --self-check"
        );
        ex.json.push(("certified", Value::Null));
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let certs = certify::certify_all(u, cuts).map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    for c in &certs {
        let stem = c.claim.stem();
        for (ext, bytes) in [
            ("cnf", c.cnf.as_bytes()),
            ("varisat", &c.proof[..]),
            ("drat", &c.drat[..]),
        ] {
            let f = dir.join(format!("{stem}.{ext}"));
            std::fs::write(&f, bytes).map_err(|e| format!("cannot write {}: {e}", f.display()))?;
        }
        let _ = writeln!(
            ex.text,
            "certified: {} (proof checked; {}/{stem}.cnf, .varisat, .drat)",
            c.claim.words(),
            dir.display()
        );
        names.push(json!({"claim": c.claim.words(), "files": stem}));
    }
    ex.json.push(("certified", Value::Array(names)));
    Ok(())
}
