#!/usr/bin/env python3
"""gordian at scale, in one run: against the previous gordian and clingo, one table.

Usage (from anywhere; gordian and the `night` example built first):
    cargo build --release --bin gordian --example night
    python3 bench/scale.py [--previous OLD/gordian] [--timeout 120] [--reps 1] [--engines]
                           [--only dense,deflect,chain,pairs,small,paradox,gendeflect,degenerate,ff8]
                           [--sizes 1000,2000,100]

Python 3.11, standard library only. The clingo columns need clingo (`pip install
clingo`, or a `clingo` binary on PATH; CLINGO="cmd ..." picks the command, as in
bench/clingo/compare.py); without it the script says so and leaves them out.

Nights (written to a temporary directory, every one from a fixed seed, `--seed`):
  * dense: `night EFFECTS SEED --levels 0` for 1,000, 2,000, 5,000, 10,000 and 20,000
    effects: players EFFECTS / 2 (about one effect per two players), the kinds' default
    priorities, every kind but deflect, the generator's default passive rate 0.15 (the
    three passive kinds drawn evenly: about 5% each of reflexive, bulletproof and
    unblockable passives);
  * deflect: the dense nights of 1,000, 2,000, 5,000 and 10,000 effects with 3%
    (`--deflect-rate`) of their effects turned into deflections: actions drawn at
    random (Python's `random.Random(SEED)`), at most one per actor, each becoming
    `ACTOR deflect T @1` with T its first target (the kinds' default priority of deflect);
  * chain: `V kill D0`, then `Di deflect D(i+1)` for i < n, n = 100, 1,000, 10,000 (by
    hand: nothing can fail, so the kill travels down the chain to Dn);
  * pairs: 14 disjoint mutual roleblocks (`Ai block Bi`, `Bi block Ai`: 2^14 resolutions);
  * paradox: large paradoxes, `night 20000 SEED --players 10000 --levels 0 --passives
    0.18` for four seeds from `--seed` and for seeds 8 and 10 (20,000 effects over 10,000
    players, 6% each of reflexive, bulletproof and unblockable passives, no deflections;
    8 and 10 are the two of seeds 1 to 10 where the direct engine is slowest);
  * gendeflect: deflection-heavy nights, the 20 of `gordian gen --system ar --players 200
    --max-effects 800 --kinds block,stop,protect,kill,deflect --seed 2029 --count 20`;
  * degenerate: `players: V A R`, `V visit A`, 1,001 identical lines `A passive
    reflexive:kill`, `V passive reflexive:visit`, `R block V` (each reflexive kill creates
    a kill, whose success creates a visit, which fires all 1,001 again);
  * ff8: the 20 FF8 scenarios of `gordian gen --system ff8 --seed 5 --count 20`, answered
    by `ff8 reach --json` (every reachable state within the scenario's bound; the count
    compared); no clingo column;
  * small: the 2,000 small nights of the throughput benchmarks (`benches/common`'s
    `small_nights(2000)`: night i is `night (4 + i % 9) i --players 12 --levels 3`,
    12 players, 4 to 12 effects, three priority levels), answered as one batch:
    `gordian batch --jobs 1 DIR`, and by clingo in one Python process (its API, not one
    clingo process per night).

Columns, whole processes (wall time, peak memory from `/usr/bin/time -f %M`), median of
`--reps` runs each, every command of a night once per round:
  * gordian (`--gordian`, default target/release/gordian): `resolve --json NIGHT`, the
    default engines; `xchk` is the JSON's `cross_checked` (both engines answered and
    agreed; for the small nights, how many of them were);
  * previous gordian (`--previous`, optional): the same command;
  * with `--engines`, gordian's engines alone: `resolve --json --engine direct` and
    `--engine sat` (`ff8 reach --engine ...`), so that each class shows which engine is
    the slow one;
  * clingo's optimal cuts, as bench/clingo/compare.py times them: `ar.lp cut.lp NIGHT.lp
    --opt-mode=optN --project 0`, core-guided (`--opt-strategy=usc`) and with clingo's
    default model-guided optimisation.
Ratios are the other time over gordian's (above 1: gordian faster), from the same run.
A run over `--timeout` seconds (default 120) is killed and shows as `>S`. Each clingo run
is bounded to `--clingo-memory` MiB of address space (default 8192); out of it: `mem`.

Counts are checked wherever two columns answered: classification (paradox or not) and,
for a paradox, the optimal cut cost per priority level and the number of optimal cuts.
Where clingo's summary gives no count of optimal models, only the rest is compared.
A mismatch (or gordian's engines disagreeing, exit 3) is printed loudly (MISMATCH) and
the exit code is 1; so is a run that failed. gordian stopped by its own resource bound
(exit 5, e.g. its default memory bound) shows `limit` in `xchk` and is listed below the
table; it is not a failure of the script.
"""
import argparse
import json
import os
import random
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLINGO_DIR = os.path.join(HERE, "clingo")
sys.path.insert(0, CLINGO_DIR)
import compare  # noqa: E402  (clingo_commands, clingo_stats, AR, CUT)
import night2lp  # noqa: E402

