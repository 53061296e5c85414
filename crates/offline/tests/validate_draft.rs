//! Live validation (`Workspace::validate_draft`, what a form shows as the buyer types)
//! against validation at save (the errors recorded on the saved change, or the errors the
//! save is refused with): for every kind and operation, the same draft gives the same
//! errors, so a form that shows none never saves as invalid.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use common::{DAY, NOW, Server, by_name, file, open, typed};
use flightdeck_model::{AUDIENCE_UPLOAD_MAX_BYTES, FieldError, FlightCap};
use flightdeck_offline::Error;
use flightdeck_offline::change::{EntityRef, Key, Kind, Op};
use flightdeck_offline::workspace::{Draft, Workspace, upload_form_paths};
use serde_json::{Value, json};

/// What a save returned.
enum Saved {
    /// A new draft.
    Target(EntityRef),
    /// The change an edit went into; when the edit brings the entity back to its server
    /// version, 0 or the change it removed.
    Seq(i64),
    /// The changes an upload queued.
    Seqs(Vec<i64>),
}

/// Checks drafts live, then saves them, and compares.
struct Cases {
    /// `(kind, op)` of every case run.
    covered: BTreeSet<(String, String)>,
    with_errors: usize,
    refused: usize,
}

impl Cases {
    /// Checks `draft` live, saves it with `save`, and asserts both give the same errors.
    /// Returns them.
    // Each case reads as one call: the draft, where it hangs, and how it is saved.
    #[allow(clippy::too_many_arguments)]
    fn same(
        &mut self,
        ws: &mut Workspace,
        name: &str,
        draft: Value,
        parent: Option<&EntityRef>,
        target: Option<&EntityRef>,
        op: Op,
        save: impl FnOnce(&mut Workspace) -> flightdeck_offline::Result<Saved>,
    ) -> Vec<FieldError> {
        // The JSON the UI sends: the draft's serde shape is part of what is checked.
        let draft: Draft = serde_json::from_value(draft).expect(name);
        let live = ws.validate_draft(target, parent, &draft).expect(name);
        let stored = match save(ws) {
            Err(Error::Refused(e)) => {
                self.refused += 1;
                e.0
            }
            Err(other) => panic!("{name}: the save failed: {other}"),
            // Back to the server version: no change left (0, or the one it removed).
            Ok(Saved::Seq(seq)) => ws
                .change(seq)
                .unwrap()
                .map(|c| c.errors)
                .unwrap_or_default(),
            Ok(Saved::Seqs(seqs)) => seqs
                .into_iter()
                .flat_map(|seq| ws.change(seq).unwrap().expect(name).errors)
                .collect(),
            Ok(Saved::Target(target)) => {
                ws.pending()
                    .unwrap()
                    .into_iter()
                    .rev()
                    .find(|c| c.target == target)
                    .expect(name)
                    .errors
            }
        };
        // An upload form names its one record's fields without the record index.
        let stored = if matches!(draft, Draft::AudienceData { .. }) {
            upload_form_paths(stored)
        } else {
            stored
        };
        assert_eq!(live, stored, "{name}: live {live:#?}\nstored {stored:#?}");
        self.covered
            .insert((format!("{:?}", draft.kind()), format!("{op:?}")));
        if !live.is_empty() {
            self.with_errors += 1;
        }
        live
    }
}

fn fields(errors: &[FieldError]) -> Vec<&str> {
    errors.iter().map(|e| e.field.as_str()).collect()
}

fn target_json(t: &EntityRef) -> Value {
    serde_json::to_value(t).unwrap()
}

