//! `/_sandbox/` controls and injected faults, against an in-process sandbox over real HTTP.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use flightdeck_sandbox::{Config, Running, Sandbox, Seed};
use reqwest::{Client, Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

const TOKEN: &str = "faults-test-token";
const TOKEN_HEADER: &str = "X-Sandbox-Admin-Token";

async fn start(admin_token: Option<&str>) -> Running {
    let sandbox = Sandbox::open(&Config {
        admin_token: admin_token.map(str::to_owned),
        seed: Seed::Demo,
        ..Config::default()
    })
    .unwrap();
    sandbox.spawn("127.0.0.1:0".parse().unwrap()).await.unwrap()
}

fn client() -> Client {
    // No proxy: the environment's proxy settings must not capture loopback calls.
    Client::builder().no_proxy().build().unwrap()
}

struct Api {
    base: String,
    http: Client,
}

impl Api {
    fn new(running: &Running) -> Self {
        Self {
            base: running.base_url(),
            http: client(),
        }
    }

    fn admin(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header(TOKEN_HEADER, TOKEN)
    }

    fn v1(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .basic_auth("demo", Some("demo"))
    }

    async fn set_faults(&self, body: Value) -> Value {
        let resp = self
            .admin(Method::PUT, "/_sandbox/faults")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "PUT faults {body}");
        resp.json().await.unwrap()
    }

    async fn faults(&self) -> Value {
        let resp = self
            .admin(Method::GET, "/_sandbox/faults")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        resp.json().await.unwrap()
    }

    async fn clock(&self) -> i64 {
        let resp = self
            .admin(Method::GET, "/_sandbox/clock")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let body: Value = resp.json().await.unwrap();
        body["now"].as_i64().unwrap()
    }

    /// Names of the demo account's advertisers.
    async fn advertiser_names(&self) -> Vec<String> {
        let resp = self.v1(Method::GET, "/v1/advertiser").send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "GET /v1/advertiser");
        let body: Value = resp.json().await.unwrap();
        body["entity"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn save_advertiser(&self, name: &str) -> RequestBuilder {
        self.v1(Method::POST, "/v1/advertiser/save").json(&json!({
            "name": name,
            "agencyId": 1,
            "currency": "USD",
            "category": "IAB3",
        }))
    }
}

/// The request failed at the client, with no HTTP status: the connection closed
/// without a response.
async fn assert_dropped(result: reqwest::Result<reqwest::Response>) {
    match result {
        Ok(resp) => panic!(
            "expected a dropped connection, got {} {:?}",
            resp.status(),
            resp.text().await
        ),
        Err(e) => {
            assert!(e.status().is_none(), "{e:?}");
            assert!(e.is_request() || e.is_connect() || e.is_body(), "{e:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_surface_is_invisible_without_the_token() {
    let running = start(Some(TOKEN)).await;
    let http = client();
    let base = running.base_url();
    let routes = [
        (Method::GET, "/_sandbox/faults"),
        (Method::PUT, "/_sandbox/faults"),
        (Method::DELETE, "/_sandbox/faults"),
        (Method::GET, "/_sandbox/clock"),
        (Method::PUT, "/_sandbox/clock"),
        (Method::POST, "/_sandbox/clock/advance"),
        // A method the route does not have: 404, not 405.
        (Method::POST, "/_sandbox/faults"),
    ];
    for (method, path) in &routes {
        let url = format!("{base}{path}");
        let missing = http
            .request(method.clone(), &url)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), StatusCode::NOT_FOUND, "{method} {path}");
        let wrong = http
            .request(method.clone(), &url)
            .header(TOKEN_HEADER, "not-the-token")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), StatusCode::NOT_FOUND, "{method} {path}");
    }
    // With the token a wrong method is an honest 405, and the routes work.
    let api = Api::new(&running);
    let resp = api
        .admin(Method::POST, "/_sandbox/faults")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        api.faults().await,
        json!({"latencyMs": 0, "errorRate": 0.0, "dropAfterCommit": 0, "dropAfterCommitRate": 0.0, "lateCommit": 0, "lateCommitRate": 0.0, "lateCommitMs": 0})
    );

    // Without --admin-token the surface is absent whatever the caller sends.
    let disabled = start(None).await;
    let api = Api::new(&disabled);
    for (method, path) in &routes {
        let resp = api
            .admin(method.clone(), path)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{method} {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_rate_one_answers_503_envelopes_on_v1_only() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    let set = api.set_faults(json!({"errorRate": 1.0})).await;
    assert_eq!(
        set,
        json!({"latencyMs": 0, "errorRate": 1.0, "dropAfterCommit": 0, "dropAfterCommitRate": 0.0, "lateCommit": 0, "lateCommitRate": 0.0, "lateCommitMs": 0})
    );

    for _ in 0..5 {
        let resp = api.v1(Method::GET, "/v1/advertiser").send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body: Value = resp.json().await.unwrap();
        assert!(body["entity"].is_null(), "{body}");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{body}");
        assert_eq!(messages[0]["level"], "ERROR", "{body}");
        assert!(messages[0]["code"].is_string(), "{body}");
        assert!(messages[0]["message"].is_string(), "{body}");
    }
    // The failure comes before the handler, even before authentication.
    let resp = client()
        .get(format!("{}/v1/advertiser", running.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);

    // Outside /v1 nothing is injected.
    assert_eq!(api.faults().await["errorRate"], 1.0);
    let resp = client()
        .get(format!("{}/openapi.json", running.base_url()))
        .send()
        .await
        .unwrap();
    assert_ne!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);

    // A failed write did not run the handler.
    let resp = api.save_advertiser("Never Saved Co").send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);

    let resp = api
        .admin(Method::DELETE, "/_sandbox/faults")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let cleared: Value = resp.json().await.unwrap();
    assert_eq!(
        cleared,
        json!({"latencyMs": 0, "errorRate": 0.0, "dropAfterCommit": 0, "dropAfterCommitRate": 0.0, "lateCommit": 0, "lateCommitRate": 0.0, "lateCommitMs": 0})
    );
    let names = api.advertiser_names().await;
    assert!(!names.iter().any(|n| n == "Never Saved Co"), "{names:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_fault_settings_are_rejected_and_change_nothing() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"latencyMs": 5})).await;
    let bad_bodies = [
        json!({"errorRate": 1.5}).to_string(),
        json!({"errorRate": -0.1}).to_string(),
        json!({"latencyMs": 60001}).to_string(),
        json!({"latencyMs": -1}).to_string(),
        json!({"dropAfterCommit": -1}).to_string(),
        json!({"errorrate": 0.5}).to_string(),
        "{not json".to_owned(),
    ];
    for body in bad_bodies {
        let resp = api
            .admin(Method::PUT, "/_sandbox/faults")
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{body}");
        let err: Value = resp.json().await.unwrap();
        assert!(
            err["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{err}"
        );
    }
    assert_eq!(
        api.faults().await,
        json!({"latencyMs": 5, "errorRate": 0.0, "dropAfterCommit": 0, "dropAfterCommitRate": 0.0, "lateCommit": 0, "lateCommitRate": 0.0, "lateCommitMs": 0})
    );

    for (path, body) in [
        ("/_sandbox/clock", json!({"now": "soon"})),
        ("/_sandbox/clock", json!({})),
        ("/_sandbox/clock/advance", json!({"ms": 1.5})),
    ] {
        let method = if path.ends_with("advance") {
            Method::POST
        } else {
            Method::PUT
        };
        let resp = api.admin(method, path).json(&body).send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{path} {body}");
        let err: Value = resp.json().await.unwrap();
        assert!(err["error"].is_string(), "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_delays_v1_requests() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"latencyMs": 300})).await;
    let started = Instant::now();
    let resp = api.v1(Method::GET, "/v1/advertiser").send().await.unwrap();
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300),
        "took {took:?}, status {}",
        resp.status()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_after_commit_commits_then_closes_without_response() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    let before = api.advertiser_names().await;

    api.set_faults(json!({"dropAfterCommit": 1})).await;
    assert_dropped(api.save_advertiser("Dropped Co").send().await).await;
    assert_eq!(api.faults().await["dropAfterCommit"], 0);

    // The write committed, exactly once, and the service answers normally again.
    let after = api.advertiser_names().await;
    assert_eq!(after.len(), before.len() + 1, "{before:?} -> {after:?}");
    assert_eq!(after.iter().filter(|n| *n == "Dropped Co").count(), 1);
    let resp = api.save_advertiser("Kept Co").send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["entity"]["name"], "Kept Co", "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_after_commit_counts_down_per_request() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"dropAfterCommit": 2})).await;
    for _ in 0..2 {
        assert_dropped(api.v1(Method::GET, "/v1/advertiser").send().await).await;
    }
    let resp = api.v1(Method::GET, "/v1/advertiser").send().await.unwrap();
    assert_ne!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    // /_sandbox requests never consume a drop.
    api.set_faults(json!({"dropAfterCommit": 1})).await;
    assert_eq!(api.faults().await["dropAfterCommit"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_can_be_set_and_advanced() {
    const T: i64 = 1_900_000_000_000;
    const SLACK: i64 = 60_000;
    const DAY: i64 = 86_400_000;
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);

    let resp = api
        .admin(Method::PUT, "/_sandbox/clock")
        .json(&json!({"now": T}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let set: Value = resp.json().await.unwrap();
    let now = set["now"].as_i64().unwrap();
    assert!((T..T + SLACK).contains(&now), "{set}");
    let now = api.clock().await;
    assert!((T..T + SLACK).contains(&now), "{now}");

    let resp = api
        .admin(Method::POST, "/_sandbox/clock/advance")
        .json(&json!({"ms": DAY}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let advanced: Value = resp.json().await.unwrap();
    let now = advanced["now"].as_i64().unwrap();
    assert!((T + DAY..T + DAY + SLACK).contains(&now), "{advanced}");
    let now = api.clock().await;
    assert!((T + DAY..T + DAY + SLACK).contains(&now), "{now}");

    let resp = api
        .admin(Method::POST, "/_sandbox/clock/advance")
        .json(&json!({"ms": -2 * DAY}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let now = api.clock().await;
    assert!((T - DAY..T - DAY + SLACK).contains(&now), "{now}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_closes_idle_keep_alive_connections() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    // Leaves a kept-alive connection in the client's pool.
    api.faults().await;
    // A hang guard, not a speed requirement: stopping waits at most the 2 s drain.
    tokio::time::timeout(Duration::from_secs(30), running.stop())
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_connection_sends_no_bytes() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"dropAfterCommit": 1})).await;
    let addr = running.addr;
    let received = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream
            .write_all(b"GET /v1/advertiser HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        let mut received = Vec::new();
        // A reset instead of an orderly close is also a connection without a response.
        let _ = stream.read_to_end(&mut received);
        received
    })
    .await
    .unwrap();
    assert!(
        received.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&received)
    );
    assert_eq!(api.faults().await["dropAfterCommit"], 0);
}

/// Polls the advertiser names until `name` is there; fails after a generous bound (a
/// liveness guard, not a timing assertion).
async fn wait_for_advertiser(api: &Api, name: &str) -> usize {
    for _ in 0..600 {
        let n = api
            .advertiser_names()
            .await
            .iter()
            .filter(|n| *n == name)
            .count();
        if n > 0 {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{name} never committed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_commit_waits_for_its_client_to_go_then_commits() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"lateCommit": 1, "lateCommitMs": 100}))
        .await;
    // The client waits for its answer until it is told to give up.
    let (give_up, gave_up) = tokio::sync::oneshot::channel::<()>();
    let request = api.save_advertiser("Late Co").send();
    let waiting = tokio::spawn(async move {
        tokio::select! {
            r = request => Some(r.map(|r| r.status())),
            _ = gave_up => None,
        }
    });
    // Reads are not held, and while the client waits nothing is committed.
    for _ in 0..5 {
        assert!(!api.advertiser_names().await.iter().any(|n| n == "Late Co"));
    }
    assert_eq!(api.faults().await["lateCommit"], 0);
    give_up.send(()).unwrap();
    assert!(
        waiting.await.unwrap().is_none(),
        "a late request is never answered"
    );

    // Its client gone, it commits, once.
    assert_eq!(wait_for_advertiser(&api, "Late Co").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_times_out_still_sees_its_create_land_later() {
    let running = start(Some(TOKEN)).await;
    let api = Api::new(&running);
    api.set_faults(json!({"lateCommitRate": 1.0, "lateCommitMs": 0}))
        .await;
    let impatient = Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let result = impatient
        .post(format!("{}/v1/advertiser/save", api.base))
        .basic_auth("demo", Some("demo"))
        .json(&json!({"name": "Slow Co", "agencyId": 1, "currency": "USD", "category": "IAB3"}))
        .send()
        .await;
    let err = result.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    api.set_faults(json!({})).await;
    assert_eq!(wait_for_advertiser(&api, "Slow Co").await, 1);
}
