//! What a setup's nights add up to: each distinct night (a key, with the number of
//! nights it stands for) solved once, read for its classification, each player's chance
//! of dying, each chosen action's chance of failing and, for a paradox, the roles of a
//! smallest paradox core; then everything summed with the nights' weights.
//!
//! Invariants: every sum is weighted by the number of nights a key stands for, so the
//! totals are those of the nights themselves; players are summed per symmetry class
//! (a class's members have the same chance, by symmetry) and per role label, actions per
//! label (`town doctor`), both of which a relabelling within classes leaves unchanged;
//! the sums keep their weight, sum and sum of squares, so shards' tallies add up
//! ([`Tally::merge`]) to the tally of the whole run. A night that could not be solved is
//! kept in `failed` with its weight, never dropped.

use super::model::Setup;
use super::nights::{night_of_key, Key};
use crate::systems::ar::answer::factor::{Factored, Night};
use crate::systems::ar::answer::{death_chances, success_chances};
use crate::systems::ar::night::model::Player;
use crate::systems::ar::night::parse::to_night;
use crate::systems::ar::night::resolution::Classification;
use crate::systems::ar::night::universe::Universe;
use crate::systems::ar::why::core::{minimal_core, smallest_cores};
use crate::systems::spec::Budget;
use num_traits::ToPrimitive;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A weighted sum: its weight, the sum of weight × value and of weight × value².
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Acc {
    /// The total weight (nights).
    pub weight: u64,
    /// Σ weight × value.
    pub sum: f64,
    /// Σ weight × value².
    pub sum_sq: f64,
}

impl Acc {
    /// Adds `value` with weight `w`.
    pub fn add(&mut self, w: u64, value: f64) {
        self.weight += w;
        self.sum += w as f64 * value;
        self.sum_sq += w as f64 * value * value;
    }

    /// Adds another sum.
    pub fn merge(&mut self, o: &Acc) {
        self.weight += o.weight;
        self.sum += o.sum;
        self.sum_sq += o.sum_sq;
    }

    /// The weighted mean (`None` with no weight).
    pub fn mean(&self) -> Option<f64> {
        (self.weight > 0).then(|| self.sum / self.weight as f64)
    }

    /// A 95% confidence interval of the mean of `weight` independent draws of a value
    /// in `[lo, hi]`: Wilson's score interval of the mean scaled to `[0, 1]`. A value in
    /// `[0, 1]` has a variance of at most p(1 - p) for its mean p, so this is at least as
    /// wide as the normal interval with the sample's own variance, and unlike that one it
    /// does not shrink to a point when every draw gave 0 (a rare event never drawn).
    pub fn ci95(&self, lo: f64, hi: f64) -> Option<(f64, f64)> {
        let m = self.mean()?;
        let span = hi - lo;
        if span <= 0.0 {
            return Some((lo, hi));
        }
        let p = ((m - lo) / span).clamp(0.0, 1.0);
        let (a, b) = wilson_p(p, self.weight as f64)?;
        Some((lo + a * span, lo + b * span))
    }

    /// A 95% confidence interval of the mean of a count (deaths a night, in `[lo, hi]`):
    /// the normal approximation with the sample's variance, which a wide range would
    /// make far too cautious in [`Acc::ci95`]; when every draw gave the same value (no
    /// variance to go by), [`Acc::ci95`]'s interval.
    pub fn ci95_mean(&self, lo: f64, hi: f64) -> Option<(f64, f64)> {
        let m = self.mean()?;
        let n = self.weight as f64;
        let var = self.sum_sq / n - m * m;
        if var <= 1e-12 {
            return self.ci95(lo, hi);
        }
        let h = 1.96 * (var / n).sqrt();
        Some(((m - h).max(lo), (m + h).min(hi)))
    }
}

/// The 95% Wilson score interval of a share `p` of `n` draws.
fn wilson_p(p: f64, n: f64) -> Option<(f64, f64)> {
    if n <= 0.0 {
        return None;
    }
    let z = 1.96f64;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / d;
    Some(((c - h).max(0.0), (c + h).min(1.0)))
}

/// The 95% Wilson score interval of `k` successes in `n` draws.
pub fn wilson(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    wilson_p(k as f64 / n as f64, n as f64)
}

/// The smallest example night of a paradox cause.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Example {
    /// Its number of effects.
    pub effects: usize,
    /// The night, in the `.night` format.
    pub night: String,
}

/// The nights of one paradox cause (a combination of roles in a minimal core).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cause {
    /// The nights whose minimal core has these roles.
    pub nights: u64,
    /// The smallest of them.
    pub example: Example,
}

