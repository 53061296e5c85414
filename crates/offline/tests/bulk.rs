//! Bulk work and undo on a real workspace file, downloaded from the in-process sandbox
//! (demo seed) over HTTP: multi-row edits, find and replace, undo and redo that restore
//! the file exactly, and a posted step that can only be reverted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, by_name, file, open, snapshot};
use flightdeck_offline::Error;
use flightdeck_offline::bulk::ops::{Change, FieldEdit};
use flightdeck_offline::bulk::plan::Scope;
use flightdeck_offline::bulk::replace::Find;
use flightdeck_offline::change::{EntityRef, Kind};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{PullScope, RowOutcome, Workspace};
use serde_json::{Value, json};

async fn pulled(server: &Server, dir: &tempfile::TempDir) -> Workspace {
    let client = server.demo().await;
    let mut ws = open(&file(dir));
    ws.pull(&client, PullScope::All, |_| {})
        .await
        .expect("pull");
    ws
}

fn orders(ws: &Workspace, n: usize) -> Vec<EntityRef> {
    ws.targets(&Scope::Kind(Kind::AdOrder))
        .unwrap()
        .into_iter()
        .take(n)
        .collect()
}

fn bid(ws: &Workspace, t: &EntityRef) -> Value {
    ws.working_of(t).unwrap().unwrap()["max_bid"].clone()
}

fn raise_bid(pct: f64) -> Vec<FieldEdit> {
    vec![FieldEdit {
        field: "max_bid".into(),
        change: Change::Percent(pct),
    }]
}

#[tokio::test]
async fn a_bulk_edit_previews_without_saving_applies_as_one_step_and_undoes_exactly() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let three = orders(&ws, 3);
    assert_eq!(three.len(), 3);
    let bids: Vec<f64> = three
        .iter()
        .map(|t| bid(&ws, t).as_f64().unwrap())
        .collect();
    let clean = snapshot(&file(&dir));

    let preview = ws.bulk_edit(&three, &raise_bid(10.0), false).unwrap();
    assert_eq!(preview.updates, 3, "{preview:?}");
    assert_eq!(preview.step, None);
    for (row, before) in preview.rows.iter().zip(&bids) {
        assert_eq!(row.outcome, RowOutcome::Update);
        let d = row
            .diffs
            .iter()
            .find(|d| d.path == "max_bid")
            .expect("max_bid diff");
        assert_eq!(d.before, Some(json!(before)));
        let after = ((before * 1.1) * 100.0).round() / 100.0;
        assert_eq!(d.after, Some(json!(after)));
    }
    assert_eq!(snapshot(&file(&dir)), clean, "a preview saves nothing");
    assert!(ws.history(10).unwrap().is_empty());

    let applied = ws.bulk_edit(&three, &raise_bid(10.0), true).unwrap();
    assert!(applied.step.is_some());
    assert_eq!(
        applied.rows, preview.rows,
        "apply does what the preview showed"
    );
    let edited = snapshot(&file(&dir));
    assert_ne!(edited, clean);
    assert_eq!(ws.pending().unwrap().len(), 3);
    let history = ws.history(10).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].label, "Edit 3 ad orders");

    let undone = ws.undo().unwrap().expect("a step to undo");
    assert_eq!(undone.targets.len(), 3);
    assert!(!undone.added_or_removed, "edits in place add no row");
    assert_eq!(
        snapshot(&file(&dir)),
        clean,
        "undo restores the file exactly"
    );
    assert!(ws.history(10).unwrap()[0].undone);

    // History lives in the file: a restart can redo.
    drop(ws);
    let mut ws = open(&file(&dir));
    ws.redo().unwrap().expect("a step to redo");
    assert_eq!(
        snapshot(&file(&dir)),
        edited,
        "redo restores the edit exactly"
    );
    assert!(ws.redo().unwrap().is_none());
    ws.undo().unwrap();
    ws.undo().unwrap();
    assert!(ws.undo().unwrap().is_none());
    assert_eq!(snapshot(&file(&dir)), clean);
}

