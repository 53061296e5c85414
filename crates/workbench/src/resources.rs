//! What an HTML tag would load when it runs: which elements and attributes fetch a
//! resource, and how each URL would be fetched.
//!
//! One list for two readers: the preview shows every resource a tag would load
//! ([`external_resources`], in the core's `preview`), and the `tag.http-resource` check
//! ([`crate::html`]) warns about the ones fetched over `http://`. Both come from the same
//! tokenizer pass ([`crate::html`]'s), so a tag never loads one thing in the preview and
//! another in the checks.
//!
//! What loads, by element:
//! - `src`: `script`, `iframe`, `frame`, `embed`, `track`, `audio`, `img`, `source`,
//!   `video`, and `input type=image`;
//! - `srcset` (each candidate): `img`, `source`;
//! - `poster`: `video`; `data`: `object`;
//! - `href` and `xlink:href`: SVG's `image`, `use` and `feImage`;
//! - `background`: `body`, `table`, `td`, `th`;
//! - `href` of a `link` whose `rel` fetches: `stylesheet`, `preload`, `prefetch`,
//!   `modulepreload`, `icon`, `manifest`.
//!
//! `<a href>` loads nothing until a click, and `<link rel=canonical>` nothing at all.

use html5ever::tokenizer::Tag;
use serde::{Deserialize, Serialize};

/// How a resource would be fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum Transport {
    /// `https://`.
    Https,
    /// `http://`: blocked live, and refused by publishers.
    Http,
    /// `//host/…`: the page's scheme (`https:` in a publisher's page).
    SchemeRelative,
    /// `data:`: inside the tag, nothing fetched.
    Data,
    /// A relative path: resolved against the publisher's page.
    Relative,
    /// Another scheme (`javascript:`, `blob:`, …).
    Other,
}

impl Transport {
    /// How `url` (as written, surrounding spaces ignored) would be fetched.
    pub fn of(url: &str) -> Transport {
        let lower = url.trim().to_ascii_lowercase();
        if lower.starts_with("https://") {
            Transport::Https
        } else if lower.starts_with("http://") {
            Transport::Http
        } else if lower.starts_with("//") {
            Transport::SchemeRelative
        } else if lower.starts_with("data:") {
            Transport::Data
        } else if lower
            .split_once(':')
            .is_some_and(|(s, _)| !s.is_empty() && !s.contains(['/', '?', '#']))
        {
            Transport::Other
        } else {
            Transport::Relative
        }
    }
}

/// A resource an HTML tag would load when it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// As written in the tag.
    pub url: String,
    /// The element that loads it (`script`, `img`, `iframe`, …).
    pub element: String,
    /// Its attribute (`src`, `srcset`, `href`, `data`, `poster`).
    pub attribute: String,
    /// How it would be fetched.
    pub transport: Transport,
    /// The tag's line, from 1.
    pub line: u32,
}

/// Every external resource an HTML tag would load, in the tag's order, read with
/// html5ever's tokenizer (the same pass the tag checks make). `data:` URLs are listed
/// too (they load nothing remote, and say so in their transport).
pub fn external_resources(html: &str) -> Vec<Resource> {
    crate::html::scan(html).resources
}

/// The attributes that load something, by element (lower case, as the tokenizer gives
/// names). `<a href>` loads nothing until a click, and `<link>` only for the relations
/// that fetch ([`link_fetches`]).
fn loading_attributes(element: &str) -> &'static [&'static str] {
    match element {
        "script" | "iframe" | "frame" | "embed" | "track" | "audio" | "input" => &["src"],
        "img" | "source" => &["src", "srcset"],
        "video" => &["src", "poster"],
        "object" => &["data"],
        "link" => &["href"],
        "image" | "use" | "feimage" => &["href", "xlink:href"],
        "body" | "table" | "td" | "th" => &["background"],
        _ => &[],
    }
}

/// Relations of `<link>` that fetch their `href`.
fn link_fetches(rel: &str) -> bool {
    rel.split_ascii_whitespace().any(|r| {
        [
            "stylesheet",
            "preload",
            "prefetch",
            "modulepreload",
            "icon",
            "manifest",
        ]
        .iter()
        .any(|l| r.eq_ignore_ascii_case(l))
    })
}

/// The value of attribute `name` of a start tag. The tokenizer gives attribute names in
/// lower case and without a namespace (`xlink:href` is one name).
fn attr<'t>(tag: &'t Tag, name: &str) -> Option<&'t str> {
    tag.attrs
        .iter()
        .find(|a| (*a.name.local).eq_ignore_ascii_case(name))
        .map(|a| &*a.value)
}

/// Appends what start tag `tag` (element `element`, its tag ending on `line`) loads to
/// `out`, in attribute order; a `srcset` gives one resource per candidate.
pub(crate) fn tag_resources(tag: &Tag, element: &str, line: u32, out: &mut Vec<Resource>) {
    let attrs = loading_attributes(element);
    if attrs.is_empty()
        || (element == "link" && !attr(tag, "rel").is_some_and(link_fetches))
        || (element == "input"
            && !attr(tag, "type").is_some_and(|t| t.eq_ignore_ascii_case("image")))
    {
        return;
    }
    for name in attrs {
        let Some(value) = attr(tag, name) else {
            continue;
        };
        let mut push = |url: &str| {
            if !url.is_empty() {
                out.push(Resource {
                    url: url.to_owned(),
                    element: element.to_owned(),
                    attribute: (*name).to_owned(),
                    transport: Transport::of(url),
                    line,
                });
            }
        };
        if *name == "srcset" {
            value
                .split(',')
                .filter_map(|c| c.split_ascii_whitespace().next())
                .for_each(&mut push);
        } else {
            push(value.trim());
        }
    }
}
