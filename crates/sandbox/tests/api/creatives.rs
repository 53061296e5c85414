use flightdeck_model::validate;
use flightdeck_model::{CreativeSubtype, CreativeType};
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
                json!({"native": {"headline": "H", "caption": "C", "sponsoredBy": "S", "imageUrl": url, "imageIcon": url},
                       "landingPageUrl": lp}),
            ),
            vec![
                "native.headline",
                "native.caption",
                "native.sponsoredBy",
                "native.imageUrl",
                "native.imageIcon",
                "landingPageUrl",
            ],
        ),
        (
            with(
                base("NATIVE", "VASTURL", "NATIVE"),
                json!({"native": {"vastUrl": url}, "landingPageUrl": lp}),
            ),
            vec!["native.vastUrl", "landingPageUrl"],
        ),
        (
            with(
                base("NATIVE", "VASTXML", "NATIVE"),
                json!({"native": {"vastXml": "<VAST/>"}, "landingPageUrl": lp}),
            ),
            vec!["native.vastXml", "landingPageUrl"],
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

/// Whether a body is one of the image cells whose size the real service infers by
/// fetching the image (BANNER HOSTED, NATIVE IMAGE, DOOH IMAGE).
fn image_cell(body: &Value) -> bool {
    matches!(
        (
            body["creativeType"].as_str().unwrap_or_default(),
            body["creativeSubtype"].as_str().unwrap_or_default()
        ),
        ("BANNER", "HOSTED") | ("NATIVE", "IMAGE") | ("DOOH", "IMAGE")
    )
}

#[tokio::test]
async fn every_cell_of_the_matrix_saves_and_names_its_missing_fields() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let all = cells(adv);
    assert_eq!(all.len(), validate::creative_matrix().len());
    for (body, required) in all {
        // The test's cells follow the model's matrix, which is the rule.
        let cell = validate::matrix_cell(
            &CreativeType::from_wire(body["creativeType"].as_str().expect("type")),
            &CreativeSubtype::from_wire(body["creativeSubtype"].as_str().expect("subtype")),
        )
        .expect("a cell of the matrix");
        let mut wanted: Vec<&str> = cell.required.to_vec();
        let mut listed = required.clone();
        wanted.sort_unstable();
        listed.sort_unstable();
        assert_eq!(listed, wanted, "{}", body["name"]);

        let r = api.post("/v1/creative/save", body.clone()).await;
        let e = r.entity();
        assert!(e["id"].is_i64(), "{body}");
        assert_eq!(e["name"], body["name"]);
        assert_eq!(e["type"]["mediaType"], body["type"]["mediaType"]);
        let expected = if image_cell(&body) && body.get("size").is_none() {
            "INCOMPLETE"
        } else {
            "PENDING"
        };
        assert_eq!(e["status"], expected, "{}", body["name"]);
        for field in required {
            let r = api
                .post("/v1/creative/save", without(body.clone(), field))
                .await;
            assert!(
                r.names_field(field),
                "{} without {field}: {:?}",
                body["name"],
                r.errors()
            );
        }
    }
}

#[tokio::test]
async fn every_cell_takes_a_size_and_then_is_pending() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    for (mut body, _) in cells(adv) {
        body["size"] = json!({"width": 320, "height": 480});
        let r = api.post("/v1/creative/save", body.clone()).await;
        let e = r.entity();
        assert_eq!(
            e["size"],
            json!({"width": 320, "height": 480}),
            "{}",
            body["name"]
        );
        assert_eq!(e["status"], "PENDING", "{}", body["name"]);
    }
}

