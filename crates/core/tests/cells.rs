//! Cell editing through the core, on a real data directory and workspace file: a cell
//! committed and undone, text pasted as the spreadsheet export writes it, fill down, a
//! read-only cell refused with its reason, a bad date named by its cell, two cells of
//! one row as one change, and labels taken as the field. A form's save answers the row
//! its table then shows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{advertiser, campaign, working};

use flightdeck_core::cells::{CellEdit, CellEditor, CellValue, READ_ONLY, cell_facts};
use flightdeck_core::edits::SavedRow;
use flightdeck_core::query::TableQuery;
use flightdeck_core::{Account, Core, Error, OpenOptions, Selection};
use flightdeck_model::{AdOrder, TimezoneName};
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::workspace::{Draft, RowOutcome};
use serde_json::{Value, json};

fn text(target: &EntityRef, field: &str, text: &str) -> CellEdit {
    CellEdit {
        target: target.clone(),
        field: field.to_owned(),
        value: CellValue::Text(text.to_owned()),
    }
}

fn value(target: &EntityRef, field: &str, value: Value) -> CellEdit {
    CellEdit {
        target: target.clone(),
        field: field.to_owned(),
        value: CellValue::Value(value),
    }
}

/// A campaign under an advertiser in New York, and `n` ad order drafts under it.
fn ad_orders(account: &Account, n: usize) -> Vec<EntityRef> {
    let advertiser = advertiser(account, Some(TimezoneName::ET));
    let campaign = campaign(account, &advertiser);
    (0..n)
        .map(|i| {
            let order: AdOrder = serde_json::from_value(
                json!({"name": format!("Order {i}"), "max_bid": 2.0, "dailyBudget": 50.0}),
            )
            .unwrap();
            account
                .save(None, Some(&campaign), Draft::AdOrder { value: order })
                .unwrap()
                .target
        })
        .collect()
}

async fn open(dir: &std::path::Path) -> (Core, std::sync::Arc<Account>) {
    let core = Core::open(dir, Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    (core, account)
}

#[tokio::test]
async fn a_cell_committed_then_undone_is_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let before = working(&account, &orders[0]);

    let done = account
        .edit_cells(&[value(&orders[0], "maxbid", json!(3.25))], true)
        .unwrap();
    assert_eq!(done.preview.updates, 1);
    assert!(done.preview.step.is_some(), "applied as an undo step");
    assert_eq!(done.changed.targets, vec![orders[0].clone()]);
    assert_eq!(
        working(&account, &orders[0])["max_bid"].as_f64(),
        Some(3.25)
    );

    let undone = account.undo().unwrap().expect("an undo step");
    assert_eq!(undone.targets, vec![orders[0].clone()]);
    assert_eq!(working(&account, &orders[0]), before);
}

#[tokio::test]
async fn a_pasted_block_of_text_fills_its_cells_in_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 3);
    // Three rows by two columns, as a spreadsheet puts them on the clipboard.
    let block = [["$1,250.00", "4.5"], ["900", "0.75"], ["12.5", "1"]];
    let mut cells = Vec::new();
    for (row, texts) in orders.iter().zip(block) {
        cells.push(text(row, "budget", texts[0]));
        cells.push(text(row, "maxbid", texts[1]));
    }

    let preview = account.edit_cells(&cells, false).unwrap().preview;
    assert_eq!((preview.updates, preview.refused), (3, 0));
    assert!(preview.step.is_none());
    assert_eq!(
        working(&account, &orders[0])["max_bid"],
        json!(2.0),
        "a preview saves nothing"
    );

    let done = account.edit_cells(&cells, true).unwrap();
    assert_eq!(done.preview.updates, 3);
    let got: Vec<(Option<f64>, Option<f64>)> = orders
        .iter()
        .map(|o| {
            let v = working(&account, o);
            (v["lifetimeBudget"].as_f64(), v["max_bid"].as_f64())
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Some(1250.0), Some(4.5)),
            (Some(900.0), Some(0.75)),
            (Some(12.5), Some(1.0)),
        ]
    );
    // One undo step puts all six cells back.
    account.undo().unwrap().expect("an undo step");
    assert!(
        orders
            .iter()
            .all(|o| working(&account, o)["max_bid"] == json!(2.0))
    );
}

#[tokio::test]
async fn fill_down_gives_every_row_the_first_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 4);
    let cells: Vec<CellEdit> = orders
        .iter()
        .map(|o| value(o, "name", json!("Retargeting")))
        .collect();
    let done = account.edit_cells(&cells, true).unwrap();
    assert_eq!(done.preview.updates, 4);
    assert!(
        orders
            .iter()
            .all(|o| working(&account, o)["name"] == json!("Retargeting"))
    );
}

