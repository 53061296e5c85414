//! VAST documents: the findings at `*.vastXml` (rule, level, path and line) and the
//! summary the inspector shows, on VAST 2.0, 3.0 and 4.x InLine and Wrapper fixtures.

mod common;

use common::{at, check_video_xml, creative, fixture, no_errors, of, one};
use flightdeck_workbench::{AdKind, Level, check_creative, inspect_vast, vast_wrapper_uri};
use serde_json::json;

fn warnings(findings: &[flightdeck_workbench::Finding]) -> Vec<&flightdeck_workbench::Finding> {
    findings
        .iter()
        .filter(|f| f.level == Level::Warning)
        .collect()
}

#[test]
fn a_sound_vast_2_inline_has_no_warning_and_shows_its_parts() {
    let xml = fixture("vast2_inline.xml");
    let findings = check_video_xml(&xml);
    assert!(warnings(&findings).is_empty(), "{findings:#?}");

    let s = inspect_vast(&xml);
    assert_eq!(s.version.as_deref(), Some("2.0"));
    assert_eq!(s.error, None);
    assert_eq!(s.ads.len(), 1);
    let ad = &s.ads[0];
    assert_eq!(ad.kind, Some(AdKind::InLine));
    assert_eq!(ad.id.as_deref(), Some("v2-inline"));
    assert_eq!(ad.ad_system.as_deref(), Some("Flightdeck Fixtures"));
    assert_eq!(ad.impressions.len(), 1);
    assert_eq!(
        ad.impressions[0].url,
        "https://track.example.com/imp?cb=[CACHEBUSTING]"
    );
    assert!(ad.impressions[0].https);
    assert_eq!(ad.impressions[0].line, 8);
    let linear = ad.creatives[0].linear.as_ref().expect("a linear");
    assert_eq!(linear.duration.as_deref(), Some("00:00:15"));
    assert_eq!(linear.duration_ms, Some(15_000));
    let events: Vec<_> = linear
        .tracking
        .iter()
        .filter_map(|t| t.event.as_deref())
        .collect();
    assert_eq!(
        events,
        [
            "start",
            "firstQuartile",
            "midpoint",
            "thirdQuartile",
            "complete"
        ]
    );
    assert_eq!(
        linear.click_through.as_ref().map(|c| c.url.as_str()),
        Some("https://shop.example.com/spring")
    );
    assert_eq!(linear.click_tracking.len(), 1);
    let media: Vec<_> = linear
        .media_files
        .iter()
        .map(|m| {
            (
                m.mime_type.as_deref(),
                m.width,
                m.height,
                m.bitrate,
                m.https,
                m.line,
            )
        })
        .collect();
    assert_eq!(
        media,
        [
            (Some("video/mp4"), Some(640), Some(360), Some(800), true, 25),
            (
                Some("video/webm"),
                Some(1280),
                Some(720),
                Some(2000),
                true,
                26
            ),
        ]
    );
    assert_eq!(vast_wrapper_uri(&s), None, "an InLine ends the chain");
}

#[test]
fn http_media_and_trackers_in_vast_3_are_warned_at_their_lines() {
    let findings = check_video_xml(&fixture("vast3_inline_http.xml"));
    no_errors(&findings);
    let trackers = of(&findings, "vast.http-tracker");
    let lines: Vec<_> = trackers.iter().map(|f| f.line).collect();
    assert_eq!(
        lines,
        [Some(6), Some(12)],
        "the Impression and the start event"
    );
    for f in trackers {
        at(f, Level::Warning, "video.vastXml", f.line);
    }
    at(
        one(&findings, "vast.http-media"),
        Level::Warning,
        "video.vastXml",
        Some(19),
    );

    let s = inspect_vast(&fixture("vast3_inline_http.xml"));
    let linear = s.ads[0].creatives[0].linear.as_ref().expect("a linear");
    assert!(!linear.media_files[0].https);
    assert_eq!(linear.skip_offset.as_deref(), Some("00:00:05"));
    assert_eq!(linear.duration_ms, Some(30_000));
    let https: Vec<_> = linear.tracking.iter().map(|t| t.https).collect();
    assert_eq!(https, [false, true]);
}

#[test]
fn a_sound_vast_4_inline_has_no_warning() {
    let xml = fixture("vast4_inline.xml");
    let findings = check_video_xml(&xml);
    assert!(warnings(&findings).is_empty(), "{findings:#?}");
    let s = inspect_vast(&xml);
    assert_eq!(s.version.as_deref(), Some("4.2"));
    let linear = s.ads[0].creatives[0].linear.as_ref().expect("a linear");
    assert_eq!(linear.duration_ms, Some(6_000));
    assert_eq!(linear.media_files[0].width, Some(1920));
    assert_eq!(linear.media_files[0].bitrate, Some(4500));
}

#[test]
fn a_vast_4_wrapper_names_the_next_document() {
    let xml = fixture("vast4_wrapper.xml");
    let findings = check_video_xml(&xml);
    assert!(warnings(&findings).is_empty(), "{findings:#?}");
    let s = inspect_vast(&xml);
    assert_eq!(s.ads[0].kind, Some(AdKind::Wrapper));
    assert_eq!(
        vast_wrapper_uri(&s),
        Some("https://ads.example.com/vast/inline.xml?cb=[CACHEBUSTING]")
    );
    let linear = s.ads[0].creatives[0].linear.as_ref().expect("a linear");
    assert!(linear.media_files.is_empty());
    assert_eq!(linear.click_tracking.len(), 1);
}

