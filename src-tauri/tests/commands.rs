//! The app's commands as the UI calls them: by name, with camelCase JSON arguments,
//! through Tauri's IPC on the mock runtime, against the embedded sandbox (real HTTP on
//! loopback, real SQLite) and the OS keyring.
//!
//! Run inside `scripts/with-keyring.sh` (a private Secret Service):
//! `bash scripts/with-keyring.sh cargo test -p flightdeck-app --test commands`.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flightdeck_app::state::AppState;
use flightdeck_client::ClientConfig;
use flightdeck_client::token_store::{Profile, TokenStore};
use flightdeck_core::files::FileUse;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{App, Listener, Manager, WebviewWindow, WebviewWindowBuilder};

const DAY: i64 = 86_400_000;
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

fn now_ms() -> i64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970");
    i64::try_from(d.as_millis()).expect("milliseconds fit in i64")
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

// ---------------------------------------------------------------------------------

#[test]
fn first_run_shows_the_local_sandbox_with_demo_credentials() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    tauri::async_runtime::block_on(flightdeck_app::probe::probe_now(h.app.handle(), &h.state()));

    let snap = h.snapshot();
    let profiles = snap["profiles"].as_array().expect("profiles");
    assert_eq!(profiles.len(), 1, "one profile on first run: {snap}");
    let p = &profiles[0];
    assert_eq!(p["name"], "Local sandbox");
    assert_eq!(p["embedded"], true);
    assert_eq!(snap["activeId"], p["id"]);
    let base = p["baseUrl"].as_str().expect("base URL");
    let url = url::Url::parse(base).expect("the base URL parses");
    assert_eq!(url.host_str(), Some("127.0.0.1"), "{base}");
    assert_ne!(
        url.port(),
        Some(0),
        "the sandbox listens on a real port: {base}"
    );
    assert_eq!(snap["session"], Value::Null);
    assert_eq!(
        snap["demo"],
        json!({
            "username": "demo", "password": "demo",
            "partnerClientId": "demo-partner", "partnerClientSecret": "demo-partner-secret",
            "partnerLogin": "partner", "partnerPassword": "partner",
        })
    );
    assert_eq!(snap["sandbox"], "running");
    assert_eq!(snap["online"], true, "the sandbox answers: {snap}");
    assert_eq!(snap["pendingCount"], 0);
    assert_eq!(snap["posting"], false);
    // The sandbox really serves the demo account there.
    let advertisers = sandbox_get(base, "v1/advertiser");
    assert_eq!(
        count_named(&advertisers, "Acme Outdoor"),
        1,
        "{advertisers}"
    );
    h.close();
}

/// A wrong password is the buyer's mistake to correct (`invalid`), not a service
/// failure to retry later, and the message never repeats it.
#[test]
fn a_wrong_password_is_refused_as_invalid_without_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let base = h.base_url();

    let e = h.err("sign_in", json!({"username": "demo", "password": ""}));
    assert_eq!(e["code"], "invalid");
    assert_eq!(
        e["fieldErrors"],
        json!([{"field": "password", "code": "REQUIRED", "message": "is required"}])
    );

    let wrong = "not-the-password-7731";
    let e = h.err("sign_in", json!({"username": "demo", "password": wrong}));
    let message = e["message"].as_str().expect("a message");
    assert!(
        message.contains("invalid username or password"),
        "the message says what is wrong: {message}"
    );
    assert!(
        !message.contains(wrong),
        "the message names the password: {message}"
    );
    assert_eq!(h.snapshot()["session"], Value::Null);
    assert!(keyring_is_empty_for(&base, "demo", false));
    assert_eq!(e["code"], "invalid", "{e}");
    h.close();
}

#[test]
fn sign_in_keeps_the_session_in_the_keyring_across_restarts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let base = h.base_url();

    h.sign_in_demo();
    assert!(
        keyring_holds_session(&base, "demo", false),
        "tokens and password are in the keyring"
    );
    let profiles = std::fs::read_to_string(dir.path().join("profiles.json")).expect("profiles");
    assert!(
        !profiles.contains("password") && !profiles.contains("token"),
        "no secret on disk: {profiles}"
    );
    h.close();

    let h = Harness::open(dir.path());
    assert_eq!(
        h.base_url(),
        base,
        "the sandbox comes back on the same port"
    );
    let snap = h.snapshot();
    assert_eq!(
        snap["session"],
        json!({"account": "demo", "kind": "user"}),
        "still signed in after a restart: {snap}"
    );
    // The restored session works against the service.
    let summary = h.refresh();
    assert!(summary["added"].as_u64().unwrap_or(0) > 0, "{summary}");
    h.close();
}

#[test]
fn refresh_downloads_the_demo_account() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let e = h.err("refresh", json!({}));
    assert_eq!(e["code"], "signInRequired", "refresh needs a session: {e}");
    h.sign_in_demo();

    let summary = h.refresh();
    // 3 advertisers, 4 campaigns, 10 ad orders at least (flight caps may add more).
    assert!(summary["added"].as_u64().unwrap_or(0) >= 17, "{summary}");
    assert_eq!(summary["keptPending"], 0);

    let advertisers = h.advertisers();
    let mut names: Vec<&str> = advertisers
        .iter()
        .filter_map(|r| r["value"]["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["Acme Outdoor", "Bluebird Coffee", "Northwind Travel"]
    );
    let acme = named(&advertisers, "Acme Outdoor");
    assert_eq!(acme["marker"], Value::Null);
    assert_eq!(acme["pending"], false);
    assert_eq!(acme["label"], "Acme Outdoor");
    assert_eq!(acme["target"]["kind"], "advertiser");
    assert_eq!(acme["target"]["key"]["type"], "id");

    let campaigns = h.query("query_campaigns", acme["target"].clone());
    let mut names: Vec<&str> = campaigns
        .iter()
        .filter_map(|r| r["value"]["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Acme Always-On", "Acme Spring Launch"]);
    for c in &campaigns {
        assert_eq!(c["parent"], acme["target"]);
        assert_eq!(c["value"]["advertiserId"], acme["value"]["id"]);
    }
    let spring = named(&campaigns, "Acme Spring Launch");
    let flights = spring["value"]["flights"].as_array().expect("flights");
    assert_eq!(flights.len(), 2, "{spring}");
    for f in flights {
        assert!(f["id"].is_i64(), "downloaded flights have ids: {f}");
        assert!(f["startDate"].as_i64() < f["endDate"].as_i64(), "{f}");
    }

    let all = h.query("query_campaigns", Value::Null);
    assert_eq!(all.len(), 4, "all campaigns without a filter");
    h.close();
}

