//! The SAT engine: one round as a bounded run on varisat, and the decoding of models into
//! side orders and Action-phase outcomes (the simulator is never called).
//!
//! # Movement phase
//! `T = sides + (sides that may postpone)` steps. State per step and side: `moved`,
//! `pp` (SidSeq -1) and `used` (has postponed this round); status 0 is `!moved & !pp`.
//! Each step not yet done selects one status-0 side `sel` whose initiative (a one-hot
//! over `d6 + mod` for `ini roll`) is not below any status-0 side's: the sequential
//! tie-break dice select each tied maximum with positive probability (the fairness check
//! proves exactly 1/k), so "some tied maximum" is their support. The selected side
//! postpones (`pe`) only if it has not yet, its policy allows it and another status-0
//! side exists (forced for `postpone yes`); otherwise it moves, and every `pp` clears.
//! Projection: `before[i][j]` (side i moved before side j), from which the order decodes.
//!
//! # Action phase
//! `n` segments, each unrolled as the seed's poll loop: a bounded number of *poll steps*
//! (see `poll_steps`: without modDX adjustments one per unacted figure; with them, a
//! figure is re-zeroed only when its pick strictly lowers its modDX, so it picks at most
//! 1 + (distinct modDX values of its set) times), then the Watch re-query. State carried
//! between steps and segments: `una` (unacted), each figure's current modDX (one-hot over
//! its possible values), FigSeq as `sq` (sequenced) and the strict order `lt[a][b]` (a's
//! FigSeq is lower; only for pairs that may tie on modDX or may both watch), `waited`.
//! Per step: `pol[f]` (the polled figure: the highest current modDX among the
//! undeclared; on a tie with a sequenced figure the lowest FigSeq; among unsequenced tied
//! figures any — the support of the fair dice), its pick (one-hot), re-zeroing (a pick
//! that is not act-at-once and lowers its modDX below an undeclared figure's: FigSeq
//! cleared, still undeclared), or a standing declaration: act-at-once stops the poll;
//! Watch marks a watcher; dice supervene the dibFig (held as figure and dice) with more
//! dice, or equal dice and a strictly higher modDX. A newly sequenced figure comes after
//! every sequenced one in `lt`. The re-query: each watcher's pick (one-hot); the winner is
//! an act-at-once pick or strictly more dice than the dibFig, highest first, ties to the
//! lower FigSeq; watchers reached before an act-at-once one take their pick's modDX.
//! The segment's winner: the act-at-once figure, else the re-query winner, else the
//! dibFig; none ends the round.
//!
//! Projection: the winners `win[s][f]` and the waited flags of winners.
//!
//! Invariants: the encoding never depends on the simulator; every projected model decodes
//! to one outcome and distinct outcomes have distinct projections.

// Index loops over (figure, figure) pairs read closer to the encoding's definitions.
#![allow(clippy::needless_range_loop)]

use super::model::{Acted, ActionOutcome, Answer, Dib, Postpone, Scenario, SideOrder};
use super::search::Query;
use super::simulate::{self, Choice, Driver, Event};
use crate::sat::{enumerate_projected, EnumerationEnd, Inputs, Lit, SatResult, Solver};
use crate::systems::spec::{Budget, Charged, Interrupted};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// The Movement phase encoded.
pub struct SideEnc {
    /// The solver holding it.
    pub solver: Solver,
    /// `before[i][j]`: side i moved before side j (i != j).
    pub before: Vec<Vec<Lit>>,
    /// Named variables for DIMACS comments.
    pub names: Vec<(Lit, String)>,
}

fn one_hot(s: &mut Solver, lits: &[Lit]) {
    s.add_clause(lits);
    for i in 0..lits.len() {
        for j in i + 1..lits.len() {
            s.add_clause(&[!lits[i], !lits[j]]);
        }
    }
}

/// `out <-> a | b` as a fresh literal.
fn or2(s: &mut Solver, a: Lit, b: Lit) -> Lit {
    s.or(&[a, b])
}

