//! `carcassonne serve` answers a person's move before its record is written; stopped with
//! SIGTERM (what `kill` and service managers send) it still writes every answered move
//! before it exits (docs/serve.md, "Data folder").
#![cfg(unix)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One HTTP/1.1 request with a JSON body; the status and the JSON answer.
fn request(addr: SocketAddr, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let body = body.to_string();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status: u16 = out[9..12].parse().expect("status");
    let json = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or("")
        .trim();
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

#[test]
fn sigterm_writes_every_answered_move() {
    let data = tempfile::TempDir::new().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(["serve", "--port", &port.to_string(), "--data"])
        .arg(data.path())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    // The first line on stderr says it listens.
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("http://"), "{line}");
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();

    let (st, g) = request(
        addr,
        "POST",
        "/api/games",
        &json!({ "seats": [{ "name": "Ann" }, { "name": "Bob" }], "seed": 3 }),
    );
    assert_eq!(st, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> = g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    // Several moves by whoever is to play, each answered 200, then SIGTERM at once.
    for _ in 0..6 {
        let (_, v) = request(addr, "GET", &format!("/api/games/{id}"), &Value::Null);
        let seat = v["current"].as_u64().unwrap() as usize;
        let body = json!({ "token": tokens[seat], "index": 0, "version": v["version"] });
        let (st, r) = request(addr, "POST", &format!("/api/games/{id}/act"), &body);
        assert_eq!(st, 200, "{r}");
    }
    let (_, v) = request(addr, "GET", &format!("/api/games/{id}"), &Value::Null);
    let moves = v["moves"].as_u64().unwrap();
    assert!(moves >= 6, "{v}");
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(data.path().join(format!("games/{id}.json"))).unwrap(),
    )
    .unwrap();
    let actions = record["actions"].as_array().unwrap();
    assert_eq!(
        actions.len() as u64,
        moves,
        "every answered move is on disk"
    );
}
