//! The judge: one round simulated step by step as the seed's routines do it — `sidMov()`
//! (side initiative with sequential tie-break dice and postponement), then the Action
//! phase's segments (`nxtOrd()` polling in current-modDX order with FigSeq memory and
//! re-zeroing, `pikAct()` declarations whose options may change the figure's modDX,
//! supervention, Watch re-query, `exeAct()`). Every die and every choice is asked of a
//! [`Driver`]; every step is recorded as an [`Event`].
//!
//! Invariants: the reference semantics — no search, no SAT; a run always terminates
//! (every segment either makes one figure act or ends the round; each side is selected
//! at most twice: it postpones at most once; within a segment a figure is re-zeroed only
//! when its pick lowers its modDX strictly below its modDX when polled, so it is polled
//! at most 1 + (distinct modDX values of its choice set) times per segment).

use super::model::{Acted, ActionOutcome, Decl, Dib, Ini, Postpone, Scenario, SideOrder};
use serde::Serialize;

/// The source of every die roll and free choice of a run.
pub trait Driver {
    /// A side's initiative die (1..=6).
    fn d6(&mut self, side: usize) -> i32;
    /// A tie-break die with `k` sides (k >= 2), rolled for the newly scanned `contender`
    /// against the `noted` one; only whether it shows 1 (replace) matters.
    fn tie(&mut self, k: u32, contender: usize, noted: usize) -> u32;
    /// A free choice among `n >= 1` alternatives, and what it is for.
    fn choose(&mut self, n: usize, what: Choice) -> usize;
    /// Optionally decides a whole tie-break scan at once: which of the `k >= 2` tied
    /// maxima (in list order) the scan notes. `None` (the default) rolls the dice one by
    /// one through [`Driver::tie`]. A driver answering here must weight each maximum 1/k:
    /// the sequential dice select each tied maximum with probability exactly 1/k (the
    /// fairness check, `docs/foeman.md`), so this is the same distribution in one step.
    fn draw(&mut self, _k: usize) -> Option<usize> {
        None
    }
    /// Told which figure `nxtOrd()` just chose to poll (before it picks); no die, no
    /// choice. Lets a driver replaying a fixed run keep its place.
    fn polled(&mut self, _figure: usize) {}
}

/// What a free choice decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Whether a side postpones (0 = moves, 1 = postpones).
    Postpone {
        /// The side.
        side: usize,
    },
    /// A polled figure's declaration (index into its set for the 0-based segment).
    Poll {
        /// The figure.
        figure: usize,
        /// 0-based segment.
        segment: usize,
    },
    /// A re-queried watcher's declaration (index into the same set).
    Requery {
        /// The figure.
        figure: usize,
        /// 0-based segment.
        segment: usize,
    },
}

/// One tie-break die shown during a scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TieRoll {
    /// The newly scanned contender the die was rolled for.
    pub contender: usize,
    /// Sides of the die (number of tied contenders so far).
    pub die: u32,
    /// The result.
    pub roll: u32,
    /// Whether the contender replaced the noted one (a 1).
    pub replaced: bool,
    /// Whether a higher value later in the scan made this roll inconsequential.
    pub inconsequential: bool,
}

/// One step of a round, for the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A side's initiative was rolled.
    IniRoll {
        /// The side.
        side: usize,
        /// The d6.
        die: i32,
        /// The modified value.
        value: i32,
    },
    /// `sidMov()` scanned the unmoved sides and noted the next one.
    SideScan {
        /// The selected side.
        selected: usize,
        /// Tie-break dice shown during the scan.
        rolls: Vec<TieRoll>,
    },
    /// The selected side postponed (SidSeq -1).
    Postpones {
        /// The side.
        side: usize,
    },
    /// The side moved (SidSeq given).
    SideMoves {
        /// The side.
        side: usize,
        /// Its SidSeq.
        seq: usize,
    },
    /// A segment of the Action phase began.
    Segment {
        /// 1-based segment number.
        number: usize,
    },
    /// `nxtOrd()` chose the next figure to poll.
    Poll {
        /// The figure.
        figure: usize,
        /// Its modDX when chosen (its last picked option's, or its own before any pick).
        dx: i32,
        /// Its FigSeq (newly given, or kept from an earlier segment).
        seq: usize,
        /// Tie-break dice shown to choose it (none when FigSeq resolved the tie).
        rolls: Vec<TieRoll>,
        /// What it picked (its declaration, unless `rezeroed`).
        decl: Decl,
        /// Its modDX under the picked option.
        new_dx: i32,
        /// The pick lowered its modDX below an as yet undeclared figure's: its FigSeq was
        /// zeroed and it went back to the undeclared figures (no declaration stands; it is
        /// polled again, and re-sequenced, in modDX order).
        rezeroed: bool,
        /// The FigDic recorded (1 for Watch, 10 for act-at-once).
        dice: u8,
        /// Whether it became the dibFig (supervening `previous`, if any).
        supervenes: bool,
        /// The dibFig it superseded.
        previous: Option<usize>,
    },
    /// A watcher was re-queried after every other figure was polled.
    Requery {
        /// The figure.
        figure: usize,
        /// Its new declaration (Watch = keeps watching).
        decl: Decl,
        /// The FigDic recorded.
        dice: u8,
        /// Whether it became the dibFig (only with strictly more dice).
        supervenes: bool,
        /// The dibFig it superseded.
        previous: Option<usize>,
    },
    /// The figure acted (FigDic + 10); every other declaration is zeroed.
    Acts {
        /// The figure.
        figure: usize,
        /// Its place in the action order (FigSeq of acted figures).
        seq: usize,
        /// Whether it acted at once on declaring (Move/Defend with `isDib` false).
        at_once: bool,
    },
    /// The round ended: every figure acted, or only watchers remain.
    RoundEnds {
        /// Figures left on Watch.
        watching: Vec<usize>,
    },
}

