"""Two builds of the package timed in turns (issue 33): a wheel from `scripts/pgo.py
--python` against a plain release one, say.

    python host/python/bench/builds_ab.py SITE_A SITE_B [--rounds 6] [--games 4000]
        [--expansions a,b] [--steps 200]

SITE_A and SITE_B are folders a wheel was installed into (`pip install --no-deps --target
SITE wheel`). Each round runs both, in alternating order, each in its own interpreter (a
module loads once per process), with the plugins of the folder given for each (`--libs-a`,
`--libs-b`, set as `CARCASSONNE_LIBRARY_PATH`; without one, the variable as it is, else what
the package finds itself). Two workloads, CPU time of one thread:

- `simulate`: whole random games in Rust (µs a game);
- `BatchGames(64)`: `bot_actions("random")` + `step`, the loop an agent's trainer runs (µs a
  game-step).

Prints each round and the paired median of B against A, per workload.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# Run in a child with SITE on its path: one JSON line of µs figures.
CHILD = """
import json, sys, time
import carcassonne as c
games, steps, ex = int(sys.argv[1]), int(sys.argv[2]), [e for e in sys.argv[3].split(",") if e]
t0 = time.process_time()
summary = c.simulate(["random"], games=games, expansions=ex, seed=1, threads=1)
sim = (time.process_time() - t0) / games * 1e6
batch = c.BatchGames(64, ex, {}, 2, 1, threads=1)
t0 = time.process_time()
for k in range(steps):
    batch.step(batch.bot_actions("random", k))
step = (time.process_time() - t0) / (64 * steps) * 1e6
print(json.dumps({"simulate_us_per_game": sim, "batch_us_per_step": step,
                  "decisions_mean": summary["decisions_mean"]}))
"""


def run(site, libs, a):
    # Absolute folders: the child runs elsewhere, so that no `carcassonne` folder in the
    # current one shadows the installed package.
    env = dict(os.environ, PYTHONPATH=os.path.abspath(site))
    if libs:
        env["CARCASSONNE_LIBRARY_PATH"] = os.path.abspath(libs)
    done = subprocess.run([sys.executable, "-c", CHILD, str(a.games), str(a.steps),
                           a.expansions], env=env, capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        sys.exit(f"{site}: the run failed\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site_a")
    ap.add_argument("site_b")
    ap.add_argument("--libs-a", default="")
    ap.add_argument("--libs-b", default="")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--expansions", default="")
    a = ap.parse_args()
    ratios = {"simulate_us_per_game": [], "batch_us_per_step": []}
    for r in range(a.rounds):
        order = [("A", a.site_a, a.libs_a), ("B", a.site_b, a.libs_b)]
        if r % 2:
            order.reverse()
        got = {name: run(site, libs, a) for name, site, libs in order}
        if got["A"]["decisions_mean"] != got["B"]["decisions_mean"]:
            sys.exit("the two builds play other games (decisions_mean differs)")
        for key in ratios:
            ratios[key].append(got["B"][key] / got["A"][key])
        print(f"round {r + 1}: " + ", ".join(
            f"{key} A {got['A'][key]:.2f} B {got['B'][key]:.2f}" for key in ratios), flush=True)
    for key, rs in ratios.items():
        print(f"{key}: B against A, paired median {100 * (statistics.median(rs) - 1):+.1f}% "
              f"(rounds {', '.join(f'{100 * (x - 1):+.1f}%' for x in rs)})")


if __name__ == "__main__":
    main()