SIZES = {
    "dense": [1000, 2000, 5000, 10000, 20000],
    "deflect": [1000, 2000, 5000, 10000],
    "chain": [100, 1000, 10000],
}
GROUPS = ["dense", "deflect", "chain", "pairs", "small", "paradox", "gendeflect", "degenerate", "ff8"]
# Groups left out unless --only names them (they take minutes, or need no clingo).
SLOW_GROUPS = {"paradox", "gendeflect", "degenerate", "ff8"}
# The large paradoxes of seeds 1 to 10 that are hard for the direct engine (its optimum
# over a level where 14 cut candidates of one core need 11 cuts): always in the group.
HARD_PARADOX_SEEDS = [8, 10]


# --- running one command ----------------------------------------------------------------

def run(cmd, tmp, timeout, max_mb=None):
    """Runs cmd once: dict(time, kb, out, code, over). Killed (its process group) past timeout;
    with max_mb, its address space is bounded (RLIMIT_AS) to that many MiB."""
    def bound():
        if max_mb:
            resource.setrlimit(resource.RLIMIT_AS, (max_mb << 20, max_mb << 20))

    mem = os.path.join(tmp, "mem")
    outp = os.path.join(tmp, "out")
    if os.path.exists(mem):
        os.remove(mem)
    timed = ["/usr/bin/time", "-o", mem, "-f", "%M"] + cmd if os.access("/usr/bin/time", os.X_OK) else cmd
    with open(outp, "w") as f:
        t0 = time.perf_counter()
        p = subprocess.Popen(timed, stdout=f, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=bound)
        try:
            _, err = p.communicate(timeout=timeout)
            over = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
            over = True
        dt = time.perf_counter() - t0
    kb = None
    try:
        kb = int(open(mem).read().split()[-1])
    except (OSError, ValueError, IndexError):
        pass
    return dict(time=dt, kb=kb, out=None if over else open(outp).read(), err=err, code=p.returncode, over=over)


# --- reading the answers ----------------------------------------------------------------------

def gordian_found(out):
    """(counts, cross_checked) from `resolve --json` or `ff8 reach --json`."""
    d = json.loads(out)
    if "horizon" in d:
        counts = {e["reachable"] for e in d["engines"]}
        if len(counts) != 1:
            raise ValueError(f"the engines found different counts: {sorted(counts)}")
        return dict(reachable=counts.pop()), bool(d.get("agree")) and len(d["engines"]) > 1
    f = dict(paradox=d["classification"] == "paradox")
    if f["paradox"]:
        f["cost"] = [c["count"] for c in d["cut_cost"] or []]
        f["optimal_cuts"] = int(d["totals"]["optimal_cuts"])
    return f, bool(d.get("cross_checked"))


def clingo_found(out):
    st = compare.clingo_stats(out)
    if st.get("unsat"):
        return dict(error="UNSATISFIABLE (a cut always exists: the encoding is wrong)")
    if "Optimization" not in st:
        raise ValueError("no optimisation summary in clingo's output")
    cost = [int(x) for x in st["Optimization"]]
    f = dict(paradox=any(cost))
    if f["paradox"]:
        f["cost"] = cost
        # clingo's summary may lack the count of optimal models (seen with `usc` on a
        # night with deflections: "Optimum: yes" and no "Optimal" line): then unknown.
        if "Optimal" in st:
            f["optimal_cuts"] = int(st["Optimal"][0])
    return f


