//! Creatives: the type/subtype matrix and the `creative/save` body.

use super::helpers::{known, max_chars, non_blank, or_list, require, require_str, within_int};
use super::{MatrixCell, codes, matrix_cell};
use crate::{Creative, CreativeSubtype as S, CreativeType as T, MediaType as M, ValidationErrors};

/// Longest creative `name`, in characters.
pub const NAME_MAX: usize = 400;
/// Longest `externalCreativeid`, in characters.
pub const EXTERNAL_ID_MAX: usize = 26;
/// Largest `size.width` and `size.height`, in pixels.
pub const SIZE_MAX: i64 = 10_239;

const BANNER_MEDIA: &[M] = &[M::BANNER, M::MRAID];
const VIDEO_MEDIA: &[M] = &[M::VAST, M::VPAID, M::VAST_WITH_VPAID];
const AUDIO_MEDIA: &[M] = &[M::AUDIO];
const NATIVE_MEDIA: &[M] = &[M::NATIVE];

/// A cell whose `size` is optional: the service infers it, or it does not apply.
const fn cell(
    creative_type: T,
    creative_subtype: S,
    required: &'static [&'static str],
    media_types: &'static [M],
) -> MatrixCell {
    MatrixCell {
        creative_type,
        creative_subtype,
        required,
        optional: &["size"],
        media_types,
    }
}

/// The spec's matrix, plus its Creative table: `landingPageUrl` is required for BANNER
/// HOSTED, hosted video and audio, and every NATIVE cell; `size` is required for tag-based
/// display and optional (or inferred) everywhere else.
static MATRIX: [MatrixCell; 14] = [
    MatrixCell {
        creative_type: T::BANNER,
        creative_subtype: S::TAG,
        required: &["size", "htmlAsset"],
        optional: &[],
        media_types: BANNER_MEDIA,
    },
    cell(
        T::BANNER,
        S::HOSTED,
        &["imageUrl", "landingPageUrl"],
        BANNER_MEDIA,
    ),
    cell(T::VIDEO, S::VASTURL, &["video.vastUrl"], VIDEO_MEDIA),
    cell(T::VIDEO, S::VASTXML, &["video.vastXml"], VIDEO_MEDIA),
    cell(
        T::VIDEO,
        S::HOSTED,
        &["video.mediaUrls", "landingPageUrl"],
        VIDEO_MEDIA,
    ),
    cell(T::AUDIO, S::VASTURL, &["audio.vastUrl"], AUDIO_MEDIA),
    cell(T::AUDIO, S::VASTXML, &["audio.vastXml"], AUDIO_MEDIA),
    MatrixCell {
        creative_type: T::AUDIO,
        creative_subtype: S::HOSTED,
        required: &["audio.mediaUrls", "landingPageUrl"],
        optional: &["size", "audio.daast"],
        media_types: AUDIO_MEDIA,
    },
    cell(
        T::NATIVE,
        S::IMAGE,
        &[
            "native.headline",
            "native.caption",
            "native.sponsoredBy",
            "native.imageUrl",
            "native.imageIcon",
            "landingPageUrl",
        ],
        NATIVE_MEDIA,
    ),
    cell(
        T::NATIVE,
        S::VASTURL,
        &["native.vastUrl", "landingPageUrl"],
        NATIVE_MEDIA,
    ),
    cell(
        T::NATIVE,
        S::VASTXML,
        &["native.vastXml", "landingPageUrl"],
        NATIVE_MEDIA,
    ),
    cell(
        T::NATIVE,
        S::HOSTED,
        &["native.mediaUrls", "landingPageUrl"],
        NATIVE_MEDIA,
    ),
    cell(T::DOOH, S::IMAGE, &["dooh.imageUrl"], &[M::BANNER]),
    cell(T::DOOH, S::VIDEO, &["dooh.mediaUrls"], &[M::VAST]),
];