#[test]
fn forms_save_drafts_and_report_broken_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());

    // A draft without a name is saved anyway, with the rule it breaks.
    let mut value = json!({"agencyId": 1, "currency": "USD", "category": "IAB3"});
    let saved = h.ok("save_advertiser", json!({"target": null, "value": value}));
    assert_eq!(saved["target"]["kind"], "advertiser");
    assert_eq!(saved["target"]["key"]["type"], "local");
    assert_eq!(
        field_errors(&saved["errors"]),
        [("name".to_owned(), "REQUIRED".to_owned())]
    );
    let advertisers = h.advertisers();
    let row = advertisers
        .iter()
        .find(|r| r["target"] == saved["target"])
        .expect("the draft is listed");
    assert_eq!(row["marker"], "invalid");
    assert_eq!(row["pending"], true);
    assert_eq!(h.snapshot()["pendingCount"], 1);
    let pending = h.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["status"], "invalid");

    value["name"] = json!("Draft Co");
    let fixed = h.ok(
        "save_advertiser",
        json!({"target": saved["target"], "value": value}),
    );
    assert_eq!(fixed["target"], saved["target"]);
    assert_eq!(fixed["errors"], json!([]));
    let advertisers = h.advertisers();
    let row = named(&advertisers, "Draft Co");
    assert_eq!(row["marker"], "new");
    assert_eq!(row["target"], saved["target"]);
    assert_eq!(h.snapshot()["pendingCount"], 1, "still one change");

    // Two flights that overlap: the later one is flagged, nothing else.
    let start = now_ms() + 10 * DAY;
    let flights = json!([
        {"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": start + 20 * DAY},
        {"budgetType": "AUTO_BUDGET", "maxBudget": 500.0, "startDate": start + 10 * DAY, "endDate": start + 30 * DAY},
    ]);
    let campaign = json!({
        "advertiserId": 1, "name": "Overlapping", "domain": "overlap.example",
        "iabCategory": ["IAB3"], "flights": flights,
    });
    let errors = h.ok(
        "validate",
        json!({"draft": {"kind": "campaign", "value": campaign}, "parent": null, "existing": false}),
    );
    assert_eq!(
        field_errors(&errors),
        [("flights[1].startDate".to_owned(), "OVERLAP".to_owned())],
        "{errors}"
    );
    // Without the overlap the same campaign is valid.
    let mut apart = campaign.clone();
    apart["flights"][1]["startDate"] = json!(start + 20 * DAY);
    let errors = h.ok(
        "validate",
        json!({"draft": {"kind": "campaign", "value": apart}, "parent": null, "existing": false}),
    );
    assert_eq!(errors, json!([]));

    let timeline = h.ok("flight_timeline", json!({"flights": flights}));
    assert_eq!(timeline["overlaps"], json!([{"a": 0, "b": 1}]));
    assert_eq!(timeline["bars"].as_array().map(Vec::len), Some(2));
    assert_eq!(timeline["gaps"], json!([]));
    assert!(
        field_errors(&timeline["errors"])
            .contains(&("flights[1].startDate".to_owned(), "OVERLAP".to_owned())),
        "{timeline}"
    );

    let matrix = rows(h.ok("creative_matrix", json!({})));
    assert_eq!(matrix.len(), 14);
    let mut cells: Vec<(String, String)> = matrix
        .iter()
        .map(|c| {
            (
                c["creativeType"].as_str().unwrap_or_default().to_owned(),
                c["creativeSubtype"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), 14, "14 distinct type/subtype cells");
    h.close();
}

#[test]
fn pending_changes_post_in_the_background_exactly_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    let base = h.base_url();

    let start = now_ms() + 2 * DAY;
    let end = start + 28 * DAY;
    let adv = h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Posted Co", &agency)}),
    );
    assert_eq!(adv["errors"], json!([]));
    let camp = h.ok(
        "save_campaign",
        json!({
            "target": null,
            "advertiser": adv["target"],
            "value": {
                "name": "Posted campaign", "domain": "posted.example", "maxBudget": 1000.0,
                "startDate": start, "endDate": end, "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            },
        }),
    );
    assert_eq!(camp["errors"], json!([]));
    let order = h.ok(
        "save_ad_order",
        json!({
            "target": null,
            "campaign": camp["target"],
            "value": {
                "name": "Posted order", "optimizationGoal": "CPM",
                "startDate": start, "endDate": end, "lifetimeBudget": 100.0,
            },
        }),
    );
    assert_eq!(order["errors"], json!([]));

    let pending = h.pending();
    assert_eq!(pending.len(), 3, "{pending:?}");
    let mut labels: Vec<&str> = pending.iter().filter_map(|c| c["label"].as_str()).collect();
    labels.sort_unstable();
    assert_eq!(labels, ["Posted Co", "Posted campaign", "Posted order"]);
    for c in &pending {
        assert_eq!(c["op"], "create", "{c}");
        assert_eq!(c["status"], "pending", "{c}");
        let diff = c["diff"].as_array().expect("a diff");
        assert!(
            diff.iter()
                .any(|d| d["path"] == "name" && d["after"] == c["label"]),
            "the diff shows the new name: {c}"
        );
    }
    assert_eq!(h.snapshot()["pendingCount"], 3);

    let report = h.post_all();
    assert_eq!(report["applied"], 3, "{report}");
    for k in ["failed", "needsReview", "conflicts", "held", "unsent"] {
        assert_eq!(report[k], 0, "{k}: {report}");
    }
    assert_eq!(report["stopped"], Value::Null);
    let snap = h.snapshot();
    assert_eq!(snap["pendingCount"], 0, "{snap}");
    assert!(h.pending().is_empty());

    // The service has each of them exactly once.
    let advertisers = sandbox_get(&base, "v1/advertiser");
    assert_eq!(count_named(&advertisers, "Posted Co"), 1, "{advertisers}");
    let row = named(&h.advertisers(), "Posted Co").clone();
    assert_eq!(row["marker"], Value::Null);
    assert_eq!(row["pending"], false);
    let campaigns = h.query("query_campaigns", row["target"].clone());
    assert_eq!(campaigns.len(), 1);
    assert_eq!(campaigns[0]["value"]["name"], "Posted campaign");
    assert_eq!(campaigns[0]["pending"], false);

    // Posting with nothing pending changes nothing.
    let report = h.post_all();
    assert_eq!(report["applied"], 0, "{report}");
    let advertisers = sandbox_get(&base, "v1/advertiser");
    assert_eq!(count_named(&advertisers, "Posted Co"), 1, "{advertisers}");
    h.close();
}

#[test]
fn edits_made_offline_wait_and_post_when_back_online() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let base = h.base_url();

    let snap = h.ok("set_sandbox_running", json!({"running": false}));
    assert_eq!(snap["sandbox"], "stopped", "{snap}");
    assert_eq!(snap["online"], false, "{snap}");

    let advertisers = h.advertisers();
    let row = named(&advertisers, "Bluebird Coffee");
    let mut value = row["value"].clone();
    value["name"] = json!("Bluebird Coffee Roasters");
    let saved = h.ok(
        "save_advertiser",
        json!({"target": row["target"], "value": value}),
    );
    assert_eq!(saved["errors"], json!([]));
    let row = named(&h.advertisers(), "Bluebird Coffee Roasters").clone();
    assert_eq!(row["marker"], "changed");
    assert_eq!(h.snapshot()["pendingCount"], 1);

    // Nothing is sent to a stopped sandbox: posting says so at once.
    let e = h.err("post_changes", json!({"seqs": null}));
    assert_eq!(e["code"], "offline", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("the local sandbox is stopped; start it to post"),
        "{e}"
    );
    let pending = h.pending();
    assert_eq!(pending.len(), 1, "the edit is still pending: {pending:?}");
    assert_eq!(pending[0]["status"], "pending", "{pending:?}");
    assert_eq!(pending[0]["op"], "update");
    let snap = h.snapshot();
    assert_eq!(snap["pendingCount"], 1);
    assert_eq!(
        snap["session"],
        json!({"account": "demo", "kind": "user"}),
        "being offline does not sign out"
    );

    let snap = h.ok("set_sandbox_running", json!({"running": true}));
    assert_eq!(snap["sandbox"], "running", "{snap}");
    assert_eq!(snap["online"], true, "{snap}");
    assert_eq!(
        h.base_url(),
        base,
        "the sandbox restarts on the same address"
    );

    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    assert_eq!(h.snapshot()["pendingCount"], 0);
    let on_server = sandbox_get(&base, "v1/advertiser");
    assert_eq!(
        count_named(&on_server, "Bluebird Coffee Roasters"),
        1,
        "{on_server}"
    );
    assert_eq!(count_named(&on_server, "Bluebird Coffee"), 0, "{on_server}");
    h.close();
}

