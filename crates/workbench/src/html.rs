//! HTML tags (`htmlAsset`, `display.htmlAsset`), read with html5ever's tokenizer.
//!
//! Why html5ever: its tokenizer is the WHATWG one (scripts, comments and raw text read
//! as a browser reads them, so a `<script src=…/>` that swallows the rest of the tag is
//! seen as the browser sees it), it reports the line of every token, and it is already
//! in the workspace through Tauri (27 crates, none new). `tl` gives no lines and reads
//! scripts loosely; `lol_html` is a rewriter built on `cssparser` and `selectors`, more
//! than a read-only pass needs. Only the tokenizer runs: no tree is built, so a tag
//! costs one pass.
//!
//! What is found, per tag:
//! - `tag.http-resource`: an element that loads a resource over `http://`, one finding
//!   per attribute (`script`, `img`, `iframe`, `frame`, `embed`, `source`, `video`,
//!   `audio`, `track`, `input type=image` `src`; `img`/`source` `srcset`; `video`
//!   `poster`; `object` `data`; SVG `image`/`use`/`feImage` `href` and `xlink:href`;
//!   `body`/`table`/`td`/`th` `background`; `link` `href` for stylesheets, icons,
//!   manifests and preloads). The list is [`crate::resources`]'s, read in this same
//!   pass: the preview's [`external_resources`](crate::external_resources) answers the
//!   resources this pass collects, so the check and the preview never disagree;
//! - `tag.no-click-macro`: no click macro (`%%CLICK_URL_UNESC%%`, `%%CLICK_URL_ESC%%`,
//!   `${CLICK_URL}`, `[CLICK_URL]`) and no `clickTag` anywhere in attributes or text
//!   (comments aside), so clicks are not counted;
//! - `tag.size-mismatch`: the `ad.size` meta tag, or else the first `iframe`, `img`,
//!   `div`, `ins` or `canvas` with an explicit width and height in pixels (attributes or
//!   inline style; 0 and 1 pixel elements, tracking pixels, are passed over), differs
//!   from the creative's `size`; `tag.ad-size-unreadable` when the meta tag's content
//!   is not `width=W,height=H`;
//! - `tag.document-write`: `document.write` or `document.writeln` in an inline script
//!   or an iframe's `srcdoc`. Ad servers that render tags asynchronously, in a
//!   SafeFrame or in a `srcdoc` frame ignore or break it. The script text is searched
//!   for the token; that a write targets a frame cannot be known without running it;
//! - `tag.unclosed-script`: a `<script>` never closed, which turns the rest of the tag
//!   into script text (a self-closing `<script/>` does not close in HTML);
//! - `tag.weight`: the tag's size in bytes, an info, and a warning past
//!   [`TAG_WEIGHT_WARNING`].
//!
//! A finding on an element is placed at the line where its start tag ends (the
//! tokenizer reports a tag when it reads its `>`); for a tag on one line, its line.
//!
//! The tokenizer is switched into the raw states a tree builder would use (script data,
//! raw text, RCDATA, plaintext), so `<img>` inside a script's string or a `<textarea>`
//! is text, as a browser reads it.

use std::cell::RefCell;

use flightdeck_model::Size;
use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
};

use crate::lines::line_in;
use crate::resources::{Resource, Transport, tag_resources};
use crate::{Finding, Level};

/// Bytes past which a tag's weight is a warning: 150 KB, the IAB's initial-load budget
/// for a 300×250 unit (and Google Web Designer's limit for Google Ads). A third-party
/// tag is a loader of a few KB; markup this heavy is a whole creative pasted inline,
/// and it alone spends the budget before any image loads.
pub const TAG_WEIGHT_WARNING: usize = 150 * 1024;

/// Click macros of the ad servers, as written in a tag; `clickTag` is matched apart,
/// in any case.
pub const CLICK_MACROS: &[&str] = &[
    "%%CLICK_URL_UNESC%%",
    "%%CLICK_URL_ESC%%",
    "%%CLICK_URL_ESC_ESC%%",
    "${CLICK_URL}",
    "${CLICK_URL_ENC}",
    "[CLICK_URL]",
    "{{CLICK_URL}}",
];

/// Elements whose width and height give the tag's size, outermost first in the tag.
const SIZED: &[&str] = &["iframe", "img", "div", "ins", "canvas"];

