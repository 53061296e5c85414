//! The creative's own fields: sizes, https URLs, duplicate pixels and VAST URLs, and
//! the shape a finding travels in.

mod common;

use common::{at, creative, no_errors, of, one};
use flightdeck_workbench::macros::{MacroToken, scan_macros};
use flightdeck_workbench::{Level, check_creative, check_many};
use serde_json::json;

#[test]
fn a_non_standard_size_is_an_info_and_standard_ones_are_silent() {
    let odd = check_creative(&creative(json!({
        "creativeType": "BANNER", "size": {"width": 301, "height": 250},
    })));
    let f = one(&odd, "size.non-standard");
    at(f, Level::Info, "size", None);
    assert!(f.message.contains("301×250"), "{}", f.message);

    for (w, h, t) in [
        (300, 250, "BANNER"),
        (728, 90, "BANNER"),
        (1920, 1080, "DOOH"),
        (1080, 1920, "DOOH"),
    ] {
        let c = creative(json!({"creativeType": t, "size": {"width": w, "height": h}}));
        assert!(
            of(&check_creative(&c), "size.non-standard").is_empty(),
            "{w}×{h}"
        );
    }
}

#[test]
fn a_size_the_model_refuses_is_left_to_its_error() {
    let c = creative(json!({"creativeType": "BANNER", "size": {"width": 0, "height": 250}}));
    assert!(check_creative(&c).is_empty());
}

#[test]
fn http_landing_pages_images_media_and_pixels_are_warned_at_their_paths() {
    let c = creative(json!({
        "creativeType": "NATIVE", "creativeSubtype": "IMAGE",
        "landingPageUrl": "http://shop.example.com/",
        "imageUrl": "https://cdn.example.com/ok.png",
        "native": {
            "imageUrl": "HTTP://cdn.example.com/a.png",
            "imageIcon": "http://cdn.example.com/icon.png",
            "mediaUrls": ["https://cdn.example.com/a.mp4", "http://cdn.example.com/b.mp4"],
        },
        "impressionTrackingPixel_3": "http://track.example.com/p",
    }));
    let findings = check_creative(&c);
    no_errors(&findings);
    let paths: Vec<_> = of(&findings, "url.http")
        .iter()
        .map(|f| (f.path.as_str(), f.level))
        .collect();
    assert_eq!(
        paths,
        [
            ("landingPageUrl", Level::Warning),
            ("native.imageUrl", Level::Warning),
            ("native.imageIcon", Level::Warning),
            ("impressionTrackingPixel_3", Level::Warning),
            ("native.mediaUrls[1]", Level::Warning),
        ]
    );
}

#[test]
fn video_and_dooh_media_urls_are_checked_too() {
    let c = creative(json!({
        "video": {"mediaUrls": ["http://cdn.example.com/v.mp4"]},
        "dooh": {"imageUrl": "http://cdn.example.com/d.jpg", "mediaUrls": ["http://cdn.example.com/d.mp4"]},
    }));
    let paths: Vec<_> = of(&check_creative(&c), "url.http")
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(
        paths,
        ["dooh.imageUrl", "video.mediaUrls[0]", "dooh.mediaUrls[0]"]
    );
}

#[test]
fn a_pixel_listed_twice_is_flagged_at_the_second() {
    let c = creative(json!({
        "impressionTrackingPixel_1": "https://track.example.com/p?c=1",
        "impressionTrackingPixel_2": "https://track.example.com/other",
        "impressionTrackingPixel_4": " https://track.example.com/p?c=1 ",
    }));
    let findings = check_creative(&c);
    let f = one(&findings, "pixel.duplicate");
    at(f, Level::Warning, "impressionTrackingPixel_4", None);
    assert!(
        f.message.contains("impressionTrackingPixel_1"),
        "{}",
        f.message
    );

    let distinct = creative(json!({
        "impressionTrackingPixel_1": "https://track.example.com/a",
        "impressionTrackingPixel_2": "https://track.example.com/b",
    }));
    assert!(check_creative(&distinct).is_empty());
}

