//! [`inspect_vast`]: one `quick-xml` pass over a VAST document that keeps what the
//! inspector shows (Ad → InLine/Wrapper → Creative → Linear → media files and trackers),
//! each with its line, and where the XML stops being well-formed.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use serde::{Deserialize, Serialize};

use crate::lines::LineCursor;

/// What a VAST document holds, as far as the buyer needs to see it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastSummary {
    /// The root element's name (`VAST` for a VAST document).
    pub root: Option<String>,
    /// The root's `version` attribute as written (`2.0`, `4.2`).
    pub version: Option<String>,
    /// Each `<Ad>`, in document order.
    pub ads: Vec<VastAd>,
    /// Where the XML stops being well-formed. What was read before it is kept above.
    pub error: Option<XmlError>,
}

/// Where and why a document is not well-formed XML.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct XmlError {
    /// 1-based line.
    pub line: u32,
    /// What is wrong there.
    pub message: String,
}

/// Whether an ad carries its creative (`InLine`) or points at another VAST document
/// (`Wrapper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum AdKind {
    /// `<InLine>`: the media files are here.
    InLine,
    /// `<Wrapper>`: the player fetches `VASTAdTagURI` for the rest.
    Wrapper,
}

/// One `<Ad>`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastAd {
    /// The `id` attribute.
    pub id: Option<String>,
    /// Line of the `<Ad>` tag.
    pub line: u32,
    /// `None` when the ad has neither `<InLine>` nor `<Wrapper>`.
    pub kind: Option<AdKind>,
    /// `<AdSystem>`.
    pub ad_system: Option<String>,
    /// `<AdTitle>`.
    pub ad_title: Option<String>,
    /// A wrapper's `<VASTAdTagURI>`: the next document of the chain.
    pub wrapper_uri: Option<String>,
    /// `<Impression>` URLs.
    pub impressions: Vec<Tracker>,
    /// `<Error>` URLs.
    pub errors: Vec<Tracker>,
    /// Each `<Creative>` under `<Creatives>`.
    pub creatives: Vec<VastCreative>,
}

/// One `<Creative>`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastCreative {
    /// The `id` attribute.
    pub id: Option<String>,
    /// Line of the `<Creative>` tag.
    pub line: u32,
    /// Its `<Linear>`, the part a video or audio player plays.
    pub linear: Option<VastLinear>,
    /// How many `<Companion>` ads it carries.
    pub companions: u32,
    /// How many `<NonLinear>` ads it carries.
    pub non_linears: u32,
}

/// A `<Linear>`: duration, media files, trackers and the click-through.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct VastLinear {
    /// Line of the `<Linear>` tag.
    pub line: u32,
    /// `<Duration>` as written (`00:00:15.000`).
    pub duration: Option<String>,
    /// The duration in milliseconds, when it reads as `HH:MM:SS(.mmm)`.
    pub duration_ms: Option<u32>,
    /// The `skipoffset` attribute, as written.
    pub skip_offset: Option<String>,
    /// `<MediaFile>`s.
    pub media_files: Vec<MediaFile>,
    /// `<Tracking>` events (`start`, `firstQuartile`, …).
    pub tracking: Vec<Tracker>,
    /// `<VideoClicks><ClickThrough>`: where a click takes the viewer.
    pub click_through: Option<Tracker>,
    /// `<VideoClicks><ClickTracking>`.
    pub click_tracking: Vec<Tracker>,
}

/// One `<MediaFile>`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MediaFile {
    /// The file's URL.
    pub url: String,
    /// The `type` attribute (`video/mp4`).
    pub mime_type: Option<String>,
    /// The `delivery` attribute (`progressive`, `streaming`).
    pub delivery: Option<String>,
    /// `width` in pixels, when it is a number.
    pub width: Option<u32>,
    /// `height` in pixels, when it is a number.
    pub height: Option<u32>,
    /// `bitrate` in kbit/s, when it is a number.
    pub bitrate: Option<u32>,
    /// Whether the URL is `https://`.
    pub https: bool,
    /// Line of the `<MediaFile>` tag.
    pub line: u32,
}

/// A URL the player calls or opens: an impression, a tracking event, a click.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Tracker {
    /// A `<Tracking>`'s `event` attribute (`start`, `complete`); `None` elsewhere.
    pub event: Option<String>,
    /// The URL, trimmed.
    pub url: String,
    /// Whether the URL is `https://`.
    pub https: bool,
    /// Line of the element.
    pub line: u32,
}

/// Whether `url` starts with `https://`, in any case.
pub(crate) fn is_https(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
}

