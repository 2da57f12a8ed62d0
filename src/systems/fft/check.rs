//! Differential checking of the two FFT engines on one scenario (every variant: the
//! enumerated outcomes, `exceeds_bound`, and the existence of a witness for every
//! property), random scenarios fuzzed in parallel, and shrinking of a failing scenario.
//!
//! Invariants: a scenario passes only if both engines answered every question and every
//! answer agrees; shrinking only takes steps that keep the scenario valid (drop a slow
//! action, a menu entry or a per-character menu, a reaction or a mime job, a target;
//! lower the bound) and keeps a
//! step only while the scenario still fails, so the result is locally minimal over them.

use super::engine::{self, EngineKind};
use super::model::{Scenario, Variant};
use super::search::Property;
use crate::batch::with_timeout;
use crate::fuzz::{case_seed, Limit};
use crate::gen::fft::{scenario, ScenarioParams};
use crate::systems::spec::{Budget, Interrupted};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The differences found on one scenario (empty: the engines agree everywhere).
pub fn differential(sc: &Scenario, budget: &Budget) -> Result<Vec<String>, Interrupted> {
    let mut found = Vec::new();
    for v in Variant::ALL {
        let en = engine::enumerate(sc, v, EngineKind::Both, budget)?;
        if en.disagree() {
            let (d, s) = en.differences();
            found.push(format!(
                "{v}: enumeration differs ({} outcomes only the simulator finds, {} only \
                 SAT; exceeds bound: simulator {:?}, SAT {:?})",
                d.len(),
                s.len(),
                en.direct.as_ref().map(|e| e.exceeds_bound),
                en.sat.as_ref().map(|e| e.exceeds_bound),
            ));
        }
        for p in Property::ALL {
            let q = engine::query(sc, v, p, EngineKind::Both, budget)?;
            if let Some(d) = q.disagreement {
                found.push(format!("{v}: query {}: {d}", p.name()));
            }
        }
    }
    Ok(found)
}

/// Every one-step simplification of a scenario (each still valid).
fn simplifications(sc: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut Scenario)| {
        let mut s = sc.clone();
        f(&mut s);
        out.push(s);
    };
    for i in 0..sc.slow.len() {
        push(&|s| {
            s.slow.remove(i);
        });
    }
    for i in 0..sc.menus.mime_targets.len() {
        push(&|s| {
            s.menus.mime_targets.remove(i);
        });
    }
    for i in 0..sc.menus.quick.len() {
        push(&|s| {
            s.menus.quick.remove(i);
        });
    }
    for &c in sc.menus.mime_targets_for.keys() {
        push(&|s| {
            s.menus.mime_targets_for.remove(&c);
        });
    }
    for &c in sc.menus.quick_for.keys() {
        push(&|s| {
            s.menus.quick_for.remove(&c);
        });
    }
    if sc.menus.bound > 0 {
        push(&|s| s.menus.bound -= 1);
    }
    for (c, ch) in sc.characters.iter().enumerate() {
        if ch.reaction.is_some() {
            push(&|s| s.characters[c].reaction = None);
        }
        if ch.mime {
            push(&|s| s.characters[c].mime = false);
        }
    }
    for i in 0..sc.slow.len() {
        for j in 0..sc.slow[i].targets.len() {
            push(&|s| {
                s.slow[i].targets.remove(j);
            });
        }
    }
    out
}

/// Shrinks `sc` while `fails` holds (see the module invariants).
pub fn shrink(sc: &Scenario, fails: &dyn Fn(&Scenario) -> bool) -> Scenario {
    let mut cur = sc.clone();
    'outer: loop {
        for s in simplifications(&cur) {
            if fails(&s) {
                cur = s;
                continue 'outer;
            }
        }
        return cur;
    }
}

/// What to fuzz.
#[derive(Clone, Debug)]
pub struct FuzzConfig {
    /// Generator knobs.
    pub params: ScenarioParams,
    /// The run's seed (case `i` is a pure function of the config, the seed and `i`).
    pub seed: u64,
    /// When to stop.
    pub limit: Limit,
    /// Per-case time limit: a case over it is cancelled and counted as skipped (some
    /// random scenarios have millions of runs), never as a failure.
    pub case_timeout: Option<Duration>,
}

