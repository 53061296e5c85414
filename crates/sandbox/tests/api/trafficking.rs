//! The trafficking endpoints from the service's reference: creative listings, a
//! campaign's ad orders, ad-order status; and the admin routes that review creatives
//! and associate them with ad orders.

use flightdeck_sandbox::{Config, Seed};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{self, NOW};
use crate::support::{Api, DAY};

const ADMIN: &str = "trafficking-admin-token";

// Demo ids, in seeding order (checked by name where they are used).
const SPRING: i64 = 1;
const SPRING_DISPLAY: i64 = 1;
const SPRING_VIDEO: i64 = 2;
const SPRING_SECOND_WAVE: i64 = 3;
const RIVAL_CAMPAIGN: i64 = 5;
const RIVAL_ORDER: i64 = 11;

async fn start() -> Api {
    let server = common::start_with(Config {
        seed: Seed::Demo,
        clock_start: Some(NOW),
        admin_token: Some(ADMIN.into()),
        ..Config::default()
    })
    .await;
    let token = server.user_token("demo", "demo").await;
    Api { server, token }
}

async fn admin(
    api: &Api,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut req = api
        .http
        .request(method, api.url(path))
        .header("x-sandbox-admin-token", ADMIN);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("admin request");
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn names(listing: &Value) -> Vec<&str> {
    listing
        .as_array()
        .expect("array")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect()
}

fn status_body(id: i64, status: i64) -> Value {
    json!({"id": id, "status": status})
}

#[tokio::test]
async fn a_campaigns_creatives_carry_the_reference_fields() {
    let api = start().await;
    let r = api.get(&format!("/v1/campaign/{SPRING}/creatives")).await;
    let list = r.entity();
    assert_eq!(
        names(list),
        [
            "Acme Spring - 300x250",
            "Acme Spring - 15s Video",
            "Acme Spring - 728x90"
        ]
    );
    let tag = &list[0];
    let mut keys: Vec<&str> = tag
        .as_object()
        .expect("obj")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "adTagId",
            "bitRate",
            "channels",
            "crawlableUrl",
            "duration",
            "externalCreativeid",
            "id",
            "impressionTrackingPixel_1",
            "impressionTrackingPixel_2",
            "impressionTrackingPixel_3",
            "impressionTrackingPixel_4",
            "landingPageUrl",
            "name",
            "size",
            "status",
            "type",
        ],
        "the listing has the reference's fields and no type-specific payload"
    );
    assert_eq!(tag["status"], "APPROVED");
    assert_eq!(
        tag["type"],
        json!({"id": 1, "vendor": "Third-party ad tag", "mediaType": "BANNER", "videoType": null})
    );
    assert_eq!(tag["size"], json!({"width": 300, "height": 250}));
    assert_eq!(tag["channels"], json!(["MOBILE", "DESKTOP"]));
    assert_eq!(tag["adTagId"], format!("tag-{}", tag["id"]));
    assert_eq!(
        (&tag["duration"], &tag["bitRate"]),
        (&Value::Null, &Value::Null)
    );

    let video = &list[1];
    assert_eq!(video["type"]["videoType"], "MP4");
    assert_eq!(video["type"]["mediaType"], "VAST");
    assert_eq!(
        (video["duration"].as_f64(), video["bitRate"].as_f64()),
        (Some(15.0), Some(2500.0))
    );
    assert_eq!(
        video["channels"],
        json!(["MOBILE", "DESKTOP", "CONNECTED_TV"])
    );
    assert_eq!(video["adTagId"], Value::Null);
    assert_eq!(video["externalCreativeid"], "ACME-SPRING-VID");
    assert_eq!(
        video["landingPageUrl"],
        "https://acme-outdoor.example/spring"
    );
    assert!(video.get("video").is_none());

    let banner = &list[2];
    assert_eq!(banner["status"], "PENDING");
    assert_eq!(banner["size"], json!({"width": 728, "height": 90}));
}

