//! The sandbox as an app embeds it: bound at once, opened and seeded behind the listener.

#![allow(clippy::unwrap_used)]

use flightdeck_sandbox::{Config, Sandbox, Seed};
use serde_json::Value;

fn config(data: std::path::PathBuf) -> Config {
    Config {
        data: Some(data),
        seed: Seed::Demo,
        clock_start: None,
        admin_token: None,
        token_signing: Default::default(),
    }
}

/// A request sent before the seed is done waits for it and gets the seeded data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_right_after_the_bind_gets_the_seeded_data() {
    let dir = tempfile::tempdir().unwrap();
    let running = Sandbox::open_and_spawn(
        config(dir.path().join("sandbox.db")),
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let body: Value = reqwest::Client::new()
        .get(format!(
            "{}/v1/advertiser/getAllAdvertisers",
            running.base_url()
        ))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let names: Vec<&str> = body["entity"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(!names.is_empty(), "{body}");
    assert!(!running.is_finished());
    running.stop().await.unwrap();
}

/// A database that cannot be opened ends the task, and stopping says why.
#[tokio::test]
async fn a_database_that_will_not_open_is_reported_on_stop() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_db = dir.path().join("sandbox.db");
    std::fs::write(
        &not_a_db,
        b"this is not a SQLite database, not even close......",
    )
    .unwrap();
    let running = Sandbox::open_and_spawn(config(not_a_db), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    for _ in 0..200 {
        if running.is_finished() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(running.is_finished());
    let err = running.stop().await.unwrap_err();
    assert!(!err.to_string().is_empty());
}
