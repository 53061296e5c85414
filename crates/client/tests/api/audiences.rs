use flightdeck_client::{Credentials, Error, SecretString};
use flightdeck_model::{AudienceData, AudienceSegment, DataType, SegmentStatus};
use futures_util::StreamExt;

use crate::common::TestServer;

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

fn hashes(range: std::ops::Range<u32>) -> Vec<String> {
    range.map(|i| format!("{i:064x}")).collect()
}

#[tokio::test]
async fn audience_lifecycle() {
    let s = TestServer::start().await;
    let c = s.bearer("demo", "demo").await;
    let created = c.audience_create(&segment("news-1")).await.unwrap();
    let id = created.service_segment_id.clone().expect("assigned id");
    assert_eq!(created.status, Some(SegmentStatus::Inactive));
    assert_eq!(created.external_audience_id.as_deref(), Some("news-1"));
    assert!(created.ttl.is_some());

    let one = c.audience(&id).await.unwrap();
    assert_eq!(one.name.as_deref(), Some("Segment news-1"));
    assert_eq!(one.data_count, Some(0));

    let mut identifiers = hashes(0..1000);
    identifiers.push("not-a-hash".into());
    let result = c
        .audience_add_data(&id, &AudienceData { identifiers })
        .await
        .unwrap();
    assert_eq!(result.service_segment_id, id);
    assert_eq!((result.accepted, result.rejected), (1000, 1));
    assert_eq!(result.data_count, 1000);
    assert_eq!(result.status, SegmentStatus::Active);

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
