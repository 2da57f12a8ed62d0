//! `cargo bench --bench parse`: parsing (text to instance, through the library's `parse`)
//! of every format at a large generated size, where a step that is quadratic in the
//! number of names, lines or words on a line would show: a night of 100,000 effects (and
//! its JSON form), an FFT scenario of 40,000 characters (with as many teams, log lines,
//! expected-order entries and 10,000 declared actions in a quick menu), a Lancer scenario
//! of 40,000 weapons and as many reactions naming them, a Foeman side line of 200,000
//! words, an FF8 goal of 20,000 atoms on one line. Every text is generated here (nothing
//! is read from disk) and is valid, so the whole parse is timed.

use criterion::{criterion_group, criterion_main, Criterion};
use gordian::{ar, ff8, fft, foeman, lancer};
use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

/// `n` effects over `2n` players in `n` independent pairs (`P0 block P1`, ...).
fn night(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let _ = writeln!(s, "P{} block P{}", 2 * i, 2 * i + 1);
    }
    s
}

/// The same night as JSON, one effect a line.
fn night_json(n: usize) -> String {
    let mut s = String::from("{\"effects\": [\n");
    for i in 0..n {
        let sep = if i + 1 < n { "," } else { "" };
        let _ = writeln!(
            s,
            "{{\"actor\": \"P{}\", \"kind\": \"block\", \"targets\": [\"P{}\"]}}{sep}",
            2 * i,
            2 * i + 1
        );
    }
    s.push_str("]}\n");
    s
}

/// `n` characters, one team per two of them; `n / 4` declared quick actions, all in the
/// quick menu; the expected next CR order naming every character; a log of `n` lines.
fn fft_scenario(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let _ = writeln!(s, "char C{i} team T{}", i / 2);
    }
    let actions = n / 4;
    for i in 0..actions {
        let _ = writeln!(s, "action a{i} quick");
    }
    let order: Vec<String> = (0..n).map(|i| format!("C{i}")).collect();
    let _ = writeln!(s, "next-cr {}", order.join(", "));
    let menu: Vec<String> = (0..actions).map(|i| format!("a{i} - C{i}")).collect();
    let _ = writeln!(s, "quick-menu {}", menu.join(" | "));
    s.push_str("bound 8\nlog\n");
    for i in 0..n {
        let _ = writeln!(s, "C{i} - qs - C{}", (i + 1) % n);
    }
    s.push_str("end\n");
    s
}

/// Two units, `n` weapons, `n` reactions each naming its weapon, the action.
fn lancer_scenario(n: usize) -> String {
    let mut s = String::from(
        "policy seed\ndepth 3\nunit A side player hp 6 structure 2 at 0 0\n\
         unit B side enemy hp 8 structure 1 at 1 0 npc\n",
    );
    for i in 0..n {
        let _ = writeln!(s, "weapon w{i} damage {}", i % 20);
    }
    for i in 0..n {
        let _ = writeln!(
            s,
            "reaction r{i} of B on attack target hit followup attack w{i} at source once"
        );
    }
    s.push_str("action A activate w0 at B\n");
    s
}

/// A side line of `n` words (`ini` given `n / 2 - 1` times), then three figures.
fn foeman_scenario(n: usize) -> String {
    let mut s = String::from("side X");
    for _ in 0..n / 2 - 1 {
        s.push_str(" ini 3");
    }
    s.push('\n');
    for f in ["A", "B", "C"] {
        let _ = writeln!(s, "figure {f} side X dx 10 do strike:2");
    }
    s
}

/// A goal of `n` atoms on one line.
fn ff8_scenario(n: usize) -> String {
    let atoms: Vec<&str> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                "Balamb has Open"
            } else {
                "Dollet lacks Same"
            }
        })
        .collect();
    format!(
        "allow: Balamb\nchallenge: Balamb play\ngoal: {}\n",
        atoms.join(" & ")
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let n = night(100_000);
    g.bench_function("night/100000-effects", |b| {
        b.iter(|| black_box(ar::Night::parse(&n).expect("valid")))
    });
    let j = night_json(100_000);
    g.bench_function("json/100000-effects", |b| {
        b.iter(|| black_box(ar::Night::parse(&j).expect("valid")))
    });
    let f = fft_scenario(40_000);
    g.bench_function("fft/40000-characters", |b| {
        b.iter(|| black_box(fft::Scenario::parse(&f).expect("valid")))
    });
    let l = lancer_scenario(40_000);
    g.bench_function("lancer/40000-weapons", |b| {
        b.iter(|| black_box(lancer::Scenario::parse(&l).expect("valid")))
    });
    let m = foeman_scenario(200_000);
    g.bench_function("foeman/200000-words", |b| {
        b.iter(|| black_box(foeman::Scenario::parse(&m).expect("valid")))
    });
    let e = ff8_scenario(20_000);
    g.bench_function("ff8/20000-atoms", |b| {
        b.iter(|| black_box(ff8::Scenario::parse(&e).expect("valid")))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