fn name_of(ws: &Workspace, t: &EntityRef) -> String {
    ws.working_of(t).unwrap().unwrap()["name"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn suffix(text: &str) -> Vec<FieldEdit> {
    vec![FieldEdit {
        field: "name".into(),
        change: Change::Suffix(text.into()),
    }]
}

/// A form save that renames an ad order, through `ws`.
fn rename(ws: &mut Workspace, t: &EntityRef, name: &str) {
    let mut order: flightdeck_model::AdOrder =
        serde_json::from_value(ws.working_of(t).unwrap().unwrap()).unwrap();
    order.name = Some(name.into());
    ws.update_ad_order(t, order).unwrap();
}

#[tokio::test]
async fn an_accepted_preview_applies_what_it_showed_and_what_changed_since_is_not_overwritten() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let three = orders(&ws, 3);
    let names: Vec<String> = three.iter().map(|t| name_of(&ws, t)).collect();

    // Accepted right away: the rows previewed, and the same file as an edit applied
    // without a preview.
    let preview = ws.bulk_edit(&three, &suffix(" Q3"), false).unwrap();
    let accepted = ws.bulk_edit(&three, &suffix(" Q3"), true).unwrap();
    assert!(accepted.step.is_some());
    assert_eq!(accepted.rows, preview.rows);
    // Outbox rows compared without their `seq`: the undone rows' numbers are not reused.
    let without_seq = |rows: Vec<String>| -> Vec<String> {
        rows.into_iter()
            .map(|r| match r.strip_prefix("Integer(") {
                Some(rest) => rest
                    .split_once('|')
                    .map_or(r.clone(), |(_, x)| x.to_owned()),
                None => r,
            })
            .collect()
    };
    let after_preview = without_seq(snapshot(&file(&dir)));
    ws.undo().unwrap();
    let direct = ws.bulk_edit(&three, &suffix(" Q3"), true).unwrap();
    assert_eq!(direct.rows, preview.rows);
    assert_eq!(without_seq(snapshot(&file(&dir))), after_preview);
    ws.undo().unwrap();
    assert_eq!(
        ws.history(10).unwrap().iter().filter(|s| !s.undone).count(),
        0
    );

    // A form save between the preview and its apply: the apply suffixes the name the
    // order has now, and keeps the rename.
    ws.bulk_edit(&three, &suffix(" Q4"), false).unwrap();
    rename(&mut ws, &three[0], "Renamed here");
    let applied = ws.bulk_edit(&three, &suffix(" Q4"), true).unwrap();
    assert_eq!(name_of(&ws, &three[0]), "Renamed here Q4");
    assert_eq!(name_of(&ws, &three[1]), format!("{} Q4", names[1]));
    let d = &applied.rows[0].diffs;
    assert!(
        d.iter().any(|d| d.after == Some(json!("Renamed here Q4"))
            && d.before == Some(json!("Renamed here"))),
        "{d:?}"
    );

    // Another connection's save in between (a second window, the CLI, a sync): the same.
    ws.bulk_edit(&three, &suffix(" Q1"), false).unwrap();
    {
        let mut other = open(&file(&dir));
        rename(&mut other, &three[1], "Renamed there");
    }
    ws.bulk_edit(&three, &suffix(" Q1"), true).unwrap();
    assert_eq!(name_of(&ws, &three[1]), "Renamed there Q1");
    assert_eq!(name_of(&ws, &three[0]), "Renamed here Q4 Q1");

    // A different operation's preview is not applied for this one.
    ws.bulk_edit(&three, &suffix(" A"), false).unwrap();
    ws.bulk_edit(&three, &suffix(" B"), true).unwrap();
    assert_eq!(name_of(&ws, &three[2]), format!("{} Q4 Q1 B", names[2]));

    // Every apply was one step, and undoing them all restores the names.
    let steps = ws.history(10).unwrap().iter().filter(|s| !s.undone).count();
    assert_eq!(steps, 5, "3 bulk edits and 2 renames");
    while ws.undo().unwrap().is_some() {}
    let back: Vec<String> = three.iter().map(|t| name_of(&ws, t)).collect();
    assert_eq!(back, names);
}

#[tokio::test]
async fn form_saves_and_discards_are_steps_and_a_new_edit_ends_the_redo_branch() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let clean = snapshot(&file(&dir));

    let mut value = ws.working_of(&campaign).unwrap().unwrap();
    value["name"] = json!("Acme Spring Launch (edited)");
    let c: flightdeck_model::Campaign = serde_json::from_value(value).unwrap();
    let seq = ws.update_campaign(&campaign, c).unwrap();
    let saved = snapshot(&file(&dir));
    ws.discard(seq).unwrap();
    assert_eq!(snapshot(&file(&dir)), clean);
    assert_eq!(ws.history(10).unwrap()[0].label, "Discard a change");

    ws.undo().unwrap();
    assert_eq!(
        snapshot(&file(&dir)),
        saved,
        "undoing the discard brings the change back"
    );
    ws.undo().unwrap();
    assert_eq!(snapshot(&file(&dir)), clean);

    // A new edit while a step is undone drops that step from redo.
    ws.bulk_edit(&orders(&ws, 1), &raise_bid(5.0), true)
        .unwrap();
    ws.undo().unwrap();
    ws.bulk_edit(&orders(&ws, 1), &raise_bid(7.0), true)
        .unwrap();
    let labels: Vec<(String, bool)> = ws
        .history(10)
        .unwrap()
        .into_iter()
        .map(|s| (s.label, s.undone))
        .collect();
    assert_eq!(labels, [("Edit ad order".to_owned(), false)]);
}

#[tokio::test]
async fn a_posted_step_cannot_be_undone_and_a_revert_puts_the_old_values_back() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let client = server.demo().await;
    let one = orders(&ws, 1);
    let before = bid(&ws, &one[0]);
    let step = ws
        .bulk_edit(&one, &raise_bid(10.0), true)
        .unwrap()
        .step
        .unwrap();
    let report = sync::push(&mut ws, &client, &PushOptions::default(), |_| {})
        .await
        .expect("push");
    assert_eq!(report.applied.len(), 1);

    let posted = snapshot(&file(&dir));
    match ws.undo() {
        Err(Error::Posted { step: s, label }) => {
            assert_eq!(s, step);
            assert_eq!(label, "Edit ad order");
        }
        other => panic!("expected Posted, got {other:?}"),
    }
    assert_eq!(
        snapshot(&file(&dir)),
        posted,
        "a refused undo changes nothing"
    );

    let revert = ws.revert(step, true).unwrap();
    assert_eq!(revert.updates, 1, "{revert:?}");
    assert_eq!(bid(&ws, &one[0]), before);
    assert_eq!(
        ws.pending().unwrap().len(),
        1,
        "the revert is a change to post"
    );
}

#[tokio::test]
async fn edits_that_cannot_apply_or_that_the_service_ignores_are_refused_per_row() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let two = orders(&ws, 2);
    let clean = snapshot(&file(&dir));
    let preview = ws
        .bulk_edit(
            &two,
            &[FieldEdit {
                field: "lifetimeBudget".into(),
                change: Change::Add(100.0),
            }],
            true,
        )
        .unwrap();
    assert_eq!(preview.refused, 2);
    assert!(
        preview.rows[0]
            .errors
            .iter()
            .any(|e| e.field == "lifetimeBudget"),
        "{:?}",
        preview.rows[0].errors
    );
    assert_eq!(preview.step, None);
    assert_eq!(snapshot(&file(&dir)), clean);

    let text = ws
        .bulk_edit(
            &two,
            &[FieldEdit {
                field: "name".into(),
                change: Change::Add(1.0),
            }],
            false,
        )
        .unwrap();
    assert_eq!(text.rows[0].errors[0].field, "name");
}

