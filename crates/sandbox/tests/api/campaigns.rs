use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, DAY, NOW, campaign_body, keys, sorted};

const CAMPAIGN_SHAPE: &[&str] = &[
    "id",
    "advertiserId",
    "name",
    "domain",
    "maxBudget",
    "dailyBudget",
    "dailyFrequencyCap",
    "frequencyCapDuration",
    "frequencyCapTimePeriod",
    "startDate",
    "endDate",
    "iabCategory",
    "markupRate",
    "lifetimeImpressionCap",
    "dailyImpressionCap",
    "lifetimeClickCap",
    "dailyClickCap",
    "ioNumber",
    "externalCampaignId",
    "minBidMultiplier",
    "maxBidMultiplier",
    "autoAdvertising",
    "pacingMode",
    "intradayFrontloadPct",
    "objective",
    "channelGroup",
    "hasFlights",
    "flights",
];
const FLIGHT_SHAPE: &[&str] = &[
    "id",
    "status",
    "budgetType",
    "dailyBudget",
    "dailyFrontload",
    "maxBudget",
    "remainingBudget",
    "dailyImpCap",
    "lifetimeImpCap",
    "startDate",
    "endDate",
];

fn flight(start: i64, end: i64, budget: f64) -> Value {
    json!({"id": null, "budgetType": "AUTO_BUDGET", "maxBudget": budget, "startDate": start, "endDate": end})
}

#[tokio::test]
async fn save_with_flights_only_takes_campaign_values_from_the_flight() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let r = api
        .post(
            "/v1/campaign/save",
            json!({"advertiserId": adv, "name": "Flighted", "domain": "acme.com",
                   "iabCategory": ["IAB3"], "channelGroup": "MOBILE_COMPUTER_CTV",
                   "flights": [flight(NOW - DAY, NOW + 9 * DAY, 700.0)]}),
        )
        .await;
    let c = r.entity();
    assert_eq!(keys(c), sorted(CAMPAIGN_SHAPE));
    assert_eq!(c["hasFlights"], true);
    assert_eq!(c["maxBudget"], 700.0);
    assert_eq!(c["startDate"], NOW - DAY);
    assert_eq!(c["endDate"], NOW + 9 * DAY);
    assert_eq!(c["autoAdvertising"], false);
    assert_eq!(c["pacingMode"], "SPEND_EVENLY");
    assert_eq!(c["intradayFrontloadPct"], 0.0);
    let f = &c["flights"][0];
    assert_eq!(keys(f), sorted(FLIGHT_SHAPE));
    assert!(f["id"].is_i64());
    assert_eq!(f["status"], "ACTIVE", "a flight running now is ACTIVE");
}

#[tokio::test]
async fn save_without_flights_and_list_by_advertiser() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let r = api.post("/v1/campaign/save", campaign_body(adv)).await;
    let c = r.entity();
    assert_eq!(c["hasFlights"], false);
    assert_eq!(c["flights"], json!([]));
    let listed = api
        .get(&format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}"))
        .await;
    let list = listed.entity().as_array().expect("array");
    assert_eq!(list.len(), 1);
    assert_eq!(&list[0], c);
    let missing = api
        .get("/v1/campaign/getCampaignsByAdvertiser?id=987654")
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let bad = api
        .get("/v1/campaign/getCampaignsByAdvertiser?id=abc")
        .await;
    assert!(bad.names_field("id"));
}

#[tokio::test]
async fn required_fields_and_frequency_cap_triple() {
    let api = Api::start().await;
    let r = api
        .post("/v1/campaign/save", json!({"dailyFrequencyCap": 3}))
        .await;
    for field in [
        "advertiserId",
        "name",
        "domain",
        "maxBudget",
        "startDate",
        "endDate",
        "iabCategory",
        "frequencyCapDuration",
        "frequencyCapTimePeriod",
    ] {
        assert!(
            r.names_field(field),
            "{field} missing from {:?}",
            r.errors()
        );
    }
    let adv = api.advertiser("Acme").await;
    let mut body = campaign_body(adv);
    body["dailyFrequencyCap"] = json!(3);
    body["frequencyCapDuration"] = json!(1);
    body["frequencyCapTimePeriod"] = json!("DAY");
    assert_eq!(
        api.post("/v1/campaign/save", body).await.entity()["frequencyCapTimePeriod"],
        "DAY"
    );
}

