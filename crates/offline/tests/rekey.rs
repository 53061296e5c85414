//! An answer or a look-up naming the wrong entity never moves one entity onto another:
//! an update answered with another entity's id fails, and a create whose answered or
//! found id belongs to an entity with edits of its own needs review. Real SQLite files
//! and the in-process sandbox over real HTTP; the wrong answers come from a front that
//! rewrites the id in the sandbox's answer (the write itself commits as sent).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Server, by_name, file, open, status_of, typed};
use flightdeck_client::retry::RetryPolicy;
use flightdeck_client::session::Session;
use flightdeck_client::{Client, ClientConfig, Credentials, SecretString};
use flightdeck_model::Advertiser;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::sync::{self, PushOptions, PushReport};
use flightdeck_offline::workspace::{PullOptions, PullScope, Review, Workspace};
use flightdeck_offline::{Error, change::Op};
use flightdeck_sandbox::faults::FaultSettings;
use serde_json::{Value, json};

/// The id the front puts in the next answer that carries an entity id, once.
type Armed = Arc<Mutex<Option<i64>>>;

/// A signed-in client whose requests reach the sandbox through a front that, when armed,
/// answers the next `POST` whose answer carries `entity.id` with the armed id instead:
/// a service answering a save with another entity's id.
async fn misanswering(server: &Server) -> (Client, Armed) {
    use axum::body::Body;
    use axum::extract::Request;
    use axum::http::{Method, header};
    use axum::middleware::Next;

    let armed: Armed = Arc::default();
    let trigger = Arc::clone(&armed);
    let router = server.sandbox.router().layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let trigger = Arc::clone(&trigger);
            async move {
                let post = req.method() == Method::POST;
                let response = next.run(req).await;
                if !post {
                    return response;
                }
                let (mut parts, body) = response.into_parts();
                let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                let mut answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let carries_id = answer.pointer("/entity/id").is_some_and(Value::is_i64);
                let id = if carries_id {
                    trigger.lock().unwrap().take()
                } else {
                    None
                };
                let Some(id) = id else {
                    return axum::response::Response::from_parts(parts, Body::from(bytes));
                };
                answer["entity"]["id"] = json!(id);
                parts.headers.remove(header::CONTENT_LENGTH);
                axum::response::Response::from_parts(parts, Body::from(answer.to_string()))
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // Served like the sandbox itself, so an injected drop closes the connection.
    tokio::spawn(flightdeck_sandbox::server::serve(
        listener,
        router,
        std::future::pending(),
    ));
    let config = ClientConfig::new(&format!("http://{addr}")).unwrap();
    let session = Session::user(&config, "demo", SecretString::from("demo"), None)
        .await
        .expect("sign in");
    let client = Client::new(config, Credentials::Session(Arc::new(session)))
        .unwrap()
        .with_retry_policy(quick());
    (client, armed)
}

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 40,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_millis(20),
    }
}

async fn pulled(client: &Client, dir: &tempfile::TempDir) -> Workspace {
    let mut ws = open(&file(dir));
    let options = PullOptions {
        audiences: false,
        ..PullOptions::default()
    };
    ws.pull_with(client, PullScope::All, options, |_| {})
        .await
        .expect("pull");
    ws
}

/// Posts `only` (and what it needs), or everything.
async fn push(ws: &mut Workspace, client: &Client, only: Option<&[i64]>) -> PushReport {
    let options = PushOptions {
        concurrency: 4,
        retry: quick(),
        only: only.map(|seqs| seqs.iter().copied().collect::<BTreeSet<i64>>()),
        lookup_grace: Some(Duration::from_millis(300)),
    };
    sync::push(ws, client, &options, |_| {})
        .await
        .expect("push")
}

fn id_of(target: &EntityRef) -> i64 {
    let Key::Id(id) = target.key else {
        panic!("{target:?} has no id")
    };
    id
}

/// An edit of a downloaded advertiser's working copy; returns the change's seq.
fn edit(ws: &mut Workspace, target: &EntityRef, change: impl FnOnce(&mut Advertiser)) -> i64 {
    let mut a: Advertiser = typed(ws.get(target).unwrap().unwrap().working);
    change(&mut a);
    ws.update_advertiser(target, a).unwrap()
}

fn working(ws: &Workspace, target: &EntityRef) -> Value {
    ws.get(target)
        .unwrap()
        .expect("still in the workspace")
        .working
}

/// The open changes to `target`.
fn open_changes(ws: &Workspace, target: &EntityRef) -> Vec<i64> {
    ws.pending()
        .unwrap()
        .into_iter()
        .filter(|c| &c.target == target)
        .map(|c| c.seq)
        .collect()
}

/// The advertiser the service holds under `id`.
async fn on_service(client: &Client, id: i64) -> Advertiser {
    client
        .advertisers(None)
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|a| a.id == Some(id))
        .unwrap_or_else(|| panic!("advertiser {id} is not on the service"))
}

