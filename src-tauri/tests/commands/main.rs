//! The app's commands as the UI calls them: by name, with camelCase JSON arguments,
//! through Tauri's IPC on the mock runtime, against the embedded sandbox (real HTTP on
//! loopback, real SQLite) and the OS keyring.
//!
//! Run inside `scripts/with-keyring.sh` (a private Secret Service):
//! `bash scripts/with-keyring.sh cargo test -p flightdeck-app --test commands`.
//!
//! One test binary (linking the app once), with a module per command group.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use flightdeck_app::state::AppState;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_client::{ClientConfig, now_ms};
use flightdeck_core::files::FileUse;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{App, Listener, Manager, WebviewWindow, WebviewWindowBuilder};

const DAY: i64 = 86_400_000;

mod audiences;
mod cells;
mod checks;
mod files;
mod forms;
mod posting;
mod preview;
mod session;
mod status;
mod tables;
mod tags;
mod trafficking;

/// Longest wait for a background post to finish.
const POST_TIMEOUT: Duration = Duration::from_secs(60);

/// One running app on the mock runtime with its "main" window, over a data dir.
struct Harness {
    app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
}

impl Harness {
    /// Builds the app as `flightdeck_app::run` does (commands, events, state), on the
    /// mock runtime. The opener plugin is there because `partner_sign_in` uses it.
    fn open(dir: &Path) -> Harness {
        let state =
            tauri::async_runtime::block_on(AppState::open(dir)).expect("open the app's state");
        Harness::with(state)
    }

    /// As the app starts: the state is not up until the first command asks for it.
    fn starting(dir: &Path) -> Harness {
        Harness::with(AppState::new(dir))
    }

    fn with(state: AppState) -> Harness {
        let builder = flightdeck_app::specta_builder!(MockRuntime);
        let app = mock_builder()
            .plugin(tauri_plugin_opener::init())
            .invoke_handler(builder.invoke_handler())
            .build(mock_context(noop_assets()))
            .expect("build the app on the mock runtime");
        app.manage(state);
        builder.mount_events(&app);
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("create the main window");
        Harness { app, window }
    }

    /// Stops the embedded sandbox (as the app does on exit) and drops the app.
    fn close(self) {
        let state = self.app.state::<AppState>();
        tauri::async_runtime::block_on(state.shutdown());
    }

    fn state(&self) -> tauri::State<'_, AppState> {
        self.app.state::<AppState>()
    }

    /// Invokes a command as the webview would.
    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("webview URL"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request).map(|body| {
            body.deserialize::<Value>()
                .expect("a command answers with JSON")
        })
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.call(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }

    fn err(&self, cmd: &str, args: Value) -> Value {
        match self.call(cmd, args) {
            Ok(v) => panic!("{cmd} succeeded but should have failed: {v}"),
            Err(e) => e,
        }
    }

    fn snapshot(&self) -> Value {
        self.ok("app_snapshot", json!({}))
    }

    /// The embedded sandbox's base URL (with a trailing slash).
    fn base_url(&self) -> String {
        let snap = self.snapshot();
        snap["profiles"][0]["baseUrl"]
            .as_str()
            .expect("the profile has a base URL")
            .to_owned()
    }

    fn sign_in_demo(&self) {
        let snap = self.ok("sign_in", json!({"username": "demo", "password": "demo"}));
        assert_eq!(snap["session"], json!({"account": "demo", "kind": "user"}));
    }

    /// Calls `refresh` (downloads the account) and returns its summary.
    fn refresh(&self) -> Value {
        self.ok("refresh", json!({}))
    }

    /// Starts listening for `SyncFinished` (event name as in `ui/src/bindings.ts`).
    fn on_sync_finished(&self) -> mpsc::Receiver<Value> {
        let (tx, rx) = mpsc::channel();
        self.app.listen("sync-finished", move |event| {
            let payload: Value =
                serde_json::from_str(event.payload()).expect("SyncFinished is JSON");
            let _ = tx.send(payload);
        });
        rx
    }

    /// Posts every pending change and waits for the background post to finish.
    fn post_all(&self) -> Value {
        let finished = self.on_sync_finished();
        assert_eq!(self.ok("post_changes", json!({"seqs": null})), Value::Null);
        let report = finished
            .recv_timeout(POST_TIMEOUT)
            .expect("SyncFinished arrives after post_changes");
        let snap = self.snapshot();
        assert_eq!(snap["posting"], json!(false), "posting is over: {snap}");
        report
    }

    fn advertisers(&self) -> Vec<Value> {
        self.query("query_advertisers", Value::Null)
    }

    /// Every row of a table, through its window command (one window of 10,000 rows).
    fn query(&self, cmd: &str, parent: Value) -> Vec<Value> {
        let window = self.window(cmd, parent, "", 0, 10_000);
        rows(window["rows"].clone())
    }

    /// One window of a table.
    fn window(&self, cmd: &str, parent: Value, filter: &str, offset: u32, limit: u32) -> Value {
        self.ok(
            cmd,
            json!({"query": {"parent": parent, "filter": filter, "sort": null, "offset": offset, "limit": limit}}),
        )
    }

    fn pending(&self) -> Vec<Value> {
        let w = self.window("query_pending_changes", Value::Null, "", 0, 100_000);
        rows(w["rows"].clone())
    }
}