/// A whole simulated round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Round {
    /// SidSeq order.
    pub side_order: SideOrder,
    /// Action-phase outcome.
    pub actions: ActionOutcome,
    /// Movement-phase events (initiative, scans, postponements).
    pub side_events: Vec<Event>,
    /// Action-phase events.
    pub action_events: Vec<Event>,
}

/// The sequential tie-break scan of `sidMov()` / `nxtOrd()`: over `items` (in list order)
/// with their values, keep the highest; on an equal value roll a die with as many sides
/// as contenders so far and replace on a 1. Returns the noted item and the dice shown.
pub fn scan(items: &[(usize, i32)], driver: &mut dyn Driver) -> (usize, Vec<TieRoll>) {
    let top = items.iter().map(|&(_, v)| v).max().unwrap_or(0);
    let maxima: Vec<usize> = items
        .iter()
        .filter(|&&(_, v)| v == top)
        .map(|&(i, _)| i)
        .collect();
    let forced = if maxima.len() >= 2 {
        driver
            .draw(maxima.len())
            .map(|j| maxima[j.min(maxima.len() - 1)])
    } else {
        None
    };
    let mut rolls: Vec<TieRoll> = Vec::new();
    let (mut best, mut best_v) = items[0];
    let mut tied = 1u32;
    for &(i, v) in &items[1..] {
        if v > best_v {
            for r in rolls.iter_mut() {
                r.inconsequential = true;
            }
            best = i;
            best_v = v;
            tied = 1;
        } else if v == best_v {
            tied += 1;
            // A drawn scan shows the dice that realise the draw: a 1 for the drawn
            // maximum, a 2 (no replacement) for every other contender.
            let roll = match forced {
                Some(t) => 1 + u32::from(t != i),
                None => driver.tie(tied, i, best),
            };
            let replaced = roll == 1;
            rolls.push(TieRoll {
                contender: i,
                die: tied,
                roll,
                replaced,
                inconsequential: false,
            });
            if replaced {
                best = i;
            }
        }
    }
    (best, rolls)
}

/// The Movement phase's side order under `driver`.
pub fn sides(sc: &Scenario, driver: &mut dyn Driver, events: &mut Vec<Event>) -> SideOrder {
    let n = sc.sides.len();
    let values: Vec<i32> = sc
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| match s.ini {
            Ini::Fixed(v) => v,
            Ini::Roll(m) => {
                let die = driver.d6(i);
                events.push(Event::IniRoll {
                    side: i,
                    die,
                    value: die + m,
                });
                die + m
            }
        })
        .collect();
    // SidSeq controller: 0 unmoved, -1 postponed, 1..n moved.
    let mut status = vec![0i64; n];
    let mut used = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let items: Vec<(usize, i32)> = (0..n)
            .filter(|&i| status[i] == 0)
            .map(|i| (i, values[i]))
            .collect();
        let (s, rolls) = scan(&items, driver);
        events.push(Event::SideScan { selected: s, rolls });
        let can = !used[s] && items.len() > 1;
        let postpone = can
            && match sc.sides[s].postpone {
                Postpone::No => false,
                Postpone::Yes => true,
                Postpone::Maybe => driver.choose(2, Choice::Postpone { side: s }) == 1,
            };
        if postpone {
            status[s] = -1;
            used[s] = true;
            events.push(Event::Postpones { side: s });
            continue;
        }
        order.push(s);
        status[s] = order.len() as i64;
        events.push(Event::SideMoves {
            side: s,
            seq: order.len(),
        });
        for st in status.iter_mut() {
            if *st == -1 {
                *st = 0;
            }
        }
    }
    order
}

