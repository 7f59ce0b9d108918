//! Observations as numpy arrays, `BatchGames` (N games stepped in Rust threads with the GIL
//! released), and whole bot games: `play_games`, `arena_report`, `simulate`.

use crate::{
    err, guarded, json_to_py, names_for, nat, plugin_dirs, ruleset, sorted_options, IllegalAction,
    Inner, PyGame,
};
use carcassonne_core::{GameSetup, Ruleset};
use carcassonne_encoding as enc;
use carcassonne_play::arena::{arena_games, arena_report as play_arena_report, lineup, Outcome};
use carcassonne_play::bots::parse_bot;
use carcassonne_play::jobs::{panic_message, thread_count};
use carcassonne_play::simulate::{game_seed, simulate as play_simulate, SimConfig};
use carcassonne_play::PlayError;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

const PLANE_LEN: usize = enc::PLANES.len() * enc::WINDOW * enc::WINDOW;
const OTHER_LEN: usize = enc::OTHER_SLOTS * enc::OTHER_COLUMNS.len();
const SUPPLY_LEN: usize = enc::MAX_PLAYERS * enc::FIGURE_SLOTS;
const DECISIONS: usize = 5;
/// Rows of the "other" table in the compact observation: slots past it keep their ids and
/// mask bits but are not described (a decision rarely offers that many other actions).
pub(crate) const COMPACT_OTHER_ROWS: usize = 64;

/// What an observation holds: every "other" row (`Full`) or the first
/// [`COMPACT_OTHER_ROWS`] as int16 (`Compact`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    Full,
    Compact,
}

impl Form {
    fn other_rows(self) -> usize {
        match self {
            Form::Full => enc::OTHER_SLOTS,
            Form::Compact => COMPACT_OTHER_ROWS,
        }
    }

    /// Entries of one observation as one vector (`into_array`), in key order.
    pub fn array_len(self) -> usize {
        PLANE_LEN
            + 2 * enc::TILE_SLOTS
            + enc::MAX_PLAYERS
            + SUPPLY_LEN
            + DECISIONS
            + 1
            + self.other_rows() * enc::OTHER_COLUMNS.len()
    }
}

/// Observation buffers of `n` games, filled in place.
pub(crate) struct Obs {
    n: usize,
    planes: Vec<u8>,
    tile: Vec<u8>,
    remaining: Vec<i32>,
    scores: Vec<i32>,
    supply: Vec<i32>,
    decision: Vec<u8>,
    current: Vec<i32>,
    other: Vec<i32>,
}

/// One game's part of the buffers.
struct ObsMut<'a> {
    planes: &'a mut [u8],
    tile: &'a mut [u8],
    remaining: &'a mut [i32],
    scores: &'a mut [i32],
    supply: &'a mut [i32],
    decision: &'a mut [u8],
    current: &'a mut [i32],
    other: &'a mut [i32],
}

impl ObsMut<'_> {
    fn fill(&mut self, game: &carcassonne_core::Game, seat: usize) {
        let st = game.state();
        let n = st.players().len().max(1);
        enc::planes(game, seat, self.planes);
        enc::drawn_tile(game, self.tile);
        enc::remaining(st, self.remaining);
        self.scores.fill(0);
        for (p, pl) in st.players().iter().enumerate() {
            self.scores[(p + n - seat % n) % n] = pl.score;
        }
        enc::supply(game, seat, self.supply);
        self.decision.fill(0);
        self.decision[enc::decision_code(game)] = 1;
        self.current[0] = if game.is_over() {
            -1
        } else {
            ((game.decision().player.index() + n - seat % n) % n) as i32
        };
        enc::describe_other(game, seat, self.other);
    }
}

impl Obs {
    pub fn new(n: usize) -> Obs {
        Obs {
            n,
            planes: vec![0; n * PLANE_LEN],
            tile: vec![0; n * enc::TILE_SLOTS],
            remaining: vec![0; n * enc::TILE_SLOTS],
            scores: vec![0; n * enc::MAX_PLAYERS],
            supply: vec![0; n * SUPPLY_LEN],
            decision: vec![0; n * DECISIONS],
            current: vec![0; n],
            other: vec![0; n * OTHER_LEN],
        }
    }

