//! The board sent as what changed (`GET /api/games/{id}?since=N`, `docs/serve.md`): a page
//! that starts from the whole board of version 0 and applies every delta as the page does
//! holds, at every version of a game, exactly the board the whole view shows — the same
//! tile groups and figure groups with the same text, the same extent, backdrop and
//! overlay. A version the server cannot answer from gets the whole board.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
mod common;
use common::{config, start};

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("deltas", name)
}

/// Status and JSON body of one request.
async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Value) {
    let r = common::request(addr, method, path, body, "").await;
    (r.status, r.json())
}

/// A board as the page holds it: the parts a delta replaces or adds to.
#[derive(Debug, PartialEq)]
struct Board {
    width: String,
    height: String,
    view_box: String,
    backdrop: String,
    overlay: String,
    /// Tile groups by cell, with their placement order.
    tiles: BTreeMap<String, (usize, String)>,
    /// Figure groups by cell (cells with no figure have none).
    figures: BTreeMap<String, (usize, String)>,
}

impl Board {
    /// The parts of a whole board SVG, cut from its text.
    fn parse(svg: &str) -> Board {
        let doc = roxmltree::Document::parse(svg).expect("the board is well-formed XML");
        let root = doc.root_element();
        let text = |n: roxmltree::Node| svg[n.range()].to_string();
        let by_id = |id: &str| {
            root.children()
                .find(|n| n.attribute("id") == Some(id))
                .unwrap_or_else(|| panic!("no #{id}"))
        };
        let groups = |id: &str| -> BTreeMap<String, (usize, String)> {
            let mut out = BTreeMap::new();
            let mut last = 0;
            for g in by_id(id).children().filter(|n| n.is_element()) {
                let order: usize = g.attribute("data-order").unwrap().parse().unwrap();
                assert!(order > last, "#{id}: groups in placement order");
                last = order;
                let cell = g.attribute("data-cell").unwrap().to_string();
                // Each group is drawn from its cell's corner (x·size, y·size).
                let (x, y) = cell.split_once(',').unwrap();
                let s: f64 = root.attribute("data-tile-size").unwrap().parse().unwrap();
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert_eq!(
                    g.attribute("transform"),
                    Some(format!("translate({:.1},{:.1})", x * s, y * s).as_str()),
                    "{cell}"
                );
                // The group's text with the line break the renderer ends it with.
                assert!(out
                    .insert(cell, (order, format!("{}\n", text(g))))
                    .is_none());
            }
            out
        };
        Board {
            width: root.attribute("width").unwrap().into(),
            height: root.attribute("height").unwrap().into(),
            view_box: root.attribute("viewBox").unwrap().into(),
            backdrop: format!("{}\n", text(by_id("backdrop"))),
            overlay: format!("{}\n", text(by_id("overlay"))),
            tiles: groups("tiles"),
            figures: groups("figures"),
        }
    }

    /// Applies a delta as the page does.
    fn apply(&mut self, d: &Value) {
        let s = |k: &str| d[k].as_str().unwrap().to_string();
        self.width = s("width");
        self.height = s("height");
        self.view_box = s("view_box");
        self.backdrop = s("backdrop");
        self.overlay = s("overlay");
        for c in d["cells"].as_array().unwrap() {
            let cell = c["cell"].as_str().unwrap().to_string();
            let order = c["order"].as_u64().unwrap() as usize;
            if let Some(t) = c["tile"].as_str() {
                self.tiles.insert(cell.clone(), (order, t.to_string()));
            }
            let f = c["figures"].as_str().unwrap();
            if f.is_empty() {
                self.figures.remove(&cell);
            } else {
                self.figures.insert(cell, (order, f.to_string()));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deltas_replayed_from_version_0_give_the_whole_board_at_every_version() {
    let dir = temp_dir("replay");
    let (addr, server) = start(&config(&dir)).await;
    // Princess & Dragon: the princess sends followers home and the dragon eats them, so
    // figure groups empty as well as fill; Inns & Cathedrals adds the big follower.
    let (st, g) = request(
        addr,
        "POST",
        "/api/games",
        &json!({ "expansions": ["inns-cathedrals", "princess-dragon"],
                 "seats": [{ "name": "Ann" }, { "name": "Bob" }], "seed": 7 })
        .to_string(),
    )
    .await;
    assert_eq!(st, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let tokens = common::seat_tokens(&g);
    let view = |since: Option<u64>| {
        let path = match since {
            Some(n) => format!("/api/games/{id}?since={n}"),
            None => format!("/api/games/{id}"),
        };
        async move {
            let (st, v) = request(addr, "GET", &path, "").await;
            assert_eq!(st, 200, "{v}");
            v
        }
    };
    let first = view(None).await;
    assert_eq!(first["version"], 0);
    assert!(first.get("board_delta").is_none());
    let mut page = Board::parse(first["board"].as_str().unwrap());
    let mut emptied = 0;
    let mut version = 0;
    let mut sent = (0, 0);
    while version < 120 {
        let whole = view(None).await;
        if whole["finished"] == true {
            break;
        }
        // A move: deployments first (so figures come and go), else an action by the step.
        let actions = whole["actions"].as_array().unwrap();
        let seat = whole["current"].as_u64().unwrap() as usize;
        let pick = actions
            .iter()
            .position(|a| a["kind"] == "deploy" && version % 3 != 2)
            .unwrap_or((version as usize * 7919 + 13) % actions.len());
        let (st, r) = request(
            addr,
            "POST",
            &format!("/api/games/{id}/act"),
            &json!({ "token": tokens[seat], "index": pick, "version": version }).to_string(),
        )
        .await;
        assert_eq!(st, 200, "{r}");
        let delta = view(Some(version)).await;
        version += 1;
        assert_eq!(delta["version"], version);
        assert!(delta.get("board").is_none(), "a delta, not the whole board");
        let d = &delta["board_delta"];
        assert_eq!(d["since"], version - 1);
        let before = page.figures.len();
        page.apply(d);
        emptied += usize::from(page.figures.len() < before);
        let whole = view(None).await;
        let expected = Board::parse(whole["board"].as_str().unwrap());
        assert_eq!(
            page, expected,
            "the board after the deltas up to version {version}"
        );
        // Everything else in the view is the same as in the whole view.
        let (mut a, mut b) = (delta.clone(), whole.clone());
        a.as_object_mut().unwrap().remove("board_delta");
        b.as_object_mut().unwrap().remove("board");
        assert_eq!(a, b, "version {version}");
        sent.0 += delta.to_string().len();
        sent.1 += whole.to_string().len();
    }
    assert!(version >= 40, "the game went on ({version} actions)");
    assert!(
        emptied > 0,
        "some figures left the board and their groups went"
    );
    assert!(
        sent.0 * 3 < sent.1,
        "deltas are much smaller than whole views ({} vs {} bytes)",
        sent.0,
        sent.1
    );
    // A delta over many versions is the same as the steps.
    let mut from0 = Board::parse(first["board"].as_str().unwrap());
    from0.apply(&view(Some(0)).await["board_delta"]);
    assert_eq!(from0, page, "since 0 in one step");
    // A version the server does not have (the future, or before a restart): the whole board.
    let future = view(Some(version + 5)).await;
    assert!(future.get("board_delta").is_none() && future["board"].is_string());
    server.abort();
    let _ = server.await;
    let (addr2, _h) = start(&config(&dir)).await;
    let (st, again) = request(addr2, "GET", &format!("/api/games/{id}?since=3"), "").await;
    assert_eq!(st, 200);
    assert!(
        again.get("board_delta").is_none() && again["board"].is_string(),
        "after a restart a page's old version gets the whole board"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