#[tokio::test]
async fn image_cells_are_incomplete_only_without_a_size() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let images: Vec<Value> = cells(adv)
        .into_iter()
        .map(|(b, _)| b)
        .filter(image_cell)
        .collect();
    assert_eq!(images.len(), 3, "BANNER HOSTED, NATIVE IMAGE, DOOH IMAGE");
    for body in images {
        let mut sized = body.clone();
        sized["size"] = json!({"width": 300, "height": 250});
        assert_eq!(
            api.post("/v1/creative/save", sized).await.entity()["status"],
            "PENDING",
            "{} with a size",
            body["name"]
        );
        let mut unsized_ = body.clone();
        unsized_.as_object_mut().expect("obj").remove("size");
        assert_eq!(
            api.post("/v1/creative/save", unsized_).await.entity()["status"],
            "INCOMPLETE",
            "{} without a size",
            body["name"]
        );
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

/// How many creatives the sandbox holds, and the name of creative `id`.
async fn stored(api: &Api, id: i64) -> (i64, String) {
    api.sandbox
        .state()
        .db
        .tx(move |tx| {
            let count = tx.query_row("SELECT COUNT(*) FROM creatives", (), |r| r.get(0))?;
            let body: String =
                tx.query_row("SELECT body FROM creatives WHERE id = ?1", [id], |r| {
                    r.get(0)
                })?;
            let body: Value = serde_json::from_str(&body).expect("stored JSON");
            Ok((count, body["name"].as_str().unwrap_or_default().to_owned()))
        })
        .await
        .expect("read creatives")
}

#[tokio::test]
async fn an_id_is_refused_because_there_is_no_creative_update() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let (body, _) = cells(adv).remove(2);
    let created = api
        .post("/v1/creative/save", body.clone())
        .await
        .entity()
        .clone();
    let id = created["id"].as_i64().expect("id");
    let before = stored(&api, id).await;

    // The whole creative sent back with its id, renamed: neither an update nor a copy.
    let mut edit = created.clone();
    edit["name"] = json!("Renamed");
    let r = api.post("/v1/creative/save", edit).await;
    assert_eq!(
        r.body,
        json!({"messages": [{"level": "ERROR", "code": "INVALID",
            "message": "id: must be omitted: the service has no creative update (creative/save \
                        only creates); save a new creative instead"}],
               "entity": null})
    );
    assert_eq!(stored(&api, id).await, before, "nothing changed or added");

    // Any id, even one that names no creative, or another account's.
    let mut unknown = body.clone();
    unknown["id"] = json!(987_654);
    assert!(
        api.post("/v1/creative/save", unknown)
            .await
            .names_field("id")
    );
    let rival = api.sign_in("rival", "rival").await;
    let r = api
        .post_as(
            &rival,
            "/v1/creative/save",
            json!({"id": id, "name": "Mine now"}),
        )
        .await;
    assert!(r.names_field("id"));
    assert_eq!(stored(&api, id).await, before);

    // `id: null` is an omitted id: it creates.
    let mut null_id = body;
    null_id["id"] = Value::Null;
    let again = api
        .post("/v1/creative/save", null_id)
        .await
        .entity()
        .clone();
    assert_ne!(again["id"], created["id"]);
    assert_eq!(stored(&api, id).await.0, before.0 + 1);
}

#[tokio::test]
async fn status_and_video_type_outside_the_catalogue_are_refused() {
    let api = Api::start().await;
    let adv = api.advertiser("Acme").await;
    let (body, _) = cells(adv).remove(2);

    let mut b = body.clone();
    b["status"] = json!("ARCHIVED");
    let r = api.post("/v1/creative/save", b).await;
    assert!(r.names_field("status"), "{:?}", r.errors());
    assert_eq!(r.codes(), ["INVALID"]);
    assert!(r.errors()[0].contains("\"ARCHIVED\""), "{:?}", r.errors());

    let mut b = body.clone();
    b["type"]["videoType"] = json!("MOV");
    let r = api.post("/v1/creative/save", b).await;
    assert!(r.names_field("type.videoType"), "{:?}", r.errors());
    assert_eq!(r.codes(), ["INVALID"]);

    // Values of the catalogue are taken.
    let mut b = body;
    b["type"]["videoType"] = json!("MP4");
    b["status"] = json!("DISABLED");
    let e = api.post("/v1/creative/save", b).await.entity().clone();
    assert_eq!(e["type"]["videoType"], "MP4");
    assert_eq!(e["status"], "DISABLED");
}