fn rows(v: Value) -> Vec<Value> {
    match v {
        Value::Array(rows) => rows,
        other => panic!("expected a list, got {other}"),
    }
}

/// The row whose working copy is named `name`.
fn named<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["value"]["name"] == name)
        .unwrap_or_else(|| panic!("no row named {name} in {rows:?}"))
}

/// The keyring entries the app uses for `account` on `base_url`.
fn keyring_store(base_url: &str, account: &str, partner: bool) -> TokenStore {
    let config = ClientConfig::new(base_url).expect("client config");
    let profile = if partner {
        Profile::partner(&config, account)
    } else {
        Profile::user(&config, account)
    };
    TokenStore::new(profile)
}

fn keyring_holds_session(base_url: &str, account: &str, partner: bool) -> bool {
    let store = keyring_store(base_url, account, partner);
    let tokens = store.load_tokens().expect("read the keyring").is_some();
    let secret = store.load_secret().expect("read the keyring").is_some();
    tokens && secret
}

fn keyring_is_empty_for(base_url: &str, account: &str, partner: bool) -> bool {
    let store = keyring_store(base_url, account, partner);
    store.load_tokens().expect("read the keyring").is_none()
        && store.load_secret().expect("read the keyring").is_none()
}

/// GET on the sandbox with Basic credentials, as another tool would see the account.
fn sandbox_get(base_url: &str, path: &str) -> Value {
    let url = format!("{base_url}{path}");
    tauri::async_runtime::block_on(async {
        let resp = reqwest::Client::new()
            .get(&url)
            .basic_auth("demo", Some("demo"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        assert!(resp.status().is_success(), "GET {url}: {}", resp.status());
        resp.json::<Value>().await.expect("a JSON answer")
    })
}

/// A POST to the embedded sandbox as the demo user, answering the JSON it returns.
fn sandbox_post(base_url: &str, path: &str, body: &Value) -> Value {
    let url = format!("{base_url}{path}");
    tauri::async_runtime::block_on(async {
        let resp = reqwest::Client::new()
            .post(&url)
            .basic_auth("demo", Some("demo"))
            .json(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {url}: {e}"));
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        assert!(status.is_success(), "POST {url}: {status} {text}");
        serde_json::from_str(&text).expect("a JSON answer")
    })
}

/// Every JSON object anywhere in `v` whose `name` is `name`.
fn count_named(v: &Value, name: &str) -> usize {
    match v {
        Value::Object(map) => {
            usize::from(map.get("name").and_then(Value::as_str) == Some(name))
                + map.values().map(|x| count_named(x, name)).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(|x| count_named(x, name)).sum(),
        _ => 0,
    }
}

/// The first JSON object anywhere in `v` whose `name` is `name`.
fn find_named<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    match v {
        Value::Object(map) if map.get("name").and_then(Value::as_str) == Some(name) => Some(v),
        Value::Object(map) => map.values().find_map(|x| find_named(x, name)),
        Value::Array(items) => items.iter().find_map(|x| find_named(x, name)),
        _ => None,
    }
}

/// Creates an audience segment shared with Acme Outdoor directly on the sandbox, as the
/// demo user (the audience endpoints take only an access token).
fn sandbox_create_segment(base_url: &str, name: &str) {
    let advertisers = sandbox_get(base_url, "v1/advertiser");
    let acme = find_named(&advertisers, "Acme Outdoor").expect("Acme Outdoor on the sandbox");
    let body = json!({
        "name": name, "description": "made by the command tests",
        "dataType": "email_sha256", "accountId": acme["agencyId"],
        "advertiserIds": [acme["id"]], "externalAudienceId": format!("EXT-{name}"),
        "ttl": 2_592_000,
    });
    tauri::async_runtime::block_on(async {
        let http = reqwest::Client::new();
        let tokens: Value = http
            .post(format!("{base_url}v1/oauth2/authenticate"))
            .basic_auth("demo", Some("demo"))
            .send()
            .await
            .expect("authenticate")
            .json()
            .await
            .expect("token JSON");
        let token = tokens["access_token"].as_str().expect("an access token");
        let resp = http
            .post(format!("{base_url}v1/audiences"))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .expect("create a segment");
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        assert!(status.is_success(), "POST v1/audiences: {status} {text}");
    });
}

/// A valid new advertiser under the demo agency.
fn new_advertiser(name: &str, agency_id: &Value) -> Value {
    json!({"name": name, "agencyId": agency_id, "currency": "USD", "category": "IAB3"})
}

/// The demo agency's id, as the downloaded advertisers carry it.
fn demo_agency_id(h: &Harness) -> Value {
    let advertisers = h.advertisers();
    let id = named(&advertisers, "Acme Outdoor")["value"]["agencyId"].clone();
    assert!(id.is_i64(), "Acme Outdoor has a numeric agencyId: {id}");
    id
}

fn field_errors(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .expect("a list of field errors")
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or_default().to_owned(),
                e["code"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The hidden and named inputs of the sandbox's login form, HTML entities decoded.
fn form_fields(html: &str) -> (String, Vec<(String, String)>) {
    fn attr(tag: &str, name: &str) -> Option<String> {
        let key = format!(" {name}=\"");
        let from = tag.find(&key)? + key.len();
        let len = tag[from..].find('"')?;
        Some(
            tag[from..from + len]
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        )
    }
    let form_at = html.find("<form").expect("the page has a form");
    let form_end = html[form_at..].find('>').expect("form tag ends") + form_at;
    let action = attr(&html[form_at..=form_end], "action").expect("the form has an action");
    let mut fields = Vec::new();
    for piece in html[form_at..].split("<input").skip(1) {
        let tag = &piece[..piece.find('>').expect("input tag ends")];
        if attr(tag, "type").as_deref() == Some("hidden")
            && let (Some(name), Some(value)) = (attr(tag, "name"), attr(tag, "value"))
        {
            fields.push((name, value));
        }
    }
    (action, fields)
}

/// Plays the system browser: opens the login page, signs in as the partner's login, and
/// returns where the service redirects (`com.flightdeck.desktop:/oauth/callback?...`).
fn browser_sign_in(authorize_url: &str) -> String {
    tauri::async_runtime::block_on(async {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        let page = http
            .get(authorize_url)
            .send()
            .await
            .expect("open the login page");
        assert!(page.status().is_success(), "login page: {}", page.status());
        let html = page.text().await.expect("login page HTML");
        let (action, mut fields) = form_fields(&html);
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        for needed in ["client_id", "redirect_uri", "state", "code_challenge"] {
            assert!(names.contains(&needed), "the form carries {needed}: {html}");
        }
        fields.push(("username".into(), "partner".into()));
        fields.push(("password".into(), "partner".into()));
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&fields)
            .finish();
        let action = url::Url::parse(authorize_url)
            .and_then(|u| u.join(&action))
            .expect("form action URL");
        let resp = http
            .post(action)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .await
            .expect("submit the login form");
        assert!(resp.status().is_redirection(), "login: {}", resp.status());
        resp.headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .expect("a Location header")
            .to_owned()
    })
}

fn query_param(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Signs the demo data partner in, the way the deep link does.
fn partner_sign_in(h: &Harness) {
    let started = h.ok(
        "partner_sign_in",
        json!({"clientId": "demo-partner", "clientSecret": "demo-partner-secret"}),
    );
    let authorize = started["authorizeUrl"].as_str().expect("an authorize URL");
    let location = browser_sign_in(authorize);
    let handle = h.app.handle().clone();
    tauri::async_runtime::block_on(flightdeck_app::commands::session::complete_partner_sign_in(
        &handle,
        &h.state(),
        &location,
    ))
    .expect("the redirect completes the sign-in");
    assert_eq!(h.snapshot()["session"]["kind"], "partner");
}

/// SHA-256 hex of `text`, as a CRM exports hashed e-mails.
fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn messages_of(errors: &Value, field: &str) -> Vec<String> {
    errors
        .as_array()
        .expect("a list of field errors")
        .iter()
        .filter(|e| e["field"] == field)
        .filter_map(|e| e["message"].as_str().map(str::to_owned))
        .collect()
}

/// The secrets a token set holds, for checking that none of them went anywhere else.
fn token_strings(base_url: &str, account: &str, partner: bool) -> Vec<String> {
    use secrecy::ExposeSecret;
    let store = keyring_store(base_url, account, partner);
    let tokens = store
        .load_tokens()
        .expect("read the keyring")
        .expect("the session's tokens are in the keyring");
    let mut out = vec![tokens.access_token.expose_secret().to_owned()];
    out.extend(tokens.refresh_token.map(|t| t.expose_secret().to_owned()));
    out
}
