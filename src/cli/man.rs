//! `gordian man [PAGE]...`: the manual. One roff page per visible subcommand (nested ones
//! too: `gordian man fft replay`), generated from the clap definitions by `clap_mangen`,
//! plus `gordian-formats(5)`: the input formats by extension and the exit codes.
//!
//! Invariant: every page a page names under SEE ALSO or SUBCOMMANDS is one this module
//! prints (`pages` is the one list); `--out DIR` writes them all as `man1/*.1` and
//! `man5/gordian-formats.5`, so `man -M DIR gordian-resolve` finds them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gordian man`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The page: a subcommand (`resolve`, `check`, `fft`), a nested one as two words
    /// (`fft replay`) or joined (`fft-replay`), or `formats` (the input formats and the
    /// exit codes). None: gordian(1), the overview.
    #[arg(value_name = "PAGE")]
    page: Vec<String>,
    /// List the pages (their names, as `gordian man` takes them) and stop.
    #[arg(long, conflicts_with_all = ["page", "out"])]
    list: bool,
    /// Write every page into DIR instead (`DIR/man1/gordian*.1`,
    /// `DIR/man5/gordian-formats.5`), for `man -M DIR gordian-resolve` or MANPATH.
    #[arg(long, value_name = "DIR", conflicts_with = "page")]
    out: Option<PathBuf>,
}

/// The name of the formats page, as `gordian man` takes it.
const FORMATS: &str = "formats";

/// One manual page: its name as `gordian man` takes it (`""` for gordian(1)), its file
/// name and its roff text.
struct Page {
    key: String,
    file: String,
    section: &'static str,
    roff: String,
}

/// Runs `gordian man`.
pub(crate) fn run(args: &Args, root: clap::Command) -> ExitCode {
    let pages = match pages(root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot render the manual pages: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.list {
        let mut text = String::new();
        for p in &pages {
            let key = if p.key.is_empty() { "gordian" } else { &p.key };
            text.push_str(&format!("{key:<20} {}({})\n", p.file, p.section));
        }
        return done(super::out(&text));
    }
    if let Some(dir) = &args.out {
        if let Err(e) = super::writable_dir(dir) {
            eprintln!("error: --out: {e}");
            return ExitCode::from(super::EXIT_INPUT);
        }
        return match write_all(dir, &pages) {
            Ok(n) => {
                eprintln!("wrote {n} manual pages under {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!(
                    "error: cannot write the manual pages under {}: {e}",
                    dir.display()
                );
                ExitCode::from(super::EXIT_INPUT)
            }
        };
    }
    let wanted = key_of(&args.page);
    match pages.iter().find(|p| p.key == wanted) {
        Some(p) => done(show(&p.roff)),
        None => {
            let names: Vec<&str> = pages
                .iter()
                .filter(|p| !p.key.is_empty())
                .map(|p| p.key.as_str())
                .collect();
            eprintln!(
                "error: no manual page `{}`; the pages are: {} (and, with no PAGE, \
                 gordian(1); `gordian man --list` lists them with their file names)",
                args.page.join(" "),
                names.join(", ")
            );
            ExitCode::from(super::EXIT_INPUT)
        }
    }
}

/// Writes a page: rendered by the system's `man` when standard output is a terminal (as
/// `git help` does), else the roff source (for a file, a pipe, `man -l -`). Falls back to
/// the source when `man` is missing or fails.
fn show(roff: &str) -> Result<(), ExitCode> {
    use std::io::{IsTerminal, Write};
    use std::process::{Command, Stdio};
    if std::io::stdout().is_terminal() {
        let child = Command::new("man")
            .args(["-l", "-"])
            .stdin(Stdio::piped())
            .spawn();
        if let Ok(mut child) = child {
            let fed = child
                .stdin
                .take()
                .is_some_and(|mut i| i.write_all(roff.as_bytes()).is_ok());
            if child.wait().is_ok_and(|s| s.success()) && fed {
                return Ok(());
            }
        }
    }
    super::out(roff)
}

fn done(r: Result<(), ExitCode>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// The page key of the words given: `fft replay`, `fft-replay`, `gordian-fft-replay`
/// and `gordian fft replay` all name `fft-replay`; nothing or `gordian` names gordian(1).
fn key_of(words: &[String]) -> String {
    let joined = words.join("-");
    if joined == "gordian" {
        return String::new();
    }
    joined
        .strip_prefix("gordian-")
        .unwrap_or(&joined)
        .to_string()
}

/// Every page: gordian(1), one per visible subcommand at any depth, gordian-formats(5).
fn pages(root: clap::Command) -> std::io::Result<Vec<Page>> {
    let mut root = root.disable_help_subcommand(true);
    root.build();
    let mut out = Vec::new();
    collect(&root, &mut out)?;
    out.push(Page {
        key: FORMATS.to_string(),
        file: "gordian-formats".to_string(),
        section: "5",
        roff: formats_page(),
    });
    Ok(out)
}

/// The display name of a built command (`gordian-fft-replay`).
fn display(cmd: &clap::Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string()
}

fn collect(cmd: &clap::Command, out: &mut Vec<Page>) -> std::io::Result<()> {
    let file = display(cmd);
    let key = key_of(std::slice::from_ref(&file));
    out.push(Page {
        key,
        file,
        section: "1",
        roff: command_page(cmd)?,
    });
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, out)?;
    }
    Ok(())
}

