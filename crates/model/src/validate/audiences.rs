//! First-party audience segments.

use super::codes;
use super::helpers::{max_chars, positive_id, require, require_str};
use crate::{AudienceData, AudienceSegment, TTL_MAX_SECS, TTL_MIN_SECS, ValidationErrors};

/// Longest `description`, in characters.
const DESCRIPTION_MAX: usize = 1000;

/// Most identifiers one upload may carry; larger sets are split by the caller.
pub const AUDIENCE_UPLOAD_MAX: usize = 100_000;

/// A data upload: at least one identifier, at most [`AUDIENCE_UPLOAD_MAX`]. Whether each
/// identifier fits the segment is [`super::audience_identifier`]'s job (malformed ones are
/// counted as rejected, not refused).
pub fn audience_data(d: &AudienceData) -> Result<(), ValidationErrors> {
    let mut e = ValidationErrors::default();
    let n = d.identifiers.len();
    if n == 0 {
        e.push(
            "identifiers",
            codes::REQUIRED,
            "is required: add at least one identifier",
        );
    } else if n > AUDIENCE_UPLOAD_MAX {
        e.push(
            "identifiers",
            codes::OUT_OF_RANGE,
            format!(
                "must hold at most {AUDIENCE_UPLOAD_MAX} identifiers per upload (got {n}); split it"
            ),
        );
    }
    e.into_result()
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
    require(&mut e, "dataType", a.data_type.as_ref());
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