#[tokio::test]
async fn a_large_preview_shows_each_row_as_its_own_edit_would_and_applies_what_it_showed() {
    let server = Server::start().await;
    let campaign = flightdeck_sandbox::testing::demo_campaign(&server.sandbox).unwrap();
    flightdeck_sandbox::testing::load_ad_orders(&server.sandbox, campaign, 600, common::NOW)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let all = ws.targets(&Scope::Kind(Kind::AdOrder)).unwrap();
    assert!(all.len() > 600);
    let limit = |x: f64| FieldEdit {
        field: "frequencyCap.limit".into(),
        change: Change::Add(x),
    };
    // Rows of every outcome, spread over the whole selection: a cap the edit below
    // leaves valid, one it makes invalid (a limit of 0), and one it cannot change.
    let every = |n: usize| -> Vec<EntityRef> { all.iter().step_by(n).cloned().collect() };
    ws.bulk_edit(&every(3), &[limit(5.0)], true).unwrap();
    let cleared = FieldEdit {
        field: "frequencyCap".into(),
        change: Change::Clear,
    };
    ws.bulk_edit(&every(7), &[cleared], true).unwrap();

    let edits = [
        limit(-3.0),
        FieldEdit {
            field: "name".into(),
            change: Change::Suffix(" Q3".into()),
        },
    ];
    let alone: Vec<_> = all
        .iter()
        .flat_map(|t| {
            ws.bulk_edit(std::slice::from_ref(t), &edits, false)
                .unwrap()
                .rows
        })
        .collect();
    let preview = ws.bulk_edit(&all, &edits, false).unwrap();
    assert!(preview.refused > 0 && preview.invalid > 0, "{preview:?}");
    assert!(preview.updates > preview.invalid, "{preview:?}");
    assert_eq!(preview.rows, alone);

    let applied = ws.bulk_edit(&all, &edits, true).unwrap();
    assert_eq!(applied.rows, preview.rows);
    let working = |ws: &Workspace| -> Vec<Option<Value>> {
        all.iter().map(|t| ws.working_of(t).unwrap()).collect()
    };
    let payloads = |ws: &Workspace| -> Vec<(EntityRef, Value, usize)> {
        ws.pending()
            .unwrap()
            .into_iter()
            .map(|c| (c.target, c.payload, c.errors.len()))
            .collect()
    };
    let (replayed, replayed_payloads) = (working(&ws), payloads(&ws));
    let edited = snapshot(&file(&dir));
    ws.undo().unwrap();
    // Applied without a preview, the plan is carried out afresh, row by row.
    let afresh = ws.bulk_edit(&all, &edits, true).unwrap();
    assert_eq!(afresh.rows, preview.rows);
    assert_eq!(working(&ws), replayed);
    assert_eq!(payloads(&ws), replayed_payloads);
    ws.undo().unwrap();
    ws.redo().unwrap();
    assert_eq!(snapshot(&file(&dir)).len(), edited.len());

    // An id the workspace does not hold, amid the rows, stops a large preview and a large
    // apply alike, with nothing saved.
    unknown_id_stops(&mut ws, &dir, all.clone(), all.len() / 2, &edits);
}

/// An edit of `targets` with an id the workspace does not hold put in at `at` stops, as
/// a preview and as an apply, with nothing saved.
fn unknown_id_stops(
    ws: &mut Workspace,
    dir: &tempfile::TempDir,
    mut targets: Vec<EntityRef>,
    at: usize,
    edits: &[FieldEdit],
) {
    let before = snapshot(&file(dir));
    let unknown = flightdeck_offline::change::Key::Id(987_654_321);
    targets.insert(at, EntityRef::new(Kind::AdOrder, unknown));
    for apply in [false, true] {
        let err = ws.bulk_edit(&targets, edits, apply).unwrap_err();
        assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    }
    assert_eq!(snapshot(&file(dir)), before, "nothing saved");
}

/// Rows an edit leaves as they are count as unchanged and are not listed; an id the
/// workspace does not hold stops the whole edit, with nothing saved.
#[tokio::test]
async fn an_edit_lists_only_what_it_changes_and_an_unknown_id_stops_it() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let three = orders(&ws, 3);
    rename(&mut ws, &three[1], "Holiday push");
    let set = vec![FieldEdit {
        field: "name".into(),
        change: Change::Set(json!("Holiday push")),
    }];
    for apply in [false, true] {
        let done = ws.bulk_edit(&three, &set, apply).unwrap();
        assert_eq!((done.updates, done.unchanged, done.row_count), (2, 1, 2));
        let listed: Vec<_> = done.rows.iter().map(|r| r.target.clone()).collect();
        assert_eq!(listed, [Some(three[0].clone()), Some(three[2].clone())]);
    }
    unknown_id_stops(&mut ws, &dir, three, 3, &suffix(" Q3"));
}

#[tokio::test]
async fn find_and_replace_counts_matches_per_field_and_is_one_step() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let find = Find {
        find: "acme".into(),
        replace: "Apex".into(),
        whole_word: true,
        ..Find::default()
    };
    let preview = ws
        .replace(&Scope::Kind(Kind::Campaign), &find, false)
        .unwrap();
    assert!(preview.updates >= 2, "{preview:?}");
    assert_eq!(preview.matches.get("name").copied(), Some(preview.updates));
    let applied = ws
        .replace(&Scope::Kind(Kind::Campaign), &find, true)
        .unwrap();
    assert_eq!(applied.updates, preview.updates);
    let spring = by_name(&ws, Kind::Campaign, "Apex Spring Launch");
    assert!(ws.working_of(&spring).unwrap().is_some());
    assert_eq!(
        ws.history(1).unwrap()[0].label,
        "Replace “acme” with “Apex”"
    );
}

use flightdeck_offline::bulk::plan::DuplicateOptions;
use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};

fn sheet(kind: Option<Kind>, delimiter: Delimiter, parent: Option<EntityRef>) -> ImportOptions {
    ImportOptions {
        delimiter,
        kind,
        parent,
    }
}

