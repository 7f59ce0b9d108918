"""The native API (issue 21, item 1): every method, typed errors that leave the game unchanged."""

import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import carcassonne as c
from conftest import EVERYTHING, OFFICIAL, random_playout


def test_constants_and_layout():
    blocks = sorted(c.LAYOUT.values())
    start = 0
    for first, size in blocks:
        assert first == start
        start += size
    assert start == c.ACTION_SIZE
    assert c.LAYOUT["place"] == (0, c.BOARD_WINDOW * c.BOARD_WINDOW * 4)
    assert c.BOARD_WINDOW % 2 == 1
    assert len(c.OBSERVATION_PLANES) == len(set(c.OBSERVATION_PLANES))
    assert isinstance(c.__version__, str)


def test_new_game_state():
    g = c.Game(players=3, seed=7, names=["ann", "bob", "cy"])
    assert (g.players, g.seed, g.turn, g.is_over) == (3, 7, 0, False)
    assert g.current_player == 0
    assert g.scores() == [0, 0, 0]
    assert g.events() == []
    acts = g.legal_actions()
    assert acts and all(a.player == 0 for a in acts)
    # the first decision places the first drawn tile next to the start tile at (0,0).
    assert all(a.description.startswith("place ") for a in acts)
    ids = [a.id for a in acts]
    assert len(set(ids)) == len(ids)
    assert all(0 <= i < c.LAYOUT["pass"][0] for i in ids)
    assert g.legal_ids().tolist() == ids
    assert g.describe(ids[0]) == acts[0].description
    assert "must place" in g.decision


def test_apply_clone_scores_events():
    g = c.Game(seed=11)
    rng = np.random.default_rng(11)
    random_playout(g, rng, steps=20)
    h = g.clone()
    assert h.record_json() == g.record_json()
    random_playout(h, rng, steps=5)
    assert h.record_json() != g.record_json()
    # copy.copy and copy.deepcopy are clones too.
    assert copy.deepcopy(g).record_json() == g.record_json()
    random_playout(g, rng)
    assert g.is_over and g.current_player is None
    assert g.legal_actions() == [] and not g.action_mask().any()
    ev = g.events()
    assert ev and {"player", "label", "points", "complete", "final", "turn", "feature"} <= set(ev[0])
    # The score events add up to the scores (every point is awarded by a score event).
    totals = [0] * g.players
    for e in ev:
        totals[e["player"]] += e["points"]
    assert totals == g.scores()
    assert g.events(since=len(ev) - 1) == ev[-1:]
    assert any(e["final"] for e in ev)


@pytest.mark.parametrize("bad", [-1, c.ACTION_SIZE, 2**40, c.LAYOUT["pass"][0]])
def test_illegal_ids_leave_the_game_unchanged(bad):
    g = c.Game(seed=3)
    before = (g.record_json(), g.action_mask().copy(), g.scores(), g.turn)
    with pytest.raises(c.IllegalAction):
        g.apply(bad)
    with pytest.raises(ValueError):  # IllegalAction is a ValueError
        g.apply(bad)
    with pytest.raises(c.IllegalAction):
        g.describe(bad)
    after = (g.record_json(), g.action_mask(), g.scores(), g.turn)
    assert before[0] == after[0] and (before[1] == after[1]).all() and before[2:] == after[2:]


def test_apply_on_a_finished_game_is_illegal():
    g = c.Game(seed=4)
    random_playout(g, np.random.default_rng(4))
    with pytest.raises(c.IllegalAction):
        g.apply(0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"expansions": ["no-such-expansion"]},
        {"options": {"farmScoring": "7th"}},
        {"options": {"no.such": "x"}},
        {"players": 0},
        {"players": 9},
        {"players": 2, "names": ["only one"]},
    ],
)
def test_bad_setups_raise_carcassonne_error(kwargs):
    with pytest.raises(c.CarcassonneError):
        c.Game(**kwargs)


