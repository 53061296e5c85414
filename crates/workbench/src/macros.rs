//! VAST URLs checked offline: the scheme and the macros the player or ad server fills
//! in (`[CACHEBUSTING]`, `${GDPR_CONSENT_755}`, `%%CACHEBUSTER%%`).
//!
//! A macro with no closing bracket reaches the ad server as literal text, which
//! usually breaks the request: a warning. A macro nobody here knows may be an ad
//! server's own: an info.

use crate::vast::is_https;
use crate::{Finding, Level};

/// Macros in `[…]` form: the IAB VAST 4.x macro table (IAB Tech Lab, "VAST 4.3",
/// section 6.2, and the pre-4.0 macros still in wide use), plus Campaign Manager
/// 360's `[timestamp]` (matched without regard to case).
pub const BRACKET_MACROS: &[&str] = &[
    "ADCATEGORIES",
    "ADCOUNT",
    "ADPLAYHEAD",
    "ADSERVINGID",
    "ADTYPE",
    "APIFRAMEWORKS",
    "APPBUNDLE",
    "ASSETURI",
    "BLOCKEDADCATEGORIES",
    "BREAKMAXADLENGTH",
    "BREAKMAXADS",
    "BREAKMAXDURATION",
    "BREAKMINADLENGTH",
    "BREAKMINDURATION",
    "BREAKPOSITION",
    "CACHEBUSTING",
    "CACHEBUSTER",
    "CLICKPOS",
    "CLICK_URL",
    "CLIENTUA",
    "CONTENTID",
    "CONTENTPLAYHEAD",
    "CONTENTURI",
    "DEVICEIP",
    "DEVICEUA",
    "DOMAIN",
    "ERRORCODE",
    "EXTENSIONS",
    "GDPR",
    "GDPRCONSENT",
    "GPPSECTIONID",
    "GPPSTRING",
    "IFA",
    "IFATYPE",
    "INVENTORYSTATE",
    "LATLONG",
    "LIMITADTRACKING",
    "MEDIAMIME",
    "MEDIAPLAYHEAD",
    "OMIDPARTNER",
    "PAGEURL",
    "PLACEMENTTYPE",
    "PLAYERCAPABILITIES",
    "PLAYERSIZE",
    "PLAYERSTATE",
    "PODSEQUENCE",
    "REASON",
    "REGULATIONS",
    "SERVERSIDE",
    "SERVERUA",
    "TIMESTAMP",
    "TRANSACTIONID",
    "UNIVERSALADID",
    "USPRIVACY",
    "VASTVERSIONS",
    "VERIFICATIONVENDORS",
];

/// Macros in `${…}` form: OpenRTB and Display & Video 360 (`${CLICK_URL}`, the
/// auction macros of OpenRTB 2.6 §4.4, the privacy strings). A name ending in `_` is a
/// prefix (`${GDPR_CONSENT_755}`).
pub const DOLLAR_MACROS: &[&str] = &[
    "AUCTION_AD_ID",
    "AUCTION_BID_ID",
    "AUCTION_CURRENCY",
    "AUCTION_ID",
    "AUCTION_IMP_ID",
    "AUCTION_LOSS",
    "AUCTION_MBR",
    "AUCTION_MIN_TO_WIN",
    "AUCTION_PRICE",
    "AUCTION_SEAT_ID",
    "CACHEBUSTER",
    "CLICK_URL",
    "CLICK_URL_ENC",
    "CREATIVE_ID",
    "GDPR",
    "GDPR_CONSENT_",
    "GPP_SID",
    "GPP_STRING",
    "GPP_STRING_",
    "SOURCE_URL",
    "SOURCE_URL_ENC",
    "US_PRIVACY",
];

/// Macros in `%%…%%` form: Google Ad Manager's (its "Macros" help page). A name
/// ending in `:` is a prefix (`%%PATTERN:key%%`).
pub const PERCENT_MACROS: &[&str] = &[
    "ADUNIT",
    "ADVERTISER_ID",
    "ADVERTISING_IDENTIFIER_IS_LAT",
    "ADVERTISING_IDENTIFIER_PLAIN",
    "ADVERTISING_IDENTIFIER_TYPE",
    "CACHEBUSTER",
    "CLICK_URL_ESC",
    "CLICK_URL_ESC_ESC",
    "CLICK_URL_UNESC",
    "CREATIVE_ID",
    "DEST_URL",
    "DEST_URL_ESC",
    "DEST_URL_ESC_ESC",
    "ECID",
    "HEIGHT",
    "LINE_ITEM_ID",
    "ORDER_ID",
    "PATTERN:",
    "SITE",
    "TAG_ORIGIN",
    "TIME",
    "VIEW_URL_ESC",
    "VIEW_URL_UNESC",
    "WIDTH",
];

