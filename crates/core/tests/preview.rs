//! Previews: what a tag would load, the offline document, and live documents served once.

use flightdeck_core::preview::{
    self, LIVE_CSP, LiveDocs, PreviewContent, PreviewSize, Transport, external_resources,
};
use flightdeck_model::Creative;
use proptest::prelude::*;

fn creative(json: &str) -> Creative {
    serde_json::from_str(json).expect("a creative")
}

#[test]
fn a_tags_resources_are_listed_with_element_transport_and_line() {
    let tag = r#"<div>
<script src="http://ads.example.com/tag.js"></script>
<img src="https://cdn.example.com/a.png" srcset="//cdn.example.com/a2.png 2x, b.png 3x">
<link rel="stylesheet" href="https://cdn.example.com/s.css"><link rel="canonical" href="http://x.example.com/">
<a href="http://landing.example.com/">click</a>
<script>document.write('<img src="http://inside.example.com/px.gif">')</script>
<iframe src="https://frame.example.com/"></iframe><video poster="data:image/png;base64,AA"></video>
</div>"#;
    let found: Vec<(String, String, Transport, u32)> = external_resources(tag)
        .into_iter()
        .map(|r| (r.url, r.element, r.transport, r.line))
        .collect();
    let want = vec![
        (
            "http://ads.example.com/tag.js",
            "script",
            Transport::Http,
            2,
        ),
        ("https://cdn.example.com/a.png", "img", Transport::Https, 3),
        (
            "//cdn.example.com/a2.png",
            "img",
            Transport::SchemeRelative,
            3,
        ),
        ("b.png", "img", Transport::Relative, 3),
        ("https://cdn.example.com/s.css", "link", Transport::Https, 4),
        ("https://frame.example.com/", "iframe", Transport::Https, 7),
        ("data:image/png;base64,AA", "video", Transport::Data, 7),
    ];
    let want: Vec<(String, String, Transport, u32)> = want
        .into_iter()
        .map(|(u, e, t, l)| (u.to_string(), e.to_string(), t, l))
        .collect();
    assert_eq!(found, want);
}

#[test]
fn odd_markup_never_panics() {
    for tag in [
        "",
        "<",
        "<script",
        "<script src=",
        "<img src='http://a'",
        "<plaintext><img src=http://x>",
        "\u{0}<\u{0}img src=\u{0}>",
        "<svg><image xlink:href=\"http://a.example/x.png\"/></svg>",
        "<!-- <img src=http://c> --><textarea><img src=http://d></textarea>",
    ] {
        let _ = external_resources(tag);
    }
    let svg = external_resources("<svg><image xlink:href=\"http://a.example/x.png\"/></svg>");
    assert_eq!(svg.len(), 1, "{svg:?}");
    assert!(external_resources("<textarea><img src=http://d></textarea>").is_empty());
}

#[test]
fn a_tag_previews_offline_under_a_policy_that_loads_nothing() {
    let c = creative(
        r#"{"creativeType":"BANNER","creativeSubtype":"TAG","size":{"width":728,"height":90},
            "htmlAsset":"<script src=\"http://ads.example.com/t.js\"></script><b>Ad</b>"}"#,
    );
    let p = preview::preview(&c);
    let want = PreviewSize {
        width: 728,
        height: 90,
    };
    assert_eq!((p.declared, p.frame, p.live), (Some(want), want, true));
    let PreviewContent::Html { document } = &p.content else {
        panic!("not an HTML preview: {:?}", p.content)
    };
    assert!(document.starts_with(
        "<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
    ));
    assert!(document.ends_with("<b>Ad</b>"));
    assert_eq!(p.resources[0].transport, Transport::Http);
}

