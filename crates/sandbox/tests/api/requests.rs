//! What every request must carry before a handler looks at it: a loopback `Host` (DNS
//! rebinding), a JSON `Content-Type` on JSON bodies, and for writes a caller who may
//! write; and how bodies decode: integral floats, objects where strings belong, and
//! messages without Rust type names.

use std::io::{Read, Write};
use std::net::TcpStream;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::Api;

/// Sends `request` as raw HTTP/1.1 (reqwest always sends the URL's host) and returns
/// the status and the body.
fn raw(api: &Api, request: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(api.running.addr).expect("connect");
    stream.write_all(request.as_bytes()).expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn get_with_host(api: &Api, path: &str, host: Option<&str>) -> (u16, Value) {
    let host = host.map_or(String::new(), |h| format!("Host: {h}\r\n"));
    raw(
        api,
        &format!(
            "GET {path} HTTP/1.1\r\n{host}Authorization: Bearer {}\r\nConnection: close\r\n\r\n",
            api.token
        ),
    )
}

#[tokio::test]
async fn only_loopback_hosts_are_answered() {
    let api = Api::start().await;
    let port = api.running.addr.port();
    let api = std::sync::Arc::new(api);
    let check = {
        let api = api.clone();
        tokio::task::spawn_blocking(move || {
            for host in [
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                "LOCALHOST".to_owned(),
                format!("[::1]:{port}"),
            ] {
                let (status, body) = get_with_host(&api, "/v1/advertiser", Some(&host));
                assert_eq!(status, 200, "{host}: {body}");
            }
            // A rebinding page's own name, on every endpoint family, in its error shape.
            for host in [format!("evil.example:{port}"), "evil.example".to_owned()] {
                let (status, body) = get_with_host(&api, "/v1/advertiser", Some(&host));
                assert_eq!(status, 421, "{host}: {body}");
                assert_eq!(body["messages"][0]["code"], "MISDIRECTED_REQUEST", "{body}");
                assert!(body["entity"].is_null());
                let (status, body) = get_with_host(&api, "/v1/audiences", Some(&host));
                assert_eq!(status, 421);
                assert!(
                    body["error"]
                        .as_str()
                        .is_some_and(|e| e.contains("loopback"))
                );
                let (status, body) = get_with_host(&api, "/openapi.json", Some(&host));
                assert_eq!(status, 421, "{body}");
            }
            // An absolute-form target names the host too.
            let (status, _) = raw(
                &api,
                &format!(
                    "GET http://evil.example/v1/advertiser HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
                     Connection: close\r\n\r\n"
                ),
            );
            assert_eq!(status, 421);
            let (status, _) = raw(
                &api,
                "POST /v1/oauth2/authenticate HTTP/1.1\r\nHost: evil.example\r\n\
                 Authorization: Basic ZGVtbzpkZW1v\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            assert_eq!(status, 421, "no token for a foreign host");
        })
    };
    check.await.expect("checks");
}

#[tokio::test]
async fn a_foreign_host_changes_nothing() {
    let api = Api::start().await;
    let before = api.get("/v1/advertiser").await.entity().clone();
    let port = api.running.addr.port();
    let token = api.token.clone();
    let addr = api.running.addr;
    let (status, _) = tokio::task::spawn_blocking(move || {
        let body = r#"{"name":"Rebound","agencyId":1,"currency":"USD","category":"IAB3"}"#;
        let mut stream = TcpStream::connect(addr).expect("connect");
        write!(
            stream,
            "POST /v1/advertiser/save HTTP/1.1\r\nHost: evil.example:{port}\r\n\
             Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("write");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read");
        (answer.split(' ').nth(1).map(str::to_owned), answer)
    })
    .await
    .expect("request");
    assert_eq!(status.as_deref(), Some("421"));
    assert_eq!(api.get("/v1/advertiser").await.entity(), &before);
}

async fn post_typed(
    api: &Api,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let mut req = api
        .http
        .post(api.url(path))
        .bearer_auth(&api.token)
        .body(body.to_owned());
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn json_endpoints_take_only_json() {
    let api = Api::start().await;
    let adv = r#"{"name":"Typed","agencyId":1,"currency":"USD","category":"IAB3"}"#;
    // What a web page can send without a CORS preflight is refused, and nothing is stored.
    for ct in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
    ] {
        let (status, body) = post_typed(&api, "/v1/advertiser/save", ct, adv).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}: {body}");
        assert_eq!(
            body["messages"][0]["code"], "UNSUPPORTED_MEDIA_TYPE",
            "{body}"
        );
        assert!(
            body["messages"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("application/json"))
        );
    }
    let names: Vec<Value> = api
        .get("/v1/advertiser")
        .await
        .entity()
        .as_array()
        .expect("list")
        .iter()
        .map(|a| a["name"].clone())
        .collect();
    assert!(!names.contains(&json!("Typed")), "{names:?}");

    for ct in [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.flightdeck+json",
    ] {
        let (status, body) = post_typed(&api, "/v1/advertiser/save", Some(ct), adv).await;
        assert_eq!(status, StatusCode::OK, "{ct}: {body}");
    }

    // Audience endpoints, in their own error shape.
    let (status, body) = post_typed(
        &api,
        "/v1/audiences",
        Some("text/plain"),
        r#"{"name":"S","dataType":"ip","accountId":1,"advertiserIds":[1],"externalAudienceId":"t"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|m| m.contains("application/json")),
        "{body}"
    );
    let (status, body) = post_typed(
        &api,
        "/v1/audiences/fpsegmxyz/data",
        Some("text/plain"),
        "[]",
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert!(body["error"].is_string(), "{body}");
}

#[tokio::test]
async fn a_read_only_user_is_refused_before_the_body_is_read() {
    let api = Api::start().await;
    let viewer = api.sign_in("viewer", "viewer").await;
    for (path, body) in [
        ("/v1/advertiser/save", "{not json"),
        ("/v1/campaign/save", "[1, 2]"),
        ("/v1/site-list/addNewSiteList", ""),
        ("/v1/campaignflight/byCampaign/1", "{}"),
    ] {
        let resp = api
            .http
            .post(api.url(path))
            .bearer_auth(&viewer)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{path} {body}");
        let body: Value = resp.json().await.expect("envelope");
        assert_eq!(body["messages"][0]["code"], "FORBIDDEN");
    }
    // The content type is not looked at either.
    let resp = api
        .http
        .post(api.url("/v1/advertiser/save"))
        .bearer_auth(&viewer)
        .body("x")
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    for path in ["/v1/audiences", "/v1/audiences/fpsegmxyz/data"] {
        let resp = api
            .http
            .post(api.url(path))
            .bearer_auth(&viewer)
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{path}");
        let body: Value = resp.json().await.expect("{error}");
        assert!(body["error"].is_string(), "{body}");
    }
}

#[tokio::test]
async fn integral_floats_are_whole_numbers() {
    let api = Api::start().await;
    let adv = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "Floaty", "agencyId": 1.0, "currency": "USD", "category": "IAB3"}),
        )
        .await;
    let id = adv.entity()["id"].as_i64().expect("id");
    assert_eq!(adv.entity()["agencyId"], json!(1));
    let renamed = api
        .post(
            "/v1/advertiser/save",
            json!({"id": id as f64, "name": "Floaty 2"}),
        )
        .await;
    assert_eq!(renamed.entity()["id"], json!(id));
    let campaign = api
        .post(
            "/v1/campaign/save",
            json!({
                "advertiserId": id as f64, "name": "C", "domain": "example.com",
                "maxBudget": 1000, "iabCategory": ["IAB3"],
                "startDate": 1_900_000_000_000.0, "endDate": 1_900_086_400_000.0,
                "dailyFrequencyCap": 3.0, "frequencyCapDuration": 1.0,
                "frequencyCapTimePeriod": "DAY"
            }),
        )
        .await;
    let c = campaign.entity();
    assert_eq!(c["startDate"], json!(1_900_000_000_000_i64));
    assert_eq!(c["dailyFrequencyCap"], json!(3));
    // A real fraction is still refused, worded for a person.
    let r = api
        .post("/v1/advertiser/save", json!({"id": 1.5, "name": "X"}))
        .await;
    assert_eq!(
        r.errors(),
        ["id: expected a whole number or null (got 1.5)"]
    );
    let r = api
        .post(
            "/v1/campaign/save",
            json!({"id": c["id"], "dailyFrequencyCap": 2.5}),
        )
        .await;
    let errors = r.errors();
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("dailyFrequencyCap: ") && m.contains("whole number")),
        "{errors:?}"
    );
}

