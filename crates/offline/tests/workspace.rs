//! The workspace store against a real SQLite file and the in-process sandbox (demo seed)
//! over real HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;

use common::{DAY, NOW, Server, by_name, file, open, status_of, typed};
use flightdeck_client::Client;
use flightdeck_model::{AdOrder, Advertiser, Campaign, FlightCap, SiteList};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind, Op, ParentRef};
use flightdeck_offline::merge::{self, FieldConflict};
use flightdeck_offline::workspace::{Marker, Pick, PullScope, ServerChangeKind, Workspace};
use serde_json::{Value, json};

async fn pulled(server: &Server, dir: &tempfile::TempDir) -> (Workspace, Client) {
    let client = server.demo().await;
    let mut ws = open(&file(dir));
    ws.pull(&client, PullScope::All, |_| {})
        .await
        .expect("pull");
    (ws, client)
}

#[tokio::test]
async fn pull_all_downloads_the_account_then_reports_only_server_changes() {
    let server = Server::start().await;
    let client = server.demo().await;
    client
        .audience_create(&typed(json!({
            "name": "Newsletter", "dataType": "email_sha256", "accountId": 1,
            "advertiserIds": [1], "externalAudienceId": "news-1"
        })))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));

    let mut progress = Vec::new();
    let report = ws
        .pull(&client, PullScope::All, |p| progress.push(p))
        .await
        .unwrap();
    assert_eq!(report.of(Kind::Advertiser).added, 3);
    assert_eq!(report.of(Kind::Campaign).added, 4);
    assert_eq!(report.of(Kind::AdOrder).added, 10);
    // Only Acme Spring Launch has flights; its three ad orders are asked for caps. None
    // has any: their empty lists are stored, but nothing was added.
    assert_eq!(ws.count(Kind::FlightCaps).unwrap(), 3);
    assert_eq!(report.of(Kind::FlightCaps).added, 0);
    assert_eq!(report.of(Kind::AudienceSegment).added, 1);
    assert_eq!(ws.count(Kind::AdOrder).unwrap(), 10);
    assert_eq!(ws.count(Kind::Campaign).unwrap(), 4);
    assert!(progress.iter().any(|p| p.kind == Kind::AdOrder));
    assert!(progress.iter().any(|p| p.kind == Kind::FlightCaps));
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let spring = ws.get(&spring).unwrap().unwrap();
    assert_eq!(spring.working["flights"].as_array().unwrap().len(), 2);
    assert_eq!(spring.base.as_ref(), Some(&spring.working));
    assert!(ws.meta("last_pull_at").unwrap().is_some());

    let again = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert!(again.is_unchanged(), "{:?}", again.changes);
    assert_eq!(again.of(Kind::AdOrder).unchanged, 10);

    // A change made elsewhere (a second client) shows up as changed, and is taken.
    let other = server.demo().await;
    let orders = other.all_ad_orders().await.unwrap().entity;
    let mut order = orders
        .into_iter()
        .find(|o| o.name.as_deref() == Some("Bluebird - Display"))
        .unwrap();
    order.name = Some("Bluebird - Display (renamed)".into());
    #[allow(deprecated)]
    other.ad_order_save(&order).await.unwrap();
    let third = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let target = EntityRef::new(Kind::AdOrder, Key::Id(order.id.unwrap()));
    assert_eq!(third.changes.len(), 1, "{:?}", third.changes);
    assert_eq!(third.changes[0].target, target);
    assert_eq!(third.changes[0].change, ServerChangeKind::Changed);
    assert!(!third.changes[0].held_back);
    let stored = ws.get(&target).unwrap().unwrap();
    assert_eq!(stored.working["name"], "Bluebird - Display (renamed)");
}

#[tokio::test]
async fn a_refresh_never_overwrites_an_entity_with_pending_changes() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let target = by_name(&ws, Kind::AdOrder, "Northwind - Display");
    let mut mine: AdOrder = typed(ws.get(&target).unwrap().unwrap().working);
    mine.name = Some("Northwind - Display (mine)".into());
    ws.update_ad_order(&target, mine).unwrap();

    let mut theirs = client
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|o| Some(Key::Id(o.id.unwrap())) == Some(target.key.clone()))
        .unwrap();
    theirs.max_bid = Some(12.5);
    #[allow(deprecated)]
    client.ad_order_save(&theirs).await.unwrap();

    let report = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert_eq!(report.of(Kind::AdOrder).skipped_pending, 1);
    assert_eq!(report.skipped_pending().collect::<Vec<_>>(), vec![&target]);
    let stored = ws.get(&target).unwrap().unwrap();
    assert_eq!(stored.working["name"], "Northwind - Display (mine)");
    assert_eq!(stored.base.as_ref().unwrap()["max_bid"], 10.0);
    assert_eq!(stored.theirs.as_ref().unwrap()["max_bid"], 12.5);
    assert_eq!(
        ws.server_version(&target).unwrap().unwrap()["max_bid"],
        12.5
    );

    // Discarding the edit adopts the server version that was held back.
    let seq = ws.pending().unwrap()[0].seq;
    ws.discard(seq).unwrap();
    let stored = ws.get(&target).unwrap().unwrap();
    assert_eq!(stored.working["max_bid"], 12.5);
    assert_eq!(stored.base.as_ref(), Some(&stored.working));
    assert!(
        ws.pull(&client, PullScope::All, |_| {})
            .await
            .unwrap()
            .is_unchanged()
    );
}