/// A night that could not be solved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    /// The nights it stands for.
    pub nights: u64,
    /// The night, in the `.night` format.
    pub night: String,
    /// Why.
    pub error: String,
}

/// Everything the analysis sums.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Nights counted (the sum of the weights), solved or not.
    pub nights: u64,
    /// Distinct nights solved (one per key).
    pub solved: u64,
    /// Of those, the ones both engines answered alike.
    pub cross_checked: u64,
    /// Nights that are paradoxes, quasi-paradoxes, non-paradoxes.
    pub paradox: u64,
    /// See `paradox`.
    pub quasi: u64,
    /// See `paradox`.
    pub non: u64,
    /// Deaths per night.
    pub deaths: Acc,
    /// Per symmetry class: the mean chance of dying of its members.
    pub class_deaths: Vec<Acc>,
    /// Per role label: the mean chance of dying of the players with it.
    pub role_deaths: BTreeMap<String, Acc>,
    /// Per action label: the chance that the action fails, over the nights it is taken.
    pub action_fails: BTreeMap<String, Acc>,
    /// Paradox causes by the roles of a minimal core (`town roleblocker + town jailkeeper`).
    pub causes: BTreeMap<String, Cause>,
    /// Nights that could not be solved.
    pub failed: Vec<Failed>,
}

impl Tally {
    /// An empty tally for `setup`.
    pub fn new(setup: &Setup) -> Tally {
        Tally {
            class_deaths: vec![Acc::default(); setup.classes().len()],
            ..Tally::default()
        }
    }

    /// Adds another tally of the same setup (another shard's).
    pub fn merge(&mut self, o: &Tally) {
        self.nights += o.nights;
        self.solved += o.solved;
        self.cross_checked += o.cross_checked;
        self.paradox += o.paradox;
        self.quasi += o.quasi;
        self.non += o.non;
        self.deaths.merge(&o.deaths);
        if self.class_deaths.len() < o.class_deaths.len() {
            self.class_deaths
                .resize(o.class_deaths.len(), Acc::default());
        }
        for (a, b) in self.class_deaths.iter_mut().zip(&o.class_deaths) {
            a.merge(b);
        }
        for (k, v) in &o.role_deaths {
            self.role_deaths.entry(k.clone()).or_default().merge(v);
        }
        for (k, v) in &o.action_fails {
            self.action_fails.entry(k.clone()).or_default().merge(v);
        }
        for (k, v) in &o.causes {
            match self.causes.get_mut(k) {
                Some(c) => {
                    c.nights += v.nights;
                    if v.example < c.example {
                        c.example = v.example.clone();
                    }
                }
                None => {
                    self.causes.insert(k.clone(), v.clone());
                }
            }
        }
        self.failed.extend(o.failed.iter().cloned());
    }

    /// The nights solved (counted, minus those that failed).
    pub fn answered(&self) -> u64 {
        self.paradox + self.quasi + self.non
    }
}

/// What one solved night contributes.
#[derive(Clone, Debug)]
pub struct NightStats {
    class: Classification,
    cross_checked: bool,
    /// Each player's chance of dying.
    deaths: Vec<f64>,
    /// Each chooser's chance of failing, when it acted.
    fails: Vec<Option<f64>>,
    /// For a paradox, the roles of a minimal core, and the night.
    cause: Option<(String, Example)>,
}

/// What a solver gives for one night: the answer and whether two engines agreed on it.
pub type Solve<'a> = dyn Fn(&Night) -> Result<(Factored, bool), String> + Sync + 'a;

/// The label of each effect of a night of `setup` in a paradox core.
fn core_label(setup: &Setup, ens: &crate::systems::ar::night::model::Ensemble, i: usize) -> String {
    let e = &ens.effects[i];
    match setup.choosers.iter().find(|c| c.id == e.id) {
        Some(c) => setup.action_label(c),
        None if e.is_action() => format!("{} (fixed {})", setup.role[e.actor as usize], e.kind),
        None => setup.role[e.actor as usize].clone(),
    }
}