#[tokio::test]
async fn an_exported_account_imports_back_with_no_change_and_an_edited_cell_is_one_update() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    // Drafts and pending edits travel too.
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    ws.duplicate(
        std::slice::from_ref(&campaign),
        &DuplicateOptions::default(),
        true,
    )
    .unwrap();
    ws.bulk_edit(&orders(&ws, 2), &raise_bid(10.0), true)
        .unwrap();
    let all = ws.targets(&Scope::Account).unwrap();
    let csv = ws.export_sheet(&all, Delimiter::Comma, true).unwrap();
    assert!(csv.starts_with("kind,id,"), "{}", &csv[..80]);
    let before = snapshot(&file(&dir));

    let back = ws
        .import_sheet(&csv, &sheet(None, Delimiter::Comma, None), "Import", true)
        .unwrap();
    assert_eq!(
        (back.creates, back.updates, back.refused),
        (0, 0, 0),
        "{back:?}"
    );
    assert_eq!(back.unchanged as usize, all.len());
    assert_eq!(
        snapshot(&file(&dir)),
        before,
        "a round trip changes nothing"
    );

    // One cell edited in the file: one update, with that field's diff.
    let orders_csv = ws
        .export_sheet(
            &ws.targets(&Scope::Kind(Kind::AdOrder)).unwrap(),
            Delimiter::Comma,
            false,
        )
        .unwrap();
    let mut reader = csv::Reader::from_reader(orders_csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let name_at = header.iter().position(|h| h == "name").unwrap();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    for (i, r) in reader.records().enumerate() {
        let mut r: Vec<String> = r.unwrap().iter().map(str::to_owned).collect();
        if i == 0 {
            r[name_at] = "Renamed, with \"quotes\"".into();
        }
        w.write_record(&r).unwrap();
    }
    let edited = String::from_utf8(w.into_inner().unwrap()).unwrap();
    let options = sheet(Some(Kind::AdOrder), Delimiter::Comma, None);
    let preview = ws.import_sheet(&edited, &options, "Import", false).unwrap();
    assert_eq!(preview.updates, 1, "{preview:?}");
    assert_eq!(preview.rows[0].line, Some(1));
    assert_eq!(preview.rows[0].diffs.len(), 1);
    assert_eq!(
        preview.rows[0].diffs[0].after,
        Some(json!("Renamed, with \"quotes\""))
    );
    let applied = ws.import_sheet(&edited, &options, "Import", true).unwrap();
    assert_eq!(applied.rows, preview.rows);
}

#[tokio::test]
async fn pasted_rows_without_an_id_become_drafts_under_the_selected_campaign() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let c = ws.working_of(&campaign).unwrap().unwrap();
    let (start, end) = (
        c["flights"][1]["startDate"].clone(),
        c["flights"][1]["endDate"].clone(),
    );
    let mut tsv =
        String::from("name\toptimizationGoal\tstartDate\tendDate\tlifetimeBudget\tmax_bid\n");
    for i in 0..5 {
        tsv.push_str(&format!(
            "Pasted {i}\tCPM\t{start}\t{end}\t{}\t2.5\n",
            100 + i
        ));
    }
    tsv.push_str("Bad row\tCPM\t{start}\tnot a date\t5\t1\n");
    let options = sheet(Some(Kind::AdOrder), Delimiter::Tab, Some(campaign.clone()));
    let preview = ws
        .import_sheet(&tsv, &options, "Paste 6 rows", true)
        .unwrap();
    assert_eq!(preview.creates, 5, "{preview:?}");
    assert_eq!(preview.refused, 1);
    let bad = preview.rows.last().unwrap();
    assert_eq!(bad.line, Some(6));
    assert!(
        bad.errors
            .iter()
            .any(|e| e.field == "startDate" || e.field == "endDate"),
        "{:?}",
        bad.errors
    );
    let pasted = ws
        .find_where(Kind::AdOrder, &[("name".into(), json!("Pasted 3"))])
        .unwrap();
    assert_eq!(pasted.len(), 1);
    let entity = ws.get(&pasted[0]).unwrap().unwrap();
    assert_eq!(entity.parent, Some(campaign));
    assert_eq!(entity.working["lifetimeBudget"], json!(103.0));
    let undone = ws.undo().unwrap().expect("the paste to undo");
    assert!(
        undone.added_or_removed,
        "undoing a paste removes its drafts"
    );
    assert!(
        ws.find_where(Kind::AdOrder, &[("name".into(), json!("Pasted 3"))])
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn dotted_columns_build_the_nested_objects_of_new_creatives_and_update_drafts() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    // The sheet conventions' nested fields, as a buyer types them: no JSON cells.
    let csv = "name,creativeType,creativeSubtype,type.mediaType,video.vastUrl,size.width,size.height\n\
               Spot A,VIDEO,VASTURL,VAST,https://ads.example.com/vast?id=1,640,360\n\
               Spot B,VIDEO,VASTURL,VAST,https://ads.example.com/vast?id=2,,\n";
    let options = sheet(
        Some(Kind::Creative),
        Delimiter::Comma,
        Some(campaign.clone()),
    );
    let applied = ws.import_sheet(csv, &options, "Import", true).unwrap();
    assert_eq!((applied.creates, applied.refused), (2, 0), "{applied:?}");
    assert!(
        applied.rows.iter().all(|r| r.errors.is_empty()),
        "{applied:?}"
    );
    let made = ws
        .find_where(Kind::Creative, &[("name".into(), json!("Spot A"))])
        .unwrap();
    let a = ws.working_of(&made[0]).unwrap().unwrap();
    assert_eq!(a["type"], json!({"mediaType": "VAST"}));
    assert_eq!(
        a["video"]["vastUrl"],
        json!("https://ads.example.com/vast?id=1")
    );
    assert_eq!(a["size"], json!({"width": 640, "height": 360}));

    // The same columns change a draft that has no such object yet, and clearing (`[]`)
    // an absent nested field leaves it absent.
    let b = ws
        .find_where(Kind::Creative, &[("name".into(), json!("Spot B"))])
        .unwrap()
        .remove(0);
    let id = flightdeck_offline::bulk::sheet::id_cell(&b.key);
    let csv = format!("id,size.width,size.height,display.htmlAsset\n{id},300,250,[]\n");
    let applied = ws.import_sheet(&csv, &options, "Import", true).unwrap();
    assert_eq!((applied.updates, applied.refused), (1, 0), "{applied:?}");
    let b = ws.working_of(&b).unwrap().unwrap();
    assert_eq!(b["size"], json!({"width": 300, "height": 250}));
    assert!(b.get("display").is_none(), "{b}");
}