#[tokio::test]
async fn per_advertiser_pull_takes_one_advertisers_tree() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let acme = client
        .advertisers(None)
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|a| a.name.as_deref() == Some("Acme Outdoor"))
        .unwrap()
        .id
        .unwrap();
    let report = ws
        .pull(&client, PullScope::Advertiser(acme), |_| {})
        .await
        .unwrap();
    assert_eq!(report.of(Kind::Advertiser).added, 1);
    assert_eq!(report.of(Kind::Campaign).added, 2);
    assert_eq!(report.of(Kind::AdOrder).added, 5);
    assert_eq!(ws.count(Kind::AdOrder).unwrap(), 5);
    // A full pull afterwards adds the rest and changes nothing of Acme's.
    let all = ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    assert_eq!(all.of(Kind::AdOrder).added, 5);
    assert_eq!(all.of(Kind::AdOrder).unchanged, 5);
    let again = ws
        .pull(&client, PullScope::Advertiser(acme), |_| {})
        .await
        .unwrap();
    assert!(again.is_unchanged());
    assert_eq!(ws.count(Kind::AdOrder).unwrap(), 10);
}

#[tokio::test]
async fn every_resource_takes_valid_and_invalid_edits() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");

    // Each case: (seq, expected invalid fields). The change must be stored either way.
    let mut cases: Vec<(i64, Vec<&str>)> = Vec::new();
    let seq_of = |ws: &Workspace, t: &EntityRef| {
        ws.pending()
            .unwrap()
            .into_iter()
            .filter(|c| &c.target == t)
            .map(|c| c.seq)
            .max()
            .unwrap()
    };

    let adv = ws
        .create_advertiser(typed(
            json!({"name": "New Co", "agencyId": 1, "currency": "USD", "category": "IAB3"}),
        ))
        .unwrap();
    cases.push((seq_of(&ws, &adv), vec![]));
    let bad = ws
        .create_advertiser(typed(
            json!({"agencyId": 1, "currency": "USD", "category": "IAB3"}),
        ))
        .unwrap();
    cases.push((seq_of(&ws, &bad), vec!["name"]));
    let mut acme_v: Advertiser = typed(ws.get(&acme).unwrap().unwrap().working);
    acme_v.name = Some(String::new());
    cases.push((ws.update_advertiser(&acme, acme_v).unwrap(), vec!["name"]));

    let campaign = json!({
        "name": "Autumn", "domain": "acme-outdoor.example", "maxBudget": 1000.0,
        "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB20"],
        "flights": [{"maxBudget": 1000.0, "startDate": NOW + DAY, "endDate": NOW + 30 * DAY}]
    });
    let autumn = ws.create_campaign(&acme, typed(campaign.clone())).unwrap();
    cases.push((seq_of(&ws, &autumn), vec![]));
    let mut bad_c = campaign.clone();
    bad_c["endDate"] = json!(NOW);
    let bad_c = ws.create_campaign(&acme, typed(bad_c)).unwrap();
    cases.push((seq_of(&ws, &bad_c), vec!["endDate"]));

    let order = json!({
        "name": "Autumn display", "optimizationGoal": "CPM", "startDate": NOW + DAY,
        "endDate": NOW + 30 * DAY, "lifetimeBudget": 500.0
    });
    let o = ws.create_ad_order(&spring, typed(order.clone())).unwrap();
    cases.push((seq_of(&ws, &o), vec![]));
    let mut bad_o = order.clone();
    bad_o["lifetimeBudget"] = Value::Null;
    let bad_o = ws.create_ad_order(&spring, typed(bad_o)).unwrap();
    cases.push((seq_of(&ws, &bad_o), vec!["lifetimeBudget"]));

    let first_order = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    let spring_v: Campaign = typed(ws.get(&spring).unwrap().unwrap().working);
    let flight = spring_v.flights.unwrap()[0].id.unwrap();
    let cap: FlightCap = typed(json!({"flightId": flight, "maxBudget": 100.0}));
    cases.push((ws.set_flight_caps(&first_order, vec![cap]).unwrap(), vec![]));
    let other_order = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let bad_cap: FlightCap = typed(json!({"flightId": 999_999, "maxBudget": 100.0}));
    cases.push((
        ws.set_flight_caps(&other_order, vec![bad_cap]).unwrap(),
        vec!["[0].flightId"],
    ));

    let banner = json!({
        "name": "Autumn banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
        "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
    });
    let cr = ws.create_creative(&acme, typed(banner.clone())).unwrap();
    cases.push((seq_of(&ws, &cr), vec![]));
    let mut bad_cr = banner.clone();
    bad_cr.as_object_mut().unwrap().remove("imageUrl");
    let bad_cr = ws.create_creative(&spring, typed(bad_cr)).unwrap();
    cases.push((seq_of(&ws, &bad_cr), vec!["imageUrl"]));

    let list = ws
        .create_site_list(typed(
            json!({"name": "Blocked", "typeId": 5, "siteIds": [1, 2, 3]}),
        ))
        .unwrap();
    cases.push((seq_of(&ws, &list), vec![]));
    cases.push((
        ws.append_sites(&list, typed(json!({"siteIds": [3, 4]})))
            .unwrap(),
        vec![],
    ));
    cases.push((
        ws.remove_sites(
            &list,
            SiteList {
                site_ids: Some(vec![1]),
                ..SiteList::default()
            },
        )
        .unwrap(),
        vec![],
    ));
    cases.push((
        ws.overwrite_sites(
            &list,
            typed(json!({"rules": [{"name": "a.example", "type": "web"}]})),
        )
        .unwrap(),
        vec!["rules"],
    ));
    let bad_list = ws
        .create_site_list(typed(json!({"name": "Odd", "typeId": 7, "siteIds": [1]})))
        .unwrap();
    cases.push((seq_of(&ws, &bad_list), vec!["typeId"]));

    let seg = ws
        .create_audience_segment(typed(json!({
            "name": "Buyers", "dataType": "email_sha256", "accountId": 1,
            "advertiserIds": [1], "externalAudienceId": "buyers-1"
        })))
        .unwrap();
    cases.push((seq_of(&ws, &seg), vec![]));
    let bad_seg = ws
        .create_audience_segment(typed(json!({
            "dataType": "email_sha256", "accountId": 1, "advertiserIds": [1],
            "externalAudienceId": "x"
        })))
        .unwrap();
    cases.push((seq_of(&ws, &bad_seg), vec!["name"]));
    // Records of a draft segment: their serviceSegmentId is filled in when it lands.
    let data = typed(json!([{"countryCode": "US", "values": ["a".repeat(64)]}]));
    cases.push((ws.upload_audience_data(&seg, data).unwrap(), vec![]));
    // Uploads that break the rules are refused, not kept: see real_service.rs.

    for (seq, fields) in &cases {
        let change = ws.change(*seq).unwrap().expect("stored");
        let got: Vec<&str> = change.errors.iter().map(|e| e.field.as_str()).collect();
        for f in fields {
            assert!(got.contains(f), "change {seq} ({:?}): {got:?}", change.op);
        }
        let want = if fields.is_empty() {
            ChangeStatus::Pending
        } else {
            ChangeStatus::Invalid
        };
        assert_eq!(change.status, want, "change {seq}: {:?}", change.errors);
    }

    // The workspace is a site list's record: its sites follow the operations.
    let working = ws.get(&list).unwrap().unwrap().working;
    assert_eq!(working["siteIds"], json!([2, 3, 4]));
    assert_eq!(working["name"], "Blocked");
    let ops: Vec<Op> = ws
        .pending()
        .unwrap()
        .into_iter()
        .filter(|c| c.target == list)
        .map(|c| c.op)
        .collect();
    assert_eq!(
        ops,
        [
            Op::Create,
            Op::SiteListAppend,
            Op::SiteListRemoveSites,
            Op::SiteListOverwrite
        ]
    );
    // check() agrees with the edit-time results.
    let broken: Vec<i64> = ws.check().unwrap().into_iter().map(|(s, _)| s).collect();
    let expected: Vec<i64> = cases
        .iter()
        .filter(|(_, f)| !f.is_empty())
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(broken, expected);

    // Landing the list keeps its sites: the answer carries `siteIds: null`.
    let create = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|c| c.target == list)
        .unwrap();
    let answer =
        json!({"id": 77, "name": "Blocked", "typeId": 5, "siteIds": null, "insertedCount": 3});
    ws.mark_applied(create.seq, &Key::Id(77), &answer).unwrap();
    let landed = ws
        .get(&EntityRef::new(Kind::SiteList, Key::Id(77)))
        .unwrap()
        .unwrap();
    assert_eq!(landed.base.unwrap()["siteIds"], json!([1, 2, 3]));
    assert_eq!(landed.working["siteIds"], json!([2, 3, 4]));
    let append = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|c| c.op == Op::SiteListAppend)
        .unwrap();
    assert_eq!(append.payload["id"], 77);
}

