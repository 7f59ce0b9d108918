//! HTTP API tests of `carcassonne serve`, over loopback with a minimal HTTP/1.1 client:
//! create, act, refuse (every 4xx case), seat tokens kept to their seats, resume after a
//! restart, server-sent events, replays of records and `.jcz` saves, and a load test of 50
//! concurrent bot games whose records all replay to the scores the server reported.

use carcassonne_play::record::Record;
use carcassonne_serve::{App, Config};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
mod common;
use common::{config, start};

fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "carcassonne-serve-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One request; returns the status and the body (JSON when it parses, else a string).
async fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    // A refused oversized body may close the connection before it is all sent.
    let _ = s.write_all(body).await;
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    let v = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, v)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    request(addr, "GET", path, b"").await
}

async fn post(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    request(addr, "POST", path, body.to_string().as_bytes()).await
}

/// A 4xx whose body is one line of JSON with an `error` message.
fn assert_refused(status: u16, body: &Value, want: u16) {
    assert_eq!(status, want, "{body}");
    let msg = body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {body}"));
    assert!(!msg.is_empty() && !msg.contains('\n'), "{msg}");
}

async fn create_humans(addr: SocketAddr, seed: u64) -> (String, Vec<String>) {
    let (st, g) = post(
        addr,
        "/api/games",
        &json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }], "seed": seed }),
    )
    .await;
    assert_eq!(st, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let tokens = g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    (id, tokens)
}

