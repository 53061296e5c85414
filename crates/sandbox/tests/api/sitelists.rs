use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, keys, sorted};

const SHAPE: &[&str] = &[
    "id",
    "name",
    "typeId",
    "strategy",
    "siteIds",
    "rules",
    "insertedCount",
];

#[tokio::test]
async fn id_based_list_add_append_overwrite_remove() {
    let api = Api::start().await;
    let r = api
        .post(
            "/v1/site-list/addNewSiteList",
            json!({"name": "Premium", "typeId": 5, "siteIds": [10, 11, 11, 12]}),
        )
        .await;
    let e = r.entity().clone();
    assert_eq!(keys(&e), sorted(SHAPE));
    assert_eq!(e["insertedCount"], 3, "duplicates count once");
    assert_eq!(e["siteIds"], Value::Null, "siteIds are input only");
    let id = e["id"].clone();

    let r = api
        .post(
            "/v1/site-list/appendToSiteList",
            json!({"id": id, "name": "Premium", "siteIds": [12, 13]}),
        )
        .await;
    assert_eq!(r.entity()["insertedCount"], 1, "only new sites are counted");

    let r = api
        .post(
            "/v1/site-list/overwriteSiteList",
            json!({"id": id, "name": "Premium v2", "siteIds": [20, 21]}),
        )
        .await;
    assert_eq!(r.entity()["insertedCount"], 2);
    assert_eq!(r.entity()["name"], "Premium v2");

    let r = api
        .post(
            "/v1/site-list/removeSites",
            json!({"id": id, "name": "Premium v2", "siteIds": [20, 99]}),
        )
        .await;
    let e = r.entity();
    assert_eq!(e["id"], id);
    assert_eq!(e["name"], "Premium v2");
    for other in ["typeId", "strategy", "siteIds", "rules", "insertedCount"] {
        assert_eq!(e[other], Value::Null, "{other} is null in removeSites");
    }
    let messages = r.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["level"], "INFO");
    assert_eq!(messages[0]["code"], "");
    assert!(messages[0]["message"].as_str().expect("text").contains('1'));
}

#[tokio::test]
async fn rule_based_list_needs_strategy_and_rules() {
    let api = Api::start().await;
    let r = api
        .post(
            "/v1/site-list/addNewSiteList",
            json!({"name": "Rules", "typeId": 1, "rules": [{"name": "news.example"}]}),
        )
        .await;
    assert!(r.names_field("strategy"), "{:?}", r.errors());
    assert!(r.names_field("rules[0].type"), "{:?}", r.errors());

    let r = api
        .post(
            "/v1/site-list/addNewSiteList",
            json!({"name": "Rules", "typeId": 1, "strategy": "precise",
                   "rules": [{"name": "news.example", "type": "web"}, {"name": "com.example.app", "type": "app"}]}),
        )
        .await;
    let e = r.entity().clone();
    assert_eq!(e["strategy"], "precise");
    assert_eq!(e["insertedCount"], 2);
    assert_eq!(e["rules"], Value::Null);

    let wrong = api
        .post(
            "/v1/site-list/appendToSiteList",
            json!({"id": e["id"], "name": "Rules", "siteIds": [1]}),
        )
        .await;
    assert!(wrong.names_field("rules"), "{:?}", wrong.errors());
    let remove = api
        .post(
            "/v1/site-list/removeSites",
            json!({"id": e["id"], "name": "Rules", "siteIds": [1]}),
        )
        .await;
    assert!(remove.names_field("siteIds"));
}

#[tokio::test]
async fn missing_members_unknown_type_and_foreign_lists() {
    let api = Api::start().await;
    let r = api
        .post("/v1/site-list/addNewSiteList", json!({"typeId": 7}))
        .await;
    assert!(r.names_field("name"));
    assert!(r.names_field("typeId"));
    let r = api
        .post("/v1/site-list/appendToSiteList", json!({"siteIds": [1]}))
        .await;
    assert!(r.names_field("id"));
    assert!(r.names_field("name"));
    let mine = api
        .post(
            "/v1/site-list/addNewSiteList",
            json!({"name": "Mine", "typeId": 5, "siteIds": [1]}),
        )
        .await
        .entity()["id"]
        .clone();
    let rival = api.sign_in("rival", "rival").await;
    let r = api
        .post_as(
            &rival,
            "/v1/site-list/overwriteSiteList",
            json!({"id": mine, "name": "X", "siteIds": [2]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}