def batch_found(out):
    """{path: counts} and the number cross-checked, from `batch` JSON lines."""
    found, xchk = {}, 0
    for line in out.splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if "classification" not in r:
            found[r.get("path")] = dict(error=r.get("error", line[:200]))
            continue
        f = dict(paradox=r["classification"] == "paradox")
        if f["paradox"]:
            f["cost"] = [c["count"] for c in r["cut_cost"] or []]
            f["optimal_cuts"] = int(r["optimal_cut_count"])
        found[r["path"]] = f
        xchk += bool(r.get("cross_checked"))
    return found, xchk


def clingo_worker(mode, listfile):
    """Optimal cuts of every night listed, through clingo's API: one JSON line each."""
    import clingo

    opts = ["0", "--opt-mode=optN", "--project", "--warn=none"]
    if mode == "usc":
        opts.append("--opt-strategy=usc")
    for path in open(listfile).read().split("\n"):
        if not path:
            continue
        ctl = clingo.Control(opts)
        ctl.load(compare.AR)
        ctl.load(compare.CUT)
        ctl.add("base", [], open(path + ".lp").read())
        ctl.ground([("base", [])])
        cuts, cost = set(), None

        def on_model(m):
            nonlocal cost
            if m.optimality_proven:
                cost = list(m.cost)
                cuts.add(frozenset(str(a) for a in m.symbols(shown=True) if a.name == "cut"))

        ctl.solve(on_model=on_model)
        f = dict(paradox=any(cost or []))
        if f["paradox"]:
            f["cost"] = cost
            f["optimal_cuts"] = len(cuts)
        print(json.dumps(dict(path=path, **f)))


# --- the nights ---------------------------------------------------------------------------

def deflected(text, rate, seed):
    """`text` with round(rate * effects) actions turned into deflections, one per actor at most."""
    lines = text.split("\n")
    effects = [i for i, l in enumerate(lines) if l.startswith("e") and ":" in l]
    actions = [i for i in effects if " passive " not in lines[i]]
    rng = random.Random(seed)
    rng.shuffle(actions)
    want, actors, n = round(rate * len(effects)), set(), 0
    for i in actions:
        if n == want:
            break
        eid, rest = lines[i].split(":", 1)
        actor, _kind, target = rest.split()[:3]
        if actor in actors:
            continue
        actors.add(actor)
        lines[i] = f"{eid}: {actor} deflect {target} @1"
        n += 1
    return "\n".join(lines), n


def chain(n):
    return "V kill D0\n" + "".join(f"D{i} deflect D{i + 1}\n" for i in range(n))


def night_text(example, effects, seed, extra):
    return subprocess.run([example, str(effects), str(seed)] + extra, capture_output=True, text=True,
                          check=True).stdout


# --- main ---------------------------------------------------------------------------------------

