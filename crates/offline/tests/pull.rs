//! Downloads with flight caps against the in-process sandbox over real HTTP: what the
//! report counts, the progress a host draws, and caps held back by pending edits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, by_name, file, open, typed};
use flightdeck_model::{AdOrder, Campaign, Creative, FlightCap};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::sync::{self, PushOptions};
use flightdeck_offline::workspace::{
    Progress, PullNotice, PullOptions, PullScope, ServerChangeKind, Workspace,
    creative_from_listing,
};
use flightdeck_sandbox::faults::StatusAnswer;
use serde_json::{Value, json};

/// A flight of Acme Spring Launch (the demo's one campaign with flights) and the ids of
/// its ad orders, from a downloaded workspace.
fn spring(ws: &flightdeck_offline::workspace::Workspace) -> (i64, Vec<i64>) {
    let campaign = by_name(ws, Kind::Campaign, "Acme Spring Launch");
    let c: Campaign = typed(ws.get(&campaign).unwrap().unwrap().working);
    let flight = c.flights.unwrap()[0].id.unwrap();
    let orders = ws
        .list(Kind::AdOrder)
        .unwrap()
        .into_iter()
        .filter(|o| o.parent.as_ref() == Some(&campaign))
        .map(|o| match o.target.key {
            Key::Id(id) => id,
            other => panic!("downloaded order with key {other:?}"),
        })
        .collect();
    (flight, orders)
}

#[tokio::test]
async fn only_caps_the_server_has_count_as_added() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut first = open(&dir.path().join("first.sqlite"));
    first.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let (flight, orders) = spring(&first);
    assert_eq!(orders.len(), 3);
    // Three lists stored, all empty: nothing was added on the server.
    assert_eq!(first.count(Kind::FlightCaps).unwrap(), 3);
    let caps_of = |order: i64| EntityRef::new(Kind::FlightCaps, Key::Id(order));
    assert_eq!(
        first.get(&caps_of(orders[0])).unwrap().unwrap().working,
        json!([])
    );

    let capped = orders[1];
    let cap: FlightCap = typed(json!({"flightId": flight, "maxBudget": 40.0}));
    client.flight_caps_save(capped, &[cap]).await.unwrap();

    // A fresh workspace: one ad order has caps, so one caps entity is added.
    let mut fresh = open(&file(&dir));
    let report = fresh.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert_eq!(report.of(Kind::FlightCaps).added, 1);
    assert_eq!(report.of(Kind::AdOrder).added, 10);
    let caps_changes: Vec<_> = report
        .changes
        .iter()
        .filter(|c| c.target.kind == Kind::FlightCaps)
        .collect();
    assert_eq!(caps_changes.len(), 1, "{caps_changes:?}");
    assert_eq!(caps_changes[0].target, caps_of(capped));
    assert_eq!(caps_changes[0].change, ServerChangeKind::Added);
    assert_eq!(fresh.count(Kind::FlightCaps).unwrap(), 3);

    // The first workspace stored the empty list as the base: the cap is a change to it.
    let again = first.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let caps = again.of(Kind::FlightCaps);
    assert_eq!((caps.added, caps.changed, caps.unchanged), (0, 1, 2));
    let stored = first.get(&caps_of(capped)).unwrap().unwrap().working;
    assert_eq!(stored[0]["maxBudget"], 40.0);
}

#[tokio::test]
async fn progress_gives_every_kind_a_bar_that_fills() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let mut seen: Vec<Progress> = Vec::new();
    // One request at a time: the caps bar moves in steps, not at once.
    let options = PullOptions {
        caps_concurrency: 1,
        ..PullOptions::default()
    };
    ws.pull_with(&client, PullScope::All, options, |p| seen.push(p))
        .await
        .unwrap();

    let mut order: Vec<Kind> = seen.iter().map(|p| p.kind).collect();
    order.dedup();
    assert_eq!(
        order,
        [
            Kind::Advertiser,
            Kind::Campaign,
            Kind::AdOrder,
            Kind::FlightCaps,
            Kind::Creative,
            Kind::AudienceSegment
        ],
        "each kind reports in one run, in download order: {seen:?}"
    );
    for kind in order {
        let of_kind: Vec<&Progress> = seen.iter().filter(|p| p.kind == kind).collect();
        assert_eq!(of_kind[0].done, 0, "{kind:?} starts empty: {of_kind:?}");
        assert!(
            of_kind.windows(2).all(|w| w[0].done <= w[1].done),
            "{kind:?} never goes back: {of_kind:?}"
        );
        let last = of_kind[of_kind.len() - 1];
        assert_eq!(
            Some(last.done),
            last.total,
            "{kind:?} ends full: {of_kind:?}"
        );
    }
    let last = |kind: Kind| seen.iter().rev().find(|p| p.kind == kind).copied();
    assert_eq!(last(Kind::AdOrder).unwrap().total, Some(10));
    // The caps of Acme Spring Launch's three orders, one request each.
    assert_eq!(last(Kind::FlightCaps).unwrap().total, Some(3));
    assert_eq!(last(Kind::Campaign).unwrap().total, Some(3));
    // One creative listing per campaign.
    assert_eq!(last(Kind::Creative).unwrap().total, Some(4));
    // While the ad orders download, the total is not known yet.
    assert!(
        seen.iter()
            .any(|p| p.kind == Kind::AdOrder && p.done == 0 && p.total.is_none())
    );
}