#[tokio::test]
async fn drafts_reference_drafts_and_land_with_remote_ids() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;

    let adv = ws
        .create_advertiser(typed(
            json!({"name": "Draft Co", "agencyId": 1, "currency": "USD", "category": "IAB3"}),
        ))
        .unwrap();
    let campaign = ws
        .create_campaign(
            &adv,
            typed(json!({
                "name": "Draft campaign", "domain": "draft.example", "maxBudget": 1000.0,
                "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB3"]
            })),
        )
        .unwrap();
    let order = ws
        .create_ad_order(
            &campaign,
            typed(json!({
                "name": "Draft order", "optimizationGoal": "CPM", "startDate": NOW + DAY,
                "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0
            })),
        )
        .unwrap();
    let pending = ws.pending().unwrap();
    let oc = pending.iter().find(|c| c.target == order).unwrap();
    assert_eq!(oc.status, ChangeStatus::Pending, "{:?}", oc.errors);
    assert_eq!(
        oc.parents,
        vec![ParentRef {
            pointer: "/campaignId".into(),
            target: campaign.clone()
        }]
    );
    assert_eq!(oc.payload["campaignId"], Value::Null);
    let cc = pending.iter().find(|c| c.target == campaign).unwrap();
    assert_eq!(cc.parents[0].target, adv);
    assert_eq!(
        ws.get(&order).unwrap().unwrap().parent.as_ref(),
        Some(&campaign)
    );

    // Editing the draft folds into its create and keeps the reference.
    let mut edited: AdOrder = typed(ws.get(&order).unwrap().unwrap().working);
    edited.name = Some("Draft order v2".into());
    let seq = ws.update_ad_order(&order, edited).unwrap();
    assert_eq!(seq, oc.seq);
    let oc = ws.change(seq).unwrap().unwrap();
    assert_eq!((oc.op, oc.parents.len()), (Op::Create, 1));
    assert_eq!(oc.payload["name"], "Draft order v2");

    // The executor lands the advertiser, then the campaign.
    ws.mark_sending(cc.seq - 1, None).unwrap();
    ws.mark_applied(
        cc.seq - 1,
        &Key::Id(500),
        &json!({"id": 500, "name": "Draft Co"}),
    )
    .unwrap();
    assert_eq!(ws.resolve_remote(&adv).unwrap(), Some(Key::Id(500)));
    let cc2 = ws.change(cc.seq).unwrap().unwrap();
    assert_eq!(cc2.payload["advertiserId"], 500);
    assert_eq!(
        cc2.parents[0].target,
        EntityRef::new(Kind::Advertiser, Key::Id(500))
    );
    ws.mark_sending(cc.seq, Some("ref-1")).unwrap();
    assert_eq!(status_of(&ws, cc.seq), ChangeStatus::Sending);
    ws.mark_applied(
        cc.seq,
        &Key::Id(900),
        &json!({"id": 900, "advertiserId": 500}),
    )
    .unwrap();
    let remote_campaign = EntityRef::new(Kind::Campaign, Key::Id(900));
    assert!(ws.get(&campaign).unwrap().is_none());
    assert_eq!(
        ws.get(&remote_campaign).unwrap().unwrap().working["id"],
        900
    );
    let oc = ws.change(seq).unwrap().unwrap();
    assert_eq!(oc.payload["campaignId"], 900);
    assert_eq!(oc.parents[0].target, remote_campaign);
    assert_eq!(ws.get(&order).unwrap().unwrap().working["campaignId"], 900);
    assert_eq!(
        ws.get(&order).unwrap().unwrap().parent,
        Some(remote_campaign)
    );
    assert_eq!(ws.pending().unwrap().len(), 1);
    ws.mark_failed(seq, &[]).unwrap();
    assert_eq!(status_of(&ws, seq), ChangeStatus::Failed);
}

