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
//! The poll order of a round is one fixed total order `prec` of the figures: modDX
//! descending, ties as variables (antisymmetric, transitive): FigSeq keeps the first
//! tie-breaks for the whole round and modDX never changes (see `docs/foeman.md`), so the
//! lazily rolled ties of the simulator reveal one such order. `n` segments; per segment
//! and figure: unacted `una`, declaration `x` (one-hot over the segment's set), re-query
//! declaration `y` (same set). The segment's winner:
//! * if some participating figure declares an act-at-once option, the first one in
//!   `prec` (polling stops there);
//! * otherwise the first in `prec` among those with the highest *level*: a polled
//!   declaration of `d` dice is level `2d+1`, a watcher switching to `d` dice at re-query
//!   level `2d` (it supervenes only with strictly more dice), a watcher switching to an
//!   act-at-once option level 21; Watch has no level. No level at all ends the round.
//!
//! "Waited" (declared Watch in a poll before acting) counts only figures actually polled:
//! those not preceded in `prec` by an act-at-once figure of the segment. Projection: the
//! winners `win[s][f]` and the waited flags of winners.
//!
//! Invariants: the encoding never depends on the simulator; every projected model decodes
//! to one outcome and distinct outcomes have distinct projections.

// Index loops over (figure, figure) pairs read closer to the encoding's definitions.
#![allow(clippy::needless_range_loop)]

use super::model::{Acted, ActionOutcome, Answer, Dib, Postpone, Scenario, SideOrder};
use super::search::Query;
use super::simulate::{self, Choice, Driver, Event};
use crate::sat::{enumerate_projected, EnumerationEnd, Lit, SatResult, Solver};
use crate::systems::spec::{Budget, Interrupted};
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
    /// `prec[a][b]`: a is polled before b.
    pub prec: Vec<Vec<Lit>>,
    /// `decl[s][f][c]`: f picks choice c of its set when polled in segment s.
    pub decl: Vec<Vec<Vec<Lit>>>,
    /// `requery[s][f][c]`: f picks choice c when re-queried in segment s.
    pub requery: Vec<Vec<Vec<Lit>>>,
    /// Named variables for DIMACS comments.
    pub names: Vec<(Lit, String)>,
}