#[tokio::test]
async fn a_duplicated_campaign_lands_in_another_advertiser_with_its_flights_moved() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let other = by_name(&ws, Kind::Advertiser, "Bluebird Coffee");
    let source = ws.working_of(&campaign).unwrap().unwrap();
    let preview = ws
        .duplicate(
            std::slice::from_ref(&campaign),
            &DuplicateOptions {
                into: Some(other.clone()),
                shift_days: Some(30),
            },
            true,
        )
        .unwrap();
    assert_eq!(preview.creates, 1, "{preview:?}");
    let copy = preview.rows[0].target.clone().unwrap();
    let entity = ws.get(&copy).unwrap().unwrap();
    assert_eq!(entity.parent, Some(other));
    let v = entity.working;
    assert_eq!(v["name"], json!("Acme Spring Launch (copy)"));
    assert!(v.get("id").is_none());
    let day = 86_400_000_i64;
    for (a, b) in v["flights"]
        .as_array()
        .unwrap()
        .iter()
        .zip(source["flights"].as_array().unwrap())
    {
        assert!(a.get("id").is_none());
        assert_eq!(
            a["startDate"].as_i64().unwrap(),
            b["startDate"].as_i64().unwrap() + 30 * day
        );
        assert_eq!(a["maxBudget"], b["maxBudget"]);
    }
}

#[tokio::test]
async fn the_money_review_sums_budget_changes_and_warns_without_blocking() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    ws.bulk_edit(
        std::slice::from_ref(&campaign),
        &[
            FieldEdit {
                field: "maxBudget".into(),
                change: Change::Add(5_000.0),
            },
            FieldEdit {
                field: "flights[0].maxBudget".into(),
                change: Change::Add(1_000.0),
            },
        ],
        true,
    )
    .unwrap();
    let spring_orders: Vec<EntityRef> = ws
        .targets(&Scope::Kind(Kind::AdOrder))
        .unwrap()
        .into_iter()
        .filter(|t| ws.get(t).unwrap().unwrap().parent.as_ref() == Some(&campaign))
        .collect();
    ws.bulk_edit(&spring_orders, &raise_bid(10.0), true)
        .unwrap();
    let now = 0;
    let summary = ws.money_summary(now).unwrap();
    let row = summary
        .campaigns
        .iter()
        .find(|r| r.target.as_ref() == Some(&campaign))
        .unwrap();
    assert_eq!(row.before.lifetime, 25_000.0);
    assert_eq!(row.after.lifetime, 30_000.0);
    assert_eq!(row.before.flights, 25_000.0);
    assert_eq!(row.after.flights, 26_000.0);
    assert_eq!(
        summary.total.after.lifetime - summary.total.before.lifetime,
        5_000.0
    );
    assert_eq!(summary.bids.len(), spring_orders.len());
    assert!(
        summary
            .bids
            .iter()
            .all(|b| b.before == Some(10.0) && b.after == Some(11.0))
    );
    assert_eq!(summary.advertisers.len(), 1);
    let w = summary
        .warnings
        .iter()
        .find(|w| w.target == campaign)
        .expect("roll-up warning");
    assert_eq!(w.field, "flights");
    assert!(
        w.message.contains("26000.00") && w.message.contains("30000.00"),
        "{}",
        w.message
    );
}

/// The bid of an ad order is the interface's snake-case `max_bid`: raising it on three
/// downloaded orders lists each of them in the money review's bid changes, from what the
/// service holds to the raised bid.
#[tokio::test]
async fn raising_max_bid_of_three_orders_shows_each_in_the_money_review() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let three = orders(&ws, 3);
    assert_eq!(three.len(), 3);
    assert_eq!(ws.money_summary(0).unwrap().bids, []);
    let held: Vec<f64> = three
        .iter()
        .map(|t| {
            bid(&ws, t)
                .as_f64()
                .expect("a downloaded order has a max_bid")
        })
        .collect();

    ws.bulk_edit(&three, &raise_bid(10.0), true).unwrap();
    let summary = ws.money_summary(0).unwrap();
    assert_eq!(summary.bids.len(), 3, "{:?}", summary.bids);
    for (target, before) in three.iter().zip(held) {
        let change = summary
            .bids
            .iter()
            .find(|b| &b.target == target)
            .unwrap_or_else(|| panic!("no bid change for {target:?}: {:?}", summary.bids));
        assert_eq!(change.label, name_of(&ws, target));
        assert_eq!(change.before, Some(before));
        assert_eq!(change.after, Some(((before * 1.1) * 100.0).round() / 100.0));
    }
}

#[tokio::test]
async fn a_copy_goes_only_where_its_kind_can_hang() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let order = orders(&ws, 1);
    let advertiser = by_name(&ws, Kind::Advertiser, "Bluebird Coffee");
    let before = snapshot(&file(&dir));
    let preview = ws
        .duplicate(
            &order,
            &DuplicateOptions {
                into: Some(advertiser),
                shift_days: None,
            },
            true,
        )
        .unwrap();
    assert_eq!(preview.refused, 1, "{preview:?}");
    assert_eq!(preview.rows[0].errors[0].field, "into");
    assert!(
        preview.rows[0].errors[0]
            .message
            .contains("goes into a campaign"),
        "{:?}",
        preview.rows[0].errors
    );
    assert_eq!(snapshot(&file(&dir)), before);
}