#[tokio::test]
async fn diffs_list_exactly_the_changed_fields_and_discards_restore_the_base() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let target = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let base = ws.get(&target).unwrap().unwrap().working;
    let mut o: AdOrder = typed(base.clone());
    o.name = Some("Bluebird - Display v2".into());
    o.max_bid = Some(11.0);
    let seq = ws.update_ad_order(&target, o.clone()).unwrap();
    // A second edit folds into the same change; its base stays the server version.
    o.goal_mode = None;
    o.max_bid = Some(12.0);
    assert_eq!(ws.update_ad_order(&target, o).unwrap(), seq);
    let mut paths: Vec<String> = ws
        .pending_diff(seq)
        .unwrap()
        .into_iter()
        .map(|d| d.path)
        .collect();
    paths.sort();
    assert_eq!(paths, ["goalMode", "max_bid", "name"]);
    assert_eq!(ws.change(seq).unwrap().unwrap().base, Some(base.clone()));

    ws.discard(seq).unwrap();
    assert!(ws.pending().unwrap().is_empty());
    assert_eq!(ws.get(&target).unwrap().unwrap().working, base);

    // Editing back to the base leaves nothing to post.
    let mut o: AdOrder = typed(base.clone());
    o.name = Some("temp".into());
    ws.update_ad_order(&target, o).unwrap();
    ws.update_ad_order(&target, typed(base)).unwrap();
    assert!(ws.pending().unwrap().is_empty());
}

