"""Pieces shared by the PettingZoo and the Gymnasium environments: rewards, seeds, text."""

from __future__ import annotations

from collections.abc import Sequence

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
