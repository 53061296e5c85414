//! Previews: what a tag would load, the offline document, and live documents served once.

use flightdeck_core::preview::{
    self, LIVE_CSP, LiveDocs, MEDIA_CSP, PreviewContent, PreviewSize, Transport, external_resources,
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
        which in 0u8..6,
    ) {
        let value = match which {
            0 => serde_json::json!({"htmlAsset": tag, "size": {"width": width, "height": height}}),
            1 => serde_json::json!({"display": {"htmlAsset": tag}}),
            2 => serde_json::json!({"imageUrl": url, "size": {"width": width, "height": height}}),
            3 => serde_json::json!({"native": {"headline": tag, "imageUrl": url, "imageIcon": url}}),
            4 => serde_json::json!({"video": {"vastXml": tag, "vastUrl": url}}),
            _ => serde_json::json!({"dooh": {"mediaUrls": [url]}}),
        };
        let c: Creative = serde_json::from_value(value).expect("a creative");
        let p = preview::preview(&c);
        prop_assert!(p.frame.width > 0 && p.frame.height > 0);
        let docs = LiveDocs::new();
        if let Ok(token) = docs.issue(&c) {
            prop_assert_eq!(docs.serve(&token).status, 200);
        }
        if let Ok(token) = docs.issue_media(&c, &url) {
            prop_assert_eq!(docs.serve(&token).csp, MEDIA_CSP);
        }
    }
}

