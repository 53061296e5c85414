use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use flightdeck_model::validate;
use flightdeck_model::{AUDIENCE_UPLOAD_MAX_BYTES, AudienceData, DataType};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, DAY, Reply, keys, sorted};

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
    let mut one = api.get(&format!("/v1/audiences/{id}")).await.body;
    let message = one
        .as_object_mut()
        .and_then(|o| o.remove("message"))
        .expect("message");
    assert!(message.is_string());
    assert_eq!(
        one, page[0],
        "the single read is the listed segment plus its message"
    );

    let bad = api.get("/v1/audiences?pageSize=100000").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(
        bad.body["error"]
            .as_str()
            .expect("error")
            .contains("pageSize")
    );
}

/// One upload record of `values` for segment `id`, in the documented wire shape.
fn record(id: &str, values: &[String]) -> Value {
    json!({"serviceSegmentId": id, "countryCode": "US", "values": values})
}

/// The documented success answer for an upload of `records` records.
fn processed(records: i64) -> Value {
    json!({"message": "Audience data payload processed.", "published": records,
           "failed_publishes": 0, "bad_records": 0, "bad_records_details": ""})
}

/// Posts raw bytes to the upload endpoint, with `Content-Encoding` when given.
async fn post_raw(api: &Api, id: &str, bytes: Vec<u8>, encoding: Option<&str>) -> Reply {
    let mut req = api
        .http
        .post(api.url(&format!("/v1/audiences/{id}/data")))
        .bearer_auth(&api.token)
        .header("content-type", "application/json")
        .body(bytes);
    if let Some(e) = encoding {
        req = req.header("content-encoding", e);
    }
    let resp = req.send().await.expect("upload");
    let status = resp.status();
    let text = resp.text().await.expect("body");
    Reply {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

/// A failure in the `{error}` shape with `status`, whose text mentions `needle`.
fn assert_error(r: &Reply, status: StatusCode, needle: &str) {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(keys(&r.body), vec!["error".to_owned()], "{}", r.body);
    let text = r.body["error"].as_str().expect("error text");
    assert!(text.contains(needle), "{needle:?} not in {text:?}");
}

async fn segment(api: &Api, id: &str) -> Value {
    let r = api.get(&format!("/v1/audiences/{id}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body
}

#[tokio::test]
async fn new_segment_ids_are_fpsegm_then_letters_and_digits() {
    let api = Api::start().await;
    let mut ids = Vec::new();
    for i in 0..3 {
        let s = create(&api, &format!("crm-{i}")).await;
        let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
        let rest = id.strip_prefix("fpsegm").unwrap_or_else(|| panic!("{id}"));
        assert!(
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()),
            "{id}"
        );
        assert_eq!(segment(&api, &id).await["serviceSegmentId"], id.as_str());
        ids.push(id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "ids are distinct");
}

#[tokio::test]
async fn uploads_append_and_the_segment_activates_at_1000_distinct_identifiers() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let data = format!("/v1/audiences/{id}/data");

    let r = api.post(&data, json!([record(&id, &hashes(600, 0))])).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, processed(1));
    let one = segment(&api, &id).await;
    assert_eq!(one["dataCount"], 600, "applied at once");
    assert_eq!(one["status"], "INACTIVE");

    // Two records; 100 of the first are already in the segment and count once.
    let r = api
        .post(
            &data,
            json!([
                record(&id, &hashes(300, 500)),
                record(&id, &hashes(100, 800))
            ]),
        )
        .await;
    assert_eq!(r.body, processed(2));
    assert_eq!(segment(&api, &id).await["dataCount"], 900);

    let r = api
        .post(&data, json!([record(&id, &hashes(99, 900))]))
        .await;
    assert_eq!(r.body, processed(1));
    let one = segment(&api, &id).await;
    assert_eq!(one["dataCount"], 999);
    assert_eq!(one["status"], "INACTIVE", "999 is below the threshold");

    // A digest already uploaded, in upper case, is the same identifier.
    let again = hashes(1, 0)[0].to_ascii_uppercase();
    let r = api
        .post(
            &data,
            json!([record(&id, &[again, hashes(1, 999)[0].clone()])]),
        )
        .await;
    assert_eq!(r.body, processed(1));
    let one = segment(&api, &id).await;
    assert_eq!(one["dataCount"], 1000);
    assert_eq!(one["status"], "ACTIVE");
    let listed = api.get("/v1/audiences").await.body["audiences"][0].clone();
    assert_eq!(listed["status"], "ACTIVE");
}

#[tokio::test]
async fn a_gzip_upload_is_accepted() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let body = serde_json::to_vec(&json!([record(&id, &hashes(1200, 0))])).expect("json");
    let packed = gzip(&body);
    assert!(packed.len() < body.len());
    let r = post_raw(&api, &id, packed, Some("gzip")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body, processed(1));
    let one = segment(&api, &id).await;
    assert_eq!(one["dataCount"], 1200);
    assert_eq!(one["status"], "ACTIVE");
}

#[tokio::test]
async fn one_bad_record_refuses_the_whole_payload() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let good = record(&id, &hashes(5, 0));
    let other_segment = json!({"serviceSegmentId": "fpsegmsomeoneelse", "countryCode": "US",
                               "values": hashes(1, 10)});
    let bad_country_and_value = json!({"serviceSegmentId": id, "countryCode": "usa",
                                       "values": [hashes(1, 20)[0], "not-a-hash"]});
    let payload = json!([good, other_segment, bad_country_and_value]);
    let r = api
        .post(&format!("/v1/audiences/{id}/data"), payload.clone())
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);

    // The details are the model's field errors, joined.
    let records: AudienceData = serde_json::from_value(payload).expect("records");
    let errors = validate::audience_data(&id, Some(&DataType::EmailSha256), &records)
        .expect_err("bad records");
    assert_eq!(
        r.body,
        json!({"message": "invalid payload: 2 bad record(s)", "published": 0,
               "failed_publishes": 0, "bad_records": 2,
               "bad_records_details": errors.to_string()})
    );
    let details = r.body["bad_records_details"].as_str().expect("details");
    for field in [
        "[1].serviceSegmentId: ",
        "[2].countryCode: ",
        "[2].values[1]: ",
    ] {
        assert!(details.contains(field), "{field} not in {details}");
    }
    assert!(!details.contains("[0]"), "the good record is not blamed");
    assert_eq!(
        segment(&api, &id).await["dataCount"],
        0,
        "nothing of a refused payload is stored"
    );
}

