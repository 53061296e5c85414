//! What issue 9 asks of the workspace and the sync engine so that Flightdeck works
//! against the real service, not only the sandbox: edits the service would ignore are
//! refused when made, posted creatives and segments are read-only (duplicate instead),
//! one client id per body, caps on new flights in one push, audience uploads in the
//! documented shape with their counts kept, site lists as their only record.
//!
//! Real SQLite files and the in-process sandbox over real HTTP; wire bodies are read by a
//! recording front of the sandbox, exactly as the client sent them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{DAY, NOW, Server, bodies, by_name, file, open, status_of, typed};
use flightdeck_client::Client;
use flightdeck_client::retry::RetryPolicy;
use flightdeck_model::validate::{self, codes};
use flightdeck_model::{
    AdOrder, Advertiser, AudienceSegment, Campaign, Creative, FlightCap, SiteList,
};
use flightdeck_offline::Error;
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::sync::{self, PushOptions, PushReport};
use flightdeck_offline::workspace::{PullScope, Workspace, read_only_reason};
use serde_json::{Value, json};

fn options() -> PushOptions {
    PushOptions {
        concurrency: 4,
        retry: RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(20),
        },
        only: None,
        // No late commits here: a short grace keeps restarts quick.
        lookup_grace: Some(Duration::from_millis(300)),
    }
}

async fn push(ws: &mut Workspace, client: &Client) -> PushReport {
    sync::push(ws, client, &options(), |_| {})
        .await
        .expect("push")
}

async fn pulled_with(client: &Client, dir: &tempfile::TempDir) -> Workspace {
    let mut ws = open(&file(dir));
    ws.pull(client, PullScope::All, |_| {}).await.expect("pull");
    ws
}

/// How many rows of a sandbox table carry this name.
fn count(server: &Server, table: &str, name: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table} WHERE json_extract(body, '$.name') = ?1");
    let name = name.to_owned();
    server
        .sandbox
        .state()
        .db
        .blocking(move |c| Ok(c.query_row(&sql, [name], |r| r.get(0))?))
        .unwrap()
}

