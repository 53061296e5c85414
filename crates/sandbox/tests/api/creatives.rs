use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::Api;

/// A valid body for each cell of the matrix, and the required paths of that cell.
fn cells(adv: i64) -> Vec<(Value, Vec<&'static str>)> {
    let base = |t: &str, s: &str, media: &str| {
        json!({"name": format!("{t} {s}"), "creativeType": t, "creativeSubtype": s,
               "type": {"mediaType": media}, "advertiserId": adv})
    };
    let with = |mut v: Value, extra: Value| {
        for (k, x) in extra.as_object().expect("obj") {
            v[k] = x.clone();
        }
        v
    };
    let url = "https://cdn.example.com/a";
    let lp = "https://example.com/landing";
    vec![
        (
            with(
                base("BANNER", "TAG", "BANNER"),
                json!({"size": {"width": 300, "height": 250}, "htmlAsset": "<div>ad</div>"}),
            ),
            vec!["size", "htmlAsset"],
        ),
        (
            with(
                base("BANNER", "HOSTED", "BANNER"),
                json!({"imageUrl": url, "landingPageUrl": lp}),
            ),
            vec!["imageUrl", "landingPageUrl"],
        ),
        (
            with(
                base("VIDEO", "VASTURL", "VAST"),
                json!({"video": {"vastUrl": url}}),
            ),
            vec!["video.vastUrl"],
        ),
        (
            with(
                base("VIDEO", "VASTXML", "VAST"),
                json!({"video": {"vastXml": "<VAST version=\"4.0\"/>"}}),
            ),
            vec!["video.vastXml"],
        ),
        (
            with(
                base("VIDEO", "HOSTED", "VAST"),
                json!({"video": {"mediaUrls": [url]}, "landingPageUrl": lp}),
            ),
            vec!["video.mediaUrls", "landingPageUrl"],
        ),
        (
            with(
                base("AUDIO", "VASTURL", "AUDIO"),
                json!({"audio": {"vastUrl": url}}),
            ),
            vec!["audio.vastUrl"],
        ),
        (
            with(
                base("AUDIO", "VASTXML", "AUDIO"),
                json!({"audio": {"vastXml": "<VAST/>"}}),
            ),
            vec!["audio.vastXml"],
        ),
        (
            with(
                base("AUDIO", "HOSTED", "AUDIO"),
                json!({"audio": {"mediaUrls": [url], "daast": {"v": 1}}, "landingPageUrl": lp}),
            ),
            vec!["audio.mediaUrls", "landingPageUrl"],
        ),
        (
            with(
                base("NATIVE", "IMAGE", "NATIVE"),
                json!({"native": {"headline": "H", "caption": "C", "sponsoredBy": "S", "imageUrl": url, "imageIcon": url}}),
            ),
            vec![
                "native.headline",
                "native.caption",
                "native.sponsoredBy",
                "native.imageUrl",
                "native.imageIcon",
            ],
        ),
        (
            with(
                base("NATIVE", "VASTURL", "NATIVE"),
                json!({"native": {"vastUrl": url}}),
            ),
            vec!["native.vastUrl"],
        ),
        (
            with(
                base("NATIVE", "VASTXML", "NATIVE"),
                json!({"native": {"vastXml": "<VAST/>"}}),
            ),
            vec!["native.vastXml"],
        ),
        (
            with(
                base("NATIVE", "HOSTED", "NATIVE"),
                json!({"native": {"mediaUrls": [url]}, "landingPageUrl": lp}),
            ),
            vec!["native.mediaUrls", "landingPageUrl"],
        ),
        (
            with(
                base("DOOH", "IMAGE", "BANNER"),
                json!({"dooh": {"imageUrl": url}, "size": {"width": 1920, "height": 1080}}),
            ),
            vec!["dooh.imageUrl"],
        ),
        (
            with(
                base("DOOH", "VIDEO", "VAST"),
                json!({"dooh": {"mediaUrls": [url]}}),
            ),
            vec!["dooh.mediaUrls"],
        ),
    ]
}

/// Removes a dotted path such as `native.imageIcon` from a body.
fn without(mut body: Value, path: &str) -> Value {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().expect("path");
    let mut node = &mut body;
    for p in parts {
        node = &mut node[p];
    }
    node.as_object_mut().expect("object").remove(last);
    body
}