/// Text for roff: a backslash and a hyphen escaped (`\-` is the minus of a flag).
fn roff_escape(s: &str) -> String {
    s.replace('\\', "\\e").replace('-', "\\-")
}

/// The SYNOPSIS section, as `--help`'s usage says it: each flag with its value's
/// placeholder (`--timeout SECS`, `--expand[=WHEN]`), optional ones in brackets, then the
/// positional arguments (`FILE`, `PATH...`) and `SUBCOMMAND` for a command that has them.
/// (clap_mangen's own synopsis leaves the placeholders out.)
fn synopsis(cmd: &clap::Command) -> String {
    let b = |s: &str| format!("\\fB{}\\fR", roff_escape(s));
    let i = |s: &str| format!("\\fI{}\\fR", roff_escape(s));
    let placeholder = |a: &clap::Arg| -> String {
        a.get_value_names()
            .map(|v| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| a.get_id().as_str().to_uppercase())
    };
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let mut words = vec![b(name)];
    for a in cmd.get_arguments() {
        if a.is_hide_set() || a.is_positional() {
            continue;
        }
        let flag = match (a.get_short(), a.get_long()) {
            (Some(s), Some(l)) => format!("{}|{}", b(&format!("-{s}")), b(&format!("--{l}"))),
            (None, Some(l)) => b(&format!("--{l}")),
            (Some(s), None) => b(&format!("-{s}")),
            (None, None) => continue,
        };
        let value = if a.get_action().takes_values() {
            let optional = a.get_num_args().is_some_and(|n| n.min_values() == 0);
            if optional {
                format!("[={}]", i(&placeholder(a)))
            } else {
                format!(" {}", i(&placeholder(a)))
            }
        } else {
            String::new()
        };
        words.push(if a.is_required_set() {
            format!("{flag}{value}")
        } else {
            format!("[{flag}{value}]")
        });
    }
    for a in cmd.get_positionals() {
        if a.is_hide_set() {
            continue;
        }
        let many = a.get_num_args().is_some_and(|n| n.max_values() > 1);
        let word = format!("{}{}", i(&placeholder(a)), if many { "..." } else { "" });
        words.push(if a.is_required_set() {
            word
        } else {
            format!("[{word}]")
        });
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        words.push(i("SUBCOMMAND"));
    }
    format!(".SH SYNOPSIS\n{}\n", words.join(" "))
}

