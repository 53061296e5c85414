//! Audience identifiers leave the workspace file once the service has them: not only
//! the rows that named them, but the freed pages and the write-ahead log that still held
//! their text, also for uploads applied by a version that kept them (migration 8).
//!
//! The files are read byte for byte, as anyone with the disk could.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Server, file, open, typed};
use flightdeck_client::retry::RetryPolicy;
use flightdeck_offline::change::{ChangeStatus, EntityRef};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{PullOptions, PullScope, Workspace};
use serde_json::{Value, json};

/// Distinct hashed emails, as a buyer's upload carries them (64 hex characters).
fn identifiers(tag: char, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{tag}{:063x}", 0x5eed_0000_u64 + i as u64))
        .collect()
}

/// How many of `needles` each file of the workspace (the database, its log, its index)
/// still holds, for the files that hold any.
fn on_disk(path: &Path, needles: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = format!("{}{suffix}", path.display());
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let n = needles
            .iter()
            .filter(|needle| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
            .count();
        if n > 0 {
            found.push(format!("{n} of {} identifiers in {file}", needles.len()));
        }
    }
    found
}

async fn pushed_upload(server: &Server, path: &Path, values: &[String]) -> (Workspace, EntityRef) {
    let client = server.demo().await;
    let mut ws = open(path);
    ws.pull_with(
        &client,
        PullScope::All,
        PullOptions {
            audiences: false,
            ..PullOptions::default()
        },
        |_| {},
    )
    .await
    .unwrap();
    let segment = ws
        .create_audience_segment(typed(json!({
            "name": "Buyers", "dataType": "email_sha256", "accountId": 1,
            "advertiserIds": [1], "externalAudienceId": "buyers-1"
        })))
        .unwrap();
    ws.upload_audience_data(
        &segment,
        typed(json!([{"countryCode": "US", "values": values}])),
    )
    .unwrap();
    // The identifiers are surely in the files while the upload waits.
    assert!(!on_disk(path, values).is_empty());
    let options = PushOptions {
        concurrency: 2,
        retry: RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(20),
        },
        only: None,
        lookup_grace: Some(Duration::from_millis(300)),
    };
    let report = sync::push(&mut ws, &client, &options, |_| {})
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    (ws, segment)
}

/// How many identifiers the uploads view says the segment's applied uploads sent.
fn sent(ws: &Workspace, segment: &EntityRef) -> Vec<(ChangeStatus, usize)> {
    ws.audience_uploads(segment)
        .unwrap()
        .into_iter()
        .map(|u| (u.status, u.values))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_uploads_identifiers_are_gone_from_every_file() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let values = identifiers('a', 200);
    let (ws, segment) = pushed_upload(&server, &path, &values).await;

    // While the workspace is open, as the app keeps it.
    assert_eq!(on_disk(&path, &values), Vec::<String>::new());
    // The count stays for the uploads view.
    assert_eq!(sent(&ws, &segment), vec![(ChangeStatus::Applied, 200)]);
    drop(ws);
    assert_eq!(on_disk(&path, &values), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_applied_before_the_purge_existed_are_purged_on_open() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let values = identifiers('b', 50);
    let (ws, segment) = pushed_upload(&server, &path, &values).await;
    drop(ws);

    // As version 7 left it: the applied upload with its identifiers, and the undo step
    // that queued it.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let seq: i64 = conn
            .query_row(
                "SELECT seq FROM outbox WHERE op = 'audience_data' AND status = 'applied'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let payload = json!([{"countryCode": "US", "serviceSegmentId": "1", "values": values}]);
        conn.execute(
            "UPDATE outbox SET payload = ?2 WHERE seq = ?1",
            rusqlite::params![seq, payload.to_string()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO history_step (label, created_at) VALUES ('Upload', 0)",
            [],
        )
        .unwrap();
        let step = conn.last_insert_rowid();
        conn.execute(
            "INSERT INTO history_row (step, tbl, rid, before, after) VALUES (?1, 'outbox', ?2, NULL, ?3)",
            rusqlite::params![step, seq, payload.to_string()],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 7).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    assert!(!on_disk(&path, &values).is_empty());

    let ws = open(&path);
    assert_eq!(sent(&ws, &segment), vec![(ChangeStatus::Applied, 50)]);
    drop(ws);
    assert_eq!(on_disk(&path, &values), Vec::<String>::new());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let steps: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM history_row h JOIN outbox o ON h.tbl = 'outbox' AND h.rid = o.seq \
             WHERE o.op = 'audience_data'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(steps, 0, "the undo step that held the identifiers is gone");
    let payload: String = conn
        .query_row(
            "SELECT payload FROM outbox WHERE op = 'audience_data'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let payload: Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(payload[0]["valueCount"], 50);
    assert_eq!(payload[0]["values"], json!([]));
}
