//! The judge: one challenge, steps 1-11 of the seed's pseudo-code in order, every
//! `getRandom` asked of a [`Driver`].
//!
//! Invariants: the reference semantics (no search, no SAT); each call site ([`Site`]) is
//! reached at most once per challenge, and the branch taken depends on the byte only
//! through the cut points the call declares (so a driver may answer with any byte of a
//! class; the distribution engine answers each class's lowest byte).

use super::model::*;
use serde::Serialize;

/// Each `getRandom` call site of one challenge, in the order they can occur.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Site {
    /// Step 1: push rules back if `< 64`.
    Push,
    /// Step 2: mix if `< 255`.
    Mix,
    /// Step 3: adopt the Queen's trade rule if `< 90`.
    Adopt,
    /// Step 5: the Queen's chart (`< 110`, `< 220`, else).
    QueenRule,
    /// Step 8: abolish if `< 64`.
    AbolishCheck,
    /// Step 8: `getRandomRule` for the rule abolished.
    AbolishRule,
    /// Step 9: `rule1`.
    Rule1,
    /// Step 9: `rule2`.
    Rule2,
    /// Step 9: `rule3`.
    Rule3,
    /// Step 9: abolish `rule3` if `< 128`.
    Abolish3,
    /// Step 10: `amount > getRandom / 25`.
    Trading,
    /// Step 10: `getRandomRegion` receiving the spread-from trade rule.
    TradeRegion,
    /// Step 10: points `+= getRandom / 32`.
    Points,
    /// Step 10: set a region to One if `< points`.
    OneCheck,
    /// Step 10: `getRandomRegion` set to One.
    OneRegion,
    /// Step 11: `getRandom / 32` in the Queen's chart.
    QueenMove,
}

impl Site {
    /// Index 0..16.
    pub fn id(self) -> usize {
        self as usize
    }
}

/// One `getRandom` call: where, and the cut points splitting 0..=255 into the classes the
/// branch depends on (ascending, each in 1..=255; class `i` is `[cuts[i-1], cuts[i])`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query<'a> {
    /// The call site.
    pub site: Site,
    /// Ascending cut points.
    pub cuts: &'a [u16],
}

/// Cuts for `getRandom / 32` (the eight region or rule ids).
const DIV32: [u16; 7] = [32, 64, 96, 128, 160, 192, 224];

/// A message box (or silent event) a challenge shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Message {
    /// Step 2: "You have rules from X, let's mix!".
    Mix(Region),
    /// Step 8: "rule X was abolished" (region had all rules).
    AbolishedAll(Rule),
    /// Step 9: "rule X was spread".
    Spread(Rule),
    /// Step 9: "rule X was abolished".
    Abolished(Rule),
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Mix(r) => write!(f, "You have rules from {r}, let's mix!"),
            Message::AbolishedAll(x) | Message::Abolished(x) => write!(f, "{x} was abolished"),
            Message::Spread(x) => write!(f, "{x} was spread"),
        }
    }
}

/// Answers `getRandom` calls and hears what each step did.
pub trait Driver {
    /// A byte for this call.
    fn random(&mut self, q: &Query) -> u8;
    /// Step `step` took a branch (called only when [`Driver::wants_notes`]).
    fn note(&mut self, _step: u8, _text: String) {}
    /// Whether [`Driver::note`] should be called (building texts costs time).
    fn wants_notes(&self) -> bool {
        false
    }
}

fn push_back(s: &mut State, here: Region) {
    s.carried[1] = s.carried[0];
    s.carried[0] = Carried {
        rules: s.rules[here.id()],
        origin: here,
    };
}

/// What one challenge carries between its phases: the state, whether step 2 decided to
/// mix, the message boxes so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ctx {
    /// The state being changed.
    pub state: State,
    /// Step 2's decision.
    pub mix: bool,
    /// Message boxes shown so far.
    pub messages: Vec<Message>,
    /// Step 9 is over (a rule spread, or the third rule was handled).
    pub step9_done: bool,
    /// Step 10 fired (`amount > getRandom / 25`).
    pub fire: bool,
}

impl Ctx {
    /// The context a challenge starts from in `s`: no step taken yet.
    pub fn start(s: &State) -> Ctx {
        Ctx {
            state: *s,
            mix: false,
            messages: Vec::new(),
            step9_done: false,
            fire: false,
        }
    }
}

/// One phase of a challenge.
pub type Phase = fn(&mut Ctx, &Choice, &mut dyn Driver);