    fn parts(&mut self) -> Vec<ObsMut<'_>> {
        let mut out = Vec::with_capacity(self.n);
        let it = self
            .planes
            .chunks_mut(PLANE_LEN)
            .zip(self.tile.chunks_mut(enc::TILE_SLOTS))
            .zip(self.remaining.chunks_mut(enc::TILE_SLOTS))
            .zip(self.scores.chunks_mut(enc::MAX_PLAYERS))
            .zip(self.supply.chunks_mut(SUPPLY_LEN))
            .zip(self.decision.chunks_mut(DECISIONS))
            .zip(self.current.chunks_mut(1))
            .zip(self.other.chunks_mut(OTHER_LEN));
        for (((((((planes, tile), remaining), scores), supply), decision), current), other) in it {
            out.push(ObsMut {
                planes,
                tile,
                remaining,
                scores,
                supply,
                decision,
                current,
                other,
            });
        }
        out
    }

    pub fn fill(&mut self, j: usize, game: &carcassonne_core::Game, seat: usize) {
        self.parts()[j].fill(game, seat);
    }

    /// The "other" rows kept by `form`, per game.
    fn other_kept(&self, form: Form) -> Vec<i32> {
        let keep = form.other_rows() * enc::OTHER_COLUMNS.len();
        if keep == OTHER_LEN {
            return self.other.clone();
        }
        self.other
            .chunks(OTHER_LEN)
            .flat_map(|c| &c[..keep])
            .copied()
            .collect()
    }

    /// One float32 vector per game (shape `(n, len)`, or `(len,)` unless `batched`): the
    /// arrays of `into_dict` raveled and concatenated in key order, built here rather than
    /// by numpy from a dict (one allocation, no Python objects per key).
    pub fn into_array<'py>(
        self,
        py: Python<'py>,
        form: Form,
        batched: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let len = form.array_len();
        let other = self.other_kept(form);
        let other_len = other.len() / self.n.max(1);
        let mut out: Vec<f32> = Vec::with_capacity(self.n * len);
        for j in 0..self.n {
            let ints = [
                &self.remaining[j * enc::TILE_SLOTS..][..enc::TILE_SLOTS],
                &self.scores[j * enc::MAX_PLAYERS..][..enc::MAX_PLAYERS],
                &self.supply[j * SUPPLY_LEN..][..SUPPLY_LEN],
            ];
            out.extend(
                self.planes[j * PLANE_LEN..][..PLANE_LEN]
                    .iter()
                    .map(|&v| v as f32),
            );
            out.extend(
                self.tile[j * enc::TILE_SLOTS..][..enc::TILE_SLOTS]
                    .iter()
                    .map(|&v| v as f32),
            );
            for part in ints {
                out.extend(part.iter().map(|&v| v as f32));
            }
            out.extend(
                self.decision[j * DECISIONS..][..DECISIONS]
                    .iter()
                    .map(|&v| v as f32),
            );
            out.push(self.current[j] as f32);
            out.extend(
                other[j * other_len..][..other_len]
                    .iter()
                    .map(|&v| v as f32),
            );
        }
        let a = PyArray1::from_vec(py, out);
        if batched {
            Ok(a.reshape([self.n, len])?.into_any())
        } else {
            Ok(a.into_any())
        }
    }

    /// Numpy arrays; `batched` keeps the leading `n` axis.
    pub fn into_dict<'py>(
        self,
        py: Python<'py>,
        form: Form,
        batched: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let n = self.n;
        let compact_other = match form {
            Form::Compact => self.other_kept(form),
            Form::Full => Vec::new(),
        };
        let shape = |rest: &[usize]| -> Vec<usize> {
            let mut s = if batched { vec![n] } else { Vec::new() };
            s.extend_from_slice(rest);
            s
        };
        let w = enc::WINDOW;
        d.set_item(
            "planes",
            PyArray1::from_vec(py, self.planes).reshape(shape(&[enc::PLANES.len(), w, w]))?,
        )?;
        d.set_item(
            "tile",
            PyArray1::from_vec(py, self.tile).reshape(shape(&[enc::TILE_SLOTS]))?,
        )?;
        d.set_item(
            "remaining",
            PyArray1::from_vec(py, self.remaining).reshape(shape(&[enc::TILE_SLOTS]))?,
        )?;
        d.set_item(
            "scores",
            PyArray1::from_vec(py, self.scores).reshape(shape(&[enc::MAX_PLAYERS]))?,
        )?;
        d.set_item(
            "supply",
            PyArray1::from_vec(py, self.supply)
                .reshape(shape(&[enc::MAX_PLAYERS, enc::FIGURE_SLOTS]))?,
        )?;
        d.set_item(
            "decision",
            PyArray1::from_vec(py, self.decision).reshape(shape(&[DECISIONS]))?,
        )?;
        d.set_item(
            "current",
            PyArray1::from_vec(py, self.current).reshape(shape(&[1]))?,
        )?;
        let other_shape = shape(&[form.other_rows(), enc::OTHER_COLUMNS.len()]);
        match form {
            Form::Full => d.set_item(
                "other",
                PyArray1::from_vec(py, self.other).reshape(other_shape)?,
            )?,
            Form::Compact => {
                // Values are small (kinds, seats, window cells, segment indices): int16.
                let kept: Vec<i16> = compact_other
                    .into_iter()
                    .map(|v| v.clamp(i16::MIN as i32, i16::MAX as i32) as i16)
                    .collect();
                d.set_item("other", PyArray1::from_vec(py, kept).reshape(other_shape)?)?
            }
        }
        Ok(d)
    }
}