/// Encodes the Movement phase.
pub fn encode_sides(sc: &Scenario) -> SideEnc {
    let mut s = Solver::new();
    let t = s.true_lit();
    let f = s.false_lit();
    let n = sc.sides.len();
    let mut names = Vec::new();
    // Initiative values: one-hot per side.
    let vals: Vec<Vec<(i32, Lit)>> = sc
        .sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            let vs = side.ini.values();
            if vs.len() == 1 {
                vec![(vs[0], t)]
            } else {
                let lits: Vec<Lit> = vs.iter().map(|_| s.new_lit()).collect();
                one_hot(&mut s, &lits);
                for (v, l) in vs.iter().zip(&lits) {
                    names.push((*l, format!("ini[{}]={v}", sc.sides[i].name)));
                }
                vs.into_iter().zip(lits).collect()
            }
        })
        .collect();
    let steps = n + sc
        .sides
        .iter()
        .filter(|x| x.postpone != Postpone::No)
        .count();
    let mut moved = vec![f; n];
    let mut pp = vec![f; n];
    let mut used = vec![f; n];
    let mut mv_hist: Vec<Vec<Lit>> = Vec::new();
    let mut moved_hist: Vec<Vec<Lit>> = Vec::new();
    for step in 0..steps {
        let st0: Vec<Lit> = (0..n).map(|i| s.and(&[!moved[i], !pp[i]])).collect();
        let done = s.and(&moved);
        let sel: Vec<Lit> = (0..n).map(|_| s.new_lit()).collect();
        for i in 0..n {
            names.push((sel[i], format!("sel[{step}][{}]", sc.sides[i].name)));
            s.implies_clause(&[sel[i]], &[st0[i]]);
            for j in 0..n {
                if i == j {
                    continue;
                }
                for &(a, la) in &vals[i] {
                    for &(b, lb) in &vals[j] {
                        if b > a {
                            s.add_clause(&[!sel[i], !st0[j], !la, !lb]);
                        }
                    }
                }
            }
        }
        let mut some = sel.clone();
        some.push(done);
        s.add_clause(&some);
        for i in 0..n {
            s.add_clause(&[!done, !sel[i]]);
            for j in i + 1..n {
                s.add_clause(&[!sel[i], !sel[j]]);
            }
        }
        let pe: Vec<Lit> = (0..n).map(|_| s.new_lit()).collect();
        for i in 0..n {
            s.implies_clause(&[pe[i]], &[sel[i]]);
            s.implies_clause(&[pe[i]], &[!used[i]]);
            let others: Vec<Lit> = (0..n).filter(|&j| j != i).map(|j| st0[j]).collect();
            let mut c = vec![!pe[i]];
            c.extend(&others);
            s.add_clause(&c);
            match sc.sides[i].postpone {
                Postpone::No => s.add_clause(&[!pe[i]]),
                Postpone::Yes => {
                    for &o in &others {
                        s.add_clause(&[!sel[i], used[i], !o, pe[i]]);
                    }
                }
                Postpone::Maybe => {}
            }
        }
        let mv: Vec<Lit> = (0..n).map(|i| s.and(&[sel[i], !pe[i]])).collect();
        let any_move = s.or(&mv);
        moved_hist.push(moved.clone());
        moved = (0..n).map(|i| or2(&mut s, moved[i], mv[i])).collect();
        used = (0..n).map(|i| or2(&mut s, used[i], pe[i])).collect();
        pp = (0..n)
            .map(|i| {
                let p = or2(&mut s, pp[i], pe[i]);
                s.and(&[p, !any_move])
            })
            .collect();
        mv_hist.push(mv);
    }
    for &m in &moved {
        s.add_clause(&[m]);
    }
    let mut before = vec![vec![f; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            let ways: Vec<Lit> = (0..steps)
                .map(|st| s.and(&[mv_hist[st][i], !moved_hist[st][j]]))
                .collect();
            before[i][j] = s.or(&ways);
            names.push((
                before[i][j],
                format!("before[{}][{}]", sc.sides[i].name, sc.sides[j].name),
            ));
        }
    }
    SideEnc {
        solver: s,
        before,
        names,
    }
}

/// The Action phase encoded.
pub struct ActionEnc {
    /// The solver holding it.
    pub solver: Solver,
    /// `win[s][f]`: figure f acts in segment s.
    pub win: Vec<Vec<Lit>>,
    /// `waited[f]`: f acted, having declared Watch in an earlier poll.
    pub waited: Vec<Lit>,
    /// `pol[s][t][f]`: poll step t of segment s polls figure f.
    pub pol: Vec<Vec<Vec<Lit>>>,
    /// `pick[s][t][f][c]`: at that step f picks choice c of its set (meaningful when
    /// `pol[s][t][f]`; choice 0 otherwise).
    pub pick: Vec<Vec<Vec<Vec<Lit>>>>,
    /// `requery[s][f][c]`: f picks choice c when re-queried in segment s.
    pub requery: Vec<Vec<Vec<Lit>>>,
    /// Named variables for DIMACS comments.
    pub names: Vec<(Lit, String)>,
}

/// Constant-folding gates over the solver (the true/false literals are known).
struct Gates {
    s: Solver,
    t: Lit,
}

impl Gates {
    fn f(&self) -> Lit {
        !self.t
    }
    fn and(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_and(lits, Inputs::Dimacs)
    }
    fn or(&mut self, lits: &[Lit]) -> Lit {
        self.s.fold_or(lits, Inputs::Dimacs)
    }
    /// `c ? a : b`.
    fn mux(&mut self, c: Lit, a: Lit, b: Lit) -> Lit {
        if a == b {
            return a;
        }
        let x = self.and(&[c, a]);
        let y = self.and(&[!c, b]);
        self.or(&[x, y])
    }
    /// Adds a clause, dropping false literals; a clause with a true literal is skipped.
    fn clause(&mut self, lits: &[Lit]) {
        self.s.fold_clause(lits)
    }
    fn one_hot(&mut self, lits: &[Lit]) {
        one_hot(&mut self.s, lits);
    }
    /// Value of one-hot `a` > value of one-hot `b`.
    fn gt(&mut self, a: &[(i32, Lit)], b: &[(i32, Lit)]) -> Lit {
        let mut ways = Vec::new();
        for &(va, la) in a {
            for &(vb, lb) in b {
                if va > vb {
                    ways.push(self.and(&[la, lb]));
                }
            }
        }
        self.or(&ways)
    }
}

