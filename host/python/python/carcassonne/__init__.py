"""Carcassonne for agents: the rules engine (every expansion) behind a fixed action encoding,
numpy observations, batch simulation, PettingZoo and Gymnasium environments.

See docs/python.md and docs/python-api.md in the repository.
"""

import os as _os

from . import _native
from ._native import (  # noqa: F401
    ACTION_SIZE,
    BOARD_WINDOW,
    COMPACT_OTHER_ROWS,
    FIGURE_SLOTS,
    LAYOUT,
    MAX_PLAYERS,
    OBSERVATION_PLANES,
    OTHER_COLUMNS,
    OTHER_SLOTS,
    SOURCE_TREE,
    TILE_SLOTS,
    Action,
    BatchGames,
    CarcassonneError,
    Game,
    IllegalAction,
    arena_report,
    game_seed,
    list_expansions,
    play_games,
    simulate,
)

__version__ = _native.__version__

__all__ = [
    "ACTION_SIZE",
    "BOARD_WINDOW",
    "COMPACT_OTHER_ROWS",
    "FIGURE_SLOTS",
    "LAYOUT",
    "MAX_PLAYERS",
    "OBSERVATION_PLANES",
    "OTHER_COLUMNS",
    "OTHER_SLOTS",
    "SOURCE_TREE",
    "TILE_SLOTS",
    "Action",
    "BatchGames",
    "CarcassonneError",
    "Game",
    "IllegalAction",
    "arena_report",
    "game_seed",
    "list_expansions",
    "play_games",
    "simulate",
    "__version__",
]

# Native plugin libraries, unless the caller said where they are: first the folder a build
# named for the plugins built with this module (`scripts/pgo.py`'s optimised ones); then, when
# the module was built from a source tree that still exists, that tree's cargo output folders
# (the profile this module was built with first). Manifests are found in the source tree
# (SOURCE_TREE/expansions, SOURCE_TREE/fan-expansions) unless `plugin_dirs` is given.
if "CARCASSONNE_LIBRARY_PATH" not in _os.environ:
    _dirs = [_native._LIBRARY_DIR] if _native._LIBRARY_DIR is not None else []
    if SOURCE_TREE is not None:
        _profiles = ["debug", "release"] if _native._BUILD_PROFILE == "debug" else ["release", "debug"]
        _dirs += [_os.path.join(SOURCE_TREE, "target", p) for p in _profiles]
    if _dirs:
        _os.environ["CARCASSONNE_LIBRARY_PATH"] = _os.pathsep.join(_dirs)
