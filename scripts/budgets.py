#!/usr/bin/env python3
"""The expansion speed budgets (issue 33), measured per decision.

CPU time per decision of 2-player games on one thread, for each configuration against the
base game with the same bots (random by default; `--bots greedy` or `--bots mcts` measure
the bots, issue 33 item 1). A budget per game would ignore how long a game is, so every
budget is per decision: each single set <= 1.3x the base game's time per decision, each mix
<= 1.5x; a bot with all nine <= 4x (greedy) or 2x (MCTS) its base-game time per decision.

Each row also shows its *floor*: the base game's own rules played on as many tiles as the
configuration's games place (a generated script expansion that adds base-game tiles in the
base game's mix and has no rules), per decision against the base game. The floor is what a
larger board costs before any rule of the expansion runs.

    python3 scripts/budgets.py [--games N] [--runs R] [--bots SPEC] [--json] [--no-build]

Each row's runs are interleaved with runs of what it is compared with (the base game, or for
"nine + fan" the nine), and its ratio is taken against those: on a machine whose speed drifts
(other work, frequency) a ratio is then fair where two figures taken minutes apart are not.

Each figure is the fastest of its runs (`--estimator min`, the default) or their median
(`--estimator median`). Another guest on the same host only ever slows a run down: on a
shared virtual machine the same 10,000 games took 264 to 489 ms of CPU time over a few
minutes, while the fastest runs agreed within 1% (docs/speed-log.md, thirty-seventh stop).
So the fastest run is the best estimate of what the code costs; the median moves with the
neighbours. `--json` also gives every run's time, to see the spread.

Builds the release CLI and the plugins first. CPU time comes from `perf stat -e task-clock`
when perf is installed (it does not count the time other processes hold the core), else
from the child's user + system time.
"""

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_TILES = ROOT / "core" / "tiles" / "base.toml"
SIX = "count,king-robber,river2,heretics-shrines,inns-cathedrals,traders-builders"
EIGHT = SIX + ",princess-dragon,tower"
NINE = EIGHT + ",abbey-mayor"
# Per-decision budgets (issue 33): a single set, a mix, and each bot with all nine.
SET, MIX = 1.3, 1.5
BOT_NINE = {"greedy": 4.0, "mcts": 2.0}
# (name, expansions, budget per decision, compared with)
CONFIGS = [
    ("inns-cathedrals", "inns-cathedrals", SET, None),
    ("traders-builders", "traders-builders", SET, None),
    ("princess-dragon", "princess-dragon", SET, None),
    ("tower", "tower", SET, None),
    ("abbey-mayor", "abbey-mayor", SET, None),
    ("count", "count", SET, None),
    ("king-robber", "king-robber", SET, None),
    ("river", "river", SET, None),
    ("river2", "river2", SET, None),
    ("heretics-shrines", "heretics-shrines", SET, None),
    ("abbot-garden", "abbot-garden", SET, None),
    ("hills-sheep", "hills-sheep", SET, None),
    ("bridges-castles-bazaars", "bridges-castles-bazaars", SET, None),
    ("big-top", "big-top", SET, None),
    ("six official", SIX, MIX, None),
    ("eight official", EIGHT, MIX, None),
    ("nine official", NINE, MIX, None),
    ("nine + fan", NINE + ",tactician,promotions", MIX, "nine official"),
]
# Games per figure when the bots search (a greedy or MCTS game costs 10^3-10^5 random ones).
BOT_GAMES = {"random": 20000, "greedy": 200, "mcts": 4}


def default_games(bots: str) -> int:
    """Games per figure for the bot spec `bots` (`random`, `greedy`, `mcts[:N]`): its kind's
    `BOT_GAMES`; 20 for a kind `simulate` does not know (it then refuses the spec)."""
    return BOT_GAMES.get(bots.split(":")[0], 20)


def game_env(*extra_dirs: Path, **variables: str) -> dict:
    """The environment of a game run: plugins and fan scripts from this checkout's
    `expansions` and `fan-expansions` (then `extra_dirs`), and `variables` on top."""
    dirs = [ROOT / "expansions", ROOT / "fan-expansions", *extra_dirs]
    return dict(os.environ, CARCASSONNE_PLUGIN_PATH=os.pathsep.join(map(str, dirs)),
                **variables)


