//! Property fuzzing of the checks: any text as a VAST document, an HTML tag or a VAST
//! URL, and any size, goes through `check_creative` and `inspect_vast` without a panic,
//! answers no error (errors are the model's), and places every line inside the text.
//!
//! The text is made two ways: wholly at random (any characters, or bytes read as UTF-8
//! with replacement), and as one of the fixtures with pieces cut out and markup pasted
//! in (tags, CDATA, entities, macros, `document.write`, unclosed scripts), which
//! reaches the rules deep inside a nearly valid shape. CI runs proptest's default
//! number of cases; the long run is `scripts/fuzz.sh`.

mod common;

use common::{check_tag, check_video_xml, creative, fixture};
use flightdeck_workbench::macros::{MacroToken, scan_macros};
use flightdeck_workbench::{Finding, Level, check_creative, inspect_vast};
use proptest::prelude::*;
use serde_json::json;

const VAST_FIXTURES: &[&str] = &[
    "vast2_inline.xml",
    "vast3_inline_http.xml",
    "vast4_inline.xml",
    "vast4_wrapper.xml",
    "vast3_wrapper.xml",
    "vast2_no_media.xml",
    "broken_mismatch.xml",
];

const TAG_FIXTURES: &[&str] = &[
    "tag_clean.html",
    "tag_http.html",
    "tag_ad_size_mismatch.html",
    "tag_iframe_size.html",
    "tag_document_write.html",
    "tag_unclosed_script.html",
    "tag_loads.html",
];

/// Pieces of markup and macros that the rules look for, or that break a parser.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "<", ">", "</", "/>", "<!--", "-->", "<![CDATA[", "]]>", "&", "&amp;", "&#0;",
            "&#x110000;", "&bogus;", "\"", "'", "=", "\n", "\r\n", "\u{feff}", "\u{0}",
            "<VAST version=\"4.2\">", "</VAST>", "<Ad>", "<InLine>", "<Wrapper>", "<Linear>",
            "<MediaFile width=\"x\" bitrate=\"99999999999\">", "<Duration>99:99:99.9999</Duration>",
            "<Tracking event=\"start\">", "<Impression>", "<VASTAdTagURI>", "http://", "https://",
            "<!DOCTYPE x>", "<?xml version=\"1.0\"?>", "<script>", "</script>", "<script src=x/>",
            "<iframe srcdoc=\"", "document.write(", "<meta name=\"ad.size\" content=\"width=",
            ",height=", "<div style=\"width:300px;height:", "px\">", "width=\"-1\"", "clickTag",
            "%%", "%%CLICK_URL_UNESC%%", "${", "}", "[", "]", "[CLICK_URL]", "ünï", "\u{1F600}",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,12}",
    ]
}

/// A fixture with up to 8 cuts and pastes at random places.
fn mutated(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    let edit = (any::<prop::sample::Index>(), 0usize..24, piece());
    (
        prop::sample::select(names),
        prop::collection::vec(edit, 0..8),
    )
        .prop_map(|(name, edits)| {
            let mut text = fixture(name);
            for (at, cut, paste) in edits {
                let mut start = at.index(text.len() + 1);
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                let mut end = (start + cut).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.replace_range(start..end, &paste);
            }
            text
        })
}

/// Any text: characters, bytes read as UTF-8, pieces strung together, or a mutated
/// fixture.
fn any_text(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..512)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        2 => prop::collection::vec(piece(), 0..40).prop_map(|p| p.concat()),
        4 => mutated(names),
    ]
}

/// Any text as a URL: characters, bytes read as UTF-8, or a URL with pieces and macros
/// strung after it.
fn any_url() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..256)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        3 => (prop::sample::select(vec!["https://a.example/?", "http://a.example/v?", "HTTP://", ""]),
              prop::collection::vec(piece(), 0..20))
            .prop_map(|(head, p)| format!("{head}{}", p.concat())),
    ]
}

/// How many lines `text` has: breaks are `\n`, `\r\n` and a lone `\r`, as an editor
/// counts them.
fn lines(text: &str) -> u32 {
    let breaks = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
    u32::try_from(breaks + 1).unwrap_or(u32::MAX)
}

/// Every finding is a warning or an info, and its line is inside `text`.
fn sound(findings: &[Finding], text: &str) -> Result<(), TestCaseError> {
    let lines = lines(text);
    for f in findings {
        prop_assert_ne!(f.level, Level::Error, "{:?}", f);
        if let Some(line) = f.line {
            prop_assert!(
                (1..=lines).contains(&line),
                "line {} of {}: {:?}",
                line,
                lines,
                f
            );
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_vast_xml_is_checked_and_inspected_without_a_panic(xml in any_text(VAST_FIXTURES)) {
        sound(&check_video_xml(&xml), &xml)?;
        let s = inspect_vast(&xml);
        if let Some(e) = &s.error {
            prop_assert!((1..=lines(&xml)).contains(&e.line), "{:?}", e);
        }
    }

    #[test]
    fn any_html_tag_is_checked_without_a_panic(tag in any_text(TAG_FIXTURES)) {
        sound(&check_tag(&tag), &tag)?;
    }

    #[test]
    fn any_vast_url_is_checked_without_a_panic(url in any_url()) {
        let c = creative(json!({"video": {"vastUrl": url}, "audio": {"vastUrl": url}}));
        sound(&check_creative(&c), &url)?;
        for token in scan_macros(&url) {
            let at = match token {
                MacroToken::Macro { at, .. } | MacroToken::Unbalanced { at, .. } => at,
            };
            prop_assert!(url.is_char_boundary(at) && at < url.len());
        }
    }

    #[test]
    fn any_size_and_urls_are_checked_without_a_panic(
        width in prop_oneof![Just(None), any::<i64>().prop_map(Some), (0i64..2000).prop_map(Some)],
        height in prop_oneof![Just(None), any::<i64>().prop_map(Some), (0i64..2000).prop_map(Some)],
        kind in prop::sample::select(vec!["BANNER", "VIDEO", "AUDIO", "NATIVE", "DOOH", "OTHER"]),
        url in any_url(),
        tag in any_text(TAG_FIXTURES),
    ) {
        let c = creative(json!({
            "creativeType": kind, "size": {"width": width, "height": height},
            "landingPageUrl": url, "impressionTrackingPixel_1": url,
            "impressionTrackingPixel_2": url, "native": {"mediaUrls": [url, url]},
            "htmlAsset": tag,
        }));
        sound(&check_creative(&c), &tag)?;
    }
}
