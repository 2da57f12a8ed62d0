//! The resolutions under one optimal cut held as *scoped tables*, for a piece whose
//! resolutions are many and whose actions' final targets each depend on a few of them.
//!
//! The labellings under the cut are the product of *units*: lists of labellings over
//! disjoint labels that combine freely (every choice of one labelling per unit is one
//! labelling). Each labelling of a unit sets its own bits of R and S; labellings of a unit
//! with the same bits differ only in which cycle member is processed last, so they are
//! one *class*, and a resolution is one class per unit (R and S the union of the classes'
//! bits over the fixed ones), its ways one labelling per chosen class. An action's final
//! targets are read from a *table* over the units that decide them (its own labels' unit
//! and the units holding the deflections on its path), one entry for every choice of one
//! labelling per unit of the table; the actions no unit decides have their targets in the
//! fixed way. A cut of a deflection-heavy piece whose 245,760 resolutions differ in about
//! a hundred actions' final targets is then a few thousand labellings and tables of a few
//! thousand entries, where a list of its resolutions (even as differences from one) takes
//! gigabytes.
//!
//! Invariants: units hold disjoint labels and are sorted by them, each unit's labellings
//! in a canonical order given by its builder (so two engines with the same units build
//! equal tables); a class's members are ascending; every bit a unit sets is its own (no
//! other unit and no fixed bit sets it), so distinct choices of classes are distinct
//! resolutions; the target lists of the tables are numbers in one table sorted ascending.
//! Nothing here knows the universe: effects and players are the piece's numbers.

use super::model::Player;
use fixedbitset::FixedBitSet;
use std::ops::ControlFlow;
use std::sync::Arc;

/// Final targets of every effect (as [`super::resolution::TargetMap`]).
type Map = Vec<Vec<Player>>;

/// Number of created effects (those from `n_declared` on) among the bits of R.
pub fn created(present: &FixedBitSet, n_declared: usize) -> usize {
    present.ones().filter(|&i| i >= n_declared).count()
}

/// One unit as its builder hands it over: its labels (which name it) and each of its
/// labellings' bits of R and S.
pub struct UnitRows {
    /// The unit's labels, ascending (universe label numbers: any numbering both engines
    /// share).
    pub labels: Vec<usize>,
    /// Each labelling's bits of R (created effects only) and of S, in the unit's order.
    pub rows: Vec<(FixedBitSet, FixedBitSet)>,
}

/// One table as its builder hands it over.
pub struct TableRows {
    /// The units it reads (indices into the units, in any order: they are sorted here).
    pub units: Vec<usize>,
    /// The effects whose final targets it gives (ascending).
    pub effects: Vec<u32>,
    /// For each choice of one labelling per unit of the table (the first unit varying
    /// slowest), the final targets of each of `effects`, in their order.
    pub targets: Vec<Vec<Player>>,
}

