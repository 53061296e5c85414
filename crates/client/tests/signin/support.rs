//! Helpers: a sandbox per test, the login page driven over HTTP, refresh-token
//! revocation, the keyring-session guard, and child processes of this test binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use flightdeck_client::ClientConfig;
use flightdeck_client::auth::TokenSet;
use flightdeck_client::{ExposeSecret, SecretString};
use flightdeck_sandbox::auth::TokenSigning;
use flightdeck_sandbox::{Config, Running, Sandbox, Seed};
use reqwest::StatusCode;
use url::Url;

/// 2027-01-15T08:00:00Z: the service clock at start. The client's own clock differs, as
/// it would against a real service: expiry seen by the client and by the service differ.
pub const NOW: i64 = 1_800_000_000_000;
/// One access-token lifetime and a millisecond, in service time.
pub const PAST_EXPIRY: i64 = 86_400_001;

pub const CLIENT_ID: &str = "demo-partner";
pub const CLIENT_SECRET: &str = "demo-partner-secret";
pub const APP_REDIRECT: &str = "com.flightdeck.desktop:/oauth/callback";

/// A user and a data partner with distinctive secrets, so that tests can search for them
/// byte for byte (see [`Server::start_canary`]).
pub const CANARY_USER: &str = "canary";
pub const CANARY_PASSWORD: &str = "Canary-Password-7f3a9c1e-plaintext-check";
pub const CANARY_CLIENT: &str = "canary-partner";
pub const CANARY_SECRET: &str = "Canary-Client-Secret-5b2d8e4a-plaintext-check";

/// A sandbox serving on `127.0.0.1:0` (stopped when dropped).
pub struct Server {
    pub sandbox: Sandbox,
    pub running: Running,
}

impl Server {
    /// Demo seed, clock at [`NOW`].
    pub async fn start() -> Server {
        Server::start_with(Seed::Demo).await
    }

    /// One account with [`CANARY_USER`] and the partner [`CANARY_CLIENT`].
    pub async fn start_canary() -> Server {
        Server::canary(TokenSigning::Hs256).await
    }

    /// [`Server::start_canary`] issuing RS256 tokens of a real identity provider's size.
    pub async fn start_canary_rs256() -> Server {
        Server::canary(TokenSigning::Rs256).await
    }

    async fn canary(token_signing: TokenSigning) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seed.json");
        let seed = serde_json::json!({"accounts": [{
            "name": "Canary",
            "users": [{"username": CANARY_USER, "password": CANARY_PASSWORD}],
            "clients": [{
                "clientId": CANARY_CLIENT,
                "secret": CANARY_SECRET,
                "redirectUris": [APP_REDIRECT, "http://127.0.0.1:*/callback"],
            }],
        }]});
        std::fs::write(&path, seed.to_string()).unwrap();
        Server::start_signing(Seed::File(path), token_signing).await
    }

    pub async fn start_with(seed: Seed) -> Server {
        Server::start_signing(seed, TokenSigning::Hs256).await
    }

    async fn start_signing(seed: Seed, token_signing: TokenSigning) -> Server {
        let sandbox = Sandbox::open(&Config {
            seed,
            clock_start: Some(NOW),
            token_signing,
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

    pub fn config(&self) -> ClientConfig {
        ClientConfig::new(&self.running.base_url()).unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.running.base_url())
    }

    /// Moves the service clock forward.
    pub fn advance(&self, ms: i64) {
        self.sandbox.state().clock.advance(ms);
    }

    /// Revokes a refresh token in the sandbox's database (there is no HTTP endpoint).
    pub async fn revoke(&self, refresh_token: &SecretString) {
        let token = refresh_token.expose_secret().to_owned();
        let revoked = self
            .sandbox
            .state()
            .db
            .call(move |c| flightdeck_sandbox::auth::revoke_refresh_token(c, &token))
            .await
            .unwrap();
        assert!(revoked, "the refresh token was not live");
    }

    /// Revokes every refresh token of the sandbox (for sessions whose token the test
    /// cannot see because they have no store).
    pub async fn revoke_all(&self) {
        let n = self
            .sandbox
            .state()
            .db
            .call(|c| {
                Ok(c.execute(
                    "UPDATE refresh_tokens SET revoked = 1 WHERE revoked = 0",
                    [],
                )?)
            })
            .await
            .unwrap();
        assert!(n >= 1, "no live refresh token to revoke");
    }

    /// Status of `GET path` with `Authorization: Bearer token`.
    pub async fn get_with(&self, path: &str, token: &SecretString) -> StatusCode {
        http()
            .get(self.url(path))
            .bearer_auth(token.expose_secret())
            .send()
            .await
            .unwrap()
            .status()
    }
}

/// A client that does not follow redirects: the browser's part is done by hand.
pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Plays the browser on the login page: `GET authorize_url`, then posts the form (its
/// hidden inputs plus `username`/`password`) to its action, and returns the 303's
/// `Location`, where the browser would go next.
pub async fn log_in(authorize_url: &Url, username: &str, password: &str) -> Url {
    let http = http();
    let page = http.get(authorize_url.clone()).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("id=\"username\""), "{html}");
    assert!(html.contains("id=\"password\""), "{html}");
    let action = attribute(
        html.split("<form")
            .nth(1)
            .expect("a form on the login page"),
        "action",
    )
    .expect("form action");
    let mut form = hidden_inputs(&html);
    form.push(("username".into(), username.into()));
    form.push(("password".into(), password.into()));
    let resp = http
        .post(authorize_url.join(&action).unwrap())
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::SEE_OTHER, "login as {username}");
    let location = resp.headers()["location"].to_str().unwrap();
    Url::parse(location).unwrap()
}

