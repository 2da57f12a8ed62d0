"""A resolver with a planted fault, for gordian's tests of `--against`.

Run as `python3 planted.py MODE` with a night on standard input; GORDIAN_BIN names the
gordian binary. It answers with gordian's own `resolve --json` (so it is right), except
where MODE plants a fault, on nights that have the trigger below:

  honest                gordian's answer, unchanged
  wrong-classification  says "non-paradox" where gordian says "quasi-paradox"
  wrong-cuts            drops one optimal cut of a paradox with two or more, or adds
                        the cut of every effect to a paradox with one
  crash                 SIGSEGV on a night with a `block`
  hang                  sleeps 60 s on a night with a `kill`
  garbage               prints a sentence instead of JSON on a night with a `protect`
  silent                prints nothing on a night with a `stop`
  exit                  exits with code 7 on a night with a `visit`
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
night = sys.stdin.read()
words = set(night.split())

if mode == "crash" and "block" in words:
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "hang" and "kill" in words:
    time.sleep(60)
if mode == "garbage" and "protect" in words:
    print("Night resolved! Everyone lives.")
    sys.exit(0)
if mode == "silent" and "stop" in words:
    sys.exit(0)
if mode == "exit" and "visit" in words:
    print("cannot resolve visits", file=sys.stderr)
    sys.exit(7)

answer = json.loads(
    subprocess.run(
        [os.environ["GORDIAN_BIN"], "resolve", "--json", "--expand=always", "-"],
        input=night,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
)
if mode == "wrong-classification" and answer["classification"] == "quasi-paradox":
    answer["classification"] = "non-paradox"
if mode == "wrong-cuts" and answer["cuts"]:
    optimal = answer["cuts"]["optimal"]
    if len(optimal) >= 2:
        optimal.pop()
    else:
        optimal.append({"cut": [e["id"] for e in answer["effects"]]})
print(json.dumps(answer))