/// The dibFig of a segment: figure, dice, modDX.
#[derive(Clone, Copy)]
struct Holder {
    figure: usize,
    dice: u8,
    dx: i32,
}

/// The Action phase's state between segments.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActState {
    /// 0-based index of the next segment.
    pub segment: usize,
    /// Figures that acted (FigDic >= 10).
    pub acted: Vec<bool>,
    /// Figures that declared Watch in some poll so far.
    pub waited: Vec<bool>,
    /// FigSeq of each figure (0 = not yet sequenced this round, or re-zeroed).
    pub seq: Vec<usize>,
    /// The last FigSeq given.
    pub next_seq: usize,
    /// Each figure's current modDX: its last picked option's, its own before any pick.
    pub dx: Vec<i32>,
}

impl ActState {
    /// The state at the start of the Action phase.
    pub fn start(sc: &Scenario) -> ActState {
        let n = sc.figures.len();
        ActState {
            segment: 0,
            acted: vec![false; n],
            waited: vec![false; n],
            seq: vec![0; n],
            next_seq: 0,
            dx: sc.figures.iter().map(|f| f.dx).collect(),
        }
    }
}

/// What one segment did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentEnd {
    /// The figure acted (it had waited, or not).
    Acted(Acted),
    /// The round ended (every figure had acted, or only watchers remained).
    RoundEnds,
}

/// One segment from `st` (updated in place) under `driver`.
pub fn segment(
    sc: &Scenario,
    st: &mut ActState,
    driver: &mut dyn Driver,
    events: &mut Vec<Event>,
) -> SegmentEnd {
    let n = sc.figures.len();
    if st.acted.iter().all(|&a| a) {
        events.push(Event::RoundEnds { watching: vec![] });
        return SegmentEnd::RoundEnds;
    }
    let segment = st.segment;
    events.push(Event::Segment {
        number: segment + 1,
    });
    let mut declared = st.acted.clone(); // acted figures are never polled
    let mut watchers: Vec<usize> = Vec::new();
    let mut dib: Option<Holder> = None;
    let mut at_once: Option<usize> = None;
    // Poll phase: nxtOrd() picks the highest-modDX undeclared figure each time.
    while let Some(top) = (0..n).filter(|&f| !declared[f]).map(|f| st.dx[f]).max() {
        let contenders: Vec<usize> = (0..n)
            .filter(|&f| !declared[f] && st.dx[f] == top)
            .collect();
        let sequenced = contenders
            .iter()
            .copied()
            .filter(|&f| st.seq[f] > 0)
            .min_by_key(|&f| st.seq[f]);
        let (f, rolls) = match sequenced {
            Some(f) => (f, vec![]),
            None => {
                let items: Vec<(usize, i32)> = contenders.iter().map(|&f| (f, top)).collect();
                scan(&items, driver)
            }
        };
        driver.polled(f);
        if st.seq[f] == 0 {
            st.next_seq += 1;
            st.seq[f] = st.next_seq;
        }
        let seq = st.seq[f];
        let set = sc.figures[f].choices(segment);
        let decl = set[pick(driver, set.len(), Choice::Poll { figure: f, segment })];
        let dice = sc.dice(decl);
        let new_dx = sc.figures[f].dx_of(decl);
        st.dx[f] = new_dx;
        let kind = sc.dib(decl);
        // Re-zeroing (nxtOrd()): the pick lowered f's modDX below an as yet undeclared
        // figure's. An act-at-once option is exempt: it acts when picked.
        let rezeroed =
            kind != Dib::AtOnce && (0..n).any(|g| g != f && !declared[g] && st.dx[g] > new_dx);
        let mut ev_super = false;
        let previous = dib.map(|h| h.figure);
        if rezeroed {
            st.seq[f] = 0;
        } else {
            declared[f] = true;
            match kind {
                Dib::Watch => watchers.push(f),
                Dib::AtOnce => {
                    at_once = Some(f);
                    ev_super = true;
                }
                Dib::Dice(d) => {
                    // Supervention: more dice, or equal dice and a strictly higher modDX
                    // (the picked option's) than the dibFig's.
                    let better = match dib {
                        None => true,
                        Some(h) => d > h.dice || (d == h.dice && new_dx > h.dx),
                    };
                    if better {
                        dib = Some(Holder {
                            figure: f,
                            dice: d,
                            dx: new_dx,
                        });
                        ev_super = true;
                    }
                }
            }
        }
        events.push(Event::Poll {
            figure: f,
            dx: top,
            seq,
            rolls,
            decl,
            new_dx,
            rezeroed,
            dice,
            supervenes: ev_super,
            previous: if ev_super { previous } else { None },
        });
        if at_once.is_some() {
            break;
        }
    }
    for &w in &watchers {
        st.waited[w] = true;
    }
    // Re-query the watchers in FigSeq order; they supervene only with more dice.
    if at_once.is_none() {
        let mut ws = watchers.clone();
        ws.sort_by_key(|&w| st.seq[w]);
        for w in ws {
            let set = sc.figures[w].choices(segment);
            let decl = set[pick(driver, set.len(), Choice::Requery { figure: w, segment })];
            let dice = sc.dice(decl);
            st.dx[w] = sc.figures[w].dx_of(decl);
            let previous = dib.map(|h| h.figure);
            let mut sup = false;
            match sc.dib(decl) {
                Dib::Watch => {}
                Dib::AtOnce => {
                    at_once = Some(w);
                    sup = true;
                }
                Dib::Dice(d) => {
                    if dib.is_none_or(|h| d > h.dice) {
                        dib = Some(Holder {
                            figure: w,
                            dice: d,
                            dx: st.dx[w],
                        });
                        sup = true;
                    }
                }
            }
            events.push(Event::Requery {
                figure: w,
                decl,
                dice,
                supervenes: sup,
                previous: if sup { previous } else { None },
            });
            if at_once.is_some() {
                break;
            }
        }
    }
    st.segment += 1;
    match at_once.or(dib.map(|h| h.figure)) {
        None => {
            let watching: Vec<usize> = (0..n).filter(|&f| !st.acted[f]).collect();
            events.push(Event::RoundEnds { watching });
            SegmentEnd::RoundEnds
        }
        Some(f) => {
            st.acted[f] = true;
            events.push(Event::Acts {
                figure: f,
                seq: st.acted.iter().filter(|&&a| a).count(),
                at_once: at_once.is_some(),
            });
            SegmentEnd::Acted(Acted {
                figure: f,
                waited: st.waited[f],
            })
        }
    }
}

