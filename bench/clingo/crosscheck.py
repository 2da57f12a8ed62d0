#!/usr/bin/env python3
"""Cross-checks gordian against the independent ASP encoding (ar.lp, cut.lp) under clingo.

Usage: crosscheck.py [--gordian BIN] [--engine E] [--night-example BIN] [--random N] [--seed S]
                     [--effects N] [--players N] [--passives R,R] [FILE...]

For every night (the FILEs, default every instances/ar/*.night, plus N small random nights
printed by gordian's `night` example, with deflect, 1-12 (--effects) effects, 2-6 (--players) players,
0-3 priority levels, passive rate 0.15 or 0.4 (--passives)) it runs
`gordian resolve --json --expand=always` and clingo, and compares:
  * the classification;
  * every acceptable resolution (S and the created effects), its ways (final-target maps)
    and its `optimal` flag (fewest created effects);
  * for a paradox: the optimal cut cost per priority level, the set of optimal cuts, and
    under each optimal cut every resolution as above.
Exit 0 when all agree, 1 on any disagreement (each printed with the night and both
answers), 2 on bad usage or when clingo is not importable.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import night2lp  # noqa: E402

try:
    import asp  # noqa: E402  (imports clingo)
except ImportError as e:
    print(f"crosscheck: clingo is not importable ({e}); `pip install clingo` first", file=sys.stderr)
    sys.exit(2)


def classify(res):
    if not res:
        return "paradox"
    if len(res) == 1 and len(next(iter(res.values()))) == 1:
        return "non-paradox"
    return "quasi-paradox"


def canon_ways(ways):
    return sorted(tuple(sorted(w.items())) for w in ways)


def canon_res(res):
    """{(S, created): ways} -> sorted comparable list, with the optimal flag."""
    if not res:
        return []
    least = min(len(c) for _, c in res)
    return sorted(
        (tuple(sorted(s)), tuple(sorted(c)), len(c) == least, canon_ways(ways))
        for (s, c), ways in res.items()
    )


def gordian_res(rs):
    return sorted(
        (
            tuple(sorted(r["succeeded"])),
            tuple(sorted(r["created"])),
            r["optimal"],
            canon_ways([{k: tuple(v) for k, v in w["final_targets"].items()} for w in r["ways"]]),
        )
        for r in rs
    )


def clingo_answer(path):
    players, effects = night2lp.parse(open(path, encoding="utf-8").read())
    facts = night2lp.facts(players, effects)
    res = asp.resolutions(facts)
    ans = {"classification": classify(res), "resolutions": canon_res(res)}
    if not res:
        prio = {e["id"]: e["priority"] for e in effects}
        cuts = asp.optimal_cuts(facts)
        levels = sorted(set(prio.values()))
        costs = {tuple(sum(prio[e] == l for e in c) for l in levels) for c in cuts}
        ans["cost"] = [list(zip(levels, c)) for c in sorted(costs)]
        ans["cuts"] = sorted(
            (tuple(sorted(c)), canon_res(asp.resolutions(facts, cut=c))) for c in cuts
        )
    return ans


def gordian_answer(gordian, engine, path):
    out = subprocess.run(
        [gordian, "resolve", "--json", "--expand=always", "--engine", engine, path],
        capture_output=True, text=True,
    )
    if out.returncode == 2:
        return {"rejected": "bad input"}
    if out.returncode != 0:
        return {"error": f"exit {out.returncode}: {out.stderr.strip()}"}
    d = json.loads(out.stdout)
    ans = {"classification": d["classification"], "resolutions": gordian_res(d["resolutions"])}
    if d["classification"] == "paradox":
        ans["cost"] = [[(c["priority"], c["count"]) for c in d["cuts"]["cost"]]]
        ans["cuts"] = sorted(
            (tuple(sorted(c["cut"])), gordian_res(c["resolutions"])) for c in d["cuts"]["optimal"]
        )
    return ans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--gordian", default=os.path.join(ROOT, "target/release/gordian"))
    ap.add_argument("--night-example", default=os.path.join(ROOT, "target/release/examples/night"))
    ap.add_argument("--engine", default="both", help="gordian's --engine (default both: compared)")
    ap.add_argument("--random", type=int, default=0, help="number of small random nights")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--effects", type=int, default=12, help="random nights have 1 to this many effects")
    ap.add_argument("--passives", default="0.15,0.4", help="passive rates, comma-separated")
    ap.add_argument("--players", type=int, default=5, help="random nights have 2 to 1 + this many players")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "instances/ar/*.night")))
    tmp = tempfile.mkdtemp(prefix="crosscheck-")
    for i in range(args.random):
        seed = args.seed + i
        effects, players = 1 + seed % args.effects, 2 + (seed // 12) % args.players
        levels = (seed // 60) % 4  # 0 = the kinds' default priorities
        rates = [float(x) for x in args.passives.split(",")]
        passives = rates[(seed // 240) % len(rates)]
        night = subprocess.run(
            [args.night_example, str(effects), str(seed), "--players", str(players),
             "--levels", str(levels), "--passives", str(passives), "--deflect"],
            capture_output=True, text=True, check=True,
        ).stdout
        p = os.path.join(tmp, f"random-{seed}.night")
        with open(p, "w") as f:
            f.write(night)
        files.append(p)
    tally, bad = {}, 0
    for path in files:
        g = gordian_answer(args.gordian, args.engine, path)
        try:
            c = clingo_answer(path)
        except night2lp.NightError as e:
            print(f"{path}:{e.line}:{e.col}: {e.msg}")
            c = {"rejected": "bad input"}
        if g != c:
            bad += 1
            print(f"DISAGREE {path}\n{open(path).read()}")
            for k in sorted(set(g) | set(c)):
                if g.get(k) != c.get(k):
                    print(f"  {k}:\n    gordian: {g.get(k)}\n    clingo:  {c.get(k)}")
        else:
            cls = c.get("classification", "rejected")
            tally[cls] = tally.get(cls, 0) + 1
            if args.verbose:
                print(f"ok {cls:13} {path}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(tally.items()))
    print(f"{len(files) - bad} nights agree ({summary}), {bad} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
