"""Records written from Python replay in the CLI with the same scores; records and JCZ saves
replay into Python games that go on."""

import json
import subprocess

import numpy as np
import pytest

import carcassonne as c
from conftest import EVERYTHING, OFFICIAL, random_playout


def cli_scores(cli, path):
    out = subprocess.run([str(cli), "replay", str(path), "--json"], check=True, capture_output=True, text=True)
    return [p["score"] for p in json.loads(out.stdout)["players"]]


@pytest.mark.parametrize("mix", [[], OFFICIAL, EVERYTHING], ids=["base", "official", "everything"])
def test_python_records_replay_in_the_cli(cli, tmp_path, mix):
    for seed in range(2):
        g = c.Game(expansions=mix, players=2 + seed, seed=seed)
        random_playout(g, np.random.default_rng(seed))
        path = tmp_path / f"game-{seed}.json"
        path.write_text(g.record_json())
        assert cli_scores(cli, path) == g.scores()
        rec = json.loads(path.read_text())
        assert rec["result"] == g.scores()


def test_unfinished_record_round_trip(cli, tmp_path):
    g = c.Game(expansions=OFFICIAL, seed=4)
    random_playout(g, np.random.default_rng(4), steps=80)
    text = g.record_json()
    h = c.Game.from_record(text)
    assert h.record_json() == text
    assert (h.action_mask() == g.action_mask()).all()
    assert h.scores() == g.scores() and h.current_player == g.current_player
    # Both go on identically.
    rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
    random_playout(g, rng1)
    random_playout(h, rng2)
    assert g.record_json() == h.record_json()
    path = tmp_path / "r.json"
    path.write_text(h.record_json())
    assert cli_scores(cli, path) == h.scores()


def test_cli_records_load_in_python(cli, tmp_path):
    subprocess.run(
        [str(cli), "simulate", "--games", "2", "--seed", "3", "--record", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for f in sorted(tmp_path.glob("game-*.json")):
        g = c.Game.from_record(f.read_text())
        assert g.is_over
        assert g.scores() == cli_scores(cli, f)


def test_jcz_saves_replay(repo, cli, tmp_path):
    saves = sorted((repo / "tests" / "jcz").glob("*.jcz"))
    assert saves
    replayed = 0
    for i, s in enumerate(saves[:12]):
        # Our game from the save (`convert`): where a save ends while JCZ still waits for a
        # `COMMIT`, `replay SAVE` shows JCZ's step, but the game has moved on, as here.
        record = tmp_path / f"save-{i}.json"
        out = subprocess.run([str(cli), "convert", str(s), "-o", str(record)], capture_output=True, text=True)
        if out.returncode != 0:
            with pytest.raises(c.CarcassonneError):
                c.Game.from_jcz(str(s))
            continue
        g = c.Game.from_jcz(str(s))
        assert g.scores() == cli_scores(cli, record)
        # The replayed game goes on with the encoding (unless finished).
        if not g.is_over:
            ids = g.legal_ids()
            assert len(ids) and g.action_mask().sum() == len(ids)
        replayed += 1
    assert replayed > 0
