//! Posting through the core when the service goes away and comes back: the post stops
//! at once and fails nothing, and posting resumes by itself once the service answers.
//!
//! Signs in, so it runs inside `scripts/with-keyring.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_core::{Core, OpenOptions, Selection};
use flightdeck_model::Advertiser;
use flightdeck_offline::change::ChangeStatus;
use flightdeck_sandbox::testing;
use serde_json::json;

fn advertiser(name: &str) -> Advertiser {
    serde_json::from_value(json!({
        "name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"
    }))
    .unwrap()
}

const NAMES: [&str; 3] = ["Waits Co", "Waits Too", "Waits Three"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_that_cannot_reach_the_service_waits_and_resumes_by_itself() {
    let sandbox = testing::demo_sandbox().unwrap();
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = running.addr;
    let url = running.base_url();
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(
        dir.path(),
        Selection::Url(url.clone()),
        OpenOptions::default(),
    )
    .await
    .unwrap();
    core.sign_in_user("demo", "demo".into()).await.unwrap();
    let account = core.active().unwrap();
    {
        let mut ws = account.workspace().unwrap();
        for name in NAMES {
            ws.create_advertiser(advertiser(name)).unwrap();
        }
    }

    running.stop().await.unwrap();
    let guard = account.begin_posting().unwrap();
    let report = tokio::time::timeout(Duration::from_secs(60), account.post(guard, None, |_| {}))
        .await
        .expect("the post ends")
        .unwrap();
    let why = report
        .unreachable
        .clone()
        .expect("says the service is unreachable");
    assert!(why.contains("could not reach"), "{why}");
    assert!(report.failed.is_empty(), "nothing failed: {report:#?}");
    assert!(report.applied.is_empty());
    assert_eq!(account.post_waiting(), Some(why));
    assert!(!account.is_posting());
    let pending = account.workspace().unwrap().pending().unwrap();
    assert_eq!(pending.len(), NAMES.len());
    assert!(
        pending.iter().all(|c| c.status == ChangeStatus::Pending),
        "{pending:?}"
    );

    // Nobody presses Post: the core watches for the service and posts once it is back.
    let watcher = tokio::spawn({
        let account = account.clone();
        async move {
            let guard = account.await_resume().await.expect("resumes");
            account.post(guard, None, |_| {}).await
        }
    });
    // A second watcher is not started beside the first.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(account.await_resume().await.is_none());
    let _running = sandbox.clone().spawn(addr).await.unwrap();
    let report = tokio::time::timeout(Duration::from_secs(60), watcher)
        .await
        .expect("posting resumed")
        .unwrap()
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), NAMES.len());
    assert_eq!(account.post_waiting(), None);
    assert_eq!(account.pending_count().unwrap(), 0);

    // Over HTTP: each exactly once.
    let client = Client::new(
        ClientConfig::new(&url).unwrap(),
        Credentials::basic("demo", "demo"),
    )
    .unwrap();
    let listed = client.advertisers(None).await.unwrap().entity;
    for name in NAMES {
        let n = listed
            .iter()
            .filter(|a| a.name.as_deref() == Some(name))
            .count();
        assert_eq!(n, 1, "{name}");
    }
}
