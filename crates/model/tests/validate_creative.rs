//! Creative matrix and `creative()` rules.

mod common;

use common::{assert_exactly, assert_has, assert_ok, assert_one, errors, from_json};
use flightdeck_model::validate::{
    self, codes::*, creative, creative_matrix, is_http_url, matrix_cell,
};
use flightdeck_model::{Creative, CreativeSubtype as S, CreativeType as T, MediaType as M};
use serde_json::{Value, json};

/// A valid creative body for each matrix cell, with the cell's first media type.
fn valid(t: &str, s: &str) -> Value {
    let mut v = json!({
        "name": "Spring sale",
        "creativeType": t,
        "creativeSubtype": s,
        "advertiserId": 42,
    });
    let (media, extra) = match (t, s) {
        ("BANNER", "TAG") => (
            "BANNER",
            json!({"size": {"width": 300, "height": 250}, "htmlAsset": "<script></script>"}),
        ),
        ("BANNER", "HOSTED") => (
            "BANNER",
            json!({"imageUrl": "https://cdn.example.com/a.png", "landingPageUrl": "https://example.com"}),
        ),
        ("VIDEO", "VASTURL") => (
            "VAST",
            json!({"video": {"vastUrl": "https://ads.example.com/vast.xml"}}),
        ),
        ("VIDEO", "VASTXML") => ("VAST", json!({"video": {"vastXml": "<VAST/>"}})),
        ("VIDEO", "HOSTED") => (
            "VAST",
            json!({"video": {"mediaUrls": ["https://cdn.example.com/v.mp4"]}, "landingPageUrl": "https://example.com"}),
        ),
        ("AUDIO", "VASTURL") => (
            "AUDIO",
            json!({"audio": {"vastUrl": "https://ads.example.com/vast.xml"}}),
        ),
        ("AUDIO", "VASTXML") => ("AUDIO", json!({"audio": {"vastXml": "<VAST/>"}})),
        ("AUDIO", "HOSTED") => (
            "AUDIO",
            json!({"audio": {"mediaUrls": ["https://cdn.example.com/a.mp3"]}, "landingPageUrl": "https://example.com"}),
        ),
        ("NATIVE", "IMAGE") => (
            "NATIVE",
            json!({"native": {
                "headline": "Buy now",
                "caption": "Fresh stock",
                "sponsoredBy": "Acme",
                "imageUrl": "https://cdn.example.com/i.png",
                "imageIcon": "https://cdn.example.com/icon.png"
            }, "landingPageUrl": "https://example.com"}),
        ),
        ("NATIVE", "VASTURL") => (
            "NATIVE",
            json!({"native": {"vastUrl": "https://ads.example.com/vast.xml"}, "landingPageUrl": "https://example.com"}),
        ),
        ("NATIVE", "VASTXML") => (
            "NATIVE",
            json!({"native": {"vastXml": "<VAST/>"}, "landingPageUrl": "https://example.com"}),
        ),
        ("NATIVE", "HOSTED") => (
            "NATIVE",
            json!({"native": {"mediaUrls": ["https://cdn.example.com/n.mp4"]}, "landingPageUrl": "https://example.com"}),
        ),
        ("DOOH", "IMAGE") => (
            "BANNER",
            json!({"dooh": {"imageUrl": "https://cdn.example.com/d.png"}}),
        ),
        ("DOOH", "VIDEO") => (
            "VAST",
            json!({"dooh": {"mediaUrls": ["https://cdn.example.com/d.mp4"]}}),
        ),
        other => panic!("no fixture for {other:?}"),
    };
    v["type"] = json!({ "mediaType": media });
    for (k, x) in extra.as_object().expect("object").clone() {
        v[k] = x;
    }
    v
}

fn names(cell: &validate::MatrixCell) -> (String, String) {
    let t = serde_json::to_value(&cell.creative_type).expect("serializes");
    let s = serde_json::to_value(&cell.creative_subtype).expect("serializes");
    (
        t.as_str().expect("string").to_owned(),
        s.as_str().expect("string").to_owned(),
    )
}

fn check(v: Value) -> Result<(), flightdeck_model::ValidationErrors> {
    creative(&from_json::<Creative>(v))
}

/// Sets or removes (`None`) the member at a dotted wire path.
fn set(v: &mut Value, path: &str, x: Option<Value>) {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().expect("non-empty path");
    let mut cur = v;
    for p in parts {
        cur = cur
            .as_object_mut()
            .expect("object")
            .entry(p)
            .or_insert_with(|| json!({}));
    }
    let obj = cur.as_object_mut().expect("object");
    match x {
        Some(x) => {
            obj.insert(last.to_owned(), x);
        }
        None => {
            obj.remove(last);
        }
    }
}