/// Plays `n` moves, each the first offered action of whoever is to move.
async fn play(addr: SocketAddr, id: &str, tokens: &[String], n: usize) {
    for _ in 0..n {
        let (_, v) = get(addr, &format!("/api/games/{id}")).await;
        if v["finished"] == true {
            return;
        }
        let seat = v["current"].as_u64().unwrap() as usize;
        let (st, r) = post(
            addr,
            &format!("/api/games/{id}/act"),
            &json!({ "token": tokens[seat], "index": 0, "version": v["version"] }),
        )
        .await;
        assert_eq!(st, 200, "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_act_and_refuse() {
    let dir = temp_dir("act");
    let (addr, _h) = start(&config(&dir)).await;
    let (id, tokens) = create_humans(addr, 7).await;

    // Each seat sees itself; the first seat is to place the drawn tile.
    let (st, v) = get(addr, &format!("/api/games/{id}?token={}", tokens[0])).await;
    assert_eq!(st, 200);
    assert_eq!(v["you"], 0);
    assert_eq!(v["current"], 0);
    assert_eq!(v["version"], 0);
    assert!(v["board"].as_str().unwrap().starts_with("<svg"));
    let actions = v["actions"].as_array().unwrap();
    assert!(!actions.is_empty());
    assert!(actions
        .iter()
        .all(|a| a["kind"] == "place" && a["label"].as_str().unwrap().starts_with("place ")));
    let (_, v1) = get(addr, &format!("/api/games/{id}?token={}", tokens[1])).await;
    assert_eq!(v1["you"], 1);

    // The other seat's token cannot act for the seat to move: refused, game unchanged.
    let act = format!("/api/games/{id}/act");
    let (st, r) = post(addr, &act, &json!({ "token": tokens[1], "index": 0 })).await;
    assert_refused(st, &r, 403);
    // A forged token.
    let (st, r) = post(addr, &act, &json!({ "token": "00ff", "index": 0 })).await;
    assert_refused(st, &r, 403);
    // An action that is not offered.
    let (st, r) = post(addr, &act, &json!({ "token": tokens[0], "index": 100000 })).await;
    assert_refused(st, &r, 400);
    let (st, r) = post(
        addr,
        &act,
        &json!({ "token": tokens[0], "action": { "type": "place", "player": 0, "tile": "nope", "x": 40, "y": 40, "rotation": 0 } }),
    )
    .await;
    assert_refused(st, &r, 400);
    // Malformed JSON, unknown fields, an oversized body, an unknown game, a stale version.
    let (st, r) = request(addr, "POST", &act, b"{\"token\": ").await;
    assert_refused(st, &r, 400);
    let (st, r) = post(
        addr,
        &act,
        &json!({ "token": tokens[0], "index": 0, "x": 1 }),
    )
    .await;
    assert_refused(st, &r, 400);
    let big = vec![b' '; 200 * 1024];
    let (st, r) = request(addr, "POST", &act, &big).await;
    assert_refused(st, &r, 413);
    let (st, r) = post(
        addr,
        "/api/games/0123abcd/act",
        &json!({ "token": tokens[0], "index": 0 }),
    )
    .await;
    assert_refused(st, &r, 404);
    let (st, r) = get(addr, "/api/games/../../etc/passwd").await;
    assert!((400..500).contains(&st), "{r}");
    let (st, r) = post(
        addr,
        &act,
        &json!({ "token": tokens[0], "index": 0, "version": 5 }),
    )
    .await;
    assert_refused(st, &r, 409);
    let (_, after) = get(addr, &format!("/api/games/{id}?token={}", tokens[0])).await;
    assert_eq!(after["version"], 0);
    assert_eq!(after["board"], v["board"]);
    assert_eq!(after["actions"], v["actions"]);

    // Bad games are refused.
    for bad in [
        json!({ "seats": [{ "name": "solo" }] }),
        json!({ "seats": [{}, {}, {}, {}, {}, {}, {}] }),
        json!({ "seats": [{}, { "bot": "wizard" }] }),
        json!({ "seats": [{}, { "bot": "mcts:99999999" }] }),
        json!({ "seats": [{}, {}], "expansions": ["no-such-expansion"] }),
        json!({ "seats": [{}, {}], "options": { "farmScoring": "sometimes" } }),
        json!({ "seats": [{ "name": "A" }, { "name": "A" }] }),
        json!({ "seats": [{}, {}], "colour": "red" }),
    ] {
        let (st, r) = post(addr, "/api/games", &bad).await;
        assert_refused(st, &r, 400);
    }

    // The seat to move plays: by index, then by its record form.
    let (st, r) = post(
        addr,
        &act,
        &json!({ "token": tokens[0], "index": 0, "version": 0 }),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    let (_, v) = get(addr, &format!("/api/games/{id}?token={}", tokens[0])).await;
    assert_eq!(v["version"], 1);
    assert_eq!(v["moves"], 1);
    assert_eq!(v["last"]["seat"], 0);
    assert!(
        v["prompt"].as_str().unwrap().contains("deploy"),
        "{}",
        v["prompt"]
    );
    let pass = v["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "pass")
        .expect("passing is offered in the deploy step")
        .clone();
    assert_eq!(pass["label"], "pass");
    let (st, r) = post(
        addr,
        &act,
        &json!({ "token": tokens[0], "action": pass["record"] }),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    let (_, v) = get(addr, &format!("/api/games/{id}")).await;
    assert_eq!(v["current"], 1, "Bob is to move");
    assert_eq!(v["you"], Value::Null, "no token: a spectator");

    // The record on disk and the one downloaded hold both actions.
    // The seed is not served before the end (the draws follow from it alone).
    let (st, mut rec) = get(addr, &format!("/api/games/{id}/record")).await;
    assert_eq!(st, 200);
    assert_eq!(rec["actions"].as_array().unwrap().len(), 2);
    assert!(rec["setup"]["seed"].is_null(), "{rec}");
    assert!(rec["seed_hidden"].is_string());
    let disk = disk_record(&dir, &id, 2).await;
    assert_eq!(disk.setup.seed, 7);
    rec["setup"]["seed"] = json!(7);
    rec.as_object_mut().unwrap().remove("seed_hidden");
    assert_eq!(serde_json::to_value(&disk).unwrap(), rec);

    // Unknown routes are JSON 404s too.
    let (st, r) = get(addr, "/api/nothing").await;
    assert_refused(st, &r, 404);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_resume_after_restart() {
    let dir = temp_dir("resume");
    let cfg = config(&dir);
    let (addr, h) = start(&cfg).await;
    let (id, tokens) = create_humans(addr, 11).await;
    play(addr, &id, &tokens, 25).await;
    let (_, before) = get(addr, &format!("/api/games/{id}?token={}", tokens[1])).await;
    assert_eq!(before["version"], 25);
    h.abort();
    let _ = h.await;
    disk_record(&dir, &id, 25).await;

    // A new server on the same folder: the game is where it was, tokens included.
    let (addr2, _h2) = start(&cfg).await;
    let (_, after) = get(addr2, &format!("/api/games/{id}?token={}", tokens[1])).await;
    for key in [
        "version",
        "moves",
        "board",
        "actions",
        "players",
        "events",
        "pending",
        "current",
        "you",
        "tiles_left",
        "last",
        "prompt",
    ] {
        assert_eq!(before[key], after[key], "{key} differs after the restart");
    }
    play(addr2, &id, &tokens, 4).await;
    let (_, v) = get(addr2, &format!("/api/games/{id}")).await;
    assert_eq!(v["version"], 29);
    let _ = std::fs::remove_dir_all(&dir);
}

async fn read_until(s: &mut TcpStream, seen: &mut String, needle: &str) {
    let mut buf = [0u8; 4096];
    while !seen.contains(needle) {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no `{needle}` in time: {seen}"))
            .unwrap();
        assert!(n > 0, "stream closed: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_are_pushed_and_replays_open() {
    let dir = temp_dir("events");
    let (addr, _h) = start(&config(&dir)).await;
    let (id, tokens) = create_humans(addr, 3).await;

    // Subscribe, then act: an `update` event with the new version arrives.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET /api/games/{id}/events HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut seen = String::new();
    read_until(&mut s, &mut seen, "data: 0").await;
    play(addr, &id, &tokens, 1).await;
    read_until(&mut s, &mut seen, "data: 1").await;
    assert!(seen.contains("text/event-stream"));
    assert!(seen.contains("event: update"));

    // Play on, download the record, open it as a replay and step through it.
    play(addr, &id, &tokens, 9).await;
    let (_, live) = get(addr, &format!("/api/games/{id}")).await;
    let moves = live["moves"].as_u64().unwrap();
    let rec = serde_json::to_value(disk_record(&dir, &id, moves).await).unwrap();
    let (st, r) = request(addr, "POST", "/api/replays", rec.to_string().as_bytes()).await;
    assert_eq!(st, 201, "{r}");
    assert_eq!(r["moves"], 10);
    let rid = r["id"].as_str().unwrap();
    let (_, start) = get(addr, &format!("/api/replays/{rid}/0")).await;
    assert_eq!(start["last"], Value::Null);
    let (_, end) = get(addr, &format!("/api/replays/{rid}/10")).await;
    assert_eq!(end["board"], live["board"]);
    assert_eq!(end["players"], live["players"]);
    assert_eq!(end["last"]["label"], live["last"]["label"]);
    let (st, r) = get(addr, &format!("/api/replays/{rid}/11")).await;
    assert_refused(st, &r, 400);
    let (st, r) = get(addr, "/api/replays/abc/1").await;
    assert_refused(st, &r, 404);
    let (st, r) = request(addr, "POST", "/api/replays", b"not json").await;
    assert_refused(st, &r, 400);

    // A JCloisterZone save (base game) opens the same way.
    let jcz =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/jcz/base-undo.jcz"))
            .unwrap();
    let (st, r) = request(addr, "POST", "/api/replays", &jcz).await;
    assert_eq!(st, 201, "{r}");
    let n = r["moves"].as_u64().unwrap();
    let rid = r["id"].as_str().unwrap();
    let (st, end) = get(addr, &format!("/api/replays/{rid}/{n}")).await;
    assert_eq!(st, 200, "{end}");
    assert!(end["board"].as_str().unwrap().contains("data-cell"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// 50 concurrent bot games on loopback, played to the end; every record replays to the
/// scores the server reported. Prints throughput and latency (no timed assertion).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_fifty_bot_games() {
    const GAMES: usize = 50;
    let dir = temp_dir("load");
    let mut cfg = config(&dir);
    cfg.limits.max_open_per_creator = GAMES;
    let (addr, _h) = start(&cfg).await;
    let t0 = Instant::now();
    let mut creates = Vec::new();
    for i in 0..GAMES {
        creates.push(tokio::spawn(async move {
            let bots = if i % 2 == 0 { ["random", "greedy"] } else { ["greedy", "random"] };
            let t = Instant::now();
            let (st, g) = post(
                addr,
                "/api/games",
                &json!({ "seats": [{ "bot": bots[0] }, { "bot": bots[1] }], "seed": 1000 + i as u64 }),
            )
            .await;
            assert_eq!(st, 201, "{g}");
            (g["id"].as_str().unwrap().to_string(), t.elapsed())
        }));
    }
    let mut ids = Vec::new();
    let mut latencies = Vec::new();
    for c in creates {
        let (id, l) = c.await.unwrap();
        ids.push(id);
        latencies.push(l);
    }
    // Poll every game's state (what watching browsers do) until all are over.
    let mut done = [false; GAMES];
    let deadline = Instant::now() + Duration::from_secs(240);
    while done.iter().any(|d| !d) {
        assert!(
            Instant::now() < deadline,
            "the games did not finish in time"
        );
        let mut polls = Vec::new();
        for (i, id) in ids.iter().enumerate().filter(|(i, _)| !done[*i]) {
            let id = id.clone();
            polls.push(tokio::spawn(async move {
                let t = Instant::now();
                let (st, v) = get(addr, &format!("/api/games/{id}")).await;
                assert_eq!(st, 200, "{v}");
                assert_eq!(v["broken"], Value::Null);
                (i, v["finished"] == true, t.elapsed())
            }));
        }
        for p in polls {
            let (i, fin, l) = p.await.unwrap();
            done[i] = fin;
            latencies.push(l);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let elapsed = t0.elapsed();

    // Every record replays to the result the server shows.
    let rules = carcassonne_rules::base_ruleset();
    let mut actions = 0usize;
    for id in &ids {
        let (_, v) = get(addr, &format!("/api/games/{id}")).await;
        let (_, rec) = get(addr, &format!("/api/games/{id}/record")).await;
        let record: Record = serde_json::from_value(rec).unwrap();
        actions += record.actions.len();
        let game = record.replay_with(&rules, id, None).unwrap();
        assert!(game.is_over());
        let scores: Vec<i32> = game.state().players().iter().map(|p| p.score).collect();
        let shown: Vec<i32> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["score"].as_i64().unwrap() as i32)
            .collect();
        assert_eq!(scores, shown, "game {id}");
        assert_eq!(record.result.as_ref(), Some(&scores), "game {id}");
    }
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    println!(
        "load: {GAMES} games, {actions} actions in {:.2}s = {:.0} actions/s, {:.1} games/s; \
         {} requests, latency p50 {:?} p95 {:?} max {:?}",
        elapsed.as_secs_f64(),
        actions as f64 / elapsed.as_secs_f64(),
        GAMES as f64 / elapsed.as_secs_f64(),
        latencies.len(),
        pct(0.5),
        pct(0.95),
        latencies[latencies.len() - 1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Expansion mixes: the nine official expansions, Hills & Sheep and both fan scripts
// ---------------------------------------------------------------------------------------

const OFFICIAL: [&str; 12] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "abbey-mayor",
    "princess-dragon",
    "tower",
    "hills-sheep",
    "bridges-castles-bazaars",
    "big-top",
];
const FAN: [&str; 2] = ["tactician", "promotions"];

fn fan_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fan-expansions")
}

/// A server config that also finds the repository's fan scripts (the native plugins are
/// found beside the test binary: `cargo build --workspace` puts them there).
fn config_with_fans(dir: &Path) -> Config {
    let mut c = config(dir);
    c.plugin_dirs = vec![fan_dir()];
    c
}

/// Game `id`'s record on disk once it holds `moves` actions: a person's move is answered
/// before its record is written (see `Games::act`).
async fn disk_record(dir: &Path, id: &str, moves: u64) -> Record {
    let path = dir.join("games").join(format!("{id}.json"));
    for _ in 0..500 {
        if let Ok(r) = Record::load(&path) {
            if r.actions.len() as u64 >= moves {
                return r;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{} never held {moves} actions", path.display());
}

/// The record of game `id` replayed by the engine (fan scripts found), with its scores.
async fn replayed_scores(addr: SocketAddr, dir: &Path, id: &str) -> (Record, Vec<i32>, bool) {
    let (st, rec) = get(addr, &format!("/api/games/{id}/record")).await;
    assert_eq!(st, 200);
    // Before the end the seed is not served: the record on disk has it.
    let record: Record = if rec["setup"]["seed"].is_null() {
        assert!(rec["seed_hidden"].is_string(), "{rec}");
        let (_, v) = get(addr, &format!("/api/games/{id}")).await;
        disk_record(dir, id, v["moves"].as_u64().unwrap()).await
    } else {
        serde_json::from_value(rec).unwrap()
    };
    let mut spec = record.rules_spec();
    spec.plugin_dirs = vec![fan_dir()];
    let rules = carcassonne_rules::build_ruleset(&spec).unwrap();
    let game = record.replay_with(&rules, id, None).unwrap();
    let scores = game.state().players().iter().map(|p| p.score).collect();
    (record, scores, game.is_over())
}

/// Plays up to `n` actions of a game of human seats through the API: an expansion's own
/// action (kind `custom`, or any action of a prompt that is not the base game's tile and
/// deployment steps) is sent in its record form (`action`), the others by a varied index.
/// Returns the expansions whose actions were sent, one entry per action.
async fn play_answering_prompts(
    addr: SocketAddr,
    id: &str,
    tokens: &[String],
    n: usize,
) -> Vec<String> {
    let mut answered = Vec::new();
    for step in 0..n {
        let (st, v) = get(addr, &format!("/api/games/{id}")).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["broken"], Value::Null, "game {id} broke");
        if v["finished"] == true {
            break;
        }
        let seat = v["current"].as_u64().unwrap() as usize;
        let actions = v["actions"].as_array().unwrap();
        assert!(
            !actions.is_empty(),
            "a decision with nothing offered: {}",
            v["prompt"]
        );
        let custom = actions.iter().find(|a| a["kind"] == "custom");
        let body = match custom {
            Some(a) => {
                answered.push(a["record"]["expansion"].as_str().unwrap().to_string());
                json!({ "token": tokens[seat], "action": a["record"], "version": v["version"] })
            }
            None => {
                let i = (step * 7919 + 13) % actions.len();
                json!({ "token": tokens[seat], "index": i, "version": v["version"] })
            }
        };
        let (st, r) = post(addr, &format!("/api/games/{id}/act"), &body).await;
        assert_eq!(st, 200, "{r} for {body}");
        assert_eq!(r["version"], v["version"].as_u64().unwrap() + 1);
    }
    answered
}

async fn create_mix(addr: SocketAddr, expansions: &[&str], seats: Value, seed: u64) -> Value {
    let (st, g) = post(
        addr,
        "/api/games",
        &json!({ "expansions": expansions, "seats": seats, "seed": seed }),
    )
    .await;
    assert_eq!(st, 201, "{expansions:?}: {g}");
    g
}

fn tokens_of(g: &Value) -> Vec<String> {
    g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_expansion_creates_plays_and_answers_prompts() {
    let dir = temp_dir("mixes");
    let (addr, _h) = start(&config_with_fans(&dir)).await;

    // The form's list: every official expansion (native) and both fan scripts, options
    // with defaults and descriptions.
    let (st, list) = get(addr, "/api/expansions").await;
    assert_eq!(st, 200);
    let listed = list["expansions"].as_array().unwrap();
    for id in OFFICIAL.iter().chain(&FAN) {
        let x = listed.iter().find(|x| x["id"] == *id).unwrap_or_else(|| {
            panic!("{id} is not listed (are the plugins built? `cargo build --workspace`): {list}")
        });
        let kind = x["kind"].as_str().unwrap();
        assert_eq!(kind == "script", FAN.contains(id), "{id}: kind {kind}");
        for o in x["options"].as_array().unwrap() {
            assert!(o["key"].is_string() && o["description"].is_string(), "{o}");
        }
    }
    let count = listed.iter().find(|x| x["id"] == "count").unwrap();
    assert!(count["options"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["key"] == "count.countMove" && o["default"] == "free"));

    // Each expansion alone, then all together: create, play 40 actions (90 for all) through the
    // API answering the expansions' own actions, and the record replays to what the
    // server shows.
    let humans = json!([{ "name": "Ann" }, { "name": "Bob" }, { "name": "Cy" }]);
    let mut mixes: Vec<Vec<&str>> = OFFICIAL.iter().chain(&FAN).map(|e| vec![*e]).collect();
    mixes.push(OFFICIAL.iter().chain(&FAN).copied().collect());
    let mut answered_all = BTreeMap::new();
    for (k, mix) in mixes.iter().enumerate() {
        let g = create_mix(addr, mix, humans.clone(), 500 + k as u64).await;
        let id = g["id"].as_str().unwrap();
        let tokens = tokens_of(&g);
        // The full mix gets a longer game: the fan scripts' actions (a promotion needs a
        // scoring first) come later when twelve expansions share the early turns.
        let steps = if mix.len() > 1 { 90 } else { 40 };
        let answered = play_answering_prompts(addr, id, &tokens, steps).await;
        let (_, v) = get(addr, &format!("/api/games/{id}")).await;
        let want: Vec<String> = mix.iter().map(|s| s.to_string()).collect();
        let have: Vec<String> = serde_json::from_value(v["expansions"].clone()).unwrap();
        assert!(want.iter().all(|w| have.contains(w)), "{have:?}");
        let (record, scores, _) = replayed_scores(addr, &dir, id).await;
        assert_eq!(record.actions.len() as u64, v["version"].as_u64().unwrap());
        let shown: Vec<i32> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["score"].as_i64().unwrap() as i32)
            .collect();
        assert_eq!(scores, shown, "{mix:?}");
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for a in &answered {
            *by.entry(a.clone()).or_default() += 1;
        }
        println!(
            "{mix:?}: {} actions, expansion actions answered: {by:?}",
            record.actions.len()
        );
        // Expansions with their own actions in the first turns: the Count (CO-16, after
        // its CO-4 deployment), the fairy and the dragon (PD), tower pieces (TW), the
        // Tactician's token (AT), promotions (AP).
        if mix.len() == 1
            && [
                "count",
                "princess-dragon",
                "tower",
                "tactician",
                "promotions",
            ]
            .contains(&mix[0])
        {
            assert!(
                by.contains_key(mix[0]),
                "{mix:?}: none of its actions came up"
            );
        }
        if mix.len() > 1 {
            answered_all = by;
        }
    }
    // With everything loaded, several expansions' actions (both fan scripts' among them)
    // were answered through the API.
    assert!(
        answered_all.len() >= 3
            && answered_all.contains_key("tactician")
            && answered_all.contains_key("promotions"),
        "{answered_all:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_bot_game_with_every_expansion() {
    let dir = temp_dir("all-bots");
    let (addr, _h) = start(&config_with_fans(&dir)).await;
    let all: Vec<&str> = OFFICIAL.iter().chain(&FAN).copied().collect();
    let t = Instant::now();
    let g = create_mix(
        addr,
        &all,
        json!([{ "bot": "greedy" }, { "bot": "random" }, { "bot": "greedy" }]),
        2026,
    )
    .await;
    let id = g["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(240);
    let v = loop {
        let (st, v) = get(addr, &format!("/api/games/{id}")).await;
        assert_eq!(st, 200);
        assert_eq!(v["broken"], Value::Null, "the game broke: {}", v["broken"]);
        if v["finished"] == true {
            break v;
        }
        assert!(
            Instant::now() < deadline,
            "the bot game did not end in time"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (record, scores, over) = replayed_scores(addr, &dir, &id).await;
    assert!(over);
    let shown: Vec<i32> = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["score"].as_i64().unwrap() as i32)
        .collect();
    assert_eq!(scores, shown);
    assert_eq!(record.result.as_ref(), Some(&scores));
    let customs = record
        .actions
        .iter()
        .filter(|a| matches!(a, carcassonne_play::record::RecordAction::Custom { .. }))
        .count();
    println!(
        "all eleven expansions, 3 bots: {} actions ({customs} custom) in {:.1}s, scores {scores:?}",
        record.actions.len(),
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Per-client rate limits
// ---------------------------------------------------------------------------------------

/// A request that also returns the `Retry-After` header.
async fn retry_after(addr: SocketAddr, path: &str) -> (u16, Option<u64>) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    let text = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    let after = text
        .lines()
        .find_map(|l| l.strip_prefix("retry-after:"))
        .and_then(|v| v.trim().parse().ok());
    (status, after)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_client_is_rate_limited() {
    let dir = temp_dir("rate");
    let mut cfg = config(&dir);
    cfg.limits.client_rate = 0.5;
    cfg.limits.client_burst = 10.0;
    cfg.limits.client_creates_per_minute = 1.0;
    cfg.limits.client_create_burst = 2.0;
    cfg.limits.limit_loopback = true; // the test's client is on loopback
    let app = App::open(&cfg).unwrap();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, carcassonne_serve::service(app))
            .await
            .unwrap();
    });
    // Creations: a burst of two, then refused (one a minute after that).
    let body = json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }], "seed": 1 });
    assert_eq!(post(addr, "/api/games", &body).await.0, 201);
    assert_eq!(post(addr, "/api/games", &body).await.0, 201);
    let (st, r) = post(addr, "/api/games", &body).await;
    assert_refused(st, &r, 429);
    assert!(r["error"].as_str().unwrap().contains("games created"));
    // Requests: 10 in a burst (3 spent above), then refused with Retry-After.
    for i in 0..7 {
        let (st, v) = get(addr, "/api/games").await;
        assert_eq!(st, 200, "request {i}: {v}");
    }
    let (st, after) = retry_after(addr, "/api/games").await;
    assert_eq!(st, 429);
    assert!(matches!(after, Some(1..=2)), "Retry-After {after:?}");
    let (st, r) = get(addr, "/api/games").await;
    assert_refused(st, &r, 429);
    // Tokens come back at the sustained rate.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(get(addr, "/api/games").await.0, 200);
    assert_eq!(get(addr, "/api/games").await.0, 429);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_clients_are_not_rate_limited_by_default() {
    let dir = temp_dir("rate-loopback");
    let mut cfg = config(&dir);
    cfg.limits.client_rate = 0.5;
    cfg.limits.client_burst = 2.0;
    let app = App::open(&cfg).unwrap();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, carcassonne_serve::service(app))
            .await
            .unwrap();
    });
    for _ in 0..10 {
        assert_eq!(get(addr, "/api/games").await.0, 200);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
