//! `carcassonne._native`: the rules engine for Python (issue 21).
//!
//! A thin layer: games are `carcassonne_core::Game`s, ids come from `carcassonne-encoding`,
//! records, bots, arena and simulation from `carcassonne-play`, pictures from
//! `carcassonne-render`/`carcassonne-raster`. Every engine error becomes a Python exception
//! (`IllegalAction` or `CarcassonneError`) with the engine's message; panics are caught at
//! the boundary and reported the same way.

use carcassonne_core::{Action, ActionError, Game as CoreGame, GameSetup, Ruleset, ScoreSource};
use carcassonne_encoding as enc;
use carcassonne_play::bots::parse_bot;
use carcassonne_play::record::{decode_action, encode_action, Record};
use carcassonne_play::simulate::game_seed as play_game_seed;
use carcassonne_rules::{build_ruleset, RulesSpec};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

mod batch;

pyo3::create_exception!(
    _native,
    CarcassonneError,
    PyException,
    "Bad setup, bad record or save, unknown bot, an expansion's failure."
);
pyo3::create_exception!(
    _native,
    IllegalAction,
    PyValueError,
    "An action id that is not legal now; the game is unchanged."
);

pub(crate) fn err(msg: impl std::fmt::Display) -> PyErr {
    CarcassonneError::new_err(msg.to_string())
}

/// Runs `f`, turning a panic into a `CarcassonneError`.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(err(format!("{what}: the engine failed: {msg}")))
        }
    }
}

/// The source tree the module was built in, if it still exists.
fn source_tree() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().ok()?;
    root.join("expansions").is_dir().then_some(root)
}

/// Manifest folders: the caller's, else the source tree's `expansions/` and
/// `fan-expansions/` (the environment variables and `./expansions` are searched anyway).
pub(crate) fn plugin_dirs(given: Option<Vec<String>>) -> Vec<PathBuf> {
    match given {
        Some(d) => d.into_iter().map(PathBuf::from).collect(),
        None => source_tree()
            .map(|r| vec![r.join("expansions"), r.join("fan-expansions")])
            .unwrap_or_default(),
    }
}

/// Rulesets built in this process, by request (expansions, options, folders and the search
/// variables): building one parses the tile files and loads the expansions, which costs
/// milliseconds, while a game costs microseconds. A ruleset is immutable, so sharing it
/// changes no game; the cache holds the last `RULESET_CACHE` requests.
type RulesetKey = (
    Vec<String>,
    Vec<(String, String)>,
    Vec<PathBuf>,
    Vec<Option<std::ffi::OsString>>,
);
static RULESETS: std::sync::Mutex<Vec<(RulesetKey, Arc<Ruleset>)>> =
    std::sync::Mutex::new(Vec::new());
const RULESET_CACHE: usize = 16;

pub(crate) fn ruleset(
    expansions: Vec<String>,
    options: Vec<(String, String)>,
    dirs: Vec<PathBuf>,
) -> PyResult<Arc<Ruleset>> {
    let env = [
        "CARCASSONNE_PLUGIN_PATH",
        "CARCASSONNE_EXPANSION_PATH",
        "CARCASSONNE_LIBRARY_PATH",
    ]
    .iter()
    .map(std::env::var_os)
    .collect();
    for (i, e) in expansions.iter().enumerate() {
        if expansions[..i].contains(e) {
            return Err(PyValueError::new_err(format!(
                "expansion `{e}` is listed twice"
            )));
        }
    }
    let key: RulesetKey = (expansions, options, dirs, env);
    let mut cache = RULESETS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(r));
    }
    let rules = guarded("ruleset", || {
        build_ruleset(&RulesSpec {
            expansions: key.0.clone(),
            options: key.1.clone(),
            plugin_dirs: key.2.clone(),
        })
        .map_err(err)
    })?;
    if cache.len() >= RULESET_CACHE {
        cache.remove(0);
    }
    cache.push((key, Arc::clone(&rules)));
    Ok(rules)
}

