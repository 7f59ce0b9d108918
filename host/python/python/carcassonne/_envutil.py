"""Pieces shared by the PettingZoo and the Gymnasium environments: rewards, seeds, text."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Reward schemes of both environments (the ``reward=`` argument).
#:
#: - ``"margin"`` (default): after every action each seat gets the change of its margin,
#:   its score minus the mean of the other seats' scores. Over a game the rewards add up
#:   to the final margin; at every step the seats' rewards add up to 0.
#: - ``"final_margin"``: 0 until the game ends, then the final margin.
#: - ``"score"``: after every action each seat gets the change of its own score; over a
#:   game they add up to its final score.
#: - ``"win"``: 0 until the game ends, then +1 for an outright first place, 0 for a shared
#:   first place and -1 for every other seat.
REWARD_MODES = ("margin", "final_margin", "score", "win")

_MASK64 = (1 << 64) - 1


def action_id(action: object) -> int:
    """An action as an int id: a Python or numpy integer (or a 0-d integer array). A float,
    a string or a bool is a ``TypeError``, never silently truncated or parsed."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action id is an integer, not {type(action).__name__} {action!r}")
    return int(action)


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
    return mode


def margins(scores: Sequence[int]) -> list[float]:
    """Each seat's score minus the mean of the other seats' scores."""
    n = len(scores)
    if n < 2:
        return [0.0 for _ in scores]
    total = sum(scores)
    return [(n * s - total) / (n - 1) for s in scores]


def outcome(scores: Sequence[int]) -> list[float]:
    """+1 for an outright first place, 0 for a shared first place, -1 otherwise."""
    top = max(scores)
    firsts = sum(1 for s in scores if s == top)
    return [(1.0 if firsts == 1 else 0.0) if s == top else -1.0 for s in scores]


class RewardTracker:
    """Turns the scores after each action into per-seat rewards for one scheme."""

    def __init__(self, mode: str, players: int) -> None:
        self.mode = check_reward_mode(mode)
        self.players = players
        self._last: list[int] = [0] * players

    def reset(self, scores: Sequence[int]) -> None:
        self._last = list(scores)

    def step(self, scores: Sequence[int], over: bool) -> list[float]:
        """Rewards of every seat for the actions since the last call."""
        prev, now = self._last, list(scores)
        self._last = now
        if self.mode == "margin":
            # Exact: the change of (n·s_i − Σs)/(n − 1), computed from integer deltas.
            n = self.players
            if n < 2:
                return [0.0] * n
            dt = sum(now) - sum(prev)
            return [(n * (a - b) - dt) / (n - 1) for a, b in zip(now, prev)]
        if self.mode == "score":
            return [float(a - b) for a, b in zip(now, prev)]
        if not over:
            return [0.0] * self.players
        if self.mode == "final_margin":
            return margins(now)
        return outcome(now)


def derive_seed(seed: int, k: int) -> int:
    """A 64-bit seed for the ``k``-th use of ``seed`` (SplitMix64 finaliser of seed + k)."""
    z = (seed + 0x9E3779B97F4A7C15 * (k + 1)) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) & ((1 << 63) - 1)


def text_frame(game, agent_names: Sequence[str], last: str | None = None) -> str:
    """A plain-text picture of the game for ``render_mode="ansi"``: turn, scores, whose
    decision it is, the last action and the legal actions offered now."""
    scores = game.scores()
    lines = [f"Carcassonne, turn {game.turn}"]
    lines.append(
        "scores: " + ", ".join(f"{name} {s}" for name, s in zip(agent_names, scores))
    )
    if last is not None:
        lines.append(f"last action: {last}")
    if game.is_over:
        lines.append("game over")
    else:
        seat = game.current_player
        actions = game.legal_actions()
        lines.append(f"to decide: {agent_names[seat]} ({len(actions)} legal actions)")
        for a in actions[:8]:
            lines.append(f"  {a.id:>6}  {a.description}")
        if len(actions) > 8:
            lines.append(f"  … and {len(actions) - 8} more")
    return "\n".join(lines) + "\n"


