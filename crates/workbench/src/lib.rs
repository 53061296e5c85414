//! Creative checks a trafficker runs before posting: the warnings and infos that the
//! service's own rules (errors, in `flightdeck-model`) do not give.
//!
//! Pure: no HTTP, no files, no clock. A check takes a [`Creative`] and answers
//! [`Finding`]s, each with a rule id, a level, the field's wire path and, inside XML or
//! HTML, the line. Errors stay the model's; nothing here ever answers
//! [`Level::Error`], so a finding never blocks a post, it asks for a confirmation.
//!
//! - **VAST XML** (`video.vastXml`, `audio.vastXml`, `native.vastXml`): [`vast`]. The
//!   spec rules come from `vastlint-core` (Apache-2.0, pure Rust, VAST 2.0–4.4, about
//!   250 rules with line numbers). It was evaluated against writing the rules on
//!   `quick-xml`: it is sound (no IO, no unsafe, documented limits on depth and size), its
//!   only dependencies are `quick-xml`, `url` and `phf` (46 crates in all, most already
//!   in the workspace through `url`), and its findings carry lines. It is young with one
//!   maintainer, so it is pinned, and its rule ids stay behind ours (`vast.*`): the rules
//!   a buyer meets most have their own id here, the others are `vast.spec` with the
//!   linter's id in the message. Its parse error has no line, so broken XML is located
//!   by our own `quick-xml` pass, the same one that builds [`VastSummary`] for the
//!   inspector.
//! - **VAST URL** (`*.vastUrl`): scheme and macros, offline ([`macros`]). Fetching
//!   and following wrappers needs IO and is the core's: [`vast_wrapper_uri`] gives it
//!   the next hop, [`vast::WRAPPER_DEPTH_MAX`] the limit, and
//!   [`vast::check_vast_xml`] checks each document fetched.
//! - **HTML tags** (`htmlAsset`, `display.htmlAsset`): [`html`], on html5ever's
//!   tokenizer; what a tag loads, for `tag.http-resource` and the preview, is
//!   [`resources`] ([`external_resources`]).
//! - **Sizes and URLs**: [`sizes`] and [`urls`].
//! - **Tag sheets**: [`tagsheet`] reads an ad server's tag sheet (XLSX, CSV, TSV; bytes
//!   in, no file) into one creative per placement row, each with these checks'
//!   findings.
//!
//! The rule ids, and the level each answers:
//!
//! | rule | level | at |
//! |---|---|---|
//! | `vast.not-xml`, `vast.broken-xml` (with the line), `vast.not-vast`, `vast.no-ad`, `vast.no-inline-or-wrapper`, `vast.no-impression`, `vast.no-media-file`, `vast.no-duration`, `vast.bad-duration`, `vast.wrapper-no-uri`, `vast.http-media`, `vast.http-tracker`, `vast.version`, `vast.macro-unknown` | warning | `*.vastXml` |
//! | `vast.spec`: every other linter rule | warning, or info where the linter says info | `*.vastXml` |
//! | `vast-url.http`, `vast-url.macro-unbalanced` | warning | `*.vastUrl` |
//! | `vast-url.macro-unknown` | info | `*.vastUrl` |
//! | `tag.http-resource`, `tag.no-click-macro`, `tag.size-mismatch`, `tag.document-write`, `tag.unclosed-script` | warning | `htmlAsset`, `display.htmlAsset` |
//! | `tag.ad-size-unreadable` | info | `htmlAsset`, `display.htmlAsset` |
//! | `tag.weight` | info; warning past [`html::TAG_WEIGHT_WARNING`] | `htmlAsset`, `display.htmlAsset` |
//! | `size.non-standard` | info | `size` |
//! | `url.http` | warning | `landingPageUrl`, `imageUrl`, `native.imageUrl`, `native.imageIcon`, `dooh.imageUrl`, `*.mediaUrls[i]`, `impressionTrackingPixel_N` |
//! | `pixel.duplicate` | warning | the later `impressionTrackingPixel_N` |

pub mod html;
mod lines;
pub mod macros;
pub mod resources;
pub mod sizes;
pub mod tagsheet;
pub mod urls;
pub mod vast;