#[tokio::test]
async fn other_upload_failures_answer_error() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let data = format!("/v1/audiences/{id}/data");

    // The old invented shape is not an array.
    let r = api.post(&data, json!({"identifiers": hashes(3, 0)})).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "array");
    let r = post_raw(&api, &id, b"[{\"serviceSegmentId\": ".to_vec(), None).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "JSON");
    let r = post_raw(&api, &id, Vec::new(), None).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "required");
    let r = api.post(&data, json!([])).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "values");
    let r = api
        .post(
            &data,
            json!([{"serviceSegmentId": id, "countryCode": "US", "values": "abc"}]),
        )
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "[0].values");
    let r = post_raw(&api, &id, b"not gzip at all".to_vec(), Some("gzip")).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "gzip");
    let r = post_raw(&api, &id, b"[]".to_vec(), Some("br")).await;
    assert_error(&r, StatusCode::UNSUPPORTED_MEDIA_TYPE, "gzip");

    let r = api
        .post(
            "/v1/audiences/fpsegmunknown/data",
            json!([record("fpsegmunknown", &hashes(1, 0))]),
        )
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "fpsegmunknown");
    let rival = api.sign_in("rival", "rival").await;
    let r = api
        .post_as(&rival, &data, json!([record(&id, &hashes(1, 0))]))
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, &id);
    let viewer = api.sign_in("viewer", "viewer").await;
    let r = api
        .post_as(&viewer, &data, json!([record(&id, &hashes(1, 0))]))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "");
    assert_eq!(segment(&api, &id).await["dataCount"], 0, "nothing stored");
}