# Known bounds of the native observation's arrays (`_native.pyi`, `Game.observation`); an
# array not named here is bounded by its dtype (0 below for unsigned and count arrays).
def _bounds(key: str, dtype: np.dtype, max_players: int) -> tuple[int, int]:
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    lo = int(info.min) if info is not None else -np.inf
    hi = int(info.max) if info is not None else np.inf
    if key in ("tile", "decision"):
        return 0, 1
    if key == "current":
        return -1, max_players - 1
    if key in ("remaining", "supply", "planes"):
        return 0, hi
    return lo, hi


def observation_space(game, players: int, fmt: str = "dict"):
    """The Dict space of ``game.observation(seat, fmt)`` (``"dict"`` or ``"compact"``): one
    Box per key, with its shape and dtype, bounded by what the key can hold."""
    import gymnasium

    import carcassonne as _c

    max_players = int(getattr(_c, "MAX_PLAYERS", players))
    sample = game.observation(0, fmt)
    spaces = {}
    for key, value in sample.items():
        arr = np.asarray(value)
        lo, hi = _bounds(key, arr.dtype, max_players)
        spaces[key] = gymnasium.spaces.Box(lo, hi, shape=arr.shape, dtype=arr.dtype)
    return gymnasium.spaces.Dict(spaces)


#: Observation formats of both environments (the ``observation=`` argument), each built in
#: Rust (``Game.observation(seat, format)``):
#:
#: - ``"dict"``: the native observation, a dict of arrays (about 276 KB);
#: - ``"compact"``: the same dict with the "other" table cut to its first
#:   ``COMPACT_OTHER_ROWS`` rows as int16 (about 130 KB); slots past them keep their ids and
#:   mask bits but are not described;
#: - ``"array"``: the compact observation as one float32 vector, for generic learners that
#:   take one array (as PettingZoo's chess and go give);
#: - ``"flat"``: the full observation as one float32 vector.
#:
#: The vectors are the dict's arrays raveled and concatenated in the native key order
#: (``layout`` says where each one is).
OBSERVATION_FORMATS = ("dict", "compact", "array", "flat")
_DICT_OF = {"dict": "dict", "compact": "compact", "array": "compact", "flat": "dict"}


class ObservationCodec:
    """The observation space of one format and the observation of a seat in it."""

    def __init__(self, game, players: int, fmt: str) -> None:
        import gymnasium

        if fmt not in OBSERVATION_FORMATS:
            raise ValueError(
                f"observation must be one of {', '.join(OBSERVATION_FORMATS)}, not {fmt!r}"
            )
        self.format = fmt
        self.dict_space = observation_space(game, players, _DICT_OF[fmt])
        # The native order (planes, tile, remaining, …), not the Dict space's sorted one.
        self.keys = list(game.observation(0, _DICT_OF[fmt]).keys())
        self.layout: list[tuple[str, int, tuple[int, ...]]] = []
        offset = 0
        for k in self.keys:
            shape = self.dict_space[k].shape
            self.layout.append((k, offset, shape))
            offset += int(np.prod(shape))
        if fmt in ("dict", "compact"):
            self.space = self.dict_space
        else:
            low = np.concatenate(
                [self.dict_space[k].low.ravel().astype(np.float32) for k in self.keys]
            )
            high = np.concatenate(
                [self.dict_space[k].high.ravel().astype(np.float32) for k in self.keys]
            )
            self.space = gymnasium.spaces.Box(low, high, dtype=np.float32)

    def observe(self, game, seat: int):
        """``seat``'s observation of ``game`` in this format."""
        return game.observation(seat, self.format)

    def decode(self, flat: np.ndarray) -> dict:
        """A vector observation back into the dict (float32 arrays)."""
        return {k: flat[o : o + int(np.prod(sh))].reshape(sh) for k, o, sh in self.layout}