// ---- the matrix ----

/// A matrix cell as a comparable tuple.
type Row = (
    T,
    S,
    &'static [&'static str],
    &'static [&'static str],
    &'static [M],
);

#[test]
fn matrix_has_the_spec_cells_in_order() {
    let got: Vec<Row> = creative_matrix()
        .iter()
        .map(|c| {
            (
                c.creative_type.clone(),
                c.creative_subtype.clone(),
                c.required,
                c.optional,
                c.media_types,
            )
        })
        .collect();
    let banner: &[M] = &[M::BANNER, M::MRAID];
    let video: &[M] = &[M::VAST, M::VPAID, M::VAST_WITH_VPAID];
    let none: &[&str] = &[];
    // `size` is settable on every cell: required for BANNER TAG, optional elsewhere.
    let size: &[&str] = &["size"];
    let want: Vec<Row> = vec![
        (T::BANNER, S::TAG, &["size", "htmlAsset"], none, banner),
        (
            T::BANNER,
            S::HOSTED,
            &["imageUrl", "landingPageUrl"],
            size,
            banner,
        ),
        (T::VIDEO, S::VASTURL, &["video.vastUrl"], size, video),
        (T::VIDEO, S::VASTXML, &["video.vastXml"], size, video),
        (
            T::VIDEO,
            S::HOSTED,
            &["video.mediaUrls", "landingPageUrl"],
            size,
            video,
        ),
        (T::AUDIO, S::VASTURL, &["audio.vastUrl"], size, &[M::AUDIO]),
        (T::AUDIO, S::VASTXML, &["audio.vastXml"], size, &[M::AUDIO]),
        (
            T::AUDIO,
            S::HOSTED,
            &["audio.mediaUrls", "landingPageUrl"],
            &["size", "audio.daast"],
            &[M::AUDIO],
        ),
        (
            T::NATIVE,
            S::IMAGE,
            &[
                "native.headline",
                "native.caption",
                "native.sponsoredBy",
                "native.imageUrl",
                "native.imageIcon",
                "landingPageUrl",
            ],
            size,
            &[M::NATIVE],
        ),
        (
            T::NATIVE,
            S::VASTURL,
            &["native.vastUrl", "landingPageUrl"],
            size,
            &[M::NATIVE],
        ),
        (
            T::NATIVE,
            S::VASTXML,
            &["native.vastXml", "landingPageUrl"],
            size,
            &[M::NATIVE],
        ),
        (
            T::NATIVE,
            S::HOSTED,
            &["native.mediaUrls", "landingPageUrl"],
            size,
            &[M::NATIVE],
        ),
        (T::DOOH, S::IMAGE, &["dooh.imageUrl"], size, &[M::BANNER]),
        (T::DOOH, S::VIDEO, &["dooh.mediaUrls"], size, &[M::VAST]),
    ];
    assert_eq!(got, want);
}

#[test]
fn matrix_cell_finds_exactly_the_fourteen_pairs() {
    let types = [T::BANNER, T::NATIVE, T::AUDIO, T::VIDEO, T::DOOH];
    let subtypes = [
        S::TAG,
        S::HOSTED,
        S::VASTURL,
        S::VASTXML,
        S::IMAGE,
        S::VIDEO,
    ];
    let mut found = 0;
    for t in types {
        for s in &subtypes {
            if let Some(c) = matrix_cell(&t, s) {
                assert_eq!((&c.creative_type, &c.creative_subtype), (&t, s));
                found += 1;
            }
        }
    }
    assert_eq!(found, 14);
    assert!(matrix_cell(&T::BANNER, &S::VASTURL).is_none());
    assert!(matrix_cell(&T::DOOH, &S::HOSTED).is_none());
    assert!(matrix_cell(&T::VIDEO, &S::IMAGE).is_none());
}

#[test]
fn every_cell_accepts_its_valid_fixture_with_every_media_type() {
    for cell in creative_matrix() {
        let (t, s) = names(cell);
        for m in cell.media_types {
            let mut v = valid(&t, &s);
            v["type"]["mediaType"] = serde_json::to_value(m).expect("serializes");
            assert_ok(check(v));
        }
    }
}