/// A non-negative integer argument. Python ints arrive as `i128`, so a negative (or too
/// large) value is a `ValueError` naming the argument, not pyo3's `OverflowError`.
pub(crate) fn nat<T: TryFrom<i128>>(name: &str, v: i128) -> PyResult<T> {
    T::try_from(v).map_err(|_| {
        PyValueError::new_err(if v < 0 {
            format!("{name} must not be negative, not {v}")
        } else {
            format!("{name} is too large: {v}")
        })
    })
}

/// An action id argument: any Python or numpy integer; a bool, float or string is a
/// `TypeError` (never truncated, parsed or read as 0/1).
fn action_arg(a: &Bound<'_, PyAny>) -> PyResult<i128> {
    let is_bool = a.is_instance_of::<pyo3::types::PyBool>()
        || a.get_type().name()?.to_cow()?.starts_with("bool");
    if is_bool {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "an action id is an integer, not a bool",
        ));
    }
    a.extract()
}

pub(crate) fn check_players(players: usize) -> PyResult<()> {
    if !(1..=carcassonne_core::MAX_PLAYERS).contains(&players) {
        return Err(err(format!(
            "players must be 1 to {}, not {players}",
            carcassonne_core::MAX_PLAYERS
        )));
    }
    Ok(())
}

pub(crate) fn sorted_options(
    options: Option<std::collections::BTreeMap<String, String>>,
) -> Vec<(String, String)> {
    options.unwrap_or_default().into_iter().collect()
}

/// A game with what its record needs.
#[derive(Clone)]
pub(crate) struct Inner {
    pub game: CoreGame,
    pub setup: GameSetup,
    pub actions: Vec<Action>,
    /// Ids of the offered actions that the encoding shows, for the current decision:
    /// `ids[k]` is the id of `game.actions()[index[k]]`.
    pub ids: Vec<u32>,
    /// The engine's index of each id.
    pub index: Vec<u32>,
    /// Whether the game was ended because every legal action lay outside the board window.
    pub window_ended: bool,
    /// Whether the hidden draw order was reshuffled (`determinize`): such a game no longer
    /// follows its setup's seed, so it has no record.
    pub determinized: bool,
}

impl Inner {
    pub fn new(rules: Arc<Ruleset>, setup: GameSetup) -> PyResult<Inner> {
        Inner::build(rules, setup).map_err(err)
    }

    /// A new game (no Python involved: batch threads call it).
    pub fn build(rules: Arc<Ruleset>, setup: GameSetup) -> Result<Inner, String> {
        let game = catch_unwind(AssertUnwindSafe(|| CoreGame::new(rules, &setup)))
            .map_err(|_| "new game: the engine failed".to_string())?
            .map_err(|e| e.to_string())?;
        let mut g = Inner::from_game(game, setup, Vec::new());
        g.sync()?;
        Ok(g)
    }

    /// A game as it stands, before [`Inner::sync`].
    pub fn from_game(game: CoreGame, setup: GameSetup, actions: Vec<Action>) -> Inner {
        Inner {
            game,
            setup,
            actions,
            ids: Vec::new(),
            index: Vec::new(),
            window_ended: false,
            determinized: false,
        }
    }

    pub fn refresh(&mut self) -> PyResult<()> {
        self.sync().map_err(err)
    }

    /// Encodes the current decision (no Python involved: batch threads call it). Cells
    /// outside the board window are masked out; when that leaves no legal action, the
    /// game ends here with final scoring (`Game::end_now`), so a policy that walks the
    /// board off the window ends its episode instead of being stuck.
    pub fn sync(&mut self) -> Result<(), String> {
        enc::encode_in_window(&self.game, &mut self.ids, &mut self.index)
            .map_err(|e| e.to_string())?;
        if self.ids.is_empty() && !self.game.is_over() {
            let g = &mut self.game;
            catch_unwind(AssertUnwindSafe(|| g.end_now()))
                .map_err(|_| "ending the game: the engine failed".to_string())?
                .map_err(|e| format!("ending the game: an expansion failed: {e}"))?;
            self.window_ended = true;
        }
        Ok(())
    }

    /// The id of the engine's action `i`; an action outside the window (a bot's choice)
    /// has none, and the first shown action stands in for it.
    pub fn id_of(&self, i: usize) -> Option<u32> {
        self.index
            .iter()
            .position(|&x| x as usize == i)
            .or((!self.ids.is_empty()).then_some(0))
            .map(|k| self.ids[k])
    }

