"""Issue 33: every bad input reaches Python as the right exception, never a
``PanicException`` (a ``BaseException`` that ``except Exception`` misses) or an
``OverflowError``: ``CarcassonneError`` for what the engine refuses, ``ValueError`` /
``TypeError`` for bad arguments (``IllegalAction`` is a ``ValueError``)."""

import numpy as np
import pytest

import carcassonne as c
from carcassonne.env import env as aec_env
from carcassonne.env import raw_env
import carcassonne.gym as cgym


@pytest.mark.parametrize(
    "make",
    [
        lambda: c.Game(seed=-1),
        lambda: c.Game(players=-2),
        lambda: c.Game(seed=0).observation(-1),
        lambda: c.Game(seed=0).events(since=-1),
        lambda: c.Game(seed=0).bot_action("random", seed=-5),
        lambda: c.Game(seed=0).determinize(-1),
        lambda: c.game_seed(-1, 0),
        lambda: c.BatchGames(-1),
        lambda: c.BatchGames(2, threads=-1),
        lambda: c.BatchGames(2, seed=-3),
        lambda: c.BatchGames(2).game(-1),
        lambda: c.BatchGames(2).bot_actions("random", seed=-1),
        lambda: c.play_games(["random", "random"], -1),
        lambda: c.play_games(["random", "random"], 1, start=-1),
        lambda: c.simulate(["random"], games=1, seed=-1),
    ],
)
def test_negative_ints_are_value_errors(make):
    with pytest.raises(ValueError) as e:
        make()
    assert not isinstance(e.value, OverflowError)


def test_a_huge_action_id_is_illegal_not_an_overflow():
    g = c.Game(seed=0)
    for bad in (-1, 2**63, -(2**70), 2**100):
        with pytest.raises(c.IllegalAction):
            g.apply(bad)


@pytest.mark.parametrize("bad", [3.5, "5", 2.0, True, None, [1]])
def test_non_integer_actions_are_type_errors_everywhere(bad):
    g = c.Game(seed=0)
    with pytest.raises(TypeError):
        g.apply(bad)
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(TypeError):
        e.step(bad)
    ge = cgym.CarcassonneEnv(opponents="random")
    ge.reset(seed=0)
    with pytest.raises(TypeError):
        ge.step(bad)


def test_numpy_integers_are_accepted_as_actions():
    e = raw_env()
    e.reset(seed=0)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    e.step(np.int32(legal[0]))
    ge = cgym.CarcassonneEnv(opponents="random")
    ge.reset(seed=0)
    ge.step(np.int64(np.flatnonzero(ge.action_masks())[0]))
    ge.step(np.array(np.flatnonzero(ge.action_masks())[0]))


def finish_aec(e):
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_stepping_after_the_end_is_illegal_not_a_key_error():
    e = raw_env()
    e.reset(seed=1)
    finish_aec(e)
    assert not e.agents
    with pytest.raises(c.IllegalAction, match="call reset"):
        e.step(0)


def test_the_wrapped_env_warns_after_the_end_as_pettingzoo_does(caplog):
    # PettingZoo's order-enforcing wrapper answers a step after the end with a warning
    # (its classic games do the same); it must not reach the game as a KeyError.
    e = aec_env()
    e.reset(seed=1)
    finish_aec(e)
    e.step(0)
    assert "after all agents are terminated" in caplog.text


def test_gym_stepping_after_the_end_is_illegal():
    env = cgym.CarcassonneEnv(opponents="random")
    env.reset(seed=1)
    over = False
    while not over:
        _, _, over, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(c.IllegalAction):
        env.step(0)


def test_batch_step_takes_int32_arrays_and_lists():
    a = c.BatchGames(3, seed=5, threads=1)
    b = c.BatchGames(3, seed=5, threads=1)
    for k in range(30):
        ids = np.array([int(np.flatnonzero(m)[0]) for m in a.action_masks()])
        ra, da = a.step(ids.astype(np.int32) if k % 2 else ids.tolist())
        rb, db = b.step(ids)
        assert (ra == rb).all() and (da == db).all()
    assert a.game(0).record_json() == b.game(0).record_json()


@pytest.mark.parametrize("bad", [np.zeros(3, dtype=np.float64), ["1", "2", "3"], [1.5, 2, 3]])
def test_batch_step_refuses_non_integers(bad):
    b = c.BatchGames(3, seed=5, threads=1)
    with pytest.raises(TypeError):
        b.step(bad)


def test_batch_step_refuses_wrong_shapes():
    b = c.BatchGames(3, seed=5, threads=1)
    with pytest.raises(ValueError):
        b.step(np.zeros((3, 1), dtype=np.int64))
    with pytest.raises(c.CarcassonneError):
        b.step([0, 0])


@pytest.mark.parametrize("twice", [["count", "count"], ["tactician", "count", "tactician"]])
def test_an_expansion_listed_twice_is_refused(twice):
    with pytest.raises(ValueError, match="listed twice"):
        c.Game(expansions=twice)
    with pytest.raises(ValueError, match="listed twice"):
        c.BatchGames(2, expansions=twice)
    with pytest.raises(ValueError, match="listed twice"):
        raw_env(expansions=twice)


def test_bad_render_scale_is_refused():
    g = c.Game(seed=0)
    for bad in (0.0, -1.0, float("nan"), 1000.0):
        with pytest.raises(c.CarcassonneError):
            g.render_rgb(bad)
