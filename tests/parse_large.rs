//! Parsing stays correct at sizes where a quadratic step would show (the timings are in
//! `benches/parse.rs`; nothing here is timed): large files of every format parse, and
//! their errors (a duplicate name at the end, a bad word at the end of a very long line)
//! are still found, at the place counted by hand.

use gordian::{ar, ff8, fft, foeman, lancer, Error, ParseError};
use std::fmt::Write;

/// The first located error of a parse that must fail.
fn first_error<T: std::fmt::Debug>(r: Result<T, Error>) -> ParseError {
    match r {
        Err(Error::Parse(e)) => e.0[0].clone(),
        other => panic!("expected located errors, got {other:?}"),
    }
}

fn assert_at(e: &ParseError, line: usize, col: usize, fragment: &str) {
    assert_eq!((e.line, e.col), (line, col), "{e}");
    assert!(e.message.contains(fragment), "{e}");
}

#[test]
fn lancer_80000_weapons_parse_and_a_duplicate_is_located() {
    let n = 80_000;
    let mut s = String::from(
        "unit A side player hp 6 structure 2 at 0 0\nunit B side enemy hp 8 structure 1 at 1 0\n",
    );
    for i in 0..n {
        let _ = writeln!(s, "weapon w{i} damage {}", i % 20);
    }
    for i in 0..n {
        let _ = writeln!(
            s,
            "reaction r{i} of B on attack target followup attack w{i} at source"
        );
    }
    let ok = format!("{s}action A activate w{} at B\n", n - 1);
    let sc = lancer::Scenario::parse(&ok).unwrap();
    // Units, weapons and reactions, one line each, and the action.
    assert_eq!(sc.to_text().lines().count(), 2 + 2 + 2 * n + 1);
    // The weapon declared on line 3 (w0) declared again after the reactions: line
    // 2 + 2n + 1, the name at column 8 (`weapon ` is 7 characters).
    let dup = format!("{s}weapon w0 damage 1\naction A activate w0 at B\n");
    let e = first_error(lancer::Scenario::parse(&dup));
    assert_at(&e, 2 + 2 * n + 1, 8, "weapon `w0` is already declared");
    // An unknown weapon named by the last reaction.
    let unknown =
        format!("{s}reaction late of B on attack target followup attack nowhere at source\n");
    let e = first_error(lancer::Scenario::parse(&unknown));
    // `reaction late of B on attack target followup attack ` is 52 characters.
    assert_at(&e, 2 + 2 * n + 1, 53, "unknown weapon `nowhere`");
}

#[test]
fn fft_40000_characters_parse_and_duplicates_are_located() {
    let n = 40_000;
    let mut s = String::new();
    for i in 0..n {
        let _ = writeln!(s, "char C{i} team T{}", i / 2);
    }
    let order: Vec<String> = (0..n).map(|i| format!("C{i}")).collect();
    let _ = writeln!(s, "next-cr {}", order.join(", "));
    s.push_str("log\n");
    for i in 0..n {
        let _ = writeln!(s, "C{i} - qs - C{}", (i + 1) % n);
    }
    s.push_str("end\n");
    let sc = fft::Scenario::parse(&s).unwrap();
    let text = sc.to_text();
    assert!(text.starts_with("char C0 team T0\nchar C1 team T0\nchar C2 team T1\n"));
    assert!(text.contains(&format!("\nC{} - qs - C0\nend\n", n - 1)));
    // A character declared again on the last line: line n + 4 (n chars, next-cr, log,
    // n log lines, end come before it: n + 1 + 1 + n + 1 = 2n + 3 lines), the name at
    // column 6; the first declaration of C7 is line 8.
    let dup = format!("{s}char C7 team X\n");
    let e = first_error(fft::Scenario::parse(&dup));
    assert_at(
        &e,
        2 * n + 4,
        6,
        "duplicate character `C7` (first declared at line 8)",
    );
    // A name listed twice at the end of the expected order: its column is one past
    // `next-cr ` (8 characters) and the n names with their `, ` separators.
    let names_len: usize = order.iter().map(|o| o.len() + 2).sum();
    let twice = s.replace(
        &format!("next-cr {}\n", order.join(", ")),
        &format!("next-cr {}, C0\n", order.join(", ")),
    );
    let e = first_error(fft::Scenario::parse(&twice));
    assert_at(
        &e,
        n + 1,
        8 + names_len + 1,
        "`C0` appears twice in the expected order",
    );
}