/// The first failing case.
#[derive(Clone, Debug)]
pub struct FuzzFailure {
    /// Its index in the run.
    pub index: u64,
    /// Its generator seed.
    pub seed: u64,
    /// The scenario as generated.
    pub scenario: Scenario,
    /// What differed.
    pub differences: Vec<String>,
}

/// What a fuzz run saw.
#[derive(Clone, Debug, Default)]
pub struct FuzzSummary {
    /// Cases run.
    pub cases: u64,
    /// Distinct outcomes enumerated (final variant), summed over cases.
    pub outcomes: u64,
    /// Cases cancelled by the per-case time limit.
    pub skipped: u64,
    /// The failing case with the lowest index, if any.
    pub failure: Option<FuzzFailure>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// Case `index` of a run: its generator seed and scenario.
pub fn case(cfg: &FuzzConfig, index: u64) -> (u64, Scenario) {
    let s = case_seed(cfg.seed, index);
    (s, scenario(&cfg.params, s))
}

/// Runs random cases in parallel until the limit or the first failure; `on_case` is
/// called after each case (progress display).
pub fn fuzz(cfg: &FuzzConfig, on_case: &(dyn Fn() + Sync)) -> FuzzSummary {
    let start = Instant::now();
    let stop = AtomicBool::new(false);
    let (end, deadline) = match cfg.limit {
        Limit::Cases(n) => (n, None),
        Limit::Time(t) => (u64::MAX, Some(start + t)),
    };
    let mut summary = (0..end)
        .par_bridge()
        .map(|index| {
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            let mut s = FuzzSummary::default();
            let (seed, sc) = case(cfg, index);
            let budget = Budget::new();
            s.cases = 1;
            let answer = with_timeout(cfg.case_timeout, &budget, || {
                let d = differential(&sc, &budget)?;
                let e = super::search::enumerate(&sc, Variant::Final, &budget)?;
                Ok::<_, Interrupted>((d, e.outcomes.len() as u64))
            });
            let differences = match answer {
                Ok((d, n)) => {
                    s.outcomes = n;
                    d
                }
                Err(Interrupted) => {
                    s.skipped = 1;
                    Vec::new()
                }
            };
            if !differences.is_empty() {
                stop.store(true, Ordering::Relaxed);
                s.failure = Some(FuzzFailure {
                    index,
                    seed,
                    scenario: sc,
                    differences,
                });
            }
            on_case();
            Some(s)
        })
        .while_some()
        .reduce(FuzzSummary::default, |mut a, b| {
            a.cases += b.cases;
            a.outcomes += b.outcomes;
            a.skipped += b.skipped;
            a.failure = match (a.failure, b.failure) {
                (Some(x), Some(y)) => Some(if x.index <= y.index { x } else { y }),
                (x, y) => x.or(y),
            };
            a
        });
    summary.elapsed = start.elapsed();
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::fft::model::{Menus, SlowAction};

    #[test]
    fn shrinking_keeps_only_what_the_failure_needs() {
        // A planted "failure": the scenario has a slow action by C2 and a mime. The shrunk
        // scenario must keep exactly one slow action (C2's) and one mime, nothing else.
        let mut sc = scenario(&ScenarioParams::default(), 7);
        sc.characters[0].mime = true;
        sc.characters[1].reaction = Some(super::super::model::Reaction::CounterMagic);
        sc.slow = vec![
            SlowAction {
                actor: 1,
                action: 0,
                targets: vec![0, 2],
            },
            SlowAction {
                actor: 3,
                action: 2,
                targets: vec![],
            },
        ];
        sc.menus = Menus {
            mime_targets: vec![vec![1]],
            quick: vec![],
            bound: 3,
            ..Menus::default()
        };
        let fails = |s: &Scenario| {
            s.slow.iter().any(|a| a.actor == 1) && s.characters.iter().any(|c| c.mime)
        };
        let small = shrink(&sc, &fails);
        assert!(fails(&small));
        assert_eq!(small.slow.len(), 1);
        assert!(small.slow[0].targets.is_empty());
        assert_eq!(small.characters.iter().filter(|c| c.mime).count(), 1);
        assert!(small.characters.iter().all(|c| c.reaction.is_none()));
        assert!(small.menus.mime_targets.is_empty() && small.menus.bound == 0);
    }
}
