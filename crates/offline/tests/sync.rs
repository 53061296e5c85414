//! The posting executor against a real SQLite file and the in-process sandbox (demo seed)
//! over real HTTP, with the sandbox's injected faults: 5xx, latency, commit-then-drop.
//!
//! Every test counts what the sandbox holds by name: zero duplicates everywhere.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{DAY, NOW, Server, by_name, file, open, status_of, typed};
use flightdeck_client::Client;
use flightdeck_client::retry::RetryPolicy;
use flightdeck_model::{AdOrder, Advertiser, Campaign, Creative, SiteList};
use flightdeck_offline::change::{ChangeStatus, EntityRef, Key, Kind};
use flightdeck_offline::sync::{self, PushOptions, PushReport};
use flightdeck_offline::workspace::{Pick, PullOptions, PullScope, Review, Workspace};
use flightdeck_sandbox::faults::FaultSettings;
use serde_json::json;

impl Server {
    /// [`Server::demo`] with quick retries of safe requests, so fault-injected tests stay
    /// fast.
    async fn quick_demo(&self) -> Client {
        self.demo().await.with_retry_policy(RetryPolicy {
            max_attempts: 8,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(20),
        })
    }

    fn faults(&self, settings: FaultSettings) {
        self.sandbox.state().faults.set(settings).unwrap();
    }

    fn no_faults(&self) {
        self.sandbox.state().faults.reset();
    }

    /// How many rows of a sandbox table carry this name.
    fn count(&self, table: &str, name: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table} WHERE json_extract(body, '$.name') = ?1");
        self.sandbox
            .state()
            .db
            .blocking(|c| Ok(c.query_row(&sql, [name], |r| r.get(0))?))
            .unwrap()
    }

    fn count_all(&self, table: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        self.sandbox
            .state()
            .db
            .blocking(|c| Ok(c.query_row(&sql, [], |r| r.get(0))?))
            .unwrap()
    }
}

/// Patient, quick retries: fault-injected tests must not give up, nor sleep long.
fn options(concurrency: usize) -> PushOptions {
    PushOptions {
        concurrency,
        retry: RetryPolicy {
            max_attempts: 40,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(20),
        },
        only: None,
        // No late commits here: a short grace keeps restarts quick.
        lookup_grace: Some(Duration::from_millis(300)),
    }
}

async fn pulled(server: &Server, dir: &tempfile::TempDir) -> (Workspace, Client) {
    let client = server.quick_demo().await;
    let mut ws = open(&file(dir));
    let options = PullOptions {
        audiences: false,
        ..PullOptions::default()
    };
    ws.pull_with(&client, PullScope::All, options, |_| {})
        .await
        .expect("pull");
    (ws, client)
}

fn seq_of(ws: &Workspace, target: &EntityRef) -> i64 {
    ws.pending()
        .unwrap()
        .into_iter()
        .find(|c| &c.target == target)
        .unwrap_or_else(|| panic!("no change to {target:?}"))
        .seq
}

fn advertiser(name: &str) -> Advertiser {
    typed(json!({"name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"}))
}

fn campaign(name: &str, flights: bool) -> Campaign {
    let mut c = json!({
        "name": name, "domain": "draft.example", "maxBudget": 1000.0,
        "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB3"]
    });
    if flights {
        c["flights"] =
            json!([{"maxBudget": 1000.0, "startDate": NOW + DAY, "endDate": NOW + 30 * DAY}]);
    }
    typed(c)
}

fn order(name: &str) -> AdOrder {
    typed(json!({
        "name": name, "optimizationGoal": "CPM", "startDate": NOW + DAY,
        "endDate": NOW + 30 * DAY, "lifetimeBudget": 100.0
    }))
}

fn applied_seqs(report: &PushReport) -> Vec<i64> {
    let mut seqs: Vec<i64> = report.applied.iter().map(|a| a.seq).collect();
    seqs.sort_unstable();
    seqs
}