/// The phases in order: steps 1-5, steps 6-8, step 9's three rules, step 10's three
/// parts, step 11. Splitting a challenge
/// lets the distribution engine merge equal intermediate contexts between phases.
pub const PHASES: [Phase; 9] = [
    steps_1_to_5,
    steps_6_to_8,
    step_9_rule1,
    step_9_rule2,
    step_9_rule3,
    step_10_spread,
    step_10_points,
    step_10_one,
    step_11,
];

/// Runs one challenge on `s` with `choice` (which must be valid in `s`), returning the
/// message boxes shown. `s` becomes the next state.
pub fn challenge(s: &mut State, choice: &Choice, d: &mut dyn Driver) -> Vec<Message> {
    let mut cx = Ctx::start(s);
    for phase in PHASES {
        phase(&mut cx, choice, d);
    }
    *s = cx.state;
    cx.messages
}

/// Steps 1-5 (always run): push back, mix decision, the Queen's rule adopted, trading,
/// the Queen's rule changed.
pub fn steps_1_to_5(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    let here = choice.region;
    let h = here.id();
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let msgs = &mut cx.messages;
    let q = |site, cuts| Query { site, cuts };
    let _ = (h, &msgs);
    s.current = here;
    // Step 1.
    let b = d.random(&q(Site::Push, &[64]));
    if b < 64 {
        push_back(s, here);
    }
    if notes {
        d.note(
            1,
            format!(
                "getRandom = {b}: {}",
                if b < 64 {
                    "< 64, rules pushed back"
                } else {
                    ">= 64, no push"
                }
            ),
        );
    }
    // Step 2.
    let sel = if s.carried[0].rules != s.rules[h] {
        s.carried[0]
    } else {
        s.carried[1]
    };
    let mut mix = false;
    if sel.rules.has_rule_not_in(s.rules[h]) {
        let b = d.random(&q(Site::Mix, &[255]));
        mix = b < 255;
        if mix {
            msgs.push(Message::Mix(sel.origin));
        }
        if notes {
            d.note(
                2,
                format!(
                    "carried rules ({}) from {} have a rule {} lacks; getRandom = {b}: {}",
                    sel.rules,
                    sel.origin,
                    here,
                    if mix {
                        "< 255, rules will be mixed"
                    } else {
                        "= 255, no mix"
                    }
                ),
            );
        }
    } else if notes {
        d.note(
            2,
            format!("no carried rules with a rule {here} lacks: no mix"),
        );
    }
    // Step 3.
    if s.queen == here {
        let b = d.random(&q(Site::Adopt, &[90]));
        if b < 90 {
            s.trade[h] = s.queen_trade;
        }
        if notes {
            d.note(
                3,
                format!(
                    "the Queen is here; getRandom = {b}: {}",
                    if b < 90 {
                        format!("< 90, {here} adopts her trade rule {}", s.queen_trade)
                    } else {
                        ">= 90, no adoption".into()
                    }
                ),
            );
        }
    } else if notes {
        d.note(3, "the Queen is not here: skipped".into());
    }
    // Step 4.
    if s.spread_from == here {
        if s.amount < 10 {
            s.amount += 1;
        }
    } else if s.amount == 0 {
        s.spread_from = here;
    } else {
        s.amount -= 1;
    }
    if notes {
        d.note(
            4,
            format!(
                "amount of trading {}, rules spread from {}",
                s.amount, s.spread_from
            ),
        );
    }
    // Step 5.
    if choice.opponent == Opponent::Queen {
        let b = d.random(&q(Site::QueenRule, &[110, 220]));
        let class = usize::from(b >= 110) + usize::from(b >= 220);
        let old = s.queen_trade;
        s.queen_trade = old.queen_chart(class);
        if notes {
            d.note(
                5,
                format!(
                    "getRandom = {b}: the Queen's trade rule {old} -> {}",
                    s.queen_trade
                ),
            );
        }
    } else if notes {
        d.note(5, "not challenging the Queen: skipped".into());
    }
    cx.mix = mix;
}

