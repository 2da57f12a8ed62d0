//! The deflection graph of a universe in linear space: `next(p)`, the target of player
//! p's `deflect` (a functional graph: at most one edge out of each player), with its
//! cycles and the forest of paths that run into them.
//!
//! A slot declared at p can end at any player of `reach(p)`: the path p, next(p), ...
//! until it repeats (every processing order of every set of active deflections moves a
//! slot along that path). The path is never stored: [`Deflections::reach`] walks it,
//! [`Deflections::upstream`] walks the players whose path passes a given one, and
//! [`Deflections::reaches`] answers "is q on p's path" in constant time from an Euler
//! tour of the forest (each tree hangs from a player without a deflection, or from a
//! member of a cycle).
//!
//! Invariants: everything here is built in time and space linear in the players; no walk
//! recurses; `reach(p)` yields p first and each player at most once, in path order.

use super::model::Player;

const NONE: u32 = u32::MAX;

/// The deflection graph `p -> next(p)` with its cycles and Euler tour (see the module
/// documentation).
#[derive(Clone, Debug, Default)]
pub struct Deflections {
    next: Vec<u32>,
    /// The cycle each player is on (`NONE` off cycles).
    cycle_of: Vec<u32>,
    /// Members of each cycle in deflection order (a player deflecting to itself is a
    /// cycle of one).
    cycles: Vec<Vec<Player>>,
    /// Players whose deflection targets p (`prev[p]`), as one flat list with offsets.
    prev_at: Vec<u32>,
    prev: Vec<Player>,
    /// The root of each player's tree: the first player of its path that has no
    /// deflection or is on a cycle.
    root: Vec<u32>,
    /// Euler tour of the forest (edges q -> next(q) off cycles, read backwards): p's
    /// subtree is the players q with `tin[p] <= tin[q] < tout[p]`.
    tin: Vec<u32>,
    tout: Vec<u32>,
}

