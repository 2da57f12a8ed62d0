//! The manual through the binary: `gordian man [PAGE]` renders a roff page for every
//! subcommand (found from `--help`, not from the manual's own list), each page names
//! every flag its `--help` lists, `SEE ALSO` names only pages that `gordian man` prints,
//! the formats page lists every extension and exit code, and an unknown page is exit 2.

use std::collections::BTreeSet;
use std::process::{Command, Output};

#[allow(dead_code)] // only TempDir::new is used here
mod common;

fn gordian(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .output()
        .expect("run gordian")
}

fn stdout(args: &[&str]) -> String {
    let out = gordian(args);
    assert!(out.status.success(), "gordian {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The subcommand names a `--help` lists under `Commands:` (`help` left out).
fn commands_in_help(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            // A name sits at two spaces of indent; wrapped descriptions are indented more.
            if line.as_bytes().get(2).is_some_and(|b| *b != b' ') {
                let name = line.split_whitespace().next().expect("a name");
                if name != "help" {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

/// The long flags a `--help` lists (`--json`, `--max-memory`, ...), at the start of an
/// option line.
fn flags_in_help(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let t = t
                .strip_prefix('-')
                .filter(|r| !r.starts_with('-'))
                .map_or(t, |r| {
                    // `-h, --help`: skip the short form.
                    r.split_once(", ").map_or(t, |(_, rest)| rest)
                });
            t.strip_prefix("--").map(|r| {
                let name: String = r
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                format!("--{name}")
            })
        })
        .filter(|f| f.len() > 2)
        .collect()
}

/// Roff text with the escapes a reader would see undone (`\-` is `-`, fonts dropped).
fn plain(roff: &str) -> String {
    roff.replace("\\-", "-")
        .replace("\\&", "")
        .replace("\\e", "\\")
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
}

/// Every subcommand path, depth first, from `gordian --help` and each command's own.
fn all_commands() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = commands_in_help(&stdout(&["--help"]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        for sub in commands_in_help(&stdout(&args)) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        out.push(path);
    }
    out
}

#[test]
fn every_subcommand_has_a_page_naming_its_flags() {
    let commands = all_commands();
    // The five systems' commands and the shared ones, nested ones included.
    for must in [
        &["resolve"][..],
        &["check"],
        &["batch"],
        &["fft", "replay"],
        &["ff8", "plan"],
        &["lancer", "policies"],
        &["foeman", "fairness"],
        &["man"],
    ] {
        assert!(
            commands.iter().any(|c| c == must),
            "{must:?} not found in --help: {commands:?}"
        );
    }
    for path in &commands {
        let mut args: Vec<&str> = vec!["man"];
        args.extend(path.iter().map(String::as_str));
        let page = stdout(&args);
        let title = format!(".TH GORDIAN-{} 1", path.join("-").to_uppercase());
        assert!(
            page.starts_with(&title) || page.contains(&format!("\n{title}")),
            "page of {path:?} has no title {title}:\n{page}"
        );
        let text = plain(&page);
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "SEE ALSO"] {
            assert!(
                text.contains(&format!(".SH {section}")),
                "{path:?}: no {section}"
            );
        }
        let mut help_args: Vec<&str> = path.iter().map(String::as_str).collect();
        help_args.push("--help");
        let flags = flags_in_help(&stdout(&help_args));
        assert!(flags.contains("--help"), "{path:?}: {flags:?}");
        if path == &["resolve"] {
            // resolve's --help lists 14 long flags (--json ... --svg, --help).
            assert!(
                flags.len() >= 14 && flags.contains("--max-memory"),
                "{flags:?}"
            );
            // The synopsis gives each flag that takes a value its placeholder, as
            // --help's usage does.
            let synopsis = page
                .split(".SH SYNOPSIS\n")
                .nth(1)
                .and_then(|s| s.lines().next())
                .unwrap_or_default();
            for part in [
                "[\\fB\\-\\-max\\-memory\\fR \\fIMIB\\fR]",
                "[\\fB\\-\\-expand\\fR[=\\fIWHEN\\fR]]",
                "[\\fB\\-\\-json\\fR]",
                " \\fIFILE\\fR",
            ] {
                assert!(synopsis.contains(part), "{part} not in {synopsis}");
            }
        }
        // Each flag is an entry of an options section: the tag line after `.TP` (the
        // synopsis names them too, but without their help).
        let tags: Vec<&str> = text
            .split(".TP\n")
            .skip(1)
            .filter_map(|entry| entry.lines().next())
            .collect();
        for flag in &flags {
            assert!(
                tags.iter()
                    .any(|t| t.split([' ', ',', '=', '[']).any(|w| w == flag.as_str())),
                "page of {path:?} has no entry for {flag}"
            );
        }
        // The same page under its joined name.
        assert_eq!(stdout(&["man", &path.join("-")]), page);
    }
}

#[test]
fn see_also_names_only_pages_that_exist() {
    let list = stdout(&["man", "--list"]);
    let files: BTreeSet<String> = list
        .lines()
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .expect("a file name")
                .to_string()
        })
        .collect();
    assert!(
        files.contains("gordian(1)") && files.contains("gordian-formats(5)"),
        "{list}"
    );
    let mut pages = vec![stdout(&["man"]), stdout(&["man", "formats"])];
    for path in all_commands() {
        let mut args: Vec<&str> = vec!["man"];
        args.extend(path.iter().map(String::as_str));
        pages.push(stdout(&args));
    }
    for page in &pages {
        let text = plain(page);
        // Every `gordian...(N)` reference on the page, SUBCOMMANDS and SEE ALSO alike.
        for (at, _) in text.match_indices("gordian") {
            let rest = &text[at..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '(' || *c == ')')
                .collect();
            if let Some(open) = name.find('(') {
                if name.ends_with(')') && name[open..].len() == 3 {
                    assert!(
                        files.contains(&name),
                        "a page names {name}, which does not exist"
                    );
                }
            }
        }
    }
    // Every page listed renders.
    for line in list.lines() {
        let key = line.split_whitespace().next().expect("a key");
        let out = gordian(&["man", key]);
        assert!(
            out.status.success() && out.stdout.starts_with(b"."),
            "man {key}: {out:?}"
        );
    }
}

