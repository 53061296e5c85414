//! HTML tags: each rule on a tag with the problem and a tag without it, with the rule,
//! level, path and line the buyer sees.

mod common;

use common::{at, check_tag, creative, fixture, no_errors, of, one};
use flightdeck_workbench::html::TAG_WEIGHT_WARNING;
use flightdeck_workbench::{Level, Transport, check_creative, external_resources};
use serde_json::json;

#[test]
fn a_clean_tag_has_only_its_weight() {
    let findings = check_tag(&fixture("tag_clean.html"));
    let rules: Vec<_> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.level))
        .collect();
    assert_eq!(rules, [("tag.weight", Level::Info)], "{findings:#?}");
    assert!(
        findings[0].message.contains("386 bytes"),
        "{}",
        findings[0].message
    );
}

#[test]
fn http_resources_are_warned_at_their_lines() {
    let findings = check_tag(&fixture("tag_http.html"));
    no_errors(&findings);
    let http = of(&findings, "tag.http-resource");
    assert_eq!(http.len(), 2, "{findings:#?}");
    at(http[0], Level::Warning, "htmlAsset", Some(3));
    assert!(http[0].message.contains("<img src>"), "{}", http[0].message);
    at(http[1], Level::Warning, "htmlAsset", Some(5));
    assert!(
        http[1].message.contains("<script src>"),
        "{}",
        http[1].message
    );
}

#[test]
fn http_in_srcset_stylesheets_and_frames_is_found_but_not_in_links_that_load_nothing() {
    let tag = "<a href=\"[CLICK_URL]\">x</a>\n\
               <link rel=\"stylesheet\" href=\"http://cdn.example.com/a.css\">\n\
               <link rel=\"canonical\" href=\"http://example.com/\">\n\
               <img srcset=\"https://cdn.example.com/a.png 1x, http://cdn.example.com/b.png 2x\">\n\
               <iframe src=\"HTTP://ads.example.com/frame\"></iframe>\n\
               <a href=\"http://shop.example.com/\">landing pages are not loaded</a>";
    let findings = check_tag(tag);
    let lines: Vec<_> = of(&findings, "tag.http-resource")
        .iter()
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [Some(2), Some(4), Some(5)], "{findings:#?}");
}

#[test]
fn a_tag_without_click_macro_is_warned_and_one_with_any_macro_is_not() {
    let findings = check_tag(&fixture("tag_no_click.html"));
    at(
        one(&findings, "tag.no-click-macro"),
        Level::Warning,
        "htmlAsset",
        None,
    );

    for tag in [
        "<a href=\"%%CLICK_URL_UNESC%%https://x.example/\">a</a>",
        "<a href=\"${CLICK_URL}https://x.example/\">a</a>",
        "<a href=\"[CLICK_URL]https://x.example/\">a</a>",
        "<script>var clickTAG = 'https://x.example/';</script>",
        "<script>window.open(window.clickTag);</script>",
    ] {
        assert!(
            of(&check_tag(tag), "tag.no-click-macro").is_empty(),
            "{tag}"
        );
    }
}

#[test]
fn an_ad_size_meta_tag_that_differs_from_size_is_warned_at_its_line() {
    let findings = check_tag(&fixture("tag_ad_size_mismatch.html"));
    let f = one(&findings, "tag.size-mismatch");
    at(f, Level::Warning, "htmlAsset", Some(3));
    assert!(
        f.message.contains("728×90") && f.message.contains("300×250"),
        "{}",
        f.message
    );
}

#[test]
fn an_unreadable_ad_size_meta_tag_is_an_info() {
    let findings =
        check_tag("<meta name=\"ad.size\" content=\"300x250\"><a href=\"[CLICK_URL]\">a</a>");
    at(
        one(&findings, "tag.ad-size-unreadable"),
        Level::Info,
        "htmlAsset",
        Some(1),
    );
    assert!(of(&findings, "tag.size-mismatch").is_empty());
}

#[test]
fn the_outermost_sized_element_that_differs_from_size_is_warned() {
    let findings = check_tag(&fixture("tag_iframe_size.html"));
    let f = one(&findings, "tag.size-mismatch");
    // The iframe's tag ends on line 3; the 1×1 pixel before it is not the creative.
    at(f, Level::Warning, "htmlAsset", Some(3));
    assert!(f.message.contains("<iframe> is 728×90"), "{}", f.message);
}

#[test]
fn a_tag_of_its_declared_size_has_no_size_finding() {
    for tag in [
        fixture("tag_clean.html"),
        "<div style=\"width: 300px; height: 250px\"><a href=\"[CLICK_URL]\">a</a></div>".into(),
        "<iframe width=\"300\" height=\"250\" src=\"https://a.example/?c=[CLICK_URL]\"></iframe>"
            .into(),
        "<div style=\"width:100%\"><a href=\"[CLICK_URL]\">a</a></div>".into(),
    ] {
        assert!(
            of(&check_tag(&tag), "tag.size-mismatch").is_empty(),
            "{tag}"
        );
    }
}

