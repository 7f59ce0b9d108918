//! The cache of game views: a view is drawn once per state and tagged (`ETag`); a client
//! that has the current one gets 304; a move, a resignation or a restart never serves a
//! stale view.

use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::PathBuf;
mod common;
use common::{config, request, start, Reply};

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("cache", name)
}

async fn view(addr: SocketAddr, id: &str, token: Option<&str>, tag: Option<&str>) -> Reply {
    let q = token.map_or_else(String::new, |t| format!("?token={t}"));
    let inm = tag.map_or_else(String::new, |t| format!("If-None-Match: {t}\r\n"));
    request(addr, "GET", &format!("/api/games/{id}{q}"), "", &inm).await
}

/// A game of two people with a fixed seed: its id and the seats' tokens.
async fn create(addr: SocketAddr) -> (String, Vec<String>) {
    let r = request(
        addr,
        "POST",
        "/api/games",
        &json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }], "seed": 7 }).to_string(),
        "",
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let g = r.json();
    let tokens = common::seat_tokens(&g);
    (g["id"].as_str().unwrap().to_string(), tokens)
}

/// The first offered action of whoever is to move.
async fn act(addr: SocketAddr, id: &str, tokens: &[String]) {
    let v = view(addr, id, None, None).await.json();
    let seat = v["current"].as_u64().unwrap() as usize;
    let body = json!({ "token": tokens[seat], "index": 0, "version": v["version"] });
    let r = request(
        addr,
        "POST",
        &format!("/api/games/{id}/act"),
        &body.to_string(),
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unchanged_views_are_not_sent_again_and_a_move_gives_the_new_one() {
    let dir = temp_dir("tags");
    let (addr, _h) = start(&config(&dir)).await;
    let (id, tokens) = create(addr).await;

    let first = view(addr, &id, Some(&tokens[0]), None).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("cache-control").as_deref(), Some("no-cache"));
    let tag = first.header("etag").expect("a view is tagged");
    let v0 = first.json();
    assert_eq!(v0["you"], 0);
    assert_eq!(v0["version"], 0);

    // Nothing changed: 304, no body, the same tag.
    let again = view(addr, &id, Some(&tokens[0]), Some(&tag)).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty(), "{}", again.body);
    assert_eq!(again.header("etag"), Some(tag.clone()));
    // A list of tags holding the current one, as HTTP allows.
    let listed = format!("\"x\", {tag}");
    assert_eq!(
        view(addr, &id, Some(&tokens[0]), Some(&listed))
            .await
            .status,
        304
    );

    // Another seat and a spectator share the drawing but not the tag: `you` differs.
    let bob = view(addr, &id, Some(&tokens[1]), Some(&tag)).await;
    assert_eq!(bob.status, 200);
    assert_eq!(bob.json()["you"], 1);
    let watcher = view(addr, &id, None, Some(&tag)).await;
    assert_eq!(watcher.status, 200);
    assert_eq!(watcher.json()["you"], Value::Null);
    assert_eq!(watcher.json()["token_unknown"], false);
    let forged = view(addr, &id, Some("00"), None).await.json();
    assert_eq!(forged["you"], Value::Null);
    assert_eq!(forged["token_unknown"], true);
    // Apart from the seat asking, every viewer sees the same view.
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("you");
        v
    };
    assert_eq!(strip(v0.clone()), strip(bob.json()));

    // A move: the old tag gets the new view, never a 304 or the old one.
    act(addr, &id, &tokens).await;
    let after = view(addr, &id, Some(&tokens[0]), Some(&tag)).await;
    assert_eq!(after.status, 200);
    let v1 = after.json();
    assert_eq!(v1["version"], 1);
    assert_eq!(v1["moves"], 1);
    assert_ne!(v1["board"], v0["board"], "the board shows the tile placed");
    assert_ne!(v1["last"], Value::Null);
    let tag1 = after.header("etag").unwrap();
    assert_ne!(tag1, tag);
    assert_eq!(
        view(addr, &id, Some(&tokens[0]), Some(&tag1)).await.status,
        304
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resignation_changes_the_view_without_a_move() {
    let dir = temp_dir("resign");
    let (addr, _h) = start(&config(&dir)).await;
    // Three people, so that the game goes on (a bot takes the seat) after one resigns.
    let r = request(
        addr,
        "POST",
        "/api/games",
        &json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }, { "name": "Cy" }], "seed": 3 })
            .to_string(),
        "",
    )
    .await;
    let g = r.json();
    let id = g["id"].as_str().unwrap().to_string();
    let tok = |i: usize| g["seats"][i]["token"].as_str().unwrap().to_string();
    // Bob watches; it is Ann's turn, so nothing moves when Cy resigns.
    let before = view(addr, &id, Some(&tok(1)), None).await;
    let tag = before.header("etag").unwrap();
    assert_eq!(before.json()["seats"][2]["resigned"], false);
    let body = json!({ "token": tok(2) }).to_string();
    let r = request(addr, "POST", &format!("/api/games/{id}/resign"), &body, "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let after = view(addr, &id, Some(&tok(1)), Some(&tag)).await;
    assert_eq!(after.status, 200, "a resignation is news");
    let v = after.json();
    assert_eq!(v["version"], before.json()["version"]);
    assert_eq!(v["seats"][2]["resigned"], true);
    assert_eq!(v["seats"][2]["bot"], "greedy");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A view served from the cache is the one a server that never cached it draws: after a
/// restart (the game replayed from its record) the same state has the same text and tag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_views_equal_views_drawn_afresh() {
    let dir = temp_dir("restart");
    let cfg = config(&dir);
    let (addr, h) = start(&cfg).await;
    let (id, tokens) = create(addr).await;
    for _ in 0..12 {
        act(addr, &id, &tokens).await;
    }
    // Drawn once, then served from the cache to the second request.
    let _ = view(addr, &id, Some(&tokens[1]), None).await;
    let cached = view(addr, &id, Some(&tokens[0]), None).await;
    h.abort();
    // A person's move is answered before its record is written (see `Games::act`).
    let path = dir.join("games").join(format!("{id}.json"));
    for _ in 0..500 {
        let done =
            carcassonne_play::record::Record::load(&path).is_ok_and(|r| r.actions.len() >= 12);
        if done {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let (addr, _h) = start(&cfg).await;
    let fresh = view(addr, &id, Some(&tokens[0]), None).await;
    assert_eq!(fresh.status, 200);
    assert_eq!(cached.json()["version"], 12);
    assert_eq!(cached.body, fresh.body, "the cached view is the view");
    assert_eq!(cached.header("etag"), fresh.header("etag"));
    let _ = std::fs::remove_dir_all(&dir);
}
