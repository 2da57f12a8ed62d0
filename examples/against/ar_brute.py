#!/usr/bin/env python3
"""ar_brute.py -- an independent brute-force ?AR resolver, for `gordian --against`.

What it is
    A second opinion on gordian's ?AR answers, written only from the rules in
    docs/ar.md, docs/grounding.md and docs/redirection.md (not from gordian's engines).
    It tries every candidate set S of succeeding declared effects, every order of the
    active deflections, and every possible set of created effects, and keeps the acceptable
    (R, S, rho) triples. Python 3.11, standard library only.

How it is run
    gordian runs it through the shell with one night on standard input and
    GORDIAN_SYSTEM=ar in the environment:

        python3 examples/against/ar_brute.py < instances/ar/reflexive.night
        gordian fuzz  --system ar --against 'python3 examples/against/ar_brute.py'
        gordian check --against 'python3 examples/against/ar_brute.py' instances/ar

    Input: the `.night` text format (or its JSON form, if it starts with `{`).
    Output: one JSON object on standard output, exit 0, with the fields of
    `gordian resolve --json`: classification, resolutions, cut_cost, cuts, outcomes,
    death_probabilities. Unparseable input: a message on standard error, exit 2.
    (A night without effects, which `gordian resolve` refuses, is answered as a
    non-paradox with one empty resolution.)

    Cost: 2^n candidate sets for n declared effects, times the deflection orders and
    the created-effect guesses. Nights of the default generator (at most 10 effects)
    take a few milliseconds each, plus Python's start-up; 12 effects, most of them
    reflexive passives, take up to a few tenths of a second.

How it works (one enumeration answers the night and every cut)
    For each subset S of the declared effects (passives included) and each final-target
    map rho that some order of the deflections in S gives, and each possible set X of
    created effects (only the created stops and protects that could make another created
    effect fail are guessed; the rest of X follows as a least fixed point): S is extended by the created effects that succeed (a created effect is never
    blocked, so its success follows from S and X), then the triple is checked:
      * no effect of S is made to fail by S (the kind table of docs/ar.md);
      * X is exactly the least set grounded in S (docs/grounding.md).
    The declared effects that are neither in S nor made to fail form the set N: the
    triple is a resolution of the night with the cut F exactly when N <= F <= E \\ S.
    So the night is a paradox iff no triple has N empty; the optimal cuts are the N of
    least cost vector (a larger F only costs more), and the resolutions under an
    optimal cut F are the triples with N == F.
"""

import json
import re
import sys
from fractions import Fraction
from itertools import permutations

ACTIONS = ("visit", "block", "stop", "protect", "kill", "deflect")
PASSIVES = ("bulletproof", "unblockable", "reflexive")
REFLEXIVE_KINDS = ("visit", "block", "stop", "protect", "kill")
DEFAULT_PRIORITY = {"deflect": 1, "block": 2, "stop": 3, "protect": 4, "kill": 5, "visit": 6}
NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")
MAX_PRIORITY = 4294967295


class NightError(Exception):
    pass


class Effect:
    """A declared effect (passive or action) or a created one."""

    def __init__(self, eid, actor, kind, targets, priority, reflex=None, submitted=True):
        self.id = eid
        self.actor = actor  # player index
        self.kind = kind  # an action kind, or bulletproof / unblockable / reflexive
        self.reflex = reflex  # K of reflexive:K
        self.targets = tuple(targets)  # player indices
        self.priority = priority
        self.submitted = submitted  # declared (blocks touch it) or created
        self.passive = kind in PASSIVES


# ------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------

def parse_kind(kind, passive_kw, where):
    """(kind, reflex) of a kind word."""
    if passive_kw:
        if kind in ("bulletproof", "unblockable"):
            return kind, None
        if kind.startswith("reflexive:") and kind[len("reflexive:"):] in REFLEXIVE_KINDS:
            return "reflexive", kind[len("reflexive:"):]
        raise NightError(f"{where}: unknown passive kind `{kind}`")
    if kind in ACTIONS:
        return kind, None
    raise NightError(f"{where}: unknown kind `{kind}`")