#[tokio::test]
async fn client_id_is_exclusive_on_input_and_doubled_on_output() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let mut body = campaign_body(adv);
    for external in ["EXT-1", "IO-1"] {
        // Different or equal, both ids together are a conflict.
        body["ioNumber"] = json!("IO-1");
        body["externalCampaignId"] = json!(external);
        let r = api.post("/v1/campaign/save", body.clone()).await;
        assert!(r.names_field("externalCampaignId"), "{external}");
        assert_eq!(r.codes(), ["IDENTIFIER_CONFLICT"], "{external}");
    }
    let listed = api
        .get(&format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}"))
        .await;
    assert_eq!(listed.entity(), &json!([]), "nothing stored");

    body.as_object_mut()
        .expect("obj")
        .remove("externalCampaignId");
    let c = api.post("/v1/campaign/save", body).await.entity().clone();
    assert_eq!(c["ioNumber"], "IO-1");
    assert_eq!(c["externalCampaignId"], "IO-1");
    // An update that does not mention the client id keeps it.
    let u = api
        .post(
            "/v1/campaign/save",
            json!({"id": c["id"], "name": "Renamed"}),
        )
        .await;
    assert_eq!(u.entity()["externalCampaignId"], "IO-1");
    assert_eq!(u.entity()["maxBudget"], c["maxBudget"]);
    assert_eq!(u.entity()["name"], "Renamed");
}

#[tokio::test]
async fn a_listed_campaign_sent_back_with_both_ids_is_refused_and_with_one_is_kept() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let mut body = campaign_body(adv);
    body["externalCampaignId"] = json!("EXT-3");
    let created = api.post("/v1/campaign/save", body).await.entity().clone();
    let list = format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}");
    let mut echo = api.get(&list).await.entity()[0].clone();
    assert_eq!(echo["ioNumber"], "EXT-3");
    assert_eq!(echo["externalCampaignId"], "EXT-3");

    echo["name"] = json!("Renamed");
    let r = api.post("/v1/campaign/save", echo.clone()).await;
    assert_eq!(r.codes(), ["IDENTIFIER_CONFLICT"]);
    assert_eq!(api.get(&list).await.entity()[0], created, "nothing changed");

    // Sent back with the one id the buyer set.
    echo.as_object_mut().expect("obj").remove("ioNumber");
    let updated = api.post("/v1/campaign/save", echo).await.entity().clone();
    assert_eq!(updated["name"], "Renamed");
    assert_eq!(updated["externalCampaignId"], "EXT-3");
    assert_eq!(updated["ioNumber"], "EXT-3");
}

#[tokio::test]
async fn a_budget_type_outside_the_catalogue_is_refused_on_both_flight_paths() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let mut odd = flight(NOW + DAY, NOW + 10 * DAY, 100.0);
    odd["budgetType"] = json!("WEEKLY_BUDGET");
    let mut body = campaign_body(adv);
    body["flights"] = json!([flight(NOW + 20 * DAY, NOW + 30 * DAY, 100.0), odd.clone()]);
    let r = api.post("/v1/campaign/save", body).await;
    assert!(r.names_field("flights[1].budgetType"), "{:?}", r.errors());
    assert_eq!(r.codes(), ["INVALID"]);
    assert!(r.errors()[0].contains("AUTO_BUDGET"), "{:?}", r.errors());

    let campaign = api.campaign(adv).await;
    let r = api
        .post(
            &format!("/v1/campaignflight/byCampaign/{campaign}"),
            json!([odd]),
        )
        .await;
    assert!(r.names_field("flights[0].budgetType"), "{:?}", r.errors());
    let r = api
        .post(
            &format!("/v1/campaignflight/byCampaign/{campaign}"),
            json!([flight(NOW + DAY, NOW + 10 * DAY, 100.0)]),
        )
        .await;
    assert_eq!(r.entity()[0]["budgetType"], "AUTO_BUDGET");
}

#[tokio::test]
async fn overlap_messages_give_dates_in_the_advertiser_timezone() {
    let api = Api::start().await;
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "Eastern", "agencyId": 1, "currency": "USD", "category": "IAB3",
                   "timezoneName": "ET"}),
        )
        .await;
    let adv = r.entity()["id"].as_i64().expect("id");
    // Midnight Eastern: 1 Feb, 10 Feb, 20 Feb and 1 Mar 2027 at 05:00 UTC.
    let (feb1, feb10, feb20, mar1) = (
        1_801_458_000_000,
        1_802_235_600_000,
        1_803_099_600_000,
        1_803_877_200_000,
    );
    let mut body = campaign_body(adv);
    body["flights"] = json!([flight(feb1, feb20, 100.0), flight(feb10, mar1, 100.0)]);
    let r = api.post("/v1/campaign/save", body).await;
    let text = r.errors().join("\n");
    assert!(r.codes().contains(&"OVERLAP".to_owned()), "{text}");
    assert!(text.contains("1 Feb 2027 – 20 Feb 2027"), "{text}");
    assert!(!text.contains("UTC") && !text.contains("05:00"), "{text}");
}