/// `[` × `levels` then `]` × `levels`: JSON nested `levels` deep.
fn nested_text(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

/// What a workspace left unreadable would fail at: every kind's table, the export, the
/// pending changes, and a push. Renames one ad order and posts it; the service holds the
/// new name.
async fn still_reads_and_posts(server: &Server, ws: &mut Workspace) {
    for kind in [
        Kind::Advertiser,
        Kind::Campaign,
        Kind::AdOrder,
        Kind::Creative,
    ] {
        ws.list(kind).expect("the kind's table reads");
    }
    let all = ws.targets(&Scope::Account).unwrap();
    ws.export_sheet(&all, Delimiter::Comma, true)
        .expect("the account exports");
    let one = orders(ws, 1);
    let renamed = ws.bulk_edit(&one, &suffix(" (posted)"), true).unwrap();
    assert_eq!(renamed.updates, 1, "{renamed:?}");
    let want = name_of(ws, &one[0]);
    let client = server.demo().await;
    let report = sync::push(ws, &client, &PushOptions::default(), |_| {})
        .await
        .expect("push");
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(report.applied.len(), 1, "{report:?}");
    assert!(ws.pending().unwrap().is_empty());
    let held = client.all_ad_orders().await.unwrap().entity;
    let held = held
        .iter()
        .find(|o| o.id.map(|i| i.to_string()) == Some(one[0].key.to_string()))
        .expect("the order on the service");
    assert_eq!(held.name.as_deref(), Some(want.as_str()));
}

#[tokio::test]
async fn a_sheet_nested_deeper_than_reads_back_is_refused_at_its_cell_and_posting_goes_on() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let id = campaign.key.to_string();
    let clean = snapshot(&file(&dir));

    // Columns `a`, `a.a`, … down to 130 dotted parts, each holding `{}`, would build
    // objects 131 levels deep: each part past 32 is refused at its column.
    let chain: Vec<String> = (1..=130).map(|n| vec!["a"; n].join(".")).collect();
    let csv = format!(
        "id,name,{}\n{id},Renamed,{}\n",
        chain.join(","),
        vec!["{}"; 130].join(",")
    );
    let options = sheet(Some(Kind::Campaign), Delimiter::Comma, None);
    let applied = ws.import_sheet(&csv, &options, "Import", true).unwrap();
    assert_eq!((applied.refused, applied.step), (1, None), "{applied:?}");
    let row = &applied.rows[0];
    assert_eq!(row.line, Some(1));
    let fields: Vec<&str> = row.errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, chain[32..], "one error per column past 32 parts");
    assert!(
        row.errors[0].message.contains("33 levels deep"),
        "{}",
        row.errors[0].message
    );
    assert_eq!(snapshot(&file(&dir)), clean, "nothing was saved");

    // A cell of JSON 127 levels deep, inside its entity, is one level past what reads
    // back: on an entity the workspace holds, and on a pasted new row.
    let csv = format!("id,extraField\n{id},{}\n", nested_text(127));
    let applied = ws.import_sheet(&csv, &options, "Import", true).unwrap();
    assert_eq!((applied.refused, applied.step), (1, None), "{applied:?}");
    assert_eq!(applied.rows[0].line, Some(1));
    assert_eq!(applied.rows[0].errors[0].field, "extraField");
    assert!(
        applied.rows[0].errors[0]
            .message
            .contains("127 levels deep"),
        "{:?}",
        applied.rows[0].errors
    );
    let c = ws.working_of(&campaign).unwrap().unwrap();
    let tsv = format!(
        "name\toptimizationGoal\tstartDate\tendDate\tlifetimeBudget\tmaxBid\textraField\n\
         Pasted\tCPM\t{}\t{}\t100\t2.5\t{}\n",
        c["flights"][1]["startDate"],
        c["flights"][1]["endDate"],
        nested_text(127)
    );
    let paste = sheet(Some(Kind::AdOrder), Delimiter::Tab, Some(campaign.clone()));
    let pasted = ws.import_sheet(&tsv, &paste, "Paste", true).unwrap();
    assert_eq!((pasted.refused, pasted.step), (1, None), "{pasted:?}");
    assert_eq!(pasted.rows[0].line, Some(1));
    assert_eq!(pasted.rows[0].errors[0].field, "extraField");
    assert_eq!(snapshot(&file(&dir)), clean, "nothing was saved");

    // Within the limit, nesting is kept as typed.
    let csv = format!("id,extraField\n{id},{}\n", nested_text(32));
    let kept = ws.import_sheet(&csv, &options, "Import", true).unwrap();
    assert_eq!(kept.updates, 1, "{kept:?}");
    ws.undo().unwrap().expect("the import to undo");

    still_reads_and_posts(&server, &mut ws).await;
}

#[tokio::test]
async fn a_bulk_edit_nested_deeper_than_reads_back_is_refused_at_its_field_and_posting_goes_on() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let two = orders(&ws, 2);
    let clean = snapshot(&file(&dir));
    // `a`, `a.a`, … down to 130 parts, each set to `{}`; then one field set to JSON
    // 127 levels deep. Each would leave the orders deeper than reads back.
    let chain: Vec<FieldEdit> = (1..=130)
        .map(|n| FieldEdit {
            field: vec!["a"; n].join("."),
            change: Change::Set(json!({})),
        })
        .collect();
    let deep_value: Value = serde_json::from_str(&nested_text(127)).unwrap();
    let deep = vec![FieldEdit {
        field: "extraField".into(),
        change: Change::Set(deep_value),
    }];
    for edits in [chain, deep] {
        let refused: Vec<String> = edits
            .iter()
            .map(|e| e.field.clone())
            .filter(|f| f == "extraField" || f.split('.').count() > 32)
            .collect();
        let applied = ws.bulk_edit(&two, &edits, true).unwrap();
        assert_eq!((applied.refused, applied.step), (2, None), "{applied:?}");
        for row in &applied.rows {
            let fields: Vec<String> = row.errors.iter().map(|e| e.field.clone()).collect();
            assert_eq!(fields, refused);
        }
        assert_eq!(snapshot(&file(&dir)), clean, "nothing was saved");
    }
    still_reads_and_posts(&server, &mut ws).await;
}