#[test]
fn an_http_vast_url_is_warned() {
    let c =
        creative(json!({"video": {"vastUrl": "http://ads.example.com/vast?cb=[CACHEBUSTING]"}}));
    let findings = check_creative(&c);
    at(
        one(&findings, "vast-url.http"),
        Level::Warning,
        "video.vastUrl",
        None,
    );
    assert!(of(&findings, "vast-url.macro-unknown").is_empty());
}

#[test]
fn known_macros_of_every_form_pass() {
    let url = "https://ads.example.com/vast?cb=[CACHEBUSTING]&ts=[timestamp]&gdpr=${GDPR}\
               &c=${GDPR_CONSENT_755}&cb2=%%CACHEBUSTER%%&k=%%PATTERN:section%%&arr[]=1";
    let c = creative(json!({"audio": {"vastUrl": url}}));
    assert!(check_creative(&c).is_empty(), "{:#?}", check_creative(&c));
}

#[test]
fn unbalanced_macros_are_warnings_and_unknown_ones_infos() {
    let c = creative(json!({"native": {
        "vastUrl": "https://ads.example.com/vast?cb=[CACHEBUSTING&x=${US_PRIVACY&y=[MY_MACRO]"
    }}));
    let findings = check_creative(&c);
    let unbalanced = of(&findings, "vast-url.macro-unbalanced");
    assert_eq!(unbalanced.len(), 2, "{findings:#?}");
    at(unbalanced[0], Level::Warning, "native.vastUrl", None);
    assert!(
        unbalanced[0].message.contains("character 33"),
        "{}",
        unbalanced[0].message
    );
    assert!(
        unbalanced[1].message.contains("${"),
        "{}",
        unbalanced[1].message
    );

    let c =
        creative(json!({"video": {"vastUrl": "https://a.example/v?x=[MY_MACRO]&y=%%SECRET%%"}}));
    let findings = check_creative(&c);
    let unknown = of(&findings, "vast-url.macro-unknown");
    assert_eq!(unknown.len(), 2, "{findings:#?}");
    at(unknown[0], Level::Info, "video.vastUrl", None);
    assert!(
        unknown[0].message.contains("[MY_MACRO]"),
        "{}",
        unknown[0].message
    );
    assert!(
        unknown[1].message.contains("%%SECRET%%"),
        "{}",
        unknown[1].message
    );
}

#[test]
fn macros_are_scanned_left_to_right_with_their_offsets() {
    assert_eq!(
        scan_macros("a[B]c${D}e%%F%%]"),
        [
            MacroToken::Macro {
                open: "[",
                name: "B",
                at: 1
            },
            MacroToken::Macro {
                open: "${",
                name: "D",
                at: 5
            },
            MacroToken::Macro {
                open: "%%",
                name: "F",
                at: 10
            },
            MacroToken::Unbalanced {
                bracket: "]",
                at: 15
            },
        ]
    );
}

#[test]
fn check_many_answers_one_list_per_creative_in_order() {
    let list = [
        creative(json!({"landingPageUrl": "http://a.example/"})),
        creative(json!({"landingPageUrl": "https://a.example/"})),
    ];
    let out = check_many(&list);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].len(), 1);
    assert!(out[1].is_empty());
}

#[test]
fn a_finding_travels_as_camel_case_json() {
    let c = creative(json!({"landingPageUrl": "http://a.example/"}));
    let f = &check_creative(&c)[0];
    let v = serde_json::to_value(f).expect("serializes");
    assert_eq!(v["rule"], "url.http");
    assert_eq!(v["level"], "warning");
    assert_eq!(v["path"], "landingPageUrl");
    assert_eq!(v["line"], serde_json::Value::Null);
    let back: flightdeck_workbench::Finding = serde_json::from_value(v).expect("decodes");
    assert_eq!(&back, f);
}