/// An observation format: "dict", "compact", "array" (compact, one vector) or "flat" (full,
/// one vector).
pub(crate) fn obs_format(format: &str) -> PyResult<(Form, bool)> {
    match format {
        "dict" => Ok((Form::Full, false)),
        "compact" => Ok((Form::Compact, false)),
        "array" => Ok((Form::Compact, true)),
        "flat" => Ok((Form::Full, true)),
        f => Err(PyValueError::new_err(format!(
            "format must be dict, compact, array or flat, not {f:?}"
        ))),
    }
}

/// Runs `f` on every item on `pool`'s threads (persistent: started once per batch, not per
/// call), in contiguous runs of about `n / threads` items so each thread takes few jobs;
/// inline when the pool has one thread. A panic in `f` becomes that item's `Err`, so one
/// failing game never takes the others or the interpreter down.
fn par_each<T: Send, R: Send>(
    pool: &rayon::ThreadPool,
    items: &mut [T],
    f: impl Fn(usize, &mut T) -> R + Sync,
) -> Vec<Result<R, String>> {
    let one = |(i, t): (usize, &mut T)| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(i, t)))
            .map_err(|p| format!("game {i}: the engine failed: {}", panic_message(p.as_ref())))
    };
    let threads = pool.current_num_threads();
    if threads <= 1 || items.len() < 2 {
        return items.iter_mut().enumerate().map(one).collect();
    }
    let per = items.len().div_ceil(threads);
    pool.install(|| {
        items
            .par_iter_mut()
            .enumerate()
            .with_min_len(per)
            .map(one)
            .collect()
    })
}

/// Action ids as int64, from any one-dimensional integer array or sequence (int32 arrays,
/// lists); floats, strings and bools are a `TypeError`, never truncated.
fn int_ids<'py>(py: Python<'py>, ids: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArray1<'py, i64>> {
    let arr = py.import("numpy")?.call_method1("asarray", (ids,))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "step: action ids are integers, not an array of dtype {}",
            arr.getattr("dtype")?.str()?
        )));
    }
    let ndim: usize = arr.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "step: action ids are one-dimensional, not {ndim}-dimensional"
        )));
    }
    arr.call_method1("astype", ("int64",))?.extract()
}

/// One game's step in a batch thread: its rewards and whether it ended, or what failed.
type StepOne = Result<(Vec<f32>, bool), String>;

/// `step`'s (rewards, dones).
type StepResult<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<bool>>);

struct Slot {
    game: Inner,
    episode: u64,
}

