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
