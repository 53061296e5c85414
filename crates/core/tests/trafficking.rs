//! The campaign- and ad-order-scoped listings through the core, against the sandbox over
//! HTTP: an ad order's creatives (and the list kept for offline), refreshing one
//! campaign, and the note a downloaded creative's form shows.
//!
//! Signs in, so it runs inside `scripts/with-keyring.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use flightdeck_client::{Client, ClientConfig, Credentials};
use flightdeck_core::{Core, LISTED_CREATIVE_NOTE, OpenOptions, Selection};
use flightdeck_model::Creative;
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::PullScope;
use flightdeck_sandbox::testing;
use serde_json::json;

/// The id of the one entity of `kind` named `name`.
fn id_named(account: &flightdeck_core::Account, kind: Kind, name: &str) -> i64 {
    let ws = account.workspace().unwrap();
    let found = ws
        .list(kind)
        .unwrap()
        .into_iter()
        .find(|e| e.working["name"] == name)
        .unwrap_or_else(|| panic!("no {kind:?} named {name}"));
    match found.target.key {
        Key::Id(id) => id,
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ad_orders_creatives_show_online_and_as_last_known_offline() {
    let sandbox = testing::demo_sandbox().unwrap();
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let url = running.base_url();
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Url(url), OpenOptions::default())
        .await
        .unwrap();
    core.sign_in_user("demo", "demo".into()).await.unwrap();
    let account = core.active().unwrap();
    account.download(PullScope::All, |_| {}).await.unwrap();

    // The demo's video creative serves on one of Acme Spring Launch's ad orders.
    let spring = id_named(&account, Kind::Campaign, "Acme Spring Launch");
    let orders: Vec<i64> = account
        .workspace()
        .unwrap()
        .list(Kind::AdOrder)
        .unwrap()
        .into_iter()
        .filter(|o| o.parent == Some(EntityRef::new(Kind::Campaign, Key::Id(spring))))
        .map(|o| match o.target.key {
            Key::Id(id) => id,
            other => panic!("{other:?}"),
        })
        .collect();
    let mut with_video = None;
    for order in &orders {
        let listed = account.ad_order_creatives(*order).await.unwrap();
        assert!(listed.stale.is_none(), "{listed:?}");
        assert!(listed.fetched_at.is_some());
        if let Some(c) = listed
            .creatives
            .iter()
            .find(|c| c.name == "Acme Spring - 15s Video")
        {
            assert_eq!(c.status, "APPROVED");
            with_video = Some((*order, listed.clone()));
        }
    }
    let (order, online) = with_video.expect("an ad order lists the video creative");

    // A deployment without the listing: the last list stays, and the form says why.
    sandbox
        .state()
        .faults
        .set_status_answers(vec![flightdeck_sandbox::faults::StatusAnswer {
            path: "/v1/creative/getCreativesByAdOrder".into(),
            status: 405,
        }])
        .unwrap();
    let older = account.ad_order_creatives(order).await.unwrap();
    assert_eq!(older.creatives, online.creatives);
    assert_eq!(
        older.stale.as_deref(),
        Some("The ad platform does not list an ad order's creatives (HTTP 405).")
    );
    sandbox.state().faults.reset();

    // The service goes away: the form still shows the list as last fetched, and says so.
    running.stop().await.unwrap();
    let offline = account.ad_order_creatives(order).await.unwrap();
    assert_eq!(offline.creatives, online.creatives);
    assert_eq!(offline.fetched_at, online.fetched_at);
    assert!(offline.stale.is_some());
    // Never fetched: nothing to show, and no error.
    let never = account.ad_order_creatives(order + 1_000).await.unwrap();
    assert!(never.creatives.is_empty() && never.fetched_at.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refreshing_a_campaign_brings_its_new_creative_and_the_form_says_what_is_missing() {
    let sandbox = testing::demo_sandbox().unwrap();
    let running = sandbox
        .clone()
        .spawn("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
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
    account.download(PullScope::All, |_| {}).await.unwrap();
    let spring = id_named(&account, Kind::Campaign, "Acme Spring Launch");

    let client = Client::new(
        ClientConfig::new(&url).unwrap(),
        Credentials::basic("demo", "demo"),
    )
    .unwrap();
    let creative: Creative = serde_json::from_value(json!({
        "name": "Spring refresh tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": "<div>refresh</div>", "campaignId": spring
    }))
    .unwrap();
    let made = client.creative_save(&creative).await.unwrap().entity;
    let made = EntityRef::new(Kind::Creative, Key::Id(made.id.unwrap()));

    let (summary, changed) = account.refresh_campaign(spring).await.unwrap();
    assert_eq!(summary.added, 1, "{summary:?}");
    assert_eq!(summary.removed, 0);
    assert!(summary.notices.is_empty());
    assert_eq!(changed.targets, std::slice::from_ref(&made));
    assert!(changed.added_or_removed);

    // Downloaded, it has no content: its form says the service does not give it.
    assert_eq!(
        account.creative_note(&made).unwrap(),
        Some(LISTED_CREATIVE_NOTE)
    );
    let spring_ref = EntityRef::new(Kind::Campaign, Key::Id(spring));
    assert_eq!(account.creative_note(&spring_ref).unwrap(), None);

    // Again: nothing changed on the service, nothing reported.
    let (again, changed) = account.refresh_campaign(spring).await.unwrap();
    assert_eq!((again.added, again.changed, again.removed), (0, 0, 0));
    assert!(changed.targets.is_empty());
}
