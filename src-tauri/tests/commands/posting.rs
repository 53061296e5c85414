//! Downloads, posting in the background, reviews and an unreachable service.

use super::*;

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
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Posted Co", &agency)}}),
    );
    assert_eq!(adv["errors"], json!([]));
    let camp = h.ok(
        "save",
        json!({"target": null, "parent": adv["target"], "draft": {"kind": "campaign", "value": {
                "name": "Posted campaign", "domain": "posted.example", "maxBudget": 1000.0,
                "startDate": start, "endDate": end, "iabCategory": ["IAB3"],
                "flights": [{"budgetType": "AUTO_BUDGET", "maxBudget": 1000.0, "startDate": start, "endDate": end}],
            }}}),
    );
    assert_eq!(camp["errors"], json!([]));
    let order = h.ok(
        "save",
        json!({"target": null, "parent": camp["target"], "draft": {"kind": "ad_order", "value": {
            "name": "Posted order", "optimizationGoal": "CPM",
            "startDate": start, "endDate": end, "lifetimeBudget": 100.0,
        }}}),
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
        "save",
        json!({"target": row["target"], "parent": null, "draft": {"kind": "advertiser", "value": value}}),
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
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Waiting, not in review", &agency)}}),
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
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": new_advertiser("Posted once it is back", &agency)}}),
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
