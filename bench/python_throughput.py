"""Throughput of `import gordian` against the command line, measured in one run.

    python bench/python_throughput.py [--nights 10000] [--seed 1] [--bin target/release/gordian]

Writes N small generated nights (`gordian gen --system ar`, default knobs) into a
temporary folder, then times, whole, (a) `gordian check FOLDER --json` (every night
through both engines, compared, in worker processes, one per core) and (b) the same
nights read and solved from Python with `gordian.solve` on a thread pool of one thread
per core (a solve releases the interpreter), and prints both times and their ratio
(Python / check). Both answer every night with both engines and compare them; the
classifications they report are checked to be the same. Needs `pip install ./python`.
"""

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import gordian

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nights", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=str(ROOT / "target/release/gordian"))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([a.bin, "gen", "--system", "ar", "--seed", str(a.seed),
                        "--count", str(a.nights), "--out", d], check=True, capture_output=True)
        files = sorted(pathlib.Path(d).glob("*.night"))
        t0 = time.perf_counter()
        out = subprocess.run([a.bin, "check", d, "--json"], capture_output=True, text=True)
        t_check = time.perf_counter() - t0
        doc = json.loads(out.stdout)
        by_cli = collections.Counter(f["answer"]["classification"] for f in doc["files"])

        def one(f):
            return gordian.solve(f.read_text(), name=f.name)["classification"]

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=a.threads) as pool:
            by_py = collections.Counter(pool.map(one, files))
        t_py = time.perf_counter() - t0
    if by_cli != by_py:
        sys.exit(f"the classifications differ: check {dict(by_cli)}, Python {dict(by_py)}")
    print(f"{len(files)} nights (gen --system ar --seed {a.seed}), {a.threads} thread(s): "
          f"gordian check {t_check:.2f} s, gordian.solve from Python {t_py:.2f} s, "
          f"ratio {t_py / t_check:.2f}")


if __name__ == "__main__":
    main()