/// A bound on the poll steps of segment `seg`: without modDX adjustments no figure is
/// ever re-zeroed (one poll each); otherwise a figure is re-zeroed only when its pick
/// lowers its modDX strictly below its modDX when polled, so its picks in a segment
/// strictly decrease until one stands: at most 1 + (distinct modDX values of its set).
/// Only `n - seg` figures are unacted in segment `seg` (one acts per segment), so the
/// largest `n - seg` of the per-figure bounds are summed.
fn poll_steps(sc: &Scenario, seg: usize) -> usize {
    let live = sc.figures.len().saturating_sub(seg);
    let adjusts = sc
        .figures
        .iter()
        .any(|f| f.plan.iter().flatten().any(|d| d.adj != 0));
    if !adjusts {
        return live;
    }
    let mut per: Vec<usize> = sc
        .figures
        .iter()
        .map(|f| {
            let mut v: Vec<i32> = f.choices(seg).iter().map(|&d| f.dx_of(d)).collect();
            v.sort_unstable();
            v.dedup();
            1 + v.len()
        })
        .collect();
    per.sort_unstable_by(|a, b| b.cmp(a));
    per.iter().take(live).sum()
}

/// Encodes the Action phase.
pub fn encode_actions(sc: &Scenario) -> ActionEnc {
    let s = Solver::new();
    let t = s.true_lit();
    let mut g = Gates { s, t };
    let f = g.f();
    let n = sc.figures.len();
    let mut names = Vec::new();
    let fname = |i: usize| sc.figures[i].name.as_str();
    // State between segments: unacted, round ended, waited, current modDX (one-hot over
    // the figure's possible values), FigSeq as "sequenced" and the strict order `lt`.
    let mut una = vec![t; n];
    let mut ended = f;
    let mut waited = vec![f; n];
    let mut dxv: Vec<Vec<(i32, Lit)>> = sc
        .figures
        .iter()
        .map(|fig| {
            fig.dx_values()
                .into_iter()
                .map(|v| (v, if v == fig.dx { t } else { f }))
                .collect()
        })
        .collect();
    let mut sq = vec![f; n];
    let mut lt = vec![vec![f; n]; n];
    // FigSeq order is read only between figures that may tie on modDX (nxtOrd()) or
    // may both be watchers (re-query order); other pairs keep the constant false.
    let can_watch: Vec<bool> = sc
        .figures
        .iter()
        .map(|fig| fig.plan.iter().flatten().any(|&d| sc.dib(d) == Dib::Watch))
        .collect();
    let values: Vec<Vec<i32>> = sc.figures.iter().map(|fig| fig.dx_values()).collect();
    let ordered: Vec<Vec<bool>> = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| {
                    a != b
                        && ((can_watch[a] && can_watch[b])
                            || values[a].iter().any(|v| values[b].contains(v)))
                })
                .collect()
        })
        .collect();
    let mut win_all = Vec::new();
    let mut waited_at_win: Vec<Vec<Lit>> = vec![Vec::new(); n];
    let (mut pol_all, mut pick_all, mut requery_all) = (Vec::new(), Vec::new(), Vec::new());
    // The choice lits of a set (one-hot; the constant true for a single choice), forced
    // to choice 0 when `used` is false.
    let choose = |g: &mut Gates,
                  names: &mut Vec<(Lit, String)>,
                  i: usize,
                  seg: usize,
                  used: Lit,
                  tag: &str| {
        let set = sc.figures[i].choices(seg);
        if set.len() == 1 {
            return vec![g.t];
        }
        let l: Vec<Lit> = set.iter().map(|_| g.s.new_lit()).collect();
        g.one_hot(&l);
        g.clause(&[used, l[0]]);
        for (c, lit) in set.iter().zip(&l) {
            names.push((*lit, format!("{tag}[{}]={c}", sc.figures[i].name)));
        }
        l
    };
    for seg in 0..n {
        let act: Vec<Lit> = (0..n).map(|i| g.and(&[una[i], !ended])).collect();
        let sets: Vec<&[crate::systems::foeman::model::Decl]> =
            (0..n).map(|i| sc.figures[i].choices(seg)).collect();
        let mut und = act.clone();
        let mut stop = f;
        let mut at_once = vec![f; n];
        let mut watcher = vec![f; n];
        let mut hold = vec![f; n];
        // hd[k]: the dibFig holds k dice (hd[0]: no dibFig).
        let mut hd = vec![f; 10];
        hd[0] = t;
        let mut pol_seg = Vec::new();
        let mut pick_seg = Vec::new();
        for step in 0..poll_steps(sc, seg) {
            let some = g.or(&und);
            let busy = g.and(&[some, !stop]);
            let pol: Vec<Lit> = (0..n)
                .map(|i| if und[i] == f { f } else { g.s.new_lit() })
                .collect();
            for i in 0..n {
                names.push((pol[i], format!("pol[{seg}][{step}][{}]", fname(i))));
                g.clause(&[!pol[i], und[i]]);
                g.clause(&[!pol[i], !stop]);
                for j in i + 1..n {
                    g.clause(&[!pol[i], !pol[j]]);
                }
            }
            let mut c = pol.clone();
            c.push(!busy);
            g.clause(&c);
            // nxtOrd(): the polled figure has the highest current modDX among the
            // undeclared; on a tie with a sequenced figure it has the lowest FigSeq; among
            // unsequenced tied figures the dice may note any (their support).
            for a in 0..n {
                for b in 0..n {
                    if a == b {
                        continue;
                    }
                    for &(va, la) in &dxv[a] {
                        for &(vb, lb) in &dxv[b] {
                            if vb > va {
                                g.clause(&[!pol[a], !und[b], !la, !lb]);
                            } else if vb == va {
                                g.clause(&[!pol[a], !und[b], !la, !lb, !sq[b], lt[a][b]]);
                            }
                        }
                    }
                }
            }
            // The pick of each figure (meaningful when polled), and what it leads to.
            let x: Vec<Vec<Lit>> = (0..n)
                .map(|i| {
                    choose(
                        &mut g,
                        &mut names,
                        i,
                        seg,
                        pol[i],
                        &format!("pick[{seg}][{step}]"),
                    )
                })
                .collect();
            let mut pk_at = vec![f; n];
            let mut x_w = vec![f; n];
            let mut x_d = vec![vec![f; 10]; n];
            let mut nv: Vec<Vec<(i32, Lit)>> = Vec::with_capacity(n);
            for i in 0..n {
                let (mut at, mut w) = (Vec::new(), Vec::new());
                let mut d: Vec<Vec<Lit>> = vec![Vec::new(); 10];
                for (c, decl) in sets[i].iter().enumerate() {
                    match sc.dib(*decl) {
                        Dib::AtOnce => at.push(x[i][c]),
                        Dib::Watch => w.push(x[i][c]),
                        Dib::Dice(k) => d[k as usize].push(x[i][c]),
                    }
                }
                let x_at = g.or(&at);
                pk_at[i] = g.and(&[pol[i], x_at]);
                x_w[i] = g.or(&w);
                for k in 1..10 {
                    x_d[i][k] = g.or(&d[k]);
                }
                let vals: Vec<(i32, Lit)> = dxv[i]
                    .iter()
                    .map(|&(v, _)| {
                        let ways: Vec<Lit> = sets[i]
                            .iter()
                            .enumerate()
                            .filter(|(_, &decl)| sc.figures[i].dx_of(decl) == v)
                            .map(|(c, _)| x[i][c])
                            .collect();
                        (v, g.or(&ways))
                    })
                    .collect();
                nv.push(vals);
            }
            // Re-zeroing: a non-act-at-once pick below some other undeclared figure.
            let mut rz = vec![f; n];
            let mut dec = vec![f; n];
            for i in 0..n {
                if pol[i] == f {
                    continue;
                }
                // A pick can re-zero only if some option lowers the modDX below a value
                // the figure may have now.
                let now_max = dxv[i]
                    .iter()
                    .filter(|(_, l)| *l != f)
                    .map(|(v, _)| *v)
                    .max();
                let lowest = sets[i].iter().map(|&d| sc.figures[i].dx_of(d)).min();
                if lowest >= now_max {
                    dec[i] = g.and(&[pol[i], !pk_at[i]]);
                    continue;
                }
                let mut above = Vec::new();
                for j in (0..n).filter(|&j| j != i) {
                    let gt = g.gt(&dxv[j], &nv[i]);
                    above.push(g.and(&[und[j], gt]));
                }
                let above = g.or(&above);
                let not_at = !pk_at[i];
                rz[i] = g.and(&[pol[i], not_at, above]);
                dec[i] = g.and(&[pol[i], not_at, !above]);
            }
            // Supervention: more dice, or equal dice and a strictly higher modDX (the
            // picked option's) than the dibFig's.
            let below: Vec<Lit> = (0..10).map(|k| g.or(&hd[..k])).collect();
            let mut better = vec![f; n];
            for i in 0..n {
                if dec[i] == f {
                    continue;
                }
                let mut hx = Vec::new();
                for j in (0..n).filter(|&j| j != i) {
                    let gt = g.gt(&nv[i], &dxv[j]);
                    hx.push(g.and(&[hold[j], gt]));
                }
                let higher = g.or(&hx);
                let mut ways = Vec::new();
                for k in 1..10 {
                    if x_d[i][k] == f {
                        continue;
                    }
                    let tie = g.and(&[hd[k], higher]);
                    let ok = g.or(&[below[k], tie]);
                    ways.push(g.and(&[x_d[i][k], ok]));
                }
                let w = g.or(&ways);
                better[i] = g.and(&[dec[i], w]);
            }
            let any_sup = g.or(&better);
            for i in 0..n {
                let keep = g.and(&[hold[i], !any_sup]);
                hold[i] = g.or(&[better[i], keep]);
            }
            let mut hd2 = vec![f; 10];
            hd2[0] = g.and(&[hd[0], !any_sup]);
            for (k, slot) in hd2.iter_mut().enumerate().skip(1) {
                let mut ways: Vec<Lit> = (0..n).map(|i| g.and(&[better[i], x_d[i][k]])).collect();
                ways.push(g.and(&[hd[k], !any_sup]));
                *slot = g.or(&ways);
            }
            hd = hd2;
            let mut st = pk_at.clone();
            st.push(stop);
            stop = g.or(&st);
            for i in 0..n {
                at_once[i] = g.or(&[at_once[i], pk_at[i]]);
                let stays = g.or(&[!pol[i], rz[i]]);
                und[i] = g.and(&[und[i], stays]);
                let w = g.and(&[dec[i], x_w[i]]);
                watcher[i] = g.or(&[watcher[i], w]);
                waited[i] = g.or(&[waited[i], w]);
                for (slot, &(_, nvl)) in dxv[i].iter_mut().zip(&nv[i]) {
                    slot.1 = g.mux(pol[i], nvl, slot.1);
                }
            }
            // FigSeq: a polled unsequenced figure is sequenced after every sequenced one;
            // a re-zeroed figure loses its FigSeq.
            let newseq: Vec<Lit> = (0..n).map(|i| g.and(&[pol[i], !sq[i], !rz[i]])).collect();
            let mut lt2 = vec![vec![f; n]; n];
            for a in 0..n {
                for b in 0..n {
                    if a != b && ordered[a][b] {
                        let fresh = g.and(&[newseq[b], sq[a]]);
                        let o = g.or(&[lt[a][b], fresh]);
                        lt2[a][b] = g.and(&[!rz[a], !rz[b], o]);
                    }
                }
            }
            lt = lt2;
            for i in 0..n {
                let s1 = g.or(&[sq[i], pol[i]]);
                sq[i] = g.and(&[s1, !rz[i]]);
            }
            pol_seg.push(pol);
            pick_seg.push(x);
        }
        // The bound is enough: polling is over.
        let some = g.or(&und);
        let busy = g.and(&[some, !stop]);
        g.clause(&[!busy]);
        // Re-query: watchers in FigSeq order; strictly more dice than the dibFig, or an
        // act-at-once option (which stops the re-query).
        let below: Vec<Lit> = (0..10).map(|k| g.or(&hd[..k])).collect();
        let mut y_all = Vec::new();
        let mut cand = vec![vec![f; 11]; n];
        let mut y_at = vec![f; n];
        for i in 0..n {
            let rq = g.and(&[watcher[i], !stop]);
            let y = choose(&mut g, &mut names, i, seg, rq, &format!("requery[{seg}]"));
            let mut at = Vec::new();
            for (c, decl) in sets[i].iter().enumerate() {
                match sc.dib(*decl) {
                    Dib::AtOnce => at.push(y[c]),
                    Dib::Watch => {}
                    Dib::Dice(k) => {
                        let k = k as usize;
                        let l = g.and(&[rq, y[c], below[k]]);
                        cand[i][k] = g.or(&[cand[i][k], l]);
                    }
                }
            }
            let a = g.or(&at);
            y_at[i] = g.and(&[rq, a]);
            cand[i][10] = y_at[i];
            y_all.push(y);
        }
        let mut ge = [f; 12];
        for lvl in (1..=10).rev() {
            let mut l: Vec<Lit> = (0..n).map(|i| cand[i][lvl]).collect();
            l.push(ge[lvl + 1]);
            ge[lvl] = g.or(&l);
        }
        let top: Vec<Lit> = (0..n)
            .map(|i| {
                let ways: Vec<Lit> = (1..=10)
                    .map(|lvl| g.and(&[cand[i][lvl], !ge[lvl + 1]]))
                    .collect();
                g.or(&ways)
            })
            .collect();
        let rwin: Vec<Lit> = (0..n)
            .map(|i| {
                let mut conj = vec![top[i]];
                for j in (0..n).filter(|&j| j != i) {
                    conj.push(g.or(&[!top[j], lt[i][j]]));
                }
                g.and(&conj)
            })
            .collect();
        let any_rq = g.or(&rwin);
        // Re-queried watchers reached before an act-at-once one take their pick's modDX.
        for i in 0..n {
            let mut conj = vec![watcher[i], !stop];
            for j in (0..n).filter(|&j| j != i) {
                conj.push(g.or(&[!y_at[j], !lt[j][i]]));
            }
            let reached = g.and(&conj);
            let ny: Vec<Lit> = dxv[i]
                .iter()
                .map(|&(v, _)| {
                    let ways: Vec<Lit> = sets[i]
                        .iter()
                        .enumerate()
                        .filter(|(_, &decl)| sc.figures[i].dx_of(decl) == v)
                        .map(|(c, _)| y_all[i][c])
                        .collect();
                    g.or(&ways)
                })
                .collect();
            for (slot, nyl) in dxv[i].iter_mut().zip(ny) {
                slot.1 = g.mux(reached, nyl, slot.1);
            }
        }
        let win: Vec<Lit> = (0..n)
            .map(|i| {
                let held = g.and(&[!any_rq, hold[i]]);
                let later = g.or(&[rwin[i], held]);
                let later = g.and(&[!stop, later]);
                g.or(&[at_once[i], later])
            })
            .collect();
        for a in 0..n {
            names.push((win[a], format!("win[{seg}][{}]", fname(a))));
            let ww = g.and(&[win[a], waited[a]]);
            waited_at_win[a].push(ww);
        }
        let some_win = g.or(&win);
        ended = g.or(&[ended, !some_win]);
        una = (0..n).map(|a| g.and(&[una[a], !win[a]])).collect();
        win_all.push(win);
        pol_all.push(pol_seg);
        pick_all.push(pick_seg);
        requery_all.push(y_all);
    }
    let waited_lits: Vec<Lit> = (0..n)
        .map(|a| {
            let l = g.or(&waited_at_win[a]);
            names.push((l, format!("waited[{}]", fname(a))));
            l
        })
        .collect();
    ActionEnc {
        solver: g.s,
        win: win_all,
        waited: waited_lits,
        pol: pol_all,
        pick: pick_all,
        requery: requery_all,
        names,
    }
}

