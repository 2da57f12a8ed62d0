//! The nights of a setup: every one (an odometer over the choosers' options), a uniform
//! sample of them, and the *key* each night is counted under, up to the setup's
//! symmetry.
//!
//! Players of one symmetry class are interchangeable (`model.rs`), so exchanging them
//! maps every night onto a night with the same answer up to their names. [`Canon::key`]
//! relabels the players of each class in an order read off the night itself (colour
//! refinement over who acts on whom), so nights that differ only by such an exchange
//! usually get the same key and are solved once, with the number of nights it stands
//! for as its weight.
//!
//! Invariant: the key of a night is a night of the setup obtained from it by a
//! permutation of players within classes (never anything else), so equal keys always
//! mean nights of one orbit: the weighted counts equal those of full enumeration,
//! whatever the refinement manages to merge (a test compares them).

use super::model::{Act, Performer, Setup};
use crate::systems::ar::night::model::{ActionKind, Player};
use rand::{Rng, SeedableRng};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

/// A night as one act (or none) per chooser, in chooser order.
pub type Key = Vec<Option<Act>>;

/// What the symmetry relabelling needs of a setup, computed once.
#[derive(Clone, Debug)]
pub struct Canon {
    /// Each player's class.
    class: Vec<usize>,
    /// The members of each class, by index.
    members: Vec<Vec<Player>>,
    /// For each chooser: its player and its position among that player's lines, or
    /// `None` for a faction line (it maps to itself).
    slot: Vec<Option<(Player, usize)>>,
    /// The chooser of (player, position).
    line_of: FxHashMap<(Player, usize), usize>,
    /// Whether any class has more than one member (else keys are the nights).
    symmetric: bool,
    /// For each chooser, whether its targets are an unordered pair (a swap), kept sorted
    /// as its options list them.
    unordered: Vec<bool>,
}

impl Canon {
    /// The relabelling of `setup`; with `symmetry` false, every night is its own key.
    pub fn new(setup: &Setup, symmetry: bool) -> Canon {
        let members = setup.classes();
        let mut count: FxHashMap<Player, usize> = FxHashMap::default();
        let mut slot = Vec::new();
        let mut line_of = FxHashMap::default();
        for (i, c) in setup.choosers.iter().enumerate() {
            match c.performer {
                Performer::Player(p) => {
                    let k = count.entry(p).or_insert(0);
                    slot.push(Some((p, *k)));
                    line_of.insert((p, *k), i);
                    *k += 1;
                }
                Performer::Faction(_) => slot.push(None),
            }
        }
        Canon {
            unordered: setup
                .choosers
                .iter()
                .map(|c| c.kind == ActionKind::Swap)
                .collect(),
            class: setup.class.clone(),
            symmetric: symmetry && members.iter().any(|m| m.len() > 1),
            members,
            slot,
            line_of,
        }
    }