#[tokio::test]
async fn live_and_stored_validation_agree_for_every_kind_and_operation() {
    let server = Server::start().await;
    let client = server.demo().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ws = open(&file(&dir));
    ws.pull(
        &client,
        flightdeck_offline::workspace::PullScope::All,
        |_| {},
    )
    .await
    .unwrap();
    let acme = by_name(&ws, Kind::Advertiser, "Acme Outdoor");
    let northwind = by_name(&ws, Kind::Advertiser, "Northwind Travel");
    let spring = by_name(&ws, Kind::Campaign, "Acme Spring Launch");
    let always_on = by_name(&ws, Kind::Campaign, "Acme Always-On");
    let mut cases = Cases {
        covered: BTreeSet::new(),
        with_errors: 0,
        refused: 0,
    };

    // ---- Advertisers ----
    let adv = json!({"name": "New Co", "agencyId": 1, "currency": "USD", "category": "IAB3"});
    let body = adv.clone();
    cases.same(
        &mut ws,
        "new advertiser",
        json!({"kind": "advertiser", "value": adv}),
        None,
        None,
        Op::Create,
        |ws| ws.create_advertiser(typed(body)).map(Saved::Target),
    );
    let bad = json!({"agencyId": 1, "currency": "usd", "category": "IAB3"});
    let body = bad.clone();
    let e = cases.same(
        &mut ws,
        "new advertiser, no name, bad currency",
        json!({"kind": "advertiser", "value": bad}),
        None,
        None,
        Op::Create,
        |ws| ws.create_advertiser(typed(body)).map(Saved::Target),
    );
    assert_eq!(fields(&e), ["name", "currency"]);
    let draft_adv = by_name(&ws, Kind::Advertiser, "New Co");

    let acme_v = ws.get(&acme).unwrap().unwrap().working;
    let mut renamed = acme_v.clone();
    renamed["name"] = json!("");
    let body = renamed.clone();
    let t = acme.clone();
    let e = cases.same(
        &mut ws,
        "advertiser renamed to nothing",
        json!({"kind": "advertiser", "value": renamed}),
        None,
        Some(&acme),
        Op::Update,
        |ws| ws.update_advertiser(&t, typed(body)).map(Saved::Seq),
    );
    assert_eq!(fields(&e), ["name"]);
    let mut moved = acme_v.clone();
    moved["currency"] = json!("EUR");
    let body = moved.clone();
    let t = acme.clone();
    let e = cases.same(
        &mut ws,
        "advertiser currency (ignored on update)",
        json!({"kind": "advertiser", "value": moved}),
        None,
        Some(&acme),
        Op::Update,
        |ws| ws.update_advertiser(&t, typed(body)).map(Saved::Seq),
    );
    assert_eq!(fields(&e), ["currency"]);
    let body = acme_v.clone();
    let t = acme.clone();
    cases.same(
        &mut ws,
        "advertiser back to its server version",
        json!({"kind": "advertiser", "value": acme_v}),
        None,
        Some(&acme),
        Op::Update,
        |ws| ws.update_advertiser(&t, typed(body)).map(Saved::Seq),
    );

    // ---- Campaigns ----
    let campaign = json!({
        "name": "Autumn", "domain": "acme-outdoor.example", "maxBudget": 1000.0,
        "startDate": NOW + DAY, "endDate": NOW + 30 * DAY, "iabCategory": ["IAB20"],
        "flights": [{"maxBudget": 1000.0, "startDate": NOW + DAY, "endDate": NOW + 30 * DAY}]
    });
    let body = campaign.clone();
    let p = acme.clone();
    cases.same(
        &mut ws,
        "new campaign",
        json!({"kind": "campaign", "value": campaign}),
        Some(&acme),
        None,
        Op::Create,
        |ws| ws.create_campaign(&p, typed(body)).map(Saved::Target),
    );
    let mut backwards = campaign.clone();
    backwards["endDate"] = json!(NOW);
    backwards["flights"][0]["endDate"] = json!(NOW);
    let body = backwards.clone();
    let p = northwind.clone();
    let e = cases.same(
        &mut ws,
        "new campaign ending before it starts, dates in PT",
        json!({"kind": "campaign", "value": backwards}),
        Some(&northwind),
        None,
        Op::Create,
        |ws| ws.create_campaign(&p, typed(body)).map(Saved::Target),
    );
    assert!(fields(&e).contains(&"endDate"), "{e:?}");
    // Under a draft advertiser: advertiserId is filled in when it lands.
    let body = campaign.clone();
    let p = draft_adv.clone();
    let e = cases.same(
        &mut ws,
        "new campaign under a draft advertiser",
        json!({"kind": "campaign", "value": campaign}),
        Some(&draft_adv),
        None,
        Op::Create,
        |ws| ws.create_campaign(&p, typed(body)).map(Saved::Target),
    );
    assert!(!fields(&e).contains(&"advertiserId"), "{e:?}");
    let draft_campaign = ws
        .pending()
        .unwrap()
        .into_iter()
        .rev()
        .find(|c| c.target.kind == Kind::Campaign)
        .unwrap()
        .target;
    // A draft edited: still its create.
    let mut edited = ws.get(&draft_campaign).unwrap().unwrap().working;
    edited["maxBudget"] = json!(-5.0);
    let body = edited.clone();
    let t = draft_campaign.clone();
    let e = cases.same(
        &mut ws,
        "draft campaign edited",
        json!({"kind": "campaign", "value": edited}),
        Some(&draft_adv),
        Some(&draft_campaign),
        Op::Create,
        |ws| ws.update_campaign(&t, typed(body)).map(Saved::Seq),
    );
    assert!(fields(&e).contains(&"maxBudget"), "{e:?}");
    let mut posted = ws.get(&always_on).unwrap().unwrap().working;
    posted["endDate"] = posted["startDate"].clone();
    let body = posted.clone();
    let t = always_on.clone();
    let e = cases.same(
        &mut ws,
        "posted campaign ending as it starts",
        json!({"kind": "campaign", "value": posted}),
        Some(&acme),
        Some(&always_on),
        Op::Update,
        |ws| ws.update_campaign(&t, typed(body)).map(Saved::Seq),
    );
    assert!(fields(&e).contains(&"endDate"), "{e:?}");

    // ---- Ad orders ----
    let order = json!({
        "name": "Autumn display", "optimizationGoal": "CPM", "startDate": NOW + DAY,
        "endDate": NOW + 30 * DAY, "lifetimeBudget": 500.0
    });
    let body = order.clone();
    let p = spring.clone();
    cases.same(
        &mut ws,
        "new ad order",
        json!({"kind": "ad_order", "value": order}),
        Some(&spring),
        None,
        Op::Create,
        |ws| ws.create_ad_order(&p, typed(body)).map(Saved::Target),
    );
    let mut no_budget = order.clone();
    no_budget["lifetimeBudget"] = Value::Null;
    let body = no_budget.clone();
    let p = draft_campaign.clone();
    let e = cases.same(
        &mut ws,
        "new ad order under a draft campaign, no budget",
        json!({"kind": "ad_order", "value": no_budget}),
        Some(&draft_campaign),
        None,
        Op::Create,
        |ws| ws.create_ad_order(&p, typed(body)).map(Saved::Target),
    );
    assert_eq!(fields(&e), ["lifetimeBudget"]);
    let video = by_name(&ws, Kind::AdOrder, "Acme Spring - Video");
    let video_v = ws.get(&video).unwrap().unwrap().working;
    let mut paced = video_v.clone();
    paced["hourlyPacingMode"] = json!("SPEND_EVENLY");
    paced["name"] = json!("Acme Spring - Video (paced)");
    let body = paced.clone();
    let t = video.clone();
    let e = cases.same(
        &mut ws,
        "posted ad order paced without a frontload",
        json!({"kind": "ad_order", "value": paced}),
        Some(&spring),
        Some(&video),
        Op::Update,
        |ws| ws.update_ad_order(&t, typed(body)).map(Saved::Seq),
    );
    assert_eq!(fields(&e), ["hourlyFrontload"]);
    let mut later = video_v.clone();
    later["startDate"] = json!(NOW + 5 * DAY);
    let body = later.clone();
    let t = video.clone();
    let e = cases.same(
        &mut ws,
        "posted ad order start (ignored on update)",
        json!({"kind": "ad_order", "value": later}),
        Some(&spring),
        Some(&video),
        Op::Update,
        |ws| ws.update_ad_order(&t, typed(body)).map(Saved::Seq),
    );
    assert_eq!(fields(&e), ["startDate"]);

    // ---- Flight caps ----
    let spring_v = ws.get(&spring).unwrap().unwrap().working;
    let flight_ids: Vec<i64> = spring_v["flights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect();
    let first_flight = EntityRef::new(Kind::Flight, Key::Id(flight_ids[0]));
    let wave = by_name(&ws, Kind::AdOrder, "Acme Spring - Second Wave");
    let cap = json!({"flightId": flight_ids[0], "maxBudget": 100.0});
    let draft = json!({"kind": "flight_caps", "value": [cap], "campaignFlightIds": flight_ids,
        "flights": [target_json(&first_flight)]});
    let (o, f, c) = (wave.clone(), first_flight.clone(), cap.clone());
    cases.same(
        &mut ws,
        "caps on a posted flight",
        draft,
        Some(&wave),
        None,
        Op::Update,
        |ws| {
            ws.set_flight_caps_chosen(&o, vec![(typed(c), Some(f))])
                .map(Saved::Seq)
        },
    );
    let stray = json!({"flightId": 999_999, "maxBudget": 100.0});
    let draft = json!({"kind": "flight_caps", "value": [stray], "campaignFlightIds": flight_ids,
        "flights": [null]});
    let (o, c) = (video.clone(), stray.clone());
    let e = cases.same(
        &mut ws,
        "a cap on a flight of another campaign",
        draft,
        Some(&video),
        None,
        Op::Update,
        |ws| {
            ws.set_flight_caps_chosen(&o, vec![(typed(c), None)])
                .map(Saved::Seq)
        },
    );
    assert_eq!(fields(&e), ["[0].flightId"]);
    // A new flight of the campaign: the cap waits for its id.
    let mut with_new = spring_v.clone();
    with_new["flights"]
        .as_array_mut()
        .unwrap()
        .push(json!({"maxBudget": 500.0, "startDate": NOW + 62 * DAY, "endDate": NOW + 70 * DAY}));
    ws.update_campaign(&spring, typed(with_new)).unwrap();
    let new_flight = EntityRef::draft_flight(&spring, NOW + 62 * DAY);
    let on_new: FlightCap = typed(json!({"maxBudget": 50.0}));
    let draft = json!({"kind": "flight_caps", "value": [on_new], "campaignFlightIds": flight_ids,
        "flights": [target_json(&new_flight)]});
    let display = by_name(&ws, Kind::AdOrder, "Acme Spring - Display Prospecting");
    let (o, f, c) = (display.clone(), new_flight.clone(), on_new.clone());
    let e = cases.same(
        &mut ws,
        "a cap on a new flight",
        draft,
        Some(&display),
        None,
        Op::Update,
        |ws| {
            ws.set_flight_caps_chosen(&o, vec![(c, Some(f))])
                .map(Saved::Seq)
        },
    );
    assert!(e.is_empty(), "{e:?}");
    let draft = json!({"kind": "flight_caps", "value": [on_new, on_new],
        "campaignFlightIds": flight_ids, "flights": [null, target_json(&new_flight)]});
    let (o, f, c) = (display.clone(), new_flight.clone(), on_new.clone());
    let e = cases.same(
        &mut ws,
        "one cap unchosen beside one on a new flight",
        draft,
        Some(&display),
        None,
        Op::Update,
        |ws| {
            ws.set_flight_caps_chosen(&o, vec![(c.clone(), None), (c, Some(f))])
                .map(Saved::Seq)
        },
    );
    assert_eq!(fields(&e), ["[0].flightId"]);

    // ---- Creatives ----
    let banner = json!({
        "name": "Autumn banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
        "landingPageUrl": "https://acme-outdoor.example/", "size": {"width": 300, "height": 250}
    });
    let body = banner.clone();
    let p = acme.clone();
    cases.same(
        &mut ws,
        "new creative",
        json!({"kind": "creative", "value": banner}),
        Some(&acme),
        None,
        Op::Create,
        |ws| ws.create_creative(&p, typed(body)).map(Saved::Target),
    );
    let mut no_image = banner.clone();
    no_image.as_object_mut().unwrap().remove("imageUrl");
    let body = no_image.clone();
    let p = draft_campaign.clone();
    let e = cases.same(
        &mut ws,
        "new creative under a draft campaign, no image",
        json!({"kind": "creative", "value": no_image}),
        Some(&draft_campaign),
        None,
        Op::Create,
        |ws| ws.create_creative(&p, typed(body)).map(Saved::Target),
    );
    assert_eq!(fields(&e), ["imageUrl"]);
    let mut posted = banner.clone();
    posted["id"] = json!(42);
    let body = posted.clone();
    let e = cases.same(
        &mut ws,
        "posted creative (no update endpoint)",
        json!({"kind": "creative", "value": posted}),
        Some(&acme),
        Some(&EntityRef::new(Kind::Creative, Key::Id(42))),
        Op::Update,
        |ws| {
            ws.update_creative(&EntityRef::new(Kind::Creative, Key::Id(42)), typed(body))
                .map(Saved::Seq)
        },
    );
    assert_eq!(fields(&e), ["id"]);

    // ---- Site lists ----
    let list = json!({"name": "Blocked", "typeId": 5, "siteIds": [1, 2, 3]});
    let body = list.clone();
    cases.same(
        &mut ws,
        "new site list",
        json!({"kind": "site_list", "op": "add", "value": list}),
        None,
        None,
        Op::Create,
        |ws| ws.create_site_list(typed(body)).map(Saved::Target),
    );
    let blocked = by_name(&ws, Kind::SiteList, "Blocked");
    let odd = json!({"name": "Odd", "typeId": 7, "siteIds": [1]});
    let body = odd.clone();
    let e = cases.same(
        &mut ws,
        "new site list of no known type",
        json!({"kind": "site_list", "op": "add", "value": odd}),
        None,
        None,
        Op::Create,
        |ws| ws.create_site_list(typed(body)).map(Saved::Target),
    );
    assert!(fields(&e).contains(&"typeId"), "{e:?}");
    // The stored type decides: an id-based list takes sites, not rules. The form's body
    // carries no type of its own.
    let rules = json!({"rules": [{"name": "a.example", "type": "web"}]});
    let body = rules.clone();
    let l = blocked.clone();
    let e = cases.same(
        &mut ws,
        "rules appended to an id-based list",
        json!({"kind": "site_list", "op": "append", "value": rules}),
        None,
        Some(&blocked),
        Op::SiteListAppend,
        |ws| ws.append_sites(&l, typed(body)).map(Saved::Seq),
    );
    assert!(!e.is_empty(), "the stored type must be checked");
    let body = rules.clone();
    let l = blocked.clone();
    let e = cases.same(
        &mut ws,
        "rules overwriting an id-based list",
        json!({"kind": "site_list", "op": "overwrite", "value": rules}),
        None,
        Some(&blocked),
        Op::SiteListOverwrite,
        |ws| ws.overwrite_sites(&l, typed(body)).map(Saved::Seq),
    );
    assert!(!e.is_empty(), "the stored type must be checked");
    let sites = json!({"siteIds": [3, 4]});
    let body = sites.clone();
    let l = blocked.clone();
    cases.same(
        &mut ws,
        "sites appended",
        json!({"kind": "site_list", "op": "append", "value": sites}),
        None,
        Some(&blocked),
        Op::SiteListAppend,
        |ws| ws.append_sites(&l, typed(body)).map(Saved::Seq),
    );
    let remove = json!({"siteIds": [1], "rules": [{"name": "ignored.example", "type": "web"}]});
    let body = remove.clone();
    let l = blocked.clone();
    cases.same(
        &mut ws,
        "sites removed (only ids are sent)",
        json!({"kind": "site_list", "op": "remove", "value": remove}),
        None,
        Some(&blocked),
        Op::SiteListRemoveSites,
        |ws| ws.remove_sites(&l, typed(body)).map(Saved::Seq),
    );
    let nothing = json!({});
    let body = nothing.clone();
    let l = blocked.clone();
    let e = cases.same(
        &mut ws,
        "nothing removed",
        json!({"kind": "site_list", "op": "remove", "value": nothing}),
        None,
        Some(&blocked),
        Op::SiteListRemoveSites,
        |ws| ws.remove_sites(&l, typed(body)).map(Saved::Seq),
    );
    assert!(fields(&e).contains(&"siteIds"), "{e:?}");

    // ---- Audience segments and uploads ----
    let segment = json!({"name": "Buyers", "dataType": "email_sha256", "accountId": 1,
        "advertiserIds": [1], "externalAudienceId": "buyers-1"});
    let body = segment.clone();
    cases.same(
        &mut ws,
        "new segment",
        json!({"kind": "audience_segment", "value": segment}),
        None,
        None,
        Op::Create,
        |ws| ws.create_audience_segment(typed(body)).map(Saved::Target),
    );
    let buyers = by_name(&ws, Kind::AudienceSegment, "Buyers");
    let mut unnamed = ws.get(&buyers).unwrap().unwrap().working;
    unnamed["name"] = json!("");
    let body = unnamed.clone();
    let t = buyers.clone();
    let e = cases.same(
        &mut ws,
        "draft segment renamed to nothing",
        json!({"kind": "audience_segment", "value": unnamed}),
        None,
        Some(&buyers),
        Op::Create,
        |ws| ws.update_audience_segment(&t, typed(body)).map(Saved::Seq),
    );
    assert_eq!(fields(&e), ["name"]);
    let mut posted = segment.clone();
    posted["serviceSegmentId"] = json!("fpsegm1");
    let body = posted.clone();
    let e = cases.same(
        &mut ws,
        "posted segment (no update endpoint)",
        json!({"kind": "audience_segment", "value": posted}),
        None,
        Some(&EntityRef::new(
            Kind::AudienceSegment,
            Key::Segment("fpsegm1".into()),
        )),
        Op::Update,
        |ws| {
            ws.update_audience_segment(
                &EntityRef::new(Kind::AudienceSegment, Key::Segment("fpsegm1".into())),
                typed(body),
            )
            .map(Saved::Seq)
        },
    );
    assert_eq!(fields(&e), ["serviceSegmentId"]);

    let upload = |country: &str, value: &str| json!({"kind": "audience_data", "value": {"countryCode": country, "values": [value]}});
    let sha = "a".repeat(64);
    for (name, country, value) in [
        ("an upload to a draft segment", " us ", sha.as_str()),
        ("an upload with a bad country", "USA", sha.as_str()),
        ("an upload of a value that is no sha256", "US", "not-a-hash"),
    ] {
        let draft = upload(country, value);
        let request: flightdeck_offline::workspace::UploadRequest = typed(draft["value"].clone());
        let s = buyers.clone();
        cases.same(
            &mut ws,
            name,
            draft,
            Some(&buyers),
            None,
            Op::AudienceData,
            |ws| {
                ws.upload_audience_data_split(&s, request.records(), AUDIENCE_UPLOAD_MAX_BYTES)
                    .map(Saved::Seqs)
            },
        );
    }

    let covered: Vec<(&str, &str)> = cases
        .covered
        .iter()
        .map(|(k, o)| (k.as_str(), o.as_str()))
        .collect();
    assert_eq!(
        covered,
        [
            ("AdOrder", "Create"),
            ("AdOrder", "Update"),
            ("Advertiser", "Create"),
            ("Advertiser", "Update"),
            ("AudienceSegment", "AudienceData"),
            ("AudienceSegment", "Create"),
            ("AudienceSegment", "Update"),
            ("Campaign", "Create"),
            ("Campaign", "Update"),
            ("Creative", "Create"),
            ("Creative", "Update"),
            ("FlightCaps", "Update"),
            ("SiteList", "Create"),
            ("SiteList", "SiteListAppend"),
            ("SiteList", "SiteListOverwrite"),
            ("SiteList", "SiteListRemoveSites"),
        ]
    );
    assert!(
        cases.with_errors >= 15,
        "{} cases with errors",
        cases.with_errors
    );
    assert!(cases.refused >= 5, "{} refusals", cases.refused);
}
