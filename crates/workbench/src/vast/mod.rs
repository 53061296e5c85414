//! VAST documents: the checks on `*.vastXml` ([`check_vast_xml`]), the summary the
//! inspector shows ([`inspect_vast`]) and the next hop of a wrapper chain
//! ([`vast_wrapper_uri`]).
//!
//! The spec rules are `vastlint-core`'s (see the crate's documentation for why). Its
//! ids are kept behind ours: the `RULES` table names the ones a buyer meets most, and
//! the rest are `vast.spec`, with the linter's id and the spec section in the message
//! so a trafficker can look it up. Its errors become warnings here: the service's own
//! rules are the only errors.

mod inspect;

pub(crate) use inspect::is_https;
pub use inspect::{
    AdKind, MediaFile, Tracker, VastAd, VastCreative, VastLinear, VastSummary, XmlError,
    inspect_vast,
};

use quick_xml::Reader;
use quick_xml::events::Event;
use vastlint_core::{InputStatus, Severity};

use crate::lines::line_in;

use crate::{Finding, Level};

/// Our rule id for each linter rule that has one; every other linter rule is
/// `vast.spec`. `None` drops the linter's rule: the wrapper depth is the core's to
/// check while it follows the chain, and a parse error is located by our own pass.
const RULES: &[(&str, Option<&str>)] = &[
    ("VAST-2.0-inline-impression", Some("vast.no-impression")),
    ("VAST-2.0-wrapper-impression", Some("vast.no-impression")),
    ("VAST-2.0-linear-mediafiles", Some("vast.no-media-file")),
    ("VAST-2.0-mediafile-https", Some("vast.http-media")),
    ("VAST-2.0-tracking-https", Some("vast.http-tracker")),
    ("VAST-2.0-linear-duration", Some("vast.no-duration")),
    ("VAST-2.0-duration-format", Some("vast.bad-duration")),
    ("VAST-2.0-wrapper-vastadtaguri", Some("vast.wrapper-no-uri")),
    ("VAST-2.0-root-element", Some("vast.not-vast")),
    ("VAST-2.0-root-version", Some("vast.version")),
    ("VAST-2.0-root-version-value", Some("vast.version")),
    ("VAST-2.0-macro-unknown", Some("vast.macro-unknown")),
    (
        "VAST-2.0-ad-has-inline-or-wrapper",
        Some("vast.no-inline-or-wrapper"),
    ),
    ("VAST-2.0-parse-error", Some("vast.broken-xml")),
    ("VAST-2.0-wrapper-depth", None),
];

/// Linter rules shown as infos: style the spec prefers, that players accept.
const INFO_ONLY: &[&str] = &["VAST-2.0-url-cdata"];

/// The rule id for a linter rule: ours, `vast.spec`, or `None` when it is dropped.
fn rule_for(id: &str) -> Option<&'static str> {
    match RULES.iter().find(|(theirs, _)| *theirs == id) {
        Some((_, ours)) => *ours,
        None => Some("vast.spec"),
    }
}

/// The checks on one VAST document at `path` (`video.vastXml`, …). A blank document
/// gives nothing: the model reports a required one missing.
///
/// The linter reads the document first. Only when it finds the XML malformed does our
/// own pass read it again, to say where; a sound document is read once by the linter
/// and once more only as far as its first `<Ad>`.
pub fn check_vast_xml(path: &str, xml: &str, out: &mut Vec<Finding>) {
    let start = xml.trim_start_matches('\u{feff}').trim_start();
    if start.is_empty() {
        return;
    }
    if !start.starts_with('<') {
        let hint = if start
            .get(..4)
            .is_some_and(|s| s.eq_ignore_ascii_case("http"))
        {
            "this is a URL, not a VAST document: put it in vastUrl"
        } else {
            "this is not XML: a VAST document starts with <VAST"
        };
        let line = line_in(1, xml, xml.len() - start.len());
        out.push(Finding::new(
            "vast.not-xml",
            Level::Warning,
            path,
            Some(line),
            hint,
        ));
        return;
    }
    // The linter counts lines at `\n` only; a lone `\r` ends a line for us (and for
    // the editor the buyer reads the field in), so it gets the document with `\n`s.
    let unified;
    let source = if xml.contains('\r') {
        unified = xml.replace("\r\n", "\n").replace('\r', "\n");
        unified.as_str()
    } else {
        xml
    };
    let result = vastlint_core::validate(source);
    if result.input_status == InputStatus::Malformed {
        // Where it breaks is ours to find: the linter's parse error has no line.
        let (line, message) = match inspect_vast(xml).error {
            Some(e) => (Some(e.line), e.message),
            None => (None, "the XML is not well-formed".to_owned()),
        };
        out.push(Finding::new(
            "vast.broken-xml",
            Level::Warning,
            path,
            line,
            format!("{message}; players reject a broken VAST document"),
        ));
        return;
    }
    if vast_without_ad(source) {
        out.push(Finding::new(
            "vast.no-ad",
            Level::Warning,
            path,
            None,
            "no <Ad>: an empty VAST document is a no-fill, so this creative would never play",
        ));
    }
    for issue in result.issues {
        let Some(rule) = rule_for(issue.id) else {
            continue;
        };
        let level = match issue.severity {
            Severity::Info => Level::Info,
            _ if INFO_ONLY.contains(&issue.id) => Level::Info,
            Severity::Warning | Severity::Error => Level::Warning,
        };
        let message = if rule == "vast.spec" {
            format!(
                "{} ({}; vastlint {})",
                issue.message, issue.spec_ref, issue.id
            )
        } else {
            format!("{} ({})", issue.message, issue.spec_ref)
        };
        out.push(Finding::new(rule, level, path, issue.line, message));
    }
}

/// How many wrappers a "fetch and check" follows before it gives up: the IAB's
/// recommended limit (VAST 4.x, and the linter's default).
pub const WRAPPER_DEPTH_MAX: usize = 5;

/// The document a wrapper points at: the first `<Wrapper>` ad's `VASTAdTagURI`, for
/// the core to fetch next (and check with [`check_vast_xml`]). `None` for an InLine
/// document (the chain ends there) or a wrapper without a URI. The core follows at
/// most [`WRAPPER_DEPTH_MAX`].
pub fn vast_wrapper_uri(summary: &VastSummary) -> Option<&str> {
    summary
        .ads
        .iter()
        .find(|ad| ad.kind == Some(AdKind::Wrapper))
        .and_then(|ad| ad.wrapper_uri.as_deref())
        .filter(|uri| !uri.is_empty())
}

/// Whether a well-formed document is a `<VAST>` with no `<Ad>` child: read only as far
/// as the first child named `Ad`.
fn vast_without_ad(xml: &str) -> bool {
    let mut reader = Reader::from_str(xml);
    let mut depth = 0usize;
    let mut vast = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.local_name();
                if depth == 0 {
                    vast = name.as_ref() == "VAST";
                } else if depth == 1 && name.as_ref() == "Ad" {
                    return false;
                }
                depth += 1;
            }
            Ok(Event::Empty(e)) => {
                let name = e.local_name();
                if depth == 0 {
                    return name.as_ref() == "VAST";
                } else if depth == 1 && name.as_ref() == "Ad" {
                    return false;
                }
            }
            Ok(Event::End(_)) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    vast
}
