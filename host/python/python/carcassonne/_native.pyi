"""Type stubs of `carcassonne._native`, the Rust extension module (the contract of issue 21).

Every array is a fresh numpy array owned by the caller. Seats in observations are relative to
the observing seat (row/plane 0 is that seat, then the following seats in turn order).
"""

from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str
ACTION_SIZE: int
"""Size of the fixed action space (the same for every expansion mix)."""
BOARD_WINDOW: int
"""Side of the square board window, centred on the start tile (0, 0)."""
OBSERVATION_PLANES: list[str]
"""Names of the planes of `observation()["planes"]`, in order."""
OTHER_SLOTS: int
"""Slots for actions outside the fixed blocks (their meaning in `observation()["other"]`)."""
OTHER_COLUMNS: list[str]
"""Columns of `observation()["other"]`."""
TILE_SLOTS: int
"""Tile kinds (catalog index) the `tile`/`remaining` vectors and draw ids can name."""
FIGURE_SLOTS: int
"""Figure kinds (ruleset index) deployment ids and `supply` can name."""
MAX_PLAYERS: int
COMPACT_OTHER_ROWS: int
"""Rows of the "other" table kept by the "compact" and "array" observations."""
LAYOUT: dict[str, tuple[int, int]]
"""Each action block: name -> (first id, size): place, pass, deploy, draw, other."""
SOURCE_TREE: Optional[str]
"""The repository the module was built from, if it still exists (default plugin search)."""

class CarcassonneError(Exception):
    """Bad setup, bad record or save, unknown bot, an expansion's failure."""

class IllegalAction(ValueError):
    """An action id that is not legal now; the game is unchanged."""

def list_expansions(plugin_dirs: Optional[Sequence[str]] = None) -> list[dict[str, Any]]:
    """The base game and every expansion found: id, name, version, kind, options
    (key, default, description), tiles, manifest."""

class Action:
    """One legal action."""

    id: int
    """Its fixed encoding, 0 <= id < ACTION_SIZE."""
    description: str
    """Readable, e.g. "place C at (1,0) turned 90°", "put a follower on the city N of (1,0)"."""
    player: int
    """Seat that takes it."""

