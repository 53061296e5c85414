//! Shared helpers for the sandbox's integration tests: a sandbox per test on
//! `127.0.0.1:0`, a client, and credentials.
//!
//! Use with `mod common;` in a test file.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use flightdeck_sandbox::{Config, Running, Sandbox, Seed};
use serde_json::Value;

/// 2027-01-15T08:00:00Z: a fixed service time for tests that need stable dates.
pub const NOW: i64 = 1_800_000_000_000;

/// A sandbox serving in the background (stopped when dropped).
pub struct TestServer {
    /// Kept for work below HTTP: `sandbox.state()` (clock, database, keys).
    pub sandbox: Sandbox,
    /// The server; `running.base_url()` is `http://127.0.0.1:PORT`.
    pub running: Running,
    /// A client that does not follow redirects (the login flow inspects them).
    pub http: reqwest::Client,
}

/// A fresh in-memory sandbox with the demo seed, on the real clock.
pub async fn start() -> TestServer {
    start_with(Config {
        seed: Seed::Demo,
        ..Config::default()
    })
    .await
}

/// A fresh sandbox started with `config`.
pub async fn start_with(config: Config) -> TestServer {
    let sandbox = Sandbox::open(&config).expect("open sandbox");
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().expect("address"))
        .await
        .expect("spawn sandbox");
    TestServer {
        sandbox,
        running,
        http: client(),
    }
}

/// A client that does not follow redirects.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client")
}

/// `Authorization` value for HTTP Basic `name:secret`.
pub fn basic(name: &str, secret: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{name}:{secret}")))
}

impl TestServer {
    /// Absolute URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.running.base_url())
    }

    /// The whole token response of `POST /v1/oauth2/authenticate` for a user; panics
    /// unless it is a 200.
    pub async fn sign_in(&self, username: &str, password: &str) -> Value {
        let resp = self
            .http
            .post(self.url("/v1/oauth2/authenticate"))
            .header("authorization", basic(username, password))
            .send()
            .await
            .expect("authenticate");
        let status = resp.status();
        let body: Value = resp.json().await.expect("token response JSON");
        assert_eq!(status, 200, "sign in as {username}: {body}");
        body
    }

    /// An access token for a user (`POST /v1/oauth2/authenticate`).
    pub async fn user_token(&self, username: &str, password: &str) -> String {
        self.sign_in(username, password).await["access_token"]
            .as_str()
            .expect("access_token")
            .to_owned()
    }
}