/// Resolutions as units and tables (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scoped {
    /// Bits of R and S every resolution has, and the final targets of every effect no
    /// table gives.
    present: FixedBitSet,
    succeeded: FixedBitSet,
    way: Map,
    units: Vec<Unit>,
    tables: Vec<Table>,
    /// Every target list the tables hold, once each, ascending.
    targets: Vec<Vec<Player>>,
    /// Effects below this index are declared.
    n_declared: usize,
    /// Each effect's rank when the ids are sorted as strings (the canonical order's).
    rank: Arc<[u32]>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Unit {
    labels: Vec<usize>,
    /// Number of labellings.
    n: usize,
    /// Sorted by bits.
    classes: Vec<Class>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Class {
    present: FixedBitSet,
    succeeded: FixedBitSet,
    /// The labellings of the class (ascending).
    members: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Table {
    units: Vec<u32>,
    effects: Vec<u32>,
    /// Numbers in `targets`, `effects.len()` per choice.
    cells: Vec<u32>,
}

impl Scoped {
    /// The resolutions of `units` (sorted by their labels, disjoint) and `tables`, over
    /// the fixed bits and the fixed way `way` (a whole map; the tables' effects are
    /// empty in it).
    pub fn new(
        n_declared: usize,
        rank: Arc<[u32]>,
        present: FixedBitSet,
        succeeded: FixedBitSet,
        way: Map,
        units: Vec<UnitRows>,
        tables: Vec<TableRows>,
    ) -> Scoped {
        debug_assert!(units.windows(2).all(|w| w[0].labels < w[1].labels));
        let (mut present, mut succeeded) = (present, succeeded);
        let units: Vec<Unit> = units
            .into_iter()
            .map(|mut u| {
                // The bits all of a unit's labellings set are fixed: where a builder puts
                // what holds throughout is its own affair.
                let mut all = u.rows[0].clone();
                for (p, s) in &u.rows[1..] {
                    all.0.intersect_with(p);
                    all.1.intersect_with(s);
                }
                for (p, s) in u.rows.iter_mut() {
                    p.difference_with(&all.0);
                    s.difference_with(&all.1);
                }
                present.union_with(&all.0);
                succeeded.union_with(&all.1);
                let n = u.rows.len();
                let mut classes: std::collections::BTreeMap<_, Vec<u32>> = Default::default();
                for (k, bits) in u.rows.into_iter().enumerate() {
                    classes.entry(bits).or_default().push(k as u32);
                }
                Unit {
                    labels: u.labels,
                    n,
                    classes: classes
                        .into_iter()
                        .map(|((present, succeeded), members)| Class {
                            present,
                            succeeded,
                            members,
                        })
                        .collect(),
                }
            })
            .collect();
        let mut lists: Vec<Vec<Player>> = tables
            .iter()
            .flat_map(|t| t.targets.iter().cloned())
            .collect();
        lists.sort_unstable();
        lists.dedup();
        let number = |t: &Vec<Player>| lists.binary_search(t).expect("listed") as u32;
        let mut tables: Vec<Table> = tables
            .iter()
            .map(|t| {
                // Its units ascending, whatever order the builder read them in: the cells
                // reordered to match (the first unit still varying slowest).
                let e = t.effects.len();
                let mut order: Vec<usize> = (0..t.units.len()).collect();
                order.sort_by_key(|&i| t.units[i]);
                let size = |i: usize| units[t.units[i]].n;
                let mut stride = vec![1usize; t.units.len()];
                for i in (0..t.units.len().saturating_sub(1)).rev() {
                    stride[i] = stride[i + 1] * size(i + 1);
                }
                let mut cells = Vec::with_capacity(t.targets.len());
                for pick in crate::odometer::Product::new(order.iter().map(|&i| size(i)).collect())
                {
                    let old: usize = pick.iter().zip(&order).map(|(&d, &i)| d * stride[i]).sum();
                    cells.extend(t.targets[old * e..(old + 1) * e].iter().map(number));
                }
                Table {
                    units: order.iter().map(|&i| t.units[i] as u32).collect(),
                    effects: t.effects.clone(),
                    cells,
                }
            })
            .collect();
        tables.sort_unstable();
        Scoped {
            present,
            succeeded,
            way,
            units,
            tables,
            targets: lists,
            n_declared,
            rank,
        }
    }

    /// Effects below this index are declared.
    pub fn n_declared(&self) -> usize {
        self.n_declared
    }

    /// Each effect's rank when the ids are sorted as strings.
    pub fn rank(&self) -> Arc<[u32]> {
        Arc::clone(&self.rank)
    }

    /// Number of resolutions (saturating).
    pub fn len(&self) -> usize {
        self.units
            .iter()
            .fold(1usize, |n, u| n.saturating_mul(u.classes.len()))
    }

    /// Each unit's classes, or only those with the least created effects.
    fn classes(&self, optimal: bool) -> Vec<Vec<&Class>> {
        self.units
            .iter()
            .map(|u| {
                let least = u
                    .classes
                    .iter()
                    .map(|c| created(&c.present, self.n_declared))
                    .min();
                u.classes
                    .iter()
                    .filter(|c| !optimal || Some(created(&c.present, self.n_declared)) == least)
                    .collect()
            })
            .collect()
    }

    /// The least number of created effects of a resolution.
    pub fn min_created(&self) -> usize {
        created(&self.present, self.n_declared)
            + self
                .units
                .iter()
                .map(|u| {
                    u.classes
                        .iter()
                        .map(|c| created(&c.present, self.n_declared))
                        .min()
                        .unwrap_or(0)
                })
                .sum::<usize>()
    }

    /// Whether every resolution has one way (each class one labelling).
    fn one_way_each(&self) -> bool {
        self.units
            .iter()
            .all(|u| u.classes.iter().all(|c| c.members.len() == 1))
    }

    /// Number of ways of the resolutions (only the optimal ones, least |R|, when
    /// `optimal`), saturating.
    pub fn n_ways(&self, optimal: bool) -> usize {
        if self.one_way_each() {
            return self
                .classes(optimal)
                .iter()
                .fold(1usize, |n, cs| n.saturating_mul(cs.len()));
        }
        let mut n = 0usize;
        let _ = self.for_each(optimal, |_, _, ways, _| {
            n = n.saturating_add(ways.len());
            ControlFlow::<()>::Continue(())
        });
        n
    }

    /// Calls `f` with every resolution (only the optimal ones, least |R|, when
    /// `optimal`) as its bits of R and S, its distinct ways sorted, and how many
    /// resolutions the call makes; one class per unit, the last unit varying fastest.
    pub fn for_each<B>(
        &self,
        optimal: bool,
        mut f: impl FnMut(FixedBitSet, FixedBitSet, Vec<Map>, usize) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let classes = self.classes(optimal);
        let count = classes
            .iter()
            .fold(1usize, |n, cs| n.saturating_mul(cs.len()));
        let sizes: Vec<usize> = classes.iter().map(Vec::len).collect();
        for pick in crate::odometer::Product::new(sizes) {
            let chosen: Vec<&Class> = classes.iter().zip(&pick).map(|(cs, &k)| cs[k]).collect();
            let mut present = self.present.clone();
            let mut succeeded = self.succeeded.clone();
            for c in &chosen {
                present.union_with(&c.present);
                succeeded.union_with(&c.succeeded);
            }
            let members: Vec<usize> = chosen.iter().map(|c| c.members.len()).collect();
            let mut ways: Vec<Map> = crate::odometer::Product::new(members)
                .map(|m| {
                    let rows: Vec<u32> =
                        chosen.iter().zip(&m).map(|(c, &k)| c.members[k]).collect();
                    self.way_of(&rows)
                })
                .collect();
            ways.sort();
            ways.dedup();
            f(present, succeeded, ways, count)?;
        }
        ControlFlow::Continue(())
    }

    /// The way of one labelling per unit (`rows`, by unit).
    fn way_of(&self, rows: &[u32]) -> Map {
        let mut w = self.way.clone();
        for t in &self.tables {
            let at = t.units.iter().fold(0usize, |at, &j| {
                at * self.units[j as usize].n + rows[j as usize] as usize
            });
            let cells = &t.cells[at * t.effects.len()..(at + 1) * t.effects.len()];
            for (&e, &c) in t.effects.iter().zip(cells) {
                w[e as usize].clone_from(&self.targets[c as usize]);
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(n: usize, ones: &[usize]) -> FixedBitSet {
        let mut b = FixedBitSet::with_capacity(n);
        ones.iter().for_each(|&i| b.insert(i));
        b
    }

    /// Effects 0..2 declared (0, 1 actions; 2 a deflection whose success varies), 3 a
    /// created action. Unit 0: effect 2 succeeds or not. Unit 1: effect 3 present (and
    /// succeeding) or not, in two labellings each that differ only in a cycle's last
    /// member. Effect 0's targets depend on unit 0; effect 3's on units 0 and 1.
    fn example(tables_reversed: bool) -> Scoped {
        example_read(tables_reversed, false)
    }

    /// [`example`], with effect 3's table reading its units as (1, 0) when `swapped`.
    fn example_read(tables_reversed: bool, swapped: bool) -> Scoped {
        let n = 4;
        let unit0 = UnitRows {
            labels: vec![2],
            rows: vec![(bits(n, &[]), bits(n, &[])), (bits(n, &[]), bits(n, &[2]))],
        };
        let unit1 = UnitRows {
            labels: vec![7, 11],
            rows: vec![
                (bits(n, &[]), bits(n, &[])),
                (bits(n, &[]), bits(n, &[])),
                (bits(n, &[3]), bits(n, &[3])),
                (bits(n, &[3]), bits(n, &[3])),
            ],
        };
        let t0 = TableRows {
            units: vec![0],
            effects: vec![0],
            targets: vec![vec![5], vec![6]],
        };
        // Choices (unit 0, unit 1) in order (0,0) (0,1) (0,2) (0,3) (1,0) ...: effect 3
        // has targets only where it is present (rows 2 and 3), and row 3 ends at 8 when
        // the deflection succeeds.
        let t1 = TableRows {
            units: vec![0, 1],
            effects: vec![3],
            targets: vec![
                vec![],
                vec![],
                vec![7],
                vec![7],
                vec![],
                vec![],
                vec![7],
                vec![8],
            ],
        };
        // The same table over units (1, 0): unit 0 fastest now, so choices (unit 1, unit 0)
        // in order (0,0) (0,1) (1,0) (1,1) (2,0) ...
        let t1 = if swapped {
            TableRows {
                units: vec![1, 0],
                effects: vec![3],
                targets: vec![
                    vec![],
                    vec![],
                    vec![],
                    vec![],
                    vec![7],
                    vec![7],
                    vec![7],
                    vec![8],
                ],
            }
        } else {
            t1
        };
        let way = vec![vec![], vec![1], vec![], vec![]];
        let mut tables = vec![t0, t1];
        if tables_reversed {
            tables.reverse();
        }
        let rank: Arc<[u32]> = vec![0, 1, 2, 3].into();
        Scoped::new(
            3,
            rank,
            bits(n, &[]),
            bits(n, &[1]),
            way,
            vec![unit0, unit1],
            tables,
        )
    }

    #[test]
    fn resolutions_are_one_class_per_unit_and_ways_one_labelling_per_class() {
        let s = example(false);
        assert_eq!(s.len(), 4);
        assert_eq!(s.min_created(), 0);
        let mut seen = Vec::new();
        let _ = s.for_each(false, |present, succeeded, ways, count| {
            assert_eq!(count, 4);
            seen.push((
                present.ones().collect::<Vec<_>>(),
                succeeded.ones().collect::<Vec<_>>(),
                ways,
            ));
            ControlFlow::<()>::Continue(())
        });
        let m = |e0: &[Player], e3: &[Player]| vec![e0.to_vec(), vec![1], vec![], e3.to_vec()];
        assert_eq!(
            seen,
            vec![
                (vec![], vec![1], vec![m(&[5], &[])]),
                (vec![3], vec![1, 3], vec![m(&[5], &[7])]),
                (vec![], vec![1, 2], vec![m(&[6], &[])]),
                (vec![3], vec![1, 2, 3], vec![m(&[6], &[7]), m(&[6], &[8])]),
            ]
        );
        assert_eq!(s.n_ways(false), 5);
        // The optimal ones create nothing: unit 1's first class.
        assert_eq!(s.n_ways(true), 2);
    }

    #[test]
    fn built_alike_is_equal_whatever_the_order_of_its_tables() {
        assert_eq!(example(false), example(true));
    }

    #[test]
    fn built_alike_is_equal_whatever_order_a_table_reads_its_units_in() {
        assert_eq!(example(false), example_read(false, true));
        assert_eq!(example(true), example_read(true, true));
    }
}
