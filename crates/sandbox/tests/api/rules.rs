//! Every validation rule, seen over HTTP: each case breaks one rule of a valid body and
//! expects a 400 whose message names the field, with the rule's code, and no change.

use serde_json::{Value, json};

use crate::support::{Api, DAY, NOW, ad_order_body, campaign_body};

/// Sets `path` (dotted, with numeric segments for array items) in a body.
fn set(mut body: Value, path: &str, value: Value) -> Value {
    let mut node = &mut body;
    let parts: Vec<&str> = path.split('.').collect();
    for part in &parts[..parts.len() - 1] {
        node = match part.parse::<usize>() {
            Ok(i) => &mut node[i],
            Err(_) => &mut node[*part],
        };
    }
    node[parts[parts.len() - 1]] = value;
    body
}

fn without(mut body: Value, key: &str) -> Value {
    body.as_object_mut().expect("object").remove(key);
    body
}

struct Case {
    path: String,
    body: Value,
    field: &'static str,
    code: &'static str,
}

fn case(path: &str, body: Value, field: &'static str, code: &'static str) -> Case {
    Case {
        path: path.to_owned(),
        body,
        field,
        code,
    }
}

#[tokio::test]
async fn each_rule_is_a_400_naming_its_field() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let campaign = api.campaign(adv).await;
    let flights = api
        .post(
            &format!("/v1/campaignflight/byCampaign/{campaign}"),
            json!([{"id": null, "maxBudget": 100.0, "startDate": NOW + DAY, "endDate": NOW + 5 * DAY}]),
        )
        .await
        .entity()
        .clone();
    let order = api.ad_order(campaign).await;
    let c = campaign_body(adv);
    let o = ad_order_body(campaign);
    let flight = json!({"id": null, "maxBudget": 100.0, "startDate": NOW + 10 * DAY, "endDate": NOW + 20 * DAY});
    let cap =
        json!({"id": null, "flightId": flights[0]["id"], "maxBudget": 50.0, "dailyBudget": 5.0});
    let banner = json!({"name": "B", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
        "type": {"mediaType": "BANNER"}, "advertiserId": adv,
        "imageUrl": "https://cdn.example.com/i.png", "landingPageUrl": "https://example.com"});
    let flights_path = format!("/v1/campaignflight/byCampaign/{campaign}");
    let caps_path = format!("/v1/campaignflightcaps/byAdOrder/{}", order["id"]);
    let list = json!({"name": "L", "typeId": 5, "siteIds": [1]});

    let cases = vec![
        // Campaigns.
        case(
            "/v1/campaign/save",
            set(c.clone(), "domain", json!("not a domain")),
            "domain",
            "INVALID",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "maxBudget", json!(0)),
            "maxBudget",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "dailyBudget", json!(20000.0)),
            "dailyBudget",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "endDate", json!(NOW)),
            "endDate",
            "INVALID",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "iabCategory", json!(["Sports"])),
            "iabCategory[0]",
            "INVALID",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "iabCategory", json!([])),
            "iabCategory",
            "REQUIRED",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "markupRate", json!(-0.1)),
            "markupRate",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "lifetimeImpressionCap", json!(-1)),
            "lifetimeImpressionCap",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(
                set(c.clone(), "minBidMultiplier", json!(2.0)),
                "maxBidMultiplier",
                json!(1.0),
            ),
            "minBidMultiplier",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "intradayFrontloadPct", json!(150)),
            "intradayFrontloadPct",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/campaign/save",
            set(c.clone(), "dailyFrequencyCap", json!(0)),
            "dailyFrequencyCap",
            "OUT_OF_RANGE",
        ),
        // Flights.
        case(
            &flights_path,
            json!([set(flight.clone(), "budgetType", json!("FIXED_BUDGET"))]),
            "flights[0].dailyBudget",
            "REQUIRED",
        ),
        case(
            &flights_path,
            json!([set(flight.clone(), "dailyFrontload", json!(101))]),
            "flights[0].dailyFrontload",
            "OUT_OF_RANGE",
        ),
        case(
            &flights_path,
            json!([set(
                set(flight.clone(), "dailyImpCap", json!(10)),
                "lifetimeImpCap",
                json!(5)
            )]),
            "flights[0].dailyImpCap",
            "OUT_OF_RANGE",
        ),
        case(
            &flights_path,
            json!([without(flight.clone(), "maxBudget")]),
            "flights[0].maxBudget",
            "REQUIRED",
        ),
        case(
            &flights_path,
            json!([set(flight.clone(), "endDate", json!(NOW + 10 * DAY))]),
            "flights[0].endDate",
            "INVALID",
        ),
        // Ad orders.
        case(
            "/v1/adorder/save",
            without(o.clone(), "lifetimeBudget"),
            "lifetimeBudget",
            "REQUIRED",
        ),
        case(
            "/v1/adorder/save",
            without(o.clone(), "campaignId"),
            "campaignId",
            "REQUIRED",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "channelsV2", json!(["Radio"])),
            "channelsV2[0]",
            "INVALID",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "max_bid", json!(0)),
            "max_bid",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "vcrGoal", json!(1.5)),
            "vcrGoal",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "ctrGoal", json!(2)),
            "ctrGoal",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "cpaGoal", json!(0)),
            "cpaGoal",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(
                o.clone(),
                "frequencyCap",
                json!({"limit": 0, "duration": 1, "timePeriod": "DAY"}),
            ),
            "frequencyCap.limit",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(
                o.clone(),
                "audiences",
                json!([{"name": "A", "weight": 101}]),
            ),
            "audiences[0].weight",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/adorder/save",
            set(
                o.clone(),
                "audiences",
                json!([{"name": "A", "exchanges": {"include": [4], "exclude": [4]}}]),
            ),
            "audiences[0].exchanges.exclude",
            "INVALID",
        ),
        case(
            "/v1/adorder/save",
            set(o.clone(), "endDate", json!(NOW)),
            "endDate",
            "INVALID",
        ),
        // Flight caps.
        case(
            &caps_path,
            json!([without(cap.clone(), "maxBudget")]),
            "[0].maxBudget",
            "REQUIRED",
        ),
        case(
            &caps_path,
            json!([set(cap.clone(), "dailyBudget", json!(60.0))]),
            "[0].dailyBudget",
            "OUT_OF_RANGE",
        ),
        case(
            &caps_path,
            json!([without(cap.clone(), "flightId")]),
            "[0].flightId",
            "REQUIRED",
        ),
        // Creatives.
        case(
            "/v1/creative/save",
            set(banner.clone(), "landingPageUrl", json!("ftp://example.com")),
            "landingPageUrl",
            "INVALID",
        ),
        case(
            "/v1/creative/save",
            set(
                banner.clone(),
                "video",
                json!({"vastUrl": "https://v.example.com"}),
            ),
            "video",
            "NOT_APPLICABLE",
        ),
        case(
            "/v1/creative/save",
            set(banner.clone(), "impressionTrackingPixel_4", json!("pixel")),
            "impressionTrackingPixel_4",
            "INVALID",
        ),
        // Site lists.
        case(
            "/v1/site-list/addNewSiteList",
            set(list.clone(), "siteIds", json!([0])),
            "siteIds[0]",
            "OUT_OF_RANGE",
        ),
        case(
            "/v1/site-list/addNewSiteList",
            set(
                list.clone(),
                "rules",
                json!([{"name": "a.example", "type": "web"}]),
            ),
            "rules",
            "NOT_APPLICABLE",
        ),
        case(
            "/v1/site-list/addNewSiteList",
            json!({"name": "R", "typeId": 1, "strategy": "broad", "rules": [{"name": "a b", "type": "web"}]}),
            "rules[0].name",
            "INVALID",
        ),
        case(
            "/v1/site-list/addNewSiteList",
            set(list.clone(), "siteIds", json!([])),
            "siteIds",
            "REQUIRED",
        ),
        // Advertisers.
        case(
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": 1, "currency": "usd", "category": "IAB3"}),
            "currency",
            "INVALID",
        ),
        case(
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": 1, "currency": "USD", "category": "Sports"}),
            "category",
            "INVALID",
        ),
        case(
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": 2, "currency": "USD", "category": "IAB3"}),
            "agencyId",
            "BAD_REFERENCE",
        ),
    ];

    let snapshot = || async {
        (
            api.get("/v1/adorder/getAllAdOrders").await.body,
            api.get(&format!("/v1/campaign/getCampaignsByAdvertiser?id={adv}"))
                .await
                .body,
            api.get("/v1/advertiser").await.body,
        )
    };
    let before = snapshot().await;
    let mut failures = Vec::new();
    for Case {
        path,
        body,
        field,
        code,
    } in cases
    {
        let r = api.post(&path, body.clone()).await;
        let prefix = format!("{field}: ");
        let hit = r.status == reqwest::StatusCode::BAD_REQUEST
            && r.body["messages"].as_array().is_some_and(|ms| {
                ms.iter().any(|m| {
                    m["message"]
                        .as_str()
                        .is_some_and(|t| t.starts_with(&prefix))
                        && m["code"] == code
                })
            });
        if !hit {
            failures.push(format!(
                "{path} {body}\n  wanted {field} {code}, got {} {}",
                r.status, r.body
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(before, snapshot().await, "rejected requests stored nothing");
}

#[tokio::test]
async fn audience_rules_are_named_in_the_error_text() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let base = json!({"name": "S", "dataType": "ip", "accountId": 1, "advertiserIds": [adv], "externalAudienceId": "e1"});
    for (body, field) in [
        (without(base.clone(), "advertiserIds"), "advertiserIds"),
        (
            without(base.clone(), "externalAudienceId"),
            "externalAudienceId",
        ),
        (without(base.clone(), "dataType"), "dataType"),
        (
            set(base.clone(), "description", json!("d".repeat(1001))),
            "description",
        ),
        (set(base.clone(), "ttl", json!(32_000_001)), "ttl"),
        (
            set(base.clone(), "advertiserIds", json!([987_654])),
            "advertiserIds[0]",
        ),
    ] {
        let r = api.post("/v1/audiences", body.clone()).await;
        assert_eq!(r.status, reqwest::StatusCode::BAD_REQUEST, "{body}");
        let text = r.body["error"].as_str().expect("{error}");
        assert!(
            text.contains(&format!("{field}: ")),
            "{field} not in {text}"
        );
    }
    let seg = api.post("/v1/audiences", base).await.body;
    let id = seg["serviceSegmentId"].as_str().expect("id");
    let data = format!("/v1/audiences/{id}/data");
    let r = api
        .post(
            &data,
            json!([{"serviceSegmentId": id, "countryCode": "US",
                    "values": ["10.0.0.1", "999.0.0.1", "::1", "10.0.0.1"]}]),
        )
        .await;
    assert_eq!(r.status, reqwest::StatusCode::BAD_REQUEST);
    assert_eq!(r.body["bad_records"], 1, "{}", r.body);
    let details = r.body["bad_records_details"].as_str().expect("details");
    for field in ["[0].values[1]: ", "[0].values[2]: "] {
        assert!(
            details.contains(field),
            "only IPv4 addresses fit an ip segment: {field} not in {details}"
        );
    }
    let r = api
        .post(
            &data,
            json!([{"serviceSegmentId": id, "countryCode": "US", "values": ["10.0.0.1", "10.0.0.1"]}]),
        )
        .await;
    assert_eq!(r.body["published"], 1, "{}", r.body);
    let one = api.get(&format!("/v1/audiences/{id}")).await;
    assert_eq!(one.body["dataCount"], 1, "an identifier counts once");
}