async fn push(ws: &mut Workspace, client: &Client, concurrency: usize) -> PushReport {
    sync::push(ws, client, &options(concurrency), |_| {})
        .await
        .expect("push")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_chain_posts_parents_first_with_local_ids_rewritten() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;

    let adv = ws.create_advertiser(advertiser("Chain Co")).unwrap();
    let camp = ws
        .create_campaign(&adv, campaign("Chain campaign", true))
        .unwrap();
    let ord = ws.create_ad_order(&camp, order("Chain order")).unwrap();
    // Caps on a draft order under a downloaded campaign with flights: `orderId` waits
    // for the draft, `flightId` is known.
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let spring_v: Campaign = typed(ws.get(&spring).unwrap().unwrap().working);
    let spring_flight = spring_v.flights.unwrap()[0].id.unwrap();
    let spring_order = ws
        .create_ad_order(&spring, order("Spring draft order"))
        .unwrap();
    let caps_seq = ws
        .set_flight_caps(
            &spring_order,
            vec![typed(json!({"flightId": spring_flight, "maxBudget": 50.0}))],
        )
        .unwrap();
    let mut seen = Vec::new();
    let report = sync::push(&mut ws, &client, &options(4), |p| seen.push(p))
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), 5);
    assert_eq!(seen.len(), 5);
    assert_eq!(seen.last().unwrap().done, 5);
    assert!(ws.pending().unwrap().is_empty());

    // The service has each once, linked by the ids it assigned.
    let Some(Key::Id(adv_id)) = ws.resolve_remote(&adv).unwrap() else {
        panic!("advertiser not landed")
    };
    let Some(Key::Id(camp_id)) = ws.resolve_remote(&camp).unwrap() else {
        panic!("campaign not landed")
    };
    let Some(Key::Id(ord_id)) = ws.resolve_remote(&ord).unwrap() else {
        panic!("order not landed")
    };
    let Some(Key::Id(spring_ord_id)) = ws.resolve_remote(&spring_order).unwrap() else {
        panic!("spring order not landed")
    };
    let checker = server.quick_demo().await;
    let campaigns = checker
        .campaigns_by_advertiser(adv_id)
        .await
        .unwrap()
        .entity;
    assert_eq!(campaigns.len(), 1);
    assert_eq!(campaigns[0].id, Some(camp_id));
    let flight = campaigns[0].flights.as_ref().unwrap()[0].id.unwrap();
    let orders = checker.all_ad_orders().await.unwrap().entity;
    let landed = orders.iter().find(|o| o.id == Some(ord_id)).unwrap();
    assert_eq!(landed.campaign_id, Some(camp_id));
    // Every create carries a client reference in its external-id field.
    assert!(
        landed
            .external_ad_order_id
            .as_deref()
            .unwrap()
            .starts_with("fd-")
    );
    assert!(
        campaigns[0]
            .external_campaign_id
            .as_deref()
            .unwrap()
            .starts_with("fd-")
    );
    let caps = checker
        .flight_caps_save(spring_ord_id, &[])
        .await
        .unwrap()
        .entity;
    assert_eq!(caps.len(), 1);
    assert_eq!(caps[0].flight_id, Some(spring_flight));
    assert_eq!(status_of(&ws, caps_seq), ChangeStatus::Applied);
    for (table, name) in [
        ("advertisers", "Chain Co"),
        ("campaigns", "Chain campaign"),
        ("ad_orders", "Chain order"),
        ("ad_orders", "Spring draft order"),
    ] {
        assert_eq!(server.count(table, name), 1, "{name}");
    }

    // Caps for the landed chain's flight, now that it has an id, go the same way.
    let ord_ref = EntityRef::new(Kind::AdOrder, Key::Id(ord_id));
    ws.set_flight_caps(
        &ord_ref,
        vec![typed(json!({"flightId": flight, "maxBudget": 20.0}))],
    )
    .unwrap();
    let report = push(&mut ws, &client, 4).await;
    assert!(report.is_complete(), "{report:#?}");
    let caps = checker.flight_caps_save(ord_id, &[]).await.unwrap().entity;
    assert_eq!((caps.len(), caps[0].flight_id), (1, Some(flight)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_changes_are_never_posted_and_a_failure_holds_only_its_descendants() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let advertisers_before = server.count_all("advertisers");

    let invalid = ws
        .create_advertiser(typed(
            json!({"agencyId": 1, "currency": "USD", "category": "IAB3"}),
        ))
        .unwrap();
    let invalid_seq = seq_of(&ws, &invalid);
    // Another account's agency: valid locally, refused by the service (400 on agencyId).
    let mut foreign = advertiser("Foreign Co");
    foreign.agency_id = Some(2);
    let foreign = ws.create_advertiser(foreign).unwrap();
    let foreign_seq = seq_of(&ws, &foreign);
    let child = ws
        .create_campaign(&foreign, campaign("Orphan campaign", false))
        .unwrap();
    let child_seq = seq_of(&ws, &child);
    let grandchild = ws.create_ad_order(&child, order("Orphan order")).unwrap();
    let grandchild_seq = seq_of(&ws, &grandchild);
    let fine = ws.create_advertiser(advertiser("Fine Co")).unwrap();
    let fine_seq = seq_of(&ws, &fine);
    let fine_child = ws
        .create_campaign(&fine, campaign("Fine campaign", false))
        .unwrap();
    let fine_child_seq = seq_of(&ws, &fine_child);

    let report = push(&mut ws, &client, 4).await;
    assert_eq!(applied_seqs(&report), vec![fine_seq, fine_child_seq]);
    assert_eq!(report.failed.len(), 1);
    assert_eq!(report.failed[0].seq, foreign_seq);
    assert!(
        report.failed[0]
            .messages
            .iter()
            .any(|m| m.field.as_deref() == Some("agencyId")),
        "{:?}",
        report.failed[0].messages
    );
    assert_eq!(status_of(&ws, foreign_seq), ChangeStatus::Failed);
    assert_eq!(
        ws.change_messages(foreign_seq).unwrap(),
        report.failed[0].messages
    );
    let held: Vec<(i64, Option<i64>)> = report.held.iter().map(|h| (h.seq, h.blocked_by)).collect();
    assert!(held.contains(&(invalid_seq, None)), "{held:?}");
    assert!(held.contains(&(child_seq, Some(foreign_seq))), "{held:?}");
    assert!(held.iter().any(|(s, _)| *s == grandchild_seq), "{held:?}");
    // Held dependents are blocked, saying by what, until their parent is fixed.
    assert_eq!(status_of(&ws, child_seq), ChangeStatus::Blocked);
    assert_eq!(status_of(&ws, grandchild_seq), ChangeStatus::Blocked);
    let why = ws.change_messages(child_seq).unwrap();
    assert_eq!(why.len(), 1, "{why:?}");
    assert_eq!(why[0].code, sync::BLOCKED_CODE);
    assert!(why[0].message.contains(&foreign_seq.to_string()), "{why:?}");
    // A push while the parent is still refused keeps them blocked and posts nothing.
    let report = push(&mut ws, &client, 4).await;
    assert!(report.applied.is_empty(), "{report:#?}");
    assert_eq!(status_of(&ws, child_seq), ChangeStatus::Blocked);
    assert_eq!(status_of(&ws, grandchild_seq), ChangeStatus::Blocked);
    assert_eq!(status_of(&ws, invalid_seq), ChangeStatus::Invalid);
    assert_eq!(server.count_all("advertisers"), advertisers_before + 1);
    assert_eq!(server.count("campaigns", "Orphan campaign"), 0);

    // The buyer fixes the refused advertiser: it and its descendants go now.
    let mut fixed: Advertiser = typed(ws.get(&foreign).unwrap().unwrap().working);
    fixed.agency_id = Some(1);
    ws.update_advertiser(&foreign, fixed).unwrap();
    let report = push(&mut ws, &client, 4).await;
    assert_eq!(
        applied_seqs(&report),
        vec![foreign_seq, child_seq, grandchild_seq]
    );
    assert_eq!(server.count("advertisers", "Foreign Co"), 1);
    assert_eq!(server.count("ad_orders", "Orphan order"), 1);
    assert_eq!(server.count("advertisers", "Fine Co"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_of_all_requests_failing_still_posts_everything_exactly_once() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    for i in 0..12 {
        let adv = ws
            .create_advertiser(advertiser(&format!("Flaky {i}")))
            .unwrap();
        ws.create_campaign(&adv, campaign(&format!("Flaky campaign {i}"), false))
            .unwrap();
        ws.create_ad_order(&spring, order(&format!("Flaky order {i}")))
            .unwrap();
    }
    let bluebird = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let mut edited: AdOrder = typed(ws.get(&bluebird).unwrap().unwrap().working);
    edited.name = Some("Bluebird - Display (flaky edit)".into());
    ws.update_ad_order(&bluebird, edited).unwrap();

    server.faults(FaultSettings {
        error_rate: 0.5,
        ..FaultSettings::default()
    });
    let report = push(&mut ws, &client, 6).await;
    server.no_faults();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), 37);
    for i in 0..12 {
        assert_eq!(server.count("advertisers", &format!("Flaky {i}")), 1);
        assert_eq!(server.count("campaigns", &format!("Flaky campaign {i}")), 1);
        assert_eq!(server.count("ad_orders", &format!("Flaky order {i}")), 1);
    }
    assert_eq!(
        server.count("ad_orders", "Bluebird - Display (flaky edit)"),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_latency_requests_overlap_up_to_the_bound() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let n = 24;
    for i in 0..n {
        ws.create_advertiser(advertiser(&format!("Slow {i}")))
            .unwrap();
    }
    let latency = 40;
    server.faults(FaultSettings {
        latency_ms: latency,
        ..FaultSettings::default()
    });
    let t0 = Instant::now();
    let report = push(&mut ws, &client, 8).await;
    let took = t0.elapsed();
    server.no_faults();
    assert_eq!(report.applied.len(), n);
    // One at a time would take at least n × latency.
    let serial = Duration::from_millis(latency * n as u64);
    assert!(took < serial / 2, "took {took:?}, serial floor {serial:?}");
    for i in 0..n {
        assert_eq!(server.count("advertisers", &format!("Slow {i}")), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_lookup_kind_recovers_its_own_lost_create() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let kinds: Vec<(&str, &str)> = vec![
        ("advertisers", "Lost Co"),
        ("campaigns", "Lost campaign"),
        ("ad_orders", "Lost order"),
        ("segments", "Lost segment"),
    ];
    for (table, name) in kinds {
        let target = match table {
            "advertisers" => ws.create_advertiser(advertiser(name)).unwrap(),
            "campaigns" => ws.create_campaign(&acme, campaign(name, true)).unwrap(),
            "ad_orders" => ws.create_ad_order(&spring, order(name)).unwrap(),
            _ => ws
                .create_audience_segment(typed(json!({
                    "name": name, "dataType": "email_sha256", "accountId": 1,
                    "advertiserIds": [1], "externalAudienceId": "lost-1"
                })))
                .unwrap(),
        };
        let seq = seq_of(&ws, &target);
        server.faults(FaultSettings {
            drop_after_commit: 1,
            ..FaultSettings::default()
        });
        let report = push(&mut ws, &client, 1).await;
        server.no_faults();
        assert_eq!(applied_seqs(&report), vec![seq], "{name}: {report:#?}");
        assert!(
            report.applied[0]
                .messages
                .iter()
                .any(|m| m.code == sync::FOUND_CODE),
            "{name}: the create was dropped, so it must be found, not re-sent"
        );
        assert_eq!(server.count(table, name), 1, "{name}");
        assert!(ws.resolve_remote(&target).unwrap().is_some());
    }
}

/// A creative saved against its advertiser alone is in no listing the service offers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_creative_of_an_advertiser_alone_needs_review_and_is_not_sent_again() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let creative = ws
        .create_creative(
            &acme,
            typed(json!({
                "name": "Lost banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
                "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
                "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
            })),
        )
        .unwrap();
    let seq = seq_of(&ws, &creative);
    server.faults(FaultSettings {
        drop_after_commit: 1,
        ..FaultSettings::default()
    });
    let report = push(&mut ws, &client, 1).await;
    server.no_faults();
    assert_eq!(report.needs_review.len(), 1, "{report:#?}");
    assert_eq!(report.needs_review[0].seq, seq);
    let text = &report.needs_review[0].messages[0].message;
    assert!(text.contains("may or may not have been created"), "{text}");
    assert_eq!(status_of(&ws, seq), ChangeStatus::NeedsReview);
    assert_eq!(server.count("creatives", "Lost banner"), 1);
    // The creative carried a client reference the buyer can search for.
    let external: String = server
        .sandbox
        .state()
        .db
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT json_extract(body, '$.externalCreativeid') FROM creatives \
                 WHERE json_extract(body, '$.name') = 'Lost banner'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert!(
        external.starts_with("fd-") && external.len() <= 26,
        "{external}"
    );

    // A later push leaves it to the buyer.
    let again = push(&mut ws, &client, 1).await;
    assert!(again.applied.is_empty() && again.needs_review.is_empty());
    assert_eq!(server.count("creatives", "Lost banner"), 1);
}

fn banner(name: &str) -> Creative {
    typed(json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
        "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
    }))
}

/// The ids of the sandbox's creatives with this name.
fn creative_ids(server: &Server, name: &str) -> Vec<i64> {
    server
        .sandbox
        .state()
        .db
        .blocking(|c| {
            let mut stmt =
                c.prepare("SELECT id FROM creatives WHERE json_extract(body, '$.name') = ?1")?;
            let ids = stmt
                .query_map([name], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        })
        .unwrap()
}

/// The creative landed once, and the workspace knows it by the service's id, with what
/// was sent (the listing it was found in has no image) and its campaign.
fn assert_landed_once(server: &Server, ws: &Workspace, target: &EntityRef, name: &str) {
    let ids = creative_ids(server, name);
    assert_eq!(ids.len(), 1, "{name}: {ids:?}");
    assert_eq!(
        ws.resolve_remote(target).unwrap(),
        Some(Key::Id(ids[0])),
        "{name}"
    );
    let landed = ws
        .get(&EntityRef::new(Kind::Creative, Key::Id(ids[0])))
        .unwrap()
        .unwrap();
    assert_eq!(landed.working["imageUrl"], "https://cdn.example/a.png");
    assert!(
        landed.working["campaignId"].is_i64(),
        "{:?}",
        landed.working
    );
}

fn found(report: &PushReport, seq: i64) -> bool {
    report
        .applied
        .iter()
        .any(|a| a.seq == seq && a.messages.iter().any(|m| m.code == sync::FOUND_CODE))
}

/// A creative saved with its campaign is listed under it: a lost create is found there by
/// its client reference and applied once, whether the campaign was downloaded or is a
/// draft that landed earlier (the creative's `campaignId` filled in from it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_creative_with_a_campaign_is_found_in_its_listing_not_sent_again() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let draft = ws
        .create_campaign(&acme, campaign("Creative home", true))
        .unwrap();
    let draft_seq = seq_of(&ws, &draft);
    let creatives = [
        ws.create_creative(&spring, banner("Found banner")).unwrap(),
        ws.create_creative(&draft, banner("Found under a draft"))
            .unwrap(),
    ];
    let only = |seq| PushOptions {
        only: Some(BTreeSet::from([seq])),
        ..options(1)
    };
    let report = sync::push(&mut ws, &client, &only(draft_seq), |_| {})
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");

    for (target, name) in creatives
        .iter()
        .zip(["Found banner", "Found under a draft"])
    {
        let seq = seq_of(&ws, target);
        server.faults(FaultSettings {
            drop_after_commit: 1,
            ..FaultSettings::default()
        });
        let report = sync::push(&mut ws, &client, &only(seq), |_| {})
            .await
            .unwrap();
        server.no_faults();
        assert_eq!(applied_seqs(&report), vec![seq], "{name}: {report:#?}");
        assert!(
            found(&report, seq),
            "{name}: found, not re-sent: {report:#?}"
        );
        assert_landed_once(&server, &ws, target, name);
    }
    // Nothing is left to send.
    let again = push(&mut ws, &client, 1).await;
    assert!(again.applied.is_empty(), "{again:#?}");
    assert_eq!(creative_ids(&server, "Found banner").len(), 1);
}

/// A slow service commits a creative after its client gave up: the look-up in its
/// campaign's listing waits out the grace, finds the late one, and sends nothing more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creative_that_commits_after_its_client_gave_up_is_found_not_sent_twice() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let client = impatient(&client, Duration::from_millis(1_000));
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let target = ws.create_creative(&spring, banner("Late banner")).unwrap();
    let seq = seq_of(&ws, &target);
    server.faults(FaultSettings {
        late_commit: 1,
        late_commit_ms: 200,
        ..FaultSettings::default()
    });
    let options = PushOptions {
        lookup_grace: None,
        ..options(1)
    };
    let report = sync::push(&mut ws, &client, &options, |_| {})
        .await
        .unwrap();
    server.no_faults();

    assert_eq!(applied_seqs(&report), vec![seq], "{report:#?}");
    assert!(found(&report, seq), "{report:#?}");
    assert_landed_once(&server, &ws, &target, "Late banner");
}

