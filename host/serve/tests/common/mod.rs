//! What the server's integration tests share: a configuration for a test server and
//! starting one on a free port.

#![allow(dead_code)] // each test file uses its own part

use carcassonne_serve::{router, App, Config};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// A fresh scratch folder for one test of one file (`prefix`), emptied first.
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "carcassonne-serve-{prefix}-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The seats' tokens of a created game's answer, in seat order.
pub fn seat_tokens(game: &Value) -> Vec<String> {
    game["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect()
}

/// An HTTP answer: status, header lines (as sent) and body (chunks joined).
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Reply {
    /// A header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One request over a fresh connection, spoken by hand (no client crate): `extra` is more
/// header lines, each ending in CRLF.
pub async fn request(addr: SocketAddr, method: &str, path: &str, body: &str, extra: &str) -> Reply {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut s = rest;
        while let Some((size, r)) = s.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
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
    Reply {
        status,
        head: head.to_string(),
        body,
    }
}

/// A server keeping its games in `dir`, on any free port, with bots that do not pause.
pub fn config(dir: &Path) -> Config {
    let mut c = Config::new(dir.to_path_buf());
    c.port = 0;
    c.bot_delay = Duration::ZERO;
    c
}

/// Starts a server for `cfg` on a free loopback port; its address and its task.
pub async fn start(cfg: &Config) -> (SocketAddr, JoinHandle<()>) {
    let app = App::open(cfg).expect("server opens");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let h = tokio::spawn(async move {
        axum::serve(listener, router(app)).await.unwrap();
    });
    (addr, h)
}
