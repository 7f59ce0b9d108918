#!/usr/bin/env python3
"""How much code a decision runs, against the 32 KiB L1 instruction cache (issues 33, 34).

`scripts/icache.py` counts L1i misses; this says why a set misses: the cache lines of code the
games run often. Random 2-player games (seed 1) under callgrind with `--dump-instr=yes`, a
1-game run subtracted (start-up), every 64-byte line of every library weighed by the
instructions it ran a decision:

    python3 scripts/footprint.py [--expansions bridges-castles-bazaars] [--games 300] [--bin PATH]

It prints the code that runs at least 1, 0.3, 0.1, 0.03 and 0.01 times a decision (lines
whose instructions a decision reach 4 × that rate, 4 instructions standing for one pass over
a line), each library's share (the host, each plugin, libc) of the code run at least 0.1
times a decision with those lines' misses, and the functions whose lines miss most. The base
game's lines run at least 0.1 times a decision fill about 25 KiB; when a set's pass 32 KiB,
its lines evict each other whatever their layout (docs/speed-log.md, twenty-third stop).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATES = (1.0, 0.3, 0.1, 0.03, 0.01)
# The rate whose code is split by library: about what fills the 32 KiB L1i.
BY_LIBRARY = 0.1
LINE = 64


def run(binary: Path, expansions: str, games: int, out: Path) -> float:
    """One `simulate` under callgrind into `out`; returns its decisions."""
    cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--dump-instr=yes",
           "--dump-line=no", f"--callgrind-out-file={out}", str(binary), "simulate",
           "--games", str(games), "--players", "2", "--seed", "1", "--threads", "1", "--json"]
    if expansions:
        cmd += ["--expansions", expansions]
    env = dict(os.environ)
    env.setdefault("CARCASSONNE_PLUGIN_PATH", os.pathsep.join(
        [str(ROOT / "expansions"), str(ROOT / "fan-expansions")]))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["decisions_mean"] * games


def lines(path: Path):
    """(library, line) -> [instructions, L1i misses], and (library, line) -> function."""
    cost = collections.defaultdict(lambda: [0, 0])
    owner = {}
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    last = 0
    call_cost_next = False
    with open(path) as f:
        for text in f:
            head = text[:4]
            if head.startswith(("ob=", "cob=", "fn=", "cfn=")):
                key, _, rest = text.strip().partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?", rest)
                table = names["ob" if key.endswith("ob") else "fn"]
                if m.group(2):
                    table[m.group(1)] = m.group(2)
                if key == "ob":
                    ob = table.get(m.group(1))
                elif key == "fn":
                    fn = table.get(m.group(1))
                continue
            if text.startswith("calls="):
                call_cost_next = True
                continue
            if not text or text[0] not in "0+-*":
                continue
            parts = text.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] == "+":
                addr = last + int(a[1:])
            elif a[0] == "-":
                addr = last - int(a[1:])
            else:
                addr = last
            last = addr
            if call_cost_next:  # an inclusive call cost, not this line's own
                call_cost_next = False
                continue
            key = (Path(ob).name if ob else "?", addr // LINE)
            events = [int(x) for x in parts[1:]]
            cost[key][0] += events[0] if events else 0
            cost[key][1] += events[3] if len(events) > 3 else 0
            owner[key] = fn or "?"
    return cost, owner


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expansions", default="", help="comma-separated (default: the base game)")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "carcassonne")
    ap.add_argument("--top", type=int, default=20, help="functions listed by misses")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        full, one = Path(tmp) / "full.out", Path(tmp) / "one.out"
        decisions = run(args.bin, args.expansions, args.games, full)
        decisions -= run(args.bin, args.expansions, 1, one)
        cost, owner = lines(full)
        start, _ = lines(one)
    per = {k: ((c[0] - start[k][0]) / decisions, (c[1] - start[k][1]) / decisions)
           for k, c in cost.items() if k not in start or c[0] > start[k][0]}
    print(f"{args.expansions or 'base game'}: {decisions:.0f} decisions, "
          f"{sum(m for _, m in per.values()):.2f} L1i misses a decision")
    for rate in RATES:
        n = sum(1 for i, _ in per.values() if i >= 4 * rate)
        print(f"  code run >= {rate} a decision: {n} lines, {n * LINE / 1024:.1f} KiB")
    # Which library the often-run lines belong to: the host's core, each plugin, libc.
    by_lib = collections.defaultdict(lambda: [0, 0.0])
    for (lib, _), (i, m) in per.items():
        if i >= 4 * BY_LIBRARY:
            by_lib[lib][0] += 1
            by_lib[lib][1] += m
    print(f"  code run >= {BY_LIBRARY} a decision by library "
          "(KiB, those lines' misses a decision):")
    for lib, (n, m) in sorted(by_lib.items(), key=lambda kv: -kv[1][0]):
        print(f"    {n * LINE / 1024:6.1f} KiB {m:6.2f}  {lib}")
    by_fn = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for k, (i, m) in per.items():
        row = by_fn[(k[0], owner[k])]
        row[0] += 1
        row[1] += i
        row[2] += m
    print("  functions by misses a decision (library, lines, instructions, misses):")
    for (lib, name), (n, i, m) in sorted(by_fn.items(), key=lambda kv: -kv[1][2])[:args.top]:
        print(f"    {m:6.2f} {i:8.1f} {n:4d}  {lib}  {name[:100]}")


if __name__ == "__main__":
    sys.exit(main())
