//! Request-body parsing that answers in the service's own error shape and names the
//! field at fault, instead of axum's plain-text rejections.
//!
//! - JSON endpoints read only `application/json` (any `application/*+json` too): other
//!   content types are 415. A browser can post a form or `text/plain` to any origin
//!   without asking first, but must ask (CORS preflight) before it sends JSON, and the
//!   sandbox never says yes; so no web page can make the sandbox act on a buyer's behalf.
//! - A number with a zero fraction (`1.0`) reads as the integer it is, as JSON Schema
//!   counts it, so it is accepted wherever a whole number is expected.
//! - Decoding errors are worded for a person: no Rust type names (`i64`, `struct
//!   FrequencyCap`, `untagged enum Raw`).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::HeaderMap;
use axum::http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

use crate::AppState;
use crate::error::Error;

/// A JSON body kept as a value, so updates can tell absent from null and unknown fields survive.
pub struct JsonBody(pub Value);

impl FromRequest<AppState> for JsonBody {
    type Rejection = Error;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        require_json(req.headers())?;
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| Error::Malformed(format!("body: {e}")))?;
        if bytes.is_empty() {
            return Err(Error::Malformed("body: a JSON body is required".into()));
        }
        parse_json(&bytes).map(JsonBody)
    }
}

/// Parses a JSON document, with integral numbers made integers ([`whole_numbers`]).
pub fn parse_json(bytes: &[u8]) -> Result<Value, Error> {
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::Malformed(format!("body: not valid JSON ({})", wording(&e))))?;
    whole_numbers(&mut value);
    Ok(value)
}

/// 415 unless `Content-Type` is JSON: `application/json` or `application/*+json`, any
/// parameters (`charset=utf-8`) allowed.
pub fn require_json(headers: &HeaderMap) -> Result<(), Error> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Err(Error::UnsupportedMediaType(
            "Content-Type: the body must be sent as application/json".into(),
        ));
    };
    let essence = value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let json = essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json") && sub.len() > "+json".len());
    if json {
        return Ok(());
    }
    let shown = shown(&String::from_utf8_lossy(value.as_bytes()));
    Err(Error::UnsupportedMediaType(format!(
        "Content-Type: the body must be sent as application/json (got \"{shown}\")"
    )))
}

/// The caller's text as a message repeats it: its first 100 characters only, so an
/// answer never echoes a whole header or body back.
pub(crate) fn shown(text: &str) -> String {
    text.chars().take(100).collect()
}

/// Rewrites every number with a zero fraction (`1.0`, `-3e2`) as an integer, where it
/// fits exactly: JSON Schema's `integer` admits them, and serde's integers do not.
/// Fields that take fractions read an integer as the same number.
pub fn whole_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(int) = n.as_f64().and_then(flightdeck_model::serde_util::whole) {
                *n = Number::from(int);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// Converts a JSON value into a wire type, naming the field that does not fit.
pub fn typed<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    typed_at(value, "")
}

/// As [`typed`], with `prefix` (such as `[2]`) put before the path.
pub fn typed_at<T: DeserializeOwned>(value: &Value, prefix: &str) -> Result<T, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let field = format!("{prefix}{path}");
        let field = if field.is_empty() {
            "body".to_owned()
        } else {
            field
        };
        Error::Malformed(format!("{field}: {}", wording(&e.into_inner())))
    })
}

/// A decoding error as a buyer reads it: JSON's names for types (a whole number, an
/// object, an array) instead of Rust's (`i64`, `struct FrequencyCap`, `a sequence`).
pub fn wording(e: &impl std::fmt::Display) -> String {
    let text = e.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while !rest.is_empty() {
        if let Some((replacement, len)) = rust_term(rest) {
            out.push_str(replacement);
            rest = &rest[len..];
            continue;
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// The Rust term `text` starts with, as the person-facing words and the term's length.
fn rust_term(text: &str) -> Option<(&'static str, usize)> {
    const WORDS: &[(&str, &str)] = &[
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected i16", "expected a whole number"),
        ("expected i8", "expected a whole number"),
        ("expected u64", "expected a whole number of at least 0"),
        ("expected u32", "expected a whole number of at least 0"),
        ("expected u16", "expected a whole number of at least 0"),
        ("expected u8", "expected a whole number of at least 0"),
        ("expected usize", "expected a whole number of at least 0"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
        ("expected option", "expected a value or null"),
        ("invalid type: map", "invalid type: object"),
        ("invalid type: sequence", "invalid type: array"),
        ("invalid type: unit value", "invalid type: null"),
        ("invalid type: floating point", "invalid type: number"),
        ("invalid value: floating point", "invalid value: number"),
        ("invalid type: integer", "invalid type: number"),
        ("invalid value: integer", "invalid value: number"),
    ];
    for (rust, words) in WORDS {
        if text.starts_with(rust) && !continues_word(&text[rust.len()..]) {
            return Some((words, rust.len()));
        }
    }
    // `expected struct Name`, `untagged enum Name`, `expected enum Name`: the name is ours.
    for (prefix, words) in [
        ("expected struct ", "expected an object"),
        ("expected enum ", "expected a value of the right type"),
        (
            "data did not match any variant of untagged enum ",
            "the value has the wrong type",
        ),
    ] {
        if let Some(after) = text.strip_prefix(prefix) {
            let name = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if name > 0 {
                return Some((words, prefix.len() + name));
            }
        }
    }
    None
}

fn continues_word(rest: &str) -> bool {
    rest.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The body as a JSON object, or a 400 saying what was expected.
pub fn object(value: Value) -> Result<serde_json::Map<String, Value>, Error> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(Error::Malformed("body: expected a JSON object".into())),
    }
}

/// The body as a JSON array, or a 400 saying what was expected.
pub fn array(value: Value) -> Result<Vec<Value>, Error> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(Error::Malformed("body: expected a JSON array".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_numbers_become_integers() {
        let mut v = serde_json::json!({"id": 1.0, "a": [2.0, 2.5, -3e2], "big": 1e300});
        whole_numbers(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"id": 1, "a": [2, 2.5, -300], "big": 1e300})
        );
        assert!(v["id"].is_i64() && v["a"][2].is_i64() && v["big"].is_f64());
    }

    #[test]
    fn rust_type_names_are_reworded() {
        for (rust, words) in [
            (
                "invalid type: floating point `1.5`, expected i64",
                "invalid type: number `1.5`, expected a whole number",
            ),
            (
                "invalid type: string \"x\", expected struct FrequencyCap",
                "invalid type: string \"x\", expected an object",
            ),
            (
                "data did not match any variant of untagged enum Raw",
                "the value has the wrong type",
            ),
            (
                "invalid type: string \"x\", expected f64",
                "invalid type: string \"x\", expected a number",
            ),
            ("expected i64x", "expected i64x"),
        ] {
            assert_eq!(wording(&rust), words);
        }
    }
}
