//! Previews of creatives, safe to show in the app's window: what a creative would load,
//! an offline document that loads nothing, and a live document served from a separate
//! origin for "Render live".
//!
//! - [`preview`]: the offline preview of a creative (its kind of content, the declared
//!   size and the frame's box, and every external resource an HTML tag would load).
//! - [`external_resources`]: those resources, each with its element, attribute,
//!   transport and line; the workbench's, re-exported here. It reads the tag in the same
//!   html5ever pass and from the same list of loading elements as the workbench's
//!   `tag.http-resource` check, so a preview and a check never disagree on what loads.
//! - [`live_document`] and [`LiveDocs`]: the document "Render live" runs, handed to the
//!   page as a one-use token in a URL of the [`LIVE_SCHEME`] scheme, and served with
//!   [`LIVE_CSP`].
//! - [`vast`]: a VAST creative's tree (the workbench's summary), and the document that
//!   plays one chosen media file ([`media_document`], served with [`MEDIA_CSP`]);
//!   trackers are listed, never fired.
//!
//! Why a separate origin: an HTML tag is someone else's script. Offline it is shown in
//! `<iframe sandbox="">` (no scripts) with a `default-src 'none'` policy of its own on
//! top of the app's, so nothing remote loads. To run it, the frame needs scripts, which
//! the app's policy forbids in a `srcdoc` frame (it inherits the app's). So the host
//! serves it on its own scheme with its own policy, in `<iframe sandbox="allow-scripts">`
//! without `allow-same-origin`: an opaque origin, with no access to the app's document,
//! storage or `__TAURI_INTERNALS__` (Tauri injects that, and its IPC key, into the main
//! frame only), no popups, no top navigation, and `connect-src https:` so it cannot
//! reach Tauri's `ipc:` scheme nor the embedded sandbox on `http://127.0.0.1`.

mod vast;

use std::collections::VecDeque;
use std::sync::Mutex;

use flightdeck_model::Creative;
use flightdeck_workbench::VastSummary;
use serde::{Deserialize, Serialize};

pub use flightdeck_workbench::{Resource, Transport, external_resources};
pub use vast::{MEDIA_CSP, media_document};

use crate::Result;

/// The URI scheme the host serves live previews on. Windows and Android serve custom
/// schemes as `http://fdpreview.localhost/`; the app's `frame-src` names both forms.
pub const LIVE_SCHEME: &str = "fdpreview";

/// The policy of a live preview's document. Scripts, styles, images, media and fonts
/// from `https:` and inline (a tag needs them); connections to `https:` only, so no
/// `ipc:`, no `http://ipc.localhost` and no `http://127.0.0.1` (the embedded sandbox);
/// no forms, no `<base>`; only the app may frame it; and the document sandboxes itself
/// (`sandbox allow-scripts`) even if something loaded it outside its frame. A tag that
/// fetches an `https:` service sends no credential of the buyer's: the app's tokens live
/// in the Rust side and the keyring, never in the webview's cookies. Frames the tag
/// nests (`frame-src https:`, as ad chains do) run under their own policy, but inherit
/// the sandbox (opaque origin, no popups, no top navigation) and get no invoke key, so
/// they reach the IPC no more than the tag does; what they could send to a loopback
/// service (the embedded sandbox) carries no token either.
pub const LIVE_CSP: &str = "default-src 'none'; \
script-src https: 'unsafe-inline' 'unsafe-eval'; \
style-src https: 'unsafe-inline'; \
img-src https: data: blob:; \
media-src https: data: blob:; \
font-src https: data:; \
connect-src https:; \
frame-src https:; \
form-action 'none'; \
base-uri 'none'; \
frame-ancestors tauri: http://tauri.localhost https://tauri.localhost; \
sandbox allow-scripts";

/// The policy the offline document carries on top of the app's (a `srcdoc` frame
/// inherits the app's, which allows the app's own files): nothing but inline styles and
/// `data:` images.
const OFFLINE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// Width and height in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PreviewSize {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
}

/// The screen DOOH creatives without a size are shown on: the most common one.
const DOOH_SCREEN: PreviewSize = PreviewSize {
    width: 1920,
    height: 1080,
};

/// A box when nothing declares one (a tag with no size yet).
const DEFAULT_BOX: PreviewSize = PreviewSize {
    width: 300,
    height: 250,
};

