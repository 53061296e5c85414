//! The creative's own URLs: landing page, images, media files and impression pixels
//! must be `https://`, and no pixel should be listed twice.
//!
//! A URL that is not `http(s)` at all is the model's error (`is_http_url`); here only
//! the `http://` ones are warned about: DV360 and most exchanges reject a creative that
//! makes non-SSL calls, and browsers block mixed content on https pages.

use flightdeck_model::Creative;

use crate::{Finding, Level};

/// Pixel fields, in wire order.
const PIXELS: [&str; 4] = [
    "impressionTrackingPixel_1",
    "impressionTrackingPixel_2",
    "impressionTrackingPixel_3",
    "impressionTrackingPixel_4",
];

/// Whether `url` (trimmed) starts with `http://`, in any case.
pub(crate) fn is_plain_http(url: &str) -> bool {
    url.trim_start()
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
}

/// Every URL field of `c` with its wire path and what it is, for the message.
fn fields<'a>(c: &'a Creative) -> Vec<(String, &'a str, &'static str)> {
    let mut out: Vec<(String, &'a str, &'static str)> = Vec::new();
    let mut one = |path: &str, v: Option<&'a String>, what: &'static str| {
        if let Some(v) = v {
            out.push((path.to_owned(), v.as_str(), what));
        }
    };
    one(
        "landingPageUrl",
        c.landing_page_url.as_ref(),
        "landing page",
    );
    one("imageUrl", c.image_url.as_ref(), "image");
    if let Some(n) = &c.native {
        one("native.imageUrl", n.image_url.as_ref(), "image");
        one("native.imageIcon", n.image_icon.as_ref(), "icon");
    }
    if let Some(d) = &c.dooh {
        one("dooh.imageUrl", d.image_url.as_ref(), "image");
    }
    let pixels = [
        &c.impression_tracking_pixel_1,
        &c.impression_tracking_pixel_2,
        &c.impression_tracking_pixel_3,
        &c.impression_tracking_pixel_4,
    ];
    for (path, v) in PIXELS.iter().zip(pixels) {
        one(path, v.as_ref(), "tracking pixel");
    }
    let lists = [
        (
            "video.mediaUrls",
            c.video.as_ref().and_then(|v| v.media_urls.as_ref()),
        ),
        (
            "audio.mediaUrls",
            c.audio.as_ref().and_then(|a| a.media_urls.as_ref()),
        ),
        (
            "native.mediaUrls",
            c.native.as_ref().and_then(|n| n.media_urls.as_ref()),
        ),
        (
            "dooh.mediaUrls",
            c.dooh.as_ref().and_then(|d| d.media_urls.as_ref()),
        ),
    ];
    for (path, items) in lists {
        for (i, v) in items.into_iter().flatten().enumerate() {
            out.push((format!("{path}[{i}]"), v.as_str(), "media file"));
        }
    }
    out
}

/// `url.http` for each `http://` URL, and `pixel.duplicate` for a pixel already listed
/// in an earlier pixel field (it would count every impression twice).
pub fn check(c: &Creative, out: &mut Vec<Finding>) {
    for (path, url, what) in fields(c) {
        if is_plain_http(url) {
            out.push(Finding::new(
                "url.http",
                Level::Warning,
                &path,
                None,
                format!(
                    "the {what} is http://: exchanges reject creatives with non-SSL calls, \
                     and https pages block it; use https://"
                ),
            ));
        }
    }
    let pixels = [
        &c.impression_tracking_pixel_1,
        &c.impression_tracking_pixel_2,
        &c.impression_tracking_pixel_3,
        &c.impression_tracking_pixel_4,
    ];
    for (i, v) in pixels.iter().enumerate() {
        let Some(url) = v.as_deref().map(str::trim).filter(|u| !u.is_empty()) else {
            continue;
        };
        let earlier = pixels
            .iter()
            .take(i)
            .position(|p| p.as_deref().map(str::trim) == Some(url));
        if let (Some(first), Some(path)) = (earlier, PIXELS.get(i)) {
            let first = PIXELS.get(first).copied().unwrap_or_default();
            out.push(Finding::new(
                "pixel.duplicate",
                Level::Warning,
                path,
                None,
                format!("the same pixel as {first}: every impression would be counted twice"),
            ));
        }
    }
}