#[tokio::test]
async fn a_read_only_cell_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let facts = cell_facts(Kind::AdOrder);
    let id = facts.iter().find(|f| f.column == "id").unwrap();
    let why = id.read_only.clone().expect("the id is read-only");

    let done = account
        .edit_cells(&[value(&orders[0], "id", json!(5))], true)
        .unwrap();
    assert_eq!(done.preview.refused, 1);
    let row = &done.preview.rows[0];
    assert_eq!(row.outcome, RowOutcome::Refused);
    assert_eq!(row.label, "Order 0");
    assert_eq!(
        (row.errors[0].field.as_str(), row.errors[0].code.as_str()),
        ("id", READ_ONLY)
    );
    assert_eq!(row.errors[0].message, format!("Id: {why}"));
    assert!(working(&account, &orders[0]).get("id").is_none());
}

#[tokio::test]
async fn a_bad_date_names_its_cell_and_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let done = account
        .edit_cells(&[text(&orders[0], "start", "tomorrow")], false)
        .unwrap();
    let row = &done.preview.rows[0];
    assert_eq!(
        (row.outcome, row.label.as_str()),
        (RowOutcome::Refused, "Order 0")
    );
    assert_eq!(row.errors[0].field, "startDate");
    assert_eq!(
        row.errors[0].message,
        "Start: expected a date like 2026-03-01 or 2026-03-01T09:00-05:00, got “tomorrow”"
    );

    // A good one reads in the advertiser's timezone; an end day ends at 23:59.
    account
        .edit_cells(
            &[
                text(&orders[0], "Start", "2026-03-01"),
                text(&orders[0], "End", "2026-03-31"),
            ],
            true,
        )
        .unwrap();
    let v = working(&account, &orders[0]);
    assert_eq!(
        v["startDate"],
        json!(1_772_341_200_000_i64),
        "midnight in New York"
    );
    assert_eq!(
        v["endDate"],
        json!(1_775_015_940_000_i64),
        "23:59 in New York"
    );
}

#[tokio::test]
async fn two_cells_of_one_row_make_one_change() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let steps = account.history(100).unwrap().len();
    let done = account
        .edit_cells(
            &[
                value(&orders[0], "maxbid", json!(7)),
                value(&orders[0], "name", json!("Renamed")),
            ],
            true,
        )
        .unwrap();
    assert_eq!((done.preview.row_count, done.preview.updates), (1, 1));
    assert_eq!(done.preview.rows[0].diffs.len(), 2);
    assert_eq!(
        account.history(100).unwrap().len(),
        steps + 1,
        "one undo step"
    );
}

#[tokio::test]
async fn labels_and_wire_paths_are_taken_as_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let done = account
        .edit_cells(
            &[
                text(&orders[0], "Max bid", "6"),
                text(&orders[0], "dailyBudget", "75.50"),
                text(&orders[0], "hourly pacing", "spend evenly"),
            ],
            true,
        )
        .unwrap();
    let v = working(&account, &orders[0]);
    assert_eq!(
        (
            v["max_bid"].as_f64(),
            v["dailyBudget"].as_f64(),
            &v["hourlyPacingMode"]
        ),
        (Some(6.0), Some(75.5), &json!("SPEND_EVENLY"))
    );
    // The forms' rule, saved and held back as a form save is, named by its label.
    let row = &done.preview.rows[0];
    assert_eq!((row.outcome, done.preview.invalid), (RowOutcome::Update, 1));
    let frontload = row
        .errors
        .iter()
        .find(|e| e.field == "hourlyFrontload")
        .expect("the frontload's error");
    assert_eq!(
        frontload.message,
        "Hourly frontload: is required when hourlyPacingMode is SPEND_EVENLY"
    );

    let Err(Error::Invalid(e)) = account.edit_cells(&[text(&orders[0], "Maxx bid", "1")], true)
    else {
        panic!("an unknown field is refused");
    };
    assert_eq!(e.field, "cells[0].field");
    assert!(e.message.contains("“Max bid” (max_bid)"), "{}", e.message);
}

#[test]
fn every_column_has_a_fact_in_its_order() {
    for kind in Kind::tables() {
        let facts = cell_facts(kind);
        let columns = flightdeck_core::query::columns(kind);
        assert_eq!(
            facts.iter().map(|f| &f.column).collect::<Vec<_>>(),
            columns.iter().map(|c| &c.id).collect::<Vec<_>>()
        );
    }
    let facts = cell_facts(Kind::AdOrder);
    let editor = |c: &str| facts.iter().find(|f| f.column == c).unwrap().editor.clone();
    assert_eq!(editor("maxbid"), CellEditor::Money);
    assert_eq!(editor("start"), CellEditor::Date);
    assert_eq!(
        editor("campaign"),
        CellEditor::Entity {
            kind: Kind::Campaign
        }
    );
    assert!(matches!(editor("pacing"), CellEditor::Enum { .. }));
}

