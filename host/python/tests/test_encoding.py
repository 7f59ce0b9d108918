"""The fixed action encoding (issue 21, item 2): the mask is exactly the legal set, ids are
distinct, and an id applies exactly its action, with every expansion (fan scripts included)."""

import json

import numpy as np
import pytest

import carcassonne as c
from conftest import EVERYTHING, FAN, OFFICIAL

MIXES = [[]] + [[e] for e in EVERYTHING] + [OFFICIAL, EVERYTHING]


def check_step(g):
    ids = g.legal_ids()
    mask = g.action_mask()
    assert mask.shape == (c.ACTION_SIZE,) and mask.dtype == np.bool_
    assert len(set(ids.tolist())) == len(ids), "ids are distinct"
    assert np.array_equal(np.flatnonzero(mask), np.sort(ids)), "mask is exactly the legal ids"
    assert [a.id for a in g.legal_actions()] == ids.tolist()
    return ids


@pytest.mark.parametrize("mix", MIXES, ids=lambda m: "+".join(m) or "base")
def test_mask_is_exact_over_random_games(mix):
    rng = np.random.default_rng(len(mix))
    steps = 0
    games = 3 if len(mix) > 1 else 2
    for seed in range(games):
        g = c.Game(expansions=mix, players=2 + seed % 3, seed=seed)
        while not g.is_over:
            ids = check_step(g)
            g.apply(int(ids[rng.integers(len(ids))]))
            steps += 1
    assert steps > 100


def test_thousands_of_steps_with_everything():
    rng = np.random.default_rng(99)
    steps = 0
    seed = 100
    while steps < 3000:
        g = c.Game(expansions=EVERYTHING, players=2 + seed % 4, seed=seed)
        while not g.is_over:
            ids = check_step(g)
            g.apply(int(ids[rng.integers(len(ids))]))
            steps += 1
        seed += 1
    assert steps >= 3000


def last_record_action(g):
    return json.loads(g.record_json())["actions"][-1]


@pytest.mark.parametrize("mix", [[], OFFICIAL, EVERYTHING], ids=["base", "official", "everything"])
def test_each_id_applies_its_own_action(mix):
    """For a sample of decisions, every legal id is applied on a copy: the action the record
    then holds is the one the id describes, and the copies all differ (no two ids alias)."""
    rng = np.random.default_rng(7)
    g = c.Game(expansions=mix, seed=5)
    checked = 0
    while not g.is_over:
        ids = g.legal_ids()
        if rng.random() < 0.15 or ids.min() >= c.LAYOUT["pass"][0]:
            records = set()
            for a in ids.tolist()[:60]:
                h = g.clone()
                desc = h.describe(a)
                h.apply(a)
                ra = last_record_action(h)
                assert ra["player"] == g.current_player
                kind = desc.split(" ")[0]
                expect = {"place": "place", "deploy": "deploy", "move": "move", "pass": "pass", "draw": "draw"}
                assert ra["type"] == expect.get(kind, "custom"), (desc, ra)
                if ra["type"] == "place":
                    x, y = ra["x"], ra["y"]
                    assert f"at ({x},{y}) rotation {ra['rotation']}" in desc
                records.add(json.dumps(ra, sort_keys=True))
                checked += 1
            assert len(records) == min(len(ids), 60)
        g.apply(int(ids[rng.integers(len(ids))]))
    assert checked > 50


def test_placement_ids_decode_to_cell_and_rotation():
    g = c.Game(seed=8)
    w, half = c.BOARD_WINDOW, c.BOARD_WINDOW // 2
    for a in g.legal_actions():
        cell, quarter = divmod(a.id, 4)
        row, col = divmod(cell, w)
        assert f"at ({col - half},{row - half}) rotation {quarter * 90}" in a.description


def test_same_seed_same_ids_same_record():
    for mix in ([], EVERYTHING):
        runs = []
        for _ in range(2):
            g = c.Game(expansions=mix, players=3, seed=1234)
            rng = np.random.default_rng(5)
            while not g.is_over:
                ids = g.legal_ids()
                g.apply(int(ids[rng.integers(len(ids))]))
            runs.append(g.record_json().encode())
        assert runs[0] == runs[1]


def test_fan_scripts_load():
    g = c.Game(expansions=FAN, seed=3)
    assert set(FAN) <= set(g.expansions)