#[test]
fn other_creatives_preview_by_their_fields() {
    let dooh = preview::preview(&creative(
        r#"{"creativeType":"DOOH","dooh":{"imageUrl":"https://cdn.example.com/s.jpg"}}"#,
    ));
    assert_eq!(
        (dooh.frame.width, dooh.frame.height, dooh.declared),
        (1920, 1080, None)
    );
    assert!(matches!(
        dooh.content,
        PreviewContent::Image { inline: false, .. }
    ));
    let inline = preview::preview(&creative(r#"{"imageUrl":"data:image/png;base64,AA"}"#));
    assert!(matches!(
        inline.content,
        PreviewContent::Image { inline: true, .. }
    ));
    let native = preview::preview(&creative(
        r#"{"native":{"headline":"H","caption":"C","sponsoredBy":"S","imageUrl":"https://i.example/x.png"}}"#,
    ));
    assert!(
        matches!(&native.content, PreviewContent::Native { headline: Some(h), .. } if h == "H")
    );
    assert_eq!(native.resources.len(), 1);
    let empty = preview::preview(&creative(r#"{"name":"nothing"}"#));
    assert!(!empty.live);
    assert!(
        LiveDocs::new()
            .issue(&creative(r#"{"name":"nothing"}"#))
            .is_err()
    );
}

#[test]
fn a_live_document_is_served_once_under_its_own_policy() {
    let docs = LiveDocs::new();
    let c = creative(r#"{"htmlAsset":"<p id=x>live</p>"}"#);
    let token = docs.issue(&c).expect("a token");
    assert_eq!(
        LiveDocs::url(&token, false),
        format!("fdpreview://localhost/{token}")
    );
    assert_eq!(
        LiveDocs::url(&token, true),
        format!("http://fdpreview.localhost/{token}")
    );
    let first = docs.serve(&format!("/{token}"));
    assert_eq!(first.status, 200);
    assert!(first.body.contains("<p id=x>live</p>"));
    assert_eq!(first.csp, LIVE_CSP);
    let again = docs.serve(&format!("/{token}"));
    assert_eq!((again.status, again.body.as_str()), (404, ""));
    assert_eq!(docs.serve("/made-up").status, 404);
    // The policy: no IPC, no http (the embedded sandbox's loopback), nothing else frames it.
    let connect = LIVE_CSP
        .split(';')
        .find(|d| d.trim().starts_with("connect-src"))
        .expect("a connect-src");
    assert_eq!(connect.trim(), "connect-src https:");
    // Only the app (`frame-ancestors`) is named by an http origin.
    for directive in LIVE_CSP
        .split(';')
        .filter(|d| !d.trim().starts_with("frame-ancestors"))
    {
        for banned in [
            "ipc",
            "http:",
            "127.0.0.1",
            "localhost",
            "allow-same-origin",
            "allow-popups",
        ] {
            assert!(!directive.contains(banned), "{banned} in {directive}");
        }
    }
    assert!(LIVE_CSP.contains("sandbox allow-scripts"));
}

#[test]
fn only_the_newest_live_documents_wait() {
    let docs = LiveDocs::new();
    let c = creative(r#"{"imageUrl":"https://i.example/x.png"}"#);
    let first = docs.issue(&c).expect("a token");
    for _ in 0..LiveDocs::KEEP {
        docs.issue(&c).expect("a token");
    }
    assert_eq!(docs.serve(&first).status, 404);
}

/// Markup-ish text: tags, attributes, quotes, comments and raw-text elements mixed.
fn markup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<script src=".to_string()),
        Just("<img srcset=\"a 1x, ,b".to_string()),
        Just("<link rel=stylesheet href=".to_string()),
        Just("</script>".to_string()),
        Just("<!--".to_string()),
        Just("<svg><image xlink:href=".to_string()),
        Just("<plaintext>".to_string()),
        Just("<textarea>".to_string()),
        Just("http://a.example/x".to_string()),
        Just("\"'>=&#x0;\u{0}".to_string()),
        ".{0,12}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn any_markup_is_read_without_a_panic(tag in markup()) {
        for r in external_resources(&tag) {
            prop_assert!(!r.url.is_empty());
        }
    }

    #[test]
    fn any_creative_previews_without_a_panic(
        tag in markup(),
        url in ".{0,40}",
        width in any::<i64>(),
        height in any::<i64>(),
        which in 0u8..5,
    ) {
        let value = match which {
            0 => serde_json::json!({"htmlAsset": tag, "size": {"width": width, "height": height}}),
            1 => serde_json::json!({"display": {"htmlAsset": tag}}),
            2 => serde_json::json!({"imageUrl": url, "size": {"width": width, "height": height}}),
            3 => serde_json::json!({"native": {"headline": tag, "imageUrl": url, "imageIcon": url}}),
            _ => serde_json::json!({"dooh": {"mediaUrls": [url]}}),
        };
        let c: Creative = serde_json::from_value(value).expect("a creative");
        let p = preview::preview(&c);
        prop_assert!(p.frame.width > 0 && p.frame.height > 0);
        let docs = LiveDocs::new();
        if let Ok(token) = docs.issue(&c) {
            prop_assert_eq!(docs.serve(&token).status, 200);
        }
    }
}
