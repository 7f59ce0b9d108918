//! Load test of `carcassonne serve`: starts a server (this program again, as a child
//! process, so that its memory and CPU are its own), plays concurrent games in which a
//! scripted person plays seat 0 against a bot, and prints the latency of each kind of
//! request and the server's peak memory.
//!
//! ```text
//! cargo run -p carcassonne-serve --example load -- [--games 100] [--pollers 16]
//!     [--think-ms 300] [--bot-delay-ms 400] [--max-moves N] [--whole 1]
//!     [--server PATH]
//! ```
//!
//! Views are asked with `since=` the version the client has (the board as what changed,
//! as the page does); `--whole 1` asks whole views. `--server PATH` runs another build of
//! this program as the server (`PATH --serve …`), to compare builds with the same client.
//!
//! Each game is followed like the page follows it: one event stream per game; on every
//! update its view is fetched again (sending back the tag of the view it has, as a browser
//! does), and when seat 0 is to move the player thinks `think-ms` and posts a random legal
//! action. `pollers` more clients fetch the view of a random game every 500 ms. Games run to
//! their end (or `max-moves` of seat 0).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[derive(Clone, Copy)]
struct Opts {
    games: usize,
    pollers: usize,
    think: Duration,
    bot_delay: Duration,
    max_moves: usize,
    whole: bool,
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        games: 100,
        pollers: 16,
        think: Duration::from_millis(300),
        bot_delay: Duration::from_millis(400),
        max_moves: usize::MAX,
        whole: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
        let n: u64 = v
            .parse()
            .map_err(|_| format!("{a}: `{v}` is not a number"))?;
        match a.as_str() {
            "--games" => o.games = n as usize,
            "--pollers" => o.pollers = n as usize,
            "--think-ms" => o.think = Duration::from_millis(n),
            "--bot-delay-ms" => o.bot_delay = Duration::from_millis(n),
            "--max-moves" => o.max_moves = n as usize,
            "--whole" => o.whole = n != 0,
            _ => return Err(format!("unknown option {a}")),
        }
    }
    Ok(o)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--serve") {
        return serve(&args[1..]);
    }
    // `--server PATH` (not a number) is taken out before the numeric options.
    let mut args = args;
    let server = match args.iter().position(|a| a == "--server") {
        Some(i) if i + 1 < args.len() => {
            let p = args.remove(i + 1);
            args.remove(i);
            std::path::PathBuf::from(p)
        }
        _ => std::env::current_exe().expect("own path"),
    };
    let opts = parse_opts(&args).unwrap_or_else(|e| {
        eprintln!("load: {e}");
        std::process::exit(2)
    });
    let data = std::env::temp_dir().join(format!("carcassonne-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut child = std::process::Command::new(&server)
        .args([
            "--serve".to_string(),
            data.display().to_string(),
            opts.bot_delay.as_millis().to_string(),
            opts.games.to_string(),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("the server tells its address");
    let addr: SocketAddr = line.trim().parse().expect("an address");
    let pid = child.id();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let t0 = Instant::now();
    let cpu0 = cpu_seconds(pid);
    let stats = rt.block_on(drive(addr, &opts));
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid) - cpu0;
    let rss = peak_rss_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
    report(&stats, &opts, elapsed, cpu, rss);
}

/// The server half: `--serve DATA_DIR BOT_DELAY_MS GAMES`; prints its address.
fn serve(args: &[String]) {
    let data = std::path::PathBuf::from(&args[0]);
    let mut cfg = carcassonne_serve::Config::new(data);
    cfg.bot_delay = Duration::from_millis(args[1].parse().expect("bot delay"));
    // Every game of the test is created from one address.
    cfg.limits.max_open_per_creator = args[2].parse().expect("games");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async move {
        let app = carcassonne_serve::App::open(&cfg).expect("server opens");
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind");
        println!("{}", listener.local_addr().expect("address"));
        axum::serve(listener, carcassonne_serve::service(app))
            .await
            .expect("serve");
    });
}

/// Latencies (ms) by kind of request, sizes of the views sent, failures.
#[derive(Default)]
struct Stats {
    ms: BTreeMap<&'static str, Vec<f64>>,
    view_bytes: Vec<usize>,
    poll_bytes: Vec<usize>,
    failures: Vec<String>,
    moves: usize,
    finished: usize,
}

type Shared = Arc<Mutex<Stats>>;

fn note(stats: &Shared, kind: &'static str, t: Instant) {
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    stats.lock().unwrap().ms.entry(kind).or_default().push(ms);
}

fn fail(stats: &Shared, what: String) {
    stats.lock().unwrap().failures.push(what);
}

struct Reply {
    status: u16,
    etag: Option<String>,
    body: String,
}

/// One HTTP/1.1 request on its own connection.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    tag: Option<&str>,
) -> std::io::Result<Reply> {
    let mut s = TcpStream::connect(addr).await?;
    let inm = tag.map_or_else(String::new, |t| format!("If-None-Match: {t}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nConnection: close\r\n{inm}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await?;
    s.write_all(body.as_bytes()).await?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await?;
    let text = String::from_utf8_lossy(&buf);
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut etag = None;
    let mut chunked = false;
    for l in head.lines() {
        let lower = l.to_ascii_lowercase();
        if lower.starts_with("etag:") {
            etag = Some(l[5..].trim().to_string());
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
    }
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    Ok(Reply { status, etag, body })
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].strip_prefix("\r\n").unwrap_or(&rest[n..]);
    }
    out
}

/// Holds a game's event stream open; sends each version it announces.
async fn follow(addr: SocketAddr, id: String, tx: tokio::sync::watch::Sender<u64>) {
    let Ok(mut s) = TcpStream::connect(addr).await else {
        return;
    };
    let head = format!(
        "GET /api/games/{id}/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
    );
    if s.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let mut lines = BufReader::new(s).lines();
    while let Ok(Some(l)) = lines.next_line().await {
        if let Some(v) = l.strip_prefix("data: ") {
            let v = v
                .split(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            tx.send_replace(v);
        }
    }
}

/// What the player reads of a view (the rest, the board above all, is skipped unparsed).
#[derive(serde::Deserialize)]
struct Head {
    version: u64,
    finished: bool,
    broken: Option<String>,
    current: Option<u64>,
    you: Option<u64>,
    actions: Vec<serde::de::IgnoredAny>,
}

/// A poller reads only the version of the view it got.
#[derive(serde::Deserialize)]
struct Version {
    version: u64,
}

/// Creates game `i`, plays seat 0 to the end.
async fn play(addr: SocketAddr, i: usize, opts: Arc<Opts>, stats: Shared) -> Option<String> {
    let bot = if i % 2 == 0 { "greedy" } else { "random" };
    let create =
        json!({ "seats": [{ "name": format!("P{i}") }, { "bot": bot }], "seed": 1000 + i as u64 });
    let t = Instant::now();
    let r = request(addr, "POST", "/api/games", &create.to_string(), None)
        .await
        .ok()?;
    note(&stats, "create", t);
    if r.status != 201 {
        fail(&stats, format!("create {i}: {} {}", r.status, r.body));
        return None;
    }
    let g: Value = serde_json::from_str(&r.body).ok()?;
    let id = g["id"].as_str()?.to_string();
    let token = g["seats"][0]["token"].as_str()?.to_string();
    let (tx, mut rx) = tokio::sync::watch::channel(0u64);
    let stream = tokio::spawn(follow(addr, id.clone(), tx));
    let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
    let (mut view, mut tag): (Option<Head>, Option<String>) = (None, None);
    let mut moves = 0;
    loop {
        let t = Instant::now();
        let since = match (&view, opts.whole) {
            (Some(v), false) => format!("&since={}", v.version),
            _ => String::new(),
        };
        let path = format!("/api/games/{id}?token={token}{since}");
        let Ok(r) = request(addr, "GET", &path, "", tag.as_deref()).await else {
            fail(&stats, format!("game {id}: view failed"));
            break;
        };
        match r.status {
            200 => {
                note(&stats, "view", t);
                stats.lock().unwrap().view_bytes.push(r.body.len());
                view = serde_json::from_str(&r.body).ok();
                tag = r.etag;
            }
            304 => note(&stats, "view 304", t),
            s => {
                fail(&stats, format!("game {id}: view {s} {}", r.body));
                break;
            }
        }
        let Some(view) = &view else {
            fail(&stats, format!("game {id}: a view that does not parse"));
            break;
        };
        if view.finished || view.broken.is_some() || moves >= opts.max_moves {
            stats.lock().unwrap().finished += usize::from(view.finished);
            break;
        }
        let n = view.actions.len();
        if view.you == Some(0) && view.current == Some(0) && n > 0 {
            tokio::time::sleep(opts.think).await;
            let act =
                json!({ "token": token, "index": rng.random_range(0..n), "version": view.version });
            let t = Instant::now();
            match request(
                addr,
                "POST",
                &format!("/api/games/{id}/act"),
                &act.to_string(),
                None,
            )
            .await
            {
                Ok(r) if r.status == 200 => {
                    note(&stats, "act", t);
                    moves += 1;
                }
                Ok(r) => fail(&stats, format!("game {id}: act {} {}", r.status, r.body)),
                Err(e) => fail(&stats, format!("game {id}: act: {e}")),
            }
            stats.lock().unwrap().moves += 1;
        } else {
            // A bot is to move: wait for the stream to announce a newer version.
            let seen = view.version;
            let wait = rx.wait_for(|v| *v > seen);
            if tokio::time::timeout(Duration::from_secs(30), wait)
                .await
                .is_err()
            {
                fail(&stats, format!("game {id}: no update in 30 s"));
                break;
            }
        }
    }
    stream.abort();
    Some(id)
}

/// Fetches the view of a random game every 500 ms until `stop`.
async fn poll(
    addr: SocketAddr,
    ids: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    seed: u64,
    stats: Shared,
    whole: bool,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tags: BTreeMap<String, String> = BTreeMap::new();
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();

    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let id = {
            let ids = ids.lock().unwrap();
            if ids.is_empty() {
                continue;
            }
            ids[rng.random_range(0..ids.len())].clone()
        };
        let t = Instant::now();
        let since = match versions.get(&id) {
            Some(v) if !whole => format!("?since={v}"),
            _ => String::new(),
        };
        let path = format!("/api/games/{id}{since}");
        match request(addr, "GET", &path, "", tags.get(&id).map(String::as_str)).await {
            Ok(r) if r.status == 200 => {
                note(&stats, "poll", t);
                stats.lock().unwrap().poll_bytes.push(r.body.len());
                if let Ok(v) = serde_json::from_str::<Version>(&r.body) {
                    versions.insert(id.clone(), v.version);
                }
                if let Some(e) = r.etag {
                    tags.insert(id, e);
                }
            }
            Ok(r) if r.status == 304 => note(&stats, "poll 304", t),
            Ok(r) => fail(&stats, format!("poll {id}: {} {}", r.status, r.body)),
            Err(e) => fail(&stats, format!("poll {id}: {e}")),
        }
    }
}

async fn drive(addr: SocketAddr, opts: &Opts) -> Stats {
    let stats: Shared = Arc::default();
    let opts = Arc::new(*opts);
    let ids: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pollers: Vec<_> = (0..opts.pollers)
        .map(|p| {
            tokio::spawn(poll(
                addr,
                Arc::clone(&ids),
                Arc::clone(&stop),
                p as u64,
                Arc::clone(&stats),
                opts.whole,
            ))
        })
        .collect();
    let games: Vec<_> = (0..opts.games)
        .map(|i| {
            let (o, s, ids) = (Arc::clone(&opts), Arc::clone(&stats), Arc::clone(&ids));
            tokio::spawn(async move {
                if let Some(id) = play(addr, i, o, s).await {
                    ids.lock().unwrap().retain(|x| *x != id);
                }
            })
        })
        .collect();
    // Pollers look at games in progress: list them as they appear.
    let lister = {
        let (ids, stop) = (Arc::clone(&ids), Arc::clone(&stop));
        tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                if let Ok(r) = request(addr, "GET", "/api/games", "", None).await {
                    if let Ok(v) = serde_json::from_str::<Value>(&r.body) {
                        let live: Vec<String> = v
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|g| g["finished"] != true)
                            .filter_map(|g| g["id"].as_str().map(str::to_string))
                            .collect();
                        *ids.lock().unwrap() = live;
                    }
                }
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        })
    };
    for g in games {
        let _ = g.await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for p in pollers {
        let _ = p.await;
    }
    let _ = lister.await;
    Arc::try_unwrap(stats)
        .map(|m| m.into_inner().unwrap())
        .unwrap_or_default()
}