#[tokio::test]
async fn an_object_is_not_a_string_even_where_an_update_ignores_the_field() {
    let api = Api::start().await;
    let bad = json!({"PT": null});
    let created = api
        .post(
            "/v1/advertiser/save",
            json!({"name": "Zoned", "agencyId": 1, "currency": "USD", "category": "IAB3"}),
        )
        .await;
    let id = created.entity()["id"].clone();
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"id": id, "timezoneName": bad}),
        )
        .await;
    assert!(r.names_field("timezoneName"), "{:?}", r.errors());
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"id": id, "currency": ["USD"]}),
        )
        .await;
    assert!(r.names_field("currency"), "{:?}", r.errors());
    let order = api.get("/v1/adorder/getAllAdOrders").await.entity()[0]["id"].clone();
    let r = api
        .post(
            "/v1/adorder/save",
            json!({"id": order, "startDate": {"at": 1}}),
        )
        .await;
    assert!(r.names_field("startDate"), "{:?}", r.errors());
}

#[tokio::test]
async fn an_update_cannot_clear_the_category() {
    let api = Api::start().await;
    let advertisers = api.get("/v1/advertiser").await;
    let first = &advertisers.entity()[0];
    for cleared in [Value::Null, json!(""), json!("  ")] {
        let r = api
            .post(
                "/v1/advertiser/save",
                json!({"id": first["id"], "category": cleared}),
            )
            .await;
        assert_eq!(r.codes(), ["REQUIRED"], "{cleared}: {}", r.body);
        assert!(r.names_field("category"));
    }
    let after = api.get("/v1/advertiser").await;
    assert_eq!(after.entity()[0]["category"], first["category"]);
    // Changing it is still an update.
    let r = api
        .post(
            "/v1/advertiser/save",
            json!({"id": first["id"], "category": "IAB1-2"}),
        )
        .await;
    assert_eq!(r.entity()["category"], "IAB1-2");
}