/// The Action phase's outcome under `driver`: segments until the round ends.
pub fn actions(sc: &Scenario, driver: &mut dyn Driver, events: &mut Vec<Event>) -> ActionOutcome {
    let mut st = ActState::start(sc);
    let mut order = Vec::new();
    while let SegmentEnd::Acted(a) = segment(sc, &mut st, driver, events) {
        order.push(a);
    }
    let watching = (0..sc.figures.len()).filter(|&f| !st.acted[f]).collect();
    ActionOutcome { order, watching }
}

fn pick(driver: &mut dyn Driver, n: usize, what: Choice) -> usize {
    if n == 1 {
        0
    } else {
        driver.choose(n, what).min(n - 1)
    }
}

/// One whole round (Movement-phase order, then the Action phase) under `driver`.
pub fn round(sc: &Scenario, driver: &mut dyn Driver) -> Round {
    let mut side_events = Vec::new();
    let side_order = sides(sc, driver, &mut side_events);
    let mut action_events = Vec::new();
    let actions = actions(sc, driver, &mut action_events);
    Round {
        side_order,
        actions,
        side_events,
        action_events,
    }
}

/// A driver that takes dice and choices from lists, then from a seeded generator.
pub struct Scripted {
    /// Dice still to use (initiative d6s and tie-break dice, in the order asked).
    pub rolls: std::collections::VecDeque<u32>,
    /// Choices still to use (0-based indices into the set asked).
    pub choices: std::collections::VecDeque<usize>,
    /// The generator used once a list is exhausted.
    pub rng: rand_chacha::ChaCha8Rng,
}

impl Scripted {
    /// Lists first, then a generator seeded with `seed`.
    pub fn new(rolls: Vec<u32>, choices: Vec<usize>, seed: u64) -> Scripted {
        use rand::SeedableRng;
        Scripted {
            rolls: rolls.into(),
            choices: choices.into(),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn die(&mut self, k: u32) -> u32 {
        use rand::Rng;
        match self.rolls.pop_front() {
            Some(r) => r.clamp(1, k),
            None => self.rng.gen_range(1..=k),
        }
    }
}

impl Driver for Scripted {
    fn d6(&mut self, _side: usize) -> i32 {
        self.die(6) as i32
    }
    fn tie(&mut self, k: u32, _contender: usize, _noted: usize) -> u32 {
        self.die(k)
    }
    fn choose(&mut self, n: usize, _what: Choice) -> usize {
        use rand::Rng;
        match self.choices.pop_front() {
            Some(c) => c.min(n - 1),
            None => self.rng.gen_range(0..n),
        }
    }
}