/// The checks on one tag at `path`, against the creative's `size`.
pub fn check_tag(path: &str, tag: &str, size: Option<&Size>, out: &mut Vec<Finding>) {
    if tag.trim().is_empty() {
        return;
    }
    let scan = scan(tag);
    for &i in &scan.http {
        let Resource {
            element,
            attribute,
            line,
            ..
        } = &scan.resources[i];
        out.push(Finding::new(
            "tag.http-resource",
            Level::Warning,
            path,
            Some(*line),
            format!(
                "<{element} {attribute}> loads over http://: exchanges reject creatives \
                 with non-SSL calls, and https pages block it; use https://"
            ),
        ));
    }
    if !scan.click {
        out.push(Finding::new(
            "tag.no-click-macro",
            Level::Warning,
            path,
            None,
            "no click macro (%%CLICK_URL_UNESC%%, ${CLICK_URL}, [CLICK_URL]) or clickTag: \
             clicks will not be counted",
        ));
    }
    size_checks(path, &scan, size, out);
    for line in &scan.document_write {
        out.push(Finding::new(
            "tag.document-write",
            Level::Warning,
            path,
            Some(*line),
            "document.write in an inline script: ad servers that load tags asynchronously \
             or in a frame (SafeFrame, srcdoc) ignore it or blank the page",
        ));
    }
    if let Some(line) = scan.unclosed_script {
        out.push(Finding::new(
            "tag.unclosed-script",
            Level::Warning,
            path,
            Some(line),
            "<script> opened here is never closed: the rest of the tag is read as script \
             and nothing renders",
        ));
    }
    let bytes = tag.len();
    let kb = bytes.div_ceil(1024);
    if bytes > TAG_WEIGHT_WARNING {
        out.push(Finding::new(
            "tag.weight",
            Level::Warning,
            path,
            None,
            format!(
                "the tag weighs {kb} KB, past the {} KB the IAB allows a unit's first load",
                TAG_WEIGHT_WARNING / 1024
            ),
        ));
    } else {
        out.push(Finding::new(
            "tag.weight",
            Level::Info,
            path,
            None,
            format!("the tag weighs {kb} KB ({bytes} bytes)"),
        ));
    }
}

fn size_checks(path: &str, scan: &Scan, size: Option<&Size>, out: &mut Vec<Finding>) {
    let declared = size.and_then(|s| Some((s.width?, s.height?)));
    if let Some((line, content)) = &scan.ad_size {
        match parse_ad_size(content) {
            None => out.push(Finding::new(
                "tag.ad-size-unreadable",
                Level::Info,
                path,
                Some(*line),
                format!("the ad.size meta tag reads \"{content}\", not width=W,height=H"),
            )),
            Some((w, h)) => {
                if let Some((dw, dh)) = declared.filter(|&d| d != (w, h)) {
                    out.push(Finding::new(
                        "tag.size-mismatch",
                        Level::Warning,
                        path,
                        Some(*line),
                        format!(
                            "the ad.size meta tag says {w}×{h} but size is {dw}×{dh}: \
                             reviews reject a creative that does not match its size"
                        ),
                    ));
                }
            }
        }
        return;
    }
    if let (Some((line, element, w, h)), Some((dw, dh))) = (&scan.sized, declared)
        && (*w, *h) != (dw, dh)
    {
        out.push(Finding::new(
            "tag.size-mismatch",
            Level::Warning,
            path,
            Some(*line),
            format!(
                "the tag's <{element}> is {w}×{h} but size is {dw}×{dh}: reviews \
                 reject a creative that does not match its size"
            ),
        ));
    }
}

/// `width=300,height=250` (spaces and `;` tolerated, either order).
fn parse_ad_size(content: &str) -> Option<(i64, i64)> {
    let (mut w, mut h) = (None, None);
    for part in content.split([',', ';']) {
        let (k, v) = part.split_once('=')?;
        let v: i64 = v.trim().parse().ok()?;
        match k.trim().to_ascii_lowercase().as_str() {
            "width" => w = Some(v),
            "height" => h = Some(v),
            _ => {}
        }
    }
    Some((w?, h?))
}

/// What one pass over a tag saw.
#[derive(Default)]
pub(crate) struct Scan {
    /// Everything the tag would load, in order ([`crate::resources`]).
    pub(crate) resources: Vec<Resource>,
    /// Indexes in `resources` of the first `http://` resource of each element's
    /// attribute: one finding for a `srcset` however many of its candidates are http.
    http: Vec<usize>,
    click: bool,
    /// Line and content of the `ad.size` meta tag.
    ad_size: Option<(u32, String)>,
    /// Line, element, width and height of the first sized element.
    sized: Option<(u32, String, i64, i64)>,
    document_write: Vec<u32>,
    unclosed_script: Option<u32>,
    /// The open script: its start line and text so far.
    script: Option<(u32, String)>,
}

