//! # carcassonne-serve
//!
//! `carcassonne serve`: play in the browser. An axum server on tokio with a JSON API
//! (`docs/serve.md`), server-sent events for updates, bots playing their seats server-side,
//! and one embedded page (`assets/`: HTML, vanilla JS, CSS).
//!
//! - `lib.rs` — configuration, the router, the handlers, limits;
//! - `guard.rs` — what a state-changing request must show (a JSON body, this origin);
//! - `store.rs` — a game's files on disk (record, seats and tokens), private to the owner;
//! - `games.rs` — live games: each behind its own lock, persisted as its record after every
//!   action (outside the lock; a person's move after its answer), resumed by replaying the
//!   record, bots driven on blocking threads; each state's view drawn once and served from
//!   a cache (`ETag`, 304);
//! - `view.rs` — what the page sees of a position (labels of every legal action, the board
//!   SVG from `carcassonne-render`);
//! - `delta.rs` — the board whole, or only what changed since the version a page shows;
//! - `watch.rs` — `--watch`: fan expansion folders rebuilt when they change.
//!
//! Every failure a request can cause is a 4xx with a one-line JSON `{"error": "…"}`.

mod delta;
mod games;
mod guard;
mod store;
pub mod view;
mod watch;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use games::{CreateRequest, Games};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

pub use games::SeatSpec;

/// Limits on what clients may ask.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest JSON body of an API request (create, act), bytes.
    pub max_body: usize,
    /// Largest uploaded record or `.jcz` save, bytes.
    pub max_upload: usize,
    /// Most games not finished at once per creator (client address; see [`Creator`]):
    /// creating more is refused until one ends, is resigned or archived.
    pub max_open_per_creator: usize,
    /// An unfinished game in which no person acted for this long is archived.
    pub archive_after: Duration,
    /// Most games kept at all (finished ones included); past it, the finished game idle
    /// longest is archived.
    pub max_games: usize,
    /// Most requests handled at once (more get 429).
    pub max_inflight: usize,
    /// Most replays kept in memory (the oldest is dropped).
    pub max_replays: usize,
    /// Most event streams open on one game.
    pub max_subscribers: usize,
    /// Requests one client (IP address) may make per second, sustained.
    pub client_rate: f64,
    /// Requests one client may make in a burst.
    pub client_burst: f64,
    /// Games one client may create per minute, sustained.
    pub client_creates_per_minute: f64,
    /// Games one client may create in a burst.
    pub client_create_burst: f64,
    /// Whether loopback clients are limited too (off by default: on loopback every client
    /// is this machine, and behind a local reverse proxy every player would share one
    /// address).
    pub limit_loopback: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 64 * 1024,
            max_upload: 8 * 1024 * 1024,
            max_open_per_creator: 20,
            archive_after: Duration::from_secs(24 * 3600),
            max_games: 10_000,
            max_inflight: 256,
            max_replays: 32,
            max_subscribers: 32,
            client_rate: 50.0,
            client_burst: 200.0,
            client_creates_per_minute: 20.0,
            client_create_burst: 20.0,
            limit_loopback: false,
        }
    }
}

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to bind (loopback by default).
    pub bind: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// Where games are kept (`games/<id>.json` records, `games/<id>.seats.json`).
    pub data_dir: PathBuf,
    /// Extra folders searched for expansions.
    pub plugin_dirs: Vec<PathBuf>,
    /// Fan expansion folders watched for changes (`--watch`; searched first).
    pub watch: Vec<PathBuf>,
    /// Pause before each bot move, so people can follow them.
    pub bot_delay: Duration,
    /// Limits.
    pub limits: Limits,
}

impl Config {
    /// Defaults: 127.0.0.1:8080, data in `./carcassonne-games`.
    pub fn new(data_dir: PathBuf) -> Config {
        Config {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 8080,
            data_dir,
            plugin_dirs: Vec::new(),
            watch: Vec::new(),
            bot_delay: Duration::from_millis(400),
            limits: Limits::default(),
        }
    }
}

/// The default data folder: `$XDG_DATA_HOME/carcassonne` or `~/.local/share/carcassonne`,
/// else `./carcassonne-games` (the games go in its `games/` folder).
pub fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("carcassonne");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(h).join(".local/share/carcassonne");
    }
    PathBuf::from("carcassonne-games")
}

