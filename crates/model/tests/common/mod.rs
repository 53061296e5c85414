//! Helpers shared by the validation test files.
#![allow(dead_code)]

pub mod full;

use flightdeck_model::{FieldError, ValidationErrors};
use serde::de::DeserializeOwned;

/// Builds a wire type from JSON, so fixtures also exercise the wire names.
pub fn from_json<T: DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).expect("fixture deserializes")
}

/// The errors of a result; empty when it is `Ok`.
pub fn errors(r: Result<(), ValidationErrors>) -> Vec<FieldError> {
    match r {
        Ok(()) => Vec::new(),
        Err(e) => {
            assert!(!e.0.is_empty(), "Err must carry at least one error");
            e.0
        }
    }
}

/// `(field, code)` pairs of a result, in order.
pub fn pairs(r: Result<(), ValidationErrors>) -> Vec<(String, String)> {
    errors(r).into_iter().map(|e| (e.field, e.code)).collect()
}

/// Asserts the result is `Ok`, printing the errors otherwise.
#[track_caller]
pub fn assert_ok(r: Result<(), ValidationErrors>) {
    if let Err(e) = r {
        panic!("expected Ok, got {e}");
    }
}

/// Asserts the result holds exactly these `(field, code)` pairs, in any order.
#[track_caller]
pub fn assert_exactly(r: Result<(), ValidationErrors>, expected: &[(&str, &str)]) {
    let mut got = pairs(r);
    got.sort();
    let mut want: Vec<(String, String)> = expected
        .iter()
        .map(|(f, c)| ((*f).to_owned(), (*c).to_owned()))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

/// Asserts exactly one error, on `field` with `code`, and returns its message.
#[track_caller]
pub fn assert_one(r: Result<(), ValidationErrors>, field: &str, code: &str) -> String {
    let errs = errors(r);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:?}");
    assert_eq!(errs[0].field, field, "{errs:?}");
    assert_eq!(errs[0].code, code, "{errs:?}");
    errs[0].message.clone()
}

/// Asserts that the result contains an error on `field` with `code`, and returns its message.
#[track_caller]
pub fn assert_has(r: &Result<(), ValidationErrors>, field: &str, code: &str) -> String {
    let errs = r.as_ref().err().map(|e| e.0.clone()).unwrap_or_default();
    errs.iter()
        .find(|e| e.field == field && e.code == code)
        .map(|e| e.message.clone())
        .unwrap_or_else(|| panic!("no {code} on {field} in {errs:?}"))
}