/// N games stepped together.
#[pyclass(module = "carcassonne._native", name = "BatchGames")]
pub(crate) struct PyBatch {
    rules: Arc<Ruleset>,
    players: usize,
    seed: u64,
    pool: rayon::ThreadPool,
    slots: Vec<Slot>,
}

fn new_episode(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    n: usize,
    j: usize,
    episode: u64,
) -> Result<Inner, String> {
    let names = (1..=players).map(|i| format!("P{i}")).collect();
    let s = game_seed(seed, episode * n as u64 + j as u64);
    let mut g = Inner::build(Arc::clone(rules), GameSetup::new(names, s))?;
    g.game.set_checkpoints(false);
    Ok(g)
}

#[pymethods]
impl PyBatch {
    #[new]
    #[pyo3(signature = (n, expansions=Vec::new(), options=None, players=2, seed=0, threads=0, plugin_dirs=None))]
    fn new(
        n: i128,
        expansions: Vec<String>,
        options: Option<BTreeMap<String, String>>,
        players: i128,
        seed: i128,
        threads: i128,
        plugin_dirs: Option<Vec<String>>,
    ) -> PyResult<PyBatch> {
        let (n, players, seed): (usize, usize, u64) =
            (nat("n", n)?, nat("players", players)?, nat("seed", seed)?);
        let threads = thread_count(nat("threads", threads)?);
        if n == 0 {
            return Err(err("a batch needs at least one game"));
        }
        names_for(players, None)?;
        let rules = ruleset(
            expansions,
            sorted_options(options),
            self::plugin_dirs(plugin_dirs),
        )?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("batch-{i}"))
            .build()
            .map_err(|e| err(format!("starting {threads} batch threads: {e}")))?;
        let mut b = PyBatch {
            rules,
            players,
            seed,
            pool,
            slots: Vec::new(),
        };
        let mut slots = Vec::with_capacity(n);
        for j in 0..n {
            slots.push(Slot {
                game: new_episode(&b.rules, players, seed, n, j, 0).map_err(err)?,
                episode: 0,
            });
        }
        b.slots = slots;
        Ok(b)
    }

    #[getter]
    fn n(&self) -> usize {
        self.slots.len()
    }

    #[getter]
    fn players(&self) -> usize {
        self.players
    }

    /// Threads of the batch's pool.
    #[getter]
    fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    fn action_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let mut m = vec![false; self.slots.len() * enc::ACTION_SIZE];
        for (s, chunk) in self.slots.iter().zip(m.chunks_mut(enc::ACTION_SIZE)) {
            for &id in &s.game.ids {
                chunk[id as usize] = true;
            }
        }
        PyArray1::from_vec(py, m).reshape([self.slots.len(), enc::ACTION_SIZE])
    }

    fn current_players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(
            py,
            self.slots
                .iter()
                .map(|s| s.game.current().map_or(-1, |p| p as i64)),
        )
    }

    /// Every game's observation, seen by its current player: `format` "dict" (the arrays of
    /// `Game.observation`, with a leading n axis), "compact" (its compact form) or "array" /
    /// "flat" (one float32 row per game, as `Game.observation_array`).
    #[pyo3(signature = (format="dict"))]
    fn observations<'py>(&mut self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        let (form, array) = obs_format(format)?;
        let n = self.slots.len();
        let (pool, slots) = (&self.pool, &self.slots);
        let (obs, failed) = py.detach(|| {
            let mut obs = Obs::new(n);
            let failed = {
                let mut parts = obs.parts();
                par_each(pool, &mut parts, |j, p| {
                    let g = &slots[j].game.game;
                    let seat = slots[j].game.current().unwrap_or(0);
                    p.fill(g, seat);
                })
                .into_iter()
                .find_map(Result::err)
            };
            (obs, failed)
        });
        if let Some(e) = failed {
            return Err(err(e));
        }
        if array {
            obs.into_array(py, form, true)
        } else {
            Ok(obs.into_dict(py, form, true)?.into_any())
        }
    }

    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action_ids: &Bound<'py, PyAny>,
    ) -> PyResult<StepResult<'py>> {
        let action_ids = int_ids(py, action_ids)?;
        let n = self.slots.len();
        if action_ids.len() != n {
            return Err(err(format!(
                "step: {} action ids for {n} games",
                action_ids.len()
            )));
        }
        let ids: Vec<i128> = action_ids
            .as_array()
            .iter()
            .map(|&i| i128::from(i))
            .collect();
        // Check every id first, so an illegal one steps no game.
        let mut index = Vec::with_capacity(n);
        for (j, (s, &id)) in self.slots.iter().zip(&ids).enumerate() {
            index.push(
                s.game
                    .index_of(id)
                    .map_err(|e| IllegalAction::new_err(format!("game {j}: {}", e.value(py))))?,
            );
        }
        let (players, seed) = (self.players, self.seed);
        let rules = Arc::clone(&self.rules);
        let pool = &self.pool;
        let results: Vec<Result<StepOne, String>> = py.detach(|| {
            par_each(pool, &mut self.slots, |j, s| {
                let before = s.game.scores();
                let a = s.game.game.actions()[index[j]];
                let r =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.game.game.apply(a)));
                match r {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => return Err(format!("game {j}: {e}")),
                    Err(_) => return Err(format!("game {j}: the engine failed")),
                }
                s.game.actions.push(a);
                s.game.sync().map_err(|e| format!("game {j}: {e}"))?;
                let after = s.game.scores();
                let reward: Vec<f32> = after
                    .iter()
                    .zip(&before)
                    .map(|(a, b)| (a - b) as f32)
                    .collect();
                let done = s.game.game.is_over();
                if done {
                    s.episode += 1;
                    s.game = new_episode(&rules, players, seed, n, j, s.episode)
                        .map_err(|e| format!("game {j}: new episode: {e}"))?;
                }
                Ok((reward, done))
            })
        });
        let mut rewards = Vec::with_capacity(n * players);
        let mut dones = Vec::with_capacity(n);
        for r in results {
            let (rw, d) = r.and_then(|r| r).map_err(err)?;
            rewards.extend(rw);
            dones.push(d);
        }
        Ok((
            PyArray1::from_vec(py, rewards).reshape([n, players])?,
            PyArray1::from_vec(py, dones),
        ))
    }

    #[pyo3(signature = (bot="random", seed=0))]
    fn bot_actions<'py>(
        &mut self,
        py: Python<'py>,
        bot: &str,
        seed: i128,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let seed: u64 = nat("seed", seed)?;
        let spec = parse_bot(bot).map_err(err)?;
        let pool = &self.pool;
        let picks = py.detach(|| {
            par_each(pool, &mut self.slots, |j, s| {
                if s.game.game.is_over() {
                    return -1;
                }
                let i = spec
                    .build(game_seed(
                        seed,
                        j as u64 + s.game.actions.len() as u64 * 1_000_003,
                    ))
                    .choose(&s.game.game);
                s.game.id_of(i).map_or(-1, i64::from)
            })
        });
        let picks = picks
            .into_iter()
            .collect::<Result<Vec<i64>, String>>()
            .map_err(err)?;
        Ok(PyArray1::from_vec(py, picks))
    }

    fn game(&self, j: i128) -> PyResult<PyGame> {
        let s = usize::try_from(j)
            .ok()
            .and_then(|j| self.slots.get(j))
            .ok_or_else(|| {
                PyValueError::new_err(format!("game {j} of a batch of {}", self.slots.len()))
            })?;
        Ok(PyGame {
            inner: s.game.clone(),
        })
    }
}