/// An API error: status and one-line message.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    fn bad(msg: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, msg.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let line = self.1.replace(['\n', '\r'], " ");
        let mut r = (self.0, json_body(&json!({ "error": line }))).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    }
}

fn json_body(v: &Value) -> String {
    let mut s = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

fn json_response(v: &Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], json_body(v)).into_response()
}

type ApiResult = Result<Response, ApiError>;

/// A token bucket: `tokens` left, refilled at a rate up to a burst.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn full(burst: f64, now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            last: now,
        }
    }

    /// Takes one token; otherwise how long until one is there.
    fn take(&mut self, rate: f64, burst: f64, now: Instant) -> Result<(), Duration> {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + dt * rate).min(burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else if rate > 0.0 {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / rate))
        } else {
            Err(Duration::from_secs(3600))
        }
    }
}

/// Per-client rate limits: a bucket of requests and one of game creations per IP address.
struct ClientLimiter {
    clients: Mutex<BTreeMap<IpAddr, (Bucket, Bucket)>>,
}

/// Most clients remembered; past it, idle ones (full buckets) are forgotten.
const MAX_CLIENTS: usize = 4096;

impl ClientLimiter {
    fn check(&self, limits: &Limits, ip: IpAddr, create: bool) -> Result<(), Duration> {
        let now = Instant::now();
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() >= MAX_CLIENTS && !clients.contains_key(&ip) {
            // Forget clients idle long enough for both buckets to be full again.
            let idle = Duration::from_secs_f64(
                (limits.client_burst / limits.client_rate.max(1e-9))
                    .max(
                        limits.client_create_burst * 60.0
                            / limits.client_creates_per_minute.max(1e-9),
                    )
                    .min(3600.0),
            );
            clients.retain(|_, (r, _)| now.saturating_duration_since(r.last) < idle);
            if clients.len() >= MAX_CLIENTS {
                return Err(Duration::from_secs(1));
            }
        }
        let (requests, creates) = clients.entry(ip).or_insert_with(|| {
            (
                Bucket::full(limits.client_burst, now),
                Bucket::full(limits.client_create_burst, now),
            )
        });
        requests.take(limits.client_rate, limits.client_burst, now)?;
        if create {
            creates.take(
                limits.client_creates_per_minute / 60.0,
                limits.client_create_burst,
                now,
            )?;
        }
        Ok(())
    }
}

/// Shared state of the server.
pub struct App {
    games: Arc<Games>,
    inflight: Semaphore,
    clients: ClientLimiter,
    limits: Limits,
    watch: Arc<Mutex<watch::WatchState>>,
    _watcher: Option<notify::RecommendedWatcher>,
}

impl App {
    /// Opens the data folder and resumes every game found there (bots start playing again).
    /// Must run inside a tokio runtime.
    pub fn open(config: &Config) -> Result<Arc<App>, String> {
        // Watched folders are searched first: their version wins over an installed one.
        let mut config = config.clone();
        let mut dirs = config.watch.clone();
        dirs.append(&mut config.plugin_dirs);
        config.plugin_dirs = dirs;
        let config = &config;
        let games = Games::open(config)?;
        let watch = Arc::new(Mutex::new(watch::WatchState {
            dirs: config.watch.clone(),
            ..Default::default()
        }));
        let watcher = if config.watch.is_empty() {
            None
        } else {
            let g = Arc::clone(&games);
            Some(watch::start(
                Arc::clone(&watch),
                config.plugin_dirs.clone(),
                move || g.forget_rulesets(),
            )?)
        };
        Ok(Arc::new(App {
            watch,
            _watcher: watcher,
            games,
            inflight: Semaphore::new(config.limits.max_inflight),
            clients: ClientLimiter {
                clients: Mutex::new(BTreeMap::new()),
            },
            limits: config.limits.clone(),
        }))
    }

    /// The games found on disk that could not be resumed, each with the file at fault.
    pub fn not_resumed(&self) -> Vec<String> {
        self.games.not_resumed()
    }

    /// Ids of the games resumed or created so far.
    pub fn game_ids(&self) -> Vec<String> {
        self.games.ids()
    }
}