/// Solves the night of `key` and reads what it contributes.
pub fn night_stats(
    setup: &Setup,
    key: &Key,
    solve: &Solve<'_>,
    budget: &Budget,
) -> Result<NightStats, String> {
    let ens = night_of_key(setup, key);
    let night = Night::new(Universe::new(&ens));
    let (f, cross_checked) = solve(&night)?;
    let class = f.classification();
    let mut deaths = vec![0.0; setup.n_players()];
    for (who, p) in death_chances(&night, &f) {
        if let Some(i) = ens.player_index(&who) {
            deaths[i as usize] = p.to_f64().unwrap_or(0.0);
        }
    }
    let succ = success_chances(&night, &f);
    let fails = setup
        .choosers
        .iter()
        .zip(key)
        .map(|(c, a)| {
            a.as_ref()
                .map(|_| 1.0 - succ.get(&c.id).and_then(|p| p.to_f64()).unwrap_or(0.0))
        })
        .collect();
    let cause = if class == Classification::Paradox {
        // The smallest cores do not depend on the order of the effects, so every night
        // of one orbit has the same cause: the least of their role combinations. Past
        // the size where every subset can be tried, one core by deletion.
        let label = |core: &[usize]| {
            let mut labels: Vec<String> =
                core.iter().map(|&i| core_label(setup, &ens, i)).collect();
            labels.sort();
            labels.join(" + ")
        };
        let bug =
            "the engines call it a paradox, the core search finds a resolution (a bug in gordian)";
        let found = smallest_cores(&night.whole, budget)
            .map_err(|e| format!("finding a paradox core: {e}"))?;
        let combination = match found {
            Some(cores) => cores.iter().map(|c| label(c)).min().ok_or(bug)?,
            None => {
                let core = minimal_core(&night.whole, budget)
                    .map_err(|e| format!("finding a paradox core: {e}"))?
                    .ok_or(bug)?;
                label(&core.effects)
            }
        };
        Some((
            combination,
            Example {
                effects: ens.effects.len(),
                night: to_night(&ens),
            },
        ))
    } else {
        None
    };
    Ok(NightStats {
        class,
        cross_checked,
        deaths,
        fails,
        cause,
    })
}

/// Adds one night's stats with weight `w`.
fn add(setup: &Setup, classes: &[Vec<Player>], t: &mut Tally, w: u64, s: &NightStats) {
    t.nights += w;
    t.solved += 1;
    t.cross_checked += u64::from(s.cross_checked);
    match s.class {
        Classification::Paradox => t.paradox += w,
        Classification::QuasiParadox => t.quasi += w,
        Classification::NonParadox => t.non += w,
    }
    t.deaths.add(w, s.deaths.iter().sum());
    for (c, members) in classes.iter().enumerate() {
        let m = members.iter().map(|&p| s.deaths[p as usize]).sum::<f64>() / members.len() as f64;
        t.class_deaths[c].add(w, m);
    }
    let mut by_role: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for (p, d) in s.deaths.iter().enumerate() {
        let e = by_role.entry(&setup.role[p]).or_insert((0.0, 0));
        e.0 += d;
        e.1 += 1;
    }
    for (r, (sum, k)) in by_role {
        t.role_deaths
            .entry(r.to_string())
            .or_default()
            .add(w, sum / k as f64);
    }
    let mut by_action: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for (c, f) in setup.choosers.iter().zip(&s.fails) {
        if let Some(f) = f {
            let e = by_action.entry(setup.action_label(c)).or_insert((0.0, 0));
            e.0 += f;
            e.1 += 1;
        }
    }
    for (a, (sum, k)) in by_action {
        t.action_fails.entry(a).or_default().add(w, sum / k as f64);
    }
    if let Some((label, ex)) = &s.cause {
        let c = t.causes.entry(label.clone()).or_insert_with(|| Cause {
            nights: 0,
            example: ex.clone(),
        });
        c.nights += w;
        if *ex < c.example {
            c.example = ex.clone();
        }
    }
}

/// Solves every key of `keys` (in parallel) and sums what they contribute;
/// `on_night` is called after each distinct night.
pub fn tally(
    setup: &Setup,
    keys: Vec<(Key, u64)>,
    solve: &Solve<'_>,
    budget: &Budget,
    on_night: &(dyn Fn() + Sync),
) -> Tally {
    let done: Vec<(Key, u64, Result<NightStats, String>)> = keys
        .into_par_iter()
        .map(|(k, w)| {
            let r = night_stats(setup, &k, solve, budget);
            on_night();
            (k, w, r)
        })
        .collect();
    let mut t = Tally::new(setup);
    let classes = setup.classes();
    for (k, w, r) in done {
        match r {
            Ok(s) => add(setup, &classes, &mut t, w, &s),
            Err(error) => {
                t.nights += w;
                t.failed.push(Failed {
                    nights: w,
                    night: to_night(&night_of_key(setup, &k)),
                    error,
                });
            }
        }
    }
    t
}
