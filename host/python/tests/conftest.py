"""Shared fixtures of the native-API tests (host/python/tests).

The module finds the repository's manifests and built plugins by itself when it was built
from this source tree (carcassonne.SOURCE_TREE); scripts/python-tests.sh also sets
CARCASSONNE_LIBRARY_PATH to the cargo output folder whose plugins it built.
"""

import os
import pathlib
import shutil

import pytest

import carcassonne

REPO = pathlib.Path(__file__).resolve().parents[3]

OFFICIAL = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
]
FAN = ["tactician", "promotions"]
EVERYTHING = OFFICIAL + FAN


def cli_path():
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "carcassonne"
        if p.is_file():
            return p
    found = shutil.which("carcassonne")
    return pathlib.Path(found) if found else None


@pytest.fixture(scope="session")
def cli():
    p = cli_path()
    if p is None:
        pytest.fail("the carcassonne CLI is not built (cargo build -p carcassonne-cli)")
    return p


@pytest.fixture(scope="session")
def repo():
    return REPO


def random_playout(game, rng, steps=None):
    """Plays uniformly random legal ids (numpy Generator `rng`); returns the ids played."""
    played = []
    while not game.is_over and (steps is None or len(played) < steps):
        ids = game.legal_ids()
        a = int(ids[rng.integers(len(ids))])
        game.apply(a)
        played.append(a)
    return played


os.environ.setdefault("CARCASSONNE_TEST_REPO", str(REPO))
assert carcassonne.ACTION_SIZE > 0