impl SideEnc {
    fn projection(&self) -> Vec<Lit> {
        let n = self.before.len();
        let mut p = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                p.push(self.before[i][j]);
            }
        }
        p
    }

    fn decode(n: usize, values: &[bool]) -> SideOrder {
        let mut b = vec![vec![false; n]; n];
        let mut k = 0;
        for i in 0..n {
            for j in i + 1..n {
                b[i][j] = values[k];
                b[j][i] = !values[k];
                k += 1;
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (0..n).filter(|&j| b[j][i]).count());
        order
    }
}

impl ActionEnc {
    fn projection(&self) -> Vec<Lit> {
        let mut p: Vec<Lit> = self.win.iter().flatten().copied().collect();
        p.extend(&self.waited);
        p
    }

    fn decode(n: usize, values: &[bool]) -> ActionOutcome {
        let mut order = Vec::new();
        for seg in 0..n {
            if let Some(f) = (0..n).find(|&f| values[seg * n + f]) {
                order.push(Acted {
                    figure: f,
                    waited: values[n * n + f],
                });
            }
        }
        let watching = (0..n)
            .filter(|f| !order.iter().any(|a| a.figure == *f))
            .collect();
        ActionOutcome { order, watching }
    }
}

/// Every projected model of `solver`, decoded; each model (its outcome of `words(o)`
/// words and its blocking clause) is charged to `budget` as `what`.
fn run_enum<T: Ord>(
    solver: &mut Solver,
    proj: &[Lit],
    budget: &Budget,
    what: &'static str,
    decode: impl Fn(&[bool]) -> T,
    words: impl Fn(&T) -> usize,
) -> Result<BTreeSet<T>, Interrupted> {
    solver.set_interrupt(budget.flag());
    let mut out = BTreeSet::new();
    let blocking = 8 * proj.len() as u64 + 40;
    let e = enumerate_projected(solver, proj, &[], None, |v| {
        let o = decode(v);
        let bytes = 96 + 8 * words(&o) as u64 + blocking;
        out.insert(o);
        if budget.charge(what, bytes).is_err() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    match e.end {
        EnumerationEnd::Complete => Ok(out),
        _ => Err(Interrupted),
    }
}

/// Every reachable side order and Action-phase outcome, by projected enumeration up to
/// the symmetry of interchangeable sides and figures ([`enumerate_with`]).
pub fn enumerate(sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
    enumerate_with(sc, budget, true)
}

/// Calls `each` with every relabelling of `n` items that sends, in each class, the first
/// `k` members (`k` = `acting(class)`) to distinct members of the class in every order, and
/// the class's other members to the class's remaining members in ascending order (they
/// are interchangeable where they stand: watchers, a set). `map[i]` is item `i`'s new
/// index; the identity is among them. Each relabelling is produced once, lazily.
fn relabel(
    n: usize,
    classes: &[Vec<usize>],
    acting: &dyn Fn(&[usize]) -> usize,
    each: &mut dyn FnMut(&[usize]) -> Result<(), Interrupted>,
) -> Result<(), Interrupted> {
    fn go(
        classes: &[Vec<usize>],
        acting: &dyn Fn(&[usize]) -> usize,
        map: &mut Vec<usize>,
        ci: usize,
        slot: usize,
        used: &mut Vec<bool>,
        each: &mut dyn FnMut(&[usize]) -> Result<(), Interrupted>,
    ) -> Result<(), Interrupted> {
        let Some(class) = classes.get(ci) else {
            return each(map);
        };
        let k = acting(class);
        if slot == k {
            // The rest of the class in ascending order, then the next class.
            let mut rest = class.iter().zip(used.iter()).filter(|(_, &u)| !u);
            for &from in &class[k..] {
                map[from] = *rest.next().expect("as many members as slots").0;
            }
            let mut fresh = vec![false; classes.get(ci + 1).map_or(0, Vec::len)];
            return go(classes, acting, map, ci + 1, 0, &mut fresh, each);
        }
        for j in 0..class.len() {
            if !used[j] {
                used[j] = true;
                map[class[slot]] = class[j];
                go(classes, acting, map, ci, slot + 1, used, each)?;
                used[j] = false;
            }
        }
        Ok(())
    }
    let mut map: Vec<usize> = (0..n).collect();
    let mut used = vec![false; classes.first().map_or(0, Vec::len)];
    go(classes, acting, &mut map, 0, 0, &mut used, each)
}

/// Every reachable side order and Action-phase outcome, by projected enumeration.
///
/// With `symmetry`, interchangeable sides ([`Scenario::side_classes`]) and figures
/// ([`Scenario::figure_classes`]) are enumerated in one canonical order only — a class's
/// sides move in list order; a class's figures act in list order, those that never act
/// being the last of the class — and each canonical outcome is then relabelled by every
/// permutation of the classes. The reachable sets are closed under these permutations
/// (list order only feeds the tie-break scans, whose support is every tied member), and
/// every orbit holds exactly one canonical outcome, so the result is the same set; the
/// solver finds one outcome per orbit instead of `m!` (eight tied figures: 1 model instead
/// of 40,320). Without it, every outcome is a model of its own (the tests compare both).
pub fn enumerate_with(
    sc: &Scenario,
    budget: &Budget,
    symmetry: bool,
) -> Result<Answer, Interrupted> {
    let ns = sc.sides.len();
    let nf = sc.figures.len();
    let (side_classes, figure_classes) = if symmetry {
        (sc.side_classes(), sc.figure_classes())
    } else {
        (vec![], vec![])
    };
    let mut clauses = Charged::new(budget, "SAT clauses");
    let mut se = encode_sides(sc);
    for class in &side_classes {
        for w in class.windows(2) {
            se.solver.add_clause(&[se.before[w[0]][w[1]]]);
        }
    }
    clauses.grow_to(se.solver.approx_bytes())?;
    let proj = se.projection();
    let canonical = run_enum(
        &mut se.solver,
        &proj,
        budget,
        "side orders",
        |v| SideEnc::decode(ns, v),
        Vec::len,
    )?;
    let mut side_orders = BTreeSet::new();
    for o in &canonical {
        // Every side moves: each class is permuted whole.
        relabel(ns, &side_classes, &|c| c.len(), &mut |map| {
            budget.check()?;
            if side_orders.insert(o.iter().map(|&i| map[i]).collect::<SideOrder>()) {
                budget.charge("side orders", 96 + 8 * ns as u64)?;
            }
            Ok(())
        })?;
    }
    let mut ae = encode_actions(sc);
    for class in &figure_classes {
        for w in class.windows(2) {
            let (a, b) = (w[0], w[1]);
            // b acts in segment s only if a acted in an earlier segment.
            for s in 0..ae.win.len() {
                let mut c = vec![!ae.win[s][b]];
                c.extend((0..s).map(|t| ae.win[t][a]));
                ae.solver.add_clause(&c);
            }
        }
    }
    clauses.grow_to(se.solver.approx_bytes() + ae.solver.approx_bytes())?;
    let proj = ae.projection();
    let words = |o: &ActionOutcome| 2 * o.order.len() + o.watching.len();
    let canonical = run_enum(
        &mut ae.solver,
        &proj,
        budget,
        "action outcomes",
        |v| ActionEnc::decode(nf, v),
        words,
    )?;
    let mut actions = BTreeSet::new();
    for o in &canonical {
        // A class's acting members are its first ones (the canonical order).
        let acts = |c: &[usize]| c.iter().filter(|&&f| !o.watching.contains(&f)).count();
        relabel(nf, &figure_classes, &acts, &mut |map| {
            budget.check()?;
            let mut watching: Vec<usize> = o.watching.iter().map(|&f| map[f]).collect();
            watching.sort_unstable();
            let o2 = ActionOutcome {
                order: o
                    .order
                    .iter()
                    .map(|a| Acted {
                        figure: map[a.figure],
                        waited: a.waited,
                    })
                    .collect(),
                watching,
            };
            let bytes = 96 + 8 * words(&o2) as u64;
            if actions.insert(o2) {
                budget.charge("action outcomes", bytes)?;
            }
            Ok(())
        })?;
    }
    Ok(Answer {
        side_orders,
        actions,
    })
}

/// A query's SAT answer: a witness outcome, or none.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Witness {
    /// A side order satisfying a side query.
    Sides(SideOrder),
    /// An Action-phase outcome satisfying an action query, with the simulator's replay of
    /// the model's poll order and declarations.
    Actions(ActionOutcome, Replayed),
}

/// A SAT model's Action-phase run replayed through the simulator (the judge).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Replayed {
    /// The simulator's events under the model's poll order and declarations.
    pub trace: Vec<Event>,
    /// Whether the simulator reaches the same outcome as the decoded model.
    pub confirmed: bool,
}

