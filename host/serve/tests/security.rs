//! The attacks of issue 32 refused: cross-site forms (content type, `Origin`), games that
//! never end (resign, idle games archived, a cap per creator instead of a server-wide
//! lockout), predictable draws (the seed from the OS, hidden until the end), readable token
//! files, invisible names, damaged files not named.

use carcassonne_play::record::Record;
use carcassonne_serve::{service, App, Config};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "carcassonne-serve-sec-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(dir: &Path) -> Config {
    let mut c = Config::new(dir.to_path_buf());
    c.port = 0;
    c.bot_delay = Duration::ZERO;
    c
}

/// A server that knows each client's address (the per-creator cap needs it).
async fn start(cfg: &Config) -> SocketAddr {
    let app = App::open(cfg).expect("server opens");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, service(app)).await.unwrap();
    });
    addr
}

/// One request from `from` (a loopback address) with extra header lines.
async fn send(
    addr: SocketAddr,
    from: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, Value) {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(from.parse::<IpAddr>().unwrap(), 0))
        .unwrap();
    let mut s = sock.connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (
        status,
        serde_json::from_str(rest).unwrap_or(Value::String(rest.into())),
    )
}

const JSON: &str = "Content-Type: application/json\r\n";

async fn post(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    send(addr, "127.0.0.1", "POST", path, JSON, &body.to_string()).await
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    send(addr, "127.0.0.1", "GET", path, "", "").await
}

fn humans() -> Value {
    json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }] })
}