def fmt_time(r, timeout):
    return f">{timeout:g}" if r is None else f"{r:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gordian", default=os.path.join(ROOT, "target/release/gordian"))
    ap.add_argument("--previous", help="the previous gordian binary (optional): the same columns")
    ap.add_argument("--night-example", default=os.path.join(ROOT, "target/release/examples/night"))
    ap.add_argument("--gordian-args", default="",
                    help="extra flags for both gordians' resolve and batch, e.g. \"--max-memory 4096\" (MiB)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run (default 120)")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--only", default=",".join(g for g in GROUPS if g not in SLOW_GROUPS),
                    help="groups, comma-separated: " + ",".join(GROUPS) + " (default: all but "
                         + ",".join(sorted(SLOW_GROUPS)) + ")")
    ap.add_argument("--engines", action="store_true",
                    help="add columns for gordian's direct and SAT engines alone")
    ap.add_argument("--sizes", help="only these sizes of dense, deflect and chain (effects or n), comma-separated")
    ap.add_argument("--seed", type=int, default=1, help="seed of the dense nights and of the deflections (default 1)")
    ap.add_argument("--clingo-memory", type=int, default=8192,
                    help="address-space bound of each clingo run in MiB (default 8192; 0: none); "
                         "its encoding of a long deflection chain grows with the square of the chain")
    ap.add_argument("--deflect-rate", type=float, default=0.03)
    ap.add_argument("--pairs", type=int, default=14)
    ap.add_argument("--small", type=int, default=2000, help="how many small nights (default 2000)")
    ap.add_argument("--no-clingo", action="store_true", help="leave clingo out")
    ap.add_argument("--clingo-worker", nargs=2, metavar=("MODE", "LIST"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.clingo_worker:
        clingo_worker(*args.clingo_worker)
        return 0

    only = args.only.split(",")
    for g in only:
        if g not in GROUPS:
            ap.error(f"--only: unknown group `{g}` (groups: {', '.join(GROUPS)})")
    sizes = None if not args.sizes else {int(s) for s in args.sizes.split(",")}
    need = [args.gordian, args.night_example] + ([args.previous] if args.previous else [])
    for b in need:
        if not os.access(b, os.X_OK):
            print(f"scale: {b} missing: cargo build --release --bin gordian --example night", file=sys.stderr)
            return 2
    clingos = [] if args.no_clingo else compare.clingo_commands()
    clingo = clingos[0][1] if clingos else None
    try:
        import clingo as _
        have_module = hasattr(_, "Control")  # not bench/clingo, the folder beside this script
    except ImportError:
        have_module = False
    if not args.no_clingo and not clingo:
        print("scale: clingo is not installed (no `clingo` on PATH, no Python module; `pip install clingo`): "
              "its columns are left out")
    tmp = tempfile.mkdtemp(prefix="gordian-scale-")

    # nights: (name, kind, path) ; kind "one" (a night) or "small" (a directory)
    nights = []

    def add(name, text):
        path = os.path.join(tmp, f"n{len(nights)}.night")
        open(path, "w").write(text)
        open(path + ".lp", "w").write(night2lp.facts(*night2lp.parse(text)))
        nights.append((name, "one", path))

    ex = args.night_example
    for group in GROUPS:
        if group not in only:
            continue
        if group == "dense":
            for e in SIZES["dense"]:
                if sizes is None or e in sizes:
                    add(f"dense {e:,}", night_text(ex, e, args.seed, ["--levels", "0"]))
        elif group == "deflect":
            for e in SIZES["deflect"]:
                if sizes is None or e in sizes:
                    text, n = deflected(night_text(ex, e, args.seed, ["--levels", "0"]), args.deflect_rate, args.seed)
                    add(f"dense {e:,}, {n} deflect", text)
        elif group == "chain":
            for n in SIZES["chain"]:
                if sizes is None or n in sizes:
                    add(f"chain of {n:,} deflect", chain(n))
        elif group == "paradox":
            # Four seeds from --seed, then the two hard ones of a sweep over seeds 1 to 10.
            seeds = list(range(args.seed, args.seed + 4))
            seeds += [s for s in HARD_PARADOX_SEEDS if s not in seeds]
            for s in seeds:
                add(f"paradox 20,000 seed {s}",
                    night_text(ex, 20000, s, ["--players", "10000", "--levels", "0", "--passives", "0.18"]))
        elif group == "gendeflect":
            d = os.path.join(tmp, "gendeflect")
            subprocess.run([args.gordian, "gen", "--system", "ar", "--players", "200", "--max-effects", "800",
                            "--kinds", "block,stop,protect,kill,deflect", "--seed", "2029", "--count", "20",
                            "--out", d], check=True, capture_output=True)
            for i, f in enumerate(sorted(os.listdir(d))):
                add(f"gen deflect {i}", open(os.path.join(d, f)).read())
        elif group == "degenerate":
            add("1,001 identical passives",
                "players: V A R\nV visit A\n" + "A passive reflexive:kill\n" * 1001
                + "V passive reflexive:visit\nR block V\n")
        elif group == "ff8":
            d = os.path.join(tmp, "ff8")
            subprocess.run([args.gordian, "gen", "--system", "ff8", "--seed", "5", "--count", "20", "--out", d],
                           check=True, capture_output=True)
            for i, f in enumerate(sorted(os.listdir(d))):
                nights.append((f"ff8 gen {i}", "ff8", os.path.join(d, f)))
        elif group == "pairs":
            add(f"{args.pairs} disjoint pairs", "".join(f"A{i} block B{i}\nB{i} block A{i}\n" for i in range(args.pairs)))
        else:
            d = os.path.join(tmp, "small")
            os.mkdir(d)
            paths = []
            for i in range(args.small):
                text = night_text(ex, 4 + i % 9, i, ["--players", "12", "--levels", "3"])
                p = os.path.join(d, f"s{i:05}.night")
                open(p, "w").write(text)
                open(p + ".lp", "w").write(night2lp.facts(*night2lp.parse(text)))
                paths.append(p)
            open(os.path.join(tmp, "small.list"), "w").write("\n".join(paths) + "\n")
            nights.append((f"{args.small:,} small nights", "small", d))
    print(f"nights written to {tmp}", file=sys.stderr)

    # columns: (label, side, argv builder)
    report = os.path.join(tmp, "batch.jsonl")

    def gordian_cmd(binary, engine=None):
        def cmd(kind, path):
            extra = shlex.split(args.gordian_args) + (["--engine", engine] if engine else [])
            if kind == "small":
                return None if engine else [binary, "batch", "--jobs", "1", "--force", "--out", report] + extra + [path]
            if kind == "ff8":
                return [binary, "ff8", "reach", "--json", "--list", "0"] + extra + [path]
            return [binary, "resolve", "--json"] + extra + [path]
        return cmd

    def clingo_cmd(mode):
        def cmd(kind, path):
            if kind == "ff8":
                return None
            if kind == "small":
                if not have_module:
                    return None
                return [sys.executable, os.path.abspath(__file__), "--clingo-worker", mode,
                        os.path.join(tmp, "small.list")]
            base = clingo + [compare.AR, compare.CUT, path + ".lp", "--opt-mode=optN", "--project", "-q2", "0"]
            return base + (["--opt-strategy=usc"] if mode == "usc" else [])
        return cmd

    cols = [("gordian", "gordian", gordian_cmd(args.gordian))]
    if args.previous:
        cols.append(("previous", "gordian", gordian_cmd(args.previous)))
    if args.engines:
        cols += [("direct", "gordian", gordian_cmd(args.gordian, "direct")),
                 ("sat", "gordian", gordian_cmd(args.gordian, "sat"))]
    if clingo:
        cols += [("clingo usc", "clingo", clingo_cmd("usc")), ("clingo default", "clingo", clingo_cmd("default"))]

    results = {}  # (night, col) -> list of runs
    found = {}    # (night, col) -> counts or None
    xchk = {}
    bad, failed, notes = [], [], []  # mismatches, runs that failed, limits hit
    for r in range(args.reps):
        for ni, (name, kind, path) in enumerate(nights):
            for ci, (label, side, cmd) in enumerate(cols):
                argv = cmd(kind, path)
                if argv is None:
                    continue
                if kind == "small" and side == "gordian" and os.path.exists(report):
                    os.remove(report)
                res = run(argv, tmp, args.timeout, args.clingo_memory if side == "clingo" else None)
                # py-clingo exits 0 after a failed allocation; a native clingo exits non-zero
                res["mem"] = side == "clingo" and not res["over"] and any(
                    w in res["err"] for w in ("bad_alloc", "MemoryError", "cannot allocate memory"))
                results.setdefault((ni, ci), []).append(res)
                if r > 0 or res["over"]:
                    continue
                code = res["code"]
                if side == "gordian" and kind != "small" and code == 5:
                    xchk[(ni, ci)] = "limit"
                    notes.append(f"{label} on {name}: a limit (exit 5): {res['err'].strip()[-300:]}")
                    continue
                if side == "gordian" and kind != "small" and code == 3:
                    bad.append(f"{label} on {name}: its engines disagree (exit 3): {res['err'].strip()[-300:]}")
                    continue
                if res.get("mem"):
                    notes.append(f"{label} on {name}: out of its {args.clingo_memory} MiB (--clingo-memory)")
                    continue
                if code != 0 and not (side == "clingo" and kind == "one" and code in (10, 20, 30)):
                    failed.append(f"{label} on {name}: exit {code}: {res['err'].strip()[-300:]}")
                    if not (kind == "small" and side == "gordian" and os.path.exists(report)):
                        continue
                try:
                    if kind == "small":
                        out = open(report).read() if side == "gordian" else res["out"]
                        f, x = batch_found(out) if side == "gordian" else (
                            {json.loads(l)["path"]: json.loads(l) for l in out.splitlines() if l}, None)
                        f = {os.path.basename(p): {k: v for k, v in c.items() if k != "path"} for p, c in f.items()}
                    elif side == "gordian":
                        f, x = gordian_found(res["out"])
                    else:
                        f, x = clingo_found(res["out"]), None
                except (ValueError, KeyError, TypeError) as e:
                    failed.append(f"{label} on {name}: unreadable answer ({e}): {res['err'].strip()[-300:]}")
                    continue
                found[(ni, ci)] = f
                # An engine alone is not cross-checked, nor expected to be.
                xchk[(ni, ci)] = None if label in ("direct", "sat") else x
            print(f"round {r + 1}/{args.reps}: {name} done", file=sys.stderr)

    # --- counts must agree -----------------------------------------------------------------
    checks = {}
    for ni, (name, kind, _) in enumerate(nights):
        answered = [(ci, found[(ni, ci)]) for ci in range(len(cols)) if (ni, ci) in found]
        if len(answered) < 2:
            checks[ni] = "-" if not answered else "one answer"
            continue
        (c0, ref), ok = answered[0], True
        for ci, f in answered[1:]:
            if kind == "small":
                diff = [p for p in sorted(set(ref) | set(f)) if ref.get(p) != f.get(p)]
                if diff:
                    ok = False
                    bad.append(f"{name}: {cols[c0][0]} and {cols[ci][0]} differ on {len(diff)} nights, e.g. "
                               f"{diff[0]}: {ref.get(diff[0])} / {f.get(diff[0])}")
            elif {k: v for k, v in f.items() if k in ref} != {k: v for k, v in ref.items() if k in f}:
                # Compared on what both give (a clingo summary may lack the count).
                ok = False
                bad.append(f"{name}: {cols[c0][0]} found {ref}, {cols[ci][0]} found {f}")
        checks[ni] = ("agree" if ok else "MISMATCH") + f" ({len(answered)})"

    # --- the table ---------------------------------------------------------------------------
    if clingo:
        v = subprocess.run(clingo + ["--version"], capture_output=True, text=True).stdout.splitlines()
        print(f"clingo: {' '.join(clingo)} ({v[0] if v else '?'})")
    print(f"gordian: {args.gordian}" + (f"; previous: {args.previous}" if args.previous else ""))
    print(f"whole processes, median of {args.reps} run(s) each, timeout {args.timeout:g} s; "
          f"load average at the end: {os.getloadavg()[0]:.2f}")
    head = ["night"]
    for ci, (label, side, _) in enumerate(cols):
        head += [f"{label} s", "MB"] + (["xchk"] if side == "gordian" else []) + ([f"x"] if ci else [])
    head.append("counts")
    rows = [head]
    for ni, (name, kind, _) in enumerate(nights):
        row = [name]
        g = None
        for ci, (label, side, _) in enumerate(cols):
            runs = results.get((ni, ci))
            if not runs:
                row += ["-", "-"] + (["-"] if side == "gordian" else []) + (["-"] if ci else [])
                continue
            if any(x.get("mem") for x in runs):
                row += ["mem", f">{args.clingo_memory}", "-"]
                continue
            t = None if any(x["over"] for x in runs) else statistics.median(x["time"] for x in runs)
            kbs = [x["kb"] for x in runs if x["kb"] is not None]
            row += [fmt_time(t, args.timeout), f"{statistics.median(kbs) / 1024:.0f}" if kbs else "-"]
            if side == "gordian":
                x = xchk.get((ni, ci))
                if kind == "small":
                    row.append("-" if x is None else f"{x}/{len(found.get((ni, ci), {}))}")
                else:
                    row.append("-" if x is None else x if isinstance(x, str) else "yes" if x else "NO")
            lim = xchk.get((ni, ci)) == "limit"
            if ci == 0:
                g = None if lim else t
            else:
                row.append("-" if g is None or lim else f">{args.timeout / g:.0f}" if t is None else f"{t / g:.2f}")
        row.append(checks[ni])
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print("x: that column's time / gordian's (above 1: gordian faster); xchk: cross-checked by both engines")
    shutil.rmtree(tmp, ignore_errors=True)
    if notes:
        print("\nlimits (stopped by a resource bound; no answer):\n  " + "\n  ".join(notes))
    if failed:
        print("\nFAILED runs:\n  " + "\n  ".join(failed))
    if bad:
        print("\n" + "!" * 70 + "\nMISMATCH:\n  " + "\n  ".join(bad) + "\n" + "!" * 70)
    else:
        print("\nall counts agree where two answered")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