def parse_night_text(text):
    """Reads the `.night` format into (declared players or None, raw effects)."""
    players = None
    raw = []  # (index, id or None, actor, kind, reflex, targets, priority or None, where)
    n_effects = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        code = line.split("#", 1)[0]
        ws = code.split()
        if not ws:
            continue
        where = f"line {lineno}"
        eid = None
        if ":" in ws[0]:
            name, after = ws[0].split(":", 1)
            ws = ([after] if after else []) + ws[1:]
            if name == "players":
                if players is not None:
                    raise NightError(f"{where}: second `players:` line")
                if n_effects:
                    raise NightError(f"{where}: the `players:` line must come first")
                players = ws
                continue
            n_effects += 1
            if not name:
                raise NightError(f"{where}: missing id before `:`")
            eid = name
        else:
            n_effects += 1
        if "@" in ws:
            raise NightError(f"{where}: missing priority after `@`")
        priority = None
        if ws and ws[-1].startswith("@"):
            digits = ws.pop()[1:]
            if not digits.isascii() or not digits.isdigit() or int(digits) > MAX_PRIORITY:
                raise NightError(f"{where}: bad priority `@{digits}`")
            priority = int(digits)
        if any(w.startswith("@") for w in ws):
            raise NightError(f"{where}: the priority must be the last word of the line")
        if len(ws) < 2:
            raise NightError(f"{where}: expected `ACTOR KIND TARGET...`")
        actor, kind, rest = ws[0], ws[1], ws[2:]
        passive_kw = kind == "passive"
        if passive_kw:
            if not rest:
                raise NightError(f"{where}: missing passive kind after `passive`")
            kind, rest = rest[0], rest[1:]
        kind, reflex = parse_kind(kind, passive_kw, where)
        raw.append((n_effects, eid, actor, kind, reflex, rest, priority, where))
    return players, raw


def parse_json_text(text):
    try:
        top = json.loads(text)
    except ValueError as e:
        raise NightError(f"bad JSON: {e}")
    if not isinstance(top, dict) or not isinstance(top.get("effects"), list):
        raise NightError("expected a JSON object with an `effects` array")
    players = top.get("players")
    if players is not None and not (
        isinstance(players, list) and all(isinstance(p, str) for p in players)
    ):
        raise NightError("`players` must be an array of player names")
    raw = []
    for i, e in enumerate(top["effects"], 1):
        where = f"effect {i}"
        if not isinstance(e, dict) or set(e) - {"id", "actor", "kind", "targets", "priority"}:
            raise NightError(f"{where}: expected an effect object")
        actor, kind = e.get("actor"), e.get("kind")
        targets = e.get("targets") or []
        eid, priority = e.get("id"), e.get("priority")
        if not isinstance(actor, str) or not isinstance(kind, str):
            raise NightError(f"{where}: `actor` and `kind` must be strings")
        if not (isinstance(targets, list) and all(isinstance(t, str) for t in targets)):
            raise NightError(f"{where}: `targets` must be an array of player names")
        if eid is not None and not isinstance(eid, str):
            raise NightError(f"{where}: `id` must be a string")
        if priority is not None and (
            isinstance(priority, bool) or not isinstance(priority, int)
            or not 0 <= priority <= MAX_PRIORITY
        ):
            raise NightError(f"{where}: bad priority")
        passive_kw = kind in ("bulletproof", "unblockable") or kind.startswith("reflexive:")
        kind, reflex = parse_kind(kind, passive_kw, where)
        raw.append((i, eid, actor, kind, reflex, targets, priority, where))
    return players, raw


def build(players, raw):
    """Validates names, ids, arities and deflections; returns (players, effects)."""
    declared = players is not None
    names = list(players or [])
    for p in names:
        if not NAME.match(p):
            raise NightError(f"invalid player name `{p}`")
    if len(set(names)) != len(names):
        raise NightError("a player is declared twice")
    index = {p: i for i, p in enumerate(names)}

    def player(name, where):
        if not NAME.match(name):
            raise NightError(f"{where}: invalid name `{name}`")
        if name not in index:
            if declared:
                raise NightError(f"{where}: undeclared player `{name}`")
            index[name] = len(names)
            names.append(name)
        return index[name]

    effects, ids, deflectors = [], set(), set()
    for n, eid, actor, kind, reflex, targets, priority, where in raw:
        eid = eid if eid is not None else f"e{n}"
        if not NAME.match(eid) or eid == "players":
            raise NightError(f"{where}: invalid id `{eid}`")
        if eid in ids:
            raise NightError(f"{where}: duplicate id `{eid}`")
        ids.add(eid)
        a = player(actor, where)
        ts = [player(t, where) for t in targets]
        if kind in PASSIVES:
            if ts:
                raise NightError(f"{where}: a passive has no targets")
        elif kind in ("kill", "deflect"):
            if len(ts) != 1:
                raise NightError(f"{where}: `{kind}` takes exactly one target")
        elif not ts:
            raise NightError(f"{where}: `{kind}` needs at least one target")
        if kind == "deflect":
            if a in deflectors:
                raise NightError(f"{where}: a second deflection by `{actor}`")
            deflectors.add(a)
        if priority is None:
            priority = 0 if kind in PASSIVES else DEFAULT_PRIORITY[kind]
        effects.append(Effect(eid, a, kind, ts, priority, reflex))
    return names, effects


