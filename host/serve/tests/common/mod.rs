//! What the server's integration tests share: a configuration for a test server and
//! starting one on a free port.

use carcassonne_serve::{router, App, Config};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use tokio::task::JoinHandle;

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
