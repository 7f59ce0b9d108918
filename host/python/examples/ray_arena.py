"""An arena run spread over Ray tasks, checked against the same games in one process.

    python host/python/examples/ray_arena.py                       # local Ray, 2 CPUs
    python host/python/examples/ray_arena.py --address auto --games 100000 --no-check
    python host/python/examples/ray_arena.py --bots mcts:200,greedy --expansions count,tactician

Prints the merged report's per-bot lines and, unless --no-check, plays the same games in
this process (``carcassonne.play_games`` + ``carcassonne.arena_report``) and says whether
the two reports are equal (they must be: same seeds, same games).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import ray

import carcassonne
import carcassonne.ray as cray


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default="greedy,random", help="comma-separated bot specs")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expansions", default="", help="comma-separated expansion ids")
    ap.add_argument("--chunk-size", type=int, default=None, help="games per Ray task")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of a local Ray instance")
    ap.add_argument("--json", action="store_true", help="print the whole merged report")
    ap.add_argument("--no-check", action="store_true", help="skip the single-process run")
    args = ap.parse_args(argv)

    bots = [b for b in args.bots.split(",") if b]
    expansions = [e for e in args.expansions.split(",") if e]
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)

    t0 = time.perf_counter()
    report = cray.arena(
        bots,
        args.games,
        expansions=expansions,
        players=args.players,
        seed=args.seed,
        chunk_size=args.chunk_size,
        progress=lambda done, total: print(f"\r{done}/{total} games", end="", file=sys.stderr),
    )
    took = time.perf_counter() - t0
    print(file=sys.stderr)
    cpus = int(ray.cluster_resources().get("CPU", 0))
    print(
        f"ray: {args.games} games on {cpus} CPUs in {took:.1f} s "
        f"({args.games / took * 3600:,.0f} games/hour)"
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for b in report["bots"]:
            lo, hi = b["win_rate_ci95"]
            print(
                f"{b['bot']:>12}: win rate {b['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
                f"mean score {b['score_mean']:.1f}, margin {b['margin_mean']:+.1f}, "
                f"Elo {b['elo']:+.0f}"
            )
    ray.shutdown()

    if args.no_check:
        return 0
    t0, c0 = time.perf_counter(), time.process_time()
    local = carcassonne.play_games(
        bots, args.games, expansions=expansions, players=args.players, seed=args.seed, threads=1
    )
    single = carcassonne.arena_report(local, bots, args.players, args.seed, expansions=expansions)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    same = single == report
    print(
        f"single process, one thread: {took:.1f} s wall, {cpu:.1f} s CPU "
        f"({args.games / cpu * 3600:,.0f} games per CPU-hour); "
        f"merged report {'equals' if same else 'DIFFERS FROM'} the single-process report"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
