//! Unfounded-set propagation for the learner of [`super::learn`]: *atoms* are variables
//! that may be true only with an acyclic derivation (the direct engine's created effects,
//! whose grounded creation is (C5)), and this module finds, on a partial labelling, the
//! atoms that can no longer be derived, so that the learner sets them false at once
//! instead of finding each loop nogood on a complete labelling.
//!
//! An atom has *supports* `(guard, from)`: it is derived when some guard holds and `from`
//! is `None` (grounded) or an atom derived before it. Every atom keeps a *source*, one of
//! its supports whose guard is not false and whose `from` atom has a source and is not
//! false; sources form no cycle, so an atom with a source can still be derived whatever
//! the open variables become. A guard that falls, or a source atom that falls or loses its
//! own source, unsets the source; the
//! check at a propagation fixpoint then looks for new sources, and the atoms left without
//! one (and not already false) are *unfounded*: for each connected set U of them, every
//! support from outside U is closed (its guard false, or its atom false), and each atom of
//! U is set false by the loop nogood "not this atom, or some support of U from outside U
//! not closed the way it is now" (valid for any set U: the first atom of U to be derived
//! needs such a support, with its guard and its atom true). Sources are kept on
//! backtracking (a guard only goes from false to open there, so a source stays valid); an
//! atom without a source whose variable is unassigned is looked at again.
//!
//! Invariants: after [`Grounding::unfounded`], every atom without a source is false or
//! listed in the unfounded sets it returns; the source graph is acyclic; a returned set's
//! outside literals are all false (a set for which one is not is left out, so a nogood this
//! module gives is always unit or violated, never wrong). It only speeds the search up:
//! the learner's check on complete labellings stays the judge of (C5). Knows nothing about
//! games.

/// A literal as the learner writes it: `2 * var` is "var is true", `2 * var + 1` "var is
/// false" (the learner builds on this module, so it is not imported from there).
pub type Lit = u32;

/// The literal "var is true".
fn truth(var: usize) -> Lit {
    (var as Lit) << 1
}

/// An atom: `var` is true only when some support derives it (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The variable.
    pub var: usize,
    /// `(guard, from)`: derived when `guard` holds and `from` (an atom index) is derived,
    /// or `from` is `None`.
    pub supports: Vec<(Lit, Option<u32>)>,
}

const NONE: u32 = u32::MAX;
/// A variable's value, as the learner stores them: open.
pub const UNKNOWN: u8 = 0;
/// True.
pub const TRUE: u8 = 1;
/// False.
pub const FALSE: u8 = 2;

/// The value of literal `l` under the values `val` (by variable).
#[inline]
pub fn value(val: &[u8], l: Lit) -> u8 {
    let v = val[(l >> 1) as usize];
    if v == UNKNOWN {
        UNKNOWN
    } else if (v == TRUE) == (l & 1 == 0) {
        TRUE
    } else {
        FALSE
    }
}

/// The sources of every atom and what to look at again; see the module documentation.
pub struct Grounding {
    atoms: Vec<Atom>,
    /// By variable: its atom, or [`NONE`].
    atom_of: Vec<u32>,
    /// By atom: the index of its source among its supports, or [`NONE`].
    source: Vec<u32>,
    /// By literal `x`: the `(atom, support)` pairs whose guard `x` makes false.
    falls_with: Vec<Vec<(u32, u32)>>,
    /// By atom `g`: the `(atom, support)` pairs whose support is from `g`.
    dependents: Vec<Vec<(u32, u32)>>,
    /// Atoms whose source was unset since the last check.
    fallen: Vec<u32>,
    /// Atoms without a source whose variable was unassigned since the last check.
    again: Vec<u32>,
    /// Scratch marks, by atom.
    mark: Vec<u32>,
    stamp: u32,
}

/// One unfounded set: its atoms' variables, and for each support from outside it the false
/// literal that closes it (its guard, or its atom's variable).
pub struct Unfounded {
    pub atoms: Vec<usize>,
    pub outside: Vec<Lit>,
}

