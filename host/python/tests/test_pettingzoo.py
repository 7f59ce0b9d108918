"""The PettingZoo AEC environment carcassonne_v0 (issue 21, item 3).

PettingZoo's own API, seed and render tests, with the base game and with a mix of official
expansions and a fan script; then what those tests cannot see: masks equal to the engine's
legal actions, rewards that add up to the final margins, out-of-turn agents, determinism.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import carcassonne  # noqa: E402
from carcassonne import env as cenv  # noqa: E402
from carcassonne._envutil import margins  # noqa: E402

# Official expansions with out-of-turn decisions (the Count's rounds) and both fan scripts
# (Tactician tokens, Promotions prompts).
MIX = ["count", "king-robber", "river2", "tactician", "promotions"]
CONFIGS = [pytest.param([], id="base"), pytest.param(MIX, id="mix+fan")]


def play_random(e, seed: int, rng_seed: int = 0):
    """One whole game with uniformly random legal actions; yields after every step."""
    rng = np.random.default_rng(rng_seed)
    e.reset(seed=seed)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
        yield agent


@pytest.mark.parametrize("expansions", CONFIGS)
def test_pettingzoo_api_test(expansions):
    api_test(cenv.env(expansions=expansions), num_cycles=1000)


@pytest.mark.parametrize("expansions", CONFIGS)
def test_pettingzoo_seed_test(expansions):
    seed_test(lambda: cenv.env(expansions=expansions), num_cycles=200)


@pytest.mark.parametrize("expansions", CONFIGS)
def test_pettingzoo_render_test(expansions):
    def make(render_mode=None):
        return cenv.env(expansions=expansions, render_mode=render_mode, render_scale=0.25)

    render_test(make)


# The only warnings api_test gives any env whose observation is the {"observation",
# "action_mask"} dict PettingZoo asks masked games for (its classic games are exempted by
# name): nothing about NaNs, infinities, empty masks, shapes or dtypes.
DICT_OBS_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("fmt", ["dict", "compact", "array", "flat"])
def test_pettingzoo_api_test_warns_of_nothing_else(fmt):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(cenv.env(expansions=MIX, observation=fmt), num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBS_WARNINGS


def test_flat_observation_decodes_to_the_native_one():
    e = cenv.raw_env(expansions=MIX, observation="flat")
    e.reset(seed=3)
    flat = e.observe(e.agent_selection)["observation"]
    native = e.game.observation(e.game.current_player)
    back = e.decode_observation(flat)
    assert [k for k, _, _ in e.observation_layout] == list(native)
    assert list(back) == list(native)
    for k in native:
        assert np.array_equal(back[k], native[k].astype(np.float32))


@pytest.mark.parametrize("fmt", ["compact", "array"])
def test_compact_and_array_observations_hold_the_dict_minus_the_far_other_rows(fmt):
    """Issue 33: the compact observation is the dict with the "other" table cut to its first
    COMPACT_OTHER_ROWS rows (int16); "array" is that, as one float32 vector."""
    e = cenv.raw_env(expansions=MIX, observation=fmt)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(60):
        seat = e.game.current_player
        obs = e.observe(e.agent_selection)["observation"]
        assert e.observation_space(e.agent_selection)["observation"].contains(obs)
        full = e.game.observation(seat)
        got = e.decode_observation(obs) if fmt == "array" else obs
        if fmt == "array":
            assert obs.dtype == np.float32 and obs.ndim == 1
        assert list(got) == list(full)
        for k in full:
            want = full[k][: carcassonne.COMPACT_OTHER_ROWS] if k == "other" else full[k]
            assert np.array_equal(np.asarray(got[k], dtype=np.int64), want.astype(np.int64)), k
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))


def test_batch_observation_formats_equal_the_single_games():
    b = carcassonne.BatchGames(3, expansions=MIX, seed=2, threads=2)
    for _ in range(25):
        b.step(b.bot_actions("random"))
    cur = b.current_players()
    for fmt in ("dict", "compact", "array", "flat"):
        batch = b.observations(fmt)
        for j in range(3):
            one = b.game(j).observation(int(cur[j]), fmt)
            if isinstance(one, dict):
                for k in one:
                    assert np.array_equal(batch[k][j], one[k]), (fmt, k)
            else:
                assert np.array_equal(batch[j], one), fmt
    with pytest.raises(ValueError):
        b.observations("png")


@pytest.mark.parametrize("players", [1, 8])
def test_api_test_with_one_and_eight_players(players):
    # The documented range: 1 to MAX_PLAYERS seats.
    assert players <= carcassonne.MAX_PLAYERS
    api_test(cenv.env(players=players), num_cycles=200)
    with pytest.raises(carcassonne.CarcassonneError):
        cenv.raw_env(players=carcassonne.MAX_PLAYERS + 1)


def test_api_test_with_four_players():
    api_test(cenv.env(players=4, expansions=["tactician"]), num_cycles=300)


@pytest.mark.parametrize("expansions", CONFIGS)
def test_mask_equals_legal_actions_and_agent_is_the_deciding_seat(expansions):
    e = cenv.raw_env(expansions=expansions, players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(1)
    steps = 0
    while not e.game.is_over:
        agent = e.agent_selection
        seat = e.game.current_player
        assert agent == f"player_{seat}"
        obs = e.observe(agent)
        legal = sorted(a.id for a in e.game.legal_actions())
        assert legal, "a live game always offers an action"
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        assert obs["action_mask"].dtype == np.int8
        assert all(a.player == seat for a in e.game.legal_actions())
        # Other seats see no legal action.
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        assert e.observation_space(agent).contains(obs)
        e.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 60
    assert all(e.terminations.values())


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("expansions", CONFIGS)
def test_margin_rewards_add_up_to_the_final_margin(players, expansions):
    e = cenv.raw_env(expansions=expansions, players=players, reward="margin")
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for _ in play_random(e, seed=21):
        # Zero-sum at every step.
        assert sum(e.rewards.values()) == pytest.approx(0.0, abs=1e-9)
        for a, r in e.rewards.items():
            totals[a] += r
    final = margins(e.game.scores())
    assert max(e.game.scores()) > 0
    for i, a in enumerate(e.possible_agents):
        assert totals[a] == pytest.approx(final[i])


def test_score_rewards_add_up_to_the_final_scores():
    e = cenv.raw_env(expansions=MIX, players=2, reward="score")
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for _ in play_random(e, seed=5):
        for a, r in e.rewards.items():
            totals[a] += r
    assert [totals[a] for a in e.possible_agents] == [float(s) for s in e.game.scores()]


def test_final_rewards_come_only_at_the_end():
    for mode in ("final_margin", "win"):
        e = cenv.raw_env(players=2, reward=mode)
        seen = []
        for _ in play_random(e, seed=8):
            seen.append(dict(e.rewards))
        assert all(v == 0 for r in seen[:-1] for v in r.values())
        scores = e.game.scores()
        last = seen[-1]
        if mode == "final_margin":
            assert [last[a] for a in e.possible_agents] == margins(scores)
        else:
            if scores[0] == scores[1]:
                assert last == {"player_0": 0.0, "player_1": 0.0}
            else:
                w = int(scores[1] > scores[0])
                assert last[f"player_{w}"] == 1.0 and last[f"player_{1 - w}"] == -1.0


def test_last_returns_the_accumulated_reward_of_out_of_turn_scoring():
    # A seat can score on another seat's action (a shared city completed by the other):
    # the points reach it through _cumulative_rewards by its next last().
    e = cenv.raw_env(players=2, reward="score")
    e.reset(seed=3)
    pending = dict.fromkeys(e.possible_agents, 0.0)
    rng = np.random.default_rng(3)
    while not e.game.is_over:
        agent = e.agent_selection
        _, reward, _, _, _ = e.last()
        assert reward == pending[agent]
        pending[agent] = 0.0
        legal = np.flatnonzero(e.observe(agent)["action_mask"])
        e.step(int(rng.choice(legal)))
        for a, r in e.rewards.items():
            pending[a] += r


def test_same_seed_same_game_different_seed_different_game():
    def trajectory(seed):
        e = cenv.raw_env(expansions=["count", "tactician"], players=2)
        frames = []
        for agent in play_random(e, seed=seed, rng_seed=seed):
            frames.append((agent, tuple(e.game.scores())))
        return frames, e.game.record_json()

    a, rec_a = trajectory(13)
    b, rec_b = trajectory(13)
    c, rec_c = trajectory(14)
    assert a == b and rec_a == rec_b
    assert rec_a != rec_c


def test_reset_seed_is_the_engine_seed_and_unseeded_resets_are_reproducible():
    e = cenv.raw_env()
    e.reset(seed=77)
    g = carcassonne.Game(seed=77)
    assert e.game.observation(0)["tile"].tolist() == g.observation(0)["tile"].tolist()
    assert e.game.legal_actions()[0].description == g.legal_actions()[0].description
    e.reset(seed=5)
    seeds_a = []
    for _ in range(3):
        e.reset()
        seeds_a.append(e.game_seed)
    e.reset(seed=5)
    seeds_b = []
    for _ in range(3):
        e.reset()
        seeds_b.append(e.game_seed)
    assert seeds_a == seeds_b and len(set(seeds_a)) == 3


def test_illegal_action_wrapped_ends_the_game_raw_raises():
    wrapped = cenv.env()
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    obs, *_ = wrapped.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert all(wrapped.terminations.values()) or all(wrapped.truncations.values())
    assert wrapped.rewards[agent] == -1.0

    raw = cenv.raw_env()
    raw.reset(seed=1)
    before = raw.game.record_json()
    with pytest.raises(carcassonne.IllegalAction):
        raw.step(illegal)
    assert raw.game.record_json() == before
    assert not any(raw.terminations.values())


def test_ansi_and_rgb_frames_show_the_game():
    e = cenv.raw_env(render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert "turn" in text and "player_0" in text and "legal actions" in text
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert "last action: player_0" in e.render()
    img = cenv.raw_env(render_mode="rgb_array", render_scale=0.25)
    img.reset(seed=2)
    frame = img.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.std() > 0


def test_bad_setup_raises_at_construction():
    with pytest.raises(carcassonne.CarcassonneError):
        cenv.raw_env(expansions=["no-such-expansion"])
    with pytest.raises(ValueError):
        cenv.raw_env(reward="points")
    with pytest.raises(ValueError):
        cenv.raw_env(render_mode="window")


def test_pickles_for_worker_processes():
    e = cenv.raw_env(expansions=["tactician"], players=3, reward="win")
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.expansions == ["tactician"] and e2.players == 3 and e2.reward_mode == "win"
    e2.reset(seed=1)
    assert e2.agent_selection == "player_0"