#[tokio::test]
async fn discarding_a_draft_takes_its_dependents() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let c = ws
        .create_campaign(
            &acme,
            typed(json!({"name": "C", "domain": "c.example", "maxBudget": 10.0,
                         "startDate": NOW + DAY, "endDate": NOW + 2 * DAY, "iabCategory": ["IAB3"]})),
        )
        .unwrap();
    let o = ws
        .create_ad_order(&c, typed(json!({"name": "O", "optimizationGoal": "CPM"})))
        .unwrap();
    ws.set_flight_caps(&o, vec![typed(json!({"flightId": 1, "maxBudget": 5.0}))])
        .unwrap();
    let cr = ws
        .create_creative(&c, typed(json!({"name": "Cr", "creativeType": "BANNER"})))
        .unwrap();
    let unrelated = by_name(&ws, Kind::AdOrder, "Northwind - Audio");
    let mut u: AdOrder = typed(ws.get(&unrelated).unwrap().unwrap().working);
    u.name = Some("changed".into());
    let keep = ws.update_ad_order(&unrelated, u.clone()).unwrap();
    let other = by_name(&ws, Kind::AdOrder, "Northwind - Display");
    let mut v: AdOrder = typed(ws.get(&other).unwrap().unwrap().working);
    v.name = Some("changed too".into());
    let also = ws.update_ad_order(&other, v).unwrap();
    assert_eq!(ws.pending().unwrap().len(), 6);

    let create_c = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|p| p.target == c)
        .unwrap()
        .seq;
    let gone = ws.discard_many(&[create_c, also]).unwrap();
    assert_eq!(gone.len(), 5, "{gone:?}");
    let left: Vec<i64> = ws.pending().unwrap().into_iter().map(|p| p.seq).collect();
    assert_eq!(left, [keep]);
    for t in [&c, &o, &cr] {
        assert!(ws.get(t).unwrap().is_none(), "{t:?} should be gone");
    }
    assert!(
        ws.get(&EntityRef::new(Kind::FlightCaps, o.key.clone()))
            .unwrap()
            .is_none()
    );
    assert_eq!(
        ws.get(&other).unwrap().unwrap().working["name"],
        "Northwind - Display"
    );
    assert_eq!(
        ws.get(&unrelated).unwrap().unwrap().working["name"],
        "changed"
    );
    assert!(ws.discard(999_999).is_err());
}

#[tokio::test]
async fn check_revalidates_against_the_current_workspace() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let order = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    let mut campaign: Campaign = typed(ws.get(&spring).unwrap().unwrap().working);
    let flights = campaign.flights.clone().unwrap();
    let second = flights[1].id.unwrap();
    let seq = ws
        .set_flight_caps(
            &order,
            vec![typed(json!({"flightId": second, "maxBudget": 50.0}))],
        )
        .unwrap();
    assert!(ws.check().unwrap().is_empty());

    // The buyer's working campaign no longer has that flight: the cap now points nowhere.
    campaign.flights = Some(vec![flights[0].clone()]);
    ws.update_campaign(&spring, campaign).unwrap();
    let broken = ws.check().unwrap();
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].0, seq);
    assert_eq!(broken[0].1[0].field, "[0].flightId");
    assert_eq!(status_of(&ws, seq), ChangeStatus::Invalid);
}

#[tokio::test]
async fn everything_survives_reopening_the_file() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let c = ws
        .create_campaign(
            &acme,
            typed(json!({"name": "Kept", "domain": "k.example", "maxBudget": 10.0,
                         "startDate": NOW + DAY, "endDate": NOW + 2 * DAY, "iabCategory": ["IAB3"]})),
        )
        .unwrap();
    let pending = ws.pending().unwrap();
    let entities = ws.list(Kind::AdOrder).unwrap();
    drop(ws);

    let ws = open(&file(&dir));
    assert_eq!(ws.pending().unwrap(), pending);
    assert_eq!(ws.list(Kind::AdOrder).unwrap(), entities);
    assert_eq!(ws.get(&c).unwrap().unwrap().working["name"], "Kept");
}