#[tokio::test]
async fn a_sheet_whose_header_uses_the_grids_labels_reads_as_the_wire_names() {
    use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions, id_cell};
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 2);
    let ids: Vec<String> = orders.iter().map(|o| id_cell(&o.key)).collect();

    // As typed over the grid's headers: labels in any case, the format's own columns
    // capitalised, and a money cell with its dollar sign.
    let text = format!(
        "Id\tMax bid\tname\tDaily budget\n{}\t$4.50\tFirst\t\n{}\t5\t\tnope\n",
        ids[0], ids[1]
    );
    let options = ImportOptions {
        delimiter: Delimiter::Tab,
        kind: Some(Kind::AdOrder),
        parent: None,
    };
    let done = account.import_sheet(&text, &options, true).unwrap();
    assert_eq!((done.preview.updates, done.preview.refused), (1, 1));
    let first = working(&account, &orders[0]);
    assert_eq!(
        (first["max_bid"].as_f64(), &first["name"]),
        (Some(4.5), &json!("First"))
    );
    assert!(
        first.get("Max bid").is_none(),
        "no member named by the label"
    );
    // The bad cell is on the sheet's second row, at the wire name.
    let refused = done
        .preview
        .rows
        .iter()
        .find(|r| r.outcome == RowOutcome::Refused)
        .unwrap();
    assert_eq!(refused.line, Some(2));
    assert_eq!(refused.errors[0].field, "dailyBudget");

    // A whole-account file: the label every kind that has it agrees on.
    let text = format!("Kind,ID,Max bid\nad_order,{},7\n", ids[1]);
    let options = ImportOptions {
        delimiter: Delimiter::Comma,
        kind: None,
        parent: None,
    };
    account.import_sheet(&text, &options, true).unwrap();
    assert_eq!(working(&account, &orders[1])["max_bid"].as_f64(), Some(7.0));
}

#[tokio::test]
async fn a_parent_cell_says_why_it_cannot_be_typed_in() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 1);
    let fact = cell_facts(Kind::AdOrder)
        .into_iter()
        .find(|f| f.column == "campaign")
        .unwrap();
    assert_eq!(
        (fact.path.as_str(), fact.once_posted),
        ("campaignId", false)
    );
    let why = fact.read_only.expect("the parent column is read-only");
    // Even on a draft, by column id or by the grid's label.
    for field in ["campaign", "Campaign"] {
        let done = account
            .edit_cells(&[text(&orders[0], field, "Spring sale")], true)
            .unwrap();
        let row = &done.preview.rows[0];
        assert_eq!(row.outcome, RowOutcome::Refused);
        assert_eq!(row.errors[0].field, "campaignId");
        assert_eq!(row.errors[0].message, format!("Campaign: {why}"));
    }
}

#[tokio::test]
async fn a_save_answers_the_row_its_table_then_shows() {
    let dir = tempfile::tempdir().unwrap();
    let (_core, account) = open(dir.path()).await;
    let orders = ad_orders(&account, 3);
    let mut value: AdOrder = serde_json::from_value(working(&account, &orders[1])).unwrap();
    value.name = Some("Order 1, renamed".into());

    let saved = account
        .save(Some(&orders[1]), None, Draft::AdOrder { value })
        .unwrap();
    let Some(SavedRow::AdOrder(row)) = saved.row else {
        panic!("an ad order's save answers its row: {:?}", saved.row);
    };
    assert_eq!(row.target, orders[1]);
    assert_eq!(row.label, "Order 1, renamed");
    assert_eq!(row.parent_label.as_deref(), Some("Spring sale"));
    assert_eq!(row.timezone, Some(TimezoneName::ET));
    assert!(row.pending && row.marker.is_some(), "{row:?}");
    assert!(
        row.status.is_some(),
        "an ad order's row has its status cell"
    );

    // Exactly the row the table's window holds now, so the table can show it in place
    // and its refetch changes nothing.
    let window = account
        .window::<AdOrder>(Kind::AdOrder, &TableQuery::all())
        .unwrap();
    let shown = window
        .rows
        .iter()
        .find(|r| r.target == orders[1])
        .expect("the saved row in its table");
    assert_eq!(
        serde_json::to_value(&*row).unwrap(),
        serde_json::to_value(shown).unwrap()
    );

    // Every kind with a table answers its own row; the parent's save too.
    let campaign = row.parent.clone().expect("the order's campaign");
    let mut value: flightdeck_model::Campaign =
        serde_json::from_value(working(&account, &campaign)).unwrap();
    value.name = Some("Summer sale".into());
    let saved = account
        .save(Some(&campaign), None, Draft::Campaign { value })
        .unwrap();
    let Some(SavedRow::Campaign(row)) = saved.row else {
        panic!("a campaign's save answers its row: {:?}", saved.row);
    };
    assert_eq!(row.label, "Summer sale");
}
