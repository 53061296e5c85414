//! Ad-order status as a pending change: queued, coalesced, refused up front, one undo
//! step for many, posted after the ad order's create or save, exactly once under a lost
//! answer, kept across a download, and reverted once posted to the statuses before. Against a real workspace file and the in-process
//! sandbox over HTTP; the sandbox's admin route says what the service holds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{DAY, NOW, Sent, Server, bodies, by_name, file, open, typed};
use flightdeck_client::Client;
use flightdeck_client::retry::RetryPolicy;
use flightdeck_model::{AdOrder, AdOrderStatus};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Kind, Op};
use flightdeck_offline::sync::{self, PushOptions, PushReport};
use flightdeck_offline::workspace::{PullOptions, PullScope, RowOutcome, Workspace};
use flightdeck_sandbox::faults::FaultSettings;
use flightdeck_sandbox::{Config, Sandbox, Seed};
use serde_json::{Value, json};

const ADMIN: &str = "status-admin-token";

/// The demo sandbox with its admin routes open to [`ADMIN`].
async fn start() -> Server {
    let sandbox = Sandbox::open(&Config {
        seed: Seed::Demo,
        clock_start: Some(NOW),
        admin_token: Some(ADMIN.into()),
        ..Config::default()
    })
    .unwrap();
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    Server { sandbox, running }
}

