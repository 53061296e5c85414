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

/// One request as it crossed a [`Proxy`].
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET`, ...
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The `Content-Encoding` header, if any.
    pub content_encoding: Option<String>,
    /// The body exactly as sent (compressed when it was).
    pub body: Vec<u8>,
}

impl Recorded {
    /// The body as JSON, inflated first when it was sent gzipped.
    pub fn json(&self) -> serde_json::Value {
        let plain = if self.content_encoding.as_deref() == Some("gzip") {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&self.body[..]), &mut out)
                .expect("a gzip body");
            out
        } else {
            self.body.clone()
        };
        serde_json::from_slice(&plain).expect("a JSON body")
    }
}

/// Stops a server task when dropped.
pub struct Serving(tokio::task::JoinHandle<()>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves `router` on `127.0.0.1:0`; answers the base URL and the guard that stops it.
pub async fn serve(router: axum::Router) -> (String, Serving) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.expect("serve");
    });
    (format!("http://{addr}"), Serving(task))
}

struct ProxyState {
    target: String,
    http: reqwest::Client,
    log: std::sync::Mutex<Vec<Recorded>>,
}

/// A recording HTTP proxy on loopback: every request is logged as sent, then forwarded
/// unchanged to the target, whose answer goes back unchanged. Tests read the wire body of
/// what the client really sent.
pub struct Proxy {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    state: std::sync::Arc<ProxyState>,
    _serving: Serving,
}

impl Proxy {
    /// A proxy in front of `target` (a base URL).
    pub async fn start(target: &str) -> Proxy {
        let state = std::sync::Arc::new(ProxyState {
            target: target.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
            log: std::sync::Mutex::new(Vec::new()),
        });
        let router = axum::Router::new()
            .fallback(forward)
            .with_state(std::sync::Arc::clone(&state));
        let (base_url, serving) = serve(router).await;
        Proxy {
            base_url,
            state,
            _serving: serving,
        }
    }

    /// A client of the target through this proxy, with `credentials`.
    pub fn client(&self, credentials: Credentials) -> Client {
        Client::new(
            ClientConfig::new(&self.base_url).expect("client config"),
            credentials,
        )
        .expect("client")
        .with_retry_policy(fast_retries())
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.log.lock().expect("log").clone()
    }

    /// The requests so far whose path starts with `prefix`.
    pub fn requests_to(&self, prefix: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.starts_with(prefix))
            .collect()
    }
}

async fn forward(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<ProxyState>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::http::header;
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .expect("request body");
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    state.log.lock().expect("log").push(Recorded {
        method: parts.method.to_string(),
        path: path.clone(),
        content_encoding: parts
            .headers
            .get(header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: body.to_vec(),
    });
    let mut out = state
        .http
        .request(parts.method.clone(), format!("{}{path}", state.target));
    for (name, value) in &parts.headers {
        if name != header::HOST && name != header::CONTENT_LENGTH {
            out = out.header(name, value);
        }
    }
    let answer = out.body(body).send().await.expect("forwarded");
    let mut response = axum::response::Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if name != header::CONTENT_LENGTH && name != header::TRANSFER_ENCODING {
            response = response.header(name, value);
        }
    }
    let bytes = answer.bytes().await.expect("answer body");
    response
        .body(axum::body::Body::from(bytes))
        .expect("response")
}

/// A loopback server answering canned JSON by path (method and query ignored), for
/// answers the sandbox never gives: unknown fields and enum values the real service may
/// add. Unknown paths answer 404.
pub struct Canned {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    _serving: Serving,
}

impl Canned {
    /// Serves each `(path, status, body)`.
    pub async fn start(routes: Vec<(&str, u16, serde_json::Value)>) -> Canned {
        Canned::start_raw(
            routes
                .into_iter()
                .map(|(path, status, body)| (path, status, body.to_string()))
                .collect(),
        )
        .await
    }

    /// Serves each `(path, status, body)`, the body sent as it is (it need not be JSON).
    pub async fn start_raw(routes: Vec<(&str, u16, String)>) -> Canned {
        let routes: std::collections::HashMap<String, (u16, String)> = routes
            .into_iter()
            .map(|(path, status, body)| (path.to_owned(), (status, body)))
            .collect();
        let routes = std::sync::Arc::new(routes);
        let router = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let routes = std::sync::Arc::clone(&routes);
            async move {
                let (status, body) = routes
                    .get(uri.path())
                    .cloned()
                    .unwrap_or((404, r#"{"error":"no canned answer"}"#.to_owned()));
                axum::response::Response::builder()
                    .status(status)
                    .header(axum::http::header::CONTENT_TYPE, "application/json")
                    .body(axum::body::Body::from(body))
                    .expect("response")
            }
        });
        let (base_url, serving) = serve(router).await;
        Canned {
            base_url,
            _serving: serving,
        }
    }

    /// A client of this server with `credentials` and no retries.
    pub fn client(&self, credentials: Credentials) -> Client {
        Client::new(self.config(), credentials)
            .expect("client")
            .with_retry_policy(RetryPolicy::none())
    }

    /// A client configuration for this server.
    pub fn config(&self) -> ClientConfig {
        ClientConfig::new(&self.base_url).expect("client config")
    }
}
