#!/usr/bin/env python3
"""Where a configuration's time per decision goes, callees included (issues 33, 34).

A self-time profile (`scripts/timeshare.py`, `perf record` without call graphs) names the
functions that execute, not the steps of the game that call them: the deployment step's
cost is spread over a dozen hooks and filters in as many libraries. This script builds a
release copy with frame pointers (`target/frame-pointers/`, the plugins beside the program)
and records call graphs, so that each function is charged with everything it calls. Each
share is turned into microseconds per decision (the share of the samples times the run's CPU
time per decision, timed without the profiler), so two configurations read in one unit:

    python3 scripts/inclusive.py [--only 'base game,nine official'] [--bots mcts]
        [--games N] [--top 40] [--under FUNCTION] [--no-build] [--json]
    python3 scripts/inclusive.py --only 'base game,city-gates+courier' ...

Rows are sorted by what the last configuration adds over the first (by inclusive time).
`--under FUNCTION` (a part of a function's name, e.g. `score_placement`) lists instead what
that function's time is spent in: each sample below it is charged to the function it calls
(the innermost call of FUNCTION when it recurses), `(self)` to FUNCTION's own code. A
function that calls itself, or is reached through two paths of one sample, is counted once a
sample (perf's `--children`). Functions of the standard library carry no frame pointers, so a
sample taken inside one may lose the callers above it; those samples still count for the
function itself.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, ROOT, cpu_ms, default_games, game_env, plugin_packages  # noqa: E402

TARGET = ROOT / "target" / "frame-pointers"
BINARY = TARGET / "release" / "carcassonne"
# Long generic prefixes shortened in the table (the library column says whose it is).
SHORTER = [
    ("<carcassonne_core::plugin::GuardedHooks<B> as carcassonne_core::hooks::BoundExpansion>::",
     "Guarded::"),
    ("carcassonne_core::engine::", "core::"),
    ("carcassonne_core::", "core::"),
    ("carcassonne_play::", "play::"),
]


def build():
    plugins = [a for p, _ in plugin_packages() for a in ("-p", p)]
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET),
               RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " -C force-frame-pointers=yes").strip())
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "carcassonne-cli", *plugins],
                   cwd=ROOT, env=env, check=True)


def simulate_cmd(expansions, games, bots):
    """`expansions`: ids joined by ',', then any rule options, each after a ':'."""
    cmd = [str(BINARY), "simulate", "--games", str(games), "--players", "2", "--seed", "1",
           "--threads", "1", "--json", "--bots", bots]
    ids, *options = expansions.split(":")
    for o in options:
        cmd += ["--option", o]
    return cmd + (["--expansions", ids] if ids else [])


def library(dso):
    name = Path(dso).name
    m = re.match(r"libcarcassonne_(.*)\.so", name)
    return m.group(1).replace("_", "-") if m else name


def short(symbol):
    for long, brief in SHORTER:
        symbol = symbol.replace(long, brief)
    return symbol


def profile(expansions, games, bots, env, scratch, under=None):
    """{(library, function): (inclusive, self) µs per decision}, and the µs per decision.
    With `under`, the callees of the function whose name contains it (inclusive only)."""
    ms, out = cpu_ms(simulate_cmd(expansions, games, bots), env, scratch)
    decisions = json.loads(out)["decisions_mean"] * games
    per_decision = ms * 1000.0 / decisions
    data = scratch / "perf.data"
    subprocess.run(["perf", "record", "-q", "-F", "5000", "--call-graph", "fp", "-o", str(data),
                    *simulate_cmd(expansions, games, bots)],
                   env=env, capture_output=True, check=True)
    if under:
        return callees(data, under, per_decision), per_decision
    rep = subprocess.run(["perf", "report", "-i", str(data), "--children", "--sort", "dso,sym",
                          "--stdio", "-q", "-g", "none", "--percent-limit", "0.05"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$", line)
        if m:
            key = (library(m.group(3)), short(m.group(4)))
            inc, own = rows.get(key, (0.0, 0.0))
            rows[key] = (inc + float(m.group(1)) / 100 * per_decision,
                         own + float(m.group(2)) / 100 * per_decision)
    return rows, per_decision


def callees(data, under, per_decision):
    """{(library, callee): (µs per decision, 0)} of the samples below `under`."""
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip,sym,dso"],
                            capture_output=True, text=True, check=True).stdout
    samples, below = 0, {}
    for chain in script.split("\n\n"):
        frames = []
        for line in chain.strip().splitlines():
            m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
            if m:
                frames.append((library(m.group(2)), short(m.group(1).split("+0x")[0])))
        if not frames:
            continue
        samples += 1
        # Frames run from the sampled function outwards: the first match is the innermost.
        at = next((i for i, (_, fn) in enumerate(frames) if under in fn), None)
        if at is not None:
            key = frames[at - 1] if at > 0 else (frames[at][0], "(self)")
            below[key] = below.get(key, 0) + 1
    return {k: (n / max(samples, 1) * per_decision, 0.0) for k, n in below.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="base game,nine official",
                    help="comma-separated configuration names of scripts/budgets.py, the first "
                         "the reference ('base game' is the base game alone); any other name is "
                         "a list of expansion ids joined by '+' (city-gates+courier); either "
                         "may carry rule options after ':' (SET:SET.option=value)")
    ap.add_argument("--bots", default="random", help="bot spec for every seat (as `simulate`)")
    ap.add_argument("--games", type=int, help="games a configuration (default by bot: "
                                              "random 20000, greedy 200, mcts 4)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--under", metavar="FUNCTION",
                    help="list what this function (a part of its name) spends its time in")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    known = {"base game": ""} | {name: exps for name, exps, _, _ in CONFIGS}
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    if not names:
        sys.exit(f"no configuration; known: {', '.join(known)}, or ids joined by '+'")
    # A name that is no configuration is a list of expansion ids; either may carry options
    # after ':' ('nine official:princess-dragon.portal=false').
    for n in names:
        head, sep, options = n.partition(":")
        if n not in known:
            known[n] = known.get(head, head.replace("+", ",")) + sep + options
    if not shutil.which("perf"):
        sys.exit("inclusive.py needs `perf` (Linux perf, e.g. the linux-perf package)")
    games = args.games or default_games(args.bots)
    if not args.no_build:
        build()
    env = game_env()
    profiles = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            profiles.append(profile(known[name], games, args.bots, env, Path(tmp), args.under))
    keys = set().union(*(rows.keys() for rows, _ in profiles))
    first, last = profiles[0][0], profiles[-1][0]
    order = sorted(keys, key=lambda k: -(last.get(k, (0, 0))[0] - first.get(k, (0, 0))[0]))
    if args.json:
        print(json.dumps({
            "bots": args.bots, "games": games,
            "configurations": [{"name": n, "us_per_decision": p} for n, (_, p) in
                               zip(names, profiles)],
            "rows": [{"library": lib, "function": fn,
                      "inclusive_us": [rows.get((lib, fn), (0, 0))[0] for rows, _ in profiles],
                      "self_us": [rows.get((lib, fn), (0, 0))[1] for rows, _ in profiles]}
                     for lib, fn in order[:args.top]],
        }, indent=2))
        return
    print(f"bots {args.bots}, {games} games each; µs per decision: " + ", ".join(
        f"{n} {p:.3f}" for n, (_, p) in zip(names, profiles)))
    # Under a function the rows are its callees: one column a configuration.
    columns = 1 if args.under else 2
    heads = " | ".join(f"{n} under {args.under}" if args.under else f"{n} incl. | self"
                       for n in names)
    print(f"| library | function | {heads} |")
    print("|---|---|" + "---:|" * columns * len(names))
    for lib, fn in order[:args.top]:
        cells = " | ".join(" | ".join(f"{x:.3f}" for x in rows.get((lib, fn), (0, 0))[:columns])
                           for rows, _ in profiles)
        print(f"| {lib} | {fn[:90]} | {cells} |")


if __name__ == "__main__":
    main()