/// A command's page: clap_mangen's title, name, synopsis, description, options and
/// subcommands, then the command's after-help (EXAMPLES when it is one, else NOTES), EXIT
/// STATUS and SEE ALSO.
fn command_page(cmd: &clap::Command) -> std::io::Result<String> {
    let name = display(cmd);
    let man = clap_mangen::Man::new(cmd.clone())
        .manual("gordian manual")
        .source(format!("gordian {}", env!("CARGO_PKG_VERSION")))
        .title(name.to_uppercase());
    let mut buf = Vec::new();
    man.render_title(&mut buf)?;
    man.render_name_section(&mut buf)?;
    buf.extend_from_slice(synopsis(cmd).as_bytes());
    man.render_description_section(&mut buf)?;
    let has_args = cmd
        .get_arguments()
        .any(|a| !a.is_hide_set() && (a.get_long().is_some() || a.is_positional()));
    if has_args {
        man.render_options_section(&mut buf)?;
    }
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    if !subs.is_empty() {
        man.render_subcommands_section(&mut buf)?;
    }
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if let Some(after) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        let after = after.to_string();
        let title = if after.starts_with("Example") {
            "EXAMPLES"
        } else {
            "NOTES"
        };
        section(&mut text, title);
        for line in after.lines() {
            if line.trim().is_empty() {
                text.push_str(".PP\n");
            } else {
                text.push_str(".nf\n");
                text.push_str(&escape(line));
                text.push_str("\n.fi\n");
            }
        }
    }
    let top = cmd.get_bin_name().unwrap_or(cmd.get_name()) == "gordian" || name == "gordian";
    section(&mut text, "EXIT STATUS");
    if top {
        exit_codes(&mut text);
    } else {
        para(
            &mut text,
            "0 answered (a paradox is an answer), 2 bad input or arguments, 3 the engines \
             disagree, 5 a limit was hit; the full list, per command: gordian-formats(5).",
        );
    }
    section(&mut text, "SEE ALSO");
    let mut see: Vec<String> = Vec::new();
    if !top {
        // The parent page (gordian(1) for a first-level subcommand).
        let parent = name.rsplit_once('-').map_or("gordian", |(p, _)| p);
        see.push(format!("{parent}(1)"));
        if parent != "gordian" {
            see.push("gordian(1)".to_string());
        }
    }
    see.push("gordian-formats(5)".to_string());
    para(&mut text, &(see.join(", ") + "."));
    para(
        &mut text,
        "Every page is printed by gordian man PAGE (gordian man --list names them); \
         gordian man --out DIR writes them all for man -M DIR. The user documentation is \
         README.md and docs/ in the source tree (docs/cli.md: the commands in depth).",
    );
    Ok(text)
}

/// Appends `.SH TITLE`.
fn section(text: &mut String, title: &str) {
    text.push_str(".SH ");
    text.push_str(title);
    text.push('\n');
}

/// Appends a paragraph of running text.
fn para(text: &mut String, body: &str) {
    text.push_str(".PP\n");
    text.push_str(&escape(body));
    text.push('\n');
}

/// Appends a tagged paragraph: `tag` in bold, then `body`.
fn item(text: &mut String, tag: &str, body: &str) {
    text.push_str(".TP\n\\fB");
    text.push_str(&escape(tag));
    text.push_str("\\fR\n");
    text.push_str(&escape(body));
    text.push('\n');
}

/// A literal display (no filling).
fn literal(text: &mut String, lines: &str) {
    text.push_str(".PP\n.nf\n.RS 4\n");
    for line in lines.lines() {
        text.push_str(&escape(line));
        text.push('\n');
    }
    text.push_str(".RE\n.fi\n");
}

/// Escapes text for roff: backslashes and hyphens, and a leading `.` or `'` that would
/// read as a request.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    if s.starts_with('.') || s.starts_with('\'') {
        out.push_str("\\&");
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            _ => out.push(c),
        }
    }
    out
}