#[test]
fn sign_out_clears_the_keyring_and_keeps_pending_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    let base = h.base_url();
    assert!(keyring_holds_session(&base, "demo", false));

    let saved = h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Kept Co", &agency)}),
    );
    assert_eq!(saved["errors"], json!([]));

    let snap = h.ok("sign_out", json!({}));
    assert_eq!(snap["session"], Value::Null);
    assert_eq!(
        snap["pendingCount"], 1,
        "the draft survives sign-out: {snap}"
    );
    assert!(
        keyring_is_empty_for(&base, "demo", false),
        "sign-out deletes the keyring entries"
    );
    let e = h.err("post_changes", json!({"seqs": null}));
    assert_eq!(e["code"], "signInRequired", "{e}");
    let pending = h.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["label"], "Kept Co");
    assert_eq!(pending[0]["status"], "pending");
    // The downloaded account stays readable offline and signed out.
    assert_eq!(h.advertisers().len(), 4);
    h.close();

    let h = Harness::open(dir.path());
    let snap = h.snapshot();
    assert_eq!(
        snap["session"],
        Value::Null,
        "no session comes back: {snap}"
    );
    assert_eq!(snap["pendingCount"], 1);
    assert!(keyring_is_empty_for(&base, "demo", false));
    // Signing in again posts the kept change.
    h.sign_in_demo();
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let on_server = sandbox_get(&base, "v1/advertiser");
    assert_eq!(count_named(&on_server, "Kept Co"), 1, "{on_server}");
    h.close();
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

#[test]
fn partner_sign_in_completes_from_the_redirect_and_refuses_a_forged_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let base = h.base_url();

    let e = h.err(
        "partner_sign_in",
        json!({"clientId": "demo-partner", "clientSecret": ""}),
    );
    assert_eq!(e["code"], "invalid");
    assert_eq!(e["fieldErrors"][0]["field"], "clientSecret");
    // The sign-in screen's link opens only a waiting sign-in's page.
    let e = h.err("open_sign_in_page", json!({}));
    assert_eq!(e["code"], "state", "{e}");

    let started = h.ok(
        "partner_sign_in",
        json!({"clientId": "demo-partner", "clientSecret": "demo-partner-secret"}),
    );
    let authorize = started["authorizeUrl"].as_str().expect("an authorize URL");
    assert!(started["opened"].is_boolean());
    assert!(authorize.starts_with(&base), "{authorize} is on {base}");
    assert!(
        !authorize.contains("demo-partner-secret"),
        "the secret is not in the URL"
    );
    let authorize_url = url::Url::parse(authorize).expect("authorize URL parses");
    let state = query_param(&authorize_url, "state").expect("a state");
    assert_eq!(
        query_param(&authorize_url, "code_challenge_method").as_deref(),
        Some("S256")
    );

    let location = browser_sign_in(authorize);
    assert!(
        location.starts_with("com.flightdeck.desktop:/oauth/callback?"),
        "{location}"
    );
    let redirect = url::Url::parse(&location).expect("redirect parses");
    assert_eq!(query_param(&redirect, "state"), Some(state));
    assert!(query_param(&redirect, "code").is_some());

    // A forged link (another state, with an error and a text of its own) is ignored
    // before anything is read from it: no event, no message, the session untouched,
    // and the waiting sign-in stays for the real redirect.
    let (tx, events) = mpsc::channel();
    for name in ["sign-in-required", "partner-sign-in-failed"] {
        let tx = tx.clone();
        h.app.listen(name, move |event| {
            let _ = tx.send((name, event.payload().to_owned()));
        });
    }
    let mut forged = redirect.clone();
    forged
        .query_pairs_mut()
        .clear()
        .append_pair("error", "access_denied")
        .append_pair(
            "error_description",
            "Your account is locked: call +1 555 0100",
        )
        .append_pair("state", "forged");
    let handle = h.app.handle().clone();
    let outcome = tauri::async_runtime::block_on(
        flightdeck_app::commands::session::complete_partner_sign_in(
            &handle,
            &h.state(),
            forged.as_str(),
        ),
    )
    .expect("a forged link is no failure");
    assert_eq!(outcome, flightdeck_core::PartnerCallback::OtherState);
    flightdeck_app::handle_urls(&handle, vec![forged.to_string()]);
    assert!(
        events.recv_timeout(Duration::from_millis(500)).is_err(),
        "a forged link reaches the UI neither as a sign-in failure nor as SignInRequired"
    );
    assert_eq!(h.snapshot()["session"], Value::Null);
    assert!(keyring_is_empty_for(&base, "demo-partner", true));

    // The sign-in completes outside any command: the UI learns of it by an event.
    let (tx, changed) = mpsc::channel();
    h.app.listen("session-changed", move |event| {
        let payload: Value = serde_json::from_str(event.payload()).expect("JSON");
        let _ = tx.send(payload);
    });
    tauri::async_runtime::block_on(flightdeck_app::commands::session::complete_partner_sign_in(
        &handle,
        &h.state(),
        &location,
    ))
    .expect("the real redirect completes the sign-in");
    let announced = changed
        .recv_timeout(Duration::from_secs(5))
        .expect("SessionChanged is emitted");
    assert_eq!(
        announced["session"],
        json!({"account": "demo-partner", "kind": "partner"}),
        "{announced}"
    );
    let snap = h.snapshot();
    assert_eq!(
        snap["session"],
        json!({"account": "demo-partner", "kind": "partner"}),
        "{snap}"
    );
    assert!(keyring_holds_session(&base, "demo-partner", true));

    // The same redirect again finds no sign-in waiting: ignored, still signed in.
    let again = tauri::async_runtime::block_on(
        flightdeck_app::commands::session::complete_partner_sign_in(&handle, &h.state(), &location),
    )
    .expect("a link with no sign-in waiting is no failure");
    assert_eq!(again, flightdeck_core::PartnerCallback::NoneWaiting);
    assert_eq!(
        h.snapshot()["session"]["kind"],
        "partner",
        "still signed in"
    );

    // A real sign-in the service refuses (its code was used already) is reported on its
    // own event; the UI is not signed out.
    let started = h.ok(
        "partner_sign_in",
        json!({"clientId": "demo-partner", "clientSecret": "demo-partner-secret"}),
    );
    let state = query_param(
        &url::Url::parse(started["authorizeUrl"].as_str().expect("a URL")).expect("a URL"),
        "state",
    )
    .expect("a state");
    let mut reused = redirect.clone();
    reused
        .query_pairs_mut()
        .clear()
        .append_pair("code", &query_param(&redirect, "code").expect("a code"))
        .append_pair("state", &state);
    flightdeck_app::handle_urls(&handle, vec![reused.to_string()]);
    let (name, payload) = events
        .recv_timeout(Duration::from_secs(10))
        .expect("the failure is reported");
    assert_eq!(name, "partner-sign-in-failed", "{payload}");
    assert!(
        events.recv_timeout(Duration::from_millis(300)).is_err(),
        "nothing else is reported"
    );
    assert_eq!(
        h.snapshot()["session"]["kind"],
        "partner",
        "the earlier session is untouched"
    );
    h.close();

    // The partner's session comes back after a restart, from the keyring.
    let h = Harness::open(dir.path());
    assert_eq!(
        h.snapshot()["session"],
        json!({"account": "demo-partner", "kind": "partner"})
    );
    h.close();
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

/// A data partner may only call the audience endpoints: "Refresh" must download its
/// audience segments without touching advertisers, campaigns or ad orders.
#[test]
fn a_data_partner_can_refresh_its_audience_segments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    sandbox_create_segment(&h.base_url(), "Partner Segment");
    // An agency user downloads first on the same profile: the partner must not see it.
    h.sign_in_demo();
    h.refresh();
    assert!(!h.advertisers().is_empty());
    h.ok("sign_out", json!({}));
    partner_sign_in(&h);
    let summary = h.refresh();
    assert_eq!(summary["added"], 1, "the one segment: {summary}");
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(
        page["rows"][0]["value"]["name"], "Partner Segment",
        "{page}"
    );
    assert_eq!(
        page["rows"][0]["target"]["key"]["type"], "segment",
        "{page}"
    );
    assert!(h.advertisers().is_empty(), "a partner sees no advertisers");
    assert_eq!(
        h.snapshot()["session"]["kind"],
        "partner",
        "refresh does not end the session"
    );
    h.close();
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