fn refused(result: flightdeck_offline::Result<i64>) -> Vec<(String, String, String)> {
    match result {
        Err(Error::Refused(errors)) => errors
            .0
            .into_iter()
            .map(|e| (e.field, e.code, e.message))
            .collect(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn remote_id(ws: &Workspace, target: &EntityRef) -> i64 {
    match ws.resolve_remote(target).unwrap() {
        Some(Key::Id(id)) => id,
        other => panic!("{target:?} has not landed: {other:?}"),
    }
}

fn banner(name: &str) -> Value {
    json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
        "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
    })
}

fn segment(name: &str, external: &str) -> AudienceSegment {
    typed(json!({
        "name": name, "dataType": "email_sha256", "accountId": 1,
        "advertiserIds": [1], "externalAudienceId": external
    }))
}

fn hashes(n: usize, salt: &str) -> Vec<String> {
    (0..n)
        .map(|i| format!("{:0>64}", format!("{salt}{i:x}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_to_fields_the_service_ignores_on_update_are_refused_and_nothing_is_saved() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;

    let order = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let before = ws.get(&order).unwrap().unwrap().working;
    let mut edited: AdOrder = typed(before.clone());
    edited.lifetime_budget = Some(edited.lifetime_budget.unwrap_or(0.0) + 1000.0);
    edited.end_date = Some(edited.end_date.unwrap_or(NOW) + DAY);
    let errors = refused(ws.update_ad_order(&order, edited));
    let fields: Vec<&str> = errors.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(fields, ["lifetimeBudget", "endDate"]);
    assert!(errors.iter().all(|e| e.1 == codes::IGNORED_ON_UPDATE));
    assert!(errors[0].2.contains("flight"), "{}", errors[0].2);
    // Nothing saved: no change, the working copy as it was.
    assert!(ws.pending().unwrap().is_empty());
    assert_eq!(ws.get(&order).unwrap().unwrap().working, before);

    // The same value written differently (5 and 5.0) is no change; other fields save.
    let mut renamed: AdOrder = typed(before.clone());
    renamed.name = Some("Bluebird - Display (renamed)".into());
    renamed.lifetime_budget = renamed.lifetime_budget.map(|b| b + 0.0);
    ws.update_ad_order(&order, renamed).unwrap();
    assert_eq!(ws.pending().unwrap().len(), 1);

    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let acme_v = ws.get(&acme).unwrap().unwrap().working;
    for (field, value) in [
        ("currency", json!("EUR")),
        ("timezoneName", json!("PT")),
        ("agencyId", json!(999)),
    ] {
        let mut a = acme_v.clone();
        a[field] = value;
        let errors = refused(ws.update_advertiser(&acme, typed(a)));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, field);
    }
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let mut moved = ws.get(&spring).unwrap().unwrap().working;
    moved["advertiserId"] = json!(remote_id(
        &ws,
        &by_name(&ws, Kind::Advertiser, "Bluebird Coffee")
    ));
    let errors = refused(ws.update_campaign(&spring, typed(moved)));
    assert_eq!(errors[0].0, "advertiserId");
    // Inside a batch, the refused edit is left out and the rest commits.
    {
        let mut batch = ws.batch().unwrap();
        let mut a = acme_v.clone();
        a["name"] = json!("Acme Outdoor Co");
        batch.update_advertiser(&acme, typed(a.clone())).unwrap();
        a["currency"] = json!("EUR");
        assert!(matches!(
            batch.update_advertiser(&acme, typed(a)),
            Err(Error::Refused(_))
        ));
        batch.commit().unwrap();
    }
    let kept = ws.get(&acme).unwrap().unwrap().working;
    assert_eq!(
        (kept["name"].as_str(), kept["currency"].as_str()),
        (Some("Acme Outdoor Co"), Some("USD"))
    );
    assert_eq!(ws.pending().unwrap().len(), 2);

    // A draft sets anything: the service has not seen it.
    let draft = ws
        .create_ad_order(
            &spring,
            typed(
                json!({"name": "Draft", "optimizationGoal": "CPM", "startDate": NOW + DAY,
                         "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0}),
            ),
        )
        .unwrap();
    let mut d: AdOrder = typed(ws.get(&draft).unwrap().unwrap().working);
    d.lifetime_budget = Some(250.0);
    ws.update_ad_order(&draft, d).unwrap();
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    let landed = client.all_ad_orders().await.unwrap().entity;
    let landed = landed
        .iter()
        .find(|o| o.name.as_deref() == Some("Draft"))
        .unwrap();
    assert_eq!(landed.lifetime_budget, Some(250.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_modify_write_of_a_listed_order_and_campaign_sends_one_identifier() {
    let server = Server::start().await;
    let (client, log) = server.recording().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    // A campaign and an order the buyer identified, posted and listed back (the service
    // returns the id in both spellings).
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let camp = ws
        .create_campaign(
            &acme,
            typed(
                json!({"name": "Ids", "domain": "acme.example", "maxBudget": 1000.0,
                         "startDate": NOW + DAY, "endDate": NOW + 30 * DAY,
                         "iabCategory": ["IAB3"], "ioNumber": "CAMP-7"}),
            ),
        )
        .unwrap();
    ws.create_ad_order(
        &camp,
        typed(
            json!({"name": "Ids order", "optimizationGoal": "CPM", "startDate": NOW + DAY,
                     "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0,
                     "externalAdOrderId": "ORD-7"}),
        ),
    )
    .unwrap();
    assert!(push(&mut ws, &client).await.is_complete());
    ws.pull(&client, PullScope::All, |_| {}).await.unwrap();
    let camp = by_name(&ws, Kind::Campaign, "Ids");
    let order = by_name(&ws, Kind::AdOrder, "Ids order");
    let listed_order = ws.get(&order).unwrap().unwrap().working;
    assert_eq!(listed_order["io_number"], "ORD-7", "{listed_order}");
    assert_eq!(listed_order["externalAdOrderId"], "ORD-7");
    let listed_camp = ws.get(&camp).unwrap().unwrap().working;
    assert_eq!(listed_camp["externalCampaignId"], "CAMP-7", "{listed_camp}");

    log.lock().unwrap().clear();
    let mut o: AdOrder = typed(listed_order);
    o.name = Some("Ids order (renamed)".into());
    ws.update_ad_order(&order, o).unwrap();
    let mut c: Campaign = typed(listed_camp);
    c.name = Some("Ids (renamed)".into());
    ws.update_campaign(&camp, c).unwrap();
    // What each change will send, before it is sent.
    for change in ws.pending().unwrap() {
        let body =
            sync::wire_body(change.target.kind, &change.payload, change.base.as_ref()).unwrap();
        let ids: Vec<&str> = [
            "ioNumber",
            "io_number",
            "externalAdOrderId",
            "externalCampaignId",
        ]
        .into_iter()
        .filter(|k| body.get(*k).is_some())
        .collect();
        assert_eq!(ids.len(), 1, "{:?}: {body}", change.target);
    }
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");

    let sent = bodies(&log, "POST /v1/adorder/save");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["externalAdOrderId"], "ORD-7");
    assert_eq!(sent[0]["name"], "Ids order (renamed)");
    assert!(
        sent[0].get("ioNumber").is_none() && sent[0].get("io_number").is_none(),
        "{}",
        sent[0]
    );
    let sent = bodies(&log, "POST /v1/campaign/save");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["externalCampaignId"], "CAMP-7");
    assert!(sent[0].get("ioNumber").is_none(), "{}", sent[0]);
    // Applied by the service, which refuses both identifiers.
    assert_eq!(count(&server, "ad_orders", "Ids order (renamed)"), 1);
    assert_eq!(count(&server, "campaigns", "Ids (renamed)"), 1);
}

#[test]
fn the_wire_body_keeps_the_identifier_the_buyer_changed() {
    let listed = json!({"id": 3, "name": "o", "io_number": "IO-1", "externalAdOrderId": "IO-1"});
    let mut edited = listed.clone();
    edited["ioNumber"] = json!("IO-2");
    let body = sync::wire_body(Kind::AdOrder, &edited, Some(&listed)).unwrap();
    assert_eq!(body, json!({"id": 3, "name": "o", "ioNumber": "IO-2"}));
    let body = sync::wire_body(Kind::AdOrder, &listed, Some(&listed)).unwrap();
    assert_eq!(
        body,
        json!({"id": 3, "name": "o", "externalAdOrderId": "IO-1"})
    );
    // Other kinds go as they are.
    let creative = json!({"name": "c", "externalCreativeid": "X"});
    assert_eq!(
        sync::wire_body(Kind::Creative, &creative, None).unwrap(),
        creative
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posted_creatives_and_segments_are_read_only_and_duplicate_as_new_posts_a_second() {
    let server = Server::start().await;
    let (client, log) = server.recording().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");

    let draft = ws
        .create_creative(&acme, typed(banner("Spring banner")))
        .unwrap();
    assert_eq!(read_only_reason(&draft), None);
    // A draft is editable: the edit folds into its create.
    let mut edited = banner("Spring banner");
    edited["landingPageUrl"] = json!("https://acme-outdoor.example/spring");
    ws.update_creative(&draft, typed(edited)).unwrap();
    let seg = ws
        .create_audience_segment(segment("Hikers", "hikers-1"))
        .unwrap();
    let mut s = segment("Hikers", "hikers-1");
    s.description = Some("People who hike".into());
    ws.update_audience_segment(&seg, s).unwrap();
    assert_eq!(
        ws.pending().unwrap().len(),
        2,
        "edits of drafts fold into their creates"
    );
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");

    let creative = EntityRef::new(Kind::Creative, Key::Id(remote_id(&ws, &draft)));
    let Some(Key::Segment(seg_id)) = ws.resolve_remote(&seg).unwrap() else {
        panic!("segment not landed")
    };
    let posted_seg = EntityRef::new(Kind::AudienceSegment, Key::Segment(seg_id.clone()));
    assert_eq!(
        read_only_reason(&creative),
        Some(validate::NO_UPDATE_ENDPOINT)
    );
    assert_eq!(
        read_only_reason(&posted_seg),
        Some(validate::NO_UPDATE_ENDPOINT)
    );

    let working = ws.get(&creative).unwrap().unwrap().working;
    assert_eq!(
        working["landingPageUrl"],
        "https://acme-outdoor.example/spring"
    );
    let mut c: Creative = typed(working.clone());
    c.name = Some("Spring banner v2".into());
    let errors = refused(ws.update_creative(&creative, c));
    assert_eq!(
        errors,
        [(
            "id".into(),
            codes::IGNORED_ON_UPDATE.into(),
            validate::NO_UPDATE_ENDPOINT.into()
        )]
    );
    let seg_working = ws.get(&posted_seg).unwrap().unwrap().working;
    let mut s: AudienceSegment = typed(seg_working.clone());
    s.name = Some("Hikers v2".into());
    let errors = refused(ws.update_audience_segment(&posted_seg, s));
    assert_eq!(errors[0].0, "serviceSegmentId");
    assert!(ws.pending().unwrap().is_empty(), "nothing saved");
    assert_eq!(ws.get(&creative).unwrap().unwrap().working, working);
    assert_eq!(ws.get(&posted_seg).unwrap().unwrap().working, seg_working);
    // A posted segment still takes data.
    let upload = ws
        .upload_audience_data(
            &posted_seg,
            typed(json!([{"countryCode": "US", "values": hashes(3, "a")}])),
        )
        .unwrap();

    // Duplicate as new: drafts without what the service assigned, then posted.
    let copy = ws.duplicate_as_new(&creative).unwrap();
    assert!(copy.key.is_local());
    let copy_v = ws.get(&copy).unwrap().unwrap();
    assert_eq!(copy_v.working["name"], "Spring banner (copy)");
    assert!(copy_v.working.get("id").is_none() && copy_v.working.get("status").is_none());
    assert!(
        copy_v.working.get("externalCreativeid").is_none(),
        "the generated reference of the original is not reused: {}",
        copy_v.working
    );
    assert_eq!(copy_v.parent, Some(acme.clone()));
    let seg_copy = ws.duplicate_as_new(&posted_seg).unwrap();
    let seg_copy_v = ws.get(&seg_copy).unwrap().unwrap().working;
    assert_eq!(seg_copy_v["name"], "Hikers (copy)");
    assert_eq!(seg_copy_v["externalAudienceId"], "hikers-1-copy");
    for gone in ["serviceSegmentId", "status", "dataCount"] {
        assert!(seg_copy_v.get(gone).is_none(), "{gone}: {seg_copy_v}");
    }
    // A copy of a copy of the id gets its own suffix.
    let again = ws.duplicate_as_new(&posted_seg).unwrap();
    assert_eq!(
        ws.get(&again).unwrap().unwrap().working["externalAudienceId"],
        "hikers-1-copy-2"
    );
    ws.discard(ws.pending().unwrap().last().unwrap().seq)
        .unwrap();

    log.lock().unwrap().clear();
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(status_of(&ws, upload), ChangeStatus::Applied);
    let saves = bodies(&log, "POST /v1/creative/save");
    assert_eq!(saves.len(), 1, "only the copy is posted: {saves:?}");
    assert!(saves[0].get("id").is_none(), "{}", saves[0]);
    assert_eq!(count(&server, "creatives", "Spring banner"), 1);
    assert_eq!(count(&server, "creatives", "Spring banner (copy)"), 1);
    assert_eq!(count(&server, "segments", "Hikers"), 1);
    assert_eq!(count(&server, "segments", "Hikers (copy)"), 1);
    assert_eq!(bodies(&log, "POST /v1/audiences").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_on_a_new_flight_of_a_draft_campaign_lands_in_one_push() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let flights = json!([
        {"maxBudget": 600.0, "startDate": NOW + DAY, "endDate": NOW + 10 * DAY},
        {"maxBudget": 400.0, "startDate": NOW + 10 * DAY, "endDate": NOW + 30 * DAY}
    ]);
    let camp = ws
        .create_campaign(
            &acme,
            typed(json!({"name": "Flights draft", "domain": "acme.example",
                         "iabCategory": ["IAB3"], "flights": flights})),
        )
        .unwrap();
    let order = ws
        .create_ad_order(
            &camp,
            typed(json!({"name": "Flights order", "optimizationGoal": "CPM",
                         "startDate": NOW + DAY, "endDate": NOW + 30 * DAY,
                         "lifetimeBudget": 100.0})),
        )
        .unwrap();
    let new_flights = ws.flights_of(&camp).unwrap();
    assert_eq!(new_flights.len(), 2);
    assert!(new_flights.iter().all(|(f, _)| f.key.is_local()));
    let second = new_flights[1].0.clone();
    assert_eq!(second, EntityRef::draft_flight(&camp, NOW + 10 * DAY));
    let cap: FlightCap = typed(json!({"maxBudget": 50.0}));
    let caps_seq = ws
        .set_flight_caps_for(&order, vec![(cap, second.clone())])
        .unwrap();
    let change = ws.change(caps_seq).unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Pending, "{:?}", change.errors);
    // The plan posts the cap after the campaign that gives its flight an id.
    let plan = flightdeck_offline::plan::plan(&ws.pending().unwrap());
    let camp_seq = ws
        .pending()
        .unwrap()
        .iter()
        .find(|c| c.target == camp)
        .unwrap()
        .seq;
    let step = plan.steps.iter().find(|s| s.seq == caps_seq).unwrap();
    assert!(step.after.contains(&camp_seq), "{plan:?}");

    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    assert!(ws.pending().unwrap().is_empty());
    let camp_id = remote_id(&ws, &camp);
    let order_id = remote_id(&ws, &order);
    let landed = client
        .campaigns_by_advertiser(remote_id(&ws, &acme))
        .await
        .unwrap()
        .entity;
    let landed = landed.iter().find(|c| c.id == Some(camp_id)).unwrap();
    let flight_id = landed
        .flights
        .as_ref()
        .unwrap()
        .iter()
        .find(|f| f.start_date == Some(NOW + 10 * DAY))
        .and_then(|f| f.id)
        .unwrap();
    assert_eq!(
        ws.resolve_remote(&second).unwrap(),
        Some(Key::Id(flight_id))
    );
    let caps = client.flight_caps_save(order_id, &[]).await.unwrap().entity;
    assert_eq!(caps.len(), 1);
    assert_eq!(
        (caps[0].flight_id, caps[0].max_budget),
        (Some(flight_id), Some(50.0))
    );

    // A new flight added to a posted campaign: the same, in one push.
    let mut c: Campaign = typed(
        ws.get(&EntityRef::new(Kind::Campaign, Key::Id(camp_id)))
            .unwrap()
            .unwrap()
            .working,
    );
    let posted = EntityRef::new(Kind::Campaign, Key::Id(camp_id));
    c.flights.as_mut().unwrap().push(typed(
        json!({"maxBudget": 300.0, "startDate": NOW + 30 * DAY, "endDate": NOW + 40 * DAY}),
    ));
    c.max_budget = None;
    ws.update_campaign(&posted, c).unwrap();
    let third = EntityRef::draft_flight(&posted, NOW + 30 * DAY);
    assert!(
        ws.flights_of(&posted)
            .unwrap()
            .iter()
            .any(|(f, _)| *f == third)
    );
    let order_ref = EntityRef::new(Kind::AdOrder, Key::Id(order_id));
    let seq = ws
        .set_flight_caps_for(
            &order_ref,
            vec![(typed(json!({"maxBudget": 30.0})), third.clone())],
        )
        .unwrap();
    assert_eq!(status_of(&ws, seq), ChangeStatus::Pending);
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    let caps = client.flight_caps_save(order_id, &[]).await.unwrap().entity;
    let third_id = match ws.resolve_remote(&third).unwrap() {
        Some(Key::Id(id)) => id,
        other => panic!("the new flight has no id: {other:?}"),
    };
    assert!(
        caps.iter()
            .any(|c| c.flight_id == Some(third_id) && c.max_budget == Some(30.0)),
        "{caps:?}"
    );

    // A cap on a new flight the campaign no longer has is invalid, never posted.
    let mut c: Campaign = typed(ws.get(&posted).unwrap().unwrap().working);
    c.flights.as_mut().unwrap().push(typed(
        json!({"maxBudget": 100.0, "startDate": NOW + 50 * DAY, "endDate": NOW + 60 * DAY}),
    ));
    ws.update_campaign(&posted, c.clone()).unwrap();
    let fourth = EntityRef::draft_flight(&posted, NOW + 50 * DAY);
    let seq = ws
        .set_flight_caps_for(
            &order_ref,
            vec![(typed(json!({"maxBudget": 10.0})), fourth)],
        )
        .unwrap();
    assert_eq!(status_of(&ws, seq), ChangeStatus::Pending);
    c.flights.as_mut().unwrap().pop();
    ws.update_campaign(&posted, c).unwrap();
    let broken = ws.check().unwrap();
    let (_, errors) = broken
        .iter()
        .find(|(s, _)| *s == seq)
        .expect("the cap is invalid now");
    assert_eq!(errors[0].field, "[0].flightId");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creative_naming_only_a_draft_campaign_posts_after_it_with_its_id() {
    let server = Server::start().await;
    let (client, log) = server.recording().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let camp = ws
        .create_campaign(
            &acme,
            typed(
                json!({"name": "Creative home", "domain": "acme.example", "maxBudget": 500.0,
                         "startDate": NOW + DAY, "endDate": NOW + 30 * DAY,
                         "iabCategory": ["IAB3"]}),
            ),
        )
        .unwrap();
    let creative = ws
        .create_creative(&camp, typed(banner("Campaign-only banner")))
        .unwrap();
    let seq = ws
        .pending()
        .unwrap()
        .iter()
        .find(|c| c.target == creative)
        .unwrap()
        .seq;
    assert_eq!(
        status_of(&ws, seq),
        ChangeStatus::Pending,
        "campaignId alone is enough"
    );
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    let sent = bodies(&log, "POST /v1/creative/save");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["campaignId"], remote_id(&ws, &camp));
    assert!(sent[0].get("advertiserId").is_none(), "{}", sent[0]);
    assert_eq!(count(&server, "creatives", "Campaign-only banner"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_queued_offline_posts_later_exactly_once_and_keeps_its_counts() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    // Offline: no client at all. A draft segment and two uploads to it.
    let mut ws = open(&file(&dir));
    let seg = ws
        .create_audience_segment(segment("Walkers", "walkers-1"))
        .unwrap();
    let first = ws
        .upload_audience_data(
            &seg,
            typed(json!([{"countryCode": "US", "values": hashes(700, "a")}])),
        )
        .unwrap();
    let second = ws
        .upload_audience_data(
            &seg,
            typed(json!([
                {"countryCode": "US", "values": hashes(400, "b")},
                {"countryCode": "CA", "values": hashes(5, "c")}
            ])),
        )
        .unwrap();
    let queued = ws.audience_uploads(&seg).unwrap();
    assert_eq!(queued.len(), 2);
    assert_eq!(
        (
            queued[0].seq,
            queued[0].values,
            queued[0].country_code.as_str()
        ),
        (first, 700, "US")
    );
    assert_eq!(
        (queued[1].values, queued[1].country_code.as_str()),
        (405, "US,CA")
    );
    assert!(
        queued
            .iter()
            .all(|u| u.status == ChangeStatus::Pending && u.result.is_none())
    );
    // The records wait for the segment's id, filled in when it lands.
    let change = ws.change(first).unwrap().unwrap();
    assert_eq!(change.payload[0]["serviceSegmentId"], "");
    assert_eq!(change.parents[0].pointer, "/0/serviceSegmentId");
    assert_eq!(change.parents[0].target, seg);
    drop(ws);

    // Online later: one push posts the segment, then both uploads, once each.
    let client = server.demo().await;
    let mut ws = open(&file(&dir));
    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), 3);
    let Some(Key::Segment(id)) = ws.resolve_remote(&seg).unwrap() else {
        panic!("segment not landed")
    };
    assert!(id.starts_with("fpsegm"), "{id}");
    let uploads = ws.audience_uploads(&seg).unwrap();
    assert_eq!(
        uploads,
        ws.audience_uploads(&EntityRef::new(
            Kind::AudienceSegment,
            Key::Segment(id.clone())
        ))
        .unwrap()
    );
    for u in &uploads {
        assert_eq!(u.status, ChangeStatus::Applied);
        let r = u.result.as_ref().expect("answer kept");
        assert_eq!(r.message, flightdeck_model::AUDIENCE_DATA_PROCESSED);
        assert_eq!(r.bad_records, 0);
        assert!(r.published > 0);
    }
    let sent = ws.change(second).unwrap().unwrap().payload;
    assert_eq!(sent[1]["serviceSegmentId"], id.as_str());
    // Applied, the identifiers (personal data the service now has) are gone from the
    // workspace, changes and undo history alike; the counts stay.
    assert_eq!(
        (
            uploads[0].values,
            uploads[1].values,
            uploads[1].country_code.as_str()
        ),
        (700, 405, "US,CA")
    );
    assert_eq!(sent[0]["values"], json!([]), "{sent}");
    assert_eq!(sent[0]["valueCount"], 400);
    let conn = rusqlite::Connection::open(file(&dir)).unwrap();
    for needle in [
        &hashes(700, "a")[0],
        &hashes(400, "b")[399],
        &hashes(5, "c")[4],
    ] {
        let found: i64 = conn
            .query_row(
                "SELECT (SELECT count(*) FROM outbox WHERE instr(payload, ?1) > 0) \
                 + (SELECT count(*) FROM history_row WHERE instr(CAST(before AS BLOB), CAST(?1 AS BLOB)) > 0 \
                    OR instr(CAST(after AS BLOB), CAST(?1 AS BLOB)) > 0) \
                 + (SELECT count(*) FROM entities WHERE instr(coalesce(working_json, '') || coalesce(remote_json, ''), ?1) > 0)",
                [needle],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(found, 0, "{needle} is still in the workspace");
    }
    let segment = client.audience(&id).await.unwrap();
    assert_eq!(segment.data_count, Some(1105));
    assert_eq!(
        segment.status,
        Some(flightdeck_model::SegmentStatus::Active)
    );

    // Pushing again posts nothing: the identifiers are not counted twice.
    let report = push(&mut ws, &client).await;
    assert!(report.applied.is_empty());
    assert_eq!(client.audience(&id).await.unwrap().data_count, Some(1105));
    assert_eq!(count(&server, "segments", "Walkers"), 1);
}

#[test]
fn a_refused_upload_keeps_the_services_counts() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let seg = ws
        .create_audience_segment(segment("Runners", "runners-1"))
        .unwrap();
    let seq = ws
        .upload_audience_data(
            &seg,
            typed(json!([{"countryCode": "US", "values": hashes(2, "d")}])),
        )
        .unwrap();
    let result: flightdeck_model::AudienceDataResult = typed(json!({
        "message": "invalid payload: 1 bad record(s)", "published": 0, "failed_publishes": 0,
        "bad_records": 1, "bad_records_details": "[0].values[1]: not a hash"
    }));
    let message = flightdeck_offline::workspace::ChangeMessage {
        level: flightdeck_model::MessageLevel::Error,
        code: "BAD_RECORDS".into(),
        message: "the ad platform refused the upload: 1 bad record".into(),
        field: None,
    };
    ws.mark_refused(seq, &[message], &serde_json::to_value(&result).unwrap())
        .unwrap();
    let uploads = ws.audience_uploads(&seg).unwrap();
    assert_eq!(uploads[0].status, ChangeStatus::Failed);
    assert_eq!(uploads[0].result.as_ref(), Some(&result));
    assert_eq!(
        uploads[0].message.as_deref(),
        Some("the ad platform refused the upload: 1 bad record")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_list_keeps_its_sites_though_the_service_answers_null() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let list = ws
        .create_site_list(typed(
            json!({"name": "Allowed", "typeId": 5, "siteIds": [1, 2, 3]}),
        ))
        .unwrap();
    let sites = |ws: &Workspace, list: &EntityRef| {
        ws.get(list).unwrap().unwrap().working["siteIds"].clone()
    };
    let stored = |list_id: i64| -> Vec<i64> {
        server
            .sandbox
            .state()
            .db
            .blocking(move |c| {
                let mut stmt = c.prepare(
                    "SELECT site_id FROM site_list_sites WHERE list_id = ?1 ORDER BY site_id",
                )?;
                let rows = stmt.query_map([list_id], |r| r.get(0))?;
                Ok(rows.collect::<Result<Vec<i64>, _>>()?)
            })
            .unwrap()
    };
    assert!(push(&mut ws, &client).await.is_complete());
    let id = remote_id(&ws, &list);
    let list = EntityRef::new(Kind::SiteList, Key::Id(id));
    assert_eq!(sites(&ws, &list), json!([1, 2, 3]));

    let steps = [
        ("append", json!([1, 2, 3, 4])),
        ("overwrite", json!([7, 8, 9])),
        ("remove", json!([7, 9])),
    ];
    for (what, want) in steps {
        match what {
            "append" => ws.append_sites(&list, typed(json!({"siteIds": [3, 4]}))),
            "overwrite" => ws.overwrite_sites(&list, typed(json!({"siteIds": [7, 8, 9]}))),
            _ => ws.remove_sites(
                &list,
                SiteList {
                    site_ids: Some(vec![8]),
                    ..SiteList::default()
                },
            ),
        }
        .unwrap();
        assert_eq!(sites(&ws, &list), want, "{what}, before posting");
        let report = push(&mut ws, &client).await;
        assert!(report.is_complete(), "{what}: {report:#?}");
        let entity = ws.get(&list).unwrap().unwrap();
        assert_eq!(entity.working["siteIds"], want, "{what}, after the answer");
        assert_eq!(
            entity.base.unwrap()["siteIds"],
            want,
            "{what}: the base too"
        );
        let want: Vec<i64> = serde_json::from_value(want).unwrap();
        assert_eq!(stored(id), want, "{what}: the service holds the same");
    }
    assert_eq!(ws.get(&list).unwrap().unwrap().working["name"], "Allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_channels_stay_null_and_dates_read_in_the_advertisers_timezone() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;

    // channelsV2: null (a version-1 account) is not [] and is never made one.
    let order = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let mut o = ws.get(&order).unwrap().unwrap().working;
    o["channelsV2"] = Value::Null;
    let seq = ws.update_ad_order(&order, typed(o.clone())).unwrap();
    assert_eq!(
        ws.change(seq).unwrap().unwrap().payload["channelsV2"],
        Value::Null
    );
    o["name"] = json!("Bluebird - Display (null channels)");
    ws.update_ad_order(&order, typed(o.clone())).unwrap();
    let payload = ws.change(seq).unwrap().unwrap().payload;
    assert_eq!(payload["channelsV2"], Value::Null, "{payload}");
    o["channelsV2"] = json!([]);
    ws.update_ad_order(&order, typed(o)).unwrap();
    let diff = ws.pending_diff(seq).unwrap();
    let channels = diff
        .iter()
        .find(|d| d.path == "channelsV2")
        .expect("a change");
    assert_eq!(channels.after, Some(json!([])));
    ws.discard(seq).unwrap();

    // Overlapping flights under Northwind Travel (PT): the message's dates are PT dates.
    let northwind = by_name(&ws, Kind::Advertiser, "Northwind Travel");
    // 04:00 UTC is the evening before in PT: the dates differ, not only the hours.
    let start = NOW + 2 * DAY - 4 * 3_600_000;
    let camp = ws
        .create_campaign(
            &northwind,
            typed(json!({"name": "Overlap", "domain": "northwind.example",
                         "iabCategory": ["IAB20"], "flights": [
                {"maxBudget": 100.0, "startDate": start, "endDate": start + 5 * DAY},
                {"maxBudget": 100.0, "startDate": start + DAY, "endDate": start + 9 * DAY}
            ]})),
        )
        .unwrap();
    let change = ws
        .pending()
        .unwrap()
        .into_iter()
        .find(|c| c.target == camp)
        .unwrap();
    let overlap = change
        .errors
        .iter()
        .find(|e| e.code == codes::OVERLAP)
        .unwrap_or_else(|| panic!("{:?}", change.errors));
    let pt = flightdeck_model::TimezoneName::PT;
    let in_pt = validate::format_millis_in(start, Some(&pt));
    assert!(in_pt.starts_with("16 Jan 2027"), "{in_pt}");
    assert!(
        overlap.message.contains(&in_pt),
        "{} / {in_pt}",
        overlap.message
    );
    assert!(
        !overlap.message.contains(&validate::format_millis(start)),
        "{}",
        overlap.message
    );
    assert_eq!(ws.timezone_of(&camp).unwrap(), Some(pt.clone()));
    // "Check changes" reads the same timezone.
    let checked = ws.check().unwrap();
    let (_, errors) = checked.iter().find(|(s, _)| *s == change.seq).unwrap();
    assert!(errors.iter().any(|e| e.message == overlap.message));
    let _: Advertiser = typed(ws.get(&northwind).unwrap().unwrap().working);
}

fn refused_fields(result: flightdeck_offline::Result<Vec<i64>>) -> Vec<String> {
    match result {
        Err(Error::Refused(errors)) => errors.0.into_iter().map(|e| e.field).collect(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Review finding 7 and 8: an upload that breaks the rules is refused by the workspace
/// for every host (nothing queued, fields named as the buyer passed the records), a
/// draft's records are checked as if they carried the id the segment will get, and the
/// country code is normalised once, here.
#[test]
fn uploads_that_break_the_rules_are_refused_and_country_codes_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let seg = ws
        .create_audience_segment(segment("Rules", "rules-1"))
        .unwrap();
    let before = ws.pending().unwrap().len();
    let cases = [
        (json!([]), vec!["values"]),
        (
            json!([{"countryCode": "usa", "values": ["not a hash"]}]),
            vec!["[0].countryCode", "[0].values[0]"],
        ),
        (
            json!([
                {"countryCode": "US", "values": hashes(1, "a")},
                {"countryCode": "US", "values": []}
            ]),
            vec!["[1].values"],
        ),
        (
            json!([{"serviceSegmentId": "fpsegmother", "countryCode": "US",
                    "values": hashes(1, "a")}]),
            vec!["[0].serviceSegmentId"],
        ),
    ];
    for (data, fields) in cases {
        assert_eq!(
            refused_fields(ws.upload_audience_data_split(
                &seg,
                typed(data.clone()),
                flightdeck_model::AUDIENCE_UPLOAD_MAX_BYTES
            )),
            fields,
            "{data}"
        );
    }
    // A value too large for any request of the chosen size names it.
    let mut values = hashes(3, "f");
    values[1] = "a".repeat(64) + &"b".repeat(400);
    let data = typed(json!([{"countryCode": "US", "values": values}]));
    // Not an e-mail hash either; the size is what the refusal is about once the type
    // does not check values.
    let mut unknown_type = segment("Any type", "any-1");
    unknown_type.data_type = Some(flightdeck_model::DataType::from_wire("custom_id"));
    let any = ws.create_audience_segment(unknown_type).unwrap();
    let before_any = ws.pending().unwrap().len();
    assert_eq!(
        refused_fields(ws.upload_audience_data_split(&any, data, 400)),
        ["[0].values[1]"]
    );
    assert_eq!(ws.pending().unwrap().len(), before_any);
    assert_eq!(before_any, before + 1, "nothing queued by any refusal");

    // The same upload as the app or the CLI would pass it: trimmed, upper-cased.
    let seq = ws
        .upload_audience_data(
            &seg,
            typed(json!([{"countryCode": " us ", "values": hashes(2, "a")}])),
        )
        .unwrap();
    let change = ws.change(seq).unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Pending, "{:?}", change.errors);
    assert_eq!(change.payload[0]["countryCode"], "US");
    assert_eq!(ws.audience_uploads(&seg).unwrap()[0].country_code, "US");
}

/// Review finding 1: a large upload is split when it is queued, one change per request,
/// so exactly-once holds per request. When the answer to the second request is lost, it
/// waits for the buyer (needs review) and is never sent again; the first stays applied,
/// the third waits behind it; no request reaches the service twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_upload_never_sends_a_request_twice_when_an_answer_is_lost() {
    let server = Server::start().await;
    let (client, log) = server.recording().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    let seg = ws
        .create_audience_segment(segment("Splitters", "splitters-1"))
        .unwrap();
    let values = hashes(90, "e");
    let max = 2500;
    let seqs = ws
        .upload_audience_data_split(
            &seg,
            typed(json!([{"countryCode": "US", "values": values}])),
            max,
        )
        .unwrap();
    assert_eq!(seqs.len(), 3, "{seqs:?}");
    // Every change is one request's body, whole and in order, room left for the id.
    let mut queued = Vec::new();
    for seq in &seqs {
        let change = ws.change(*seq).unwrap().unwrap();
        assert_eq!(change.status, ChangeStatus::Pending, "{:?}", change.errors);
        let mut body = change.payload.clone();
        body[0]["serviceSegmentId"] = json!("x".repeat(64));
        assert!(serde_json::to_vec(&body).unwrap().len() <= max);
        assert_eq!(change.parents.len(), 1);
        assert_eq!(change.parents[0].pointer, "/0/serviceSegmentId");
        for v in change.payload[0]["values"].as_array().unwrap() {
            queued.push(v.as_str().unwrap().to_owned());
        }
    }
    assert_eq!(queued, values);
    assert_eq!(ws.audience_uploads(&seg).unwrap().len(), 3);

    // The segment and the first request post.
    let first = PushOptions {
        only: Some([seqs[0]].into()),
        ..options()
    };
    let report = sync::push(&mut ws, &client, &first, |_| {}).await.unwrap();
    assert!(report.is_complete(), "{report:#?}");
    let Some(Key::Segment(id)) = ws.resolve_remote(&seg).unwrap() else {
        panic!("segment not landed")
    };
    let upload = format!("POST /v1/audiences/{id}/data");
    assert_eq!(bodies(&log, &upload).len(), 1);

    // The second request commits, and its answer is lost.
    server
        .sandbox
        .state()
        .faults
        .set(flightdeck_sandbox::faults::FaultSettings {
            drop_after_commit: 1,
            ..Default::default()
        })
        .unwrap();
    let report = push(&mut ws, &client).await;
    server.sandbox.state().faults.reset();
    assert_eq!(report.needs_review.len(), 1, "{report:#?}");
    assert_eq!(report.needs_review[0].seq, seqs[1]);
    let text = &report.needs_review[0].messages[0].message;
    assert!(text.contains("may or may not have been stored"), "{text}");
    assert_eq!(status_of(&ws, seqs[0]), ChangeStatus::Applied);
    assert_eq!(status_of(&ws, seqs[1]), ChangeStatus::NeedsReview);
    assert_eq!(status_of(&ws, seqs[2]), ChangeStatus::Blocked);
    assert_eq!(bodies(&log, &upload).len(), 2, "sent once each");

    // A later push leaves it to the buyer: nothing is sent again.
    let report = push(&mut ws, &client).await;
    assert!(report.applied.is_empty(), "{report:#?}");
    assert_eq!(bodies(&log, &upload).len(), 2);
    let sent = bodies(&log, &upload);
    assert_eq!(sent[0][0]["serviceSegmentId"], id.as_str());
    assert_ne!(sent[0], sent[1]);
    let stored: i64 = server
        .sandbox
        .state()
        .db
        .blocking(|c| Ok(c.query_row("SELECT COUNT(*) FROM segment_data", [], |r| r.get(0))?))
        .unwrap();
    let first_two: usize = sent
        .iter()
        .map(|b| b[0]["values"].as_array().unwrap().len())
        .sum();
    assert_eq!(stored, i64::try_from(first_two).unwrap());
}

/// Review finding 2: between the campaign landing (its new flight now has an id) and the
/// cap being posted, checking the changes keeps the cap pending; it then posts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_stays_valid_after_its_new_flight_gets_an_id_and_before_it_posts() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let camp = ws
        .create_campaign(
            &acme,
            typed(json!({"name": "Two steps", "domain": "acme.example",
                         "iabCategory": ["IAB3"], "flights": [
                {"maxBudget": 600.0, "startDate": NOW + DAY, "endDate": NOW + 10 * DAY}
            ]})),
        )
        .unwrap();
    let order = ws
        .create_ad_order(
            &camp,
            typed(json!({"name": "Two steps order", "optimizationGoal": "CPM",
                         "startDate": NOW + DAY, "endDate": NOW + 10 * DAY,
                         "lifetimeBudget": 100.0})),
        )
        .unwrap();
    let flight = EntityRef::draft_flight(&camp, NOW + DAY);
    let caps_seq = ws
        .set_flight_caps_for(&order, vec![(typed(json!({"maxBudget": 50.0})), flight)])
        .unwrap();
    let camp_seq = ws
        .pending()
        .unwrap()
        .iter()
        .find(|c| c.target == camp)
        .unwrap()
        .seq;
    let only_campaign = PushOptions {
        only: Some([camp_seq].into()),
        ..options()
    };
    let report = sync::push(&mut ws, &client, &only_campaign, |_| {})
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(status_of(&ws, caps_seq), ChangeStatus::Pending);

    let broken = ws.check().unwrap();
    assert!(
        broken.iter().all(|(s, _)| *s != caps_seq),
        "the cap was marked invalid: {broken:?}"
    );
    let change = ws.change(caps_seq).unwrap().unwrap();
    assert_eq!(change.status, ChangeStatus::Pending, "{:?}", change.errors);

    let report = push(&mut ws, &client).await;
    assert!(report.is_complete(), "{report:#?}");
    let caps = client
        .flight_caps_save(remote_id(&ws, &order), &[])
        .await
        .unwrap()
        .entity;
    assert_eq!(caps.len(), 1);
    assert_eq!(caps[0].max_budget, Some(50.0));
}

/// Review finding 4: a field the service ignores on update is refused only when this edit
/// changes it. A newer server version a pull holds back while edits are pending (someone
/// changed the order's budget elsewhere) does not refuse further edits of other fields.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_changed_elsewhere_does_not_refuse_later_edits() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = pulled_with(&client, &dir).await;
    let order = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let order_id = remote_id(&ws, &order);
    let mut edited: AdOrder = typed(ws.get(&order).unwrap().unwrap().working);
    edited.name = Some("Bluebird - Display (1)".into());
    ws.update_ad_order(&order, edited).unwrap();

    // Someone else moves the budget (as through the order's flight).
    server
        .sandbox
        .state()
        .db
        .blocking(move |c| {
            c.execute(
                "UPDATE ad_orders SET body = json_set(body, '$.lifetimeBudget', 98765.0) \
                 WHERE id = ?1",
                [order_id],
            )?;
            Ok(())
        })
        .unwrap();
    ws.pull(&client, PullScope::All, |_| {}).await.unwrap();

    let mut again: AdOrder = typed(ws.get(&order).unwrap().unwrap().working);
    again.name = Some("Bluebird - Display (2)".into());
    ws.update_ad_order(&order, again.clone()).unwrap();
    // This edit changing the budget itself is still refused.
    again.lifetime_budget = Some(1.0);
    let errors = refused(ws.update_ad_order(&order, again));
    assert_eq!(errors[0].0, "lifetimeBudget");
}
