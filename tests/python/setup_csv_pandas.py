"""`gordian setup analyse --csv DIR` loads in pandas: every table of every shipped setup.

Run by .ci/run (outside `cargo test`, which needs no Python packages) with pandas
installed in a throwaway virtual environment:

    python3 tests/python/setup_csv_pandas.py [path/to/gordian]

For each shipped setup it writes the CSV tables and the JSON report, reads the tables with
pandas and checks them against the JSON: the columns, the class counts (they add up to
the nights answered), the shares, each player's, role's and action's chance, and the
paradox causes with their example nights.
"""

import json
import math
import pathlib
import subprocess
import sys
import tempfile

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target/release/gordian"


def close(a, b):
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return b is not None and abs(a - b) < 1e-12


def check(setup: pathlib.Path, extra: list) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            [str(BIN), "setup", "analyse", str(setup), "--json", "--csv", d, *extra],
            check=True, capture_output=True, text=True, cwd=ROOT,
        ).stdout
        rep = json.loads(out)
        t = {name: pd.read_csv(pathlib.Path(d) / f"{name}.csv")
             for name in ["classes", "players", "roles", "actions", "causes"]}
    assert list(t["classes"].columns) == ["class", "nights", "share", "ci95_low", "ci95_high"]
    assert list(t["classes"]["class"]) == ["paradox", "quasi_paradox", "non_paradox"]
    assert int(t["classes"]["nights"].sum()) == rep["answered"], setup
    for _, row in t["classes"].iterrows():
        want = rep["classes"][row["class"]]
        assert int(row["nights"]) == want["nights"]
        assert close(row["share"], want["share"]), (row, want)
        ci = want["ci95"]
        assert (ci is None) == math.isnan(row["ci95_low"]), (row, want)
    assert list(t["players"]["player"]) == [p["player"] for p in rep["players"]]
    for (_, row), p in zip(t["players"].iterrows(), rep["players"]):
        assert row["role"] == p["role"] and close(row["death_chance"], p["death_chance"])
    assert sorted(t["roles"]["role"]) == sorted(r["role"] for r in rep["roles"])
    for _, row in t["roles"].iterrows():
        r = next(r for r in rep["roles"] if r["role"] == row["role"])
        assert int(row["players"]) == r["players"] and close(row["death_chance"], r["death_chance"])
    for _, row in t["actions"].iterrows():
        a = next(a for a in rep["actions"] if a["action"] == row["action"])
        assert int(row["taken_in"]) == a["taken_in"] and close(row["fail_chance"], a["fail_chance"])
    assert len(t["causes"]) == len(rep["paradox_causes"])
    for (_, row), c in zip(t["causes"].iterrows(), rep["paradox_causes"]):
        assert row["roles"] == c["roles"] and int(row["nights"]) == c["nights"]
        assert row["example"] == c["example"], "a multi-line night survives the CSV quoting"
    return len(t["players"])


def main():
    setups = sorted((ROOT / "instances/setup").glob("*.setup"))
    assert setups, "no shipped setups"
    for s in setups:
        check(s, [])
        check(s, ["--sample", "--samples", "300", "--seed", "7"])
        print(f"{s.relative_to(ROOT)}: the CSV tables load in pandas {pd.__version__} and match the JSON")


if __name__ == "__main__":
    main()
