//! The user documentation stays true: the README is short, its example commands run and
//! print what it shows, every relative link in README.md and docs/ names a file that
//! exists, and the pages speak to users (no project-internal words).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

#[test]
fn the_readme_is_short() {
    let n = std::fs::read_to_string(root().join("README.md"))
        .expect("README")
        .lines()
        .count();
    assert!(
        n <= 260,
        "README.md has {n} lines; its details belong in docs/"
    );
}

/// Markdown link targets `](target)` that are relative paths (no scheme, no pure anchor).
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let Some(end) = rest.find(')') else { continue };
        let target = &rest[..end];
        if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
            continue;
        }
        out.push(target.split('#').next().expect("a path").to_string());
    }
    out
}

#[test]
fn every_relative_link_names_a_file() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        for target in relative_links(&text) {
            let path = page.parent().expect("dir").join(&target);
            assert!(
                path.exists(),
                "{}: link to {target}, which does not exist",
                page.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} links found");
}

#[test]
fn the_pages_use_no_project_internal_words() {
    let mut files = pages();
    for f in [
        "deploy/README.md",
        "bench/clingo/README.md",
        "web/pkg/README.md",
    ] {
        files.push(root().join(f));
    }
    for sys in ["ar", "fft", "lancer", "foeman", "ff8"] {
        files.push(root().join(format!("instances/{sys}/README.md")));
    }
    for f in files {
        let text = std::fs::read_to_string(&f).expect("page").to_lowercase();
        for word in [
            "the contract",
            "the seed ",
            "the seed'",
            "the seed)",
            "the seed,",
            "the seed.",
            "issue #",
            "issue 1",
            "earlier session",
            "earlier version",
            "previous version",
            "this version",
        ] {
            assert!(!text.contains(word), "{}: says `{word}`", f.display());
        }
    }
}

/// A `dir/*.ext` word expanded as a shell would (sorted); other words as they are.
fn expand(word: &str) -> Vec<String> {
    match word.split_once("/*.") {
        Some((dir, ext)) if !word.contains(' ') => {
            let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
                .expect("glob dir")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(&format!(".{ext}")))
                .map(|n| format!("{dir}/{n}"))
                .collect();
            v.sort();
            v
        }
        _ => vec![word.to_string()],
    }
}

/// Each README example: the last `cargo run --release -- ARGS` of a ```sh block, and the
/// next plain code block after it (its output, trimmed where a line is `...`).
fn readme_examples() -> Vec<(Vec<String>, Vec<String>)> {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README");
    let mut out = Vec::new();
    let mut pending: Option<Vec<String>> = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else {
            continue;
        };
        let block: Vec<String> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .map(str::to_string)
            .collect();
        if lang == "sh" {
            for l in &block {
                if let Some(args) = l.trim().strip_prefix("cargo run --release -- ") {
                    let args = args.split('#').next().expect("args");
                    pending = Some(args.split_whitespace().flat_map(expand).collect());
                }
            }
        } else if lang.is_empty() {
            if let Some(args) = pending.take() {
                out.push((args, block));
            }
        }
    }
    out
}

#[test]
fn the_readme_examples_print_what_it_shows() {
    let examples = readme_examples();
    assert!(examples.len() >= 6, "{} examples found", examples.len());
    for (args, shown) in examples {
        let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
            .args(&args)
            .current_dir(root())
            .output()
            .expect("run gordian");
        assert!(out.status.success(), "gordian {args:?}: {out:?}");
        let real = String::from_utf8(out.stdout).expect("UTF-8");
        // The shown lines are the real ones, in order, with `...` for lines left out.
        let mut real_lines = real.lines();
        for want in shown.iter().filter(|l| l.trim() != "...") {
            assert!(
                real_lines.any(|l| l == want),
                "gordian {args:?}: the README shows `{want}`, not printed (in this order):\n{real}"
            );
        }
        assert!(
            !Path::new(&args[0]).exists(),
            "a subcommand first: {args:?}"
        );
    }
}