#[test]
fn overlap_messages_read_in_the_advertisers_timezone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    assert_eq!(acme["value"]["timezoneName"], "ET", "{acme}");

    // Noon UTC is morning in New York: the dates in the message say which zone they are in.
    let start = (now_ms() / DAY + 10) * DAY + 12 * 3_600_000;
    let flights = json!([
        {"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": start + 20 * DAY},
        {"budgetType": "AUTO_BUDGET", "maxBudget": 500.0, "startDate": start + 10 * DAY, "endDate": start + 30 * DAY},
    ]);
    let campaign = json!({
        "name": "Overlapping", "domain": "overlap.example", "iabCategory": ["IAB3"], "flights": flights,
    });
    let in_et = h.ok(
        "validate",
        json!({"draft": {"kind": "campaign", "value": campaign}, "parent": acme["target"], "existing": false}),
    );
    let et = messages_of(&in_et, "flights[1].startDate");
    assert_eq!(et.len(), 1, "{in_et}");
    assert!(et[0].contains(" ET") && !et[0].contains("UTC"), "{et:?}");

    let in_utc = h.ok(
        "validate",
        json!({"draft": {"kind": "campaign", "value": campaign}, "parent": null, "existing": false}),
    );
    let utc = messages_of(&in_utc, "flights[1].startDate");
    assert!(utc.len() == 1 && utc[0].contains("UTC"), "{in_utc}");

    let timeline = h.ok(
        "flight_timeline",
        json!({"flights": flights, "timezone": "ET"}),
    );
    let on_timeline = messages_of(&timeline["errors"], "flights[1].startDate");
    assert_eq!(on_timeline, et, "the timeline says what the form says");
    h.close();
}