/// Steps 6-8 (7-8 only if the game starts): push back, abolish in a region with all
/// rules.
pub fn steps_6_to_8(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    let here = choice.region;
    let h = here.id();
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let msgs = &mut cx.messages;
    let q = |site, cuts| Query { site, cuts };
    let _ = (h, &msgs);
    // Step 6.
    if !choice.action.starts_game() {
        if notes {
            d.note(6, "refused: nothing else happens".into());
        }
        return;
    }
    if notes {
        d.note(6, format!("game started ({})", choice.action.name()));
    }
    // Step 7.
    if s.carried[0].rules != s.rules[h] {
        push_back(s, here);
        if notes {
            d.note(
                7,
                "most recent carried rules differ from the region's: pushed back".into(),
            );
        }
    } else if notes {
        d.note(
            7,
            "most recent carried rules are the region's: no push".into(),
        );
    }
    // Step 8.
    if s.rules[h] == RuleSet::ALL {
        let b = d.random(&q(Site::AbolishCheck, &[64]));
        if b < 64 {
            let r = d.random(&q(Site::AbolishRule, &DIV32));
            let rule = Rule::BY_RULE_ID[usize::from(r / 32)];
            s.rules[h] = s.rules[h].without(rule);
            push_back(s, here);
            push_back(s, here);
            msgs.push(Message::AbolishedAll(rule));
            if notes {
                d.note(8, format!("region has all rules; getRandom = {b} < 64; getRandomRule = {r}: {rule} abolished"));
            }
        } else if notes {
            d.note(
                8,
                format!("region has all rules; getRandom = {b} >= 64: nothing abolished"),
            );
        }
    }
}

/// Step 9, one random rule (`k` = 0, 1, 2): spread it if carried in rules (2nd) and not
/// here; after the third, abolish it with 1/2 if it is here. Skipped without a mix, when
/// the game was refused, or once an earlier rule spread.
fn step_9_rule(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver, k: usize) {
    if !cx.mix || cx.step9_done || !choice.action.starts_game() {
        if k == 0 && d.wants_notes() && choice.action.starts_game() && !cx.mix {
            d.note(9, "no mix: skipped".into());
        }
        return;
    }
    let here = choice.region;
    let h = here.id();
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let q = |site, cuts| Query { site, cuts };
    let site = [Site::Rule1, Site::Rule2, Site::Rule3][k];
    let r = d.random(&q(site, &DIV32));
    let rule = Rule::BY_RULE_ID[usize::from(r / 32)];
    if s.carried[1].rules.has(rule) && !s.rules[h].has(rule) {
        s.rules[h] = s.rules[h].with(rule);
        push_back(s, here);
        push_back(s, here);
        cx.messages.push(Message::Spread(rule));
        cx.step9_done = true;
        if notes {
            d.note(
                9,
                format!(
                    "rule{} = {rule} (getRandom = {r}): carried and not here, spread",
                    k + 1
                ),
            );
        }
        return;
    }
    if notes {
        d.note(
            9,
            format!("rule{} = {rule} (getRandom = {r}): not spreadable", k + 1),
        );
    }
    if k == 2 {
        if s.rules[h].has(rule) {
            let b = d.random(&q(Site::Abolish3, &[128]));
            if b < 128 {
                s.rules[h] = s.rules[h].without(rule);
                push_back(s, here);
                push_back(s, here);
                cx.messages.push(Message::Abolished(rule));
            }
            if notes {
                d.note(
                    9,
                    format!(
                        "rule3 is here; getRandom = {b}: {}",
                        if b < 128 {
                            format!("< 128, {rule} abolished")
                        } else {
                            ">= 128, kept".into()
                        }
                    ),
                );
            }
        } else if notes {
            d.note(9, "rule3 is not here: nothing spread or abolished".into());
        }
        cx.step9_done = true;
    }
}

/// Step 9, `rule1`.
pub fn step_9_rule1(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    step_9_rule(cx, choice, d, 0)
}
/// Step 9, `rule2`.
pub fn step_9_rule2(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    step_9_rule(cx, choice, d, 1)
}
/// Step 9, `rule3` and its abolition.
pub fn step_9_rule3(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    step_9_rule(cx, choice, d, 2)
}

/// Step 10, first part (only if the game starts): whether the trade rules change, and
/// which region receives the spread-from region's trade rule.
pub fn step_10_spread(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    if !choice.action.starts_game() {
        return;
    }
    let here = choice.region;
    let _ = here.id();
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let q = |site, cuts| Query { site, cuts };
    let cut = 25 * u16::from(s.amount);
    let b = d.random(&q(
        Site::Trading,
        if cut == 0 {
            &[]
        } else {
            std::slice::from_ref(&cut)
        },
    ));
    cx.fire = u16::from(s.amount) > u16::from(b) / 25;
    if cx.fire {
        let r = d.random(&q(Site::TradeRegion, &DIV32));
        let target = Region::from_id(usize::from(r / 32));
        s.trade[target.id()] = s.trade[s.spread_from.id()];
        if notes {
            d.note(10, format!("amount {} > getRandom {b} / 25: {target} (getRandom = {r}) takes {}'s trade rule {}", s.amount, s.spread_from, s.trade[target.id()]));
        }
    } else if notes {
        d.note(
            10,
            format!(
                "amount {} <= getRandom {b} / 25: no trade rule change",
                s.amount
            ),
        );
    }
}