#[tokio::test]
async fn caps_with_a_pending_edit_keep_it_and_hold_the_servers_beside_it() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let (flight, orders) = spring(&ws);
    let order = EntityRef::new(Kind::AdOrder, Key::Id(orders[0]));
    let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
    ws.set_flight_caps(
        &order,
        vec![typed(json!({"flightId": flight, "maxBudget": 10.0}))],
    )
    .unwrap();
    let theirs: FlightCap = typed(json!({"flightId": flight, "maxBudget": 99.0}));
    client.flight_caps_save(orders[0], &[theirs]).await.unwrap();

    let report = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let counts = report.of(Kind::FlightCaps);
    assert_eq!((counts.changed, counts.skipped_pending), (1, 1));
    assert_eq!(report.skipped_pending().collect::<Vec<_>>(), vec![&caps]);
    let stored = ws.get(&caps).unwrap().unwrap();
    assert_eq!(stored.working[0]["maxBudget"], 10.0);
    assert_eq!(stored.base, Some(json!([])));
    assert_eq!(stored.theirs.unwrap()[0]["maxBudget"], 99.0);
}

/// Every stored creative's working JSON, by id.
fn creatives(ws: &Workspace) -> Vec<(i64, Value)> {
    ws.list(Kind::Creative)
        .unwrap()
        .into_iter()
        .map(|e| {
            let Key::Id(id) = e.target.key else {
                panic!("downloaded creative with key {:?}", e.target.key)
            };
            (id, ws.get(&e.target).unwrap().unwrap().working)
        })
        .collect()
}

/// Sets a creative's review status on the sandbox, as the service's reviewers do.
async fn review(server: &Server, id: i64, status: &'static str) {
    server
        .sandbox
        .state()
        .db
        .tx(move |tx| flightdeck_sandbox::store::admin_creative_status(tx, id, status))
        .await
        .unwrap();
}

#[tokio::test]
async fn creatives_come_in_with_their_status_and_a_second_download_is_unchanged() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let report = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert_eq!(report.of(Kind::Creative).added, 4, "{report:?}");
    assert!(report.notices.is_empty());
    let stored = creatives(&ws);
    assert_eq!(stored.len(), 4);
    let video = stored
        .iter()
        .find(|(_, c)| c["name"] == "Acme Spring - 15s Video")
        .expect("the demo's video creative");
    assert_eq!(video.1["status"], "APPROVED");
    // The listing's own members stay, though the creative wire type does not name them.
    assert_eq!(video.1["duration"], 15.0);
    assert_eq!(video.1["type"]["vendor"], "Hosted video");
    assert!(creative_from_listing(&video.1));
    // Each is stored under a campaign of the account, and scoped to its advertiser.
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let entity = ws
        .list(Kind::Creative)
        .unwrap()
        .into_iter()
        .find(|e| e.target.key == Key::Id(video.0))
        .unwrap();
    assert_eq!(entity.parent.as_ref(), Some(&spring));

    let again = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert!(again.is_unchanged(), "{:?}", again.changes);
    assert_eq!(again.of(Kind::Creative).unchanged, 4);

    // A reviewer disables one: the next download changes only that one.
    review(&server, video.0, "DISABLED").await;
    let third = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let c = third.of(Kind::Creative);
    assert_eq!((c.changed, c.unchanged, c.removed), (1, 3, 0));
    let now = creatives(&ws);
    let video = now.iter().find(|(id, _)| *id == video.0).unwrap();
    assert_eq!(video.1["status"], "DISABLED");
}