def plugin_packages():
    """(package, library file name) of every plugin crate (a `cdylib`) under expansions/."""
    out = []
    for manifest in sorted((ROOT / "expansions").glob("*/Cargo.toml")):
        text = manifest.read_text()
        if "cdylib" in text:
            package = re.search(r'^name = "(.*)"', text, re.M).group(1)
            out.append((package, f"lib{package.replace('-', '_')}.so"))
    return out


def build():
    plugins = [a for p, _ in plugin_packages() for a in ("-p", p)]
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "carcassonne-cli", *plugins],
        cwd=ROOT,
        check=True,
    )


def write_floor(folder: Path, extra: int):
    """A script expansion adding `extra` base-game tiles (the base mix, largest remainders)."""
    blocks = BASE_TILES.read_text().split("[[tile]]")[1:]
    counts = [int(re.search(r"^count = (\d+)", b, re.M).group(1)) for b in blocks]
    raw = [c * extra / sum(counts) for c in counts]
    scaled = [int(r) for r in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: scaled[i] - raw[i])
    for i in by_remainder[: extra - sum(scaled)]:
        scaled[i] += 1
    tiles = ['schema = 1\nset = "floor"\n']
    for block, n in zip(blocks, scaled):
        if n == 0:
            continue
        block = re.sub(r"^(aliases = .*|start = true)\n", "", block, flags=re.M)
        block = re.sub(r"^count = \d+", f"count = {n}", block, flags=re.M)
        tiles.append("[[tile]]" + block.replace('id = "BA/', 'id = "FLOOR/'))
    folder.mkdir(parents=True)
    (folder / "tiles.toml").write_text("".join(tiles))
    (folder / "floor.rhai").write_text("// Tiles only: no rules.\n")
    (folder / "expansion.toml").write_text(
        f"""[expansion]
id = "{folder.name}"
name = "Floor {extra}"
version = "1.0.0"
api = "1.0"
kind = "script"
entry = "floor.rhai"
description = "{extra} more tiles of the base game's kinds and mix, and no rules."

[dependencies]
requires = [{{ id = "base", version = ">=0.1" }}]

[assets]
tiles = ["tiles.toml"]
"""
    )


def cpu_ms(cmd, env, scratch: Path):
    """Runs `cmd`; returns (CPU milliseconds, stdout)."""
    if shutil.which("perf"):
        out = scratch / "perf.txt"
        run = subprocess.run(
            ["perf", "stat", "-e", "task-clock", "-x,", "-o", str(out), *cmd],
            env=env, capture_output=True, text=True, check=True,
        )
        line = next(l for l in out.read_text().splitlines() if "task-clock" in l)
        return float(line.split(",")[0]), run.stdout
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used * 1000.0, run.stdout


ESTIMATORS = {"min": min, "median": statistics.median}


