#!/usr/bin/env python3
"""Time share against instruction share, by function and by library (issues 33, 34).

A set whose timed ratio (`scripts/budgets.py`) reads above its instruction model
(`scripts/icache.py`) spends time that instructions do not show: mispredicted branches,
data misses. Where, is found by comparing, within one configuration, each function's share
of `perf record -e cpu-clock` samples with its share of cachegrind's instructions:

    python3 scripts/timeshare.py [--only 'base game,traders-builders'] [--top 20] [--bin PATH]

t/I = time share / instruction share. Within one run, so a uniform slowdown of the whole
run does not show (and noise between runs does not either); a function well above 1 is slow
for its instructions, one below 1 fast. Compare a function's t/I across configurations (a
plugin's hooks against core's functions, a set against the base game). Instructions come
from random 2-player games with seed 1 (`--cg-games`, one game's start-up subtracted, as
icache.py), samples from `--perf-games` games of the same kind (docs/speed-log.md, tb21).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import CONFIGS, ROOT  # noqa: E402


def simulate_cmd(binary, expansions, games):
    cmd = [str(binary), "simulate", "--games", str(games), "--players", "2", "--seed", "1",
           "--threads", "1", "--json"]
    return cmd + (["--expansions", expansions] if expansions else [])


def instructions(binary, expansions, games, env, scratch):
    """Instructions by function name, summed over the function's inlined lines."""
    out = scratch / f"cg-{abs(hash((expansions, games)))}.out"
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                    f"--cachegrind-out-file={out}", "--log-file=/dev/null",
                    *simulate_cmd(binary, expansions, games)],
                   env=env, capture_output=True, check=True)
    by_fn, fn = {}, None
    for line in out.read_text(errors="replace").splitlines():
        if line.startswith("fn="):
            fn = line[3:].strip()
        elif line[:1].isdigit() and fn is not None:
            by_fn[fn] = by_fn.get(fn, 0) + int(line.split()[1])
    return by_fn


def samples(binary, expansions, games, env, scratch):
    """Self samples by (library, function name)."""
    data = scratch / f"perf-{abs(hash(expansions))}.data"
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "20000", "-o", str(data),
                    *simulate_cmd(binary, expansions, games)],
                   env=env, capture_output=True, check=True)
    rep = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort",
                          "dso,symbol", "--stdio", "-n"],
                         capture_output=True, text=True, check=True).stdout
    out = {}
    for line in rep.splitlines():
        # The report's last columns (source line, parent) read `-` without those sort keys.
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\]\s+(.*?)(?:\s+-)*\s*$", line)
        if m:
            key = (m.group(2), m.group(3))
            out[key] = out.get(key, 0) + int(m.group(1))
    return out


def shares(binary, expansions, args, env, scratch):
    full = instructions(binary, expansions, args.cg_games, env, scratch)
    start = instructions(binary, expansions, 1, env, scratch)
    instr = {f: n - start.get(f, 0) for f, n in full.items()}
    itotal = sum(v for v in instr.values() if v > 0)
    smp = samples(binary, expansions, args.perf_games, env, scratch)
    stotal = sum(smp.values())
    # A name sampled in two libraries (a generic instantiated in both) splits its
    # instructions between them by samples.
    per_name = {}
    for (_, fn), n in smp.items():
        per_name[fn] = per_name.get(fn, 0) + n
    rows = [{"library": lib, "function": fn, "time": n / stotal,
             "instructions": max(instr.get(fn, 0), 0) * n / per_name[fn] / itotal}
            for (lib, fn), n in smp.items()]
    rows.sort(key=lambda r: -r["time"])
    libs = {}
    for r in rows:
        t, i = libs.get(r["library"], (0.0, 0.0))
        libs[r["library"]] = (t + r["time"], i + r["instructions"])
    return rows, libs


def ratio(t, i):
    return f"{t / i:.2f}" if i > 0 else "—"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="base game",
                    help="comma-separated configuration names (budgets.py's, 'base game')")
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/carcassonne")
    ap.add_argument("--cg-games", type=int, default=300)
    ap.add_argument("--perf-games", type=int, default=30000)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    names = {n: e for n, e, _, _ in CONFIGS}
    names["base game"] = ""
    wanted = [w.strip() for w in args.only.split(",")]
    unknown = [w for w in wanted if w not in names]
    if unknown:
        sys.exit(f"unknown configuration(s): {', '.join(unknown)}")
    env = dict(os.environ)
    env.setdefault("CARCASSONNE_PLUGIN_PATH", f"{ROOT / 'expansions'}:{ROOT / 'fan-expansions'}")
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            result[name] = shares(args.bin, names[name], args, env, Path(tmp))
    if args.json:
        print(json.dumps({n: {"functions": rows, "libraries": libs}
                          for n, (rows, libs) in result.items()}, indent=1))
        return
    for name, (rows, libs) in result.items():
        print(f"\n### {name}\n")
        print("| function | library | time | instructions | t/I |")
        print("|---|---|---|---|---|")
        for r in rows[:args.top]:
            print(f"| `{r['function'][-90:]}` | {r['library']} | {100 * r['time']:.2f}% | "
                  f"{100 * r['instructions']:.2f}% | {ratio(r['time'], r['instructions'])} |")
        print("\n| library | time | instructions | t/I |")
        print("|---|---|---|---|")
        for lib, (t, i) in sorted(libs.items(), key=lambda kv: -kv[1][0]):
            if t >= 0.001:
                print(f"| {lib} | {100 * t:.2f}% | {100 * i:.2f}% | {ratio(t, i)} |")


if __name__ == "__main__":
    main()
