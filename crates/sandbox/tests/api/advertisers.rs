use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, keys, sorted};

const SHAPE: &[&str] = &[
    "id",
    "name",
    "agencyId",
    "currency",
    "category",
    "timezoneName",
    "externalAdvertiserId",
];

#[tokio::test]
async fn save_creates_with_the_spec_shape_and_account_timezone() {
    let api = Api::start().await;
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"id": null, "name": "Acme", "agencyId": "1", "currency": "USD", "category": "IAB3-1"}),
        )
        .await;
    let e = r.entity();
    assert_eq!(r.body["messages"], json!([]));
    assert_eq!(keys(e), sorted(SHAPE));
    assert!(e["id"].is_i64());
    assert_eq!(
        e["agencyId"],
        json!(1),
        "a String agencyId comes back as a Number"
    );
    assert_eq!(
        e["timezoneName"], "ET",
        "the account's timezone fills an omitted one"
    );
    assert_eq!(e["externalAdvertiserId"], Value::Null);
}

#[tokio::test]
async fn save_reports_every_missing_field_at_once_and_stores_nothing() {
    let api = Api::start().await;
    let before = api.get("/v1/advertiser/getAllAdvertisers").await;
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"externalAdvertiserId": "has space"}),
        )
        .await;
    for field in [
        "name",
        "agencyId",
        "currency",
        "category",
        "externalAdvertiserId",
    ] {
        assert!(
            r.names_field(field),
            "{field} not named in {:?}",
            r.errors()
        );
    }
    let after = api.get("/v1/advertiser/getAllAdvertisers").await;
    assert_eq!(before.entity(), after.entity());
}

#[tokio::test]
async fn external_advertiser_id_limits() {
    let api = Api::start().await;
    let base = json!({"name": "A", "agencyId": 1, "currency": "USD", "category": "IAB3"});
    let with = |v: &str| {
        let mut b = base.clone();
        b["externalAdvertiserId"] = json!(v);
        b
    };
    let ok = api
        .post("/v1/advertiser/save", with(&"x".repeat(128)))
        .await;
    assert_eq!(ok.entity()["externalAdvertiserId"], json!("x".repeat(128)));
    assert!(
        api.post("/v1/advertiser/save", with(&"x".repeat(129)))
            .await
            .names_field("externalAdvertiserId")
    );
    assert!(
        api.post("/v1/advertiser/save", with("café"))
            .await
            .names_field("externalAdvertiserId")
    );
    let punct = api
        .post("/v1/advertiser/save", with("ACME-01/us_east.{v2}"))
        .await;
    assert_eq!(punct.status, StatusCode::OK);
}

#[tokio::test]
async fn update_ignores_insert_only_fields_and_keeps_unsent_ones() {
    let api = Api::start().await;
    let created = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3",
                   "timezoneName": "PT", "externalAdvertiserId": "acme-1", "vendorFlag": {"a": 1}}),
        )
        .await;
    let id = created.entity()["id"].clone();
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"id": id, "name": "Acme Corp", "currency": "EUR", "timezoneName": "ET",
                   "agencyId": 2, "category": "IAB4"}),
        )
        .await;
    let e = r.entity();
    assert_eq!(e["name"], "Acme Corp");
    assert_eq!(e["currency"], "USD", "currency is ignored on update");
    assert_eq!(e["timezoneName"], "PT", "timezoneName is ignored on update");
    assert_eq!(e["agencyId"], 1, "agencyId is ignored on update");
    assert_eq!(
        e["category"], "IAB4",
        "the spec's update example reflects category"
    );
    assert_eq!(
        e["externalAdvertiserId"], "acme-1",
        "unsent fields are kept"
    );
    assert_eq!(e["vendorFlag"], json!({"a": 1}), "unknown fields survive");
}