/// The 14 cells of the creative matrix, in the spec's order.
pub fn creative_matrix() -> &'static [MatrixCell] {
    &MATRIX
}

/// Whether `s` is an absolute `http`/`https` URL with a host. Deliberately loose: the
/// service's own URL rules are not published, so only the obvious mistakes are caught
/// (a missing scheme, a pasted tag instead of a URL, spaces in the host).
pub fn is_http_url(s: &str) -> bool {
    let scheme = |p: &str| s.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
    let rest = if scheme("https://") {
        s.get(8..)
    } else if scheme("http://") {
        s.get(7..)
    } else {
        None
    };
    let Some(rest) = rest else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    !host.is_empty() && !host.chars().any(char::is_whitespace)
}

/// What a matrix path points at in a creative.
enum Found<'a> {
    Missing,
    Text(&'a str),
    List(&'a [String]),
    Object,
}

fn text(s: Option<&String>) -> Found<'_> {
    s.map_or(Found::Missing, |s| Found::Text(s))
}

fn list(v: Option<&Vec<String>>) -> Found<'_> {
    v.map_or(Found::Missing, |v| Found::List(v))
}

/// Resolves one of the matrix's wire paths; `htmlAsset` also accepts `display.htmlAsset`.
fn lookup<'a>(c: &'a Creative, path: &str) -> Found<'a> {
    let video = c.video.as_ref();
    let audio = c.audio.as_ref();
    let native = c.native.as_ref();
    let dooh = c.dooh.as_ref();
    match path {
        "size" => c.size.as_ref().map_or(Found::Missing, |_| Found::Object),
        "htmlAsset" => {
            let own = c
                .html_asset
                .as_ref()
                .filter(|s| non_blank(Some(s)).is_some());
            text(own.or_else(|| c.display.as_ref().and_then(|d| d.html_asset.as_ref())))
        }
        "imageUrl" => text(c.image_url.as_ref()),
        "landingPageUrl" => text(c.landing_page_url.as_ref()),
        "video.vastUrl" => text(video.and_then(|v| v.vast_url.as_ref())),
        "video.vastXml" => text(video.and_then(|v| v.vast_xml.as_ref())),
        "video.mediaUrls" => list(video.and_then(|v| v.media_urls.as_ref())),
        "audio.vastUrl" => text(audio.and_then(|a| a.vast_url.as_ref())),
        "audio.vastXml" => text(audio.and_then(|a| a.vast_xml.as_ref())),
        "audio.mediaUrls" => list(audio.and_then(|a| a.media_urls.as_ref())),
        "audio.daast" => audio
            .and_then(|a| a.daast.as_ref())
            .map_or(Found::Missing, |_| Found::Object),
        "native.headline" => text(native.and_then(|n| n.headline.as_ref())),
        "native.caption" => text(native.and_then(|n| n.caption.as_ref())),
        "native.sponsoredBy" => text(native.and_then(|n| n.sponsored_by.as_ref())),
        "native.imageUrl" => text(native.and_then(|n| n.image_url.as_ref())),
        "native.imageIcon" => text(native.and_then(|n| n.image_icon.as_ref())),
        "native.vastUrl" => text(native.and_then(|n| n.vast_url.as_ref())),
        "native.vastXml" => text(native.and_then(|n| n.vast_xml.as_ref())),
        "native.mediaUrls" => list(native.and_then(|n| n.media_urls.as_ref())),
        "dooh.imageUrl" => text(dooh.and_then(|d| d.image_url.as_ref())),
        "dooh.mediaUrls" => list(dooh.and_then(|d| d.media_urls.as_ref())),
        _ => Found::Missing,
    }
}

