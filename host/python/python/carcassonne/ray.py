"""Arena- and balance-style simulations spread over a Ray cluster.

Game ``i`` of a run is fixed by the run's seed, ``i``, the bots, the player count and the
rules: :func:`carcassonne.play_games` seeds it exactly as ``carcassonne arena`` seeds its
game ``i`` and seats the bots by the arena's rotation. So a run can be cut into index
ranges, the ranges played by Ray tasks on any machines in any order, and the per-game
results merged by index: the merged report is the one a single process computes from the
same games (``carcassonne.arena_report(carcassonne.play_games(...))``), number for number.

Usage::

    import ray, carcassonne.ray as cray
    ray.init()                       # or ray.init(address="auto") on a cluster
    report = cray.arena(["mcts:200", "greedy"], games=10_000, seed=1)
    print(report["bots"][0]["win_rate"], report["bots"][0]["win_rate_ci95"])

Plugins: each task finds expansions the way the module does in the driver (``plugin_dirs``,
``CARCASSONNE_PLUGIN_PATH``, ``CARCASSONNE_EXPANSION_PATH``, the repository's folders). The
two variables, when set in the driver, are passed to the tasks (Ray ``runtime_env``), so on
a cluster they must name folders that exist on every node (a shared file system, or the
same install path everywhere); ``plugin_dirs`` is passed as given. The folder of the built
plugin libraries (``CARCASSONNE_LIBRARY_PATH``) is not forwarded, since ``import carcassonne``
sets it in every process from its own source tree: on nodes without that tree, set it for
all workers with ``ray.init(runtime_env={"env_vars": {"CARCASSONNE_LIBRARY_PATH": …}})``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

try:
    import ray as _ray
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "carcassonne.ray needs Ray: pip install 'ray' (or 'ray[default]' for the dashboard)"
    ) from exc

import carcassonne as _c

__all__ = [
    "arena",
    "compare",
    "paired_stats",
    "play_games",
    "split",
]

#: Environment variables forwarded to the tasks when the driver has them.
FORWARDED_ENV = ("CARCASSONNE_PLUGIN_PATH", "CARCASSONNE_EXPANSION_PATH")


def split(games: int, chunk_size: int, start: int = 0) -> list[tuple[int, int]]:
    """Cut the game indices ``start … start + games - 1`` into ``(start, count)`` ranges of
    at most ``chunk_size`` games, in order."""
    if games < 0:
        raise ValueError(f"games must be at least 0, not {games}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, not {chunk_size}")
    if start < 0:
        raise ValueError(f"start must be at least 0, not {start}")
    return [(s, min(chunk_size, start + games - s)) for s in range(start, start + games, chunk_size)]


@_ray.remote
def _play_range(
    bots: list[str],
    start: int,
    count: int,
    expansions: list[str],
    options: dict[str, str],
    players: int,
    seed: int,
    threads: int,
    plugin_dirs: list[str] | None,
) -> list[dict]:
    import carcassonne

    return carcassonne.play_games(
        bots,
        count,
        expansions=expansions,
        options=options,
        players=players,
        seed=seed,
        start=start,
        threads=threads,
        plugin_dirs=plugin_dirs,
    )


def _default_chunk_size(games: int) -> int:
    # About four tasks per CPU of the cluster, so that a slow task (a long game with many
    # expansions, a busy node) does not leave the others idle at the end.
    try:
        cpus = int(_ray.cluster_resources().get("CPU", 1))
    except Exception:  # pragma: no cover - cluster_resources needs a connection
        cpus = 1
    return max(1, math.ceil(games / (4 * max(1, cpus))))


def play_games(
    bots: Sequence[str],
    games: int,
    *,
    expansions: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
    players: int = 2,
    seed: int = 0,
    start: int = 0,
    chunk_size: int | None = None,
    cpus_per_task: int = 1,
    plugin_dirs: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """Play games ``start … start + games - 1`` as Ray tasks and return the per-game
    results sorted by index: the same list as ``carcassonne.play_games`` with the same
    arguments returns in one process.

    ``chunk_size`` games per task (default: about four tasks per CPU of the cluster); each
    task asks for ``cpus_per_task`` CPUs and plays its range on that many threads.
    ``progress(done, total)`` is called as tasks finish. Starts a local Ray instance if
    none is connected (``ray.init()``).
    """
    if not _ray.is_initialized():
        _ray.init()
    if cpus_per_task < 1:
        raise ValueError(f"cpus_per_task must be at least 1, not {cpus_per_task}")
    chunk = chunk_size if chunk_size is not None else _default_chunk_size(games)
    ranges = split(games, chunk, start)
    env_vars = {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ}
    task = _play_range.options(num_cpus=cpus_per_task)
    if env_vars:
        task = _play_range.options(num_cpus=cpus_per_task, runtime_env={"env_vars": env_vars})
    args = (
        list(expansions),
        dict(options or {}),
        players,
        seed,
        cpus_per_task,
        list(plugin_dirs) if plugin_dirs is not None else None,
    )
    bots = list(bots)
    pending = [task.remote(bots, s, n, *args) for s, n in ranges]
    results: list[dict] = []
    done = 0
    while pending:
        # Whatever finished within a second (or everything), so that a run of many tasks
        # costs O(tasks) per second of waiting, not O(tasks) per finished task.
        ready, pending = _ray.wait(pending, num_returns=len(pending), timeout=1.0)
        for chunk_results in _ray.get(ready):
            results.extend(chunk_results)
            done += len(chunk_results)
        if progress is not None and ready:
            progress(done, games)
    results.sort(key=lambda r: r["index"])
    indices = [r["index"] for r in results]
    if indices != list(range(start, start + games)):
        raise RuntimeError(
            f"the tasks returned games {indices[:3]}…, not exactly {start}…{start + games - 1}"
        )
    return results


def arena(
    bots: Sequence[str],
    games: int,
    *,
    expansions: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
    players: int = 2,
    seed: int = 0,
    chunk_size: int | None = None,
    cpus_per_task: int = 1,
    plugin_dirs: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    return_results: bool = False,
) -> dict | tuple[dict, list[dict]]:
    """``carcassonne arena`` on a Ray cluster: games ``0 … games - 1`` played as tasks,
    merged with ``carcassonne.arena_report``. Returns the report (the same dict as
    ``carcassonne arena --json``), and the per-game results too if ``return_results``."""
    results = play_games(
        bots,
        games,
        expansions=expansions,
        options=options,
        players=players,
        seed=seed,
        chunk_size=chunk_size,
        cpus_per_task=cpus_per_task,
        plugin_dirs=plugin_dirs,
        progress=progress,
    )
    report = _c.arena_report(
        results,
        list(bots),
        players,
        seed,
        expansions=list(expansions),
        options=dict(options or {}),
        plugin_dirs=list(plugin_dirs) if plugin_dirs is not None else None,
    )
    return (report, results) if return_results else report


def _mean_ci(xs: Sequence[float]) -> dict[str, Any]:
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": 0.0, "ci95": [0.0, 0.0]}
    mean = math.fsum(xs) / n
    if n < 2:
        return {"n": n, "mean": mean, "ci95": [mean, mean]}
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    half = 1.959963984540054 * math.sqrt(var / n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half]}


def _game_measures(r: dict) -> dict[str, float]:
    scores = sorted(r["scores"], reverse=True)
    top = scores[0]
    return {
        "score_mean": math.fsum(scores) / len(scores),
        "winner_lead": float(top - scores[1]) if len(scores) > 1 else 0.0,
        "seat0_wins": 1.0 if r["scores"][0] == top and r["scores"].count(top) == 1 else 0.0,
        "turns": float(r["turns"]),
    }


def paired_stats(base: Sequence[dict], variant: Sequence[dict]) -> dict[str, Any]:
    """Paired differences (variant − base) between two runs of the same game indices and
    seeds: per game, the mean final score over the seats, the winner's lead over the
    runner-up, whether seat 0 won outright, and the game's turns; each as the mean of the
    per-game differences with a normal 95% interval, plus both runs' means."""
    a = sorted(base, key=lambda r: r["index"])
    b = sorted(variant, key=lambda r: r["index"])
    if [r["index"] for r in a] != [r["index"] for r in b]:
        raise ValueError("the two runs do not cover the same game indices")
    if [r["seed"] for r in a] != [r["seed"] for r in b]:
        raise ValueError("the two runs do not use the same seeds")
    ma = [_game_measures(r) for r in a]
    mb = [_game_measures(r) for r in b]
    out: dict[str, Any] = {"games": len(a)}
    for key in ("score_mean", "winner_lead", "seat0_wins", "turns"):
        xa = [m[key] for m in ma]
        xb = [m[key] for m in mb]
        out[key] = {
            "base": _mean_ci(xa)["mean"],
            "variant": _mean_ci(xb)["mean"],
            "diff": _mean_ci([y - x for x, y in zip(xa, xb)]),
        }
    return out


