"""Issue 33: the numpy example learns: after a short training run its greedy policy beats
random play on fixed seeds, with the win-rate intervals apart."""

import importlib.util
import pathlib

import numpy as np

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_linear.py"


def load_example():
    spec = importlib.util.spec_from_file_location("train_linear", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_linear_policy_learns_to_beat_random_play():
    t = load_example()
    rng = np.random.default_rng(0)
    w = np.zeros(len(t.FEATURES))
    baseline = 0.0
    for i in range(400):
        trace = []
        margin, _ = t.play(10_000_000 + i, w, rng, False, trace)
        r = margin / 20.0
        baseline += 0.02 * (r - baseline)
        w += 0.05 * (r - baseline) * np.sum(trace, axis=0) / np.sqrt(len(trace))
    # It learnt to value its own points over the opponent's.
    f = dict(zip(t.FEATURES, w))
    assert f["own points"] > 0 > f["opponent points"]
    _, random_wins = t.evaluate(np.zeros(len(w)), 120, 20_000_000, greedy=False)
    _, trained_wins = t.evaluate(w, 120, 20_000_000, greedy=True)
    assert t.wilson(trained_wins)[1] > t.wilson(random_wins)[2]
