#!/usr/bin/env python3
"""gordian against clingo on issue 15's benchmark nights, in one run; prints ratios.

Usage (from anywhere; builds gordian first):
    cargo build --release --bin gordian --example night
    python3 bench/clingo/compare.py [--reps N] [--seeds 0,3] [--pairs 14]

Nights (written to a temporary directory):
  * the 1,000-effect paradox of `benches/resolve.rs::large_paradox(1000)`: the first seed
    from 0 of `--example night -- 1000 SEED --paradox` (500 players, three priority
    levels, every kind but deflect, passives); other start seeds with --seeds (the
    README's seed 3 has more optimal cuts);
  * 14 (--pairs) disjoint mutual roleblocks: 2^14 resolutions.
Each is converted once by night2lp.py (not timed) for clingo's ar.lp / cut.lp.

Timed, whole processes, alternating (every command once per round), --reps rounds
(default 5), medians of wall time and of peak memory (`/usr/bin/time -f %M`):
  * clingo's optimal-cut enumeration: `clingo ar.lp cut.lp NIGHT.lp --opt-mode=optN
    --project 0` (projected on the cut atoms: each optimal cut once), with clingo's
    default model-guided optimisation and with core-guided `--opt-strategy=usc`;
  * clingo's model count of the pairs: `clingo ar.lp PAIRS.lp --project 0`;
  * `gordian resolve --json` (default engine: both, compared), `--engine sat --json`,
    `--expand=always --json` (default engine) and `--engine sat --expand=always --json`.
Ratios are clingo / gordian (above 1: gordian faster), against clingo's faster mode.
The counts each side found are checked: classification, optimal cut cost and number of
optimal cuts (and the cuts listed by --expand), number of resolutions; any mismatch
ends the run with exit 1. Without clingo (no `clingo` on PATH, no importable Python
module) the run prints why and exits 0. CLINGO="cmd ..." picks the clingo command;
by default a `clingo` binary on PATH, else `python3 -m clingo` (pip install clingo).
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import night2lp  # noqa: E402

AR, CUT = os.path.join(HERE, "ar.lp"), os.path.join(HERE, "cut.lp")


def clingo_commands():
    """Every clingo front-end found: (name, argv prefix)."""
    if os.environ.get("CLINGO"):
        return [("clingo", shlex.split(os.environ["CLINGO"]))]
    found = []
    if shutil.which("clingo"):
        found.append(("clingo", [shutil.which("clingo")]))
    try:
        import clingo

        # bench/clingo itself imports as an empty namespace package when bench/ is on the
        # path: only the real module has a Control.
        if hasattr(clingo, "Control"):
            found.append(("py-clingo", [sys.executable, "-m", "clingo"]))
    except ImportError:
        pass
    return found


def run(cmd, tmp):
    """Runs cmd once: (seconds, peak KB, stdout, exit code)."""
    mem = os.path.join(tmp, "mem")
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-o", mem, "-f", "%M"] + cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    kb = int(open(mem).read().split()[-1])
    return dt, kb, p.stdout, p.returncode


def clingo_stats(out):
    """Counts from clingo's summary: models, optimal models, optimisation vector."""
    st = {}
    for line in out.splitlines():
        k, _, v = line.partition(":")
        k = k.strip()
        if k in ("Models", "Optimal", "Optimization") and v.strip():
            st[k] = v.split()
        if line.startswith("UNSATISFIABLE"):
            st["unsat"] = True
    return st


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seeds", default="0", help="start seeds of the paradox search, comma-separated")
    ap.add_argument("--pairs", type=int, default=14)
    ap.add_argument("--gordian", default=os.path.join(ROOT, "target/release/gordian"))
    ap.add_argument("--night-example", default=os.path.join(ROOT, "target/release/examples/night"))
    args = ap.parse_args()
    clingos = clingo_commands()
    if not clingos:
        print("compare: skipped: clingo is not installed (no `clingo` on PATH, no Python module); `pip install clingo`")
        return 0
    for b in (args.gordian, args.night_example):
        if not os.access(b, os.X_OK):
            print(f"compare: {b} missing: cargo build --release --bin gordian --example night", file=sys.stderr)
            return 2
    versions = [f"{n} = {' '.join(c)} ({subprocess.run(c + ['--version'], capture_output=True, text=True).stdout.splitlines()[0]})"
                for n, c in clingos]
    tmp = tempfile.mkdtemp(prefix="gordian-vs-clingo-")
    g = args.gordian

    # --- the nights --------------------------------------------------------------------
    benches = []  # (name, kind, night path, lp path)
    for s in args.seeds.split(","):
        text = subprocess.run([args.night_example, "1000", s, "--paradox"], capture_output=True,
                              text=True, check=True).stdout
        seed = text.split("seed ")[1].split()[0]
        benches.append((f"1,000-effect paradox (night 1000 {s} --paradox: seed {seed})", "paradox", text))
    pairs = "".join(f"A{i} block B{i}\nB{i} block A{i}\n" for i in range(args.pairs))
    benches.append((f"{args.pairs} disjoint mutual blocks (2^{args.pairs} resolutions)", "pairs", pairs))
    nights = []
    for i, (name, kind, text) in enumerate(benches):
        night = os.path.join(tmp, f"n{i}.night")
        lp = os.path.join(tmp, f"n{i}.lp")
        open(night, "w").write(text)
        open(lp, "w").write(night2lp.facts(*night2lp.parse(text)))
        nights.append((name, kind, night, lp))

    # --- the commands ------------------------------------------------------------------
    cmds = []  # (night index, label, side, argv)
    for i, (_, kind, night, lp) in enumerate(nights):
        for cname, clingo in clingos:
            if kind == "paradox":
                base = clingo + [AR, CUT, lp, "--opt-mode=optN", "--project", "-q2", "0"]
                cmds += [(i, f"{cname} optN (default: model-guided)", "clingo", base),
                         (i, f"{cname} optN --opt-strategy=usc (core-guided)", "clingo", base + ["--opt-strategy=usc"])]
            else:
                cmds += [(i, f"{cname} count --project", "clingo", clingo + [AR, lp, "--project", "-q", "0"])]
        cmds += [(i, "gordian resolve --json", "gordian", [g, "resolve", "--json", night]),
                 (i, "gordian resolve --engine sat --json", "gordian", [g, "resolve", "--engine", "sat", "--json", night]),
                 (i, "gordian resolve --expand=always --json", "gordian", [g, "resolve", "--expand=always", "--json", night]),
                 (i, "gordian resolve --engine sat --expand=always --json", "gordian",
                  [g, "resolve", "--engine", "sat", "--expand=always", "--json", night])]

    times = {k: [] for k in range(len(cmds))}
    mems = {k: [] for k in range(len(cmds))}
    outs = {}
    for r in range(args.reps):
        for k, (_, label, _, argv) in enumerate(cmds):
            dt, kb, out, code = run(argv, tmp)
            if r == 0:
                outs[k] = (out, code)
            times[k].append(dt)
            mems[k].append(kb)
        print(f"round {r + 1}/{args.reps} done", file=sys.stderr)

    # --- the counts must agree -------------------------------------------------------------
    bad = []
    found = {}
    for k, (i, label, side, _) in enumerate(cmds):
        out, code = outs[k]
        if side == "clingo":
            st = clingo_stats(out)
            if nights[i][1] == "paradox":
                cost = [int(x) for x in st.get("Optimization", [])]
                cls = "paradox" if any(cost) else "not a paradox"
                found[k] = dict(classification=cls, cost=cost, optimal_cuts=int(st.get("Optimal", ["-1"])[0]))
            else:
                n = int(st["Models"][0].rstrip("+"))
                found[k] = dict(classification="paradox" if n == 0 else "non-paradox" if n == 1 else "quasi-paradox",
                                resolutions=n)
        else:
            if code != 0:
                bad.append(f"{label} on {nights[i][0]}: exit {code}")
                continue
            d = json.loads(out)
            f = dict(classification=d["classification"])
            if nights[i][1] == "paradox":
                f["cost"] = [c["count"] for c in d["cut_cost"] or []]
                f["optimal_cuts"] = int(d["totals"]["optimal_cuts"])
                if "--expand" in label:
                    f["listed_cuts"] = len(d["cuts"]["optimal"])
            else:
                f["resolutions"] = int(d["totals"]["resolutions"])
                if "--expand" in label:
                    f["listed_resolutions"] = len(d["resolutions"])
            if not d.get("cross_checked", True) and "sat" not in label:
                f["note"] = f"not cross-checked (unfinished: {d.get('unfinished')})"
            found[k] = f
    for i, night in enumerate(nights):
        ref = None
        for k, (j, label, side, _) in enumerate(cmds):
            if j != i or k not in found:
                continue
            f = {x: v for x, v in found[k].items() if x in ("classification", "cost", "optimal_cuts", "resolutions")}
            for x in ("listed_cuts", "listed_resolutions"):
                if x in found[k] and found[k][x] != found[k].get(x.replace("listed_", "optimal_" if "cuts" in x else "")):
                    bad.append(f"{label} on {night[0]}: lists {found[k][x]}, totals say otherwise")
            if ref is None:
                ref = (label, f)
            elif f != ref[1]:
                bad.append(f"{night[0]}: {ref[0]} found {ref[1]}, {label} found {f}")

    # --- report ----------------------------------------------------------------------------
    print("clingo: " + "; ".join(versions))
    print(f"{args.reps} alternating rounds, medians of whole-process wall time and peak memory; "
          f"load average at the end: {os.getloadavg()[0]:.2f}")
    for i, (name, kind, _, _) in enumerate(nights):
        print(f"\n{name}")
        rows = [k for k, c in enumerate(cmds) if c[0] == i]
        med = {k: statistics.median(times[k]) for k in rows}
        cl = [k for k in rows if cmds[k][2] == "clingo"]
        for k in rows:
            label, side = cmds[k][1], cmds[k][2]
            tag = f"[c{cl.index(k) + 1}] " if side == "clingo" else ""
            print(f"  {tag + label:62} {med[k]:8.3f} s {statistics.median(mems[k]) / 1024:7.1f} MB")
            if side == "gordian":
                ratios = "  ".join(f"c{n + 1}: {med[c] / med[k]:.2f}" for n, c in enumerate(cl))
                print(f"  {'':62} ratio clingo/gordian  {ratios}")
            print(f"  {'':62} found {found.get(k)}")
    if bad:
        print("\nMISMATCH:\n  " + "\n  ".join(bad))
        return 1
    print("\nall counts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