/// A creative with a campaign still `Sending` when a push starts (its process died after
/// the service committed it) is found, not reviewed; one with its advertiser alone is
/// left to the buyer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creative_in_flight_when_its_process_died_is_found_by_its_campaign() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let Some(Key::Id(spring_id)) = ws.resolve_remote(&spring).unwrap() else {
        panic!("a downloaded campaign has its id")
    };
    let with = ws
        .create_creative(&spring, banner("Orphan banner"))
        .unwrap();
    let without = ws.create_creative(&acme, banner("Orphan of Acme")).unwrap();
    let (with_seq, without_seq) = (seq_of(&ws, &with), seq_of(&ws, &without));
    let reference = "fd-00000000c0ffee01";
    ws.mark_sending(with_seq, Some(reference)).unwrap();
    ws.mark_sending(without_seq, Some("fd-00000000c0ffee02"))
        .unwrap();
    let mut body = banner("Orphan banner");
    body.campaign_id = Some(spring_id);
    body.external_creativeid = Some(reference.into());
    client.creative_save(&body).await.unwrap();
    drop(ws);

    let mut ws = open(&path);
    let report = push(&mut ws, &client, 4).await;
    assert_eq!(applied_seqs(&report), vec![with_seq], "{report:#?}");
    assert!(found(&report, with_seq), "{report:#?}");
    assert_landed_once(&server, &ws, &with, "Orphan banner");
    assert_eq!(status_of(&ws, without_seq), ChangeStatus::NeedsReview);
    assert!(creative_ids(&server, "Orphan of Acme").is_empty());
}

