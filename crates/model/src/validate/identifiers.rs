//! Free-standing identifier formats: client references, audience identifiers, PKCE.

use std::net::Ipv4Addr;

use super::codes;
use crate::{DataType, ValidationErrors};

/// Longest `externalAdvertiserId`, in characters.
pub const EXTERNAL_ADVERTISER_ID_MAX: usize = 128;
/// PKCE bounds from RFC 7636.
pub const CODE_CHALLENGE_MIN: usize = 43;
pub const CODE_CHALLENGE_MAX: usize = 128;
/// Longest cookie id, in characters.
const COOKIE_MAX: usize = 256;

/// Rejected characters named in a message before the rest are summarised.
const SHOWN_MAX: usize = 5;

/// How a rejected character reads in a message; blanks are invisible when quoted.
fn describe(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        '\t' => "a tab".to_owned(),
        '\n' | '\r' => "a line break".to_owned(),
        c => format!("\"{c}\""),
    }
}

/// The distinct characters of `s` that `ok` rejects, described for a message.
fn rejected(s: &str, ok: impl Fn(char) -> bool) -> Vec<String> {
    let mut seen: Vec<char> = Vec::new();
    for c in s.chars().filter(|c| !ok(*c)) {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    let more = seen.len() > SHOWN_MAX;
    let mut out: Vec<String> = seen.into_iter().take(SHOWN_MAX).map(describe).collect();
    if more {
        out.push("others".to_owned());
    }
    out
}

/// `externalAdvertiserId`: at most 128 characters, letters, digits and ASCII punctuation only.
pub fn external_advertiser_id(field: &str, value: &str) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    if value.is_empty() {
        e.push(field, codes::INVALID, "must not be empty when sent");
        return e.into_result();
    }
    let n = value.chars().count();
    if n > EXTERNAL_ADVERTISER_ID_MAX {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be at most {EXTERNAL_ADVERTISER_ID_MAX} characters (got {n})"),
        );
    }
    let bad = rejected(value, |c| {
        c.is_ascii_alphanumeric() || c.is_ascii_punctuation()
    });
    if !bad.is_empty() {
        e.push(
            field,
            codes::INVALID,
            format!(
                "may contain only letters, digits and ASCII punctuation (found {})",
                bad.join(", ")
            ),
        );
    }
    e.into_result()
}

/// Whether one uploaded identifier has the form its segment's `dataType` expects.
pub fn audience_identifier(data_type: &DataType, value: &str) -> bool {
    match data_type {
        DataType::PhonenumberSha256 | DataType::EmailSha256 | DataType::AddressSha256 => {
            value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())
        }
        DataType::Ip => value.parse::<Ipv4Addr>().is_ok(),
        DataType::Cookie => {
            (1..=COOKIE_MAX).contains(&value.chars().count())
                && !value.chars().any(char::is_whitespace)
        }
        DataType::MobileId => is_uuid(value),
        DataType::Other(_) => !value.trim().is_empty(),
    }
}

/// 8-4-4-4-12 hex digits, either case, as advertising ids (IDFA, AAID) are written.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// PKCE `code_challenge`: 43 to 128 characters of the unreserved set.
pub fn code_challenge(value: &str) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    let field = "code_challenge";
    let n = value.chars().count();
    if !(CODE_CHALLENGE_MIN..=CODE_CHALLENGE_MAX).contains(&n) {
        e.push(
            field,
            codes::OUT_OF_RANGE,
            format!("must be {CODE_CHALLENGE_MIN} to {CODE_CHALLENGE_MAX} characters (got {n})"),
        );
    }
    let bad = rejected(value, |c| c.is_ascii_alphanumeric() || "-._~".contains(c));
    if !bad.is_empty() {
        e.push(
            field,
            codes::INVALID,
            format!(
                "may contain only letters, digits and - . _ ~ (found {})",
                bad.join(", ")
            ),
        );
    }
    e.into_result()
}