    /// The key of the night with `acts` (one per chooser).
    pub fn key(&self, acts: &[Option<&Act>]) -> Key {
        if !self.symmetric {
            return acts.iter().map(|a| a.cloned()).collect();
        }
        let n = self.class.len();
        // Each chooser's label: its position for a player's line (the same for the
        // corresponding line of every member of the class), or its index for a faction.
        let label = |i: usize| -> (u8, usize) {
            match self.slot[i] {
                Some((_, s)) => (0, s),
                None => (1, i),
            }
        };
        let mut props: Vec<Vec<u64>> = vec![Vec::new(); n];
        let mut edges: Vec<(Player, Player, (u8, usize), usize)> = Vec::new();
        for (i, a) in acts.iter().enumerate() {
            let l = label(i);
            match a {
                Some(a) => {
                    props[a.actor as usize].push(hash(&(l, "acts")));
                    for (k, &t) in a.targets.iter().enumerate() {
                        edges.push((a.actor, t, l, k));
                    }
                }
                None => {
                    if let Some((p, _)) = self.slot[i] {
                        props[p as usize].push(hash(&(l, "idle")));
                    }
                }
            }
        }
        let mut colour: Vec<u64> = self.class.iter().map(|&c| c as u64).collect();
        for _ in 0..3 {
            let mut seen: Vec<Vec<u64>> = props.clone();
            for &(a, t, l, k) in &edges {
                seen[a as usize].push(hash(&(l, k, "to", colour[t as usize])));
                seen[t as usize].push(hash(&(l, k, "from", colour[a as usize])));
            }
            colour = (0..n)
                .map(|p| {
                    let mut s = std::mem::take(&mut seen[p]);
                    s.sort_unstable();
                    hash(&(colour[p], s))
                })
                .collect();
        }
        // Within each class, the members in the order of their colours take the class's
        // places in index order.
        let mut to: Vec<Player> = (0..n as Player).collect();
        for m in &self.members {
            let mut order = m.clone();
            order.sort_by_key(|&p| (colour[p as usize], p));
            for (&from, &place) in order.iter().zip(m) {
                to[from as usize] = place;
            }
        }
        let mut key: Key = vec![None; acts.len()];
        for (i, a) in acts.iter().enumerate() {
            let j = match self.slot[i] {
                Some((p, s)) => self.line_of[&(to[p as usize], s)],
                None => i,
            };
            key[j] = a.map(|a| {
                let mut targets: Vec<Player> = a.targets.iter().map(|&t| to[t as usize]).collect();
                if self.unordered[i] {
                    targets.sort_unstable();
                }
                Act {
                    actor: to[a.actor as usize],
                    targets,
                }
            });
        }
        key
    }
}

fn hash<T: Hash>(x: &T) -> u64 {
    let mut h = FxHasher::default();
    x.hash(&mut h);
    h.finish()
}

/// The acts of one option index per chooser.
pub fn acts_of<'a>(setup: &'a Setup, pick: &[usize]) -> Vec<Option<&'a Act>> {
    setup
        .choosers
        .iter()
        .zip(pick)
        .map(|(c, &k)| c.options[k].as_ref())
        .collect()
}

/// Every night of `setup` whose enumeration index `i` has `i % of == part` (`part` in
/// `0..of`; `0, 1` for all), counted under its key; `on_night` is called every 4,096
/// nights (for progress) and stops the enumeration when it returns false.
pub fn enumerate(
    setup: &Setup,
    canon: &Canon,
    part: u64,
    of: u64,
    mut on_night: impl FnMut(u64) -> bool,
) -> Option<FxHashMap<Key, u64>> {
    let sizes: Vec<usize> = setup.choosers.iter().map(|c| c.options.len()).collect();
    let mut out: FxHashMap<Key, u64> = FxHashMap::default();
    let mut i: u64 = 0;
    for pick in crate::odometer::Product::new(sizes) {
        if i % of == part {
            *out.entry(canon.key(&acts_of(setup, &pick))).or_insert(0) += 1;
        }
        i += 1;
        if i.is_multiple_of(4096) && !on_night(i) {
            return None;
        }
    }
    Some(out)
}

/// `samples` nights drawn uniformly (each chooser's option uniformly and independently,
/// which is uniform over the nights) with `seed`, counted under their keys.
pub fn sample(setup: &Setup, canon: &Canon, samples: u64, seed: u64) -> FxHashMap<Key, u64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out: FxHashMap<Key, u64> = FxHashMap::default();
    let mut pick = vec![0; setup.choosers.len()];
    for _ in 0..samples {
        for (k, c) in pick.iter_mut().zip(&setup.choosers) {
            *k = rng.gen_range(0..c.options.len());
        }
        *out.entry(canon.key(&acts_of(setup, &pick))).or_insert(0) += 1;
    }
    out
}

/// The night of a key (one act or none per chooser).
pub fn night_of_key(setup: &Setup, key: &Key) -> crate::systems::ar::night::model::Ensemble {
    let acts: Vec<Option<&Act>> = key.iter().map(Option::as_ref).collect();
    setup.night_of(&acts)
}
