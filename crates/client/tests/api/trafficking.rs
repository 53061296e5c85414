//! The trafficking endpoints from the service's reference: creative listings, a
//! campaign's ad orders and ad-order status, against the sandbox and against canned
//! answers in the reference's other shapes.

use flightdeck_client::{Credentials, Error};
use flightdeck_model::{
    AdOrderStatus, CreativeChannel, CreativeStatus, MediaType, MessageLevel, VideoType,
};
use flightdeck_sandbox::faults::FaultSettings;
use serde_json::json;

use crate::common::{Canned, Proxy, TestServer};

// Demo ids (see the sandbox's seed): campaign 1 is Acme Spring Launch, its ad orders
// are 1-3; campaign 5 and ad order 11 are the rival account's.
const SPRING: i64 = 1;

#[tokio::test]
async fn campaign_creatives_are_typed_with_their_service_status() {
    let s = TestServer::start().await;
    let listed = s.demo().campaign_creatives(SPRING).await.unwrap().entity;
    let names: Vec<_> = listed.iter().filter_map(|c| c.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            "Acme Spring - 300x250",
            "Acme Spring - 15s Video",
            "Acme Spring - 728x90"
        ]
    );
    let statuses: Vec<_> = listed.iter().filter_map(|c| c.status.clone()).collect();
    assert_eq!(
        statuses,
        [
            CreativeStatus::APPROVED,
            CreativeStatus::APPROVED,
            CreativeStatus::PENDING
        ]
    );
    let video = &listed[1];
    let t = video.type_.as_ref().unwrap();
    assert_eq!(t.media_type, Some(MediaType::VAST));
    assert_eq!(t.video_type, Some(VideoType::MP4));
    assert!(t.vendor.is_some() && t.id.is_some());
    assert_eq!((video.duration, video.bit_rate), (Some(15.0), Some(2500.0)));
    assert_eq!(
        video.external_creativeid.as_deref(),
        Some("ACME-SPRING-VID")
    );
    assert!(
        video
            .channels
            .as_ref()
            .unwrap()
            .contains(&CreativeChannel::CONNECTED_TV)
    );
    assert!(listed[0].ad_tag_id.is_some(), "the tag has an ad tag id");
    assert!(
        video.extra.is_empty(),
        "every member is named: {:?}",
        video.extra
    );

    let by_order = s.demo().creatives_by_ad_order(1).await.unwrap().entity;
    let names: Vec<_> = by_order.iter().filter_map(|c| c.name.as_deref()).collect();
    assert_eq!(names, ["Acme Spring - 300x250", "Acme Spring - 728x90"]);
}

#[tokio::test]
async fn ad_orders_by_campaign_lists_only_that_campaign() {
    let s = TestServer::start().await;
    let orders = s.demo().ad_orders_by_campaign(SPRING).await.unwrap().entity;
    assert_eq!(orders.len(), 3);
    assert!(orders.iter().all(|o| o.campaign_id == Some(SPRING)));
    let e = s.demo().ad_orders_by_campaign(999).await.unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
}

#[tokio::test]
async fn another_accounts_ids_are_not_found_and_a_viewer_only_reads() {
    let s = TestServer::start().await;
    let rival = s.basic("rival", "rival");
    for e in [
        rival.campaign_creatives(SPRING).await.unwrap_err(),
        rival.creatives_by_ad_order(1).await.unwrap_err(),
        rival.ad_orders_by_campaign(SPRING).await.unwrap_err(),
    ] {
        assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    }
    let e = rival
        .ad_order_update_status(1, AdOrderStatus::Paused)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    assert_eq!(rival.campaign_creatives(5).await.unwrap().entity.len(), 1);

    let viewer = s.basic("viewer", "viewer");
    assert_eq!(
        viewer.creatives_by_ad_order(1).await.unwrap().entity.len(),
        2
    );
    let e = viewer
        .ad_order_update_status(1, AdOrderStatus::Paused)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    let e = s
        .client_with(Credentials::None)
        .campaign_creatives(SPRING)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Unauthenticated { .. }), "{e:?}");
}