/// The status the service holds for ad order `id`, over its admin route.
async fn service_status(server: &Server, id: i64) -> i64 {
    let url = format!(
        "{}/_sandbox/adorders/{id}/status",
        server.running.base_url()
    );
    let body: Value = reqwest::Client::new()
        .get(url)
        .header("x-sandbox-admin-token", ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["status"].as_i64().unwrap()
}

async fn pulled(ws: &mut Workspace, client: &Client) {
    let options = PullOptions {
        audiences: false,
        ..PullOptions::default()
    };
    ws.pull_with(client, PullScope::All, options, |_| {})
        .await
        .unwrap();
}

fn quick(client: Client) -> Client {
    client.with_retry_policy(RetryPolicy {
        max_attempts: 8,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_millis(20),
    })
}

async fn push(ws: &mut Workspace, client: &Client) -> PushReport {
    let options = PushOptions {
        concurrency: 2,
        retry: RetryPolicy {
            max_attempts: 6,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
        },
        ..PushOptions::default()
    };
    sync::push(ws, client, &options, |_| {}).await.unwrap()
}

fn id_of(target: &EntityRef) -> i64 {
    match target.key {
        flightdeck_offline::change::Key::Id(id) => id,
        ref other => panic!("not posted: {other:?}"),
    }
}

fn status_changes(ws: &Workspace) -> Vec<(EntityRef, Value)> {
    ws.pending()
        .unwrap()
        .into_iter()
        .filter(|c| c.op == Op::SetStatus)
        .map(|c| (c.target, c.payload))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statuses_queue_coalesce_and_undo_as_one_step() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let client = quick(server.demo().await);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let names = [
        "Acme Spring - Display Prospecting",
        "Acme Spring - Video",
        "Acme Spring - Second Wave",
    ];
    let orders: Vec<EntityRef> = names
        .iter()
        .map(|n| by_name(&ws, Kind::AdOrder, n))
        .collect();
    // Unknown after a download: the listings carry no status.
    assert_eq!(ws.ad_order_status(&orders[0]).unwrap().shown(), None);

    let preview = ws
        .set_status(&orders, AdOrderStatus::Paused, false)
        .unwrap();
    assert_eq!(preview.updates, 3, "{preview:#?}");
    assert!(status_changes(&ws).is_empty(), "a preview keeps nothing");

    let done = ws.set_status(&orders, AdOrderStatus::Paused, true).unwrap();
    assert_eq!(done.updates, 3);
    assert_eq!(status_changes(&ws).len(), 3);
    assert_eq!(ws.history(10).unwrap()[0].label, "Pause 3 ad orders");
    let shown = ws.ad_order_status(&orders[1]).unwrap();
    assert_eq!(shown.pending, Some(AdOrderStatus::Paused));
    assert_eq!(
        ws.list_as::<Value>(Kind::AdOrder, None)
            .unwrap()
            .iter()
            .filter(|l| l.pending)
            .count(),
        3
    );

    // A second change before posting replaces the first.
    ws.set_status(&orders[..1], AdOrderStatus::Active, true)
        .unwrap();
    let changes = status_changes(&ws);
    assert_eq!(changes.len(), 3, "coalesced: {changes:#?}");
    let first = changes.iter().find(|(t, _)| *t == orders[0]).unwrap();
    assert_eq!(first.1["status"], 1);
    // The status it already shows: nothing to do.
    let again = ws
        .set_status(&orders[..1], AdOrderStatus::Active, true)
        .unwrap();
    assert_eq!((again.updates, again.unchanged), (0, 1));

    // Each call is one undo step.
    ws.undo().unwrap();
    assert_eq!(
        ws.ad_order_status(&orders[0]).unwrap().pending,
        Some(AdOrderStatus::Paused)
    );
    ws.undo().unwrap();
    assert!(status_changes(&ws).is_empty());
    assert_eq!(ws.pending_count().unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_moves_say_why_and_posted_statuses_are_known_after_a_download() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let client = quick(server.demo().await);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");

    // Completed is reached, never set, whatever the status is.
    let refused = ws
        .set_status(std::slice::from_ref(&video), AdOrderStatus::Completed, true)
        .unwrap();
    assert_eq!(refused.refused, 1);
    assert_eq!(refused.rows[0].label, "Acme Spring - Video");
    assert!(
        refused.rows[0].errors[0]
            .message
            .contains("cannot be set to 4 (Completed)"),
        "{:?}",
        refused.rows[0].errors
    );
    // Not an ad order: refused, naming the kind.
    let campaign = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let other = ws
        .set_status(&[campaign], AdOrderStatus::Paused, true)
        .unwrap();
    assert_eq!(other.rows[0].outcome, RowOutcome::Refused);
    assert!(other.rows[0].errors[0].message.contains("only ad orders"));

    ws.set_status(std::slice::from_ref(&wave), AdOrderStatus::Archived, true)
        .unwrap();
    let report = push(&mut ws, &client).await;
    assert_eq!(report.applied.len(), 1, "{report:#?}");
    assert_eq!(service_status(&server, id_of(&wave)).await, 2);
    assert_eq!(
        ws.ad_order_status(&wave).unwrap().known,
        Some(AdOrderStatus::Archived)
    );
    // Out of Archived: the model's refusal, before anything is queued.
    let out = ws
        .set_status(std::slice::from_ref(&wave), AdOrderStatus::Active, true)
        .unwrap();
    assert_eq!(out.refused, 1);
    assert!(
        out.rows[0].errors[0]
            .message
            .contains("an archived ad order cannot change status")
    );
    assert_eq!(ws.pending_count().unwrap(), 0);
    // Undo is refused for what was posted.
    assert!(ws.undo().is_err());

    // A download does not wipe what is known.
    pulled(&mut ws, &client).await;
    assert_eq!(
        ws.ad_order_status(&wave).unwrap().known,
        Some(AdOrderStatus::Archived)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_posts_after_the_create_and_the_save_of_its_ad_order() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let client = quick(server.demo().await);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let draft: AdOrder = typed(json!({
        "name": "Status draft", "optimizationGoal": "CPM", "startDate": NOW + DAY,
        "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0
    }));
    let draft = ws.create_ad_order(&spring, draft).unwrap();
    ws.set_status(std::slice::from_ref(&draft), AdOrderStatus::Active, true)
        .unwrap();

    // A save queued after the status still goes first.
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    ws.set_status(std::slice::from_ref(&wave), AdOrderStatus::Paused, true)
        .unwrap();
    let mut edited: AdOrder = typed(ws.get(&wave).unwrap().unwrap().working);
    edited.name = Some("Acme Spring - Second Wave (renamed)".into());
    ws.update_ad_order(&wave, edited).unwrap();

    let pending = ws.pending().unwrap();
    let seq = |target: &EntityRef, op: Op| {
        pending
            .iter()
            .find(|c| &c.target == target && c.op == op)
            .unwrap()
            .seq
    };
    let plan = flightdeck_offline::plan::plan(&pending);
    let after = |s: i64| {
        plan.steps
            .iter()
            .find(|st| st.seq == s)
            .unwrap()
            .after
            .clone()
    };
    assert_eq!(
        after(seq(&draft, Op::SetStatus)),
        vec![seq(&draft, Op::Create)]
    );
    assert_eq!(
        after(seq(&wave, Op::SetStatus)),
        vec![seq(&wave, Op::Update)]
    );
    assert!(after(seq(&wave, Op::Update)).is_empty(), "{plan:#?}");

    let (recording, log) = server.recording().await;
    let recording = quick(recording);
    let report = push(&mut ws, &recording).await;
    assert_eq!(report.applied.len(), 4, "{report:#?}");
    let landed = ws.resolve_remote(&draft).unwrap().unwrap();
    let landed = EntityRef::new(Kind::AdOrder, landed);
    assert_eq!(service_status(&server, id_of(&landed)).await, 1);
    assert_eq!(service_status(&server, id_of(&wave)).await, 3);
    assert_eq!(
        ws.ad_order_status(&landed).unwrap().known,
        Some(AdOrderStatus::Active)
    );
    let order = requests(&log);
    let at = |r: &str| order.iter().position(|x| x == r).unwrap();
    assert!(
        at("POST /v1/adorder/save") < at("POST /v1/adorder/updateStatus"),
        "{order:?}"
    );
    // Still named as it was saved: the status answer does not replace the ad order.
    assert_eq!(
        ws.get(&wave).unwrap().unwrap().working["name"],
        "Acme Spring - Second Wave (renamed)"
    );
}

fn requests(log: &Arc<std::sync::Mutex<Vec<Sent>>>) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .map(|s| s.request.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_status_answer_is_sent_again_and_applies_once() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let (recording, log) = server.recording().await;
    let client = quick(recording);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let display = by_name(&ws, Kind::AdOrder, "Acme Spring - Display Prospecting");
    assert_eq!(service_status(&server, id_of(&display)).await, 1);
    ws.set_status(std::slice::from_ref(&display), AdOrderStatus::Paused, true)
        .unwrap();
    let seq = status_changes_seq(&ws);

    server
        .sandbox
        .state()
        .faults
        .set(FaultSettings {
            drop_after_commit: 1,
            ..FaultSettings::default()
        })
        .unwrap();
    let report = push(&mut ws, &client).await;
    server.sandbox.state().faults.reset();
    assert_eq!(report.applied.len(), 1, "{report:#?}");
    assert!(report.needs_review.is_empty());
    assert_eq!(
        ws.change(seq).unwrap().unwrap().status,
        ChangeStatus::Applied
    );
    let sent = bodies(&log, "POST /v1/adorder/updateStatus");
    assert_eq!(
        sent.len(),
        2,
        "sent again after the lost answer, no look-up"
    );
    assert!(
        sent.iter()
            .all(|b| *b == json!({"id": id_of(&display), "status": 3}))
    );
    assert_eq!(service_status(&server, id_of(&display)).await, 3);
    assert_eq!(
        ws.ad_order_status(&display).unwrap().known,
        Some(AdOrderStatus::Paused)
    );

    // Found `Sending` at the start of a push (the process died mid-flight): sent again.
    ws.set_status(std::slice::from_ref(&display), AdOrderStatus::Active, true)
        .unwrap();
    let seq = status_changes_seq(&ws);
    // Pending changes show it in words, from what the service holds.
    let diff = ws.pending_diff(seq).unwrap();
    assert_eq!(
        (
            diff[0].path.as_str(),
            diff[0].before.clone(),
            diff[0].after.clone()
        ),
        ("status", Some(json!("paused")), Some(json!("active")))
    );
    ws.mark_sending(seq, None).unwrap();
    let report = push(&mut ws, &client).await;
    assert_eq!(report.applied.len(), 1, "{report:#?}");
    assert_eq!(service_status(&server, id_of(&display)).await, 1);
}

fn status_changes_seq(ws: &Workspace) -> i64 {
    let pending = ws.pending().unwrap();
    let changes: Vec<_> = pending.iter().filter(|c| c.op == Op::SetStatus).collect();
    assert_eq!(changes.len(), 1);
    changes[0].seq
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sheets_carry_the_status_column_both_ways() {
    use flightdeck_offline::bulk::sheet::{Delimiter, ImportOptions};
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let client = quick(server.demo().await);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    ws.set_status(std::slice::from_ref(&video), AdOrderStatus::Paused, true)
        .unwrap();
    let options = ImportOptions {
        delimiter: Delimiter::Comma,
        kind: Some(Kind::AdOrder),
        parent: None,
    };

    // Export: the status shown (pending here), blank when unknown.
    let sheet = ws
        .export_sheet(&[wave.clone(), video.clone()], Delimiter::Comma, false)
        .unwrap();
    let mut reader = csv::Reader::from_reader(sheet.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let at = header
        .iter()
        .position(|h| h == "status")
        .expect("a status column");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][at], "", "unknown is blank");
    assert_eq!(&rows[1][at], "paused");

    // The same sheet back changes nothing.
    let back = ws.import_sheet(&sheet, &options, "Import", false).unwrap();
    assert_eq!((back.updates, back.refused), (0, 0), "{back:#?}");

    // A word is a status change in the same step as the row's other edits; an unknown
    // word is refused at its cell.
    let edited = sheet
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let mut cells: Vec<String> = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(l.as_bytes())
                .records()
                .next()
                .unwrap()
                .unwrap()
                .iter()
                .map(str::to_owned)
                .collect();
            match i {
                1 => {
                    cells[at] = "active".into();
                    let name = header.iter().position(|h| h == "name").unwrap();
                    cells[name] = "Second Wave, live".into();
                }
                2 => cells[at] = "live".into(),
                _ => {}
            }
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(&cells).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        })
        .collect::<String>();
    let done = ws
        .import_sheet(&edited, &options, "Import edited", true)
        .unwrap();
    assert_eq!(done.refused, 1, "{done:#?}");
    let refused = done
        .rows
        .iter()
        .find(|r| r.outcome == RowOutcome::Refused)
        .unwrap();
    assert_eq!(refused.line, Some(2));
    assert_eq!(refused.errors[0].field, "status");
    assert!(refused.errors[0].message.contains("“live” is not a status"));
    assert_eq!(
        ws.ad_order_status(&wave).unwrap().pending,
        Some(AdOrderStatus::Active)
    );
    assert_eq!(
        ws.get(&wave).unwrap().unwrap().working["name"],
        "Second Wave, live"
    );
    // One step: undo takes the rename and the status back together.
    assert_eq!(ws.history(1).unwrap()[0].label, "Import edited");
    ws.undo().unwrap();
    assert_eq!(ws.ad_order_status(&wave).unwrap().pending, None);
    assert_eq!(
        ws.get(&wave).unwrap().unwrap().working["name"],
        "Acme Spring - Second Wave"
    );

    // A new row with a status: the status goes after its create.
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let new_rows = format!(
        "name,optimizationGoal,startDate,endDate,lifetimeBudget,campaignId,status\n\
         Sheet draft,CPM,{},{},100,{},active\n",
        NOW + DAY,
        NOW + 30 * DAY,
        id_of(&spring)
    );
    let made = ws
        .import_sheet(&new_rows, &options, "Import new", true)
        .unwrap();
    assert_eq!(made.creates, 1, "{made:#?}");
    let draft = made.rows[0].target.clone().unwrap();
    assert_eq!(
        ws.ad_order_status(&draft).unwrap().pending,
        Some(AdOrderStatus::Active)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_status_step_reverts_to_the_statuses_before_it() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let (recording, log) = server.recording().await;
    let client = quick(recording);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let both = [video.clone(), wave.clone()];
    // Known Active through a posted launch (the Second Wave was Inactive).
    ws.set_status(&both, AdOrderStatus::Active, true).unwrap();
    assert_eq!(push(&mut ws, &client).await.applied.len(), 2);
    assert_eq!(service_status(&server, id_of(&wave)).await, 1);

    let paused = ws.set_status(&both, AdOrderStatus::Paused, true).unwrap();
    let step = paused.step.unwrap();
    assert_eq!(push(&mut ws, &client).await.applied.len(), 2);
    for order in &both {
        assert_eq!(service_status(&server, id_of(order)).await, 3);
    }
    let undo = ws.undo().unwrap_err();
    assert!(
        matches!(undo, flightdeck_offline::Error::Posted { .. }),
        "{undo}"
    );
    assert!(undo.to_string().contains("revert it instead"), "{undo}");

    let preview = ws.revert(step, false).unwrap();
    assert_eq!((preview.updates, preview.refused), (2, 0), "{preview:#?}");
    let diff = &preview.rows[0].diffs[0];
    assert_eq!(
        (diff.path.as_str(), diff.before.clone(), diff.after.clone()),
        ("status", Some(json!("paused")), Some(json!("active")))
    );
    assert!(status_changes(&ws).is_empty(), "a preview keeps nothing");

    let done = ws.revert(step, true).unwrap();
    assert_eq!(done.updates, 2, "{done:#?}");
    assert_eq!(
        ws.history(1).unwrap()[0].label,
        "Revert “Pause 2 ad orders”"
    );
    let changes = status_changes(&ws);
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert!(
        changes.iter().all(|(_, p)| p["status"] == 1),
        "{changes:#?}"
    );
    assert_eq!(push(&mut ws, &client).await.applied.len(), 2);
    for order in &both {
        assert_eq!(service_status(&server, id_of(order)).await, 1);
    }

    // Coalesced before posting (made inactive, then paused): the revert goes back to
    // what the service held before the first of them, not to the one it never saw.
    let video_only = std::slice::from_ref(&video);
    ws.set_status(video_only, AdOrderStatus::Inactive, true)
        .unwrap();
    let second = ws
        .set_status(video_only, AdOrderStatus::Paused, true)
        .unwrap()
        .step
        .unwrap();
    assert_eq!(push(&mut ws, &client).await.applied.len(), 1);
    assert_eq!(service_status(&server, id_of(&video)).await, 3);
    let back = ws.revert(second, true).unwrap();
    assert_eq!(back.updates, 1, "{back:#?}");
    assert_eq!(
        ws.ad_order_status(&video).unwrap().pending,
        Some(AdOrderStatus::Active)
    );
    push(&mut ws, &client).await;
    assert_eq!(service_status(&server, id_of(&video)).await, 1);
    // What a change keeps of the status before is never sent.
    let sent = bodies(&log, "POST /v1/adorder/updateStatus");
    assert_eq!(
        sent.len(),
        8,
        "2 launches, 2 pauses, 2 back, 1 pause, 1 back"
    );
    assert!(
        sent.iter().all(|b| b.as_object().unwrap().len() == 2),
        "{sent:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revert_refuses_a_status_it_never_knew() {
    let server = start().await;
    let dir = tempfile::tempdir().unwrap();
    let client = quick(server.demo().await);
    let mut ws = open(&file(&dir));
    pulled(&mut ws, &client).await;
    let display = by_name(&ws, Kind::AdOrder, "Acme Spring - Display Prospecting");
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    ws.set_status(std::slice::from_ref(&video), AdOrderStatus::Active, true)
        .unwrap();
    push(&mut ws, &client).await;

    // Display Prospecting's status was never known: the listings carry none.
    assert_eq!(ws.ad_order_status(&display).unwrap().known, None);
    let both = [display.clone(), video.clone()];
    let step = ws
        .set_status(&both, AdOrderStatus::Paused, true)
        .unwrap()
        .step
        .unwrap();
    assert_eq!(push(&mut ws, &client).await.applied.len(), 2);

    let preview = ws.revert(step, false).unwrap();
    assert_eq!((preview.updates, preview.refused), (1, 1), "{preview:#?}");
    let refused = preview
        .rows
        .iter()
        .find(|r| r.outcome == RowOutcome::Refused)
        .unwrap();
    assert_eq!(refused.label, "Acme Spring - Display Prospecting");
    assert_eq!(refused.errors[0].field, "status");
    assert!(
        refused.errors[0]
            .message
            .contains("its status before this change is not known"),
        "{:?}",
        refused.errors
    );

    ws.revert(step, true).unwrap();
    let changes = status_changes(&ws);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0].0, video);
    assert_eq!(changes[0].1["status"], 1);
    push(&mut ws, &client).await;
    assert_eq!(
        service_status(&server, id_of(&display)).await,
        3,
        "left as it is"
    );
    assert_eq!(service_status(&server, id_of(&video)).await, 1);
}