/// One macro found in a URL: its form, name and byte offset, or where a bracket was
/// left open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MacroToken<'a> {
    /// A closed macro: its opening (`[`, `${` or `%%`), the name inside and its offset.
    Macro {
        /// `[`, `${` or `%%`.
        open: &'static str,
        /// The text between the brackets.
        name: &'a str,
        /// Byte offset of the opening bracket.
        at: usize,
    },
    /// An opening with no closing, or a closing with no opening, at this byte offset.
    Unbalanced {
        /// The bracket that has no partner.
        bracket: &'static str,
        /// Byte offset of that bracket.
        at: usize,
    },
}

/// The macros of `url`, left to right. A `[…]` or `%%…%%` holding characters no macro
/// name has (spaces, quotes, `/`) is not a macro; query arrays such as `a[]=1` stay
/// plain text.
pub fn scan_macros(url: &str) -> Vec<MacroToken<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(rest) = url.get(i..) {
        let Some(off) = rest.find(['[', ']', '$', '%']) else {
            break;
        };
        let at = i + off;
        let tail = &rest[off..];
        if let Some(inner) = tail.strip_prefix("${") {
            match inner.find('}') {
                Some(end) => {
                    let name = &inner[..end];
                    out.push(MacroToken::Macro {
                        open: "${",
                        name,
                        at,
                    });
                    i = at + 2 + end + 1;
                }
                None => {
                    out.push(MacroToken::Unbalanced { bracket: "${", at });
                    break;
                }
            }
        } else if let Some(inner) = tail.strip_prefix("%%") {
            match inner.find("%%") {
                Some(end) if is_macro_name(&inner[..end]) => {
                    out.push(MacroToken::Macro {
                        open: "%%",
                        name: &inner[..end],
                        at,
                    });
                    i = at + 2 + end + 2;
                }
                Some(_) => i = at + 2,
                None => {
                    out.push(MacroToken::Unbalanced { bracket: "%%", at });
                    break;
                }
            }
        } else if let Some(inner) = tail.strip_prefix('[') {
            let end = inner.find([']', '[']);
            match end.map(|e| (e, inner.as_bytes().get(e))) {
                Some((e, Some(b']'))) => {
                    let name = &inner[..e];
                    if is_macro_name(name) {
                        out.push(MacroToken::Macro {
                            open: "[",
                            name,
                            at,
                        });
                    }
                    i = at + 1 + e + 1;
                }
                _ => {
                    out.push(MacroToken::Unbalanced { bracket: "[", at });
                    i = at + 1;
                }
            }
        } else if tail.starts_with(']') {
            out.push(MacroToken::Unbalanced { bracket: "]", at });
            i = at + 1;
        } else {
            i = at + 1;
        }
    }
    out
}

/// Letters, digits, `_`, `.`, `:` and `-`, starting with a letter or `_`.
fn is_macro_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// Whether `name` is a macro known in its form.
pub fn is_known_macro(open: &str, name: &str) -> bool {
    let list = match open {
        "[" => BRACKET_MACROS,
        "${" => DOLLAR_MACROS,
        "%%" => PERCENT_MACROS,
        _ => return false,
    };
    list.iter().any(|known| {
        if known.ends_with(['_', ':']) {
            name.get(..known.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(known))
        } else {
            name.eq_ignore_ascii_case(known)
        }
    })
}

fn closing(open: &str) -> &'static str {
    match open {
        "${" => "}",
        "%%" => "%%",
        _ => "]",
    }
}

/// The checks on one VAST URL at `path`: `http://` (a warning: players on https pages
/// block it) and its macros. Other schemes and blanks are the model's errors.
pub fn check_vast_url(path: &str, url: &str, out: &mut Vec<Finding>) {
    let url = url.trim();
    if url.is_empty() {
        return;
    }
    if url
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
        && !is_https(url)
    {
        out.push(Finding::new(
            "vast-url.http",
            Level::Warning,
            path,
            None,
            "the VAST URL is http://: players on https pages block it; use https://",
        ));
    }
    for token in scan_macros(url) {
        match token {
            MacroToken::Unbalanced { bracket, at } => out.push(Finding::new(
                "vast-url.macro-unbalanced",
                Level::Warning,
                path,
                None,
                format!(
                    "the macro bracket {bracket} at character {} has no partner: the ad \
                     server receives it as literal text",
                    url[..at].chars().count() + 1
                ),
            )),
            MacroToken::Macro { open, name, .. } if !is_known_macro(open, name) => {
                out.push(Finding::new(
                    "vast-url.macro-unknown",
                    Level::Info,
                    path,
                    None,
                    format!(
                        "{open}{name}{} is not a macro the IAB, OpenRTB or Google list; \
                         check the ad server fills it in",
                        closing(open)
                    ),
                ));
            }
            MacroToken::Macro { .. } => {}
        }
    }
}
