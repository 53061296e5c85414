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
    body["ioNumber"] = json!("IO-1");
    body["externalCampaignId"] = json!("EXT-1");
    let r = api.post("/v1/campaign/save", body.clone()).await;
    assert!(r.names_field("externalCampaignId"));
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