class Game:
    """One game. Not thread-safe for concurrent calls from several Python threads on the
    same object (each call holds the object); different games run in parallel."""

    def __init__(
        self,
        expansions: Sequence[str] = ...,
        options: dict[str, str] = ...,
        players: int = 2,
        seed: int = 0,
        plugin_dirs: Optional[Sequence[str]] = None,
        names: Optional[Sequence[str]] = None,
    ) -> None: ...
    @staticmethod
    def from_record(record_json: str, plugin_dirs: Optional[Sequence[str]] = None) -> "Game":
        """A game replayed from our JSON record (`record_json()`, `carcassonne simulate --record`)."""
    @staticmethod
    def from_jcz(path: str, plugin_dirs: Optional[Sequence[str]] = None) -> "Game":
        """A game replayed from a JCloisterZone save file."""
    @property
    def players(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def current_player(self) -> Optional[int]:
        """Seat whose decision it is; None when the game is over."""
    @property
    def ended_by_window(self) -> bool:
        """Whether the game ended early because every legal action lay outside the board
        window (its scores are final)."""
    @property
    def is_over(self) -> bool: ...
    @property
    def turn(self) -> int: ...
    @property
    def expansions(self) -> list[str]:
        """Loaded expansion ids in load order."""
    @property
    def decision(self) -> str:
        """The pending decision in words."""
    def legal_actions(self) -> list[Action]: ...
    def legal_ids(self) -> npt.NDArray[np.int64]:
        """The legal ids, in the engine's order (the order of `legal_actions()`)."""
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """Shape (ACTION_SIZE,); True exactly at the legal ids."""
    def apply(self, action_id: int) -> None:
        """Applies a legal id; raises IllegalAction (game unchanged) otherwise, TypeError for
        a bool, float or string."""
    def clone(self) -> "Game":
        """An independent copy; it draws the same tiles as this game."""
    def determinize(self, seed: int) -> "Game":
        """A copy whose hidden draw order is reshuffled from `seed` (same board, scores,
        supply, tile in hand and multiset of tiles to come): search code plays on it
        without seeing the real future. It has no record (`record_json` raises)."""
    def scores(self) -> list[int]: ...
    def events(self, since: int = 0) -> list[dict[str, Any]]:
        """Score events from index `since`: player, label (feature kind or score label),
        points, complete, final, turn."""
    def record_json(self) -> str:
        """The game as our JSON record; replays with `carcassonne replay`."""
    def observation(
        self, seat: int, format: str = "dict"
    ) -> Union[dict[str, npt.NDArray[Any]], npt.NDArray[np.float32]]:
        """`format`: "dict" (below), "compact" (the same, `other` cut to its first
        COMPACT_OTHER_ROWS rows as int16), "array" (the compact one as one float32 vector,
        keys raveled and concatenated in this order) or "flat" (the full one as one float32
        vector). Keys and shapes (the same for every expansion mix):
        planes   uint8  (len(OBSERVATION_PLANES), BOARD_WINDOW, BOARD_WINDOW)
        tile     uint8  (TILE_SLOTS,)  one-hot drawn tile kind (zero when not placing)
        remaining int32 (TILE_SLOTS,)  tiles left per tile kind
        scores   int32  (MAX_PLAYERS,) seat-relative
        supply   int32  (MAX_PLAYERS, FIGURE_SLOTS) figures in supply, seat-relative
        decision uint8  (5,) one-hot: draw, place, deploy, prompt, over
        current  int32  (1,) seat-relative player to move (-1 when over)
        other    int32  (OTHER_SLOTS, len(OTHER_COLUMNS)) what each other-slot id means now
        """
    def bot_action(self, bot: str = "greedy", seed: int = 0) -> int:
        """The id the built-in bot (random | greedy | mcts[:N]) would play now."""
    def render_svg(self) -> str: ...
    def render_rgb(self, scale: float = 1.0) -> npt.NDArray[np.uint8]:
        """The board as an (H, W, 3) image."""
    def describe(self, action_id: int) -> str:
        """What a legal id does; raises IllegalAction for an id not legal now."""

class BatchGames:
    """N games stepped together in Rust threads with the GIL released. Finished games reset
    at once: game j's e-th episode uses seed `game_seed(seed, e * n + j)`."""

    def __init__(
        self,
        n: int,
        expansions: Sequence[str] = ...,
        options: dict[str, str] = ...,
        players: int = 2,
        seed: int = 0,
        threads: int = 0,
        plugin_dirs: Optional[Sequence[str]] = None,
    ) -> None: ...
    @property
    def n(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def threads(self) -> int:
        """Threads of the batch's pool (started once, at construction)."""
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Shape (n, ACTION_SIZE)."""
    def observations(
        self, format: str = "dict"
    ) -> Union[dict[str, npt.NDArray[Any]], npt.NDArray[np.float32]]:
        """`Game.observation` of every game in `format`, with a leading n axis (the vector
        formats: shape (n, length)); seat = each game's current player."""
    def current_players(self) -> npt.NDArray[np.int64]:
        """Shape (n,)."""
    def step(
        self, action_ids: Union[npt.NDArray[np.integer[Any]], Sequence[int]]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Applies one id per game; returns (rewards (n, players): score change per seat,
        dones (n,)). A finished game is replaced by its next episode. An illegal id raises
        IllegalAction naming the game; no game is stepped then."""
    def bot_actions(self, bot: str = "random", seed: int = 0) -> npt.NDArray[np.int64]:
        """The built-in bot's id for every game (threads, GIL released)."""
    def game(self, j: int) -> Game:
        """A copy of game j."""

def play_games(
    bots: Sequence[str],
    games: int,
    expansions: Sequence[str] = ...,
    options: dict[str, str] = ...,
    players: int = 2,
    seed: int = 0,
    start: int = 0,
    threads: int = 0,
    plugin_dirs: Optional[Sequence[str]] = None,
) -> list[dict[str, Any]]:
    """Whole bot-vs-bot games `start .. start + games`, seeded and seated exactly as
    `carcassonne arena` does; each {"index", "seed", "bots", "scores", "turns"}."""

def arena_report(
    results: Sequence[dict[str, Any]],
    bots: Sequence[str],
    players: int,
    seed: int,
    expansions: Sequence[str] = ...,
    options: dict[str, str] = ...,
    plugin_dirs: Optional[Sequence[str]] = None,
) -> dict[str, Any]:
    """The report of `carcassonne arena --json` from per-game results (any order)."""

def simulate(
    bots: Sequence[str] = ...,
    games: int = 100,
    expansions: Sequence[str] = ...,
    options: dict[str, str] = ...,
    players: int = 2,
    seed: int = 0,
    threads: int = 0,
    plugin_dirs: Optional[Sequence[str]] = None,
) -> dict[str, Any]:
    """The summary of `carcassonne simulate --json` (same games, same numbers but timing)."""

def game_seed(seed: int, index: int) -> int:
    """Seed of game `index` of a run with base seed `seed` (as simulate and arena use)."""