/// Encodes the Action phase.
pub fn encode_actions(sc: &Scenario) -> ActionEnc {
    let mut s = Solver::new();
    let t = s.true_lit();
    let f = s.false_lit();
    let n = sc.figures.len();
    let mut names = Vec::new();
    // prec[a][b]: a is polled before b (the round's fixed tie-broken modDX order).
    let mut prec = vec![vec![f; n]; n];
    for a in 0..n {
        for b in a + 1..n {
            let (da, db) = (sc.figures[a].dx, sc.figures[b].dx);
            if da > db {
                prec[a][b] = t;
                prec[b][a] = f;
            } else if da < db {
                prec[a][b] = f;
                prec[b][a] = t;
            } else {
                let l = s.new_lit();
                names.push((
                    l,
                    format!("prec[{}][{}]", sc.figures[a].name, sc.figures[b].name),
                ));
                prec[a][b] = l;
                prec[b][a] = !l;
            }
        }
    }
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                if a != b && b != c && a != c {
                    let dx = sc.figures[a].dx;
                    if sc.figures[b].dx == dx && sc.figures[c].dx == dx {
                        s.add_clause(&[!prec[a][b], !prec[b][c], prec[a][c]]);
                    }
                }
            }
        }
    }
    let mut una = vec![t; n];
    let mut waited = vec![f; n];
    let mut ended = f;
    let mut win_all = Vec::new();
    let mut waited_at_win: Vec<Vec<Lit>> = vec![Vec::new(); n];
    let mut decl_all = Vec::new();
    let mut requery_all = Vec::new();
    for seg in 0..n {
        let act: Vec<Lit> = (0..n).map(|i| s.and(&[una[i], !ended])).collect();
        let mut decl_seg = Vec::new();
        let mut requery_seg = Vec::new();
        // Declarations and their kinds.
        let mut w_lit = vec![f; n];
        let mut i_lit = vec![f; n];
        let mut levels: Vec<Vec<(usize, Lit)>> = vec![Vec::new(); n];
        for i in 0..n {
            let set = sc.figures[i].choices(seg);
            let choose = |s: &mut Solver, names: &mut Vec<(Lit, String)>, tag: &str| {
                let lits: Vec<Lit> = if set.len() == 1 {
                    vec![t]
                } else {
                    let l: Vec<Lit> = set.iter().map(|_| s.new_lit()).collect();
                    one_hot(s, &l);
                    l
                };
                for (c, l) in set.iter().zip(&lits) {
                    if set.len() > 1 {
                        names.push((*l, format!("{tag}[{seg}][{}]={c}", sc.figures[i].name)));
                    }
                }
                lits
            };
            let x = choose(&mut s, &mut names, "decl");
            let y = choose(&mut s, &mut names, "requery");
            decl_seg.push(x.clone());
            requery_seg.push(y.clone());
            let mut xw = Vec::new();
            let mut xi = Vec::new();
            let mut yi = Vec::new();
            for (c, d) in set.iter().enumerate() {
                match sc.dib(*d) {
                    Dib::Watch => xw.push(x[c]),
                    Dib::AtOnce => {
                        xi.push(x[c]);
                        yi.push(y[c]);
                    }
                    Dib::Dice(k) => {
                        let k = k as usize;
                        levels[i].push((2 * k + 1, s.and(&[act[i], x[c]])));
                    }
                }
            }
            let xw_any = s.or(&xw);
            w_lit[i] = s.and(&[act[i], xw_any]);
            let xi_any = s.or(&xi);
            i_lit[i] = s.and(&[act[i], xi_any]);
            let yi_any = s.or(&yi);
            let rq_at_once = s.and(&[w_lit[i], yi_any]);
            levels[i].push((21, rq_at_once));
            for (c, d) in set.iter().enumerate() {
                if let Dib::Dice(k) = sc.dib(*d) {
                    let k = k as usize;
                    levels[i].push((2 * k, s.and(&[w_lit[i], y[c]])));
                }
            }
        }
        let any_i = s.or(&i_lit);
        // Poll-phase act-at-once winner: first in prec.
        let wi: Vec<Lit> = (0..n)
            .map(|a| {
                let mut conj = vec![i_lit[a]];
                for b in 0..n {
                    if b != a {
                        let c = s.or(&[!i_lit[b], prec[a][b]]);
                        conj.push(c);
                    }
                }
                s.and(&conj)
            })
            .collect();
        // ge[k]: some figure has level >= k.
        let mut ge = [f; 23];
        for k in (1..=21).rev() {
            let mut lits: Vec<Lit> = vec![ge[k + 1]];
            for lv in &levels {
                lits.extend(lv.iter().filter(|(kk, _)| *kk == k).map(|(_, l)| *l));
            }
            ge[k] = s.or(&lits);
        }
        let top: Vec<Lit> = (0..n)
            .map(|a| {
                let ways: Vec<Lit> = levels[a]
                    .iter()
                    .map(|&(k, l)| s.and(&[l, !ge[k + 1]]))
                    .collect();
                s.or(&ways)
            })
            .collect();
        let wd: Vec<Lit> = (0..n)
            .map(|a| {
                let mut conj = vec![!any_i, top[a]];
                for b in 0..n {
                    if b != a {
                        let c = s.or(&[!top[b], prec[a][b]]);
                        conj.push(c);
                    }
                }
                s.and(&conj)
            })
            .collect();
        let win: Vec<Lit> = (0..n).map(|a| or2(&mut s, wi[a], wd[a])).collect();
        for a in 0..n {
            names.push((win[a], format!("win[{seg}][{}]", sc.figures[a].name)));
        }
        // Polled figures: not preceded by an act-at-once figure.
        let polled: Vec<Lit> = (0..n)
            .map(|a| {
                let mut conj = vec![act[a]];
                for b in 0..n {
                    if b != a {
                        let c = s.or(&[!i_lit[b], !prec[b][a]]);
                        conj.push(c);
                    }
                }
                s.and(&conj)
            })
            .collect();
        for a in 0..n {
            let now = s.and(&[polled[a], w_lit[a]]);
            waited[a] = or2(&mut s, waited[a], now);
            let ww = s.and(&[win[a], waited[a]]);
            waited_at_win[a].push(ww);
        }
        let some_win = s.or(&win);
        ended = or2(&mut s, ended, !some_win);
        una = (0..n).map(|a| s.and(&[una[a], !win[a]])).collect();
        win_all.push(win);
        decl_all.push(decl_seg);
        requery_all.push(requery_seg);
    }
    let waited_lits: Vec<Lit> = (0..n)
        .map(|a| {
            let l = s.or(&waited_at_win[a]);
            names.push((l, format!("waited[{}]", sc.figures[a].name)));
            l
        })
        .collect();
    ActionEnc {
        solver: s,
        win: win_all,
        waited: waited_lits,
        prec,
        decl: decl_all,
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

fn run_enum<T: Ord>(
    solver: &mut Solver,
    proj: &[Lit],
    budget: &Budget,
    decode: impl Fn(&[bool]) -> T,
) -> Result<BTreeSet<T>, Interrupted> {
    solver.set_interrupt(budget.flag());
    let mut out = BTreeSet::new();
    let e = enumerate_projected(solver, proj, &[], None, |v| {
        out.insert(decode(v));
        if budget.is_cancelled() {
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

/// Every reachable side order and Action-phase outcome, by projected enumeration.
pub fn enumerate(sc: &Scenario, budget: &Budget) -> Result<Answer, Interrupted> {
    let ns = sc.sides.len();
    let mut se = encode_sides(sc);
    let proj = se.projection();
    let side_orders = run_enum(&mut se.solver, &proj, budget, |v| SideEnc::decode(ns, v))?;
    let nf = sc.figures.len();
    let mut ae = encode_actions(sc);
    let proj = ae.projection();
    let actions = run_enum(&mut ae.solver, &proj, budget, |v| ActionEnc::decode(nf, v))?;
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

/// A driver realising a SAT model: tie dice keep the earlier figure of the model's poll
/// order; declarations are the model's.
struct ModelDriver {
    rank: Vec<usize>,
    decl: Vec<Vec<usize>>,
    requery: Vec<Vec<usize>>,
}

impl Driver for ModelDriver {
    fn d6(&mut self, _side: usize) -> i32 {
        1
    }
    fn tie(&mut self, k: u32, contender: usize, noted: usize) -> u32 {
        if self.rank[contender] < self.rank[noted] {
            1
        } else {
            k
        }
    }
    fn choose(&mut self, _n: usize, what: Choice) -> usize {
        match what {
            Choice::Poll { figure, segment } => self.decl[segment][figure],
            Choice::Requery { figure, segment } => self.requery[segment][figure],
            Choice::Postpone { .. } => 0,
        }
    }
}

fn replay_model(sc: &Scenario, e: &ActionEnc, decoded: &ActionOutcome) -> Replayed {
    let n = sc.figures.len();
    let v = |l: Lit| e.solver.value(l);
    let rank: Vec<usize> = (0..n)
        .map(|f| (0..n).filter(|&g| g != f && v(e.prec[g][f])).count())
        .collect();
    let pick = |sets: &Vec<Vec<Vec<Lit>>>| -> Vec<Vec<usize>> {
        sets.iter()
            .map(|seg| {
                seg.iter()
                    .map(|c| c.iter().position(|&l| v(l)).unwrap_or(0))
                    .collect()
            })
            .collect()
    };
    let mut d = ModelDriver {
        rank,
        decl: pick(&e.decl),
        requery: pick(&e.requery),
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
    if q.on_sides() {
        let n = sc.sides.len();
        let mut e = encode_sides(sc);
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
/// problems), with `c` lines naming the choice and outcome variables.
pub fn dimacs(sc: &Scenario) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let se = encode_sides(sc);
    let _ = writeln!(out, "c gordian foeman: Movement phase (side order)");
    for (l, name) in &se.names {
        let _ = writeln!(out, "c var {} {name}", l.to_dimacs());
    }
    out.push_str(&se.solver.to_dimacs());
    let ae = encode_actions(sc);
    let _ = writeln!(out, "c gordian foeman: Action phase (segments)");
    for (l, name) in &ae.names {
        let _ = writeln!(out, "c var {} {name}", l.to_dimacs());
    }
    out.push_str(&ae.solver.to_dimacs());
    out
}