#[tokio::test]
async fn overlapping_flights_in_save_are_rejected_by_index() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let r = api
        .post(
            "/v1/campaign/save",
            json!({"advertiserId": adv, "name": "X", "domain": "acme.com", "iabCategory": ["IAB3"],
                   "flights": [flight(NOW + DAY, NOW + 10 * DAY, 100.0), flight(NOW + 5 * DAY, NOW + 20 * DAY, 100.0)]}),
        )
        .await;
    assert!(r.names_field("flights[1].startDate"), "{:?}", r.errors());
    assert!(r.codes().contains(&"OVERLAP".to_owned()));
    let listed = api
        .get(&format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}"))
        .await;
    assert_eq!(listed.entity(), &json!([]), "nothing was stored");
}

#[tokio::test]
async fn flight_endpoint_creates_updates_and_checks_dates() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let campaign = api.campaign(adv).await;
    let path = format!("/v1/campaignflight/byCampaign/{campaign}");

    let past = api
        .post(&path, json!([flight(NOW - DAY, NOW + DAY, 50.0)]))
        .await;
    assert!(past.names_field("flights[0].startDate"));
    assert!(past.codes().contains(&"START_IN_PAST".to_owned()));

    let created = api
        .post(
            &path,
            json!([
                flight(NOW + DAY, NOW + 10 * DAY, 100.0),
                flight(NOW + 10 * DAY, NOW + 20 * DAY, 200.0)
            ]),
        )
        .await;
    let flights = created.entity().as_array().expect("array").clone();
    assert_eq!(flights.len(), 2, "back-to-back flights do not overlap");
    assert!(flights.iter().all(|f| f["status"] == "PENDING"));

    let overlap = api
        .post(&path, json!([flight(NOW + 15 * DAY, NOW + 25 * DAY, 10.0)]))
        .await;
    assert!(overlap.names_field("flights[0].startDate"));
    let msg = overlap.errors().join(" ");
    assert!(
        msg.contains(&flights[1]["id"].to_string()),
        "names the stored flight: {msg}"
    );

    // Updating one flight returns all of them, with the rest untouched.
    let upd = api
        .post(&path, json!([{"id": flights[0]["id"], "maxBudget": 150.0}]))
        .await;
    let all = upd.entity().as_array().expect("array");
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["maxBudget"], 150.0);
    assert_eq!(all[0]["startDate"], NOW + DAY);
    assert_eq!(all[1], flights[1]);

    let foreign = api
        .post(&path, json!([{"id": 424242, "maxBudget": 1.0}]))
        .await;
    assert!(foreign.names_field("flights[0].id"));
    assert_eq!(
        api.post("/v1/campaignflight/byCampaign/777777", json!([]))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn flight_status_follows_the_clock() {
    let mut api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let campaign = api.campaign(adv).await;
    let path = format!("/v1/campaignflight/byCampaign/{campaign}");
    api.post(&path, json!([flight(NOW + DAY, NOW + 3 * DAY, 100.0)]))
        .await
        .entity();
    let status = |r: crate::support::Reply| r.entity()[0]["flights"][0]["status"].clone();
    let list = format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}");
    assert_eq!(status(api.get(&list).await), "PENDING");
    api.travel(2 * DAY).await;
    assert_eq!(status(api.get(&list).await), "ACTIVE");
    api.travel(2 * DAY).await;
    assert_eq!(status(api.get(&list).await), "COMPLETED");
}

#[tokio::test]
async fn foreign_advertiser_is_a_bad_reference() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let rival = api.sign_in("rival", "rival").await;
    let r = api
        .post_as(&rival, "/v1/campaign/save", campaign_body(adv))
        .await;
    assert!(r.names_field("advertiserId"));
    let r = api
        .get_as(
            &rival,
            &format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}"),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_pacing_mode_outside_the_catalogue_is_refused_on_update_too() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let campaign = api.campaign(adv).await;
    // The model lets a listed campaign carry a value it does not know back; the service
    // still refuses one it does not support when it is sent.
    let r = api
        .post(
            "/v1/campaign/save",
            json!({"id": campaign, "pacingMode": "SPEND_WISELY"}),
        )
        .await;
    assert!(r.names_field("pacingMode"), "{:?}", r.errors());
    assert_eq!(r.codes(), ["INVALID"]);
    let r = api
        .post(
            "/v1/campaign/save",
            json!({"id": campaign, "name": "Renamed", "pacingMode": "ASAP"}),
        )
        .await;
    assert_eq!(r.entity()["pacingMode"], "ASAP", "{:?}", r.errors());
}
