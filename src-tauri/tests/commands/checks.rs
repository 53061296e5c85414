//! Creative checks as the UI asks for them: a form's findings while it is edited, a
//! saved creative's with its VAST summary, the creatives table's `has:findings` filter,
//! "Check all creatives" on a table's "select all", the pending changes' Check, and
//! "Fetch and check" of a VAST URL.

use super::*;

const HTTP_TAG: &str = "<div>\n<a href=\"%%CLICK_URL_UNESC%%https://shop.example.com/\">Shop</a>\n\
                        <script src=\"http://ads.example.com/loader.js\"></script>\n</div>";

fn tag_creative(name: &str, html: &str) -> Value {
    json!({
        "name": name, "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "size": {"width": 300, "height": 250},
        "htmlAsset": html, "landingPageUrl": "https://shop.example.com/"
    })
}

#[test]
fn findings_show_in_the_form_the_table_a_selection_and_pending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::open(dir.path());
    let advertiser = h.ok(
        "save",
        json!({"target": null, "parent": null, "draft": {"kind": "advertiser", "value": {
            "name": "Acme", "agencyId": 1, "currency": "USD", "category": "IAB3"
        }}}),
    );
    let parent = advertiser["target"].clone();
    let draft = json!({"kind": "creative", "value": tag_creative("Http tag", HTTP_TAG)});

    // While the form is edited: the warning at its field, with the line in the tag.
    let live = h.ok("draft_checks", json!({ "draft": draft }));
    let http = live["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "tag.http-resource")
        .expect("the http:// script is found")
        .clone();
    assert_eq!(http["level"], "warning");
    assert_eq!(http["path"], "htmlAsset");
    assert_eq!(http["line"], 3);

    // Saved anyway (a warning never blocks), and the stored creative says the same.
    let saved = h.ok(
        "save",
        json!({"target": null, "parent": parent, "draft": draft}),
    );
    assert_eq!(saved["errors"], json!([]));
    let stored = h.ok("creative_checks", json!({"target": saved["target"]}));
    assert_eq!(stored, live);
    h.ok(
        "save",
        json!({"target": null, "parent": parent, "draft": {"kind": "creative", "value": {
            "name": "Clean banner", "creativeType": "BANNER", "creativeSubtype": "HOSTED",
            "type": {"mediaType": "BANNER"}, "imageUrl": "https://cdn.example/a.png",
            "landingPageUrl": "https://shop.example.com/", "size": {"width": 300, "height": 250}
        }}}),
    );

    // The table's filter word, and "Check all creatives" on its "select all".
    let with = h.window("query_creatives", Value::Null, "has:findings", 0, 50);
    assert_eq!(with["total"], 1);
    assert_eq!(with["unfiltered"], 2);
    assert_eq!(with["rows"][0]["value"]["name"], "Http tag");
    let found = h.ok(
        "check_creatives",
        json!({"scope": {"type": "query", "value": {
            "kind": "creative",
            "query": {"parent": null, "filter": "", "sort": null, "offset": 0, "limit": 50},
            "except": []
        }}}),
    );
    assert_eq!(found["checked"], 2);
    assert_eq!(found["withFindings"], 1);
    assert_eq!(found["creatives"][0]["label"], "Http tag");

    // The pending changes carry them, and Check counts them without holding any back.
    let summary = h.ok("check_changes", json!({}));
    assert_eq!(summary["invalid"], 0);
    assert_eq!(summary["withFindings"], 1);
    assert!(summary["warnings"].as_u64().expect("warnings") >= 1);
    let pending = h.pending();
    let row = pending
        .iter()
        .find(|c| c["label"] == "Http tag")
        .expect("the creative is pending");
    assert!(
        row["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["rule"] == "tag.http-resource")
    );

    // "Fetch and check": only http and https, and a hop answers what came back.
    let refused = h.err(
        "fetch_vast",
        json!({"path": "video.vastUrl", "url": "file:///etc/passwd"}),
    );
    assert!(refused.to_string().contains("http"), "{refused}");
    let hops = h.ok(
        "fetch_vast",
        json!({"path": "video.vastUrl", "url": format!("{}v1/no-such-vast.xml", h.base_url())}),
    );
    assert_eq!(hops.as_array().map(Vec::len), Some(1));
    assert!(hops[0]["status"].is_u64(), "{hops}");
    assert!(hops[0]["problem"].is_string(), "{hops}");
    h.close();
}