impl Deflections {
    /// The graph of `next` (one entry per player), built in linear time.
    pub fn new(next: Vec<Option<Player>>) -> Deflections {
        let np = next.len();
        let next: Vec<u32> = next.into_iter().map(|t| t.unwrap_or(NONE)).collect();
        // Cycles: walk each path once (1: on the current walk, 2: done).
        let mut state = vec![0u8; np];
        let mut cycle_of = vec![NONE; np];
        let mut cycles: Vec<Vec<Player>> = Vec::new();
        let mut walk: Vec<usize> = Vec::new();
        for start in 0..np {
            if state[start] != 0 {
                continue;
            }
            walk.clear();
            let mut p = start;
            loop {
                if state[p] == 1 {
                    let at = walk
                        .iter()
                        .rposition(|&q| q == p)
                        .expect("p is on the walk");
                    for &q in &walk[at..] {
                        cycle_of[q] = cycles.len() as u32;
                    }
                    cycles.push(walk[at..].iter().map(|&q| q as Player).collect());
                    break;
                }
                if state[p] == 2 {
                    break;
                }
                state[p] = 1;
                walk.push(p);
                match next[p] {
                    NONE => break,
                    q => p = q as usize,
                }
            }
            for &q in &walk {
                state[q] = 2;
            }
        }
        // Reverse edges, flat (counting sort by target).
        let mut prev_at = vec![0u32; np + 1];
        for &t in &next {
            if t != NONE {
                prev_at[t as usize + 1] += 1;
            }
        }
        for p in 0..np {
            prev_at[p + 1] += prev_at[p];
        }
        let mut fill = prev_at.clone();
        let mut prev = vec![0; prev_at[np] as usize];
        for (q, &t) in next.iter().enumerate() {
            if t != NONE {
                prev[fill[t as usize] as usize] = q as Player;
                fill[t as usize] += 1;
            }
        }
        let mut d = Deflections {
            next,
            cycle_of,
            cycles,
            prev_at,
            prev,
            root: vec![NONE; np],
            tin: vec![0; np],
            tout: vec![0; np],
        };
        // Euler tour from every root, iteratively; children are the players deflecting
        // to a node that are not on a cycle.
        let mut clock = 0u32;
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for r in 0..np {
            let is_root = d.next[r] == NONE || d.cycle_of[r] != NONE;
            if !is_root {
                continue;
            }
            d.root[r] = r as u32;
            d.tin[r] = clock;
            clock += 1;
            stack.push((r as u32, d.prev_at[r]));
            while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                let end = d.prev_at[v as usize + 1];
                let mut child = None;
                while *k < end {
                    let c = d.prev[*k as usize];
                    *k += 1;
                    if d.cycle_of[c as usize] == NONE {
                        child = Some(c);
                        break;
                    }
                }
                match child {
                    Some(c) => {
                        d.root[c as usize] = r as u32;
                        d.tin[c as usize] = clock;
                        clock += 1;
                        stack.push((c, d.prev_at[c as usize]));
                    }
                    None => {
                        d.tout[v as usize] = clock;
                        stack.pop();
                    }
                }
            }
        }
        d
    }

    /// Estimated bytes held (for memory charges): a few words per player.
    pub fn bytes(&self) -> u64 {
        let words = 6 * self.next.len() + self.prev.len() + self.cycles.len() * 6;
        4 * words as u64 + 64
    }

    /// The graph of a universe's players with no deflection at all.
    pub fn none(players: usize) -> Deflections {
        Deflections::new(vec![None; players])
    }

    /// Number of players.
    pub fn len(&self) -> usize {
        self.next.len()
    }

    /// Whether there are no players.
    pub fn is_empty(&self) -> bool {
        self.next.is_empty()
    }

    /// The target of p's deflection, if p has one.
    pub fn next(&self, p: Player) -> Option<Player> {
        match self.next[p as usize] {
            NONE => None,
            q => Some(q),
        }
    }

    /// Whether a slot that reaches p stops there, given which players' deflections are
    /// active (`on`) and which members of cycles of two or more are processed last
    /// (`last`): p's deflection is inactive, or targets p itself, or p's cycle is wholly
    /// active and p is processed last (`docs/redirection.md`).
    pub fn stops_at(
        &self,
        p: Player,
        on: impl Fn(Player) -> bool,
        last: impl Fn(Player) -> bool,
    ) -> bool {
        // A self-deflection moves nothing, active or not: its success is not asked.
        if self.next(p) == Some(p) || !on(p) {
            return true;
        }
        match self.cycle_of(p) {
            Some(c) => last(p) && self.cycles[c].iter().all(|&q| on(q)),
            None => false,
        }
    }

    /// Where a slot declared at `start` ends: the first player of its path at which
    /// `stops` holds. It must hold somewhere on the path (as [`Deflections::stops_at`]
    /// does when each wholly active cycle has a member processed last).
    ///
    /// # Panics
    /// If `stops` holds nowhere on the path (a caller bug).
    pub fn end_of(&self, start: Player, mut stops: impl FnMut(Player) -> bool) -> Player {
        let mut p = start;
        for _ in 0..=self.len() {
            if stops(p) {
                return p;
            }
            p = self.next(p).expect("a player whose slot moves on deflects");
        }
        panic!("bug in gordian: a slot's path has no player where it stops")
    }

    /// [`Deflections::end_of`] for many starts under one `stops`: every player a walk
    /// passes has its end remembered in `memo`, so that each player is walked once (a
    /// chain of n deflections costs n steps for all its slots, not n squared).
    pub fn end_of_memo(
        &self,
        start: Player,
        mut stops: impl FnMut(Player) -> bool,
        memo: &mut std::collections::HashMap<Player, Player>,
    ) -> Player {
        let mut walk = Vec::new();
        let mut p = start;
        let end = loop {
            if let Some(&e) = memo.get(&p) {
                break e;
            }
            if stops(p) {
                break p;
            }
            assert!(
                walk.len() <= self.len(),
                "bug in gordian: a slot's path has no player where it stops"
            );
            walk.push(p);
            p = self.next(p).expect("a player whose slot moves on deflects");
        };
        memo.insert(p, end);
        for q in walk {
            memo.insert(q, end);
        }
        end
    }

    /// Whether a slot at p can be moved: p deflects to someone else.
    pub fn moves(&self, p: Player) -> bool {
        self.next(p).is_some_and(|q| q != p)
    }

    /// The cycle p is on (an index into [`Deflections::cycles`]), if any.
    pub fn cycle_of(&self, p: Player) -> Option<usize> {
        match self.cycle_of[p as usize] {
            NONE => None,
            c => Some(c as usize),
        }
    }

    /// The cycles of the graph, members in deflection order (a self-deflection is a
    /// cycle of one).
    pub fn cycles(&self) -> &[Vec<Player>] {
        &self.cycles
    }

    /// The players a slot declared at p can end at: p, next(p), ... until the path
    /// repeats (p first, each once, in path order).
    pub fn reach(&self, p: Player) -> Reach<'_> {
        Reach {
            d: self,
            cur: Some(p),
            entry: None,
        }
    }

    /// Whether `q` is on p's path (`reach(p)` holds q), in constant time.
    pub fn reaches(&self, p: Player, q: Player) -> bool {
        let (p, q) = (p as usize, q as usize);
        match self.cycle_of[q] {
            NONE => self.tin[q] <= self.tin[p] && self.tin[p] < self.tout[q],
            c => self.cycle_of[self.root[p] as usize] == c,
        }
    }

    /// The players whose path passes q (those p with q in `reach(p)`; q among them),
    /// each once: q's tree, and when q is on a cycle, the whole cycle with its trees.
    /// Linear in what it yields.
    pub fn upstream(&self, q: Player, mut each: impl FnMut(Player)) {
        let mut stack: Vec<Player> = match self.cycle_of(q) {
            Some(c) => self.cycles[c].clone(),
            None => vec![q],
        };
        while let Some(v) = stack.pop() {
            each(v);
            let (a, b) = (self.prev_at[v as usize], self.prev_at[v as usize + 1]);
            for &c in &self.prev[a as usize..b as usize] {
                if self.cycle_of[c as usize] == NONE {
                    stack.push(c);
                }
            }
        }
    }

    /// Whether p's path ends in a cycle (which one), rather than at a player without a
    /// deflection.
    pub fn ends_in_cycle(&self, p: Player) -> Option<usize> {
        self.cycle_of(self.root[p as usize])
    }

    /// For each player, the first player of its path, off cycles, that `marked` holds
    /// (see [`Deflections::marked_on_reach`]).
    pub fn first_marked(&self, marked: &[bool]) -> Vec<Option<Player>> {
        let np = self.len();
        let mut first = vec![None; np];
        // Parents (next) come before children in the Euler tour's order.
        let mut order = vec![0 as Player; np];
        for p in 0..np {
            order[self.tin[p] as usize] = p as Player;
        }
        for p in order {
            let pu = p as usize;
            if self.cycle_of[pu] != NONE {
                continue;
            }
            first[pu] = if marked[pu] {
                Some(p)
            } else {
                match self.next[pu] {
                    NONE => None,
                    q if self.cycle_of[q as usize] != NONE => None,
                    q => first[q as usize],
                }
            };
        }
        first
    }

    /// The players of `reach(p)` that `marked` holds, with `first` from
    /// [`Deflections::first_marked`] and `on_cycle` the marked members of each cycle:
    /// linear in what it yields.
    pub fn marked_on_reach(
        &self,
        p: Player,
        first: &[Option<Player>],
        on_cycle: &[Vec<Player>],
        mut each: impl FnMut(Player),
    ) {
        let mut q = first[p as usize];
        while let Some(x) = q {
            each(x);
            q = match self.next[x as usize] {
                NONE => None,
                y => first[y as usize],
            };
        }
        if let Some(c) = self.ends_in_cycle(p) {
            on_cycle[c].iter().copied().for_each(each);
        }
    }
}