/// What a preview shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum PreviewContent {
    /// An HTML tag: the offline document for `<iframe sandbox="" srcdoc>`.
    Html {
        /// The tag after a policy that loads nothing (`default-src 'none'`).
        document: String,
    },
    /// An image; shown at once only when it is inside the creative (`data:`).
    Image {
        /// Its URL.
        url: String,
        /// A `data:` URL: nothing to fetch, shown offline.
        inline: bool,
    },
    /// A native card (images only live, unless inline).
    Native {
        /// `native.headline`.
        headline: Option<String>,
        /// `native.caption`.
        caption: Option<String>,
        /// `native.sponsoredBy`.
        sponsored_by: Option<String>,
        /// `native.imageUrl`.
        image: Option<String>,
        /// `native.imageIcon`.
        icon: Option<String>,
    },
    /// Video or audio: the files, played only live.
    Media {
        /// Media file URLs.
        urls: Vec<String>,
        /// `video`, `audio`.
        element: String,
    },
    /// A VAST creative: the inspector's tree, and a player for a chosen `https:` media
    /// file, only live ([`LiveDocs::issue_media`]). Trackers are text, never requested.
    Vast {
        /// Wire path of the field shown (`video.vastXml`, or `video.vastUrl` without XML).
        path: String,
        /// The player: `video`, or `audio` for an audio creative.
        element: String,
        /// The document as the inspector reads it; `None` for a VAST URL without XML (a
        /// preview fetches nothing).
        summary: Option<VastSummary>,
        /// Why the tree is empty, for the buyer; `None` with a summary.
        hint: Option<String>,
    },
    /// Nothing to show yet, and why.
    Empty {
        /// For the buyer.
        reason: String,
    },
}

/// The offline preview of a creative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CreativePreview {
    /// The creative's `size`, when whole.
    pub declared: Option<PreviewSize>,
    /// The box the preview takes: the declared size, else a VAST creative's audio bar or
    /// first https media file's size, else the DOOH screen (DOOH), else a 300×250 box.
    pub frame: PreviewSize,
    /// What it shows.
    pub content: PreviewContent,
    /// What it would load when live, with how; nothing is loaded offline.
    pub resources: Vec<Resource>,
    /// Whether "Render live" has anything to run.
    pub live: bool,
}

fn declared(c: &Creative) -> Option<PreviewSize> {
    let s = c.size.as_ref()?;
    let px = |v: Option<i64>| v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0);
    Some(PreviewSize {
        width: px(s.width)?,
        height: px(s.height)?,
    })
}