#[test]
fn the_formats_page_lists_every_extension_and_exit_code() {
    let text = plain(&stdout(&["man", "formats"]));
    assert!(text.starts_with(".TH GORDIAN-FORMATS 5"), "{text}");
    for ext in [".night", ".json", ".fft", ".lancer", ".foeman", ".ff8"] {
        assert!(
            text.contains(&format!(".TP\n{ext}\n")),
            "formats page: no {ext}"
        );
    }
    for readme in [
        "instances/fft/README.md",
        "instances/lancer/README.md",
        "instances/foeman/README.md",
        "instances/ff8/README.md",
        "instances/ar/README.md",
    ] {
        assert!(
            text.contains(readme),
            "formats page: no pointer to {readme}"
        );
        assert!(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(readme)
            .exists());
    }
    let exit = &text[text.find(".SH EXIT STATUS").expect("exit status")..];
    for code in ["0", "1", "2", "3", "4", "5", "130, 143"] {
        assert!(
            exit.contains(&format!(".TP\n{code}\n")),
            "exit code {code} missing"
        );
    }
}

#[test]
fn an_unknown_page_is_a_clear_error() {
    let out = gordian(&["man", "resolv"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no manual page `resolv`") && err.contains("resolve"),
        "{err}"
    );
    let out = gordian(&["man", "fft", "nope"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn out_writes_every_page_where_man_finds_it() {
    let dir = common::TempDir::new("man");
    let out = gordian(&["man", "--out", dir.0.to_str().expect("UTF-8 path")]);
    assert!(out.status.success(), "{out:?}");
    for line in stdout(&["man", "--list"]).lines() {
        let file = line.split_whitespace().nth(1).expect("file");
        let (name, section) = file.trim_end_matches(')').split_once('(').expect("NAME(N)");
        let path = dir
            .0
            .join(format!("man{section}"))
            .join(format!("{name}.{section}"));
        let key = line.split_whitespace().next().expect("key");
        assert_eq!(
            std::fs::read_to_string(&path).expect("page written"),
            stdout(&["man", key]),
            "{}",
            path.display()
        );
    }
}
