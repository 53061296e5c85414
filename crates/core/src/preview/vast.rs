//! VAST creatives in the preview: the document read as the inspector's tree (the
//! workbench's [`inspect_vast`], so the page parses nothing), and the live document that
//! plays one chosen media file.
//!
//! Trackers (impressions, tracking events, click tracking, error URLs) are text in the
//! tree and nothing more: neither the page nor the frame ever requests one, since a
//! preview that fired them would count as an impression on the buyer's own campaign. The
//! media document holds the `<video>` or `<audio>` element alone, under [`MEDIA_CSP`]:
//! `media-src https:` and nothing else remote, no scripts.

use flightdeck_model::Creative;
use flightdeck_workbench::{VastSummary, inspect_vast};

use super::{PreviewContent, PreviewSize, Resource, Transport, escape, filled};

/// The policy of a media document: the media file from `https:` only, inline styles for
/// the layout, nothing else (no scripts: `sandbox` without `allow-scripts`; no images, so
/// no tracker pixel could load even if one slipped in); only the app may frame it.
pub const MEDIA_CSP: &str = "default-src 'none'; \
media-src https:; \
style-src 'unsafe-inline'; \
form-action 'none'; \
base-uri 'none'; \
frame-ancestors tauri: http://tauri.localhost https://tauri.localhost; \
sandbox";

/// An `<audio>` element's controls.
const AUDIO_BAR: PreviewSize = PreviewSize {
    width: 320,
    height: 54,
};

/// The hint for a VAST URL without XML: a preview fetches nothing, the buyer asks.
const FETCH_HINT: &str = "A VAST URL: nothing is fetched for a preview. Use \"Fetch and check\" \
beside the VAST URL field in the creative form to read its documents.";

/// The creative's VAST field that the preview shows: the first with XML among video,
/// audio and native, else the first with a URL. With its wire path and player element.
struct VastField {
    path: String,
    element: &'static str,
    xml: Option<String>,
}

fn field_of(c: &Creative) -> Option<VastField> {
    let fields = [
        (
            "video",
            "video",
            c.video.as_ref().map(|v| (&v.vast_url, &v.vast_xml)),
        ),
        (
            "audio",
            "audio",
            c.audio.as_ref().map(|a| (&a.vast_url, &a.vast_xml)),
        ),
        (
            "native",
            "video",
            c.native.as_ref().map(|n| (&n.vast_url, &n.vast_xml)),
        ),
    ];
    let with = |xml: bool| {
        fields.iter().find_map(|(name, element, f)| {
            let (url, doc) = (*f)?;
            if xml {
                filled(doc).map(|x| VastField {
                    path: format!("{name}.vastXml"),
                    element,
                    xml: Some(x),
                })
            } else {
                filled(url).map(|_| VastField {
                    path: format!("{name}.vastUrl"),
                    element,
                    xml: None,
                })
            }
        })
    };
    with(true).or_else(|| with(false))
}

/// Every media file URL of a summary, in document order, with its line.
fn media_files(s: &VastSummary) -> impl Iterator<Item = (&str, u32)> {
    s.ads
        .iter()
        .flat_map(|a| &a.creatives)
        .filter_map(|c| c.linear.as_ref())
        .flat_map(|l| &l.media_files)
        .map(|m| (m.url.as_str(), m.line))
}

fn is_https(url: &str) -> bool {
    Transport::of(url) == Transport::Https
}

/// The preview of a VAST creative: the tree, and its media files as what it would load
/// live (only the one chosen is, and never a tracker). `None` for a creative without VAST.
pub(super) fn content(c: &Creative) -> Option<(PreviewContent, Vec<Resource>)> {
    let field = field_of(c)?;
    let summary = field.xml.as_deref().map(inspect_vast);
    let resources = summary
        .iter()
        .flat_map(media_files)
        .map(|(url, line)| Resource {
            url: url.to_string(),
            element: field.element.to_string(),
            attribute: "src".to_string(),
            transport: Transport::of(url),
            line,
        })
        .collect();
    let hint = summary.is_none().then(|| FETCH_HINT.to_string());
    Some((
        PreviewContent::Vast {
            path: field.path,
            element: field.element.to_string(),
            summary,
            hint,
        },
        resources,
    ))
}

/// The media file "Render live" plays when none is chosen: the first `https:` one.
pub(super) fn first_playable(content: &PreviewContent) -> Option<(&str, &str)> {
    let PreviewContent::Vast {
        element,
        summary: Some(s),
        ..
    } = content
    else {
        return None;
    };
    media_files(s)
        .map(|(u, _)| u)
        .find(|u| is_https(u))
        .map(|u| (element.as_str(), u))
}

/// The box a VAST creative without a declared size plays in: an audio bar, or the first
/// `https:` media file's own size (a 300×250 box would letterbox a 16:9 video).
pub(super) fn frame(content: &PreviewContent) -> Option<PreviewSize> {
    let PreviewContent::Vast {
        element,
        summary: Some(s),
        ..
    } = content
    else {
        return None;
    };
    if element == "audio" {
        return Some(AUDIO_BAR);
    }
    s.ads
        .iter()
        .flat_map(|a| &a.creatives)
        .filter_map(|c| c.linear.as_ref())
        .flat_map(|l| &l.media_files)
        .filter(|m| is_https(&m.url))
        .find_map(|m| match (m.width, m.height) {
            (Some(width), Some(height)) if width > 0 && height > 0 => {
                Some(PreviewSize { width, height })
            }
            _ => None,
        })
}

/// Whether `url` is one of the `https:` media files of a VAST preview, and its element.
pub(super) fn playable<'a>(content: &'a PreviewContent, url: &str) -> Option<&'a str> {
    let PreviewContent::Vast {
        element,
        summary: Some(s),
        ..
    } = content
    else {
        return None;
    };
    media_files(s)
        .any(|(u, _)| u == url && is_https(u))
        .then_some(element.as_str())
}

/// The document that plays one media file: the `<video>` or `<audio>` element alone,
/// with native controls (they need no script). Served under [`MEDIA_CSP`].
pub fn media_document(element: &str, url: &str) -> String {
    let element = if element == "audio" { "audio" } else { "video" };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0;height:100%;background:#000}}video,audio{{display:block;width:100%;height:100%}}</style></head><body><{element} controls preload=\"metadata\" src=\"{}\"></{element}></body></html>",
        escape(url)
    )
}