#[test]
fn the_outbox_row_and_the_working_copy_are_written_together() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let mut ws = open(&path);
    let advertiser: Advertiser =
        typed(json!({"name": "A", "agencyId": 1, "currency": "USD", "category": "IAB3"}));
    let a = ws.create_advertiser(advertiser.clone()).unwrap();
    assert!(ws.get(&a).unwrap().unwrap().pending);
    assert_eq!(ws.pending().unwrap().len(), 1);

    // Make the second write of an edit (the outbox row) fail: the first must not stay.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
    )
    .unwrap();
    assert!(ws.create_advertiser(advertiser.clone()).is_err());
    assert_eq!(ws.count(Kind::Advertiser).unwrap(), 1);
    let mut b = ws.batch().unwrap();
    assert!(b.create_advertiser(advertiser.clone()).is_err());
    drop(b);
    assert_eq!(ws.count(Kind::Advertiser).unwrap(), 1);
    raw.execute_batch("DROP TRIGGER fail_outbox;").unwrap();

    // A batch commits all or nothing.
    let mut b = ws.batch().unwrap();
    b.create_advertiser(advertiser.clone()).unwrap();
    b.create_advertiser(advertiser).unwrap();
    drop(b);
    assert_eq!(ws.count(Kind::Advertiser).unwrap(), 1);
    assert_eq!(ws.pending().unwrap().len(), 1);
}

#[test]
fn conflicts_are_kept_with_the_conflict_status_and_go_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let mut ws = open(&path);
    let advertiser: Advertiser =
        typed(json!({"name": "A", "agencyId": 1, "currency": "USD", "category": "IAB3"}));
    ws.create_advertiser(advertiser).unwrap();
    let seq = ws.pending().unwrap()[0].seq;
    assert!(ws.conflicts(seq).unwrap().is_empty());
    assert!(ws.conflicts(999_999).is_err());

    let fields = vec![FieldConflict {
        path: "name".into(),
        base: Some(json!("A")),
        mine: Some(json!("Mine")),
        theirs: None,
    }];
    ws.mark_conflict(seq, &fields, &[]).unwrap();
    assert_eq!(status_of(&ws, seq), ChangeStatus::Conflict);
    drop(ws);
    let mut ws = open(&path);
    assert_eq!(ws.conflicts(seq).unwrap(), fields);
    // A conflict without its fields would leave the buyer nothing to settle it with.
    assert!(ws.mark_status(seq, ChangeStatus::Conflict, &[]).is_err());

    ws.mark_status(seq, ChangeStatus::Pending, &[]).unwrap();
    assert!(ws.conflicts(seq).unwrap().is_empty());
    ws.mark_conflict(seq, &fields, &[]).unwrap();
    ws.mark_applied(seq, &Key::Id(5), &json!({"id": 5, "name": "A"}))
        .unwrap();
    assert!(ws.conflicts(seq).unwrap().is_empty());
}

