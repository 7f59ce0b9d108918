#!/usr/bin/env python3
"""Interleaved timing A/B of two release builds, in CPU time per decision (issues 33, 34).

A change of a few per cent is smaller than the drift of a busy machine between two runs, so
the two builds run in turns, round after round (which goes first alternates: the second of
two runs reads faster), and the medians are compared. Use an even number of rounds:

    python3 scripts/ab.py BEFORE_BIN [AFTER_BIN] [--rounds 4] [--games 20000]
        [--only 'base game,abbey-mayor'] [--bots mcts]

BEFORE_BIN is a copy of an earlier `carcassonne` with its plugin libraries beside it (plugins
load from beside the program); AFTER_BIN defaults to `target/release/carcassonne`. Each run is
20,000 (`--games`) random 2-player games, seed 1, one thread; the time is the child's user + system CPU
time, so no profiler is needed. `--bots greedy` or `--bots mcts[:N]` times the bots in every
seat instead, with budgets.py's games per run (200 greedy, 4 MCTS): four budget runs of one
program read the MCTS ratio with the nine from 2.03× to 2.12× (docs/speed-log.md,
fifty-fourth stop). Both builds read the manifests of this checkout.

The change is the median over rounds of each round's after/before (a paired median: a slow
round slows both of its runs, so it cancels), next to the change of the two medians and that
of the two fastest runs (on a shared host, where other guests only ever slow a run down, the
fastest runs are the steadiest figure: `scripts/budgets.py`). For a
change near 1% use 15 rounds of 40,000 games (docs/speed-log.md, thirty-second stop).

The ratio columns are the budgets' measure (`scripts/budgets.py`): a set's time per decision
against the base game's, per round, with the median over rounds. Code layout alone moves a
build's time by several per cent (docs/speed-log.md, amb12), so an A/B says what a change
does to the build it is in, not what any later build will show.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, ROOT, default_games, game_env  # noqa: E402

def cpu_per_decision(binary: str, expansions: str, env, games: int, bots: str) -> float:
    """µs of CPU time per decision of one `simulate` run of `games` games, `bots` in every
    seat."""
    cmd = [binary, "simulate", "--games", str(games), "--players", "2", "--seed", "1",
           "--threads", "1", "--json", "--bots", bots]
    if expansions:
        cmd += ["--expansions", expansions]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    decisions = json.loads(run.stdout)["decisions_mean"] * games
    return seconds * 1e6 / decisions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", help="the earlier build's carcassonne binary")
    parser.add_argument("after", nargs="?", default=str(ROOT / "target/release/carcassonne"))
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--games", type=int, help="games a run (default by bot: random "
                        "20000, greedy 200, mcts 4)")
    parser.add_argument("--bots", default="random",
                        help="bot spec for every seat: random, greedy, mcts[:N] (as `simulate`)")
    parser.add_argument("--only", help="comma-separated configuration names (budgets.py's)")
    args = parser.parse_args()
    if args.games is None:
        args.games = default_games(args.bots)

    configs = [("base game", "")] + [(name, exp) for name, exp, _, _ in CONFIGS]
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        unknown = wanted - {name for name, _ in configs}
        if unknown:
            sys.exit(f"unknown configuration(s): {', '.join(sorted(unknown))}")
        # The base game always runs: every ratio is against it.
        configs = [c for c in configs if c[0] in wanted or c[0] == "base game"]
    for binary in (args.before, args.after):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary}: not an executable")

    env = game_env()
    times = {(name, side): [] for name, _ in configs for side in ("before", "after")}
    for r in range(args.rounds):
        for name, expansions in configs:
            sides = [("before", args.before), ("after", args.after)]
            # The second of two runs back to back reads about 1% faster, even for the same
            # program (btam15 in docs/speed-log.md): alternate which goes first.
            for side, binary in sides if r % 2 == 0 else sides[::-1]:
                t = cpu_per_decision(binary, expansions, env, args.games, args.bots)
                times[(name, side)].append(t)
                print(f"round {r + 1} {name:26} {side:6} {t:.4f} µs", file=sys.stderr)

    def ratio(name, side):
        return statistics.median(
            t / b for t, b in zip(times[(name, side)], times[("base game", side)]))

    print(f"{'configuration':26} {'before µs':>10} {'after µs':>10} {'change':>8}"
          f" {'paired':>8} {'fastest':>8} {'ratio before':>13} {'ratio after':>12}")
    for name, _ in configs:
        b = statistics.median(times[(name, "before")])
        a = statistics.median(times[(name, "after")])
        paired = statistics.median(
            y / x for x, y in zip(times[(name, "before")], times[(name, "after")]))
        fastest = min(times[(name, "after")]) / min(times[(name, "before")])
        print(f"{name:26} {b:10.4f} {a:10.4f} {(a / b - 1) * 100:+7.1f}%"
              f" {(paired - 1) * 100:+7.1f}% {(fastest - 1) * 100:+7.1f}%"
              f" {ratio(name, 'before'):12.3f}× {ratio(name, 'after'):11.3f}×")


if __name__ == "__main__":
    main()
