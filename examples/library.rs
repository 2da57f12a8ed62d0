//! gordian as a library: parses a night, solves it with both engines (compared) and prints
//! its classification, its optimal cuts and each player's exact chance of dying.
//! `cargo run --release --example library [NIGHT]` (default: the shipped five-roleblocker
//! circle, `instances/ar/odd-block-cycle-5.night`).

use gordian::ar::{self, Night};
use gordian::{Error, Limits};
use std::fmt::Write as _;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/instances/ar/odd-block-cycle-5.night"
        )
        .into()
    });
    match report(&path) {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

/// What the example prints for the night in `path`.
fn report(path: &str) -> Result<String, Error> {
    let night = Night::from_file(path)?;
    let answer = ar::solve(&night, &Limits::default())?;
    let mut out = String::new();
    let checked = if answer.cross_checked() {
        "cross-checked"
    } else {
        "not cross-checked"
    };
    let _ = writeln!(
        out,
        "{path}: {} ({checked})",
        answer.classification().name()
    );
    for cut in answer.optimal_cuts() {
        let _ = writeln!(out, "optimal cut: {}", cut.join(" "));
    }
    for (player, p) in answer.death_probabilities() {
        let _ = writeln!(out, "{player} dies with probability {p}");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_circle_is_a_paradox_where_x_dies_with_probability_three_fifths() {
        // Worked by hand in the instance's header: every single block cut is optimal, and
        // the kill succeeds under three of the five.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/instances/ar/odd-block-cycle-5.night"
        );
        let text = super::report(path).unwrap();
        assert!(text.contains(": paradox (cross-checked)\n"), "{text}");
        assert_eq!(text.matches("optimal cut: ").count(), 5, "{text}");
        assert!(text.ends_with("X dies with probability 3/5\n"), "{text}");
        let e = super::report("no/such.night").unwrap_err();
        assert!(e.to_string().contains("no/such.night"), "{e}");
    }
}