/// The workspace's own guard, behind every edit path: a form save of a value nested
/// deeper than reads back is refused with nothing saved.
#[tokio::test]
async fn the_workspace_refuses_to_store_what_it_could_not_read_back() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let clean = snapshot(&file(&dir));
    let mut deep = json!(1);
    for _ in 0..127 {
        deep = json!([deep]);
    }
    let mut c: flightdeck_model::Campaign =
        serde_json::from_value(ws.working_of(&campaign).unwrap().unwrap()).unwrap();
    c.extra.insert("extraField".into(), deep.clone());
    match ws.update_campaign(&campaign, c) {
        Err(Error::TooDeep { limit }) => assert_eq!(limit, 127),
        other => panic!("expected TooDeep, got {other:?}"),
    }
    // A bulk run given the value straight, past the sheet's and the edit's checks.
    let mut value = ws.working_of(&campaign).unwrap().unwrap();
    value["extraField"] = deep;
    let plan = vec![flightdeck_offline::workspace::Planned::Update {
        target: campaign.clone(),
        value,
        line: None,
        from: None,
    }];
    assert!(matches!(
        ws.run(plan, "Deep", true),
        Err(Error::TooDeep { .. })
    ));
    assert_eq!(snapshot(&file(&dir)), clean, "nothing was saved");
    still_reads_and_posts(&server, &mut ws).await;
}

/// Names a spreadsheet would run as formulas, and their neighbours: each is exported as
/// text and imported back as it was.
const FORMULA_NAMES: [&str; 9] = [
    "=HYPERLINK(\"http://x\",\"y\")",
    "+1",
    "-x",
    "@SUM(A1)",
    "\tx",
    "\rx",
    "'quoted",
    "''twice",
    "[]",
];

/// A workspace of draft ad orders named [`FORMULA_NAMES`], one with a negative daily
/// budget, under one campaign.
fn formula_orders(path: &std::path::Path) -> (Workspace, EntityRef, Vec<EntityRef>) {
    let mut ws = open(path);
    let a = ws
        .create_advertiser(common::typed(json!({
            "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
        })))
        .unwrap();
    let campaign = ws
        .create_campaign(
            &a,
            common::typed(json!({
                "name": "Spring", "domain": "x.example", "maxBudget": 1000.0,
                "startDate": 1_900_000_000_000_i64, "endDate": 1_901_000_000_000_i64,
                "iabCategory": ["IAB3"]
            })),
        )
        .unwrap();
    let mut orders = Vec::new();
    for (i, name) in FORMULA_NAMES.iter().enumerate() {
        let mut o = json!({
            "name": name, "optimizationGoal": "CPM", "startDate": 1_900_000_000_000_i64,
            "endDate": 1_901_000_000_000_i64, "lifetimeBudget": 100.0, "max_bid": 2.5
        });
        if i == 0 {
            o["dailyBudget"] = json!(-5.5);
        }
        orders.push(ws.create_ad_order(&campaign, common::typed(o)).unwrap());
    }
    (ws, campaign, orders)
}

/// What a spreadsheet does with a cell: runs it as a formula when it starts with one of
/// OWASP's formula characters, unless it is a plain number.
fn runs_in_a_spreadsheet(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err()
}

#[test]
fn an_export_shows_formulas_as_text_and_imports_them_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, campaign, orders) = formula_orders(&file(&dir));
    let before = snapshot(&file(&dir));
    for delimiter in [Delimiter::Comma, Delimiter::Tab] {
        let text = ws.export_sheet(&orders, delimiter, false).unwrap();
        let byte = if delimiter == Delimiter::Comma {
            b','
        } else {
            b'\t'
        };
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(byte)
            .from_reader(text.as_bytes());
        let header = reader.headers().unwrap().clone();
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (name_at, daily_at) = (at("name"), at("dailyBudget"));
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        // Each name is text behind one `'`, which spreadsheets show and do not run.
        for (row, name) in rows.iter().zip(FORMULA_NAMES) {
            assert_eq!(&row[name_at], format!("'{name}"), "{text}");
        }
        // A negative number stays a number.
        assert_eq!(&rows[0][daily_at], "-5.5");
        for cell in rows.iter().flat_map(|r| r.iter()) {
            assert!(!runs_in_a_spreadsheet(cell), "{cell:?} runs in {text}");
        }

        // Imported back: nothing changes.
        let back = ws
            .import_sheet(
                &text,
                &sheet(Some(Kind::AdOrder), delimiter, None),
                "Import",
                true,
            )
            .unwrap();
        assert_eq!(
            (back.creates, back.updates, back.refused, back.unchanged),
            (0, 0, 0, 9),
            "{back:?}"
        );
        assert_eq!(
            snapshot(&file(&dir)),
            before,
            "a round trip changes nothing"
        );
    }

    // Pasted as new rows: the drafts carry the names and the negative budget as they were.
    let text = ws.export_sheet(&orders, Delimiter::Tab, false).unwrap();
    let pasted: String = text
        .lines()
        .map(|l| l.split_once('\t').map_or("", |(_, rest)| rest))
        .collect::<Vec<_>>()
        .join("\n");
    let preview = ws
        .import_sheet(
            &pasted,
            &sheet(Some(Kind::AdOrder), Delimiter::Tab, Some(campaign)),
            "Paste",
            true,
        )
        .unwrap();
    assert_eq!(preview.creates, 9, "{preview:?}");
    for name in FORMULA_NAMES {
        let found = ws
            .find_where(Kind::AdOrder, &[("name".into(), json!(name))])
            .unwrap();
        assert_eq!(found.len(), 2, "{name:?}: the original and its copy");
    }
    let copy = ws
        .find_where(Kind::AdOrder, &[("name".into(), json!(FORMULA_NAMES[0]))])
        .unwrap()
        .into_iter()
        .find(|t| !orders.contains(t))
        .unwrap();
    assert_eq!(
        ws.working_of(&copy).unwrap().unwrap()["dailyBudget"],
        json!(-5.5)
    );
}

