"""Runs bench/clingo/ar.lp (+ cut.lp) on a night through clingo's Python API and returns
the answer in the same shape crosscheck.py reads off `gordian resolve --json --expand`.

A resolution is keyed by (frozenset S, frozenset created), S listing every effect in S
(passives included while uncut, created ones as `P>V`); its ways are the distinct final
maps {action id: (player per slot, ...)} of the actions of R that are not cut.
"""
import os
import clingo

HERE = os.path.dirname(os.path.abspath(__file__))
AR = os.path.join(HERE, "ar.lp")
CUT = os.path.join(HERE, "cut.lp")


def name(sym):
    """An effect id as gordian writes it: `e1`, or `e2>V` for a created effect."""
    if sym.type == clingo.SymbolType.String:
        return sym.string
    assert sym.name == "c" and len(sym.arguments) == 2, sym
    return f"{sym.arguments[0].string}>{sym.arguments[1].string}"


def resolutions(facts, cut=()):
    """Every acceptable resolution of the night with `cut`: {(S, created): [way, ...]}."""
    ctl = clingo.Control(["0", "--project", "--warn=none"])
    ctl.load(AR)
    ctl.add("base", [], facts + "".join(f'cut("{e}").' for e in cut))
    ctl.ground([("base", [])])
    found = {}

    def on_model(m):
        s, created, slots = set(), set(), {}
        for a in m.symbols(shown=True):
            if a.name == "s":
                s.add(name(a.arguments[0]))
            elif a.name == "created":
                created.add(name(a.arguments[0]))
            elif a.name == "ft":
                slots.setdefault(name(a.arguments[0]), {})[a.arguments[1].number] = a.arguments[2].string
        way = {k: tuple(v[i] for i in sorted(v)) for k, v in slots.items()}
        found.setdefault((frozenset(s), frozenset(created)), []).append(way)

    ctl.solve(on_model=on_model)
    return found


def optimal_cuts(facts):
    """The optimal Gordian cuts (clingo optN projected on the cut atoms): a set of frozensets."""
    ctl = clingo.Control(["0", "--opt-mode=optN", "--project", "--warn=none"])
    ctl.load(AR)
    ctl.load(CUT)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    cuts = set()

    def on_model(m):
        if m.optimality_proven:
            cuts.add(frozenset(name(a.arguments[0]) for a in m.symbols(shown=True) if a.name == "cut"))

    ctl.solve(on_model=on_model)
    return cuts
