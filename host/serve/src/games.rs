//! Live games: each behind its own lock, written to disk as its record after every action,
//! resumed on start by replaying the records; bots play their seats on blocking threads.

use crate::delta::{DrawnBoard, Stamps};
use crate::store::{self, Seat, SeatsFile};
use crate::view::{cell_of, named, place_names, player_names, position, position_parts};
use crate::{ApiError, Config};
use axum::http::StatusCode;
use carcassonne_core::{Action, ActionError, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{parse_bot, BotSpec};
use carcassonne_play::mcts::Budget;
use carcassonne_play::record::{decode_action, encode_action, Record, RecordAction};
use carcassonne_rules::{build_ruleset, list_expansions, RulesSpec};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// A seat as asked for when creating a game.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// Name (default `Player N`).
    #[serde(default)]
    pub name: Option<String>,
    /// Bot spec (`random`, `greedy`, `mcts[:N]`); absent for a human.
    #[serde(default)]
    pub bot: Option<String>,
}

/// Body of `POST /api/games`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    /// Expansion ids beyond the base game.
    #[serde(default)]
    pub expansions: Vec<String>,
    /// Option values (`key: value`); missing ones take their defaults.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// 2–6 seats.
    pub seats: Vec<SeatSpec>,
    /// RNG seed (random when absent).
    #[serde(default)]
    pub seed: Option<u64>,
}

struct Live {
    game: Game,
    record: Record,
    seats: Vec<Seat>,
    version: u64,
    broken: Option<String>,
    driving: bool,
    /// Who created it (client address), if known.
    creator: Option<String>,
    /// The creator chose the seed.
    fixed_seed: bool,
    /// When a person last acted (or the game was created or resumed): idle games are
    /// archived.
    last_human: Instant,
}

impl Live {
    fn new(game: Game, record: Record, file: SeatsFile) -> Live {
        Live {
            version: record.actions.len() as u64,
            game,
            record,
            seats: file.seats,
            broken: None,
            driving: false,
            creator: file.creator,
            fixed_seed: file.fixed_seed,
            last_human: Instant::now(),
        }
    }

    fn seats_file(&self) -> SeatsFile {
        SeatsFile {
            seats: self.seats.clone(),
            creator: self.creator.clone(),
            fixed_seed: self.fixed_seed,
        }
    }
}

/// One game behind its own lock.
pub struct GameSlot {
    id: String,
    live: Mutex<Live>,
    tx: broadcast::Sender<u64>,
    subscribers: AtomicUsize,
    /// The view of the last state asked for, shared by every viewer (see [`CachedView`]).
    cache: Mutex<Option<CachedView>>,
    /// Held while a view is drawn, so that viewers arriving together draw it once; holds
    /// when each cell of the board last changed (for deltas).
    drawing: Mutex<Stamps>,
    /// The version whose record is on disk (`u64::MAX` once archived). Records are written
    /// outside the game's lock (a synced write takes milliseconds, and viewers and the bot
    /// would wait for it), one at a time, never an older over a newer one.
    saved: Mutex<u64>,
}

/// A record to write: the version it holds and its text.
struct Save(u64, String);

/// A view drawn once per state of a game: drawing a large board takes tens of
/// milliseconds, and every open page asks for it after every move.
struct CachedView {
    /// What the view shows besides the seat asking (see [`view_key`]).
    key: String,
    /// The view as JSON text without its board and closing brace: the board (whole or
    /// since a version) and the seat-specific fields are appended to it.
    body: Arc<str>,
    board: Arc<DrawnBoard>,
}

/// Everything a view shows besides the seat asking: the game changes only with its version;
/// a stop, a resignation or a bot taking a seat change none.
fn view_key(live: &Live) -> String {
    let seats: Vec<(&Option<String>, bool)> =
        live.seats.iter().map(|s| (&s.bot, s.resigned)).collect();
    format!("{}|{:?}|{:?}", live.version, live.broken, seats)
}

/// What `GET /api/games/{id}` answers.
pub enum ViewReply {
    /// The asker already has this view (its `If-None-Match` names the current tag).
    Unchanged(String),
    /// The view (JSON text) and its entity tag.
    Fresh(String, String),
}

/// The entity tag of a view: the game's state and the seat asking (`w`: a spectator, `u`: a
/// token that holds no seat).
fn etag(key: &str, you: Option<usize>, unknown: bool, since: Option<u64>) -> String {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same state gives the same tag, even after a restart.
    let mut h = std::hash::DefaultHasher::new();
    key.hash(&mut h);
    let version = key.split('|').next().unwrap_or("0");
    let who = match (you, unknown) {
        (Some(s), _) => s.to_string(),
        (None, true) => "u".into(),
        (None, false) => "w".into(),
    };
    // A delta is another answer than the whole view: its own tag.
    let since = since.map_or_else(String::new, |n| format!("-d{n}"));
    format!("\"{version}-{:016x}-{who}{since}\"", h.finish())
}

