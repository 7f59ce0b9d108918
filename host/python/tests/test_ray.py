"""carcassonne.ray: games split over Ray tasks merge into the single-process numbers.

Ray runs in local mode on 2 CPUs (as CI has); the runs are small so that starting Ray
dominates (about 10 s).
"""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray")

import carcassonne  # noqa: E402
import carcassonne.ray as cray  # noqa: E402


@pytest.fixture(scope="module")
def ray_local():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_split_covers_the_range_once():
    assert cray.split(10, 4) == [(0, 4), (4, 4), (8, 2)]
    assert cray.split(10, 4, start=5) == [(5, 4), (9, 4), (13, 2)]
    assert cray.split(0, 3) == []
    covered = [i for s, n in cray.split(97, 8, start=3) for i in range(s, s + n)]
    assert covered == list(range(3, 100))
    with pytest.raises(ValueError):
        cray.split(5, 0)


def test_merged_arena_equals_single_process(ray_local):
    bots = ["greedy", "random"]
    games, seed = 12, 11
    report, results = cray.arena(bots, games, seed=seed, chunk_size=3, return_results=True)
    local = carcassonne.play_games(bots, games, seed=seed)
    # The same games, game for game (seed, seating, scores, turns) ...
    assert results == sorted(local, key=lambda r: r["index"])
    assert [r["index"] for r in results] == list(range(games))
    # ... and the same merged report, number for number.
    assert report == carcassonne.arena_report(local, bots, 2, seed, [])
    assert report["games"] == games
    assert sum(b["seats"] for b in report["bots"]) == 2 * games


def test_merged_arena_with_an_expansion_mix_and_a_fan_script(ray_local):
    bots = ["greedy", "random"]
    mix = ["count", "tactician"]
    games, seed = 4, 3
    report = cray.arena(bots, games, expansions=mix, seed=seed, chunk_size=1)
    local = carcassonne.play_games(bots, games, expansions=mix, seed=seed)
    assert report == carcassonne.arena_report(local, bots, 2, seed, mix)


def test_ranges_starting_past_zero(ray_local):
    bots = ["random", "greedy"]
    results = cray.play_games(bots, 5, seed=2, start=7, chunk_size=2)
    local = carcassonne.play_games(bots, 5, seed=2, start=7)
    assert [r["index"] for r in results] == [7, 8, 9, 10, 11]
    assert results == sorted(local, key=lambda r: r["index"])


def test_compare_is_paired_over_the_same_seeds(ray_local):
    bots = ["greedy", "random"]
    out = cray.compare(
        bots, 4, base={"expansions": []}, variant={"expansions": ["tactician"]}, seed=5,
        chunk_size=2,
    )
    base = carcassonne.play_games(bots, 4, seed=5)
    variant = carcassonne.play_games(bots, 4, expansions=["tactician"], seed=5)
    assert out["base"] == sorted(base, key=lambda r: r["index"])
    assert out["variant"] == sorted(variant, key=lambda r: r["index"])
    assert out["paired"] == cray.paired_stats(base, variant)
    assert [r["seed"] for r in out["base"]] == [r["seed"] for r in out["variant"]]
    turns = out["paired"]["turns"]
    mean_turns_base = sum(r["turns"] for r in base) / 4
    assert turns["base"] == pytest.approx(mean_turns_base)
    assert turns["diff"]["mean"] == pytest.approx(turns["variant"] - turns["base"])


def test_paired_stats_by_hand():
    base = [
        {"index": 0, "seed": 1, "scores": [10, 4], "turns": 70},
        {"index": 1, "seed": 2, "scores": [3, 9], "turns": 72},
    ]
    variant = [
        {"index": 1, "seed": 2, "scores": [8, 8], "turns": 80},
        {"index": 0, "seed": 1, "scores": [20, 10], "turns": 76},
    ]
    p = cray.paired_stats(base, variant)
    assert p["games"] == 2
    # score means: base 7, 6; variant 15, 8 → diffs 8, 2.
    assert p["score_mean"]["base"] == pytest.approx(6.5)
    assert p["score_mean"]["diff"]["mean"] == pytest.approx(5.0)
    # winner's lead: base 6, 6; variant 10, 0.
    assert p["winner_lead"]["diff"]["mean"] == pytest.approx(-1.0)
    # seat 0 outright wins: base 1, 0; variant 1, 0 (a tie is not a win).
    assert p["seat0_wins"]["base"] == 0.5 and p["seat0_wins"]["variant"] == 0.5
    assert p["turns"]["diff"]["mean"] == pytest.approx(7.0)
    with pytest.raises(ValueError):
        cray.paired_stats(base, variant[:1])
