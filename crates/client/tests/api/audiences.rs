use flightdeck_client::{AUDIENCE_GZIP_MIN_BYTES, Credentials, Error, SecretString};
use flightdeck_model::{
    AUDIENCE_DATA_PROCESSED, AUDIENCE_UPLOAD_MAX_BYTES, AudienceData, AudienceDataRecord,
    AudienceSegment, DataType, SegmentStatus,
};
use futures_util::StreamExt;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common::{DAY, Proxy, TestServer};

fn segment(external_id: &str) -> AudienceSegment {
    AudienceSegment {
        name: Some(format!("Segment {external_id}")),
        description: Some("Newsletter subscribers".into()),
        data_type: Some(DataType::EmailSha256),
        account_id: Some(1),
        advertiser_ids: Some(vec![1]),
        external_audience_id: Some(external_id.into()),
        ..AudienceSegment::default()
    }
}

/// SHA-256 hex digests of synthetic, normalised e-mail addresses.
fn hashed_emails(range: std::ops::Range<u32>) -> Vec<String> {
    range
        .map(|i| {
            let digest = Sha256::digest(format!("subscriber{i}@example.com").as_bytes());
            digest.iter().map(|b| format!("{b:02x}")).collect()
        })
        .collect()
}

fn record(segment: &str, country: &str, values: Vec<String>) -> AudienceDataRecord {
    AudienceDataRecord {
        service_segment_id: segment.into(),
        country_code: country.into(),
        values,
        ..AudienceDataRecord::default()
    }
}

/// The service applies uploads on its own schedule (about every 10 minutes); move the
/// clock past one run before reading the segment.
fn after_processing(s: &TestServer) {
    s.advance(10 * 60_000);
}

#[tokio::test]
async fn audience_lifecycle() {
    let s = TestServer::start().await;
    let token = s.access_token("demo", "demo").await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(Credentials::Bearer(SecretString::from(token)));
    let created = c.audience_create(&segment("news-1")).await.unwrap();
    let id = created.service_segment_id.clone().expect("assigned id");
    assert!(id.starts_with("fpsegm"), "{id}");
    assert_eq!(created.status, Some(SegmentStatus::Inactive));
    assert_eq!(created.external_audience_id.as_deref(), Some("news-1"));
    assert!(created.ttl.is_some());

    let one = c.audience(&id).await.unwrap();
    assert_eq!(one.name.as_deref(), Some("Segment news-1"));
    assert_eq!(one.data_count, Some(0));
    assert!(
        one.message.as_deref().is_some_and(|m| !m.is_empty()),
        "{one:?}"
    );

    // A file of 1,200 hashed e-mails, as one record.
    let emails = hashed_emails(0..1200);
    let result = c
        .audience_add_data(&id, &vec![record(&id, "US", emails.clone())])
        .await
        .unwrap();
    assert_eq!(result.message, AUDIENCE_DATA_PROCESSED);
    assert_eq!(
        (
            result.published,
            result.failed_publishes,
            result.bad_records
        ),
        (1, 0, 0)
    );
    assert_eq!(result.bad_records_details, "");

    // On the wire: one gzipped request holding the documented array of records.
    let sent = proxy.requests_to(&format!("/v1/audiences/{id}/data"));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].method, "POST");
    assert_eq!(sent[0].content_encoding.as_deref(), Some("gzip"));
    let body = sent[0].json();
    let plain_len = serde_json::to_vec(&body).unwrap().len();
    assert!(plain_len > AUDIENCE_GZIP_MIN_BYTES, "{plain_len}");
    assert!(sent[0].body.len() < plain_len, "compressed as sent");
    assert_eq!(
        body,
        serde_json::json!([{"serviceSegmentId": id, "countryCode": "US", "values": emails}])
    );

    after_processing(&s);
    let one = c.audience(&id).await.unwrap();
    assert_eq!(one.data_count, Some(1200));
    assert_eq!(one.status, Some(SegmentStatus::Active));

    let page = c.audiences(Some(1), Some(10)).await.unwrap();
    assert_eq!(page.pagination.page, 1);
    assert_eq!(page.pagination.page_size, 10);
    let listed = page
        .audiences
        .iter()
        .find(|x| x.service_segment_id.as_deref() == Some(&id))
        .expect("listed");
    assert_eq!(listed.status, Some(SegmentStatus::Active));
    assert_eq!(listed.advertiser_ids, Some(vec![1]));
    let defaults = c.audiences(None, None).await.unwrap();
    assert_eq!(defaults.pagination.page, 1);
}