/// Seconds of CPU the process has used (user + system), from `/proc`.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces): utime is the 14th field.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // `rest` starts at field 3 (state, not a number, is dropped): utime, stime are 14, 15.
    (f.get(10).copied().unwrap_or(0.0) + f.get(11).copied().unwrap_or(0.0)) / 100.0
}

/// Peak resident memory of the process (KiB), from `/proc`.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

fn report(stats: &Stats, opts: &Opts, elapsed: f64, cpu: f64, rss: Option<u64>) {
    println!(
        "load: {} games ({} finished), {} event streams, {} pollers, think {} ms, bot delay {} ms: {:.1} s, {} moves by seat 0",
        opts.games,
        stats.finished,
        opts.games,
        opts.pollers,
        opts.think.as_millis(),
        opts.bot_delay.as_millis(),
        elapsed,
        stats.moves
    );
    println!(
        "{:<10} {:>7} {:>9} {:>9} {:>9} {:>9}",
        "request", "count", "p50 ms", "p90 ms", "p99 ms", "max ms"
    );
    for (kind, v) in &stats.ms {
        let mut v = v.clone();
        v.sort_by(f64::total_cmp);
        let pct = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        println!(
            "{kind:<10} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            v.len(),
            pct(0.5),
            pct(0.9),
            pct(0.99),
            v[v.len() - 1]
        );
    }
    let biggest = stats.view_bytes.iter().max().copied().unwrap_or(0);
    println!("largest view sent: {} KB", biggest / 1024);
    for (what, v) in [("view", &stats.view_bytes), ("poll", &stats.poll_bytes)] {
        let total: usize = v.iter().sum();
        println!(
            "bytes per {what} (200): mean {:.1} KB, {:.1} MB in all",
            total as f64 / v.len().max(1) as f64 / 1024.0,
            total as f64 / 1048576.0
        );
    }
    println!(
        "server: {:.1} s of CPU ({:.0}% of one core), peak RSS {}",
        cpu,
        100.0 * cpu / elapsed.max(1e-9),
        rss.map_or("unknown".into(), |k| format!(
            "{:.1} MiB",
            k as f64 / 1024.0
        ))
    );
    println!("failures: {}", stats.failures.len());
    for f in stats.failures.iter().take(10) {
        println!("  {f}");
    }
}
