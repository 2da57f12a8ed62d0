//! A toy system for the harness's own tests: an instance is a list of small numbers, the
//! answer is their sum. Two honest engines (`direct` adds left to right, `sat` right to
//! left) and planted ones ([`Sleeper`], [`Hoarder`], [`WrongOnSeven`]) let the tests see every verdict.

use crate::systems::spec::{Budget, Engine, Interrupted, System};
use crate::text::{lex, ParseErrors, Sink};
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::path::Path;

/// The toy system.
pub struct Toy;

/// The toy generator's knobs.
#[derive(Clone, Debug)]
pub struct ToyGen {
    /// Numbers per list.
    pub len: usize,
}

struct Forward;
struct Backward;

impl Engine<Vec<u32>, u64> for Forward {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn solve(&self, i: &Vec<u32>, _: &Budget) -> Result<u64, Interrupted> {
        Ok(i.iter().map(|&x| u64::from(x)).sum())
    }
}

impl Engine<Vec<u32>, u64> for Backward {
    fn name(&self) -> &'static str {
        "sat"
    }
    fn solve(&self, i: &Vec<u32>, _: &Budget) -> Result<u64, Interrupted> {
        Ok(i.iter().rev().fold(0, |a, &x| a + u64::from(x)))
    }
}

/// Waits until its budget is cancelled.
pub struct Sleeper;

impl Engine<Vec<u32>, u64> for Sleeper {
    fn name(&self) -> &'static str {
        "sleeper"
    }
    fn solve(&self, _: &Vec<u32>, budget: &Budget) -> Result<u64, Interrupted> {
        loop {
            budget.check()?;
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// Stores one mebibyte of state per number (charged to its budget's meter) before it
/// answers honestly: past a small memory bound it stops at the limit.
pub struct Hoarder;

impl Engine<Vec<u32>, u64> for Hoarder {
    fn name(&self) -> &'static str {
        "hoarder"
    }
    fn solve(&self, i: &Vec<u32>, budget: &Budget) -> Result<u64, Interrupted> {
        for _ in i {
            budget.charge("toy lists", 1 << 20)?;
        }
        Ok(i.iter().map(|&x| u64::from(x)).sum())
    }
}

/// Adds one too many whenever the list holds a 7.
pub struct WrongOnSeven;

impl Engine<Vec<u32>, u64> for WrongOnSeven {
    fn name(&self) -> &'static str {
        "wrong"
    }
    fn solve(&self, i: &Vec<u32>, _: &Budget) -> Result<u64, Interrupted> {
        let sum: u64 = i.iter().map(|&x| u64::from(x)).sum();
        Ok(sum + u64::from(i.contains(&7)))
    }
}

impl System for Toy {
    const NAME: &'static str = "toy";
    const EXTENSIONS: &'static [&'static str] = &["toy"];
    const NOUN: &'static str = "list";
    type Instance = Vec<u32>;
    type Answer = u64;
    type GenArgs = ToyGen;

    fn parse(file: &Path, text: &str) -> Result<Vec<u32>, ParseErrors> {
        let mut sink = Sink::new(text, file);
        let mut out = Vec::new();
        for ln in 1..=sink.line_count() {
            for w in lex::line_words(sink.line_text(ln)) {
                match lex::number(w.text, ..) {
                    Some(n) => out.push(n),
                    None => sink.err(ln, w.col, format!("`{}` is not a number", w.text)),
                }
            }
        }
        sink.finish().map(|()| out)
    }
    fn to_text(i: &Vec<u32>) -> String {
        let words: Vec<String> = i.iter().map(u32::to_string).collect();
        format!("{}\n", words.join(" "))
    }
    fn engines() -> Vec<Box<dyn Engine<Vec<u32>, u64> + Send + Sync>> {
        vec![Box::new(Forward), Box::new(Backward)]
    }
    fn generate(args: &ToyGen, seed: u64) -> Vec<u32> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..args.len).map(|_| rng.gen_range(0..10)).collect()
    }
    fn simplifications(i: &Vec<u32>) -> Vec<Vec<u32>> {
        (0..i.len())
            .map(|k| {
                let mut v = i.clone();
                v.remove(k);
                v
            })
            .collect()
    }
    fn size(i: &Vec<u32>) -> usize {
        i.len()
    }
    fn label(a: &u64) -> String {
        if a.is_multiple_of(2) { "even" } else { "odd" }.to_string()
    }
    fn summary(_: &Vec<u32>, a: &u64) -> String {
        format!("sum {a}")
    }
    fn columns() -> Vec<&'static str> {
        vec!["sum"]
    }
    fn row(_: &Vec<u32>, a: &u64) -> Vec<String> {
        vec![a.to_string()]
    }
    fn to_json(_: &Vec<u32>, a: &u64) -> serde_json::Value {
        json!(a)
    }
    fn record(_: &Vec<u32>, a: &u64) -> serde_json::Value {
        json!({ "sum": a })
    }
}