def parse(text):
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.lstrip().startswith("{"):
        return build(*parse_json_text(text))
    return build(*parse_night_text(text))


# ------------------------------------------------------------------------------------
# The rules (docs/ar.md, kind table)
# ------------------------------------------------------------------------------------

def makes_fail(g, g_ft, f, f_ft, unblockable_owners):
    """Whether g, succeeding with final targets g_ft, makes the action f (final targets
    f_ft) fail. Passives are never made to fail (only cut)."""
    if f.passive or g is f:
        return False
    if g.kind == "block":
        return f.submitted and f.actor in g_ft and f.actor not in unblockable_owners
    if g.kind == "stop":
        return f.kind != "stop" and any(t in g_ft for t in f_ft)
    if g.kind == "protect":
        return f.kind == "kill" and any(t in g_ft for t in f_ft)
    if g.kind == "bulletproof":
        return f.kind == "kill" and f_ft[0] == g.actor
    return False  # visit, kill, deflect, unblockable, reflexive make nothing fail


def final_maps(n_players, deflections):
    """Every distinct end map (player a slot starts at -> player it ends at) given by
    processing the active deflections one at a time, in every order. Processing g
    (actor d) moves every slot currently at d to g's current target; a slot's position
    only depends on where it started, so one virtual slot per player is enough (g's own
    slot is only at d when g's current target is d, and then nothing moves)."""
    maps = set()
    for order in permutations(deflections):
        pos = list(range(n_players))
        for g in order:
            d, c = g.actor, pos[g.targets[0]]
            for p in range(n_players):
                if pos[p] == d:
                    pos[p] = c
        maps.add(tuple(pos))
    return sorted(maps)


# ------------------------------------------------------------------------------------
# The brute force
# ------------------------------------------------------------------------------------

