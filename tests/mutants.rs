//! A seeded mutation fuzz of every text format: the shipped instances of each system,
//! mutated (bytes flipped, lines deleted, duplicated, swapped or cut, tokens swapped,
//! huge numbers, control characters, byte-order marks and every kind of line end put in),
//! read by the library (1,000 mutants per system: no panic, every error located inside
//! the text) and, a sample of them, checked by the binary (`check --timeout`: every file
//! gets a verdict, nothing crashes, the exit code is one of those documented).
//! `GORDIAN_MUTANTS=N` reads N mutants per system instead of 1,000.

mod common;

use common::TempDir;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::process::Command;

const SYSTEMS: [(&str, &str); 5] = [
    ("ar", "night"),
    ("fft", "fft"),
    ("lancer", "lancer"),
    ("foeman", "foeman"),
    ("ff8", "ff8"),
];

fn shipped(system: &str, ext: &str) -> Vec<String> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new("instances").join(system))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// One mutant of `text` (1 to 3 mutations).
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..rng.gen_range(1..=3) {
        let lines: Vec<&str> = s.lines().collect();
        let words: Vec<&str> = s.split_whitespace().collect();
        s = match rng.gen_range(0..12) {
            // A random byte (as a char: control, ASCII or not) at a random place.
            0 => {
                let mut b = s.into_bytes();
                let at = rng.gen_range(0..=b.len());
                let c = char::from_u32(rng.gen_range(0..0x300)).unwrap_or('?');
                let mut buf = [0; 4];
                b.splice(at..at, c.encode_utf8(&mut buf).bytes());
                String::from_utf8_lossy(&b).into_owned()
            }
            // A line deleted.
            1 if !lines.is_empty() => {
                let i = rng.gen_range(0..lines.len());
                lines
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, l)| format!("{l}\n"))
                    .collect()
            }
            // A line duplicated.
            2 if !lines.is_empty() => {
                let i = rng.gen_range(0..lines.len());
                let mut out: Vec<&str> = lines.clone();
                out.insert(i, lines[i]);
                out.join("\n") + "\n"
            }
            // Two lines swapped.
            3 if lines.len() > 1 => {
                let mut out = lines.clone();
                let (i, j) = (rng.gen_range(0..out.len()), rng.gen_range(0..out.len()));
                out.swap(i, j);
                out.join("\n") + "\n"
            }
            // Cut at a random character.
            4 => {
                let cut = rng.gen_range(0..=s.chars().count());
                s.chars().take(cut).collect()
            }
            // A word replaced by another word of the text.
            5 if !words.is_empty() => {
                let from = *words.choose(rng).unwrap();
                let to = *words.choose(rng).unwrap();
                s.replacen(from, to, 1)
            }
            // A number made huge, negative or not a number.
            6 => {
                let big = [
                    "99999999999999999999999",
                    "-1",
                    "0",
                    "18446744073709551616",
                    "1e9",
                    "NaN",
                ]
                .choose(rng)
                .unwrap()
                .to_string();
                match s.find(|c: char| c.is_ascii_digit()) {
                    Some(at) => {
                        let end = s[at..]
                            .find(|c: char| !c.is_ascii_digit())
                            .map_or(s.len(), |e| at + e);
                        format!("{}{big}{}", &s[..at], &s[end..])
                    }
                    None => s + &big,
                }
            }
            // Line ends changed: CRLF, bare CR, or none at the end.
            7 => match rng.gen_range(0..3) {
                0 => s.replace('\n', "\r\n"),
                1 => s.replace('\n', "\r"),
                _ => s.trim_end_matches('\n').to_string(),
            },
            // A byte-order mark in front.
            8 => format!("\u{feff}{s}"),
            // A word repeated many times on one line.
            9 if !words.is_empty() => {
                let w = *words.choose(rng).unwrap();
                format!("{s}{}\n", vec![w; rng.gen_range(2..200)].join(" "))
            }
            // A line from another part of the text appended to a line.
            10 if lines.len() > 1 => {
                let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                let i = rng.gen_range(0..out.len());
                let extra = lines[rng.gen_range(0..lines.len())];
                out[i].push(' ');
                out[i].push_str(extra);
                out.join("\n") + "\n"
            }
            // Tabs and odd spaces.
            _ => s.replacen(' ', ["\t", "  ", "\u{a0}", ""][rng.gen_range(0..4)], 1),
        };
    }
    s
}

