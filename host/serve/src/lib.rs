//! # carcassonne-serve
//!
//! `carcassonne serve`: play in the browser. An axum server on tokio with a JSON API
//! (`docs/serve.md`), server-sent events for updates, bots playing their seats server-side,
//! and one embedded page (`assets/`: HTML, vanilla JS, CSS).
//!
//! - `lib.rs` — configuration, the router, the handlers, limits;
//! - `games.rs` — live games: each behind its own lock, persisted as its record after every
//!   action, resumed by replaying the record, bots driven on blocking threads;
//! - `view.rs` — what the page sees of a position (labels of every legal action, the board
//!   SVG from `carcassonne-render`).
//!
//! Every failure a request can cause is a 4xx with a one-line JSON `{"error": "…"}`.

mod games;
pub mod view;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use games::{CreateRequest, Games};
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

pub use games::SeatSpec;

/// Limits on what clients may ask.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest JSON body of an API request (create, act), bytes.
    pub max_body: usize,
    /// Largest uploaded record or `.jcz` save, bytes.
    pub max_upload: usize,
    /// Most games not finished at once (creating more is refused).
    pub max_open_games: usize,
    /// Most games kept at all (finished ones included).
    pub max_games: usize,
    /// Most requests handled at once (more get 429).
    pub max_inflight: usize,
    /// Most replays kept in memory (the oldest is dropped).
    pub max_replays: usize,
    /// Most event streams open on one game.
    pub max_subscribers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 64 * 1024,
            max_upload: 8 * 1024 * 1024,
            max_open_games: 200,
            max_games: 10_000,
            max_inflight: 256,
            max_replays: 32,
            max_subscribers: 32,
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

/// Shared state of the server.
pub struct App {
    games: Arc<Games>,
    inflight: Semaphore,
    limits: Limits,
}

impl App {
    /// Opens the data folder and resumes every game found there (bots start playing again).
    /// Must run inside a tokio runtime.
    pub fn open(config: &Config) -> Result<Arc<App>, String> {
        let games = Games::open(config)?;
        Ok(Arc::new(App {
            games,
            inflight: Semaphore::new(config.limits.max_inflight),
            limits: config.limits.clone(),
        }))
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
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(state))
        .route("/api/games/{id}/act", post(act))
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

async fn limit_inflight(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
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
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("server: {e}"))
    })
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

async fn list(State(app): State<Arc<App>>) -> ApiResult {
    Ok(json_response(&app.games.summaries()))
}

async fn create(State(app): State<Arc<App>>, body: Result<Bytes, BytesRejection>) -> ApiResult {
    let body = body_bytes(body)?;
    let req: CreateRequest = parse_json(&body)?;
    let games = Arc::clone(&app.games);
    let v = blocking(move || games.create(req)).await?;
    Ok((StatusCode::CREATED, json_response(&v)).into_response())
}

async fn state(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> ApiResult {
    let slot = app.games.get(&id)?;
    let token = query_param(&q, "token");
    let v = blocking(move || Ok(slot.view(token.as_deref()))).await?;
    Ok(json_response(&v))
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
    let stream = futures_util::stream::unfold((rx, Some(first)), |(mut rx, first)| async move {
        if let Some(v) = first {
            let ev = Event::default().event("update").data(v.to_string());
            return Some((Ok::<_, std::convert::Infallible>(ev), (rx, None)));
        }
        loop {
            match rx.rx.recv().await {
                Ok(v) => {
                    let ev = Event::default().event("update").data(v.to_string());
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