def test_bad_records_and_saves(tmp_path):
    for text in ["", "{", "[]", json.dumps({"format": "carcassonne-record"})]:
        with pytest.raises(c.CarcassonneError):
            c.Game.from_record(text)
    g = c.Game(seed=5)
    random_playout(g, np.random.default_rng(5), steps=10)
    rec = json.loads(g.record_json())
    rec["actions"][3] = {"type": "place", "player": 0, "tile": "BA/CcRr", "x": 40, "y": 40, "rotation": 0}
    with pytest.raises(c.CarcassonneError):
        c.Game.from_record(json.dumps(rec))
    with pytest.raises(c.CarcassonneError):
        c.Game.from_jcz(str(tmp_path / "missing.jcz"))
    bad = tmp_path / "bad.jcz"
    bad.write_text("not json")
    with pytest.raises(c.CarcassonneError):
        c.Game.from_jcz(str(bad))


def test_bots():
    g = c.Game(seed=9)
    for bot in ["random", "greedy", "mcts:20"]:
        a = g.bot_action(bot, seed=1)
        assert a in g.legal_ids().tolist()
        assert g.bot_action(bot, seed=1) == a  # seeded
    with pytest.raises(c.CarcassonneError):
        g.bot_action("nobody")


def test_render():
    g = c.Game(seed=2)
    random_playout(g, np.random.default_rng(2), steps=12)
    svg = g.render_svg()
    assert svg.lstrip().startswith("<svg") or svg.lstrip().startswith("<?xml")
    img = g.render_rgb(0.5)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] > 10 and img.shape[1] > 10
    assert img.std() > 0  # not a blank picture
    with pytest.raises(c.CarcassonneError):
        g.render_rgb(-1.0)


def test_list_expansions():
    ids = {e["id"] for e in c.list_expansions()}
    assert {"base", *EVERYTHING} <= ids
    count = next(e for e in c.list_expansions() if e["id"] == "count")
    assert {"id", "name", "kind", "options", "version"} <= set(count)
    assert any(o["key"].startswith("count.") for o in count["options"])


def test_observation_shapes_are_the_same_for_every_mix():
    shapes = None
    for ex in [[], ["river2"], EVERYTHING]:
        g = c.Game(expansions=ex, players=3, seed=1)
        random_playout(g, np.random.default_rng(1), steps=15)
        o = g.observation(g.current_player)
        s = {k: (v.shape, v.dtype) for k, v in o.items()}
        assert shapes is None or s == shapes
        shapes = s
    assert shapes["planes"][0] == (len(c.OBSERVATION_PLANES), c.BOARD_WINDOW, c.BOARD_WINDOW)
    assert shapes["other"][0] == (c.OTHER_SLOTS, len(c.OTHER_COLUMNS))
    with pytest.raises(c.CarcassonneError):
        g.observation(3)


def test_observation_content():
    g = c.Game(seed=6)
    rng = np.random.default_rng(6)
    random_playout(g, rng, steps=21)
    o = g.observation(0)
    p = o["planes"]
    tile = c.OBSERVATION_PLANES.index("tile")
    rec = json.loads(g.record_json())
    placed = 1 + sum(1 for a in rec["actions"] if a["type"] == "place")
    assert int(p[tile].sum()) == placed
    # The start tile is at the window's centre.
    mid = c.BOARD_WINDOW // 2
    assert p[tile, mid, mid] == 1
    # Remaining tiles: 72 base tiles minus the placed ones (and discards, none this early).
    assert int(o["remaining"].sum()) == 72 - placed - (1 if g.observation(0)["tile"].any() else 0)
    # Seat-relative scores.
    o1 = g.observation(1)
    assert o["scores"][0] == g.scores()[0] and o1["scores"][0] == g.scores()[1]
    # 7 followers each; the supply row 0 is the observing seat's.
    assert 0 <= o["supply"][0, 0] <= 7 and 0 <= o1["supply"][0, 0] <= 7
    assert o["supply"][0, 0] == o1["supply"][1, 0]
    occ0 = c.OBSERVATION_PLANES.index("occupancy_0")
    assert (o["planes"][occ0] == o1["planes"][occ0 + 1]).all()
    assert o["decision"].sum() == 1