/// A driver realising a SAT model: each poll's tie-break dice note the figure the model
/// polls at that step; picks and re-query picks are the model's.
struct ModelDriver {
    /// The model's poll steps in order (all segments): figure and its pick.
    polls: std::collections::VecDeque<(usize, usize)>,
    /// The pick of the step being polled.
    current: usize,
    requery: Vec<Vec<usize>>,
}

impl Driver for ModelDriver {
    fn d6(&mut self, _side: usize) -> i32 {
        1
    }
    fn tie(&mut self, k: u32, contender: usize, _noted: usize) -> u32 {
        match self.polls.front() {
            Some(&(target, _)) if target == contender => 1,
            _ => k,
        }
    }
    fn choose(&mut self, _n: usize, what: Choice) -> usize {
        match what {
            Choice::Poll { .. } => self.current,
            Choice::Requery { figure, segment } => self.requery[segment][figure],
            Choice::Postpone { .. } => 0,
        }
    }
    fn polled(&mut self, figure: usize) {
        self.current = match self.polls.pop_front() {
            Some((f, c)) if f == figure => c,
            _ => 0,
        };
    }
}

fn replay_model(sc: &Scenario, e: &ActionEnc, decoded: &ActionOutcome) -> Replayed {
    let v = |l: Lit| e.solver.value(l);
    let mut polls = std::collections::VecDeque::new();
    for (seg_pol, seg_pick) in e.pol.iter().zip(&e.pick) {
        for (pol, pick) in seg_pol.iter().zip(seg_pick) {
            if let Some(f) = pol.iter().position(|&l| v(l)) {
                polls.push_back((f, pick[f].iter().position(|&l| v(l)).unwrap_or(0)));
            }
        }
    }
    let requery = e
        .requery
        .iter()
        .map(|seg| {
            seg.iter()
                .map(|c| c.iter().position(|&l| v(l)).unwrap_or(0))
                .collect()
        })
        .collect();
    let mut d = ModelDriver {
        polls,
        current: 0,
        requery,
    };
    let mut trace = Vec::new();
    let out = simulate::actions(sc, &mut d, &mut trace);
    Replayed {
        confirmed: &out == decoded,
        trace,
    }
}

