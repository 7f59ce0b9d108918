"""Batch simulation (issue 21, item 4): BatchGames equals single games; play_games and
simulate equal the CLI's arena and simulate."""

import json
import subprocess

import numpy as np
import pytest

import carcassonne as c
from conftest import OFFICIAL


@pytest.mark.parametrize("mix", [[], OFFICIAL], ids=["base", "official"])
def test_batch_equals_single_games(mix):
    n, seed = 4, 17
    b = c.BatchGames(n, expansions=mix, players=2, seed=seed, threads=2)
    singles = [c.Game(expansions=mix, players=2, seed=c.game_seed(seed, j)) for j in range(n)]
    rng = np.random.default_rng(0)
    finished = [False] * n
    totals = np.zeros((n, 2))
    while not all(finished):
        masks = b.action_masks()
        assert masks.shape == (n, c.ACTION_SIZE)
        assert (b.current_players() == [g.current_player for g in singles]).all()
        ids = []
        for j, g in enumerate(singles):
            assert (masks[j] == g.action_mask()).all()
            legal = g.legal_ids()
            ids.append(int(legal[rng.integers(len(legal))]))
        obs = b.observations()
        for j, g in enumerate(singles):
            one = g.observation(g.current_player)
            for k, v in one.items():
                assert (obs[k][j] == v).all(), k
        rewards, dones = b.step(np.array(ids, dtype=np.int64))
        assert rewards.shape == (n, 2) and dones.shape == (n,)
        for j, g in enumerate(singles):
            before = np.array(g.scores())
            g.apply(ids[j])
            assert (rewards[j] == np.array(g.scores()) - before).all()
            totals[j] += rewards[j]
            assert dones[j] == g.is_over
            if g.is_over:
                finished[j] = True
                assert (totals[j] == g.scores()).all()
                # The finished slot starts its next episode at once.
                singles[j] = c.Game(expansions=mix, players=2, seed=c.game_seed(seed, n + j))
                totals[j] = 0


def test_illegal_batch_step_steps_nothing():
    b = c.BatchGames(3, seed=1)
    before = [b.game(j).record_json() for j in range(3)]
    ids = [int(np.flatnonzero(m)[0]) for m in b.action_masks()]
    ids[1] = c.ACTION_SIZE - 1
    with pytest.raises(c.IllegalAction):
        b.step(np.array(ids, dtype=np.int64))
    with pytest.raises(c.CarcassonneError):
        b.step(np.array(ids[:2], dtype=np.int64))
    assert [b.game(j).record_json() for j in range(3)] == before


def test_batch_bot_actions_are_legal():
    b = c.BatchGames(5, expansions=["inns-cathedrals"], seed=2)
    for _ in range(50):
        ids = b.bot_actions("random", seed=3)
        masks = b.action_masks()
        assert all(masks[j, i] for j, i in enumerate(ids))
        b.step(ids)


def cli_json(cli, *args):
    out = subprocess.run([str(cli), *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_play_games_and_arena_report_match_the_cli(cli):
    bots, games, seed = ["random", "greedy"], 6, 5
    results = c.play_games(bots, games, players=2, seed=seed, threads=2)
    assert [r["index"] for r in results] == list(range(games))
    assert all(r["seed"] == c.game_seed(seed, r["index"]) for r in results)
    report = c.arena_report(results, bots, players=2, seed=seed)
    expected = cli_json(cli, "arena", "--bots", "random,greedy", "--games", str(games), "--seed", str(seed))
    assert report == expected
    # Split into ranges (as the Ray helper does), in any order: the same report.
    parts = c.play_games(bots, 4, seed=seed, start=2) + c.play_games(bots, 2, seed=seed, start=0, threads=1)
    assert c.arena_report(parts, bots, players=2, seed=seed) == expected
    # Seats rotate: game 1 seats greedy first.
    assert results[1]["bots"] == ["greedy", "random"]


def test_simulate_matches_the_cli(cli):
    got = c.simulate(["random"], games=20, players=3, seed=8, threads=2, expansions=["river2"])
    want = cli_json(cli, "simulate", "--games", "20", "--players", "3", "--seed", "8", "--expansions", "river2")
    for k in ("games_per_second", "threads"):
        got.pop(k)
        want.pop(k)
    assert got == want


def test_bad_batch_setups():
    with pytest.raises(c.CarcassonneError):
        c.BatchGames(0)
    with pytest.raises(c.CarcassonneError):
        c.play_games(["random"], 2)  # an arena needs two bots
    with pytest.raises(c.CarcassonneError):
        c.simulate(["nobody"], games=1)


def test_thread_count_changes_nothing_but_speed():
    """The persistent pool (issue 33): any thread count gives the same games, rewards,
    observations and bot choices."""
    runs = []
    for threads in (1, 2, 3):
        b = c.BatchGames(5, expansions=["count"], seed=4, threads=threads)
        assert b.threads == threads
        log = []
        for _ in range(120):
            ids = b.bot_actions("random", seed=1)
            obs = b.observations()
            rewards, dones = b.step(ids)
            log.append((ids.tolist(), rewards.tolist(), dones.tolist(), int(obs["planes"].sum())))
        runs.append((log, [b.game(j).record_json() for j in range(5)]))
    assert runs[0] == runs[1] == runs[2]
