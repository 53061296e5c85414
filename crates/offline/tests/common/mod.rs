//! Setup shared by the integration tests: an in-process sandbox (demo seed) on a fixed
//! clock, signed-in clients, workspace files and lookups by name.
//!
//! Each test file compiles this module on its own and uses only part of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use flightdeck_client::session::Session;
use flightdeck_client::{Client, ClientConfig, Credentials, SecretString};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind};
use flightdeck_offline::workspace::Workspace;
use flightdeck_sandbox::{Config, Running, Sandbox, Seed};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// 2027-01-15T08:00:00Z: the sandbox clock at start.
pub const NOW: i64 = 1_800_000_000_000;
pub const DAY: i64 = 86_400_000;

/// A sandbox serving on a free loopback port; its state stays reachable for counting
/// rows and injecting faults below HTTP.
pub struct Server {
    pub sandbox: Sandbox,
    pub running: Running,
}

impl Server {
    pub async fn start() -> Server {
        let sandbox = Sandbox::open(&Config {
            seed: Seed::Demo,
            clock_start: Some(NOW),
            ..Config::default()
        })
        .expect("open sandbox");
        let running = sandbox
            .clone()
            .spawn("127.0.0.1:0".parse().unwrap())
            .await
            .expect("spawn sandbox");
        Server { sandbox, running }
    }

    /// `demo` with a renewing session: the audience endpoints take only access tokens.
    pub async fn demo(&self) -> Client {
        let config = ClientConfig::new(&self.running.base_url()).unwrap();
        let session = Session::user(&config, "demo", SecretString::from("demo"), None)
            .await
            .expect("sign in");
        Client::new(config, Credentials::Session(Arc::new(session))).unwrap()
    }
}

pub fn file(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("workspace.sqlite")
}

pub fn open(path: &Path) -> Workspace {
    Workspace::open(path).expect("open workspace")
}

pub fn typed<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

/// The entity of `kind` whose working copy has this `name`.
pub fn by_name(ws: &Workspace, kind: Kind, name: &str) -> EntityRef {
    ws.list(kind)
        .unwrap()
        .into_iter()
        .find(|e| e.working["name"] == name)
        .unwrap_or_else(|| panic!("no {kind:?} named {name}"))
        .target
}

pub fn status_of(ws: &Workspace, seq: i64) -> ChangeStatus {
    ws.change(seq).unwrap().unwrap().status
}

/// A request the client sent, as the recording front of [`Server::recording`] saw it.
#[derive(Debug, Clone)]
pub struct Sent {
    /// `POST /v1/adorder/save`.
    pub request: String,
    /// The JSON body (`Null` when not JSON).
    pub body: Value,
}

impl Server {
    /// A client whose requests go through a recording front of the same sandbox: the
    /// bodies exactly as they left the client, for wire assertions, and every request
    /// that reached the service, for counting.
    pub async fn recording(&self) -> (Client, Arc<std::sync::Mutex<Vec<Sent>>>) {
        use axum::body::Body;
        use axum::extract::Request;
        use axum::middleware::Next;

        let log: Arc<std::sync::Mutex<Vec<Sent>>> = Arc::default();
        let sink = Arc::clone(&log);
        let router = self.sandbox.router().layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let sink = Arc::clone(&sink);
                async move {
                    let (parts, body) = req.into_parts();
                    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                    sink.lock().unwrap().push(Sent {
                        request: format!("{} {}", parts.method, parts.uri.path()),
                        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                    });
                    next.run(Request::from_parts(parts, Body::from(bytes)))
                        .await
                }
            },
        ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Served like the sandbox itself, so an injected drop closes the connection
        // rather than answering 503.
        tokio::spawn(flightdeck_sandbox::server::serve(
            listener,
            router,
            std::future::pending(),
        ));
        let config = ClientConfig::new(&format!("http://{addr}")).unwrap();
        let session = Session::user(&config, "demo", SecretString::from("demo"), None)
            .await
            .expect("sign in");
        let client = Client::new(config, Credentials::Session(Arc::new(session))).unwrap();
        (client, log)
    }
}

/// The bodies sent to `request` (`POST /v1/adorder/save`), in order.
pub fn bodies(log: &std::sync::Mutex<Vec<Sent>>, request: &str) -> Vec<Value> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|s| s.request == request)
        .map(|s| s.body.clone())
        .collect()
}

/// Every row of the workspace's entity and outbox tables, as text: two equal snapshots
/// mean the file holds exactly the same edits.
pub fn snapshot(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut out = Vec::new();
    for sql in [
        "SELECT kind, key, remote_json, base_hash, server_json, working_json, parent_kind, parent_key, scope FROM entities ORDER BY rowid",
        "SELECT seq, kind, key, op, payload, parents, base, errors, status FROM outbox ORDER BY seq",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut cells = Vec::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    cells.push(format!("{v:?}"));
                }
                Ok(cells.join("|"))
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}
