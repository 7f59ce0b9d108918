"""PettingZoo AEC loop speed (issue 33): steps per second of the documented loop (``last()``
then ``step()`` with a random legal action) and the time of ``env.last()`` alone, for each
observation format.

    python host/python/bench/aec_loop.py [--steps 3000] [--formats dict,compact,array,flat]
        [--expansions a,b] [--wrapped]

CPU time (time.process_time), one thread, so other processes on a busy machine count less.
"""

import argparse
import time

import numpy as np

import carcassonne as c
from carcassonne.env import env as wrapped_env
from carcassonne.env import raw_env


def loop(fmt, steps, expansions, wrapped):
    make = wrapped_env if wrapped else raw_env
    e = make(expansions=expansions, observation=fmt)
    rng = np.random.default_rng(0)
    e.reset(seed=0)
    done, t_last, games = 0, 0.0, 0
    t0 = time.process_time()
    while done < steps:
        for agent in e.agent_iter():
            a0 = time.process_time()
            obs, _, term, trunc, _ = e.last()
            t_last += time.process_time() - a0
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            e.step(action)
            done += 1
        games += 1
        e.reset(seed=games)
    total = time.process_time() - t0
    return done / total, 1e6 * t_last / done, observation_bytes(e.unwrapped)


def gym_loop(fmt, steps, expansions, opponent):
    """Agent steps per CPU second of the Gymnasium env against ``opponent``."""
    import carcassonne.gym as cgym

    env = cgym.CarcassonneEnv(expansions=expansions, opponents=opponent, observation=fmt)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done, games = 0, 0
    t0 = time.process_time()
    while done < steps:
        legal = np.flatnonzero(env.action_masks())
        _, _, over, _, _ = env.step(int(legal[rng.integers(len(legal))]))
        done += 1
        if over:
            games += 1
            env.reset(seed=games)
    return done / (time.process_time() - t0)


def observation_bytes(e):
    obs = e.observe(e.possible_agents[0])["observation"]
    if isinstance(obs, dict):
        return sum(np.asarray(v).nbytes for v in obs.values())
    return obs.nbytes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--formats", default="dict,compact,array,flat")
    ap.add_argument("--expansions", default="")
    ap.add_argument("--wrapped", action="store_true", help="env() (PettingZoo's wrappers) instead of raw_env()")
    ap.add_argument("--gym", default="", help="also the Gymnasium env against these bots (random,greedy)")
    a = ap.parse_args()
    ex = [x for x in a.expansions.split(",") if x]
    kind = "env() (wrapped)" if a.wrapped else "raw_env()"
    print(f"module {c._native._BUILD_PROFILE}, {kind}, expansions {ex or 'base'}")
    for fmt in a.formats.split(","):
        rate, last_us, size = loop(fmt, a.steps, ex, a.wrapped)
        print(f"{fmt:>8}: {rate:,.0f} steps/s (CPU), last() {last_us:.1f} µs, observation {size:,} bytes")
        for bot in [b for b in a.gym.split(",") if b]:
            print(f"{'':>8}  Gymnasium vs {bot}: {gym_loop(fmt, a.steps, ex, bot):,.0f} agent steps/s (CPU)")


if __name__ == "__main__":
    main()