/// The exit codes, as every command uses them (ARCHITECTURE.md, `src/cli/`).
fn exit_codes(text: &mut String) {
    item(
        text,
        "0",
        "Success: the command answered. A paradox is an answer, not an error. check: every \
         file agreed; batch: every instance has a record (error records included); fuzz: \
         no disagreement found.",
    );
    item(
        text,
        "1",
        "Anything else: a failed write to standard output or to a report, an internal \
         error; fuzz: a disagreement (or a crashed worker) was found and saved; batch and \
         check: a worker process crashed.",
    );
    item(
        text,
        "2",
        "Bad input or bad arguments: the message names FILE:LINE:COL and shows the line; \
         an unreadable path, an empty instance, a report that cannot be used. Nothing is \
         solved.",
    );
    item(
        text,
        "3",
        "The engines disagree (a bug in gordian): both answers are printed. check and \
         batch rank it first.",
    );
    item(
        text,
        "4",
        "fft replay: the log (or the expected next CR order) is not explained by the \
         chosen variant.",
    );
    item(
        text,
        "5",
        "A limit was hit: --timeout, --max-memory or --limit (an error: FILE: timeout: or \
         limit: message; resolve --limit still writes the lists up to the limit). When \
         files differ, check exits 3 (a disagreement) before 1 (a crash) before 2 (a bad \
         file) before 5; batch 3, then 1, then 5 (a bad file is a record there).",
    );
    item(
        text,
        "130, 143",
        "Interrupted by SIGINT or SIGTERM: workers are stopped, the summary so far is \
         printed, records already written stay (batch --resume continues).",
    );
}