#[tokio::test]
async fn a_creative_made_here_keeps_its_payload_through_downloads() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let creative: Creative = typed(json!({
        "name": "Spring tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": "<div>spring</div>", "externalCreativeid": "SPRING-TAG-1"
    }));
    let draft = ws.create_creative(&spring, creative).unwrap();
    let pushed = sync::push(&mut ws, &client, &PushOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(pushed.applied.len(), 1, "{pushed:?}");
    let posted = ws
        .list(Kind::Creative)
        .unwrap()
        .into_iter()
        .find(|e| {
            e.target != draft && ws.get(&e.target).unwrap().unwrap().working["name"] == "Spring tag"
        })
        .expect("the posted creative")
        .target;

    let report = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let stored = ws.get(&posted).unwrap().unwrap().working;
    assert_eq!(stored["htmlAsset"], "<div>spring</div>", "{stored}");
    assert_eq!(stored["creativeType"], "BANNER");
    // What only the listing says is laid over it.
    assert_eq!(stored["status"], "PENDING");
    assert_eq!(stored["adTagId"], format!("tag-{}", stored["id"]));
    assert!(!creative_from_listing(&stored));
    assert_eq!(report.of(Kind::Creative).added, 0, "{report:?}");

    let again = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert!(again.is_unchanged(), "{:?}", again.changes);
    assert_eq!(
        ws.get(&posted).unwrap().unwrap().working["htmlAsset"],
        "<div>spring</div>"
    );

    // Duplicated as new, it posts without what the service derived for the original.
    let copy = ws.duplicate_as_new(&posted).unwrap();
    let draft = ws.get(&copy).unwrap().unwrap().working;
    for derived in ["adTagId", "status", "id"] {
        assert!(draft.get(derived).is_none(), "{derived} copied: {draft}");
    }
    assert!(draft["type"].get("vendor").is_none(), "{draft}");
    let pushed = sync::push(&mut ws, &client, &PushOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(pushed.applied.len(), 1, "{pushed:?}");
}

#[tokio::test]
async fn a_service_without_the_creative_listing_still_downloads_the_rest() {
    for status in [404, 405] {
        let server = Server::start().await;
        server
            .sandbox
            .state()
            .faults
            .set_status_answers(vec![StatusAnswer {
                path: "/v1/campaign/*/creatives".into(),
                status,
            }])
            .unwrap();
        let client = server.demo().await;
        let dir = tempfile::tempdir().unwrap();
        let mut ws = open(&file(&dir));
        let mut seen: Vec<Progress> = Vec::new();
        let report = ws
            .pull(&client, PullScope::All, |p| seen.push(p))
            .await
            .unwrap();
        let last = seen
            .iter()
            .rev()
            .find(|p| p.kind == Kind::Creative)
            .unwrap();
        assert_eq!(Some(last.done), last.total, "the creatives bar ends full");
        assert_eq!(
            report.notices,
            [PullNotice::CreativesNotListed { status }],
            "said once"
        );
        assert!(
            report.notices[0]
                .text()
                .contains("Creatives could not be listed")
        );
        assert_eq!(report.of(Kind::AdOrder).added, 10);
        assert_eq!(report.of(Kind::Campaign).added, 4);
        assert_eq!(report.of(Kind::Advertiser).added, 3);
        assert_eq!(ws.count(Kind::Creative).unwrap(), 0);

        // Once the service lists them, they come in; none was counted as removed.
        server.sandbox.state().faults.reset();
        let later = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
        assert!(later.notices.is_empty());
        assert_eq!(later.of(Kind::Creative).added, 4);
    }
}

#[tokio::test]
async fn refreshing_one_campaign_fetches_its_ad_orders_and_creatives() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let Key::Id(spring_id) = spring.key else {
        unreachable!()
    };
    let orders_before = ws.count(Kind::AdOrder).unwrap();

    // On the service: a new ad order and a new creative on the campaign, and one of
    // its ad orders gone.
    let existing: AdOrder = typed(
        ws.list(Kind::AdOrder)
            .unwrap()
            .into_iter()
            .find(|o| o.parent.as_ref() == Some(&spring))
            .map(|o| ws.get(&o.target).unwrap().unwrap().working)
            .unwrap(),
    );
    let mut order = existing.clone();
    order.id = None;
    order.name = Some("Spring - Late".into());
    order.external_ad_order_id = None;
    order.io_number = None;
    order.audiences = None;
    #[allow(deprecated)] // the only way to make an ad order on the service
    client.ad_order_save(&order).await.unwrap();
    let creative: Creative = typed(json!({
        "name": "Spring late tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": "<div>late</div>", "campaignId": spring_id
    }));
    client.creative_save(&creative).await.unwrap();
    let gone = existing.id.unwrap();
    server
        .sandbox
        .state()
        .db
        .tx(move |tx| {
            tx.execute("DELETE FROM creative_ad_orders WHERE order_id = ?1", [gone])?;
            tx.execute("DELETE FROM flight_caps WHERE order_id = ?1", [gone])?;
            tx.execute("DELETE FROM ad_orders WHERE id = ?1", [gone])?;
            Ok(())
        })
        .await
        .unwrap();

    let report = ws.pull_campaign(&client, spring_id).await.unwrap();
    let o = report.of(Kind::AdOrder);
    assert_eq!((o.added, o.removed), (1, 1), "{report:?}");
    assert_eq!(report.of(Kind::Creative).added, 1);
    assert_eq!(report.of(Kind::Creative).removed, 0);
    assert_eq!(ws.count(Kind::AdOrder).unwrap(), orders_before);
    let removed: Vec<_> = report
        .changes
        .iter()
        .filter(|c| c.change == ServerChangeKind::Removed)
        .map(|c| c.target.clone())
        .collect();
    assert_eq!(removed, [EntityRef::new(Kind::AdOrder, Key::Id(gone))]);
    // The other campaigns' ad orders were not asked about, and none went.
    assert!(report.changes.iter().all(|c| c.target.kind != Kind::AdOrder
        || c.change != ServerChangeKind::Removed
        || c.target.key == Key::Id(gone)));

    // A campaign never downloaded is refused with a message, not guessed.
    let err = ws.pull_campaign(&client, 999_999).await.unwrap_err();
    assert!(err.to_string().contains("not downloaded"), "{err}");
}
