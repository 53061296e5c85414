//! Downloads with flight caps against the in-process sandbox over real HTTP: what the
//! report counts, the progress a host draws, and caps held back by pending edits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, by_name, file, open, typed};
use flightdeck_model::{Campaign, FlightCap};
use flightdeck_offline::change::{EntityRef, Key, Kind};
use flightdeck_offline::workspace::{Progress, PullOptions, PullScope, ServerChangeKind};
use serde_json::json;

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