impl Grounding {
    /// The grounding of `atoms` over `vars` variables; every atom starts without a source
    /// (the first check finds them).
    pub fn new(atoms: Vec<Atom>, vars: usize) -> Grounding {
        let n = atoms.len();
        let mut atom_of = vec![NONE; vars];
        let mut falls_with = vec![Vec::new(); if n == 0 { 0 } else { 2 * vars }];
        let mut dependents = vec![Vec::new(); n];
        for (a, atom) in atoms.iter().enumerate() {
            atom_of[atom.var] = a as u32;
            for (k, &(guard, from)) in atom.supports.iter().enumerate() {
                falls_with[(guard ^ 1) as usize].push((a as u32, k as u32));
                if let Some(g) = from {
                    dependents[g as usize].push((a as u32, k as u32));
                }
            }
        }
        Grounding {
            atom_of,
            source: vec![NONE; n],
            falls_with,
            dependents,
            fallen: Vec::new(),
            again: (0..n as u32).collect(),
            mark: vec![0; n],
            stamp: 0,
            atoms,
        }
    }

    /// Whether there are atoms at all.
    pub fn is_empty(&self) -> bool {
        self.atoms.is_empty()
    }

    /// Bytes this grounding holds (for the learner's memory charge).
    pub fn bytes(&self) -> u64 {
        let supports: usize = self.atoms.iter().map(|a| a.supports.len()).sum();
        (self.atom_of.len() * 4 + self.atoms.len() * 64 + supports * 32) as u64
    }

    /// A new variable (no atom).
    pub fn add_var(&mut self) {
        self.atom_of.push(NONE);
        if !self.atoms.is_empty() {
            self.falls_with.push(Vec::new());
            self.falls_with.push(Vec::new());
        }
    }

    /// Literal `x` was set true: the sources whose guard it makes false are unset, and so
    /// is the source of an atom it makes false (what was derived from that atom is
    /// unset at the next check).
    pub fn assigned(&mut self, x: Lit) {
        let Some(list) = self.falls_with.get(x as usize) else {
            return;
        };
        let a = self.atom_of[(x >> 1) as usize];
        if x & 1 == 1 && a != NONE && self.source[a as usize] != NONE {
            self.source[a as usize] = NONE;
            self.fallen.push(a);
        }
        for &(a, k) in list {
            if self.source[a as usize] == k {
                self.source[a as usize] = NONE;
                self.fallen.push(a);
            }
        }
    }

    /// Variable `v` was unassigned: an atom of it without a source is looked at again.
    pub fn unassigned(&mut self, v: usize) {
        let a = self.atom_of[v];
        if a != NONE && self.source[a as usize] == NONE {
            self.again.push(a);
        }
    }