#[test]
fn every_required_path_of_every_cell_is_reported_when_missing_or_blank() {
    for cell in creative_matrix() {
        let (t, s) = names(cell);
        for path in cell.required {
            let mut v = valid(&t, &s);
            set(&mut v, path, None);
            assert_one(check(v.clone()), path, REQUIRED);

            // Null counts as missing too.
            set(&mut v, path, Some(Value::Null));
            assert_one(check(v.clone()), path, REQUIRED);

            // Blank text, or an empty list, is as good as missing.
            let blank = if path.ends_with("mediaUrls") {
                json!([])
            } else if *path == "size" {
                continue;
            } else {
                json!("  ")
            };
            set(&mut v, path, Some(blank));
            assert_one(check(v), path, REQUIRED);
        }
    }
}

#[test]
fn all_missing_required_paths_are_reported_together() {
    let v = json!({
        "name": "n", "creativeType": "NATIVE", "creativeSubtype": "IMAGE",
        "type": {"mediaType": "NATIVE"}, "campaignId": 7,
    });
    assert_exactly(
        check(v),
        &[
            ("landingPageUrl", REQUIRED),
            ("native.headline", REQUIRED),
            ("native.caption", REQUIRED),
            ("native.sponsoredBy", REQUIRED),
            ("native.imageUrl", REQUIRED),
            ("native.imageIcon", REQUIRED),
        ],
    );
}

#[test]
fn optional_daast_is_accepted_but_not_required() {
    let mut v = valid("AUDIO", "HOSTED");
    v["audio"]["daast"] = json!({"anything": [1, 2]});
    assert_ok(check(v));
}

#[test]
fn blank_media_url_elements_are_reported_by_index() {
    let mut v = valid("VIDEO", "HOSTED");
    v["video"]["mediaUrls"] = json!(["https://a.example.com/1.mp4", " ", ""]);
    assert_exactly(
        check(v),
        &[
            ("video.mediaUrls[1]", REQUIRED),
            ("video.mediaUrls[2]", REQUIRED),
        ],
    );
}

#[test]
fn html_asset_may_come_from_display() {
    let mut v = valid("BANNER", "TAG");
    set(&mut v, "htmlAsset", None);
    v["display"] = json!({"htmlAsset": "<div></div>"});
    assert_ok(check(v.clone()));

    v["display"]["htmlAsset"] = json!(" ");
    assert_one(check(v.clone()), "htmlAsset", REQUIRED);

    v["htmlAsset"] = json!("<b>tag</b>");
    assert_ok(check(v));
}

// ---- common fields ----

#[test]
fn name_is_required_and_limited_to_400_characters() {
    let mut v = valid("BANNER", "HOSTED");
    set(&mut v, "name", None);
    assert_one(check(v.clone()), "name", REQUIRED);
    v["name"] = json!("   ");
    assert_one(check(v.clone()), "name", REQUIRED);

    // Characters, not bytes: 400 two-byte characters are fine.
    v["name"] = json!("é".repeat(400));
    assert_ok(check(v.clone()));
    v["name"] = json!("a".repeat(401));
    let msg = assert_one(check(v), "name", OUT_OF_RANGE);
    assert_eq!(msg, "must be at most 400 characters (got 401)");
}

#[test]
fn type_and_subtype_are_required() {
    let mut v = valid("BANNER", "HOSTED");
    set(&mut v, "creativeType", None);
    assert_one(check(v.clone()), "creativeType", REQUIRED);
    let mut v = valid("BANNER", "HOSTED");
    set(&mut v, "creativeSubtype", None);
    assert_one(check(v), "creativeSubtype", REQUIRED);
}

#[test]
fn a_pair_outside_the_matrix_names_the_allowed_subtypes() {
    let mut v = valid("BANNER", "HOSTED");
    v["creativeSubtype"] = json!("VASTURL");
    let msg = assert_one(check(v), "creativeSubtype", INVALID);
    assert!(msg.contains("TAG or HOSTED"), "{msg}");

    let mut v = valid("DOOH", "IMAGE");
    v["creativeSubtype"] = json!("HOSTED");
    let msg = assert_one(check(v), "creativeSubtype", INVALID);
    assert!(msg.contains("IMAGE or VIDEO"), "{msg}");
}

#[test]
fn type_object_and_media_type_are_required() {
    let mut v = valid("VIDEO", "VASTURL");
    set(&mut v, "type", None);
    assert_one(check(v.clone()), "type", REQUIRED);
    v["type"] = json!({"vendorId": 3});
    assert_one(check(v), "type.mediaType", REQUIRED);
}

#[test]
fn media_type_must_belong_to_the_cell() {
    let mut v = valid("BANNER", "TAG");
    v["type"]["mediaType"] = json!("VAST");
    let msg = assert_one(check(v), "type.mediaType", INVALID);
    assert!(msg.contains("BANNER or MRAID"), "{msg}");

    let mut v = valid("DOOH", "VIDEO");
    v["type"]["mediaType"] = json!("BANNER");
    let msg = assert_one(check(v), "type.mediaType", INVALID);
    assert!(msg.contains("VAST"), "{msg}");

    let mut v = valid("AUDIO", "VASTXML");
    v["type"]["mediaType"] = json!("VAST");
    assert_one(check(v), "type.mediaType", INVALID);
}