/// `(name, value)` of each `<input type="hidden" …>`.
pub fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    html.split("<input")
        .skip(1)
        .map(|tag| &tag[..tag.find('>').unwrap_or(tag.len())])
        .filter(|tag| attribute(tag, "type").as_deref() == Some("hidden"))
        .map(|tag| {
            (
                attribute(tag, "name").unwrap(),
                attribute(tag, "value").unwrap_or_default(),
            )
        })
        .collect()
}

/// The value of `name="…"` in a tag, with HTML entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[start..].find('"')?;
    Some(
        tag[start..start + len]
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&#x27;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// The query parameter `name` of `url`.
pub fn param(url: &Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Tests that use the OS keyring must run inside `scripts/with-keyring.sh`, so that they
/// never touch the desktop's own keyring.
pub fn require_keyring_session() {
    assert!(
        std::env::var_os("FLIGHTDECK_IN_KEYRING_SESSION").is_some(),
        "this test uses the OS keyring: run it as \
         `scripts/with-keyring.sh cargo test -p flightdeck-client --test signin`"
    );
}

/// A service address no test shares, for keyring profiles without a sandbox.
pub fn unique_config(tag: &str) -> ClientConfig {
    let n: u64 = rand::random();
    ClientConfig::new(&format!("https://{tag}-{n:016x}.invalid:8700")).unwrap()
}

/// Runs one `#[ignore]`d test of this binary in a child process with `env` added, and
/// returns its output. The child checks `FLIGHTDECK_SIGNIN_CHILD` to know it was asked.
pub fn run_child(test: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        test,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("FLIGHTDECK_SIGNIN_CHILD", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {test} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether this process was started by [`run_child`].
pub fn is_child() -> bool {
    std::env::var_os("FLIGHTDECK_SIGNIN_CHILD").is_some()
}

/// Every file under `dir` (recursively) whose bytes contain one of `needles`, with the
/// needle's index.
pub fn files_containing(dir: &Path, needles: &[&[u8]]) -> Vec<(PathBuf, usize)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                for (i, needle) in needles.iter().enumerate() {
                    if bytes.windows(needle.len()).any(|w| w == *needle) {
                        found.push((path.clone(), i));
                    }
                }
            }
        }
    }
    found
}

/// Every regular file under `dir`.
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files
}

/// The tokens as strings, for comparisons.
pub fn reveal(t: &TokenSet) -> (String, Option<String>) {
    (
        t.access_token.expose_secret().to_owned(),
        t.refresh_token
            .as_ref()
            .map(|r| r.expose_secret().to_owned()),
    )
}

/// A port with nothing listening (bound, then released).
pub fn closed_port_config() -> ClientConfig {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    ClientConfig::new(&format!("http://127.0.0.1:{port}")).unwrap()
}