class Solver:
    def __init__(self, players, effects):
        self.players = players
        self.effects = effects
        self.n = len(effects)
        self.np = len(players)
        self.all_mask = (1 << self.n) - 1
        self.actor_mask = [0] * self.np  # declared actions of each player
        for i, e in enumerate(effects):
            if not e.passive:
                self.actor_mask[e.actor] |= 1 << i
        self._maps = {}
        self._frames = {}
        self.triples = []  # (cut mask N, S mask, created ids, S created ids, rho, deaths)

    def maps_for(self, defl_mask):
        if defl_mask not in self._maps:
            defl = [self.effects[i] for i in range(self.n) if defl_mask >> i & 1]
            self._maps[defl_mask] = final_maps(self.np, defl)
        return self._maps[defl_mask]

    def frame(self, end):
        """Per end map: final targets of the declared slots, and what each declared
        effect makes fail among the declared ones if it succeeds (blocks separately,
        since an `unblockable` in S cancels them)."""
        if end not in self._frames:
            ft = [tuple(end[t] for t in e.targets) for e in self.effects]
            att_block, att_other = [0] * self.n, [0] * self.n
            for gi, g in enumerate(self.effects):
                for fi, f in enumerate(self.effects):
                    if makes_fail(g, ft[gi], f, ft[fi], ()):
                        if g.kind == "block":
                            att_block[gi] |= 1 << fi
                        else:
                            att_other[gi] |= 1 << fi
            self._frames[end] = (ft, att_block, att_other)
        return self._frames[end]

    def run(self):
        E = self.effects
        defl_bits = [i for i in range(self.n) if E[i].kind == "deflect"]
        for S in range(1 << self.n):
            inS = [S >> i & 1 for i in range(self.n)]
            ub_owners = {E[i].actor for i in range(self.n) if inS[i] and E[i].kind == "unblockable"}
            ub_mask = 0
            for o in ub_owners:
                ub_mask |= self.actor_mask[o]
            reflexives = [E[i] for i in range(self.n) if inS[i] and E[i].kind == "reflexive"]
            defl_mask = sum(1 << i for i in defl_bits if inS[i])
            for end in self.maps_for(defl_mask):
                ft, att_block, att_other = self.frame(end)
                fb = fo = 0
                for i in range(self.n):
                    if inS[i]:
                        fb |= att_block[i]
                        fo |= att_other[i]
                fails = (fb & ~ub_mask) | fo
                if fails & S:
                    continue  # created effects only add failures
                if not reflexives:
                    self.record(S, fails, end, ft, [], set())
                    continue
                self.with_created(S, inS, fails, end, ft, reflexives, ub_owners)

    def with_created(self, S, inS, fails, end, ft, reflexives, ub_owners):
        E = self.effects
        decl_succ = [(E[i], ft[i]) for i in range(self.n) if inS[i] and not E[i].passive]
        base = decl_succ + [(E[i], ()) for i in range(self.n) if inS[i] and E[i].passive]

        # U: every created effect some chain of actions in S could trigger (success of
        # created effects ignored), an over-approximation of R \ E. A created effect
        # c(p, v) is a K by p's owner at v, with p's priority; its slot starts at v.
        universe = {}
        frontier = list(decl_succ)
        while frontier:
            a, a_ft = frontier.pop()
            for p in reflexives:
                if a.actor != p.actor and p.actor in a_ft and (p.id, a.actor) not in universe:
                    c = Effect(f"{p.id}>{self.players[a.actor]}", p.actor, p.reflex,
                               [a.actor], p.priority, submitted=False)
                    universe[(p.id, a.actor)] = (c, (end[a.actor],))
                    frontier.append(universe[(p.id, a.actor)])
        U = list(universe.values())
        # Which created effects succeed depends on X only through the created stops and
        # protects that can make another created effect fail ("relevant" ones). Guess
        # which of those exist; the success of every created effect follows, X is then
        # the least fixed point, and the guess must agree with it. Each X so found is
        # checked against the rules in full by `check`.
        relevant = [c.id for c, c_ft in U if c.kind in ("stop", "protect")
                    and any(makes_fail(c, c_ft, u, u_ft, ub_owners) for u, u_ft in U)]
        for ym in range(1 << len(relevant)):
            Y = {cid for j, cid in enumerate(relevant) if ym >> j & 1}
            assumed = [cf for cf in U if cf[0].id in Y or cf[0].id not in relevant]
            ok = self.created_success(assumed, base, ub_owners)
            X = self.derive(decl_succ, reflexives, universe, ok)
            if X is not None and {k for k in X if universe[k][0].id in relevant} == \
                    {k for k in universe if universe[k][0].id in Y}:
                self.check(S, fails, end, ft, [universe[k] for k in sorted(X)], base,
                           decl_succ, reflexives, universe, ub_owners)

    @staticmethod
    def created_success(X, base, ub_owners):
        """Ids of the created effects of X that nothing succeeding makes fail. Created
        effects are never blocked: stops are made to fail by nothing here, protects only
        by stops, the rest by stops, protects and bulletproof; so decide stops first, then
        protects, then the rest."""
        succ = list(base)
        ok = set()
        for c, c_ft in sorted(X, key=lambda cf: {"stop": 0, "protect": 1}.get(cf[0].kind, 2)):
            if not any(makes_fail(g, g_ft, c, c_ft, ub_owners) for g, g_ft in succ):
                succ.append((c, c_ft))
                ok.add(c.id)
        return ok

    @staticmethod
    def derive(decl_succ, reflexives, universe, succeeding):
        """Grounded creation: the least set of created effects derivable step by step from
        the succeeding declared actions, a created effect triggering further ones only if
        its id is in `succeeding`. Returns the set of universe keys."""
        derived = set()
        triggers = list(decl_succ)
        while triggers:
            a, a_ft = triggers.pop()
            for p in reflexives:
                key = (p.id, a.actor)
                if a.actor != p.actor and p.actor in a_ft and key not in derived:
                    derived.add(key)
                    if universe[key][0].id in succeeding:
                        triggers.append(universe[key])
        return derived

    def check(self, S, fails, end, ft, X, base, decl_succ, reflexives, universe, ub_owners):
        """Checks the candidate (S on the declared effects, created effects X, end map)
        against conditions 1 and 2 and records it."""
        E = self.effects
        created_ok = self.created_success(X, base, ub_owners)
        succ = list(base) + [(c, c_ft) for c, c_ft in X if c.id in created_ok]
        # condition 1 on the created effects, re-checked against the whole S
        if any((c.id in created_ok)
               == any(makes_fail(g, g_ft, c, c_ft, ub_owners) for g, g_ft in succ)
               for c, c_ft in X):
            return
        # condition 1 on the declared effects: what the created ones make fail
        all_fails = fails
        for c, c_ft in X:
            if c.id in created_ok:
                for fi, f in enumerate(E):
                    if makes_fail(c, c_ft, f, ft[fi], ub_owners):
                        all_fails |= 1 << fi
        if all_fails & S:
            return
        # condition 2: X is exactly the least fixed point, with S as it is
        if self.derive(decl_succ, reflexives, universe, created_ok) != \
                {(p, v) for (p, v), (c, _) in universe.items() if any(c is x for x, _ in X)}:
            return
        self.record(S, all_fails, end, ft, X, created_ok)

    def record(self, S, fails, end, ft, X, created_ok):
        E = self.effects
        cut = self.all_mask & ~S & ~fails
        rho = {}
        deaths = set()
        for i, e in enumerate(E):
            if not e.passive and not cut >> i & 1:
                rho[e.id] = tuple(self.players[t] for t in ft[i])
                if e.kind == "kill" and S >> i & 1:
                    deaths.add(self.players[ft[i][0]])
        for c, c_ft in X:
            rho[c.id] = tuple(self.players[t] for t in c_ft)
            if c.kind == "kill" and c.id in created_ok:
                deaths.add(self.players[c_ft[0]])
        created = tuple(sorted(c.id for c, _ in X))
        self.triples.append((cut, S, created, frozenset(created_ok),
                             tuple(sorted(rho.items())), tuple(sorted(deaths))))


