//! The `flightdeck-sandbox` binary: command line, startup line, persistence, errors.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_flightdeck-sandbox");

fn command() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.stdin(Stdio::null());
    // The tests say where the admin token comes from; the caller's environment does not.
    cmd.env_remove("FLIGHTDECK_SANDBOX_ADMIN_TOKEN");
    cmd
}

/// A running sandbox process; killed when dropped.
struct Server {
    child: Child,
    url: String,
    drains: Vec<JoinHandle<()>>,
    /// Everything written after the first stdout line, and all of stderr.
    output: Arc<Mutex<String>>,
}

impl Server {
    /// Starts the binary on a free port and reads the address from its first line.
    fn start(args: &[&str]) -> Self {
        Self::start_env(args, &[])
    }

    /// As [`Server::start`], with environment variables set.
    fn start_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = command()
            .args(["--addr", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = Arc::new(Mutex::new(String::new()));
        let mut drains = vec![drain(child.stderr.take().unwrap(), output.clone())];
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let Some(url) = line.trim_end().strip_prefix("listening on ") else {
            let status = child.wait().unwrap();
            for d in drains {
                d.join().unwrap();
            }
            panic!(
                "first line {line:?}, exit {status}, stderr {:?}",
                output.lock().unwrap()
            );
        };
        assert!(url.starts_with("http://127.0.0.1:"), "{line:?}");
        assert!(!url.ends_with(":0"), "{line:?}");
        let url = url.to_owned();
        drains.push(drain(stdout, output.clone()));
        Self {
            child,
            url,
            drains,
            output,
        }
    }

    /// Kills the process (no clean shutdown) and returns what it wrote.
    fn kill(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        for d in std::mem::take(&mut self.drains) {
            d.join().unwrap();
        }
        self.output.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn drain(mut from: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = String::new();
        let _ = from.read_to_string(&mut buf);
        into.lock().unwrap().push_str(&buf);
    })
}

fn client() -> Client {
    Client::builder().no_proxy().build().unwrap()
}

async fn advertiser_names(url: &str) -> Vec<String> {
    let resp = client()
        .get(format!("{url}/v1/advertiser"))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: Value = resp.json().await.unwrap();
    body["entity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn help_describes_the_demo_seed() {
    let out = command().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in ["--addr", "--data", "--seed", "--clock", "--admin-token"] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
    let lower = help.to_lowercase();
    assert!(
        lower.contains("demo") && lower.contains("password"),
        "no demo credentials in:\n{help}"
    );
}

#[tokio::test]
async fn data_survives_a_restart_and_is_seeded_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let db = db.to_str().unwrap();

    let server = Server::start(&["--data", db]);
    let before = advertiser_names(&server.url).await;
    assert!(!before.is_empty(), "the demo seed has advertisers");
    let resp = client()
        .post(format!("{}/v1/advertiser/save", server.url))
        .basic_auth("demo", Some("demo"))
        .json(&json!({
            "name": "Persisted Co",
            "agencyId": 1,
            "currency": "USD",
            "category": "IAB3",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let saved: Value = resp.json().await.unwrap();
    assert!(saved["entity"]["id"].is_number(), "{saved}");
    let created = advertiser_names(&server.url).await;
    assert_eq!(created.len(), before.len() + 1);
    server.kill();

    let server = Server::start(&["--data", db]);
    let after = advertiser_names(&server.url).await;
    assert_eq!(after, created, "same advertisers after the restart");
    assert_eq!(after.iter().filter(|n| *n == "Persisted Co").count(), 1);
}

#[test]
fn unreadable_seed_file_fails_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-seed.json");
    let out = command()
        .args(["--addr", "127.0.0.1:0", "--seed"])
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(missing.to_str().unwrap()),
        "stderr: {stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("listening on"));
}

#[test]
fn address_in_use_fails_with_a_message() {
    let first = Server::start(&["--seed", "none"]);
    let addr = first.url.trim_start_matches("http://").to_owned();
    let out = command()
        .args(["--seed", "none", "--addr", &addr])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&addr) && stderr.lines().count() == 1,
        "stderr: {stderr}"
    );
}

#[tokio::test]
async fn clock_flag_sets_service_time_and_token_stays_secret() {
    const T: i64 = 1_800_000_000_000;
    let token = "binary-test-secret-token";
    let server = Server::start(&["--clock", &T.to_string(), "--admin-token", token]);
    let resp = client()
        .get(format!("{}/_sandbox/clock", server.url))
        .header("X-Sandbox-Admin-Token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: Value = resp.json().await.unwrap();
    let now = body["now"].as_i64().unwrap();
    assert!((T..T + 30_000).contains(&now), "{body}");

    let resp = client()
        .get(format!("{}/_sandbox/clock", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);

    let output = server.kill();
    assert!(!output.contains(token), "token printed: {output}");
}

#[cfg(unix)]
#[test]
fn sigterm_stops_cleanly() {
    let mut server = Server::start(&["--seed", "none"]);
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // A hang guard, not a speed requirement.
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(exit) = server.child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit}");
}

/// The clock as read through `/_sandbox/clock` with `token`: the status.
async fn clock_status(url: &str, token: &str) -> StatusCode {
    client()
        .get(format!("{url}/_sandbox/clock"))
        .header("X-Sandbox-Admin-Token", token)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn admin_token_from_the_environment_or_a_file() {
    let token = "environment-admin-token-42";
    let server = Server::start_env(&[], &[("FLIGHTDECK_SANDBOX_ADMIN_TOKEN", token)]);
    assert_eq!(clock_status(&server.url, token).await, StatusCode::OK);
    assert_eq!(
        clock_status(&server.url, "another-token-of-length").await,
        StatusCode::NOT_FOUND
    );
    assert!(!server.kill().contains(token));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("admin-token");
    let token = "file-admin-token-0123456789";
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let path = file.to_str().unwrap();
    let server = Server::start(&["--admin-token-file", path]);
    assert_eq!(clock_status(&server.url, token).await, StatusCode::OK);
    assert!(!server.kill().contains(token));

    // The file wins over a token the environment also exports (as the e2e scripts do).
    let server = Server::start_env(
        &["--admin-token-file", path],
        &[(
            "FLIGHTDECK_SANDBOX_ADMIN_TOKEN",
            "environment-admin-token-42",
        )],
    );
    assert_eq!(clock_status(&server.url, token).await, StatusCode::OK);
    assert_eq!(
        clock_status(&server.url, "environment-admin-token-42").await,
        StatusCode::NOT_FOUND
    );
    server.kill();
}

#[test]
fn empty_or_short_admin_tokens_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("short");
    std::fs::write(&file, "tiny\n").unwrap();
    type Run<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let runs: [Run<'_>; 4] = [
        (&["--admin-token", ""], &[]),
        (&["--admin-token", "fifteen-chars-x"], &[]),
        (&[], &[("FLIGHTDECK_SANDBOX_ADMIN_TOKEN", "tiny")]),
        (&["--admin-token-file", file.to_str().unwrap()], &[]),
    ];
    for (args, env) in runs {
        let out = command()
            .args(["--seed", "none", "--addr", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} {env:?} started");
        assert!(out.stdout.is_empty(), "{args:?}: it listened");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("at least 16 characters"),
            "{args:?}: {stderr}"
        );
        for secret in ["fifteen-chars-x", "tiny"] {
            assert!(!stderr.contains(secret), "{args:?}: token in {stderr}");
        }
    }
    // The library refuses it too, for the app that embeds the sandbox.
    let config = flightdeck_sandbox::Config {
        admin_token: Some("short".into()),
        ..flightdeck_sandbox::Config::default()
    };
    let Err(e) = flightdeck_sandbox::Sandbox::open(&config) else {
        panic!("a short admin token was accepted");
    };
    assert!(e.to_string().contains("at least 16"), "{e}");
}

#[tokio::test]
async fn allow_host_serves_another_name() {
    let server = Server::start(&["--allow-host", "sandbox.test"]);
    let port = server.url.rsplit(':').next().unwrap().to_owned();
    let get = |host: String| {
        let url = server.url.clone();
        async move {
            client()
                .get(format!("{url}/openapi.json"))
                .header("host", host)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(get(format!("sandbox.test:{port}")).await, StatusCode::OK);
    assert_eq!(get(format!("localhost:{port}")).await, StatusCode::OK);
    assert_eq!(
        get(format!("other.test:{port}")).await,
        StatusCode::MISDIRECTED_REQUEST
    );
}