def compare(
    bots: Sequence[str],
    games: int,
    *,
    base: Mapping[str, Any],
    variant: Mapping[str, Any],
    players: int = 2,
    seed: int = 0,
    chunk_size: int | None = None,
    cpus_per_task: int = 1,
    plugin_dirs: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A balance-style comparison on a Ray cluster: the same game indices, seeds and bots
    played under two rule sets, ``base`` and ``variant`` (each a dict with ``expansions``
    and optionally ``options``), e.g. without and with an expansion. Returns
    ``{"base": results, "variant": results, "paired": paired_stats(...)}`` and, when there
    are at least two bots, each run's arena report under ``base_report`` /
    ``variant_report``."""
    runs: dict[str, Any] = {}
    for name, cfg in (("base", base), ("variant", variant)):
        runs[name] = play_games(
            bots,
            games,
            expansions=list(cfg.get("expansions", ())),
            options=dict(cfg.get("options", {})),
            players=players,
            seed=seed,
            chunk_size=chunk_size,
            cpus_per_task=cpus_per_task,
            plugin_dirs=plugin_dirs,
        )
        if len(bots) >= 2:
            runs[f"{name}_report"] = _c.arena_report(
                runs[name],
                list(bots),
                players,
                seed,
                expansions=list(cfg.get("expansions", ())),
                options=dict(cfg.get("options", {})),
                plugin_dirs=list(plugin_dirs) if plugin_dirs is not None else None,
            )
    runs["paired"] = paired_stats(runs["base"], runs["variant"])
    return runs