/// Step 10, second part: trade rule points grow by `getRandom / 32` (reset above 250).
pub fn step_10_points(cx: &mut Ctx, _choice: &Choice, d: &mut dyn Driver) {
    if !cx.fire {
        return;
    }
    let s = &mut cx.state;
    let p = d.random(&Query {
        site: Site::Points,
        cuts: &DIV32,
    });
    let old = s.points;
    let mut points = u16::from(s.points) + u16::from(p / 32);
    if points > 250 {
        points = 0;
    }
    s.points = points as u8;
    if d.wants_notes() {
        d.note(
            10,
            format!("points {old} + getRandom {p} / 32 -> {}", s.points),
        );
    }
}

/// Step 10, third part: a random region set to One if `getRandom < points`.
pub fn step_10_one(cx: &mut Ctx, _choice: &Choice, d: &mut dyn Driver) {
    if !cx.fire {
        return;
    }
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let pc = u16::from(s.points);
    let cut = [pc];
    let c = d.random(&Query {
        site: Site::OneCheck,
        cuts: if pc == 0 { &[] } else { &cut },
    });
    if u16::from(c) < pc {
        let r2 = d.random(&Query {
            site: Site::OneRegion,
            cuts: &DIV32,
        });
        let t = Region::from_id(usize::from(r2 / 32));
        s.trade[t.id()] = Trade::One;
        if notes {
            d.note(
                10,
                format!("getRandom = {c} < points: {t} (getRandom = {r2}) set to One"),
            );
        }
    } else if notes {
        d.note(10, format!("getRandom = {c} >= points {pc}: no One"));
    }
}

/// Step 11 (only after playing the Queen and changing her Lv8+ count): she moves.
pub fn step_11(cx: &mut Ctx, choice: &Choice, d: &mut dyn Driver) {
    if !choice.action.starts_game() {
        return;
    }
    let here = choice.region;
    let h = here.id();
    let notes = d.wants_notes();
    let s = &mut cx.state;
    let msgs = &mut cx.messages;
    let q = |site, cuts| Query { site, cuts };
    let _ = (h, &msgs);
    // Step 11.
    if choice.opponent == Opponent::Queen && choice.action == Action::PlayMoved {
        let b = d.random(&q(Site::QueenMove, &DIV32));
        let from = s.queen;
        s.queen = queen_destination(from, usize::from(b / 32));
        if notes {
            let guessed = if queen_figure_guessed(from, s.queen) {
                " (a guessed chart figure: docs/ff8.md)"
            } else {
                ""
            };
            d.note(11, format!("her Lv8+ count changed; getRandom = {b} (/32 = {}): the Queen moves {from} -> {}{guessed}", b / 32, s.queen));
        }
    } else if notes {
        d.note(11, "the Queen does not move".into());
    }
}

/// A driver replaying given bytes, recording each step's branch; `None` once the bytes ran
/// out (the missing ones are answered 0 and counted in `missing`).
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// The bytes, in call order.
    pub bytes: Vec<u8>,
    /// How many were consumed.
    pub used: usize,
    /// Calls made after the bytes ran out.
    pub missing: usize,
    /// `(step, text)` for every step.
    pub trace: Vec<(u8, String)>,
    /// The call sites, in order.
    pub sites: Vec<Site>,
}

impl Driver for Replay {
    fn random(&mut self, q: &Query) -> u8 {
        self.sites.push(q.site);
        match self.bytes.get(self.used) {
            Some(&b) => {
                self.used += 1;
                b
            }
            None => {
                self.missing += 1;
                0
            }
        }
    }
    fn note(&mut self, step: u8, text: String) {
        self.trace.push((step, text));
    }
    fn wants_notes(&self) -> bool {
        true
    }
}

/// A driver answering each site from a fixed byte per site (the SAT witness form).
#[derive(Clone, Debug)]
pub struct PerSite {
    /// One byte per [`Site`] id.
    pub bytes: [u8; 16],
    /// The bytes actually read, in order (the replayable sequence).
    pub used: Vec<u8>,
}

impl Driver for PerSite {
    fn random(&mut self, q: &Query) -> u8 {
        let b = self.bytes[q.site.id()];
        self.used.push(b);
        b
    }
}
