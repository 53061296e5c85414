//! Helpers shared by the workbench's test files: fixtures, creatives from JSON, and
//! picking findings by rule.
#![allow(dead_code)]

use flightdeck_workbench::{Finding, Level, check_creative};
use serde_json::{Value, json};

/// A fixture file's text, from `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A creative from its wire JSON, so the tests also go through the wire names.
pub fn creative(v: Value) -> flightdeck_model::Creative {
    serde_json::from_value(v).expect("fixture creative deserializes")
}

/// The findings of a VIDEO+VASTXML creative whose document is `xml`.
pub fn check_video_xml(xml: &str) -> Vec<Finding> {
    check_creative(&creative(json!({
        "name": "Video", "creativeType": "VIDEO", "creativeSubtype": "VASTXML",
        "type": {"mediaType": "VAST"}, "advertiserId": 1,
        "video": {"vastXml": xml},
    })))
}

/// The findings of a 300×250 BANNER+TAG creative whose tag is `tag`.
pub fn check_tag(tag: &str) -> Vec<Finding> {
    check_creative(&creative(json!({
        "name": "Banner", "creativeType": "BANNER", "creativeSubtype": "TAG",
        "type": {"mediaType": "BANNER"}, "advertiserId": 1,
        "size": {"width": 300, "height": 250}, "htmlAsset": tag,
    })))
}

/// The findings of one rule.
pub fn of<'a>(findings: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

/// Asserts exactly one finding of `rule` and answers it.
pub fn one<'a>(findings: &'a [Finding], rule: &str) -> &'a Finding {
    let hits = of(findings, rule);
    assert_eq!(hits.len(), 1, "one {rule} expected in {findings:#?}");
    hits[0]
}

/// Asserts a finding's level, path and line, as the buyer sees them.
pub fn at(f: &Finding, level: Level, path: &str, line: Option<u32>) {
    assert_eq!(
        (f.level, f.path.as_str(), f.line),
        (level, path, line),
        "{f:#?}"
    );
}

/// Only warnings and infos: errors are the model's.
pub fn no_errors(findings: &[Finding]) {
    assert!(
        findings.iter().all(|f| f.level != Level::Error),
        "a check answered an error: {findings:#?}"
    );
}