#[tokio::test]
async fn messages_name_json_types_not_rust_ones() {
    let api = Api::start().await;
    let probes = [
        (
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": {"x": 1}, "currency": "USD", "category": "IAB1"}),
        ),
        (
            "/v1/advertiser/save",
            json!({"name": "A", "agencyId": "one", "currency": "USD", "category": "IAB1"}),
        ),
        ("/v1/campaign/save", json!({"advertiserId": "x"})),
        ("/v1/campaign/save", json!({"maxBudget": "lots"})),
        ("/v1/campaign/save", json!({"flights": {"a": 1}})),
        ("/v1/adorder/save", json!({"frequencyCap": "daily"})),
        (
            "/v1/audiences",
            json!({"name": "S", "dataType": "ip", "accountId": 1, "advertiserIds": "x", "externalAudienceId": "m"}),
        ),
        (
            "/v1/audiences",
            json!({"name": "S", "dataType": "ip", "accountId": 1, "advertiserIds": [1.5], "externalAudienceId": "m"}),
        ),
    ];
    for (path, body) in probes {
        let r = api.post(path, body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path} {body}");
        let text = r.body.to_string();
        for rust in [
            "untagged", "enum ", "struct ", "i64", "u64", "f64", "i32", "sequence", "Raw",
        ] {
            assert!(!text.contains(rust), "{path} {body}: {rust} in {text}");
        }
    }
}
