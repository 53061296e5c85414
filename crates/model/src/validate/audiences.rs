//! First-party audience segments.

use super::audience_identifier;
use super::codes;
use super::helpers::{known, max_chars, positive_id, require, require_str};
use crate::{
    AudienceDataRecord, AudienceSegment, DataType, TTL_MAX_SECS, TTL_MIN_SECS, ValidationErrors,
};

/// Longest `description`, in characters.
pub const DESCRIPTION_MAX: usize = 1000;

/// Value errors named per record before the rest are summed up, so one bad file cannot
/// make a message of megabytes.
const VALUE_ERRORS_SHOWN: usize = 5;

/// A data upload for the segment `segment_id` of `data_type` (`None` when the segment's
/// type is one this crate does not know: then values are not checked). Errors are on
/// `[i].serviceSegmentId`, `[i].countryCode`, `[i].values` and `[i].values[j]`; a record
/// with any error is a bad record, and one bad record refuses the whole payload, as the
/// service does.
pub fn audience_data(
    segment_id: &str,
    data_type: Option<&DataType>,
    records: &[AudienceDataRecord],
) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    if records.is_empty() {
        e.push(
            "values",
            codes::REQUIRED,
            "is required: add at least one identifier",
        );
    }
    for (i, r) in records.iter().enumerate() {
        if r.service_segment_id != segment_id {
            e.push(
                format!("[{i}].serviceSegmentId"),
                codes::INVALID,
                format!(
                    "must be the segment of the upload, {segment_id} (got \"{}\")",
                    r.service_segment_id
                ),
            );
        }
        if !is_country_code(&r.country_code) {
            e.push(
                format!("[{i}].countryCode"),
                codes::INVALID,
                format!(
                    "must be a two-letter ISO 3166 country code such as US (got \"{}\")",
                    r.country_code
                ),
            );
        }
        if r.values.is_empty() {
            e.push(
                format!("[{i}].values"),
                codes::REQUIRED,
                "is required: add at least one identifier",
            );
        }
        let Some(data_type) = data_type.filter(|t| t.is_known()) else {
            continue;
        };
        let bad: Vec<usize> = r
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| !audience_identifier(data_type, v))
            .map(|(j, _)| j)
            .collect();
        for j in bad.iter().take(VALUE_ERRORS_SHOWN) {
            e.push(
                format!("[{i}].values[{j}]"),
                codes::INVALID,
                format!("is not a valid {}", identifier_kind(data_type)),
            );
        }
        if bad.len() > VALUE_ERRORS_SHOWN {
            e.push(
                format!("[{i}].values"),
                codes::INVALID,
                format!(
                    "{} more values are not valid {} identifiers",
                    bad.len() - VALUE_ERRORS_SHOWN,
                    data_type
                ),
            );
        }
    }
    e.into_result()
}

/// How many records of an upload the errors of [`audience_data`] make bad.
pub fn bad_records(errors: &ValidationErrors) -> usize {
    let mut seen: Vec<&str> = errors
        .0
        .iter()
        .filter_map(|f| f.field.strip_prefix('[')?.split(']').next())
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// ISO 3166-1 alpha-2 shape: two upper-case ASCII letters.
fn is_country_code(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase())
}

fn identifier_kind(t: &DataType) -> &'static str {
    match t {
        DataType::PhonenumberSha256 | DataType::EmailSha256 | DataType::AddressSha256 => {
            "SHA-256 hash (64 hexadecimal characters)"
        }
        DataType::Ip => "IPv4 address",
        DataType::Cookie => "cookie id",
        DataType::MobileId => "mobile advertising id (a UUID)",
        DataType::Other(_) => "identifier",
    }
}

/// Audience-segment create body.
pub fn audience_segment(a: &AudienceSegment) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    require_str(&mut e, "name", a.name.as_ref());
    require(&mut e, "accountId", a.account_id.as_ref());
    match &a.advertiser_ids {
        None => e.push("advertiserIds", codes::REQUIRED, "is required"),
        Some(ids) if ids.is_empty() => e.push(
            "advertiserIds",
            codes::REQUIRED,
            "is required: list at least one advertiser",
        ),
        Some(ids) => {
            for (i, id) in ids.iter().enumerate() {
                positive_id(&mut e, &format!("advertiserIds[{i}]"), *id);
            }
        }
    }
    require_str(
        &mut e,
        "externalAudienceId",
        a.external_audience_id.as_ref(),
    );
    let data_type = require(&mut e, "dataType", a.data_type.as_ref());
    known(&mut e, "dataType", data_type);
    if let Some(ttl) = a.ttl
        && !(TTL_MIN_SECS..=TTL_MAX_SECS).contains(&ttl)
    {
        e.push(
                "ttl",
                codes::OUT_OF_RANGE,
                format!(
                    "must be between {TTL_MIN_SECS} and {TTL_MAX_SECS} seconds (2 to about 370 days; got {ttl})"
                ),
            );
    }
    if let Some(d) = &a.description {
        max_chars(&mut e, "description", d, DESCRIPTION_MAX);
    }
    e.into_result()
}