/// The router of the API and the page.
pub fn router(app: Arc<App>) -> Router {
    let upload = app.limits.max_upload;
    let body = app.limits.max_body;
    let api = Router::new()
        .route("/api/expansions", get(expansions))
        .route("/api/watch", get(watch_state))
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(state))
        .route("/api/games/{id}/act", post(act))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/preview", get(preview))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/record", get(record))
        .layer(DefaultBodyLimit::max(body));
    let replays = Router::new()
        .route("/api/replays", post(open_replay))
        .route("/api/replays/{id}/{step}", get(replay_step))
        .layer(DefaultBodyLimit::max(upload));
    Router::new()
        .route("/", get(page))
        .route("/app.js", get(script))
        .route("/style.css", get(style))
        .merge(api)
        .merge(replays)
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            limit_inflight,
        ))
        .with_state(app)
}

/// The router as a service that knows each client's address (for the per-client limits);
/// what [`run`] serves. A plain [`router`] served without it applies no per-client limit.
pub fn service(
    app: Arc<App>,
) -> axum::extract::connect_info::IntoMakeServiceWithConnectInfo<Router, SocketAddr> {
    router(app).into_make_service_with_connect_info::<SocketAddr>()
}

/// Who created a game, for the per-creator cap: the client's IP address (all clients on one
/// machine, or behind one reverse proxy, are one creator); `local` when the router is served
/// without addresses (tests).
#[derive(Clone, Debug)]
pub struct Creator(pub String);

async fn limit_inflight(
    State(app): State<Arc<App>>,
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if guard::changes_state(req.method()) && req.uri().path().starts_with("/api/") {
        if let Err(e) = guard::check(req.headers()) {
            return e.into_response();
        }
    }
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let creator = peer.map_or_else(|| "local".to_string(), |p| p.ip().to_string());
    req.extensions_mut().insert(Creator(creator));
    if let Some(peer) = peer {
        let ip = peer.ip();
        if app.limits.limit_loopback || !ip.is_loopback() {
            let create = req.method() == Method::POST && req.uri().path() == "/api/games";
            if let Err(wait) = app.clients.check(&app.limits, ip, create) {
                let what = if create { "games created" } else { "requests" };
                let mut r = ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "too many {what} from your address; try again in {:.1}s",
                        wait.as_secs_f64()
                    ),
                )
                .into_response();
                let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
                if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                    r.headers_mut().insert(header::RETRY_AFTER, v);
                }
                return r;
            }
        }
    }
    match app.inflight.try_acquire() {
        Ok(_permit) => next.run(req).await,
        Err(_) => ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            "too many requests at once; try again".into(),
        )
        .into_response(),
    }
}

/// Runs the server until Ctrl-C.
pub fn run(config: Config) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let app = App::open(&config)?;
        let addr = SocketAddr::new(config.bind, config.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!(
            "carcassonne serve: http://{local}/ (games in {}; {} resumed)",
            config.data_dir.display(),
            app.game_ids().len()
        );
        if !config.bind.is_loopback() {
            eprintln!("warning: listening on {} — reachable from other machines; anyone with a seat link can play that seat", config.bind);
        }
        axum::serve(listener, service(app))
            .with_graceful_shutdown(shutdown_signal())
            .await
            .map_err(|e| format!("server: {e}"))
    })
}

/// Ctrl-C or SIGTERM (what `kill` and service managers send): the server stops taking
/// requests, and the runtime's drop waits for the record writes still under way, so every
/// move that was answered is on disk.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

const PAGE: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/style.css");

async fn page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response()
}

async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

async fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such page or API route".into())
}

fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|e| {
        let status = e.status();
        let msg = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "request body too large".to_string()
        } else {
            format!("cannot read the request body: {e}")
        };
        ApiError(status, msg)
    })
}

fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("malformed JSON: {e}")))
}

fn query_param(q: &Option<String>, key: &str) -> Option<String> {
    q.as_deref()?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == key).then(|| v.to_string())
    })
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|_| {
        ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the request failed inside the engine".into(),
        )
    })?
}

async fn expansions(State(app): State<Arc<App>>) -> ApiResult {
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.expansions()).await?;
    Ok(json_response(&v))
}

async fn watch_state(State(app): State<Arc<App>>) -> ApiResult {
    let v = app
        .watch
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .to_json();
    Ok(json_response(&v))
}

async fn list(State(app): State<Arc<App>>) -> ApiResult {
    Ok(json_response(&app.games.summaries()))
}