#[tokio::test]
async fn markers_name_the_most_urgent_state_of_each_pending_row() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let order = |ws: &Workspace, name: &str| by_name(ws, Kind::AdOrder, name);
    let edit = |ws: &mut Workspace, target: &EntityRef, name: &str| {
        let mut o: AdOrder = typed(ws.get(target).unwrap().unwrap().working);
        o.name = Some(name.into());
        ws.update_ad_order(target, o).unwrap()
    };

    let changed = order(&ws, "Bluebird - Display");
    edit(&mut ws, &changed, "Bluebird - Display (edited)");
    let invalid = order(&ws, "Northwind - Display");
    edit(&mut ws, &invalid, "");
    let failed = order(&ws, "Bluebird - Morning Commute");
    let failed_seq = edit(&mut ws, &failed, "Refused");
    ws.mark_failed(failed_seq, &[]).unwrap();
    // In conflict, then edited again into something invalid: the conflict comes first.
    let conflict = order(&ws, "Acme Always-On - Display");
    let conflict_seq = edit(&mut ws, &conflict, "Mine");
    let fields = vec![FieldConflict {
        path: "name".into(),
        base: Some(json!("Acme Always-On - Display")),
        mine: Some(json!("Mine")),
        theirs: Some(json!("Theirs")),
    }];
    ws.mark_conflict(conflict_seq, &fields, &[]).unwrap();
    edit(&mut ws, &conflict, "");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let draft = ws
        .create_ad_order(
            &spring,
            typed(json!({
                "name": "Draft order", "optimizationGoal": "CPM", "startDate": NOW + DAY,
                "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0
            })),
        )
        .unwrap();
    // A refused draft shows as refused, not as new.
    let refused_draft = ws
        .create_ad_order(
            &spring,
            typed(json!({
                "name": "Refused draft", "optimizationGoal": "CPM", "startDate": NOW + DAY,
                "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0
            })),
        )
        .unwrap();
    let refused_seq = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|c| c.target == refused_draft)
        .unwrap()
        .seq;
    ws.mark_status(refused_seq, ChangeStatus::NeedsReview, &[])
        .unwrap();

    let expected: HashMap<EntityRef, Marker> = [
        (changed, Marker::Changed),
        (invalid, Marker::Invalid),
        (failed.clone(), Marker::Failed),
        (conflict, Marker::Conflict),
        (draft, Marker::New),
        (refused_draft, Marker::Failed),
    ]
    .into_iter()
    .collect();
    assert_eq!(ws.markers(Kind::AdOrder).unwrap(), expected);
    assert!(ws.markers(Kind::Campaign).unwrap().is_empty());
    // The status bar's count: every change not applied, whatever its state.
    assert_eq!(ws.pending_count().unwrap(), ws.pending().unwrap().len());
    // Six rows; the order in conflict carries a second change (its later edit).
    assert_eq!(ws.pending_count().unwrap(), 7);

    let bad_draft = ws
        .create_advertiser(typed(json!({"agencyId": 1, "currency": "USD"})))
        .unwrap();
    let good_draft = ws
        .create_advertiser(typed(
            json!({"name": "N", "agencyId": 1, "currency": "USD", "category": "IAB3"}),
        ))
        .unwrap();
    let advertisers = ws.markers(Kind::Advertiser).unwrap();
    assert_eq!(advertisers.len(), 2);
    assert_eq!(advertisers[&bad_draft], Marker::Invalid);
    assert_eq!(advertisers[&good_draft], Marker::New);
    // The UI gets snake_case names.
    assert_eq!(serde_json::to_value(Marker::Conflict).unwrap(), "conflict");

    // Applied changes mark nothing.
    ws.mark_applied(
        failed_seq,
        &failed.key,
        &json!({"id": 1, "name": "Refused"}),
    )
    .unwrap();
    assert!(!ws.markers(Kind::AdOrder).unwrap().contains_key(&failed));
}

/// An ad order updated to `mine` and held in conflict against `theirs`, as the executor
/// records it; returns the change's seq.
fn in_conflict(ws: &mut Workspace, target: &EntityRef, mine: Value, theirs: &Value) -> i64 {
    let base = ws.get(target).unwrap().unwrap().base.unwrap();
    let seq = ws.update_ad_order(target, typed(mine)).unwrap();
    let payload = ws.change(seq).unwrap().unwrap().payload;
    let conflicts = merge::three_way(&base, &payload, theirs).conflicts;
    assert!(!conflicts.is_empty());
    ws.mark_conflict_against(seq, theirs, &conflicts, &[])
        .unwrap();
    assert_eq!(status_of(ws, seq), ChangeStatus::Conflict);
    seq
}

#[tokio::test]
async fn a_resolution_that_breaks_a_rule_is_invalid_and_is_not_posted() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let target = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let base = ws.get(&target).unwrap().unwrap().working;
    // The buyer paces evenly with a frontload; the server set another frontload.
    let mut mine = base.clone();
    mine["hourlyPacingMode"] = json!("SPEND_EVENLY");
    mine["hourlyFrontload"] = json!(60.0);
    let mut theirs = base.clone();
    theirs["hourlyFrontload"] = json!(30.0);
    let seq = in_conflict(&mut ws, &target, mine, &theirs);
    assert_eq!(
        ws.conflicts(seq)
            .unwrap()
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>(),
        vec!["hourlyFrontload"]
    );

    // Back to no frontload, while pacing evenly: not valid.
    ws.resolve_conflict(seq, &[("hourlyFrontload".into(), Pick::Base)])
        .unwrap();
    let change = ws.change(seq).unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Invalid);
    assert!(
        change.errors.iter().any(|e| e.field == "hourlyFrontload"),
        "{:?}",
        change.errors
    );
    assert_eq!(change.base.as_ref(), Some(&theirs));
    assert_eq!(ws.markers(Kind::AdOrder).unwrap()[&target], Marker::Invalid);
    // The buyer fixes it like any invalid edit.
    let mut fixed = ws.get(&target).unwrap().unwrap().working;
    assert_eq!(fixed["hourlyPacingMode"], "SPEND_EVENLY");
    fixed["hourlyFrontload"] = json!(45.0);
    assert_eq!(ws.update_ad_order(&target, typed(fixed)).unwrap(), seq);
    assert_eq!(status_of(&ws, seq), ChangeStatus::Pending);
}