    pub fn index_of(&self, id: i128) -> PyResult<usize> {
        if self.game.is_over() {
            return Err(IllegalAction::new_err(format!(
                "action {id}: the game is over"
            )));
        }
        u32::try_from(id)
            .ok()
            .and_then(|id| self.ids.iter().position(|&x| x == id))
            .map(|k| self.index[k] as usize)
            .ok_or_else(|| {
                IllegalAction::new_err(format!(
                    "action {id} is not legal now ({} legal actions; {})",
                    self.ids.len(),
                    self.game.describe_decision()
                ))
            })
    }

    /// Applies a legal id; the game is unchanged on an illegal id.
    pub fn apply(&mut self, id: i128) -> PyResult<()> {
        let i = self.index_of(id)?;
        let a = self.game.actions()[i];
        let res = guarded("apply", || {
            self.game.apply(a).map_err(|e| match e {
                ActionError::Hook(h) => err(format!("an expansion failed: {h}")),
                e => IllegalAction::new_err(e.to_string()),
            })
        });
        res?;
        self.actions.push(a);
        self.refresh()
    }

    pub fn scores(&self) -> Vec<i32> {
        self.game
            .state()
            .players()
            .iter()
            .map(|p| p.score)
            .collect()
    }

    pub fn current(&self) -> Option<usize> {
        (!self.game.is_over()).then(|| self.game.decision().player.index())
    }

    pub fn record(&self) -> PyResult<Record> {
        if self.determinized {
            return Err(err(
                "a determinized game has no record: its tiles to come no longer follow its seed",
            ));
        }
        guarded("record", || {
            Record::with_setup(&self.game, &self.setup, &self.actions).map_err(err)
        })
    }

    /// The record form of the engine's action `i`.
    pub fn describe_index(&self, i: usize) -> String {
        let a = self.game.actions()[i];
        encode_action(self.game.rules(), &self.game, a).to_string()
    }

    pub fn bot_index(&self, bot: &str, seed: u64) -> PyResult<usize> {
        if self.game.is_over() {
            return Err(err("the game is over: no action to choose"));
        }
        let spec = parse_bot(bot).map_err(err)?;
        guarded("bot", || Ok(spec.build(seed).choose(&self.game)))
    }
}

impl PyGame {
    /// A seat of this game, from a Python int (negative: `ValueError`; past the last seat:
    /// `CarcassonneError`, as before).
    fn seat(&self, seat: i128) -> PyResult<usize> {
        let n = self.inner.game.state().players().len();
        let seat: usize = nat("seat", seat)?;
        if seat >= n {
            return Err(err(format!("seat {seat} of a {n}-player game")));
        }
        Ok(seat)
    }
}

/// Replays a record into an `Inner` (actions decoded one by one, so the game can go on).
fn replay_record(record: &Record, dirs: Vec<PathBuf>) -> PyResult<Inner> {
    let mut spec = record.rules_spec();
    spec.plugin_dirs = dirs;
    let rules = guarded("ruleset", || build_ruleset(&spec).map_err(err))?;
    // Checks expansions, versions and options against the record, and the whole replay.
    guarded("replay", || {
        record.replay_with(&rules, "record", Some(0)).map_err(err)
    })?;
    let setup = record.game_setup(&rules).map_err(err)?;
    let mut g = Inner::new(rules, setup)?;
    for (i, ra) in record.actions.iter().enumerate() {
        let a = decode_action(g.game.rules(), &g.game, ra)
            .map_err(|e| err(format!("record action {i}: {e}")))?;
        guarded("replay", || {
            g.game
                .apply(a)
                .map_err(|e| err(format!("record action {i}: {e}")))
        })?;
        g.actions.push(a);
    }
    g.refresh()?;
    Ok(g)
}

pub(crate) fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// One legal action.
#[pyclass(module = "carcassonne._native", name = "Action", frozen)]
struct PyAction {
    #[pyo3(get)]
    id: i64,
    #[pyo3(get)]
    description: String,
    #[pyo3(get)]
    player: usize,
}

