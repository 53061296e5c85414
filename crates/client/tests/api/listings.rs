//! Listings over 1 MB, which are decoded while they download: the same items, messages
//! and errors as decoding the whole answer, and a download cut off is a transport error.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use flightdeck_client::{Credentials, Error, TransportKind};
use flightdeck_model::{AdOrder, Envelope, MessageLevel};
use flightdeck_sandbox::testing;
use serde_json::{Value, json};

use crate::common::{Canned, NOW, TestServer, fast_retries, serve};

/// `count` ad orders in a listing of the sandbox's shape, as text.
fn listing(count: usize, messages: Value) -> String {
    let entity: Vec<Value> = (0..count)
        .map(|i| {
            json!({"id": i + 1, "name": format!("Order {i}"), "campaignId": 7,
                   "optimizationGoal": "CPM", "lifetimeBudget": 500.0,
                   "audiences": [{"id": i + 1, "name": "A", "weight": 100,
                                  "exchanges": {"include": [1, 2], "exclude": []}}]})
        })
        .collect();
    json!({"messages": messages, "entity": entity}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_listing_decodes_to_what_the_whole_answer_decodes_to() {
    let s = TestServer::start().await;
    let campaign = testing::demo_campaign(&s.sandbox).unwrap();
    testing::load_ad_orders(&s.sandbox, campaign, 5_000, NOW).unwrap();

    let listed = s.demo().all_ad_orders().await.unwrap();

    let raw = reqwest::Client::new()
        .get(format!("{}/v1/adorder/getAllAdOrders", s.base_url()))
        .basic_auth("demo", Some("demo"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(raw.len() > 2_000_000, "{} bytes", raw.len());
    let whole: Envelope<Vec<AdOrder>> = serde_json::from_slice(&raw).unwrap();
    assert_eq!(listed.entity.len(), 5_010);
    assert_eq!(listed.entity, whole.entity);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_and_members_around_a_large_list_are_kept_or_skipped() {
    let body = listing(10_000, json!([]));
    // Messages after the list, and members the envelope does not name on both sides.
    let body = format!(
        r#"{{"requestId":"r-1","entity":{},"messages":[{{"level":"WARNING","code":"SLOW","message":"name: slow"}}],"paging":{{"next":null}}}}"#,
        &body[body.find("\"entity\":").unwrap() + 9..body.len() - 1]
    );
    assert!(body.len() > 1_500_000);
    let server = Canned::start_raw(vec![("/v1/adorder/getAllAdOrders", 200, body)]).await;
    let reply = server
        .client(Credentials::basic("demo", "demo"))
        .all_ad_orders()
        .await
        .unwrap();
    assert_eq!(reply.entity.len(), 10_000);
    assert_eq!(reply.entity[9_999].name.as_deref(), Some("Order 9999"));
    assert_eq!(reply.messages.len(), 1);
    assert_eq!(reply.messages[0].level, MessageLevel::Warning);
    assert_eq!(reply.messages[0].field.as_deref(), Some("name"));
}

/// A large listing that does not decode is a decode error, as the whole answer would be,
/// that names the item at fault or where the answer broke off, with the start of the body
/// (the answer itself is not kept to decode again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_large_listing_is_a_decode_error_naming_the_item() {
    let good = listing(10_000, json!([]));
    let wrong_type = good.replacen(r#"{"id":9999,"#, r#"{"id":"9999","#, 1);
    let cut_short = good[..good.len() - 10].to_owned();
    let cases = [
        (wrong_type, "entity[9998]: invalid type: string \"9999\""),
        (cut_short, "the listing ends after"),
    ];
    for (body, expected) in cases {
        assert!(body.len() > 1_500_000);
        assert!(serde_json::from_str::<Envelope<Vec<AdOrder>>>(&body).is_err());
        let start = body[..64 * 1024].to_owned();
        let server = Canned::start_raw(vec![("/v1/adorder/getAllAdOrders", 200, body)]).await;
        let e = server
            .client(Credentials::basic("demo", "demo"))
            .all_ad_orders()
            .await
            .unwrap_err();
        let Error::Decode {
            status,
            detail,
            raw_body,
        } = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(status, 200);
        assert!(detail.starts_with(expected), "{detail}");
        assert_eq!(raw_body, start);
    }
}

/// A listing whose connection drops halfway is a transport error, retried like any read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_listing_cut_off_is_retried_then_a_transport_error() {
    let body = listing(10_000, json!([]));
    let half = bytes::Bytes::from(body[..body.len() / 2].to_owned());
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&requests);
    let router = axum::Router::new().fallback(move || {
        counted.fetch_add(1, Ordering::Relaxed);
        let half = half.clone();
        async move {
            let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = vec![
                Ok(half),
                Err(std::io::Error::other("the connection dropped")),
            ];
            axum::body::Body::from_stream(futures_util::stream::iter(chunks))
        }
    });
    let (base_url, _serving) = serve(router).await;
    let client = flightdeck_client::Client::new(
        flightdeck_client::ClientConfig::new(&base_url).unwrap(),
        Credentials::basic("demo", "demo"),
    )
    .unwrap()
    .with_retry_policy(fast_retries());

    let e = client.all_ad_orders().await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportKind::Other,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(requests.load(Ordering::Relaxed), 3, "three attempts");
}

/// A listing larger than the client's listing limit stops downloading and says which
/// listing and what limit; with the limit raised, the same listing downloads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_over_the_limit_is_refused_with_its_name_and_the_limit() {
    const MB: usize = 1024 * 1024;
    let s = TestServer::start().await;
    let campaign = testing::demo_campaign(&s.sandbox).unwrap();
    testing::load_ad_orders(&s.sandbox, campaign, 5_000, NOW).unwrap();
    let mut config = s.config();
    config.max_listing_bytes = 2 * MB;
    let client = flightdeck_client::Client::new(config, Credentials::basic("demo", "demo"))
        .unwrap()
        .with_retry_policy(fast_retries());
    let e = client.all_ad_orders().await.unwrap_err();
    let Error::ListingTooLarge { listing, limit } = &e else {
        panic!("expected ListingTooLarge, got {e:?}")
    };
    assert_eq!(listing, "/v1/adorder/getAllAdOrders");
    assert_eq!(*limit, 2 * MB);
    assert_eq!(
        e.to_string(),
        "the listing /v1/adorder/getAllAdOrders is larger than 2 MB, the listing size limit, \
         so it was not downloaded; if the account really holds this much, raise the limit"
    );
    assert!(!e.is_retryable());

    let mut roomy = s.config();
    roomy.max_listing_bytes = 8 * MB;
    let client = flightdeck_client::Client::new(roomy, Credentials::basic("demo", "demo")).unwrap();
    assert_eq!(client.all_ad_orders().await.unwrap().entity.len(), 5_010);
}