#[test]
fn a_vast_3_wrapper_without_creatives_names_the_next_document() {
    let xml = fixture("vast3_wrapper.xml");
    assert!(warnings(&check_video_xml(&xml)).is_empty());
    let s = inspect_vast(&xml);
    assert_eq!(s.version.as_deref(), Some("3.0"));
    assert_eq!(
        vast_wrapper_uri(&s),
        Some("https://ads.example.com/vast/next.xml")
    );
}

#[test]
fn an_inline_without_impression_is_warned_at_the_inline() {
    let findings = check_video_xml(&fixture("vast3_no_impression.xml"));
    at(
        one(&findings, "vast.no-impression"),
        Level::Warning,
        "video.vastXml",
        Some(3),
    );
}

#[test]
fn a_linear_without_media_files_or_duration_is_warned_at_the_linear() {
    let findings = check_video_xml(&fixture("vast2_no_media.xml"));
    at(
        one(&findings, "vast.no-media-file"),
        Level::Warning,
        "video.vastXml",
        Some(9),
    );
    at(
        one(&findings, "vast.no-duration"),
        Level::Warning,
        "video.vastXml",
        Some(9),
    );
}

#[test]
fn a_mismatched_close_tag_is_broken_xml_at_its_line() {
    let xml = fixture("broken_mismatch.xml");
    let findings = check_video_xml(&xml);
    let f = one(&findings, "vast.broken-xml");
    at(f, Level::Warning, "video.vastXml", Some(7));
    assert!(f.message.contains("</Inline>"), "{}", f.message);
    assert!(
        findings
            .iter()
            .all(|f| !f.rule.starts_with("vast.") || f.rule == "vast.broken-xml"),
        "nothing else is said of a broken document: {findings:#?}"
    );
    let s = inspect_vast(&xml);
    assert_eq!(s.error.as_ref().map(|e| e.line), Some(7));
    assert_eq!(s.ads.len(), 1, "what was read before the fault is kept");
}

#[test]
fn a_cut_document_is_broken_at_the_element_left_open() {
    let findings = check_video_xml(&fixture("broken_unclosed.xml"));
    let f = one(&findings, "vast.broken-xml");
    at(f, Level::Warning, "video.vastXml", Some(3));
    assert!(f.message.contains("<InLine>"), "{}", f.message);
}

#[test]
fn an_empty_vast_is_a_no_fill() {
    let findings = check_video_xml(&fixture("vast_empty.xml"));
    at(
        one(&findings, "vast.no-ad"),
        Level::Warning,
        "video.vastXml",
        None,
    );
}

#[test]
fn a_url_pasted_as_vast_xml_is_not_xml() {
    let findings = check_video_xml("\n  https://ads.example.com/vast.xml");
    let f = one(&findings, "vast.not-xml");
    at(f, Level::Warning, "video.vastXml", Some(2));
    assert!(f.message.contains("vastUrl"), "{}", f.message);
}

#[test]
fn html_as_vast_xml_is_not_vast() {
    let findings = check_video_xml("<html><body>ad</body></html>");
    assert!(!of(&findings, "vast.not-vast").is_empty(), "{findings:#?}");
    no_errors(&findings);
}

#[test]
fn other_spec_findings_carry_the_linters_rule_and_section() {
    let findings = check_video_xml(&fixture("vast2_no_media.xml"));
    let spec = of(&findings, "vast.spec");
    assert!(!spec.is_empty());
    assert!(
        spec.iter()
            .all(|f| f.message.contains("vastlint VAST-") && f.message.contains("IAB VAST")),
        "{spec:#?}"
    );
}

#[test]
fn audio_and_native_documents_are_checked_at_their_own_paths() {
    let xml = fixture("vast3_inline_http.xml");
    let audio = check_creative(&creative(json!({
        "creativeType": "AUDIO", "creativeSubtype": "VASTXML", "audio": {"vastXml": xml},
    })));
    at(
        one(&audio, "vast.http-media"),
        Level::Warning,
        "audio.vastXml",
        Some(19),
    );
    let native = check_creative(&creative(json!({
        "creativeType": "NATIVE", "creativeSubtype": "VASTXML", "native": {"vastXml": xml},
    })));
    at(
        one(&native, "vast.http-media"),
        Level::Warning,
        "native.vastXml",
        Some(19),
    );
}

#[test]
fn a_blank_document_is_left_to_the_models_required_rule() {
    assert!(check_video_xml("  \n ").is_empty());
}

#[test]
fn lines_count_windows_and_old_mac_line_ends_as_an_editor_does() {
    let unix = fixture("broken_mismatch.xml");
    for ending in ["\r\n", "\r"] {
        let xml = unix.replace('\n', ending);
        let findings = check_video_xml(&xml);
        assert_eq!(
            one(&findings, "vast.broken-xml").line,
            Some(7),
            "{ending:?}"
        );
    }
    let http = fixture("vast3_inline_http.xml").replace('\n', "\r");
    assert_eq!(
        one(&check_video_xml(&http), "vast.http-media").line,
        Some(19)
    );
    let tag = fixture("tag_http.html").replace('\n', "\r");
    let lines: Vec<_> = of(&common::check_tag(&tag), "tag.http-resource")
        .iter()
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [Some(3), Some(5)]);
}

#[test]
fn a_self_closed_vast_is_a_no_fill_too() {
    let findings = check_video_xml("<VAST version=\"4.0\"/>");
    at(
        one(&findings, "vast.no-ad"),
        Level::Warning,
        "video.vastXml",
        None,
    );
}