impl GameSlot {
    fn new(id: &str, live: Live) -> GameSlot {
        GameSlot {
            saved: Mutex::new(live.version),
            id: id.to_string(),
            live: Mutex::new(live),
            tx: broadcast::channel(64).0,
            subscribers: AtomicUsize::new(0),
            cache: Mutex::new(None),
            drawing: Mutex::new(Stamps::default()),
        }
    }
}

/// An event-stream subscription (counted against the per-game limit).
pub struct Subscription {
    pub rx: broadcast::Receiver<u64>,
    slot: Arc<GameSlot>,
}

impl Subscription {
    /// Whether the game is stopped (`broken`).
    pub fn broken(&self) -> bool {
        lock(&self.slot.live).broken.is_some()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.slot.subscribers.fetch_sub(1, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn last_move(live: &Live) -> Value {
    match live.record.actions.last() {
        None => Value::Null,
        Some(a) => {
            let player = a.player();
            let mut v = json!({ "seat": player, "label": named(
                    a.to_string(),
                    &place_names(&live.game),
                    &player_names(&live.game),
                ), "text": crate::view::said(&live.game, a) });
            if let Some((x, y)) = cell_of(a) {
                v["x"] = json!(x);
                v["y"] = json!(y);
            }
            v
        }
    }
}

impl GameSlot {
    /// The page's view; `token` tells which seat is asking (none: a spectator).
    /// `if_none_match` is the tag of the view the asker has: if it is still the current
    /// one, the view is not sent again. The view of a state is drawn once, then served
    /// from the cache to every viewer.
    /// With `since` (the version the page shows), the board is sent as what changed since
    /// then when it can be (`delta.rs`), else whole.
    /// Also says whether a view was drawn (see [`Games::view`]).
    fn view(
        &self,
        token: Option<&str>,
        if_none_match: Option<&str>,
        since: Option<u64>,
    ) -> (ViewReply, bool) {
        let (key, you) = {
            let live = lock(&self.live);
            let you = token.and_then(|t| {
                live.seats
                    .iter()
                    .position(|s| s.token.as_deref() == Some(t))
            });
            (view_key(&live), you)
        };
        // A token that holds no seat is told so (the page shows it), not taken for a
        // spectator.
        let unknown = token.is_some() && you.is_none();
        let tag = etag(&key, you, unknown, since);
        if if_none_match.is_some_and(|m| m.split(',').any(|t| t.trim() == tag)) {
            return (ViewReply::Unchanged(tag), false);
        }
        let (key, body, board, drawn) = self.cached_view();
        let since = since.filter(|&n| board.covers(n));
        // The game may have moved on while the view was drawn: tag what is sent.
        let tag = etag(&key, you, unknown, since);
        let you = you.map_or_else(|| "null".to_string(), |s| s.to_string());
        let mut text = board.after(&body, since);
        text.push_str(&format!(",\"you\":{you},\"token_unknown\":{unknown}}}\n"));
        (ViewReply::Fresh(text, tag), drawn)
    }

    /// The view of the current state without the seat-specific fields (see [`CachedView`]):
    /// from the cache, or drawn outside the game's lock (bots and players act meanwhile).
    fn cached_view(&self) -> (String, Arc<str>, Arc<DrawnBoard>, bool) {
        let mut stamps = lock(&self.drawing);
        let (key, version, game, mut v) = {
            let live = lock(&self.live);
            let key = view_key(&live);
            if let Some(c) = lock(&self.cache).as_ref().filter(|c| c.key == key) {
                return (key, Arc::clone(&c.body), Arc::clone(&c.board), false);
            }
            let v = json!({
                "id": self.id,
                "version": live.version,
                "moves": live.record.actions.len(),
                "broken": live.broken,
                "last": last_move(&live),
                "fixed_seed": live.fixed_seed,
                "seats": live
                    .seats
                    .iter()
                    .map(|s| json!({ "name": s.name, "bot": s.bot, "resigned": s.resigned }))
                    .collect::<Vec<_>>(),
                "options": live.record.setup.options,
                "expansions": live
                    .record
                    .setup
                    .expansions
                    .iter()
                    .map(|e| e.id.clone())
                    .collect::<Vec<_>>(),
            });
            (key, live.version, live.game.clone(), v)
        };
        let (mut full, board) = position_parts(&game, true);
        let board = Arc::new(stamps.note(version, &board));
        if let (Some(full), Some(extra)) = (full.as_object_mut(), v.as_object_mut()) {
            full.append(extra);
        }
        let mut text = serde_json::to_string(&full).unwrap_or_else(|_| "{}".into());
        // `position` gives an object: its text ends with its closing brace.
        text.pop();
        let body: Arc<str> = Arc::from(text);
        *lock(&self.cache) = Some(CachedView {
            key: key.clone(),
            body: Arc::clone(&body),
            board: Arc::clone(&board),
        });
        (key, body, board, true)
    }

    /// The board after the offered tile placement `index` (on a copy: the game is
    /// unchanged), to preview a placement before confirming it.
    pub fn preview(&self, index: usize, version: Option<u64>) -> Result<Value, ApiError> {
        let mut game = {
            let live = lock(&self.live);
            if version.is_some_and(|v| v != live.version) {
                return Err(conflict("the game moved on; reload"));
            }
            match live.game.actions().get(index) {
                Some(Action::Place { .. }) => {}
                _ => {
                    return Err(bad(format!(
                        "action {index} is not an offered tile placement"
                    )))
                }
            }
            live.game.clone()
        };
        match catch_unwind(AssertUnwindSafe(|| game.apply_offered(index))) {
            Ok(Ok(())) => {}
            _ => {
                return Err(ApiError(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "cannot preview this placement".into(),
                ))
            }
        }
        let opts = carcassonne_render::RenderOptions {
            tile_size: crate::view::TILE_SIZE,
            caption: None,
            order_numbers: false,
        };
        Ok(json!({ "board": carcassonne_render::render_svg(&game, &opts) }))
    }

    /// The record as JSON text. Before the game ends, without its seed: the draws follow
    /// from the seed alone, so whoever had it would know every tile to come.
    pub fn record_json(&self) -> String {
        let live = lock(&self.live);
        let mut v = serde_json::to_value(&live.record).unwrap_or(Value::Null);
        if !live.game.is_over() {
            v["setup"]["seed"] = Value::Null;
            v["seed_hidden"] = json!("the seed is shown when the game ends");
        }
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }

    /// Current version (number of actions applied).
    pub fn version(&self) -> u64 {
        lock(&self.live).version
    }

    /// Subscribes to updates (the new version after each action).
    pub fn subscribe(self: &Arc<Self>, max: usize) -> Result<Subscription, ApiError> {
        if self.subscribers.fetch_add(1, Ordering::SeqCst) >= max {
            self.subscribers.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError(
                StatusCode::TOO_MANY_REQUESTS,
                format!("too many event streams on this game (at most {max})"),
            ));
        }
        Ok(Subscription {
            rx: self.tx.subscribe(),
            slot: Arc::clone(self),
        })
    }
}

struct Replay {
    record: Record,
    rules: Arc<Ruleset>,
}

/// All games of the server.
pub struct Games {
    cfg: Config,
    dir: PathBuf,
    map: RwLock<BTreeMap<String, Arc<GameSlot>>>,
    rules: Mutex<BTreeMap<String, Arc<Ruleset>>>,
    replays: Mutex<VecDeque<(String, Arc<Replay>)>>,
    runtime: tokio::runtime::Handle,
    me: Weak<Games>,
    /// Games found on disk but not resumed, each with why (naming the file at fault).
    not_resumed: Mutex<Vec<String>>,
    /// The games holding a cached view, the most recently drawn last (see [`Games::view`]).
    cached: Mutex<VecDeque<Weak<GameSlot>>>,
}

/// Most games whose view is kept drawn (a late-game view is about 150 KB; the server keeps
/// up to `max_games` games).
const MAX_CACHED_VIEWS: usize = 256;

fn random_hex(bytes: usize) -> String {
    let mut rng = ChaCha20Rng::from_os_rng();
    let mut buf = vec![0u8; bytes];
    rng.fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The seat a token holds in this game (403 when it holds none).
fn seat_of(live: &Live, token: &str) -> Result<usize, ApiError> {
    live.seats
        .iter()
        .position(|s| s.token.as_deref() == Some(token))
        .ok_or_else(|| {
            ApiError(
                StatusCode::FORBIDDEN,
                "this token holds no seat in this game".into(),
            )
        })
}

fn conflict(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::CONFLICT, msg.into())
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

/// Bots people may seat: no more than 20 000 playouts or 10 s a decision, 4 threads.
fn check_bot(spec: &str) -> Result<(), ApiError> {
    match parse_bot(spec).map_err(bad)? {
        BotSpec::Mcts(cfg) => {
            let ok = match cfg.budget {
                Budget::Iterations(n) => n <= 20_000,
                Budget::Time(t) => t <= Duration::from_secs(10),
            };
            if !ok || cfg.threads > 4 {
                return Err(bad(format!(
                    "bot `{spec}` is too strong for this server (at most 20000 playouts or 10s, 4 threads)"
                )));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn option_text(v: &Value) -> Result<String, ApiError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(bad("option values must be strings, numbers or booleans")),
    }
}

impl Games {
    /// Opens the data folder and resumes every game in it.
    pub fn open(cfg: &Config) -> Result<Arc<Games>, String> {
        let dir = cfg.data_dir.join("games");
        store::private_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| "the server must start inside a tokio runtime".to_string())?;
        let games = Arc::new_cyclic(|me| Games {
            cfg: cfg.clone(),
            dir: dir.clone(),
            map: RwLock::new(BTreeMap::new()),
            rules: Mutex::new(BTreeMap::new()),
            replays: Mutex::new(VecDeque::new()),
            runtime,
            me: me.clone(),
            not_resumed: Mutex::new(Vec::new()),
            cached: Mutex::new(VecDeque::new()),
        });
        let mut ids: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name.strip_suffix(".seats.json").map(str::to_string)
            })
            .filter(|id| valid_id(id))
            .collect();
        ids.sort();
        games.start_sweeper();
        for id in ids {
            match games.resume(&id) {
                Ok(slot) => {
                    games
                        .map
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(id, Arc::clone(&slot));
                    games.kick(slot);
                }
                Err(e) => {
                    eprintln!("carcassonne serve: game {id} not resumed: {e}");
                    lock(&games.not_resumed).push(format!("game {id} not resumed: {e}"));
                }
            }
        }
        Ok(games)
    }

    /// Reads a game back; every error names the file at fault.
    fn resume(&self, id: &str) -> Result<Arc<GameSlot>, String> {
        let [record_path, seats_path] = store::files(&self.dir, id);
        let file = store::load_seats(&seats_path)?;
        // `Record::load` names the file in its errors.
        let record = Record::load(&record_path).map_err(|e| e.to_string())?;
        let rules = self
            .ruleset(&record.rules_spec())
            .map_err(|e| format!("{}: {}", record_path.display(), e.1))?;
        let game = record
            .replay_with(&rules, &record_path.display().to_string(), None)
            .map_err(|e| e.to_string())?;
        if file.seats.len() != game.state().players().len() {
            return Err(format!(
                "{}: {} seats, but its record {} has {} players",
                seats_path.display(),
                file.seats.len(),
                record_path.display(),
                game.state().players().len()
            ));
        }
        // Keep the files private even if an older server wrote them readable by all.
        for p in [&record_path, &seats_path] {
            if let Ok(text) = std::fs::read_to_string(p) {
                let _ = store::write_private(p, &text);
            }
        }
        Ok(Arc::new(GameSlot::new(id, Live::new(game, record, file))))
    }

    fn ruleset(&self, spec: &RulesSpec) -> Result<Arc<Ruleset>, ApiError> {
        let mut spec = spec.clone();
        spec.plugin_dirs = self.cfg.plugin_dirs.clone();
        let key = format!("{:?}|{:?}", spec.expansions, spec.options);
        if let Some(r) = lock(&self.rules).get(&key) {
            return Ok(Arc::clone(r));
        }
        let rules = build_ruleset(&spec).map_err(|e| bad(e.to_string()))?;
        let mut cache = lock(&self.rules);
        if cache.len() >= 64 {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&rules));
        Ok(rules)
    }

    /// A game's view for `GET /api/games/{id}` (see [`GameSlot::view`]). Only the
    /// [`MAX_CACHED_VIEWS`] games drawn last keep theirs: the others are drawn again when
    /// next asked.
    pub fn view(
        &self,
        slot: &Arc<GameSlot>,
        token: Option<&str>,
        if_none_match: Option<&str>,
        since: Option<u64>,
    ) -> ViewReply {
        let (reply, drawn) = slot.view(token, if_none_match, since);
        if drawn {
            let mut cached = lock(&self.cached);
            cached.retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(slot)));
            cached.push_back(Arc::downgrade(slot));
            while cached.len() > MAX_CACHED_VIEWS {
                if let Some(old) = cached.pop_front().and_then(|w| w.upgrade()) {
                    *lock(&old.cache) = None;
                }
            }
        }
        reply
    }

    /// Why each game found on disk but not resumed was not.
    pub fn not_resumed(&self) -> Vec<String> {
        lock(&self.not_resumed).clone()
    }

    /// Empties the ruleset cache: the next game built reads its expansions again (after a
    /// watched folder changed). Running games keep theirs.
    pub fn forget_rulesets(&self) {
        lock(&self.rules).clear();
    }

    /// Ids of all games.
    pub fn ids(&self) -> Vec<String> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// A game by id; 410 for an archived one, 404 for an unknown one.
    pub fn get(&self, id: &str) -> Result<Arc<GameSlot>, ApiError> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.get(id).cloned().ok_or_else(|| {
            if valid_id(id) && store::files(&self.archive_dir(), id)[0].exists() {
                return ApiError(
                    StatusCode::GONE,
                    format!("game `{id}` was archived: it waited too long for a player, or every player resigned"),
                );
            }
            ApiError(
                StatusCode::NOT_FOUND,
                format!("no game `{}`", id.chars().take(64).collect::<String>()),
            )
        })
    }

    /// Every game: id, players, whether finished (no tokens).
    pub fn summaries(&self) -> Value {
        let slots: Vec<Arc<GameSlot>> = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        Value::Array(
            slots
                .iter()
                .map(|s| {
                    let live = lock(&s.live);
                    json!({
                        "id": s.id,
                        "players": live.seats.iter().map(|s| &s.name).collect::<Vec<_>>(),
                        "moves": live.record.actions.len(),
                        "finished": live.game.is_over(),
                    })
                })
                .collect(),
        )
    }

    /// The expansions and options one can pick, and the bots.
    pub fn expansions(&self) -> Result<Value, ApiError> {
        let list = list_expansions(&self.cfg.plugin_dirs).map_err(|e| bad(e.to_string()))?;
        Ok(json!({
            "expansions": list,
            "bots": ["random", "greedy", "mcts:200", "mcts:1000", "mcts:5000"],
            "seats": { "min": 2, "max": 6 },
        }))
    }

    /// Creates a game for `creator` (a client address, see `Creator`).
    pub fn create(&self, req: CreateRequest, creator: &str) -> Result<Value, ApiError> {
        if !(2..=6).contains(&req.seats.len()) {
            return Err(bad(format!(
                "a game has 2 to 6 seats, not {}",
                req.seats.len()
            )));
        }
        if req.expansions.len() > 64 || req.options.len() > 256 {
            return Err(bad("too many expansions or options"));
        }
        self.make_room(creator)?;
        let mut seats = Vec::new();
        for (i, s) in req.seats.iter().enumerate() {
            if let Some(b) = &s.bot {
                check_bot(b)?;
            }
            let name = match s.name.as_deref().map(str::trim) {
                Some(n) if !n.is_empty() => n.to_string(),
                _ => match &s.bot {
                    Some(b) => format!("{b} bot {}", i + 1),
                    None => format!("Player {}", i + 1),
                },
            };
            if name.chars().count() > 40 || name.chars().any(char::is_control) {
                return Err(bad(format!(
                    "seat {i}: a name is at most 40 printable characters"
                )));
            }
            if !store::visible_name(&name) {
                return Err(bad(format!(
                    "seat {i}: a name must show at least one visible character"
                )));
            }
            if seats.iter().any(|o: &Seat| o.name == name) {
                return Err(bad(format!("seat {i}: the name `{name}` is taken")));
            }
            seats.push(Seat {
                name,
                bot: s.bot.clone(),
                token: s.bot.is_none().then(|| random_hex(16)),
                resigned: false,
            });
        }
        let mut options = Vec::new();
        for (k, v) in &req.options {
            options.push((k.clone(), option_text(v)?));
        }
        let spec = RulesSpec {
            expansions: req.expansions.clone(),
            options,
            plugin_dirs: Vec::new(),
        };
        let rules = self.ruleset(&spec)?;
        // The OS's randomness, unless the creator fixes the seed (tests, a game to repeat):
        // then the page says the draws are known to the creator.
        let seed = req
            .seed
            .unwrap_or_else(|| ChaCha20Rng::from_os_rng().next_u64());
        let file = SeatsFile {
            seats,
            creator: Some(creator.to_string()),
            fixed_seed: req.seed.is_some(),
        };
        let setup = GameSetup::new(file.seats.iter().map(|s| s.name.clone()).collect(), seed);
        let game = Game::new(Arc::clone(&rules), &setup).map_err(|e| bad(e.to_string()))?;
        let record = Record::with_setup(&game, &setup, &[]).map_err(|e| bad(e.to_string()))?;
        let id = random_hex(8);
        let seats_text = serde_json::to_string_pretty(&file).unwrap_or_default();
        let fail = |e: std::io::Error| {
            ApiError(
                StatusCode::INSUFFICIENT_STORAGE,
                format!("cannot write the game: {e}"),
            )
        };
        let [record_path, seats_path] = store::files(&self.dir, &id);
        store::write_private(
            &record_path,
            &serde_json::to_string_pretty(&record).unwrap_or_default(),
        )
        .map_err(fail)?;
        store::write_private(&seats_path, &seats_text).map_err(fail)?;
        let out = json!({
            "id": id,
            "seed": file.fixed_seed.then_some(seed),
            "seats": file.seats.iter().enumerate().map(|(i, s)| json!({
                "seat": i,
                "name": s.name,
                "bot": s.bot,
                "token": s.token,
                "link": s.token.as_ref().map(|t| format!("/?game={id}&token={t}")),
            })).collect::<Vec<_>>(),
            "watch": format!("/?game={id}"),
        });
        let slot = Arc::new(GameSlot::new(&id, Live::new(game, record, file)));
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Arc::clone(&slot));
        self.kick(slot);
        Ok(out)
    }

    /// Applies a seat's action (by index or record form).
    pub fn act(
        &self,
        slot: &Arc<GameSlot>,
        token: &str,
        index: Option<usize>,
        action: Option<&Value>,
        version: Option<u64>,
    ) -> Result<Value, ApiError> {
        {
            let mut live = lock(&slot.live);
            let seat = seat_of(&live, token)?;
            if let Some(b) = &live.broken {
                return Err(conflict(format!("this game is broken: {b}")));
            }
            if live.game.is_over() {
                return Err(conflict("the game is over"));
            }
            let current = live.game.decision().player.index();
            if current != seat {
                return Err(ApiError(
                    StatusCode::FORBIDDEN,
                    format!("it is not your turn: {}", live.game.describe_decision()),
                ));
            }
            if let Some(v) = version {
                if v != live.version {
                    return Err(conflict(format!(
                        "the game moved on (version {} now, not {v}); reload",
                        live.version
                    )));
                }
            }
            let a = match (index, action) {
                (Some(i), None) => *live.game.actions().get(i).ok_or_else(|| {
                    bad(format!(
                        "no legal action {i} ({} are offered)",
                        live.game.action_count()
                    ))
                })?,
                (None, Some(v)) => {
                    let ra: RecordAction = serde_json::from_value(v.clone())
                        .map_err(|e| bad(format!("malformed action: {e}")))?;
                    decode_action(live.game.rules(), &live.game, &ra)
                        .map_err(|e| bad(format!("illegal action: {e}")))?
                }
                _ => return Err(bad("give exactly one of `index` and `action`")),
            };
            let save = self.apply(slot, &mut live, a)?;
            live.last_human = Instant::now();
            drop(live);
            // The record is written after the answer: a write, even unsynced, waits for a
            // disk shared with other work (up to 200 ms under the load test on this
            // machine, most of a move's p99). A server killed meanwhile resumes the game
            // from its previous record, which stays whole; the page reloads.
            if let Some(games) = self.me.upgrade() {
                let slot = Arc::clone(slot);
                self.runtime.spawn_blocking(move || games.save(&slot, save));
            } else {
                self.save(slot, save);
            }
        }
        self.kick(Arc::clone(slot));
        Ok(json!({ "ok": true, "version": slot.version() }))
    }

    fn archive_dir(&self) -> PathBuf {
        self.cfg.data_dir.join("archive")
    }

    /// Refuses a new game when its creator already has as many in progress as allowed; when
    /// the server keeps as many games as it may, archives the finished one idle longest.
    fn make_room(&self, creator: &str) -> Result<(), ApiError> {
        let limits = &self.cfg.limits;
        let slots: Vec<Arc<GameSlot>> = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        let mut mine = 0;
        let mut oldest_finished: Option<(Instant, Arc<GameSlot>)> = None;
        for slot in &slots {
            let live = lock(&slot.live);
            if live.game.is_over() {
                if oldest_finished
                    .as_ref()
                    .is_none_or(|(t, _)| live.last_human < *t)
                {
                    oldest_finished = Some((live.last_human, Arc::clone(slot)));
                }
            } else if live.creator.as_deref() == Some(creator) {
                mine += 1;
            }
        }
        if mine >= limits.max_open_per_creator {
            return Err(ApiError(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "you have {mine} games in progress (at most {}); finish or resign one, or wait until an idle one is archived",
                    limits.max_open_per_creator
                ),
            ));
        }
        if slots.len() >= limits.max_games {
            match oldest_finished {
                Some((_, slot)) => self.archive(&slot, "archived to make room"),
                None => {
                    return Err(ApiError(
                        StatusCode::TOO_MANY_REQUESTS,
                        format!("the server keeps at most {} games", limits.max_games),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Takes a game out of play: its files move to `archive/`, its pages are told.
    fn archive(&self, slot: &GameSlot, why: &str) {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&slot.id);
        // The last record goes with the files; none is written after they moved (see
        // `GameSlot::saved`).
        let mut saved = lock(&slot.saved);
        let last = {
            let live = lock(&slot.live);
            (live.version > *saved).then(|| {
                Save(
                    live.version,
                    serde_json::to_string_pretty(&live.record).unwrap_or_default(),
                )
            })
        };
        if let Some(Save(_, text)) = last {
            self.write_record(&slot.id, &text);
        }
        *saved = u64::MAX;
        drop(saved);
        if let Err(e) = store::archive(&self.dir, &self.archive_dir(), &slot.id) {
            eprintln!(
                "carcassonne serve: game {}: cannot archive it: {e}",
                slot.id
            );
        }
        let mut live = lock(&slot.live);
        live.broken = Some(why.to_string());
        let _ = slot.tx.send(live.version);
    }

    /// Archives every unfinished game no person has acted in for `archive_after`.
    pub fn sweep(&self) {
        let idle = self.cfg.limits.archive_after;
        let slots: Vec<Arc<GameSlot>> = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for slot in slots {
            let stale = {
                let live = lock(&slot.live);
                !live.game.is_over() && live.last_human.elapsed() >= idle
            };
            if stale {
                self.archive(&slot, "archived: no player acted for too long");
            }
        }
    }

    /// Checks for idle games now and then, as long as the server runs.
    fn start_sweeper(&self) {
        let me = self.me.clone();
        let every = (self.cfg.limits.archive_after / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(60));
        self.runtime.spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let Some(games) = me.upgrade() else { break };
                let _ = tokio::task::spawn_blocking(move || games.sweep()).await;
            }
        });
    }

    /// The seat of `token` resigns: a greedy bot plays it from now on. When no person is
    /// left, the game is archived.
    pub fn resign(&self, slot: &Arc<GameSlot>, token: &str) -> Result<Value, ApiError> {
        let nobody_left = {
            let mut live = lock(&slot.live);
            let seat = seat_of(&live, token)?;
            if live.game.is_over() {
                return Err(conflict("the game is over"));
            }
            let s = &mut live.seats[seat];
            s.bot = Some("greedy".into());
            s.token = None;
            s.resigned = true;
            let text = serde_json::to_string_pretty(&live.seats_file()).unwrap_or_default();
            store::write_private(&store::files(&self.dir, &slot.id)[1], &text).map_err(|e| {
                ApiError(
                    StatusCode::INSUFFICIENT_STORAGE,
                    format!("cannot write the game: {e}"),
                )
            })?;
            live.last_human = Instant::now();
            let _ = slot.tx.send(live.version);
            live.seats.iter().all(|s| s.token.is_none())
        };
        if nobody_left {
            self.archive(slot, "archived: every player resigned");
        } else {
            self.kick(Arc::clone(slot));
        }
        Ok(json!({ "ok": true, "archived": nobody_left }))
    }

    /// Applies an action to a locked game, tells the subscribers; gives the record to write
    /// once the lock is released (see [`Games::save`]).
    fn apply(&self, slot: &GameSlot, live: &mut Live, a: Action) -> Result<Save, ApiError> {
        let ra = encode_action(live.game.rules(), &live.game, a);
        let res = catch_unwind(AssertUnwindSafe(|| live.game.apply(a)));
        match res {
            Err(_) => {
                live.broken = Some("the engine panicked".into());
                let _ = slot.tx.send(live.version);
                return Err(ApiError(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "the engine failed on this action; the game is stopped".into(),
                ));
            }
            Ok(Err(ActionError::Hook(e))) => {
                live.broken = Some(e.to_string());
                let _ = slot.tx.send(live.version);
                return Err(ApiError(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("an expansion failed: {e}; the game is stopped"),
                ));
            }
            Ok(Err(e)) => return Err(bad(format!("illegal action: {e}"))),
            Ok(Ok(())) => {}
        }
        live.record.actions.push(ra);
        live.version += 1;
        if live.game.is_over() {
            live.record.result = Some(
                live.game
                    .state()
                    .players()
                    .iter()
                    .map(|p| p.score)
                    .collect(),
            );
        }
        let text = serde_json::to_string_pretty(&live.record).unwrap_or_default();
        let _ = slot.tx.send(live.version);
        Ok(Save(live.version, text))
    }

    /// Writes a record given by [`Games::apply`], unless a newer one is on disk already or
    /// the game was archived.
    fn save(&self, slot: &GameSlot, save: Save) {
        let mut saved = lock(&slot.saved);
        if *saved != u64::MAX && save.0 > *saved {
            self.write_record(&slot.id, &save.1);
            *saved = save.0;
        }
    }

    fn write_record(&self, id: &str, text: &str) {
        let path = self.dir.join(format!("{id}.json"));
        if let Err(e) = store::write_private(&path, text) {
            eprintln!("carcassonne serve: game {id}: cannot write its record: {e}");
        }
    }

    /// Starts the bot driver of a game if a bot is to move and none is running.
    fn kick(&self, slot: Arc<GameSlot>) {
        {
            let mut live = lock(&slot.live);
            if live.driving || live.broken.is_some() || live.game.is_over() {
                return;
            }
            let seat = live.game.decision().player.index();
            if live.seats[seat].bot.is_none() {
                return;
            }
            live.driving = true;
        }
        let Some(games) = self.me.upgrade() else {
            return;
        };
        let delay = self.cfg.bot_delay;
        self.runtime.spawn(async move {
            loop {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                let (g, s) = (Arc::clone(&games), Arc::clone(&slot));
                match tokio::task::spawn_blocking(move || g.bot_step(&s)).await {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(_) => {
                        let mut live = lock(&slot.live);
                        live.broken = Some("a bot failed".into());
                        live.driving = false;
                        let _ = slot.tx.send(live.version);
                        break;
                    }
                }
            }
        });
    }

    /// One bot move; false when no bot is to move (the driver stops).
    fn bot_step(&self, slot: &GameSlot) -> bool {
        let (game, spec, seed) = {
            let mut live = lock(&slot.live);
            let seat = live.game.decision().player.index();
            let spec = live.seats[seat].bot.clone();
            match spec {
                Some(spec) if live.broken.is_none() && !live.game.is_over() => (
                    live.game.clone(),
                    spec,
                    live.record.setup.seed ^ (live.version.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                ),
                _ => {
                    live.driving = false;
                    return false;
                }
            }
        };
        let Ok(spec) = parse_bot(&spec) else {
            let mut live = lock(&slot.live);
            live.broken = Some(format!("unknown bot `{spec}`"));
            live.driving = false;
            return false;
        };
        let chosen = catch_unwind(AssertUnwindSafe(|| spec.build(seed).choose(&game)));
        let mut live = lock(&slot.live);
        let Ok(i) = chosen else {
            live.broken = Some("a bot failed".into());
            live.driving = false;
            let _ = slot.tx.send(live.version);
            return false;
        };
        let Some(a) = game.actions().get(i).copied() else {
            live.broken = Some("a bot chose no legal action".into());
            live.driving = false;
            return false;
        };
        match self.apply(slot, &mut live, a) {
            Ok(save) => {
                drop(live);
                self.save(slot, save);
                true
            }
            Err(_) => {
                live.driving = false;
                false
            }
        }
    }

    /// Opens a record or a `.jcz` save for replay.
    pub fn open_replay(&self, text: &str) -> Result<Value, ApiError> {
        let is_record = serde_json::from_str::<Value>(text)
            .map_err(|e| bad(format!("the file is not JSON: {e}")))?
            .get("format")
            .and_then(Value::as_str)
            == Some(carcassonne_play::record::FORMAT);
        let record = if is_record {
            Record::parse(text, "uploaded record").map_err(|e| bad(e.to_string()))?
        } else {
            let save = carcassonne_jcz::save::JczSave::parse(text, "uploaded save")
                .map_err(|e| bad(format!("neither a record nor a .jcz save: {e}")))?;
            let g = carcassonne_jcz::replay(&save, "uploaded save", &self.cfg.plugin_dirs, None)
                .map_err(|e| bad(e.to_string()))?;
            g.to_record().map_err(|e| bad(e.to_string()))?
        };
        let rules = self.ruleset(&record.rules_spec())?;
        // Check it replays whole before keeping it.
        let game = record
            .replay_with(&rules, "uploaded record", None)
            .map_err(|e| bad(e.to_string()))?;
        let id = random_hex(8);
        let moves = record.actions.len();
        let mut replays = lock(&self.replays);
        while replays.len() >= self.cfg.limits.max_replays.max(1) {
            replays.pop_front();
        }
        replays.push_back((id.clone(), Arc::new(Replay { record, rules })));
        Ok(json!({
            "id": id,
            "moves": moves,
            "players": game.state().players().iter().map(|p| &p.name).collect::<Vec<_>>(),
        }))
    }

    /// The position of a replay after `step` actions.
    pub fn replay_step(&self, id: &str, step: usize) -> Result<Value, ApiError> {
        let r = lock(&self.replays)
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, r)| Arc::clone(r))
            .ok_or_else(|| {
                ApiError(
                    StatusCode::NOT_FOUND,
                    "no such replay (open it again)".into(),
                )
            })?;
        let n = r.record.actions.len();
        if step > n {
            return Err(bad(format!("the record has {n} moves, not {step}")));
        }
        let game = r
            .record
            .replay_with(&r.rules, "replay", Some(step))
            .map_err(|e| bad(e.to_string()))?;
        let mut v = position(&game, false);
        v["step"] = json!(step);
        v["moves"] = json!(n);
        v["last"] = match step.checked_sub(1).map(|i| &r.record.actions[i]) {
            None => Value::Null,
            Some(a) => {
                let mut l = json!({ "label": named(a.to_string(), &place_names(&game), &player_names(&game)) });
                if let Some((x, y)) = cell_of(a) {
                    l["x"] = json!(x);
                    l["y"] = json!(y);
                }
                l
            }
        };
        Ok(v)
    }
}