/// A VAST 4.2 InLine ad: one linear creative with an https and an http media file, and
/// trackers of every kind.
const VAST: &str = r#"<VAST version="4.2">
<Ad id="a1"><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle>
<Impression><![CDATA[https://t.example/imp]]></Impression>
<Error><![CDATA[https://t.example/err]]></Error>
<Creatives><Creative id="c1"><Linear skipoffset="00:00:05"><Duration>00:00:15</Duration>
<TrackingEvents><Tracking event="start"><![CDATA[https://t.example/start]]></Tracking></TrackingEvents>
<VideoClicks><ClickThrough><![CDATA[https://landing.example/]]></ClickThrough>
<ClickTracking><![CDATA[https://t.example/click]]></ClickTracking></VideoClicks>
<MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360" bitrate="800"><![CDATA[https://cdn.example/v.mp4]]></MediaFile>
<MediaFile delivery="progressive" type="video/webm" width="1280" height="720"><![CDATA[http://cdn.example/v.webm]]></MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;

fn vast_creative(field: &str) -> Creative {
    creative(&serde_json::json!({"creativeType": "VIDEO", field: {"vastXml": VAST}}).to_string())
}

#[test]
fn a_vast_creative_previews_as_the_inspectors_tree() {
    let p = preview::preview(&vast_creative("video"));
    let PreviewContent::Vast {
        path,
        element,
        summary: Some(s),
        hint,
    } = &p.content
    else {
        panic!("not a VAST preview: {:?}", p.content)
    };
    assert_eq!(
        (path.as_str(), element.as_str(), hint),
        ("video.vastXml", "video", &None)
    );
    assert_eq!(s.version.as_deref(), Some("4.2"));
    let ad = &s.ads[0];
    assert_eq!(ad.impressions[0].url, "https://t.example/imp");
    assert_eq!(ad.errors[0].url, "https://t.example/err");
    let linear = ad.creatives[0].linear.as_ref().expect("a Linear");
    assert_eq!(linear.duration.as_deref(), Some("00:00:15"));
    assert_eq!(linear.tracking[0].event.as_deref(), Some("start"));
    assert_eq!(linear.click_tracking[0].url, "https://t.example/click");
    let files: Vec<(&str, bool)> = linear
        .media_files
        .iter()
        .map(|m| (m.url.as_str(), m.https))
        .collect();
    assert_eq!(
        files,
        [
            ("https://cdn.example/v.mp4", true),
            ("http://cdn.example/v.webm", false)
        ]
    );
    // What it would load live: the media files alone, never a tracker.
    let loads: Vec<(&str, Transport)> = p
        .resources
        .iter()
        .map(|r| (r.url.as_str(), r.transport))
        .collect();
    assert_eq!(
        loads,
        [
            ("https://cdn.example/v.mp4", Transport::Https),
            ("http://cdn.example/v.webm", Transport::Http)
        ]
    );
    assert!(p.live);
    // No size declared: the box is the first https media file's.
    assert_eq!(
        (p.declared, p.frame),
        (
            None,
            PreviewSize {
                width: 640,
                height: 360
            }
        )
    );

    // An audio creative plays in an <audio> element, in a bar.
    let audio = preview::preview(&vast_creative("audio"));
    assert!(
        matches!(&audio.content, PreviewContent::Vast { element, path, .. } if element == "audio" && path == "audio.vastXml")
    );
    assert_eq!(
        audio.frame,
        PreviewSize {
            width: 320,
            height: 54
        }
    );
}

#[test]
fn a_vast_url_without_xml_has_an_empty_tree_and_a_hint() {
    let p = preview::preview(&creative(
        r#"{"creativeType":"VIDEO","video":{"vastUrl":"https://ads.example/vast.xml"}}"#,
    ));
    let PreviewContent::Vast {
        path,
        summary,
        hint: Some(hint),
        ..
    } = &p.content
    else {
        panic!("not a VAST URL preview: {:?}", p.content)
    };
    assert_eq!((path.as_str(), summary), ("video.vastUrl", &None));
    assert!(hint.contains("Fetch and check"), "{hint}");
    assert!(p.resources.is_empty());
    assert!(!p.live);
}

#[test]
fn a_chosen_media_file_plays_alone_under_a_media_only_policy() {
    let docs = LiveDocs::new();
    let c = vast_creative("video");
    let token = docs
        .issue_media(&c, "https://cdn.example/v.mp4")
        .expect("a token");
    let served = docs.serve(&token);
    assert_eq!((served.status, served.csp), (200, MEDIA_CSP));
    // The policy: media from https, nothing else remote, no scripts.
    let directives: Vec<&str> = MEDIA_CSP.split(';').map(str::trim).collect();
    assert!(directives.contains(&"media-src https:"), "{MEDIA_CSP}");
    assert!(directives.contains(&"default-src 'none'"), "{MEDIA_CSP}");
    assert!(directives.contains(&"sandbox"), "{MEDIA_CSP}");
    for d in directives
        .iter()
        .filter(|d| !d.starts_with("media-src") && !d.starts_with("frame-ancestors"))
    {
        for remote in ["https:", "http:", "data:", "blob:", "*", "script-src"] {
            assert!(!d.contains(remote), "{remote} in {d}");
        }
    }
    // The document: one <video> of the chosen file, and no other element loads anything.
    let body = &served.body;
    assert_eq!(
        external_resources(body)
            .into_iter()
            .map(|r| (r.element, r.url))
            .collect::<Vec<_>>(),
        [("video".to_string(), "https://cdn.example/v.mp4".to_string())]
    );
    for absent in ["t.example", "<script", "<img", "landing.example", "v.webm"] {
        assert!(!body.contains(absent), "{absent} in {body}");
    }

    // "Render live" with nothing chosen plays the first https file, the same way.
    let first = docs.serve(&docs.issue(&c).expect("a token"));
    assert_eq!((first.csp, first.body.as_str()), (MEDIA_CSP, body.as_str()));
    // An audio creative gets an <audio> element.
    let audio = docs.serve(
        &docs
            .issue_media(&vast_creative("audio"), "https://cdn.example/v.mp4")
            .expect("a token"),
    );
    assert!(audio.body.contains("<audio controls"), "{}", audio.body);

    // http files, trackers and anything not in the document are refused.
    for url in [
        "http://cdn.example/v.webm",
        "https://t.example/imp",
        "https://elsewhere.example/x.mp4",
    ] {
        assert!(docs.issue_media(&c, url).is_err(), "{url} played");
    }
}
