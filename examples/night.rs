//! Prints a random ?AR night in the `.night` format, for trying gordian at scale:
//! `cargo run --release --example night -- EFFECTS [SEED] [--paradox]`.
//! Players: EFFECTS / 2; three priority levels; every kind but `deflect`; passives.
//! With `--paradox`, the first seed from SEED on whose night is a paradox.

use gordian::systems::ar::gen::{night, NightParams};
use gordian::systems::ar::{parse, Night, Sat};
use gordian::systems::spec::{Budget, Engine};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: night EFFECTS [SEED] [--paradox]";
    let nums: Vec<u64> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(|a| {
            a.parse()
                .unwrap_or_else(|_| panic!("{usage}: `{a}` is not a number"))
        })
        .collect();
    let effects = *nums.first().unwrap_or_else(|| panic!("{usage}")) as usize;
    let paradox = args.iter().any(|a| a == "--paradox");
    let params = NightParams {
        players: (effects / 2).max(1),
        effects,
        priority_levels: 3,
        ..NightParams::default()
    };
    let mut seed = nums.get(1).copied().unwrap_or(0);
    loop {
        let ens = night(&params, seed);
        let ok = !paradox || {
            let n = Night::of(&ens);
            Sat.solve(&n, &Budget::new())
                .is_ok_and(|f| f.cost(&n).is_some())
        };
        if ok {
            print!(
                "# random night: {effects} effects, seed {seed}\n{}",
                parse::to_night(&ens)
            );
            return;
        }
        seed += 1;
    }
}
