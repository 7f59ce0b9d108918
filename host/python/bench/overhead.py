"""Python overhead against the same work in the CLI (issue 21, item 4).

    python host/python/bench/overhead.py [--games N] [--expansions a,b] [--cli PATH]

Prints CPU seconds (time.process_time for in-process work, user+sys of the child for the
CLI), so that other processes on a busy machine count less. Everything runs on one thread.
"""

import argparse
import json
import os
import resource
import subprocess
import time

import numpy as np

import carcassonne as c


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli_run(cli, args):
    before = child_cpu()
    out = subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout
    return child_cpu() - before, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--expansions", default="")
    ap.add_argument("--cli", default=os.path.join(c.SOURCE_TREE or ".", "target", "debug", "carcassonne"))
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    ex = [e for e in a.expansions.split(",") if e]
    exargs = ["--expansions", ",".join(ex)] if ex else []
    n = a.games
    res = {"games": n, "expansions": ex}

    # Whole games: the CLI arena against play_games (the same games, seeds and seats).
    t, out = cli_run(a.cli, ["arena", "--bots", "random,random", "--games", str(n), "--seed", "1", "--threads", "1", "--json", *exargs])
    res["cli_arena_us_per_game"] = t / n * 1e6
    t0 = time.process_time()
    results = c.play_games(["random", "random"], n, expansions=ex, seed=1, threads=1)
    t1 = time.process_time()
    res["play_games_us_per_game"] = (t1 - t0) / n * 1e6
    assert c.arena_report(results, ["random", "random"], 2, 1, expansions=ex) == json.loads(out)
    t, out = cli_run(a.cli, ["simulate", "--games", str(n), "--seed", "1", "--threads", "1", "--json", *exargs])
    res["cli_simulate_us_per_game"] = t / n * 1e6
    decisions = json.loads(out)["decisions_mean"]
    res["decisions_per_game"] = decisions
    t0 = time.process_time()
    c.simulate(["random"], games=n, expansions=ex, seed=1, threads=1)
    res["simulate_us_per_game"] = (time.process_time() - t0) / n * 1e6

    # A Python loop over single games: ids from legal_ids, numpy's RNG, apply.
    m = max(n // 10, 10)
    rng = np.random.default_rng(0)
    steps = 0
    t0 = time.process_time()
    for s in range(m):
        g = c.Game(expansions=ex, seed=s)
        while not g.is_over:
            ids = g.legal_ids()
            g.apply(int(ids[rng.integers(len(ids))]))
            steps += 1
    t1 = time.process_time()
    res["python_loop_us_per_game"] = (t1 - t0) / m * 1e6
    res["python_loop_us_per_step"] = (t1 - t0) / steps * 1e6
    # The same with the mask (what an agent reads) instead of the id list.
    steps = 0
    t0 = time.process_time()
    for s in range(m):
        g = c.Game(expansions=ex, seed=s)
        while not g.is_over:
            ids = np.flatnonzero(g.action_mask())
            g.apply(int(ids[rng.integers(len(ids))]))
            steps += 1
    t1 = time.process_time()
    res["python_mask_loop_us_per_step"] = (t1 - t0) / steps * 1e6

    # BatchGames: masks + random legal ids + step, one thread, and with observations.
    b = c.BatchGames(a.batch, expansions=ex, seed=3, threads=1)
    k = max(2000 // a.batch * 10, 50)
    t0 = time.process_time()
    for _ in range(k):
        masks = b.action_masks()
        ids = b.bot_actions("random", seed=1)
        assert masks[0, ids[0]]
        b.step(ids)
    t1 = time.process_time()
    res["batch_us_per_game_step_masks"] = (t1 - t0) / (k * a.batch) * 1e6
    t0 = time.process_time()
    for _ in range(k):
        ids = b.bot_actions("random", seed=1)
        b.step(ids)
    t1 = time.process_time()
    res["batch_us_per_game_step_bot_ids"] = (t1 - t0) / (k * a.batch) * 1e6
    kk = max(k // 10, 5)
    t0 = time.process_time()
    for _ in range(kk):
        o = b.observations()
        ids = b.bot_actions("random", seed=1)
        b.step(ids)
    t1 = time.process_time()
    res["batch_us_per_game_step_with_observations"] = (t1 - t0) / (kk * a.batch) * 1e6
    res["engine_us_per_decision"] = res["cli_simulate_us_per_game"] / decisions
    print(json.dumps({k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()}, indent=1))


if __name__ == "__main__":
    main()
