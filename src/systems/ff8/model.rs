//! The FF8 card-rule state and the player's choices (docs/ff8.md): regions, rules, trade
//! rules, the carried rules, trading, the Queen of Cards.
//!
//! Invariants: a [`RuleSet`] only uses its low 7 bits; `amount <= 10`; `points <= 250`;
//! every field of a [`State`] is in range (the parser and the generator never build
//! another), so the step function never meets an impossible value.

use serde::Serialize;
use std::fmt;

/// The eight regions, in the seed's `getRandomRegion` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Region {
    /// Balamb (id 0).
    Balamb,
    /// Galbadia (id 1).
    Galbadia,
    /// Trabia (id 2).
    Trabia,
    /// Centra (id 3).
    Centra,
    /// Dollet (id 4).
    Dollet,
    /// Fisherman's Horizon (id 5).
    FH,
    /// Lunar (id 6).
    Lunar,
    /// Esthar (id 7).
    Esthar,
}

impl Region {
    /// Every region, by id.
    pub const ALL: [Region; 8] = [
        Region::Balamb,
        Region::Galbadia,
        Region::Trabia,
        Region::Centra,
        Region::Dollet,
        Region::FH,
        Region::Lunar,
        Region::Esthar,
    ];
    /// The id 0..8 (the seed's `getRandomRegion` value).
    pub fn id(self) -> usize {
        self as usize
    }
    /// The region with id `i` (`i < 8`).
    pub fn from_id(i: usize) -> Region {
        Region::ALL[i & 7]
    }
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        [
            "Balamb", "Galbadia", "Trabia", "Centra", "Dollet", "FH", "Lunar", "Esthar",
        ][self.id()]
    }
    /// Reads a region name (case-insensitive; `Galbad`, `Fisherman's Horizon` accepted).
    pub fn from_name(s: &str) -> Option<Region> {
        let k = norm(s);
        let r = match k.as_str() {
            "balamb" => Region::Balamb,
            "galbadia" | "galbad" => Region::Galbadia,
            "trabia" => Region::Trabia,
            "centra" => Region::Centra,
            "dollet" => Region::Dollet,
            "fh" | "fishermanshorizon" => Region::FH,
            "lunar" => Region::Lunar,
            "esthar" => Region::Esthar,
            _ => return None,
        };
        Some(r)
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Lower-case letters and digits only (names compare without spaces, dashes, quotes).
pub(crate) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The seven card rules (bit `i` of a [`RuleSet`] is rule `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Rule {
    /// Open.
    Open,
    /// Same.
    Same,
    /// Plus.
    Plus,
    /// Random.
    Random,
    /// Sudden Death.
    SuddenDeath,
    /// Same Wall.
    SameWall,
    /// Elemental.
    Elemental,
}

impl Rule {
    /// Every rule, by bit.
    pub const ALL: [Rule; 7] = [
        Rule::Open,
        Rule::Same,
        Rule::Plus,
        Rule::Random,
        Rule::SuddenDeath,
        Rule::SameWall,
        Rule::Elemental,
    ];
    /// The seed's `getRandomRule`: the rule for `ruleID = getRandom / 32` (Open twice).
    pub const BY_RULE_ID: [Rule; 8] = [
        Rule::Open,
        Rule::Same,
        Rule::Plus,
        Rule::Random,
        Rule::SuddenDeath,
        Rule::Open,
        Rule::SameWall,
        Rule::Elemental,
    ];
    /// The bit index.
    pub fn bit(self) -> usize {
        self as usize
    }
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        [
            "Open",
            "Same",
            "Plus",
            "Random",
            "Sudden Death",
            "Same Wall",
            "Elemental",
        ][self.bit()]
    }
    /// Reads a rule name (case-insensitive, spaces and dashes ignored).
    pub fn from_name(s: &str) -> Option<Rule> {
        let k = norm(s);
        Rule::ALL.into_iter().find(|r| norm(r.name()) == k)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of card rules (7 bits). In JSON: the rules' names in rule order (Open, Same,
/// Plus, Random, Sudden Death, Same Wall, Elemental), `[]` for none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleSet(pub u8);

impl Serialize for RuleSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.rules().map(Rule::name))
    }
}

impl RuleSet {
    /// Every rule ("region rules == all rules" of step 8).
    pub const ALL: RuleSet = RuleSet(0x7f);
    /// No rule.
    pub const EMPTY: RuleSet = RuleSet(0);
    /// Whether `r` is in the set.
    pub fn has(self, r: Rule) -> bool {
        self.0 >> r.bit() & 1 == 1
    }
    /// The set with `r` added.
    pub fn with(self, r: Rule) -> RuleSet {
        RuleSet(self.0 | 1 << r.bit())
    }
    /// The set with `r` removed.
    pub fn without(self, r: Rule) -> RuleSet {
        RuleSet(self.0 & !(1 << r.bit()))
    }
    /// The rules in bit order.
    pub fn rules(self) -> impl Iterator<Item = Rule> {
        Rule::ALL.into_iter().filter(move |&r| self.has(r))
    }
    /// Whether the set has a rule `other` lacks.
    pub fn has_rule_not_in(self, other: RuleSet) -> bool {
        self.0 & !other.0 & 0x7f != 0
    }
}

impl fmt::Display for RuleSet {
    /// `Open, Same Wall`, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.rules().map(Rule::name).collect();
        f.write_str(&names.join(", "))
    }
}

/// A trade rule, in upgrade order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Trade {
    /// One.
    One,
    /// Diff.
    Diff,
    /// Direct.
    Direct,
    /// All.
    All,
}

impl Trade {
    /// Every trade rule.
    pub const ALL: [Trade; 4] = [Trade::One, Trade::Diff, Trade::Direct, Trade::All];
    /// Index 0..4.
    pub fn id(self) -> usize {
        self as usize
    }
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        ["One", "Diff", "Direct", "All"][self.id()]
    }
    /// Reads a trade rule name (case-insensitive).
    pub fn from_name(s: &str) -> Option<Trade> {
        let k = norm(s);
        Trade::ALL.into_iter().find(|t| norm(t.name()) == k)
    }
    /// Step 5's chart: the Queen's new rule from her rule and the class of `rnd`
    /// (0: 0..=109, 1: 110..=219, 2: 220..=255).
    pub fn queen_chart(self, class: usize) -> Trade {
        use Trade::*;
        const CHART: [[Trade; 3]; 4] = [
            [Diff, Diff, One],
            [Direct, One, Diff],
            [All, Diff, Direct],
            [Direct, Direct, All],
        ];
        CHART[self.id()][class]
    }
}

impl fmt::Display for Trade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Step 11's chart as printed in the Triple Triad notes: where the Queen may go from each
/// region, in column order. The notes lost the column spans; [`QUEEN_COLUMNS`] gives them.
pub const QUEEN_CHART: [&[Region]; 8] = {
    use Region::*;
    [
        &[Dollet, Galbadia],
        &[Balamb, Dollet, FH, Centra],
        &[Dollet, Lunar, Balamb],
        &[Dollet, Galbadia, FH],
        &[Balamb, Galbadia],
        &[Esthar, Centra, Dollet],
        &[Balamb, Galbadia, Trabia, Dollet, Centra, FH, Lunar, Esthar],
        &[Trabia, Lunar, Dollet, FH],
    ]
};

/// Step 11's chart column by column: `QUEEN_COLUMNS[from][rnd]` for `rnd = getRandom / 32`.
/// Where each figure comes from is in docs/ff8.md ("The Queen's movement chart"):
/// Balamb's and Dollet's rows (3/8 and 5/8) and Galbadia's first two columns (1/8 each)
/// are published figures; Lunar's row has eight destinations for eight columns, one each;
/// every other figure is a guess (see [`queen_figure_guessed`]).
pub const QUEEN_COLUMNS: [[Region; 8]; 8] = {
    use Region::*;
    [
        // Balamb: Dollet 3/8, Galbadia 5/8 (published).
        [
            Dollet, Dollet, Dollet, Galbadia, Galbadia, Galbadia, Galbadia, Galbadia,
        ],
        // Galbadia: Balamb 1/8, Dollet 1/8 (published); FH 3/8, Centra 3/8 (guessed:
        // the remaining six columns split evenly).
        [Balamb, Dollet, FH, FH, FH, Centra, Centra, Centra],
        // Trabia: 3/8, 3/8, 2/8 (guessed).
        [Dollet, Dollet, Dollet, Lunar, Lunar, Lunar, Balamb, Balamb],
        // Centra: 3/8, 3/8, 2/8 (guessed).
        [Dollet, Dollet, Dollet, Galbadia, Galbadia, Galbadia, FH, FH],
        // Dollet: Balamb 3/8, Galbadia 5/8 (published).
        [
            Balamb, Balamb, Balamb, Galbadia, Galbadia, Galbadia, Galbadia, Galbadia,
        ],
        // FH: 3/8, 3/8, 2/8 (guessed).
        [
            Esthar, Esthar, Esthar, Centra, Centra, Centra, Dollet, Dollet,
        ],
        // Lunar: one column each (eight destinations in eight columns).
        [Balamb, Galbadia, Trabia, Dollet, Centra, FH, Lunar, Esthar],
        // Esthar: 2/8 each (guessed).
        [Trabia, Trabia, Lunar, Lunar, Dollet, Dollet, FH, FH],
    ]
};

/// Where the Queen goes from `from` for `rnd = getRandom / 32` (0..8): [`QUEEN_COLUMNS`].
pub fn queen_destination(from: Region, rnd: usize) -> Region {
    QUEEN_COLUMNS[from.id()][rnd & 7]
}

/// Whether the probability of the Queen's move `from -> to` (step 11) is a guess rather
/// than a published figure (docs/ff8.md): every figure of the Trabia, Centra, FH and
/// Esthar rows, and Galbadia's FH and Centra.
pub fn queen_figure_guessed(from: Region, to: Region) -> bool {
    use Region::*;
    if !QUEEN_CHART[from.id()].contains(&to) {
        return false;
    }
    match from {
        Balamb | Dollet | Lunar => false,
        Galbadia => matches!(to, FH | Centra),
        Trabia | Centra | FH | Esthar => true,
    }
}

/// Whether some figure of `from`'s row is guessed.
pub fn queen_row_guessed(from: Region) -> bool {
    Region::ALL.iter().any(|&to| queen_figure_guessed(from, to))
}

/// The regions whose row of the Queen's chart has a guessed figure and that she could be
/// moved from (step 11) within the first `horizon` challenges of `sc`: with free choices,
/// by playing her in an allowed region wherever she could be by then; with a fixed
/// sequence, by its `play-lv8` challenges of the Queen. Sorted. An answer that may depend
/// on a guessed figure says so with these regions (docs/ff8.md).
pub fn guessed_rows_in_play(sc: &Scenario, horizon: usize) -> Vec<Region> {
    let mut at = [false; 8];
    at[sc.state.queen.id()] = true;
    let mut used = [false; 8];
    for j in 0..horizon {
        let mut next = at;
        match sc.challenges.get(j) {
            None => {
                for q in Region::ALL {
                    if at[q.id()] && sc.allowed.contains(&q) {
                        used[q.id()] |= queen_row_guessed(q);
                        for &d in QUEEN_CHART[q.id()] {
                            next[d.id()] = true;
                        }
                    }
                }
            }
            Some(c) if c.opponent == Opponent::Queen => {
                // Paths where she is elsewhere end here.
                next = [false; 8];
                if at[c.region.id()] {
                    if c.action == Action::PlayMoved {
                        used[c.region.id()] |= queen_row_guessed(c.region);
                        for &d in QUEEN_CHART[c.region.id()] {
                            next[d.id()] = true;
                        }
                    } else {
                        next[c.region.id()] = true;
                    }
                }
            }
            Some(_) => {}
        }
        at = next;
    }
    Region::ALL.into_iter().filter(|r| used[r.id()]).collect()
}

/// One set of carried rules and the region it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Carried {
    /// The rules.
    pub rules: RuleSet,
    /// Where they were picked up (only used for the "let's mix" message).
    pub origin: Region,
}

/// The whole state the rule mechanics read and write.
///
/// Ordered as a derived order would be (field by field in declaration order, arrays
/// element by element) and hashed, but both through [`State::words`], two words that hold
/// every field: engines sort and hash millions of states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct State {
    /// Each region's rules, by region id.
    pub rules: [RuleSet; 8],
    /// Each region's trade rule, by region id.
    pub trade: [Trade; 8],
    /// Carried rules: `[most recent, second most recent]`.
    pub carried: [Carried; 2],
    /// The region rules spread from.
    pub spread_from: Region,
    /// Amount of trading, 0..=10.
    pub amount: u8,
    /// Trade rule points, 0..=250.
    pub points: u8,
    /// Where the Queen of Cards is.
    pub queen: Region,
    /// The Queen's trade rule.
    pub queen_trade: Trade,
    /// The region of the last challenge (where Squall is).
    pub current: Region,
}

impl State {
    /// The state as two words, injective and in the order of the fields: each region's
    /// rules (7 bits a byte, Balamb's the most significant), then the trade rules (2 bits
    /// each), the carried rules (rules, then origin, most recent first), spread-from,
    /// amount (0..=10, 4 bits), points (8 bits), the Queen, her trade rule and the current
    /// region; 61 bits in all in the second word.
    pub fn words(&self) -> (u64, u64) {
        (self.rules_word(), self.rest_word())
    }

    /// The first of [`State::words`]: each region's rules.
    fn rules_word(&self) -> u64 {
        u64::from_be_bytes(self.rules.map(|r| r.0))
    }

    /// The second of [`State::words`]: the other fields.
    fn rest_word(&self) -> u64 {
        let mut lo = 0u64;
        for t in self.trade {
            lo = lo << 2 | t.id() as u64;
        }
        for c in self.carried {
            lo = lo << 8 | u64::from(c.rules.0);
            lo = lo << 3 | c.origin.id() as u64;
        }
        lo = lo << 3 | self.spread_from.id() as u64;
        lo = lo << 4 | u64::from(self.amount);
        lo = lo << 8 | u64::from(self.points);
        lo = lo << 3 | self.queen.id() as u64;
        lo = lo << 2 | self.queen_trade.id() as u64;
        lo << 3 | self.current.id() as u64
    }
}

impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let (hi, lo) = self.words();
        h.write_u64(hi);
        h.write_u64(lo);
    }
}

impl Ord for State {
    fn cmp(&self, other: &State) -> std::cmp::Ordering {
        // The rules word alone decides most comparisons.
        self.rules_word()
            .cmp(&other.rules_word())
            .then_with(|| self.rest_word().cmp(&other.rest_word()))
    }
}

impl PartialOrd for State {
    fn partial_cmp(&self, other: &State) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The seed's starting rules per region.
pub fn starting_rules(r: Region) -> RuleSet {
    use Rule::*;
    let list: &[Rule] = match r {
        Region::Balamb => &[Open],
        Region::Galbadia => &[Same],
        Region::Trabia => &[Plus, Random],
        Region::Centra => &[Same, Plus, Random],
        Region::Dollet => &[Random, Elemental],
        Region::FH => &[SuddenDeath, Elemental],
        Region::Lunar => &[Open, Same, Plus, Random, SuddenDeath, SameWall, Elemental],
        Region::Esthar => &[SameWall, Elemental],
    };
    list.iter().fold(RuleSet::EMPTY, |s, &x| s.with(x))
}

impl Default for State {
    /// The start of the game: the seed's rules, every trade rule One, carrying Balamb's
    /// rules twice, rules spread from Balamb with no trading, no points, the Queen in
    /// Balamb with One, Squall in Balamb (docs/ff8.md explains these choices).
    fn default() -> State {
        let rules = Region::ALL.map(starting_rules);
        let c = Carried {
            rules: rules[0],
            origin: Region::Balamb,
        };
        State {
            rules,
            trade: [Trade::One; 8],
            carried: [c, c],
            spread_from: Region::Balamb,
            amount: 0,
            points: 0,
            queen: Region::Balamb,
            queen_trade: Trade::One,
            current: Region::Balamb,
        }
    }
}

impl State {
    /// The rules of region `r`.
    pub fn rules_of(&self, r: Region) -> RuleSet {
        self.rules[r.id()]
    }
    /// Whether challenging in `r` could mix rules now (step 2's condition, before step 1's
    /// random push): the carried set step 2 selects has a rule `r` lacks.
    pub fn can_mix_in(&self, r: Region) -> bool {
        let here = self.rules_of(r);
        let sel = if self.carried[0].rules != here {
            self.carried[0].rules
        } else {
            self.carried[1].rules
        };
        sel.has_rule_not_in(here)
    }
    /// The Queen's speech band for the amount of trading (`little`, `much`, `some`).
    pub fn trading_band(&self) -> &'static str {
        match self.amount {
            0..=2 => "little trading",
            3..=5 => "much trading",
            _ => "some trading",
        }
    }
    /// Whether the Queen gives her shortened speech ("moving towards One"): points 128..=250.
    pub fn points_speech_towards_one(&self) -> bool {
        self.points >= 128
    }
}

/// Who is challenged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Opponent {
    /// An ordinary player of the region.
    Player,
    /// The Queen of Cards (she must be in the region).
    Queen,
}

/// What the player does at step 6 and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Action {
    /// Refuse to start the game: steps 7-11 do not happen.
    Refuse,
    /// Start the game and quit.
    Quit,
    /// Start and play; against the Queen, her Lv8+ card count did not change.
    Play,
    /// Play against the Queen and change her Lv8+ card count: she moves (step 11).
    PlayMoved,
}

impl Action {
    /// Every action.
    pub const ALL: [Action; 4] = [
        Action::Refuse,
        Action::Quit,
        Action::Play,
        Action::PlayMoved,
    ];
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        ["refuse", "quit", "play", "play-lv8"][self as usize]
    }
    /// Reads an action name.
    pub fn from_name(s: &str) -> Option<Action> {
        let k = norm(s);
        Action::ALL.into_iter().find(|a| norm(a.name()) == k)
    }
    /// Whether the game starts (steps 7-10 happen).
    pub fn starts_game(self) -> bool {
        self != Action::Refuse
    }
}

/// One challenge: where, whom, and what the player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Choice {
    /// The region challenged in.
    pub region: Region,
    /// Whom.
    pub opponent: Opponent,
    /// What happens at step 6 and after.
    pub action: Action,
}

impl Choice {
    /// Whether the choice is possible in `s`: the Queen only where she is, `play-lv8`
    /// only against her.
    pub fn valid_in(&self, s: &State) -> bool {
        match self.opponent {
            Opponent::Queen => s.queen == self.region,
            Opponent::Player => self.action != Action::PlayMoved,
        }
    }
}

impl fmt::Display for Choice {
    /// `Balamb queen play-lv8`, `Dollet play` (the file syntax).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.opponent {
            Opponent::Player => write!(f, "{} {}", self.region, self.action.name()),
            Opponent::Queen => write!(f, "{} queen {}", self.region, self.action.name()),
        }
    }
}

/// The distinct choices in `s` among `allowed` regions: `quit` and `play` against an
/// ordinary player (and `quit` against the Queen) have the same effect as `play`, so only
/// `refuse`, `play` and, against the Queen, `play-lv8` are listed.
pub fn choices(s: &State, allowed: &[Region]) -> Vec<Choice> {
    let mut out = Vec::new();
    for &region in allowed {
        for action in [Action::Refuse, Action::Play] {
            out.push(Choice {
                region,
                opponent: Opponent::Player,
                action,
            });
        }
        if s.queen == region {
            for action in [Action::Refuse, Action::Play, Action::PlayMoved] {
                out.push(Choice {
                    region,
                    opponent: Opponent::Queen,
                    action,
                });
            }
        }
    }
    out
}

/// One atom of a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Atom {
    /// Region has the rule.
    Has(Region, Rule),
    /// Region lacks the rule.
    Lacks(Region, Rule),
    /// Region's trade rule is this.
    TradeIs(Region, Trade),
    /// The Queen is in the region.
    QueenIn(Region),
}

impl Atom {
    /// Whether the atom holds in `s`.
    pub fn holds(&self, s: &State) -> bool {
        match *self {
            Atom::Has(r, x) => s.rules_of(r).has(x),
            Atom::Lacks(r, x) => !s.rules_of(r).has(x),
            Atom::TradeIs(r, t) => s.trade[r.id()] == t,
            Atom::QueenIn(r) => s.queen == r,
        }
    }
}

impl fmt::Display for Atom {
    /// The file syntax: `Dollet has Open`, `Dollet lacks Random`, `Dollet trade One`,
    /// `queen in Dollet`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Has(r, x) => write!(f, "{r} has {x}"),
            Atom::Lacks(r, x) => write!(f, "{r} lacks {x}"),
            Atom::TradeIs(r, t) => write!(f, "{r} trade {t}"),
            Atom::QueenIn(r) => write!(f, "queen in {r}"),
        }
    }
}

/// A conjunction of atoms (the empty goal always holds).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Goal(pub Vec<Atom>);

impl Goal {
    /// Whether every atom holds in `s`.
    pub fn holds(&self, s: &State) -> bool {
        self.0.iter().all(|a| a.holds(s))
    }
    /// Whether the goal only reads region rules (so the trade part of the state is
    /// irrelevant to it).
    pub fn rules_only(&self) -> bool {
        self.0
            .iter()
            .all(|a| matches!(a, Atom::Has(..) | Atom::Lacks(..)))
    }
    /// Whether the goal never reads region rules.
    pub fn trade_only(&self) -> bool {
        self.0
            .iter()
            .all(|a| matches!(a, Atom::TradeIs(..) | Atom::QueenIn(..)))
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|a| a.to_string()).collect();
        f.write_str(&parts.join(" & "))
    }
}

/// A scenario: a state, the regions the player may challenge in, a bound, optionally a
/// fixed choice sequence and a goal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// The starting state.
    pub state: State,
    /// Regions the player may challenge in (sorted, distinct, non-empty).
    pub allowed: Vec<Region>,
    /// Number of challenges for `reach` and `plan` (with a fixed sequence: how many of its
    /// challenges `reach` follows, at most their number; the parser's default is their
    /// number, else 1).
    pub bound: usize,
    /// A fixed sequence of challenges (then `reach` follows them, bytes free).
    pub challenges: Vec<Choice>,
    /// The goal, if any.
    pub goal: Option<Goal>,
}

impl Scenario {
    /// The number of challenges `reach` explores: the bound, and with a fixed sequence at
    /// most its length (the parser refuses a larger bound; `reach` follows the first
    /// `bound` challenges).
    pub fn horizon(&self) -> usize {
        if self.challenges.is_empty() {
            self.bound
        } else {
            self.bound.min(self.challenges.len())
        }
    }
}
