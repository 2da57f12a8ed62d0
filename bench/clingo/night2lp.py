#!/usr/bin/env python3
"""Converts a gordian ?AR night file (`.night`) into facts for bench/clingo/ar.lp.

Usage: night2lp.py NIGHT [-o OUT.lp]      (`-` reads standard input)

The format is the one documented in gordian's src/systems/ar/night/parse.rs (module doc):
one effect a line `[ID:] ACTOR KIND TARGET... [@PRIORITY]`, passives written
`ACTOR passive KIND`, an optional `players:` line, `#` comments. Every rule the
parser checks is checked here too; a night it rejects gets `FILE:LINE:COL: message`
on standard error and exit status 2 (the first error only). The whole language is
supported: every action kind (deflect included) and every passive.

Facts written (see ar.lp): player/1, effect/1, actor/2, act/2, target/3, passive/2,
prio/2 (the declared priority) and level/2 (the priority as a clingo optimisation
weight: the most important, i.e. lowest, priority present gets the highest weight).
"""
import re
import sys

ACTIONS = ["visit", "block", "stop", "protect", "kill", "deflect"]
DEFAULT_PRIORITY = {"deflect": 1, "block": 2, "stop": 3, "protect": 4, "kill": 5, "visit": 6}
PASSIVES = ["bulletproof", "unblockable"] + ["reflexive:" + k for k in ACTIONS if k != "deflect"]
NAME = re.compile(r"[A-Za-z0-9_.\-]+\Z")
MAX_PRIORITY = 4294967295


class NightError(Exception):
    def __init__(self, line, col, msg):
        super().__init__(msg)
        self.line, self.col, self.msg = line, col, msg


def words(code):
    """The words of a line with their 1-based columns (in characters)."""
    return [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", code)]


def check_name(col, name, what):
    if not NAME.match(name):
        bad = next((c for c in name if not NAME.match(c)), name[:1])
        raise NightError(None, col, f"invalid character {bad!r} in {what} `{name}`")


def parse(text):
    """Parses a night: (players, effects); each effect a dict. Raises NightError."""
    if text.startswith("\ufeff"):
        text = text[1:]
    players, declared_players, effects = [], None, []
    n_effects = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        code = line.split("#", 1)[0]
        ws = words(code)
        if not ws:
            continue
        try:
            c0, w0 = ws[0]
            eid = None
            if ":" in w0:
                name, after = w0.split(":", 1)
                ws = ws[1:]
                if after:
                    ws.insert(0, (c0 + len(name) + 1, after))
                if name == "players":
                    if declared_players is not None:
                        raise NightError(lineno, c0, "second `players:` line")
                    if n_effects:
                        raise NightError(lineno, c0, "the `players:` line must come before the first effect")
                    declared_players = []
                    for c, w in ws:
                        check_name(c, w, "player name")
                        if w in declared_players:
                            raise NightError(lineno, c, f"player `{w}` is declared twice")
                        declared_players.append(w)
                    continue
                n_effects += 1
                if not name:
                    raise NightError(lineno, c0, "missing id before `:`")
                check_name(c0, name, "id")
                eid = name
            else:
                n_effects += 1
            priority = None
            if ws and ws[-1][1].startswith("@"):
                c, w = ws.pop()
                if not w[1:].isdigit() or int(w[1:]) > MAX_PRIORITY:
                    raise NightError(lineno, c, f"bad priority `{w}`")
                priority = int(w[1:])
            for c, w in ws:
                if w.startswith("@"):
                    raise NightError(lineno, c, "the priority must be the last word")
            if len(ws) < 2:
                raise NightError(lineno, ws[0][0] if ws else c0, "an effect needs an actor and a kind")
            (ca, actor), (ck, kind) = ws[0], ws[1]
            check_name(ca, actor, "player name")
            targets = ws[2:]
            if kind == "passive":
                if not targets:
                    raise NightError(lineno, ck, "missing passive kind")
                (ck, kind), targets = targets[0], targets[1:]
                if kind not in PASSIVES:
                    raise NightError(lineno, ck, f"unknown passive `{kind}`")
                if targets:
                    raise NightError(lineno, targets[0][0], f"passive `{kind}` takes no targets")
                is_passive = True
            else:
                if kind not in ACTIONS:
                    raise NightError(lineno, ck, f"unknown kind `{kind}`")
                if not targets:
                    raise NightError(lineno, ck, f"`{kind}` needs a target")
                if kind in ("kill", "deflect") and len(targets) != 1:
                    raise NightError(lineno, targets[1][0], f"`{kind}` takes exactly one target")
                is_passive = False
            for c, t in targets:
                check_name(c, t, "player name")
            effects.append(dict(
                index=n_effects, id=eid, line=lineno, col=c0, actor=actor, actor_col=ca, kind_col=ck,
                kind=kind, passive=is_passive,
                targets=[t for _, t in targets], target_cols=[c for c, _ in targets],
                priority=priority if priority is not None else (0 if is_passive else DEFAULT_PRIORITY[kind]),
            ))
        except NightError as e:
            e.line = lineno
            raise
    # Validation over the whole night.
    seen, deflectors = {}, {}
    for e in effects:
        if e["id"] is None:
            e["id"] = f"e{e['index']}"
    for e in effects:
        if e["id"] in seen:
            raise NightError(e["line"], e["col"], f"duplicate id `{e['id']}`")
        seen[e["id"]] = e
        names = [(e["actor_col"], e["actor"])] + list(zip(e["target_cols"], e["targets"]))
        for c, p in names:
            if declared_players is not None and p not in declared_players:
                raise NightError(e["line"], c, f"undeclared player `{p}`")
            if declared_players is None and p not in players:
                players.append(p)
        if e["kind"] == "deflect":
            if e["actor"] in deflectors:
                raise NightError(e["line"], e["kind_col"], f"`{e['actor']}` already deflects")
            deflectors[e["actor"]] = e
    return (declared_players if declared_players is not None else players), effects


def q(s):
    return '"' + s + '"'  # names are [A-Za-z0-9_.-]+: nothing to escape


def facts(players, effects):
    levels = sorted({e["priority"] for e in effects})
    weight = {l: len(levels) - i for i, l in enumerate(levels)}
    out = [f"player({q(p)})." for p in players]
    for e in effects:
        i = q(e["id"])
        out.append(f"effect({i}). actor({i},{q(e['actor'])}). prio({i},{e['priority']}). level({i},{weight[e['priority']]}).")
        if e["passive"]:
            k = e["kind"]
            out.append(f"passive({i},{k if ':' not in k else 'reflexive(' + k.split(':')[1] + ')'}).")
        else:
            out.append(f"act({i},{e['kind']}).")
            out.extend(f"target({i},{n},{q(t)})." for n, t in enumerate(e["targets"], 1))
    return "\n".join(out) + "\n"


def convert(path):
    """The facts of the night file at `path` (`-`: stdin). Raises NightError, OSError."""
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    return facts(*parse(text))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "-o"):
        print("usage: night2lp.py NIGHT [-o OUT.lp]", file=sys.stderr)
        return 2
    try:
        lp = convert(argv[1])
    except NightError as e:
        print(f"{argv[1]}:{e.line}:{e.col}: {e.msg}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 2
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write(lp)
    else:
        sys.stdout.write(lp)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
