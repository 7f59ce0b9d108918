//! Live games: each behind its own lock, written to disk as its record after every action,
//! resumed on start by replaying the records; bots play their seats on blocking threads.

use crate::view::{cell_of, named, place_names, player_names, position};
use crate::{ApiError, Config};
use axum::http::StatusCode;
use carcassonne_core::{Action, ActionError, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{parse_bot, BotSpec};
use carcassonne_play::mcts::Budget;
use carcassonne_play::record::{decode_action, encode_action, Record, RecordAction};
use carcassonne_rules::{build_ruleset, list_expansions, RulesSpec};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::time::Duration;
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

/// A seat as kept on disk (`games/<id>.seats.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Seat {
    name: String,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    token: Option<String>,
}

struct Live {
    game: Game,
    record: Record,
    seats: Vec<Seat>,
    version: u64,
    broken: Option<String>,
    driving: bool,
}

/// One game behind its own lock.
pub struct GameSlot {
    id: String,
    live: Mutex<Live>,
    tx: broadcast::Sender<u64>,
    subscribers: AtomicUsize,
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
            let player = match a {
                RecordAction::Place { player, .. }
                | RecordAction::Deploy { player, .. }
                | RecordAction::Move { player, .. }
                | RecordAction::Pass { player }
                | RecordAction::Draw { player, .. }
                | RecordAction::Custom { player, .. } => *player,
            };
            let mut v = json!({ "seat": player, "label": named(
                    a.to_string(),
                    &place_names(&live.game),
                    &player_names(&live.game),
                ) });
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
    pub fn view(&self, token: Option<&str>) -> Value {
        let live = lock(&self.live);
        let you = token.and_then(|t| {
            live.seats
                .iter()
                .position(|s| s.token.as_deref() == Some(t))
        });
        let mut v = position(&live.game, true);
        v["id"] = json!(self.id);
        v["version"] = json!(live.version);
        v["moves"] = json!(live.record.actions.len());
        v["you"] = json!(you);
        v["broken"] = json!(live.broken);
        v["last"] = last_move(&live);
        v["seats"] = live
            .seats
            .iter()
            .map(|s| json!({ "name": s.name, "bot": s.bot }))
            .collect();
        v["expansions"] = json!(live
            .record
            .setup
            .expansions
            .iter()
            .map(|e| e.id.clone())
            .collect::<Vec<_>>());
        v
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

    /// The record as JSON text.
    pub fn record_json(&self) -> String {
        let live = lock(&self.live);
        serde_json::to_string_pretty(&live.record).unwrap_or_default() + "\n"
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
}

fn random_hex(bytes: usize) -> String {
    let mut rng = ChaCha20Rng::from_os_rng();
    let mut buf = vec![0u8; bytes];
    rng.fill_bytes(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
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
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
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
                Err(e) => eprintln!("carcassonne serve: game {id} not resumed: {e}"),
            }
        }
        Ok(games)
    }