/// gordian-formats(5): the input formats by extension, the line rule, the JSON
/// documents, the exit codes.
fn formats_page() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut t = format!(".TH GORDIAN-FORMATS 5 \"\" \"gordian {version}\" \"gordian manual\"\n");
    section(&mut t, "NAME");
    t.push_str("gordian\\-formats \\- the files gordian reads and writes, and its exit codes\n");
    section(&mut t, "DESCRIPTION");
    para(
        &mut t,
        "A file's system comes from its extension, or from --system ar|fft|lancer|foeman|ff8 \
         where a command takes it; - reads standard input (as ?AR unless --system says \
         otherwise). Directories given to check and batch are walked recursively for \
         these extensions.",
    );
    para(
        &mut t,
        "Every format reads its lines by one rule: LF, CRLF and a lone CR each end a line, in \
         any mix, and a leading UTF-8 byte-order mark is skipped. # starts a comment in \
         every text format. Errors are located as FILE:LINE:COL (columns in characters, \
         line 1 counted after the mark), followed by the line and a caret; at most 20 errors \
         are reported for a file. A file over 16 MiB, a file that is not a regular file, \
         and an instance without content (a night without effects, a scenario without \
         characters) are input errors (exit 2).",
    );
    section(&mut t, "FORMATS");
    item(
        &mut t,
        ".night",
        "A ?AR mafia night (gordian resolve, dimacs): one effect a line, \
         [ID:] ACTOR KIND TARGET... [@PRIORITY] or ACTOR passive KIND, and an optional \
         players: line that declares every name. Kinds: visit, block, stop, protect, kill, \
         strongkill, jail, deflect, swap, redirect, guard, commute, hide, babysit, the \
         information kinds (track, watch, follow, voyeur, investigate) and role names \
         (bus_driver, bodyguard, ...); passives: bulletproof, unblockable, immune[K,...], \
         reflexive:K (fires on a succeeding action), visited:K (fires on a visit). Names \
         match [A-Za-z0-9_.-]+. Default ids e1, e2, ... by position; default priorities \
         (lower is more important): passives 0, commute, deflect, swap, redirect 1, block, jail \
         2, stop 3, protect, guard, hide and babysit 4, kill 5, visit and information 6. \
         The rules: docs/ar.md; \
         the format in full: docs/formats.md; hand-worked instances: instances/ar/README.md.",
    );
    literal(
        &mut t,
        "players: R1 R2 R3 V\nR1 block R2\ncut_me: R3 block R1 @1\nV passive bulletproof",
    );
    item(
        &mut t,
        ".json",
        "The same ?AR night as JSON (a file ending in .json, or starting with {): \
         {\"players\": [...], \"effects\": [{\"id\", \"actor\", \"kind\", \"targets\", \
         \"priority\"}]}; players, id, targets and priority are optional. Unknown fields in \
         an effect are errors, unknown top-level fields are ignored, so resolve --json \
         output reads back. Its JSON Schema: gordian schema instance --system ar.",
    );
    item(
        &mut t,
        ".fft",
        "An FFT turn-flow scenario (gordian fft): the characters, the slow actions of one \
         SR phase, optionally the observed log and the expected next CR order, and the \
         menus that bound enumeration. Format: instances/fft/README.md; rules: docs/fft.md.",
    );
    item(
        &mut t,
        ".lancer",
        "A Lancer Tactics event scenario (gordian lancer): policy, depth, units, weapons, \
         reactions, actions. Format: instances/lancer/README.md; rules: docs/lancer.md.",
    );
    item(
        &mut t,
        ".foeman",
        "One Foeman round (gordian foeman): sides with their initiative, figures with their \
         modDX and declaration plans. Format: instances/foeman/README.md; rules: \
         docs/foeman.md.",
    );
    item(
        &mut t,
        ".ff8",
        "A Triple Triad card-rule scenario (gordian ff8): one KEY: VALUE a line (region \
         rules, trade rules, carried rules, the Queen, challenges, a goal). Format: \
         instances/ff8/README.md; rules: docs/ff8.md.",
    );
    section(&mut t, "OUTPUT");
    item(
        &mut t,
        "--json answers",
        "Every system's answer has a JSON Schema (draft 2020-12), every field described: \
         gordian schema answer --system S. The ?AR answer (resolve --json) is described in \
         docs/json.md.",
    );
    item(
        &mut t,
        "batch reports",
        "JSON Lines: one record per instance (path, system, label, the system's fields, \
         engines, times_ms, cross_checked; or error and error_kind input, timeout, limit, \
         disagreement, crash). gordian merge joins the reports of shards. docs/batch.md.",
    );
    item(
        &mut t,
        "DIMACS",
        "gordian dimacs and the systems' dimacs commands print CNF with c lines naming the \
         variables.",
    );
    section(&mut t, "EXIT STATUS");
    exit_codes(&mut t);
    section(&mut t, "SEE ALSO");
    para(
        &mut t,
        "gordian(1), gordian-resolve(1), gordian-check(1), gordian-batch(1), \
         gordian-schema(1), gordian-fft(1), gordian-lancer(1), gordian-foeman(1), \
         gordian-ff8(1).",
    );
    t
}

/// Writes every page into `dir/man1` and `dir/man5`; returns how many.
fn write_all(dir: &Path, pages: &[Page]) -> std::io::Result<usize> {
    for p in pages {
        let sub = dir.join(format!("man{}", p.section));
        std::fs::create_dir_all(&sub)?;
        std::fs::write(sub.join(format!("{}.{}", p.file, p.section)), &p.roff)?;
    }
    Ok(pages.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_accept_words_and_joined_names() {
        let k = |w: &[&str]| key_of(&w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(k(&[]), "");
        assert_eq!(k(&["gordian"]), "");
        assert_eq!(k(&["fft", "replay"]), "fft-replay");
        assert_eq!(k(&["fft-replay"]), "fft-replay");
        assert_eq!(k(&["gordian-fft-replay"]), "fft-replay");
        assert_eq!(k(&["gordian", "resolve"]), "resolve");
    }

    #[test]
    fn escaping_keeps_requests_out_of_text() {
        assert_eq!(escape(".night"), "\\&.night");
        assert_eq!(escape("a\\b --x"), "a\\eb \\-\\-x");
    }
}
