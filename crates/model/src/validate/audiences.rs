//! First-party audience segments.

use super::codes;
use super::helpers::{max_chars, positive_id, require, require_str};
use crate::{AudienceSegment, TTL_MAX_SECS, TTL_MIN_SECS, ValidationErrors};

/// Longest `description`, in characters.
const DESCRIPTION_MAX: usize = 1000;

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