fn sim_config(
    bots: Vec<String>,
    games: u64,
    players: usize,
    seed: u64,
    threads: usize,
) -> SimConfig {
    SimConfig {
        games,
        players,
        seed,
        bots,
        threads: thread_count(threads),
    }
}

#[pyfunction]
#[pyo3(signature = (bots, games, expansions=Vec::new(), options=None, players=2, seed=0, start=0, threads=0, plugin_dirs=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_games<'py>(
    py: Python<'py>,
    bots: Vec<String>,
    games: i128,
    expansions: Vec<String>,
    options: Option<BTreeMap<String, String>>,
    players: i128,
    seed: i128,
    start: i128,
    threads: i128,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyList>> {
    let (games, players, seed, start, threads): (u64, usize, u64, u64, usize) = (
        nat("games", games)?,
        nat("players", players)?,
        nat("seed", seed)?,
        nat("start", start)?,
        nat("threads", threads)?,
    );
    let rules = ruleset(
        expansions,
        sorted_options(options),
        self::plugin_dirs(plugin_dirs),
    )?;
    let cfg = sim_config(bots.clone(), games, players, seed, threads);
    let outcomes = py.detach(|| {
        guarded("play_games", || {
            arena_games(&rules, &cfg, start, games, &|_| {}).map_err(err)
        })
    })?;
    let out = PyList::empty(py);
    for o in outcomes {
        let d = PyDict::new(py);
        d.set_item("index", o.index)?;
        d.set_item("seed", o.seed)?;
        let seated: Vec<&str> = (0..players)
            .map(|p| bots[lineup(bots.len(), players, o.index, p)].as_str())
            .collect();
        d.set_item("bots", seated)?;
        d.set_item("scores", o.scores)?;
        d.set_item("turns", o.turns)?;
        out.append(d)?;
    }
    Ok(out)
}

