use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, DAY, keys, sorted};

async fn create(api: &Api, external: &str) -> Value {
    let adv = api.advertiser("Acme").await;
    let r = api
        .post(
            "/v1/audiences",
            json!({"name": "Buyers", "description": "Bought in 2026", "dataType": "email_sha256",
                   "accountId": 1, "advertiserIds": [adv], "externalAudienceId": external, "ttl": 172800}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body
}

fn hashes(n: usize, offset: usize) -> Vec<String> {
    (offset..offset + n).map(|i| format!("{i:064x}")).collect()
}

#[tokio::test]
async fn create_answers_the_short_shape_and_starts_inactive() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    assert_eq!(
        keys(&s),
        sorted(&[
            "name",
            "externalAudienceId",
            "serviceSegmentId",
            "status",
            "ttl"
        ])
    );
    assert_eq!(s["status"], "INACTIVE");
    assert_eq!(s["ttl"], 172800);
    assert!(
        s["serviceSegmentId"]
            .as_str()
            .is_some_and(|v| !v.is_empty())
    );
}

#[tokio::test]
async fn listing_pages_and_single_segment() {
    let api = Api::start().await;
    for i in 0..3 {
        create(&api, &format!("crm-{i}")).await;
    }
    let r = api.get("/v1/audiences?page=1&pageSize=2").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["pagination"], json!({"page": 1, "pageSize": 2}));
    let page = r.body["audiences"].as_array().expect("audiences");
    assert_eq!(page.len(), 2);
    assert_eq!(
        keys(&page[0]),
        sorted(&[
            "accountId",
            "advertiserIds",
            "dataCount",
            "description",
            "externalAudienceId",
            "name",
            "status",
            "serviceSegmentId",
            "ttl",
            "dataType"
        ])
    );
    let second = api.get("/v1/audiences?page=2&pageSize=2").await;
    assert_eq!(
        second.body["audiences"]
            .as_array()
            .expect("audiences")
            .len(),
        1
    );
    let default = api.get("/v1/audiences").await;
    assert_eq!(
        default.body["pagination"],
        json!({"page": 1, "pageSize": 50})
    );

    let id = page[0]["serviceSegmentId"].as_str().expect("id");
    let one = api.get(&format!("/v1/audiences/{id}")).await;
    assert_eq!(one.body, page[0]);

    let bad = api.get("/v1/audiences?pageSize=100000").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(
        bad.body["error"]
            .as_str()
            .expect("error")
            .contains("pageSize")
    );
}

#[tokio::test]
async fn data_activates_at_the_threshold_and_ttl_archives() {
    let mut api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let data = format!("/v1/audiences/{id}/data");

    let mut first = hashes(999, 0);
    first.push("not-a-hash".into());
    let r = api.post(&data, json!({"identifiers": first})).await;
    assert_eq!(r.body["accepted"], 999);
    assert_eq!(r.body["rejected"], 1);
    assert_eq!(r.body["status"], "INACTIVE", "999 is below the threshold");

    let r = api
        .post(&data, json!({"identifiers": hashes(2, 998)}))
        .await;
    assert_eq!(r.body["dataCount"], 1000, "identifiers count once");
    assert_eq!(r.body["status"], "ACTIVE");

    api.travel(3 * DAY).await;
    let one = api.get(&format!("/v1/audiences/{id}")).await;
    assert_eq!(one.body["status"], "ARCHIVED", "the 2-day ttl ran out");
    let r = api
        .post(&data, json!({"identifiers": hashes(1, 5000)}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.body["error"]
            .as_str()
            .expect("error")
            .contains("archived")
    );
}

#[tokio::test]
async fn errors_use_the_error_shape() {
    let api = Api::start().await;
    let r = api
        .post("/v1/audiences", json!({"dataType": "fax_number", "ttl": 5}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(keys(&r.body), vec!["error".to_owned()]);
    assert!(
        r.body["error"]
            .as_str()
            .expect("error")
            .contains("dataType")
    );

    let r = api
        .post("/v1/audiences", json!({"name": "N", "dataType": "ip", "accountId": 1, "advertiserIds": [1], "externalAudienceId": "x", "ttl": 5}))
        .await;
    assert!(
        r.body["error"].as_str().expect("error").contains("ttl"),
        "{}",
        r.body
    );

    let r = api.get_as("garbage", "/v1/audiences").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(keys(&r.body), vec!["error".to_owned()]);

    let basic = api
        .http
        .get(api.url("/v1/audiences"))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .expect("send");
    assert_eq!(
        basic.status(),
        StatusCode::UNAUTHORIZED,
        "audiences need a JWT"
    );

    assert_eq!(
        api.get("/v1/audiences/nope").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn accounts_are_isolated() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let rival = api.sign_in("rival", "rival").await;
    let theirs = api.get_as(&rival, "/v1/audiences").await;
    assert_eq!(theirs.body["audiences"], json!([]));
    let id = s["serviceSegmentId"].as_str().expect("id");
    assert_eq!(
        api.get_as(&rival, &format!("/v1/audiences/{id}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let r = api
        .post_as(&rival, "/v1/audiences", json!({"name": "N", "dataType": "ip", "accountId": 1, "advertiserIds": [1], "externalAudienceId": "x"}))
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
}
