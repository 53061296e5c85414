//! Cell editing as the grid calls it: each column's fact, cells committed by column id
//! or label as one undo step with the change event and pending count a form save gives,
//! a cell the service ignores on update refused with its reason at its wire path, and
//! the Status cell as a status change in the same step.

use super::tables::workspace_changed;
use super::*;

#[test]
fn cells_commit_by_column_or_label_as_one_undo_step_and_refuse_read_only_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    h.sign_in_demo();
    h.refresh();

    let facts = h.ok("cell_facts", json!({"kind": "ad_order"}));
    let fact = |column: &str| {
        facts
            .as_array()
            .expect("facts")
            .iter()
            .find(|f| f["column"] == column)
            .cloned()
            .expect("a fact per column")
    };
    assert_eq!(
        (&fact("maxbid")["path"], &fact("maxbid")["label"]),
        (&json!("max_bid"), &json!("Max bid"))
    );
    assert_eq!(fact("maxbid")["editor"], json!({"type": "money"}));
    assert_eq!(fact("maxbid")["readOnly"], Value::Null);
    assert_eq!(fact("start")["oncePosted"], true, "{}", fact("start"));

    let orders = h.query("query_ad_orders", Value::Null);
    let three: Vec<Value> = orders.iter().take(3).map(|r| r["target"].clone()).collect();
    // Typed into the Max bid column, the first by its column id, the others by its label.
    let cells = json!([
        {"target": three[0], "field": "maxbid", "value": {"type": "value", "value": 12.5}},
        {"target": three[1], "field": "Max bid", "value": {"type": "text", "value": "$13.00"}},
        {"target": three[2], "field": "max bid", "value": {"type": "text", "value": "14"}},
    ]);
    let preview = h.ok("edit_cells", json!({"cells": cells, "apply": false}));
    assert_eq!(preview["updates"], 3, "{preview}");
    assert!(h.pending().is_empty(), "a preview saves nothing");

    let events = workspace_changed(&h);
    let applied = h.ok("edit_cells", json!({"cells": cells, "apply": true}));
    assert!(applied["step"].is_number(), "{applied}");
    let event = events
        .recv_timeout(Duration::from_secs(10))
        .expect("the edit's workspace-changed event");
    assert_eq!(event["kinds"], json!(["ad_order"]), "{event}");
    assert_eq!(event["ids"].as_array().map(Vec::len), Some(3), "{event}");
    assert_eq!(h.pending().len(), 3);
    h.ok("undo", json!({}));
    assert!(h.pending().is_empty(), "one undo puts all three back");

    // A posted ad order's start moves through its flight caps: refused with that reason.
    let start = json!([{"target": three[0], "field": "start", "value": {"type": "text", "value": "2030-01-01"}}]);
    let refused = h.ok("edit_cells", json!({"cells": start, "apply": true}));
    assert_eq!(refused["refused"], 1, "{refused}");
    let error = &refused["rows"][0]["errors"][0];
    assert_eq!(error["field"], "startDate", "{error}");
    assert_eq!(error["code"], "IGNORED_ON_UPDATE", "{error}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Start: ")),
        "{error}"
    );
    assert_eq!(
        refused["rows"][0]["label"], orders[0]["label"],
        "the row by its name"
    );
    assert!(h.pending().is_empty());

    // The Status cell sets the status (`updateStatus`) by its label, in the same step as
    // the row's other cells: two pending changes, one undo.
    let choices = fact("status")["editor"]["choices"].clone();
    assert!(
        choices
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["label"] == "Paused")),
        "{choices}"
    );
    let paused = json!([
        {"target": three[1], "field": "Status", "value": {"type": "text", "value": "Paused"}},
        {"target": three[1], "field": "name", "value": {"type": "value", "value": "Paused order"}},
    ]);
    let applied = h.ok("edit_cells", json!({"cells": paused, "apply": true}));
    assert_eq!(
        (&applied["updates"], &applied["refused"]),
        (&json!(2), &json!(0)),
        "{applied}"
    );
    assert_eq!(h.pending().len(), 2);
    let window = h.window("query_ad_orders", Value::Null, "Paused order", 0, 10);
    assert_eq!(window["rows"][0]["status"]["text"], "paused", "{window}");
    h.ok("undo", json!({}));
    assert!(h.pending().is_empty());
    let bad = json!([{"target": three[1], "field": "status", "value": {"type": "text", "value": "asleep"}}]);
    let refused = h.ok("edit_cells", json!({"cells": bad, "apply": false}));
    assert_eq!(
        refused["rows"][0]["errors"][0]["message"],
        "Status: expected one of inactive, active, archived, paused, completed, got “asleep”",
        "{refused}"
    );

    // A field the ad orders do not have is refused whole, with the nearest.
    let typo =
        json!([{"target": three[0], "field": "Maxx bid", "value": {"type": "value", "value": 1}}]);
    let e = h.err("edit_cells", json!({"cells": typo, "apply": true}));
    assert!(e.to_string().contains("Max bid"), "{e}");
}
