"""Issue 33: ``Game.determinize(seed)`` lets search code play on a copy that does not know
the real order of the tiles to come (``clone()`` does)."""

import numpy as np
import pytest

import carcassonne as c
from conftest import random_playout


def next_tiles(g, k=6):
    """The tiles drawn over the next ``k`` placements when always playing the lowest id."""
    seen = []
    while not g.is_over and len(seen) < k:
        if "must place tile" in g.decision:
            seen.append(g.decision.split()[-1])
        g.apply(int(g.legal_ids().min()))
    return seen


def test_determinize_keeps_the_table_and_hides_the_future():
    g = c.Game(seed=11)
    random_playout(g, np.random.default_rng(11), steps=20)
    seat = g.current_player
    d = g.determinize(5)
    # Everything seen stays: board, tile in hand, scores, remaining multiset, legal ids.
    for k, v in g.observation(seat).items():
        assert (d.observation(seat)[k] == v).all(), k
    assert (d.legal_ids() == g.legal_ids()).all() and d.scores() == g.scores()
    # A clone draws exactly what the game will draw; determinizations differ from it.
    real = next_tiles(g.clone())
    assert next_tiles(g.clone()) == real
    others = [next_tiles(g.determinize(s)) for s in range(8)]
    assert any(o != real for o in others)
    # The same multiset of tiles is still to come.
    for s in range(3):
        dd = g.determinize(s)
        assert (dd.observation(seat)["remaining"] == g.observation(seat)["remaining"]).all()
    # Same seed, same determinization.
    assert next_tiles(g.determinize(3)) == next_tiles(g.determinize(3))
    # The game itself is untouched.
    assert next_tiles(g) == real


def test_a_determinized_game_plays_to_the_end_but_has_no_record():
    g = c.Game(expansions=["count", "tactician"], seed=2)
    random_playout(g, np.random.default_rng(2), steps=15)
    d = g.determinize(9)
    random_playout(d, np.random.default_rng(3))
    assert d.is_over
    with pytest.raises(c.CarcassonneError, match="determinized"):
        d.record_json()
    g.record_json()  # the original still has one