#[tokio::test]
async fn status_changes_answer_the_new_status_and_refusals_name_the_field() {
    let s = TestServer::start().await;
    let c = s.demo();
    for _ in 0..2 {
        let r = c
            .ad_order_update_status(1, AdOrderStatus::Paused)
            .await
            .unwrap();
        assert_eq!(r.entity.id, Some(1));
        assert_eq!(r.entity.status, Some(AdOrderStatus::Paused));
        assert!(r.messages.is_empty());
    }
    c.ad_order_update_status(1, AdOrderStatus::Archived)
        .await
        .unwrap();
    let e = c
        .ad_order_update_status(1, AdOrderStatus::Active)
        .await
        .unwrap_err();
    let Error::Rejected { status, messages } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 400);
    assert_eq!(messages[0].field.as_deref(), Some("status"));
    assert!(messages[0].message.contains("archived"), "{e}");
    let e = c
        .ad_order_update_status(999, AdOrderStatus::Active)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
}

#[tokio::test]
async fn listings_are_retried_and_status_changes_never_are() {
    let s = TestServer::start().await;
    let proxy = Proxy::start(&s.base_url()).await;
    let c = proxy.client(Credentials::basic("demo", "demo"));
    let faults = FaultSettings {
        drop_after_commit: 1,
        ..Default::default()
    };
    s.sandbox.state().faults.set(faults).unwrap();
    assert_eq!(c.campaign_creatives(SPRING).await.unwrap().entity.len(), 3);
    assert_eq!(proxy.requests_to("/v1/campaign/1/creatives").len(), 2);
    s.sandbox.state().faults.set(faults).unwrap();
    assert_eq!(c.creatives_by_ad_order(1).await.unwrap().entity.len(), 2);
    s.sandbox.state().faults.set(faults).unwrap();
    assert_eq!(
        c.ad_orders_by_campaign(SPRING).await.unwrap().entity.len(),
        3
    );
    assert_eq!(
        proxy.requests_to("/v1/adorder/getAdOrdersByCampaign").len(),
        2
    );

    // A change whose answer is lost is reported as such, sent once, and its effect kept.
    s.sandbox.state().faults.set(faults).unwrap();
    let e = c
        .ad_order_update_status(3, AdOrderStatus::Active)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::OutcomeUnknown { .. }), "{e:?}");
    assert_eq!(proxy.requests_to("/v1/adorder/updateStatus").len(), 1);
    // Sending it again is harmless: the service answers the status it now has.
    let r = c
        .ad_order_update_status(3, AdOrderStatus::Active)
        .await
        .unwrap();
    assert_eq!(r.entity.status, Some(AdOrderStatus::Active));
}

#[tokio::test]
async fn the_references_other_shapes_decode() {
    let canned = Canned::start(vec![
        (
            "/v1/adorder/updateStatus",
            200,
            json!({"messages": ["Status updated"], "entity": {"id": 1001, "status": 6}}),
        ),
        (
            "/v1/campaign/7/creatives",
            200,
            json!({"messages": [], "entity": [{
                "id": 1, "status": "UNDER_REVIEW", "name": "New",
                "type": {"id": 99, "vendor": "Somebody", "mediaType": "HTML5", "videoType": null},
                "channels": ["MOBILE", "AUDIO_STREAM"], "size": null, "adTagId": "x-1",
                "duration": null, "bitRate": null, "thumbnailUrl": "https://t.example/1.png"
            }]}),
        ),
        (
            "/v1/creative/getCreativesByAdOrder/8",
            400,
            json!({"messages": ["ad order 8 is archived"], "entity": null}),
        ),
    ])
    .await;
    let c = canned.client(Credentials::basic("demo", "demo"));
    let r = c
        .ad_order_update_status(1001, AdOrderStatus::Inactive)
        .await
        .unwrap();
    assert_eq!(r.entity.status, Some(AdOrderStatus::Other(6)));
    assert_eq!(r.messages[0].message, "Status updated");
    assert_eq!(r.messages[0].level, MessageLevel::Info);

    let listed = c.campaign_creatives(7).await.unwrap().entity;
    assert_eq!(
        listed[0].status,
        Some(CreativeStatus::Other("UNDER_REVIEW".into()))
    );
    let t = listed[0].type_.as_ref().unwrap();
    assert_eq!(t.media_type, Some(MediaType::Other("HTML5".into())));
    assert_eq!(
        listed[0].channels.as_deref(),
        Some(
            &[
                CreativeChannel::MOBILE,
                CreativeChannel::Other("AUDIO_STREAM".into())
            ][..]
        )
    );
    assert_eq!(listed[0].extra["thumbnailUrl"], "https://t.example/1.png");

    let e = c.creatives_by_ad_order(8).await.unwrap_err();
    let Error::Rejected { messages, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(messages[0].message, "ad order 8 is archived");
}