use flightdeck_model::Creative;
use serde::{Deserialize, Serialize};

pub use resources::{Resource, Transport, external_resources};
pub use vast::{
    AdKind, MediaFile, Tracker, VastAd, VastCreative, VastLinear, VastSummary, WRAPPER_DEPTH_MAX,
    XmlError, inspect_vast, vast_wrapper_uri,
};

/// How much a finding matters. `Error` is the model's (the service refuses the
/// creative); the checks here answer only `Warning` (likely to be rejected or to serve
/// blank: confirm before posting) and `Info` (worth knowing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum Level {
    /// The service refuses it: only `flightdeck-model`'s rules give this level.
    Error,
    /// Likely to be rejected by review, or to serve blank or unmeasured.
    Warning,
    /// Worth knowing; nothing is likely to fail.
    Info,
}

/// One thing a check found, placed at a field the buyer can open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable rule id, such as `vast.no-impression` or `tag.http-resource`: what a
    /// filter or a "don't show again" keys on, whatever the message says.
    pub rule: String,
    /// Warning or info (errors are the model's).
    pub level: Level,
    /// Wire path of the field, as the model's errors name it (`video.vastXml`,
    /// `impressionTrackingPixel_2`, `video.mediaUrls[0]`).
    pub path: String,
    /// 1-based line inside the field's XML or HTML, when the finding has one.
    pub line: Option<u32>,
    /// What the buyer reads.
    pub message: String,
}

impl Finding {
    pub(crate) fn new(
        rule: &str,
        level: Level,
        path: &str,
        line: Option<u32>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            rule: rule.to_owned(),
            level,
            path: path.to_owned(),
            line,
            message: message.into(),
        }
    }
}

/// Every check on one creative, in field order: sizes, URLs and pixels, the VAST URLs,
/// the VAST documents, then the HTML tags. Never [`Level::Error`]: run the model's
/// `validate::creative` for those.
pub fn check_creative(c: &Creative) -> Vec<Finding> {
    let mut out = Vec::new();
    sizes::check(c, &mut out);
    urls::check(c, &mut out);
    for (path, url) in vast_urls(c) {
        macros::check_vast_url(path, url, &mut out);
    }
    for (path, xml) in vast_xmls(c) {
        vast::check_vast_xml(path, xml, &mut out);
    }
    let size = c.size.as_ref();
    if let Some(tag) = &c.html_asset {
        html::check_tag("htmlAsset", tag, size, &mut out);
    }
    if let Some(tag) = c.display.as_ref().and_then(|d| d.html_asset.as_ref()) {
        html::check_tag("display.htmlAsset", tag, size, &mut out);
    }
    out
}

/// [`check_creative`] on each creative, in order: one list of findings per creative.
pub fn check_many(creatives: &[Creative]) -> Vec<Vec<Finding>> {
    creatives.iter().map(check_creative).collect()
}

fn vast_urls(c: &Creative) -> impl Iterator<Item = (&'static str, &str)> {
    [
        (
            "video.vastUrl",
            c.video.as_ref().and_then(|v| v.vast_url.as_deref()),
        ),
        (
            "audio.vastUrl",
            c.audio.as_ref().and_then(|a| a.vast_url.as_deref()),
        ),
        (
            "native.vastUrl",
            c.native.as_ref().and_then(|n| n.vast_url.as_deref()),
        ),
    ]
    .into_iter()
    .filter_map(|(path, v)| v.map(|v| (path, v)))
}

/// Each VAST document a creative holds, with the wire path of its field (`video.vastXml`,
/// `audio.vastXml`, `native.vastXml`): the one list the checks and the hosts' summaries read.
pub fn vast_xmls(c: &Creative) -> impl Iterator<Item = (&'static str, &str)> {
    [
        (
            "video.vastXml",
            c.video.as_ref().and_then(|v| v.vast_xml.as_deref()),
        ),
        (
            "audio.vastXml",
            c.audio.as_ref().and_then(|a| a.vast_xml.as_deref()),
        ),
        (
            "native.vastXml",
            c.native.as_ref().and_then(|n| n.vast_xml.as_deref()),
        ),
    ]
    .into_iter()
    .filter_map(|(path, v)| v.map(|v| (path, v)))
}