fn filled(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The tag a creative carries: `htmlAsset`, else `display.htmlAsset`.
fn tag_of(c: &Creative) -> Option<String> {
    filled(&c.html_asset).or_else(|| c.display.as_ref().and_then(|d| filled(&d.html_asset)))
}

fn resource(url: &str, element: &str, attribute: &str) -> Resource {
    Resource {
        url: url.to_string(),
        element: element.to_string(),
        attribute: attribute.to_string(),
        transport: Transport::of(url),
        line: 0,
    }
}

/// What a creative shows, by the fields it has (a draft may have no type yet): a tag,
/// a native card, a DOOH screen, an image, media files.
fn content_of(c: &Creative) -> (PreviewContent, Vec<Resource>) {
    if let Some(tag) = tag_of(c) {
        let resources = external_resources(&tag);
        return (
            PreviewContent::Html {
                document: offline_document(&tag),
            },
            resources,
        );
    }
    if let Some(n) = &c.native
        && (filled(&n.headline).is_some() || filled(&n.image_url).is_some())
    {
        let image = filled(&n.image_url);
        let icon = filled(&n.image_icon);
        let resources = [(&image, "img", "src"), (&icon, "img", "src")]
            .into_iter()
            .filter_map(|(u, e, a)| u.as_deref().map(|u| resource(u, e, a)))
            .collect();
        return (
            PreviewContent::Native {
                headline: filled(&n.headline),
                caption: filled(&n.caption),
                sponsored_by: filled(&n.sponsored_by),
                image,
                icon,
            },
            resources,
        );
    }
    let image = filled(&c.image_url).or_else(|| c.dooh.as_ref().and_then(|d| filled(&d.image_url)));
    if let Some(url) = image {
        let inline = Transport::of(&url) == Transport::Data;
        let resources = vec![resource(&url, "img", "src")];
        return (PreviewContent::Image { url, inline }, resources);
    }
    let media = [
        c.video.as_ref().and_then(|v| v.media_urls.clone()),
        c.dooh.as_ref().and_then(|d| d.media_urls.clone()),
        c.native.as_ref().and_then(|n| n.media_urls.clone()),
    ]
    .into_iter()
    .flatten()
    .next()
    .map(|urls| (urls, "video"))
    .or_else(|| {
        c.audio
            .as_ref()
            .and_then(|a| a.media_urls.clone())
            .map(|urls| (urls, "audio"))
    });
    if let Some((urls, element)) = media {
        let urls: Vec<String> = urls
            .into_iter()
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .collect();
        if !urls.is_empty() {
            let resources = urls.iter().map(|u| resource(u, element, "src")).collect();
            return (
                PreviewContent::Media {
                    urls,
                    element: element.to_string(),
                },
                resources,
            );
        }
    }
    if let Some(vast) = vast::content(c) {
        return vast;
    }
    (
        PreviewContent::Empty {
            reason: "Nothing to preview yet: add the creative's tag, image or media.".to_string(),
        },
        Vec::new(),
    )
}

/// The offline preview of a creative (a draft or a stored one).
pub fn preview(c: &Creative) -> CreativePreview {
    let declared = declared(c);
    let (content, resources) = content_of(c);
    let frame = declared
        .or_else(|| vast::frame(&content))
        .unwrap_or(if c.dooh.is_some() {
            DOOH_SCREEN
        } else {
            DEFAULT_BOX
        });
    let live = match &content {
        PreviewContent::Empty { .. } => false,
        vast @ PreviewContent::Vast { .. } => vast::first_playable(vast).is_some(),
        _ => true,
    };
    CreativePreview {
        declared,
        frame,
        content,
        resources,
        live,
    }
}

/// Text for an HTML attribute value or element content.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The tag under a policy that loads nothing: for `<iframe sandbox="" srcdoc>`. The
/// meta element comes first, so the parser puts it in the head before the tag's markup.
pub fn offline_document(tag: &str) -> String {
    format!(
        "<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"{OFFLINE_CSP}\"><style>html,body{{margin:0}}</style>{tag}"
    )
}

/// Reports an image's real size to the page once loaded (the page shows it as text).
const MEASURE: &str = "<script>addEventListener('load',function(){var i=document.querySelector('img[data-measure]');if(i&&i.naturalWidth)parent.postMessage({flightdeckPreview:'image',width:i.naturalWidth,height:i.naturalHeight},'*')})</script>";

fn wrap(body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0}}img,video{{display:block;width:100%;height:100%;object-fit:contain}}.card{{font:14px sans-serif;padding:8px}}.card .icon{{width:32px;height:32px}}</style></head><body>{body}</body></html>"
    )
}

/// The document "Render live" runs, or `None` when the creative has nothing to run. A
/// VAST creative has none of its own: it plays a media file ([`media_document`]).
pub fn live_document(c: &Creative) -> Option<String> {
    let (content, _) = content_of(c);
    Some(match content {
        PreviewContent::Html { .. } => wrap(&tag_of(c)?),
        PreviewContent::Image { url, .. } => wrap(&format!(
            "<img data-measure src=\"{}\" alt=\"\">{MEASURE}",
            escape(&url)
        )),
        PreviewContent::Native {
            headline,
            caption,
            sponsored_by,
            image,
            icon,
        } => {
            let opt = |v: &Option<String>, f: &dyn Fn(&str) -> String| {
                v.as_deref().map(f).unwrap_or_default()
            };
            wrap(&format!(
                "<div class=\"card\">{}{}<h3>{}</h3><p>{}</p><small>{}</small></div>{MEASURE}",
                opt(&icon, &|u| format!(
                    "<img class=\"icon\" src=\"{}\" alt=\"\">",
                    escape(u)
                )),
                opt(&image, &|u| format!(
                    "<img data-measure src=\"{}\" alt=\"\">",
                    escape(u)
                )),
                opt(&headline, &|t| escape(t)),
                opt(&caption, &|t| escape(t)),
                opt(&sponsored_by, &|t| format!("Sponsored by {}", escape(t))),
            ))
        }
        PreviewContent::Media { urls, element } => wrap(&format!(
            "<{element} controls src=\"{}\"></{element}>",
            escape(urls.first()?)
        )),
        PreviewContent::Vast { .. } | PreviewContent::Empty { .. } => return None,
    })
}

