//! Ad-order status: Launch, Pause, Archive and Make inactive through `set_status`, over
//! ticked rows and a table's "select all filtered", with the Status column the table
//! shows and the money review.

use super::tables::workspace_changed;
use super::*;

fn status_of<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    &named(rows, name)["status"]
}

#[test]
fn pausing_a_filtered_selection_is_one_undo_step_and_posts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();

    // Downloaded ad orders' status is unknown, and the cell says why.
    let orders = h.query("query_ad_orders", Value::Null);
    let video = status_of(&orders, "Acme Spring - Video");
    assert_eq!(video["text"], "unknown", "{video}");
    assert_eq!(video["pending"], false);
    assert!(
        video["why"]
            .as_str()
            .is_some_and(|w| w.contains("do not carry status")),
        "{video}"
    );

    // "Select all" of the table filtered to one campaign's ad orders.
    let scope = json!({"type": "query", "value": {
        "kind": "ad_order",
        "query": {"parent": null, "filter": "acme spring", "sort": null, "offset": 0, "limit": 50},
        "except": []
    }});
    let preview = h.ok(
        "set_status",
        json!({"scope": scope, "status": "paused", "apply": false}),
    );
    assert_eq!(preview["updates"], 3, "{preview}");
    assert_eq!(preview["rows"][0]["diffs"][0]["path"], "status");
    assert_eq!(preview["rows"][0]["diffs"][0]["after"], "paused");
    assert!(h.pending().is_empty(), "a preview keeps nothing");

    let events = workspace_changed(&h);
    let applied = h.ok(
        "set_status",
        json!({"scope": scope, "status": "paused", "apply": true}),
    );
    assert!(applied["step"].is_number(), "{applied}");
    let changed = events
        .recv_timeout(Duration::from_secs(10))
        .expect("the edit's workspace-changed event");
    assert_eq!(changed["kinds"], json!(["ad_order"]), "{changed}");
    assert_eq!(
        changed["ids"].as_array().map(Vec::len),
        Some(3),
        "{changed}"
    );
    assert_eq!(h.pending().len(), 3);
    assert_eq!(
        h.ok("edit_history", json!({}))[0]["label"],
        "Pause 3 ad orders"
    );

    // The Status column shows the pending status, marked pending; it sorts and filters.
    let orders = h.query("query_ad_orders", Value::Null);
    let video = status_of(&orders, "Acme Spring - Video");
    assert_eq!(video["text"], "paused", "{video}");
    assert_eq!(video["pending"], true);
    let sorted = h.ok(
        "query_ad_orders",
        json!({"query": {"parent": null, "filter": "", "sort": {"column": "status", "descending": false}, "offset": 0, "limit": 3}}),
    );
    assert!(
        rows(sorted["rows"].clone())
            .iter()
            .all(|r| r["status"]["text"] == "paused"),
        "{sorted}"
    );
    let found = h.window("query_ad_orders", Value::Null, "paused", 0, 50);
    assert_eq!(found["total"], 3, "{found}");

    // Pausing launches nothing.
    let money = h.ok("money_summary", json!({}));
    assert_eq!(money["goingLive"], json!([]), "{money}");

    // Undo takes all three back at once; redo puts them back.
    h.ok("undo", json!({}));
    assert!(h.pending().is_empty());
    h.ok("redo", json!({}));
    assert_eq!(h.pending().len(), 3);

    // Another kind has no status to set.
    let e = h.err(
        "set_status",
        json!({"scope": {"type": "kind", "value": "campaign"}, "status": "paused", "apply": true}),
    );
    assert!(
        e.to_string().contains("only ad orders have a status"),
        "{e}"
    );

    h.post_all();
    assert!(h.pending().is_empty());
    let orders = h.query("query_ad_orders", Value::Null);
    let video = status_of(&orders, "Acme Spring - Video");
    assert_eq!(video["text"], "paused", "{video}");
    assert_eq!(video["pending"], false);
    assert_eq!(video["known"], "paused");
    // Posted: undo is refused with the app's usual code.
    assert_eq!(h.err("undo", json!({}))["code"], "posted");
    h.close();
}