#[test]
fn edits_the_service_would_ignore_are_refused_with_the_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();

    let orders = h.query("query_ad_orders", json!(null));
    let order = orders
        .iter()
        .find(|o| o["target"]["key"]["type"] == "id")
        .expect("a downloaded ad order")
        .clone();
    assert_eq!(order["readOnly"], Value::Null, "ad orders can be edited");
    let mut value = order["value"].clone();
    let budget = value["lifetimeBudget"].as_f64().unwrap_or(0.0);
    value["lifetimeBudget"] = json!(budget + 500.0);
    let e = h.err(
        "save_ad_order",
        json!({"target": order["target"], "campaign": order["parent"], "value": value}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert_eq!(
        field_errors(&e["fieldErrors"]),
        [("lifetimeBudget".to_owned(), "IGNORED_ON_UPDATE".to_owned())],
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("lifetimeBudget:")),
        "the message names the field: {e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // An advertiser's timezone is ignored on update too.
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    let mut adv = acme["value"].clone();
    adv["timezoneName"] = json!("PT");
    let e = h.err(
        "save_advertiser",
        json!({"target": acme["target"], "value": adv}),
    );
    assert_eq!(
        field_errors(&e["fieldErrors"]),
        [("timezoneName".to_owned(), "IGNORED_ON_UPDATE".to_owned())],
        "{e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // A field the service does take is saved as before.
    let mut renamed = order["value"].clone();
    renamed["name"] = json!("Renamed order");
    let saved = h.ok(
        "save_ad_order",
        json!({"target": order["target"], "campaign": order["parent"], "value": renamed}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    assert_eq!(h.pending().len(), 1);
    h.close();
}

#[test]
fn a_posted_creative_is_read_only_and_duplicates_as_a_new_draft() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();

    // A creative that names only a draft campaign (no advertiser) is valid and posts.
    let start = now_ms() + 2 * DAY;
    let end = start + 28 * DAY;
    let camp = h.ok(
        "save_campaign",
        json!({
            "target": null, "advertiser": acme["target"],
            "value": {
                "name": "Creative campaign", "domain": "acme.example", "maxBudget": 1000.0,
                "startDate": start, "endDate": end, "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            },
        }),
    );
    assert_eq!(camp["errors"], json!([]), "{camp}");
    let creative = json!({
        "name": "Hero banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/hero.png",
        "landingPageUrl": "https://acme.example/", "size": {"width": 300, "height": 250},
    });
    let errors = h.ok(
        "validate",
        json!({"draft": {"kind": "creative", "value": creative}, "parent": camp["target"], "existing": false}),
    );
    assert_eq!(
        errors,
        json!([]),
        "a draft campaign counts as the creative's owner"
    );
    let saved = h.ok(
        "save_creative",
        json!({"target": null, "parent": camp["target"], "value": creative}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let report = h.post_all();
    assert_eq!(
        report["applied"], 2,
        "the campaign, then the creative: {report}"
    );

    let campaigns = h.query("query_campaigns", acme["target"].clone());
    let campaign_id = named(&campaigns, "Creative campaign")["value"]["id"].clone();
    assert!(campaign_id.is_i64(), "{campaigns:?}");
    let creatives = h.query("query_creatives", json!(null));
    let posted = named(&creatives, "Hero banner").clone();
    assert_eq!(posted["target"]["key"]["type"], "id", "{posted}");
    assert_eq!(posted["value"]["campaignId"], campaign_id, "{posted}");
    assert_eq!(
        posted["value"]["size"],
        json!({"width": 300, "height": 250})
    );
    assert!(
        posted["readOnly"].as_str().is_some_and(|r| !r.is_empty()),
        "a posted creative says why it is read-only: {posted}"
    );

    // Editing it is refused: it would post a second creative.
    let mut edited = posted["value"].clone();
    edited["name"] = json!("Hero banner v2");
    let e = h.err(
        "save_creative",
        json!({"target": posted["target"], "parent": camp["target"], "value": edited}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert!(
        !e["fieldErrors"].as_array().is_none_or(Vec::is_empty),
        "{e}"
    );
    assert!(h.pending().is_empty(), "nothing was saved");

    // "Duplicate as new" makes an editable draft with the same content.
    let copy = h.ok("duplicate_as_new", json!({"target": posted["target"]}));
    assert_eq!(copy["kind"], "creative", "{copy}");
    let row = &copy["row"];
    assert_eq!(row["target"]["key"]["type"], "local", "{copy}");
    assert_eq!(row["readOnly"], Value::Null, "{copy}");
    assert_eq!(row["marker"], "new", "{copy}");
    assert_eq!(row["value"].get("id"), None, "{copy}");
    assert_eq!(row["value"]["imageUrl"], posted["value"]["imageUrl"]);
    assert_eq!(row["value"]["size"], posted["value"]["size"]);
    let mut changed = row["value"].clone();
    changed["name"] = json!("Hero banner v2");
    let saved = h.ok(
        "save_creative",
        json!({"target": row["target"], "parent": row["parent"], "value": changed}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let creatives = h.query("query_creatives", json!(null));
    let first = named(&creatives, "Hero banner")["value"]["id"].clone();
    let second = named(&creatives, "Hero banner v2")["value"]["id"].clone();
    assert!(
        first.is_i64() && second.is_i64() && first != second,
        "{creatives:?}"
    );
    h.close();
}

#[test]
fn a_file_upload_to_a_posted_segment_reports_its_counts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let base = h.base_url();
    sandbox_create_segment(&base, "Upload Segment");
    h.sign_in_demo();
    h.refresh();
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    let segment = named(&rows(page["rows"].clone()), "Upload Segment").clone();
    assert_eq!(segment["target"]["key"]["type"], "segment", "{segment}");
    assert!(segment["readOnly"].is_string(), "{segment}");

    // The segment's own fields are read-only.
    let mut renamed = segment["value"].clone();
    renamed["name"] = json!("Renamed segment");
    let e = h.err(
        "save_audience_segment",
        json!({"target": segment["target"], "value": renamed}),
    );
    assert_eq!(e["code"], "invalid", "{e}");
    assert!(h.pending().is_empty());

    // A CSV export with two identifier-like columns: the buyer picks one.
    let hashes: Vec<String> = (0..1200)
        .map(|i| sha256_hex(&format!("buyer{i}@example.com")))
        .collect();
    let mut csv = String::from("id,email\n");
    for (i, hash) in hashes.iter().enumerate() {
        csv.push_str(&format!("{i},{hash}\n"));
    }
    let file = h.ok("read_identifiers", json!({"text": csv, "column": null}));
    assert_eq!(file["columns"], json!(["id", "email"]), "{file}");
    assert_eq!(file["values"], json!([]));
    assert!(file["problem"].is_string(), "{file}");
    let file = h.ok("read_identifiers", json!({"text": csv, "column": "email"}));
    assert_eq!(file["problem"], Value::Null, "{file}");
    assert_eq!(file["values"], json!(hashes));

    // Live validation names the bad identifier and country at the form's paths.
    let errors = h.ok(
        "validate",
        json!({
            "draft": {"kind": "audience_data", "value": {"countryCode": "USA", "values": [hashes[0], "not-a-hash"]}},
            "parent": segment["target"], "existing": true,
        }),
    );
    let fields: Vec<String> = field_errors(&errors).into_iter().map(|(f, _)| f).collect();
    assert!(
        fields.contains(&"countryCode".to_owned()) && fields.contains(&"values[1]".to_owned()),
        "{errors}"
    );

    let saved = h.ok(
        "upload_audience_data",
        json!({"segment": segment["target"], "upload": {"countryCode": "US", "values": file["values"]}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 1, "{uploads:?}");
    assert_eq!(uploads[0]["status"], "pending");
    assert_eq!(uploads[0]["values"], 1200);
    assert_eq!(uploads[0]["countryCode"], "US");
    assert_eq!(uploads[0]["result"], Value::Null);

    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads[0]["status"], "applied", "{uploads:?}");
    let result = &uploads[0]["result"];
    assert_eq!(
        result["message"], "Audience data payload processed.",
        "{result}"
    );
    assert_eq!(result["bad_records"], 0, "{result}");
    // `published` counts records: the whole file fits one request of one record.
    assert_eq!(result["published"], 1, "{result}");

    // The sandbox applies an upload at once: 1,200 identifiers activate the segment.
    h.refresh();
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    let segment_now = named(&rows(page["rows"].clone()), "Upload Segment").clone();
    assert_eq!(segment_now["value"]["dataCount"], 1200, "{segment_now}");
    assert_eq!(segment_now["value"]["status"], "ACTIVE", "{segment_now}");

    // A file with a bad identifier is refused at the form's path: it could never be
    // posted, so nothing is queued.
    let bad = h.err(
        "upload_audience_data",
        json!({"segment": segment["target"], "upload": {"countryCode": "US", "values": ["not-a-hash"]}}),
    );
    assert_eq!(bad["code"], "invalid", "{bad}");
    assert_eq!(
        field_errors(&bad["fieldErrors"])
            .into_iter()
            .map(|(f, _)| f)
            .collect::<Vec<_>>(),
        ["values[0]"],
        "{bad}"
    );
    assert!(
        !bad["message"].as_str().unwrap_or_default().contains("[0]."),
        "the sentence names the form's field: {bad}"
    );
    let bad_country = h.err(
        "upload_audience_data",
        json!({"segment": segment["target"], "upload": {"countryCode": "USA", "values": [hashes[0]]}}),
    );
    assert_eq!(
        field_errors(&bad_country["fieldErrors"])
            .into_iter()
            .map(|(f, _)| f)
            .collect::<Vec<_>>(),
        ["countryCode"],
        "{bad_country}"
    );
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 1, "nothing queued: {uploads:?}");
    assert!(h.pending().is_empty());

    // The country code is normalised by the workspace, as for the CLI: " ca" goes as CA.
    let saved = h.ok(
        "upload_audience_data",
        json!({"segment": segment["target"], "upload": {"countryCode": " ca", "values": [hashes[0]]}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let uploads = rows(h.ok("audience_uploads", json!({"segment": segment["target"]})));
    assert_eq!(uploads.len(), 2, "{uploads:?}");
    assert_eq!(uploads[1]["countryCode"], "CA", "{uploads:?}");
    assert_eq!(uploads[1]["status"], "pending", "{uploads:?}");
    h.close();
}

#[test]
fn site_list_calls_follow_the_stored_type_and_keep_the_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();

    let list = json!({"name": "Premium sites", "typeId": 5, "siteIds": [11, 12, 13]});
    let saved = h.ok(
        "save_site_list",
        json!({"target": null, "op": "add", "value": list}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let target = saved["target"].clone();

    // Appending rules to an id-based list is caught while typing: the stored type is known.
    let rules =
        json!({"name": "Premium sites", "rules": [{"name": "news.example", "type": "web"}]});
    let errors = h.ok(
        "validate",
        json!({"draft": {"kind": "site_list", "op": "append", "value": rules, "list": target}, "parent": null, "existing": true}),
    );
    assert!(
        field_errors(&errors).contains(&("rules".to_owned(), "NOT_APPLICABLE".to_owned())),
        "{errors}"
    );
    // A draft list's missing id is not an error: it gets one when it lands.
    assert!(
        !field_errors(&errors).iter().any(|(f, _)| f == "id"),
        "{errors}"
    );

    // removeSites carries the list's name, and the service renames the list with it.
    let removed = h.ok(
        "save_site_list",
        json!({"target": target, "op": "remove", "value": {"name": "Premium sites 2027", "siteIds": [12]}}),
    );
    assert_eq!(removed["errors"], json!([]), "{removed}");

    // The table shows what the list holds now, under its new name.
    let lists = h.query("query_site_lists", Value::Null);
    let row = named(&lists, "Premium sites 2027");
    assert_eq!(row["value"]["siteIds"], json!([11, 13]), "{row}");

    let report = h.post_all();
    assert_eq!(report["applied"], 2, "add, then remove: {report}");
    h.close();
}

#[test]
fn a_cap_on_a_new_flight_of_a_draft_campaign_posts_in_one_push() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let base = h.base_url();
    let acme = named(&h.advertisers(), "Acme Outdoor").clone();
    assert_eq!(acme["value"]["timezoneName"], "ET", "{acme}");

    // Noon UTC: the form names the flight by its start in New York time.
    let start = (now_ms() / DAY + 10) * DAY + 12 * 3_600_000;
    let end = start + 20 * DAY;
    let camp = h.ok(
        "save_campaign",
        json!({
            "target": null,
            "advertiser": acme["target"],
            "value": {
                "name": "Capped campaign", "domain": "capped.example", "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            },
        }),
    );
    assert_eq!(camp["errors"], json!([]), "{camp}");
    let order = h.ok(
        "save_ad_order",
        json!({
            "target": null,
            "campaign": camp["target"],
            "value": {
                "name": "Capped order", "optimizationGoal": "CPM",
                "startDate": start, "endDate": end, "lifetimeBudget": 500.0,
            },
        }),
    );
    assert_eq!(order["errors"], json!([]), "{order}");

    // The form offers the new flight, by its start date in the advertiser's timezone.
    let choices = h.ok("flight_cap_choices", json!({"adOrder": order["target"]}));
    assert_eq!(choices["campaign"], camp["target"], "{choices}");
    let flights = choices["flights"].as_array().expect("flights");
    assert_eq!(flights.len(), 1, "{choices}");
    let new_flight = flights[0]["flight"].clone();
    assert_eq!(new_flight["kind"], "flight", "{choices}");
    assert_eq!(new_flight["key"]["type"], "local", "{choices}");
    assert_eq!(flights[0]["id"], Value::Null);
    let when = flightdeck_model::validate::format_millis_in(
        start,
        Some(&flightdeck_model::TimezoneName::ET),
    );
    assert!(when.ends_with(" ET"), "{when}");
    assert_eq!(
        flights[0]["label"],
        format!("new flight starting {when}"),
        "{choices}"
    );
    assert_eq!(choices["caps"], json!([]));

    // Live validation: a cap naming the new flight is valid; one naming no flight is not.
    let cap = json!({"maxBudget": 200.0, "dailyBudget": 20.0});
    let errors = h.ok(
        "validate",
        json!({
            "draft": {"kind": "flight_caps", "value": [cap], "campaignFlightIds": [], "flights": [new_flight]},
            "parent": order["target"], "existing": true,
        }),
    );
    assert_eq!(errors, json!([]), "{errors}");
    let errors = h.ok(
        "validate",
        json!({
            "draft": {"kind": "flight_caps", "value": [cap], "campaignFlightIds": [], "flights": [null]},
            "parent": order["target"], "existing": true,
        }),
    );
    assert_eq!(
        field_errors(&errors),
        [("[0].flightId".to_owned(), "REQUIRED".to_owned())],
        "{errors}"
    );

    let saved = h.ok(
        "save_flight_caps",
        json!({"adOrder": order["target"], "caps": [{"cap": cap, "flight": new_flight}]}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    // Opened again, the form shows the cap on the new flight.
    let choices = h.ok("flight_cap_choices", json!({"adOrder": order["target"]}));
    assert_eq!(choices["caps"], json!([new_flight]), "{choices}");
    let pending = h.pending();
    assert_eq!(pending.len(), 3, "{pending:?}");
    assert!(
        pending.iter().all(|c| c["status"] == "pending"),
        "{pending:?}"
    );

    // One push: campaign, ad order, then the cap with the flight's new id.
    let report = h.post_all();
    assert_eq!(report["applied"], 3, "{report}");
    for k in ["failed", "needsReview", "conflicts", "held", "unsent"] {
        assert_eq!(report[k], 0, "{k}: {report}");
    }
    assert!(h.pending().is_empty());

    let campaign = named(
        &h.query("query_campaigns", acme["target"].clone()),
        "Capped campaign",
    )
    .clone();
    let flight_id = campaign["value"]["flights"][0]["id"].clone();
    assert!(flight_id.is_i64(), "{campaign}");
    let order_row = named(
        &h.query("query_ad_orders", json!(campaign["target"])),
        "Capped order",
    )
    .clone();
    let order_id = order_row["target"]["key"]["value"].clone();
    assert!(order_id.is_i64(), "{order_row}");

    // The service has the cap on that flight (an empty body modifies nothing and answers
    // every cap of the order).
    let caps = sandbox_post(
        &base,
        &format!("v1/campaignflightcaps/byAdOrder/{order_id}"),
        &json!([]),
    );
    let caps = caps["entity"].as_array().expect("the order's caps");
    assert_eq!(caps.len(), 1, "{caps:?}");
    assert_eq!(caps[0]["flightId"], flight_id, "{caps:?}");
    assert_eq!(caps[0]["orderId"], order_id, "{caps:?}");
    assert_eq!(caps[0]["maxBudget"], 200.0, "{caps:?}");
    assert_eq!(caps[0]["dailyBudget"], 20.0, "{caps:?}");

    // Now the flight is offered by its id.
    let choices = h.ok(
        "flight_cap_choices",
        json!({"adOrder": order_row["target"]}),
    );
    let posted = json!({"kind": "flight", "key": {"type": "id", "value": flight_id}});
    assert_eq!(choices["flights"][0]["flight"], posted, "{choices}");
    assert!(
        choices["flights"][0]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with(&format!("#{flight_id}: {when}"))),
        "{choices}"
    );
    h.close();
}

/// A table window as the UI asks for it: sorted by a column, filtered, one page.
#[test]
fn table_windows_sort_and_filter_as_the_ui_asks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let sorted = |desc: bool| -> Vec<String> {
        let w = h.ok(
            "query_ad_orders",
            json!({"query": {"parent": null, "filter": "", "sort": {"column": "name", "descending": desc}, "offset": 0, "limit": 50}}),
        );
        rows(w["rows"].clone())
            .iter()
            .map(|r| r["label"].as_str().expect("label").to_owned())
            .collect()
    };
    let asc = sorted(false);
    assert!(asc.len() > 3, "{asc:?}");
    let mut expected = asc.clone();
    expected.sort_by_key(|l| l.to_lowercase());
    assert_eq!(asc, expected);
    let desc = sorted(true);
    assert_eq!(desc.first(), asc.last());
    let w = h.window("query_ad_orders", Value::Null, "bluebird", 0, 10);
    let labels: Vec<&str> = w["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["label"].as_str())
        .collect();
    assert!(
        !labels.is_empty() && labels.iter().all(|l| l.contains("Bluebird")),
        "{labels:?}"
    );
    assert!(w["unfiltered"].as_u64() > w["total"].as_u64(), "{w}");
}

/// The window opens before the state is up. A start that fails (here a damaged profile
/// list) answers the first command with the reason and leaves the file alone; once the
/// buyer has mended it, "Try again" starts the app without a restart.
#[test]
fn a_failed_start_is_reported_and_tried_again_by_the_next_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let profiles = dir.path().join("profiles.json");
    std::fs::write(&profiles, "{").expect("write a damaged profile list");
    let h = Harness::starting(dir.path());
    let e = h.err("app_snapshot", json!({}));
    assert!(e.to_string().contains("profiles.json"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&profiles).expect("the profile list is kept"),
        "{"
    );

    std::fs::remove_file(&profiles).expect("remove the damaged file");
    let snap = h.snapshot();
    assert_eq!(snap["sandbox"], "running", "{snap}");
    assert!(snap["session"].is_null());
    h.close();
}

#[test]
fn bulk_commands_preview_apply_undo_and_post_with_a_money_review() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let orders = h.query("query_ad_orders", Value::Null);
    let three: Vec<Value> = orders.iter().take(3).map(|r| r["target"].clone()).collect();
    let edits = json!([{"field": "max_bid", "change": {"type": "percent", "value": 10.0}}]);

    // Preview: the diffs, nothing saved.
    let preview = h.ok(
        "bulk_edit",
        json!({"targets": three, "edits": edits, "apply": false}),
    );
    assert_eq!(preview["updates"], 3, "{preview}");
    assert_eq!(preview["rows"][0]["diffs"][0]["path"], "max_bid");
    assert_eq!(preview["rows"][0]["diffs"][0]["after"], 11.0);
    assert!(h.pending().is_empty());

    // Apply, undo, redo.
    let applied = h.ok(
        "bulk_edit",
        json!({"targets": three, "edits": edits, "apply": true}),
    );
    assert!(applied["step"].is_number(), "{applied}");
    assert_eq!(h.pending().len(), 3);
    let history = h.ok("edit_history", json!({}));
    assert_eq!(history[0]["label"], "Edit 3 ad orders");
    let undone = h.ok("undo", json!({}));
    assert_eq!(undone["step"]["label"], "Edit 3 ad orders");
    assert!(h.pending().is_empty());
    assert_eq!(
        h.ok("redo", json!({}))["targets"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(h.pending().len(), 3);

    // The money review lists the three bids.
    let money = h.ok("money_summary", json!({}));
    let bids = money["bids"].as_array().expect("bids");
    assert_eq!(bids.len(), 3, "{money}");
    assert!(
        bids.iter()
            .all(|b| b["before"] == 10.0 && b["after"] == 11.0),
        "{money}"
    );

    // A posted step cannot be undone: the error says so with its own code.
    h.post_all();
    let e = h.err("undo", json!({}));
    assert_eq!(e["code"], "posted", "{e}");
    // Revert puts the old bids back as a new change.
    let step = h.ok("edit_history", json!({}))[0]["id"].clone();
    let revert = h.ok("revert_step", json!({"step": step, "apply": true}));
    assert_eq!(revert["updates"], 3, "{revert}");

    // Copy as TSV, paste back as new drafts under the first order's campaign.
    let tsv = h.ok(
        "export_sheet",
        json!({"scope": {"type": "selection", "value": [three[0].clone()]}, "delimiter": "tab"}),
    );
    let tsv = tsv.as_str().expect("text").to_owned();
    assert!(tsv.starts_with("id\t"), "{tsv}");
    let header = tsv.lines().next().expect("header");
    let row = tsv.lines().nth(1).expect("row");
    let without_id: Vec<&str> = row.split('\t').skip(1).collect();
    let pasted = format!(
        "{}\n{}\n",
        header.split('\t').skip(1).collect::<Vec<_>>().join("\t"),
        without_id.join("\t")
    );
    let campaign = orders[0]["parent"].clone();
    let preview = h.ok(
        "import_sheet",
        json!({"text": pasted, "options": {"delimiter": "tab", "kind": "ad_order", "parent": campaign}, "apply": true}),
    );
    assert_eq!(preview["creates"], 1, "{preview}");
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

/// A whole session logged at `trace` (sign-in, download, an audience upload posted, a
/// partner's sign-in through the browser) leaves no password, token, client secret,
/// authorization code or audience identifier in the log file, while the log does record
/// the session's requests.
#[test]
fn a_trace_log_of_a_session_holds_no_secret() {
    use flightdeck_core::logging;
    use flightdeck_core::settings::LogLevel;

    let dir = tempfile::tempdir().expect("temp dir");
    let logs = dir.path().join("logs");
    let log = logging::init(&logs, "flightdeck", LogLevel::Trace).expect("start the log");
    let data = dir.path().join("data");
    let h = Harness::open(&data);
    let base = h.base_url();
    let mut secrets: Vec<(String, String)> = vec![
        // The Basic credentials of demo / demo, as they would appear in a header.
        ("Basic credentials".into(), "ZGVtbzpkZW1v".into()),
        ("client secret".into(), "demo-partner-secret".into()),
    ];

    h.sign_in_demo();
    for t in token_strings(&base, "demo", false) {
        secrets.push(("a user token".into(), t));
    }
    sandbox_create_segment(&base, "Log Segment");
    h.refresh();
    let page = h.window("query_audience_segments", Value::Null, "", 0, 50);
    let segment = named(&rows(page["rows"].clone()), "Log Segment").clone();
    let emails: Vec<String> = (0..3)
        .map(|i| format!("log-check-{i}-{}@example.com", now_ms()))
        .collect();
    let hashes: Vec<String> = emails.iter().map(|e| sha256_hex(e)).collect();
    let saved = h.ok(
        "upload_audience_data",
        json!({"segment": segment["target"], "upload": {"countryCode": "US", "values": hashes}}),
    );
    assert_eq!(saved["errors"], json!([]), "{saved}");
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    for (e, hash) in emails.iter().zip(&hashes) {
        secrets.push(("an audience identifier".into(), hash.clone()));
        secrets.push(("an e-mail behind an identifier".into(), e.clone()));
    }

    h.ok("sign_out", json!({}));
    let started = h.ok(
        "partner_sign_in",
        json!({"clientId": "demo-partner", "clientSecret": "demo-partner-secret"}),
    );
    let authorize =
        url::Url::parse(started["authorizeUrl"].as_str().expect("a URL")).expect("a URL");
    for name in ["state", "code_challenge"] {
        secrets.push((
            format!("the sign-in's {name}"),
            query_param(&authorize, name).expect("in the login address"),
        ));
    }
    let location = browser_sign_in(authorize.as_str());
    let redirect = url::Url::parse(&location).expect("the redirect is a URL");
    let code = query_param(&redirect, "code").expect("a code");
    secrets.push(("the authorization code".into(), code));
    let handle = h.app.handle().clone();
    tauri::async_runtime::block_on(flightdeck_app::commands::session::complete_partner_sign_in(
        &handle,
        &h.state(),
        &location,
    ))
    .expect("the redirect completes the sign-in");
    for t in token_strings(&base, "demo-partner", true) {
        secrets.push(("a partner token".into(), t));
    }
    h.refresh();
    h.close();

    let mut text = String::new();
    for entry in std::fs::read_dir(log.dir()).expect("the log directory") {
        let path = entry.expect("a log file").path();
        text.push_str(&std::fs::read_to_string(&path).expect("read the log"));
    }
    // The log is not empty: the session's requests are in it, by method and path.
    assert!(
        text.contains("path=/v1/oauth2/authenticate")
            && text.contains("path=/v1/advertiser")
            && text.contains("sandbox_request{method=GET path=/v1/oauth2/login}"),
        "the trace log records requests:\n{}",
        &text[..text.len().min(2000)]
    );
    for (what, secret) in &secrets {
        assert!(!text.contains(secret.as_str()), "the log holds {what}");
    }
}

/// The embedded sandbox's port is taken by another program when the app starts again: the
/// sandbox listens on another one, and the sign-in and the pending changes carry over.
#[test]
fn a_taken_sandbox_port_moves_the_sandbox_and_keeps_the_session_and_pending_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let before = h.base_url();
    let agency = demo_agency_id(&h);
    h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Kept while the port moves", &agency)}),
    );
    assert_eq!(h.snapshot()["pendingCount"], 1);
    h.close();

    let port = url::Url::parse(&before)
        .expect("a URL")
        .port()
        .expect("a port");
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port)).expect("take the port");
    let h = Harness::open(dir.path());
    let after = h.base_url();
    assert_ne!(after, before, "the sandbox moved to another port");
    let snap = h.snapshot();
    assert_eq!(
        snap["session"],
        json!({"account": "demo", "kind": "user"}),
        "{snap}"
    );
    assert_eq!(snap["pendingCount"], 1, "{snap}");
    // Its keyring entries moved with it; none are left under the old address.
    assert!(keyring_holds_session(&after, "demo", false));
    assert!(keyring_is_empty_for(&before, "demo", false));
    // The session works on the new port.
    h.refresh();
    assert!(!h.advertisers().is_empty());
    h.close();
    drop(squatter);
}

/// The review commands as the Pending changes screen calls them: a change that does not
/// need review is neither described as one nor settled, and says why.
#[test]
fn review_commands_refuse_a_change_that_needs_no_review() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Waiting, not in review", &agency)}),
    );
    let seq = h.pending()[0]["seq"].clone();
    let e = h.err("review_change", json!({"seq": seq}));
    assert!(
        e["message"].as_str().unwrap_or_default().contains("review"),
        "{e}"
    );
    for review in [
        json!({"choice": "postAgain"}),
        json!({"choice": "created", "id": 7}),
    ] {
        let e = h.err("settle_review", json!({"seq": seq, "review": review}));
        assert_eq!(e["code"], "state", "{e}");
        assert!(
            e["message"].as_str().unwrap_or_default().contains("review"),
            "{e}"
        );
    }
    // Nothing changed: the change still waits to be posted.
    assert_eq!(h.pending().len(), 1);
    assert_eq!(h.pending()[0]["status"], "pending");
    h.close();
}

#[test]
fn import_and_export_take_only_files_chosen_in_the_dialog() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = tempfile::tempdir().expect("a folder for the buyer's files");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let orders = h.query("query_ad_orders", Value::Null);
    let scope = json!({"type": "kind", "value": "ad_order"});
    let out = files.path().join("orders.csv");
    std::fs::write(&out, "an earlier file\n").expect("write the earlier file");
    let read = |p: &Path| std::fs::read_to_string(p).expect("read the file");

    // Paths from the page are refused, without quoting them, and nothing is written or read.
    let e = h.err("export_file", json!({"file": out, "scope": scope}));
    assert_eq!(e["code"], "state", "{e}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("Export…")),
        "{e}"
    );
    assert!(!e.to_string().contains("orders.csv"), "{e}");
    assert_eq!(read(&out), "an earlier file\n");
    let elsewhere = files.path().join("elsewhere.csv");
    std::fs::write(&elsewhere, "id,name\n").expect("write a file the buyer did not pick");
    let e = h.err(
        "import_file",
        json!({"file": elsewhere, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(e["code"], "state", "{e}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("Import…")),
        "{e}"
    );
    let e = h.err(
        "export_file",
        json!({"file": "0123456789abcdef0123456789abcdef", "scope": scope}),
    );
    assert_eq!(e["code"], "state", "a made-up token: {e}");

    // The file chosen in the save dialog is written, with every ad order.
    let write = h.state().files().choose(out.clone(), FileUse::Write);
    let n = h.ok("export_file", json!({"file": write, "scope": scope}));
    assert_eq!(n.as_u64(), Some(orders.len() as u64), "{n}");
    let text = read(&out);
    assert!(text.starts_with("id,"), "{text}");
    // It was chosen to be written: an import may not read it under that token.
    let e = h.err(
        "import_file",
        json!({"file": write, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(e["code"], "state", "{e}");

    // Chosen in the open dialog, the edited file imports: one ad order renamed.
    let name = orders[0]["value"]["name"]
        .as_str()
        .expect("a name")
        .to_owned();
    std::fs::write(&out, text.replacen(&name, &format!("{name} (renamed)"), 1))
        .expect("edit the export");
    let open = h.state().files().choose(out.clone(), FileUse::Read);
    let preview = h.ok(
        "import_file",
        json!({"file": open, "kind": "ad_order", "parent": null, "apply": false}),
    );
    assert_eq!(preview["updates"], 1, "{preview}");
    let e = h.err("export_file", json!({"file": open, "scope": scope}));
    assert_eq!(
        e["code"], "state",
        "a file chosen to import is not overwritten: {e}"
    );
    h.ok(
        "import_file",
        json!({"file": open, "kind": "ad_order", "parent": null, "apply": true}),
    );
    assert_eq!(h.pending().len(), 1);
}

#[test]
fn an_export_replaces_its_file_whole_so_no_reader_sees_part_of_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = tempfile::tempdir().expect("a folder for the buyer's files");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let out = files.path().join("account.csv");
    let token = h.state().files().choose(out.clone(), FileUse::Write);
    let export = || {
        h.ok(
            "export_file",
            json!({"file": token, "scope": {"type": "account"}}),
        )
    };
    export();
    let whole = std::fs::read_to_string(&out).expect("the export");
    assert!(whole.lines().count() > 10, "{whole}");

    // Another program (a spreadsheet, a sync client) reads the file while it is exported
    // again and again: it only ever finds the whole file, never an empty or cut one.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, out, whole) = (stop.clone(), out.clone(), whole.clone());
        std::thread::spawn(move || {
            let (mut reads, mut partial) = (0u32, 0u32);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let seen = std::fs::read_to_string(&out).expect("the file is always there");
                reads += 1;
                if seen != whole {
                    partial += 1;
                }
            }
            (reads, partial)
        })
    };
    for _ in 0..200 {
        export();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (reads, partial) = reader.join().expect("the reader ends");
    assert!(reads > 0);
    assert_eq!(
        partial, 0,
        "{partial} of {reads} reads found part of the file"
    );
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(files.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("account.csv")]);
}

/// Stopping the embedded sandbox leaves nothing pointed at its port: another program
/// that binds it receives no connection (no token, no password on a renewal or a
/// sign-in) when the buyer posts, downloads or signs in; all are refused in plain words, the buyer still shows as
/// signed in (the keyring keeps the sign-in), and once the sandbox is started again
/// posting works, exactly once.
#[test]
fn a_stopped_sandbox_is_sent_nothing_even_when_another_program_takes_its_port() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    let base = h.base_url();
    h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Posted after the restart", &agency)}),
    );

    let snap = h.ok("set_sandbox_running", json!({"running": false}));
    assert_eq!(snap["sandbox"], "stopped", "{snap}");
    assert_eq!(
        snap["session"],
        json!({"account": "demo", "kind": "user"}),
        "{snap}"
    );
    let port = url::Url::parse(&base)
        .expect("a URL")
        .port()
        .expect("a port");
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port)).expect("take the port");
    squatter.set_nonblocking(true).expect("non-blocking");

    for (cmd, args) in [
        ("post_changes", json!({"seqs": null})),
        ("refresh", json!({})),
        ("sign_in", json!({"username": "demo", "password": "demo"})),
    ] {
        let e = h.err(cmd, args);
        assert_eq!(e["code"], "offline", "{cmd}: {e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains("the local sandbox is stopped; start it to post"),
            "{cmd}: {e}"
        );
    }
    let snap = h.snapshot();
    assert_eq!(snap["online"], false, "{snap}");
    assert_eq!(snap["posting"], false, "{snap}");
    assert_eq!(snap["pendingCount"], 1, "{snap}");
    std::thread::sleep(Duration::from_millis(300));
    match squatter.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((_, from)) => panic!("a connection from {from} reached the stopped sandbox's port"),
        Err(e) => panic!("accept: {e}"),
    }
    // The sign-in of the sandbox's own demo account stays for its restart.
    assert!(keyring_holds_session(&base, "demo", false));
    drop(squatter);

    let snap = h.ok("set_sandbox_running", json!({"running": true}));
    assert_eq!(snap["sandbox"], "running", "{snap}");
    assert_eq!(snap["online"], true, "{snap}");
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let on_server = sandbox_get(&base, "v1/advertiser");
    assert_eq!(
        count_named(&on_server, "Posted after the restart"),
        1,
        "{on_server}"
    );
    h.close();
}

/// A post that cannot reach the service says so at once (`SyncFinished.unreachable`,
/// nothing failed, the change waits `pending`, `AppSnapshot.postWaiting`), and posting
/// resumes by itself once the service is back: a second `SyncFinished` arrives without
/// another `post_changes`, and the service holds the change exactly once.
#[test]
fn a_post_that_cannot_reach_the_service_says_so_and_resumes_when_it_is_back() {
    use flightdeck_sandbox::{Config, Sandbox, Seed};
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let remote = Sandbox::open(&Config {
        seed: Seed::Demo,
        ..Config::default()
    })
    .expect("open a second sandbox");
    let running = tauri::async_runtime::block_on(
        remote
            .clone()
            .spawn("127.0.0.1:0".parse().expect("an address")),
    )
    .expect("serve it");
    let addr = running.addr;
    let url = format!("{}/", running.base_url());
    h.ok("add_profile", json!({"name": "Remote", "baseUrl": url}));
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    h.ok(
        "save_advertiser",
        json!({"target": null, "value": new_advertiser("Posted once it is back", &agency)}),
    );
    tauri::async_runtime::block_on(running.stop()).expect("stop it");

    let finished = h.on_sync_finished();
    assert_eq!(h.ok("post_changes", json!({"seqs": null})), Value::Null);
    let report = finished
        .recv_timeout(POST_TIMEOUT)
        .expect("SyncFinished arrives");
    let why = report["unreachable"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(why.contains("could not reach"), "{report}");
    for k in ["applied", "failed", "needsReview", "conflicts"] {
        assert_eq!(report[k], 0, "{k}: {report}");
    }
    assert_eq!(report["unsent"], 1, "{report}");
    assert_eq!(report["stopped"], Value::Null, "{report}");
    let snap = h.snapshot();
    assert_eq!(snap["postWaiting"], json!(why), "{snap}");
    let pending = h.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["status"], "pending", "{pending:?}");

    // Back on the same address: posting resumes with nobody pressing Post.
    let running = tauri::async_runtime::block_on(remote.clone().spawn(addr)).expect("serve again");
    let report = finished
        .recv_timeout(POST_TIMEOUT)
        .expect("the post resumes by itself");
    assert_eq!(report["applied"], 1, "{report}");
    assert_eq!(report["unreachable"], Value::Null, "{report}");
    let snap = h.snapshot();
    assert_eq!(snap["postWaiting"], Value::Null, "{snap}");
    assert_eq!(snap["pendingCount"], 0, "{snap}");
    let on_server = sandbox_get(&url, "v1/advertiser");
    assert_eq!(
        count_named(&on_server, "Posted once it is back"),
        1,
        "{on_server}"
    );
    h.close();
    let _ = tauri::async_runtime::block_on(running.stop());
}