/// Creative `save` body: common fields, limits, and the matrix cell's required fields.
pub fn creative(c: &Creative) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();

    if let Some(name) = require_str(&mut e, "name", c.name.as_ref()) {
        max_chars(&mut e, "name", name, NAME_MAX);
    }
    let ctype = require(&mut e, "creativeType", c.creative_type.as_ref());
    known(&mut e, "creativeType", ctype);
    let ctype = ctype.filter(|t| t.is_known());
    let subtype = require(&mut e, "creativeSubtype", c.creative_subtype.as_ref());

    let cell = match (ctype, subtype) {
        (Some(t), Some(s)) => {
            let found = matrix_cell(t, s);
            if found.is_none() {
                let allowed: Vec<String> = MATRIX
                    .iter()
                    .filter(|c| &c.creative_type == t)
                    .map(|c| c.creative_subtype.to_string())
                    .collect();
                e.push(
                    "creativeSubtype",
                    codes::INVALID,
                    format!(
                        "{s} is not a subtype of {t} creatives; use {}",
                        or_list(&allowed)
                    ),
                );
            }
            found
        }
        _ => None,
    };

    media_type(&mut e, c, ctype, cell);

    if c.advertiser_id.is_none() && c.campaign_id.is_none() {
        e.push(
            "advertiserId",
            codes::REQUIRED,
            "advertiserId or campaignId is required",
        );
    }

    if let Some(cell) = cell {
        required_paths(&mut e, c, cell);
    }

    if let Some(size) = &c.size {
        for (field, v) in [("size.width", size.width), ("size.height", size.height)] {
            if let Some(v) = require(&mut e, field, v.as_ref()) {
                within_int(&mut e, field, *v, 1, SIZE_MAX);
            }
        }
    }

    if let Some(id) = &c.external_creativeid {
        max_chars(&mut e, "externalCreativeid", id, EXTERNAL_ID_MAX);
    }

    let applicable = payloads_applicable(&mut e, c, ctype);
    urls(&mut e, c, cell, applicable);

    e.into_result()
}

/// `type` and `type.mediaType`. Without a known cell the type's cells together give
/// the allowed media types, so a wrong pairing is still caught while the subtype is unset.
fn media_type(
    e: &mut ValidationErrors,
    c: &Creative,
    ctype: Option<&T>,
    cell: Option<&MatrixCell>,
) {
    let Some(type_obj) = require(e, "type", c.type_.as_ref()) else {
        return;
    };
    let Some(media) = require(e, "type.mediaType", type_obj.media_type.as_ref()) else {
        return;
    };
    let allowed: Vec<M> = match (cell, ctype) {
        (Some(cell), _) => cell.media_types.to_vec(),
        (None, Some(t)) => {
            let mut all = Vec::new();
            for m in MATRIX
                .iter()
                .filter(|c| &c.creative_type == t)
                .flat_map(|c| c.media_types)
            {
                if !all.contains(m) {
                    all.push(m.clone());
                }
            }
            all
        }
        (None, None) => return,
    };
    if !allowed.contains(media) {
        let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
        let what = match (cell, ctype) {
            (Some(cell), _) => format!("{} {}", cell.creative_type, cell.creative_subtype),
            (None, Some(t)) => t.to_string(),
            (None, None) => String::new(),
        };
        e.push(
            "type.mediaType",
            codes::INVALID,
            format!(
                "must be {} for a {what} creative (got {media})",
                or_list(&names)
            ),
        );
    }
}

fn required_paths(e: &mut ValidationErrors, c: &Creative, cell: &MatrixCell) {
    for path in cell.required {
        match lookup(c, path) {
            Found::Object => {}
            Found::Text(s) if !s.trim().is_empty() => {}
            Found::Missing | Found::Text(_) => e.push(*path, codes::REQUIRED, "is required"),
            Found::List([]) => e.push(
                *path,
                codes::REQUIRED,
                "is required: list at least one media file",
            ),
            Found::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if item.trim().is_empty() {
                        e.push(format!("{path}[{i}]"), codes::REQUIRED, "must not be blank");
                    }
                }
            }
        }
    }
}