struct Sink(RefCell<Scan>);

/// One tokenizer pass over `tag`: what the checks and [`crate::external_resources`] read.
pub(crate) fn scan(tag: &str) -> Scan {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(tag));
    let tokenizer = Tokenizer::new(Sink(RefCell::new(Scan::default())), Default::default());
    while let TokenizerResult::Script(()) = tokenizer.feed(&input) {}
    tokenizer.end();
    tokenizer.sink.0.into_inner()
}

fn line(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<()> {
        let mut s = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => return s.tag(&tag, line(line_number)),
            Token::CharacterTokens(text) => {
                if !s.click && has_click(&text) {
                    s.click = true;
                }
                if let Some((_, script)) = &mut s.script {
                    script.push_str(&text);
                }
            }
            Token::EOFToken => {
                if let Some((start, text)) = s.script.take() {
                    s.script_done(start, &text);
                    s.unclosed_script = Some(start);
                }
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

impl Scan {
    fn tag(&mut self, tag: &Tag, line: u32) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if tag.kind == TagKind::EndTag {
            if name == "script"
                && let Some((start, text)) = self.script.take()
            {
                self.script_done(start, &text);
            }
            return TokenSinkResult::Continue;
        }
        let get = |n: &str| -> Option<&str> {
            tag.attrs
                .iter()
                .find(|a| &*a.name.local == n)
                .map(|a| &*a.value)
        };
        if !self.click && tag.attrs.iter().any(|a| has_click(&a.value)) {
            self.click = true;
        }
        let first = self.resources.len();
        tag_resources(tag, name, line, &mut self.resources);
        for i in first..self.resources.len() {
            let r = &self.resources[i];
            let seen = self
                .http
                .last()
                .is_some_and(|&j| j >= first && self.resources[j].attribute == r.attribute);
            if r.transport == Transport::Http && !seen {
                self.http.push(i);
            }
        }
        let is_ad_size = |n: &str| n.trim().eq_ignore_ascii_case("ad.size");
        if name == "meta" && self.ad_size.is_none() && get("name").is_some_and(is_ad_size) {
            self.ad_size = Some((line, get("content").unwrap_or_default().to_owned()));
        }
        if name == "iframe" && get("srcdoc").is_some_and(|d| d.contains("document.write")) {
            self.document_write.push(line);
        }
        if self.sized.is_none()
            && SIZED.contains(&name)
            && let Some((w, h)) = element_size(get("width"), get("height"), get("style"))
            && w > 1
            && h > 1
        {
            self.sized = Some((line, name.to_owned(), w, h));
        }
        match name {
            "script" => {
                self.script = Some((line, String::new()));
                TokenSinkResult::RawData(RawKind::ScriptData)
            }
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }

    /// An inline script has ended (or the tag has): look for `document.write` in it.
    fn script_done(&mut self, start: u32, text: &str) {
        // The text came in runs that may split a token; look again at the whole.
        if !self.click && has_click(text) {
            self.click = true;
        }
        if let Some(at) = text.find("document.write") {
            self.document_write.push(line_in(start, text, at));
        }
    }
}

fn has_click(text: &str) -> bool {
    CLICK_MACROS.iter().any(|m| text.contains(m)) || contains_ignore_case(text, "clicktag")
}

/// Whether `hay` holds `needle` (ASCII, lower case) in any case.
fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Width and height in pixels from the attributes (`300`, `300px`) or, failing them,
/// the inline style (`width: 300px`). Percentages and other units give nothing.
fn element_size(
    width: Option<&str>,
    height: Option<&str>,
    style: Option<&str>,
) -> Option<(i64, i64)> {
    let mut w = width.and_then(px);
    let mut h = height.and_then(px);
    if let Some(style) = style {
        for decl in style.split(';') {
            let Some((k, v)) = decl.split_once(':') else {
                continue;
            };
            match k.trim().to_ascii_lowercase().as_str() {
                "width" if w.is_none() => w = px(v),
                "height" if h.is_none() => h = px(v),
                _ => {}
            }
        }
    }
    Some((w?, h?))
}

fn px(v: &str) -> Option<i64> {
    let v = v.trim();
    let v = v.strip_suffix("px").unwrap_or(v).trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) || v.len() > 6 {
        return None;
    }
    v.parse().ok()
}