#[tokio::test]
async fn a_small_upload_is_sent_plain() {
    let s = TestServer::start().await;
    let token = s.access_token("demo", "demo").await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(Credentials::Bearer(SecretString::from(token)));
    let id = c
        .audience_create(&segment("small"))
        .await
        .unwrap()
        .service_segment_id
        .unwrap();
    let data = vec![
        record(&id, "US", hashed_emails(0..10)),
        record(&id, "CA", hashed_emails(10..20)),
    ];
    let result = c.audience_add_data(&id, &data).await.unwrap();
    assert_eq!(result.published, 2);
    let sent = proxy.requests_to(&format!("/v1/audiences/{id}/data"));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].content_encoding, None);
    assert_eq!(sent[0].json(), serde_json::to_value(&data).unwrap());
    after_processing(&s);
    assert_eq!(c.audience(&id).await.unwrap().data_count, Some(20));
}

#[tokio::test]
async fn an_upload_over_the_request_limit_is_split_and_fully_counted() {
    let s = TestServer::start().await;
    let token = s.access_token("demo", "demo").await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(Credentials::Bearer(SecretString::from(token)));
    let id = c
        .audience_create(&segment("big"))
        .await
        .unwrap()
        .service_segment_id
        .unwrap();
    // About 10.7 MB of JSON: more than one request may carry.
    let emails = hashed_emails(0..160_000);
    let data = vec![record(&id, "GB", emails.clone())];
    assert!(serde_json::to_vec(&data).unwrap().len() > AUDIENCE_UPLOAD_MAX_BYTES);

    let result = c.audience_add_data(&id, &data).await.unwrap();
    let sent = proxy.requests_to(&format!("/v1/audiences/{id}/data"));
    assert_eq!(sent.len(), 2, "two requests");
    let mut values = Vec::new();
    for request in &sent {
        assert_eq!(request.content_encoding.as_deref(), Some("gzip"));
        assert!(request.body.len() <= AUDIENCE_UPLOAD_MAX_BYTES);
        let body = request.json();
        assert!(serde_json::to_vec(&body).unwrap().len() <= AUDIENCE_UPLOAD_MAX_BYTES);
        for r in body.as_array().unwrap() {
            assert_eq!(r["serviceSegmentId"], Value::from(id.clone()));
            assert_eq!(r["countryCode"], "GB");
            values.extend(
                r["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned()),
            );
        }
    }
    assert_eq!(values, emails, "every identifier sent once, in order");
    // Each request published its one record; the answer adds them up.
    assert_eq!(
        (
            result.published,
            result.bad_records,
            result.message.as_str()
        ),
        (2, 0, AUDIENCE_DATA_PROCESSED)
    );
    after_processing(&s);
    let one = c.audience(&id).await.unwrap();
    assert_eq!(one.data_count, Some(160_000));
    assert_eq!(one.status, Some(SegmentStatus::Active));
}

#[tokio::test]
async fn bad_records_refuse_the_upload_with_the_count_and_details() {
    let s = TestServer::start().await;
    let c = s.bearer("demo", "demo").await;
    let id = c
        .audience_create(&segment("bad"))
        .await
        .unwrap()
        .service_segment_id
        .unwrap();
    let data = vec![
        record(&id, "US", hashed_emails(0..5)),
        record(&id, "usa", hashed_emails(5..10)),
        record(&id, "US", vec!["not-a-hash".into()]),
        record("fpsegmsomeoneelse", "US", hashed_emails(10..12)),
    ];
    let e = c.audience_add_data(&id, &data).await.unwrap_err();
    let Error::AudienceBadRecords { status, result } = &e else {
        panic!("{e:?}")
    };
    assert!((400..500).contains(status), "{status}");
    assert_eq!((result.bad_records, result.published), (3, 0));
    assert_eq!(result.message, "invalid payload: 3 bad record(s)");
    let text = e.to_string();
    assert!(
        text.starts_with("the ad platform refused the upload: invalid payload: 3 bad record(s): "),
        "{text}"
    );
    for field in ["[1].countryCode", "[2].values[0]", "[3].serviceSegmentId"] {
        assert!(text.contains(field), "{field} in {text}");
    }
    assert!(!e.is_retryable());
    after_processing(&s);
    assert_eq!(
        c.audience(&id).await.unwrap().data_count,
        Some(0),
        "nothing of a refused upload is stored"
    );
}

#[tokio::test]
async fn an_identifier_too_long_for_any_request_is_refused_before_sending() {
    let s = TestServer::start().await;
    let token = s.access_token("demo", "demo").await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(Credentials::Bearer(SecretString::from(token)));
    let id = c
        .audience_create(&segment("huge"))
        .await
        .unwrap()
        .service_segment_id
        .unwrap();
    let mut values = hashed_emails(0..3);
    values.push("x".repeat(AUDIENCE_UPLOAD_MAX_BYTES));
    let e = c
        .audience_add_data(&id, &vec![record(&id, "US", values)])
        .await
        .unwrap_err();
    let Error::Invalid { field, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(field, "[0].values[3]");
    assert!(e.to_string().starts_with("[0].values[3]: "), "{e}");
    assert!(
        proxy
            .requests_to(&format!("/v1/audiences/{id}/data"))
            .is_empty(),
        "nothing was sent"
    );
}

#[tokio::test]
async fn an_archived_segment_takes_no_data() {
    let s = TestServer::start().await;
    let c = s.bearer("demo", "demo").await;
    let id = c
        .audience_create(&AudienceSegment {
            ttl: Some(flightdeck_model::TTL_MIN_SECS),
            ..segment("short-lived")
        })
        .await
        .unwrap()
        .service_segment_id
        .unwrap();
    s.advance(3 * DAY);
    // A fresh token: the first one has expired with the clock.
    let c = s.bearer("demo", "demo").await;
    assert_eq!(
        c.audience(&id).await.unwrap().status,
        Some(SegmentStatus::Archived)
    );
    let e = c
        .audience_add_data(&id, &vec![record(&id, "US", hashed_emails(0..3))])
        .await
        .unwrap_err();
    let Error::Audience { status, error } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 400);
    assert!(error.contains("archived"), "{error}");
}

async fn streamed_ids(c: &flightdeck_client::Client, page_size: u32) -> Vec<String> {
    c.audiences_stream(page_size)
        .map(|r| r.unwrap().service_segment_id.unwrap())
        .collect()
        .await
}

#[tokio::test]
async fn stream_reads_every_page_then_stops() {
    let s = TestServer::start().await;
    let c = s.bearer("demo", "demo").await;
    assert!(c.audiences(None, None).await.unwrap().audiences.is_empty());
    let mut created = Vec::new();
    for i in 0..6 {
        let seg = c
            .audience_create(&segment(&format!("seg-{i}")))
            .await
            .unwrap();
        created.push(seg.service_segment_id.unwrap());
    }
    // Two full pages, then an empty one ends the stream.
    assert_eq!(streamed_ids(&c, 3).await, created);

    // Seven: the short third page ends it; oldest first, none twice.
    let seg = c.audience_create(&segment("seg-6")).await.unwrap();
    created.push(seg.service_segment_id.unwrap());
    assert_eq!(streamed_ids(&c, 3).await, created);
    assert_eq!(streamed_ids(&c, 500).await, created);
    assert_eq!(streamed_ids(&c, 1).await, created);
}

#[tokio::test]
async fn stream_ends_on_an_empty_account_and_reports_errors() {
    let s = TestServer::start().await;
    let rival = s.bearer("rival", "rival").await;
    let none: Vec<_> = rival.audiences_stream(3).collect().await;
    assert!(none.is_empty());

    let basic = s.demo();
    let failed: Vec<_> = basic.audiences_stream(3).collect().await;
    assert_eq!(failed.len(), 1, "one error, then the end");
    assert!(matches!(failed[0], Err(Error::Unauthenticated { .. })));
}

#[tokio::test]
async fn audience_errors() {
    let s = TestServer::start().await;
    let c = s.bearer("demo", "demo").await;

    // Audience endpoints take an access token only: Basic is a 401 with the service's text.
    for client in [
        s.demo(),
        s.client_with(Credentials::None),
        s.client_with(Credentials::Bearer(SecretString::from("garbage"))),
    ] {
        let e = client.audiences(None, None).await.unwrap_err();
        let Error::Unauthenticated { messages } = &e else {
            panic!("{e:?}")
        };
        assert!(messages[0].message.contains("access token"), "{messages:?}");
    }

    let viewer = s.bearer("viewer", "viewer").await;
    let e = viewer.audience_create(&segment("v")).await.unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let e = c
        .audience_create(&AudienceSegment {
            account_id: Some(2),
            ..segment("other-account")
        })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");

    let e = c.audience("0000000000000000").await.unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    let e = c
        .audience_add_data("no/such segment", &AudienceData::default())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    let rival_advertiser = s
        .basic("rival", "rival")
        .advertisers(None)
        .await
        .unwrap()
        .entity[0]
        .id
        .unwrap();
    let theirs = s
        .bearer("rival", "rival")
        .await
        .audience_create(&AudienceSegment {
            account_id: Some(2),
            advertiser_ids: Some(vec![rival_advertiser]),
            ..segment("rival")
        })
        .await
        .unwrap();
    let e = c
        .audience(theirs.service_segment_id.as_deref().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");

    // Other failures keep the service's own text.
    let e = c.audiences(Some(1), Some(100_000)).await.unwrap_err();
    let Error::Audience { status, error } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 400);
    assert!(error.contains("pageSize"), "{error}");
    assert!(!e.is_retryable());

    let e = c
        .audience_create(&AudienceSegment {
            name: None,
            ..segment("nameless")
        })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Audience { status: 400, .. }), "{e:?}");
    c.audience_create(&segment("dup")).await.unwrap();
    let e = c.audience_create(&segment("dup")).await.unwrap_err();
    assert!(matches!(e, Error::Audience { status: 400, .. }), "{e:?}");
}