/// Which type payloads (`video`, `audio`, `native`, `dooh`) belong to the creative's type.
#[derive(Clone, Copy)]
struct Applicable {
    video: bool,
    audio: bool,
    native: bool,
    dooh: bool,
}

/// Reports payload objects sent for another creative type; their contents are then not
/// checked further, as the whole object is the mistake.
fn payloads_applicable(e: &mut ValidationErrors, c: &Creative, ctype: Option<&T>) -> Applicable {
    let Some(t) = ctype else {
        return Applicable {
            video: true,
            audio: true,
            native: true,
            dooh: true,
        };
    };
    let mut check = |name: &str, sent: bool, owner: T| {
        let ok = !sent || *t == owner;
        if !ok {
            e.push(
                name,
                codes::NOT_APPLICABLE,
                format!("applies only to {owner} creatives, not {t}"),
            );
        }
        ok
    };
    Applicable {
        video: check("video", c.video.is_some(), T::VIDEO),
        audio: check("audio", c.audio.is_some(), T::AUDIO),
        native: check("native", c.native.is_some(), T::NATIVE),
        dooh: check("dooh", c.dooh.is_some(), T::DOOH),
    }
}

fn urls(e: &mut ValidationErrors, c: &Creative, cell: Option<&MatrixCell>, ok: Applicable) {
    // A blank required value was already reported as REQUIRED; one error per field is enough.
    let required = |path: &str| cell.is_some_and(|cell| cell.required.contains(&path));
    let mut check = |path: String, v: &str, list_path: &str| {
        if v.trim().is_empty() && required(list_path) {
            return;
        }
        if !is_http_url(v) {
            e.push(
                path,
                codes::INVALID,
                "must be a full web address starting with http:// or https://",
            );
        }
    };

    let video = c.video.as_ref().filter(|_| ok.video);
    let audio = c.audio.as_ref().filter(|_| ok.audio);
    let native = c.native.as_ref().filter(|_| ok.native);
    let dooh = c.dooh.as_ref().filter(|_| ok.dooh);

    let scalars = [
        ("landingPageUrl", c.landing_page_url.as_ref()),
        ("imageUrl", c.image_url.as_ref()),
        ("crawlableUrl", c.crawlable_url.as_ref()),
        (
            "impressionTrackingPixel_1",
            c.impression_tracking_pixel_1.as_ref(),
        ),
        (
            "impressionTrackingPixel_2",
            c.impression_tracking_pixel_2.as_ref(),
        ),
        (
            "impressionTrackingPixel_3",
            c.impression_tracking_pixel_3.as_ref(),
        ),
        (
            "impressionTrackingPixel_4",
            c.impression_tracking_pixel_4.as_ref(),
        ),
        ("video.vastUrl", video.and_then(|v| v.vast_url.as_ref())),
        ("audio.vastUrl", audio.and_then(|a| a.vast_url.as_ref())),
        ("native.vastUrl", native.and_then(|n| n.vast_url.as_ref())),
        ("native.imageUrl", native.and_then(|n| n.image_url.as_ref())),
        (
            "native.imageIcon",
            native.and_then(|n| n.image_icon.as_ref()),
        ),
        ("dooh.imageUrl", dooh.and_then(|d| d.image_url.as_ref())),
    ];
    for (path, v) in scalars {
        if let Some(v) = v {
            check(path.to_owned(), v, path);
        }
    }

    let lists = [
        ("video.mediaUrls", video.and_then(|v| v.media_urls.as_ref())),
        ("audio.mediaUrls", audio.and_then(|a| a.media_urls.as_ref())),
        (
            "native.mediaUrls",
            native.and_then(|n| n.media_urls.as_ref()),
        ),
        ("dooh.mediaUrls", dooh.and_then(|d| d.media_urls.as_ref())),
    ];
    for (path, items) in lists {
        for (i, v) in items.into_iter().flatten().enumerate() {
            check(format!("{path}[{i}]"), v, path);
        }
    }
}
