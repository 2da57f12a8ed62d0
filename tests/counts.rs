//! Counts given to the library's generators are taken as at most what a file may say
//! (FFT and FF8 bounds 64, Lancer depth 6), so a generated instance never asks an engine
//! to allocate for an unchecked count, and its text always parses back.

use gordian::{ff8, fft, lancer};

/// The number after `key` on the line that starts with it.
fn count_after(text: &str, key: &str) -> usize {
    let line = text
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` line in\n{text}"));
    line[key.len()..].trim().parse().unwrap()
}

#[test]
fn huge_generator_counts_are_taken_as_the_format_maxima() {
    for seed in 0..20 {
        let sc = fft::generate(
            &fft::Knobs {
                bound: usize::MAX,
                ..fft::Knobs::default()
            },
            seed,
        );
        let text = sc.to_text();
        assert_eq!(count_after(&text, "bound "), 64);
        assert_eq!(fft::Scenario::parse(&text).unwrap().to_text(), text);

        let sc = ff8::generate(
            &ff8::Knobs {
                bound: usize::MAX,
                ..ff8::Knobs::default()
            },
            seed,
        );
        let text = sc.to_text();
        assert!((1..=64).contains(&count_after(&text, "bound:")), "{text}");
        assert!(text.matches("challenge:").count() <= 64);
        assert_eq!(ff8::Scenario::parse(&text).unwrap().to_text(), text);

        let sc = lancer::generate(
            &lancer::Knobs {
                depth: u8::MAX,
                ..lancer::Knobs::default()
            },
            seed,
        );
        let text = sc.to_text();
        assert!(count_after(&text, "depth ") <= 6, "{text}");
        assert_eq!(lancer::Scenario::parse(&text).unwrap().to_text(), text);
    }
}
