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