async fn create(
    State(app): State<Arc<App>>,
    Extension(creator): Extension<Creator>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let body = body_bytes(body)?;
    let req: CreateRequest = parse_json(&body)?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.create(req, &creator.0)).await?;
    Ok((StatusCode::CREATED, json_response(&v)).into_response())
}

/// A game's view, tagged (`ETag`) with the state it shows: a client that sends the tag back
/// (`If-None-Match`; browsers do it themselves, `Cache-Control: no-cache` asks them to) gets
/// 304 while nothing changed.
async fn state(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> ApiResult {
    let slot = app.games.get(&id)?;
    let token = query_param(&q, "token");
    let seen = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // `since=N`: the page shows version N and wants only what changed on the board.
    let since = query_param(&q, "since").and_then(|n| n.parse().ok());
    let games = Arc::clone(&app.games);
    let reply =
        blocking(move || Ok(games.view(&slot, token.as_deref(), seen.as_deref(), since))).await?;
    let (status, body, tag) = match reply {
        games::ViewReply::Unchanged(tag) => (StatusCode::NOT_MODIFIED, String::new(), tag),
        games::ViewReply::Fresh(body, tag) => (StatusCode::OK, body, tag),
    };
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    if status == StatusCode::OK {
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&tag) {
        h.insert(header::ETAG, v);
    }
    Ok(r)
}

async fn preview(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> ApiResult {
    let slot = app.games.get(&id)?;
    let index: usize = query_param(&q, "index")
        .and_then(|i| i.parse().ok())
        .ok_or_else(|| ApiError::bad("give the action as ?index=N"))?;
    let version = query_param(&q, "version").and_then(|v| v.parse().ok());
    let v = blocking(move || slot.preview(index, version)).await?;
    Ok(json_response(&v))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ActRequest {
    token: String,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    action: Option<Value>,
    #[serde(default)]
    version: Option<u64>,
}

async fn act(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let slot = app.games.get(&id)?;
    let body = body_bytes(body)?;
    let req: ActRequest = parse_json(&body)?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || {
        games.act(
            &slot,
            &req.token,
            req.index,
            req.action.as_ref(),
            req.version,
        )
    })
    .await?;
    Ok(json_response(&v))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ResignRequest {
    token: String,
}

async fn resign(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let slot = app.games.get(&id)?;
    let body = body_bytes(body)?;
    let req: ResignRequest = parse_json(&body)?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.resign(&slot, &req.token)).await?;
    Ok(json_response(&v))
}

async fn record(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult {
    let slot = app.games.get(&id)?;
    let text = slot.record_json();
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&format!("attachment; filename=\"carcassonne-{id}.json\""))
                    .unwrap_or(HeaderValue::from_static("attachment")),
            ),
        ],
        text,
    )
        .into_response())
}

async fn events(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult {
    let slot = app.games.get(&id)?;
    let rx = slot.subscribe(app.limits.max_subscribers)?;
    let first = slot.version();
    // `data` is the version, then ` broken` once the game is stopped (a stop does not
    // change the version, so the page would otherwise take it for an update it has).
    let update = |rx: &games::Subscription, v: u64| {
        let data = if rx.broken() {
            format!("{v} broken")
        } else {
            v.to_string()
        };
        Event::default().event("update").data(data)
    };
    let stream =
        futures_util::stream::unfold((rx, Some(first)), move |(mut rx, first)| async move {
            if let Some(v) = first {
                let ev = update(&rx, v);
                return Some((Ok::<_, std::convert::Infallible>(ev), (rx, None)));
            }
            loop {
                match rx.rx.recv().await {
                    Ok(v) => {
                        let ev = update(&rx, v);
                        return Some((Ok(ev), (rx, None)));
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            }
        });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

async fn open_replay(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let body = body_bytes(body)?;
    let text = String::from_utf8(body.to_vec()).map_err(|_| {
        ApiError::bad("the file is not UTF-8 text (expected a record or a .jcz save)")
    })?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.open_replay(&text)).await?;
    Ok((StatusCode::CREATED, json_response(&v)).into_response())
}

async fn replay_step(
    State(app): State<Arc<App>>,
    UrlPath((id, step)): UrlPath<(String, String)>,
) -> ApiResult {
    let step: usize = step
        .parse()
        .map_err(|_| ApiError::bad(format!("step `{step}` is not a number")))?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.replay_step(&id, step)).await?;
    Ok(json_response(&v))
}