/// A creative whose campaign's listing answers 404 (the campaign is gone, or an older
/// deployment has no such listing) cannot be looked up: it goes to review at once,
/// rather than stay `Sending` push after push or be sent again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creative_whose_campaign_listing_is_missing_needs_review() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let camp = ws
        .create_campaign(&acme, campaign("Gone soon", false))
        .unwrap();
    assert!(push(&mut ws, &client, 1).await.is_complete());
    let Some(Key::Id(camp_id)) = ws.resolve_remote(&camp).unwrap() else {
        panic!("campaign not landed")
    };
    let target = ws
        .create_creative(
            &EntityRef::new(Kind::Campaign, Key::Id(camp_id)),
            banner("Orphaned by its campaign"),
        )
        .unwrap();
    let seq = seq_of(&ws, &target);
    ws.mark_sending(seq, Some("fd-00000000c0ffee03")).unwrap();
    server
        .sandbox
        .state()
        .db
        .blocking(move |c| Ok(c.execute("DELETE FROM campaigns WHERE id = ?1", [camp_id])?))
        .unwrap();

    let report = push(&mut ws, &client, 1).await;
    assert_eq!(report.needs_review.len(), 1, "{report:#?}");
    assert_eq!(report.needs_review[0].seq, seq);
    assert_eq!(status_of(&ws, seq), ChangeStatus::NeedsReview);
    assert!(creative_ids(&server, "Orphaned by its campaign").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marking_a_review_created_refuses_an_id_with_edits_of_its_own() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let kept = ws
        .create_site_list(typed(json!({"name": "Kept", "typeId": 5, "siteIds": [1]})))
        .unwrap();
    assert!(push(&mut ws, &client, 1).await.is_complete());
    let Some(Key::Id(kept_id)) = ws.resolve_remote(&kept).unwrap() else {
        panic!("list not landed")
    };
    let kept = EntityRef::new(Kind::SiteList, Key::Id(kept_id));
    let lost = ws
        .create_site_list(typed(json!({"name": "Lost", "typeId": 5, "siteIds": [2]})))
        .unwrap();
    let seq = seq_of(&ws, &lost);
    server.faults(FaultSettings {
        drop_after_commit: 1,
        ..FaultSettings::default()
    });
    let report = push(&mut ws, &client, 1).await;
    server.no_faults();
    assert_eq!(report.needs_review.len(), 1, "{report:#?}");
    ws.append_sites(&kept, typed(json!({"siteIds": [7]})))
        .unwrap();

    // The buyer types the other list's id by mistake: refused, and its edit stays.
    let err = ws
        .settle_review(seq, Review::Created { id: kept_id })
        .unwrap_err();
    assert!(err.to_string().contains("already belongs"), "{err}");
    assert_eq!(status_of(&ws, seq), ChangeStatus::NeedsReview);
    assert_eq!(
        ws.get(&kept).unwrap().unwrap().working["siteIds"],
        json!([1, 7])
    );
    assert!(ws.pending().unwrap().iter().any(|c| c.target == kept));

    // The right id settles it.
    let lost_id: i64 = server
        .sandbox
        .state()
        .db
        .blocking(|c| {
            Ok(
                c.query_row("SELECT id FROM site_lists WHERE name = 'Lost'", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .unwrap();
    ws.settle_review(seq, Review::Created { id: lost_id })
        .unwrap();
    assert_eq!(ws.resolve_remote(&lost).unwrap(), Some(Key::Id(lost_id)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sent_but_unrecorded_changes_are_resolved_after_a_restart() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let adv = ws.create_advertiser(advertiser("Crashed Co")).unwrap();
    let adv_seq = seq_of(&ws, &adv);
    let child = ws
        .create_campaign(&adv, campaign("Crashed child", false))
        .unwrap();
    let creative = ws
        .create_creative(
            &acme,
            typed(json!({
                "name": "Crashed banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
                "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
                "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
            })),
        )
        .unwrap();
    let creative_seq = seq_of(&ws, &creative);

    // What a process killed between the commit and recording the answer leaves behind:
    // `Sending` with its reference, and the entity on the service.
    let reference = "fd-00000000deadbeef";
    ws.mark_sending(adv_seq, Some(reference)).unwrap();
    let mut body = advertiser("Crashed Co");
    body.external_advertiser_id = Some(reference.into());
    #[allow(deprecated)]
    client.advertiser_save(&body).await.unwrap();
    ws.mark_sending(creative_seq, None).unwrap();
    drop(ws);

    let mut ws = open(&path);
    assert_eq!(status_of(&ws, adv_seq), ChangeStatus::Sending);
    let report = push(&mut ws, &client, 4).await;
    assert!(
        report
            .applied
            .iter()
            .any(|a| a.seq == adv_seq && a.messages.iter().any(|m| m.code == sync::FOUND_CODE)),
        "{report:#?}"
    );
    assert_eq!(report.applied.len(), 2, "{report:#?}");
    assert_eq!(server.count("advertisers", "Crashed Co"), 1);
    assert_eq!(server.count("campaigns", "Crashed child"), 1);
    let Some(Key::Id(id)) = ws.resolve_remote(&adv).unwrap() else {
        panic!("not landed")
    };
    assert!(ws.resolve_remote(&child).unwrap().is_some());
    let campaigns = client.campaigns_by_advertiser(id).await.unwrap().entity;
    assert_eq!(campaigns.len(), 1);
    // A creative of an advertiser alone that was in flight cannot be looked up: the
    // buyer reviews it.
    assert_eq!(status_of(&ws, creative_seq), ChangeStatus::NeedsReview);
    assert_eq!(server.count("creatives", "Crashed banner"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_a_push_mid_flight_loses_nothing_and_duplicates_nothing() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let (mut ws, client) = pulled(&server, &dir).await;
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let mut names = Vec::new();
    for i in 0..4 {
        let adv = ws
            .create_advertiser(advertiser(&format!("Abort Co {i}")))
            .unwrap();
        let c = ws
            .create_campaign(&adv, campaign(&format!("Abort campaign {i}"), true))
            .unwrap();
        ws.create_ad_order(&c, order(&format!("Abort chain order {i}")))
            .unwrap();
        names.push(("advertisers", format!("Abort Co {i}")));
        names.push(("campaigns", format!("Abort campaign {i}")));
        names.push(("ad_orders", format!("Abort chain order {i}")));
    }
    for i in 0..24 {
        ws.create_ad_order(&spring, order(&format!("Abort order {i}")))
            .unwrap();
        names.push(("ad_orders", format!("Abort order {i}")));
    }
    let total = ws.pending().unwrap().len();
    assert_eq!(total, 36);

    // Slow service, some answers lost, then the process dies mid-flight.
    server.faults(FaultSettings {
        latency_ms: 60,
        drop_after_commit: 3,
        ..FaultSettings::default()
    });
    let task_client = client.clone();
    let task = tokio::spawn(async move {
        let mut ws = ws;
        sync::push(&mut ws, &task_client, &options(8), |_| {}).await
    });
    tokio::time::sleep(Duration::from_millis(250)).await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    // The old process's requests finish on the server before it restarts.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let mut ws = open(&path);
    let pending = ws.pending().unwrap();
    assert!(
        !pending.is_empty(),
        "the abort came too late to test anything"
    );
    assert!(
        pending.len() < total,
        "the abort came too early to test anything"
    );
    // Requests were in flight: those changes are `Sending`, to be resolved by look-up.
    assert!(pending.iter().any(|c| c.status == ChangeStatus::Sending));
    server.faults(FaultSettings {
        latency_ms: 10,
        ..FaultSettings::default()
    });
    let report = push(&mut ws, &client, 8).await;
    server.no_faults();
    assert!(report.is_complete(), "{report:#?}");
    assert!(ws.pending().unwrap().is_empty());
    for (table, name) in &names {
        assert_eq!(server.count(table, name), 1, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_edits_merge_and_same_field_edits_are_conflicts() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let other = server.quick_demo().await;

    // Another field changed on the server: merged, both edits kept.
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let mut mine: Advertiser = typed(ws.get(&acme).unwrap().unwrap().working);
    mine.name = Some("Acme Outdoor Co".into());
    let acme_seq = ws.update_advertiser(&acme, mine).unwrap();
    let mut theirs = other
        .advertisers(Some("ACME-001"))
        .await
        .unwrap()
        .entity
        .remove(0);
    theirs.category = Some("IAB17".into());
    #[allow(deprecated)]
    other.advertiser_save(&theirs).await.unwrap();

    // The same field changed on both sides: a conflict, held with all three values.
    let bluebird = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let mut mine: AdOrder = typed(ws.get(&bluebird).unwrap().unwrap().working);
    mine.name = Some("Bluebird - Display (mine)".into());
    let order_seq = ws.update_ad_order(&bluebird, mine).unwrap();
    let Key::Id(order_id) = bluebird.key else {
        panic!("downloaded")
    };
    let mut theirs = other
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|o| o.id == Some(order_id))
        .unwrap();
    theirs.name = Some("Bluebird - Display (theirs)".into());
    #[allow(deprecated)]
    other.ad_order_save(&theirs).await.unwrap();

    let report = push(&mut ws, &client, 4).await;
    assert_eq!(applied_seqs(&report), vec![acme_seq], "{report:#?}");
    let now = other
        .advertisers(Some("ACME-001"))
        .await
        .unwrap()
        .entity
        .remove(0);
    assert_eq!(now.name.as_deref(), Some("Acme Outdoor Co"));
    assert_eq!(now.category.as_deref(), Some("IAB17"));

    assert_eq!(report.conflicts.len(), 1);
    assert_eq!(report.conflicts[0].seq, order_seq);
    let fields = &report.conflicts[0].fields;
    assert_eq!(fields.len(), 1, "{fields:?}");
    assert_eq!(fields[0].path, "name");
    assert_eq!(fields[0].base, Some(json!("Bluebird - Display")));
    assert_eq!(fields[0].mine, Some(json!("Bluebird - Display (mine)")));
    assert_eq!(fields[0].theirs, Some(json!("Bluebird - Display (theirs)")));
    assert_eq!(status_of(&ws, order_seq), ChangeStatus::Conflict);
    assert_eq!(&ws.conflicts(order_seq).unwrap(), fields);
    let messages = ws.change_messages(order_seq).unwrap();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].code, sync::CONFLICT_CODE);
    assert_eq!(
        messages[0].message,
        "the ad platform changed name since you downloaded it"
    );
    // Nothing was posted over the server's edit.
    assert_eq!(server.count("ad_orders", "Bluebird - Display (theirs)"), 1);
    assert_eq!(server.count("ad_orders", "Bluebird - Display (mine)"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn site_lists_and_audience_uploads_post_in_outbox_order() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let list = ws
        .create_site_list(typed(
            json!({"name": "Blocked", "typeId": 5, "siteIds": [1, 2, 3]}),
        ))
        .unwrap();
    ws.append_sites(&list, typed(json!({"siteIds": [3, 4]})))
        .unwrap();
    ws.remove_sites(
        &list,
        SiteList {
            site_ids: Some(vec![1]),
            ..SiteList::default()
        },
    )
    .unwrap();
    let segment = ws
        .create_audience_segment(typed(json!({
            "name": "Buyers", "dataType": "email_sha256", "accountId": 1,
            "advertiserIds": [1], "externalAudienceId": "buyers-1"
        })))
        .unwrap();
    ws.upload_audience_data(
        &segment,
        typed(json!([{"countryCode": "US", "values": ["a".repeat(64), "b".repeat(64)]}])),
    )
    .unwrap();

    let report = push(&mut ws, &client, 4).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), 5);
    let Some(Key::Id(list_id)) = ws.resolve_remote(&list).unwrap() else {
        panic!("list not landed")
    };
    let sites: Vec<i64> = server
        .sandbox
        .state()
        .db
        .blocking(|c| {
            let mut stmt = c.prepare(
                "SELECT site_id FROM site_list_sites WHERE list_id = ?1 ORDER BY site_id",
            )?;
            let rows = stmt.query_map([list_id], |r| r.get(0))?;
            Ok(rows.collect::<Result<Vec<i64>, _>>()?)
        })
        .unwrap();
    assert_eq!(sites, vec![2, 3, 4]);
    // The workspace, a list's only record, shows what the service holds.
    let landed = EntityRef::new(Kind::SiteList, Key::Id(list_id));
    assert_eq!(
        ws.get(&landed).unwrap().unwrap().working["siteIds"],
        json!([2, 3, 4])
    );
    let Some(Key::Segment(id)) = ws.resolve_remote(&segment).unwrap() else {
        panic!("segment not landed")
    };
    assert_eq!(client.audience(&id).await.unwrap().data_count, Some(2));
    assert_eq!(server.count("segments", "Buyers"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_resolved_field_by_field_posts_the_picked_values() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let other = server.quick_demo().await;

    // The buyer renames the order and raises its bid; meanwhile someone else renames
    // it, lowers the bid and changes the goal mode.
    let target = by_name(&ws, Kind::AdOrder, "Bluebird - Display");
    let Key::Id(order_id) = target.key else {
        panic!("downloaded")
    };
    let mut mine: AdOrder = typed(ws.get(&target).unwrap().unwrap().working);
    mine.name = Some("Bluebird - Display (mine)".into());
    mine.max_bid = Some(21.0);
    let seq = ws.update_ad_order(&target, mine).unwrap();
    let mut theirs = other
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|o| o.id == Some(order_id))
        .unwrap();
    theirs.name = Some("Bluebird - Display (theirs)".into());
    theirs.max_bid = Some(7.0);
    theirs.audience_weights_enabled = Some(!theirs.audience_weights_enabled.unwrap_or(false));
    let their_weights = theirs.audience_weights_enabled;
    #[allow(deprecated)]
    other.ad_order_save(&theirs).await.unwrap();

    let report = push(&mut ws, &client, 2).await;
    assert_eq!(report.conflicts.len(), 1, "{report:#?}");
    assert_eq!(status_of(&ws, seq), ChangeStatus::Conflict);
    let mut paths: Vec<String> = ws
        .conflicts(seq)
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    paths.sort();
    assert_eq!(paths, vec!["max_bid", "name"]);

    // Every field in conflict must be picked, and only those.
    let err = ws
        .resolve_conflict(seq, &[("name".into(), Pick::Theirs)])
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_bid"), "{err}");
    let err = ws
        .resolve_conflict(
            seq,
            &[
                ("name".into(), Pick::Theirs),
                ("max_bid".into(), Pick::Mine),
                ("goalMode".into(), Pick::Mine),
            ],
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("goalMode"), "{err}");
    assert!(ws.resolve_conflict(999_999, &[]).is_err());
    assert_eq!(status_of(&ws, seq), ChangeStatus::Conflict);

    ws.resolve_conflict(
        seq,
        &[
            ("name".into(), Pick::Theirs),
            ("max_bid".into(), Pick::Mine),
        ],
    )
    .unwrap();
    assert_eq!(status_of(&ws, seq), ChangeStatus::Pending);
    assert!(ws.conflicts(seq).unwrap().is_empty());
    assert!(ws.change_messages(seq).unwrap().is_empty());
    let err = ws.resolve_conflict(seq, &[]).unwrap_err().to_string();
    assert!(err.contains("not in conflict"), "{err}");
    // The buyer sees the resolution, over the server's version as the new base.
    let entity = ws.get(&target).unwrap().unwrap();
    assert_eq!(entity.working["name"], "Bluebird - Display (theirs)");
    assert_eq!(entity.working["max_bid"], 21.0);
    assert_eq!(entity.base.as_ref().unwrap()["max_bid"], 7.0);
    assert!(entity.theirs.is_none());
    let diff = ws.pending_diff(seq).unwrap();
    assert_eq!(diff.len(), 1, "{diff:?}");
    assert_eq!(diff[0].path, "max_bid");

    let report = push(&mut ws, &client, 2).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(applied_seqs(&report), vec![seq]);
    assert_eq!(status_of(&ws, seq), ChangeStatus::Applied);
    let now = other
        .all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|o| o.id == Some(order_id))
        .unwrap();
    assert_eq!(now.name.as_deref(), Some("Bluebird - Display (theirs)"));
    assert_eq!(now.max_bid, Some(21.0));
    assert_eq!(now.audience_weights_enabled, their_weights);
    assert_eq!(server.count("ad_orders", "Bluebird - Display (mine)"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posting_a_selection_posts_it_with_what_it_needs_and_nothing_else() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;

    let first = ws.create_advertiser(advertiser("Selected Co")).unwrap();
    let second = ws.create_advertiser(advertiser("Unselected Co")).unwrap();
    let second_seq = seq_of(&ws, &second);
    let first_seq = seq_of(&ws, &first);
    let selected = PushOptions {
        only: Some(BTreeSet::from([first_seq])),
        ..options(2)
    };
    let report = sync::push(&mut ws, &client, &selected, |_| {})
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(applied_seqs(&report), vec![first_seq]);
    assert_eq!(server.count("advertisers", "Selected Co"), 1);
    assert_eq!(server.count("advertisers", "Unselected Co"), 0);
    assert_eq!(status_of(&ws, second_seq), ChangeStatus::Pending);
    assert!(ws.resolve_remote(&second).unwrap().is_none());

    // A draft ad order selected alone takes its draft campaign and advertiser along;
    // a sibling draft under the same campaign stays behind.
    let adv = ws.create_advertiser(advertiser("Parent Co")).unwrap();
    let camp = ws
        .create_campaign(&adv, campaign("Parent campaign", false))
        .unwrap();
    let ord = ws.create_ad_order(&camp, order("Selected order")).unwrap();
    let sibling = ws.create_ad_order(&camp, order("Sibling order")).unwrap();
    let ord_seq = seq_of(&ws, &ord);
    let expected = vec![seq_of(&ws, &adv), seq_of(&ws, &camp), ord_seq];
    let selected = PushOptions {
        only: Some(BTreeSet::from([ord_seq])),
        ..options(2)
    };
    let mut seen = Vec::new();
    let report = sync::push(&mut ws, &client, &selected, |p| seen.push(p))
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(applied_seqs(&report), expected);
    assert_eq!(seen.last().unwrap().total, 3);
    assert_eq!(server.count("advertisers", "Parent Co"), 1);
    assert_eq!(server.count("campaigns", "Parent campaign"), 1);
    assert_eq!(server.count("ad_orders", "Selected order"), 1);
    assert_eq!(server.count("ad_orders", "Sibling order"), 0);
    assert_eq!(status_of(&ws, seq_of(&ws, &sibling)), ChangeStatus::Pending);
    assert_eq!(server.count("advertisers", "Unselected Co"), 0);

    // Everything else goes with the next full push.
    let report = push(&mut ws, &client, 2).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), 2);
    assert_eq!(server.count("advertisers", "Unselected Co"), 1);
    assert_eq!(server.count("ad_orders", "Sibling order"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_the_server_moved_on_from_is_shown_again_before_it_is_resolved() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let other = server.quick_demo().await;
    let target = by_name(&ws, Kind::AdOrder, "Northwind - Display");
    let Key::Id(order_id) = target.key else {
        panic!("downloaded")
    };
    let rename = |name: &'static str| {
        let other = &other;
        async move {
            let mut theirs = other
                .all_ad_orders()
                .await
                .unwrap()
                .entity
                .into_iter()
                .find(|o| o.id == Some(order_id))
                .unwrap();
            theirs.name = Some(name.into());
            #[allow(deprecated)]
            other.ad_order_save(&theirs).await.unwrap();
        }
    };
    let mut mine: AdOrder = typed(ws.get(&target).unwrap().unwrap().working);
    mine.name = Some("Northwind (mine)".into());
    let seq = ws.update_ad_order(&target, mine).unwrap();
    rename("Northwind (theirs)").await;
    let report = push(&mut ws, &client, 2).await;
    assert_eq!(report.conflicts.len(), 1, "{report:#?}");

    // Renamed again on the server, and downloaded: the buyer's picks were made against
    // an older version, so they are refused and the conflict shows the newer one.
    rename("Northwind (theirs, again)").await;
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
    let err = ws
        .resolve_conflict(seq, &[("name".into(), Pick::Mine)])
        .unwrap_err()
        .to_string();
    assert!(err.contains("again"), "{err}");
    let fields = ws.conflicts(seq).unwrap();
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].theirs, Some(json!("Northwind (theirs, again)")));
    assert_eq!(status_of(&ws, seq), ChangeStatus::Conflict);

    ws.resolve_conflict(seq, &[("name".into(), Pick::Mine)])
        .unwrap();
    let report = push(&mut ws, &client, 2).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(applied_seqs(&report), vec![seq]);
    assert_eq!(server.count("ad_orders", "Northwind (mine)"), 1);
}

/// `client` with a short request timeout, as a buyer on a slow connection has.
fn impatient(client: &Client, timeout: Duration) -> Client {
    let mut config = client.config().clone();
    config.request_timeout = timeout;
    Client::new(config, client.credentials().clone())
        .unwrap()
        .with_retry_policy(client.retry_policy())
}

/// A slow service commits a create after its client gave up. A look-up right after finds
/// nothing; sending again then would make a second one when the first lands. The push
/// believes "not found" only a grace period (by default twice the request timeout) after
/// the request left, so it finds the late one and sends nothing more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_that_commits_after_its_client_gave_up_is_found_not_sent_twice() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let client = impatient(&client, Duration::from_millis(1_000));
    let adv = ws.create_advertiser(advertiser("Late Co")).unwrap();
    let seq = seq_of(&ws, &adv);
    server.faults(FaultSettings {
        late_commit: 1,
        late_commit_ms: 200,
        ..FaultSettings::default()
    });
    let options = PushOptions {
        lookup_grace: None,
        ..options(1)
    };
    let report = sync::push(&mut ws, &client, &options, |_| {})
        .await
        .unwrap();
    server.no_faults();

    assert_eq!(applied_seqs(&report), vec![seq], "{report:#?}");
    assert!(
        report.applied[0]
            .messages
            .iter()
            .any(|m| m.code == sync::FOUND_CODE),
        "the late create must be found, not sent again: {report:#?}"
    );
    assert_eq!(server.count("advertisers", "Late Co"), 1);
}

/// The same after a crash: the process that sent the create died, and its request
/// commits after. The next push counts the grace from when the request left (stored
/// with the change), finds it, and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_that_commits_after_its_process_died_is_found_not_sent_twice() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let (mut ws, client) = pulled(&server, &dir).await;
    let adv = ws.create_advertiser(advertiser("Orphan Co")).unwrap();
    let seq = seq_of(&ws, &adv);

    // What a process killed mid-request leaves: `Sending` with its reference, and a
    // request the service commits after its client has gone.
    let reference = "fd-00000000late0001";
    ws.mark_sending(seq, Some(reference)).unwrap();
    assert!(ws.sent_at(seq).unwrap().is_some());
    server.faults(FaultSettings {
        late_commit: 1,
        late_commit_ms: 200,
        ..FaultSettings::default()
    });
    let mut body = advertiser("Orphan Co");
    body.external_advertiser_id = Some(reference.into());
    #[allow(deprecated)]
    let lost = impatient(&client, Duration::from_millis(500))
        .advertiser_save(&body)
        .await;
    assert!(lost.is_err(), "a late request is never answered");
    server.no_faults();
    drop(ws);

    let mut ws = open(&path);
    let options = PushOptions {
        lookup_grace: Some(Duration::from_millis(1_500)),
        ..options(1)
    };
    let report = sync::push(&mut ws, &client, &options, |_| {})
        .await
        .unwrap();
    assert_eq!(applied_seqs(&report), vec![seq], "{report:#?}");
    assert!(
        report.applied[0]
            .messages
            .iter()
            .any(|m| m.code == sync::FOUND_CODE),
        "{report:#?}"
    );
    assert_eq!(server.count("advertisers", "Orphan Co"), 1);
}

/// Creates the service cannot look up go one at a time, while the others (creatives with
/// a campaign among them) go on in parallel: a push that dies mid-flight leaves at most
/// one creative of an advertiser alone or site list whose fate only the buyer can settle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_that_dies_leaves_at_most_one_create_the_service_cannot_look_up() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir);
    let (mut ws, client) = pulled(&server, &dir).await;
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    for i in 0..4 {
        ws.create_creative(
            &acme,
            typed(json!({
                "name": format!("Parallel banner {i}"), "creativeType": "BANNER",
                "creativeSubtype": "HOSTED", "type": {"mediaType": "BANNER"},
                "imageUrl": "https://cdn.example/a.png",
                "landingPageUrl": "https://acme-outdoor.example/",
                "size": {"width": 300, "height": 250}
            })),
        )
        .unwrap();
        ws.create_site_list(typed(json!({
            "name": format!("Parallel list {i}"), "typeId": 5, "siteIds": [1, 2]
        })))
        .unwrap();
        ws.create_ad_order(&spring, order(&format!("Parallel order {i}")))
            .unwrap();
        ws.create_creative(&spring, banner(&format!("Campaign banner {i}")))
            .unwrap();
    }
    server.faults(FaultSettings {
        latency_ms: 1_000,
        ..FaultSettings::default()
    });
    let task_client = client.clone();
    let task = tokio::spawn(async move {
        let mut ws = ws;
        sync::push(&mut ws, &task_client, &options(8), |_| {}).await
    });
    // Until requests are in flight.
    let watcher = open(&path);
    for _ in 0..200 {
        let pending = watcher.pending().unwrap();
        if pending.iter().any(|c| c.status == ChangeStatus::Sending) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    server.no_faults();

    let ws = open(&path);
    let sending: Vec<_> = ws
        .pending()
        .unwrap()
        .into_iter()
        .filter(|c| c.status == ChangeStatus::Sending)
        .collect();
    let kinds: Vec<Kind> = sending.iter().map(|c| c.target.kind).collect();
    let unverifiable = sending.iter().filter(|c| !c.lost_create_lookup()).count();
    assert_eq!(unverifiable, 1, "{kinds:?}");
    assert!(
        kinds.contains(&Kind::AdOrder),
        "ad orders go in parallel: {kinds:?}"
    );
    let with_campaign = sending
        .iter()
        .filter(|c| c.target.kind == Kind::Creative && c.lost_create_lookup())
        .count();
    assert!(
        with_campaign >= 2,
        "creatives with a campaign go in parallel: {kinds:?}"
    );
}

/// The service is gone (nothing listens on its port): the push says so at once instead
/// of retrying change after change (its retries here would wait an hour), and fails
/// nothing: every change waits, `Pending`. Once the service is back on the same address,
/// the next push posts each change exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_service_stops_the_push_at_once_and_fails_nothing() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let adv = ws.create_advertiser(advertiser("Offline Co")).unwrap();
    let camp = ws
        .create_campaign(&adv, campaign("Offline campaign", true))
        .unwrap();
    ws.create_ad_order(&camp, order("Offline order")).unwrap();
    ws.create_advertiser(advertiser("Offline Two")).unwrap();
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let mut mine: Advertiser = typed(ws.get(&acme).unwrap().unwrap().working);
    mine.name = Some("Acme Outdoor (offline)".into());
    ws.update_advertiser(&acme, mine).unwrap();
    let planned = ws.pending().unwrap().len();
    assert_eq!(planned, 5);

    let Server { sandbox, running } = server;
    let addr = running.addr;
    running.stop().await.unwrap();
    let patient = PushOptions {
        retry: RetryPolicy {
            max_attempts: 6,
            base_delay: Duration::from_secs(3_600),
            max_delay: Duration::from_secs(3_600),
        },
        ..options(8)
    };
    let report = tokio::time::timeout(
        Duration::from_secs(60),
        sync::push(&mut ws, &client, &patient, |_| {}),
    )
    .await
    .expect("the push stops at once instead of retrying")
    .unwrap();

    let reason = report.unreachable.as_deref().expect("says unreachable");
    assert!(reason.contains("could not reach"), "{reason}");
    assert_eq!(report.stopped, None, "{report:#?}");
    assert!(report.applied.is_empty(), "{report:#?}");
    assert!(report.failed.is_empty(), "nothing fails: {report:#?}");
    assert!(report.needs_review.is_empty(), "{report:#?}");
    assert!(!report.is_complete());
    let left = ws.pending().unwrap();
    assert_eq!(left.len(), planned);
    for c in &left {
        assert_eq!(c.status, ChangeStatus::Pending, "{c:?}");
    }

    let running = sandbox.clone().spawn(addr).await.unwrap();
    let server = Server { sandbox, running };
    let report = push(&mut ws, &client, 8).await;
    assert!(report.is_complete(), "{report:#?}");
    assert_eq!(report.applied.len(), planned);
    assert!(ws.pending().unwrap().is_empty());
    // Over HTTP: each exactly once.
    let advertisers = client.advertisers(None).await.unwrap().entity;
    for name in ["Offline Co", "Offline Two", "Acme Outdoor (offline)"] {
        let n = advertisers
            .iter()
            .filter(|a| a.name.as_deref() == Some(name))
            .count();
        assert_eq!(n, 1, "{name}");
    }
    let orders = client.all_ad_orders().await.unwrap().entity;
    let n = orders
        .iter()
        .filter(|o| o.name.as_deref() == Some("Offline order"))
        .count();
    assert_eq!(n, 1);
    assert_eq!(server.count("campaigns", "Offline campaign"), 1);
}

/// A create that may have landed (its push died between the commit and recording the
/// answer) stays `Sending` when the service is gone at the next push: that push stops
/// without failing it, and the one after, once the service is back, finds it instead of
/// sending it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_in_doubt_stays_sending_while_the_service_is_gone_and_is_found_later() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut ws, client) = pulled(&server, &dir).await;
    let adv = ws
        .create_advertiser(advertiser("Landed Then Gone"))
        .unwrap();
    let seq = seq_of(&ws, &adv);
    let other = ws.create_advertiser(advertiser("Waiting Co")).unwrap();
    let other_seq = seq_of(&ws, &other);
    let reference = "fd-00000000feedf00d";
    ws.mark_sending(seq, Some(reference)).unwrap();
    let mut body = advertiser("Landed Then Gone");
    body.external_advertiser_id = Some(reference.into());
    #[allow(deprecated)]
    client.advertiser_save(&body).await.unwrap();

    let Server { sandbox, running } = server;
    let addr = running.addr;
    running.stop().await.unwrap();
    let report = tokio::time::timeout(
        Duration::from_secs(60),
        sync::push(&mut ws, &client, &options(2), |_| {}),
    )
    .await
    .expect("the push stops at once")
    .unwrap();
    assert!(report.unreachable.is_some(), "{report:#?}");
    assert!(report.failed.is_empty() && report.needs_review.is_empty());
    assert_eq!(status_of(&ws, seq), ChangeStatus::Sending, "still in doubt");
    assert_eq!(status_of(&ws, other_seq), ChangeStatus::Pending);

    let running = sandbox.clone().spawn(addr).await.unwrap();
    let server = Server { sandbox, running };
    let report = push(&mut ws, &client, 2).await;
    assert!(report.is_complete(), "{report:#?}");
    let found = report.applied.iter().find(|a| a.seq == seq).unwrap();
    assert!(
        found.messages.iter().any(|m| m.code == sync::FOUND_CODE),
        "found, not sent again: {report:#?}"
    );
    assert_eq!(server.count("advertisers", "Landed Then Gone"), 1);
    assert_eq!(server.count("advertisers", "Waiting Co"), 1);
}
