"""Gymnasium single-agent environment: the agent plays one seat against built-in bots.

::

    import gymnasium, carcassonne.gym   # importing registers the id
    env = gymnasium.make("carcassonne/Carcassonne-v0", opponents="greedy")
    obs, info = env.reset(seed=1)
    mask = env.unwrapped.action_masks()            # what sb3-contrib's MaskablePPO asks for
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))

``gymnasium.make("carcassonne.gym:carcassonne/Carcassonne-v0")`` imports the module itself.

Every decision that is not the agent's (the opponents' turns and their out-of-turn
decisions) is made by the engine's bots (``Game.bot_action``: ``random``, ``greedy``,
``mcts[:N]``) before ``reset``/``step`` return, so the agent is always the seat to act
when it gets an observation (or the game is over). The reward of a step covers the
agent's action and every opponent decision after it (schemes as in the PettingZoo env:
``"margin"``, ``"final_margin"``, ``"score"``, ``"win"``).

``info`` carries ``"action_mask"`` (the same as ``action_masks()``), the seat, the scores,
the turn, the game seed and ``"ended_by_window"``.

Illegal actions (``illegal_action=``): ``"penalize"`` (default) leaves the game unchanged
and returns ``illegal_reward`` (default -1) with ``info["illegal_action"] = True``, so
an unmasked learner, or ``gymnasium.utils.env_checker.check_env``, can step with any id;
``"raise"`` raises ``carcassonne.IllegalAction``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

import carcassonne as _c

from . import _envutil

__all__ = ["CarcassonneEnv", "ENV_ID"]

ENV_ID = "carcassonne/Carcassonne-v0"


class CarcassonneEnv(gymnasium.Env):
    """One seat of a Carcassonne game against built-in bots.

    Args:
        expansions, options, players, plugin_dirs: as for ``carcassonne.Game``.
        opponents: a bot spec for every other seat (``"greedy"``), or a list with one spec
            per other seat in seat order.
        seat: the agent's seat, or ``"random"`` for a seat drawn at every reset.
        reward: ``"margin"`` | ``"final_margin"`` | ``"score"`` | ``"win"``.
        observation: ``"dict"`` | ``"compact"`` | ``"array"`` | ``"flat"``, seen from the
            agent's seat (:data:`carcassonne._envutil.OBSERVATION_FORMATS`).
        illegal_action: ``"penalize"`` | ``"raise"``; ``illegal_reward`` with ``"penalize"``.
        render_mode: ``None`` | ``"ansi"`` | ``"human"`` (text printed) | ``"rgb_array"``.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        expansions: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        players: int = 2,
        opponents: str | Sequence[str] = "greedy",
        seat: int | str = 0,
        reward: str = "margin",
        observation: str = "dict",
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        render_scale: float = 0.5,
        plugin_dirs: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"not {render_mode!r}"
            )
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(
                f"illegal_action must be 'penalize' or 'raise', not {illegal_action!r}"
            )
        self.expansions = list(expansions)
        self.options = dict(options or {})
        self.players = int(players)
        self.plugin_dirs = list(plugin_dirs) if plugin_dirs is not None else None
        if isinstance(opponents, str):
            self.opponents = [opponents] * (self.players - 1)
        else:
            self.opponents = list(opponents)
        if len(self.opponents) != self.players - 1:
            raise ValueError(
                f"{len(self.opponents)} opponent bots for {self.players - 1} other seats"
            )
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"seat must be 0 to {self.players - 1} or 'random', not {seat!r}")
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.reward_mode = _envutil.check_reward_mode(reward)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.render_scale = float(render_scale)

        self.game = self._new_game(0)
        # Check the bot specs now rather than at the first opponent decision: a run of zero
        # games parses them (CarcassonneError for an unknown spec) without searching.
        for bot in sorted(set(self.opponents)):
            _c.play_games([bot, bot], 0)
        self._codec = _envutil.ObservationCodec(self.game, self.players, observation)
        self.observation_space = self._codec.space
        #: With ``observation="array"`` or ``"flat"``: ``(key, offset, shape)`` of each native array in the
        #: vector, in order.
        self.observation_layout = self._codec.layout
        self.action_space = gymnasium.spaces.Discrete(_c.ACTION_SIZE)
        self._tracker = _envutil.RewardTracker(self.reward_mode, self.players)
        self.game_seed = 0
        self._bot_calls = 0
        self._last_action: str | None = None

    def _new_game(self, seed: int) -> Any:
        return _c.Game(
            expansions=self.expansions,
            options=self.options,
            players=self.players,
            seed=seed,
            plugin_dirs=self.plugin_dirs,
        )

    def _bot_for(self, seat: int) -> str:
        # Opponents in seat order, skipping the agent's seat.
        return self.opponents[seat if seat < self.seat else seat - 1]

    def _play_opponents(self) -> None:
        g = self.game
        while not g.is_over and g.current_player != self.seat:
            seat = g.current_player
            action = g.bot_action(
                self._bot_for(seat), seed=_envutil.derive_seed(self.game_seed, self._bot_calls)
            )
            self._bot_calls += 1
            self._last_action = f"player_{seat} ({self._bot_for(seat)}): {g.describe(action)}"
            g.apply(action)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info = {
            "seat": self.seat,
            "scores": list(self.game.scores()),
            "turn": self.game.turn,
            "game_seed": self.game_seed,
            "action_mask": self.action_masks(),
            "ended_by_window": self.game.ended_by_window,
        }
        info.update(extra)
        return info

    def _obs(self) -> Any:
        return self._codec.observe(self.game, self.seat)

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game. ``reset(seed=s)`` plays the engine's game with seed ``s``; without a
        seed, the next game seed comes from the env's generator (``self.np_random``)."""
        super().reset(seed=seed)
        if seed is not None:
            game_seed = int(seed)
        else:
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if self.seat_choice == "random":
            self.seat = int(self.np_random.integers(0, self.players))
        self.game_seed = game_seed
        self.game = self._new_game(game_seed)
        self._bot_calls = 0
        self._last_action = None
        self._tracker.reset(self.game.scores())
        self._play_opponents()
        # Rewards count from the agent's first decision: points the opponents scored before
        # it (they cannot score before a tile is placed) are part of the first step.
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(
        self, action: Any
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.game.is_over:
            raise _c.IllegalAction("step() after the game ended: call reset()")
        action_id = _envutil.action_id(action)
        legal = 0 <= action_id < _c.ACTION_SIZE and bool(self.game.action_mask()[action_id])
        if not legal:
            if self.illegal_action == "raise":
                self.game.apply(action_id)  # raises carcassonne.IllegalAction
            return self._obs(), self.illegal_reward, False, False, self._info(illegal_action=True)
        self._last_action = f"player_{self.seat} (agent): {self.game.describe(action_id)}"
        self.game.apply(action_id)
        self._play_opponents()
        over = self.game.is_over
        reward = self._tracker.step(self.game.scores(), over)[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), over, False, self._info(illegal_action=False)

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as sb3-contrib's ``MaskablePPO`` expects: bool, shape
        ``(ACTION_SIZE,)`` (also ``info["action_mask"]``).

        Once the game is over every entry is True: the next call is a ``reset()`` (or, under
        a vector env's ``NEXT_STEP`` autoreset, a reset step whose action is ignored), and a
        masked sampler needs at least one allowed action; an all-False mask made them fail or
        divide by zero."""
        if self.game.is_over:
            return np.ones(_c.ACTION_SIZE, dtype=bool)
        return self.game.action_mask()

    def render(self) -> None | np.ndarray | str:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.render_scale)
        names = [
            f"player_{i}" + (" (agent)" if i == self.seat else f" ({self._bot_for(i)})")
            for i in range(self.players)
        ]
        text = _envutil.text_frame(self.game, names, self._last_action)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def decode_observation(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """An ``"array"`` or ``"flat"`` observation back into its dict (float32 arrays)."""
        return self._codec.decode(flat)

    def close(self) -> None:
        pass


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="carcassonne.gym:CarcassonneEnv")
