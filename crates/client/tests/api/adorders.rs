use flightdeck_client::{Client, Error};
use flightdeck_model::{AdOrder, Id, OptimizationGoal, PacingMode};
use serde_json::{Value, json};

use crate::common::{DAY, NOW, Proxy, TestServer};

/// The client ids in a wire body of an ad order.
fn identifiers(body: &Value) -> Vec<(&str, &Value)> {
    ["ioNumber", "io_number", "externalAdOrderId"]
        .into_iter()
        .filter_map(|k| body.get(k).map(|v| (k, v)))
        .collect()
}

fn new_order(campaign: Id, name: &str) -> AdOrder {
    AdOrder {
        name: Some(name.into()),
        campaign_id: Some(campaign),
        optimization_goal: Some(OptimizationGoal::Cpm),
        start_date: Some(NOW + DAY),
        end_date: Some(NOW + 31 * DAY),
        lifetime_budget: Some(5_000.0),
        ..AdOrder::default()
    }
}

async fn find(c: &Client, id: Id) -> AdOrder {
    c.all_ad_orders()
        .await
        .unwrap()
        .entity
        .into_iter()
        .find(|o| o.id == Some(id))
        .expect("listed")
}

#[tokio::test]
async fn ad_order_save_and_list() {
    let s = TestServer::start().await;
    let c = s.demo();
    let before = c.all_ad_orders().await.unwrap().entity;
    assert_eq!(before.len(), 10, "demo seed");

    let saved = c
        .ad_order_save(&AdOrder {
            io_number: Some("IO-77".into()),
            ..new_order(1, "Fresh")
        })
        .await
        .unwrap()
        .entity;
    assert_eq!(saved.name.as_deref(), Some("Fresh"));
    assert_eq!(saved.io_number_out.as_deref(), Some("IO-77"));
    assert_eq!(saved.external_ad_order_id.as_deref(), Some("IO-77"));
    assert_eq!(saved.max_bid, Some(10.0), "default applied");
    assert_eq!(saved.hourly_pacing_mode, Some(PacingMode::Asap));
    let audiences = saved.audiences.clone().unwrap();
    assert_eq!(audiences[0].name.as_deref(), Some("Default audience"));

    let after = c.all_ad_orders().await.unwrap().entity;
    assert_eq!(after.len(), 11);
    assert_eq!(after.iter().find(|o| o.id == saved.id), Some(&saved));

    let rival = s
        .basic("rival", "rival")
        .all_ad_orders()
        .await
        .unwrap()
        .entity;
    assert_eq!(rival.len(), 1, "accounts do not see each other");
}