#[test]
fn media_type_is_checked_against_the_type_when_the_subtype_is_unknown() {
    let mut v = valid("DOOH", "IMAGE");
    set(&mut v, "creativeSubtype", None);
    v["type"]["mediaType"] = json!("AUDIO");
    assert_exactly(
        check(v.clone()),
        &[("creativeSubtype", REQUIRED), ("type.mediaType", INVALID)],
    );
    v["type"]["mediaType"] = json!("VAST");
    assert_one(check(v), "creativeSubtype", REQUIRED);
}

#[test]
fn advertiser_or_campaign_is_required() {
    let mut v = valid("BANNER", "HOSTED");
    set(&mut v, "advertiserId", None);
    let msg = assert_one(check(v.clone()), "advertiserId", REQUIRED);
    assert_eq!(msg, "advertiserId or campaignId is required");
    v["campaignId"] = json!(9);
    assert_ok(check(v.clone()));
    v["advertiserId"] = json!(1);
    assert_ok(check(v));
}

#[test]
fn size_members_are_required_and_bounded() {
    let mut v = valid("BANNER", "TAG");
    set(&mut v, "size", None);
    assert_one(check(v.clone()), "size", REQUIRED);

    v["size"] = json!({});
    assert_exactly(
        check(v.clone()),
        &[("size.width", REQUIRED), ("size.height", REQUIRED)],
    );
    v["size"] = json!({"width": 1, "height": 10239});
    assert_ok(check(v.clone()));
    v["size"] = json!({"width": 0, "height": 10240});
    assert_exactly(
        check(v.clone()),
        &[("size.width", OUT_OF_RANGE), ("size.height", OUT_OF_RANGE)],
    );

    // Optional elsewhere, but checked when sent.
    let mut v = valid("VIDEO", "VASTURL");
    v["size"] = json!({"width": -5, "height": 480});
    assert_one(check(v), "size.width", OUT_OF_RANGE);
}

#[test]
fn external_creative_id_is_limited_to_26_characters() {
    let mut v = valid("BANNER", "HOSTED");
    v["externalCreativeid"] = json!("x".repeat(26));
    assert_ok(check(v.clone()));
    v["externalCreativeid"] = json!("x".repeat(27));
    let msg = assert_one(check(v), "externalCreativeid", OUT_OF_RANGE);
    assert!(msg.contains("26") && msg.contains("27"), "{msg}");
}

// ---- URLs ----

#[test]
fn http_url_shape() {
    for ok in [
        "http://a",
        "https://example.com",
        "HTTPS://EXAMPLE.COM/x y",
        "https://example.com:8080/p?q=1#f",
        "https://user@example.com",
        "http://127.0.0.1/",
    ] {
        assert!(is_http_url(ok), "{ok}");
    }
    for bad in [
        "",
        "example.com",
        "www.example.com/x",
        "ftp://example.com",
        "javascript:alert(1)",
        "https://",
        "https:///path",
        "https://?q",
        "https://exa mple.com",
        " https://example.com",
        "<script src=\"https://x.com\"></script>",
        "https:example.com",
    ] {
        assert!(!is_http_url(bad), "{bad}");
    }
}

#[test]
fn every_url_field_must_be_http_or_https() {
    let cases: &[(&str, &str, &str)] = &[
        ("BANNER", "HOSTED", "landingPageUrl"),
        ("BANNER", "HOSTED", "imageUrl"),
        ("BANNER", "HOSTED", "crawlableUrl"),
        ("BANNER", "HOSTED", "impressionTrackingPixel_1"),
        ("BANNER", "HOSTED", "impressionTrackingPixel_2"),
        ("BANNER", "HOSTED", "impressionTrackingPixel_3"),
        ("BANNER", "HOSTED", "impressionTrackingPixel_4"),
        ("VIDEO", "VASTURL", "video.vastUrl"),
        ("AUDIO", "VASTURL", "audio.vastUrl"),
        ("NATIVE", "VASTURL", "native.vastUrl"),
        ("NATIVE", "IMAGE", "native.imageUrl"),
        ("NATIVE", "IMAGE", "native.imageIcon"),
        ("DOOH", "IMAGE", "dooh.imageUrl"),
    ];
    for (t, s, path) in cases {
        let mut v = valid(t, s);
        set(&mut v, path, Some(json!("www.example.com/landing")));
        assert_one(check(v.clone()), path, INVALID);
        set(&mut v, path, Some(json!("https://example.com/landing")));
        assert_ok(check(v));
    }
}