/// Parses `text` as `system` through the library; `Err` with the error's text.
fn parse(system: &str, text: &str) -> Result<(), gordian::Error> {
    match system {
        "ar" => gordian::ar::Night::parse(text).map(drop),
        "fft" => gordian::fft::Scenario::parse(text).map(drop),
        "lancer" => gordian::lancer::Scenario::parse(text).map(drop),
        "foeman" => gordian::foeman::Scenario::parse(text).map(drop),
        "ff8" => gordian::ff8::Scenario::parse(text).map(drop),
        _ => unreachable!(),
    }
}

fn count() -> usize {
    std::env::var("GORDIAN_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

#[test]
fn every_mutant_reads_or_fails_with_located_errors() {
    for (i, (system, ext)) in SYSTEMS.iter().enumerate() {
        let seeds = shipped(system, ext);
        assert!(!seeds.is_empty(), "{system}");
        let mut rng = ChaCha8Rng::seed_from_u64(2026 + i as u64);
        let (mut ok, mut errors) = (0, 0);
        for n in 0..count() {
            let text = mutate(seeds.choose(&mut rng).unwrap(), &mut rng);
            let got = std::panic::catch_unwind(|| parse(system, &text));
            let Ok(got) = got else {
                panic!("{system} mutant {n} panicked; its text:\n{text}")
            };
            match got {
                Ok(()) => ok += 1,
                Err(gordian::Error::Parse(es)) => {
                    errors += 1;
                    assert!(!es.0.is_empty(), "{system} mutant {n}: an empty error list");
                    // Lines as every format counts them: LF, CRLF and bare CR end a line.
                    let lines = text
                        .replace("\r\n", "\n")
                        .replace('\r', "\n")
                        .lines()
                        .count();
                    for e in &es.0 {
                        assert!(
                            e.line >= 1 && e.line <= lines + 1 && e.col >= 1,
                            "{system} mutant {n}: error at {}:{} outside the text ({lines} \
                             lines): {e}\n{text}",
                            e.line,
                            e.col
                        );
                        assert!(!e.message.is_empty());
                    }
                }
                Err(e) => panic!("{system} mutant {n}: not a parse error: {e}"),
            }
        }
        // Both outcomes must occur, or the mutations test nothing.
        assert!(ok > 0 && errors > 0, "{system}: {ok} read, {errors} errors");
    }
}

#[test]
fn the_binary_gives_every_mutant_a_verdict() {
    let dir = TempDir::new("mutants");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let per = (count() / 25).max(4);
    for (system, ext) in SYSTEMS {
        let seeds = shipped(system, ext);
        for n in 0..per {
            let text = mutate(seeds.choose(&mut rng).unwrap(), &mut rng);
            dir.write(&format!("{system}-{n}.{ext}"), text);
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_gordian"))
        .args(["check", dir.0.to_str().unwrap(), "--timeout", "2", "--json"])
        .output()
        .unwrap();
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 2 | 5)),
        "exit {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), per * SYSTEMS.len());
    for f in files {
        let v = f["verdict"].as_str().unwrap();
        assert!(
            ["agree", "error", "timeout", "limit"].contains(&v),
            "{}: {v}: {f}",
            f["path"]
        );
        if v == "error" {
            let msg = f["error"].as_str().unwrap();
            assert!(msg.starts_with("error:"), "{msg}");
        }
    }
}