#[pymethods]
impl PyAction {
    fn __repr__(&self) -> String {
        format!(
            "Action(id={}, player={}, description={:?})",
            self.id, self.player, self.description
        )
    }
}

/// One game.
#[pyclass(module = "carcassonne._native", name = "Game")]
pub(crate) struct PyGame {
    pub inner: Inner,
}

pub(crate) fn names_for(players: usize, names: Option<Vec<String>>) -> PyResult<Vec<String>> {
    check_players(players)?;
    let names = names.unwrap_or_else(|| (1..=players).map(|i| format!("P{i}")).collect());
    if names.len() != players {
        return Err(err(format!("{} names for {players} players", names.len())));
    }
    Ok(names)
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (expansions=Vec::new(), options=None, players=2, seed=0, plugin_dirs=None, names=None))]
    fn new(
        expansions: Vec<String>,
        options: Option<std::collections::BTreeMap<String, String>>,
        players: i128,
        seed: i128,
        plugin_dirs: Option<Vec<String>>,
        names: Option<Vec<String>>,
    ) -> PyResult<PyGame> {
        let names = names_for(nat("players", players)?, names)?;
        let seed: u64 = nat("seed", seed)?;
        let rules = ruleset(
            expansions,
            sorted_options(options),
            self::plugin_dirs(plugin_dirs),
        )?;
        Ok(PyGame {
            inner: Inner::new(rules, GameSetup::new(names, seed))?,
        })
    }

    #[staticmethod]
    #[pyo3(signature = (record_json, plugin_dirs=None))]
    fn from_record(record_json: &str, plugin_dirs: Option<Vec<String>>) -> PyResult<PyGame> {
        let record = Record::parse(record_json, "record").map_err(err)?;
        Ok(PyGame {
            inner: replay_record(&record, self::plugin_dirs(plugin_dirs))?,
        })
    }

    #[staticmethod]
    #[pyo3(signature = (path, plugin_dirs=None))]
    fn from_jcz(path: &str, plugin_dirs: Option<Vec<String>>) -> PyResult<PyGame> {
        let dirs = self::plugin_dirs(plugin_dirs);
        let g = guarded("jcz", || {
            carcassonne_jcz::load(std::path::Path::new(path), &dirs, None).map_err(err)
        })?;
        let mut inner = Inner::from_game(g.game, g.setup, g.actions);
        inner.refresh()?;
        Ok(PyGame { inner })
    }

    #[getter]
    fn players(&self) -> usize {
        self.inner.game.state().players().len()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.inner.setup.seed
    }

    #[getter]
    fn current_player(&self) -> Option<usize> {
        self.inner.current()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.inner.game.is_over()
    }

    /// Whether the game was ended early because every legal action lay outside the
    /// board window (`BOARD_WINDOW`); its scores are final.
    #[getter]
    fn ended_by_window(&self) -> bool {
        self.inner.window_ended
    }

    #[getter]
    fn turn(&self) -> u32 {
        self.inner.game.state().turn()
    }

    #[getter]
    fn expansions(&self) -> Vec<String> {
        self.inner
            .game
            .rules()
            .expansions()
            .iter()
            .map(|e| e.id().to_string())
            .collect()
    }

    #[getter]
    fn decision(&self) -> String {
        self.inner.game.describe_decision()
    }

    fn legal_actions(&self) -> PyResult<Vec<PyAction>> {
        let g = &self.inner;
        let player = g.current().unwrap_or(0);
        guarded("legal_actions", || {
            Ok(g.ids
                .iter()
                .enumerate()
                .map(|(k, &id)| PyAction {
                    id: id as i64,
                    description: g.describe_index(g.index[k] as usize),
                    player,
                })
                .collect())
        })
    }

    fn legal_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(py, self.inner.ids.iter().map(|&i| i as i64))
    }

    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut m = vec![false; enc::ACTION_SIZE];
        enc::fill_mask(&self.inner.ids, &mut m);
        PyArray1::from_vec(py, m)
    }

    fn apply(&mut self, action_id: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.apply(action_arg(action_id)?)
    }

    /// A copy whose hidden draw order is reshuffled from `seed`: the board, the scores, the
    /// supply and the tile in hand stay, the tiles still to come are the same multiset in
    /// another order. Search code plays on such copies so it cannot read the real future
    /// (a plain `clone()` draws the same tiles as the game). It has no record.
    fn determinize(&self, seed: i128) -> PyResult<PyGame> {
        let seed: u64 = nat("seed", seed)?;
        let mut inner = self.inner.clone();
        inner.game.reseed(seed);
        inner.determinized = true;
        Ok(PyGame { inner })
    }

    fn clone(&self) -> PyGame {
        PyGame {
            inner: self.inner.clone(),
        }
    }

    /// Pickling (multiprocessing, Ray): a game travels as its record and is replayed.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py.get_type::<PyGame>().getattr("from_record")?;
        Ok((f, (self.record_json()?,)))
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    fn scores(&self) -> Vec<i32> {
        self.inner.scores()
    }

    #[pyo3(signature = (since=0))]
    fn events<'py>(&self, py: Python<'py>, since: i128) -> PyResult<Bound<'py, PyList>> {
        let since: usize = nat("since", since)?;
        let g = &self.inner.game;
        let rules = g.rules();
        let out = PyList::empty(py);
        for e in g.state().events().iter().skip(since) {
            let d = PyDict::new(py);
            d.set_item("player", e.player.index())?;
            let (label, feature) = match e.source {
                ScoreSource::Feature(k) => (rules.kind(k).name.clone(), true),
                ScoreSource::Label(l) => (
                    rules
                        .labels()
                        .get(l.0 as usize)
                        .cloned()
                        .unwrap_or_else(|| format!("label {}", l.0)),
                    false,
                ),
            };
            d.set_item("label", label)?;
            d.set_item("feature", feature)?;
            d.set_item("points", e.points)?;
            d.set_item("complete", e.complete)?;
            d.set_item("final", e.final_scoring)?;
            d.set_item("turn", e.turn)?;
            out.append(d)?;
        }
        Ok(out)
    }

    fn record_json(&self) -> PyResult<String> {
        let r = self.inner.record()?;
        serde_json::to_string_pretty(&r)
            .map(|s| s + "\n")
            .map_err(err)
    }

    /// The observation of `seat`: `format` "dict" (every array), "compact" (the "other"
    /// table cut to its first rows, int16), "array" (the compact one as one float32 vector)
    /// or "flat" (the full one as one float32 vector).
    #[pyo3(signature = (seat, format="dict"))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: i128,
        format: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seat = self.seat(seat)?;
        let (form, array) = batch::obs_format(format)?;
        let mut o = batch::Obs::new(1);
        guarded("observation", || {
            o.fill(0, &self.inner.game, seat);
            Ok(())
        })?;
        if array {
            o.into_array(py, form, false)
        } else {
            Ok(o.into_dict(py, form, false)?.into_any())
        }
    }

    #[pyo3(signature = (bot="greedy", seed=0))]
    fn bot_action(&self, py: Python<'_>, bot: &str, seed: i128) -> PyResult<i64> {
        let seed: u64 = nat("seed", seed)?;
        let g = &self.inner;
        let i = py.detach(|| g.bot_index(bot, seed))?;
        g.id_of(i)
            .map(i64::from)
            .ok_or_else(|| err("no action to choose"))
    }

    fn render_svg(&self) -> PyResult<String> {
        guarded("render", || {
            Ok(carcassonne_render::render_svg(
                &self.inner.game,
                &carcassonne_render::RenderOptions {
                    tile_size: 64.0,
                    caption: None,
                    order_numbers: false,
                },
            ))
        })
    }

    #[pyo3(signature = (scale=1.0))]
    fn render_rgb<'py>(
        &self,
        py: Python<'py>,
        scale: f32,
    ) -> PyResult<Bound<'py, numpy::PyArray3<u8>>> {
        if !(scale.is_finite() && scale > 0.0 && scale <= 16.0) {
            return Err(err(format!(
                "scale must be above 0 and at most 16, not {scale}"
            )));
        }
        let svg = self.render_svg()?;
        let pix = py.detach(|| {
            guarded("render", || {
                carcassonne_raster::rasterise(&svg, scale).map_err(err)
            })
        })?;
        let (w, h) = (pix.width() as usize, pix.height() as usize);
        let mut rgb = Vec::with_capacity(w * h * 3);
        for p in pix.pixels() {
            let c = p.demultiply();
            rgb.extend_from_slice(&[c.red(), c.green(), c.blue()]);
        }
        PyArray1::from_vec(py, rgb).reshape([h, w, 3])
    }

    fn describe(&self, action_id: &Bound<'_, PyAny>) -> PyResult<String> {
        let i = self.inner.index_of(action_arg(action_id)?)?;
        guarded("describe", || Ok(self.inner.describe_index(i)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(players={}, seed={}, turn={}, expansions={:?}, {})",
            self.players(),
            self.seed(),
            self.turn(),
            self.expansions(),
            if self.is_over() {
                "over".to_string()
            } else {
                self.decision()
            }
        )
    }
}