#[test]
fn every_media_url_element_is_checked_by_index() {
    for (t, s, path) in [
        ("VIDEO", "HOSTED", "video.mediaUrls"),
        ("AUDIO", "HOSTED", "audio.mediaUrls"),
        ("NATIVE", "HOSTED", "native.mediaUrls"),
        ("DOOH", "VIDEO", "dooh.mediaUrls"),
    ] {
        let mut v = valid(t, s);
        set(
            &mut v,
            path,
            Some(json!([
                "https://a.example.com/1",
                "https://a.example.com/2",
                "cdn/3.mp4"
            ])),
        );
        assert_one(check(v), &format!("{path}[2]"), INVALID);
    }
}

#[test]
fn optional_url_fields_outside_the_cell_are_still_checked() {
    // mediaUrls on a VASTURL video are not required, but must still be URLs.
    let mut v = valid("VIDEO", "VASTURL");
    v["video"]["mediaUrls"] = json!(["", "notaurl"]);
    assert_exactly(
        check(v),
        &[
            ("video.mediaUrls[0]", INVALID),
            ("video.mediaUrls[1]", INVALID),
        ],
    );
    // An optional URL sent blank is not a URL.
    let mut v = valid("VIDEO", "VASTURL");
    v["crawlableUrl"] = json!("");
    assert_one(check(v), "crawlableUrl", INVALID);
}

#[test]
fn a_blank_required_url_is_reported_once_as_required() {
    let mut v = valid("BANNER", "HOSTED");
    v["landingPageUrl"] = json!("");
    assert_one(check(v), "landingPageUrl", REQUIRED);
}

// ---- payloads of other types ----

#[test]
fn payloads_of_other_types_are_not_applicable() {
    let mut v = valid("BANNER", "TAG");
    v["video"] = json!({"vastUrl": "https://example.com/vast.xml"});
    let msg = assert_one(check(v), "video", NOT_APPLICABLE);
    assert!(msg.contains("VIDEO"), "{msg}");

    let mut v = valid("DOOH", "IMAGE");
    v["native"] = json!({"headline": "h"});
    v["audio"] = json!({});
    assert_exactly(
        check(v),
        &[("native", NOT_APPLICABLE), ("audio", NOT_APPLICABLE)],
    );

    let mut v = valid("NATIVE", "VASTXML");
    v["dooh"] = json!({});
    assert_one(check(v), "dooh", NOT_APPLICABLE);
}

#[test]
fn urls_inside_a_not_applicable_payload_are_not_reported_again() {
    let mut v = valid("AUDIO", "VASTXML");
    v["video"] = json!({"vastUrl": "not a url", "mediaUrls": ["nope"]});
    assert_one(check(v), "video", NOT_APPLICABLE);
}

// ---- many at once ----

#[test]
fn every_broken_rule_is_reported_at_once() {
    let v = json!({
        "name": "x".repeat(500),
        "creativeType": "BANNER",
        "creativeSubtype": "TAG",
        "type": {"mediaType": "AUDIO"},
        "size": {"width": 0},
        "externalCreativeid": "y".repeat(30),
        "landingPageUrl": "example.com",
        "impressionTrackingPixel_3": "pixel",
        "native": {"headline": "h"},
    });
    let r = check(v);
    assert_exactly(
        r.clone(),
        &[
            ("name", OUT_OF_RANGE),
            ("type.mediaType", INVALID),
            ("advertiserId", REQUIRED),
            ("htmlAsset", REQUIRED),
            ("size.width", OUT_OF_RANGE),
            ("size.height", REQUIRED),
            ("externalCreativeid", OUT_OF_RANGE),
            ("native", NOT_APPLICABLE),
            ("landingPageUrl", INVALID),
            ("impressionTrackingPixel_3", INVALID),
        ],
    );
    let display = r.expect_err("invalid").to_string();
    assert!(display.contains("advertiserId: advertiserId or campaignId is required"));
    assert!(errors(check(json!({}))).len() >= 5);
}

#[test]
fn an_empty_body_reports_the_common_required_fields() {
    assert_exactly(
        check(json!({})),
        &[
            ("name", REQUIRED),
            ("creativeType", REQUIRED),
            ("creativeSubtype", REQUIRED),
            ("type", REQUIRED),
            ("advertiserId", REQUIRED),
        ],
    );
    let r = check(json!({"name": "n"}));
    assert_has(&r, "type", REQUIRED);
}
