//! First-party audience segments.

use serde::{Deserialize, Serialize};

use crate::common::{Extra, Id};
use crate::serde_util;

/// Smallest `ttl` in seconds (two days).
pub const TTL_MIN_SECS: i64 = 172_800;
/// Largest `ttl` in seconds, also the default (about a year).
pub const TTL_MAX_SECS: i64 = 32_000_000;
/// Matched identifiers at which a segment turns `ACTIVE`.
pub const ACTIVATION_THRESHOLD: i64 = 1000;

/// A first-party audience segment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AudienceSegment {
    /// Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub description: Option<String>,
    /// Kind of identifiers the segment holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<DataType>,
    /// Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<Id>,
    /// Advertisers sharing the audience. Required on create. Accepts a single number too.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_util::one_or_many"
    )]
    #[cfg_attr(feature = "specta", specta(type = Option<Vec<Id>>))]
    pub advertiser_ids: Option<Vec<Id>>,
    /// Custom reference id. Required on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_audience_id: Option<String>,
    /// Assigned by the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_segment_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub status: Option<SegmentStatus>,
    /// Lifetime in seconds, from [`TTL_MIN_SECS`] to [`TTL_MAX_SECS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<i64>,
    /// Identifiers matched so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_count: Option<i64>,
    /// Fields this crate does not name, kept for round trips.
    #[serde(flatten)]
    #[cfg_attr(feature = "specta", specta(skip))]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: Extra,
}

/// Kind of identifiers in a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    /// SHA-256 of a normalised phone number.
    PhonenumberSha256,
    /// SHA-256 of a normalised e-mail address.
    EmailSha256,
    /// SHA-256 of a normalised postal address.
    AddressSha256,
    /// Unhashed IPv4 address.
    Ip,
    /// The service's cookie ids.
    Cookie,
    /// Mobile advertising ids.
    MobileId,
}

/// Segment status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum SegmentStatus {
    /// Below the activation threshold.
    Inactive,
    /// Usable for targeting.
    Active,
    /// Expired by its ttl; takes no more data.
    Archived,
}

/// `GET /v1/audiences` response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceList {
    /// This page of segments.
    pub audiences: Vec<AudienceSegment>,
    /// Which page this is.
    pub pagination: Pagination,
}

/// Page position of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// 1-based page number.
    pub page: i64,
    /// Items per page.
    pub page_size: i64,
}

/// `POST /v1/audiences/{serviceSegmentId}/data` body: identifiers of the segment's `dataType`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceData {
    /// The identifiers to add.
    pub identifiers: Vec<String>,
}

/// Answer to a data upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AudienceDataResult {
    /// The segment.
    pub service_segment_id: String,
    /// Identifiers accepted from this upload.
    pub accepted: i64,
    /// Identifiers rejected as malformed for the segment's data type.
    pub rejected: i64,
    /// Distinct identifiers the segment now holds.
    pub data_count: i64,
    /// Status after the upload.
    pub status: SegmentStatus,
}

/// `{error}` body of the audience endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AudienceError {
    /// What went wrong.
    pub error: String,
}

impl SegmentStatus {
    /// Status of a segment holding `data_count` identifiers whose ttl runs out at `expires_at`.
    pub fn at(data_count: i64, expires_at_ms: i64, now_ms: i64) -> Self {
        if now_ms >= expires_at_ms {
            Self::Archived
        } else if data_count >= ACTIVATION_THRESHOLD {
            Self::Active
        } else {
            Self::Inactive
        }
    }
}