#[tokio::test]
async fn every_cell_of_the_matrix_saves_and_names_its_missing_fields() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    for (body, required) in cells(adv) {
        let r = api.post("/v1/creative/save", body.clone()).await;
        let e = r.entity();
        assert!(e["id"].is_i64(), "{body}");
        assert_eq!(e["name"], body["name"]);
        assert_eq!(e["type"]["mediaType"], body["type"]["mediaType"]);
        assert!(["PENDING", "INCOMPLETE"].contains(&e["status"].as_str().expect("status")));
        for field in required {
            let r = api
                .post("/v1/creative/save", without(body.clone(), field))
                .await;
            let wanted = if field == "htmlAsset" {
                "htmlAsset"
            } else {
                field
            };
            assert!(
                r.names_field(wanted),
                "{} without {field}: {:?}",
                body["name"],
                r.errors()
            );
        }
    }
}

#[tokio::test]
async fn tag_html_may_come_from_display_and_hosted_banner_without_size_is_incomplete() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let r = api
        .post(
            "/v1/creative/save",
            json!({"name": "Tag", "creativeType": "BANNER", "creativeSubtype": "TAG", "type": {"mediaType": "BANNER"},
                   "advertiserId": adv, "size": {"width": 728, "height": 90}, "display": {"htmlAsset": "<b>x</b>"}}),
        )
        .await;
    assert_eq!(r.entity()["status"], "PENDING");
    let (hosted, _) = cells(adv).remove(1);
    assert_eq!(
        api.post("/v1/creative/save", hosted).await.entity()["status"],
        "INCOMPLETE"
    );
}

#[tokio::test]
async fn invalid_type_subtype_media_type_and_limits() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let (tag, _) = cells(adv).remove(0);

    let mut b = tag.clone();
    b["creativeType"] = json!("HOLOGRAM");
    assert!(
        api.post("/v1/creative/save", b)
            .await
            .names_field("creativeType")
    );

    let mut b = tag.clone();
    b["creativeSubtype"] = json!("VASTXML");
    assert!(
        api.post("/v1/creative/save", b)
            .await
            .names_field("creativeSubtype")
    );

    let mut b = tag.clone();
    b["type"]["mediaType"] = json!("AUDIO");
    assert!(
        api.post("/v1/creative/save", b)
            .await
            .names_field("type.mediaType")
    );

    let mut b = tag.clone();
    b["name"] = json!("n".repeat(401));
    b["externalCreativeid"] = json!("e".repeat(27));
    b["size"] = json!({"width": 0, "height": 10240});
    let r = api.post("/v1/creative/save", b).await;
    for field in ["name", "externalCreativeid", "size.width", "size.height"] {
        assert!(r.names_field(field), "{field}: {:?}", r.errors());
    }

    let mut b = tag.clone();
    b["name"] = json!("n".repeat(400));
    b["externalCreativeid"] = json!("e".repeat(26));
    b["size"] = json!({"width": 1, "height": 10239});
    b["impressionTrackingPixel_1"] = json!("https://t.example.com/p");
    let e = api.post("/v1/creative/save", b).await.entity().clone();
    assert_eq!(e["externalCreativeid"], json!("e".repeat(26)));
    assert_eq!(e["impressionTrackingPixel_1"], "https://t.example.com/p");

    let mut b = tag;
    b.as_object_mut().expect("obj").remove("advertiserId");
    assert!(
        api.post("/v1/creative/save", b)
            .await
            .names_field("advertiserId")
    );
}

#[tokio::test]
async fn campaign_only_resolves_the_advertiser() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let other = api.advertiser("Other").await;
    let campaign = api.campaign(adv).await;
    let (mut body, _) = cells(adv).remove(2);
    body.as_object_mut().expect("obj").remove("advertiserId");
    body["campaignId"] = json!(campaign);
    let r = api.post("/v1/creative/save", body.clone()).await;
    assert_eq!(r.entity()["advertiserId"], adv);
    body["advertiserId"] = json!(other);
    assert!(
        api.post("/v1/creative/save", body)
            .await
            .names_field("campaignId")
    );
}

#[tokio::test]
async fn update_by_id_and_other_accounts() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let (body, _) = cells(adv).remove(2);
    let created = api.post("/v1/creative/save", body).await.entity().clone();
    let r = api
        .post(
            "/v1/creative/save",
            json!({"id": created["id"], "name": "Renamed", "status": "DISABLED"}),
        )
        .await;
    assert_eq!(r.entity()["name"], "Renamed");
    assert_eq!(r.entity()["video"], created["video"]);
    assert_eq!(r.entity()["status"], "DISABLED");
    let rival = api.sign_in("rival", "rival").await;
    let r = api
        .post_as(
            &rival,
            "/v1/creative/save",
            json!({"id": created["id"], "name": "Mine now"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}
