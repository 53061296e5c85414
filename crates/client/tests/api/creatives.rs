use flightdeck_client::Error;
use flightdeck_model::{Creative, CreativeStatus, CreativeType};
use serde_json::json;

use crate::common::TestServer;

fn banner_tag() -> Creative {
    serde_json::from_value(json!({
        "name": "Leaderboard",
        "creativeType": "BANNER",
        "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"},
        "advertiserId": 1,
        "size": {"width": 728, "height": 90},
        "htmlAsset": "<div>ad</div>",
    }))
    .unwrap()
}

#[tokio::test]
async fn creative_save_creates_a_pending_creative() {
    let s = TestServer::start().await;
    let saved = s.demo().creative_save(&banner_tag()).await.unwrap().entity;
    assert!(saved.id.is_some());
    assert_eq!(saved.name.as_deref(), Some("Leaderboard"));
    assert_eq!(saved.creative_type, Some(CreativeType::BANNER));
    assert_eq!(saved.status, Some(CreativeStatus::PENDING));

    let video: Creative = serde_json::from_value(json!({
        "name": "Pre-roll", "creativeType": "VIDEO", "creativeSubtype": "VASTURL",
        "type": {"mediaType": "VAST"}, "campaignId": 1,
        "video": {"vastUrl": "https://ads.example/vast.xml"},
    }))
    .unwrap();
    let saved = s.demo().creative_save(&video).await.unwrap().entity;
    assert_eq!(saved.advertiser_id, Some(1), "resolved from the campaign");
}

#[tokio::test]
async fn creative_errors() {
    let s = TestServer::start().await;
    let c = s.demo();
    let mut bad = banner_tag();
    bad.html_asset = None;
    bad.size = None;
    let e = c.creative_save(&bad).await.unwrap_err();
    let Error::Rejected { messages, .. } = &e else {
        panic!("{e:?}")
    };
    let fields: Vec<_> = messages.iter().filter_map(|m| m.field.as_deref()).collect();
    assert!(
        fields.contains(&"htmlAsset") && fields.contains(&"size"),
        "{fields:?}"
    );

    let e = s
        .basic("viewer", "viewer")
        .creative_save(&banner_tag())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    // The service has no creative update: an id is refused, never read as an edit.
    let created = c.creative_save(&banner_tag()).await.unwrap().entity;
    let mut edited = banner_tag();
    edited.id = created.id;
    edited.name = Some("Leaderboard, renamed".into());
    let e = c.creative_save(&edited).await.unwrap_err();
    let Error::Rejected { messages, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(messages[0].field.as_deref(), Some("id"), "{messages:?}");
}
