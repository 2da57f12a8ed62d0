#!/usr/bin/env python3
"""priority_list.py -- a fixed priority-list night resolver, deliberately NOT ?AR.

This is how many mafia bots resolve a night: one pass over the actions in a fixed order,
each action applied unless an earlier-processed action already cancelled it. It always
gives exactly one outcome. It exists so that `gordian fuzz --against` can find nights
where such a list departs from ?AR (docs/ar.md); it is not a correct ?AR resolver.

    gordian fuzz --system ar --against 'python3 examples/against/priority_list.py'

Input: one night (`.night` text) on standard input, parsed by ar_brute.py's parser
(exit 2 on bad input). Output: one JSON object: classification "non-paradox", one
resolution with one way, death_probabilities [{deaths, "1"}].

Processing order (by kind; within a kind, by priority, then file order):
  1. deflect  -- every deflection applies (nothing is processed before it); each action
                 aimed at a deflector goes to the deflector's target (one hop, no chains;
                 deflections themselves are not moved).
  2. block    -- applies if its actor is not blocked yet: its targets are blocked, except
                 players with an `unblockable` passive.
  3. stop     -- applies if its actor is not blocked: its targets become "stopped"; every
                 later non-stop action aimed at a stopped player is cancelled.
  4. protect  -- applies if not cancelled: its targets are protected.
  5. kill     -- applies if not cancelled and the target is neither protected nor
                 bulletproof: the target dies.
  6. visit    -- applies if not cancelled (it does nothing by itself).
An action "is cancelled" when its actor is blocked or one of its targets is stopped.
Reflexive passives (reflexive:K of owner o): when an applied action of another player v
targets o, o's K is applied at once to v (kill: v dies unless protected or bulletproof;
block: v is blocked; stop: v is stopped; protect: v is protected; visit: nothing), as the
created effect `<passive id>><v>`, at most once per (passive, v). Passives always succeed.
"""

import json
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ next to the script
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ar_brute import NightError, parse  # noqa: E402

ORDER = ["deflect", "block", "stop", "protect", "kill", "visit"]


def resolve(players, effects):
    name = players.__getitem__
    unblockable = {e.actor for e in effects if e.kind == "unblockable"}
    bulletproof = {e.actor for e in effects if e.kind == "bulletproof"}
    reflexives = [e for e in effects if e.kind == "reflexive"]
    actions = sorted((e for e in effects if not e.passive),
                     key=lambda e: (ORDER.index(e.kind), e.priority))  # stable: file order
    redirect = {e.actor: e.targets[0] for e in actions if e.kind == "deflect"}
    final = {e.id: [t if e.kind == "deflect" else redirect.get(t, t) for t in e.targets]
             for e in actions}
    blocked, stopped, protected, dead = set(), set(), set(), set()
    succeeded = [e.id for e in effects if e.passive]
    created = []

    def apply(kind, targets):
        """Applies one action's effect; False if it has no effect (a kill that fails)."""
        if kind == "block":
            blocked.update(t for t in targets if t not in unblockable)
        elif kind == "stop":
            stopped.update(targets)
        elif kind == "protect":
            protected.update(targets)
        elif kind == "kill":
            if targets[0] in protected or targets[0] in bulletproof:
                return False
            dead.add(targets[0])
        return True

    for e in actions:
        targets = final[e.id]
        if e.actor in blocked or (e.kind != "stop" and any(t in stopped for t in targets)):
            continue
        if not apply(e.kind, targets):
            continue
        succeeded.append(e.id)
        for p in reflexives:
            cid = f"{p.id}>{name(e.actor)}"
            if p.actor in targets and e.actor != p.actor and cid not in final:
                final[cid] = [e.actor]
                created.append(cid)
                if apply(p.reflex, [e.actor]):
                    succeeded.append(cid)

    ids = [e.id for e in effects] + created
    way = {"final_targets": {k: [name(t) for t in v] for k, v in final.items()},
           "deaths": sorted(name(p) for p in dead)}
    resolution = {"succeeded": succeeded,
                  "failed": [i for i in ids if i not in succeeded],
                  "created": created, "optimal": True, "size": len(ids), "ways": [way]}
    return {"classification": "non-paradox", "resolutions": [resolution],
            "cut_cost": None, "cuts": None,
            "outcomes": [{"probability": "1", "cut": [], "succeeded": succeeded, **way}],
            "death_probabilities": [{"deaths": way["deaths"], "probability": "1"}]}


def main():
    try:
        players, effects = parse(sys.stdin.buffer.read().decode("utf-8"))
    except (NightError, UnicodeDecodeError) as e:
        print(f"priority_list: {e}", file=sys.stderr)
        sys.exit(2)
    json.dump(resolve(players, effects), sys.stdout)
    print()


if __name__ == "__main__":
    main()
