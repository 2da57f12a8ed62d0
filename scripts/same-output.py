#!/usr/bin/env python3
"""Run every gordian command on every shipped instance and compare two such runs.

    scripts/same-output.py run BINARY OUTDIR [--jobs N] [--only SUBSTRING]
    scripts/same-output.py compare OLD_DIR NEW_DIR [--ignore-effect-order]

`run` executes a fixed list of commands (built from the files under instances/ and from
the arguments the instance READMEs and tests use) with BINARY, from the repository's
root, and writes one file per command into OUTDIR: the command line, the exit code,
standard output, standard error and any files the command wrote (`--certify`, `--out`).
The binary is always started under the name `gordian` (argv[0]), so that help and usage
texts do not depend on where the binary lives.

Masking (the only rewriting of what a command printed): see MASKS below. Wall times
(`times_ms`, `*_ms`, `elapsed`, `... in 0.01 s`, `cases/s`) become `<T>`, and the
temporary directory the command was given becomes `<TMP>`. Nothing else is touched, so
two runs of one binary compare equal and any other difference is a real one.

`compare` lists every command whose file differs (or exists on one side only) with a
unified diff, and exits 1 if there is any difference. With `--ignore-effect-order`,
lines of a human ?AR report (files of `resolve` without `--json`) that list effects
separated by ", " are compared as sets of effects, so a report that lists the same
effects in another order compares equal; everything else is still compared byte for
byte.

Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 300  # seconds per command; a command past it is recorded as `exit: timeout`

SYSTEMS = ["ar", "fft", "lancer", "foeman", "ff8"]

# (pattern, replacement), applied in order to stdout, stderr and written files.
MASKS = [
    # JSON: "times_ms":{"direct":0.054,"sat":0.045} and any "..._ms": 12.5 field.
    (re.compile(r'("times_ms"\s*:\s*)\{[^}]*\}'), r"\1<T>"),
    (re.compile(r'("[a-z_]*(?:_ms|seconds|elapsed)"\s*:\s*)[0-9.eE+-]+'), r"\1<T>"),
    # Text: "86 instance(s) in 0.28 s (304.4/s)", "20 ar case(s) in 0.01 s (1465.9 cases/s)",
    # "9 reachable state(s) in 0.001 s".
    (re.compile(r"\bin [0-9]+(?:\.[0-9]+)? s\b"), "in <T> s"),
    (re.compile(r"in <T> s \([0-9.]+( cases)?/s\)"), r"in <T> s (<T>\1/s)"),
]


def mask(text: str, tmp: str | None) -> str:
    if tmp:
        text = text.replace(tmp, "<TMP>")
    for pat, rep in MASKS:
        text = pat.sub(rep, text)
    return text


def names_after(path: Path, keyword: str) -> list[str]:
    """The second word of every line starting with `keyword` (unit/reaction/figure/side)."""
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == keyword:
            out.append(words[1])
    return out


def instances(system: str, ext: str) -> list[str]:
    d = REPO / "instances" / system
    return sorted(str(p.relative_to(REPO)) for p in d.glob(f"*.{ext}"))


def commands(binary: str) -> list[dict]:
    """Every command: a dict with `args` (after `gordian`), optional `stdin` (a path),
    and `tmp` (True: a fresh temporary directory is substituted for `{TMP}`)."""
    cmds: list[dict] = []

    def add(*args: str, stdin: str | None = None) -> None:
        cmds.append({"args": list(args), "stdin": stdin})

    def enumerate(system: str, f: str) -> None:
        """`SYSTEM enumerate` plain, --json, --limit 1 and with each engine alone."""
        add(system, "enumerate", f)
        add(system, "enumerate", "--json", f)
        add(system, "enumerate", "--limit", "1", f)
        for engine in ["direct", "sat"]:
            add(system, "enumerate", "--engine", engine, "--json", f)

    # Help, version, every manual page, completions, schemas.
    add("--help")
    add("--version")
    help_paths = [[]]
    top = ["resolve", "dimacs", "check", "fuzz", "gen", "batch", "merge", "schema",
           "completions", "man"]
    nested = {
        "fft": ["replay", "variants", "enumerate", "query", "dimacs"],
        "ff8": ["step", "replay", "reach", "plan", "dimacs"],
        "foeman": ["round", "enumerate", "query", "fairness", "dimacs"],
        "lancer": ["resolve", "enumerate", "query", "policies", "dimacs"],
    }
    for t in top:
        help_paths.append([t])
    for s, subs in nested.items():
        help_paths.append([s])
        for sub in subs:
            help_paths.append([s, sub])
    for p in help_paths[1:]:
        add(*p, "--help")
        add(*p, "-h")
    add("man")
    add("man", "--list")
    listing = subprocess.run(
        [binary, "man", "--list"], capture_output=True, text=True, cwd=REPO,
        executable=binary,
    ).stdout
    for line in listing.splitlines():
        if line.split():
            add("man", line.split()[0])
    add("man", "fft", "replay")
    add("man", "--out", "{TMP}")
    for sh in ["bash", "elvish", "fish", "powershell", "zsh"]:
        add("completions", sh)
    for s in SYSTEMS:
        for which in ["instance", "answer"]:
            add("schema", "--system", s, which)

    # ?AR: every night, every output option.
    nights = instances("ar", "night")
    for n in nights:
        add("resolve", n)
        add("resolve", "--json", n)
        add("resolve", "--explain", n)
        add("resolve", "--explain", "--json", n)
        add("resolve", "--expand", n)
        add("resolve", "--expand=never", n)
        add("resolve", "--expand=never", "--json", n)
        add("resolve", "--expand", "--limit", "1", n)
        add("resolve", "--seed", "7", n)
        add("resolve", "--seed", "7", "--json", n)
        add("resolve", "--dot", "-", n)
        add("resolve", "--dot", "-", "--seed", "3", n)
        add("resolve", "--dot", "{TMP}/night.dot", n)
        add("resolve", "--certify", "{TMP}", n)
        add("resolve", "--self-check", n)
        for engine in ["direct", "sat", "brute", "all"]:
            add("resolve", "--engine", engine, n)
            add("resolve", "--engine", engine, "--json", n)
        add("resolve", "-", stdin=n)
        add("dimacs", n)
    add("resolve", "instances/ar/no-such-file.night")
    add("resolve", "instances/ar/README.md")

    # FFT.
    ffts = instances("fft", "fft")
    for f in ffts:
        for variant in ["final", "naive", "earlier"]:
            add("fft", "replay", "--variant", variant, f)
        add("fft", "replay", "--annotate", f)
        add("fft", "replay", "--json", f)
        add("fft", "replay", "--dot", "-", f)
        add("fft", "enumerate", f)
        add("fft", "enumerate", "--list", f)
        add("fft", "enumerate", "--json", f)
        add("fft", "enumerate", "--bound", "1", "--list", f)
        for variant in ["naive", "earlier"]:
            add("fft", "enumerate", "--variant", variant, "--list", f)
        for engine in ["direct", "sat"]:
            add("fft", "enumerate", "--engine", engine, "--json", f)
        for prop in ["flag-survives", "two-quick-turns", "mime-cycle-ends-off"]:
            add("fft", "query", "--property", prop, f)
            add("fft", "query", "--json", "--property", prop, f)
        add("fft", "dimacs", f)
        add("fft", "dimacs", "--bound", "1", f)
    add("fft", "variants", *ffts)
    add("fft", "variants", "--json", *ffts)

    # FF8.
    ff8s = instances("ff8", "ff8")
    for f in ff8s:
        add("ff8", "step", f)
        add("ff8", "step", "--json", f)
        for b in ["200,0,200,40,255", "0,0,0,0,0,0,0,0", "255,128,7,99,13,200,1,2"]:
            add("ff8", "replay", "--bytes", b, f)
            add("ff8", "replay", "--json", "--bytes", b, f)
        add("ff8", "reach", f)
        add("ff8", "reach", "--json", f)
        add("ff8", "reach", "--bound", "1", "--list", "100", f)
        for engine in ["direct", "sat"]:
            add("ff8", "reach", "--engine", engine, "--json", f)
        add("ff8", "plan", f)
        add("ff8", "plan", "--json", f)
        add("ff8", "plan", "--bound", "2", "--table", "100", f)
        add("ff8", "dimacs", f)
        add("ff8", "dimacs", "--bound", "1", f)

    # Foeman.
    foemans = instances("foeman", "foeman")
    for f in foemans:
        p = REPO / f
        figures = names_after(p, "figure")
        sides = names_after(p, "side")
        add("foeman", "round", f)
        add("foeman", "round", "--json", f)
        add("foeman", "round", "--seed", "5", f)
        add("foeman", "round", "--rolls", "1,2", "--choices", "0,1", f)
        add("foeman", "round", "--rolls", "6,6,6,1,3", "--choices", "1,1,0", "--json", f)
        enumerate("foeman", f)
        queries = ["watcher-first", "watcher-acts"]
        if len(figures) >= 2:
            queries += [f"before {figures[0]} {figures[1]}", f"before {figures[-1]} {figures[0]}"]
        if figures:
            queries.append(f"on-watch {figures[0]}")
        if sides:
            queries += [f"side-first {sides[0]}", f"side-last {sides[0]}"]
        for q in queries:
            add("foeman", "query", f, q)
            add("foeman", "query", "--json", f, q)
        add("foeman", "fairness", f)
        add("foeman", "fairness", "--json", f)
        add("foeman", "dimacs", f)
    add("foeman", "fairness", "--values", "5,7,5,7,7")
    add("foeman", "fairness", "--json", "--prove", "4", "--values", "7,7,7")
    add("foeman", "fairness", "--prove", "5")

    # Lancer.
    lancers = instances("lancer", "lancer")
    policies = ["seed", "seed-any-brace"]
    for f in lancers:
        p = REPO / f
        add("lancer", "resolve", f)
        add("lancer", "resolve", "--json", f)
        add("lancer", "resolve", "--choices", "1", f)
        add("lancer", "resolve", "--choices", "1,0,1", "--json", f)
        for pol in policies:
            add("lancer", "resolve", "--policy", pol, "--choices", "1,1", f)
            add("lancer", "enumerate", "--policy", pol, f)
        enumerate("lancer", f)
        props = ["aborted-after-effect", "action-cancelled"]
        props += [f"destroyed:{u}" for u in names_after(p, "unit")]
        props += [f"fires:{r}" for r in names_after(p, "reaction")]
        for prop in props:
            add("lancer", "query", "--property", prop, f)
            add("lancer", "query", "--json", "--property", prop, f)
        add("lancer", "policies", f)
        add("lancer", "dimacs", f)
        add("lancer", "dimacs", "--policy", "seed-any-brace", f)
    add("lancer", "policies", *lancers)
    add("lancer", "policies", "--json", *lancers)

    # Every system at once: check, batch, merge, gen, fuzz.
    add("check", "instances")
    add("check", "--json", "instances")
    add("check", "--jobs", "1", "instances")
    for s in SYSTEMS:
        add("check", "--system", s, "--json", f"instances/{s}")
    add("batch", "--jobs", "1", "instances")
    add("batch", "--jobs", "1", "--engine", "direct", "instances")
    add("batch", "--jobs", "1", "--out", "{TMP}/report.jsonl", "instances")
    for s in SYSTEMS:
        add("batch", "--jobs", "1", "--system", s, f"instances/{s}")
    for s in SYSTEMS:
        for seed in ["0", "1", "42"]:
            add("gen", "--system", s, "--count", "5", "--seed", seed)
        add("gen", "--system", s, "--count", "3", "--seed", "9", "--out", "{TMP}")
        # FF8's random scenarios are slow (seconds each): which ones pass the per-case
        # timeout depends on the machine's load, so FF8 is not fuzzed here.
        if s != "ff8":
            add("fuzz", "--system", s, "--cases", "30", "--seed", "3", "--out", "{TMP}")
    return cmds


def slug(args: list[str], stdin: str | None) -> str:
    s = " ".join(["gordian"] + args) + (f" <{stdin}" if stdin else "")
    s = s.replace("instances/", "").replace("{TMP}", "TMP")
    s = re.sub(r"[^A-Za-z0-9._,:=+-]+", "_", s)
    return s[:200]


def run_one(binary: str, cmd: dict) -> tuple[str, str]:
    tmp = tempfile.mkdtemp(prefix="same-output-") if any("{TMP}" in a for a in cmd["args"]) else None
    args = [a.replace("{TMP}", tmp) if tmp else a for a in cmd["args"]]
    shown = ["gordian"] + cmd["args"]
    stdin = open(REPO / cmd["stdin"], "rb") if cmd["stdin"] else subprocess.DEVNULL
    env = dict(os.environ, NO_COLOR="1", RUST_BACKTRACE="0")
    try:
        p = subprocess.run(
            ["gordian"] + args, executable=binary, cwd=REPO, stdin=stdin,
            capture_output=True, timeout=TIMEOUT, env=env,
        )
        code, out, err = str(p.returncode), p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or b"", e.stderr or b""
    finally:
        if cmd["stdin"]:
            stdin.close()
    dec = lambda b: b.decode("utf-8", errors="backslashreplace")
    parts = [
        "$ " + " ".join(shown) + (f" < {cmd['stdin']}" if cmd["stdin"] else ""),
        f"exit: {code}",
        "--- stdout",
        mask(dec(out), tmp),
        "--- stderr",
        mask(dec(err), tmp),
    ]
    if tmp:
        for f in sorted(Path(tmp).rglob("*")):
            if f.is_file():
                data = f.read_bytes()
                try:
                    body = mask(data.decode("utf-8"), tmp)
                except UnicodeDecodeError:
                    # A binary file (a varisat proof): its size and SHA-256 stand for it.
                    body = f"binary, {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}"
                parts.append(f"--- file {f.relative_to(tmp)}")
                parts.append(body)
        shutil.rmtree(tmp, ignore_errors=True)
    return slug(cmd["args"], cmd["stdin"]), "\n".join(parts)


def do_run(a: argparse.Namespace) -> int:
    binary = str(Path(a.binary).resolve())
    out = Path(a.outdir)
    if out.exists() and any(out.iterdir()):
        if not a.force:
            print(f"{out} exists and is not empty (--force to replace it)", file=sys.stderr)
            return 2
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    cmds = commands(binary)
    if a.only:
        cmds = [c for c in cmds if a.only in " ".join(c["args"])]
    seen: dict[str, int] = {}
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for name, text in pool.map(lambda c: run_one(binary, c), cmds):
            n = seen.get(name, 0)
            seen[name] = n + 1
            fname = name if n == 0 else f"{name}~{n}"
            (out / (fname + ".txt")).write_text(text, encoding="utf-8")
            done += 1
            if done % 200 == 0:
                print(f"{done}/{len(cmds)}", file=sys.stderr)
    print(f"{done} command(s) written to {out}", file=sys.stderr)
    return 0


EFFECT_LIST = re.compile(r"^(\s*[A-Za-z][^:]*:\s+|\s*[0-9/]+\s+)(.*)$")


def normalise_effect_order(text: str) -> str:
    """Sort the comma-separated items of every list on a line of a human report."""
    lines = []
    for line in text.split("\n"):
        if ", " in line:
            # Split off any trailing annotation like "   (optimal)" or "; ..." parts.
            segs = line.split("; ")
            new = []
            for seg in segs:
                m = re.match(r"^(.*?:\s+|\s*[0-9/]+\s+)?(.*?)(\s+\(optimal\)|\s+succeed|\s+fail)?$", seg)
                if m and ", " in (m.group(2) or ""):
                    items = m.group(2).split(", ")
                    # A trailing " goes to X" or similar belongs to each item: keep them.
                    new.append((m.group(1) or "") + ", ".join(sorted(items)) + (m.group(3) or ""))
                else:
                    new.append(seg)
            line = "; ".join(new)
        lines.append(line)
    return "\n".join(lines)


def is_human_resolve(text: str) -> bool:
    """A `resolve` without `--json` and without `--dot -` (DOT in place of the report)."""
    words = text.split("\n", 1)[0].split()
    return words[:3] == ["$", "gordian", "resolve"] and "--json" not in words \
        and "--dot -" not in " ".join(words)


def do_compare(a: argparse.Namespace) -> int:
    old, new = Path(a.old), Path(a.new)
    names = sorted({p.name for p in old.glob("*.txt")} | {p.name for p in new.glob("*.txt")})
    diffs = 0
    for name in names:
        po, pn = old / name, new / name
        if not po.exists() or not pn.exists():
            print(f"only in {'new' if pn.exists() else 'old'}: {name}")
            diffs += 1
            continue
        to, tn = po.read_text(encoding="utf-8"), pn.read_text(encoding="utf-8")
        if to == tn:
            continue
        if a.ignore_effect_order and is_human_resolve(to):
            if normalise_effect_order(to) == normalise_effect_order(tn):
                continue
        diffs += 1
        print(f"=== {name}")
        sys.stdout.writelines(
            difflib.unified_diff(
                to.splitlines(keepends=True), tn.splitlines(keepends=True),
                fromfile=str(po), tofile=str(pn), n=1,
            )
        )
    print(f"{len(names)} file(s) compared, {diffs} differ", file=sys.stderr)
    return 1 if diffs else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="run every command with BINARY into OUTDIR")
    r.add_argument("binary")
    r.add_argument("outdir")
    r.add_argument("--jobs", type=int, default=2, help="commands run at once (default 2)")
    r.add_argument("--only", help="only commands whose arguments contain this text")
    r.add_argument("--force", action="store_true", help="replace a non-empty OUTDIR")
    c = sub.add_parser("compare", help="list every difference between two OUTDIRs")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--ignore-effect-order", action="store_true",
                   help="human ?AR reports: compare comma-separated effect lists as sets")
    a = ap.parse_args()
    return do_run(a) if a.mode == "run" else do_compare(a)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `compare ... | head`
        sys.exit(1)