#[pyfunction]
#[pyo3(signature = (results, bots, players, seed, expansions=Vec::new(), options=None, plugin_dirs=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn arena_report<'py>(
    py: Python<'py>,
    results: Vec<Bound<'py, PyDict>>,
    bots: Vec<String>,
    players: i128,
    seed: i128,
    expansions: Vec<String>,
    options: Option<BTreeMap<String, String>>,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (players, seed): (usize, u64) = (nat("players", players)?, nat("seed", seed)?);
    let rules = ruleset(
        expansions,
        sorted_options(options),
        self::plugin_dirs(plugin_dirs),
    )?;
    let mut outcomes = Vec::with_capacity(results.len());
    for r in &results {
        let get = |k: &str| -> PyResult<Bound<'py, PyAny>> {
            r.get_item(k)?
                .ok_or_else(|| err(format!("a result without `{k}`")))
        };
        let scores: Vec<i32> = get("scores")?.extract()?;
        if scores.len() != players {
            return Err(err(format!(
                "a result with {} scores in a {players}-player report",
                scores.len()
            )));
        }
        outcomes.push(Outcome {
            index: get("index")?.extract()?,
            seed: get("seed")?.extract()?,
            scores,
            turns: get("turns")?.extract()?,
        });
    }
    let cfg = sim_config(bots, outcomes.len() as u64, players, seed, 1);
    carcassonne_play::arena::check_arena(&cfg).map_err(err)?;
    let report = guarded("arena_report", || {
        Ok(play_arena_report(&rules, &cfg, &outcomes))
    })?;
    json_to_py(py, &serde_json::to_string(&report).map_err(err)?)
}

#[pyfunction]
#[pyo3(signature = (bots=vec!["random".to_string()], games=100, expansions=Vec::new(), options=None, players=2, seed=0, threads=0, plugin_dirs=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    bots: Vec<String>,
    games: i128,
    expansions: Vec<String>,
    options: Option<BTreeMap<String, String>>,
    players: i128,
    seed: i128,
    threads: i128,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (games, players, seed, threads): (u64, usize, u64, usize) = (
        nat("games", games)?,
        nat("players", players)?,
        nat("seed", seed)?,
        nat("threads", threads)?,
    );
    if games == 0 {
        return Err(err("games must be at least 1"));
    }
    names_for(players, None)?;
    for b in &bots {
        parse_bot(b).map_err(err)?;
    }
    let rules = ruleset(
        expansions,
        sorted_options(options),
        self::plugin_dirs(plugin_dirs),
    )?;
    let cfg = sim_config(bots, games, players, seed, threads);
    let summary = py.detach(|| {
        guarded("simulate", || {
            play_simulate::<PlayError>(&rules, &cfg, &|_| {}, &|_| Ok(())).map_err(err)
        })
    })?;
    json_to_py(py, &serde_json::to_string(&summary).map_err(err)?)
}