/// The path of a slot through the deflections: see [`Deflections::reach`].
pub struct Reach<'d> {
    d: &'d Deflections,
    cur: Option<Player>,
    /// The first member of a cycle met (the path stops when it comes back to it).
    entry: Option<Player>,
}

impl Iterator for Reach<'_> {
    type Item = Player;

    fn next(&mut self) -> Option<Player> {
        let c = self.cur?;
        if self.entry.is_none() && self.d.cycle_of[c as usize] != NONE {
            self.entry = Some(c);
        }
        self.cur = self.d.next(c).filter(|&n| Some(n) != self.entry);
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path by the definition: follow `next` until a player repeats.
    fn naive(next: &[Option<Player>], p: Player) -> Vec<Player> {
        let mut seen = vec![p];
        let mut cur = p;
        while let Some(n) = next[cur as usize] {
            if seen.contains(&n) {
                break;
            }
            seen.push(n);
            cur = n;
        }
        seen
    }

    #[test]
    fn reach_upstream_and_membership_agree_with_the_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let np = rng.gen_range(1..12);
            let next: Vec<Option<Player>> = (0..np)
                .map(|_| rng.gen_bool(0.6).then(|| rng.gen_range(0..np) as Player))
                .collect();
            let d = Deflections::new(next.clone());
            for p in 0..np as Player {
                let want = naive(&next, p);
                assert_eq!(d.reach(p).collect::<Vec<_>>(), want, "{next:?} from {p}");
                for q in 0..np as Player {
                    assert_eq!(d.reaches(p, q), want.contains(&q), "{next:?}: {p} -> {q}");
                }
                let mut up = Vec::new();
                d.upstream(p, |x| up.push(x));
                up.sort_unstable();
                let want_up: Vec<Player> = (0..np as Player)
                    .filter(|&x| naive(&next, x).contains(&p))
                    .collect();
                assert_eq!(up, want_up, "{next:?}: upstream of {p}");
                let marked: Vec<bool> = (0..np).map(|x| x % 3 == 1).collect();
                let first = d.first_marked(&marked);
                let on_cycle: Vec<Vec<Player>> = d
                    .cycles()
                    .iter()
                    .map(|c| c.iter().copied().filter(|&x| marked[x as usize]).collect())
                    .collect();
                let mut got = Vec::new();
                d.marked_on_reach(p, &first, &on_cycle, |x| got.push(x));
                got.sort_unstable();
                let mut want_m: Vec<Player> = want
                    .iter()
                    .copied()
                    .filter(|&x| marked[x as usize])
                    .collect();
                want_m.sort_unstable();
                assert_eq!(got, want_m, "{next:?}: marked on the path of {p}");
            }
        }
    }
}