/// A client id is text even when it is all digits, in the ad order's output spelling
/// `io_number` as in the input one: a pasted row keeps "12345" as text.
#[test]
fn a_pasted_io_number_of_digits_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, campaign, _) = formula_orders(&file(&dir));
    let tsv = "name\toptimizationGoal\tstartDate\tendDate\tlifetimeBudget\tio_number\n\
               Pasted\tCPM\t1900000000000\t1901000000000\t100\t12345\n";
    let preview = ws
        .import_sheet(
            tsv,
            &sheet(Some(Kind::AdOrder), Delimiter::Tab, Some(campaign)),
            "Paste",
            true,
        )
        .unwrap();
    assert_eq!(preview.creates, 1, "{preview:?}");
    let pasted = ws
        .find_where(Kind::AdOrder, &[("name".into(), json!("Pasted"))])
        .unwrap();
    assert_eq!(
        ws.working_of(&pasted[0]).unwrap().unwrap()["io_number"],
        json!("12345")
    );
}

#[tokio::test]
async fn a_preview_keeps_its_rows_for_pages_until_another_replaces_them() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let six = orders(&ws, 6);
    assert_eq!(six.len(), 6);
    let mut preview = ws.bulk_edit(&six, &suffix(" (Q3)"), false).unwrap();
    let labels: Vec<String> = preview.rows.iter().map(|r| r.label.clone()).collect();
    assert_eq!((preview.row_count, labels.len()), (6, 6));

    ws.keep_rows(&mut preview, 2).unwrap();
    assert_eq!(preview.rows.len(), 2, "the answer carries the first page");
    assert_eq!(preview.row_count, 6);
    let id = preview.rows_id.expect("the rows are kept");
    let (page, total) = ws.preview_rows(id, 2, 3).unwrap();
    assert_eq!(total, 6);
    let page: Vec<String> = page.into_iter().map(|r| r.label).collect();
    assert_eq!(page, labels[2..5]);
    let (tail, _) = ws.preview_rows(id, 5, 10).unwrap();
    assert_eq!(
        tail.len(),
        1,
        "a window past the end is cut at the last row"
    );

    // The apply's rows replace the preview's: a page of the old id is refused.
    let mut applied = ws.bulk_edit(&six, &suffix(" (Q3)"), true).unwrap();
    assert_eq!(applied.updates, 6);
    ws.keep_rows(&mut applied, 2).unwrap();
    assert!(matches!(ws.preview_rows(id, 0, 2), Err(Error::NotFound(_))));
    assert_eq!(
        ws.preview_rows(applied.rows_id.unwrap(), 0, 10).unwrap().1,
        6
    );
}

/// A kept page reads back exactly what the preview said: a side that was JSON `null`
/// stays a `null` (not "absent"), an absent side stays absent, and a refused row keeps
/// its errors, line and draft key.
#[test]
fn kept_rows_read_back_exactly_as_previewed() {
    use flightdeck_offline::change::Key;
    use flightdeck_offline::diff::FieldDiff;
    use flightdeck_offline::workspace::{Preview, RowPreview};
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let mut cleared = FieldDiff::new("frequencyCap", Some(json!({"limit": 3})), Some(Value::Null));
    cleared.after_text = Some("none".into());
    let rows = vec![
        RowPreview {
            target: Some(EntityRef::new(Kind::AdOrder, Key::Id(41))),
            kind: Kind::AdOrder,
            label: "Spring \"launch\" 🚀".into(),
            line: None,
            outcome: RowOutcome::Update,
            diffs: vec![
                FieldDiff::new("ioNumber", Some(Value::Null), Some(json!("IO-7"))),
                FieldDiff::new("maxBid", Some(json!(2.5)), None),
                cleared,
            ],
            errors: vec![],
        },
        RowPreview {
            target: Some(EntityRef::new(Kind::Campaign, Key::Local("ab12".into()))),
            kind: Kind::Campaign,
            label: String::new(),
            line: Some(7),
            outcome: RowOutcome::Refused,
            diffs: vec![FieldDiff::new(
                "budget",
                None,
                Some(json!([1, -2.75e-3, "x"])),
            )],
            errors: vec![flightdeck_model::FieldError::new(
                "budget",
                "INVALID",
                "Budget must be a number",
            )],
        },
        RowPreview {
            target: None,
            kind: Kind::Creative,
            label: "New".into(),
            line: Some(1),
            outcome: RowOutcome::Create,
            diffs: vec![],
            errors: vec![],
        },
    ];
    let mut preview = Preview {
        rows: rows.clone(),
        row_count: 3,
        ..Preview::default()
    };
    ws.keep_rows(&mut preview, 1).unwrap();
    assert_eq!(preview.rows, rows[..1]);
    let id = preview.rows_id.expect("kept");
    assert_eq!(ws.preview_rows(id, 0, 10).unwrap(), (rows.clone(), 3));
    assert_eq!(ws.preview_rows(id, 1, 1).unwrap(), (rows[1..2].to_vec(), 3));
    assert_eq!(ws.preview_rows(id, 9, 1).unwrap(), (vec![], 3));
}

/// Launching ad orders lists each with its lifetime budget, and the total, in the money
/// review; pausing or archiving launches nothing, and moves no budget row.
#[tokio::test]
async fn the_money_review_flags_ad_orders_going_live_with_their_budgets() {
    use flightdeck_model::AdOrderStatus;
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled(&server, &dir).await;
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let native = by_name(&ws, Kind::AdOrder, "Acme Always-On - Native");
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");

    ws.set_status(&[video], AdOrderStatus::Paused, true)
        .unwrap();
    let paused = ws.money_summary(0).unwrap();
    assert!(paused.going_live.is_empty(), "{:?}", paused.going_live);
    assert_eq!(paused.going_live_budget, 0.0);
    assert!(paused.campaigns.is_empty(), "a status moves no budget");

    ws.set_status(&[wave.clone(), native.clone()], AdOrderStatus::Active, true)
        .unwrap();
    let summary = ws.money_summary(0).unwrap();
    let live: Vec<(&EntityRef, &str, f64)> = summary
        .going_live
        .iter()
        .map(|g| (&g.target, g.campaign.as_str(), g.lifetime_budget))
        .collect();
    assert_eq!(
        live,
        [
            (&wave, "Acme Spring Launch", 10_000.0),
            (&native, "Acme Always-On", 10_000.0)
        ]
    );
    assert_eq!(summary.going_live[0].label, "Acme Spring - Second Wave");
    assert_eq!(summary.going_live_budget, 20_000.0);
}