def measure(configs, games, runs, env, scratch, bots="random", binary=None, estimator="min"):
    """Per-decision figures of each expansion list in `configs`, their runs interleaved
    (round r runs every configuration once, in order) so that a drift in the machine's
    speed reaches each of them alike and their ratios stay fair; each figure is the
    `estimator` (`ESTIMATORS`) of its runs."""
    def cmd(expansions):
        c = [str(binary or ROOT / "target" / "release" / "carcassonne"), "simulate", "--games",
             str(games), "--players", "2", "--seed", "1", "--threads", "1", "--json",
             "--bots", bots]
        return c + ["--expansions", expansions] if expansions else c

    times = [[] for _ in configs]
    summaries = [None] * len(configs)
    for _ in range(runs):
        for i, expansions in enumerate(configs):
            ms, out = cpu_ms(cmd(expansions), env, scratch)
            times[i].append(ms)
            summaries[i] = json.loads(out)
    results = []
    for t, summary in zip(times, summaries):
        us_per_game = ESTIMATORS[estimator](t) * 1000.0 / games
        results.append({
            "us_per_game": us_per_game,
            "run_ms": t,
            "us_per_decision": us_per_game / summary["decisions_mean"],
            "tiles": summary["tiles_mean"],
            "decisions": summary["decisions_mean"],
        })
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, help="games per figure (default by bot: "
                    "random 20000, greedy 200, mcts 4)")
    ap.add_argument("--runs", type=int, default=3, help="runs per figure")
    ap.add_argument("--estimator", choices=sorted(ESTIMATORS), default="min",
                    help="a figure from its runs: the fastest (default; other work on the "
                    "host only slows a run) or the median")
    ap.add_argument("--bots", default="random",
                    help="bot spec for every seat: random, greedy, mcts[:N] (as `simulate`)")
    ap.add_argument("--only", help="comma-separated configuration names to measure "
                    "(e.g. 'nine official'); the base game is always measured")
    ap.add_argument("--no-floor", action="store_true", help="skip the floors")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--bin", type=Path, help="the program to measure, its plugins beside it "
                    "(default target/release/carcassonne; e.g. target/pgo/carcassonne, the "
                    "profile-guided build of scripts/pgo.py); implies --no-build")
    args = ap.parse_args()
    kind = args.bots.split(":")[0]
    if args.games is None:
        args.games = default_games(args.bots)
    configs = CONFIGS
    if kind in BOT_NINE:
        # A searching bot: its budget is with all nine against itself in the base game.
        configs = [(n, e, BOT_NINE[kind] if n == "nine official" else None, a)
                   for n, e, _, a in CONFIGS]
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        unknown = wanted - {c[0] for c in configs}
        if unknown:
            sys.exit(f"unknown configuration(s): {', '.join(sorted(unknown))}")
        configs = [c for c in configs if c[0] in wanted or c[0] == "nine official"
                   and any(a == "nine official" for n, _, _, a in configs if n in wanted)]
    if not args.no_build and args.bin is None:
        build()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        floors = scratch / "floors"
        env = game_env(floors)
        # Each row is measured interleaved with what it is compared with (the base game, or
        # the configuration named), so that its ratio is not skewed by a drift in speed
        # between rows; the header's base figure is the median over every row's pair.
        ref_exps = {n: e for n, e, _, _ in CONFIGS}
        bases, rows = [], {}
        for name, exps, budget, against in configs:
            ref, row = measure([ref_exps[against] if against else "", exps], args.games,
                               args.runs, env, scratch, args.bots, args.bin, args.estimator)
            if against is None:
                bases.append(ref)
            row["ratio"] = row["us_per_decision"] / ref["us_per_decision"]
            row["reference_us_per_decision"] = ref["us_per_decision"]
            row["budget"] = budget
            row["against"] = against or "base"
            extra = round(row["tiles"] - ref["tiles"])
            if against is None and extra > 0 and not args.no_floor:
                floor_id = f"floor{extra}"
                if not (floors / floor_id).exists():
                    write_floor(floors / floor_id, extra)
                fbase, floor = measure(["", floor_id], args.games, args.runs, env, scratch,
                                       args.bots, args.bin, args.estimator)
                row["floor"] = floor["us_per_decision"] / fbase["us_per_decision"]
                row["floor_decisions"] = floor["decisions"]
            rows[name] = row
        if not bases:
            bases = measure([""], args.games, args.runs, env, scratch, args.bots, args.bin,
                            args.estimator)
        base = dict(bases[0])
        for key in ("us_per_game", "us_per_decision"):
            base[key] = ESTIMATORS[args.estimator](b[key] for b in bases)
    if args.json:
        print(json.dumps({"games": args.games, "runs": args.runs, "bots": args.bots,
                          "estimator": args.estimator,
                          "base": base, "configurations": rows}, indent=1))
        return
    b = base
    print(f"bots {args.bots}, base game: {b['us_per_decision']:.2f} µs/decision, "
          f"{b['us_per_game']:.1f} µs/game, {b['tiles']:.1f} tiles, "
          f"{b['decisions']:.1f} decisions ({args.games} games, {args.estimator} of "
          f"{args.runs} runs and over the rows; each row's ratio is against the "
          "base runs interleaved with its own)")
    print()
    print("| configuration | tiles | decisions | µs/game | µs/decision | "
          "per decision vs base | budget | floor |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        if r["budget"] is None:
            budget = "—"
        else:
            budget = f"≤ {r['budget']}× {'✓' if r['ratio'] <= r['budget'] else '✗'}"
        against = "" if r["against"] == "base" else f" (vs {r['against']})"
        floor = f"{r['floor']:.2f}×" if "floor" in r else "—"
        print(f"| {name}{against} | {r['tiles']:.1f} | {r['decisions']:.1f} | "
              f"{r['us_per_game']:.1f} | {r['us_per_decision']:.2f} | {r['ratio']:.2f}× | "
              f"{budget} | {floor} |")


if __name__ == "__main__":
    sys.exit(main())