    fn resume(&self, id: &str) -> Result<Arc<GameSlot>, String> {
        let seats_path = self.dir.join(format!("{id}.seats.json"));
        let seats_text = std::fs::read_to_string(&seats_path).map_err(|e| e.to_string())?;
        let seats: Vec<Seat> = serde_json::from_str(&seats_text).map_err(|e| e.to_string())?;
        let record =
            Record::load(&self.dir.join(format!("{id}.json"))).map_err(|e| e.to_string())?;
        let rules = self
            .ruleset(&record.rules_spec())
            .map_err(|e| e.1.clone())?;
        let game = record
            .replay_with(&rules, id, None)
            .map_err(|e| e.to_string())?;
        if seats.len() != game.state().players().len() {
            return Err("the seats file does not match the record".into());
        }
        let version = record.actions.len() as u64;
        Ok(Arc::new(GameSlot {
            id: id.to_string(),
            live: Mutex::new(Live {
                game,
                record,
                seats,
                version,
                broken: None,
                driving: false,
            }),
            tx: broadcast::channel(64).0,
            subscribers: AtomicUsize::new(0),
        }))
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

    /// Ids of all games.
    pub fn ids(&self) -> Vec<String> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// A game by id; 404 for an unknown one.
    pub fn get(&self, id: &str) -> Result<Arc<GameSlot>, ApiError> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.get(id).cloned().ok_or_else(|| {
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

    /// Creates a game.
    pub fn create(&self, req: CreateRequest) -> Result<Value, ApiError> {
        if !(2..=6).contains(&req.seats.len()) {
            return Err(bad(format!(
                "a game has 2 to 6 seats, not {}",
                req.seats.len()
            )));
        }
        if req.expansions.len() > 64 || req.options.len() > 256 {
            return Err(bad("too many expansions or options"));
        }
        let open = {
            let map = self.map.read().unwrap_or_else(|e| e.into_inner());
            if map.len() >= self.cfg.limits.max_games {
                return Err(ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "the server keeps at most {} games",
                        self.cfg.limits.max_games
                    ),
                ));
            }
            map.values()
                .filter(|s| !lock(&s.live).game.is_over())
                .count()
        };
        if open >= self.cfg.limits.max_open_games {
            return Err(ApiError(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many games in progress (at most {}); finish one first",
                    self.cfg.limits.max_open_games
                ),
            ));
        }
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
            if seats.iter().any(|o: &Seat| o.name == name) {
                return Err(bad(format!("seat {i}: the name `{name}` is taken")));
            }
            seats.push(Seat {
                name,
                bot: s.bot.clone(),
                token: s.bot.is_none().then(|| random_hex(16)),
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
        let seed = req
            .seed
            .unwrap_or_else(|| ChaCha20Rng::from_os_rng().next_u64());
        let setup = GameSetup::new(seats.iter().map(|s| s.name.clone()).collect(), seed);
        let game = Game::new(Arc::clone(&rules), &setup).map_err(|e| bad(e.to_string()))?;
        let record = Record::with_setup(&game, &setup, &[]).map_err(|e| bad(e.to_string()))?;
        let id = random_hex(8);
        let seats_text = serde_json::to_string_pretty(&seats).unwrap_or_default();
        let fail = |e: std::io::Error| {
            ApiError(
                StatusCode::INSUFFICIENT_STORAGE,
                format!("cannot write the game: {e}"),
            )
        };
        write_atomic(
            &self.dir.join(format!("{id}.json")),
            &serde_json::to_string_pretty(&record).unwrap_or_default(),
        )
        .map_err(fail)?;
        write_atomic(&self.dir.join(format!("{id}.seats.json")), &seats_text).map_err(fail)?;
        let out = json!({
            "id": id,
            "seed": seed,
            "seats": seats.iter().enumerate().map(|(i, s)| json!({
                "seat": i,
                "name": s.name,
                "bot": s.bot,
                "token": s.token,
                "link": s.token.as_ref().map(|t| format!("/?game={id}&token={t}")),
            })).collect::<Vec<_>>(),
            "watch": format!("/?game={id}"),
        });
        let slot = Arc::new(GameSlot {
            id: id.clone(),
            live: Mutex::new(Live {
                game,
                record,
                seats,
                version: 0,
                broken: None,
                driving: false,
            }),
            tx: broadcast::channel(64).0,
            subscribers: AtomicUsize::new(0),
        });
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
            let Some(seat) = live
                .seats
                .iter()
                .position(|s| s.token.as_deref() == Some(token))
            else {
                return Err(ApiError(
                    StatusCode::FORBIDDEN,
                    "this token holds no seat in this game".into(),
                ));
            };
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
            self.apply(slot, &mut live, a)?;
        }
        self.kick(Arc::clone(slot));
        Ok(json!({ "ok": true, "version": slot.version() }))
    }

    /// Applies an action to a locked game, writes the record, tells the subscribers.
    fn apply(&self, slot: &GameSlot, live: &mut Live, a: Action) -> Result<(), ApiError> {
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
        if let Err(e) = write_atomic(&self.dir.join(format!("{}.json", slot.id)), &text) {
            eprintln!(
                "carcassonne serve: game {}: cannot write its record: {e}",
                slot.id
            );
        }
        let _ = slot.tx.send(live.version);
        Ok(())
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
        if self.apply(slot, &mut live, a).is_err() {
            live.driving = false;
            return false;
        }
        true
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