#[tokio::test]
async fn a_new_creative_is_pending_in_its_campaign_until_review_moves_it() {
    let api = start().await;
    let adv = api.advertiser("Fresh").await;
    let campaign = api.campaign(adv).await;
    let saved = api
        .post(
            "/v1/creative/save",
            json!({"name": "Fresh tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
                   "type": {"mediaType": "BANNER"}, "campaignId": campaign,
                   "size": {"width": 300, "height": 250}, "htmlAsset": "<b>ad</b>",
                   "externalCreativeid": "ref-1",
                   "impressionTrackingPixel_2": "https://px.example/2"}),
        )
        .await;
    let id = saved.entity()["id"].as_i64().expect("id");
    assert_eq!(saved.entity()["status"], "PENDING");
    let path = format!("/v1/campaign/{campaign}/creatives");
    let listed = api.get(&path).await.entity().clone();
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(listed[0]["status"], "PENDING");
    assert_eq!(listed[0]["externalCreativeid"], "ref-1");
    assert_eq!(
        listed[0]["impressionTrackingPixel_2"],
        "https://px.example/2"
    );
    assert_eq!(listed[0]["impressionTrackingPixel_1"], Value::Null);

    let review = format!("/_sandbox/creatives/{id}/status");
    let (status, body) = admin(
        &api,
        reqwest::Method::PUT,
        &review,
        Some(json!({"status": "APPROVED"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "APPROVED");
    assert_eq!(api.get(&path).await.entity()[0]["status"], "APPROVED");

    let (status, body) = admin(
        &api,
        reqwest::Method::PUT,
        &review,
        Some(json!({"status": "LIVE"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("VIOLATION"),
        "{body}"
    );
    let (status, _) = admin(
        &api,
        reqwest::Method::PUT,
        "/_sandbox/creatives/999/status",
        Some(json!({"status": "APPROVED"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Without the admin token the route does not exist.
    let resp = api
        .http
        .put(api.url(&review))
        .json(&json!({"status": "DISABLED"}))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(api.get(&path).await.entity()[0]["status"], "APPROVED");
}

#[tokio::test]
async fn an_ad_orders_creatives_are_its_associations() {
    let api = start().await;
    let r = api
        .get(&format!(
            "/v1/creative/getCreativesByAdOrder/{SPRING_DISPLAY}"
        ))
        .await;
    assert_eq!(
        names(r.entity()),
        ["Acme Spring - 300x250", "Acme Spring - 728x90"]
    );
    let path = format!("/v1/creative/getCreativesByAdOrder/{SPRING_SECOND_WAVE}");
    assert_eq!(
        names(api.get(&path).await.entity()),
        ["Acme Spring - 300x250"]
    );

    // The video (creative 2) is associated through the admin route; twice changes nothing.
    for _ in 0..2 {
        let (status, body) = admin(
            &api,
            reqwest::Method::POST,
            "/_sandbox/creative-ad-orders",
            Some(json!({"creativeId": 2, "adOrderId": SPRING_SECOND_WAVE})),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    assert_eq!(
        names(api.get(&path).await.entity()),
        ["Acme Spring - 300x250", "Acme Spring - 15s Video"]
    );
    // A creative of another advertiser (Bluebird's, creative 4) is refused.
    let (status, body) = admin(
        &api,
        reqwest::Method::POST,
        "/_sandbox/creative-ad-orders",
        Some(json!({"creativeId": 4, "adOrderId": SPRING_SECOND_WAVE})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("advertiser"),
        "{body}"
    );
    let (status, _) = admin(
        &api,
        reqwest::Method::POST,
        "/_sandbox/creative-ad-orders",
        Some(json!({"creativeId": 2, "adOrderId": 999})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // An ad order with no creatives lists none.
    assert_eq!(
        api.get("/v1/creative/getCreativesByAdOrder/8")
            .await
            .entity(),
        &json!([])
    );

    // A creative of the advertiser alone joins a campaign's listing once it serves on
    // one of the campaign's ad orders (Acme Always-On: campaign 2, ad order 4).
    let saved = api
        .post(
            "/v1/creative/save",
            json!({"name": "Acme evergreen", "creativeType": "VIDEO", "creativeSubtype": "VASTURL",
                   "type": {"mediaType": "VAST"}, "advertiserId": 1,
                   "video": {"vastUrl": "https://ads.example/vast.xml"}}),
        )
        .await;
    let id = saved.entity()["id"].as_i64().expect("id");
    let always_on = "/v1/campaign/2/creatives";
    assert_eq!(api.get(always_on).await.entity(), &json!([]));
    let (status, _) = admin(
        &api,
        reqwest::Method::POST,
        "/_sandbox/creative-ad-orders",
        Some(json!({"creativeId": id, "adOrderId": 4})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let listed = api.get(always_on).await.entity().clone();
    assert_eq!(names(&listed), ["Acme evergreen"]);
    assert_eq!(
        listed[0]["type"]["videoType"],
        Value::Null,
        "a VAST tag names no file"
    );
    assert_eq!(listed[0]["duration"], Value::Null);
}

#[tokio::test]
async fn a_campaigns_ad_orders_are_those_of_get_all_ad_orders() {
    let api = start().await;
    let all = api.get("/v1/adorder/getAllAdOrders").await.entity().clone();
    let mine: Vec<&Value> = all
        .as_array()
        .expect("array")
        .iter()
        .filter(|o| o["campaignId"] == SPRING)
        .collect();
    let r = api
        .get(&format!("/v1/adorder/getAdOrdersByCampaign?id={SPRING}"))
        .await;
    let listed: Vec<&Value> = r.entity().as_array().expect("array").iter().collect();
    assert_eq!(listed, mine);
    assert_eq!(listed.len(), 3);
    assert!(
        listed.iter().all(|o| o.get("status").is_none()),
        "no status, as the reference"
    );

    let missing = api.get("/v1/adorder/getAdOrdersByCampaign").await;
    assert!(missing.names_field("id"));
    let malformed = api.get("/v1/adorder/getAdOrdersByCampaign?id=abc").await;
    assert!(malformed.names_field("id"));
    assert_eq!(
        api.get("/v1/adorder/getAdOrdersByCampaign?id=999")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn another_accounts_ids_are_not_found_and_credentials_are_checked() {
    let api = start().await;
    let rival = api.sign_in("rival", "rival").await;
    let path_of = |id: i64| {
        [
            format!("/v1/campaign/{id}/creatives"),
            format!("/v1/creative/getCreativesByAdOrder/{id}"),
            format!("/v1/adorder/getAdOrdersByCampaign?id={id}"),
        ]
    };
    let theirs = path_of(SPRING);
    for (path, unknown) in theirs.iter().zip(path_of(999)) {
        let r = api.get_as(&rival, path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.body);
        let unknown = api.get(&unknown).await;
        assert_eq!(
            unknown.body["messages"][0]["message"]
                .as_str()
                .map(|m| m.replace("999", "1")),
            r.body["messages"][0]["message"].as_str().map(str::to_owned),
            "worded as an unknown id"
        );
    }
    let r = api
        .post_as(
            &rival,
            "/v1/adorder/updateStatus",
            status_body(SPRING_DISPLAY, 3),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    // The rival's own data answers.
    let own = api
        .get_as(&rival, &format!("/v1/campaign/{RIVAL_CAMPAIGN}/creatives"))
        .await;
    assert_eq!(names(own.entity()), ["Rival Motors - 300x250"]);
    let own = api
        .get_as(
            &rival,
            &format!("/v1/creative/getCreativesByAdOrder/{RIVAL_ORDER}"),
        )
        .await;
    assert_eq!(names(own.entity()), ["Rival Motors - 300x250"]);
    assert_eq!(
        api.get(&format!("/v1/campaign/{RIVAL_CAMPAIGN}/creatives"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );

    // No credentials: 401. A viewer reads but may not change a status.
    for path in &theirs {
        let resp = api.http.get(api.url(path)).send().await.expect("request");
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let viewer = api.sign_in("viewer", "viewer").await;
    for path in &theirs {
        assert_eq!(
            api.get_as(&viewer, path).await.status,
            StatusCode::OK,
            "{path}"
        );
    }
    let r = api
        .post_as(
            &viewer,
            "/v1/adorder/updateStatus",
            status_body(SPRING_DISPLAY, 3),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let (_, stored) = admin(
        &api,
        reqwest::Method::GET,
        &format!("/_sandbox/adorders/{SPRING_DISPLAY}/status"),
        None,
    )
    .await;
    assert_eq!(stored["status"], 1, "refused calls change nothing");
}

#[tokio::test]
async fn status_moves_like_a_real_platform_and_refusals_say_why() {
    let mut api = start().await;
    let status_of = |id: i64| format!("/_sandbox/adorders/{id}/status");
    // The running ad order was seeded Active, the future one Inactive.
    let (_, running) = admin(&api, reqwest::Method::GET, &status_of(SPRING_DISPLAY), None).await;
    assert_eq!(running, status_body(SPRING_DISPLAY, 1));
    let (_, future) = admin(
        &api,
        reqwest::Method::GET,
        &status_of(SPRING_SECOND_WAVE),
        None,
    )
    .await;
    assert_eq!(future, status_body(SPRING_SECOND_WAVE, 0));

    let set = |id: i64, status: i64| (id, status);
    for (id, status) in [
        set(SPRING_SECOND_WAVE, 1),
        set(SPRING_SECOND_WAVE, 1),
        set(SPRING_SECOND_WAVE, 3),
        set(SPRING_SECOND_WAVE, 0),
    ] {
        let r = api
            .post("/v1/adorder/updateStatus", status_body(id, status))
            .await;
        assert_eq!(
            r.body,
            json!({"messages": [], "entity": {"id": id, "status": status}})
        );
        let (_, stored) = admin(&api, reqwest::Method::GET, &status_of(id), None).await;
        assert_eq!(stored["status"], status);
    }

    let refused = |r: &crate::support::Reply, needle: &str| {
        let errors = r.errors();
        assert!(
            errors
                .iter()
                .any(|m| m.starts_with("status: ") && m.contains(needle)),
            "{errors:?}"
        );
    };
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            status_body(SPRING_SECOND_WAVE, 4),
        )
        .await;
    refused(&r, "completes when its end date passes");
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            status_body(SPRING_SECOND_WAVE, 7),
        )
        .await;
    refused(&r, "got 7");
    let r = api.post("/v1/adorder/updateStatus", json!({})).await;
    assert!(r.names_field("id") && r.names_field("status"));
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            json!({"id": "one", "status": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        api.post("/v1/adorder/updateStatus", status_body(999, 1))
            .await
            .status,
        StatusCode::NOT_FOUND
    );

    // Archived is final; archiving again is accepted.
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            status_body(SPRING_SECOND_WAVE, 2),
        )
        .await;
    assert_eq!(r.entity()["status"], 2);
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            status_body(SPRING_SECOND_WAVE, 1),
        )
        .await;
    refused(&r, "archived");
    let r = api
        .post(
            "/v1/adorder/updateStatus",
            status_body(SPRING_SECOND_WAVE, 2),
        )
        .await;
    assert_eq!(r.entity()["status"], 2);

    // Past its end date a live ad order is Completed, and can only be archived.
    api.travel(17 * DAY).await;
    let (_, ended) = admin(&api, reqwest::Method::GET, &status_of(SPRING_VIDEO), None).await;
    assert_eq!(ended["status"], 4);
    let r = api
        .post("/v1/adorder/updateStatus", status_body(SPRING_VIDEO, 1))
        .await;
    refused(&r, "ended");
    let r = api
        .post("/v1/adorder/updateStatus", status_body(SPRING_VIDEO, 4))
        .await;
    assert_eq!(
        r.entity()["status"],
        4,
        "setting the status it has is accepted"
    );
    let r = api
        .post("/v1/adorder/updateStatus", status_body(SPRING_VIDEO, 2))
        .await;
    assert_eq!(r.entity()["status"], 2);
}
