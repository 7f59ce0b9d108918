"""PettingZoo AEC environment ``carcassonne_v0``: every seat is an agent.

::

    from carcassonne.env import env
    e = env(expansions=["count", "tactician"], players=3, render_mode="ansi")
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0 … player_{n-1}`` (seat ``i`` is ``player_i``). The agent to act is
whoever the engine asks for a decision, which is not always the next seat in turn order:
out-of-turn decisions (the Count's rounds, Tactician tokens, the dragon's moves, ransoms,
fan-script prompts) go to the seat that makes them.

Observation: ``{"observation": <the native observation of that seat>, "action_mask":
int8 (ACTION_SIZE,)}``; the mask is exact (1 exactly for the legal actions). Actions are
the fixed action ids of :data:`carcassonne.ACTION_SIZE`.

Rewards (``reward=``, see :data:`carcassonne._envutil.REWARD_MODES`): ``"margin"`` (default,
per-action change of score minus the others' mean, adding up to the final margin),
``"final_margin"``, ``"score"`` or ``"win"``.

``env()`` wraps ``raw_env`` like PettingZoo's classic games: an illegal action ends the game
with ``illegal_reward`` (default -1) for the seat that made it and 0 for the others
(``illegal_reward=None`` leaves the wrapper out: ``raw_env.step`` then raises
``carcassonne.IllegalAction`` and the game is unchanged); actions outside the space are
refused; the call order is enforced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import carcassonne as _c

from . import _envutil

__all__ = ["env", "raw_env", "ENV_NAME"]

ENV_NAME = "carcassonne_v0"


def env(illegal_reward: float | None = -1.0, **kwargs: Any) -> AECEnv:
    """The wrapped environment (see the module's doc); ``kwargs`` go to :class:`raw_env`."""
    e: AECEnv = raw_env(**kwargs)
    if illegal_reward is not None:
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC environment.

    Args:
        expansions: expansion ids, as ``carcassonne.Game`` takes them (official and fan).
        options: rule options (``{"farmScoring": "2nd", "count.countMove": "clockwise"}``).
        players: seats, 1 to ``carcassonne.MAX_PLAYERS`` (8).
        reward: ``"margin"`` | ``"final_margin"`` | ``"score"`` | ``"win"``.
        observation: ``"dict"`` (the native arrays) | ``"compact"`` (the same, the "other"
            table cut to ``COMPACT_OTHER_ROWS`` rows) | ``"array"`` (the compact one as one
            float32 vector) | ``"flat"`` (the full one as one float32 vector); see
            :data:`carcassonne._envutil.OBSERVATION_FORMATS`.
        render_mode: ``None``, ``"ansi"`` (a text frame), ``"human"`` (the text frame
            printed) or ``"rgb_array"`` (the board picture, ``Game.render_rgb``).
        render_scale: scale of the ``rgb_array`` picture.
        plugin_dirs: extra folders where expansions are found.
    """

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        expansions: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        players: int = 2,
        reward: str = "margin",
        observation: str = "dict",
        render_mode: str | None = None,
        render_scale: float = 0.5,
        plugin_dirs: Sequence[str] | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            expansions,
            options,
            players,
            reward,
            observation,
            render_mode,
            render_scale,
            plugin_dirs,
        )
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"not {render_mode!r}"
            )
        self.expansions = list(expansions)
        self.options = dict(options or {})
        self.players = int(players)
        self.reward_mode = _envutil.check_reward_mode(reward)
        self.render_mode = render_mode
        self.render_scale = float(render_scale)
        self.plugin_dirs = list(plugin_dirs) if plugin_dirs is not None else None

        # A first game checks the set-up (bad expansion ids, options, player counts raise
        # here, not at the first reset) and gives the observation's layout.
        self.game = self._new_game(0)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._codec = _envutil.ObservationCodec(self.game, self.players, observation)
        inner = self._codec.space
        #: With ``observation="array"`` or ``"flat"``: ``(key, offset, shape)`` of each native array in the
        #: vector, in order.
        self.observation_layout = self._codec.layout
        mask = gymnasium.spaces.Box(0, 1, shape=(_c.ACTION_SIZE,), dtype=np.int8)
        self._observation_spaces = {
            a: gymnasium.spaces.Dict({"observation": inner, "action_mask": mask})
            for a in self.possible_agents
        }
        self._action_spaces = {
            a: gymnasium.spaces.Discrete(_c.ACTION_SIZE) for a in self.possible_agents
        }
        self._tracker = _envutil.RewardTracker(self.reward_mode, self.players)
        self._np_random, _ = seeding.np_random(None)
        self._last_action: str | None = None
        self.agents: list[str] = []

    # -- spaces -----------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._action_spaces[agent]

    # -- the game ---------------------------------------------------------------------

    def _new_game(self, seed: int) -> Any:
        return _c.Game(
            expansions=self.expansions,
            options=self.options,
            players=self.players,
            seed=seed,
            plugin_dirs=self.plugin_dirs,
        )

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game. ``reset(seed=s)`` plays the engine's game with seed ``s`` (the same
        game as ``carcassonne.Game(seed=s)``); a reset without a seed takes the next seed
        from a generator seeded by the last seeded reset, so a run of resets after
        ``reset(seed=s)`` is reproducible."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._np_random.integers(0, 2**63 - 1))
        self.game = self._new_game(game_seed)
        self.game_seed = game_seed
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._tracker.reset(self.game.scores())
        self._last_action = None
        self._skip_agent_selection = None
        self.agent_selection = self._agent_to_act()
        if self.render_mode == "human":
            self.render()

    def _agent_to_act(self) -> str:
        seat = self.game.current_player
        return self.possible_agents[seat if seat is not None else 0]

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.agent_name_mapping[agent]
        obs = self._codec.observe(self.game, seat)
        if not self.game.is_over and self.game.current_player == seat:
            mask = self.game.action_mask().astype(np.int8)
        else:
            mask = np.zeros(_c.ACTION_SIZE, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self.agents:
            raise _c.IllegalAction("step() after the game ended: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action_id = _envutil.action_id(action)
        # Raises carcassonne.IllegalAction (the game unchanged) for an action not legal now.
        self._last_action = f"{agent}: {self.game.describe(action_id)}"
        self.game.apply(action_id)
        self._cumulative_rewards[agent] = 0.0
        over = self.game.is_over
        for a, r in zip(self.possible_agents, self._tracker.step(self.game.scores(), over)):
            self.rewards[a] = r
        if over:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- rendering --------------------------------------------------------------------

    def render(self) -> None | np.ndarray | str:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode: "
                "pass render_mode='ansi', 'human' or 'rgb_array' to env()"
            )
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.render_scale)
        text = _envutil.text_frame(self.game, self.possible_agents, self._last_action)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def decode_observation(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """An ``"array"`` or ``"flat"`` observation back into its dict (float32 arrays)."""
        return self._codec.decode(flat)

    def close(self) -> None:
        pass