#[test]
fn a_long_ff8_challenge_line_is_located_and_a_long_goal_parses() {
    // About 1.4 MB on one line: the error is at the fourth word, column 31
    // (`challenge: Balamb player play ` is 30 characters).
    let mut line = String::from("challenge: Balamb player play");
    while line.len() < 1_400_000 {
        line.push_str(" x");
    }
    let e = first_error(ff8::Scenario::parse(&format!("current: Balamb\n{line}\n")));
    assert_at(&e, 2, 31, "unexpected `x`");
    // A goal of 20,000 atoms separated by `&` and an ideographic space (one character,
    // three bytes), the last atom with an unknown region: `goal: ` is 6 characters and
    // each `Balamb has Open &\u{3000}` 18, so the last atom is at 7 + 18 * 19,999.
    let k = 19_999;
    let good = "Balamb has Open &\u{3000}".repeat(k);
    let ok = ff8::Scenario::parse(&format!("goal: {good}Dollet lacks Same\n")).unwrap();
    assert_eq!(ok.to_text().matches(" & ").count(), k);
    let e = first_error(ff8::Scenario::parse(&format!(
        "goal: {good}Ésthar has Open\n"
    )));
    assert_at(&e, 1, 7 + 18 * k, "unknown region `Ésthar`");
    // 100,000 challenge lines: every key but `challenge` may be given once, so a second
    // `current` after them is found, and the 65th challenge is the one past the limit.
    let mut many = String::from("current: Balamb\n");
    for _ in 0..100_000 {
        many.push_str("challenge: Balamb play\n");
    }
    let e = first_error(ff8::Scenario::parse(&format!("{many}current: Dollet\n")));
    assert_at(&e, 100_002, 1, "`current` given twice");
    let e = first_error(ff8::Scenario::parse(&many));
    assert_at(&e, 66, 12, "at most 64 challenges");
}

#[test]
fn a_foeman_line_of_200000_words_is_located() {
    // `side X` (6 characters), then k times ` ini 3` (6 each), then ` postpone often`:
    // `often` is at column 6 + 6k + 11.
    let k = 100_000;
    let line = format!("side X{} postpone often", " ini 3".repeat(k));
    let e = first_error(foeman::Scenario::parse(&format!("{line}\n")));
    assert_at(&e, 1, 6 * k + 17, "`postpone` is yes, no or maybe");
    let ok = format!(
        "side X{} postpone maybe\nfigure A side X dx 1 do strike:2\n",
        " ini 3".repeat(k)
    );
    let sc = foeman::Scenario::parse(&ok).unwrap();
    assert!(sc.to_text().contains("side X ini 3 postpone maybe\n"));
}

#[test]
fn a_night_of_100000_effects_finds_a_late_duplicate_id() {
    let n = 100_000;
    let mut s = String::new();
    for i in 0..n {
        let _ = writeln!(s, "P{} block P{}", 2 * i, 2 * i + 1);
    }
    let night = ar::Night::parse(&s).unwrap();
    assert_eq!(night.to_text().lines().count(), n + 1);
    // An explicit id equal to the default id of effect 5 (line 5, column 1).
    let e = first_error(ar::Night::parse(&format!("{s}e5: X block Y\n")));
    assert_at(
        &e,
        n + 1,
        1,
        "duplicate id `e5`: it is the default id of the effect at 5:1",
    );
}
