//! Prints a random ?AR night in the `.night` format, for trying gordian at scale:
//! `cargo run --release --example night -- EFFECTS [SEED] [--paradox] [--players N]
//! [--levels N] [--passives RATE] [--deflect]`.
//! By default: players EFFECTS / 2; three priority levels; every kind but `deflect`;
//! passives. With `--paradox`, the first seed from SEED on whose night is a paradox.
//! `--players N`, `--levels N` (0: the kinds' default priorities) and `--passives RATE`
//! (the probability that an effect is a passive, default 0.15) change those knobs;
//! `--deflect` adds `deflect` to the kinds (the small random nights of
//! `bench/clingo/crosscheck.py`).

use gordian::ar::{self, ActionKind, Classification};
use gordian::{Engines, Limits};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: night EFFECTS [SEED] [--paradox] [--players N] [--levels N] [--passives RATE] [--deflect]";
    let fail = |msg: String| -> ! {
        eprintln!("{usage}: {msg}");
        std::process::exit(2)
    };
    let number = |a: &str| -> u64 {
        a.parse()
            .unwrap_or_else(|_| fail(format!("`{a}` is not a number")))
    };
    let (mut nums, mut players, mut levels, mut passives) = (Vec::new(), None, 3, None);
    let (mut paradox, mut deflect) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--paradox" => paradox = true,
            "--deflect" => deflect = true,
            "--passives" => {
                let v = it
                    .next()
                    .unwrap_or_else(|| fail("--passives needs a value".into()));
                passives = Some(
                    v.parse::<f64>()
                        .unwrap_or_else(|_| fail(format!("`{v}` is not a rate"))),
                );
            }
            "--players" | "--levels" => {
                let v = it
                    .next()
                    .unwrap_or_else(|| fail(format!("{a} needs a value")));
                if a == "--players" {
                    players = Some(number(v) as usize);
                } else {
                    levels = number(v) as u32;
                }
            }
            _ if a.starts_with("--") => fail(format!("unknown option `{a}`")),
            _ => nums.push(number(a)),
        }
    }
    let Some(&effects) = nums.first() else {
        fail("EFFECTS is missing".into())
    };
    let effects = effects as usize;
    let mut knobs = ar::Knobs {
        players: players.unwrap_or(effects / 2).max(1),
        effects: Some(effects),
        kinds: ActionKind::ALL[..5].to_vec(),
        priority_levels: levels,
        ..ar::Knobs::default()
    };
    if let Some(rate) = passives {
        knobs.passive_rate = rate;
    }
    if deflect {
        knobs.kinds.push(ActionKind::Deflect);
    }
    let sat = Limits::new().engines(Engines::Sat).max_memory(u64::MAX);
    let mut seed = nums.get(1).copied().unwrap_or(0);
    loop {
        let n = ar::generate(&knobs, seed);
        let ok = !paradox
            || ar::solve(&n, &sat).is_ok_and(|a| a.classification() == Classification::Paradox);
        if ok {
            print!(
                "# random night: {effects} effects, seed {seed}\n{}",
                n.to_text()
            );
            return;
        }
        seed += 1;
    }
}
