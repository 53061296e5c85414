//! Creative previews: a tag's resources listed offline, and "Render live" served once
//! on the preview scheme under a policy that keeps the tag off the IPC and the sandbox.

use super::*;

#[test]
fn a_tag_previews_offline_and_renders_live_once_under_its_own_policy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::starting(dir.path());
    let tag = "<script src=\"http://ads.example.com/tag.js\"></script><b>E2E</b>";
    let creative = json!({
        "name": "Tag", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "size": {"width": 300, "height": 250}, "htmlAsset": tag,
    });

    // Offline: the frame's document loads nothing; the list names the http:// script.
    let p = h.ok("preview_creative", json!({"creative": creative}));
    assert_eq!(p["frame"], json!({"width": 300, "height": 250}), "{p}");
    assert_eq!(p["content"]["kind"], "html", "{p}");
    assert_eq!(
        p["resources"],
        json!([{"url": "http://ads.example.com/tag.js", "element": "script",
                "attribute": "src", "transport": "http", "line": 1}])
    );

    // Live: a URL on the preview scheme, served once under the live policy.
    let url = h.ok("render_live", json!({"creative": creative}));
    let url = url.as_str().expect("a URL");
    assert!(url.starts_with("fdpreview://localhost/"), "{url}");
    let get = |url: &str| {
        let request = tauri::http::Request::builder()
            .uri(url)
            .body(Vec::new())
            .expect("a request");
        flightdeck_app::commands::preview::serve_live(h.app.handle(), &request)
    };
    let first = get(url);
    assert_eq!(first.status(), 200);
    let body = String::from_utf8(first.body().clone()).expect("UTF-8");
    assert!(body.contains(tag), "{body}");
    let csp = first.headers()["content-security-policy"]
        .to_str()
        .expect("a policy");
    assert!(csp.contains("connect-src https:;"), "{csp}");
    for banned in ["ipc", "127.0.0.1", "http://localhost", "allow-same-origin"] {
        assert!(!csp.contains(banned), "{banned} in {csp}");
    }
    assert!(csp.contains("sandbox allow-scripts"), "{csp}");
    // The token is spent: a reload, or another frame, gets nothing.
    let again = get(url);
    assert_eq!((again.status().as_u16(), again.body().len()), (404, 0));
    assert_eq!(get("fdpreview://localhost/0123456789abcdef").status(), 404);

    // Nothing to run: refused, nothing issued.
    let e = h.err("render_live", json!({"creative": {"name": "Empty"}}));
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .contains("nothing to render"),
        "{e}"
    );
    h.close();
}

#[test]
fn a_vast_creative_previews_as_a_tree_and_plays_only_its_https_media() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::starting(dir.path());
    let xml = r#"<VAST version="3.0"><Ad id="1"><InLine><AdSystem>S</AdSystem>
<Impression>https://t.example/imp</Impression><Creatives><Creative><Linear>
<Duration>00:00:30</Duration><TrackingEvents><Tracking event="complete">https://t.example/done</Tracking></TrackingEvents>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360">http://cdn.example/b.mp4</MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;
    let creative = json!({
        "name": "Spot", "creativeType": "VIDEO", "creativeSubtype": "VASTXML",
        "video": {"vastXml": xml},
    });

    // The tree: the Rust side read it; trackers come as text.
    let p = h.ok("preview_creative", json!({"creative": creative}));
    let content = &p["content"];
    assert_eq!(
        (&content["kind"], &content["path"], &content["element"]),
        (&json!("vast"), &json!("video.vastXml"), &json!("video")),
        "{p}"
    );
    let ad = &content["summary"]["ads"][0];
    assert_eq!(ad["kind"], "InLine", "{ad}");
    assert_eq!(ad["impressions"][0]["url"], "https://t.example/imp");
    let linear = &ad["creatives"][0]["linear"];
    assert_eq!(linear["tracking"][0]["url"], "https://t.example/done");
    assert_eq!(linear["mediaFiles"][1]["https"], false);
    assert_eq!(p["live"], true);

    // The chosen https file plays in a document of its own, under a media-only policy.
    let url = h.ok(
        "render_media",
        json!({"creative": creative, "url": "https://cdn.example/a.mp4"}),
    );
    let request = tauri::http::Request::builder()
        .uri(url.as_str().expect("a URL"))
        .body(Vec::new())
        .expect("a request");
    let served = flightdeck_app::commands::preview::serve_live(h.app.handle(), &request);
    assert_eq!(served.status(), 200);
    let body = String::from_utf8(served.body().clone()).expect("UTF-8");
    assert!(
        body.contains("<video controls preload=\"metadata\" src=\"https://cdn.example/a.mp4\">"),
        "{body}"
    );
    assert!(
        !body.contains("t.example") && !body.contains("<script"),
        "{body}"
    );
    let csp = served.headers()["content-security-policy"]
        .to_str()
        .expect("a policy");
    assert!(csp.contains("media-src https:;"), "{csp}");
    assert!(
        !csp.contains("script-src") && !csp.contains("img-src"),
        "{csp}"
    );

    // The http file, and a tracker, are not played.
    for url in ["http://cdn.example/b.mp4", "https://t.example/imp"] {
        let e = h.err("render_media", json!({"creative": creative, "url": url}));
        assert!(
            e["message"]
                .as_str()
                .unwrap_or("")
                .contains("https:// media"),
            "{e}"
        );
    }
    h.close();
}