#[tokio::test]
async fn an_archived_segment_takes_no_more_data() {
    let mut api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let data = format!("/v1/audiences/{id}/data");
    let r = api
        .post(&data, json!([record(&id, &hashes(1000, 0))]))
        .await;
    assert_eq!(r.body, processed(1));
    assert_eq!(segment(&api, &id).await["status"], "ACTIVE");

    api.travel(3 * DAY).await;
    let one = segment(&api, &id).await;
    assert_eq!(one["status"], "ARCHIVED", "the 2-day ttl ran out");
    let r = api
        .post(&data, json!([record(&id, &hashes(1, 5000))]))
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "archived");
    assert_eq!(segment(&api, &id).await["dataCount"], 1000);
}

#[tokio::test]
async fn a_request_over_10_mb_as_sent_is_413() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let body = serde_json::to_vec(&json!([record(&id, &hashes(10, 0))])).expect("json");

    // Exactly the limit (the array padded with blanks) is taken.
    let mut at_limit = body.clone();
    at_limit.resize(AUDIENCE_UPLOAD_MAX_BYTES, b' ');
    let r = post_raw(&api, &id, at_limit.clone(), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body, processed(1));

    // One byte more is refused, with the {error} shape.
    let mut over = at_limit;
    over.push(b' ');
    let r = post_raw(&api, &id, over, None).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "10000000");
    assert_eq!(segment(&api, &id).await["dataCount"], 10);
}

#[tokio::test]
async fn a_gzip_body_that_inflates_past_ten_times_the_limit_is_413() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let body = serde_json::to_vec(&json!([record(&id, &hashes(10, 0))])).expect("json");

    // Small as sent (well under the limit), but blank padding inflates it past 100 MB.
    let mut bomb = body.clone();
    bomb.resize(10 * AUDIENCE_UPLOAD_MAX_BYTES + 1, b' ');
    let packed = gzip(&bomb);
    assert!(packed.len() < AUDIENCE_UPLOAD_MAX_BYTES / 10);
    drop(bomb);
    let r = post_raw(&api, &id, packed, Some("gzip")).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "inflates");

    // Padding that stays within the inflated limit is fine.
    let mut padded = body;
    padded.resize(2 * AUDIENCE_UPLOAD_MAX_BYTES, b' ');
    let r = post_raw(&api, &id, gzip(&padded), Some("gzip")).await;
    assert_eq!(r.body, processed(1));
}

#[tokio::test]
async fn reading_one_segment_carries_a_status_message() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let id = s["serviceSegmentId"].as_str().expect("id").to_owned();
    let one = segment(&api, &id).await;
    assert_eq!(
        one["message"],
        "Segment is inactive: 0 of 1000 matched identifiers needed to activate."
    );
    api.post(
        &format!("/v1/audiences/{id}/data"),
        json!([record(&id, &hashes(1000, 0))]),
    )
    .await;
    let one = segment(&api, &id).await;
    assert_eq!(
        one["message"],
        "Segment is active: 1000 matched identifiers."
    );
    let listed = api.get("/v1/audiences").await.body["audiences"][0].clone();
    assert!(
        listed.get("message").is_none(),
        "the listing stays as it is"
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

#[tokio::test]
async fn segments_with_ids_of_the_earlier_hex_form_stay_readable() {
    let api = Api::start().await;
    let s = create(&api, "crm-1").await;
    let new = s["serviceSegmentId"].as_str().expect("id").to_owned();
    // A database written before ids took the fpsegm form: 16 hex characters.
    let old = "00c0ffee12345678".to_owned();
    let (from, to) = (new.clone(), old.clone());
    api.sandbox
        .state()
        .db
        .tx(move |tx| {
            tx.execute(
                "UPDATE segments SET service_segment_id = ?2,
                     body = replace(body, ?1, ?2) WHERE service_segment_id = ?1",
                [&from, &to],
            )?;
            Ok(())
        })
        .await
        .expect("rewrite id");
    assert_eq!(
        api.get(&format!("/v1/audiences/{new}")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(segment(&api, &old).await["serviceSegmentId"], old.as_str());
    let r = api
        .post(
            &format!("/v1/audiences/{old}/data"),
            json!([record(&old, &hashes(3, 0))]),
        )
        .await;
    assert_eq!(r.body, processed(1));
    assert_eq!(segment(&api, &old).await["dataCount"], 3);
}
