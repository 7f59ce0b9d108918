#!/usr/bin/env python3
"""The expansion speed budgets (issues 16-18), measured.

CPU time per game of random 2-player games on one thread, for each configuration against
the base game, with the *floor* of each: the base game's own rules played on as many tiles
as the configuration's games place (a generated script expansion that adds base-game tiles
in the base game's mix and has no rules). The floor is what the length of the game costs
before any rule of the expansion runs; a budget below its floor cannot be met by any
implementation of the rules on this engine, only by making games shorter.

    python3 scripts/budgets.py [--games N] [--runs R] [--json]

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
# (name, expansions, budget, compared with)
CONFIGS = [
    ("inns-cathedrals", "inns-cathedrals", 1.4, None),
    ("traders-builders", "traders-builders", 1.4, None),
    ("princess-dragon", "princess-dragon", 1.5, None),
    ("tower", "tower", 1.5, None),
    ("abbey-mayor", "abbey-mayor", 1.4, None),
    ("six official", SIX, 2.6, None),
    ("eight official", EIGHT, 3.0, None),
    ("nine official", NINE, 3.0, None),
    ("nine + fan", NINE + ",tactician,promotions", 1.5, "nine official"),
]


def build():
    plugins = []
    for manifest in sorted((ROOT / "expansions").glob("*/Cargo.toml")):
        m = re.search(r'^name = "(.*)"', manifest.read_text(), re.M)
        plugins += ["-p", m.group(1)]
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


def measure(expansions, games, runs, env, scratch):
    cmd = [str(ROOT / "target" / "release" / "carcassonne"), "simulate", "--games",
           str(games), "--players", "2", "--seed", "1", "--threads", "1", "--json"]
    if expansions:
        cmd += ["--expansions", expansions]
    times, summary = [], None
    for _ in range(runs):
        ms, out = cpu_ms(cmd, env, scratch)
        times.append(ms)
        summary = json.loads(out)
    return {
        "us_per_game": statistics.median(times) * 1000.0 / games,
        "tiles": summary["tiles_mean"],
        "decisions": summary["decisions_mean"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not args.no_build:
        build()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        floors = scratch / "floors"
        env = dict(os.environ)
        env["CARCASSONNE_PLUGIN_PATH"] = os.pathsep.join(
            [str(ROOT / "expansions"), str(ROOT / "fan-expansions"), str(floors)]
        )
        base = measure("", args.games, args.runs, env, scratch)
        rows = {}
        for name, exps, budget, against in CONFIGS:
            row = measure(exps, args.games, args.runs, env, scratch)
            ref = rows[against] if against else base
            row["ratio"] = row["us_per_game"] / ref["us_per_game"]
            row["budget"] = budget
            row["against"] = against or "base"
            extra = round(row["tiles"] - base["tiles"])
            if against is None and extra > 0:
                floor_id = f"floor{extra}"
                if not (floors / floor_id).exists():
                    write_floor(floors / floor_id, extra)
                floor = measure(floor_id, args.games, args.runs, env, scratch)
                row["floor"] = floor["us_per_game"] / base["us_per_game"]
                row["floor_decisions"] = floor["decisions"]
            rows[name] = row
    if args.json:
        print(json.dumps({"games": args.games, "runs": args.runs, "base": base,
                          "configurations": rows}, indent=1))
        return
    b = base
    print(f"base game: {b['us_per_game']:.1f} µs/game, {b['tiles']:.1f} tiles, "
          f"{b['decisions']:.1f} decisions ({args.games} games, median of {args.runs})")
    print()
    print("| configuration | tiles | decisions | µs/game | ratio | budget | floor | "
          "left for the rules | used by the rules |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        ok = "✓" if r["ratio"] <= r["budget"] else "✗"
        against = "" if r["against"] == "base" else f" (vs {r['against']})"
        if "floor" in r:
            floor = f"{r['floor']:.2f}×"
            left = f"{r['budget'] - r['floor']:+.2f}×"
            used = f"{r['ratio'] - r['floor']:+.2f}×"
        else:
            floor = left = used = "—"
        print(f"| {name}{against} | {r['tiles']:.1f} | {r['decisions']:.1f} | "
              f"{r['us_per_game']:.1f} | {r['ratio']:.2f}× | ≤ {r['budget']}× {ok} | "
              f"{floor} | {left} | {used} |")


if __name__ == "__main__":
    sys.exit(main())