/// Answers a query by one solve under the query's constraint; the witness is decoded from
/// the model.
pub fn query(sc: &Scenario, q: &Query, budget: &Budget) -> Result<Option<Witness>, Interrupted> {
    let solve = |s: &mut Solver, a: &[Lit]| -> Result<bool, Interrupted> {
        s.set_interrupt(budget.flag());
        match s.solve(a) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => Err(Interrupted),
        }
    };
    let mut clauses = Charged::new(budget, "SAT clauses");
    if q.on_sides() {
        let n = sc.sides.len();
        let mut e = encode_sides(sc);
        clauses.grow_to(e.solver.approx_bytes())?;
        let target = match *q {
            Query::SideFirst(x) => x,
            Query::SideLast(x) => x,
            _ => unreachable!("a side query"),
        };
        // first: before[x][j] for all j; last: before[j][x] for all j.
        let mut lits = Vec::new();
        for j in (0..n).filter(|&j| j != target) {
            lits.push(match q {
                Query::SideFirst(_) => e.before[target][j],
                _ => e.before[j][target],
            });
        }
        let goal = e.solver.and(&lits);
        if !solve(&mut e.solver, &[goal])? {
            return Ok(None);
        }
        let proj = e.projection();
        let v: Vec<bool> = proj.iter().map(|&l| e.solver.value(l)).collect();
        return Ok(Some(Witness::Sides(SideEnc::decode(n, &v))));
    }
    let n = sc.figures.len();
    let mut e = encode_actions(sc);
    clauses.grow_to(e.solver.approx_bytes())?;
    let s = &mut e.solver;
    let acts_in = |s: &mut Solver, win: &[Vec<Lit>], fig: usize| {
        let l: Vec<Lit> = win.iter().map(|w| w[fig]).collect();
        s.or(&l)
    };
    let goal = match *q {
        Query::Before(a, b) => {
            // a acts in segment k and b has not acted in any segment <= k.
            let ways: Vec<Lit> = (0..n)
                .map(|k| {
                    let mut c = vec![e.win[k][a]];
                    c.extend((0..=k).map(|j| !e.win[j][b]));
                    s.and(&c)
                })
                .collect();
            s.or(&ways)
        }
        Query::WatcherFirst => {
            let ws: Vec<Lit> = (0..n)
                .map(|fig| s.and(&[e.win[0][fig], e.waited[fig]]))
                .collect();
            s.or(&ws)
        }
        Query::WatcherActs => s.or(&e.waited),
        Query::OnWatch(fig) => !acts_in(s, &e.win, fig),
        _ => unreachable!("an action query"),
    };
    if !solve(s, &[goal])? {
        return Ok(None);
    }
    let proj = e.projection();
    let v: Vec<bool> = proj.iter().map(|&l| e.solver.value(l)).collect();
    let decoded = ActionEnc::decode(n, &v);
    let replayed = replay_model(sc, &e, &decoded);
    Ok(Some(Witness::Actions(decoded, replayed)))
}

/// Both encodings as DIMACS CNF (Movement phase, then Action phase, as two `p cnf`
/// problems), with `c` lines naming the choice and outcome variables; the encodings are
/// charged to `budget`'s memory meter.
pub fn dimacs(sc: &Scenario, budget: &Budget) -> Result<String, Interrupted> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut clauses = Charged::new(budget, "SAT clauses");
    let se = encode_sides(sc);
    clauses.grow_to(se.solver.approx_bytes())?;
    let _ = writeln!(out, "c gordian foeman: Movement phase (side order)");
    for (l, name) in &se.names {
        let _ = writeln!(out, "c var {} {name}", l.to_dimacs());
    }
    out.push_str(&se.solver.to_dimacs());
    let ae = encode_actions(sc);
    clauses.grow_to(se.solver.approx_bytes() + ae.solver.approx_bytes())?;
    let _ = writeln!(out, "c gordian foeman: Action phase (segments)");
    for (l, name) in &ae.names {
        let _ = writeln!(out, "c var {} {name}", l.to_dimacs());
    }
    out.push_str(&ae.solver.to_dimacs());
    Ok(out)
}
