//! Sign-in, sign-out, the keyring, the embedded sandbox and the trace log.

use super::*;

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
    // Below the OSes' ephemeral ranges: no outgoing connection takes it while the app is
    // closed, so the next start finds it free.
    assert!(
        url.port()
            .is_some_and(|p| flightdeck_app::state::SANDBOX_PORTS.contains(&p)),
        "{base}"
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
fn sign_out_clears_the_keyring_and_keeps_pending_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let agency = demo_agency_id(&h);
    let base = h.base_url();
    assert!(keyring_holds_session(&base, "demo", false));

    let saved = h.ok(
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Kept Co", &agency)}}),
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
    // Signing in again posts the kept change (to the sandbox where it listens now).
    h.sign_in_demo();
    let report = h.post_all();
    assert_eq!(report["applied"], 1, "{report}");
    let on_server = sandbox_get(&h.base_url(), "v1/advertiser");
    assert_eq!(count_named(&on_server, "Kept Co"), 1, "{on_server}");
    h.close();
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
        "save",
        json!({"target": null, "parent": segment["target"], "draft": {"kind": "audience_data", "value": {"countryCode": "US", "values": hashes}}}),
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
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Kept while the port moves", &agency)}}),
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
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Posted after the restart", &agency)}}),
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

#[test]
fn the_first_sign_in_offers_a_download_once_with_the_advertisers_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    assert_eq!(
        h.ok("download_offer", json!({})),
        Value::Null,
        "nobody signed in"
    );
    h.sign_in_demo();
    let offer = h.ok("download_offer", json!({}));
    assert_eq!(offer["account"], "demo", "{offer}");
    // The demo account's advertisers, as the service lists them.
    assert_eq!(offer["advertisers"], 3, "{offer}");
    // "Later": not offered again, after a restart either.
    h.ok("answer_download_offer", json!({}));
    assert_eq!(h.ok("download_offer", json!({})), Value::Null);
    h.close();
    let h = Harness::open(dir.path());
    assert_eq!(h.ok("download_offer", json!({})), Value::Null);
    // Remembering the panel's width keeps the answer, and the Settings form keeps both.
    h.ok("remember_panel_width", json!({"width": 512}));
    let info = h.ok("app_info", json!({}));
    let form = json!({"logLevel": "debug", "updateChannel": "stable"});
    h.ok("save_settings", json!({"settings": form}));
    let saved = h.ok("app_info", json!({}));
    assert_eq!(saved["settings"]["panelWidth"], 512, "{info} {saved}");
    assert_eq!(saved["settings"]["logLevel"], "debug");
    assert_eq!(
        saved["settings"]["downloadOffersAnswered"],
        json!(["local-sandbox/demo"]),
        "{saved}"
    );
    h.close();
}

#[test]
fn a_downloaded_account_is_not_offered_a_download() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    assert_eq!(h.ok("download_offer", json!({})), Value::Null);
    h.close();
}
