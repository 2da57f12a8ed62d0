//! Every subcommand that takes `--timeout` honours it, table-driven: with a limit already
//! past when the command starts (a nanosecond), each one ends with exit 5 and says so,
//! instead of answering. The table is checked against the manual's list of subcommands,
//! so a new command with `--timeout` cannot be left out.

use std::path::Path;
use std::process::Command;

fn gordian(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gordian")
}

/// Each subcommand with `--timeout`, with the arguments of one valid run on a shipped
/// instance.
const TABLE: &[&[&str]] = &[
    &["resolve", "instances/ar/reflexive.night"],
    &["dimacs", "instances/ar/reflexive.night"],
    &["check", "instances/ar/reflexive.night"],
    &["batch", "instances/ar/reflexive.night"],
    &[
        "fft",
        "replay",
        "instances/fft/countermagic-later-caster.fft",
    ],
    &[
        "fft",
        "variants",
        "instances/fft/countermagic-later-caster.fft",
    ],
    &[
        "fft",
        "enumerate",
        "instances/fft/countermagic-later-caster.fft",
    ],
    &[
        "fft",
        "query",
        "--property",
        "flag-survives",
        "instances/fft/countermagic-later-caster.fft",
    ],
    &[
        "fft",
        "dimacs",
        "instances/fft/countermagic-later-caster.fft",
    ],
    &["ff8", "step", "instances/ff8/spread_same.ff8"],
    &[
        "ff8",
        "replay",
        "instances/ff8/spread_same.ff8",
        "--bytes",
        "200,0,200,40,255",
        "--challenge",
        "Balamb play",
    ],
    &["ff8", "reach", "instances/ff8/spread_same.ff8"],
    &["ff8", "plan", "instances/ff8/spread_same.ff8"],
    &["ff8", "dimacs", "instances/ff8/spread_same.ff8"],
    &["foeman", "round", "instances/foeman/figure_tie.foeman"],
    &["foeman", "enumerate", "instances/foeman/figure_tie.foeman"],
    &[
        "foeman",
        "query",
        "instances/foeman/figure_tie.foeman",
        "before A B",
    ],
    &["foeman", "fairness", "instances/foeman/figure_tie.foeman"],
    &["foeman", "dimacs", "instances/foeman/figure_tie.foeman"],
    &["lancer", "resolve", "instances/lancer/seed-4-shrike.lancer"],
    &[
        "lancer",
        "enumerate",
        "instances/lancer/seed-4-shrike.lancer",
    ],
    &[
        "lancer",
        "query",
        "--policy",
        "naive",
        "--property",
        "aborted-after-effect",
        "instances/lancer/seed-4-shrike.lancer",
    ],
    &[
        "lancer",
        "policies",
        "instances/lancer/seed-4-shrike.lancer",
    ],
    &["lancer", "dimacs", "instances/lancer/seed-4-shrike.lancer"],
    &["setup", "analyse", "instances/setup/vanilla-7.setup"],
];

#[test]
fn every_command_with_a_timeout_honours_it() {
    for args in TABLE {
        // Without the limit, the run is valid (so exit 5 below is the limit's doing).
        let o = gordian(args);
        let ok = o.status.code();
        assert!(
            matches!(ok, Some(0 | 4)),
            "{args:?} without --timeout: {ok:?} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut with: Vec<&str> = args.to_vec();
        with.extend(["--timeout", "1e-9"]);
        let o = gordian(&with);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(5), "{with:?}: {err}");
        assert!(
            err.contains("time") || err.contains("timeout") || err.contains("timed out"),
            "{with:?}: {err}"
        );
    }
}

/// The table lists every subcommand whose help offers `--timeout`.
#[test]
fn the_table_covers_every_command_with_a_timeout() {
    let list = gordian(&["man", "--list"]);
    let pages = String::from_utf8_lossy(&list.stdout).into_owned();
    let mut with_timeout = Vec::new();
    for line in pages.lines() {
        let Some(page) = line.split_whitespace().nth(1) else {
            continue;
        };
        let Some(name) = page.strip_suffix("(1)") else {
            continue;
        };
        let words: Vec<&str> = name
            .strip_prefix("gordian-")
            .map(|s| s.split('-').collect())
            .unwrap_or_default();
        if words.is_empty() {
            continue;
        }
        let mut help_args = words.clone();
        help_args.push("--help");
        let help = gordian(&help_args);
        if String::from_utf8_lossy(&help.stdout).contains("--timeout") {
            with_timeout.push(words.join(" "));
        }
    }
    let mut listed: Vec<String> = TABLE
        .iter()
        .map(|a| {
            a.iter()
                .take_while(|w| !w.contains('/') && !w.starts_with('-'))
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    listed.sort();
    listed.dedup();
    with_timeout.sort();
    assert_eq!(listed, with_timeout);
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .is_dir());
}

/// A value so small that it is zero nanoseconds is refused as 0 is (exit 2), not taken
/// for a limit of 0 s.
#[test]
fn a_timeout_below_a_nanosecond_is_refused() {
    let o = gordian(&[
        "resolve",
        "instances/ar/reflexive.night",
        "--timeout",
        "4.9e-324",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1e-9"), "{err}");
}