#[tokio::test]
async fn listing_filters_by_external_id_and_the_deprecated_listing_matches() {
    let api = Api::start().await;
    api.post(
        "/v1/advertiser/save",
        json!({"name": "Tagged", "agencyId": 1, "currency": "USD", "category": "IAB3", "externalAdvertiserId": "tag-9"}),
    )
    .await
    .entity();
    let all = api.get("/v1/advertiser").await;
    let deprecated = api.get("/v1/advertiser/getAllAdvertisers").await;
    assert_eq!(all.entity(), deprecated.entity());
    assert!(all.entity().as_array().expect("array").len() >= 2);
    let one = api.get("/v1/advertiser?externalAdvertiserId=tag-9").await;
    let list = one.entity().as_array().expect("array");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["name"], "Tagged");
    for adv in all.entity().as_array().expect("array") {
        assert_eq!(keys(adv), sorted(SHAPE));
    }
}

#[tokio::test]
async fn unknown_and_foreign_ids_are_404_and_leak_nothing() {
    let api = Api::start().await;
    let id = api.advertiser("Mine").await;
    let rival = api.sign_in("rival", "rival").await;
    let theirs = api.get_as(&rival, "/v1/advertiser").await;
    assert!(
        theirs
            .entity()
            .as_array()
            .expect("array")
            .iter()
            .all(|a| a["name"] != "Mine"),
        "another account's advertisers are invisible"
    );
    let r = api
        .post_as(
            &rival,
            "/v1/advertiser/save",
            json!({"id": id, "name": "Stolen"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["entity"], Value::Null);
    assert!(!r.body.to_string().contains("Mine"));
    let r = api
        .post("/v1/advertiser/save", json!({"id": 999_999, "name": "X"}))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["messages"][0]["level"], "ERROR");
    let again = api.get("/v1/advertiser").await;
    assert!(
        again
            .entity()
            .as_array()
            .expect("array")
            .iter()
            .any(|a| a["name"] == "Mine")
    );
}

#[tokio::test]
async fn credentials_missing_wrong_or_read_only() {
    let api = Api::start().await;
    let none = api
        .http
        .get(api.url("/v1/advertiser"))
        .send()
        .await
        .expect("send");
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    let body: Value = none.json().await.expect("json");
    assert_eq!(body["entity"], Value::Null);
    assert!(body["messages"][0]["message"].as_str().is_some());

    let bad = api
        .http
        .get(api.url("/v1/advertiser"))
        .basic_auth("demo", Some("wrong"))
        .send()
        .await
        .expect("send");
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    let text = bad.text().await.expect("text");
    assert!(!text.contains("wrong"), "the password is never echoed");

    let basic = api
        .http
        .get(api.url("/v1/advertiser"))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .expect("send");
    assert_eq!(
        basic.status(),
        StatusCode::OK,
        "HTTP Basic user credentials work"
    );

    let garbage = api.get_as("not.a.jwt", "/v1/advertiser").await;
    assert_eq!(garbage.status, StatusCode::UNAUTHORIZED);

    let viewer = api.sign_in("viewer", "viewer").await;
    assert_eq!(
        api.get_as(&viewer, "/v1/advertiser").await.status,
        StatusCode::OK
    );
    let r = api
        .post_as(
            &viewer,
            "/v1/advertiser/save",
            json!({"name": "No", "agencyId": 1, "currency": "USD", "category": "IAB3"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.body["messages"][0]["level"], "ERROR");
}

#[tokio::test]
async fn expired_access_token_is_401() {
    let api = Api::start().await;
    assert_eq!(api.get("/v1/advertiser").await.status, StatusCode::OK);
    api.advance(86_400_000 + 1000);
    let r = api.get("/v1/advertiser").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(
        r.body["messages"][0]["message"]
            .as_str()
            .expect("text")
            .contains("expired")
    );
}

#[tokio::test]
async fn malformed_bodies_name_the_field() {
    let api = Api::start().await;
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": "one", "currency": "USD", "category": "IAB3"}),
        )
        .await;
    assert!(r.names_field("agencyId"), "{:?}", r.errors());
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": 1, "currency": "USD", "category": "IAB3", "timezoneName": "CET"}),
        )
        .await;
    assert!(r.names_field("timezoneName"), "{:?}", r.errors());
    let raw = api
        .http
        .post(api.url("/v1/advertiser/save"))
        .bearer_auth(&api.token)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("send");
    assert_eq!(raw.status(), StatusCode::BAD_REQUEST);
    let body: Value = raw.json().await.expect("envelope even for bad JSON");
    assert_eq!(body["messages"][0]["level"], "ERROR");
}
