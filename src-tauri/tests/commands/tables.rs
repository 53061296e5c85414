//! Table windows and bulk commands.

use super::*;

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
        json!({"scope": {"type": "ids", "value": three}, "edits": edits, "apply": false}),
    );
    assert_eq!(preview["updates"], 3, "{preview}");
    assert_eq!(preview["rows"][0]["diffs"][0]["path"], "max_bid");
    assert_eq!(preview["rows"][0]["diffs"][0]["after"], 11.0);
    assert!(h.pending().is_empty());

    // Apply, undo, redo.
    let applied = h.ok(
        "bulk_edit",
        json!({"scope": {"type": "ids", "value": three}, "edits": edits, "apply": true}),
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
    let events = workspace_changed(&h);
    h.post_all();
    // The post names what it settled: the three ad orders, edited in place.
    let posted = events
        .recv_timeout(Duration::from_secs(10))
        .expect("the post's workspace-changed event");
    assert_eq!(posted["kinds"], json!(["ad_order"]), "{posted}");
    assert_eq!(posted["ids"].as_array().map(Vec::len), Some(3), "{posted}");
    assert_eq!(posted["addedOrRemoved"], false, "{posted}");
    let e = h.err("undo", json!({}));
    assert_eq!(e["code"], "posted", "{e}");
    // Revert puts the old bids back as a new change.
    let step = h.ok("edit_history", json!({}))[0]["id"].clone();
    let revert = h.ok("revert_step", json!({"step": step, "apply": true}));
    assert_eq!(revert["updates"], 3, "{revert}");

    // Copy as TSV, paste back as new drafts under the first order's campaign.
    let tsv = h.ok(
        "export_sheet",
        json!({"scope": {"type": "ids", "value": [three[0].clone()]}, "delimiter": "tab", "format": "wire"}),
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

/// "Select all" of a sorted table, less one row unticked: the page sends the
/// query, never the ids. The preview answers its counts and first rows, in the table's
/// order; later rows come a window at a time; the apply's event names what changed.
#[test]
fn a_select_all_is_previewed_and_applied_as_the_tables_query_less_the_unticked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    let query = json!({"parent": null, "filter": "", "sort": {"column": "name", "descending": true}, "offset": 0, "limit": 0});
    let window = h.ok(
        "query_ad_orders",
        json!({"query": {"parent": null, "filter": "", "sort": {"column": "name", "descending": true}, "offset": 0, "limit": 1000}}),
    );
    let rows = rows(window["rows"].clone());
    assert!(rows.len() >= 3, "{window}");
    let unticked = rows[1]["target"].clone();
    let expected: Vec<Value> = rows
        .iter()
        .filter(|r| r["target"] != unticked)
        .map(|r| r["label"].clone())
        .collect();
    let scope = json!({"type": "query", "value": {"kind": "ad_order", "query": query, "except": [unticked]}});
    let edits = json!([{"field": "name", "change": {"type": "suffix", "value": " (Q3)"}}]);

    let preview = h.ok(
        "bulk_edit",
        json!({"scope": scope, "edits": edits, "apply": false}),
    );
    let n = expected.len();
    assert_eq!(preview["updates"], n, "{preview}");
    assert_eq!(preview["rowCount"], n, "{preview}");
    let labels: Vec<Value> = preview["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["label"].clone())
        .collect();
    assert_eq!(
        labels,
        expected[..n.min(50)],
        "the table's order, less the unticked"
    );
    let page = h.ok(
        "preview_rows",
        json!({"rowsId": preview["rowsId"], "offset": 1, "limit": 2}),
    );
    assert_eq!(page["total"], n, "{page}");
    assert_eq!(page["offset"], 1, "{page}");
    let page_labels: Vec<Value> = page["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["label"].clone())
        .collect();
    assert_eq!(page_labels, expected[1..3]);
    assert!(h.pending().is_empty(), "a preview saves nothing");

    let events = workspace_changed(&h);
    let applied = h.ok(
        "bulk_edit",
        json!({"scope": scope, "edits": edits, "apply": true}),
    );
    assert_eq!(applied["updates"], n, "{applied}");
    assert_eq!(h.pending().len(), n);
    let event = events
        .recv_timeout(Duration::from_secs(10))
        .expect("a workspace-changed event");
    assert_eq!(event["kinds"], json!(["ad_order"]), "{event}");
    assert_eq!(event["addedOrRemoved"], false, "{event}");
    let ids = event["ids"].as_array().expect("ids");
    assert_eq!(ids.len(), n, "{event}");
    assert!(!ids.contains(&scope["value"]["except"][0]), "{event}");

    // The undo names the same rows, and the paging of an earlier preview is refused
    // once another one replaced it.
    h.ok("undo", json!({}));
    let event = events
        .recv_timeout(Duration::from_secs(10))
        .expect("the undo's workspace-changed event");
    assert_eq!(event["ids"].as_array().map(Vec::len), Some(n), "{event}");
    assert!(h.pending().is_empty());
    let gone = h.err(
        "preview_rows",
        json!({"rowsId": preview["rowsId"], "offset": 0, "limit": 10}),
    );
    assert_eq!(gone["code"], "notFound", "{gone}");
}

/// Starts listening for `WorkspaceChanged` (event name as in `ui/src/bindings.ts`).
pub(super) fn workspace_changed(h: &Harness) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    h.app.listen("workspace-changed", move |event| {
        let payload: Value =
            serde_json::from_str(event.payload()).expect("WorkspaceChanged is JSON");
        let _ = tx.send(payload);
    });
    rx
}

/// The sortable headers the UI asks for are the core's column list, the one the CLI's
/// listings print (`crates/cli/tests/cli.rs` checks that side), and every id sorts.
#[test]
fn table_columns_are_the_cores_and_every_one_sorts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();
    for kind in flightdeck_offline::change::Kind::tables() {
        let answer = h.ok("table_columns", json!({"kind": kind}));
        let core = serde_json::to_value(flightdeck_core::query::columns(kind)).expect("json");
        assert_eq!(answer, core, "{kind:?}");
        assert!(!core.as_array().expect("list").is_empty(), "{kind:?}");
    }
    for column in flightdeck_core::query::columns(flightdeck_offline::change::Kind::AdOrder) {
        let sort = json!({"column": column.id, "descending": true});
        h.ok(
            "query_ad_orders",
            json!({"query": {"parent": null, "filter": "", "sort": sort, "offset": 0, "limit": 5}}),
        );
    }
    h.close();
}