/// Reads `xml` as VAST. Never fails: a document that is not XML, or stops being
/// well-formed, answers what was read before the fault and the fault in `error`.
pub fn inspect_vast(xml: &str) -> VastSummary {
    let mut p = Pass {
        cursor: LineCursor::new(xml),
        summary: VastSummary::default(),
        stack: Vec::new(),
        text: String::new(),
        pending_media: None,
        pending_event: None,
    };
    p.run(xml);
    p.summary
}

struct Pass<'a> {
    cursor: LineCursor<'a>,
    summary: VastSummary,
    /// Open elements: local name and the line of the start tag.
    stack: Vec<(String, u32)>,
    /// Text of the innermost element, gathered across text, CDATA and references.
    text: String,
    pending_media: Option<MediaFile>,
    pending_event: Option<String>,
}

impl Pass<'_> {
    fn run(&mut self, xml: &str) {
        let start = xml.trim_start_matches('\u{feff}');
        let first = start.trim_start();
        if !first.is_empty() && !first.starts_with('<') {
            let line = self.cursor.line_at(xml.len() - first.len());
            self.fail(line, "this is not XML: a VAST document starts with <VAST");
            return;
        }
        let mut reader = Reader::from_str(xml);
        let mut root_seen = false;
        loop {
            let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = match reader.read_event() {
                Ok(e) => e,
                Err(e) => {
                    let pos = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                    let line = self.cursor.line_at(pos);
                    self.fail(line, &format!("the XML is broken here: {e}"));
                    return;
                }
            };
            match event {
                Event::Start(e) | Event::Empty(e) if self.stack.is_empty() && root_seen => {
                    let line = self.cursor.line_at(at);
                    let name = local(&e);
                    self.fail(
                        line,
                        &format!("a second root element <{name}> after the first"),
                    );
                    return;
                }
                Event::Start(e) => {
                    root_seen = true;
                    let line = self.cursor.line_at(at);
                    self.open(&e, line);
                }
                Event::Empty(e) => {
                    root_seen = true;
                    let line = self.cursor.line_at(at);
                    self.open(&e, line);
                    self.close();
                }
                Event::End(_) => self.close(),
                Event::Text(t) => {
                    let content = t.xml10_content();
                    if self.stack.is_empty() {
                        if !content.trim().is_empty() {
                            let line = self.cursor.line_at(at);
                            self.fail(line, "text outside the root element");
                            return;
                        }
                    } else {
                        self.text.push_str(&content);
                    }
                }
                Event::CData(t) => self.text.push_str(&t.into_inner()),
                Event::GeneralRef(r) => {
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(c)) => Some(c.to_string()),
                        Ok(None) => resolve_predefined_entity(&r.into_inner()).map(str::to_owned),
                        Err(_) => None,
                    };
                    match resolved {
                        Some(s) => self.text.push_str(&s),
                        None => {
                            let line = self.cursor.line_at(at);
                            self.fail(line, "an unknown or invalid entity reference (&…;)");
                            return;
                        }
                    }
                }
                Event::Eof => {
                    if let Some((name, line)) = self.stack.last() {
                        let message = format!("<{name}> opened here is never closed");
                        let line = *line;
                        self.fail(line, &message);
                    } else if !root_seen {
                        let line = self.cursor.line_at(xml.len());
                        self.fail(line, "no XML element at all");
                    }
                    return;
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    fn fail(&mut self, line: u32, message: &str) {
        self.summary.error = Some(XmlError {
            line,
            message: message.to_owned(),
        });
    }

    fn inside(&self, name: &str) -> bool {
        self.stack.iter().any(|(n, _)| n == name)
    }

    fn parent(&self) -> Option<&str> {
        self.stack
            .len()
            .checked_sub(2)
            .and_then(|i| self.stack.get(i))
            .map(|(n, _)| n.as_str())
    }

    fn open(&mut self, e: &BytesStart<'_>, line: u32) {
        let name = local(e);
        self.text.clear();
        let depth = self.stack.len();
        self.stack.push((name.clone(), line));
        if depth == 0 {
            self.summary.root = Some(name);
            self.summary.version = attr(e, "version");
            return;
        }
        match name.as_str() {
            "Ad" if depth == 1 => self.summary.ads.push(VastAd {
                id: attr(e, "id"),
                line,
                ..VastAd::default()
            }),
            "InLine" | "Wrapper" if self.parent() == Some("Ad") => {
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.kind = Some(if name == "InLine" {
                        AdKind::InLine
                    } else {
                        AdKind::Wrapper
                    });
                }
            }
            "Creative" if self.parent() == Some("Creatives") => {
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.creatives.push(VastCreative {
                        id: attr(e, "id"),
                        line,
                        ..VastCreative::default()
                    });
                }
            }
            "Linear" if self.parent() == Some("Creative") => {
                if let Some(c) = self.creative() {
                    c.linear = Some(VastLinear {
                        line,
                        skip_offset: attr(e, "skipoffset"),
                        ..VastLinear::default()
                    });
                }
            }
            "Companion" => {
                if let Some(c) = self.creative() {
                    c.companions = c.companions.saturating_add(1);
                }
            }
            "NonLinear" => {
                if let Some(c) = self.creative() {
                    c.non_linears = c.non_linears.saturating_add(1);
                }
            }
            "MediaFile" => {
                self.pending_media = Some(MediaFile {
                    mime_type: attr(e, "type"),
                    delivery: attr(e, "delivery"),
                    width: attr(e, "width").and_then(|v| v.trim().parse().ok()),
                    height: attr(e, "height").and_then(|v| v.trim().parse().ok()),
                    bitrate: attr(e, "bitrate").and_then(|v| v.trim().parse().ok()),
                    line,
                    ..MediaFile::default()
                });
            }
            "Tracking" => self.pending_event = attr(e, "event"),
            _ => {}
        }
    }

    fn creative(&mut self) -> Option<&mut VastCreative> {
        self.summary.ads.last_mut()?.creatives.last_mut()
    }

    fn linear(&mut self) -> Option<&mut VastLinear> {
        if !self.inside("Linear") {
            return None;
        }
        self.creative()?.linear.as_mut()
    }

    fn close(&mut self) {
        let text = std::mem::take(&mut self.text);
        let value = text.trim();
        let Some((name, line)) = self.stack.last().cloned() else {
            return;
        };
        let parent = self.parent().map(str::to_owned);
        let in_ad = matches!(parent.as_deref(), Some("InLine" | "Wrapper"));
        let tracker = |event: Option<String>| Tracker {
            event,
            url: value.to_owned(),
            https: is_https(value),
            line,
        };
        match name.as_str() {
            "AdSystem" if in_ad => {
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.ad_system = Some(value.to_owned());
                }
            }
            "AdTitle" if in_ad => {
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.ad_title = Some(value.to_owned());
                }
            }
            "VASTAdTagURI" if in_ad => {
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.wrapper_uri = Some(value.to_owned());
                }
            }
            "Impression" if in_ad => {
                let t = tracker(None);
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.impressions.push(t);
                }
            }
            "Error" if in_ad => {
                let t = tracker(None);
                if let Some(ad) = self.summary.ads.last_mut() {
                    ad.errors.push(t);
                }
            }
            "Duration" => {
                if let Some(l) = self.linear() {
                    l.duration = Some(value.to_owned());
                    l.duration_ms = duration_ms(value);
                }
            }
            "MediaFile" => {
                let media = self.pending_media.take();
                if let (Some(mut m), Some(l)) = (media, self.linear()) {
                    m.url = value.to_owned();
                    m.https = is_https(value);
                    l.media_files.push(m);
                }
            }
            "Tracking" => {
                let t = tracker(self.pending_event.take());
                if let Some(l) = self.linear() {
                    l.tracking.push(t);
                }
            }
            "ClickThrough" => {
                let t = tracker(None);
                if let Some(l) = self.linear() {
                    l.click_through = Some(t);
                }
            }
            "ClickTracking" => {
                let t = tracker(None);
                if let Some(l) = self.linear() {
                    l.click_tracking.push(t);
                }
            }
            _ => {}
        }
        self.stack.pop();
    }
}

fn local(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_owned()
}

fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| {
            a.normalized_value(XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.trim().to_owned())
        })
}

/// `HH:MM:SS` or `HH:MM:SS.mmm` in milliseconds.
fn duration_ms(s: &str) -> Option<u32> {
    let (hms, frac) = match s.split_once('.') {
        Some((hms, frac)) => (hms, Some(frac)),
        None => (s, None),
    };
    let mut parts = hms.split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let num = |p: &str, digits: usize| -> Option<u32> {
        (p.len() == digits && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (h, m, sec) = (num(h, 2)?, num(m, 2)?, num(sec, 2)?);
    if m > 59 || sec > 59 {
        return None;
    }
    let ms = match frac {
        None => 0,
        Some(f) if (1..=3).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            let scale = 10u32.pow(3 - u32::try_from(f.len()).ok()?);
            f.parse::<u32>().ok()? * scale
        }
        Some(_) => return None,
    };
    h.checked_mul(3_600_000)?
        .checked_add(m * 60_000 + sec * 1_000 + ms)
}
