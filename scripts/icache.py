#!/usr/bin/env python3
"""Instructions and L1 instruction-cache misses per decision, by cachegrind (issues 33, 34).

The time budgets of `scripts/budgets.py` depend on more than instructions: the base game's
hot code fits the L1 instruction cache and a plugin's added code pushes the host's own out
(docs/speed-log.md, "Where the time beyond the instructions goes"). Cachegrind counts both
exactly, so two builds can be compared on a busy machine where timings are noise:

    python3 scripts/icache.py [--games N] [--only 'abbey-mayor,nine official'] [--bin PATH]
                              [--i1 32768,8,64]

Cachegrind simulates the L1 instruction cache of the machine it runs on unless `--i1
SIZE,ASSOC,LINE` names one. The misses, and so the model, depend on it: the stops up to the
thirtieth ran on machines with a 32 KiB 8-way L1i, where the mixes' hot code overflowed it;
the thirty-first ran on one with 64 KiB, where it does not. Pass `--i1 32768,8,64` to compare
with those figures; the table says which cache it simulated.

Each figure is random 2-player games with seed 1, one game's start-up subtracted (a run of
N games minus a run of 1). The `model` column is (instructions + 26 × misses) against the
base game's: one simulated miss cost about 26 instructions' worth of time on the machine the
constant was fitted on (within ±0.1 of the measured time ratios of every set). It ranks
sets well but overstates what a change that moves code around gains in time: check such a
change with an interleaved timing A/B too (docs/speed-log.md, sixth stop).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, ROOT, build, game_env  # noqa: E402

MISS_WEIGHT = 26


def host_l1i() -> str:
    """The L1 instruction cache cachegrind finds on this machine, as `SIZE,ASSOC,LINE`."""
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "type").read_text().strip() != "Instruction":
                continue
            size = (index / "size").read_text().strip()
            ways = (index / "ways_of_associativity").read_text().strip()
            line = (index / "coherency_line_size").read_text().strip()
        except OSError:
            continue
        kib = int(size.rstrip("K")) if size.endswith("K") else int(size) // 1024
        return f"{kib * 1024},{ways},{line}"
    return "unknown"


def count(binary: Path, expansions: str, games: int, env, scratch: Path, i1=None):
    """(instructions, L1i misses, decisions) of one `simulate` run under cachegrind."""
    out = scratch / f"{abs(hash((expansions, games)))}.txt"
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes",
           "--cachegrind-out-file=/dev/null", f"--log-file={out}"]
    if i1:
        cmd.append(f"--I1={i1}")
    cmd += [str(binary), "simulate", "--games", str(games), "--players", "2", "--seed", "1",
           "--threads", "1", "--json"]
    if expansions:
        cmd += ["--expansions", expansions]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    log = out.read_text()

    def field(name):
        return int(re.search(rf"{name}:\s+([\d,]+)", log).group(1).replace(",", ""))

    summary = json.loads(run.stdout)
    return field(r"I\s+refs"), field(r"I1\s+misses"), summary["decisions_mean"] * games


def per_decision(binary, expansions, games, env, scratch, i1=None):
    full = count(binary, expansions, games, env, scratch, i1)
    start = count(binary, expansions, 1, env, scratch, i1)
    decisions = full[2] - start[2]
    return {
        "instructions": (full[0] - start[0]) / decisions,
        "misses": (full[1] - start[1]) / decisions,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300, help="games per figure (default 300)")
    ap.add_argument("--only", help="comma-separated configuration names (as budgets.py)")
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "carcassonne",
                    help="the program to measure (its plugins beside it)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--i1", help="simulated L1i as SIZE,ASSOC,LINE (default: this machine's)")
    args = ap.parse_args()
    if args.i1 and not re.fullmatch(r"\d+,\d+,\d+", args.i1):
        sys.exit(f"--i1 {args.i1!r}: expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64")
    i1 = args.i1 or host_l1i()
    configs = [(n, e) for n, e, _, _ in CONFIGS]
    if args.only:
        # The base game is always measured (every figure is against it).
        wanted = {w.strip() for w in args.only.split(",")} - {"base game"}
        unknown = wanted - {n for n, _ in configs}
        if unknown:
            sys.exit(f"unknown configuration(s): {', '.join(sorted(unknown))}")
        configs = [c for c in configs if c[0] in wanted]
    if not args.no_build:
        build()
    env = game_env()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        jobs = {name: pool.submit(per_decision, args.bin, exps, args.games, env, Path(tmp),
                                  args.i1)
                for name, exps in [("base game", "")] + configs}
        rows = {name: job.result() for name, job in jobs.items()}
    base = rows["base game"]
    weight = base["instructions"] + MISS_WEIGHT * base["misses"]
    for r in rows.values():
        r["model"] = (r["instructions"] + MISS_WEIGHT * r["misses"]) / weight
    if args.json:
        print(json.dumps({"games": args.games, "l1i": i1, "configurations": rows}, indent=1))
        return
    print(f"Simulated L1i (size, ways, line in bytes): {i1}")
    print()
    print(f"| configuration | instructions/decision | L1i misses/decision | model ({args.games} games) |")
    print("|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['instructions']:.1f} | {r['misses']:.2f} | {r['model']:.2f}× |")


if __name__ == "__main__":
    sys.exit(main())