# ------------------------------------------------------------------------------------
# Answer
# ------------------------------------------------------------------------------------

def frac(q):
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def resolve(players, effects):
    solver = Solver(players, effects)
    solver.run()
    n = len(effects)
    levels = sorted({e.priority for e in effects})

    def cost(cut):
        return tuple(sum(1 for i in range(n) if cut >> i & 1 and effects[i].priority == p)
                     for p in levels)

    # group the triples into resolutions (cut, R, S) with their ways
    by_cut = {}
    for cut, S, created, created_ok, rho, deaths in solver.triples:
        res = by_cut.setdefault(cut, {}).setdefault((S, created, created_ok), {})
        res[rho] = deaths

    def resolutions(cut):
        out = []
        for (S, created, created_ok), ways in by_cut.get(cut, {}).items():
            succ = [effects[i].id for i in range(n) if S >> i & 1] + sorted(created_ok)
            failed = [effects[i].id for i in range(n) if not S >> i & 1]
            failed += [c for c in created if c not in created_ok]
            out.append({
                "succeeded": succ,
                "failed": failed,
                "created": list(created),
                "size": n + len(created),
                "ways": [{"final_targets": {k: list(v) for k, v in rho},
                          "deaths": list(d)} for rho, d in sorted(ways.items())],
            })
        least = min((r["size"] for r in out), default=0)
        for r in out:
            r["optimal"] = r["size"] == least
        return out

    answer = {}
    if 0 in by_cut:
        res = resolutions(0)
        n_ways = sum(len(r["ways"]) for r in res)
        answer["classification"] = "non-paradox" if n_ways == 1 else "quasi-paradox"
        answer["resolutions"] = res
        answer["cut_cost"] = None
        answer["cuts"] = None
        picks = [(0, res)]
    else:
        best = min(cost(c) for c in by_cut)  # never empty: cutting everything works
        optimal = sorted(c for c in by_cut if cost(c) == best)
        cost_json = [{"priority": p, "count": k} for p, k in zip(levels, best)]
        picks = [(c, resolutions(c)) for c in optimal]
        answer["classification"] = "paradox"
        answer["resolutions"] = []
        answer["cut_cost"] = cost_json
        answer["cuts"] = {
            "cost": cost_json,
            "optimal": [{"cut": [effects[i].id for i in range(n) if c >> i & 1],
                         "resolutions": res} for c, res in picks],
        }
    outcomes, dist = [], {}
    for cut, res in picks:
        opt = [r for r in res if r["optimal"]]
        for r in opt:
            for w in r["ways"]:
                p = Fraction(1, len(picks) * len(opt) * len(r["ways"]))
                outcomes.append({"probability": frac(p),
                                 "cut": [effects[i].id for i in range(n) if cut >> i & 1],
                                 "succeeded": r["succeeded"],
                                 "final_targets": w["final_targets"],
                                 "deaths": w["deaths"]})
                key = tuple(w["deaths"])
                dist[key] = dist.get(key, 0) + p
    answer["outcomes"] = outcomes
    answer["death_probabilities"] = [{"deaths": list(d), "probability": frac(p)}
                                     for d, p in sorted(dist.items())]
    return answer


def main():
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"ar_brute: invalid UTF-8 input: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        players, effects = parse(text)
    except NightError as e:
        print(f"ar_brute: {e}", file=sys.stderr)
        sys.exit(2)
    json.dump(resolve(players, effects), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
