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
