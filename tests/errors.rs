//! Errors the systems' own commands report share one shape: `error: MESSAGE` first, and a
//! `--> FILE:LINE:COL` location whenever a file is what is wrong (a whole-file problem at
//! line 1). Each case below printed another shape before.

use std::process::Command;

mod common;

use common::TempDir;

fn stderr_of(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gordian");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn whole_file_problems_are_located_and_argument_problems_named() {
    let d = TempDir::new("error-shapes");
    // An FFT scenario without its `log` section (the rest of a shipped one).
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("instances/fft/countermagic-later-caster.fft"),
    )
    .expect("shipped instance");
    let cut = text.find("\nlog").expect("the instance has a log section");
    let no_log = d.write("no-log.fft", &text[..=cut]);
    let no_log = no_log.to_str().expect("UTF-8 path");
    let cases: &[(&[&str], &str)] = &[
        (&["fft", "replay", no_log], "no-log.fft:1:1"),
        (&["fft", "variants", no_log], "no-log.fft:1:1"),
        (
            &["ff8", "plan", "instances/ff8/lunar_abolish.ff8"],
            "lunar_abolish.ff8:1:1",
        ),
        (
            &["ff8", "step", "instances/ff8/plan_expected.ff8"],
            "plan_expected.ff8:1:1",
        ),
        (
            &[
                "foeman",
                "query",
                "instances/foeman/figure_tie.foeman",
                "before A Zed",
            ],
            "the query `before A Zed`",
        ),
    ];
    for (args, place) in cases {
        let (code, err) = stderr_of(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(place), "{args:?}: {err}");
    }
}

/// An output file that cannot be written is bad input, exit 2, in every command that
/// writes one (a path under /proc/nope cannot be made, even by root).
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_output_file_exits_2_everywhere() {
    let cases: &[&[&str]] = &[
        &["gen", "--system", "ar", "--out", "/proc/nope/x.night"],
        &[
            "resolve",
            "instances/ar/reflexive.night",
            "--dot",
            "/proc/nope/x.dot",
        ],
        &[
            "fft",
            "replay",
            "instances/fft/countermagic-later-caster.fft",
            "--dot",
            "/proc/nope/x.dot",
        ],
        &[
            "batch",
            "--out",
            "/proc/nope/r.jsonl",
            "instances/ar/reflexive.night",
        ],
        &["man", "--out", "/proc/nope"],
    ];
    for args in cases {
        let (code, err) = stderr_of(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}
