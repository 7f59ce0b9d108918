"""Train a MaskablePPO agent (sb3-contrib) for a few thousand steps against the random bot,
then compare it with random play over a few evaluation games.

    pip install sb3-contrib            # brings stable-baselines3 and torch
    python host/python/examples/train_maskable_ppo.py --steps 4096

A few thousand steps are a smoke run, not a strong agent: it shows the wiring (Dict
observation with MultiInputPolicy, ``action_masks()`` for the masked policy) and prints
the mean final margin of the trained policy and of uniformly random legal play.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sb3_contrib import MaskablePPO

import carcassonne.gym as cgym


def evaluate(env: cgym.CarcassonneEnv, policy, games: int, seed: int) -> float:
    """Mean final margin of the agent's seat over ``games`` games."""
    rng = np.random.default_rng(seed)
    margins = []
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            if policy is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action, _ = policy.predict(obs, action_masks=mask, deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
            total += reward
        margins.append(total)
    return float(np.mean(margins))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4096)
    ap.add_argument("--opponent", default="random", help="random | greedy | mcts:N")
    ap.add_argument("--expansions", default="", help="comma-separated expansion ids")
    ap.add_argument("--eval-games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    expansions = [e for e in args.expansions.split(",") if e]
    # reward="margin": the change of (own score - opponent's) after each of the agent's
    # decisions and the bot's replies; an episode's rewards add up to the final margin.
    env = cgym.CarcassonneEnv(expansions=expansions, opponents=args.opponent, reward="margin")
    # The planes are small counts, not 0-255 pixels: keep the CNN from dividing them by 255.
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=4,
        policy_kwargs={"normalize_images": False},
        seed=args.seed,
        verbose=1,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"trained {args.steps} steps in {time.perf_counter() - t0:.1f} s")

    eval_env = cgym.CarcassonneEnv(expansions=expansions, opponents=args.opponent)
    trained = evaluate(eval_env, model, args.eval_games, seed=10_000)
    rand = evaluate(eval_env, None, args.eval_games, seed=10_000)
    print(f"mean final margin over {args.eval_games} games vs {args.opponent}: "
          f"trained {trained:+.1f}, random play {rand:+.1f}")


if __name__ == "__main__":
    main()
