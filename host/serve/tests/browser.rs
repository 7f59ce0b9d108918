//! End to end in a real headless browser: Debian's `chromium` driven through
//! `chromedriver` (WebDriver over HTTP, spoken by hand: no extra crates). The test opens the
//! page, creates a 2-seat game against a bot with the form, plays the whole game by clicking
//! the offered moves (a highlighted cell, then "Place"; then the first offered action button),
//! and checks the final-score screen against the game record.
//!
//! UNFINISHED: ignored (not part of `cargo test --workspace`); its first run did not finish
//! within 10 minutes and there was no time left to find out why. Run by hand:
//! `apt-get install chromium chromium-driver`, then
//! `cargo test -p carcassonne-serve --test browser -- --ignored --nocapture`. Without
//! chromedriver it says it is skipped. It saves a screenshot of the game in progress as
//! `target/serve-screenshot.png`.

use carcassonne_play::record::Record;
use carcassonne_serve::{router, App, Config};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let rest = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut s = rest;
        while let Some((size, r)) = s.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            out.push_str(&r[..n]);
            s = &r[n + 2..];
        }
        out
    } else {
        rest.to_string()
    };
    serde_json::from_str(&rest).unwrap_or(Value::String(rest))
}

fn find_driver() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain([
            PathBuf::from("/usr/bin"),
            PathBuf::from("/usr/lib/chromium"),
        ])
        .map(|d| d.join("chromedriver"))
        .find(|p| p.is_file())
}

struct Driver {
    child: Child,
    addr: SocketAddr,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    async fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = request(
            self.addr,
            method,
            &format!("/session/{}{path}", self.session),
            body.as_ref(),
        )
        .await;
        v["value"].clone()
    }

    async fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
        .await
    }

    /// A real click (WebDriver element click) on the first element matching `css`.
    async fn click(&self, css: &str) -> bool {
        let e = self
            .cmd(
                "POST",
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        let Some(id) = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
        else {
            return false;
        };
        let r = self
            .cmd("POST", &format!("/element/{id}/click"), Some(json!({})))
            .await;
        r.is_null() || r.get("error").is_none()
    }

    async fn wait_for(&self, script: &str, what: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.js(script).await;
            if !v.is_null() && v != json!(false) {
                return v;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn start_driver(driver: &Path) -> Option<Driver> {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
        l.local_addr().ok()?.port()
    };
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().ok()?;
    let mut d = Driver {
        child,
        addr,
        session: String::new(),
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(addr).await.is_err() {
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let caps = json!({ "capabilities": { "alwaysMatch": { "goog:chromeOptions": {
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]
    } } } });
    let r = request(addr, "POST", "/session", Some(&caps)).await;
    d.session = r["value"]["sessionId"].as_str()?.to_string();
    Some(d)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "unfinished: not yet seen to pass (its first run did not end within 10 minutes); run by hand with --ignored after installing chromium and chromium-driver"]
async fn play_a_whole_game_in_chromium() {
    let Some(driver_path) = find_driver() else {
        println!("browser test skipped: chromedriver is not installed (scripts/test-deps.sh installs chromium and chromium-driver)");
        return;
    };
    let dir =
        std::env::temp_dir().join(format!("carcassonne-serve-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = Config::new(dir.clone());
    cfg.bot_delay = Duration::ZERO;
    let app = App::open(&cfg).unwrap();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let server = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router(app)).await.unwrap();
    });
    let Some(d) = start_driver(&driver_path).await else {
        println!("browser test skipped: chromedriver did not start a headless chromium session");
        return;
    };

    // The form: 2 seats, the second a greedy bot (the default), create, follow the link.
    d.cmd(
        "POST",
        "/url",
        Some(json!({ "url": format!("http://{server}/") })),
    )
    .await;
    d.wait_for(
        "return document.querySelectorAll('#seats tbody tr').length === 2 && document.querySelector('input[data-exp]') !== null",
        "the create form",
    )
    .await;
    assert!(d.click("#create").await);
    d.wait_for(
        "return document.getElementById('play-first') !== null",
        "the seat links",
    )
    .await;
    assert!(d.click("#play-first").await);
    let id = d
        .wait_for(
            "return (typeof view !== 'undefined' && view && view.id) || null",
            "the game page",
        )
        .await;
    let id = id.as_str().unwrap().to_string();

    // Play: whenever it is our move, click a highlighted cell, then Place (after the
    // preview); in any other step click the first offered action.
    let mut moves = 0;
    let mut shot = false;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        assert!(Instant::now() < deadline, "the game did not end in time");
        let st = d
            .wait_for(
                "if (!document.getElementById('final').hidden) return {final: true};
                 if (typeof view === 'undefined' || !view || fetching) return null;
                 if (!myTurn()) return null;
                 return {final: false, version: view.version,
                         cells: document.querySelectorAll('#board .cell').length,
                         buttons: document.querySelectorAll('#actions button.act').length};",
                "our move or the end",
            )
            .await;
        if st["final"] == true {
            break;
        }
        let version = st["version"].as_u64().unwrap();
        if st["cells"].as_u64().unwrap() > 0 {
            assert!(d.click("#board .cell").await, "click a highlighted cell");
            d.wait_for(
                "return !document.getElementById('placing').hidden && document.querySelector('#board .cell.selected') !== null",
                "the placement preview",
            )
            .await;
            if moves == 20 && !shot {
                let png = d.cmd("GET", "/screenshot", None).await;
                if let Some(b64) = png.as_str() {
                    let out = Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("../../target/serve-screenshot.png");
                    let _ = std::fs::write(out, decode_base64(b64));
                    shot = true;
                }
            }
            assert!(d.click("#place").await, "click Place");
        } else {
            assert!(st["buttons"].as_u64().unwrap() > 0, "no move offered: {st}");
            assert!(d.click("#actions button.act").await, "click an action");
        }
        moves += 1;
        d.wait_for(
            &format!("return document.getElementById('final').hidden === false || (view && view.version > {version})"),
            "the move to be taken",
        )
        .await;
    }

    // The final-score screen against the record.
    let shown = d
        .js("return [...document.querySelectorAll('#final-scores li')].map(li => [li.dataset.name, +li.dataset.score]);")
        .await;
    let record: Record = serde_json::from_value(
        request(server, "GET", &format!("/api/games/{id}/record"), None).await,
    )
    .unwrap();
    let game = record
        .replay_with(&carcassonne_rules::base_ruleset(), &id, None)
        .unwrap();
    assert!(game.is_over());
    let mut want: Vec<(String, i64)> = game
        .state()
        .players()
        .iter()
        .map(|p| (p.name.clone(), p.score as i64))
        .collect();
    want.sort_by_key(|w| std::cmp::Reverse(w.1));
    let got: Vec<(String, i64)> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_i64().unwrap()))
        .collect();
    assert_eq!(got.len(), 2);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.1, w.1, "final scores {got:?} vs the record's {want:?}");
    }
    let names: std::collections::BTreeSet<_> = got.iter().map(|g| g.0.clone()).collect();
    assert_eq!(names, want.iter().map(|w| w.0.clone()).collect());
    println!("browser: played {moves} moves by clicking; final scores {got:?} match the record");
    let _ = d.cmd("DELETE", "", None).await;
    let _ = std::fs::remove_dir_all(&dir);
}

fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