/// What [`LiveDocs::issue`] serves, with its policy: a VAST creative's first `https:`
/// media file, else the [`live_document`].
fn live_of(c: &Creative) -> Option<(String, &'static str)> {
    let (content, _) = content_of(c);
    if let PreviewContent::Vast { .. } = content {
        let (element, url) = vast::first_playable(&content)?;
        return Some((media_document(element, url), MEDIA_CSP));
    }
    live_document(c).map(|d| (d, LIVE_CSP))
}

/// A live preview's answer on the [`LIVE_SCHEME`] scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveResponse {
    /// HTTP status: 200, or 404 for a token not issued or already used.
    pub status: u16,
    /// `Content-Security-Policy`: [`MEDIA_CSP`] for a media document, else [`LIVE_CSP`].
    pub csp: &'static str,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The document.
    pub body: String,
}

/// A live document waiting for its frame: token, body and policy.
type Issued = (String, String, &'static str);

/// Live documents issued to the page and not fetched yet, by one-use token. The page
/// gets a URL, never a way to name what is served: a token is served once, then gone,
/// and only the newest [`LiveDocs::KEEP`] wait.
#[derive(Debug, Default)]
pub struct LiveDocs {
    docs: Mutex<VecDeque<Issued>>,
}

impl LiveDocs {
    /// Documents waiting at most; older ones are dropped (their frames were replaced).
    pub const KEEP: usize = 16;

    /// None issued yet.
    pub fn new() -> LiveDocs {
        LiveDocs::default()
    }

    /// Builds the live document of `c` and returns its one-use token.
    pub fn issue(&self, c: &Creative) -> Result<String> {
        let (doc, csp) = live_of(c).ok_or(crate::error::State::NothingToPreview)?;
        Ok(self.keep(doc, csp))
    }

    /// Builds the document that plays `url`, one of the `https:` media files of `c`'s
    /// VAST document, and returns its one-use token. Any other URL is refused: the page
    /// chooses among the creative's files, it does not name what the frame loads.
    pub fn issue_media(&self, c: &Creative, url: &str) -> Result<String> {
        let (content, _) = content_of(c);
        let element = vast::playable(&content, url).ok_or(crate::error::State::MediaNotPlayable)?;
        Ok(self.keep(media_document(element, url), MEDIA_CSP))
    }

    fn keep(&self, doc: String, csp: &'static str) -> String {
        let token = format!("{:032x}", rand::random::<u128>());
        let mut docs = self.lock();
        while docs.len() >= Self::KEEP {
            docs.pop_front();
        }
        docs.push_back((token.clone(), doc, csp));
        token
    }

    /// The URL a frame loads for `token`. `http_form`: the `http://<scheme>.localhost/`
    /// form Windows and Android serve custom schemes on.
    pub fn url(token: &str, http_form: bool) -> String {
        if http_form {
            format!("http://{LIVE_SCHEME}.localhost/{token}")
        } else {
            format!("{LIVE_SCHEME}://localhost/{token}")
        }
    }

    /// Answers a request for `path` (the URL's path, `/<token>`): the document once,
    /// then 404; each under its own policy, a 404 under [`LIVE_CSP`].
    pub fn serve(&self, path: &str) -> LiveResponse {
        let token = path.trim_start_matches('/');
        let mut docs = self.lock();
        let found = docs.iter().position(|(t, _, _)| t == token);
        let issued = found.and_then(|i| docs.remove(i));
        let (status, body, csp) = match issued {
            Some((_, doc, csp)) => (200, doc, csp),
            None => (404, String::new(), LIVE_CSP),
        };
        LiveResponse {
            status,
            csp,
            content_type: "text/html; charset=utf-8",
            body,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Issued>> {
        // Pushes and removals only: a panic elsewhere leaves the queue whole.
        self.docs.lock().unwrap_or_else(|e| e.into_inner())
    }
}
