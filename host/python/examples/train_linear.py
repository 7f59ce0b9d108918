"""A policy that measurably learns in CPU minutes, with numpy only (issue 33).

    python host/python/examples/train_linear.py [--train-games 6000] [--eval-games 400]

The agent plays seat 0 of a 2-player base game against the random bot. Its policy is a
softmax over the legal actions of a linear score ``w · φ(s, a)``, where ``φ`` are a few
features of each action read from a one-step look-ahead on a clone (own and opponent points
the action scores, counting the end of the turn for a placement), the kind of action, the
placement's occupied neighbours and the followers left. REINFORCE with a running baseline
learns ``w`` from the final margin of each game.

With ``w = 0`` the policy is uniformly random, so the untrained agent is random play. Both
the untrained and the trained policy are then evaluated on the same fixed game seeds against
the random bot, and the script prints each one's win rate and mean margin with 95%
intervals, and the paired difference of the margins (same seeds). The trained policy is
evaluated twice: sampling from its softmax and taking its best action. Exit code 0 when the
greedy trained policy's win-rate interval lies wholly above the untrained one's.

Most of the playing strength comes from the features (a one-step look-ahead is what the
built-in ``greedy`` bot uses too); what is learnt is how to weigh them: with every weight
at 0 the same features give random play.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import carcassonne as c

PLACE0, PLACE_N = c.LAYOUT["place"]
PASS = c.LAYOUT["pass"][0]
DEPLOY0, DEPLOY_N = c.LAYOUT["deploy"]
W = c.BOARD_WINDOW
FEATURES = ["own points", "opponent points", "pass", "deploy", "neighbours", "followers left x deploy", "bias"]
AGENT = 0


def features(g: c.Game, ids: np.ndarray) -> np.ndarray:
    """φ(s, a) for every legal id: one row per id."""
    seat = g.current_player
    before = g.scores()
    obs = g.observation(seat, "compact")
    occupied = obs["planes"][0]
    followers = obs["supply"][0, 0] / 7.0
    rows = np.zeros((len(ids), len(FEATURES)), dtype=np.float64)
    for k, a in enumerate(ids.tolist()):
        h = g.clone()
        h.apply(a)
        # A placement scores at the end of the turn: look past a pass of the deployment.
        if PLACE0 <= a < PLACE0 + PLACE_N and not h.is_over and h.current_player == seat:
            if h.action_mask()[PASS]:
                h.apply(PASS)
        after = h.scores()
        own = after[seat] - before[seat]
        opp = sum(after) - after[seat] - (sum(before) - before[seat])
        neighbours = 0
        if PLACE0 <= a < PLACE0 + PLACE_N:
            cell = (a - PLACE0) // 4
            r, col = divmod(cell, W)
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= r + dr < W and 0 <= col + dc < W:
                    neighbours += int(occupied[r + dr, col + dc])
        deploy = 1.0 if DEPLOY0 <= a < DEPLOY0 + DEPLOY_N else 0.0
        rows[k] = [own / 10.0, opp / 10.0, float(a == PASS), deploy, neighbours / 4.0, followers * deploy, 1.0]
    return rows


def play(seed: int, w: np.ndarray, rng: np.random.Generator, greedy: bool, trace: list | None):
    """One game; returns the agent's final margin and whether it won outright."""
    g = c.Game(seed=seed)
    bot_calls = 0
    while not g.is_over:
        if g.current_player != AGENT:
            g.apply(g.bot_action("random", seed=seed * 1000 + bot_calls))
            bot_calls += 1
            continue
        ids = g.legal_ids()
        if len(ids) == 1:
            g.apply(int(ids[0]))
            continue
        phi = features(g, ids)
        logits = phi @ w
        p = np.exp(logits - logits.max())
        p /= p.sum()
        k = int(np.argmax(logits)) if greedy else int(rng.choice(len(ids), p=p))
        if trace is not None:
            trace.append(phi[k] - p @ phi)  # ∇_w log π(a | s)
        g.apply(int(ids[k]))
    s = g.scores()
    return s[AGENT] - s[1 - AGENT], s[AGENT] > s[1 - AGENT]


def evaluate(w, games, seed0, greedy):
    rng = np.random.default_rng(seed0)
    out = [play(seed0 + i, w, rng, greedy, None) for i in range(games)]
    return np.array([m for m, _ in out], dtype=float), np.array([v for _, v in out], dtype=float)


def ci(x):
    """Mean and normal 95% interval."""
    m = float(x.mean())
    h = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def wilson(wins):
    """Win rate and its Wilson 95% interval."""
    n, p, z = len(wins), float(wins.mean()), 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-games", type=int, default=6000)
    ap.add_argument("--eval-games", type=int, default=400)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    t0 = time.process_time()
    rng = np.random.default_rng(a.seed)
    w = np.zeros(len(FEATURES))
    baseline = 0.0
    for i in range(a.train_games):
        trace: list = []
        margin, _ = play(10_000_000 + i, w, rng, False, trace)
        r = margin / 20.0
        baseline += 0.02 * (r - baseline)
        if trace:
            w += a.lr * (r - baseline) * np.sum(trace, axis=0) / math.sqrt(len(trace))
        if (i + 1) % 250 == 0:
            print(f"game {i + 1}: w = {np.round(w, 2).tolist()}, CPU {time.process_time() - t0:.0f} s", flush=True)
    train_cpu = time.process_time() - t0
    print("weights:", {f: round(float(v), 3) for f, v in zip(FEATURES, w)})

    seed0 = 20_000_000
    m0, v0 = evaluate(np.zeros(len(FEATURES)), a.eval_games, seed0, greedy=False)
    ms, vs = evaluate(w, a.eval_games, seed0, greedy=False)
    m1, v1 = evaluate(w, a.eval_games, seed0, greedy=True)
    total_cpu = time.process_time() - t0
    for name, m, v in (
        ("untrained (random play)", m0, v0),
        ("trained, sampled", ms, vs),
        ("trained, greedy", m1, v1),
    ):
        wm, wl, wh = wilson(v)
        mm, ml, mh = ci(m)
        print(f"{name:>24}: win rate {wm:.1%} [{wl:.1%}, {wh:.1%}], mean margin {mm:+.1f} [{ml:+.1f}, {mh:+.1f}]")
    dm, dl, dh = ci(m1 - m0)
    print(f"paired margin gain over the same {a.eval_games} seeds: {dm:+.1f} [{dl:+.1f}, {dh:+.1f}] (95%)")
    print(f"CPU: training {train_cpu:.0f} s, total {total_cpu:.0f} s")
    return 0 if wilson(v1)[1] > wilson(v0)[2] else 1


if __name__ == "__main__":
    raise SystemExit(main())