#[tokio::test]
async fn resolving_keeps_later_edits_and_all_theirs_leaves_nothing_to_post() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let target = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let base = ws.get(&target).unwrap().unwrap().working;
    let mut mine = base.clone();
    mine["name"] = json!("Mine");
    let mut theirs = base.clone();
    theirs["name"] = json!("Theirs");
    theirs["max_bid"] = json!(3.0);
    let seq = in_conflict(&mut ws, &target, mine, &theirs);
    // Edited again while in conflict: a second change, waiting behind the first.
    let mut later = ws.get(&target).unwrap().unwrap().working;
    later["goalMode"] = json!("SPEND");
    let later_seq = ws.update_ad_order(&target, typed(later)).unwrap();
    assert_ne!(later_seq, seq);

    ws.resolve_conflict(seq, &[("name".into(), Pick::Theirs)])
        .unwrap();
    // The resolved change stays ahead of the later edit, which keeps its own edit on top
    // of the resolution and the server's other changes.
    assert_eq!(status_of(&ws, seq), ChangeStatus::Pending);
    let later = ws.change(later_seq).unwrap().unwrap();
    assert_eq!(later.payload["name"], "Theirs");
    assert_eq!(later.payload["max_bid"], 3.0);
    assert_eq!(later.payload["goalMode"], "SPEND");
    let working = ws.get(&target).unwrap().unwrap().working;
    assert_eq!(working, later.payload);

    // Without later edits, an all-theirs resolution removes the change.
    ws.discard(later_seq).unwrap();
    let other = by_name(&ws, Kind::AdOrder, "Northwind - Display");
    let base = ws.get(&other).unwrap().unwrap().working;
    let mut mine = base.clone();
    mine["name"] = json!("Mine");
    let mut theirs = base.clone();
    theirs["name"] = json!("Theirs");
    let seq = in_conflict(&mut ws, &other, mine, &theirs);
    ws.resolve_conflict(seq, &[("name".into(), Pick::Theirs)])
        .unwrap();
    assert!(ws.change(seq).unwrap().is_none());
    let entity = ws.get(&other).unwrap().unwrap();
    assert_eq!(entity.working["name"], "Theirs");
    assert!(!entity.pending);
    assert!(!ws.markers(Kind::AdOrder).unwrap().contains_key(&other));
}

#[tokio::test]
async fn list_as_gives_typed_working_copies_filtered_by_parent() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, _client) = pulled(&server, &dir).await;
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let order = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    let mut edited: AdOrder = typed(ws.get(&order).unwrap().unwrap().working);
    edited.name = Some("Acme Spring - Video (edited)".into());
    ws.update_ad_order(&order, edited).unwrap();

    let all = ws.list_as::<AdOrder>(Kind::AdOrder, None).unwrap();
    assert_eq!(all.len(), ws.list(Kind::AdOrder).unwrap().len());
    let spring_orders = ws.list_as::<AdOrder>(Kind::AdOrder, Some(&spring)).unwrap();
    assert!(!spring_orders.is_empty());
    assert!(
        spring_orders.len() < all.len(),
        "only the campaign's orders"
    );
    assert!(
        spring_orders
            .iter()
            .all(|o| o.parent.as_ref() == Some(&spring))
    );
    let mine = spring_orders.iter().find(|o| o.target == order).unwrap();
    assert_eq!(
        mine.value.name.as_deref(),
        Some("Acme Spring - Video (edited)")
    );
    assert!(mine.pending);
    assert_eq!(
        spring_orders.iter().filter(|o| o.pending).count(),
        1,
        "only the edited order is pending"
    );
}

/// A kind has one name everywhere: the one stored and sent to the UI (serde's), which a
/// person may also type as its label, plural or without separators.
#[test]
fn every_kind_reads_back_from_its_one_name_and_what_a_person_types() {
    for kind in Kind::ALL {
        assert_eq!(serde_json::to_value(kind).expect("kind"), kind.name());
        assert_eq!(Kind::from_name(kind.name()), Some(kind));
        assert_eq!(Kind::parse(kind.label()), Some(kind), "{kind:?}");
        assert_eq!(Kind::parse(&kind.plural().to_uppercase()), Some(kind));
    }
    assert_eq!(Kind::parse("adorder"), Some(Kind::AdOrder));
    assert_eq!(Kind::parse("Site-list"), Some(Kind::SiteList));
    assert_eq!(Kind::from_name("adorder"), None);
    assert_eq!(Kind::parse("order"), None);
    assert!(!Kind::Creative.has_update() && !Kind::AudienceSegment.has_update());
    assert!(Kind::AdOrder.has_update());
    let tables: Vec<Kind> = Kind::tables().collect();
    assert_eq!(tables.len(), 6);
    assert!(!tables.contains(&Kind::Flight) && !tables.contains(&Kind::FlightCaps));
}
