//! Shared helpers for the client's integration tests: an in-process sandbox with the
//! demo seed on a fixed clock, and clients signed in to it.
//!
//! Use with `mod common;`. Demo users: `demo`/`demo` (editor, account 1),
//! `viewer`/`viewer` (read only), `rival`/`rival` (account 2).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use flightdeck_client::retry::RetryPolicy;
use flightdeck_client::{Client, ClientConfig, Credentials, SecretString};
use flightdeck_sandbox::{Config, Running, Sandbox, Seed};

/// 2027-01-15T08:00:00Z: the service clock at start, so dates in tests are stable.
pub const NOW: i64 = 1_800_000_000_000;
/// One day in milliseconds.
pub const DAY: i64 = 86_400_000;
/// Token that enables `/_sandbox/` on the test sandbox.
pub const ADMIN_TOKEN: &str = "client-tests-admin";

/// A sandbox serving on `127.0.0.1:0` (stopped when dropped).
pub struct TestServer {
    /// For work below HTTP: `sandbox.state().faults`, `.clock`, `.db`.
    pub sandbox: Sandbox,
    /// The server.
    pub running: Running,
}

/// Retries fast enough for tests: 3 attempts, 10 ms doubling, at most 50 ms.
pub fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    }
}

impl TestServer {
    /// A fresh in-memory sandbox: demo seed, clock at [`NOW`], admin token [`ADMIN_TOKEN`].
    pub async fn start() -> TestServer {
        let sandbox = Sandbox::open(&Config {
            seed: Seed::Demo,
            clock_start: Some(NOW),
            admin_token: Some(ADMIN_TOKEN.to_owned()),
            ..Config::default()
        })
        .expect("open sandbox");
        let running = sandbox
            .clone()
            .spawn("127.0.0.1:0".parse().expect("address"))
            .await
            .expect("spawn sandbox");
        TestServer { sandbox, running }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        self.running.base_url()
    }

    /// A client configuration for this sandbox, with default timeouts.
    pub fn config(&self) -> ClientConfig {
        ClientConfig::new(&self.base_url()).expect("client config")
    }

    /// A client with `credentials` and [`fast_retries`].
    pub fn client_with(&self, credentials: Credentials) -> Client {
        Client::new(self.config(), credentials)
            .expect("client")
            .with_retry_policy(fast_retries())
    }

    /// A client using HTTP Basic user credentials (business endpoints only: audience
    /// endpoints take an access token).
    pub fn basic(&self, username: &str, password: &str) -> Client {
        self.client_with(Credentials::basic(username, password))
    }

    /// `demo` over HTTP Basic.
    pub fn demo(&self) -> Client {
        self.basic("demo", "demo")
    }

    /// An access token from `POST /v1/oauth2/authenticate` (sent by hand, so these
    /// helpers do not depend on the crate's sign-in code).
    pub async fn access_token(&self, username: &str, password: &str) -> String {
        let resp = reqwest::Client::new()
            .post(format!("{}/v1/oauth2/authenticate", self.base_url()))
            .basic_auth(username, Some(password))
            .send()
            .await
            .expect("authenticate");
        assert_eq!(resp.status(), 200, "sign in as {username}");
        let body: serde_json::Value = resp.json().await.expect("token JSON");
        body["access_token"]
            .as_str()
            .expect("access_token")
            .to_owned()
    }

    /// A client presenting a fixed access token (works on every endpoint).
    pub async fn bearer(&self, username: &str, password: &str) -> Client {
        let token = self.access_token(username, password).await;
        self.client_with(Credentials::Bearer(SecretString::from(token)))
    }

    /// Moves the service clock.
    pub fn advance(&self, ms: i64) {
        self.sandbox.state().clock.advance(ms);
    }
}