async fn create(addr: SocketAddr, body: &Value) -> (String, Vec<String>) {
    let (st, g) = post(addr, "/api/games", body).await;
    assert_eq!(st, 201, "{g}");
    let tokens = g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["token"].as_str().map(str::to_string))
        .collect();
    (g["id"].as_str().unwrap().to_string(), tokens)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_requests_are_refused() {
    let dir = temp_dir("csrf");
    let addr = start(&config(&dir)).await;
    let body = humans().to_string();
    // What a cross-site <form> can send: refused with 415, no game made.
    for ct in [
        "Content-Type: text/plain\r\n",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        "",
    ] {
        let (st, r) = send(addr, "127.0.0.1", "POST", "/api/games", ct, &body).await;
        assert_eq!(st, 415, "{ct:?}: {r}");
    }
    let (_, list) = get(addr, "/api/games").await;
    assert_eq!(list, json!([]));
    // JSON from another origin: 403; from this one, or from no browser: fine.
    let evil = format!("{JSON}Origin: https://evil.example\r\n");
    let (st, r) = send(addr, "127.0.0.1", "POST", "/api/games", &evil, &body).await;
    assert_eq!(st, 403, "{r}");
    let same = format!("{JSON}Origin: http://{addr}\r\nSec-Fetch-Site: same-origin\r\n");
    let (st, r) = send(addr, "127.0.0.1", "POST", "/api/games", &same, &body).await;
    assert_eq!(st, 201, "{r}");
    let (id, tokens) = create(addr, &humans()).await;
    // The act, resign and replay endpoints are guarded alike.
    let act = json!({ "token": tokens[0], "index": 0 }).to_string();
    for path in [
        format!("/api/games/{id}/act"),
        format!("/api/games/{id}/resign"),
        "/api/replays".to_string(),
    ] {
        let (st, _) = send(
            addr,
            "127.0.0.1",
            "POST",
            &path,
            "Content-Type: text/plain\r\n",
            &act,
        )
        .await;
        assert_eq!(st, 415, "{path}");
        let (st, _) = send(addr, "127.0.0.1", "POST", &path, &evil, &act).await;
        assert_eq!(st, 403, "{path}");
    }
    let (_, v) = get(addr, &format!("/api/games/{id}")).await;
    assert_eq!(v["version"], 0, "nothing was played");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_resigns_and_a_bot_plays_it() {
    let dir = temp_dir("resign");
    let addr = start(&config(&dir)).await;
    let (id, tokens) = create(addr, &humans()).await;
    let resign = format!("/api/games/{id}/resign");
    let (st, _) = post(addr, &resign, &json!({ "token": "00ff" })).await;
    assert_eq!(st, 403, "a forged token resigns nobody");
    // Ann resigns: her seat is a bot's now and her token acts no more.
    let (st, r) = post(addr, &resign, &json!({ "token": tokens[0] })).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["archived"], false);
    let (st, _) = post(
        addr,
        &format!("/api/games/{id}/act"),
        &json!({ "token": tokens[0], "index": 0 }),
    )
    .await;
    assert_eq!(st, 403);
    // The bot plays Ann's turn; Bob is asked next.
    let mut v = Value::Null;
    for _ in 0..100 {
        v = get(addr, &format!("/api/games/{id}")).await.1;
        if v["current"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(v["current"], 1, "{v}");
    assert_eq!(v["seats"][0]["resigned"], true);
    // Bob resigns too: nobody is left, the game is archived.
    let (st, r) = post(addr, &resign, &json!({ "token": tokens[1] })).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["archived"], true);
    let (st, r) = get(addr, &format!("/api/games/{id}")).await;
    assert_eq!(st, 410, "{r}");
    assert!(dir.join("archive").join(format!("{id}.json")).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_games_are_archived_and_each_creator_has_a_cap() {
    let dir = temp_dir("cap");
    let mut cfg = config(&dir);
    cfg.limits.max_open_per_creator = 2;
    cfg.limits.archive_after = Duration::from_millis(1500);
    let addr = start(&cfg).await;
    let (a, tokens) = create(addr, &humans()).await;
    let (b, _) = create(addr, &humans()).await;
    // A third game from the same address waits; another address may still create.
    let (st, r) = post(addr, "/api/games", &humans()).await;
    assert_eq!(st, 429, "{r}");
    let (st, r) = send(
        addr,
        "127.0.0.2",
        "POST",
        "/api/games",
        JSON,
        &humans().to_string(),
    )
    .await;
    assert_eq!(st, 201, "another creator is not locked out: {r}");
    // A move keeps game `a` alive; `b` waits for nobody and is archived.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (_, v) = get(addr, &format!("/api/games/{a}")).await;
        let seat = v["current"].as_u64().unwrap() as usize;
        let (st, r) = post(
            addr,
            &format!("/api/games/{a}/act"),
            &json!({ "token": tokens[seat], "index": 0 }),
        )
        .await;
        assert_eq!(st, 200, "{r}");
    }
    let (st, _) = get(addr, &format!("/api/games/{a}")).await;
    assert_eq!(st, 200, "a game being played stays");
    let (st, r) = get(addr, &format!("/api/games/{b}")).await;
    assert_eq!(st, 410, "{r}");
    assert!(r["error"].as_str().unwrap().contains("archived"));
    // With `b` gone, the first address may create again.
    let (st, r) = post(addr, "/api/games", &humans()).await;
    assert_eq!(st, 201, "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_is_random_and_hidden_until_the_end() {
    let dir = temp_dir("seed");
    let addr = start(&config(&dir)).await;
    let (id1, _) = create(addr, &humans()).await;
    let (id2, _) = create(addr, &humans()).await;
    let disk = |id: &str| Record::load(&dir.join("games").join(format!("{id}.json"))).unwrap();
    assert_ne!(
        disk(&id1).setup.seed,
        disk(&id2).setup.seed,
        "seeds from the OS"
    );
    let (st, g) = post(addr, "/api/games", &humans()).await;
    assert_eq!(st, 201);
    assert!(
        g["seed"].is_null(),
        "a random seed is not told to the creator: {g}"
    );
    // Served before the end: no seed, and nothing else in it names one.
    let (_, rec) = get(addr, &format!("/api/games/{id1}/record")).await;
    assert!(rec["setup"]["seed"].is_null(), "{rec}");
    let seed = disk(&id1).setup.seed.to_string();
    assert!(!rec.to_string().contains(&seed));
    let (_, view) = get(addr, &format!("/api/games/{id1}")).await;
    assert!(!view.to_string().contains(&seed));
    assert_eq!(view["fixed_seed"], false);
    // A bot game played out: the seed is revealed with the result.
    let (id3, _) = create(
        addr,
        &json!({ "seats": [{ "bot": "random" }, { "bot": "random" }] }),
    )
    .await;
    let mut rec = Value::Null;
    for _ in 0..600 {
        rec = get(addr, &format!("/api/games/{id3}/record")).await.1;
        if !rec["result"].is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!rec["result"].is_null(), "the bot game ended");
    assert_eq!(rec["setup"]["seed"], json!(disk(&id3).setup.seed));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_are_private_names_visible_and_damage_named() {
    let dir = temp_dir("files");
    let cfg = config(&dir);
    let addr = start(&cfg).await;
    let (id, _) = create(addr, &humans()).await;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in [format!("{id}.json"), format!("{id}.seats.json")] {
            let mode = std::fs::metadata(dir.join("games").join(&f))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{f}");
        }
    }
    for name in [
        "\u{200B}",
        "\u{200B}\u{200C}\u{2060}",
        "\u{3164}",
        " \u{FEFF} ",
    ] {
        let (st, r) = post(
            addr,
            "/api/games",
            &json!({ "seats": [{ "name": name }, { "name": "Bob" }] }),
        )
        .await;
        assert_eq!(st, 400, "{name:?}: {r}");
        assert!(r["error"].as_str().unwrap().contains("visible"), "{r}");
    }
    // Damaged files: each one is named in the reason its game is not resumed.
    let games = dir.join("games");
    std::fs::write(games.join("00aa.seats.json"), "garbage").unwrap();
    std::fs::write(games.join("00aa.json"), "{}").unwrap();
    std::fs::write(
        games.join("00bb.seats.json"),
        r#"{"seats": [{"name": "A"}, {"name": "B"}]}"#,
    )
    .unwrap();
    std::fs::write(games.join("00bb.json"), "not a record").unwrap();
    let rt = tokio::runtime::Handle::current();
    let app = rt
        .spawn(async move { App::open(&cfg).unwrap() })
        .await
        .unwrap();
    let why = app.not_resumed();
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(why[0].contains("00aa.seats.json"), "{}", why[0]);
    assert!(why[1].contains("00bb.json"), "{}", why[1]);
    assert_eq!(app.game_ids(), vec![id]);
    let _ = std::fs::remove_dir_all(&dir);
}