#[tokio::test]
async fn both_client_ids_are_an_identifier_conflict() {
    let s = TestServer::start().await;
    let e = s
        .demo()
        .ad_order_save(&AdOrder {
            io_number: Some("A".into()),
            external_ad_order_id: Some("B".into()),
            ..new_order(1, "Conflicted")
        })
        .await
        .unwrap_err();
    let Error::IdentifierConflict { messages } = &e else {
        panic!("{e:?}")
    };
    assert!(messages.iter().any(|m| m.code == "IDENTIFIER_CONFLICT"));
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn vcr_is_sent_and_read_as_video_completion_rate() {
    let s = TestServer::start().await;
    let c = s.demo();
    let order: AdOrder = serde_json::from_value(json!({
        "name": "Video completes",
        "campaignId": 1,
        "optimizationGoal": "vcr",
        "vcrGoal": 0.7,
        "startDate": NOW + DAY,
        "endDate": NOW + 31 * DAY,
        "lifetimeBudget": 1000.0,
    }))
    .unwrap();
    let saved = c.ad_order_save(&order).await.unwrap().entity;
    assert_eq!(
        saved.optimization_goal,
        Some(OptimizationGoal::VideoCompletionRate)
    );
    assert_eq!(saved.vcr_goal, Some(Some(0.7)));
    let listed = find(&c, saved.id.unwrap()).await;
    assert_eq!(
        listed.optimization_goal,
        Some(OptimizationGoal::VideoCompletionRate)
    );

    // On the wire the listing says VIDEO_COMPLETION_RATE.
    let body: Value = reqwest::Client::new()
        .get(format!("{}/v1/adorder/getAllAdOrders", s.base_url()))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let wire = body["entity"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == json!(saved.id.unwrap()))
        .unwrap();
    assert_eq!(wire["optimizationGoal"], "VIDEO_COMPLETION_RATE");
}

#[tokio::test]
async fn read_modify_write_keeps_unknown_fields_and_client_id() {
    let s = TestServer::start().await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(flightdeck_client::Credentials::basic("demo", "demo"));
    let mut order = AdOrder {
        io_number: Some("IO-RMW".into()),
        ..new_order(1, "Round trip")
    };
    order.extra.insert(
        "partnerNote".into(),
        json!({"source": "planner", "tags": ["a", "b"]}),
    );
    let id = c.ad_order_save(&order).await.unwrap().entity.id.unwrap();

    let mut read = find(&c, id).await;
    assert_eq!(
        read.extra.get("partnerNote"),
        order.extra.get("partnerNote")
    );
    // The listing returns both spellings of the client id...
    assert_eq!(read.io_number_out.as_deref(), Some("IO-RMW"));
    assert_eq!(read.external_ad_order_id.as_deref(), Some("IO-RMW"));
    // ...and saving it back whole is not a conflict: exactly one id goes out.
    read.name = Some("Round trip, renamed".into());
    let saved = c.ad_order_save(&read).await.unwrap().entity;
    assert_eq!(saved.name.as_deref(), Some("Round trip, renamed"));
    let sent = proxy.requests_to("/v1/adorder/save");
    let body = sent.last().expect("a save").json();
    assert_eq!(
        identifiers(&body),
        [("externalAdOrderId", &json!("IO-RMW"))],
        "{body}"
    );
    assert_eq!(body["id"], json!(id));
    assert_eq!(body["name"], "Round trip, renamed");
    assert!(body.get("costOptimizationEnabled").is_none());

    let again = find(&c, id).await;
    assert_eq!(again.name.as_deref(), Some("Round trip, renamed"));
    assert_eq!(
        again.extra.get("partnerNote"),
        order.extra.get("partnerNote")
    );
    assert_eq!(again.external_ad_order_id.as_deref(), Some("IO-RMW"));
    assert_eq!(again.io_number_out.as_deref(), Some("IO-RMW"));
}

#[tokio::test]
async fn ad_order_errors() {
    let s = TestServer::start().await;
    let c = s.demo();
    let bad = AdOrder {
        name: None,
        hourly_pacing_mode: Some(PacingMode::SpendEvenly),
        ..new_order(1, "x")
    };
    let e = c.ad_order_save(&bad).await.unwrap_err();
    let Error::Rejected {
        status: 400,
        messages,
    } = &e
    else {
        panic!("{e:?}")
    };
    let fields: Vec<_> = messages.iter().filter_map(|m| m.field.as_deref()).collect();
    assert!(fields.contains(&"name"), "{fields:?}");
    assert!(fields.contains(&"hourlyFrontload"), "{fields:?}");

    let e = c.ad_order_save(&new_order(999_999, "x")).await.unwrap_err();
    assert!(
        e.messages()
            .iter()
            .any(|m| m.field.as_deref() == Some("campaignId") && m.code == "BAD_REFERENCE"),
        "{e:?}"
    );

    let rival_order = s
        .basic("rival", "rival")
        .all_ad_orders()
        .await
        .unwrap()
        .entity[0]
        .id
        .unwrap();
    for id in [999_999, rival_order] {
        let e = c
            .ad_order_save(&AdOrder {
                id: Some(id),
                ..new_order(1, "Taken over")
            })
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{id}: {e:?}");
    }

    let e = s
        .basic("viewer", "viewer")
        .ad_order_save(&new_order(1, "x"))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let e = s.basic("demo", "nope").all_ad_orders().await.unwrap_err();
    assert!(matches!(e, Error::Unauthenticated { .. }), "{e:?}");
}

#[tokio::test]
async fn every_listed_ad_order_can_be_renamed_and_saved_back() {
    let s = TestServer::start().await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(flightdeck_client::Credentials::basic("demo", "demo"));
    c.ad_order_save(&AdOrder {
        external_ad_order_id: Some("EXT-5".into()),
        ..new_order(1, "External id")
    })
    .await
    .unwrap();
    let listed = c.all_ad_orders().await.unwrap().entity;
    assert!(
        listed
            .iter()
            .any(|o| o.io_number_out.is_some() && o.io_number_out == o.external_ad_order_id),
        "the listing returns io_number and externalAdOrderId with one value"
    );
    for order in listed {
        let mut edited = order.clone();
        edited.name = Some(format!(
            "{} (renamed)",
            order.name.clone().unwrap_or_default()
        ));
        let saved = c
            .ad_order_save(&edited)
            .await
            .unwrap_or_else(|e| panic!("order {:?}: {e:?}", order.id))
            .entity;
        assert_eq!(saved.name, edited.name);
        assert_eq!(saved.external_ad_order_id, order.external_ad_order_id);
        let body = proxy.requests_to("/v1/adorder/save").last().unwrap().json();
        let ids = identifiers(&body);
        match &order.external_ad_order_id {
            Some(id) => assert_eq!(ids, [("externalAdOrderId", &json!(id))], "{body}"),
            None => assert!(ids.is_empty(), "{body}"),
        }
    }
}