/// The sandbox's advertisers whose body has this name, by id.
fn service_ids(server: &Server, name: &str) -> Vec<i64> {
    server
        .sandbox
        .state()
        .db
        .blocking(|c| {
            let mut stmt = c.prepare(
                "SELECT id FROM advertisers WHERE json_extract(body, '$.name') = ?1 ORDER BY id",
            )?;
            let ids = stmt
                .query_map([name], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        })
        .unwrap()
}

fn codes(report_messages: &[flightdeck_offline::workspace::ChangeMessage]) -> Vec<String> {
    report_messages.iter().map(|m| m.code.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_answered_with_another_id_fails_and_the_other_keeps_its_edits() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (client, armed) = misanswering(&server).await;
    let mut ws = pulled(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let bluebird = by_name(&ws, Kind::Advertiser, "Bluebird Coffee");
    let acme_seq = edit(&mut ws, &acme, |a| a.name = Some("Acme Outdoor Co".into()));
    let bluebird_seq = edit(&mut ws, &bluebird, |a| {
        a.name = Some("Bluebird Coffee Co".into());
    });

    // The service saves Acme but answers with Bluebird's id.
    *armed.lock().unwrap() = Some(id_of(&bluebird));
    let report = push(&mut ws, &client, Some(&[acme_seq])).await;
    assert!(armed.lock().unwrap().is_none(), "the answer was rewritten");
    // Nothing moved: each keeps its row, its working copy and its change.
    assert_eq!(working(&ws, &bluebird)["name"], "Bluebird Coffee Co");
    assert_eq!(
        ws.get(&bluebird).unwrap().unwrap().base.unwrap()["name"],
        "Bluebird Coffee"
    );
    assert_eq!(open_changes(&ws, &bluebird), vec![bluebird_seq]);
    assert_eq!(working(&ws, &acme)["name"], "Acme Outdoor Co");
    assert_eq!(open_changes(&ws, &acme), vec![acme_seq]);
    assert!(report.applied.is_empty(), "{report:#?}");
    let failed = report
        .failed
        .iter()
        .find(|f| f.seq == acme_seq)
        .unwrap_or_else(|| panic!("{report:#?}"));
    assert_eq!(codes(&failed.messages), vec![sync::WRONG_ID_CODE]);
    let text = &failed.messages[0].message;
    for part in [
        format!("advertiser {}", id_of(&acme)),
        format!("advertiser {}", id_of(&bluebird)),
    ] {
        assert!(text.contains(&part), "{text}");
    }
    assert_eq!(status_of(&ws, acme_seq), ChangeStatus::Failed);
    assert_eq!(
        ws.change_messages(acme_seq).unwrap(),
        failed.messages,
        "the change keeps why"
    );

    // The buyer edits Bluebird once more; the next push writes Bluebird's values, never
    // Acme's, over Bluebird on the service.
    edit(&mut ws, &bluebird, |a| a.category = Some("IAB17".into()));
    let report = push(&mut ws, &client, None).await;
    assert!(
        report.applied.iter().any(|a| a.seq == bluebird_seq),
        "{report:#?}"
    );
    let theirs = on_service(&client, id_of(&bluebird)).await;
    assert_eq!(theirs.name.as_deref(), Some("Bluebird Coffee Co"));
    assert_eq!(theirs.category.as_deref(), Some("IAB17"));
    assert_ne!(theirs.external_advertiser_id.as_deref(), Some("ACME-001"));
    // Acme's save did commit on the service (for Acme), as the service said it did.
    let acme_there = on_service(&client, id_of(&acme)).await;
    assert_eq!(acme_there.name.as_deref(), Some("Acme Outdoor Co"));
    assert_eq!(
        acme_there.external_advertiser_id.as_deref(),
        Some("ACME-001")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_answered_with_an_edited_entitys_id_needs_review() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (client, armed) = misanswering(&server).await;
    let mut ws = pulled(&client, &dir).await;
    let bluebird = by_name(&ws, Kind::Advertiser, "Bluebird Coffee");
    let bluebird_seq = edit(&mut ws, &bluebird, |a| {
        a.name = Some("Bluebird Coffee Co".into());
    });
    let fresh = ws
        .create_advertiser(typed(json!({
            "name": "Fresh Co", "agencyId": 1, "currency": "USD", "category": "IAB3"
        })))
        .unwrap();
    let fresh_seq = open_changes(&ws, &fresh)[0];

    *armed.lock().unwrap() = Some(id_of(&bluebird));
    let report = push(&mut ws, &client, Some(&[fresh_seq])).await;
    assert!(armed.lock().unwrap().is_none(), "the answer was rewritten");
    // Bluebird keeps its edit and its change; the draft is still a draft.
    assert_eq!(working(&ws, &bluebird)["name"], "Bluebird Coffee Co");
    assert_eq!(open_changes(&ws, &bluebird), vec![bluebird_seq]);
    assert_eq!(working(&ws, &fresh)["name"], "Fresh Co");
    assert_eq!(ws.resolve_remote(&fresh).unwrap(), None);
    let review = report
        .needs_review
        .iter()
        .find(|r| r.seq == fresh_seq)
        .unwrap_or_else(|| panic!("{report:#?}"));
    assert_eq!(codes(&review.messages), vec![sync::ID_TAKEN_CODE]);
    assert!(
        review.messages[0].message.contains(&format!(
            "answered this new advertiser with id {}",
            id_of(&bluebird)
        )),
        "{review:#?}"
    );
    assert_eq!(status_of(&ws, fresh_seq), ChangeStatus::NeedsReview);

    // Settling it under Bluebird's id is refused the same way; the real id settles it.
    let err = ws
        .settle_review(
            fresh_seq,
            Review::Created {
                id: id_of(&bluebird),
            },
        )
        .unwrap_err();
    assert!(
        matches!(err, Error::IdTaken { kind: Kind::Advertiser, ref id } if *id == bluebird.key),
        "{err:?}"
    );
    assert!(err.to_string().contains("already belongs"), "{err}");
    let fresh_id = service_ids(&server, "Fresh Co");
    assert_eq!(fresh_id.len(), 1, "created once");
    ws.settle_review(fresh_seq, Review::Created { id: fresh_id[0] })
        .unwrap();
    assert_eq!(
        ws.resolve_remote(&fresh).unwrap(),
        Some(Key::Id(fresh_id[0]))
    );

    let report = push(&mut ws, &client, None).await;
    assert!(report.is_complete(), "{report:#?}");
    let theirs = on_service(&client, id_of(&bluebird)).await;
    assert_eq!(theirs.name.as_deref(), Some("Bluebird Coffee Co"));
    assert_eq!(
        service_ids(&server, "Fresh Co"),
        fresh_id,
        "not created again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_creates_look_up_finding_an_edited_entity_needs_review() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (client, _armed) = misanswering(&server).await;
    let mut ws = pulled(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let acme_seq = edit(&mut ws, &acme, |a| a.category = Some("IAB17".into()));
    // A new advertiser with Acme's name and client id: its look-up finds Acme.
    let twin = ws
        .create_advertiser(typed(json!({
            "name": "Acme Outdoor", "externalAdvertiserId": "ACME-001", "agencyId": 1,
            "currency": "USD", "category": "IAB3"
        })))
        .unwrap();
    let twin_seq = open_changes(&ws, &twin)[0];
    assert_eq!(ws.change(twin_seq).unwrap().unwrap().op, Op::Create);

    server
        .sandbox
        .state()
        .faults
        .set(FaultSettings {
            drop_after_commit: 1,
            ..FaultSettings::default()
        })
        .unwrap();
    let report = push(&mut ws, &client, Some(&[twin_seq])).await;
    server.sandbox.state().faults.reset();
    // Acme keeps its edit and its change; the new one is still a draft.
    assert_eq!(working(&ws, &acme)["category"], "IAB17");
    assert_eq!(working(&ws, &acme)["name"], "Acme Outdoor");
    assert_eq!(open_changes(&ws, &acme), vec![acme_seq]);
    assert_eq!(ws.resolve_remote(&twin).unwrap(), None);
    let review = report
        .needs_review
        .iter()
        .find(|r| r.seq == twin_seq)
        .unwrap_or_else(|| panic!("{report:#?}"));
    assert_eq!(codes(&review.messages), vec![sync::ID_TAKEN_CODE]);
    assert!(
        review.messages[0].message.contains(&format!(
            "look-up of this new advertiser, whose answer was lost, found advertiser {}",
            id_of(&acme)
        )),
        "{review:#?}"
    );
    assert_eq!(status_of(&ws, twin_seq), ChangeStatus::NeedsReview);

    // The buyer finds the new one on the ad platform and marks it created.
    let ids = service_ids(&server, "Acme Outdoor");
    assert_eq!(ids.len(), 2, "the create did commit: {ids:?}");
    let twin_id = *ids.iter().find(|id| **id != id_of(&acme)).unwrap();
    ws.settle_review(twin_seq, Review::Created { id: twin_id })
        .unwrap();

    let report = push(&mut ws, &client, None).await;
    assert!(report.is_complete(), "{report:#?}");
    let acme_there = on_service(&client, id_of(&acme)).await;
    assert_eq!(acme_there.category.as_deref(), Some("IAB17"));
    let twin_there = on_service(&client, twin_id).await;
    assert_eq!(twin_there.category.as_deref(), Some("IAB3"));
    assert_eq!(service_ids(&server, "Acme Outdoor").len(), 2, "no third");
}