    /// At a propagation fixpoint under the values `val` (by variable: 0 open, 1 true, 2
    /// false): gives every atom it can a source, and answers the unfounded sets left.
    pub fn unfounded(&mut self, val: &[u8]) -> Vec<Unfounded> {
        if self.fallen.is_empty() && self.again.is_empty() {
            return Vec::new();
        }
        // 1. Whatever was derived through a fallen atom has lost its source too.
        let mut cand = std::mem::take(&mut self.fallen);
        let mut i = 0;
        while i < cand.len() {
            let g = cand[i] as usize;
            i += 1;
            for &(c, k) in &self.dependents[g] {
                if self.source[c as usize] == k {
                    self.source[c as usize] = NONE;
                    cand.push(c);
                }
            }
        }
        cand.append(&mut self.again);
        // 2. New sources, from supports whose atom has one (so no cycle is closed: no
        // atom with a source is derived through one without).
        let mut work = cand.clone();
        while let Some(c) = work.pop() {
            let cu = c as usize;
            if self.source[cu] != NONE || val[self.atoms[cu].var] == FALSE {
                continue;
            }
            let found = self.atoms[cu].supports.iter().position(|&(guard, from)| {
                value(val, guard) != FALSE
                    && from.is_none_or(|g| {
                        self.source[g as usize] != NONE && val[self.atoms[g as usize].var] != FALSE
                    })
            });
            if let Some(k) = found {
                self.source[cu] = k as u32;
                for &(d, _) in &self.dependents[cu] {
                    if self.source[d as usize] == NONE {
                        work.push(d);
                    }
                }
            }
        }
        // 3. What is left without a source and not false: unfounded, in connected sets.
        self.stamp = self.stamp.wrapping_add(2);
        if self.stamp < 2 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 2;
        }
        let open = self.stamp; // an unfounded atom not yet put in a set
        let taken = self.stamp + 1; // in a set already
        for &c in &cand {
            let cu = c as usize;
            if self.source[cu] == NONE && val[self.atoms[cu].var] != FALSE {
                self.mark[cu] = open;
            }
        }
        let mut out = Vec::new();
        for &c in &cand {
            if self.mark[c as usize] != open {
                continue;
            }
            self.mark[c as usize] = taken;
            let mut set = vec![c as usize];
            let mut j = 0;
            while j < set.len() {
                let x = set[j];
                j += 1;
                let from = self.atoms[x].supports.iter().filter_map(|&(_, f)| f);
                let to = self.dependents[x].iter().map(|&(d, _)| d);
                for y in from.chain(to) {
                    if self.mark[y as usize] == open {
                        self.mark[y as usize] = taken;
                        set.push(y as usize);
                    }
                }
            }
            // No support joins two sets (a support from an unfounded atom joins it), so the
            // atoms marked `taken` that support one of this set are in this set.
            let inside = |y: u32| self.mark[y as usize] == taken;
            let mut outside: Vec<Lit> = Vec::new();
            let mut sound = true;
            for &x in &set {
                for &(guard, from) in &self.atoms[x].supports {
                    if from.is_some_and(inside) {
                        continue;
                    }
                    // The support is closed by its guard, or else by its atom being false.
                    let closed = match from {
                        _ if value(val, guard) == FALSE => Some(guard),
                        Some(g) if val[self.atoms[g as usize].var] == FALSE => {
                            Some(truth(self.atoms[g as usize].var))
                        }
                        _ => None,
                    };
                    match closed {
                        Some(l) => outside.push(l),
                        None => sound = false,
                    }
                }
            }
            if !sound {
                // Not a nogood that holds now: looked at again at the next check (the
                // learner's check of complete labellings covers it meanwhile).
                self.again.extend(set.iter().map(|&x| x as u32));
                continue;
            }
            outside.sort_unstable();
            outside.dedup();
            // Looked at again at the next check, in case a conflict stops the learner
            // before it has set them all false (then they are open, or false and skipped).
            self.again.extend(set.iter().map(|&x| x as u32));
            out.push(Unfounded {
                atoms: set.into_iter().map(|x| self.atoms[x].var).collect(),
                outside,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(v: &[u8]) -> Vec<u8> {
        v.to_vec()
    }

    /// Worked by hand: atom a (variable 0) is derived by guard x (variable 2) alone or by
    /// guard y (variable 3) from atom b (variable 1), which is derived by guard z
    /// (variable 4) from a. With x open, both have sources. Once x is false, {a, b} is
    /// one unfounded set whose only outside support is x: both atoms are to be set false
    /// with the nogood "not a (or b), or x". With x open again (backtracking), the first
    /// check finds them sources again: nothing is unfounded.
    #[test]
    fn a_loop_without_its_way_in_is_unfounded() {
        let (x, y, z) = (truth(2), truth(3), truth(4));
        let atoms = vec![
            Atom {
                var: 0,
                supports: vec![(x, None), (y, Some(1))],
            },
            Atom {
                var: 1,
                supports: vec![(z, Some(0))],
            },
        ];
        let mut g = Grounding::new(atoms, 5);
        assert!(g.unfounded(&vals(&[0, 0, 0, 0, 0])).is_empty());
        // x false: its falsity is assigned as the literal "not x".
        g.assigned(x ^ 1);
        let sets = g.unfounded(&vals(&[0, 0, FALSE, 0, 0]));
        assert_eq!(sets.len(), 1);
        let mut atoms = sets[0].atoms.clone();
        atoms.sort();
        assert_eq!(atoms, vec![0, 1]);
        assert_eq!(sets[0].outside, vec![x]);
        // Backtracked: x open again, a and b unassigned (they were never set here).
        g.unassigned(2);
        g.unassigned(0);
        g.unassigned(1);
        assert!(g.unfounded(&vals(&[0, 0, 0, 0, 0])).is_empty());
        // With y false instead, b loses its way too but a keeps x: nothing unfounded.
        g.assigned(y ^ 1);
        assert!(g.unfounded(&vals(&[0, 0, 0, FALSE, 0])).is_empty());
    }

    /// An atom already false is never reported, and a set whose outside guard is open
    /// (the caller's values not at a fixpoint) is not reported either: no nogood that
    /// does not hold now.
    #[test]
    fn false_atoms_and_open_ways_in_are_not_reported() {
        let x = truth(1);
        let atoms = vec![Atom {
            var: 0,
            supports: vec![(x, None)],
        }];
        let mut g = Grounding::new(atoms.clone(), 2);
        g.assigned(x ^ 1);
        assert!(g.unfounded(&vals(&[FALSE, FALSE])).is_empty());
        let mut g = Grounding::new(atoms, 2);
        assert!(g.unfounded(&vals(&[0, FALSE])).len() == 1);
    }
}