def test_other_slots_describe_expansion_actions():
    # Princess & Dragon and the Tower offer actions outside the fixed blocks (moves, prompts).
    g = c.Game(expansions=OFFICIAL, seed=21)
    rng = np.random.default_rng(21)
    seen = 0
    while not g.is_over:
        ids = g.legal_ids()
        other = [i for i in ids.tolist() if i >= c.LAYOUT["other"][0]]
        if other:
            o = g.observation(g.current_player)["other"]
            k = c.OTHER_COLUMNS.index("kind")
            rows = [i - c.LAYOUT["other"][0] for i in other]
            assert sorted(rows) == list(range(len(rows)))
            assert (o[rows, k] > 0).all() and (o[len(rows):, k] == 0).all()
            seen += 1
        g.apply(int(ids[rng.integers(len(ids))]))
    assert seen > 0


def test_games_and_errors_pickle():
    import pickle

    g = c.Game(expansions=["inns-cathedrals"], seed=12)
    random_playout(g, np.random.default_rng(12), steps=30)
    h = pickle.loads(pickle.dumps(g))
    assert h.record_json() == g.record_json()
    assert (h.action_mask() == g.action_mask()).all()
    e = pickle.loads(pickle.dumps(c.IllegalAction("x")))
    assert isinstance(e, c.IllegalAction) and isinstance(e, ValueError)
    assert isinstance(pickle.loads(pickle.dumps(c.CarcassonneError("y"))), c.CarcassonneError)


def test_a_neutral_figure_is_observed_as_nobodys():
    # The guide's Herald (docs/examples/herald): one neutral figure the script places on the
    # start tile's road (HE-1). Observations show him in the `neutral_figures` plane, never
    # as a seat's occupant nor in a seat's supply.
    from conftest import REPO

    g = c.Game(expansions=["herald"], players=2, seed=4, plugin_dirs=[str(REPO / "docs" / "examples")])
    neutral = c.OBSERVATION_PLANES.index("neutral_figures")
    mid = c.BOARD_WINDOW // 2
    rng = np.random.default_rng(4)
    for _ in range(30):
        o = g.observation(g.current_player)
        assert int(o["planes"][neutral].sum()) == 1
        assert o["supply"][:, 0].max() <= 7
        if g.is_over:
            break
        random_playout(g, rng, steps=1)
    g0 = c.Game(expansions=["herald"], players=2, seed=4, plugin_dirs=[str(REPO / "docs" / "examples")])
    assert g0.observation(0)["planes"][neutral, mid, mid] == 1


def test_default_library_folders():
    """Without CARCASSONNE_LIBRARY_PATH, `import carcassonne` looks first in the folder its
    build named, if any (`scripts/pgo.py` names its output; `pip install ./host/python`
    names none), then in the source tree's cargo folders, the module's own build profile
    first."""
    env = {k: v for k, v in os.environ.items() if k != "CARCASSONNE_LIBRARY_PATH"}
    code = (
        "import os, carcassonne as c; "
        "print(c._native._LIBRARY_DIR); print(c._native._BUILD_PROFILE); "
        "print(os.environ['CARCASSONNE_LIBRARY_PATH'])"
    )
    named, profile, folders = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    expected = [] if named == "None" else [named]
    tree = c.SOURCE_TREE
    assert tree is not None
    profiles = ["debug", "release"] if profile == "debug" else ["release", "debug"]
    expected += [os.path.join(tree, "target", p) for p in profiles]
    assert folders == os.pathsep.join(expected)