#[pyfunction]
#[pyo3(signature = (plugin_dirs=None))]
fn list_expansions<'py>(
    py: Python<'py>,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let list = guarded("list_expansions", || {
        carcassonne_rules::list_expansions(&self::plugin_dirs(plugin_dirs)).map_err(err)
    })?;
    json_to_py(py, &serde_json::to_string(&list).map_err(err)?)
}

#[pyfunction]
fn game_seed(seed: i128, index: i128) -> PyResult<u64> {
    Ok(play_game_seed(nat("seed", seed)?, nat("index", index)?))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ACTION_SIZE", enc::ACTION_SIZE)?;
    m.add("BOARD_WINDOW", enc::WINDOW)?;
    m.add("OBSERVATION_PLANES", enc::PLANES.to_vec())?;
    m.add("OTHER_SLOTS", enc::OTHER_SLOTS)?;
    m.add("OTHER_COLUMNS", enc::OTHER_COLUMNS.to_vec())?;
    m.add("TILE_SLOTS", enc::TILE_SLOTS)?;
    m.add("FIGURE_SLOTS", enc::FIGURE_SLOTS)?;
    m.add("MAX_PLAYERS", enc::MAX_PLAYERS)?;
    m.add("COMPACT_OTHER_ROWS", batch::COMPACT_OTHER_ROWS)?;
    let layout = PyDict::new(py);
    layout.set_item("place", (enc::PLACE_BASE, enc::PASS_ID - enc::PLACE_BASE))?;
    layout.set_item("pass", (enc::PASS_ID, 1))?;
    layout.set_item(
        "deploy",
        (enc::DEPLOY_BASE, enc::DRAW_BASE - enc::DEPLOY_BASE),
    )?;
    layout.set_item("draw", (enc::DRAW_BASE, enc::OTHER_BASE - enc::DRAW_BASE))?;
    layout.set_item("other", (enc::OTHER_BASE, enc::OTHER_SLOTS))?;
    m.add("LAYOUT", layout)?;
    m.add(
        "SOURCE_TREE",
        source_tree().map(|p| p.to_string_lossy().into_owned()),
    )?;
    m.add(
        "_BUILD_PROFILE",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    // The folder of the plugins built together with this module, when its build names one
    // (`scripts/pgo.py` names its output folder): `import carcassonne` looks there first.
    m.add("_LIBRARY_DIR", option_env!("CARCASSONNE_WHEEL_LIBRARY_DIR"))?;
    // Importable names, so the exceptions pickle (multiprocessing, Ray).
    for t in [
        py.get_type::<CarcassonneError>(),
        py.get_type::<IllegalAction>(),
    ] {
        t.setattr("__module__", "carcassonne._native")?;
    }
    m.add("CarcassonneError", py.get_type::<CarcassonneError>())?;
    m.add("IllegalAction", py.get_type::<IllegalAction>())?;
    m.add_class::<PyAction>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<batch::PyBatch>()?;
    m.add_function(wrap_pyfunction!(list_expansions, m)?)?;
    m.add_function(wrap_pyfunction!(game_seed, m)?)?;
    m.add_function(wrap_pyfunction!(batch::play_games, m)?)?;
    m.add_function(wrap_pyfunction!(batch::arena_report, m)?)?;
    m.add_function(wrap_pyfunction!(batch::simulate, m)?)?;
    Ok(())
}