#[test]
fn document_write_in_an_inline_script_is_warned_at_its_line() {
    let findings = check_tag(&fixture("tag_document_write.html"));
    at(
        one(&findings, "tag.document-write"),
        Level::Warning,
        "htmlAsset",
        Some(5),
    );

    let srcdoc = "<iframe srcdoc=\"&lt;script&gt;document.write(1)&lt;/script&gt;\"></iframe>\
                  <a href=\"[CLICK_URL]\">a</a>";
    at(
        one(&check_tag(srcdoc), "tag.document-write"),
        Level::Warning,
        "htmlAsset",
        Some(1),
    );

    let external = "<script src=\"https://a.example/document.write.js\"></script>\
                    <a href=\"[CLICK_URL]\">a</a>";
    assert!(of(&check_tag(external), "tag.document-write").is_empty());
}

#[test]
fn an_unclosed_script_is_warned_at_its_opening_line() {
    let findings = check_tag(&fixture("tag_unclosed_script.html"));
    at(
        one(&findings, "tag.unclosed-script"),
        Level::Warning,
        "htmlAsset",
        Some(4),
    );

    let closed = "<script>var clickTag = '';</script>";
    assert!(of(&check_tag(closed), "tag.unclosed-script").is_empty());
}

#[test]
fn a_heavy_tag_is_a_warning_and_a_light_one_an_info() {
    let mut heavy = String::from("<a href=\"[CLICK_URL]\">a</a><!--");
    heavy.push_str(&"x".repeat(TAG_WEIGHT_WARNING));
    heavy.push_str("-->");
    let f = one(&check_tag(&heavy), "tag.weight").clone();
    at(&f, Level::Warning, "htmlAsset", None);
    assert!(f.message.contains("151 KB"), "{}", f.message);

    let light = one(&check_tag("<a href=\"[CLICK_URL]\">a</a>"), "tag.weight").clone();
    at(&light, Level::Info, "htmlAsset", None);
}

#[test]
fn display_html_asset_is_checked_at_its_own_path() {
    let findings = check_creative(&creative(json!({
        "creativeType": "BANNER", "creativeSubtype": "TAG",
        "size": {"width": 300, "height": 250},
        "display": {"htmlAsset": fixture("tag_http.html")},
    })));
    let paths: Vec<_> = of(&findings, "tag.http-resource")
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["display.htmlAsset", "display.htmlAsset"]);
}

/// Each resource of `fixture("tag_loads.html")`: element, attribute, URL, transport and
/// line.
fn loads() -> Vec<(String, String, String, Transport, u32)> {
    external_resources(&fixture("tag_loads.html"))
        .into_iter()
        .map(|r| (r.element, r.attribute, r.url, r.transport, r.line))
        .collect()
}

#[test]
fn every_element_that_loads_is_listed_with_its_transport_and_line() {
    let s = |v: &str| v.to_owned();
    let want = [
        (
            "object",
            "data",
            "http://cdn.example.com/unit.swf",
            Transport::Http,
            2,
        ),
        (
            "img",
            "src",
            "https://cdn.example.com/a.png",
            Transport::Https,
            3,
        ),
        (
            "img",
            "srcset",
            "http://cdn.example.com/a2.png",
            Transport::Http,
            3,
        ),
        (
            "img",
            "srcset",
            "http://cdn.example.com/a3.png",
            Transport::Http,
            3,
        ),
        (
            "link",
            "href",
            "http://cdn.example.com/favicon.ico",
            Transport::Http,
            5,
        ),
        (
            "link",
            "href",
            "https://cdn.example.com/app.webmanifest",
            Transport::Https,
            6,
        ),
        (
            "video",
            "src",
            "https://cdn.example.com/v.mp4",
            Transport::Https,
            7,
        ),
        (
            "video",
            "poster",
            "http://cdn.example.com/poster.jpg",
            Transport::Http,
            7,
        ),
        (
            "image",
            "xlink:href",
            "http://cdn.example.com/bg.png",
            Transport::Http,
            8,
        ),
        ("use", "href", "#shape", Transport::Relative, 8),
        (
            "table",
            "background",
            "http://cdn.example.com/tile.gif",
            Transport::Http,
            9,
        ),
        (
            "td",
            "background",
            "//cdn.example.com/cell.gif",
            Transport::SchemeRelative,
            9,
        ),
        (
            "input",
            "src",
            "http://cdn.example.com/go.png",
            Transport::Http,
            10,
        ),
    ]
    .map(|(e, a, u, t, l)| (s(e), s(a), s(u), t, l));
    assert_eq!(loads(), want);
}

#[test]
fn http_findings_are_the_listed_http_resources_one_per_attribute() {
    let findings = check_tag(&fixture("tag_loads.html"));
    no_errors(&findings);
    let warned: Vec<(Option<u32>, String)> = of(&findings, "tag.http-resource")
        .iter()
        .inspect(|f| at(f, Level::Warning, "htmlAsset", f.line))
        .map(|f| {
            (
                f.line,
                f.message.split('>').next().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    // The same list as the preview's, its http resources only, and a srcset's two http
    // candidates as one finding.
    let mut listed: Vec<(Option<u32>, String)> = loads()
        .into_iter()
        .filter(|(.., t, _)| *t == Transport::Http)
        .map(|(e, a, _, _, l)| (Some(l), format!("<{e} {a}")))
        .collect();
    listed.dedup();
    assert_eq!(warned, listed, "{findings:#?}");
    assert_eq!(warned.len(), 7, "{warned:#?}");
}
