"""The Gymnasium single-agent environment against built-in bots (issue 21, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import carcassonne  # noqa: E402
import carcassonne.gym as cgym  # noqa: E402
from carcassonne._envutil import margins  # noqa: E402

MIX = ["count", "king-robber", "river2", "tactician", "promotions"]


def play(env, seed, rng_seed=0):
    """A whole episode with random legal actions; returns (total reward, steps, last info)."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.shape == (carcassonne.ACTION_SIZE,)
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps, info


def test_registered_and_passes_check_env():
    env = gymnasium.make(cgym.ENV_ID)
    check_env(env.unwrapped)
    # Through the spec as well, which also checks every declared render mode.
    check_env(gymnasium.make(cgym.ENV_ID, opponents="random"))


def test_check_env_with_an_expansion_mix_and_a_fan_script():
    check_env(cgym.CarcassonneEnv(expansions=MIX, players=3, opponents=["random", "greedy"]))


def test_check_env_with_flat_observations():
    env = cgym.CarcassonneEnv(observation="flat", opponents="random")
    check_env(env)
    obs, _ = env.reset(seed=1)
    assert obs.dtype == np.float32 and obs.ndim == 1
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("fmt", ["compact", "array"])
def test_check_env_with_compact_and_array_observations(fmt):
    check_env(cgym.CarcassonneEnv(expansions=MIX, opponents="random", observation=fmt))


def test_module_prefixed_id_imports_the_module():
    env = gymnasium.make("carcassonne.gym:carcassonne/Carcassonne-v0", opponents="random")
    assert isinstance(env.unwrapped, cgym.CarcassonneEnv)


@pytest.mark.parametrize("seat", [0, 1])
def test_agent_always_decides_and_mask_equals_legal_actions(seat):
    env = cgym.CarcassonneEnv(expansions=MIX, opponents="random", seat=seat)
    env.reset(seed=6)
    rng = np.random.default_rng(0)
    while not env.game.is_over:
        assert env.game.current_player == seat
        legal = sorted(a.id for a in env.game.legal_actions())
        assert np.flatnonzero(env.action_masks()).tolist() == legal
        env.step(int(rng.choice(legal)))
    # After the end every id is allowed: the next step is a reset (issue 33, NEXT_STEP).
    assert env.action_masks().all()


@pytest.mark.parametrize("opponents", ["random", "greedy", "mcts:20"])
def test_margin_rewards_add_up_to_the_final_margin(opponents):
    env = cgym.CarcassonneEnv(opponents=opponents, seat=1)
    total, steps, info = play(env, seed=3)
    assert steps > 20
    assert info["scores"] == env.game.scores()
    assert total == pytest.approx(margins(env.game.scores())[1])


def test_score_and_win_rewards():
    env = cgym.CarcassonneEnv(players=3, opponents=["greedy", "random"], reward="score")
    total, _, _ = play(env, seed=9)
    assert total == env.game.scores()[0]
    env = cgym.CarcassonneEnv(opponents="greedy", reward="win")
    total, _, _ = play(env, seed=9)
    s = env.game.scores()
    assert total == (1.0 if s[0] > s[1] else -1.0 if s[0] < s[1] else 0.0)


def test_greedy_opponent_beats_random_agent():
    # The opponents are the real bots: over a few games greedy outscores random play.
    env = cgym.CarcassonneEnv(opponents="greedy", reward="final_margin")
    margins_ = [play(env, seed=s, rng_seed=s)[0] for s in range(4)]
    assert np.mean(margins_) < 0


def test_same_seed_same_episode():
    def run(seed):
        env = cgym.CarcassonneEnv(expansions=["count", "tactician"], opponents="greedy")
        total, steps, _ = play(env, seed=seed, rng_seed=1)
        return total, steps, env.game.record_json()

    assert run(4) == run(4)
    assert run(4)[2] != run(5)[2]


def test_illegal_action_penalized_or_raised():
    env = cgym.CarcassonneEnv(opponents="random")
    env.reset(seed=2)
    before = env.game.record_json()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert reward == -1.0 and info["illegal_action"] and not terminated
    assert env.game.record_json() == before
    strict = cgym.CarcassonneEnv(opponents="random", illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(carcassonne.IllegalAction):
        strict.step(illegal)


def test_random_seat_is_drawn_from_the_seed():
    env = cgym.CarcassonneEnv(players=3, seat="random", opponents="random")
    seats = []
    for s in range(12):
        _, info = env.reset(seed=s)
        seats.append(info["seat"])
        assert env.game.current_player == info["seat"]
    assert set(seats) == {0, 1, 2}
    again = [env.reset(seed=s)[1]["seat"] for s in range(12)]
    assert again == seats


def test_bad_arguments():
    with pytest.raises(ValueError):
        cgym.CarcassonneEnv(opponents=["random", "random"])
    with pytest.raises(ValueError):
        cgym.CarcassonneEnv(seat=2)
    with pytest.raises(carcassonne.CarcassonneError):
        cgym.CarcassonneEnv(opponents="no-such-bot")
    with pytest.raises(carcassonne.CarcassonneError):
        cgym.CarcassonneEnv(opponents="mcts:lots")


def test_maskable_ppo_learns_for_a_few_steps():
    sb3 = pytest.importorskip("sb3_contrib")
    env = cgym.CarcassonneEnv(opponents="random")
    model = sb3.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, seed=0, verbose=0)
    model.learn(128)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_the_mask_is_in_info():
    env = cgym.CarcassonneEnv(opponents="random")
    obs, info = env.reset(seed=3)
    assert (info["action_mask"] == env.action_masks()).all()
    assert info["action_mask"].sum() == len(env.game.legal_ids()) > 0
    for _ in range(10):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, term, _, info = env.step(a)
        assert (info["action_mask"] == env.game.action_mask()).all()
        assert not info["ended_by_window"]


def test_next_step_autoreset_masks_are_never_empty():
    """Under NEXT_STEP autoreset the step after the end is a reset whose action is ignored:
    the mask asked for it must allow something (all True), and after the reset it is the
    new game's exact mask."""
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    envs = SyncVectorEnv(
        [lambda: cgym.CarcassonneEnv(opponents="random") for _ in range(2)],
        autoreset_mode=AutoresetMode.NEXT_STEP,
    )
    obs, info = envs.reset(seed=[1, 2])
    rng = np.random.default_rng(0)
    ended, reset_steps = [False, False], 0
    for _ in range(400):
        masks = np.stack(envs.call("action_masks"))
        assert masks.any(axis=1).all(), "a masked sampler needs one allowed action"
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        obs, rew, term, trunc, info = envs.step(actions)
        for j in range(2):
            game = envs.envs[j].unwrapped.game
            if ended[j]:  # this was the reset step: a fresh game, its exact mask
                reset_steps += 1
                assert not game.is_over and game.turn <= 1
                assert (info["action_mask"][j] == game.action_mask()).all()
                assert (envs.call("action_masks")[j] == game.action_mask()).all()
            ended[j] = bool(term[j])
    assert reset_steps >= 2
